"""What the generated suites share: the description of an op and of a call, data, the golden
reference, CANN's tolerances, and the checks.

Each `test_<op>.py` holds plain data computed from the op's page and semantics file when the
suite was generated (which dtypes, ranks, shapes, layouts and error calls); this module turns a
`Case` into a call of `aclnn.<op>` on the active backend (the simulator, or CANN on an NPU) and
checks it: against the PyTorch golden reference for valid calls, against the page's status for
error-table rows. Nothing here assumes the simulator, except where marked.
"""

from __future__ import annotations

import math
import os
import re
import zlib
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Optional

import ml_dtypes
import numpy as np
import pytest

import aclnn
from aclnn._C import STATUS_NAMES
from aclnn import _dtypes
from aclnn._dtypes import DTYPES, NUMPY_DTYPES
from aclnn._socs import DEFAULT_SOC, SOCS
from _goldens import Unmodelled, golden_names

FLOATING = tuple(name for name in NUMPY_DTYPES if DTYPES[name].category == "floating")
COMPLEX = tuple(name for name in NUMPY_DTYPES if DTYPES[name].category == "complex")

# CANN's precision standard: relative and absolute tolerance of each floating dtype; integers
# and bools compare exactly.
TOLERANCES = {"FLOAT16": 1e-3, "BFLOAT16": 4e-3, "FLOAT": 1e-4, "DOUBLE": 1e-10,
              "COMPLEX64": 1e-4, "COMPLEX128": 1e-10}

# Dtypes to try, in order, where a call needs one the page does not document for a parameter.
FOREIGN_DTYPES = ("INT64", "INT32", "INT16", "INT8", "UINT8", "BOOL", "DOUBLE", "FLOAT", "FLOAT16",
                  "BFLOAT16", "COMPLEX64", "COMPLEX128")
# A Case dtype resolved at run time: one the page does not document for the parameter on the
# active SoC (the first of FOREIGN_DTYPES).
UNDOCUMENTED = "<undocumented>"
# A Case out= dtype resolved from the golden: its dtype, or the inputs' own floating dtype where
# the golden computed in a wider one (float32 for FLOAT16 inputs). For ops whose output shape and
# dtype a kernel family's rule gives, not broadcasting and promotion.
AUTO = "<auto>"

# The families the pages' product rows stand for, longest prefix first (aclrtGetSocName says e.g.
# "Ascend910B3" or "Ascend910_9391", which is Ascend910_93's, not Ascend910's).
SOC_FAMILIES = tuple(sorted(SOCS, key=len, reverse=True))

_STATUS = {name: status for status, name in STATUS_NAMES.items()}
# Phase 2 of an API without a kernel on the simulator.
NOT_SIMULATED = _STATUS["ACLNN_ERR_INNER_FIND_KERNEL_ERROR"]
PARAM_INVALID = _STATUS["ACLNN_ERR_PARAM_INVALID"]


@dataclass(frozen=True)
class Param:
    name: str  # as the page names it: the golden expression's names
    python: str  # the Python parameter
    kind: str  # gen.ir.ParamKind
    direction: str  # in, out, inout
    domain: tuple[float, float] = (-2.0, 2.0)  # where random values are drawn from


@dataclass(frozen=True)
class Op:
    api: str
    function: str
    source: str
    params: tuple[Param, ...]
    # Documented dtypes of each parameter: "*" for every SoC, and a full table per SoC whose
    # list differs. A parameter absent from the table has no documented list.
    dtypes: dict[str, dict[str, tuple[str, ...]]]
    unsupported_socs: tuple[str, ...] = ()
    # The chip the computing tests run on where the page marks the simulator's default one unsupported
    # (computing_chip); "" where the default chip serves.
    computes_on: str = ""
    # Per chip whose lists lack a dtype of the base call: the dtypes a call valid there takes instead
    # (those that differ), None where the page lists no such call.
    on_chips: dict[str, Optional[dict[str, str]]] = field(default_factory=dict)
    golden: str = ""
    integer_math: str = "float"
    simulated: bool = True
    # Outputs allocated by the bindings: whose inputs their shape broadcasts and dtype promotes.
    out_shape_from: dict[str, tuple[str, ...]] = field(default_factory=dict)
    out_dtype_from: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The kernel's result dtype from the promoted input dtype (of its single tensor result): a
    # rule of aclnn._dtypes.RESULT_DTYPES (integral inputs give FLOAT, complex ones their real dtype, ...).
    result_rule: str = "promoted"
    # The kernel family computing it: its result is not the elementwise promotion of its inputs.
    family: str = ""
    # Its results are PyTorch's bit for bit (NaN signs and -0.0 included), not within a tolerance.
    exact: bool = False
    # A random op (check_law): its golden draws from the same law with PyTorch's generator;
    # law_offset names the parameter whose value selects the stream, invariant what every draw
    # satisfies (a Python expression over the inputs and results, by the page's names).
    law: bool = False
    law_offset: str = ""
    invariant: str = ""

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.direction != "out")

    @property
    def results(self) -> tuple[Param, ...]:
        """What a call returns, in prototype order: its out and inout parameters."""
        return tuple(p for p in self.params if p.direction != "in")

    @property
    def outs(self) -> tuple[Param, ...]:
        """What out= gives."""
        return tuple(p for p in self.params if p.direction == "out")

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def documented(self, soc: str, param: str) -> Optional[tuple[str, ...]]:
        return self.dtypes.get(soc, self.dtypes["*"]).get(param)


@dataclass(frozen=True)
class Case:
    """One call: the dtypes, shapes and values of its arguments and how they are laid out."""

    id: str
    dtypes: dict[str, str] = field(default_factory=dict)  # tensors and scalars (no entry: a Python value)
    shapes: dict[str, Any] = field(default_factory=dict)  # tensor inputs; a tuple of shapes per tensor list
    values: dict[str, Any] = field(default_factory=dict)  # scalars and attributes
    layout: str = "contiguous"  # of tensor inputs: contiguous, transposed, strided, offset, device
    noncontiguous: tuple[str, ...] = ()  # the inputs `layout` applies to (others stay contiguous)
    out: dict[str, str] = field(default_factory=dict)  # outputs passed with out=, by dtype
    out_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # out= shapes (else derived)
    out_layout: str = "contiguous"
    none: tuple[str, ...] = ()  # parameters passed as None

    def but(self, id: str, **changes: Any) -> "Case":
        """This case under another id with some arguments changed; dicts merge into this case's."""
        merged: dict[str, Any] = {k: {**getattr(self, k), **v} if isinstance(v, dict) else v
                                  for k, v in changes.items()}
        return replace(self, id=id, **merged)


# ---- the backend --------------------------------------------------------------------------------

def soc_family(name: Optional[str]) -> str:
    for family in SOC_FAMILIES:
        if name and name.startswith(family):
            return family
    return name or DEFAULT_SOC


