"""aclnn's errors: library statuses as AclnnError subclasses, bad arguments as TypeError/ValueError
naming the parameter, and nothing ever crashes or leaks."""

import numpy as np
import pytest

from gen.ir import Soc

from tests.support import bindings_build


@pytest.fixture
def gx():
    return np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)


def test_none_for_a_required_tensor_reaches_the_library_as_null(aclnn, gx):
    g, x = gx
    with pytest.raises(aclnn.NullptrError) as info:
        aclnn.leaky_relu_backward(None, x, 0.5, False)
    e = info.value
    assert (e.status, e.status_name, e.api, e.phase) == \
        (161001, "ACLNN_ERR_PARAM_NULLPTR", "aclnnLeakyReluBackward", "GetWorkspaceSize")
    assert isinstance(e, aclnn.ParamError) and isinstance(e, aclnn.AclnnError)
    assert "gradOutput" in str(e)  # the library's aclGetRecentErrMsg


def test_none_for_a_required_scalar_reaches_the_library_as_null(aclnn, gx):
    with pytest.raises(aclnn.NullptrError):
        aclnn.leaky_relu_backward(*gx, None, False)


def test_unsupported_dtype_reaches_phase_1(aclnn):
    g = np.ones(3, np.int32)
    with pytest.raises(aclnn.InvalidParamError) as info:
        aclnn.leaky_relu_backward(g, g, 0.5, False, out=np.ones(3, np.float32))
    assert info.value.status == 161002 and "gradOutput" in info.value.message


def test_value_check_of_the_page(aclnn, gx):
    with pytest.raises(aclnn.InvalidParamError, match="negativeSlope"):
        aclnn.leaky_relu_backward(*gx, -0.5, True)


def test_rank_nine_is_an_error_not_a_crash(aclnn):
    a = np.ones((1,) * 9, np.float32)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.leaky_relu_backward(a, a, 0.5, False)
    assert info.value.status == 161002


@pytest.mark.parametrize("args,name", [
    ((np.ones(2, np.float32), np.ones(2, np.float32), "0.5", False), "negative_slope"),
    ((np.ones(2, np.float32), np.ones(2, np.float32), 0.5, 1), "self_is_result"),
    ((np.ones(2, np.float32), np.ones(2, np.float32), [0.5], False), "negative_slope"),
    (("abc", np.ones(2, np.float32), 0.5, False), "grad_output"),
    ((np.array(["a", "b"]), np.ones(2, np.float32), 0.5, False), "grad_output"),
    ((np.array([object(), 1]), np.ones(2, np.float32), 0.5, False), "grad_output"),
])
def test_unconvertible_arguments_are_type_errors_naming_the_parameter(aclnn, args, name):
    with pytest.raises(TypeError, match=f"'{name}'"):
        aclnn.leaky_relu_backward(*args)


def test_huge_output_is_an_exception(aclnn):
    g = np.broadcast_to(np.float32(1), (1 << 20, 1 << 20))
    with pytest.raises((MemoryError, aclnn.AclnnError, ValueError)):
        aclnn.leaky_relu_backward(g, g, 0.5, False)


def test_out_for_an_api_without_outputs_and_bad_out_types(aclnn, gx):
    with pytest.raises(TypeError, match="out"):
        aclnn.leaky_relu_backward(*gx, 0.5, False, out=[1.0, 2.0])


def test_invalid_device_is_an_acl_error(aclnn):
    with pytest.raises(aclnn.AclError) as info:
        aclnn.set_device(1000)
    assert info.value.phase == "aclrtSetDevice"
    assert aclnn.get_device() == 0


def test_error_classes_by_family(aclnn):
    from aclnn._errors import error_class

    assert error_class(161001) is aclnn.NullptrError
    assert error_class(161099) is aclnn.ParamError
    assert error_class(361001) is aclnn.AclnnRuntimeError and issubclass(aclnn.AclnnRuntimeError, RuntimeError)
    assert error_class(561103) is aclnn.InnerError
    assert error_class(107001) is aclnn.AclError
    assert aclnn._C.STATUS_NAMES[561103] == "ACLNN_ERR_INNER_NULLPTR"


def test_no_object_outlives_many_calls_including_failing_ones(aclnn, gx):
    g, x = gx
    t = aclnn.to_device(g)
    for _ in range(50):
        aclnn.leaky_relu_backward(g, x, 0.5, False)
        aclnn.leaky_relu_backward(t, t, 0.5, False)
        with pytest.raises(aclnn.AclnnError):
            aclnn.leaky_relu_backward(None, x, 0.5, False)
        with pytest.raises(TypeError):
            aclnn.leaky_relu_backward(g, x, "slope", False)
        with pytest.raises(aclnn.AclnnError):
            aclnn.leaky_relu_backward(g, x, 0.5, False, out=np.empty(7, np.float32))
    del t
    stats = aclnn._C._stats()
    assert (stats["live_objects"], stats["live_buffers"]) == (0, 0)
    assert aclnn.memory_stats()["allocated_bytes"] == 0  # the cache may keep blocks, none in use
    aclnn.empty_cache()
    sim = aclnn.sim_stats()
    if bindings_build.real_simulator():
        assert sim["live_objects"] == 0 and sim["device_allocations"] == 0


def test_the_simulator_can_be_another_chip_and_back(aclnn, gx):
    if not bindings_build.real_simulator():
        pytest.skip("the session's package runs on a fake backend without chips")
    with pytest.raises(ValueError, match="names no chip the simulator knows"):
        aclnn.sim_set_soc("Ascend999")
    before = aclnn.backend().soc
    aclnn.sim_set_soc("Ascend310P")
    try:
        # Set by its family's name, the chip reports its model's, as a real device does.
        assert aclnn.backend().soc == Soc.ASCEND310P.model
    finally:
        aclnn.sim_set_soc(before)
    assert aclnn.backend().soc == before
    # A page's refusal on a chip it does not support: the generated suites' test_unsupported_* tests.
