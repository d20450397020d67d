"""Phase 2 kernels of the simulator against PyTorch: the seeds' goldens (their semantics files'
`golden` expressions) for FLOAT/FLOAT16/BFLOAT16/DOUBLE, on contiguous, strided, offset,
negative-stride, broadcast and empty views, and the engine's integer, in-place and mixed paths."""

import ml_dtypes
import numpy as np
import pytest
import torch

from tests.sim.sim_lib import ACL_FORMAT_NC1HWC0, D2H, DeviceArray, NOT_SIMULATED, session_sim, special_values

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = {"FLOAT": np.dtype(np.float32), "FLOAT16": np.dtype(np.float16), "BFLOAT16": BF16,
          "DOUBLE": np.dtype(np.float64)}
# Results may differ from torch's by the rounding of a constant (e.g. SELU's alpha*scale in float).
TOLERANCE = {np.dtype(np.float32): 2e-6, np.dtype(np.float16): 1e-3, BF16: 8e-3, np.dtype(np.float64): 1e-12}


@pytest.fixture(scope="module")
def sim():
    return session_sim()


def to_torch(a: np.ndarray) -> torch.Tensor:
    if a.dtype == BF16:
        return torch.from_numpy(np.ascontiguousarray(a).view(np.uint16).astype(np.int32)).to(torch.int16) \
            .view(torch.bfloat16).reshape(a.shape) if a.size else torch.zeros(a.shape, dtype=torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def to_numpy(t: torch.Tensor, dtype: np.dtype) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16).view(BF16)
    return t.numpy().astype(dtype)


class Run:
    """The arrays of one call, released at the end of the test."""

    def __init__(self, sim):
        self.sim = sim
        self.arrays, self.scalars = [], []

    def array(self, storage, **view) -> DeviceArray:
        a = DeviceArray(self.sim, storage, **view)
        self.arrays.append(a)
        return a

    def scalar(self, value, dtype=np.float32):
        s = self.sim.scalar(value, dtype)
        self.scalars.append(s)
        return s

    def close(self):
        for a in self.arrays:
            a.close()
        for s in self.scalars:
            assert self.sim.aclDestroyScalar(s) == 0


@pytest.fixture
def run(sim):
    # Baselines, not 0: the bindings, when loaded in this process, keep cached blocks, and descriptors
    # and scalars for reuse, of the same simulator.
    allocations, objects = sim.stats()["device_allocations"], sim.aclsimLiveObjects()
    r = Run(sim)
    yield r
    r.close()
    assert sim.aclsimLiveObjects() == objects
    assert sim.stats()["device_allocations"] == allocations


def golden(sim, api: str, **values):
    namespace = {"torch": torch, **values}
    return eval(sim.model.api(api).semantics.golden, namespace)  # the semantics file's PyTorch expression


def check_close(actual: np.ndarray, expected: np.ndarray):
    tolerance = TOLERANCE[actual.dtype]
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=tolerance,
                               atol=tolerance)


