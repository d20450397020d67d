"""gen.corpus, phase 2 and the golden: the corpus's call of an API on the simulator records what
phase 2 did ("ok", "not simulated", the status) and whether its results equal the semantics
file's golden (True, False, None with a reason). On the package tests/support/bindings_build.py
builds (the seed pages, with semantics, and probe APIs without any), its generated suites laid
out as a corpus build's, one of them with a golden made wrong on purpose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import bindings_build

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(),
                                reason="the fake backend computes nothing: phase 2 needs the simulator")

# A golden 1% off the right one (semantics/selu_backward.toml's): beyond FLOAT's tolerance (1e-4).
WRONG = ("torch.ops.aten.elu_backward(gradOutput, 1.6732632423543772, 1.0507009873554805, 1.0, True, result)"
         " * 1.01")
RAISES = "torch.no_such_op(gradOutput, self)"


def corpus_like(generated: Path, root: Path, goldens: dict[str, str]) -> Path:
    """A generated tree as gen.corpus reads it (aclnn/, tests/), the suites of `goldens`' files
    with their golden expression replaced."""
    (root / "tests").mkdir(parents=True)
    (root / "aclnn").symlink_to(generated / "aclnn", target_is_directory=True)
    for suite in (generated / "tests").iterdir():
        if suite.name in goldens:
            text, count = re.subn(r"^    golden='.*',$", f"    golden={goldens[suite.name]!r},", suite.read_text(),
                                  flags=re.M)
            assert count == 1, suite
            (root / "tests" / suite.name).write_text(text)
        else:
            (root / "tests" / suite.name).symlink_to(suite)
    return root


def phase1(root: Path, work: Path, apis: list[str], **env: str) -> dict[str, dict]:
    from gen.corpus import workers
    from gen.progress import no_progress

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ACLNN_BACKEND", "sim")
        patch.delenv("ACLNN_SIM_DIR", raising=False)
        for name, value in env.items():
            patch.setenv(name, value)
        return workers.run_phase1(root, apis, work, jobs=1, progress=no_progress)


@pytest.fixture(scope="module")
def generated() -> Path:
    return bindings_build.build_package()


@pytest.fixture(scope="module")
def outcomes(generated, tmp_path_factory) -> dict[str, dict]:
    root = corpus_like(generated, tmp_path_factory.mktemp("corpus") / "generated",
                       {"test_selu_backward.py": WRONG, "test_hardsigmoid_backward.py": RAISES})
    return phase1(root, tmp_path_factory.mktemp("phase1"),
                  ["aclnnLeakyReluBackward", "aclnnSeluBackward", "aclnnHardsigmoidBackward", "aclnnInplaceProbeFill"])


def test_an_api_that_computes_equals_its_golden(outcomes):
    o = outcomes["aclnnLeakyReluBackward"]
    assert (o["status"], o["phase2"], o["golden_ok"]) == (0, "ok", True), o
    assert o["golden_reason"] == ""


def test_an_api_without_semantics_is_not_simulated_with_nothing_to_compare(outcomes):
    o = outcomes["aclnnInplaceProbeFill"]
    assert (o["status"], o["phase2"], o["golden_ok"]) == (0, "not simulated", None), o
    assert o["golden_reason"] == "phase 2 did not compute"


def test_a_wrong_golden_is_false_and_says_what_differs(outcomes):
    o = outcomes["aclnnSeluBackward"]
    assert (o["phase2"], o["golden_ok"]) == ("ok", False), o
    assert "Not equal to tolerance rtol=0.0001" in o["golden_reason"]
    assert "aclnnSeluBackward gradInput" in o["golden_reason"]


def test_a_golden_that_raises_is_no_verdict_and_does_not_stop_the_run(outcomes):
    o = outcomes["aclnnHardsigmoidBackward"]
    assert (o["status"], o["phase2"], o["golden_ok"]) == (0, "ok", None), o
    assert o["golden_reason"].startswith("the golden raised AttributeError")


def test_phase2_failing_with_a_status_records_the_status(generated, tmp_path):
    root = corpus_like(generated, tmp_path / "generated", {})
    # The simulator's fault injection: the first launch of the API fails on the device.
    o = phase1(root, tmp_path / "phase1", ["aclnnLeakyReluBackward"],
               ACLNN_SIM_FAULT="aclnnLeakyReluBackward")["aclnnLeakyReluBackward"]
    assert o["status"] == 0 and isinstance(o["phase2"], int) and o["phase2"] not in (0, 561003), o
    assert o["golden_ok"] is None

