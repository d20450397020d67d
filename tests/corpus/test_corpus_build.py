"""gen.corpus, compile stage: a failed unit's errors are attributed to the APIs they point into."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gen.corpus import build as corpus

# A unit laid out as the generated ones are: a marker line opens each API's section.
UNIT = """\
#include <vector>
namespace {
// ---- aclnnGood (pages/good.md:10) ----
int good() { return 1; }

// ---- aclnnBad (pages/bad.md:20) ----
template <typename T> int twice(T t) { return t.size() * 2; }
int bad() { return undeclared_name + twice(3); }

// ---- aclnnAlsoGood (pages/also_good.md:30) ----
int also_good() { return good() + bad(); }
}
"""


@pytest.fixture(scope="module")
def compiler_output(tmp_path_factory) -> tuple[Path, str]:
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    generated = tmp_path_factory.mktemp("generated")
    unit = generated / "bindings" / "ops_000.cpp"
    unit.parent.mkdir()
    unit.write_text(UNIT)
    done = subprocess.run([compiler, "-fsyntax-only", str(unit)], capture_output=True, text=True)
    assert done.returncode != 0
    return generated, done.stderr


def test_errors_are_blamed_on_the_api_whose_section_holds_them(compiler_output):
    generated, output = compiler_output
    culprits = corpus.attribute(output, generated)
    assert set(culprits) == {"aclnnBad"}
    assert culprits["aclnnBad"].startswith("compile error: ") and "undeclared_name" in culprits["aclnnBad"]


def test_api_spans_follow_the_markers(compiler_output):
    generated, _ = compiler_output
    spans = corpus.api_spans(generated / "bindings" / "ops_000.cpp")
    assert [api for _, api in spans] == ["aclnnGood", "aclnnBad", "aclnnAlsoGood"]
    assert corpus.api_at(spans, 1) is None and corpus.api_at(spans, 8) == "aclnnBad"


def test_ninja_failed_edges_are_split_per_unit():
    output = ("[1/3] Building CXX object a.o\nFAILED: a.o\ng++ -c a.cpp\na.cpp:1:1: error: x\n"
              "[2/3] Building CXX object b.o\nFAILED: b.o\ng++ -c b.cpp\nb.cpp:2:1: error: y\nninja: build stopped\n")
    blocks = corpus.failed_blocks(output)
    assert [head for head, _ in blocks] == ["FAILED: a.o", "FAILED: b.o"]
    assert "b.cpp:2:1: error: y" in blocks[1][1] and "a.cpp" not in blocks[1][1]
