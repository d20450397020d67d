"""Parameters: table rows and bullets matched to the prototype, and the facts read from them."""

import pytest

from gen.ir import Direction, DType, Level, ParamKind, Soc
from tests.parse.parse_helpers import PROTOTYPE, api_page, codes, html_table, page

HEADER8 = ["参数名", "输入/输出", "描述", "使用说明", "数据类型", "数据格式", "维度(shape)", "非连续Tensor"]
SELF_ROW = ["self", "输入", "输入。", "支持空Tensor。", "FLOAT、FLOAT16", "ND", "0-8", "√"]
OUT_ROW = ["out", "输出", "输出。", "-", "FLOAT、FLOAT16", "ND", "0-8", "√"]


def param(p, name):
    return p.apis[0].param(name)


def test_eight_column_table():
    p = api_page(html_table(HEADER8, SELF_ROW, OUT_ROW))
    s = param(p, "self")
    assert (s.dtypes, s.formats, s.rank, s.noncontiguous, s.empty_tensor, s.direction) == (
        (DType.FLOAT, DType.FLOAT16), ("ND",), (0, 8), True, True, Direction.IN)
    assert param(p, "out").direction is Direction.OUT


def test_four_column_table_takes_dtypes_from_the_description():
    p = api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"],
                            ["self", "输入", "Device侧的aclTensor，数据类型支持FLOAT。", "-"],
                            ["out", "输出", "Device侧的aclTensor。", "FLOAT"]))
    assert param(p, "self").dtypes == (DType.FLOAT,) and param(p, "out").dtypes == (DType.FLOAT,)


def test_english_headers():
    p = api_page(html_table(["Name", "Input/Output", "Description", "Usage Notes", "Data Type", "Data Format",
                             "Dimension (Shape)", "Non-contiguous Tensor"],
                            ["self", "Input", "x", "Empty tensors are not supported.", "FLOAT16", "ND", "1-8", "×"],
                            ["out", "Output", "y", "-", "FLOAT16", "ND", "1-8", "√"]))
    s = param(p, "self")
    assert (s.dtypes, s.rank, s.noncontiguous, s.empty_tensor) == ((DType.FLOAT16,), (1, 8), False, False)


def test_unknown_column_is_one_info_diagnostic():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型", "奇怪列", "另一列"],
                            ["self", "输入", "FLOAT", "a", "b"], ["out", "输出", "FLOAT", "a", "b"]))
    unknown = [d for d in p.diagnostics if d.code == "unknown-column"]
    assert len(unknown) == 1 and unknown[0].level is Level.INFO and "奇怪列" in unknown[0].message


def test_name_cell_with_a_type_suffix():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self（aclTensor*）", "输入", "FLOAT"],
                            ["out（aclTensor*）", "输出", "FLOAT"]))
    assert param(p, "self").dtypes == (DType.FLOAT,)


def test_older_bullet_format():
    p = api_page("- **参数说明：**\n\n  - self(aclTensor*, 计算输入)：Device侧的aclTensor，数据类型支持FLOAT、INT32，"
                 "支持非连续的Tensor，数据格式支持ND，维度不大于8维。\n"
                 "  - out(aclTensor*, 计算输出)：数据类型支持FLOAT。\n")
    s = param(p, "self")
    assert (s.dtypes, s.noncontiguous, s.formats, s.rank) == ((DType.FLOAT, DType.INT32), True, ("ND",), (0, 8))
    assert param(p, "out").direction is Direction.OUT


def test_pipe_table_with_bullet_style_cells():
    p = api_page("| 参数 | 说明 |\n|---|---|\n| self | **(aclTensor\\*, 计算输入)**：数据类型支持FLOAT16。 |\n"
                 "| out | **(aclTensor\\*, 计算输出)**：数据类型支持FLOAT16。 |\n")
    assert [(x.direction, x.dtypes) for x in p.apis[0].params] == [
        (Direction.IN, (DType.FLOAT16,)), (Direction.OUT, (DType.FLOAT16,))]


def test_ref_name_makes_an_input_row_inout():
    proto = PROTO_REF
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["selfRef", "输入", "FLOAT"]), prototype=proto)
    assert param(p, "selfRef").direction is Direction.INOUT