def active_soc() -> str:
    """The chip the backend reports (the simulator's ACLNN_SIM_SOC, or the NPU's)."""
    return soc_family(aclnn.backend().soc or os.environ.get("ACLNN_SIM_SOC") or DEFAULT_SOC)


def on_simulator() -> bool:
    return str(aclnn.backend()) == "sim"


# The communicator the semantics calls of the mc2 operators name as their group (semantics/mc2.toml): on
# the simulator, the first call naming it makes it, one rank, under that name (one_rank_group). On CANN
# the suite's process has no communicator, and such a call answers CANN's own error.
ONE_RANK_GROUP = "aclsim_world"
_GROUP_MADE: list[Any] = []  # the communicator handle, kept for the process's life


def one_rank_group() -> None:
    """Makes the simulated libhccl's one-rank communicator named ONE_RANK_GROUP, once per process:
    HcclGetRootInfo, then HcclCommInitRootInfoConfig with the name in its config (HcclCommConfig as
    far as hcclCommName: the config's size field says how much of it the caller passes)."""
    if _GROUP_MADE or not on_simulator():
        return
    import ctypes
    from aclnn import sim

    hccl = ctypes.CDLL(str(sim.home() / "lib64" / "libhccl.so"))
    root = ctypes.create_string_buffer(4108)  # HCCL_ROOT_INFO_BYTES
    status = hccl.HcclGetRootInfo(root)
    assert status == 0, f"HcclGetRootInfo: {status}"
    name = ONE_RANK_GROUP.encode()
    # The prefix HcclCommConfigInit writes (size, HCCL_COMM_CONFIG_MAGIC_WORD, HCCL_COMM_CONFIG_VERSION,
    # reserved), hcclBufferSize and hcclDeterministic "not set", then hcclCommName[COMM_NAME_MAX_LENGTH].
    size = 24 + 4 + 4 + 128
    config = ctypes.create_string_buffer(
        size.to_bytes(8, "little") + (0xF0F0F0F0).to_bytes(4, "little") + (10).to_bytes(4, "little") + bytes(8)
        + (0xFFFFFFFF).to_bytes(4, "little") * 2 + name + bytes(128 - len(name)), size)
    comm = ctypes.c_void_p()
    aclnn.to_device(np.zeros(1, np.float32))  # the runtime's device is current: the communicator's
    status = hccl.HcclCommInitRootInfoConfig(ctypes.c_uint32(1), root, ctypes.c_uint32(0), config, ctypes.byref(comm))
    assert status == 0, f"HcclCommInitRootInfoConfig: {status}"
    _GROUP_MADE.append((hccl, comm))


@contextmanager
def simulated_chip(soc: str) -> Iterator[None]:
    """The simulator as `soc` inside the block, and the chip it was after it."""
    before = aclnn.backend().soc or DEFAULT_SOC
    aclnn.sim_set_soc(soc)
    try:
        yield
    finally:
        aclnn.sim_set_soc(before)


@contextmanager
def computing_chip(op: Optional[Op]) -> Iterator[None]:
    """The simulator as the chip the op's page supports (Op.computes_on) inside the block, where its
    page marks the active one unsupported and no one chose the chip (ACLNN_SIM_SOC unset): the MX
    pages' suites compute on Ascend950 in a plain run, not only prove their refusal on the default
    chip (check_unsupported still does, switching back for its call). Anywhere else, nothing changes."""
    if (op is None or not op.computes_on or os.environ.get("ACLNN_SIM_SOC") or not on_simulator()
            or active_soc() not in op.unsupported_socs):
        yield
        return
    with simulated_chip(op.computes_on):
        yield


def bind(op: Op) -> Op:
    """The op, once the active chip is known to run it (the page's product table)."""
    soc = active_soc()
    if soc in op.unsupported_socs:
        pytest.skip(f"{op.source} marks {soc} unsupported")
    return op


# ---- data ---------------------------------------------------------------------------------------

def rng_for(op: Op, case: Case, param: str) -> np.random.Generator:
    """The same values in every run, different for every (op, case, parameter)."""
    return np.random.default_rng(zlib.crc32(f"{op.api}/{case.id}/{param}".encode()))


def random_array(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], domain: tuple[float, float]) -> np.ndarray:
    numpy_dtype = NUMPY_DTYPES[dtype]
    low, high = domain
    if dtype == "BOOL":  # a domain without 0 (a divisor's) gives only true, one without 1 only false
        if low > 0 or high < 1:
            return np.full(shape, low > 0)
        return rng.random(shape) < 0.5
    if dtype in FLOATING:
        return rng.uniform(low, high, shape).astype(numpy_dtype)
    if dtype in COMPLEX:
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(numpy_dtype)
    info = ml_dtypes.iinfo(numpy_dtype)  # NumPy's iinfo knows no ml_dtypes.int4
    lo, hi = max(math.ceil(low), info.min), min(math.floor(high), info.max)
    if lo > hi:  # a domain with no integer in it: its nearest integer
        lo = hi = min(max(round(low), info.min), info.max)
    return rng.integers(lo, hi, shape, endpoint=True).astype(numpy_dtype)


def place(values: np.ndarray, layout: str) -> np.ndarray:
    """The same values in an array of the given memory layout (a view into a larger buffer)."""
    if layout in ("contiguous", "device") or values.ndim == 0 and layout != "offset":
        return np.array(values)  # a C-order copy (np.ascontiguousarray makes a 0-d array 1-d)
    if layout == "transposed" and values.ndim < 2:  # one axis has nothing to swap: every other element
        layout = "strided"
    if layout == "transposed":  # the last two axes swapped in memory
        return np.swapaxes(np.ascontiguousarray(np.swapaxes(values, -1, -2)), -1, -2)
    if layout == "strided":  # every other element of the last axis
        base = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), values.dtype)
        base[..., ::2] = values
        return base[..., ::2]
    if layout == "offset":  # contiguous, 3 elements into its buffer
        flat = np.zeros(values.size + 3, values.dtype)
        flat[3:] = values.reshape(-1)
        return flat[3:].reshape(values.shape)
    raise ValueError(f"unknown layout {layout!r}")


def resolve_dtype(op: Op, soc: str, param: str, dtype: str) -> str:
    """A case's dtype, with UNDOCUMENTED made concrete for the active SoC."""
    if dtype != UNDOCUMENTED:
        return dtype
    documented = op.documented(soc, param) or ()
    for candidate in FOREIGN_DTYPES:
        if candidate not in documented:
            return candidate
    pytest.skip(f"{param}: every dtype NumPy can hold is documented on {soc}")


