"""The select stage (gen.model.build_model) when two pages declare one API name: a shipped page
wins over a contributed sample (experimental/), different signatures are always reported, and
the generated code names pages relative to the docs directory."""

from __future__ import annotations

from gen.ir import Direction, Level
from gen.model import build_model
from tests.support.factories import make_api, make_page, make_param


def median_pages():
    # ops-nn/index/gather_v2/docs/aclnnMedian.md (self, valuesOut) against the 5-parameter sample
    # of ops-nn/experimental/index/median/docs/aclnnMedian.md.
    shipped = make_page(make_api("aclnnMedian", (make_param("self"), make_param("valuesOut"))),
                        source="docs/ops-nn/index/gather_v2/docs/aclnnMedian.md")
    sample = make_page(make_api("aclnnMedian", tuple(make_param(n) for n in ("self", "dim", "keepDim", "v", "i")),
                                errors=()), source="docs/ops-nn/experimental/index/median/docs/aclnnMedian.md")
    return shipped, sample


def test_the_shipped_page_wins_over_an_experimental_one_that_says_more():
    shipped, sample = median_pages()
    model = build_model([sample, shipped], roots=["docs"])
    bound = model.api("aclnnMedian")
    assert bound.page is shipped
    assert bound.page_name == "ops-nn/index/gather_v2/docs/aclnnMedian.md"


def test_a_clash_of_signatures_is_a_warning_naming_both():
    shipped, sample = median_pages()
    notes = build_model([sample, shipped], roots=["docs"]).notes
    [(source, note)] = notes
    assert source == sample.source
    assert note.level is Level.WARNING and note.code == "api-clash"
    assert "ops-nn/index/gather_v2/docs/aclnnMedian.md is bound because it is a contributed sample" in note.message


def test_the_same_signature_twice_is_a_note():
    one = make_page(make_api("aclnnFoo"), source="a/aclnnFoo.md")
    two = make_page(make_api("aclnnFoo"), source="b/aclnnFoo.md")
    [(_, note)] = build_model([one, two]).notes
    assert note.level is Level.INFO and note.code == "duplicate-api"


def example_page(**semantics):
    from gen.ir import DType, ExampleArg, ExampleCall, OpSemantics, ProductDTypes, Soc

    out = make_param("out", direction=Direction.OUT, dtypes=(DType.FLOAT,), rank=(1, 8), line=12,
                     dtypes_by_product=(ProductDTypes(Soc.ASCEND910, (DType.FLOAT16,)),))
    call = ExampleCall((ExampleArg("self", DType.FLOAT, (4,)), ExampleArg("out", DType.DOUBLE, ())), line=40)
    page = make_page(make_api("aclnnFoo", (make_param("self"), out), example_call=call))
    return build_model([page], [OpSemantics("aclnnFoo", "foo.toml", **semantics)] if semantics else [])


def test_a_dtype_and_rank_the_pages_example_passes_are_admitted_where_its_table_omits_them():
    from gen.ir import DType, Soc

    model = example_page()
    out = model.api("aclnnFoo").api.param("out")
    # The example's 0-D DOUBLE out (aclnnLog10's out row omits DOUBLE; aclnnMseLoss's rank 1-8 out
    # is a scalar for reduction mean): admitted on the default chip; other chips' lists untouched.
    assert out.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.DOUBLE) and out.rank == (0, 8)
    assert out.dtypes_for(Soc.ASCEND910) == (DType.FLOAT16,)
    widened = [d for _, d in model.notes if d.code == "example-widens-table"]
    assert [(d.level, d.line) for d in widened] == [(Level.WARNING, 40)] * 2
    assert "DOUBLE" in widened[0].message and "line 12" in widened[0].message
    # The page itself is as it was: the IR says what the page says.
    assert model.pages[0].apis[0].param("out").dtypes == (DType.FLOAT,)


def test_a_semantics_file_can_keep_the_table_where_cann_refuses_the_example():
    from gen.ir import DType, Soc

    model = example_page(table_over_example=True)
    out = model.api("aclnnFoo").api.param("out")
    assert out.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT,) and out.rank == (1, 8)
    assert not [d for _, d in model.notes if d.code == "example-widens-table"]


