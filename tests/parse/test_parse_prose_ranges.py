"""Value ranges stated in prose that phase 1 checks (issue 24, "too lenient"), read from fragments
of the corpus pages that state them: a dimension index bounded by a letter the sentence defines as
a tensor's rank, by "X的维度数量", or with the range before its word ("在[...]范围内"); a bound that is
another argument's value; a sign stated as a word ("非负整数", "positive integer", an error row's "为负数"); English error
rows ("has values less than or equal to 0"). And what stays unread: a condition before the range,
a bound that is a dimension index."""

from __future__ import annotations

import pytest

from gen.ir import Direction, Param, ParamKind
from gen.parse.extractors.rules import UNREAD, Text, read_rules

_C_TYPES = {ParamKind.TENSOR: "const aclTensor*", ParamKind.INT: "int64_t", ParamKind.INT_ARRAY: "const aclIntArray*",
            ParamKind.FLOAT: "double", ParamKind.SCALAR: "const aclScalar*", ParamKind.BOOL: "bool"}


def params(**kinds: ParamKind) -> list[Param]:
    """Parameters by name and kind; a tensor named out* is an output."""
    return [Param(name, _C_TYPES[kind], kind, Direction.OUT if name.startswith("out") else Direction.IN)
            for name, kind in kinds.items()]


T, I, A, F = ParamKind.TENSOR, ParamKind.INT, ParamKind.INT_ARRAY, ParamKind.FLOAT


def read(api_params: list[Param], text: str, subject: str | None = None, error_row: bool = False, status: int = 0):
    rules = read_rules("aclnnFoo", api_params, [Text(text, 1, subject, error_row, status)], zero_based=False)
    return {r.describe() for r in (*rules.value_ranges, *rules.value_sets)}, \
        [d.message for d in rules.diagnostics if d.code == UNREAD]


@pytest.mark.parametrize("text, subject, tensor", [
    ("取值范围[-x_rank, x_rank)（x_rank表示x的shape维度）。", "dim", "x"),  # aclnnScale
    ("指定进行LogSoftmax运算的维度，取值范围为 [-rank, rank-1]，其中 rank 是输入Tensor self 的维度。", "dim", "self"),
    ("axis的取值范围为[-n, n),其中n为yGrad的维度。", None, "yGrad"),  # aclnnRepeatInterleaveGrad
    ("取值范围为[-D, D-1]，D为x的shape的维数。", "dim", "x"),  # aclnnDynamicMxQuant
    ("The value range is [-N, N-1]. The elements must be unique. N indicates the dimensions of self.", "dim", "self"),
    ("若不指定则默认为-1，范围在[-self维度数量，self维度数量-1]。", "dim", "self"),  # aclnnLinalgCross: a default
    ("在[-selfRef.dim(), selfRef.dim() - 1]范围内。", "dim", "selfRef"),  # aclnnIndexCopy: the word after
    # aclnnIndexFill: ranks 1 to 8, and "[-1, 1)" for the 0-d tensor whose rank counts as 1.
    ("当self为1-8维时，dim的取值范围在[-self.dim(), self.dim())，当self为0维时，dim的取值范围在[-1, 1)。", "dim", "self"),
    # aclnnReduceNansum: a later clause with its own condition narrows, never widens.
    ("取值范围为[-self.dim(), self.dim())，dim数组长度为0时，对所有轴做ReduceNansum计算。", "dim", "self"),
])
def test_a_dimension_index_bounded_by_a_tensors_rank(text, subject, tensor):
    kinds = {name: T for name in ("self", "x", "yGrad", "selfRef", "out")}
    found, unread = read(params(**kinds, dim=I, axis=I), text, subject)
    name = subject or "axis"
    assert len(found) == 1 and not unread
    (rule,) = found
    assert rule in (f"{name} in [-rank({tensor}), rank({tensor}) - 1]", f"{name} in [-rank({tensor}), rank({tensor}))")


def test_the_input_data_is_the_one_input_tensor():
    # aclnnMeanV2: "取值范围为[-r, r-1]，其中r为输入数据的维度", its one input tensor self.
    text = "取值范围为[-r, r-1]，其中r为输入数据的维度。"
    assert read(params(self=T, dim=I, out=T), text, "dim")[0] == {"dim in [-rank(self), rank(self) - 1]"}
    assert not read(params(self=T, other=T, dim=I, out=T), text, "dim")[0]  # which input?


