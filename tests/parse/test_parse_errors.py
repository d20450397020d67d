"""Error tables and error text blocks: one case per condition, classified, naming its params."""

import pytest

from gen.ir import ErrorCategory as C
from gen.parse.extractors.conditions import classify
from gen.parse.extractors.prose import near_names
from tests.parse.parse_helpers import api_page, html_table

ERR_HEADER = ["返回码", "错误码", "描述"]


def errors(section):
    return [(e.code, e.name, e.condition, e.category, e.params) for e in api_page(section).apis[0].errors]


def test_html_error_table_with_rowspan_groups():
    table = ("<table><thead><tr><th>返回码</th><th>错误码</th><th>描述</th></tr></thead><tbody>"
             "<tr><td>ACLNN_ERR_PARAM_NULLPTR</td><td>161001</td><td>传入的self或out是空指针。</td></tr>"
             "<tr><td rowspan='3'>ACLNN_ERR_PARAM_INVALID</td><td rowspan='3'>161002</td>"
             "<td>self的数据类型不在支持的范围之内。</td></tr>"
             "<tr><td>self和out的shape不一致。</td></tr></tbody></table>")
    assert errors(table) == [
        (161001, "ACLNN_ERR_PARAM_NULLPTR", "传入的self或out是空指针。", C.NULL_POINTER, ("self", "out")),
        (161002, "ACLNN_ERR_PARAM_INVALID", "self的数据类型不在支持的范围之内。", C.UNSUPPORTED_DTYPE, ("self",)),
        (161002, "ACLNN_ERR_PARAM_INVALID", "self和out的shape不一致。", C.SHAPE_MISMATCH, ("self", "out"))]


def test_english_error_table():
    table = html_table(["Return", "Error Code", "Description"],
                       ["ACLNN_ERR_PARAM_NULLPTR", "161001", "The self or out is a null pointer."])
    assert [e[0] for e in errors(table)] == [161001]


def test_pipe_error_table():
    table = "| 返回值 | 错误码 | 描述 |\n|---|---|---|\n| `ACLNN_ERR_PARAM_INVALID` | `161002` | 维度数超过 8 |\n"
    assert errors(table)[0][:2] == (161002, "ACLNN_ERR_PARAM_INVALID")


def test_fenced_text_block_with_numbered_sub_items():
    block = ("- **返回值：**\n\n  ```text\n  第一段接口完成入参校验，出现以下场景时报错：\n"
             "  返回161001 (ACLNN_ERR_PARAM_NULLPTR): 1.传入的self或out是空指针。\n"
             "  返回161002 (ACLNN_ERR_PARAM_INVALID): 1. self的数据类型不在支持的范围之内。\n"
             "                                       2. self和out的shape不一致。\n  ```\n")
    assert [(e[0], e[2]) for e in errors(block)] == [
        (161001, "传入的self或out是空指针。"), (161002, "self的数据类型不在支持的范围之内。"),
        (161002, "self和out的shape不一致。")]


def test_markdown_list_of_conditions():
    block = ("**第一段接口完成入参校验，出现如下场景时报错**：\n\n* **161001 (ACLNN_ERR_PARAM_NULLPTR)**：\n"
             "  1. 传入的 `self` 或 `out` 是空指针。\n* **161002 (ACLNN_ERR_PARAM_INVALID)**：\n"
             "  1. `self` 和 `out` 的数据类型不在支持的范围之内。\n  2. `self`、`out` 的维度超过8。\n")
    assert [(e[0], e[3]) for e in errors(block)] == [
        (161001, C.NULL_POINTER), (161002, C.UNSUPPORTED_DTYPE), (161002, C.RANK)]


def test_english_text_block():
    block = ("```\n161001 (ACLNN_ERR_PARAM_NULLPTR): 1. The self or out is a null pointer.\n"
             "161002 (ACLNN_ERR_PARAM_INVALID): 1. The data type of self is not supported.\n"
             "                                  2. The shapes of self and out are different.\n```\n")
    assert [(e[0], e[3]) for e in errors(block)] == [
        (161001, C.NULL_POINTER), (161002, C.UNSUPPORTED_DTYPE), (161002, C.SHAPE_MISMATCH)]


def test_row_without_its_leading_cells_inherits_them():
    table = ("<table><tr><th>返回码</th><th>错误码</th><th>描述</th></tr>"
             "<tr><td>ACLNN_ERR_PARAM_INVALID</td><td>161002</td><td>a。</td></tr>"
             "<tr><td>b。</td></tr></table>")
    assert [(e[0], e[2]) for e in errors(table)] == [(161002, "a。"), (161002, "b。")]


