"""Phase 1 of op_docs' APIs called through the C ABI of the simulator's libopapi, with what the
bindings cannot pass (a tensor's format, a NULL output): each probe is one GetWorkspaceSize call,
its arguments built from a compact description, and its status recorded.

The calls run in a process of their own on generated/'s libraries (`make package`), through
tests/support/op_docs_process.py's `results_of`: one process holds one simulator.

An argument is None (NULL), a number or bool (passed as the C type the page declares), or a dict:
    {"tensor": shape, "dtype": "FLOAT", "format": "ND"}     an aclTensor (no data: phase 1 reads none)
    {"scalar": value, "dtype": "FLOAT"}                      an aclScalar
    {"ints": [...]}                                          an aclIntArray
    {"floats": [...]}, {"bools": [...]}                      an aclFloatArray, an aclBoolArray
    {"tensors": [tensor, ...]}, {"scalars": [scalar, ...]}   an aclTensorList, an aclScalarList
    {"string": "mean"}                                       a char*
    {"dtype": "FLOAT"} alone                                 an aclDataType
"""

from __future__ import annotations

import functools
import json
from typing import Any, Sequence

from gen import abi
from gen.ir import DType
from tests.support.op_docs_process import PACKAGE, results_of

_CTYPES = {"int64_t": "i64", "uint64_t": "u64", "int32_t": "i32", "double": "f64", "float": "f32", "bool": "bool",
           "aclDataType": "i32", "int8_t": "i32", "char": "i32", "int": "i32"}
# Run after op_docs_process.PROLOGUE (json, sys, numpy as np, the package's directory as sys.argv[1]).
SCRIPT = r'''
import ctypes
from pathlib import Path

sim = Path(sys.argv[1]) / "aclnn" / "_sim"
libs = [ctypes.CDLL(str(sim / name), mode=ctypes.RTLD_GLOBAL) for name in ("libascendcl.so", "libnnopbase.so", "libopapi.so")]
def find(name):
    return next(getattr(lib, name) for lib in libs if hasattr(lib, name))
P, I64P = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
create = find("aclCreateTensor")
create.restype, create.argtypes = P, [I64P, ctypes.c_uint64, ctypes.c_int, I64P, ctypes.c_int64, ctypes.c_int, I64P, ctypes.c_uint64, P]
scalar = find("aclCreateScalar")
scalar.restype, scalar.argtypes = P, [P, ctypes.c_int]
int_array = find("aclCreateIntArray")
int_array.restype, int_array.argtypes = P, [I64P, ctypes.c_uint64]
float_array = find("aclCreateFloatArray")
float_array.restype, float_array.argtypes = P, [ctypes.POINTER(ctypes.c_float), ctypes.c_uint64]
bool_array = find("aclCreateBoolArray")
bool_array.restype, bool_array.argtypes = P, [ctypes.POINTER(ctypes.c_bool), ctypes.c_uint64]
tensor_list = find("aclCreateTensorList")
tensor_list.restype, tensor_list.argtypes = P, [ctypes.POINTER(P), ctypes.c_uint64]
scalar_list = find("aclCreateScalarList")
scalar_list.restype, scalar_list.argtypes = P, [ctypes.POINTER(P), ctypes.c_uint64]
set_soc = find("aclsimSetSoc")
set_soc.argtypes = [ctypes.c_char_p]
message = find("aclGetRecentErrMsg")
message.restype = ctypes.c_char_p
C = {"p": P, "i64": ctypes.c_int64, "u64": ctypes.c_uint64, "i32": ctypes.c_int32, "f64": ctypes.c_double,
     "f32": ctypes.c_float, "bool": ctypes.c_bool}
keep = []

def array(values):
    a = (ctypes.c_int64 * len(values))(*values)
    keep.append(a)
    return a

def kept(ctype, values):
    a = (ctype * max(len(values), 1))(*values)
    keep.append(a)
    return a

def arg(value):
    if not isinstance(value, dict):
        return value
    if "tensors" in value or "scalars" in value:
        members = value.get("tensors", value.get("scalars"))
        made = tensor_list if "tensors" in value else scalar_list
        return made(kept(P, [arg(m) for m in members]), len(members))
    if "floats" in value:
        return float_array(kept(ctypes.c_float, value["floats"]), len(value["floats"]))
    if "bools" in value:
        return bool_array(kept(ctypes.c_bool, value["bools"]), len(value["bools"]))
    if "string" in value:
        text = ctypes.c_char_p(value["string"].encode())
        keep.append(text)
        return ctypes.cast(text, P)
    if "enum" in value:
        return value["enum"]
    if "tensor" in value:
        shape = value["tensor"]
        strides, step = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i], step = step, step * max(shape[i], 1)
        return create(array(shape), len(shape), value["dtype"], array(strides), 0, value["format"], array(shape), len(shape), None)
    if "scalar" in value:
        box = np.array([value["scalar"]], dtype=value["numpy"])
        keep.append(box)
        return scalar(box.ctypes.data, value["dtype"])
    return int_array(array(value["ints"]), len(value["ints"]))

out = []
for probe in json.loads(sys.stdin.read()):
    set_soc(probe["soc"].encode())
    fn = find(probe["function"])
    fn.restype = ctypes.c_int
    fn.argtypes = [C[c] for c in probe["ctypes"]] + [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(P)]
    size, executor = ctypes.c_uint64(0), P()
    status = fn(*[arg(a) for a in probe["args"]], ctypes.byref(size), ctypes.byref(executor))
    out.append([status, (message() or b"").decode() if status else ""])
print(json.dumps({"statuses": out}))
'''


