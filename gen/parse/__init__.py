"""Parsing: a documentation page (any of its formats) into the IR of `gen.ir`.

`parse_file` and `parse_bytes` never raise on page content: whatever the page gets wrong
becomes a `Diagnostic` with its line, and the IR holds what could be recovered.

The layers, each a package that imports only the ones above it here:

    repair/        bytes -> clean text, line N stays line N (text.py, mojibake.py)
    readers/       text -> Document (document.py), a reader per format:
                   markdown.py, html_page.py (saved web pages), webdump.py (rendered-page dumps)
    extractors/    a Document's facts -> IR pieces (products, prototypes, params, errors, rules, ...)
    api_page.py    aclnn API pages, and readme.py op READMEs: Document -> Page, from the extractors;
                   api_page.py holds the order of an API's steps, each in a module beside it:
                   sections.py (where the page keeps things), declarations.py (its aclnn functions),
                   param_entries.py (the rows that document a parameter), param_dtypes.py (dtypes a
                   row leaves out), param_roles.py (direction, reserved, optional), product_tables.py,
                   formula.py, example.py; guarded.py runs a step so that a failure is a diagnostic

Every layer declares its regular expressions with patterns.lazy_pattern: compiled when first used.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from gen.ir import Diagnostic, Level, Page, PageKind
from gen.parse.patterns import lazy_pattern
from gen.parse.repair.text import repair_text

_README_NAME = lazy_pattern(r"(?:^|[/\\])README[^/\\]*\.(?:md|txt|html?)$", re.I)
_HTML_START = lazy_pattern(r"^\s*(?:<!doctype\s+html|<html\b|<head\b|<body\b)", re.I)


def parse_file(path: str | Path) -> Page:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Page(source=str(path), kind=PageKind.API_PAGE,
                    diagnostics=(Diagnostic(Level.ERROR, 1, "unreadable", str(exc)),))
    return parse_bytes(raw, str(path))


def parse_bytes(raw: bytes, source: str) -> Page:
    diags: list[Diagnostic] = []
    try:
        return _parse(raw, source, diags)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a page never crashes the parser
        diags.append(Diagnostic(Level.ERROR, 1, "parser-failure",
                                f"the page could not be parsed ({type(exc).__name__}: {exc})"))
        return Page(source=source, kind=PageKind.API_PAGE, diagnostics=_sorted(diags))


def _parse(raw: bytes, source: str, diags: list[Diagnostic]) -> Page:
    repaired = repair_text(raw)
    diags.extend(repaired.diagnostics)
    text = repaired.text

    fmt = page_format(text, source)
    if fmt == "html":
        from gen.parse.readers.html_page import read_html

        doc = read_html(text)
    elif fmt == "webdump":
        from gen.parse.readers.webdump import read_webdump

        doc = read_webdump(text)
    else:
        from gen.parse.readers.markdown import read_markdown

        doc = read_markdown(text)
    for level, line, code, message in doc.notes:
        diags.append(Diagnostic(Level(level), line, code, message))
    _table_repairs(doc, diags)

    from gen.parse.readme import is_readme

    if is_readme(doc, source):
        from gen.parse.readme import build_readme

        page = build_readme(doc, source, diags)
    else:
        from gen.parse.api_page import build_api_page

        page = build_api_page(doc, source, diags)
    if fmt == "webdump":
        from gen.parse.readers.webdump import diagnose_losses

        diags.extend(diagnose_losses(doc, page))
    return dataclasses.replace(page, diagnostics=_sorted(diags))


def page_format(text: str, source: str) -> str:
    """"html" (a saved web page), "webdump" (the text of a rendered page) or "markdown"."""
    if source.lower().endswith((".html", ".htm")) or _HTML_START.match(text[:2000]):
        return "html"
    from gen.parse.readers.webdump import looks_like_webdump

    if looks_like_webdump(text, source):
        return "webdump"
    return "markdown"


def _table_repairs(doc, diags: list[Diagnostic]) -> None:
    from gen.parse.readers.document import TABLE

    for block in doc.blocks:
        if block.kind == TABLE and block.table is not None:
            for line, code, message in block.table.repairs:
                level = Level.INFO if code == "table-rowspan-overstated" else Level.WARNING
                diags.append(Diagnostic(level, line, code, message))


def _sorted(diags: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Diagnostics in line order, each fact once."""
    seen = set()
    out = []
    for d in sorted(diags, key=lambda d: d.line):
        key = (d.line, d.code, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return tuple(out)