def random(shape, dtype, low=-4.0, high=4.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def page_dtypes(sim, api):
    listed = {d.value for d in sim.model.api(api).api.params[0].dtypes}
    return [name for name in FLOATS if name in listed]


def leaky(sim, run, grad, self_, out, slope=0.2, self_is_result=False):
    status = sim.call("aclnnLeakyReluBackward", grad.handle, self_.handle, run.scalar(slope, np.float64),
                      self_is_result, out.handle)
    assert status == (0, 0), sim.error()
    expected = golden(sim, "aclnnLeakyReluBackward", gradOutput=to_torch(grad.numpy()),
                      self=to_torch(self_.numpy()), negativeSlope=slope, selfIsResult=self_is_result)
    check_close(out.numpy(), to_numpy(expected, out.storage.dtype))


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"])
def test_leaky_relu_backward_matches_torch(sim, run, dtype):
    d = FLOATS[dtype]
    shape = (3, 5, 7)
    leaky(sim, run, run.array(random(shape, d, seed=1)), run.array(random(shape, d, seed=2)),
          run.array(np.zeros(shape, d)))


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_hardsigmoid_backward_matches_torch(sim, run, dtype):
    d = FLOATS[dtype]
    shape = (4, 33)
    grad, self_ = run.array(random(shape, d, seed=3)), run.array(random(shape, d, -6, 6, seed=4))
    self_.storage[0, :3] = [-3, 3, 0]  # the boundaries of the derivative
    self_ = run.array(self_.storage)
    out = run.array(np.zeros(shape, d))
    assert sim.call("aclnnHardsigmoidBackward", grad.handle, self_.handle, out.handle) == (0, 0), sim.error()
    expected = golden(sim, "aclnnHardsigmoidBackward", gradOutput=to_torch(grad.numpy()), self=to_torch(self_.numpy()))
    check_close(out.numpy(), to_numpy(expected, d))


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_selu_backward_matches_aten_elu_backward_with_selu_constants(sim, run, dtype):
    d = FLOATS[dtype]
    shape = (2, 50)
    grad, result = run.array(random(shape, d, seed=5)), run.array(random(shape, d, -1.7, 4.0, seed=6))
    out = run.array(np.zeros(shape, d))
    assert sim.call("aclnnSeluBackward", grad.handle, result.handle, out.handle) == (0, 0), sim.error()
    expected = golden(sim, "aclnnSeluBackward", gradOutput=to_torch(grad.numpy()), result=to_torch(result.numpy()))
    check_close(out.numpy(), to_numpy(expected, d))


def test_selu_backward_on_integers_computes_in_floating_point(sim, run):
    grad = run.array(np.array([3, -2, 5, 7], np.int32))
    result = run.array(np.array([-1, 0, 2, 9], np.int32))
    out = run.array(np.zeros(4, np.int32))
    assert sim.call("aclnnSeluBackward", grad.handle, result.handle, out.handle) == (0, 0), sim.error()
    expected = np.where(result.storage <= 0, grad.storage * (result.storage + 1.7580993408473766),
                        grad.storage * 1.0507009873554805)
    assert np.array_equal(out.numpy(), np.trunc(expected).astype(np.int32))


def test_strided_views_with_offsets(sim, run):
    storage = random((64,), np.float32, seed=7)
    # self: a [4, 3] column-major view starting at element 5; grad: every other element from 1.
    self_ = run.array(storage, shape=[4, 3], strides=[1, 4], offset=5)
    grad = run.array(random((40,), np.float32, seed=8), shape=[4, 3], strides=[6, 2], offset=1)
    out = run.array(np.zeros((4, 3), np.float32))
    leaky(sim, run, grad, self_, out)


def test_negative_strides(sim, run):
    self_ = run.array(random((12,), np.float32, seed=9), shape=[3, 4], strides=[-4, -1], offset=11)
    grad = run.array(random((12,), np.float32, seed=10), shape=[3, 4], strides=[4, 1])
    out = run.array(np.zeros((3, 4), np.float32))
    leaky(sim, run, grad, self_, out)


def test_strided_output_leaves_the_gaps_untouched(sim, run):
    grad, self_ = run.array(random((5,), np.float32, seed=11)), run.array(random((5,), np.float32, seed=12))
    out = run.array(np.full(10, 99.0, np.float32), shape=[5], strides=[2], offset=0)
    leaky(sim, run, grad, self_, out)
    assert np.all(out.read_storage()[1::2] == 99.0)


def test_broadcasting_inputs(sim, run):
    grad = run.array(random((1, 5), np.float32, seed=13))
    self_ = run.array(random((3, 1), np.float32, seed=14))
    out = run.array(np.zeros((3, 5), np.float32))
    leaky(sim, run, grad, self_, out)


def test_zero_stride_broadcast_view(sim, run):
    grad = run.array(np.array([2.0], np.float32), shape=[4, 3], strides=[0, 0])
    self_ = run.array(random((4, 3), np.float32, seed=15))
    out = run.array(np.zeros((4, 3), np.float32))
    leaky(sim, run, grad, self_, out)


def test_rank_zero_tensors(sim, run):
    grad, self_ = run.array(np.array(3.0, np.float32)), run.array(np.array(-1.0, np.float32))
    out = run.array(np.array(0.0, np.float32))
    leaky(sim, run, grad, self_, out)
    assert out.numpy() == pytest.approx(0.6)


def test_empty_tensors_run_and_touch_nothing(sim, run):
    grad, self_ = run.array(np.zeros((0, 3), np.float32)), run.array(np.zeros((0, 3), np.float32))
    out = run.array(np.zeros((0, 3), np.float32))
    assert sim.call("aclnnLeakyReluBackward", grad.handle, self_.handle, run.scalar(0.1), False, out.handle) == (0, 0)


def test_mixed_dtypes_promote_and_cast(sim, run):
    grad = run.array(random((6, 7), np.float16, seed=16))
    self_ = run.array(random((6, 7), BF16, seed=17))
    out = run.array(np.zeros((6, 7), np.float64))
    status = sim.call("aclnnLeakyReluBackward", grad.handle, self_.handle, run.scalar(0.3), False, out.handle)
    assert status == (0, 0), sim.error()
    g, s = grad.numpy().astype(np.float32), self_.numpy().astype(np.float32)
    expected = np.where(s > 0, g, g * np.float32(0.3))  # computed in FLOAT, the promoted dtype
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_large_tensors_use_the_thread_pool_and_match(sim, run):
    n = 1 << 20
    grad, self_ = run.array(random((n,), np.float32, seed=18)), run.array(random((n,), np.float32, seed=19))
    out = run.array(np.zeros(n, np.float32))
    leaky(sim, run, grad, self_, out)


def test_large_strided_half_tensors(sim, run):
    grad = run.array(random((2 * 300_000,), np.float16, seed=20), shape=[300_000], strides=[2])
    self_ = run.array(random((300_000,), np.float16, seed=21))
    out = run.array(np.zeros(300_000, np.float16))
    leaky(sim, run, grad, self_, out)


# --- the engine's other paths, on test-only APIs -------------------------------------------------

def test_exact_integer_arithmetic(sim, run):
    big = np.array([2**62 + 1, -(2**61) + 3, 7], np.int64)
    self_, other = run.array(big), run.array(np.array([3, 5, -7], np.int64))
    out = run.array(np.zeros(3, np.int64))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(2, np.int64), out.handle) == (0, 0)
    assert np.array_equal(out.numpy(), big + np.array([3, 5, -7]) * 2)


