"""generated/bindings/: the pybind11 wrappers of the `aclnn._C` extension.

One source per translation unit (`gen.emit.model.translation_units`): `bindings/ops_<k>.cpp`
holds the wrappers of its APIs and a `register_ops_<k>(module)` function, and
`bindings/module.cpp` defines the module and calls every unit's register function. A wrapper is
thin and typed: it converts each argument with a method of `aclnn_binding::Call`
(runtime/binding/binding.h) and calls the API's first phase through a pointer of the page's
prototype; the runtime does the rest.

Everything a wrapper decides from the page is decided here, at generation time: the Python
signature (`python_params`), which dtype a Python number becomes for each aclScalar
(`scalar_preference`), and how each output is allocated when the caller passes no out=
(`output_plan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gen import names
from gen.emit import docs
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.emit.model import BoundAPI, Model, kind_of, translation_units, unit_path
from gen.ir import API, Direction, DType, Param, ParamKind, RelationKind

MODULE_SOURCE = "bindings/module.cpp"


# ---- the Python signature ------------------------------------------------------------------------

@dataclass(frozen=True)
class PythonParam:
    """One parameter of the generated Python function."""

    name: str  # python identifier (grad_output)
    param: Optional[Param]  # None for out=
    default: Optional[str]  # Python source of the default ("None"), or None when required
    keyword_only: bool = False


def python_params(bound: BoundAPI) -> tuple[PythonParam, ...]:
    """Inputs (in and inout) in prototype order, then the keyword-only `out=` when the API has
    direction-out parameters. An optional input defaults to None only when every later input is
    defaulted too; otherwise it stays required (and accepts None). Only pointer kinds default:
    None becomes NULL, which is what "optional" means for them; a bool, int, float or dtype
    attribute has no NULL, and inventing a value for it would be a guess the page did not make."""
    inputs = bound.api.inputs
    result: list[PythonParam] = []
    trailing_optional = True
    for param in reversed(inputs):
        trailing_optional = trailing_optional and param.optional and bool(param.kind and param.kind.is_pointer)
        result.append(PythonParam(names.python_identifier(param.name), param, "None" if trailing_optional else None))
    result.reverse()
    if out_params(bound.api):
        result.append(PythonParam("out", None, "None", keyword_only=True))
    return tuple(result)


def out_params(api: API) -> tuple[Param, ...]:
    """The parameters out= covers: direction out, in prototype order."""
    return tuple(p for p in api.params if p.direction is Direction.OUT)


def signature(bound: BoundAPI) -> str:
    """`leaky_relu_backward(grad_output, self, negative_slope, self_is_result, *, out=None)`."""
    parts: list[str] = []
    for p in python_params(bound):
        if p.keyword_only and "*" not in parts:
            parts.append("*")
        parts.append(p.name if p.default is None else f"{p.name}={p.default}")
    return f"{bound.python_name}({', '.join(parts)})"


# ---- scalars ------------------------------------------------------------------------------------

_INT_ORDER = (DType.INT64, DType.INT32, DType.INT16, DType.INT8, DType.UINT8, DType.UINT16, DType.UINT32,
              DType.UINT64)
_FLOAT_ORDER = (DType.DOUBLE, DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
_COMPLEX_ORDER = (DType.COMPLEX128, DType.COMPLEX64)


@dataclass(frozen=True)
class ScalarPreference:
    """The dtypes a Python bool/int/float/complex may become for an aclScalar, best first; at run
    time the first one that holds the value wins."""

    for_bool: tuple[DType, ...]
    for_int: tuple[DType, ...]
    for_float: tuple[DType, ...]
    for_complex: tuple[DType, ...]


def scalar_preference(param: Param) -> ScalarPreference:
    """From the dtypes the page documents for the parameter (all products): a Python float is
    DOUBLE if documented, else FLOAT, FLOAT16, BFLOAT16; an int the widest documented integer
    that holds it, else a documented float; a bool BOOL, else an integer, else a float. An
    empty list lets the runtime pass the natural dtype (BOOL, INT64, DOUBLE, COMPLEX128), which
    the library then accepts or rejects."""
    documented = set(param.documented_dtypes())

    def keep(order: tuple[DType, ...]) -> tuple[DType, ...]:
        return tuple(d for d in order if d in documented)

    return ScalarPreference(
        for_bool=keep((DType.BOOL,) + _INT_ORDER + _FLOAT_ORDER),
        for_int=keep(_INT_ORDER + _FLOAT_ORDER),
        for_float=keep(_FLOAT_ORDER),
        for_complex=keep(_COMPLEX_ORDER),
    )


# ---- outputs ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OutputPlan:
    """How an output is allocated when out= does not give it."""

    param: Param
    index: int  # in the prototype
    shape_from: tuple[int, ...] = ()  # broadcast of these inputs' shapes
    dtype_from: tuple[int, ...] = ()  # promotion of these inputs' dtypes
    # The page relates the dtype to no input: the promoted dtype is used only if documented.
    dtype_must_be_documented: bool = False
    documented: tuple[DType, ...] = ()
    required_reason: Optional[str] = None  # out= is required, because...
    is_list: bool = False


def output_plan(api: API, index: int) -> OutputPlan:
    """Shape: the broadcast of the tensor inputs the page ties the output's shape to, directly or
    through others (`API.shape_group`: usage notes and error rows, "gradOutput、self和out的shape
    不相同"). Dtype: the promotion of the inputs its notes relate its dtype to (SAME_DTYPE,
    PROMOTE, CAST_FROM), else the promotion of every tensor input, used only when the output's
    documented dtypes contain it. When the page says nothing to derive a shape from, out= is
    required."""
    param = api.params[index]
    if param.kind is ParamKind.TENSOR_LIST:
        return OutputPlan(param, index, required_reason="the page does not state the shapes of an output list",
                          is_list=True)
    inputs = {p.name: i for i, p in enumerate(api.params)
              if p.kind is ParamKind.TENSOR and p.direction is not Direction.OUT}
    shape_from = tuple(inputs[n] for n in api.shape_group(param.name) if n in inputs)
    if not shape_from:
        return OutputPlan(param, index, required_reason=f"the page does not say how the shape of {param.name} "
                                                        "follows from the inputs")
    dtype_names = (param.related(RelationKind.SAME_DTYPE) + param.related(RelationKind.PROMOTE)
                   + param.related(RelationKind.CAST_FROM))
    dtype_from = tuple(dict.fromkeys(inputs[n] for n in dtype_names if n in inputs))
    if dtype_from:
        return OutputPlan(param, index, shape_from=shape_from, dtype_from=dtype_from, documented=param.dtypes)
    if not param.dtypes:
        return OutputPlan(param, index, required_reason=f"the page neither documents the dtypes of {param.name} "
                                                        "nor relates them to an input")
    return OutputPlan(param, index, shape_from=shape_from, dtype_from=tuple(inputs.values()),
                      dtype_must_be_documented=True, documented=param.dtypes)


# ---- the C++ of one wrapper -----------------------------------------------------------------------

def _cpp_list(items) -> str:
    return "{" + ", ".join(str(i) for i in items) + "}"


def cpp_type(param: Param) -> str:
    """The parameter's type in the phase-1 prototype, from its kind and the page's C spelling."""
    const = "const " if param.c_type.replace(" ", "").startswith("const") else ""
    base = {
        ParamKind.TENSOR: "aclTensor", ParamKind.SCALAR: "aclScalar", ParamKind.INT_ARRAY: "aclIntArray",
        ParamKind.FLOAT_ARRAY: "aclFloatArray", ParamKind.BOOL_ARRAY: "aclBoolArray",
        ParamKind.TENSOR_LIST: "aclTensorList", ParamKind.SCALAR_LIST: "aclScalarList", ParamKind.STRING: "char",
    }.get(kind_of(param))
    if base is not None:
        return f"{const}{base}*"
    if param.kind is ParamKind.BOOL:
        return "bool"
    if param.kind is ParamKind.DTYPE:
        return "aclDataType"
    return value_type(param)


def value_type(param: Param) -> str:
    """The C type of an int or float attribute, without const (int64_t, int32_t, double, ...)."""
    words = [w for w in param.c_type.replace("*", " ").split() if w != "const"]
    spelled = " ".join(words)
    if param.kind is ParamKind.FLOAT:
        return "float" if spelled == "float" else "double"
    return spelled or "int64_t"


def conversion(bound: BoundAPI, index: int) -> str:
    """The C++ expression that converts the parameter's Python argument."""
    param = bound.api.params[index]
    arg = "py_" + names.python_identifier(param.name)
    kind, inout = param.kind, param.direction is Direction.INOUT
    if param.direction is Direction.OUT:
        return f"call.output_list({index})" if kind is ParamKind.TENSOR_LIST else f"call.output({index})"
    simple = {
        ParamKind.TENSOR: "inout_tensor" if inout else "tensor",
        ParamKind.TENSOR_LIST: "inout_tensor_list" if inout else "tensor_list",
        ParamKind.SCALAR: "scalar", ParamKind.SCALAR_LIST: "scalar_list", ParamKind.INT_ARRAY: "int_array",
        ParamKind.FLOAT_ARRAY: "float_array", ParamKind.BOOL_ARRAY: "bool_array", ParamKind.BOOL: "boolean",
        ParamKind.STRING: "string", ParamKind.DTYPE: "dtype",
    }
    if kind in simple:
        return f"call.{simple[kind]}({index}, {arg})"
    if kind is ParamKind.INT:
        return f"call.integer<{value_type(param)}>({index}, {arg})"
    if kind is ParamKind.FLOAT:
        return f"call.floating<{value_type(param)}>({index}, {arg})"
    raise ValueError(f"{bound.name}: no conversion for {param.name} ({param.c_type})")


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
    comment: str


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
    py_params: tuple[PythonParam, ...]
    conversions: tuple[Conversion, ...]  # inputs in prototype order, then outputs
    call_args: tuple[str, ...]
    docstring: str


