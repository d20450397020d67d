"""Relations between parameters, from usage notes and descriptions."""

import pytest

from gen.ir import RelationKind as K
from gen.ir import API, Direction, ErrorCase, ErrorCategory, ParamKind, Relation
from gen.locations import REPOSITORY
from gen.parse import parse_bytes
from gen.parse.extractors.relations import (relations_in, speaks_of_broadcasting, with_constraint_relations,
                                             with_error_table_relations)
from tests.support.factories import make_param

NAMES = ["gradOutput", "self", "out", "result", "gradInput"]


def rel(text, own="gradOutput", names=NAMES):
    return [(r.kind, r.others) for r in relations_in(text, own, list(names))]


def test_broadcast():
    assert rel("shape需要与self满足broadcast关系。") == [(K.BROADCAST, ("self",))]


def test_a_shape_that_is_others_broadcast_in_chinese_is_broadcast_not_same_shape():
    # aclnnLtTensor's out: torch.lt(a [5, 1], b [5]) gives [5, 5]; read as "the same shape as self and
    # other", phase 1 refused what op-plugin passes.
    assert rel("shape与self、gradOutput广播之后的shape一致。", own="out") == [(K.BROADCAST, ("self", "gradOutput"))]


@pytest.mark.parametrize("text", ["shape为一维，且元素个数为self和out广播后的shapesize。",
                                  "shape在self指定的轴广播后的值为3。"])
def test_a_count_or_one_axis_after_broadcasting_is_no_relation(text):
    assert rel(text) == []


@pytest.mark.parametrize("text,others", [("gradOutput与self、out的shape一致。", ("self", "out")),
                                         ("shape与self相同。", ("self",)),
                                         ("The shape must be the same as that of out.", ("out",))])
def test_same_shape(text, others):
    assert rel(text) == [(K.SAME_SHAPE, others)]


def test_promote():
    assert rel("数据类型与self的数据类型需满足数据类型推导规则（参见互推导关系）。") == [(K.PROMOTE, ("self",))]


def test_same_dtype_and_same_shape_with_a_comma_separated_name_list():
    assert rel("数据类型、shape需要与result，gradInput一致。") == [
        (K.SAME_DTYPE, ("result", "gradInput")), (K.SAME_SHAPE, ("result", "gradInput"))]


def test_a_default_its_sentence_makes_an_exception_to_is_no_relation():
    # aclnnErfc's out: same dtype as self by default, FLOAT32 for BOOL and INT64 inputs.
    text = "数据类型默认和self保持一致，若self数据类型为BOOL或INT64时，out的数据类型默认为FLOAT32。shape必须和self一致。"
    assert rel(text, own="out") == [(K.SAME_SHAPE, ("self",))]
    assert rel("数据类型默认和self保持一致。", own="out") == [(K.SAME_DTYPE, ("self",))]  # no exception


@pytest.mark.parametrize("text", ["如果使用该功能其数据类型与shape必须与self保持一致。",  # aclnnFusedInferAttentionScoreV4
                                  "When provided, its data type must be the same as that of self."])
def test_a_condition_that_the_parameter_be_given_is_no_condition(text):
    assert rel(text)[0] == (K.SAME_DTYPE, ("self",))


@pytest.mark.parametrize("text", ["若存在需与 self shape 一致。",  # aclnnBinaryCrossEntropyWithLogitsBackward
                                  "可选，可为空，非空时shape与self一致。",  # aclnnWeightQuantMatmulAllReduce
                                  "使用时，shape必须与self保持一致。",  # aclnnFusedInferAttentionScoreV2
                                  "如果提供，shape需要与self保持一致。",  # aclnnRmsNormDynamicMxQuant
                                  "当`gradOutput`非空指针时，shape与self一致。",
                                  "当 self 存在时与 self 的shape相同。",  # aclnnFastLayerNorm
                                  "gradOutput若非空，shape与self相同。",  # aclnnQuantMatmulAllReduce's x3
                                  "若传入 gradOutput ，需保证其shape信息与 self 一致。",  # aclnnIncreFlashAttentionV4's quantOffset2
                                  "gradOutput存在输入时，shape与self一致。"])
