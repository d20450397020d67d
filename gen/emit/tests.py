"""generated/tests/: a pytest suite per bound API, derived from its page and semantics file.

`tests/test_<op>.py` checks that the active backend (the simulator here, CANN on an NPU) does what
the page promises:

- valid calls against the golden reference (the semantics file's PyTorch expression), within
  CANN's tolerances: every documented dtype (of every product: each file carries the per-SoC
  lists and the support module checks, at run time, that a dtype the active chip's list lacks
  is rejected instead), dtype promotion, out= dtypes and layouts, ranks at the bounds and
  between, non-contiguous and device-resident inputs, empty tensors, broadcasting, each
  documented scalar dtype and each value of a bool attribute — where the page allows them;
- one test per row of the page's error table: the row's category becomes calls that must fail
  with the row's status; a row that cannot be provoked from Python is a skipped test whose
  reason quotes it.

Every decision is taken here, at generation time, into plain data (`Case`s); the templates
(templates/tests/) hold the shape of the tests, and `_aclnn_testing.py` (runtime/python/tests/,
copied as is) turns a Case into a call and checks it.
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Optional, Sequence

from gen import abi, families, names
from gen.api.calls import EXPRESSIBLE, SHAPES
from gen.api.kinds import KINDS
from gen.api.python import float_dtype, out_params, output_plans, result_rule, scalar_preference
from gen.cache import GENERATOR_ONLY
from gen.emit.env import copied, render
from gen.emit.files import FileManager
from gen.model import BoundAPI, Model
from gen.ir import (API, DEFAULT_SOC, Bound, DimEquality, Direction, Divisibility, DType, DTypeCombination, ErrorCase,
                    ErrorCategory, Extent, OpSemantics, Param, ParamKind, RelationKind, ResultRule, ShapeForm,
                    ShapeRule, Soc, ValueCheck, ValueRange)

DIRECTORY = "tests"
SUPPORT_FILES = ("conftest.py", "_aclnn_testing.py", "_goldens.py")

# The runtime's markers (_aclnn_testing, which the generator cannot import: it imports the built
# package; tests/emit/test_runtime_python.py holds these and Case's fields equal to its own).
# UNDOCUMENTED: a dtype the page does not list, chosen at run time; AUTO: an out= array of the
# golden's shape, in the dtype the op gives.
UNDOCUMENTED = "<undocumented>"
AUTO = "<auto>"
# CANN reports a null pointer with this status, whatever row of its error table a page lists it in.
NULLPTR = abi.status_code("ACLNN_ERR_PARAM_NULLPTR")
# The status pages list invalid arguments under (and some list null pointers under it too).
PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")

BASE_RANK = 2
# When a page states no rank for a tensor: what the tests use.
UNSTATED_RANKS = (1, 4)
# The most dimensions aclCreateTensor takes (the simulator's kMaxRank): a page's bound at or above
# it cannot be broken from Python.
MAX_TENSOR_RANK = 32
# Shapes that neither match nor broadcast against SHAPES[BASE_RANK].
MISMATCHED_SHAPE = (4, 5)

# (first, second) shapes that broadcast, for two inputs whose page allows it.
BROADCAST_PAIRS = (((3, 1), (1, 4)), ((1, 4), (3, 1)), ((2, 3, 4), (4,)), ((4,), (2, 3, 4)), ((), (3, 4)),
                   ((3, 4), ()), ((2, 1, 4), (3, 1)))
EMPTY_SHAPES = ((0,), (2, 0, 3))
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
        for name in _FIELDS:
            mine, theirs = getattr(self, name), getattr(base, name)
            if mine is theirs or mine == theirs:  # most fields of most cases: the base's own
                continue
            if isinstance(mine, dict):
                assert theirs.keys() <= mine.keys(), f"{self.id}: {name} drops entries of the base"
                parts.append(f"{name}={ {k: v for k, v in mine.items() if k not in theirs or theirs[k] != v}!r}")
            else:
                parts.append(f"{name}={mine!r}")
        return ", ".join(parts)


_FIELDS = ("dtypes", "shapes", "values", "layout", "noncontiguous", "out", "out_shapes", "out_layout", "none")
_DEFAULTS = Case("")


@dataclass(frozen=True)
class CaseGroup:
    """The cases of one test function (test_<name>), and what they check."""

    name: str
    title: str
    cases: tuple[Case, ...]


@dataclass(frozen=True)
class ErrorTest:
    """The test of one error-table row: calls that must fail with its status, or why it is skipped."""

    function: str
    row: ErrorCase
    cases: tuple[Case, ...] = ()
    skip: str = ""
    unsupported_product: bool = False
    # The status the calls must fail with: the row's, except where CANN's unwritten convention
    # decides (a null pointer is 161001 whatever code the row is listed under).
    status: int = 0
    note: str = ""  # why the status is not the row's


@dataclass(frozen=True)
class RuleTest:
    """The test of one rule the page states across parameters (gen.ir: a dtype-combination row, a
    value range, a dimension equality, a divisibility, a shape rule): calls at its edge that phase 1
    accepts, calls just outside it that phase 1 refuses with `status`, or why it is skipped."""

    function: str
    line: int
    text: str  # the rule, as `python -m gen lint` shows it
    accepted: tuple[Case, ...] = ()
    refused: tuple[Case, ...] = ()
    socs: tuple[str, ...] = ()  # the chips it holds on (() every chip)
    status: int = 0
    skip: str = ""


@dataclass(frozen=True)
class ParamView:
    name: str
    python: str
    kind: str
    direction: str
    domain: Optional[tuple[float, float]]  # None: the support module's default


@dataclass(frozen=True)
class Suite:
    """Everything the template needs for one API's test file."""

    bound: BoundAPI
    params: tuple[ParamView, ...]
    dtypes: dict[str, dict[str, tuple[str, ...]]]
    unsupported_socs: tuple[str, ...]
    out_shape_from: dict[str, tuple[str, ...]]
    out_dtype_from: dict[str, tuple[str, ...]]
    result_rule: str  # gen.ir.ResultRule's name of the kernel's result dtype rule; "" for the runtime's default
    family: str  # the kernel family computing it ("": an elementwise kernel, or none)
    exact: bool  # its results are PyTorch's bit for bit (the semantics file's exact, an exact family op)
    law_offset: str  # a random op's offset parameter: its results compare by law (semantics `law`), "" otherwise
    base: Case
    groups: tuple[CaseGroup, ...]
    golden_skip: str  # why no valid call is compared with a golden (then `base` only runs)
    runs_skip: str  # why `base` is not known to be a valid call (then it does not run either)
    errors: tuple[ErrorTest, ...]
    rules: tuple[RuleTest, ...]
    product_check: bool  # the page marks some chip unsupported: a test checks that it fails there
    notes: tuple[str, ...]  # what the file does not test, for its header

    @property
    def source(self) -> str:
        return f"{self.bound.page.source}:{self.bound.api.line}" if self.bound.api.line else self.bound.page.source

    @property
    def case_count(self) -> int:
        """Test cases pytest collects from the file (a skipped test counts as one)."""
        valid = sum(len(g.cases) for g in self.groups) if not self.golden_skip else 2  # runs + skipped golden
        rules = sum(len(r.accepted) + len(r.refused) or 1 for r in self.rules)
        return valid + sum(len(e.cases) or 1 for e in self.errors) + int(self.product_check) + rules


# ---- facts about the API ----------------------------------------------------------------------------

def dtype_table(api: API) -> dict[str, dict[str, tuple[str, ...]]]:
    """"*": the dtypes of each typed parameter on every product the page gives no own list for;
    then, per SoC with an own list somewhere, the full table of that SoC."""
    typed = [p for p in api.params if p.dtypes or p.dtypes_by_product]
    table = {"*": {p.name: tuple(d.value for d in p.dtypes) for p in typed if p.dtypes}}
    socs = sorted({e.soc for p in typed for e in p.dtypes_by_product}, key=lambda s: s.value)
    for soc in socs:
        table[soc.value] = {p.name: tuple(d.value for d in p.dtypes_for(soc)) for p in typed if p.dtypes_for(soc)}
    return table


def exact_results(semantics: Optional[OpSemantics]) -> bool:
    """Whether the op's results are PyTorch's bit for bit: the semantics file says so, or its
    family computes the op by moving, selecting or converting elements (gen.families.exact)."""
    if semantics is None:
        return False
    family = families.family(semantics.family) if semantics.family else None
    return semantics.exact or (family is not None and families.exact(family, semantics.op))


def law_offset(bound: BoundAPI) -> str:
    """The parameter a random op's stream follows (its family's offset role: the generated check
    asks another offset for another sample); "" for an op compared element by element."""
    semantics = bound.semantics
    if semantics is None or not semantics.law:
        return ""
    roles = families.bind_roles(semantics, [p.name for p in bound.api.params])[0] if semantics.family else {}
    return roles.get("offset", "")


def not_castable_from(dtype: DType) -> Optional[DType]:
    """An expressible dtype that `dtype` cannot be cast to (int8 for a floating input)."""
    return next((d for d in (DType.INT8, DType.BOOL, DType.FLOAT) if not dtype.can_cast(d)), None)


def shape_groups(api: API) -> list[list[str]]:
    """Tensors whose shapes the page relates (`API.shape_group`), in prototype order."""
    of_tensor = api.shape_groups()
    groups: list[list[str]] = []
    seen: set[str] = set()  # the tensors of the groups listed: one look-up, not a scan of them
    for p in api.params:
        if p.kind is ParamKind.TENSOR and p.name not in seen:
            group = of_tensor[p.name]
            seen.update(group)
            groups.append(list(group))
    return groups


def related(a: Param, b: Param, kind: RelationKind) -> bool:
    """Whether the page relates a and b by `kind`, in the notes of either."""
    return b.name in a.related(kind) or a.name in b.related(kind)


