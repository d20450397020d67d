"""Facts that pages state in prose or in free-text cells: dtype lists (with their per-product
qualifiers), ranks, formats, empty-tensor and non-contiguous support.

Each function reads one kind of fact from a text and returns None (or an empty result) when the
text does not state it, so that "the page is silent" stays distinguishable from "no".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import AbstractSet, Collection, Optional, Sequence

from gen.ir import DType, Soc
from gen.parse.extractors import vocab
from gen.parse.patterns import lazy_pattern

# --- dtype lists -----------------------------------------------------------------------------

_WORD = r"(?:DT_|ACL_)?[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*"
_QUALIFIER = r"(?:\s*[（(][^()（）\n]*[)）])?"
_SEP = r"\s*(?:,\s*or\b|,\s*and\b|、|,|，|/|和|或者|或|及|以及|与|\bor\b|\band\b)\s*"
DTYPE_LIST = lazy_pattern(rf"{_WORD}{_QUALIFIER}(?:{_SEP}{_WORD}{_QUALIFIER})*")

# Phrases that introduce the list of dtypes a parameter accepts.
_DTYPE_TRIGGER = lazy_pattern(
    r"(?:数据类型(?:仅|只|均|需要|必须)?(?:支持|为|是|可以是|可为|包括|取值为)[：:]?|支持(?:的)?数据类型(?:为|是|包括|有)?[：:]?|"
    r"数据类型[：:]|"
    r"\b(?:data\s*types?|dtypes?)\s*(?:(?:can|must|should)\s+(?:only\s+)?be|only\s+supports?|is|are|supported\s+(?:is|are|include)|"
    r"supported\s*:|supports?|includes?|:)\s*(?:one\s+of\s*)?:?|"
    r"\bsupports?\s+(?:the\s+following\s+)?data\s*types?\s*(?:of|:)?|"
    r"\bsupported\s+data\s*types?\s*(?:is|are|include)?\s*:?|\bdata\s*types?\s+supported\s*:|"
    # "支持 FLOAT、FLOAT16", "Supports ACL_FLOAT, ACL_BF16": a bare "supports" directly before a dtype.
    r"(?:支持|数据类型|\bsupports?)\s*(?=(?:DT_|ACL_)?(?:FLOAT|BFLOAT|BF16|INT|UINT|DOUBLE|BOOL|COMPLEX|HIFLOAT|FP\d|fp\d|bf16))|"
    # "需经过trans_quant_param预处理转换为UINT64/INT64类型": the dtypes the tensor passed must have. Not
    # "可转换为FLOAT的数据类型", the dtypes that convert to FLOAT (gen.parse.extractors.params._CASTABLE_TO).
    r"(?<!可)(?<!可以)转换(?:为|成)\s*(?=(?:[A-Z][A-Z0-9_]*\s*[/、]\s*)*[A-Z][A-Z0-9_]*\s*类型))\s*",
    re.I)
_ONLY_QUALIFIER = lazy_pattern(r"^[（(]\s*(?:仅|只|only\s+(?:supported\s+(?:by|on)|for|on)?)(.*?)(?:支持|supports?|supported)?\s*[)）]$",
                             re.I | re.S)


@dataclass(frozen=True)
class DTypeList:
    dtypes: tuple[DType, ...]  # everything listed, qualifiers included
    # dtypes listed with "(仅<products>支持)": only those products accept them.
    restricted: tuple[tuple[DType, tuple[Soc, ...]], ...] = ()
    unknown: tuple[str, ...] = ()


def parse_dtype_list(text: str) -> DTypeList:
    """The dtypes of a list ("FLOAT、FLOAT16、BFLOAT16(仅Atlas A2训练系列产品支持)"), stopping at
    the first word that is not a dtype."""
    found: list[DType] = []
    restricted: list[tuple[DType, tuple[Soc, ...]]] = []
    unknown: list[str] = []
    for match in re.finditer(rf"({_WORD})({_QUALIFIER})", text):
        word, qualifier = match.group(1), match.group(2).strip()
        dtype = vocab.dtype_of(word)
        if dtype is None:
            if word.lower() in ("or", "and"):
                continue
            if vocab.looks_like_dtype(word):
                unknown.append(word)
                continue
            break
        if dtype not in found:
            found.append(dtype)
        only = _ONLY_QUALIFIER.match(qualifier) if qualifier else None
        if only:
            socs = vocab.socs_in(only.group(1))
            if socs:
                restricted.append((dtype, socs))
    return DTypeList(tuple(found), tuple(restricted), tuple(unknown))


def dtype_statements(text: str) -> list[tuple[int, DTypeList]]:
    """Every "数据类型支持X、Y" / "The data type can be X or Y" list in a text: (offset, list).

    A list inside a condition ("当self数据类型为BFLOAT16时，..." / "If the data type is INT4, ...")
    states when something else holds, not what the parameter accepts; it is skipped.
    """
    out = []
    for trigger in _DTYPE_TRIGGER.finditer(text):
        rest = text[trigger.end():]
        listed = DTYPE_LIST.match(rest)
        if not listed:
            continue
        if _in_condition(text, trigger.start(), trigger.end() + listed.end()):
            continue
        parsed = parse_dtype_list(listed.group(0))
        if parsed.dtypes:
            out.append((trigger.start(), parsed))
    return out


_CLAUSE_START = lazy_pattern(r"[。；;，,\n]|\.\s")
_CONDITION_WORD = lazy_pattern(vocab.WHEN + r"|如果|若|\bwhen\b|\bif\b|\bwhere\b", re.I)


def _in_condition(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] sits in a "当...时" / "if ..." clause."""
    clause_start = max((m.end() for m in _CLAUSE_START.finditer(text, 0, start)), default=0)
    if _CONDITION_WORD.search(text, clause_start, start):
        return True
    return text[end:end + 3].lstrip().startswith(("时", "的时候"))


