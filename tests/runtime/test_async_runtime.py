"""The bindings on an asynchronous device: calls on device tensors queue their kernels and return,
memory comes from a stream-ordered caching allocator, streams and events order work, foreign
memory and streams are used without a copy, and a kernel's fault surfaces at the next
synchronisation naming the call that launched it.

On the simulator (the fake backend is synchronous and has no faults: these tests need the real one)."""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import threading
import weakref

import numpy as np
import pytest

from tests.support import bindings_build
from tests.runtime.concurrency import run_in_threads

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(),
                                reason="needs the real simulator (runtime/sim): the fake backend is synchronous")

BIG = 1 << 22  # elements: a few milliseconds of kernel per call


def leaky(g, x, slope=np.float32(0.1)):
    return np.where(x > 0, g, g * slope).astype(np.float32)


def counters(aclnn):
    return {**aclnn.sim_stats(), **{f"mem_{k}": v for k, v in aclnn.memory_stats().items()}}


def delta(before, after, *keys):
    return {k: after[k] - before[k] for k in keys}


@pytest.fixture
def gy():
    rng = np.random.default_rng(7)
    return rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)


def process_ascendcl(aclnn):
    """The libascendcl this process's runtime uses: the one already loaded (the bindings adopt a
    libascendcl the process holds, e.g. the simulator tests' build), else the package's."""
    try:
        return ctypes.CDLL("libascendcl.so", mode=os.RTLD_NOLOAD)
    except OSError:
        return ctypes.CDLL(os.path.join(aclnn.backend().lib_dir, "libascendcl.so"))


class Held:
    """`with Held(aclnn, stream):` the simulator starts no task of the stream until the block ends
    (aclsimHoldStream): queued work is observed queued, whatever the machine's speed."""

    def __init__(self, aclnn, stream):
        lib = process_ascendcl(aclnn)
        self.hold = lib.aclsimHoldStream
        self.hold.argtypes, self.hold.restype = [ctypes.c_void_p, ctypes.c_int], ctypes.c_int
        self.stream = stream

    def __enter__(self):
        assert self.hold(self.stream.handle, 1) == 0

    def __exit__(self, *exc):
        assert self.hold(self.stream.handle, 0) == 0


def busy(aclnn, stream, rounds=6):
    """Queues `rounds` large kernels on `stream` (keeping it busy for milliseconds); returns their output."""
    g = aclnn.to_device(np.ones(BIG, np.float32))
    with aclnn.stream(stream):
        out = None
        for _ in range(rounds):
            out = aclnn.leaky_relu_backward(g, g, 0.5, False)
    return out


# --- the chain the issue measures ----------------------------------------------------------------

def test_a_chain_of_device_calls_neither_allocates_nor_synchronises(aclnn, gy):
    g, y0 = gy
    dg, y = aclnn.to_device(g), aclnn.to_device(y0)
    for _ in range(100):  # warm-up: the caching allocator fills
        y = aclnn.leaky_relu_backward(dg, y, 0.1, False)
    aclnn.synchronize()
    expected = y.numpy()
    before = counters(aclnn)
    for _ in range(10_000):
        y = aclnn.leaky_relu_backward(dg, y, 0.1, False)
    during = counters(aclnn)
    assert delta(before, during, "malloc_calls", "stream_syncs", "device_syncs", "kernels_launched") == {
        "malloc_calls": 0, "stream_syncs": 0, "device_syncs": 0, "kernels_launched": 10_000}
    assert during["mem_mallocs"] == before["mem_mallocs"]
    assert during["mem_cache_hits"] - before["mem_cache_hits"] >= 10_000
    result = y.numpy()  # the one synchronisation
    assert counters(aclnn)["stream_syncs"] - during["stream_syncs"] == 1
    for _ in range(10_000):
        expected = leaky(g, expected)
    assert np.array_equal(result, expected)


def test_a_call_returning_numpy_arrays_synchronises_once(aclnn, gy):
    g, y = gy
    aclnn.leaky_relu_backward(g, y, 0.1, False)  # warm-up
    before = counters(aclnn)
    out = aclnn.leaky_relu_backward(g, y, 0.1, False)
    after = counters(aclnn)
    assert delta(before, after, "stream_syncs", "device_syncs", "malloc_calls") == {
        "stream_syncs": 1, "device_syncs": 0, "malloc_calls": 0}
    assert np.array_equal(out, leaky(g, y))


# --- streams and events --------------------------------------------------------------------------

