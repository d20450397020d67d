"""Runs test scripts one after another in one process that imported torch and torch_npu once.

Started by conftest.py's `run_npu` with the simulator's set_env.sh environment. Importing torch_npu
and bringing its device up costs a process ~3 s of CPU, most of what a short per-op check costs;
this process pays it once per pytest worker. Protocol: a JSON string (the script) per line on
stdin; for each, one JSON line {"ok": bool, "output": str} on the stdout this process started with.
While a script runs, file descriptors 1 and 2 go to a file, so its output includes what C++ code
(torch_npu's, the simulator's) writes, as a process of its own would show."""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import traceback
import types

import torch
import torch_npu  # noqa: F401 - the backend every script uses

# The control channel is the original stdout; fds 1 and 2 are lent to each script.
control = os.fdopen(os.dup(1), "w")
server = sys.modules["__main__"]


def run(script: str) -> tuple[bool, str]:
    with tempfile.TemporaryFile() as log:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            torch.manual_seed(0)
            # The script is __main__, as with `python -c`: unittest.main() looks there for its tests.
            main = types.ModuleType("__main__")
            main.__dict__.update(torch=torch, torch_npu=torch_npu)
            sys.modules["__main__"] = main
            sys.argv = ["-c"]
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
            sys.modules["__main__"] = server
            gc.collect()
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        log.seek(0)
        return ok, log.read().decode(errors="replace")


for line in sys.stdin:
    ok, output = run(json.loads(line))
    control.write(json.dumps({"ok": ok, "output": output}) + "\n")
    control.flush()
