"""The format-neutral shape of a page: a flat run of blocks (headings, text, list items, code,
tables), each with the 1-based line it starts on.

Every reader (Markdown, a saved HTML page, a web text dump) produces a `Document`; everything
after that (prototypes, parameters, errors, products) reads only this shape, so one extraction
serves all formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Sequence

HEADING = "heading"
TEXT = "text"
ITEM = "item"  # the first paragraph of a list item; `level` is its nesting depth (1 = top)
CODE = "code"
TABLE = "table"


@dataclass(frozen=True)
class Cell:
    text: str
    links: tuple[tuple[str, str], ...] = ()  # (link text, target) as written
    line: int = 0  # the page line the cell starts on (0: the row's)


@dataclass(frozen=True)
class Row:
    cells: tuple[Cell, ...]
    line: int

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.cells)

    def line_of(self, column: int) -> int:
        """The line of one cell (a cell spanned from a row above keeps its own line)."""
        if 0 <= column < len(self.cells) and self.cells[column].line:
            return self.cells[column].line
        return self.line


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    line: int
    # Notes about the markup that had to be recovered (rowspan overstated, stray cells, ...):
    # (line, code, message); the page reader turns them into diagnostics.
    repairs: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True)
class Block:
    kind: str
    line: int
    text: str = ""
    level: int = 0  # heading level, or list depth of items and of the blocks inside them
    lang: str = ""  # code: the fence's info string as written ("" for none)
    table: Optional[Table] = None
    links: tuple[tuple[str, str], ...] = ()
    end_line: int = 0


@dataclass(frozen=True)
class Section:
    """A heading and every block up to the next heading of the same or a higher level."""

    title: str
    level: int
    line: int
    blocks: tuple[Block, ...]  # without the heading itself

    def tables(self) -> Iterator[Table]:
        return (b.table for b in self.blocks if b.kind == TABLE and b.table is not None)

    def code(self) -> Iterator[Block]:
        return (b for b in self.blocks if b.kind == CODE)

    @property
    def end_line(self) -> int:
        return max((b.end_line or b.line for b in self.blocks), default=self.line)


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)
    # Lost or recovered content noticed while reading: (level, line, code, message).
    notes: list[tuple[str, int, str, str]] = field(default_factory=list)

    @property
    def title(self) -> str:
        for block in self.blocks:
            if block.kind == HEADING:
                return block.text
        return ""

    def sections(self) -> list[Section]:
        """Every heading's section (nested sections are included in their parents' blocks)."""
        out = []
        for i, block in enumerate(self.blocks):
            if block.kind != HEADING:
                continue
            end = i + 1
            while end < len(self.blocks) and not (
                    self.blocks[end].kind == HEADING and self.blocks[end].level <= block.level):
                end += 1
            out.append(Section(block.text, block.level, block.line, tuple(self.blocks[i + 1:end])))
        return out

    def whole(self) -> Section:
        return Section(self.title, 0, 1, tuple(self.blocks))


def block_text(blocks: Sequence[Block], kinds: tuple[str, ...] = (TEXT, ITEM)) -> str:
    """The prose of some blocks, one block per line, list items marked as the page marks them."""
    parts = []
    for b in blocks:
        if b.kind not in kinds:
            continue
        if b.kind == ITEM:
            parts.append("  " * max(b.level - 1, 0) + "- " + b.text)
        else:
            parts.append(b.text)
    return "\n".join(parts).strip()
