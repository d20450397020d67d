"""What an error condition is about (`ErrorCategory`), from its wording.

A test generator turns each classified row into a call that must fail with the row's status,
so a wrong category is worse than none: a condition is classified only when its wording says
one thing plainly. Conditions that hinge on another fact ("当x为INT8时，y的shape...") are left
unclassified unless they are about values alone.
"""

from __future__ import annotations

import re
from typing import Optional

from gen.ir import ErrorCategory
from gen.parse.extractors.prose import names_in
from gen.parse.extractors.vocab import WHEN
from gen.parse.patterns import lazy_pattern

# What a row says of a null pointer, whether or not it is the row's whole condition (gen.conventions
# reads the conditional rows' too).
NULL_POINTER_WORDS = r"空指针|nullptr|null\s*pointer|\bis\s+null\b|为NULL|为空指针"

_RULES: tuple[tuple[ErrorCategory, re.Pattern[str]], ...] = tuple((cat, lazy_pattern(p, re.I)) for cat, p in (
    (ErrorCategory.NULL_POINTER, NULL_POINTER_WORDS),
    (ErrorCategory.UNSUPPORTED_PRODUCT, r"产品(?:型号)?不支持|不支持(?:该|当前)?(?:产品|芯片|设备|SoC)|当前(?:设备|芯片|产品)不|"
                                        r"(?:product|chip|SoC|platform|device)\s+(?:is\s+)?not\s+supported|"
                                        r"not\s+supported\s+(?:on|by)\s+(?:the\s+)?(?:current\s+)?(?:product|chip|SoC|platform|device)"),
    # Inputs without a common (promoted) dtype are read as not castable too: no dtype exists that
    # they all cast to. The simulator checks both in one step (tests/support/sim_seed_ir.py reads 003 so).
    (ErrorCategory.NOT_CASTABLE, r"无法转换|不能转换|不可转换|无法cast|不能cast|cannot\s+be\s+(?:converted|cast)|"
                                 r"can(?:'|no)t\s+(?:be\s+)?(?:converted|cast)|not\s+castable|不满足.{0,6}转换|"
                                 r"不满足(?:数据类型)?(?:推导规则|互推导关系)|无法(?:进行|做)?(?:数据类型)?推导|"
                                 r"cannot\s+be\s+deduced|(?:do|does)\s+not\s+meet\s+the\s+(?:type\s+|data\s+type\s+)?deduction|"
                                 r"不是[^。；，,]{1,30}?可转换的"),  # "out的数据类型不是self可转换的"
    (ErrorCategory.BROADCAST, r"broadcast"),
    # "通过公式推导出的out的shape的某个轴为0": an output the op's own arithmetic sizes (a pool's window)
    # has a dimension below 1; "pad中每个值都不能让out的shape小于0，如果pad中存在正数，则out的shape中不能有0"
    # (aclnnConstantPadNd) says it of the padded shape.
    (ErrorCategory.OUTPUT_SIZE, r"(?:推导|计算)(?:出|得到)?的[^。；，,]{0,12}shape[^。；，,]{0,6}某(?:个|一)?(?:轴|维)[^。；，,]{0,6}"
                                r"(?:为0|小于[01]|等于0)|(?:derived|computed|calculated)\s+output\s+shape[^.;]{0,40}"
                                r"(?:is\s+0|are\s+0|less\s+than\s+[01])|"
                                r"不能让(?:out|输出)的shape小于0|(?:out|输出)的shape中不能(?:有|存在|出现)0"),
    (ErrorCategory.EMPTY_TENSOR, r"空Tensor|空tensor|空张量|empty\s+tensor"),
    (ErrorCategory.UNSUPPORTED_DTYPE, r"数据类型(?:[和或、与及]数据格式)?(?:不在|不属于|不满足)?.{0,4}支持(?:的)?(?:范围|列表)|数据类型不支持|"
                                      r"不支持的数据类型|data\s*types?\s+(?:of\s+\S+\s+)?(?:is|are)\s+not\s+(?:in\s+the\s+)?supported|"
                                      r"data\s*types?.{0,40}not\s+(?:with)?in\s+the\s+supported|unsupported\s+data\s*type|"
                                      r"data\s*types?(?:\s+or\s+formats?)?\s+of\s+[^.;]{1,80}?(?:is|are)\s+not\s+supported|"
                                      r"data\s*types?.{0,30}(?:is|are)\s+not\s+supported"),
    (ErrorCategory.FORMAT, r"数据格式(?:不在|不属于)?.{0,4}支持(?:的)?(?:范围|列表)|数据格式不支持|不支持的数据格式|"
                           r"formats?\s+(?:is|are)\s+not\s+supported|formats?.{0,30}not\s+(?:with)?in\s+the\s+supported"),
    (ErrorCategory.RANK, r"(?:维度|维数)(?:数|数量)?\s*(?:超过|大于|小于|不等于|不为|不是|不在|超出|不满足)|"
                         r"(?:超过|大于|小于|不是|不为|不等于|高于|低于|不支持)\s*\d+\s*维|shape(?:的)?(?:维度|维数)|"
                         r"shape\s*dim\s*(?:数)?\s*(?:超过|大于|小于)|维度范围(?:超过|超出|大于)|"
                         r"(?:dimensions?|rank|dim\s+number)[^.;,]{0,30}(?:exceeds?|greater\s+than|more\s+than|less\s+than|not\s+in)|"
                         r"(?:more|greater)\s+than\s+\d+\s+dimensions|exceeds?\s+\d+\s+dimensions|"
                         r"number\s+of\s+dimensions\s+of\s+\S+\s+is\s+(?:greater|less|more)\s+than|"
                         r"shape[^.;]{0,10}(?:exceeds?|greater\s+than)\s+\d+\s*(?:D\b|dimensions)"),
    # "（x1、x2、yOut、xOut）的shape不是完全相同的shape" (aclnnAddLayerNorm): not all one shape.
    (ErrorCategory.SHAPE_MISMATCH, r"(?:shape|形状)[^。；]{0,12}(?:不一致|不相同|不同|不匹配|不相等|(?:不是|并非)完全相同)|"
                                   r"shapes?\s+(?:of\s+.{1,40}?\s+)?(?:are|is)\s+(?:not\s+the\s+same|different|inconsistent|mismatched)|"
                                   r"shapes?\s+(?:do\s+not|does\s+not|don't)\s+match|shape\s+mismatch"),
    # A row opening on a parameter's name compared ("step小于等于0", "dim不等于len(inputSizes)-1且...",
    # "from大于to"): its values. Only an ASCII name: "kernelSize的长度不等于1" is a length.
    (ErrorCategory.VALUE, r"^[A-Za-z_][A-Za-z0-9_]*\s*(?:小于|大于|不等于|等于)|"
                          r"取值|(?:值|数值)(?:不在|超出|不满足|小于|大于|为负|不合法|不是|不为|不等于)|负数|超出.{0,6}取值范围|"
                          r"\bvalues?\b.{0,30}(?:out\s+of|not\s+in|exceeds?|less\s+than|greater\s+than|negative|invalid)|"
                          r"\bout\s+of\s+range|\bnegative\b"),
    # "gradOutput和self数据类型不同": the tensors it names must share one dtype. Last: a row that also
    # states another condition ("数据类型不一致或数据格式不在支持的范围") keeps that one.
    (ErrorCategory.DTYPE_MISMATCH, r"数据类型[^。；]{0,12}(?:不一致|不相同|不同|不匹配)|"
                                   r"(?:data\s*types?|dtypes?)\s+(?:of\s+.{1,60}?\s+)?(?:are|is)\s+(?:not\s+the\s+same|different|inconsistent)|"
                                   r"(?:data\s*types?|dtypes?)\s+(?:do|does)\s+not\s+match|dtype\s+mismatch"),
))

