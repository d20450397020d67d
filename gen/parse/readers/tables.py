"""HTML tables as pages write them, into `document.Table`: spans expanded, nesting recovered.

Pages write tables by hand, and it shows: seed 003 opens `<tr><tr>` and then loses a `<tr>`
(its second row's cells sit directly in `<tbody>`); seed 001 says `rowspan="8"` over three
rows. lxml (libxml2) keeps such markup as it stands, so the rows are rebuilt here: cells outside
any `<tr>` form a row of their own, empty rows are dropped, and a `rowspan` ends where its row
group ends. Every such repair is reported so the page reader can diagnose it.

lxml is used directly rather than through BeautifulSoup: BeautifulSoup's "lxml" builder is fed
by the same libxml2 parser and builds the same tree (checked on seed 003's markup), at several
times the cost; tables are most of a page's bytes.
"""

from __future__ import annotations

import bisect
import re
from itertools import repeat
from typing import Iterable, Iterator, Optional

import lxml.etree

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Cell, Row, Table
from gen.parse.readers.inline import FOOTNOTE_MARK, unescape
from gen.parse.readers.scan import Marks, matches, substitute

_TABLE_TAG = lazy_pattern(r"<(/?)table\b[^>]*>", re.I)
_ROW_TAG = lazy_pattern(r"<t[rdh]\b", re.I)
# A Markdown link written inside an HTML cell (pages mix them): no brackets nesting, unlike
# gen.parse.readers.inline's, and no spaces around the target.
_MD_LINK = lazy_pattern(r"\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_MD_LABEL_END = lazy_pattern(r"[\]\n]")
_MD_TARGET_STOP = lazy_pattern(r"[)\s]")
_QUOTE = lazy_pattern('"')
_BLOCK_TAGS = frozenset({"p", "div", "ul", "ol", "li", "tr", "table", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
                         "dl", "dt", "dd"})
_SKIP_TAGS = frozenset({"script", "style", "colgroup", "col"})
# Tables are parsed into plain lxml.etree elements: lxml.html's parser calls a Python class
# lookup for every element the walk below touches (85,000 calls on a docs tree of 900 pages).
# Elements of lxml.html (an HTML page's tables, gen.parse.readers.html_page) are read the same way.
_PLAIN_HTML = lxml.etree.HTMLParser()
_TEXT_CONTENT = lxml.etree.XPath("string()")  # HtmlElement.text_content(), for any element


def find_html_tables(text: str, exclude: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int, bool]]:
    """The character spans [start, end) of the outermost `<table>` elements of a text.

    `exclude` holds spans (e.g. fenced code) where tags are not markup. The bool says whether
    the table was closed; an unclosed table runs to the end of the text.
    """
    excluded = sorted(exclude)
    excluded_starts = [a for a, _ in excluded]
    marks = Marks(text)
    spans: list[tuple[int, int, bool]] = []
    depth = 0
    start = 0
    # A tag ends at a ">": none opens after the last one (and `[^>]*` would scan there from each "<table").
    for match in _TABLE_TAG.finditer(text, 0, text.rfind(">") + 1):
        pos = match.start()
        k = bisect.bisect_right(excluded_starts, pos) - 1  # the spans are disjoint: the last one started
        if k >= 0 and pos < excluded[k][1]:
            continue
        closing = bool(match.group(1))
        if not closing:
            if depth == 0:
                start = pos
            elif depth == 1 and marks.first(_ROW_TAG, start) >= pos:
                # "<table ...><colgroup>...</colgroup><table><thead>": a table opened twice
                # before any row; the second tag restarts it.
                start = pos
                continue
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, match.end(), True))
    if depth > 0:
        spans.append((start, len(text), False))
    return spans


def parse_html_table(markup: str, line: int = 1) -> Table:
    """One `<table>` element (as text) into a Table; `line` is the page line of its first line."""
    table = _first_table(markup)
    if table is None:
        return Table((), (), line, ((line, "table-unreadable", "an HTML table could not be read"),))
    return table_from_element(table, line)


def _first_table(markup: str) -> Optional[lxml.etree._Element]:
    """The first `<table>` of the markup as libxml2's HTML parser reads it inside a `<body>` (as
    lxml.html.fragment_fromstring puts it, whose single element or, failing that, whose every
    element was searched), into plain etree elements."""
    try:
        document = lxml.etree.fromstring(f"<html><body>{markup}</body></html>", _PLAIN_HTML)
    except (lxml.etree.LxmlError, ValueError):
        return None
    return None if document is None else document.find(".//table")


