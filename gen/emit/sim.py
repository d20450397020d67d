"""generated/sim/ops_<k>.cpp: the simulator's entry points of every bound API.

For each API, a translation unit holds a constexpr spec built from the IR (one `ParamSpec` row per
parameter: kind, direction, optionality, the page's dtypes per chip, rank bounds, whether empty
tensors are allowed, formats, relations; the page's product table), the semantics file's value
checks and kernel functor, and the two extern "C" entry points, each one call into the
hand-written core in runtime/sim (see runtime/sim/include/aclnn_sim/entry.h). Every bound API gets
entries: one the simulator cannot compute still checks its arguments in phase 1 and answers
"not simulated" (561003) in phase 2.

This module turns IR into the rows and snippets the template lays out (templates/sim/).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple, Optional, Sequence

from gen import abi, conventions, families, names
from gen.api.kinds import KINDS, traits
from gen.conventions import PLAIN_FORMATS
from gen.cache import digest
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.ir import (API, Bound, Condition, Direction, DType, ErrorCategory, Extent, IntegerMath, Page, Param, ParamKind, Product,
                    enforced_ranks,
                    RelationKind, Reserved, ResultRule, ShapeForm, Soc)
from gen.api.kinds import kind_of
from gen.model import BoundAPI, Model, translation_units, unit_path

# The status CANN gives an argument outside what the page allows, unless the page says otherwise.
PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")


_DIRECTION_ENUM = {Direction.IN: "kIn", Direction.OUT: "kOut", Direction.INOUT: "kInOut"}

# The dtypes a page lists for a kernel's input that make the kernel computed in complex arithmetic.
_COMPLEX_DTYPES = frozenset({DType.COMPLEX64, DType.COMPLEX128})

_MASK_BITS = 64  # the core's parameter, dtype and format sets are 64-bit masks

_CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t class compl
const constexpr const_cast continue decltype default delete do double dynamic_cast else enum explicit
export extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast return short signed sizeof
static static_assert static_cast struct switch template this thread_local throw true try typedef typeid
typename union unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())

# Names the generated entry functions use for themselves.
_RESERVED = frozenset({"aclsim", "aclsim_args", "workspaceSize", "executor", "call", "T"})

# An identifier that is not a member access (`x.dim()` uses x, not dim; `std::exp` uses neither).
_IDENTIFIER = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)")


def cpp_identifier(name: str) -> str:
    """A page's parameter name as a C++ identifier of the generated entry."""
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit():
        ident = "_" + ident
    return ident + "_" if ident in _CPP_KEYWORDS or ident in _RESERVED else ident


def identifiers(expression: str) -> set[str]:
    return set(_IDENTIFIER.findall(expression))


def _mask_members(indices: list[int]) -> tuple[int, ...]:
    return tuple(i for i in indices if i < _MASK_BITS)


# --- the rows of the spec ----------------------------------------------------------------------


@dataclass(frozen=True)
class SpecRow:
    """One ParamSpec initializer."""

    index: int
    name: str
    line: int
    kind: str
    direction: str
    optional: bool
    dtypes: Optional[tuple[str, ...]]  # aclDataType enumerators; None: the page lists none
    # (Soc enumerator, its dtypes, the line of the note under the table giving them; 0: the row's own)
    dtypes_by_soc: tuple[tuple[str, Optional[tuple[str, ...]], int], ...]
    rank: tuple[int, int]  # (-1, -1): no bound
    empty: str
    formats: Optional[tuple[str, ...]]  # aclFormat enumerators; None: any
    plain_formats: bool  # the page lists a plain layout (ND, NCHW, ...): every plain layout passes
    relations: tuple[tuple[str, tuple[int, ...]], ...]  # (RelationKind value, parameter indices)
    null_status: int = 0  # the status of a NULL where it is not 161001 (gen.conventions.inner_null_outputs)
    dtype_status: int = 0  # the status of a dtype outside the list where it is not 161002 (API.dtype_status)
    # A tensor list a framework passes one aclTensor for (OpSemantics.client_tensor_for_list).
    tensor_for_list: bool = False
    # Param.negative_indices as the simulator reads it: 1, an index whose negative values count from the
    # end; -1, one whose page says they are not supported; 0, the page says nothing.
    negative_indices: int = 0
    rank_line: int = 0  # Param.rank_line: the error row a rank refusal cites; 0, the row's own line
    # The parameters of its SAME_RANK relation: a trailing field, apart from `relations`, so that only the
    # rows that have one are longer.
    same_rank: tuple[int, ...] = ()

    @property
    def trailing(self) -> tuple[tuple[str, str], ...]:
        """The ParamSpec fields after `line` that this row sets, with those before them: the others
        keep their defaults, so that most rows stay short."""
        return _trailing((("null_status", str(self.null_status), self.null_status != 0),
                          ("dtype_status", str(self.dtype_status), self.dtype_status != 0),
                          ("tensor_for_list", "true" if self.tensor_for_list else "false", self.tensor_for_list),
                          ("negative_indices", str(self.negative_indices), self.negative_indices != 0),
                          ("rank_line", str(self.rank_line), self.rank_line != 0),
                          ("same_rank", _bits(self.same_rank), bool(self.same_rank))))


