"""What each seed page must give (issue 2's "Done when"), one fact per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.ir import Direction, DType, Level, PageKind, ParamKind, Soc
from gen.parse import parse_file

ROOT = Path(__file__).resolve().parents[2]
F, F16, BF16, D = DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE


@pytest.fixture(scope="module")
def pages():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = parse_file(ROOT / "op_docs" / name)
        return cache[name]
    return get


def codes(api):
    return [e.code for e in api.errors]


# --- 000: leaky_relu_backward.md ---------------------------------------------------------------

def test_000_api_and_params(pages):
    (api,) = pages("leaky_relu_backward.md").apis
    assert api.name == "aclnnLeakyReluBackward"
    assert [(p.name, p.kind, p.direction) for p in api.params] == [
        ("gradOutput", ParamKind.TENSOR, Direction.IN), ("self", ParamKind.TENSOR, Direction.IN),
        ("negativeSlope", ParamKind.SCALAR, Direction.IN), ("selfIsResult", ParamKind.BOOL, Direction.IN),
        ("out", ParamKind.TENSOR, Direction.OUT)]


def test_000_tensor_facts(pages):
    api = pages("leaky_relu_backward.md").apis[0]
    for name in ("gradOutput", "self", "out"):
        p = api.param(name)
        assert p.dtypes == (F, F16, BF16, D)
        assert p.rank == (0, 8)
        assert p.noncontiguous is True
    assert api.param("gradOutput").empty_tensor is True
    assert api.param("self").empty_tensor is True


def test_000_negative_slope_has_ten_dtypes(pages):
    p = pages("leaky_relu_backward.md").apis[0].param("negativeSlope")
    assert len(p.dtypes) == 10 and DType.BOOL in p.dtypes and DType.UINT8 in p.dtypes


def test_000_errors(pages):
    api = pages("leaky_relu_backward.md").apis[0]
    assert codes(api) == [161001, 161002, 161002, 161002, 161002]


def test_000_products(pages):
    products = pages("leaky_relu_backward.md").products
    assert [(p.soc, p.supported) for p in products] == [(Soc.ASCEND910_93, True), (Soc.ASCEND910B, True)]


def test_000_header_and_example(pages):
    api = pages("leaky_relu_backward.md").apis[0]
    assert api.header == "aclnnop/aclnn_leaky_relu_backward.h"
    assert api.example.startswith("#include <iostream>") and api.example_line > 0


# --- 001: hardsigmoid_backward.md --------------------------------------------------------------

def test_001_api_params_dtypes_rank(pages):
    api = pages("hardsigmoid_backward.md").apis[0]
    assert api.name == "aclnnHardsigmoidBackward"
    assert [(p.name, p.direction) for p in api.params] == [
        ("gradOutput", Direction.IN), ("self", Direction.IN), ("out", Direction.OUT)]
    for p in api.params:
        assert p.dtypes == (BF16, F16, F) and p.rank == (0, 8)


def test_001_errors_trust_rows_over_rowspan(pages):
    page = pages("hardsigmoid_backward.md")
    assert codes(page.apis[0]) == [161001, 161002, 161002, 161002]
    assert any(d.code == "table-rowspan-overstated" for d in page.diagnostics)


# --- 002: the web dump -------------------------------------------------------------------------

def test_002_same_params_and_kinds(pages):
    api = pages("leaky_relu_backward.web.txt").apis[0]
    assert api.name == "aclnnLeakyReluBackward"
    assert [(p.name, p.kind) for p in api.params] == [
        ("gradOutput", ParamKind.TENSOR), ("self", ParamKind.TENSOR), ("negativeSlope", ParamKind.SCALAR),
        ("selfIsResult", ParamKind.BOOL), ("out", ParamKind.TENSOR)]


def test_002_bfloat16_only_for_atlas_a2(pages):
    p = pages("leaky_relu_backward.web.txt").apis[0].param("gradOutput")
    assert BF16 not in p.dtypes
    # Atlas A3 takes its twin's list (gen.conventions.twin_chip_dtypes).
    assert [e.soc for e in p.dtypes_by_product] == [Soc.ASCEND910_93, Soc.ASCEND910B]
    assert BF16 in p.dtypes_for(Soc.ASCEND910B)


def test_002_three_products(pages):
    assert [p.soc for p in pages("leaky_relu_backward.web.txt").products] == [
        Soc.ASCEND310P, Soc.ASCEND910, Soc.ASCEND910B]


def test_002_lost_error_table_is_diagnosed(pages):
    page = pages("leaky_relu_backward.web.txt")
    lost = [d for d in page.diagnostics if d.code == "error-table-lost"]
    assert len(lost) == 1 and lost[0].level is Level.WARNING and lost[0].line == 46
    assert any(d.code == "example-lost" for d in page.diagnostics)


# --- 003: selu_backward.md (mojibake) ----------------------------------------------------------


def test_003_api_and_params(pages):
    # ASCII survives the mojibake: prototypes and names read without text repair.
    api = pages("selu_backward.md").apis[0]
    assert api.name == "aclnnSeluBackward"
    assert [p.name for p in api.params] == ["gradOutput", "result", "gradInput"]


def test_003_malformed_rows_recovered(pages):
    page = pages("selu_backward.md")
    found = {d.code for d in page.diagnostics}
    assert {"table-empty-row", "table-row-recovered"} <= found


def test_003_directions_dtypes_rank(pages):
    api = pages("selu_backward.md").apis[0]
    assert [p.direction for p in api.params] == [Direction.IN, Direction.IN, Direction.OUT]
    for p in api.params:
        assert p.dtypes == (F, F16, DType.INT32, DType.INT8, BF16) and p.rank == (1, 8)


def test_003_result_rejects_empty_tensors(pages):
    assert pages("selu_backward.md").apis[0].param("result").empty_tensor is False


def test_003_inference_and_training_products_lack_bfloat16(pages):
    p = pages("selu_backward.md").apis[0].param("gradOutput")
    for soc in (Soc.ASCEND310P, Soc.ASCEND910):
        assert p.dtypes_for(soc) == (F, F16, DType.INT32, DType.INT8)
    assert BF16 in p.dtypes_for(Soc.ASCEND910B)


def test_003_six_products_four_supported(pages):
    products = pages("selu_backward.md").products
    assert len(products) == 6 and sum(p.supported for p in products) == 4


def test_003_errors(pages):
    assert codes(pages("selu_backward.md").apis[0]) == [161001, 161002, 161002, 161002]


def test_003_chinese_text_repaired(pages):
    api = pages("selu_backward.md").apis[0]
    assert api.param("gradOutput").description == "表示Selu计算的损失函数，公式中的E。"


# --- 004: the op README ------------------------------------------------------------------------

def test_004_readme(pages):
    page = pages("leaky_relu_grad.README.md")
    assert page.kind is PageKind.OP_README and page.title == "LeakyReluGrad"
    assert len(page.products) == 3 and all(p.supported for p in page.products)
    assert [(l.api, l.doc) for l in page.links] == [("aclnnLeakyReluBackward", "docs/aclnnLeakyReluBackward.md")]


def test_004_readme_params_with_dtypes(pages):
    params = pages("leaky_relu_grad.README.md").params
    assert [p.name for p in params] == ["gradOutput", "self", "negativeSlope", "selfIsResult", "out"]
    assert params[0].dtypes == (F, F16, BF16, D)
    assert len(params[2].dtypes) == 10
    assert params[3].dtypes == () and params[3].kind is None
    assert params[0].kind is ParamKind.TENSOR
