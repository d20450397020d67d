"""What pages of the shared corpus state across parameters, read as gen.ir rules (schema 4): dtype
combinations per product, conditional shape rules of losses, dim ranges, dimension equalities,
divisibility, reserved parameters; and what is not read with confidence, diagnosed instead."""

from __future__ import annotations

import functools

import pytest

from gen.cli import rule_lines
from gen.ir import DType, ShapeForm, Soc
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
    baddbmm = api("ops-nn/matmul/batch_mat_mul_v3/docs/aclnnBaddbmm&aclnnInplaceBaddbmm.md", "aclnnInplaceBaddbmm")
    assert "batch1.shape[-1] == batch2.shape[-2]" in [d.describe() for d in baddbmm.dim_equalities]


def test_a_dimension_computed_from_another_is_not_an_equality():
    path = "ops-math/conversion/pad_v3/docs/aclnnReplicationPad2d.md"
    assert api(path, "aclnnReplicationPad2d").dim_equalities == ()
    assert any("computed from the other" in m for m in unread(path))


def test_divisibility_of_a_dimension_not_of_an_integer_argument():
    gelu = api("ops-nn/activation/gelu_mul/docs/aclnnGeluMul.md", "aclnnGeluMul")
    assert [d.describe() for d in gelu.divisibility] == ["input.shape[-1] % 2 == 0"]
    # "dim对应的self的轴必须是偶数": the size along dim, not dim itself.
    assert api("ops-nn/activation/ge_glu_v2/docs/aclnnGeGlu.md", "aclnnGeGlu").divisibility == ()


def test_reserved_parameters_have_no_dtypes_and_must_be_null():
    nz = api("ops-nn/matmul/weight_quant_batch_matmul_v2/docs/aclnnWeightQuantBatchMatmulNz.md",
             "aclnnWeightQuantBatchMatmulNz")
    for name in ("quantScaleOptional", "quantOffsetOptional"):
        assert nz.param(name).reserved and nz.param(name).optional and not nz.param(name).dtypes


def test_lint_shows_each_rule_with_its_page_line():
    lines = rule_lines(page("ops-nn/loss/mse_loss/docs/aclnnMseLoss.md"))
    assert any(line.endswith(":127: rule: aclnnMseLoss: when reduction not in {0}: out has one element")
               for line in lines), lines
