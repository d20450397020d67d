"""The calls a generated suite makes (`Case`: plain data the runtime's `_aclnn_testing.Case` takes),
the groups of them a test function parametrizes, and the helpers every planner shares: the shapes
and layouts the cases use, and the host values of the base call as the page and the semantics file
give them."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Sequence

from gen.api.kinds import KINDS
from gen.api.python import float_dtype, scalar_preference
from gen.ir import API, DType, OpSemantics, Param, ParamKind, ShapeForm

# The runtime's markers (_aclnn_testing, which the generator cannot import: it imports the built
# package; tests/emit/test_runtime_python.py holds these and Case's fields equal to its own).
# UNDOCUMENTED: a dtype the page does not list, chosen at run time; AUTO: an out= array of the
# golden's shape, in the dtype the op gives.
UNDOCUMENTED = "<undocumented>"
AUTO = "<auto>"

BASE_RANK = 2
# When a page states no rank for a tensor: what the tests use.
UNSTATED_RANKS = (1, 4)

NONCONTIGUOUS_LAYOUTS = ("transposed", "strided", "offset")
# The layout every dtype goes through: an implementation's load path is one per dtype (a gather and
# a conversion of its own), and a transposed input reaches it with a stride in every dimension. The
# other stride patterns (every other element, a storage offset) are vector loops over elements of a
# size: each is taken once per element size.
EVERY_DTYPE_LAYOUT = "transposed"
OUT_LAYOUTS = ("strided", "transposed")


@dataclass(frozen=True)
class Case:
    """One call, as `_aclnn_testing.Case` takes it (see there; the same fields, held equal by
    tests/emit/test_runtime_python.py), plus why it is skipped, if it is."""

    id: str
    dtypes: dict[str, str] = field(default_factory=dict)
    shapes: dict[str, Any] = field(default_factory=dict)  # a shape per tensor, a tuple of shapes per list
    values: dict[str, Any] = field(default_factory=dict)
    layout: str = "contiguous"
    noncontiguous: tuple[str, ...] = ()
    out: dict[str, str] = field(default_factory=dict)
    out_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    out_layout: str = "contiguous"
    none: tuple[str, ...] = ()
    skip: str = ""

    @property
    def arguments(self) -> str:
        """The constructor arguments of the runtime Case: the id, and what differs from its defaults."""
        return self.changes_from(_DEFAULTS)

    def changes_from(self, base: "Case") -> str:
        """`id, name=value, ...` for what differs from `base`; dict fields give only the entries
        that differ (the runtime's `Case.but` merges them into the base's)."""
        parts = [repr(self.id)]
        for name in CASE_FIELDS:
            mine, theirs = getattr(self, name), getattr(base, name)
            if mine is theirs or mine == theirs:  # most fields of most cases: the base's own
                continue
            if isinstance(mine, dict):
                assert theirs.keys() <= mine.keys(), f"{self.id}: {name} drops entries of the base"
                changed = {k: v for k, v in mine.items() if k not in theirs or not _same(theirs[k], v)}
                parts.append(f"{name}={{{', '.join(f'{k!r}: {_literal(v)}' for k, v in changed.items())}}}")
            else:
                parts.append(f"{name}={mine!r}")
        return ", ".join(parts)


def _same(a: Any, b: Any) -> bool:
    """Equal values, a NaN being its own (a refused call's NaN argument is a change only from a number)."""
    return a == b or isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def _literal(value: Any) -> str:
    """A value as the suite's Python source spells it: repr, but for a NaN (which repr writes as a name)."""
    if isinstance(value, float) and math.isnan(value):
        return "float('nan')"
    return repr(value)


CASE_FIELDS = ("dtypes", "shapes", "values", "layout", "noncontiguous", "out", "out_shapes", "out_layout", "none")


_DEFAULTS = Case("")


@dataclass(frozen=True)
class CaseGroup:
    """The cases of one test function (test_<name>), and what they check."""

    name: str
    title: str
    cases: tuple[Case, ...]


def with_absences(case: Case, api: API) -> Case:
    """`case` with each tensor the page says is a null pointer under the case's host arguments
    passed as None ("如果isSymmetrical是true，offsetOut需要传nullptr"): a valid call that changes
    such an argument changes what it passes with it."""
    # An argument the case's values lack meets no condition.
    absent = [r.param for r in api.shape_rules
              if r.form is ShapeForm.ABSENT and case.values.get(r.when) is not None and r.holds(case.values[r.when])]
    if not absent:
        return case
    return replace(case, none=tuple(dict.fromkeys((*case.none, *absent))))


def rank_bounds(params: list[Param]) -> tuple[int, int]:
    stated = [p.rank for p in params if p.rank is not None]
    if not stated:
        return UNSTATED_RANKS
    lo, hi = max(r[0] for r in stated), min(r[1] for r in stated)
    return (lo, hi) if lo <= hi else stated[0]


def fits(shape: tuple[int, ...], param: Param) -> bool:
    lo, hi = param.rank or UNSTATED_RANKS
    return lo <= len(shape) <= hi


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(max(x, y) for x, y in zip(a, b))


def layout_dtypes(layout: str, dtypes: Sequence[DType]) -> list[DType]:
    """The dtypes a non-contiguous `layout` is tested in: every one for EVERY_DTYPE_LAYOUT, else the
    first of each element size."""
    if layout == EVERY_DTYPE_LAYOUT:
        return list(dtypes)
    first_of_size: dict[int, DType] = {}
    for dtype in dtypes:
        first_of_size.setdefault(dtype.size, dtype)
    return list(first_of_size.values())


def exactly(value: Any, dtype: Optional[DType]) -> Any:
    """A float as `dtype` holds it (the value a Python float becomes in an aclScalar of that
    dtype), so that the golden and the library see the same number."""
    if not isinstance(value, float) or dtype not in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16):
        return value
    if dtype is DType.FLOAT16:
        return struct.unpack("<e", struct.pack("<e", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if dtype is DType.BFLOAT16:  # round to nearest even on the upper 16 bits
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def scalar_value(dtype: DType, base: Any) -> Any:
    """The base value of a scalar, held by `dtype` (2 for integers when the base is fractional)."""
    if dtype is DType.BOOL:
        return True
    if dtype.is_integral:
        value = base if isinstance(base, (int, float)) and float(base).is_integer() else 2
        return abs(int(value)) if dtype.value.startswith("UINT") else int(value)
    return float(base) if isinstance(base, (int, float)) else base


@dataclass(frozen=True)
class Values:
    values: dict[str, Any]
    unknown: tuple[str, ...]  # parameters given a placeholder, not a value the page vouches for


def base_values(api: API) -> Values:
    """A valid value of every non-tensor input: the page's example's, else a neutral default."""
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for p in api.inputs:
        if p.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
            continue
        example = api.example_call.arg(p.name) if api.example_call else None
        given = example.values if example and example.values else None
        if given is None and p.optional and p.kind is not None and p.kind.is_pointer:
            values[p.name] = None  # an optional pointer: NULL (None) is a valid value
            continue
        form = KINDS[p.kind].example_value if p.kind else None
        if form is not None and form.names_dtype and example and example.dtype:
            values[p.name] = example.dtype.value  # the page's name (FLOAT is float32), as the bindings take it
        elif form is not None and form.sequence:
            values[p.name] = tuple(form.convert(v) for v in given) if given else form.default
            if not given:
                unknown.append(p.name)
        elif form is not None and not form.names_dtype:
            # A Python float is what the bindings make of it (a scalar: the page's first float dtype).
            values[p.name] = exactly(form.convert(given[0]) if given else form.default, float_dtype(p))
        else:
            values[p.name] = None
            unknown.append(p.name)
    return Values(values, tuple(unknown))


def with_semantic_call(values: Values, api: API, semantics: Optional[OpSemantics]) -> Values:
    """The base values with those of the semantics file's valid call (`call = {...}`), which the
    page's example may lack (a dims array, a dtype attribute)."""
    if semantics is None or not semantics.call:
        return values
    given = dict(values.values)
    for arg in semantics.call:
        param = next((p for p in api.inputs if p.name == arg.param), None)
        if param is None or param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
            continue
        value = arg.value
        if param.kind is ParamKind.SCALAR and isinstance(value, float):
            value = exactly(value, next(iter(scalar_preference(param).for_float), None))
        given[param.name] = value
    return Values(given, tuple(n for n in values.unknown if n not in given or given[n] is None))


def semantic_call_shapes(api: API, semantics: Optional[OpSemantics]) -> Optional[dict[str, Any]]:
    """The tensor inputs' shapes of the semantics file's valid call (a tuple of shapes per tensor
    list), when it gives one for every tensor input; else None."""
    if semantics is None or not semantics.call:
        return None
    shapes: dict[str, Any] = {}
    for p in api.inputs:
        if p.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
            continue
        value = semantics.call_value(p.name)
        if value is None:
            if p.optional:
                continue
            return None
        shapes[p.name] = tuple(tuple(s) for s in value) if p.kind is ParamKind.TENSOR_LIST else tuple(value)
    return shapes