def make_inputs(op: Op, case: Case, soc: str) -> dict[str, Any]:
    """The host value of every input, by page name: arrays laid out as the case says, NumPy
    scalars of the case's dtype, attributes as given, None where the case says so."""
    inputs: dict[str, Any] = {}
    for p in op.inputs:
        if p.name in case.none:
            inputs[p.name] = None
        elif p.kind == "tensor":
            dtype = resolve_dtype(op, soc, p.name, case.dtypes[p.name])
            values = random_array(rng_for(op, case, p.name), dtype, case.shapes[p.name], p.domain)
            layout = case.layout if p.name in case.noncontiguous or case.layout == "device" else "contiguous"
            inputs[p.name] = place(values, layout)
        elif p.kind == "tensor_list":  # shapes: one per member
            dtype = resolve_dtype(op, soc, p.name, case.dtypes[p.name])
            inputs[p.name] = [random_array(rng_for(op, case, f"{p.name}[{k}]"), dtype, shape, p.domain)
                              for k, shape in enumerate(case.shapes[p.name])]
        elif p.kind == "scalar" and p.name in case.dtypes:
            dtype = resolve_dtype(op, soc, p.name, case.dtypes[p.name])
            inputs[p.name] = scalar_of(dtype, case.values[p.name])
        else:
            inputs[p.name] = case.values[p.name]
    return inputs


def scalar_of(dtype: str, value: Any) -> Any:
    """A NumPy scalar of `dtype` holding `value` (which fixes the aclScalar's dtype)."""
    numpy_dtype = NUMPY_DTYPES[dtype]
    if dtype == "BOOL":
        return np.bool_(bool(value))
    if dtype in FLOATING or dtype in COMPLEX:
        return numpy_dtype(value)
    return numpy_dtype(int(value))


def input_dtypes(op: Op, case: Case, inputs: dict[str, Any], names: tuple[str, ...]) -> list[str]:
    dtypes = []
    for n in names:
        if inputs.get(n) is None:
            continue
        if op.param(n).kind == "tensor":
            dtypes.append(dtype_name(inputs[n].dtype))
        elif op.param(n).kind == "tensor_list":  # a list's members
            dtypes.extend(dtype_name(member.dtype) for member in inputs[n])
    return dtypes


def dtype_name(dtype: Any) -> str:
    dtype = np.dtype(dtype)
    for name, numpy_dtype in NUMPY_DTYPES.items():
        if np.dtype(numpy_dtype) == dtype:
            return name
    raise KeyError(dtype)


def promote(dtypes: list[str]) -> Optional[str]:
    """The promoted dtype (CANN's 互推导关系, which is PyTorch's type promotion); None for none, or
    for a mix PyTorch does not promote (a float8 format with another: aclnnAntiMxQuant's FLOAT8_E4M3FN
    x and FLOAT8_E8M0 scales, which its golden takes in float)."""
    import torch

    if not dtypes:
        return None
    promoted = torch_dtype(dtypes[0])
    for d in dtypes[1:]:
        try:
            promoted = torch.promote_types(promoted, torch_dtype(d))
        except RuntimeError:
            return None
    return next(name for name in NUMPY_DTYPES if torch_dtype(name) == promoted)


def result_dtype(op: Op, dtypes: list[str]) -> Optional[str]:
    """The dtype the kernel computes its result in: the promoted dtype, after the op's result rule."""
    promoted = promote(dtypes)
    return None if promoted is None else _dtypes.result_dtype(op.result_rule, promoted)


def can_cast(source: str, target: str) -> bool:
    """CANN's 可转换 (PyTorch's can_cast): no floating into integral, no complex into real."""
    import torch

    return torch.can_cast(torch_dtype(source), torch_dtype(target))


def torch_dtype(dtype: str) -> Any:
    import torch

    # PyTorch names its dtypes as NumPy and ml_dtypes do (float32, bfloat16, float8_e5m2, ...).
    name = DTYPES[dtype].numpy
    assert name is not None, f"NumPy (so PyTorch here) has no dtype for {dtype}"
    return getattr(torch, name)


# ---- the call -----------------------------------------------------------------------------------

def call(op: Op, case: Case, inputs: dict[str, Any], outs: Optional[list[Any]]) -> tuple[Any, ...]:
    """Calls aclnn.<op> (inputs positional, out= when given); its results as a tuple."""
    args = []
    for p in op.inputs:
        value = inputs[p.name]
        if p.kind == "string" and value == ONE_RANK_GROUP:
            one_rank_group()
        if case.layout == "device" and p.kind == "tensor" and value is not None:
            value = aclnn.to_device(value)
        elif case.layout == "device" and p.kind == "tensor_list" and value is not None:
            value = [None if m is None else aclnn.to_device(m) for m in value]
        args.append(value)
    kwargs: dict[str, Any] = {}
    if outs is not None and case.layout == "device":  # device inputs, device out= tensors
        outs = [None if o is None else [aclnn.to_device(m) for m in o] if isinstance(o, list) else aclnn.to_device(o)
                for o in outs]
    if outs is not None:
        kwargs["out"] = outs[0] if len(op.outs) == 1 else tuple(outs)
    result = getattr(aclnn, op.function)(*args, **kwargs)
    if not op.results:  # an API with no output (aclnnSleep): its binding returns None
        return ()
    return (result,) if len(op.results) == 1 else tuple(result)


def _changes_tensors(case: Case, valid_call: Case) -> bool:
    """Whether `case` changes a tensor of the valid call it varies (a dtype or a shape), not only
    host arguments."""
    return case.dtypes != valid_call.dtypes or case.shapes != valid_call.shapes


def out_arrays(op: Op, case: Case, inputs: dict[str, Any], soc: str,
               shapes: Optional[dict[str, tuple[int, ...]]] = None,
               valid_call: Optional[Case] = None) -> Optional[list[Any]]:
    """The out= arrays a case asks for (None: the bindings allocate the outputs), zero-filled in
    the case's out layout. Shapes: the case's, else `shapes` (the golden's; for a call the golden
    cannot compute, that of `valid_call`, the valid call it varies), else the broadcast of the inputs
    the output is related to."""
    if not case.out:
        return None
    if shapes is None and (AUTO in case.out.values() or AUTO in case.out_shapes.values()):
        # A call that is not checked against the golden (an error row, a dtype the page rules
        # out): out= arrays of the golden's shapes and dtypes where the golden can compute them.
        expected = None
        if valid_call is None or _changes_tensors(case, valid_call):
            try:
                expected = golden_results(op, case, inputs)
            except Exception:  # noqa: BLE001 - the inputs are invalid on purpose; shapes below
                expected = None
        if expected is None and valid_call is not None:
            # A call just outside a rule: the outputs of the valid call it varies, so that the rule
            # refuses it, not an output no golden could size — nor one the golden sizes from the
            # changed argument where the call changes host arguments only.
            try:
                expected = golden_results(op, valid_call, make_inputs(op, valid_call, soc))
            except Exception:  # noqa: BLE001 - then the shapes below
                expected = None
        if expected is not None:
            case = resolve_auto(op, case, inputs, expected, soc)
            shapes = result_shapes(op, expected)
    arrays: list[Any] = []  # an array, or None where the bindings allocate that output
    for p in op.outs:
        # An output the case passes as None: a null pointer (an output the page says is absent
        # under the call's arguments), or allocated by the bindings.
        if p.name not in case.out or p.name in case.none:
            arrays.append(None)
            continue
        dtype = case.out[p.name]
        if dtype == AUTO:  # no golden: the one dtype the page lists for it (NumPy's), else the first tensor input's
            listed = op.documented(soc, p.name)
            dtype = listed[0] if listed and len(listed) == 1 and listed[0] in NUMPY_DTYPES else next(
                (dtype_name(v.dtype) for v in inputs.values() if isinstance(v, np.ndarray)), "FLOAT")
        dtype = resolve_dtype(op, soc, p.name, dtype)
        shape = case.out_shapes.get(p.name)
        if shape is None or shape == AUTO:  # AUTO: the golden's shape
            shape = (shapes or {}).get(p.name)
        if p.kind == "tensor_list":  # one array per member
            arrays.append([place(np.zeros(s, NUMPY_DTYPES[dtype]), case.out_layout) for s in (shape or ())])
            continue
        if shape is None:
            related = [np.shape(inputs[n]) for n in op.out_shape_from.get(p.name, ()) if inputs.get(n) is not None]
            shape = np.broadcast_shapes(*related) if related else ()
        arrays.append(place(np.zeros(shape, NUMPY_DTYPES[dtype]), case.out_layout))
    return arrays