def test_a_condition_that_a_party_be_given_is_no_condition(text):
    # Phase 1 judges no relation on an absent tensor: the condition is how every relation holds.
    assert rel(text) == [(K.SAME_SHAPE, ("self",))]


@pytest.mark.parametrize("text", ["如果使用该模式，数据类型与self保持一致。",
                                  "当out非空时，shape与self一致。",  # another tensor given: a condition
                                  "若传入有效out：shape与self一致。",
                                  "当提供out时，shape与self一致。",
                                  "当传入空指针时，shape与self一致。",
                                  "如果gradOutput为有效输出时，shape与self一致。",  # selected by a mask, not given
                                  "gradOutput为空时，shape与self一致。"])
def test_a_condition_on_something_else_still_governs_the_relation(text):
    assert rel(text) == []


def test_the_same_dtype_as_one_alternative_is_no_relation():
    # aclnnLayerNorm's weightOptional: FLOAT beside a FLOAT16 input is allowed.
    assert rel("数据类型与输入self一致或为FLOAT类型。") == []
    assert rel("The data type is the same as that of self or is FLOAT32.") == []


def test_a_condition_that_runs_into_its_statement_still_governs_it():
    # aclnnDynamicQuantV3's yOut: "其他数据类型时shape和x保持一致", no comma after 时; its dtype is never x's.
    assert rel("其他数据类型时shape和x保持一致。", own="yOut", names=("x", "yOut")) == []
    assert rel("数据类型为INT4时，最后一维的大小必须能被2整除。shape和x保持一致。", own="yOut",
               names=("x", "yOut")) == [(K.SAME_SHAPE, ("x",))]


def test_cast_from():
    assert rel("数据类型需要是gradOutput与self推导之后可转换的数据类型（参见互转换关系）。", own="out") == [
        (K.CAST_FROM, ("gradOutput", "self"))]


def test_two_clauses_two_relations():
    assert rel("数据类型与self的数据类型需满足数据类型推导规则，shape与self相同。") == [
        (K.PROMOTE, ("self",)), (K.SAME_SHAPE, ("self",))]


def test_only_parameters_of_the_api_are_named():
    assert rel("shape与weight一致。") == []


def test_a_negated_statement_is_no_relation():
    assert rel("shape与self不一致时报错。") == []


def test_castable_to_the_promoted_dtype_is_not_cast_from():
    # alpha must cast *to* promote(self, other); CAST_FROM says the converse.
    assert relations_in("数据类型需要可转换成self与other推导后的数据类型。", "alpha", ["self", "other", "alpha"]) == ()


def _mismatch(*names, category=ErrorCategory.DTYPE_MISMATCH):
    return ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "、".join(names) + "的数据类型不一致。", category, names)


def _shape_mismatch(*names):
    return ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "、".join(names) + "的shape不一致。", ErrorCategory.SHAPE_MISMATCH,
                     names)


def test_a_dtype_mismatch_row_relates_the_tensors_it_names():
    params = (make_param("self"), make_param("out"), make_param("alpha", kind=ParamKind.SCALAR))
    got = with_error_table_relations(params, [_mismatch("self", "out", "alpha")])
    assert [p.related(K.SAME_DTYPE) for p in got] == [("out",), ("self",), ()]


def test_a_dtype_row_relates_the_tensors_of_its_relating_clause_only():
    # aclnnReluGradV4: "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8" (self is UINT8, the others not).
    params = (make_param("gradOutput"), make_param("self"), make_param("out"))
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8。",
                    ErrorCategory.DTYPE_MISMATCH, ("gradOutput", "out", "self"))
    got = with_error_table_relations(params, [row])
    assert [p.related(K.SAME_DTYPE) for p in got] == [("out",), (), ("gradOutput",)]
    # aclnnMv: "self，vec和out的数据类型不同" lists its three tensors across the comma.
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self，gradOutput和out的数据类型不同。",
                    ErrorCategory.DTYPE_MISMATCH, ("self", "gradOutput", "out"))
    got = with_error_table_relations(params, [row])
    assert [set(p.related(K.SAME_DTYPE)) for p in got] == [{"self", "out"}, {"gradOutput", "out"}, {"gradOutput", "self"}]


