"""Runs a script of calls in a process of its own on the package of op_docs/ (generated/, `make
build`, or make asan's sanitized build of it): a test process's `aclnn` is the seed package other
tests build (tests/support/bindings_build.py). `run` gives the process's outcome to the test;
`results_of`'s script prints one JSON document for the test to judge; `check`'s judges the calls
itself (its asserts). The last two pass the package's directory as the script's first argument."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
# The package built from op_docs/: generated/'s (make build), or another build of it (make asan's).
PACKAGE = Path(os.environ.get("ACLNN_OP_DOCS_PACKAGE_DIR") or GENERATED)


def built() -> bool:
    return bool(list((PACKAGE / "aclnn").glob("_C*.so")))


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    """`python -c code` with the package first on its path and no ACLNN_ setting but `env`'s."""
    # Importing torch costs a process ~1.5 s of CPU, most of these scripts' time: a script gets it
    # only when it names it.
    if re.search(r"\btorch\b", code):
        code = "import torch\n" + code
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    clean.update(PYTHONPATH=os.pathsep.join([str(PACKAGE), str(ROOT)]), **env)
    return subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=120)


# What each script starts with: the package of op_docs/ imported as `aclnn`.
PROLOGUE = """import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import aclnn
"""


def results_of(calls: str, stdin: str | None = None, **env: str) -> dict:
    """The JSON document `PROLOGUE + calls` prints, given `stdin` (the inputs, as JSON: a script
    reads them with json.loads(sys.stdin.read())) and the settings `env`; skips the test where
    op_docs/ is not built."""
    if not built():
        pytest.skip("the package of op_docs/ is not built: run `make build`")
    done = subprocess.run([sys.executable, "-c", PROLOGUE + calls, str(PACKAGE)], input=stdin, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "ACLNN_BACKEND": "sim", **env})
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
    done = subprocess.run([sys.executable, "-c", CHECK_PROLOGUE + script, str(PACKAGE)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
