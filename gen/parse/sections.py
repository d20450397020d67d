"""Where an API page keeps what it says: its sections found by their titles (the patterns, in
Chinese and English), an API's own section or the part of the page that stands for it, the
sections holding dtype-combination tables, and the lines of a constraints section with the items
that introduce them."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from gen.parse.extractors.prototypes import Pairing
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Block, Document, HEADING, ITEM, Section, TEXT


PROTOTYPE_SECTION = lazy_pattern(r"函数原型|接口原型|原型|Prototype|接口定义|函数定义|^接口$|API\s*定义|Function\s+Signature", re.I)
FUNCTION_SECTION = lazy_pattern(r"功能说明|功能描述|接口功能|算子功能|^Function|^Description|Overview|^功能$", re.I)
CONSTRAINT_SECTION = lazy_pattern(r"约束|限制|Constraints?|Restrictions?|Limitations?", re.I)
EXAMPLE_SECTION = lazy_pattern(r"调用示例|示例|样例|Examples?|Samples?|Usage\s+Example", re.I)
PARAMS_SECTION = lazy_pattern(r"参数说明|Parameters?|参数$", re.I)
RETURN_SECTION = lazy_pattern(r"返回值|返回码|错误码|Returns?|Return\s+Values?|Error\s+Codes?", re.I)


def first_section(sections: Sequence[Section], pattern: re.Pattern[str]) -> Optional[Section]:
    for section in sections:
        if pattern.search(section.title):
            return section
    return None


def api_section(sections: Sequence[Section], workspace_fn: str) -> Optional[Section]:
    """The section of an API's GetWorkspaceSize function (exact title first, then a title naming it)."""
    named = [s for s in sections if names_word(s.title, workspace_fn)]
    for section in named:
        if section.title.strip() == workspace_fn:
            return section
    return named[0] if named else None


def names_word(text: str, word: str) -> bool:
    """Whether `word` stands in `text` not inside a longer ASCII identifier (a pattern of it,
    compiled for each API, cost more than the search)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not _identifier_char(text[start - 1])) and (end == len(text) or not _identifier_char(text[end])):
            return True
        start = text.find(word, start + 1)
    return False


def _identifier_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def fallback_scope(doc: Document, sections: Sequence[Section], pair: Pairing,
                    pairs: Sequence[Pairing]) -> Sequence[Block]:
    """Where to look for an API's parameters when it has no section of its own: a 参数说明
    section, else the whole page without the other APIs' sections and the example."""
    excluded: set[int] = set()
    for other in pairs:
        if other.api == pair.api:
            continue
        section = api_section(sections, other.workspace.name)
        if section is not None:
            excluded.update(range(section.line, section.end_line + 1))
    example = first_section(sections, EXAMPLE_SECTION)
    if example is not None:
        excluded.update(range(example.line, example.end_line + 1))
    return [b for b in doc.blocks if b.line not in excluded]


# A section of its own for the dtypes ("## 支持的数据类型" over a table "self | other | out").
_DTYPE_SECTION = lazy_pattern(r"数据类型|\bdata\s*types?\b|\bdtypes?\b", re.I)


def combination_sections(sections: Sequence[Section], constraints: Optional[Section]) -> list[Section]:
    """Where dtype-combination tables are: the constraints section, and sections titled by the
    dtypes (aclnnDivV3 keeps its table under "## 支持的数据类型", beside "## 约束")."""
    found = [constraints] if constraints is not None else []
    inside = range(constraints.line, constraints.end_line + 1) if constraints is not None else range(0)
    found += [s for s in sections if s is not constraints and s.line not in inside
              and _DTYPE_SECTION.search(s.title) and not PARAMS_SECTION.search(s.title)]
    return found


def constraint_lines(blocks: Sequence[Block]) -> list[tuple[int, str]]:
    """The lines of a constraints section, each an item nested under an item that introduces it
    ("- Atlas A2 训练系列产品：" / "- 当x为INT8时：") prefixed with that item: what the line states
    holds only there (aclnnDequantSwigluQuantV2's "x的最后一维必须能被64整除" is the A2/A3 chips')."""
    lines: list[tuple[int, str]] = []
    context: list[tuple[int, str]] = []  # (level, text) of the open items ending with a colon
    for block in blocks:
        if block.kind == HEADING:
            context = []
        if block.kind not in (TEXT, ITEM):
            continue
        if block.kind == ITEM:
            context = [(level, text) for level, text in context if level < block.level]
        prefix = "".join(text + " " for _, text in context)
        lines.extend((block.line + i, prefix + t) for i, t in enumerate(block.text.split("\n")))
        if block.kind == ITEM and re.search(r"[：:]\s*$", block.text):
            context.append((block.level, block.text.strip()))
    return lines
