"""Text repair: a page's bytes -> clean text, before anything else reads the page.

Every step keeps the page's lines where they were: line N of the result is line N of the input
(CRLF and lone CR each end one line), because every later diagnostic points at a line.

The steps, in the order that makes them correct:

1. Decode. A page that starts with a UTF-32 or UTF-16 byte-order mark is decoded as such (an
   editor's "Unicode" save). Else UTF-8; a page that is not UTF-8 is decoded as GB18030 when it
   is entirely valid GB18030 and reads like the corpus's text, else as UTF-8 with U+FFFD for
   the bad bytes, and the lines that held them are diagnosed ("invalid-utf8").
2. Line ends: CRLF and CR become LF.
3. Mojibake (`gen.parse.repair.mojibake`): UTF-8 that a tool read as cp1252/cp1254 and saved again.
   It runs before the clean-ups below because its damage uses their characters: the byte 0xA0
   shows up as an NBSP, a BOM as "ï»¿", a zero-width space as "â€‹".
4. Clean-ups: BOM and zero-width characters (U+200B U+200C U+200D U+2060 U+FEFF) removed, NBSP
   and its kin (U+00A0 U+202F U+2007) become spaces, and the characters other than LF that
   Python's `str.splitlines` takes for line ends (VT, FF, FS, GS, RS, NEL, U+2028, U+2029)
   become spaces, so that no reader can count lines differently.
5. Unresolved merge conflicts (`<<<<<<<`, `=======`, `>>>>>>>` at a line's start, as git leaves
   them): the first side is read, the markers and the second side become empty lines. The first
   side is what the page said before the commit that conflicted; reading both would declare a
   prototype's parameters twice (the corpus's aclnnGroupedMatmulFinalizeRoutingV3 binds a wrong ABI
   so). Each conflict is diagnosed with its lines; one whose end is missing is diagnosed and kept.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from gen.ir import Diagnostic, Level
from gen.parse.patterns import lazy_pattern
from gen.parse.repair import mojibake

# A GB18030 reading is believed only when this share of its non-ASCII characters occur in the
# corpus: GB18030 accepts most byte pairs, so UTF-8 with one stray byte often "decodes" too.
GB18030_MIN_KNOWN_SHARE = 0.8
# Lines with bad bytes diagnosed one by one; the rest are summed up in one more diagnostic.
MAX_LINE_DIAGNOSTICS = 20

_REMOVED = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_SPACES = dict.fromkeys(map(ord, "\u00a0\u202f\u2007\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), " ")
_CLEANUP = {**_REMOVED, **_SPACES}
# Any character _CLEANUP changes: most pages have none, and searching is far cheaper than
# translating every character.
_TO_CLEAN = lazy_pattern("[" + "".join(map(chr, _CLEANUP)) + "]")
_BAD_BYTE = lazy_pattern("[\udc80-\udcff]+")  # bytes that surrogateescape could not decode
_REPLACEMENT = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")
# UTF-32's marks first: UTF-32-LE's begins with UTF-16-LE's. The codecs read the mark and drop it.
_BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                     (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


@dataclass(frozen=True)
class RepairedText:
    text: str  # clean text, '\n' line ends
    diagnostics: tuple[Diagnostic, ...]


def repair_text(raw: bytes) -> RepairedText:
    """Clean text from any bytes whatsoever; never raises."""
    try:
        return _repair(bytes(raw))
    except Exception as exc:  # noqa: BLE001 - the last line of defence: text repair never raises
        text = bytes(raw).decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray, memoryview)) else ""
        text = clean_up(normalize_line_ends(text))
        return RepairedText(text, (Diagnostic(Level.ERROR, 1, "text-repair-failure",
                                              f"text repair failed ({type(exc).__name__}: {exc}); "
                                              f"the page was only decoded as UTF-8"),))


def _repair(raw: bytes) -> RepairedText:
    diags: list[Diagnostic] = []
    text = normalize_line_ends(_decode(raw, diags))
    repair = mojibake.repair_page(text)
    if repair is not None:
        diags.append(Diagnostic(
            Level.WARNING, _line_of(text, repair.first_offset), "mojibake-repaired",
            f"text was UTF-8 decoded as {repair.code_page} and re-saved; repaired "
            f"{repair.characters:,} characters, guessed {repair.guessed_bytes:,} lost bytes"))
        for start, end in repair.undecodable:
            diags.append(Diagnostic(
                Level.WARNING, _line_of(text, start), "mojibake-unrepaired",
                f"{text[start:end]!r} does not decode as UTF-8 even with guessed bytes; kept as is"))
        text = repair.text
    return RepairedText(_first_sides(clean_up(text), diags), tuple(diags))


_CONFLICT_START, _CONFLICT_BASE, _CONFLICT_MIDDLE, _CONFLICT_END = "<<<<<<< ", "||||||| ", "=======", ">>>>>>> "


def _first_sides(text: str, diags: list[Diagnostic]) -> str:
    """Each merge conflict's first side kept; its markers, a diff3 base and its second side become
    empty lines, so that line N stays line N."""
    if _CONFLICT_START.rstrip() not in text:
        return text
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        if not lines[at].startswith(_CONFLICT_START.rstrip()):
            at += 1
            continue
        start = at
        middle = end = None
        for j in range(start + 1, len(lines)):
            if middle is None and lines[j].rstrip() == _CONFLICT_MIDDLE:
                middle = j
            elif middle is not None and lines[j].startswith(_CONFLICT_END.rstrip()):
                end = j
                break
        if middle is None or end is None:
            diags.append(Diagnostic(Level.WARNING, start + 1, "merge-conflict-unclosed",
                                    "a merge conflict's start without its '=======' and '>>>>>>>': kept as it is"))
            at += 1
            continue
        base = next((j for j in range(start + 1, middle) if lines[j].startswith(_CONFLICT_BASE.rstrip())), middle)
        for j in [start, *range(base, end + 1)]:
            lines[j] = ""
        diags.append(Diagnostic(Level.WARNING, start + 1, "merge-conflict",
                                f"an unresolved merge conflict (lines {start + 1}-{end + 1}): its first side read, "
                                f"the second (lines {middle + 2}-{end}) dropped"))
        at = end + 1
    return "\n".join(lines)


def normalize_line_ends(text: str) -> str:
    """CRLF and lone CR become LF: one line end each, so no line is added or lost."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def clean_up(text: str) -> str:
    """BOM and zero-width characters removed; NBSP, its kin and the other line separators of
    `str.splitlines` become spaces."""
    return text.translate(_CLEANUP) if _TO_CLEAN.search(text) else text


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _decode(raw: bytes, diags: list[Diagnostic]) -> str:
    for bom, codec in _BYTE_ORDER_MARKS:
        if raw.startswith(bom):
            return _decode_unicode(raw, codec, diags)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Bytes that are not UTF-8 become lone surrogates U+DC80-U+DCFF, one per byte, in place.
    escaped = raw.decode("utf-8", errors="surrogateescape")
    gb = _gb18030(raw, escaped)
    lines = normalize_line_ends(escaped)
    if gb is not None:
        first_line = _line_of(lines, _BAD_BYTE.search(lines).start())  # type: ignore[union-attr]
        diags.append(Diagnostic(Level.WARNING, first_line, "decoded-gb18030",
                                f"the page is not UTF-8 (line {first_line} is the first that is "
                                f"not) but valid GB18030; decoded as GB18030"))
        return gb
    _diagnose_bad_bytes(lines, diags)
    return escaped.translate(_REPLACEMENT)


