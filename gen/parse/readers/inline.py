"""Inline Markdown/HTML of one paragraph or cell, as plain text (and the links it holds).

Inline text is cleaned here rather than by markdown-it's inline parser: pages are full of C
pointer stars (`aclTensor *self, aclOpExecutor **executor`) that CommonMark would read as
emphasis, and the inline parser is most of markdown-it's cost. Code spans are kept verbatim.

What counts as a code span, a link or bold text is said by the regular expressions below. They
are not run over the text as they stand, though: one whose closing part is missing (`[x](`,
`**x `, `` ` ``) would rescan the rest of the text from every opening, and a paragraph of 100 KB
of them took a minute. Each construct has a scanner instead that finds, in time linear in the
text, the same matches the expression's `finditer`/`sub` would: it knows from positions indexed
once (the backtick runs, the closers, the spaces) where a match that starts at an opening ends,
or that none does, and only then runs the expression, bounded to that match, for its groups.
tests/parse/test_parse_scanners.py checks every scanner against its expression on random texts.
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Callable, Iterator, Optional

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.scan import Marks, matches, substitute

_CODE_SPAN = lazy_pattern(r"(`+)(.+?)\1", re.S)
_LINK_LABEL = r"[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*"  # one level of brackets inside
_LINK_OPEN = lazy_pattern(rf"!?\[({_LINK_LABEL})\]\(")
_LINK = lazy_pattern(_LINK_OPEN.pattern + r"\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
# "FLOAT<sup>1</sup>": a footnote mark (its class holds the spaces, so none are matched around it).
FOOTNOTE_MARK = lazy_pattern(r"[\d*†‡,，、\s]+")
_FOOTNOTE = lazy_pattern(rf"<sup>{FOOTNOTE_MARK.pattern}</sup>", re.I)
_BR = lazy_pattern(r"<br\s*/?>", re.I)
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_TAG = lazy_pattern(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_BOLD = lazy_pattern(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_BOLD_OPEN = lazy_pattern(r"(?=(\*\*|__)\S)")  # zero-width: "***x**" may open at its first or second star
_ESCAPE = lazy_pattern(r"\\([\\`*_{}\[\]()#+\-.!|<>~\"'])")
_SPACES = lazy_pattern(r"[ \t\u3000]+")
_TICKS = lazy_pattern(r"`+")
_LINK_START = lazy_pattern(r"!(?=\[)|\[")  # where a link or an image can start
_LINK_STOP = lazy_pattern(r"[)\s>]")  # what ends a link's target
_QUOTE = lazy_pattern('"')
_NEWLINE = lazy_pattern("\n")
_BOLD_CLOSERS = {d: lazy_pattern(rf"(?<=\S)(?={re.escape(d)})") for d in ("**", "__")}  # after a non-space
# A numeric character reference, decimal or hex (see `unescape`).
_NUMERIC_REF = lazy_pattern(r"&#(?:([xX])([0-9a-fA-F]+)|([0-9]+))")


def inline_text(source: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Plain text of inline markup, and the (text, target) of every link, in order."""
    links: list[tuple[str, str]] = []
    out: list[str] = []
    pos = 0
    for start, end, code in _code_spans(source):
        out.append(_clean(source[pos:start], links))
        out.append(code.strip() if code.strip() else code)
        pos = end
    out.append(_clean(source[pos:], links))
    text = "".join(out)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line), tuple(links)


def plain(source: str) -> str:
    return inline_text(source)[0]


def unescape(text: str) -> str:
    """`html.unescape`, also for a numeric reference of thousands of digits ("&#999…"), which
    makes it raise (Python refuses to convert such strings to int): such a number is past
    U+10FFFF and, as `html.unescape` says of those, U+FFFD."""
    if "&" not in text:
        return text
    return html_lib.unescape(_NUMERIC_REF.sub(_short_reference, text))


def _short_reference(match: re.Match[str]) -> str:
    if match.group(1):
        digits = match.group(2).lstrip("0") or "0"
        return f"&#{match.group(1)}{digits if len(digits) <= 6 else '110000'}"
    digits = match.group(3).lstrip("0") or "0"
    return f"&#{digits if len(digits) <= 7 else '1114112'}"


def _clean(text: str, links: list[tuple[str, str]]) -> str:
    if not text:
        return text
    if "[" in text:
        def link(match: re.Match[str]) -> str:
            if match.group(0).startswith("!"):
                return ""
            label = match.group(1)
            links.append((_ESCAPE.sub(r"\1", _TAG.sub("", label)).strip(), match.group(2)))
            return label
        text = substitute(text, _links(text), link)
    if "<" in text:
        text = _FOOTNOTE.sub("", text)
        text = _without_comments(text)
        text = _BR.sub("\n", text)
        text = _TAG.sub("", text)
    if "*" in text or "_" in text:
        text = substitute(text, _bold(text), lambda match: match.group(2))
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    return unescape(text)


