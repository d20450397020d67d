"""Sweeps torch_npu's own operators (the `npu::` namespace: torch_npu.npu_*, torch.ops.npu.*) through
torch_npu on the simulator, as torch_npu's per-operator tests call them. Not part of `make test`: run by
hand from the repository after `make package`:

    .venv/bin/python tests/torch_npu/custom_ops_sweep.py --out build/custom-ops-sweep.jsonl [--ops npu_rms_norm,...]
        [--op-api] [--hand] [--soc Ascend950 (every operator on it; else CHIP_OF's on theirs)] [--dtype float16]
        [--toolkit DIR (another build, for a baseline)] [--task-queue]
    .venv/bin/python tests/torch_npu/custom_ops_sweep.py --summary build/custom-ops-sweep.jsonl

The operators are the schemas torch_npu 2.13 registers under `npu::` (--op-api: only those op-plugin's
yaml gives an op_api implementation). Each is called once with small valid arguments:
hand-written below for the operators a generic maker cannot serve (with a CPU reference written from the
operator's documented formula where one is short; "op@variant" names another hand-made call of op),
otherwise made from the schema (a float32 tensor per Tensor, the defaults, ones). Each call is classified:

  equal      computes and equals the CPU reference
  WRONG      computes another value without an error (the worst outcome)
  unchecked  computes; no reference written (or the arguments were made from the schema)
  refused    an exception naming the aclnn API and its status (phase 1 16xxxx, not simulated 561003, ...)
  missing    the API is not in the simulator's libopapi (no page, no semantics)
  crash      the process died or hung
  torch_npu  torch_npu itself refuses the operator on the chip (no aclnn route on Ascend950, an interface
             it retired there)
  bad-args   the sweep's own arguments were rejected before any aclnn call (the maker's fault)

Calls run with ASCEND_LAUNCH_BLOCKING=1 (--task-queue: without it, as torch_npu runs by default) in
worker processes; a worker that dies loses only the operator
it was running, recorded as a crash.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from opinfo_sweep import TOOLKIT, environment, reason_of  # noqa: E402

# op-plugin's sources (its yaml and ops/opapi/*.cpp): which aclnn APIs each operator reaches, for the
# table (none where absent), and --op-api's selection.
# op-plugin's sources: ACLNN_OP_PLUGIN, else ../shared/reference/op-plugin beside the clone (as the corpus).
OP_PLUGIN = Path(os.environ.get("ACLNN_OP_PLUGIN") or
                 Path(__file__).resolve().parents[3] / "shared" / "reference" / "op-plugin") / "op_plugin"
HANG = 120
# The hand-made operators whose pages support one chip other than the simulator's default (the MX
# quantisers: Ascend950 alone): a sweep without --soc runs them on it, in workers of their own (torch_npu
# reads the chip once, at its start), the others on the toolkit's default.
CHIP_OF = {op: "Ascend950" for op in (
    "npu_dynamic_mx_quant", "npu_dynamic_mx_quant_with_dual_axis", "npu_grouped_dynamic_mx_quant",
    "npu_dynamic_block_mx_quant", "npu_anti_mx_quant", "npu_quant_max", "npu_rms_norm_dynamic_mx_quant",
    "npu_add_rms_norm_dynamic_mx_quant", "npu_swiglu_mx_quant", "npu_swiglu_mx_quant_with_dual_axis",
    "npu_dynamic_dual_level_mx_quant", "_npu_swiglu_backward_mx_quant_with_dual_axis",
    # a variant's own chip (FLOAT8 and MX operands and weights: Ascend950)
    "npu_quant_matmul@fp8", "npu_quant_matmul@mx", "npu_weight_quant_batchmatmul@fp8",
    "npu_transpose_quant_batchmatmul", "npu_transpose_quant_batchmatmul@mx")}
CHIP_OF["npu_quant_matmul_dequant"] = "Ascend310P"  # the one chip its page supports
CHIP_OF["npu_matmul_compress_dequant"] = "Ascend310P"  # the one chip its page supports
CHIP_OF["npu_swiglu_group_quant_backward"] = "Ascend950"  # likewise
CHIP_OF.update({op: "Ascend950" for op in ("npu_gelu_quant", "npu_rms_norm_quant_v2", "npu_fused_matmul")})  # likewise
CHIP_OF["npu_format_cast@c0_16"] = "Ascend950"  # FRACTAL_NZ_C0_16 is that chip's


# ---------------------------------------------------------------------------------------------------
# Hand-written argument makers: name -> function returning (args, kwargs, want). `want` is the CPU
# reference (a tensor, or a tuple of tensors with None for outputs not checked), or None (unchecked).
# A maker may return a fourth item: a function (op, args, kwargs) -> outputs, for calls in several steps.

def roi_align_reference(x, rois, scale, pooled, samples, aligned):
    """RoIAlign as torchvision computes it, written separably: every bin of RoI r averages a
    samples x samples grid (0: ceil(RoI size / pooled) each way) of bilinear samples at the grid
    cells' centres; the RoI is scaled, shifted by -0.5 when aligned, else at least 1 x 1; a sample
    more than a pixel outside the map counts 0. Differentiable in x (roi_alignbk's reference)."""
    import torch

    def bilinear(coords, size):  # [samples, size]: each sample's weights on the pixels of one axis
        weights = torch.zeros(len(coords), size)
        for k, v in enumerate(coords):
            if -1 <= v <= size:
                v = max(v, 0.0)
                low = min(int(v), size - 1)
                high = min(low + 1, size - 1)
                v = min(v, float(low)) if low == size - 1 else v
                weights[k, low] += 1 - (v - low)
                weights[k, high] += v - low
        return weights
    out = []
    for image, *corners in rois.float().tolist():
        x1, y1, x2, y2 = (v * scale - (0.5 if aligned else 0.0) for v in corners)
        w, h = x2 - x1, y2 - y1
        if not aligned:
            w, h = max(w, 1.0), max(h, 1.0)
        grid_h, grid_w = samples or math.ceil(h / pooled[0]), samples or math.ceil(w / pooled[1])
        ys = [y1 + (i + 0.5) * h / (pooled[0] * grid_h) for i in range(pooled[0] * grid_h)]
        xs = [x1 + (i + 0.5) * w / (pooled[1] * grid_w) for i in range(pooled[1] * grid_w)]
        sampled = bilinear(ys, x.shape[2]) @ x[int(image)].float() @ bilinear(xs, x.shape[3]).t()
        out.append(sampled.reshape(x.shape[1], pooled[0], grid_h, pooled[1], grid_w).mean((2, 4)))
    return torch.stack(out)


def rotated_corners(cx, cy, w, h, degrees):
    """A rotated box's corners as MMCV places them (the boxes RotatedIou, RotatedOverlaps and RotatedNMS
    take, MMCV's NPU path sending its angle in degrees): the centre plus R (+-w/2, +-h/2), with
    R = [[cos, -sin], [sin, cos]] of the angle."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [(cx + c * x - s * y, cy + s * x + c * y) for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]


def rotated_overlap(p, q):
    """The area two rotated boxes (cx, cy, w, h, degrees) share, as MMCV's CPU kernel finds it: the
    convex hull of every corner of one inside the other and every crossing of their edges, its area by
    the shoelace formula. A box of no area (w h below 1e-14) shares none."""
    if p[2] * p[3] < 1e-14 or q[2] * q[3] < 1e-14:
        return 0.0
    a, b = rotated_corners(*p), rotated_corners(*q)

    def cross(o, u, v):
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])

    def inside(point, polygon):  # on or inside a convex polygon
        sides = [cross(polygon[k], polygon[(k + 1) % 4], point) for k in range(4)]
        return all(side >= -1e-9 for side in sides) or all(side <= 1e-9 for side in sides)
    points = [pt for pt in a if inside(pt, b)] + [pt for pt in b if inside(pt, a)]
    for i in range(4):
        p1, p2 = a[i], a[(i + 1) % 4]
        for j in range(4):
            q1, q2 = b[j], b[(j + 1) % 4]
            det = (p2[0] - p1[0]) * (q2[1] - q1[1]) - (p2[1] - p1[1]) * (q2[0] - q1[0])
            if abs(det) < 1e-12:
                continue  # parallel edges: their shared points are corners, found above
            t = ((q1[0] - p1[0]) * (q2[1] - q1[1]) - (q1[1] - p1[1]) * (q2[0] - q1[0])) / det
            u = ((q1[0] - p1[0]) * (p2[1] - p1[1]) - (q1[1] - p1[1]) * (p2[0] - p1[0])) / det
            if 0 <= t <= 1 and 0 <= u <= 1:
                points.append((p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1])))
    points = sorted(set(points))
    if len(points) < 3:
        return 0.0
    hull = []  # Andrew's monotone chain: the lower hull, then the upper
    for sequence in (points, points[::-1]):
        start = len(hull)
        for pt in sequence:
            while len(hull) >= start + 2 and cross(hull[-2], hull[-1], pt) <= 0:
                hull.pop()
            hull.append(pt)
        hull.pop()
    return abs(sum(u[0] * v[1] - v[0] * u[1] for u, v in zip(hull, hull[1:] + hull[:1]))) / 2


def rotated_iou(p, q, over_first=False):
    """IoU of two rotated boxes (over_first: the overlap over p's area, MMCV's "iof"); 0 when either has
    no area, as MMCV's single_box_iou_rotated."""
    if p[2] * p[3] < 1e-14 or q[2] * q[3] < 1e-14:
        return 0.0
    inter = rotated_overlap(p, q)
    return inter / (p[2] * p[3] if over_first else p[2] * p[3] + q[2] * q[3] - inter)


def rotated_boxes(generator, n, degenerate=True):
    """n boxes (cx, cy, w, h, degrees) [n, 5] crowded enough to overlap, with (degenerate) a box twice,
    the same box turned by 90 degrees with its sides swapped (the same rectangle), and one of no width."""
    import torch

    boxes = torch.cat((torch.rand(n, 2, generator=generator) * 6, torch.rand(n, 2, generator=generator) * 4 + 1,
                       torch.rand(n, 1, generator=generator) * 180 - 90), 1)
    if degenerate and n >= 4:
        boxes[1] = boxes[0]
        boxes[2] = torch.stack((boxes[0, 0], boxes[0, 1], boxes[0, 3], boxes[0, 2], boxes[0, 4] + 90))
        boxes[3, 2] = 0
    return boxes


class Makers(dict):
    """The hand-made calls by name, and the generator their inputs are drawn from: restoring its state
    makes a call's inputs again, for a second reference computed on the same ones."""

    def __init__(self, generator) -> None:
        super().__init__()
        self.generator = generator


def makers(dtype: str = "float32") -> Makers:
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(0)

    default = getattr(torch, dtype)

    def randn(*shape, dtype=None):
        """Normal values in the sweep's dtype (--dtype) unless the operator needs another."""
        return torch.randn(*shape, generator=g).to(dtype or default)

    def int4pack(w):
        # npu_convert_weight_to_int4pack's words (op-plugin's convert_to_int4_pack): eight INT4 along the last
        # axis, element 8i in bits 0-3 of word i.
        nibbles = (w.to(torch.int64) & 0xF).reshape(*w.shape[:-1], -1, 8)
        words = sum(nibbles[..., i] << (4 * i) for i in range(8))
        return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)

    def rstd_of(x, eps, dims=1):
        return torch.rsqrt(x.float().pow(2).mean(tuple(range(-dims, 0)), keepdim=True) + eps)

    def rotate_half(x):
        a, b = x.chunk(2, -1)
        return torch.cat((-b, a), -1)

    def attention(q, k, v, scale, mask=None):
        s = q @ k.transpose(-1, -2) * scale
        if mask is not None:
            s = s.masked_fill(mask, float("-inf"))
        return s.softmax(-1) @ v

    def heads(x, n):  # BSH -> BNSD
        b, s, h = x.shape
        return x.reshape(b, s, n, h // n).transpose(1, 2)

    def merge(x):  # BNSD -> BSH
        b, n, s, d = x.shape
        return x.transpose(1, 2).reshape(b, s, n * d)

    m = Makers(g)

    def rms_norm():
        x, gamma = randn(3, 16), randn(16)
        r = rstd_of(x, 1e-6)
        return (x, gamma), {}, (x * r * gamma, r)
    m["npu_rms_norm"] = rms_norm

    def gemma_rms_norm():
        x, gamma = randn(3, 16), randn(16)
        r = rstd_of(x, 1e-6)
        return (x, gamma), {}, (x * r * (1 + gamma), r)
    m["npu_gemma_rms_norm"] = gemma_rms_norm

    def add_rms_norm():
        x1, x2, gamma = randn(3, 16), randn(3, 16), randn(16)
        x = x1 + x2
        r = rstd_of(x, 1e-6)
        return (x1, x2, gamma), {}, (x * r * gamma, r, x)
    m["npu_add_rms_norm"] = add_rms_norm

    def add_rms_norm_v2():
        # aclnnInplaceAddRmsNorm: x1's buffer takes the normalised sum and x2's the sum; the result is
        # rstd (float), which op-plugin allocates.
        x1, x2, gamma = randn(3, 16), randn(3, 16), randn(16)
        x = x1 + x2
        r = rstd_of(x, 1e-6)

        def run(op, a, k):
            rstd = op(*a, **k)
            return rstd, a[0], a[1]
        return (x1, x2, gamma), {}, (r, x * r * gamma, x), run
    m["npu_add_rms_norm_v2"] = add_rms_norm_v2

    def add_rms_norm_v2_functional():
        x1, x2, gamma = randn(3, 16), randn(3, 16), randn(16)
        x = x1 + x2
        r = rstd_of(x, 1e-6)
        return (x1, x2, gamma), {}, (r, x * r * gamma, x)
    m["npu_add_rms_norm_v2_functional"] = add_rms_norm_v2_functional

    def grads(f, inputs, dy):
        """The gradients of f's output (weighted by dy) w.r.t. each of inputs, by CPU autograd."""
        leaves = [t.clone().requires_grad_() for t in inputs]
        return torch.autograd.grad(f(*leaves), leaves, dy)

    def rms_norm_backward():
        x, gamma, dy = randn(3, 16), randn(16), randn(3, 16)
        dx, dgamma = grads(lambda x, g: x * rstd_of(x, 1e-6) * g, (x, gamma), dy)
        return (dy, x, gamma, rstd_of(x, 1e-6)), {}, (dx, dgamma)
    m["npu_rms_norm_backward"] = rms_norm_backward

    def renorm_backward(p, maxnorm):
        # op-plugin's npu_renorm_backward is PyTorch's derivative of renorm (its rows of norm above
        # maxnorm scaled down, the others passed): CPU autograd of torch.renorm is the reference.
        def make():
            x, dy = randn(4, 5), randn(4, 5)
            dx, = grads(lambda t: torch.renorm(t.float(), p, 0, maxnorm), (x,), dy.float())
            return (dy, x, p, 0, maxnorm), {}, dx
        return make
    m["npu_renorm_backward"] = renorm_backward(2, 1.5)
    m["npu_renorm_backward@p3"] = renorm_backward(3, 1.5)

    def fft_c2r_backward():
        # PyTorch's derivative of _fft_c2r (an irfft of 8 points from 5 bins), by CPU autograd: the
        # gradient's r2c with the bins a real signal counts twice doubled. Float32 whatever the dtype
        # (no FFT of half types on the CPU); compared as real pairs (complex results compare exactly).
        x = torch.complex(randn(4, 5, dtype=torch.float32), randn(4, 5, dtype=torch.float32))
        dy = randn(4, 8, dtype=torch.float32)
        dx, = grads(lambda t: torch._fft_c2r(t, [1], 0, 8), (x,), dy)
        return (dy, [1], 0), {}, torch.view_as_real(dx), lambda op, a, k: torch.view_as_real(op(*a, **k).cpu())
    m["fft_c2r_backward"] = fft_c2r_backward

    def rms_norm_backward_quant():
        # rms_norm_backward's gradients at the saved rstd, dx quantised to int8: round(dx / scale +
        # offset) with div_mode, its default.
        x, gamma, dy = randn(3, 16), randn(16), randn(3, 16)
        rstd = rstd_of(x.float(), 1e-6)
        dx, dgamma = grads(lambda x, g: x * rstd_of(x, 1e-6) * g, (x.float(), gamma.float()), dy.float())
        scale, offset = torch.tensor([0.05]).to(default), torch.tensor([2], dtype=torch.int32)
        quantised = torch.round(dx / scale.float() + offset).clamp(-128, 127).to(torch.int8)
        return (dy, x, rstd, gamma, scale), {"offset_x": offset}, (quantised, dgamma)
    m["_npu_rms_norm_backward_quant"] = rms_norm_backward_quant

    def add_rms_norm_quant():
        # aclnnAddRmsNormQuantV2 (aclnnAddRmsNormQuant on Ascend950 without beta): the sum in x1's
        # dtype, then round(y / scales1 + zero_points1) to int8
        x1, x2, gamma = randn(3, 16, dtype=torch.float16), randn(3, 16, dtype=torch.float16), randn(16, dtype=torch.float16)
        scales, zero = torch.rand(16, generator=g) * 0.05 + 0.02, torch.randint(-4, 4, (16,), generator=g, dtype=torch.int32)
        x = (x1.float() + x2.float()).half()
        y = x.float() * rstd_of(x, 1e-6) * gamma.float()
        y1 = torch.clamp(torch.round(y / scales + zero), -128, 127).to(torch.int8)
        return (x1, x2, gamma, scales, zero), {}, (y1, None, x)
    m["npu_add_rms_norm_quant"] = add_rms_norm_quant

    def swiglu_backward():
        x, dy = randn(3, 16), randn(3, 8)
        return (dy, x), {}, grads(lambda x: F.silu(x.chunk(2, -1)[0]) * x.chunk(2, -1)[1], (x,), dy)[0]
    m["npu_swiglu_backward"] = swiglu_backward

    def geglu_grad():
        x, dy = randn(3, 16), randn(3, 8)
        gelu = F.gelu(x.chunk(2, -1)[1], approximate="tanh")
        dx = grads(lambda x: x.chunk(2, -1)[0] * F.gelu(x.chunk(2, -1)[1], approximate="tanh"), (x,), dy)[0]
        return (dy, x, gelu), {}, dx
    m["npu_geglu_grad"] = geglu_grad

    def rotary_mul_backward():
        x, c, s, dy = randn(2, 3, 2, 8), randn(1, 3, 1, 8), randn(1, 3, 1, 8), randn(2, 3, 2, 8)
        want = grads(lambda x, c, s: x * c + rotate_half(x) * s, (x, c, s), dy)

        def run(op, args, kwargs):
            # op-plugin passes x (and the kernel computes dcos, dsin) only when r1 or r2 requires
            # grad; otherwise it returns dcos and dsin as allocated, uncomputed, on an NPU too.
            dy, x, c, s = args
            return op(dy, x, c.requires_grad_(), s.requires_grad_())
        return (dy, x, c, s), {}, want, run
    m["npu_rotary_mul_backward"] = rotary_mul_backward

    def gelu_backward():
        x, dy = randn(4, 7), randn(4, 7)
        return (dy, x), {}, grads(F.gelu, (x,), dy)[0]
    m["npu_gelu_backward"] = gelu_backward

    def silu_backward():
        # op-plugin passes x and silu(x)
        x, dy = randn(4, 7), randn(4, 7)
        return (dy, x, F.silu(x)), {}, grads(F.silu, (x,), dy)[0]
    m["npu_silu_backward"] = silu_backward

    def mish_backward():
        x, dy = randn(4, 7), randn(4, 7)
        return (dy, x), {}, grads(F.mish, (x,), dy)[0]
    m["npu_mish_backward"] = mish_backward

    def fast_gelu_backward():
        x, dy = randn(4, 7), randn(4, 7)
        return (dy, x), {}, grads(lambda x: x * torch.sigmoid(1.702 * x), (x,), dy)[0]
    m["npu_fast_gelu_backward"] = fast_gelu_backward

    def dtype_cast():
        x = randn(4, 7)
        return (x, torch.float16), {}, x.half()
    m["npu_dtype_cast"] = dtype_cast

    def private_dtype_cast():
        # _npu_dtype_cast, the cast op-plugin's own kernels call (aclnnCast): float32 to int32, truncating.
        x = randn(4, 7, dtype=torch.float32) * 100
        return (x, torch.int32), {}, x.int()
    m["_npu_dtype_cast"] = private_dtype_cast

    def batch_norm_reduce():
        # aclnnBatchNormReduce: per channel (dim 1 of NCHW), the sum and the sum of squares over N, H, W.
        x = randn(2, 3, 4, 5, dtype=torch.float32)
        return (x, 1e-5), {}, (x.double().sum((0, 2, 3)).float(), x.double().pow(2).sum((0, 2, 3)).float())
    m["batch_norm_reduce"] = batch_norm_reduce

    def dtype_cast_backward():
        # The gradient of a cast is the gradient cast back to the input's dtype (op-plugin's).
        dy = randn(4, 7, dtype=torch.float32)
        return (dy, torch.float16), {}, dy.half()
    m["_npu_dtype_cast_backward"] = dtype_cast_backward

    def dtype_cast_in_place():
        # self takes src's values in self's dtype (int32 truncating toward zero).
        x, src = torch.zeros(4, 7, dtype=torch.int32), randn(4, 7) * 10

        def run(op, a, k):
            op(*a, **k)
            return a[0]
        return (x, src), {}, src.float().trunc().int(), run
    m["npu_dtype_cast_"] = dtype_cast_in_place

    def copy_memory():
        x, src = randn(4, 7), randn(4, 7)

        def run(op, a, k):
            op(*a, **k)
            return a[0]
        return (x, src), {}, src, run
    m["copy_memory_"] = copy_memory

    def sort_v2_out():
        x = randn(3, 7)

        def run(op, a, k):
            out = torch.empty_like(a[0])
            op(*a, **k, out=out)
            return out
        return (x,), {"dim": 0, "descending": True}, x.sort(0, descending=True).values, run
    m["npu_sort_v2.out"] = sort_v2_out

    def one_hot():
        x = torch.tensor([0, 3, 1, 2], dtype=torch.int32)
        return (x,), {"depth": 5}, F.one_hot(x.long(), 5).int()
    m["npu_one_hot"] = one_hot

    def linear_backward():
        x, w, dy = randn(3, 8), randn(5, 8), randn(3, 5)
        return (dy, x, w), {}, grads(lambda x, w: F.linear(x, w), (x, w), dy)
    m["npu_linear_backward"] = linear_backward

    def attn_softmax():
        x = randn(2, 3, 8)
        return (x,), {}, x.softmax(-1)
    m["npu_attn_softmax_"] = attn_softmax

    def attn_softmax_backward():
        y, dy, values = randn(2, 3, 8).softmax(-1), randn(2, 3, 4), randn(2, 8, 4)
        # softmax's gradient at y for the incoming gradient dy @ values^T (torch_npu's fused form)
        g = dy @ values.transpose(-1, -2)
        return (y, dy, values), {}, y * (g - (g * y).sum(-1, keepdim=True))
    m["npu_attn_softmax_backward_"] = attn_softmax_backward

    def scatter_update():
        # per batch b (dimension 0), updates[b] written into data[b] at position indices[b] along axis
        x, updates = randn(4, 5, 6), randn(4, 2, 6)
        indices = torch.tensor([3, 1, 0, 2], dtype=torch.int64)
        want = x.clone()
        for b in range(4):
            want[b, indices[b]:indices[b] + 2] = updates[b]
        return (x, indices, updates, -2), {}, want
    m["scatter_update"] = scatter_update

    def gather_sparse_index():
        x, index = randn(5, 3), torch.tensor([[0, 4], [2, 2]], dtype=torch.int64)
        return (x, index), {}, x[index]
    m["npu_gather_sparse_index"] = gather_sparse_index

    def cross_entropy_loss():
        x, target = randn(4, 6), torch.tensor([0, 5, 2, 3], dtype=torch.int64)
        # op-plugin sizes the reduced loss [1]
        return (x, target), {}, (F.cross_entropy(x, target).reshape(1), x.log_softmax(-1), None, None)
    m["npu_cross_entropy_loss"] = cross_entropy_loss

    def deep_norm():
        x, gx, beta, gamma = randn(3, 16), randn(3, 16), randn(16), randn(16)
        s = x * 0.3 + gx
        mean, rstd = s.mean(-1, keepdim=True), torch.rsqrt(s.var(-1, unbiased=False, keepdim=True) + 1e-6)
        return (x, gx, beta, gamma), {}, (mean, rstd, (s - mean) * rstd * gamma + beta)
    m["npu_deep_norm"] = deep_norm

    def deep_norm_backward():
        # aclnnDeepNormGrad: the gradients of deep_norm's y = (s - mean) * rstd * gamma + beta, s = alpha *
        # x + gx, from the forward's saved mean and rstd: CPU autograd of that formula in double.
        x, gx, gamma, dy = (randn(3, 16, dtype=torch.float32), randn(3, 16, dtype=torch.float32),
                            randn(16, dtype=torch.float32), randn(3, 16, dtype=torch.float32))
        xd, gxd, gammad, betad = (t.double().requires_grad_() for t in (x, gx, gamma, torch.zeros(16)))
        sd = xd * 0.3 + gxd
        mean, var = sd.mean(-1, keepdim=True), sd.var(-1, unbiased=False, keepdim=True)
        ((sd - mean) * torch.rsqrt(var + 1e-6) * gammad + betad).backward(dy.double())
        saved = (mean.detach().float(), torch.rsqrt(var.detach() + 1e-6).float())
        return (dy, x, gx, gamma, *saved), {"alpha": 0.3}, tuple(t.grad.float() for t in (xd, gxd, betad, gammad))
    m["npu_deep_norm_backward"] = deep_norm_backward

    def add_layer_norm():
        x1, x2, gamma, beta = randn(3, 16), randn(3, 16), randn(16), randn(16)
        s = x1 + x2
        return (x1, x2, gamma, beta), {"additional_output": True}, (F.layer_norm(s, [16], gamma, beta, 1e-5), None, None, s)
    m["npu_add_layer_norm"] = add_layer_norm

    def scatter_nd_update():
        x, indices, updates = randn(5, 4), torch.tensor([[1], [3]], dtype=torch.int64), randn(2, 4)
        want = x.clone()
        want[[1, 3]] = updates
        return (x, indices, updates), {}, want
    m["npu_scatter_nd_update"] = scatter_nd_update

    def gelu_mul():
        x = randn(3, 16)
        a, b = x.chunk(2, -1)
        return (x,), {}, F.gelu(a) * b
    m["npu_gelu_mul"] = gelu_mul

    def group_norm_silu():
        x, w, b = randn(2, 8, 3, 3), randn(8), randn(8)
        return (x, w, b, 2), {}, (F.silu(F.group_norm(x, 2, w, b, 1e-5)), None, None)
    m["npu_group_norm_silu"] = group_norm_silu

    def gather_backward():
        x, dy = randn(4, 5), randn(4, 3)
        index = torch.tensor([[0, 4, 4], [1, 1, 2], [3, 0, 2], [4, 3, 1]], dtype=torch.int64)
        return (dy, [4, 5], 1, index, False), {}, dy.new_zeros(4, 5).scatter_add(1, index, dy)
    m["npu_gather_backward"] = gather_backward

    def gather_sparse_index_backward():
        dy, index = randn(2, 2, 3), torch.tensor([[0, 4], [2, 2]], dtype=torch.int64)
        return (dy, [5, 3], index), {}, dy.new_zeros(5, 3).index_add(0, index.reshape(-1), dy.reshape(-1, 3))
    m["npu_gather_sparse_index_backward"] = gather_sparse_index_backward

    def gather_sparse_index_backward_of_a_vector_index():
        # aclnnIndexAddV2's page takes a 1-D index only (the 2-D one above is refused by name)
        dy, index = randn(3, 3), torch.tensor([0, 4, 0], dtype=torch.int64)
        return (dy, [5, 3], index), {}, dy.new_zeros(5, 3).index_add(0, index, dy)
    m["npu_gather_sparse_index_backward@vector_index"] = gather_sparse_index_backward_of_a_vector_index

    def scaled_masked_softmax_backward():
        x, dy = randn(2, 2, 16, 32), randn(2, 2, 16, 32)
        mask = torch.rand(2, 2, 16, 32, generator=g) > 0.7

        def forward(x):
            return (x * 0.5).masked_fill(mask, -10000.0).softmax(-1)
        return (dy, forward(x), mask, 0.5, False), {}, grads(forward, (x,), dy)[0]
    m["npu_scaled_masked_softmax_backward"] = scaled_masked_softmax_backward

    def with_index(reduce):
        def make():
            x = randn(3, 5, 4)
            values, indices = reduce(x, 1)
            return (x, 1), {}, (values, indices)
        return make
    m["npu_max.dim"] = with_index(torch.max)
    m["npu_min.dim"] = with_index(torch.min)

    def arg_with_value_backward(reduce):
        def make():
            # the gradient put where the extreme value was, zeros elsewhere
            x, dy = randn(3, 5, 4), randn(3, 4)
            index = reduce(x, 1).indices
            return (dy, 1, index, [3, 5, 4], False), {}, dy.new_zeros(3, 5, 4).scatter(1, index[:, None], dy[:, None])
        return make
    m["npu_max_backward"] = arg_with_value_backward(torch.max)
    m["npu_min_backward"] = arg_with_value_backward(torch.min)

    def scatter():
        # column j takes updates[j] in row indices[j] (dimension 0); the rest is x
        x, updates = randn(3, 4), randn(4)
        indices = torch.tensor([2, 0, 1, 2], dtype=torch.int32)
        return (x, indices, updates, 0), {}, x.scatter(0, indices.long()[None], updates[None])
    m["npu_scatter"] = scatter

    def repeat_interleave_backward_int():
        x, dy = randn(3, 4), randn(3, 8)
        return (dy, x, 2, 1), {}, dy.reshape(3, 4, 2).sum(-1)
    m["repeat_interleave_backward_int"] = repeat_interleave_backward_int

    def repeat_interleave_backward_tensor():
        x, dy, repeats = randn(3, 4), randn(6, 4), torch.tensor([1, 3, 2])
        return (dy, x, repeats, 0), {}, torch.stack([dy[0], dy[1:4].sum(0), dy[4:].sum(0)])
    m["repeat_interleave_backward_tensor"] = repeat_interleave_backward_tensor

    def loss_backward(loss, *extra):
        def make():
            x, target, dy = randn(3, 5), randn(3, 5).sigmoid(), randn(())
            dx = grads(lambda x: loss(x, target), (x,), dy)[0]
            return (dy, x, target, *extra, 1), {}, dx  # reduction 1: mean
        return make
    m["l1_loss_backward"] = loss_backward(F.l1_loss)
    m["npu_binary_cross_entropy_with_logits_backward"] = loss_backward(F.binary_cross_entropy_with_logits, None, None)
    m["kl_div_backward"] = loss_backward(F.kl_div)

    def rotary_mul():
        x, c, s = randn(2, 3, 2, 8), randn(1, 3, 1, 8), randn(1, 3, 1, 8)
        return (x, c, s), {}, x * c + rotate_half(x) * s
    m["npu_rotary_mul"] = rotary_mul

    def apply_rotary_pos_emb():
        # The page: 4-D, the last dimension 128.
        q, k, c, s = randn(2, 3, 2, 128), randn(2, 3, 1, 128), randn(2, 3, 1, 128), randn(2, 3, 1, 128)
        return (q, k, c, s), {}, (q * c + rotate_half(q) * s, k * c + rotate_half(k) * s)
    m["npu_apply_rotary_pos_emb"] = apply_rotary_pos_emb

    def interleave_rope():
        x, c, s = randn(2, 1, 3, 64), randn(2, 1, 3, 64), randn(2, 1, 3, 64)
        # The page's formula: pairs (x[2i], x[2i+1]) de-interleaved into halves, then rotate_half.
        y = torch.cat((x[..., 0::2], x[..., 1::2]), -1)
        return (x, c, s), {}, y * c + rotate_half(y) * s
    m["npu_interleave_rope"] = interleave_rope

    def swiglu():
        x = randn(3, 16)
        a, b = x.chunk(2, -1)
        return (x,), {}, F.silu(a) * b
    m["npu_swiglu"] = swiglu

    def clipped_swiglu(interleaved):
        # aclnnClippedSwiglu's formula: halves A and B (the even and odd columns, or the first and
        # second half), A clamped above at limit, B to [-limit, limit]; A * sigmoid(alpha * A) * (B + bias).
        def make():
            x = randn(3, 16) * 4
            a, b = (x[..., 0::2], x[..., 1::2]) if interleaved else x.chunk(2, -1)
            a, b = a.clamp(max=2.0), b.clamp(-2.0, 2.0)
            kwargs = {"alpha": 1.5, "limit": 2.0, "bias": 0.5, "interleaved": interleaved}
            return (x,), kwargs, a * torch.sigmoid(1.5 * a) * (b + 0.5)
        return make
    m["npu_clipped_swiglu"] = clipped_swiglu(True)
    m["npu_clipped_swiglu@halves"] = clipped_swiglu(False)

    def dynamic_block_quant():
        # aclnnDynamicBlockQuant with torch_npu's defaults (rint, INT8, blocks of 1 x 128, no minimum
        # scale): each block's scale is its max |x| / 127 (float), y = round(x / scale) as INT8; 200
        # columns leave the second block of each row partial.
        x = randn(3, 200)
        v = x.float()
        scale = F.pad(v.abs(), (0, -v.shape[-1] % 128)).unflatten(-1, (-1, 128)).amax(-1) / 127
        y = torch.round(v / scale.repeat_interleave(128, -1)[:, :v.shape[-1]]).clamp(-128, 127).to(torch.int8)
        return (x,), {}, (y, scale)
    m["npu_dynamic_block_quant"] = dynamic_block_quant

    def geglu():
        x = randn(3, 16)
        a, b = x.chunk(2, -1)
        gelu = F.gelu(b, approximate="tanh")
        return (x,), {}, (a * gelu, gelu)
    m["npu_geglu"] = geglu

    def unary(reference, **kwargs):
        def make():
            x = randn(4, 7)
            return (x,), kwargs, reference(x)
        return make
    m["npu_fast_gelu"] = unary(lambda x: x * torch.sigmoid(1.702 * x))
    m["fast_gelu"] = m["npu_fast_gelu"]
    m["npu_gelu"] = unary(F.gelu)
    m["npu_silu"] = unary(F.silu)
    m["npu_silu_"] = unary(F.silu)
    m["one_"] = unary(torch.ones_like)
    m["npu_mish"] = unary(F.mish)

    def fusion_attention():
        q, k, v = randn(2, 4, 16), randn(2, 5, 16), randn(2, 5, 16)
        want = merge(attention(heads(q, 2), heads(k, 2), heads(v, 2), 0.35))
        return (q, k, v, 2, "BSH"), {"scale": 0.35}, (want, None, None, None, None, None, None)
    m["npu_fusion_attention"] = fusion_attention

    def nsa_select(q, k, v, idx):
        # aclnnNsaSelectedAttention (TND; sequences of 2 and 1 tokens over 48 and 32 keys): token t of query
        # head n attends to the key/value blocks of 16 rows that idx[t, n // 2] names within its own sequence.
        start = torch.tensor([0, 0, 48]).reshape(3, 1, 1)
        rows = (idx.long().repeat_interleave(2, 1).unsqueeze(-1) * 16 + torch.arange(16)).flatten(2) + start
        n = torch.arange(4).reshape(1, 4, 1) // 2
        s = (k[rows, n] @ q.unsqueeze(-1)).squeeze(-1) * 0.07
        mx = s.amax(-1, keepdim=True)
        out = (s.softmax(-1).unsqueeze(-2) @ v[rows, n]).squeeze(-2)
        return out, mx.expand(-1, -1, 8), torch.exp(s - mx).sum(-1, keepdim=True).expand(-1, -1, 8)

    def nsa_inputs():
        low = default if default in (torch.float16, torch.bfloat16) else torch.float16  # the pages' dtypes
        q, k, v = randn(3, 4, 192, dtype=low), randn(80, 2, 192, dtype=low), randn(80, 2, 128, dtype=low)
        idx = torch.tensor([[[1, 0], [0, 1]], [[2, 0], [1, 2]], [[1, 0], [0, 1]]], dtype=torch.int32)
        return low, q, k, v, idx

    def nsa_select_attention():
        low, q, k, v, idx = nsa_inputs()
        out, mx, total = nsa_select(q.float(), k.float(), v.float(), idx)
        return ((q, k, v, idx, 0.07, 4, 16, 2), {"actual_seq_qlen": [2, 3], "actual_seq_kvlen": [48, 80]},
                (out.to(low), mx, total))
    m["npu_nsa_select_attention"] = nsa_select_attention

    def nsa_select_attention_grad():
        # aclnnNsaSelectedAttentionGrad: CPU autograd of the forward above, from its statistics.
        low, q, k, v, idx = nsa_inputs()
        grad = randn(3, 4, 128, dtype=low)
        qd, kd, vd = (x.double().requires_grad_() for x in (q, k, v))
        out, mx, total = nsa_select(qd, kd, vd, idx)
        out.backward(grad.double())
        return ((grad, q, k, v, out.detach().to(low), mx.detach().float(), total.detach().float(), idx, 0.07, 4, 16, 2),
                {"actual_seq_qlen": [2, 3], "actual_seq_kvlen": [48, 80]},
                tuple(x.grad.to(low) for x in (qd, kd, vd)))
    m["npu_nsa_select_attention_grad"] = nsa_select_attention_grad

    def nsa_compress_inputs():
        low = default if default in (torch.float16, torch.bfloat16) else torch.float16  # the pages' dtypes
        return low, randn(88, 2, 16, dtype=low), (randn(32, 2, dtype=torch.float32) / 6).to(low)

    def nsa_windows(x, w):
        # aclnnNsaCompress: per sequence (48 and 40 tokens), the windows of 32 rows every 16, each weighed
        # per head by weight [32, N] and summed (the pages' phi): (48 - 32) // 16 + 1 windows, then (40 - 32) // 16 + 1.
        return torch.stack([torch.einsum("lnd,ln->nd", x[s:s + 32], w) for s in (0, 16, 48)])

    def nsa_compress():
        low, x, w = nsa_compress_inputs()
        return (x, w, 32, 16), {"actual_seq_len": [48, 88]}, nsa_windows(x.float(), w.float()).to(low)
    m["npu_nsa_compress"] = nsa_compress

    def nsa_compress_grad():
        # aclnnNsaCompressGrad: CPU autograd of the windows above.
        low, x, w = nsa_compress_inputs()
        grad = randn(3, 2, 16, dtype=low)
        xd, wd = x.double().requires_grad_(), w.double().requires_grad_()
        nsa_windows(xd, wd).backward(grad.double())
        return (grad, x, w, 32, 16), {"actual_seq_len": [48, 88]}, (xd.grad.to(low), wd.grad.to(low))
    m["npu_nsa_compress_grad"] = nsa_compress_grad

    def nsa_compress_infer_cache():
        # aclnnNsaCompressWithCache: a paged cache of two 64-token blocks per batch; batch 0 (48 tokens) and batch
        # 1 (96) have just filled a window of 32 every 16 ((s - 32) % 16 == 0), batch 2 (50) has not, so its slot
        # keeps the cache's row; token p of batch b is x[table[b, p // 64], p % 64].
        low, _, w = nsa_compress_inputs()
        x = randn(6, 64, 2, 16, dtype=low)
        table = torch.tensor([[4, 0], [1, 5], [2, 3]], dtype=torch.int32)
        slots, cache = torch.tensor([3, 0, 1], dtype=torch.int32), randn(4, 2, 16, dtype=low)
        want = cache.float().clone()
        for b, s in ((0, 48), (1, 96)):
            window = torch.stack([x[table[b, p // 64], p % 64].float() for p in range(s - 32, s)])
            want[slots[b]] = torch.einsum("lnd,ln->nd", window, w.float())
        return ((x, w, slots, 32, 16, 64), {"block_table": table, "actual_seq_len": [48, 96, 50], "cache": cache},
                want.to(low))
    m["npu_nsa_compress_infer.cache"] = nsa_compress_infer_cache

    def nsa_compress_attention_infer():
        # aclnnNsaCompressAttentionInfer (TND, one query token per batch, 4 heads over 2 key/value heads): batch b's
        # 40 and 33 compressed keys, key p row p % 16 of block table[b, p // 16]; P = softmax(scale q K^T), out = P V;
        # per key/value head the importance of select block j < ceil(C / 4) (l'/d = 64/16, l/d = 32/16) is the sum
        # over its two query heads of P[4j - m - i], m < 4, i < 2, an index below 0 adding nothing; topk the 4
        # highest, highest first.
        low = default if default in (torch.float16, torch.bfloat16) else torch.float16  # the page's dtypes
        q, k, v = randn(2, 4, 32, dtype=low), randn(6, 16, 64, dtype=low), randn(6, 16, 32, dtype=low)
        table, lengths = torch.tensor([[4, 0, 2], [1, 5, 3]], dtype=torch.int32), [40, 33]
        out, chosen = torch.zeros(2, 4, 16, dtype=torch.float64), torch.zeros(2, 2, 4, dtype=torch.int32)
        for b, c in enumerate(lengths):
            rows = torch.tensor([int(table[b, p // 16]) * 16 + p % 16 for p in range(c)])
            keys = k.double().reshape(96, 2, 32)[rows].repeat_interleave(2, 1)
            values = v.double().reshape(96, 2, 16)[rows].repeat_interleave(2, 1)
            prob = torch.softmax(0.17 * torch.einsum("nd,cnd->nc", q[b].double(), keys), -1)
            out[b] = torch.einsum("nc,cnd->nd", prob, values)
            importance = torch.tensor([[sum(float(prob[n, 4 * j - m - i]) for n in (2 * h, 2 * h + 1) for m in range(4)
                                            for i in range(2) if 4 * j - m - i >= 0) for j in range(-(-c // 4))]
                                       for h in range(2)])
            chosen[b] = importance.topk(4, -1).indices.int()
        return ((q, k, v, 0.17, 4, 2, 64, 4, 16, 32, 16), {"block_table": table, "actual_cmp_seq_kvlen": lengths},
                (out.to(low), chosen))
    m["npu_nsa_compress_attention_infer"] = nsa_compress_attention_infer

    def nsa_compress_attention():
        # aclnnNsaCompressAttention (TND, sequences of 2 and 3 query tokens over 12 and 9 compressed keys, 4 heads
        # over 2 key/value heads, a mask whose true positions are not attended): attention = softmax(0.2 q K^T,
        # masked) V with its max and sum 8 times; P = softmax(q K^T), unscaled and unmasked as the page writes it, and
        # per key/value head the importance of select block j < ceil(keys / 2) (l'/d = 32/16, l/d = 32/16) the sum
        # over its two heads of P[2j - m - i], m, i < 2, an index below 0 adding nothing; topk the 2 highest.
        low = default if default in (torch.float16, torch.bfloat16) else torch.float16  # the page's dtypes
        q, k, v = randn(5, 4, 32, dtype=low), randn(21, 2, 32, dtype=low), randn(21, 2, 16, dtype=low)
        mask = torch.tensor([[i % 3 == 1 and j > 0 for j in range(12)] for i in range(3)])
        out, mx, total = torch.zeros(5, 4, 16, dtype=torch.float64), torch.zeros(5, 4, 8), torch.zeros(5, 4, 8)
        chosen = torch.zeros(5, 2, 2, dtype=torch.int32)
        for q0, sq, k0, sk in ((0, 2, 0, 12), (2, 3, 12, 9)):
            keys = k[k0:k0 + sk].double().repeat_interleave(2, 1)
            values = v[k0:k0 + sk].double().repeat_interleave(2, 1)
            raw = torch.einsum("tnd,knd->tnk", q[q0:q0 + sq].double(), keys)
            s = (0.2 * raw).masked_fill(mask[:sq, :sk].unsqueeze(1), float("-inf"))
            out[q0:q0 + sq] = torch.einsum("tnk,knd->tnd", s.softmax(-1), values)
            mx[q0:q0 + sq] = s.amax(-1, keepdim=True).float().expand(-1, -1, 8)
            total[q0:q0 + sq] = torch.exp(s - s.amax(-1, keepdim=True)).sum(-1, keepdim=True).float().expand(-1, -1, 8)
            prob = raw.softmax(-1)
            for t in range(sq):
                importance = torch.tensor([[sum(float(prob[t, n, 2 * j - m - i]) for n in (2 * h, 2 * h + 1)
                                                for m in range(2) for i in range(2) if 2 * j - m - i >= 0)
                                            for j in range(-(-sk // 2))] for h in range(2)])
                chosen[q0 + t] = importance.topk(2, -1).indices.int()
        return ((q, k, v, 0.2, 4, 32, 16, 32, 2),
                {"atten_mask": mask, "actual_seq_qlen": [2, 5], "actual_cmp_seq_kvlen": [12, 21],
                 "actual_sel_seq_kvlen": [6, 11]}, (out.to(low), chosen, mx, total))
    m["npu_nsa_compress_attention"] = nsa_compress_attention

    def fusion_attention_bnsd_masked():
        # BNSD, a [S, S] boolean mask (True: not attended), sparse_mode 0, float16: torch_npu's tests' form
        q, k, v = (randn(2, 2, 6, 16, dtype=torch.float16) for _ in range(3))
        mask = torch.ones(6, 6, dtype=torch.bool).triu(1)
        want = attention(q.float(), k.float(), v.float(), 0.25, mask).half()
        return (q, k, v, 2, "BNSD"), {"atten_mask": mask, "scale": 0.25}, (want, None, None, None, None, None, None)
    m["npu_fusion_attention@BNSD_masked"] = fusion_attention_bnsd_masked

    def fusion_attention_grad():
        q, k, v, dy = randn(2, 4, 16), randn(2, 5, 16), randn(2, 5, 16), randn(2, 4, 16)
        leaves = [t.clone().requires_grad_() for t in (q, k, v)]
        out = merge(attention(*(heads(t, 2) for t in leaves), 0.35))
        dq, dk, dv = torch.autograd.grad(out, leaves, dy)

        def run(op, args, kwargs):
            import torch_npu
            forward = torch_npu.npu_fusion_attention(*args[:3], 2, "BSH", scale=0.35)
            return op(*args, softmax_max=forward[1], softmax_sum=forward[2], attention_in=forward[0],
                      scale_value=0.35)
        return (q, k, v, dy, 2, "BSH"), {}, (dq, dk, dv, None, None), run
    m["npu_fusion_attention_grad"] = fusion_attention_grad

    def prompt_flash_attention():
        q, k, v = (randn(*shape, dtype=torch.float16) for shape in ((2, 4, 16), (2, 5, 16), (2, 5, 16)))
        want = merge(attention(heads(q.float(), 2), heads(k.float(), 2), heads(v.float(), 2), 0.25)).half()
        return (q, k, v), {"num_heads": 2, "scale_value": 0.25, "input_layout": "BSH", "next_tokens": 65535}, want
    m["npu_prompt_flash_attention"] = prompt_flash_attention

    def prompt_flash_attention_defaults():
        # next_tokens 0, its default: without a mask sparse_mode 0 ignores the tokens (the page:
        # "如果attenmask未传入则不做mask操作，忽略preTokens和nextTokens")
        args, kwargs, want = prompt_flash_attention()
        del kwargs["next_tokens"]
        return args, kwargs, want
    m["npu_prompt_flash_attention@defaults"] = prompt_flash_attention_defaults

    def incre_flash_attention():
        q, k, v = (randn(*shape, dtype=torch.float16) for shape in ((2, 1, 16), (2, 5, 16), (2, 5, 16)))
        want = merge(attention(heads(q.float(), 2), heads(k.float(), 2), heads(v.float(), 2), 0.25)).half()
        return (q, k, v), {"num_heads": 2, "scale_value": 0.25, "input_layout": "BSH"}, want
    m["npu_incre_flash_attention"] = incre_flash_attention

    def fused_infer_attention_score():
        q, k, v = (randn(*shape, dtype=torch.float16) for shape in ((2, 4, 16), (2, 5, 16), (2, 5, 16)))
        want = merge(attention(heads(q.float(), 2), heads(k.float(), 2), heads(v.float(), 2), 0.25)).half()
        return (q, k, v), {"num_heads": 2, "scale": 0.25, "input_layout": "BSH"}, (want, None)
    m["npu_fused_infer_attention_score"] = fused_infer_attention_score

    def fused_infer_attention_score_v2():
        # aclnnFusedInferAttentionScoreV4 (op_docs/derived): the same computation under the v2 names.
        (q, k, v), _, (want, _) = fused_infer_attention_score()
        return (q, k, v), {"num_query_heads": 2, "softmax_scale": 0.25, "input_layout": "BSH"}, (want, None)
    m["npu_fused_infer_attention_score_v2"] = fused_infer_attention_score_v2

    def gating_softmax_reference(x, k, finished, renorm):
        """The READMEs' formulas in float (ties to the lower expert): renorm 0 the k largest of
        softmax(x) (those of the k largest x), renorm 1 the softmax of the k largest of x; E as a
        finished row's experts."""
        order = torch.sort(x.float(), dim=-1, stable=True, descending=True).indices[..., :k]
        values = x.float().gather(-1, order)
        y = values.softmax(-1) if renorm else x.float().softmax(-1).gather(-1, order)
        if finished is not None:
            order = order.masked_fill(finished.unsqueeze(-1), x.shape[-1])
        return y.to(x.dtype), order.int(), x.float().softmax(-1)

    def moe_gating_top_k_softmax(three_d=False):
        x = randn(2, 3, 8) if three_d else randn(5, 8)
        finished = torch.rand(x.shape[:-1], generator=g) < 0.3
        y, idx, _ = gating_softmax_reference(x, 2, finished, 0)
        rows = x[..., 0].numel()
        row_idx = torch.arange(rows * 2, dtype=torch.int32).reshape(2, rows).t().reshape(idx.shape)
        return (x,), {"finished": finished, "k": 2}, (y, idx, row_idx)
    m["npu_moe_gating_top_k_softmax"] = moe_gating_top_k_softmax
    m["npu_moe_gating_top_k_softmax@3d"] = lambda: moe_gating_top_k_softmax(three_d=True)

    def moe_gating_top_k_softmax_v2(renorm, output_softmax, finished):
        x = randn(2, 3, 16) if finished else randn(6, 16)
        done = torch.rand(x.shape[:-1], generator=g) < 0.3 if finished else None
        y, idx, p = gating_softmax_reference(x, 4, done, renorm)
        softmax = p if output_softmax and renorm == 0 else torch.empty(0)
        return (x,), {"k": 4, "finished": done, "renorm": renorm, "output_softmax": output_softmax}, (y, idx, softmax)
    m["npu_moe_gating_top_k_softmax_v2"] = lambda: moe_gating_top_k_softmax_v2(0, True, False)
    m["npu_moe_gating_top_k_softmax_v2@renorm"] = lambda: moe_gating_top_k_softmax_v2(1, False, True)
    m["npu_moe_gating_top_k_softmax_v2@finished"] = lambda: moe_gating_top_k_softmax_v2(0, False, True)

    def moe_init_routing():
        x = randn(3, 4)
        experts = torch.tensor([[1, 0], [2, 1], [0, 2]], dtype=torch.int32)
        rows = torch.arange(6, dtype=torch.int32).reshape(2, 3).t().contiguous()
        # Sorted by expert (stable over the flattened (row, k) order); each slot the row it reads.
        order = torch.sort(experts.flatten().long(), stable=True).indices
        flat_rows = rows.flatten().long()
        expanded = x[flat_rows[order] % 3]
        # expandedRowIdx[sortedRowIdx[i]] = i: where each (row, slot) went.
        row_idx = torch.empty(6, dtype=torch.int32).index_put_((flat_rows[order],), torch.arange(6, dtype=torch.int32))
        return (x, rows, experts, 3), {}, (expanded, row_idx, experts.flatten()[order])
    m["npu_moe_init_routing"] = moe_init_routing

    def moe_init_routing_v2_call(quant_mode, tokens_type, row_idx_type, smooth):
        """aclnnMoeInitRoutingV3's dropless routing (the modes its page supports) of 5 rows to 3 of
        8 experts, those of [2, 6) kept; compared where the page defines the outputs (the first
        available rows; the key_value pairs up to their (0, 0))."""
        rows, k, hidden, expert_num, start, end = 5, 3, 8, 8, 2, 6
        x = randn(rows, hidden)
        experts = torch.randint(0, expert_num, (rows, k), generator=g, dtype=torch.int32)
        per_row = torch.rand(rows, generator=g) + 0.5
        per_expert = torch.rand(end - start, hidden, generator=g) + 0.5
        scale = (per_expert if quant_mode == 1 else per_row) if smooth else None
        # The page's keyValueSort, expert by expert: within one, the pairs j = r * k + s in order.
        kept = [j for e in range(start, end) for j in range(rows * k) if experts.flatten()[j] == e]
        n = len(kept)
        source = x[[j // k for j in kept]]
        if quant_mode == 1:
            v = source.float() * (per_expert[[int(experts.flatten()[j]) - start for j in kept]] if smooth else 1)
            expanded_scale = v.abs().amax(-1) / 127
            expanded_x = torch.round(v / expanded_scale[:, None]).clamp(-128, 127).to(torch.int8)
        else:
            expanded_x, expanded_scale = source, per_row[[j // k for j in kept]] if smooth else None
        positions = torch.tensor(kept, dtype=torch.int32)
        if row_idx_type == 0:  # gather: each pair's slot, -1 for the pairs of other experts
            row_idx = torch.full((rows * k,), -1, dtype=torch.int32).index_put_((positions.long(),),
                                                                                torch.arange(n, dtype=torch.int32))
        else:  # scatter: each slot's pair
            row_idx = positions
        counts = torch.tensor([int((experts == e).sum()) for e in range(start, end)])
        if tokens_type == 1:
            tokens = counts
        else:
            tokens = torch.tensor([[e, c] for e, c in zip(range(start, end), counts.tolist()) if c] + [[0, 0]])
        kwargs = {"scale": scale, "active_num": rows * k, "expert_num": expert_num, "expert_tokens_num_type": tokens_type,
                  "expert_tokens_num_flag": True, "quant_mode": quant_mode, "active_expert_range": [start, end],
                  "row_idx_type": row_idx_type}

        def run(op, args, kwargs):
            out_x, out_idx, out_tokens, out_scale = op(*args, **kwargs)
            return (out_x[:n], out_idx if row_idx_type == 0 else out_idx[:n], out_tokens[:len(tokens)],
                    out_scale[:n])
        return (x, experts), kwargs, (expanded_x, row_idx, tokens, expanded_scale), run
    m["npu_moe_init_routing_v2"] = lambda: moe_init_routing_v2_call(-1, 1, 0, smooth=True)
    m["npu_moe_init_routing_v2@quant_key_value"] = lambda: moe_init_routing_v2_call(1, 2, 1, smooth=True)
    m["npu_moe_init_routing_v2@quant_unscaled"] = lambda: moe_init_routing_v2_call(1, 1, 1, smooth=False)

    def moe_finalize_routing():
        rows, k, h = 3, 2, 4
        expanded = randn(rows * k, h)
        skip1, bias, scales = randn(rows, h), randn(3, h), randn(rows, k)
        dst = torch.randperm(rows * k, generator=g).int()
        experts = torch.tensor([[1, 0], [2, 1], [0, 2]], dtype=torch.int32)
        want = skip1.clone()
        for r in range(rows):
            for j in range(k):
                want[r] += scales[r, j] * (expanded[dst[j * rows + r]] + bias[experts[r, j]])
        return (expanded, skip1, None, bias, scales, dst, experts), {}, want
    m["npu_moe_finalize_routing"] = moe_finalize_routing
    # k given (2, what scales' columns already say): op-plugin passes it to aclnnMoeFinalizeRoutingV4
    # alone and refuses it by name where the library has only V2 (no V4 page in the corpus): the
    # same reference once V4 computes.
    m["npu_moe_finalize_routing@k2"] = lambda: (lambda a, k, w: (a, {"k": 2}, w))(*moe_finalize_routing())

    # npu_ffn (aclnnFFNV2; the FFN README's non-quantised formula y = activation(x @ W1 + b1) @ W2 + b2 in
    # float32, y rounded once): one expert over a 3-d x, or x's rows split among experts by counts
    # (expert_tokens) or cumulative ends (expert_tokens_index), an empty expert among them.
    ffn_activations = {"gelu": lambda h: F.gelu(h, approximate="tanh"), "fastgelu": lambda h: h / (1 + torch.exp(-1.702 * h)),
                       "relu": torch.relu, "silu": F.silu}

    def ffn(activation, dtype, ends=None, index=False, inner_precise=0):
        k1, n1 = 16, 8
        experts = len(ends) if ends else 1
        x = randn(2, 5, k1, dtype=dtype) if not ends else randn(ends[-1], k1, dtype=dtype)
        w1, w2 = randn(experts, k1, n1, dtype=dtype) / 4, randn(experts, n1, k1, dtype=dtype) / 3
        b1, b2 = randn(experts, n1, dtype=torch.float32), randn(experts, k1, dtype=torch.float32)
        rows = x.float().reshape(-1, k1)
        want = torch.zeros(rows.shape[0], k1)
        for e, (start, end) in enumerate(zip([0] + (ends or [rows.shape[0]])[:-1], ends or [rows.shape[0]])):
            want[start:end] = ffn_activations[activation](rows[start:end] @ w1[e].float() + b1[e]) @ w2[e].float() + b2[e]
        kwargs = {"bias1": b1 if ends else b1[0], "bias2": b2 if ends else b2[0], "inner_precise": inner_precise}
        if ends:
            kwargs["expert_tokens_index" if index else "expert_tokens"] = ends if index else \
                [b - a for a, b in zip([0] + ends[:-1], ends)]
        else:
            w1, w2 = w1[0], w2[0]
        return (x, w1, w2, activation), kwargs, want.reshape(*x.shape[:-1], k1).to(dtype)
    m["npu_ffn"] = lambda: ffn("fastgelu", torch.float16, inner_precise=1)
    m["npu_ffn@experts"] = lambda: ffn("silu", torch.float16, ends=[3, 3, 7])
    m["npu_ffn@index"] = lambda: ffn("gelu", torch.bfloat16, ends=[2, 6, 6], index=True)
    m["npu_ffn@relu"] = lambda: ffn("relu", torch.float16, ends=[4, 5], index=True)

    # npu_grouped_matmul_finalize_routing: its pages are bound without a kernel (semantics/matmul.toml says why): an
    # A8W8 call (INT8 x and weight, FLOAT scale and per-token scale, logit, rowIndex) is refused, never computed.
    def grouped_matmul_finalize_routing():
        x = torch.randint(-8, 8, (4, 16), generator=g, dtype=torch.int8)
        w = torch.randint(-8, 8, (2, 16, 8), generator=g, dtype=torch.int8)
        kwargs = {"scale": torch.rand(2, 8, generator=g), "pertoken_scale": torch.rand(4, generator=g),
                  "logit": torch.rand(4, generator=g), "row_index": torch.tensor([1, 0, 3, 2]), "group_list_type": 1}
        return (x, w, torch.tensor([3, 1])), kwargs, None
    m["npu_grouped_matmul_finalize_routing"] = grouped_matmul_finalize_routing

    def moe_gating_top_k(group_select_mode):
        # aclnnMoeGatingTopK (op-plugin's route without input_ids and tid2eid), its page's formula in
        # float: sigmoid scores; 4 groups of 4 experts, each scored by its max (mode 0) or the sum of
        # its two largest (1); the 2 best groups kept, the 4 best experts of those (ties: the lower);
        # y renormalised over the 4 and scaled by 1.5; outOut the sigmoid (out_flag).
        x = randn(5, 16, dtype=torch.float32)
        scores = torch.sigmoid(x)
        grouped = scores.reshape(5, 4, 4)
        group_scores = grouped.max(-1).values if group_select_mode == 0 else grouped.topk(2, -1).values.sum(-1)
        keep = torch.zeros(5, 4, dtype=torch.bool).scatter_(1, group_scores.topk(2, -1).indices, True)
        weights, experts = scores.masked_fill(~keep.repeat_interleave(4, 1), -1.0).topk(4, -1)
        y = weights / (weights.sum(-1, keepdim=True) + 1e-20) * 1.5
        kwargs = {"k_group": 2, "group_count": 4, "group_select_mode": group_select_mode, "renorm": 0,
                  "norm_type": 1, "out_flag": True, "routed_scaling_factor": 1.5, "eps": 1e-20}
        return (x, 4), kwargs, (y, experts.int(), scores)
    m["npu_moe_gating_top_k"] = lambda: moe_gating_top_k(1)
    m["npu_moe_gating_top_k@group_max"] = lambda: moe_gating_top_k(0)

    def rounded_int8(v):
        """INT8 of float values, half to even, saturated (the quantisers' rint)."""
        return torch.round(v).clamp(-128, 127).to(torch.int8)

    def gelu_quant(quant_mode, approximate):
        # aclnnGeluQuant: g = GELU(x) (erf, or tanh), then static y = rint(g * scale + offset) with
        # scale and offset along the last dimension, or dynamic per row: v = g * scale,
        # outScale = max|v| / 127, y = rint(v / outScale).
        x = randn(3, 8, dtype=torch.float32)
        scale, offset = torch.rand(8, generator=g) * 40 + 10, torch.randn(8, generator=g)
        gelu = F.gelu(x.double(), approximate=approximate)
        if quant_mode == "static":
            want = (rounded_int8(gelu * scale.double() + offset.double()), None)
            return (x,), {"input_scale": scale, "input_offset": offset, "approximate": approximate,
                          "quant_mode": "static"}, want
        v = gelu * scale.double()
        out_scale = v.abs().amax(-1) / 127
        return (x,), {"input_scale": scale, "approximate": approximate, "quant_mode": "dynamic"}, \
            (rounded_int8(v / out_scale[:, None]), out_scale.float())
    m["npu_gelu_quant"] = lambda: gelu_quant("dynamic", "none")
    m["npu_gelu_quant@static_tanh"] = lambda: gelu_quant("static", "tanh")

    def dequant_bias():
        # aclnnDequantBias without bias: y = x * weightScale (per column) * activateScale (per row), FLOAT16.
        x = torch.randint(-3000, 3000, (4, 6), generator=g, dtype=torch.int32)
        weight_scale, activation_scale = torch.rand(6, generator=g) / 100, torch.rand(4, generator=g) + 0.5
        want = (x.double() * weight_scale.double() * activation_scale.double()[:, None]).half()
        return (x, weight_scale, activation_scale, None), {"output_dtype": torch.float16}, want
    m["npu_dequant_bias"] = dequant_bias

    def fused_matmul(fused_op_type):
        # aclnnFusedMatmul: x1 @ x2 (+ bias), then fusedOpType's step: "add" and "mul" x3, "relu",
        # "gelu_tanh", "gelu_erf".
        x1, x2, x3 = randn(3, 8, dtype=torch.float16), randn(8, 5, dtype=torch.float16), randn(3, 5, dtype=torch.float16)
        product = x1.float() @ x2.float()
        step = {"add": lambda p: p + x3.float(), "mul": lambda p: p * x3.float(), "relu": torch.relu,
                "gelu_tanh": lambda p: F.gelu(p, approximate="tanh"), "gelu_erf": F.gelu}[fused_op_type]
        x3 = x3 if fused_op_type in ("add", "mul") else None
        return (x1, x2), {"x3": x3, "fused_op_type": fused_op_type}, step(product).half()
    m["npu_fused_matmul"] = lambda: fused_matmul("add")
    m["npu_fused_matmul@mul"] = lambda: fused_matmul("mul")
    m["npu_fused_matmul@gelu_tanh"] = lambda: fused_matmul("gelu_tanh")
    m["npu_fused_matmul@relu"] = lambda: fused_matmul("relu")

    def batch_gather_matmul():
        # aclnnAddLora (punica's bgmv): row b of x through weightA[indices[b], layer] and
        # weightB[indices[b], layer], scaled, added to y's columns [yOffset, yOffset + ySliceSize).
        batch, h1, rank, h2, width, layers = 3, 8, 4, 6, 2, 2
        y, x = randn(batch, 10, dtype=torch.float16), randn(batch, h1, dtype=torch.float16)
        weight_a = randn(width, layers, rank, h1, dtype=torch.float16)
        weight_b = randn(width, layers, h2, rank, dtype=torch.float16)
        indices = torch.tensor([1, 0, 1], dtype=torch.int32)
        want = y.float().clone()
        for b in range(batch):
            z1 = weight_a[indices[b], 1].float() @ x[b].float()
            want[b, 3:3 + h2] += weight_b[indices[b], 1].float() @ z1 * 0.5
        kwargs = {"weight_a": weight_a, "layer_idx": 1, "scale": 0.5, "y_offset": 3, "y_slice_size": h2}

        def run(op, args, kwargs):
            # op-plugin's out-of-place form computes into a tensor of its own and returns its input y
            # (on an NPU too): the product is read from the in-place form, and the other checked for
            # leaving y as it was.
            returned = op(*args, **kwargs).cpu()
            return torch.ops.npu.npu_batch_gather_matmul_(*args, **kwargs), returned
        return (y, x, weight_b, indices), kwargs, (want.half(), y), run
    m["npu_batch_gather_matmul"] = batch_gather_matmul

    def rms_norm_quant_v2(div_mode, grad=True):
        # aclnnRmsNormQuantV3: q = x / Rms(x) * gamma + beta, y = rint(q / scale + offset) (divMode),
        # rint(q * scale + offset) without; scale and offset along the last dimension.
        # x requires grad: op-plugin then asks for rstd [3, 1] (outputRstd); without, it passes an empty
        # rstd with outputRstd false, which the page's row refuses (不支持空Tensor) and op-plugin returns
        # as it is: admitted (semantics/norm_dynamic_quant.toml's client_empty), left empty.
        x, gamma, beta = randn(3, 8, dtype=torch.float32), randn(8, dtype=torch.float32), randn(8, dtype=torch.float32)
        x.requires_grad_(grad)
        scale = torch.rand(8, generator=g) / 20 + 0.01 if div_mode else torch.rand(8, generator=g) * 40 + 10
        offset = torch.randn(8, generator=g)
        rstd = rstd_of(x.detach(), 1e-6)
        q = x.detach().double() * rstd.double() * gamma.double() + beta.double()
        y = rounded_int8((q / scale.double() if div_mode else q * scale.double()) + offset.double())
        return (x, gamma, scale), {"offset": offset, "beta": beta, "epsilon": 1e-6, "div_mode": div_mode}, (
            y, rstd if grad else torch.empty(0))
    m["npu_rms_norm_quant_v2"] = lambda: rms_norm_quant_v2(True)
    m["npu_rms_norm_quant_v2@inference"] = lambda: rms_norm_quant_v2(True, grad=False)
    m["npu_rms_norm_quant_v2@multiply"] = lambda: rms_norm_quant_v2(False)

    def add_rms_norm_dynamic_quant(both, mask=None):
        # aclnnAddRmsNormDynamicQuantV2: x = x1 + x2, q = x / Rms(x) * gamma, then per row and
        # smoothing factor s: v = q * s, scale = max|v| / 127, y = rint(v / scale); the second pair
        # written when both smoothing factors are given, or as output_mask says (op-plugin passes
        # the pair not asked for as 0-d tensors, left alone).
        # FLOAT16 (the page's A2 rows have no FLOAT x); the smoothing factors x's dtype.
        x1, x2, gamma = randn(3, 8, dtype=torch.float16), randn(3, 8, dtype=torch.float16), randn(8, dtype=torch.float16)
        smooths = [(torch.rand(8, generator=g) + 0.5).half() for _ in range(2 if both else 1)]
        x = x1 + x2
        q = x.double() * rstd_of(x, 1e-6).double() * gamma.double()
        ys, scales = [], []
        for s_ in smooths:
            v = q * s_.double()
            scale = v.abs().amax(-1) / 127
            ys.append(rounded_int8(v / scale[:, None]))
            scales.append(scale.float())
        written = mask or (True, both)
        want = (ys[0] if written[0] else None, ys[1] if written[1] else None, x,
                scales[0] if written[0] else None, scales[1] if written[1] else None)
        kwargs = {"smooth_scale1": smooths[0], "smooth_scale2": smooths[1] if both else None, "epsilon": 1e-6,
                  "output_mask": list(mask) if mask else None}
        return (x1, x2, gamma), kwargs, want
    m["npu_add_rms_norm_dynamic_quant"] = lambda: add_rms_norm_dynamic_quant(False)
    m["npu_add_rms_norm_dynamic_quant@two_smooths"] = lambda: add_rms_norm_dynamic_quant(True)
    m["npu_add_rms_norm_dynamic_quant@second_only"] = lambda: add_rms_norm_dynamic_quant(True, (False, True))

    def moe_compute_expert_tokens():
        sorted_experts = torch.tensor([0, 0, 1, 3, 3, 3], dtype=torch.int32)
        # The running count: position after the last token of each expert.
        counts = torch.bincount(sorted_experts.long(), minlength=4).cumsum(0)
        return (sorted_experts, 4), {}, counts.to(torch.int32)
    m["npu_moe_compute_expert_tokens"] = moe_compute_expert_tokens

    def moe_token_pairs():
        """4 tokens to 2 of 3 experts each (one token's two the same): the pairs sorted by expert,
        stably, and each pair's permuted row (its rank), as the READMEs and torch_npu's documentation
        give them."""
        tokens, indices = randn(4, 3), torch.tensor([[0, 2], [2, 1], [1, 1], [0, 2]])
        order = torch.sort(indices.flatten(), stable=True).indices
        rank = torch.empty(8, dtype=torch.int32).index_put_((order,), torch.arange(8, dtype=torch.int32))
        return tokens, indices, order, rank

    def moe_token_permute():
        tokens, indices, order, rank = moe_token_pairs()
        return (tokens, indices), {"num_out_tokens": 6}, (tokens[order[:6] // 2], rank)
    m["npu_moe_token_permute"] = moe_token_permute

    def moe_token_unpermute():
        tokens, indices, order, rank = moe_token_pairs()
        permuted, probs = tokens[order // 2], torch.rand(4, 2, generator=g)
        # Each token's two rows back from their ranks, weighed: probs[t, 0] + probs[t, 1] of its own row.
        return (permuted, rank), {"probs": probs}, tokens * probs.sum(1, keepdim=True)
    m["npu_moe_token_unpermute"] = moe_token_unpermute

    def private_moe_token_unpermute():
        # _npu_moe_token_unpermute, the call under npu_moe_token_unpermute and its autograd: the same
        # unpermuted tokens and, with probs, the permuted tokens themselves kept for the backward.
        args, kwargs, want = moe_token_unpermute()
        return args, kwargs, (want, args[0])
    m["_npu_moe_token_unpermute"] = private_moe_token_unpermute

    def moe_token_permute_grad():
        tokens, indices, order, rank = moe_token_pairs()
        grad = randn(8, 3)
        return (tokens, grad, indices, rank), {}, grad[rank.long()].reshape(4, 2, 3).sum(1)
    m["npu_moe_token_permute_grad"] = moe_token_permute_grad

    def moe_token_unpermute_grad():
        tokens, indices, order, rank = moe_token_pairs()
        permuted, probs, grad = tokens[order // 2], torch.rand(4, 2, generator=g), randn(4, 3)
        permuted_grad = torch.zeros(8, 3).index_put_((rank.long(),), (grad[:, None] * probs[..., None]).reshape(8, 3))
        probs_grad = (grad[:, None] * tokens[:, None]).sum(-1).expand(4, 2)
        return (permuted, grad, rank), {"probs": probs}, (permuted_grad, probs_grad)
    m["npu_moe_token_unpermute_grad"] = moe_token_unpermute_grad

    def moe_routing_map():
        """3 tokens to 2 of 3 experts each by a routing map: the marked pairs expert-major, sorted_indices
        their stable argsort by token (the README's masked select and argSort)."""
        tokens, probs = randn(3, 4), torch.rand(3, 3, generator=g)
        routing_map = torch.tensor([[1, 0, 1], [0, 1, 1], [1, 1, 0]], dtype=torch.bool)
        pairs = [(0, 0), (2, 0), (1, 1), (2, 1), (0, 2), (1, 2)]
        order = torch.tensor([0, 4, 2, 5, 1, 3], dtype=torch.int32)
        return tokens, probs, routing_map, pairs, order

    def moe_token_permute_with_routing_map():
        tokens, probs, routing_map, pairs, order = moe_routing_map()
        want = (tokens[[t for t, _ in pairs]], torch.stack([probs[t, e] for t, e in pairs]), order)
        return (tokens, routing_map), {"probs": probs, "num_out_tokens": 6}, want
    m["npu_moe_token_permute_with_routing_map"] = moe_token_permute_with_routing_map

    def moe_token_unpermute_with_routing_map():
        tokens, probs, routing_map, pairs, order = moe_routing_map()
        permuted = tokens[[t for t, _ in pairs]]
        # Each token's rows back, weighed by the probs its map marks.
        want = tokens * (probs * routing_map).sum(1, keepdim=True)
        return (permuted, order, [3, 4]), {"probs": probs, "routing_map": routing_map}, want
    m["npu_moe_token_unpermute_with_routing_map"] = moe_token_unpermute_with_routing_map

    def moe_token_permute_with_routing_map_grad():
        # The forward's adjoint: a token's gradient the sum of its rows', the probs' back at the cells the
        # map marks (expert-major, as they were selected).
        tokens, probs, routing_map, pairs, order = moe_routing_map()
        grad, probs_grad = randn(6, 4), torch.rand(6, generator=g)
        want_probs = torch.zeros(3, 3)
        for p, (t, e) in enumerate(pairs):
            want_probs[t, e] = probs_grad[p]
        want = (grad[order.long()].reshape(3, 2, 4).sum(1), want_probs)
        return (grad, probs_grad, order, routing_map, 3, 3, False), {}, want
    m["npu_moe_token_permute_with_routing_map_grad"] = moe_token_permute_with_routing_map_grad

    def moe_token_unpermute_with_routing_map_grad():
        # As torch_npu's autograd calls it: the forward's sorted_indices as out_index and permuted_token_id.
        # Row order[i] gets token i // 2's gradient weighed by its prob; a prob's gradient is its row's (its
        # token's) dot product with the token's gradient.
        tokens, probs, routing_map, pairs, order = moe_routing_map()
        permuted, grad = tokens[[t for t, _ in pairs]], randn(3, 4)
        permuted_grad = torch.zeros(6, 4)
        for i, row in enumerate(order.tolist()):
            permuted_grad[row] = grad[i // 2] * probs[pairs[row]]
        want_probs = (grad * tokens).sum(1, keepdim=True) * routing_map
        return ((grad, order, order, routing_map, permuted, probs, False, [3, 4]), {}, (permuted_grad, want_probs))
    m["npu_moe_token_unpermute_with_routing_map_grad"] = moe_token_unpermute_with_routing_map_grad

    def moe_re_routing():
        # 2 ranks x 3 experts: rank-major blocks [0:2] [2:2] [2:3] | [3:4] [4:6] [6:6] moved expert-major.
        tokens, counts, scales = randn(6, 4, dtype=torch.float16), torch.tensor([[2, 0, 1], [1, 2, 0]]), torch.rand(6, generator=g)
        order = [0, 1, 3, 4, 5, 2]
        return (tokens, counts), {"per_token_scales": scales}, (tokens[order], scales[order],
                                                                torch.tensor(order, dtype=torch.int32), counts.sum(0))
    m["npu_moe_re_routing"] = moe_re_routing

    def grouped_matmul():
        xs, ws = [randn(3, 8), randn(2, 8)], [randn(8, 5), randn(8, 6)]
        return (xs, ws), {"split_item": 0, "group_type": -1}, [a @ b for a, b in zip(xs, ws)]
    m["npu_grouped_matmul"] = grouped_matmul

    def grouped_matmul_int8():
        # The quantised MoE form (README): y_i = (x_i @ weight_i + bias_i) * scale_i * per_token_scale_i, x's 7
        # rows grouped by the cumulative ends [2, 2, 6] (an empty group, a row past the last), the INT8 product
        # and INT32 bias exact, scaled in float32, BFLOAT16 out for a BFLOAT16 scale.
        x = torch.randint(-128, 128, (7, 32), generator=g, dtype=torch.int8)
        w = torch.randint(-128, 128, (3, 32, 5), generator=g, dtype=torch.int8)
        bias = torch.randint(-1000, 1000, (3, 5), generator=g, dtype=torch.int32)
        scale, token = (torch.rand(3, 5, generator=g) / 1000).bfloat16(), torch.rand(7, generator=g) + 0.5
        want = torch.zeros(7, 5)
        for i, (start, end) in enumerate(((0, 2), (2, 2), (2, 6))):
            acc = x[start:end].long() @ w[i].long() + bias[i].long()
            want[start:end] = acc.float() * scale[i].float() * token[start:end, None]
        return (([x], [w]), {"bias": [bias], "scale": [scale], "per_token_scale": [token], "group_list": torch.tensor([2, 2, 6]),
                             "split_item": 3, "group_type": 0, "output_dtype": torch.bfloat16}, [want.bfloat16()])
    m["npu_grouped_matmul@int8"] = grouped_matmul_int8

    def grouped_matmul_antiquant():
        # The antiquantised form (A16W8, README): y_i = x_i @ ((weight_i + antiquant_offset_i) * antiquant_scale_i)
        # per column, x's 7 FLOAT16 rows grouped by the cumulative ends [2, 2, 6] (an empty group, a row past the
        # last: zeros), the INT8 weight dequantised in float32, FLOAT16 out.
        x = randn(7, 32, dtype=torch.float16)
        w = torch.randint(-128, 128, (3, 32, 5), generator=g, dtype=torch.int8)
        scale = (torch.rand(3, 5, generator=g) / 50).half()
        offset = torch.randint(-8, 8, (3, 5), generator=g).half()
        want = torch.zeros(7, 5)
        for i, (start, end) in enumerate(((0, 2), (2, 2), (2, 6))):
            want[start:end] = x[start:end].float() @ ((w[i].float() + offset[i].float()) * scale[i].float())
        return (([x], [w]), {"antiquant_scale": [scale], "antiquant_offset": [offset], "group_list": torch.tensor([2, 2, 6]),
                             "split_item": 3, "group_type": 0}, [want.half()])
    m["npu_grouped_matmul@antiquant"] = grouped_matmul_antiquant

    def grouped_matmul_int4():
        # A16W4: the antiquantised form of INT4 weights, passed as the INT32 words npu_convert_weight_to_int4pack
        # makes ([3, 32, 16 / 8] for 16 columns), x's 7 rows grouped by the cumulative ends [2, 2, 6].
        x = randn(7, 32, dtype=torch.float16)
        w = torch.randint(-8, 8, (3, 32, 16), generator=g, dtype=torch.int32)
        scale = (torch.rand(3, 16, generator=g) / 10 + 0.01).half()
        want = torch.zeros(7, 16)
        for i, (start, end) in enumerate(((0, 2), (2, 2), (2, 6))):
            want[start:end] = x[start:end].float() @ (w[i].float() * scale[i].float())
        return (([x], [int4pack(w)]), {"antiquant_scale": [scale], "group_list": torch.tensor([2, 2, 6]),
                                       "split_item": 3, "group_type": 0}, [want.half()])
    m["npu_grouped_matmul@int4"] = grouped_matmul_int4

    def grouped_matmul_list():
        # The List overload (aclnnGroupedMatmul): x's 7 rows grouped by the cumulative ends [2, 2, 6], one output.
        x, ws = randn(7, 8), [randn(8, 5) for _ in range(3)]
        want = torch.cat([x[0:2] @ ws[0], x[2:2] @ ws[1], x[2:6] @ ws[2], torch.zeros(1, 5)])

        def run(op, args, kwargs):
            return torch.ops.npu.npu_grouped_matmul.List(*args, **kwargs)
        return ([x], ws), {"group_list": [2, 2, 6], "split_item": 3, "group_type": 0}, [want], run
    m["npu_grouped_matmul@list"] = grouped_matmul_list

    def grouped_matmul_add():
        # K = 8 split [0, 3), [3, 3) (empty), [3, 8): each group's x rows transposed times its weight rows, added.
        y, x, weight = randn(3, 2, 4, dtype=torch.float32), randn(8, 2, dtype=torch.float16), randn(8, 4, dtype=torch.float16)
        want = y.clone()
        for i, (start, end) in enumerate(((0, 3), (3, 3), (3, 8))):
            want[i] += x[start:end].float().t() @ weight[start:end].float()
        return (y, x, weight, torch.tensor([3, 3, 8])), {}, want
    m["npu_grouped_matmul_add"] = grouped_matmul_add

    def grouped_matmul_swiglu_quant():
        # aclnnGroupedMatmulSwigluQuantWeightNZ (the GroupedMatmulSwigluQuant README): expert i's rows [ends[i - 1],
        # ends[i]) times weight[i] exactly, * x_scale * weight_scale[i], Swish(left half) * right half, per-row
        # Q_scale = max|S| / 127 and Q = round(S / Q_scale); rows past the last end are not written (unchecked).
        x = torch.randint(-128, 128, (8, 32), generator=g, dtype=torch.int8)
        w = torch.randint(-128, 128, (3, 32, 16), generator=g, dtype=torch.int8)
        ws, xs = torch.rand(3, 16, generator=g) * 0.01 + 0.001, torch.rand(8, generator=g) * 0.01 + 0.001
        ends = [3, 3, 8]
        group = torch.searchsorted(torch.tensor(ends), torch.arange(8), right=True)
        c = torch.einsum("mk,mkn->mn", x.double(), w.double()[group]).float() * xs[:, None] * ws[group]
        act, gate = c.chunk(2, -1)
        s = torch.nn.functional.silu(act) * gate
        scale = s.abs().amax(-1) / 127
        q = torch.clamp(torch.round(s / scale[:, None]), -128, 127).to(torch.int8)
        return (x, w, torch.tensor(ends), ws, xs), {}, (q, scale, None)
    m["npu_grouped_matmul_swiglu_quant"] = grouped_matmul_swiglu_quant

    def mla_prolog(version):
        # aclnnMlaProlog (through the aclop MlaProlog) / V2WeightNz / V3WeightNz (the pages' non-quantised formula, exact.mla_prolog of the generated
        # suites' goldens): the three weights npu_format_cast to FRACTAL_NZ as torch_npu's documentation does, the
        # pages' fixed sizes (He 7168, Hcq 1536, D 128, Dr 64, Hckv 512) with N 2, the caches written in place.
        import torch_npu

        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "runtime" / "python" / "tests"))
        from _goldens import exact

        def uniform(*shape, bound=1.0):
            return ((torch.rand(*shape, generator=g) * 2 - 1) * bound).to(torch.bfloat16)

        x = uniform(2, 1, 7168)
        weights = (uniform(7168, 1536, bound=0.05), uniform(1536, 2 * 192, bound=0.05), uniform(2, 128, 512, bound=0.1),
                   uniform(7168, 576, bound=0.05))
        gammas, sin, cos = (uniform(1536) + 1, uniform(512) + 1), uniform(2, 1, 64), uniform(2, 1, 64)
        index, caches = torch.tensor([[3], [20]]), (uniform(2, 16, 1, 512), uniform(2, 16, 1, 64))
        kv, kr, query, query_rope = exact.mla_prolog(x, *weights, *gammas, sin, cos, index, *caches, 1e-5, 1e-5, "PA_BSND")

        def run(op, a, k):
            torch.npu.config.allow_internal_format = True
            nz = [torch_npu.npu_format_cast(w.contiguous(), 29) for w in (a[1], a[2], a[4])]
            tensors = (a[0], nz[0], nz[1], a[3], nz[2]) + tuple(a[5:9])
            if version in (1, 2):  # V1 (the aclop MlaProlog) returns new caches, V2 updates them in place too
                return op(*tensors, a[9], a[10], a[11], **k)
            outs = op(*tensors, a[10], a[11], cache_index=a[9], **k)
            if version == 4:  # V3's functional form returns the updated caches last, its inputs left as they were
                return outs[0], outs[1], outs[5], outs[6]
            return outs[0], outs[1], a[10], a[11]  # V3 updates the caches in place and returns neither

        args = (x, *weights, *gammas, sin, cos, index, *caches)
        return args, {"cache_mode": "PA_BSND"}, (query, query_rope, kv, kr), run
    m["npu_mla_prolog"] = functools.partial(mla_prolog, 1)
    m["npu_mla_prolog_v2"] = functools.partial(mla_prolog, 2)
    m["npu_mla_prolog_v3"] = functools.partial(mla_prolog, 3)
    m["npu_mla_prolog_v3_functional"] = functools.partial(mla_prolog, 4)

    def quant_matmul():
        a = torch.randint(-8, 8, (3, 16), generator=g, dtype=torch.int8)
        b = torch.randint(-8, 8, (16, 5), generator=g, dtype=torch.int8)
        scale = torch.rand(5, generator=g) + 0.5
        want = (a.float() @ b.float() * scale).half()
        return (a, b, scale), {"output_dtype": torch.float16}, want
    m["npu_quant_matmul"] = quant_matmul

    def one_rank_hcom():
        # The name op-plugin's mc2 operators take (hcom): torch.distributed's HCCL group of world size 1,
        # made once per worker, as torch_npu's own mc2 tests get it.
        import socket

        import torch.distributed as dist
        if not dist.is_initialized():
            with socket.socket() as probe:  # a free port of this machine: workers may overlap
                probe.bind(("127.0.0.1", 0))
                os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(probe.getsockname()[1]))
            torch.npu.set_device(0)  # as torch_npu's documented mc2 example does first
            dist.init_process_group("hccl", rank=0, world_size=1)
        return dist.distributed_c10d._get_default_group()._get_backend(torch.device("npu")).get_hccl_comm_name(0)

    def mm_all_reduce_base():  # aclnnMatmulAllReduce: one rank's all-reduce is its own x1 @ x2 + bias
        x1, x2, bias = randn(2, 3, 16, dtype=torch.float16), randn(16, 8, dtype=torch.float16), randn(8, dtype=torch.float16)
        want = (x1.float() @ x2.float() + bias.float()).half()
        return (x1, x2, one_rank_hcom()), {"bias": bias}, want
    m["npu_mm_all_reduce_base"] = mm_all_reduce_base

    def mm_all_reduce_base_x3():  # aclnnMatmulAllReduceV2: x3 added after the all-reduce
        x1, x2, x3 = randn(6, 16, dtype=torch.bfloat16), randn(16, 8, dtype=torch.bfloat16), randn(6, 8, dtype=torch.bfloat16)
        want = (x1.float() @ x2.float() + x3.float()).bfloat16()
        return (x1, x2, one_rank_hcom()), {"x3": x3}, want
    m["npu_mm_all_reduce_base@x3"] = mm_all_reduce_base_x3

    def mm_all_reduce_base_quant():  # aclnnQuantMatmulAllReduce: (x1 @ x2 + bias) * dequant_scale, BFLOAT16
        a = torch.randint(-8, 8, (4, 16), generator=g, dtype=torch.int8)
        b = torch.randint(-8, 8, (16, 8), generator=g, dtype=torch.int8)
        bias = torch.randint(-100, 100, (8,), generator=g, dtype=torch.int32)
        scale = (torch.rand(8, generator=g) * 0.01 + 0.001).bfloat16()
        want = ((a.double() @ b.double() + bias.double()).float() * scale.float()).bfloat16()
        return (a, b, one_rank_hcom()), {"bias": bias, "dequant_scale": scale}, want
    m["npu_mm_all_reduce_base@quant"] = mm_all_reduce_base_quant

    def quant_matmul_dequant():
        # aclnnQuantMatmulDequant (Ascend310P only): x * smooth quantised per row by max|x| / 127, round half
        # to even, times weight^T exactly, then * weight_scale[n] * the row's scale.
        x, smooth = randn(4, 32, dtype=torch.float16), (torch.rand(32, generator=g) + 0.5).half()
        weight = torch.randint(-127, 128, (16, 32), generator=g, dtype=torch.int8)
        scale = (torch.rand(16, generator=g) + 0.5) / 100
        xs = x.float() * smooth.float()
        row = xs.abs().amax(-1, keepdim=True) / 127
        want = ((torch.round(xs / row) @ weight.float().t()).double() * scale.double() * row.double()).half()
        return (x, weight, scale), {"smooth_scale": smooth}, want
    m["npu_quant_matmul_dequant"] = quant_matmul_dequant

    def matmul_compress_dequant():
        # aclnnMatmulCompressDequant unzips x2 as msModelSlim's weight_compression packs it, which its page does not
        # define: the call is refused naming the API (no reference can be written from the page).
        x1 = torch.randint(-8, 8, (4, 64), generator=g, dtype=torch.int8)
        x2 = torch.randint(-8, 8, (64 * 32,), generator=g, dtype=torch.int8)
        index = torch.zeros(64, dtype=torch.int8)
        bias = torch.zeros(1, 32, dtype=torch.int8)  # the page's dtypes: an INT8 bias, UINT64 deqScale words
        scale = torch.ones(1, 32, dtype=torch.int64).view(torch.uint64)
        return (x1, x2, index, bias, scale), {}, None
    m["npu_matmul_compress_dequant"] = matmul_compress_dequant

    def quant_matmul_fp8():
        # aclnnQuantMatmulV5's T-C/K-C on FLOAT8_E4M3FN: x1@x2 * x2Scale * x1Scale (+ bias), the product exact.
        a = torch.randint(-8, 8, (3, 64), generator=g).to(torch.float8_e4m3fn)
        b = torch.randint(-8, 8, (64, 5), generator=g).to(torch.float8_e4m3fn)
        scale, pertoken, bias = torch.rand(5, generator=g) + 0.5, torch.rand(3, generator=g) + 0.5, torch.randn(5, generator=g)
        want = (a.float() @ b.float() * scale * pertoken[:, None] + bias).bfloat16()
        return (a, b, scale), {"pertoken_scale": pertoken, "bias": bias, "output_dtype": torch.bfloat16}, want
    m["npu_quant_matmul@fp8"] = quant_matmul_fp8

    def quant_matmul_mx():
        # MX: FLOAT8_E8M0 scales per block of 32 along k = 96 (x1Scale [3, 2, 2], x2Scale [2, 5, 2], the last
        # pair's second block missing), each block's exact sum times its two powers of two.
        a = torch.randint(-8, 8, (3, 96), generator=g).to(torch.float8_e4m3fn)
        b = torch.randint(-8, 8, (96, 5), generator=g).to(torch.float8_e4m3fn)
        s1 = torch.randint(124, 131, (3, 2, 2), generator=g, dtype=torch.uint8)
        s2 = torch.randint(124, 131, (2, 5, 2), generator=g, dtype=torch.uint8)
        v1 = torch.pow(2.0, s1.double() - 127).reshape(3, 4)[:, :3].repeat_interleave(32, 1)
        v2 = torch.pow(2.0, s2.double() - 127).permute(1, 0, 2).reshape(5, 4)[:, :3].repeat_interleave(32, 1).t()
        want = ((a.double() * v1) @ (b.double() * v2)).float()
        return (a, b, s2.view(torch.float8_e8m0fnu)), {"pertoken_scale": s1.view(torch.float8_e8m0fnu),
                                                       "output_dtype": torch.float32, "group_sizes": [1, 1, 32]}, want
    m["npu_quant_matmul@mx"] = quant_matmul_mx

    def transpose_quant_batchmatmul():
        # aclnnTransposeQuantBatchMatMul's K-C (Ascend950): x1 (M, B, K) as (B, M, K), each batch's exact FLOAT8
        # product times x2Scale[n] * x1Scale[m] in float, out (M, B, N); K 512 and N 128, the page's only sizes.
        a = torch.randint(-8, 8, (3, 2, 512), generator=g).to(torch.float8_e4m3fn)
        b = torch.randint(-8, 8, (2, 512, 128), generator=g).to(torch.float8_e4m3fn)
        s1, s2 = torch.rand(3, generator=g) + 0.5, torch.rand(128, generator=g) + 0.5
        want = ((a.double().permute(1, 0, 2) @ b.double()).float() * s2 * s1[:, None]).permute(1, 0, 2).bfloat16()
        return (a, b, 15), {"x1_scale": s1, "x2_scale": s2}, want  # 15: ScalarType BFloat16, as op-plugin reads dtype
    m["npu_transpose_quant_batchmatmul"] = transpose_quant_batchmatmul

    def transpose_quant_batchmatmul_mx():
        # MX: FLOAT8_E8M0 x1Scale (M, B, K/64, 2) and x2Scale (B, K/64, N, 2), each block of 32 along k's sum
        # times its two powers of two, per batch.
        a = torch.randint(-8, 8, (3, 2, 64), generator=g).to(torch.float8_e4m3fn)
        b = torch.randint(-8, 8, (2, 64, 5), generator=g).to(torch.float8_e4m3fn)
        s1 = torch.randint(124, 131, (3, 2, 1, 2), generator=g, dtype=torch.uint8)
        s2 = torch.randint(124, 131, (2, 1, 5, 2), generator=g, dtype=torch.uint8)
        v1 = torch.pow(2.0, s1.double() - 127).reshape(3, 2, 2).repeat_interleave(32, -1).permute(1, 0, 2)
        v2 = torch.pow(2.0, s2.double() - 127).permute(0, 2, 1, 3).reshape(2, 5, 2).repeat_interleave(32, -1)
        want = ((a.double().permute(1, 0, 2) * v1) @ (b.double() * v2.transpose(1, 2))).float().permute(1, 0, 2)
        return (a, b, 15), {"x1_scale": s1.view(torch.float8_e8m0fnu), "x2_scale": s2.view(torch.float8_e8m0fnu),
                            "group_sizes": [1, 1, 32]}, want.bfloat16()
    m["npu_transpose_quant_batchmatmul@mx"] = transpose_quant_batchmatmul_mx

    def weight_quant_batchmatmul():
        x = randn(3, 16, dtype=torch.float16)
        w = torch.randint(-8, 8, (16, 5), generator=g, dtype=torch.int8)
        scale = (torch.rand(5, generator=g) + 0.5).half()
        want = (x.float() @ (w.float() * scale.float())).half()
        return (x, w, scale), {}, want
    m["npu_weight_quant_batchmatmul"] = weight_quant_batchmatmul

    def weight_quant_batchmatmul_int4():
        # A16W4: the INT32 words npu_convert_weight_to_int4pack makes, (k, n / 8) for y's n columns, per channel
        # with an offset.
        x = randn(3, 32, dtype=torch.float16)
        w = torch.randint(-8, 8, (32, 16), generator=g, dtype=torch.int32)
        scale = (torch.rand(16, generator=g) / 10 + 0.01).half()
        offset = torch.randint(-2, 2, (16,), generator=g).half()
        want = (x.float() @ ((w.float() + offset.float()) * scale.float())).half()
        return (x, int4pack(w), scale), {"antiquant_offset": offset}, want
    m["npu_weight_quant_batchmatmul@int4"] = weight_quant_batchmatmul_int4

    def weight_quant_batchmatmul_fp8():
        # aclnnWeightQuantBatchMatmulV2's C quantisation on Ascend950: a FLOAT8_E4M3FN weight times a per-channel
        # scale of x's dtype.
        x = randn(3, 32, dtype=torch.bfloat16)
        w = torch.randint(-8, 8, (32, 5), generator=g).to(torch.float8_e4m3fn)
        scale = (torch.rand(5, generator=g) + 0.5).bfloat16()
        want = (x.float() @ (w.float() * scale.float())).bfloat16()
        return (x, w, scale), {}, want
    m["npu_weight_quant_batchmatmul@fp8"] = weight_quant_batchmatmul_fp8

    def dynamic_quant():
        x = randn(3, 16, dtype=torch.float16)
        s = x.float().abs().amax(-1) / 127
        return (x,), {}, (torch.round(x.float() / s[:, None]).to(torch.int8), s)
    m["npu_dynamic_quant"] = dynamic_quant

    def group_quant():
        # Rows 0-1 in group 0, none in group 1, rows 2-4 in group 2 (group_index: cumulative counts).
        x, scale = randn(5, 8) * 20, (torch.rand(3, 8, generator=g) + 0.5).to(default)
        offset = torch.tensor([1.5]).to(default)
        rows = torch.tensor([0, 0, 2, 2, 2])
        want = torch.round(x.float() * scale.float()[rows] + offset.float()).clamp(-128, 127).to(torch.int8)
        return (x, scale, torch.tensor([2, 2, 5])), {"offset": offset}, want
    m["npu_group_quant"] = group_quant

    def quant_scatter():
        # aclnnInplaceQuantScatter (V2's page: Quantize then Scatter): updates quantised along the last
        # dimension, round(u / scales + zero_points) half to even into INT8, batch b written into
        # self[b] from position indices[b] along axis -2.
        x = torch.randint(-128, 128, (3, 8, 32), generator=g, dtype=torch.int8)
        updates = randn(3, 2, 32, dtype=torch.float16) * 40
        # [1, 1, 32]: the page's 3 dimensions, as torch_npu's documentation passes them
        scales = torch.rand(1, 1, 32, generator=g) + 0.5
        zero = torch.randint(-4, 5, (1, 1, 32), generator=g, dtype=torch.int32)
        indices = torch.tensor([5, 0, 3], dtype=torch.int32)
        want = x.clone()
        for b in range(3):
            q = torch.round(updates[b].float() / scales[0] + zero[0].float()).clamp(-128, 127).to(torch.int8)
            want[b, indices[b]:indices[b] + 2] = q
        return (x, indices, updates, scales, zero), {"axis": -2, "quant_axis": -1}, want
    m["npu_quant_scatter"] = quant_scatter
    m["npu_quant_scatter_"] = quant_scatter

    def rotate_quant():
        # aclnnRotateQuant (Atlas A2): Y = (x.reshape(-1, K) @ rotation).reshape(M, N), per row scale =
        # max|Y| / 127, y = round(Y / scale) half to even. Small integers keep Y's sums exact.
        x = torch.randint(-4, 5, (3, 128), generator=g).half()
        rotation = torch.randint(-1, 2, (16, 16), generator=g).half()
        y = (x.float().reshape(-1, 16) @ rotation.float()).reshape(3, 128)
        scale = y.abs().amax(-1) / 127
        return (x, rotation), {}, (torch.round(y / scale[:, None]).clamp(-128, 127).to(torch.int8), scale)
    m["npu_rotate_quant"] = rotate_quant

    def swiglu_quant():
        # aclnnSwiGluQuantV2, dynamic: act = Swish(right half) * left half (activate_left False), rows of group g
        # times smooth_scales[g] (cumulative ends 2, 5), per row scale = max|v| / 127, y = round(v / scale).
        x, smooth = randn(5, 32, dtype=torch.float32), torch.rand(2, 16, generator=g) + 0.5
        ends = torch.tensor([2, 5], dtype=torch.int32)
        v = torch.nn.functional.silu(x[:, 16:]) * x[:, :16] * smooth[torch.tensor([0, 0, 1, 1, 1])]
        scale = v.abs().amax(-1) / 127
        return (x,), {"smooth_scales": smooth, "group_index": ends, "quant_mode": 1}, (
            torch.round(v / scale[:, None]).clamp(-128, 127).to(torch.int8), scale)
    m["npu_swiglu_quant"] = swiglu_quant

    def dequant_swiglu_quant():
        # aclnnDequantSwigluQuant (the fused GroupedMatmulSwigluQuant README's Dequant and Quant): an INT32 x times
        # weight_scale per column and activation_scale per row, Swish(left half) * right half, then per row scale =
        # max|S| / 127, y = round(S / scale).
        x = torch.randint(-300, 300, (4, 32), generator=g, dtype=torch.int32)
        weight, act = torch.rand(32, generator=g) * 0.01 + 0.001, torch.rand(4, generator=g) * 0.1 + 0.01
        d = x.float() * weight * act[:, None]
        v = torch.nn.functional.silu(d[:, :16]) * d[:, 16:]
        scale = v.abs().amax(-1) / 127
        return (x,), {"weight_scale": weight, "activation_scale": act, "activate_left": True, "quant_mode": 1}, (
            torch.round(v / scale[:, None]).clamp(-128, 127).to(torch.int8), scale)
    m["npu_dequant_swiglu_quant"] = dequant_swiglu_quant

    def mrope():
        # aclnnRopeWithSinCosCache, mrope mode: cos | sin = cos_sin_cache[positions[s]] for section s of the
        # halves ([8, 12, 12] of 32), each head's first 64 elements rotated (rotate_half), the rest kept.
        positions = torch.randint(0, 6, (3, 4), generator=g)
        query, key, cache = randn(4, 2 * 128), randn(4, 128), randn(6, 64)
        cos_sin = cache.float()[positions]
        bounds = (0, 8, 20, 32)
        cos = torch.cat([cos_sin[s, :, bounds[s]:bounds[s + 1]] for s in range(3)], -1)[:, None]
        sin = torch.cat([cos_sin[s, :, 32 + bounds[s]:32 + bounds[s + 1]] for s in range(3)], -1)[:, None]

        def rotate(x):
            heads = x.float().reshape(4, -1, 128)
            x1, x2 = heads[..., :32], heads[..., 32:64]
            return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin, heads[..., 64:]), -1).reshape(x.shape)
        return (positions, query, key, cache, 128), {"mrope_section": [8, 12, 12]}, (rotate(query), rotate(key))
    m["npu_mrope"] = mrope

    def advance_step_flashattn():
        # aclnnAdvanceStep (vLLM's advance_step_flashattn): for each query i with n = seq_lens[i], the sampled token,
        # position n, length n + 1, slot block_tables[i, n // 4] * 4 + n % 4; the sequences past the queries kept.
        seq_lens, tables = torch.tensor([5, 0, 9, 3, 7, 2]), torch.randint(0, 50, (6, 3), generator=g)
        tokens, positions, slots = torch.arange(6), torch.arange(6) + 10, torch.arange(6) + 20
        sampled = torch.tensor([[31], [32], [33], [34]])
        n = seq_lens[:4]
        want = (torch.cat((sampled[:, 0], tokens[4:])), torch.cat((n, positions[4:])), torch.cat((n + 1, seq_lens[4:])),
                torch.cat((tables[torch.arange(4), n // 4] * 4 + n % 4, slots[4:])))

        def run(op, args, kwargs):
            op(*args)
            return args[0], args[2], args[3], args[4]
        return (tokens, sampled, positions, seq_lens, slots, tables, 6, 4, 4), {}, want, run
    m["npu_advance_step_flashattn"] = advance_step_flashattn

    def moe_gating_top_k_backward():
        # aclnnMoeGatingTopKBackward: the adjoint of yOut = x_norm[idx] / (sum + eps) * 2.0 through the sigmoid.
        x_norm, grad_y = torch.rand(3, 8, generator=g), randn(3, 2, dtype=torch.float32)
        idx = torch.tensor([[1, 4], [0, 7], [6, 2]], dtype=torch.int32)
        norm = x_norm.double().requires_grad_()
        y = norm.gather(-1, idx.long())
        (y / (y.sum(-1, keepdim=True) + 1e-20) * 2.0).backward(grad_y.double())
        want = (norm.grad * x_norm.double() * (1 - x_norm.double())).float()
        return (x_norm, grad_y, idx), {"norm_type": 1, "routed_scaling_factor": 2.0}, want
    m["npu_moe_gating_top_k_backward"] = moe_gating_top_k_backward

    def dynamic_mx_quant():
        # aclnnDynamicMxQuantV3 (Ascend950: --soc Ascend950), scaleAlg 0: per block of 32 along the last
        # axis, e = floor(log2 max|V|) - 8 (FLOAT8_E4M3FN's emax), y = V / 2^e; x's powers of two keep
        # every quotient exact. mxscale [2, 1, 2]: the block's E8M0 code e + 127, then the pad block's 0.
        x = torch.pow(2.0, torch.randint(-4, 5, (2, 32), generator=g).float()).bfloat16()
        e = torch.floor(torch.log2(x.float().abs().amax(-1))) - 8
        y = (x.float() / torch.pow(2.0, e)[:, None]).to(torch.float8_e4m3fn)
        scale = torch.stack([e + 127, torch.zeros(2)], -1).reshape(2, 1, 2).to(torch.uint8)
        return (x,), {"dst_type": 292}, (y, scale)
    m["npu_dynamic_mx_quant"] = dynamic_mx_quant

    def dual_axis_quantised(v):
        # v [32, 32] (its quotients exact) quantised along -1 and along -2 in one block of 32 each:
        # (y1, mxscale1 [32, 1, 2], y2, mxscale2 [1, 32, 2]), e = floor(log2 max|V|) - 8 (FLOAT8_E4M3FN's
        # emax), y = V / 2^e; each pair's missing block 0.
        want = []
        for axis in (-1, -2):
            e = torch.floor(torch.log2(v.abs().amax(axis, keepdim=True))) - 8
            y = (v / torch.pow(2.0, e)).to(torch.float8_e4m3fn)
            codes = torch.stack([(e + 127).expand(32, 1) if axis == -1 else (e + 127).expand(1, 32), torch.zeros_like(e)
                                 .expand(32, 1) if axis == -1 else torch.zeros(1, 32)], -1).to(torch.uint8)
            want += [y, codes]
        return tuple(want)

    def dynamic_mx_quant_with_dual_axis():
        # aclnnDynamicMxQuantWithDualAxisV2: the single-axis quantisation along -1 and along -2 (blocks
        # of 32; x [32, 32] of powers of two: every quotient exact).
        x = torch.pow(2.0, torch.randint(-4, 5, (32, 32), generator=g).float()).bfloat16()
        return (x,), {"dst_type": 292}, dual_axis_quantised(x.float())
    m["npu_dynamic_mx_quant_with_dual_axis"] = dynamic_mx_quant_with_dual_axis

    def grouped_dynamic_mx_quant():
        # aclnnGroupedDynamicMxQuantV2: rows [0, 8) and [8, 40) quantised along dim 0 in their own blocks
        # of 32; mxscale [40 // 64 + 2, 3, 2]: each group's one block, then its pair's missing one (0).
        x = torch.pow(2.0, torch.randint(-4, 5, (40, 3), generator=g).float()).bfloat16()
        ys, codes = [], []
        for start, end in ((0, 8), (8, 40)):
            e = torch.floor(torch.log2(x[start:end].float().abs().amax(0))) - 8
            ys.append((x[start:end].float() / torch.pow(2.0, e)).to(torch.float8_e4m3fn))
            codes.append(torch.stack([e + 127, torch.zeros(3)], -1))
        index = torch.tensor([8, 40], dtype=torch.int32)
        return (x, index), {"dst_type": torch.float8_e4m3fn}, (torch.cat(ys), torch.stack(codes).to(torch.uint8))
    m["npu_grouped_dynamic_mx_quant"] = grouped_dynamic_mx_quant

    def dynamic_block_mx_quant():
        # aclnnDynamicBlockMxQuant: one scale per 32 x 32 block (x [32, 64] of powers of two: two blocks,
        # every quotient exact), at each of the block's rows in scale1 [32, 1, 2] and each of its columns
        # in scale2 [1, 64, 2] (the pairs' missing block 0).
        x = torch.pow(2.0, torch.randint(-4, 5, (32, 64), generator=g).float()).bfloat16()
        e = torch.floor(torch.log2(x.float().abs().reshape(32, 2, 32).amax((0, 2)))) - 8  # per column block
        y = (x.float() / torch.pow(2.0, e).repeat_interleave(32)).to(torch.float8_e4m3fn)
        scale1 = (e + 127).expand(32, 2).reshape(32, 1, 2).to(torch.uint8)
        scale2 = torch.stack([(e + 127).repeat_interleave(32), torch.zeros(64)], -1).reshape(1, 64, 2).to(torch.uint8)
        return (x,), {"dst_type": 292}, (y, scale1, scale2)
    m["npu_dynamic_block_mx_quant"] = dynamic_block_mx_quant

    def rms_norm_dynamic_mx_quant(add):
        # aclnnRmsNormDynamicMxQuant / aclnnAddRmsNormDynamicMxQuant (Ascend950): x of +-1 (x1 + x2 for the
        # add form), epsilon 0, so Rms(x) is 1 and y = x * gamma, gamma's powers of two: then as
        # dynamic_mx_quant along the last axis, blocks of 32, every quotient exact; rstd empty (no grad).
        x = torch.where(torch.rand(2, 64, generator=g) < 0.5, -1.0, 1.0).bfloat16()
        gamma = torch.pow(2.0, torch.randint(-4, 5, (64,), generator=g).float()).bfloat16()
        v = (x.float() * gamma.float()).reshape(2, 2, 32)
        e = torch.floor(torch.log2(v.abs().amax(-1))) - 8
        y = (v / torch.pow(2.0, e)[..., None]).reshape(2, 64).to(torch.float8_e4m3fn)
        scale = (e + 127).reshape(2, 1, 2).to(torch.uint8)
        kwargs = {"epsilon": 0.0, "dst_type": 292}
        if add:
            return (x / 2, x / 2, gamma), kwargs, (y, x, scale, torch.zeros(0))
        return (x, gamma), kwargs, (y, scale, torch.zeros(0))
    m["npu_rms_norm_dynamic_mx_quant"] = functools.partial(rms_norm_dynamic_mx_quant, False)
    m["npu_add_rms_norm_dynamic_mx_quant"] = functools.partial(rms_norm_dynamic_mx_quant, True)

    def swiglu_mx_quant():
        # aclnnSwigluMxQuant (Ascend950): Swish(B) * A of x's halves (activate_left False), A of powers of two
        # and B = 20: Swish(20) = 20 * (1 - 2e-9), so each value rounds to 20 * A in float; then quantised
        # along the last axis, e = floor(log2 max|V|) - 8, V / 2^e = 5 * 2^k (exact in FLOAT8_E4M3FN).
        a = torch.pow(2.0, torch.randint(-4, 5, (2, 32), generator=g).float())
        x = torch.cat([a, torch.full((2, 32), 20.0)], -1).bfloat16()
        v = 20 * a
        e = torch.floor(torch.log2(v.abs().amax(-1))) - 8
        y = (v / torch.pow(2.0, e)[:, None]).to(torch.float8_e4m3fn)
        scale = torch.stack([e + 127, torch.zeros(2)], -1).reshape(2, 1, 2).to(torch.uint8)
        return (x,), {"dst_type": 292}, (y, scale)
    m["npu_swiglu_mx_quant"] = swiglu_mx_quant

    def swiglu_mx_quant_with_dual_axis():
        # aclnnSwigluMxQuantWithDualAxis: Swish(A) * B (activate_left) of x [32, 64]'s halves, A = 20 and B of
        # powers of two (each value 20 * B in float), quantised along -1 and along -2 as
        # dynamic_mx_quant_with_dual_axis's (scale_alg 0).
        b = torch.pow(2.0, torch.randint(-4, 5, (32, 32), generator=g).float())
        x = torch.cat([torch.full((32, 32), 20.0), b], -1).bfloat16()
        v = 20 * b
        return (x,), {"dst_type": 292, "scale_alg": 0}, dual_axis_quantised(v)
    m["npu_swiglu_mx_quant_with_dual_axis"] = swiglu_mx_quant_with_dual_axis

    def swiglu_backward_mx_quant_with_dual_axis():
        # aclnnSwigluBackwardMxQuantWithDualAxis: A = 0 (sigmoid 1/2), B of powers of two, yGrad 2: the
        # gradient is [B, 0] (grad_A = 2 * B / 2, grad_B = 0), quantised along -1 and -2 (scaleAlg 1, which
        # for a power of two max is scaleAlg 0's exponent); the zero blocks' scales and elements 0.
        b = torch.pow(2.0, torch.randint(-4, 5, (32, 32), generator=g).float())
        x = torch.cat([torch.zeros(32, 32), b], -1).bfloat16()
        y1, s1, y2, s2 = dual_axis_quantised(b)
        zeros = torch.zeros(32, 32).to(torch.float8_e4m3fn)
        want = (torch.cat([y1, zeros], -1), s1, torch.cat([y2, zeros], -1),
                torch.cat([s2, torch.zeros(1, 32, 2, dtype=torch.uint8)], 1))
        return (x, torch.full((32, 32), 2.0).bfloat16()), {}, want
    m["_npu_swiglu_backward_mx_quant_with_dual_axis"] = swiglu_backward_mx_quant_with_dual_axis

    def dynamic_dual_level_mx_quant():
        # aclnnDynamicDualLevelMxQuant: x [2, 512] of +-1, level0 = max|x| / 6 = 1/6 in float, x / level0 cast
        # to bfloat16 is +-6, level1's exponent floor(log2 6) - 2 = 0 (code 127), y FLOAT4_E2M1's +-6 (codes 7,
        # 15), two a byte, element 2i in the low bits.
        x = torch.where(torch.rand(2, 512, generator=g) < 0.5, -1.0, 1.0)
        codes = torch.where(x < 0, 15, 7).to(torch.uint8)
        level0 = torch.full((2, 1), 1.0) / 6.0
        level1 = torch.full((2, 8, 2), 127, dtype=torch.uint8)
        return (x.bfloat16(),), {}, (codes[:, 0::2] | (codes[:, 1::2] << 4), level0, level1)
    m["npu_dynamic_dual_level_mx_quant"] = dynamic_dual_level_mx_quant

    def anti_mx_quant():
        # aclnnAntiMxQuant: y = x * 2^(mxscale - 127), x's block of 32 along the last axis.
        x = torch.randn(2, 64, generator=g).to(torch.float8_e4m3fn)
        codes = torch.randint(120, 135, (2, 1, 2), generator=g, dtype=torch.uint8)
        want = x.float() * torch.pow(2.0, codes.float().reshape(2, 2) - 127).repeat_interleave(32, -1)
        return (x, codes.view(torch.float8_e8m0fnu)), {"dst_type": torch.float32, "src_type": 292}, want
    m["npu_anti_mx_quant"] = anti_mx_quant

    def quant_max():
        # aclnnQuantMax: y = Cast(x * scale) to FLOAT8_E5M2 half to even, amax = max|x|.
        x, scale = randn(3, 5), torch.tensor([2.0])
        return (x, scale), {"dst_dtype": 291}, ((x * scale).to(torch.float8_e5m2), x.abs().amax().reshape(1))
    m["npu_quant_max"] = quant_max

    def quantize():
        x, scales = randn(3, 5), torch.rand(5, generator=g) + 0.5
        return (x, scales, None, torch.qint8), {"axis": -1}, torch.round(x / scales).clamp(-128, 127).to(torch.int8)
    m["npu_quantize"] = quantize

    def anti_quant():
        x = torch.randint(-8, 8, (3, 5), generator=g, dtype=torch.int8)
        scale, offset = torch.rand(5, generator=g) + 0.5, randn(5, dtype=torch.float32)
        return (x, scale), {"offset": offset, "dst_dtype": torch.float16}, ((x.float() + offset) * scale).half()
    m["npu_anti_quant"] = anti_quant

    def scaled_masked_softmax():
        x = randn(2, 2, 16, 32)
        mask = torch.rand(2, 2, 16, 32, generator=g) > 0.7
        return (x, mask, 0.5), {}, (x * 0.5).masked_fill(mask, -10000.0).softmax(-1)
    m["npu_scaled_masked_softmax"] = scaled_masked_softmax

    def dropout_with_add_softmax():
        x, x1 = randn(2, 2, 16, 32), randn(2, 2, 16, 32)
        # keep probability 1 (prob 0): the mask drops nothing, the result is softmax(alpha x + x1)
        y = (x * 0.5 + x1).softmax(-1)
        return (x, x1, 0.5, 0.0, -1), {}, (None, y, y)
    m["npu_dropout_with_add_softmax"] = dropout_with_add_softmax

    def confusion_transpose():
        x = randn(4, 5, 6)
        return (x, [0, 2, 1, 3], [4, 5, 2, 3], False), {}, x.reshape(4, 5, 2, 3).permute(0, 2, 1, 3)
    m["npu_confusion_transpose"] = confusion_transpose

    def bmm_v2():
        a, b = randn(2, 3, 8), randn(2, 8, 5)
        return (a, b, []), {}, a @ b
    m["npu_bmmV2"] = bmm_v2

    def layer_norm_eval():
        x, w, b = randn(3, 8), randn(8), randn(8)
        return (x, [8], w, b), {}, F.layer_norm(x, [8], w, b)
    m["npu_layer_norm_eval"] = layer_norm_eval

    def top_k_top_p():
        logits = randn(2, 10)
        k = torch.tensor([3, 10], dtype=torch.int32)
        p = torch.tensor([1.0, 1.0]).to(logits.dtype)
        kth = logits.sort(-1, descending=True).values.gather(-1, (k.long() - 1)[:, None])
        return (logits, p, k), {}, logits.masked_fill(logits < kth, float("-inf"))
    m["npu_top_k_top_p"] = top_k_top_p

    def top_k_top_p_sample():
        # aclnnTopKTopPSample's page: each row's top k sorted descending (k = 40 > V keeps the row), those whose
        # softmax mass before them exceeds p dropped, then the largest softmax / (q + eps), q in that order.
        logits = randn(3, 40, dtype=torch.float16)
        k, p = torch.tensor([4, 40, 50], dtype=torch.int32), torch.tensor([0.6, 0.3, 0.8], dtype=torch.float16)
        q = torch.rand(3, 40, generator=g) + 0.01
        index = torch.empty(3, dtype=torch.int64)
        for b in range(3):
            order = torch.sort(logits[b].double(), descending=True, stable=True).indices[:int(k[b])]
            probs = logits[b, order].double().softmax(0)
            order = order[(probs.cumsum(0) - probs) <= float(p[b])]
            score = (logits[b, order].double() - logits[b, order[0]].double()).exp() / (q[b, :len(order)].double() + 1e-8)
            index[b] = order[score.argmax()]
        return (logits, k, p), {"q": q}, [index, None]
    m["npu_top_k_top_p_sample"] = top_k_top_p_sample

    def top_k_top_p_sample_min_p():
        # aclnnTopKTopPSampleV2's page (op-plugin calls it, so these arguments reach it): probabilities as input
        # (input_is_logits=False: no softmax), top k within ks_max (rounded up to 8: k = 12 > 8 skips it), then
        # min-p: the values below min_ps times the row's largest dropped; the largest of the rest / (q + eps).
        probs = torch.rand(3, 40, generator=g).softmax(-1)
        k, p = torch.tensor([6, 12, 0], dtype=torch.int32), torch.tensor([0.9, 1.0, 0.5])
        min_ps, q = torch.tensor([0.9, 0.95, 0.0]), torch.rand(3, 40, generator=g) + 0.01
        index = torch.empty(3, dtype=torch.int64)
        for b in range(3):
            x = probs[b].double()
            by_k = 1 <= int(k[b]) <= 8
            # Sorted when top-k or top-p runs, else the row's order (the page: q follows probs[b], descending then).
            order = torch.sort(x, descending=True, stable=True).indices if by_k or float(p[b]) < 1 else torch.arange(40)
            if by_k:
                order = order[:int(k[b])]
            if float(p[b]) < 1:
                order = order[(x[order].cumsum(0) - x[order]) <= float(p[b])]
            order = order[x[order] >= x[order].max() * float(min_ps[b])]
            index[b] = order[(x[order] / (q[b, :len(order)].double() + 1e-8)).argmax()]
        return (probs, k, p), {"q": q, "min_ps": min_ps, "ks_max": 5, "input_is_logits": False}, [index, None]
    m["npu_top_k_top_p_sample@min_p"] = top_k_top_p_sample_min_p

    def top_k_top_p_sample_multinomial():
        # post_sample="multiNomial": op-plugin draws with aclnnMultinomial from V2's kept probabilities and gathers
        # their input indices; rows that keep one value (top k 1, top p <= 0, min_ps >= 1) draw it for certain.
        logits = randn(3, 40)
        k, p = torch.tensor([1, 30, 50], dtype=torch.int32), torch.tensor([0.9, -1.0, 0.5]).to(logits.dtype)
        min_ps = torch.tensor([0.0, 0.0, 1.0]).to(logits.dtype)
        return ((logits, k, p), {"min_ps": min_ps, "post_sample": "multiNomial"},
                [logits.argmax(-1), None])
    m["npu_top_k_top_p_sample@multinomial"] = top_k_top_p_sample_multinomial

    def swiglu_group_quant_backward():
        # aclnnSwigluGroupQuantGrad's page: swiglu_group's gradient with grad_y times the token's weight (no clamp at
        # clamp_limit 0), grad_weight[t] = sum_h grad_y[t, h] * y_origin[t, h]; rows past sum(group_index) zero.
        x, grad_y, weight = randn(5, 32), randn(5, 16), torch.rand(5, generator=g)
        a, b = x[:, :16].double(), x[:, 16:].double()
        y_origin = (F.silu(a) * b).float()
        g0 = grad_y.double() * weight.double()[:, None]
        s = torch.sigmoid(a)
        grad_x = torch.cat([g0 * b * s * (1 + a * (1 - s)), g0 * a * s], -1)
        grad_w = (grad_y.double() * y_origin.double()).sum(-1)
        group_index = torch.tensor([1, 2], dtype=torch.int64)
        grad_x[3:], grad_w[3:] = 0, 0
        return ((grad_y, x), {"weight": weight, "y_origin": y_origin, "group_index": group_index},
                [grad_x.float(), grad_w.float()])
    m["npu_swiglu_group_quant_backward"] = swiglu_group_quant_backward

    def scatter_list(in_place: bool):
        # aclnnScatterList's page: member b of the list takes updates[b] from indice[b] on along axis - 1
        # (axis -2 over updates' rank: the members' dimension 1), unless mask[b] is 0.
        var = [randn(2, 6, 3) for _ in range(3)]
        updates = randn(3, 2, 2, 3)
        indice = torch.tensor([0, 4, 2], dtype=torch.int64)
        mask = torch.tensor([1, 1, 0], dtype=torch.uint8)
        want = [t.clone() for t in var]
        for b in range(2):
            want[b][:, int(indice[b]):int(indice[b]) + 2] = updates[b]
        if not in_place:
            return (var, indice, updates, mask), {}, want

        def run(op, a, k):
            op(*a, **k)
            return a[0]
        return (var, indice, updates, mask), {}, want, run
    m["npu_scatter_list"] = functools.partial(scatter_list, False)
    m["npu_scatter_list_"] = functools.partial(scatter_list, True)

    def format_cast():
        x = randn(2, 3, 4, 4)
        return (x, 3), {}, x  # NC1HWC0: the values read back unchanged
    m["npu_format_cast"] = format_cast

    def transpose():
        x = randn(2, 3, 4)
        return (x, [2, 0, 1]), {}, x.permute(2, 0, 1)
    m["npu_transpose"] = transpose

    def broadcast():
        x = randn(3, 1)
        return (x, [2, 3, 4]), {}, x.expand(2, 3, 4)
    m["npu_broadcast"] = broadcast

    def sort_v2():
        x = randn(3, 7)
        return (x,), {"dim": -1}, x.sort(-1).values
    m["npu_sort_v2"] = sort_v2

    def ps_roi_pooling_reference(x, rois, scale, group, dim):
        """R-FCN's position-sensitive average pooling (its Caffe layer's rounding): output channel c's
        bin (i, j) averages input channel (c * group + i) * group + j over the pixels the bin covers."""
        want = torch.zeros(rois.shape[2], dim, group, group)
        for r in range(rois.shape[2]):
            image, x1, y1, x2, y2 = rois[0, :, r].float().tolist()
            x1, y1, x2, y2 = round(x1) * scale, round(y1) * scale, (round(x2) + 1) * scale, (round(y2) + 1) * scale
            bin_w, bin_h = max(x2 - x1, 0.1) / group, max(y2 - y1, 0.1) / group
            for i in range(group):
                h0, h1 = (min(max(int(f(v)), 0), 6) for f, v in ((math.floor, i * bin_h + y1), (math.ceil, (i + 1) * bin_h + y1)))
                for j in range(group):
                    w0, w1 = (min(max(int(f(v)), 0), 6) for f, v in ((math.floor, j * bin_w + x1), (math.ceil, (j + 1) * bin_w + x1)))
                    if h1 > h0 and w1 > w0:
                        channels = torch.arange(dim) * group * group + i * group + j
                        want[r, :, i, j] = x[int(image), channels, h0:h1, w0:w1].float().mean((-1, -2))
        return want

    def ps_roi_features():
        scale, group, dim = 0.5, 2, 2
        x = randn(1, dim * group * group, 6, 6)
        rois = torch.tensor([[0, 0, 0, 4, 4], [0, 2, 1, 9, 11]], dtype=torch.float32).t()[None].to(x.dtype)
        return x, rois, scale, group, dim

    def ps_roi_pooling():
        x, rois, scale, group, dim = ps_roi_features()
        return (x, rois, scale, group, dim), {}, ps_roi_pooling_reference(x, rois, scale, group, dim)
    m["npu_ps_roi_pooling"] = ps_roi_pooling

    def ps_roi_pooling_backward():
        # the pooling's adjoint: the reference's autograd (each bin's gradient shared by its pixels)
        x, rois, scale, group, dim = ps_roi_features()
        x = x.float().requires_grad_()
        grad = randn(rois.shape[2], dim, group, group)
        ps_roi_pooling_reference(x, rois, scale, group, dim).backward(grad.float())
        return (grad, rois, scale, group, dim, [6, 6]), {}, x.grad
    m["npu_ps_roi_pooling_backward"] = ps_roi_pooling_backward

    def nms_v4():
        # greedy: by decreasing score, a box above score_threshold kept unless its IoU with a kept box
        # exceeds iou_threshold; the indices padded with zeros to max_output_size
        boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [21, 19, 29, 31], [0, 20, 5, 25]],
                             dtype=torch.float32).to(default)
        scores = torch.tensor([0.9, 0.8, 0.7, 0.75, 0.5]).to(default)
        limit, iou_threshold, score_threshold = 4, 0.5, 0.6
        kept = greedy_nms(boxes, scores, score_threshold, iou_threshold, limit)
        selected = torch.tensor(kept + [0] * (limit - len(kept)), dtype=torch.int32)
        return ((boxes, scores, limit, torch.tensor(iou_threshold).to(default), torch.tensor(score_threshold).to(default)),
                {}, (selected, torch.tensor(len(kept), dtype=torch.int32)))
    m["npu_nms_v4"] = nms_v4

    def greedy_nms(boxes, scores, score_threshold, iou_threshold, limit):
        """The indices kept: by decreasing score (ties: lower index), a box above score_threshold
        kept unless its IoU with a box kept before exceeds iou_threshold, up to limit boxes."""
        kept = []
        for i in scores.float().argsort(descending=True, stable=True).tolist():
            if scores[i] > score_threshold and len(kept) < limit and \
                    all(iou_of(boxes[k:k + 1].float(), boxes[i:i + 1].float()).item() <= iou_threshold for k in kept):
                kept.append(i)
        return kept

    def batch_nms():
        # the Object Detection API's batch_multiclass_non_max_suppression: per image and class a
        # greedy NMS (max_size_per_class), the boxes kept for all classes ordered by decreasing score,
        # the first max_total_size written, zeros after them; one box per anchor for every class (q = 1)
        boxes = torch.tensor([[[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [21, 19, 29, 31], [0, 20, 5, 25]],
                              [[5, 5, 9, 9], [5, 6, 9, 10], [0, 0, 3, 3], [30, 30, 40, 40], [2, 2, 4, 4]]],
                             dtype=torch.float32)[:, :, None].to(default)
        scores = torch.tensor([[[0.9, 0.1], [0.8, 0.7], [0.45, 0.95], [0.75, 0.2], [0.5, 0.6]],
                               [[0.3, 0.65], [0.85, 0.55], [0.2, 0.15], [0.7, 0.4], [0.35, 0.9]]]).to(default)
        score_threshold, iou_threshold, per_class, total = 0.3, 0.5, 2, 5
        want_boxes, want_scores, want_classes = torch.zeros(2, total, 4), torch.zeros(2, total), torch.zeros(2, total)
        count = []
        for b in range(2):
            kept = [(scores[b, i, c].float().item(), c, i) for c in range(2)
                    for i in greedy_nms(boxes[b, :, 0], scores[b, :, c], score_threshold, iou_threshold, per_class)]
            kept = sorted(kept, key=lambda k: -k[0])[:total]  # stable: class by class on equal scores
            for k, (score, c, i) in enumerate(kept):
                want_boxes[b, k], want_scores[b, k], want_classes[b, k] = boxes[b, i, 0].float(), score, c
            count.append(len(kept))
        return ((boxes, scores, score_threshold, iou_threshold, per_class, total), {},
                (want_boxes, want_scores, want_classes, torch.tensor(count, dtype=torch.int32)))
    m["npu_batch_nms"] = batch_nms

    def roi_features():
        x = randn(2, 3, 8, 7)
        rois = torch.tensor([[0, 1.0, 1.5, 6.0, 5.0], [1, -1.0, 2.0, 9.5, 7.0], [1, 3.0, 3.0, 3.5, 3.25],
                             [0, -6.0, -4.0, 4.0, 18.0]]).to(default)  # the last one crosses the map's edges
        return x, rois

    def roi_align(aligned, samples):
        # roi_end_mode 0 is torchvision's aligned=False, 3 its aligned=True (torch_npu's contrib ROIAlign)
        x, rois = roi_features()
        want = roi_align_reference(x, rois, 0.5, (2, 3), samples, aligned)
        return (x, rois, 0.5, 2, 3, samples, 3 if aligned else 0), {}, want
    m["npu_roi_align"] = lambda: roi_align(False, 2)
    m["npu_roi_align@aligned_adaptive"] = lambda: roi_align(True, 0)

    def roi_alignbk():
        # RoIAlign's gradient: the reference's autograd (pooled_width before pooled_height in the
        # schema; square bins here, as torch_npu's contrib ROIAlign passes them in (height, width) order)
        x, rois = roi_features()
        x = x.float().requires_grad_()
        grad = randn(4, 3, 2, 2)
        roi_align_reference(x, rois, 0.5, (2, 2), 2, True).backward(grad.float())
        return (grad, rois, list(x.shape), 2, 2, 0.5, 2, 3), {}, x.grad
    m["npu_roi_alignbk"] = roi_alignbk

    def boxes():
        a = torch.tensor([[0, 0, 10, 10], [5, 5, 15, 15]], dtype=torch.float32)
        b = torch.tensor([[0, 0, 10, 10], [0, 0, 5, 5], [8, 8, 12, 12]], dtype=torch.float32)
        return a, b

    def area(t, offset=0.0):
        return (t[:, 2] - t[:, 0] + offset) * (t[:, 3] - t[:, 1] + offset)

    def iou_of(a, b, offset=0.0):
        """Every pair's IoU, widths and heights counted with MMDetection's pixel offset."""
        lt = torch.maximum(a[:, None, :2], b[None, :, :2])
        rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
        inter = (rb - lt + offset).clamp(min=0).prod(-1)
        return inter / (area(a, offset)[:, None] + area(b, offset)[None] - inter)

    def iou():
        a, b = boxes()
        # op-plugin's npu_iou: (gtboxes, bboxes) overlaps, shape [gt, boxes]; torch_npu's Iou has eps
        # 0.01, the operator's offset added to every width and height (as MMDetection's)
        return (a, b), {}, iou_of(b, a, 0.01)
    m["npu_iou"] = iou
    m["npu_ptiou"] = iou

    def giou():
        # trans=True (boxes as centre x, y, width, height): the only setting torch_npu's autograd accepts
        a = torch.tensor([[0.3, 0.3, 0.4, 0.4], [0.6, 0.5, 0.6, 0.6]])
        b = torch.tensor([[0.4, 0.25, 0.4, 0.3], [0.3, 0.6, 0.4, 0.6]])
        at, bt = (torch.cat((t[:, :2] - t[:, 2:] / 2, t[:, :2] + t[:, 2:] / 2), -1) for t in (a, b))
        inter = iou_of(at, bt).diagonal()
        union_area = area(at) + area(bt)
        inter_area = inter * union_area / (1 + inter)
        lt, rb = torch.minimum(at[:, :2], bt[:, :2]), torch.maximum(at[:, 2:], bt[:, 2:])
        hull = (rb - lt).prod(-1)
        union = union_area - inter_area
        # torch_npu returns the operator's [1, N] overlaps as [N, 1]
        return (a.t().contiguous(), b.t().contiguous()), {"trans": True}, (inter - (hull - union) / hull)[:, None]
    m["npu_giou"] = giou

    def distance_iou(a, b):
        """Box i of a with box i of b (corners, [N, 4]): IoU, and IoU minus the centres' squared distance
        over the squared diagonal of the box enclosing both (Zheng et al., 2020)."""
        a, b = a.float(), b.float()
        inter = iou_of(a, b).diagonal()
        centre = ((a[:, :2] + a[:, 2:]) / 2 - (b[:, :2] + b[:, 2:]) / 2).pow(2).sum(-1)
        hull = (torch.maximum(a[:, 2:], b[:, 2:]) - torch.minimum(a[:, :2], b[:, :2])).pow(2).sum(-1)
        return inter, inter - centre / hull

    def diou():
        # boxes as coordinate rows [4, N]; box i with gtbox i (is_cross false): the overlaps [1, N]
        a, b = legacy_boxes(6), legacy_boxes(6)
        return (a.t().contiguous(), b.t().contiguous(), False, False), {}, distance_iou(a, b)[1][None]
    m["npu_diou"] = diou

    def ciou():
        # DIoU - alpha v, v = 4 / pi^2 (atan(w_gt / h_gt) - atan(w / h))^2, alpha = v / (1 - IoU + v)
        a, b = legacy_boxes(6), legacy_boxes(6)
        iou, d = distance_iou(a, b)
        wh_a, wh_b = a.float()[:, 2:] - a.float()[:, :2], b.float()[:, 2:] - b.float()[:, :2]
        v = 4 / math.pi ** 2 * (torch.atan(wh_b[:, 0] / wh_b[:, 1]) - torch.atan(wh_a[:, 0] / wh_a[:, 1])).pow(2)
        return (a.t().contiguous(), b.t().contiguous(), False, False), {}, (d - v * v / (1 - iou + v))[None]
    m["npu_ciou"] = ciou

    def overlap_penalties(p, q):
        """Box i of p with box i of q (corners [N, 4], differentiable): GIoU (IoU minus the share of the
        enclosing box the union leaves empty) and DIoU (IoU minus the centres' squared distance over the
        enclosing box's squared diagonal)."""
        inter = (torch.minimum(p[:, 2:], q[:, 2:]) - torch.maximum(p[:, :2], q[:, :2])).clamp(min=0).prod(-1)
        union = area(p) + area(q) - inter
        hull = torch.maximum(p[:, 2:], q[:, 2:]) - torch.minimum(p[:, :2], q[:, :2])
        centres = ((p[:, :2] + p[:, 2:]) / 2 - (q[:, :2] + q[:, 2:]) / 2).pow(2).sum(-1)
        iou = inter / union
        return iou - (hull.prod(-1) - union) / hull.prod(-1), iou - centres / hull.pow(2).sum(-1)

    def overlap_backward(trans, which):
        # the gradient of the overlap with respect to the coordinate rows [4, N] (centre and size
        # rows when trans), box i with gtbox i: the reference formula's autograd
        a, b = legacy_boxes(6), legacy_boxes(6)
        if trans:
            a, b = (torch.cat(((t[:, :2] + t[:, 2:]) / 2, t[:, 2:] - t[:, :2]), -1).to(default) for t in (a, b))
        rows = [t.t().contiguous() for t in (a, b)]
        leaves = [r.float().requires_grad_() for r in rows]
        corners = [torch.cat((r[:2] - r[2:] / 2, r[:2] + r[2:] / 2)).t() if trans else r.t() for r in leaves]
        grad = randn(1, 6)
        overlap_penalties(*corners)[which].backward(grad.float()[0])
        return (grad, *rows, trans, False, 0), {}, tuple(leaf.grad for leaf in leaves)
    m["npu_giou_backward"] = lambda: overlap_backward(True, 0)  # torch_npu's only setting for it
    m["npu_diou_backward"] = lambda: overlap_backward(False, 1)

    def anchor_response_flags():
        # MMDetection's YOLO responsible flags: the cell holding each gt box's centre, every base anchor of it
        (h, w), strides, anchors = (6, 5), (4, 3), 3
        gt = legacy_boxes(4).float().clamp(max=min(w * strides[0], h * strides[1]) - 1)
        gt = gt.to(default if default != torch.bfloat16 else torch.float32)  # float16 or float32 only
        centre = (gt.float()[:, :2] + gt.float()[:, 2:]) / 2
        cell = (centre[:, 1] / strides[1]).floor().long() * w + (centre[:, 0] / strides[0]).floor().long()
        grid = torch.zeros(h * w, dtype=torch.uint8)
        grid[cell] = 1
        return (gt, [h, w], list(strides), anchors), {}, grid[:, None].expand(-1, anchors).reshape(-1)
    m["npu_anchor_response_flags"] = anchor_response_flags

    def yolo_boxes_encode():
        # MMDetection's YOLOBBoxCoder.encode (eps 1e-6): centre offsets in strides, shifted by half a
        # cell and clamped into (0, 1); log size ratios
        dtype = default if default != torch.bfloat16 else torch.float32  # float16 or float32 only
        anchors, truths = legacy_boxes(6).to(dtype), legacy_boxes(6).to(dtype)
        stride = torch.tensor([8, 16, 32, 8, 16, 32], dtype=torch.int32)
        a, t = anchors.float(), truths.float()
        ac, gc = (a[:, :2] + a[:, 2:]) / 2, (t[:, :2] + t[:, 2:]) / 2
        aw, gw = a[:, 2:] - a[:, :2], t[:, 2:] - t[:, :2]
        eps = 1e-6
        centre = ((gc - ac) / stride[:, None] + 0.5).clamp(eps, 1 - eps)
        return (anchors, truths, stride), {}, torch.cat((centre, (gw / aw).clamp(min=eps).log()), 1)
    m["npu_yolo_boxes_encode"] = yolo_boxes_encode

    def apply_adam(nesterov):
        # TensorFlow's ApplyAdam (aclnnApplyAdam's page): the moments updated, then var by
        # lr sqrt(1 - beta2^t) / (1 - beta1^t) times m' (nesterov: beta1 m' + (1 - beta1) g) over sqrt(v') + eps
        var, m, v, grad = randn(12), randn(12), randn(12).abs(), randn(12)
        beta1, beta2, lr, eps, t = 0.9, 0.99, 0.01, 1e-8, 3
        f = {name: x.float() for name, x in (("var", var), ("m", m), ("v", v), ("g", grad))}
        m1 = f["m"] + (1 - beta1) * (f["g"] - f["m"])
        v1 = f["v"] + (1 - beta2) * (f["g"] ** 2 - f["v"])
        step = beta1 * m1 + (1 - beta1) * f["g"] if nesterov else m1
        var1 = f["var"] - lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t) * step / (v1.sqrt() + eps)
        args = (beta1 ** t, beta2 ** t, lr, beta1, beta2, eps, grad, False, nesterov)
        # as torch_npu's optimizers call it: out= the state, updated in place
        state = (var.clone(), m.clone(), v.clone())

        def run(op, args, kwargs):
            import torch_npu
            return torch_npu.npu_apply_adam(*args, out=kwargs["state"])
        return args, {"state": state}, (var1, m1, v1), run
    m["npu_apply_adam"] = lambda: apply_adam(False)
    m["npu_apply_adam@nesterov"] = lambda: apply_adam(True)

    def legacy_boxes(n):
        corner, size = torch.rand(n, 2, generator=g) * 10, torch.rand(n, 2, generator=g) * 5 + 1
        return torch.cat((corner, corner + size), 1).to(default)

    def centre_and_size(t):  # MMDetection's legacy +1 pixel sizes
        t = t.float()
        return (t[:, :2] + t[:, 2:]) / 2, t[:, 2:] - t[:, :2] + 1

    def bounding_box_encode():
        anchors, truths = legacy_boxes(5), legacy_boxes(5)
        means, stds = [0.1, 0.0, -0.1, 0.2], [0.1, 0.1, 0.2, 0.2]
        (pc, ps), (gc, gs) = centre_and_size(anchors), centre_and_size(truths)
        deltas = torch.cat(((gc - pc) / ps, torch.log(gs / ps)), 1)
        return (anchors, truths, *means, *stds), {}, (deltas - torch.tensor(means)) / torch.tensor(stds)
    m["npu_bounding_box_encode"] = bounding_box_encode

    def bounding_box_decode():
        # the deltas' sizes clipped to |log(wh_ratio_clip)|, the boxes to the image (height, width)
        rois, deltas = legacy_boxes(5), randn(5, 4) * 2
        means, stds, image, clip = [0.0, 0.1, 0.0, 0.0], [0.1, 0.1, 0.2, 0.2], [12, 9], 0.2
        d = deltas.float() * torch.tensor(stds) + torch.tensor(means)
        centre, size = centre_and_size(rois)
        size, centre = size * d[:, 2:].clamp(-abs(math.log(clip)), abs(math.log(clip))).exp(), centre + size * d[:, :2]
        boxes = torch.cat((centre - size / 2 + 0.5, centre + size / 2 - 0.5), 1)
        limit = torch.tensor([image[1], image[0], image[1], image[0]]) - 1.0
        return (rois, deltas, *means, *stds, image, clip), {}, torch.minimum(boxes.clamp(min=0), limit)
    m["npu_bounding_box_decode"] = bounding_box_decode

    def rotated_pairs(b, n, k, metric, cross=True):
        """Boxes [B, N, 5] and query boxes [B, K, 5] (torch_npu's layout; the operator's is [B, 5, N]),
        and `metric` of every pair [B, N, K] (cross) or of box i with query box i [B, N, 1]."""
        boxes = torch.stack([rotated_boxes(g, n) for _ in range(b)])
        queries = torch.stack([torch.cat((boxes[i, :k // 2], rotated_boxes(g, k - k // 2, False))) for i in range(b)])
        want = torch.tensor([[[metric(p, q) for q in (qs if cross else qs[i:i + 1])] for i, p in enumerate(ps)]
                             for ps, qs in zip(boxes.double().tolist(), queries.double().tolist())])
        return boxes, queries, want

    def rotated_iou_call(cross, mode):
        # IoU (mode 0) or the overlap over the first box's area (mode 1, "iof"): boxes as (centre x,
        # centre y, width, height, angle in degrees), trans=False's "xywht"
        boxes, queries, want = rotated_pairs(2, 6, 6 if not cross else 5,
                                             lambda p, q: rotated_iou(p, q, mode == 1), cross)
        return (boxes, queries), {"trans": False, "mode": mode, "is_cross": cross}, want
    m["npu_rotated_iou"] = lambda: rotated_iou_call(True, 0)
    m["npu_rotated_iou@iof"] = lambda: rotated_iou_call(True, 1)

    def rotated_iou_corners():
        # trans=True ("xyxyt"): the corners of the box before its turn about its centre
        boxes, queries, want = rotated_pairs(1, 5, 4, rotated_iou)
        as_corners = [torch.cat((t[..., :2] - t[..., 2:4] / 2, t[..., :2] + t[..., 2:4] / 2, t[..., 4:]), -1)
                      for t in (boxes, queries)]
        return tuple(as_corners), {"trans": True}, want
    m["npu_rotated_iou@corners"] = rotated_iou_corners

    def rotated_overlaps():
        boxes, queries, want = rotated_pairs(2, 5, 4, rotated_overlap)
        return (boxes, queries), {"trans": False}, want
    m["npu_rotated_overlaps"] = rotated_overlaps

    def nms_rotated():
        # greedy, by decreasing score: a box kept unless its rotated IoU with a box kept before it is
        # above iou_threshold (MMCV's nms_rotated, whose NPU path runs RotatedNMS); boxes (centre,
        # size, angle in degrees) crowded enough for some to go
        boxes = rotated_boxes(g, 12, False)
        scores = torch.rand(12, generator=g)
        kept = []
        for i in scores.argsort(descending=True).tolist():
            if all(rotated_iou(boxes[k].double().tolist(), boxes[i].double().tolist()) <= 0.3 for k in kept):
                kept.append(i)
        return (boxes, scores, 0.3), {}, (torch.tensor(kept, dtype=torch.int32), torch.tensor([len(kept)], dtype=torch.int32))
    m["npu_nms_rotated"] = nms_rotated

    def nms_with_mask():
        # boxes (x1, y1, x2, y2, score, three columns it does not read) in decreasing order of score; a
        # box's mask 0 where its IoU with a box kept before it is above iou_threshold; the rows back in
        # their order with their indices. No IoU near the threshold, with or without a +1 pixel.
        dtype = default if default != torch.bfloat16 else torch.float32  # float16 or float32 only
        rows = torch.tensor([[0, 0, 10, 10, 0.9], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7], [21, 19, 29, 31, 0.6],
                             [0, 20, 5, 25, 0.5], [2, 22, 7, 27, 0.4]])
        box_scores = torch.cat((rows, torch.rand(6, 3, generator=g)), 1).to(dtype)
        return ((box_scores, 0.5), {},
                (box_scores[:, :5], torch.arange(6, dtype=torch.int32), torch.tensor([1, 0, 1, 0, 1, 1], dtype=torch.uint8)))
    m["npu_nms_with_mask"] = nms_with_mask

    def sub_sample():
        # torchvision's BalancedPositiveNegativeSampler: min(#1, int(size * fraction)) positives and
        # min(#0, size - that) negatives kept, drawn at random, -1 elsewhere. The draws are the
        # simulator's: the check is the counts, and every kept label the input's.
        labels = torch.tensor([1, 0, -1, 1, 0, 0, 1, 0, 1, 1, -1, 0, 0, 0, 1, 0], dtype=torch.int32)
        size, fraction = 8, 0.25

        def run(op, args, kwargs):
            y = op(*args, **kwargs).cpu()
            kept = y != -1
            return torch.tensor([(y == 1).sum(), (y == 0).sum()]), torch.tensor(torch.equal(y[kept], labels[kept]))
        return (labels, size, fraction), {}, (torch.tensor([2, 6]), torch.tensor(True)), run
    m["npu_sub_sample"] = sub_sample

    def fused_attention_qkv_grad():
        # the backward of torch_npu's contrib fused attention's projections y_i = x kernel_i + bias_i
        # (npu_linear(x, kernel_i.t(), bias_i)): dx = ln_dx + sum_i dy_i kernel_i^T, dw_i = x^T dy_i,
        # dbias_i the sum of dy_i's rows; float16 only, square kernels as the contrib's
        dq, dk, dv, wq, wk, wv, x, ln = (randn(*shape, dtype=torch.float16) for shape in [(32, 64)] * 3 + [(64, 64)] * 3 + [(32, 64)] * 2)
        f = [t.float() for t in (dq, dk, dv, wq, wk, wv, x, ln)]
        want = (f[7] + f[0] @ f[3].t() + f[1] @ f[4].t() + f[2] @ f[5].t(), f[6].t() @ f[0], f[6].t() @ f[1], f[6].t() @ f[2],
                f[0].sum(0), f[1].sum(0), f[2].sum(0))
        return (dq, dk, dv, wq, wk, wv, x, ln), {}, want
    m["npu_fused_attention_qkv_grad"] = fused_attention_qkv_grad

    def alloc_float_status():
        # "a 1-D tensor of 8 zeros" (torch_npu's docstring), whatever the input
        return (randn(1, 2, 3),), {}, torch.zeros(8)
    m["npu_alloc_float_status"] = alloc_float_status

    def rotated_box_pair(n):
        """Anchors (x1, y1, x2, y2, angle in degrees) [1, 5, n] and boxes near them."""
        corner, size = torch.rand(n, 2, generator=g) * 50, torch.rand(n, 2, generator=g) * 30 + 5
        anchors = torch.cat((corner, corner + size, torch.rand(n, 1, generator=g) * 150 - 75), 1)
        shift = torch.cat((torch.randn(n, 4, generator=g) * 3, torch.randn(n, 1, generator=g) * 20), 1)
        return anchors, anchors + shift

    def rotated_encoding(p, q):
        """The deltas taking box p to q, both (x1, y1, x2, y2, degrees) [N, 5] (torch_npu's docstring
        examples: centres over sizes, log size ratios, tan(angle) differences)."""
        pw, ph, qw, qh = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1], q[:, 2] - q[:, 0], q[:, 3] - q[:, 1]
        return torch.stack(((q[:, 0] + q[:, 2] - p[:, 0] - p[:, 2]) / 2 / pw, (q[:, 1] + q[:, 3] - p[:, 1] - p[:, 3]) / 2 / ph,
                            torch.log(qw / pw), torch.log(qh / ph),
                            torch.tan(torch.deg2rad(q[:, 4])) - torch.tan(torch.deg2rad(p[:, 4]))), 1)

    def rotated_box_encode():
        dtype = default if default != torch.bfloat16 else torch.float32  # float16 or float32 only
        anchors, truths = rotated_box_pair(6)
        anchors, truths = anchors.to(dtype), truths.to(dtype)
        want = rotated_encoding(anchors.double(), truths.double())
        return (anchors.t()[None], truths.t()[None], torch.ones(5, dtype=dtype)), {}, want.t()[None].float()
    m["npu_rotated_box_encode"] = rotated_box_encode

    def rotated_box_decode():
        # RotatedBoxEncode's inverse: the boxes the reference's encoding takes back to the deltas
        dtype = default if default != torch.bfloat16 else torch.float32
        anchors, truths = rotated_box_pair(6)
        anchors = anchors.to(dtype)
        deltas = rotated_encoding(anchors.double(), truths.double()).to(dtype)
        d, a = deltas.double(), anchors.double()
        w, h = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
        centre = torch.stack(((a[:, 0] + a[:, 2]) / 2 + d[:, 0] * w, (a[:, 1] + a[:, 3]) / 2 + d[:, 1] * h), 1)
        size = torch.stack((w * d[:, 2].exp(), h * d[:, 3].exp()), 1)
        angle = torch.rad2deg(torch.atan(torch.tan(torch.deg2rad(a[:, 4])) + d[:, 4]))
        want = torch.cat((centre - size / 2, centre + size / 2, angle[:, None]), 1)
        return (anchors.t()[None], deltas.t()[None], torch.ones(5, dtype=dtype)), {}, want.t()[None].float()
    m["npu_rotated_box_decode"] = rotated_box_decode

    def sign_bits_pack():
        # bit k of byte j is element 8 j + k's sign (set for >= 0), from the lowest bit; the last byte
        # padded with clear bits; the bytes reshaped to [size, -1]
        x = randn(30, dtype=torch.float32 if default == torch.bfloat16 else None)  # float16 or float32 only
        bits = torch.cat(((x >= 0).long(), torch.zeros(-x.numel() % 8, dtype=torch.long))).reshape(-1, 8)
        return (x, 2), {}, (bits << torch.arange(8)).sum(1).to(torch.uint8).reshape(2, -1)
    m["npu_sign_bits_pack"] = sign_bits_pack

    def sign_bits_unpack():
        # every bit of every byte, from the lowest: +1 where set, -1 where clear, reshaped to [size, -1]
        packed = torch.randint(0, 256, (6,), generator=g, dtype=torch.uint8)
        signs = ((packed.long()[:, None] >> torch.arange(8)) & 1) * 2 - 1
        dtype = torch.float32 if default == torch.bfloat16 else default  # float16 or float32 only
        return (packed, 3, dtype), {}, signs.reshape(3, -1).to(dtype)
    m["npu_sign_bits_unpack"] = sign_bits_unpack

    def softmax_cross_entropy():
        # loss = -sum_i labels_i * log(softmax(features)_i) per row; backprop = softmax(features) - labels
        features, labels = randn(4, 7), randn(4, 7).softmax(-1)
        log_p = features.float().log_softmax(-1)
        return features, labels, log_p, -(labels.float() * log_p).sum(-1)

    def softmax_cross_entropy_with_logits():
        features, labels, _, loss = softmax_cross_entropy()
        return (features, labels), {}, loss
    m["npu_softmax_cross_entropy_with_logits"] = softmax_cross_entropy_with_logits

    def softmax_cross_entropy_with_logits_backward():
        # the incoming gradient (one per row) times backprop
        features, labels, log_p, _ = softmax_cross_entropy()
        dy = randn(4)
        return (dy, features, labels), {}, dy.float()[:, None] * (log_p.exp() - labels.float())
    m["npu_softmax_cross_entropy_with_logits_backward"] = softmax_cross_entropy_with_logits_backward

    def dropout_do_mask():
        # the mask as DropOutGenMask lays it out: bit i (of byte i / 8, least significant first) keeps
        # element i, 128 bits a block; the kept elements scaled by 1 / (1 - p)
        x, p = randn(4, 40), 0.3
        keep = torch.rand(4, 40, generator=g) >= p
        bits = torch.cat((keep.flatten().long(), torch.zeros(-keep.numel() % 128, dtype=torch.long))).reshape(-1, 8)
        mask = (bits << torch.arange(8)).sum(-1).to(torch.uint8)
        return (x, mask, p), {}, (torch.where(keep, x.float() / (1 - p), 0.0), mask)
    m["npu_dropout_do_mask"] = dropout_do_mask

    def dropout_backward():
        # the same mask applied to the incoming gradient
        dy, (_, mask, p), (want, _) = randn(4, 40), *dropout_do_mask()[::2]
        keep = want != 0
        return (dy, mask, p), {}, torch.where(keep, dy.float() / (1 - p), 0.0)
    m["npu_dropout_backward"] = dropout_backward

    def convolution():
        x, w, b = randn(1, 3, 6, 6), randn(4, 3, 3, 3), randn(4)
        return (x, w, b, [2, 1], [1, 0], [1, 1], 1), {}, F.conv2d(x, w, b, (2, 1), (1, 0))
    m["npu_convolution"] = convolution

    def reshape():
        x = randn(4, 7)
        return (x, [2, 14]), {}, x.reshape(2, 14)
    m["npu_reshape"] = reshape

    def kl_div_target_backward():
        x, target, dy = randn(3, 5).log_softmax(-1), randn(3, 5).softmax(-1), randn(())
        return (dy, x, target, 1), {"log_target": False}, grads(lambda t: F.kl_div(x, t), (target,), dy)[0]
    m["kl_div_target_backward"] = kl_div_target_backward

    def pad():
        x = randn(2, 3, 4)
        # paddings: before and after each dimension in order
        return (x, [1, 2, 0, 0, 2, 1]), {}, F.pad(x, (2, 1, 0, 0, 1, 2))
    m["npu_pad"] = pad

    def stride_copy():
        x = randn(4, 5)
        return (x, [3, 2], [1, 5], 2), {}, torch.as_strided(x, (3, 2), (1, 5), 2)
    m["npu_stride_copy"] = stride_copy

    def view_copy():
        base, source = torch.zeros(4, 6, dtype=default), randn(3, 4)
        want = base.clone()
        want[:, 1:4] = source.t()

        def run(op, args, kwargs):
            # both sides views that are not contiguous
            base, source = args
            op(base[:, 1:4], source.t(), False)
            return base
        return (base, source), {}, want, run
    m["npu_view_copy"] = view_copy

    def indexing():
        x = randn(4, 5, 6)
        return (x, [1, 0, 0], [4, 5, 6], [2, 2, 1]), {}, x[1:4:2, 0:5:2]
    m["npu_indexing"] = indexing

    def indexing_with_ellipsis():
        # x[1:3, ..., 0:6:2]: entry 1 stands for the dimensions the others leave (its begin and end
        # unread: torch_npu sizes the result from them, entry by entry, ignoring the masks)
        x = randn(4, 5, 6)
        return (x, [1, 0, 0], [3, 5, 6], [1, 1, 2]), {"ellipsis_mask": 0b10}, x[1:3, ..., 0:6:2]
    m["npu_indexing@ellipsis"] = indexing_with_ellipsis

    def slice_():
        x = randn(4, 5)
        return (x, [1, 2], [2, 3]), {}, x[1:3, 2:5]
    m["npu_slice"] = slice_

    def stride_add():
        # [N, C1, H, W, C0] blocks: y's first c1_len blocks x1's from offset1 plus x2's from offset2;
        # torch_npu sizes y [N, c1_len * 16, H, W, C0], the blocks past c1_len zeros
        x, y = randn(1, 3, 2, 2, 16), randn(1, 3, 2, 2, 16)
        want = torch.zeros(1, 32, 2, 2, 16, dtype=x.dtype)
        want[:, :2] = x[:, 1:3] + y[:, 0:2]
        return (x, y, 1, 0, 2), {}, want
    m["npu_stride_add"] = stride_add

    def linear():
        x, w, b = randn(3, 8), randn(5, 8), randn(5)
        return (x, w, b), {}, F.linear(x, w, b)
    m["npu_linear"] = linear

    def conv2d():
        x, w, b = randn(1, 3, 6, 6), randn(4, 3, 3, 3), randn(4)
        return (x, w, b, [1, 1], [1, 1], [1, 1], 1), {}, F.conv2d(x, w, b, 1, 1)
    m["npu_conv2d"] = conv2d

    def deformable_conv2d():
        # Modulated deformable convolution: each kernel point (i, j) samples x bilinearly (zero outside)
        # at its place shifted by (dy, dx), times its mask; the offset channels as torch_npu takes them:
        # the K dx, the K dy, the K masks (K = kh * kw points, one deformable group)
        x, w, b = randn(1, 4, 5, 5), randn(3, 4, 3, 3), randn(3)
        offset = torch.cat((randn(1, 18, 5, 5) * 0.7, torch.rand(1, 9, 5, 5, generator=g).to(default)), 1)
        dx, dy, mask = offset.float().split(9, 1)
        rows = torch.arange(5.0)[:, None] - 1 + torch.arange(3.0).repeat_interleave(3)[:, None, None]
        cols = torch.arange(5.0)[None] - 1 + torch.arange(3.0).repeat(3)[:, None, None]
        py, px = rows + dy[0], cols + dx[0]  # [K, Ho, Wo]
        y0, x0 = py.floor(), px.floor()
        sampled = 0
        for cy, cx in ((0, 0), (0, 1), (1, 0), (1, 1)):
            yy, xx = y0 + cy, x0 + cx
            weight = (1 - (py - yy).abs()) * (1 - (px - xx).abs()) * ((yy >= 0) & (yy < 5) & (xx >= 0) & (xx < 5))
            flat = (yy.clamp(0, 4) * 5 + xx.clamp(0, 4)).long()
            sampled = sampled + weight * x.float()[0].flatten(1)[:, flat]  # [C, K, Ho, Wo]
        want = torch.einsum("ckhw,ock->ohw", sampled * mask[0], w.float().flatten(2))[None] + b.float()[:, None, None]
        return (x, w, offset, b, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1]), {}, (want, None)
    m["npu_deformable_conv2d"] = deformable_conv2d

    def kv_rmsnorm_rope_cache():
        b, s, d_rope, d_norm = 2, 1, 64, 512
        kv = randn(b, 1, s, d_rope + d_norm)
        gamma, cos, sin = randn(d_norm), randn(b, 1, s, d_rope), randn(b, 1, s, d_rope)
        index = torch.arange(b * s, dtype=torch.int64).reshape(b, s)
        k_cache, ckv_cache = torch.zeros(b, 1, 4, d_rope), torch.zeros(b, 1, 4, d_norm)
        return (kv, gamma, cos, sin, index, k_cache, ckv_cache), {}, None
    m["npu_kv_rmsnorm_rope_cache"] = kv_rmsnorm_rope_cache

    # npu_moe_init_routing_quant (aclnnMoeInitRoutingQuantV2, a derived page): its README's steps for 5 rows to
    # 3 of 6 experts: the pairs j = r * K + s sorted by expert (in pair order within one), expandedRowIdx
    # their scatter, the first activeNum pairs' rows j // K quantised, the histogram or its cumsum.
    def moe_init_routing_quant_call(quant_mode, active_num, tokens_mode):
        rows, k, hidden, expert_num = 5, 3, 8, 6
        experts = torch.stack([torch.randperm(expert_num, generator=g)[:k] for _ in range(rows)]).int()
        order = sorted(range(rows * k), key=lambda j: (int(experts.flatten()[j]), j))
        row_idx = torch.empty(rows * k, dtype=torch.int32)
        row_idx[order] = torch.arange(rows * k, dtype=torch.int32)
        kept = order[:min(rows * k, active_num) if active_num else rows * k]
        if quant_mode == 0:  # odd sixteenths times 4 plus 1/8: no value at a tie, which the simulator refuses
            x = (torch.randint(-40, 40, (rows, hidden), generator=g) * 2 + 1) / 16
            scale, offset, dynamic_scale = torch.tensor([4.0]), torch.tensor([0.125]), None
            expanded_x = torch.round(x[[j // k for j in kept]] * 4 + 0.125).to(torch.int8)
        else:
            x, scale, offset = randn(rows, hidden), torch.rand(hidden, generator=g) + 0.5, None
            v = x[[j // k for j in kept]] * scale
            dynamic_scale = v.abs().amax(-1) / 127
            expanded_x = torch.round(v / dynamic_scale[:, None]).to(torch.int8)
        counts = torch.bincount(experts.flatten().long(), minlength=expert_num).int()
        tokens = counts.cumsum(0).int() if tokens_mode == 1 else counts
        kwargs = {"scale": scale, "offset": offset, "active_num": active_num, "expert_num": expert_num,
                  "expert_tokens_num_mode": tokens_mode, "quant_mode": quant_mode}
        return (x, experts), kwargs, (expanded_x, row_idx, tokens, None, dynamic_scale)
    m["npu_moe_init_routing_quant"] = lambda: moe_init_routing_quant_call(1, 0, 1)
    m["npu_moe_init_routing_quant@static_active"] = lambda: moe_init_routing_quant_call(0, 7, 2)

    # --- INT4 outputs (torch.quint4x2): op-plugin's INT32 words of eight INT4 along the last dimension,
    # element 8i in the low four bits (the reference packs the CPU's values the same way).
    def int4_words(values):
        nibbles = (values.to(torch.int32) & 0xF).reshape(*values.shape[:-1], -1, 8)
        return sum(nibbles[..., j] << (4 * j) for j in range(8)).to(torch.int32)

    def quantize_int4():
        # aclnnAscendQuantV3 (no div_mode): round(x * scales + offset) half to even, saturated to [-8, 7].
        x, scales, zero = randn(3, 16) * 4, torch.rand(16, generator=g) + 0.5, randn(16)
        want = int4_words(torch.round(x * scales + zero).clamp(-8, 7))
        return (x, scales, zero, torch.quint4x2), {"axis": -1, "div_mode": False}, want
    m["npu_quantize@quint4x2"] = quantize_int4

    def dynamic_quant_int4():
        # aclnnDynamicQuantV2, dstType INT32: scale = max|x| / 7 per row (INT4's dtypeMax).
        x = randn(3, 16, dtype=torch.float16) * 3
        s = x.float().abs().amax(-1) / 7
        return (x,), {"dst_type": torch.quint4x2}, (int4_words(torch.round(x.float() / s[:, None]).clamp(-8, 7)), s)
    m["npu_dynamic_quant@quint4x2"] = dynamic_quant_int4

    def dynamic_quant_asymmetric_int4():
        # scale = (max - min) / 15, offset = 7 - max / scale (aclnnDynamicQuantV2's scale_opt and offset_opt).
        x = randn(3, 16, dtype=torch.float16) * 3
        top, bottom = x.float().amax(-1), x.float().amin(-1)
        s = (top - bottom) / 15
        o = 7 - top / s
        y = int4_words(torch.round(x.float() / s[:, None] + o[:, None]).clamp(-8, 7))
        return (x,), {"dst_type": torch.quint4x2}, (y, s, o)
    m["npu_dynamic_quant_asymmetric@quint4x2"] = dynamic_quant_asymmetric_int4

    def rms_norm_quant_int4():
        # aclnnRmsNormQuant, INT32 y: round(x * rstd * gamma + beta) * scale + offset), saturated to [-8, 7].
        x = randn(3, 16, dtype=torch.float16)
        gamma, beta = (torch.rand(16, generator=g) + 0.5).half(), (randn(16) * 0.1).half()
        scale, offset = torch.tensor([3.0]).half(), torch.tensor([1], dtype=torch.int8)
        rstd = torch.rsqrt((x.double().pow(2).mean(-1, keepdim=True) + 1e-6).float())
        y = torch.round((x.float() * rstd * gamma.float() + beta.float()) * scale.float() + 1).clamp(-8, 7)
        return (x, gamma, beta, scale, offset), {"epsilon": 1e-6, "dst_dtype": torch.quint4x2}, int4_words(y)
    m["npu_rms_norm_quant@quint4x2"] = rms_norm_quant_int4

    def quant_matmul_int4_words():
        # A4W4: int32 x1 (m, k / 8) and x2 (k, n / 8) of INT4 words; the FLOAT scale packed by
        # npu_trans_quant_param (float32's top 19 bits), the exact product scaled into FLOAT16.
        a, b = torch.randint(-8, 8, (4, 64), generator=g), torch.randint(-8, 8, (64, 16), generator=g)
        scale = torch.rand(16, generator=g) * 0.05 + 0.01
        packed = (scale.view(torch.int32) & -8192).view(torch.float32)
        want = (a.double() @ b.double() * packed.double()).half()
        return (int4_words(a), int4_words(b), scale), {"output_dtype": torch.float16}, want
    m["npu_quant_matmul@int4_words"] = quant_matmul_int4_words

    def format_cast_c0_16():
        # Ascend950 (CHIP_OF): float32 into FRACTAL_NZ is FRACTAL_NZ_C0_16 (50), read back unchanged (its
        # fractals byte for byte: tests/torch_npu/test_format_cast_aclnn.py).
        x = randn(17, 33)
        return (x, 29), {}, x
    m["npu_format_cast@c0_16"] = format_cast_c0_16

    # ----- issue 21, miss21i: documented operators the schema's arguments could not serve (float indices,
    # float32 where the page lists FLOAT16, 3-d where it wants rows), and in-place twins of hand calls.

    def rms_norm_quant():
        # aclnnRmsNormQuant: y = round((x / Rms(x) * gamma + beta) * scale + offset), saturated to INT8;
        # its page lists FLOAT16 and BFLOAT16 for x (float32 refused)
        x, gamma, beta = randn(3, 16, dtype=torch.float16), randn(16, dtype=torch.float16), randn(16, dtype=torch.float16)
        scale, offset = torch.tensor([12.5], dtype=torch.float16), torch.tensor([3], dtype=torch.int8)
        normed = x.float() * rstd_of(x, 1e-6) * gamma.float() + beta.float()
        want = torch.round(normed * scale.float() + offset.float()).clamp(-128, 127).to(torch.int8)
        return (x, gamma, beta, scale, offset), {}, want
    m["npu_rms_norm_quant"] = rms_norm_quant

    def add_rms_norm_cast():
        # aclnnAddRmsNormCast: y1 the float RMS norm of x1 + x2, y2 the same cast to x's dtype, rstd, x1 + x2
        x1, x2, gamma = randn(3, 16, dtype=torch.float16), randn(3, 16, dtype=torch.float16), randn(16, dtype=torch.float16)
        x = x1.float() + x2.float()
        r = rstd_of(x, 1e-6)
        y = x * r * gamma.float()
        return (x1, x2, gamma), {}, (y, y.half(), r, x.half())
    m["npu_add_rms_norm_cast"] = add_rms_norm_cast

    def dynamic_quant_asymmetric():
        # aclnnDynamicQuantV2, per row: scale = (max - min) / 255, offset = 127 - max / scale,
        # y = round(x / scale + offset)
        x = randn(3, 16, dtype=torch.float16)
        high, low = x.float().amax(-1), x.float().amin(-1)
        scale = (high - low) / 255
        offset = 127 - high / scale
        y = torch.round(x.float() / scale[:, None] + offset[:, None]).clamp(-128, 127).to(torch.int8)
        return (x,), {}, (y, scale, offset)
    m["npu_dynamic_quant_asymmetric"] = dynamic_quant_asymmetric

    def scatter_update_inplace():
        (x, indices, updates, axis), _, want = scatter_update()
        return (x, indices, updates, axis), {}, want
    m["scatter_update_"] = scatter_update_inplace

    def scatter_nd_update_inplace():
        (x, indices, updates), _, want = scatter_nd_update()
        return (x, indices, updates), {}, want
    m["npu_scatter_nd_update_"] = scatter_nd_update_inplace

    def cross_entropy_loss_backward():
        # aclnnCrossEntropyLossGrad: the gradient of the mean cross entropy with respect to the logits
        # whose log-softmax is log_prob (softmax - one hot, over the rows not ignored)
        x, target, dy = randn(4, 6), torch.tensor([0, 5, -100, 3], dtype=torch.int64), randn(())
        want = grads(lambda x: F.cross_entropy(x, target, ignore_index=-100), (x,), dy)[0]
        return (dy.reshape(1), x.log_softmax(-1), target), {}, want
    m["npu_cross_entropy_loss_backward"] = cross_entropy_loss_backward

    def add_layer_norm_backward():
        # aclnnAddLayerNormGrad: layer norm of x1 + x2 differentiated; dx (for both inputs), dgamma, dbeta
        x1, x2, gamma, beta, dy = randn(3, 16), randn(3, 16), randn(16), randn(16), randn(3, 16)
        x = x1.float() + x2.float()
        # mean and rstd in FLOAT whatever x's dtype (the page's rows)
        mean, rstd = x.mean(-1, keepdim=True), torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)
        dx, dgamma, dbeta = grads(lambda x, g, b: F.layer_norm(x, (16,), g, b, 1e-5), (x, gamma.float(), beta.float()),
                                  dy.float())
        return (dy, x1, x2, rstd, mean, gamma, None), {}, (dx, dx, dgamma, dbeta)
    m["npu_add_layer_norm_backward"] = add_layer_norm_backward

    def group_norm_swish():
        # aclnnGroupNormSwish: group norm, then y / (1 + exp(-scale y)); mean and rstd per (sample, group)
        x, gamma, beta = randn(2, 6, 3, 4), randn(6), randn(6)
        y = F.group_norm(x, 3, gamma, beta, 1e-5)
        groups = x.reshape(2, 3, -1)
        mean = groups.mean(-1)
        rstd = torch.rsqrt(groups.var(-1, unbiased=False) + 1e-5)
        return (x, 3, gamma, beta), {"eps": 1e-5, "swish_scale": 0.7}, (y * torch.sigmoid(0.7 * y), mean, rstd)
    m["npu_group_norm_swish"] = group_norm_swish

    def masked_softmax_with_rel_pos_bias():
        # aclnnMaskedSoftmaxWithRelPosBias: softmax(scale x + mask + bias), x (B*W, N, S1, S2), the mask
        # (W, S1, S2) per window, the bias (N, S1, S2) per head
        x, mask, bias = randn(4, 3, 5, 7), randn(2, 5, 7), randn(3, 5, 7)
        windows = x.reshape(2, 2, 3, 5, 7) * 0.5 + mask[None, :, None] + bias[None, None]
        return (x, mask, bias), {"scale_value": 0.5}, windows.softmax(-1).reshape(4, 3, 5, 7)
    m["npu_masked_softmax_with_rel_pos_bias"] = masked_softmax_with_rel_pos_bias

    def trans_quant_param():
        # aclnnTransQuantParamV3: the float32 bits of scale with the low 13 cleared, bit 46 set; an offset
        # rounded into [-256, 255] in bits 37-45
        scale = torch.rand(8, generator=g) + 0.01
        offset = torch.tensor([-300.0, -3.4, 0.0, 2.5, 3.5, 100.0, 255.6, 1000.0])
        bits = scale.view(torch.int32).to(torch.int64) & 0xFFFFE000
        clamped = torch.round(offset).to(torch.int64).clamp(-256, 255)
        want = bits | (1 << 46) | ((clamped & 0x1FF) << 37)
        return (scale, offset), {}, want
    m["npu_trans_quant_param"] = trans_quant_param

    def transpose_batchmatmul():
        # aclnnTransposeBatchMatMul with op-plugin's permutations: x (B, M, K) @ w (B, K, N), the result
        # laid out (M, B, N); the page wants K and N multiples of 128
        x, w = randn(2, 3, 128, dtype=torch.float16), randn(2, 128, 128, dtype=torch.float16) / 8
        return (x, w), {}, (x.float() @ w.float()).transpose(0, 1)
    m["npu_transpose_batchmatmul"] = transpose_batchmatmul

    def index_add():
        # aclnnIndexAddV2 along dimension 0 in mode 0 (op-plugin's dim and mode): source rows added at
        # index; alpha 1, the only one the page's mode 0 takes (another is refused by name)
        x, source = randn(5, 4), randn(3, 4)
        index = torch.tensor([4, 0, 4], dtype=torch.int64)
        return (x, index, source), {}, x.index_add(0, index, source)
    m["_npu_index_add"] = index_add
    m["_npu_index_add_"] = index_add

    def moe_token_unpermute_with_routing_map_saving():
        # the autograd form: the same result first, then what its backward keeps
        args, kwargs, want = moe_token_unpermute_with_routing_map()
        return args, kwargs, (want, None, None, None)
    m["_npu_moe_token_unpermute_with_routing_map"] = moe_token_unpermute_with_routing_map_saving
    m["npu_grouped_matmul_add_"] = grouped_matmul_add

    def apply_adam_w(amsgrad):
        # AdamW (aclnnApplyAdamW's page): the beta powers beta^(t-1), the step's bias corrections
        # 1 - beta^(t-1) beta; decay lr * weight_decay * var; amsgrad keeps max(max_grad_norm, v')
        var, m, v, grad, top = randn(12), randn(12), randn(12).abs(), randn(12), randn(12).abs()
        beta1, beta2, lr, decay, eps, t = 0.9, 0.99, 0.01, 0.1, 1e-8, 3
        f = {name: x.float() for name, x in (("var", var), ("m", m), ("v", v), ("g", grad), ("top", top))}
        m1 = beta1 * f["m"] + (1 - beta1) * f["g"]
        v1 = beta2 * f["v"] + (1 - beta2) * f["g"] ** 2
        if amsgrad:
            v1 = torch.maximum(f["top"], v1)
        m_hat, v_hat = m1 / (1 - beta1 ** t), v1 / (1 - beta2 ** t)
        var1 = f["var"] - lr * decay * f["var"] - lr * m_hat / (v_hat.sqrt() + eps)
        args = (beta1 ** (t - 1), beta2 ** (t - 1), lr, decay, beta1, beta2, eps, grad, top if amsgrad else None, amsgrad, False)
        state = (var.clone(), m.clone(), v.clone())  # as torch_npu's NpuFusedAdamW: out= the state, in place

        def run(op, args, kwargs):
            import torch_npu
            return torch_npu.npu_apply_adam_w(*args, out=kwargs["state"])
        return args, {"state": state}, (var1, m1, v1), run
    m["npu_apply_adam_w"] = lambda: apply_adam_w(False)
    m["npu_apply_adam_w@amsgrad"] = lambda: apply_adam_w(True)

    # the .out overloads are what the calls above reach (torch_npu.npu_apply_adam(..., out=...))
    m["npu_apply_adam.out"] = lambda: apply_adam(False)
    m["npu_apply_adam_w.out"] = lambda: apply_adam_w(False)

    def into_out(make, out_shape):
        # an out= twin of a hand call: the result written into a given tensor
        args, kwargs, want = make()[:3]
        return args, {**kwargs, "out": torch.empty(out_shape, dtype=want.dtype)}, want
    m["npu_transpose.out"] = lambda: into_out(transpose, (4, 2, 3))
    m["npu_broadcast.out"] = lambda: into_out(broadcast, (2, 3, 4))
    m["npu_indexing.out"] = lambda: into_out(indexing, (2, 3, 6))
    m["npu_reshape.out"] = lambda: into_out(reshape, (2, 14))
    m["npu_stride_copy.out"] = lambda: into_out(stride_copy, (3, 2))

    def fractal_nz_of(x):
        # The format get_npu_format reports for x cast to FRACTAL_NZ (29): on Ascend950 FLOAT and INT32
        # go to FRACTAL_NZ_C0_16 (50), aclnnNpuFormatCast's actualFormat there (test_format_cast_aclnn.py).
        c0_16 = os.environ.get("ACLNN_SIM_SOC") == "Ascend950" and x.dtype in (torch.float32, torch.int32)
        return torch.tensor([50 if c0_16 else 29])

    def with_nz(op, first, second):  # `second` cast to FRACTAL_NZ first
        return keeping_internal_formats(lambda: op(first, torch.ops.npu.npu_format_cast(second, 29)))

    def cast_to_format_of():
        # input cast to another tensor's format (FRACTAL_NZ): the values kept, the format the other's
        x, like = randn(5, 20), randn(3, 16)
        return (x, like), {}, (x, fractal_nz_of(like)), lambda op, args, kwargs: with_nz(op, *args)
    m["npu_format_cast.Tensor"] = cast_to_format_of

    def cast_into_format_of():
        # in place, torch_npu's format_cast_impl_out_npu: self takes src's values (FRACTAL_NZ) in its own format
        target, x = torch.zeros(5, 20, dtype=default), randn(5, 20)
        return (target, x), {}, (x, torch.tensor([2])), lambda op, args, kwargs: with_nz(op, *args)
    m["npu_format_cast_"] = cast_into_format_of

    def batch_norm_gather_stats_update():
        # aclnnSyncBatchNormGatherStats: each rank's per-channel sums and square sums (op-plugin's mean
        # and invstd arguments) gathered into the batch mean and invstd; the running statistics updated
        # in place by momentum, the variance unbiased
        sums, squares = randn(3, 4) * 8, randn(3, 4).abs() * 40 + 60
        counts = torch.tensor([5.0, 7.0, 8.0]).to(default)
        n = counts.float().sum()
        mean = sums.float().sum(0) / n
        var = squares.float().sum(0) / n - mean ** 2
        running_mean, running_var = randn(4), randn(4).abs() + 0.5
        new_mean = running_mean.float() * 0.9 + 0.1 * mean
        new_var = running_var.float() * 0.9 + 0.1 * var * n / (n - 1)

        def run(op, args, kwargs):
            batch_mean, invstd = op(*args, **kwargs)
            return batch_mean, invstd, args[3], args[4]
        args = (randn(20, 4, 2), sums, squares, running_mean, running_var, 0.1, 1e-5, counts)
        return args, {}, (mean, torch.rsqrt(var + 1e-5), new_mean, new_var), run
    m["batch_norm_gather_stats_update"] = batch_norm_gather_stats_update

    def bit_mask_of(mask, p):
        # a dropout bit mask's byte count and whether its keep rate is near 1 - p
        kept = ((mask.cpu().long()[:, None] >> torch.arange(8)) & 1).float().mean().item()
        return torch.tensor([mask.numel()]), torch.tensor([abs(kept - (1 - p)) < 0.15])

    def dropout_gen_mask():
        # aclnnDropoutGenMask: one bit per element (128 bits a block), set with probability 1 - p
        def run(op, args, kwargs):
            return bit_mask_of(op([8, 64], 0.3, dtype=torch.float32, device=torch.device("npu")), 0.3)
        return (), {}, (torch.tensor([64]), torch.tensor([True])), run
    m["npu_dropout_gen_mask"] = dropout_gen_mask

    def dropout_gen_mask_tensor():
        # aclnnDropoutGenMaskV2 from an explicit seed and offset, for a tensor of `size`
        def run(op, args, kwargs):
            return bit_mask_of(op(*args), 0.3)
        return (randn(8, 64), [8, 64], 0.3, 7, 0), {}, (torch.tensor([64]), torch.tensor([True])), run
    m["_npu_dropout_gen_mask.Tensor"] = dropout_gen_mask_tensor

    def fused_cross_entropy_loss_with_max_sum():
        # aclnnFusedCrossEntropyLossWithMaxSum: loss = log(sum_exp) - predicted (the shifted logit of the
        # target), the softmax exp(logits - max) / sum_exp
        logits = randn(5, 9).float()
        top = logits.max(-1).values
        sum_exp = (logits - top[:, None]).exp().sum(-1)
        predicted = (logits - top[:, None])[torch.arange(5), torch.tensor([0, 8, 3, 3, 1])]
        want = (sum_exp.log() - predicted, (logits - top[:, None]).exp() / sum_exp[:, None])
        return (top, sum_exp, predicted), {"vocab_parallel_logits": logits}, want
    m["npu_fused_cross_entropy_loss_with_max_sum"] = fused_cross_entropy_loss_with_max_sum

    def quantize_impl(per_channel):
        # aclnnQuantize as torch.quantize_per_channel / per_tensor reach it: round(x / scales + zero_points),
        # saturated, INT32 zero points (the page refuses FLOAT ones), qint8 written as INT8
        x = randn(3, 4) * 20
        if per_channel:
            scales, zeros = torch.tensor([0.5, 1.0, 0.25, 2.0]), torch.tensor([0, 3, -2, 100], dtype=torch.int32)
            args = (x, scales, zeros, 1, torch.qint8)
        else:
            scales, zeros = torch.tensor([0.3]), torch.tensor([5], dtype=torch.int32)
            args = (x, scales, zeros, torch.qint8)
        want = torch.round(x.float() / scales.float() + zeros.float()).clamp(-128, 127).to(torch.int8)
        return args, {"result": torch.empty(3, 4, dtype=torch.int8)}, want
    m["_quantize_per_channel_impl.out"] = lambda: quantize_impl(True)
    m["_quantize_per_tensor_impl.out"] = lambda: quantize_impl(False)

    def vocab_shard(rows=6, hidden=8, vocab=32, start=10, end=41):
        # one rank's vocabulary shard [start, end) of Megatron's vocab-parallel cross entropy (FLOAT16, its
        # pages' dtype), and what the shard's statistics are (aclnnFusedLinearOnlineMaxSum's formulas)
        x, w = randn(rows, hidden, dtype=torch.float16), randn(vocab, hidden, dtype=torch.float16)
        target = torch.tensor([10, 3, 40, 25, 60, 11], dtype=torch.int32)[:rows]
        logits = x.float() @ w.float().T
        outside = (target < start) | (target > end)
        local = torch.where(outside, 0, target - start)
        shifted = logits - logits.max(-1, keepdim=True).values
        predicted = torch.where(outside, 0.0, shifted.gather(1, local.long()[:, None])[:, 0])
        return x, w, target, logits, outside, local, shifted, predicted, (start, end)

    def fused_linear_online_max_sum():
        x, w, target, logits, outside, local, shifted, predicted, (start, end) = vocab_shard()
        # the packed mask (row p at bit p % 8 of byte p // 8, the bits past the rows set) is left to the
        # vocab-parallel test; the rest: max, sum of exp, the target's shifted logit, its local index, logits
        want = (logits.max(-1).values, shifted.exp().sum(-1), predicted, None, local, logits)
        return (x, w, target, start, end), {"return_logits": True}, want
    m["npu_fused_linear_online_max_sum"] = fused_linear_online_max_sum

    def fused_linear_cross_entropy_loss_with_max_sum_backward():
        # the gradients of sum(grad * (logsumexp(logits) - the target's logit)) with respect to x and w,
        # the softmax recomputed from the row statistics (the target mask as the forward packs it)
        x, w, target, logits, outside, local, shifted, predicted, (start, end) = vocab_shard()
        grad = randn(6).float()
        bits = torch.cat((outside.long(), torch.ones(-len(outside) % 8, dtype=torch.long))).reshape(-1, 8)
        packed = (bits << torch.arange(8)).sum(-1).to(torch.uint8)
        dx, dw = grads(lambda x, w: ((torch.logsumexp(x @ w.T, -1) - (x @ w.T).gather(1, local.long()[:, None])[:, 0]
                                      * ~outside) * grad).sum(), (x.float(), w.float()), torch.tensor(1.0))
        kwargs = {"logits_max": logits.max(-1).values, "sum_exp_logits": shifted.exp().sum(-1)}
        return (grad, x, w, packed, local), kwargs, (dx, dw)
    m["npu_fused_linear_cross_entropy_loss_with_max_sum_backward"] = fused_linear_cross_entropy_loss_with_max_sum_backward
    m["npu_grouped_matmul.List"] = grouped_matmul_list  # the same call: it names the List overload

    def torch_rnn(gru, params):
        # torch.nn's one-layer GRU or LSTM on the CPU with the weights w_ih, w_hh, b_ih, b_hh
        w_ih = params[0]
        module = (torch.nn.GRU if gru else torch.nn.LSTM)(w_ih.shape[1], params[1].shape[1])
        with torch.no_grad():
            for mine, theirs in zip(params, (module.weight_ih_l0, module.weight_hh_l0, module.bias_ih_l0, module.bias_hh_l0)):
                theirs.copy_(mine.float())
        return module

    def recurrent(gru):
        # _lstm_npu / _gru_npu as torch.nn.LSTM / GRU on npu call them (one layer with biases: aclnnLSTM,
        # aclnnGRU): the output sequence and final states equal torch.nn's on the CPU with the same weights
        steps, batch, size, hidden, gates = 5, 2, 4, 3, 3 if gru else 4
        x, h0, c0 = randn(steps, batch, size), randn(1, batch, hidden), randn(1, batch, hidden)
        params = [randn(gates * hidden, size) * 0.5, randn(gates * hidden, hidden) * 0.5, randn(gates * hidden) * 0.5,
                  randn(gates * hidden) * 0.5]
        module = torch_rnn(gru, params)
        with torch.no_grad():
            if gru:
                y, h = module(x.float(), h0.float())
                return (x, h0, params, True, 1, 0.0, True, False), {}, (y, h) + (None,) * 5
            y, (h, c) = module(x.float(), (h0.float(), c0.float()))
        return (x, [h0, c0], params, True, 1, 0.0, True, False), {}, (y, h, c) + (None,) * 7
    m["_lstm_npu"] = lambda: recurrent(False)
    m["_gru_npu"] = lambda: recurrent(True)

    def recurrent_backward(gru):
        # _lstm_npu_backward / _gru_npu_backward (aclnnLstmBackward, aclnnGRUBackward) on the forward's own
        # saved gates: the input's, initial states' and parameters' gradients equal autograd's through
        # torch.nn's module on the CPU for the gradients dy, dh (and dc)
        args, _, _ = recurrent(gru)
        x, state, params = args[:3]
        dy, dh, dc = randn(5, 2, 3), randn(1, 2, 3), randn(1, 2, 3)
        flags = args[3:]
        module = torch_rnn(gru, params)
        leaves = [t.float().clone().requires_grad_() for t in ([x, state] if gru else [x, *state])]
        y, last = module(leaves[0], leaves[1] if gru else (leaves[1], leaves[2]))
        loss = (y * dy.float()).sum() + ((last * dh.float()).sum() if gru else (last[0] * dh.float()).sum() + (last[1] * dc.float()).sum())
        want = torch.autograd.grad(loss, leaves + list(module.parameters()))

        def run(op, a, k):
            import torch_npu  # noqa: F401
            x, state, params = a[:3]
            if gru:
                saved = torch.ops.npu._gru_npu(x, state, params, *flags)
                dx, dh0, dparams = op(a[3], a[4], x, state, params, *saved[2:7], *flags)
                return (dx, dh0, *dparams)
            saved = torch.ops.npu._lstm_npu(x, state, params, *flags)
            dx, dstate, dparams = op(a[3], a[4], a[5], x, state, params, *saved[3:10], *flags)
            return (dx, *dstate, *dparams)
        made = (x, state, params, dy, dh) if gru else (x, state, params, dy, dh, dc)
        return made, {}, tuple(want), run
    m["_lstm_npu_backward"] = lambda: recurrent_backward(False)
    m["_gru_npu_backward"] = lambda: recurrent_backward(True)

    # Computed, and until now compared with nothing (the schema's arguments): random operators checked
    # against their own mask (every element kept and scaled by 1 / (1 - p), or zero; a drop rate near
    # p), the format casts by the values they keep and the format they report.

    def masked_consistently(x, p, y, keep):
        # the largest relative residual, in x's dtype (so compared at its precision), and the drop rate
        expected = torch.where(keep, x.float() / (1 - p), 0.0)
        residual = ((y.cpu().float() - expected).abs() / expected.abs().clamp(min=1)).max().reshape(1)
        dropped = 1 - keep.float().mean().item()
        return residual.to(x.dtype), torch.tensor([abs(dropped - p) < 0.15])

    def npu_dropout():
        # aclnnDropoutV3 with its bit mask (bit i of byte i / 8, least significant first), 128 bits a block
        x, p = randn(8, 64), 0.3

        def run(op, args, kwargs):
            y, mask = op(*args, **kwargs)
            bits = (mask.cpu().long()[:, None] >> torch.arange(8)) & 1
            return masked_consistently(x, p, y, bits.flatten()[:x.numel()].reshape(x.shape).bool())
        return (x, p), {}, (torch.zeros(1, dtype=x.dtype), torch.tensor([True])), run
    m["_npu_dropout"] = npu_dropout

    def dropout_with_byte_mask_pair():
        # a byte per element, nonzero where kept
        x, p = randn(8, 64), 0.3

        def run(op, args, kwargs):
            y, mask = op(*args, **kwargs)
            return masked_consistently(x, p, y, mask.cpu() != 0)
        return (x, p), {}, (torch.zeros(1, dtype=x.dtype), torch.tensor([True])), run
    m["_dropout_with_byte_mask"] = dropout_with_byte_mask_pair

    def dropout_with_byte_mask():
        # the result alone: every element x / (1 - p) or zero, about p of them zero
        x, p = randn(8, 64) + 5, 0.3  # no element of x is zero, so a zero is a dropped one

        def run(op, args, kwargs):
            y = op(*args, **kwargs)
            return masked_consistently(x, p, y, y.cpu() != 0)
        return (x, p, True), {}, (torch.zeros(1, dtype=x.dtype), torch.tensor([True])), run
    m["dropout_with_byte_mask"] = dropout_with_byte_mask

    def keeping_internal_formats(call):
        # Atlas A2 keeps a private format only with allow_internal_format (else torch_npu's host code
        # casts to the base format): set for this call alone (torch_npu's config has a setter, no getter).
        # The result, and the format it reports.
        was = getattr(torch.npu.config, "allow_internal_format", False)
        torch.npu.config.allow_internal_format = True
        try:
            y = call()
        finally:
            torch.npu.config.allow_internal_format = was
        return y, torch.tensor([torch.ops.npu.get_npu_format(y)])

    def cast_keeping_internal(op, args, kwargs):
        return keeping_internal_formats(lambda: op(*args, **kwargs))

    def format_cast_in_place():
        # in place to FRACTAL_NZ (29): the values read back unchanged, the format the one asked for
        x = randn(5, 20)
        return (x, 29), {}, (x, fractal_nz_of(x)), cast_keeping_internal
    m["npu_format_cast_.acl_format"] = format_cast_in_place

    def format_cast_private():
        x = randn(2, 3, 4, 4)
        return (x, 3), {}, (x, torch.tensor([3])), cast_keeping_internal  # NC1HWC0
    m["_npu_format_cast"] = format_cast_private

    def npu_format():
        # a 4-d tensor is born NCHW (0), another ND (2)
        x, y = randn(2, 3, 4, 4), randn(2, 3)

        def run(op, args, kwargs):
            return torch.tensor([op(args[0]), op(args[1])])
        return (x, y), {}, torch.tensor([0, 2]), run
    m["get_npu_format"] = npu_format

    return m


# ---------------------------------------------------------------------------------------------------
# Generic maker: arguments from the schema.

def generic_arguments(schema):
    import torch

    args, kwargs = [], {}
    for argument in schema.arguments:
        kind = str(argument.type)
        if argument.has_default_value():
            continue
        if kind == "Tensor":
            value = torch.randn(2, 4, 8)
        elif kind == "List[Tensor]":
            value = [torch.randn(2, 8)]
        elif kind.startswith("Optional["):
            value = None
        elif kind in ("int", "SymInt"):
            value = 1
        elif kind in ("float", "number"):
            value = 1.0
        elif kind == "bool":
            value = False
        elif kind.startswith("List[int]") or kind.startswith("List[SymInt]"):
            value = [1]
        elif kind == "str":
            value = ""
        elif kind == "ScalarType":
            value = torch.float32
        else:
            raise TypeError(f"no generic value for {argument.name}: {kind}")
        if argument.kwarg_only:
            kwargs[argument.name] = value
        else:
            args.append(value)
    return args, kwargs


# ---------------------------------------------------------------------------------------------------
# Worker

def classify_error(error: BaseException) -> tuple[str, str]:
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, TimeoutError):
        return "crash", f"hang: {error}"
    if re.search(r"aclnn\w+.*(not (found|in)|cannot be found|undefined symbol)|not found in|GetOpApiFuncAddr|"
                 r"CANN version do not support this api", text):
        return "missing", reason_of(error)
    if re.search(r"\baclnn\w+|\b[15]6\d{4}\b|aclopCompileAndExecute|not modelled|not simulated", text):
        return "refused", reason_of(error)
    first = " ".join(re.split(r"\s\[ERROR\]", text)[0].split())[:200]
    if re.search(r"Current device only support aclnn operator|no longer supported on|Ascend950 not support", text):
        return "torch_npu", first
    return "bad-args", first


def compare(want, got) -> str | None:
    import torch

    if want is None:
        return None
    if isinstance(want, torch.Tensor):
        want, got = [want], [got]
    if not isinstance(got, (list, tuple)) or len(got) < len(want):
        return f"{len(want)} results expected, got {type(got).__name__}"
    for index, (w, o) in enumerate(zip(want, got)):
        if w is None:
            continue
        o = o.cpu()
        if tuple(o.shape) != tuple(w.shape):
            return f"result {index}: shape {tuple(o.shape)}, expected {tuple(w.shape)}"
        # the coarser of the two dtypes sets the tolerance (a float32 reference of a float16 result)
        tolerance = max({torch.float16: 1e-2, torch.bfloat16: 3e-2}.get(t, 1e-4) for t in (w.dtype, o.dtype))
        if w.is_floating_point():
            same = torch.allclose(o.float(), w.float(), rtol=tolerance, atol=tolerance, equal_nan=True)
        else:
            same = torch.equal(o.to(w.dtype), w)
        if not same:
            return f"result {index}: max difference {(o.float() - w.float()).abs().max().item():.3g}"
    return None


def float16_cube_reference(hand: Makers, name: str, drawn):
    """The reference of the hand-made call `name`, made again from the same draws (the generator's
    state `drawn`) with its float32 matrix products in float16, where the chip runs torch_npu's in
    float16 (host_code.FLOAT16_CUBE_CHIPS); None elsewhere. The generator is left as the call left it."""
    from host_code import FLOAT16_CUBE_CHIPS, Float16CubeProducts

    if os.environ.get("ACLNN_SIM_SOC", "Ascend910B") not in FLOAT16_CUBE_CHIPS:
        return None
    after = hand.generator.get_state()
    hand.generator.set_state(drawn)
    try:
        with Float16CubeProducts():
            return hand[name]()[2]
    finally:
        hand.generator.set_state(after)


def to_npu(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.npu()
    if isinstance(value, (list, tuple)):
        return type(value)(to_npu(v) for v in value)
    if isinstance(value, dict):
        return {k: to_npu(v) for k, v in value.items()}
    return value


def sweep_one(name: str, hand: dict, schemas: dict) -> dict:
    """One call of the operator `name` (with an overload: "op.overload"; another hand-made call of it:
    "op@variant"), classified: the record the JSONL holds ({"op", "maker", "verdict", "why"})."""
    import torch

    base, _, overload = name.split("@")[0].partition(".")
    op = getattr(getattr(torch.ops.npu, base), overload or "default")
    record = {"op": name, "maker": "hand" if name in hand else "schema"}
    drawn = hand.generator.get_state() if isinstance(hand, Makers) else None
    try:
        if record["maker"] == "hand":
            made = hand[name]()
            args, kwargs, want = made[:3]
            run = made[3] if len(made) > 3 else (lambda op, a, k: op(*a, **k))
        else:
            args, kwargs = generic_arguments(schemas[name])
            want, run = None, (lambda op, a, k: op(*a, **k))
        got = run(op, to_npu(args), to_npu(kwargs))
        torch.npu.synchronize()
    except Exception as error:  # a refusal, or the maker's arguments rejected before any call
        record["verdict"], record["why"] = classify_error(error)
        try:  # a refusal held for this call (--task-queue) is this operator's, not the next one's
            torch.npu.synchronize()
        except Exception:  # noqa: BLE001
            pass
    else:
        difference = compare(want, got)
        if difference and drawn is not None and record["maker"] == "hand":
            lowered = float16_cube_reference(hand, name, drawn)
            if lowered is not None and compare(lowered, got) is None:
                difference, record["why"] = None, "equal to float16 cube products (cubeMathType USE_FP16 on this chip)"
        record["verdict"] = "wrong" if difference else "unchecked" if want is None else "equal"
        if difference:
            record["why"] = difference
    return record


def check(names: list[str], dtype: str = "float32") -> dict[str, str]:
    """The operators of `names` (hand-made arguments) that do not equal their CPU reference, with why:
    what tests/torch_npu/test_custom_ops.py asserts empty, in a process with torch_npu imported."""
    hand = makers(dtype)
    failures = {}
    for name in names:
        record = sweep_one(name, hand, {})
        if record["verdict"] != "equal":
            failures[name] = f"{record['verdict']}: {record.get('why', '')}"
        if record["verdict"] in ("refused", "missing") and os.environ.get("ASCEND_LAUNCH_BLOCKING") != "1":
            # Launched asynchronously, a failed task puts torch_npu's task queue in its error state:
            # it raises once, then drops the work queued after it (the process is meant to exit).
            failures.update({n: "not run after a refusal" for n in names[names.index(name) + 1:]})
            break
    return failures


def worker(names: list[str], dtype: str) -> None:
    import signal

    import torch
    import torch_npu  # noqa: F401

    hand = makers(dtype)
    schemas = {str(s.name).split("::", 1)[1] + (f".{s.overload_name}" if s.overload_name else ""): s
               for s in torch._C._jit_get_all_schemas() if str(s.name).startswith("npu::")}
    control = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def emit(**event):
        control.write(json.dumps(event) + "\n")
        control.flush()

    def timeout(*_):
        raise TimeoutError(f"no result in {HANG - 10} s")

    signal.signal(signal.SIGALRM, timeout)
    for name in names:
        emit(start=name)
        signal.alarm(HANG - 10)
        try:
            record = sweep_one(name, hand, schemas)
        finally:
            signal.alarm(0)
        emit(**record)


# ---------------------------------------------------------------------------------------------------
# Driver

def op_plugin_apis() -> dict[str, list[str]]:
    """op name -> the aclnn APIs its op-plugin implementation executes (EXEC_NPU_CMD... in ops/opapi)."""
    apis: dict[str, list[str]] = collections.defaultdict(list)
    for source in sorted((OP_PLUGIN / "ops" / "opapi").glob("*.cpp")):
        text = source.read_text(errors="replace")
        definitions = list(re.finditer(r"^[A-Za-z][\w:<>, ]*?\b(\w+)\(", text, re.M))
        for here, after in zip(definitions, definitions[1:] + [None]):
            body = text[here.end():after.start() if after else len(text)]
            for api in re.findall(r"(?:EXEC_NPU_\w*CMD\w*|DO_COMPATIBILITY)\(\s*(aclnn\w+)", body):
                if api not in apis[here.group(1)]:
                    apis[here.group(1)].append(api)
    return apis


def op_plugin_customs() -> set[str]:
    """The operators op-plugin's yaml gives an op_api implementation for torch_npu 2.13 (those under
    npu:: are the custom ones, whichever section of the yaml lists them)."""
    yaml = (OP_PLUGIN / "config" / "op_plugin_functions.yaml").read_text()
    names = set()
    for entry in re.split(r"\n  - func: ", yaml)[1:]:
        name = re.match(r"[\w.]+", entry).group(0)
        versions = re.search(r"op_api: (.*)", entry)
        if versions and ("all_version" in versions.group(1) or "newest" in versions.group(1)
                         or "v2.13" in versions.group(1)):
            names.add(name)
    return names


def hand_made() -> set[str]:
    """The names the hand-made calls are kept under (in the driver, which has no device)."""
    os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    return set(makers())


def registered(env) -> list[str]:
    script = ("import torch, torch_npu, json\n"
              "print(json.dumps(sorted(str(s.name).split('::', 1)[1] + ('.' + s.overload_name if s.overload_name else '')"
              " for s in torch._C._jit_get_all_schemas() if str(s.name).startswith('npu::'))))")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def drive(names: list[str], out: Path, env, dtype: str) -> None:
    import select
    import time

    done = {json.loads(line)["op"] for line in out.read_text().splitlines()} if out.exists() else set()
    pending = [n for n in names if n not in done]
    print(f"{len(pending)} operators to run", file=sys.stderr, flush=True)
    apis = op_plugin_apis()
    # The workers run in a scratch directory: some operators write files where they run (torch_npu's
    # tensor dumps, tensor_<time>_device_0_0.pt).
    with out.open("a") as records, tempfile.TemporaryDirectory() as scratch:
        while pending:
            log = tempfile.TemporaryFile()
            command = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(pending), "--dtype", dtype]
            process = subprocess.Popen(command, env=env, cwd=scratch, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
            current, since = None, time.time()
            while True:
                ready, _, _ = select.select([process.stdout], [], [], 5)
                if not ready:
                    if current and time.time() - since > HANG:
                        process.kill()
                        break
                    continue
                line = process.stdout.readline()
                if not line:
                    break
                if not line.startswith("{"):
                    continue
                event = json.loads(line)
                if "start" in event:
                    current, since = event["start"], time.time()
                    continue
                event["apis"] = apis.get(event["op"].split("@")[0].split(".")[0], [])
                records.write(json.dumps(event) + "\n")
                records.flush()
                pending.remove(event["op"])
                current = None
            process.wait()
            if current:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - 1500))
                why = " ".join(log.read().decode(errors="replace").split()[-30:])
                records.write(json.dumps({"op": current, "verdict": "crash", "why": f"exit {process.returncode}: {why}",
                                          "apis": apis.get(current.split("@")[0].split(".")[0], [])}) + "\n")
                records.flush()
                pending.remove(current)
                print(f"  crash: {current}", file=sys.stderr, flush=True)
            elif pending and process.returncode not in (0, None):
                raise SystemExit(f"the worker failed before any operator (exit {process.returncode})")
            log.close()


CLASSES = ("equal", "wrong", "unchecked", "refused", "missing", "crash", "torch_npu", "bad-args")


def summary(out: Path, details: bool = True) -> None:
    latest = {}
    for line in out.read_text().splitlines():
        record = json.loads(line)
        latest[record["op"]] = record
    by_class = collections.defaultdict(list)
    for name, record in sorted(latest.items()):
        by_class[record["verdict"]].append(record)
    print(f"{len(latest)} operators")
    print(f"{'arguments':10}" + "".join(f"{c:>11}" for c in CLASSES))
    for maker in ("hand", "schema"):
        counts = collections.Counter(r["verdict"] for r in latest.values() if r.get("maker") == maker)
        print(f"{maker:10}" + "".join(f"{counts[c]:>11}" for c in CLASSES))
    print(f"{'all':10}" + "".join(f"{len(by_class[c]):>11}" for c in CLASSES))
    if not details:
        return
    for verdict in CLASSES:
        if not by_class[verdict]:
            continue
        print(f"\n{verdict}:")
        for r in by_class[verdict]:
            maker = "" if r.get("maker") == "hand" else " (schema)"
            apis = ",".join(r.get("apis", [])) or "-"
            print(f"  {r['op']}{maker} [{apis}] {r.get('why', '')[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="JSONL of results (appended to: a rerun resumes)")
    parser.add_argument("--ops", help="comma-separated operator names (default: op-plugin's custom operators)")
    parser.add_argument("--op-api", action="store_true",
                        help="only the operators op-plugin's yaml gives an op_api (aclnn) implementation")
    parser.add_argument("--hand", action="store_true", help="only the operators with hand-made arguments")
    parser.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"),
                        help="the floating dtype of the hand-made calls' inputs (where the operator allows a choice)")
    parser.add_argument("--soc", help="ACLNN_SIM_SOC for the workers (default: the toolkit's)")
    parser.add_argument("--toolkit", type=Path, default=TOOLKIT)
    parser.add_argument("--task-queue", action="store_true", help="without ASCEND_LAUNCH_BLOCKING (torch_npu's default)")
    parser.add_argument("--summary", type=Path, help="print the summary of a JSONL and exit")
    parser.add_argument("--brief", action="store_true", help="with --summary: the counts only")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(args.worker), args.dtype)
        return
    if args.summary:
        summary(args.summary, not args.brief)
        return
    if not args.out:
        parser.error("--out or --summary is required")
    env = environment(args.toolkit, task_queue=args.task_queue)
    if args.soc:
        env["ACLNN_SIM_SOC"] = args.soc
    names = registered(env)
    if args.ops:
        wanted = set(args.ops.split(","))
        names = [n for n in names if n in wanted or n.split(".")[0] in wanted]
    elif args.hand:
        names = [n for n in names if n in hand_made()]
    elif args.op_api:
        customs = op_plugin_customs()
        names = [n for n in names if n.split(".")[0] in customs]
    names += sorted(n for n in hand_made() if "@" in n and n.split("@")[0] in names)
    by_chip = collections.defaultdict(list)  # "": the --soc given, else the toolkit's default
    for name in names:
        by_chip["" if args.soc else CHIP_OF.get(name, CHIP_OF.get(name.split("@")[0].split(".")[0], ""))].append(name)
    for chip, group in sorted(by_chip.items()):
        drive(group, args.out, {**env, "ACLNN_SIM_SOC": chip} if chip else env, args.dtype)
    summary(args.out)


if __name__ == "__main__":
    main()
