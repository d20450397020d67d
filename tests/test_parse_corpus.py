"""The real corpus (gen.locations.shared_corpus: ACLNN_CORPUS, else ../shared/corpus): no page crashes the parser, and at least 97% of the aclnn
pages give at least one fully matched API (see gen.parse.coverage for the definition).

Skipped when the corpus is absent (a fresh clone elsewhere). Parsing all 2,019 files takes about
20 s on one core.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.locations import shared_corpus
from gen.parse.coverage import coverage_report

CORPUS = shared_corpus()
FLOOR = 0.97

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


@pytest.fixture(scope="module")
def report():
    return coverage_report(sorted(CORPUS.rglob("*.md")))


def test_no_page_crashes_the_parser(report):
    assert report.crashes == []


def test_coverage_floor(report):
    # Pages that document no two-phase API (stubs, the return-code reference pages named aclnn*,
    # single-phase utilities) are left out, each with its stated reason (see the next test);
    # `python -m gen stats` prints both figures.
    assert report.ratio(exclude=True) >= FLOOR, report.format(0)


def test_coverage_counting_every_aclnn_page_stays_near_the_floor(report):
    assert report.ratio() >= 0.96, report.format(0)


def test_every_excluded_page_has_a_stated_reason(report):
    assert all(r.excluded for r in report.excluded)
    assert len(report.excluded) <= 20, [r.source for r in report.excluded]
