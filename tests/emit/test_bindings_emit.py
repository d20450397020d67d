"""gen/emit/bindings.py, package.py, gen/api/python.py and docs.py: what the generator decides from the IR, without a
compiler."""

import json
from dataclasses import replace

from gen.api import docs
from gen.api.python import output_plan, python_signature, scalar_preference
from gen.emit import bindings, package
from gen.emit.files import FileManager
from gen.model import APIS_PER_UNIT, build_model
from gen.ir import Direction, DType, ErrorCase, ErrorCategory, ParamKind, Relation, RelationKind
from gen.parse.extractors.relations import with_error_table_relations
from tests.support.bindings_ir import leaky_relu_backward
from tests.support.factories import make_api, make_page, make_param


def bound_of(api):
    return build_model([make_page(api)]).apis[0]


def seed():
    return build_model([leaky_relu_backward()]).apis[0]


def test_signature_has_inputs_in_prototype_order_and_keyword_only_out():
    assert python_signature(seed()).text == \
        "leaky_relu_backward(grad_output, self, negative_slope, self_is_result, *, out=None)"


def test_optional_input_defaults_to_none_only_when_every_later_input_does():
    api = make_api(params=(make_param("a", optional=True), make_param("b"), make_param("c", optional=True),
                           make_param("out", direction=Direction.OUT)))
    assert python_signature(bound_of(api)).text == "foo(a, b, c=None, *, out=None)"


def test_optional_value_attributes_get_no_default():
    api = make_api(params=(make_param("x"), make_param("eps", kind=ParamKind.FLOAT, optional=True),
                           make_param("bias", optional=True)))
    assert python_signature(bound_of(api)).text == "foo(x, eps, bias=None)"


def test_inplace_api_has_no_out_keyword():
    api = make_api(params=(make_param("selfRef", direction=Direction.INOUT, c_type="aclTensor*"),
                           make_param("value", kind=ParamKind.SCALAR)))
    assert python_signature(bound_of(api)).text == "foo(self_ref, value)"


def test_python_float_becomes_double_when_documented_else_float():
    with_double = make_param("alpha", kind=ParamKind.SCALAR, dtypes=(DType.FLOAT, DType.DOUBLE, DType.INT64))
    assert scalar_preference(with_double).for_float == (DType.DOUBLE, DType.FLOAT)
    without = replace(with_double, dtypes=(DType.FLOAT16, DType.FLOAT))
    assert scalar_preference(without).for_float == (DType.FLOAT, DType.FLOAT16)
    assert scalar_preference(with_double).for_int == (DType.INT64, DType.DOUBLE, DType.FLOAT)


def test_output_shape_and_dtype_follow_the_relations():
    plan = output_plan(seed().api, 4)
    assert (plan.shape_from, plan.dtype_from, plan.required_reason) == ((0, 1), (0, 1), None)
    assert not plan.dtype_must_be_documented


def test_output_shape_falls_back_to_the_error_table():
    # The parser folds the row into the relations (gen.parse.extractors.relations); the plan reads those.
    errors = (ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "x和y的shape不一致", ErrorCategory.SHAPE_MISMATCH, ("x", "y")),)
    api = make_api(params=with_error_table_relations((make_param("x"), make_param("y", direction=Direction.OUT)), errors),
                   errors=errors)
    plan = output_plan(api, 1)
    assert plan.shape_from == (0,) and plan.dtype_must_be_documented and plan.documented == api.params[1].dtypes


def test_output_without_any_shape_statement_requires_out():
    api = make_api(params=(make_param("x"), make_param("y", direction=Direction.OUT)))
    assert "shape of y" in output_plan(api, 1).required_reason


def test_output_relation_naming_a_scalar_is_ignored():
    api = make_api(params=(make_param("x"), make_param("s", kind=ParamKind.SCALAR),
                           make_param("y", direction=Direction.OUT,
                                      relations=(Relation(RelationKind.SAME_SHAPE, ("s", "x")),))))
    assert output_plan(api, 2).shape_from == (0,)