def host(value: Any) -> np.ndarray:
    return value.numpy() if isinstance(value, aclnn.Tensor) else np.asarray(value)


# ---- the golden reference -----------------------------------------------------------------------

def compute_dtype(op: Op, dtypes: list[str]) -> str:
    """What the golden computes in: float32 for 16- and 32-bit floats, float64 for doubles (and
    for integers, unless the op computes them exactly, or is exact: int64, or gives a floating
    result of them: float32, as PyTorch's default dtype, whatever out='s dtype: exp2 of 254 is inf
    even into a DOUBLE out), the complex dtype for complexes."""
    promoted = promote(dtypes) or "FLOAT"
    if promoted in ("FLOAT16", "BFLOAT16", "FLOAT"):
        return "FLOAT"
    if op.result_rule == "floating" and promoted not in ("DOUBLE", "COMPLEX64", "COMPLEX128"):
        return "FLOAT"
    if promoted in ("DOUBLE", "COMPLEX64", "COMPLEX128"):
        return promoted
    if op.integer_math == "exact" or op.exact:
        return "BOOL" if promoted == "BOOL" else "INT64"
    return "DOUBLE"


def golden(op: Op, case: Case, inputs: dict[str, Any]) -> tuple[Any, ...]:
    """The semantics file's PyTorch expression, evaluated on the same values (as torch tensors
    of the compute dtype, and Python numbers for scalars) named as the page names them; one
    tensor per result."""
    pytest.importorskip("torch")
    tensors = [n for n in inputs if op.param(n).kind in ("tensor", "tensor_list") and inputs[n] is not None]
    compute = compute_dtype(op, input_dtypes(op, case, inputs, tuple(tensors)))
    try:
        return golden_in(op, inputs, NUMPY_DTYPES[compute])
    except NotImplementedError:
        # PyTorch's CPU kernel has no version for the compute dtype ("not implemented for 'Bool'",
        # replication_pad1d; 'Long', im2col of INT8). An exact op moves and selects values bit for
        # bit: it computes the same on them held in float64, which holds every BOOL and every
        # integer of magnitude below 2**53 exactly. Any other op has no golden: the error stands.
        if not (op.exact and compute in ("BOOL", "INT64") and all(_held_in_float64(inputs[n]) for n in tensors)):
            raise
        return golden_in(op, inputs, np.float64)


def _held_in(array: np.ndarray, compute: Any) -> bool:
    """Whether every integer of `array` is exactly a value of the NumPy dtype `compute`."""
    kind = np.dtype(compute)
    if kind.kind not in "fc":  # the exact ops' INT64 and BOOL: as before
        return True
    exact = 2 ** (np.finfo(kind).nmant + 1)  # every integer below it is a value of the dtype
    return bool(np.all(np.abs(array.astype(np.float64)) < exact)) if array.size else True


def _held_in_float64(value: Any) -> bool:
    arrays = value if isinstance(value, (list, tuple)) else [value]
    return all(_held_in(np.asarray(a), np.float64) for a in arrays)


