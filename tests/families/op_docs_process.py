"""Runs a script of calls in a process of its own on the package of op_docs/ (generated/, `make
build`): a test process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py).
The script prints one JSON document; its first argument is the package's directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GENERATED = Path(__file__).resolve().parents[2] / "generated"

# What each script starts with: the package of op_docs/ imported as `aclnn`.
PROLOGUE = """import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import aclnn
"""


def results_of(calls: str) -> dict:
    """The JSON document `PROLOGUE + calls` prints; skips the test where op_docs/ is not built."""
    if not any((GENERATED / "aclnn").glob("_C*.so")):
        pytest.skip("the package of op_docs/ is not built: run `make build`")
    done = subprocess.run([sys.executable, "-c", PROLOGUE + calls, str(GENERATED)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "ACLNN_BACKEND": "sim"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