def test_the_current_stream_is_the_default_until_a_stream_context(aclnn):
    default = aclnn.current_stream()
    assert default == aclnn.default_stream() and default.device == aclnn.get_device()
    s, t = aclnn.Stream(), aclnn.Stream()
    assert s != t and s.handle != default.handle
    with aclnn.stream(s) as entered:
        assert entered is s and aclnn.current_stream() == s
        with aclnn.stream(t):
            assert aclnn.current_stream() == t
        assert aclnn.current_stream() == s
        with aclnn.stream(None):
            assert aclnn.current_stream() == s
    assert aclnn.current_stream() == default
    with pytest.raises(ZeroDivisionError):
        with aclnn.stream(s):
            1 / 0
    assert aclnn.current_stream() == default


def test_the_current_stream_is_per_thread(aclnn):
    s = aclnn.Stream()
    seen = []
    with aclnn.stream(s):
        thread = threading.Thread(target=lambda: seen.append(aclnn.current_stream()))
        thread.start()
        thread.join()
    assert seen == [aclnn.default_stream()]


def test_a_call_queues_on_the_current_stream_and_returns_before_its_kernel_runs(aclnn):
    s = aclnn.Stream()
    with Held(aclnn, s):
        out = busy(aclnn, s)
        event = aclnn.Event().record(s)
        assert not event.query() and not s.query()  # queued, not run
    s.synchronize()
    assert event.query() and s.query()
    assert np.array_equal(out.numpy()[:64], np.ones(64, np.float32))


@pytest.mark.skipif(os.environ.get("ACLNN_SIM_THREADS") == "1" or (os.cpu_count() or 1) == 1,
                    reason="one kernel thread: no parallel part to lend a thread to")
def test_a_thread_waiting_for_a_stream_runs_part_of_its_kernel(aclnn):
    """aclsimLendThread: while a stream's worker runs large kernels, a thread that polls the stream
    takes tasks of their parallel part instead of sleeping, and the results are the kernels' own."""
    lend = process_ascendcl(aclnn).aclsimLendThread
    lend.argtypes, lend.restype = [], ctypes.c_int
    assert lend() == 0  # no kernel runs: nothing to join
    rng = np.random.default_rng(3)
    g, x = rng.standard_normal(BIG).astype(np.float32), rng.standard_normal(BIG).astype(np.float32)
    d_g, d_x = aclnn.to_device(g), aclnn.to_device(x)
    s = aclnn.Stream()
    lent = 0
    # On a loaded machine (CI's two cores) the worker and the pool may run a whole round before this
    # thread is scheduled to ask: rounds repeat until one lends, and every round's results are checked.
    for _ in range(20):
        with Held(aclnn, s), aclnn.stream(s):
            outs = [aclnn.leaky_relu_backward(d_g, d_x, 0.1, False) for _ in range(6)]
        while not s.query():
            lent += lend()
        assert lend() == 0
        for out in outs:
            assert np.array_equal(out.numpy(), leaky(g, x))
        if lent:
            break
    assert lent > 0


def test_an_event_orders_one_stream_after_another(aclnn):
    producer, consumer = aclnn.Stream(), aclnn.Stream()
    g = aclnn.to_device(np.full(BIG, 2, np.float32))
    x = aclnn.to_device(np.full(BIG, -1, np.float32))
    with Held(aclnn, producer):
        with aclnn.stream(producer):
            mid = aclnn.leaky_relu_backward(g, x, 0.5, False)  # 1.0 everywhere, once the producer runs
        ready = producer.record_event()
        consumer.wait_event(ready)
        with aclnn.stream(consumer):
            out = aclnn.leaky_relu_backward(g, mid, 0.5, False)  # mid > 0: g
        assert not ready.query() and not consumer.query()  # the consumer waits for the held producer
    consumer.synchronize()
    assert np.array_equal(out.numpy()[:1000], np.full(1000, 2, np.float32))
    producer.synchronize()


def test_an_event_recorded_without_a_stream_marks_the_current_one(aclnn):
    s = aclnn.Stream()
    with Held(aclnn, s):
        busy(aclnn, s, 1)
        with aclnn.stream(s):
            mark = aclnn.Event().record()  # the current stream: s, held
            other = aclnn.Event().record(aclnn.default_stream())
        assert not mark.query()
        other.synchronize()
        assert not mark.query()  # the default stream's point passed; s's has not
    mark.synchronize()
    assert mark.query()


