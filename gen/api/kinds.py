"""What each parameter kind is in every language the generator writes: one row per kind.

A new kind of GetWorkspaceSize argument is one new row here (and its conversion in
runtime/binding, its accessor in runtime/sim): the bindings, the stubs, the docstrings, the
simulator's spec and the generated tests' values all read their spelling of it from `KINDS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional


def number(value: float) -> Any:
    """A number of a page's example as Python writes it: 2.0 as 2, 0.5 as 0.5."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


@dataclass(frozen=True)
class ExampleValue:
    """How a call's value of a host argument is written from the page's example (gen.emit.tests'
    base call, make corpus's): each number the example gives, converted; `default` when it gives
    none; `sequence`: the numbers are the elements; `names_dtype`: the example names a dtype."""

    convert: Callable[[float], Any] = number
    default: Any = None
    sequence: bool = False
    names_dtype: bool = False

from gen.ir import Param, ParamKind


def kind_of(param: Param) -> ParamKind:
    """The kind of a bound API's parameter: known, since an unknown one makes it unbindable."""
    assert param.kind is not None, f"{param.name}: a bound API's parameter has a known kind"
    return param.kind


@dataclass(frozen=True)
class KindTraits:
    # The C type in a phase-1 prototype, without const; None: the page spells it (INT, FLOAT).
    c_type: Optional[str]
    # The aclnn_binding::CallView method (runtime/binding/wrapper.h) that converts an argument; for
    # INT and FLOAT a template instantiated with the C type (`CallView::integer<int64_t>`).
    call: str
    # How the argument is passed from Python, in words (the docstrings).
    python_words: str
    # Its annotation in the stubs; None for device data, whose type depends on the overload.
    stub_type: Optional[str]
    # aclsim::ParamKind (runtime/sim/include/aclnn_sim/entry.h).
    sim_kind: str
    # How a semantics file's value check sees it: (C++ type of the local, accessor in entry.h).
    sim_check_view: tuple[str, str]
    # How an elementwise kernel functor holds it (scalars in the compute type T, attributes in
    # their C types); None: kernels cannot read it.
    sim_kernel_member: Optional[tuple[str, str]] = None
    # The Call method for an argument written in place (direction inout), where it differs.
    call_inout: Optional[str] = None
    call_templated: bool = False
    # The aclsim::Arg maker of an argument passed by value (entry.h; an unsigned INT is UIntArg);
    # pointers are PointerArgs.
    sim_arg: str = "PointerArg"
    # Several tensors in one argument (the stubs spell it as a sequence, a result as a list).
    is_list: bool = False
    # How a test writes its value from the page's example; None: the tests make it (tensors) or
    # only a page could say what it is (a string).
    example_value: Optional[ExampleValue] = None


KINDS: dict[ParamKind, KindTraits] = {
    ParamKind.TENSOR: KindTraits(
        "aclTensor*", "tensor", "array_like or aclnn.Tensor", None,
        "kTensor", ("const aclsim::TensorInfo&", "CallTensor"), call_inout="inout_tensor"),
    ParamKind.SCALAR: KindTraits(
        "aclScalar*", "scalar", "number", "_Scalar",
        "kScalar", ("const double", "CallScalar"), ("T", "CallScalarAs<T>"),
        example_value=ExampleValue(default=0.5)),
    ParamKind.INT_ARRAY: KindTraits(
        "aclIntArray*", "int_array", "sequence of int", "Sequence[int] | NDArray[np.integer[Any]]",
        "kIntArray", ("const aclsim::IntArrayInfo", "CallIntArray"),
        example_value=ExampleValue(int, (), sequence=True)),
    ParamKind.FLOAT_ARRAY: KindTraits(
        "aclFloatArray*", "float_array", "sequence of float", "Sequence[float] | NDArray[np.floating[Any]]",
        "kFloatArray", ("const aclsim::FloatArrayInfo", "CallFloatArray"),
        example_value=ExampleValue(number, (), sequence=True)),
    ParamKind.BOOL_ARRAY: KindTraits(
        "aclBoolArray*", "bool_array", "sequence of bool", "Sequence[bool] | NDArray[np.bool_]",
        "kBoolArray", ("const aclsim::BoolArrayInfo", "CallBoolArray"),
        example_value=ExampleValue(bool, (), sequence=True)),
    ParamKind.TENSOR_LIST: KindTraits(
        "aclTensorList*", "tensor_list", "list of array_like or aclnn.Tensor", None,
        "kTensorList", ("const aclsim::TensorListInfo", "CallTensorList"), call_inout="inout_tensor_list",
        is_list=True),
    ParamKind.SCALAR_LIST: KindTraits(
        "aclScalarList*", "scalar_list", "list of numbers", "Sequence[_Scalar]",
        "kScalarList", ("const aclsim::ScalarListInfo", "CallScalarList"),
        example_value=ExampleValue(number, (), sequence=True)),
    ParamKind.BOOL: KindTraits(
        "bool", "boolean", "bool", "bool",
        "kBool", ("const bool", "CallBool"), ("bool", "CallBool"), sim_arg="BoolArg",
        example_value=ExampleValue(bool, False)),
    ParamKind.INT: KindTraits(
        None, "integer", "int", "int",
        "kInt", ("const int64_t", "CallInt"), ("int64_t", "CallInt"), call_templated=True, sim_arg="IntArg",
        example_value=ExampleValue(int, 1)),
    ParamKind.FLOAT: KindTraits(
        None, "floating", "float", "float",
        "kFloat", ("const double", "CallFloat"), ("double", "CallFloat"), call_templated=True, sim_arg="FloatArg",
        example_value=ExampleValue(float, 0.5)),
    ParamKind.STRING: KindTraits(
        "char*", "string", "str", "str",
        "kString", ("const std::string_view", "CallString"), ("std::string_view", "CallString")),
    ParamKind.DTYPE: KindTraits(
        "aclDataType", "dtype", "numpy dtype or dtype name", "DTypeLike",
        "kDType", ("const aclDataType", "CallDType"), ("aclDataType", "CallDType"), sim_arg="DTypeArg",
        example_value=ExampleValue(names_dtype=True)),
}


def traits(param: Param) -> KindTraits:
    """The row of a bound API's parameter."""
    return KINDS[kind_of(param)]


def value_type(param: Param) -> str:
    """The C type of an int or float attribute as the page spells it, without const (int64_t,
    int32_t, double, ...)."""
    words = [w for w in param.c_type.replace("*", " ").split() if w != "const"]
    spelled = " ".join(words)
    if param.kind is ParamKind.FLOAT:
        return "float" if spelled == "float" else "double"
    return spelled or "int64_t"


def c_type(param: Param) -> str:
    """The parameter's type in the phase-1 prototype: the kind's C type, const where the page
    writes const on a pointer."""
    row = traits(param)
    if row.c_type is None:
        return value_type(param)
    pointer = param.kind is not None and param.kind.is_pointer
    const = "const " if pointer and param.c_type.replace(" ", "").startswith("const") else ""
    return const + row.c_type
