"""A Markdown page into a `Document`: headings, paragraphs, list items, code, tables.

markdown-it-py finds the block structure (headings, nested lists, fenced and indented code,
pipe tables). HTML tables are cut out of the text first, by their tags, because Markdown ends an
HTML block at a blank line and pages put blank lines inside tables; a table inside a fenced code
block is code, not a table.
"""

from __future__ import annotations

import bisect
import collections
import re
from functools import lru_cache

from markdown_it import MarkdownIt

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import CODE, HEADING, ITEM, TABLE, TEXT, Block, Cell, Document, Row, Table
from gen.parse.readers.inline import inline_text
from gen.parse.readers.tables import find_html_tables, parse_html_table

_FENCE = lazy_pattern(r"^[ \t]*(`{3,}|~{3,})", re.M)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    # Inline markup is cleaned by gen.parse.readers.inline (C pointer stars are not emphasis).
    md.disable(["inline", "text_join"], ignoreInvalid=True)
    return md


def read_markdown(text: str) -> Document:
    doc = Document()
    text = _repair_fences(text, doc)
    table_spans = _html_table_spans(text)
    line_starts = _line_starts(text)
    table_lines: list[tuple[int, int]] = []  # 1-based inclusive line ranges of HTML tables
    tables_by_line: dict[int, Block] = {}
    for start, end, closed in table_spans:
        first = _line_of(line_starts, start)
        last = _line_of(line_starts, max(end - 1, start))
        markup = text[start:end]
        table = parse_html_table(markup, first)
        table_lines.append((first, last))
        tables_by_line[first] = Block(TABLE, first, table=table, end_line=last)
        if not closed:
            doc.notes.append(("warning", first, "table-unclosed",
                              "an HTML table is never closed; it was read to the end of the page"))

    tokens = _markdown().parse(_blank_out(text, table_spans))
    depth = 0
    item_line = 0  # the line of the list item whose first paragraph comes next
    pending_tables = collections.deque(sorted(tables_by_line))
    blocks = doc.blocks

    def flush_tables(before: int) -> None:
        while pending_tables and pending_tables[0] < before:
            first = pending_tables.popleft()
            table_block = tables_by_line[first]
            blocks.append(Block(TABLE, table_block.line, table=table_block.table, level=depth,
                                end_line=table_block.end_line))

    i = 0
    n = len(tokens)
    while i < n:
        token = tokens[i]
        kind = token.type
        line = token.map[0] + 1 if token.map else 0
        if line:
            flush_tables(line)
        if kind in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif kind == "list_item_open":
            item_line = line
        elif kind == "heading_open":
            text_, links = inline_text(tokens[i + 1].content)
            blocks.append(Block(HEADING, line, text_, level=int(token.tag[1]), links=links, end_line=line))
            i += 3
            continue
        elif kind == "paragraph_open":
            content = tokens[i + 1].content
            text_, links = inline_text(content)
            end = token.map[1] if token.map else line
            if item_line == line and depth:
                blocks.append(Block(ITEM, line, text_, level=depth, links=links, end_line=end))
            elif text_:
                blocks.append(Block(TEXT, line, text_, level=depth, links=links, end_line=end))
            item_line = 0
            i += 3
            continue
        elif kind in ("fence", "code_block"):
            end = token.map[1] if token.map else line
            blocks.append(Block(CODE, line, token.content, level=depth, lang=token.info.strip(), end_line=end))
            item_line = 0
        elif kind == "html_block" and line in tables_by_line and pending_tables and pending_tables[0] == line:
            # The placeholder of an HTML table: the table sits here, at this list depth (the
            # tables above it were flushed by now).
            pending_tables.popleft()
            table_block = tables_by_line[line]
            blocks.append(Block(TABLE, line, table=table_block.table, level=depth, end_line=table_block.end_line))
            item_line = 0
        elif kind == "html_block":
            text_, links = inline_text(token.content)
            if text_:
                end = token.map[1] if token.map else line
                if item_line == line and depth:
                    blocks.append(Block(ITEM, line, text_, level=depth, links=links, end_line=end))
                else:
                    blocks.append(Block(TEXT, line, text_, level=depth, links=links, end_line=end))
            item_line = 0
        elif kind == "table_open":
            j, table = _pipe_table(tokens, i)
            blocks.append(Block(TABLE, line, table=table, level=depth, end_line=token.map[1] if token.map else line))
            item_line = 0
            i = j
            continue
        i += 1
    flush_tables(10 ** 9)
    return doc


# Info strings that open a fence: inside an open fence such a line is an opener written before
# the previous fence was closed (CommonMark reads it as code, and so do we), not a closer.
_LANGUAGES = frozenset({"c", "cpp", "c++", "cc", "cxx", "h", "hpp", "text", "txt", "plain", "plaintext", "bash", "sh",
                        "shell", "console", "python", "py", "json", "yaml", "yml", "xml", "html", "markdown", "md",
                        "cmake", "makefile", "diff", "java", "go", "rust", "js", "javascript", "ts", "sql", "ini",
                        "toml", "log", "mermaid", "math", "latex", "tex"})
