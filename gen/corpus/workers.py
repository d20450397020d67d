"""Phase 1 of many APIs in worker processes: one chip per process (the simulator reads
ACLNN_SIM_SOC once), each call logged before and after, so that a crash or a hang is blamed on
the API that was running and the worker restarts after it."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from gen.corpus.build import ROOT
from gen.corpus.records import first_line
from gen.progress import Progress

# Phase 1 of an API that has not returned after this many seconds is reported as hung.
CALL_TIMEOUT = 60.0


def run_phase1(generated: Path, apis: Sequence[str], work: Path, jobs: int, progress: Progress,
               plans: Optional[dict[str, dict]] = None) -> dict[str, dict]:
    """Phase 1 of each API in `jobs` worker processes (one chip per process: the simulator reads
    ACLNN_SIM_SOC once), restarted after the API that crashed one."""
    generated, work = generated.resolve(), work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    plans = plans or {}
    (work / "plans.json").write_text(json.dumps(plans))
    by_soc: dict[Optional[str], list[str]] = {}
    for api in apis:
        by_soc.setdefault(plans.get(api, {}).get("soc"), []).append(api)
    chunks = [(soc, group[k::jobs]) for soc, group in by_soc.items() for k in range(jobs) if group[k::jobs]]
    outcomes: dict[str, dict] = {}
    # The goldens are CPU PyTorch. With torch_npu installed, `import torch` loads it as a device
    # backend by default, which fails without CANN's libraries and leaves torch half-imported:
    # every golden raised, so nothing could equal one.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(generated), str(ROOT)]),
           "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    bar = progress(None, "phase 1", total=len(apis))
    workers: list[tuple[subprocess.Popen, Path, tuple[Optional[str], list[str]], float]] = []

    def launch(soc: Optional[str], chunk: list[str], k: int) -> None:
        results = work / f"worker{k}.jsonl"
        results.write_text("")
        listing = work / f"worker{k}.apis"
        listing.write_text("\n".join(chunk))
        with (work / f"worker{k}.err").open("wb") as err:  # a file: a pipe nobody reads can fill and block
            proc = subprocess.Popen([sys.executable, "-m", "gen.corpus", "--phase1-worker", str(generated),
                                     str(listing), str(results), str(work / "plans.json")],
                                    env={**env, "ACLNN_SIM_SOC": soc} if soc else env, cwd=str(ROOT),
                                    stdout=subprocess.DEVNULL, stderr=err)
        workers.append((proc, results, (soc, chunk), time.monotonic()))

    def progress_of(results: Path) -> tuple[dict[str, dict], Optional[str]]:
        done: dict[str, dict] = {}
        started: Optional[str] = None
        for line in results.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event["event"] == "start":
                started = event["api"]
            else:
                done[event["api"]] = event
                started = None
        return done, started

    serial = itertools.count()
    # The chips' groups run one after the other, `jobs` workers at a time.
    pending = list(chunks)
    while pending and len(workers) < jobs:
        launch(*pending.pop(0), next(serial))
    seen: dict[Path, int] = {}
    stall: dict[Path, tuple[Optional[str], float]] = {}
    while workers:
        time.sleep(0.2)
        for entry in list(workers):
            proc, results, (soc, chunk), _ = entry
            done, running = progress_of(results)
            new = len(done) - seen.get(results, 0)
            if new:
                bar.update(new)
                seen[results] = len(done)
            # A call that does not return is as bad as a crash.
            previous = stall.get(results)
            if previous is None or previous[0] != running or new:
                stall[results] = (running, time.monotonic())
            hung = running is not None and time.monotonic() - stall[results][1] > CALL_TIMEOUT
            if hung:
                proc.kill()
            code = proc.poll()
            if code is None:
                continue
            workers.remove(entry)
            stderr = results.with_suffix(".err").read_text(errors="replace")
            outcomes.update(done)
            if running is not None:
                why = "hung" if hung else (f"killed by signal {-code}" if code < 0 else f"exit {code}")
                outcomes[running] = {"status": None, "crashed": True,
                                     "message": f"the process {why} during the call: {first_line(stderr[-500:])}"}
                bar.update(1)
            rest = [a for a in chunk if a not in outcomes]
            if rest and running is not None:
                launch(soc, rest, next(serial))
            elif rest:  # the worker died outside any call (at import): blame nobody, report all
                for api in rest:
                    outcomes[api] = {"status": None, "message": f"the worker failed: {first_line(stderr[-500:])}"}
                bar.update(len(rest))
            while pending and len(workers) < jobs:
                launch(*pending.pop(0), next(serial))
    bar.close()
    return outcomes
