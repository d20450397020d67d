"""generated/aclnn/__init__.pyi: the typed interface of the aclnn package (PEP 561 stubs).

Every bound API becomes a function with the signature the bindings implement
(`gen.api.python.python_signature`: inputs positional in prototype order, `out=` keyword-only,
trailing optional inputs defaulting to None) and the page's docstring (`gen.api.docs`).

Types follow the bindings' conversions (runtime/binding/arguments.cpp): tensors take anything NumPy
can make an array of, objects with `__dlpack__` and `aclnn.Tensor`; when some tensor input is
an `aclnn.Tensor` the outputs are Tensors (they stay on the device), otherwise NumPy arrays. That
rule is spelled as overloads: one per tensor input that is a Tensor (returning Tensors), then one
for host inputs (returning arrays). The rest of the package's names (Tensor, errors, backend(),
...) are static and live in the template.

`aclnn/py.typed` is written by the package emitter (gen/emit/package.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from gen.api import exports
from gen.api.docs import docstring
from gen.api.kinds import KINDS
from gen.api.python import PythonParam, PythonSignature, parameter_list, python_signature
from gen.cache import digest
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.ir import API, Direction, Param
from gen.model import BoundAPI, Model

STUB = "aclnn/__init__.pyi"

# Where the tensors of a call live, which decides what the outputs are. EITHER: the signature
# cannot tell (the last overload of an API of many tensor inputs, see MAX_PIVOT_OVERLOADS).
HOST, DEVICE, EITHER = "host", "device", "either"


@dataclass(frozen=True)
class StubParam:
    name: str
    annotation: str
    default: Optional[str]  # Python source of the default, or None when required
    keyword_only: bool = False

    @property
    def source(self) -> str:
        return f"{self.name}: {self.annotation}" + ("" if self.default is None else f" = {self.default}")


@dataclass(frozen=True)
class StubSignature:
    params: tuple[StubParam, ...]
    returns: str

    @property
    def parameters(self) -> str:
        return parameter_list((p.source, p.keyword_only) for p in self.params)


@dataclass(frozen=True)
class StubFunction:
    name: str
    api: str
    source: str  # page:line
    signatures: tuple[StubSignature, ...]  # more than one: overloads, in the order mypy tries them
    docstring: str  # a Python string literal

    @property
    def overloaded(self) -> bool:
        return len(self.signatures) > 1


def inout_vars(api: API) -> dict[str, str]:
    """The TypeVar of each in-place parameter (constrained to NDArray[Any] and Tensor): the
    caller's own object comes back, so the result has the argument's type."""
    inouts = [p for p in api.params if p.direction is Direction.INOUT and p.kind is not None and p.kind.is_device_data]
    return {p.name: f"_InOut{k}" for k, p in enumerate(inouts, start=1)}


def input_annotation(param: PythonParam, mode: str, pivot: bool, typevar: str = "") -> str:
    """The type of an input. `mode` is HOST (no tensor input is an aclnn.Tensor) or DEVICE; in
    DEVICE mode, `pivot` marks the input whose being a Tensor selects the overload. `typevar`:
    an in-place parameter's TypeVar. None is accepted where the signature says so, except by the
    pivot of a Tensor overload: a None there is no Tensor."""
    page = param.param
    assert page is not None, "out= is annotated by out_annotation"
    if page.kind is None or not page.kind.is_device_data:
        return param.annotated(param.type)
    if page.direction is Direction.INOUT:  # written in place: writeable arrays or Tensors
        member = "Tensor" if pivot else ("NDArray[Any]" if mode == HOST else typevar)
    else:
        member = "Tensor" if pivot else ("_HostArray" if mode == HOST else "_TensorLike")
    annotation = f"Sequence[{member}]" if KINDS[page.kind].is_list else member
    return annotation if pivot else param.annotated(annotation)


def output_annotation(param: Param, mode: str, pivot: bool, typevar: str = "") -> str:
    """What the function returns for one of its outputs (direction out or inout)."""
    array = {DEVICE: "Tensor", HOST: "NDArray[Any]", EITHER: "Tensor | NDArray[Any]"}[mode]
    if param.direction is Direction.INOUT and mode != HOST and not pivot:
        array = typevar  # the caller's own object
    return f"list[{array}]" if _is_list(param) else array


def _is_list(param: Param) -> bool:
    return param.kind is not None and KINDS[param.kind].is_list


def out_annotation(outs: tuple[Param, ...]) -> str:
    """out=: one array (or list, for a tensor-list output), or a tuple in output order, whose
    members may be None (allocated); without the `| None` of out= itself (the signature's)."""
    def one(p: Param) -> str:
        return "Sequence[_OutArray]" if _is_list(p) else "_OutArray"

    if len(outs) == 1:
        return one(outs[0])
    return "tuple[" + ", ".join(f"{one(p)} | None" for p in outs) + "]"


# Builtins the annotations name; a function of the same name (aclnn.complex) would shadow them.
BUILTIN_TYPES = ("bool", "int", "float", "complex", "str", "list", "tuple", "dict")


def qualify(annotation: str, shadowed: frozenset[str]) -> str:
    """`annotation` with the builtins that a generated function shadows written as builtins.<name>."""
    if not shadowed:
        return annotation
    pattern = r"(?<![\w.])(" + "|".join(sorted(shadowed)) + r")\b"
    return re.sub(pattern, r"builtins.\1", annotation)


def _signature(bound: BoundAPI, signature: PythonSignature, mode: str, pivot: Optional[Param],
               shadowed: frozenset[str]) -> StubSignature:
    api, params, outs = bound.api, signature.params, signature.outs
    typevars = inout_vars(api)
    # The pivot of a Tensor overload must be passed (an omitted one is None, not a Tensor), and
    # so must every parameter before it: a required parameter cannot follow a defaulted one.
    pivot_at = next((i for i, p in enumerate(params) if pivot is not None and p.param is pivot), -1)
    stub_params = []
    for i, p in enumerate(params):
        if p.param is None:  # out=
            stub_params.append(StubParam(p.name, p.annotated(out_annotation(outs)), p.default, keyword_only=True))
        else:
            default = None if i <= pivot_at else p.default
            annotation = input_annotation(p, mode, p.param is pivot, typevars.get(p.param.name, ""))
            stub_params.append(StubParam(p.name, qualify(annotation, shadowed), default))
    results = [output_annotation(p, mode, p is pivot, typevars.get(p.name, "")) for p in api.outputs]
    if not results:
        returns = "None"
    elif len(results) == 1:
        returns = results[0]
    else:
        returns = "tuple[" + ", ".join(results) + "]"
    return StubSignature(tuple(stub_params), qualify(returns, shadowed))


# Overloads with a Tensor pivot, at most: each spells every parameter, so one per tensor input
# would make the stub quadratic in the parameters (a page of 10,000 tensors: 10^8 annotations,
# issue 25). The corpus's widest API has 25 tensor inputs.
MAX_PIVOT_OVERLOADS = 32


def signatures(bound: BoundAPI, shadowed: frozenset[str] = frozenset()) -> tuple[StubSignature, ...]:
    """One signature per tensor input that may be an aclnn.Tensor (allocated outputs are Tensors),
    then the host signature (they are arrays); a single signature when nothing is allocated.

    Past MAX_PIVOT_OVERLOADS tensor inputs, the pivots of the first ones, then one that takes a
    Tensor or an array for every input and returns either: a Tensor is ArrayLike (it has
    __array__), so a host signature would also match a Tensor among the later inputs and type its
    Tensor outputs as arrays. Less precise, never wrong."""
    signature = python_signature(bound)
    device_inputs = tuple(p for p in bound.api.inputs if p.kind is not None and p.kind.is_device_data)
    host = _signature(bound, signature, HOST, None, shadowed)
    if not device_inputs or not signature.outs:
        # Nothing is allocated: in-place arguments come back as given, whatever the others are.
        return (_signature(bound, signature, DEVICE, None, shadowed),) if device_inputs else (host,)
    pivots = tuple(_signature(bound, signature, DEVICE, pivot, shadowed)
                   for pivot in device_inputs[:MAX_PIVOT_OVERLOADS])
    if len(device_inputs) <= MAX_PIVOT_OVERLOADS:
        return pivots + (host,)
    return pivots + (_signature(bound, signature, EITHER, None, shadowed),)


def docstring_literal(text: str, indent: str = "    ") -> str:
    """`text` as a triple-quoted Python string literal, indented as a function body."""
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip("\n")
    lines = escaped.splitlines()
    body = "\n".join((indent + line).rstrip() if line.strip() else "" for line in lines)
    return f'"""{body.lstrip()}\n{indent}"""'


def stub_function(bound: BoundAPI, shadowed: frozenset[str] = frozenset()) -> StubFunction:
    source = f"{bound.page.source}:{bound.api.line}" if bound.api.line else bound.page.source
    return StubFunction(name=bound.python_name, api=bound.name, source=source,
                        signatures=signatures(bound, shadowed), docstring=docstring_literal(docstring(bound)))


def stub_text(bound: BoundAPI, shadowed: frozenset[str]) -> bytes:
    """One operator's part of the stub, in UTF-8: made again only when its API changed."""
    return render("stubs/function.pyi.j2", f=stub_function(bound, shadowed)).encode("utf-8")


# Where the operators go in the rendered frame of the stub (`stub_file`): a string no function
# text or name holds (NUL).
_FUNCTIONS_HERE = "\0the operators\0"


def stub_file(model: Model, files: FileManager) -> bytes:
    """The stub in UTF-8: the template's frame around the operators' parts, joined as bytes (3.6 MB
    for op_docs/, which rendered as text, then encoded whole, was a twentieth of a run after one
    page changed)."""
    shadowed = frozenset(BUILTIN_TYPES) & {b.python_name for b in model.apis}
    functions = [files.fragment("stub text", digest(b.fingerprint, *sorted(shadowed)) if shadowed else b.fingerprint,
                                functools.partial(stub_text, b, shadowed)) for b in model.apis]
    sources = sorted({b.page.source for b in model.apis})
    typevars = max((len(inout_vars(b.api)) for b in model.apis), default=0)
    builtin = {name: f"builtins.{name}" if name in shadowed else name for name in BUILTIN_TYPES}
    frame = render("stubs/__init__.pyi.j2", functions=[_FUNCTIONS_HERE], sources=sources,
                   inout_typevars=[f"_InOut{k}" for k in range(1, typevars + 1)], b=builtin,
                   python_exports=exports.python_exports(),
                   public_names=exports.public_names(b.python_name for b in model.apis))
    before, after = frame.split(_FUNCTIONS_HERE)
    return b"".join([before.encode("utf-8"), *functions, after.encode("utf-8")])


def emit(model: Model, files: FileManager) -> None:
    files.write_derived(STUB, model.apis_fingerprint, functools.partial(stub_file, model, files))
