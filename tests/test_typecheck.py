"""The generator and the benchmarks type-check (mypy, configured in pyproject.toml): the IR's
explicit types are only worth their cost if something reads them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_gen_and_bench_type_check():
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / "build" / "mypy-cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