def dtype_cell(text: str) -> tuple[DTypeList, list[tuple[tuple[Soc, ...], DTypeList]]]:
    """A 数据类型 cell: its general list, and lines that give a product's own list
    ("Atlas 推理系列产品：FLOAT16、FLOAT")."""
    general: list[DType] = []
    restricted: list = []
    unknown: list[str] = []
    per_product: list[tuple[tuple[Soc, ...], DTypeList]] = []
    for line in text.split("\n"):
        head, sep, tail = _product_prefix(line)
        if sep:
            socs = vocab.socs_in(head)
            parsed = _cell_dtypes(tail)
            if socs and parsed.dtypes:
                per_product.append((socs, parsed))
                continue
        parsed = _cell_dtypes(line)
        general.extend(d for d in parsed.dtypes if d not in general)
        restricted.extend(parsed.restricted)
        unknown.extend(parsed.unknown)
    return DTypeList(tuple(general), tuple(restricted), tuple(unknown)), per_product


def _cell_dtypes(text: str) -> DTypeList:
    """Every dtype a cell names (cells are lists, but may hold words between the names)."""
    found: list[DType] = []
    restricted: list = []
    unknown: list[str] = []
    for match in re.finditer(rf"({_WORD})({_QUALIFIER})", text):
        word, qualifier = match.group(1), match.group(2).strip()
        dtype = vocab.dtype_of(word)
        if dtype is None:
            if vocab.looks_like_dtype(word) and word not in unknown:
                unknown.append(word)
            continue
        if dtype not in found:
            found.append(dtype)
        only = _ONLY_QUALIFIER.match(qualifier) if qualifier else None
        if only:
            socs = vocab.socs_in(only.group(1))
            if socs:
                restricted.append((dtype, socs))
    return DTypeList(tuple(found), tuple(restricted), tuple(unknown))


# As gen.parse.extractors.params._NOTE_HEAD: the head ends at its last non-space before the colon.
_PRODUCT_PREFIX = lazy_pattern(r"^\s*(?:[-*•]\s*)?((?:Atlas|Ascend|Kirin|昇腾|A200I)(?:[^：:]*[^：:\s])?)\s*([：:])\s*(.*)$",
                             re.S)


def _product_prefix(line: str) -> tuple[str, str, str]:
    match = _PRODUCT_PREFIX.match(line)
    if not match:
        return "", "", line
    return match.group(1), match.group(2), match.group(3)


# --- per-product notes -----------------------------------------------------------------------

# EXCLUSIVE: dtypes the note's products alone support, which they add to the parameter's list (ADD
# for those products) and which the note applies to the parameters whose table lists them.
SET, ADD, REMOVE, EXCLUSIVE = "set", "add", "remove", "exclusive"

