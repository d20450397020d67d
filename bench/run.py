"""`python -m bench`: runs the sections, each in its own process, writes bench/results.json and
prints the table (Markdown, as README's Benchmarks section shows it)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench.common import ROOT, log
from bench.report import by_path, table, targets

SECTIONS = ("generation", "build", "calls", "kernels", "dense", "torch_npu")
# The sections whose figures depend on the simulator's kernel path (ACLNN_SIM_ISA): measured on
# every path this CPU runs, so that a regression of the AVX2 path (the one AVX2-only CPUs take)
# shows on an AVX-512 machine too. The widest path's result is the section's; the others' are in
# its "other_paths".
PER_PATH = ("kernels", "dense")
KERNEL_PATHS = ("avx512", "avx2", "baseline")  # widest first
# PyTorch's own kernels for the CPUs each path serves (ATEN_CPU_CAPABILITY), for --torch-kernels
# matched: a CPU without AVX2 runs PyTorch's "default" build, not its AVX-512 one.
TORCH_CAPABILITY = {"avx512": "avx512", "avx2": "avx2", "baseline": "default"}
# ATEN_CPU_CAPABILITY chooses aten's own kernels only: PyTorch's oneDNN (its GELU, its bfloat16 GEMM)
# and MKL (its float32 GEMM) pick theirs from the CPU, AVX-512 and AMX here whatever it says. Their
# documented caps hold them to the path too (ONEDNN_VERBOSE=1 shows jit:avx2 for the GELU under
# ONEDNN_MAX_CPU_ISA=AVX2, jit:sse41 under SSE41); the AVX-512 path leaves both to the CPU, as the
# simulator's oneDNN and OpenBLAS are left there. The simulator's oneDNN is capped the same by its
# own call (opapi/onednn.cpp), which takes precedence over these variables in its process.
TORCH_LIBRARY_CAPS = {
    "avx512": {},
    "avx2": {"ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "baseline": {"ONEDNN_MAX_CPU_ISA": "SSE41", "DNNL_MAX_CPU_ISA": "SSE41", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"},
}


def torch_kernels_for(path: str) -> dict[str, str]:
    """The environment that holds PyTorch to `path`'s CPUs: aten's capability and its libraries' caps."""
    return {"ATEN_CPU_CAPABILITY": TORCH_CAPABILITY[path], **TORCH_LIBRARY_CAPS[path]}

# Arguments of each section per mode. The default fits `make bench` in its 10 minutes on two
# shared cores; --full is the whole corpus; --quick checks the plumbing in seconds.
MODES: dict[str, dict[str, list[str]]] = {
    "quick": {"generation": ["--step", "400", "--docs-step", "20", "--rounds", "1"], "build": ["--set", "op_docs"],
              "calls": ["--calls", "200", "--rounds", "2"], "kernels": ["--sizes", "64K", "--rounds", "2"],
              "dense": ["--size", "128", "--elements", "64K", "--conv", "8", "--pool", "2,4,16,16", "--group-norm", "1,64,8,8", "--upsample", "1,2,8,8",
                        "--sort", "4K", "--rounds", "2"],
              "torch_npu": ["--calls", "200", "--rounds", "2", "--seq", "8"]},
    "default": {"generation": ["--step", "1", "--rounds", "3"], "build": ["--set", "op_docs"],
                "calls": ["--calls", "10000", "--rounds", "25"], "kernels": ["--sizes", "1M,16M", "--rounds", "5"],
                "dense": ["--size", "1024", "--elements", "16M", "--rounds", "5"],
                "torch_npu": ["--calls", "10000", "--rounds", "5", "--seq", "16"]},
    "full": {"generation": ["--step", "1", "--rounds", "3"], "build": ["--set", "corpus", "--step", "6"],
             "calls": ["--calls", "10000", "--rounds", "25"], "kernels": ["--sizes", "1M,16M", "--rounds", "9"],
             "dense": ["--size", "1024", "--elements", "16M", "--rounds", "9"],
             "torch_npu": ["--calls", "10000", "--rounds", "9", "--seq", "16"]},
}