def test_a_relation_the_table_states_is_not_repeated():
    params = (make_param("self", relations=(Relation(K.SAME_DTYPE, ("out",)),)), make_param("out"))
    got = with_error_table_relations(params, [_mismatch("self", "out")])
    assert got[0].relations == params[0].relations and got[1].related(K.SAME_DTYPE) == ("self",)


def test_other_rows_and_single_tensors_relate_nothing():
    # A shape row relates the tensors it names since issue 14 (next tests); a rank row never does.
    params = (make_param("self"), make_param("out"))
    rows = [_mismatch("self"), _mismatch("self", "out", category=ErrorCategory.RANK)]
    assert with_error_table_relations(params, rows) == params


def test_a_shape_mismatch_row_relates_the_tensors_it_names():
    params = (make_param("self"), make_param("out"))
    got = with_error_table_relations(params, [_shape_mismatch("self", "out")])
    assert [p.related(K.SAME_SHAPE) for p in got] == [("out",), ("self",)]


def test_a_shape_row_among_tensors_the_table_lets_broadcast_means_their_broadcast():
    # aclnnLeakyReluBackward: gradOutput and self broadcast; "gradOutput、self和out的shape不相同".
    params = (make_param("gradOutput", relations=(Relation(K.BROADCAST, ("self",)),)), make_param("self"),
              make_param("out", direction=Direction.OUT))
    got = with_error_table_relations(params, [_shape_mismatch("gradOutput", "self", "out")])
    assert [p.related(K.SAME_SHAPE) for p in got] == [(), (), ()]
    assert [p.related(K.BROADCAST) for p in got] == [("self", "out"), ("out",), ("gradOutput", "self")]
    assert got[2].name == "out" and API("aclnnX", "x", params=got).shape_group("out") == ("gradOutput", "self", "out")


def test_a_shape_row_about_one_dimension_relates_nothing():
    params = (make_param("gamma"), make_param("x"))
    rows = [ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gamma的shape与x最后一维不一致。",
                      ErrorCategory.SHAPE_MISMATCH, ("gamma", "x"))]
    assert with_error_table_relations(params, rows) == params


@pytest.mark.parametrize("text", ["shape需要与self最后一维一致。", "shape与out的第1维一致。",
                                  "The shape must be the same as the last dimension of self.",
                                  # aclnnTopKTopPSample's topK [batch] beside logits [batch, vocSize]
                                  "shape需要与`self`前n-1维保持一致。"])
def test_a_shape_equal_to_one_dimension_of_another_is_no_same_shape(text):
    assert rel(text) == []  # aclnnRmsNormDynamicQuant's gamma: SAME_SHAPE with x made valid calls fail


@pytest.mark.parametrize("condition", [
    "out和mat1@mat2 shape不一致。",  # aclnnAddmm: a product, not out's equal
    "gamma、beta的shape与参数说明中不一致。",  # each as its own row says
    "weight，runningMean的shape长度与input shape中channel轴的长度不相等。",  # one axis
    "mean的shape乘积与input从第0根轴到第len(input) - len(normalizedShape)轴的乘积不相等。",
])
def test_a_shape_row_that_says_more_than_a_mismatch_relates_nothing(condition):
    params = tuple(make_param(n) for n in ("out", "mat1", "mat2", "gamma", "beta", "weight", "runningMean", "input",
                                           "mean"))
    named = tuple(p.name for p in params if p.name in condition)
    row = ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, condition, ErrorCategory.SHAPE_MISMATCH, named)
    assert with_error_table_relations(params, [row]) == params


def test_a_shape_row_between_tensors_of_ranks_that_cannot_meet_relates_nothing():
    # aclnnQuantMatmul: "x2与bias的shape不一致", x2 2-D and bias 1-D.
    params = (make_param("x2", rank=(2, 2)), make_param("bias", rank=(1, 1)))
    assert with_error_table_relations(params, [_shape_mismatch("x2", "bias")]) == params