_ADD_TRIGGER = lazy_pattern(r"(?:数据类型)?额外支持|(?:additionally|also)\s+supports?(?:\s+data\s*types?)?\s*:?\s*", re.I)
# A product note's list the note's products alone support ("COMPLEX32、COMPLEX64仅支持该产品", aclnnTril's
# Ascend950 note; "FLOAT8_E4M3FN、HIFLOAT8等数据类型仅在该型号支持", aclnnInplaceScatterUpdate's): dtypes
# the product adds to the parameter's list (EXCLUSIVE), never the product's whole list.
_THIS_PRODUCT_ONLY = lazy_pattern(
    r"仅(?:支持|在|于)?(?:该|此|本)(?:产品|型号|芯片)(?:上)?(?:支持)?|"
    r"\b(?:only\s+(?:be\s+)?supported|supported\s+only)\s+(?:by|on|in)\s+this\s+(?:product|model|chip)", re.I)
_REMOVE_TRIGGER = lazy_pattern(
    r"(?:数据类型)?(?:不支持|不再支持)(?:数据类型)?[：:]?\s*|"
    r"\b(?:does|do)\s+not\s+support(?:\s+(?:the\s+)?data\s*types?)?\s*:?\s*|\bnot\s+supported\s*:?\s*",
    re.I)


@dataclass(frozen=True)
class DTypeNote:
    """A product's dtype statement: "Atlas 推理系列产品：数据类型支持FLOAT、FLOAT16"."""

    socs: tuple[Soc, ...]
    op: str  # SET, ADD, REMOVE or EXCLUSIVE
    dtypes: tuple[DType, ...]
    params: tuple[str, ...]  # the parameters the statement names ("" = none named)
    line: int
    # The scenario the note's bullet opens with ("K-C量化模式", "MX量化场景下"), "" when it opens with
    # none: lists of one chip under different scenarios each say what that scenario supports, and
    # together what the chip does (gen.parse.extractors.params._dtypes).
    scenario: str = ""


# A product note's sentence about tensors of the NZ format, whose dtypes the ND tensors the
# bindings pass do not share (aclnnAscendQuant: "当数据格式为NZ时，出参`y`的数据类型支持INT32").
_NZ_CONDITION = lazy_pattern(r"数据格式\s*(?:为|是)\s*(?:FRACTAL_)?NZ|\bformat\b[^.]{0,60}?\bis\s+(?:FRACTAL_)?NZ\b", re.I)
# A statement made on a condition on some parameter's dtype ("当`x1`的数据类型为INT32时，数据类型支持INT32、
# INT64", said of aclnnForeachAddListV2's scalar under a bullet naming it): the dtypes are the subject's for
# that case only, and the parameter named is the condition's, not the subject.
_DTYPE_CONDITION = lazy_pattern(r"^\s*(?:当|若|如果)[^，,。]*?数据类型\s*(?:为|是)[^，,。]*?时|"
                                r"^\s*(?:when|if)\b[^,.]*?\bdata\s*types?\b[^,.]*?\b(?:is|are)\b[^,.]*,", re.I)


# A bullet opening with the scenario it is about: a quantisation mode or a scene ("K-C[量化模式](...)，",
# "MX全量化场景下，", "In per-token mode,"), or an attribute's value ("quantMode取值为2时，").
_SCENARIO = lazy_pattern(r"^\s*(?:[-*•]\s*)?(?:当|在|对于)?\s*([^，,。；;：:\n]{1,40}?(?:模式|场景|取值为[^，,。；;：:\n]{1,12}时)|"
                         r"(?:in|for)\s+[^,.;:\n]{1,40}?\b(?:mode|scenarios?)\b)", re.I)
_LINK = lazy_pattern(r"\[([^\]]*)\]\([^)]*\)")


def scenario_of(text: str) -> str:
    """The scenario `text` opens with (_SCENARIO), its links dropped; "" when it opens with none. A
    dtype condition ("当x的数据类型为INT8时") is no scenario: its sentence is skipped (_DTYPE_CONDITION)."""
    match = _SCENARIO.match(_LINK.sub(r"\1", text))
    if match is None or _DTYPE_CONDITION.search(match.group(0)):
        return ""
    return match.group(1).strip()


