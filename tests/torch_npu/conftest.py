"""torch_npu on the simulator: each test runs torch_npu in a process of its own, started with the
environment the simulator's set_env.sh gives, as a user does after
`source "$(python -m aclnn.sim home)/set_env.sh"`. Skipped where torch_npu is not installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if importlib.util.find_spec("torch_npu") is None:
    pytest.skip("torch_npu is not installed (pip install torch-npu==2.13.0)", allow_module_level=True)


ROOT = Path(__file__).resolve().parents[2]
# The toolkit of the repository's build (make build), not whatever simulator another test of this
# worker pointed ACLNN_SIM_DIR at (the session packages of tests/bindings_build.py have their own).
TOOLKIT = ROOT / "generated" / "aclnn" / "_sim" / "toolkit"


@pytest.fixture(scope="session")
def toolkit() -> Path:
    return TOOLKIT


@pytest.fixture(scope="session")
def npu_environment() -> dict[str, str]:
    if not (TOOLKIT / "set_env.sh").is_file():
        pytest.fail(f"no simulator toolkit at {TOOLKIT}: make build first")
    # A user's environment: none of the simulator's settings another test of this worker may have
    # left in os.environ (a chip, a fault, synchronous mode, another build), torch loading torch_npu
    # by itself, and what `source set_env.sh` sets (the script run, as a user runs it).
    base = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    base.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    listing = subprocess.run(["bash", "-c", 'source "$1" && env -0', "set_env", str(TOOLKIT / "set_env.sh")],
                             env=base, check=True, capture_output=True).stdout
    return dict(entry.split("=", 1) for entry in listing.decode().split("\0") if "=" in entry)


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
