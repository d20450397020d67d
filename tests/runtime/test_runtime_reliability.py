"""Issue 25's findings on the runtime, one regression test each: a device fault pending at exit,
the stream numpy() waits for, from_pointer's units and bounds, devices, faults through events,
fork. On the package built from op_docs/, each test in a process of its own
(tests/support/op_docs_process.py's `run`)."""

from __future__ import annotations

import textwrap

import pytest

from tests.runtime.test_reliability import PRELUDE, pytestmark  # noqa: F401 - pytestmark: skipped without a build
from tests.support.op_docs_process import run


def check(body: str, prelude: str = "", **env: str) -> str:
    """Runs `body` (asserts included; dedented) after `prelude` (helpers, not indented) against the
    op_docs package in a fresh process."""
    done = run(PRELUDE + prelude + textwrap.dedent(body), **env)
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


# --- 6: Tensor.from_pointer's units and bounds ---------------------------------------------------

def test_stride_and_storage_offset_are_in_elements_and_strides_in_bytes():
    check("""
    host = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = aclnn.to_device(host)
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-1) == 1 and x.storage_offset() == 0
    assert x.strides == host.strides == (48, 16, 4)
    with pytest.raises(IndexError):
        x.stride(3)
    # A view through from_pointer, as torch_npu code writes it: element strides and offset.
    v = aclnn.Tensor.from_pointer(x.data_ptr() + 4 * 5, (3, 2), np.float32, (4, 1), owner=x)
    assert v.stride() == (4, 1) and v.strides == (16, 4)
    assert np.array_equal(v.numpy(), host.reshape(-1)[5:].reshape(-1)[:12].reshape(3, 4)[:, :2])
    w = aclnn.Tensor.from_pointer(x.data_ptr(), (2, 3), np.float32, (12, 4), offset=1, owner=x)
    assert np.array_equal(w.numpy(), host[:, :, 1]) and w.data_ptr() == x.data_ptr() + 4
    # A view's storage starts at the lowest element it reaches: a reversed one's [0] is 3 further.
    r = aclnn.Tensor.from_pointer(x.data_ptr() + 4 * 3, (4,), np.float32, (-1,), owner=x)
    assert (r.storage_offset(), r.stride()) == (3, (-1,)) and np.array_equal(r.numpy(), [3, 2, 1, 0])
    same = aclnn.Tensor.from_pointer(x.data_ptr(), x.shape, x.dtype, x.stride(), offset=x.storage_offset(), owner=x)
    assert np.array_equal(same.numpy(), host)
    """)


def test_a_view_past_its_allocation_is_refused():
    check("""
    x = aclnn.to_device(np.arange(16, dtype=np.float32))
    p = x.data_ptr()
    assert np.array_equal(aclnn.Tensor.from_pointer(p, (16,), 'FLOAT', owner=x).numpy(), np.arange(16))
    # The issue's case: one element past a 16-float tensor (inside the 512-byte cached block).
    with pytest.raises(ValueError, match="past the end of the allocation it points into .64 bytes"):
        aclnn.Tensor.from_pointer(p, (17,), 'FLOAT', owner=x)
    with pytest.raises(ValueError, match="past the end"):
        aclnn.Tensor.from_pointer(p, (16,), 'FLOAT', offset=1, owner=x)
    with pytest.raises(ValueError, match="past the end"):
        aclnn.Tensor.from_pointer(p + 4, (2,), 'FLOAT', (-2,), owner=x)  # reaches below the start
    # Byte strides given where elements are meant (x.strides): reads 4x too far.
    with pytest.raises(ValueError, match="in elements"):
        aclnn.Tensor.from_pointer(p, (4, 4), 'FLOAT', aclnn.to_device(np.zeros((4, 4), np.float32)).strides, owner=x)
    # Freed: the block is cached, no tensor holds it.
    y = aclnn.to_device(np.ones(8, np.float32)); q = y.data_ptr(); del y
    with pytest.raises(ValueError, match="no tensor holds"):
        aclnn.Tensor.from_pointer(q, (8,), 'FLOAT')
    """)


