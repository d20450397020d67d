"""The record of each API of a corpus run: what each stage made of it, and why the first stage that
failed failed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

from gen.ir import Level, Page, PageKind
from gen.model import BoundAPI, Model
from gen.parse.param_entries import PARAM_NO_DTYPES, PARAM_UNDOCUMENTED
from gen.corpus.coverage import is_api_page_file, page_result

PHASE1 = "GetWorkspaceSize"
# Phase 2's outcome when the simulator has no kernel for the API (561003, ACLNN_ERR_INNER_FIND_KERNEL_ERROR).
NOT_SIMULATED = "not simulated"
# How a record's reason begins when the API did not compile: the compiler's error blamed on it
# (gen.corpus.build leaves it out of the next round, so it is not `generated`), or a build that
# failed without an API to blame.
COMPILE_ERROR = "compile error"
BUILD_FAILED = "the build failed"


@dataclass
class Record:
    api: Optional[str]  # None for a page that documents no API (stub pages, reference pages)
    page: str
    parsed: bool = False  # a full IR: every parameter matched to a row with dtypes where data flows
    generated: bool = False
    compiled: bool = False
    phase1_ok: bool = False
    reason: str = ""  # why the first stage that failed failed
    status: Optional[int] = None  # what phase 1 returned
    bound_from: Optional[str] = None  # the page whose IR was bound, when another page documents it too
    features: tuple[str, ...] = ()  # the parameter kinds and page shapes the API exercises (`features`)
    # Phase 2 of the same call: "ok", "not simulated" (561003: no kernel in the simulator), the
    # status it returned, or None where it did not run (phase 1 refused the call, or crashed).
    phase2: Union[str, int, None] = None
    # Whether phase 2's results equal the semantics file's golden on the same inputs; None where
    # there was nothing to compare (no golden, phase 2 not ok, a golden PyTorch cannot evaluate).
    golden_ok: Optional[bool] = None
    golden_reason: str = ""  # why golden_ok is not True
    # Whether phase 1 accepted the page example's own arguments (None: the example could not be
    # called: unread, or an argument the bindings refuse), and what was said.
    example_phase1: Optional[bool] = None
    example_message: str = ""
    # Whether the semantics library has a table for the API (what it computes, its golden).
    has_semantics: bool = False

    @property
    def failed_to_compile(self) -> bool:
        """Generated, then refused by the compiler (or in a build that failed as a whole)."""
        return self.reason.startswith((COMPILE_ERROR, BUILD_FAILED))

    def fail(self, reason: str) -> None:
        if not self.reason:
            self.reason = reason


def first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def page_records(pages: Sequence[Page]) -> list[Record]:
    """One record per API of every aclnn page (a page without APIs: one record saying why)."""
    records: list[Record] = []
    for page in pages:
        # Other Markdown of a corpus (guides, reference tables) documents no API and is not counted
        # unless it is named as an API page is (as `gen stats` counts).
        if page.kind is not PageKind.API_PAGE or not (page.apis or is_api_page_file(Path(page.source))):
            continue
        result = page_result(page)
        if not page.apis:
            why = next((d for d in page.diagnostics if d.level is not Level.INFO), None)
            reason = f"{result.reasons[0]}: {why.message}" if why else result.reasons[0]
            records.append(Record(None, page.source, reason=f"no API: {reason}"))
            continue
        failing: dict[str, str] = {}
        for d in page.diagnostics:
            if d.code in (PARAM_UNDOCUMENTED, PARAM_NO_DTYPES):
                failing.setdefault(d.message.split(".", 1)[0], f"{d.code} (line {d.line}): {d.message}")
        for api in page.apis:
            record = Record(api.name, page.source)
            if api.name in failing:
                record.reason = failing[api.name]
            elif not api.params:
                record.reason = "no parameters were recovered from the page"
            else:
                record.parsed = True
            records.append(record)
    return records


def features(bound: BoundAPI) -> tuple[str, ...]:
    """What an API exercises end to end, by the names of the issue's list: each parameter kind
    (integers and floats by C type), optional pointers, in-place parameters, several outputs, and
    pages that document more than one API."""
    from gen.api.kinds import value_type
    from gen.ir import Direction, ParamKind

    found: set[str] = set()
    api = bound.api
    for p in api.params:
        if p.kind is None:
            continue
        if p.kind in (ParamKind.INT, ParamKind.FLOAT):
            found.add(f"{p.kind.value} {value_type(p)}")
        else:
            found.add("char* string" if p.kind is ParamKind.STRING else p.kind.value)
        if p.optional and p.kind.is_pointer and p.direction is not Direction.OUT:
            found.add("optional input (None)")
        if p.direction is Direction.INOUT:
            found.add("inout (in place)")
    if sum(1 for p in api.params if p.direction is not Direction.IN) > 1:
        found.add("several outputs (tuple)")
    if len(bound.page.apis) > 1:
        found.add("page with several APIs")
    return tuple(sorted(found))


def settle(records: Sequence[Record], model: Model, left_out: Mapping[str, str], built: bool,
           unattributed: Sequence[str], outcomes: Mapping[str, dict]) -> None:
    """Each API's record from the run's outcome: `left_out` gives why an API was not generated or
    compiled (the select stage's reason, or the compiler's first error about it), `outcomes` what
    phase 1 returned. Phase 1 passes when it returns 0 or a status of the page's error table."""
    bound = {b.name: b for b in model.apis}
    errors_of = {b.name: {e.code for e in b.api.errors} for b in model.apis}
    for record in records:
        if record.api is None:
            continue
        api = record.api
        chosen = bound.get(api)
        if api in left_out:
            record.fail(left_out[api])
            continue
        if chosen is None:
            record.fail("not generated")
            continue
        record.generated = True
        record.features = features(chosen)
        record.has_semantics = chosen.semantics is not None
        if chosen.page.source != record.page:
            record.bound_from = chosen.page.source
        if not built:
            record.fail(f"{BUILD_FAILED}: " + "; ".join(unattributed[:3]))
            continue
        record.compiled = True
        outcome = outcomes.get(api, {"status": None, "message": "not run"})
        record.status = outcome.get("status")
        record.phase2 = outcome.get("phase2")
        record.golden_ok = outcome.get("golden_ok")
        record.golden_reason = outcome.get("golden_reason", "the call did not finish")
        record.example_phase1 = outcome.get("example_phase1")
        record.example_message = outcome.get("example_message", "the call did not finish")
        status = record.status
        if status == 0 or (status is not None and status in errors_of[api]):
            record.phase1_ok = True
            if status:
                record.reason = f"phase 1: documented status {status}"
        elif status is not None:
            record.fail(f"phase 1: undocumented status {outcome['message']}")
        else:
            record.fail(("phase 1 crashed: " if outcome.get("crashed") else "phase 1: ") + outcome["message"])
