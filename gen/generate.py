"""`make generate`: every page of a directory (and its semantics files) to `generated/`.

A page that cannot be parsed never stops the run: its diagnostics are reported with file:line
and the page is left out; the other pages are generated.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from gen.emit.files import FileManager
from gen.model import Model, build_model
from gen.ir import Diagnostic, Level, OpSemantics, Page
from gen.parse import parse_file
from gen.parse.semantics import load_semantics

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


@dataclass
class Report:
    pages: list[Page] = field(default_factory=list)
    model: Model | None = None
    diagnostics: list[tuple[str, Diagnostic]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for _, d in self.diagnostics if d.level is Level.ERROR)


def find_inputs(doc_dir: Path) -> tuple[list[Path], list[Path]]:
    """The pages and the semantics files of a directory, in a stable order."""
    files = sorted(p for p in Path(doc_dir).rglob("*") if p.is_file())
    pages = [p for p in files if p.suffix.lower() in PAGE_SUFFIXES]
    semantics = [p for p in files if p.suffix == ".toml"]
    return pages, semantics


def generate(doc_dir: Path, out_dir: Path, *, emitters: Sequence[str] = EMITTERS,
             owned_dirs: Iterable[str] = OWNED_DIRS, dry_run: bool = False,
             progress: Callable[[Iterable], Iterable] = lambda it: it) -> Report:
    report = Report()
    page_paths, semantics_paths = find_inputs(doc_dir)
    for path in progress(page_paths):
        page = parse_file(path)
        report.pages.append(page)
        report.diagnostics.extend((page.source, d) for d in page.diagnostics)

    semantics: list[OpSemantics] = []
    for path in semantics_paths:
        loaded = load_semantics(path)
        semantics.extend(loaded.ops)
        report.diagnostics.extend((loaded.source, d) for d in loaded.diagnostics)
        for op in loaded.ops:
            report.diagnostics.extend(
                (loaded.source, Diagnostic(Level.WARNING, op.line, "page-erratum", f"{op.api}: {text}"))
                for text in op.errata)

    model = build_model(report.pages, semantics)
    report.model = model
    report.diagnostics.extend(model.notes)
    report.diagnostics.extend(
        (s.source, Diagnostic(Level.WARNING, 1, "api-skipped", f"{s.what}: not generated: {s.reason}"))
        for s in model.skipped)

    files = FileManager(out_dir, dry_run=dry_run)
    for module in emitters:
        importlib.import_module(module).emit(model, files)
    files.remove_stale(owned_dirs)
    report.changed, report.removed = files.changed, files.removed
    return report
