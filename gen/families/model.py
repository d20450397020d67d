"""The families' types (a family's row, an output-shape rule and their table), and what a row says
about one op: gen/families/__init__.py explains the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

# The C++ FamilySpec's arrays are this long (runtime/sim/include/aclnn_sim/entry.h).
MAX_ROLES = 32
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
    # backend): the name of one of OUTPUT_SHAPES below.
    output_shape: str = "same"
    # The role whose parameter's dtype an output has, by op (default: self).
    op_dtype_sources: tuple[tuple[str, str], ...] = ()
    # Outputs whose dtype is fixed whatever the input's: by role, and by (op, role).
    fixed_dtypes: tuple[tuple[str, str], ...] = ()
    op_fixed_dtypes: tuple[tuple[str, str, str], ...] = ()
    # Outputs whose dtype promotes other inputs' than the dtype source's, by role (embedding_bag's
    # offset2bag: indices' and offsets').
    role_dtype_sources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The role whose argument outputs are shaped from (and take the dtype of), and a second one
    # whose shape some rules read (a product's right operand, rms norm's gamma).
    source: str = "self"
    second: str = ""
    # Shape rules (OUTPUT_SHAPES) that differ from `output_shape` by (op, role) ("*": every op,
    # every role).
    op_output_shapes: tuple[tuple[str, str, str], ...] = ()
    # The ops whose results are PyTorch's bit for bit ("*": every op): they move, select or
    # convert elements once and compute nothing in between (no sum whose order could differ: a
    # scatter that adds is not one, its golden adds in float where FLOAT16 adds round each time).
    exact_ops: tuple[str, ...] = ()
    # The (op, role) pairs of a host argument an input's shape follows (index_add's dim: its source
    # is self's shape with the index's length along dim): a suite varies that argument only with
    # the shapes, never alone.
    shape_arguments: tuple[tuple[str, str], ...] = ()
    # How the generated tests may vary the shapes of an op's inputs beyond its valid call within
    # the family's rule, as (op, kind, roles) ("*": every op):
    #   "rank"       the roles' tensors, one shape alike, at each rank the page allows (the dimension
    #                arguments still in range);
    #   "trailing"   the first role's tensor at each rank, the others keeping as many trailing
    #                dimensions as they had (a norm's weight; normalized_shape follows);
    #   "channels"   the first role's tensor at each rank from 2, the others its dimension 1 (batch norm);
    #   "broadcast"  each role in turn at shapes that broadcast to the others' (where, a mask);
    #   "batch"      a product's two operands with batch dimensions that broadcast, or one a vector;
    #   "bias"       the role (an added tensor) at shapes that broadcast to the product's.
    # The last three apply to an API whose page speaks of broadcasting.
    shape_variations: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # The ops that apply the semantics' elementwise `kernel` (their APIs state one) to lists of
    # tensors: their tensor-list and scalar-list parameters are the kernel's element inputs.
    kernel_ops: tuple[str, ...] = ()
    # The ops whose caller-passed (out=) outputs have the golden's dtype rather than their dtype
    # source's (trace: INT64 for an integral matrix; bincount: INT64 counts or DOUBLE sums).
    result_dtype_ops: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        assert len(self.roles) <= MAX_ROLES and len(self.options) <= MAX_OPTIONS, self.name
        assert set(self.required) <= set(self.roles), self.name

    @property
    def cpp_name(self) -> str:
        return "".join(part.title() for part in self.name.split("_"))



def shape_variations(family: Family, op: str, kinds: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The (kind, roles) of the family's shape variations of `op` of the given kinds."""
    return [(kind, roles) for o, kind, roles in family.shape_variations if o in (op, "*") and kind in kinds]


def dtype_source(family: Family, op: str) -> str:
    """The role whose dtype the outputs of `op` have (unless fixed_dtype says otherwise)."""
    return dict(family.op_dtype_sources).get(op, "self")


def role_dtype_source(family: Family, role: str) -> tuple[str, ...]:
    """The roles whose dtypes an output playing `role` promotes, where not its op's dtype source."""
    return dict(family.role_dtype_sources).get(role, ())


def exact(family: Family, op: str) -> bool:
    """Whether `op`'s results are PyTorch's bit for bit."""
    return op in family.exact_ops or "*" in family.exact_ops


def fixed_dtype(family: Family, op: str, role: str) -> Optional[str]:
    """The dtype (a gen.ir.DType value) an output playing `role` always has, if the family fixes it."""
    for o, r, dtype in family.op_fixed_dtypes:
        if o == op and r == role:
            return dtype
    return dict(family.fixed_dtypes).get(role)