def cpu_model() -> str | None:
    """The CPU's model name (Linux's /proc/cpuinfo), None where it does not say."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), None)


def kernel_paths() -> list[str]:
    """The kernel paths this CPU runs, widest first: the simulator clamps a path the CPU lacks to
    a narrower one and reports the one it took."""
    probe = "import aclnn; print(aclnn.sim_stats()['kernel_path'])"
    found = []
    for path in KERNEL_PATHS:
        done = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "ACLNN_SIM_ISA": path},
                              capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == path:
            found.append(path)
    return found


# OpenBLAS's cores by the kernel path whose instructions they use (the simulator tells it Haswell on
# the AVX2 path, Prescott on the baseline one, which OpenBLAS names Katmai, Nehalem before; on the
# AVX-512 path it chooses).
OPENBLAS_CORE_PATHS = {"Katmai": "baseline", "Nehalem": "baseline", "Haswell": "avx2", "Zen": "avx2",
                       "SkylakeX": "avx512", "Cooperlake": "avx512", "SapphireRapids": "avx512"}
PATH_ORDER = ("baseline", "avx2", "avx512")


def route_path(route: str) -> str | None:
    """The kernel path an engine's route ran: the path itself, or a library route's ISA as a path
    ("onednn:brg:avx512_core_amx" ran avx512, "openblas:Haswell" avx2: ACLNN_SIM_ISA caps both), or
    None for a route that names no ISA (an "openblas" of an older simulator); an ISA or core this
    table does not know is returned as it is (a path of its own)."""
    library, _, isa = route.rpartition(":")
    if not library:
        return None if route == "openblas" else route
    if library == "openblas":
        return OPENBLAS_CORE_PATHS.get(isa, isa)
    return next((path for prefix, path in (("avx512", "avx512"), ("avx2", "avx2"), ("sse41", "baseline"))
                 if isa.startswith(prefix)), isa)


def engines_off_path(path: str, engine_paths: dict[str, str]) -> list[str]:
    """The engines whose kernels ran another path than `path` ("softmax ran baseline"): each runs
    the path asked for, a library route within it (OpenBLAS's own choice on the AVX-512 path may
    be an AVX2 core)."""
    def off(route: str) -> bool:
        ran = route_path(route)
        if ran is None or ran == path:
            return False
        library = ":" in route
        return not (library and ran in PATH_ORDER and PATH_ORDER.index(ran) < PATH_ORDER.index(path))
    return [f"{engine} ran {ran}" for engine, ran in sorted(engine_paths.items()) if off(ran)]


def run_per_path(name: str, args: list[str], paths: list[str], matched: bool = False) -> dict:
    """The section on each path: the first path's result, with the others' in its "other_paths".
    `matched`: PyTorch runs its kernels for the path's CPUs too, instead of this CPU's widest."""
    results = {path: run_section(name, args, {"ACLNN_SIM_ISA": path, **(torch_kernels_for(path) if matched else {})})
               for path in paths}
    for path, result in results.items():
        if matched:
            result["torch_kernels_matched"] = True
            result["torch_library_caps"] = TORCH_LIBRARY_CAPS[path]
        if "error" not in result and result.get("kernel_path") != path:
            result["error"] = f"asked for the {path} path, the simulator ran {result.get('kernel_path')}"
        elif "error" not in result and (strays := engines_off_path(path, result.get("engine_paths") or {})):
            result["error"] = f"asked for the {path} path, " + ", ".join(strays)
    first = results.pop(paths[0])
    first["other_paths"] = results
    return first


def run_section(name: str, args: list[str], env_extra: dict[str, str] | None = None) -> dict:
    """Runs `python -m bench.<name>`; its last stdout line is its JSON result."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           **(env_extra or {})}
    done = subprocess.run([sys.executable, "-m", f"bench.{name}", *args], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": f"bench.{name} exited with status {done.returncode}", "wall_s": wall}
    result = json.loads(lines[-1])
    result["wall_s"] = wall
    result["args"] = args
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="tiny sizes: checks the plumbing, measures nothing")
    mode.add_argument("--full", action="store_true", help="the whole corpus and more rounds (long)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated, of " + ", ".join(SECTIONS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument("--paths", default="", help="comma-separated kernel paths to run " + " and ".join(PER_PATH)
                        + " on (default: every path this CPU runs, of " + ", ".join(KERNEL_PATHS) + ")")
    parser.add_argument("--torch-kernels", choices=("widest", "matched"), default="widest",
                        help="PyTorch's kernels on each path: this CPU's widest (default), or its build for the "
                             "path's CPUs (ATEN_CPU_CAPABILITY default for baseline, avx2 for avx2; its oneDNN and "
                             "MKL capped at SSE4 and AVX2)")
    args = parser.parse_args(argv)
    mode_name = "quick" if args.quick else "full" if args.full else "default"
    chosen = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections: {', '.join(unknown)}")

    import torch

    results: dict = {
        "mode": mode_name,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "cpu_model": cpu_model(), "load_average": os.getloadavg(), "python": platform.python_version(),
                    "torch": torch.__version__, "platform": platform.platform()},
        "sections": {},
    }
    paths = [p.strip() for p in args.paths.split(",") if p.strip()] or kernel_paths()
    unknown = sorted(set(paths) - set(KERNEL_PATHS))
    if unknown or not paths:
        parser.error(f"unknown kernel paths: {', '.join(unknown)}" if unknown else "the simulator reports no kernel path")
    for name in chosen:
        log(f"bench: {name} ({' '.join(MODES[mode_name][name])})" + (f" on {', '.join(paths)}" if name in PER_PATH else ""))
        results["sections"][name] = (run_per_path(name, MODES[mode_name][name], paths, args.torch_kernels == "matched") if name in PER_PATH
                                     else run_section(name, MODES[mode_name][name]))
    results["targets"] = targets(results["sections"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nwritten: {args.out}")
    failed = [(name + (f" [{path} path]" if path else ""), result["error"])
              for name, r in results["sections"].items() for path, result in by_path(r) if "error" in result]
    for name, error in failed:
        log(f"bench: {name} failed: {error}")
    return 1 if failed else 0