def _trailing(fields: tuple[tuple[str, str, bool], ...]) -> tuple[tuple[str, str], ...]:
    """The (name, value) of an aggregate's last fields up to the last one set (`fields`: name, value,
    whether it differs from the default): the fields after it keep their defaults and are left out of
    the designated initialiser, so that most rendered rows stay short."""
    last = max((k for k, (_, _, set_) in enumerate(fields) if set_), default=-1)
    return tuple((name, value) for name, value, _ in fields[:last + 1])


def _dtype_list(dtypes: tuple[DType, ...]) -> Optional[tuple[str, ...]]:
    return tuple(d.enumerator for d in dtypes) if dtypes else None


def _formats(param: Param, checked: bool = True) -> tuple[Optional[tuple[str, ...]], bool]:
    """The formats phase 1 accepts for `param`: every plain layout where the page lists one (ND
    takes NCHW, and a page listing NCHW, NCL takes its own example's ND tensors:
    aclnnAdaptiveAvgPool2dBackward), and the private ones it lists; any format where the page's
    column is not a check (`gen.conventions.formats_checked`)."""
    known = abi.formats()
    listed = [known[f] for f in param.formats if f in known]
    plain = any(f in PLAIN_FORMATS for f in param.formats)
    if not listed or not checked:
        return None, False  # the page states no format we know, or none it checks: not checked
    private = tuple(dict.fromkeys(f for f in listed if f != "ACL_FORMAT_ND"))
    return private, plain


# The relations that hold dtypes, which a scalar CANN casts is not held to (gen.conventions.scalar_cast).
_DTYPE_RELATIONS = frozenset({RelationKind.SAME_DTYPE, RelationKind.PROMOTE, RelationKind.CAST_FROM})


def spec_row(param: Param, index_of: dict[str, int], dtype_checked: bool = True, format_checked: bool = True,
             null_status: int = 0, cast: frozenset[str] = frozenset(), dtype_status: int = 0,
             enforced_rank: Optional[tuple[int, int]] = None) -> SpecRow:
    """The spec row of `param`; `index_of` gives the index of every parameter of its API.
    `dtype_checked` False (`API.dtype_checked`: an aclScalar whose dtype no error row names)
    leaves its dtype unchecked; `format_checked` False (`gen.conventions.formats_checked`) its
    format. `null_status`: the status of a NULL where it is not 161001 (0: 161001). `cast`: the
    scalars CANN casts to the computation's dtype, which no dtype relation holds. `dtype_status`:
    the status of a dtype outside its list where it is not 161002 (`API.dtype_status`; 0: 161002).
    `enforced_rank`: the bounds phase 1 checks where the API's conventions widen the row's
    (`gen.conventions.enforced_rank`; None: `Param.enforced_rank`)."""
    formats, plain = _formats(param, format_checked)
    relations = {}
    for kind in RelationKind:
        held = kind not in _DTYPE_RELATIONS or param.name not in cast
        indices = [index_of[n] for n in param.related(kind) if n in index_of and n != param.name
                   and held and (kind not in _DTYPE_RELATIONS or n not in cast)]
        relations[kind] = _mask_members(sorted(set(indices)))
    same_rank = relations.pop(RelationKind.SAME_RANK)
    enforced = enforced_rank or param.enforced_rank
    rank = (min(enforced[0], 127), min(enforced[1], 127)) if enforced else (-1, -1)
    empty = {None: "kUnspecified", True: "kAllowed", False: "kForbidden"}[param.empty_tensor]
    note_lines = {entry.soc: entry.line for entry in param.dtype_note_lines}
    return SpecRow(
        index=index_of[param.name],
        name=param.name,
        line=param.line,
        kind=traits(param).sim_kind,
        direction=_DIRECTION_ENUM[param.direction],
        optional=param.optional,
        dtypes=_dtype_list(param.dtypes) if dtype_checked else None,
        dtypes_by_soc=tuple((names.cpp_enumerator(p.soc.value), _dtype_list(p.dtypes), note_lines.get(p.soc, 0))
                            for p in param.dtypes_by_product) if dtype_checked else (),
        rank=rank,
        empty=empty,
        formats=formats,
        plain_formats=plain,
        relations=tuple((kind.value, members) for kind, members in relations.items()),
        null_status=null_status,
        dtype_status=dtype_status,
        negative_indices={True: 1, False: -1, None: 0}[param.negative_indices],
        rank_line=param.rank_line,
        same_rank=same_rank,
    )


@dataclass(frozen=True)
class ProductRow:
    soc: str
    supported: bool
    name: str
    line: int


def product_rows(page: Page) -> tuple[ProductRow, ...]:
    """One row per chip the page's product table names, supported as `Page.supports` says."""
    rows: dict[Soc, Product] = {}  # the first row that supports the chip, else its first row: its name
    for product in page.products:
        if product.soc is None:
            continue
        seen = rows.get(product.soc)
        if seen is None or (product.supported and not seen.supported):
            rows[product.soc] = product
    return tuple(ProductRow(names.cpp_enumerator(soc.value), bool(page.supports(soc)), rows[soc].name, rows[soc].line)
                 for soc in Soc if soc in rows)


