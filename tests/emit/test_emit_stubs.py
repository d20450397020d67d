"""The stubs emitter (gen/emit/stubs.py): aclnn/__init__.pyi passes mypy, types calls the way the
bindings take them, and matches the built package (mypy.stubtest)."""

from __future__ import annotations

import ast
import functools
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gen.api import docs
from gen.api.python import python_signature
from gen.emit import package, stubs
from gen.emit.files import FileManager
from gen.model import build_model
from gen.ir import API, Direction, Page, ParamKind
from tests.support.factories import make_api, make_page, make_param
from tests.support.sim_seed_ir import seed_pages, seed_semantics

ROOT = Path(__file__).resolve().parents[2]


def emit_stub(tmp_path: Path, *pages, semantics=()) -> str:
    files = FileManager(tmp_path)
    stubs.emit(build_model(pages, semantics), files)
    stub = files.written[stubs.STUB]
    return stub.decode("utf-8") if isinstance(stub, bytes) else stub


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """mypy --strict on `args`. Incremental, with one cache per test worker: most of a cold run's
    ~3.5 s is the standard library's stubs, the same in every run; mypy rechecks whatever file's
    bytes changed (here `aclnn` is a new stub each time), so a warm cache cannot hide an error."""
    cache = ROOT / "build" / "mypy-cache-stubs" / os.environ.get("PYTEST_XDIST_WORKER", "main")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *args],
                          cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def seed_stub(tmp_path_factory) -> Path:
    """The seeds' stub, in a directory mypy can import `aclnn` from."""
    root = tmp_path_factory.mktemp("stub")
    emit_stub(root, *seed_pages(), semantics=seed_semantics())
    return root


def function_defs(stub: str, name: str) -> list[ast.FunctionDef]:
    return [node for node in ast.parse(stub).body if isinstance(node, ast.FunctionDef) and node.name == name]


def test_seed_stub_passes_mypy_strict(seed_stub):
    result = mypy("aclnn/__init__.pyi", cwd=seed_stub)
    assert result.returncode == 0, result.stdout


USAGE = '''
import numpy as np
import aclnn

x = np.array([1.0, -2.0], np.float32)
host: np.ndarray = aclnn.leaky_relu_backward(x, x, 0.01, False)
into: np.ndarray = aclnn.hardsigmoid_backward([1.0, 2.0], x, out=np.empty(2, np.float32))
t = aclnn.to_device(x)
on_device: aclnn.Tensor = aclnn.leaky_relu_backward(x, t, np.float16(0.5), True)
back: np.ndarray = aclnn.selu_backward(t, x).numpy()
status: int = aclnn.AclnnError(161002).status
soc: str | None = aclnn.backend().soc
'''


def test_calls_as_the_bindings_take_them_type_check(seed_stub):
    (seed_stub / "usage.py").write_text(USAGE)
    result = mypy("usage.py", cwd=seed_stub)
    assert result.returncode == 0, result.stdout


WRONG_CALLS = (
    ("aclnn.leaky_relu_backward(x, x, 0.01)", "No overload variant"),  # self_is_result missing
    ("aclnn.leaky_relu_backward(x, x, 0.01, False, out=3)", "No overload variant"),
    ("y: aclnn.Tensor = aclnn.selu_backward(x, x)", "Incompatible types in assignment"),  # host in, array out
    ("aclnn.hardsigmoid_backward(x, x, x)", "No overload variant"),  # out is keyword-only
)


def test_wrong_calls_are_rejected(seed_stub):
    header = "import numpy as np\nimport aclnn\nx = np.zeros(2)\n"
    (seed_stub / "wrong.py").write_text(header + "".join(call + "\n" for call, _ in WRONG_CALLS))
    result = mypy("wrong.py", cwd=seed_stub)
    for line, (call, complaint) in enumerate(WRONG_CALLS, start=header.count("\n") + 1):
        assert f"wrong.py:{line}: error: {complaint}" in result.stdout, (call, result.stdout)


def test_each_function_has_the_bindings_signature(seed_stub):
    stub = (seed_stub / stubs.STUB).read_text()
    for bound in build_model(seed_pages(), seed_semantics()).apis:
        defs = function_defs(stub, bound.python_name)
        assert defs, bound.python_name
        for node in defs:
            positional = [a.arg for a in node.args.args]
            keyword = [a.arg for a in node.args.kwonlyargs]
            expected = [p.name for p in python_signature(bound).params]
            assert positional + keyword == expected