def _pair(api: API, kind: RelationKind, stricter: RelationKind) -> Optional[tuple[Param, Param]]:
    """The first two tensor inputs the page relates by `kind`, unless it also relates them by
    the `stricter` relation (a page that says both is read strictly, as the simulator does)."""
    for p in api.inputs:
        for other in p.related(kind):
            q = next((x for x in api.inputs if x.name == other and x.kind is ParamKind.TENSOR), None)
            if p.kind is ParamKind.TENSOR and q is not None and not related(p, q, stricter):
                return p, q
    return None


def broadcast_pair(api: API) -> Optional[tuple[Param, Param]]:
    """Two tensor inputs whose shapes may differ and broadcast."""
    return _pair(api, RelationKind.BROADCAST, RelationKind.SAME_SHAPE)


def promote_pair(api: API) -> Optional[tuple[Param, Param]]:
    """Two tensor inputs whose dtypes may differ and promote."""
    return _pair(api, RelationKind.PROMOTE, RelationKind.SAME_DTYPE)


def dtype_bound_scalars(api: API) -> dict[str, str]:
    """Scalars whose dtype the page binds to a tensor input's ("数据类型与gradOutput一致"): the
    tensor, by scalar."""
    tensors = [p for p in api.inputs if p.kind is ParamKind.TENSOR]
    bound = {}
    for s in api.inputs:
        if s.kind is ParamKind.SCALAR:
            t = next((t for t in tensors if related(s, t, RelationKind.SAME_DTYPE)), None)
            if t is not None:
                bound[s.name] = t.name
    return bound


def rank_bounds(params: list[Param]) -> tuple[int, int]:
    stated = [p.rank for p in params if p.rank is not None]
    if not stated:
        return UNSTATED_RANKS
    lo, hi = max(r[0] for r in stated), min(r[1] for r in stated)
    return (lo, hi) if lo <= hi else stated[0]


def fits(shape: tuple[int, ...], param: Param) -> bool:
    lo, hi = param.rank or UNSTATED_RANKS
    return lo <= len(shape) <= hi


# ---- cases ------------------------------------------------------------------------------------------

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


def _scalar_value(dtype: DType, base: Any) -> Any:
    """The base value of a scalar, held by `dtype` (2 for integers when the base is fractional)."""
    if dtype is DType.BOOL:
        return True
    if dtype.is_integral:
        value = base if isinstance(base, (int, float)) and float(base).is_integer() else 2
        return abs(int(value)) if dtype.value.startswith("UINT") else int(value)
    return float(base) if isinstance(base, (int, float)) else base


def _within_ranges(api: API, values: Mapping[str, Any]) -> bool:
    """Whether host `values` meet the API's value ranges bounded by numbers or by other values
    (those bounded by shapes are the range cases' business)."""
    numbers = {name: float(v) for name, v in values.items() if isinstance(v, (int, float))}
    return not any(rule.param in numbers and rule.refuses(numbers[rule.param], numbers) for rule in api.value_ranges)


@dataclass(frozen=True)
class _Values:
    values: dict[str, Any]
    unknown: tuple[str, ...]  # parameters given a placeholder, not a value the page vouches for


def base_values(api: API) -> _Values:
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
    return _Values(values, tuple(unknown))


def with_semantic_call(values: _Values, api: API, semantics: Optional[OpSemantics]) -> _Values:
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
    return _Values(given, tuple(n for n in values.unknown if n not in given or given[n] is None))


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


def violation(check: ValueCheck) -> dict[str, Any]:
    """Values of the check's parameters that make its `when` true, as the semantics file states
    them (`violation = { selfIsResult = true, negativeSlope = -0.5 }`): the C++ condition itself
    is not parsed; {} when the file gives none."""
    return {arg.param: arg.value for arg in check.violation}



def _layout_dtypes(layout: str, dtypes: Sequence[DType]) -> list[DType]:
    """The dtypes a non-contiguous `layout` is tested in: every one for EVERY_DTYPE_LAYOUT, else the
    first of each element size."""
    if layout == EVERY_DTYPE_LAYOUT:
        return list(dtypes)
    first_of_size: dict[int, DType] = {}
    for dtype in dtypes:
        first_of_size.setdefault(dtype.size, dtype)
    return list(first_of_size.values())