def test_every_translation_unit_gets_a_file_and_the_module_registers_each(tmp_path):
    apis = [make_api(f"aclnnOp{i}") for i in range(APIS_PER_UNIT + 1)]
    model = build_model([make_page(a, source=f"p{i}.md") for i, a in enumerate(apis)])
    files = FileManager(tmp_path)
    bindings.emit(model, files)
    units = sorted(p for p in files.written if p.startswith("bindings/ops_"))
    assert units == ["bindings/ops_000.cpp", "bindings/ops_001.cpp"]
    module = files.written["bindings/module.cpp"]
    assert "  register_ops_000(module);\n  register_ops_001(module);\n" in module
    assert sum(files.written[u].count("METH_FASTCALL | METH_KEYWORDS") for u in units) == len(apis)
    # The generated units include the runtime's slim header alone (runtime/binding/wrapper.h): pybind11 in
    # a unit costs its compile seconds whatever the unit holds.
    for path in [*units, "bindings/module.cpp"]:
        assert '#include "wrapper.h"' in files.written[path] and "pybind11" not in files.written[path]


def test_wrapper_source_names_its_pages_and_template_and_is_deterministic(tmp_path):
    model = build_model([leaky_relu_backward()])
    first, second = FileManager(tmp_path / "a"), FileManager(tmp_path / "b")
    bindings.emit(model, first)
    bindings.emit(model, second)
    text = first.written["bindings/ops_000.cpp"]
    assert text == second.written["bindings/ops_000.cpp"]
    assert text.startswith("// Generated by aclnn-bindgen from op_docs/leaky_relu_backward.md (bindings/ops.cpp.j2)")
    assert "const aclScalar*,\n    bool,\n    aclTensor*,\n    uint64_t*, aclOpExecutor**);" in text
    # The Python signature the wrapper parses: four positional parameters, all required; out= keyword-only.
    assert '{"grad_output", "self", "negative_slope", "self_is_result", "out"},\n    4,\n    4,' in text


def test_int_attribute_converts_with_its_c_type():
    api = make_api(params=(make_param("x"), make_param("dim", kind=ParamKind.INT, c_type="int32_t"),
                           make_param("y", direction=Direction.OUT)))
    assert bindings.conversion(bound_of(api), 1) == "call.integer<int32_t>(1, py_dim)"


def test_package_files_and_apis_json(tmp_path):
    files = FileManager(tmp_path)
    package.emit(build_model([leaky_relu_backward()]), files)
    assert set(files.written) == {"aclnn/__init__.py", "aclnn/_errors.py", "aclnn/_runtime.py", "aclnn/sim.py", "aclnn/_apis.json",
                                  "aclnn/py.typed", "pyproject.toml"}
    init = files.written["aclnn/__init__.py"]
    assert init.startswith("# Generated by aclnn-bindgen from 1 page (package/__init__.py.j2)")
    assert "    leaky_relu_backward,\n" in init
    record = json.loads(files.written["aclnn/_apis.json"])["apis"][0]
    assert record["python_name"] == "leaky_relu_backward" and record["params"][2]["name"] == "negativeSlope"
    assert 'cmake.source-dir = ".."' in files.written["pyproject.toml"]


def test_docstring_carries_the_page():
    text = docs.docstring(seed())
    assert "Runs aclnnLeakyReluBackward" in text
    assert "dtypes FLOAT, FLOAT16, BFLOAT16, DOUBLE; rank 0-8; formats ND" in text
    assert "161002 ACLNN_ERR_PARAM_INVALID: selfIsResult为true时，negativeSlope是负数。" in text
    assert "selfIsResult为true时，negativeSlope不可以是负数。" in text  # usage notes
    assert "Source: op_docs/leaky_relu_backward.md:29" in text


def test_docstring_shows_the_formula_once():
    formula = "$$\nout = |self|\n$$"
    in_description = build_model([make_page(make_api(formula=formula), description=f"计算公式：\n{formula}")]).apis[0]
    assert docs.docstring(in_description).count("out = |self|") == 1
    assert "Formula::" not in docs.docstring(in_description)
    alone = build_model([make_page(make_api(formula=formula), description="算子功能：绝对值。")]).apis[0]
    assert docs.docstring(alone).count("out = |self|") == 1 and "Formula::" in docs.docstring(alone)


def test_formulas_the_description_shows_between_sentences_are_not_repeated():
    """aclnnSlice: three display formulas, sentences between them; the formula joins the three."""
    first, second = "$$\nstart = min(start, N)\n$$", "$$\nend = min(end, N)\n$$"
    bound = build_model([make_page(make_api(formula=f"{first}\n{second}"),
                                   description=f"假设N为长度：\n{first}\n转换后：\n{second}")]).apis[0]
    assert "Formula::" not in docs.docstring(bound)
    partly = build_model([make_page(make_api(formula=f"{first}\n{second}"), description=f"假设：\n{first}")]).apis[0]
    assert "Formula::" in docs.docstring(partly)