def test_wait_stream_and_elapsed_time(aclnn):
    a, b = aclnn.Stream(), aclnn.Stream()
    start = aclnn.Event().record(a)
    busy(aclnn, a, 2)
    end = aclnn.Event().record(a)
    b.wait_stream(a)
    done = b.record_event()
    done.synchronize()
    assert end.query() and start.elapsed_time(end) > 0


def test_a_stream_from_a_handle_is_the_same_stream(aclnn):
    s = aclnn.Stream()
    wrapped = aclnn.Stream.from_handle(s.handle)
    assert wrapped == s and hash(wrapped) == hash(s)
    with pytest.raises(ValueError, match="null aclrtStream"):
        aclnn.Stream.from_handle(0)


# --- the caching allocator -----------------------------------------------------------------------

def test_freed_memory_goes_back_to_the_cache_and_is_reused(aclnn, gy):
    g, y = aclnn.to_device(gy[0]), aclnn.to_device(gy[1])
    out = aclnn.leaky_relu_backward(g, y, 0.1, False)
    aclnn.synchronize()
    before = aclnn.memory_stats()
    address = out.data_ptr()
    del out
    freed = aclnn.memory_stats()
    assert freed["allocated_bytes"] < before["allocated_bytes"]
    assert freed["reserved_bytes"] == before["reserved_bytes"]  # cached, not returned to the device
    again = aclnn.leaky_relu_backward(g, y, 0.1, False)
    after = aclnn.memory_stats()
    assert again.data_ptr() == address  # the same stream reuses the block at once
    assert after["mallocs"] == freed["mallocs"] and after["cache_hits"] == freed["cache_hits"] + 1


def test_empty_allocates_from_the_cache_without_a_copy_or_a_synchronisation(aclnn, gy):
    g, y = aclnn.to_device(gy[0]), aclnn.to_device(gy[1])
    aclnn.synchronize()
    before, copies = counters(aclnn), aclnn._C._stats()["host_to_device"]
    out = aclnn.empty((y.shape[0],), "FLOAT")
    assert (out.shape, out.dtype) == ((y.shape[0],), np.float32)
    assert aclnn.leaky_relu_backward(g, y, 0.1, False, out=out) is out
    assert delta(before, counters(aclnn), "stream_syncs", "device_syncs") == {"stream_syncs": 0, "device_syncs": 0}
    assert aclnn._C._stats()["host_to_device"] == copies
    assert np.array_equal(out.numpy(), leaky(*gy))
    assert aclnn.empty((2, 0, 3), np.float16).numpy().shape == (2, 0, 3)
    with pytest.raises(ValueError, match="negative dimension"):
        aclnn.empty((2, -1), np.float32)
    with pytest.raises(ValueError, match="too large"):
        aclnn.empty((1 << 40, 1 << 40), np.float32)
    with pytest.raises(TypeError):
        aclnn.empty((2,), "NOT_A_DTYPE")


def test_empty_cache_returns_unused_blocks_to_the_device(aclnn):
    t = aclnn.to_device(np.ones(1 << 16, np.float32))
    del t
    aclnn.empty_cache()
    stats = aclnn.memory_stats()
    assert stats["reserved_bytes"] == stats["allocated_bytes"]
    assert stats["frees"] > 0


def test_a_block_used_by_another_stream_waits_for_that_stream(aclnn):
    s1, s2 = aclnn.Stream(), aclnn.Stream()
    with aclnn.stream(s1):
        t = aclnn.to_device(np.ones(BIG, np.float32))  # allocated for s1
    with Held(aclnn, s2):
        with aclnn.stream(s2):
            aclnn.leaky_relu_backward(t, t, 0.5, False)  # s2 will read t
        address = t.data_ptr()
        del t
        with aclnn.stream(s1):
            other = aclnn.to_device(np.zeros(BIG, np.float32))
        assert other.data_ptr() != address  # s2 has not read the old block yet
    s2.synchronize()
    with aclnn.stream(s1):
        later = [aclnn.to_device(np.zeros(BIG, np.float32)) for _ in range(2)]
    assert address in [t.data_ptr() for t in later]  # reached by s2 now: reused


