"""The outputs of ops computed by a kernel family (gen.families), made when out= does not give them.

An elementwise op's output has the broadcast shape of its inputs, which the extension derives by
itself. A reduction's, a product's or a gather's output shape follows from the arguments by the
family's rule: the same rule on every backend (CANN on an NPU as the simulator), stated here
once per family. Each family op's Python function (aclnn/__init__.py) holds an `Outputs`: when
an output is not given, it is made here (a NumPy array for host inputs, an `aclnn.empty` device
tensor for device inputs) and passed as out=.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from aclnn import _C
from aclnn._dtypes import DTYPES, NUMPY_DTYPES

Shape = tuple[int, ...]
# role -> (shape, dtype); a role missing: the rule does not know it (the extension decides)
Made = dict[str, tuple[Shape, Any]]
INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
FLOAT = np.dtype(np.float32)


class Args:
    """The call's arguments by role."""

    def __init__(self, roles: dict[str, tuple[int, str]], args: tuple, kwargs: dict[str, Any]) -> None:
        self.roles, self.args, self.kwargs = roles, args, kwargs

    def get(self, role: str, default: Any = None) -> Any:
        where = self.roles.get(role)
        if where is None:
            return default
        position, name = where
        if position < len(self.args):
            return self.args[position]
        return self.kwargs.get(name, default)

    def shape(self, role: str) -> Optional[Shape]:
        value = self.get(role)
        if value is None:
            return None
        shape = getattr(value, "shape", None)
        return tuple(int(d) for d in shape) if shape is not None else np.shape(value)

    def dtype(self, role: str) -> Any:
        value = self.get(role)
        if value is None:
            return None
        dtype = getattr(value, "dtype", None)
        return dtype_of(dtype) if dtype is not None else np.asarray(value).dtype

    def ints(self, role: str) -> Optional[list[int]]:
        value = self.get(role)
        if value is None:
            return None
        if isinstance(value, (int, np.integer)):
            return [int(value)]
        return [int(v) for v in np.asarray(value).reshape(-1)]

    def int(self, role: str, default: int = 0) -> int:
        values = self.ints(role)
        return values[0] if values else default

    def flag(self, role: str, default: bool = False) -> bool:
        value = self.get(role)
        return default if value is None else bool(value)


def dtype_of(dtype: Any) -> Any:
    """A NumPy dtype for a dtype argument: NumPy's, a page name ("FLOAT16"), or torch's."""
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype in NUMPY_DTYPES:
        return np.dtype(NUMPY_DTYPES[dtype])
    name = str(dtype).replace("torch.", "")
    for page, facts in DTYPES.items():
        if facts.numpy == name or page == name:
            return np.dtype(NUMPY_DTYPES[page]) if page in NUMPY_DTYPES else None
    try:
        return np.dtype(dtype)
    except TypeError:
        return None


def wrap(dim: int, rank: int) -> int:
    extent = max(rank, 1)
    if not -extent <= dim < extent:
        raise IndexError(f"dimension {dim} is out of range for a tensor of rank {rank}")
    return dim % extent if rank else 0


# ---- the families' rules -----------------------------------------------------------------------------

def reduce(op: str, a: Args) -> Made:
    shape = a.shape("self") or ()
    dims = a.ints("dim")
    reduced = set(range(len(shape))) if not dims else {wrap(d, len(shape)) for d in dims}
    keep = a.flag("keepdim")
    out_shape = tuple(1 if d in reduced else n for d, n in enumerate(shape) if keep or d not in reduced)
    dtype = a.dtype("self")
    if op in ("argmax", "argmin"):
        dtype = INT64
    elif op in ("any", "all"):
        dtype = BOOL
    elif a.get("dtype") is not None:
        dtype = dtype_of(a.get("dtype")) or dtype
    made = {"out": (out_shape, dtype), "indices": (out_shape, INT64)}
    made["mean"] = made["max_out"] = (out_shape, dtype)
    return made


def cumulative(op: str, a: Args) -> Made:
    dtype = dtype_of(a.get("dtype")) or a.dtype("self")
    shape = a.shape("self") or ()
    return {"out": (shape, dtype), "indices": (shape, INT64)}


def softmax(op: str, a: Args) -> Made:
    return {"out": (a.shape("self") or (), a.dtype("self"))}


def norm(op: str, a: Args) -> Made:
    shape, dtype = a.shape("input") or (), a.dtype("input")
    made: Made = {"out": (shape, dtype), "sum_out": (shape, dtype)}
    if op == "layer_norm":
        count = len(a.ints("normalized_shape") or ())
        stats = shape[:len(shape) - count] + (1,) * count
        made["mean"] = made["rstd"] = (stats, dtype)
    elif op in ("rms_norm", "add_rms_norm"):
        count = len(a.shape("weight") or ())
        made["rstd"] = (shape[:len(shape) - count] + (1,) * count, FLOAT)
    elif op == "group_norm":
        made["mean"] = made["rstd"] = ((shape[0] if shape else 1, a.int("group", 1)), dtype)
    elif op == "batch_norm":
        made["mean"] = made["rstd"] = ((shape[1] if len(shape) > 1 else 1,), FLOAT)
    return made


def matmul(op: str, a: Args) -> Made:
    sa, sb = a.shape("a") or (), a.shape("b") or ()
    dtype = a.dtype("a")
    if op == "dot":
        shape: Shape = ()
    elif op in ("mv", "addmv"):
        shape = sa[:1]
    elif op == "ger":
        shape = (sa[0] if sa else 1, sb[0] if sb else 1)
    elif op == "addbmm":
        shape = (sa[-2], sb[-1])
    elif op in ("matmul", "bmm", "baddbmm"):
        shape = np.matmul(np.empty(sa, np.int8), np.empty(sb, np.int8)).shape if sa and sb else ()
    else:
        shape = (sa[0], sb[-1])
    return {"out": (tuple(shape), dtype)}