# A sentence opening with what is not supported ("不支持 self，mat2 数据类型为 FLOAT32", aclnnMatmulWeightNz's
# Ascend950 note): its list is refused, however far from the words.
_OPENS_UNSUPPORTED = lazy_pattern(r"\s*(?:不支持|暂不支持|does\s+not\s+support|not\s+supported)", re.I)
_CLAUSE_BREAK = lazy_pattern(r"(?<![A-Za-z0-9_`*])\s*，")


def _clause_start(text: str) -> int:
    """Where the last clause of `text` starts: after its last full-width comma, unless the comma
    separates names ("self，mat2 数据类型为 FLOAT32" is one clause about both)."""
    breaks = list(_CLAUSE_BREAK.finditer(text))
    return breaks[-1].end() if breaks else 0


def note_statements(socs: tuple[Soc, ...], text: str, line: int, param_names: Collection[str]) -> list[DTypeNote]:
    """The dtype statements of one product note's text (one sentence or one sub-item)."""
    notes: list[DTypeNote] = []
    scenario = scenario_of(text)
    for sentence in re.split(r"[。；;\n]|(?<=[a-z0-9])\.\s", text):
        if not sentence.strip():
            continue
        if _NZ_CONDITION.search(sentence):
            continue  # the dtypes of NZ-format tensors ("数据格式为NZ时，数据类型仅支持FLOAT32"), not of ND ones
        if _DTYPE_CONDITION.search(sentence):
            continue
        named = subject_names(sentence, param_names)
        stated = dtype_statements(sentence)
        if stated:
            previous = 0
            for offset, listed in stated:
                before = sentence[:offset]
                op = ADD if _ADD_TRIGGER.search(sentence[max(0, offset - 8):offset + 12]) else SET
                if re.search(r"不支持|not\s+support", sentence[max(0, offset - 6):offset + 12], re.I) or \
                        _OPENS_UNSUPPORTED.match(before):
                    op = REMOVE
                # A list is about the names since the previous list, where there are any: aclnnRmsNormQuant's
                # "`x`、`gamma`、`beta`、`scale`的数据类型仅支持FLOAT16，BFLOAT16，`offset`仅支持INT8" gives
                # offset INT8, not x.
                # The names of the list's own clause first: in aclnnTransposeQuantBatchMatMul's "x2Scale需经过…
                # 预处理转换为UINT64/INT64类型，x1/x2仅支持HIFLOAT8类型" HIFLOAT8 is x1's and x2's, not x2Scale's.
                clause = sentence[max(previous, _clause_start(before)):offset]
                scope = names_in(clause, param_names) or names_in(sentence[previous:offset], param_names) or \
                    names_in(before, param_names) or named
                previous = offset
                notes.append(DTypeNote(socs, op, listed.dtypes, scope, line, scenario))
            continue
        bare = DTYPE_LIST.match(sentence.strip())
        if bare and not _REMOVE_TRIGGER.search(sentence) and not _ADD_TRIGGER.search(sentence):
            # "<term>Atlas ...</term>: FLOAT, FLOAT16, or BFLOAT16." - a product's list, no verb. A list
            # "supported only on this product" is what the product has beyond the others, not all it has.
            listed = parse_dtype_list(bare.group(0))
            only_here = _THIS_PRODUCT_ONLY.search(sentence)
            # "COMPLEX64 and BFLOAT16 are supported only on this product.": English spends more words on it.
            if listed.dtypes and (only_here or len(bare.group(0)) >= 0.6 * len(sentence.strip().rstrip("。."))):
                op = EXCLUSIVE if only_here else SET
                notes.append(DTypeNote(socs, op, listed.dtypes, named, line, scenario))
                continue
        for trigger, op in ((_ADD_TRIGGER, ADD), (_REMOVE_TRIGGER, REMOVE)):
            match = trigger.search(sentence)
            if not match:
                continue
            following = DTYPE_LIST.match(sentence[match.end():])
            dtypes = parse_dtype_list(following.group(0)).dtypes if following else ()
            if not dtypes and op is REMOVE and not _CONDITION_WORD.search(sentence):
                # "不支持BFLOAT16数据类型" has the list after the trigger; "BFLOAT16不支持" before. Not
                # "If the input data type is not FLOAT32, this option is not supported" (aclnnBatchMatMul_en's
                # cubeMathType=3): a dtype in a condition is not what is unsupported.
                dtypes = _cell_dtypes(sentence[:match.start()][-40:]).dtypes
            if dtypes:
                notes.append(DTypeNote(socs, op, dtypes, names_in(sentence[:match.start()], param_names) or named,
                                       line, scenario))
            break
    return notes