def test_foreign_views_with_random_shapes_strides_and_offsets_are_refused_exactly_when_out_of_bounds():
    # The fuzzer's scenario: random views of a 40-element tensor; in bounds, the values are NumPy's
    # view of the same memory; out of bounds, ValueError, never a read past the tensor.
    out = check("""
    import random
    rng = random.Random(25)
    n = 40
    host = np.arange(n, dtype=np.float32)
    x = aclnn.to_device(host)
    refused = accepted = 0
    for case in range(400):
        rank = rng.randint(0, 3)
        shape = tuple(rng.randint(0, 5) for _ in range(rank))
        strides = tuple(rng.randint(-6, 9) for _ in range(rank))
        start = rng.randint(-4, n + 4)  # element of [0, ..., 0], from the tensor's first
        offset = rng.randint(0, 3)
        first = start + offset
        empty = 0 in shape
        reach = [(d - 1) * s for d, s in zip(shape, strides)]
        low = first + sum(r for r in reach if r < 0)
        high = first + sum(r for r in reach if r > 0)
        inside = 0 <= start < n and (empty or (low >= 0 and high < n))
        ptr = x.data_ptr() + 4 * start
        try:
            v = aclnn.Tensor.from_pointer(ptr, shape, np.float32, strides, offset=offset, owner=x)
        except ValueError:
            assert not inside, (shape, strides, start, offset)
            refused += 1
            continue
        assert inside or not (0 <= start < n), (shape, strides, start, offset)  # outside x: not this allocator's
        if not inside:
            continue
        accepted += 1
        expected = np.array([host[first + sum(i * s for i, s in zip(index, strides))] for index in np.ndindex(*shape)],
                            np.float32).reshape(shape)
        assert np.array_equal(v.numpy(), expected), (shape, strides, start, offset)
    print(refused, accepted)
    """)
    refused, accepted = map(int, out.split())
    assert refused > 50 and accepted > 50, (refused, accepted)


# --- 7: devices ----------------------------------------------------------------------------------

TWO_DEVICES = {"ACLNN_SIM_DEVICE_COUNT": "2"}


def test_a_tensor_of_another_device_is_refused_naming_both_devices():
    check("""
    x0 = aclnn.to_device(np.ones(4, np.float32))
    s1 = aclnn.Stream(device=1)
    with aclnn.stream(s1):
        x1 = aclnn.to_device(np.full(4, 3, np.float32))
        out1 = aclnn.empty((4,), 'FLOAT')
    assert (x0.device, x1.device, out1.device) == (0, 1, 1)
    # The issue's case: a device-1 tensor in a call on a device-0 stream.
    with pytest.raises(ValueError, match="muls.. argument 'self' is on device 1, but the call runs on device 0"):
        aclnn.muls(x1, 2.0)
    with pytest.raises(ValueError, match="output 'out_?' is on device 1, but the call runs on device 0"):
        aclnn.muls(x0, 2.0, out=out1)
    with aclnn.stream(s1):
        with pytest.raises(ValueError, match="argument 'other' is on device 0, but the call runs on device 1"):
            aclnn.add(x1, x0, 1)
        assert np.array_equal(aclnn.add(x1, x1, 1).numpy(), np.full(4, 6))  # one device: fine
    aclnn.set_device(1)
    assert np.array_equal(aclnn.muls(x1, 2.0).numpy(), np.full(4, 6))
    with pytest.raises(ValueError, match="on device 0, but the call runs on device 1"):
        aclnn.muls(x0, 2.0)
    """, **TWO_DEVICES)


def test_a_device_the_backend_lacks_raises_its_invalid_device_error():
    check("""
    x = aclnn.to_device(np.ones(4, np.float32))
    for device in (99, 2, -1, 2**31 - 1):
        with pytest.raises(aclnn.AclError) as error:
            aclnn.Tensor.from_pointer(x.data_ptr(), (4,), 'FLOAT', device=device, owner=x)
        assert error.value.status_name == "ACL_ERROR_RT_INVALID_DEVICEID", error.value
        with pytest.raises(aclnn.AclError) as error:
            aclnn.memory_stats(device)
        assert error.value.status_name == "ACL_ERROR_RT_INVALID_DEVICEID", error.value
    # A valid one still works, and the thread's calls stay on their device.
    assert aclnn.Tensor.from_pointer(x.data_ptr(), (4,), 'FLOAT', device=1, owner=x).device == 1
    assert aclnn.memory_stats(1)["allocations"] == 0
    assert np.array_equal(aclnn.muls(x, 2.0).numpy(), np.full(4, 2)) and aclnn.get_device() == 0
    """, **TWO_DEVICES)


