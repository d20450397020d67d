"""gen.semantics.reader._Lines: a table's line found from an index of the headers is the line a
pattern of its name finds (the first after a given line), for names that are identifiers and for
quoted keys that are not."""

import re

import pytest

from gen.semantics.reader import _Lines

LINES = ['# [aclnnA]', '[aclnnA]', 'x = 1', '  [ "aclnnB" ]  # quoted', '[aclnnAB]', '[[aclnnA.checks]]',
         '[["aclnnA".checks ]]', '[aclnnA.sub]', '["a b"]', '[[aclnnB.checks]]', '[[aclnnA.checks]]', '["aclnnC]']


def scanned(pattern: str, after: int) -> int:
    rx = re.compile(pattern)
    return next((n for n, text in enumerate(LINES, start=1) if n > after and rx.search(text)), after or 1)


@pytest.mark.parametrize("api", ["aclnnA", "aclnnB", "aclnnAB", "aclnnC", "aclnnZ", "a b", "aclnnA.sub"])
def test_the_index_finds_what_a_pattern_of_the_name_finds(api):
    lines = _Lines(LINES)
    assert lines.table(api) == scanned(rf"^\s*\[\s*\"?{re.escape(api)}\"?\s*\]", 0)
    for after in range(len(LINES) + 1):
        assert lines.check(api, after) == scanned(rf"^\s*\[\[\s*\"?{re.escape(api)}\"?\.checks\s*\]\]", after)


def test_the_lines_found():
    lines = _Lines(LINES)
    assert (lines.table("aclnnA"), lines.table("aclnnB"), lines.table("a b"), lines.table("aclnnZ")) == (2, 4, 9, 1)
    assert [lines.check("aclnnA", after) for after in (2, 6, 7, 11)] == [6, 7, 11, 11]
