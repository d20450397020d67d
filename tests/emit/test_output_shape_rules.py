"""The output-shape rules (gen.families.OUTPUT_SHAPES) reach C++ through one generated header:
include/aclnn_bindgen/output_shapes.h enumerates them and dispatches each to its one function
(`<Name>Rule`, in the header its row names), which the bindings and the simulator's planners share.
Rendered from the table, the header cannot drift from it; this holds that every rule's function
exists where its row says, with the signature the dispatch calls, and that the switch covers the
enumeration."""

import shutil
import subprocess
from pathlib import Path

import pytest

from gen.emit import enums
from gen.families import OUTPUT_SHAPES

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_header_is_the_rendered_one():
    committed = ROOT / "generated" / enums.OUTPUT_SHAPE_TABLE[0]
    assert committed.read_text(encoding="utf-8") == enums.output_shape_header()


def test_every_bound_rule_is_dispatched_to_a_function_of_its_header():
    text = enums.output_shape_header()
    for rule in OUTPUT_SHAPES:
        if rule.bound:
            assert f'#include "aclnn_bindgen/{rule.header}"' in text
            assert (ROOT / "runtime/include/aclnn_bindgen" / rule.header).is_file(), rule.header


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_rendered_header_compiles_with_every_rule_implemented(tmp_path):
    header = tmp_path / "aclnn_bindgen" / "output_shapes.h"
    header.parent.mkdir()
    header.write_text(enums.output_shape_header(), encoding="utf-8")
    source = tmp_path / "use.cpp"
    source.write_text('#include "aclnn_bindgen/output_shapes.h"\n'
                      "bool use(aclnn_bindgen::OutputShape r, aclnn_bindgen::Dims* s) {\n"
                      "  return aclnn_bindgen::ApplyOutputShape(r, aclnn_bindgen::ShapeArgs{}, s);\n}\n",
                      encoding="utf-8")
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-Werror=switch",
                           f"-I{tmp_path}", f"-I{ROOT / 'runtime/include'}", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
