"""gen.conventions: what CANN does that its pages leave unsaid, one test per case each convention
covers, and the diagnostic of a page that contradicts one."""

from __future__ import annotations

import dataclasses

import shutil
from pathlib import Path

from gen import conventions
from gen.census import census
from gen.emit import sim
from gen.ir import Direction, DType, ErrorCase, ErrorCategory, ProductDTypes, Soc
from gen.locations import REPOSITORY
from tests.support.factories import make_api, make_param, null_error
from tests.parse.parse_helpers import api_page, html_table

_TABLE = html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、FLOAT16"], ["out", "输出", "FLOAT、FLOAT16"])
_A2 = "<term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>"
_A3 = "<term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>"


def _self(page):
    return page.apis[0].param("self")


# --- 1. twin chips ---------------------------------------------------------------------------------

def test_a3_note_alone_applies_to_a2():
    # aclnnAsin's page keeps the A3 note alone; CANN's Ascend910B takes BFLOAT16 too.
    p = _self(api_page(_TABLE + f"\n- {_A3}：self数据类型额外支持BFLOAT16。\n"))
    assert DType.BFLOAT16 in p.dtypes_for(Soc.ASCEND910B)
    assert DType.BFLOAT16 in p.dtypes_for(Soc.ASCEND910_93)
    assert DType.BFLOAT16 not in p.dtypes_for(Soc.ASCEND910)  # the other chips keep the table's list


def test_a2_note_alone_applies_to_a3():
    p = _self(api_page(_TABLE + f"\n- {_A2}：self数据类型额外支持BFLOAT16。\n"))
    assert p.dtypes_for(Soc.ASCEND910_93) == p.dtypes_for(Soc.ASCEND910B)
    assert DType.BFLOAT16 in p.dtypes_for(Soc.ASCEND910_93)


def test_twins_stated_differently_keep_their_lists_and_say_so():
    page = api_page(_TABLE + f"\n- {_A2}：self数据类型额外支持BFLOAT16。\n- {_A3}：self数据类型额外支持DOUBLE。\n")
    p = _self(page)
    assert DType.DOUBLE not in p.dtypes_for(Soc.ASCEND910B)
    assert DType.BFLOAT16 not in p.dtypes_for(Soc.ASCEND910_93)
    assert [d.code for d in page.diagnostics if d.code == "twin-chips-differ"] == ["twin-chips-differ"]


def test_twins_stated_alike_say_nothing():
    page = api_page(_TABLE + f"\n- {_A2}、{_A3}：self数据类型额外支持BFLOAT16。\n")
    assert not [d for d in page.diagnostics if d.code == "twin-chips-differ"]
    assert DType.BFLOAT16 in _self(page).dtypes_for(Soc.ASCEND910B)


# --- 2. formats on a page that says ND ---------------------------------------------------------------

_FORMAT_ROW = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self的数据格式不在支持的范围内。", ErrorCategory.FORMAT, ("self",))


def test_plain_column_without_a_format_row_checks_no_format():
    api = make_api()  # self and out: "ND", and no format row
    assert not conventions.formats_checked(api, api.param("self"))
    row = sim.spec_row(api.param("self"), {"self": 0, "out": 1}, format_checked=False)
    assert row.formats is None  # kAnyFormat: LeakyRelu's NC1HWC0 passes


def test_plain_column_with_a_format_row_is_checked():
    api = as_parsed(make_api(errors=(_FORMAT_ROW,)))
    assert conventions.formats_checked(api, api.param("self"))
    row = sim.spec_row(api.param("self"), {"self": 0, "out": 1})
    assert row.plain_formats and row.formats == ()  # every plain layout, no private one


def test_a_private_format_in_the_column_is_checked_without_a_row():
    api = make_api(params=(make_param("self", formats=("NC1HWC0",)), make_param("out", direction=Direction.OUT)))
    assert conventions.formats_checked(api, api.param("self"))


# --- 3. null outputs CANN reports as inner errors ----------------------------------------------------

def test_output_left_out_of_the_null_row_is_an_inner_error():
    api = as_parsed(make_api(errors=(null_error("self"),)))  # "传入的self是空指针" (aclnnMin)
    assert api.inner_null_outputs == ("out",)
    assert conventions.null_output_status(api, api.param("out")) == "ACLNN_ERR_INNER_NULLPTR"
    assert conventions.null_output_status(api, api.param("self")) is None


def test_output_named_by_the_null_row_is_a_null_pointer():
    assert conventions.inner_null_outputs(make_api(errors=(null_error("self", "out"),))) == ()


def test_output_named_as_a_word_is_a_null_pointer():
    # aclnnL1LossBackward: "gradOutput、self、target和out是空指针" of an output named gradInput.
    row = ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的self或输出是空指针。", ErrorCategory.NULL_POINTER, ("self",))
    assert conventions.inner_null_outputs(make_api(errors=(row,))) == ()