def golden_in(op: Op, inputs: dict[str, Any], compute: Any) -> tuple[Any, ...]:
    """golden's expression evaluated on the inputs as torch tensors of the NumPy dtype `compute`."""
    import torch

    def as_torch(array: Any) -> Any:
        array = np.asarray(array)
        if array.dtype.kind in "iu" and array.itemsize == 8 and not _held_in(array, compute):
            # 64-bit integers the compute dtype would round (a quantisation scale's packed words, 2**63 - 1
            # as a float is 2**63, whose .long() wraps): their exact bits, as int64, which .long() keeps.
            return torch.from_numpy(np.ascontiguousarray(array).view(np.int64))
        return torch.from_numpy(array.astype(compute, order="C"))  # 0-d stays 0-d

    # dtype_of: each tensor's own dtype, where the golden rounds as the device does (its tensors
    # are of the compute dtype, float for FLOAT16).
    # A list's: its first member's (aclnnGroupedMatmul's weight, INT8 or INT4 beside a float x).
    dtype_of = {n: torch_dtype(dtype_name(v.dtype)) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    dtype_of.update({n: torch_dtype(dtype_name(v[0].dtype)) for n, v in inputs.items()
                     if isinstance(v, (list, tuple)) and v and isinstance(v[0], np.ndarray)})
    env: dict[str, Any] = golden_names(dtype_of)
    for p in op.inputs:
        value = inputs[p.name]
        if value is None:
            env[p.name] = None
        elif p.kind == "tensor":
            env[p.name] = as_torch(value)
        elif p.kind == "tensor_list":
            env[p.name] = [as_torch(v) for v in value]
        elif p.kind == "scalar":
            env[p.name] = python_number(value)
        else:
            env[p.name] = value
        # Also by its Python name: a page name that is a Python keyword (lambda) cannot be written.
        env.setdefault(p.python, env[p.name])
    try:
        result = eval(op.golden, env)  # noqa: S307 - the semantics file's expression
    except RuntimeError:
        # Some CPU kernels of PyTorch refuse broadcasting operands (oneDNN's "could not create a
        # primitive descriptor"): the same values, expanded to their common shape.
        names = [p.name for p in op.inputs if p.kind == "tensor" and env[p.name] is not None]
        expanded = torch.broadcast_tensors(*(env[n] for n in names))
        if all(tuple(e.shape) == tuple(env[n].shape) for n, e in zip(names, expanded)):
            raise
        env.update({n: e.contiguous() for n, e in zip(names, expanded)})
        env.update({op.param(n).python: env[n] for n in names})
        result = eval(op.golden, env)  # noqa: S307
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def python_number(value: Any) -> Any:
    if isinstance(value, np.generic):
        if value.dtype == ml_dtypes.bfloat16:
            return float(value)
        return value.item()
    return value


def tolerance(dtypes: list[str]) -> float:
    """The loosest of CANN's tolerances over the dtypes a result went through; 0 when exact."""
    return max((TOLERANCES.get(d, 0.0) for d in dtypes), default=0.0)


def rounded(expected: Any, dtype: str) -> Any:
    """The golden (computed in a wider dtype) as a result of `dtype` can hold it: a value beyond a
    narrower floating dtype's range is the infinity it rounds to (65520 in FLOAT16, as the
    device's result is; other values stay as computed, the tolerance covering their rounding);
    an integral dtype's value is the golden converted (towards zero, wrapping), compared exactly."""
    import torch

    if DTYPES[dtype].size == 0 and not expected.dtype.is_floating_point:
        # INT4, which torch converts nothing into: the golden holds its values in a wider integral dtype (a
        # quantiser's, exact.quantised), compared with the result's values as they are.
        return expected
    target = torch_dtype(dtype)
    if dtype in FLOATING and expected.dtype.is_floating_point:
        if expected.dtype.itemsize <= target.itemsize:
            return expected
        narrowed = expected.to(target).to(expected.dtype)
        return torch.where(torch.isinf(narrowed) & torch.isfinite(expected), narrowed, expected)
    if dtype not in FLOATING and dtype not in COMPLEX:
        if expected.dtype.is_floating_point and dtype != "BOOL":
            # Beyond the integral dtype's range C++ (and PyTorch with it) leaves the conversion
            # undefined: the device's, and the simulator's, saturates, NaN giving 0.
            info = torch.iinfo(target)
            finite = expected.nan_to_num(0.0, posinf=float(info.max), neginf=float(info.min))
            converted = finite.clamp(float(info.min), float(info.max)).to(target)
            converted = torch.where(finite >= float(info.max), info.max, converted)
            return torch.where(finite <= float(info.min), info.min, converted)
        return expected.to(target)
    return expected


def assert_bitwise_equal(actual: np.ndarray, expected: Any, what: str, nan_signs: bool = True) -> None:
    """The result holds the golden's bits in its own dtype: every integer, -0.0, NaN where the
    golden has NaN and (`nan_signs`) with its sign. Not compared: NaN payloads, which no two
    conversions agree on; the sign of a BFLOAT16 NaN, which PyTorch's conversion from float
    always sets (0xFFFF); the signs of a complex result's zeros and NaNs (PyTorch's own
    vectorised neg computes 0 - z, its scalar one -z)."""
    import torch

    name = dtype_name(actual.dtype)
    want = expected.detach().to(torch_dtype(name)).contiguous()
    assert actual.shape == tuple(want.shape), f"{what}: shape {actual.shape}, expected {tuple(want.shape)}"
    if want.numel() == 0:
        return  # no bits (an empty tensor may keep a stride of 0, which torch cannot view as bytes)
    real = _dtypes.result_dtype("real", name)  # a complex result is compared part by part
    width = np.dtype(NUMPY_DTYPES[real]).itemsize if real in NUMPY_DTYPES else actual.dtype.itemsize
    unsigned = np.dtype(f"u{width}")
    got_bits = np.ascontiguousarray(actual).reshape(-1).view(unsigned)
    want_bits = want.reshape(-1).view(torch.uint8).numpy().view(unsigned)
    equal = got_bits == want_bits
    if real in FLOATING:
        got: np.ndarray = got_bits.view(NUMPY_DTYPES[real])
        wanted: np.ndarray = want_bits.view(NUMPY_DTYPES[real])
        sign = unsigned.type(1) << unsigned.type(8 * width - 1)
        same_sign = (got_bits & sign) == (want_bits & sign)
        equal |= np.isnan(got) & np.isnan(wanted) & (same_sign | (not nan_signs or name == "BFLOAT16" or name in COMPLEX))
        if name in COMPLEX:
            equal |= (got == 0) & (wanted == 0)
    if not equal.all():
        parts = equal.size // max(actual.size, 1)
        first = int(np.argmin(equal)) // parts
        where = np.unravel_index(first, actual.shape) if actual.shape else ()
        elements = int((~equal.reshape(-1, parts).all(axis=1)).sum()) if parts else 0
        raise AssertionError(f"{what}: {elements} of {actual.size} elements differ from PyTorch's bits, first at "
                             f"{tuple(int(i) for i in where)}: {actual[where]!r} "
                             f"({got_bits[first * parts:(first + 1) * parts].tobytes().hex()}), PyTorch "
                             f"{want.reshape(-1)[first].item()!r} ({want_bits[first * parts:(first + 1) * parts].tobytes().hex()})")


def assert_close(actual: np.ndarray, expected: Any, tol: float, what: str) -> None:
    if hasattr(expected, "detach"):
        import torch

        expected = expected.detach()
        # A golden rounded to BFLOAT16 or a float8 format, which torch hands NumPy none of: widened
        # (exactly) to float.
        narrow = expected.dtype == torch.bfloat16 or (expected.dtype.is_floating_point and expected.dtype.itemsize == 1)
        expected = (expected.float() if narrow else expected).numpy()
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    if tol == 0.0:
        np.testing.assert_array_equal(actual.astype(expected.dtype), expected, err_msg=what)
    else:
        wide = np.complex128 if np.iscomplexobj(actual) or np.iscomplexobj(expected) else np.float64
        np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=tol, atol=tol, err_msg=what)


# ---- the checks ---------------------------------------------------------------------------------

def undocumented(op: Op, case: Case, inputs: dict[str, Any], soc: str) -> Optional[str]:
    """Why the page does not promise this call on the SoC (a dtype it does not list there)."""
    for p in op.inputs:
        value = inputs[p.name]
        if p.kind == "tensor_list" and value:  # the members share one dtype (the pages say so)
            value = next((m for m in value if m is not None), None)
        if p.kind not in ("tensor", "scalar", "tensor_list") or value is None or not hasattr(value, "dtype"):
            continue
        listed = op.documented(soc, p.name)
        dtype = dtype_name(value.dtype)
        if listed is not None and dtype not in listed:
            return f"{p.name} is {dtype}, which {op.source} does not list on {soc} ({', '.join(listed)})"
    for p in op.outs:
        out_dtype = case.out.get(p.name) or result_dtype(op, input_dtypes(op, case, inputs, op.out_dtype_from.get(p.name, ())))
        if out_dtype == AUTO:
            continue
        listed = op.documented(soc, p.name)
        if out_dtype and listed is not None and out_dtype not in listed:
            return f"{p.name} would be {out_dtype}, which {op.source} does not list on {soc} ({', '.join(listed)})"
    return None


