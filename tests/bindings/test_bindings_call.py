"""aclnn on the simulator: inputs of every kind, strides, outputs, device tensors, errors.

The package is built once per session (tests/support/bindings_build.py). Until runtime/sim builds, a small
fake of the libraries stands in (FLOAT and equal shapes only): tests that need the real
simulator's dtypes or broadcasting are skipped with that reason, and run once it lands.
"""

import inspect

import ml_dtypes
import numpy as np
import pytest

from tests.support import bindings_build

real_sim = pytest.mark.skipif(not bindings_build.real_simulator(),
                              reason="needs the real simulator (runtime/sim); the fake computes FLOAT only")


def leaky(x, slope=0.5):
    return np.where(x > 0, 1.0, slope).astype(x.dtype)


@pytest.fixture
def gx():
    rng = np.random.default_rng(0)
    g = rng.standard_normal((4, 6)).astype(np.float32)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    return g, x


def test_seed_example_prints_the_documented_values(aclnn):
    result = aclnn.leaky_relu_backward(np.array([2, 3, 4, 5], np.float32), np.array([1, -2, 3, -4], np.float32),
                                       0.01, False)
    assert str(result) == "[2.   0.03 4.   0.05]"


def test_transposed_inputs_keep_their_strides(aclnn, gx):
    g, x = gx
    np.testing.assert_allclose(aclnn.leaky_relu_backward(g.T, x.T, 0.5, False), g.T * leaky(x.T))


def test_stepped_and_offset_slices(aclnn, gx):
    g, x = gx
    gs, xs = g[1:, 1::2], x[1:, 1::2]
    np.testing.assert_allclose(aclnn.leaky_relu_backward(gs, xs, 0.5, False), gs * leaky(xs))


def test_negative_strides_are_copied(aclnn, gx):
    g, x = gx
    np.testing.assert_allclose(aclnn.leaky_relu_backward(g[::-1], x[::-1], 0.5, False), g[::-1] * leaky(x[::-1]))


def test_zero_strides_of_broadcast_views(aclnn):
    g = np.broadcast_to(np.float32(2.0), (3, 5))
    x = np.broadcast_to(np.array([1, -1, 2, -2, 3], np.float32), (3, 5))
    np.testing.assert_allclose(aclnn.leaky_relu_backward(g, x, 0.5, False), g * leaky(x))


def test_zero_dimensional(aclnn):
    out = aclnn.leaky_relu_backward(np.array(3.0, np.float32), np.array(-1.0, np.float32), 0.5, False)
    assert out.shape == () and out == 1.5


def test_eight_dimensional(aclnn):
    shape = (2, 1, 2, 1, 2, 1, 2, 3)
    g = np.ones(shape, np.float32)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 20
    np.testing.assert_allclose(aclnn.leaky_relu_backward(g, x, 0.5, False), leaky(x))


def test_empty(aclnn):
    out = aclnn.leaky_relu_backward(np.ones((0, 3), np.float32), np.ones((0, 3), np.float32), 0.5, False)
    assert out.shape == (0, 3) and out.dtype == np.float32


def test_python_lists_become_arrays(aclnn):
    out = aclnn.leaky_relu_backward(np.array([1.0, 1.0], np.float32), np.array([1.0, -1.0], np.float32), 1, False)
    np.testing.assert_allclose(out, [1.0, 1.0])


@real_sim
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float64])
def test_float_dtypes(aclnn, dtype):
    g = np.array([1.5, 2.0, -3.0], dtype)
    x = np.array([1.0, -1.0, -2.0], dtype)
    out = aclnn.leaky_relu_backward(g, x, 0.25, False)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), [1.5, 0.5, -0.75])


@real_sim
@pytest.mark.parametrize("dtype,name", [(ml_dtypes.float8_e5m2, "FLOAT8_E5M2"), (ml_dtypes.float8_e4m3fn, "FLOAT8_E4M3FN"),
                                        (ml_dtypes.float8_e8m0fnu, "FLOAT8_E8M0")])
def test_float8_arrays_reach_the_library_as_their_acl_dtype(aclnn, dtype, name):
    # ml_dtypes' float8 types are NumPy user dtypes whose kind says little (float8_e5m2 is 'f' of
    # size 1): known by name. LeakyReluBackward's page lists no float8, so phase 1 names the dtype.
    g = np.array([1.0, 2.0], dtype)
    with pytest.raises(aclnn.InvalidParamError, match=f"dtype {name} is not supported"):
        aclnn.leaky_relu_backward(g, g, 0.5, False, out=np.zeros(2, np.float32))


@real_sim
def test_broadcast_output_shape(aclnn):
    out = aclnn.leaky_relu_backward(np.ones((3, 1), np.float32), np.array([1, -1], np.float32), 0.5, False)
    np.testing.assert_allclose(out, [[1, 0.5]] * 3)


def test_dlpack_inputs_and_out(aclnn):
    torch = pytest.importorskip("torch")
    g = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()  # non-contiguous
    x = torch.tensor([[1.0, -1.0, 2.0], [-2.0, 3.0, -3.0]]).t()
    out = torch.zeros(3, 2)
    result = aclnn.leaky_relu_backward(g, x, 0.5, False, out=out)
    assert result is out
    torch.testing.assert_close(out, torch.ops.aten.leaky_relu_backward(g, x, 0.5, False))


