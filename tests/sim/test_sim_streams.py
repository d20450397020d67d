"""The simulator models an asynchronous device: a stream is an ordered queue run by its own worker,
phase 2 and the async copies enqueue and return, events order streams against each other,
aclrtFree waits for the queued work that uses its memory, and a kernel's fault is reported by the
stream's next synchronisation, naming the API whose kernel failed.

Asynchrony is observed through events, not clocks: a stream held by aclsimHoldStream runs nothing
until released, so that work queued on it is seen queued and not run, on a slow machine or a fast one."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from gen import abi
from tests.sim.sim_lib import (ACL_ERROR_RT_AICORE_EXCEPTION, D2H, H2D, ROOT, DeviceArray, P, session_build, session_sim,
                           subprocess_env)

BIG = 1 << 22  # elements: a few milliseconds of kernel per launch


@pytest.fixture(scope="module")
def sim():
    return session_sim()


def golden(grad, x, slope=0.5):
    return np.where(x > 0, grad, grad * np.float32(slope)).astype(np.float32)


class Leaky:
    """aclnnLeakyReluBackward(grad, x, 0.5, False, out) on device arrays it owns; `launch` only queues."""

    def __init__(self, sim, n, *, grad=None, x=None):
        self.sim = sim
        self.grad = grad or DeviceArray(sim, np.arange(n, dtype=np.float32) % 7)
        self.x = x or DeviceArray(sim, (np.arange(n, dtype=np.float32) % 11) - 5)
        self.out = DeviceArray(sim, np.zeros(n, np.float32))
        self.slope = sim.scalar(0.5, np.float32)

    def launch(self, stream, *, out=None):
        out = out or self.out
        status, size, executor = self.sim.phase1("aclnnLeakyReluBackward", self.grad.handle, self.x.handle,
                                                 self.slope, False, out.handle)
        assert status == 0 and size == 0, self.sim.error()
        return self.sim.launch("aclnnLeakyReluBackward", None, 0, executor, stream)

    def close(self, *shared):
        for a in (self.grad, self.x, self.out):
            if a not in shared:
                a.close()
        assert self.sim.aclDestroyScalar(self.slope) == 0


class Held:
    """`with Held(sim, stream):` the stream's worker starts no task until the block ends."""

    def __init__(self, sim, stream):
        self.sim, self.stream = sim, stream

    def __enter__(self):
        assert self.sim.aclsimHoldStream(self.stream, 1) == 0

    def __exit__(self, *exc):
        assert self.sim.aclsimHoldStream(self.stream, 0) == 0


def keep_busy(sim, stream, launches=6):
    """Queues `launches` large kernels on `stream`; returns what to close after synchronising."""
    op = Leaky(sim, BIG)
    for _ in range(launches):
        assert op.launch(stream) == 0, sim.error()
    return op


def test_a_launch_returns_before_its_kernel_has_run(sim):
    stream, event = sim.new_stream(), sim.new_event()
    before = sim.stats()
    with Held(sim, stream):
        op = keep_busy(sim, stream)
        assert sim.aclrtRecordEvent(event, stream) == 0
        assert not sim.event_done(event)  # queued, not run
        assert not op.out.read_storage().any()
    assert sim.aclrtSynchronizeStream(stream) == 0, sim.error()
    assert sim.event_done(event)
    after = sim.stats()
    assert after["kernels_launched"] - before["kernels_launched"] == 6
    assert after["events_recorded"] - before["events_recorded"] == 1
    assert after["stream_syncs"] - before["stream_syncs"] == 1
    assert np.array_equal(op.out.numpy(), golden(op.grad.storage, op.x.storage))
    op.close()
    assert sim.aclrtDestroyEvent(event) == 0 and sim.aclrtDestroyStream(stream) == 0


def test_copies_kernels_and_copies_back_run_in_queue_order(sim):
    # upload -> kernel -> kernel on its own output -> download, all queued before one synchronisation
    stream, n = sim.new_stream(), 4096
    op = Leaky(sim, n)
    host_x = (np.random.default_rng(1).standard_normal(n)).astype(np.float32)
    result = np.zeros(n, np.float32)
    busy = keep_busy(sim, stream, 2)  # the uploads are queued behind real work, not done at once
    assert sim.aclrtMemcpyAsync(op.x.ptr, op.x.nbytes, host_x.ctypes.data, host_x.nbytes, H2D, stream) == 0
    assert op.launch(stream) == 0
    second = Leaky(sim, n, grad=op.grad, x=op.out)  # x := the first kernel's output
    assert second.launch(stream) == 0
    assert sim.aclrtMemcpyAsync(result.ctypes.data, result.nbytes, second.out.ptr, second.out.nbytes, D2H,
                                stream) == 0
    assert sim.aclrtSynchronizeStream(stream) == 0, sim.error()
    grad = op.grad.storage
    assert np.array_equal(result, golden(grad, golden(grad, host_x)))
    second.close(op.grad, op.out)
    op.close()
    busy.close()
    assert sim.aclrtDestroyStream(stream) == 0