def test_a_parameter_name_is_not_read_as_the_word():
    # aclnnThresholdBackward: "传入的gradOutput或self是空指针": gradOutput is an input, not "out".
    params = (make_param("gradOutput"), make_param("self"), make_param("out", direction=Direction.OUT))
    row = ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的gradOutput或self是空指针。", ErrorCategory.NULL_POINTER,
                    ("gradOutput", "self"))
    assert conventions.inner_null_outputs(make_api(params=params, errors=(row,))) == ("out",)


def test_a_row_that_misses_an_input_checks_every_output():
    # The row is incomplete: it tells nothing about what CheckNotNull leaves out.
    params = (make_param("self"), make_param("other"), make_param("out", direction=Direction.OUT))
    assert conventions.inner_null_outputs(make_api(params=params, errors=(null_error("self"),))) == ()


def test_the_status_reaches_the_spec_row():
    api = as_parsed(make_api(errors=(null_error("self"),)))
    bound_rows = sim.sim_api(_bound(api)).rows
    assert [r.null_status for r in bound_rows] == [0, 561103]


def as_parsed(api):
    """`api` with the facts the parser records through the conventions (API.inner_null_outputs,
    API.error_rows_name_formats, API.zero_d_addends)."""
    return dataclasses.replace(api, inner_null_outputs=conventions.inner_null_outputs(api),
                               error_rows_name_formats=conventions.error_rows_name_formats(api),
                               zero_d_addends=conventions.zero_d_addends(api))


def _bound(api):
    from gen.model import BoundAPI
    from tests.support.factories import make_page

    return BoundAPI(api=api, page=make_page(api))


# --- 4. a reduction's output in either form ----------------------------------------------------------
# On the package built from op_docs/ (make package), in a process of its own (tests/support/op_docs_process.py).

def test_a_reduction_writes_an_output_given_in_the_other_form():
    from tests.support.op_docs_process import built, run

    import pytest

    if not built():
        pytest.skip("make package first")
    done = run("""
import numpy as np, aclnn
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
kept, dropped = np.zeros((2, 1, 4), np.float32), np.zeros((2, 4), np.float32)
aclnn.amax(x, [1], False, out=kept)   # keepdim False, the output in keepdim's form
aclnn.amax(x, [1], True, out=dropped)  # and the other way round
assert np.array_equal(kept, x.max(1, keepdims=True)), kept
assert np.array_equal(dropped, x.max(1)), dropped
try:
    aclnn.amax(x, [1], False, out=np.zeros((4, 2), np.float32))  # the same size, another shape
except aclnn.AclnnError as e:
    assert e.status == 161002, e
else:
    raise AssertionError("a [4, 2] output of a [2, 4] reduction passed")
""")
    assert done.returncode == 0, done.stderr


# --- 5. host scalars are cast ------------------------------------------------------------------------

def _threshold_api(*errors):
    from gen.ir import Relation, RelationKind

    same = (Relation(RelationKind.SAME_DTYPE, ("gradOutput",)),)
    params = (make_param("gradOutput", relations=(Relation(RelationKind.SAME_DTYPE, ("threshold",)),)),
              make_param("threshold", kind=conventions.ParamKind.SCALAR, relations=same),
              make_param("out", direction=Direction.OUT))
    return make_api(params=params, errors=errors)


def _same_dtype(row):
    return dict(row.relations)["same_dtype"]


def test_a_scalar_is_held_to_no_dtype_relation():
    # aclnnThresholdBackward: "threshold: dtype需要与gradOutput保持一致", and FLOAT16 tensors take a FLOAT threshold.
    api = _threshold_api()
    assert conventions.scalar_cast(api, api.param("threshold"))
    rows = sim.sim_api(_bound(api)).rows
    assert _same_dtype(rows[0]) == () and _same_dtype(rows[1]) == ()


def test_a_scalar_a_dtype_row_names_is_held():
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "threshold与gradOutput数据类型不一致。", ErrorCategory.DTYPE_MISMATCH,
                    ("threshold", "gradOutput"))
    api = _threshold_api(row)
    assert not conventions.scalar_cast(api, api.param("threshold"))
    rows = sim.sim_api(_bound(api)).rows
    assert _same_dtype(rows[0]) == (1,) and _same_dtype(rows[1]) == (0,)


def test_a_tensor_is_never_cast():
    api = _threshold_api()
    assert not conventions.scalar_cast(api, api.param("gradOutput"))