def index(op: str, a: Args) -> Made:
    shape, dtype = a.shape("self") or (), a.dtype("self")
    if op == "gather" or op == "take":
        out = a.shape("index") or ()
    elif op == "index_select":
        dim = wrap(a.int("dim"), len(shape))
        out = shape[:dim] + (int(np.prod(a.shape("index") or (1,))),) + shape[dim + 1:]
    elif op == "embedding":
        out = (a.shape("index") or ()) + shape[1:]
    elif op == "one_hot":
        depth = a.int("num_classes")
        axis = a.int("dim", -1)
        out = list(shape)
        out.insert(len(shape) if axis == -1 else wrap(axis, len(shape) + 1), depth)
        out, dtype = tuple(out), a.dtype("on_value") or INT64
    elif op == "topk":
        dim = wrap(a.int("dim", -1), len(shape))
        out = shape[:dim] + (a.int("k"),) + shape[dim + 1:]
    elif op == "argsort":
        out, dtype = shape, INT64
    else:  # scatter, scatter_add, sort
        out = shape
    return {"out": (tuple(out), dtype), "indices": (tuple(out), INT64)}


def shape_family(op: str, a: Args) -> Made:
    if op in ("cat", "stack"):
        tensors = a.get("tensors") or []
        shapes = [tuple(np.shape(t)) if not hasattr(t, "shape") else tuple(t.shape) for t in tensors]
        dtype = a_dtype(tensors)
        if not shapes:
            return {}
        first = shapes[0]
        if op == "stack":
            dim = wrap(a.int("dim"), len(first) + 1)
            return {"out": (first[:dim] + (len(shapes),) + first[dim:], dtype)}
        rank = max(len(s) for s in shapes)
        dim = wrap(a.int("dim"), rank)
        joined = [s for s in shapes if len(s) == rank]
        return {"out": (joined[0][:dim] + (sum(s[dim] for s in joined),) + joined[0][dim + 1:], dtype)}
    shape, dtype = a.shape("self") or (), a.dtype("self")
    if op == "permute":
        order = [wrap(d, len(shape)) for d in a.ints("dims") or ()]
        return {"out": (tuple(shape[d] for d in order), dtype)}
    if op == "transpose":
        dims = a.ints("dims") or [0, 1]
        out = list(shape)
        i, j = wrap(dims[0], len(shape)), wrap(dims[1], len(shape))
        out[i], out[j] = out[j], out[i]
        return {"out": (tuple(out), dtype)}
    if op == "expand":
        size = a.ints("size") or []
        lead = len(size) - len(shape)
        return {"out": (tuple(shape[d - lead] if n == -1 else n for d, n in enumerate(size)), dtype)}
    if op == "constant_pad":
        pad = a.ints("pad") or []
        out = list(shape)
        for k in range(len(pad) // 2):
            out[len(shape) - 1 - k] += pad[2 * k] + pad[2 * k + 1]
        return {"out": (tuple(out), dtype)}
    if op == "repeat":
        reps = a.ints("size") or []
        full = (1,) * (len(reps) - len(shape)) + shape
        return {"out": (tuple(n * r for n, r in zip(full, reps)), dtype)}
    if op in ("split", "split_with_size", "slice", "narrow"):
        return {}  # lists and slices: out= gives them
    return {"out": (shape, dtype)}


def a_dtype(tensors: Sequence[Any]) -> Any:
    for t in tensors:
        return dtype_of(getattr(t, "dtype", None)) or np.asarray(t).dtype
    return None


RULES: dict[str, Callable[[str, Args], Made]] = {
    "reduce": reduce, "cumulative": cumulative, "softmax": softmax, "norm": norm, "matmul": matmul,
    "index": index, "shape": shape_family,
}


class Outputs:
    """The outputs of one family op: `roles` maps each role to its (position among the Python
    function's positional parameters, name); `outs` gives, in out= order, the role of each output
    (None: one the family does not derive, left to the extension)."""

    def __init__(self, family: str, op: str, roles: dict[str, tuple[int, str]], outs: tuple[Optional[str], ...]):
        self.rule = RULES[family]
        self.op, self.roles, self.outs = op, roles, outs

    def fill(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        """kwargs with out= completed: the given outputs kept, the others made."""
        given = kwargs.get("out")
        single = len(self.outs) == 1
        listed = [given] if single else list(given) if given is not None else [None] * len(self.outs)
        if len(listed) != len(self.outs) or all(o is not None for o in listed):
            return kwargs  # the extension judges an out= of the wrong length
        a = Args(self.roles, args, kwargs)
        try:
            made = self.rule(self.op, a)
        except (IndexError, TypeError, ValueError, KeyError):
            # Arguments the library will reject (a NULL input, a dimension out of range): outputs
            # of one element, so that the call reaches it and it says why.
            made = {role: ((1,), FLOAT) for role in self.outs if role is not None}
        device = any(isinstance(v, _C.Tensor) or (isinstance(v, (list, tuple)) and any(
            isinstance(x, _C.Tensor) for x in v)) for v in (*args, *kwargs.values()))
        for k, role in enumerate(self.outs):
            if listed[k] is not None or role is None or role not in made:
                continue
            shape, dtype = made[role]
            if dtype is None:
                dtype = FLOAT  # an input the library will reject (None): it says why
            listed[k] = _C.empty(shape, dtype) if device else np.empty(shape, dtype)
        return {**kwargs, "out": listed[0] if single else tuple(listed)}
