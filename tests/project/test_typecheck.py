"""The generator, the benchmarks and the package's hand-written Python type-check (mypy,
configured in pyproject.toml): the IR's explicit types are only worth their cost if something
reads them. runtime/python/aclnn/ is checked as the `aclnn` package it is copied into, beside the
generated modules and stub, not as loose top-level modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gen_bench_and_runtime_python_type_check():
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / "build" / "mypy-cache"), "-v"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-5000:]
    # mypy -v lists each file it was given with the module name it checks it as.
    named = dict(re.findall(r"BuildSource\(path='([^']+)', module='([^']+)'", done.stderr))
    runtime = {path: module for path, module in named.items() if path.startswith("runtime/python/aclnn/")}
    assert runtime and all(module == "aclnn." + Path(path).stem for path, module in runtime.items()), runtime
    assert named["runtime/python/tests/_aclnn_testing.py"] == "_aclnn_testing"
