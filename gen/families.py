"""The simulator's kernel families: what a semantics file may name besides an elementwise kernel.

Each family listed here has its engine; a family joins the table with its engine, not before.

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

# The C++ FamilySpec's arrays are this long (kMaxFamilyRoles, kMaxFamilyOptions: rendered into aclnn_sim/families.h).
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


FAMILIES: tuple[Family, ...] = (
    Family(
        "reduce", "PlanReduce",
        ops=("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "any", "all",
             "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "nansum", "aminmax", "log_sum",
             "global_mean", "global_amax"),
        # noop_with_empty_dims: an empty dimension list reduces nothing (out = self) instead of
        # every dimension (the ONNX-style pages' noopWithEmptyAxes).
        roles=("self", "dim", "keepdim", "dtype", "correction", "unbiased", "p", "out", "indices", "mean",
               "max_out", "noop_with_empty_dims"),
        required=("self", "out"),
        options=("correction", "p"),
        output_shape="reduce",
        # global_mean, global_amax: mean and amax over every dimension after the first two, kept
        # as 1 (ONNX's GlobalAveragePool and GlobalMaxPool).
        op_output_shapes=(("global_mean", "*", "given"), ("global_amax", "*", "given")),
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argmax", "out", "INT64"), ("argmin", "out", "INT64"), ("any", "out", "BOOL"),
                         ("all", "out", "BOOL")),
        exact_ops=("amax", "amin", "max", "min", "argmax", "argmin", "any", "all", "aminmax", "global_amax"),
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
             "argsort", "gather_v2", "gather_nd", "scatter_reduce", "index_copy", "index_add", "sort_with_index",
             "tf_scatter", "scatter_nd"),
        # tf_scatter: TF's scatter_{add,mul,div,max,min} in place, self[index[i...], ...] combined with
        # src[i..., ...] by the `combine` option (1 add, 2 multiply, 3 max, 4 min, 6 divide), or for
        # adds TF's scatter_nd form; scatter_nd: out = self with src's slices at the positions each
        # row of the index's last dimension lists.
        # gather_v2: self's slices along dim at an index of any shape (numpy's take along an axis),
        # per batch of the leading batch_dims dimensions; gather_nd: self at the positions the index's
        # last dimension lists; include_self: whether a scatter_reduce reduction starts from self;
        # sort_with_index: a stable sort whose indices are index's elements moved as self's (NaN first).
        roles=("self", "dim", "index", "src", "value", "reduce", "k", "largest", "descending", "num_classes",
               "on_value", "off_value", "out", "indices", "batch_dims", "negative_index", "include_self", "alpha"),
        required=("self",),
        fixed_dtypes=(("indices", "INT64"),),
        op_fixed_dtypes=(("argsort", "indices", "INT64"), ("sort_with_index", "indices", "INT32")),
        op_output_shapes=(("gather", "*", "given"), ("index_select", "*", "given"), ("embedding", "*", "given"),
                          ("take", "*", "page"), ("one_hot", "*", "given"), ("topk", "*", "given"),
                          ("gather_v2", "*", "given"), ("gather_nd", "*", "given")),
        op_dtype_sources=(("one_hot", "on_value"),),
        exact_ops=("gather", "index_select", "embedding", "take", "one_hot", "topk", "sort", "argsort", "sort_with_index"),
        shape_arguments=(("index_copy", "dim"), ("index_add", "dim")),
        options=("combine",),
        doc="gathers and scatters along a dimension (indices checked in phase 2, where they live), "
            "n-dimensional gathers, scatters that reduce (sum, product, max, min, mean), index copies and adds, "
            "one-hot encodings, stable sorts (of given indices too) and top-k"),
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
        "dynamic", "PlanDynamic",
        # Outputs whose extent depends on the data: the caller allocates the largest ("bound_*"
        # rules; a caller's out= need only hold the result, as the pages' examples pass it), the
        # kernel sets the output aclTensor's view shape to what it wrote and the caller reads it
        # back (aclGetViewShape), as op-plugin does for these APIs. nonzero_t:
        # the positions as [rank, N] (aclnnNonzeroV2); unique_consecutive and unique_dim: with a
        # dim in range, slices along it; equal: whether two tensors have one shape and one value.
        ops=("masked_select", "nonzero", "nonzero_t", "unique", "unique_consecutive", "unique_dim", "equal"),
        roles=("self", "mask", "other", "sorted", "return_inverse", "return_counts", "dim", "out", "inverse",
               "counts"),
        required=("self", "out"),
        second="mask",
        fixed_dtypes=(("inverse", "INT64"), ("counts", "INT64")),
        op_fixed_dtypes=(("nonzero", "out", "INT64"), ("nonzero_t", "out", "INT64"), ("equal", "out", "BOOL")),
        # bound_flat: [N], N the elements of self (broadcast with mask); bound_nonzero: [N, rank];
        # bound_nonzero_t: [rank, N]; bound_dim: self's shape with a dim in range, else [N];
        # bound_dim_length: [self.size(dim)] with a dim in range, else [N]; dim_length: the same,
        # else self's shape (an inverse, not data-dependent); one: [1].
        op_output_shapes=(("masked_select", "out", "bound_flat"), ("nonzero", "out", "bound_nonzero"),
                          ("nonzero_t", "out", "bound_nonzero_t"), ("unique", "out", "bound_flat"),
                          ("unique", "counts", "bound_flat"), ("unique_consecutive", "out", "bound_dim"),
                          ("unique_consecutive", "inverse", "dim_length"),
                          ("unique_consecutive", "counts", "bound_dim_length"), ("unique_dim", "out", "bound_dim"),
                          ("unique_dim", "inverse", "dim_length"), ("unique_dim", "counts", "bound_dim_length"),
                          ("equal", "out", "one")),
        exact_ops=("*",),
        doc="outputs whose extent the data decides (masked_select, nonzero, unique and its variants: the "
            "output's view shape set by the kernel), and equal"),
    Family(
        "advanced", "PlanAdvanced",
        # index: self[indices] (a list of position tensors, masks, and [0]-shaped stand-ins for a
        # whole dimension); index_put: self[indices] = values (or += with accumulate);
        # masked_scatter: self's masked positions take source's elements in order; put: positions
        # of self read as one row (index) take values' elements.
        # index_fill: self's slices along dim at index's positions (a tensor: outside ones skipped,
        # as the page says; an int array: checked in phase 1) set to the scalar value.
        # scatter_nd_update: the rows of index's last dimension are positions in self's leading
        # dimensions, whose slices take values' (torch_npu.npu_scatter_nd_update).
        # scatter_update: batch i's updates go to self's batch i from position index[i] along dim
        # (torch_npu.npu_scatter_update, a KV cache's write).
        ops=("index", "index_put", "masked_scatter", "put", "index_fill", "scatter_nd_update", "scatter_update"),
        roles=("self", "indices", "index", "values", "accumulate", "dim", "value", "out"),
        required=("self",),
        op_output_shapes=(("index", "*", "given"),),
        exact_ops=("index", "masked_scatter", "index_fill", "scatter_nd_update", "scatter_update"),
        doc="PyTorch's advanced indexing: gathers by a list of index tensors and masks, and writes "
            "(replacing or accumulating) through them; masked_scatter, put, index_fill, scatter_nd_update and scatter_update"),
    Family(
        "shape", "PlanShape",
        ops=("cast", "copy", "cat", "stack", "split", "split_with_size", "permute", "expand", "flip", "roll",
             "tril", "triu", "constant_pad", "repeat", "slice", "flatten", "confusion_transpose", "diag", "diag_flat",
             "diag_part", "slice_assign"),
        # flatten: self's elements row-major as [prod(shape[:dim]), prod(shape[dim:])];
        # confusion_transpose: self permuted by dims then reshaped to size (transpose_first), or
        # reshaped then permuted. diag: torch.diag (a vector's matrix, a matrix's diagonal `diagonal`);
        # diag_flat: torch.diagflat; diag_part: out[i...] = self[i..., i...] (self's rank twice out's);
        # slice_assign: src copied into slice's view of self, in place (out is self).
        roles=("self", "tensors", "dim", "dims", "shifts", "size", "diagonal", "pad", "value", "start",
               "end", "step", "dtype", "out", "transpose_first", "src"),
        required=("out",),
        op_output_shapes=(("cat", "*", "given"), ("stack", "*", "given"), ("split", "*", "given"),
                          ("split_with_size", "*", "given"), ("permute", "*", "given"), ("expand", "*", "given"),
                          ("constant_pad", "*", "given"), ("repeat", "*", "given"), ("slice", "*", "given"),
                          ("flatten", "*", "given"), ("confusion_transpose", "*", "given"), ("diag", "*", "given"),
                          ("diag_flat", "*", "given"), ("diag_part", "*", "given")),
        op_dtype_sources=(("cat", "tensors"), ("stack", "tensors")),
        exact_ops=("*",),
        doc="copies between views, bit for bit within a dtype and converting between dtypes: casts, "
            "broadcasting copies, concatenation, stacking, splitting, permutations, broadcasts, flips, "
            "rolls, triangles, constant padding, repeats, slices (and assignments to them), flattening, reshaped "
            "permutations and diagonals"),
    Family(
        "softmax", "PlanSoftmax",
        ops=("softmax", "log_softmax"),
        roles=("self", "dim", "out"),
        required=("self", "dim", "out"),
        shape_variations=(("*", "rank", ("self",)),),
        doc="along one dimension, computed in float (double for DOUBLE)"),
    Family(
        "norm", "PlanNorm",
        # gemma_rms_norm: rms_norm scaled by (1 + weight); group_norm_silu: group_norm then SiLU;
        # add_layer_norm: layer_norm of input + input2 (+ input3, a bias) over gamma's dimensions, the
        # sum written to sum_out when additional_output; deep_norm: layer_norm of input * alpha + input2;
        # add_rms_norm_cast: rms_norm of input + input2 in float, out FLOAT and out2 in input's dtype.
        # group_norm_swish: group_norm then x * sigmoid(swish_scale * x) when activate_swish (data_format
        # NCHW only).
        ops=("layer_norm", "rms_norm", "add_rms_norm", "group_norm", "batch_norm", "gemma_rms_norm", "group_norm_silu",
             "add_layer_norm", "deep_norm", "add_rms_norm_cast", "group_norm_swish", "ada_layer_norm"),
        # ada_layer_norm: layer_norm over the last dimension, then * (1 + scale) + shift, scale and
        # shift one row per batch ([B..., H] or [B..., 1, H]: broadcast over x's dimension -2).
        roles=("input", "input2", "normalized_shape", "weight", "bias", "running_mean", "running_var",
               "eps", "training", "momentum", "group", "out", "mean", "rstd", "sum_out", "input3", "alpha",
               "additional_output", "out2", "activate_swish", "swish_scale", "data_format", "scale", "shift"),
        required=("input", "out"),
        options=("eps",),
        source="input",
        second="weight",
        op_output_shapes=(("layer_norm", "mean", "trailing_ones"), ("layer_norm", "rstd", "trailing_ones"),
                          ("rms_norm", "rstd", "trailing_ones"), ("add_rms_norm", "rstd", "trailing_ones"),
                          ("gemma_rms_norm", "rstd", "trailing_ones"),
                          ("group_norm", "mean", "groups"), ("group_norm", "rstd", "groups"),
                          ("group_norm_silu", "mean", "groups"), ("group_norm_silu", "rstd", "groups"),
                          ("group_norm_swish", "mean", "groups"), ("group_norm_swish", "rstd", "groups"),
                          ("add_layer_norm", "mean", "trailing_ones"), ("add_layer_norm", "rstd", "trailing_ones"),
                          ("deep_norm", "mean", "trailing_ones"), ("deep_norm", "rstd", "trailing_ones"),
                          ("add_rms_norm_cast", "rstd", "trailing_ones"),
                          ("ada_layer_norm", "mean", "trailing_ones"), ("ada_layer_norm", "rstd", "trailing_ones"),
                          ("batch_norm", "mean", "channels"), ("batch_norm", "rstd", "channels")),
        op_fixed_dtypes=(("rms_norm", "rstd", "FLOAT"), ("add_rms_norm", "rstd", "FLOAT"),
                         ("gemma_rms_norm", "rstd", "FLOAT"), ("add_layer_norm", "mean", "FLOAT"),
                         ("add_layer_norm", "rstd", "FLOAT"), ("deep_norm", "mean", "FLOAT"), ("deep_norm", "rstd", "FLOAT"),
                         ("add_rms_norm_cast", "out", "FLOAT"), ("add_rms_norm_cast", "rstd", "FLOAT")),
        shape_variations=(("rms_norm", "trailing", ("input", "weight")), ("gemma_rms_norm", "trailing", ("input", "weight")),
                          ("add_rms_norm", "trailing", ("input", "input2", "weight")),
                          ("layer_norm", "trailing", ("input", "weight", "bias")),
                          ("batch_norm", "channels", ("input", "weight", "bias", "running_mean", "running_var"))),
        doc="statistics over the trailing (layer/rms), group or batch dimensions, computed in float "
            "(double for DOUBLE); mean/rstd outputs"),
    Family(
        "norm_grad", "PlanNormGrad",
        # add_layer_norm_grad: layer_norm_backward at input + input2 (gamma's dimensions), grad_sum
        # added to grad_input; deep_norm_grad: at input * alpha + input2, grad_input2 the sum's gradient.
        ops=("layer_norm_backward", "rms_norm_grad", "group_norm_backward", "batch_norm_backward",
             "add_layer_norm_grad", "deep_norm_grad", "group_norm_swish_backward"),
        # group_norm_swish_backward: group_norm_backward of the gradient through the forward's swish
        # (bias: beta, swish_scale), grad_weight and grad_bias where weight_required and bias_required.
        # mean/rstd: the forward's saved statistics (batch norm's saveMean/saveInvstd); output_mask:
        # which of grad_input, grad_weight, grad_bias are computed (absent: all).
        roles=("grad_out", "input", "normalized_shape", "mean", "rstd", "weight", "running_mean", "running_var",
               "training", "eps", "group", "output_mask", "grad_input", "grad_weight", "grad_bias", "input2",
               "alpha", "grad_sum", "grad_input2", "bias", "swish_scale", "weight_required", "bias_required",
               "data_format"),
        required=("grad_out", "input"),
        source="input",
        second="weight",
        # The gradients of a required gamma have its shape; layer_norm_backward's weight is optional
        # (its gradients' shape is normalized_shape's then, which no rule reads).
        op_output_shapes=(("layer_norm_backward", "grad_weight", "given"), ("layer_norm_backward", "grad_bias", "given"),
                          ("rms_norm_grad", "grad_weight", "second"),
                          ("add_layer_norm_grad", "grad_weight", "second"), ("add_layer_norm_grad", "grad_bias", "second"),
                          ("deep_norm_grad", "grad_weight", "second"), ("deep_norm_grad", "grad_bias", "second"),
                          ("group_norm_backward", "grad_weight", "channels"), ("group_norm_backward", "grad_bias", "channels"),
                          ("group_norm_swish_backward", "grad_weight", "channels"),
                          ("group_norm_swish_backward", "grad_bias", "channels"),
                          ("batch_norm_backward", "grad_weight", "channels"), ("batch_norm_backward", "grad_bias", "channels")),
        op_fixed_dtypes=(("rms_norm_grad", "grad_weight", "FLOAT"), ("add_layer_norm_grad", "grad_weight", "FLOAT"),
                         ("add_layer_norm_grad", "grad_bias", "FLOAT"), ("deep_norm_grad", "grad_weight", "FLOAT"),
                         ("deep_norm_grad", "grad_bias", "FLOAT")),
        doc="the normalisations' backward from the forward's saved mean and rstd (batch norm's running "
            "statistics in inference), computed in float (double for DOUBLE)"),
    Family(
        "sync_batch_norm", "PlanSyncBatchNorm",
        # The pieces of a batch norm spread over devices (torch's SyncBatchNorm): per-channel
        # statistics (stats: mean and invstd; reduce: sum and square sum), their merge over the
        # devices (gather_stats_with_counts: from means and invstds; gather_stats: from sums), the
        # normalisation with given statistics (elemt), and the backward's reduction and elementwise step.
        ops=("stats", "reduce", "elemt", "elemt_backward", "reduce_backward", "gather_stats_with_counts",
             "gather_stats"),
        roles=("input", "grad_out", "weight", "bias", "mean", "invstd", "eps", "momentum", "running_mean",
               "running_var", "counts", "sum_dy", "sum_dy_xmu", "input_g", "weight_g", "bias_g", "out",
               "grad_weight", "grad_bias", "sum", "square_sum", "mean_out", "invstd_out"),
        required=(),
        source="input",
        op_output_shapes=(("stats", "*", "channels"), ("reduce", "*", "channels"), ("reduce_backward", "*", "channels"),
                          ("gather_stats_with_counts", "*", "channels"), ("gather_stats", "*", "given")),
        op_fixed_dtypes=(("stats", "mean_out", "FLOAT"), ("stats", "invstd_out", "FLOAT"), ("reduce", "sum", "FLOAT"),
                         ("reduce", "square_sum", "FLOAT")),
        doc="per-channel statistics, their merge over devices and the normalisation and backward steps "
            "of a synchronised batch norm, in float (double for DOUBLE)"),
    Family(
        "loss", "PlanLoss",
        # Pointwise losses (self against target, broadcast) reduced by `reduction` (0 none, 1 mean,
        # 2 sum), their backwards (grad_output times the derivative, divided by the count for a
        # mean), the negative log likelihood along the class dimension 1 (nll_loss2d: self
        # [N, C, H, W]), and the softmax backwards every cross entropy's gradient goes through
        # (self: the incoming gradient, output: the forward's result). A string reduction ("none",
        # "mean", "sum"; null: "mean") serves too. hinge_embedding_loss reads margin,
        # gaussian_nll_loss var (floored at eps) and full; p (LpLoss's norm) must be 1.
        # softmax_cross_entropy_with_logits: soft labels (target) of self [N, C], out the loss [N],
        # backprop softmax(self) - target. gaussian_nll_loss_backward: out the input's gradient,
        # grad_var var's (summed back to var's shape).
        ops=("mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy",
             "binary_cross_entropy_with_logits", "kl_div", "mse_loss_backward", "l1_loss_backward",
             "smooth_l1_loss_backward", "soft_margin_loss_backward", "binary_cross_entropy_backward",
             "binary_cross_entropy_with_logits_backward", "kl_div_backward", "kl_div_target_backward", "nll_loss", "nll_loss_backward",
             "softmax_backward", "log_softmax_backward", "cross_entropy", "cross_entropy_grad",
             "binary_cross_entropy_with_logits_target_backward", "hinge_embedding_loss", "gaussian_nll_loss",
             "softmax_cross_entropy_with_logits", "gaussian_nll_loss_backward"),
        # cross_entropy: self the logits [N, C], reduction a string ("mean", "sum", "none"); log_prob
        # its log_softmax (an output; the grad's input), zloss and lse its z-loss outputs (the scale
        # zloss_scale must be 0: the pages say z-loss is not supported yet).
        roles=("self", "target", "grad_output", "weight", "pos_weight", "reduction", "beta", "log_target",
               "ignore_index", "total_weight", "output", "dim", "out", "label_smoothing", "zloss_scale",
               "return_zloss", "log_prob", "zloss", "lse", "margin", "var", "full", "eps", "p", "backprop", "grad_var"),
        required=("self", "out"),
        op_output_shapes=(("mse_loss", "*", "given"), ("l1_loss", "*", "given"), ("smooth_l1_loss", "*", "given"),
                          ("soft_margin_loss", "*", "given"), ("binary_cross_entropy", "*", "given"),
                          ("binary_cross_entropy_with_logits", "*", "given"), ("kl_div", "*", "given"),
                          ("nll_loss", "*", "given"), ("cross_entropy", "*", "given"),
                          ("hinge_embedding_loss", "*", "given"), ("gaussian_nll_loss", "*", "given"),
                          ("softmax_cross_entropy_with_logits", "*", "given"),
                          ("gaussian_nll_loss_backward", "grad_var", "second")),
        # The Gaussian NLL's variance: its gradient has its shape.
        second="var",
        doc="pointwise losses reduced by `reduction` (0 none, 1 mean, 2 sum) and their backwards, the negative "
            "log likelihood and its backward, cross entropy with label smoothing and its gradient, the softmax and "
            "log_softmax backwards; computed in float "
            "(double for DOUBLE), sums accumulated in double"),
    Family(
        "matmul", "PlanMatmul",
        ops=("mm", "bmm", "matmul", "addmm", "baddbmm", "mv", "dot", "addmv", "addbmm", "ger", "gemm",
             "transpose_bmm", "matmul_all_reduce", "fused_matmul"),
        # fused_matmul: matmul (+ bias) then the fused_op string's step: "" none, "add"/"mul" x3,
        # "gelu_tanh", "gelu_erf", "relu", "16cast32" (a FLOAT out).
        # bias: the added tensor of addmm & co. (selfRef for the in-place ones, which is also out);
        # cube_math_type: the NPU's Cube precision mode (the pages' cubeMathType, 0 to 4);
        # trans_a, trans_b: gemm's operands transposed first when nonzero;
        # transpose_bmm: bmm(a.permute(perm_a), b.permute(perm_b)).permute(perm_out), unscaled and
        # unsplit (scale, batch_split_factor); matmul_all_reduce: mc2's matmul (plus bias when given) then
        # an all-reduce over the communicator `group` names, the identity for the one-rank
        # communicators of the simulated libhccl (any other group refused; reduce_op "sum").
        roles=("bias", "a", "b", "beta", "alpha", "out", "cube_math_type", "trans_a", "trans_b", "perm_a", "perm_b",
               "perm_out", "scale", "batch_split_factor", "group", "reduce_op", "x3", "fused_op"),
        required=("a", "b", "out"),
        options=("beta", "alpha"),
        output_shape="matmul",
        source="a",
        second="b",
        op_output_shapes=(("ger", "out", "outer"), ("addbmm", "out", "batch_sum"), ("gemm", "out", "given"),
                          ("transpose_bmm", "out", "given")),
        shape_variations=(("matmul", "batch", ("a", "b")), ("bmm", "batch", ("a", "b")), ("addmm", "bias", ("bias",)),
                          ("baddbmm", "bias", ("bias",)), ("addbmm", "bias", ("bias",)), ("addmv", "bias", ("bias",)),
                          ("gemm", "bias", ("bias",))),
        doc="on the BLAS (OpenBLAS): float32 GEMM for FLOAT, FLOAT16 and BFLOAT16, double GEMM for DOUBLE "
            "and the integers (exact up to 2^53)"),
    Family(
        "conv", "PlanConv",
        # convolution: 1d/2d/3d, transposed with output_padding; convolution_backward: the gradients
        # outputMask asks for; depthwise2d: groups = channels; tbc: a 1d convolution over [time,
        # batch, channel]; im2col: the unfolded patches of F.unfold; unfold_grad: Tensor.unfold's
        # gradient (a 1d col2im of the windows of size `size` every `step` along `dim`); col2im: F.fold,
        # im2col's transpose (the patches of grad_output added back into an image of input_sizes).
        ops=("convolution", "convolution_backward", "depthwise2d", "tbc", "tbc_backward", "im2col", "unfold_grad",
             "col2im"),
        roles=("input", "weight", "bias", "bias_sizes", "stride", "padding", "dilation", "transposed",
               "output_padding", "groups", "kernel_size", "pad", "grad_output", "output_mask", "cube_math_type",
               "out", "grad_input", "grad_weight", "grad_bias", "input_sizes", "dim", "size", "step"),
        required=(),
        source="input",
        second="weight",
        # convolution's output: aclnn_bindgen/conv_shape.h's rule from input, weight and the arguments
        # of CONV_RULE_ROLES; the other ops' outputs are passed (out=).
        op_output_shapes=(("convolution", "out", "convolution"), ("*", "*", "given")),
        # transposed turns the weight's first two dimensions around: another value alone is no valid call.
        shape_arguments=(("convolution", "transposed"), ("convolution_backward", "transposed")),
        exact_ops=("im2col",),
        doc="im2col + GEMM on the BLAS (OpenBLAS sgemm; FLOAT16 and BFLOAT16 converted to float), its "
            "transpose (col2im) for the input's gradient and transposed convolutions"),
    Family(
        "pool", "PlanPool",
        # Over the trailing `spatial` dimensions (an option: 1, 2 or 3) of planes the leading
        # dimensions enumerate. max_pool's indices are flat in the input plane (PyTorch's);
        # a *_backward op's out is the gradient of self; max_unpool scatters self at indices.
        ops=("max_pool", "avg_pool", "adaptive_avg", "adaptive_max", "reflection_pad", "replication_pad",
             "max_pool_backward", "avg_pool_backward", "adaptive_avg_backward", "adaptive_max_backward",
             "reflection_pad_backward", "replication_pad_backward", "max_unpool", "max_pool_mask", "circular_pad",
             "circular_pad_backward", "max_unpool_backward"),
        roles=("self", "grad_output", "indices", "kernel", "stride", "padding", "dilation", "ceil_mode",
               "count_include_pad", "divisor_override", "output_size", "out", "out_indices"),
        required=("self", "out"),
        options=("spatial",),
        op_output_shapes=(("max_pool", "*", "pool"), ("avg_pool", "*", "pool"), ("adaptive_avg", "*", "adaptive"),
                          ("adaptive_max", "*", "adaptive"), ("reflection_pad", "*", "pad"),
                          ("replication_pad", "*", "pad"), ("max_unpool", "*", "adaptive"),
                          ("max_pool_mask", "*", "given"), ("circular_pad", "*", "pad")),
        # max_unpool_backward's out has self's shape: the family's default "same".
        fixed_dtypes=(("out_indices", "INT64"),),
        exact_ops=("max_pool", "adaptive_max", "reflection_pad", "replication_pad", "max_unpool", "circular_pad",
                   "max_unpool_backward"),
        doc="sliding-window max and average pools (kernel, stride, padding, dilation, ceil mode, "
            "count_include_pad, divisor_override), adaptive pools, reflection and replication padding, "
            "their backward, and max unpooling, over the trailing 1 to 3 dimensions"),
    Family(
        "foreach", "PlanForeach",
        # norm: member i's p-norm over all its elements (p: the `p` role, a scalar; inf: the largest |x|).
        # add_n, max_n, min_n: the members of x folded into one tensor out (sum, NaN-propagating
        # maximum and minimum), their broadcast shape.
        ops=("map", "norm", "add_n", "max_n", "min_n"),
        roles=("x", "out", "p"),
        required=("x",),
        source="x",
        kernel_ops=("map",),
        op_output_shapes=(("add_n", "*", "given"), ("max_n", "*", "given"), ("min_n", "*", "given")),
        op_dtype_sources=(("add_n", "x"), ("max_n", "x"), ("min_n", "x")),
        exact_ops=("max_n", "min_n"),
        doc="the semantics' elementwise kernel over each tensor of aclTensorLists: member i of every list "
            "(a scalar list's value i, a one-element tensor broadcast) gives out's member i, through the "
            "elementwise engine; each member's p-norm; and the members of one list summed, or their "
            "maximum or minimum, into one tensor"),
    Family(
        "optim", "PlanOptim",
        ops=("adamw", "sgd"),
        # grad_scale: FusedSgd's optional divisor of the gradients; first_step: its momentum
        # buffers start as the gradients. found_inf: AdamW skips the step where it is 1; step: one
        # tensor for every member, or a list of one per member; step_offset (an option, default 1):
        # what AdamW adds to the step to get t.
        roles=("var", "m", "v", "max_v", "grad", "step", "lr", "beta1", "beta2", "weight_decay", "eps", "amsgrad",
               "maximize", "momentum", "dampening", "nesterov", "first_step", "grad_scale", "found_inf", "step_offset"),
        options=("step_offset",),
        required=("var", "grad"),
        source="var",
        doc="optimizer steps updating parameters and their state in place, computed in float: AdamW (amsgrad, "
            "maximize), SGD with momentum, dampening, Nesterov and weight decay over tensor lists"),
    Family(
        "amp", "PlanAmp",
        ops=("unscale", "update_scale"),
        roles=("grads", "found_inf", "inv_scale", "scale", "tracker", "growth_factor", "backoff_factor",
               "growth_interval", "scale_out", "tracker_out"),
        required=("found_inf",),
        source="scale",
        op_fixed_dtypes=(("update_scale", "tracker_out", "INT32"),),
        doc="mixed precision's loss scaling: gradients multiplied by the inverse scale with a flag set where "
            "one is not finite, and the scale's update from that flag (torch's GradScaler)"),
)

# Tensors made from numbers alone (torch.arange, range, linspace, eye): no input tensor,
# the caller's out= holds the result (runtime/sim/src/opapi/families/creation.cpp).
CREATION = Family(
    "creation", "PlanCreation",
    ops=("arange", "range", "linspace", "eye"),
    roles=("start", "end", "step", "steps", "n", "m", "out"),
    required=("out",),
    source="out",
    op_output_shapes=(("*", "*", "given"),),
    exact_ops=("eye",),
    doc="arange's [start, end) and range's [start, end] by step, linspace's steps values from start to "
        "end, eye's n x m identity; out= of the result's size, any dtype its page lists")

# Sums along a diagonal, histograms and searches in sorted sequences (torch.trace, histc,
# bucketize, searchsorted): outputs whose shape follows from arguments the bindings do not read
# (bins, the sequence), so the caller passes out= (runtime/sim/src/opapi/families/counting.cpp).
COUNTING = Family(
    "counting", "PlanCounting",
    ops=("trace", "histc", "bucketize", "searchsorted", "bincount", "isin"),
    # isin: whether the scalar `element` is among self's values (the test elements).
    roles=("self", "sequence", "bins", "min", "max", "out_int32", "right", "sorter", "out", "weights", "minlength",
           "element", "assume_unique", "invert"),
    required=("self", "out"),
    op_output_shapes=(("*", "*", "given"),),
    # Positions are INT64 (INT32 with out_int32, which the engine converts to).
    op_fixed_dtypes=(("bucketize", "out", "INT64"), ("searchsorted", "out", "INT64"), ("isin", "out", "BOOL")),
    result_dtype_ops=("trace", "bincount"),
    exact_ops=("histc", "bucketize", "searchsorted"),
    doc="the trace of a matrix; histc's counts of self in bins equal parts of [min, max] (self's own range "
        "when min == max); bucketize's and searchsorted's positions of values in a sorted sequence (the "
        "innermost rows of an N-d one, through a sorter's order), left or right of equal values; bincount's "
        "occurrences (or summed weights) of each non-negative integer; isin of one scalar")

# Random numbers from one counter-based generator (Philox 4x32-10) keyed by the pages' seed and
# offset (runtime/sim/src/opapi/families/random.cpp): element i of a result draws from counter
# (i, offset) under key seed, so one seed and offset give one result on any threads and strides.
# seed_tensor, offset_tensor: the *Tensor pages' one-element device tensors (the offset int then
# adds to offsetTensor's value); mask: a dropout's bit mask (UINT8, bit i of byte i / 8 keeps
# element i), read by do_mask and dropout_grad, written by gen_mask and dropout (mask_out).
RANDOM = Family(
    "random", "PlanRandom",
    ops=("normal", "uniform", "random", "bernoulli", "multinomial", "randperm", "gen_mask", "do_mask", "dropout",
         "dropout_grad", "rrelu", "exponential"),
    # exponential: -ln(1 - u) / lambd into out, n (when bound) its element count.
    roles=("self", "mean", "std", "from", "to", "prob", "seed", "offset", "seed_tensor", "offset_tensor",
           "num_samples", "replacement", "n", "shape", "mask", "noise_shape", "lower", "upper", "training", "noise",
           "scale", "out", "mask_out", "lambd"),
    required=(),
    op_output_shapes=(("normal", "*", "given"), ("multinomial", "*", "given"), ("randperm", "*", "given"),
                      ("gen_mask", "*", "given"), ("dropout", "mask_out", "given")),
    fixed_dtypes=(("mask_out", "UINT8"),),
    op_fixed_dtypes=(("gen_mask", "out", "UINT8"), ("multinomial", "out", "INT64")),
    doc="normal, uniform, random integers, bernoulli draws, multinomial samples, permutations, dropout masks "
        "and their application, randomized leaky relu, exponential draws: every value from Philox 4x32-10 at counter (element, "
        "offset) under key seed")


# Order statistics along a dimension or over all elements (torch.kthvalue, median, nanmedian) and
# repeat_interleave with its gradient: outputs whose extent follows from arguments the bindings do
# not read (k's row, the repeats' sum), so the caller passes out= (runtime/sim/src/opapi/families/order.cpp).
ORDER = Family(
    "order", "PlanOrder",
    ops=("kthvalue", "median", "nanmedian", "repeat_interleave", "repeat_interleave_grad"),
    # dim absent: median/nanmedian over every element (one value, no indices), repeat_interleave of
    # the flattened self; self absent: repeat_interleave of the positions 0..len(repeats)-1.
    roles=("self", "repeats", "output_size", "k", "dim", "keepdim", "out", "indices"),
    required=("out",),
    # The selections' outputs are self reduced along dim (every dimension without one), which the
    # bindings shape; repeat_interleave's follow from the counts.
    op_output_shapes=(("kthvalue", "*", "reduce"), ("median", "*", "reduce"), ("nanmedian", "*", "reduce"),
                      ("*", "*", "given")),
    fixed_dtypes=(("indices", "INT64"),),
    exact_ops=("kthvalue", "median", "nanmedian", "repeat_interleave"),
    # outputSize is the extent along dim: the suites vary dim only with it (never alone).
    shape_arguments=(("repeat_interleave", "dim"),),
    doc="the k-th smallest value and the (lower) median along a dimension with their indices as aten's CPU "
        "kernels choose them (NaN largest; median: NaN wins, nanmedian: NaN skipped), the median of every "
        "element; repeat_interleave's copies by a count or a count per element, and its gradient's sums")

# Linear algebra on the trailing matrices of a batch: outer products added to a matrix (torch.addr),
# cross products, inverses and determinants through LAPACK (scipy-openblas32, the matmul family's
# BLAS), pairwise distances (runtime/sim/src/opapi/families/linalg.cpp).
LINALG = Family(
    "linalg", "PlanLinalg",
    ops=("addr", "cross", "inverse", "cdist", "slogdet", "cholesky", "triangular_solve", "qr", "svd", "pdist",
         "cdist_backward", "renorm", "fill_diagonal", "channel_shuffle", "logdet", "exp_segsum", "exp_segsum_backward"),
    # out2: slogdet's log|det|, triangular_solve's copy of A, qr's R, svd's U; out3: svd's V;
    # grad and dist: cdist_backward's incoming gradient and forward result.
    roles=("self", "other", "third", "beta", "alpha", "dim", "p", "compute_mode", "upper", "transpose",
           "unitriangular", "mode", "full_matrices", "compute_uv", "out", "out2", "out3", "grad", "dist", "maxnorm",
           "value", "wrap", "groups", "some"),
    required=("out",),
    op_output_shapes=(("*", "*", "given"),),
    doc="addr (beta * self + alpha * the outer product of two vectors, self broadcast), the cross product "
        "of 3-vectors along dim, the p-norm distance of each pair of rows of two batches of matrices (cdist); "
        "on each trailing square matrix through LAPACK in float (double for DOUBLE): the inverse (getrf/getri), the sign and log "
        "of |det| (getrf), the Cholesky factor (potrf), the solution of a triangular system (trsm, batches "
        "broadcast), QR (geqrf/orgqr) and the singular value decomposition (gesdd), LAPACK's signs; pdist, "
        "cdist's gradient, renorm's slices scaled to a largest p-norm, fill_diagonal, channel_shuffle; logdet (log "
        "det: NaN for a negative determinant, -inf for a singular matrix); qr's `some` (reduced, else complete); "
        "exp_segsum (each row x of n values gives the n x n matrix exp(x[j+1] + ... + x[i]) below the diagonal, "
        "1 on it, 0 above) and its backward (self the incoming gradient, other the forward's result)")

FAMILIES = FAMILIES + (CREATION, COUNTING, RANDOM, ORDER, LINALG)

# Activations that split their input in two along a dimension (GLU and its gated kin: a the first
# half, b the second) or weight it per channel (PReLU), and their backwards
# (runtime/sim/src/opapi/families/activation.cpp). glu: a * sigmoid(b); swiglu: silu(a) * b;
# gelu_mul: gelu(a) * b along the last dimension (approximate "none" or "tanh"); geglu: gelu of
# one half times the other, with the gelu as a second output (approximate 0 none, 1 tanh); prelu: x above 0,
# weight[c] * x at or below (c: dimension 1, or one weight for every element); log_sigmoid:
# aclnnLogSigmoidForward's out, and aten's CPU buffer exp(-|x|) in a buffer of self's shape.
ACTIVATION = Family(
    "activation", "PlanActivation",
    ops=("glu", "glu_backward", "swiglu", "swiglu_grad", "gelu_mul", "prelu", "prelu_backward", "log_sigmoid",
         "geglu", "geglu_backward", "clipped_swiglu", "clipped_swiglu_grad", "situ_glu", "situ_glu_grad",
         "fatrelu_mul", "swiglu_group"),
    # geglu: gelu of one half (the left with activate_left, else the right) times the other,
    # out_gelu the gelu; its backward reads the forward's gelu (the `gelu` role).
    # clipped_swiglu: the halves clamped by limit, silu with alpha times (B + bias), halves
    # interleaved or not, only the rows of dim's leading dimensions group_index sums to.
    roles=("self", "grad_out", "dim", "weight", "approximate", "out", "grad_weight", "buffer", "activate_left",
           "gelu", "out_gelu", "group_index", "alpha", "limit", "bias", "interleaved", "clamp_mode", "beta",
           "linear_beta"),
    required=("self", "out"),
    op_output_shapes=(("glu", "*", "given"), ("swiglu", "*", "given"), ("gelu_mul", "*", "given"), ("geglu", "*", "given"),
                      ("clipped_swiglu", "*", "given"), ("situ_glu", "*", "given"), ("fatrelu_mul", "*", "given"), ("swiglu_group", "*", "given"),
                      ("prelu_backward", "grad_weight", "given")),
    # The gradient's shape is self's halved along dim: dim varies only with the shapes.
    shape_arguments=(("glu_backward", "dim"), ("swiglu_grad", "dim"), ("geglu_backward", "dim"),
                     ("clipped_swiglu_grad", "dim"), ("situ_glu_grad", "dim")),
    doc="GLU, SwiGLU and GELU-mul (one half of the input along a dimension gating the other) and PReLU "
        "(a weight per channel), with their backwards; computed in float (double for DOUBLE), PReLU's "
        "weight gradient summed in double")

# An embedding table's gradient (runtime/sim/src/opapi/families/embedding.cpp): grad's rows added
# to out's rows its indices name, nn.Embedding's backward; and its max_norm renormalisation.
EMBEDDING = Family(
    "embedding", "PlanEmbedding",
    ops=("embedding_dense_backward", "embedding_renorm"),
    # embedding_renorm: self's rows named by indices scaled in place to a norm of at most max_norm.
    roles=("grad", "indices", "num_weights", "padding_idx", "scale_grad_by_freq", "out", "self", "max_norm",
           "norm_type"),
    required=("indices",),
    source="grad",
    op_output_shapes=(("*", "*", "given"),),
    doc="embedding_dense_backward: out [num_weights, D] sums grad's rows by index (padding_idx's row left 0, "
        "each row scaled by its index's frequency with scale_grad_by_freq), in float (double for DOUBLE); "
        "embedding_renorm: the indexed rows of self renormalised in place (aten's embedding_renorm_)")

# Rotary position embedding and its gradient (runtime/sim/src/opapi/families/rotary.cpp):
# torch_npu.npu_rotary_mul's x * cos + rotate(x) * sin along the last dimension of a 4-d x, cos and
# sin broadcast to it; mode 0 half, 1 interleave, 2 quarter, 3 interleave-half.
ROTARY = Family(
    "rotary", "PlanRotary",
    # apply_rotary: query (the x role) and key rotated in place (aclnnApplyRotaryPosEmb and V2).
    ops=("rotary", "rotary_grad", "apply_rotary"),
    roles=("x", "cos", "sin", "mode", "dy", "out", "dx", "dcos", "dsin", "key", "layout", "rotary_mode"),
    required=("cos", "sin"),
    source="x",
    op_output_shapes=(("rotary_grad", "*", "given"),),
    doc="rotary position embedding of a 4-d x by cos and sin tables that broadcast to it, in four rotation modes, "
        "and its gradient (dx, and dcos and dsin summed over the tables' broadcast dimensions), in float")

# A softmax along the last dimension of scale * x with masked positions left out, and its backward
# (runtime/sim/src/opapi/families/masked_softmax.cpp): aclnnScaledMaskedSoftmax, which aten's
# _masked_softmax (mask_type 2) reaches through op-plugin.
MASKED_SOFTMAX = Family(
    "masked_softmax", "PlanMaskedSoftmax",
    ops=("scaled_masked_softmax", "scaled_masked_softmax_backward"),
    roles=("x", "mask", "grad_out", "scale", "fix_triu_mask", "out"),
    required=("x", "mask", "out"),
    source="x",
    doc="softmax(scale * x) over the positions a BOOL mask (broadcast) leaves, 0 at masked ones, and its "
        "backward scaled and masked; in float, sums in double")

# The multilabel margin loss (runtime/sim/src/opapi/families/margin.cpp): F.multilabel_margin_loss.
MARGIN = Family(
    "margin", "PlanMargin",
    ops=("multilabel_margin_loss",),
    roles=("self", "target", "reduction", "out", "is_target"),
    required=("self", "target", "out", "is_target"),
    op_output_shapes=(("*", "*", "given"),),
    doc="multilabel_margin_loss: per sample, the hinge margins of its labels (target's entries before the first "
        "-1) over the other classes, divided by C, reduced by `reduction` (0 none, 1 mean, 2 sum); is_target its "
        "label mask; in float, sums in double")

# An AdamW step with one-element tensor hyperparameters (runtime/sim/src/opapi/families/adam.cpp):
# aclnnApplyAdamW, which torch_npu.npu_apply_adam_w reaches where op-plugin runs aclnn alone.
ADAM = Family(
    "adam", "PlanAdam",
    ops=("apply_adamw", "apply_adam", "apply_ftrl"),
    # apply_adam: TF's Adam (beta powers beta^t, nesterov), into var_out/m_out/v_out where given, else
    # in place; apply_ftrl: TF's FTRL-proximal, var, accum and linear updated in place.
    roles=("var", "m", "v", "beta1_power", "beta2_power", "lr", "weight_decay", "beta1", "beta2", "eps", "grad",
           "max_grad_norm", "amsgrad", "maximize", "nesterov", "var_out", "m_out", "v_out", "accum", "linear",
           "l1", "l2", "lr_power"),
    required=("var", "grad"),
    source="var",
    doc="apply_adamw: var, m and v updated in place by an AdamW step (beta powers given as beta^(t-1), amsgrad "
        "keeping max(maxGradNorm, v) in v, maximize); apply_adam: TF's Adam step (beta powers beta^t, "
        "nesterov); apply_ftrl: TF's FTRL-proximal step; hyperparameters one-element tensors, in float")

# Bags of embedding rows summed or averaged (runtime/sim/src/opapi/families/embedding_bag.cpp):
# aclnnEmbeddingBag, which F.embedding_bag and nn.EmbeddingBag reach through op-plugin.
EMBEDDING_BAG = Family(
    "embedding_bag", "PlanEmbeddingBag",
    ops=("embedding_bag",),
    roles=("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
           "include_last_offset", "padding_idx", "output", "offset2bag", "bag_size", "max_indices"),
    required=("weight", "indices", "offsets", "output", "offset2bag", "bag_size", "max_indices"),
    source="weight",
    op_output_shapes=(("*", "*", "given"),),
    role_dtype_sources=tuple((r, ("indices", "offsets")) for r in ("offset2bag", "bag_size", "max_indices")),
    # includeLastOffset drops a bag: the outputs' shapes follow it.
    shape_arguments=(("embedding_bag", "include_last_offset"),),
    doc="embedding_bag: per bag (indices between consecutive offsets), the sum (mode 0, rows weighted by "
        "per_sample_weights) or mean (mode 1) of weight's rows its indices name, padding_idx's left out; "
        "offset2bag, bag_size and max_indices as aten's CPU _embedding_bag gives them; in float")

# The sampling grid of an affine transform (runtime/sim/src/opapi/families/affine_grid.cpp):
# aclnnAffineGrid, which F.affine_grid reaches through op-plugin.
AFFINE_GRID = Family(
    "affine_grid", "PlanAffineGrid",
    ops=("affine_grid",),
    roles=("theta", "size", "align_corners", "out"),
    required=("theta", "size", "out"),
    source="theta",
    op_output_shapes=(("*", "*", "given"),),
    doc="affine_grid: out [N, (D,) H, W, 2 or 3] = theta [N, 2, 3] or [N, 3, 4] applied to each point's "
        "(x, y, (z,) 1), coordinates from -1 to 1 (pixel centres unless align_corners), in double")

# Tensors cut into chunks along dim 0 and the chunks concatenated row by row
# (runtime/sim/src/opapi/families/chunk_cat.cpp): aclnnChunkCat, which torch._chunk_cat reaches
# through op-plugin.
CHUNK_CAT = Family(
    "chunk_cat", "PlanChunkCat",
    ops=("chunk_cat",),
    roles=("tensors", "dim", "num_chunks", "out"),
    required=("tensors", "out"),
    source="tensors",
    op_output_shapes=(("*", "*", "given"),),
    exact_ops=("*",),
    doc="chunk_cat: out [num_chunks, ...] whose row c holds chunk c (ceil(S / num_chunks) rows along dim 0, "
        "zero-padded) of each tensor, flattened, one after the other, in out's dtype")

FAMILIES = FAMILIES + (ACTIVATION, EMBEDDING, ROTARY, MASKED_SOFTMAX, MARGIN, ADAM, EMBEDDING_BAG, AFFINE_GRID,
                       CHUNK_CAT)

# Scaled dot-product attention as ops-transformer's FlashAttention APIs compute it, and its gradient
# (runtime/sim/src/opapi/families/attention.cpp): torch_npu.npu_fusion_attention and its backward.
# softmax(mask(scale * (Q K^T + pse))) V per batch and query head, the key/value head of a group
# of query heads (GQA) shared; layouts BSH, SBH, BSND, BNSD, or TND with cumulative sequence
# lengths (actual_q, actual_kv: the VarLen/Unpadding APIs); sparse modes 0 to 4; the dropout mask
# (drop_mask, bit i kept for element i of [B, N, Sq, Skv]) scaled by 1 / keep_prob; softmax_max and
# softmax_sum the row statistics, replicated 8 times; the gradient from those statistics.
ATTENTION = Family(
    "attention", "PlanAttention",
    # transform_qkv: aten's _transform_bias_rescale_qkv (self [B, T, 3 * H] plus bias split into q, k, v
    # [B, N, T, H / N], q divided by sqrt(H / N)); masked_softmax_bias: softmax(scale * self + atten_mask +
    # bias) over windows; prompt_ / incre_flash_attention: the inference APIs' forward (kv_heads, the
    # paged cache's block_table); fused_infer_attention: the prompt one for a query of several positions,
    # the incremental one for one.
    ops=("flash_attention", "flash_attention_grad", "transform_qkv", "masked_softmax_bias", "prompt_flash_attention",
         "incre_flash_attention", "fused_infer_attention"),
    roles=("query", "key", "value", "dy", "pse", "drop_mask", "atten_mask", "actual_q", "actual_kv", "scale",
           "keep_prob", "pre_tokens", "next_tokens", "head_num", "layout", "sparse_mode", "pse_type",
           "softmax_layout", "softmax_max", "softmax_sum", "attention", "dq", "dk", "dv", "dpse", "self", "bias",
           "out", "k_out", "v_out", "kv_heads", "block_table"),
    required=(),
    source="query",
    op_output_shapes=(("*", "*", "given"),),
    doc="FlashAttention's softmax(mask(scale * (Q K^T + pse))) V by layout (BSH, SBH, BSND, BNSD, TND), with GQA, "
        "sparse modes 0 to 4, pse and a dropout mask, and its gradient from the saved softmax statistics; in float "
        "with double accumulation")

FAMILIES = FAMILIES + (ATTENTION,)

# Mixture-of-experts routing (runtime/sim/src/opapi/families/moe.cpp): aclnnMoeGatingTopK, which
# torch_npu.npu_moe_gating_top_k reaches (op-plugin's MoeGatingTopKKernelNpuOpApi.cpp).
MOE = Family(
    "moe", "PlanMoe",
    ops=("gating_top_k",),
    roles=("x", "bias", "k", "k_group", "group_count", "group_select_mode", "renorm", "norm_type", "out_flag",
           "scaling", "eps", "y", "expert_idx", "norm_out"),
    required=("x", "y", "expert_idx", "norm_out"),
    source="x",
    fixed_dtypes=(("expert_idx", "INT32"), ("norm_out", "FLOAT")),
    op_output_shapes=(("*", "*", "given"),),
    doc="gating_top_k: per row of x [rows, E], normOut = sigmoid(x); the E experts in group_count groups, the "
        "k_group groups of the largest max (group_select_mode 0) or top-2 sum (1) kept; the k largest scores of "
        "those (expert_idx, ties to the lower index), y = score / (sum + eps) * scaling; in float")

FAMILIES = FAMILIES + (MOE,)

# Quantisation (runtime/sim/src/opapi/families/quant.cpp): int8 quantisation by a scale and an
# offset per tensor or per channel (aclnnAscendQuant/V3, aclnnQuantize: torch_npu.npu_quantize,
# torch.quantize_per_tensor/per_channel), its inverse (aclnnAscendAntiQuant: npu_anti_quant),
# per-row dynamic quantisation (aclnnDynamicQuant/V2: npu_dynamic_quant), fake quantisation
# with its mask (aclnnFakeQuantPer{Tensor,Channel}AffineCachemask: torch.fake_quantize_*), and GELU
# quantised either way (aclnnGeluQuant: npu_gelu_quant), and dynamic quantisation by blocks
# (aclnnDynamicBlockQuant/V2: npu_dynamic_block_quant).
QUANT = Family(
    "quant", "PlanQuant",
    ops=("ascend_quant", "anti_quant", "quantize", "dynamic_quant", "fake_quant", "gelu_quant", "block_quant"),
    # enabled: fake quantisation's switch (below 1: out = x, mask all true); smooth: dynamic
    # quantisation's per-column factors; scale_out/offset_out: its per-row results.
    roles=("x", "scale", "offset", "sqrt_mode", "round_mode", "dst_type", "axis", "smooth", "group_index",
           "quant_min", "quant_max", "enabled", "out", "scale_out", "offset_out", "mask",
           # dynamic quantisation's isSymmetrical, quantMode (pertoken, pertensor, perchannel), dstTypeMax
           "symmetric", "quant_mode", "dst_max",
           # gelu_quant's GELU form ("none": erf, "tanh"); block_quant's least scale and block sizes
           "approximate", "min_scale", "row_block", "col_block"),
    required=("x", "out"),
    source="x",
    op_output_shapes=(("*", "*", "given"),),
    fixed_dtypes=(("scale_out", "FLOAT"), ("offset_out", "FLOAT"), ("mask", "BOOL")),
    op_fixed_dtypes=(("ascend_quant", "out", "INT8"), ("quantize", "out", "INT8"), ("dynamic_quant", "out", "INT8"),
                     ("anti_quant", "out", "FLOAT16"), ("gelu_quant", "out", "INT8"), ("block_quant", "out", "INT8")),
    doc="ascend_quant: round(x * scale (* scale with sqrt_mode) + offset) by round_mode, saturated to INT8; "
        "quantize: round(x / scale + offset) half to even, saturated to out's INT8/UINT8/INT32; anti_quant: "
        "(x + offset) * scale (* scale) to FLOAT16/BFLOAT16; scale and offset one value or one per element along "
        "`axis`; dynamic_quant: per row of the last dimension, scale = max|x * smooth| / 127 (or the asymmetric "
        "(max - min) / 255 with an offset) and y the rounded quotient; fake_quant: aten's fake_quantize "
        "cachemask (per tensor, or per channel along axis), its mask; gelu_quant: GELU, then ascend_quant's "
        "static form (quant_mode static) or dynamic_quant's per row (dynamic, scale the smoothing factor); "
        "block_quant: per block of row_block x col_block of the last two dimensions, scale_out = min(max|x| / 127, "
        "1 / min_scale) and y = round(x / scale_out); in float")

# An rms norm over x's last dimension quantised to INT8 (runtime/sim/src/opapi/families/quant.cpp):
# aclnnRmsNormQuant (torch_npu.npu_rms_norm_quant), aclnnRmsNormQuantV3 and aclnnAddRmsNormQuant/V2
# with the sum x1 + x2 first (npu_add_rms_norm_quant); dynamically, per row, aclnnRmsNormDynamicQuant
# and aclnnAddRmsNormDynamicQuant/V2 (npu_add_rms_norm_dynamic_quant); a layer norm quantised either
# way, aclnnAddLayerNormQuant/V2.
NORM_QUANT = Family(
    "norm_quant", "PlanNormQuant",
    ops=("rms_norm_quant", "add_rms_norm_quant", "rms_norm_dynamic_quant", "add_rms_norm_dynamic_quant",
         "add_layer_norm_quant"),
    # smooth/smooth2: the dynamic ops' per-column factors, scale_out/scale_out2 their per-row scales;
    # rstd (written when output_rstd), output_mask: which of out and out2 the dynamic ops write;
    # add_layer_norm_quant's bias (added to x1 + x2), quant_mode ("static": scale and offset,
    # "dynamic": scale and scale2 as smoothing factors) and additional_output (sum_out written).
    roles=("x", "x2", "gamma", "beta", "scale", "offset", "scale2", "offset2", "epsilon", "div_mode", "axis", "out",
           "out2", "sum_out", "norm_out", "smooth", "smooth2", "scale_out", "scale_out2", "rstd", "output_rstd",
           "output_mask", "dst_type", "bias", "quant_mode", "additional_output"),
    required=("x", "gamma", "out"),
    source="x",
    op_output_shapes=(("*", "*", "given"),),
    fixed_dtypes=(("out", "INT8"), ("out2", "INT8"), ("scale_out", "FLOAT"), ("scale_out2", "FLOAT"),
                  ("rstd", "FLOAT")),
    doc="y = x * rstd * gamma + beta over x's last dimension (x = x1 + x2 rounded to x1's dtype for "
        "the add_ ops, the sum in sum_out, x * rstd * gamma in norm_out), then round(y * scale + offset) "
        "(y / scale with div_mode) half to even, saturated to INT8, once per scale given; the dynamic ops "
        "per row v = y * smooth, scale_out = max|v| / 127, out = round(v / scale_out); add_layer_norm_quant: "
        "y = (x - mean) * rstd * gamma + beta of x = x1 + x2 + bias, then either; in float, the statistics in double")

# A matrix product with an INT8 weight dequantised first (runtime/sim/src/opapi/families/quant.cpp):
# aclnnWeightQuantBatchMatmulV2/V3, torch_npu.npu_weight_quant_batchmatmul.
WEIGHT_QUANT_MATMUL = Family(
    "weight_quant_matmul", "PlanWeightQuantMatmul",
    ops=("weight_quant_matmul",),
    roles=("x", "weight", "scale", "offset", "quant_scale", "quant_offset", "bias", "group_size", "inner_precise",
           "out"),
    required=("x", "weight", "scale", "out"),
    source="x",
    op_output_shapes=(("*", "*", "given"),),
    doc="y = x @ ((weight + offset) * scale) + bias for a 2-d x [m, k] and an INT8 weight [k, n], the scale and "
        "offset one value, one per column n, or one per group of group_size rows of k; in float, the products "
        "summed in double")

FAMILIES = FAMILIES + (QUANT, NORM_QUANT, WEIGHT_QUANT_MATMUL)

# Recurrent networks (runtime/sim/src/opapi/families/rnn.cpp): aclnnLSTM and aclnnGRU (torch.nn.LSTM
# and torch.nn.GRU, op-plugin's _lstm_npu and _gru_npu) over layers and directions, every step's gates
# and states in lists (one member per layer and direction, directions first), and their backwards
# (aclnnLstmBackward, aclnnGRUBackward): backpropagation through time from those saved gates. The
# weights' row blocks are aten's (LSTM i, f, g, o; GRU r, z, n: op-plugin passes nn.LSTM's and nn.GRU's
# parameters as they are); j (the LSTM backward page's g) is the cell candidate, hn the GRU's
# W_hn h + b_hn.
RNN = Family(
    "rnn", "PlanRnn",
    ops=("lstm", "lstm_backward", "gru", "gru_backward"),
    roles=("input", "params", "hx", "batch_sizes", "has_bias", "num_layers", "dropout", "train", "bidirectional",
           "batch_first", "output", "hy", "cy", "i", "j", "f", "o", "h", "c", "tanh_c", "r", "z", "n", "hn", "dy",
           "dh", "dc", "output_mask", "dx", "dh_prev", "dc_prev", "dparams"),
    required=("input", "params"),
    source="input",
    op_output_shapes=(("*", "*", "given"),),
    # The parameters' and states' shapes follow these: another value alone is no valid call.
    shape_arguments=tuple((op, role) for op in ("lstm", "lstm_backward", "gru", "gru_backward")
                          for role in ("has_bias", "num_layers", "bidirectional", "batch_first")),
    doc="lstm and gru: the layers and directions of aten's lstm and gru, every step's gates and states kept per "
        "layer and direction when train; their backwards: backpropagation through time from those saved gates "
        "and states; on the BLAS in float")

FAMILIES = FAMILIES + (RNN,)
# Products of INT8 operands dequantised by per-column and per-row scales, and the packing of float
# scales into the UINT64 words they read (runtime/sim/src/opapi/families/quant_matmul.cpp):
# aclnnQuantMatmulV3/V4 (torch_npu.npu_quant_matmul), aclnnTransQuantParamV2/V3.
QUANT_MATMUL = Family(
    "quant_matmul", "PlanQuantMatmul",
    ops=("quant_matmul", "trans_quant_param", "dequant_bias"),
    # dequant_bias: x1 is the INT32 product itself (aclnnDequantBias). dst_type: its outputDtype.
    # x1_offset, y_scale, y_offset, group_size: aclnnQuantMatmulV5's, refused when given.
    roles=("x1", "x2", "scale", "offset", "pertoken", "bias", "transpose_x1", "transpose_x2", "round_mode", "x1_offset",
           "y_scale", "y_offset", "group_size", "dst_type", "out"),
    required=("scale", "out"),
    # scale_align: a scale of n columns padded to a multiple of it (aclnnQuantMatmulV2's deqScale).
    options=("scale_align",),
    source="x1",
    op_output_shapes=(("*", "*", "given"),),
    # The first output dtype the pages list (an allocated out does not follow the INT8 operands).
    op_fixed_dtypes=(("quant_matmul", "out", "FLOAT16"), ("dequant_bias", "out", "FLOAT16"),
                     ("trans_quant_param", "out", "INT64")),
    # The operands' shapes follow the transpose flags: a suite flips them only with the shapes.
    shape_arguments=(("quant_matmul", "transpose_x1"), ("quant_matmul", "transpose_x2")),
    doc="quant_matmul: (x1 @ x2 (+ an INT32 bias)) * scale * pertoken (+ a float bias) + offset for INT8 operands, "
        "the product exact, the rest in float, scale one value or one per column (UINT64/INT64 words unpacked as "
        "trans_quant_param packs them); dequant_bias: the same with x1 the INT32 product; trans_quant_param: a float32 scale's top 19 bits | 1 << 46 | a 9-bit "
        "offset << 37")

FAMILIES = FAMILIES + (QUANT_MATMUL,)
# Einstein summation of two tensors (runtime/sim/src/opapi/families/einsum.cpp): aclnnEinsum.
EINSUM = Family(
    "einsum", "PlanEinsum",
    ops=("einsum",),
    roles=("tensors", "equation", "out"),
    required=("tensors", "equation", "out"),
    source="tensors",
    op_output_shapes=(("*", "*", "given"),),
    doc="einsum: out[rhs] = the sum over the letters rhs lacks of tensors[0][lhs1] * tensors[1][lhs2] for the "
        "page's registered equations, in float (double for DOUBLE) or int64")

# Sampling filters of logits (runtime/sim/src/opapi/families/top_k_top_p.cpp): aclnnApplyTopKTopP,
# which torch_npu.npu_top_k_top_p reaches through op-plugin.
TOP_K_TOP_P = Family(
    "top_k_top_p", "PlanTopKTopP",
    ops=("apply_top_k_top_p",),
    roles=("logits", "p", "k", "out"),
    required=("logits", "out"),
    source="logits",
    doc="apply_top_k_top_p: each row of logits [B, V] with the values outside its top k (k given) and outside "
        "the smallest set of largest values whose softmax sums above p (p given) set to -inf, in float")

FAMILIES = FAMILIES + (EINSUM, TOP_K_TOP_P)

# Interpolation over the trailing 1 to 3 dimensions (runtime/sim/src/opapi/families/resample.cpp):
# the aclnnUpsample* APIs, which F.interpolate and nn.Upsample reach through op-plugin, and their
# backward. Their pages are op_docs/derived/ (no page of the corpus documents them).
_RESAMPLE_BACKWARD = ("nearest_backward", "nearest_exact_backward", "linear_backward", "cubic_backward")
RESAMPLE = Family(
    "resample", "PlanResample",
    ops=("nearest", "nearest_exact", "linear", "cubic") + _RESAMPLE_BACKWARD,
    roles=("self", "grad_output", "output_size", "input_size", "align_corners", "scales_d", "scales_h", "scales_w",
           "out"),
    required=("output_size", "out"),
    options=("spatial",),
    output_shape="adaptive",
    op_dtype_sources=tuple((op, "grad_output") for op in _RESAMPLE_BACKWARD),
    op_output_shapes=tuple((op, "*", "sizes") for op in _RESAMPLE_BACKWARD),
    exact_ops=("nearest", "nearest_exact"),
    doc="nearest, nearest_exact, linear (bi-, tri-) and cubic (Keys, A = -0.75) interpolation of the trailing "
        "`spatial` dimensions to output_size, aten's coordinates (align_corners, the caller's scales), and the "
        "backward ops adding each gradient back with the forward's weights; in float (double for DOUBLE)")

FAMILIES = FAMILIES + (RESAMPLE,)

# Sampling at a grid's coordinates (runtime/sim/src/opapi/families/grid_sample.cpp): the
# aclnnGridSampler2D/3D APIs and their backward, which F.grid_sample reaches through op-plugin.
# Their pages are op_docs/derived/ (no page of the corpus documents them).
GRID_SAMPLE = Family(
    "grid_sample", "PlanGridSample",
    ops=("grid_sample", "grid_sample_backward"),
    roles=("input", "grid", "grad_output", "interpolation_mode", "padding_mode", "align_corners", "output_mask", "out",
           "input_grad", "grid_grad"),
    required=("input", "grid"),
    source="input",
    second="grid",
    # out: [N, C, *grid's middle dimensions], which no rule of the bindings gives; the gradients
    # have their inputs' shapes.
    op_output_shapes=(("grid_sample", "out", "given"), ("grid_sample_backward", "grid_grad", "second")),
    doc="grid_sample: input [N, C, (D,) H, W] sampled at grid [N, (Do,) Ho, Wo, 2 or 3] (bilinear/trilinear, "
        "nearest, bicubic in 2-D; zeros, border or reflection padding; align_corners) as aten's CPU grid "
        "sampler, and its backward (inputGrad, gridGrad); in float (double for DOUBLE)")

FAMILIES = FAMILIES + (GRID_SAMPLE,)
# Sums of a gradient's groups of rows (runtime/sim/src/opapi/families/grouped_bias_add_grad.cpp):
# aclnnGroupedBiasAddGrad and its V2, the backward of a bias added per group of rows.
GROUPED_BIAS_ADD_GRAD = Family(
    "grouped_bias_add_grad", "PlanGroupedBiasAddGrad",
    ops=("grouped_bias_add_grad",),
    roles=("grad_y", "group_idx", "group_idx_type", "out"),
    required=("grad_y", "out"),
    source="grad_y",
    op_output_shapes=(("*", "*", "given"),),
    doc="grouped_bias_add_grad: out [G, H] = the sums over gradY [G, C, H]'s dimension 1, or over the groups "
        "of gradY [rows, H]'s rows group_idx [G] ends (group_idx_type 0) or counts (1), in float")

# 1-bit Adam's sign packing (runtime/sim/src/opapi/families/sign_bits.cpp): aclnnSignBitsPack and
# aclnnSignBitsUnpack (torch_npu.npu_sign_bits_pack / npu_sign_bits_unpack).
SIGN_BITS = Family(
    "sign_bits", "PlanSignBits",
    ops=("pack", "unpack"),
    roles=("self", "size", "out_dtype", "out"),
    required=("self", "size", "out"),
    op_output_shapes=(("*", "*", "given"),),
    exact_ops=("*",),
    doc="pack: bit k of byte j of out [size, -1] (UINT8) is whether self[8 j + k] >= 0, the tail padded with 0 "
        "bits; unpack: out [size, -1] = +1 where the bit is set, -1 where not, bits from the lowest")

# A strided view of a tensor's elements copied out (runtime/sim/src/opapi/families/as_strided.cpp):
# aclnnAsStrided.
AS_STRIDED = Family(
    "as_strided", "PlanAsStrided",
    ops=("as_strided",),
    roles=("self", "size", "stride", "storage_offset", "out"),
    required=("self", "size", "stride", "out"),
    op_output_shapes=(("*", "*", "given"),),
    exact_ops=("*",),
    doc="as_strided: out[i] = self's elements in row-major order at storage_offset + sum(i[d] * stride[d]), "
        "as torch.as_strided on a contiguous self")

# LoRA adapters applied per row (runtime/sim/src/opapi/families/lora.cpp): aclnnAddLora, which
# torch_npu.npu_batch_gather_matmul (and its in-place form) reaches.
LORA = Family(
    "lora", "PlanLora",
    ops=("add_lora",),
    roles=("y", "x", "weight_b", "indices", "weight_a", "layer_idx", "scale", "y_offset", "y_slice_size", "out"),
    required=("y", "x", "weight_b", "indices", "out"),
    source="y",
    doc="add_lora: out = y with out[b, y_offset : y_offset + y_slice_size] += scale * (x[b] @ weight_a[i, layer]^T) "
        "@ weight_b[i, layer]^T, i = indices[b] (x[b] itself without weight_a), in float")

# Sinkhorn's optimal transport of a cost matrix (runtime/sim/src/opapi/families/sinkhorn.cpp):
# aclnnSinkhorn.
SINKHORN = Family(
    "sinkhorn", "PlanSinkhorn",
    ops=("sinkhorn",),
    roles=("cost", "tol", "out"),
    required=("cost", "out"),
    source="cost",
    doc="sinkhorn: out = d0[:, None] * exp(cost) * d1[None, :], the row and column scalings iterated from ones "
        "until d1's mean change is at most tol (absent: 1e-4), in float")

# An Adam step keeping an exponential moving average of the parameter
# (runtime/sim/src/opapi/families/ema_adam.cpp): aclnnApplyFusedEmaAdam.
EMA_ADAM = Family(
    "ema_adam", "PlanEmaAdam",
    ops=("apply_fused_ema_adam",),
    roles=("grad", "var", "m", "v", "s", "step", "lr", "ema_decay", "beta1", "beta2", "eps", "mode",
           "bias_correction", "weight_decay"),
    required=("grad", "var", "m", "v", "s", "step"),
    source="var",
    doc="apply_fused_ema_adam: var, m, v updated in place by an Adam step (mode 0: L2 decay in the gradient, 1: "
        "decoupled decay; bias_correction), s by the new var's moving average, in float")

# Caffe's Scale layer (runtime/sim/src/opapi/families/scale.cpp): aclnnScale.
SCALE = Family(
    "scale", "PlanScale",
    ops=("scale",),
    roles=("x", "scale", "bias", "axis", "num_axes", "scale_from_blob", "out"),
    required=("x", "scale", "out"),
    source="x",
    doc="scale: out = x * scale (+ bias), scale and bias covering x's dimensions from axis (num_axes of them "
        "with scale_from_blob, -1: to the last; else as many as scale has), in float (double for DOUBLE)")

# The chamfer distance's gradient (runtime/sim/src/opapi/families/chamfer.cpp):
# aclnnChamferDistanceBackward.
CHAMFER = Family(
    "chamfer", "PlanChamfer",
    ops=("chamfer_distance_backward",),
    roles=("xyz1", "xyz2", "idx1", "idx2", "grad_dist1", "grad_dist2", "grad_xyz1", "grad_xyz2"),
    required=("xyz1", "xyz2", "idx1", "idx2", "grad_dist1", "grad_dist2", "grad_xyz1", "grad_xyz2"),
    source="xyz1",
    op_output_shapes=(("*", "*", "given"),),
    doc="chamfer_distance_backward: each point's 2 * grad * (point - its nearest in the other set, by idx) added "
        "to its gradient and subtracted from the nearest's, both sets, in float")

FAMILIES = FAMILIES + (GROUPED_BIAS_ADD_GRAD, SIGN_BITS, AS_STRIDED, LORA, SINKHORN, EMA_ADAM, SCALE, CHAMFER)
# One step of an LSTM cell after its two products (runtime/sim/src/opapi/families/lstm_cell.cpp):
# aclnnThnnFusedLstmCell and its backward, which torch.lstm_cell and nn.LSTMCell reach through
# op-plugin's _thnn_fused_lstm_cell (gate blocks i, f, g, o: aten's).
LSTM_CELL = Family(
    "lstm_cell", "PlanLstmCell",
    ops=("lstm_cell", "lstm_cell_backward"),
    # storage: the four gates' activations the forward keeps for the backward.
    roles=("input_gates", "hidden_gates", "cx", "input_bias", "hidden_bias", "hy", "cy", "storage", "grad_hy",
           "grad_cy", "has_bias", "grad_gates", "grad_cx", "grad_bias"),
    required=("cx", "storage"),
    source="cx",
    op_output_shapes=(("*", "*", "given"),),
    doc="lstm_cell: gates = input_gates + hidden_gates (+ both biases) in blocks i, f, g, o; cy = sigmoid(f) * cx + "
        "sigmoid(i) * tanh(g), hy = sigmoid(o) * tanh(cy), storage the four activations; lstm_cell_backward: the "
        "gates' pre-activation gradients from grad_hy and grad_cy (absent: 0), cx's, and the bias's (their sum over "
        "the batch); in float")

# The connectionist temporal classification loss (runtime/sim/src/opapi/families/ctc.cpp):
# aclnnCtcLoss and aclnnCtcLossBackward, which F.ctc_loss reaches through op-plugin's _ctc_loss and
# _ctc_loss_backward.
CTC = Family(
    "ctc", "PlanCtc",
    ops=("ctc_loss", "ctc_loss_backward"),
    roles=("log_probs", "targets", "input_lengths", "target_lengths", "blank", "zero_infinity", "neg_log_likelihood",
           "log_alpha", "grad_out", "out"),
    required=("log_probs", "targets", "input_lengths", "target_lengths", "neg_log_likelihood", "log_alpha"),
    source="log_probs",
    op_output_shapes=(("*", "*", "given"),),
    doc="ctc_loss: aten's forward variables log_alpha [N, T, W] (W >= 2 * max(target_lengths) + 1, -inf where the "
        "recursion does not reach) and the loss -log p(target | log_probs) per batch (0 where infinite with "
        "zero_infinity); ctc_loss_backward: the gradient of log_probs from the backward variables, as aten's; in double")

# The local pieces of a cross entropy over a vocabulary split across devices (Megatron's
# vocab-parallel cross entropy; runtime/sim/src/opapi/families/vocab_parallel.cpp):
# aclnnFusedLinearOnlineMaxSum, aclnnFusedCrossEntropyLossWithMaxSum and
# aclnnFusedLinearCrossEntropyLossGrad (torch_npu's npu_fused_linear_online_max_sum, ...), and
# aclnnCrossEntropySumExpAndIndexLogit.
VOCAB_PARALLEL = Family(
    "vocab_parallel", "PlanVocabParallel",
    ops=("linear_online_max_sum", "cross_entropy_with_max_sum", "linear_cross_entropy_grad",
         "sum_exp_and_index_logit"),
    # target_mask: packed 8 rows a byte (least significant bit first) but for
    # sum_exp_and_index_logit's one INT32 per row; logits_max: the global max that op reads.
    roles=("logits_max", "sum_exp_logits", "predicted_logits", "label_smoothing", "input", "weight",
           "vocab_parallel_logits", "loss", "softmax", "target", "vocab_start_index", "vocab_end_index", "exp_logits",
           "target_offset", "target_mask", "masked_target", "grad", "input_grad", "weight_grad"),
    required=(),
    source="vocab_parallel_logits",
    op_output_shapes=(("*", "*", "given"),),
    op_dtype_sources=(("linear_online_max_sum", "input"), ("linear_cross_entropy_grad", "input")),
    fixed_dtypes=(("logits_max", "FLOAT"), ("sum_exp_logits", "FLOAT"), ("predicted_logits", "FLOAT"), ("loss", "FLOAT"),
                  ("softmax", "FLOAT"), ("exp_logits", "FLOAT"), ("target_offset", "INT32"), ("target_mask", "UINT8")),
    op_fixed_dtypes=(("sum_exp_and_index_logit", "target_mask", "INT32"),),
    role_dtype_sources=(("masked_target", ("target",)),),
    doc="per row of input @ weight^T (or of the logits given): the max, the sum of exp(x - max), the target's "
        "mask, local offset and logit; the loss log(sum) - predicted and the softmax; the gradients of input and "
        "weight through the softmax minus the one-hot target; in float, sums in double, products on the BLAS")

# Per-sample affine transforms of features (runtime/sim/src/opapi/families/sample_affine.cpp):
# aclnnModulate (x * (1 + scale) + shift, one row of scale and shift per sample) and aclnnInstanceNorm
# (each sample's channel planes normalised, then gamma and beta per channel).
SAMPLE_AFFINE = Family(
    "sample_affine", "PlanSampleAffine",
    ops=("modulate", "instance_norm", "ada_layer_norm_backward"),
    # ada_layer_norm_backward: x the forward's input, out its gradient; rstd the forward's.
    roles=("x", "scale", "shift", "out", "mean", "variance", "data_format", "eps", "grad_out", "rstd", "weight", "bias",
           "normalized_shape", "grad_scale", "grad_shift", "grad_weight", "grad_bias"),
    required=("x", "out"),
    source="x",
    # instance_norm's statistics: [N, C, 1, 1].
    op_output_shapes=(("instance_norm", "mean", "given"), ("instance_norm", "variance", "given"),
                      ("ada_layer_norm_backward", "*", "given")),
    doc="modulate: self [B, L, D] * (1 + scale) + shift, scale and shift [B, 1, D] or [B, D] (absent: 0); "
        "instance_norm: x [N, C, H, W] (NCHW) normalised per (n, c) plane by its mean and biased variance, times "
        "gamma plus beta per channel, the statistics [N, C, 1, 1]; ada_layer_norm_backward: the gradients of "
        "layer_norm(x) * (1 + scale) + shift from the forward's mean and rstd; in float, sums in double")

FAMILIES = FAMILIES + (LSTM_CELL, CTC, VOCAB_PARALLEL, SAMPLE_AFFINE)

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
    bindings switch on (include/aclnn_bindgen/output_shapes.h, whose ApplyOutputShape calls each
    rule's one C++ function, `<Name>Rule` of runtime/include/aclnn_bindgen/<header>, which the
    simulator's planners share)."""

    name: str  # as the families' tables and the semantics spell it
    doc: str
    dims_role: str = ""  # the role whose argument the rule reads as its dimensions (bind::RuleArgs.dims)
    product: bool = False  # shaped from two operands; its dtype is their promotion
    pooled: bool = False  # the pool family's: over the `spatial` option's trailing dimensions
    # Allocated at the largest extent the data can give; the kernel sets the aclTensor's view
    # shape, which the call reads back once the stream has run (as op-plugin resizes them).
    data_dependent: bool = False
    bound: bool = True  # False: no plan of the bindings' ("page": the page's relations; "given": out= required
    header: str = "shape_rule.h"  # the header (runtime/include/aclnn_bindgen/) of its C++ function