_FENCE_LINE = lazy_pattern(r"^([ \t]*)(`{3,}|~{3,})(.*)$")


def _repair_fences(text: str, doc: Document) -> str:
    """Closes fences that pages close with junk after the backticks ("```l").

    CommonMark does not let a closing fence carry text, so such a fence runs on and swallows the
    rest of the page as code. Pages never nest fences: inside an open fence, a fence line with a
    short word after it is read as the closing fence (and noted).
    """
    if "```" not in text and "~~~" not in text:
        return text
    lines = text.split("\n")
    open_fence = ""
    changed = False
    # Only lines holding a fence's three characters can open, close or end code with a fence;
    # the others are passed over without a pattern tried on each.
    fence_lines = collections.deque(i for i, line in enumerate(lines) if "```" in line or "~~~" in line)
    while fence_lines:
        i = fence_lines.popleft()
        line = lines[i]
        match = _FENCE_LINE.match(line)
        if not match:
            closer = _code_then_closer(line, open_fence)
            if closer and (i + 1 == len(lines) or not lines[i + 1].strip()):
                # "}```" at the end of a block: the code stays, the fence moves to the blank (or
                # new last) line after it, so no line number of the page shifts.
                lines[i] = closer
                if i + 1 == len(lines):
                    lines.append(open_fence)
                else:
                    lines[i + 1] = open_fence
                fence_lines.appendleft(i + 1)  # the fence moved there closes the code
                changed = True
                doc.notes.append(("warning", i + 1, "fence-closed-after-code",
                                  f"a code fence is closed at the end of the code line {line.strip()!r}"))
            continue
        indent, fence, rest = match.groups()
        if not open_fence:
            open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence):
            if rest.strip():
                if re.fullmatch(r"\s*\S{1,12}\s*", rest) and rest.strip().lower() not in _LANGUAGES:
                    lines[i] = indent + fence
                    changed = True
                    doc.notes.append(("warning", i + 1, "fence-closed-with-text",
                                      f"a code fence is closed by {line.strip()!r}; read as its closing fence"))
                else:
                    continue
            open_fence = ""
    return "\n".join(lines) if changed else text


def _code_then_closer(line: str, open_fence: str) -> str:
    """The code of a line that ends an open fence's code with its closing backticks ("}```"), else ""."""
    if not open_fence or not line.rstrip().endswith(open_fence):
        return ""
    code = line.rstrip()[: -len(open_fence)]
    return code if code.strip() and not code.endswith(open_fence[0]) else ""


def _html_table_spans(text: str) -> list[tuple[int, int, bool]]:
    if "<table" not in text and "<TABLE" not in text:
        return []
    return find_html_tables(text, _fence_spans(text))


def _fence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of fenced code blocks, found by their fence lines (cheaply, without Markdown)."""
    spans = []
    open_at = -1
    marker = ""
    for match in _FENCE.finditer(text):
        fence = match.group(1)
        if open_at < 0:
            open_at, marker = match.start(), fence
        elif fence[0] == marker[0] and len(fence) >= len(marker):
            line_end = text.find("\n", match.end())
            rest = text[match.end(): line_end if line_end >= 0 else len(text)]
            if rest.strip():  # a closing fence has no info string
                continue
            spans.append((open_at, match.end()))
            open_at = -1
    if open_at >= 0:
        spans.append((open_at, len(text)))
    return spans


def _blank_out(text: str, spans: list[tuple[int, int, bool]]) -> str:
    """The text with HTML tables replaced by empty lines, so that Markdown sees the rest in place.

    A table's first line keeps its indentation and becomes an HTML comment, so that a list item
    the table sits in continues past it.
    """
    if not spans:
        return text
    out = []
    pos = 0
    for start, end, _ in spans:
        out.append(text[pos:start])
        out.append("<!-- -->")
        out.append("\n" * text.count("\n", start, end))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


def _pipe_table(tokens, i: int) -> tuple[int, Table]:
    header: list[str] = []
    rows: list[Row] = []
    line = tokens[i].map[0] + 1 if tokens[i].map else 0
    cells: list[Cell] = []
    row_line = line
    in_head = False
    j = i + 1
    while j < len(tokens) and tokens[j].type != "table_close":
        t = tokens[j]
        if t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            cells = []
            row_line = t.map[0] + 1 if t.map else row_line
        elif t.type == "inline":
            text_, links = inline_text(t.content)
            cells.append(Cell(text_, links, row_line))
        elif t.type == "tr_close":
            if in_head:
                header = [c.text for c in cells]
            else:
                rows.append(Row(tuple(cells), row_line))
        j += 1
    return j + 1, Table(tuple(header), tuple(rows), line)
