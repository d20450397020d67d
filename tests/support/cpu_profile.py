"""Where make test's CPU goes: CPU seconds (user + system) per test, its subprocesses included.

pytest's --durations gives wall seconds of the worker alone: a test that waits for a torch_npu
script server, a compiler or a bench subprocess shows the wait, not the work, and on a shared
machine wall time is mostly other processes' load. This plugin charges each test with the CPU its
worker spent, plus what its children spent meanwhile: those reaped (RUSAGE_CHILDREN) and those still
alive (/proc: a script server kept for the session is charged test by test).

    pytest -p tests.support.cpu_profile -n 2 tests          # one file per worker in build/cpu-profile/
    python -m tests.support.cpu_profile build/cpu-profile    # CPU by file, then the top tests

Not part of make test: a tool for cutting its budget (its cost is a /proc read per test).
"""

from __future__ import annotations

import collections
import os
import resource
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

OUT = Path(os.environ.get("CPU_PROFILE_DIR", Path(__file__).resolve().parents[2] / "build" / "cpu-profile"))
_TICKS = os.sysconf("SC_CLK_TCK")


def _live_children_seconds() -> float:
    """CPU seconds of this process's live children, with their reaped children (/proc/PID/stat)."""
    me = os.getpid()
    children: list[str] = []
    for task in os.listdir(f"/proc/{me}/task"):
        try:
            children += Path(f"/proc/{me}/task/{task}/children").read_text().split()
        except OSError:
            pass
    total = 0
    for child in children:
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile: RUSAGE_CHILDREN has it once reaped
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / _TICKS


def cpu_seconds() -> float:
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _live_children_seconds()


_rows: list[tuple[str, float, float]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    cpu, wall = cpu_seconds(), time.monotonic()
    yield
    _rows.append((item.nodeid, time.monotonic() - wall, cpu_seconds() - cpu))


def pytest_sessionfinish() -> None:
    if not _rows:
        return  # the controller of pytest -n: its workers ran the tests
    OUT.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (OUT / f"{worker}.tsv").write_text("".join(f"{node}\t{wall:.3f}\t{cpu:.3f}\n" for node, wall, cpu in _rows))


def summary(directory: Path, top: int = 30) -> str:
    by_file: collections.Counter[str] = collections.Counter()
    tests: list[tuple[float, float, str]] = []
    for table in sorted(directory.glob("*.tsv")):
        for line in table.read_text().splitlines():
            node, wall, cpu = line.split("\t")
            by_file[node.split("::")[0]] += float(cpu)
            tests.append((float(cpu), float(wall), node))
    total = sum(by_file.values())
    lines = [f"{total:.1f} CPU s in {len(tests)} tests", "", "CPU s  share  file"]
    lines += [f"{cpu:6.1f} {100 * cpu / total:5.1f}%  {name}" for name, cpu in by_file.most_common()]
    lines += ["", "CPU s  wall s  test"]
    lines += [f"{cpu:6.1f} {wall:7.1f}  {node}" for cpu, wall, node in sorted(tests, reverse=True)[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
