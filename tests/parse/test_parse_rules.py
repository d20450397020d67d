"""What pages of the shared corpus state across parameters, read as gen.ir rules (schema 4): dtype
combinations per product, conditional shape rules of losses, dim ranges, dimension equalities,
divisibility, reserved parameters; and what is not read with confidence, diagnosed instead."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from gen.cli import rule_lines
from gen.ir import DType, RelationKind, Reserved, ShapeForm, Soc
from gen.locations import shared_corpus
from gen.parse import parse_file

CORPUS = shared_corpus()
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@functools.lru_cache(maxsize=None)
def page(path: str):
    return parse_file(CORPUS / path)


def api(path: str, name: str):
    return next(a for a in page(path).apis if a.name == name)


def unread(path: str) -> list[str]:
    return [d.message for d in page(path).diagnostics if d.code == "relation-unread"]


def test_a_combination_table_per_product():
    found = api("ops-nn/norm/add_rms_norm/docs/aclnnAddRmsNorm.md", "aclnnAddRmsNorm")
    a2 = [c for c in found.dtype_combinations if Soc.ASCEND910B in c.products]
    p310 = [c for c in found.dtype_combinations if c.products == (Soc.ASCEND310P,)]
    assert len(a2) == 7 and len(p310) == 4
    first = a2[0]
    assert first.line == 282
    assert first.cell("x1").dtypes == (DType.FLOAT,)
    # "shape需要与x1后几维保持一致...；FLOAT32": the shape clause is skipped, the dtype read.
    assert first.cell("gamma").dtypes == (DType.FLOAT,)
    # "必选" says nothing about the dtype: no cell, no diagnostic.
    assert first.cell("rstdOut") is None
    # "空指针": the parameter is NULL in that combination.
    assert a2[3].cell("rstdOut").absent and not a2[3].cell("rstdOut").dtypes
    assert not [d for d in page("ops-nn/norm/add_rms_norm/docs/aclnnAddRmsNorm.md").diagnostics
                if d.code == "combination-cell-unread"]


def test_a_chips_combination_rows_narrow_its_dtype_lists():
    # The English page lists FLOAT32 for x1 in its row and gives the A2/A3 chips FLOAT16 and BFLOAT16
    # rows only (the Chinese page says so in a note per chip): per chip, the rows' dtypes.
    found = api("ops-nn-8.5.0-en/norm/add_rms_norm_quant/docs/aclnnAddRmsNormQuant_en.md", "aclnnAddRmsNormQuant")
    x1, scales1 = found.param("x1"), found.param("scales1")
    assert x1.dtypes == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
    assert x1.dtypes_for(Soc.ASCEND910B) == x1.dtypes_for(Soc.ASCEND910_93) == (DType.FLOAT16, DType.BFLOAT16)
    assert x1.dtypes_for(Soc.ASCEND310P) == (DType.FLOAT16,)
    assert scales1.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.BFLOAT16)
    # A chip without rows keeps the table's list.
    assert x1.dtypes_for(Soc.ASCEND950) == x1.dtypes


def test_a_dtype_relation_the_combination_rows_break_is_not_held():
    # "the data type is the same as that of zeroPoints1Optional" on xOut's row, and a row pairing a
    # FLOAT16 xOut with an INT32 zeroPoints1Optional: the table is followed, and said so.
    path = "ops-nn-8.5.0-en/norm/add_rms_norm_quant/docs/aclnnAddRmsNormQuant_en.md"
    found = api(path, "aclnnAddRmsNormQuant")
    assert found.param("xOut").related(RelationKind.SAME_DTYPE) == ()
    assert found.param("zeroPoints2Optional").related(RelationKind.SAME_DTYPE) == ("zeroPoints1Optional",)
    assert [d.line for d in page(path).diagnostics if d.code == "relation-contradicts-combinations"] == [377]


def test_a_dtype_rows_status_is_the_parameters():
    # "输入activateScaleOptional、biasOptional的数据类型不在支持的范围内" is 561002, the others' 161002.
    found = api("ops-nn/quant/dequant_bias/docs/aclnnDequantBias.md", "aclnnDequantBias")
    assert {p.name: found.dtype_status(p) for p in found.params if p.kind and p.kind.is_pointer} == {
        "x": 0, "weightScale": 0, "activateScaleOptional": 561002, "biasOptional": 561002, "out": 0}
    # Every parameter under 161002 and again under 561002: checked first, as 161002.
    both = api("ops-nn/norm/add_rms_norm_dynamic_quant/docs/aclnnAddRmsNormDynamicQuantV2.md",
               "aclnnAddRmsNormDynamicQuantV2")
    assert not any(both.dtype_status(p) for p in both.params)


def test_a_combination_table_names_a_dtype_attribute_and_same_as_cells():
    norm = api("ops-nn/norm/lp_norm_v2/docs/aclnnLinalgVectorNorm.md", "aclnnLinalgVectorNorm")
    assert [(c.cell("self").dtypes, c.cell("dtype").dtypes) for c in norm.dtype_combinations][:2] == [
        ((DType.FLOAT,), (DType.FLOAT,)), ((DType.FLOAT16,), (DType.FLOAT,))]
    wqbmm = api("ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulV3.md",
                "aclnnWeightQuantBatchMatmulV3")
    row = wqbmm.dtype_combinations[0]
    assert row.cell("y").same_as == "x" and row.cell("antiquantOffsetOptional").absent
    # "与x一致/FLOAT（仅x为BFLOAT16）/null" holds a condition: that cell is left out, and said so.
    assert row.cell("biasOptional") is None
    assert any("biasOptional: the combination cell" in d.message
               for d in page("ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulV3.md").diagnostics)


def test_loss_outputs_are_one_element_unless_reduction_is_none():
    for path, name, out in (("ops-nn/loss/mse_loss/docs/aclnnMseLoss.md", "aclnnMseLoss", "out"),
                            ("ops-nn/loss/lp_loss/docs/aclnnL1Loss.md", "aclnnL1Loss", "out"),
                            ("ops-nn/loss/binary_cross_entropy/docs/aclnnBinaryCrossEntropy.md",
                             "aclnnBinaryCrossEntropy", "out")):
        found = api(path, name)
        rules = {(r.negated, r.form): r for r in found.shape_rules if r.param == out}
        assert rules[(False, ShapeForm.SAME)].values == ("0",), name
        assert rules[(True, ShapeForm.SCALAR)].values == ("0",), name
        # The unconditional "shape与self一致" would contradict the rule: not a relation any more.
        assert not found.param(out).relations or all(r.kind.value not in ("same_shape", "broadcast")
                                                     for r in found.param(out).relations)
    smooth = api("ops-nn/loss/smooth_l1_loss_v2/docs/aclnnSmoothL1Loss.md", "aclnnSmoothL1Loss")
    # "当reduction为none时...，当reduction为mean或sum时为[1]": two conditions, each its own rule.
    assert {(r.values, r.form) for r in smooth.shape_rules} == {(("0",), ShapeForm.SAME),
                                                                (("1", "2"), ShapeForm.SCALAR)}
    assert smooth.shape_rules[0].others == ("self", "target")


def test_a_compound_condition_is_not_read():
    path = "ops-nn/loss/nll_loss_grad/docs/aclnnNLLLossBackward.md"
    rules = api(path, "aclnnNLLLossBackward").shape_rules
    assert [(r.negated, r.form) for r in rules] == [(True, ShapeForm.SCALAR)]
    assert any("a compound condition" in m for m in unread(path))


def test_dim_ranges_and_dimension_equalities():
    cumprod = api("ops-math/math/cumprod/docs/aclnnCumprod&aclnnInplaceCumprod.md", "aclnnCumprod")
    assert [r.describe() for r in cumprod.value_ranges] == ["dim in [-rank(input), rank(input))"]
    # "取值范围 [-rank(input), rank(input)]": no dimension is numbered rank; read as [-rank, rank).
    inplace = api("ops-math/math/cumprod/docs/aclnnCumprod&aclnnInplaceCumprod.md", "aclnnInplaceCumprod")
    assert [r.describe() for r in inplace.value_ranges] == ["dim in [-rank(input), rank(input))"]
    baddbmm = api("ops-nn/matmul/batch_mat_mul_v3/docs/aclnnBaddbmm&aclnnInplaceBaddbmm.md", "aclnnInplaceBaddbmm")
    assert "batch1.shape[-1] == batch2.shape[-2]" in [d.describe() for d in baddbmm.dim_equalities]


def test_a_dimension_computed_from_another_is_not_an_equality():
    # "out最后一维度的数值等于self最后一维度的数值加padding前两个值": a padded dimension (PaddedShape), which on this page
    # contradicts its padding of four values (test_a_padded_output_shape_from_the_rows_clauses).
    path = "ops-math/conversion/pad_v3/docs/aclnnReplicationPad2d.md"
    assert api(path, "aclnnReplicationPad2d").dim_equalities == ()
    assert any("widens 1 dimension(s)" in m for m in unread(path))


def test_divisibility_of_a_dimension_not_of_an_integer_argument():
    gelu = api("ops-nn/activation/gelu_mul/docs/aclnnGeluMul.md", "aclnnGeluMul")
    assert [d.describe() for d in gelu.divisibility] == ["input.shape[-1] % 2 == 0"]
    # "dim对应的self的轴必须是偶数": the size along dim, not dim itself.
    assert api("ops-nn/activation/ge_glu_v2/docs/aclnnGeGlu.md", "aclnnGeGlu").divisibility == ()


def test_reserved_parameters_have_no_dtypes_and_must_be_null():
    nz = api("ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulNz.md",
             "aclnnWeightQuantBatchMatmulNz")
    for name in ("quantScaleOptional", "quantOffsetOptional"):
        assert nz.param(name).must_be_null and nz.param(name).optional and not nz.param(name).dtypes


def test_lint_shows_each_rule_with_its_page_line():
    lines = rule_lines(page("ops-nn/loss/mse_loss/docs/aclnnMseLoss.md"))
    assert any(line.endswith(":127: rule: aclnnMseLoss: when reduction not in {0}: out has one element")
               for line in lines), lines


# --- Rules read no stricter than the page (issue 13's audit): each misreading and its cause -----------


def test_a_range_of_a_tensors_values_is_not_a_range_of_the_dim_it_names():
    path = "ops-nn/index/gather_elements_v2/docs/aclnnGather.md"
    # Line 127, index's row: "index中的具体数值代表self对应dim轴上的下标，取值范围[-self.shape[dim], ...]"
    # bounds index's values (a tensor's), not dim: only dim's own row (117) gives dim a range.
    assert [(r.line, r.describe()) for r in api(path, "aclnnGather").value_ranges] == [
        (117, "dim in [-rank(self), rank(self) - 1]")]
    # "数组长度与shifts保持一致，取值范围在[-x.dim(), x.dim() - 1]": dims' range (its row), not shifts'.
    roll = api("ops-math/conversion/roll/docs/aclnnRoll.md", "aclnnRoll")
    assert [r.describe() for r in roll.value_ranges] == ["dims in [-rank(x), rank(x) - 1]"]


def test_a_union_of_ranges_is_no_rule():
    path = "ops-nn/index/quant_update_scatter/docs/aclnnInplaceQuantScatterV2.md"
    # reduction's "当前取值仅支持1" is its range; axis's two ranges are none.
    assert [r.describe() for r in api(path, "aclnnInplaceQuantScatterV2").value_ranges] == ["reduction in [1, 1]"]
    assert any("axis" in m and "a union of ranges" in m for m in unread(path))


def test_one_alternative_of_a_disjunction_is_no_rule():
    path = "ops-nn/norm/add_rms_norm_dynamic_quant/docs/aclnnAddRmsNormDynamicQuant.md"
    # "shape需要与输入x1/x2一致，或者是二维并且...第二维等于x1的最后一维"; gamma's own "shape需要与`x1`最后一维一致"
    # (1-D) is a rule.
    assert [(d.param, d.axis, d.other, d.other_axis) for d in api(path, "aclnnAddRmsNormDynamicQuant").dim_equalities] == \
        [("gamma", 0, "x1", -1)]
    assert any("one alternative of a disjunction" in m for m in unread(path))


def test_dimensions_of_a_tensor_another_argument_permutes_are_not_read():
    for path, name in (("ops-nn/matmul/transpose_batch_mat_mul/docs/aclnnTransposeBatchMatMul.md",
                        "aclnnTransposeBatchMatMul"),
                       ("ops-nn/matmul/transpose_batch_mat_mul/docs/aclnnTransposeBatchMatMulWeightNZ.md",
                        "aclnnTransposeBatchMatMulWeightNz")):
        assert api(path, name).dim_equalities == (), name
        assert any("arranged by permX1" in m for m in unread(path)), name


def test_dimension_numbers_count_as_the_text_counts():
    # The table says "scale的第2维与x的第2维相等" of 2-D tensors, the constraints "第0维": the table counts
    # from 1 (a 2-D tensor has no dimension 2 counted from 0).
    group = api("ops-nn/quant/group_quant/docs/aclnnGroupQuant.md", "aclnnGroupQuant")
    assert [d.describe() for d in group.dim_equalities] == ["scale.shape[1] == x.shape[1]"]
    # "target的第3维与self的第4维相等" of a 3-D target: counted from 1; "第1维"/"第2维" of the same sentence
    # could be either, and are not read.
    nll = api("ops-nn/loss/nll_loss/docs/aclnnNLLLoss2d.md", "aclnnNLLLoss2d")
    assert [d.describe() for d in nll.dim_equalities] == ["target.shape[2] == self.shape[3]"]


def test_current_version_is_no_condition():
    # "预留参数，当前版本不支持，需要传入nullptr": "当前" is not "当...时".
    fused = api("ops-nn/matmul/fused_quant_mat_mul/docs/aclnnFusedQuantMatmul.md", "aclnnFusedQuantMatmul")
    assert [p.name for p in fused.params if p.must_be_null] == [
        "yScaleOptional", "x1OffsetOptional", "x2OffsetOptional", "yOffsetOptional", "x3Optional"]
    # "x的最后一维需要为2的倍数，...，当前仅支持...不超过8192": read (was conditional).
    quant = api("ops-nn/quant/swi_glu_quant/docs/aclnnSwiGluQuant.md", "aclnnSwiGluQuant")
    assert [d.describe() for d in quant.divisibility] == ["x.shape[-1] % 2 == 0"]


def test_a_rule_of_some_chips_holds_on_them_and_one_of_part_of_an_argument_is_no_rule():
    # "Atlas 推理系列产品、Atlas 训练系列产品：支持范围为[-255,255]": those chips' range only.
    path = "ops-nn/pooling/avg_pool3_d_grad/docs/aclnnAvgPool2dBackward.md"
    # (Its rows' comparisons, "数值大于0", are every chip's: gen.parse.extractors.comparisons.)
    assert [r.describe() for r in api(path, "aclnnAvgPool2dBackward").value_ranges if r.param == "divisorOverride"] == \
        ["divisorOverride in [-255, 255] on Ascend310P, Ascend910"]
    # "strideH and strideW must be in the range of [1, 63]. In the conv3d scenario, strideD ... [1,1000000]":
    # elements of stride, and a scenario.
    conv = api("ops-nn-8.5.0-en/conv/convolution_forward/docs/aclnnQuantConvolution_en.md", "aclnnQuantConvolution")
    assert not [r for r in conv.value_ranges if r.param == "stride"]
    # A constraints item under a product item holds on those chips only (aclnnDequantSwigluQuantV2:529).
    dsq = api("ops-nn/quant/dequant_swiglu_quant/docs/aclnnDequantSwigluQuantV2.md", "aclnnDequantSwigluQuantV2")
    # (Its line 369 holds under yOut's dtype: "当yOut的数据类型为FLOAT4_E2M1、FLOAT4_E1M2时，yOut的最后一维需要是2的倍数".)
    assert [(d.line, d.when_dtype is not None, d.products) for d in dsq.divisibility] == \
        [(369, True, ()), (529, False, (Soc.ASCEND910B, Soc.ASCEND910_93))]


def test_constraints_lines_give_dimension_rules():
    mx = api("ops-nn/quant/swiglu_backward_mx_quant_with_dual_axis/docs/aclnnSwigluBackwardMxQuantWithDualAxis.md",
             "aclnnSwigluBackwardMxQuantWithDualAxis")
    assert "x.shape[-1] % 64 == 0" in [(d.describe()) for d in mx.divisibility]
    assert 384 in [d.line for d in mx.divisibility]  # "- 输入x的最后一维必须能被64整除。" (约束说明)


def test_shape_consequents_that_say_more_than_a_shape_are_not_read():
    # "reductionOptional为“none”时，shape为[N]，与input第零维一致；否则shape为[1]": "第零维" is no 0-d shape,
    # and [N] is not input's shape.
    ce = api("ops-nn/loss/cross_entropy_loss/docs/aclnnCrossEntropyLoss.md", "aclnnCrossEntropyLoss")
    assert ce.shape_rules == ()
    # "当reduction的值不为0时，out与self、target做broadcast后，再reduce 0轴得到的tensor的shape一致": a reduction.
    mse = api("ops-nn/loss/mse_loss/docs/aclnnMseLossOut.md", "aclnnMseLossOut")
    assert [(r.negated, r.form) for r in mse.shape_rules] == [(False, ShapeForm.SAME)]
    # "当xQuantMode为pertoken时，shape是1维（m，），其中m与输入x的m一致": not x's shape.
    qmd = api("ops-nn/matmul/quant_matmul_dequant/docs/aclnnQuantMatmulDequant.md", "aclnnQuantMatmulDequant")
    assert [(r.values, r.form) for r in qmd.shape_rules] == [(("pertensor",), ShapeForm.SCALAR)]


def test_reserved_parameters_that_are_ignored_are_recognised_but_not_required_null():
    unpool = api("ops-nn/index/scatter_elements/docs/aclnnMaxUnpool3d.md", "aclnnMaxUnpool3d")
    # "预留参数，当前版本不参与计算，需要传入size大小为3、值大于0的Host侧aclIntArray"
    assert unpool.param("stride").reserved is Reserved.UNUSED and not unpool.param("stride").must_be_null
    cdist = api("ops-math/math/cdist/docs/aclnnCdist.md", "aclnnCdist")
    assert cdist.param("compute_mode").reserved is Reserved.UNUSED
    # "正向计算的中间结果，暂不使用" (no 预留): a tensor the operator does not read, which may be anything.
    log_sigmoid = api("ops-nn/activation/logsigmoid_grad/docs/aclnnLogSigmoidBackward.md", "aclnnLogSigmoidBackward")
    assert log_sigmoid.param("buffer").reserved is Reserved.UNUSED and not log_sigmoid.param("buffer").must_be_null
    # "预留参数，入参请用空指针代替" (a dtype listed all the same)
    dropout = api("ops-math/random/drop_out_v3/docs/aclnnDropoutV3.md", "aclnnDropoutV3")
    assert dropout.param("optionalNoiseShape").must_be_null
    # "`quantScaleOptional`和`quantOffsetOptional`为预留参数，暂未使用，固定传入空指针" in 约束说明 only
    v3 = api("ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulV3.md",
             "aclnnWeightQuantBatchMatmulV3")
    assert v3.param("quantScaleOptional").must_be_null and v3.param("quantOffsetOptional").must_be_null


def test_a_table_with_a_column_per_product_is_diagnosed():
    path = "ops-nn/conv/convolution_backward/docs/aclnnConvTbcBackward.md"
    found = [d for d in page(path).diagnostics if d.code == "per-product-table-unread"]
    assert [d.line for d in found] == [385]
    assert "rows: self约束, input约束, weight约束, dtype约束" in found[0].message


# --- What make corpus found: page examples phase 1 refused because of a misreading --------------------


@pytest.mark.parametrize("path, name, param, other", [
    # "shape需要与varRef计算得出的切片shape保持一致": the slice's shape, computed from varRef.
    ("ops-math/conversion/strided_slice_assign_v2/docs/aclnnStridedSliceAssignV2.md", "aclnnStridedSliceAssignV2",
     "inputValue", "varRef"),
    # "out的shape与self的shape不相同，sorter的shape与sortedSequence的shape不相同": two pairs, not four tensors.
    ("ops-math/math/search_sorted/docs/aclnnSearchSorted.md", "aclnnSearchSorted", "sortedSequence", "self"),
    # "元素个数为1或者元素个数与self输入的channels一致": an element count, and one alternative.
    ("ops-nn/activation/p_relu/docs/aclnnPrelu.md", "aclnnPrelu", "weight", "self"),
    # "shape需要与x1后几维保持一致", "shape的维度值与dy需要norm的维度值相同": the last dimensions only.
    ("ops-nn/experimental/norm/fused_add_rms_norm/docs/aclnnFusedAddRmsNorm.md", "aclnnFusedAddRmsNorm", "gamma", "x1"),
    ("ops-nn/norm/add_layer_norm_grad/docs/aclnnAddLayerNormGrad.md", "aclnnAddLayerNormGrad", "gamma", "dy"),
    ("ops-nn/norm/deep_norm/docs/aclnnDeepNorm.md", "aclnnDeepNorm", "beta", "x"),
    # "The shape size of index must be equal to the shape value of source in the dim dimension."
    ("ops-nn-8.5.0-en/index/inplace_scatter_add/docs/aclnnIndexAdd_en.md", "aclnnIndexAdd", "index", "source"),
    # "NC维度和self保持一致"; "gradOutput、self和out的shape不匹配" (they fit, a pooled gradient and its input).
    ("ops-nn/pooling/adaptive_avg_pool3d_grad/docs/aclnnAdaptiveAvgPool3dBackward.md", "aclnnAdaptiveAvgPool3dBackward",
     "gradOutput", "self"),
    # "gradOutput与indices的shape不一致，self和gradInput的shape不一致"
    ("ops-nn/pooling/adaptive_max_pool3d_grad/docs/aclnnAdaptiveMaxPool2dBackward.md", "aclnnAdaptiveMaxPool2dBackward",
     "gradOutput", "self"),
])
def test_no_same_shape_where_the_page_means_part_of_a_shape(path, name, param, other):
    from gen.ir import RelationKind

    found = api(path, name)
    assert other not in found.param(param).related(RelationKind.SAME_SHAPE)
    assert param not in found.param(other).related(RelationKind.SAME_SHAPE)


def test_a_dtype_in_a_condition_is_not_the_unsupported_one():
    # "cubeMathType=3: ... If the input data type is not FLOAT32, this option is not supported." (A2/A3)
    bmm = api("ops-nn-8.5.0-en/matmul/batch_mat_mul_v3/docs/aclnnBatchMatMul_en.md", "aclnnBatchMatMul")
    assert DType.FLOAT in bmm.param("self").dtypes_for(Soc.ASCEND910B)


def test_a_table_with_a_column_per_product_gives_the_dtypes_it_excludes_per_chip():
    conv = api("ops-nn/conv/convolution_forward/docs/aclnnConvolution.md", "aclnnConvolution")
    # "input、weight数据类型不支持HIFLOAT8、FLOAT8_E4M3FN" (Atlas A2), "...不支持BFLOAT16、HIFLOAT8、FLOAT8_E4M3FN"
    # (Atlas 推理系列产品), of the row "input、weight"; the 950 column states a list under conditions: not read.
    assert conv.param("weight").dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
    assert conv.param("input").dtypes_for(Soc.ASCEND310P) == (DType.FLOAT, DType.FLOAT16)
    assert DType.HIFLOAT8 in conv.param("input").dtypes_for(Soc.ASCEND950)
    # "bias数据类型不支持INT32，会转成FLOAT参与计算" (the A2 column of aclnnQuantConvolution)
    quant = api("ops-nn/conv/convolution_forward/docs/aclnnQuantConvolution.md", "aclnnQuantConvolution")
    assert DType.INT32 not in quant.param("bias").dtypes_for(Soc.ASCEND910B)
    assert DType.INT32 in quant.param("bias").dtypes



def test_array_lengths_from_rows_and_error_rows():
    pool = api("ops-nn/pooling/max_pool_v3/docs/aclnnMaxPool.md", "aclnnMaxPool")
    lengths = {r.param: r.lengths for r in pool.array_lengths}
    # "长度为1或2"; "数组长度为0、1或2 ... 当数组长度为0时，strides取默认值为1"; "长度为0、1、2或4".
    assert lengths == {"kernelShape": (1, 2), "strides": (0, 1, 2), "pads": (0, 1, 2, 4), "dilations": (0, 1, 2, 4)}
    # "长度为0（sH=kH, sW=kW）或长度为1（sH=sW）或2（sH, sW）": the glosses dropped, one list.
    avg = api("ops-nn/pooling/avg_pool3_d/docs/aclnnAvgPool2d.md", "aclnnAvgPool2d")
    assert {r.param: r.lengths for r in avg.array_lengths}["strides"] == (0, 1, 2)
    # An error row states what is refused: "outputMask的长度不为3".
    grad = api("ops-nn/norm/group_norm_grad/docs/aclnnGroupNormBackward.md", "aclnnGroupNormBackward")
    assert [(r.param, r.lengths) for r in grad.array_lengths] == [("outputMask", (3,))]
    # "对于一维卷积反向，数组长度必须为1": one case of several, no rule; "数组长度是1" is one.
    conv = api("ops-nn/conv/convolution_backward/docs/aclnnConvolutionBackward.md", "aclnnConvolutionBackward")
    assert [(r.param, r.lengths) for r in conv.array_lengths] == [("biasSizes", (1,))]
    # "`dims` 为空但 `shifts` 长度不为 1": under what another argument is, no rule.
    assert not api("ops-math/experimental/math/roll/docs/aclnnRoll.md", "aclnnRoll").array_lengths
    # English: "The length can only be 0, 1, or 2." and the error row "The length of stride is not 0, 1, or 2."
    english = api("ops-nn-8.5.0-en/pooling/max_pool3d_grad_with_argmax/docs/aclnnMaxPool2dWithIndicesBackward_en.md",
                  "aclnnMaxPool2dWithIndicesBackward")
    assert {r.param: r.lengths for r in english.array_lengths}["stride"] == (0, 1, 2)


def test_divisibility_under_a_dtype_a_value_or_a_chip():
    # A row: "当对应yOut的数据类型为INT4时，x最后一维的大小必须能被2整除"; yOut's own row names no tensor:
    # "数据类型为INT4时，最后一维的大小必须能被2整除"; a constraint names two: "需满足x和yOut的最后一维能被2整除".
    quant = api("ops-nn/quant/dynamic_quant/docs/aclnnDynamicQuantV3.md", "aclnnDynamicQuantV3")
    assert sorted({d.describe() for d in quant.divisibility}) == [
        "x.shape[-1] % 2 == 0 when the dtype of yOut is INT4", "x.shape[-1] % 8 == 0 when the dtype of yOut is INT32",
        "yOut.shape[-1] % 2 == 0 when the dtype of yOut is INT4"]
    # Either of two outputs: "当输出y1Out或y2Out的数据类型为INT4时，x1的尾轴必须能被2整除".
    norm = api("ops-nn/norm/add_rms_norm_dynamic_quant/docs/aclnnAddRmsNormDynamicQuantV2.md",
               "aclnnAddRmsNormDynamicQuantV2")
    assert [d.describe() for d in norm.divisibility] == ["x1.shape[-1] % 2 == 0 when the dtype of y1Out or y2Out is INT4"]
    # A value of an int argument: "如果dstType为29(INT4)，shape的最后一维需要能被2整除"; an error row
    # states what is refused: "y的数据类型为INT4时，x的shape尾轴大小不是偶数".
    group = api("ops-nn/quant/group_quant/docs/aclnnGroupQuant.md", "aclnnGroupQuant")
    assert sorted(d.describe() for d in group.divisibility) == [
        "x.shape[-1] % 2 == 0 when dstType == 29", "x.shape[-1] % 2 == 0 when the dtype of y is INT4",
        "x.shape[-1] % 8 == 0 when dstType == 3"]
    # A chip's: "Ascend 950PR/Ascend 950DT：当y的数据类型为INT4时，x、gamma以及beta的最后一维必须为偶数".
    v3 = api("ops-nn/norm/rms_norm_quant_v3/docs/aclnnRmsNormQuantV3.md", "aclnnRmsNormQuantV3")
    # The API has no beta (betaOptional): the rule holds of x and gamma.
    assert {(d.param, d.products) for d in v3.divisibility} == {(n, (Soc.ASCEND950,)) for n in ("x", "gamma")}
    # Two conditions of an error row ("...不等于...的1/8，并且x的尾轴不能被8整除"): refused when both hold.
    assert any("x的尾轴不能被8整除" in m for m in unread("ops-nn/norm/rms_norm_quant_v3/docs/aclnnRmsNormQuantV3.md"))


def test_divisibility_under_chips_alone_or_a_value_passed_with_words():
    # "Atlas A2 训练系列产品/Atlas A2 推理系列产品：x的最后一维必须能被64整除": the chips alone open it.
    v2 = api("ops-nn/quant/dequant_swiglu_quant/docs/aclnnDequantSwigluQuantV2.md", "aclnnDequantSwigluQuantV2")
    assert "x.shape[-1] % 64 == 0 on Ascend910B, Ascend910_93" in [d.describe() for d in v2.divisibility]
    # "当dstType传入值为29(表示yOut输出为INT4量化)时，x的最后一维需要为4的倍数": what is passed, glossed in words.
    swiglu = api("ops-nn/quant/swi_glu_quant/docs/aclnnSwiGluQuantV2.md", "aclnnSwiGluQuantV2")
    assert "x.shape[-1] % 4 == 0 when dstType == 29" in [d.describe() for d in swiglu.divisibility]
    # A chip's restatement of the row's rule ("最后一维需要是2的倍数") is that rule, not a second one.
    path = "ops-nn/quant/dequant_swiglu_quant/docs/aclnnDequantSwigluQuant.md"
    assert [d.describe() for d in api(path, "aclnnDequantSwigluQuant").divisibility] == ["x.shape[-1] % 2 == 0"]
    assert not [m for m in unread(path) if "2的倍数" in m]


def test_an_arrays_element_product_against_a_tensors_last_dimensions():
    # The row: "size大小为2,两个元素乘积值需大于等于self在H和W维度上的size乘积值"; its error rows say it again
    # ("outputSize的两个元素乘积值小于self在H和W维度上的size乘积值", "outputSize的乘积小于self的H轴与W轴的乘积"): one rule.
    unpool = api("ops-nn/index/scatter_elements/docs/aclnnMaxUnpool2d.md", "aclnnMaxUnpool2d")
    assert [(r.describe(), r.line) for r in unpool.array_products] == [("prod(outputSize) >= prod(self.shape[-2:])", 116)]
    # An error row alone, D, H and W: the last three ("the product of sizes of self in the D, H, and W dimensions").
    for path, name in (("ops-nn/index/gather_elements/docs/aclnnMaxUnpool3dBackward.md", "aclnnMaxUnpool3dBackward"),
                       ("ops-nn-8.5.0-en/index/gather_elements/docs/aclnnMaxUnpool3dBackward_en.md", "aclnnMaxUnpool3dBackward")):
        assert [r.describe() for r in api(path, name).array_products] == ["prod(outputSize) >= prod(self.shape[-3:])"]
    # Its edge: a product equal to the dimensions' is accepted, one less refused; the leading dimensions do not count.
    rule = unpool.array_products[0]
    assert not rule.refuses((2, 8), (1, 3, 4, 4)) and rule.refuses((3, 5), (1, 3, 4, 4))


def test_a_padded_output_shape_from_the_rows_clauses():
    # "out倒数第二维度的数值等于self倒数第二维度的数值加padding后两个值，out最后一维度的数值等于self最后一维度的数值加
    # padding前两个值": each dimension from the last, widened by the pair F.pad gives it; of three, "中间两个" is the
    # second; CircularPad's clauses stand in list items of one row.
    for path, name, pairs, line in (
            ("ops-math/conversion/mirror_pad/docs/aclnnReflectionPad1d.md", "aclnnReflectionPad1d", 1, 105),
            ("ops-math/conversion/mirror_pad/docs/aclnnReflectionPad2d.md", "aclnnReflectionPad2d", 2, 113),
            ("ops-math/conversion/mirror_pad/docs/aclnnReflectionPad3d.md", "aclnnReflectionPad3d", 3, 125),
            ("ops-math/conversion/pad_v3/docs/aclnnReplicationPad3d.md", "aclnnReplicationPad3d", 3, 124),
            ("ops-math/conversion/circular_pad/docs/aclnnCircularPad2d.md", "aclnnCircularPad2d", 2, 112),
            ("ops-math/conversion/circular_pad/docs/aclnnCircularPad3d.md", "aclnnCircularPad3d", 3, 122)):
        rules = api(path, name).padded_shapes
        assert [(r.param, r.tensor, r.padding, r.pairs, r.line) for r in rules] == [("out", "self", "padding", pairs, line)]
        assert not [m for m in unread(path) if "加padding" in m]
    # ReplicationPad2d's row copies 1d's ("除被填充的最后一维外，需要与self一致") beside a padding of four values: the
    # page contradicts itself, and the sentence is diagnosed rather than read as either.
    path = "ops-math/conversion/pad_v3/docs/aclnnReplicationPad2d.md"
    assert not api(path, "aclnnReplicationPad2d").padded_shapes
    assert [m for m in unread(path) if "widens 1 dimension(s) and padding has 4 values" in m]


def test_a_padded_shape_derived_by_the_formula():
    # "self的shape和pad的输入推导出的shape与out的shape不一致" under a formula "dim0_{begin}+dim0_{in}+dim0_{end}": one
    # dimension per pair of pad, from the last (pairs 0); a derived shape without such a formula stays unread.
    path = "ops-math/conversion/pad_v3/docs/aclnnConstantPadNd.md"
    rule, = api(path, "aclnnConstantPadNd").padded_shapes
    assert (rule.param, rule.tensor, rule.padding, rule.pairs) == ("out", "self", "pad", 0)
    assert rule.expected((1, 1, 1, 1, 1), (0, 1, 2, 3, 4, 5)) == (1, 1, 10, 6, 2)  # the page's example 2
    assert rule.expected((2, 3), (1, 2, 0)) is None
    assert not [m for m in unread(path) if "推导出的shape" in m]


def test_a_padded_shapes_arithmetic():
    rule = api("ops-math/conversion/mirror_pad/docs/aclnnReflectionPad2d.md", "aclnnReflectionPad2d").padded_shapes[0]
    # [left, right, top, bottom]: W by the first pair, H by the second; the leading dimensions kept.
    assert rule.expected((2, 3, 5, 6), (2, 3, 1, 4)) == (2, 3, 10, 11)
    assert rule.expected((5, 6), (-1, -2, 0, 0)) == (5, 3)
    # Not judged: another length (the length rule's), fewer dimensions (the rank's), a negative extent (the pads' rows').
    assert rule.expected((2, 3, 5, 6), (1, 1)) is None
    assert rule.expected((6,), (1, 1, 1, 1)) is None
    assert rule.expected((2, 3), (-2, -2, 0, 0)) is None


def test_ranges_bounded_by_a_tensors_rank_in_other_words():
    # "axis的取值不在[-x_rank, x_rank)范围内": a tensor's name and "_rank".
    path = "ops-math/math/scale/docs/aclnnScale.md"
    assert "axis in [-rank(x), rank(x))" in [r.describe() for r in api(path, "aclnnScale").value_ranges]
    assert not [m for m in unread(path) if "x_rank" in m]
    # An error row's "[-rank, rank-1]" with the letter dim's row defines ("其中rank是输入Tensor self的维度").
    path = "ops-nn/experimental/activation/log_softmax_v2/docs/aclnnLogSoftmaxV2.md"
    assert not [m for m in unread(path) if "rank-1" in m]
    # "(dim_num is the shape dimension of gradOutput)"; [-n, n] is [-n, n): no dimension is numbered n.
    grad = api("ops-nn-8.5.0-en/activation/logsoftmax_grad/docs/aclnnLogSoftmaxBackward_en.md", "aclnnLogSoftmaxBackward")
    assert [r.describe() for r in grad.value_ranges] == ["dim in [-rank(gradOutput), rank(gradOutput))"]


def test_divisibility_under_an_int_arguments_dtype_values():
    # "当dstType为FLOAT4_E2M1、FLOAT4_E1M2时，x的最后一维必须是偶数": dstType (int64_t) carries an
    # aclDataType's value; one rule per dtype (ACL_FLOAT4_E2M1 is 40, ACL_FLOAT4_E1M2 41).
    mx = api("ops-nn/quant/dynamic_block_mx_quant/docs/aclnnDynamicBlockMxQuant.md", "aclnnDynamicBlockMxQuant")
    assert [d.describe() for d in mx.divisibility] == ["x.shape[-1] % 2 == 0 when dstType == 40",
                                                      "x.shape[-1] % 2 == 0 when dstType == 41"]


def test_divisibility_under_the_destination_type():
    # "目的类型为FLOAT4_E2M1、FLOAT4_E1M2时，x的最后一维必须是偶数" (aclnnDynamicMxQuant.md:127): the destination
    # type is the API's one dstType argument.
    mx = api("ops-nn/quant/dynamic_mx_quant/docs/aclnnDynamicMxQuant.md", "aclnnDynamicMxQuant")
    assert [d.describe() for d in mx.divisibility] == ["x.shape[-1] % 2 == 0 when dstType == 40",
                                                      "x.shape[-1] % 2 == 0 when dstType == 41"]
    assert {d.line for d in mx.divisibility} == {mx.param("x").line}  # x's row cites it
    assert not [m for m in unread("ops-nn/quant/dynamic_mx_quant/docs/aclnnDynamicMxQuant.md") if "偶数" in m]


def test_a_least_length_in_bytes_of_some_chips():
    # "Atlas 推理系列产品：x1、x2、beta、gamma、biasOptional五个输入的尾轴长度必须大于等于32 Bytes": each
    # tensor's last axis, on the chip the product names only.
    norm = api("ops-nn/norm/add_layer_norm/docs/aclnnAddLayerNorm.md", "aclnnAddLayerNorm")
    assert {(d.param, d.axis, d.minimum, d.products) for d in norm.dim_bytes} == {
        (n, -1, 32, (Soc.ASCEND310P,)) for n in ("x1", "x2", "beta", "gamma", "biasOptional")}
    # In English, and "x、y的尾轴长度，以及gamma的尾轴长度" (the axis said again).
    english = api("ops-nn-8.5.0-en/norm/rms_norm/docs/aclnnRmsNorm_en.md", "aclnnRmsNorm")
    assert sorted(d.param for d in english.dim_bytes) == ["gamma", "x"]
    assert {d.param for d in api("ops-nn/norm/rms_norm_quant/docs/aclnnRmsNormQuant.md", "aclnnRmsNormQuant").dim_bytes} \
        >= {"x", "gamma"}
    # "x1、x2、y1Out、y2Out、xOut的norm轴长度，以及gamma、scales1、scales2Optional、zeroPoints1Optional、
    # zeroPoints2Optional的长度必须大于等于32 Bytes": the whole of the tensors listed second (every element);
    # the norm axes of the first ones are what gamma spans, no rule of their own. In English alike.
    whole = {(n, None, 32, (Soc.ASCEND310P,))
             for n in ("gamma", "scales1", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional")}
    for page in ("ops-nn/norm/add_rms_norm_quant/docs/aclnnAddRmsNormQuant.md",
                 "ops-nn-8.5.0-en/norm/add_rms_norm_quant/docs/aclnnAddRmsNormQuant_en.md"):
        quant = api(page, "aclnnAddRmsNormQuant")
        assert {(d.param, d.axis, d.minimum, d.products) for d in quant.dim_bytes} == whole, page
    assert quant.dim_bytes[0].describe() == "gamma.numel() * itemsize >= 32 bytes on Ascend310P"
    # A byte count is the element size times the dimension's: 32 bytes are 8 FLOATs, 16 FLOAT16s.
    assert (norm.dim_bytes[0].least_size(DType.FLOAT), norm.dim_bytes[0].least_size(DType.FLOAT16)) == (8, 16)
    assert norm.dim_bytes[0].least_size(DType.INT4) is None
    # An alignment: "Atlas 推理系列产品：不支持入参x的最后一个维度S2非32Byte对齐的场景" (a letter names the axis).
    masked = api("ops-nn/norm/masked_softmax_with_rel_pos_bias/docs/aclnnMaskedSoftmaxWithRelPosBias.md",
                 "aclnnMaskedSoftmaxWithRelPosBias")
    assert [(d.param, d.multiple, d.minimum, d.products) for d in masked.dim_bytes] == [("x", 32, 0, (Soc.ASCEND310P,))]
    assert (masked.dim_bytes[0].size_step(DType.FLOAT16), masked.dim_bytes[0].size_step(DType.INT64)) == (16, 4)


def test_a_rule_of_a_given_tensor_holds_whenever_it_is_given():
    # "若存在需与 self shape 一致": the condition is only that weightOptional be passed.
    path = "ops-nn/experimental/loss/sigmoid_cross_entropy_with_logits_grad_v2/docs/aclnnBinaryCrossEntropyWithLogitsBackward.md"
    found = api(path, "aclnnBinaryCrossEntropyWithLogitsBackward")
    assert found.param("weightOptional").related(RelationKind.SAME_SHAPE) == ("self",)
    assert not [m for m in unread(path) if "weightOptional" in m]


def test_a_shape_of_a_given_tensor_no_reader_takes_stays_diagnosed():
    # "当 runningMean 非空指针时, shape支持1维, size需要与 input 的Channel轴size一致": given, and unread.
    path = "ops-nn/norm/sync_batch_norm_gather_stats_with_counts/docs/aclnnBatchNormGatherStatsWithCounts.md"
    assert any("runningMean" in m and "a shape this parser cannot read" in m for m in unread(path))
    assert not api(path, "aclnnBatchNormGatherStatsWithCounts").param("runningMean").relations


def test_ranks_under_a_host_value_are_a_shape_rule():
    # "当quantMode = "dynamic"时，shape支持2-8维度": the ranks hold under that value only.
    path = "ops-nn/norm/add_layer_norm_quant_v2/docs/aclnnAddLayerNormQuantV2.md"
    rules = {(r.param, r.values, r.ranks) for r in api(path, "aclnnAddLayerNormQuantV2").shape_rules
             if r.form is ShapeForm.RANK}
    assert ("gamma", ("dynamic",), (2, 8)) in rules and ("gamma", ("static",), (1, 8)) in rules
    # Ranks do not decide the shape: beta's "shape与gamma一致" stays a relation.
    assert api(path, "aclnnAddLayerNormQuantV2").param("beta").related(RelationKind.SAME_SHAPE) == ("gamma",)
    # Ranks and a dtype list under one condition: the dtypes are not read, so neither is the sentence.
    assert not any(r.param == "x1" for r in api(path, "aclnnAddLayerNormQuantV2").shape_rules)
    assert any("x1" in m and "dynamic" in m for m in unread(path))


def test_a_shape_under_the_tensors_own_dtype():
    # "类型为INT32时，shape的最后一维是x最后一维的1/8，其余维度和x一致。其他类型时，shape与x一致": y's shape is
    # x's unless y is INT32 (the dtype the row's other sentence names); the INT32 shape stays diagnosed.
    path = "ops-nn/quant/group_quant/docs/aclnnGroupQuant.md"
    rule = next(r for r in api(path, "aclnnGroupQuant").shape_rules if r.param == "y")
    assert (rule.form, rule.others, rule.negated) == (ShapeForm.SAME, ("x",), True)
    assert rule.when_dtype.params == ("y",) and rule.when_dtype.dtypes == (DType.INT32,)
    assert rule.meets({"y": DType.INT8}) and not rule.meets({"y": DType.INT32})
    assert any("1/8" in m for m in unread(path))
    # "数据类型为INT4时，shape与入参x一致": under that dtype only.
    flat = next(r for r in api("ops-nn/quant/flat_quant/docs/aclnnFlatQuant.md", "aclnnFlatQuant").shape_rules
                if r.param == "out")
    assert (flat.when_dtype.dtypes, flat.negated, flat.others) == ((DType.INT4,), False, ("x",))


@pytest.mark.parametrize("path, words, why", [
    # One naming an input, an output and an array, under a formula that does not pad (ConstantPadNd's pads: read).
    ("ops-nn/pooling/adaptive_avg_pool3d/docs/aclnnAdaptiveAvgPool3d.md", "推导出的shape", "a shape derived from the arguments"),
])
def test_a_shape_sentence_no_rule_reads_is_diagnosed(path, words, why):
    assert any(words in m and why in m for m in unread(path))


def test_an_error_row_a_relation_reads_is_not_diagnosed_unread():
    # "self和out的shape不一致" holds on every call: the relation reader's, no unread rule.
    assert not [m for m in unread("ops-math/math/is_neg_inf/docs/aclnnIsNegInf.md") if "shape" in m]


def test_a_chips_dtype_bullet_under_the_constraints_narrows_that_chip_only():
    # 约束说明: "- Atlas 推理系列产品：x1、x2、beta、gamma、biasOptional支持FLOAT32、FLOAT16." (the table lists BFLOAT16 too):
    # Ascend310P refuses BFLOAT16, the other chips keep the table's list, and the refusal cites the bullet.
    path = "ops-nn/norm/add_layer_norm/docs/aclnnAddLayerNorm.md"
    x1 = api(path, "aclnnAddLayerNorm").param("x1")
    assert DType.BFLOAT16 not in x1.dtypes_for(Soc.ASCEND310P) and DType.BFLOAT16 in x1.dtypes_for(Soc.ASCEND910B)
    assert [(pl.soc, pl.line) for pl in x1.dtype_note_lines] == [(Soc.ASCEND310P, 348)]
    # "- Ascend 950PR/Ascend 950DT：不支持INT16、INT8、UINT8." names no parameter: at the section's top level it speaks of
    # the API's tensors.
    sub = api("ops-nn/foreach/foreach_sub_list/docs/aclnnForeachSubList.md", "aclnnForeachSubList").param("x1")
    assert DType.INT8 not in sub.dtypes_for(Soc.ASCEND950) and DType.INT8 in sub.dtypes_for(Soc.ASCEND910B)
    # A bullet about the computation ("Cube单元不支持FLOAT32计算。当输入为FLOAT32，可通过设置cubeMathType=1...") or under
    # a condition is no dtype list: FLOAT stays on Ascend910.
    gemm = api("ops-nn/matmul/gemm/docs/aclnnGemm.md", "aclnnGemm").param("A")
    assert DType.FLOAT in gemm.dtypes_for(Soc.ASCEND910)


def test_a_tensor_given_is_no_condition_on_a_constraint_or_error_rows_relation():
    # 约束说明: "x3若非空，shape与output相同" is x3's relation whenever x3 is passed (phase 1 judges none on an
    # absent tensor), read as its notes would be, and no longer diagnosed as conditional.
    path = "ops-transformer/mc2/matmul_all_reduce/docs/aclnnQuantMatmulAllReduce.md"
    x3 = next(p for p in api(path, "aclnnQuantMatmulAllReduce").params if p.name == "x3")
    assert "output" in x3.related(RelationKind.SAME_SHAPE)
    assert not any("x3若非空" in m for m in unread(path))
    # "bias若非空，shape大小与output最后一维大小相等": one dimension, which no relation says: a dimension equality
    # (test_a_given_tensors_size_against_a_dimension).
    # An error row: "当weights不为空时，self、weights shape不一致" is classified, its relation read.
    bincount = "ops-math/math/bincount/docs/aclnnBincount.md"
    row = next(e for e in api(bincount, "aclnnBincount").errors if e.line == 185)
    assert row.category is not None and not unread(bincount)
    # "antiquantOffsetOptional存在输入时，shape与antiquantScale不相同" names no tensor of its own after the opening.
    wqbmm = "ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulV2.md"
    assert any("antiquantOffsetOptional存在输入时" in m for m in unread(wqbmm))


def test_a_reductions_output_shape_from_its_keepdim_sentences():
    # "若keepDim为true，除dim指定维度上的size为1以外，其余维度的shape需要与self保持一致" and "若keepDim为false，reduce轴的
    # 维度不保留" (out's row), "out的shape不等于由self，dim，keepDim推导得到的shape" (an error row): one rule, the row's.
    path = "ops-math/math/reduce_log_sum_exp/docs/aclnnLogSumExp.md"
    rule, = api(path, "aclnnLogSumExp").reduced_shapes
    assert (rule.param, rule.tensor, rule.dims, rule.keepdim, rule.line) == ("out", "self", "dim", "keepDim", 131)
    assert not [m for m in unread(path) if "keepDim" in m or "推导得到的shape" in m]
    # "keepDim为true时，valuesOut或indicesOut的维度与self的维度不一致": each output it names.
    path = "ops-nn/index/gather_v2/docs/aclnnNanMedianDim.md"
    assert [(r.param, r.dims) for r in api(path, "aclnnNanMedianDim").reduced_shapes] == \
        [("valuesOut", "dim"), ("indicesOut", "dim")]
    assert not [m for m in unread(path) if "keepDim" in m]


def test_a_reduced_shapes_forms():
    rule = api("ops-math/math/reduce_log_sum_exp/docs/aclnnLogSumExp.md", "aclnnLogSumExp").reduced_shapes[0]
    assert rule.forms((2, 3, 4), (1, -1)) == ((2, 1, 1), (2,))
    assert rule.forms((2, 3), ()) == ((1, 1), ()) and rule.forms((2, 3), None) == ((1, 1), ())  # every dimension
    assert rule.forms((), (0,)) == ((), ())  # a 0-d source: dimension 0 or -1
    # Not judged: a dimension out of range or named twice (the dimension's own rule refuses it).
    assert rule.forms((2, 3), (2,)) is None and rule.forms((2, 3), (1, -1)) is None


def test_a_given_tensors_size_against_a_dimension():
    # 约束说明: "bias若非空，shape大小与output最后一维大小相等": bias's rule whenever it is passed, its one dimension
    # (its row: 1-D) against output's last.
    path = "ops-transformer/mc2/matmul_all_reduce/docs/aclnnWeightQuantMatmulAllReduce.md"
    equal = [(d.param, d.axis, d.other, d.other_axis) for d in api(path, "aclnnWeightQuantMatmulAllReduce").dim_equalities]
    assert ("bias", 0, "output", -1) in equal
    assert not [m for m in unread(path) if "bias若非空" in m]
    # An error row: "bias存在时，bias shape与输出tensor(out)最后一个维度的大小不一致".
    path = "ops-nn/matmul/batch_matmul_quant/docs/aclnnBatchMatmulQuant.md"
    assert [(d.param, d.axis, d.other, d.other_axis) for d in api(path, "aclnnBatchMatmulQuant").dim_equalities] == \
        [("bias", 0, "out", -1)]
    # A dimension's size ("尾轴大小与grad尾轴相同") is the dimension equality's, no whole size; a tensor of more
    # dimensions than one has no size a dimension equals.
    assert not [m for m in unread("ops-math/math/cdist/docs/aclnnCdist.md") if "whole size" in m]


def test_bounds_in_named_limits_and_in_a_dimensions_letter():
    # "取值范围[0, MAX_INT32)，其中MAX_INT32值为2147483647": C's limit by its name.
    path = "ops-transformer/mc2/moe_distribute_combine_add_rms_norm/docs/aclnnMoeDistributeCombineAddRmsNormV2.md"
    rule = next(r for r in api(path, "aclnnMoeDistributeCombineAddRmsNormV2").value_ranges if r.param == "zeroExpertNum")
    assert (rule.low.offset, rule.high.offset, rule.high.inclusive) == (0, 2**31 - 1, False)


def test_a_bound_in_a_letter_the_rows_shapes_give_a_dimension():
    # aclStft's self: "shape为[L]或[B, L]（L为序列长度...）", nFft: "取值范围为(0, L]": L is self's last dimension.
    page = parse_file(Path(__file__).resolve().parents[2] / "op_docs" / "derived" / "aclStft.md")
    rule = next(r for api in page.apis for r in api.value_ranges if r.param == "nFft")
    assert (rule.high.tensor, rule.high.axis, rule.high.inclusive) == ("self", "-1", True)
    # "[1, min(E, 1024)]" (x: "shape为[NUM_ROWS, E]或[B, S, E]"): at most each term, never the open range (E, 1024).
    page = parse_file(Path(__file__).resolve().parents[2] / "op_docs" / "derived" / "aclnnMoeGatingTopKSoftmax.md")
    highs = {(r.high.extent.value, r.high.tensor, r.high.axis, r.high.offset, r.high.inclusive)
             for api in page.apis for r in api.value_ranges if r.param == "k" and r.line == 99}
    assert highs == {("size", "x", "-1", 0, True), ("number", "", "", 1024, True)}
    # Where one term does not read ("[32, min(k-1, INT_MAX)]", k no dimension's letter), neither is a rule.
    path = "ops-transformer/mc2/matmul_all_reduce/docs/aclnnWeightQuantMatmulAllReduce.md"
    assert not [r for r in api(path, "aclnnWeightQuantMatmulAllReduce").value_ranges if r.param == "antiquantGroupSize"]
    assert [m for m in unread(path) if "min(k-1,INT_MAX)" in m]


def test_an_error_rows_shape_relation_under_a_bools_value():
    # "当amsgrad为true时，maxGradNormOptionalRef和varRef的shape不一致时": a shape rule under amsgrad, which replaces the
    # row's plain "shape要求与输入varRef保持一致" (CANN refuses it only then); a dtype relation beside it stays diagnosed.
    path = "ops-nn/optim/apply_adam_w_v2/docs/aclnnApplyAdamWV2.md"
    rule, = api(path, "aclnnApplyAdamWV2").shape_rules
    assert (rule.param, rule.when, rule.values, rule.form, rule.others) == \
        ("maxGradNormOptionalRef", "amsgrad", ("1",), ShapeForm.SAME, ("varRef",))
    assert rule.holds(True) and not rule.holds(False)
    path = "ops-nn/optim/apply_adam_w/docs/aclnnApplyAdamW.md"
    assert [r.param for r in api(path, "aclnnApplyAdamW").shape_rules] == ["maxGradNormOptional"]
    assert [m for m in unread(path) if "its dtype relation holds under a condition" in m]


def test_an_error_rows_shape_relation_under_an_integers_value():
    # "当reduction的值为0时，self和target做broadcast后的shape与out的shape不一致": out has the broadcast shape of self
    # and target when reduction is 0, the row's rule (the same one the out row states, read once); nothing is read for
    # the other values, which the row does not speak of.
    path = "ops-nn/loss/lp_loss/docs/aclnnL1Loss.md"
    rules = [r for r in api(path, "aclnnL1Loss").shape_rules if r.form is ShapeForm.SAME]
    assert [(r.param, r.when, r.values, r.others, r.negated) for r in rules] == \
        [("out", "reduction", ("0",), ("self", "target"), False)]
    assert rules[0].holds(0) and not rules[0].holds(1)
    assert not [m for m in unread(path) if "做broadcast后的shape与out的shape不一致" in m]
    # "reduction=0时，result的shape与self和target的broadcast的shape不一致": the same rule, the tensor named first.
    path = "ops-nn/loss/smooth_l1_loss_v2/docs/aclnnSmoothL1Loss.md"
    rules = [r for r in api(path, "aclnnSmoothL1Loss").shape_rules if r.form is ShapeForm.SAME]
    assert [(r.param, r.when, r.values, r.others) for r in rules] == [("result", "reduction", ("0",), ("self", "target"))]
    assert not [m for m in unread(path) if "的broadcast的shape不一致" in m]
    # The English pages' "When the value of reduction is 0, the shape of out is not the same as that obtained after
    # broadcasting self and target": the same rule; "is 1 or 2, ... and then applying a reduction" is no broadcast alone.
    path = "ops-nn-8.5.0-en/loss/mse_loss/docs/aclnnMseLoss_en.md"
    rules = [r for r in api(path, "aclnnMseLoss").shape_rules if r.form is ShapeForm.SAME]
    assert [(r.param, r.when, r.values, r.others) for r in rules] == [("out", "reduction", ("0",), ("self", "target"))]
    assert not [m for m in unread(path) if "is 0, the shape of out" in m]