def test_direction_when_the_page_states_none():
    p = api_page("- **参数说明：**\n\n  - selfRef：数据类型支持FLOAT。\n", prototype=PROTO_REF)
    assert param(p, "selfRef").direction is Direction.INOUT


def test_optional_from_name_and_from_words():
    p = api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"], ["self", "输入", "可选输入，可传入空指针。", "FLOAT"],
                            ["out", "输出", "-", "FLOAT"]))
    assert param(p, "self").optional is True and param(p, "out").optional is False


def test_optional_when_the_usage_says_it_may_be_nullptr_but_not_when_it_may_not():
    # aclnnBinaryCrossEntropy's weight: "weight可以是nullptr，等价于所有权重值都是1" (torch_npu passes NULL).
    def self_optional(usage: str) -> bool:
        p = api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"], ["self", "输入", usage, "FLOAT"],
                                ["out", "输出", "-", "FLOAT"]))
        return param(p, "self").optional

    assert self_optional("self可以是nullptr，等价于全1。") is True
    assert self_optional("self不可以是nullptr。") is False
    # aclnnSearchSorted's sorter: "传入sorter时，…按sorter指定顺序取值" (torch.searchsorted passes NULL).
    assert self_optional("传入self时，公式中的x按self指定顺序取值。") is True


def test_unknown_dtype_word_is_a_warning():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、QINT8"], ["out", "输出", "FLOAT"]))
    assert param(p, "self").dtypes == (DType.FLOAT,)
    assert "unknown-dtype" in codes(p)


def test_note_after_the_table_narrows_the_lists_it_narrows():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、FLOAT16、BFLOAT16"],
                            ["out", "输出", "FLOAT、FLOAT16、BFLOAT16"])
                 + "\n- <term>Atlas 推理系列产品</term>、<term>Atlas 训练系列产品</term>：数据类型支持FLOAT、FLOAT16。\n")
    s = param(p, "self")
    assert s.dtypes == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
    assert s.dtypes_for(Soc.ASCEND310P) == (DType.FLOAT, DType.FLOAT16)
    assert s.dtypes_for(Soc.ASCEND910) == (DType.FLOAT, DType.FLOAT16)
    assert s.dtypes_for(Soc.ASCEND910B) == s.dtypes


@pytest.mark.parametrize("sentence", [
    "COMPLEX64、BFLOAT16仅支持该产品。",  # aclnnTril's and aclnnTriu's Ascend950 note
    "COMPLEX64、BFLOAT16等数据类型仅在该型号支持。",  # aclnnInplaceScatterUpdate's
    "COMPLEX64 and BFLOAT16 are supported only on this product.",
])
def test_a_list_only_one_product_supports_adds_to_its_list(sentence):
    # Read as the chip's whole list, the note refused FLOAT on Ascend950 for aclnnTril (issue 24).
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、COMPLEX64、BFLOAT16"],
                            ["index", "输入", "INT32、INT64"], ["out", "输出", "FLOAT、COMPLEX64、BFLOAT16"])
                 + f"\n- <term>Ascend 950PR/Ascend 950DT</term>：{sentence}\n", prototype=PROTOTYPE.replace(
                     "aclTensor       *out,", "const aclTensor *index,\n  aclTensor       *out,"))
    for name in ("self", "out"):
        assert param(p, name).dtypes_for(Soc.ASCEND950) == (DType.FLOAT, DType.COMPLEX64, DType.BFLOAT16)
        # The other half: every other chip refuses them, with a list of its own or the general one.
        for soc in (Soc.ASCEND910B, Soc.ASCEND910_93, Soc.ASCEND910, Soc.ASCEND310P):
            assert param(p, name).dtypes_for(soc) == (DType.FLOAT,), soc
    # A parameter whose table lists none of the dtypes is not the note's.
    assert param(p, "index").dtypes_for(Soc.ASCEND950) == (DType.INT32, DType.INT64)


