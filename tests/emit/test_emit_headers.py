"""The aclnnop/ headers: the page's prototypes, compilable C and C++, one header per CANN header name."""

import re
import subprocess
from pathlib import Path

import pytest

from gen.emit import headers
from gen.emit.files import FileManager
from gen.model import build_model
from gen.ir import Direction, ParamKind
from tests.support.factories import make_api, make_page, make_param

ROOT = Path(__file__).resolve().parents[2]


def emit(tmp_path, *pages):
    files = FileManager(tmp_path)
    headers.emit(build_model(pages), files)
    return files


def test_header_declares_both_phases_with_the_page_types(tmp_path):
    api = make_api("aclnnLeakyReluBackward", params=(
        make_param("gradOutput"), make_param("negativeSlope", kind=ParamKind.SCALAR),
        make_param("selfIsResult", kind=ParamKind.BOOL), make_param("out", direction=Direction.OUT)))
    files = emit(tmp_path, make_page(api))
    text = files.written["aclnnop/aclnn_leaky_relu_backward.h"]
    assert "aclnnLeakyReluBackwardGetWorkspaceSize(\n    const aclTensor* gradOutput,\n" in text
    assert "    const aclScalar* negativeSlope,\n    bool selfIsResult,\n    aclTensor* out,\n" in text
    assert "aclnnStatus aclnnLeakyReluBackward(\n    void *workspace," in text


def test_apis_sharing_a_cann_header_are_declared_together(tmp_path):
    adds = make_api("aclnnAdds", header="aclnnop/aclnn_add.h")
    add = make_api("aclnnAdd", header="aclnnop/aclnn_add.h")
    files = emit(tmp_path, make_page(adds, source="a.md"), make_page(add, source="b.md"))
    assert [path for path in files.written if path.startswith("aclnnop/")] == ["aclnnop/aclnn_add.h"]
    text = files.written["aclnnop/aclnn_add.h"]
    assert text.index("aclnnAddGetWorkspaceSize") < text.index("aclnnAddsGetWorkspaceSize")
    assert "from a.md, b.md" in text


@pytest.mark.parametrize("compiler,flags", [("gcc", ["-x", "c", "-std=c99"]), ("g++", ["-x", "c++", "-std=c++17"])])
def test_header_compiles_against_runtime_include(tmp_path, compiler, flags):
    files = emit(tmp_path, make_page(make_api("aclnnLeakyReluBackward")))
    src = tmp_path / "use.c"
    src.write_text('#include "aclnnop/aclnn_leaky_relu_backward.h"\n'
                   "aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = aclnnLeakyReluBackward;\n"
                   "int main(void) { return phase2 != aclnnLeakyReluBackward; }\n")
    subprocess.run([compiler, *flags, "-Wall", "-Werror", f"-I{ROOT / 'runtime/include'}", f"-I{tmp_path}",
                    "-c", str(src), "-o", str(tmp_path / "use.o")], check=True)
    assert files.changed


def test_the_aclop_bridge_checks_the_apis_the_build_declares_and_skips_the_others(tmp_path):
    # ACLOP_SAME (runtime/sim/src/op_compiler/prototype_check.h) against the generated
    # include/aclnn_sim/declared_apis.h: a wrong type for a declared API fails the build, a check
    # of an API no page of the build declares is skipped.
    emit(tmp_path, make_page(make_api("aclnnLeakyReluBackward")))
    src = tmp_path / "checks.cpp"

    def compile_checks(declared_type: str) -> subprocess.CompletedProcess:
        src.write_text('#include "op_compiler/prototype_check.h"\n'
                       "namespace aclsim::aclop {\n"
                       "using Right = aclnnStatus (*)(const aclTensor*, aclTensor*, uint64_t*, aclOpExecutor**);\n"
                       "using Wrong = aclnnStatus (*)(const aclTensor*, int64_t, uint64_t*, aclOpExecutor**);\n"
                       # The same call: a page of the corpus writes an output `const aclTensor*` where another
                       # writes `aclTensor*` (aclnnSoftMarginLoss).
                       "using ConstOutput = aclnnStatus (*)(const aclTensor*, const aclTensor*, uint64_t*, aclOpExecutor**);\n"
                       "}\n"
                       f"ACLOP_SAME(aclnnLeakyReluBackward, {declared_type});\n"
                       "ACLOP_SAME(aclnnOnNoPage, Wrong);\n")
        return subprocess.run(["g++", "-x", "c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                               f"-I{ROOT / 'runtime/include'}", f"-I{ROOT / 'runtime/sim/src'}",
                               f"-I{tmp_path / 'include'}", f"-I{tmp_path}", str(src)],
                              capture_output=True, text=True)

    assert compile_checks("Right").returncode == 0
    assert compile_checks("ConstOutput").returncode == 0
    wrong = compile_checks("Wrong")
    assert wrong.returncode != 0 and "static assertion failed: aclnnLeakyReluBackward" in wrong.stderr
    assert "aclnnOnNoPage" not in wrong.stderr


# An aclop bridge call: Aclnn<Type>(call, <name>, ...), the name a literal, a choice between literals
# or ApiOf(<table>, type) of a TypeApi table of {aclop type, aclnn API} pairs.
BRIDGE_CALL = re.compile(r"Aclnn<(\w+)>\(\s*\w+,\s*((?:[^,()]|\([^()]*\))*)")
BRIDGE_TABLE = re.compile(r"const TypeApi (\w+)\[\] = \{(.*?)\n\};", re.S)


def test_every_aclnn_api_the_aclop_bridge_calls_by_name_is_checked_in_its_file():
    # The bridge finds libopapi's entries by name (dlsym) and calls them through the phase-1 type it
    # writes out: a type that differs from the API's prototype is a call with the wrong arguments and
    # no error. Every API a file calls, by a literal name or from a TypeApi table, is checked there by
    # ACLOP_SAME(aclnnX, Type). Calls whose name is computed otherwise (a variable set from a plan or
    # a table of another shape) are not seen by this scan: at most the 20 sites there are today.
    missing, unseen = [], 0
    for source in sorted((ROOT / "runtime/sim/src/op_compiler").glob("*.cpp")):
        text = source.read_text()
        tables = {m.group(1): re.findall(r'"(aclnn\w+)"', m.group(2)) for m in BRIDGE_TABLE.finditer(text)}
        called = set()
        for kind, name in BRIDGE_CALL.findall(text):
            apis = re.findall(r'"(aclnn\w+)"', name) + [api for table in re.findall(r"ApiOf\((\w+)", name)
                                                          for api in tables[table]]
            called |= {(api, kind) for api in apis}
            unseen += not apis
        checked = set(re.findall(r"ACLOP_SAME\((aclnn\w+),\s*(\w+)\)", text))
        missing += [f"{source.name}: ACLOP_SAME({api}, {kind});" for api, kind in sorted(called - checked)]
    assert not missing, "\n".join(missing)
    assert unseen <= 20, f"{unseen} calls of the bridge name their API by a computed name this scan cannot check"
