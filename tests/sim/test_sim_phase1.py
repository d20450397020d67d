"""Phase 1 (aclnnXxxGetWorkspaceSize) of the generated entries: CANN's checks, in CANN's order,
with the page's status for every row of each seed's error table and a message naming the
parameter and the rule."""

import ctypes
import subprocess
import sys
from contextlib import contextmanager

import numpy as np
import pytest

from gen import abi
from gen.ir import ErrorCategory
from gen.locations import REPOSITORY
from tests.support import sim_seed_ir
from tests.sim.sim_lib import (
    ACL_BF16, ACL_BOOL, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NC1HWC0,
    ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_INT8, ACL_INT32, ACL_INT64, INVALID, NULLPTR, P, _array, session_sim,
    subprocess_env,
)

F = ACL_FLOAT
INNER_NULLPTR = abi.status_code("ACLNN_ERR_INNER_NULLPTR")


@pytest.fixture(scope="module")
def sim():
    return session_sim()


class Objects:
    """Handles made for one test, destroyed at its end (phase 1 needs no device memory)."""

    def __init__(self, sim):
        self.sim = sim
        self.tensors, self.scalars, self.other = [], [], []

    def t(self, shape, dtype=F, fmt=ACL_FORMAT_ND):
        handle = self.sim.tensor(shape, dtype, None, format=fmt)
        assert handle, self.sim.error()
        self.tensors.append(handle)
        return handle

    def s(self, value, dtype=np.float32):
        handle = self.sim.scalar(value, dtype)
        assert handle
        self.scalars.append(handle)
        return handle

    def close(self):
        for handle in self.tensors:
            assert self.sim.aclDestroyTensor(handle) == 0
        for handle in self.scalars:
            assert self.sim.aclDestroyScalar(handle) == 0
        for destroy, handle in self.other:
            assert getattr(self.sim, destroy)(handle) == 0


@pytest.fixture
def objs(sim):
    # A baseline, not 0: the bindings, when loaded in this process, keep descriptors and scalars of
    # the same simulator for reuse.
    before = sim.aclsimLiveObjects()
    made = Objects(sim)
    yield made
    made.close()
    assert sim.aclsimLiveObjects() == before


@contextmanager
def soc(sim, name):
    assert sim.aclsimSetSoc(name.encode()) == 0
    try:
        yield
    finally:
        assert sim.aclsimSetSoc(b"Ascend910B") == 0


def phase1(sim, api, *args):
    status, _, executor = sim.phase1(api, *args)
    if status == 0:
        assert sim.aclDestroyAclOpExecutor(executor) == 0
    return status


# --- the seeds' error tables, row by row ----------------------------------------------------------

def leaky_args(o, **change):
    args = dict(gradOutput=o.t([2, 3]), self=o.t([2, 3]), negativeSlope=o.s(0.01), selfIsResult=False,
                out=o.t([2, 3]))
    args.update(change)
    return [args[k] for k in ("gradOutput", "self", "negativeSlope", "selfIsResult", "out")]


def hardsigmoid_args(o, **change):
    args = dict(gradOutput=o.t([4, 2]), self=o.t([4, 2]), out=o.t([4, 2]))
    args.update(change)
    return [args[k] for k in ("gradOutput", "self", "out")]


def selu_args(o, **change):
    args = dict(gradOutput=o.t([4, 2]), result=o.t([4, 2]), gradInput=o.t([4, 2]))
    args.update(change)
    return [args[k] for k in ("gradOutput", "result", "gradInput")]


ARGS = {"aclnnLeakyReluBackward": leaky_args, "aclnnHardsigmoidBackward": hardsigmoid_args,
        "aclnnSeluBackward": selu_args}


