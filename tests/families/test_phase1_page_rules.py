"""Rules the pages state in prose under a condition, checked by phase 1 of the package of op_docs/
through the C ABI (tests/support/phase1_probe.py): each probe's expectation is the page's sentence,
cited beside it, and a probe that does not meet the condition shows the rule holds only under it."""

from __future__ import annotations

import pytest

from gen import abi
from tests.support import phase1_probe
from tests.support.op_docs_process import built
from tests.support.phase1_probe import tensor

OK, INVALID = abi.status_code("ACLNN_SUCCESS"), abi.status_code("ACLNN_ERR_PARAM_INVALID")

pytestmark = pytest.mark.skipif(not built(), reason="the package of op_docs/ is not built: run `make package`")


def dynamic_quant(last: int, y_shape: list[int], y_dtype: str) -> list:
    """aclnnDynamicQuant's arguments over an x of [2, last]."""
    return [tensor([2, last], "FLOAT16"), None, tensor(y_shape, y_dtype), tensor([2])]


def test_a_divisibility_holds_under_the_outputs_dtype_it_names():
    # aclnnDynamicQuant_en.md:246: "When the data type of yOut is INT32, the last dimension of x must be
    # divisible by 8".
    (int32, message), (int8, _), (int32_of_16, _) = phase1_probe.statuses([
        ("aclnnDynamicQuant", dynamic_quant(12, [2, 1], "INT32")),
        ("aclnnDynamicQuant", dynamic_quant(12, [2, 12], "INT8")),
        ("aclnnDynamicQuant", dynamic_quant(16, [2, 2], "INT32"))])
    assert int32 == INVALID and "x: dimension -1 (12) is not a multiple of 8 (aclnnDynamicQuant_en.md:246)" in message
    assert (int8, int32_of_16) == (OK, OK)


def add_layer_norm(x2: list[int], bias: list[int] | None = None) -> list:
    """aclnnAddLayerNorm's arguments over an x1 of [2, 3] normalised over its last dimension."""
    return [tensor([2, 3]), tensor(x2), tensor([3]), tensor([3]), tensor(bias) if bias else None, 1e-5, True,
            tensor([2, 3]), tensor([2, 1]), tensor([2, 1]), tensor([2, 3])]


def test_a_family_computed_api_checks_its_pages_shape_relations_citing_them():
    # aclnnAddLayerNorm.md:114, x2: "shape和`x1`保持一致"; :144, biasOptional: "shape可以和`gamma`/`beta`或`x1`/`x2`一致"
    # (either); :184, meanOut: [2, 1] beside an x1 of [2, 3] ("总维度与`x1`维度相同": its rank, not x1's shape).
    (wrong, message), (ok, _), (of_gamma, _), (of_x1, _) = phase1_probe.statuses([
        ("aclnnAddLayerNorm", add_layer_norm([2, 4])),
        ("aclnnAddLayerNorm", add_layer_norm([2, 3])),
        ("aclnnAddLayerNorm", add_layer_norm([2, 3], bias=[3])),
        ("aclnnAddLayerNorm", add_layer_norm([2, 3], bias=[2, 3]))])
    assert wrong != OK and "x2: shape [2,4] differs from x1's shape [2,3]" in message
    assert "(aclnnAddLayerNorm.md:1" in message
    assert (ok, of_gamma, of_x1) == (OK, OK, OK)