@functools.lru_cache(maxsize=1)
def _apis() -> dict[str, dict]:
    with open(PACKAGE / "aclnn" / "_apis.json", encoding="utf-8") as f:
        return {api["name"]: api for api in json.load(f)["apis"]}


def _ctype(c_type: str) -> str:
    return "p" if "*" in c_type else _CTYPES[c_type.replace("const", "").strip()]


def _encoded(value: Any) -> Any:
    """A probe's argument with its dtype and format names as the ABI's values."""
    if not isinstance(value, dict):
        return value
    dtypes, formats = abi.enumerators("aclDataType"), abi.enumerators("aclFormat")
    if "tensors" in value or "scalars" in value:
        key = "tensors" if "tensors" in value else "scalars"
        return {key: [_encoded(member) for member in value[key]]}
    if set(value) == {"dtype"}:  # an aclDataType argument
        return {"enum": dtypes[DType(value["dtype"]).enumerator]}
    out = dict(value)
    if "dtype" in value:
        out["dtype"] = dtypes[DType(value["dtype"]).enumerator]
    if "tensor" in value:
        out["format"] = formats[f"ACL_FORMAT_{value.get('format', 'ND')}"]
    if "scalar" in value:
        # The host value in the scalar's own dtype where NumPy holds it; else a DOUBLE or INT64 scalar
        # of the same value (an ml_dtypes box is not what the simulator reads for BFLOAT16).
        held = DType(value["dtype"]).numpy or ""
        if held.startswith("numpy."):
            out["numpy"] = held.removeprefix("numpy.")
        else:
            wide = DType.DOUBLE if isinstance(value["scalar"], float) else DType.INT64
            out["numpy"], out["dtype"] = str(wide.numpy).removeprefix("numpy."), dtypes[wide.enumerator]
    return out


def statuses(probes: Sequence[tuple[str, Sequence[Any]]], soc: str = "Ascend910B") -> list[tuple[int, str]]:
    """(status, message) of each probe (API name, its GetWorkspaceSize arguments but the last two)."""
    calls = []
    for name, args in probes:
        api = _apis()[name]
        assert len(args) == len(api["params"]), f"{name} takes {[p['name'] for p in api['params']]}"
        calls.append({"function": api["workspace_fn"], "soc": soc, "args": [_encoded(a) for a in args],
                      "ctypes": [_ctype(p["c_type"]) for p in api["params"]]})
    return [tuple(r) for r in results_of(SCRIPT, stdin=json.dumps(calls))["statuses"]]


def tensor(shape: Sequence[int], dtype: str = "FLOAT", format: str = "ND") -> dict:
    return {"tensor": list(shape), "dtype": dtype, "format": format}


def scalar(value: float | int, dtype: str = "FLOAT") -> dict:
    return {"scalar": value, "dtype": dtype}


def ints(*values: int) -> dict:
    return {"ints": list(values)}


def floats(*values: float) -> dict:
    return {"floats": list(values)}


def bools(*values: bool) -> dict:
    return {"bools": list(values)}


def tensors(members: Sequence[dict]) -> dict:
    return {"tensors": list(members)}


def scalars(members: Sequence[dict]) -> dict:
    return {"scalars": list(members)}


def string(text: str) -> dict:
    return {"string": text}


def dtype(name: str) -> dict:
    """An aclDataType argument, by the pages' name of the dtype."""
    return {"dtype": name}