def provocations(api, row, o):
    """Argument lists that each violate `row` of `api`'s error table (and nothing before it)."""
    make = ARGS[api]
    if row.category is ErrorCategory.NULL_POINTER:
        return {p: make(o, **{p: None}) for p in row.params}
    if row.category is ErrorCategory.UNSUPPORTED_DTYPE:
        cases = {}
        for p in row.params:
            if p == "negativeSlope":
                cases[p] = make(o, negativeSlope=o.s(1 + 1j, np.complex64))
            else:  # every tensor of these pages refuses INT64
                cases[p] = make(o, **{p: o.t([2, 3] if api == "aclnnLeakyReluBackward" else [4, 2], ACL_INT64)})
        return cases
    if row.category is ErrorCategory.RANK:
        return {p: make(o, **{p: o.t([1] * 9)}) for p in row.params}
    if row.category in (ErrorCategory.SHAPE_MISMATCH, ErrorCategory.BROADCAST):
        return {p: make(o, **{p: o.t([3, 5])}) for p in row.params}
    if row.category is ErrorCategory.VALUE:
        return {"negative slope": make(o, negativeSlope=o.s(-0.5), selfIsResult=True)}
    if row.category is ErrorCategory.NOT_CASTABLE:
        if api == "aclnnSeluBackward":  # 数据类型推导规则: the three must share a dtype
            return {p: make(o, **{p: o.t([4, 2], ACL_FLOAT16)}) for p in row.params}
        # Every dtype these pages list for out is castable from every promoted input dtype, so an
        # out the promotion cannot reach is refused by out's dtype list, with the same status.
        return {"out": make(o, out=o.t([4, 2], ACL_INT8))}
    raise AssertionError(f"no provocation for {api}: {row.category}")


SEED_ROWS = [(api.name, index) for page in sim_seed_ir.seed_pages() for api in page.apis
             for index in range(len(api.errors))]


@pytest.mark.parametrize("api,index", SEED_ROWS, ids=[f"{a}-row{i}" for a, i in SEED_ROWS])
def test_every_error_table_row_returns_its_status(sim, objs, api, index):
    row = sim.model.api(api).api.errors[index]
    for what, args in provocations(api, row, objs).items():
        assert phase1(sim, api, *args) == row.code, f"{what}: {sim.error()}"
        assert sim.error().startswith(api + ":"), sim.error()


def test_the_seeds_accept_their_examples_arguments(sim, objs):
    for api, make in ARGS.items():
        assert phase1(sim, api, *make(objs)) == 0, sim.error()


# --- messages name the parameter and the rule -------------------------------------------------

def test_null_message_names_the_parameter(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(objs, negativeSlope=None)) == NULLPTR
    assert sim.error() == "aclnnLeakyReluBackward: negativeSlope is a null pointer"


def test_dtype_message_lists_the_supported_dtypes_and_cites_the_parameters_row(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(objs, self=objs.t([2, 3], ACL_INT32))) == INVALID
    assert sim.error() == ("aclnnLeakyReluBackward: self: dtype INT32 is not supported on Ascend910B "
                           "(supported: FLOAT, FLOAT16, DOUBLE, BFLOAT16) (op_docs/leaky_relu_backward.md:83)")


def test_rank_message_gives_the_bounds_and_cites_the_parameters_row(sim, objs):
    nine = [1] * 9
    assert phase1(sim, "aclnnSeluBackward", *selu_args(objs, result=objs.t(nine))) == INVALID
    assert sim.error() == "aclnnSeluBackward: result: rank 9 is outside [0, 8] (op_docs/selu_backward.md:95)"


def test_a_0d_tensor_passes_where_the_page_says_1_to_8(sim, objs):
    # "支持1-8维": CANN's implementations check the maximum alone (CHECK_MAX_DIM) and take 0-d tensors.
    assert phase1(sim, "aclnnSeluBackward", *selu_args(objs, gradOutput=objs.t([]), result=objs.t([]),
                                                        gradInput=objs.t([]))) == 0, sim.error()


def test_empty_tensor_where_the_page_forbids_it(sim, objs):
    empty = [objs.t([0, 2]) for _ in range(3)]
    assert phase1(sim, "aclnnSeluBackward", *empty) == INVALID
    assert "result: empty tensors are not supported (shape [0,2]) (op_docs/selu_backward.md:95)" in sim.error()


def test_empty_tensors_where_the_page_allows_them(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(
        objs, gradOutput=objs.t([0, 3]), self=objs.t([0, 3]), out=objs.t([0, 3]))) == 0


