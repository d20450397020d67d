"""torch_npu on the simulator: each test runs torch_npu in a process of its own, started with the
environment the simulator's set_env.sh gives, as a user does after
`source "$(python -m aclnn.sim home)/set_env.sh"`. Skipped where torch_npu is not installed."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
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


class ProcessFactory:
    """The worker's script_server.py: a process that imported torch and torch_npu once and forks
    the processes the scripts run in (each ~7 CPU-s cheaper here than a new interpreter's imports)."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None

    def request(self, request: dict, fds: list[int] | None = None, timeout: float | None = None) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.stop()
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self.process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("script_server.py")),
                                             str(theirs.fileno())], pass_fds=[theirs.fileno()], env=self.environment,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            theirs.close()
            self.control = ours
        assert self.control is not None
        socket.send_fds(self.control, [json.dumps(request).encode()], fds or [])
        self.control.settimeout(timeout)
        try:
            answer = self.control.recv(1 << 16)
        except TimeoutError:
            answer = b""
        if not answer:
            self.stop()
            raise RuntimeError(f"the script server did not answer {request['kind']!r}")
        return json.loads(answer)

    def run(self, script: str, env: dict[str, str], timeout: int) -> tuple[int | None, str]:
        """(exit status, output) of the script run as `python -c` in a process of its own."""
        with tempfile.NamedTemporaryFile("w", suffix=".py") as file, tempfile.NamedTemporaryFile() as output:
            file.write(script)
            file.flush()
            answer = self.request({"kind": "run", "env": env, "script": file.name, "output": output.name,
                                   "timeout": timeout}, timeout=timeout + 60)
            return answer["returncode"], output.read().decode(errors="replace")

    def stop(self) -> None:
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None:
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


class ScriptServer:
    """A process forked from the factory with torch_npu imported, running the scripts that need
    nothing of a process of their own one after another. A script that fails there is run again in
    a process of its own, whose result is the test's (what an earlier script left behind is not the
    script's failure), and the server is started anew.

    Between scripts the server is stopped (SIGSTOP): torch_npu's release thread polls its queue
    thousands of times a second whether or not there is work (~20% of a core, idle), and a worker
    keeps a server per chip for the whole session."""

    def __init__(self, factory: ProcessFactory, env: dict[str, str]) -> None:
        self.factory = factory
        self.env = env
        self.pid: int | None = None
        self.channel: socket.socket | None = None

    def start(self) -> socket.socket:
        if self.channel is None:
            ours, theirs = socket.socketpair()
            try:
                self.pid = self.factory.request({"kind": "server", "env": self.env}, [theirs.fileno()], 120)["pid"]
            finally:
                theirs.close()
            self.channel = ours
        return self.channel

    def stop(self) -> None:
        if self.pid is not None:
            os.kill(self.pid, signal.SIGKILL)
            self.pid = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    def run(self, script: str, timeout: int) -> tuple[bool, str]:
        """(passed, output); (False, why) when the server died or did not answer in time."""
        try:
            channel = self.start()
            assert self.pid is not None
            os.kill(self.pid, signal.SIGCONT)
            channel.sendall((json.dumps(script) + "\n").encode())
            channel.settimeout(timeout)
            received = b""
            while not received.endswith(b"\n"):
                chunk = channel.recv(1 << 20)
                if not chunk:
                    break
                received += chunk
        except TimeoutError:
            received, why = b"", f"no answer in {timeout} s"
        except (RuntimeError, OSError) as error:
            received, why = b"", f"the script server failed: {error}"
        else:
            why = "the script server died"
        if not received:
            self.stop()
            return False, why
        answer = json.loads(received)
        if not answer["ok"]:
            self.stop()
        else:
            os.kill(self.pid, signal.SIGSTOP)
        return answer["ok"], answer["output"]


# The settings a script may ask for and still run in a shared server: the simulated chip. Each
# distinct value has a server of its own (torch_npu reads the chip once, at its first device use).
SHARED_SETTINGS = frozenset({"ACLNN_SIM_SOC"})


# What a process forked from the factory can still be given: the settings read at the first device
# use, after the fork (the chip; torch_npu's launch mode and its allocator's configuration). The
# simulator's other settings (ACLNN_SIM_FAULT, ACLNN_SIM_THREADS, ...) are read as torch_npu is
# imported (libtorch_npu asks libascendcl for the CANN version as it loads, and the first call reads
# every setting), and op-plugin reads TORCH_NPU_USE_COMPATIBLE_IMPL as it imports: a script given any
# other variable runs in a new interpreter.
FORKABLE_SETTINGS = SHARED_SETTINGS | {"ASCEND_LAUNCH_BLOCKING", "PYTORCH_NPU_ALLOC_CONF"}


class ScriptServers:
    """The worker's factory and script servers, one server per value of the SHARED_SETTINGS a script asks for."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.factory = ProcessFactory(environment)
        self.servers: dict[tuple[tuple[str, str], ...], ScriptServer] = {}

    def serves(self, env: dict[str, str]) -> bool:
        return set(env) <= SHARED_SETTINGS

    def server(self, env: dict[str, str]) -> ScriptServer:
        key = tuple(sorted(env.items()))
        if key not in self.servers:
            self.servers[key] = ScriptServer(self.factory, env)
        return self.servers[key]

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()
        self.factory.stop()


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
    use) gets a process of its own, forked from the worker's factory before any device use; the
    others run in the worker's script server for their chip."""

    def run(script: str, *, env: dict[str, str] | None = None, expect_failure: bool = False, fresh: bool = False,
            timeout: int = 240) -> str:
        script = textwrap.dedent(script)
        if not (expect_failure or fresh) and script_server.serves(env or {}):
            passed, output = script_server.server(env or {}).run(script, timeout)
            if passed:
                return output
        if set(env or {}) <= FORKABLE_SETTINGS:
            returncode, output = script_server.factory.run(script, env or {}, timeout)
            assert returncode is not None, f"no exit in {timeout} s:\n{output}"
        else:
            proc = subprocess.run([sys.executable, "-c", "import torch, torch_npu\ntorch.manual_seed(0)\n" + script],
                                  env={**npu_environment, **(env or {})}, capture_output=True, text=True,
                                  timeout=timeout)
            returncode, output = proc.returncode, proc.stdout + proc.stderr
        if expect_failure:
            assert returncode != 0, f"the script succeeded:\n{output}"
        else:
            assert returncode == 0, f"exit status {returncode}:\n{output}"
        return output

    return run