def test_a_list_only_one_product_supports_keeps_the_other_notes_of_other_chips():
    # aclnnTril: "Ascend 950PR/Ascend 950DT：COMPLEX32、COMPLEX64仅支持该产品" and "Atlas 推理系列产品、Atlas 训练系列产品：
    # 不支持BFLOAT16数据类型": each chip loses what each note takes from it.
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、BFLOAT16、COMPLEX64"],
                            ["out", "输出", "FLOAT、BFLOAT16、COMPLEX64"])
                 + "\n- <term>Ascend 950PR/Ascend 950DT</term>：COMPLEX64仅支持该产品。\n"
                 + "- <term>Atlas 推理系列产品</term>、<term>Atlas 训练系列产品</term>：不支持BFLOAT16数据类型。\n")
    s = param(p, "self")
    assert s.dtypes_for(Soc.ASCEND950) == (DType.FLOAT, DType.BFLOAT16, DType.COMPLEX64)
    assert s.dtypes_for(Soc.ASCEND910B) == (DType.FLOAT, DType.BFLOAT16)
    assert s.dtypes_for(Soc.ASCEND910) == s.dtypes_for(Soc.ASCEND310P) == (DType.FLOAT,)


def test_note_naming_a_param_applies_to_it_only():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、BFLOAT16"],
                            ["out", "输出", "FLOAT、BFLOAT16"])
                 + "\n- <term>Atlas 训练系列产品</term>：out不支持BFLOAT16。\n")
    assert param(p, "out").dtypes_for(Soc.ASCEND910) == (DType.FLOAT,)
    assert param(p, "self").dtypes_for(Soc.ASCEND910) == (DType.FLOAT, DType.BFLOAT16)


def test_a_note_that_gives_a_chip_its_list_is_that_chips_line_and_the_row_keeps_the_others():
    table = html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT、BFLOAT16"], ["out", "输出", "FLOAT、BFLOAT16"])
    text = f"# aclnnFoo\n\n{PROTOTYPE}\n## aclnnFooGetWorkspaceSize\n\n{table}\n- <term>Atlas 训练系列产品</term>：out不支持BFLOAT16。\n"
    p = page(text)
    out = param(p, "out")
    note_line = next(e.line for e in out.dtype_note_lines if e.soc is Soc.ASCEND910)
    assert note_line > out.line and text.splitlines()[note_line - 1].endswith("out不支持BFLOAT16。")
    assert [e.soc for e in out.dtype_note_lines] == [e.soc for e in out.dtypes_by_product]
    assert param(p, "self").dtype_note_lines == ()  # the note names out alone


def test_notes_under_a_bullet_param_are_its_own():
    p = api_page("- **参数说明：**\n\n  - self(aclTensor*, 计算输入)：Device侧的aclTensor。\n\n"
                 "    - <term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>：数据类型支持FLOAT、BFLOAT16。\n"
                 "    - <term>Atlas 训练系列产品</term>：数据类型支持FLOAT。\n\n"
                 "  - out(aclTensor*, 计算输出)：数据类型支持FLOAT。\n")
    s = param(p, "self")
    assert s.dtypes == (DType.FLOAT, DType.BFLOAT16)
    assert s.dtypes_for(Soc.ASCEND910) == (DType.FLOAT,)
    assert param(p, "out").dtypes_by_product == ()


def test_dtypes_by_reference_to_another_row():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型", "维度(shape)"], ["self", "输入", "FLOAT、INT8", "1-8"],
                            ["out", "输出", "与“self”参数一致。", "与self一致"]))
    o = param(p, "out")
    assert (o.dtypes, o.rank) == ((DType.FLOAT, DType.INT8), (1, 8))
    assert "dtypes-by-reference" in codes(p)


def test_array_element_type_comes_from_the_c_type_when_the_page_is_silent():
    proto = PROTO_ARRAY
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"], ["dims", "输入", "-"],
                            ["out", "输出", "FLOAT"]), prototype=proto)
    assert param(p, "dims").dtypes == (DType.INT64,)


def test_undocumented_param_is_a_warning_naming_api_and_param():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"]))
    (d,) = [d for d in p.diagnostics if d.code == "param-undocumented"]
    assert d.level is Level.WARNING and d.message.startswith("aclnnFoo.out:")


def test_attributes_need_no_dtypes():
    proto = PROTO_ARRAY.replace("const aclIntArray *dims", "bool keepDim")
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"], ["keepDim", "输入", "-"],
                            ["out", "输出", "FLOAT"]), prototype=proto)
    assert param(p, "keepDim").kind is ParamKind.BOOL
    assert "param-no-dtypes" not in codes(p)


def test_a_renamed_param_is_paired_with_the_one_spare_row():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["x", "输入", "FLOAT"], ["out", "输出", "FLOAT"]))
    assert param(p, "self").dtypes == (DType.FLOAT,)
    assert "param-name-mismatch" in codes(p)


