"""libnnopbase of the simulator: tensors, scalars, arrays, lists, their getters and counters."""

import ctypes

import ml_dtypes
import numpy as np
import pytest

from tests.sim.sim_lib import (ACL_DTYPE, ACL_FLOAT, ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACLNN_SUCCESS, INVALID, NULLPTR, P,
                           _array, session_sim)


@pytest.fixture(scope="module")
def sim():
    return session_sim()


@pytest.fixture
def counts(sim):
    """The live-object counters before a test; the test must leave them as they were."""
    before = sim.stats()
    yield before
    after = sim.stats()
    assert {k: after[k] for k in after if k != "peak_device_bytes"} == \
        {k: before[k] for k in before if k != "peak_device_bytes"}


def test_tensor_keeps_offset_format_and_dtype(sim, counts):
    t = sim.tensor([2, 3], ACL_FLOAT, None, offset=4, format=ACL_FORMAT_NCHW)
    assert t
    assert sim.stats()["tensors"] == counts["tensors"] + 1
    offset, fmt, dtype = ctypes.c_int64(), ctypes.c_int(), ctypes.c_int()
    assert sim.aclGetViewOffset(t, ctypes.byref(offset)) == ACLNN_SUCCESS and offset.value == 4
    assert sim.aclGetFormat(t, ctypes.byref(fmt)) == ACLNN_SUCCESS and fmt.value == ACL_FORMAT_NCHW
    assert sim.aclGetDataType(t, ctypes.byref(dtype)) == ACLNN_SUCCESS and dtype.value == ACL_FLOAT
    assert sim.aclDestroyTensor(t) == ACLNN_SUCCESS


def test_init_tensor_redescribes_a_live_tensor(sim, counts):
    t = sim.tensor([2], ACL_FLOAT, None)
    dims = _array(ctypes.c_int64, [5, 5])
    assert sim.aclInitTensor(t, dims, 2, 1, None, 0, ACL_FORMAT_ND, dims, 2, None) == ACLNN_SUCCESS
    dtype = ctypes.c_int()
    assert sim.aclGetDataType(t, ctypes.byref(dtype)) == ACLNN_SUCCESS and dtype.value == 1
    assert sim.aclDestroyTensor(t) == ACLNN_SUCCESS
    assert sim.aclInitTensor(t, dims, 2, 1, None, 0, ACL_FORMAT_ND, dims, 2, None) == INVALID


@pytest.mark.parametrize("case,message", [
    (dict(dims=None, count=2), "viewDims is a null pointer"),
    (dict(dims=[2, -1]), "negative"),
    (dict(dims=[1] * 40), "at most 32"),
    (dict(dtype=99), "not a tensor dtype"),
    (dict(dtype=-2), "not a tensor dtype"),
    (dict(format=123), "not an aclFormat"),
    (dict(dims=[1 << 40, 1 << 40]), "more elements than int64"),
    (dict(dims=[4, 3], strides=[1 << 62, 1]), "int64 element offsets"),
])
def test_invalid_tensor_arguments_give_null_and_a_message(sim, counts, case, message):
    dims = case.get("dims", [2, 3])
    count = case.get("count", len(dims) if dims is not None else 0)
    strides = case.get("strides")
    t = sim.aclCreateTensor(_array(ctypes.c_int64, dims) if dims is not None else None, count,
                            case.get("dtype", ACL_FLOAT), _array(ctypes.c_int64, strides) if strides else None, 0,
                            case.get("format", ACL_FORMAT_ND), None, 0, None)
    assert t is None
    assert message in sim.error()


def test_rank_nine_tensors_exist_for_the_ops_to_reject(sim, counts):
    t = sim.tensor([1] * 9, ACL_FLOAT, None)
    assert t
    assert sim.aclDestroyTensor(t) == ACLNN_SUCCESS


def test_destroying_null_is_fine_and_twice_is_an_error(sim, counts):
    for destroy in ("aclDestroyTensor", "aclDestroyScalar", "aclDestroyIntArray", "aclDestroyFloatArray",
                    "aclDestroyBoolArray", "aclDestroyTensorList", "aclDestroyScalarList"):
        assert getattr(sim, destroy)(None) == ACLNN_SUCCESS
    t = sim.tensor([1], ACL_FLOAT, None)
    assert sim.aclDestroyTensor(t) == ACLNN_SUCCESS
    assert sim.aclDestroyTensor(t) == INVALID
    assert "not a live aclTensor" in sim.error()


def test_a_handle_of_another_kind_is_unknown(sim, counts):
    t = sim.tensor([1], ACL_FLOAT, None)
    assert sim.aclDestroyScalar(t) == INVALID
    assert sim.aclDestroyTensor(t) == ACLNN_SUCCESS


@pytest.mark.parametrize("dtype,value", [
    (np.float32, 1.5), (np.float16, -2.0), (ml_dtypes.bfloat16, 3.0), (np.float64, 1e300), (np.int8, -7),
    (np.int16, 300), (np.int32, -70000), (np.int64, 1 << 40), (np.uint8, 200), (np.uint16, 60000),
    (np.uint32, 1 << 31), (np.uint64, 1 << 63), (np.bool_, True), (np.complex64, 1 + 2j), (np.complex128, -3j),
])
def test_scalars_of_every_dtype_copy_their_value(sim, counts, dtype, value):
    box = np.array([value], dtype=dtype)
    s = sim.aclCreateScalar(box.ctypes.data, ACL_DTYPE[box.dtype])
    assert s
    box[0] = 0  # the scalar holds a copy
    assert sim.stats()["scalars"] == counts["scalars"] + 1
    assert sim.aclDestroyScalar(s) == ACLNN_SUCCESS