@pytest.mark.parametrize("condition", ["参数gradOutput、self的shape不一致。", "self和other的shape无法做broadcast。",
                                       "The shapes of self and other are not the same.",
                                       # aclnnAddLayerNorm.md:289 (a 561002 row)
                                       "（self、other）的shape不是完全相同的shape。", "输入self和输出gradOutput的shape不一致。"])
def test_plain_shape_rows_in_their_usual_wordings_relate(condition):
    params = (make_param("self"), make_param("other"), make_param("gradOutput"))
    named = tuple(p.name for p in params if p.name in condition)
    category = ErrorCategory.BROADCAST if "broadcast" in condition else ErrorCategory.SHAPE_MISMATCH
    got = with_error_table_relations(params, [ErrorCase("E", 161002, condition, category, named)])
    assert got != params


def test_a_parenthesis_of_exceptions_after_the_statement_leaves_it_unconditional():
    # aclnnSoftplus's beta: the relation, then its exceptions in parentheses.
    text = ("数据类型与self的数据类型满足数据类型推导规则（参见互推导关系）（当beta是float，self是整型；"
            "或者beta不是bool，而self是bool。这些场景不满足推导关系外，其余场景均满足推导关系）。")
    from gen.ir import RelationKind
    from gen.parse.extractors.relations import relations_in
    assert [(r.kind, r.others) for r in relations_in(text, "beta", ["self", "beta", "out"])] == [
        (RelationKind.PROMOTE, ("self",))]
    conditional = "当reduction为0时，out的shape与self一致。"
    assert relations_in(conditional, "out", ["self", "reduction", "out"]) == ()


def test_a_page_that_speaks_of_broadcasting_says_so_in_its_ir_and_one_that_does_not_does_not():
    # aclnnLeakyReluBackward's gradOutput "需要与self满足broadcast关系"; aclnnHardsigmoidBackward's shapes are one.
    def parsed(page):
        return parse_bytes((REPOSITORY / "op_docs" / page).read_bytes(), page).apis[0].speaks_of_broadcasting

    assert parsed("leaky_relu_backward.md") is True
    assert parsed("hardsigmoid_backward.md") is False


@pytest.mark.parametrize("where", ["usage", "description", "formula"])
def test_the_word_in_a_parameters_notes_or_the_formula_speaks_of_broadcasting(where):
    # A product's "self需要与mat1@mat2满足broadcast关系" leaves no relation (the product's shape is none
    # of the IR's), yet the page lets self broadcast.
    text = "self需要与mat1@mat2满足广播关系"
    params = [make_param("self", **({where: text} if where != "formula" else {})), make_param("mat1")]
    assert speaks_of_broadcasting(params, text if where == "formula" else "out = self + mat1 @ mat2")
    assert not speaks_of_broadcasting([make_param("self", usage="shape与out一致"), make_param("mat1")], "out = self")


def test_a_result_the_error_table_calls_the_operands_broadcast_broadcasts_whatever_its_note_says():
    # aclnnFmodTensor: out's note says "shape需要与self一致" (copied from the in-place API) and its
    # error row "out的shape不是self和other broadcast之后的shape": the row is the authority, so
    # torch.fmod(a[5, 1], b[5]) (out [5, 5]) is a valid call.
    page = "aclnnFmodTensor&aclnnInplaceFmodTensor.md"
    api = parse_bytes((REPOSITORY / "op_docs" / page).read_bytes(), page).apis[0]
    out = api.param("out")
    assert set(out.related(K.BROADCAST)) == {"self", "other"}
    assert out.related(K.SAME_SHAPE) == ()
    params = [make_param("self"), make_param("other"), make_param("out", direction=Direction.OUT, usage="shape需要与self一致",
                                                                      relations=(Relation(K.SAME_SHAPE, ("self",)),))]
    row = ErrorCase(code=161002, name="ACLNN_ERR_PARAM_INVALID", condition="out的shape不是self和other broadcast 之后的shape。",
                    category=ErrorCategory.SHAPE_MISMATCH)
    kept = {p.name: p for p in with_error_table_relations(params, [row])}
    assert kept["out"].related(K.SAME_SHAPE) == () and set(kept["out"].related(K.BROADCAST)) == {"self", "other"}
    unrelated = ErrorCase(code=161002, name="ACLNN_ERR_PARAM_INVALID", condition="self和other的shape无法做broadcast。",
                          category=ErrorCategory.BROADCAST)
    assert {p.name: p for p in with_error_table_relations(params, [unrelated])}["out"].related(K.SAME_SHAPE) == ("self",)
    # aclnnRightShift: the operands first, the result after 与 (torch.bitwise_right_shift(a[5, 1], b[5])).
    after = ErrorCase(code=161002, name="ACLNN_ERR_PARAM_INVALID", condition="self、other的shape在broadcast之后与out的shape不一致。",
                      category=ErrorCategory.SHAPE_MISMATCH)
    kept = {p.name: p for p in with_error_table_relations(params, [after])}
    assert kept["out"].related(K.SAME_SHAPE) == () and kept["out"].related(K.BROADCAST) == ("self",)