def test_integer_results_wrap_like_torch(sim, run):
    self_, other = run.array(np.array([100, -100], np.int8)), run.array(np.array([100, -100], np.int8))
    out = run.array(np.zeros(2, np.int8))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(1, np.int64), out.handle) == (0, 0)
    expected = torch.tensor([100, -100], dtype=torch.int8) + torch.tensor([100, -100], dtype=torch.int8)
    assert np.array_equal(out.numpy(), expected.numpy())


def test_a_floating_scalar_lifts_integer_inputs_to_float(sim, run):
    self_, other = run.array(np.array([1, 2], np.int32)), run.array(np.array([1, 1], np.int32))
    out = run.array(np.zeros(2, np.float32))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(0.5), out.handle) == (0, 0)
    assert np.array_equal(out.numpy(), [1.5, 2.5])


def test_bool_inputs(sim, run):
    self_, other = run.array(np.array([True, False, True])), run.array(np.array([True, False, False]))
    out = run.array(np.zeros(3, np.int32))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(3, np.int64), out.handle) == (0, 0)
    assert np.array_equal(out.numpy(), [4, 0, 1])


def test_in_place_output(sim, run):
    data = random((5, 6), np.float32, seed=22)
    self_ref = run.array(data.copy())
    assert sim.call("aclnnSimTestInplaceScale", self_ref.handle, 2.0, 3) == (0, 0), sim.error()
    np.testing.assert_allclose(self_ref.numpy(), data * 2 + 3, rtol=1e-6)


def test_in_place_on_a_transposed_half_view(sim, run):
    data = random((6, 5), np.float16, seed=23)
    self_ref = run.array(data.copy(), shape=[5, 6], strides=[1, 5])
    assert sim.call("aclnnSimTestInplaceScale", self_ref.handle, -1.0, 0) == (0, 0), sim.error()
    np.testing.assert_array_equal(self_ref.read_storage().reshape(6, 5), -data)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64, np.int8, np.int64, np.uint8, np.bool_])
def test_a_kernel_without_tensor_inputs_fills(sim, run, dtype):
    out = run.array(np.zeros((3, 4), dtype))
    assert sim.call("aclnnSimTestFill", out.handle, run.scalar(1, np.int64)) == (0, 0), sim.error()
    assert np.array_equal(out.numpy(), np.ones((3, 4), dtype))


