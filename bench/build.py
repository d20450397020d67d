"""Build: CPU seconds per API binding (the extension aclnn._C), cold and incremental.

Cold: one seed page (op_docs/leaky_relu_backward.md, one API) and a set of N APIs (op_docs/, or
with --set corpus a sample of the corpus) are each generated into a directory of their own and
built from an empty CMake build directory (configure, then `ninja aclnn_python`:
the bindings and the runtime they link; the simulator is not part of it). The per-API cost is
the difference of the two builds' CPU seconds over the difference of their API counts; the
fixed cost (runtime sources, precompiled header, link) is what remains of the one-API build.
With few APIs that difference is within the noise of two builds, so the APIs' share is also
measured directly: every generated bindings unit touched and recompiled, over the API count.
Incremental: one page edited, the set regenerated into the same directory, and
rebuilt. CPU seconds are the children's rusage (compilers, linker, ninja, cmake).

    python -m bench.build [--set op_docs|corpus] [--step N]   (corpus: every N-th page)

The default set is op_docs/ (what `make build` builds). Not every corpus API's bindings compile
(`make corpus` counts them), so with --set corpus the build goes on past failing units (ninja -k 0)
and the result counts them.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import CORPUS, ROOT, Summary, emit_result, log, sample_pages
from bench.generation import EDIT_FROM, EDIT_TO, edit_target
from gen import pipeline

VENV_BIN = Path(sys.executable).parent
JOBS = "2"
SEED_FILES = ("leaky_relu_backward.md",)  # its semantics come from the library (semantics/), by API
OP_DOCS_EDIT = "leaky_relu_backward.md"


def flat_docs(pages: list[Path], root: Path, into: Path) -> dict[Path, Path]:
    """Links every page (below `root`) into `into` under a unique name made of its path (the corpus
    has many README.md); returns link -> original."""
    links = {}
    for page in pages:
        link = into / str(page.relative_to(root)).replace("/", "__")
        link.symlink_to(page)
        links[link] = page
    return links


def children_cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_measured(command: list[str], log_file, check: bool = True) -> tuple[float, float, str]:
    """Runs a command; returns (CPU seconds of it and its children, wall seconds, its output)."""
    cpu_before, _ = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    log_file.write(done.stdout)
    if done.returncode != 0 and check:
        raise RuntimeError(f"{' '.join(command[:3])}... failed; see {log_file.name}:\n{done.stdout[-3000:]}")
    return children_cpu()[0] - cpu_before, wall, done.stdout


def tool(name: str) -> str:
    return shutil.which(name, path=str(VENV_BIN)) or shutil.which(name) or name


def configure(generated: Path, build: Path, log_file) -> tuple[float, float]:
    cpu, wall, _ = run_measured([
        tool("cmake"), "-G", "Ninja", "-S", str(ROOT), "-B", str(build), f"-DPython_EXECUTABLE={sys.executable}",
        f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}", f"-DACLNN_GENERATED_DIR={generated}",
        "-DCMAKE_BUILD_TYPE=Release", "-DACLNN_BUILD_EXAMPLES=OFF"], log_file)
    return cpu, wall


def build_bindings(build: Path, log_file) -> tuple[float, float, int, int]:
    """ninja -k 0 aclnn_python; returns CPU seconds, wall seconds, the number of units compiled
    and the number that failed (corpus pages whose bindings do not compile yet: their CPU time
    still counts, and the report says how many)."""
    cpu, wall, output = run_measured([tool("ninja"), "-C", str(build), "-j", JOBS, "-k", "0", "aclnn_python"],
                                     log_file, check=False)
    return cpu, wall, len(re.findall(r"Building CXX object", output)), len(re.findall(r"^FAILED:", output, re.M))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", choices=["op_docs", "corpus"], default="op_docs",
                        help="the N APIs: op_docs/ (default), or every --step-th corpus page")
    parser.add_argument("--step", type=int, default=24)
    args = parser.parse_args()
    if args.set == "corpus" and not CORPUS.is_dir():
        parser.error(f"--set corpus: no corpus at {CORPUS} (set ACLNN_CORPUS)")

    work_root = ROOT / "build" / "bench"
    work_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=work_root))
    log_path = work_root / "build.log"
    result: dict = {}
    try:
        with open(log_path, "w") as log_file:
            # The reference of the fixed cost: one seed page (one API), built the same way.
            seed_docs = work / "seed-docs"
            seed_docs.mkdir()
            for name in SEED_FILES:
                shutil.copy(ROOT / "op_docs" / name, seed_docs / name)
            seed_report = pipeline.run([seed_docs], work / "seed-generated")
            assert seed_report.model is not None  # generate() always builds one
            seed_apis = len(seed_report.model.apis)
            configure_cpu, configure_wall = configure(work / "seed-generated", work / "seed-build", log_file)
            seed_cpu, seed_wall, seed_units, seed_failed = build_bindings(work / "seed-build", log_file)
            if seed_failed:
                raise RuntimeError(f"the one-API build failed; see {log_path}")
            log(f"build: seed set, {seed_apis} APIs: {seed_cpu:.1f} CPU s")
            shutil.rmtree(work / "seed-build")

            # The set of N APIs: op_docs/ (what `make build` builds), or a sample of the corpus.
            docs = work / "docs"
            target: Path | None
            if args.set == "op_docs":
                shutil.copytree(ROOT / "op_docs", docs)
                target = docs / OP_DOCS_EDIT
                originals = {target: target}
            else:
                docs.mkdir()
                all_pages = list(pipeline.discover([CORPUS]).pages)
                originals = flat_docs(sample_pages(all_pages, args.step), CORPUS, docs)
                target = edit_target(originals)
            generated = work / "set-generated"
            set_report = pipeline.run([docs], generated)
            assert set_report.model is not None
            set_apis = len(set_report.model.apis)
            configure(generated, work / "set-build", log_file)
            set_cpu, set_wall, set_units, set_failed = build_bindings(work / "set-build", log_file)
            log(f"build: {args.set}, {set_apis} APIs: {set_cpu:.1f} CPU s, {set_failed} unit(s) failed")

            # The APIs' own share, measured directly: every generated bindings unit (they hold
            # only the APIs' wrappers) recompiled, and the extension relinked.
            units_cpu = None
            if not set_failed:
                for unit in (generated / "bindings").glob("ops_*.cpp"):
                    os.utime(unit)
                units_cpu, _, units_count, _ = build_bindings(work / "set-build", log_file)
                log(f"build: the {units_count} bindings units of {set_apis} APIs, recompiled: {units_cpu:.1f} CPU s")

            # Incremental: edit one page, regenerate, rebuild (twice: edited, then restored).
            incremental: list[dict[str, Any]] = []
            if target is not None and not set_failed:
                original = originals[target].read_text(encoding="utf-8")
                target.unlink()
                for text in (original.replace(EDIT_FROM, EDIT_TO, 1), original):
                    target.write_text(text, encoding="utf-8")
                    start = time.perf_counter()
                    report = pipeline.run([docs], generated)
                    generate_wall = time.perf_counter() - start
                    cpu, wall, units, _ = build_bindings(work / "set-build", log_file)
                    incremental.append({"generate_s": generate_wall, "build_cpu_s": cpu, "build_wall_s": wall,
                                        "units_compiled": units, "files_written": report.changed})
            _, compiler_peak = children_cpu()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    per_api = (set_cpu - seed_cpu) / max(set_apis - seed_apis, 1)
    result = {
        "jobs": int(JOBS),
        "seed": {"apis": seed_apis, "cpu_s": seed_cpu, "wall_s": seed_wall, "units": seed_units,
                 "configure_cpu_s": configure_cpu, "configure_wall_s": configure_wall},
        "set": {"name": args.set, "pages": len(set_report.pages), "step": args.step if args.set == "corpus" else None,
                "apis": set_apis, "cpu_s": set_cpu, "wall_s": set_wall, "units": set_units, "units_failed": set_failed},
        "cpu_s_per_api": per_api,
        "fixed_cpu_s": seed_cpu - seed_apis * per_api,
        # Direct: the bindings units' CPU seconds (+ one link) over the APIs they hold.
        "units_cpu_s": units_cpu,
        "cpu_s_per_api_from_units": units_cpu / max(set_apis, 1) if units_cpu is not None else None,
        "cold_cpu_s_per_api_including_fixed": set_cpu / max(set_apis, 1),
        "incremental": {
            "edited_page": target.name if target else None,
            "runs": incremental,
            "build_cpu_s": Summary.of([r["build_cpu_s"] for r in incremental], "s").to_json() if incremental else None,
            "redone": "the whole set is regenerated; Ninja recompiles the units whose generated source changed "
                      "(the edited page's bindings unit) and relinks aclnn._C",
        },
        "compiler_peak_rss_mb": round(compiler_peak, 1),
        "runs": 1,
    }
    emit_result(result)


if __name__ == "__main__":
    main()
