"""What torch_npu's own host code makes of an operator where it differs from PyTorch's: results a device
gives the same, since the host code, not the device, decides them. Shared by the sweeps' classifiers,
so that a result equal to one of these is told apart from a wrong value of the simulator's.

Each entry holds a CPU function with the operator's signature (the OpInfo sample's arguments) whose
result is the one torch_npu defines, and the evidence for it. Every one applies with JIT compilation
on (Ascend910 and Ascend310P by default, `torch.npu.set_compile_mode(jit_compile=True)` elsewhere),
where op-plugin runs the operator through aclop by type name, and only to the samples its `applies`
selects: elsewhere the operator's result must equal PyTorch's. A result that equals neither stays a
wrong value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class HostCode:
    why: str
    modes: frozenset[str]
    # (op, sample) -> whether the sample takes the path `why` describes.
    applies: Callable[[Any, Any], bool]
    # (op, got) -> the CPU function whose result torch_npu gives, called as op is; got (the npu
    # result, on the CPU) for an entry whose host code decides something no documentation pins.
    result: Callable[[Any, Any], Callable[..., Any]]


FORWARD = frozenset({"float32", "float16", "bfloat16"})


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
        dtype = input.dtype

        def step(t):  # an operator's output, written in the operands' dtype
            return t.to(dtype).float()
        scaled = step(input.float() * beta)
        products = step(torch.bmm(batch1.float(), batch2.float()))
        summed = step(products.sum(0))
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


HOST_CODE: dict[str, HostCode] = {
    "index_fill": HostCode(
        "index_fill with a negative dim: acl_op::index_fill builds IndexFillD's assist tensors "
        "(y = x * assist1 + assist2) without wrapping the dim, so other elements than the index's are "
        "filled (each element is x's or the value)",
        FORWARD | {"backward"},
        lambda op, s: s.args[0] < 0,
        _index_fill_unwrapped),
    "addr": HostCode(
        "addr with beta 0 runs Mul, Mul and AxpyV2: self is multiplied by 0, so its NaN and inf stay, "
        "where aten ignores self",
        FORWARD,
        lambda op, s: s.kwargs.get("beta", 1) == 0,
        _addr_without_beta_zero_rule),
    "addbmm": HostCode(
        "addbmm runs Mul (beta * self), BatchMatMul, ReduceSum over the batch and AxpyV2, each writing "
        "its output in the operands' dtype (seen with gdb on aclopCompileAndExecute): in float16 the "
        "products are rounded before they are summed, where aten rounds once",
        frozenset({"float16", "bfloat16"}),
        lambda op, s: True,
        _addbmm_by_steps),
    "native_layer_norm": HostCode(
        "native_layer_norm through LayerNorm returns its outputs as they are: mean and variance (not "
        "rstd), each flattened to [M]",
        FORWARD,
        lambda op, s: True,
        _layer_norm_variance),
    "nn.functional.adaptive_max_pool1d": HostCode(
        "adaptive_max_pool1d runs MaxPoolWithArgmaxV1 on a batched 4-d view: its indices are the "
        "operator's int16 mask, and an unbatched input's result stays batched",
        FORWARD,
        lambda op, s: True,
        _adaptive_max_pool1d_mask),
    "nn.functional.interpolate.nearest": HostCode(
        "nearest interpolation with a scale_factor gives ResizeNearestNeighborV2 the output size only: "
        "its source index is floor(dst * in / out), not floor(dst / scale_factor)",
        FORWARD | {"backward"},
        lambda op, s: _kwarg_or_arg(s, "scale_factor", 1, None) is not None,
        _nearest_by_size),
    "nn.functional.upsample_nearest": HostCode(
        "upsample_nearest with a scale_factor gives ResizeNearestNeighborV2 the output size only: "
        "its source index is floor(dst * in / out), not floor(dst / scale_factor)",
        FORWARD | {"backward"},
        lambda op, s: _kwarg_or_arg(s, "scale_factor", 1, None) is not None,
        _nearest_by_size),
    "nn.functional.avg_pool2d": HostCode(
        "avg_pool2d's gradient with a divisor_override divides by the window's count: op-plugin sets "
        "divisor_override on AvgPoolV2 only, and AvgPoolV2Grad's prototype has no such attribute",
        frozenset({"backward"}),
        lambda op, s: _kwarg_or_arg(s, "divisor_override", 5, None) is not None,
        _avg_pool2d_grad_by_count),
}


def host_code(name: str, mode: str, op, sample) -> HostCode | None:
    """The host-code result this sample of operator `name` takes on the aclop path, or None."""
    import torch_npu

    entry = HOST_CODE.get(name)
    if entry is None or mode not in entry.modes or torch_npu.npu.is_jit_compile_false():
        return None
    return entry if entry.applies(op, sample) else None