OUTPUT_SHAPES = (
    OutputShape("page", "the page's own relations, as for an op of no family (the broadcast of the inputs)",
                bound=False),
    OutputShape("given", "follows from the arguments by a rule the bindings do not know (a concatenation's, "
                "a permutation's): the caller passes out=", bound=False),
    OutputShape("same", "the source's shape"),
    OutputShape("reduce", "the source with the `dim` dimensions removed, or kept as 1 with keepdim",
                dims_role="dim", header="reduce_shape.h"),
    OutputShape("matmul", "source @ second as torch.matmul shapes it", product=True, header="matmul_shape.h"),
    OutputShape("outer", "[source's, second's]", product=True, header="matmul_shape.h"),
    OutputShape("batch_sum", "the product of two batches summed over the batch: [M, N]", product=True,
                header="matmul_shape.h"),
    OutputShape("convolution", "source convolved by second (aclnn_bindgen/conv_shape.h)", product=True,
                header="conv_shape.h"),
    OutputShape("trailing_ones", "the source's shape with its trailing normalised dimensions as 1 (as many as "
                "normalized_shape names, else as second's rank)", dims_role="normalized_shape", header="norm_shape.h"),
    OutputShape("groups", "[N, group]", dims_role="group", header="norm_shape.h"),
    OutputShape("channels", "[C]", header="norm_shape.h"),
    OutputShape("pool", "the source's leading dimensions, then each spatial one pooled by the kernel, stride, "
                "padding, dilation and ceil-mode arguments (aclnn_bindgen/pool_shape.h)", dims_role="kernel",
                pooled=True, header="pool_shape.h"),
    OutputShape("adaptive", "the leading dimensions, then output_size", dims_role="output_size", pooled=True,
                header="pool_shape.h"),
    OutputShape("pad", "each spatial dimension widened by its padding pair", dims_role="padding", pooled=True,
                header="pool_shape.h"),
    OutputShape("bound_flat", "at most [source.numel()]", data_dependent=True, header="dynamic_shape.h"),
    OutputShape("bound_nonzero", "at most [source.numel(), source.dim()]", data_dependent=True,
                header="dynamic_shape.h"),
    OutputShape("bound_nonzero_t", "at most [source.dim(), source.numel()]", data_dependent=True,
                header="dynamic_shape.h"),
    OutputShape("bound_dim", "at most the source's shape ([numel] without dim)", dims_role="dim",
                data_dependent=True, header="dynamic_shape.h"),
    OutputShape("bound_dim_length", "at most [source.size(dim)] ([numel] without dim)", dims_role="dim",
                data_dependent=True, header="dynamic_shape.h"),
    OutputShape("dim_length", "[source.size(dim)] (the source's without dim)", dims_role="dim",
                header="dynamic_shape.h"),
    OutputShape("one", "[1]"),
    OutputShape("second", "the second role's own shape (a norm backward's gradient of gamma)"),
    OutputShape("sizes", "the argument of the dims role as the whole shape (an upsample backward's input_size)",
                dims_role="input_size"),
)
OUTPUT_SHAPE = {rule.name: rule for rule in OUTPUT_SHAPES}
_UNKNOWN_RULES = sorted({rule for f in FAMILIES for rule in (f.output_shape, *(r for _, _, r in f.op_output_shapes))}
                        - OUTPUT_SHAPE.keys())
if _UNKNOWN_RULES:
    raise ValueError(f"gen/families.py: output shape rules no OutputShape defines: {', '.join(_UNKNOWN_RULES)}")


def data_dependent(rule: str) -> bool:
    """Whether an output of this shape rule is allocated at its largest and read back at the extent
    its kernel sets (the dynamic family's "bound_*" rules)."""
    known = OUTPUT_SHAPE.get(rule)
    return known is not None and known.data_dependent


# The roles whose arguments the "convolution" rule reads, in bind::RuleArgs.conv's order.
CONV_RULE_ROLES = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")
# The further window arguments the pool family's rules read (bind::RuleArgs).
POOL_WINDOW_ROLES = ("stride", "padding", "dilation", "ceil_mode")


def applies_kernel(semantics: "OpSemantics") -> bool:
    """Whether the semantics' family op applies the file's elementwise kernel (foreach's map)."""
    known = family(semantics.family) if semantics.family else None
    return known is not None and semantics.op in known.kernel_ops


def family(name: str) -> Optional[Family]:
    return BY_NAME.get(name)