@pytest.mark.parametrize("dtype", [35, 36, 34, 29])  # FLOAT8_E5M2, FLOAT8_E4M3FN, HIFLOAT8, INT4
def test_scalars_of_low_precision_dtypes_exist(sim, counts, dtype):
    byte = ctypes.c_uint8(0x3c)
    s = sim.aclCreateScalar(ctypes.addressof(byte), dtype)
    assert s
    assert sim.aclDestroyScalar(s) == ACLNN_SUCCESS


def test_scalar_of_null_or_unknown_dtype_is_refused(sim, counts):
    value = ctypes.c_float(1)
    assert sim.aclCreateScalar(None, ACL_FLOAT) is None and "null pointer" in sim.error()
    assert sim.aclCreateScalar(ctypes.addressof(value), 13) is None  # STRING
    assert sim.aclCreateScalar(ctypes.addressof(value), 5) is None


@pytest.mark.parametrize("create,size_of,destroy,ctype,values", [
    ("aclCreateIntArray", "aclGetIntArraySize", "aclDestroyIntArray", ctypes.c_int64, [1, -2, 3]),
    ("aclCreateFloatArray", "aclGetFloatArraySize", "aclDestroyFloatArray", ctypes.c_float, [0.5, 1.5]),
    ("aclCreateBoolArray", "aclGetBoolArraySize", "aclDestroyBoolArray", ctypes.c_bool, [True, False, True, True]),
])
def test_arrays_copy_their_values_and_report_their_size(sim, counts, create, size_of, destroy, ctype, values):
    array = getattr(sim, create)(_array(ctype, values), len(values))
    assert array
    size = ctypes.c_uint64()
    assert getattr(sim, size_of)(array, ctypes.byref(size)) == ACLNN_SUCCESS and size.value == len(values)
    assert getattr(sim, destroy)(array) == ACLNN_SUCCESS
    assert getattr(sim, destroy)(array) == INVALID


def test_empty_arrays_may_have_a_null_pointer(sim, counts):
    array = sim.aclCreateIntArray(None, 0)
    assert array
    assert sim.aclDestroyIntArray(array) == ACLNN_SUCCESS
    assert sim.aclCreateIntArray(None, 3) is None and "null pointer" in sim.error()


def test_size_getters_check_their_arguments(sim, counts):
    size = ctypes.c_uint64()
    assert sim.aclGetIntArraySize(None, ctypes.byref(size)) == NULLPTR
    array = sim.aclCreateIntArray(None, 0)
    assert sim.aclGetIntArraySize(array, None) == NULLPTR
    assert sim.aclDestroyIntArray(array) == ACLNN_SUCCESS
    assert sim.aclGetIntArraySize(array, ctypes.byref(size)) == INVALID


def test_tensor_list_owns_its_tensors(sim, counts):
    a, b = sim.tensor([2], ACL_FLOAT, None), sim.tensor([3], ACL_FLOAT, None)
    items = (P * 3)(a, None, b)
    tensors = sim.aclCreateTensorList(items, 3)
    assert tensors
    size = ctypes.c_uint64()
    assert sim.aclGetTensorListSize(tensors, ctypes.byref(size)) == ACLNN_SUCCESS and size.value == 3
    assert sim.aclDestroyTensor(a) == INVALID and "belongs to a tensor list" in sim.error()
    assert sim.aclCreateTensorList(items, 3) is None and "already belongs" in sim.error()
    assert sim.aclDestroyTensorList(tensors) == ACLNN_SUCCESS
    assert sim.stats()["tensors"] == counts["tensors"]  # the list destroyed a and b


def test_tensor_list_refuses_dead_or_repeated_tensors(sim, counts):
    a = sim.tensor([2], ACL_FLOAT, None)
    assert sim.aclCreateTensorList((P * 2)(a, a), 2) is None and "appears twice" in sim.error()
    assert sim.aclDestroyTensor(a) == ACLNN_SUCCESS
    assert sim.aclCreateTensorList((P * 1)(a), 1) is None and "not a live aclTensor" in sim.error()


def test_scalar_list_owns_its_scalars(sim, counts):
    s = sim.scalar(1.0, np.float32)
    scalars = sim.aclCreateScalarList((P * 1)(s), 1)
    assert scalars
    assert sim.aclDestroyScalar(s) == INVALID
    size = ctypes.c_uint64()
    assert sim.aclGetScalarListSize(scalars, ctypes.byref(size)) == ACLNN_SUCCESS and size.value == 1
    assert sim.aclDestroyScalarList(scalars) == ACLNN_SUCCESS


def test_live_objects_count_what_is_made_and_destroyed(sim):
    # A baseline, not 0: the bindings, when loaded in this process, keep descriptors and scalars of
    # the same simulator for reuse.
    before = sim.aclsimLiveObjects()
    made = [sim.tensor([1], ACL_FLOAT, None), sim.scalar(2, np.int64)]
    assert sim.aclsimLiveObjects() == before + 2
    assert sim.aclDestroyTensor(made[0]) == ACLNN_SUCCESS
    assert sim.aclDestroyScalar(made[1]) == ACLNN_SUCCESS
    assert sim.aclsimLiveObjects() == before


def test_an_undefined_dtype_makes_a_tensor_that_phase_1_rejects(sim):
    # CANN's aclCreateTensor takes ACL_DT_UNDEFINED; the operator's dtype check refuses it (161002),
    # so a call with one is an invalid parameter, not a null pointer (161001).
    handle = sim.tensor([2], -1, None)
    assert handle, sim.error()
    assert sim.aclDestroyTensor(handle) == ACLNN_SUCCESS