class Planner:
    """Computes one API's cases and error tests."""

    def __init__(self, bound: BoundAPI) -> None:
        self.bound = bound
        self.api = api = bound.api
        self.tensor_inputs = [p for p in api.inputs if p.kind is ParamKind.TENSOR]
        self.list_inputs = [p for p in api.inputs if p.kind is ParamKind.TENSOR_LIST]
        self.tensor_outs = [p for p in out_params(api) if p.kind is ParamKind.TENSOR]
        # How the bindings allocate each output: asked by nearly every case, made once.
        self.plans = output_plans(api, bound.semantics)
        self.groups = shape_groups(api)
        if bound.semantics is not None and bound.semantics.kernel:
            # An elementwise kernel's output is the broadcast of its inputs (gen.api.python.output_plan),
            # whether or not the page relates it to them.
            self.groups = [g for g in self.groups if any(api.param(n).direction is not Direction.OUT for n in g)]
        main = self.groups[0] if self.groups else []
        # Shapes can be varied when every tensor is related to every other (elementwise ops), not
        # where a kernel family's rule ties them (whatever the page's prose relates).
        family = bound.semantics.family if bound.semantics else ""
        self.shapes_free = (len(self.groups) == 1 and not any(p.kind is ParamKind.TENSOR_LIST for p in api.params)
                            and bool(self.tensor_inputs) and not family)
        self.main = [api.param(n) for n in main]
        self.ranks = rank_bounds(self.main)
        self.values = with_semantic_call(base_values(api), api, bound.semantics)
        self.family = families.family(bound.semantics.family) if bound.semantics and bound.semantics.family else None
        # Only a family with a dtype role has one (aclnnQuantize's dtype is the output's, not the inputs').
        dtype_role = (bound.semantics.role("dtype") or "dtype") if (
            bound.semantics and self.family and "dtype" in self.family.roles) else None
        self.family_dtype_arg = dtype_role if dtype_role and any(
            p.name == dtype_role and p.kind is ParamKind.DTYPE for p in api.params) else None
        self.bound_scalars = dtype_bound_scalars(api)
        self.semantics_checks = bound.semantics.checks if bound.semantics else ()
        # The input whose documented dtypes the cases go through: a family's source (where's self,
        # not its condition), else the first tensor input.
        source = bound.family_roles.get(self.family.source) if self.family else None
        self.lead = next((p for p in self.tensor_inputs + self.list_inputs if p.name == source),
                         self.tensor_inputs[0] if self.tensor_inputs else None)
        self.lead_dtypes = [d for d in self.lead.documented_dtypes() if d in EXPRESSIBLE] if self.lead else []
        self.inexpressible = [d for d in self.lead.documented_dtypes() if d not in EXPRESSIBLE] if self.lead else []
        self.base_dtype = self._base_dtype()
        # What the base call's kernel gives, which its outputs must be able to take.
        self.result_dtype = result_rule(bound.semantics).result_dtype(self.base_dtype)
        self.base_rank = min(max(BASE_RANK, self.ranks[0]), self.ranks[1])
        self.base = self._base_case()

    # -- the base case: a valid call every other case varies ------------------------------------------

    def _base_dtype(self) -> DType:
        """FLOAT where documented: the dtype every backend computes most plainly; but where the page
        lists dtype combinations for the default chip, the first of the lead's dtypes whose call is
        one of its rows (aclnnAddRmsNormQuant lists FLOAT32 for x1 on one chip, and only FLOAT16 and
        BFLOAT16 rows on the default one)."""
        first = DType.FLOAT if DType.FLOAT in self.lead_dtypes or not self.lead_dtypes else self.lead_dtypes[0]
        rows = [r for r in self.api.dtype_combinations if r.applies_to(DEFAULT_SOC)]
        for dtype in [first] + [d for d in self.lead_dtypes if d is not first] if rows else []:
            if any(_matches(r, {n: DType(v) for n, v in self.uniform_dtypes(dtype).items()}) for r in rows):
                return dtype
        return first

    def _dtype_of(self, param: Param, dtype: DType) -> str:
        listed = [d for d in param.documented_dtypes() if d in EXPRESSIBLE]
        if not listed:
            # A page that lists only dtypes outside PyTorch's promotion lattice for this tensor
            # (aclnnQuantMatmulV2's UINT64 deqScale) gets the first NumPy holds, not `dtype`, which
            # its phase 1 refuses.
            listed = [d for d in param.documented_dtypes() if d.numpy]
        return (dtype if dtype in listed or not listed else listed[0]).value

    def uniform_dtypes(self, dtype: DType) -> dict[str, str]:
        """Every tensor input in `dtype` (or its own first dtype, where its page lists another
        family), and each scalar bound to a tensor's dtype in that tensor's."""
        dtypes = {p.name: self._dtype_of(p, dtype) for p in self.tensor_inputs + self.list_inputs}
        dtypes.update({s: dtypes[t] for s, t in self.bound_scalars.items()})
        return dtypes

    def at_dtype(self, dtype: DType) -> dict[str, Any]:
        """The Case arguments of the base call with its inputs in `dtype`."""
        dtypes = self.uniform_dtypes(dtype)
        values = {**self.values.values, **{s: _scalar_value(DType(dtypes[s]), self.values.values[s])
                                           for s in self.bound_scalars}}
        if self.family_dtype_arg is not None:
            # A family's dtype argument (the computation's dtype: torch.cumsum(x, dtype=...)) is the
            # inputs' own, as their out= is.
            values[self.family_dtype_arg] = dtype.value
        return self.with_integral_scalars(dtypes, values)

    def with_integral_scalars(self, dtypes: dict[str, str], values: dict[str, Any]) -> dict[str, Any]:
        """The free scalars (bound to no tensor's dtype) as integers (bools) when every tensor input
        is integral (bool): the example's fractional value ("alpha = 1.2") cannot be cast to an
        integral computation, which pages list as an error ("alpha无法转换为self和other推导后的数据类型")."""
        tensors = [DType(dtypes[p.name]) for p in self.tensor_inputs + self.list_inputs if p.name in dtypes]
        if not tensors or not all(d.is_integral or d is DType.BOOL for d in tensors):
            return {"dtypes": dtypes, "values": values}
        family = next((d for d in tensors if d is not DType.BOOL), DType.BOOL)
        dtypes, values = dict(dtypes), dict(values)
        for p in self.api.inputs:
            if p.kind is ParamKind.SCALAR and p.name not in self.bound_scalars and p.name in values:
                if p.documented_dtypes() and all(d.is_floating for d in p.documented_dtypes()):
                    continue  # a scalar the page wants floating whatever the tensors (a probability)
                value = values[p.name]
                if isinstance(value, float) or (family is DType.BOOL and not isinstance(value, bool)):
                    values[p.name] = _scalar_value(family, value)
                    if family in p.documented_dtypes():
                        dtypes[p.name] = family.value
                elif self.base_dtype is DType.BOOL and family in p.documented_dtypes():
                    # A BOOL base call makes this scalar BOOL (2 becomes true): the other integral
                    # cases state its dtype too, as a case derived from the base names what it changes.
                    dtypes[p.name] = family.value
        return {"dtypes": dtypes, "values": values}

    def shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {p.name: shape for p in self.tensor_inputs}

    def _example_shapes(self) -> Optional[dict[str, tuple[int, ...]]]:
        stated = semantic_call_shapes(self.api, self.bound.semantics)
        if stated is not None:
            return stated
        call = self.api.example_call
        if call is None:
            return None
        shapes = {}
        for p in self.tensor_inputs:
            arg = call.arg(p.name)
            if (arg is None or arg.shape is None) and p.optional:
                continue  # an optional input the example leaves out: NULL
            if arg is None or arg.shape is None:
                return None
            shapes[p.name] = tuple(arg.shape)
        return shapes

    @property
    def base_shape(self) -> tuple[int, ...]:
        return SHAPES[self.base_rank]

    def _base_case(self) -> Case:
        shapes: dict[str, Any] = dict(self.shapes(self.base_shape) if self.shapes_free else (
            self._example_shapes() or self.shapes(self.base_shape)))
        # A tensor list: two members of the base shape (the pages state no member shapes), unless
        # the semantics file's valid call gives them.
        shapes.update({p.name: (self.base_shape, self.base_shape) for p in self.list_inputs if p.name not in shapes})
        # An optional tensor the valid call leaves out is passed as None.
        absent = tuple(p.name for p in self.tensor_inputs if p.optional and p.name not in shapes)
        # A family's output whose shape the bindings cannot derive (a concatenation's, a top-k's)
        # is passed as out=, of the golden's shape and dtype (AUTO).
        given = ({plan.param.name: AUTO for plan in self.plans
                  if plan.required_reason is not None} if self.family is not None else {})
        out_shapes = {}
        if self.family is None and shapes == self._example_shapes() and not self.values.unknown:
            # Another such output, of the call the page's example makes (its inputs, and every value
            # the example gives: a reduction it leaves unstated would shape the output otherwise):
            # the example's out= (its shape; its dtype where the page documents it), as make demo passes it.
            for name, (dtype, shape) in self._example_outs().items():
                given[name], out_shapes[name] = dtype, shape
        return Case(self.base_dtype.value, shapes=shapes, none=absent, out=given, out_shapes=out_shapes,
                    **self.at_dtype(self.base_dtype))

    def _example_outs(self) -> dict[str, tuple[str, tuple[int, ...]]]:
        """The outputs the bindings cannot allocate that the page's example gives: (dtype, shape)."""
        call, found = self.api.example_call, {}
        for plan in self.plans:
            arg = call.arg(plan.param.name) if call and plan.required_reason is not None else None
            if arg is None or arg.shape is None or plan.param.kind is not ParamKind.TENSOR:
                continue
            listed = [d for d in plan.param.documented_dtypes() if d in EXPRESSIBLE]
            dtype = arg.dtype if arg.dtype in listed else (listed[0] if listed else None)
            if dtype is not None:
                found[plan.param.name] = (dtype.value, tuple(arg.shape))
        return found

    @property
    def unallocated(self) -> Optional[str]:
        """Why no call can be made at all: an output the bindings cannot allocate and the base call
        does not pass (None when every output is allocated or given)."""
        for plan in self.plans:
            if plan.required_reason is not None and plan.param.name not in self.base.out:
                return f"{plan.required_reason}, and the page's example gives no out= for it"
        return None

    @property
    def base_known(self) -> Optional[str]:
        """Why the base case is not known to be valid (None when it is)."""
        if self.values.unknown:
            return "the page gives no valid value of " + ", ".join(self.values.unknown)
        if self.list_inputs and semantic_call_shapes(self.api, self.bound.semantics) is None:
            return "the page states no shapes for the members of " + ", ".join(p.name for p in self.list_inputs)
        if not self.shapes_free and self._example_shapes() is None:
            return "the page relates the tensors' shapes to nothing the tests can derive, and its example gives none"
        return self.unallocated

    # -- valid cases -----------------------------------------------------------------------------------

    def groups_of_cases(self) -> list[CaseGroup]:
        groups = [CaseGroup("dtypes", "Every documented dtype, all inputs alike", tuple(self.dtype_cases()))]
        if self.family is not None and not self.shapes_free:
            return groups + self.family_groups()
        if not self.shapes_free:
            return groups
        for name, title, cases in (
            ("promotion", "Inputs of different dtypes, promoted (the page's 互推导关系)", self.promotion_cases()),
            ("out_dtypes", "out= of each documented dtype the result casts to", self.out_dtype_cases()),
            ("ranks", "Every documented rank, in every dtype", self.rank_cases()),
            ("layouts", "Non-contiguous inputs (transposed, strided, offset) in every dtype, and device-resident ones",
             self.layout_cases()),
            ("out_layouts", "Non-contiguous out= arrays", self.out_layout_cases()),
            ("empty", "Empty tensors", self.empty_cases()),
            ("broadcast", "Inputs whose shapes broadcast", self.broadcast_cases()),
            ("scalar_dtypes", "NumPy scalars of each documented scalar dtype", self.scalar_cases()),
            ("attributes", "Each value of a bool attribute", self.attribute_cases()),
        ):
            if cases:
                groups.append(CaseGroup(name, title, tuple(cases)))
        return groups

    # -- the cases of an API a kernel family computes -------------------------------------------------
    #
    # Its tensors' shapes are tied by the family's rule (a reduction's output, a product's inner
    # dimension), not by elementwise broadcasting: the cases vary the base call (the semantics
    # file's valid call, else the page's example) in what cannot break the rule: the dtypes, the
    # memory layouts of the inputs and of out=, device residence, bool attributes, and the
    # shapes the family's rule allows (gen.families.Family.shape_variations): the rank, and
    # broadcasting where the page speaks of it.

    def family_groups(self) -> list[CaseGroup]:
        groups = []
        for name, title, cases in (
            ("ranks", "The inputs at every documented rank the family's rule and the call's dimensions allow",
             self.family_rank_cases()),
            ("broadcast", "Inputs whose shapes broadcast as the family's rule allows", self.family_broadcast_cases()),
            ("layouts", "Non-contiguous inputs (transposed, strided, offset) in every dtype, and device-resident ones",
             self.family_layout_cases()),
            ("out_layouts", "Non-contiguous out= arrays", self.family_out_layout_cases()),
            ("attributes", "Each value of a bool attribute", self.attribute_cases()),
        ):
            if cases:
                groups.append(CaseGroup(name, title, tuple(cases)))
        return groups

    def _variations(self, *kinds: str) -> list[tuple[str, list[Optional[str]]]]:
        """The family's shape variations of this API's op: (kind, the parameter playing each role,
        None where none does)."""
        semantics = self.bound.semantics
        assert semantics is not None and self.family is not None
        roles = self.bound.family_roles
        return [(kind, [roles.get(r) for r in named]) for kind, named in
                families.shape_variations(self.family, semantics.op, kinds)]

    def _valid_shapes(self, shapes: dict[str, tuple[int, ...]]) -> bool:
        return all(fits(shape, self.api.param(name)) for name, shape in shapes.items())

    def family_rank_cases(self) -> list[Case]:
        """The inputs at ranks 1 to 4 (within the page's bounds) as the family's rule allows them
        to vary together: alike ("rank", where every dimension the call names exists), or with a
        weight keeping its trailing dimensions ("trailing") or its channel ("channels")."""
        cases: list[Case] = []
        for kind, params in self._variations("rank", "trailing", "channels"):
            lead = params[0]
            if lead is None or self.base.shapes.get(lead) is None:
                continue
            others = [p for p in params[1:] if p is not None and self.base.shapes.get(p) is not None]
            if kind == "rank" and any(self.base.shapes.get(p.name) not in (None, ()) and p.name not in params
                                      for p in self.tensor_inputs):
                continue  # another tensor keeps its shape, made for the base rank (aclnnAminmax's minOut)
            lo, hi = self.api.param(lead).rank or (1, 4)
            for rank in range(max(lo, 2 if kind == "channels" else 1), min(hi, 4) + 1):
                shape = SHAPES[rank]
                if shape == self.base.shapes[lead]:
                    continue
                shapes, values = {lead: shape}, {}
                if kind == "rank":
                    if not self._dims_fit(rank):
                        continue
                    shapes.update({p: shape for p in others})
                elif kind == "trailing":
                    # A tensor of fewer dimensions than the lead's (a weight) keeps as many trailing ones.
                    kept = {p: len(self.base.shapes[p]) for p in others
                            if len(self.base.shapes[p]) < len(self.base.shapes[lead])}
                    if any(n > rank for n in kept.values()):
                        continue
                    shapes.update({p: shape[rank - kept[p]:] if p in kept else shape for p in others})
                    values.update(self._normalized_shape(shape))
                else:
                    shapes.update({p: (shape[1],) for p in others})
                if not self._valid_shapes(shapes):
                    continue
                cases.append(replace(self.base, id=f"rank{rank}", shapes={**self.base.shapes, **shapes},
                                     values={**self.base.values, **values}))
        return cases

    def _dims_fit(self, rank: int) -> bool:
        """Whether every dimension the call's `dim` role names exists at `rank`."""
        dim_param = self.bound.semantics.role("dim") if self.bound.semantics else None
        dim_param = dim_param or ("dim" if any(p.name == "dim" for p in self.api.params) else None)
        given = self.base.values.get(dim_param) if dim_param else None
        dims = list(given) if isinstance(given, (tuple, list)) else [given] if isinstance(given, int) else []
        return all(-rank <= d < rank for d in dims)

    def _normalized_shape(self, shape: tuple[int, ...]) -> dict[str, Any]:
        """normalized_shape (a layer norm's) as the trailing dimensions of `shape` it counted in the base call."""
        name = self.bound.semantics.role("normalized_shape") if self.bound.semantics else None
        old = self.base.values.get(name) if name else None
        if not name or not isinstance(old, (tuple, list)) or len(old) > len(shape):
            return {}
        return {name: tuple(shape[len(shape) - len(old):])}

    def family_broadcast_cases(self) -> list[Case]:
        """Inputs of shapes that broadcast, as the family's rule allows, where the page speaks of
        broadcasting: each of where's inputs (a mask) in turn smaller than the others' common
        shape; a product's operands with broadcasting batch dimensions, or one a vector; an added
        tensor (addmm's self) broadcasting to the product's shape."""
        if not self.page_broadcasts():
            return []
        cases: list[Case] = []
        for kind, params in self._variations("broadcast", "batch", "bias"):
            present = [p for p in params if p is not None and self.base.shapes.get(p) is not None]
            if kind == "broadcast":
                full: tuple[int, ...] = ()
                for tensor in self.tensor_inputs:
                    if self.base.shapes.get(tensor.name) is not None:
                        full = _broadcast(full, self.base.shapes[tensor.name])
                for p in present:  # shapes that broadcast to the common one, which stays the output's
                    for shape in dict.fromkeys((full[1:], (1,) + full[1:], full[:-1] + (1,), ())):
                        cases += self._shape_case(p, {p: shape})
            elif kind == "batch" and len(present) == 2:
                a, b = present
                sa, sb = self.base.shapes[a], self.base.shapes[b]
                if len(sa) < 2 or len(sb) < 2:
                    continue
                for ba, bb in (((2, 1), (3,)), ((), (2,)), ((2,), ()), ((1,), (2,)), ((2,), (1,))):
                    cases += self._shape_case(f"{a}-{b}", {a: ba + sa[-2:], b: bb + sb[-2:]})
                cases += self._shape_case(f"{a}-vector", {a: sa[-1:]})
                cases += self._shape_case(f"{b}-vector", {b: sb[-2:-1]})
            elif kind == "bias" and present and self.api.param(present[0]).direction is Direction.IN:
                product = self._product_shape()
                if product is None:
                    continue
                rows = product[:-1]
                for shape in dict.fromkeys((product[-1:], (1,) * len(rows) + product[-1:], rows + (1,),
                                            (1,) * len(product), (1,), product[1:])):
                    cases += self._shape_case(present[0], {present[0]: shape})
        return [c for c in dict((c.id, c) for c in cases).values()]

    def _shape_case(self, label: str, shapes: dict[str, tuple[int, ...]]) -> list[Case]:
        """The base call with `shapes`, if they differ from its own and the page allows their ranks."""
        if all(self.base.shapes.get(p) == s for p, s in shapes.items()) or not self._valid_shapes(shapes):
            return []
        text = "-".join("x".join(map(str, s)) or "scalar" for s in shapes.values())
        return [replace(self.base, id=f"{label}-{text}", shapes={**self.base.shapes, **shapes})]

    def _product_shape(self) -> Optional[tuple[int, ...]]:
        """The shape of the base call's product (the matmul family's a @ b, with gemm's transposes,
        baddbmm's batch, addbmm's sum over it), which its added tensor broadcasts to."""
        semantics = self.bound.semantics
        assert semantics is not None
        roles = self.bound.family_roles
        a, b = (self.base.shapes.get(roles.get(r, "")) for r in ("a", "b"))
        if a is None or b is None or not a or not b:
            return None

        def transposed(shape: tuple[int, ...], role: str) -> tuple[int, ...]:
            flag = self.base.values.get(roles.get(role, ""))
            return shape[:-2] + shape[:-3:-1] if flag and len(shape) >= 2 else shape

        a, b = transposed(a, "trans_a"), transposed(b, "trans_b")
        if len(b) == 1:  # a matrix times a vector
            return a[:-1]
        batch = _broadcast(a[:-2], b[:-2]) if semantics.op != "addbmm" else ()
        return batch + (a[-2], b[-1])

    def page_broadcasts(self) -> bool:
        """Whether the page speaks of broadcasting the API's tensors (a relation, a parameter's
        notes, the formula's section)."""
        if any(p.related(RelationKind.BROADCAST) for p in self.api.params):
            return True
        texts = [self.api.formula] + [t for p in self.api.params for t in (p.usage, p.description)]
        return any(_BROADCAST_WORD.search(text or "") for text in texts)

    def family_layout_cases(self) -> list[Case]:
        cases = []
        for layout in NONCONTIGUOUS_LAYOUTS:
            least = 2 if layout == "transposed" else 1
            eligible = tuple(p.name for p in self.tensor_inputs
                             if p.name in self.base.shapes and len(self.base.shapes[p.name]) >= least)
            if not eligible:
                continue
            for d in _layout_dtypes(layout, self.computable_dtypes or [self.base_dtype]):
                cases.append(replace(self.base, id=f"{layout}-{d.value}", layout=layout, noncontiguous=eligible,
                                     **self.at_dtype(d)))
        cases.append(replace(self.base, id=f"device-{self.base_dtype.value}", layout="device"))
        return cases

    def family_out_layout_cases(self) -> list[Case]:
        """out= arrays of the golden's shape and the family's dtype (AUTO), laid out non-contiguously."""
        if not self.tensor_outs:
            return []
        # An output the kernel fills from its first element and sizes by its view shape must be
        # contiguous (the pages of masked_select, nonzero and unique: non-contiguous unsupported).
        if any(families.data_dependent(plan.family_shape) for plan in self.plans):
            return []
        # The base's other out entries stay (a page whose table marks an int parameter 输出).
        out = {**self.base.out, **{p.name: AUTO for p in self.tensor_outs}}
        return [replace(self.base, id=f"out-{layout}", out=out, out_layout=layout) for layout in OUT_LAYOUTS]

    def unallocatable(self, dtype: DType) -> str:
        """Why an output cannot be allocated for inputs in `dtype` (aclnnAbs: self lists COMPLEX64,
        out lists no complex dtype, and the page does not say which dtype out then has), else ""."""
        for plan in self.plans:
            p = plan.param
            if p.kind is not ParamKind.TENSOR:
                continue
            if plan.dtype_must_be_documented and plan.documented and dtype not in plan.documented:
                return (f"the page lists {dtype.value} for {self.lead.name if self.lead else 'the inputs'} but not for "
                        f"{p.name}, and does not say which dtype {p.name} then has")
        return ""

    @property
    def computable_dtypes(self) -> list[DType]:
        return [d for d in self.lead_dtypes if not self.unallocatable(d)]

    def dtype_cases(self) -> list[Case]:
        cases = [replace(self.base, id=d.value, skip=self.unallocatable(d), **self.at_dtype(d)) for d in self.lead_dtypes]
        cases += [replace(self.base, id=d.value, skip=f"NumPy cannot hold {d.value}") for d in self.inexpressible]
        return cases or [self.base]

    def promotion_cases(self) -> list[Case]:
        pair = promote_pair(self.api)
        if pair is None:
            return []
        a, b = pair
        # Not every pair (12 dtypes give 132): each dtype against the base dtype in both places,
        # and each with the next one listed (integral with integral, 16-bit with 16-bit, ...).
        listed_a = [d for d in a.documented_dtypes() if d in EXPRESSIBLE]
        listed_b = [d for d in b.documented_dtypes() if d in EXPRESSIBLE]
        pairs = [(self.base_dtype, d) for d in listed_b] + [(d, self.base_dtype) for d in listed_a]
        pairs += [(da, db) for da, db in zip(listed_a, listed_b[1:])]
        cases = []
        for da, db in dict.fromkeys(pairs):
            if da is db or da not in listed_a or db not in listed_b:
                continue
            if a.direction is Direction.INOUT and not db.can_cast(da):
                continue  # the promoted result cannot be written back into selfRef: an error, not a golden
            dtypes = {**self.uniform_dtypes(self.base_dtype), a.name: da.value, b.name: db.value}
            cases.append(replace(self.base, id=f"{a.name}={da.value}-{b.name}={db.value}",
                                 **self.with_integral_scalars(dtypes, self.base.values)))
        return cases

    def out_dtype_cases(self) -> list[Case]:
        cases = []
        for out in self.tensor_outs:
            if out.related(RelationKind.SAME_DTYPE) or not out.dtypes:
                cases.append(replace(self.base, id=f"{out.name}={self.base_dtype.value}",
                                     out={out.name: self.base_dtype.value}))
                continue
            for d in out.documented_dtypes():
                if d in EXPRESSIBLE and d is not self.base_dtype and self.result_dtype.can_cast(d):
                    cases.append(replace(self.base, id=f"{out.name}={d.value}", out={out.name: d.value}))
        return cases

    def rank_values(self) -> list[int]:
        """Every documented rank but the base one (every other case has it)."""
        lo, hi = self.ranks
        return [r for r in range(lo, hi + 1) if r in SHAPES and r != self.base_rank]

    def rank_cases(self) -> list[Case]:
        """Every rank in the base dtype; every other dtype at one rank (taken in turn), not every
        rank in every dtype: the dtypes are the dtype cases' concern."""
        ranks = self.rank_values()
        if not ranks:
            return []
        pairs = [(r, self.base_dtype) for r in ranks]
        others = [d for d in self.computable_dtypes if d is not self.base_dtype]
        pairs += [(ranks[i % len(ranks)], d) for i, d in enumerate(others)]
        return [replace(self.base, id=f"rank{r}-{d.value}", shapes=self.shapes(SHAPES[r]), **self.at_dtype(d))
                for r, d in sorted(pairs, key=lambda rd: rd[0])]

    def layout_cases(self) -> list[Case]:
        eligible = tuple(p.name for p in self.tensor_inputs if p.noncontiguous)
        cases = []
        if eligible:
            lo, hi = self.ranks
            rank = 3 if lo <= 3 <= hi else self.base_rank
            for layout in NONCONTIGUOUS_LAYOUTS:
                if layout == "transposed" and rank < 2 or layout == "strided" and rank < 1:
                    continue
                for d in _layout_dtypes(layout, self.computable_dtypes):
                    cases.append(replace(self.base, id=f"{layout}-{d.value}", shapes=self.shapes(SHAPES[rank]),
                                         layout=layout, noncontiguous=eligible, **self.at_dtype(d)))
        cases.append(replace(self.base, id=f"device-{self.base_dtype.value}", layout="device"))
        return cases

    def out_layout_cases(self) -> list[Case]:
        outs = [p for p in self.tensor_outs if p.noncontiguous]
        if not outs or self.base_rank < 2:
            return []
        out = {p.name: (self.base_dtype.value if p.related(RelationKind.SAME_DTYPE) or not p.dtypes
                        else self._dtype_of(p, self.base_dtype)) for p in outs}
        return [replace(self.base, id=f"out-{layout}", out=out, out_layout=layout) for layout in OUT_LAYOUTS]

    def empty_cases(self) -> list[Case]:
        tensors = self.tensor_inputs + self.tensor_outs
        if not all(p.empty_tensor for p in self.tensor_inputs) or any(p.empty_tensor is False for p in tensors):
            return []
        return [replace(self.base, id="empty" + "x".join(map(str, shape)), shapes=self.shapes(shape))
                for shape in EMPTY_SHAPES if all(fits(shape, p) for p in tensors)]

    def broadcast_cases(self) -> list[Case]:
        pair = broadcast_pair(self.api)
        if pair is None:
            return []
        a, b = pair
        # An input an output must have the same shape as takes the broadcast shape itself.
        # So does an in-place tensor (selfRef): it holds the result.
        pinned = {p.name for p in self.tensor_inputs for o in self.tensor_outs
                  if related(p, o, RelationKind.SAME_SHAPE)}
        pinned |= {p.name for p in self.tensor_inputs if p.direction is Direction.INOUT}
        cases = []
        for sa, sb in BROADCAST_PAIRS:
            full = _broadcast(sa, sb)
            shapes = {**self.shapes(full), a.name: sa, b.name: sb}
            if any(shapes[n] != full for n in pinned):
                continue
            if all(fits(shapes[p.name], p) for p in self.tensor_inputs) and all(fits(full, p) for p in self.tensor_outs):
                label = "x".join(map(str, sa)) or "scalar"
                cases.append(replace(self.base, id=f"{label}-with-{'x'.join(map(str, sb)) or 'scalar'}", shapes=shapes))
        return cases

    def scalar_cases(self) -> list[Case]:
        cases = []
        for p in self.api.inputs:
            if p.kind is not ParamKind.SCALAR:
                continue
            tensor = self.bound_scalars.get(p.name)
            for d in p.documented_dtypes():
                if d not in EXPRESSIBLE:
                    continue
                if tensor is None and not d.can_cast(self.base_dtype):
                    continue  # a call the library rejects (a complex alpha to a real sum): an error row's case
                if tensor is None:
                    value = _scalar_value(d, self.values.values[p.name])
                    if not _within_ranges(self.api, {**self.base.values, p.name: value}):
                        continue  # clipValueMax=True (1) below clipValueMin: an error row's case
                    cases.append(replace(self.base, id=f"{p.name}={d.value}", dtypes={**self.base.dtypes, p.name: d.value},
                                         values={**self.base.values, p.name: value}))
                elif d.value == self._dtype_of(self.api.param(tensor), d) and d is not self.base_dtype:
                    # bound to the tensor's dtype: the two change together
                    cases.append(replace(self.base, id=f"{p.name}={d.value}", **self.at_dtype(d)))
        return cases

    def attribute_cases(self) -> list[Case]:
        # A value the semantics file's own checks refuse (returnZloss=true, which the simulator
        # does not model) is an error case, not a valid call.
        refused = {(v.param, v.value) for check in (self.bound.semantics.checks if self.bound.semantics else ())
                   for v in check.violation if len(check.violation) == 1}
        return [replace(self.base, id=f"{p.name}={not self.values.values[p.name]}",
                        values={**self.base.values, p.name: not self.values.values[p.name]})
                for p in self.api.inputs if p.kind is ParamKind.BOOL and p.name not in self.shape_arguments
                and (p.name, not self.values.values[p.name]) not in refused]

    @functools.cached_property
    def output_dims_arguments(self) -> frozenset[str]:
        """The host arguments the bindings read as an output's dimensions (an adaptive pool's
        outputSize: gen.families.OutputShape.dims_role)."""
        if self.family is None:
            return frozenset()
        rules = {self.family.output_shape, *(r for _, _, r in self.family.op_output_shapes)}
        roles = self.bound.family_roles
        return frozenset(roles[d] for d in (families.OUTPUT_SHAPE[r].dims_role for r in rules
                                            if r in families.OUTPUT_SHAPE) if d in roles)

    @functools.cached_property
    def shape_arguments(self) -> frozenset[str]:
        """The host arguments an input's shape follows, so that another value of one alone is no
        valid call: the family's (gen.families.Family.shape_arguments: index_add's dim), and its
        keepdim when the page lists the output keepdim shapes as an input (aclnnAminmax's minOut)."""
        semantics = self.bound.semantics
        if self.family is None or semantics is None:
            return frozenset()
        roles = self.bound.family_roles
        names = {roles[role] for op, role in self.family.shape_arguments if op == semantics.op and role in roles}
        out = roles.get("out")
        if out is not None and "keepdim" in roles and self.api.param(out).direction is not Direction.OUT:
            names.add(roles["keepdim"])
        return frozenset(names)

    # -- error rows -------------------------------------------------------------------------------------

    def error_tests(self) -> list[ErrorTest]:
        tests = []
        for index, row in enumerate(self.api.errors, start=1):
            if self.unallocated:  # every call stops at the bindings, before the library
                function = f"test_error_row{index}_{row.category.value if row.category else 'unclassified'}"
                tests.append(ErrorTest(function, row, skip=self.unallocated))
                continue
            if row.category is None and self._stated_by_a_check(row):
                # The page's prose (EluBackward: "参数isResult为True时，alpha小于0。") is a value check
                # of the semantics file: its violating values provoke the row.
                row = replace(row, category=ErrorCategory.VALUE)
            category = row.category.value if row.category else "unclassified"
            function = f"test_error_row{index}_{category}"
            where = f"line {row.line}" if row.line else f"row {index}"
            quoted = f"{where}: {row.code} {row.name}: {row.condition}"
            if row.category is None:
                tests.append(ErrorTest(function, row, skip=f"unclassified error-table row ({quoted})"))
                continue
            if row.category is ErrorCategory.UNSUPPORTED_PRODUCT:
                tests.append(ErrorTest(function, row, cases=(self.base,), unsupported_product=True))
                continue
            if row.category is ErrorCategory.NULL_POINTER and row.code not in (NULLPTR, PARAM_INVALID):
                # aclnnStack's "561103: 传入的tensors或out是空指针", aclnnRepeat's "561103: kernel执行失败，
                # 中间结果为null": phase 1 answers a null pointer with ACLNN_ERR_PARAM_NULLPTR before
                # any kernel runs; a status of the inner errors cannot be provoked by a null argument.
                tests.append(ErrorTest(function, row, skip=f"a null argument is rejected in phase 1 with {NULLPTR}, "
                                                            f"not the inner error {row.code} ({quoted})"))
                continue
            earlier = next((e for e in self.api.errors[:index - 1]
                            if e.condition == row.condition and e.code != row.code), None)
            if earlier is not None:
                # aclnnInplaceCopy lists "传入的selfRef或src是空指针时" under 161001 and again under
                # 161002: one call cannot give both; the first row is tested.
                tests.append(ErrorTest(function, row, skip=f"the page gives the same condition status {earlier.code} "
                                                            f"at line {earlier.line} ({quoted})"))
                continue
            cases, reason = self._error_cases(row)
            status, note = row.code, ""
            if row.category is ErrorCategory.NULL_POINTER and row.code != NULLPTR:
                # aclnnEqTensor lists "传入的self、other、out是空指针时" under 161002 as well as under
                # 161001: CANN's null checks (OP_CHECK_NULL) come first and return 161001.
                status, note = NULLPTR, f"the page lists it under {row.code}; CANN reports a null pointer as {NULLPTR}"
            needs_base = row.category not in (ErrorCategory.NULL_POINTER, ErrorCategory.UNSUPPORTED_DTYPE,
                                              ErrorCategory.RANK)
            if cases and needs_base and self.base_known:
                cases, reason = [], self.base_known
            tests.append(ErrorTest(function, row, cases=tuple(cases),
                                   skip="" if cases else f"{reason} ({quoted})", status=status, note=note))
        return tests

    def _stated_by_a_check(self, row: ErrorCase) -> bool:
        """A value check of the row's status whose violating values set parameters the row names, all of them."""
        return any(c.status == row.code and c.violation and set(violation(c)) <= set(row.params)
                   for c in self.semantics_checks)

    def _named(self, row: ErrorCase) -> list[Param]:
        names_ = {p.name for p in self.api.params}
        return [self.api.param(n) for n in row.params if n in names_]

    @property
    def error_base(self) -> Case:
        """The base call of the error rows: out= arrays given by the caller (AUTO) get the dtype
        they have in the base call (the input the family names, or the fixed one) and the
        golden's shape, so that a row changing an input's dtype or shape leaves them as they were."""
        semantics, family = self.bound.semantics, self.family
        if semantics is None or family is None or not any(v == AUTO for v in self.base.out.values()):
            return self.base
        out: dict[str, str] = dict(self.base.out)
        out_shapes: dict[str, Any] = dict(self.base.out_shapes)
        roles = self.bound.family_roles
        for plan in self.plans:
            name = plan.param.name
            if out.get(name) != AUTO:
                continue
            role = next((r for r, q in roles.items() if q == name), None)
            fixed = families.fixed_dtype(family, semantics.op, role) if role else None
            listed = plan.param.documented_dtypes()
            if plan.dtype_from:
                out[name] = self.base.dtypes.get(self.api.params[plan.dtype_from[0]].name, self.base_dtype.value)
            elif fixed or len(listed) == 1:
                out[name] = fixed or listed[0].value
            else:
                continue
            out_shapes[name] = AUTO
        return replace(self.base, out=out, out_shapes=out_shapes)

    def _family_out_shapes(self) -> dict[str, Any]:
        """A family's outputs shaped as its rule shapes them from the base call's input (scatter's
        out: self's base shape), so that an input of another shape disagrees with them."""
        semantics = self.bound.semantics
        if semantics is None or self.family is None or families.output_shape(self.family, semantics.op, "*") != "same":
            return {}
        source = self.bound.family_roles.get("self")
        if source not in self.base.shapes:
            return {}
        return {o.name: self.base.shapes[source] for o in self.tensor_outs}

    def _error_cases(self, row: ErrorCase) -> tuple[list[Case], str]:
        category = row.category
        named = self._named(row)
        base = self.error_base
        if category is ErrorCategory.NULL_POINTER:
            candidates = named or [p for p in self.api.params if p.kind and p.kind.is_pointer]
            inputs = [p for p in candidates if p.kind and p.kind.is_pointer and not p.optional and p.direction is not Direction.OUT]
            return ([replace(base, id=f"{p.name}=None", none=base.none + (p.name,)) for p in inputs],
                    "the parameters it names are outputs: out= cannot pass NULL (None allocates them)")
        if category is ErrorCategory.UNSUPPORTED_DTYPE:
            cases = []
            for p in named:
                if p.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.SCALAR) or not p.documented_dtypes():
                    continue
                if all(d in p.dtypes_for(soc) for soc in Soc for d in EXPRESSIBLE):
                    continue
                if p.name in base.none:  # the valid call leaves it NULL: a NULL has no dtype to get wrong
                    continue
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}={UNDOCUMENTED}", out={**base.out, p.name: UNDOCUMENTED}))
                else:
                    # out= given: an output the binding would derive from an undocumented dtype cannot be allocated
                    cases.append(replace(base, id=f"{p.name}={UNDOCUMENTED}", dtypes={**base.dtypes, p.name: UNDOCUMENTED},
                                         out={**base.out, **{o.name: self._out_dtype(o) for o in self.tensor_outs}}))
            return cases, "every dtype NumPy can hold is documented for the parameters it names"
        if category is ErrorCategory.RANK:
            cases = []
            beyond = False  # a bound no tensor can exceed
            for p in named:
                if p.kind is not ParamKind.TENSOR or p.rank is None:
                    continue
                if p.rank[1] >= MAX_TENSOR_RANK:
                    beyond = True
                    continue
                shape = (1,) * (p.rank[1] + 1 - len(self.base_shape)) + self.base_shape
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}-rank{len(shape)}", out={**base.out, p.name: self.base_dtype.value},
                                         out_shapes={**base.out_shapes, p.name: shape}))
                else:
                    # An optional input the valid call leaves out is passed, at the rank out of bounds
                    # (left out, the call stays valid: aclnnGroupedBiasAddGradV2's groupIdxOptional).
                    cases.append(replace(base, id=f"{p.name}-rank{len(shape)}", none=tuple(n for n in base.none if n != p.name),
                                         shapes={**base.shapes, **self._with_same_shape(p, shape)}))
            return cases, (f"aclCreateTensor makes no tensor of more than {MAX_TENSOR_RANK} dimensions" if beyond else
                           "it names no tensor with a documented rank bound")
        if category in (ErrorCategory.SHAPE_MISMATCH, ErrorCategory.BROADCAST):
            cases = []
            for p in named:
                if p.kind is not ParamKind.TENSOR:
                    continue
                # An optional input the valid call leaves out is passed, at the mismatched shape: left
                # out, the call stays valid (aclnnMoeGatingTopK's biasOptional).
                base_for_p = replace(base, none=tuple(n for n in base.none if n != p.name))
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}-shape", out={**base.out, p.name: self._out_dtype(p)},
                                         out_shapes={**base.out_shapes, p.name: MISMATCHED_SHAPE}))
                elif len(self.tensor_inputs) > 1:
                    pinned = self._family_out_shapes()
                    cases.append(replace(base_for_p, id=f"{p.name}-shape", shapes={**base.shapes, p.name: MISMATCHED_SHAPE},
                                         out={**base.out, **{o: self._out_dtype(self.api.param(o)) for o in pinned}},
                                         out_shapes={**base.out_shapes, **pinned}))
                elif self.tensor_outs:  # the one input against outputs of the base shape (allocated, they would follow it)
                    cases.append(replace(base, id=f"{p.name}-shape", shapes={**base.shapes, p.name: MISMATCHED_SHAPE},
                                         out={**base.out, **{o.name: self._out_dtype(o) for o in self.tensor_outs}},
                                         out_shapes={**base.out_shapes, **{o.name: self.base_shape for o in self.tensor_outs}}))
            return cases, "it names no tensor whose shape can be made to disagree"
        if category is ErrorCategory.NOT_CASTABLE:
            cases = []
            for p in named:
                if p.kind is not ParamKind.TENSOR:
                    continue
                if p.direction is Direction.OUT:
                    bad = not_castable_from(self.result_dtype)
                    if bad is not None:
                        cases.append(replace(base, id=f"{p.name}={bad.value}", out={**base.out, p.name: bad.value}))
                elif p.related(RelationKind.SAME_DTYPE):
                    other = next((d for d in p.documented_dtypes() if d in EXPRESSIBLE and d is not self.base_dtype), None)
                    if other is not None:
                        cases.append(replace(base, id=f"{p.name}={other.value}", dtypes={**base.dtypes, p.name: other.value}))
            for p in named:
                if p.kind is ParamKind.SCALAR:  # a scalar the computation cannot take ("不可转换为FLOAT")
                    bad = next((d for d in (DType.COMPLEX64, DType.DOUBLE) if not d.can_cast(self.base_dtype)), None)
                    if bad is not None:
                        cases.append(replace(base, id=f"{p.name}={bad.value}", dtypes={**base.dtypes, p.name: bad.value},
                                             values={**base.values, p.name: 1}))
            return cases, "it names no output to give an uncastable dtype, nor an input bound to the same dtype"
        if category is ErrorCategory.DTYPE_MISMATCH:
            # One named tensor at a dtype its own row documents, the others as in the base call: a
            # dtype valid for the tensor alone, so the status can only come from the mismatch.
            tensors = [p for p in named if p.kind is ParamKind.TENSOR]
            # Those the row ties together, where it also names a tensor another of its clauses
            # speaks of alone (aclnnReluGradV4's "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8").
            tied = [p for p in tensors if any(related(p, q, RelationKind.SAME_DTYPE) for q in tensors if q is not p)]
            tensors = tied if len(tied) > 1 else tensors
            cases = []
            for p in tensors if len(tensors) > 1 else []:
                others = {DType(base.dtypes[q.name]) if q.name in base.dtypes else DType(self._out_dtype(q))
                          for q in tensors if q is not p}
                other = next((d for d in p.documented_dtypes() if d in EXPRESSIBLE and d not in others), None)
                if other is None:
                    continue
                if p.direction is Direction.OUT:
                    # The other outputs passed at the dtypes `others` holds: one the bindings allocate
                    # takes the family's (aclnnUniqueConsecutive's inverseOut: INT64), no mismatch.
                    cases.append(replace(base, id=f"{p.name}={other.value}", out={
                        **base.out, **{o.name: self._out_dtype(o) for o in self.tensor_outs}, p.name: other.value}))
                else:
                    cases.append(replace(base, id=f"{p.name}={other.value}", dtypes={**base.dtypes, p.name: other.value},
                                         out={**base.out, **{o.name: self._out_dtype(o) for o in self.tensor_outs}}))
            return cases, "it names fewer than two tensors, or none with a second documented dtype"
        if category is ErrorCategory.EMPTY_TENSOR:
            cases = []
            for p in named:
                if p.kind is ParamKind.TENSOR and p.direction is not Direction.OUT and p.empty_tensor is False:
                    cases.append(replace(base, id=f"{p.name}-empty", shapes={**base.shapes, **self._with_same_shape(p, (3, 0))}))
            return cases, "it names no input the page forbids to be empty"
        if category is ErrorCategory.FORMAT:
            return [], "NumPy arrays are ND: a format error cannot be provoked from Python"
        if category is ErrorCategory.VALUE:
            checks = [c for c in self.semantics_checks if c.status == row.code]
            if not checks:
                return [], f"the semantics file states no value check with status {row.code}"
            cases = []
            for check in checks:
                values = violation(check)
                if values and set(values) <= set(base.values):
                    label = ",".join(f"{k}={v}" for k, v in values.items())
                    cases.append(replace(base, id=label, values={**base.values, **values}))
            return cases, ("the semantics file's check is a C++ condition without values that violate it "
                           "(a `violation` table would give them)")
        return [], f"no call is known for category {category.value if category else None}"

    def _with_same_shape(self, param: Param, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        """`shape` for `param` and for the inputs that must have its shape (not those that may broadcast)."""
        same = set(param.related(RelationKind.SAME_SHAPE))
        return {p.name: shape for p in self.tensor_inputs if p is param or p.name in same}

    def _out_dtype(self, out: Param) -> str:
        return self._dtype_of(out, self.base_dtype) if out.dtypes else self.base_dtype.value


class RulePlanner:
    """The calls that test the page's cross-parameter rules, each varying the error rows' base call
    (`Planner.error_base`, which the golden tests show valid) in what the rule is about only."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.api = planner.api
        self.base = planner.error_base
        semantics = planner.bound.semantics
        # Outputs whose out= shape the suite can give: the golden's, or the broadcast of related inputs.
        self.golden = bool(semantics and semantics.golden)
        self.shaped_outs = {plan.param.name for plan in planner.plans
                            if plan.required_reason is None and plan.shape_from}

    def tests(self) -> list[RuleTest]:
        tests: list[RuleTest] = []
        tests += self.combination_tests()
        planned: tuple[tuple[str, Sequence[Any], Callable[[Any], tuple[list[Case], list[Case], str]]], ...] = (
            ("value_range", self.api.value_ranges, self.range_cases),
            ("dim_equality", self.api.dim_equalities, self.dim_cases),
            ("divisibility", self.api.divisibility, self.divisible_cases),
            ("shape_rule", self.api.shape_rules, self.shape_cases))
        for kind, rules, plan in planned:
            for index, rule in enumerate(rules, start=1):
                function = f"test_rule_line{rule.line}_{kind}{index}"
                accepted, refused, why = plan(rule) if not self.planner.base_known else ([], [], self.planner.base_known)
                tests.append(RuleTest(function, rule.line, rule.describe(), tuple(accepted), tuple(refused),
                                      status=PARAM_INVALID, skip="" if accepted or refused else why))
        return tests

    # -- dtype combinations -------------------------------------------------------------------------

    def combination_tests(self) -> list[RuleTest]:
        """One call per row (with that row's dtypes, on a chip it holds on), and one call whose
        dtypes are each documented for their parameter on the default chip but together are no
        row of that chip's: refused."""
        tests: list[RuleTest] = []
        accepted_on_default: list[tuple[DTypeCombination, Case]] = []
        for index, row in enumerate(self.api.dtype_combinations, start=1):
            socs = tuple(s.value for s in row.products)
            function = f"test_rule_line{row.line}_dtype_combination{index}"
            case, why = self.combination_case(row) if not self.planner.base_known else (None, self.planner.base_known)
            tests.append(RuleTest(function, row.line, row.describe(), (case,) if case else (), (), socs,
                                  PARAM_INVALID, "" if case else why))
            if case is not None and row.applies_to(DEFAULT_SOC):
                accepted_on_default.append((row, case))
        if accepted_on_default:
            refused = self.uncombined(accepted_on_default)
            row = accepted_on_default[0][0]
            socs = (DEFAULT_SOC.value,) if any(r.products for r in self.api.dtype_combinations) else ()
            tests.append(RuleTest("test_rule_dtype_combination_not_listed", row.line,
                                  f"dtypes each documented but in no combination of the table at line {row.line}",
                                  (), (refused,) if refused else (), socs, PARAM_INVALID,
                                  "" if refused else "every combination of documented dtypes is a row of the table"))
        return tests

    def combination_case(self, row: DTypeCombination) -> tuple[Optional[Case], str]:
        base = self.base
        dtypes, values, out = dict(base.dtypes), dict(base.values), dict(base.out)
        out_shapes: dict[str, Any] = dict(base.out_shapes)
        none = list(base.none)
        for cell in row.cells:
            param = self.api.param(cell.param)
            dtype = next((d for d in cell.dtypes if d in EXPRESSIBLE), None)
            if dtype is None and cell.dtypes and not cell.absent and not cell.same_as:
                return None, f"NumPy cannot hold {cell.param}'s {'/'.join(d.value for d in cell.dtypes)}"
            if dtype is None and cell.same_as:
                same = dtypes.get(cell.same_as) or out.get(cell.same_as) or values.get(cell.same_as)
                dtype = DType(same) if same and same != AUTO else None
            if dtype is None:  # "null" alone: the parameter left out, where it may be
                if cell.absent and param.optional and param.direction is not Direction.OUT:
                    none.append(param.name)
                    continue
                if cell.absent and param.direction is Direction.OUT:
                    return None, f"the row has {cell.param} NULL, which out= cannot pass"
                return None, f"the row gives {cell.param} no dtype the suite can pass"
            if param.direction is Direction.OUT:
                if param.kind is not ParamKind.TENSOR:
                    return None, f"{cell.param} is an output list"
                if not self.golden and param.name not in self.shaped_outs:
                    return None, f"the suite cannot shape {cell.param} without a golden"
                out[param.name] = dtype.value
                if self.golden:
                    out_shapes[param.name] = AUTO
            elif param.kind is ParamKind.DTYPE:
                values[param.name] = dtype.value
            elif param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.SCALAR):
                if param.name in none:
                    none.remove(param.name)
                if param.name not in base.shapes and param.kind is not ParamKind.SCALAR:
                    return None, f"the base call gives {cell.param} no shape"
                dtypes[param.name] = dtype.value
        return replace(base, id=f"line{row.line}", dtypes=dtypes, values=values, out=out, out_shapes=out_shapes,
                       none=tuple(none)), ""

    def _assignment(self, case: Case) -> dict[str, DType]:
        """The dtype each typed parameter has in a case (those it leaves NULL have none)."""
        found = {}
        for p in self.api.params:
            given = case.dtypes.get(p.name) or case.out.get(p.name) or (
                case.values.get(p.name) if p.kind is ParamKind.DTYPE else None)
            if p.name not in case.none and given and given != AUTO:
                found[p.name] = DType(given)
        return found

    def uncombined(self, accepted: list[tuple[DTypeCombination, Case]]) -> Optional[Case]:
        """A row's call with one input's dtype changed to another its own row documents on the
        default chip, so that no row of that chip matches: only the table can refuse it."""
        rows = [r for r in self.api.dtype_combinations if r.applies_to(DEFAULT_SOC)]
        row, case = accepted[0]
        for cell in row.cells:
            param = self.api.param(cell.param)
            if param.direction is Direction.OUT or param.kind is not ParamKind.TENSOR or param.name not in case.dtypes:
                continue
            for dtype in param.dtypes_for(DEFAULT_SOC):
                if dtype not in EXPRESSIBLE or dtype.value == case.dtypes[param.name]:
                    continue
                assignment = {**self._assignment(case), param.name: dtype}
                if not any(_matches(r, assignment) for r in rows):
                    return replace(case, id=f"{param.name}={dtype.value}", dtypes={**case.dtypes, param.name: dtype.value})
        return None

    # -- value ranges --------------------------------------------------------------------------------

    def _bound(self, bound: Optional[Bound]) -> Optional[int]:
        """What a bound stands for in the base call (None: unbounded, or not known)."""
        if bound is None:
            return None
        extent: float = 0
        if bound.extent is Extent.VALUE:
            other = self.base.values.get(bound.tensor)
            if not isinstance(other, (int, float)) or isinstance(other, bool):
                return None
            extent = other
        elif bound.extent is not Extent.NUMBER:
            shape = self.base.shapes.get(bound.tensor)
            if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
                return None
            if bound.extent is Extent.RANK:
                extent = max(len(shape), 1)
            else:
                axis = int(bound.axis) if bound.axis.lstrip("-").isdigit() else self.base.values.get(bound.axis)
                if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
                    return None
                extent = shape[axis]
        value = bound.offset + bound.sign * extent
        return int(value) if float(value).is_integer() else None

    def range_cases(self, rule: ValueRange) -> tuple[list[Case], list[Case], str]:
        param = self.api.param(rule.param)
        current = self.base.values.get(rule.param)
        integral_scalar = param.kind is ParamKind.SCALAR and isinstance(current, int) and not isinstance(current, bool)
        if param.kind not in (ParamKind.INT, ParamKind.INT_ARRAY) and not integral_scalar or \
                param.direction is Direction.OUT:
            return [], [], f"{rule.param} is no integer argument the suite sets"
        if param.kind is ParamKind.INT_ARRAY and not current:
            return [], [], f"the base call gives {rule.param} no element"
        low, high = self._bound(rule.low), self._bound(rule.high)
        edges = []
        if low is not None and rule.low is not None:
            edge = low if rule.low.inclusive else low + 1
            edges.append((edge, edge - 1))
        if high is not None and rule.high is not None:
            edge = high if rule.high.inclusive else high - 1
            edges.append((edge, edge + 1))
        if not edges:
            return [], [], "its bounds cannot be evaluated on the base call"
        # A number bounding an argument of a kernel family (a pool's kernel, a group count, a step) is
        # one of the conditions the family's arithmetic ties to the shapes and the other arguments:
        # its edge alone is no valid call in general; outside it, the call is refused whatever the rest.
        tied = self.planner.family is not None and all(
            b is None or b.extent in (Extent.NUMBER, Extent.VALUE) for b in (rule.low, rule.high))
        accepted: list[Case] = []
        refused: list[Case] = []
        for inside, outside in edges:
            for value, bucket in ((inside, accepted), (outside, refused)):
                given: Any = value
                if param.kind is ParamKind.INT_ARRAY and isinstance(current, tuple):
                    # the first element at the edge, the others as they were
                    given = (value,) + current[1:]
                    if value in given[1:]:
                        continue
                if bucket is accepted and given != current and (tied or rule.param in self.planner.shape_arguments):
                    continue  # valid only with the tensors' shapes changed to follow it
                if bucket is refused and tied and value < 0 and rule.param in self.planner.output_dims_arguments:
                    continue  # the bindings cannot size an output of a negative extent to call with
                case = replace(self.base, id=f"{rule.param}={value}", values={**self.base.values, rule.param: given})
                if case not in bucket:
                    bucket.append(case)
        return accepted, refused, ""

    # -- dimensions ----------------------------------------------------------------------------------

    def _dims(self, name: str) -> Optional[tuple[int, ...]]:
        shape = self.base.shapes.get(name)
        return shape if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) else None

    def dim_cases(self, rule: DimEquality) -> tuple[list[Case], list[Case], str]:
        a, b = self._dims(rule.param), self._dims(rule.other)
        if a is None or b is None:
            return [], [], "the base call does not give both tensors' shapes"
        if not (-len(a) <= rule.axis < len(a) and -len(b) <= rule.other_axis < len(b)):
            return [], [], "the base call's tensors lack the dimensions it names"
        if a[rule.axis] != b[rule.other_axis]:
            return [], [], "the base call does not meet it"
        changed = list(a)
        changed[rule.axis] += 1
        refused = replace(self.base, id=f"{rule.param}-dim{rule.axis}", shapes={**self.base.shapes,
                                                                                rule.param: tuple(changed)})
        return [replace(self.base, id="base")], [refused], ""

    def divisible_cases(self, rule: Divisibility) -> tuple[list[Case], list[Case], str]:
        shape = self._dims(rule.param)
        divisor = int(rule.divisor) if rule.divisor.isdigit() else self.base.values.get(rule.divisor)
        if shape is None or rule.axis is None or not isinstance(divisor, int) or divisor < 2:
            return [], [], "the base call does not give the tensor's shape or the divisor"
        if not -len(shape) <= rule.axis < len(shape) or shape[rule.axis] % divisor:
            return [], [], "the base call does not meet it"
        changed = list(shape)
        changed[rule.axis] += 1
        refused = replace(self.base, id=f"{rule.param}-dim{rule.axis}={changed[rule.axis]}",
                          shapes={**self.base.shapes, rule.param: tuple(changed)})
        return [replace(self.base, id="base")], [refused], ""

    # -- shape rules ---------------------------------------------------------------------------------

    def shape_cases(self, rule: ShapeRule) -> tuple[list[Case], list[Case], str]:
        param, when = self.api.param(rule.param), self.api.param(rule.when)
        if param.direction is Direction.OUT and param.kind is not ParamKind.TENSOR:
            return [], [], f"{rule.param} is an output list"
        value = _condition_value(when, rule)
        if value is None:
            return [], [], f"no value of {rule.when} is known to meet the condition"
        if rule.form is ShapeForm.SCALAR:
            # One element, of the least rank the page allows (aclnnDynamicQuantV4's pertensor
            # scaleOut, of rank 1-7: (1,)).
            shape: tuple[int, ...] = (1,) * (param.enforced_rank[0] if param.enforced_rank else 0)
            wrong: tuple[int, ...] = SHAPES[BASE_RANK]
        else:
            shapes = [self._dims(n) for n in rule.others]
            if any(s is None for s in shapes):
                return [], [], "the base call does not give the tensors' shapes"
            shape = functools.reduce(_broadcast, shapes, ())  # type: ignore[arg-type]
            wrong = (1,) if shape and functools.reduce(lambda x, y: x * y, shape, 1) != 1 else (2,)
        values = {**self.base.values, rule.when: value}
        if param.direction is not Direction.OUT:
            # A rule on an input (a backward's gradOutput: one element once the forward reduced)
            # shapes the input itself.
            accepted = replace(self.base, id=f"{rule.when}={value}", values=values,
                               shapes={**self.base.shapes, rule.param: shape})
            return [accepted], [replace(accepted, id=f"{rule.when}={value}-{rule.param}{list(wrong)}",
                                        shapes={**self.base.shapes, rule.param: wrong})], ""
        dtype = self.planner._out_dtype(param)
        accepted = replace(self.base, id=f"{rule.when}={value}", values=values, out={**self.base.out, rule.param: dtype},
                           out_shapes={**self.base.out_shapes, rule.param: shape})
        refused = replace(accepted, id=f"{rule.when}={value}-{rule.param}{list(wrong)}",
                          out_shapes={**self.base.out_shapes, rule.param: wrong})
        return [accepted], [refused], ""


