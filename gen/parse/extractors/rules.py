"""What a page states across parameters, beyond one relation of a row: the IR's cross-parameter
rules (`ValueRange`, `ValueSet`, `DimEquality`, `Divisibility`, `ShapeRule`), from the parameters' rows, the
error table and the constraints section (约束说明).

Each reader takes one plain wording and nothing looser:

    dim取值范围为[-self.dim(), self.dim())        ValueRange(dim, -rank(self), rank(self))
    取值范围为[-r, r-1]，其中r为x的维度            ValueRange(dim, -rank(x), rank(x) - 1)   (a letter defined as a rank)
    EP域本卡Id，取值范围[0, epWorldSize)           ValueRange(epRankId, 0, value(epWorldSize))
    index的取值范围为[0, self.size(dim))          ValueRange(index, 0, size(self, dim))
    groupSize取值范围[1, 65536)                   ValueRange(groupSize, 1, 65536)   (integers only)
    dstType支持取值2、3、29                        ValueSet(dstType, {2, 3, 29})   (a list with gaps)
    长度为1(kH=kW)或2(kH, kW) / kernelSize的长度不等于1或者2 (an error row)   ArrayLength(kernelSize, {1, 2})
    Atlas A3 训练系列产品：取值范围(0, 1024]        ValueRange(moeExpertNum, (0, 1024], on Ascend910_93)
    balanceMode为0时，取值范围为[2, 768]            ValueRange(worldSize, [2, 768], when balanceMode == 0)
    cycles参数非正数（cycles <= 0） (a 561002 row)   ValueRange(cycles, (0, inf), status 561002)
    weight的第0维与self的第1维相等                  DimEquality(weight, 0, self, 1)
    若keepDim为false，reduce轴的维度不保留，其余维度shape需要与self一致   ReducedShape(out, self, dim, keepDim)
    x的最后一维需要是8的倍数 / C需要能被groups整除   Divisibility(x, 8, axis -1)
    当y的数据类型为INT4时，x的尾轴必须为偶数         Divisibility(x, 2, axis -1, when the dtype of y is INT4)
    如果dstType为3(INT32)，shape的最后一维需要能被8整除   Divisibility(x, 8, axis -1, when dstType == 3)
    y的数据类型为INT4时，x的shape尾轴大小不是偶数 (an error row)   the same, refused as the row says
    当reduction为0时，out的shape与self一致；否则为[1]   ShapeRule(out, reduction in {0}: self) + negated: scalar
    Atlas 推理系列产品：x、gamma输入的尾轴长度必须大于等于32 Bytes   DimBytes(x, -1, 32, on Ascend310P) and gamma's
    Atlas 推理系列产品：x1的norm轴长度，以及gamma的长度必须大于等于32 Bytes   DimBytes(gamma, None (every element), 32, on Ascend310P)

A value range or set (and a divisibility) holds on the chips its sentence opens with, under the one
value of an int or bool argument it states (a divisibility: or the dtype of a tensor, "当y的数据类型为INT4时");
an error row gives it its status. A sentence that looks like one of these
but cannot be read with confidence (any other condition, one with what holds otherwise, a condition on a
dtype, "第1维" on a page that never says "第0维", a bound in letters the page does not define)
becomes a `relation-unread` diagnostic and no rule: the simulator then checks less, never more,
than the page says.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence

from gen import abi, conventions
from gen.ir import (DEFAULT_SOC, MAX_RANK, API, ArrayLength, ArrayProduct, Bound, Condition, Diagnostic, DimBytes, DimEquality, Direction, Divisibility, DType, DTypeCondition, ErrorCase, Extent, Level,
                    PaddedShape, Param, ParamKind, ReducedShape, RelationKind,
                    ShapeForm, ShapeRule, Soc, ValueRange, ValueSet)
from gen.parse.extractors import prose, vocab
from gen.parse.extractors.comparisons import (comparison_ranges, consecutive, listed_values, range_outside_refused,
                                                 values_outside_refused)
from gen.parse.extractors.conditions import given_opening, without_presence
from gen.parse.extractors.relations import CONDITION, PRODUCT, given_relations, relations_in, states_relation
from gen.parse.patterns import NAME, NAME_ANYWHERE, NamedPattern, lazy_pattern, may_hold, name_list, name_matches
from gen.parse.readers.scan import MARKUP, word_starts

UNREAD = "relation-unread"
_PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")

_INTEGRAL = (ParamKind.INT, ParamKind.INT_ARRAY)
_HOST_REAL = (ParamKind.FLOAT,)
# What a bound may name: a host argument with one value (gen.parse.extractors.comparisons reads them alike).
_VALUED = (ParamKind.INT, ParamKind.FLOAT, ParamKind.SCALAR)
# What a dtype condition may name: a parameter with one dtype in a call (phase 1 reads it so).
_CARRIES_DTYPE = (ParamKind.TENSOR, ParamKind.SCALAR, ParamKind.DTYPE)
_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
# CANN's reduction enumeration (0 none, 1 mean, 2 sum), as its integer parameters take it.
_REDUCTIONS = {"none": "0", "mean": "1", "sum": "2"}
# The integer limits the pages name instead of writing them ("取值范围[0, MAX_INT32)，其中MAX_INT32值为2147483647",
# "MAX_INT32 = 2^31 - 1").
_NAMED_LIMITS = {"MAX_INT32": 2**31 - 1, "INT32_MAX": 2**31 - 1, "INT_MAX": 2**31 - 1, "MAX_INT64": 2**63 - 1,
                 "INT64_MAX": 2**63 - 1}
# A bool's values, as phase 1 reads a bool argument (true is 1).
_BOOL_VALUES = {"true": "1", "false": "0"}


@dataclass
class Rules:
    """What one API's texts give."""

    value_ranges: list[ValueRange] = field(default_factory=list)
    value_sets: list[ValueSet] = field(default_factory=list)
    array_lengths: list[ArrayLength] = field(default_factory=list)
    dim_equalities: list[DimEquality] = field(default_factory=list)
    divisibility: list[Divisibility] = field(default_factory=list)
    shape_rules: list[ShapeRule] = field(default_factory=list)
    dim_bytes: list[DimBytes] = field(default_factory=list)
    array_products: list[ArrayProduct] = field(default_factory=list)
    padded_shapes: list[PaddedShape] = field(default_factory=list)
    reduced_shapes: list[ReducedShape] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def add(self, bucket: list, rule) -> None:
        """Adds a rule once. A value rule an error row states again with its own status takes that
        status: the error table says what CANN answers (aclnnSleep's row "必须为正整数（cycles > 0）" and
        its 561002 row "cycles参数非正数（cycles <= 0）" are one rule, answered 561002)."""
        key = _rule_key(rule)
        for at, known in enumerate(bucket):
            if _rule_key(known) == key:
                if getattr(rule, "status", 0) and not known.status:
                    bucket[at] = replace(known, status=rule.status)
                return
        # A chip's restatement of a rule that holds on every chip is that rule: aclnnDequantSwigluQuant's
        # "Atlas A2 训练系列产品/Atlas A2 推理系列产品：x的最后一维需要是2的倍数" beside its row's "最后一维需要是2的倍数".
        chipless = _rule_key(replace(rule, products=())) if getattr(rule, "products", ()) else None
        if chipless is not None and any(_rule_key(known) == chipless for known in bucket):
            return
        if hasattr(rule, "products") and not rule.products:
            bucket[:] = [known for known in bucket if not known.products or _rule_key(replace(known, products=())) != key]
        bucket.append(rule)

    def unread(self, api: str, line: int, subject: str, text: str, why: str) -> None:
        quoted = _clean(text)
        quoted = quoted if len(quoted) <= 90 else quoted[:87] + "..."
        diag = Diagnostic(Level.INFO, line, UNREAD,
                          f"{api}.{subject}: {quoted!r} states a rule that is not read ({why}); the simulator does "
                          f"not check it")
        if diag not in self.diagnostics:
            self.diagnostics.append(diag)


def _rule_key(rule) -> dict:
    return {k: v for k, v in vars(rule).items() if k not in ("line", "status")}


@dataclass(frozen=True)
class Text:
    """A text to read rules from: a row (its parameter is the subject of what names none), an
    error row, or a line of the constraints section."""

    text: str
    line: int
    subject: Optional[str] = None  # the row's parameter
    error_row: bool = False
    # An error row's status where it is not ACLNN_ERR_PARAM_INVALID (0 otherwise): the status of the
    # value rules it states.
    status: int = 0


_BLANKS = lazy_pattern(r"\s+")
_GLUED_BROADCAST = lazy_pattern(r"(?<=[A-Za-z0-9])(?=broadcast)")


def _clean(text: str) -> str:
    # A backtick becomes a space: "`target`broadcast后" names target.
    text = MARKUP.sub(" ", text).replace("**", "").replace("`", " ")
    return _BLANKS.sub(" ", text).strip()


def _normal(text: str) -> str:
    """Full-width brackets and commas as ASCII, markup gone: what the patterns read."""
    # A link's text glued to the name before it once the page reader dropped the tag
    # ("self和target<a>broadcast</a>后" -> "targetbroadcast后").
    text = _GLUED_BROADCAST.sub(" ", _clean(text))
    for wide, narrow in (("（", "("), ("）", ")"), ("［", "["), ("］", "]"), ("，", ", "), ("：", ":"), ("【", "["),
                         ("】", "]"), ("＜", "<"), ("＞", ">"), ("–", "-"), ("−", "-")):
        text = text.replace(wide, narrow)
    return text


def _host(param: Param) -> bool:
    """Whether a parameter is a host argument (not device data)."""
    return param.kind is not None and not param.kind.is_device_data


# An ASCII identifier, whole: what a parameter name is in the pages' prose, bounded as scan.bounded
# bounds the names themselves.
_IDENTIFIER = r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_])"
_IDENTIFIER_PATTERN = lazy_pattern(_IDENTIFIER)


# "当self.dim()>0时" / "When self.dim() is greater than 0": the condition of a dimension index's range
# on tensors of one dimension or more.
# "当self为1-8维时" / "When self is 1D to 8D": every rank but 0, as CANN's tensors have at most 8.
_POSITIVE_RANK = lazy_pattern(r"([A-Za-z_]\w*)\s*(?:\.\s*dim\(\)\s*(?:>\s*0|!=\s*0|大于\s*0|不为\s*0|不等于\s*0|"
                            r"is\s+greater\s+than\s+0)|\s*为\s*1\s*[-~到至]\s*8\s*维|\s+is\s+1D\s+to\s+8D)")


def _whole_rank_range(low: Optional[Bound], high: Optional[Bound]) -> bool:
    """[-rank(t), rank(t) - 1] or [-rank(t), rank(t)): every dimension index of t."""
    if low is None or high is None or low.extent is not Extent.RANK or high.extent is not Extent.RANK:
        return False
    if low.tensor != high.tensor or low.sign != -1 or low.offset != 0 or not low.inclusive or high.sign != 1:
        return False
    return (high.offset == -1 and high.inclusive) or (high.offset == 0 and not high.inclusive)


# "当self.dim()=0时", "When self.dim() is 0", "When self is 0D", "当self为0维时": a tensor of rank 0.
_ZERO_RANK = lazy_pattern(r"([A-Za-z_]\w*)\s*(?:\.\s*dim\(\)\s*(?:==|=|为|等于|is)\s*0(?![\d.])|\s*(?:为|is)\s*0\s*(?:维|D\b))")


def _rank_zeros_range(low: Optional[Bound], high: Optional[Bound]) -> bool:
    """[-1, 0] or [-1, 1): every dimension index of a 0-d tensor."""
    if low is None or high is None or low.extent is not Extent.NUMBER or high.extent is not Extent.NUMBER:
        return False
    return low.offset == -1 and low.inclusive and ((high.offset == 0 and high.inclusive) or
                                                  (high.offset == 1 and not high.inclusive))


_GLUED_WHEN = lazy_pattern(r"(?<![同及暂])时\s*$")
# A clause that gives a default ("若不指定则默认为-1"), not a condition of what follows it.
_DEFAULT = lazy_pattern(r"默认|\bby\s+default\b", re.I)
_SENTENCES = lazy_pattern(r"[。；;\n]|(?<=[A-Za-z0-9)\]])\.(?:\s|$)")


def read_rules(api: str, params: Sequence[Param], texts: Iterable[Text], zero_based: bool, formula: str = "") -> Rules:
    """The rules of one API. `zero_based`: the page counts dimensions from 0 somewhere ("第0维"),
    so "第1维" is the second; otherwise a digit other than 0 is ambiguous and not read. `formula`: the
    page's formula section, which says what a shape "derived from" the arguments is."""
    reader = _Reader(api, params, zero_based)
    reader.pads_by_pairs = bool(_PAIRS_WIDEN.search(formula))
    texts = list(texts)
    reader.api_letters = reader.letters_of(texts)
    reader.rows = {text.subject: text.text for text in texts if text.subject is not None and not text.error_row}
    reader.size_letters = reader.dimension_letters(reader.rows)
    for text in texts:
        reader.read(text)
    rules = reader.rules
    for subject, tensor, line, sentence in reader.rank_zero_ranges:
        if not any(r.param == subject and r.when is None and not r.products and _whole_rank_range(r.low, r.high) and
                   r.low is not None and r.low.tensor == tensor for r in rules.value_ranges):
            rules.unread(api, line, subject, sentence, "it holds under a condition")
    _drop_index_bounds(api, rules)
    absent_when_empty = {p.name for p in params if conventions.empty_array_absent(p)}
    rules.array_lengths[:] = _merged_lengths(rules.array_lengths, reader.zero_length_meant | absent_when_empty)
    rules.value_ranges[:] = _statuses_of_error_rows(rules.value_ranges)
    _padded_shapes(api, reader.pad_clauses, rules)
    return rules


# "dim0_{begin}+dim0_{in}+dim0_{end}": a formula that widens each dimension by its pair of an array.
_PAIRS_WIDEN = lazy_pattern(r"(\w+)_\{begin\}\s*\+\s*\1_\{in\}\s*\+\s*\1_\{end\}")


@dataclass(frozen=True)
class _PadClause:
    """One dimension of a padded shape as a row states it: "out倒数第二维度的数值等于self倒数第二维度的数值
    加padding后两个值" is out's axis -2 = self's axis -2 + the pair `part` ("后") of padding."""

    param: str
    tensor: str
    padding: str
    axis: int
    part: str  # "前", "中间", "后", or "" ("加padding的两个值": the array's one pair)
    line: int
    status: int
    sentence: str