def test_memset_async_is_queued_too(sim):
    stream = sim.new_stream()
    busy = keep_busy(sim, stream, 2)
    buffer = DeviceArray(sim, np.ones(64, np.float32))
    assert sim.aclrtMemsetAsync(buffer.ptr, buffer.nbytes, 0, buffer.nbytes, stream) == 0
    assert sim.aclrtSynchronizeStream(stream) == 0
    assert not buffer.read_storage().any()
    buffer.close()
    busy.close()
    assert sim.aclrtDestroyStream(stream) == 0


def test_a_stream_waits_for_an_event_recorded_on_another(sim):
    a, b, event = sim.new_stream(), sim.new_stream(), sim.new_event()
    n = 1 << 16
    first = Leaky(sim, n)
    second = Leaky(sim, n, grad=first.grad, x=first.out)
    with Held(sim, a):
        assert first.launch(a) == 0  # writes first.out, once a runs
        assert sim.aclrtRecordEvent(event, a) == 0
        assert sim.aclrtStreamWaitEvent(b, event) == 0
        assert second.launch(b) == 0  # reads first.out: only after the event
        assert not sim.event_done(event)
        assert not second.out.read_storage().any()  # b waits although it is not held
    assert sim.aclrtSynchronizeStream(b) == 0, sim.error()
    grad = first.grad.storage
    assert np.array_equal(second.out.numpy(), golden(grad, golden(grad, first.x.storage)))
    assert sim.aclrtSynchronizeStream(a) == 0
    second.close(first.grad, first.out)
    first.close()
    for s in (a, b):
        assert sim.aclrtDestroyStream(s) == 0
    assert sim.aclrtDestroyEvent(event) == 0


def test_two_streams_run_concurrently(sim):
    a, b, event = sim.new_stream(), sim.new_stream(), sim.new_event()
    small = Leaky(sim, 64)
    with Held(sim, a):
        assert sim.aclrtRecordEvent(event, a) == 0
        assert small.launch(b) == 0
        assert sim.aclrtSynchronizeStream(b) == 0  # b's work finished while a has not run
        assert not sim.event_done(event)
    assert np.array_equal(small.out.numpy(), golden(small.grad.storage, small.x.storage))
    assert sim.aclrtSynchronizeStream(a) == 0 and sim.event_done(event)
    small.close()
    for s in (a, b):
        assert sim.aclrtDestroyStream(s) == 0
    assert sim.aclrtDestroyEvent(event) == 0


def test_free_waits_for_the_queued_work_that_uses_the_memory(sim):
    stream = sim.new_stream()
    op = Leaky(sim, 1 << 16)
    freed = threading.Event()

    def free_grad():
        sim.free(op.grad.ptr)  # ctypes lets the GIL go: the test goes on while this waits
        freed.set()

    with Held(sim, stream):
        assert op.launch(stream) == 0  # reads grad, once the stream runs
        before = sim.stats()["stream_syncs"]
        freeing = threading.Thread(target=free_grad)
        freeing.start()
        assert not freed.wait(0.2)  # the kernel that reads grad has not run: the free waits for it
    freeing.join()
    op.grad.ptr = None
    assert sim.stats()["stream_syncs"] == before + 1  # counted as a synchronisation
    expected = golden(op.grad.storage, op.x.storage)
    assert np.array_equal(op.out.read_storage(), expected)  # read without synchronising the stream
    assert sim.aclrtSynchronizeStream(stream) == 0
    op.close()
    assert sim.aclrtDestroyStream(stream) == 0


def test_free_of_memory_no_queued_work_uses_does_not_wait(sim):
    stream, event = sim.new_stream(), sim.new_event()
    unrelated = sim.malloc(1024)
    with Held(sim, stream):
        busy = keep_busy(sim, stream, 2)
        assert sim.aclrtRecordEvent(event, stream) == 0
        before = sim.stats()["stream_syncs"]
        sim.free(unrelated)  # would wait for ever on the held stream if it waited
        assert not sim.event_done(event)
        assert sim.stats()["stream_syncs"] == before
    assert sim.aclrtSynchronizeStream(stream) == 0
    busy.close()
    assert sim.aclrtDestroyStream(stream) == 0 and sim.aclrtDestroyEvent(event) == 0


