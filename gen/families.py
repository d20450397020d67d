"""The simulator's kernel families: what a semantics file may name besides an elementwise kernel.

Each family listed here has its engine; a family joins the table with its engine, not before
(softmax, normalisation, matmul, indexing and shape/copy are issue 12's next ones).

A semantics file says `family = "reduce"`, `op = "sum"` and which of the page's parameters plays
each of the family's roles (`roles = { dim = "dims", keepdim = "keepDims" }`; a role left out is
the page's parameter of the same name, if there is one). The simulator has one engine per family
(runtime/sim/src/opapi/families/), strided, broadcasting and multithreaded; its generated spec
names the family's planner, the op and the parameter index of every role.

This table is the one home of the families' names, ops, roles and options: the semantics reader
checks files against it, the simulator's emitter writes each API's FamilySpec from it, and
gen/emit/enums.py renders it as the C++ enumerations the planners read
(`include/aclnn_sim/families.h`), so that the two sides cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

if TYPE_CHECKING:
    from gen.ir import OpSemantics

# The C++ FamilySpec's arrays are this long (runtime/sim/include/aclnn_sim/entry.h).
MAX_ROLES = 16
MAX_OPTIONS = 4


@dataclass(frozen=True)
class Family:
    name: str
    planner: str  # the C++ planner function (aclsim::PlanXxx)
    ops: tuple[str, ...]
    roles: tuple[str, ...]
    required: tuple[str, ...]  # roles every API of the family binds
    # Numbers a semantics file may state where the page has no parameter for them (a fixed
    # epsilon); NaN in the spec when not stated.
    options: tuple[str, ...] = ()
    doc: str = ""
    # How an output the caller does not pass is shaped (the bindings allocate it, on every
    # backend): "reduce" (the input `self` with the `dim` dimensions removed, or kept as 1 with
    # `keepdim`) or "same" (the input's shape).
    output_shape: str = "same"
    # Ops whose outputs another rule shapes: "same", "reduce", "page" (the page's own relations,
    # as for an op of no family: where's out is the broadcast of its inputs), or "given" (the shape follows from arguments by a rule the bindings do not know:
    # a concatenation's, a permutation's, a slice's; the caller passes out=).
    op_output_shapes: tuple[tuple[str, str], ...] = ()
    # The role whose parameter's dtype an output has, by op (default: self).
    op_dtype_sources: tuple[tuple[str, str], ...] = ()
    # Outputs whose dtype is fixed whatever the input's: by role, and by (op, role).
    fixed_dtypes: tuple[tuple[str, str], ...] = ()
    op_fixed_dtypes: tuple[tuple[str, str, str], ...] = ()

    def __post_init__(self) -> None:
        assert len(self.roles) <= MAX_ROLES and len(self.options) <= MAX_OPTIONS, self.name
        assert set(self.required) <= set(self.roles), self.name

    @property
    def cpp_name(self) -> str:
        return "".join(part.title() for part in self.name.split("_"))


FAMILIES: tuple[Family, ...] = (
    Family(
        "reduce", "PlanReduce",
        ops=("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "any", "all",
             "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "nansum", "aminmax"),
        roles=("self", "dim", "keepdim", "dtype", "correction", "unbiased", "p", "out", "indices", "mean",
               "max_out"),
        required=("self", "out"),
        options=("correction", "p"),
        output_shape="reduce",
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argmax", "out", "INT64"), ("argmin", "out", "INT64"), ("any", "out", "BOOL"),
                         ("all", "out", "BOOL")),
        doc="along `dim` (an int array or an int; absent or empty: every dimension), keepdim; "
            "max/min give values and indices, var_mean/std_mean the variance and the mean, aminmax min and max"),
    Family(
        "cumulative", "PlanCumulative",
        ops=("cumsum", "cumprod", "cummax", "cummin"),
        roles=("self", "dim", "dtype", "exclusive", "reverse", "out", "indices"),
        required=("self", "dim", "out"),
        fixed_dtypes=(("indices", "INT64"),),
        doc="running sums, products, maxima and minima along one dimension"),
    Family(
        "index", "PlanIndex",
        ops=("gather", "index_select", "embedding", "take", "scatter", "scatter_add", "one_hot", "topk", "sort",
             "argsort"),
        roles=("self", "dim", "index", "src", "value", "reduce", "k", "largest", "descending", "num_classes",
               "on_value", "off_value", "out", "indices"),
        required=("self",),
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argsort", "indices", "INT64"),),
        op_output_shapes=(("gather", "given"), ("index_select", "given"), ("embedding", "given"), ("take", "page"),
                          ("one_hot", "given"), ("topk", "given")),
        op_dtype_sources=(("one_hot", "on_value"),),
        doc="gathers and scatters along a dimension (indices checked in phase 2, where they live), "
            "one-hot encodings, stable sorts and top-k"),
    Family(
        "select", "PlanSelect",
        ops=("where", "masked_fill"),
        roles=("condition", "self", "other", "out"),
        required=("condition", "self"),
        op_output_shapes=(("where", "page"),),
        doc="where: out = condition ? self : other, broadcast; masked_fill: self = mask ? value : self"),
    Family(
        "shape", "PlanShape",
        ops=("cast", "copy", "cat", "stack", "split", "split_with_size", "permute", "expand", "flip", "roll",
             "tril", "triu", "constant_pad", "repeat", "slice"),
        roles=("self", "tensors", "dim", "dims", "shifts", "size", "diagonal", "pad", "value", "start",
               "end", "step", "dtype", "out"),
        required=("out",),
        op_output_shapes=(("cat", "given"), ("stack", "given"), ("split", "given"), ("split_with_size", "given"),
                          ("permute", "given"), ("expand", "given"), ("constant_pad", "given"), ("repeat", "given"),
                          ("slice", "given")),
        op_dtype_sources=(("cat", "tensors"), ("stack", "tensors")),
        doc="copies between views, bit for bit within a dtype and converting between dtypes: casts, "
            "broadcasting copies, concatenation, stacking, splitting, permutations, broadcasts, flips, "
            "rolls, triangles, constant padding, repeats and slices"),
)

BY_NAME = {f.name: f for f in FAMILIES}


def bind_roles(semantics: "OpSemantics", params: "Sequence[str]") -> tuple[dict[str, str], str]:
    """The page's parameter playing each role of the semantics' family (a role the file leaves
    out is the parameter of the same name, if the page has one), or {} and why the roles cannot
    be bound (a role bound to a parameter the page does not have, a required role unbound)."""
    known = family(semantics.family)
    assert known is not None, f"{semantics.source}: the semantics reader admits only known families"
    bound: dict[str, str] = {}
    for role in known.roles:
        param = semantics.role(role)
        if param is not None and param not in params:
            return {}, f"{semantics.source}: role {role} of family {known.name} is {param}, which the page does not have"
        param = param if param is not None else (role if role in params else None)
        if param is None and role in known.required:
            return {}, f"no parameter of the page plays role {role} of family {known.name}"
        if param is not None:
            bound[role] = param
    return bound, ""


def output_shape(family: Family, op: str) -> str:
    """How the outputs of `op` are shaped when the caller does not pass them (Family.output_shape,
    unless op_output_shapes says otherwise)."""
    return dict(family.op_output_shapes).get(op, family.output_shape)


def dtype_source(family: Family, op: str) -> str:
    """The role whose dtype the outputs of `op` have (unless fixed_dtype says otherwise)."""
    return dict(family.op_dtype_sources).get(op, "self")


def fixed_dtype(family: Family, op: str, role: str) -> Optional[str]:
    """The dtype (a gen.ir.DType value) an output playing `role` always has, if the family fixes it."""
    for o, r, dtype in family.op_fixed_dtypes:
        if o == op and r == role:
            return dtype
    return dict(family.fixed_dtypes).get(role)


def enumerator(name: str) -> str:
    """An op, role or option as its C++ enumerator: `log_softmax` -> `kLogSoftmax`."""
    return "k" + "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def family(name: str) -> Optional[Family]:
    return BY_NAME.get(name)
