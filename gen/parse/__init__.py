"""Parsing: a documentation page (any of its formats) into the IR of `gen.ir`.

`parse_file` and `parse_bytes` never raise on page content: whatever the page gets wrong
becomes a `Diagnostic` with its line, and the IR holds what could be recovered.
"""

from __future__ import annotations

from pathlib import Path

from gen.ir import Diagnostic, Level, Page, PageKind


def parse_file(path: str | Path) -> Page:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Page(source=str(path), kind=PageKind.API_PAGE,
                    diagnostics=(Diagnostic(Level.ERROR, 1, "unreadable", str(exc)),))
    return parse_bytes(raw, str(path))


def parse_bytes(raw: bytes, source: str) -> Page:
    # Placeholder until the parser lands: a page with no content and an error.
    return Page(source=source, kind=PageKind.API_PAGE,
                diagnostics=(Diagnostic(Level.ERROR, 1, "not-implemented", "parser not implemented"),))
