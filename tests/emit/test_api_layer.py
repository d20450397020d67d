"""gen/api/: the Python API decided once, and read by every emitter without one importing another."""

from __future__ import annotations

import ast
from pathlib import Path

from gen.api.kinds import KINDS, c_type
from gen.api.python import python_signature
from gen.emit import bindings
from gen.ir import Direction, ParamKind
from gen.model import build_model
from tests.support.factories import make_api, make_page, make_param

EMIT = Path(__file__).resolve().parents[2] / "gen" / "emit"
# What every emitter may lean on: the Jinja environment and the file writer.
SHARED = {"gen.emit.env", "gen.emit.files"}


def bound_of(*params):
    return build_model([make_page(make_api(params=params))]).apis[0]


def test_every_parameter_kind_has_one_row():
    assert set(KINDS) == set(ParamKind)
    assert all((row.c_type or "").endswith("*") for kind, row in KINDS.items() if kind.is_pointer)
    assert len({row.sim_kind for row in KINDS.values()}) == len(ParamKind)
    # Passed by value exactly when not a pointer; a list is device data; tests write every host
    # value but a string's.
    assert all((row.sim_arg == "PointerArg") == kind.is_pointer for kind, row in KINDS.items())
    assert all(not row.is_list or kind.is_device_data for kind, row in KINDS.items())
    assert {kind for kind, row in KINDS.items() if row.example_value is None} == {
        ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.STRING}


def test_c_type_keeps_the_pages_const_on_pointers_only():
    assert c_type(make_param("x")) == "const aclTensor*"
    assert c_type(make_param("out", direction=Direction.OUT)) == "aclTensor*"
    assert c_type(make_param("flag", kind=ParamKind.BOOL, c_type="const bool")) == "bool"
    assert c_type(make_param("n", kind=ParamKind.INT, c_type="const int32_t")) == "int32_t"


def test_the_signature_object_says_what_out_covers_and_what_may_be_left_out():
    signature = python_signature(bound_of(
        make_param("self"), make_param("bias", optional=True), make_param("out", direction=Direction.OUT)))
    assert signature.text == "foo(self, bias=None, *, out=None)"
    assert [p.name for p in signature.outs] == ["out"] and signature.defaulted == {"bias"}
    assert [p.name for p in signature.params] == ["self", "bias", "out"] and signature.params[-1].keyword_only


def test_the_signature_object_types_its_parameters_and_says_which_take_none():
    signature = python_signature(bound_of(
        make_param("self"), make_param("bias", optional=True), make_param("alpha", kind=ParamKind.FLOAT),
        make_param("out", direction=Direction.OUT)))
    tensor, bias, alpha, out = signature.params
    assert (tensor.type, tensor.nullable) == ("", False)  # device data: the stubs' overload types it
    # bias takes None though it has no default (alpha after it is required)
    assert bias.default is None and bias.nullable and bias.annotated("Tensor") == "Tensor | None"
    assert bias.described == "array_like or aclnn.Tensor or None"
    assert (alpha.annotated(alpha.type), alpha.described) == ("float", "float")
    assert out.param is None and out.nullable and out.keyword_only
    assert [p.name for p in signature.inputs] == ["self", "bias", "alpha"]
    assert [p.param.name for p in signature.returns] == ["out"]


def test_the_bindings_register_the_signature_objects_parameters():
    bound = bound_of(make_param("self"), make_param("bias", optional=True), make_param("out", direction=Direction.OUT))
    wrapper = bindings.wrapper(bound)
    assert wrapper.signature == python_signature(bound)
    assert wrapper.docstring.startswith(python_signature(bound).text + "\n--\n\n")


def test_no_emitter_imports_another_emitter():
    found = {}
    for path in sorted(EMIT.rglob("*.py")):
        # An emitter is a module of gen/emit/ or a package there (gen/emit/tests/), whose modules import each other.
        emitter = "gen.emit." + path.relative_to(EMIT).parts[0].removesuffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "gen.emit":  # from gen.emit import tests
                imported |= {f"gen.emit.{a.name}" for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        others = {m for m in imported if m.startswith("gen.emit.") and m not in SHARED
                  and m != emitter and not m.startswith(emitter + ".")}
        if others:
            found[str(path.relative_to(EMIT))] = sorted(others)
    assert found == {}


def test_the_packages_runtime_names_are_defined_where_the_table_says():
    """Each hand-written module defines the names the package imports from it, and the stub
    declares the extension's (the table gen/api/exports.py is the one list both files render)."""
    from gen.api import exports
    from gen.emit import stubs

    runtime = Path(__file__).resolve().parents[2] / "runtime" / "python"
    for module, names in exports.python_exports():
        tree = ast.parse((runtime / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        defined = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
        assert set(names) <= defined, module
    stub = ast.parse((Path(__file__).resolve().parents[2] / "generated" / stubs.STUB).read_text(encoding="utf-8"))
    declared = {node.name for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    assert set(dict(exports.RUNTIME_EXPORTS)[exports.EXTENSION]) <= declared
    assert exports.public_names(["abs"])[-1] == "abs" and "Tensor" in exports.public_names([])
