"""Error tables into `ErrorCase`s: one case per condition row.

Pages write them as HTML or pipe tables (返回码/错误码/描述, Return/Error Code/Description,
often with `rowspan` groups), or as text, in fenced blocks or list items:

    返回161001 (ACLNN_ERR_PARAM_NULLPTR)：1.传入的tensor或out是空指针。
    返回161002 (ACLNN_ERR_PARAM_INVALID)：1. self和other的数据类型不在支持的范围之内。
                                         2. self和other推导出的数据类型无法转换为指定输出out的类型。
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

from gen import abi
from gen.ir import ErrorCase
from gen.parse.extractors import conditions, vocab
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import CODE, ITEM, TABLE, TEXT, Block, Table
from gen.parse.extractors.prose import names_in, near_names

# aclnnStatus values by name (from runtime/include/aclnn/acl_meta.h), for rows that give only one.
STATUS_CODES: dict[str, int] = abi.status_codes()
_NAMES_BY_CODE = {code: name for name, code in STATUS_CODES.items()}

_STATUS_NAME = lazy_pattern(r"ACLNN_[A-Z0-9_]+")
_STATUS_CODE = lazy_pattern(r"(?<!\d)([1-9]\d{5})(?!\d)")
# The head of a text group: "返回161001 (ACLNN_ERR_PARAM_NULLPTR)：", "161002(ACLNN_ERR_PARAM_INVALID):",
# "ACLNN_ERR_PARAM_NULLPTR (161001)：", "**161001 (ACLNN_ERR_PARAM_NULLPTR)**：", and without the
# parentheses: "161001 ACLNN_ERR_PARAM_NULLPTR: 1. 传入的self或out是空指针。" (aclnnNanToNum).
# The spaces before and after the head are possessive (`\s*+`): nothing there but more `\s*`
# could take a space given back, and backtracking through three of them made a line of spaces
# cubic to read.
_GROUP_HEAD = lazy_pattern(
    r"^\s*+(?:[-*•]\s*+)?(?:\*\*)?(?:返回|Return(?:s|ed)?\s*+)?\s*+(?:\*\*)?\s*+"
    r"(?:([1-9]\d{5})\s*(?:[（(]\s*(ACLNN_[A-Z0-9_]+)\s*[)）]|(ACLNN_[A-Z0-9_]+))|"
    r"(ACLNN_[A-Z0-9_]+)\s*(?:[（(]\s*([1-9]\d{5})\s*[)）]|([1-9]\d{5}))|"
    r"(ACLNN_[A-Z0-9_]+)|([1-9]\d{5}))\s*+(?:\*\*)?\s*+(?:[：:]|$)\s*(?:\*\*)?\s*(.*)$", re.I)
_NUMBERED = lazy_pattern(r"^\s*(?:[-*•]\s*)?(?:\(?\d{1,2}[.)、．）]|[（(]\d{1,2}[)）])\s*")


def _status(name: str, code: Optional[int]) -> tuple[str, Optional[int]]:
    if code is None:
        code = STATUS_CODES.get(name)
    if not name and code is not None:
        name = _NAMES_BY_CODE.get(code, "")
    return name, code


def errors_from_table(table: Table, api_params: Sequence[str]) -> Optional[list[ErrorCase]]:
    """The cases of an error table, or None when the table is not one."""
    roles = [vocab.column_role(h, vocab.ERROR_COLUMNS) for h in table.header]
    header_text = " ".join(table.header)
    if "condition" not in roles and {"name", "code"} <= set(roles) and roles.count(None) == 1:
        # A description header this parser does not know (or garbled): the one column left.
        roles[roles.index(None)] = "condition"
    if "condition" not in roles or not ({"name", "code"} & set(roles)):
        if not (_STATUS_NAME.search(header_text) or _STATUS_CODE.search(header_text)):
            return None
        roles = [None] * len(table.header)
    width = len(table.header)
    cases: list[ErrorCase] = []
    previous: dict[str, str] = {}
    rows = list(table.rows)
    for row in rows:
        cells = list(row.texts)
        if len(cells) < width and previous and cells and _STATUS_NAME.fullmatch(cells[0].strip()) and roles[0] == "name":
            # The spanning cells of a group without its first condition (aclnnAddRmsNormQuant's
            # English page: "ACLNN_ERR_PARAM_INVALID | 161002", its conditions in the rows below):
            # the leading columns, not the last ones.
            cells = cells + [""] * (width - len(cells))
        elif len(cells) < width and previous:
            # A row that lost its leading cells (an understated rowspan): its cells are the
            # last columns, the first ones carry on from the row above.
            cells = [previous.get(str(i), "") for i in range(width - len(cells))] + cells
        values: dict[str, str] = {}
        for i, (role, text) in enumerate(zip(roles, cells)):
            previous[str(i)] = text
            if role and role not in values:
                values[role] = text
        joined = " ".join(cells)
        name_match = _STATUS_NAME.search(values.get("name", "") or values.get("code", "") or joined)
        code_match = _STATUS_CODE.search(values.get("code", "") or values.get("name", "") or joined)
        name = name_match.group(0) if name_match else ""
        code = int(code_match.group(1)) if code_match else None
        name, code = _status(name, code)
        if code is None or code == 0:
            continue
        condition = values.get("condition")
        if not condition:
            if "condition" in roles:
                continue  # a row holding only a group's spanning cells; its conditions follow
            condition = cells[-1] if cells else ""
        at = row.line_of(roles.index("condition")) if "condition" in roles else row.line
        if len(row.cells) < width and "condition" in roles:
            at = row.line_of(roles.index("condition") - (width - len(row.cells)))
        for text in _split_conditions(condition):
            cases.append(_case(name, code, text, api_params, at))
    return cases


def _split_conditions(cell: str) -> list[str]:
    """A condition cell holds one condition, or a numbered list of them (one case each)."""
    lines = [l for l in cell.split("\n") if l.strip()]
    if len(lines) > 1 and sum(1 for l in lines if _NUMBERED.match(l)) >= 2:
        out: list[str] = []
        for line in lines:
            if _NUMBERED.match(line) or not out:
                out.append(_NUMBERED.sub("", line, count=1).strip())
            else:
                out[-1] += line.strip()
        return [o for o in out if o]
    return [" ".join(l.strip() for l in lines)] if lines else [""]


def _case(name: str, code: int, condition: str, api_params: Sequence[str], line: int) -> ErrorCase:
    condition = condition.strip()
    # A name that differs from a parameter's by a plural or a suffix is that parameter (api_page warns of it).
    named = names_in(condition, api_params) + tuple(param for _, param in near_names(condition, api_params))
    params = tuple(dict.fromkeys(named))
    return ErrorCase(name=name, code=code, condition=condition, category=conditions.classify(condition),
                     params=params, line=line,
                     about_attributes=not params and conditions.speaks_of_attributes(condition),
                     below_zero=conditions.says_below_zero(condition))


def errors_from_text(lines: Iterable[tuple[int, str, bool]], api_params: Sequence[str]) -> list[ErrorCase]:
    """Cases from text lines (a fenced block, list items): group heads, then their conditions.

    Each line is (page line, text, whether it starts a list item); a list item or a numbered
    line starts a condition, any other line continues the one before.
    """
    cases: list[ErrorCase] = []
    group: Optional[tuple[str, int]] = None
    pending: list[list] = []  # [line, text] of the current group's conditions

    def flush() -> None:
        if group is not None:
            for at, text in pending:
                if text.strip():
                    cases.append(_case(group[0], group[1], text, api_params, at))
        pending.clear()

    for line, text, item in lines:
        if not text.strip():
            continue
        head = _GROUP_HEAD.match(text)
        if head and (head.group(1) or head.group(4) or head.group(7) or
                     (head.group(8) and re.match(r"^\s*(?:[-*•]\s*)?(?:\*\*)?(?:返回|Return)", text, re.I))):
            flush()
            code_text = head.group(1) or head.group(5) or head.group(6) or head.group(8)
            name = head.group(2) or head.group(3) or head.group(4) or head.group(7) or ""
            name, code = _status(name, int(code_text) if code_text else None)
            if not code:
                group = None
                continue
            group = (name, code)
            rest = head.group(9).strip()
            if rest:
                pending.append([line, _NUMBERED.sub("", rest, count=1)])
            continue
        if group is None:
            continue
        if item or _NUMBERED.match(text) or not pending:
            pending.append([line, _NUMBERED.sub("", text, count=1).strip()])
        else:
            pending[-1][1] += text.strip()
    flush()
    return cases


def errors_in_blocks(blocks: Sequence[Block], api_params: Sequence[str]) -> tuple[list[ErrorCase], bool]:
    """Every error case of a section's blocks; the bool says whether an error table/list was seen."""
    cases: list[ErrorCase] = []
    seen = False
    text_lines: list[tuple[int, str, bool]] = []
    for block in blocks:
        if block.kind == TABLE and block.table is not None:
            found = errors_from_table(block.table, api_params)
            if found is not None:
                seen = True
                cases.extend(found)
        elif block.kind == CODE:
            if _STATUS_NAME.search(block.text) or re.search(r"\b16100\d\b", block.text):
                text_lines.extend((block.line + 1 + i, t, False) for i, t in enumerate(block.text.split("\n")))
        elif block.kind in (TEXT, ITEM):
            text_lines.extend((block.line + i, t, block.kind == ITEM and i == 0)
                              for i, t in enumerate(block.text.split("\n")))
    from_text = errors_from_text(text_lines, api_params)
    if from_text:
        seen = True
        cases.extend(from_text)
    cases.sort(key=lambda c: c.line)
    return cases, seen
