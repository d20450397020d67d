"""gen.corpus, phase-1 stage: each API runs in a worker process; a crash is blamed on the API
that was running, and the worker restarts after it. A fake generated package stands in for the
compiled one (the real build is `make corpus`'s)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gen import corpus

ACLNN = """
class AclnnError(Exception):
    def __init__(self, status, phase):
        super().__init__(f"{phase} returned {status}")
        self.status, self.phase = status, phase
"""

# The support module's functions the runner uses, reduced to what the fake ops need.
TESTING = """
import aclnn
NUMPY_DTYPES = {}
def active_soc(): return "Ascend910B"
def make_inputs(op, case, soc): return {}
def out_arrays(op, case, inputs, soc): return None
def call(op, case, inputs, outs): return op.behave()
"""

OPS = {
    "aclnnFine": "return ()",
    "aclnnRejects": "raise aclnn.AclnnError(161002, 'GetWorkspaceSize')",
    "aclnnNotSimulated": "raise aclnn.AclnnError(561003, 'execute')",
    "aclnnCrashes": "import os; os.abort()",
    "aclnnAfterCrash": "return ()",
    "aclnnBroken": "raise RuntimeError('the wrapper is wrong')",
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, dict]:
    generated = tmp_path_factory.mktemp("generated")
    (generated / "aclnn").mkdir()
    (generated / "aclnn" / "__init__.py").write_text(ACLNN)
    tests = generated / "tests"
    tests.mkdir()
    (tests / "_aclnn_testing.py").write_text(TESTING)
    for api, body in OPS.items():
        from gen import names
        (tests / names.test_file(api)).write_text(textwrap.dedent(f"""
            import aclnn
            class OP:
                inputs = ()
                @staticmethod
                def behave():
                    {body}
            BASE = None
        """))
    return corpus.run_phase1(generated, list(OPS), tmp_path_factory.mktemp("work"), jobs=1,
                             progress=corpus.no_progress)


def test_every_api_gets_an_outcome(outcomes):
    assert set(outcomes) == set(OPS)


def test_status_zero_when_phase1_passes(outcomes):
    assert outcomes["aclnnFine"]["status"] == 0
    assert outcomes["aclnnNotSimulated"]["status"] == 0  # phase 2's status: phase 1 returned 0


def test_phase1_status_is_reported(outcomes):
    assert outcomes["aclnnRejects"]["status"] == 161002


def test_crash_is_blamed_on_its_api_and_the_rest_still_runs(outcomes):
    assert outcomes["aclnnCrashes"].get("crashed") and outcomes["aclnnCrashes"]["status"] is None
    assert "signal 6" in outcomes["aclnnCrashes"]["message"]
    assert outcomes["aclnnAfterCrash"]["status"] == 0


def test_python_error_is_the_apis_failure(outcomes):
    assert outcomes["aclnnBroken"]["status"] is None
    assert "RuntimeError: the wrapper is wrong" in outcomes["aclnnBroken"]["message"]