# --- the scanners ---------------------------------------------------------------------------------


def _code_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, content) of each match of `_CODE_SPAN.finditer(text)`.

    From an opening run of L backticks the expression tries a closer of L, L-1, ... backticks,
    each time as the first such run after at least one character of content; it takes the first
    length that has a closer. A later run of at least m backticks closes m; so does the opening
    run itself when it is long enough (2m + 1 <= L: m open, one of content, m close).
    """
    if "`" not in text:
        return
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    longest_after = [0] * (len(runs) + 1)  # longest_after[i]: the longest run of runs[i:]
    for i in range(len(runs) - 1, -1, -1):
        longest_after[i] = max(longest_after[i + 1], runs[i][1] - runs[i][0])
    i, pos = 0, 0
    while i < len(runs):
        start = max(runs[i][0], pos)  # a span that closed inside this run leaves its rest
        length = runs[i][1] - start
        ticks = max(min(length, longest_after[i + 1]), (length - 1) // 2)
        if length <= 0 or ticks == 0:  # no span opens here, nor later in the run (shorter openings)
            i += 1
            continue
        if 2 * ticks + 1 <= length:
            close = start + ticks + 1
        else:
            i += 1
            while runs[i][1] - runs[i][0] < ticks:
                i += 1
            close = runs[i][0]
        yield start, close + ticks, text[start + ticks:close]
        pos = close + ticks


def _links(text: str) -> Iterator[re.Match[str]]:
    """The matches of `_LINK.finditer(text)`: links and images."""
    marks = Marks(text)
    openings = (m.start() for m in _LINK_START.finditer(text))
    return matches(_LINK, text, openings, lambda start: _link_end(text, start, marks))


def _link_end(text: str, start: int, marks: Marks) -> Optional[int]:
    """Where `_LINK.match(text, start)` ends, or None: the expression's choices, in its order.

    A label's scan stops at a line end or at a second level of brackets, so the labels scanned
    from all openings cover the text about twice; what follows the "(" (target, title) is looked
    up in `marks` rather than scanned, since one long target is reached from every opening before
    it ("[x]([x]([x](...").
    """
    opening = _LINK_OPEN.match(text, start)
    if opening is None:
        return None
    paren = opening.end()
    spaces = marks.after_spaces(paren)
    # `\s*<?([^)\s>]*)>?`: the target runs to the first stop character; a shorter target would
    # leave a target character where what follows needs a space, ">", '"' or ")".
    target = spaces + 1 if text.startswith("<", spaces) else spaces
    stop = marks.first(_LINK_STOP, target)
    end = _title_and_paren_end(text, stop + 1 if text.startswith(">", stop) else stop, marks)
    if end is None and spaces > paren and text.startswith('"', spaces):
        # `\s*` gives back its last space: an empty target, and that space opens the title.
        end = _title_and_paren_end(text, spaces - 1, marks)
    return end


def _title_and_paren_end(text: str, i: int, marks: Marks) -> Optional[int]:
    """Where `(?:\\s+"[^"]*")?\\s*\\)` matched at i ends, or None."""
    spaces = marks.after_spaces(i)
    if spaces > i and text.startswith('"', spaces):
        close = marks.first(_QUOTE, spaces + 1)
        if close < len(text):
            paren = marks.after_spaces(close + 1)
            if text.startswith(")", paren):
                return paren + 1
    return spaces + 1 if text.startswith(")", spaces) else None


def _bold(text: str) -> Iterator[re.Match[str]]:
    """The matches of `_BOLD.finditer(text)`: from an opening, the lazy `.+?` ends at the first
    closer of the same delimiter on the same line, at least one character on."""
    marks = Marks(text)

    def end_of(start: int) -> Optional[int]:
        close = marks.first(_BOLD_CLOSERS[text[start:start + 2]], start + 3)
        return close + 2 if close < len(text) and marks.first(_NEWLINE, start + 2) >= close else None

    return matches(_BOLD, text, (m.start() for m in _BOLD_OPEN.finditer(text)), end_of)


def _without_comments(text: str) -> str:
    """`re.sub(r"<!--.*?-->", "", text, flags=re.S)`; once no "-->" follows an opening, none
    follows any later one either."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find(_COMMENT_OPEN, pos)
        if start < 0:
            break
        end = text.find(_COMMENT_CLOSE, start + len(_COMMENT_OPEN))
        if end < 0:
            break
        out.append(text[pos:start])
        pos = end + len(_COMMENT_CLOSE)
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)