def test_a_same_shape_relation_the_pages_example_breaks_is_not_held():
    from gen.ir import DType, ExampleArg, ExampleCall, Relation, RelationKind

    # aclnnAdaptiveAvgPool2dBackward's English page: "gradOutput and self have the same shape",
    # its example a [1, 1, 3, 2] gradient of a [1, 1, 4, 2] input.
    same = (Relation(RelationKind.SAME_SHAPE, ("self", "out")),)
    grad = make_param("gradOutput", relations=same)
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),))
    call = ExampleCall((ExampleArg("gradOutput", DType.FLOAT, (1, 1, 3, 2)), ExampleArg("self", DType.FLOAT, (1, 1, 4, 2)),
                        ExampleArg("out", DType.FLOAT, (1, 1, 4, 2))), line=50)
    model = build_model([make_page(make_api("aclnnFoo", (grad, make_param("self"), out), example_call=call))])
    api = model.api("aclnnFoo").api
    assert api.param("gradOutput").relations == ()  # both of its shapes differ from the example's gradient
    assert api.param("out").related(RelationKind.SAME_SHAPE) == ("self",)  # the example keeps that one
    assert [d.line for _, d in model.notes if d.code == "example-widens-table"] == [50]


def test_a_string_the_pages_example_passes_as_nullptr_is_admitted_absent():
    from gen.ir import DType, ExampleArg, ExampleCall, ParamKind

    # aclnnRmsNormDynamicMxQuant: its example passes roundMode as nullptr, which its null-pointer row
    # ("x、gamma、yOut和mxscaleOut是空指针") leaves out; an integer is no pointer and stays as it is.
    mode = make_param("roundMode", kind=ParamKind.STRING, c_type="char*")
    count = make_param("count", kind=ParamKind.INT)
    call = ExampleCall((ExampleArg("self", DType.FLOAT, (4,)),), line=60, null_params=("roundMode",))
    model = build_model([make_page(make_api("aclnnFoo", (make_param("self"), mode, count), example_call=call))])
    api = model.api("aclnnFoo").api
    assert api.param("roundMode").optional and not api.param("count").optional
    assert [d.line for _, d in model.notes if d.code == "example-widens-table"] == [60]


def client_page(**semantics):
    from gen.ir import ClientDTypes, DType, OpSemantics, ProductDTypes, Relation, RelationKind, Soc

    # aclnnLayerNorm's shape: statistics "数据类型与input一致", which torch_npu's op-plugin (built
    # against CANN) breaks by passing FLOAT statistics for a FLOAT16 input.
    tied = (Relation(RelationKind.SAME_DTYPE, ("input",)),)
    mean = make_param("meanOut", direction=Direction.OUT, dtypes=(DType.FLOAT16,), relations=tied, line=20,
                      dtypes_by_product=(ProductDTypes(Soc.ASCEND910B, (DType.FLOAT16,)),))
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_DTYPE, ("input", "meanOut")),))
    page = make_page(make_api("aclnnFoo", (make_param("input", dtypes=(DType.FLOAT16,)), mean, out)))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, **semantics) if semantics else None
    return build_model([page], [chosen] if chosen else [])


def test_dtypes_a_framework_passes_are_admitted_and_free_the_tensor_from_its_dtype_relations():
    from gen.ir import ClientDTypes, DType, RelationKind, Soc

    model = client_page(client_dtypes=(ClientDTypes("meanOut", (DType.FLOAT,)),),
                        client_evidence="op-plugin FooKernelNpuOpApi.cpp")
    api = model.api("aclnnFoo").api
    mean = api.param("meanOut")
    assert mean.dtypes == (DType.FLOAT16, DType.FLOAT) and mean.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT16, DType.FLOAT)
    assert mean.relations == ()
    # Another tensor tied to it is freed from it too, and stays tied to the rest.
    assert api.param("out").related(RelationKind.SAME_DTYPE) == ("input",)
    [note] = [d for _, d in model.notes if d.code == "client-widens-table"]
    assert note.level is Level.WARNING and note.line == 7 and "op-plugin FooKernelNpuOpApi.cpp" in note.message


def test_client_dtypes_of_a_parameter_the_page_lacks_are_an_error():
    from gen.ir import ClientDTypes, DType

    model = client_page(client_dtypes=(ClientDTypes("rstdOut", (DType.FLOAT,)),), client_evidence="op-plugin")
    assert [d.level for _, d in model.notes if d.code == "client-dtypes"] == [Level.ERROR]
    assert model.api("aclnnFoo").api.param("meanOut").relations  # nothing else changed


def test_without_client_dtypes_the_page_holds():
    from gen.ir import RelationKind

    assert client_page().api("aclnnFoo").api.param("meanOut").related(RelationKind.SAME_DTYPE) == ("input",)