_IDENTIFIER = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")
# A name after one of these words is what the statement relates its subject to ("且与other满足
# 互推导关系", "consistent with self"), not its subject.
_RELATED_TO = lazy_pattern(r"(?:与|和|跟|同|\bwith|\bas|\bto)\s*[`*]*\s*$", re.I)


def subject_names(text: str, names: Collection[str]) -> tuple[str, ...]:
    """The parameter names a statement is about: those it mentions, except the ones it relates
    its subject to ("数据类型支持INT8、BOOL，且与other满足互推导关系" is about the row's parameter,
    not about other)."""
    wanted = set(names)
    found: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        word = match.group(0)
        if word in wanted and word not in found and not _RELATED_TO.search(text, max(0, match.start() - 8),
                                                                             match.start()):
            found.append(word)
    return tuple(found)


def name_set(names: Collection[str]) -> AbstractSet[str]:
    """`names` as a set: itself when it is one. An API's names are made a set once (ParamContext),
    not once per parameter and sentence that looks for them: with thousands of parameters, each
    one's notes rebuilding the set of all was quadratic (issue 25)."""
    return names if isinstance(names, AbstractSet) else frozenset(names)


# What CANN's names add or drop between a parameter and the prose about it: a plural (aclnnAvgPool2d's
# error row says "padding", its parameter is paddings) or a role suffix (aclnnRmsNormQuantV3's row says
# "rstdOut", its parameter is rstd).
_NAME_SUFFIXES = ("s", "es", "Out", "Optional", "Ref")
_CJK_CHAR = lazy_pattern(r"[\u4e00-\u9fff]")
_CODE_SHAPE = lazy_pattern(r"[a-z][A-Z]|_|\d")
# Nouns the Chinese pages write in English ("tensors中每个tensor的维度"): no parameter's name.
_NOUNS = frozenset(("tensor", "scalar", "shape", "dtype"))


def near_names(text: str, names: Collection[str]) -> tuple[tuple[str, str], ...]:
    """(word, parameter) for each code name in `text` that is no parameter's but differs from exactly
    one parameter's by a plural or a suffix (_NAME_SUFFIXES). A code name is an ASCII word among CJK
    characters or one shaped as code (camelCase, an underscore, a digit): an English page's plain
    words ("value" beside a parameter "values") are not read so."""
    wanted = name_set(names)
    found: dict[str, str] = {}
    for match in _IDENTIFIER.finditer(text):
        word = match.group(0)
        if word in wanted or word in found or len(word) < 3 or word.lower() in _NOUNS:
            continue
        start, end = match.span()
        among_cjk = (start > 0 and _CJK_CHAR.match(text[start - 1])) or (end < len(text) and _CJK_CHAR.match(text[end]))
        if not among_cjk and not _CODE_SHAPE.search(word):
            continue
        candidates = {word + suffix for suffix in _NAME_SUFFIXES} | \
                     {word[:-len(suffix)] for suffix in _NAME_SUFFIXES if word.endswith(suffix) and len(word) > len(suffix) + 1}
        matched = candidates & wanted
        if len(matched) == 1:
            found[word] = matched.pop()
    return tuple(found.items())


def with_near_names(text: str, names: Collection[str]) -> str:
    """`text` with each near name (near_names) replaced by the parameter's: "属性padding超过kernelSize
    对应位置的1/2" of aclnnAvgPool2d reads as a rule of paddings."""
    for word, meant in near_names(text, names):
        text = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", meant, text)
    return text


def names_in(text: str, names: Collection[str]) -> tuple[str, ...]:
    """The parameter names a text mentions as words, in the order it first mentions them."""
    wanted = name_set(names)
    found: dict[str, None] = {}  # ordered, and a look-up per word (a list's scan is quadratic in a long list of names)
    for match in _IDENTIFIER.finditer(text):
        word = match.group(0)
        if word in wanted:
            found.setdefault(word)
    return tuple(found)


# --- rank ------------------------------------------------------------------------------------