def _c_string(text: str) -> str:
    import json
    return json.dumps(text, ensure_ascii=False)


def wrapper(bound: BoundAPI) -> Wrapper:
    api = bound.api
    stem = names.python_function(api.name)
    params = []
    for p in api.params:
        pref = scalar_preference(p) if p.kind in (ParamKind.SCALAR, ParamKind.SCALAR_LIST) else None
        scalar = "{}" if pref is None else _cpp_list(_cpp_list(d.enumerator for d in group) for group in (
            pref.for_bool, pref.for_int, pref.for_float, pref.for_complex))
        params.append(ParamView(p.name, names.python_identifier(p.name), scalar))
    plans = []
    for i, p in enumerate(api.params):
        if p.direction is not Direction.OUT:
            continue
        plan = output_plan(api, i)
        reason = _c_string(plan.required_reason) if plan.required_reason else "nullptr"
        if plan.required_reason:
            comment = f"{p.name}: out= required ({plan.required_reason})"
        else:
            shape = " x ".join(api.params[k].name for k in plan.shape_from)
            dtype = ", ".join(api.params[k].name for k in plan.dtype_from)
            comment = (f"{p.name}: shape of broadcast({shape}), dtype of promote({dtype})"
                       + (" if documented" if plan.dtype_must_be_documented else ""))
        plans.append(PlanView(i, _cpp_list(plan.shape_from), _cpp_list(plan.dtype_from),
                              "true" if plan.dtype_must_be_documented else "false",
                              _cpp_list(d.enumerator for d in plan.documented), reason,
                              "true" if plan.is_list else "false", comment))
    returns = _cpp_list(i for i, p in enumerate(api.params) if p.direction is not Direction.IN)
    order = [i for i, p in enumerate(api.params) if p.direction is not Direction.OUT]
    order += [i for i, p in enumerate(api.params) if p.direction is Direction.OUT]
    conversions = []
    for i in order:
        p = api.params[i]
        var = "c_" + names.python_identifier(p.name)
        ctype = cpp_type(p).replace("const ", "")  # the Call methods hand out mutable handles
        conversions.append(Conversion(i, var, ctype, conversion(bound, i), f"{p.name} ({p.c_type}, {p.direction.value})"))
    call_args = tuple("c_" + names.python_identifier(p.name) for p in api.params)
    return Wrapper(
        bound=bound, function=f"wrap_{stem}", spec=f"kSpec_{stem}", phase1_type=f"Phase1_{stem}",
        c_types=tuple(cpp_type(p) for p in api.params), params=tuple(params), plans=tuple(plans),
        returns=returns, py_params=python_params(bound), conversions=tuple(conversions), call_args=call_args,
        docstring=f"{signature(bound)}\n--\n\n{docs.docstring(bound)}",
    )


# ---- files --------------------------------------------------------------------------------------

def register_function(index: int) -> str:
    return f"register_ops_{index:03d}"


def emit(model: Model, files: FileManager) -> None:
    taken: dict[str, str] = {}
    for bound in model.apis:
        if bound.python_name in taken:
            raise ValueError(f"{bound.name} and {taken[bound.python_name]} both become aclnn.{bound.python_name}")
        taken[bound.python_name] = bound.name
    units = translation_units(model.apis)
    for k, unit in enumerate(units):
        files.write(unit_path("bindings", k), render(
            "bindings/ops.cpp.j2", index=k, count=len(units), register=register_function(k),
            sources=sorted({b.page.source for b in unit}), wrappers=[wrapper(b) for b in unit]))
    files.write(MODULE_SOURCE, render(
        "bindings/module.cpp.j2", registers=[register_function(k) for k in range(len(units))],
        apis=len(model.apis)))
