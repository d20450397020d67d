"""One extraction step of a page builder, run guarded: a step that fails on some page content
becomes an error diagnostic at the section's line, and the page keeps everything the other steps
recovered."""

from __future__ import annotations

from typing import Callable, TypeVar

from gen.ir import Diagnostic, Level


T = TypeVar("T")


def guarded(diags: list[Diagnostic], line: int, what: str, step: Callable[[], T], default: T) -> T:
    """Runs one extraction step; a failure is a diagnostic, never an exception out of the parser."""
    try:
        return step()
    except Exception as exc:  # noqa: BLE001 - page content must never crash the parser
        diags.append(Diagnostic(Level.ERROR, line, "parser-failure",
                                f"{what} could not be read ({type(exc).__name__}: {exc})"))
        return default