PROTO_REF = """\
## 函数原型

```cpp
aclnnStatus aclnnFooGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor)
aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
```
"""

PROTO_ARRAY = """\
## 函数原型

```cpp
aclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor)
aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
```
"""


def test_page_without_a_table_row_for_anything_still_gives_the_api():
    p = page("# aclnnFoo\n\n" + PROTO_ARRAY)
    assert [x.name for x in p.apis[0].params] == ["self", "dims", "out"]


def test_an_in_place_api_whose_page_calls_every_tensor_an_input_writes_its_first():
    # aclnnInplacePowTensorScalar: `const aclTensor* self` (输入), as CANN's header declares it.
    prototype = ("```cpp\naclnnStatus aclnnInplaceFooGetWorkspaceSize(const aclTensor* self, const aclScalar* exponent,"
                 " uint64_t* workspaceSize, aclOpExecutor** executor);\n"
                 "aclnnStatus aclnnInplaceFoo(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,"
                 " aclrtStream stream);\n```\n")
    rows = (["self", "输入", "输入。", "-", "FLOAT", "ND", "0-8", "√"],
            ["exponent", "输入", "指数。", "-", "FLOAT", "-", "-", "-"])
    p = page(f"# aclnnInplaceFoo\n\n{prototype}\n## aclnnInplaceFooGetWorkspaceSize\n\n{html_table(HEADER8, *rows)}\n")
    api = p.apis[0]
    assert api.param("self").direction is Direction.INOUT and api.param("exponent").direction is Direction.IN
    assert "in-place-target" in codes(p)


def test_tensors_without_a_list_take_the_one_list_the_constraints_state_for_the_operator():
    # aclnnMatmulAdd: rows with no dtype, and "Supported data types are ..." naming no parameter.
    rows = html_table(["参数名", "输入/输出", "描述"], ["self", "输入", "输入张量。"], ["out", "输出", "输出张量。"])
    p = api_page(rows + "\n## 约束说明\n\n- self和out的shape一致。\n- 数据类型支持FLOAT16、FLOAT。\n")
    assert param(p, "self").dtypes == param(p, "out").dtypes == (DType.FLOAT16, DType.FLOAT)
    assert "dtypes-from-constraints" in codes(p) and "param-no-dtypes" not in codes(p)


def test_two_operator_wide_lists_in_the_constraints_give_no_dtypes():
    rows = html_table(["参数名", "输入/输出", "描述"], ["self", "输入", "输入张量。"], ["out", "输出", "输出张量。"])
    p = api_page(rows + "\n## 约束说明\n\n- 数据类型支持FLOAT16。\n- 数据类型支持INT8、INT32。\n")
    assert param(p, "self").dtypes == () and "param-no-dtypes" in codes(p)


def test_a_section_titled_by_the_dtypes_holds_combination_rows():
    # aclnnDivV3: "## 支持的数据类型" with a table "self | out", beside its constraints section.
    rows = html_table(["参数名", "输入/输出", "描述"], ["self", "输入", "输入张量。"], ["out", "输出", "输出张量。"])
    p = api_page(rows + "\n## 支持的数据类型\n\n| self | out |\n| --- | --- |\n| FLOAT | FLOAT |\n| INT32 | INT32 |\n"
                 "\n## 约束说明\n\n- self和out的shape一致。\n")
    assert param(p, "self").dtypes == param(p, "out").dtypes == (DType.FLOAT, DType.INT32)
    assert len(p.apis[0].dtype_combinations) == 2


@pytest.mark.parametrize("usage", ["当前不支持，必须为nullptr。", "用于保存正向计算的中间结果，暂无用。",
                                   "Currently, only a null pointer can be passed.", "Reserved. Currently unused."])
def test_a_row_saying_the_tensor_must_be_null_or_is_unused_needs_no_dtypes(usage):
    p = api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"], ["self", "输入", usage, "-"],
                            ["out", "输出", "输出张量。", "FLOAT"]))
    assert param(p, "self").dtypes == () and "param-no-dtypes" not in codes(p)


def test_a_row_that_states_nothing_of_its_dtype_is_still_a_gap():
    p = api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"], ["self", "输入", "shape与out一致。", "-"],
                            ["out", "输出", "输出张量。", "FLOAT"]))
    assert "param-no-dtypes" in codes(p)