def test_destroying_a_stream_lets_its_queued_work_finish(sim):
    stream, event = sim.new_stream(), sim.new_event()
    busy = keep_busy(sim, stream)
    assert sim.aclrtRecordEvent(event, stream) == 0
    assert sim.aclrtDestroyStream(stream) == 0
    assert sim.event_done(event)
    assert np.array_equal(busy.out.numpy()[:100], golden(busy.grad.storage[:100], busy.x.storage[:100]))
    busy.close()
    assert sim.aclrtDestroyEvent(event) == 0


def test_events_that_were_never_recorded_are_complete_and_bad_handles_are_errors(sim):
    event = sim.new_event()
    assert sim.event_done(event)
    assert sim.aclrtSynchronizeEvent(event) == 0
    assert sim.aclrtStreamWaitEvent(None, event) == 0  # nothing to wait for
    elapsed = ctypes.c_float()
    assert sim.aclrtEventElapsedTime(ctypes.byref(elapsed), event, event) != 0
    assert "was not recorded" in sim.error()
    assert sim.aclrtDestroyEvent(event) == 0
    assert sim.aclrtDestroyEvent(event) != 0 and "not a live event" in sim.error()
    assert sim.aclrtRecordEvent(event, None) != 0
    assert sim.aclrtRecordEvent(None, None) != 0


def test_elapsed_time_between_two_events(sim):
    stream, start, end = sim.new_stream(), sim.new_event(), sim.new_event()
    assert sim.aclrtRecordEvent(start, stream) == 0
    busy = keep_busy(sim, stream, 2)
    assert sim.aclrtRecordEvent(end, stream) == 0
    assert sim.aclrtSynchronizeEvent(end) == 0
    elapsed = ctypes.c_float()
    assert sim.aclrtEventElapsedTime(ctypes.byref(elapsed), start, end) == 0, sim.error()
    assert elapsed.value > 0
    busy.close()
    for e in (start, end):
        assert sim.aclrtDestroyEvent(e) == 0
    assert sim.aclrtDestroyStream(stream) == 0


def test_a_faulting_kernel_is_reported_by_the_next_synchronisation_naming_its_api(sim):
    stream = sim.new_stream()
    bad = Leaky(sim, 64)
    good = Leaky(sim, 64)
    sim.free(bad.grad.ptr)  # freed before the launch: the kernel finds no live allocation
    bad.grad.ptr = None
    assert bad.launch(stream) == 0  # the launch itself succeeds
    assert good.launch(stream) == 0  # queued behind the fault: discarded
    assert sim.aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION
    message = sim.error()
    assert "a kernel of aclnnLeakyReluBackward" in message and "gradOutput" in message
    # The next copy reports the fault again (what torch_npu's copy raises), once.
    host = np.zeros(64, np.float32)
    assert sim.aclrtMemcpy(host.ctypes.data, host.nbytes, good.out.ptr, host.nbytes, D2H) == ACL_ERROR_RT_AICORE_EXCEPTION
    assert not good.out.read_storage().any()  # the work behind the fault did not run
    fault = (ctypes.c_char * 160)()
    assert sim.aclsimLastFault(stream, fault) == 0
    assert bytes(fault[:128]).rstrip(b"\0") == b"aclnnLeakyReluBackward"
    # Reported once: the stream runs again.
    assert sim.aclrtSynchronizeStream(stream) == 0
    assert good.launch(stream) == 0 and sim.aclrtSynchronizeStream(stream) == 0
    assert np.array_equal(good.out.numpy(), golden(good.grad.storage, good.x.storage))
    bad.close()
    good.close()
    assert sim.aclrtDestroyStream(stream) == 0


@pytest.mark.parametrize("between", [None, "aclrtSynchronizeStream", "aclrtSynchronizeDevice", "a copy to the device"])
def test_the_next_copy_after_a_failed_stream_synchronisation_fails_with_its_fault(sim, between):
    # torch_npu's copy to the host synchronises the stream, then copies, and puts the recent error
    # message in its exception only when the copy fails: the thread's next copy, if it reads the device,
    # fails too with the fault's message; another synchronisation or copy first forgets it.
    stream = sim.new_stream()
    bad = Leaky(sim, 64)
    sim.free(bad.grad.ptr)
    bad.grad.ptr = None
    assert bad.launch(stream) == 0
    assert sim.aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION
    said = sim.error()
    if between == "aclrtSynchronizeStream":
        assert sim.aclrtSynchronizeStream(stream) == 0
    elif between == "aclrtSynchronizeDevice":
        assert sim.aclrtSynchronizeDevice() == 0
    elif between == "a copy to the device":
        zeros = np.zeros(64, np.float32)
        assert sim.aclrtMemcpy(bad.out.ptr, zeros.nbytes, zeros.ctypes.data, zeros.nbytes, H2D) == 0, sim.error()
    host = np.full(64, 7.0, np.float32)
    status = sim.aclrtMemcpy(host.ctypes.data, host.nbytes, bad.out.ptr, host.nbytes, D2H)
    if between is None:
        assert status == ACL_ERROR_RT_AICORE_EXCEPTION
        assert sim.error().startswith("aclrtMemcpy: nothing copied") and said in sim.error(), sim.error()
        assert (host == 7.0).all()
        # Owed once: the next copy copies.
        assert sim.aclrtMemcpy(host.ctypes.data, host.nbytes, bad.out.ptr, host.nbytes, D2H) == 0, sim.error()
    else:
        assert status == 0, sim.error()
    assert (host == 0.0).all()
    bad.close()
    assert sim.aclrtDestroyStream(stream) == 0


