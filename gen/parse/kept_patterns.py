"""The parser's patterns compiled once for every run that keeps a cache (`python -m gen generate`),
not once per process.

Compiling a pattern is parsing it and translating it into the code of re's matcher, both in
Python, and a page uses some 250 patterns: after one page changed, compiling them was half of the
62-70 CPU ms of parsing it in a new process (32-34 ms with the kept code). The code depends on the
pattern, its flags and the interpreter's re alone, so it is kept in the cache directory, in a file
named after the interpreter and re's matcher (_sre.MAGIC), and a later run builds each pattern from
it as re itself does at the end of a compile (`re._compiler.compile`: `_sre.compile` of the code).

re keeps that step private: it is used only where it is what this code knows (the interpreters
with `re._compiler`, 3.11 on), and anything it refuses makes the pattern compiled as usual. Only
the process that keeps the cache writes the file (`save_compiled_patterns`, after it parsed):
worker processes use what was kept when they started.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

try:
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # an interpreter whose re is laid out otherwise: patterns compile as usual
    _sre = None

# (pattern, flags) -> what `_sre.compile` takes after the pattern: (flags, code, groups, groupindex,
# indexgroup).
_Kept = tuple[int, list[int], int, dict[str, int], tuple[Optional[str], ...]]
_kept: dict[tuple[str, int], _Kept] = {}
_file: Optional[Path] = None
_loaded = False
_added = False


def keep_compiled_patterns(directory: Optional[Path]) -> None:
    """Keeps the compiled patterns in `directory` (None: nowhere); read at the first compile,
    written by `save_compiled_patterns`."""
    global _file, _loaded, _added
    file = directory / f"{sys.implementation.cache_tag}-sre{_sre.MAGIC}.pickle" \
        if directory is not None and _sre is not None else None
    if file != _file:
        _file, _loaded, _added = file, False, False
        _kept.clear()


def compile_pattern(pattern: str, flags: int) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the kept code when there is some."""
    if _file is None:
        return re.compile(pattern, flags)
    if not _loaded:
        _load()
    kept = _kept.get((pattern, flags))
    if kept is not None:
        try:
            return _sre.compile(pattern, *kept)
        except Exception:  # noqa: BLE001 - what _sre refuses is compiled as usual
            del _kept[(pattern, flags)]
    return _compile_and_keep(pattern, flags)


def save_compiled_patterns() -> None:
    """Writes the kept patterns, when this process compiled any that were not."""
    global _added
    if _file is None or not _added:
        return
    _file.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=_file.parent, prefix=_file.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump(_kept, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, _file)
    except Exception:  # noqa: BLE001 - a cache not written is compiled again next time, nothing worse
        Path(temporary).unlink(missing_ok=True)
        return
    _added = False


def _load() -> None:
    global _loaded
    _loaded = True
    assert _file is not None
    try:
        with _file.open("rb") as source:
            found: Any = pickle.load(source)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        return  # none kept yet, or unreadable: compiled as usual, and kept anew
    if isinstance(found, dict):
        _kept.update(found)


def _compile_and_keep(pattern: str, flags: int) -> re.Pattern[str]:
    """re._compiler.compile, keeping what it gives _sre.compile."""
    global _added
    try:
        parsed = _parser.parse(pattern, flags)
        code = [int(word) for word in _compiler._code(parsed, flags)]  # opcodes are named ints, which pickle refuses
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[Optional[str]] = [None] * parsed.state.groups
        for group, index in groupindex.items():
            indexgroup[index] = group
        kept: _Kept = (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
        compiled: re.Pattern[str] = _sre.compile(pattern, *kept)
    except Exception:  # noqa: BLE001 - re's own compile says what is wrong with the pattern
        return re.compile(pattern, flags)
    _kept[(pattern, flags)] = kept
    _added = True
    return compiled