def table_from_element(table: lxml.etree._Element, line: int = 1) -> Table:
    """A parsed `<table>` element into a Table; element lines are offset by `line` - 1.

    The header is the last row of `<thead>`, else the first row (pages misspell `<thead>` as
    `<thread>` or leave it out).
    """
    repairs: list[tuple[int, str, str]] = []
    groups: list[tuple[str, list[tuple[int, list[lxml.etree._Element]]]]] = []
    _collect_rows(table, "body", groups, repairs, line)

    _split_orphan_runs(groups)
    rows: list[Row] = []
    head_rows: list[Row] = []
    for kind, raw_rows in groups:
        expanded = _expand_spans(raw_rows, repairs, line)
        (head_rows if kind == "head" else rows).extend(expanded)
    header: tuple[str, ...] = ()
    if head_rows:
        header = head_rows[-1].texts
    elif rows:
        header = rows[0].texts
        rows = rows[1:]
    return Table(header=header, rows=tuple(rows), line=line, repairs=tuple(repairs))


def _split_orphan_runs(groups) -> None:
    """Cells outside any <tr> that run on for several rows ("</tr></tr><td>..."): lxml keeps them
    as one run of siblings; the run is cut into rows as wide as the table's proper rows."""
    widths = [sum(_span(c, "colspan") for c in cells) for _, raw in groups for _, cells in raw
              if cells and not getattr(cells, "orphan", False)]
    width = max(widths, default=0)
    if not width:
        return
    for _, raw in groups:
        rows: list = []  # rebuilt, not spliced in place: a table of many runs stays linear
        for at, cells in raw:
            if not getattr(cells, "orphan", False) or len(cells) <= width:
                rows.append((at, cells))
                continue
            chunks: list[list] = []
            chunk: list = []
            used = 0
            for cell in cells:
                span = _span(cell, "colspan")
                if chunk and used + span > width:
                    chunks.append(chunk)
                    chunk, used = [], 0
                chunk.append(cell)
                used += span
            if chunk:
                chunks.append(chunk)
            rows.extend((_line(chunk[0], 1) + at - _line(cells[0], 1), _Orphans(chunk)) for chunk in chunks)
        raw[:] = rows


class _Orphans(list):
    """Cells that were outside any <tr> (a row rebuilt by the parser)."""

    orphan = True


def _collect_rows(element, kind: str, groups, repairs, line: int) -> None:
    """Walks a table element; every row group (thead/tbody/tfoot or the table) becomes a group."""
    current: list[tuple[int, list]] = []
    groups.append((kind, current))
    orphan: list = []

    def flush_orphans() -> None:
        if orphan:
            at = _line(orphan[0], line)
            repairs.append((at, "table-row-recovered",
                            "table cells outside any <tr> were read as a row of their own"))
            current.append((at, _Orphans(orphan)))
            orphan.clear()

    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "tr":
            flush_orphans()
            cells = [c for c in child if isinstance(c.tag, str) and c.tag in ("td", "th")]
            # An empty row is kept for now: a rowspan above may cover it (see _expand_spans).
            current.append((_line(child, line), cells))
        elif tag in ("td", "th"):
            orphan.append(child)
        elif tag in ("thead", "tbody", "tfoot") or (tag not in ("table", "colgroup", "col", "caption")
                                                     and tag and len(child)):
            # A row group, or an unknown element holding rows (`<thread>`).
            flush_orphans()
            _collect_rows(child, "head" if tag == "thead" else "body", groups, repairs, line)
            current = []
            groups.append((kind, current))
    flush_orphans()


def _line(element, line: int) -> int:
    source = getattr(element, "sourceline", None) or 1
    return line + source - 1


def _span(cell, attr: str) -> int:
    written = cell.get(attr)
    if written is None:  # most cells: no span to read
        return 1
    try:
        value = int(str(written).strip().strip('"') or 1)
    except ValueError:
        return 1
    return max(1, min(value, 1000))


# A grid position no cell covers (cells are frozen: one object serves every such position).
_EMPTY = Cell("")