def test_an_error_rows_range_without_the_word_range():
    # aclnnScatterValue: "dim的值不在[-self的维度数量， self的维度数量-1]之间".
    found, _ = read(params(self=T, dim=I), "dim的值不在[-self的维度数量， self的维度数量-1]之间。", error_row=True)
    assert found == {"dim in [-rank(self), rank(self) - 1]"}


def test_an_english_range_names_what_it_bounds_after_it():
    # aclnnIndexFill's English row of `value`: the sentence bounds dim, not the row's parameter.
    found, _ = read(params(self=T, dim=I, value=ParamKind.SCALAR),
                    "When self is 1D to 8D, the value range of dim is [-self.dim(), self.dim())", "value")
    assert found == {"dim in [-rank(self), rank(self))"}


def test_a_letter_the_text_defines_twice_or_a_parameters_name_is_no_rank():
    found, unread = read(params(self=T, other=T, dim=I), "取值范围[-N, N-1]，N为self的维度，N为other的维度。", "dim")
    assert not found and unread
    found, _ = read(params(self=T, dim=I, N=I), "取值范围[-N, N-1]，N为self的维度。", "dim")
    assert found == {"dim in [-N, N - 1]"} or not found  # N is an argument: its value, never a rank
    # "维度大小" is a dimension's size, not the rank.
    found, _ = read(params(self=T, dim=I), "dim的取值越界不在[-dimNum, dimNum -1],dimNum为self的维度大小。", error_row=True)
    assert not found


def test_a_bound_may_be_another_arguments_value():
    # aclnnMoeDistributeCombine: "EP域本卡Id，取值范围[0, epWorldSize)"; aclnnEmbeddingDenseGrad.
    found, _ = read(params(epRankId=I, epWorldSize=I), "EP域本卡Id，取值范围[0, epWorldSize)，同一个EP通信域中各卡的epRankId不重复。",
                    "epRankId")
    assert found == {"epRankId in [0, epWorldSize)"}
    found, _ = read(params(paddingIdx=I, numWeights=I), "范围 [-1, numWeights)，-1 表示不填充。", "paddingIdx")
    assert found == {"paddingIdx in [-1, numWeights)"}


def test_a_bound_that_is_a_dimension_index_is_not_read():
    # aclnnGatherV3: "batchDims取值范围在[0, dim]内" beside dim in [-rank, rank): a negative dim names
    # a dimension from the end, and the page does not say whether the bound wraps.
    rules = read_rules("aclnnGatherV3", params(self=T, dim=I, batchDims=I), [
        Text("取值范围为[-self.dim(), self.dim() - 1]。", 1, "dim"), Text("取值范围在[0, dim]内。", 2, "batchDims")], False)
    assert {r.describe() for r in rules.value_ranges} == {"dim in [-rank(self), rank(self) - 1]"}
    assert any("dimension index" in d.message for d in rules.diagnostics)


@pytest.mark.parametrize("text, subject, expected", [
    ("size、stride、storageOffset 中的元素必须为非负整数", None, {"size in [0, inf)", "stride in [0, inf)", "storageOffset in [0, inf)"}),  # aclnnAsStrided
    ("长度必须与size一致；元素必须为非负整数。", "stride", {"stride in [0, inf)"}),
    ("repeats的值必须为非负数。", "repeats", {"repeats in [0, inf)"}),  # aclnnRepeatInterleaveInt
    ("该值必须是非负的。", "beta", {"beta in [0, inf)"}),  # aclnnSmoothL1Loss: a double
    ("取值范围为大于等于1的整数。", "repeats", {"repeats in [1, inf)"}),  # aclnnGRU's numLayers
    ("The length is 1 or 2, and the array elements must be greater than 0.", "size", {"size in (0, inf)"}),  # aclnnMaxPool
    ("The array length must be 1 or 3, and all array elements must be greater than 0.", "size", {"size in (0, inf)"}),
    ("repeats must be a positive integer.", None, {"repeats in (0, inf)"}),
])
def test_a_sign_or_an_elements_bound_in_words(text, subject, expected):
    found, _ = read(params(self=T, size=A, stride=A, storageOffset=A, repeats=I, beta=F), text, subject)
    assert found == expected


