"""Build: CPU seconds per API binding (the extension aclnn._C), cold and incremental.

Cold: one seed page (op_docs/leaky_relu_backward.md, one API) and a sample of corpus APIs are
each generated into a directory of their own and built from an empty CMake build directory (configure, then `ninja aclnn_python`:
the bindings and the runtime they link; the simulator is not part of it). The per-API cost is
the difference of the two builds' CPU seconds over the difference of their API counts; the
fixed cost (runtime sources, precompiled header, link) is what remains of the one-API build.
Incremental: one corpus page edited, the sample regenerated into the same directory, and
rebuilt. CPU seconds are the children's rusage (compilers, linker, ninja, cmake).

    python -m bench.build [--step N]   (every N-th corpus page)
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import CORPUS, ROOT, Summary, emit_result, log, sample_pages
from bench.generation import EDIT_FROM, EDIT_TO, edit_target, flat_docs
from gen.generate import find_inputs, generate

VENV_BIN = Path(sys.executable).parent
JOBS = "2"
SEED_FILES = ("leaky_relu_backward.md", "leaky_relu_backward.toml")


def children_cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_measured(command: list[str], log_file) -> tuple[float, float, str]:
    """Runs a command; returns (CPU seconds of it and its children, wall seconds, its output)."""
    cpu_before, _ = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    log_file.write(done.stdout)
    if done.returncode != 0:
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


def build_bindings(build: Path, log_file) -> tuple[float, float, int]:
    """ninja aclnn_python; returns CPU seconds, wall seconds and the number of units compiled."""
    cpu, wall, output = run_measured([tool("ninja"), "-C", str(build), "-j", JOBS, "aclnn_python"], log_file)
    return cpu, wall, len(re.findall(r"Building CXX object", output))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", type=int, default=24)
    args = parser.parse_args()

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
            seed_report = generate(seed_docs, work / "seed-generated")
            seed_apis = len(seed_report.model.apis)
            configure_cpu, configure_wall = configure(work / "seed-generated", work / "seed-build", log_file)
            seed_cpu, seed_wall, seed_units = build_bindings(work / "seed-build", log_file)
            log(f"build: seed set, {seed_apis} APIs: {seed_cpu:.1f} CPU s")
            shutil.rmtree(work / "seed-build")

            # A sample of the corpus.
            all_pages, _ = find_inputs(CORPUS)
            docs = work / "docs"
            docs.mkdir()
            links = flat_docs(sample_pages(all_pages, args.step), docs)
            generated = work / "corpus-generated"
            corpus_report = generate(docs, generated)
            corpus_apis = len(corpus_report.model.apis)
            configure(generated, work / "corpus-build", log_file)
            corpus_cpu, corpus_wall, corpus_units = build_bindings(work / "corpus-build", log_file)
            log(f"build: corpus sample, {corpus_apis} APIs: {corpus_cpu:.1f} CPU s")

            # Incremental: edit one page, regenerate, rebuild (twice: edited, then restored).
            target = edit_target(links)
            incremental = []
            if target is not None:
                original = links[target].read_text(encoding="utf-8")
                target.unlink()
                for text in (original.replace(EDIT_FROM, EDIT_TO, 1), original):
                    target.write_text(text, encoding="utf-8")
                    start = time.perf_counter()
                    report = generate(docs, generated)
                    generate_wall = time.perf_counter() - start
                    cpu, wall, units = build_bindings(work / "corpus-build", log_file)
                    incremental.append({"generate_s": generate_wall, "build_cpu_s": cpu, "build_wall_s": wall,
                                        "units_compiled": units, "files_written": report.changed})
            _, compiler_peak = children_cpu()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    per_api = (corpus_cpu - seed_cpu) / max(corpus_apis - seed_apis, 1)
    result = {
        "jobs": int(JOBS),
        "seed": {"apis": seed_apis, "cpu_s": seed_cpu, "wall_s": seed_wall, "units": seed_units,
                 "configure_cpu_s": configure_cpu, "configure_wall_s": configure_wall},
        "corpus_sample": {"pages": len(links), "step": args.step, "apis": corpus_apis, "cpu_s": corpus_cpu,
                          "wall_s": corpus_wall, "units": corpus_units},
        "cpu_s_per_api": per_api,
        "fixed_cpu_s": seed_cpu - seed_apis * per_api,
        "cold_cpu_s_per_api_including_fixed": corpus_cpu / max(corpus_apis, 1),
        "incremental": {
            "edited_page": str(links[target].relative_to(CORPUS)) if target else None,
            "runs": incremental,
            "build_cpu_s": Summary.of([r["build_cpu_s"] for r in incremental], "s").to_json() if incremental else None,
            "redone": "the whole sample is regenerated; Ninja recompiles the units whose generated source changed "
                      "(the edited page's bindings unit) and relinks aclnn._C",
        },
        "compiler_peak_rss_mb": round(compiler_peak, 1),
        "runs": 1,
    }
    emit_result(result)


if __name__ == "__main__":
    main()
