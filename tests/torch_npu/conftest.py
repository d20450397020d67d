"""torch_npu on the simulator: each test runs torch_npu in a process of its own, started with the
environment the simulator's set_env.sh gives (`aclnn.sim.environment()`), as a user does after
`source "$(python -m aclnn.sim home)/set_env.sh"`. Skipped where torch_npu is not installed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

if importlib.util.find_spec("torch_npu") is None:
    pytest.skip("torch_npu is not installed (pip install torch-npu==2.13.0)", allow_module_level=True)


@pytest.fixture(scope="session")
def npu_environment() -> dict[str, str]:
    import os

    import aclnn.sim

    # A user's environment: none of the simulator's settings another test of this worker may have
    # left in os.environ (a chip, a fault, synchronous mode), and torch loading torch_npu by itself.
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("ACLNN_SIM_") or k == "ACLNN_SIM_DIR"}
    base.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    return aclnn.sim.environment(base)


@pytest.fixture
def run_npu(npu_environment):
    """Runs a Python script with torch and torch_npu imported, on the simulator; the script asserts
    what it checks. Returns its standard output; fails the test with its output when it fails."""

    def run(script: str, *, env: dict[str, str] | None = None, expect_failure: bool = False, timeout: int = 240) -> str:
        prologue = "import torch, torch_npu\ntorch.manual_seed(0)\n"
        proc = subprocess.run([sys.executable, "-c", prologue + textwrap.dedent(script)],
                              env={**npu_environment, **(env or {})}, capture_output=True, text=True, timeout=timeout)
        output = proc.stdout + proc.stderr
        if expect_failure:
            assert proc.returncode != 0, f"the script succeeded:\n{output}"
        else:
            assert proc.returncode == 0, f"exit status {proc.returncode}:\n{output}"
        return output

    return run