def test_a_pads_output_has_the_shape_its_page_widens_by_the_padding_pairs():
    # aclnnReflectionPad2d.md:113, out: "out倒数第二维度的数值等于self倒数第二维度的数值加padding后两个值，out最后一维度
    # 的数值等于self最后一维度的数值加padding前两个值" ([left, right, top, bottom], W by the first pair).
    (ok, _), (wide, message), (swapped, swapped_message) = phase1_probe.statuses([
        ("aclnnReflectionPad2d", [tensor([2, 3, 5, 6]), phase1_probe.ints(2, 3, 1, 4), tensor([2, 3, 10, 11])]),
        ("aclnnReflectionPad2d", [tensor([2, 3, 5, 6]), phase1_probe.ints(2, 3, 1, 4), tensor([2, 3, 10, 12])]),
        ("aclnnReflectionPad2d", [tensor([2, 3, 5, 6]), phase1_probe.ints(2, 3, 1, 4), tensor([2, 3, 11, 10])])])
    assert ok == OK
    assert wide == INVALID and "out: shape [2,3,10,12] is not self's [2,3,5,6] padded by padding [2,3,1,4], " \
        "[2,3,10,11] (aclnnReflectionPad2d.md:113)" in message
    assert swapped == INVALID and "(aclnnReflectionPad2d.md:113)" in swapped_message
    # aclnnConstantPadNd.md:238: "self的shape和pad的输入推导出的shape与out的shape不一致", the formula widening a
    # dimension per pair from the last; negative pads crop.
    (crop, _), (uncropped, crop_message) = phase1_probe.statuses([
        ("aclnnConstantPadNd", [tensor([4, 6]), phase1_probe.ints(-1, -2, 1, 0), phase1_probe.scalar(0.0), tensor([5, 3])]),
        ("aclnnConstantPadNd", [tensor([4, 6]), phase1_probe.ints(-1, -2, 1, 0), phase1_probe.scalar(0.0), tensor([5, 6])])])
    assert crop == OK
    assert uncropped == INVALID and "out: shape [5,6] is not self's [4,6] padded by pad [-1,-2,1,0], [5,3] " \
        "(aclnnConstantPadNd.md:238)" in crop_message


def test_a_chips_dtype_bullet_under_the_constraints_is_enforced_on_that_chip_only():
    # aclnnAddLayerNorm.md:348 (约束说明): "Atlas 推理系列产品：x1、x2、beta、gamma、biasOptional支持FLOAT32、FLOAT16", beside a
    # table that lists BFLOAT16: Ascend310P refuses a BFLOAT16 x1 citing the bullet, Ascend910B accepts it.
    bf16 = [tensor([2, 3], "BFLOAT16"), tensor([2, 3], "BFLOAT16"), tensor([3], "BFLOAT16"), tensor([3], "BFLOAT16"), None,
            1e-5, True, tensor([2, 3], "BFLOAT16"), tensor([2, 1]), tensor([2, 1]), tensor([2, 3], "BFLOAT16")]
    (inference, message), = phase1_probe.statuses([("aclnnAddLayerNorm", bf16)], soc="Ascend310P")
    (training, _), = phase1_probe.statuses([("aclnnAddLayerNorm", bf16)], soc="Ascend910B")
    assert inference == INVALID and "aclnnAddLayerNorm.md:348" in message
    assert training == OK


def test_a_reductions_output_has_the_shape_its_page_reduces_either_form():
    # aclnnLogSumExp.md:131, out: "若keepDim为true，除dim指定维度上的size为1以外，其余维度的shape需要与self保持一致" and
    # "若keepDim为false，reduce轴的维度不保留": either form (gen.conventions, 4.), a one-element out for one value.
    def logsumexp(dims: list[int], keepdim: bool, out: list[int]) -> tuple[str, list]:
        return "aclnnLogSumExp", [tensor([2, 3, 4]), phase1_probe.ints(*dims), keepdim, tensor(out)]
    (kept, _), (dropped, _), (wrong, message), (one, _) = phase1_probe.statuses([
        logsumexp([1], True, [2, 1, 4]), logsumexp([1], True, [2, 4]), logsumexp([1], True, [2, 1, 5]),
        logsumexp([0, 1, 2], False, [1, 1])])
    assert (kept, dropped, one) == (OK, OK, OK)
    assert wrong == INVALID and "out: shape [2,1,5] is not self's [2,3,4] reduced along dim [1] with keepDim true, " \
        "[2,1,4] (aclnnLogSumExp.md:131)" in message
