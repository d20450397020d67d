"""gen.parse.kept_patterns: a pattern built from the code kept by an earlier process is the pattern
re compiles (its flags, groups and matches), and a kept file that cannot be read is compiled anew."""

import re
import subprocess
import sys

import pytest

from gen.parse import kept_patterns
from gen.parse.extractors import comparisons

PATTERNS = [(r"(?P<a>\d+)\s*(?:或|or)\s*(?P<b>[A-Za-z_]\w*)", re.I), (r"^\s*\[\s*\"?(\w+)\"?\s*\]", 0),
            (comparisons._SOME_COMPARISON.pattern, re.I), (r"(?(1)x|y)(z)?", 0)]
TEXTS = ["12 OR dim", "  [ \"aclnnAbs\" ]", "数值必须大于等于0", "yz", "x", "ſelf 3 or x"]


@pytest.fixture
def kept(tmp_path):
    kept_patterns.keep_compiled_patterns(tmp_path)
    yield tmp_path
    kept_patterns.keep_compiled_patterns(None)


def observed(compiled: re.Pattern[str]) -> list:
    return [compiled.pattern, compiled.flags, compiled.groups, dict(compiled.groupindex),
            [[(m.span(), m.groups()) for m in compiled.finditer(text)] for text in TEXTS]]


SKIP_WITHOUT_SRE = pytest.mark.skipif(kept_patterns._sre is None, reason="this interpreter's re keeps its compile private")


@SKIP_WITHOUT_SRE
def test_a_pattern_from_kept_code_is_the_pattern_re_compiles(kept):
    for pattern, flags in PATTERNS:
        assert observed(kept_patterns.compile_pattern(pattern, flags)) == observed(re.compile(pattern, flags))
    kept_patterns.save_compiled_patterns()
    # A new process reads the kept code (no compile of its own: it adds nothing to save).
    script = ("import re, sys; from pathlib import Path; from gen.parse import kept_patterns as k; "
              f"k.keep_compiled_patterns(Path({str(kept)!r})); "
              f"print([k.compile_pattern(p, f).pattern == p for p, f in {PATTERNS!r}], k._added, len(k._kept))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"{[True] * len(PATTERNS)} False {len(PATTERNS)}"
    kept_patterns.keep_compiled_patterns(None)
    kept_patterns.keep_compiled_patterns(kept)  # read again in this process, from the file
    for pattern, flags in PATTERNS:
        assert observed(kept_patterns.compile_pattern(pattern, flags)) == observed(re.compile(pattern, flags))
    assert not kept_patterns._added


@SKIP_WITHOUT_SRE
def test_an_unreadable_kept_file_is_compiled_anew(kept):
    assert kept_patterns._file is not None and kept_patterns._file.parent == kept
    kept_patterns._file.write_bytes(b"not a pickle")
    kept_patterns.keep_compiled_patterns(None)
    kept_patterns.keep_compiled_patterns(kept)
    assert observed(kept_patterns.compile_pattern(*PATTERNS[0])) == observed(re.compile(*PATTERNS[0]))
    with pytest.raises(re.error):
        kept_patterns.compile_pattern("(", 0)
