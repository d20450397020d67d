"""What every section shares: interleaved timing, summaries, corpus samples, the JSON a section prints."""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from gen.locations import shared_corpus

ROOT = Path(__file__).resolve().parents[1]
CORPUS = shared_corpus().resolve()


@dataclass(frozen=True)
class Summary:
    """Several runs of one measurement: the median is quoted, min and max show the noise."""

    median: float
    min: float
    max: float
    runs: int
    unit: str

    @classmethod
    def of(cls, values: list[float], unit: str) -> "Summary":
        return cls(statistics.median(values), min(values), max(values), len(values), unit)

    def scaled(self, factor: float, unit: str) -> "Summary":
        return Summary(self.median * factor, self.min * factor, self.max * factor, self.runs, unit)

    def to_json(self) -> dict:
        return asdict(self)


def interleaved(cases: dict[str, Callable[[], float | None]], rounds: int, warmup: int = 1) -> dict[str, list[float]]:
    """Runs each case once per round, in turn (case order rotates every round so that none always
    follows the same neighbour). A case returns its own measure, or None to be timed whole here.
    The first `warmup` rounds (imports, template compilation, caches, page faults) are discarded.
    Returns every case's values in seconds (or in the case's own unit)."""
    names = list(cases)
    values: dict[str, list[float]] = {name: [] for name in names}
    for r in range(warmup + rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            start = time.perf_counter()
            own = cases[name]()
            if r >= warmup:
                values[name].append(own if own is not None else time.perf_counter() - start)
    return values


def to_the_end(call: Callable[[], object]) -> Callable[[], None]:
    """`call` followed by aclnn.synchronize(): a device-resident call returns once queued on its
    stream, so its kernel's time ends at the synchronisation."""
    def run() -> None:
        import aclnn

        call()
        aclnn.synchronize()

    return run


def ratio(a: list[float], b: list[float]) -> Summary:
    """Ratios of paired runs (round i of a over round i of b): noise that hits a whole round cancels."""
    return Summary.of([x / y for x, y in zip(a, b)], "x")


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def shown(path: Path) -> str:
    """A path as the results may record it: relative to the repository, never a machine's absolute
    path (bench/results.json is committed)."""
    return os.path.relpath(path, ROOT)


def sample_pages(pages: list[Path], step: int) -> list[Path]:
    """Every `step`-th page of a sorted list: deterministic, and spread over every directory."""
    return sorted(pages)[::max(step, 1)]


def emit_result(result: dict) -> None:
    """A section's result on stdout's last line, for bench.run (everything else goes to stderr)."""
    result.setdefault("peak_rss_mb", round(peak_rss_mb(), 1))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)