def test_a_groups_spanning_cells_alone_are_its_leading_columns():
    # aclnnAddRmsNormQuant's English page (and 6 of op_docs): the group's name and code in a row of
    # their own, its condition two rows below; not a row that lost its leading cells ("161001: 161002").
    table = ("<table><tr><th>返回码</th><th>错误码</th><th>描述</th></tr>"
             "<tr><td>ACLNN_ERR_PARAM_NULLPTR</td><td>161001</td><td>a。</td></tr>"
             "<tr><td rowspan=\"3\">ACLNN_ERR_PARAM_INVALID</td><td rowspan=\"3\">161002</td></tr>"
             "<tr></tr><tr><td>b。</td></tr></table>")
    assert [(e[0], e[2]) for e in errors(table)] == [(161001, "a。"), (161002, "b。")]


@pytest.mark.parametrize("condition,category", [
    ("传入的gradOutput、self、negativeSlope或out是空指针。", C.NULL_POINTER),
    ("gradOutput、self或out的shape超过8维。", C.RANK),
    ("gradOutput、self和out的shape不相同。", C.SHAPE_MISMATCH),
    ("gradOutput、result、gradInput的维度关系不满足可broadcast原则。", C.BROADCAST),
    ("self和other推导出的数据类型无法转换为指定输出out的类型。", C.NOT_CASTABLE),
    ("gradOutput、result、gradInput的数据类型不满足数据类型推导规则。", C.NOT_CASTABLE),  # no common dtype
    ("self和other无法做数据类型推导。", C.NOT_CASTABLE),
    ("self是空Tensor。", C.EMPTY_TENSOR),
    ("self的数据格式不在支持的范围之内。", C.FORMAT),
    ("dim的取值超出范围。", C.VALUE),
    ("selfIsResult为true时，negativeSlope是负数。", C.VALUE),
    ("当前产品不支持该接口。", C.UNSUPPORTED_PRODUCT),
    # A pool's output sized by its own formula (the MaxPool pages' rows), not a mismatch with out.
    ("通过公式推导出的out的shape的某个轴为0。", C.OUTPUT_SIZE),
    ("通过公式推导的输出shape中存在某个轴为0。", C.OUTPUT_SIZE),
    ("通过公式推导出的输出out的shape的某个轴小于0。", C.OUTPUT_SIZE),
    ("通过公式推导出的输出out的shape与实际out的shape不一致。", C.SHAPE_MISMATCH),
    ("The data types of self and out are not supported.", C.UNSUPPORTED_DTYPE),
    ("The dimensions of self exceed 8.", C.RANK),
    ("The data type of self, index, value, or out is not supported.", C.UNSUPPORTED_DTYPE),
    ("x、scale、offset、y的数据类型或数据格式不在支持的范围之内。", C.UNSUPPORTED_DTYPE),
    ("gradOutput、out与self数据类型不一致。", C.DTYPE_MISMATCH),
    ("self和out的数据类型不相同。", C.DTYPE_MISMATCH),
    ("The data types of gradOutput and self are inconsistent.", C.DTYPE_MISMATCH),
    ("self、other、out的数据类型不一致或数据格式不在支持的范围之内。", C.FORMAT),  # the other condition first
    ("参数out的数据类型不是self可转换的。", C.NOT_CASTABLE),
    ("gradOutput或self的shape dim大于8。", C.RANK),
    ("selfRef的维度范围超过8。", C.RANK),
    ("self和out的数据形状不一致。", C.SHAPE_MISMATCH),
    # The general row of 69 pages: "required and null" is one fact, not a null under another.
    ("如果传入参数是必选输入，输出或者必选属性，且是空指针，则返回161001。", C.NULL_POINTER),
    ("The input parameter is a required input, output, or attribute, and is a null pointer.", C.NULL_POINTER),
    # A value outside a range the row names without "取值" (25 error rows of op_docs; 64 table cells on 56 pages of the corpus).
    ("dim超出范围。", C.VALUE),
    ("dim超出输入self的维度范围。", C.VALUE),
    ("dim不在合法范围内。", C.VALUE),
    ("dim超过tensor维度范围。", C.VALUE),
    ("传入的layout参数不在支持范围内。", C.VALUE),
    ("dim越界时。", C.VALUE),
    ("kernelSize、dilation或stride存在值等于或小于0的元素。", C.VALUE),
    ("padding存在小于0的元素。", C.VALUE),
    # A row opening on a parameter's name compared (aclnnUnfoldGrad's, aclnnInplaceUniform's, aclnnKthvalue's).
    ("step小于等于0。", C.VALUE),
    ("dim不等于len(inputSizes)-1且dim不等于len(inputSizes)-2轴。", C.VALUE),
    ("from大于to。", C.VALUE),
    ("k小于0或者k大于输入self在dim维度上的size大小。", C.VALUE),
    # A padded shape's zero or negative extent (aclnnConstantPadNd), as a pool's output size.
    ("pad中每个值都不能让out的shape小于0，如果pad中存在正数，则out的shape中不能有0。", C.OUTPUT_SIZE),
    # An opening that a tensor the row goes on to name be given is no condition (aclnnBincount,
    # aclnnScale, aclnnBatchNormElemtBackward): phase 1 judges no rule on an absent tensor.
    ("当weights不为空时，self、weights shape不一致。", C.SHAPE_MISMATCH),
    ("bias不为空时，bias与scale的shape不一致。", C.SHAPE_MISMATCH),
    ("当weight非空指针时，weight的数据类型不在支持的范围之内。", C.UNSUPPORTED_DTYPE),
])
def test_conditions_are_classified(condition, category):
    assert classify(condition) is category