@pytest.mark.parametrize("text, expected", [
    ("kernelShape has values less than or equal to 0.", {"kernelShape in (0, inf)"}),  # aclnnMaxPool
    ("传入的kernelShape、strides某个维度值小于等于0，pads某个维度值小于0。",  # aclnnAvgPool3dBackward
     {"kernelShape in (0, inf)", "strides in (0, inf)", "pads in [0, inf)"}),
    # "or greater than kernelSize divided by 2": a bound this reader does not hold; the other side is read.
    ("pads has values less than 0 or greater than kernelShape divided by 2.", {"pads in [0, inf)"}),
])
def test_an_error_row_refusing_some_element(text, expected):
    found, _ = read(params(self=T, kernelShape=A, strides=A, pads=A), text, error_row=True)
    assert found == expected


@pytest.mark.parametrize("text, expected", [
    ("p为负数或nan。", {"p in [0, inf)"}),  # aclnnPdist.md:180 (NaN is no bound a range holds)
    ("size、stride或storageOffset中存在负数。", {"size in [0, inf)", "stride in [0, inf)", "storageOffset in [0, inf)"}),  # aclnnAsStrided
    ("selfIsResult为true时，negativeSlope是负数。", {"negativeSlope in [0, inf) when selfIsResult == 1"}),  # aclnnLeakyReluBackward
    ("maxLowBound不为0.0但scaleAlg不为1，或maxLowBound为负数。", {"maxLowBound in [0, inf)"}),
])
def test_an_error_row_refusing_a_negative_value_is_a_bound_at_0(text, expected):
    found, _ = read(params(p=F, size=A, stride=A, storageOffset=A, negativeSlope=ParamKind.SCALAR, selfIsResult=ParamKind.BOOL,
                           maxLowBound=F, scaleAlg=I), text, error_row=True)
    assert found == expected


@pytest.mark.parametrize("text, subject", [
    ("如果paddingIdx为负数则不进行处理。", "paddingIdx"),  # aclnnEmbeddingDenseBackward: what a negative value means
    ("支持负数，范围[-self.dim(), self.dim() - 1]。", None),  # negative dimensions are allowed, not refused
])
def test_a_negative_value_the_page_admits_gives_no_bound_at_0(text, subject):
    found, _ = read(params(self=T, paddingIdx=I), text, subject)
    assert not any("[0, inf)" in rule for rule in found)


@pytest.mark.parametrize("text, subject", [
    ("var 元素应非负", None),  # a tensor's values: not phase 1's
    ("当x为1时，repeats必须为非负数，否则为正数。", "repeats"),  # a condition, and what holds otherwise
    ("当x大于1时，repeats必须为非负数。", "repeats"),  # a condition that is no value of an argument
    ("当Sq > Skv时，prefix的N值取值范围[0, Skv]，当Sq <= Skv时，取值范围[Skv-Sq, Skv]", "repeats"),
    # aclnnMoeInitRoutingV3: "expertTokensNumType为key_value模式时，..."
    ("x为1时，取值范围为[0, 5120]，其它模式取值范围[0, 10240]。", "repeats"),
    ("The value range is [0, 10] when x is 1.", "repeats"),  # English states the condition after
])
def test_conditions_and_values_of_tensors_give_no_rule(text, subject):
    found, _ = read(params(var=T, x=I, repeats=I), text, subject)
    assert not found


def test_an_error_row_exempting_a_rank_the_table_refuses_is_diagnosed():
    # aclnnInplaceTril: its table says 2-8, its error row "self维度大于8，或小于2且不是0".
    table = [Param("selfRef", "aclTensor*", T, Direction.INOUT, rank=(2, 8)), Param("diagonal", "int64_t", I, Direction.IN)]
    rules = read_rules("aclnnInplaceTril", table, [Text("self维度大于8，或小于2且不是0。", 1, None, True)], False)
    assert [d.code for d in rules.diagnostics] == ["rank-row-contradicts-table"]
    # aclnnDropoutBackward's "scale小于1且不为0" is no rank.
    rules = read_rules("aclnnFoo", table, [Text("scale小于1且不为0。", 1, None, True)], False)
    assert not rules.diagnostics


