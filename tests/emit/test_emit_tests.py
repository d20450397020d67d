"""The generated-tests emitter (gen/emit/tests/): what each API's suite parametrizes, from the
page's IR and the semantics file, and that the seeds' suites run and pass on the simulator (and
fail when the golden or a status is wrong)."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gen.api.calls import EXPRESSIBLE
from gen.emit import tests as emitter
from gen.emit.files import FileManager
from gen.model import build_model
from gen.ir import (ArgValue, DimBytes, Direction, Divisibility, DType, DTypeCondition, ErrorCase, ErrorCategory, ExampleArg,
                    ExampleCall, OpSemantics, ParamKind, Product, ProductDTypes, Relation, RelationKind, Soc)
from tests.support.factories import make_api, make_page, make_param, null_error
from tests.support.sim_seed_ir import seed_pages, seed_semantics


@pytest.fixture(scope="module")
def seeds():
    model = build_model(seed_pages(), seed_semantics())
    return {bound.python_name: emitter.suite(bound) for bound in model.apis}


def group(suite, name):
    return next(g for g in suite.groups if g.name == name)


def ids(cases):
    return [c.id for c in cases]


def error_test(suite, category):
    return next(e for e in suite.errors if e.row.category is category)


def one_api_suite(*params, errors=(), golden="torch.neg(self)", **page):
    api = make_api("aclnnFoo", params=params, errors=errors)
    semantics = [OpSemantics("aclnnFoo", "foo.toml", kernel="-self", golden=golden)] if golden else []
    return emitter.suite(build_model([make_page(api, **page)], semantics).apis[0])


def unary(**kw):
    return (make_param("self", **kw), make_param("out", direction=Direction.OUT,
                                                 relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),)))


# ---- files ------------------------------------------------------------------------------------------

def test_every_generated_file_compiles_and_is_deterministic(tmp_path):
    model = build_model(seed_pages(), seed_semantics())
    first, second = FileManager(tmp_path / "a"), FileManager(tmp_path / "b")
    emitter.emit(model, first)
    emitter.emit(model, second)
    assert sorted(first.written) == ["tests/_aclnn_testing.py", "tests/_goldens.py", "tests/conftest.py",
                                     "tests/test_hardsigmoid_backward.py", "tests/test_leaky_relu_backward.py",
                                     "tests/test_selu_backward.py"]
    for path, source in first.written.items():
        compile(source, path, "exec")
    assert first.written == second.written


def test_seed_ops_yield_at_least_100_cases(seeds):
    # Ranks, layouts and promotions are sampled, not crossed with every dtype (make test's budget).
    counts = {name: suite.case_count for name, suite in seeds.items()}
    assert sum(counts.values()) >= 100, counts


# ---- valid calls --------------------------------------------------------------------------------------

def test_every_documented_dtype_is_a_case(seeds):
    assert ids(group(seeds["leaky_relu_backward"], "dtypes").cases) == ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"]
    assert ids(group(seeds["selu_backward"], "dtypes").cases) == ["FLOAT", "FLOAT16", "INT32", "INT8", "BFLOAT16"]


def test_per_soc_dtype_lists_are_embedded(seeds):
    table = seeds["selu_backward"].dtypes
    assert "BFLOAT16" in table["*"]["gradOutput"]
    assert table["Ascend910"]["gradOutput"] == ("FLOAT", "FLOAT16", "INT32", "INT8")
    assert table["Ascend310P"]["result"] == ("FLOAT", "FLOAT16", "INT32", "INT8")


def test_every_documented_rank(seeds):
    leaky = {c.shapes["self"] for c in group(seeds["leaky_relu_backward"], "ranks").cases}
    assert sorted(len(s) for s in leaky) == [0, 1, 3, 4, 5, 6, 7, 8]  # with the base case's rank 2
    selu = {len(c.shapes["result"]) for c in group(seeds["selu_backward"], "ranks").cases}
    assert selu == {1, 3, 4, 5, 6, 7, 8}  # the page's bounds are 1..8


def test_transposed_inputs_in_every_dtype_and_the_other_layouts_once_per_element_size(seeds):
    # A dtype's load path (its gather, its conversion) is reached by the transposed layout; the other
    # stride patterns are loops over elements of one size: the page's first 2-byte dtype, BFLOAT16,
    # goes through them for FLOAT16 too.
    cases = group(seeds["hardsigmoid_backward"], "layouts").cases
    assert sorted(ids(cases)) == sorted([f"transposed-{dtype}" for dtype in ("BFLOAT16", "FLOAT16", "FLOAT")]
                                        + [f"{layout}-{dtype}" for layout in ("strided", "offset")
                                           for dtype in ("BFLOAT16", "FLOAT")] + ["device-FLOAT"])


def test_noncontiguous_layouts_only_where_the_page_allows_them():
    allowed = one_api_suite(*unary())
    assert {c.layout for c in group(allowed, "layouts").cases} == {"transposed", "strided", "offset", "device"}
    assert ids(group(allowed, "out_layouts").cases) == ["out-strided", "out-transposed"]
    forbidden = one_api_suite(*unary(noncontiguous=False))
    assert ids(group(forbidden, "layouts").cases) == ["device-FLOAT"]


def test_empty_tensors_only_where_every_input_allows_them(seeds):
    assert ids(group(seeds["leaky_relu_backward"], "empty").cases) == ["empty0", "empty2x0x3"]
    assert "empty" not in [g.name for g in seeds["selu_backward"].groups]  # result: 不支持空Tensor


def test_broadcasting_only_where_a_relation_allows_it(seeds):
    cases = group(seeds["leaky_relu_backward"], "broadcast").cases
    assert ("gradOutput", (3, 1)) in [(n, s) for c in cases for n, s in c.shapes.items()]
    assert "broadcast" not in [g.name for g in seeds["hardsigmoid_backward"].groups]  # same shape only


def test_mixed_dtypes_only_where_they_promote(seeds):
    promoted = group(seeds["leaky_relu_backward"], "promotion").cases
    assert promoted[0].dtypes == {"gradOutput": "FLOAT", "self": "FLOAT16"}
    assert all(len(set(c.dtypes.values())) == 2 for c in promoted)
    assert "promotion" not in [g.name for g in seeds["selu_backward"].groups]  # same dtype


def test_out_dtypes_the_result_casts_to(seeds):
    assert ids(group(seeds["hardsigmoid_backward"], "out_dtypes").cases) == ["out=BFLOAT16", "out=FLOAT16"]
    # selu's gradInput has its inputs' dtype: out= of that dtype only
    assert [c.out for c in group(seeds["selu_backward"], "out_dtypes").cases] == [{"gradInput": "FLOAT"}]


def test_each_documented_scalar_dtype_is_a_numpy_scalar_case(seeds):
    cases = group(seeds["leaky_relu_backward"], "scalar_dtypes").cases
    assert [c.dtypes["negativeSlope"] for c in cases] == [
        "FLOAT", "FLOAT16", "DOUBLE", "INT32", "INT64", "INT8", "BOOL", "INT16", "UINT8", "BFLOAT16"]
    assert {c.values["negativeSlope"] for c in cases if c.dtypes["negativeSlope"] == "UINT8"} == {2}


def test_bool_attributes_take_both_values(seeds):
    leaky = seeds["leaky_relu_backward"]
    assert [c.values["selfIsResult"] for c in group(leaky, "attributes").cases] == [not leaky.base.values["selfIsResult"]]


def test_a_dtype_numpy_cannot_hold_is_a_skipped_case():
    suite = one_api_suite(*unary(dtypes=(DType.FLOAT, DType.HIFLOAT8)))
    cases = group(suite, "dtypes").cases
    assert [(c.id, c.skip) for c in cases] == [("FLOAT", ""), ("HIFLOAT8", "NumPy cannot hold HIFLOAT8")]


def quantiser_suite(**api):
    """An aclnnAscendQuant-like API: y's dtype named by dstType (an aclDataType's value), INT8 in the valid call."""
    params = (make_param("x", dtypes=(DType.FLOAT,)), make_param("scale", dtypes=(DType.FLOAT,)),
              make_param("dstType", kind=ParamKind.INT),
              make_param("y", direction=Direction.OUT, dtypes=(DType.INT8, DType.INT4, DType.INT32, DType.HIFLOAT8)))
    semantics = [OpSemantics("aclnnFoo", "foo.toml", golden="exact.quantised(torch.round(x * scale), dstType)",
                             family="quant", op="ascend_quant",
                             roles=(ArgValue("dst_type", "dstType"), ArgValue("out", "y")),
                             call=(ArgValue("x", [3, 8]), ArgValue("scale", [8]), ArgValue("dstType", 2)))]
    return emitter.suite(build_model([make_page(make_api("aclnnFoo", params=params, **api))], semantics).apis[0])


def test_each_documented_output_dtype_is_a_case_with_the_attribute_naming_it():
    cases = group(quantiser_suite(), "dtypes").cases
    rows = {c.id: (c.values.get("dstType"), c.out.get("y"), c.skip) for c in cases if c.id.startswith("y=")}
    # acl/acl_base.h: ACL_INT4 29, ACL_INT32 3, ACL_HIFLOAT8 34; INT8 (2) is the valid call's own.
    assert rows == {"y=INT4": (29, "INT4", ""), "y=INT32": (3, "INT32", ""),
                    "y=HIFLOAT8": (34, "HIFLOAT8", "NumPy cannot hold HIFLOAT8")}


INT4_EVEN = Divisibility("x", "2", axis=-1, line=7, status=161002, when_dtype=DTypeCondition(("y",), (DType.INT4,)))


def test_a_rule_under_an_output_dtype_is_tested_on_a_call_writing_it():
    test = next(t for t in quantiser_suite(divisibility=(INT4_EVEN,)).rules if t.line == 7)
    assert not test.skip
    (accepted,), (refused,) = test.accepted, test.refused
    assert (accepted.values["dstType"], accepted.out["y"]) == (29, "INT4")
    assert (refused.values["dstType"], refused.out["y"], refused.shapes["x"]) == (29, "INT4", (3, 9))


def test_an_error_row_the_rules_reader_read_as_its_lines_rule_is_provoked_by_the_rules_calls():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "If the data type of y is INT4, the size of the last axis of x "
                    "is not an even number.", line=7)
    suite = quantiser_suite(divisibility=(INT4_EVEN,), errors=(row,))
    (error,) = suite.errors
    rule = next(t for t in suite.rules if t.line == 7)
    assert (error.function, error.skip, error.cases, error.status) == ("test_error_row1_rule", "", rule.refused, 161002)
    # Another row on the same line (one cell, two sentences): neither is taken for the rule's.
    other = dataclasses.replace(row, condition="If the data type of y is INT32, the last axis of x is not a multiple of 8.")
    suite = quantiser_suite(divisibility=(INT4_EVEN,), errors=(row, other))
    assert all(e.skip.startswith("unclassified") for e in suite.errors)


def test_the_examples_values_are_the_base_attributes():
    api = make_api("aclnnFoo", params=(make_param("self"), make_param("alpha", kind=ParamKind.SCALAR,
                                                                      c_type="const aclScalar*"),
                                       make_param("out", direction=Direction.OUT)),
                   example_call=ExampleCall((ExampleArg("alpha", DType.FLOAT, None, (0.25,)),)))
    suite = emitter.suite(build_model([make_page(api)], [OpSemantics("aclnnFoo", "f", golden="self")]).apis[0])
    assert suite.base.values == {"alpha": 0.25}


def test_an_api_without_golden_runs_once_and_skips_the_golden():
    suite = one_api_suite(*unary(), golden="")
    assert suite.groups == () and "no golden reference" in suite.golden_skip


def test_results_are_exact_where_the_semantics_file_or_the_family_op_says_so():
    api = make_api("aclnnFoo", params=unary())
    exact = [OpSemantics("aclnnFoo", "f", kernel="-self", golden="torch.neg(self)", exact=True)]
    assert emitter.suite(build_model([make_page(api)], exact).apis[0]).exact
    assert not one_api_suite(*unary()).exact
    for op, expected in (("amax", True), ("sum", False)):
        family = [OpSemantics("aclnnFoo", "f", golden="torch.amax(self)", family="reduce", op=op)]
        assert emitter.suite(build_model([make_page(api)], family).apis[0]).exact is expected


def test_a_random_op_compares_by_law_with_the_offset_its_family_names(tmp_path):
    api = make_api("aclnnFoo", params=(make_param("selfRef", direction=Direction.INOUT),
                                       make_param("seed", kind=ParamKind.INT), make_param("shift", kind=ParamKind.INT)))
    law = [OpSemantics("aclnnFoo", "f", golden="torch.rand_like(selfRef)", family="random", op="uniform", law=True,
                       invariant="bool((selfRef < 1).all())", roles=(ArgValue("out", "selfRef"), ArgValue("offset", "shift")))]
    model = build_model([make_page(api)], law)
    assert emitter.suite(model.apis[0]).law_offset == "shift"
    files = FileManager(tmp_path)
    emitter.emit(model, files)
    text = files.written["tests/test_foo.py"]
    assert "law=True,\n    law_offset='shift',\n    invariant='bool((selfRef < 1).all())'," in text
    assert not one_api_suite(*unary()).law_offset


def test_valid_cases_list_every_golden_group(seeds, tmp_path):
    model = build_model(seed_pages(), seed_semantics())
    files = FileManager(tmp_path)
    emitter.emit(model, files)
    text = files.written["tests/test_leaky_relu_backward.py"]
    names = [g.name.upper() for g in seeds["leaky_relu_backward"].groups]
    assert f"VALID_CASES = [{', '.join('*' + n for n in names)}]" in text


# ---- error rows ---------------------------------------------------------------------------------------

def test_null_pointer_passes_none_for_each_named_input_not_the_output(seeds):
    test = error_test(seeds["leaky_relu_backward"], ErrorCategory.NULL_POINTER)
    assert [c.none for c in test.cases] == [("gradOutput",), ("self",), ("negativeSlope",)]


def test_null_pointer_of_outputs_only_is_skipped_with_the_row():
    row = ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "out是空指针。", ErrorCategory.NULL_POINTER, ("out",), 9)
    test = one_api_suite(*unary(), errors=(row,)).errors[0]
    assert not test.cases and "out= cannot pass NULL" in test.skip and "out是空指针" in test.skip


def test_a_null_pointer_row_listed_under_161002_expects_161001_as_cann_reports_it():
    # aclnnEqTensor lists "传入的self、other、out是空指针时" under 161001 and again under 161002.
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self是空指针。", ErrorCategory.NULL_POINTER, ("self",), 9)
    test = one_api_suite(*unary(), errors=(row,)).errors[0]
    assert [c.none for c in test.cases] == [("self",)]
    assert test.status == 161001 and "lists it under 161002" in test.note
    right = dataclasses.replace(row, name="ACLNN_ERR_PARAM_NULLPTR", code=161001)
    assert one_api_suite(*unary(), errors=(right,)).errors[0].status == 161001


def test_unsupported_dtype_asks_for_an_undocumented_dtype_per_named_param(seeds):
    test = error_test(seeds["selu_backward"], ErrorCategory.UNSUPPORTED_DTYPE)
    assert [(c.dtypes.get("gradOutput"), c.dtypes.get("result"), c.out) for c in test.cases] == [
        (emitter.UNDOCUMENTED, "FLOAT", {"gradInput": "FLOAT"}), ("FLOAT", emitter.UNDOCUMENTED, {"gradInput": "FLOAT"}),
        ("FLOAT", "FLOAT", {"gradInput": emitter.UNDOCUMENTED})]


def test_unsupported_dtype_is_skipped_when_every_expressible_dtype_is_documented():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self的数据类型不在支持的范围之内。",
                    ErrorCategory.UNSUPPORTED_DTYPE, ("self",))
    test = one_api_suite(*unary(dtypes=EXPRESSIBLE), errors=(row,)).errors[0]
    assert not test.cases and "every dtype NumPy can hold is documented" in test.skip


def test_rank_row_gives_the_named_tensor_one_dimension_too_many(seeds):
    test = error_test(seeds["leaky_relu_backward"], ErrorCategory.RANK)
    assert [len(c.shapes["gradOutput"]) for c in test.cases[:1]] == [9]
    assert test.cases[2].out_shapes == {"out": (1,) * 7 + (3, 4)}


def test_shape_rows_give_shapes_that_do_not_broadcast(seeds):
    test = error_test(seeds["selu_backward"], ErrorCategory.BROADCAST)
    assert [c.shapes.get("result") for c in test.cases] == [(3, 4), (4, 5), (3, 4)]
    assert test.cases[2].out_shapes == {"gradInput": (4, 5)}


def test_not_castable_gives_an_integral_out_for_float_inputs(seeds):
    test = error_test(seeds["hardsigmoid_backward"], ErrorCategory.NOT_CASTABLE)
    assert [c.out for c in test.cases] == [{"out": "INT8"}]


def test_dtype_mismatch_moves_one_named_tensor_at_a_time_to_another_documented_dtype():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self和out的数据类型不相同。", ErrorCategory.DTYPE_MISMATCH,
                    ("self", "out"))
    test = one_api_suite(*unary(), errors=(row,)).errors[0]
    assert [(c.id, c.dtypes.get("self"), c.out) for c in test.cases] == [
        ("self=FLOAT16", "FLOAT16", {"out": "FLOAT"}), ("out=FLOAT16", "FLOAT", {"out": "FLOAT16"})]


def test_dtype_mismatch_moves_only_the_tensors_the_row_ties_together():
    # aclnnReluGradV4: "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8": self (a mask of its own
    # dtype) at another dtype is no mismatch of the row.
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self与out的数据类型不一致，或mask不为uint8。",
                    ErrorCategory.DTYPE_MISMATCH, ("self", "out", "mask"))
    self_, out = unary()
    params = (dataclasses.replace(self_, relations=(Relation(RelationKind.SAME_DTYPE, ("out",)),)),
              make_param("mask", dtypes=(DType.UINT8, DType.FLOAT), relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),)),
              out)
    test = one_api_suite(*params, errors=(row,)).errors[0]
    assert [c.id for c in test.cases] == ["self=FLOAT16", "out=FLOAT16"]


def test_dtype_mismatch_naming_one_tensor_is_skipped_with_the_reason():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self的数据类型不一致。", ErrorCategory.DTYPE_MISMATCH, ("self",))
    test = one_api_suite(*unary(), errors=(row,)).errors[0]
    assert not test.cases and "fewer than two tensors" in test.skip


def test_empty_row_empties_the_input_that_forbids_it():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self是空Tensor。", ErrorCategory.EMPTY_TENSOR, ("self",))
    test = one_api_suite(*unary(empty_tensor=False), errors=(row,)).errors[0]
    assert [c.shapes for c in test.cases] == [{"self": (3, 0)}]


def test_value_row_is_skipped_until_a_range_or_the_semantics_give_violating_values():
    slope = make_param("negativeSlope", kind=ParamKind.FLOAT)
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "negativeSlope的取值不在支持范围内。", ErrorCategory.VALUE,
                    ("negativeSlope",), 12)
    test = one_api_suite(*unary(), slope, errors=(row,)).errors[0]
    assert not test.cases and "no range or set" in test.skip and "negativeSlope的取值不在支持范围内" in test.skip


def test_unclassified_and_format_rows_are_skipped_quoting_the_row():
    rows = (ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "某种奇怪的条件。", None, (), 12),
            ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self的数据格式不支持。", ErrorCategory.FORMAT, ("self",), 13))
    tests = one_api_suite(*unary(), errors=rows).errors
    assert tests[0].skip == "unclassified error-table row (line 12: 161002 ACLNN_ERR_PARAM_INVALID: 某种奇怪的条件。)"
    assert "format" in tests[1].skip and "line 13" in tests[1].skip


def test_unsupported_products_are_checked_where_the_page_marks_them():
    products = (Product("Atlas A2", True, Soc.ASCEND910B), Product("Atlas 推理系列产品", False, Soc.ASCEND310P))
    suite = one_api_suite(*unary(), products=products)
    assert suite.unsupported_socs == ("Ascend310P",) and suite.product_check


def test_one_test_per_error_row(seeds):
    for name, suite in seeds.items():
        assert len(suite.errors) == len(suite.bound.api.errors), name
        assert len({e.function for e in suite.errors}) == len(suite.errors)


# ---- the suites, run ------------------------------------------------------------------------------------

def run_suite(tmp_path: Path, pages, semantics) -> tuple[dict[str, int], str]:
    """Emits the suites of `pages`, runs them with pytest on the session-built package (the
    simulator) and returns the outcome counts and the output."""
    from tests.support.bindings_build import build_package

    package_dir = build_package()
    emitter.emit(build_model(pages, semantics), FileManager(tmp_path))
    env = dict(os.environ, PYTHONPATH=str(package_dir), ACLNN_BACKEND="sim")
    env.pop("ACLNN_SIM_SOC", None)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "--tb=line", "-p", "no:cacheprovider", "-p", "no:randomly",
                             str(tmp_path / "tests")], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=600)
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)", result.stdout)}
    return counts, result.stdout + result.stderr


@pytest.fixture(scope="module")
def built_seed_pages():
    """The seed pages the session's package is built from (the parser's IR, or the hand-made one)."""
    from tests.support.bindings_ir import seed_pages as pages

    return pages()


def test_seed_suites_pass_on_the_simulator(tmp_path, built_seed_pages):
    counts, output = run_suite(tmp_path, built_seed_pages, seed_semantics())
    assert counts.get("passed", 0) >= 100 and not counts.get("failed") and not counts.get("error"), output


def test_a_wrong_golden_fails_the_suite(tmp_path, built_seed_pages):
    wrong = [dataclasses.replace(s, golden=s.golden.replace("negativeSlope", "2 * negativeSlope"))
             if s.api == "aclnnLeakyReluBackward" else s for s in seed_semantics()]
    counts, output = run_suite(tmp_path, [p for p in built_seed_pages if "leaky" in p.source], wrong)
    assert counts.get("failed", 0) >= 20, output


def test_a_wrong_status_fails_its_error_test(tmp_path, built_seed_pages):
    page = next(p for p in built_seed_pages if "hardsigmoid" in p.source)
    api = page.apis[0]
    errors = tuple(dataclasses.replace(e, code=161001) if e.category is ErrorCategory.UNSUPPORTED_DTYPE else e
                   for e in api.errors)
    page = dataclasses.replace(page, apis=(dataclasses.replace(api, errors=errors),))
    counts, output = run_suite(tmp_path, [page], seed_semantics())
    assert counts.get("failed") == 2, output  # gradOutput and self


# ---- relations the page states ---------------------------------------------------------------------------

def binary(first: dict, second: dict, out: dict | None = None):
    return (make_param("gradOutput", **first), make_param("self", **second),
            make_param("out", direction=Direction.OUT, **(out or {})))


def test_a_scalar_bound_to_a_tensors_dtype_follows_it():
    threshold = make_param("threshold", kind=ParamKind.SCALAR, c_type="const aclScalar*",
                           dtypes=(DType.FLOAT, DType.INT32), relations=(Relation(RelationKind.SAME_DTYPE, ("self",)),))
    params = (make_param("self", dtypes=(DType.FLOAT, DType.INT32)), threshold,
              make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),)))
    suite = one_api_suite(*params)
    assert [(c.dtypes["self"], c.dtypes["threshold"]) for c in group(suite, "dtypes").cases] == [
        ("FLOAT", "FLOAT"), ("INT32", "INT32")]
    assert ids(group(suite, "scalar_dtypes").cases) == ["threshold=INT32"]  # with self INT32 too


def test_dtypes_that_must_be_the_same_are_not_mixed_even_if_the_page_also_says_promote():
    same = (Relation(RelationKind.PROMOTE, ("self",)), Relation(RelationKind.SAME_DTYPE, ("self",)))
    suite = one_api_suite(*binary({"relations": same}, {}))
    assert "promotion" not in [g.name for g in suite.groups]


def test_shapes_that_must_be_the_same_do_not_broadcast_even_if_the_page_also_says_so():
    both = (Relation(RelationKind.BROADCAST, ("self",)), Relation(RelationKind.SAME_SHAPE, ("self",)))
    suite = one_api_suite(*binary({"relations": both}, {}))
    assert "broadcast" not in [g.name for g in suite.groups]


def test_an_input_the_output_matches_keeps_the_broadcast_shape():
    suite = one_api_suite(*binary({"relations": (Relation(RelationKind.BROADCAST, ("self",)),)}, {},
                                  {"relations": (Relation(RelationKind.SAME_SHAPE, ("self",)),)}))
    cases = group(suite, "broadcast").cases
    assert cases and all(c.shapes["self"] == emitter.broadcast_shape(c.shapes["self"], c.shapes["gradOutput"]) for c in cases)


def test_a_python_float_scalar_is_given_as_its_documented_float_dtype_holds_it():
    beta = make_param("beta", kind=ParamKind.SCALAR, c_type="const aclScalar*", dtypes=(DType.FLOAT,))
    api = make_api("aclnnFoo", params=(make_param("self"), beta, make_param("out", direction=Direction.OUT)),
                   example_call=ExampleCall((ExampleArg("beta", DType.FLOAT, None, (1.1,)),)))
    suite = emitter.suite(build_model([make_page(api)], [OpSemantics("aclnnFoo", "f", golden="self")]).apis[0])
    assert suite.base.values["beta"] == 1.100000023841858  # float32(1.1): what the library receives


@pytest.mark.parametrize("dtype, value, held", [(DType.FLOAT16, 0.1, 0.0999755859375),
                                                (DType.BFLOAT16, 0.1, 0.10009765625), (DType.DOUBLE, 0.1, 0.1)])
def test_exactly_rounds_to_the_dtype(dtype, value, held):
    assert emitter.exactly(value, dtype) == held


def test_an_optional_attribute_without_example_is_none():
    mode = make_param("roundMode", kind=ParamKind.STRING, c_type="const char*", optional=True)
    suite = one_api_suite(*unary(), mode)
    assert suite.base.values == {"roundMode": None} and not suite.runs_skip


def test_without_a_known_valid_call_nothing_valid_runs():
    mode = make_param("roundMode", kind=ParamKind.STRING, c_type="const char*")
    suite = one_api_suite(make_param("self"), mode, make_param("out", direction=Direction.OUT), golden="")
    assert suite.runs_skip == "the page gives no valid value of roundMode"


def test_value_row_uses_the_checks_violating_values_when_the_semantics_give_them():
    from gen.ir import ArgValue, ValueCheck

    check = ValueCheck("selfIsResult && negativeSlope < 0", "no", 161002,
                       violation=(ArgValue("selfIsResult", True), ArgValue("negativeSlope", -0.5)))
    page = next(p for p in seed_pages() if "leaky" in p.source)
    semantics = [dataclasses.replace(s, checks=(check,)) if s.api == "aclnnLeakyReluBackward" else s
                 for s in seed_semantics()]
    suite = emitter.suite(build_model([page], semantics).apis[0])
    test = error_test(suite, ErrorCategory.VALUE)
    assert [c.values for c in test.cases] == [{"negativeSlope": -0.5, "selfIsResult": True}]


def test_a_tensor_list_gets_members_but_no_valid_call_is_claimed():
    tensors = make_param("tensors", kind=ParamKind.TENSOR_LIST, c_type="const aclTensorList*")
    out = make_param("out", direction=Direction.OUT)
    suite = one_api_suite(tensors, out, errors=(null_error("tensors"),))
    assert suite.base.shapes == {"tensors": ((3, 4), (3, 4))} and suite.base.dtypes == {"tensors": "FLOAT"}
    assert "members of tensors" in suite.golden_skip
    # out is related to nothing: the bindings cannot allocate it, so every call, a NULL tensors
    # too, stops there (TypeError) before the library; the row is skipped, saying so.
    assert not suite.errors[0].cases and suite.errors[0].skip.startswith("the page does not say how the shape of out")


# ---- cases coherent with the call's dtypes (the simulated math ops) ---------------------------------

INTEGRAL_AND_FLOAT = (DType.FLOAT, DType.INT32, DType.BOOL)


def add_like(inplace=False):
    first = "selfRef" if inplace else "self"
    params = [make_param(first, dtypes=INTEGRAL_AND_FLOAT, direction=Direction.INOUT if inplace else Direction.IN,
                         relations=(Relation(RelationKind.BROADCAST, ("other",)), Relation(RelationKind.PROMOTE, ("other",)))),
              make_param("other", dtypes=INTEGRAL_AND_FLOAT),
              make_param("alpha", kind=ParamKind.SCALAR, dtypes=INTEGRAL_AND_FLOAT)]
    if not inplace:
        params.append(make_param("out", direction=Direction.OUT, dtypes=INTEGRAL_AND_FLOAT,
                                 relations=(Relation(RelationKind.BROADCAST, ("self", "other")),)))
    api = make_api("aclnnFoo", params=tuple(params))
    call = ExampleCall(line=1, args=(ExampleArg("alpha", dtype=DType.FLOAT, values=(1.2,)),))
    semantics = [OpSemantics("aclnnFoo", "foo.toml", kernel=f"{first} + alpha * other", golden="x")]
    return emitter.suite(build_model([make_page(dataclasses.replace(api, example_call=call))], semantics).apis[0])


def test_integral_tensors_get_an_integral_free_scalar():
    case = next(c for c in group(add_like(), "dtypes").cases if c.id == "INT32")
    assert case.values["alpha"] == 2 and case.dtypes["alpha"] == "INT32"


def test_float_tensors_keep_the_examples_fractional_scalar():
    case = next(c for c in group(add_like(), "dtypes").cases if c.id == "FLOAT")
    assert case.values["alpha"] == pytest.approx(1.2)


def test_an_inplace_tensor_keeps_the_broadcast_shape():
    import numpy as np

    cases = group(add_like(inplace=True), "broadcast").cases
    assert cases
    for case in cases:
        assert np.broadcast_shapes(*case.shapes.values()) == case.shapes["selfRef"], case.id


def test_an_inplace_tensor_takes_no_promotion_it_cannot_hold():
    ids_ = ids(group(add_like(inplace=True), "promotion").cases)
    assert "selfRef=INT32-other=FLOAT" not in ids_ and "selfRef=FLOAT-other=INT32" in ids_


def test_the_one_input_of_a_unary_op_disagrees_with_an_out_of_the_base_shape():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self、out的shape不一致。", ErrorCategory.SHAPE_MISMATCH,
                    ("self", "out"))
    test = one_api_suite(*unary(), errors=(row,)).errors[0]
    case = next(c for c in test.cases if c.id == "self-shape")
    assert case.out_shapes["out"] != case.shapes["self"]


def test_a_dtype_the_output_cannot_be_allocated_for_is_skipped_with_the_reason():
    params = (make_param("self", dtypes=(DType.FLOAT, DType.COMPLEX64)),
              make_param("out", direction=Direction.OUT, dtypes=(DType.FLOAT,),
                         relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),)))
    case = next(c for c in group(one_api_suite(*params), "dtypes").cases if c.id == "COMPLEX64")
    assert "does not say which dtype out then has" in case.skip


def test_an_unclassified_row_a_check_states_is_provoked_with_its_values():
    from gen.ir import ArgValue, ValueCheck

    params = (*unary(), make_param("alpha", kind=ParamKind.FLOAT), make_param("isResult", kind=ParamKind.BOOL))
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "isResult为True时，alpha小于0。", None, ("isResult", "alpha"))
    check = ValueCheck("isResult && alpha < 0", "no", 161002,
                       violation=(ArgValue("isResult", True), ArgValue("alpha", -0.5)))
    api = make_api("aclnnFoo", params=params, errors=(row,))
    semantics = [OpSemantics("aclnnFoo", "foo.toml", kernel="-self", golden="-self", checks=(check,))]
    test = emitter.suite(build_model([make_page(api)], semantics).apis[0]).errors[0]
    assert test.function.endswith("_value") and [c.values.get("alpha") for c in test.cases] == [-0.5]


# ---- the page's cross-parameter rules: a call at each edge and one just outside ---------------------

def rules_suite(*params, golden="torch.neg(self)", **rules):
    api = make_api("aclnnFoo", params=params, **rules)
    semantics = [OpSemantics("aclnnFoo", "foo.toml", kernel="-self", golden=golden)] if golden else []
    return emitter.suite(build_model([make_page(api)], semantics).apis[0])


def rule_test(suite, prefix):
    return next(t for t in suite.rules if t.function.startswith(prefix))


def test_a_dim_range_is_met_at_both_ends_and_broken_just_outside():
    from gen.ir import Bound, Extent, ValueRange

    dim = make_param("dim", kind=ParamKind.INT)
    suite = rules_suite(*unary(), dim, value_ranges=(
        ValueRange("dim", Bound(0, Extent.RANK, -1, "self"), Bound(0, Extent.RANK, 1, "self", inclusive=False), line=7),))
    test = rule_test(suite, "test_rule_line7_value_range")
    assert suite.base.shapes["self"] == (3, 4)
    assert [c.values["dim"] for c in test.accepted] == [-2, 1]
    assert [c.values["dim"] for c in test.refused] == [-3, 2]
    assert test.status == 161002 and not test.skip


def test_a_real_range_is_met_at_its_bounds_and_broken_half_a_unit_beyond_and_by_nan_as_its_value_row():
    from gen.ir import Bound, Extent, ValueRange

    prob, high = make_param("prob", kind=ParamKind.FLOAT), make_param("high", kind=ParamKind.FLOAT)
    example = ExampleCall((ExampleArg("self", DType.FLOAT, (3, 4)), ExampleArg("prob", None, None, (0.25,)),
                           ExampleArg("high", None, None, (2.0,))))
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "prob的值不在0和1之间。", ErrorCategory.VALUE, ("prob",), 9)
    suite = rules_suite(*unary(), prob, high, example_call=example, errors=(row,), value_ranges=(
        ValueRange("prob", Bound(0), Bound(1), line=7), ValueRange("prob", high=Bound(0, Extent.VALUE, 1, "high"), line=8)))
    test = rule_test(suite, "test_rule_line7_value_range")
    assert [c.values["prob"] for c in test.accepted] == [0, 1]
    refused = [c.values["prob"] for c in test.refused]
    assert refused[:2] == [-0.5, 1.5] and math.isnan(refused[2]) and len(refused) == 3
    assert "prob': float('nan')" in test.refused[2].changes_from(suite.base)
    # Another argument's value bounds it: a comparison, which a NaN does not break.
    assert [c.values["prob"] for c in rule_test(suite, "test_rule_line8_value_range").refused] == [2.5]
    # The value row naming prob is provoked by the calls outside its ranges.
    assert error_test(suite, ErrorCategory.VALUE).cases[:3] == test.refused


def test_a_set_is_refused_in_its_gap_with_the_error_tables_status_and_a_rule_of_other_chips_is_skipped():
    from gen.ir import Bound, ValueRange, ValueSet

    mode = make_param("mode", kind=ParamKind.INT)
    example = ExampleCall((ExampleArg("self", DType.FLOAT, (3, 4)), ExampleArg("mode", None, None, (2,))))
    suite = rules_suite(*unary(), mode, example_call=example, value_sets=(ValueSet("mode", (0, 2, 3), line=7, status=561002),),
                        value_ranges=(ValueRange("mode", high=Bound(2), products=(Soc.ASCEND310P,), line=8),))
    test = rule_test(suite, "test_rule_line7_value_set")
    assert [c.values["mode"] for c in test.accepted] == [2]
    assert [c.values["mode"] for c in test.refused] == [1]  # a range would admit it
    assert test.status == 561002 and not test.skip
    chip = rule_test(suite, "test_rule_line8_value_range")
    assert chip.socs == ("Ascend310P",) and "not on the base call's chip" in chip.skip


def test_each_combination_row_is_called_and_an_unlisted_combination_refused():
    from gen.ir import CombinationCell, DTypeCombination

    x, gamma = make_param("x"), make_param("gamma")
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("x",)),))
    rows = (DTypeCombination((CombinationCell("x", (DType.FLOAT,)), CombinationCell("gamma", (DType.FLOAT,))), line=20),
            DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("gamma", same_as="x")),
                             products=(Soc.ASCEND310P,), line=21))
    call = ExampleCall((ExampleArg("x", DType.FLOAT, (2, 4)), ExampleArg("gamma", DType.FLOAT, (4,))))
    suite = rules_suite(x, gamma, out, golden="", dtype_combinations=rows, example_call=call)
    first, second = rule_test(suite, "test_rule_line20_"), rule_test(suite, "test_rule_line21_")
    assert first.accepted[0].dtypes == {"x": "FLOAT", "gamma": "FLOAT"} and first.socs == ()
    assert second.accepted[0].dtypes == {"x": "FLOAT16", "gamma": "FLOAT16"} and second.socs == ("Ascend310P",)
    # On the default chip only line 20 holds: x FLOAT16 with gamma FLOAT is no row of it.
    unlisted = rule_test(suite, "test_rule_dtype_combination_not_listed")
    assert [c.dtypes for c in unlisted.refused] == [{"x": "FLOAT16", "gamma": "FLOAT"}]


def test_the_base_call_is_a_combination_row_of_the_default_chip():
    from gen.ir import CombinationCell, DTypeCombination

    # aclnnAddRmsNormQuant: x lists FLOAT32 (for another chip), the default chip's rows only
    # FLOAT16 and BFLOAT16 x with FLOAT scales.
    x = make_param("x", dtypes=(DType.FLOAT, DType.FLOAT16, DType.BFLOAT16))
    scale = make_param("scale", dtypes=(DType.FLOAT, DType.BFLOAT16))
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("x",)),))
    rows = (DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("scale", (DType.FLOAT,))),
                             products=(Soc.ASCEND910B,), line=20),
            DTypeCombination((CombinationCell("x", (DType.FLOAT,)), CombinationCell("scale", (DType.FLOAT,))),
                             products=(Soc.ASCEND950,), line=21))
    call = ExampleCall((ExampleArg("x", DType.FLOAT, (2, 4)), ExampleArg("scale", DType.FLOAT, (4,))))
    suite = rules_suite(x, scale, out, golden="", dtype_combinations=rows, example_call=call)
    assert suite.base.dtypes == {"x": "FLOAT16", "scale": "FLOAT"}
    # Without rows for the default chip, FLOAT as before.
    suite = rules_suite(x, scale, out, golden="", dtype_combinations=rows[1:], example_call=call)
    assert suite.base.dtypes == {"x": "FLOAT", "scale": "FLOAT"}


def test_each_dtype_case_takes_the_other_dtypes_of_a_combination_row():
    from gen.ir import CombinationCell, DTypeCombination

    # aclnnInplaceQuantScatter: BFLOAT16 updates with BFLOAT16 scales, FLOAT16 ones with FLOAT scales.
    x = make_param("x", dtypes=(DType.BFLOAT16, DType.FLOAT16))
    scale = make_param("scale", dtypes=(DType.BFLOAT16, DType.FLOAT))
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("x",)),))
    rows = (DTypeCombination((CombinationCell("x", (DType.BFLOAT16,)), CombinationCell("scale", (DType.BFLOAT16,))), line=20),
            DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("scale", (DType.FLOAT,))), line=21))
    call = ExampleCall((ExampleArg("x", DType.BFLOAT16, (2, 4)), ExampleArg("scale", DType.BFLOAT16, (4,))))
    want = [{"x": "BFLOAT16", "scale": "BFLOAT16"}, {"x": "FLOAT16", "scale": "FLOAT"}]
    suite = rules_suite(x, scale, out, dtype_combinations=rows, example_call=call)
    assert [c.dtypes for c in group(suite, "dtypes").cases] == want
    # Rows of another chip alone (aclnnInplaceQuantScatterV2: Ascend950) are the ones to meet.
    elsewhere = tuple(DTypeCombination(r.cells, products=(Soc.ASCEND950,), line=r.line) for r in rows)
    suite = rules_suite(x, scale, out, dtype_combinations=elsewhere, example_call=call)
    assert [c.dtypes for c in group(suite, "dtypes").cases] == want


def test_a_shape_rule_gives_out_its_shape_under_the_condition_and_refuses_another():
    from gen.ir import ShapeForm, ShapeRule

    self_, reduction = make_param("self"), make_param("reduction", kind=ParamKind.INT)
    out = make_param("out", direction=Direction.OUT)
    # The page's example passes out= (the bindings cannot shape it: reduction decides).
    call = ExampleCall((ExampleArg("self", DType.FLOAT, (2, 3)), ExampleArg("reduction", None, None, (1,)),
                        ExampleArg("out", DType.FLOAT, ())))
    suite = rules_suite(self_, reduction, out, example_call=call, shape_rules=(
        ShapeRule("out", "reduction", ("0",), ShapeForm.SAME, ("self",), line=9),
        ShapeRule("out", "reduction", ("0",), ShapeForm.SCALAR, negated=True, line=9)))
    same, scalar = suite.rules
    assert (same.accepted[0].values["reduction"], same.accepted[0].out_shapes["out"]) == (0, suite.base.shapes["self"])
    assert same.refused[0].out_shapes["out"] == (1,)
    assert (scalar.accepted[0].values["reduction"], scalar.accepted[0].out_shapes["out"]) == (1, ())
    assert scalar.refused[0].out_shapes["out"] != ()


def test_dimension_rules_are_broken_by_one_extent():
    from gen.ir import DimEquality, Divisibility

    a, b = make_param("a"), make_param("b")
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("a",)),))
    call = ExampleCall((ExampleArg("a", DType.FLOAT, (2, 4)), ExampleArg("b", DType.FLOAT, (4, 3))))
    suite = rules_suite(a, b, out, example_call=call, dim_equalities=(DimEquality("a", -1, "b", 0, line=5),),
                        divisibility=(Divisibility("a", "2", -1, line=6),))
    equal, even = suite.rules
    assert [c.shapes["a"] for c in equal.accepted] == [(2, 4)] and [c.shapes["a"] for c in equal.refused] == [(2, 5)]
    assert [c.shapes["a"] for c in even.refused] == [(2, 5)]
    # A rule the base call does not meet is not claimed.
    odd = rules_suite(a, b, out, example_call=call, divisibility=(Divisibility("a", "3", -1, line=6),))
    assert odd.rules[0].skip == "the base call does not meet it"


# ---- kernel families: shapes varied within the family's rule ----------------------------------------

def family_suite(params, semantics, **api):
    built = build_model([make_page(make_api("aclnnFoo", params=tuple(params), **api))],
                        [dataclasses.replace(OpSemantics("aclnnFoo", "foo.toml", golden="x"), **semantics)])
    return emitter.suite(built.apis[0])


def where_params(*, broadcast: bool):
    relations = (Relation(RelationKind.BROADCAST, ("self", "other")),) if broadcast else ()
    return [make_param("condition", dtypes=(DType.BOOL,), relations=relations), make_param("self"),
            make_param("other"), make_param("out", direction=Direction.OUT)]


def test_where_varies_each_inputs_shape_where_the_page_says_it_broadcasts():
    call = (ArgValue("condition", (2, 3)), ArgValue("self", (2, 3)), ArgValue("other", (2, 3)))
    suite = family_suite(where_params(broadcast=True), dict(family="select", op="where", call=call),
                         speaks_of_broadcasting=True)
    broadcast = group(suite, "broadcast").cases
    # each input in turn at shapes that broadcast to the others' (2, 3), never the output's shape changed
    assert {c.id.split("-")[0] for c in broadcast} == {"condition", "self", "other"}
    assert all(_broadcasts(c.shapes[p], (2, 3)) for c in broadcast for p in ("condition", "self", "other"))
    assert "self-3" in ids(broadcast) and "condition-2x1" in ids(broadcast)
    # the ranks vary all inputs alike; the dtypes are self's (the family's source), not the condition's
    assert ids(group(suite, "ranks").cases) == ["rank1", "rank2", "rank3", "rank4"]
    assert suite.base.dtypes == {"condition": "BOOL", "self": "FLOAT", "other": "FLOAT"}
    quiet = family_suite(where_params(broadcast=False), dict(family="select", op="where", call=call))
    assert "broadcast" not in [g.name for g in quiet.groups]


def _broadcasts(shape, to):
    return len(shape) <= len(to) and all(a in (1, b) for a, b in zip(reversed(shape), reversed(to)))


def test_matmul_broadcasts_batch_dimensions_and_takes_vectors_within_the_documented_ranks():
    params = [make_param("self", rank=(1, 6)), make_param("mat2", rank=(1, 6)),
              make_param("out", direction=Direction.OUT, rank=(1, 6))]
    semantics = dict(family="matmul", op="matmul", roles=(ArgValue("a", "self"), ArgValue("b", "mat2")),
                     call=(ArgValue("self", (2, 3)), ArgValue("mat2", (3, 5))))
    suite = family_suite(params, semantics, speaks_of_broadcasting=True)  # "self与mat2满足broadcast关系"
    shapes = {c.id: (c.shapes["self"], c.shapes["mat2"]) for c in group(suite, "broadcast").cases}
    assert shapes["self-mat2-2x1x2x3-3x3x5"] == ((2, 1, 2, 3), (3, 3, 5))
    assert shapes["self-vector-3"] == ((3,), (3, 5)) and shapes["mat2-vector-3"] == ((2, 3), (3,))
    # bmm's rank 3 only: no vector, no 4-D batch
    three = [make_param(n, rank=(3, 3)) for n in ("self", "mat2")] + [make_param("out", direction=Direction.OUT)]
    bmm = family_suite(three, dict(semantics, op="bmm", call=(ArgValue("self", (2, 2, 3)), ArgValue("mat2", (2, 3, 5)))),
                       speaks_of_broadcasting=True)
    assert all(len(s) == 3 for c in group(bmm, "broadcast").cases for s in c.shapes.values())


def test_addmm_bias_broadcasts_to_the_product_unless_it_is_the_output():
    params = [make_param("self", rank=(1, 2)), make_param("mat1", rank=(2, 2)), make_param("mat2", rank=(2, 2)),
              make_param("out", direction=Direction.OUT)]
    semantics = dict(family="matmul", op="addmm",
                     roles=(ArgValue("bias", "self"), ArgValue("a", "mat1"), ArgValue("b", "mat2")),
                     call=(ArgValue("self", (2, 5)), ArgValue("mat1", (2, 3)), ArgValue("mat2", (3, 5))))
    suite = family_suite(params, semantics, speaks_of_broadcasting=True)  # "self需要与mat1@mat2满足broadcast关系"
    assert sorted(c.shapes["self"] for c in group(suite, "broadcast").cases) == [(1,), (1, 1), (1, 5), (2, 1), (5,)]


def test_rms_norm_varies_the_rank_keeping_gammas_trailing_dimensions():
    params = [make_param("x", rank=(1, 8)), make_param("gamma", rank=(1, 8)),
              make_param("epsilon", kind=ParamKind.FLOAT), make_param("yOut", direction=Direction.OUT),
              make_param("rstdOut", direction=Direction.OUT)]
    semantics = dict(family="norm", op="rms_norm",
                     roles=(ArgValue("input", "x"), ArgValue("weight", "gamma"), ArgValue("out", "yOut"),
                            ArgValue("rstd", "rstdOut"), ArgValue("eps", "epsilon")),
                     call=(ArgValue("x", (2, 3, 8)), ArgValue("gamma", (8,)), ArgValue("epsilon", 1e-6)))
    ranks = group(family_suite(params, semantics), "ranks").cases
    assert [(c.shapes["x"], c.shapes["gamma"]) for c in ranks] == [((5,), (5,)), ((3, 4), (4,)), ((2, 3, 4), (4,)),
                                                                  ((2, 3, 1, 4), (4,))]


def test_a_dim_an_inputs_shape_follows_is_not_moved_alone_to_claim_a_valid_call():
    from gen.ir import Bound, Extent, ValueRange

    params = [make_param("self"), make_param("dim", kind=ParamKind.INT), make_param("index", dtypes=(DType.INT64,)),
              make_param("source"), make_param("out", direction=Direction.OUT)]
    dim_range = ValueRange("dim", Bound(0, Extent.RANK, -1, "self"), Bound(0, Extent.RANK, 1, "self", inclusive=False),
                           line=7)
    call = (ArgValue("self", (4, 5)), ArgValue("dim", 0), ArgValue("index", (3,)), ArgValue("source", (3, 5)))

    def range_test(op):
        semantics = dict(family="index", op=op, roles=(ArgValue("src", "source"),), call=call)
        return rule_test(family_suite(params, semantics, value_ranges=(dim_range,)), "test_rule_line7_value_range")

    # index_add's source is self's shape with the index's length along dim: another dim alone is
    # no valid call, so only the refusals outside the range are claimed.
    added = range_test("index_add")
    assert [c.values["dim"] for c in added.accepted] == [] and [c.values["dim"] for c in added.refused] == [-3, 2]
    # index_select's shapes follow no argument: both edges are valid calls.
    selected = range_test("index_select")
    assert [c.values["dim"] for c in selected.accepted] == [-2, 1]


def test_keepdim_is_not_flipped_alone_when_the_page_lists_the_output_it_shapes_as_an_input():
    def suite(min_out_direction):
        params = [make_param("self", rank=(1, 8)), make_param("dim", kind=ParamKind.INT_ARRAY),
                  make_param("keepDim", kind=ParamKind.BOOL), make_param("minOut", direction=min_out_direction),
                  make_param("maxOut", direction=Direction.OUT)]
        semantics = dict(family="reduce", op="aminmax",
                         roles=(ArgValue("keepdim", "keepDim"), ArgValue("out", "minOut"), ArgValue("max_out", "maxOut")),
                         call=(ArgValue("self", (2, 3, 2)), ArgValue("dim", (0,)), ArgValue("keepDim", True),
                               ArgValue("minOut", (1, 3, 2))))
        return family_suite(params, semantics)

    def attributes(s):
        return [c.id for g in s.groups if g.name == "attributes" for c in g.cases]

    # aclnnAminmax's page lists minOut as an input: its [1, 3, 2] is keepDim=True's shape.
    assert "keepDim=False" not in attributes(suite(Direction.IN))
    assert "keepDim=False" in attributes(suite(Direction.OUT))


# ---- the chip a suite runs on ---------------------------------------------------------------------

def test_every_valid_case_keeps_the_bytes_each_chips_rules_ask():
    # "Atlas 推理系列产品：self的尾轴长度必须大于等于32 Bytes": 8 FLOATs, 16 FLOAT16s; a suite runs on any chip,
    # so each valid case meets it in its own dtype (the base call's rank-2 shape ends in 4).
    suite = one_api_suite(*unary(), products=(Product("Atlas A2 训练系列产品", True, Soc.ASCEND910B, 3),
                                              Product("Atlas 推理系列产品", True, Soc.ASCEND310P, 4)))
    api = dataclasses.replace(suite.bound.api, dim_bytes=(DimBytes("self", -1, 32, line=9, products=(Soc.ASCEND310P,)),))
    page = dataclasses.replace(suite.bound.page, apis=(api,))
    semantics = [OpSemantics("aclnnFoo", "foo.toml", kernel="-self", golden="torch.neg(self)")]
    suite = emitter.suite(build_model([page], semantics).apis[0])
    least = {"FLOAT": 8, "FLOAT16": 16, "BFLOAT16": 16, "DOUBLE": 4}
    cases = [c for g in suite.groups for c in g.cases if not c.skip and c.shapes["self"] and all(c.shapes["self"])]  # not 0-d, not empty
    assert cases and all(c.shapes["self"][-1] >= least[c.dtypes["self"]] for c in cases)
    float16 = next(c for c in group(suite, "dtypes").cases if c.id == "FLOAT16")
    assert float16.shapes["self"][-1] == 16 and suite.base.shapes["self"][-1] == 8


def test_a_scalar_phase_1_casts_has_no_per_chip_dtype_list():
    # clipValueMax lists no BFLOAT16 on Ascend310P, but phase 1 casts a scalar no error row names: the
    # suite does not expect the chip to refuse it.
    scalar = make_param("alpha", kind=ParamKind.SCALAR, dtypes=(DType.FLOAT, DType.BFLOAT16),
                        dtypes_by_product=(ProductDTypes(Soc.ASCEND310P, (DType.FLOAT,)),))
    suite = one_api_suite(*unary(), scalar)
    assert all("alpha" not in table for table in suite.dtypes.values())


def test_the_base_dtype_is_one_the_default_chip_documents():
    # self lists UINT8 on Ascend310P only (aclnnOneHot): the base call takes INT32, valid on every chip.
    self_ = make_param("self", dtypes=(DType.UINT8, DType.INT32),
                       dtypes_by_product=(ProductDTypes(Soc.ASCEND910B, (DType.INT32,)),))
    suite = one_api_suite(self_, make_param("out", direction=Direction.OUT, dtypes=(DType.UINT8, DType.INT32),
                                             relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),)))
    assert suite.base.dtypes["self"] == "INT32"


def test_a_chip_whose_lists_lack_the_base_calls_dtypes_gets_a_call_of_its_own():
    from gen.ir import CombinationCell, DTypeCombination

    # aclnnInplaceQuantScatter: BFLOAT16 updates with BFLOAT16 scales on the default chip; Ascend310P lists
    # FLOAT16 updates and FLOAT scales only, and the rows pair them.
    x = make_param("x", dtypes=(DType.BFLOAT16, DType.FLOAT16),
                   dtypes_by_product=(ProductDTypes(Soc.ASCEND310P, (DType.FLOAT16,)),))
    scale = make_param("scale", dtypes=(DType.BFLOAT16, DType.FLOAT),
                       dtypes_by_product=(ProductDTypes(Soc.ASCEND310P, (DType.FLOAT,)),))
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("x",)),))
    rows = (DTypeCombination((CombinationCell("x", (DType.BFLOAT16,)), CombinationCell("scale", (DType.BFLOAT16,))), line=20),
            DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("scale", (DType.FLOAT,))), line=21))
    call = ExampleCall((ExampleArg("x", DType.BFLOAT16, (2, 4)), ExampleArg("scale", DType.BFLOAT16, (4,))))
    suite = rules_suite(x, scale, out, dtype_combinations=rows, example_call=call)
    assert suite.base.dtypes == {"x": "BFLOAT16", "scale": "BFLOAT16"}
    assert suite.on_chips == {"Ascend310P": {"x": "FLOAT16", "scale": "FLOAT"}}
    # A chip whose rows pair its dtypes otherwise than its lists allow has no such call.
    only = (DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("scale", (DType.BFLOAT16,))), line=22),)
    suite = rules_suite(x, scale, out, dtype_combinations=rows[:1] + tuple(
        DTypeCombination(r.cells, products=(Soc.ASCEND310P,), line=r.line) for r in only), example_call=call)
    assert suite.on_chips == {"Ascend310P": None}