_RANGE = lazy_pattern(r"^\s*(\d+)\s*(?:-|–|—|~|～|至|到|to)\s*(\d+)\s*(?:维|D|dims?|dimensions?)?\s*$", re.I)
_SINGLE = lazy_pattern(r"^\s*(\d+)\s*(?:维|D|dims?|dimensions?)?\s*$", re.I)
_AT_MOST = lazy_pattern(r"^\s*(?:≤|<=|不超过|不大于|不高于|小于等于|最多|最大|up\s+to|at\s+most)\s*(\d+)\s*(?:维|D|dims?|dimensions?)?\s*$",
                        re.I)
_MAX_RANK = 64


def rank_cell(text: str) -> Optional[tuple[int, int]]:
    """A 维度 cell ("0-8", "1~8", "2", "≤8", "4-5") as inclusive bounds; None for anything else."""
    text = text.strip().rstrip("。.")
    for pattern, build in ((_RANGE, lambda m: (int(m.group(1)), int(m.group(2)))),
                           (_AT_MOST, lambda m: (0, int(m.group(1)))),
                           (_SINGLE, lambda m: (int(m.group(1)), int(m.group(1))))):
        match = pattern.match(text)
        if match:
            lo, hi = build(match)
            return _clamp(lo, hi)
    return None


_PROSE_RANGE = lazy_pattern(r"(?:维度|shape|dimensions?|rank)[^。；;\n,，]{0,12}?(\d+)\s*(?:-|–|~|～|至|到|to)\s*(\d+)\s*(?:维|D\b|dims?\b|dimensions?)",
                          re.I)
# "Device侧的tensor，支持1维~8维" (aclnnSign.md:87): a range whose numbers each say 维, with no 维度 before it.
_PROSE_SUPPORTED_RANGE = lazy_pattern(r"支持\s*(\d+)\s*维\s*(?:-|–|~|～|至|到)\s*(\d+)\s*维")
_PROSE_AT_MOST = lazy_pattern(
    r"(?:维度|shape(?:的)?维度|dimensions?|rank)[^。；;\n,，]{0,10}?(?:不超过|不大于|小于等于|不高于|最多|最大为?|≤|<=|"
    r"not\s+(?:exceed|be\s+greater\s+than|greater\s+than|more\s+than)|cannot\s+exceed|at\s+most|up\s+to|"
    r"no\s+more\s+than|no\s+greater\s+than|less\s+than\s+or\s+equal\s+to)\s*(\d+)", re.I)
_PROSE_AT_MOST_REV = lazy_pattern(r"(?:最多|不超过|至多|不大于|up\s+to|at\s+most)\s*(\d+)\s*(?:维|dimensions?|D\b)", re.I)
# "数据维度不支持8维以上": 以上 read as "beyond" (N itself allowed), the reading no stricter than the page,
# and CANN's (CHECK_MAX_DIM accepts 8 dimensions); "及以上" would take N away, and is not read.
_PROSE_NONE_ABOVE = lazy_pattern(r"不支持\s*(\d+)\s*维以上")


def rank_in_prose(text: str) -> Optional[tuple[int, int]]:
    """"维度不超过8维", "支持1-8维", "支持1维~8维", "不支持8维以上", "The dimension cannot exceed 8" as inclusive
    bounds."""
    match = _PROSE_RANGE.search(text) or _PROSE_SUPPORTED_RANGE.search(text)
    if match:
        return _clamp(int(match.group(1)), int(match.group(2)))
    match = _PROSE_AT_MOST.search(text) or _PROSE_AT_MOST_REV.search(text) or _PROSE_NONE_ABOVE.search(text)
    if match:
        return _clamp(0, int(match.group(1)))
    return None


def _clamp(lo: int, hi: int) -> Optional[tuple[int, int]]:
    if lo > hi:
        lo, hi = hi, lo
    if hi > _MAX_RANK:
        return None
    return (lo, hi)


# --- formats ---------------------------------------------------------------------------------

FORMATS = ("ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "NCL", "NLC", "NC", "NZ", "HWCN", "FRACTAL_NZ", "FRACTAL_Z",
           "FRACTAL_Z_3D", "NC1HWC0", "NDC1HWC0", "C1HWNCoC0", "NCD", "CHWN", "DHWCN", "DHWNC", "ND_RNN_BIAS",
           "FRACTAL_NZ_C0_16", "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8",
           "NCHW_NZ")
