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

import re
from typing import Any, cast

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
            compiled = self._compiled = re.compile(self.pattern, self._flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self._flags!r})"


def lazy_pattern(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))
