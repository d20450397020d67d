"""Value ranges the shared corpus's pages state as comparisons (gen.parse.extractors.comparisons): a row's
"数值必须大于0", an error row's refused side ("传入的bins小于等于0"), a bound that is another
argument ("min不能大于max"), a chain ("0≤prob≤1"); and the sentences that give no rule (a
condition, a conjunction of refusals, a scalar's row that CANN does not check)."""

from __future__ import annotations

import functools

import pytest

from gen.ir import Extent
from gen.locations import shared_corpus
from gen.parse import parse_file

CORPUS = shared_corpus()
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@functools.lru_cache(maxsize=None)
def _page(path: str):
    return parse_file(CORPUS / path)


def ranges(path: str, name: str) -> set[str]:
    api = next(a for a in _page(path).apis if a.name == name)
    return {r.describe() for r in api.value_ranges}


def test_a_rows_comparison_bounds_every_element_of_an_array():
    found = ranges("ops-nn/pooling/avg_pool3_d/docs/aclnnAvgPool2d.md", "aclnnAvgPool2d")
    assert {"kernelSize in (0, inf)", "strides in (0, inf)", "paddings in [0, inf)"} <= found


def test_each_element_of_an_english_row():
    found = ranges("ops-nn-8.5.0-en/conv/convolution_backward/docs/aclnnConvolutionBackward_en.md",
                   "aclnnConvolutionBackward")
    # "..., and each element in the array must be greater than 0"
    assert {"stride in (0, inf)", "padding in [0, inf)", "dilation in (0, inf)"} <= found


def test_the_pages_other_wordings():
    found = ranges("ops-nn/conv/deformable_conv2d/docs/aclnnDeformableConv2d.md", "aclnnDeformableConv2d")
    assert {"kernelSize in (0, inf)", "groups in (0, inf)"} <= found  # "各元素均大于零", "groups数大于零"
    found = ranges("ops-nn/optim/advance_step/docs/aclnnAdvanceStep.md", "aclnnAdvanceStep")
    # "取值范围是大于0的正整数"; numSeqs' bound is its 561002 error row's too, and answered so.
    assert {"numQueries in (0, inf)", "numSeqs in (numQueries, inf) (status 561002)"} <= found
    # "必须大于0, 建议为7.0": the advice is no condition on the requirement before it.
    assert "limit in (0, inf)" in ranges("ops-nn/activation/clipped_swiglu/docs/aclnnClippedSwiglu.md",
                                         "aclnnClippedSwiglu")


def test_one_value_only():
    # aclnnMaxPool's autoPad: "其中0代表"NOTSET", 并且只支持数值0".
    assert "autoPad in [0, 0]" in ranges("ops-nn/pooling/max_pool_v3/docs/aclnnMaxPool.md", "aclnnMaxPool")
    # "仅支持0,1,2三个值": a list, not 0 alone (consecutive values: a range, tests/parse/test_parse_prose_ranges.py).
    assert ranges("ops-nn/activation/log_sigmoid/docs/aclnnBinaryCrossEntropyWithLogitsTargetBackward.md",
                  "aclnnBinaryCrossEntropyWithLogitsTargetBackward") == {"reduction in [0, 2]"}


def test_an_error_row_states_the_refused_side():
    found = ranges("ops-math/math/histogram_v2/docs/aclnnHistc.md", "aclnnHistc")
    assert "bins in (0, inf)" in found  # "传入的bins小于等于0"
    assert "n in [0, inf)" in ranges("ops-math/math/eye/docs/aclnnEye.md", "aclnnEye")  # "n或m的值小于0"
    # "参数repeats中含有小于0的值"
    assert "repeats in [0, inf)" in ranges("ops-math/math/tile/docs/aclnnRepeat.md", "aclnnRepeat")


def test_a_bound_may_be_a_tensors_rank():
    # aclnnIndexSelect's error row: "dim >= self.dim()或者dim < -self.dim()"
    found = ranges("ops-nn/index/gather_v2/docs/aclnnIndexSelect.md", "aclnnIndexSelect")
    assert {"dim in (-inf, rank(self))", "dim in [-rank(self), inf)"} <= found


def test_a_bound_may_be_another_arguments_value():
    api = next(a for a in _page("ops-math/math/histogram_v2/docs/aclnnHistc.md").apis if a.name == "aclnnHistc")
    rule = next(r for r in api.value_ranges if r.param == "min")
    assert rule.high is not None and rule.high.extent is Extent.VALUE and rule.high.tensor == "max"
    assert rule.high.inclusive and rule.describe() == "min in (-inf, max]"


def test_a_chain_gives_both_bounds():
    path = "ops-math/random/stateless_bernoulli/docs/aclnnBernoulli&aclnnInplaceBernoulli.md"
    assert "prob in [0, 1]" in ranges(path, "aclnnBernoulli")  # "prob不满足0≤prob≤1"