_CONDITIONAL = lazy_pattern(WHEN + r".{1,40}时|.{1,40}时[，,]|\bwhen\b|\bif\b", re.I)
_NOT_EMPTY = lazy_pattern(r"非空|不是空|不为空|non-empty|not\s+(?:an?\s+)?(?:[\w-]+\s+or\s+)?empty", re.I)
_NOT_NULL = lazy_pattern(r"不(?:是|为)空指针|非空指针|不为空|is\s+not\s+(?:a\s+)?null", re.I)
# A pointer the call must give: the general null-pointer row of many pages ("The required input,
# output, or attribute is passed as a null pointer").
_REQUIRED_POINTER = lazy_pattern(r"必选(?:输入|输出|属性|参数)|\brequired\s+(?:input|output|attribute|parameter)", re.I)
_CONJUNCTION = lazy_pattern(r"且|\band\b.{0,40}\b(?:is|are)\s+(?:a\s+)?null", re.I)
# "A，且B" / "A and B is null": the condition needs two facts; a call provoking one fails for another
# reason or not at all.
_BOTH = lazy_pattern(r"且|场景下|情况下")
_IS_ARE = lazy_pattern(r"\b(?:is|are)\b", re.I)
_AND = lazy_pattern(r"\sand\s", re.I)
_NOT_VALUE_WORDS = lazy_pattern(r"数据类型|数据格式|shape|维度|broadcast|data\s*type|format|dimension", re.I)
# A value outside the range a row names without saying "取值" ("dim超出范围", "dim超出self维度范围",
# "dim不在合法范围内", "dim超过tensor维度范围", "传入的layout参数不在支持范围内", "dim越界"), or array elements
# below a bound ("kernelSize、dilation或stride存在值等于或小于0的元素", "padding存在小于0的元素"): the values of
# the parameters it names. Not a range of dtypes, formats, shapes, lengths or platforms, nor a case
# ("...的场景不在支持范围内"), nor what an index type can hold ("超出了indices的表示范围"), nor the inner
# error's "输入数据或属性的规格不在支持的范围之内".
_VALUE_RANGE = lazy_pattern(r"(?:超出|超过|不在)[^。；，,]{0,10}范围|越界|存在(?:值)?(?:等于或)?小于(?:等于)?0的元素")
_NOT_A_VALUE_RANGE = lazy_pattern(r"数据类型|数据格式|shape|broadcast|data\s*type|dtype|format|平台|产品|场景|规格|表示范围|"
                                  r"长度|元素个数|元素数量|存储范围", re.I)


