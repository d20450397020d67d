"""The corpus run: the pipeline, the build rounds, phase 1, the records and the reports."""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path
from typing import Callable, Optional

from gen import pipeline
from gen.corpus.build import MAX_BUILD_ROUNDS, build, configure, without
from gen.corpus.calls import call_plan
from gen.corpus.demand import Demand
from gen.corpus.records import Record, page_records, settle
from gen.corpus.report import Figures, write_reports
from gen.corpus.workers import run_phase1
from gen.progress import Progress, tqdm_progress

# The pipeline's stages, as the report times them.
TIMED_AS = {"discover": "parse", "parse": "parse", "merge": "parse",
            "semantics": "generate", "select": "generate", "emit": "generate"}


def _rusage_children() -> resource.struct_rusage:
    return resource.getrusage(resource.RUSAGE_CHILDREN)


def generate(doc_dir: Path, build_root: Path, jobs: int, limit: Optional[int] = None,
             progress: Optional[Progress] = None) -> pipeline.Report:
    """The pipeline of make generate, into `build_root`/generated, with its cache: a run after
    another parses and renders only what changed (build rounds re-emit without it: they leave
    APIs out)."""
    return pipeline.run([doc_dir], build_root / "generated", jobs=jobs, limit=limit, progress=progress or tqdm_progress,
                        cache_dir=build_root / "cache")


def run(doc_dir: Path, build_root: Path, jobs: int, report_dir: Path, limit: Optional[int] = None,
        progress: Optional[Progress] = None, log: Callable[[str], None] = print,
        demand: Optional[Demand] = None) -> tuple[list[Record], Figures]:
    """`demand`: the APIs a framework references, for the reports' demand table (None: no torch_npu)."""
    progress = progress or tqdm_progress
    figures = Figures(command=" ".join([Path(sys.executable).name, "-m", "gen.corpus"] + sys.argv[1:]))
    start = time.perf_counter()
    generated, cmake_dir = build_root / "generated", build_root / "cmake"
    build_root.mkdir(parents=True, exist_ok=True)
    build_log = build_root / "build.log"
    build_log.write_text("")

    def stage(name: str, began: float) -> None:
        figures.stage_seconds[name] = round(time.perf_counter() - began, 1)

    generation = generate(doc_dir, build_root, jobs, limit, progress)
    for name, seconds in generation.seconds.items():
        figures.stage_seconds[TIMED_AS[name]] = figures.stage_seconds.get(TIMED_AS[name], 0.0) + seconds
    figures.stage_seconds = {k: round(v, 1) for k, v in figures.stage_seconds.items()}
    records = page_records(generation.pages)
    model = generation.model
    assert model is not None
    # Why each API that is not generated, or not compiled, was left out.
    left_out = {s.what: s.reason for s in model.skipped}

    t0 = time.perf_counter()
    before = _rusage_children()
    configure(cmake_dir, generated)
    unattributed: list[str] = []
    for round_ in range(1, MAX_BUILD_ROUNDS + 1):
        figures.build_rounds = round_
        log(f"build round {round_}: {len(model.apis)} APIs")
        result = build(cmake_dir, generated, jobs, lambda text: build_log.open("a").write(text))
        figures.units += result.units_compiled
        if result.ok:
            break
        if not result.culprits:
            unattributed = result.unattributed
            log("build failed and no API could be blamed:\n  " + "\n  ".join(unattributed[:10]))
            break
        log(f"  left out: {', '.join(sorted(result.culprits))}")
        left_out.update(result.culprits)
        model = without(model, result.culprits)
        pipeline.emit(model, generated)
    built = result.ok
    after = _rusage_children()
    figures.compile_cpu_seconds = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1)
    figures.peak_rss_mib["compiler"] = round(after.ru_maxrss / 1024, 1)
    stage("compile", t0)

    t0 = time.perf_counter()
    compiled = [b.name for b in model.apis] if built else []
    plans = {b.name: call_plan(b) for b in model.apis}
    outcomes = run_phase1(generated, compiled, build_root / "phase1", jobs, progress, plans) if compiled else {}
    stage("phase1", t0)

    settle(records, model, left_out, built, unattributed, outcomes)
    figures.wall_seconds = round(time.perf_counter() - start, 1)
    children = _rusage_children()
    figures.peak_rss_mib["largest child process"] = round(children.ru_maxrss / 1024, 1)
    figures.peak_rss_mib["this process"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    write_reports(records, figures, report_dir, pages=len(generation.inputs.pages), demand=demand)
    return records, figures
