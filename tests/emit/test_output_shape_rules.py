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


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_pool_rule_reads_onnx_window_arguments(tmp_path):
    # aclnnMaxPool's page (the pool family's onnx_window option): an empty strides is 1, not the kernel;
    # pads give the begins then the ends ({上,左,下,右}), symmetric ones pooling as their begins; pads
    # whose ends differ give no shape (the simulator does not model them). The bindings and the
    # simulator's planner read them through this one function (ReadOnnxWindow).
    source = tmp_path / "pool.cpp"
    source.write_text(r'''
#include <cstdio>
#include "aclnn_bindgen/pool_shape.h"
using namespace aclnn_bindgen;
static IntsArg Given(Dims v) { IntsArg a; a.state = IntsArg::kRead; a.values = v; return a; }
static void Show(const char* name, bool onnx, Dims stride, Dims pads, bool ceil) {
  ShapeArgs args;
  args.dims = Given({2, 2}), args.stride = Given(stride), args.padding = Given(pads), args.dilation = Given({1, 1});
  args.ceil_mode = ceil, args.spatial = 2, args.onnx_window = onnx;
  Dims shape = {2, 2, 3, 3};
  const bool ok = PoolRule(args, &shape);
  std::printf("%s %d", name, ok ? 1 : 0);
  for (int64_t d : shape) std::printf(" %lld", static_cast<long long>(d));
  std::printf("\n");
}
int main() {
  Show("example", true, {2, 2}, {0, 0, 0, 0}, true);
  Show("onnx-empty-strides", true, {}, {}, false);
  Show("pytorch-empty-strides", false, {}, {0, 0}, false);
  Show("symmetric", true, {1, 1}, {1, 0, 1, 0}, false);
  Show("asymmetric", true, {1, 1}, {1, 0, 0, 0}, false);
}
''', encoding="utf-8")
    binary = tmp_path / "pool"
    built = subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", f"-I{ROOT / 'runtime/include'}", str(source),
                            "-o", str(binary)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines == ["example 1 2 2 2 2",  # the page example's [2, 2, 2, 2] out
                     "onnx-empty-strides 1 2 2 2 2",  # stride 1: (3 - 2) / 1 + 1
                     "pytorch-empty-strides 1 2 2 1 1",  # stride = kernel: (3 - 2) / 2 + 1
                     "symmetric 1 2 2 4 2",  # padding [1, 0]: (3 + 2 - 2) / 1 + 1, (3 - 2) / 1 + 1
                     "asymmetric 0 2 2 3 3"]  # no shape: the input's stays