def _padded_shapes(api: str, clauses: Sequence[_PadClause], rules: Rules) -> None:
    """The padded shapes a row's clauses state together: one clause per dimension from the last, each
    widened by the pair F.pad gives it (the last dimension by the first pair, "前两个"; of three, the
    middle one by "中间两个"; the first padded one by the last pair, "后两个"), and the array as long as
    its pairs where a length rule gives its length. Anything else (ReplicationPad2d's row names the
    last dimension only beside a padding of four values) is diagnosed, never guessed."""
    groups: dict[tuple[int, str, str, str], list[_PadClause]] = {}
    for clause in clauses:
        groups.setdefault((clause.line, clause.param, clause.tensor, clause.padding), []).append(clause)
    for (line, param, tensor, padding), found in groups.items():
        pairs = len(found)
        last_pair = pairs - 1
        index = {"前": 0, "后": last_pair, "中间": 1 if pairs == 3 else None, "": 0 if pairs == 1 else None}
        lengths = {length for rule in rules.array_lengths if rule.param == padding for length in rule.lengths}
        if sorted(-c.axis - 1 for c in found) != list(range(pairs)) or any(index[c.part] != -c.axis - 1 for c in found):
            rules.unread(api, line, param, found[0].sentence, "its dimensions are not padded by their pairs in F.pad's order")
        elif lengths and lengths - {0} != {2 * pairs}:
            rules.unread(api, line, param, found[0].sentence,
                         f"it widens {pairs} dimension(s) and {padding} has {'/'.join(map(str, sorted(lengths)))} values")
        else:
            rules.add(rules.padded_shapes, PaddedShape(param, tensor, padding, pairs, line, max(c.status for c in found)))


def _merged_lengths(found: list[ArrayLength], zero_length_meant: set[str]) -> list[ArrayLength]:
    """One rule per array: the lengths any of its sentences admits (a row's "长度为1或2" and an error
    row's "长度不等于0、1或2" admit 0, the error table's answer), and 0 where a sentence gives the
    empty array a meaning ("当数组长度为0时，strides取默认值为1") or the array is optional
    (gen.conventions.empty_array_absent): never stricter than the page."""
    merged: dict[str, ArrayLength] = {}
    for rule in found:
        known = merged.get(rule.param)
        lengths = set(rule.lengths) | (set(known.lengths) if known else set())
        if rule.param in zero_length_meant:
            lengths.add(0)
        first = known or rule
        merged[rule.param] = replace(first, lengths=tuple(sorted(lengths)), status=first.status or rule.status)
    return list(merged.values())


def _statuses_of_error_rows(ranges: list[ValueRange]) -> list[ValueRange]:
    """The ranges with the status of an error row's range that refuses every value they refuse
    (aclnnAmpUpdateScale's row "取值范围 >= 1" and its 561002 row "growthInterval超出取值范围[1,
    2147483647]": 0 is outside both, and CANN answers 561002)."""
    out = []
    for rule in ranges:
        if not rule.status:
            wider = next((e for e in ranges if e.status and e.param == rule.param and e.when == rule.when and
                          e.products == rule.products and _refuses_all_of(e, rule)), None)
            if wider is not None:
                rule = replace(rule, status=wider.status)
        out.append(rule)
    return out


def _refuses_all_of(wide: ValueRange, narrow: ValueRange) -> bool:
    """Whether `wide` refuses every value `narrow` refuses, as far as their bounds of numbers tell."""
    for mine, theirs, sign in ((narrow.low, wide.low, 1), (narrow.high, wide.high, -1)):
        if mine is None or mine == theirs:
            continue
        if theirs is None or mine.extent is not Extent.NUMBER or theirs.extent is not Extent.NUMBER:
            return False
        # A low bound: `wide`'s at or above `narrow`'s (a high bound: at or below).
        gap = sign * (theirs.offset - mine.offset)
        if gap < 0 or (gap == 0 and theirs.inclusive and not mine.inclusive):
            return False
    return True


def _drop_index_bounds(api: str, rules: Rules) -> None:
    """Drops the ranges bounded by the value of a dimension index ("batchDims取值范围在[0, dim]内",
    where dim is in [-rank, rank)): whether the bound is the index as given or wrapped, the page
    does not say, and as given it would refuse every batchDims with a negative dim."""
    indices = {r.param for r in rules.value_ranges for b in (r.low, r.high) if b is not None and b.extent is Extent.RANK}
    kept = []
    for rule in rules.value_ranges:
        named = [b.tensor for b in (rule.low, rule.high) if b is not None and b.extent is Extent.VALUE and b.tensor in indices]
        if not named:
            kept.append(rule)
            continue
        rules.unread(api, rule.line, rule.param, rule.describe(),
                     f"{named[0]} is a dimension index, which a negative value names from the end")
    rules.value_ranges[:] = kept


