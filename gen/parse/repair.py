"""The text repair the parser runs first: `gen.parse.text.repair_text` when it is installed.

Text repair (BOM, CRLF, zero-width characters, NBSP, mojibake) is its own module, written
separately; until it is present this minimal fallback keeps the parser usable on clean pages:
it decodes UTF-8 (replacing bad bytes), drops a BOM and normalises line ends, keeping line N
at line N.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen.ir import Diagnostic, Level


@dataclass(frozen=True)
class _Fallback:
    text: str
    diagnostics: tuple[Diagnostic, ...]


def repair(raw: bytes):
    try:
        from gen.parse.text import repair_text
    except ImportError:
        return _fallback(raw)
    return repair_text(raw)


def _fallback(raw: bytes) -> _Fallback:
    diags = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        line = raw[: exc.start].count(b"\n") + 1
        diags.append(Diagnostic(Level.WARNING, line, "invalid-utf8", "bytes that are not UTF-8 were replaced"))
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    for ch in ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"):
        text = text.replace(ch, "")
    text = text.replace("\xa0", " ")
    return _Fallback(text, tuple(diags))