def test_an_output_spelt_otherwise_is_a_null_pointer():
    # aclnnCrossEntropySumExpAndIndexLogit's row names "predictedLogits" for predictedLogitsOut.
    params = (make_param("self"), make_param("predictedLogitsOut", direction=Direction.OUT))
    row = ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "self、predictedLogits是空指针。", ErrorCategory.NULL_POINTER,
                    ("self",))
    assert conventions.inner_null_outputs(make_api(params=params, errors=(row,))) == ()


def test_a_row_naming_formats_beside_dtypes_is_a_format_row():
    # aclnnRsqrt: "self和out的数据类型和数据格式不在支持的范围之内" (read as a dtype row).
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self和out的数据类型和数据格式不在支持的范围之内。",
                    ErrorCategory.UNSUPPORTED_DTYPE, ("self", "out"))
    api = as_parsed(make_api(errors=(row,)))
    assert conventions.formats_checked(api, api.param("self"))
    private = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "x、y或z使用了私有格式（private format）。", None, ())
    api = as_parsed(make_api(errors=(private,)))
    assert conventions.formats_checked(api, api.param("self"))


def test_what_one_twin_lacks_does_not_narrow_the_other():
    # aclnnGcd: "Atlas A3：不支持UINT8、INT8数据类型"; Ascend910B keeps its table's list.
    p = _self(api_page(_TABLE + f"\n- {_A3}：self不支持FLOAT16。\n"))
    assert p.dtypes_for(Soc.ASCEND910_93) == (DType.FLOAT,)
    assert p.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.FLOAT16)


def test_a_twin_list_that_drops_the_table_still_only_adds():
    # aclnnInplaceAsin: "Atlas A3：selfRef数据类型支持BFLOAT16" read as A3's whole list.
    p = _self(api_page(_TABLE + f"\n- {_A3}：self数据类型支持BFLOAT16。\n"))
    assert p.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
    # A list sharing nothing with the table's adds to it on the twin that states it too: one list.
    assert p.dtypes_for(Soc.ASCEND910_93) == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)


# --- 6. integer inputs of the floating-class predicates ---------------------------------------------

def test_a_floating_class_predicate_takes_integers_on_every_chip():
    # aclnnIsNegInf's page lists the floating types; CANN answers an INT32 input (all False).
    self = make_param("self", dtypes_by_product=(ProductDTypes(Soc.ASCEND910, (DType.FLOAT,)),))
    params = (self, make_param("out", direction=Direction.OUT, dtypes=(DType.BOOL,)))
    found = {p.name: p for p in conventions.class_predicate_inputs("aclnnIsNegInf", params)}
    assert DType.INT32 in found["self"].dtypes and DType.BOOL in found["self"].dtypes_for(Soc.ASCEND910)
    assert found["out"].dtypes == (DType.BOOL,)  # the result stays BOOL
    assert conventions.class_predicate_inputs("aclnnExp", params) == list(params)  # no other API


# --- 7. a host scalar whose row lists no dtype -------------------------------------------------------

_SCALAR_PROTOTYPE = """```cpp
aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, const aclTensor *index, const aclScalar *alpha,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
```
"""


def _scalar_page(alpha_dtypes: str):
    table = html_table(["参数名", "输入/输出", "使用说明", "数据类型"],
                       ["self", "输入", "-", "FLOAT、INT32"], ["index", "输入", "-", "INT64"],
                       ["alpha", "输入", "数据类型可转换成self推导后的数据类型。", alpha_dtypes],
                       ["out", "输出", "-", "FLOAT、INT32"])
    return api_page(table, prototype=_SCALAR_PROTOTYPE)


def test_a_scalar_without_a_listed_dtype_takes_its_results_dtypes():
    # aclnnIndexAdd's alpha: converted to the computation's dtype, never to its index's.
    page = _scalar_page("-")
    assert page.apis[0].param("alpha").dtypes == (DType.FLOAT, DType.INT32)
    assert "scalar-dtypes-from-tensors" in {d.code for d in page.diagnostics}
    assert "param-no-dtypes" not in {d.code for d in page.diagnostics}


def test_a_scalar_with_a_listed_dtype_keeps_it():
    page = _scalar_page("DOUBLE")
    assert page.apis[0].param("alpha").dtypes == (DType.DOUBLE,)
    assert "scalar-dtypes-from-tensors" not in {d.code for d in page.diagnostics}


# --- 8. "a dtype castable to FLOAT" ---------------------------------------------------------------

