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


# --- 5: Tensor.numpy() waits for the stream that wrote the tensor ------------------------------

HOLD = """
import ctypes, os, threading
_hold = ctypes.CDLL(os.path.join(aclnn.backend().lib_dir, "libascendcl.so")).aclsimHoldStream
_hold.argtypes, _hold.restype = [ctypes.c_void_p, ctypes.c_int], ctypes.c_int
def held(stream, seconds=0.3):
    '''The simulator starts no task of `stream` for `seconds` (aclsimHoldStream): its queued work
    is still queued when the host reads, whatever the machine's speed.'''
    assert _hold(stream.handle, 1) == 0
    threading.Timer(seconds, lambda: _hold(stream.handle, 0)).start()
"""


@pytest.mark.parametrize("read", ["y.numpy()", "np.asarray(y)", "pickle.loads(pickle.dumps(y))", "copy.deepcopy(y).numpy()"])
@pytest.mark.parametrize("written", ["result", "out=", "in place"])
def test_a_host_read_waits_for_the_stream_that_wrote_the_tensor(written, read):
    # The case: the result of a call inside `with aclnn.stream(s1):`, read outside it, was
    # read by a copy on the default stream while s1 had not run the kernel (garbage, no error).
    write = {"result": "y = aclnn.muls(x, 2.0)",
             "out=": "y = aclnn.empty((64,), 'FLOAT')\naclnn.muls(x, 2.0, out=y)",
             "in place": "y = aclnn.to_device(np.arange(64, dtype=np.float32))\naclnn.inplace_muls(y, 2.0)"}[written]
    check(HOLD + f"""
x = aclnn.to_device(np.arange(64, dtype=np.float32))
s1 = aclnn.Stream()
held(s1)
with aclnn.stream(s1):
""" + textwrap.indent(write, "    ") + f"""
assert aclnn.current_stream() == aclnn.default_stream()
got = np.asarray({read})
assert np.array_equal(got, np.arange(64, dtype=np.float32) * 2), got[:8]
""")