_FORMAT_WORD = lazy_pattern(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(map(re.escape, FORMATS), key=len, reverse=True))
                          + r")(?![A-Za-z0-9_])")
_FORMAT_TRIGGER = lazy_pattern(r"(?:数据格式|格式)(?:仅|只)?(?:支持|为|是|要求为|[：:])|data\s*formats?\s*(?:can\s+be|must\s+be|is|are|:|supports?)|"
                             r"supports?\s+(?:the\s+)?(?:following\s+)?(?:data\s+)?formats?", re.I)


def formats_in(text: str) -> tuple[str, ...]:
    """The data formats a 数据格式 cell lists (ND, NCHW, ...), in page order."""
    found: list[str] = []
    for match in _FORMAT_WORD.finditer(text):
        if match.group(1) not in found:
            found.append(match.group(1))
    return tuple(found)


def formats_in_prose(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for trigger in _FORMAT_TRIGGER.finditer(text):
        rest = text[trigger.end(): trigger.end() + 80]
        rest = re.split(r"[。；;\n]|，(?!\s*[A-Z])", rest, maxsplit=1)[0]
        for fmt in formats_in(rest):
            if fmt not in found:
                found.append(fmt)
    return tuple(found)


# --- tensor support flags --------------------------------------------------------------------

_EMPTY_NO = lazy_pattern(r"不支持空(?:的)?(?:Tensor|张量|tensor)|空(?:Tensor|tensor|张量)[^。；]{0,4}不支持|"
                       r"empty\s+tensors?\s+(?:is|are)\s+not\s+supported|does\s+not\s+support\s+empty\s+tensors?|"
                       r"not\s+support\s+empty\s+tensors?", re.I)
_EMPTY_YES = lazy_pattern(r"支持空(?:的)?(?:Tensor|张量|tensor)|empty\s+tensors?\s+(?:is|are)\s+supported|supports?\s+empty\s+tensors?",
                        re.I)
_NONCONTIG_NO = lazy_pattern(r"不支持非连续|non-?contiguous\s+tensors?\s+(?:is|are)\s+not\s+supported|"
                           r"not\s+support\s+non-?contiguous", re.I)
_NONCONTIG_YES = lazy_pattern(r"支持非连续|non-?contiguous\s+tensors?\s+(?:is|are)\s+supported|supports?\s+non-?contiguous", re.I)


def _stated(text: str, no: re.Pattern[str], yes: re.Pattern[str]) -> Optional[bool]:
    """What the text says of a support flag: False where it denies it (read first: a denial contains
    the affirmative words), True where it affirms it, None where it says nothing."""
    if no.search(text):
        return False
    if yes.search(text):
        return True
    return None


def empty_tensor_in(text: str) -> Optional[bool]:
    return _stated(text, _EMPTY_NO, _EMPTY_YES)


# An index tensor's values counting from the end, or not: "取值范围[-self.shape[dim], self.shape[dim] - 1]"
# (aclnnGather), "支持负数索引"; "不支持负索引", "仅支持非负索引", "Only non-negative indices are supported".
_NEGATIVE_INDICES_NO = lazy_pattern(r"不支持(?:输入)?负(?:数)?索引|仅支持非负(?:数)?索引|only\s+non-?negative\s+ind(?:ices|exes)|"
                                  r"negative\s+ind(?:ices|exes)\s+(?:is|are)\s+not\s+supported", re.I)
_NEGATIVE_INDICES_YES = lazy_pattern(r"(?<!不)支持负(?:数)?索引|取值范围\s*(?:为|是)?\s*\[\s*-\s*[A-Za-z_]\w*\s*\.\s*"
                                   r"(?:shape\s*\[\s*dim\s*\]|size\s*\(\s*dim\s*\))|"
                                   r"negative\s+ind(?:ices|exes)\s+(?:is|are)\s+supported", re.I)


def negative_indices_in(text: str) -> Optional[bool]:
    return _stated(text, _NEGATIVE_INDICES_NO, _NEGATIVE_INDICES_YES)


def noncontiguous_in(text: str) -> Optional[bool]:
    return _stated(text, _NONCONTIG_NO, _NONCONTIG_YES)