# A condition that the parameter be given at all ("如果使用该功能其数据类型与shape必须与x保持一致", "When
# provided, bias must ...", "若存在需与 self shape 一致", "非空时shape与antiquantScale一致", "如果提供，shape和数据类型
# 需要与gamma保持一致", "当 runningMean 非空指针时", "当传入有效数据时", "若传入 quantOffset2 ，需保证其类型和shape
# 信息与 quantScale2 一致", "x3若非空，shape与output相同", "antiquantOffsetOptional存在输入时"): what follows is
# what the parameter must be whenever it is passed, so it is no condition on the rule. Phase 1 judges
# no rule on an absent tensor (a relation, a dimension equality, a divisibility), which is that
# condition already. It names the parameter itself or none. Not "为空时" (its absence), nor "如果y1Out为
# 有效输出时" (an output outputMask selects; an unselected one is still passed, "shape为[1]").
_GIVEN = r"(?:存在输入|存在|非空指针|非空|不为空指针|不是空指针|不为空|不为nullptr)"
_NAME = r"`?\s*(?P<{}>[A-Za-z_][A-Za-z0-9_]*)\s*`?"
_PRESENCE = lazy_pattern(
    r"^\s*(?:(?:如果|若|当)\s*(?:使用该功能|使用此功能|使用该参数|传入该参数|传入有效数据|(?:传入|提供)(?=\s*(?:时|的话|$))|"
    r"该参数(?:不为空|非空))\s*(?:时|的话)?"
    rf"|(?:如果|若|当)\s*(?:传入|提供)\s*{_NAME.format('passed')}\s*(?:时|的话)?(?=\s*$)"
    rf"|(?:如果|若|当|在)\s*(?:{_NAME.format('name')}|该参数)?\s*{_GIVEN}\s*(?:时|的话)?"
    rf"|(?:{_NAME.format('named')})?\s*(?:(?:{_GIVEN}|使用)\s*时|(?:若|如果)\s*{_GIVEN}\s*(?:时|的话)?(?=\s*$)))|"
    r"^\s*(?:if|when)\s+(?:it\s+is\s+)?(?:provided|specified|passed|given)\b", re.I)
_CLAUSE_BREAK = lazy_pattern(r"([，,])")


def _presence_of(clause: str) -> Optional[re.Match[str]]:
    return _PRESENCE.search(clause)


def _given_name(found: re.Match[str]) -> Optional[str]:
    return found.group("name") or found.group("named") or found.group("passed")