def test_broadcast_output_must_be_the_broadcast_shape(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(
        objs, gradOutput=objs.t([3]), self=objs.t([2, 1]), out=objs.t([2, 3]))) == 0
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(
        objs, gradOutput=objs.t([3]), self=objs.t([2, 1]), out=objs.t([4, 2, 3]))) == INVALID
    assert "out: shape [4,2,3] is not the broadcast shape [2,3] of gradOutput and self" in sim.error()


def test_same_shape_message(sim, objs):
    assert phase1(sim, "aclnnHardsigmoidBackward", *hardsigmoid_args(objs, self=objs.t([8]))) == INVALID
    assert "gradOutput: shape [4,2] differs from self's shape [8]" in sim.error()


def test_same_dtype_message(sim, objs):
    assert phase1(sim, "aclnnSeluBackward", *selu_args(objs, gradInput=objs.t([4, 2], ACL_FLOAT16))) == INVALID
    assert "gradOutput: dtype FLOAT differs from gradInput's dtype FLOAT16" in sim.error()


def test_mixed_float_dtypes_promote(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(
        objs, gradOutput=objs.t([2, 3], ACL_BF16), self=objs.t([2, 3], ACL_FLOAT16),
        out=objs.t([2, 3], ACL_DOUBLE))) == 0


def test_unknown_handles_are_refused(sim, objs):
    assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(objs, self=0x5100000000000ff0)) == INVALID
    assert sim.error() == "aclnnLeakyReluBackward: self is not a live aclTensor"


def test_workspace_size_and_executor_pointers_are_required(sim, objs):
    bound = sim.model.api("aclnnHardsigmoidBackward").api
    fn = sim._find(bound.workspace_fn)
    fn.argtypes = [P, P, P, P, P]
    executor = P()
    assert fn(*hardsigmoid_args(objs), None, ctypes.byref(executor)) == NULLPTR
    assert "workspaceSize is a null pointer" in sim.error()
    size = ctypes.c_uint64()
    assert fn(*hardsigmoid_args(objs), ctypes.byref(size), None) == NULLPTR


# --- the simulated chip ---------------------------------------------------------------------------

def test_a_chip_the_page_marks_unsupported_is_refused_after_null_pointers(sim, objs):
    with soc(sim, "Ascend950"):
        args = [objs.t([4, 2]) for _ in range(3)]
        assert phase1(sim, "aclnnSeluBackward", *args) == INVALID
        # The citation is the product table's row, as every page rule's refusal cites its line.
        assert sim.error() == ("aclnnSeluBackward is not supported on Ascend950: the page marks Ascend 950PR/Ascend 950DT "
                               "unsupported (op_docs/selu_backward.md:9)")
        # CANN checks its pointers first (CHECK_NOT_NULL precedes every other check).
        assert phase1(sim, "aclnnSeluBackward", None, None, None) == NULLPTR


def test_a_chip_the_page_does_not_list_is_not_refused(sim, objs):
    with soc(sim, "Ascend950"):
        assert phase1(sim, "aclnnLeakyReluBackward", *leaky_args(objs)) == 0


def test_dtypes_by_product(sim, objs):
    bf16 = [objs.t([4, 2], ACL_BF16) for _ in range(3)]
    assert phase1(sim, "aclnnSeluBackward", *bf16) == 0
    with soc(sim, "Ascend910A"):  # Atlas 训练系列产品: FLOAT, FLOAT16, INT32, INT8 only
        assert phase1(sim, "aclnnSeluBackward", *bf16) == INVALID
        assert "dtype BFLOAT16 is not supported on Ascend910 (supported: FLOAT, FLOAT16, INT8, INT32)" in sim.error()


# --- the generic checks, on test-only APIs --------------------------------------------------------