# --- the entry points' parameters --------------------------------------------------------------


@dataclass(frozen=True)
class EntryParam:
    c_type: str
    name: str  # C++ identifier
    arg: str  # the aclsim::Arg it becomes


def _is_unsigned(c_type: str) -> bool:
    return bool(re.match(r"\s*(const\s+)?(uint\w*|unsigned\b|size_t)", c_type))


def entry_param(param: Param) -> EntryParam:
    ident = cpp_identifier(param.name)
    maker = "PointerArg" if "*" in param.c_type else KINDS[kind_of(param)].sim_arg
    if maker == "IntArg" and _is_unsigned(param.c_type):
        maker = "UIntArg"
    return EntryParam(c_type=param.c_type, name=ident, arg=f"aclsim::{maker}({ident})")


# --- value checks and kernels ------------------------------------------------------------------


@dataclass(frozen=True)
class LocalView:
    """A host parameter as a local of the value-check function or a member of the kernel."""

    c_type: str
    name: str
    init: str  # the accessor call


@dataclass(frozen=True)
class Check:
    when: str
    message: str
    status: int
    where: str  # file:line of the semantics file


@dataclass(frozen=True)
class Kernel:
    expression: str
    arguments: tuple[str, ...]  # the element inputs, as the functor's parameter names
    members: tuple[LocalView, ...]
    inputs: tuple[int, ...]  # parameter indices of the element inputs
    output: int
    integer_math: str
    # Instantiated for COMPLEX64/COMPLEX128 too: the page lists one for an element input.
    complex: bool = False
    # Its spelling on complex values, where it differs from `expression` (None: the same).
    complex_expression: Optional[str] = None
    # Its result's dtype from the promoted one (the semantics' rule).
    result_rule: ResultRule = ResultRule.PROMOTED
    # Per element input, what it reads when the caller passes it as null (aclsim::AbsentInput's
    # enumerators; empty when every input must be given).
    absent: tuple[str, ...] = ()


def _lists_complex(param: Param) -> bool:
    return bool(set(param.documented_dtypes()) & _COMPLEX_DTYPES)


def _check_locals(api: API, checks) -> tuple[LocalView, ...]:
    used = set().union(*(identifiers(c.when) for c in checks)) if checks else set()
    views = []
    for index, param in enumerate(api.params):
        if param.name in used and param.kind is not None:
            c_type, accessor = _optional_scalar("double") if _is_optional_scalar(param) \
                else KINDS[param.kind].sim_check_view
            views.append(LocalView(c_type, cpp_identifier(param.name), f"aclsim::{accessor}(call, {index})"))
    return tuple(views)


def _is_optional_scalar(param: Param) -> bool:
    return param.kind is ParamKind.SCALAR and param.optional


def _optional_scalar(compute_type: str) -> tuple[str, str]:
    """How a check or a kernel holds a scalar the caller may pass as null: its value and whether it
    was passed (aclsim::OptionalScalar: a kernel can only bound by it, math.h says why)."""
    return f"const aclsim::OptionalScalar<{compute_type}>", f"CallOptionalScalarAs<{compute_type}>"


def kernel_for(bound: BoundAPI) -> tuple[Optional[Kernel], str]:
    """The kernel functor of an API, or None and why the simulator cannot compute it."""
    semantics = bound.semantics
    if semantics is None:
        return None, "(no semantics file states its kernel)"
    if not semantics.kernel.strip():
        return None, f"({semantics.source} states no kernel)"
    api = bound.api
    params = api.params
    # A family that applies kernels to lists (foreach) reads its lists' members as element inputs.
    lists = families.applies_kernel(semantics)
    element_kinds = (ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.SCALAR_LIST) if lists else (ParamKind.TENSOR,)
    output_kind = ParamKind.TENSOR_LIST if lists else ParamKind.TENSOR
    outputs = [i for i, p in enumerate(params) if p.kind is output_kind and p.direction is Direction.OUT]
    if not outputs:
        outputs = [i for i, p in enumerate(params) if p.kind is output_kind and p.direction is Direction.INOUT]
    if len(outputs) != 1:
        listed = ", ".join(params[i].name for i in outputs) or "none"
        return None, f"(the elementwise engine writes one tensor; its tensor outputs: {listed})"
    # A complex result of real parts (result = "complex": aclnnComplex) computes in complex arithmetic too.
    lists_complex = semantics.result_rule.real_to_complex or any(
        _lists_complex(p) for p in params if p.kind is ParamKind.TENSOR and p.direction is not Direction.OUT)
    # kernel_complex "" keeps the kernel to real arithmetic (phase 2 then says "not simulated in
    # complex arithmetic").
    complex_kernel = lists_complex and semantics.kernel_complex != ""
    complex_expression = semantics.kernel_complex.strip() if complex_kernel and semantics.kernel_complex else None
    used = identifiers(semantics.kernel) | identifiers(complex_expression or "")
    inputs, members = [], []
    for index, param in enumerate(params):
        if param.name not in used:
            continue
        if param.kind in element_kinds and param.direction is not Direction.OUT:
            inputs.append(index)
        elif param.kind is not None and (member := KINDS[param.kind].sim_kernel_member) is not None:
            c_type, accessor = _optional_scalar("T") if _is_optional_scalar(param) else member
            members.append(LocalView(c_type, cpp_identifier(param.name), f"aclsim::{accessor}(call, {index})"))
        else:
            kind = "an output" if param.direction is Direction.OUT else f"a {kind_of(param).value} parameter"
            return None, f"(its kernel reads {param.name}, {kind}, which elementwise kernels cannot read)"
    for index, param in enumerate(params):
        # `<tensor>_dtype`: an input tensor's aclDataType, for the kernels whose formula depends on
        # it beyond the compute type (bitwise not: BOOL's is the logical not, 1 - x, not ~x).
        if f"{param.name}_dtype" in used and param.kind is ParamKind.TENSOR and param.direction is not Direction.OUT:
            members.append(LocalView("aclDataType", cpp_identifier(f"{param.name}_dtype"),
                                     f"aclsim::CallTensor(call, {index}).type"))
    if any(i >= _MASK_BITS for i in inputs + outputs):
        return None, "(more parameters than the simulator's spec tables index)"
    math = "kExact" if semantics.integer_math is IntegerMath.EXACT else "kFloat"
    stated = {entry.param: entry.value for entry in semantics.absent}
    absent = tuple(f"k{stated[params[i].name].capitalize()}" if params[i].name in stated else "kRefused" for i in inputs)
    return Kernel(
        expression=semantics.kernel.strip(),
        arguments=tuple(cpp_identifier(params[i].name) for i in inputs),
        members=tuple(members),
        inputs=tuple(inputs),
        output=outputs[0],
        integer_math=math,
        complex=complex_kernel,
        complex_expression=complex_expression,
        result_rule=semantics.result_rule,
        absent=absent if stated else (),
    ), ""


