"""Issue 25's findings on the runtime, one regression test each: a device fault pending at exit,
the stream numpy() waits for, from_pointer's units and bounds, devices, faults through events,
fork. On the package built from op_docs/, each test in a process of its own (tests/test_reliability.py's
`run`)."""

from __future__ import annotations

import textwrap

import pytest

from tests.test_reliability import PRELUDE, pytestmark, run  # noqa: F401 - pytestmark: skipped without a build


def check(body: str, **env: str) -> str:
    """Runs `body` (asserts included) against the op_docs package in a fresh process."""
    done = run(PRELUDE + textwrap.dedent(body), **env)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


# --- 9: a fault still pending at interpreter exit ------------------------------------------------

FAULT = {"ACLNN_SIM_FAULT": "aclnnMuls:1"}


@pytest.mark.parametrize("where", ["default stream", "own stream", "destroyed stream"])
def test_a_fault_pending_at_exit_is_reported_and_the_exit_status_is_1(where):
    launch = {
        "default stream": "y = aclnn.muls(x, 2.0)",
        "own stream": "s = aclnn.Stream()\nwith aclnn.stream(s):\n    y = aclnn.muls(x, 2.0)",
        # The stream goes before any synchronisation: its fault outlives it.
        "destroyed stream": "s = aclnn.Stream()\nwith aclnn.stream(s):\n    y = aclnn.muls(x, 2.0)\ndel s, y",
    }[where]
    code = ("import atexit, numpy as np, aclnn\nx = aclnn.to_device(np.ones(4, np.float32))\n" + launch +
            "\nprint('end of script', flush=True)\n")
    # A handler registered before aclnn's still runs (after it).
    code = "import atexit\natexit.register(lambda: print('earlier handler ran', flush=True))\n" + code
    done = run(code, **FAULT)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert done.stdout.splitlines() == ["end of script", "earlier handler ran"]
    assert "a device fault was still pending at interpreter exit" in done.stderr
    assert "aclnn.AclnnRuntimeError: aclnnMuls (call #1) failed on the device" in done.stderr, done.stderr


def test_a_fault_reported_before_exit_is_not_reported_again():
    done = run("import numpy as np, aclnn\nx = aclnn.to_device(np.ones(4, np.float32))\ny = aclnn.muls(x, 2.0)\n"
               "try:\n    aclnn.synchronize()\nexcept aclnn.AclnnRuntimeError:\n    print('raised')\n", **FAULT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "raised\n", "")