# --- 4: a device fault travels through events ----------------------------------------------------

def test_a_fault_travels_through_an_event_to_the_work_that_waited_for_it():
    # The issue's case: z depends on y (s2 waits for s1's event), whose kernel faulted; z.numpy()
    # returned garbage ([2.3e-43, 1, 2, ...]) with no error.
    check("""
    x = aclnn.to_device(np.arange(8, dtype=np.float32))
    s1, s2 = aclnn.Stream(), aclnn.Stream()
    with aclnn.stream(s1):
        y = aclnn.muls(x, 2.0)  # call #1, faults
    e = s1.record_event()
    s2.wait_event(e)
    with aclnn.stream(s2):
        z = aclnn.add(y, x, 1)  # call #2, depends on y
    with pytest.raises(aclnn.AclnnRuntimeError) as error:
        z.numpy()
    assert (error.value.api, error.value.call) == ("aclnnMuls", 1), error.value
    assert "waited for it through an event" in str(error.value)
    # Each stream that depended on it reports it at its synchronisation, once.
    for stream in (s2, s1):
        with pytest.raises(aclnn.AclnnRuntimeError, match="aclnnMuls .call #1."):
            stream.synchronize()
        stream.synchronize()
    # Work that does not depend on the fault runs.
    with aclnn.stream(s2):
        assert np.array_equal(aclnn.add(x, x, 1).numpy(), np.arange(8) * 2)
    """, **FAULT)


def test_a_fault_reported_through_another_stream_is_not_reported_again_at_exit():
    done = run(PRELUDE + textwrap.dedent("""
    x = aclnn.to_device(np.arange(8, dtype=np.float32))
    s1, s2 = aclnn.Stream(), aclnn.Stream()
    with aclnn.stream(s1):
        y = aclnn.muls(x, 2.0)
    s2.wait_event(s1.record_event())
    with aclnn.stream(s2):
        z = aclnn.add(y, x, 1)
    try:
        s2.synchronize()
    except aclnn.AclnnRuntimeError:
        print("raised")
    """), **FAULT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "raised\n", "")


CHAIN = """
import random
rng = random.Random(SEED)
streams = [aclnn.Stream() for _ in range(rng.randint(2, 4))]
lengths = [rng.randint(1, 3) for _ in streams]
x = aclnn.to_device(np.arange(6, dtype=np.float32))
value, expected, finals, owner = x, np.arange(6, dtype=np.float32), [], []
launch = 0
for i, (stream, length) in enumerate(zip(streams, lengths)):
    if i:
        stream.wait_event(streams[i - 1].record_event())
    with aclnn.stream(stream):
        for _ in range(length):
            launch += 1
            owner.append(i)
            value = aclnn.muls(value, 2.0)
            expected = expected * 2
    finals.append((value, expected.copy()))
faulted = owner[FAULT_AT - 1]  # the stream of the faulted launch
order = list(range(len(streams)))
rng.shuffle(order)
for i in order:  # reads from the default stream, another than the writer's
    value, want = finals[i]
    if i < faulted:
        assert np.array_equal(value.numpy(), want), (i, faulted)
    else:
        with pytest.raises(aclnn.AclnnRuntimeError) as error:
            value.numpy()
        assert (error.value.api, error.value.call) == ("aclnnMuls", FAULT_AT), (i, faulted, error.value)
for stream in streams:  # each stream at or after the fault reports it once, then works
    try:
        stream.synchronize()
    except aclnn.AclnnRuntimeError as error:
        assert error.call == FAULT_AT
    stream.synchronize()
print(len(streams), sum(lengths), faulted)
"""