# --- kernel families -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyView:
    """An API's FamilySpec: the planner, the op, a parameter index per role, the options."""

    family: str
    planner: str
    op: str  # the C++ enumerator, e.g. aclsim::ReduceFamily::Op::kSum
    roles: tuple[int, ...]  # in gen.families order; -1: unbound
    role_names: tuple[str, ...]  # for the comment: role=parameter
    options: tuple[str, ...]  # C++ doubles, NaN where the file states none


_NO_OPTION = "std::numeric_limits<double>::quiet_NaN()"

# The shape relations of a tensor the operator does not read go unchecked (spec_rows). A family's
# planner derives and checks its outputs' shapes too, but phase 1 checks the page's relations first
# and cites their rows: the parser reads none from a shape stated loosely ("其余维度的shape需要与self
# 保持一致", "shape与self的batch一致"), nor one the page's own example breaks.
_SHAPE_RELATIONS = frozenset({RelationKind.SAME_SHAPE.value, RelationKind.BROADCAST.value})


def _without_shape_relations(row: SpecRow) -> SpecRow:
    return replace(row, relations=tuple((kind, () if kind in _SHAPE_RELATIONS else members)
                                        for kind, members in row.relations))


def family_for(bound: BoundAPI) -> tuple[Optional[FamilyView], str]:
    """The family spec of an API whose semantics name a family, or None and why it cannot be
    computed (a role bound to a parameter the page does not have, a required role unbound)."""
    semantics = bound.semantics
    if semantics is None or not semantics.family:
        return None, ""
    known = families.family(semantics.family)
    assert known is not None
    index_of = {p.name: i for i, p in enumerate(bound.api.params)}
    bound_roles, why = bound.family_binding
    if why:
        return None, f"({why})"
    roles = [index_of[bound_roles[role]] if role in bound_roles else -1 for role in known.roles]
    named = [f"{role}={param}" for role, param in bound_roles.items()]
    if any(i >= 127 for i in roles):
        return None, "(more parameters than the simulator's spec tables index)"
    options = []
    for option in known.options:
        value = semantics.option(option)
        options.append(_NO_OPTION if value is None else repr(float(value)))
    # The spec's arrays are fixed-size: unused entries are "no parameter" and "not stated".
    roles += [-1] * (families.MAX_ROLES - len(roles))
    options += [_NO_OPTION] * (families.MAX_OPTIONS - len(options))
    return FamilyView(
        family=known.name, planner=f"aclsim::{known.planner}",
        op=f"aclsim::{known.cpp_name}Family::Op::{names.cpp_enumerator(semantics.op)}",
        roles=tuple(roles), role_names=tuple(named), options=tuple(options),
    ), ""


# --- the page's cross-parameter rules ------------------------------------------------------------


@dataclass(frozen=True)
class Init:
    """A C++ struct's designated initializer (templates/sim/rules.j2 renders `{.name = value, ...}`):
    the fields by name, in the struct's declaration order (runtime/sim/include/aclnn_sim/entry.h),
    which the compiler checks; a value is C++ text or a nested Init."""

    fields: tuple[tuple[str, "str | Init"], ...]

    @staticmethod
    def of(**fields: "str | int | bool | Init") -> "Init":
        return Init(tuple((name, _cpp_value(value)) for name, value in fields.items()))


def _cpp_value(value: "str | int | bool | Init") -> "str | Init":
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else value