def test_a_block_cached_by_another_stream_is_taken_once_that_stream_has_passed_it(aclnn):
    s1, s2 = aclnn.Stream(), aclnn.Stream()
    aclnn.empty_cache()
    with Held(aclnn, s1):
        with aclnn.stream(s1):
            t = aclnn.empty((BIG,), np.float32)
            aclnn.leaky_relu_backward(t, t, 0.5, False, out=t)  # s1 writes the block, later
            address = t.data_ptr()
            del t  # cached in s1's pool; s1 has not run its kernel yet
        with aclnn.stream(s2):
            first = aclnn.empty((BIG,), np.float32)
        assert first.data_ptr() != address  # not s2's to take while s1 may still write it
    s1.synchronize()
    with aclnn.stream(s2):
        taken = [aclnn.empty((BIG,), np.float32) for _ in range(2)]  # the first asks; s1's event is reached now
    assert address in [t.data_ptr() for t in taken]
    assert aclnn.memory_stats()["cache_hits"] > 0


def test_a_call_that_needs_a_workspace_takes_it_from_the_cache(aclnn, gy):
    # A strided input makes the simulator gather it through a workspace, as CANN asks for one to convert.
    g = aclnn.to_device(np.repeat(gy[0], 2)[::2].copy())
    x = aclnn.to_device(np.stack([gy[1], gy[1]], axis=1))  # shape (1024, 2)
    strided = aclnn.Tensor.from_pointer(x.data_ptr(), (1024,), np.float32, (2,), owner=x)
    for _ in range(3):  # warm-up, in the loop's pattern: two outputs alive at a time, and a workspace
        out = aclnn.leaky_relu_backward(g, strided, 0.1, False)
    aclnn.synchronize()
    before = counters(aclnn)
    for _ in range(100):
        out = aclnn.leaky_relu_backward(g, strided, 0.1, False)
    after = counters(aclnn)
    assert delta(before, after, "malloc_calls", "mem_mallocs", "stream_syncs") == {
        "malloc_calls": 0, "mem_mallocs": 0, "stream_syncs": 0}
    assert after["mem_cache_hits"] - before["mem_cache_hits"] == 200  # an output and a workspace per call
    assert np.array_equal(out.numpy(), leaky(gy[0], gy[1]))


# --- foreign memory and streams --------------------------------------------------------------------

@pytest.fixture
def acl(aclnn):
    """The backend's libascendcl, called directly: memory and streams foreign to the bindings."""
    lib = process_ascendcl(aclnn)
    lib.aclrtMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_int]
    lib.aclrtFree.argtypes = [ctypes.c_void_p]
    lib.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    lib.aclrtCreateStream.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.aclrtDestroyStream.argtypes = [ctypes.c_void_p]
    lib.aclrtSynchronizeStream.argtypes = [ctypes.c_void_p]
    return lib


class Owner:
    """Stands for the framework tensor that owns the memory (torch_npu's)."""


def test_foreign_memory_on_a_foreign_stream_is_used_without_a_copy(aclnn, acl):
    n = 1000
    g_host = np.linspace(-1, 1, n, dtype=np.float32)
    ptrs = []
    for _ in range(2):
        p = ctypes.c_void_p()
        assert acl.aclrtMalloc(ctypes.byref(p), n * 4, 0) == 0
        ptrs.append(p.value)
    assert acl.aclrtMemcpy(ptrs[0], n * 4, g_host.ctypes.data, n * 4, 1) == 0  # host to device
    handle = ctypes.c_void_p()
    assert acl.aclrtCreateStream(ctypes.byref(handle)) == 0

    owner = Owner()
    watch = weakref.ref(owner)
    x = aclnn.Tensor.from_pointer(ptrs[0], (n,), np.float32, owner=owner)
    out = aclnn.Tensor.from_pointer(ptrs[1], (n,), "FLOAT")
    assert x.data_ptr() == ptrs[0] and out.data_ptr() == ptrs[1] and x.shape == (n,)
    foreign = aclnn.Stream.from_handle(handle.value)
    before, copies = aclnn.sim_stats(), aclnn._C._stats()
    with Held(aclnn, foreign):
        with aclnn.stream(foreign):
            result = aclnn.leaky_relu_backward(x, x, 0.5, False, out=out)
        assert result is out
        # Queued on the foreign stream (held: not run), not on ours (whose synchronisation passes it).
        aclnn.default_stream().synchronize()
        assert not foreign.query()
        after = aclnn.sim_stats()
        assert (after["malloc_calls"], after["kernels_launched"]) == (before["malloc_calls"], before["kernels_launched"] + 1)
        assert {k: aclnn._C._stats()[k] - copies[k] for k in ("host_to_device", "device_to_host", "device_to_device")} == {
            "host_to_device": 0, "device_to_host": 0, "device_to_device": 0}  # zero-copy
        del owner, x, result
        gc.collect()
        # The Tensor is gone, but the held stream has not read the memory yet: its owner (the
        # framework's tensor) stays alive, or the framework could reuse the memory under the kernel.
        assert watch() is not None
    # The owner's stream and memory, as the owner would read them: its stream, then its copy.
    foreign.synchronize()
    assert watch() is None  # the stream has passed: released at that synchronisation
    got = np.empty(n, np.float32)
    assert acl.aclrtMemcpy(got.ctypes.data, n * 4, ptrs[1], n * 4, 2) == 0  # device to host
    assert np.array_equal(got, leaky(g_host, g_host, np.float32(0.5)))
    del out, foreign
    gc.collect()
    for p in ptrs:
        assert acl.aclrtFree(p) == 0
    assert acl.aclrtDestroyStream(handle.value) == 0