def test_int32_words_a_framework_passes_for_an_int4_output_free_it_from_its_shape_relation():
    from gen.ir import ClientDTypes, DType, OpSemantics, Relation, RelationKind

    # aclnnDynamicQuantV2's yOut: INT4 or INT8 "shape与x一致"; op-plugin's quint4x2 passes INT32 words
    # of eight INT4, x's shape with its last dimension / 8. An INT8-only output keeps its relation.
    same = (Relation(RelationKind.SAME_SHAPE, ("x",)),)
    y = make_param("yOut", direction=Direction.OUT, dtypes=(DType.INT4, DType.INT8), relations=same)
    z = make_param("zOut", direction=Direction.OUT, dtypes=(DType.INT8,), relations=same)
    page = make_page(make_api("aclnnFoo", (make_param("x"), y, z)))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, client_evidence="op-plugin: quint4x2",
                         client_dtypes=(ClientDTypes("yOut", (DType.INT32,)), ClientDTypes("zOut", (DType.INT32,))))
    model = build_model([page], [chosen])
    api = model.api("aclnnFoo").api
    assert api.param("yOut").relations == () and api.param("yOut").dtypes == (DType.INT4, DType.INT8, DType.INT32)
    assert api.param("zOut").relations == same
    assert any("INT32 words of eight INT4" in d.message for _, d in model.notes if d.code == "client-widens-table")


def test_int32_words_for_an_int4_output_join_its_dtype_combination_rows():
    from gen.ir import ClientDTypes, CombinationCell, DType, DTypeCombination, OpSemantics

    # aclnnRmsNormQuant's table: x FLOAT16 with y INT8, or with y INT4; op-plugin's quint4x2 y is INT32.
    rows = (DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("y", (DType.INT8,)))),
            DTypeCombination((CombinationCell("x", (DType.FLOAT16,)), CombinationCell("y", (DType.INT4,)))))
    y = make_param("y", direction=Direction.OUT, dtypes=(DType.INT8, DType.INT4))
    page = make_page(make_api("aclnnFoo", (make_param("x", dtypes=(DType.FLOAT16,)), y), dtype_combinations=rows))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, client_evidence="op-plugin: quint4x2",
                         client_dtypes=(ClientDTypes("y", (DType.INT32,)),))
    api = build_model([page], [chosen]).api("aclnnFoo").api
    assert [row.cell("y").dtypes for row in api.dtype_combinations] == [(DType.INT8,), (DType.INT4, DType.INT32)]


def test_shapes_a_framework_broadcasts_turn_the_same_shape_relations_among_them_into_broadcast_ones():
    from gen.ir import OpSemantics, Relation, RelationKind

    # aclnnPolar's shape: angle and out "维度与input保持一致", which op-plugin breaks with broadcasting
    # operands; out stays tied to a tensor the file does not name.
    angle = make_param("angle", relations=(Relation(RelationKind.SAME_SHAPE, ("input",)),))
    out = make_param("out", direction=Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("input", "mask")),))
    page = make_page(make_api("aclnnFoo", (make_param("input"), angle, make_param("mask"), out)))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, client_broadcast=("input", "angle", "out"),
                         client_evidence="op-plugin: broadcast_ops_npu_output_size")
    api = build_model([page], [chosen]).api("aclnnFoo").api
    assert api.param("angle").relations == (Relation(RelationKind.BROADCAST, ("input",)),)
    assert api.param("out").relations == (Relation(RelationKind.SAME_SHAPE, ("mask",)),
                                          Relation(RelationKind.BROADCAST, ("input",)))


def test_a_range_of_values_the_semantics_file_checks_with_another_status_is_the_files():
    from gen.ir import ArgValue, Bound, OpSemantics, ParamKind, ValueCheck, ValueRange

    # aclnnMoeInitRoutingV3: "expertTokensNumType 当前只支持 1 和 2" (a range, 161002) and its error row
    # "输入的属性不在支持的范围内" (561002), which the semantics file's check states.
    mode = make_param("mode", kind=ParamKind.INT)
    ranges = (ValueRange("mode", Bound(offset=1), Bound(offset=2), line=9),)
    page = make_page(make_api("aclnnFoo", (make_param("self"), mode, make_param("out", direction=Direction.OUT)),
                              value_ranges=ranges))
    check = ValueCheck("mode != 1 && mode != 2", "mode must be 1 or 2", 561002, violation=(ArgValue("mode", 0),))
    model = build_model([page], [OpSemantics("aclnnFoo", "foo.toml", checks=(check,))])
    assert model.api("aclnnFoo").api.value_ranges == ()
    assert [d.line for _, d in model.notes if d.code == "range-checked-by-semantics"] == [9]
    # A check of the page's own status leaves the range alone.
    same = ValueCheck("mode != 1 && mode != 2", "mode must be 1 or 2", violation=(ArgValue("mode", 0),))
    assert build_model([page], [OpSemantics("aclnnFoo", "foo.toml", checks=(same,))]).api("aclnnFoo").api.value_ranges == ranges