def test_conditions_and_conjunctions_give_no_rule():
    # "fp16数据类型, step、size大于72" holds for one dtype; "inputSizes的size小于等于8" is its length.
    # (The error table answers size and step 561002, the tiling's check.)
    assert ranges("ops-math/conversion/unfold_grad/docs/aclnnUnfoldGrad.md", "aclnnUnfoldGrad") == {
        "size in (0, inf) (status 561002)", "step in (0, inf) (status 561002)"}
    # "self为空Tensor, 且numClasses小于等于0": refused when both hold.
    assert not any(r.startswith("numClasses") for r in ranges("ops-math/math/one_hot/docs/aclnnOneHot.md",
                                                              "aclnnOneHot"))
    # "在step大于0时输入的start大于end": a condition without its comma.
    assert not ranges("ops-math/math/range/docs/aclnnArange.md", "aclnnArange")


def test_a_scalars_row_alone_is_no_check():
    # aclnnInplaceAdds' row says "other: 取值范围需大于0"; its error table names no such check, and
    # CANN casts and adds any other.
    assert not ranges("ops-math/math/add/docs/aclnnInplaceAdds.md", "aclnnInplaceAdds")


def test_a_floats_bracketed_range_is_read():
    assert "p in [0, inf)" in ranges("ops-math/math/cdist/docs/aclnnCdist.md", "aclnnCdist")  # "取值范围[0, +Inf]"


def test_a_comparison_of_an_arguments_length_or_a_precision_advice_is_no_range():
    found = ranges("ops-nn-8.5.0-en/pooling/avg_pool3_d/docs/aclnnAvgPool2d_en.md", "aclnnAvgPool2d")
    assert "paddings in [1, inf)" not in found  # "The length of the passed kernelSize or paddings is less than 1"
    found = ranges("ops-nn-8.5.0-en/norm/group_norm/docs/aclnnGroupNorm_en.md", "aclnnGroupNorm")
    assert found == {"group in (0, inf)", "eps in (0, inf)"}  # not "To maintain precision, ... >= 1e-5"


def test_a_range_under_a_condition_glued_to_it_is_no_rule():
    # worldSize's row: "`balanceMode=0`时取值范围[2, 768]" bounds worldSize, when balanceMode is 0;
    # read as balanceMode's range it refused the page's own example (balanceMode = 0).
    found = ranges("ops-transformer/mc2/moe_update_expert/docs/aclnnMoeUpdateExpert.md", "aclnnMoeUpdateExpert")
    assert found == {"balanceMode in [0, 1]", "worldSize in [2, 768] when balanceMode == 0",
                     "localRankId in [0, worldSize) when balanceMode == 0"}


def test_a_dim_range_of_tensors_of_one_dimension_or_more_is_every_tensors():
    # "当self.dim()>0时, dim的取值范围[-self.dim(), self.dim()-1)" beside "当self.dim()=0时, [-1, 0]": a
    # 0-d tensor's rank counts as 1, so one range covers both.
    found = ranges("ops-math/math/cummax/docs/aclnnCummax.md", "aclnnCummax")
    assert "dim in [-rank(self), rank(self) - 1]" in found


def test_a_range_the_pages_own_example_breaks_is_not_checked():
    # aclnnAdvanceStepV2: "numSeqs的值大于输入numQueries的值" in its row, "numSeqs的值不等于输入numQueries的值"
    # in its error table, and numSeqs = numQueries = 8 in its example.
    path = "ops-nn/optim/advance_step/docs/aclnnAdvanceStepV2.md"
    assert "numSeqs in (numQueries, inf)" not in ranges(path, "aclnnAdvanceStepV2")
    assert any(d.code == "example-breaks-range" for d in _page(path).diagnostics)


def test_an_english_error_rows_dim_range_with_en_dashes():
    # "When self.dim() is greater than 0, the value of dim is out of the range [–self.dim(), self.dim() – 1]"
    found = ranges("ops-nn-8.5.0-en/activation/ge_glu_v2/docs/aclnnGeGlu_en.md", "aclnnGeGlu")
    assert "dim in [-rank(self), rank(self) - 1]" in found
    # "当self.dim()>0时，dim取值不在[-self.dim, self.dim()-1]范围内" (its error row)
    assert "dim in [-rank(self), rank(self) - 1]" in ranges("ops-nn/activation/ge_glu_v2/docs/aclnnGeGlu.md",
                                                            "aclnnGeGlu")


def test_a_name_after_a_spaced_operator_is_part_of_an_expression():
    # "kGroup * x_shape[-1] / groupCount的值要大于等于k": the quotient is bounded, not groupCount (which
    # phase 1 refused below k, DeepSeek's k 8 over 4 groups among them); "1 <= kGroup <= groupCount" is.
    found = ranges("ops-transformer/moe/moe_gating_top_k/docs/aclnnMoeGatingTopK.md", "aclnnMoeGatingTopK")
    assert "kGroup in (-inf, groupCount]" in found
    assert not any(r.startswith("groupCount in [k") for r in found)
