"""The text an API keeps of its page's prose: the formula of the function section (from its mark
through the parts that show a formula) and a section's blocks as plain text."""

from __future__ import annotations

import itertools
import re
from typing import Optional, Sequence

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Block, CODE, HEADING, ITEM, Section, TABLE, TEXT


_FORMULA_MARK = lazy_pattern(r"计算公式|公式[：:]|Formula|Calculation\s+formula|Computation\s+formula", re.I)


def formula_of(function: Optional[Section]) -> str:
    """The formula of the function section: from the first formula mark (计算公式：) through the
    parts of the section after it that show a display formula or another mark, up to the example;
    without a mark, the section's display formulas ($$ ... $$).

    A part is a heading or a list item with what it holds. Pages list their formulas as parts
    ("- 计算公式：", "- 计算公式（BOOL类型情况）：", or "- 计算公式：" over "- 先计算gelu..." and
    "- quant_mode = static"), and end them with parts of other things: an example, notes on the
    implementation or the frameworks, which are the description's, not the formula's."""
    if function is None:
        return ""
    blocks = function.blocks
    for start, opening in enumerate(blocks):
        mark = _FORMULA_MARK.search(opening.text) if opening.kind in (HEADING, ITEM, TEXT) else None
        if mark is None:
            continue
        parts = _parts(blocks[start:], opening)
        kept = list(itertools.takewhile(lambda part: not EXAMPLE_LABEL.match(part[0].text), parts[1:]))
        while kept and not any(_shows_display_formula(b) or _FORMULA_MARK.search(b.text) for b in kept[-1]):
            kept.pop()
        first, *rest = (b for part in [parts[0]] + kept for b in part)
        return "\n".join([first.text[mark.end():].lstrip("*：: \n")] + [_block_text(b) for b in rest]).strip()
    text = "\n".join(_block_text(b) for b in blocks)
    return "\n".join(b.strip() for b in re.findall(r"\$\$.*?\$\$", text, re.S))


# A part that begins an example ("- 示例：", "- Example:", "- 举例：").
EXAMPLE_LABEL = lazy_pattern(r"\s*(?:\*\*)?\s*(?:调用示例|示例|举例|样例|Examples?\b|Samples?\b)", re.I)


def _parts(blocks: Sequence[Block], opening: Block) -> list[list[Block]]:
    """`blocks` cut where a heading or a list item as high as the opening block's begins."""
    depth = opening.level if opening.kind == ITEM else max(opening.level, 1) if opening.kind == TEXT else 1
    parts: list[list[Block]] = []
    for block in blocks:
        if not parts or block.kind == HEADING or (block.kind == ITEM and block.level <= depth):
            parts.append([])
        parts[-1].append(block)
    return parts


def _shows_display_formula(block: Block) -> bool:
    return "$$" in block.text or (block.kind == CODE and block.lang.strip().lower() in ("math", "latex", "tex"))


def section_text(section: Section) -> str:
    return "\n".join(_block_text(b) for b in section.blocks
                     if b.kind in (HEADING, ITEM, TEXT, CODE) or b.table is not None).strip()


def _block_text(block: Block) -> str:
    if block.kind == ITEM:
        return "  " * max(block.level - 1, 0) + "- " + block.text
    if block.kind == CODE:
        return block.text.rstrip("\n")
    if block.kind == TABLE and block.table is not None:
        table = block.table
        return "\n".join([" | ".join(table.header)]
                         + [" | ".join(c.replace("\n", " ") for c in row.texts) for row in table.rows])
    return block.text
