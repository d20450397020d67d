"""The corpus report: totals, failure reasons, features end to end, per API
(`corpus-report.json` and `corpus-report.md`).

    python -m gen.corpus.report build/corpus-report.json    the installed torch_npu's demand table of a report
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from gen.corpus.demand import NOT_INSTALLED, Demand, installed
from gen.corpus.records import COMPILE_ERROR, NOT_SIMULATED, Record
from gen.corpus.coverage import EXCLUDED_CODES


@dataclass
class Figures:
    wall_seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    compile_cpu_seconds: float = 0.0  # CPU time of the compilers and linkers, all rounds
    build_rounds: int = 0
    units: int = 0
    peak_rss_mib: dict[str, float] = field(default_factory=dict)
    command: str = ""


def totals(records: Sequence[Record], figures: Figures) -> dict:
    api_pages = collections.defaultdict(list)
    for r in records:
        api_pages[r.page].append(r)
    stubs = [p for p, rs in api_pages.items() if rs[0].api is None and any(
        rs[0].reason.startswith(f"no API: {code}") for code in EXCLUDED_CODES)]
    counted = [p for p in api_pages if p not in stubs]
    parsed_pages = [p for p in counted if any(r.parsed for r in api_pages[p])]
    apis = distinct(records)  # an API documented by several pages counts once
    parsed = [r for r in apis if r.parsed]
    compiled = [r for r in parsed if r.compiled]
    phase1 = [r for r in compiled if r.phase1_ok]

    def pct(a: int, b: int) -> float:
        return round(100 * a / b, 2) if b else 100.0

    return {
        "pages": len(api_pages), "pages_without_api": len(stubs),
        "pages_parsed": len(parsed_pages), "pages_parsed_pct": pct(len(parsed_pages), len(counted)),
        "apis": len(apis), "apis_parsed": len(parsed),
        "apis_generated": sum(r.generated for r in apis),
        "apis_compiled": len(compiled), "compiled_pct_of_parsed": pct(len(compiled), len(parsed)),
        "apis_phase1_ok": len(phase1), "phase1_ok_pct_of_compiled": pct(len(phase1), len(compiled)),
        "apis_phase1_status0": sum(r.status == 0 for r in phase1),
        "compiled_total": sum(r.compiled for r in apis),
        "phase1_ok_total": sum(r.phase1_ok for r in apis),
        # Phase 2 of the phase-1 call, and its results against the semantics file's golden.
        "apis_phase2_ok": sum(r.phase2 == "ok" for r in apis),
        "apis_not_simulated": sum(r.phase2 == NOT_SIMULATED for r in apis),
        "apis_phase2_failed": sum(r.phase2 not in (None, "ok", NOT_SIMULATED) for r in apis),
        "golden_ok_apis": len(golden_ok_apis(records)),
        "apis_golden_differs": sum(r.golden_ok is False for r in apis),
        "apis_phase2_ok_without_verdict": sum(r.phase2 == "ok" and r.golden_ok is None for r in apis),
        # The page example's own arguments (issue 13: no API refuses them).
        "apis_example_accepted": sum(r.example_phase1 is True for r in apis),
        "apis_example_refused": sum(r.example_phase1 is False for r in apis),
        "apis_example_not_called": sum(r.compiled and r.example_phase1 is None for r in apis),
        "wall_seconds": figures.wall_seconds, "stage_seconds": figures.stage_seconds,
        "compile_cpu_seconds": figures.compile_cpu_seconds,
        "compile_cpu_seconds_per_api": round(figures.compile_cpu_seconds / max(1, sum(r.compiled for r in apis)), 3),
        "build_rounds": figures.build_rounds, "peak_rss_mib": figures.peak_rss_mib, "command": figures.command,
    }


def golden_ok_apis(records: Sequence[Record]) -> list[str]:
    """The APIs whose phase 2 ran and whose results equal the golden, sorted."""
    return sorted(r.api for r in distinct(records) if r.api and r.phase2 == "ok" and r.golden_ok is True)


def reason_key(reason: str) -> str:
    """A failure reason without what is particular to its API (names, lines, the message's tail):
    `phase 1: undocumented status API GetWorkspaceSize returned 161001 (ACLNN_ERR_PARAM_NULLPTR)`."""
    parts = reason.split(": ")
    key = ": ".join(parts[:2] if parts[0] in ("no API", "phase 1", "phase 1 crashed", COMPILE_ERROR) else parts[:1])
    key = re.sub(r"\baclnn\w+", "API", key)
    key = re.sub(r" \(line \d+\)", "", key)
    return key[:160]


def reason_counts(records: Sequence[Record]) -> list[tuple[str, int]]:
    """Failure reasons of distinct APIs (and of pages without one), most frequent first."""
    counter: collections.Counter[str] = collections.Counter()
    for r in distinct(records) + [r for r in records if r.api is None]:
        if r.reason and not r.phase1_ok:
            counter[reason_key(r.reason)] += 1
    return counter.most_common()


def distinct(records: Sequence[Record]) -> list[Record]:
    """One record per API: the bound page's."""
    unique: dict[str, Record] = {}
    for r in records:
        if r.api and (r.api not in unique or r.bound_from is None):
            unique[r.api] = r
    return list(unique.values())


FEATURE_COLUMNS = ("apis", "compiled", "phase1_status0", "phase1_documented_status", "failed")


def feature_table(records: Sequence[Record]) -> dict[str, dict[str, int]]:
    """For each feature (`features`), how its distinct APIs fared."""
    table: dict[str, dict[str, int]] = {}
    for r in distinct(records):
        for feature in r.features:
            row = table.setdefault(feature, dict.fromkeys(FEATURE_COLUMNS, 0))
            row["apis"] += 1
            row["compiled"] += r.compiled
            row["phase1_status0"] += r.phase1_ok and r.status == 0
            row["phase1_documented_status"] += r.phase1_ok and r.status != 0
            row["failed"] += r.generated and not r.phase1_ok
    return dict(sorted(table.items()))


# The demand table's columns: how far the APIs torch_npu references get, each a subset of the one
# before it.
DEMAND_COLUMNS = {
    "referenced": "referenced by torch_npu",
    "with_page": "with a page in the corpus",
    "bound": "bound (generated)",
    "compiled": "compiled",
    "phase1_ok": "phase 1 ok",
    "computes": "compute (phase 2 ok)",
    "equals_golden": "equal to the golden",
}
# Why a referenced API with a page does not compute and equal the golden: the first stage short
# of it, in the pipeline's order.
NOT_PARSED = "page not parsed to a full IR"
NOT_BOUND = "not bound"
COMPILE_FAILURE = "compile failure"
PHASE1_REFUSED = "phase-1 refusal"
PHASE1_ERROR_CASE = "phase 1 returned a documented error status (phase 2 did not run)"
NO_SEMANTICS = "not simulated: no semantics"
NO_KERNEL = "not simulated: semantics without a kernel"
PHASE2_FAILED = "phase 2 failed with a status"
GOLDEN_DIFFERS = "golden differs"
NO_VERDICT = "computes, nothing to compare it with"
SHORTFALLS = (NOT_PARSED, NOT_BOUND, COMPILE_FAILURE, PHASE1_REFUSED, PHASE1_ERROR_CASE, NO_SEMANTICS, NO_KERNEL,
              PHASE2_FAILED, GOLDEN_DIFFERS, NO_VERDICT)


@dataclass(frozen=True)
class DemandTable:
    """How far the aclnn APIs a torch_npu release references get in a corpus run."""

    source: str  # "torch_npu 2.13.0"
    counts: dict[str, int]  # by DEMAND_COLUMNS
    # The referenced APIs with a page that do not compute and equal the golden: (API, what was
    # said) by their shortfall, in SHORTFALLS' order.
    short: dict[str, list[tuple[str, str]]]
    without_page: tuple[str, ...]  # referenced, documented by no page of the corpus
    unpaired: tuple[str, ...]  # aclnn names torch_npu holds that are not two-phase APIs (gen.corpus.demand)


def shortfall(record: Record) -> Optional[tuple[str, str]]:
    """Why the record's API does not compute and equal the golden, and what its stage said; None
    when it does."""
    if not (record.generated or record.failed_to_compile):
        # An unparsed page's API can still be bound (select takes what it can): its page is
        # the reason only where it was not.
        return (NOT_BOUND if record.parsed else NOT_PARSED), record.reason
    if not record.compiled:
        return COMPILE_FAILURE, record.reason
    if not record.phase1_ok:
        return PHASE1_REFUSED, record.reason
    if record.status != 0:
        return PHASE1_ERROR_CASE, record.reason
    if record.phase2 == NOT_SIMULATED:
        return (NO_KERNEL, "") if record.has_semantics else (NO_SEMANTICS, "")
    if record.phase2 != "ok":
        return PHASE2_FAILED, f"status {record.phase2}"
    if record.golden_ok is False:
        return GOLDEN_DIFFERS, record.golden_reason
    if record.golden_ok is None:
        return NO_VERDICT, record.golden_reason
    return None


def demand_table(records: Sequence[Record], demand: Optional[Demand]) -> Optional[DemandTable]:
    """The demand's APIs against the corpus run's records (each API once: its bound page's); None
    without a demand (no torch_npu installed)."""
    if demand is None:
        return None
    by_api = {r.api: r for r in distinct(records)}
    documented = [by_api[api] for api in demand.apis if api in by_api]
    counts = {
        "referenced": len(demand.apis),
        "with_page": len(documented),
        "bound": sum(r.generated or r.failed_to_compile for r in documented),
        "compiled": sum(r.compiled for r in documented),
        "phase1_ok": sum(r.phase1_ok for r in documented),
        "computes": sum(r.phase2 == "ok" for r in documented),
        "equals_golden": sum(r.phase2 == "ok" and r.golden_ok is True for r in documented),
    }
    short: dict[str, list[tuple[str, str]]] = {}
    for record in documented:
        found = shortfall(record)
        if found:
            short.setdefault(found[0], []).append((record.api or "", found[1]))
    return DemandTable(source=demand.source, counts=counts,
                       short={reason: short[reason] for reason in SHORTFALLS if reason in short},
                       without_page=tuple(api for api in demand.apis if api not in by_api),
                       unpaired=demand.unpaired)


def demand_lines(table: Optional[DemandTable], report: Optional[Path] = None) -> list[str]:
    """The demand table as `make corpus` prints it, last; one line when there is no torch_npu."""
    if table is None:
        return [NOT_INSTALLED]
    width = max(len(label) for label in DEMAND_COLUMNS.values())
    lines = [f"demand: the aclnn APIs {table.source} references"]
    lines += [f"  {label:<{width}}  {table.counts[key]:>5}" for key, label in DEMAND_COLUMNS.items()]
    if table.short:
        where = f" (list in {report})" if report else ""
        lines.append("  with a page, short of the golden: " + ", ".join(
            f"{len(apis)} {reason}" for reason, apis in table.short.items()) + where)
    return lines


def demand_json(table: Optional[DemandTable]) -> dict:
    return dataclasses.asdict(table) if table else {"note": NOT_INSTALLED}


def demand_markdown(table: Optional[DemandTable]) -> list[str]:
    lines = ["## Demand: the aclnn APIs torch_npu references", ""]
    if table is None:
        return lines + [NOT_INSTALLED, ""]
    lines += [f"What {table.source}'s binaries name as two-phase aclnn APIs (gen.corpus.demand), against this run; "
              "each column a subset of the one before.", "",
              "| " + " | ".join(DEMAND_COLUMNS.values()) + " |", "|" + "---|" * len(DEMAND_COLUMNS),
              "| " + " | ".join(str(table.counts[key]) for key in DEMAND_COLUMNS) + " |", ""]
    for reason, apis in table.short.items():
        lines += [f"### With a page, short of the golden: {reason} ({len(apis)})", "", "| API | said |", "|---|---|"]
        lines += [f"| {api} | {said.replace('|', '/') or '—'} |" for api, said in apis]
        lines.append("")
    if table.without_page:
        lines += [f"### Referenced, without a page in the corpus ({len(table.without_page)})", "",
                  ", ".join(table.without_page), ""]
    if table.unpaired:
        lines += [f"Other aclnn names torch_npu holds, not two-phase APIs: {', '.join(table.unpaired)}.", ""]
    return lines


def write_reports(records: Sequence[Record], figures: Figures, report_dir: Path, pages: int,
                  demand: Optional[Demand] = None) -> None:
    """`demand`: the installed torch_npu's (None: there is none, and the reports say so)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    summary = totals(records, figures)
    summary["features"] = feature_table(records)
    table = demand_table(records, demand)
    (report_dir / "corpus-report.json").write_text(
        json.dumps({"totals": summary, "demand": demand_json(table), "golden_ok_apis": golden_ok_apis(records),
                    "apis": [dataclasses.asdict(r) for r in records]}, ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8")
    (report_dir / "corpus-report.md").write_text(markdown(records, summary, pages, table), encoding="utf-8")


def records_from_report(path: Path) -> list[Record]:
    """The records a corpus-report.json holds (fields a report from before a field existed lacks
    take their defaults)."""
    known = {f.name for f in dataclasses.fields(Record)}
    entries = json.loads(path.read_text(encoding="utf-8"))["apis"]
    return [Record(**{**{k: v for k, v in e.items() if k in known}, "features": tuple(e.get("features", ()))})
            for e in entries]


def markdown(records: Sequence[Record], summary: dict, pages: int, demand: Optional[DemandTable] = None) -> str:
    def mark(flag: bool) -> str:
        return "yes" if flag else "**no**"

    s = summary
    lines = [
        "# Corpus report", "",
        f"`{s['command']}`: {pages} files read, {s['pages']} aclnn pages "
        f"({s['pages_without_api']} document no API: stubs, reference pages, single-phase utilities).", "",
        "| figure | value |", "|---|---|",
        f"| pages parsed to a full IR (of pages with an API) | {s['pages_parsed']} ({s['pages_parsed_pct']}%) |",
        f"| distinct APIs / parsed to a full IR | {s['apis']} / {s['apis_parsed']} |",
        f"| generated | {s['apis_generated']} |",
        f"| compiled (of parsed) | {s['apis_compiled']} ({s['compiled_pct_of_parsed']}%) |",
        f"| phase 1 ok on the simulator (of compiled) | {s['apis_phase1_ok']} ({s['phase1_ok_pct_of_compiled']}%): "
        f"{s['apis_phase1_status0']} return 0, the others a status of their page's error table |",
        f"| phase 2 of that call (of phase 1 ok) | {s['apis_phase2_ok']} ok, {s['apis_not_simulated']} not simulated, "
        f"{s['apis_phase2_failed']} failed with a status |",
        f"| **results equal to the golden** (PyTorch, CANN's tolerances) | **{s['golden_ok_apis']}**; "
        f"{s['apis_golden_differs']} differ, {s['apis_phase2_ok_without_verdict']} computed with nothing to compare |",
        f"| the page example's arguments (of compiled) | {s['apis_example_accepted']} accepted by phase 1, "
        f"**{s['apis_example_refused']} refused**, {s['apis_example_not_called']} not callable |",
        f"| wall time | {s['wall_seconds']} s ({', '.join(f'{k} {v} s' for k, v in s['stage_seconds'].items())}) |",
        f"| compile CPU time | {s['compile_cpu_seconds']} s, {s['compile_cpu_seconds_per_api']} s per compiled API, "
        f"{s['build_rounds']} build round(s) |",
        f"| peak memory (MiB) | {', '.join(f'{k} {v}' for k, v in s['peak_rss_mib'].items())} |",
        "",
    ]
    lines += demand_markdown(demand)
    reasons = reason_counts(records)
    if reasons:
        lines += ["## Why not, by reason", "", "| count | reason |", "|---|---|"]
        lines += [f"| {n} | {reason.replace('|', '/')} |" for reason, n in reasons]
        lines.append("")
    lines += ["## Parameter kinds and page shapes, end to end", "",
              "Distinct generated APIs that use each; phase 1 ok: status 0 / a documented status.", "",
              "| feature | APIs | compiled | phase 1 status 0 | phase 1 documented status | failed |",
              "|---|---|---|---|---|---|"]
    for feature, row in feature_table(records).items():
        lines.append(f"| {feature} | " + " | ".join(str(row[c]) for c in FEATURE_COLUMNS) + " |")
    lines.append("")
    differing = sorted((r for r in distinct(records) if r.golden_ok is False), key=lambda r: r.api or "")
    if differing:
        lines += ["## Results that differ from the golden", "", "| API | what differs |", "|---|---|"]
        lines += [f"| {r.api} | {r.golden_reason.replace('|', '/')} |" for r in differing]
        lines.append("")
    refused = sorted((r for r in distinct(records) if r.example_phase1 is False), key=lambda r: r.api or "")
    if refused:
        lines += ["## Page examples phase 1 refuses", "", "| API | page | phase 1 said |", "|---|---|---|"]
        lines += [f"| {r.api} | {r.page} | {r.example_message.replace('|', '/')} |" for r in refused]
        lines.append("")
    lines += ["## Per API", "", "| API | page | parsed | generated | compiled | simulated (phase 1) | phase 2 | "
              "equals the golden | why not |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(records, key=lambda r: (r.api or "~", r.page)):
        why = r.reason + (f" (bound from {r.bound_from})" if r.bound_from else "")
        if r.phase2 == "ok" and r.golden_ok is not True:
            why = f"{why}; golden: {r.golden_reason}" if why else f"golden: {r.golden_reason}"
        golden = {True: "yes", False: "**no**", None: "—"}[r.golden_ok]
        lines.append(f"| {r.api or '—'} | {r.page} | {mark(r.parsed)} | {mark(r.generated)} | {mark(r.compiled)} | "
                     f"{mark(r.phase1_ok)} | {'—' if r.phase2 is None else r.phase2} | {golden} | "
                     f"{why.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen.corpus.report",
                                     description="The demand table of a `make corpus` report: the aclnn APIs the installed "
                                                 "torch_npu references, how far each gets in that run.")
    parser.add_argument("report", type=Path, help="a corpus-report.json of `make corpus`")
    args = parser.parse_args(argv)
    demand = installed()
    if demand is None:
        print(NOT_INSTALLED)
        return 0
    print("\n".join(demand_lines(demand_table(records_from_report(args.report), demand))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