def _page_api(page):
    return parse_bytes((REPOSITORY / "op_docs" / page).read_bytes(), page).apis[0]


def test_a_shape_the_tensor_may_have_is_no_relation():
    # aclnnAddLayerNorm.md:144, biasOptional: "shape可以和`gamma`/`beta`或`x1`/`x2`一致" (either of two shapes).
    assert rel("shape可以和`self`/`out`或`result`/`gradInput`一致。") == []
    # aclnnAddLayerNormQuantV2 (corpus), scales1Optional: "shape可以与`gamma`保持一致或为[1]".
    assert rel("shape可以与`self`保持一致或为[1]。") == []
    api = _page_api("aclnnAddLayerNorm.md")
    assert api.param("biasOptional").related(K.SAME_SHAPE) == ()


def test_the_same_total_rank_is_no_same_shape():
    # aclnnAddLayerNorm.md:184, meanOut: "（前几维的维度和`x1`前几维的维度相同，后面的维度为1，总维度与`x1`维度相同，...)":
    # meanOut is [A, 1] for an x1 of [A, D]; the clause "总维度与x1维度相同" speaks of its rank.
    assert rel("后面的维度为1，总维度与`self`维度相同。") == []
    api = _page_api("aclnnAddLayerNorm.md")
    assert "x1" not in api.param("meanOut").related(K.SAME_SHAPE) + api.param("rstdOut").related(K.SAME_SHAPE)
    assert "x1" in api.param("yOut").related(K.SAME_SHAPE)


@pytest.mark.parametrize("text", [
    "维度需要与self和gradInput一致，shape需要与replication_pad1d正向传播的output一致。",  # aclnnReplicationPad1dBackward.md:90
    "数据格式和维度与输入self一致。",  # MaxPool's out: pooled, smaller than self
    "TensorList中每个输出tensor的维度与self的维度一致。",  # aclnnSplitTensor.md:112: the pieces of a split
])
def test_dimensions_alike_are_the_rank_not_the_shape(text):
    assert K.SAME_SHAPE not in [kind for kind, _ in rel(text, own="result")]


@pytest.mark.parametrize("text, others", [
    ("维度需要与self和gradInput一致，shape需要与replication_pad1d正向传播的output一致。", ("self", "gradInput")),
    ("维度数需要与self一致。", ("self",)),  # aclnnGather's index
    ("维度数量需要与self、out相同。", ("self", "out")),  # aclnnScatter's index
    ("TensorList中每个输出tensor的维度与self的维度一致。", ("self",)),  # aclnnSplitTensor's out
    ("输出维度与self一致。", ("self",)),  # LogicalNot's shape, read as the rank it keeps: never stricter
])
def test_dimensions_alike_are_the_same_rank(text, others):
    assert rel(text, own="result") == [(K.SAME_RANK, others)]