def _condition_value(when: Param, rule: ShapeRule) -> Any:
    """A value of the host argument that makes the rule hold: one of its values, or for a negated
    rule on a reduction, another of CANN's reductions (none/mean/sum, 0/1/2)."""
    if not rule.negated:
        value = rule.values[0]
        return int(value) if when.kind is ParamKind.INT and value.lstrip("-").isdigit() else (
            value if when.kind is ParamKind.STRING else None)
    if "reduction" not in when.name.lower():
        return None
    choices = ("0", "1", "2") if when.kind is ParamKind.INT else ("none", "mean", "sum")
    left = [c for c in choices if c not in rule.values]
    if not left:
        return None
    return int(left[0]) if when.kind is ParamKind.INT else left[0]


def _matches(row: DTypeCombination, assignment: dict[str, DType]) -> bool:
    """Whether a combination row allows the dtypes of a call (as the simulator's phase 1 judges:
    a parameter the call leaves NULL matches every cell)."""
    for cell in row.cells:
        dtype = assignment.get(cell.param)
        if dtype is None or dtype in cell.dtypes:
            continue
        if cell.same_as and assignment.get(cell.same_as) is dtype:
            continue
        return False
    return True


# The pages' word for broadcasting ("满足broadcast关系", "广播").
_BROADCAST_WORD = re.compile(r"broadcast|广播", re.I)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(max(x, y) for x, y in zip(a, b))