# --- not simulated -------------------------------------------------------------------------------

def test_an_api_without_a_kernel_passes_phase1_and_says_not_simulated(sim, run):
    self_, out = run.array(np.zeros(2, np.float32)), run.array(np.zeros(2, np.float32))
    # Phase 2 queues it; it fails on the stream, whose synchronisation says so by name (not at the
    # launch: torch_npu's task queue drops all later work after a launch that failed).
    assert sim.call("aclnnSimTestNoKernel", self_.handle, out.handle) == (0, NOT_SIMULATED)
    assert "aclnnSimTestNoKernel queued on this stream has no kernel in the simulator" in sim.error()
    assert sim.error().endswith("aclnnSimTestNoKernel is not simulated (no semantics file states its kernel)")
    # The stream goes on: the next launch runs.
    assert sim.call("aclnnSimTestNoKernel", self_.handle, out.handle) == (0, NOT_SIMULATED)


def test_a_tensor_in_a_private_layout_passes_phase1_where_listed_and_is_not_computed(sim, run):
    # aclnnSimTestFormats' self lists NC1HWC0: phase 1 accepts it, and the kernel, which reads plain
    # layouts only, refuses rather than read the storage in the wrong order.
    self_ = run.array(np.ones(2, np.float32), format=ACL_FORMAT_NC1HWC0)
    other, out = run.array(np.ones(2, np.float32)), run.array(np.zeros(2, np.float32))
    assert sim.call("aclnnSimTestFormats", self_.handle, other.handle, out.handle) == (0, NOT_SIMULATED)
    assert "self's private format NC1HWC0" in sim.error(), sim.error()
    # The copy right after the failed synchronisation reports it again (test_sim_streams), once.
    host = np.ones(2, np.float32)
    assert sim.aclrtMemcpy(host.ctypes.data, host.nbytes, out.ptr, host.nbytes, D2H) == NOT_SIMULATED
    assert np.array_equal(out.numpy(), np.zeros(2, np.float32))


def test_an_api_with_two_outputs_is_not_simulated(sim, run):
    a, b, c = (run.array(np.zeros(2, np.float32)) for _ in range(3))
    assert sim.call("aclnnSimTestTwoOutputs", a.handle, b.handle, c.handle) == (0, NOT_SIMULATED)
    assert "the elementwise engine writes one tensor" in sim.error()


def complex_random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-4, 4, shape) + 1j * rng.uniform(-4, 4, shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_on_a_strided_and_a_broadcast_view_matches_numpy(sim, run, dtype):
    # self: a [3, 4] view of every other element (non-contiguous); other: a column broadcast to
    # four (stride 0, gathered and repeated); alpha: a complex scalar, used as complex.
    self_ = run.array(complex_random((24,), dtype, seed=40), shape=[3, 4], strides=[8, 2], offset=0)
    other = run.array(complex_random((3,), dtype, seed=41), shape=[3, 4], strides=[1, 0])
    out = run.array(np.zeros((3, 4), dtype))
    alpha = run.scalar(0.5 - 2j, dtype)
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, alpha, out.handle) == (0, 0), sim.error()
    expected = self_.numpy() + other.numpy() * dtype(0.5 - 2j)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)
    assert out.numpy().dtype == dtype


def test_a_real_input_of_a_complex_computation_loads_with_imaginary_part_zero(sim, run):
    self_ = run.array(random((2, 5), np.float32, seed=42))
    other = run.array(complex_random((5,), np.complex64, seed=43))
    out = run.array(np.zeros((2, 5), np.complex64))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(2.0), out.handle) == (0, 0), sim.error()
    expected = (torch.from_numpy(self_.numpy()) + torch.from_numpy(other.numpy()) * 2.0).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_a_real_computation_stores_into_a_complex_output(sim, run):
    self_, other = run.array(random((7,), np.float32, seed=44)), run.array(random((7,), np.float32, seed=45))
    out = run.array(np.full(7, 9 + 9j, np.complex64))
    assert sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(1.0), out.handle) == (0, 0), sim.error()
    np.testing.assert_allclose(out.numpy(), (self_.numpy() + other.numpy()).astype(np.complex64), rtol=1e-6)


