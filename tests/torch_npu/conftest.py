"""torch_npu on the simulator: each test runs torch_npu in a process of its own, started with the
environment the simulator's set_env.sh gives, as a user does after
`source "$(python -m aclnn.sim home)/set_env.sh"`. Skipped where torch_npu is not installed."""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if importlib.util.find_spec("torch_npu") is None:
    pytest.skip("torch_npu is not installed (pip install torch-npu==2.13.0)", allow_module_level=True)


ROOT = Path(__file__).resolve().parents[2]
# The toolkit of the repository's build (make build), not whatever simulator another test of this
# worker pointed ACLNN_SIM_DIR at (the session packages of tests/support/bindings_build.py have their own).
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


class ScriptServer:
    """One process per pytest worker with torch and torch_npu imported (script_server.py), running
    the scripts that need nothing of a process of their own: importing torch_npu costs a process
    ~3 s of CPU, most of what a short check costs. A script that fails there is run again in a
    fresh process, whose result is the test's (what an earlier script left behind is not the
    script's failure), and the server is started anew.

    Between scripts the server is stopped (SIGSTOP): torch_npu's release thread polls its queue
    thousands of times a second whether or not there is work (~20% of a core, idle), and a worker
    keeps a server per chip for the whole session."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.process: subprocess.Popen | None = None

    def start(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("script_server.py"))],
                                            env=self.environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True)
        return self.process

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, script: str, timeout: int) -> tuple[bool, str]:
        """(passed, output); (False, why) when the server died or did not answer in time."""
        process = self.start()
        try:
            process.send_signal(signal.SIGCONT)
            process.stdin.write(json.dumps(script) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            line = process.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError) as error:
            line = ""
            why = f"the script server failed: {error}"
        else:
            why = "the script server died" if ready else f"no answer in {timeout} s"
        if not line:
            self.stop()
            return False, why
        answer = json.loads(line)
        if not answer["ok"]:
            self.stop()
        else:
            process.send_signal(signal.SIGSTOP)
        return answer["ok"], answer["output"]


# The settings a script may ask for and still run in a shared server: the simulated chip. Each
# distinct value has a server of its own (torch_npu reads the chip once, at its first device use).
SHARED_SETTINGS = frozenset({"ACLNN_SIM_SOC"})


class ScriptServers:
    """The worker's script servers, one per value of the SHARED_SETTINGS a script asks for."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.servers: dict[tuple[tuple[str, str], ...], ScriptServer] = {}

    def serves(self, env: dict[str, str]) -> bool:
        return set(env) <= SHARED_SETTINGS

    def server(self, env: dict[str, str]) -> ScriptServer:
        key = tuple(sorted(env.items()))
        if key not in self.servers:
            self.servers[key] = ScriptServer({**self.environment, **env})
        return self.servers[key]

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()


@pytest.fixture(scope="session")
def script_server(npu_environment):
    servers = ScriptServers(npu_environment)
    yield servers
    servers.stop()


@pytest.fixture
def run_npu(npu_environment, script_server):
    """Runs a Python script with torch and torch_npu imported, on the simulator; the script asserts
    what it checks. Returns its standard output; fails the test with its output when it fails.
    A script run with environment variables other than the chip's, one expected to fail, or one
    that asks for `fresh=True` (it checks something of a whole process: its exit, its first device
    use) gets a process of its own; the others run in the worker's script server for their chip."""

    def run(script: str, *, env: dict[str, str] | None = None, expect_failure: bool = False, fresh: bool = False,
            timeout: int = 240) -> str:
        prologue = "import torch, torch_npu\ntorch.manual_seed(0)\n"
        if not (expect_failure or fresh) and script_server.serves(env or {}):
            passed, output = script_server.server(env or {}).run(textwrap.dedent(script), timeout)
            if passed:
                return output
        proc = subprocess.run([sys.executable, "-c", prologue + textwrap.dedent(script)],
                              env={**npu_environment, **(env or {})}, capture_output=True, text=True, timeout=timeout)
        output = proc.stdout + proc.stderr
        if expect_failure:
            assert proc.returncode != 0, f"the script succeeded:\n{output}"
        else:
            assert proc.returncode == 0, f"exit status {proc.returncode}:\n{output}"
        return output

    return run