def test_private_formats_pass_only_when_listed(sim, objs):
    def formats(self_fmt, other_fmt):
        return phase1(sim, "aclnnSimTestFormats", objs.t([2], fmt=self_fmt), objs.t([2], fmt=other_fmt), objs.t([2]))

    assert formats(ACL_FORMAT_NC1HWC0, ACL_FORMAT_ND) == 0
    assert formats(ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NCHW) == 0  # ND admits every plain layout
    assert formats(ACL_FORMAT_ND, ACL_FORMAT_ND) == INVALID
    assert "self: format ND is not supported (supported: NC1HWC0, FRACTAL_NZ)" in sim.error()
    assert formats(ACL_FORMAT_NC1HWC0, ACL_FORMAT_NC1HWC0) == INVALID
    assert "other: format NC1HWC0 is not supported" in sim.error()


def test_an_output_the_null_row_leaves_out_fails_last_as_an_inner_error(sim, objs):
    assert phase1(sim, "aclnnSimTestInnerNull", objs.t([2]), None) == INNER_NULLPTR
    assert "out is a null pointer" in sim.error()
    assert phase1(sim, "aclnnSimTestInnerNull", None, objs.t([2])) == NULLPTR
    # CANN's other checks come first: a dtype the page does not list is refused before.
    assert phase1(sim, "aclnnSimTestInnerNull", objs.t([2], ACL_INT8), None) == INVALID


def test_not_castable_output(sim, objs):
    assert phase1(sim, "aclnnSimTestCast", objs.t([2]), objs.t([2], ACL_INT8)) == INVALID
    assert sim.error() == ("aclnnSimTestCast: out: dtype INT8 is not castable from the promoted dtype FLOAT of self "
                           "(互转换关系)")
    assert phase1(sim, "aclnnSimTestCast", objs.t([2]), objs.t([2], ACL_BOOL)) == INVALID
    assert phase1(sim, "aclnnSimTestCast", objs.t([2]), objs.t([2], ACL_FLOAT16)) == 0


def test_no_promoted_dtype(sim, objs):
    assert phase1(sim, "aclnnSimTestAdd", objs.t([2], ACL_INT8), objs.t([2], 7), objs.s(1), objs.t([2])) == INVALID
    assert "no promoted dtype (互推导关系)" in sim.error()


def test_value_checks_see_every_parameter_kind(sim, objs):
    sim_ = sim
    ints = sim_.aclCreateIntArray(_array(ctypes.c_int64, [1, 2]), 2)
    floats = sim_.aclCreateFloatArray(_array(ctypes.c_float, [-1.0]), 1)
    bools = sim_.aclCreateBoolArray(_array(ctypes.c_bool, [False]), 1)
    listed = sim_.aclCreateTensorList((P * 1)(sim_.tensor([3], F, None)), 1)
    scalars = sim_.aclCreateScalarList((P * 1)(sim_.scalar(11.0, np.float32)), 1)
    objs.other += [("aclDestroyIntArray", ints), ("aclDestroyFloatArray", floats), ("aclDestroyBoolArray", bools),
                   ("aclDestroyTensorList", listed), ("aclDestroyScalarList", scalars)]

    def kinds(**change):
        args = dict(self=objs.t([2, 2]), dims=ints, weights=None, mask=None, tensors=listed, scalars=None,
                    mode=None, dtype=ACL_FLOAT, count=1, eps=0.1, out=objs.t([2, 2]))
        args.update(change)
        return phase1(sim, "aclnnSimTestKinds", *args.values())

    assert kinds() == 0
    assert kinds(self=objs.t([2])) == INVALID and "dims must have one entry per dimension of self" in sim.error()
    assert kinds(weights=floats) == INVALID and "weights must not start negative" in sim.error()
    assert kinds(mask=bools) == INVALID and "mask[0] must be true" in sim.error()
    assert kinds(scalars=scalars) == INVALID and "scalars[0] must be at most 10" in sim.error()
    assert kinds(mode=b"xyz") == INVALID and "mode must not start with x" in sim.error()
    assert kinds(count=5000) == NULLPTR and "count must be at most 1000" in sim.error()  # the check's own status
    assert kinds(eps=0.0) == INVALID and "eps must be positive" in sim.error()
    assert kinds(dtype=ACL_DOUBLE) == INVALID and "dtype: dtype DOUBLE is not supported" in sim.error()
    assert kinds(dims=None) == NULLPTR and "dims is a null pointer" in sim.error()


