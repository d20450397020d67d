"""gen.corpus: the pipeline's parse and generate stages as the corpus runs them and the reports, on a 4-file corpus (no compiler)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from gen import pipeline
from gen.corpus import calls, report
from gen.corpus import records as corpus_records
from gen import names as names_module
from gen.model import build_model
from gen.ir import PageKind

ROOT = Path(__file__).resolve().parents[2]
STUB = "# aclnnNothing\n\n## 功能说明\n\n暂无\n"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    """Two seed pages (one documents two APIs), an op README linked to one of them, a stub page."""
    root = tmp_path_factory.mktemp("corpus")
    for name in ("add.md", "leaky_relu_backward.md", "leaky_relu_grad.README.md"):
        shutil.copy(ROOT / "op_docs" / name, root / name)
    (root / "aclnnNothing.md").write_text(STUB, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pages(corpus_dir):
    return pipeline.merge(pipeline.parse(pipeline.discover([corpus_dir]).pages))


def test_readme_is_folded_into_the_page_it_links(pages):
    assert not [p for p in pages if p.kind is PageKind.OP_README]
    page = next(p for p in pages if p.source.endswith("leaky_relu_backward.md"))
    assert any(d.code == "merged-from-readme" and "leaky_relu_grad.README.md" in d.message for d in page.diagnostics)


def test_each_api_of_a_two_api_page_gets_a_record(pages):
    records = corpus_records.page_records(pages)
    on_add = sorted(r.api for r in records if r.page.endswith("add.md"))
    assert on_add == ["aclnnAdd", "aclnnInplaceAdd"]
    assert all(r.parsed for r in records if r.api)


def test_stub_page_is_a_record_without_api_saying_why(pages):
    records = corpus_records.page_records(pages)
    stub = [r for r in records if r.page.endswith("aclnnNothing.md")]
    assert len(stub) == 1 and stub[0].api is None and not stub[0].parsed
    assert "stub-page" in stub[0].reason


def test_generate_writes_bindings_and_sim_units(pages, tmp_path):
    model = build_model([p for p in pages if p.kind is PageKind.API_PAGE])
    pipeline.emit(model, tmp_path)
    unit = (tmp_path / "bindings" / "ops_000.cpp").read_text()
    assert "// ---- aclnnInplaceAdd (" in unit and "// ---- aclnnLeakyReluBackward (" in unit
    assert (tmp_path / "tests" / "test_inplace_add.py").exists()
    # Every page's IR, as make generate writes it (issue 14; pages of one name keep their directories).
    assert (tmp_path / "ir" / "add.md.json").exists()


def test_same_python_name_binds_one_and_says_why_not_the_other(pages):
    page = next(p for p in pages if p.kind is PageKind.API_PAGE and p.apis)
    twin = page.apis[0]
    shouting = dataclasses.replace(twin, name=twin.name.upper().replace("ACLNN", "aclnn"))
    other_page = dataclasses.replace(page, source="other/" + page.source, apis=(shouting,))
    model = build_model([page, other_page])
    names = {b.name for b in model.apis}
    assert len(names & {twin.name, shouting.name}) == 1
    (skipped,) = [s for s in model.skipped if s.what in (twin.name, shouting.name)]
    assert skipped.what not in names and f"aclnn.{names_module.python_function(twin.name)}" in skipped.reason


def test_reports_count_each_api_once_and_say_why_not(tmp_path):
    records = [
        corpus_records.Record("aclnnA", "x/aclnnA.md", parsed=True, generated=True, compiled=True, phase1_ok=True, status=0),
        corpus_records.Record("aclnnA", "y/aclnnA_en.md", parsed=True, generated=True, compiled=True, phase1_ok=True,
                      status=0, bound_from="x/aclnnA.md"),
        corpus_records.Record("aclnnB", "x/aclnnB.md", parsed=True, generated=True, compiled=False,
                      reason="compile error: 'x' was not declared in this scope"),
        corpus_records.Record(None, "x/aclnnStub.md", reason="no API: stub-page: the page is a stub"),
    ]
    report.write_reports(records, report.Figures(wall_seconds=1.0), tmp_path, pages=4)
    data = json.loads((tmp_path / "corpus-report.json").read_text())
    assert data["totals"]["apis"] == 2 and data["totals"]["apis_compiled"] == 1
    assert data["totals"]["compiled_pct_of_parsed"] == 50.0
    assert data["totals"]["pages_without_api"] == 1
    assert {"api", "page", "parsed", "generated", "compiled", "phase1_ok", "reason"} <= set(data["apis"][0])
    text = (tmp_path / "corpus-report.md").read_text()
    assert "| aclnnB | x/aclnnB.md | yes | yes | **no** | **no** | — | — | compile error:" in text


def test_reports_say_per_api_what_phase_2_did_and_whether_it_equals_the_golden(tmp_path):
    def ran(api, phase2, golden_ok=None, golden_reason=""):
        return corpus_records.Record(api, f"x/{api}.md", parsed=True, generated=True, compiled=True, phase1_ok=True,
                                     status=0, phase2=phase2, golden_ok=golden_ok, golden_reason=golden_reason)

    records = [
        ran("aclnnRight", "ok", True),
        corpus_records.Record("aclnnRight", "y/aclnnRight_en.md", parsed=True, generated=True, compiled=True,
                              phase1_ok=True, status=0, bound_from="x/aclnnRight.md", phase2="ok", golden_ok=True),
        ran("aclnnWrong", "ok", False, "Not equal to tolerance rtol=0.0001, atol=0.0001; aclnnWrong out (FLOAT)"),
        ran("aclnnNoGolden", "ok", None, "no golden: the API has no semantics file with one"),
        ran("aclnnNoKernel", "not simulated", None, "phase 2 did not compute"),
        ran("aclnnFaulted", 507015, None, "phase 2 did not compute"),
        corpus_records.Record("aclnnRefused", "x/aclnnRefused.md", parsed=True, generated=True, compiled=True,
                              phase1_ok=True, status=161002, golden_reason="phase 2 did not run"),
    ]
    report.write_reports(records, report.Figures(), tmp_path, pages=7)
    data = json.loads((tmp_path / "corpus-report.json").read_text())
    by_api = {(e["api"], e["page"]): e for e in data["apis"]}
    assert [(by_api[(a, f"x/{a}.md")]["phase2"], by_api[(a, f"x/{a}.md")]["golden_ok"]) for a in (
        "aclnnRight", "aclnnWrong", "aclnnNoGolden", "aclnnNoKernel", "aclnnFaulted", "aclnnRefused")] == [
        ("ok", True), ("ok", False), ("ok", None), ("not simulated", None), (507015, None), (None, None)]
    totals = data["totals"]
    assert data["golden_ok_apis"] == ["aclnnRight"] and totals["golden_ok_apis"] == 1  # once, for its two pages
    assert (totals["apis_phase2_ok"], totals["apis_not_simulated"], totals["apis_phase2_failed"]) == (3, 1, 1)
    assert (totals["apis_golden_differs"], totals["apis_phase2_ok_without_verdict"]) == (1, 1)
    text = (tmp_path / "corpus-report.md").read_text()
    assert "| aclnnWrong | Not equal to tolerance" in text  # the section of results that differ
    assert "| aclnnNoKernel | x/aclnnNoKernel.md | yes | yes | yes | yes | not simulated | — |" in text


def test_features_name_the_kinds_an_api_exercises(pages):
    model = build_model([p for p in pages if p.kind is PageKind.API_PAGE])
    inplace = corpus_records.features(model.api("aclnnInplaceAdd"))
    assert {"tensor", "scalar", "inout (in place)", "page with several APIs"} <= set(inplace)
    assert "several outputs (tuple)" not in inplace


@pytest.mark.parametrize("reason,key", [
    ("phase 1: undocumented status aclnnLpLoss GetWorkspaceSize returned 161001 (ACLNN_ERR_PARAM_NULLPTR): "
     "aclnnLpLoss: reduction is a null pointer",
     "phase 1: undocumented status API GetWorkspaceSize returned 161001 (ACLNN_ERR_PARAM_NULLPTR)"),
    ("param-no-dtypes (line 87): aclnnX.gradOutput: its row states no data type", "param-no-dtypes"),
    ("no API: stub-page: the page is a stub", "no API: stub-page"),
])
def test_reasons_are_grouped_without_their_particulars(reason, key):
    assert report.reason_key(reason) == key


def _with_products(bound, *rows):
    from gen.ir import Product, Soc
    products = tuple(Product(name=soc, soc=Soc(soc), supported=ok) for soc, ok in rows)
    return dataclasses.replace(bound, page=dataclasses.replace(bound.page, products=products))


def test_call_plan_picks_a_chip_the_page_supports(pages):
    bound = build_model([p for p in pages if p.kind is PageKind.API_PAGE]).api("aclnnAdd")
    assert calls.call_plan(_with_products(bound, ("Ascend910B", True), ("Ascend950", True)))["soc"] == "Ascend910B"
    assert calls.call_plan(_with_products(bound, ("Ascend910B", False), ("Ascend950", True)))["soc"] == "Ascend950"
    assert calls.call_plan(_with_products(bound, ("Ascend910B", False)))["soc"] == "Ascend910B"


@pytest.mark.parametrize("usage,value", [('支持 "none"、"mean"、"sum"', "none"), ("none、sum 或 mean；默认 mean。", "none"),
                                         ("取值为`BSH`或`BNSD`", "BSH")])
def test_call_plan_takes_a_string_value_from_the_row(pages, usage, value):
    from gen.ir import API, Direction, Param, ParamKind
    bound = build_model([p for p in pages if p.kind is PageKind.API_PAGE]).api("aclnnAdd")
    layout = Param(name="inputLayout", c_type="char*", kind=ParamKind.STRING, direction=Direction.IN, usage=usage)
    api = dataclasses.replace(bound.api, params=bound.api.params[:1] + (layout,) + bound.api.params[1:])
    assert calls.call_plan(dataclasses.replace(bound, api=api))["strings"] == {"inputLayout": value}