def test_an_owner_never_used_by_a_call_goes_with_its_tensor(aclnn, acl):
    p = ctypes.c_void_p()
    assert acl.aclrtMalloc(ctypes.byref(p), 64, 0) == 0
    owner = Owner()
    watch = weakref.ref(owner)
    t = aclnn.Tensor.from_pointer(p.value, (16,), np.float32, owner=owner)
    del owner, t
    assert watch() is None
    assert acl.aclrtFree(p.value) == 0


def test_from_pointer_views_with_strides_and_offset(aclnn, acl):
    data = np.arange(24, dtype=np.float32)
    p = ctypes.c_void_p()
    assert acl.aclrtMalloc(ctypes.byref(p), data.nbytes, 0) == 0
    assert acl.aclrtMemcpy(p.value, data.nbytes, data.ctypes.data, data.nbytes, 1) == 0
    # A transposed 4x3 view of elements 2.. (torch's t.as_strided((4, 3), (1, 4), 2)).
    t = aclnn.Tensor.from_pointer(p.value, (4, 3), np.float32, (1, 4), offset=2)
    assert np.array_equal(t.numpy(), np.lib.stride_tricks.as_strided(data[2:], (4, 3), (4, 16)))
    reversed_view = aclnn.Tensor.from_pointer(p.value + 23 * 4, (24,), np.float32, (-1,))
    assert np.array_equal(reversed_view.numpy(), data[::-1])
    del t, reversed_view
    gc.collect()
    assert acl.aclrtFree(p.value) == 0


@pytest.mark.parametrize("args, error, match", [
    ((0, (4,), np.float32), ValueError, "null pointer"),
    ((64, (-1,), np.float32), ValueError, "negative dimension"),
    ((64, (2, 2), np.float32, (1,)), ValueError, "1 strides for 2 dimensions"),
    ((64, (4,), object), TypeError, "dtype"),
    ((64, (4.0,), np.float32), TypeError, "integers"),
])
def test_from_pointer_refuses_what_it_cannot_view(aclnn, args, error, match):
    with pytest.raises(error, match=match):
        aclnn.Tensor.from_pointer(*args)


def test_a_view_outside_its_memory_faults_on_the_device_at_the_next_synchronisation(aclnn, acl):
    p = ctypes.c_void_p()
    assert acl.aclrtMalloc(ctypes.byref(p), 64, 0) == 0
    x = aclnn.Tensor.from_pointer(p.value, (1000,), np.float32)  # 4000 bytes over a 64-byte allocation
    aclnn.leaky_relu_backward(x, x, 0.5, False)  # queued: no error yet
    start = aclnn.call_count()
    with pytest.raises(aclnn.AclnnRuntimeError) as caught:
        aclnn.synchronize()
    e = caught.value
    assert e.api == "aclnnLeakyReluBackward" and e.call == start and e.phase == "device"
    assert "live device allocation" in e.message and "aclnn.synchronize()" in str(e)
    aclnn.synchronize()  # reported once
    del x
    gc.collect()
    assert acl.aclrtFree(p.value) == 0


# --- settings read at start: fresh processes -------------------------------------------------------

def run_python(code: str, **env: str) -> str:
    package = bindings_build.build_package()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    clean.update(PYTHONPATH=str(package), ACLNN_BACKEND="sim", **env)
    done = subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


CHAIN_WITH_A_FAULT = """
import aclnn, numpy as np
g = aclnn.to_device(np.ones(8, np.float32))
calls = []
try:
    for i in range(5):
        aclnn.hardsigmoid_backward(g, g)
        aclnn.leaky_relu_backward(g, g, 0.5, False)
        calls.append(aclnn.call_count())
    aclnn.synchronize()
    print("no error")
except aclnn.AclnnRuntimeError as e:
    print(e.api, e.call, calls[2] if len(calls) > 2 else None, len(calls), e.phase, "|", e)
aclnn.synchronize()
print("after", aclnn.leaky_relu_backward(np.ones(2, np.float32), np.ones(2, np.float32), 0.5, False))
"""