def test_tensor_list_elements_are_checked(sim, objs):
    ints = sim.aclCreateIntArray(_array(ctypes.c_int64, [1, 2]), 2)
    bad = sim.aclCreateTensorList((P * 2)(sim.tensor([3], F, None), sim.tensor([1, 1, 1], F, None)), 2)
    objs.other += [("aclDestroyIntArray", ints), ("aclDestroyTensorList", bad)]
    args = [objs.t([2, 2]), ints, None, None, bad, None, None, ACL_FLOAT, 1, 0.1, objs.t([2, 2])]
    assert phase1(sim, "aclnnSimTestKinds", *args) == INVALID
    assert "tensors[1]: rank 3 is outside [1, 2]" in sim.error()


def test_unsupported_product_of_a_test_page(sim, objs):
    with soc(sim, "Ascend310P3"):
        assert phase1(sim, "aclnnSimTestCast", objs.t([2]), objs.t([2])) == INVALID
        assert "marks Atlas 推理系列产品 unsupported" in sim.error()


# --- rules of the elementwise engine the pages state in prose -------------------------------------

def test_an_output_related_to_one_input_has_the_broadcast_of_the_inputs_that_one_broadcasts_with(sim, objs):
    args = [objs.t([2, 1, 4]), objs.t([3, 1])]
    assert phase1(sim, "aclnnSimTestChainedBroadcast", *args, objs.t([2, 3, 4])) == 0


def test_an_output_of_only_its_related_inputs_shape_is_rejected_when_another_broadcasts_in(sim, objs):
    args = [objs.t([2, 1, 4]), objs.t([3, 1])]
    assert phase1(sim, "aclnnSimTestChainedBroadcast", *args, objs.t([2, 1, 4])) == INVALID
    assert "not the broadcast shape [2,3,4]" in sim.error()


def test_a_complex_scalar_to_a_real_computation_is_rejected(sim, objs):
    alpha = objs.s(1.0, np.complex64)
    assert phase1(sim, "aclnnSimTestAdd", objs.t([2]), objs.t([2]), alpha, objs.t([2])) == INVALID
    assert "COMPLEX64 scalar cannot be cast" in sim.error()


# --- the page's shape status, and bounds by the dimension an element stands for -------------------

TILING = abi.status_code("ACLNN_ERR_INNER_TILING_ERROR")


def shape_status_call(sim, objs, kernel, other=(3, 4)):
    array = sim.aclCreateIntArray(_array(ctypes.c_int64, kernel), len(kernel))
    objs.other.append(("aclDestroyIntArray", array))
    return phase1(sim, "aclnnSimTestShapeStatus", objs.t([3, 4]), objs.t(list(other)), array, objs.t([3, 4]))


# (9, 9, 9): a length that stands for no known dimensions is the length rules' to judge, not this bound's.
@pytest.mark.parametrize("kernel", [(3,), (3, 4), (1, 4), (9, 9, 9)])
def test_a_window_within_the_dimensions_it_stands_for_is_accepted(sim, objs, kernel):
    assert shape_status_call(sim, objs, kernel) == 0, sim.error()


@pytest.mark.parametrize("kernel, message", [
    # one value for both dimensions: the first (3) bounds it as well as the second (4)
    ((4,), "kernel[0]: 4 is outside (-inf, 3] (tests/sim/sim_test_ops.md:40)"),
    ((3, 5), "kernel[1]: 5 is outside (-inf, 4] (tests/sim/sim_test_ops.md:40)"),
])
def test_a_window_beyond_the_dimension_it_stands_for_is_refused(sim, objs, kernel, message):
    assert shape_status_call(sim, objs, kernel) == INVALID
    assert sim.error().endswith(message)


def test_shapes_that_disagree_answer_the_pages_shape_status(sim, objs):
    assert shape_status_call(sim, objs, (3,), other=(3, 5)) == TILING
    assert "differs from" in sim.error()


# --- CANN's conventions and the page's cross-parameter rules (aclnnSimTestRules) ------------------