@pytest.mark.parametrize("text", [
    "其他维度与输入self一致。",  # the dimensions but one: some of the shape
    "NC维度和self保持一致。",  # named dimensions
    "维度数与self保持一致或者为1。",  # one alternative
    "总维度与self维度相同。",  # after "后面的维度为1": a shape the sentence before builds
    "如果keepdim为True，维度与self一致。",  # under a condition
])
def test_some_dimensions_or_a_conditional_rank_are_no_same_rank(text):
    assert K.SAME_RANK not in [kind for kind, _ in rel(text, own="result")]


def test_format_and_rank_of_one_sentence_are_two_relations():
    # MaxPool's out: "数据格式和维度与输入self一致", pooled smaller than self.
    assert rel("数据格式和维度与输入self一致。", own="result") == [(K.SAME_FORMAT, ("self",)), (K.SAME_RANK, ("self",))]


def test_a_pad_backwards_gradient_is_ranked_as_self_and_its_input_shaped_as_self():
    # aclnnReplicationPad1dBackward.md:90 and :100, and the example's gradOutput [1, 4] beside self's [1, 2].
    page = parse_bytes((REPOSITORY / "op_docs" / "aclnnReplicationPad1dBackward.md").read_bytes(), "p.md")
    api = page.apis[0]
    assert api.param("gradOutput").related(K.SAME_SHAPE) == ()
    assert api.param("gradOutput").related(K.SAME_RANK) == ("self", "gradInput")
    assert api.param("self").related(K.SAME_SHAPE) == ("gradInput",)
    assert not any(d.code == "example-breaks-relation" for d in page.diagnostics)
    assert rel("维度（shape）与self一致。") == [(K.SAME_SHAPE, ("self",))]


def test_the_dimensions_to_be_normalized_are_part_of_a_shape():
    # aclnnAddRmsNormQuantV2_en.md:136, gamma: "The shape must be the same as the dimension to be normalized in `x1`."
    assert rel("The shape must be the same as the dimension to be normalized in `self`.") == []
    assert rel("The shape is the same as the to-be-normalized dimension of self.") == []
    gamma = _page_api("aclnnAddRmsNormQuantV2_en.md").param("gamma")
    assert gamma.related(K.SAME_SHAPE) == () and gamma.related(K.SAME_DTYPE) == ("x1",)


@pytest.mark.parametrize("text", [
    # aclnnWeightQuantBatchMatmulV2_en.md:66, weight: the matrices' own dimensions (k, n) need not broadcast.
    "The batch dimension must meet the [broadcast relationship] with the batch dimension of `self`.",
    "The batch dimensions of **self** and **out** can be broadcast.",  # :102, y
    "batch维度需要与`self`的batch维度满足broadcast关系。",  # the Chinese page (corpus)
])
def test_a_broadcast_of_the_batch_dimensions_only_is_no_broadcast_relation(text):
    assert rel(text, own="result") == []


def test_weight_quant_batch_matmul_relates_no_shapes_by_broadcasting():
    api = _page_api("aclnnWeightQuantBatchMatmulV2.md")
    assert all(not p.related(K.BROADCAST) for p in api.params)


def test_a_shape_relation_the_pages_example_breaks_is_not_read():
    # aclnnMaxPool2dWithMaskBackward.md:225 "gradOutput与indices的shape不一致" against its example (:382, :384):
    # gradOutput {1, 1, 2, 1}, indices {1, 1, 4, 64} (the packed mask, whose data std::fill_n writes).
    api = _page_api("aclnnMaxPool2dWithMaskBackward.md")
    assert api.param("gradOutput").related(K.SAME_SHAPE) == () and api.param("indices").related(K.SAME_SHAPE) == ()
    assert api.param("gradInput").related(K.SAME_SHAPE) == ("self",)  # the example keeps this one: {1, 1, 4, 3} both


def test_a_shape_equal_to_anothers_batch_is_no_same_shape():
    # aclnnSlogdet.md:100, signOut: "shape与<code>self</code>的batch一致" (self (*, n, n), signOut (*)).
    assert rel("shape与self的batch一致。", own="out") == []
    api = _page_api("aclnnSlogdet.md")
    assert api.param("signOut").related(K.SAME_SHAPE) == () and api.param("logOut").related(K.SAME_SHAPE) == ()


