"""Parse coverage of a set of pages (`python -m gen stats DIR`).

An API is *fully matched* when every parameter of its prototype is matched to a table row (or
bullet) of the page, and that row states dtypes for the parameters that carry data (tensors,
scalars, lists and arrays); bool/int/float/string/dtype attributes need a row but no dtypes.
A page is *covered* when it gives at least one fully matched API. Only aclnn pages (files named
`aclnn*`) count; READMEs are parsed (for crashes) but not counted.

The figures come from the pages' diagnostics (`param-undocumented`, `param-no-dtypes`, and the
page-level errors), so what `stats` counts is exactly what `lint` reports.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from gen.ir import Page
from gen.parse.param_entries import PARAM_NO_DTYPES, PARAM_UNDOCUMENTED

# Page-level reasons a page gives no API, by diagnostic code.
_PAGE_REASONS = ("stub-page", "not-an-api-page", "single-phase-api", "no-prototype", "parser-failure")
# Pages left out of the second figure, and why: they document no two-phase operator API.
EXCLUDED_CODES = {
    "stub-page": "stub pages (no prototype, no parameters)",
    "not-an-api-page": "reference pages named aclnn* (the return-code tables)",
    "single-phase-api": "single-phase utilities without a GetWorkspaceSize function",
}


@dataclass
class PageResult:
    source: str
    apis: int
    matched: int  # fully matched APIs
    reasons: list[str]  # why APIs (or the page) are not matched
    excluded: Optional[str] = None  # the EXCLUDED_CODES code, when the page is excluded
    crashed: bool = False
    seconds: float = 0.0

    @property
    def covered(self) -> bool:
        return self.matched > 0


@dataclass
class CoverageReport:
    results: list[PageResult] = field(default_factory=list)
    other_pages: int = 0  # READMEs and other pages: parsed, not counted
    crashes: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return len(self.results)

    @property
    def covered(self) -> int:
        return sum(r.covered for r in self.results)

    @property
    def apis(self) -> int:
        return sum(r.apis for r in self.results)

    @property
    def matched_apis(self) -> int:
        return sum(r.matched for r in self.results)

    @property
    def excluded(self) -> list[PageResult]:
        return [r for r in self.results if r.excluded]

    def ratio(self, exclude: bool = False) -> float:
        results = [r for r in self.results if not (exclude and r.excluded)]
        return sum(r.covered for r in results) / len(results) if results else 1.0

    def reasons(self) -> list[tuple[str, int]]:
        """Reasons pages are not covered, most frequent first (one reason per page: its first)."""
        counter: collections.Counter[str] = collections.Counter()
        for r in self.results:
            if not r.covered:
                counter[r.reasons[0] if r.reasons else "unknown"] += 1
        return counter.most_common()

    def api_reasons(self) -> list[tuple[str, int]]:
        counter: collections.Counter[str] = collections.Counter()
        for r in self.results:
            counter.update(r.reasons)
        return counter.most_common()

    def format(self, seconds: float) -> str:
        total = self.pages + self.other_pages
        lines = [
            f"pages: {self.pages} aclnn pages (+{self.other_pages} other pages parsed, not counted)",
            f"APIs: {self.apis}, fully matched: {self.matched_apis}"
            f" ({100 * self.matched_apis / self.apis:.1f}%)" if self.apis else "APIs: 0",
            f"pages covered (>= 1 fully matched API): {self.covered}/{self.pages} = {100 * self.ratio():.2f}%",
        ]
        excluded = self.excluded
        if excluded:
            kept = self.pages - len(excluded)
            covered = sum(r.covered for r in self.results if not r.excluded)
            why = "; ".join(sorted({EXCLUDED_CODES[r.excluded] for r in excluded if r.excluded}))
            lines.append(f"pages covered without the {len(excluded)} excluded ({why}): "
                         f"{covered}/{kept} = {100 * self.ratio(exclude=True):.2f}%")
        lines.append(f"crashes: {len(self.crashes)}")
        lines.extend(f"  crash: {c}" for c in self.crashes[:20])
        reasons = self.reasons()
        if reasons:
            lines.append("pages not covered, by first reason:")
            lines.extend(f"  {count:5d}  {reason}" for reason, count in reasons)
        api_reasons = self.api_reasons()
        if api_reasons:
            lines.append("parameter/API failures, by reason:")
            lines.extend(f"  {count:5d}  {reason}" for reason, count in api_reasons[:15])
        per_page = 1000 * seconds / total if total else 0.0
        lines.append(f"time: {seconds:.2f} s for {total} files ({per_page:.1f} ms per file)")
        slowest = sorted(self.results, key=lambda r: r.seconds, reverse=True)[:3]
        if slowest:
            lines.append("slowest: " + ", ".join(f"{Path(r.source).name} {1000 * r.seconds:.0f} ms" for r in slowest))
        return "\n".join(lines)


def is_api_page_file(path: Path) -> bool:
    return path.name.startswith("aclnn")


def page_result(page: Page, seconds: float = 0.0) -> PageResult:
    """Coverage of one parsed page, from its APIs and diagnostics."""
    failing: dict[str, list[str]] = collections.defaultdict(list)
    for d in page.diagnostics:
        if d.code in (PARAM_UNDOCUMENTED, PARAM_NO_DTYPES):
            failing[d.message.split(".", 1)[0]].append(d.code)
    reasons: list[str] = []
    matched = 0
    for api in page.apis:
        if api.name in failing:
            reasons.extend(failing[api.name][:1])
        elif not api.params:
            reasons.append("no-params")
        else:
            matched += 1
    page_codes = [d.code for d in page.diagnostics if d.code in _PAGE_REASONS]
    if not page.apis:
        reasons = page_codes[:1] or ["no-api"]
    excluded = next((c for c in page_codes if c in EXCLUDED_CODES), None) if not page.apis else None
    return PageResult(page.source, len(page.apis), matched, reasons, excluded, seconds=seconds)


def coverage_report(paths: Iterable[Path | str], progress=lambda it: it) -> CoverageReport:
    from gen.parse import parse_file

    report = CoverageReport()
    for raw in progress(list(paths)):
        path = Path(raw)
        start = time.perf_counter()
        try:
            page = parse_file(path)
        except Exception as exc:  # noqa: BLE001 - a crash is what this report exists to count
            report.crashes.append(f"{path}: {type(exc).__name__}: {exc}")
            if is_api_page_file(path):
                report.results.append(PageResult(str(path), 0, 0, ["crash"], crashed=True))
            continue
        elapsed = time.perf_counter() - start
        if any(d.code == "parser-failure" for d in page.diagnostics):
            failure = next(d for d in page.diagnostics if d.code == "parser-failure")
            report.crashes.append(f"{path}:{failure.line}: {failure.message}")
        if is_api_page_file(path):
            report.results.append(page_result(page, elapsed))
        else:
            report.other_pages += 1
    return report