def test_an_english_row_naming_one_common_dtype_as_an_example_records_it():
    # aclnnSoftshrinkBackward_en's lambda: "Common data types are supported, such as FLOAT."
    p = api_page(html_table(["Name", "Input/Output", "Description", "Data Type"],
                            ["self", "Input", "Common data types are supported, such as FLOAT.", "-"],
                            ["out", "Output", "y", "FLOAT"]))
    assert param(p, "self").dtypes == (DType.FLOAT,)


def test_renamed_params_are_paired_with_the_spare_rows_named_like_them():
    # aclnnNsaSelectedAttentionInfer: layoutOptional/actualKvSeqLenOptional in the prototype, rows
    # inputLayoutOptional/actualSelKvSeqLenOptional in the table.
    proto = PROTO_ARRAY.replace("const aclIntArray *dims, aclTensor *out",
                                "const aclIntArray *actualKvSeqLen, char *layoutOptional, aclTensor *out")
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"],
                            ["inputLayoutOptional", "输入", "String"], ["actualSelKvSeqLen", "输入", "INT64"],
                            ["out", "输出", "FLOAT"]), prototype=proto)
    assert "param-undocumented" not in codes(p)
    assert sum(d.code == "param-name-mismatch" for d in p.diagnostics) == 2


def test_two_spare_rows_alike_one_param_pair_nothing():
    proto = PROTO_ARRAY.replace("const aclIntArray *dims, aclTensor *out",
                                "const aclIntArray *seqLen, const aclIntArray *other, aclTensor *out")
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"],
                            ["seqLenQ", "输入", "INT64"], ["seqLenKv", "输入", "INT64"], ["out", "输出", "FLOAT"]),
                 prototype=proto)
    assert "param-name-mismatch" not in codes(p)


def test_a_tensor_whose_row_is_silent_takes_the_one_dtype_the_error_table_requires():
    # aclnnUnique's inverseOut: no dtype in its row; "inverseOut的数据类型不为INT64" is an error.
    rows = html_table(["参数名", "输入/输出", "描述", "数据类型"], ["self", "输入", "输入。", "FLOAT"],
                      ["out", "输出", "下标。", ""])
    errors = html_table(["返回码", "错误码", "描述"], ["ACLNN_ERR_PARAM_INVALID", "161002", "out的数据类型不为INT64。"])
    p = api_page(rows + "\n- **返回值：**\n\n" + errors)
    assert param(p, "out").dtypes == (DType.INT64,)
    assert "dtypes-from-errors" in codes(p) and "param-no-dtypes" not in codes(p)


def test_a_param_the_table_omits_is_documented_by_a_constraints_line_about_it_alone():
    # aclnnFusedMatmulGelu: no row for approximate; "`approximate` 当前仅支持取值为1" under 约束说明.
    proto = PROTO_ARRAY.replace("const aclIntArray *dims", "int64_t approximate")
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"], ["out", "输出", "FLOAT"])
                 + "\n## 约束说明\n\n- `out` shape 必须等于 `self` shape。\n- `approximate` 当前仅支持取值为1。\n",
                 prototype=proto)
    assert param(p, "approximate").description == "当前仅支持取值为1。"
    assert "param-undocumented" not in codes(p) and "param-documented-in-constraints" in codes(p)


def test_a_constraints_line_relating_the_param_to_another_does_not_document_it():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT"])
                 + "\n## 约束说明\n\n- `out` shape 必须等于 `self` shape。\n")
    assert "param-undocumented" in codes(p)


def test_an_out_tensor_the_table_calls_input_but_describes_as_the_output_is_the_output():
    # aclnnFastGeluV2: `const aclTensor *out`, "| out | 输入 | 公式中的输出 `y`... |".
    proto = ("## 函数原型\n\n```cpp\naclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *x, const aclTensor *out, "
             "uint64_t *workspaceSize, aclOpExecutor **executor)\n"
             "aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)\n```\n")
    table = html_table(["参数名", "输入/输出", "描述", "数据类型"], ["x", "输入", "公式中的输入x。", "FLOAT"],
                       ["out", "输入", "公式中的输出 `y`。", "FLOAT"])
    assert param(api_page(table, prototype=proto), "out").direction is Direction.OUT
    # Without that description the table's word stands.
    table = html_table(["参数名", "输入/输出", "描述", "数据类型"], ["x", "输入", "公式中的输入x。", "FLOAT"],
                       ["out", "输入", "一个张量。", "FLOAT"])
    assert param(api_page(table, prototype=proto), "out").direction is Direction.IN