@dataclass(frozen=True)
class RuleTable:
    """One constexpr array of rule rows: its C++ type, name and the rows (initializers, or values)."""

    c_type: str
    name: str
    rows: tuple["str | Init", ...]


@dataclass(frozen=True)
class SimRules:
    """An API's RulesSpec: the arrays it points at (in declaration order) and its initializer."""

    tables: tuple[RuleTable, ...]
    init: Init


def _dtype_mask(dtypes) -> str:
    return _bits(d.enumerator for d in dtypes)


def _bits(members: Iterable[object]) -> str:
    """The C++ mask of `members` (enumerators or parameter indices), as the macro `bits` renders one."""
    listed = [str(m) for m in members]
    return f"aclsim::Bits({', '.join(listed)})" if listed else "0"


def _bound(bound: Optional[Bound], index_of: dict[str, int]) -> Optional[Init]:
    if bound is None:
        return Init.of(present=False, offset=0, extent="aclsim::Extent::kNumber", sign=1, tensor=-1, axis_param=-1,
                       axis=0, inclusive=True, divisor=1)
    tensor = index_of.get(bound.tensor, -1) if bound.tensor else -1
    if bound.tensor and (tensor < 0 or tensor >= _MASK_BITS):
        return None
    axis_param, axis = -1, 0
    if bound.extent in (Extent.SIZE, Extent.DIMENSION):
        if bound.axis.lstrip("-").isdigit():
            axis = int(bound.axis)
        elif bound.axis in index_of:
            axis_param = index_of[bound.axis]
        else:
            return None
    return Init.of(present=True, offset=repr(bound.offset), extent=f"aclsim::Extent::{names.cpp_enumerator(bound.extent.value)}",
                   sign=bound.sign, tensor=tensor, axis_param=axis_param, axis=axis, inclusive=bound.inclusive,
                   divisor=bound.divisor)


def _soc_mask(products: Sequence[Soc]) -> str:
    """A rule's chips as the spec's bit mask (a bit per aclsim::Soc); 0 for every chip."""
    socs = " | ".join(f"(1u << static_cast<int>(aclsim::Soc::{names.cpp_enumerator(s.value)}))" for s in products) or "0"
    return f"static_cast<uint16_t>({socs})"


def _condition(when: Optional[Condition], index_of: dict[str, int]) -> dict[str, str]:
    """A value rule's condition as the spec's fields (when -1: it holds always)."""
    if when is None:
        return {"when": "-1", "when_value": "0.0"}
    return {"when": str(index_of[when.param]), "when_value": repr(when.value)}