def uncastable(op: Op, case: Case, inputs: dict[str, Any]) -> Optional[str]:
    """Why the result cannot be written: the kernel's result dtype (the promoted one, after the
    op's result rule) does not cast into the dtype of the inout tensor or of the out= array given
    ("需要是self可转换的数据类型": an integral tensor divided in place, or updated with a float)."""
    tensors = [p for p in op.results if p.kind == "tensor"]
    if op.family or len(tensors) != 1:
        return None
    target = (dtype_name(inputs[tensors[0].name].dtype) if tensors[0].direction == "inout"
              else case.out.get(tensors[0].name))
    if target is None or target == AUTO:  # AUTO: made in the result's own dtype
        return None
    result = result_dtype(op, input_dtypes(op, case, inputs, tuple(inputs)))
    if result is not None and not can_cast(result, target):
        return f"the result of {op.api} is {result}, which does not cast into {tensors[0].name} ({target})"
    return None


def expect_status(op: Op, case: Case, inputs: dict[str, Any], outs: Optional[list[Any]], status: int,
                  why: str) -> None:
    with pytest.raises(aclnn.AclnnError) as info:
        call(op, case, inputs, outs)
    assert info.value.status == status, f"{why}: expected status {status}, got {info.value}"


def uncomputed(error: aclnn.AclnnError) -> None:
    """A valid call the simulator refuses by name (561003, 'not simulated': an output dtype, a scenario its
    engine does not model) is skipped, its message the reason: no golden comparison, and no pass."""
    pytest.skip(f"Uncomputed: the simulator refuses this call by name: {error}")


def check_golden(op: Op, case: Case) -> None:
    """A valid call returns what the golden reference computes, within CANN's tolerances, with
    the expected dtypes and shapes; out= arrays are written in place and returned."""
    soc = active_soc()
    inputs = make_inputs(op, case, soc)
    reason = undocumented(op, case, inputs, soc)
    if reason:  # the page's dtype table for this chip rules the call out
        expect_status(op, case, inputs, out_arrays(op, case, inputs, soc), PARAM_INVALID, reason)
        return
    if not op.simulated and on_simulator():  # sim-specific: an op without a kernel
        expect_status(op, case, inputs, out_arrays(op, case, inputs, soc), NOT_SIMULATED,
                      f"{op.api} has no kernel in the simulator")
        return
    reason = uncastable(op, case, inputs)
    if reason:
        expect_status(op, case, inputs, out_arrays(op, case, inputs, soc), PARAM_INVALID, reason)
        return
    if op.law:
        check_law(op, case, soc)
        return
    try:
        expected = golden_results(op, case, inputs)
    except Unmodelled as missing:
        pytest.skip(f"Uncomputed: the golden has no formula for this call: {missing}")
    case = resolve_auto(op, case, inputs, expected, soc)
    outs = out_arrays(op, case, inputs, soc, result_shapes(op, expected))
    try:
        results = call(op, case, inputs, outs)
    except aclnn.AclnnError as error:
        if on_simulator() and error.status == NOT_SIMULATED:  # sim-specific: a dtype its engine lacks
            uncomputed(error)
        raise
    assert_results(op, case, inputs, outs, results, expected)


def assert_results(op: Op, case: Case, inputs: dict[str, Any], outs: Optional[list[Any]],
                   results: tuple[Any, ...], expected: tuple[Any, ...], by_law: bool = False) -> None:
    """What a call returned is the golden's `expected`, within CANN's tolerances, with the dtypes
    and shapes it should have (an out= dtype: the case's), out= arrays returned as given. Raises
    AssertionError saying what differs. Shared by the generated suites and `make corpus`."""
    assert len(results) == len(expected) == len(op.results), \
        f"{op.api}: {len(results)} results, the golden has {len(expected)}, the page {len(op.results)}"
    given = dict(zip([p.name for p in op.outs], outs or []))
    in_dtypes = input_dtypes(op, case, inputs, tuple(inputs))
    for p, result, want in zip(op.results, results, expected):
        if want is None:
            continue  # an output the call is told not to compute (an output mask): left unwritten
        if given.get(p.name) is not None and case.layout != "device":
            returned = all(r is g for r, g in zip(result, given[p.name])) if p.kind == "tensor_list" else result is given[p.name]
            assert returned, f"{p.name}: out= array not returned"
        members = list(result) if p.kind == "tensor_list" else [result]
        wants = list(want) if p.kind == "tensor_list" else [want]
        assert len(members) == len(wants), f"{p.name}: {len(members)} tensors, expected {len(wants)}"
        for k, (member, w) in enumerate(zip(members, wants)):
            if case.layout == "device":
                assert isinstance(member, aclnn.Tensor), f"{p.name}: a Tensor input gives a Tensor, got {type(member)}"
            actual = host(member)
            dtype = dtype_name(actual.dtype)
            wanted = case.out.get(p.name) or result_dtype(op, input_dtypes(op, case, inputs, op.out_dtype_from.get(p.name, ())))
            if p.direction == "inout":
                wanted = dtype_name((inputs[p.name][k] if p.kind == "tensor_list" else inputs[p.name]).dtype)
            if wanted is not None:
                assert dtype == wanted, f"{p.name}: dtype {dtype}, expected {wanted}"
            what = f"{op.api} {p.name}{f'[{k}]' if p.kind == 'tensor_list' else ''} ({case.id})"
            if by_law:
                assert_same_law(actual, w, what)
                continue
            if op.exact:
                # Which of several NaNs a reduction or a sort returns is its implementation's choice.
                assert_bitwise_equal(actual, w, what, nan_signs=not op.family)
                continue
            w = rounded(w, dtype)
            assert_close(actual, w, tolerance([dtype, promote(in_dtypes) or dtype]), what)


# ---- random ops: compared by law ----------------------------------------------------------------

# The seeds of PyTorch's generator for a random op's two golden draws: where they agree, the call
# draws nothing (dropout with p = 0, rrelu out of training) and is compared element by element.
LAW_SEEDS = (20261128, 8112026)
# Kolmogorov-Smirnov's coefficient for a significance of 1e-6: sqrt(-ln(1e-6 / 2) / 2). The seeds
# are fixed, so a suite's verdict is too; the level keeps a right engine clear of every case.
KS_COEFFICIENT = 2.69
# Moments: the sample means may differ by this many standard errors.
MEAN_ERRORS = 6.0


