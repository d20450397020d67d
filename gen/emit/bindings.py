"""generated/bindings/: the wrappers of the `aclnn._C` extension (CPython METH_FASTCALL functions).

One source per translation unit (`gen.model.translation_units`): `bindings/ops_<k>.cpp`
holds the wrappers of its APIs and a `register_ops_<k>(module)` function, and
`bindings/module.cpp` defines `register_wrappers(module)`, which calls every unit's register
function (the module's init, in runtime/binding/module.cpp, calls it). A wrapper is thin and
typed: it converts each argument with a method of `aclnn_binding::CallView`
(runtime/binding/wrapper.h, which includes no pybind11 header) and calls the API's first phase
through a pointer of the page's prototype; the runtime does the rest.

What a wrapper decides from the page is decided at generation time, by the Python-API layer
(`gen.api.python`: the signature, which dtype a Python number becomes for each aclScalar, how
each output is allocated when the caller passes no out=); this module spells it in C++.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import NamedTuple

from gen import families, names
from gen.api.docs import docstring
from gen.api.kinds import c_type, traits, value_type
from gen.api.python import PythonSignature, scalar_preference
from gen.cache import digest
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.ir import API, Direction, Param, ParamKind, ResultRule, ShapeForm
from gen.model import BoundAPI, Model, translation_units, unit_path

MODULE_SOURCE = "bindings/module.cpp"


# ---- the C++ of one wrapper -----------------------------------------------------------------------

def _cpp_list(items) -> str:
    return "{" + ", ".join(str(i) for i in items) + "}"


def absent_condition(api: API, param: Param) -> str:
    """The C++ condition, over the converted host arguments, under which the page says the output
    `param` is a null pointer (gen.ir.ShapeRule of form ABSENT: "如果isSymmetrical是true，offsetOut需要
    传nullptr"); "" where it says none."""
    terms = []
    for rule in api.shape_rules:
        if rule.param != param.name or rule.form is not ShapeForm.ABSENT:
            continue
        when = api.param(rule.when)
        var = "c_" + names.python_identifier(when.name)
        if when.kind is ParamKind.STRING:
            matches = [f"std::strcmp({var}, {json.dumps(v, ensure_ascii=False)}) == 0" for v in rule.values]
            matches = [f"({var} != nullptr && ({' || '.join(matches)}))"]
        elif all(v.lstrip("-").isdigit() for v in rule.values):
            matches = [f"static_cast<int64_t>({var}) == {v}" for v in rule.values]
        else:
            continue
        held = " || ".join(matches)
        terms.append(f"!({held})" if rule.negated else f"({held})")
    return " || ".join(terms)


def conversion(bound: BoundAPI, index: int) -> str:
    """The C++ expression that converts the parameter's Python argument (`KindTraits.call`)."""
    param = bound.api.params[index]
    if param.direction is Direction.OUT:
        if param.kind is ParamKind.TENSOR_LIST:
            return f"call.output_list({index})"
        absent = absent_condition(bound.api, param)
        if absent:
            # Where the page says the output is a null pointer, none is allocated: the caller's
            # array, if one is given, still goes to the library, which judges it.
            return f"({absent}) ? call.given_output({index}) : {_allocated_output(bound, index)}"
        return _allocated_output(bound, index)
    row = traits(param)
    method = row.call_inout if param.direction is Direction.INOUT and row.call_inout else row.call
    if row.call_templated:
        method += f"<{value_type(param)}>"
    return f"call.{method}({index}, py_{names.python_identifier(param.name)})"


def _allocated_output(bound: BoundAPI, index: int) -> str:
    """The C++ expression of an output the bindings allocate when the caller passes none."""
    plan = next((p for p in bound.output_plans if p.index == index), None)
    if plan is None or not plan.family_shape:
        return f"call.output({index})"
    # The arguments the family's rule reads, each by its name (aclnn_bindgen::RuleArgument).
    given = ", ".join(f"{{aclnn_bindgen::RuleArgument::{names.cpp_enumerator(name)}, "
                      f"py_{names.python_identifier(bound.api.params[k].name)}}}" for name, k in plan.rule_arguments)
    return f"call.output({index}, {{{given}}})" if given else f"call.output({index})"


@dataclass(frozen=True)
class Conversion:
    index: int
    var: str  # the C++ variable holding the converted argument
    cpp_type: str
    expr: str
    comment: str  # the page's name and C type


@dataclass(frozen=True)
class ParamView:
    name: str
    python_name: str
    scalar: str  # C++ initializer of the ScalarPreference


@dataclass(frozen=True)
class PlanView:
    index: int
    shape_from: str
    dtype_from: str
    dtype_must_be_documented: str
    documented: str
    required_reason: str  # a C string literal, or nullptr
    is_list: str
    result_rule: str  # an aclnn_bindgen::ResultRule enumerator (generated dtypes.h)
    comment: str
    family: str  # the trailing initializers of a family's plan (aclnn_bindgen::OutputShape, fixed dtype), or ""


@dataclass(frozen=True)
class Wrapper:
    """Everything the template needs for one API."""

    bound: BoundAPI
    function: str  # the C++ function
    spec: str  # the C++ ApiSpec object
    phase1_type: str
    c_types: tuple[str, ...]
    params: tuple[ParamView, ...]
    plans: tuple[PlanView, ...]
    returns: str
    signature: PythonSignature
    conversions: tuple[Conversion, ...]  # inputs in prototype order, then outputs
    call_args: tuple[str, ...]
    docstring: str


def _c_string(text: str) -> str:
    import json
    return json.dumps(text, ensure_ascii=False)


def wrapper(bound: BoundAPI) -> Wrapper:
    api = bound.api
    signature = bound.python_signature
    stem = names.python_function(api.name)
    params = []
    for p in api.params:
        pref = scalar_preference(p) if p.kind in (ParamKind.SCALAR, ParamKind.SCALAR_LIST) else None
        scalar = "{}" if pref is None else _cpp_list(_cpp_list(d.enumerator for d in group) for group in (
            pref.for_bool, pref.for_int, pref.for_float, pref.for_complex))
        params.append(ParamView(p.name, names.python_identifier(p.name), scalar))
    plans = []
    for plan in bound.output_plans:
        i, p = plan.index, plan.param
        reason = _c_string(plan.required_reason) if plan.required_reason else "nullptr"
        family = ""
        if plan.required_reason:
            comment = f"{p.name}: out= required ({plan.required_reason})"
        elif plan.family_shape:
            source = api.params[plan.shape_from[0]].name
            second = api.params[plan.shape_from[1]].name if len(plan.shape_from) > 1 else ""
            dims = api.params[plan.dims_from].name if plan.dims_from is not None else ""
            rule = families.OUTPUT_SHAPE[plan.family_shape].describe(
                source, second, dims, plan.spatial, api.params[plan.noop_from].name if plan.noop_from is not None else "")
            dtype = (plan.fixed_dtype.value if plan.fixed_dtype else
                     f"{api.params[plan.dtype_arg].name}, else {source}'s" if plan.dtype_arg is not None else f"{source}'s")
            comment = f"{p.name}: shape {rule}, dtype {dtype} (family {bound.semantics.family if bound.semantics else ''})"
            family = (f", aclnn_bindgen::OutputShape::{names.cpp_enumerator(plan.family_shape)}, "
                      f"{plan.fixed_dtype.enumerator if plan.fixed_dtype else 'ACL_DT_UNDEFINED'}"
                      + (f", {plan.spatial}" if plan.spatial else "")
                      + (", /*onnx_window=*/true" if plan.onnx_window else ""))
        else:
            shape = " x ".join(api.params[k].name for k in plan.shape_from)
            dtype = ", ".join(api.params[k].name for k in plan.dtype_from)
            comment = (f"{p.name}: shape of broadcast({shape}), dtype of promote({dtype})"
                       + (f", {plan.result_rule.value} result" if plan.result_rule is not ResultRule.PROMOTED else "")
                       + (" if documented" if plan.dtype_must_be_documented else ""))
        rule = names.cpp_enumerator(plan.result_rule.value)
        plans.append(PlanView(i, _cpp_list(plan.shape_from), _cpp_list(plan.dtype_from),
                              "true" if plan.dtype_must_be_documented else "false",
                              _cpp_list(d.enumerator for d in plan.documented), reason,
                              "true" if plan.is_list else "false", f"aclnn_bindgen::ResultRule::{rule}", comment, family))
    returns = _cpp_list(i for i, p in enumerate(api.params) if p.direction is not Direction.IN)
    order = [i for i, p in enumerate(api.params) if p.direction is not Direction.OUT]
    order += [i for i, p in enumerate(api.params) if p.direction is Direction.OUT]
    conversions = []
    for i in order:
        p = api.params[i]
        var = "c_" + names.python_identifier(p.name)
        ctype = c_type(p).replace("const ", "")  # the Call methods hand out mutable handles
        conversions.append(Conversion(i, var, ctype, conversion(bound, i), f"{p.name} ({p.c_type}, {p.direction.value})"))
    call_args = tuple("c_" + names.python_identifier(p.name) for p in api.params)
    return Wrapper(
        bound=bound, function=f"wrap_{stem}", spec=f"kSpec_{stem}", phase1_type=f"Phase1_{stem}",
        c_types=tuple(c_type(p) for p in api.params), params=tuple(params), plans=tuple(plans),
        returns=returns, signature=signature, conversions=tuple(conversions), call_args=call_args,
        docstring=f"{signature.text}\n--\n\n{docstring(bound)}",
    )


# ---- files --------------------------------------------------------------------------------------

def register_function(index: int) -> str:
    return f"register_ops_{index:03d}"


class WrapperText(NamedTuple):
    """One API's wrapper as its unit holds it, made again only when its API changed."""
    text: str
    python_name: str
    function: str


def wrapper_text(bound: BoundAPI) -> WrapperText:
    w = wrapper(bound)
    return WrapperText(render("bindings/wrapper.cpp.j2", w=w), bound.python_name, w.function)


def unit_text(index: int, count: int, unit: tuple[BoundAPI, ...], files: FileManager) -> str:
    wrappers = [files.fragment("binding wrapper", b.fingerprint, functools.partial(wrapper_text, b)) for b in unit]
    return render("bindings/ops.cpp.j2", index=index, count=count, register=register_function(index),
                  sources=sorted({b.page.source for b in unit}), wrappers=wrappers,
                  wrapper_texts=[w.text for w in wrappers])


def emit(model: Model, files: FileManager) -> None:
    taken: dict[str, str] = {}
    for bound in model.apis:
        if bound.python_name in taken:
            raise ValueError(f"{bound.name} and {taken[bound.python_name]} both become aclnn.{bound.python_name}")
        taken[bound.python_name] = bound.name
    units = translation_units(model.apis)
    for k, unit in enumerate(units):
        files.write_derived(unit_path("bindings", k), digest(str(k), str(len(units)), *(b.fingerprint for b in unit)),
                            functools.partial(unit_text, k, len(units), unit, files))
    # Keyed by what it is rendered from (the counts), not by every API's fingerprint.
    files.write_derived(MODULE_SOURCE, digest("units", str(len(units)), "apis", str(len(model.apis))), functools.partial(
        render, "bindings/module.cpp.j2", registers=[register_function(k) for k in range(len(units))],
        apis=len(model.apis)))