@real_sim
def test_dlpack_bfloat16(aclnn):
    torch = pytest.importorskip("torch")
    g = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    x = torch.tensor([1.0, -1.0], dtype=torch.bfloat16)
    out = aclnn.leaky_relu_backward(g, x, 0.5, False)
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(out.astype(np.float32), [1.0, 1.0])


@pytest.mark.parametrize("slope", [0.5, np.float32(0.5), np.float64(0.5), 1, True, np.array(0.5, np.float32)])
def test_scalar_kinds(aclnn, gx, slope):
    g, x = gx
    expected = g * np.where(x > 0, 1.0, float(slope)).astype(np.float32)
    np.testing.assert_allclose(aclnn.leaky_relu_backward(g, x, slope, False), expected, rtol=1e-6)


def test_out_array_is_written_and_returned(aclnn, gx):
    g, x = gx
    out = np.empty_like(g)
    assert aclnn.leaky_relu_backward(g, x, 0.5, False, out=out) is out
    np.testing.assert_allclose(out, g * leaky(x))
    assert aclnn.leaky_relu_backward(g, x, 0.5, False, out=(out,)) is out


def test_strided_out_leaves_the_elements_between_untouched(aclnn, gx):
    g, x = gx
    base = np.full((4, 12), 7.0, np.float32)
    view = base[:, ::2]
    aclnn.leaky_relu_backward(g, x, 0.5, False, out=view)
    np.testing.assert_allclose(view, g * leaky(x))
    assert (base[:, 1::2] == 7.0).all()


def test_read_only_out_is_a_value_error(aclnn, gx):
    g, x = gx
    out = np.empty_like(g)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="'out_'.*read-only"):
        aclnn.leaky_relu_backward(g, x, 0.5, False, out=out)


def test_wrong_shape_out_is_rejected_by_phase_1(aclnn, gx):
    g, x = gx
    with pytest.raises(aclnn.InvalidParamError) as info:
        aclnn.leaky_relu_backward(g, x, 0.5, False, out=np.empty((2, 2), np.float32))
    assert info.value.phase == "GetWorkspaceSize"


def test_out_of_several_arrays_for_one_output_is_a_type_error(aclnn, gx):
    g, x = gx
    with pytest.raises(TypeError, match="out= takes one array"):
        aclnn.leaky_relu_backward(g, x, 0.5, False, out=(g, x))


def test_device_tensors_chain_without_host_copies(aclnn, gx):
    g, x = gx
    tg, tx = aclnn.to_device(g), aclnn.to_device(x)
    before = aclnn._C._stats()
    first = aclnn.leaky_relu_backward(tg, tx, 0.5, False)
    second = aclnn.leaky_relu_backward(first, tx, 0.5, False)
    after = aclnn._C._stats()
    assert isinstance(second, aclnn.Tensor)
    assert after["host_to_device"] == before["host_to_device"]
    assert after["device_to_host"] == before["device_to_host"]
    np.testing.assert_allclose(second.numpy(), g * leaky(x) * leaky(x), rtol=1e-6)


def test_tensor_attributes(aclnn, gx):
    g, _ = gx
    t = aclnn.to_device(g.T)
    assert (t.shape, t.dtype, t.strides, len(t), t.ndim) == ((6, 4), np.float32, (4, 24), 6, 2)
    assert repr(t) == "aclnn.Tensor(shape=(6, 4), dtype=float32)"
    np.testing.assert_array_equal(t.numpy(), g.T)
    np.testing.assert_array_equal(np.asarray(t), g.T)


def test_device_tensor_as_out(aclnn, gx):
    g, x = gx
    out = aclnn.to_device(np.zeros_like(g))
    assert aclnn.leaky_relu_backward(g, x, 0.5, False, out=out) is out
    np.testing.assert_allclose(out.numpy(), g * leaky(x))


def test_help_shows_the_page(aclnn):
    doc = aclnn.leaky_relu_backward.__doc__
    assert "gradOutput (const aclTensor*, in)" in doc and "161001 ACLNN_ERR_PARAM_NULLPTR" in doc
    assert str(inspect.signature(aclnn.leaky_relu_backward)) == \
        "(grad_output, self, negative_slope, self_is_result, *, out=None)"


def test_help_shows_the_python_signature_and_no_pybind11_line(aclnn):
    import pydoc

    text = pydoc.render_doc(aclnn.leaky_relu_backward, renderer=pydoc.plaintext)
    assert "\nleaky_relu_backward(grad_output, self, negative_slope, self_is_result, *, out=None)\n" in text
    assert "pybind11" not in text and "Runs aclnnLeakyReluBackward" in text


def test_backend_and_apis(aclnn):
    backend = aclnn.backend()
    assert backend == "sim" and backend.lib_dir.endswith("_sim") and backend.libraries
    names = [a["python_name"] for a in aclnn.apis()]
    assert "leaky_relu_backward" in names and names == sorted(names, key=lambda n: n)