ACL_DT_UNDEFINED = -1


def rules_args(o, **change):
    args = dict(self=o.t([3, 4]), weight=o.t([4, 2]), biasOptional=None, alpha=o.s(1.0), dim=1, reduction=0,
                out=o.t([3, 4]))
    args.update(change)
    return list(args.values())


def test_rules_accept_a_call_that_keeps_them(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs)) == 0, sim.error()


def test_an_undefined_dtype_is_an_invalid_parameter_not_a_null_pointer(sim, objs):
    undefined = sim.tensor([3, 4], ACL_DT_UNDEFINED, None)
    assert undefined, sim.error()
    objs.tensors.append(undefined)
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, self=undefined)) == INVALID
    assert "self: dtype ACL_DT_UNDEFINED is not a data type" in sim.error()


def test_a_host_scalar_takes_any_dtype_unless_an_error_row_names_it(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, alpha=objs.s(2, np.int32))) == 0, sim.error()


def test_a_reserved_parameter_must_be_null(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, biasOptional=objs.t([4]))) == INVALID
    assert "biasOptional is a reserved parameter" in sim.error()
    # An empty tensor counts as the null pointer (op-plugin's at::empty({0}) for a reserved x1Offset).
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, biasOptional=objs.t([0]))) == 0, sim.error()


def test_dtype_combinations_per_chip(sim, objs):
    def call(self_dtype, weight_dtype):
        return phase1(sim, "aclnnSimTestRules",
                      *rules_args(objs, self=objs.t([3, 4], self_dtype), weight=objs.t([4, 2], weight_dtype)))

    assert call(ACL_FLOAT16, ACL_FLOAT16) == 0, sim.error()  # line 21: weight as self, on Ascend910B
    assert call(ACL_FLOAT16, ACL_FLOAT) == INVALID
    assert "the dtypes (self FLOAT16, weight FLOAT, out FLOAT) are none of the combinations" in sim.error()
    assert "tests/sim/sim_test_ops.md:20)" in sim.error()
    with soc(sim, "Ascend910_93"):  # line 21 is not this chip's: only line 20 applies
        assert call(ACL_FLOAT16, ACL_FLOAT16) == INVALID
        assert call(ACL_FLOAT, ACL_FLOAT) == 0


def test_formats_that_must_agree(sim, objs):
    # Plain layouts agree with each other: self is ND, and ND accepts every plain layout.
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, weight=objs.t([4, 2], fmt=ACL_FORMAT_NCHW))) == 0, \
        sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, weight=objs.t([4, 2], fmt=ACL_FORMAT_NC1HWC0))) == INVALID
    assert "weight: format NC1HWC0 differs from self's format ND" in sim.error()


def test_a_dim_outside_minus_rank_to_rank(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, dim=-2)) == 0
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, dim=2)) == INVALID
    assert sim.error().endswith("dim: 2 is outside [-2, 2) (tests/sim/sim_test_ops.md:22)")


def test_a_bound_that_is_another_arguments_value(sim, objs):
    # "传入的min大于max" (aclnnHistc): alpha, a scalar, at most dim + 10.
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, alpha=objs.s(11.0))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, alpha=objs.s(12.0))) == INVALID
    assert sim.error().endswith("alpha: 12 is outside (-inf, 11] (tests/sim/sim_test_ops.md:26)")


def test_a_set_of_values_with_gaps(sim, objs):
    # "仅支持0、1、2、5": 3 is between two of them, and refused.
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=5, dim=0, out=objs.t([1]))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=3, out=objs.t([1]))) == INVALID
    assert sim.error().endswith("reduction: 3 is none of {0, 1, 2, 5} (tests/sim/sim_test_ops.md:27)")


def test_a_range_of_one_chip(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, dim=-1)) == 0, sim.error()
    with soc(sim, "Ascend910_93"):
        assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, dim=-1)) == INVALID
        assert sim.error().endswith("dim: -1 is outside [0, inf) (tests/sim/sim_test_ops.md:28)")