@pytest.mark.parametrize("seed", range(6))
def test_a_fault_on_one_stream_of_a_chain_reaches_exactly_the_streams_after_it(seed):
    # The fuzzer's scenario: a chain of 2-4 streams, each waiting for the one before through an
    # event, 1-3 calls on each; one launch faults; every stream's result is read from the default
    # stream in random order: those before the fault are right, the others raise, naming the call.
    import random

    rng = random.Random(1000 + seed)
    total = 12  # at most 4 streams x 3 calls: the fault's launch is drawn among the chain's own
    code = CHAIN.replace("SEED", str(seed))
    probe = run(PRELUDE + textwrap.dedent(code.replace("FAULT_AT", "10**6").replace(
        "faulted = owner[10**6 - 1]", "faulted = len(streams)")))  # no fault: how long the chain is
    assert probe.returncode == 0, probe.stderr[-2000:]
    launches = int(probe.stdout.split()[1])
    fault_at = rng.randint(1, min(total, launches))
    check(code.replace("FAULT_AT", str(fault_at)), ACLNN_SIM_FAULT=f"aclnnMuls:{fault_at}")


# --- 1, 2: fork ----------------------------------------------------------------------------------

FORK = """
import os, sys
def in_child(work):
    '''Forks; the child runs `work` and exits 0 if it returned, 3 if it raised the fork error, 4 on
    anything else (its message on stderr). Returns the child's exit status.'''
    pid = os.fork()
    if pid == 0:
        try:
            work()
            code = 0
        except aclnn.AclnnRuntimeError as error:
            code = 3 if "forked child" in str(error) and isinstance(error, RuntimeError) else 4
            print(error, file=sys.stderr)
        except BaseException as error:
            print(repr(error), file=sys.stderr)
            code = 4
        sys.stderr.flush()
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
"""


def test_a_fork_with_queued_work_never_hangs_the_parent():
    # The case: thirty 512x512 mm queued, fork, the child exits, the parent synchronises:
    # the stream worker was inside OpenBLAS, whose fork handler stopped its pool under it (3 forks
    # in 6 hung). Here ten forks, each with work queued; a hang is the subprocess's timeout.
    check(prelude=FORK, body="""
    rng = np.random.default_rng(0)
    start = (rng.random((512, 512), np.float32) / 512).astype(np.float32)
    def chain(fork):
        y = aclnn.to_device(start)
        for k in range(30):
            y = aclnn.mm(y, y, 0)
            if k == fork:
                assert in_child(lambda: None) == 0
        aclnn.synchronize()
        return y.numpy()
    unforked = chain(-1)
    for fork in (0, 3, 7, 12, 15, 20, 24, 27, 29, 29):
        assert np.array_equal(chain(fork), unforked)
    """)


def test_a_child_of_a_started_runtime_gets_a_clear_error_and_the_parent_goes_on():
    # The second case: the child used the parent's stream, and hung.
    check(prelude=FORK, body="""
    S = aclnn.Stream()
    X = aclnn.to_device(np.arange(4, dtype=np.float32))
    S.synchronize()
    def on_parents_stream():
        with aclnn.stream(S):
            aclnn.muls(X, 3.0)
        S.synchronize()
    assert in_child(on_parents_stream) == 3
    assert in_child(lambda: aclnn.muls(np.ones(2, np.float32), 3.0)) == 3  # any use: as PyTorch's CUDA
    assert in_child(lambda: X.numpy()) == 3
    assert in_child(lambda: (X, S, X.shape, np.ones(3).sum())) == 0  # what uses no runtime works
    def release_everything():
        global X, S
        del X, S
        import gc; gc.collect()
    assert in_child(release_everything) == 0  # released without the parent's runtime
    with aclnn.stream(S):
        assert np.array_equal(aclnn.muls(X, 3.0).numpy(), np.arange(4) * 3)
    """)


