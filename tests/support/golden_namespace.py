"""The namespace goldens are evaluated in (runtime/python/tests/_goldens.py), loaded by path for the
generator's own tests: the generated suites' support directory also holds _aclnn_testing, which
imports a built package, so it is not put on sys.path."""

from __future__ import annotations

import importlib.util
from typing import Any

from gen.locations import RUNTIME_PYTHON

_spec = importlib.util.spec_from_file_location("_goldens", RUNTIME_PYTHON / "tests" / "_goldens.py")
assert _spec is not None and _spec.loader is not None
GOLDENS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GOLDENS)


def golden_names(dtype_of: dict[str, Any]) -> dict[str, Any]:
    """What a golden may name (torch, math, exact, dtype_of), for tensors of these dtypes."""
    return GOLDENS.golden_names(dtype_of)
