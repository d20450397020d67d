"""C declarations: found in any fence, inline code or prose; typed; paired into two-phase APIs."""

import pytest

from gen.ir import ParamKind
from gen.parse.extractors.prototypes import find_declarations, normalise_type, pair_declarations, parse_parameter
from tests.parse.parse_helpers import page

DECL = ("aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclTensor *out, "
        "uint64_t *workspaceSize, aclOpExecutor **executor)")
EXEC = "aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)"


@pytest.mark.parametrize("spelling,normal", [
    ("const aclTensor *", "const aclTensor*"), ("aclTensor*", "aclTensor*"), ("aclOpExecutor **", "aclOpExecutor**"),
    ("const  char  *", "const char*"), ("bool", "bool"), ("int64_t", "int64_t"), ("aclDataType", "aclDataType"),
])
def test_type_spelling_is_normalised(spelling, normal):
    assert normalise_type(spelling) == normal


def test_parameter_with_default_value():
    p = parse_parameter("bool keepDim = false")
    assert (p.c_type, p.name) == ("bool", "keepDim")


def test_comments_inside_the_list_are_ignored():
    (decl,) = find_declarations("aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, // input\n"
                                " /* out */ aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)")
    assert [p.name for p in decl.params] == ["self", "out", "workspaceSize", "executor"]


def test_a_call_is_not_a_declaration():
    assert find_declarations("ret = aclnnFooGetWorkspaceSize(self, out, &workspaceSize, &executor);") == []


def test_declaration_lines_are_page_lines():
    (decl,) = find_declarations("x\n\n" + DECL, line=5)
    assert decl.line == 7


def test_pairing_names_the_api_by_the_second_function():
    pairs, leftover = pair_declarations(find_declarations(DECL + "\n" + EXEC))
    assert [(p.api, p.workspace.name, p.execute.name) for p in pairs] == [
        ("aclnnFoo", "aclnnFooGetWorkspaceSize", "aclnnFoo")]
    assert leftover == []


def test_truncated_declaration_reads_what_is_there():
    (decl,) = find_declarations("aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclTensor *out")
    assert [p.name for p in decl.params] == ["self", "out"] and decl.problems


@pytest.mark.parametrize("fence", ["```Cpp", "```cpp", "```c++", "```C", "```", "~~~"])
def test_prototype_in_any_fence(fence):
    close = "~~~" if fence == "~~~" else "```"
    p = page(f"# aclnnFoo\n\n## 函数原型\n\n{fence}\n{DECL}\n{EXEC}\n{close}\n")
    assert [a.name for a in p.apis] == ["aclnnFoo"]


def test_prototype_in_an_indented_fence_in_a_list():
    p = page(f"# aclnnFoo\n\n## 函数原型\n\n- 原型：\n\n  ```cpp\n  {DECL}\n  {EXEC}\n  ```\n")
    assert [x.name for x in p.apis[0].params] == ["self", "out"]


def test_prototype_in_inline_code_bullets():
    p = page(f"# aclnnFoo\n\n## 函数原型\n\n- `{DECL}`\n- `{EXEC}`\n")
    assert [x.name for x in p.apis[0].params] == ["self", "out"]


def test_prototype_without_return_type():
    p = page("# aclnnFoo\n\n## 接口\n\naclnnFooGetWorkspaceSize(\n    const aclTensor *self,\n    aclTensor *out,\n"
             "    uint64_t *workspaceSize,\n    aclOpExecutor **executor)\n\naclnnFoo(void *workspace, "
             "uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)\n")
    assert [x.name for x in p.apis[0].params] == ["self", "out"]


def test_workspace_size_and_executor_are_not_caller_params_and_kinds_come_from_types():
    p = page("# aclnnFoo\n\n## 函数原型\n\n```\naclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, "
             "const aclScalar *alpha, const aclIntArray *dims, const aclTensorList *xs, bool flag, int64_t n, "
             "double eps, const char *mode, aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, "
             "aclOpExecutor **executor)\n" + EXEC + "\n```\n")
    assert [(x.name, x.kind) for x in p.apis[0].params] == [
        ("self", ParamKind.TENSOR), ("alpha", ParamKind.SCALAR), ("dims", ParamKind.INT_ARRAY),
        ("xs", ParamKind.TENSOR_LIST), ("flag", ParamKind.BOOL), ("n", ParamKind.INT), ("eps", ParamKind.FLOAT),
        ("mode", ParamKind.STRING), ("dtype", ParamKind.DTYPE), ("out", ParamKind.TENSOR)]


def test_unknown_c_type_is_diagnosed_not_fatal():
    p = page("# aclnnFoo\n\n## 函数原型\n\n```\naclnnStatus aclnnFooGetWorkspaceSize(const aclWeird *w, "
             "uint64_t *workspaceSize, aclOpExecutor **executor)\n" + EXEC + "\n```\n")
    assert p.apis[0].params[0].kind is None
    assert "unknown-c-type" in {d.code for d in p.diagnostics}