def assert_same_law(actual: np.ndarray, expected: Any, what: str) -> None:
    """`actual` and the golden's draw (cast to actual's dtype, as the device stores its values) are
    samples of one law: the same shape, means within MEAN_ERRORS standard errors, and a two-sample
    Kolmogorov-Smirnov distance below its critical value."""
    import torch

    want = expected.detach().to(torch_dtype(dtype_name(actual.dtype)))
    assert actual.shape == tuple(want.shape), f"{what}: shape {actual.shape}, expected {tuple(want.shape)}"
    a = np.asarray(actual, dtype=np.float64).ravel()
    b = want.to(torch.float64).numpy().ravel()
    if a.size == 0:
        return
    # Non-finite values (of non-finite or huge inputs, NaN counted as +inf) are part of the law, which
    # the Kolmogorov-Smirnov distance compares; the means, of the finite values.
    a, b = np.sort(np.where(np.isnan(a), np.inf, a)), np.sort(np.where(np.isnan(b), np.inf, b))
    fa, fb = a[np.isfinite(a)], b[np.isfinite(b)]
    if fa.size and fb.size:
        with np.errstate(over="ignore", invalid="ignore"):  # values near the dtype's limits
            error = math.sqrt(fa.var() / fa.size + fb.var() / fb.size)
            gap = abs(fa.mean() - fb.mean())
        assert not gap > MEAN_ERRORS * error + 1e-12 * (1 + abs(fb.mean())), \
            f"{what}: mean {fa.mean():.6g}, the golden's draw {fb.mean():.6g} (standard error {error:.3g})"
    points = np.unique(np.concatenate([a, b]))
    distance = np.abs(np.searchsorted(a, points, "right") / a.size - np.searchsorted(b, points, "right") / b.size).max()
    critical = KS_COEFFICIENT * math.sqrt((a.size + b.size) / (a.size * b.size))
    if distance > critical:
        with np.errstate(all="ignore"):
            stats = (f"finite means {fa.mean() if fa.size else math.nan:.6g} vs {fb.mean() if fb.size else math.nan:.6g}, "
                     f"range [{a[0]:.6g}, {a[-1]:.6g}] vs [{b[0]:.6g}, {b[-1]:.6g}]")
        raise AssertionError(f"{what}: Kolmogorov-Smirnov distance {distance:.4f} to the golden's draw, above {critical:.4f} ({stats})")


def check_law(op: Op, case: Case, soc: str) -> None:
    """A random op's valid call: its results follow the golden's law (element by element where the
    golden draws nothing), satisfy the invariant, repeat bit for bit for the same seed and offset,
    and change with the offset. Each call gets fresh inputs (an in-place call consumes them)."""
    import torch

    def run(case: Case, seed: int) -> tuple[dict[str, Any], tuple[Any, ...], Case, tuple[Any, ...], list[np.ndarray]]:
        inputs = make_inputs(op, case, soc)
        torch.manual_seed(seed)
        try:
            expected = golden_results(op, case, inputs)  # before the call, which may write the inputs
        except RuntimeError:
            # PyTorch draws no such law (random_ of a complex tensor): the call is not simulated either.
            with pytest.raises(aclnn.AclnnError) as info:
                call(op, case, inputs, out_arrays(op, case, inputs, soc))
            if on_simulator() and info.value.status == NOT_SIMULATED:
                uncomputed(info.value)
            raise
        case = resolve_auto(op, case, inputs, expected, soc)
        outs = out_arrays(op, case, inputs, soc, result_shapes(op, expected))
        results = call(op, case, inputs, outs)
        assert len(results) == len(expected) == len(op.results), f"{op.api}: {len(results)} results"
        return inputs, expected, case, results, [host(r).copy() for r in results]

    inputs, expected, resolved, results, first = run(case, LAW_SEEDS[0])
    torch.manual_seed(LAW_SEEDS[1])
    again = golden_results(op, case, make_inputs(op, case, soc))
    # Whether the golden draws anything, in the results' dtypes (uniform_(0, 1) into INT32 does not).
    draws = not all(a is None or torch.equal(a.to(torch_dtype(dtype_name(r.dtype))), b.to(torch_dtype(dtype_name(r.dtype))))
                    for a, b, r in zip(expected, again, first))
    assert_results(op, resolved, inputs, None, results, expected, by_law=draws)
    if op.invariant:
        env: dict[str, Any] = golden_names({})
        env.update({p.name: torch.from_numpy(np.asarray(inputs[p.name], dtype=np.float64)) if p.kind == "tensor"
                    and inputs[p.name] is not None else python_number(inputs[p.name]) for p in op.inputs})
        env.update({op.param(p.name).python: env[p.name] for p in op.inputs})
        env.update({p.name: torch.from_numpy(r.astype(np.float64)) for p, r in zip(op.results, first)})
        assert eval(op.invariant, env), f"{op.api} ({case.id}): not {op.invariant}"  # noqa: S307
    repeated = run(case, LAW_SEEDS[0])[-1]
    for p, a, b in zip(op.results, first, repeated):
        assert a.tobytes() == b.tobytes(), f"{op.api} {p.name} ({case.id}): another call with the same seed and offset differs"
    if draws and op.law_offset and max(r.size for r in first) >= 16:
        moved = case.but(case.id, values={op.law_offset: int(case.values.get(op.law_offset) or 0) + 4})
        other = run(moved, LAW_SEEDS[0])[-1]
        assert any(a.tobytes() != b.tobytes() for a, b in zip(first, other)), \
            f"{op.api} ({case.id}): offset {op.law_offset} + 4 gives the same results"


def golden_results(op: Op, case: Case, inputs: dict[str, Any]) -> tuple[Any, ...]:
    """The golden, one entry per result (a list of tensors for an output list: aclnnSplitTensor's
    golden is torch.split's tuple)."""
    expected = golden(op, case, inputs)
    if len(op.results) == 1 and op.results[0].kind == "tensor_list":
        return (list(expected),)
    return expected


def result_shapes(op: Op, expected: tuple[Any, ...]) -> dict[str, Any]:
    """The golden's shape of each out= result (a list of shapes for an output list)."""
    return {p.name: ([tuple(m.shape) for m in e] if p.kind == "tensor_list" else tuple(e.shape))
            for p, e in zip(op.results, expected) if p.direction == "out" and e is not None}


def resolve_auto(op: Op, case: Case, inputs: dict[str, Any], expected: tuple[Any, ...], soc: str) -> Case:
    """The case with its AUTO out= dtypes made concrete from the golden's results (the page's one
    dtype for the output where it lists one other: aclnnMinDim's indices are INT32, torch's int64)."""
    if AUTO not in case.out.values():
        return case
    floating = promote(input_dtypes(op, case, inputs, tuple(inputs)))
    resolved = {}
    for p, want in zip(op.results, expected):
        if case.out.get(p.name) != AUTO:
            continue
        if isinstance(want, list):  # an output list: its members' dtype
            want = want[0] if want else None
        if want is None:
            continue
        name = dtype_name(np.dtype(str(want.dtype).replace("torch.", "")))
        listed = op.documented(soc, p.name)
        # A 16-bit golden is the dtype the golden chose (aclnnAscendAntiQuant's FLOAT16 from FLOAT
        # scales), not one computed wider; nor is a FLOAT the output's page lists and the inputs'
        # dtype not (aclnnRotateQuant's FLOAT scaleOut of BFLOAT16 x).
        wider = name in FLOATING and name not in ("FLOAT16", "BFLOAT16")
        own = listed is not None and name in listed and floating not in listed
        resolved[p.name] = floating if wider and floating in FLOATING and not own else name
        follows = result_dtype(op, input_dtypes(op, case, inputs, op.out_dtype_from.get(p.name, ())))
        if follows is not None:  # the input the output's dtype follows (a gather's self)
            resolved[p.name] = follows
        if listed is not None and len(listed) == 1 and resolved[p.name] not in listed:
            resolved[p.name] = listed[0]
    return replace(case, out={**case.out, **resolved})


