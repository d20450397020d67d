"""One pipeline of named stages, run alike by `make generate`, `make corpus`, the CLI and the benchmarks.

    discover   directories and files -> the pages and the semantics files, in a stable order
    parse      each page -> its IR (gen.parse), in `jobs` processes
    merge      each op README folded into the API page it links to (gen.parse.merge)
    semantics  the semantics files (*.toml) loaded (gen.parse.semantics)
    select     the APIs to bind, one page per API (gen.model.build_model)
    emit       the Model -> generated files, by every emitter of EMITTERS (gen.emit)

`run` chains them; a tool that needs fewer (`gen inspect` stops after merge, `make corpus` emits
again after leaving out what failed to compile) calls the stage functions themselves. A page that
cannot be parsed never stops a run: its diagnostics are reported with file:line and the page is
left out; the other pages are generated.
"""

from __future__ import annotations

import importlib
import multiprocessing
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from gen.emit.files import FileManager
from gen.ir import Diagnostic, Level, OpSemantics, Page
from gen.model import Model, build_model
from gen.parse import parse_file
from gen.parse.merge import merge_readmes
from gen.parse.semantics import load_semantics
from gen.progress import Progress, no_progress

STAGES = ("discover", "parse", "merge", "semantics", "select", "emit")

# One module per output kind, each with `emit(model, files)`; listed in the order they run.
EMITTERS: tuple[str, ...] = (
    "gen.emit.ir_json",
    "gen.emit.enums",
    "gen.emit.headers",
    "gen.emit.examples",
    "gen.emit.cmake",
    "gen.emit.sim",
    "gen.emit.bindings",
    "gen.emit.package",
    "gen.emit.stubs",
    "gen.emit.tests",
)

# The directories of `generated/` the emitters own: files there that a run did not write are
# stale (their page is gone) and are removed.
OWNED_DIRS: tuple[str, ...] = (
    "ir", "include", "aclnnop", "examples", "sources.cmake", "sim", "bindings", "aclnn", "tests", "pyproject.toml")

PAGE_SUFFIXES = (".md", ".txt", ".html", ".htm")
SEMANTICS_SUFFIX = ".toml"


# ---- discover ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    pages: tuple[Path, ...]
    semantics: tuple[Path, ...]


def discover(paths: Iterable[str | Path], limit: Optional[int] = None) -> Inputs:
    """Every page and semantics file below the directories given, in path order, and the files
    given as they are (a file named on the command line is read whatever its suffix). `limit`:
    only the first N pages (for development)."""
    pages: list[Path] = []
    semantics: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file())
            pages += [p for p in found if p.suffix.lower() in PAGE_SUFFIXES]
            semantics += [p for p in found if p.suffix == SEMANTICS_SUFFIX]
        elif path.suffix == SEMANTICS_SUFFIX:
            semantics.append(path)
        else:
            pages.append(path)
    return Inputs(tuple(pages[:limit] if limit else pages), tuple(semantics))


# ---- parse ------------------------------------------------------------------------------------------

def parse(paths: Sequence[Path], *, jobs: int = 1, progress: Progress = no_progress) -> list[Page]:
    """The IR of every page, in the order given; in `jobs` worker processes when there is more than
    one (forked: they start at once and need nothing sent but the paths)."""
    if jobs <= 1 or len(paths) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [parse_file(p) for p in progress(paths, "parse")]
    with multiprocessing.get_context("fork").Pool(min(jobs, len(paths))) as pool:
        return list(progress(pool.imap(parse_file, paths, chunksize=4), "parse", total=len(paths)))


# ---- merge ------------------------------------------------------------------------------------------

merge = merge_readmes


# ---- semantics --------------------------------------------------------------------------------------

@dataclass
class Semantics:
    ops: list[OpSemantics] = field(default_factory=list)
    diagnostics: list[tuple[str, Diagnostic]] = field(default_factory=list)


def semantics(paths: Sequence[Path]) -> Semantics:
    """The semantics files, with what they say about their pages (errata) as warnings."""
    result = Semantics()
    for path in paths:
        loaded = load_semantics(path)
        result.ops.extend(loaded.ops)
        result.diagnostics.extend((loaded.source, d) for d in loaded.diagnostics)
        for op in loaded.ops:
            result.diagnostics.extend(
                (loaded.source, Diagnostic(Level.WARNING, op.line, "page-erratum", f"{op.api}: {text}"))
                for text in op.errata)
    return result


# ---- select -----------------------------------------------------------------------------------------

select = build_model


# ---- emit -------------------------------------------------------------------------------------------

def emit(model: Model, out_dir: Path, *, emitters: Sequence[str] = EMITTERS,
         owned_dirs: Iterable[str] = OWNED_DIRS, dry_run: bool = False) -> FileManager:
    """Every emitter's files, written where their content changed; owned files no emitter wrote
    are removed."""
    files = FileManager(out_dir, dry_run=dry_run)
    for module in emitters:
        importlib.import_module(module).emit(model, files)
    files.remove_stale(owned_dirs)
    return files


# ---- the whole run ----------------------------------------------------------------------------------

@dataclass
class Report:
    inputs: Inputs = Inputs((), ())
    pages: list[Page] = field(default_factory=list)  # after merge
    model: Optional[Model] = None
    diagnostics: list[tuple[str, Diagnostic]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # by stage

    @property
    def errors(self) -> int:
        return sum(1 for _, d in self.diagnostics if d.level is Level.ERROR)


class _Clock:
    def __init__(self, report: Report) -> None:
        self.report, self.last = report, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.report.seconds[stage] = now - self.last
        self.last = now


def run(paths: Iterable[str | Path], out_dir: Path, *, emitters: Sequence[str] = EMITTERS,
        owned_dirs: Iterable[str] = OWNED_DIRS, jobs: int = 1, limit: Optional[int] = None,
        dry_run: bool = False, progress: Progress = no_progress) -> Report:
    """Every stage, in order, from the pages of `paths` to the files of `out_dir`."""
    report = Report()
    clock = _Clock(report)
    report.inputs = discover(paths, limit)
    clock.lap("discover")

    parsed = parse(report.inputs.pages, jobs=jobs, progress=progress)
    clock.lap("parse")

    report.pages = merge(parsed)
    # The merged pages' diagnostics (their notes of what came from a README), and those of the
    # READMEs folded into them.
    kept = {page.source for page in report.pages}
    for page in report.pages + [p for p in parsed if p.source not in kept]:
        report.diagnostics.extend((page.source, d) for d in page.diagnostics)
    clock.lap("merge")

    loaded = semantics(report.inputs.semantics)
    report.diagnostics.extend(loaded.diagnostics)
    clock.lap("semantics")

    model = report.model = select(report.pages, loaded.ops)
    report.diagnostics.extend(model.notes)
    report.diagnostics.extend(
        (s.source, Diagnostic(Level.WARNING, 1, "api-skipped", f"{s.what}: not generated: {s.reason}"))
        for s in model.skipped)
    clock.lap("select")

    files = emit(model, Path(out_dir), emitters=emitters, owned_dirs=owned_dirs, dry_run=dry_run)
    report.changed, report.removed = files.changed, files.removed
    clock.lap("emit")
    return report
