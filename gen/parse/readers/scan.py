"""Lookups that keep the parser's scanners linear in the text.

A regular expression whose closing part is missing rescans the rest of the text from every
opening ("[x]([x]([x](..." reaches the same far-off ")" from each "["); a scanner that asks
`Marks` where the next ")" is instead gets it by bisection in positions indexed once.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Callable, Iterable, Iterator, Optional

from gen.parse.kept_patterns import compile_pattern
from gen.parse.patterns import lazy_pattern

_SPACE_RUN = lazy_pattern(r"\s+")
# Any markup between angle brackets ("<term>", "</a>", "<br/>"): what readers of a cell's or a
# line's words remove before reading them.
MARKUP = lazy_pattern(r"<[^<>]+>")


@functools.lru_cache(maxsize=None)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """re.compile, once per pattern for the whole run (and kept between runs: gen.parse.kept_patterns):
    the patterns made of an API's names (its parameters, its functions) number in the hundreds per
    docs tree and overflowed re's own cache, which then compiled them again on every use."""
    return compile_pattern(pattern, int(flags))


def word_starts(text: str, word: str) -> Iterator[int]:
    """Where `word` occurs in `text` at the start of a word (as r"\b" + word sees it: not after a
    letter, digit or underscore): a string search, for texts a whole page long."""
    start = text.find(word)
    while start >= 0:
        if not (start and is_word_character(text[start - 1])):
            yield start
        start = text.find(word, start + 1)


def is_word_character(character: str) -> bool:
    """What \\w matches in a str pattern (str.isalnum, and "_")."""
    return character.isalnum() or character == "_"


class Marks:
    """Where the characters of some classes are in one text; each class is indexed on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._positions: dict[re.Pattern[str], list[int]] = {}
        self._spaces: tuple[list[int], list[int]] | None = None

    def first(self, pattern: re.Pattern[str], i: int) -> int:
        """The start of the first match of `pattern` at or after i (the text's length if none).
        Matches are those of `pattern.finditer` over the whole text: a class of characters, or a
        zero-width pattern, finds every position."""
        positions = self._positions.get(pattern)
        if positions is None:
            positions = self._positions[pattern] = [m.start() for m in pattern.finditer(self.text)]
        k = bisect.bisect_left(positions, i)
        return positions[k] if k < len(positions) else len(self.text)

    def after_spaces(self, i: int) -> int:
        """The end of the whitespace (`\\s`) that starts at i; i itself when there is none."""
        if self._spaces is None:
            runs = [m.span() for m in _SPACE_RUN.finditer(self.text)]
            self._spaces = [s for s, _ in runs], [e for _, e in runs]
        starts, ends = self._spaces
        k = bisect.bisect_right(starts, i) - 1
        return ends[k] if k >= 0 and ends[k] > i else i


def matches(pattern: re.Pattern[str], text: str, openings: Iterable[int],
            end_of: Callable[[int], Optional[int]]) -> Iterator[re.Match[str]]:
    """The matches of `pattern.finditer(text)`, given every position where one can start (in
    order) and a scanner `end_of(start)` that says where the match from there ends, or None;
    `pattern` itself runs only over the matches, for their groups."""
    pos = 0
    for start in openings:
        if start < pos:
            continue
        end = end_of(start)
        if end is None:
            continue
        match = pattern.match(text, start, end)
        # The scanner and the expression must agree (tests/parse/test_parse_scanners.py checks them).
        assert match is not None and match.end() == end, (pattern.pattern, text[start:end])
        yield match
        pos = end


def substitute(text: str, found: Iterable[re.Match[str]], replace: Callable[[re.Match[str]], str]) -> str:
    """`pattern.sub(replace, text)`, given the pattern's matches."""
    out: list[str] = []
    pos = 0
    for match in found:
        out.append(text[pos:match.start()])
        out.append(replace(match))
        pos = match.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)