def check_runs(op: Op, case: Case) -> None:
    """An op without a golden reference: a valid call succeeds, or, on the simulator, reports
    that it is not simulated; it never crashes."""
    soc = active_soc()
    inputs = make_inputs(op, case, soc)
    outs = out_arrays(op, case, inputs, soc)
    try:
        results = call(op, case, inputs, outs)
    except aclnn.AclnnError as error:
        if not (on_simulator() and error.status == NOT_SIMULATED):
            raise
        assert not op.simulated, f"{op.api} has a kernel but phase 2 said: {error}"
        return
    assert len(results) == len(op.results)


def check_error(op: Op, case: Case, status: int, base: Optional[Case] = None) -> None:
    """The call an error-table row describes fails with the row's status. `base`: the valid call it varies,
    where the call is one just outside a rule of the page (its outputs are the valid call's, as
    check_refused passes them)."""
    soc = active_soc()
    inputs = make_inputs(op, case, soc)
    expect_status(op, case, inputs, out_arrays(op, case, inputs, soc, valid_call=base), status, f"{op.api} ({case.id})")


def rule_chip(socs: tuple[str, ...]) -> AbstractContextManager[None]:
    """Where a rule of the page holds on some chips only (a dtype-combination row of one product):
    the active chip when it is one of them; else, on the simulator, the first of them for the
    call; else the test is skipped."""
    soc = active_soc()
    if not socs or soc in socs:
        return nullcontext()
    if on_simulator():
        return simulated_chip(socs[0])
    pytest.skip(f"the rule holds on {', '.join(socs)}, and the {aclnn.backend()} backend is {soc}")


# The first phase's name in aclnn.AclnnError.phase: what a rule's checks are about.
PHASE1 = "GetWorkspaceSize"


def listed_on_chip(op: Op, case: Case, soc: str) -> tuple[Case, dict[str, Any]]:
    """A rule's accepted call and its inputs on `soc`: with its own dtypes where the page lists them
    there, else with those of the call the page lists on that chip (Op.on_chips: the rule's edge is a
    value or a shape, not a dtype); skipped where the page lists none there."""
    inputs = make_inputs(op, case, soc)
    reason = undocumented(op, case, inputs, soc)
    if reason is None:
        return case, inputs
    dtypes = op.on_chips.get(soc)
    if dtypes is not None:
        case = replace(case, dtypes={**case.dtypes, **dtypes})
        inputs = make_inputs(op, case, soc)
        if undocumented(op, case, inputs, soc) is None:
            return case, inputs
    pytest.skip(f"{case.id}: {reason}, and {op.source} lists no call of the rule's on {soc}")


def check_accepted(op: Op, case: Case, socs: tuple[str, ...] = ()) -> None:
    """A call at the edge of a rule of the page (a dtype-combination row, a value at a range's
    bound, shapes that meet a dimension rule) passes phase 1; what phase 2 does with it is the
    golden tests' concern."""
    with rule_chip(socs):
        soc = active_soc()
        case, inputs = listed_on_chip(op, case, soc)
        shapes = None
        if AUTO in case.out.values() or AUTO in case.out_shapes.values():
            # out= of the golden's shapes: a call the golden cannot compute (gather's random indices
            # past a dimension at the edge of dim's range) gives none to pass.
            try:
                expected = golden_results(op, case, inputs)
            except Exception as error:  # noqa: BLE001 - said in the skip
                pytest.skip(f"the golden cannot shape the outputs of {case.id}: {type(error).__name__}: {error}")
            case = resolve_auto(op, case, inputs, expected, soc)
            shapes = result_shapes(op, expected)
        outs = out_arrays(op, case, inputs, soc, shapes)
        try:
            call(op, case, inputs, outs)
        except aclnn.AclnnError as error:
            assert error.phase != PHASE1, f"{op.api} ({case.id}): phase 1 refused a call its page allows: {error}"


def check_refused(op: Op, case: Case, status: int, socs: tuple[str, ...] = (), line: int = 0,
                  base: Optional[Case] = None) -> None:
    """A call just outside a rule of the page (the valid call `base` with what the rule is about
    changed) fails in phase 1 with the documented status, and for that rule: the simulator's refusal
    cites the rule's line or is about a parameter the call changed, so a 161002 from another check (an
    output the golden could not size, a dtype the chip does not list) cannot pass for it."""
    with rule_chip(socs):
        soc = active_soc()
        if base is not None and case.dtypes == base.dtypes:
            # The rule's edge is a value or a shape: on a chip that does not list the valid call's
            # dtypes, both calls take those of the call it lists there (Op.on_chips), or the test is
            # skipped, so that a dtype check does not refuse the call first.
            case, inputs = listed_on_chip(op, case, soc)
            base = replace(base, dtypes={**base.dtypes, **case.dtypes})
        else:
            inputs = make_inputs(op, case, soc)
        with pytest.raises(aclnn.AclnnError) as info:
            call(op, case, inputs, out_arrays(op, case, inputs, soc, valid_call=base))
        assert (info.value.phase, info.value.status) == (PHASE1, status), \
            f"{op.api} ({case.id}): expected phase 1 to return {status}, got {info.value}"
        if line and base is not None and on_simulator():
            changed = [name for name in {**case.dtypes, **case.shapes, **case.values}
                       if any(getattr(case, f).get(name) != getattr(base, f).get(name)
                              for f in ("dtypes", "shapes", "values"))]
            said = str(info.value)
            about = said.split(f"{op.api}: ", 1)[-1]
            if not (re.search(rf"\.md:{line}\b", said) or any(re.search(rf"\b{re.escape(n)}\b", about) for n in changed)):
                # Another check came first (a related rule, an output the changed argument sizes): the
                # call does not isolate this rule, which is said, not counted as its pass.
                pytest.skip(f"line {line}: the call just outside the rule ({case.id}) is refused by another check "
                            f"first: {about}")


def check_unsupported(op: Op, case: Case, status: Optional[int]) -> None:
    """On a chip the page marks unsupported, a valid call fails (with the row's status, if the
    page's error table has one)."""
    soc = active_soc()
    unsupported: AbstractContextManager[None]
    if soc in op.unsupported_socs:
        unsupported = nullcontext()
    elif on_simulator() and op.unsupported_socs:
        # The simulator can be another chip: one the page marks unsupported, for this call only.
        # The inputs stay those valid on the chip the process runs on.
        unsupported = simulated_chip(op.unsupported_socs[0])
    else:
        pytest.skip(f"{op.source} supports {soc}, and the {aclnn.backend()} backend cannot be another chip")
    inputs = make_inputs(op, case, soc)
    outs = out_arrays(op, case, inputs, soc)
    with unsupported, pytest.raises(aclnn.AclnnError) as info:
        call(op, case, inputs, outs)
    if status is not None:
        assert info.value.status == status, f"expected status {status}, got {info.value}"