def sim_rules(api: API) -> Optional[SimRules]:
    """The RulesSpec of an API, None when its page states no cross-parameter rule. Rules that name
    parameters the spec's masks cannot index (64 and above) are left out."""
    index_of = {p.name: i for i, p in enumerate(api.params) if i < _MASK_BITS}
    reserved = [index_of[p.name] for p in api.params if p.must_be_null and p.name in index_of]
    tables: list[RuleTable] = []
    counts: dict[str, tuple[str, int]] = {}

    def table(key: str, c_type: str, name: str, rows: list[Init]) -> None:
        if rows:
            tables.append(RuleTable(c_type, name, tuple(rows)))
        counts[key] = (name if rows else "nullptr", len(rows))

    combinations = []
    for k, combination in enumerate(api.dtype_combinations):
        cells = []
        for cell in combination.cells:
            if cell.param not in index_of:
                continue
            same_as = index_of.get(cell.same_as, -1) if cell.same_as else -1
            cells.append(Init.of(param=index_of[cell.param], dtypes=_dtype_mask(cell.dtypes), absent=cell.absent,
                                 same_as=same_as))
        if not cells:
            continue
        name = f"kCombination{k}"
        tables.append(RuleTable("aclsim::CombinationCellSpec", name, tuple(cells)))
        combinations.append(Init.of(cells=name, cell_count=len(cells), socs=_soc_mask(combination.products),
                                    line=combination.line))
    table("combinations", "aclsim::CombinationSpec", "kCombinations", combinations)

    ranges = []
    for r in api.value_ranges:
        low, high = _bound(r.low, index_of), _bound(r.high, index_of)
        if r.param in index_of and low is not None and high is not None and \
                (r.when is None or r.when.param in index_of):
            part = {"first": r.elements[0], "count": r.elements[1]} if r.elements else {}
            ranges.append(Init.of(param=index_of[r.param], low=low, high=high, socs=_soc_mask(r.products),
                                  status=r.status, **_condition(r.when, index_of), line=r.line, **part))
    table("ranges", "aclsim::ValueRangeSpec", "kRanges", ranges)

    sets = []
    for k, value_set in enumerate(api.value_sets):
        if value_set.param not in index_of or (value_set.when is not None and value_set.when.param not in index_of):
            continue
        tables.append(RuleTable("int64_t", f"kSetValues{k}", tuple(str(v) for v in value_set.values)))
        sets.append(Init.of(param=index_of[value_set.param], values=f"kSetValues{k}", value_count=len(value_set.values),
                            socs=_soc_mask(value_set.products), status=value_set.status,
                            **_condition(value_set.when, index_of), line=value_set.line))
    table("sets", "aclsim::ValueSetSpec", "kSets", sets)

    lengths = []
    for k, length in enumerate(api.array_lengths):
        if length.param not in index_of:
            continue
        tables.append(RuleTable("int64_t", f"kLengths{k}", tuple(str(n) for n in length.lengths)))
        lengths.append(Init.of(param=index_of[length.param], lengths=f"kLengths{k}", length_count=len(length.lengths),
                               status=length.status, line=length.line))
    table("lengths", "aclsim::ArrayLengthSpec", "kLengths", lengths)

    dims = [Init.of(param=index_of[d.param], axis=d.axis, other=index_of[d.other], other_axis=d.other_axis, line=d.line)
            for d in api.dim_equalities if d.param in index_of and d.other in index_of]
    table("dims", "aclsim::DimEqualSpec", "kDims", dims)

    divisible = []
    for d in api.divisibility:
        if d.param not in index_of or not (d.divisor.isdigit() or d.divisor in index_of) or \
                (d.when is not None and d.when.param not in index_of):
            continue
        divisor, divisor_param = (int(d.divisor), -1) if d.divisor.isdigit() else (0, index_of[d.divisor])
        axis = d.axis if d.axis is not None else 0
        when_params, when_dtypes = "0", "0"
        if d.when_dtype is not None:
            if any(p not in index_of for p in d.when_dtype.params):
                continue
            when_params = f"aclsim::Bits({', '.join(str(index_of[p]) for p in d.when_dtype.params)})"
            when_dtypes = _dtype_mask(d.when_dtype.dtypes)
        divisible.append(Init.of(param=index_of[d.param], has_axis=d.axis is not None, axis=axis, divisor=divisor,
                                 divisor_param=divisor_param, socs=_soc_mask(d.products), status=d.status,
                                 **_condition(d.when, index_of), when_params=when_params, when_dtypes=when_dtypes,
                                 line=d.line))
    table("divisible", "aclsim::DivisibleSpec", "kDivisible", divisible)

    shape_rules = []
    for k, rule in enumerate(api.shape_rules):
        deciding = rule.when_dtype.params if rule.when_dtype is not None else (rule.when,)
        if rule.param not in index_of or any(n not in index_of for n in (*deciding, *rule.others)):
            continue
        if rule.when_dtype is not None:
            values, strings, when_index = "nullptr", "nullptr", -1
            when_masks = {"when_params": f"aclsim::Bits({', '.join(str(index_of[p]) for p in rule.when_dtype.params)})",
                          "when_dtypes": _dtype_mask(rule.when_dtype.dtypes)}
        elif (when := api.param(rule.when)).kind is ParamKind.STRING:
            tables.append(RuleTable("const char* const", f"kShapeRuleValues{k}",
                                    tuple(json.dumps(v, ensure_ascii=False) for v in rule.values)))
            values, strings, when_index, when_masks = "nullptr", f"kShapeRuleValues{k}", index_of[rule.when], {}
        elif all(v.lstrip("-").isdigit() for v in rule.values):
            tables.append(RuleTable("int64_t", f"kShapeRuleValues{k}", rule.values))
            values, strings, when_index, when_masks = f"kShapeRuleValues{k}", "nullptr", index_of[rule.when], {}
        else:
            continue
        others = " | ".join(f"(uint64_t{{1}} << {index_of[o]})" for o in rule.others) or "0"
        shape_rules.append(Init.of(param=index_of[rule.param], when=when_index, values=values, strings=strings,
                                   value_count=len(rule.values), negated=rule.negated,
                                   form=_SHAPE_FORMS[rule.form], others=others, line=rule.line,
                                   **(dict(zip(("rank_min", "rank_max"), enforced_ranks(rule.ranks))) if rule.ranks else {}),
                                   **when_masks))
    table("shape_rules", "aclsim::ShapeRuleSpec", "kShapeRules", shape_rules)

    dim_bytes = [Init.of(param=index_of[d.param], axis="aclsim::kWholeTensor" if d.axis is None else d.axis, minimum=d.minimum, multiple=d.multiple, socs=_soc_mask(d.products),
                         status=d.status, line=d.line) for d in api.dim_bytes if d.param in index_of]
    table("dim_bytes", "aclsim::DimBytesSpec", "kDimBytes", dim_bytes)

    products = [Init.of(param=index_of[r.param], tensor=index_of[r.tensor], last=r.last, status=r.status, line=r.line)
                for r in api.array_products if r.param in index_of and r.tensor in index_of]
    table("products", "aclsim::ArrayProductSpec", "kArrayProducts", products)

    padded = [Init.of(param=index_of[r.param], tensor=index_of[r.tensor], padding=index_of[r.padding], pairs=r.pairs,
                      status=r.status, line=r.line)
              for r in api.padded_shapes if all(n in index_of for n in (r.param, r.tensor, r.padding))]
    table("padded", "aclsim::PaddedShapeSpec", "kPaddedShapes", padded)

    reduced = [Init.of(param=index_of[r.param], tensor=index_of[r.tensor], dims=index_of[r.dims], keepdim=index_of[r.keepdim],
                       status=r.status, line=r.line)
               for r in api.reduced_shapes if all(n in index_of for n in (r.param, r.tensor, r.dims, r.keepdim))]
    table("reduced", "aclsim::ReducedShapeSpec", "kReducedShapes", reduced)

    if not reserved and not any(count for _, count in counts.values()):
        return None
    mask = " | ".join(f"(uint64_t{{1}} << {i})" for i in reserved) or "0"
    (combinations_at, combination_count), (ranges_at, range_count), (sets_at, set_count), (lengths_at, length_count), \
        (dims_at, dim_count), (divisible_at, divisible_count), (shape_rules_at, shape_rule_count) = (
            counts[k] for k in ("combinations", "ranges", "sets", "lengths", "dims", "divisible", "shape_rules"))
    init = Init.of(
        reserved=mask, combinations=combinations_at, combination_count=combination_count, ranges=ranges_at,
        range_count=range_count, sets=sets_at, set_count=set_count, lengths=lengths_at, length_count=length_count,
        dims=dims_at, dim_count=dim_count, divisible=divisible_at,
        divisible_count=divisible_count, shape_rules=shape_rules_at, shape_rule_count=shape_rule_count)
    # The last fields, each pair left out where there are none (a designated initializer may).
    for key, count_field in (("dim_bytes", "dim_bytes_count"), ("products", "product_count"),
                             ("padded", "padded_count"), ("reduced", "reduced_count")):
        at, count = counts[key]
        if count:
            pair: dict[str, str | int] = {key: at, count_field: count}
            init = Init(init.fields + Init.of(**pair).fields)
    return SimRules(tables=tuple(tables), init=init)