class _Reader:
    def __init__(self, api: str, params: Sequence[Param], zero_based: bool) -> None:
        self.api = api
        self.params = {p.name: p for p in params}
        self.zero_based = zero_based
        self.text_zero_based = False  # the text being read counts from 0 itself
        self.rules = Rules()
        # The names the patterns name (`NamedPattern`, which bounds them by ASCII only: in Python's
        # Unicode regexes a CJK character is a word character, and "与self和target" must name self and
        # target).
        self.names = frozenset(self.params)
        self.tensors = frozenset(p.name for p in params if p.kind is ParamKind.TENSOR)
        inputs = [p.name for p in params if p.kind is ParamKind.TENSOR and p.direction is Direction.IN]
        # "the input data" names the tensor only where the API has one input tensor.
        self.only_input = inputs[0] if len(inputs) == 1 else None
        self.letters: dict[str, str] = {}  # the text's letters that stand for a tensor's rank
        self.api_letters: dict[str, str] = {}  # those any text of the API defines, each one way (letters_of)
        self.size_letters: dict[str, tuple[str, int]] = {}  # letters of a tensor's dimension (dimension_letters)
        self.products: tuple[Soc, ...] = ()  # the chips the sentence being read holds on (() every chip)
        self.status = 0  # the status of the text being read, where an error row gives another than 161002
        self.when: Optional[Condition] = None  # the argument's value the sentence being read holds under
        # (parameter, tensor, line, sentence) of the ranges of a dimension index at rank 0 (_ranges)
        self.rank_zero_ranges: list[tuple[str, str, int, str]] = []
        # The arrays a sentence gives a meaning when empty ("当数组长度为0时，内部会取kernelSize的值").
        self.zero_length_meant: set[str] = set()
        self.rows: dict[str, str] = {}  # each parameter's row, as read_rules gives it
        self.pad_clauses: list[_PadClause] = []  # the dimensions of padded shapes, which read_rules assembles
        self.pads_by_pairs = False  # the formula widens each dimension by its pair of an array (read_rules)

    # The patterns that name this API's parameters are compiled once for any names (NamedPattern):
    # compiled per API, or per sentence, they cost a third of the parse. Rank and size terms match
    # any identifier and keep those that name the API's tensors (_ranges).
    # "x_rank", "data_rank": a tensor's name and "_rank" ("axis的取值不在[-x_rank, x_rank)范围内").
    _RANK = lazy_pattern(
        rf"(?:(?<![A-Za-z0-9_.])([A-Za-z][A-Za-z0-9]*)_rank(?![A-Za-z0-9_])|"
        rf"rank\(\s*({_IDENTIFIER})\s*\)|len\(\s*({_IDENTIFIER})\.shape\s*\)|"
        rf"({_IDENTIFIER})\s*(?:\.\s*(?:dim\(\)|dims\(\)|dim\b|ndim\b|rank\(\)|rank\b|dimNum\b|shape\.size\(\)|"
        rf"GetViewShape\(\)\.GetDimNum\(\))|\s*(?:的)?\s*(?:维度数量|维度数|维数|维度|秩)))")
    _SIZE = lazy_pattern(rf"({_IDENTIFIER})\s*\.\s*(?:size|shape|sizes)\s*[(\[]\s*(-?\d+|{_IDENTIFIER})\s*[)\]]")

    # -- one text --------------------------------------------------------------------------------

    def read(self, text: Text) -> None:
        self.text_zero_based = counts_from_zero(text.text)
        # "..., the shape is the same as self. In other cases, the shape is [1].": one sentence.
        joined = self._JOIN_OTHERWISE.sub(r", \1", _normal(text.text))
        # An error row or a constraint may bound by a letter a row defines ("dim 参数的值超出有效范围
        # [-rank, rank-1]" beside dim's "其中rank是输入Tensor self的维度"); a text's own definitions first.
        self.letters = {**(self.api_letters if text.subject is None else {}), **self._rank_letters(joined)}
        for sentence in _SENTENCES.split(joined):
            if sentence.strip() and not self._reduced_shape(sentence, text) and not self._value_relation(sentence, text):
                read = self._rules_read()
                self._sentence(sentence, text)
                if text.subject is None and self._rules_read() == read:
                    self._unread_tensors_shape(sentence, text)

    def _rules_read(self) -> int:
        """How many rules and diagnostics the texts have given so far."""
        return sum(len(bucket) for bucket in vars(self.rules).values())

    # "valuesOut或indicesOut的维度与self的维度不一致", "out的shape不等于由self，dim，keepDim推导得到的shape": a
    # tensor's shape or rank against another's or against the arguments.
    _SHAPE_WORDS = lazy_pattern(r"shape|形状|维度|维数|size|dimension", re.I)
    _RELATION_WORDS = lazy_pattern(r"一致|相同|相等|等于|匹配|\bsame\b|\bequal|\bmatch", re.I)
    _DERIVED = lazy_pattern(r"推导(?:得到|出|而来)?的\s*(?:shape|形状)|(?:inferred|derived)\s+(?:output\s+)?shape", re.I)

    def _unread_tensors_shape(self, sentence: str, text: Text) -> None:
        """A sentence of an error row or of the constraints that relates a tensor's shape or rank to
        another's under a condition ("keepDim为true时，valuesOut或indicesOut的维度与self的维度不一致"), or
        to the shape its arguments give, and that no rule read: diagnosed, never skipped in silence.
        Unconditional whole-shape relations are the relation reader's (gen.parse.extractors.relations)."""
        named = [m.group(0) for m in name_matches(self.tensors, sentence)]
        if not named or not self._SHAPE_WORDS.search(sentence):
            return
        if self._DERIVED.search(sentence):
            padded = self._padded_by_formula(named, sentence, text)
            if padded is not None:
                self.rules.add(self.rules.padded_shapes, padded)
                return
            why = "a shape derived from the arguments"
        elif states_relation(sentence, self.tensors) if text.error_row else given_relations(sentence, self.tensors)[1]:
            # "当weights不为空时，self、weights shape不一致" (an error row), "x3若非空，shape与output相同" (a
            # constraint): a relation whenever the tensor is given, which the relation reader reads
            # (conditions.without_given_tensor, relations.given_relations).
            return
        elif len(set(named)) >= 2 and self._RELATION_WORDS.search(sentence) and CONDITION.search(sentence):
            why = "it holds under a condition"
        else:
            return
        self.rules.unread(self.api, text.line, named[0], sentence, why)

    def _padded_by_formula(self, named: Sequence[str], sentence: str, text: Text) -> Optional[PaddedShape]:
        """"self的shape和pad的输入推导出的shape与out的shape不一致" where the formula pads each dimension by its
        pair (aclnnConstantPadNd): the output's shape is the input's widened pair by pair, when the sentence
        names one input tensor, one output tensor and one integer array."""
        if not self.pads_by_pairs:
            return None
        tensors = {self.params[n].direction: n for n in set(named)}
        arrays = {m.group(0) for m in name_matches(self.names, sentence) if self.params[m.group(0)].kind is ParamKind.INT_ARRAY}
        if len(set(named)) != 2 or set(tensors) != {Direction.IN, Direction.OUT} or len(arrays) != 1:
            return None
        return PaddedShape(tensors[Direction.OUT], tensors[Direction.IN], arrays.pop(), 0, text.line, text.status)

    # A reduction's arguments: the dimensions it reduces and the bool that keeps them as 1.
    _REDUCED_DIMS = lazy_pattern(r"dims?|axis|axes", re.I)
    _KEEPDIM = lazy_pattern(r"keep_?dims?", re.I)

    @functools.cached_property
    def _reduction_arguments(self) -> Optional[tuple[str, str]]:
        """The API's reduced dimensions (an int or int array) and keepdim (a bool), each its only one;
        None where it has not both."""
        dims = [n for n, p in self.params.items() if p.kind in _INTEGRAL and self._REDUCED_DIMS.fullmatch(n)]
        keeps = [n for n, p in self.params.items() if p.kind is ParamKind.BOOL and self._KEEPDIM.fullmatch(n)]
        # An empty list that reduces nothing (ONNX's noop_with_empty_axes) is another rule than ReducedShape's.
        noop = any("noop" in n.lower() for n in self.params)
        return (dims[0], keeps[0]) if len(dims) == 1 and len(keeps) == 1 and not noop else None

    def _reduced_shape(self, sentence: str, text: Text) -> bool:
        """A reduction's outputs against its input's shape along the reduced dimensions, however the
        sentence words one form ("若keepDim为true，除dim指定维度上的size为1以外，其余维度的shape需要与self保持一致",
        "若keepDim为false，reduce轴的维度不保留", "keepDim为true时，valuesOut或indicesOut的维度与self的维度不一致")
        or both ("out的shape不等于由self，dim，keepDim推导得到的shape"): each is a part of one rule, its either
        form (ReducedShape). Read where the API has one dimension argument and one keepdim, the sentence
        names keepdim (or derives the shape from the arguments) and relates one input tensor's shape to
        outputs' (named, or the row's); True when read."""
        arguments = self._reduction_arguments
        if arguments is None or not self._SHAPE_WORDS.search(sentence):
            return False
        dims, keepdim = arguments
        named = {m.group(0) for m in name_matches(self.names, sentence)}
        if keepdim not in named and not (self._DERIVED.search(sentence) and dims in named):
            return False
        sources = {n for n in named & self.tensors if self.params[n].direction is Direction.IN}
        outputs = {n for n in named & self.tensors if self.params[n].direction is Direction.OUT}
        if text.subject is not None and not text.error_row:
            if self.params[text.subject].direction is not Direction.OUT:
                return False
            outputs.add(text.subject)
        if len(sources) != 1 or not outputs:
            return False
        source, = sources
        for output in sorted(outputs, key=list(self.params).index):
            self.rules.add(self.rules.reduced_shapes, ReducedShape(output, source, dims, keepdim, text.line, text.status))
        return True

    _JOIN_OTHERWISE = lazy_pattern(r"[。；;.]\s*(否则|其他情况|其它情况|其余情况|otherwise|in\s+other\s+cases)", re.I)

    # A letter the text defines as a tensor's rank: "其中r为输入数据的维度", "(x_rank表示x的shape维度)",
    # "D为x的shape的维数", "其中 rank 是输入Tensor self 的维度", "N indicates the dimensions of self".
    # Not "维度大小" nor "维度上" (a dimension's size, a place along it).
    _RANK_WORDS = r"(?:维度数量|维度数|维数|维度|秩)(?!\s*(?:大小|上|中|的|值|size))"
    _LETTER_CN = NamedPattern(rf"(?<![A-Za-z0-9_])(?P<letter>[A-Za-z_]\w*)\s*(?:为|是|表示|指|代表)\s*"
                              rf"(?P<input>输入(?:的)?\s*(?:Tensor|tensor|张量|数据)?)?\s*(?P<tensor>{NAME})?\s*(?:的)?\s*"
                              rf"(?:shape\s*(?:的)?\s*)?" + _RANK_WORDS, re.I)
    _LETTER_EN = NamedPattern(rf"(?<![A-Za-z0-9_])(?P<letter>[A-Za-z_]\w*)\s+(?:indicates|is|denotes|represents)\s+the\s+"
                              rf"(?:number\s+of\s+(?:the\s+)?dimensions?|(?:shape\s+)?dimensions?(?:\s+number)?|rank)\s+of\s+"
                              rf"(?:the\s+)?(?P<input>input(?:\s+tensor)?)?\s*(?P<tensor>{NAME})?(?![A-Za-z0-9_])", re.I)

    # A shape a row writes in letters: "(T, N, C) or (T, C)", "shape为[L]或[B, L]", "[NUM_ROWS, E]或[B, S, E]".
    _LETTER_SHAPE = lazy_pattern(r"[\[(]\s*([A-Z][A-Za-z0-9_]*(?:\s*[,，]\s*[A-Z][A-Za-z0-9_]*)*)\s*[\])]")

    def dimension_letters(self, rows: dict[str, str]) -> dict[str, tuple[str, int]]:
        """The letters the tensors' rows give a dimension by their shapes ("(T, N, C) or (T, C)": C is
        logProbs' last), each counted from the end, so that "[0, C)" bounds by that dimension's size. A
        letter is read only where every shape of its first tensor places it alike (T above: first of 3,
        first of 2, no one dimension), and it names no parameter."""
        found: dict[str, tuple[str, int]] = {}
        for name, row in rows.items():
            if name not in self.tensors or not self._SHAPE_WORDS.search(row):
                continue
            places: dict[str, set[int]] = {}
            for shape in self._LETTER_SHAPE.finditer(row):
                letters = [t.strip() for t in re.split(r"[,，]", shape.group(1))]
                for k, letter in enumerate(letters):
                    places.setdefault(letter, set()).add(k - len(letters))
            for letter, axes in places.items():
                if len(axes) == 1 and letter not in self.params and letter not in found:
                    found[letter] = (name, axes.pop())
        return found

    def letters_of(self, texts: Sequence[Text]) -> dict[str, str]:
        """The letters the API's texts define as a tensor's rank, each defined as one tensor's only."""
        found: dict[str, set[str]] = {}
        for text in texts:
            for letter, tensor in self._rank_letters(_normal(text.text)).items():
                found.setdefault(letter, set()).add(tensor)
        return {letter: tensors.pop() for letter, tensors in found.items() if len(tensors) == 1}

    def _rank_letters(self, text: str) -> dict[str, str]:
        """The letters `text` defines as the rank of one of the API's tensors (a bracketed range then
        bounds by them: "取值范围为[-r, r-1]，其中r为输入数据的维度"). A letter that is a parameter's name,
        or that the text gives two meanings, is none; "the input data" is the API's one input tensor."""
        if not self.tensors:
            return {}
        found: dict[str, set[str]] = {}
        # Each pattern only where its words of rank are: most texts have none, and a pattern that
        # starts at every identifier of the text was a sixth of reading the rules.
        for pattern, words in ((self._LETTER_CN, ("维", "秩")), (self._LETTER_EN, ("dimension", "rank"))):
            if not may_hold(text, words):
                continue
            for match in pattern.finditer(self.tensors, text):
                tensor = match.group("tensor") or (self.only_input if match.group("input") else None)
                letter = match.group("letter")
                if tensor is None or letter in self.params or letter.lower() in ("shape", "the", "which"):
                    continue
                found.setdefault(letter, set()).add(tensor)
        return {letter: tensors.pop() for letter, tensors in found.items() if len(tensors) == 1}

    def _sentence(self, sentence: str, text: Text) -> None:
        if text.subject is not None and not text.error_row:
            # "若存在需与self shape一致": a rule of the row's tensor whenever it is given, as phase 1
            # judges every rule (conditions.without_presence).
            given = without_presence(sentence, text.subject)
            if given != sentence and self._unread_shape(given, text.subject):
                self.rules.unread(self.api, text.line, text.subject, sentence, "a shape this parser cannot read")
                return
            sentence = given
        elif (opened := given_opening(sentence)) is not None and opened[0] in self.tensors and \
                not CONDITION.search(opened[1]):
            # "bias若非空，shape大小与output最后一维大小相等" (a constraint), "bias存在时，bias shape与输出tensor(out)
            # 最后一个维度的大小不一致" (an error row): the given tensor's rule whenever it is passed, as a row's
            # "若存在" is (phase 1 judges no rule of an absent tensor); the sentence speaks of that tensor.
            sentence = opened[1]
            if text.subject is None:
                text = replace(text, subject=opened[0])
        # A sentence that names chips holds on those chips only. The value rules carry their chips:
        # "Atlas 推理系列产品、Atlas 训练系列产品：支持范围为[-255,255]" is a range on those two, checked
        # per ACLNN_SIM_SOC; a sentence naming chips elsewhere than as its opening is a condition, and
        # so is any for the shape rules, which hold on every chip.
        conditional = bool(CONDITION.search(sentence) or vocab.socs_in(sentence))
        if text.subject is not None and self._shape_rule(sentence, text):
            return
        chips, values_text = self._chips_opening(sentence)
        when, values_text = self._condition_opening(values_text)
        values_conditional = bool(CONDITION.search(values_text)) if chips or when else conditional
        self.products, self.status, self.when = chips, text.status, when
        self._ranges(values_text, text, values_conditional)
        if text.error_row:
            self._rank_exception(sentence, text)
            # Each pattern matches the whole row: a closing "时" ("dim超出输入self的维度范围时") is no condition.
            outside = values_outside_refused(self.params, values_text) if not chips and not when else None
            if outside is not None:
                # A refusal of what lies outside listed values is the rule that the value is one of them.
                name, values = outside
                if consecutive(values):
                    self._add_value(self.rules.value_ranges, ValueRange(name, Bound(float(values[0])), Bound(float(values[-1])),
                                                                        line=text.line))
                else:
                    self._add_value(self.rules.value_sets, ValueSet(name, tuple(values), text.line))
            outside_range = range_outside_refused(self.params, values_text) if not chips and not when else None
            if outside_range is not None and not self._ranks_bounded(outside_range):
                self._add_value(self.rules.value_ranges, replace(outside_range, line=text.line))
        elif not values_conditional:
            for name, values in listed_values(self.params, values_text, text.subject):
                if not consecutive(values):
                    self._add_value(self.rules.value_sets, ValueSet(name, tuple(values), text.line))
        spans = {rule.param: max(rule.lengths) for rule in self.rules.array_lengths if rule.lengths}
        for found in comparison_ranges(self.params, values_text, text.subject, text.error_row, text.line, spans):
            for placed in self._placed(found, text):
                self._add_value(self.rules.value_ranges, placed)
        # A constraints line names the tensor it speaks of (the patterns ask for it when no row
        # supplies one).
        self._dims(sentence, text, conditional)
        self._divisible(sentence, text, conditional)
        self._lengths(sentence, text)
        self._least_bytes(sentence, text)
        self._products(sentence, text, conditional)

    # "Atlas A3 训练系列产品/Atlas A3 推理系列产品：取值范围(0, 1024]": chips' names, a colon, what holds on them.
    _CHIPS_OPENING = lazy_pattern(r"^\s*>?\s*(?P<chips>[^:：]{2,200}?)\s*[:：]\s*(?P<rest>\S.*)$", re.S)

    def _chips_opening(self, sentence: str) -> tuple[tuple[Soc, ...], str]:
        """The chips a sentence opens with and what it says of them; ((), sentence) when it opens with
        something else, or names chips again after (then they are a condition of its own)."""
        opening = self._CHIPS_OPENING.match(sentence)
        if opening is None:
            return (), sentence
        chips = vocab.chips_named(opening.group("chips"))
        if not chips or vocab.socs_in(opening.group("rest")):
            return (), sentence
        return chips, opening.group("rest")

    # "本卡Id，balanceMode为0时，取值范围为[0, worldSize)", "dropPadMode为1时，expertNum和expertCapacity必须大于0":
    # what follows one value of a host argument holds under it.
    _WHEN_VALUE = lazy_pattern(r"(?:^|[,，;；])\s*(?:当|若|如果)?\s*(?:参数|属性)?\s*`?(?P<name>[A-Za-z_]\w*)`?\s*(?:==|=|为|等于)\s*"
                             r"(?P<value>true|false|-?\d+)\s*时\s*(?:生效)?\s*[,，:：]?\s*(?P<rest>\S.*)$", re.I | re.S)
    _OTHER_CASES = lazy_pattern(r"其余|其他|其它|否则|\botherwise\b", re.I)

    def _condition_opening(self, text: str) -> tuple[Optional[Condition], str]:
        """The value of an integer or bool argument a text's rules hold under, and those rules' text;
        (None, text) when it states none, or more than one condition, or what holds otherwise."""
        found = self._WHEN_VALUE.search(text)
        if found is None:
            return None, text
        param = self.params.get(found.group("name"))
        rest, value = found.group("rest"), found.group("value").lower()
        if param is None or CONDITION.search(rest) or self._OTHER_CASES.search(rest) or vocab.socs_in(rest):
            return None, text
        if param.kind is ParamKind.BOOL and value in ("true", "false"):
            return Condition(param.name, 1.0 if value == "true" else 0.0), rest
        if param.kind is ParamKind.INT and value not in ("true", "false"):
            return Condition(param.name, float(value)), rest
        return None, text

    # How an array's elements stand for a tensor's dimensions, as its row states it: a padding's pairs from
    # the last dimension inwards ("数值依次代表左右上下前后需要填充的值", "长度为4时表示2d左右上下需要填充的值"),
    # or one element each, a letter per element ("长度为1(KD = KH = KW)或3(KD, KH, KW)", "(kH, kW)", "($kD, kH, kW$)").
    _PAIRS_FROM_END = lazy_pattern(r"(?:代表|表示)\s*(?:\dd)?\s*左右(?:两边)?(?:上下(?:前后)?)?\s*(?:需要)?填充")
    _ONE_EACH = lazy_pattern(r"\(\s*\$?\s*[A-Za-z]{1,3}\s*(?:[,，、]\s*[A-Za-z]{1,3}\s*)+\$?\s*\)")

    def _placed(self, found: ValueRange, text: Text) -> list[ValueRange]:
        """A range whose bound is the dimension each element stands for (Extent.DIMENSION), as its
        array's row places the elements: one each (kept), a padding's pairs (a range per pair, of the
        dimension it pads: "padding的数值大于等于self对应维度的值" on a page whose padding "依次代表左右上下
        前后"); none where the row does not say, for the page then states no correspondence to check."""
        bound = next((b for b in (found.low, found.high) if b is not None and b.extent is Extent.DIMENSION), None)
        if bound is None:
            return [found]
        row = self.rows.get(found.param, "")
        if self._PAIRS_FROM_END.search(row):
            span = -int(bound.axis)
            if span % 2 or found.elements is not None:
                self.rules.unread(self.api, text.line, found.param, text.text, "its length is not a number of pairs")
                return []
            pairs = []
            for pair in range(span // 2):
                size = replace(bound, extent=Extent.SIZE, axis=str(-(pair + 1)))
                if any(r.param == found.param and size in (r.low, r.high) for r in self.rules.value_ranges):
                    continue  # the row bounds that pair already ("padding后两个数值需小于self倒数第三维度的数值")
                low, high = (size, found.high) if found.low is bound else (found.low, size)
                pairs.append(replace(found, low=low, high=high, elements=(2 * pair, 2)))
            return pairs
        if self._ONE_EACH.search(row):
            return [found]
        self.rules.unread(self.api, text.line, found.param, text.text,
                          "its row does not say which dimension each element stands for")
        return []

    def _ranks_bounded(self, rule: ValueRange) -> bool:
        """Whether a range of the argument by the same tensor's rank is read already, in whichever form
        ("[-rank(self), rank(self))" of the parameter's row is "[-rank(self), rank(self) - 1]" of its error row)."""
        def by_rank(bound: Optional[Bound], tensor: str) -> bool:
            return bound is not None and bound.extent is Extent.RANK and bound.tensor == tensor

        tensor = rule.low.tensor if rule.low is not None else ""
        return bool(tensor) and any(r.param == rule.param and by_rank(r.low, tensor) and by_rank(r.high, tensor)
                                    for r in self.rules.value_ranges)

    def _add_value(self, bucket: list, rule) -> None:
        """A value range or set of the sentence being read, with its chips, its condition and its
        text's status."""
        if self.when is not None and self.when.param == rule.param:
            return  # "mode为1时，mode..." names the value it is under: no rule of it
        self.rules.add(bucket, replace(rule, products=self.products, status=self.status, when=self.when))

    # -- a dimension's length in bytes: a least one, an alignment ---------------------------------

    # "x1、x2、beta、gamma、biasOptional五个输入的尾轴长度必须大于等于32 Bytes", "x、y的尾轴长度，以及gamma的
    # 尾轴长度必须大于等于32 Bytes", "The length of the last axis of the inputs x and gamma must be greater than
    # or equal to 32 bytes": the tensors' last axis, a least number of bytes. Each tensor's own "尾轴" may
    # be repeated before it; another axis ("norm轴") is not read.
    _LEAST_BYTES = (
        lazy_pattern(r"^(?P<names>.{1,300}?)的?尾轴长度\s*(?:必须|需要|需|应)?\s*(?:大于等于|不小于|>=|≥)\s*"
                   r"(?P<n>\d+)\s*(?:Bytes?|字节)\s*[。.]?\s*$", re.I),
        lazy_pattern(r"^The\s+length\s+of\s+the\s+last\s+axis\s+of\s+(?:the\s+inputs?\s+)?(?P<names>.{1,300}?)\s+must\s+be\s+"
                   r"greater\s+than\s+or\s+equal\s+to\s+(?P<n>\d+)\s+bytes?\s*\.?\s*$", re.I))
    # "不支持入参x的最后一个维度S2非32Byte对齐的场景", "The last dimension S2 of the input parameter x must be
    # 32-byte aligned": the last axis (a letter may name it), a multiple of a number of bytes.
    _ALIGNED_BYTES = (
        lazy_pattern(r"^不支持(?:入参|输入)?(?P<names>.{1,300}?)的(?:最后一个维度|最后一维|尾轴)(?:\s*[A-Z][A-Za-z0-9]{0,3})?"
                   r"\s*非\s*(?P<n>\d+)\s*(?:Bytes?|B|字节)\s*对齐的场景\s*[。.]?\s*$", re.I),
        lazy_pattern(r"^The\s+last\s+dimension(?:\s+[A-Z][A-Za-z0-9]{0,3})?\s+of\s+(?:the\s+input\s+(?:parameters?\s+)?)?"
                   r"(?P<names>.{1,300}?)\s+must\s+be\s+(?P<n>\d+)-byte\s+aligned\s*\.?\s*$", re.I))
    # "x1、x2、y1Out的norm轴长度，以及gamma、scales1的长度必须大于等于32 Bytes", "The length of the norm axis of
    # x1, x2 and xOut and the length of gamma and scales1 must be greater than or equal to 32 bytes": the
    # whole of the second tensors (every element), a least number of bytes. The first ones' norm axes are
    # the dimensions the second ones have (their pages: "gamma: shape与x1需要norm的维度保持一致"), so those
    # bytes are the same, and no rule of their own.
    _WHOLE_BYTES = (
        re.compile(r"^(?P<axes>.{1,300}?)的\s*norm\s*轴长度\s*[,，]?\s*以及\s*(?P<names>.{1,300}?)的长度\s*(?:必须|需要|需|应)?\s*"
                   r"(?:大于等于|不小于|>=|≥)\s*(?P<n>\d+)\s*(?:Bytes?|字节)\s*[。.]?\s*$", re.I),
        re.compile(r"^The\s+length\s+of\s+the\s+norm\s+axis\s+of\s+(?P<axes>.{1,300}?)\s+and\s+the\s+length\s+of\s+"
                   r"(?P<names>.{1,300}?)\s+must\s+be\s+greater\s+than\s+or\s+equal\s+to\s+(?P<n>\d+)\s+bytes?\s*\.?\s*$", re.I))
    # What may join the tensors' names: list separators, "以及", "and", "输入(的)", "N个输入", "的尾轴长度".
    _BYTES_JOINS = lazy_pattern(r"的?尾轴长度|[、,，]|以及|\band\b|[一二三四五六七八九十\d]+个输入|输入的?|\s+", re.I)

    def _least_bytes(self, sentence: str, text: Text) -> None:
        if not self.products or text.error_row:
            # Held on every chip, a length in bytes is a different knowledge (the ones seen sit under a
            # product's bullet, which the sentence does not carry): read where a product opens it only.
            return
        plain = _clean(self._chips_opening(sentence)[1])
        read: tuple[tuple[tuple[re.Pattern[str], ...], str, Optional[int]], ...] = (
            (self._LEAST_BYTES, "minimum", -1), (self._ALIGNED_BYTES, "multiple", -1), (self._WHOLE_BYTES, "minimum", None))
        for patterns, bound, axis in read:
            for pattern in patterns:
                found = pattern.match(plain)
                if found is None:
                    continue
                names = self._byte_tensors(found.group("names"))
                if not names or "axes" in pattern.groupindex and not self._byte_tensors(found.group("axes")):
                    self.rules.unread(self.api, text.line, text.subject or "constraints", sentence,
                                      "a length in bytes of something else than tensors' last axis or whole length")
                    return
                for name in names:
                    self.rules.add(self.rules.dim_bytes, DimBytes(name, axis, line=text.line, products=self.products,
                                                                  status=self.status,
                                                                  **{bound: int(found.group("n"))}))
                return

    # An array's element product against a tensor's spatial dimensions' (aclnnMaxUnpool2d's outputSize): stated in
    # its row ("两个元素乘积值需大于等于self在H和W维度上的size乘积值", "The product of two elements must be greater than
    # or equal to the product of the sizes of self in the H and W dimensions") or refused by an error row
    # ("outputSize的两个元素乘积值小于self在H和W维度上的size乘积值", "outputSize的乘积小于self的H轴与W轴的乘积", "The
    # product of outputSize is less than the product of the H and W axes of self").
    _LETTERS = r"(?P<dims>[DHW](?:\s*轴)?(?:\s*(?:(?:、|,|和|与)\s*(?:and\s+)?|and\s+)[DHW](?:\s*轴)?)*)"
    _CN_ELEMENTS = r"(?:(?P<a>[A-Za-z_]\w*)\s*的\s*)?(?:[两三四]个|所有)?\s*(?:元素)?\s*(?:的\s*)?乘积(?:值)?\s*"
    _CN_DIMS = rf"(?P<t>[A-Za-z_]\w*)\s*(?:在\s*{_LETTERS}\s*(?:维度|维|轴)\s*上\s*的\s*(?:size|大小)?|的\s*{_LETTERS.replace('dims', 'dims2')})\s*(?:的\s*)?乘积"
    _EN_ELEMENTS = r"the\s+product\s+of\s+(?:(?:two|three|four|all)\s+elements(?:\s+of\s+)?)?\s*(?P<a>[A-Za-z_]\w*)?\s*"
    _EN_DIMS = (rf"the\s+product\s+of\s+(?:the\s+)?(?:sizes\s+of\s+(?P<t>[A-Za-z_]\w*)\s+in\s+the\s+{_LETTERS}\s+dimensions"
                rf"|(?:the\s+)?{_LETTERS.replace('dims', 'dims2')}\s+(?:axes|dimensions)\s+of\s+(?P<t2>[A-Za-z_]\w*))")
    _PRODUCT_STATED = (
        lazy_pattern(_CN_ELEMENTS + r"(?:需要|需|必须|应)?\s*(?:大于等于|不小于|>=|≥)\s*" + _CN_DIMS),
        lazy_pattern(_EN_ELEMENTS + r"(?:must|should)\s+be\s+greater\s+than\s+or\s+equal\s+to\s+" + _EN_DIMS, re.I))
    _PRODUCT_REFUSED = (
        lazy_pattern(_CN_ELEMENTS + r"小于\s*" + _CN_DIMS),
        lazy_pattern(_EN_ELEMENTS + r"(?:is|are)\s+less\s+than\s+" + _EN_DIMS, re.I))

    def _products(self, sentence: str, text: Text, conditional: bool) -> None:
        if "乘积" not in sentence and "product" not in sentence.lower():
            return
        plain = _clean(sentence)
        for pattern in self._PRODUCT_REFUSED if text.error_row else self._PRODUCT_STATED:
            for found in pattern.finditer(plain):
                groups = found.groupdict()
                array, tensor = groups.get("a") or text.subject, groups.get("t") or groups.get("t2")
                letters = re.findall(r"[DHW]", groups.get("dims") or groups.get("dims2") or "")
                if array not in self.params or self.params[array].kind is not ParamKind.INT_ARRAY or \
                        tensor not in self.params or self.params[tensor].kind is not ParamKind.TENSOR:
                    continue
                if conditional:
                    self.rules.unread(self.api, text.line, array, found.group(0), "it holds under a condition")
                    continue
                # The spatial letters of the layouts these pages name (NCHW, NCDHW) stand for the last
                # dimensions: W the last, H the one before, D the one before that.
                if "".join(letters) not in ("W", "HW", "DHW"):
                    self.rules.unread(self.api, text.line, array, found.group(0), "dimensions this parser cannot place")
                    continue
                self.rules.add(self.rules.array_products, ArrayProduct(array, tensor, len(letters), text.line, text.status))

    def _byte_tensors(self, listed: str) -> list[str]:
        """The tensors a byte rule lists, each once; [] when it lists anything else."""
        names = [n for n in self._BYTES_JOINS.split(listed) if n]
        if any(n not in self.params or self.params[n].kind is not ParamKind.TENSOR for n in names):
            return []
        return list(dict.fromkeys(names))

    # -- value ranges ----------------------------------------------------------------------------

    # "在[-selfRef.dim(), selfRef.dim() - 1]范围内", "dim的值不在[-N, N-1]之间": "在" right before the range.
    _TRIGGER = lazy_pattern(r"(?:取值)?范围|取值(?:需要|必须|应|不)?(?:在|为)|(?:in|out\s+of)\s+(?:the\s+)?range|range\s+(?:of|is)|"
                          r"在\s*(?=[\[(])", re.I)
    _BRACKET = lazy_pattern(r"([\[(])([^\[\]()]{1,60}?),([^\[\]()]{1,60}?)([\])])")
    _UNION = lazy_pattern(r"\s*(?:之内|以内|内)?\s*(?:或者|或是|或|、|,|\bor\b|∪|U)\s*[\[(]", re.I)

    # "[1, min(E, 1024)]", "[max(a, b), c]": an end both of whose terms bound, read as one range per term.
    _BOTH_BOUND = lazy_pattern(r"(?:,\s*min\s*\(\s*([^(),]{1,40}?)\s*,\s*([^(),]{1,40}?)\s*\)(?=\s*[\])])|"
                               r"(?<=[\[(])\s*max\s*\(\s*([^(),]{1,40}?)\s*,\s*([^(),]{1,40}?)\s*\)(?=\s*,))")

    def _ranges(self, sentence: str, text: Text, conditional: bool) -> None:
        trigger = self._TRIGGER.search(sentence)
        if trigger is None:
            return
        both = self._BOTH_BOUND.search(sentence, trigger.end())
        if both is not None:
            # A value at most the least of two terms is at most each ("取值范围为[1, min(E, 1024)]": k <= E and
            # k <= 1024); at least the greatest of two, at least each.
            # Both or neither: where one term does not read (or holds under a condition), the other alone
            # would be a range the page does not state, and the sentence is diagnosed as it stands.
            upper = both.group(1) is not None
            ranges, diagnostics = list(self.rules.value_ranges), len(self.rules.diagnostics)
            for term in (both.group(1), both.group(2)) if upper else (both.group(3), both.group(4)):
                self._ranges(sentence[:both.start()] + (", " if upper else "") + term + sentence[both.end():], text,
                             conditional)
            if len(self.rules.diagnostics) > diagnostics:
                self.rules.value_ranges[:] = ranges
                del self.rules.diagnostics[diagnostics:]
                subject = self._range_subject(sentence[:trigger.start()], text)
                if subject is not None:
                    self.rules.unread(self.api, text.line, subject, sentence, "a bound this parser cannot read")
            return
        # Rank and size terms as placeholders first: their parentheses are not the range's.
        terms: list[tuple[str, str, str]] = []

        def hold(kind: str, tensor: str, axis: str = "") -> str:
            terms.append((kind, tensor, axis))
            return f"§{len(terms) - 1}§"

        def size(m: re.Match[str]) -> str:
            axis = m.group(2)
            if m.group(1) in self.tensors and (axis in self.params or axis.lstrip("-").isdigit()):
                return hold("size", m.group(1), axis)
            return m.group(0)

        def rank(m: re.Match[str]) -> str:
            tensor = m.group(1) or m.group(2) or m.group(3) or m.group(4)
            return hold("rank", tensor) if tensor in self.tensors else m.group(0)

        held = self._SIZE.sub(size, sentence)
        held = self._RANK.sub(rank, held)
        for letter, tensor in self.letters.items():
            held = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(letter)}(?![A-Za-z0-9_])", lambda m: hold("rank", tensor), held)
        for letter, (tensor, axis) in self.size_letters.items():
            if letter not in self.letters:
                held = re.sub(rf"(?<![A-Za-z0-9_§]){re.escape(letter)}(?![A-Za-z0-9_§])",
                              lambda m: hold("size", tensor, str(axis)), held)
        start = self._TRIGGER.search(held)
        assert start is not None
        bracket = self._BRACKET.search(held, start.end())
        if bracket is None or bracket.start() - start.end() > 12:
            return
        subject = self._range_subject(held[:start.start()], text)
        if self._CALLED.search(held, 0, bracket.start()):
            # "[1, min(E, 1024)]": the parentheses a function's, not an open range's.
            if subject is not None and self.params[subject].kind in _INTEGRAL:
                self.rules.unread(self.api, text.line, subject, sentence, "a bound this parser cannot read")
            return
        named_after = self._NAMED_AFTER.match(held, start.end())
        if named_after and named_after.group(1) in self.params:
            subject = named_after.group(1) if _host(self.params[named_after.group(1)]) else None  # "range of dim is"
        # "`balanceMode=0`时取值范围[2, 768]" (aclnnMoeUpdateExpert's worldSize): a condition glued
        # to the range, without the comma CONDITION asks for.
        if conditional and self._unconditional_range(held[:bracket.start()], held[bracket.end():]):
            conditional = False
        conditional = conditional or bool(_GLUED_WHEN.search(held[:start.start()]))
        if subject is None:
            return
        param = self.params[subject]
        if any(terms[int(i)][2] == subject for i in re.findall(r"§(\d+)§", bracket.group(0))):
            # "[-self.shape[dim], self.shape[dim]-1]" bounds an index along dim, not dim itself.
            return
        if self._SENTINEL.match(held, bracket.end()):
            # "取值范围为[-self.dim(), self.dim())，传入1000表示不指定维度" (aclnnUniqueConsecutive):
            # a value outside the range that means something else; the kernel checks both.
            if param.kind in _INTEGRAL:
                self.rules.unread(self.api, text.line, subject, sentence, "a value outside the range has a meaning of its own")
            return
        if self._UNION.match(held, bracket.end()):
            # "[-len+1, -1)或者[1, len-1)": a union of ranges; one of them alone would refuse the other.
            if param.kind in _INTEGRAL:
                self.rules.unread(self.api, text.line, subject, sentence, "a union of ranges")
            return
        if "," in bracket.group(3) and self._NUMBERS.fullmatch(bracket.group(0)):
            return  # "[0, 1, 2]": a list of values, which gen.parse.extractors.comparisons reads
        low = self._bound(bracket.group(2), bracket.group(1) == "[", terms)
        high = self._bound(bracket.group(3), bracket.group(4) == "]", terms)
        if any(b and b.extent is Extent.VALUE and (b.tensor == subject or param.kind is ParamKind.INT_ARRAY)
               for b in (low, high)) or \
                any(b and b.extent is Extent.ELEMENT and (b.tensor == subject or param.kind is not ParamKind.INT_ARRAY)
                    for b in (low, high)):
            low = False  # itself, or an array's every element against one value: no page means that
        if low is False or high is False:
            if param.kind in _INTEGRAL:
                self.rules.unread(self.api, text.line, subject, sentence, "a bound this parser cannot read")
            return
        numeric = all(b is None or b.extent is Extent.NUMBER for b in (low, high))
        if numeric and param.kind not in _INTEGRAL and param.kind not in _HOST_REAL:
            return  # a range of a tensor's values: not a phase-1 check
        if param.kind not in _INTEGRAL and param.kind not in _HOST_REAL and param.kind is not ParamKind.SCALAR:
            return
        if (high and high.extent is Extent.RANK and high.sign == 1 and high.offset == -1 and not high.inclusive
                and low and low.extent is Extent.RANK and low.sign == -1):
            # "[-self.dim(), self.dim()-1)" (aclnnCummin's table; its error row says "-1]"): a
            # dimension index that could not reach the last dimension is a slip for [-rank, rank).
            high = replace(high, inclusive=True)
        if (high and high.extent is Extent.RANK and high.sign == 1 and high.offset == 0 and high.inclusive
                and low and low.extent is Extent.RANK and low.sign == -1):
            # "[-rank(input), rank(input)]" (aclnnInplaceCumprod): no tensor has a dimension numbered
            # rank; the index of a dimension it is, [-rank, rank).
            high = replace(high, inclusive=False)
        positive_rank = _POSITIVE_RANK.search(sentence)
        if conditional and _whole_rank_range(low, high) and positive_rank and low is not None and \
                positive_rank.group(1) == low.tensor:
            # "当self.dim()>0时, dim的取值范围[-self.dim(), self.dim()-1]" beside "当self.dim()=0时, [-1, 0]":
            # one range, [-rank, rank), as a 0-d tensor's rank counts as 1 (Extent.RANK).
            conditional = False
        zero_rank = _ZERO_RANK.search(sentence)
        if conditional and zero_rank and zero_rank.group(1) in self.tensors and _rank_zeros_range(low, high):
            # "当self.dim()=0时, 参数dim的取值范围不在[-1, 0]内": what [-rank(self), rank(self)) is at rank 0 (a 0-d
            # tensor's rank counts as 1); read_rules keeps it unread unless the API states that range.
            self.rank_zero_ranges.append((subject, zero_rank.group(1), text.line, sentence))
            return
        if conditional:
            self.rules.unread(self.api, text.line, subject, sentence, "it holds under a condition")
            return
        if low is None and high is None:
            return
        self._add_value(self.rules.value_ranges, ValueRange(subject, low, high, text.line))

    _CALLED = lazy_pattern(r"(?:min|max|ceil|floor|abs)\s*$", re.I)
    _SENTINEL = lazy_pattern(r"[，,；;\s]*传入\s*-?\d+\s*表示")
    _NUMBERS = lazy_pattern(r"\[\s*-?\d+(?:\s*,\s*-?\d+)+\s*\]")
    # English names what a range bounds after it: "the value range of dim is [...]".
    _NAMED_AFTER = lazy_pattern(r"(?<=of)\s+(?:the\s+)?([A-Za-z_]\w*)\s+(?:is|must\s+be|should\s+be)\b", re.I)
    _LATER_CLAUSE = lazy_pattern(r"^\s*[)）]?\s*[,，]")
    _ENGLISH_CONDITION = lazy_pattern(r"\b(?:if|when|unless|only|except)\b", re.I)

    def _unconditional_range(self, before: str, after: str) -> bool:
        """Whether a range whose sentence holds a condition holds whatever it says: the condition is
        in a later clause of its own ("取值范围为[-self.dim(), self.dim())，dim数组长度为0时，对所有轴做
        ReduceNansum计算", "取值范围为[...]，若self的dim为0或者1，axis=0": what the later clause adds
        narrows the range, it never widens it), and no other range follows that the condition could
        choose instead ("..., 其它模式取值范围[0, 10240]"). A default is no condition ("若不指定则默认为-1，
        范围在[-self维度数量，self维度数量-1]": aclnnLinalgCross). English states conditions after what
        they govern ("in [0, 1] when ..."): kept conditional."""
        before = ",".join(clause for clause in re.split(r"[,，]", before) if not _DEFAULT.search(clause))
        if CONDITION.search(before) or vocab.socs_in(before):
            return False
        if self._TRIGGER.search(after) or self._ENGLISH_CONDITION.search(after):
            return False
        return bool(self._LATER_CLAUSE.match(after)) or not CONDITION.search(after)

    # A code identifier that is no parameter ("strideH and strideW must be in the range [1, 63]"),
    # or elements of one ("size中的N、H、W的取值"): the range is of part of the argument.
    _PART = lazy_pattern(r"(?<![A-Za-z0-9_])(?:[a-z]+[A-Z]\w*|[A-Za-z]+_\w+)(?![A-Za-z0-9_])|中的\s*[A-Z](?:\s*[、,/]\s*[A-Z])+")

    def _range_subject(self, before: str, text: Text) -> Optional[str]:
        """The host parameter whose range it is. The clause of the trigger speaks of what it names
        first ("dim取值范围为..."); a clause that names nothing speaks of the row's parameter, and a
        constraints line of the first parameter its sentence names ("dims数组长度与shifts一致，取值
        范围..." is about dims). A tensor named first means the tensor's values, which phase 1 does
        not check; so does a clause about part of the argument."""
        clause = re.split(r"[,，:：]", before)[-1]
        named = [m.group(0) for m in name_matches(self.names, clause)]
        if not named:
            if self._PART.search(self._without_names(clause)):
                return None
            if text.subject is not None:
                named = [text.subject]
            else:
                named = [m.group(0) for m in name_matches(self.names, before)][:1]
        if not named or not _host(self.params[named[0]]):
            return None
        return named[0]

    def _without_names(self, text: str) -> str:
        return _IDENTIFIER_PATTERN.sub(lambda m: " " if m.group(0) in self.names else m.group(0), text)

    _NUMBER = lazy_pattern(r"^[-+]?\d+(?:\.\d+)?$")
    _TERM = lazy_pattern(r"^([-+]?)\s*§(\d+)§\s*(?:([-+])\s*(\d+))?$")

    # Another array's element at the same position, as a bracket's end (its blanks removed).
    _SAME_ELEMENT = lazy_pattern(r"([A-Za-z_]\w*?)(?:的)?(?:对应(?:的)?(?:维度|维|位置)(?:的)?(?:数值|值|大小)|"
                                 r"values?atthecorresponding(?:dimension|position))", re.I)

    def _bound(self, text: str, inclusive: bool, terms: list[tuple[str, str, str]]):
        """A Bound, None for an infinite end, False for one that cannot be read."""
        text = text.strip().replace(" ", "")
        if re.fullmatch(r"[-+]?(?:inf|∞|INF|Inf)", text) or text in ("+∞", "-∞"):
            return None
        if self._NUMBER.match(text):
            return Bound(offset=float(text), inclusive=inclusive)
        if text in _NAMED_LIMITS:
            # "[0, MAX_INT32)，其中MAX_INT32值为2147483647": C's limits by the names the pages give them.
            return Bound(offset=float(_NAMED_LIMITS[text]), inclusive=inclusive)
        valued = self.params.get(text)
        if valued is not None and valued.kind in _VALUED:
            # "[0, epWorldSize)", "[-1, numWeights)": another host argument's value.
            return Bound(extent=Extent.VALUE, tensor=text, inclusive=inclusive)
        quotient = re.fullmatch(r"([A-Za-z_]\w*)/([1-9]\d*)", text)
        if quotient is not None and quotient.group(1) in self.params and \
                self.params[quotient.group(1)].kind is ParamKind.INT_ARRAY:
            # "[0, kernelSize/2]": the same element of another array, halved.
            return Bound(extent=Extent.ELEMENT, tensor=quotient.group(1), divisor=int(quotient.group(2)),
                         inclusive=inclusive)
        element = self._SAME_ELEMENT.fullmatch(text)
        if element is not None and element.group(1) in self.params and \
                self.params[element.group(1)].kind is ParamKind.INT_ARRAY:
            # "[0,stride对应维度数值)", "[0, stride value at the corresponding dimension)": the same element
            # of another array (aclnnConvolutionBackward's outputPadding).
            return Bound(extent=Extent.ELEMENT, tensor=element.group(1), inclusive=inclusive)
        term = self._TERM.match(text)
        if term is None:
            return False
        kind, tensor, axis = terms[int(term.group(2))]
        offset = float(term.group(4) or 0) * (-1 if term.group(3) == "-" else 1)
        sign = -1 if term.group(1) == "-" else 1
        if kind == "rank":
            return Bound(offset=offset, extent=Extent.RANK, sign=sign, tensor=tensor, inclusive=inclusive)
        if not (axis.lstrip("-").isdigit() or (axis in self.params and self.params[axis].kind is ParamKind.INT)):
            return False
        return Bound(offset=offset, extent=Extent.SIZE, sign=sign, tensor=tensor, axis=axis, inclusive=inclusive)

    # An error row refusing too few dimensions but one count ("self维度大于8，或小于2且不是0").
    _RANK_EXCEPTION = lazy_pattern(r"(?:维度|维数)[^。;；]{0,20}?小于\s*(\d+)\s*且不(?:是|为|等于)\s*(\d+)")

    def _rank_exception(self, sentence: str, text: Text) -> None:
        """Diagnoses an error row that exempts a rank the parameter table's lower bound refuses
        (aclnnInplaceTril: "2-8" in its table, "小于2且不是0" in its error row): the page contradicts
        itself; the table's rank stays, the one the API's tensors are checked with."""
        found = self._RANK_EXCEPTION.search(sentence)
        if found is None:
            return
        low, exempt = int(found.group(1)), int(found.group(2))
        for param in self.params.values():
            if param.kind is ParamKind.TENSOR and param.rank is not None and param.rank[0] == low and exempt < low:
                diag = Diagnostic(Level.INFO, text.line, "rank-row-contradicts-table",
                                  f"{self.api}.{param.name}: the error table exempts {exempt} dimensions from the "
                                  f"lower bound the table's rank {param.rank[0]}-{param.rank[1]} states; the table's "
                                  f"rank is checked")
                if diag not in self.rules.diagnostics:
                    self.rules.diagnostics.append(diag)

    # -- array lengths ---------------------------------------------------------------------------

    # "长度为1或2", "数组长度必须为0、1或3", "长度仅支持1、2", "size为4", "长度固定为3", "The length can only be
    # 1 or 2" (a row or a constraint); "kernelSize的长度不等于1或者2", "padding的size大小不等于4", "The length
    # of stride is not 0, 1, or 2" (an error row, which states what is refused); "长度为0或长度为1或2" is one
    # list. A list that a condition follows ("长度为1或3时") is no rule of lengths.
    _LENGTH_LIST = (r"(?P<list>\d+(?:\s*(?:,\s*(?:or\b|and\b)?|、|或者|或|和|\bor\b)\s*(?:(?:数组)?长度\s*(?:为|是))?\s*\d+)*)"
                    r"(?=\s*(?:$|[,;:)]|的|且|并且|\band\b))")
    _ARRAYS = (ParamKind.INT_ARRAY, ParamKind.FLOAT_ARRAY, ParamKind.BOOL_ARRAY)
    # "(kH=kW)", "(K_H, K_W)": what the listed lengths stand for, not part of the list.
    _GLOSS = lazy_pattern(r"\([^()]*\)")

    # "当数组长度为0时", "strides的长度为0时", "数组为空时", "When the array length is 0", "When the number
    # of elements in stride is 0".
    _EMPTY_MEANT = (
        NamedPattern(rf"(?:(?P<names>{NAME})\s*(?:的)?\s*)?(?:数组)?\s*(?:长度\s*(?:为|是|等于|=)\s*0|为空)\s*时"),
        NamedPattern(rf"\bwhen\s+the\s+(?:array\s+|(?P<names>{NAME})\s+)?length\s+is\s+0\b", re.I),
        NamedPattern(rf"\bwhen\s+the\s+number\s+of\s+elements\s+in\s+(?P<names>{NAME})\s+is\s+0\b", re.I))

    # The patterns of what a row or a constraint states, and of what an error row refuses.
    _LIST_SEPARATOR = r"\s*(?:、|,|或者|或|和|\bor\b|\band\b)\s*"
    _LENGTH_NAMES = f"(?P<names>{name_list(_LIST_SEPARATOR)})"
    # "size" as a word: not the end of batch_size or of an identifier.
    _LENGTH_WORD = r"(?:数组)?\s*(?:长度|元素个数|(?<![A-Za-z0-9_])size)\s*(?:大小)?\s*"
    _LENGTHS_STATED = (
        NamedPattern(rf"(?:{_LENGTH_NAMES}\s*(?:的)?\s*)?{_LENGTH_WORD}(?:必须|需要|需|应该|应|要求)?\s*"
                     rf"(?:仅支持|只支持|只能|仅能|固定|恒)?\s*(?:为|是|等于|=)\s*{_LENGTH_LIST}"),
        NamedPattern(rf"\b(?:the\s+)?(?:array\s+)?length(?:\s+of\s+(?:the\s+)?{_LENGTH_NAMES})?\s+"
                     rf"(?:can\s+only\s+be|must\s+be|can\s+be|should\s+be|is)\s+{_LENGTH_LIST}", re.I))
    _LENGTHS_REFUSED = (
        NamedPattern(rf"{_LENGTH_NAMES}\s*(?:的)?\s*{_LENGTH_WORD}(?:不等于|不为|不是)\s*{_LENGTH_LIST}"),
        NamedPattern(rf"\b(?:the\s+)?length\s+of\s+(?:the\s+)?{_LENGTH_NAMES}\s+is\s+not\s+{_LENGTH_LIST}", re.I))

    @functools.cached_property
    def _has_arrays(self) -> bool:
        """Whether the API has an array parameter: asked once per API, not per sentence (per sentence,
        5,000 documented parameters cost 25 million checks, 41 of a parse's 58 profiled seconds)."""
        return any(p.kind in self._ARRAYS for p in self.params.values())

    def _lengths(self, sentence: str, text: Text) -> None:
        if not self._has_arrays or \
                not any(word in sentence for word in ("长度", "元素个数", "size", "length", "Length")):
            return
        plain = self._GLOSS.sub("", sentence)
        for pattern in self._EMPTY_MEANT:
            for empty in pattern.finditer(self.names, plain):
                named = [m.group(0) for m in name_matches(self.names, empty.group("names") or "")] or \
                    ([text.subject] if text.subject else [])
                self.zero_length_meant.update(n for n in named if self.params[n].kind in self._ARRAYS)
        for pattern in self._LENGTHS_REFUSED if text.error_row else self._LENGTHS_STATED:
            for match in pattern.finditer(self.names, plain):
                self._length(plain[:match.start()], match, text)

    def _length(self, before: str, match: re.Match[str], text: Text) -> None:
        """The rule of one statement of lengths, unless what precedes it in its sentence makes it one
        case of several."""
        if CONDITION.search(before) or vocab.socs_in(before) or re.search(r"对于|\bfor\b", before, re.I):
            return  # "对于一维卷积反向，数组长度必须为1": one case of several
        if name_matches(self.names, re.split(r"[,;:]", before)[-1]):
            return  # "dims为空但shifts长度不为1": under what another argument is
        named = [m.group(0) for m in name_matches(self.names, match.group("names") or "")]
        if not named and text.subject is not None and not text.error_row:
            named = [text.subject]
        lengths = tuple(sorted({int(n) for n in re.findall(r"\d+", match.group("list"))}))
        for name in named:
            if self.params[name].kind in self._ARRAYS:
                self.rules.add(self.rules.array_lengths, ArrayLength(name, lengths, text.line, text.status))

    # -- dimensions ------------------------------------------------------------------------------

    _AXIS = (r"(?:第\s*(?P<{0}n>\d+|[零一二两三四五六七八九十])\s*(?:个)?(?:维|轴)(?:度)?|"
             r"(?P<{0}last>最后一(?:个)?维(?:度)?|最后一根轴|尾轴|末维|最后一个轴)|"
             r"倒数第\s*(?P<{0}back>\d+|[一二两三四五六七八九十])\s*(?:个)?(?:维|轴)(?:度)?)")

    def _axis(self, match: re.Match, prefix: str, tensor: Optional[str]) -> tuple[Optional[int], str]:
        """The axis a match names (negative from the end), or None and why it is not read.

        "第N维" counts from 0 where the text itself says "第0维"; "第一维" (a Chinese ordinal) counts
        from 1 on a page that never counts from 0. Otherwise the count is ambiguous (aclnnGroupQuant's
        table says "第2维" of 2-D tensors and its constraints "第0维"), unless the tensor's documented
        rank settles it: "第2维" of a tensor of at most 2 dimensions is the second."""
        if match.group(prefix + "last"):
            return -1, ""
        back = match.group(prefix + "back")
        if back:
            return -(int(back) if back.isdigit() else _CN_DIGITS[back]), ""
        number = match.group(prefix + "n")
        ordinal = not number.isdigit()
        n = _CN_DIGITS[number] if ordinal else int(number)
        if n == 0 or (self.text_zero_based and not ordinal):
            return n, ""
        if ordinal and not self.zero_based:
            return n - 1, ""  # 第一维: the first
        rank = self.params[tensor].rank if tensor in self.params else None
        if rank is not None and n >= rank[1]:
            return n - 1, ""  # counting from 0 would name a dimension the tensor does not have
        where = "the page counts from 0 elsewhere" if self.zero_based else "the page never counts from 0"
        return None, f"'第{number}维' and {where}: the first or the second?"

    _ARITHMETIC = lazy_pattern(r"\s*(?:的)?\s*(?:数值|值|大小)?\s*(?:加|减|乘|除|\+|-|\*|/|×|的\s*\d+\s*倍|倍)")

    # Any axis phrase: a sentence without one states no equality of dimensions.
    _ANY_AXIS = lazy_pattern(_AXIS.format("any"))

    _DIM_EQUALITY = NamedPattern(
        rf"(?P<a>{NAME})?\s*(?:的)?\s*(?:shape)?\s*(?:的)?\s*{_AXIS.format('a')}\s*(?:的)?\s*"
        rf"(?:大小|长度|size|数值|值|维度|shape)?\s*(?:需要|必须|要|应|应该)?\s*(?:和|与|跟|等于)\s*"
        rf"(?P<b>{NAME})\s*(?:的)?\s*(?:shape)?\s*(?:的)?\s*{_AXIS.format('b')}\s*(?:的)?\s*"
        rf"(?:大小|长度|size|数值|值|维度|shape)?\s*(?:保持|需要|必须)?\s*(?P<eq>一致|相等|相同|不一致|不相等|不相同|不同)?")

    # "shape大小与output最后一维大小相等" (bias's), "bias shape与输出tensor(out)最后一个维度的大小不一致": a tensor's
    # whole size against one dimension of another's.
    _SIZE_EQUALITY = NamedPattern(
        rf"(?P<a>{NAME})?\s*(?:的)?\s*(?:shape\s*(?:的)?\s*(?:大小|长度|size)?|大小|长度|size)\s*(?:需要|必须|要|应|应该)?\s*"
        rf"(?:和|与|跟|等于)\s*(?:(?:输出|输入)?\s*(?:tensor|Tensor|张量)\s*[(（]\s*(?P<wrapped>{NAME})\s*[)）]|(?P<b>{NAME}))"
        rf"\s*(?:的)?\s*(?:shape)?\s*(?:的)?\s*{_AXIS.format('b')}\s*(?:的)?\s*"
        rf"(?:大小|长度|size|数值|值)?\s*(?:保持|需要|必须)?\s*(?P<eq>一致|相等|相同|不一致|不相等|不相同|不同)")

    _AFTER_AXIS = lazy_pattern(r"(?:维|轴)(?:度)?\s*(?:的)?\s*$")

    def _size_equalities(self, sentence: str, text: Text, conditional: bool) -> None:
        """A one-dimensional tensor's size equal to a dimension of another: DimEquality(a, 0, b, axis).
        A tensor of other ranks (or none documented) is diagnosed: its size is no one dimension."""
        for match in self._SIZE_EQUALITY.finditer(self.tensors, sentence):
            if self._AFTER_AXIS.search(sentence, 0, match.start()):
                continue  # "尾轴大小与grad尾轴相同": a dimension's size, _DIM_EQUALITY's
            a = match.group("a") or (text.subject if text.subject in self.tensors else None)
            b = match.group("b") or match.group("wrapped")
            if a is None or a == b:
                continue
            if conditional:
                self.rules.unread(self.api, text.line, a, match.group(0), "it holds under a condition")
                continue
            other_axis, why = self._axis(match, "b", b)
            if self.params[a].rank != (1, 1):
                why = f"{a}'s whole size, and {a} is not documented one-dimensional"
            if other_axis is None or why:
                self.rules.unread(self.api, text.line, a, match.group(0), why)
                continue
            self.rules.add(self.rules.dim_equalities, DimEquality(a, 0, b, other_axis, text.line))

    def _dims(self, sentence: str, text: Text, conditional: bool) -> None:
        if not self._ANY_AXIS.search(sentence):
            return
        self._size_equalities(sentence, text, conditional)
        for match in self._DIM_EQUALITY.finditer(self.tensors, sentence):
            if not match.group("eq") and "等于" not in match.group(0):
                continue
            a = match.group("a") or (text.subject if text.subject and
                                      self.params[text.subject].kind is ParamKind.TENSOR else None)
            b = match.group("b")
            if a is None or a == b:
                continue
            if conditional:
                self.rules.unread(self.api, text.line, a, match.group(0), "it holds under a condition")
                continue
            if self._ALTERNATIVE.search(sentence):
                # "shape与x1一致，或者是二维并且...第二维等于x1的最后一维": one alternative of several.
                self.rules.unread(self.api, text.line, a, sentence, "one alternative of a disjunction")
                continue
            arranged = self._arranged_by(a) or self._arranged_by(b)
            if arranged:
                # aclnnTransposeBatchMatMul: which dimension of x1 is which follows permX1.
                self.rules.unread(self.api, text.line, a, match.group(0),
                                  f"the tensor's dimensions are arranged by {arranged}")
                continue
            axis, why = self._axis(match, "a", a)
            other_axis, other_why = self._axis(match, "b", b)
            if axis is None or other_axis is None:
                self.rules.unread(self.api, text.line, a, match.group(0), why or other_why)
                continue
            if self._ARITHMETIC.match(sentence, match.end()):
                # "out最后一维度的数值等于self最后一维度的数值加padding前两个值": a sum, not an equality; a
                # padded dimension when its addend is a pair of an integer array (read_rules assembles them).
                addend = self._PAD_ADDEND.match(sentence, match.end())
                array = self.params.get(addend.group("array")) if addend else None
                if addend and array is not None and array.kind is ParamKind.INT_ARRAY and axis == other_axis < 0:
                    self.pad_clauses.append(_PadClause(a, b, array.name, axis, addend.group("part") or "", text.line,
                                                       text.status, sentence))
                    continue
                self.rules.unread(self.api, text.line, a, sentence, "the dimension is computed from the other")
                continue
            self.rules.add(self.rules.dim_equalities, DimEquality(a, axis, b, other_axis, text.line))

    # "加padding后两个值", "加padding中间两个数值", "加padding的两个值": a pair of an array added to a dimension.
    _PAD_ADDEND = lazy_pattern(rf"\s*(?:的)?\s*(?:数值|值|大小)?\s*加(?:上)?\s*(?P<array>{_IDENTIFIER})\s*(?:的)?\s*"
                               r"(?P<part>前|后|中间)?\s*(?:两|2)\s*个\s*(?:数值|值)")

    # "，或者是二维", "; or": a clause that opens another alternative.
    _ALTERNATIVE = lazy_pattern(r"[,，;；]\s*(?:或者|或是|或|\bor\b)|或者是", re.I)

    def _arranged_by(self, tensor: str) -> Optional[str]:
        """A host argument that permutes or transposes `tensor` (permX1, transposeX2, adjSelf): then a
        dimension's number says nothing fixed about the tensor."""
        for name, param in self.params.items():
            if not _host(param):
                continue
            stem = re.match(r"(?i)(?:perm(?:ute)?|trans(?:pose)?|adj(?:oint)?)_?(\w+)$", name)
            if stem and stem.group(1).lower() == tensor.lower():
                return name
        return None

    # The words every divisibility pattern ends in.
    _DIVISIBILITY_WORDS = ("倍数", "整除", "偶数", "divisible", "even number", "multiple of")

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def _divisibility_patterns(shape_named: bool, shape_named_any_case: bool
                               ) -> tuple[tuple[NamedPattern, ...], tuple[NamedPattern, ...]]:
        """The patterns of what a row or a constraint states, and of what an error row refuses
        ("x的shape尾轴大小不是偶数", "x的尾轴不能被8整除", "the size of the last axis of x is not an even
        number"). A list of tensors ("x和yOut的最后一维能被2整除", "x、gamma以及beta的最后一维必须为偶数")
        states it of each. `shape_named`: a parameter is named "shape" (`shape_named_any_case`: in any
        case, as the case-insensitive patterns read it), which a list may then name."""
        # A list may name what is no parameter ("x、gamma以及beta", where the API has betaOptional): the
        # rule holds of those it names that are. Any identifier but the word "shape" (a name or any
        # other identifier, unless "shape" names no parameter).
        def listed(named: bool) -> str:
            one = _IDENTIFIER if named else rf"(?:(?!shape(?![A-Za-z0-9_])){_IDENTIFIER})"
            return rf"(?P<a>{one}(?:\s*(?:、|,|和|与|及|以及|\band\b)\s*{one})*)"

        names = listed(shape_named)
        head = rf"{names}?\s*(?:的)?\s*(?:shape)?\s*(?:的)?\s*(?:{_Reader._AXIS.format('a')})?\s*(?:的)?\s*(?:大小|长度|size|数值|值)?\s*"
        must = r"(?:需要|必须|要|应|应该|需|须)?\s*"
        # English states the axis first: "the last dimension(s) of (both) x (and yOut)", "the last
        # dimension of the shape" (the row's tensor); the Chinese groups' names, for _axis.
        english = (rf"(?:the\s+)?(?:size\s+of\s+the\s+)?(?P<alast>last)\s+(?:dimensions?|axis|axes)(?P<an>(?!x)x)?(?P<aback>(?!x)x)?"
                   rf"\s+of\s+(?:the\s+shape(?:\s+of\s+)?)?(?:both\s+)?{listed(shape_named_any_case)}?\s+")
        even_en = r"(?:divisible\s+by\s+(?P<n>\d+)|an?\s+even\s+number|(?:an?\s+)?(?:integer\s+)?multiple\s+of\s+(?P<m>\d+))"
        stated = (
            NamedPattern(head + must + rf"(?:为|是)\s*(?P<n>\d+|{NAME})\s*的\s*(?:整数)?倍数"),
            NamedPattern(head + must + rf"(?:能|可以|可)?被\s*(?P<n>\d+|{NAME})\s*整除"),
            NamedPattern(head + must + r"(?:为|是)\s*(?P<even>偶数)"),
            NamedPattern(english + rf"(?:must|should)\s+be\s+{even_en}", re.I),
        )
        refused = (
            NamedPattern(head + rf"(?:不是|不为)\s*(?P<n>\d+|{NAME})\s*的\s*(?:整数)?倍数"),
            NamedPattern(head + rf"(?:不能|无法|不可以|不可)被\s*(?P<n>\d+|{NAME})\s*整除"),
            NamedPattern(head + r"(?:不是|不为)\s*(?P<even>偶数)"),
            NamedPattern(english + rf"(?:is|are)\s+not\s+{even_en}", re.I),
        )
        return stated, refused

    def _divisible(self, sentence: str, text: Text, conditional: bool) -> None:
        if not any(word in sentence for word in self._DIVISIBILITY_WORDS):
            return
        qualifiers: list[dict] = [{}]
        why = "it holds under a condition"
        if text.error_row and re.search(r"并且|且|同时|\band\b", sentence, re.I):
            # "y的尾轴大小不等于x的尾轴大小的1/8，并且x的尾轴不能被8整除": refused when both hold, which
            # one rule of divisibility would not say.
            conditional, why = True, "the error row refuses it only together with another condition"
        elif conditional:
            # "当y的数据类型为INT4时，x的尾轴必须为偶数", "如果dstType为3(INT32)，shape的最后一维需要能被8
            # 整除": one condition this reader knows, opening the sentence, then the rule.
            opened = self._divisible_condition(sentence, text)
            if opened is not None:
                qualifiers, sentence = opened
                conditional = False
        stated, refused = self._divisibility_patterns("shape" in self.names,
                                                      any(n.lower() == "shape" for n in self.names))
        for pattern in refused if text.error_row else stated:
            for match in pattern.finditer(self.names, sentence):
                listed = match.group("a")
                for a in [m.group(0) for m in name_matches(self.names, listed)] if listed else [text.subject]:
                    for each in qualifiers:
                        self._divisible_match(match, a, text, conditional, each, why)

    def _divisible_match(self, match: re.Match[str], a: Optional[str], text: Text, conditional: bool,
                         qualifiers: dict, why: str) -> None:
        if a is None:
            return
        param = self.params[a]
        groups = match.groupdict()
        divisor = "2" if groups.get("even") or (groups.get("n") is None and groups.get("m") is None) else \
            groups.get("n") or groups["m"]
        if divisor != "2" and not divisor.isdigit() and self.params[divisor].kind is not ParamKind.INT:
            return
        has_axis = bool(match.group("an") or match.group("alast") or match.group("aback"))
        if param.kind is ParamKind.TENSOR and not has_axis:
            return  # which size? the element count, a dimension: not said
        if param.kind is not ParamKind.TENSOR:
            # "dim对应的self的轴必须是偶数" is about the size along dim, not dim's value:
            # an integer's own divisibility is not read.
            return
        if conditional:
            self.rules.unread(self.api, text.line, a, match.group(0), why)
            return
        axis: Optional[int] = None
        if has_axis:
            axis, ambiguous = self._axis(match, "a", a)
            if axis is None:
                self.rules.unread(self.api, text.line, a, match.group(0), ambiguous)
                return
        self.rules.add(self.rules.divisibility, Divisibility(a, divisor, axis, text.line, status=text.status, **qualifiers))

    # The condition a divisibility opens with. A dtype: "当对应yOut的数据类型为INT4时", "当输出y1Out或y2Out
    # 的数据类型为INT4时" (either), "数据类型为INT4时" (the row's tensor), "When the data type of yOut is
    # INT4,". A value of a host argument: "如果dstType为3(INT32)，", "If dstType is 3,", "当outDtype为
    # INT4时" (an aclDataType argument: a dtype). Then a comma and the rule.
    @staticmethod
    @functools.cache
    def _condition_openings() -> tuple[NamedPattern, ...]:
        names = f"(?P<names>{name_list(_Reader._LIST_SEPARATOR)})"
        tail = r"\s*(?:时|的时候|情况下)?\s*[,:]\s*(?P<rest>\S.*)$"
        dtype = rf"(?<![A-Za-z0-9_])(?:DT_|ACL_)?(?:{'|'.join(map(re.escape, vocab.dtype_words()))})(?![A-Za-z0-9_])"
        dtypes = rf"(?P<dtypes>{dtype}(?:\s*(?:、|,|/|或者|或|\bor\b)\s*{dtype})*)"
        # "当dstType为", "if dstType is": an argument and its value or dtypes.
        # "当dstType传入值为29(表示yOut输出为INT4量化)时": what is passed, and a gloss in words of its own.
        argument = (rf"^\s*(?:当|如果|若|when|if)\s*(?:参数|属性|输出)?\s*(?P<name>{NAME})\s*(?:传入值|传入|取值)?\s*"
                    rf"(?:==|=|为|等于|是|\bis\b)\s*")
        return (
            # "当...为FLOAT4_E2M1或FLOAT4_E1M2，x尾轴的值必须为偶数": "当" and a comma close it without "时".
            NamedPattern(rf"^\s*(?P<open>当|如果|若)?\s*(?:输出|输入|对应)?\s*(?:{names}\s*(?:的)?\s*)?(?:数据类型|dtype)\s*"
                         rf"(?:为|是)\s*{dtypes}\s*(?:(?:时|的时候|情况下)\s*[,:]?|(?(open)\s*[,:]|(?!)))\s*(?P<rest>\S.*)$", re.I),
            NamedPattern(rf"^\s*(?:when|if)\s+the\s+data\s+type\s+(?:of\s+(?:the\s+)?{names}\s+)?is\s+{dtypes}"
                         rf"\s*,\s*(?P<rest>\S.*)$", re.I),
            # "当dstType为FLOAT4_E2M1/FLOAT4_E1M2时": an aclDataType argument (or an int one, which
            # carries an aclDataType's value) named with dtypes.
            NamedPattern(argument + dtypes + tail, re.I),
            NamedPattern(argument + rf"(?P<value>-?\d+|[A-Za-z][A-Za-z0-9_]*)\s*(?:\(\s*(?:(?P<gloss>[A-Za-z][A-Za-z0-9_]*)|"
                         rf"表示[^()]{{1,40}})\s*\))?" + tail, re.I),
        )

    # "目的类型为FLOAT4_E2M1、FLOAT4_E1M2时，x的最后一维必须是偶数" (the MX quantisers' x): the destination
    # type is the API's one dstType argument.
    _DESTINATION = lazy_pattern(r"^\s*(?:当|如果|若)?\s*目的(?:数据)?类型\s*(?=为|是)")
    _DESTINATION_ARGUMENT = lazy_pattern(r"^dst_?type(?:Optional)?$", re.I)

    def _destination_named(self, sentence: str) -> str:
        """`sentence` with the destination type it opens with ("目的类型为...时") named as the argument
        that carries it, when the API has exactly one (dstType); as it is otherwise."""
        found = self._DESTINATION.match(sentence)
        carriers = [n for n, p in self.params.items()
                    if self._DESTINATION_ARGUMENT.match(n) and p.kind in (ParamKind.INT, ParamKind.DTYPE)]
        if found is None or len(carriers) != 1:
            return sentence
        return f"当{carriers[0]}" + sentence[found.end():]

    def _divisible_condition(self, sentence: str, text: Text) -> Optional[tuple[list[dict], str]]:
        """The chips, value condition or dtype condition a divisibility's sentence opens with (as
        Divisibility's fields: one set per rule, an int argument's dtypes one value each), and the
        rest of the sentence; None when it states another condition, or more than one."""
        chips, rest = self._chips_opening(sentence)
        rest = self._destination_named(rest)
        for pattern in self._condition_openings():
            found = pattern.match(self.names, rest)
            if found is not None:
                break
        else:
            # "Atlas A2 训练系列产品/Atlas A2 推理系列产品：x的最后一维需要是2的倍数": the chips alone.
            if not chips or CONDITION.search(rest) or vocab.socs_in(rest) or self._OTHER_CASES.search(rest):
                return None
            return [{"products": chips}], rest
        after = found.group("rest")
        if CONDITION.search(after) or vocab.socs_in(after) or self._OTHER_CASES.search(after):
            return None
        qualifiers: dict = {"products": chips}
        groups = found.groupdict()
        if groups.get("dtypes") is not None:
            listed = [vocab.dtype_of(w) for w in re.split(r"\s*(?:、|,|/|或者|或|\bor\b)\s*", groups["dtypes"], flags=re.I)]
            dtypes = tuple(d for d in listed if d is not None)
            if len(dtypes) != len(listed):
                return None
            if groups.get("name") and self.params[groups["name"]].kind is ParamKind.INT:
                codes = abi.enumerators("aclDataType")
                return [{**qualifiers, "when": Condition(groups["name"], float(codes[d.enumerator]))} for d in dtypes], after
            named = [groups["name"]] if groups.get("name") else \
                [m.group(0) for m in name_matches(self.names, groups.get("names") or "")] or \
                ([text.subject] if text.subject else [])
            if not named or not all(self.params[n].kind in _CARRIES_DTYPE for n in named):
                return None
            qualifiers["when_dtype"] = DTypeCondition(tuple(named), dtypes)
            return [qualifiers], after
        param, value = self.params[found.group("name")], found.group("value")
        dtype = vocab.dtype_of(value) or (vocab.dtype_of(found.group("gloss")) if found.group("gloss") else None)
        if param.kind is ParamKind.DTYPE and dtype is not None:
            qualifiers["when_dtype"] = DTypeCondition((param.name,), (dtype,))
        elif param.kind is ParamKind.INT and value.lstrip("-").isdigit():
            qualifiers["when"] = Condition(param.name, float(value))
        elif param.kind is ParamKind.BOOL and value.lower() in ("true", "false"):
            qualifiers["when"] = Condition(param.name, 1.0 if value.lower() == "true" else 0.0)
        else:
            return None
        return [qualifiers], after

    # -- shape rules -----------------------------------------------------------------------------

    _OTHERWISE = lazy_pattern(r"否则|其他情况|其它情况|其余情况|其他场景|otherwise|in\s+other\s+cases|else", re.I)
    # "第零维" is a dimension's number, not a 0-d shape.
    _SCALAR = lazy_pattern(r"标量|(?<!第)0维|(?<!第)零维|\[\s*1\s*\]|\(\s*1\s*,?\s*\)|\[\s*\]|一个元素|scalar|\(\s*\)", re.I)
    # What a consequent says beyond "the shape of those tensors": a reduction of it ("再reduce 0轴",
    # "then applying a reduction along axis 0"), a shape written out ("(m,)", "[N]", "1维").
    _COMPUTED_SHAPE = lazy_pattern(r"reduc|轴|\baxis\b|求和|\bsum\b|[\[(]\s*[A-Za-z]|\d\s*维|\d-?D\b", re.I)

    # The tensor is not passed: "，offsetOut需要传nullptr", "必须为空指针", "must be nullptr". Only a null
    # pointer by name: "为空" alone may mean an empty tensor.
    _ABSENT = lazy_pattern(r"\W*(?:需要|需|必须|应|只能|must\s+be|should\s+be)?\s*(?:传入?|输入|为|设置为|是|set\s+to|pass)?\s*"
                           r"(?:nullptr|空指针|NULL|null)\b", re.I)

    # The value of an int or string argument a shape rule holds under ("当reduction为mean或sum时"), the
    # argument named wherever its name starts.
    _WHEN_VALUE_OF = r"(?:\d+\s*(?:\(\s*['\"“]?\w+['\"”]?\s*\))?|['\"“]?[A-Za-z]+['\"”]?)"
    _WHEN = NamedPattern(rf"(?:当|如果|若|if|when)?\s*(?P<w>{NAME_ANYWHERE})\s*(?:的值|的取值)?\s*(?:(?P<neg>不为|不等于|不是|!=|≠|is\s+not)|为|==?|是|is|取值为|设置为|set\s+to)\s*"
                         rf"(?P<v>{_WHEN_VALUE_OF}(?:\s*(?:或|或者|/|、|\bor\b)\s*{_WHEN_VALUE_OF})*)\s*(?:时|的时候|情况下|场景下)?", re.I)

    @functools.cached_property
    def _hosts(self) -> frozenset[str]:
        """The arguments a shape rule's condition names (_WHEN)."""
        return frozenset(n for n, p in self.params.items() if p.kind in (ParamKind.INT, ParamKind.STRING))

    def _values(self, when: str, text: str) -> Optional[tuple[str, ...]]:
        kind = self.params[when].kind
        found: list[str] = []
        for number, word in re.findall(r"(\d+)|([A-Za-z]+)", text):
            if word and word.lower() in ("or",):
                continue
            if kind is ParamKind.INT:
                if number:
                    value = number
                elif "reduction" in when.lower() and word.lower() in _REDUCTIONS:
                    value = _REDUCTIONS[word.lower()]
                else:
                    return None
                if number and found and found[-1] == number:
                    continue
                if word and found and found[-1] == value:
                    continue  # 0('none'): the word restates the number
            else:
                if not word:
                    return None
                value = word.lower() if word.lower() in _REDUCTIONS else word
            if value not in found:
                found.append(value)
        return tuple(found) or None

    # "shape支持2-8维度", "shape支持1维": the whole of what a condition governs, nothing after it.
    _RANKS = lazy_pattern(r"^\W*(?:时|的时候)?\W*(?:shape|形状)\s*(?:支持|为|是)\s*(?P<low>\d)\s*(?:[-~到至]\s*(?P<high>\d)\s*)?"
                          r"维(?:度)?(?:张量|tensor)?\W*$", re.I)

    def _consequent(self, clause: str, subject: str) -> Optional[tuple[ShapeForm, tuple[str, ...]]]:
        if self._ABSENT.match(re.sub(rf"^\W*{re.escape(subject)}", "", clause)):
            return ShapeForm.ABSENT, ()  # "如果isSymmetrical是true，offsetOut需要传nullptr"
        if re.match(r"\W*(?:时|的时候)?\W*(?:为|是)\s*(?:\[\s*1\s*\]|标量|scalar)(?![\w\[])", clause, re.I):
            return ShapeForm.SCALAR, ()  # "当reduction为mean或sum时为[1]"
        if not re.search(r"shape|形状|输出为|为标量|scalar", clause, re.I):
            return None
        if self._ranks_of(clause):
            return ShapeForm.RANK, ()  # "当quantMode = "dynamic"时，shape支持2-8维度"
        if self._SCALAR.search(clause):
            return ShapeForm.SCALAR, ()
        if PRODUCT.search(clause) or re.search(r"第|维度数|除|其他维|其余维|size\(|shape\[", clause) or \
                self._COMPUTED_SHAPE.search(clause):
            return None
        if not re.search(r"一致|相同|相等|same|consistent|equal|match", clause, re.I):
            return None
        names = [m.group(0) for m in name_matches(self.tensors, clause)]
        others = tuple(dict.fromkeys(n for n in names if n != subject))
        if not others:
            return None
        return ShapeForm.SAME, others

    # "数据类型为INT4时，shape与入参x一致": a shape under the row's own dtype; "其他类型时，shape与x一致": under
    # any dtype but those the row's other sentences name ("类型为INT32时，shape的最后一维是x最后一维的1/8").
    _DTYPE_LIST = r"(?P<dtypes>[A-Za-z0-9_]+(?:\s*(?:、|或|和|/)\s*[A-Za-z0-9_]+)*)"
    _OWN_DTYPE = lazy_pattern(r"^\W*(?:当|若|如果)?\s*(?:数据)?类型\s*(?:为|是)\s*" + _DTYPE_LIST + r"\s*时")
    _OTHER_DTYPES = lazy_pattern(r"^\W*(?:其他|其它)\s*(?:数据)?类型\s*时")
    _DTYPES_NAMED = lazy_pattern(r"(?:数据)?类型\s*(?:为|是)\s*" + _DTYPE_LIST + r"\s*时")

    def _dtype_shape(self, sentence: str, text: Text) -> bool:
        """A shape rule of the row's tensor under its own dtype; True when read."""
        subject = text.subject
        assert subject is not None
        own = self._OWN_DTYPE.match(sentence)
        other = None if own else self._OTHER_DTYPES.match(sentence)
        if own is not None:
            dtypes = self._dtype_list(own.group("dtypes"))
            rest = sentence[own.end():]
        elif other is not None:
            listed = [self._dtype_list(m.group("dtypes")) for m in self._DTYPES_NAMED.finditer(_normal(self.rows.get(subject, "")))]
            dtypes = () if any(not d for d in listed) else tuple(dict.fromkeys(d for group in listed for d in group))
            rest = sentence[other.end():]
        else:
            return False
        then = self._consequent(rest, subject) if dtypes and not CONDITION.search(rest) else None
        if then is None or then[0] not in (ShapeForm.SAME, ShapeForm.SCALAR):
            return False
        form, tensors = then
        self.rules.add(self.rules.shape_rules,
                       ShapeRule(subject, "", (), form, tensors, other is not None, text.line,
                                 when_dtype=DTypeCondition((subject,), dtypes)))
        return True

    @staticmethod
    def _dtype_list(words: str) -> tuple[DType, ...]:
        """The dtypes a list names ("INT4或INT32"); () where a word is none."""
        listed = [vocab.dtype_of(w) for w in re.split(r"\s*(?:、|或|和|/)\s*", words)]
        return () if any(d is None for d in listed) else tuple(d for d in listed if d is not None)

    def _ranks_of(self, clause: str) -> tuple[int, ...]:
        """(least, most) of a clause that is only a rank ("shape支持2-8维度"); () otherwise."""
        found = self._RANKS.match(clause)
        if found is None:
            return ()
        low = int(found.group("low"))
        high = int(found.group("high") or low)
        return (low, high) if low <= high <= MAX_RANK else ()

    # A tensor passed as a null pointer under a bool argument's value: "如果isSymmetrical是true，
    # offsetOut需要传nullptr", "当isSymmetrical为true时，需要传入nullptr".
    _BOOL_ABSENCE = NamedPattern(rf"(?:当|如果|若|if|when)\s*(?P<w>{NAME_ANYWHERE})\s*(?:为|是|==?|is|设置为|set\s+to)\s*"
                                 rf"(?P<v>true|false)\s*(?:时|的时候|情况下|场景下)?", re.I)

    # An error row refusing a tensor's shape under a host argument's value: two tensors' shapes ("当amsgrad为true时，
    # maxGradNormOptionalRef和varRef的shape不一致时"; "...的数据类型或shape不一致时" names a dtype relation besides), or
    # a tensor's shape against two others' broadcast ("当reduction的值为0时，self和target做broadcast后的shape与out的shape
    # 不一致", "reduction=0时，result的shape与self和target的broadcast的shape不一致").
    _VALUE_OPENING = (rf"^\s*(?:当|如果|若)?\s*(?P<w>{NAME})\s*(?:的值|的取值)?\s*(?:为|是|=|==)\s*"
                      rf"(?P<v>true|false|\d+|[A-Za-z]+)\s*(?:时|的时候)\s*[,，]?\s*")
    _UNEQUAL = r"\s*(?:不一致|不相同|不同|不相等|不等于)"
    _VALUE_RELATIONS = (
        NamedPattern(_VALUE_OPENING + rf"(?P<a>{NAME})\s*(?:和|与|、)\s*(?P<b>{NAME})\s*(?:的)?\s*"
                     rf"(?P<dtype>数据类型\s*(?:或|和|、)\s*)?shape" + _UNEQUAL, re.I),
        NamedPattern(_VALUE_OPENING + rf"(?P<b>{NAME})\s*(?:和|与|、)\s*(?P<c>{NAME})\s*(?:做|进行)?\s*broadcast\s*"
                     rf"(?:后|之后)\s*(?:得到)?\s*的\s*shape\s*(?:与|和)\s*(?P<a>{NAME})\s*(?:的\s*shape)?" + _UNEQUAL, re.I),
        NamedPattern(_VALUE_OPENING + rf"(?P<a>{NAME})\s*的\s*shape\s*(?:与|和)\s*(?P<b>{NAME})\s*(?:和|与|、)\s*"
                     rf"(?P<c>{NAME})\s*(?:做|进行)?\s*(?:的)?\s*broadcast\s*(?:后|之后)?\s*(?:得到)?\s*的\s*shape" + _UNEQUAL,
                     re.I),
        # "When the value of reduction is 0, the shape of out is not the same as that obtained after broadcasting self
        # and target" (the English pages).
        NamedPattern(rf"^\s*(?:[1-9]\.\s*)?(?:when|if)\s+(?:the\s+value\s+of\s+)?(?P<w>{NAME})\s+is\s+(?P<v>true|false|\d+)\s*,\s*"
                     rf"the\s+shape\s+of\s+(?P<a>{NAME})\s+is\s+(?:not\s+the\s+same\s+as|different\s+from)\s+"
                     rf"(?:that|the\s+shape)\s+obtained\s+(?:after|by)\s+broadcasting\s+(?P<b>{NAME})\s+and\s+(?P<c>{NAME})"
                     rf"\s*$", re.I),
    )

    def _value_relation(self, sentence: str, text: Text) -> bool:
        """A tensor has another's shape (the broadcast of two others') when a bool, int or string argument has
        the value (a ShapeRule of SAME, which phase 1 judges only where they are given, under that value only: the
        row says nothing of the others); a dtype relation beside it is diagnosed. True when read."""
        if not text.error_row:
            return False
        for pattern in self._VALUE_RELATIONS:
            found = pattern.search(self.names, sentence)
            if found is None:
                continue
            when, a = found.group("w"), found.group("a")
            others = tuple(found.group(g) for g in ("b", "c") if g in found.groupdict() and found.group(g))
            param = self.params[when]
            word = found.group("v")
            values: Optional[tuple[str, ...]]
            if param.kind is ParamKind.BOOL:
                value = _BOOL_VALUES.get(word.lower())
                values = (value,) if value is not None else None
            elif param.kind in (ParamKind.INT, ParamKind.STRING):
                values = self._values(when, word)
            else:
                values = None
            named = {a, *others}
            if values is None or not named <= self.tensors or a in others or len(set(others)) != len(others):
                return False
            self.rules.add(self.rules.shape_rules, ShapeRule(a, when, values, ShapeForm.SAME, others, line=text.line))
            if "dtype" in found.groupdict() and found.group("dtype"):
                self.rules.unread(self.api, text.line, a, sentence, "its dtype relation holds under a condition")
            return True
        return False

    @functools.cached_property
    def _bools(self) -> frozenset[str]:
        return frozenset(n for n, p in self.params.items() if p.kind is ParamKind.BOOL)

    def _bool_absence(self, sentence: str, text: Text) -> bool:
        """The row's tensor is a null pointer under a bool argument's value; True when read."""
        subject = text.subject
        assert subject is not None
        when = self._BOOL_ABSENCE.search(self._bools, sentence)
        if when is None:
            return False
        rest = re.sub(rf"^\W*(?:{re.escape(subject)})?", "", sentence[when.end():])
        if not self._ABSENT.match(rest):
            return False
        value = _BOOL_VALUES[when.group("v").lower()]
        self.rules.add(self.rules.shape_rules, ShapeRule(subject, when.group("w"), (value,), ShapeForm.ABSENT,
                                                         line=text.line))
        return True

    def _unread_shape(self, sentence: str, subject: str) -> bool:
        """Whether `sentence` ties the shape of `subject` to other tensors in words no shape relation
        reads ("size需要与input的Channel轴size一致"): the sentences `_shape_rule` diagnoses as conditional,
        once the condition that the tensor be given is gone."""
        others = [m.group(0) for m in name_matches(self.tensors, sentence) if m.group(0) != subject]
        if not others or not re.search(r"shape|形状|size", sentence, re.I) or \
                not re.search(r"一致|相同|相等|broadcast", sentence):
            return False
        read = relations_in(sentence, subject, self.params)
        return not any(r.kind in (RelationKind.SAME_SHAPE, RelationKind.BROADCAST) for r in read)

    def _shape_rule(self, sentence: str, text: Text) -> bool:
        """Shape rules of the row's tensor; True when the sentence was one (read or diagnosed)."""
        subject = text.subject
        assert subject is not None
        if self.params[subject].kind is not ParamKind.TENSOR or not CONDITION.search(sentence):
            return False
        if self._bool_absence(sentence, text) or self._dtype_shape(sentence, text):
            return True
        when = self._WHEN.search(self._hosts, sentence)
        if when is None:
            others = [m.group(0) for m in name_matches(self.tensors, sentence)
                      if m.group(0) != subject]
            if others and re.search(r"shape|形状", sentence, re.I) and re.search(r"一致|相同|相等|broadcast", sentence):
                self.rules.unread(self.api, text.line, subject, sentence, "it holds under a condition")
                return True
            return False
        # "当reduction为none时，shape与self一致，当reduction为mean或sum时为[1]": each condition
        # governs the text up to the next one; "否则" after the last governs the rest.
        whens = self._WHEN.finditer(self._hosts, sentence)
        read_any = False
        for k, when in enumerate(whens):
            stop = whens[k + 1].start() if k + 1 < len(whens) else len(sentence)
            rest = sentence[when.end():stop]
            otherwise = self._OTHERWISE.search(rest) if k + 1 == len(whens) else None
            then_text = rest[:otherwise.start()] if otherwise else rest
            then = self._consequent(then_text, subject)
            if then is None:
                if re.search(r"shape|形状", then_text, re.I) and \
                        not any(word in then_text for word in self._DIVISIBILITY_WORDS):  # _divisible's
                    self.rules.unread(self.api, text.line, subject, sentence, "a shape this parser cannot read")
                    return True
                continue
            if re.match(r"\W*(?:且|并且|同时|and\b)", rest, re.I):
                # "当reduction为0，且self的shape为(N,C)时": a condition on more than the argument.
                self.rules.unread(self.api, text.line, subject, sentence, "a compound condition")
                return True
            values = self._values(when.group("w"), when.group("v"))
            if values is None:
                self.rules.unread(self.api, text.line, subject, sentence, "a condition this parser cannot read")
                return True
            negated = bool(when.group("neg"))
            form, tensors = then
            self.rules.add(self.rules.shape_rules,
                           ShapeRule(subject, when.group("w"), values, form, tensors, negated, text.line,
                                     self._ranks_of(then_text) if form is ShapeForm.RANK else ()))
            read_any = True
            if otherwise:
                alt = self._consequent(rest[otherwise.end():], subject)
                if alt is not None:
                    self.rules.add(self.rules.shape_rules,
                                   ShapeRule(subject, when.group("w"), values, alt[0], alt[1], not negated, text.line))
        return read_any