@pytest.mark.parametrize("condition", [
    "当x的数据类型为INT8时，weight的shape不满足要求。",  # hinges on another fact
    "内部错误。",
    "outputMask[0]为True且gradInputOut为空指针。",  # null only together with another fact
    "gamma is not a null pointer and the number of elements in gamma is not equal to C.",
    "self is an empty tensor, and scale or shift is not an empty tensor.",
    "perToken场景下，kroneckerP2的维度不为2。",
    "self在非第一维度上的size小于1。",  # a size, not a rank
    "当self为实数时，self和out的数据类型不一致。",  # a mismatch only for some dtypes
    # Ranges of something else than a parameter's values.
    "API内部校验错误，通常由于输入数据或属性的规格不在支持的范围之内导致。",
    "当前平台不在支持的平台范围内。",
    "产品型号不在支持的范围之内。",
    "self为标量，gradOutput为非标量的场景不在支持范围内。",
    "height * width > max int32，超出了indices的表示范围。",
    "size与stride长度不一致，或长度不在1到8范围内。",
    "`self`、`target` 或 `result` 的 dtype 不在支持范围内。",
    # A length, not values: the name is followed by what of it is compared.
    "kernelSize的长度不等于1或者2。",
    "dim等于len(inputSizes)-1时，fp32数据类型，step、size大于49088。",  # hinges on a dtype
    # Given, but the rest names other tensors only: the row's subject is not the tensor given.
    "当bias不为空时，self、out shape不一致。",
    "quantOffsetOptional存在时，quantScaleOptional是空指针。",
    "antiquantOffsetOptional存在输入时，shape与antiquantScale不相同。",
])
def test_unclear_conditions_stay_unclassified(condition):
    assert classify(condition) is None



def test_an_error_case_points_at_its_condition_cell():
    from tests.parse.parse_helpers import PROTOTYPE, page

    table = ("<table>\n<tr><th>返回码</th><th>错误码</th><th>描述</th></tr>\n<tr>\n"
             "<td>ACLNN_ERR_PARAM_NULLPTR</td>\n<td>161001</td>\n<td>传入的self是空指针。</td>\n</tr>\n</table>\n")
    text = f"# aclnnFoo\n\n{PROTOTYPE}\n## aclnnFooGetWorkspaceSize\n\n{table}"
    (case,) = page(text).apis[0].errors
    assert case.line == text.splitlines().index("<td>传入的self是空指针。</td>") + 1


def test_prose_heads_without_parentheses():
    # aclnnNanToNum (ops-math/experimental): "161001 ACLNN_ERR_PARAM_NULLPTR: 1. 传入的self或out是空指针。"
    text = ("- **返回值：**\n\n  aclnnStatus：返回状态码。\n\n"
            "  161001 ACLNN_ERR_PARAM_NULLPTR: 1. 传入的self或out是空指针。\n"
            "  ACLNN_ERR_PARAM_INVALID 161002: 1. self的数据类型不在支持的范围之内。\n")
    assert [e[:2] + e[3:4] for e in errors(text)] == [
        (161001, "ACLNN_ERR_PARAM_NULLPTR", C.NULL_POINTER), (161002, "ACLNN_ERR_PARAM_INVALID", C.UNSUPPORTED_DTYPE)]