# ---- the suite of one API ---------------------------------------------------------------------------

def suite(bound: BoundAPI) -> Suite:
    api, semantics = bound.api, bound.semantics
    planner = Planner(bound)
    params = tuple(ParamView(
        name=p.name, python=names.python_identifier(p.name), kind=p.kind.value if p.kind else "unknown",
        direction=p.direction.value,
        domain=(lambda d: (d.low, d.high) if d else None)(semantics.domain(p.name) if semantics else None),
    ) for p in api.params)
    out_shape_from, out_dtype_from = {}, {}
    # A family's outputs are shaped by its rule (the golden's shape), not by broadcasting; those
    # the caller passes (out=) have the dtype of the input the family names.
    for plan in planner.plans if not (semantics and semantics.family) else ():
        if plan.required_reason is None:
            out_shape_from[plan.param.name] = tuple(api.params[i].name for i in plan.shape_from)
            out_dtype_from[plan.param.name] = tuple(api.params[i].name for i in plan.dtype_from)
    for plan in planner.plans if semantics and semantics.family else ():
        if plan.required_reason is not None and plan.dtype_from:
            out_dtype_from[plan.param.name] = tuple(api.params[i].name for i in plan.dtype_from)

    notes = []
    golden_skip = ""
    if not semantics or not semantics.golden:
        golden_skip = f"{bound.page.source}: the semantics file gives no golden reference for {api.name}"
    elif planner.base_known:
        golden_skip = planner.base_known
    groups = tuple(planner.groups_of_cases()) if not golden_skip else ()
    if planner.family is not None:
        notes.append(f"shapes other than those the {planner.family.name} family's rule allows (its ranks, and "
                     "broadcasting where the page speaks of it)")
    elif not planner.shapes_free:
        notes.append("shapes, layouts and broadcasting are not varied: " + (
            "the page does not relate every tensor's shape to the others'"))
    unsupported = tuple(soc.value for soc in dict.fromkeys(p.soc for p in bound.page.products if p.soc is not None)
                        if bound.page.supports(soc) is False)
    return Suite(
        bound=bound, params=params, dtypes=dtype_table(api), unsupported_socs=unsupported,
        out_shape_from=out_shape_from, out_dtype_from=out_dtype_from,
        result_rule="" if (rule := result_rule(semantics)) is ResultRule.PROMOTED else rule.value,
        family=semantics.family if semantics else "",
        exact=exact_results(semantics),
        law_offset=law_offset(bound),
        base=planner.base, groups=groups,
        golden_skip=golden_skip, runs_skip=planner.base_known or "", errors=tuple(planner.error_tests()),
        rules=tuple(RulePlanner(planner).tests()),
        product_check=bool(unsupported) and not planner.unallocated and not any(
            r.category is ErrorCategory.UNSUPPORTED_PRODUCT for r in api.errors),
        notes=tuple(notes),
    )


def emit(model: Model, files: FileManager) -> None:
    for support in SUPPORT_FILES:
        files.write_derived(f"{DIRECTORY}/{support}", GENERATOR_ONLY, functools.partial(copied, f"{DIRECTORY}/{support}"))
    taken: dict[str, str] = {}
    for bound in model.apis:
        path = f"{DIRECTORY}/{names.test_file(bound.name)}"
        if path in taken:  # as the bindings say: both would be one Python function
            raise ValueError(f"{bound.name} and {taken[path]} both become aclnn.{bound.python_name}")
        taken[path] = bound.name
        files.write_derived(path, bound.fingerprint, functools.partial(suite_text, bound))


def suite_text(bound: BoundAPI) -> str:
    return render("tests/test_api.py.j2", suite=suite(bound))