def test_device_synchronisation_waits_for_every_stream_and_reports_a_fault(sim):
    a, b = sim.new_stream(), sim.new_stream()
    busy = keep_busy(sim, a, 2)
    bad = Leaky(sim, 16)
    sim.free(bad.grad.ptr)
    bad.grad.ptr = None
    assert bad.launch(b) == 0
    before = sim.stats()["device_syncs"]
    assert sim.aclrtSynchronizeDevice() == ACL_ERROR_RT_AICORE_EXCEPTION
    assert "aclnnLeakyReluBackward" in sim.error()
    assert sim.stats()["device_syncs"] == before + 1
    assert np.array_equal(busy.out.numpy()[:50], golden(busy.grad.storage[:50], busy.x.storage[:50]))
    assert sim.aclrtSynchronizeDevice() == 0
    bad.close()
    busy.close()
    for s in (a, b):
        assert sim.aclrtDestroyStream(s) == 0


def test_malloc_and_free_calls_are_counted(sim):
    before = sim.stats()
    sim.free(sim.malloc(64))
    after = sim.stats()
    assert after["malloc_calls"] == before["malloc_calls"] + 1
    assert after["free_calls"] == before["free_calls"] + 1


# --- settings read at aclInit, in fresh processes ---------------------------------------------

SCRIPT = """
import ctypes, sys
import numpy as np
from pathlib import Path
from tests.sim.sim_lib import Sim, DeviceArray
from tests.sim.test_sim_streams import Leaky, stalled_on_a_reset_event
sim = Sim(Path(sys.argv[1]))
status = sim.aclInit(None)
if status != 0:
    print("INIT", status, sim.error())
    raise SystemExit(0)
assert sim.aclrtSetDevice(0) == 0
stream = sim.new_stream()
{body}
"""


def run_script(body: str, **env: str) -> str:
    libdir = session_build()
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(body=textwrap.dedent(body)), str(libdir)], cwd=ROOT,
                          env=subprocess_env(**env), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_an_injected_fault_fails_the_nth_launch_of_its_api():
    out = run_script("""
        op = Leaky(sim, 32)
        for i in range(4):
            assert op.launch(stream) == 0
            print(i + 1, sim.aclrtSynchronizeStream(stream), sim.error())
    """, ACLNN_SIM_FAULT="aclnnLeakyReluBackward:3")
    lines = out.splitlines()
    assert [line.split()[1] for line in lines] == ["0", "0", "507015", "0"]
    assert "launch 3 of aclnnLeakyReluBackward" in lines[2] and "ACLNN_SIM_FAULT" in lines[2]


def test_synchronous_mode_runs_the_kernel_in_the_launching_call():
    out = run_script("""
        op = Leaky(sim, 32)
        assert op.launch(stream) == 0
        print(op.out.read_storage().tolist() == np.where(op.x.storage > 0, op.grad.storage, op.grad.storage * 0.5).tolist())
    """, ACLNN_SIM_SYNC="1")
    assert out.strip() == "True"


@pytest.mark.parametrize("name, value", [("ACLNN_SIM_SYNC", "2"), ("ACLNN_SIM_SYNC", "yes"),
                                         ("ACLNN_SIM_FAULT", "bogus"), ("ACLNN_SIM_FAULT", "aclnnAbs:0"),
                                         ("ACLNN_SIM_FAULT", "aclnnAbs:x")])
def test_bad_settings_make_init_fail_naming_the_variable(name, value):
    out = run_script("print('ran')", **{name: value})
    assert out.startswith("INIT 100000") and f"{name}={value}" in out


