"""Rules the shared corpus's pooling and quantization pages state between arguments, beyond a number:
a window's padding at most half its kernel, element by element ("小于等于kernelSize/2",
"[0, kernelSize/2]", an error row's "超过kernelSize对应位置的1/2"), and an output passed as a null
pointer under a bool argument's value ("如果isSymmetrical是true，offsetOut需要传nullptr")."""

from __future__ import annotations

import functools

import pytest

from gen.ir import DType, Extent, ShapeForm, Soc
from gen.locations import shared_corpus
from gen.parse import parse_file

CORPUS = shared_corpus()
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")
POOLING = "ops-nn/pooling"


@functools.lru_cache(maxsize=None)
def _api(path: str, name: str):
    return next(a for a in parse_file(CORPUS / path).apis if a.name == name)


def _halved(path: str, name: str) -> list[tuple[str, str, int, bool]]:
    """The element bounds of an API: (param, the array bounding it, divisor, inclusive)."""
    return [(r.param, r.high.tensor, r.high.divisor, r.high.inclusive) for r in _api(path, name).value_ranges
            if r.high is not None and r.high.extent is Extent.ELEMENT]


@pytest.mark.parametrize("path, name", [
    # "且数组元素必须都大于等于0且小于等于kernelSize/2": the second comparison of the clause.
    ("max_pool3d_with_argmax_v2/docs/aclnnMaxPool2dWithIndices.md", "aclnnMaxPool2dWithIndices"),
    # "数值在[0, kernelSize/2]的范围内": a bracketed range.
    ("avg_pool3_d/docs/aclnnAvgPool3d.md", "aclnnAvgPool3d"),
    # Only the error row: "padding中存在小于0或者大于kernelSize/2的数值" (either side refused).
    ("max_pool3d_grad_with_argmax/docs/aclnnMaxPool3dWithArgmaxBackward.md", "aclnnMaxPool3dWithArgmaxBackward"),
    # The error row's "属性padding超过kernelSize对应位置的1/2".
    ("avg_pool3_d_grad/docs/aclnnAvgPool2dBackward.md", "aclnnAvgPool2dBackward"),
])
def test_padding_is_at_most_half_the_kernel_element_by_element(path: str, name: str):
    assert _halved(f"{POOLING}/{path}", name) == [("padding", "kernelSize", 2, True)]
    rule = next(r for r in _api(f"{POOLING}/{path}", name).value_ranges if r.high and r.high.extent is Extent.ELEMENT)
    assert rule.line > 0 and rule.describe().endswith(", kernelSize[i]/2]")


def test_an_error_rows_disjunction_refuses_both_sides():
    # "padding的数值中存在小于0或者大于kernelSize/2的值。" (the row beside it says "或者" where it means "且").
    path = f"{POOLING}/max_pool3d_with_argmax_v2/docs/aclnnMaxPool2dWithMask.md"
    found = {r.describe() for r in _api(path, "aclnnMaxPool2dWithMask").value_ranges if r.param == "padding"}
    assert {"padding in [0, inf)", "padding in (-inf, kernelSize[i]/2]"} <= found


def test_an_error_rows_near_name_is_the_parameter_it_means():
    # avg_pool2d's parameter is "paddings", its error row says "属性padding超过kernelSize对应位置的1/2":
    # the rule is paddings', with a warning naming the word read so.
    path = f"{POOLING}/avg_pool3_d/docs/aclnnAvgPool2d.md"
    assert _halved(path, "aclnnAvgPool2d") == [("paddings", "kernelSize", 2, True)]
    warnings = [d.message for d in parse_file(CORPUS / path).diagnostics if d.code == "near-name"]
    assert any("'padding' is read as the parameter paddings" in w for w in warnings), warnings


PADS = "ops-math/conversion"


