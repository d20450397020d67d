"""Phase 1 judges the sizes a kernel would only judge in phase 2 wherever the arguments alone fix
them (issue 24): CANN refuses such a call in aclnnXxxGetWorkspaceSize, and the simulator must not
accept it and fail it later. Sizes that depend on device data stay phase 2's (a mask's count, the
counts of a repeats tensor, self's largest value for bincount)."""

from __future__ import annotations

import pytest

from gen import abi
from tests.support import phase1_probe
from tests.support.op_docs_process import built
from tests.support.phase1_probe import ints, tensor, tensors

OK, INVALID = abi.status_code("ACLNN_SUCCESS"), abi.status_code("ACLNN_ERR_PARAM_INVALID")

pytestmark = pytest.mark.skipif(not built(), reason="the package of op_docs/ is not built: run `make build`")


def test_host_repeats_fix_the_output_size():
    # aclnnRepeatInterleaveInt.md:107: "outputSize必须等于self的元素个数 * repeats的值"; aclnnRepeatInterleaveIntWithDim.md:119:
    # "outputSize值必须为repeats * self的dim维度size". An out of the wrong outputSize's shape matches it, so only
    # the count judges the call.
    (ok, _), (wrong, message), (ok_dim, _), (wrong_dim, dim_message) = phase1_probe.statuses([
        ("aclnnRepeatInterleaveInt", [tensor([2, 3], "INT32"), 2, 12, tensor([12], "INT32")]),
        ("aclnnRepeatInterleaveInt", [tensor([2, 3], "INT32"), 2, 13, tensor([13], "INT32")]),
        ("aclnnRepeatInterleaveIntWithDim", [tensor([2, 3], "INT32"), 3, 1, 9, tensor([2, 9], "INT32")]),
        ("aclnnRepeatInterleaveIntWithDim", [tensor([2, 3], "INT32"), 3, 1, 8, tensor([2, 8], "INT32")])])
    assert (ok, ok_dim) == (OK, OK)
    assert wrong == INVALID and "outputSize: 13 is not the 6 elements repeated 2 times" in message
    assert wrong_dim == INVALID and "outputSize: 8 is not the 3 elements repeated 3 times" in dim_message


def test_a_repeats_tensor_leaves_its_sum_to_phase_2():
    # aclnnRepeatInterleave: several counts on the device; their sum is phase 2's to check.
    (status, _), = phase1_probe.statuses([
        ("aclnnRepeatInterleave", [tensor([6], "INT32"), tensor([6], "INT64"), 7, tensor([7], "INT32")])])
    assert status == OK


def test_index_positions_fix_out_shape():
    # out = self[indices]: with positions only, the result's shape follows from the shapes.
    self_, index = tensor([4, 5, 3]), tensors([tensor([2, 2], "INT64")])
    (ok, _), (wrong, message), (masked, _) = phase1_probe.statuses([
        ("aclnnIndex", [self_, index, tensor([2, 2, 5, 3])]),
        ("aclnnIndex", [self_, index, tensor([2, 2, 5, 4])]),
        # A mask's count of true elements is the data's: any out passes phase 1.
        ("aclnnIndex", [self_, tensors([tensor([4], "BOOL")]), tensor([7, 5, 3])])])
    assert (ok, masked) == (OK, OK)
    assert wrong == INVALID and "out: shape [2, 2, 5, 4] is not the indexing result's [2, 2, 5, 3]" in message


def test_bincount_out_is_never_shorter_than_minlength():
    # aclnnBincount.md:128: "out的长度为self的最大值加1和minlength二者取最大".
    (short, message), (long_enough, _), (empty_exact, _), (empty_longer, empty_message) = phase1_probe.statuses([
        ("aclnnBincount", [tensor([12], "INT32"), None, 8, tensor([7], "INT64")]),
        ("aclnnBincount", [tensor([12], "INT32"), None, 8, tensor([9], "INT64")]),
        ("aclnnBincount", [tensor([0], "INT32"), None, 8, tensor([8], "INT64")]),
        ("aclnnBincount", [tensor([0], "INT32"), None, 8, tensor([9], "INT64")])])
    assert (long_enough, empty_exact) == (OK, OK)
    assert short == INVALID and "out: length 7 is below minlength 8" in message
    assert empty_longer == INVALID and "length 9 is not minlength 8 (self is empty)" in empty_message


def grouped_matmul(group_list: list[int]) -> list:
    """aclnnGroupedMatmul's arguments: one x [12, 8] whose rows the host group_list's ends split
    among three weights [8, 5], into one out [12, 5] (splitItem 3)."""
    return [tensors([tensor([12, 8])]), tensors([tensor([8, 5])] * 3), None, None, None, None, None,
            ints(*group_list), 3, tensors([tensor([12, 5])])]


def test_a_host_group_list_is_judged_against_x_in_phase_1():
    # aclnnGroupedMatmul's group_list is an aclIntArray (host integers): ends along x's rows. The V5's
    # group_list tensor stays phase 2's (tests/families/test_sim_grouped_matmul_family.py).
    (ok, _), (decreasing, message), (past, past_message) = phase1_probe.statuses([
        ("aclnnGroupedMatmul", grouped_matmul([4, 7, 12])),
        ("aclnnGroupedMatmul", grouped_matmul([4, 3, 12])),
        ("aclnnGroupedMatmul", grouped_matmul([4, 7, 13]))])
    assert ok == OK
    assert decreasing == INVALID and "groupListOptional: element 1 (3) gives group 1 an end before the previous one" in message
    assert past == INVALID and "groupListOptional: group 2 reaches past x's 12 rows" in past_message