def _writable_result_page(z_direction: str, z_description: str, y_description: str = "前向的输出。"):
    proto = ("## 函数原型\n\n```cpp\naclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *y, aclTensor *z, "
             "uint64_t *workspaceSize, aclOpExecutor **executor)\n"
             "aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)\n```\n")
    return api_page(html_table(["参数名", "输入/输出", "描述", "数据类型"], ["y", "输入", y_description, "FLOAT"],
                               ["z", z_direction, z_description, "FLOAT"]), prototype=proto)


@pytest.mark.parametrize("z_direction", ["输入", "-"])
def test_a_writable_tensor_described_as_the_output_is_the_output_whatever_its_name(z_direction):
    # aclnnExpSegsumBackward: `aclTensor *gradInput`, 输入, "表示反向计算的输出"; aclnnSqrtBackward's
    # table has no direction for `aclTensor *z`, "反向输出梯度".
    p = _writable_result_page(z_direction, "反向输出梯度。")
    assert (param(p, "y").direction, param(p, "z").direction) == (Direction.IN, Direction.OUT)
    # The forward pass's output handed to a backward stays an input, writable or not.
    assert param(_writable_result_page(z_direction, "前向的输出。"), "z").direction is Direction.IN
    assert param(_writable_result_page(z_direction, "一个张量。"), "z").direction is Direction.IN


def test_a_const_tensor_whose_cell_says_input_and_output_but_described_as_the_input_is_an_input():
    # aclnnConfusionTranspose: `const aclTensor *x`, 输入/输出 (the column's header), "输入Tensor".
    proto = ("## 函数原型\n\n```cpp\naclnnStatus aclnnFooGetWorkspaceSize(const aclTensor *x, aclTensor *out, "
             "uint64_t *workspaceSize, aclOpExecutor **executor)\n"
             "aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)\n```\n")

    def x_direction(description):
        table = html_table(["参数名", "输入/输出", "描述", "数据类型"], ["x", "输入/输出", description, "FLOAT"],
                           ["out", "输出", "结果。", "FLOAT"])
        return param(api_page(table, prototype=proto), "x").direction

    assert x_direction("输入Tensor，对应公式中的x。") is Direction.IN
    # A description that says it is also written keeps the table's word (aclnnAdvanceStep's 入参/出参).
    assert x_direction("输入和输出张量。") is Direction.INOUT
    assert x_direction("待计算的入参/出参，公式中的输出x。") is Direction.INOUT


# Rows whose cells are one off the header around the 数据类型 column.
_LIST = "DOUBLE、FLOAT16、BOOL"


def test_row_repeating_a_cell_before_its_dtypes_is_realigned():
    # aclnnHardtanh's selfRef: two 使用说明 cells, the list under 数据格式, "ND" under 维度.
    row = ["self", "输入", "输入。", "需满足转换规则", "（参见互转换关系）。", _LIST, "ND", "1-8", "√"]
    p = api_page(html_table(HEADER8, row, OUT_ROW))
    s = param(p, "self")
    assert (s.dtypes, s.formats, s.rank) == ((DType.DOUBLE, DType.FLOAT16, DType.BOOL), ("ND",), (1, 8))
    assert "互转换关系" in s.usage
    assert any(d.code == "row-cells-shifted" and d.level is Level.WARNING and d.line for d in p.diagnostics)


def test_row_skipping_a_cell_before_its_dtypes_is_realigned():
    # aclnnNeTensor's selfRef: no 使用说明 cell, the list under 使用说明 and "ND" under 数据类型.
    row = ["self", "输入", "输入。", _LIST, "ND", "0-8", "√", "√"]
    s = param(api_page(html_table(HEADER8, row, OUT_ROW)), "self")
    assert (s.dtypes, s.formats, s.rank) == ((DType.DOUBLE, DType.FLOAT16, DType.BOOL), ("ND",), (0, 8))