def test_docstring_is_the_pages(seed_stub):
    stub = (seed_stub / stubs.STUB).read_text()
    bound = build_model(seed_pages(), seed_semantics()).api("aclnnLeakyReluBackward")
    first = function_defs(stub, "leaky_relu_backward")[0]
    assert ast.get_docstring(first) == inspect.cleandoc(docs.docstring(bound))


@functools.cache
def generated_docstrings() -> dict[str, tuple[str, API, Page]]:
    """The docstring, API and page of every API of the committed stub, by API name: the stub heads
    each function with `# aclnnXxx (page:line)`; generated/ir/ holds each page's IR (op_docs/derived/'s in ir/derived/)."""
    pages = [Page.from_json(path.read_text(encoding="utf-8")) for path in (ROOT / "generated" / "ir").rglob("*.json")]
    apis = {api.name: (api, page) for page in pages for api in page.apis}
    stub = (ROOT / "generated" / stubs.STUB).read_text(encoding="utf-8")
    found = {}
    for name, body in re.findall(r"^# (aclnn\w+) \(.*?\)\n(.*?)(?=^# aclnn|\Z)", stub, re.S | re.M):
        docstring = next(d for node in ast.parse(body).body if isinstance(node, ast.FunctionDef)
                         for d in [ast.get_docstring(node)] if d)
        found[name] = (docstring, *apis[name])
    return found


@pytest.mark.parametrize("name", sorted(generated_docstrings()))
def test_no_formula_is_printed_twice(name):
    """Each display formula of the page's formula (the whole formula when it has none) appears in
    the docstring as often as the page's description writes it, or once when only the Formula
    section shows it. (Prose lines around the formulas may recur in a parameter's notes.)"""
    docstring, api, page = generated_docstrings()[name]
    shown, described = " ".join(docstring.split()), " ".join(page.description.split())
    pieces = [p for p in docs.formula_pieces(api.formula) if p.startswith("$$")] or [api.formula]
    for piece in (" ".join(p.split()) for p in pieces if p.strip()):
        assert shown.count(piece) == max(1, described.count(piece)), piece


def test_docstring_literal_keeps_backslashes_and_quotes():
    text = 'a \\gt b, """quoted""", \\\n  indented\n'
    literal = stubs.docstring_literal(text)
    assert ast.literal_eval(literal).replace("\n    ", "\n") == text.rstrip("\n") + "\n"


def test_host_inputs_give_arrays_and_tensor_inputs_give_tensors():
    api = make_api("aclnnFoo", params=(make_param("self"), make_param("other"),
                                       make_param("out", direction=Direction.OUT)))
    sigs = stubs.signatures(build_model([make_page(api)]).apis[0])
    assert [s.returns for s in sigs] == ["Tensor", "Tensor", "NDArray[Any]"]
    assert [p.annotation for p in sigs[0].params] == ["Tensor", "_TensorLike", "_OutArray | None"]
    assert [p.annotation for p in sigs[2].params] == ["_HostArray", "_HostArray", "_OutArray | None"]


def test_optional_trailing_input_defaults_to_none_except_as_tensor_pivot():
    api = make_api("aclnnFoo", params=(make_param("self"), make_param("bias", optional=True),
                                       make_param("scale", optional=True), make_param("out", direction=Direction.OUT)))
    sigs = stubs.signatures(build_model([make_page(api)]).apis[0])
    defaults = [[(p.annotation, p.default) for p in s.params[1:3]] for s in sigs]
    assert defaults == [
        [("_TensorLike | None", "None"), ("_TensorLike | None", "None")],
        [("Tensor", None), ("_TensorLike | None", "None")],  # bias must be passed to be the Tensor
        [("_TensorLike | None", None), ("Tensor", None)],
        [("_HostArray | None", "None"), ("_HostArray | None", "None")],
    ]