@pytest.mark.parametrize("text, subject, expected", [
    ("仅支持0,1,2三个值。", "mode", {"mode in [0, 2]"}),  # aclnnBinaryCrossEntropyWithLogitsTargetBackward
    ("取值范围是0('none')、1('tanh')。Atlas 推理系列产品只支持1('tanh')。", "mode", {"mode in [0, 1]"}),  # aclnnGeGluBackward
    ("取值范围为：[0, 1, 2]，默认是0。", "mode", {"mode in [0, 2]"}),  # aclnnDequantSwigluQuantV2's swigluMode
    ("取值范围为{34, 35, 36}。", "mode", {"mode in [34, 36]"}),  # aclnnQuantMax's dstType
    ("mode 当前只支持 1 和 2，分别代表 count 模式和 key_value 模式。", None, {"mode in [1, 2]"}),
    ("仅支持传入值为0、1，其他值会执行异常。", "mode", {"mode in [0, 1]"}),
    ("取值范围为[0, 2]。", "mode", {"mode in [0, 2]"}),  # a pair in brackets: an interval, the same here
])
def test_a_list_of_consecutive_values_is_a_range(text, subject, expected):
    assert read(params(self=T, mode=I), text, subject)[0] == expected


@pytest.mark.parametrize("text, subject, expected", [
    ("dstType的取值范围是:[2, 34,35, 36, 40, 41]，分别对应INT8、HIFLOAT8。", "dstType", "dstType in {2, 34, 35, 36, 40, 41}"),
    ("quantMode 只支持 1 和 -1，分别代表动态 quant 场景和不量化场景。", None, "quantMode in {-1, 1}"),
    ("当前支持取值为1/128/256/512。", "quantMode", "quantMode in {1, 128, 256, 512}"),
])
def test_a_list_with_gaps_is_a_set_of_values(text, subject, expected):
    assert read(params(self=T, dstType=I, quantMode=I), text, subject) == ({expected}, [])


@pytest.mark.parametrize("text, subject, expected", [
    # aclnnMoeDistributeDispatchV3: a row's item of one chip.
    ("Atlas A3 训练系列产品/Atlas A3 推理系列产品：取值范围(0, 1024]。", "mode", "mode in (0, 1024] on Ascend910_93"),
    # aclnnAvgPool2dBackward: two chips; what the sentence adds after the range changes nothing.
    ("Atlas 推理系列产品、Atlas 训练系列产品：支持范围为[-255,255]，0表示不影响padding是否参与平均计算。", "mode",
     "mode in [-255, 255] on Ascend310P, Ascend910"),
    ("Atlas A3 训练系列产品：仅支持0、2、4。", "mode", "mode in {0, 2, 4} on Ascend910_93"),
    # aclnnMoeUpdateExpert: a value of another argument, after the row's description.
    ("本卡Id，balanceMode为0时，取值范围为[0, worldSize)。", "mode", "mode in [0, worldSize) when balanceMode == 0"),
    ("参数isResult为True时，mode小于0。", None, "mode in [0, inf) when isResult == 1"),  # aclnnEluBackward's error row
    ("Atlas A3 训练系列产品：当balanceMode为1时，取值范围[0, 4]。", "mode", "mode in [0, 4] on Ascend910_93 when balanceMode == 1"),
])
def test_a_rule_of_some_chips_or_under_an_arguments_value(text, subject, expected):
    api = [*params(self=T, mode=I, worldSize=I, balanceMode=I),
           Param("isResult", "bool", ParamKind.BOOL, Direction.IN)]
    assert read(api, text, subject, error_row=subject is None) == ({expected}, [])


@pytest.mark.parametrize("text", [
    "Atlas A3 训练系列产品：取值范围[0, 4]，Atlas A2 训练系列产品：取值范围[0, 8]。",  # chips named again
    "x为1时，取值范围为[0, 4]，其它模式取值范围[0, 8]。",  # and what holds otherwise
    "mode为1时，取值范围为[0, 4]。",  # under its own value
])
def test_chips_or_conditions_the_ir_cannot_carry_give_no_rule(text):
    assert not read(params(self=T, mode=I, x=I), text, "mode")[0]


def test_an_error_rows_status_is_its_ranges_and_the_narrower_rows():
    # aclnnAmpUpdateScale: its row "取值范围 >= 1" refuses nothing its 561002 row's range admits.
    api = params(self=T, growthInterval=I)
    texts = [Text("取值范围 >= 1。", 1, "growthInterval"),
             Text("growthInterval超出取值范围[1, 2147483647]。", 2, None, True, 561002)]
    rules = read_rules("aclnnFoo", api, texts, zero_based=False)
    assert {r.describe() for r in rules.value_ranges} == {"growthInterval in [1, inf) (status 561002)",
                                                           "growthInterval in [1, 2.14748e+09] (status 561002)"}
    # aclnnSleep: the same range in the row and in the 561002 row is one rule, the error table's status.
    texts = [Text("必须为正整数（cycles > 0）。", 1, "cycles"), Text("cycles参数非正数（cycles <= 0）。", 2, None, True, 561002)]
    rules = read_rules("aclnnFoo", params(self=T, cycles=A), texts, zero_based=False)
    assert [r.describe() for r in rules.value_ranges] == ["cycles in (0, inf) (status 561002)"]


