"""Checks that a cost grows linearly with the input, in CPU seconds, which a busy machine does not
decide the way it decides a wall-clock limit. Speeds themselves are the benchmarks' (bench/)."""

from __future__ import annotations

import time
from typing import Callable

# Ten times the input may cost at most this many times the CPU time (linear: about 10, quadratic:
# about 100).
RATIO_FOR_TEN_TIMES = 30


def best_cpu_seconds(work: Callable[[], object], rounds: int = 3) -> float:
    """The least CPU time of `rounds` runs (the first run's noise, a cold cache, left out)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def assert_linear(small: Callable[[], object], large: Callable[[], object], what: str) -> None:
    """`large` does ten times `small`'s work: its CPU time must be at most RATIO_FOR_TEN_TIMES times."""
    small_seconds, large_seconds = best_cpu_seconds(small), best_cpu_seconds(large)
    assert large_seconds < RATIO_FOR_TEN_TIMES * max(small_seconds, 1e-3), (
        f"{what}: {small_seconds:.3f} CPU s, ten times as much in {large_seconds:.3f} CPU s: not linear")
