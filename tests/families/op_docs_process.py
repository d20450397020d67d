"""Runs a script of calls in a process of its own on the package of op_docs/ (generated/, `make
build`): a test process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py).
The script's first argument is the package's directory. `results_of`'s script prints one JSON
document for the test to judge; `check`'s judges the calls itself (its asserts)."""

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


# What a `check` script starts with: the package and torch, and helpers to judge its calls.
CHECK_PROLOGUE = r'''
import sys
import numpy as np
import torch
sys.path.insert(0, sys.argv[1])
import aclnn

def host(a):
    return a.numpy() if hasattr(a, "numpy") else np.asarray(a)

def refused(call, status, words):
    try:
        call()
    except aclnn.AclnnError as error:
        assert error.status == status and all(w in str(error) for w in words), str(error)
        return
    raise AssertionError("accepted")

rng = np.random.default_rng(0)
'''


def check(script: str) -> None:
    """Runs `CHECK_PROLOGUE + script`, which asserts what it computes, and fails with its output."""
    done = subprocess.run([sys.executable, "-c", CHECK_PROLOGUE + script, str(GENERATED)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