@pytest.mark.parametrize("text", [
    "长度仅支持1、2。",  # the argument's length
    "ep、tp均仅支持1、2。",  # names that are no parameter, on another's row
    "参数mode的取值范围不是0和1。",  # an error row: its negation is no list reader's
    "高性能模式(self=0)额外限制: mode取值为0或1。",  # aclnnIndexAddV2: under a condition
])
def test_a_list_of_something_else_is_no_range(text):
    assert not read(params(self=T, mode=I), text, "mode", error_row=text.startswith("参数"))[0]


def test_a_dimension_indexs_range_at_rank_zero_is_the_whole_rank_range_there():
    # aclnnGatherV2's error rows: "[-1, 0]" at rank 0 is [-rank(self), rank(self)) there (a 0-d tensor's
    # rank counts as 1): no diagnostic beside that range, one without it.
    zero = Text("当self.dim()=0时，参数dim的取值范围不在[-1, 0]内。", 2, None, True)
    whole = Text("取值范围为[-self.dim(), self.dim())。", 1, "dim")
    rules = read_rules("aclnnFoo", params(self=T, dim=I), [whole, zero], zero_based=False)
    assert [r.describe() for r in rules.value_ranges] == ["dim in [-rank(self), rank(self))"] and not rules.diagnostics
    rules = read_rules("aclnnFoo", params(self=T, dim=I), [zero], zero_based=False)
    assert not rules.value_ranges and [d.code for d in rules.diagnostics] == [UNREAD]


@pytest.mark.parametrize("texts, expected", [
    # The row's letters name the dimensions; the error row's "对应维度" takes the array's longest length.
    ([("长度为1(KD = KH = KW)或3(KD, KH, KW)，数值必须大于0且在对应的DHW维度上小于等于self的大小。", "kernel", False)],
     {"kernel in (0, inf)", "kernel in (-inf, size(self, -3 + i)]"}),
    ([("长度为1(kH = kW)或2(kH, kW)。", "kernel", False), ("kernel存在某维度的值大于self对应维度上的值。", None, True)],
     {"kernel in (-inf, size(self, -2 + i)]"}),
    # A padding's pairs, from the last dimension inwards.
    ([("长度为4，数值依次代表左右上下需要填充的值。", "padding", False), ("padding的数值大于等于self对应维度的值。", None, True)],
     {"padding[0:2] in (-inf, size(self, -1))", "padding[2:4] in (-inf, size(self, -2))"}),
])
def test_a_bound_by_the_dimension_each_element_stands_for(texts, expected):
    api_params = params(self=T, kernel=A, padding=A)
    rules = read_rules("aclnnFoo", api_params, [Text(text, n, subject, error_row) for n, (text, subject, error_row)
                                                in enumerate(texts, 1)], zero_based=False)
    assert {r.describe() for r in rules.value_ranges} == expected


def test_a_corresponding_dimension_the_row_does_not_place_is_not_read():
    """An array whose row says neither one element per dimension nor a padding's pairs: which dimension
    "对应维度" is, the page does not say."""
    api_params = params(self=T, padding=A)
    rules = read_rules("aclnnFoo", api_params, [Text("长度为4。", 1, "padding"),
                                                Text("padding的数值大于等于self对应维度的值。", 2, None, True)],
                       zero_based=False)
    assert not rules.value_ranges
    assert any("which dimension each element stands for" in d.message for d in rules.diagnostics if d.code == UNREAD)


@pytest.mark.parametrize("text", [
    "数组长度可以为weight维度减2，各维度的数值范围满足[0,stride对应维度数值)。",  # aclnnConvolutionBackward
    "Each element in the array must be in the range [0, stride value at the corresponding dimension).",
])
def test_a_brackets_end_may_be_the_same_element_of_another_array(text):
    found, _ = read(params(self=T, stride=A, outputPadding=A), text, "outputPadding")
    assert found == {"outputPadding in [0, stride[i])"}


