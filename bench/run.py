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
from bench.report import table, targets

SECTIONS = ("generation", "build", "calls", "kernels", "dense", "torch_npu")

# Arguments of each section per mode. The default fits `make bench` in its 10 minutes on two
# shared cores; --full is the whole corpus; --quick checks the plumbing in seconds.
MODES: dict[str, dict[str, list[str]]] = {
    "quick": {"generation": ["--step", "400", "--docs-step", "20", "--rounds", "1"], "build": ["--set", "op_docs"],
              "calls": ["--calls", "200", "--rounds", "2"], "kernels": ["--sizes", "64K", "--rounds", "2"],
              "dense": ["--size", "128", "--elements", "64K", "--conv", "8", "--pool", "2,4,16,16", "--rounds", "2"],
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


def run_section(name: str, args: list[str]) -> dict:
    """Runs `python -m bench.<name>`; its last stdout line is its JSON result."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
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
        "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "python": platform.python_version(),
                    "torch": torch.__version__, "platform": platform.platform()},
        "sections": {},
    }
    for name in chosen:
        log(f"bench: {name} ({' '.join(MODES[mode_name][name])})")
        results["sections"][name] = run_section(name, MODES[mode_name][name])
    results["targets"] = targets(results["sections"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nwritten: {args.out}")
    failed = [name for name, r in results["sections"].items() if "error" in r]
    for name in failed:
        log(f"bench: {name} failed: {results['sections'][name]['error']}")
    return 1 if failed else 0
