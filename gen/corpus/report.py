"""The corpus report: totals, failure reasons, features end to end, per API
(`corpus-report.json` and `corpus-report.md`)."""

from __future__ import annotations

import collections
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from gen.corpus.records import NOT_SIMULATED, Record
from gen.parse.coverage import EXCLUDED_CODES


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
    key = ": ".join(parts[:2] if parts[0] in ("no API", "phase 1", "phase 1 crashed", "compile error") else parts[:1])
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


def write_reports(records: Sequence[Record], figures: Figures, report_dir: Path, pages: int) -> None:
    report_dir.mkdir(parents=True, exist_ok=True)
    summary = totals(records, figures)
    summary["features"] = feature_table(records)
    entries = [{"api": r.api, "page": r.page, "parsed": r.parsed, "generated": r.generated, "compiled": r.compiled,
                "phase1_ok": r.phase1_ok, "reason": r.reason, "status": r.status, "bound_from": r.bound_from,
                "features": list(r.features), "phase2": r.phase2, "golden_ok": r.golden_ok,
                "golden_reason": r.golden_reason, "example_phase1": r.example_phase1,
                "example_message": r.example_message}
               for r in records]
    (report_dir / "corpus-report.json").write_text(
        json.dumps({"totals": summary, "golden_ok_apis": golden_ok_apis(records), "apis": entries},
                   ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (report_dir / "corpus-report.md").write_text(markdown(records, summary, pages), encoding="utf-8")


def markdown(records: Sequence[Record], summary: dict, pages: int) -> str:
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