def test_a_child_of_a_process_that_never_started_the_runtime_may_start_its_own():
    check(prelude=FORK, body="""
    def uses_aclnn():
        assert np.array_equal(aclnn.muls(np.arange(3, dtype=np.float32), 2.0), [0, 2, 4])
    assert in_child(uses_aclnn) == 0  # the parent imported aclnn but started nothing
    assert np.array_equal(aclnn.muls(np.arange(3, dtype=np.float32), 2.0), [0, 2, 4])
    assert in_child(uses_aclnn) == 3  # now it has
    """)


@pytest.mark.parametrize("method", ["map", "apply_async", "imap_unordered", "starmap", "Process"])
def test_multiprocessing_with_the_fork_start_method_never_hangs(method):
    # The issue: all five fork-method variants hung. A worker that does not use aclnn works; one
    # that does gets the error (the parent, which started the runtime, is unaffected).
    check(f"""
    import multiprocessing as mp
    def plain(k):
        return k * 2
    def uses_aclnn(k):
        return float(aclnn.muls(np.full(2, k, np.float32), 2.0)[0])
    y = aclnn.to_device(np.full((256, 256), 1 / 256, np.float32))
    for _ in range(20):
        y = aclnn.mm(y, y, 0)  # queued while the pool forks
    context = mp.get_context("fork")
    method = {method!r}
    if method == "Process":
        p = context.Process(target=plain, args=(1,)); p.start(); p.join(60); assert p.exitcode == 0
        p = context.Process(target=uses_aclnn, args=(1,)); p.start(); p.join(60); assert p.exitcode == 1
    else:
        with context.Pool(2) as pool:
            run = {{"map": lambda f: pool.map(f, range(4)),
                   "apply_async": lambda f: [pool.apply_async(f, (k,)).get(60) for k in range(4)],
                   "imap_unordered": lambda f: sorted(pool.imap_unordered(f, range(4))),
                   "starmap": lambda f: pool.starmap(f, [(k,) for k in range(4)])}}[method]
            assert run(plain) == [0, 2, 4, 6]
            with pytest.raises(aclnn.AclnnRuntimeError, match="forked child"):
                run(uses_aclnn)
            # Leaving the block terminates the workers (SIGTERM). imap_unordered raises at the first
            # error while the other calls' answers are being sent: a worker killed inside its put
            # holds the result queue's lock for ever, and the pool's task thread, which puts its
            # sentinel there, never ends (terminate joins it: 3 hangs in 390 runs). Closed and
            # joined, every worker answers and exits by itself.
            pool.close()
            pool.join()
    aclnn.synchronize()
    assert np.isfinite(y.numpy()).all()
    """)


@pytest.mark.parametrize("seed", range(4))
def test_forks_at_random_points_of_a_multi_stream_chain(seed):
    # The fuzzer's scenario: streams chained by events, forks at random points of the chain (work
    # queued on every stream); the children try a random use (the error) or none; the parent's
    # results are those of the chain without forks.
    check(prelude=FORK, body=f"""
    import random
    rng = random.Random({seed})
    streams = [aclnn.Stream() for _ in range(rng.randint(2, 3))]
    steps = [(rng.randrange(len(streams)), rng.choice(("mm", "muls"))) for _ in range(rng.randint(8, 16))]
    forks = set(rng.sample(range(len(steps)), 3))
    start = (np.random.default_rng({seed}).random((192, 192), np.float32) / 192).astype(np.float32)
    def chain(fork_at):
        y = aclnn.to_device(start)
        previous = aclnn.current_stream()
        for k, (which, op) in enumerate(steps):
            stream = streams[which]
            stream.wait_stream(previous)
            with aclnn.stream(stream):
                y = aclnn.mm(y, y, 0) if op == "mm" else aclnn.muls(y, 1.5)
            previous = stream
            if k in fork_at:
                use = rng.choice(["none", "numpy", "call", "stream"])
                work = {{"none": lambda: None, "numpy": lambda: y.numpy(), "call": lambda: aclnn.muls(y, 2.0),
                        "stream": lambda: stream.synchronize()}}[use]
                assert in_child(work) == (0 if use == "none" else 3), use
        return y.numpy()
    assert np.array_equal(chain(forks), chain(set()))
    """)