def test_the_error_in_detail_names_a_failed_kernel_an_ai_core_software_error():
    # aclrtGetErrorVerbose (torch_npu asks it after a failure, to decide whether to repair): the
    # simulated device has no hardware faults; a kernel that failed is ACL_RT_ERROR_AICORE (3) with
    # the software detail (1) and nothing to repair, and with no failure there is no error (0).
    out = run_script("""
        import ctypes
        class Info(ctypes.Structure):
            _fields_ = [("tryRepair", ctypes.c_uint8), ("hasDetail", ctypes.c_uint8), ("reserved", ctypes.c_uint8 * 2),
                        ("errorType", ctypes.c_int), ("aicore", ctypes.c_int), ("rest", ctypes.c_uint8 * 4096)]
        get_error_verbose = sim._find("aclrtGetErrorVerbose")
        get_error_verbose.restype, get_error_verbose.argtypes = ctypes.c_int, [ctypes.c_int32, ctypes.c_void_p]
        def verbose():
            info = Info()
            status = get_error_verbose(0, ctypes.byref(info))
            return status, info.errorType, info.hasDetail, info.aicore, info.tryRepair
        print("before", *verbose())
        op = Leaky(sim, 32)
        assert op.launch(stream) == 0
        print("sync", sim.aclrtSynchronizeStream(stream))
        print("after", *verbose())
        print("null", get_error_verbose(0, None))
    """, ACLNN_SIM_FAULT="aclnnLeakyReluBackward:1")
    assert "before 0 0 0 0 0" in out, out
    assert "sync 507015" in out and "after 0 3 1 1 0" in out, out
    assert "null 100000" in out, out


# --- aclrtResetEvent: a reset in stream order (acl_rt.h) ----------------------------------------

ERRORS = abi.acl_errors()
INVALID, NOT_COMPLETE, NOT_SUPPORTED, EVENT_CAPTURED = (ERRORS[n] for n in (
    "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_RT_EVENT_NOT_COMPLETE", "ACL_ERROR_FEATURE_UNSUPPORTED",
    "ACL_ERROR_RT_EVENT_CAPTURED"))
ACL_EVENT_EXTERNAL, ACL_EVENT_IPC = 0x20, 0x40  # acl_rt.h's macros


def test_a_reset_clears_the_event_when_its_stream_reaches_it(sim):
    stream, event = sim.new_stream(), sim.new_event()
    elapsed = ctypes.c_float()
    assert sim.aclrtRecordEvent(event, stream) == 0
    assert sim.aclrtSynchronizeStream(stream) == 0 and sim.event_done(event)
    with Held(sim, stream):
        assert sim.aclrtResetEvent(event, stream) == 0, sim.error()
        assert sim.event_done(event)  # queued, not reached: the record still stands
    assert sim.aclrtSynchronizeStream(stream) == 0
    assert not sim.event_done(event)  # NOT_READY until the next record is reached
    assert sim.aclrtEventElapsedTime(ctypes.byref(elapsed), event, event) == NOT_COMPLETE
    assert "startEvent was reset" in sim.error()
    assert sim.aclrtSynchronizeEvent(event) == 0  # no record queued: nothing to wait for
    assert sim.aclrtRecordEvent(event, stream) == 0
    assert sim.aclrtSynchronizeEvent(event) == 0 and sim.event_done(event)
    assert sim.aclrtEventElapsedTime(ctypes.byref(elapsed), event, event) == 0, sim.error()
    assert elapsed.value == 0
    assert sim.aclrtDestroyEvent(event) == 0
    assert sim.aclrtDestroyStream(stream) == 0


def test_a_wait_queued_after_a_reset_waits_for_the_next_record(sim):
    # The consumer's wait and kernel are queued before the producer's kernel and record exist: the
    # consumer reads what the producer writes only because the wait holds it until that record.
    producer, consumer, event = sim.new_stream(), sim.new_stream(), sim.new_event()
    n = 1 << 12
    first = Leaky(sim, n)
    second = Leaky(sim, n, grad=first.grad, x=first.out)
    assert sim.aclrtRecordEvent(event, producer) == 0
    assert sim.aclrtResetEvent(event, producer) == 0
    assert sim.aclrtStreamWaitEvent(consumer, event) == 0, sim.error()
    assert second.launch(consumer) == 0
    mark = sim.new_event()
    assert sim.aclrtRecordEvent(mark, consumer) == 0
    assert sim.aclrtSynchronizeStream(producer) == 0
    assert not sim.event_done(mark) and not second.out.read_storage().any()
    assert first.launch(producer) == 0
    assert sim.aclrtRecordEvent(event, producer) == 0
    assert sim.aclrtSynchronizeStream(consumer) == 0, sim.error()
    grad = first.grad.storage
    assert np.array_equal(second.out.numpy(), golden(grad, golden(grad, first.x.storage)))
    second.close(first.grad, first.out)
    first.close()
    for e in (event, mark):
        assert sim.aclrtDestroyEvent(e) == 0
    for s in (producer, consumer):
        assert sim.aclrtDestroyStream(s) == 0


