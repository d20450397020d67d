"""The simulator's kernel families: what a semantics file may name besides an elementwise kernel.

Each family listed here has its engine; a family joins the table with its engine, not before
(indexing and shape/copy are issue 12's next ones).

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
MAX_ROLES = 24
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
    # The role whose parameter's dtype an output has, by op (default: self).
    op_dtype_sources: tuple[tuple[str, str], ...] = ()
    # Outputs whose dtype is fixed whatever the input's: by role, and by (op, role).
    fixed_dtypes: tuple[tuple[str, str], ...] = ()
    op_fixed_dtypes: tuple[tuple[str, str, str], ...] = ()
    # The role whose argument outputs are shaped from (and take the dtype of), and a second one
    # whose shape some rules read (a product's right operand, rms norm's gamma).
    source: str = "self"
    second: str = ""
    # Shape rules that differ from `output_shape` by (op, role) ("*": every op, every role):
    # "same", "reduce", "page" (the page's own relations, as for an op of no family: where's out is
    # the broadcast of its inputs), "given" (the shape follows from arguments by a rule the
    # bindings do not know: a concatenation's, a permutation's, a slice's; the caller passes out=),
    # "matmul" (source @ second as torch.matmul shapes it), "outer" ([source's, second's]),
    # "batch_sum" (the product of two batches summed over the batch: [M, N]), "trailing_ones"
    # (source's shape with its trailing normalised dimensions as 1: as many as the
    # `normalized_shape` argument names, else as second's rank), "groups" ([N, group]) and
    # "channels" ([C]).
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
             "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "nansum", "aminmax", "log_sum"),
        # noop_with_empty_dims: an empty dimension list reduces nothing (out = self) instead of
        # every dimension (the ONNX-style pages' noopWithEmptyAxes).
        roles=("self", "dim", "keepdim", "dtype", "correction", "unbiased", "p", "out", "indices", "mean",
               "max_out", "noop_with_empty_dims"),
        required=("self", "out"),
        options=("correction", "p"),
        output_shape="reduce",
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argmax", "out", "INT64"), ("argmin", "out", "INT64"), ("any", "out", "BOOL"),
                         ("all", "out", "BOOL")),
        exact_ops=("amax", "amin", "max", "min", "argmax", "argmin", "any", "all", "aminmax"),
        shape_variations=(("*", "rank", ("self",)),),
        doc="along `dim` (an int array or an int; absent or empty: every dimension, or none with "
            "noop_with_empty_dims), keepdim; max/min give values and indices, var_mean/std_mean the variance and "
            "the mean, aminmax min and max, log_sum the logarithm of the sum"),
    Family(
        "cumulative", "PlanCumulative",
        ops=("cumsum", "cumprod", "cummax", "cummin"),
        roles=("self", "dim", "dtype", "exclusive", "reverse", "out", "indices"),
        required=("self", "dim", "out"),
        fixed_dtypes=(("indices", "INT64"),),
        exact_ops=("cummax", "cummin"),
        shape_variations=(("*", "rank", ("self",)),),
        doc="running sums, products, maxima and minima along one dimension"),
    Family(
        "index", "PlanIndex",
        ops=("gather", "index_select", "embedding", "take", "scatter", "scatter_add", "one_hot", "topk", "sort",
             "argsort", "gather_v2", "gather_nd", "scatter_reduce", "index_copy", "index_add"),
        # gather_v2: self's slices along dim at an index of any shape (numpy's take along an axis),
        # per batch of the leading batch_dims dimensions; gather_nd: self at the positions the index's
        # last dimension lists; include_self: whether a scatter_reduce reduction starts from self.
        roles=("self", "dim", "index", "src", "value", "reduce", "k", "largest", "descending", "num_classes",
               "on_value", "off_value", "out", "indices", "batch_dims", "negative_index", "include_self", "alpha"),
        required=("self",),
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argsort", "indices", "INT64"),),
        op_output_shapes=(("gather", "*", "given"), ("index_select", "*", "given"), ("embedding", "*", "given"),
                          ("take", "*", "page"), ("one_hot", "*", "given"), ("topk", "*", "given"),
                          ("gather_v2", "*", "given"), ("gather_nd", "*", "given")),
        op_dtype_sources=(("one_hot", "on_value"),),
        exact_ops=("gather", "index_select", "embedding", "take", "one_hot", "topk", "sort", "argsort"),
        shape_arguments=(("index_copy", "dim"), ("index_add", "dim")),
        doc="gathers and scatters along a dimension (indices checked in phase 2, where they live), "
            "n-dimensional gathers, scatters that reduce (sum, product, max, min, mean), index copies and adds, "
            "one-hot encodings, stable sorts and top-k"),
    Family(
        "select", "PlanSelect",
        ops=("where", "masked_fill"),
        roles=("condition", "self", "other", "out"),
        required=("condition", "self"),
        op_output_shapes=(("where", "*", "page"),),
        exact_ops=("*",),
        shape_variations=(("where", "rank", ("condition", "self", "other")), ("masked_fill", "rank", ("self", "condition")),
                          ("where", "broadcast", ("condition", "self", "other")), ("masked_fill", "broadcast", ("condition",))),
        doc="where: out = condition ? self : other, broadcast; masked_fill: self = mask ? value : self"),
    Family(
        "shape", "PlanShape",
        ops=("cast", "copy", "cat", "stack", "split", "split_with_size", "permute", "expand", "flip", "roll",
             "tril", "triu", "constant_pad", "repeat", "slice"),
        roles=("self", "tensors", "dim", "dims", "shifts", "size", "diagonal", "pad", "value", "start",
               "end", "step", "dtype", "out"),
        required=("out",),
        op_output_shapes=(("cat", "*", "given"), ("stack", "*", "given"), ("split", "*", "given"),
                          ("split_with_size", "*", "given"), ("permute", "*", "given"), ("expand", "*", "given"),
                          ("constant_pad", "*", "given"), ("repeat", "*", "given"), ("slice", "*", "given")),
        op_dtype_sources=(("cat", "tensors"), ("stack", "tensors")),
        exact_ops=("*",),
        doc="copies between views, bit for bit within a dtype and converting between dtypes: casts, "
            "broadcasting copies, concatenation, stacking, splitting, permutations, broadcasts, flips, "
            "rolls, triangles, constant padding, repeats and slices"),
    Family(
        "softmax", "PlanSoftmax",
        ops=("softmax", "log_softmax"),
        roles=("self", "dim", "out"),
        required=("self", "dim", "out"),
        shape_variations=(("*", "rank", ("self",)),),
        doc="along one dimension, computed in float (double for DOUBLE)"),
    Family(
        "norm", "PlanNorm",
        # gemma_rms_norm: rms_norm scaled by (1 + weight).
        ops=("layer_norm", "rms_norm", "add_rms_norm", "group_norm", "batch_norm", "gemma_rms_norm"),
        roles=("input", "input2", "normalized_shape", "weight", "bias", "running_mean", "running_var",
               "eps", "training", "momentum", "group", "out", "mean", "rstd", "sum_out"),
        required=("input", "out"),
        options=("eps",),
        source="input",
        second="weight",
        op_output_shapes=(("layer_norm", "mean", "trailing_ones"), ("layer_norm", "rstd", "trailing_ones"),
                          ("rms_norm", "rstd", "trailing_ones"), ("add_rms_norm", "rstd", "trailing_ones"),
                          ("gemma_rms_norm", "rstd", "trailing_ones"),
                          ("group_norm", "mean", "groups"), ("group_norm", "rstd", "groups"),
                          ("batch_norm", "mean", "channels"), ("batch_norm", "rstd", "channels")),
        op_fixed_dtypes=(("rms_norm", "rstd", "FLOAT"), ("add_rms_norm", "rstd", "FLOAT"),
                         ("gemma_rms_norm", "rstd", "FLOAT")),
        shape_variations=(("rms_norm", "trailing", ("input", "weight")), ("gemma_rms_norm", "trailing", ("input", "weight")),
                          ("add_rms_norm", "trailing", ("input", "input2", "weight")),
                          ("layer_norm", "trailing", ("input", "weight", "bias")),
                          ("batch_norm", "channels", ("input", "weight", "bias", "running_mean", "running_var"))),
        doc="statistics over the trailing (layer/rms), group or batch dimensions, computed in float "
            "(double for DOUBLE); mean/rstd outputs"),
    Family(
        "loss", "PlanLoss",
        # Pointwise losses (self against target, broadcast) reduced by `reduction` (0 none, 1 mean,
        # 2 sum), their backwards (grad_output times the derivative, divided by the count for a
        # mean), the negative log likelihood along the class dimension 1 (nll_loss2d: self
        # [N, C, H, W]), and the softmax backwards every cross entropy's gradient goes through
        # (self: the incoming gradient, output: the forward's result).
        ops=("mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy",
             "binary_cross_entropy_with_logits", "kl_div", "mse_loss_backward", "l1_loss_backward",
             "smooth_l1_loss_backward", "soft_margin_loss_backward", "binary_cross_entropy_backward",
             "binary_cross_entropy_with_logits_backward", "kl_div_backward", "kl_div_target_backward", "nll_loss", "nll_loss_backward",
             "softmax_backward", "log_softmax_backward", "cross_entropy", "cross_entropy_grad"),
        # cross_entropy: self the logits [N, C], reduction a string ("mean", "sum", "none"); log_prob
        # its log_softmax (an output; the grad's input), zloss and lse its z-loss outputs (the scale
        # zloss_scale must be 0: the pages say z-loss is not supported yet).
        roles=("self", "target", "grad_output", "weight", "pos_weight", "reduction", "beta", "log_target",
               "ignore_index", "total_weight", "output", "dim", "out", "label_smoothing", "zloss_scale",
               "return_zloss", "log_prob", "zloss", "lse"),
        required=("self", "out"),
        op_output_shapes=(("mse_loss", "*", "given"), ("l1_loss", "*", "given"), ("smooth_l1_loss", "*", "given"),
                          ("soft_margin_loss", "*", "given"), ("binary_cross_entropy", "*", "given"),
                          ("binary_cross_entropy_with_logits", "*", "given"), ("kl_div", "*", "given"),
                          ("nll_loss", "*", "given"), ("cross_entropy", "*", "given")),
        doc="pointwise losses reduced by `reduction` (0 none, 1 mean, 2 sum) and their backwards, the negative "
            "log likelihood and its backward, cross entropy with label smoothing and its gradient, the softmax and "
            "log_softmax backwards; computed in float "
            "(double for DOUBLE), sums accumulated in double"),
    Family(
        "matmul", "PlanMatmul",
        ops=("mm", "bmm", "matmul", "addmm", "baddbmm", "mv", "dot", "addmv", "addbmm", "ger", "gemm"),
        # bias: the added tensor of addmm & co. (selfRef for the in-place ones, which is also out);
        # cube_math_type: the NPU's Cube precision mode (the pages' cubeMathType, 0 to 4);
        # trans_a, trans_b: gemm's operands transposed first when nonzero.
        roles=("bias", "a", "b", "beta", "alpha", "out", "cube_math_type", "trans_a", "trans_b"),
        required=("a", "b", "out"),
        options=("beta", "alpha"),
        output_shape="matmul",
        source="a",
        second="b",
        op_output_shapes=(("ger", "out", "outer"), ("addbmm", "out", "batch_sum"), ("gemm", "out", "given")),
        shape_variations=(("matmul", "batch", ("a", "b")), ("bmm", "batch", ("a", "b")), ("addmm", "bias", ("bias",)),
                          ("baddbmm", "bias", ("bias",)), ("addbmm", "bias", ("bias",)), ("addmv", "bias", ("bias",)),
                          ("gemm", "bias", ("bias",))),
        doc="on the BLAS (OpenBLAS): float32 GEMM for FLOAT, FLOAT16 and BFLOAT16, double GEMM for DOUBLE "
            "and the integers (exact up to 2^53)"),
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


def shape_variations(family: Family, op: str, kinds: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The (kind, roles) of the family's shape variations of `op` of the given kinds."""
    return [(kind, roles) for o, kind, roles in family.shape_variations if o in (op, "*") and kind in kinds]


def dtype_source(family: Family, op: str) -> str:
    """The role whose dtype the outputs of `op` have (unless fixed_dtype says otherwise)."""
    return dict(family.op_dtype_sources).get(op, "self")


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


# The role whose argument a shape rule reads as its dimensions (bind::RuleArgs.dims).
RULE_DIMS = {"reduce": "dim", "trailing_ones": "normalized_shape", "groups": "group"}


def family(name: str) -> Optional[Family]:
    return BY_NAME.get(name)