def test_tensors_an_error_row_qualifies_with_non_null_are_optional():
    from gen.ir import ErrorCase, ParamKind
    from gen.parse.param_roles import optional_where_errors_say_non_null
    from tests.support.factories import make_param

    # aclnnBatchNormBackward's rows: a list qualified by 非空时, and names each qualified in parentheses;
    # an int array "非空时" is non-empty, not non-null.
    params = [make_param(n) for n in ("gradOut", "weight", "runningMean", "gradWeight", "gradBias", "input")]
    params.append(make_param("dims", kind=ParamKind.INT_ARRAY))
    errors = [ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "weight，runningMean非空时，数据类型不在支持的范围之内。"),
              ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "input，gradWeight（非空时），gradBias（非空时）的shape长度不相等。"),
              ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "当dims非空时，gradOut的shape不对。"),
              # aclnnEmbeddingBag's English row.
              ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002,
                        "When input is not nullptr: its data type does not match weight.")]
    optional = {p.name for p in optional_where_errors_say_non_null(params, errors) if p.optional}
    assert optional == {"weight", "runningMean", "gradWeight", "gradBias", "input"}


def test_pointers_an_error_row_refuses_only_all_null_are_optional():
    from gen.ir import ErrorCase, ErrorCategory, ParamKind
    from gen.parse.param_roles import optional_where_errors_refuse_only_all_null
    from tests.support.factories import make_param

    # aclnnClamp: "max、min全为空指针" names clipValueMax and clipValueMin by the names they end with;
    # aclnnClampTensor names them in full. One name alone, or a word no pointer ends with, is no such row.
    params = [make_param("self"), make_param("clipValueMin", kind=ParamKind.SCALAR),
              make_param("clipValueMax", kind=ParamKind.SCALAR), make_param("out")]

    def optional(condition):
        errors = [ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, condition, ErrorCategory.NULL_POINTER)]
        return {p.name for p in optional_where_errors_refuse_only_all_null(params, errors) if p.optional}

    assert optional("传入的self、out其中一个为空指针，或者max、min全为空指针。") == {"clipValueMin", "clipValueMax"}
    assert optional("clipValueMin、clipValueMax全为空指针。") == {"clipValueMin", "clipValueMax"}
    assert optional("传入的self、out为空指针。") == set()
    assert optional("max、bound全为空指针。") == set()


def test_a_near_name_is_a_code_name_one_parameter_differs_from():
    # An error row's "rstdOut" is aclnnRmsNormQuantV3's rstd, "padding" aclnnAvgPool2d's paddings.
    assert near_names("rstdOut的维度和x的维度不相同", ["x", "rstd"]) == (("rstdOut", "rstd"),)
    assert near_names("属性padding超过kernelSize对应位置的1/2", ["paddings", "kernelSize"]) == (("padding", "paddings"),)
    assert near_names("传入的self、paddings或out存在某维度的值小于0", ["self", "paddings", "out"]) == ()
    # A plain English word is no code name; a word two parameters could mean, none; nor a noun.
    assert near_names("the value of x is invalid", ["x", "values"]) == ()
    assert near_names("属性scale超过1", ["scales", "scaleOptional"]) == ()
    assert near_names("tensors中tensor的维度不一致", ["tensors"]) == ()


def test_a_null_row_under_a_flag_makes_its_tensors_optional_and_required_under_the_flag():
    from gen.ir import ErrorCase, ParamKind, ShapeForm
    from gen.parse.param_roles import present_under_bool_values
    from tests.support.factories import make_param

    # aclnnAddRmsNormDynamicMxQuant.md:317 and aclnnBatchNormReduceBackward.md:281: the page admits a null
    # rstdOut with outputRstd false (its example passes one), a null sumDy and sumDyXmu with inputG false.
    params = [make_param("x1"), make_param("outputRstd", kind=ParamKind.BOOL), make_param("rstdOut"),
              make_param("inputG", kind=ParamKind.BOOL), make_param("sumDy"), make_param("sumDyXmu"),
              make_param("epsilon", kind=ParamKind.FLOAT)]

    def read(condition, code=161001):
        found, rules = present_under_bool_values(params, [ErrorCase("ACLNN_ERR_PARAM_NULLPTR", code, condition, line=9)])
        return {p.name for p in found if p.optional}, [(r.param, r.when, r.values, r.form, r.line) for r in rules]

    assert read("当outputRstd为True时，传入rstdOut是空指针。") == (
        {"rstdOut"}, [("rstdOut", "outputRstd", ("1",), ShapeForm.PRESENT, 9)])
    assert read("当inputG为true时，sumDy或sumDyXmu是空指针。")[1] == [
        ("sumDy", "inputG", ("1",), ShapeForm.PRESENT, 9), ("sumDyXmu", "inputG", ("1",), ShapeForm.PRESENT, 9)]
    # Not a bool's value, another status, or more than a null pointer: no such rule.
    assert read("当epsilon为true时，传入rstdOut是空指针。") == (set(), [])
    assert read("当outputRstd为True时，传入rstdOut是空指针。", code=161002) == (set(), [])
    assert read("当outputRstd为True时，rstdOut是空指针或shape不对。") == (set(), [])