@pytest.mark.parametrize("text", [
    # aclnnTriangularSolve.md:143, xOut: the batch dimensions of the broadcast, its last axis self's
    "A和self满足broadcast关系之后的维度，最后一根轴dim=self[-1]。",
    "shape需要与broadcast后的A、b满足AX=b约束。",  # :143: an equation of the broadcast operands
    "broadcast后A的上三角（下三角）拷贝。",  # :152, mOut's description: part of the broadcast A
])
def test_a_shape_derived_from_a_broadcast_is_no_broadcast_relation(text):
    assert rel(text, own="xOut", names=["self", "A", "xOut", "mOut"]) == []


def test_an_output_given_only_under_a_condition_relates_under_it():
    # derived/aclnnMoeGatingTopKSoftmaxV2.md:152: "renorm为0且outputSoftmaxResultFlag为true时输出，shape与x一致；
    # 否则不输出（可传空Tensor）": op-plugin passes an empty tensor when the flag is false.
    assert rel("renorm为0且flag为true时输出，shape与self一致；否则不输出（可传空Tensor）。", own="out") == []


def test_a_row_saying_shapes_are_not_all_the_same_is_a_shape_row_with_its_status():
    # aclnnAddLayerNorm.md:286-292, 561002: "（x1、x2、yOut、xOut）的shape不是完全相同的shape。", "（gamma、beta）...",
    # "（meanOut、rstdOut）...": the tiling's checks, the status phase 1 gives its shape checks.
    api = _page_api("aclnnAddLayerNorm.md")
    rows = [row for row in api.errors if "完全相同" in row.condition]
    assert len(rows) == 3 and all(row.category is ErrorCategory.SHAPE_MISMATCH for row in rows)
    assert api.param("beta").related(K.SAME_SHAPE) == ("gamma",) and api.param("rstdOut").related(K.SAME_SHAPE) == ("meanOut",)
    assert api.shape_status() == 561002


@pytest.mark.parametrize("text", [
    # the corpus's aclnnBatchNorm_en.md:96, weight: (C,) beside an input (N, C, ...)
    "The shape length is the same as the length of the channel axis of the input parameter self.",
    "shape长度与入参self中channel轴的长度相等。",
    # the corpus's aclnnRmsNorm_en.md:117, rstdOut
    "The shape must be the same as the first several dimensions of the input `self`.",
])
def test_a_shape_equal_to_some_dimensions_of_another_is_no_same_shape(text):
    assert rel(text, own="out") == []


@pytest.mark.parametrize("text", [
    "除最后一维外，shape与self一致。",
    # the corpus's aclnnGeGlu_en.md:109, out: half of self along dim
    "Except the axis specified by dim, the shape of out must be the same as that of self.",
])
def test_an_exception_opening_the_sentence_governs_its_relation(text):
    assert rel(text, own="gradInput") == []


def test_a_constraint_on_a_tensor_given_relates_it():
    # aclnnQuantMatmulAllReduce's 约束说明: "bias若非空，shape为(n)。x3若非空，shape与output相同。"
    params = (make_param("x3"), make_param("output", direction=Direction.OUT), make_param("bias"))
    for line in ("m大小不超过2147483647。bias若非空，shape为(n)。x3若非空，shape与output相同。", "当x3非空时，x3的shape与output相同。"):
        got = with_constraint_relations(params, [line])
        assert [p.related(K.SAME_SHAPE) for p in got] == [("output",), (), ()]


@pytest.mark.parametrize("line", ["当bias非空时，x3的shape与output相同。",  # another tensor given: a condition
                                  "x3若非空，shape大小与output最后一维大小相等。",  # one dimension
                                  "- 当x为INT8时： x3若非空，shape与output相同。"])  # under an item's condition
def test_a_constraint_under_another_condition_relates_nothing(line):
    params = (make_param("x3"), make_param("output", direction=Direction.OUT), make_param("bias"), make_param("x"))
    assert with_constraint_relations(params, [line]) == params
