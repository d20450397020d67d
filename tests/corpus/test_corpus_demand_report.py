"""gen.corpus.report's demand table: the APIs torch_npu references against a corpus run's records,
on fabricated records and a fabricated demand (no compiler, no torch_npu)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gen.corpus import report
from gen.corpus.demand import NOT_INSTALLED, Demand
from gen.corpus.records import NOT_SIMULATED, Record


def computed(api: str, **kw) -> Record:
    """A record of an API that went all the way: parsed, generated, compiled, phase 1 returned 0,
    phase 2 computed and equals the golden; `kw` replaces where it stopped."""
    record = Record(api, f"x/{api}.md", parsed=True, generated=True, compiled=True, phase1_ok=True, status=0,
                    phase2="ok", golden_ok=True, has_semantics=True)
    return dataclasses.replace(record, **kw)


def demand_of(*apis: str, unpaired: tuple[str, ...] = ()) -> Demand:
    return Demand(version="9.9", package_dir="/nowhere", binaries=("lib/libtorch_npu.so",), apis=tuple(sorted(apis)),
                  unpaired=unpaired)


# One record for each shortfall, in the pipeline's order, and what the table should say of it.
SHORT = {
    "aclnnUnparsed": (Record("aclnnUnparsed", "x/u.md", reason="param-no-dtypes (line 9): aclnnUnparsed.x"),
                      report.NOT_PARSED),
    "aclnnUnbound": (computed("aclnnUnbound", generated=False, compiled=False, phase1_ok=False, status=None,
                              phase2=None, golden_ok=None, reason="no dtype for the out tensor"), report.NOT_BOUND),
    "aclnnUncompiled": (computed("aclnnUncompiled", generated=False, compiled=False, phase1_ok=False, status=None,
                                 phase2=None, golden_ok=None, reason="compile error: no matching function"),
                        report.COMPILE_FAILURE),
    "aclnnRefused": (computed("aclnnRefused", phase1_ok=False, status=161002, phase2=None, golden_ok=None,
                              reason="phase 1: undocumented status 161002"), report.PHASE1_REFUSED),
    "aclnnErrorCase": (computed("aclnnErrorCase", status=161002, phase2=None, golden_ok=None,
                                reason="phase 1: documented status 161002"), report.PHASE1_ERROR_CASE),
    "aclnnNoTable": (computed("aclnnNoTable", phase2=NOT_SIMULATED, golden_ok=None, has_semantics=False),
                     report.NO_SEMANTICS),
    "aclnnNoKernel": (computed("aclnnNoKernel", phase2=NOT_SIMULATED, golden_ok=None), report.NO_KERNEL),
    "aclnnFaulted": (computed("aclnnFaulted", phase2=507015, golden_ok=None), report.PHASE2_FAILED),
    "aclnnWrong": (computed("aclnnWrong", golden_ok=False, golden_reason="Not equal to tolerance"),
                   report.GOLDEN_DIFFERS),
    "aclnnUnjudged": (computed("aclnnUnjudged", golden_ok=None, golden_reason="no golden"), report.NO_VERDICT),
}


@pytest.mark.parametrize("api", SHORT)
def test_each_stage_short_of_the_golden_is_its_own_reason(api):
    record, reason = SHORT[api]
    assert report.shortfall(record)[0] == reason


def test_an_api_that_equals_the_golden_falls_short_of_nothing_even_from_a_page_not_fully_parsed():
    assert report.shortfall(computed("aclnnAdd")) is None
    assert report.shortfall(computed("aclnnAdd", parsed=False, reason="param-no-dtypes (line 3)")) is None


def test_the_table_counts_each_stage_of_the_referenced_apis_with_a_page():
    records = [computed("aclnnAdd"), computed("aclnnNotReferenced")] + [record for record, _ in SHORT.values()]
    table = report.demand_table(records, demand_of("aclnnAdd", "aclnnWithoutPage", *SHORT))
    assert table.counts == {"referenced": 12, "with_page": 11, "bound": 9, "compiled": 8, "phase1_ok": 7,
                            "computes": 3, "equals_golden": 1}
    assert table.without_page == ("aclnnWithoutPage",)
    assert [reason for reason in table.short] == [reason for _, reason in SHORT.values()]
    assert table.short[report.COMPILE_FAILURE] == [("aclnnUncompiled", "compile error: no matching function")]


def test_an_api_documented_by_two_pages_counts_once_by_its_bound_page():
    records = [computed("aclnnAdd"),
               computed("aclnnAdd", page="y/aclnnAdd_en.md", bound_from="x/aclnnAdd.md", golden_ok=False)]
    table = report.demand_table(records, demand_of("aclnnAdd"))
    assert (table.counts["with_page"], table.counts["equals_golden"], table.short) == (1, 1, {})


def test_the_reports_carry_the_table_and_make_corpus_prints_it(tmp_path):
    records = [computed("aclnnAdd"), SHORT["aclnnNoTable"][0]]
    demand = demand_of("aclnnAdd", "aclnnNoTable", "aclnnWithoutPage", unpaired=("aclnnSetPytorchRandom",))
    report.write_reports(records, report.Figures(), tmp_path, pages=2, demand=demand)
    data = json.loads((tmp_path / "corpus-report.json").read_text())
    assert data["demand"]["source"] == "torch_npu 9.9" and data["demand"]["counts"]["equals_golden"] == 1
    assert data["demand"]["short"] == {report.NO_SEMANTICS: [["aclnnNoTable", ""]]}
    text = (tmp_path / "corpus-report.md").read_text()
    assert "| 3 | 2 | 2 | 2 | 2 | 1 | 1 |" in text
    assert f"### With a page, short of the golden: {report.NO_SEMANTICS} (1)" in text
    assert "aclnnWithoutPage" in text and "aclnnSetPytorchRandom" in text
    printed = report.demand_lines(report.demand_table(records, demand), tmp_path / "corpus-report.md")
    assert printed[0] == "demand: the aclnn APIs torch_npu 9.9 references"
    assert printed[-1].endswith(f"1 {report.NO_SEMANTICS} (list in {tmp_path / 'corpus-report.md'})")


def test_without_torch_npu_the_table_is_one_line_saying_so(tmp_path):
    report.write_reports([computed("aclnnAdd")], report.Figures(), tmp_path, pages=1, demand=None)
    assert json.loads((tmp_path / "corpus-report.json").read_text())["demand"] == {"note": NOT_INSTALLED}
    assert NOT_INSTALLED in (tmp_path / "corpus-report.md").read_text()
    assert report.demand_lines(report.demand_table([computed("aclnnAdd")], None)) == [NOT_INSTALLED]


def test_records_read_back_from_a_report_give_the_same_table(tmp_path):
    records = [computed("aclnnAdd")] + [record for record, _ in SHORT.values()]
    demand = demand_of("aclnnAdd", *SHORT)
    report.write_reports(records, report.Figures(), tmp_path, pages=len(records), demand=demand)
    again = report.records_from_report(tmp_path / "corpus-report.json")
    assert again == records
    assert report.demand_table(again, demand) == report.demand_table(records, demand)
