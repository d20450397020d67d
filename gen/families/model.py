"""The families' types (a family's row, an output-shape rule and their table), and what a row says
about one op: gen/families/__init__.py explains the table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Union

from gen.ir import DType

# The C++ FamilySpec's arrays are this long (kMaxFamilyRoles, kMaxFamilyOptions: rendered into aclnn_sim/families.h).
MAX_ROLES = 32
MAX_OPTIONS = 4


@dataclass(frozen=True)
class OutputShape:
    """A rule by which the bindings shape an output of a family's op that the caller does not pass
    (out=). A rule's row is its one home, in the module of the family that brought it (BASE_SHAPES
    below: those of no one family); gen.families.OUTPUT_SHAPES gathers them. The families' rows name
    them, gen/api/python.py plans outputs with them, gen/emit/enums.py renders the bound ones as the enumeration the
    bindings switch on (include/aclnn_bindgen/output_shapes.h, whose ApplyOutputShape calls each rule's one C++
    function, `<Name>Rule` in runtime/include/aclnn_bindgen/<header>, which the simulator's planners share)."""

    name: str  # as the families' tables and the semantics spell it
    doc: str
    dims_role: str = ""  # the role whose argument the rule reads as its dimensions (bind::RuleArgs.dims)
    product: bool = False  # shaped from two operands; its dtype is their promotion
    pooled: bool = False  # the pool family's: over the `spatial` option's trailing dimensions
    # Allocated at the largest extent the data can give; the kernel sets the aclTensor's view
    # shape, which the call reads back once the stream has run (as op-plugin resizes them).
    data_dependent: bool = False
    bound: bool = True  # False: no plan of the bindings' ("page": the page's relations; "given": out= required
    # The shape as a binding's comment says it of one API (`describe`): a format of the parameters
    # playing {source}, {second} and {dims} (dims_role), the {spatial} dimensions a pool rule pools,
    # {dims_or_every} ({dims}, or every dimension), {dims_count} (len({dims}), or {second}'s rank) and
    # {noop} (when an empty {dims} reduces nothing, the parameter saying so).
    phrase: str = ""
    header: str = "shape_rule.h"  # the header (runtime/include/aclnn_bindgen/) of its C++ function

    def __post_init__(self) -> None:
        if self.bound and not self.phrase:
            raise ValueError(f"output shape {self.name}: a rule the bindings apply says its shape in their comments")

    def describe(self, source: str, second: str = "", dims: str = "", spatial: int = 0, noop: str = "") -> str:
        text = self.phrase.format(source=source, second=second, dims=dims, spatial=spatial,
                                  dims_or_every=dims or "every dimension",
                                  dims_count=f"len({dims})" if dims else f"{second}.dim()",
                                  noop=f" (none when {noop} and {dims} is empty)" if noop else "")
        return text + (", then the view shape the kernel sets" if self.data_dependent else "")


# The rules of no one family (the others are their families' modules').
BASE_SHAPES = (
    OutputShape("page", "the page's own relations, as for an op of no family (the broadcast of the inputs)",
                bound=False),
    OutputShape("given", "follows from the arguments by a rule the bindings do not know (a concatenation's, "
                "a permutation's): the caller passes out=", bound=False),
    OutputShape("same", "the source's shape", phrase="that of {source}"),
)


# How the generated tests may vary the shapes of an op's inputs beyond its valid call within the
# family's rule (Variation.kind):
#   "rank"       the roles' tensors, one shape alike, at each rank the page allows (the dimension
#                arguments still in range);
#   "trailing"   the first role's tensor at each rank, the others keeping as many trailing
#                dimensions as they had (a norm's weight; normalized_shape follows);
#   "channels"   the first role's tensor at each rank from 2, the others its dimension 1 (batch norm);
#   "broadcast"  each role in turn at shapes that broadcast to the others' (where, a mask);
#   "batch"      a product's two operands with batch dimensions that broadcast, or one a vector;
#   "bias"       the role (an added tensor) at shapes that broadcast to the product's.
# The last three apply to an API whose page speaks of broadcasting.
VARIATION_KINDS = ("rank", "trailing", "channels", "broadcast", "batch", "bias")


@dataclass(frozen=True)
class Variation:
    kind: str  # one of VARIATION_KINDS
    roles: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in VARIATION_KINDS:
            raise ValueError(f"shape variation {self.kind!r} is none of {', '.join(VARIATION_KINDS)}")


# Rows are compared by identity (eq=False): each is the one row of its op or family, and their
# tables (dicts) need no hash.
@dataclass(frozen=True, eq=False)
class Op:
    """One op of a family and what it does differently from the family's defaults; a family lists
    an op with nothing of its own by its bare name."""

    name: str
    # The shape rule (OUTPUT_SHAPES) of every output of the op, and of some outputs by role; ""
    # and absent roles: the family's output_shape.
    shape: str = ""
    shapes: Mapping[str, str] = field(default_factory=dict)
    # Outputs whose dtype (a gen.ir.DType name) is fixed whatever the inputs', by role, over the
    # family's fixed_dtypes.
    dtypes: Mapping[str, str] = field(default_factory=dict)
    # The role whose parameter's dtype the outputs have ("": self).
    dtype_source: str = ""
    # Its results are PyTorch's bit for bit: it moves, selects or converts elements once and
    # computes nothing in between (no sum whose order could differ: a scatter that adds is not
    # one, its golden adds in float where FLOAT16 adds round each time).
    exact: bool = False
    # The shape variations of its inputs the generated tests make (with the family's).
    variations: tuple[Variation, ...] = ()
    # Roles of host arguments an input's shape follows (index_add's dim: its source is self's
    # shape with the index's length along dim): a suite varies them only with the shapes.
    shape_arguments: tuple[str, ...] = ()
    # It applies the semantics' elementwise `kernel` (its APIs state one) to lists of tensors:
    # their tensor-list and scalar-list parameters are the kernel's element inputs.
    kernel: bool = False
    # Its caller-passed (out=) outputs have the golden's dtype rather than their dtype source's
    # (trace: INT64 for an integral matrix; bincount: INT64 counts or DOUBLE sums).
    result_dtype: bool = False

    def roles(self) -> set[str]:
        """The roles the row names."""
        return ({*self.shapes, *self.dtypes, *self.shape_arguments, *(r for v in self.variations for r in v.roles)}
                | ({self.dtype_source} if self.dtype_source else set()))

    def rules(self) -> set[str]:
        return {*self.shapes.values(), *([self.shape] if self.shape else [])}


@dataclass(frozen=True, eq=False)
class Family:
    name: str
    planner: str  # the C++ planner function (aclsim::PlanXxx)
    # Its ops, in the order of the C++ enumeration: an Op row, or the bare name of one that keeps
    # the family's defaults (held as an Op).
    ops: tuple[Union[Op, str], ...]
    roles: tuple[str, ...]
    required: tuple[str, ...]  # roles every API of the family binds
    # Numbers a semantics file may state where the page has no parameter for them (a fixed
    # epsilon); NaN in the spec when not stated.
    options: tuple[str, ...] = ()
    doc: str = ""
    # How an output the caller does not pass is shaped (the bindings allocate it, on every
    # backend), unless its op says otherwise: the name of one of OUTPUT_SHAPES.
    output_shape: str = "same"
    # Outputs whose dtype is fixed whatever the input's, by role (an op's own dtypes first).
    fixed_dtypes: Mapping[str, str] = field(default_factory=dict)
    # Outputs whose dtype promotes other inputs' than the dtype source's, by role (embedding_bag's
    # offset2bag: indices' and offsets').
    role_dtype_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The role whose argument outputs are shaped from (and take the dtype of), and a second one
    # whose shape some rules read (a product's right operand, rms norm's gamma).
    source: str = "self"
    second: str = ""
    # Every op's results are PyTorch's bit for bit (Op.exact).
    exact: bool = False
    # Shape variations of every op (Op.variations).
    variations: tuple[Variation, ...] = ()
    _by_op: dict[str, Op] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        rows = tuple(op if isinstance(op, Op) else Op(op) for op in self.ops)
        object.__setattr__(self, "ops", rows)
        self._by_op.update((op.name, op) for op in rows)
        where = f"family {self.name}"
        if len(self._by_op) != len(rows):
            raise ValueError(f"{where}: an op listed twice")
        if len(self.roles) > MAX_ROLES or len(self.options) > MAX_OPTIONS:
            raise ValueError(f"{where}: more than {MAX_ROLES} roles or {MAX_OPTIONS} options (entry.h's FamilySpec)")
        named = {*self.required, *self.fixed_dtypes, *(r for v in self.variations for r in v.roles),
                 *(r for role, rs in self.role_dtype_sources.items() for r in (role, *rs))}
        for op in rows:
            unknown = op.roles() - set(self.roles)
            if unknown:
                raise ValueError(f"{where}: op {op.name} names roles it does not have: {', '.join(sorted(unknown))}")
        if named - set(self.roles):
            raise ValueError(f"{where}: names roles it does not have: {', '.join(sorted(named - set(self.roles)))}")
        dtypes = {*self.fixed_dtypes.values(), *(d for op in rows for d in op.dtypes.values())}
        if dtypes - DType.__members__.keys():
            raise ValueError(f"{where}: no such dtype: {', '.join(sorted(dtypes - DType.__members__.keys()))}")

    @property
    def cpp_name(self) -> str:
        return "".join(part.title() for part in self.name.split("_"))

    @property
    def rows(self) -> tuple[Op, ...]:
        """Its ops' rows, in order (`ops` as given may hold bare names)."""
        return tuple(self._by_op.values())

    @property
    def op_names(self) -> tuple[str, ...]:
        return tuple(self._by_op)

    def op(self, name: str) -> Optional[Op]:
        """The row of an op of the family (None: not one of its ops)."""
        return self._by_op.get(name)

    def row(self, name: str) -> Op:
        known = self.op(name)
        if known is None:
            raise KeyError(f"family {self.name} has no op {name}")
        return known


def shape_variations(family: Family, op: str, kinds: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The (kind, roles) of the family's shape variations of `op` of the given kinds."""
    return [(v.kind, v.roles) for v in family.variations + family.row(op).variations if v.kind in kinds]


def dtype_source(family: Family, op: str) -> str:
    """The role whose dtype the outputs of `op` have (unless fixed_dtype says otherwise)."""
    return family.row(op).dtype_source or "self"


def role_dtype_source(family: Family, role: str) -> tuple[str, ...]:
    """The roles whose dtypes an output playing `role` promotes, where not its op's dtype source."""
    return tuple(family.role_dtype_sources.get(role, ()))


def exact(family: Family, op: str) -> bool:
    """Whether `op`'s results are PyTorch's bit for bit."""
    return family.exact or family.row(op).exact


def fixed_dtype(family: Family, op: str, role: str) -> Optional[str]:
    """The dtype (a gen.ir.DType name) an output playing `role` always has, if the family fixes it."""
    return family.row(op).dtypes.get(role) or family.fixed_dtypes.get(role)


def output_shape(family: Family, op: str, role: str) -> str:
    """The shape rule of the output playing `role` of an API computing `op` ("*": the rule of
    every output of the op, "given" for a concatenation) when the caller does not pass it."""
    row = family.row(op)
    return (row.shapes.get(role) if role != "*" else None) or row.shape or family.output_shape


def rules(family: Family) -> set[str]:
    """Every shape rule an output of the family's ops can have."""
    return {output_shape(family, op.name, role) for op in family.rows for role in ("*", *family.roles)}


def shape_arguments(family: Family, op: str) -> tuple[str, ...]:
    """The roles of the host arguments the shapes of `op`'s inputs follow (Op.shape_arguments)."""
    return family.row(op).shape_arguments


def result_dtype(family: Family, op: str) -> bool:
    """Whether `op`'s caller-passed outputs have the golden's dtype (Op.result_dtype)."""
    return family.row(op).result_dtype


# The roles whose arguments the "convolution" rule reads.
CONV_RULE_ROLES = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")
# The further window arguments the pool family's rules read.
POOL_WINDOW_ROLES = ("stride", "padding", "dilation", "ceil_mode")
# Every argument a rule reads besides its sources' shapes, by name: the generated
# aclnn_bindgen::RuleArgument enumeration, by which the bindings pass them (bind::RuleArgs).
RULE_ARGUMENTS = ("dims", "keepdim", "dtype", "noop", *dict.fromkeys(CONV_RULE_ROLES + POOL_WINDOW_ROLES))