def test_a_wait_for_a_record_never_made_ends_with_its_stream_or_event(sim):
    producer, waiting, event = sim.new_stream(), sim.new_stream(), sim.new_event()
    assert sim.aclrtResetEvent(event, producer) == 0
    assert sim.aclrtStreamWaitEvent(waiting, event) == 0
    # aclrtDestroyStream waits for the queued work, as CANN asks callers to; the forced destruction
    # drops it, the wait too.
    destroy_force = sim.libs[0].aclrtDestroyStreamForce
    destroy_force.restype, destroy_force.argtypes = ctypes.c_int, [P]
    destroy = threading.Thread(target=lambda: destroy_force(waiting))
    destroy.start()
    destroy.join(timeout=30)
    assert not destroy.is_alive(), "destroying a stream that waits for a record never made hung"
    # Destroying the event instead: no record can come, and the work behind the wait must not run as
    # if it had: the stream's synchronisation reports it.
    waiting = sim.new_stream()
    assert sim.aclrtStreamWaitEvent(waiting, event) == 0
    op = Leaky(sim, 64)
    assert op.launch(waiting) == 0
    assert sim.aclrtDestroyEvent(event) == 0
    assert sim.aclrtSynchronizeStream(waiting) == NOT_COMPLETE
    assert sim.error().startswith("aclrtSynchronizeStream: a wait queued on this stream cannot end")
    assert "reset (aclrtResetEvent) and destroyed" in sim.error()
    assert sim.aclrtSynchronizeStream(waiting) == 0  # reported once (the next copy is owed it otherwise)
    assert not op.out.read_storage().any()
    op.close()
    for s in (producer, waiting):
        assert sim.aclrtDestroyStream(s) == 0


def test_resets_the_simulator_does_not_model_are_refused_by_name(sim):
    stream = sim.new_stream()
    for flag in (ACL_EVENT_EXTERNAL, ACL_EVENT_IPC):
        event = P()
        assert sim.aclrtCreateEventWithFlag(ctypes.byref(event), flag) == 0, sim.error()
        assert sim.aclrtResetEvent(event, stream) == NOT_SUPPORTED
        assert "aclrtResetEvent" in sim.error() and "ACL_EVENT_EXTERNAL or ACL_EVENT_IPC" in sim.error()
        assert sim.aclrtDestroyEvent(event) == 0
    assert sim.aclrtResetEvent(None, stream) == INVALID and "not a live event" in sim.error()
    acl = sim.libs[0]
    begin, end, destroy = acl.aclmdlRICaptureBegin, acl.aclmdlRICaptureEnd, acl.aclmdlRIDestroy
    begin.argtypes, end.argtypes, destroy.argtypes = [P, ctypes.c_int], [P, ctypes.POINTER(P)], [P]
    event, model = sim.new_event(), P()
    assert begin(stream, 0) == 0, sim.error()
    assert sim.aclrtResetEvent(event, stream) == NOT_SUPPORTED and "being captured" in sim.error()
    assert sim.aclrtRecordEvent(event, stream) == 0  # captured: runs when the model is executed
    assert end(stream, ctypes.byref(model)) == 0, sim.error()  # the refusal left the capture valid
    assert sim.aclrtResetEvent(event, stream) == EVENT_CAPTURED
    assert destroy(model) == 0
    assert sim.aclrtDestroyEvent(event) == 0
    assert sim.aclrtDestroyStream(stream) == 0


def test_in_synchronous_mode_a_wait_for_a_record_not_made_yet_is_refused():
    # The calling thread runs the wait itself, and could never make the record it waits for.
    out = run_script("""
        event = sim.new_event()
        assert sim.aclrtRecordEvent(event, stream) == 0
        assert sim.aclrtResetEvent(event, stream) == 0
        print("done", sim.event_done(event))
        print("wait", sim.aclrtStreamWaitEvent(stream, event), sim.error())
        assert sim.aclrtRecordEvent(event, stream) == 0
        print("recorded", sim.event_done(event), sim.aclrtStreamWaitEvent(stream, event))
        # The same for a device word no one has written yet (aclrtValueWait, GEQ).
        word = sim.malloc(8)
        sim.to_device(word, np.zeros(1, np.uint64))
        value_wait = sim.libs[0].aclrtValueWait
        value_wait.restype, value_wait.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_void_p]
        print("value", value_wait(word, 1, 0, stream), sim.error())
        print("reached", value_wait(word, 0, 0, stream))
    """, ACLNN_SIM_SYNC="1")
    assert "done False" in out, out
    assert f"wait {NOT_SUPPORTED} aclrtStreamWaitEvent" in out and "ACLNN_SIM_SYNC=1" in out, out
    assert "recorded True 0" in out, out
    assert f"value {NOT_SUPPORTED} aclrtValueWait: not modelled by the simulator in synchronous mode" in out, out
    assert "reached 0" in out, out


# --- waits that only a host call can end (stalls.cpp) -----------------------------------------