@pytest.mark.parametrize("path, name, expected", [
    # "padding前两个数值需小于self最后一维度的数值，后两个数值需小于self倒数第二维度的数值。"
    ("mirror_pad/docs/aclnnReflectionPad2d.md", "aclnnReflectionPad2d",
     {"padding[0:2] in (-inf, size(self, -1))", "padding[-2:] in (-inf, size(self, -2))"}),
    # "... 中间两个数值需小于self倒数第二维度的数值，后两个数值需小于self倒数第三维度的数值"
    ("mirror_pad/docs/aclnnReflectionPad3d.md", "aclnnReflectionPad3d",
     {"padding[0:2] in (-inf, size(self, -1))", "padding[2:4] in (-inf, size(self, -2))",
      "padding[-2:] in (-inf, size(self, -3))"}),
    # Only the error row: "padding的数值大于等于self最后一维度的值。"
    ("mirror_pad/docs/aclnnReflectionPad1d.md", "aclnnReflectionPad1d", {"padding in (-inf, size(self, -1))"}),
    # "padding前两维度的数值都需小于self最后一维度的数值": its first two values.
    ("pad_v3/docs/aclnnReplicationPad2d.md", "aclnnReplicationPad2d",
     {"padding[0:2] in (-inf, size(self, -1))", "padding[-2:] in (-inf, size(self, -2))"}),
    # Only the error row "padding的数值大于等于self对应维度的值", its row placing the values in pairs
    # ("数值依次代表左右上下前后需要填充的值"): each pair below the dimension it pads.
    ("pad_v3/docs/aclnnReplicationPad3d.md", "aclnnReplicationPad3d",
     {"padding[0:2] in (-inf, size(self, -1))", "padding[2:4] in (-inf, size(self, -2))",
      "padding[4:6] in (-inf, size(self, -3))"}),
])
def test_a_paddings_elements_are_below_the_dimension_they_pad(path: str, name: str, expected: set[str]):
    found = {r.describe() for r in _api(f"{PADS}/{path}", name).value_ranges if r.high and r.high.extent is Extent.SIZE}
    assert found == expected


def test_a_chips_combination_rows_widen_a_parameters_list():
    # offsetOptional's row lists FLOAT32, FLOAT16, BFLOAT16, INT8 and defers to the constraints, whose
    # Ascend950 rows pair INT32 with a FLOAT scale.
    api = _api("ops-nn/norm/rms_norm_quant_v3/docs/aclnnRmsNormQuantV3.md", "aclnnRmsNormQuantV3")
    offset = api.param("offsetOptional")
    assert DType.INT32 in offset.dtypes_for(Soc.ASCEND950) and DType.INT32 not in offset.dtypes


@pytest.mark.parametrize("name", ["aclnnDynamicQuantV3", "aclnnDynamicQuantV4"])
def test_an_output_is_a_null_pointer_under_a_bools_value(name: str):
    # "仅在isSymmetrical是false时支持，如果isSymmetrical是true，offsetOut需要传nullptr。"
    api = _api(f"ops-nn/quant/dynamic_quant/docs/{name}.md", name)
    absent = [r for r in api.shape_rules if r.form is ShapeForm.ABSENT]
    assert [(r.param, r.when, r.values, r.negated) for r in absent] == [("offsetOut", "isSymmetrical", ("1",), False)]
    assert absent[0].describe() == "when isSymmetrical in {1}: offsetOut is a null pointer"


@pytest.mark.parametrize("path", [
    f"{POOLING}/avg_pool3_d/docs/aclnnAvgPool3d.md",
    # "The length is 1 ($kD=kH=kW$) or 3 ($kD, kH, kW$). ... less than or equal to the value of the
    # corresponding dimension of the input" (the input: the API's one input tensor).
    "ops-nn-8.5.0-en/pooling/avg_pool3_d/docs/aclnnAvgPool3d_en.md",
])
def test_a_kernel_is_at_most_the_dimension_each_element_stands_for(path: str):
    """aclnnAvgPool3d's row "长度为1(KD = KH = KW)或3(KD, KH, KW)，数值必须大于0且在对应的DHW维度上小于等于self的
    大小" and its error row "kernelSize存在某维度的值小于等于0或大于self对应维度上的值": one rule, over
    the last three dimensions (a one-element kernel against each)."""
    ranges = _api(path, "aclnnAvgPool3d").value_ranges
    found = [r for r in ranges if r.high is not None and r.high.extent is Extent.DIMENSION]
    assert [r.describe() for r in found] == ["kernelSize in (-inf, size(self, -3 + i)]"]
