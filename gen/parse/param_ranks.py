"""The ranks of tensors whose rows state none, from the error table: a row that refuses nothing
but more dimensions than a bound ("input或out的维数大于8", "self和out的维度超过8维"), or fewer than
another as well ("self维度大于8，或小于2"), bounds the rank of every tensor it names. CANN's op_api
checks it (CHECK_MAX_DIM) whether the parameter table's 维度 column says so or is "-"."""

from __future__ import annotations

import dataclasses
import re
from typing import Optional, Sequence

from gen.ir import ErrorCase, ErrorCategory, Param, ParamKind
from gen.parse.patterns import lazy_pattern

# The whole of a row that bounds ranks: the tensors it names, then their dimension count "大于"/"超过" a
# number, or also "小于" another ("self维度大于8，或小于2"). A row that says anything more (another
# condition, "或两者shape不一致") is not it, nor one that bounds them from below alone.
_COMPARED = r"(?:大于|超过了?|高于|小于|低于)\s*\d+\s*维?"
_RANK_ROW = lazy_pattern(
    r"^\s*(?:传入的|参数|输入的?)?\s*(?P<names>[\w、,，\s]+?)\s*(?:中的\s*Tensor\s*|中tensor\s*)?(?:的)?\s*"
    r"(?:shape\s*(?:的)?\s*(?:维度|维数|dim)?|数据(?:维度|维数)|维度|维数)(?:数|数量)?\s*"
    rf"(?P<bounds>{_COMPARED}(?:\s*[，,]?\s*(?:或者|或)\s*{_COMPARED})?)\s*时?\s*[。.;；]?\s*$", re.I)
# The English pages' rows ("The number of dimensions of self is greater than eight.", "self has more than
# 8 dimensions."): an upper bound alone.
_RANK_ROW_EN = lazy_pattern(
    r"^\s*(?:(?:the\s+number\s+of\s+dimensions|the\s+dimensions?|the\s+rank)\s+of\s+(?P<names>[\w,\s]+?)\s+(?:is|are)"
    r"|(?P<holders>[\w,\s]+?)\s+(?:has|have))\s+(?:greater|more|larger)\s+than\s+(?P<bound>\d+|[a-z]+)"
    r"(?:\s+dimensions?)?\s*[.;]?\s*$", re.I)
_NUMERALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_COMPARISON = lazy_pattern(r"(大于|超过了?|高于|小于|低于)\s*(\d+)")
_BELOW = ("小于", "低于")
_SEPARATORS = lazy_pattern(r"[、,，\s]+|或者|或|和|与|以及|及|\b(?:or|and)\b", re.I)
_RANKED_KINDS = (ParamKind.TENSOR, ParamKind.TENSOR_LIST)


def ranks_from_errors(params: Sequence[Param], errors: Sequence[ErrorCase]) -> list[Param]:
    """`params` with the ranks an error row bounds (`_RANK_ROW`) given to each tensor it names
    whose own row states none, and the row's line (`Param.rank_line`) for the refusal to cite."""
    by_name = {p.name: p for p in params}
    bounds: dict[str, tuple[tuple[int, int], int]] = {}  # (ranks, the row's line), by tensor
    for row in errors:
        found = _bounds_of(row.condition) if row.category is ErrorCategory.RANK else None
        if found is None:
            continue
        names, ranks = found
        words = [w for w in _SEPARATORS.split(names) if w]
        if not words or any(w not in by_name or by_name[w].kind not in _RANKED_KINDS for w in words):
            continue
        for word in words:
            bounds.setdefault(word, (ranks, row.line))
    return [dataclasses.replace(p, rank=bounds[p.name][0], rank_line=bounds[p.name][1])
            if p.name in bounds and p.rank is None else p for p in params]


# A row of alternatives ("self和out的shape超过8维，或者两者shape不一致"): CANN refuses a call for either,
# so an alternative that is a whole rank row bounds the ranks on its own.
_ALTERNATIVES = lazy_pattern(r"[，,；;]\s*(?:或者|或|or\s+)")


def _bounds_of(condition: str) -> Optional[tuple[str, tuple[int, int]]]:
    """The tensors a rank row names (their words, unsplit) and the ranks it leaves them; None for
    another row. A row of alternatives bounds by its first alternative that is a rank row (aclnnRelu's
    "self和out的shape超过8维，或者两者shape不一致"), unless the whole row is one ("self维度大于8，或小于2")."""
    whole = _rank_row_bounds(condition)
    if whole is not None:
        return whole
    for alternative in _ALTERNATIVES.split(condition) if _ALTERNATIVES.search(condition) else ():
        found = _rank_row_bounds(alternative)
        if found is not None:
            return found
    return None


def _rank_row_bounds(condition: str) -> Optional[tuple[str, tuple[int, int]]]:
    match = _RANK_ROW.match(condition)
    if match is not None:
        refused = [(word, int(n)) for word, n in _COMPARISON.findall(match.group("bounds"))]
        above = [n for word, n in refused if word not in _BELOW]
        below = [n for word, n in refused if word in _BELOW]
        if len(above) != 1 or len(below) > 1 or (below and below[0] > above[0]):
            return None
        return match.group("names"), (below[0] if below else 0, above[0])
    match = _RANK_ROW_EN.match(condition)
    bound = match.group("bound").lower() if match else ""
    most = int(bound) if bound.isdigit() else _NUMERALS.get(bound)
    if match is None or most is None:
        return None
    return match.group("names") or match.group("holders"), (0, most)