STREAM_NOT_COMPLETE, SYNC_TIMEOUT = ERRORS["ACL_ERROR_RT_STREAM_NOT_COMPLETE"], ERRORS["ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"]
GEQ = 0  # ACL_STREAM_WAIT_VALUE_GEQ


def returns(sim, call, *args):
    """(status, message) of call(*args), run in a thread that must end within 30 s: a hang fails the
    test instead of hanging it."""
    result = []
    worker = threading.Thread(target=lambda: result.append((call(*args), sim.error())), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), f"{call.__name__} hung"
    return result[0]


def typed(sim, name, restype, *argtypes):
    fn = sim.libs[0][name]
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


def stalled_on_a_reset_event(sim, stream):
    """Queues on `stream` a wait for the next record of an event reset since its record, and a kernel
    behind it; returns (event, producer, kernel)."""
    producer, event = sim.new_stream(), sim.new_event()
    assert sim.aclrtRecordEvent(event, producer) == 0
    assert sim.aclrtResetEvent(event, producer) == 0
    assert sim.aclrtStreamWaitEvent(stream, event) == 0
    op = Leaky(sim, 64)
    assert op.launch(stream) == 0
    return event, producer, op


def test_a_stream_waiting_for_a_record_no_call_makes_is_answered_not_waited_for(sim):
    stream = sim.new_stream()
    event, producer, op = stalled_on_a_reset_event(sim, stream)
    status, message = returns(sim, sim.aclrtSynchronizeStream, stream)
    assert status == STREAM_NOT_COMPLETE
    assert message.startswith("aclrtSynchronizeStream: the stream's queued work cannot finish: task 1 of the stream "
                              "(aclrtStreamWaitEvent), its next, waits for a record of an event reset (aclrtResetEvent)")
    assert "no host thread launched anything" in message and "the work stays queued" in message
    # Found stalled with nothing launched since: the next calls answer at once.
    status, message = returns(sim, sim.aclrtSynchronizeDevice)
    assert status == STREAM_NOT_COMPLETE and message.startswith("aclrtSynchronizeDevice: the stream's queued work cannot finish")
    sync_within = typed(sim, "aclrtSynchronizeStreamWithTimeout", ctypes.c_int, P, ctypes.c_int32)
    assert sync_within(stream, 0) == SYNC_TIMEOUT  # acl_rt.h: 0 checks at once
    status, message = returns(sim, sim.aclrtDestroyStream, stream)
    assert status == STREAM_NOT_COMPLETE and "the stream is not destroyed" in message and "aclrtDestroyStreamForce" in message
    assert not op.out.read_storage().any()
    # The stream is still live, its work still queued: the record releases it.
    assert sim.aclrtRecordEvent(event, producer) == 0
    assert returns(sim, sim.aclrtSynchronizeStream, stream)[0] == 0
    assert sync_within(stream, 0) == 0
    assert np.array_equal(op.out.numpy(), golden(op.grad.storage, op.x.storage))
    op.close()
    assert sim.aclrtDestroyEvent(event) == 0
    for s in (stream, producer):
        assert sim.aclrtDestroyStream(s) == 0


def test_a_stall_reaches_the_streams_and_events_that_wait_behind_it(sim):
    # `first` waits for a record no call makes; `second` waits for a record queued on `first` behind
    # that wait; the same stream waiting for its own later record waits for ever too.
    first, second = sim.new_stream(), sim.new_stream()
    event, producer, op = stalled_on_a_reset_event(sim, first)
    behind = sim.new_event()
    assert sim.aclrtRecordEvent(behind, first) == 0
    assert sim.aclrtStreamWaitEvent(second, behind) == 0
    status, message = returns(sim, sim.aclrtSynchronizeStream, second)
    assert status == STREAM_NOT_COMPLETE
    assert ("(aclrtStreamWaitEvent), its next, waits for the record of the event, queued on another stream where task 1 "
            "of the stream (aclrtStreamWaitEvent), its next, waits for a record of an event reset") in message
    status, message = returns(sim, sim.aclrtSynchronizeEvent, behind)
    assert status == NOT_COMPLETE and message.startswith(
        "aclrtSynchronizeEvent: the event's latest record cannot be reached: the record of the event, queued on "
        "another stream where task 1")
    assert sim.aclrtRecordEvent(event, first) == 0  # behind the wait it would release
    status, message = returns(sim, sim.aclrtSynchronizeStream, first)
    assert status == STREAM_NOT_COMPLETE and "queued behind that very wait" in message
    # The forced destruction drops the work and ends the wait; the stream behind it goes on.
    destroy_force = typed(sim, "aclrtDestroyStreamForce", ctypes.c_int, P)
    assert returns(sim, destroy_force, first)[0] == 0
    assert returns(sim, sim.aclrtSynchronizeStream, second)[0] == 0
    assert not op.out.read_storage().any()
    op.close()
    for e in (event, behind):
        assert sim.aclrtDestroyEvent(e) == 0
    for s in (second, producer):
        assert sim.aclrtDestroyStream(s) == 0