def without_presence(text: str, own_name: Optional[str]) -> str:
    """`text` without the conditions its clauses open with where they are only that the parameter
    `own_name` be given (`_PRESENCE`), or a tensor the rest of the clause relates it to ("当
    rstdOutOptional存在时与rstdOutOptional的shape相同": a relation is judged only when both are given)."""
    parts = _CLAUSE_BREAK.split(text)
    for at in range(0, len(parts), 2):
        found = _presence_of(parts[at])
        if found is None:
            continue
        named = _given_name(found)
        rest = parts[at][found.end():]
        if named in (None, own_name) or named in names_in(rest, (named,)):
            parts[at] = rest
    return "".join(parts)


def given_opening(sentence: str) -> Optional[tuple[str, str]]:
    """The tensor a sentence opens by requiring to be given ("x3若非空，shape与output相同", "若传入 quantOffset2
    ，需保证其类型和shape信息与 quantScale2 一致"), and the rest of the sentence: what that tensor must be
    whenever it is passed. None where the opening is another condition or names no tensor."""
    head, comma, rest = sentence.partition("，") if "，" in sentence else sentence.partition(",")
    found = _presence_of(head) if comma else None
    if found is None or head[found.end():].strip():
        return None
    named = _given_name(found)
    return (named, rest) if named is not None else None


def without_given_tensor(condition: str) -> str:
    """An error row's condition without an opening that a tensor be given ("当weights不为空时，self、weights
    shape不一致", "bias不为空时，bias与scale的shape不一致"): the row relates that tensor to others whenever it is
    passed, as a usage note's `without_presence` reads it, and phase 1 judges no rule on an absent
    tensor. Only where the rest names the tensor: "antiquantOffsetOptional存在输入时，shape与antiquantScale
    不相同" stays conditional, as a test of the row would pass the tensor's shape alone and name no
    other; anything else is a condition on another fact and stays one."""
    given = given_opening(condition)
    if given is None:
        return condition
    named, rest = given[0], given[1].strip()
    return rest if named in names_in(rest, (named,)) else condition


def _says_both(text: str) -> bool:
    """"且", or "is"/"are" and then, in the same sentence, " and ". (As one expression, the lazy
    `[^.;]*?` between them rescanned the sentence from every "is".)"""
    if _BOTH.search(text):
        return True
    for sentence in re.split(r"[.;]", text):
        verb = _IS_ARE.search(sentence)
        if verb and _AND.search(sentence, verb.end()):
            return True
    return False


_ATTRIBUTES = re.compile(r"属性|attribute", re.I)
_BELOW_ZERO = re.compile(r"小于\s*0|less\s+than\s+0|negative", re.I)


def speaks_of_attributes(condition: str) -> bool:
    """The condition speaks of the op's attributes ("输入的属性不在支持的范围内")."""
    return bool(_ATTRIBUTES.search(condition))


def says_below_zero(condition: str) -> bool:
    """The condition says a quantity is below zero ("小于0", "negative"), not 0."""
    return bool(_BELOW_ZERO.search(condition))


def classify(condition: str) -> Optional[ErrorCategory]:
    text = without_given_tensor(condition.strip())
    if not text:
        return None
    conditional = bool(_CONDITIONAL.search(text)) or _says_both(text)
    for category, pattern in _RULES:
        if pattern.search(text):
            if category is ErrorCategory.EMPTY_TENSOR and _NOT_EMPTY.search(text):
                return None
            if category is ErrorCategory.NULL_POINTER and _NOT_NULL.search(text):
                return None  # "gamma is not a null pointer and ...": the error is about something else
            if category is ErrorCategory.NULL_POINTER:
                # "outputMask[0]为True且gradInputOut为空指针": null only under another fact; not "传入参数是
                # 必选输入，输出或者必选属性，且是空指针" (69 pages), whose first fact is that the pointer is required.
                if _REQUIRED_POINTER.search(text):
                    return category
                return None if conditional or _CONJUNCTION.search(text) else category
            if conditional:
                if category is ErrorCategory.VALUE and not _NOT_VALUE_WORDS.search(text):
                    return category
                return None
            return category
    if not conditional and _VALUE_RANGE.search(text) and not _NOT_A_VALUE_RANGE.search(text):
        return ErrorCategory.VALUE
    return None
