"""The parser's regular expressions, each compiled when it is first used rather than when its
module is imported.

The parser declares some 300 patterns at module level, and compiling them all was two thirds of
loading it (0.05 CPU s), which a regeneration after one page changed pays in full: a page uses
about 180 of them, and the rest (English phrasings, formats and rules the page does not have)
cost 0.015 CPU s for nothing.

`lazy_pattern` returns an object that stands for the compiled pattern (typed as one): the first
call of one of its methods compiles it, and binds the compiled pattern's methods on it, so that
later calls go straight to them. `.pattern` is there without compiling, for patterns built from
others' text.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Optional, Sequence, cast

from gen.parse.kept_patterns import compile_pattern

# The methods bound on the stand-in at its first use: every later call of one of them costs what a
# compiled pattern's costs. Other attributes (flags, groups, groupindex) are looked up on the
# compiled pattern at each access.
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _LazyPattern:
    __slots__ = ("pattern", "_flags", "_compiled", *_METHODS)

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        # Reached only for an attribute not set yet: a method before the first use, or an
        # attribute that is always looked up on the compiled pattern.
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = compile_pattern(self.pattern, self._flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self._flags!r})"


def lazy_pattern(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))


def bounded(names: Sequence[str]) -> str:
    """A pattern of any of `names` (longest first) not inside a longer ASCII identifier."""
    if not names:
        return r"(?!x)x"
    return r"(?<![A-Za-z0-9_.])(?:" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_])"


# Where a pattern of `NamedPattern` names one parameter (`NAME`: a whole identifier, as `bounded`
# has it), a list of them joined by a separator (`name_list`), or one parameter wherever its name
# starts, even inside a longer identifier, in its case (`NAME_ANYWHERE`): markers that no pattern's
# own text holds.
NAME = "\x00name\x00"
NAME_ANYWHERE = "\x00anywhere\x00"
_SLOT = lazy_pattern("(?P<name>\x00name\x00)|\x00list(?P<separator>.*?)\x00|(?P<anywhere>\x00anywhere\x00)", re.S)
# Any name `bounded` could match, as the slot of the pattern that takes any: a whole ASCII
# identifier, where a name begins; and any `NAME_ANYWHERE` could, longest first.
_ANY_NAME = r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_])"
_ANY_NAME_ANYWHERE = r"[A-Za-z_][A-Za-z0-9_]*"
_GROUP_BY_NUMBER = lazy_pattern(r"(?<!\\)(?:\\\\)*\\[1-9]|\(\?\(\d")
_RUN = lazy_pattern(r"[A-Za-z0-9_]+")
_ASCII_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")
# The characters besides ASCII letters that an ASCII letter matches case-insensitively (İ ı ſ K):
# a text holding one is read with the pattern of its names, which knows what re makes of them.
_FOLDS_TO_ASCII = lazy_pattern("[\u0130\u0131\u017f\u212a]")


@functools.lru_cache(maxsize=1024)
def _slot_names(names: frozenset[str], ignore_case: bool) -> Optional[frozenset[str]]:
    """`names` as a slot's identifier is looked up in (lower case where the pattern ignores case), or
    None where a name is no ASCII identifier. Once per set of names: a page of 10,000 parameters has
    as many sentences to read with them (tests/fuzz/test_fuzz_parser.py)."""
    if not all(_ASCII_NAME.fullmatch(n) for n in names):
        return None
    return frozenset(n.lower() for n in names) if ignore_case else names


def may_hold(text: str, words: Sequence[str]) -> bool:
    """Whether a case-insensitive pattern could find one of `words` in `text` (False: it cannot), so
    that a pattern is run only where its words are."""
    lower = text.lower()
    return any(word in lower for word in words) or bool(_FOLDS_TO_ASCII.search(text))


def name_list(separator: str) -> str:
    """Names joined by `separator` ("x、gamma和beta"), where a `NamedPattern` names several."""
    return f"\x00list{separator}\x00"


class NamedPattern:
    """A pattern that names the parameters of one page (`NAME`, `name_list`, `NAME_ANYWHERE`),
    compiled once for any names, not once per set of them.

    The same pattern with the names spelt out (`bounded`) was compiled for each API, or each
    sentence, that named a different set: most of the 4,646 compiles of a regeneration of op_docs,
    which took half of its CPU time. This one is compiled with slots that take any identifier, each
    in a group of its own. A match whose slots hold names only is the match the names' pattern
    finds: that pattern is this one with its slots narrowed, so the engine tries the same paths in
    the same order (a NAME slot takes the whole identifier where it starts or nothing; a
    NAME_ANYWHERE slot the identifier's prefixes, longest first, as the names' alternatives are
    ordered). A match with another identifier in a slot says nothing of what the names' pattern
    finds there (a later path may match), so that text is read with the names' pattern, compiled on
    first need for its names: rarely (an English "or" between names)."""

    def __init__(self, template: str, flags: int | re.RegexFlag = 0) -> None:
        # The slots' groups number the template's own groups otherwise than the names' pattern does:
        # a reference by number would mean another group in each.
        if _GROUP_BY_NUMBER.search(template):
            raise ValueError(f"a NamedPattern refers to its groups by name only: {template!r}")
        self.template = template
        self.flags = int(flags)
        self._slots: list[tuple[str, bool]] = []  # (group, whether it compares names ignoring case)

        def any_name(slot: re.Match[str]) -> str:
            group = f"_slot{len(self._slots)}"
            self._slots.append((group, bool(self.flags & re.I) and not slot.group("anywhere")))
            return self._spelt(slot, f"(?P<{group}>{_ANY_NAME_ANYWHERE})", _ANY_NAME, group)

        self._any = lazy_pattern(_SLOT.sub(any_name, template), self.flags)
        self._ignores_case = any(ignore_case for _, ignore_case in self._slots)
        self._named: dict[frozenset[str], re.Pattern[str]] = {}

    @staticmethod
    def _spelt(slot: re.Match[str], anywhere: str, name: str, group: str = "") -> str:
        """A slot's pattern: `anywhere` for NAME_ANYWHERE, else `name` (or a list of them), in the
        group `group` when one is given."""
        if slot.group("anywhere"):
            return f"(?-i:{anywhere})"
        separator = slot.group("separator")
        spelt = name if separator is None else f"{name}(?:{separator}{name})*"
        return f"(?P<{group}>{spelt})" if group else spelt

    def of(self, names: frozenset[str]) -> re.Pattern[str]:
        """The pattern with `names` spelt out, compiled once per set of names."""
        key = frozenset(names)
        found = self._named.get(key)
        if found is None:
            longest_first = sorted(key, key=lambda n: (-len(n), n))
            anywhere = "(?:" + "|".join(map(re.escape, longest_first)) + ")" if key else r"(?!x)x"
            alternatives = bounded(longest_first)
            found = self._named[key] = compile_pattern(
                _SLOT.sub(lambda slot: self._spelt(slot, anywhere, alternatives), self.template), self.flags)
        return found

    def finditer(self, names: frozenset[str], text: str) -> list[re.Match[str]]:
        """`re.finditer` of the names' pattern over `text`, as a list."""
        if not self._comparable(names, text):
            return list(self.of(names).finditer(text))
        found = []
        for match in cast("re.Pattern[str]", self._any).finditer(text):
            # Both patterns resume where a match ends: alike while their matches are.
            if not self._names_only(match, names):
                return list(self.of(names).finditer(text))
            found.append(match)
        return found

    def search(self, names: frozenset[str], text: str) -> Optional[re.Match[str]]:
        return self._first(names, text, lambda pattern: pattern.search(text))

    def match(self, names: frozenset[str], text: str, pos: int = 0) -> Optional[re.Match[str]]:
        return self._first(names, text, lambda pattern: pattern.match(text, pos))

    def _first(self, names: frozenset[str], text: str,
               find: Callable[[re.Pattern[str]], Optional[re.Match[str]]]) -> Optional[re.Match[str]]:
        if not self._comparable(names, text):
            return find(self.of(names))
        found = find(cast("re.Pattern[str]", self._any))
        if found is None or self._names_only(found, names):
            return found  # no match: the names' pattern matches less
        return find(self.of(names))

    def _comparable(self, names: frozenset[str], text: str) -> bool:
        """Whether a slot's identifier can be looked up in the names (False: only the names'
        pattern can say what matches)."""
        if _slot_names(names, False) is None:
            return False
        return not (self._ignores_case and _FOLDS_TO_ASCII.search(text))

    def _names_only(self, match: re.Match[str], names: frozenset[str]) -> bool:
        for group, ignore_case in self._slots:
            held = match.group(group)
            if held is None:
                continue
            compared = _slot_names(names, ignore_case)
            assert compared is not None, "_comparable vouched for the names"
            # A list's group holds its separators too: an identifier among them ("or") that is no
            # name sends the text to the names' pattern, which is never wrong, only slower.
            if any((run.lower() if ignore_case else run) not in compared for run in _RUN.findall(held)):
                return False
        return True


_ANY_NAME_PATTERN = lazy_pattern(_ANY_NAME)


def name_matches(names: frozenset[str], text: str) -> list[re.Match[str]]:
    """The matches of `bounded(names)` in `text`: its whole identifiers that are names (an identifier
    matches there only whole, so the names' matches are the identifiers' that are names)."""
    if _slot_names(names, False) is None:
        return list(re.finditer(bounded(sorted(names, key=len, reverse=True)), text))
    return [m for m in _ANY_NAME_PATTERN.finditer(text) if m.group(0) in names]