def test_a_range_under_another_arguments_value(sim, objs):
    # "reduction为5时，dim小于等于0": dim 1 is refused then only.
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=2, out=objs.t([1]))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=5, out=objs.t([1]))) == INVALID
    assert sim.error().endswith("dim: 1 is outside (-inf, 0] (tests/sim/sim_test_ops.md:29)")


def test_a_range_answered_with_the_error_tables_status(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, alpha=objs.s(-200.0))) == 561002
    assert sim.error().endswith("alpha: -200 is outside [-100, inf) (tests/sim/sim_test_ops.md:30)")


def test_a_nan_lies_in_no_range_of_numbers(sim, objs):
    # CANN checks a range as the condition a value meets (OP_CHECK(p >= 0 && ...)), which NaN fails; the bound
    # of line 26 (dim + 10, another argument's value) is a comparison that NaN does not break, line 30's [-100,
    # inf) refuses it.
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, alpha=objs.s(float("nan")))) == 561002
    assert sim.error().endswith("alpha: nan is outside [-100, inf) (tests/sim/sim_test_ops.md:30)")


def test_a_dimension_equal_to_another_tensors(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, weight=objs.t([6, 2]))) == INVALID
    assert "weight: dimension 0 (6) differs from dimension -1 of self (4) (tests/sim/sim_test_ops.md:23)" in sim.error()


def test_a_dimension_that_must_divide(sim, objs):
    args = rules_args(objs, self=objs.t([3, 5]), weight=objs.t([5, 2]), out=objs.t([3, 5]))
    assert phase1(sim, "aclnnSimTestRules", *args) == INVALID
    assert "self: dimension -1 (5) is not a multiple of 2" in sim.error()


def test_a_dimension_that_must_divide_under_a_dtype(sim, objs):
    # self [2, 4]: a multiple of 3 only where self is FLOAT16; the row of FLOAT16 self has FLOAT out.
    f16 = dict(self=objs.t([2, 4], ACL_FLOAT16), weight=objs.t([4, 2], ACL_FLOAT16), out=objs.t([2, 4]))
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, **{**f16, "self": objs.t([3, 4], ACL_FLOAT16),
                                                                "out": objs.t([3, 4])})) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, self=objs.t([2, 4]), out=objs.t([2, 4]))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, **f16)) == 561002
    assert "self: dimension 0 (2) is not a multiple of 3 (tests/sim/sim_test_ops.md:31)" in sim.error()


def test_a_least_length_in_bytes_of_one_chip(sim, objs):
    # self [3, 2] of FLOAT spans 8 bytes on its last axis: too short on Ascend910_93 only.
    args = rules_args(objs, self=objs.t([3, 2]), weight=objs.t([2, 2]), out=objs.t([3, 2]))
    assert phase1(sim, "aclnnSimTestRules", *args) == 0, sim.error()
    with soc(sim, "Ascend910_93"):
        assert phase1(sim, "aclnnSimTestRules", *args) == INVALID
        assert sim.error().endswith("self: dimension -1 spans 2 x 4 bytes, less than 16 on this chip "
                                    "(tests/sim/sim_test_ops.md:32)")
        assert phase1(sim, "aclnnSimTestRules", *rules_args(objs)) == 0, sim.error()  # [3, 4]: 16 bytes


def test_an_alignment_in_bytes_of_one_chip(sim, objs):
    # weight [4, 3] of FLOAT spans 12 bytes on its last axis: not 8-byte aligned, which Ascend910_93 asks.
    args = rules_args(objs, weight=objs.t([4, 3]))
    assert phase1(sim, "aclnnSimTestRules", *args) == 0, sim.error()
    with soc(sim, "Ascend910_93"):
        assert phase1(sim, "aclnnSimTestRules", *args) == INVALID
        assert sim.error().endswith("weight: dimension -1 spans 3 x 4 bytes, not a multiple of 8 on this chip "
                                    "(tests/sim/sim_test_ops.md:33)")