@pytest.mark.parametrize("neighbour", ["FLOAT16与self一致", "ND", "-", ""])
def test_row_without_a_list_in_a_neighbour_cell_is_not_realigned(neighbour):
    # The dtype cell states no dtype and no cell next to it is a list alone: the page's gap stays diagnosed.
    row = ["self", "输入", "输入。", neighbour, "shape与正向的输出一致。", "ND", "0-8", "√"]
    p = api_page(html_table(HEADER8, row, OUT_ROW))
    assert "row-cells-shifted" not in codes(p) and "param-no-dtypes" in codes(p)


def test_dtypes_a_named_dtype_converts_to():
    # aclnnLtScalar's out (experimental page): "数据类型要求为BOOL可转换的数据类型".
    row = ["out", "输出", "输出。", "数据类型要求为BOOL可转换的数据类型。", "-", "ND", "0-8", "√"]
    out = param(api_page(html_table(HEADER8, SELF_ROW, row)), "out")
    assert out.dtypes[0] is DType.BOOL
    assert {DType.INT8, DType.FLOAT, DType.COMPLEX64} <= set(out.dtypes)


@pytest.mark.parametrize("cut", range(1, 9))
def test_shifted_row_cut_short_gives_diagnostics_with_lines(cut):
    # A damaged shifted row (cells lost from its end): a page with line-numbered diagnostics, no exception.
    row = ["self", "输入", "输入。", "需满足转换规则", "（参见互转换关系）。", _LIST, "ND", "1-8", "√"][:cut]
    p = page(f"# aclnnFoo\n\n{PROTOTYPE}\n## aclnnFooGetWorkspaceSize\n\n{html_table(HEADER8, row, OUT_ROW)}\n",
             source="ops/foo/docs/aclnnFoo.md")
    assert "parser-failure" not in codes(p) and p.source == "ops/foo/docs/aclnnFoo.md"
    assert all(d.line > 0 for d in p.diagnostics if d.code in ("row-cells-shifted", "param-no-dtypes"))
    assert ("param-no-dtypes" in codes(p)) == (cut < 6)


def _cases_table(*rows: list[str]) -> str:
    # aclnnMlaProlog's shape: one row per parameter, a dtype and a shape column per case, "dtype" marked
    # in the last header row; the intro names the cases ("在不同...场景下"), which are the columns.
    return ("## 约束说明\n\n- 在不同量化场景下，参数的dtype和shape组合需要满足如下条件：\n\n" +
            html_table(["参数名", "非量化场景", "非量化场景", "量化场景", "量化场景"],
                       ["参数名", "dtype", "shape", "dtype", "shape"], *rows))


def test_a_table_of_cases_by_parameter_rows_gives_one_combination_per_case():
    table = html_table(HEADER8, SELF_ROW, ["out", "输出", "输出。", "-", "-", "ND", "0-8", "√"])
    p = api_page(table + "\n" + _cases_table(["self", "FLOAT", "(N)", "FLOAT16", "(N)"],
                                             ["out", "FLOAT", "(N)", "FLOAT16", "(N)"]))
    combinations = p.apis[0].dtype_combinations
    assert [(c.cell("self").dtypes, c.cell("out").dtypes) for c in combinations] == [
        ((DType.FLOAT,), (DType.FLOAT,)), ((DType.FLOAT16,), (DType.FLOAT16,))]
    assert param(p, "out").dtypes == (DType.FLOAT, DType.FLOAT16)  # its row lists none: the cases give them
    assert "param-no-dtypes" not in codes(p)


def test_a_case_that_passes_no_tensor_and_an_unread_case_cell():
    from gen.parse.extractors.combinations import read_cell
    assert read_cell("x", "无需赋值（预留接口）", ()).absent
    p = api_page(html_table(HEADER8, SELF_ROW, OUT_ROW) + "\n" +
                 _cases_table(["self", "FLOAT", "(N)", "FLOAT（仅A2）", "(N)"], ["out", "FLOAT", "(N)", "FLOAT16", "(N)"]))
    unread = [d for d in p.diagnostics if d.code == "combination-cell-unread"]
    assert len(unread) == 1 and unread[0].line > 0 and "self" in unread[0].message