def _expand_spans(raw_rows: list[tuple[int, list]], repairs, line: int = 1) -> list[Row]:
    """Places every cell in its grid column, repeating rowspan/colspan cells where they extend."""
    pending: dict[int, tuple[int, Cell, int]] = {}  # column -> (rows left, cell, line of the span)
    rows: list[Row] = []
    for at, cells in raw_rows:
        if not cells:
            if pending:
                # "<td rowspan=4>...</td></tr><tr></tr><tr></tr>...": the row is the span's.
                for col in list(pending):
                    left, cell, origin = pending[col]
                    if left <= 1:
                        del pending[col]
                    else:
                        pending[col] = (left - 1, cell, origin)
            else:
                repairs.append((at, "table-empty-row", "an empty <tr> (or a <tr> opened twice) was dropped"))
            continue
        grid: dict[int, Cell] = {}
        column = 0
        for element in cells:
            while column in pending:
                grid[column] = pending[column][1]
                column += 1
            cell = cell_from_element(element, line)
            rowspan, colspan = _span(element, "rowspan"), _span(element, "colspan")
            for offset in range(colspan):
                grid[column + offset] = cell
                if rowspan > 1:
                    pending[column + offset] = (rowspan, cell, at)
            column += colspan
        for col in sorted(c for c in pending if c >= column):
            grid[col] = pending[col][1]
        for col in list(pending):  # this row used one row of every open span
            left, cell, origin = pending[col]
            if left <= 1:
                del pending[col]
            else:
                pending[col] = (left - 1, cell, origin)
        width = max(grid) + 1 if grid else 0
        rows.append(Row(tuple(map(grid.get, range(width), repeat(_EMPTY, width))), at))
    # Spans still pending here claimed rows the group does not have: trust the rows.
    reported = set()
    for col, (left, cell, origin) in sorted(pending.items()):
        if origin not in reported:
            reported.add(origin)
            repairs.append((origin, "table-rowspan-overstated",
                            f"a rowspan claims {left} more row(s) than its table has; the rows are trusted"))
    return rows


def cell_from_element(element, line: int = 1) -> Cell:
    links: list[tuple[str, str]] = []
    if len(element):
        parts: list[str] = []
        _element_text(element, parts, links, top=True)
        text = clean_cell_text("".join(parts))
    else:  # most cells: their text and nothing else (what _element_text gives a <td> or <th>)
        text = clean_cell_text(element.text or "")
    if "[" in text:
        md_links = list(_md_links(text))
        if md_links:
            links.extend((m.group(1), m.group(2)) for m in md_links)
            text = substitute(text, md_links, lambda m: m.group(1))
    return Cell(text, tuple(links), _line(element, line))


def _md_links(text: str) -> Iterator[re.Match[str]]:
    """The matches of `_MD_LINK.finditer(text)`, each opening's end looked up (gen.parse.readers.scan):
    the label ends at the first "]" (or line end), the target at the first ")" or space."""
    marks = Marks(text)

    def end_of(start: int) -> Optional[int]:
        label_end = marks.first(_MD_LABEL_END, start + 1)
        if not text.startswith("](", label_end):
            return None
        stop = marks.first(_MD_TARGET_STOP, label_end + 2)
        spaces = marks.after_spaces(stop)
        if spaces > stop and text.startswith('"', spaces):
            close = marks.first(_QUOTE, spaces + 1)
            if text.startswith(")", close + 1):
                return close + 2
        return stop + 1 if text.startswith(")", stop) else None

    return matches(_MD_LINK, text, (m.start() for m in re.finditer(r"\[", text)), end_of)


def _element_text(element, parts: list[str], links: list, top: bool = False) -> None:
    tag = element.tag if isinstance(element.tag, str) else None
    if tag is None:  # a comment or processing instruction: only its tail is text
        return
    if tag in _SKIP_TAGS:
        return
    if tag == "br":
        parts.append("\n")
        return
    if tag == "sup" and FOOTNOTE_MARK.fullmatch(_TEXT_CONTENT(element)):
        return  # a footnote mark ("FLOAT<sup>1</sup>"), not part of the text
    if tag in _BLOCK_TAGS and not top:
        parts.append("\n")
    start = len(parts)
    if element.text:
        parts.append(element.text)
    for child in element:
        _element_text(child, parts, links)
        if child.tail:
            parts.append(child.tail)
    if tag == "a" and element.get("href") is not None:
        links.append(("".join(parts[start:]).strip(), element.get("href", "")))
    if tag in _BLOCK_TAGS and not top:
        parts.append("\n")


_SPACES = lazy_pattern(r"[ \t\u3000\xa0]+")


def clean_cell_text(text: str) -> str:
    """Whitespace of a cell folded: lines stripped, runs of blanks collapsed, empty lines dropped."""
    text = unescape(text)
    if "\n" not in text:
        return _SPACES.sub(" ", text).strip()
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def cell_is_empty(text: Optional[str]) -> bool:
    return not text or text.strip() in ("-", "—", "–", "/", "无", "N/A", "n/a", "NA", "None", "")