def test_a_least_length_in_bytes_of_a_whole_tensor(sim, objs):
    # out [3, 4] of FLOAT spans 48 bytes in all; one element (reduction 1), 4: short of the 40 Ascend910_93 asks.
    one = rules_args(objs, reduction=1, out=objs.t([]))
    with soc(sim, "Ascend910_93"):
        assert phase1(sim, "aclnnSimTestRules", *rules_args(objs)) == 0, sim.error()
        assert phase1(sim, "aclnnSimTestRules", *one) == INVALID
        assert sim.error().endswith("out: its elements span 1 x 4 bytes, less than 40 on this chip "
                                    "(tests/sim/sim_test_ops.md:34)")
    assert phase1(sim, "aclnnSimTestRules", *one) == 0, sim.error()


def test_an_output_whose_shape_the_reduction_decides(sim, objs):
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=1, out=objs.t([]))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=2, out=objs.t([1]))) == 0, sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=1, out=objs.t([3, 4]))) == INVALID
    assert "out: shape [3,4] is not one element, as it must be when reduction is none of 0" in sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=0, out=objs.t([1]))) == INVALID
    assert "out: shape [1] is not [3,4], the shape of self, as it must be when reduction is 0" in sim.error()


def test_ranks_a_value_decides(sim, objs):
    # "reduction为5时，weight的shape支持2维": a 1-d weight passes under reduction 2, not under 5.
    weight = objs.t([4])
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=2, weight=weight, out=objs.t([1]))) == 0, \
        sim.error()
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=5, dim=0, weight=weight, out=objs.t([1]))) == INVALID
    assert sim.error().endswith("weight: rank 1 is outside [2, 2], as it must be when reduction is 5 "
                                "(tests/sim/sim_test_ops.md:35)")
    assert phase1(sim, "aclnnSimTestRules", *rules_args(objs, reduction=5, dim=0, out=objs.t([1]))) == 0, sim.error()


def test_null_pointers_come_before_every_other_check(sim, objs):
    args = rules_args(objs, self=objs.t([3, 4], ACL_INT8), out=None)
    assert phase1(sim, "aclnnSimTestRules", *args) == NULLPTR
    assert "out is a null pointer" in sim.error()



# The package's simulator (op_docs' pages), in a process of its own: one libascendcl per process.
_PACKAGE_PHASE1 = """
import types
from pathlib import Path
from gen.parse import parse_file
from tests.sim.sim_lib import ACL_FLOAT, Sim
api = parse_file("op_docs/aclnnBatchNormReduceBackward.md").apis[0]
sim = Sim(Path("generated/aclnn/_sim"), types.SimpleNamespace(api=lambda name: types.SimpleNamespace(api=api)))
sim.start()
def call(weight_g, grad_weight):
    t = lambda *shape: sim.tensor(list(shape), ACL_FLOAT, None)
    status, _, executor = sim.phase1("aclnnBatchNormReduceBackward", t(2, 3, 4), t(2, 3, 4), t(3), t(3), t(3), True,
                                     weight_g, True, t(3), t(3), t(3) if grad_weight else None, t(3))
    if status == 0:
        sim.aclDestroyAclOpExecutor(executor)
    return status, sim.error() if status else ""
for weight_g, grad_weight in ((False, False), (True, True), (True, False)):
    print(*call(weight_g, grad_weight), sep="|")
"""


def test_an_output_a_null_row_requires_under_a_flag_only_is_null_when_the_flag_is_off():
    # aclnnBatchNormReduceBackward.md:284: "当weightG为true时，gradWeight是空指针" (161001): with weightG false
    # the page admits a null gradWeight (op-plugin passes none for an output its mask does not ask for).
    if not (REPOSITORY / "generated" / "aclnn" / "_sim" / "libopapi.so").exists():
        pytest.skip("the package's simulator is not built (ninja -C build/main)")
    out = subprocess.run([sys.executable, "-c", _PACKAGE_PHASE1], env=subprocess_env(), cwd=REPOSITORY, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0] == "0|" and out[1] == "0|", out
    status, message = out[2].split("|", 1)
    assert int(status) == NULLPTR, out
    assert "gradWeight: a null pointer, where it must be given when weightG" in message
    assert "aclnnBatchNormReduceBackward.md:284" in message