def output_shape(family: Family, op: str, role: str) -> str:
    """The shape rule of the output playing `role` of an API computing `op` ("*": the rule of
    every output of the op, "given" for a concatenation) when the caller does not pass it."""
    for o, r, rule in family.op_output_shapes:
        if o in (op, "*") and r in (role, "*"):
            return rule
    return family.output_shape


@dataclass(frozen=True)
class OutputShape:
    """A rule by which the bindings shape an output of a family's op that the caller does not pass
    (out=). This table is the rules' one home: the families' tables name them, gen/api/python.py
    plans outputs with them, gen/emit/enums.py renders the bound ones as the enumeration the
    bindings switch on (include/aclnn_bindgen/output_shapes.h), and runtime/binding/outputs.cpp
    (`apply_family_rule`) implements each, with the arithmetic the simulator shares in
    runtime/include/aclnn_bindgen/ (conv_shape.h, pool_shape.h)."""

    name: str  # as the families' tables and the semantics spell it
    doc: str
    dims_role: str = ""  # the role whose argument the rule reads as its dimensions (bind::RuleArgs.dims)
    product: bool = False  # shaped from two operands; its dtype is their promotion
    pooled: bool = False  # the pool family's: over the `spatial` option's trailing dimensions
    # Allocated at the largest extent the data can give; the kernel sets the aclTensor's view
    # shape, which the call reads back once the stream has run (as op-plugin resizes them).
    data_dependent: bool = False
    bound: bool = True  # False: no plan of the bindings' ("page": the page's relations; "given": out= required


OUTPUT_SHAPES = (
    OutputShape("page", "the page's own relations, as for an op of no family (the broadcast of the inputs)",
                bound=False),
    OutputShape("given", "follows from the arguments by a rule the bindings do not know (a concatenation's, "
                "a permutation's): the caller passes out=", bound=False),
    OutputShape("same", "the source's shape"),
    OutputShape("reduce", "the source with the `dim` dimensions removed, or kept as 1 with keepdim",
                dims_role="dim"),
    OutputShape("matmul", "source @ second as torch.matmul shapes it", product=True),
    OutputShape("outer", "[source's, second's]", product=True),
    OutputShape("batch_sum", "the product of two batches summed over the batch: [M, N]", product=True),
    OutputShape("convolution", "source convolved by second (aclnn_bindgen/conv_shape.h)", product=True),
    OutputShape("trailing_ones", "the source's shape with its trailing normalised dimensions as 1 (as many as "
                "normalized_shape names, else as second's rank)", dims_role="normalized_shape"),
    OutputShape("groups", "[N, group]", dims_role="group"),
    OutputShape("channels", "[C]"),
    OutputShape("pool", "the source's leading dimensions, then each spatial one pooled by the kernel, stride, "
                "padding, dilation and ceil-mode arguments (aclnn_bindgen/pool_shape.h)", dims_role="kernel",
                pooled=True),
    OutputShape("adaptive", "the leading dimensions, then output_size", dims_role="output_size", pooled=True),
    OutputShape("pad", "each spatial dimension widened by its padding pair", dims_role="padding", pooled=True),
    OutputShape("bound_flat", "at most [source.numel()]", data_dependent=True),
    OutputShape("bound_nonzero", "at most [source.numel(), source.dim()]", data_dependent=True),
    OutputShape("bound_nonzero_t", "at most [source.dim(), source.numel()]", data_dependent=True),
    OutputShape("bound_dim", "at most the source's shape ([numel] without dim)", dims_role="dim",
                data_dependent=True),
    OutputShape("bound_dim_length", "at most [source.size(dim)] ([numel] without dim)", dims_role="dim",
                data_dependent=True),
    OutputShape("dim_length", "[source.size(dim)] (the source's without dim)", dims_role="dim"),
    OutputShape("one", "[1]"),
    OutputShape("second", "the second role's own shape (a norm backward's gradient of gamma)"),
    OutputShape("sizes", "the argument of the dims role as the whole shape (an upsample backward's input_size)",
                dims_role="input_size"),
)
OUTPUT_SHAPE = {rule.name: rule for rule in OUTPUT_SHAPES}


def data_dependent(rule: str) -> bool:
    """Whether an output of this shape rule is allocated at its largest and read back at the extent
    its kernel sets (the dynamic family's "bound_*" rules)."""
    known = OUTPUT_SHAPE.get(rule)
    return known is not None and known.data_dependent


# The roles whose arguments the "convolution" rule reads, in bind::RuleArgs.conv's order.
CONV_RULE_ROLES = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")
# The further window arguments the pool family's rules read (bind::RuleArgs).
POOL_WINDOW_ROLES = ("stride", "padding", "dilation", "ceil_mode")

