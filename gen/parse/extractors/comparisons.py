"""Value ranges a page states as comparisons, not brackets: "stride数值必须大于0", "group需大于0",
"取值范围 >= 1", "steps大于等于0", "0≤prob≤1", "min不能大于max", and the error rows that name the
refused side ("传入的bins小于等于0", "n或m的值小于0", "传入的min大于max"). Each becomes a
`ValueRange` of a host argument (an int, an int array's every element, a float, a scalar), its
bound a number or the value of another host argument (`Extent.VALUE`).

    kernelSize的行: 数值必须大于0                 ValueRange(kernelSize, low=(0, exclusive))
    group需大于0                                  ValueRange(group, low=(0, exclusive))
    传入的bins小于等于0 (an error row)             ValueRange(bins, low=(0, exclusive))
    传入的min大于max (an error row)                ValueRange(min, high=value(max))
    0≤prob≤1                                      ValueRange(prob, [0, 1])
    repeats的值必须为非负数 / positive integer       ValueRange(repeats, low=0) / low=(0, exclusive)
    p为负数或nan (an error row)                     ValueRange(p, low=0)
    kernelShape has values less than or equal to 0 (an error row)   ValueRange(kernelShape, low=(0, exclusive))

CANN's implementations check these in phase 1 (the error tables list them as 161002), and the
kernels the simulator runs assume them (a pool's stride, a histogram's bins). Read narrowly: a
clause under a condition ("当...时", "若", "则"), a bound that is an expression ("self对应维度的
值", "rank(index)", "2^24"), a comparison of part of the argument ("C/group≤8000", "长度小于等于")
or of a tensor's values gives no rule: the simulator then checks less than the page, never more.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Optional

from gen.ir import API, Bound, Diagnostic, Direction, Extent, Level, Param, ParamKind, ValueRange
from gen.parse.extractors import vocab
from gen.parse.extractors.relations import CONDITION
from gen.parse.patterns import NAME, NamedPattern, lazy_pattern, name_list, name_matches

# The host arguments a ValueRange bounds (phase 1 reads their values: runtime/sim/src/opapi/rules.cpp).
_BOUNDED = (ParamKind.INT, ParamKind.INT_ARRAY, ParamKind.FLOAT, ParamKind.SCALAR)
# What a bound may name: an argument with one value.
_VALUED = (ParamKind.INT, ParamKind.FLOAT, ParamKind.SCALAR)

# Comparators, longest first, as (pattern, relation): the relation the subject has to the bound.
_COMPARATORS = (
    (r"大于或等于|大于等于|等于或大于|不小于|不能小于|不得小于|不低于|>=|≥|＞=|"
     r"greater\s+than\s+or\s+equal\s+to|no\s+less\s+than|not\s+less\s+than|at\s+least", ">="),
    (r"小于或等于|小于等于|等于或小于|不大于|不能大于|不得大于|不超过|<=|≤|＜=|"
     r"less\s+than\s+or\s+equal\s+to|no\s+greater\s+than|not\s+greater\s+than|at\s+most", "<="),
    (r"大于|>|＞|greater\s+than|larger\s+than", ">"),
    (r"小于|<|＜|less\s+than|smaller\s+than", "<"),
)
_COMPARATOR = "|".join(f"(?P<c{i}>{pattern})" for i, (pattern, _) in enumerate(_COMPARATORS))
_NEGATION = {">=": "<", "<=": ">", ">": "<=", "<": ">="}
_IDENTIFIER = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")

_NUMBER = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|零"
# A modal between what is bounded and its comparator: "需要", "必须都", "要求为", "取值范围是", "must be".
_MODAL = (r"(?:\s*(?:都|均|也)?\s*(?:需要|需|必须|应该|应当|应|要求为|要求|要|须|是|都|均|must|should|shall|needs?\s+to)?"
          r"\s*(?:都|均)?\s*(?:be|is|are)?)?")
# Words between a subject and its comparator: "的值", "的取值", "存在某维度的值", "中元素值", "数值中存在",
# "groups数", "的值域"...
_FILLER = (r"(?:\s*(?:的|中的?|中|'s)?\s*(?:取值范围|取值|数值|值域|元素值|值|每个元素|数组元素|元素|数|value|values)?)?"
           r"(?:\s*中?\s*(?:存在|含有|有)(?:某(?:个)?维度的?|任意)?\s*(?:值|元素)?)?"
           # "kernelSize、stride某个维度值小于等于0", "kernelShape has values less than or equal to 0" (error rows)
           r"(?:\s*(?:某|任一|任意)(?:个)?维度(?:的)?\s*(?:值|数值)|\s+(?:has|have|contains?)\s+(?:an?\s+)?(?:values?|elements?))?"
           + _MODAL)
# What may follow a bound: the clause's end, a conjunction, or the value word. A disjunction ends
# a clause only in an error row (either side is refused); in a requirement it joins alternatives.
_AFTER = r"\s*(?:的值|的数值|的元素|的正整数|的整数)?\s*(?:$|[,，。;；)）]|且|并且|\band\b{disjunction})"
# The start of a clause that names nothing: the row's own argument ("数值必须大于0", "需大于0",
# "各元素均大于零", "且数组元素必须都大于0", "取值范围是大于0的正整数"), in this version too ("当前只支持0",
# "目前仅支持取值为0": what CANN accepts today).
_ANCHOR = (r"^\s*(?:且|并且|and|其|该参数|该值)?\s*(?:(?:当前|目前)(?:版本)?\s*)?(?:取值范围|取值|数值|数组中的每个(?:值|元素)|数组元素|每个元素|各元素|所有元素|每个值|元素值|"
           r"元素|值|(?:each|every)\s+(?:element|value)(?:\s+(?:in|of)\s+the\s+array)?|all\s+(?:the\s+)?(?:array\s+)?(?:elements|values)|"
           r"(?:the\s+)?array\s+elements|the\s+value|values?)?"
           r"(?:(?<=[围值数素])\s*为)?" + _MODAL + r"\s*")  # "取值范围为大于等于1的整数" (aclnnGRU's numLayers)
# Another array's element divided by a number, as a bound ("小于等于kernelSize/2"): Extent.ELEMENT.
_QUOTIENT = r"([A-Za-z_]\w*)\s*/\s*(\d+)"
# A dimension of a tensor counted from its end, as a bound ("小于self最后一维度的数值", "self倒数第二维度"):
# Extent.SIZE at axis -n.
_NTH_FROM_END = {"最后一": 1, "倒数第一": 1, "倒数第二": 2, "倒数第三": 3, "倒数第四": 4, "倒数第五": 5,
                 "倒数第1": 1, "倒数第2": 2, "倒数第3": 3, "倒数第4": 4, "倒数第5": 5}
_FROM_END = r"\s*(?:的)?\s*(?P<nth>" + "|".join(sorted(_NTH_FROM_END, key=len, reverse=True)) + r")\s*(?:个)?维(?:度)?"
# A tensor's rank as a bound ("self.dim()").
_RANK_OF = r"\s*\.\s*(?:dim\(\)|ndim\b|dim\b|rank\(\))"
# The dimension of a tensor that each element of the bounded array stands for, as a bound ("大于self对应维度上的值",
# "self对应的DHW维度"): Extent.DIMENSION, over as many dimensions as the letters name or the array's longest
# length (`spans`). gen.parse.extractors.rules decides how the elements map to dimensions (one each, or a
# padding's pairs) from the array's own row, and reads no rule where that row does not say.
_CORRESPONDING = r"\s*(?:的)?\s*对应(?:的)?\s*(?P<letters>[DHWL]{1,3})?\s*(?:维度|维)\s*(?:上)?(?:\s*的\s*大小)?"
# A bound named after "输入" ("numSeqs的值大于输入numQueries的值").
_BOUND_LEAD = r"(?:输入(?:的)?)?"
# An error row's words before what it names ("传入的", "参数").
_LEAD = r"(?:传入的|输入的|参数|属性)?"
_SEPARATOR = r"\s*(?:、|,|，|和|或者|或|与|及|\bor\b|\band\b)\s*"
_CLAUSES = lazy_pattern(r"[,，:：]")
# Conditions the IR's ranges cannot carry: a dtype, a "时" clause without its comma ("在step大于0时
# 输入的start小于end"), a consequent.
_CONDITIONAL = lazy_pattern(r"数据类型|\b(?:fp|bf|FP|BF)16\b|\bfp32\b|(?<![同暂及])时|则|否则|\botherwise\b|\bif\b|\bwhen\b|"
                          r"精度|\bto\s+(?:maintain|ensure|keep)\b|\bprecision\b", re.I)
# A clause that advises ("建议为7.0"): no requirement, and not the sentence's other clauses' business.
_ADVICE = lazy_pattern(r"建议|推荐|\brecommend", re.I)
# What a comparison of part of an argument names first ("The length of the passed kernelSize").
_PART_OF = lazy_pattern(r"(?:\b(?:length|size|number|rank|dimensions?|shape|sum|product)\s+of(?:\s+the)?"
                      r"(?:\s+(?:passed|input|given))?|长度|个数|维度|乘积)$", re.I)
_CONJUNCTION = lazy_pattern(r"且|\band\b", re.I)
# Before a name that is the subject of a comparison: not part of a longer identifier or expression,
# an operator spaced from it included ("kGroup * x_shape[-1] / groupCount的值要大于等于k" bounds the
# quotient, not groupCount: aclnnMoeGatingTopK).
_NOT_AN_OPERAND = r"(?<![A-Za-z0-9_/*+\-×.的])(?<![/*+\-×]\s)"


# A sign stated as a word ("必须为非负整数", "该值必须是非负的", "must be a positive integer"; "不可以是负数",
# and an error row's "p为负数或nan", "size、stride或storageOffset中存在负数"): the comparison with 0 it
# means, which the readers below then read as they read "大于等于0" or "小于0". The non-negative forms go
# first, as "非负数" holds "负数".
_SIGN_WORDS = (
    (lazy_pattern(r"(?:为|是)?\s*非负(?:的)?(?:整数|数值|数|值)?(?:的)?|\b(?:be\s+)?(?:an?\s+)?non-?negative(?:\s+(?:integers?|numbers?|values?))?",
                re.I), "大于等于0"),
    (lazy_pattern(r"(?:为|是)\s*正(?:整数|数)|\b(?:be\s+)?(?:an?\s+)?positive\s+(?:integers?|numbers?)", re.I), "大于0"),
    (lazy_pattern(r"(?:不可以|不可|不能|不得|不应|不允许)(?:为|是)\s*负(?:整数|数值|数)|\b(?:must|should)\s+not\s+be\s+negative\b",
                re.I), "大于等于0"),
    (lazy_pattern(r"(?:为|是)\s*负(?:整数|数值|数)|(?<=中)\s*(?:存在|有|含有)\s*负(?:整数|数值|数)|"
                r"\b(?:is|are)\s+(?:an?\s+)?negative(?:\s+(?:integers?|numbers?|values?))?\b", re.I), "小于0"),
)


def _signs_as_comparisons(sentence: str) -> str:
    for pattern, comparison in _SIGN_WORDS:
        sentence = pattern.sub(comparison, sentence)
    return sentence


# A constraints line's opening name ("autoPad：..."), and a name as an operand (no part of an expression).
_OPENING_NAME = NamedPattern(rf"^\s*(?P<name>{NAME})\s*:")
_OPERAND_NAME = NamedPattern(rf"{_NOT_AN_OPERAND}{NAME}")


def comparison_ranges(params: Mapping[str, Param], sentence: str, subject: Optional[str],
                      error_row: bool, line: int, spans: Optional[Mapping[str, int]] = None) -> list[ValueRange]:
    """The ranges one sentence states. `subject`: the row's parameter, which a clause naming nothing
    speaks of. `spans`: the longest length each array may have, the dimensions its elements stand
    for where a bound is "the corresponding dimension" and names no letters."""
    spans = spans or {}
    sentence = _signs_as_comparisons(sentence)
    if not _SOME_COMPARISON.search(sentence) and not _VALUE_LIST.search(sentence):
        return []
    if _CONDITIONAL.search(sentence) or CONDITION.search(sentence) or vocab.socs_in(sentence):
        return []  # "fp16数据类型, step、size大于72", "若保持精度, 则eps需大于等于1e-5"
    names = _names_in(sentence, params)
    if error_row and _CONJUNCTION.search(sentence):
        return []  # "self为空Tensor, 且numClasses小于等于0": refused when both hold, not either
    if subject is None and not error_row:
        # A constraints line "autoPad：其中0代表NOTSET，并且只支持数值0" speaks of the name it opens with.
        opening = _OPENING_NAME.match(names, sentence)
        subject = opening.group("name") if opening else None
    out: list[ValueRange] = [] if error_row else list(_listed(params, sentence, subject, line))
    start = 0
    for clause in _CLAUSES.split(sentence):
        tail, start = sentence[start:], start + len(clause) + 1  # the clause and what follows it
        if _ADVICE.search(clause):
            continue
        out.extend(_chained(params, names, clause, error_row, line))
        out.extend(_named(params, names, clause, error_row, line, spans))
        if error_row:
            out.extend(_beyond_part(params, names, clause, line))
        if not error_row:
            out.extend(_only(params, names, clause, tail, subject, line))
        if subject is not None and not error_row:
            out.extend(_anchored(params, names, clause, subject, line))
            out.extend(_corresponding(params, names, clause, subject, line, spans))
            out.extend(_element_groups(params, names, clause, subject, line))
    return out


# Which elements of an array a clause speaks of, as ValueRange.elements: "前两个数值" (0, 2), "中间两个"
# (2, 2), "后两个" (-2, 2); "两个数值都" every element. The 2d backward page's "前两维度的数值" means
# its first two values too.
_GROUPS = {"前两": (0, 2), "中间两": (2, 2), "后两": (-2, 2), "两": None}


_ELEMENT_GROUPS = NamedPattern(
    rf"^\s*(?:(?P<name>{NAME})\s*(?:的)?)?\s*(?P<group>{'|'.join(sorted(_GROUPS, key=len, reverse=True))})(?:个|维度的)\s*"
    rf"(?:数值|值|元素)\s*(?:都|均)?\s*(?:需要|需|必须|应)?\s*(?:{_COMPARATOR})\s*(?P<bound>(?:{NAME}){_FROM_END})\s*(?:的)?\s*"
    rf"(?:数值|值|大小)(?={_AFTER.format(disjunction='')})")


def _element_groups(params: Mapping[str, Param], names: frozenset[str], clause: str, subject: str,
                    line: int) -> Iterable[ValueRange]:
    """A row's clause bounding some elements of its array by a dimension of a tensor counted from the
    end: "padding前两个数值需小于self最后一维度的数值", "后两个数值需小于self倒数第二维度的数值" (the
    reflection pads' rows), "padding的两个数值都需小于self最后一维度的数值"."""
    match = _ELEMENT_GROUPS.match(names, clause)
    if match is None:
        return
    name = match.group("name") or subject
    array = params.get(name)
    bound = _bound_of(params, match.group("bound"))
    if array is None or array.kind is not ParamKind.INT_ARRAY or bound is None:
        return
    found = _range(array, _relation(match), bound, line, False)
    if found is not None:
        yield replace(found, elements=_GROUPS[match.group("group")])


# "只支持数值0", "仅支持取值2", "只能为1", "can only be set to 0", "only supports 1": one value.
_ONLY = (r"(?:(?:只|仅)(?:支持设置为|支持|能设置为|能为|能取|能是|可为|可以为|可以是)(?:取值为|数值|取值|值|为|配置为)?|"
         r"can\s+only\s+be(?:\s+set\s+to)?|only\s+supports?(?:\s+the\s+value)?)")


# "仅支持0,1,2三个值": a list, which the clauses split apart ("长度仅支持1、2，值仅支持1" has one of each).
_ONLY_LIST = lazy_pattern(rf"{_ONLY}\s*(?:{_NUMBER})\s*(?:[,，、/~]|或者|或|和|及|至|到|\bor\b|\band\b|\bto\b)\s*(?:{_NUMBER})",
                        re.I)


# A list of the values an integer takes: "仅支持0,1,2三个值", "支持取值0、1和2", "当前只支持 1 和 2",
# "取值范围是0('none')、1('tanh')", "取值范围为：[0, 1, 2]", "取值范围为{34, 35, 36}". A bracketed pair
# is an interval (the bracket reader's), so brackets hold three values or more, braces two or more.
_LIST_LEAD = (rf"(?:{_ONLY}(?:传入(?:的)?(?:值|数值)为)?|支持取值(?:为)?|取值范围(?:为|是)?|取值(?:为|是)|the\s+value\s+range\s+is|valid\s+values\s+are)"
              r"\s*[:：]?\s*")
_LISTED = r"[-+]?\d+(?:\s*\(\s*['\"“]?\w+['\"”]?\s*\))?"  # a number, and the name it stands for: 1('tanh')
_LIST_SEPARATOR = r"\s*(?:,|，|、|或者|或|和|及|/|\bor\b|\band\b)\s*"
_VALUE_LIST = lazy_pattern(
    rf"{_LIST_LEAD}(?:\[\s*(?P<bracketed>{_LISTED}(?:{_LIST_SEPARATOR}{_LISTED}){{2,}})\s*\]|"
    rf"\{{\s*(?P<braced>{_LISTED}(?:{_LIST_SEPARATOR}{_LISTED})+)\s*\}}|"
    rf"(?P<bare>{_LISTED}(?:{_LIST_SEPARATOR}{_LISTED})+))"
    r"(?=\s*(?:$|[,，。;；:：]|[两三四五六七八九]个值|分别|\(|（|其他|其它))", re.I)
# A code name that is no parameter's ("dstType", "ep_size", "H"), before a list on another's row; in
# Chinese prose, any ASCII word ("ep、tp均仅支持...").
_CJK = lazy_pattern(r"[\u4e00-\u9fff]")
_OTHER_NAME = lazy_pattern(r"(?<![A-Za-z0-9_])(?:[a-z]+[A-Z]\w*|[A-Za-z]+_\w+|[A-Z])(?![A-Za-z0-9_])")
# What a list of part of the argument names before its lead ("长度仅支持1、2").
_LIST_PART = lazy_pattern(r"长度|个数|维度|维数|length|size|rank|number\s+of", re.I)


def listed_values(params: Mapping[str, Param], sentence: str, subject: Optional[str]) -> list[tuple[str, list[int]]]:
    """The integers whose text lists their values, with the values, ascending. `subject`: the row's
    parameter, which a list naming nothing speaks of."""
    if not _VALUE_LIST.search(sentence):
        return []
    names = _names_in(sentence, params)
    found = []
    for match in _VALUE_LIST.finditer(sentence):
        before = re.split(r"[,，。;；]", sentence[:match.start()])[-1]
        named = [m.group(0) for m in _OPERAND_NAME.finditer(names, before)]
        if not named and (_OTHER_NAME.search(before) or (_CJK.search(before) and _IDENTIFIER.search(before))):
            continue  # "ep、tp均仅支持2、4、8": a name that is no parameter, not the row's own
        if re.search(r"[=＝]", before):
            continue  # "高性能模式(mode=0)额外限制: dim取值为0或-2": under a condition of another argument
        name = named[-1] if named else subject  # the name closest to the list
        if name is None or name not in params or params[name].kind not in (ParamKind.INT, ParamKind.INT_ARRAY):
            continue
        if _LIST_PART.search(before.split(name)[-1] if named else before):
            continue
        text = match.group("bracketed") or match.group("braced") or match.group("bare")
        values = sorted({int(v) for v in re.findall(r"(?<![A-Za-z0-9_(])[-+]?\d+(?![A-Za-z0-9_.])",
                                                    re.sub(r"\([^)]*\)", " ", text))})
        if len(values) >= 2:
            found.append((name, values))
    return found


# An error row refusing an integer outside the values it lists: "mode的值不在0、1、2范围内", "reduction值不在0~2
# 范围之内", "`reduction` 不在 `0/1/2` 范围内", "传入的mode参数不在0、1、2、3范围内", "dstType取值不在{34, 35, 36}范围
# 之内", "reduce不在支持范围内，必须属于{0, 1, 2, 3, 4, 5}". The whole row is the refusal: nothing else may follow.
_OUTSIDE_LISTED = NamedPattern(
    rf"^\s*{_LEAD}\s*`?(?P<name>{NAME})`?\s*(?:的)?\s*(?:参数|取值|数值|值)?\s*不在\s*"
    rf"(?:`?(?P<bare>{_LISTED}(?:{_LIST_SEPARATOR}{_LISTED})+)`?|\{{\s*(?P<braced>{_LISTED}(?:{_LIST_SEPARATOR}{_LISTED})+)\s*\}}|"
    r"(?P<low>[-+]?\d+)\s*[~～]\s*(?P<high>[-+]?\d+)|支持(?:的)?)\s*(?:的)?\s*(?:取值)?范围(?:之)?(?:内|中)"
    r"(?:\s*[,，]\s*必须属于\s*\{\s*(?P<must>[-+]?\d+(?:\s*[,，、]\s*[-+]?\d+)+)\s*\})?\s*[。.]?\s*$")


def values_outside_refused(params: Mapping[str, Param], row: str) -> Optional[tuple[str, list[int]]]:
    """The integer an error row refuses outside the values it lists, with the values, ascending; None for
    any other row (a row of "不在支持范围内" alone lists none)."""
    if "不在" not in row:
        return None
    match = _OUTSIDE_LISTED.search(_names_in(row, params), row)
    if match is None or params[match.group("name")].kind not in (ParamKind.INT, ParamKind.INT_ARRAY):
        return None
    if match.group("low") is not None:
        low, high = int(match.group("low")), int(match.group("high"))
        return (match.group("name"), list(range(low, high + 1))) if low <= high else None
    text = match.group("bare") or match.group("braced") or match.group("must")
    if text is None:
        return None
    values = sorted({int(v) for v in re.findall(r"[-+]?\d+", re.sub(r"\([^)]*\)", " ", text))})
    return (match.group("name"), values) if len(values) >= 2 else None


# An error row refusing a dimension index outside a tensor's dimensions: "dim值不在self维度范围内", "dim超出输入self
# 的维度范围时", "dim的取值不在输入tensor self的维度范围中". The whole row is the refusal.
_OUTSIDE_DIMENSIONS = NamedPattern(
    rf"^\s*{_LEAD}\s*(?P<name>{NAME})\s*(?:的)?\s*(?:取值|数值|值)?\s*(?:不在|超出|超过)\s*(?:输入)?\s*(?:tensor)?\s*"
    rf"(?P<tensor>{NAME})\s*(?:的)?\s*维度范围(?:之)?(?:内|中)?\s*(?:时)?\s*[。.]?\s*$", re.I)
# "在0和1之间" of an error row refusing what is not: "prob的值不在0和1之间", "p的值不在0和1之间".
_OUTSIDE_BETWEEN = NamedPattern(
    rf"^\s*{_LEAD}\s*(?P<name>{NAME})\s*(?:的)?\s*(?:取值|数值|值)?\s*不在\s*(?P<low>{_NUMBER})\s*(?:和|与|到|至|~|～)\s*"
    rf"(?P<high>{_NUMBER})\s*(?:之间|的范围内|范围内)\s*[。.]?\s*$")


def range_outside_refused(params: Mapping[str, Param], row: str) -> Optional[ValueRange]:
    """The range of an error row that refuses a host argument outside it, its whole text: a dimension index
    outside a tensor's dimensions ([-rank, rank - 1], a 0-d tensor's rank counting as 1, as every range of
    Extent.RANK does), or a number outside two ("不在0和1之间", both ends included); None for any other row."""
    if "不在" not in row and "超" not in row:
        return None
    names = _names_in(row, params)
    dims = _OUTSIDE_DIMENSIONS.search(names, row)
    if dims is not None:
        name, tensor = dims.group("name"), dims.group("tensor")
        if params[name].kind is not ParamKind.INT or params[tensor].kind is not ParamKind.TENSOR:
            return None
        return ValueRange(name, Bound(extent=Extent.RANK, sign=-1, tensor=tensor),
                          Bound(offset=-1.0, extent=Extent.RANK, tensor=tensor))
    between = _OUTSIDE_BETWEEN.search(names, row)
    if between is None or params[between.group("name")].kind not in _VALUED:
        return None
    low, high = (_bound_of(params, between.group(g)) for g in ("low", "high"))
    if low is None or high is None or low.extent is not Extent.NUMBER or high.extent is not Extent.NUMBER or \
            low.offset > high.offset:
        return None
    return ValueRange(between.group("name"), low, high)


def consecutive(values: list[int]) -> bool:
    return values == list(range(values[0], values[-1] + 1))


def _listed(params: Mapping[str, Param], sentence: str, subject: Optional[str], line: int) -> Iterable[ValueRange]:
    """The range of an integer whose text lists its values, when they are consecutive: {0, 1, 2} is
    [0, 2]. Other lists ({-1, 1}, {2, 34, 35, 36}) give no range, which would admit what they leave
    out: gen.parse.extractors.rules reads them as a ValueSet."""
    for name, values in listed_values(params, sentence, subject):
        if consecutive(values):
            yield ValueRange(name, low=Bound(offset=float(values[0])), high=Bound(offset=float(values[-1])), line=line)


def _names_in(sentence: str, params: Mapping[str, Param]) -> frozenset[str]:
    """The parameter names the sentence holds, which the readers' patterns name (`NamedPattern`).
    Not every name of the API: where a pattern must spell them out, it matches them at each position
    of every sentence, and a page of 10,000 parameters made that quadratic
    (tests/fuzz/test_fuzz_parser.py)."""
    return frozenset(word for word in _IDENTIFIER.findall(sentence) if word in params)


# "当前仅支持-1，传其他值均不生效" (aclnnAddRmsNormQuant's axis): other values are taken and have no effect, no refusal.
_NO_EFFECT = lazy_pattern(r"不生效|不会生效|无效果|不起作用|被忽略|\bno\s+effect\b|\bignored\b", re.I)
_ONLY_NAMED = NamedPattern(
    rf"{_NOT_AN_OPERAND}(?P<name>{NAME}){_FILLER}\s*{_ONLY}\s*(?P<value>{_NUMBER})(?={_AFTER.format(disjunction='')})", re.I)
_ONLY_ANCHORED = lazy_pattern(rf"{_ANCHOR}{_ONLY}\s*(?P<value>{_NUMBER})(?={_AFTER.format(disjunction='')})", re.I)


def _only(params: Mapping[str, Param], names: frozenset[str], clause: str, tail: str, subject: Optional[str],
          line: int) -> Iterable[ValueRange]:
    """`tail`: the clause and the rest of its sentence, where a list the clauses split continues."""
    word = re.search(_ONLY, clause, re.I)
    if word is None or _ONLY_LIST.match(tail, word.start()) or _NO_EFFECT.search(tail):
        return
    named = _ONLY_NAMED.search(names, clause)
    if named is not None:
        name, value = named.group("name"), named.group("value")
    else:
        anchored = _ONLY_ANCHORED.match(clause)
        if anchored is None or subject is None:
            return
        name, value = subject, anchored.group("value")
    param = params.get(name)
    if param is None or param.kind not in (ParamKind.INT, ParamKind.INT_ARRAY, ParamKind.FLOAT):
        return
    bound = _bound_of(params, value)
    if bound is not None:
        yield ValueRange(name, low=bound, high=bound, line=line)


def _relation(match: re.Match) -> str:
    return next(rel for i, (_, rel) in enumerate(_COMPARATORS) if match.group(f"c{i}"))


def _bound_of(params: Mapping[str, Param], text: str, span: int = 0) -> Optional[Bound]:
    """A bound's term: a number or a host argument's name; None for anything else. `span`: the
    dimensions the bounded array's elements stand for, where the term is "the corresponding dimension"."""
    text = text.strip()
    corresponding = re.fullmatch(rf"([A-Za-z_]\w*){_CORRESPONDING}", text)
    if corresponding is not None:  # "self对应维度上": the dimension the element stands for
        param = params.get(corresponding.group(1))
        count = len(corresponding.group("letters") or "") or span
        if param is None or param.kind is not ParamKind.TENSOR or count < 1:
            return None
        return Bound(extent=Extent.DIMENSION, tensor=corresponding.group(1), axis=str(-count))
    rank = re.fullmatch(rf"(-?)\s*([A-Za-z_]\w*){_RANK_OF}", text)
    if rank is not None:  # "dim >= self.dim()", "dim < -self.dim()"
        param = params.get(rank.group(2))
        if param is None or param.kind is not ParamKind.TENSOR:
            return None
        return Bound(extent=Extent.RANK, sign=-1 if rank.group(1) else 1, tensor=rank.group(2))
    if re.fullmatch(_NUMBER, text):
        return Bound(offset=0.0 if text == "零" else float(text))
    size = re.fullmatch(rf"([A-Za-z_]\w*){_FROM_END}", text)
    if size is not None:  # "self最后一维度": the size of a dimension counted from the end
        param = params.get(size.group(1))
        if param is None or param.kind is not ParamKind.TENSOR:
            return None
        return Bound(extent=Extent.SIZE, tensor=size.group(1), axis=str(-_NTH_FROM_END[size.group("nth")]))
    quotient = re.fullmatch(_QUOTIENT, text)
    if quotient is not None:  # "kernelSize/2": the same element of another array, halved
        array = params.get(quotient.group(1))
        if array is None or array.kind is not ParamKind.INT_ARRAY or int(quotient.group(2)) < 1:
            return None
        return Bound(extent=Extent.ELEMENT, tensor=quotient.group(1), divisor=int(quotient.group(2)))
    param = params.get(text)
    if param is not None and param.kind in _VALUED:
        return Bound(extent=Extent.VALUE, tensor=text)
    return None


def _range(param: Param, relation: str, bound: Bound, line: int, error_row: bool) -> Optional[ValueRange]:
    if param.kind not in _BOUNDED or bound.tensor == param.name:
        return None
    if param.kind is ParamKind.SCALAR and not error_row:
        # An aclScalar's value is checked where the error table says so (aclnnHistc's "传入的min大于
        # max"); aclnnInplaceAdds' row "other: 取值范围需大于0" is no check of CANN's.
        return None
    if bound.extent is Extent.VALUE and param.kind is ParamKind.INT_ARRAY:
        return None  # an array's elements against one value: no page states it so
    if bound.extent in (Extent.ELEMENT, Extent.DIMENSION) and param.kind is not ParamKind.INT_ARRAY:
        return None  # one value against an array's element: no page states it so
    inclusive = relation in (">=", "<=")
    bound = replace(bound, inclusive=inclusive)
    if relation in (">=", ">"):
        return ValueRange(param.name, low=bound, line=line)
    return ValueRange(param.name, high=bound, line=line)


def _named_patterns(disjunction: str) -> tuple[NamedPattern, NamedPattern]:
    """The comparison that names what it bounds, and another side of it after "或" (an error row's):
    `disjunction` is what else may end a bound."""
    after = _AFTER.format(disjunction=disjunction)
    bound_text = (rf"{_BOUND_LEAD}(?P<bound>{_QUOTIENT}|{_NUMBER}|-?\s*{NAME}{_RANK_OF}|(?:{NAME}){_FROM_END}|"
                  rf"(?:{NAME}){_CORRESPONDING.replace('?P<letters>', '?:')}|{NAME})")
    return (NamedPattern(rf"{_NOT_AN_OPERAND}(?:{_LEAD})(?P<names>{name_list(_SEPARATOR)}){_FILLER}\s*"
                         rf"(?:{_COMPARATOR})\s*{bound_text}(?={after})", re.I),
            NamedPattern(rf"\s*(?:或者|或|\bor\b)\s*(?:{_COMPARATOR})\s*{bound_text}(?={after})", re.I))


# In a requirement, and in an error row, where a disjunction ends a bound (either side is refused).
_NAMED = {False: _named_patterns(""), True: _named_patterns(r"|或者|或|\bor\b")}


def _named(params: Mapping[str, Param], names: frozenset[str], clause: str, error_row: bool,
           line: int, spans: Mapping[str, int]) -> Iterable[ValueRange]:
    """"group需大于0", "n或m的值小于0" (an error row: refused when so), "min不能大于max",
    "kernelSize存在某维度的值...大于self对应维度上的值" (each element against the dimension it stands for)."""
    named, other_side = _NAMED[error_row]
    for match in named.finditer(names, clause):
        if _PART_OF.search(clause[:match.start("names")].rstrip()):
            continue
        if error_row and re.search(r"不满足|不在|不符合|not\s+(?:meet|satisf)", clause[:match.start()]):
            continue  # "prob不满足0≤prob≤1": _chained reads it
        # An error row refuses either side of a disjunction of the same names: "padding的数值中存在小于0
        # 或者大于kernelSize/2".
        sides, at = [match], match.end()
        while error_row:
            more = other_side.match(names, clause, at)
            if more is None:
                break
            sides.append(more)
            at = more.end()
        for side in sides:
            relation = _NEGATION[_relation(side)] if error_row else _relation(side)
            for name in (m.group(0) for m in name_matches(names, match.group("names"))):
                bound = _bound_of(params, side.group("bound"), spans.get(name, 0))
                if bound is None:
                    continue
                found = _range(params[name], relation, bound, line, error_row)
                if found is not None:
                    yield found


_BEYOND_PART = NamedPattern(rf"{_NOT_AN_OPERAND}(?:{_LEAD})(?P<name>{NAME})\s*(?:的值|的数值)?\s*超过\s*(?P<other>{NAME})\s*"
                            rf"对应(?:位置|维度)的?\s*1\s*/\s*(?P<divisor>[1-9]\d*)")


def _beyond_part(params: Mapping[str, Param], names: frozenset[str], clause: str, line: int) -> Iterable[ValueRange]:
    """An error row's "属性padding超过kernelSize对应位置的1/2": each element of one array at most
    the same element of another, divided (refused beyond it)."""
    for match in _BEYOND_PART.finditer(names, clause):
        bound = _bound_of(params, f"{match.group('other')}/{match.group('divisor')}")
        if bound is None:
            continue
        found = _range(params[match.group("name")], "<=", bound, line, True)
        if found is not None:
            yield found


_ANCHORED = NamedPattern(rf"{_ANCHOR}(?:{_COMPARATOR})\s*{_BOUND_LEAD}(?P<bound>{_QUOTIENT}|{_NUMBER}|{NAME})"
                         rf"(?={_AFTER.format(disjunction='')})", re.I)


def _anchored(params: Mapping[str, Param], names: frozenset[str], clause: str, subject: str,
              line: int) -> Iterable[ValueRange]:
    """A row's clause that names nothing before its comparator: "数值必须大于0", "取值范围 >= 1"."""
    match = _ANCHORED.match(names, clause)
    if match is None or subject not in params:
        return
    bound = _bound_of(params, match.group("bound"))
    if bound is not None:
        found = _range(params[subject], _relation(match), bound, line, False)
        if found is not None:
            yield found
    # "大于等于0且小于等于kernelSize/2": the other end, in a comparison of its own.
    rest = clause[match.end():]
    if re.match(r"\s*(?:且|并且|\band\b)", rest, re.I):
        yield from _anchored(params, names, rest, subject, line)


_CORRESPONDING_CLAUSE = NamedPattern(
    rf"(?:^|且|并且)\s*(?:在)?\s*对应(?:的)?\s*(?P<letters>[DHWL]{{1,3}})?\s*(?:维度|维)\s*上\s*(?:{_MODAL})\s*"
    rf"(?:{_COMPARATOR})\s*(?P<tensor>{NAME})\s*(?:的)?\s*(?:大小|数值|值|size)(?={_AFTER.format(disjunction='')})")
_CORRESPONDING_CLAUSE_EN = NamedPattern(
    rf"(?:{_COMPARATOR})\s+the\s+(?:value|size)\s+of\s+the\s+corresponding\s+dimension\s+of\s+(?:the\s+)?"
    rf"(?P<tensor>input|{NAME})(?![A-Za-z0-9_])", re.I)


def _corresponding(params: Mapping[str, Param], names: frozenset[str], clause: str, subject: str, line: int,
                   spans: Mapping[str, int]) -> Iterable[ValueRange]:
    """A row's clause bounding each element of its array by the dimension of a tensor it stands for:
    "数值必须大于0且在对应的DHW维度上小于等于self的大小" (aclnnAvgPool3d's kernelSize), "The value must be
    greater than 0 and less than or equal to the value of the corresponding dimension of the input"."""
    match = _CORRESPONDING_CLAUSE.search(names, clause) or _CORRESPONDING_CLAUSE_EN.search(names, clause)
    array = params.get(subject)
    if match is None or array is None or array.kind is not ParamKind.INT_ARRAY:
        return
    # "the input": the API's one input tensor.
    inputs = [p.name for p in params.values() if p.kind is ParamKind.TENSOR and p.direction is Direction.IN]
    tensor = match.group("tensor")
    tensor = (inputs[0] if len(inputs) == 1 else "") if tensor.lower() == "input" and tensor not in params else tensor
    letters = match.groupdict().get("letters") or ""
    bound = _bound_of(params, f"{tensor}对应{letters}维度", spans.get(subject, 0))
    if bound is not None:
        found = _range(array, _relation(match), bound, line, False)
        if found is not None:
            yield found


_LOW_CMP = r"(?P<low_op><=|≤|<|＜)"
_HIGH_CMP = r"(?P<high_op><=|≤|<|＜)"
# What every reader above looks for: a sentence without any is read no further.
_SOME_COMPARISON = lazy_pattern(rf"{_COMPARATOR}|{_ONLY}|<|≤|＜", re.I)


_CHAINED = NamedPattern(rf"(?P<low>{_NUMBER})\s*{_LOW_CMP}\s*(?P<name>{NAME})\s*{_HIGH_CMP}\s*(?P<high>{_NUMBER})(?![\d.])")


def _chained(params: Mapping[str, Param], names: frozenset[str], clause: str, error_row: bool,
             line: int) -> Iterable[ValueRange]:
    """"0≤prob≤1": both bounds at once (an error row's "prob不满足0≤prob≤1" states the same)."""
    for match in _CHAINED.finditer(names, clause):
        if error_row and not re.search(r"不满足|不在|不符合|not\s+(?:meet|satisf|in)", clause[:match.start()]):
            continue
        param = params[match.group("name")]
        if param.kind not in _BOUNDED or (param.kind is ParamKind.SCALAR and not error_row):
            continue
        low, high = _bound_of(params, match.group("low")), _bound_of(params, match.group("high"))
        if low is None or high is None:
            continue
        yield ValueRange(param.name, low=replace(low, inclusive=match.group("low_op") in ("<=", "≤")),
                         high=replace(high, inclusive=match.group("high_op") in ("<=", "≤")), line=line)


def ranges_the_example_keeps(api: API, diags: list[Diagnostic]) -> API:
    """`api` without the value ranges (of numbers, or of other arguments' values) and sets that its
    page's own example breaks: the page contradicts itself there (aclnnAdvanceStepV2's row says
    "numSeqs的值大于输入numQueries的值", its error table refuses numSeqs "不等于" numQueries, and its
    example passes both as 8), and a call the page shows is never refused."""
    if api.example_call is None or not (api.value_ranges or api.value_sets):
        return api
    given = {arg.param: arg.values for arg in api.example_call.args if arg.shape is None}
    singles = {name: values[0] for name, values in given.items() if len(values) == 1}

    def kept(rules: tuple, broken_by: Callable[[Any], Optional[float]]) -> tuple:
        out = []
        for rule in rules:
            broken = broken_by(rule)
            if broken is None:
                out.append(rule)
                continue
            diags.append(Diagnostic(Level.INFO, rule.line, "example-breaks-range",
                                    f"{api.name}: the page's example passes {rule.param} = {broken:g}, outside "
                                    f"{rule.describe()}: the simulator does not check it"))
        return tuple(out)

    ranges = kept(api.value_ranges,
                  lambda rule: next((v for v in given.get(rule.param, ()) if rule.refuses(v, singles)), None))
    sets = kept(api.value_sets, lambda rule: next((v for v in given.get(rule.param, ()) if rule.refuses(v, singles)), None))
    if ranges == api.value_ranges and sets == api.value_sets:
        return api
    return replace(api, value_ranges=ranges, value_sets=sets)