# --- one API -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimAPI:
    name: str
    workspace_fn: str
    namespace: str
    source: str
    line: int
    rows: tuple[SpecRow, ...]
    products: tuple[ProductRow, ...]
    params: tuple[EntryParam, ...]
    check_locals: tuple[LocalView, ...]
    checks: tuple[Check, ...]
    kernel: Optional[Kernel]
    not_simulated: str
    family: Optional[FamilyView] = None
    rules: Optional[SimRules] = None
    # The status of a rank outside the page's bounds, where its error table gives one other than
    # 161002 (aclnnIsInf: "x维度大于8" is 561002); 0: 161002.
    rank_status: int = 0
    # The status of an empty tensor the page forbids, where its error table gives one other than
    # 161002 (aclnnRepeatInterleaveGrad: "repeats为空tensor时" is 561002); 0: 161002.
    empty_status: int = 0
    # The status of shapes that disagree or do not broadcast (API.shape_status), where every error row
    # about them gives one other than 161002 (aclnnRmsNormQuantV3's are 561103); 0: 161002.
    shape_status: int = 0
    # The error rows a family's own checks enforce (API.page_row), by what they are about.
    page_rows: tuple[PageRowView, ...] = ()
    # The status of a call on a chip the page marks unsupported, where its error table gives one other
    # than 161002 (aclnnWeightQuantBatchMatmulV2: "产品型号不支持" is 361001); 0: 161002.
    chip_status: int = 0

    @property
    def trailing(self) -> tuple[tuple[str, str], ...]:
        """The ApiSpec fields after `not_simulated` that this API sets, with those before them: the
        others keep their defaults, so that most specs stay short."""
        return _trailing((("family", "&kFamily" if self.family else "nullptr", self.family is not None),
                          ("rules", "&kRules" if self.rules else "nullptr", self.rules is not None),
                          ("rank_status", str(self.rank_status), self.rank_status != 0),
                          ("empty_status", str(self.empty_status), self.empty_status != 0),
                          ("shape_status", str(self.shape_status), self.shape_status != 0),
                          ("page_rows", f"kPageRows, {len(self.page_rows)}" if self.page_rows else "nullptr, 0",
                           bool(self.page_rows)),
                          ("chip_status", str(self.chip_status), self.chip_status != 0)))


@dataclass(frozen=True)
class PageRowView:
    """An error row a family's check asks for by kind (aclsim::PageRowSpec)."""

    kind: str  # aclsim::RowKind enumerator
    param: int  # the parameter whose values it bounds (kValue); -1: none
    line: int
    status: int


# What a family's check asks a page row for (gen.ir.API.page_row), as aclsim::RowKind names it.
_ROW_KINDS = ((ErrorCategory.OUTPUT_SIZE, "kOutputSize"), (ErrorCategory.VALUE, "kValue"))


def page_rows(api: API) -> tuple[PageRowView, ...]:
    """The rows of API.page_row for every kind a family asks for: the API's output-size row, and each
    parameter's value row."""
    found = []
    for category, kind in _ROW_KINDS:
        asked = [(None, -1)] if category is ErrorCategory.OUTPUT_SIZE else [(p.name, i) for i, p in enumerate(api.params)]
        for name, index in asked:
            row = api.page_row(category, name)
            if row is not None:
                found.append(PageRowView(kind, index, row.line, row.code))
    return tuple(found)


def _null_status(api: API, param: Param) -> int:
    name = conventions.null_output_status(api, param)
    return abi.status_code(name) if name else 0