def test_an_injected_fault_is_raised_at_the_next_synchronisation_naming_its_call():
    out = run_python(CHAIN_WITH_A_FAULT, ACLNN_SIM_FAULT="aclnnLeakyReluBackward:3").splitlines()
    api, call, third, made, phase, _, *message = out[0].split()
    assert (api, phase, made) == ("aclnnLeakyReluBackward", "device", "5")  # every call returned
    assert call == third  # the third leaky_relu_backward, not the last call before the sync
    assert "injected fault" in out[0] and "launch 3" in out[0]
    assert out[1] == "after [1. 1.]"


def test_faults_of_several_apis_are_each_raised_by_the_synchronisation_after_them():
    code = """
import aclnn, numpy as np
g = aclnn.to_device(np.ones(8, np.float32))
for api, fn in (("hardsigmoid", lambda: aclnn.hardsigmoid_backward(g, g)),
                ("leaky", lambda: aclnn.leaky_relu_backward(g, g, 0.5, False))):
    numbers = []
    for _ in range(3):
        fn()
        numbers.append(aclnn.call_count())
    try:
        aclnn.synchronize()
        print(api, "no error")
    except aclnn.AclnnRuntimeError as e:
        print(api, e.api, numbers.index(e.call) + 1)
"""
    out = run_python(code, ACLNN_SIM_FAULT="aclnnHardsigmoidBackward,aclnnLeakyReluBackward:2").splitlines()
    assert out == ["hardsigmoid aclnnHardsigmoidBackward 1", "leaky aclnnLeakyReluBackward 2"]


def test_launch_blocking_raises_at_the_call_that_faulted():
    out = run_python(CHAIN_WITH_A_FAULT, ACLNN_SIM_FAULT="aclnnLeakyReluBackward:3",
                     ACLNN_LAUNCH_BLOCKING="1").splitlines()
    api, call, third, made, phase, *_ = out[0].split()
    assert (api, phase, third, made) == ("aclnnLeakyReluBackward", "device", "None", "2")
    # Raised by the third leaky_relu_backward itself: the call after the second pair's last number.
    assert int(call) == int(made) * 2 + 2
    assert out[1] == "after [1. 1.]"


def test_synchronous_mode_still_reports_at_the_synchronisation():
    out = run_python(CHAIN_WITH_A_FAULT, ACLNN_SIM_FAULT="aclnnLeakyReluBackward:3", ACLNN_SIM_SYNC="1").splitlines()
    api, call, third, made, *_ = out[0].split()
    assert (api, made) == ("aclnnLeakyReluBackward", "5") and call == third


@pytest.mark.parametrize("value", ["2", "yes", "true"])
def test_a_bad_launch_blocking_value_is_refused_naming_the_variable(value):
    out = run_python("import aclnn\ntry:\n    aclnn.backend()\n    print('accepted')\n"
                     "except ValueError as e:\n    print(e)", ACLNN_LAUNCH_BLOCKING=value)
    assert out == f"ACLNN_LAUNCH_BLOCKING={value} is not 0 or 1"


# --- threads ---------------------------------------------------------------------------------------

def test_eight_threads_each_on_its_own_stream(aclnn):
    rng = np.random.default_rng(3)
    inputs = [(rng.standard_normal(4096).astype(np.float32), rng.standard_normal(4096).astype(np.float32))
              for _ in range(8)]
    results, failures = [None] * 8, []
    barrier = threading.Barrier(8)

    def work(i):
        try:
            s = aclnn.Stream()
            g, y = aclnn.to_device(inputs[i][0]), aclnn.to_device(inputs[i][1])
            barrier.wait()
            with aclnn.stream(s):
                for _ in range(200):
                    y = aclnn.leaky_relu_backward(g, y, 0.1, False)
                results[i] = y.numpy()
        except Exception as e:  # noqa: BLE001 - reported with the thread
            failures.append(f"thread {i}: {type(e).__name__}: {e}")

    run_in_threads(work, 8)
    assert failures == []
    for i, (g, y) in enumerate(inputs):
        expected = y
        for _ in range(200):
            expected = leaky(g, expected)
        assert np.array_equal(results[i], expected), i