def test_a_scalar_castable_to_float_takes_every_dtype_that_casts():
    # aclnnSwish's betaOptional: its error row checks its dtype; a C++ 1.0 is a DOUBLE scalar.
    table = html_table(["参数名", "输入/输出", "使用说明", "数据类型"],
                       ["self", "输入", "-", "FLOAT"], ["index", "输入", "-", "INT64"],
                       ["alpha", "输入", "数据类型需要是可转换为FLOAT的数据类型。", "-"], ["out", "输出", "-", "FLOAT"])
    beta = api_page(table, prototype=_SCALAR_PROTOTYPE).apis[0].param("alpha")
    assert beta.dtypes[0] is DType.FLOAT  # the one a Python float is passed as
    assert {DType.DOUBLE, DType.FLOAT16, DType.INT32, DType.BOOL} <= set(beta.dtypes)
    assert not any(d.is_complex for d in beta.dtypes)  # a complex does not cast to FLOAT


# --- 10. integer inputs of a floating result are cast ---------------------------------------------------

def test_integers_listed_on_some_chips_only_are_diagnosed_and_kept():
    # aclnnCosh: the A2/A3 note adds INT8...BOOL to self, whose out lists floating dtypes only.
    page = api_page(_TABLE + f"\n- {_A2}：self数据类型额外支持INT32、BOOL。\n")
    p = _self(page)
    assert DType.INT32 in p.dtypes_for(Soc.ASCEND910B) and DType.INT32 not in p.dtypes_for(Soc.ASCEND910)
    assert "integer-cast-per-chip" in {d.code for d in page.diagnostics}


def test_integers_listed_on_every_chip_say_nothing():
    table = html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、INT32"], ["out", "输出", "FLOAT"])
    assert "integer-cast-per-chip" not in {d.code for d in api_page(table).diagnostics}


# --- 11. the planes of a pool are non-empty ----------------------------------------------------------

def test_a_pool_whose_page_allows_empty_input_is_followed_and_said_so():
    allowed = make_api("aclnnMaxPool2dWithIndices", (make_param("self", empty_tensor=True),
                                                     make_param("out", direction=Direction.OUT)))
    found = conventions.nonempty_planes_contradicted(allowed, "pool", "self", 1)
    assert [d.code for d in found] == ["empty-planes-allowed"]


def test_a_silent_pool_page_or_another_family_says_nothing():
    silent = make_api("aclnnAvgPool3d", (make_param("self", empty_tensor=None), make_param("out", direction=Direction.OUT)))
    assert not conventions.nonempty_planes_contradicted(silent, "pool", "self", 1)
    allowed = make_api("aclnnAbs", (make_param("self", empty_tensor=True), make_param("out", direction=Direction.OUT)))
    assert not conventions.nonempty_planes_contradicted(allowed, "reduce", "self", 1)


# --- 12. the 0-d addend of a fused product -----------------------------------------------------------

# aclnnAddmm's self: the broadcast note in a row of its own under the spanned name cell.
_ADDEND_TABLE = """<table>
<thead><tr><th>参数名</th><th>输入/输出</th><th>使用说明</th><th>数据类型</th><th>维度(shape)</th></tr></thead>
<tbody>
<tr><td rowspan="2">self</td><td rowspan="2">输入</td><td>数据类型需要与mat1@mat2满足数据类型推导规则。</td>
<td rowspan="2">FLOAT</td><td rowspan="2">1~2</td></tr>
<tr><td>需要与mat1@mat2满足broadcast关系。</td></tr>
<tr><td>out</td><td>输出</td><td>-</td><td>FLOAT</td><td>2</td></tr>
</tbody>
</table>
"""


def test_an_addend_broadcast_to_a_product_may_be_0d():
    api = api_page(_ADDEND_TABLE).apis[0]
    assert "broadcast" in api.param("self").usage  # the second row's note is read
    assert api.zero_d_addends == ("self",)
    assert [row.rank for row in sim.spec_rows(api)] == [(0, 2), (2, 2)]


def test_a_tensor_broadcast_with_another_parameter_keeps_its_least_rank():
    # aclnnMatmul's self "需要与mat2满足broadcast关系": the batch dimensions of a matmul, no 0-d operand.
    params = (make_param("self", rank=(1, 6), usage="需要与mat2满足broadcast关系。"), make_param("out", direction=Direction.OUT))
    api = as_parsed(make_api(params=params))
    assert api.zero_d_addends == ()
    assert conventions.enforced_rank(api, api.param("self")) == (1, 6)


# --- the census: what each convention changes over a directory of pages ---------------------------

def test_the_census_counts_the_apis_a_convention_changes(tmp_path):
    docs = REPOSITORY / "op_docs"
    for name in ("aclnnMin.md", "leaky_relu.md", "aclnnIsFinite.md"):
        shutil.copy(docs / name, tmp_path / name)
    changed = census([tmp_path])
    assert "aclnnMin" in changed["3 inner_null_outputs"]  # its null row names self alone
    assert "aclnnLeakyRelu" in changed["2 formats_checked"]  # ND column, no format row
    assert changed["6 class_predicate_inputs"] == ["aclnnIsFinite"]
