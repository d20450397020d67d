"""The processes torch_npu's tests run their scripts in, forked from this one, which imported torch
and torch_npu once.

Started by conftest.py (one per pytest worker) with the simulator's set_env.sh environment.
Importing torch and torch_npu costs a process ~7 CPU-s on this project's machines, bringing the
device up ~1 more; a fork of this process costs a fraction of a second. Nothing of the device
exists here before a fork: torch_npu brings it up at its first use, and the simulator reads its
settings (ACLNN_SIM_*) then too, so a child given its own environment after the fork is, to both,
a process started with that environment.

Protocol: requests are datagrams on the SOCK_SEQPACKET socket whose descriptor is argv[1], one
JSON object each, answered by one JSON datagram:
- {"kind": "run", "env", "script", "output", "timeout"}: a child runs the script file `script` as
  `python -c` would (it is __main__; an uncaught exception prints its traceback and exits 1), with
  descriptors 1 and 2 on the file `output`, then exits as a process does (atexit handlers, torch_npu's
  shutdown). Answer: {"returncode"} (negative: the signal that ended it; null: killed after `timeout` s).
- {"kind": "server", "env"} with one descriptor attached (a SOCK_STREAM socket): a child serves
  scripts on that socket, one JSON string per line, each answered by a line {"ok", "output"},
  until it is closed. Answer: {"pid"}."""

from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
import tempfile
import time
import traceback
import types
from typing import TextIO

import torch
import torch_npu  # noqa: F401 - the backend every script uses

factory = sys.modules["__main__"]

# The ~260,000 objects torch and torch_npu leave behind are kept out of the garbage collector's
# passes in every process forked from here (gc.freeze, as Python's documentation advises before a
# fork): a full collection traversed them all, 0.2 CPU-s each, which a server paid after every
# script and each process paid again as its interpreter exited (~1.7 of its exit's 2 CPU-s). What a
# script creates is collected as before; only these imports' cycles, if any, are never freed.
gc.freeze()


def new_main() -> types.ModuleType:
    # The script is __main__, as with `python -c`: unittest.main() looks there for its tests.
    main = types.ModuleType("__main__")
    main.__dict__.update(torch=torch, torch_npu=torch_npu)
    sys.modules["__main__"] = main
    sys.argv = ["-c"]
    torch.manual_seed(0)
    return main


def run_in_server(script: str) -> tuple[bool, str]:
    """Runs one script of a server; its output is what fds 1 and 2 received meanwhile, so that it
    includes what C++ code (torch_npu's, the simulator's) wrote, as a process of its own would show."""
    with tempfile.TemporaryFile() as log:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            main = new_main()
            exec(compile(script, "<string>", "exec"), main.__dict__)
            # Work the script queued and did not wait for fails the script, not the next one.
            torch.npu.synchronize()
            ok = True
        except SystemExit as exit_:
            ok = exit_.code in (None, 0)
        except BaseException:  # noqa: B036 - whatever the script raised is its failure, reported
            traceback.print_exc()
            ok = False
        finally:
            # What the script's objects hold (device memory, streams) goes now, not in some later
            # script's garbage collection.
            sys.modules["__main__"] = factory
            gc.collect()
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        log.seek(0)
        return ok, log.read().decode(errors="replace")


def serve(channel: socket.socket) -> None:
    requests: TextIO = channel.makefile("r")
    answers: TextIO = channel.makefile("w")
    for line in requests:
        ok, output = run_in_server(json.loads(line))
        answers.write(json.dumps({"ok": ok, "output": output}) + "\n")
        answers.flush()


def run_once(script_file: str) -> int:
    """The exit status of `python -c` running the script (what SystemExit carries, 1 for an uncaught
    exception after its traceback)."""
    main = new_main()
    with open(script_file) as file:
        script = file.read()
    try:
        exec(compile(script, "<string>", "exec"), main.__dict__)
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        print(exit_.code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: B036 - as the interpreter does with an uncaught exception
        traceback.print_exc()
        return 1
    return 0


def wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.02)


def enter_child(request: dict, control: socket.socket) -> None:
    control.close()
    os.environ.update(request["env"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def factory_loop(control: socket.socket) -> tuple[str, object] | None:
    """Answers requests until the control socket closes; in a child, returns what it is to do."""
    servers: list[int] = []
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        if not message:
            # The tests have stopped (killed) their servers: reaped here, so that their CPU time counts
            # as this process's children's, as a new interpreter's would.
            for pid in servers:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            return None
        # Servers the tests stopped (killed) are reaped here, not left as zombies.
        servers = [pid for pid in servers if os.waitpid(pid, os.WNOHANG)[0] == 0]
        request = json.loads(message)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            enter_child(request, control)
            if request["kind"] == "server":
                return "server", socket.socket(fileno=fds[0])
            output = os.open(request["output"], os.O_WRONLY | os.O_TRUNC)
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.close(output)
            return "run", request["script"]
        for fd in fds:
            os.close(fd)
        if request["kind"] == "server":
            servers.append(pid)
            control.send(json.dumps({"pid": pid}).encode())
        else:
            control.send(json.dumps({"returncode": wait(pid, request["timeout"])}).encode())


if __name__ == "__main__":
    # Returned, not run inside the loop: a child's script runs and its interpreter exits from here,
    # outside the factory's frames, as a process of its own does.
    job = factory_loop(socket.socket(fileno=int(sys.argv[1])))
    if job is None:
        sys.exit(0)
    kind, what = job
    if kind == "server":
        assert isinstance(what, socket.socket)
        serve(what)
        sys.exit(0)
    assert isinstance(what, str)
    sys.exit(run_once(what))