@pytest.mark.parametrize("text, rule", [
    ("mode的值不在0、1、2范围内。", "mode in [0, 2]"),  # aclnnDivMod
    ("reduction值不在0~2范围之内。", "mode in [0, 2]"),  # aclnnMseLoss (reduction read as mode below)
    ("`reduction` 不在 `0/1/2` 范围内。", "mode in [0, 2]"),  # aclnnSmoothL1Loss
    ("传入的mode参数不在0、1、3范围内。", "mode in {0, 1, 3}"),
    ("reduce不在支持范围内，必须属于{0, 1, 2, 3, 4, 5}。", "mode in [0, 5]"),  # aclnnScatterReduce
])
def test_an_error_row_refusing_what_lies_outside_listed_values_is_their_range_or_set(text, rule):
    text = text.replace("reduction", "mode").replace("reduce不", "mode不")
    assert read(params(self=T, mode=I), text, error_row=True) == ({rule}, [])
    # With the row's status (aclnnRotaryPositionEmbedding's "传入的mode参数不在0、1、2、3范围内" is 561002).
    assert read(params(self=T, mode=I), text, error_row=True, status=561002)[0] == {f"{rule} (status 561002)"}


@pytest.mark.parametrize("text", [
    "mode不在支持范围内。",  # no values
    "mode的值不在0、1、2范围内，或self为空。",  # more than the refusal
    "dim的值不在[-self的维度数量，self的维度数量-1]范围内。",  # a range of the rank, read elsewhere
])
def test_an_error_row_refusing_no_listed_values_alone_gives_no_list(text):
    assert not {r for r in read(params(self=T, mode=I, dim=I), text, error_row=True)[0] if r.startswith("mode")}


@pytest.mark.parametrize("text, rule", [
    ("dim值不在self维度范围内。", "dim in [-rank(self), rank(self) - 1]"),  # aclnnSoftmax
    ("dim超出输入self的维度范围时。", "dim in [-rank(self), rank(self) - 1]"),  # aclnnMedianDim: a closing 时 is no condition
    ("dim的取值不在输入tensor self的维度范围中。", "dim in [-rank(self), rank(self) - 1]"),  # aclnnSort
    ("prob的值不在0和1之间。", "prob in [0, 1]"),  # aclnnDropoutGenMask
])
def test_an_error_row_refusing_what_lies_outside_a_range_is_that_range(text, rule):
    assert read(params(self=T, dim=I, prob=F), text, error_row=True) == ({rule}, [])


def test_an_error_rows_range_of_the_rank_is_not_read_again_in_another_form():
    # aclnnKthvalue: its dim's row "[-self.dim(), self.dim())" and its error row "dim的取值不在输入tensor self的维度范围中".
    rules = read_rules("aclnnFoo", params(self=T, dim=I), [Text("取值范围为[-self.dim(), self.dim())。", 1, "dim"),
                                                          Text("dim的取值不在输入tensor self的维度范围中。", 2, None, True)], False)
    assert [r.describe() for r in rules.value_ranges] == ["dim in [-rank(self), rank(self))"]


@pytest.mark.parametrize("text", [
    "dim超出self维度范围，或self为空。",  # more than the refusal
    "dim的值超出范围。",  # which tensor's?
    "dim的绝对值超出selfRef的dim最大值或超出8维。",
])
def test_an_error_row_with_more_or_less_than_a_range_gives_none(text):
    assert read(params(self=T, selfRef=T, dim=I), text, error_row=True)[0] == set()


@pytest.mark.parametrize("text, rule", [
    ("当前只支持0。", "x in [0, 0]"),  # aclnnFusedCrossEntropyLossWithMaxSum's labelSmoothing
    ("目前仅支持取值为0。", "x in [0, 0]"),  # aclnnFusedLinearCrossEntropyLossGrad's
    ("当前取值仅支持为1。", "x in [1, 1]"),  # aclnnTransposeQuantBatchMatMul's batchSplitFactor
    # aclnnAddRmsNormQuant's axis: other values are taken and ignored, no refusal.
    ("当前仅支持-1，传其他值均不生效。", None),
])
def test_what_this_version_alone_supports_is_a_range_unless_others_are_ignored(text, rule):
    assert read(params(self=T, x=F), text, "x")[0] == ({rule} if rule else set())
