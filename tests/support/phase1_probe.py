"""Phase 1 of op_docs' APIs called through the C ABI of the simulator's libopapi, with what the
bindings cannot pass (a tensor's format, a NULL output): each probe is one GetWorkspaceSize call,
its arguments built from a compact description, and its status recorded.

The calls run in a process of their own on generated/'s libraries (`make package`), through
tests/support/op_docs_process.py's `results_of`: one process holds one simulator.

An argument is None (NULL), a number or bool (passed as the C type the page declares), or a dict:
    {"tensor": shape, "dtype": "FLOAT", "format": "ND"}     an aclTensor (no data: phase 1 reads none)
    {"scalar": value, "dtype": "FLOAT"}                      an aclScalar
    {"ints": [...]}                                          an aclIntArray
"""

from __future__ import annotations

import functools
import json
from typing import Any, Sequence

from gen import abi
from tests.support.op_docs_process import PACKAGE, results_of

_CTYPES = {"int64_t": "i64", "uint64_t": "u64", "int32_t": "i32", "double": "f64", "float": "f32", "bool": "bool",
           "aclDataType": "i32", "int8_t": "i32", "char": "i32", "int": "i32"}
# The NumPy dtype of an aclScalar's host value, by the aclDataType it is made with.
_NUMPY = {"FLOAT": "float32", "DOUBLE": "float64", "FLOAT16": "float16", "INT64": "int64", "INT32": "int32",
          "BOOL": "bool"}

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

def arg(value):
    if not isinstance(value, dict):
        return value
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
    out = dict(value)
    if "dtype" in value:
        out["dtype"] = dtypes[f"ACL_{value['dtype']}" if value["dtype"] != "BFLOAT16" else "ACL_BF16"]
    if "tensor" in value:
        out["format"] = formats[f"ACL_FORMAT_{value.get('format', 'ND')}"]
    if "scalar" in value:
        out["numpy"] = _NUMPY[value["dtype"]]
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
