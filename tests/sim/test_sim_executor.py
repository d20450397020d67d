"""Phase 2 of the generated entries: executors, workspaces, streams and leak accounting."""

import ctypes

import numpy as np
import pytest

from tests.sim.sim_lib import ACL_ERROR_RT_AICORE_EXCEPTION, INVALID, NULLPTR, P, DeviceArray, session_sim


@pytest.fixture(scope="module")
def sim():
    return session_sim()


# gradOutput 0..7, self -4..3, negativeSlope 0.5.
EXPECTED = np.array([0, 0.5, 1, 1.5, 2, 5, 6, 7], np.float32)


class Leaky:
    """LeakyReluBackward's arguments on `dtype` tensors, released at the end of the test."""

    def __init__(self, sim, dtype=np.float32, n=8):
        self.sim = sim
        self.grad = DeviceArray(sim, np.arange(n, dtype=dtype))
        self.self_ = DeviceArray(sim, np.arange(n, dtype=dtype) - n // 2)
        self.out = DeviceArray(sim, np.zeros(n, dtype=dtype))
        self.slope = sim.scalar(0.5, np.float32)

    def phase1(self):
        status, size, executor = self.sim.phase1("aclnnLeakyReluBackward", self.grad.handle, self.self_.handle,
                                                 self.slope, False, self.out.handle)
        assert status == 0, self.sim.error()
        return size, executor

    def run(self, executor, workspace=None, size=0, stream=None):
        return self.sim.run("aclnnLeakyReluBackward", workspace, size, executor, stream)

    def close(self):
        for a in (self.grad, self.self_, self.out):
            a.close()
        assert self.sim.aclDestroyScalar(self.slope) == 0


@pytest.fixture
def leaky(sim):
    # Baselines, not 0: the bindings, when loaded in this process, keep cached blocks, and descriptors
    # and scalars for reuse, of the same simulator.
    allocations, objects = sim.stats()["device_allocations"], sim.aclsimLiveObjects()
    op = Leaky(sim)
    yield op
    op.close()
    assert sim.aclsimLiveObjects() == objects
    assert sim.stats()["device_allocations"] == allocations


@pytest.fixture
def leaky_half(sim):
    objects = sim.aclsimLiveObjects()  # a baseline, as leaky's
    op = Leaky(sim, np.float16)
    yield op
    op.close()
    assert sim.aclsimLiveObjects() == objects


def test_null_executor(sim, leaky):
    assert leaky.run(None) == NULLPTR
    assert sim.error() == "aclnnLeakyReluBackward: executor is a null pointer"


def test_an_executor_runs_once(sim, leaky):
    _, executor = leaky.phase1()
    assert sim.stats()["executors"] == 1
    assert leaky.run(executor) == 0
    assert sim.stats()["executors"] == 0
    assert leaky.run(executor) == INVALID
    assert "not a live executor" in sim.error()


def test_an_unknown_executor_is_an_error_not_a_crash(sim, leaky):
    assert leaky.run(0x1234560) == INVALID
    assert leaky.run(0x5800000000000010) == INVALID


def test_an_executor_runs_only_on_its_own_api(sim, leaky):
    _, executor = leaky.phase1()
    assert sim.run("aclnnHardsigmoidBackward", None, 0, executor) == INVALID
    assert "made by aclnnLeakyReluBackwardGetWorkspaceSize" in sim.error()
    assert leaky.run(executor) == 0  # still usable by its own API


def test_a_repeatable_executor_runs_until_destroyed(sim, leaky):
    _, executor = leaky.phase1()
    assert sim.aclSetAclOpExecutorRepeatable(executor) == 0
    for _ in range(3):
        assert leaky.run(executor) == 0
    assert sim.aclDestroyAclOpExecutor(executor) == 0
    assert leaky.run(executor) == INVALID
    assert sim.aclDestroyAclOpExecutor(executor) == INVALID


def test_an_unrun_executor_can_be_destroyed(sim, leaky):
    _, executor = leaky.phase1()
    assert sim.aclDestroyAclOpExecutor(executor) == 0
    assert sim.stats()["executors"] == 0


def test_tensors_may_be_destroyed_between_the_phases(sim, leaky):
    _, executor = leaky.phase1()
    for a in (leaky.grad, leaky.self_, leaky.out):
        assert sim.aclDestroyTensor(a.handle) == 0
        a.handle = None
    assert leaky.run(executor) == 0
    assert np.array_equal(leaky.out.read_storage(), EXPECTED)


def test_memory_freed_between_the_phases_faults_in_the_kernel_not_a_read(sim, leaky):
    # The launch is queued; the kernel finds the freed memory when it runs, and the stream's
    # synchronisation reports the fault, naming the API whose kernel failed.
    _, executor = leaky.phase1()
    sim.free(leaky.grad.ptr)
    leaky.grad.ptr = None
    assert leaky.run(executor) == ACL_ERROR_RT_AICORE_EXCEPTION
    assert "a kernel of aclnnLeakyReluBackward" in sim.error()
    assert "gradOutput: the view's elements" in sim.error() and "live device allocation" in sim.error()


def test_host_memory_as_tensor_data_faults_in_the_kernel(sim):
    host = np.zeros(4, np.float32)
    t = sim.tensor([4], 0, host.ctypes.data)
    s = sim.scalar(0.1, np.float32)
    status = sim.call("aclnnLeakyReluBackward", t, t, s, False, t)
    assert status == (0, ACL_ERROR_RT_AICORE_EXCEPTION), sim.error()
    assert sim.aclDestroyTensor(t) == 0 and sim.aclDestroyScalar(s) == 0


def test_contiguous_float_needs_no_workspace(sim, leaky):
    size, executor = leaky.phase1()
    assert size == 0
    assert sim.aclDestroyAclOpExecutor(executor) == 0


def test_a_requested_workspace_must_be_given(sim, leaky_half):
    size, executor = leaky_half.phase1()
    assert size > 0  # FLOAT16 is converted to FLOAT: the simulator asks for workspace, as CANN would
    assert leaky_half.run(executor, None, size) == NULLPTR
    assert "workspace is a null pointer" in sim.error()


def test_a_workspace_smaller_than_requested_is_refused(sim, leaky_half):
    size, executor = leaky_half.phase1()
    workspace = sim.malloc(size)
    try:
        assert leaky_half.run(executor, workspace, size - 1) == INVALID
        assert f"smaller than the {size} bytes" in sim.error()
    finally:
        sim.free(workspace)


def test_a_workspace_outside_device_memory_is_refused(sim, leaky_half):
    size, executor = leaky_half.phase1()
    host = ctypes.create_string_buffer(size)
    assert leaky_half.run(executor, ctypes.addressof(host), size) == INVALID
    assert "not a live device allocation" in sim.error()


def test_a_workspace_too_small_in_device_memory_is_refused(sim, leaky_half):
    size, executor = leaky_half.phase1()
    workspace = sim.malloc(size)  # CANN pads it by 32 to 63 bytes: 64 more runs past its end
    try:
        assert leaky_half.run(executor, workspace + 64, size) == INVALID
    finally:
        sim.free(workspace)


def test_the_workspace_path_runs(sim, leaky_half):
    size, executor = leaky_half.phase1()
    workspace = sim.malloc(size)
    try:
        assert leaky_half.run(executor, workspace, size) == 0
    finally:
        sim.free(workspace)
    assert np.array_equal(leaky_half.out.numpy(), EXPECTED.astype(np.float16))


def test_a_destroyed_stream_is_refused(sim, leaky):
    _, executor = leaky.phase1()
    stream = P()
    assert sim.aclrtCreateStream(ctypes.byref(stream)) == 0
    assert sim.aclrtDestroyStream(stream) == 0
    assert leaky.run(executor, stream=stream.value) == INVALID
    assert "stream is not a live stream" in sim.error()


def test_many_calls_keep_memory_flat_and_leave_no_objects(sim):
    before, objects = sim.stats(), sim.aclsimLiveObjects()  # baselines, as leaky's
    for _ in range(2000):
        op = Leaky(sim, np.float16, n=16)
        size, executor = op.phase1()
        workspace = sim.malloc(size)
        assert op.run(executor, workspace, size) == 0
        sim.free(workspace)
        op.close()
    after = sim.stats()
    assert after["device_allocations"] == before["device_allocations"]
    assert after["device_bytes"] == before["device_bytes"]
    assert sim.aclsimLiveObjects() == objects