def test_a_value_wait_no_task_writes_stalls_and_memory_behind_it_is_not_freed(sim):
    stream, word = sim.new_stream(), sim.malloc(8)
    sim.to_device(word, np.zeros(1, np.uint64))
    value_wait = typed(sim, "aclrtValueWait", ctypes.c_int, P, ctypes.c_uint64, ctypes.c_uint32, P)
    assert value_wait(word, 1, GEQ, stream) == 0, sim.error()
    op = Leaky(sim, 64)
    assert op.launch(stream) == 0
    status, message = returns(sim, sim.aclrtSynchronizeStream, stream)
    assert status == STREAM_NOT_COMPLETE and "(aclrtValueWait), its next, waits for a write of the device word at" in message
    status, message = returns(sim, sim.aclrtFree, op.out.ptr)
    assert status == STREAM_NOT_COMPLETE and message.startswith("aclrtFree: queued work that uses the memory cannot finish")
    sim.to_device(word, np.ones(1, np.uint64))  # the host's write releases it
    assert returns(sim, sim.aclrtSynchronizeStream, stream)[0] == 0
    assert np.array_equal(op.out.numpy(), golden(op.grad.storage, op.x.storage))
    op.close()
    sim.free(word)
    assert sim.aclrtDestroyStream(stream) == 0


def test_a_record_another_thread_makes_while_the_host_launches_is_waited_for(sim):
    # A synchronisation waits for a record another thread makes, as long as the host keeps launching.
    stream = sim.new_stream()
    event, producer, op = stalled_on_a_reset_event(sim, stream)
    busy = Leaky(sim, 64)

    def produce():
        for _ in range(30):  # 1.5 s of launches, longer than the grace a silent host gets
            assert busy.launch(producer) == 0
            time.sleep(0.05)
        assert sim.aclrtRecordEvent(event, producer) == 0

    thread = threading.Thread(target=produce)
    thread.start()
    assert returns(sim, sim.aclrtSynchronizeStream, stream)[0] == 0
    thread.join()
    assert np.array_equal(op.out.numpy(), golden(op.grad.storage, op.x.storage))
    op.close()
    busy.close()
    assert sim.aclrtDestroyEvent(event) == 0
    for s in (stream, producer):
        assert sim.aclrtDestroyStream(s) == 0


def test_a_device_reset_and_exit_with_a_stalled_stream_do_not_hang():
    out = run_script("""
        event, producer, op = stalled_on_a_reset_event(sim, stream)
        print("reset", sim.aclrtResetDevice(0), sim.error())
        print("finalize", sim.aclFinalize())
        # A process that exits with a stalled stream and no teardown at all ends too.
        assert sim.aclInit(None) == 0 and sim.aclrtSetDevice(0) == 0
        stalled_on_a_reset_event(sim, sim.new_stream())
    """)
    assert f"reset {STREAM_NOT_COMPLETE} aclrtResetDevice: the stream's queued work cannot finish" in out, out
    assert "the device was reset all the same, the work discarded" in out, out
    assert "finalize 0" in out, out


def test_a_producer_slower_than_the_default_grace_is_waited_for_under_a_longer_stall_setting():
    # ACLNN_SIM_STALL_MS=2000: a producer thread that records 1.2 s after the wait was queued (longer
    # than the default 1 s without a launch) releases the synchronisation, which answers 0; a stall
    # no thread ends is answered after the 2 s, the message giving them.
    out = run_script("""
        import threading, time
        event, producer, op = stalled_on_a_reset_event(sim, stream)
        late = threading.Timer(1.2, lambda: print("recorded", sim.aclrtRecordEvent(event, producer)))
        late.start()
        print("released", sim.aclrtSynchronizeStream(stream))
        late.join()
        stalled_on_a_reset_event(sim, stream)
        start = time.monotonic()
        status = sim.aclrtSynchronizeStream(stream)
        print("stalled", status, round(time.monotonic() - start, 1), sim.error())
        print("reset", sim.aclrtResetDevice(0))
    """, ACLNN_SIM_STALL_MS="2000")
    assert "recorded 0" in out and "released 0" in out, out
    stalled = next(line for line in out.splitlines() if line.startswith("stalled"))
    status, waited = stalled.split()[1:3]
    assert int(status) == STREAM_NOT_COMPLETE and 2.0 <= float(waited) < 10, out
    assert "no host thread launched anything on any stream for 2000 ms" in stalled, out