def test_a_tensor_a_framework_passes_for_a_list_is_noted_and_marks_that_list_row_alone():
    from gen.emit.sim import sim_api
    from gen.ir import OpSemantics, ParamKind

    # aclnnGRUBackward's hx: an aclTensorList on the page, one aclTensor from op-plugin.
    hx = make_param("hx", kind=ParamKind.TENSOR_LIST, c_type="const aclTensorList*")
    page = make_page(make_api("aclnnFoo", (make_param("input"), hx, make_param("out", direction=Direction.OUT))))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, client_tensor_for_list=("hx", "input"),
                         client_evidence="op-plugin FooKernelNpuOpApi.cpp")
    model = build_model([page], [chosen])
    notes = {d.code: d for _, d in model.notes}
    assert notes["client-widens-table"].level is Level.WARNING and "aclnnFoo.hx" in notes["client-widens-table"].message
    assert notes["client-dtypes"].level is Level.ERROR and "input" in notes["client-dtypes"].message
    rows = {row.name: row for row in sim_api(model.api("aclnnFoo")).rows}
    assert [name for name, row in rows.items() if row.tensor_for_list] == ["hx"]
    assert rows["hx"].trailing[-1] == ("tensor_for_list", "true") and rows["input"].trailing == ()


def test_an_output_a_framework_passes_empty_is_admitted_empty_and_an_input_is_not():
    from gen.ir import OpSemantics

    # aclnnRmsNormQuantV3's rstd: "不支持空Tensor", passed as [0] by op-plugin with outputRstd false.
    rstd = make_param("rstd", direction=Direction.OUT, empty_tensor=False)
    x = make_param("x", empty_tensor=False)
    page = make_page(make_api("aclnnFoo", (x, make_param("y", direction=Direction.OUT), rstd)))
    chosen = OpSemantics("aclnnFoo", "foo.toml", line=7, client_empty=("rstd", "x"),
                         client_evidence="op-plugin FooKernelNpuOpApi.cpp")
    model = build_model([page], [chosen])
    api = model.api("aclnnFoo").api
    assert (api.param("rstd").empty_tensor, api.param("x").empty_tensor) == (True, False)
    notes = [d for _, d in model.notes]
    assert any(d.code == "client-widens-table" and "aclnnFoo.rstd" in d.message for d in notes)
    assert any(d.code == "client-dtypes" and d.level is Level.ERROR and "client_empty names x" in d.message
               for d in notes)


def test_a_check_of_a_parameter_the_page_lacks_does_not_apply_to_that_page():
    from gen.ir import OpSemantics, ValueCheck

    # aclnnFusedInferAttentionScoreV4: op_docs' derived page adds learnableSinkOptional, which the
    # corpus page lacks; the semantics file (keyed by API name) refuses a present sink.
    sink = ValueCheck("sink.present", "sink: not simulated", line=12)
    kept = ValueCheck("scale < 0", "scale must not be negative", line=17)
    checks = OpSemantics("aclnnFoo", "foo.toml", checks=(sink, kept))
    scale = make_param("scale")
    without = make_page(make_api("aclnnFoo", (make_param("self"), scale, make_param("out", direction=Direction.OUT))))
    model = build_model([without], [checks])
    assert model.api("aclnnFoo").semantics.checks == (kept,)
    notes = [d for _, d in model.notes if d.code == "check-of-an-absent-parameter"]
    assert len(notes) == 1 and "sink" in notes[0].message and "foo.toml:12" in notes[0].message
    with_sink = make_page(make_api("aclnnFoo", (make_param("self"), make_param("sink", optional=True), scale,
                                                make_param("out", direction=Direction.OUT))))
    model = build_model([with_sink], [checks])
    assert model.api("aclnnFoo").semantics.checks == (sink, kept)
    assert not [d for _, d in model.notes if d.code == "check-of-an-absent-parameter"]