def test_duplicate_parameter_names_are_deduplicated():
    p = page("# aclnnFoo\n\n## 函数原型\n\n```\naclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *x, "
             "aclTensor *x, uint64_t *workspaceSize, aclOpExecutor **executor)\n" + EXEC + "\n```\n")
    assert [x.name for x in p.apis[0].params] == ["x"]
    assert "duplicate-param" in {d.code for d in p.diagnostics}


@pytest.mark.parametrize("size,executor", [("workspace_size", "executor"), ("workspaceSize", "opExecutor")])
def test_workspace_pair_is_known_by_type_whatever_its_names(size, executor):
    """aclnnInplaceSinc writes `uint64_t* workspace_size`, aclnnSqrt `aclOpExecutor** opExecutor`."""
    prototype = PROTO_TEMPLATE.format(size=size, executor=executor)
    result = page(f"# aclnnFoo\n\n## 函数原型\n\n```Cpp\n{prototype}\n```\n\n```Cpp\n{EXEC}\n```\n")
    (api,) = result.apis
    assert [p.name for p in api.params] == ["self", "out"]


PROTO_TEMPLATE = ("aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, aclTensor *out, "
                  "uint64_t *{size}, aclOpExecutor **{executor})")


@pytest.mark.parametrize("source, found", [
    ("ret = aclnnAbsGetWorkspaceSize(self, out, &size, &executor);", 30),
    ("aclnnAbsGetWorkspaceSize (x)", 25),
    ("aclnnAbsGetWorkspaceSize\n  (x)", 27),
    ("myaclnnAbsGetWorkspaceSize(x)", -1),
    ("_aclnnAbsGetWorkspaceSize(x)", -1),
    ("aclnnAbsGetWorkspaceSizeX(x)", -1),
    ("auto f = aclnnAbsGetWorkspaceSize; f(x); aclnnAbsGetWorkspaceSize(y)", 65),
    ("", -1),
])
def test_a_call_is_found_where_its_arguments_open(source, found):
    from gen.parse.extractors.prototypes import find_call

    assert find_call(source, "aclnnAbsGetWorkspaceSize") == found


def test_a_two_phase_api_named_acl_op_pairs_as_an_aclnn_one():
    """aclStft: CANN names a few two-phase APIs acl<Op>; op-plugin calls them as the aclnn ones."""
    text = (DECL.replace("aclnnFoo", "aclStft") + ";\n" + EXEC.replace("aclnnFoo", "aclStft") + ";\n"
            + "aclnnStatus aclDestroyTensor(const aclTensor *tensor);")
    pairs, unpaired = pair_declarations(find_declarations(text))
    assert [p.api for p in pairs] == ["aclStft"] and pairs[0].execute is not None
    assert [d.name for d in unpaired] == ["aclDestroyTensor"]


@pytest.mark.parametrize("api,function,header", [
    ("aclnnLeakyReluBackward", "leaky_relu_backward", "aclnnop/aclnn_leaky_relu_backward.h"),
    ("aclStft", "stft", "aclnnop/aclnn_stft.h"),
    ("aclnnAclGraph", "acl_graph", "aclnnop/aclnn_acl_graph.h"),
])
def test_names_drop_the_acl_or_aclnn_prefix(api, function, header):
    from gen import names
    assert (names.python_function(api), names.header_file(api)) == (function, header)


@pytest.mark.parametrize("name,snake", [
    ("CIoU", "ciou"),                                        # a lowercase letter inside an acronym (aten: npu_ciou)
    ("GridSampler2DBackward", "grid_sampler2d_backward"),    # a dimension count, as CANN's Pool2d
    ("ApplyAdamWV2", "apply_adam_w_v2"),                     # a version after an acronym (CANN: aclnn_apply_adam_w_v2.h)
    ("FFNV2", "ffn_v2"),
    ("InplaceRReluWithNoise", "inplace_rrelu_with_noise"),   # CANN: aclnn_rrelu_with_noise.h
    # and what those rules leave alone
    ("NLLLoss2d", "nll_loss2d"), ("ROIAlignBackward", "roi_align_backward"), ("UpsampleBicubic2dAA", "upsample_bicubic2d_aa"),
    ("SWhere", "s_where"), ("XLogYTensor", "x_log_y_tensor"),  # CANN: aclnn_s_where.h, aclnn_x_log_y_tensor.h
    ("ConvertWeightToINT4Pack", "convert_weight_to_int4_pack"), ("GroupedMatmulWeightNzV2", "grouped_matmul_weight_nz_v2"),
    ("TopKTopPSample", "top_k_top_p_sample"), ("logitsTopKPSelect", "logits_top_kp_select"),  # op-plugin's name
    ("HxW", "hx_w"), ("gradOutput", "grad_output"),
])
def test_an_acronym_stays_one_word(name, snake):
    from gen import names
    assert names.snake_case(name) == snake