def spec_rows(api: API) -> tuple[SpecRow, ...]:
    """The spec row of every parameter of `api`, as the page and gen.conventions decide them."""
    index_of = {p.name: i for i, p in enumerate(api.params)}
    cast = frozenset(p.name for p in api.params if conventions.scalar_cast(api, p))
    rows = tuple(spec_row(p, index_of, api.dtype_checked(p), conventions.formats_checked(api, p),
                          _null_status(api, p), cast, api.dtype_status(p), conventions.enforced_rank(api, p))
                 for p in api.params)
    # A tensor the operator does not read (Reserved.UNUSED) holds no shape: op-plugin passes
    # aclnnLogSigmoidBackward's buffer empty, whatever shape the page's relations give it.
    unused = {index_of[p.name] for p in api.params if p.reserved is Reserved.UNUSED and p.kind is ParamKind.TENSOR}
    if not unused:
        return rows
    return tuple(_without_shape_relations(row) if row.index in unused else
                 replace(row, relations=tuple((kind, tuple(m for m in members if m not in unused)
                                               if kind in _SHAPE_RELATIONS else members)
                                              for kind, members in row.relations)) for row in rows)


_SHAPE_FORMS = {ShapeForm.SAME: "aclsim::ShapeForm::kSame", ShapeForm.SCALAR: "aclsim::ShapeForm::kScalar",
                ShapeForm.ABSENT: "aclsim::ShapeForm::kAbsent", ShapeForm.RANK: "aclsim::ShapeForm::kRank",
                ShapeForm.PRESENT: "aclsim::ShapeForm::kPresent"}


def chip_status(api: API) -> int:
    """The one status the page's unsupported-product rows give, when it is not ACLNN_ERR_PARAM_INVALID."""
    codes = {row.code for row in api.errors if row.category is ErrorCategory.UNSUPPORTED_PRODUCT}
    return codes.pop() if len(codes) == 1 and PARAM_INVALID not in codes else 0


def empty_status(api: API) -> int:
    """The one status the page's error rows about empty tensors give, when it is not
    ACLNN_ERR_PARAM_INVALID and those rows name every tensor the page forbids empty: phase 1 answers
    one status for every such tensor, so a page whose rows leave one unnamed keeps 161002."""
    rows = [row for row in api.errors if row.category is ErrorCategory.EMPTY_TENSOR]
    codes = {row.code for row in rows}
    if len(codes) != 1 or PARAM_INVALID in codes:
        return 0
    named = {name for row in rows for name in row.params}
    forbidden = {p.name for p in api.params if p.kind is ParamKind.TENSOR and p.empty_tensor is False}
    return codes.pop() if forbidden <= named else 0


def sim_api(bound: BoundAPI) -> SimAPI:
    api = bound.api
    semantics = bound.semantics
    checks = tuple(
        Check(c.when, c.message, c.status, f"{semantics.source}:{c.line}") for c in semantics.checks
    ) if semantics else ()
    family, family_reason = family_for(bound)
    applies_kernel = semantics is not None and families.applies_kernel(semantics)
    kernel, reason = kernel_for(bound) if not (semantics and semantics.family) or applies_kernel else (None, family_reason)
    if applies_kernel and family is None:  # the family's kernel without the family: not an elementwise API
        kernel, reason = None, family_reason
    rows = spec_rows(api)
    if semantics is not None and semantics.client_tensor_for_list:
        rows = tuple(replace(row, tensor_for_list=row.kind == "kTensorList" and row.name in semantics.client_tensor_for_list)
                     for row in rows)
    return SimAPI(
        name=api.name,
        workspace_fn=api.workspace_fn,
        namespace="sim_" + re.sub(r"\W", "_", names.op_stem(api.name)),
        source=bound.page_name,
        line=api.line,
        rows=rows,
        products=product_rows(bound.page),
        params=tuple(entry_param(p) for p in api.params),
        check_locals=_check_locals(api, semantics.checks if semantics else ()),
        checks=checks,
        kernel=kernel,
        not_simulated=reason,
        family=family,
        rules=sim_rules(api),
        rank_status=api.rank_status(),
        empty_status=empty_status(api),
        shape_status=api.shape_status(),
        page_rows=page_rows(api) if family is not None else (),
        chip_status=chip_status(api),
    )


def emit(model: Model, files: FileManager) -> None:
    for index, unit in enumerate(translation_units(model.apis)):
        files.write_derived(unit_path("sim", index), digest("sim", *(b.fingerprint for b in unit)),
                            functools.partial(_unit, unit, files))


class _APIText(NamedTuple):
    """One API's part of a translation unit, made again only when its API changed."""
    text: str
    complex_kernel: bool
    uses_family: bool


def _api_text(bound: BoundAPI) -> _APIText:
    api = sim_api(bound)
    return _APIText(render("sim/api.cpp.j2", api=api), bool(api.kernel and api.kernel.complex), bool(api.family))


def _unit(unit: tuple[BoundAPI, ...], files: FileManager) -> str:
    parts = [files.fragment("sim api", bound.fingerprint, functools.partial(_api_text, bound)) for bound in unit]
    sources = sorted({bound.page.source for bound in unit})
    return render("sim/ops.cpp.j2", apis=unit, api_texts=[part.text for part in parts], sources=sources,
                  complex_kernels=any(part.complex_kernel for part in parts),
                  uses_families=any(part.uses_family for part in parts))