def _decode_unicode(raw: bytes, codec: str, diags: list[Diagnostic]) -> str:
    """A page with a UTF-16/UTF-32 byte-order mark; code units that do not decode (a page cut
    in the middle of one, a lone surrogate) become U+FFFD, diagnosed at the first one's line."""
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as exc:
        first_line = normalize_line_ends(raw[:exc.start].decode(codec, errors="replace")).count("\n") + 1
        diags.append(Diagnostic(Level.WARNING, first_line, "invalid-unicode",
                                f"the page is {codec.upper()} (byte-order mark) with code units that do not "
                                f"decode, from line {first_line} on; replaced by U+FFFD"))
        return raw.decode(codec, errors="replace")


def _gb18030(raw: bytes, escaped: str) -> str | None:
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return None
    model = mojibake.default_model()
    wide = [c for c in text if ord(c) > 0x7F]
    known = sum(1 for c in wide if model.knows(c))
    if not wide or known < GB18030_MIN_KNOWN_SHARE * len(wide):
        return None
    # The UTF-8 reading of the same bytes must not be the better one (UTF-8 with a few bad bytes).
    utf8_wide = [c for c in escaped if ord(c) > 0x7F]
    utf8_known = sum(1 for c in utf8_wide if model.knows(c))
    if utf8_known >= known:
        return None
    return text


def _diagnose_bad_bytes(text: str, diags: list[Diagnostic]) -> None:
    lines = text.split("\n")
    bad = [(n, sum(map(len, _BAD_BYTE.findall(line))))
           for n, line in enumerate(lines, 1) if not line.isascii() and _BAD_BYTE.search(line)]
    for line, count in bad[:MAX_LINE_DIAGNOSTICS]:
        diags.append(Diagnostic(Level.WARNING, line, "invalid-utf8",
                                f"{count} byte{'s' if count > 1 else ''} not valid as UTF-8, "
                                f"replaced by U+FFFD"))
    rest = bad[MAX_LINE_DIAGNOSTICS:]
    if rest:
        diags.append(Diagnostic(
            Level.WARNING, rest[0][0], "invalid-utf8",
            f"{sum(c for _, c in rest):,} more bytes not valid as UTF-8 on {len(rest):,} more "
            f"lines from here on, replaced by U+FFFD"))
