"""What torch_npu's own host code makes of an operator where it differs from PyTorch's: results a device
gives the same, since the host code, not the device, decides them. Shared by the sweeps' classifiers,
so that a result equal to one of these is told apart from a wrong value of the simulator's.

Each entry of HOST_CODE (for the OpInfo sweep) is an `Explained` holding a CPU function with the
operator's signature (the OpInfo sample's arguments) whose result is the one torch_npu defines, and
the evidence for it. Every one applies with JIT compilation on (Ascend910 and Ascend310P by default,
`torch.npu.set_compile_mode(jit_compile=True)` elsewhere), where op-plugin runs the operator through
aclop by type name, and only to the samples its `samples` selects: elsewhere the operator's result
must equal PyTorch's. A result that equals neither stays a wrong value.

NN_SUITE and TENSOR_SUITE (below) do the same for the per-op suites' sweeps, whose cases are not
OpInfo samples: each explanation (torch_npu's host code, or an aclnn page's own formula) carries the
CPU function computing its result, the chips and dtypes it holds for, and its evidence;
test_suite_explanations.py pins each on Ascend910.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class Explained:
    """A result torch_npu gives where PyTorch gives another, explained: why, where it holds, and the
    CPU function computing it. One type for the three tables (HOST_CODE for the OpInfo sweep,
    NN_SUITE and TENSOR_SUITE for the per-op suites' sweeps): they differ in how their sweep calls
    `model` and selects the calls it applies to, not in what an entry is."""

    # "torch_npu": torch_npu's host code decides the result; "page": the aclnn page's own formula.
    kind: str
    why: str
    # The chips (ACLNN_SIM_SOC) and the dtypes it holds for (the OpInfo sweep's modes: its dtypes and
    # "backward"); None: every one.
    chips: frozenset[str] | None
    dtypes: frozenset[str] | None
    # The CPU computation giving the explained result, called as its table's sweep calls it:
    # HOST_CODE's (op, got) -> the function called as op is (got: the npu result, on the CPU, for an
    # entry whose host code decides something no documentation pins); NN_SUITE's as the case's op;
    # TENSOR_SUITE's with the failing check's function first, then its inputs.
    model: Callable[..., Any]
    # (op, sample) -> whether an OpInfo sample takes the path `why` describes (HOST_CODE's entries).
    samples: Callable[[Any, Any], bool] = lambda op, sample: True

    def applies(self, soc: str, dtype: str) -> bool:
        return (self.chips is None or soc in self.chips) and (self.dtypes is None or dtype in self.dtypes)


FORWARD = frozenset({"float32", "float16", "bfloat16"})


def _step(t, dtype=torch.float16):
    """An aclop operator's output written in `dtype` (float16 by default), read back in float32 by
    the next operator of torch_npu's chain."""
    return t.to(dtype).float()


def _float16_scalar(value):
    """A Python scalar as torch_npu hands it to a float16 operator: a float16 0-d tensor's value."""
    return float(torch.tensor(value, dtype=torch.float16))


def _index_fill_unwrapped(op, got):
    # Which elements torch_npu's loop marks for a negative dim is its own (seen: dim -1 of a [4, 5]
    # tensor fills nothing for index [2] and everything for [2, 0]); IndexFillD's formula makes each
    # element either x's or the value, which is what is checked.
    # In backward mode got is the gradients, input's first: its gradient is the incoming one (ones)
    # index_filled with 0 by the same host code, so each element is 1 or 0.
    def index_fill(input, dim, index, value):
        if isinstance(got, list):
            return input * (got[0] != 0)
        value = torch.as_tensor(value, dtype=input.dtype)
        return torch.where(got == value, value, input)
    return index_fill


def _addr_without_beta_zero_rule(op, got):
    # aten's addr ignores self when beta is 0 (NaN and inf included); Mul, Mul, AxpyV2 multiply it.
    return lambda input, vec1, vec2, *, beta=1, alpha=1: input * beta + alpha * torch.outer(vec1, vec2)


def _addbmm_by_steps(op, got):
    def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
        dtype = input.dtype  # each operator writes its output in the operands' dtype
        scaled = _step(input.float() * beta, dtype)
        products = _step(torch.bmm(batch1.float(), batch2.float()), dtype)
        summed = _step(products.sum(0), dtype)
        return (scaled + alpha * summed).to(dtype)
    return addbmm


def _layer_norm_variance(op, got):
    def layer_norm(input, normalized_shape, weight, bias, eps):
        out, _, _ = torch.native_layer_norm(input, normalized_shape, weight, bias, eps)
        axes = tuple(range(input.dim() - len(normalized_shape), input.dim()))
        wide = input.float()
        mean = wide.mean(dim=axes).reshape(-1)
        variance = wide.var(dim=axes, unbiased=False).reshape(-1)
        return out, mean, variance
    return layer_norm


def _adaptive_max_pool1d_mask(op, got):
    def pool(input, output_size, return_indices=False):
        values = F.adaptive_max_pool1d(input, output_size)
        values = values.unsqueeze(0) if input.dim() == 2 else values
        # The indices are MaxPoolWithArgmaxV1's mask, in the device's own layout: not compared.
        return (values, None) if return_indices else values
    return pool


def _nearest_by_size(op, got):
    def interpolate(input, *args, **kwargs):
        size = op(input, *args, **kwargs).shape[2:]
        return F.interpolate(input, size=tuple(size), mode="nearest")
    return interpolate


def _avg_pool2d_grad_by_count(op, got):
    def pool(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
        return F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)
    return pool


def _kwarg_or_arg(sample, name: str, position: int, default):
    if name in sample.kwargs:
        return sample.kwargs[name]
    return sample.args[position] if len(sample.args) > position else default


HOST_CODE: dict[str, Explained] = {
    "index_fill": Explained(
        "torch_npu", "index_fill with a negative dim: acl_op::index_fill builds IndexFillD's assist tensors "
        "(y = x * assist1 + assist2) without wrapping the dim, so other elements than the index's are "
        "filled (each element is x's or the value)",
        None, FORWARD | {"backward"}, _index_fill_unwrapped,
        samples=lambda op, s: s.args[0] < 0),
    "addr": Explained(
        "torch_npu", "addr with beta 0 runs Mul, Mul and AxpyV2: self is multiplied by 0, so its NaN and inf stay, "
        "where aten ignores self",
        None, FORWARD, _addr_without_beta_zero_rule,
        samples=lambda op, s: s.kwargs.get("beta", 1) == 0),
    "addbmm": Explained(
        "torch_npu", "addbmm runs Mul (beta * self), BatchMatMul, ReduceSum over the batch and AxpyV2, each writing "
        "its output in the operands' dtype (seen with gdb on aclopCompileAndExecute): in float16 the "
        "products are rounded before they are summed, where aten rounds once",
        None, frozenset({"float16", "bfloat16"}), _addbmm_by_steps),
    "native_layer_norm": Explained(
        "torch_npu", "native_layer_norm through LayerNorm returns its outputs as they are: mean and variance (not "
        "rstd), each flattened to [M]",
        None, FORWARD, _layer_norm_variance),
    "nn.functional.adaptive_max_pool1d": Explained(
        "torch_npu", "adaptive_max_pool1d runs MaxPoolWithArgmaxV1 on a batched 4-d view: its indices are the "
        "operator's int16 mask, and an unbatched input's result stays batched",
        None, FORWARD, _adaptive_max_pool1d_mask),
    "nn.functional.interpolate.nearest": Explained(
        "torch_npu", "nearest interpolation with a scale_factor gives ResizeNearestNeighborV2 the output size only: "
        "its source index is floor(dst * in / out), not floor(dst / scale_factor)",
        None, FORWARD | {"backward"}, _nearest_by_size,
        samples=lambda op, s: _kwarg_or_arg(s, "scale_factor", 1, None) is not None),
    "nn.functional.upsample_nearest": Explained(
        "torch_npu", "upsample_nearest with a scale_factor gives ResizeNearestNeighborV2 the output size only: "
        "its source index is floor(dst * in / out), not floor(dst / scale_factor)",
        None, FORWARD | {"backward"}, _nearest_by_size,
        samples=lambda op, s: _kwarg_or_arg(s, "scale_factor", 1, None) is not None),
    "nn.functional.avg_pool2d": Explained(
        "torch_npu", "avg_pool2d's gradient with a divisor_override divides by the window's count: op-plugin sets "
        "divisor_override on AvgPoolV2 only, and AvgPoolV2Grad's prototype has no such attribute",
        None, frozenset({"backward"}), _avg_pool2d_grad_by_count,
        samples=lambda op, s: _kwarg_or_arg(s, "divisor_override", 5, None) is not None),
}


def host_code(name: str, mode: str, op, sample) -> Explained | None:
    """The host-code result this sample of operator `name` takes on the aclop path, or None."""
    import torch_npu

    entry = HOST_CODE.get(name)
    if entry is None or not entry.applies(os.environ.get("ACLNN_SIM_SOC", ""), mode):
        return None
    if torch_npu.npu.is_jit_compile_false():
        return None
    return entry if entry.samples(op, sample) else None


# ---------------------------------------------------------------------------------------------------
# The chips whose aclnn matrix products torch_npu asks in float16. torch_npu allows float32 to be
# lowered to float16 on SoCs before Ascend910B1 (IsAllowFP32ToFP16), and op-plugin's
# get_cube_math_type then passes cubeMathType 2, USE_FP16, to every aclnn product it gives one (with
# torch.npu.matmul.allow_hf32 off, the default): aclnnMatmul's page says 2 rounds FLOAT inputs to
# FLOAT16, so a device's float32 product there is the product of the operands rounded to float16
# (~1e-3 off). Seen with gdb on aclnnMatmulGetWorkspaceSize under npu_attn_softmax_backward_: 2 on
# Ascend910 and Ascend310P, 0 (KEEP_DTYPE) on Ascend910B and Ascend950. The sweeps' references follow
# it through Float16CubeProducts.
FLOAT16_CUBE_CHIPS = frozenset({"Ascend910", "Ascend310P"})

# The CPU's matrix products that stand for the aclnn ones (the bias of linear is added, not multiplied).
_CUBE_PRODUCTS = {torch.matmul: 2, torch.mm: 2, torch.bmm: 2, torch.Tensor.__matmul__: 2,
                  torch.Tensor.__rmatmul__: 2, torch.Tensor.matmul: 2, torch.Tensor.mm: 2, torch.Tensor.bmm: 2,
                  F.linear: 2}


class Float16CubeProducts(torch.overrides.TorchFunctionMode):
    """Within it, the CPU's float32 matrix products multiply their operands rounded to float16 and
    accumulate in float32, as cubeMathType USE_FP16 does on FLOAT16_CUBE_CHIPS: a reference computed
    inside it is the one a device gives there."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        operands = _CUBE_PRODUCTS.get(func, 0)
        if operands:
            args = tuple(a.half().float() if i < operands and isinstance(a, torch.Tensor) and a.dtype == torch.float32
                         else a for i, a in enumerate(args))
        return func(*args, **kwargs)


# ---------------------------------------------------------------------------------------------------
# The per-op suites' sweeps (nn_suite_sweep.py, tensor_suite_sweep.py): each explained difference
# carries the CPU function that computes the explained result, called in place of the suite's own
# computation on the same inputs; a result is counted explained only when it equals that function's.

# The chips where op-plugin runs plain tensors through aclop by default (JIT compilation on).
ACLOP_CHIPS = frozenset({"Ascend910", "Ascend310P"})


def gelu_by_page(x):
    # aclnnGelu.md gives the tanh form as the operator's formula, whatever approximation aten asked.
    return F.gelu(x, approximate="tanh")


def gelu_gradient_by_page(x):
    # aclnnGeluBackward.md's formula is the erf form's derivative: the gradient of F.gelu's erf form.
    return F.gelu(x)


def avg_pool2d_divisor_by_count(x):
    """The nn suite's avg_pool2d_divisor (kernel 2, divisor_override 3), whose gradient torch_npu
    computes without the divisor (HOST_CODE["nn.functional.avg_pool2d"])."""
    return _avg_pool2d_grad_by_count(None, None)(x, 2, divisor_override=3)


def batch_norm_train_statistics_kept(x, weight, bias):
    """The nn suite's batch_norm_train in float16: the output as aten's, the float16 running
    statistics (zeros and ones) left as they were."""
    stats = (torch.zeros(x.shape[1], dtype=x.dtype), torch.ones(x.shape[1], dtype=x.dtype))
    y = F.batch_norm(x, None, None, weight, bias, training=True, momentum=0.1, eps=1e-5)
    return y, *stats


def cross_entropy_ls_weight_zeroed(x, target, weight):
    """The nn suite's cross_entropy_ls_weight (label smoothing 0.2, ignore_index 0): nll_loss runs
    first and zeroes weight[0] in place, the smoothing term reads the zeroed weight."""
    zeroed = weight.clone()
    zeroed[0] = 0
    return F.cross_entropy(x, target, zeroed, label_smoothing=0.2, ignore_index=0)


def group_norm_weight_gradient_in_float16_steps(x, grad, groups, eps=1e-5):
    """GroupNorm's weight gradient as torch_npu's acl_op group_norm backward computes it in float16
    (traced with gdb on aclopCompileAndExecute): the forward's float16 mean and variance, rstd as
    RealDiv(1, Sqrt(Add(variance, eps))), then Sub, Mul by rstd, Mul by the gradient and ReduceSum
    over the spatial axes then the batch, each output rounded to float16."""
    n, c = x.shape[:2]
    grouped = x.reshape(n, groups, -1)
    mean = _step(grouped.mean(-1))
    variance = _step(grouped.var(-1, unbiased=False))
    rstd = _step(1 / _step(torch.sqrt(_step(variance + _step(torch.tensor(eps))))))

    def per_channel(s):
        return s.repeat_interleave(c // groups, 1).reshape(n, c, 1)
    centred = _step(x.reshape(n, c, -1) - per_channel(mean))
    normed = _step(centred * per_channel(rstd))
    products = _step(normed * grad.reshape(n, c, -1))
    return _step(_step(products.sum(-1)).sum(0))


class _GroupNormFloat16WeightGradient(torch.autograd.Function):
    """aten's group_norm and its input and bias gradients, the weight's from the float16 steps."""

    @staticmethod
    def forward(ctx, x, weight, bias, groups):
        ctx.save_for_backward(x, weight, bias)
        ctx.groups = groups
        return F.group_norm(x, groups, weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight, bias = ctx.saved_tensors
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_(True) for t in (x, weight, bias)]
            aten = torch.autograd.grad(F.group_norm(leaves[0], ctx.groups, *leaves[1:]), leaves, grad)
        return aten[0], group_norm_weight_gradient_in_float16_steps(x.detach(), grad, ctx.groups), aten[2], None


def group_norm3_float16_weight_gradient(x, weight, bias):
    """The nn suite's group_norm (3 groups) with torch_npu's float16 weight gradient."""
    return _GroupNormFloat16WeightGradient.apply(x, weight, bias, 3)


NN_SUITE: dict[tuple[str, bool], Explained] = {  # (case name, backward) -> explanation
    ("gelu", False): Explained(
        "page", "op-plugin sends F.gelu(approximate='none') to aclnnGelu (aclop Gelu on Ascend910), whose page "
        "formula is the tanh approximation (up to 5e-4 from the erf form)", None, None, gelu_by_page),
    ("gelu_out", False): Explained(
        "page", "as gelu: aclnnGelu's page formula is the tanh approximation", None, None, gelu_by_page),
    ("gelu_tanh", True): Explained(
        "page", "op-plugin sends gelu_backward to aclnnGeluBackward on chips that are not aclnn-only, whose "
        "page formula is the erf form's derivative whatever the approximation", None, None, gelu_gradient_by_page),
    ("batch_norm_train", False): Explained(
        "torch_npu", "float16 running statistics: torch_npu casts them to float32 for BNTrainingUpdate and never "
        "casts the updated ones back", ACLOP_CHIPS, frozenset({"float16"}), batch_norm_train_statistics_kept),
    ("avg_pool2d_divisor", True): Explained(
        "torch_npu", HOST_CODE["nn.functional.avg_pool2d"].why, ACLOP_CHIPS, None,
        avg_pool2d_divisor_by_count),
    ("cross_entropy_ls_weight", False): Explained(
        "torch_npu", "torch_npu's acl_op nll_loss zeroes weight[ignore_index] in the caller's weight tensor, which "
        "the label-smoothing term then reads", ACLOP_CHIPS, None, cross_entropy_ls_weight_zeroed),
    ("cross_entropy_ls_weight", True): Explained(
        "torch_npu", "as its forward: the caller's weight modified", ACLOP_CHIPS, None,
        cross_entropy_ls_weight_zeroed),
    ("group_norm", True): Explained(
        "torch_npu", "torch_npu's acl_op group_norm backward computes the weight's gradient as aclop Sub, Mul, Mul, "
        "ReduceSum in float16 steps (traced with gdb), from an rstd it computes as Add, Sqrt, RealDiv in float16",
        ACLOP_CHIPS, frozenset({"float16"}), group_norm3_float16_weight_gradient),
}


# The tensor suite's explanations, keyed by test (each test makes several checks; an explanation's
# model is called with the failing check's function and its CPU inputs, in their own dtypes, and
# decides what torch_npu gives for that check). Traced with gdb on aclopCompileAndExecute on
# Ascend910, where (as on Ascend310P) plain tensors take aclop.
SMALL_INTEGERS = frozenset({"int8", "uint8", "int16", "int32"})


def _in_input_dtype(fn, x):
    # Cumsum's output desc is the input's dtype, where aten promotes small integers to int64.
    return fn(x).to(x.dtype)


def _as_bool(fn, x):
    return fn(x).bool()


def _add_float16_scalar(fn, a):
    # Add(a, scalar) with the scalar in a's dtype: 3.7 becomes 3.69921875 before the add.
    return a + torch.tensor(3.7, dtype=torch.float16)


def _lerp_float16_weight(fn, a, b):
    return torch.lerp(a.float(), b.float(), _float16_scalar(0.3)).half()


def _exp2_integer_pow(fn, a):
    # Pow(2, a) with 2 as an int32 scalar: an integer power, 0 for a negative exponent.
    return torch.pow(torch.tensor(2, dtype=a.dtype), a)


def _kthvalue_in_float16(input, k, dim=-1, keepdim=False):
    # Cast to float16, TopKV2, GatherV2, Cast back: the k-th value of the rounded input, rounded.
    # Its gradient is aten's kthvalue_backward, in the input's dtype, at those indices.
    _, indices = torch.kthvalue(input.detach().half(), k, dim, True)
    picked = input.gather(dim, indices)
    values = picked + (picked.detach().half().to(input.dtype) - picked.detach())
    return (values, indices) if keepdim else (values.squeeze(dim), indices.squeeze(dim))


def _median_dim_by_topk(input, dim=None, keepdim=False):
    # TopKV2 (k = (n + 1) // 2, largest false, sorted), then GatherV2 of its last column (traced on
    # Ascend910): the k-th smallest with no NaN check, where aten answers NaN for a row holding one.
    # Which rank NaN takes is TopKV2's: above every number, as torch.topk orders it. The whole-tensor
    # median (no dim) was not traced and stays PyTorch's.
    if dim is None:
        return torch.median(input)
    n = input.shape[dim] if input.dim() else 1
    values, indices = torch.topk(input, (n + 1) // 2, dim, largest=False, sorted=True)
    values, indices = values.narrow(dim, -1, 1), indices.narrow(dim, -1, 1)
    return torch.return_types.median((values, indices) if keepdim else (values.squeeze(dim), indices.squeeze(dim)))


def _replacing(function, replacement, *more):
    """A model running the check's own function with each call of `function` (torch.addmm, ...)
    computed by `replacement` (and so for each further pair in `more`), called with the same
    arguments: the host code's steps for whatever arguments the check passes."""
    from torch.overrides import TorchFunctionMode

    replacements = dict(zip((function,) + more[::2], (replacement,) + more[1::2]))

    class Replace(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            # (the mode is off while this runs: a replacement's own calls are PyTorch's)
            return replacements.get(func, func)(*args, **(kwargs or {}))

    def model(fn, *inputs):
        with Replace():
            return fn(*inputs)
    return model


def _addmm_in_float16_steps(input, mat1, mat2, *, beta=1, alpha=1):
    # Mul(mat1, alpha), MatMul, then Add(input, product) or AxpyV2(product, input, beta): each
    # output float16, the scalars float16 0-d tensors.
    scaled = _step(mat1.float() * _float16_scalar(alpha))
    product = _step(scaled @ mat2.float())
    return (product + _float16_scalar(beta) * input.float()).half()


def _baddbmm_in_float16_steps(input, batch1, batch2, *, beta=1, alpha=1):
    # BatchMatMul, Mul(product, alpha), Mul(input, beta), Add: each output float16.
    product = _step(torch.bmm(batch1.float(), batch2.float()))
    return (_step(product * _float16_scalar(alpha)) + _step(input.float() * _float16_scalar(beta))).half()


def _baddbmm_inplace_in_float16_steps(input, batch1, batch2, *, beta=1, alpha=1):
    return input.copy_(_baddbmm_in_float16_steps(input, batch1, batch2, beta=beta, alpha=alpha))


def _clamp_bounds_in_integer_dtype(input, min=None, max=None):
    # An integer tensor clamped by float scalars: ClipByValueV2 in the tensor's dtype, the bounds
    # converted to it (truncated) by the host code, where aten promotes to float32.
    if input.is_floating_point() or not all(isinstance(b, float) or b is None for b in (min, max)):
        return torch.clamp(input, min, max)
    return torch.clamp(input, None if min is None else int(min), None if max is None else int(max))


def _addmm_beta_zero_multiplies(fn, a, b, c):
    # addmm(a, b, c, beta=0): Mul, MatMul, AxpyV2 multiply self by 0, so its NaN and inf stay,
    # where aten ignores self (as HOST_CODE["addr"]).
    return a * 0 + b @ c


def _in_float16_operands(fn, a, *others):
    # A float16 tensor clamped by float32 bounds: Cast to float16, then ClipByValueV2, the result
    # float16; an integer tensor's float bounds as _clamp_bounds_in_integer_dtype.
    if a.dtype == torch.float16:
        return fn(a, *[o.half() for o in others])
    return _replacing(torch.clamp, _clamp_bounds_in_integer_dtype)(fn, a, *others)


def _where_written_in_float16(fn, a, b):
    # Select computes in float32 and writes the output desc op-plugin gives it: float16.
    return fn(a.float(), b).half()


def _compared_in_float32(fn, x):
    # Cast to float32 and Equal/NotEqual with the scalar as float32 (2**32 + 3 is 4294967296),
    # where aten wraps the scalar to int32 (3).
    return fn(x.float())


def _cpu_fallback(fn, x, *out):
    # torch_npu warns and runs the aten operator on the CPU on the tensor itself (in float16 for a
    # float16 tensor, where the suite's golden computes in float32 and rounds once). An out= tensor
    # receives the CPU result by copy_, of which an empty out takes nothing: it stays as it was
    # passed, unresized (logit's fallback copies into `out`, LogitKernelNpuOpApi.cpp; traced for
    # logit and sinc on Ascend910: the simulator receives one copy of the input to the host, then no
    # operator and no copy back).
    return out[0] if out else fn(x)


def _empty_out_left_empty(fn, *inputs_and_out):
    # An out= tensor passed empty: op-plugin's aclop route describes it to the operator with its own
    # shape ([0]: the shape the bridge names when it refuses MatMul's output desc) and never resizes
    # it, so it reads back empty, whatever the operator wrote, on a device as here. (The CPU's run
    # before this one resized the suite's own out= tensor: an empty one of its dtype stands for it.)
    return inputs_and_out[-1].new_empty(0)


BATCHED_MATMUL_IN_FLOAT16 = Explained(
    "torch_npu", "baddbmm in float16: BatchMatMul, Mul (alpha), Mul (beta) and Add, each writing float16; "
    "addbmm as HOST_CODE['addbmm']", ACLOP_CHIPS, frozenset({"float16"}),
    _replacing(torch.baddbmm, _baddbmm_in_float16_steps, torch.Tensor.baddbmm_, _baddbmm_inplace_in_float16_steps,
               torch.addbmm, _addbmm_by_steps(None, None)))

KTHVALUE_IN_FLOAT16 = Explained(
    "torch_npu", "kthvalue of float32: op-plugin casts to float16 for TopKV2 and the values back to float32",
    ACLOP_CHIPS, frozenset({"float32"}), _replacing(torch.kthvalue, _kthvalue_in_float16))

TENSOR_SUITE: dict[str, Explained] = {
    "test_add_scalar": Explained(
        "torch_npu", "x + 3.7 in float16: op-plugin gives Add the scalar as a float16 0-d tensor (3.69921875)",
        ACLOP_CHIPS, frozenset({"float16"}), _add_float16_scalar),
    "test_lerp": Explained(
        "torch_npu", "lerp with a scalar weight in float16: Lerp's weight is a float16 0-d tensor",
        ACLOP_CHIPS, frozenset({"float16"}), _lerp_float16_weight),
    "test_cumsum_cumprod": Explained(
        "torch_npu", "cumsum of a small integer dtype: Cumsum writes the input's dtype, aten's result is int64",
        ACLOP_CHIPS, SMALL_INTEGERS, _in_input_dtype),
    "test_integer_reduction_dtypes": Explained(
        "torch_npu", "cumsum of a small integer dtype: Cumsum writes the input's dtype, aten's result is int64",
        ACLOP_CHIPS, SMALL_INTEGERS, _in_input_dtype),
    "test_cumsum_cumprod_dtypes": Explained(
        "torch_npu", "cumsum of a small integer dtype: Cumsum writes the input's dtype, aten's result is int64",
        ACLOP_CHIPS, SMALL_INTEGERS, _in_input_dtype),
    "test_all_any": Explained(
        "torch_npu", "all/any of uint8: op-plugin casts to bool for ReduceAll/ReduceAny and returns bool, where "
        "aten keeps uint8", ACLOP_CHIPS, frozenset({"uint8"}), _as_bool),
    "test_exp2_int": Explained(
        "torch_npu", "exp2 of an integer tensor: Pow(2, x) with the base and output in x's dtype, an integer power where aten "
        "gives float32", ACLOP_CHIPS, SMALL_INTEGERS | {"int64"}, _exp2_integer_pow),
    "test_kthvalue": KTHVALUE_IN_FLOAT16,
    "test_backward_indexing": KTHVALUE_IN_FLOAT16,
    "test_addmm": Explained(
        "torch_npu", "addmm in float16: Mul (alpha), MatMul, then Add or AxpyV2 (beta), each writing float16, "
        "where aten rounds once",
        ACLOP_CHIPS, frozenset({"float16"}), _replacing(torch.addmm, _addmm_in_float16_steps)),
    "test_addbmm_baddbmm": BATCHED_MATMUL_IN_FLOAT16,
    "test_baddbmm_addmv_addr_variants": BATCHED_MATMUL_IN_FLOAT16,
    "test_addmm_int_beta_alpha_and_out": Explained(
        "torch_npu", "addmm with beta 0 runs Mul, MatMul and AxpyV2: self is multiplied by 0, so its NaN stays, "
        "where aten ignores self", ACLOP_CHIPS, frozenset({"float32"}), _addmm_beta_zero_multiplies),
    "test_clamp_tensor_promotion": Explained(
        "torch_npu", "clamp of float16 with a float32 bound: op-plugin casts the bound to float16 for "
        "ClipByValueV2 and returns float16, and an int32 tensor's float bounds are converted to int32, where aten "
        "promotes to float32", ACLOP_CHIPS, frozenset({"float16", "int32"}), _in_float16_operands),
    "test_where_scalars_and_promotion": Explained(
        "torch_npu", "where of float16 and float32: op-plugin casts to float32 for Select and gives it a float16 "
        "output, where aten promotes to float32", ACLOP_CHIPS, frozenset({"float16"}), _where_written_in_float16),
    "test_integer_scalars_in_the_tensors_dtype": Explained(
        "torch_npu", "int32 == / != a scalar beyond int32: op-plugin casts the tensor to float32 for Equal/NotEqual, "
        "where aten wraps the scalar to int32", ACLOP_CHIPS, frozenset({"int32"}), _compared_in_float32),
    "test_median_kthvalue_mode_more": Explained(
        "torch_npu", "median along a dim of float32: op-plugin takes the k-th smallest of TopKV2 (largest false) "
        "with no NaN check, so a row holding NaN gives a number where aten gives NaN",
        ACLOP_CHIPS, frozenset({"float32"}), _replacing(torch.median, _median_dim_by_topk)),
    "test_mm_out": Explained(
        "torch_npu", "mm into an out= tensor of another shape on the aclop route: MatMul is given out's own desc ([0]) "
        "and out is left unresized", ACLOP_CHIPS, frozenset({"float32"}), _empty_out_left_empty),
    "test_logit": Explained(
        "torch_npu", "logit on a chip without aclnnLogit's kernel: torch_npu runs aten::logit on the CPU, in float16 "
        "for a float16 tensor, and copies the result into an out= tensor, which left empty stays empty",
        ACLOP_CHIPS, frozenset({"float16", "float32"}), _cpu_fallback),
    "test_sinc": Explained(
        "torch_npu", "sinc, which torch_npu runs on the CPU ('kernel [sinc] is not supported by NPU currently'), copies "
        "its result into an out= tensor, which left empty stays empty", ACLOP_CHIPS, frozenset({"float32"}),
        _cpu_fallback),
}