_FROM_ZERO_CJK = lazy_pattern(r"第\s*0\s*(?:个)?(?:维|轴)|第零维")
_FROM_ZERO_WORD = lazy_pattern(r"(?:dim(?:ension)?|axis)\s*0\b")  # in lower case, at the start of a word


def limits_the_example_keeps(api: API, diags: list[Diagnostic]) -> API:
    """`api` without the least lengths in bytes its page's own example breaks on a chip they hold on:
    the example names no chip, so it is a call the page shows on each chip whose dtypes it documents
    for the example's, and such a call is never refused (as `ranges_the_example_keeps` does for values)."""
    if api.example_call is None or not api.dim_bytes:
        return api
    kept = []
    for rule in api.dim_bytes:
        arg, param = api.example_call.arg(rule.param), api.param(rule.param)
        dtype = arg.dtype if arg is not None else None
        shape = arg.shape if arg is not None else None
        least = rule.least_size(dtype) if dtype is not None else None
        shown_on = [soc for soc in rule.products or (DEFAULT_SOC,) if dtype in param.dtypes_for(soc)]
        measured = rule.measured(shape) if shape else None
        if dtype is None or least is None or not shape or not shown_on or measured is None or measured >= least:
            kept.append(rule)
            continue
        diags.append(Diagnostic(Level.WARNING, rule.line, "example-breaks-limit",
                                f"{api.name}: the page's example gives {rule.param} the shape {list(shape)} of "
                                f"{dtype.value}, short of {rule.describe()}: the simulator does not check it"))
    return api if len(kept) == len(api.dim_bytes) else replace(api, dim_bytes=tuple(kept))