def test_optional_input_before_a_required_one_is_required_but_takes_none():
    api = make_api("aclnnFoo", params=(make_param("scale", kind=ParamKind.SCALAR, c_type="const aclScalar*",
                                                  optional=True), make_param("self"),
                                       make_param("out", direction=Direction.OUT)))
    host = stubs.signatures(build_model([make_page(api)]).apis[0])[-1]
    assert (host.params[0].annotation, host.params[0].default) == ("_Scalar | None", None)


def test_inplace_api_returns_its_inout_argument_as_given():
    api = make_api("aclnnInplaceFoo", params=(make_param("selfRef", direction=Direction.INOUT, c_type="aclTensor*"),
                                              make_param("alpha", kind=ParamKind.FLOAT)))
    sigs = stubs.signatures(build_model([make_page(api)]).apis[0])
    # nothing is allocated, so whether an argument is a Tensor changes nothing: one signature
    assert [(s.params[0].annotation, s.returns) for s in sigs] == [("_InOut1", "_InOut1")]
    assert all(not p.keyword_only for s in sigs for p in s.params)  # no out=: nothing is direction out


def test_inout_beside_an_allocated_output_keeps_its_type_in_every_tensor_overload():
    api = make_api("aclnnFoo", params=(make_param("x"), make_param("stateRef", direction=Direction.INOUT,
                                                                   c_type="aclTensor*"),
                                       make_param("out", direction=Direction.OUT)))
    sigs = stubs.signatures(build_model([make_page(api)]).apis[0])
    assert [s.returns for s in sigs] == ["tuple[_InOut1, Tensor]", "tuple[Tensor, Tensor]",
                                         "tuple[NDArray[Any], NDArray[Any]]"]