def test_a_complex_result_is_not_stored_into_a_real_output(sim, run):
    self_, other = run.array(np.ones(2, np.complex64)), run.array(np.ones(2, np.complex64))
    out = run.array(np.zeros(2, np.float32))
    status, _ = sim.call("aclnnSimTestAdd", self_.handle, other.handle, run.scalar(1.0), out.handle)
    assert status == 161002 and "not castable from the promoted dtype COMPLEX64" in sim.error()


@pytest.mark.parametrize("dtype, real", [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_a_complex_result_the_semantics_call_real_goes_to_a_real_output(sim, run, dtype, real):
    self_ = run.array(complex_random((3, 8), dtype, seed=46), shape=[3, 4], strides=[8, 2])  # every other column
    out = run.array(np.zeros((3, 4), real))
    assert sim.call("aclnnSimTestAbs", self_.handle, out.handle) == (0, 0), sim.error()
    np.testing.assert_allclose(out.numpy(), torch.abs(torch.from_numpy(self_.numpy())).numpy(), rtol=1e-6)


def test_complex_is_not_computed_where_the_page_lists_no_complex_input(sim, run):
    # aclnnSimTestCast's self lists real dtypes only: its kernel has no complex instantiation, and
    # phase 1 rejects the dtype before any kernel is chosen.
    self_, out = run.array(np.ones(2, np.complex64)), run.array(np.zeros(2, np.complex64))
    status, _ = sim.call("aclnnSimTestCast", self_.handle, out.handle)
    assert status == 161002 and "dtype COMPLEX64 is not supported" in sim.error()


# --- the AVX2 loops (fused FLOAT16/BFLOAT16 included) and the portable ones agree bit for bit -------

_ISA_SCRIPT = """
import sys
import numpy as np
from tests.sim.sim_lib import DeviceArray, session_sim
from tests.sim.sim_lib import special_values
sim = session_sim()
out_bytes = b""
for dtype in ("float32", "float16", "bfloat16"):
    for n in (1, 7, 8, 1003):
        grad, x = special_values(dtype, n, 1), special_values(dtype, n, 2)
        g, s, o = DeviceArray(sim, grad), DeviceArray(sim, x), DeviceArray(sim, np.zeros_like(grad))
        slope = sim.scalar(0.3, np.float64)
        assert sim.call("aclnnLeakyReluBackward", g.handle, s.handle, slope, False, o.handle) == (0, 0), sim.error()
        out_bytes += o.read_storage().tobytes()
        for a in (g, s, o):
            a.close()
        sim.aclDestroyScalar(slope)
sys.stdout.write(out_bytes.hex())
"""


@pytest.mark.parametrize("isa", ["baseline"])
def test_portable_loops_equal_the_avx2_ones_bit_for_bit(sim, isa):
    import subprocess
    import sys

    from tests.sim.sim_lib import ROOT, subprocess_env

    def run(**env):
        return subprocess.run([sys.executable, "-c", _ISA_SCRIPT], env=subprocess_env(**env), cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout

    assert run(ACLNN_SIM_ISA=isa) == run()


@pytest.mark.parametrize("dtype", ["FLOAT16", "BFLOAT16"])
def test_special_values_match_torch(sim, run, dtype):
    d = FLOATS[dtype]
    name = {"FLOAT16": "float16", "BFLOAT16": "bfloat16"}[dtype]
    grad, self_ = run.array(special_values(name, 1003, 3)), run.array(special_values(name, 1003, 4))
    out = run.array(np.zeros(1003, d))
    assert sim.call("aclnnHardsigmoidBackward", grad.handle, self_.handle, out.handle) == (0, 0)
    expected = golden(sim, "aclnnHardsigmoidBackward", gradOutput=to_torch(grad.numpy()), self=to_torch(self_.numpy()))
    np.testing.assert_array_equal(out.numpy().astype(np.float32), to_numpy(expected, d).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_in_place_on_contiguous_16_bit_tensors(sim, run, dtype):
    data = random((1003,), dtype, seed=24)
    self_ref = run.array(data.copy())
    assert sim.call("aclnnSimTestInplaceScale", self_ref.handle, 0.5, 1) == (0, 0), sim.error()
    expected = (data.astype(np.float32) * np.float32(0.5) + np.float32(1)).astype(dtype)
    np.testing.assert_array_equal(self_ref.numpy(), expected)