@pytest.mark.parametrize("cut", range(0, 5))
def test_a_table_of_cases_cut_short_gives_a_page(cut):
    # Parameter rows that lost cells from their end: no exception, a combination only for the cases they reach.
    rows = [r[:cut + 1] for r in (["self", "FLOAT", "(N)", "FLOAT16", "(N)"], ["out", "FLOAT", "(N)", "FLOAT16", "(N)"])]
    p = api_page(html_table(HEADER8, SELF_ROW, OUT_ROW) + "\n" + _cases_table(*rows))
    assert "parser-failure" not in codes(p)
    assert len(p.apis[0].dtype_combinations) == (cut >= 1) + (cut >= 3)


def test_a_parameter_only_the_error_table_names_is_diagnosed_as_such():
    # aclnnFlashAttentionScore's softmaxOutOut: no row, only "...的数据类型不在支持的范围内" names it.
    errors = html_table(["返回值", "错误码", "描述"], ["ACLNN_ERR_PARAM_INVALID", "161002", "self、out的数据类型不在支持的范围内。"])
    p = api_page(html_table(HEADER8, SELF_ROW) + "\n- **返回值：**\n\n" + errors)
    undocumented = [d for d in p.diagnostics if d.code == "param-undocumented"]
    assert len(undocumented) == 1 and undocumented[0].message.startswith("aclnnFoo.out:")
    assert "only the error table names it (line" in undocumented[0].message


def test_lists_of_one_chip_under_different_scenarios_are_that_chips_union():
    # aclnnTransposeQuantBatchMatMul's Ascend950 K-C, MX and T-C bullets: each mode's list had replaced
    # the one before, so the chip took T-C's HIFLOAT8 alone and refused the K-C and MX operands.
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT16、INT8、HIFLOAT8、FLOAT"],
                            ["out", "输出", "FLOAT16"])
                 + "\n- <term>Ascend 950PR/Ascend 950DT</term>：\n"
                   "    - K-C量化模式，self支持INT8。\n"
                   "    - MX量化模式，self支持FLOAT16、INT8。\n"
                   "    - T-C量化模式，self仅支持HIFLOAT8。\n")
    assert param(p, "self").dtypes_for(Soc.ASCEND950) == (DType.FLOAT16, DType.INT8, DType.HIFLOAT8)
    assert param(p, "self").dtypes_for(Soc.ASCEND910B) == (DType.FLOAT16, DType.INT8, DType.HIFLOAT8, DType.FLOAT)


def test_successive_lists_of_one_chip_without_a_scenario_still_narrow():
    p = api_page(html_table(["参数名", "输入/输出", "数据类型"], ["self", "输入", "FLOAT16、INT8、FLOAT"],
                            ["out", "输出", "FLOAT16"])
                 + "\n- <term>Ascend 950PR/Ascend 950DT</term>：\n"
                   "    - self支持FLOAT16、INT8。\n"
                   "    - self仅支持INT8。\n")
    assert param(p, "self").dtypes_for(Soc.ASCEND950) == (DType.INT8,)


def test_a_constraints_bullet_per_chip_narrows_its_chip_and_one_that_contradicts_the_table_is_diagnosed():
    table = html_table(["参数名", "输入/输出", "数据类型"], ["self（aclTensor*）", "输入", "FLOAT、FLOAT16、BFLOAT16"],
                       ["out（aclTensor*）", "输出", "FLOAT、FLOAT16、BFLOAT16"])
    narrowing = page(f"# aclnnFoo\n\n{PROTOTYPE}\n## aclnnFooGetWorkspaceSize\n\n{table}\n## 约束说明\n\n"
                     "- <term>Atlas 推理系列产品</term>：self、out支持FLOAT、FLOAT16。\n")
    self_ = narrowing.apis[0].param("self")
    assert DType.BFLOAT16 not in self_.dtypes_for(Soc.ASCEND310P) and DType.BFLOAT16 in self_.dtypes_for(Soc.ASCEND910B)
    widening = page(f"# aclnnFoo\n\n{PROTOTYPE}\n## aclnnFooGetWorkspaceSize\n\n{table}\n## 约束说明\n\n"
                    "- <term>Atlas 推理系列产品</term>：self、out支持FLOAT、INT32。\n")
    assert "constraint-contradicts-table" in codes(widening)
    assert DType.INT32 not in widening.apis[0].param("self").dtypes_for(Soc.ASCEND310P)
    assert DType.BFLOAT16 in widening.apis[0].param("self").dtypes_for(Soc.ASCEND310P)  # the table's list kept