def test_an_operator_named_like_a_builtin_does_not_shadow_the_annotations(tmp_path):
    api = make_api("aclnnComplex", params=(make_param("real"), make_param("imag"), make_param("alpha", kind=ParamKind.SCALAR,
                                                                                             c_type="const aclScalar*"),
                                           make_param("out", direction=Direction.OUT)))
    stub = emit_stub(tmp_path, make_page(api))
    assert "_Scalar: TypeAlias = bool | int | float | builtins.complex | np.generic" in stub
    (tmp_path / "usage.py").write_text("import numpy as np\nimport aclnn\nz: np.ndarray = aclnn.complex(np.ones(2), np.ones(2), 1j)\n")
    result = mypy("aclnn/__init__.pyi", "usage.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout


def test_several_outputs_are_a_tuple_and_out_takes_a_tuple():
    api = make_api("aclnnFoo", params=(make_param("self"), make_param("values", direction=Direction.OUT),
                                       make_param("indices", direction=Direction.OUT)))
    host = stubs.signatures(build_model([make_page(api)]).apis[0])[-1]
    assert host.returns == "tuple[NDArray[Any], NDArray[Any]]"
    assert host.params[-1].annotation == "tuple[_OutArray | None, _OutArray | None] | None"


def test_every_kind_stub_passes_mypy(tmp_path):
    params = (
        make_param("self"),
        make_param("tensors", kind=ParamKind.TENSOR_LIST, c_type="const aclTensorList*"),
        make_param("alpha", kind=ParamKind.SCALAR, c_type="const aclScalar*"),
        make_param("scalars", kind=ParamKind.SCALAR_LIST, c_type="const aclScalarList*"),
        make_param("dims", kind=ParamKind.INT_ARRAY),
        make_param("weights", kind=ParamKind.FLOAT_ARRAY, c_type="const aclFloatArray*"),
        make_param("mask", kind=ParamKind.BOOL_ARRAY, c_type="const aclBoolArray*"),
        make_param("keepdim", kind=ParamKind.BOOL), make_param("k", kind=ParamKind.INT),
        make_param("eps", kind=ParamKind.FLOAT), make_param("mode", kind=ParamKind.STRING, c_type="char*"),
        make_param("dtype", kind=ParamKind.DTYPE, c_type="aclDataType"),
        make_param("bias", optional=True),
        make_param("out", direction=Direction.OUT),
        make_param("outs", kind=ParamKind.TENSOR_LIST, c_type="aclTensorList*", direction=Direction.OUT),
    )
    inplace = make_api("aclnnInplaceFoo", params=(make_param("selfRef", direction=Direction.INOUT, c_type="aclTensor*"),
                                                  make_param("other")))
    emit_stub(tmp_path, make_page(make_api("aclnnFoo", params=params)), make_page(inplace, source="b.md"))
    (tmp_path / "usage.py").write_text(
        "import numpy as np\nimport aclnn\nx = np.zeros(2)\n"
        "a, b = aclnn.foo(x, [x, x], 1.5, [1, 2.0], [0, 1], [0.5], [True], True, 3, 1e-5, 'mean', np.float32)\n"
        "c: np.ndarray = a\nd: list[np.ndarray] = b\n"
        "e: np.ndarray = aclnn.inplace_foo(x, x)\n")
    result = mypy("aclnn/__init__.pyi", "usage.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout


def test_public_names_match_the_package():
    model = build_model(seed_pages(), seed_semantics())
    files = FileManager(Path("/nonexistent"), dry_run=True)
    package.emit(model, files)
    stubs.emit(model, files)

    def all_names(source: str | bytes) -> list[str]:
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
                return ast.literal_eval(node.value)
        raise AssertionError("no __all__")

    assert all_names(files.written[stubs.STUB]) == all_names(files.written["aclnn/__init__.py"])


# pybind11 classes have their own metaclass and a constructor that refuses every call
# (Tensors come from to_device and from ops); the stub says what users may do.
# pybind11 classes have pybind11's metaclass, which a stub cannot state; Tensor has no constructor.
# aclnn.sim is a typed module of its own (runtime/python/aclnn/sim.py, checked by test_typecheck),
# not part of the package's generated stub.
STUBTEST_ALLOWLIST = "aclnn.Stream\naclnn.Event\naclnn.sim\n"


def test_stub_matches_the_built_package(tmp_path):
    from tests.support import bindings_ir
    from tests.support.bindings_build import build_package

    package_dir = build_package()
    stub_dir = tmp_path / "stub"
    # The pages the session's package is built from (tests/support/bindings_build.py).
    emit_stub(stub_dir, *bindings_ir.seed_pages(), *bindings_ir.probe_pages(), semantics=seed_semantics())
    (tmp_path / "allowlist.txt").write_text(STUBTEST_ALLOWLIST)
    env = dict(os.environ, MYPYPATH=str(stub_dir), PYTHONPATH=str(package_dir), ACLNN_BACKEND="sim")
    result = subprocess.run([sys.executable, "-m", "mypy.stubtest", "aclnn", "--allowlist",
                             str(tmp_path / "allowlist.txt")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_api_of_many_tensor_inputs_has_a_bounded_number_of_overloads_that_still_type_every_call(tmp_path):
    # One overload per tensor input, each spelling every parameter, made the stub quadratic in the
    # parameters (issue 25: a page of 10,000 tensors never finished generating). Past the bound,
    # a last overload takes any input and returns a Tensor or an array: less precise, never wrong.
    inputs = stubs.MAX_PIVOT_OVERLOADS + 8
    api = make_api("aclnnWide", params=tuple(make_param(f"x{i}") for i in range(inputs))
                   + (make_param("out", direction=Direction.OUT),))
    sigs = stubs.signatures(build_model([make_page(api)]).apis[0])
    assert len(sigs) == stubs.MAX_PIVOT_OVERLOADS + 1
    emit_stub(tmp_path, make_page(api))

    def call(tensor_at: int) -> str:
        return "aclnn.wide(" + ", ".join("t" if i == tensor_at else "h" for i in range(inputs)) + ")"

    (tmp_path / "usage.py").write_text(
        "import numpy as np\nfrom numpy.typing import NDArray\nfrom typing import Any\nimport aclnn\n"
        "h = np.ones(2, np.float32)\nt = aclnn.to_device(h)\n"
        f"first: aclnn.Tensor = {call(0)}\n"
        f"late: aclnn.Tensor | NDArray[Any] = {call(inputs - 1)}\n"
        f"arrays: aclnn.Tensor | NDArray[Any] = {call(-1)}\n"
        f"wrong: aclnn.Tensor = {call(inputs - 1)}  # may be an array: refused\n")
    result = mypy("aclnn/__init__.pyi", "usage.py", cwd=tmp_path)
    errors = [line.split(": error:")[0] for line in result.stdout.splitlines() if ": error:" in line]
    assert errors == ["usage.py:10"], result.stdout