def counts_from_zero(page_text: str) -> bool:
    """Whether the page counts dimensions from 0 somewhere ("第0维", "第0个维度", "第0轴", "dim 0",
    "Axis 0"). Searched from the words' first characters: one case-insensitive pattern over a whole
    page (searched at every position) was a twentieth of the parse."""
    if "0" not in page_text and "零" not in page_text:
        return False
    if "第" in page_text and _FROM_ZERO_CJK.search(page_text):
        return True
    lower = page_text.lower()
    return any(_FROM_ZERO_WORD.match(lower, start) for word in ("dim", "axis") for start in word_starts(lower, word))


def texts_of(params: Sequence[Param], rows: dict[str, tuple[str, int]], errors: Sequence[ErrorCase],
             constraints: Sequence[tuple[int, str]]) -> list[Text]:
    """What `read_rules` reads for an API: each parameter's row (its text and line), the error rows,
    the lines of the constraints section."""
    texts = [Text(text, line, name) for name, (text, line) in rows.items()]
    # An error row's names read as the parameters they mean where they differ by a plural or a
    # suffix (the error rows' own params do so: gen.parse.extractors.errors).
    names = [p.name for p in params]
    texts += [Text(prose.with_near_names(e.condition, names), e.line, None, error_row=True,
                   status=0 if e.code == _PARAM_INVALID else e.code)
              for e in errors]
    texts += [Text(text, line) for line, text in constraints]
    return texts
