"""The names a semantics file's golden expression may use, besides its parameters: `torch`,
`math`, `exact` (below) and `dtype_of`. One home for the generated suites (_aclnn_testing) and for
the generator's own tests that evaluate goldens without the built package (tests/project/test_examples.py).
"""

from __future__ import annotations

import math
from typing import Any, Optional


def golden_names(dtype_of: dict[str, Any]) -> dict[str, Any]:
    """The namespace a golden is evaluated in; `dtype_of` maps each tensor parameter to its own
    torch dtype, for goldens that round as the device does (their tensors hold the compute dtype)."""
    import torch

    return {"torch": torch, "math": math, "exact": exact, "dtype_of": dtype_of}


class Unmodelled(Exception):
    """A golden's answer to an output it has no formula for (a quantiser's FLOAT8 or HIFLOAT8 y, which its
    integer formula does not give): the call has no golden, which the suite says in its skip."""


class exact:  # noqa: N801 - the name goldens spell: exact.fmod(self, other)
    """Goldens of ops whose PyTorch result depends on which of its kernels runs, as the exact one
    computes them. PyTorch's vectorised fmod (and remainder, which corrects it) is NaN where the
    quotient overflows (fmod(8.5e37, 1.2e-38) in float, fmod(4.5e307, 5e-324) in double), its
    scalar kernel, which a tensor's last few elements take, is C's exact fmod."""

    @staticmethod
    def refused(message: str) -> Any:
        """A golden's answer to arguments its PyTorch op does not survive (a C++ division by zero
        that kills the process): an exception, as for any call PyTorch refuses."""
        raise ValueError(message)

    @staticmethod
    def trans_quant_param(scale: Any, offset: Any) -> Any:
        """aclnnTransQuantParamV2/V3's INT64 words: (bits(scale) & 0xFFFFE000) | 1 << 46 |
        (clamp(round(offset), -256, 255) & 0x1FF) << 37, the offset's part absent without one."""
        import torch

        words = (scale.float().contiguous().view(torch.int32).long() & 0xFFFFE000) | (1 << 46)
        if offset is None:
            return words
        return words | ((torch.clamp(torch.round(offset.float()), -256, 255).long() & 0x1FF) << 37)

    # The quantised dtypes a quantiser's dstType names (its aclDataType's value, acl/acl_base.h, or the dtype's
    # name): the range it saturates to and whether its elements are INT4 packed eight to an INT32 word along
    # the last dimension (dstType 3, "INT32实际为8个INT4拼接"), as runtime/sim's quantised_out.h writes them.
    QUANTISED = {2: (-128, 127, False), 29: (-8, 7, False), 3: (-8, 7, True),
                 "INT8": (-128, 127, False), "INT4": (-8, 7, False), "INT32": (-8, 7, True)}

    @staticmethod
    def _quantised_range(dst: Any) -> tuple[int, int, bool]:
        if dst not in exact.QUANTISED:
            raise Unmodelled(f"dstType {dst} names no integer dtype the quantisers' goldens round to")
        return exact.QUANTISED[dst]

    @staticmethod
    def quantised_max(dst: Any) -> int:
        """The largest value of the dtype dstType names (a dynamic quantiser's dtypeMax: INT8's 127, INT4's 7):
        its symmetric scale is max|v| / this, its asymmetric one (max v - min v) / (2 * this + 1)."""
        return exact._quantised_range(dst)[1]

    @staticmethod
    def quantised(values: Any, dst: Any) -> Any:
        """Rounded values saturated to the range of the dtype dstType names, as its elements: INT8 (and INT4,
        which torch cannot compute in: int8 holding its values, which the harness compares with the INT4
        result's) as int8, INT32 words of eight INT4 along the last dimension (element 8i in bits 0-3 of word
        i, two's complement) as int32. A NaN quantises to 0, as the simulator's quantisers write it."""
        import torch

        low, high, packed = exact._quantised_range(dst)
        saturated = torch.clamp(values.nan_to_num(0.0), low, high)
        if not packed:
            return saturated.to(torch.int8)
        nibbles = saturated.to(torch.int64) & 0xF
        if nibbles.dim() == 0 or nibbles.shape[-1] % 8:
            raise ValueError(f"INT32 words of eight INT4 take a last dimension divisible by 8, not {tuple(nibbles.shape)}")
        words = nibbles.reshape(*nibbles.shape[:-1], -1, 8) << (4 * torch.arange(8))
        packed_words = words.sum(-1)
        return torch.where(packed_words >= 2**31, packed_words - 2**32, packed_words).to(torch.int32)

    @staticmethod
    def fmod(a: Any, b: Any) -> Any:
        import torch

        dtype = torch.result_type(a, b)
        if not dtype.is_floating_point:
            return torch.fmod(a, b)
        a, b = torch.broadcast_tensors(torch.as_tensor(a, dtype=dtype), torch.as_tensor(b, dtype=dtype))
        # math.fmod refuses what C's fmod makes NaN: an infinite dividend, a zero divisor.
        values = [math.fmod(x, y) if y != 0 and not math.isinf(x) else math.nan
                  for x, y in zip(a.flatten().tolist(), b.flatten().tolist())]
        return torch.tensor(values, dtype=dtype).reshape(a.shape)

    @staticmethod
    def remainder(a: Any, b: Any) -> Any:
        """Python's modulus: fmod, plus the divisor where their signs differ (PyTorch's scalar kernel)."""
        import torch

        if not torch.result_type(a, b).is_floating_point:
            return torch.remainder(a, b)
        m = exact.fmod(a, b)
        b = torch.as_tensor(b, dtype=m.dtype)
        return torch.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)

    @staticmethod
    def class_targets(target: Any, classes: int, ignore_index: int) -> Any:
        """A negative log likelihood backward's targets as int64, each a class in [0, classes) or
        ignore_index: PyTorch's CPU nll_loss(2d)_backward writes through them unchecked (a class
        outside corrupts the process's heap), so such targets have no PyTorch answer: IndexError."""
        target = target.long()
        valid = ((target >= 0) & (target < classes)) | (target == ignore_index)
        if target.numel() and not bool(valid.all()):
            raise IndexError(f"a target outside the classes [0, {classes})")
        return target

    def plane_indices(indices: Any, plane: Any) -> Any:
        """A pool backward's indices as int64, each within the input plane of shape `plane`:
        PyTorch's CPU kernels scatter through them unchecked (an index outside the plane writes
        past the gradient's memory), so such indices have no PyTorch answer: IndexError."""
        extent = math.prod(plane)
        indices = indices.long()
        if indices.numel() and not bool(((indices >= 0) & (indices < extent)).all()):
            raise IndexError(f"an index outside the plane's [0, {extent})")
        return indices

    @staticmethod
    def _mask_windows(kernel: Any, stride: Any, padding: Any, dilation: Any, pooled: Any):
        """aclnnMaxPool2dWithMask's window geometry: (kH, kW) and, by output position (row-major
        over `pooled`, [Hout, Wout]), the input row and column of each window's kernel position 0."""
        import torch

        def two(values: Any, default: Any) -> list[int]:
            values = list(values) or list(default)
            return values * 2 if len(values) == 1 else values

        k, d, p = two(kernel, ()), two(dilation, ()), two(padding, ())
        s = two(stride, k)
        oh, ow = torch.meshgrid(torch.arange(pooled[0]), torch.arange(pooled[1]), indexing="ij")
        return k, s, p, d, (oh * s[0] - p[0]).flatten(), (ow * s[1] - p[1]).flatten()

    @staticmethod
    def max_pool2d_mask(self: Any, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> Any:
        """aclnnMaxPool2dWithMask's (out, mask) from PyTorch's max pool and its indices, in the
        simulator's mask layout (pool.cpp): byte 2p of row kh * kW + kw is 1 where that kernel
        position of output position p's window held the max."""
        import torch

        k0, s0 = list(kernel), list(stride) or list(kernel)
        out, indices = torch.ops.aten.max_pool2d_with_indices(self, k0, s0, list(padding), list(dilation), ceil_mode)
        k, _, _, d, h0, w0 = exact._mask_windows(kernel, stride, padding, dilation, out.shape[-2:])
        width = self.shape[-1]
        flat = indices.flatten(-2)
        position = (flat // width - h0) // d[0] * k[1] + (flat % width - w0) // d[1]
        positions = flat.shape[-1]
        mask = torch.zeros(*flat.shape[:-1], k[0] * k[1], ((positions + 15) // 16 + 1) * 32, dtype=torch.int8)
        lead = torch.meshgrid(*[torch.arange(n) for n in flat.shape], indexing="ij")
        mask[tuple(lead[:-1]) + (position, 2 * lead[-1])] = 1
        return out, mask

    @staticmethod
    def max_pool2d_mask_backward(grad: Any, self: Any, mask: Any, kernel: Any, stride: Any, padding: Any,
                                 dilation: Any) -> Any:
        """aclnnMaxPool2dWithMaskBackward in the simulator's mask layout (pool.cpp): grad[p] added
        at each position of p's window inside the input whose 16-bit word (bytes 2p, 2p + 1 of the
        kernel position's row) is not 0, output position by output position as the kernel and
        aten's backward add (the order decides a sum of values far apart in magnitude)."""
        import torch

        k, _, _, d, h0, w0 = exact._mask_windows(kernel, stride, padding, dilation, grad.shape[-2:])
        height, width = self.shape[-2:]
        words = mask.to(torch.int64) & 0xFF
        words = words[..., 0::2] | words[..., 1::2] << 8
        result = torch.zeros(*self.shape[:-2], height * width, dtype=grad.dtype)
        g = grad.flatten(-2)
        for p in range(h0.numel()):
            for kh in range(k[0]):
                for kw in range(k[1]):
                    h, w = int(h0[p]) + kh * d[0], int(w0[p]) + kw * d[1]
                    if 0 <= h < height and 0 <= w < width:
                        at = h * width + w
                        taken = words[..., kh * k[1] + kw, p] != 0
                        result[..., at] = torch.where(taken, result[..., at] + g[..., p], result[..., at])
        return result.reshape(self.shape)

    @staticmethod
    def mask_bits(mask: Any, shape: Any) -> Any:
        """A dropout's bit mask (UINT8, bit i of byte i / 8 for element i, least significant first) as
        0/1 values of `shape`."""
        import torch

        count = math.prod(shape)
        bytes_ = mask.flatten().to(torch.int64)
        bits = (bytes_.unsqueeze(-1) >> torch.arange(8)) & 1
        return bits.flatten()[:count].reshape(tuple(shape)).to(torch.float64)

    @staticmethod
    def packed_mask(keep: Any) -> Any:
        """The bit mask of a bool tensor, as exact.mask_bits reads it, padded to 128 bits with 0."""
        import torch

        bits = keep.flatten().to(torch.int64)
        bits = torch.cat([bits, bits.new_zeros((-bits.numel()) % 128)]).reshape(-1, 8)
        return (bits << torch.arange(8)).sum(-1).to(torch.uint8)

    @staticmethod
    def rotary(x: Any, cos: Any, sin: Any, mode: int) -> Any:
        """aclnnRotaryPositionEmbedding's formula (torch_npu.npu_rotary_mul has no aten op):
        x * cos + rotate(x) * sin along the last dimension, rotate by mode: 0 half (-x2, x1),
        1 interleave (pairs (-x[2i + 1], x[2i])), 2 quarter (-x2, x1, -x4, x3); 3 interleave-half
        takes (x_even, x_odd) for x and (-x_odd, x_even) for rotate(x)."""
        import torch

        h, q = x.shape[-1] // 2, x.shape[-1] // 4
        even, odd = x[..., ::2], x[..., 1::2]
        if mode == 3:
            return torch.cat((even, odd), -1) * cos + torch.cat((-odd, even), -1) * sin
        rotated = {0: lambda: torch.cat((-x[..., h:], x[..., :h]), -1),
                   1: lambda: torch.stack((-odd, even), -1).reshape(x.shape),
                   2: lambda: torch.cat((-x[..., q:h], x[..., :q], -x[..., 3 * q:], x[..., h:3 * q]), -1)}[mode]()
        return x * cos + rotated * sin

    @staticmethod
    def clipped_swiglu(x: Any, group_index: Any, dim: int, alpha: float, limit: float, bias: float,
                       interleaved: bool) -> Any:
        """aclnnClippedSwiglu's formula (torch_npu.npu_clipped_swiglu has no aten op): x viewed as
        [pre, cut * after] (cut: dim's extent), halves A, B as its columns' even and odd ones
        (interleaved) or first and second half, A.clamp(max=limit) * sigmoid(alpha * A.clamp(max=limit))
        * (B.clamp(-limit, limit) + bias), 0 on the rows past sum(group_index); dim's extent halved.
        Differentiable in x (the gradient's golden)."""
        import torch

        d = dim % x.dim()
        rows = x.reshape(math.prod(x.shape[:d]), -1)
        a, b = (rows[:, ::2], rows[:, 1::2]) if interleaved else rows.chunk(2, 1)
        a = a.clamp(max=limit)
        y = a * torch.sigmoid(alpha * a) * (b.clamp(-limit, limit) + bias)
        if group_index is not None:
            y = torch.where((torch.arange(y.shape[0]) < int(group_index.sum()))[:, None], y, torch.zeros_like(y))
        return y.reshape(tuple(x.shape[:d]) + (x.shape[d] // 2,) + tuple(x.shape[d + 1:]))

    @staticmethod
    def flash_attention(query: Any, key: Any, value: Any, head_num: int, layout: str, scale: float,
                        **options: Any) -> Any:
        """aclnnFlashAttentionScore's outputs (softmaxMax, softmaxSum, attentionOut: softmaxOut, which
        no row of the pages documents, is an input of the bindings) by the pages' formula in double: softmax(mask(scale * (Q K^T + pse)))
        V per batch and query head (see _attention for the options)."""
        return _attention(query, key, value, head_num, layout, scale, **options)

    @staticmethod
    def flash_attention_grad(query: Any, key: Any, value: Any, dy: Any, head_num: int, layout: str, scale: float,
                             **options: Any) -> Any:
        """aclnnFlashAttentionScoreGrad's (dq, dk, dv, dpse) by the page's backward from the caller's
        softmaxMax, softmaxSum (column 0) and attentionIn (options stats=(max, sum), attention=...)."""
        return _attention(query, key, value, head_num, layout, scale, dy=dy, **options)

    @staticmethod
    def quant_matmul_dequant(x: Any, weight: Any, weight_scale: Any, x_scale: Any, smooth: Any, mode: str) -> Any:
        """aclnnQuantMatmulDequant's out by its page's formula: x * smooth (when given); without x_scale the row's
        max|x| / 127 (pertoken); x_q = round(x / scale_x) half to even, refused outside INT8 (the page does not say
        how it saturates); out = (x_q @ weight^T) * weight_scale * scale_x, or for INT64 weight_scale (x_scale
        folded in by the caller) * the float whose bits are each word's low 32."""
        import numpy as np
        import torch

        xf = x.float() * (smooth.float() if smooth is not None else 1.0)
        if x_scale is None:
            scale = xf.abs().amax(-1, keepdim=True) / 127.0
        else:
            scale = x_scale.float().reshape(-1, 1) if mode == "pertoken" else x_scale.float().reshape(1, 1)
        q = torch.round(xf / scale)
        if not bool(((q >= -128) & (q <= 127)).all()):  # NaN too: no INT8 holds it, as the kernel says
            exact.refused("x / xScale outside INT8")
        acc = q.double() @ weight.double().T
        if weight_scale.dtype == torch.int64:
            words = weight_scale.numpy().astype(np.int64).astype(np.int32)
            return (acc * torch.from_numpy(words.view(np.float32).astype(np.float64))).to(x.dtype)
        return (acc * weight_scale.double() * scale.double()).to(x.dtype)

    @staticmethod
    def nsa_compress(x: Any, weight: Any, seq_ends: Any, block_size: int, stride: int) -> Any:
        """aclnnNsaCompress's output in double: per sequence (seq_ends its cumulative ends) of s tokens, the windows
        k[i * stride : i * stride + block_size] for 0 <= i <= (s - block_size) // stride (the page's formula, none
        when s < block_size), each the sum of its rows weighed per head by weight [block_size, N], the sequences'
        windows one after another."""
        return _nsa_windows(x.double(), weight.double(), seq_ends, block_size, stride).to(x.dtype)

    @staticmethod
    def nsa_compress_with_cache(cache: Any, x: Any, weight: Any, slots: Any, lengths: Any, block_table: Any,
                                block_size: int, stride: int) -> Any:
        """aclnnNsaCompressWithCache's outputCache by its op README's algorithm, in double, the rows of the caller's
        cache no batch writes kept: each batch b whose s = lengths[b] tokens have s >= block_size and
        (s - block_size) % stride == 0 writes row slots[b] with its window (s - block_size) / stride, the sum of its
        tokens weighed per head by weight [block_size, N]; token p of b is x[block_table[b, p // P], p % P] of the
        paged x [blocks, P, N, D], or row p of b's tokens in the packed TND x without a block table. Two batches
        writing one slot (the page: 结果不稳定) and a block outside the cache or the table refused."""
        import torch

        x64, w64 = x.double(), weight.double().unsqueeze(-1)
        cache = cache.double().clone()
        written = set()
        first = 0
        for b, s in enumerate(int(n) for n in lengths):
            tokens_of_b, first = first, first + s
            if s < block_size or (s - block_size) % stride:
                continue
            slot = int(slots[b])
            if not 0 <= slot < cache.shape[0]:
                exact.refused(f"slotMapping[{b}] is {slot}, outside outputCache's rows")
            if slot in written:
                exact.refused(f"slotMapping names row {slot} twice")
            written.add(slot)
            rows = []
            for p in range(s - block_size, s):
                if block_table is None:
                    rows.append(x64[tokens_of_b + p])
                    continue
                page = x.shape[1]
                if p // page >= block_table.shape[1] or not 0 <= int(block_table[b, p // page]) < x.shape[0]:
                    exact.refused(f"batch {b}'s token {p} has no block in the cache")
                rows.append(x64[int(block_table[b, p // page]), p % page])
            cache[slot] = (torch.stack(rows) * w64).sum(0)
        return cache.to(x.dtype)

    @staticmethod
    def nsa_compress_grad(grad: Any, x: Any, weight: Any, seq_ends: Any, block_size: int, stride: int) -> Any:
        """aclnnNsaCompressGrad's (inputGradOut, weightGradOut): the gradients of nsa_compress's weighed window sums
        by autograd in double (its page's dk = W^T dk_cmp and dw = dk_cmp K^T)."""
        import torch

        xd, wd = x.double().requires_grad_(), weight.double().requires_grad_()
        dx, dw = torch.autograd.grad(_nsa_windows(xd, wd, seq_ends, block_size, stride), (xd, wd), grad.double())
        return dx.to(x.dtype), dw.to(weight.dtype)

    @staticmethod
    def nsa_selected_attention(query: Any, key: Any, value: Any, topk_indices: Any, actual_q: Any, actual_kv: Any,
                               scale: float, block_size: int, block_count: int) -> Any:
        """aclnnNsaSelectedAttention's (softmaxMaxOut, softmaxSumOut, attentionOut) by its page's formula in
        double, TND: per sequence b (actual_q, actual_kv its cumulative ends), query token t and query head n,
        selected_key / selected_value the rows i * block_size .. (i + 1) * block_size - 1 of b's keys for each
        block i = topk_indices[t, n // G, c], c < block_count (G = Nq / Nkv), attention_out = softmax(scale *
        q @ selected_key^T) @ selected_value; the statistics [T, Nq, 8]: the row's max and sum of exp(S - max),
        8 times. A block past b's keys refused."""
        import torch

        t_q, heads = query.shape[0], query.shape[1]
        group = heads // key.shape[1]
        q, k, v = query.double(), key.double(), value.double()
        out = torch.zeros(t_q, heads, value.shape[-1], dtype=torch.float64)
        stats = torch.zeros(2, t_q, heads, 8, dtype=torch.float64)
        qe, ke = [0, *actual_q], [0, *actual_kv]
        for b in range(len(actual_q)):
            blocks = (ke[b + 1] - ke[b]) // block_size
            for t in range(qe[b], qe[b + 1]):
                for n in range(heads):
                    chosen = topk_indices[t, n // group, :block_count].long()
                    if bool((chosen < 0).any()) or bool((chosen >= blocks).any()):
                        exact.refused(f"topkIndices names a block outside sequence {b}'s {blocks}")
                    rows = ke[b] + (chosen.reshape(-1, 1) * block_size + torch.arange(block_size)).reshape(-1)
                    s = scale * (k[rows, n // group] @ q[t, n])
                    mx = s.max()
                    e = torch.exp(s - mx)
                    out[t, n] = (e / e.sum()) @ v[rows, n // group]
                    stats[0, t, n], stats[1, t, n] = mx, e.sum()
        return stats[0].float(), stats[1].float(), out.to(query.dtype)

    @staticmethod
    def nsa_compress_attention(query: Any, key: Any, value: Any, mask: Any, q_ends: Any, kv_ends: Any, scale: float,
                               compress_block: int, stride: int, select_block: int, select_count: int) -> Any:
        """aclnnNsaCompressAttention's (softmaxMaxOut, softmaxSumOut, attentionOutOut, topkIndicesOut) by its page's
        formula in double, TND: per sequence b (q_ends, kv_ends its cumulative ends), query token t (row r of b) and
        head n, S = scale * q K^T over b's compressed keys with mask[r, p] true removed, attentionOut = softmax(S) V,
        the statistics [T, N, 8] S's max and sum of exp(S - max); P_cmp = softmax(q K^T), neither scaled nor masked
        as the page writes it, and per key/value head the sum over its G heads of P_slc[j] = sum over m < l'/d and
        i < l/d of P_cmp[l'/d * j - m - i] (an index below 0 adds nothing), j < CeilDiv(CmpSkv, l'/d); topk the
        select_count highest, highest first, a tie among them or at the last refused, as is a row the mask empties."""
        import torch

        heads, kv_heads = query.shape[1], key.shape[1]
        group, ratio, span = heads // kv_heads, select_block // stride, compress_block // stride
        q, k, v = query.double(), key.double(), value.double()
        out = torch.zeros(q.shape[0], heads, v.shape[-1], dtype=torch.float64)
        stats = torch.zeros(2, q.shape[0], heads, 8, dtype=torch.float64)
        chosen = torch.zeros(q.shape[0], kv_heads, select_count, dtype=torch.int32)
        qe, ke = [0, *q_ends], [0, *kv_ends]
        for b in range(len(q_ends)):
            keys = ke[b + 1] - ke[b]
            blocks = -(-keys // ratio)
            for t in range(qe[b], qe[b + 1]):
                seen = torch.ones(keys, dtype=torch.bool) if mask is None else ~mask[t - qe[b], :keys].bool()
                if not bool(seen.any()):
                    exact.refused(f"attenMaskOptional removes every key of token {t}")
                for h in range(kv_heads):
                    importance = torch.zeros(blocks, dtype=torch.float64)
                    for n in range(h * group, (h + 1) * group):
                        raw = k[ke[b]:ke[b + 1], h] @ q[t, n]
                        s = scale * raw[seen]
                        out[t, n] = torch.softmax(s, 0) @ v[ke[b]:ke[b + 1], h][seen]
                        stats[0, t, n], stats[1, t, n] = s.max(), torch.exp(s - s.max()).sum()
                        p_cmp = torch.softmax(raw, 0)
                        for j in range(blocks):
                            importance[j] += sum(float(p_cmp[ratio * j - m - i]) for m in range(ratio)
                                                 for i in range(span) if ratio * j - m - i >= 0)
                    ranked = sorted(range(blocks), key=lambda j: -float(importance[j]))
                    for c in range(select_count):
                        if c + 1 < blocks and float(importance[ranked[c]]) == float(importance[ranked[c + 1]]):
                            exact.refused(f"select blocks {ranked[c]} and {ranked[c + 1]} tie")
                    chosen[t, h] = torch.tensor(ranked[:select_count], dtype=torch.int32)
        return stats[0].float(), stats[1].float(), out.to(query.dtype), chosen

    @staticmethod
    def nsa_compress_attention_infer(query: Any, key: Any, value: Any, block_table: Any, cmp_lens: Any, heads: int,
                                     kv_heads: int, select_block: int, select_count: int, compress_block: int,
                                     stride: int, scale: float) -> Any:
        """aclnnNsaCompressAttentionInfer's (output, topKOutput) by its page's formula in double: per batch b (one
        query token, TND [B, N, D] or BSND [B, 1, N, D]) and query head n, the C = cmp_lens[b] compressed keys p, row
        p % P of block block_table[b, p // P] of the paged key [blocks, P, kv_heads * D], P_cmp = softmax(scale * q
        K^T), output = P_cmp V; per key/value head the sum over its G query heads of P_slc[j] = sum over m <
        select_block / stride and i < compress_block / stride of P_cmp[select_block / stride * j - m - i] (an index
        below 0 adds nothing), j < ceil(C / (select_block / stride)); topKOutput the select_count blocks of highest
        importance, highest first, two equal importances among them or at the last refused (the page leaves ties
        open)."""
        import torch

        bsnd = query.dim() == 4
        q = query.double().reshape(query.shape[0], heads, -1)
        page, dqk = key.shape[1], q.shape[-1]
        k = key.double().reshape(key.shape[0] * page, kv_heads, dqk)
        v = value.double().reshape(value.shape[0] * page, kv_heads, -1)
        group, ratio, span = heads // kv_heads, select_block // stride, compress_block // stride
        out = torch.zeros(q.shape[0], heads, v.shape[-1], dtype=torch.float64)
        chosen = torch.zeros(q.shape[0], kv_heads, select_count, dtype=torch.int32)
        for b, keys in enumerate(int(c) for c in cmp_lens):
            rows = torch.tensor([int(block_table[b, p // page]) * page + p % page for p in range(keys)])
            if bool((rows < 0).any()) or bool((rows >= k.shape[0]).any()):
                exact.refused(f"batch {b}'s keys have a block outside the cache")
            blocks = -(-keys // ratio)
            for h in range(kv_heads):
                importance = torch.zeros(blocks, dtype=torch.float64)
                for n in range(h * group, (h + 1) * group):
                    p_cmp = torch.softmax(scale * (k[rows, h] @ q[b, n]), 0)
                    out[b, n] = p_cmp @ v[rows, h]
                    for j in range(blocks):
                        importance[j] += sum(float(p_cmp[ratio * j - m - i]) for m in range(ratio) for i in range(span)
                                             if ratio * j - m - i >= 0)
                ranked = sorted(range(blocks), key=lambda j: -float(importance[j]))
                for c in range(select_count):
                    if c + 1 < blocks and float(importance[ranked[c]]) == float(importance[ranked[c + 1]]):
                        exact.refused(f"select blocks {ranked[c]} and {ranked[c + 1]} tie")
                chosen[b, h] = torch.tensor(ranked[:select_count], dtype=torch.int32)
        if bsnd:
            return out.unsqueeze(1).to(query.dtype), chosen.unsqueeze(1)
        return out.to(query.dtype), chosen

    @staticmethod
    def nsa_selected_attention_grad(query: Any, key: Any, value: Any, attention: Any, dy: Any, softmax_max: Any,
                                    softmax_sum: Any, topk_indices: Any, actual_q: Any, actual_kv: Any, scale: float,
                                    block_size: int, block_count: int) -> Any:
        """aclnnNsaSelectedAttentionGrad's (dqOut, dkOut, dvOut) by its derived page's formula in double: per query
        token t and head n, the blocks of nsa_selected_attention, P = exp(scale * q K_sel^T - softmaxMax) /
        softmaxSum (column 0 of the statistics), dS = P * (dY V_sel^T - rowsum(dY * attentionOut)), dQ = scale
        dS K_sel, dK_sel = scale dS^T q and dV_sel = P^T dY added to the key/value rows the blocks gathered."""
        import torch

        heads = query.shape[1]
        group = heads // key.shape[1]
        q, k, v, o, g = (x.double() for x in (query, key, value, attention, dy))
        mx, total = softmax_max.double()[..., 0], softmax_sum.double()[..., 0]
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        qe, ke = [0, *actual_q], [0, *actual_kv]
        for b in range(len(actual_q)):
            blocks = (ke[b + 1] - ke[b]) // block_size
            for t in range(qe[b], qe[b + 1]):
                for n in range(heads):
                    h = n // group
                    chosen = topk_indices[t, h, :block_count].long()
                    if bool((chosen < 0).any()) or bool((chosen >= blocks).any()):
                        exact.refused(f"topkIndices names a block outside sequence {b}'s {blocks}")
                    rows = ke[b] + (chosen.reshape(-1, 1) * block_size + torch.arange(block_size)).reshape(-1)
                    p = torch.exp(scale * (k[rows, h] @ q[t, n]) - mx[t, n]) / total[t, n]
                    ds = p * (v[rows, h] @ g[t, n] - (g[t, n] * o[t, n]).sum())
                    dq[t, n] = scale * (ds @ k[rows, h])
                    dk[:, h].index_add_(0, rows, scale * ds.reshape(-1, 1) * q[t, n])
                    dv[:, h].index_add_(0, rows, p.reshape(-1, 1) * g[t, n])
        return dq.to(query.dtype), dk.to(key.dtype), dv.to(value.dtype)

    @staticmethod
    def incre_flash_attention(query: Any, key: Any, value: Any, head_num: int, layout: str, scale: float,
                              atten_mask: Any = None, lengths: Any = None, block_table: Any = None) -> Any:
        """aclnnIncreFlashAttentionV4's attentionOut: one query position per batch over the keys below
        each batch's length (lengths: one, or one per batch), the mask's true keys masked out; with
        block_table, key and value are block caches ([blocks, blockSize, H], or [blocks, N, blockSize,
        D]) whose blocks block_table names in order for each batch."""
        import torch

        b = query.shape[0]
        if block_table is not None:
            def unpage(cache: Any) -> Any:
                rows = [cache[block_table[i].long()] for i in range(b)]  # [maxBlocks, (N,) blockSize, ...]
                if cache.dim() == 4:  # [blocks, N, blockSize, D]: BNSD
                    return torch.stack([r.transpose(0, 1).reshape(cache.shape[1], -1, cache.shape[-1]) for r in rows])
                dense = torch.stack([r.reshape(-1, cache.shape[-1]) for r in rows])  # [B, Skv, H]
                if layout == "BSH":
                    return dense
                dense = dense.reshape(b, dense.shape[1], -1, query.shape[-1])
                return dense.transpose(1, 2) if layout == "BNSD" else dense
            key, value = unpage(key), unpage(value)
        skv = key.shape[2] if layout == "BNSD" else key.shape[1]
        masked = torch.zeros(b, skv, dtype=torch.bool)
        if lengths is not None and len(lengths):
            ends = torch.tensor([lengths[0] if len(lengths) == 1 else lengths[i] for i in range(b)]).reshape(-1, 1)
            masked |= torch.arange(skv).reshape(1, -1) >= ends
        if atten_mask is not None:
            masked |= atten_mask.bool().reshape(b, -1)[:, :skv]
        return _attention(query, key, value, head_num, layout, scale, sparse_mode=1,
                          atten_mask=masked.reshape(b, 1, 1, skv))[-1]

    @staticmethod
    def moe_gating_top_k(x: Any, k: int, k_group: int, group_count: int, group_select_mode: int,
                         scaling: float, eps: float) -> Any:
        """aclnnMoeGatingTopK's (yOut, expertIdxOut, outOut) by its page's formula with sigmoid and
        no bias: the k_group groups of the best max (mode 0) or top-2 sum (1), then the k best experts of
        those (ties to the lower group and expert, as a stable descending sort gives them), y
        renormalised by its sum plus eps and scaled; in float."""
        import torch

        norm = torch.sigmoid(x.float())
        grouped = norm.reshape(norm.shape[0], group_count, -1)
        score = grouped.amax(-1) if group_select_mode == 0 else grouped.topk(2, -1).values.sum(-1)
        kept = torch.sort(score, stable=True, dim=-1, descending=True).indices[:, :k_group]
        dropped = torch.ones_like(score, dtype=torch.bool).scatter(1, kept, False)
        candidates = grouped.masked_fill(dropped.unsqueeze(-1), -math.inf).reshape(norm.shape)
        idx = torch.sort(candidates, stable=True, dim=-1, descending=True).indices[:, :k]
        y = norm.gather(1, idx)
        y = y / (y.sum(-1, keepdim=True) + eps) * scaling
        return y.to(x.dtype), idx.int(), norm

    @staticmethod
    def moe_gating_top_k_softmax(x: Any, finished: Any, k: int, renorm: int, softmax_flag: bool,
                                 row_idx: bool) -> Any:
        """aclnnMoeGatingTopKSoftmax's (yOut, expertIdxOut, rowIdxOut) (`row_idx`) or V2's (yOut,
        expertIdxOut, softmaxResultOutOptional) by their READMEs' formulas, in float over the rows of
        x [..., E]: renorm 0 the k largest of softmax(x) (ranked by x), renorm 1 the softmax of the k
        largest of x (ties to the lower expert, as a stable descending sort gives them); E as the expert of a
        finished row; rowIdxOut[n, j] = j * rows + n; the softmax only when asked for with renorm 0."""
        import torch

        rows, experts = x[..., 0].numel(), x.shape[-1]
        flat = x.float().reshape(rows, experts)
        p = flat.softmax(-1)
        # Ranked by x: softmax is increasing, so the k largest probabilities are those of the k largest
        # x in exact arithmetic, which the probabilities' rounding could tie.
        idx = torch.sort(flat, stable=True, dim=-1, descending=True).indices[:, :k]
        y = p.gather(1, idx) if renorm == 0 else flat.gather(1, idx).softmax(-1)
        if finished is not None:
            idx = idx.masked_fill(finished.reshape(rows, 1).bool(), experts)
        shape = (*x.shape[:-1], k)
        third = (torch.arange(rows * k).reshape(k, rows).t().int() if row_idx
                 else p.reshape(x.shape) if softmax_flag and renorm == 0 else None)
        return y.reshape(shape).to(x.dtype), idx.int().reshape(shape), None if third is None else third.reshape(
            shape if row_idx else x.shape)

    @staticmethod
    def moe_finalize_routing(expanded_x: Any, expanded_row_idx: Any, x1: Any, x2: Any, bias: Any, scales: Any,
                             expert_idx: Any) -> Any:
        """aclnnMoeFinalizeRouting's and V2's out by their READMEs' formula (dropPadMode 0), in float:
        out[i] = x1[i] + x2[i] + sum over k < K of scales[i, k] * (expanded_x[expanded_row_idx[i + k *
        NUM_ROWS]] + bias[expert_idx[i, k]]), absent terms adding nothing; an index outside expanded_x's
        rows or bias's experts refused (the simulator fails phase 2 naming it)."""
        import torch

        rows, k = scales.shape
        row_of = expanded_row_idx.reshape(-1).long()
        # An index outside expandedX's rows or bias's experts faults on the device (Python's indexing
        # would wrap a negative one).
        if row_of.numel() and not (0 <= int(row_of.min()) and int(row_of.max()) < expanded_x.shape[0]):
            exact.refused("expandedRowIdx indexes outside expandedX's rows")
        if bias is not None and expert_idx.numel() and not (
                0 <= int(expert_idx.min()) and int(expert_idx.max()) < bias.shape[0]):
            exact.refused("expertIdx indexes outside bias's experts")
        out = torch.zeros(rows, expanded_x.shape[1])
        for term in (x1, x2):
            if term is not None:
                out += term.float()
        for s in range(k):
            picked = expanded_x.float()[row_of[s * rows:(s + 1) * rows]]
            if bias is not None:
                picked = picked + bias.float()[expert_idx[:, s].long()]
            out += scales.float()[:, s:s + 1] * picked
        return out.to(expanded_x.dtype)

    @staticmethod
    def moe_init_routing(x: Any, row_idx: Any, expert_idx: Any, active_num: int) -> Any:
        """aclnnMoeInitRouting's (expandedXOut, expandedRowIdxOut, expandedExpertIdxOut) by its README's
        formula: keyValueSort(expertIdx, rowIdx) over the flattened [N * K], equal experts in their
        order (stable); expandedRowIdx[sortedRowIdx[i]] = i; expandedX[i] = x[sortedRowIdx[i] % N] for
        i < min(N, activeNum) * K. A rowIdx that is not a permutation of [0, N * K) is refused (the
        scatter would leave elements undefined; the simulator fails phase 2 naming it)."""
        import torch

        rows, k = expert_idx.shape
        values = row_idx.reshape(-1).long()
        if sorted(values.tolist()) != list(range(rows * k)):
            exact.refused("rowIdx is not a permutation of [0, NUM_ROWS * K)")
        experts, order = torch.sort(expert_idx.reshape(-1), stable=True)
        sorted_rows = values[order]
        expanded_row_idx = torch.empty(rows * k, dtype=torch.int32)
        expanded_row_idx[sorted_rows] = torch.arange(rows * k, dtype=torch.int32)
        active = min(rows, active_num) * k
        return x[sorted_rows[:active] % rows], expanded_row_idx, experts.int()

    @staticmethod
    def moe_compute_expert_tokens(sorted_experts: Any, num_experts: int) -> Any:
        """aclnnMoeComputeExpertTokens' out by its README's binary search for the end of each expert's
        rows: out[i] = the number of sortedExperts' elements <= i, i < numExperts (one past expert i's
        last row). Values outside [0, numExperts) or out of order are refused, as the page requires."""
        import torch

        values = sorted_experts.reshape(-1).long()
        if values.numel() and (int(values.min()) < 0 or int(values.max()) >= num_experts
                               or bool((values[1:] < values[:-1]).any())):
            exact.refused("sortedExperts is not non-decreasing in [0, numExperts)")
        return torch.searchsorted(values, torch.arange(num_experts), right=True).int()

    @staticmethod
    def moe_token_permute(tokens: Any, indices: Any, num_out_tokens: int) -> Any:
        """aclnnMoeTokenPermute's (permuteTokensOut, sortedIndicesOut): the N * topK pairs of indices
        (flattened; 1-D: topK 1) sorted by expert, stably; sortedIndicesOut[q] the rank of pair q,
        permuteTokensOut[rank] = tokens[q // topK] for the first num_out_tokens ranks (0: all; negative:
        N * topK + num_out_tokens)."""
        import torch

        flat = indices.reshape(-1).long()
        pairs = flat.numel()
        top_k = 1 if indices.dim() == 1 else indices.shape[1]
        order = torch.sort(flat, stable=True).indices
        rank = torch.empty(pairs, dtype=torch.int64)
        rank[order] = torch.arange(pairs)
        kept = min(num_out_tokens, pairs) if num_out_tokens > 0 else pairs + num_out_tokens
        if kept < 0:
            exact.refused("numOutTokens keeps fewer than 0 rows")
        return tokens[order[:kept] // top_k], rank.int()

    @staticmethod
    def moe_token_permute_grad(grad: Any, sorted_indices: Any, top_k: int) -> Any:
        """aclnnMoeTokenPermuteGrad's out: out[t] = sum over k < numTopk of grad[sortedIndices[t * numTopk
        + k]], in float, the forward's adjoint: an index past grad's M rows but under tokens * numTopk is a
        row the forward dropped with numOutTokens and adds 0; an index outside both refused."""
        idx = sorted_indices.reshape(-1).long()
        rows = max(grad.shape[0], idx.numel())
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= rows):
            exact.refused("sortedIndices outside the forward's tokens * numTopk rows")
        padded = grad.float().new_zeros(rows, grad.shape[1])
        padded[: grad.shape[0]] = grad.float()
        return padded[idx].reshape(-1, top_k, grad.shape[1]).sum(1).to(grad.dtype)

    @staticmethod
    def moe_token_unpermute(permuted: Any, sorted_indices: Any, probs: Any) -> Any:
        """aclnnMoeTokenUnpermute's out: out[i] = sum over j < topK of permuted[sortedIndices[i * topK + j]]
        * probs[i, j] (topK 1, no weight, without probs), in float."""
        idx = sorted_indices.reshape(-1).long()
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= permuted.shape[0]):
            exact.refused("sortedIndices outside permutedTokens' rows")
        top_k = 1 if probs is None else probs.shape[1]
        rows = permuted.float()[idx].reshape(-1, top_k, permuted.shape[1])
        if probs is not None:
            rows = rows * probs.float().unsqueeze(-1)
        return rows.sum(1).to(permuted.dtype)

    @staticmethod
    def moe_token_unpermute_grad(permuted: Any, grad: Any, sorted_indices: Any, probs: Any) -> Any:
        """aclnnMoeTokenUnpermuteGrad's (permutedTokensGradOut, probsGradOut): permutedTokensGradOut[
        sortedIndices[i * topK + j]] = grad[i] * probs[i, j] (no weight without probs), rows no index
        reaches 0; probsGradOut[i, j] = grad[i] . permuted[sortedIndices[i * topK + j]] (None without
        probs); in float. An index outside permuted's rows or held twice refused."""
        import torch

        idx = sorted_indices.reshape(-1).long()
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= permuted.shape[0]
                            or idx.unique().numel() != idx.numel()):
            exact.refused("sortedIndices outside permutedTokens' rows or holding an index twice")
        top_k = 1 if probs is None else probs.shape[1]
        weights = torch.ones(grad.shape[0], top_k) if probs is None else probs.float()
        permuted_grad = torch.zeros(permuted.shape[0], grad.shape[1])
        permuted_grad[idx] = (grad.float().unsqueeze(1) * weights.unsqueeze(-1)).reshape(-1, grad.shape[1])
        if probs is None:
            return permuted_grad.to(grad.dtype), None
        probs_grad = (permuted.float()[idx].reshape(-1, top_k, grad.shape[1]) * grad.float().unsqueeze(1)).sum(-1)
        return permuted_grad.to(grad.dtype), probs_grad.to(probs.dtype)

    @staticmethod
    def moe_token_marked(routing_map: Any, top_k: int, at_most: bool) -> Any:
        """The cells routing_map marks, expert-major (its masked select of routing_map.T), as a boolean map
        [E, T]; a row with another count of marks than topK (at_most: more) refused."""
        marked = routing_map.bool()
        marks = marked.sum(1)
        if bool((marks > top_k if at_most else marks != top_k).any()):
            exact.refused("a routingMap row does not hold topK ones" if not at_most else "a routingMap row holds more than topK ones")
        return marked.t()

    @staticmethod
    def moe_token_permute_map(tokens: Any, routing_map: Any, probs: Any, num_out_tokens: int) -> Any:
        """aclnnMoeTokenPermuteWithRoutingMap's (permuteTokensOut, permuteProbsOutOptional, sortedIndicesOut)
        without drop and pad: the (token, expert) pairs routing_map marks, expert-major; each row of
        permuteTokensOut its token's row, of permuteProbsOutOptional its probs; sortedIndicesOut the stable
        argsort of the pairs' tokens. A row without topK = num_out_tokens // tokens ones refused."""
        import torch

        tokens_num = tokens.shape[0]
        top_k = num_out_tokens // tokens_num if tokens_num else 0
        by_expert = exact.moe_token_marked(routing_map, top_k, False)
        first = torch.arange(tokens_num).expand(by_expert.shape[0], -1).masked_select(by_expert)
        moved_probs = None if probs is None else probs.t().masked_select(by_expert)
        return tokens[first], moved_probs, torch.sort(first, stable=True).indices.int()

    @staticmethod
    def moe_token_unpermute_map(permuted: Any, sorted_indices: Any, routing_map: Any, probs: Any,
                                restore_shape: Any) -> Any:
        """aclnnMoeTokenUnpermuteWithRoutingMap's (unpermutedTokens, outIndex, permuteTokenId, permuteProbs)
        without pad: out[i // topK] += permuted[sortedIndices[i]] * permuteProbs[sortedIndices[i]] in float,
        permuteProbs = probs.T masked by routing_map.T (at most topK ones a row; no weight without probs), a
        -1 index an empty slot; permuteTokenId, outIndex sortedIndices' sort (stable). Indices outside the
        rows refused."""
        import torch

        rows, hidden = restore_shape
        idx = sorted_indices.reshape(-1).long()
        top_k = idx.numel() // rows if rows else 0
        weights = None if probs is None else probs.t().masked_select(exact.moe_token_marked(routing_map, top_k, True))
        bound = permuted.shape[0] if weights is None else min(permuted.shape[0], weights.numel())
        valid = idx != -1
        if bool(((idx[valid] < 0) | (idx[valid] >= bound)).any()):
            exact.refused("sortedIndices outside the permuted rows")
        safe = idx.where(valid, torch.zeros_like(idx))
        picked = permuted.float()[safe] * valid.unsqueeze(-1)
        if weights is not None:
            picked = picked * weights.float()[safe].unsqueeze(-1)
        out = picked.reshape(rows, top_k, hidden).sum(1) if rows else torch.zeros(0, hidden)
        token_id, out_index = torch.sort(idx, stable=True)
        return out.to(permuted.dtype), out_index.int(), token_id.int(), weights

    @staticmethod
    def moe_token_permute_map_grad(grad: Any, probs_grad: Any, sorted_indices: Any, routing_map: Any,
                                   tokens_num: int) -> Any:
        """aclnnMoeTokenPermuteWithRoutingMapGrad's (tokensGradOut, probsGradOutOptional): the adjoint of
        moe_token_permute_map. tokensGradOut[i // topK] += grad[sortedIndices[i]] in float; probsGradOutOptional
        the probs' gradient put back at the cells the map marks, expert-major (None without it)."""
        import torch

        idx = sorted_indices.reshape(-1).long()
        top_k = idx.numel() // tokens_num if tokens_num else 0
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= grad.shape[0]):
            exact.refused("sortedIndices outside permutedTokenOutputGrad's rows")
        tokens_grad = grad.float()[idx].reshape(tokens_num, top_k, grad.shape[1]).sum(1).to(grad.dtype)
        if probs_grad is None:
            return tokens_grad, None
        by_expert = exact.moe_token_marked(routing_map, top_k, False)
        out = torch.zeros(by_expert.shape, dtype=probs_grad.dtype)
        return tokens_grad, out.masked_scatter(by_expert, probs_grad).t()

    @staticmethod
    def moe_token_unpermute_map_grad(grad: Any, out_index: Any, token_id: Any, routing_map: Any, permuted: Any,
                                     probs: Any) -> Any:
        """aclnnMoeTokenUnpermuteWithRoutingMapGrad's (permutedTokensGradOut, probsGradOutOptional): the adjoint
        of moe_token_unpermute_map, outIndex and permuteTokenId both its sortedIndices (as torch_npu's autograd
        passes them). permutedTokensGradOut[outIndex[i]] = grad[i // topK] * permuteProbs[outIndex[i]], rows no
        index names 0, -1 an empty slot; probsGradOutOptional the rows' dot products with their tokens'
        gradient at the map's cells, expert-major; in float. permuteTokenId other than outIndex, or a row
        named twice or outside the rows, refused. The rows: permuted's, else one a slot (op-plugin's)."""
        import torch

        permuted_rows = out_index.numel() if permuted is None else permuted.shape[0]
        rows = out_index.reshape(-1).long()
        if not torch.equal(rows, token_id.reshape(-1).long()):
            exact.refused("permuteTokenId is not outIndex")
        top_k = rows.numel() // grad.shape[0] if grad.shape[0] else 0
        by_expert = None if probs is None else exact.moe_token_marked(routing_map, top_k, True)
        weights = None if probs is None else probs.t().masked_select(by_expert).float()
        bound = permuted_rows if weights is None else min(permuted_rows, weights.numel())
        valid = rows != -1
        slots, rows = torch.arange(rows.numel())[valid], rows[valid]
        if rows.numel() and (int(rows.min()) < 0 or int(rows.max()) >= bound or rows.unique().numel() != rows.numel()):
            exact.refused("outIndex outside the permuted rows or naming one twice")
        token_grad = grad.float()[slots // top_k]
        permuted_grad = torch.zeros(permuted_rows, grad.shape[1])
        permuted_grad[rows] = token_grad * (1 if weights is None else weights[rows].unsqueeze(-1))
        if weights is None or by_expert is None:
            return permuted_grad.to(grad.dtype), None
        expert_order = torch.zeros(weights.numel())
        expert_order[rows] = (token_grad * permuted.float()[rows]).sum(-1)
        probs_grad = torch.zeros(by_expert.shape).masked_scatter(by_expert, expert_order).t()
        return permuted_grad.to(grad.dtype), probs_grad.to(grad.dtype)

    @staticmethod
    def grouped_matmul(x: Any, weight: Any, bias: Any, group_list: Any, split_item: int, group_type: int,
                       group_list_type: int, scale: Any = None, per_token_scale: Any = None,
                       antiquant_scale: Any = None, antiquant_offset: Any = None, dtypes: Any = None) -> Any:
        """aclnnGroupedMatmulV4/V5's out by its README: y_i = x_i @ weight_i + bias_i in float, for groups
        of x's rows (group_type 0: group_list's cumulative ends, type 0, or counts, type 1; or one x per
        group), of its columns (2, the K axis: x [M, K], y_i [M, N]) or one x per group (-1, x_i of any
        rank); a 3-d weight [g, K, N] is g weights, bias [g, N] or one [n_i] each. split_item 0/1: a
        tensor per group; 2/3: one tensor, the groups' rows in order (K axis: stacked [g, M, N]); rows
        no group reaches are zeros. The quantised form (INT8 x and weight, group_type 0 only):
        y_i = (x_i @ weight_i + bias_i) * scale_i [* per_token_scale_i], the product and the INT32 bias
        exact, the scales in float, out BFLOAT16 for a BFLOAT16 scale and FLOAT16 for a FLOAT one (the
        README's A2/A3 table); without scale the INT32 sum. The antiquantised form (FLOAT16/BFLOAT16 x,
        INT8 or INT4 weight, group_type -1 or 0; `dtypes`: each tensor's own dtype, where the tensors hold the
        compute dtype): y_i = x_i @ ((weight_i + antiquant_offset_i) * antiquant_scale_i)
        + bias_i, per column (antiquant_* [g, N] beside a 3-d weight, or [n_i] each; no offset: 0), the
        weight dequantised in float, out x's dtype. Packed UINT64/INT64 scales (an INT8 out, whose rounding
        the README leaves unstated) and what the README rules out are refused."""
        import torch

        xs, ws = list(x), list(weight)
        # The page lists no DOUBLE: a float64 x is an integral one held in the compute dtype, whose
        # product the README gives as INT32 (INT8 x INT8 without scale).
        own = dict(dtypes or {})
        x_dtype, w_dtype = own.get("x", xs[0].dtype), own.get("weight", ws[0].dtype)
        integral = xs[0].dtype in (torch.int8, torch.float64) or x_dtype == torch.int8
        dtype = torch.int32 if integral else xs[0].dtype
        stacked = len(ws) == 1 and ws[0].dim() == 3
        if stacked:
            ws = list(ws[0].unbind(0))
        if not integral and x_dtype.is_floating_point and (ws[0].dtype in (torch.int8, torch.float64) or
                                                           w_dtype in (torch.int8, torch.int4)):  # type: ignore[attr-defined]  # stubs lack int4
            if not antiquant_scale or x_dtype not in (torch.float16, torch.bfloat16) or group_type not in (-1, 0):
                exact.refused("an INT8 weight beside a float x: the antiquantised form (FLOAT16/BFLOAT16 x, "
                              "antiquant_scale, group_type -1 or 0)")

            def per_column(ts: Any) -> Any:
                ts = [t.float() for t in ts]
                return list(ts[0].reshape(len(ws), -1)) if stacked else [t.reshape(-1) for t in ts]

            a_scales = per_column(antiquant_scale)
            a_offsets = per_column(antiquant_offset) if antiquant_offset else [0.0] * len(ws)
            ws = [(w.float() + o) * s for w, s, o in zip(ws, a_scales, a_offsets)]
        elif antiquant_scale or antiquant_offset:
            exact.refused("antiquant_scale or antiquant_offset without an INT8 weight beside a float x")
        scales = tokens = None
        if scale:
            if not integral:
                exact.refused("scale given beside a float x (the quantised form takes INT8)")
            if scale[0].dtype not in (torch.float32, torch.bfloat16):
                exact.refused("a packed scale: its INT8 out's rounding is not stated")
            dtype = torch.bfloat16 if scale[0].dtype == torch.bfloat16 else torch.float16
            scales = [t.reshape(-1, t.shape[-1]) for t in scale]
            scales = list(scales[0].float()) if stacked else [t.float().reshape(-1) for t in scale]
            if per_token_scale:
                tokens = per_token_scale[0].float().reshape(-1)
        elif per_token_scale:
            exact.refused("per_token_scale without scale")
        if integral and group_type != 0:
            exact.refused("the quantised form takes group_type 0 only")
        # An INT8 product and INT32 bias are exact in double, then scaled in float as the kernel does.
        compute = torch.float64 if integral else torch.float32
        bs = None if not bias else (list(bias[0].unbind(0)) if len(bias) == 1 and bias[0].dim() == 2 else list(bias))
        split = split_item in (2, 3)
        if split_item not in (0, 1, 2, 3) or group_type not in (-1, 0, 2) or group_list_type not in (0, 1):
            exact.refused("splitItem, groupType or groupListType out of what the simulator computes")
        sizes = None
        if group_list is not None:
            values = [int(v) for v in group_list.reshape(-1)]
            sizes = values if group_list_type == 1 else [b - a for a, b in zip([0] + values[:-1], values)]
            if any(s < 0 for s in sizes):
                exact.refused("groupList gives a negative group")
        if group_type == 2:
            if len(xs) != 1 or bias:
                exact.refused("the K axis split takes one x and no bias")
            if sizes is None:
                sizes = [w.shape[0] for w in ws]
            elif len(ws) == 1:
                ws = [ws[0]] * len(sizes)
            if len(sizes) != len(ws) or sum(sizes) > xs[0].shape[1]:
                exact.refused("groupList does not split x's K axis")
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            parts = [xs[0].float()[:, s:s + n] @ w.float()[:n] for s, n, w in zip(starts, sizes, ws)]
            if split:
                return [torch.stack(parts).to(dtype)]
            return [p.to(dtype) for p in parts]
        if group_type == -1:
            if sizes is not None or len(xs) != len(ws) or split:
                exact.refused("groupType -1 takes no groupList, an x per weight and splitItem 0/1")
            pieces = [xi.float() for xi in xs]
        elif len(xs) == 1:
            if sizes is None:
                return exact.refused("one x grouped along M needs groupList")
            if len(sizes) != len(ws) or sum(sizes) > xs[0].shape[0]:
                exact.refused("groupList does not group x's rows into a group per weight")
            starts = [sum(sizes[:i]) for i in range(len(sizes))]
            pieces = [xs[0].float()[s:s + n] for s, n in zip(starts, sizes)]
        else:
            if len(xs) != len(ws) or (sizes is not None and sizes != [xi.shape[0] for xi in xs]):
                exact.refused("x's tensors are not the groups groupList gives, one per weight")
            pieces = [xi.float() for xi in xs]
        ys = [p.to(compute) @ w.to(compute) + (bs[i].to(compute) if bs else 0) for i, (p, w) in enumerate(zip(pieces, ws))]
        if scales is not None:
            at = 0
            for i, y in enumerate(ys):
                scaled = y.float() * scales[i]
                if tokens is not None:
                    scaled = scaled * tokens[at:at + y.shape[0]].unsqueeze(-1)
                at += y.shape[0]
                ys[i] = scaled
        elif integral and any(bool((y.abs() > 2**31 - 1).any()) for y in ys):
            exact.refused("x @ weight + bias leaves INT32's range")
        if not split:
            return [y.to(dtype) for y in ys]
        rows = xs[0].shape[0] if len(xs) == 1 else sum(xi.shape[0] for xi in xs)
        out = torch.zeros(rows, ys[0].shape[-1], dtype=ys[0].dtype) if ys else torch.zeros(rows, 0)
        if len({y.shape[-1] for y in ys}) > 1:
            exact.refused("one output takes weights of one N")
        at = 0
        for y in ys:
            out[at:at + y.shape[0]] = y
            at += y.shape[0]
        return [out.to(dtype)]

    @staticmethod
    def grouped_matmul_add(x: Any, weight: Any, group_list: Any, y: Any) -> Any:
        """aclnnGroupedMatmulAdd's yRef: y[i] + x[s_i:e_i]^T @ weight[s_i:e_i] in float, [s_i, e_i) the i-th
        group of x's K rows by group_list's cumulative ends; ends that decrease or pass K refused."""
        ends = [int(v) for v in group_list.reshape(-1)]
        if any(b < a for a, b in zip([0] + ends, ends)) or (ends and ends[-1] > x.shape[0]):
            exact.refused("groupList is not non-decreasing ends within x's K rows")
        out = y.float().clone()
        for i, (start, end) in enumerate(zip([0] + ends[:-1], ends)):
            out[i] += x.float()[start:end].t() @ weight.float()[start:end]
        return out

    @staticmethod
    def ffn(x: Any, weight1: Any, weight2: Any, expert_tokens: Any, bias1: Any, bias2: Any, activation: str,
            tokens_index_flag: bool, x_dtype: Any) -> Any:
        """aclnnFFNV2's y in float32 (innerPrecise 0's): activation(x @ W1 + b1) @ W2 + b2 over x's rows
        ([..., K1] flattened), expert e's rows (expertTokens' counts, or cumulative ends with
        tokensIndexFlag) against W1[e], b1[e], W2[e], b2[e]; gelu the tanh form (aclnnGelu's), fastgelu
        x / (1 + exp(-1.702 x)) (aclnnFastGelu's); in x's own dtype `x_dtype`, FLOAT16 beside an INT8 x (the
        quantised scenario's y, op-plugin's default; the simulator declines that scenario). Rows the experts do
        not cover exactly refused."""
        import torch

        acts = {"gelu": lambda h: torch.nn.functional.gelu(h, approximate="tanh"),
                "fastgelu": lambda h: h / (1 + torch.exp(-1.702 * h)),
                "relu": torch.relu, "silu": torch.nn.functional.silu}
        if activation not in acts:
            exact.refused(f"activation {activation!r} is not simulated")
        rows = x.float().reshape(-1, x.shape[-1])
        tokens = [int(v) for v in expert_tokens or []]
        ends = tokens if tokens_index_flag else [sum(tokens[:i + 1]) for i in range(len(tokens))]
        if not tokens:
            ends, weight1, weight2 = [rows.shape[0]], weight1[None], weight2[None]
            bias1 = None if bias1 is None else bias1[None]
            bias2 = None if bias2 is None else bias2[None]
        if any(b < a for a, b in zip([0] + ends, ends)) or ends[-1] != rows.shape[0]:
            exact.refused("expertTokens does not split x's rows")
        out = torch.zeros(rows.shape[0], weight2.shape[-1])
        for e, (start, end) in enumerate(zip([0] + ends[:-1], ends)):
            h = rows[start:end] @ weight1[e].float()
            if bias1 is not None:
                h = h + bias1[e].float()
            y = acts[activation](h) @ weight2[e].float()
            out[start:end] = y if bias2 is None else y + bias2[e].float()
        return out.reshape(*x.shape[:-1], weight2.shape[-1]).to(torch.float16 if x_dtype == torch.int8 else x_dtype)

    @staticmethod
    def iou(bboxes: Any, gtboxes: Any, mode: str, eps: float, aligned: bool) -> Any:
        """aclnnIou's overlap [N, M]: every pair's intersection over union ("iou") or over the ground-truth
        box's area ("iof"), eps added to every width and height (the derived page's formula), in float, in
        bboxes' dtype. aligned and another mode refused (the simulator declines aligned by name)."""
        if aligned or mode not in ("iou", "iof"):
            exact.refused(f"aligned {aligned} and mode {mode!r} are not simulated")
        b, g = bboxes.float()[:, None], gtboxes.float()[None]
        w = (b[..., 2].minimum(g[..., 2]) - b[..., 0].maximum(g[..., 0]) + eps).clamp(min=0)
        h = (b[..., 3].minimum(g[..., 3]) - b[..., 1].maximum(g[..., 1]) + eps).clamp(min=0)
        inter = w * h
        g_area = (g[..., 2] - g[..., 0] + eps) * (g[..., 3] - g[..., 1] + eps)
        b_area = (b[..., 2] - b[..., 0] + eps) * (b[..., 3] - b[..., 1] + eps)
        return (inter / (g_area if mode == "iof" else b_area + g_area - inter)).to(bboxes.dtype)

    @staticmethod
    def ciou(bboxes: Any, gtboxes: Any, trans: bool, is_cross: bool, mode: str) -> Any:
        """aclnnCIoU's (overlap, atanSub): Complete IoU (Zheng et al., 2020) of the boxes given as coordinate
        rows [4, N] and [4, M] (centre and size when trans), every pair ([M, N]) when is_cross, else box i
        with gtbox i ([1, N]); atanSub = atan(w_gt / h_gt) - atan(w / h). In float, in bboxes' dtype; mode
        "iof" refused (no source says what it divides the penalties by)."""
        import torch

        if mode != "iou":
            exact.refused(f"mode {mode!r} is not simulated")

        def corners(t: Any) -> Any:
            t = t.float()
            if trans:
                return torch.stack((t[0] - t[2] / 2, t[1] - t[3] / 2, t[0] + t[2] / 2, t[1] + t[3] / 2))
            return t
        p, q = corners(bboxes), corners(gtboxes)
        if is_cross:
            p, q = p[:, None, :], q[:, :, None]  # [4, 1, N] and [4, M, 1]: y[j, i] of box i and gtbox j
        else:
            p, q = p[:, None, :], q[:, None, :]
        inter = ((torch.minimum(p[2], q[2]) - torch.maximum(p[0], q[0])).clamp(min=0)
                 * (torch.minimum(p[3], q[3]) - torch.maximum(p[1], q[1])).clamp(min=0))
        area_p, area_q = (p[2] - p[0]) * (p[3] - p[1]), (q[2] - q[0]) * (q[3] - q[1])
        iou = inter / (area_p + area_q - inter)
        dx, dy = (p[0] + p[2] - q[0] - q[2]) / 2, (p[1] + p[3] - q[1] - q[3]) / 2
        cw = torch.maximum(p[2], q[2]) - torch.minimum(p[0], q[0])
        ch = torch.maximum(p[3], q[3]) - torch.minimum(p[1], q[1])
        atan_sub = torch.atan((q[2] - q[0]) / (q[3] - q[1])) - torch.atan((p[2] - p[0]) / (p[3] - p[1]))
        v = 4 / math.pi ** 2 * atan_sub * atan_sub
        overlap = iou - (dx * dx + dy * dy) / (cw * cw + ch * ch) - v * v / (1 - iou + v)
        return overlap.to(bboxes.dtype), atan_sub.to(bboxes.dtype)

    @staticmethod
    def _roi_align_float(x: Any, rois: Any, scale: float, pooled: tuple[int, int], samples: int, end_mode: int) -> Any:
        """aclnnROIAlign's page formula in float (torchvision's RoIAlign; roiEndMode 0 its aligned=False, 3
        aligned=True), written separably: every bin averages a samples x samples grid (0: ceil(RoI size /
        pooled) each way) of bilinear samples at the cells' centres, a sample more than a pixel outside the map
        counting 0; each RoI's batch index read toward zero. Differentiable in x (the backward's golden)."""
        import torch

        if end_mode not in (0, 3):
            exact.refused(f"roiEndMode {end_mode} is not simulated")
        aligned = end_mode == 3

        def bilinear(coords: list[float], size: int) -> Any:  # [samples, size]: each sample's pixel weights
            weights = torch.zeros(len(coords), size)
            for k, v in enumerate(coords):
                if -1 <= v <= size:
                    v = max(v, 0.0)
                    low = min(int(v), size - 1)
                    high = min(low + 1, size - 1)
                    v = float(low) if low == size - 1 else v
                    weights[k, low] += 1 - (v - low)
                    weights[k, high] += v - low
            return weights
        out = []
        for image, *box in rois.float().tolist():
            if not -1 < image < x.shape[0]:
                exact.refused(f"batch index {image} is outside the map's {x.shape[0]} images")
            x1, y1, x2, y2 = (v * scale - (0.5 if aligned else 0.0) for v in box)
            w, h = x2 - x1, y2 - y1
            if not aligned:
                w, h = max(w, 1.0), max(h, 1.0)
            grid_h = samples or math.ceil(h / pooled[0])
            grid_w = samples or math.ceil(w / pooled[1])
            ys = [y1 + (i + 0.5) * h / (pooled[0] * grid_h) for i in range(pooled[0] * grid_h)]
            xs = [x1 + (i + 0.5) * w / (pooled[1] * grid_w) for i in range(pooled[1] * grid_w)]
            sampled = bilinear(ys, x.shape[2]) @ x[int(image)].float() @ bilinear(xs, x.shape[3]).t()
            out.append(sampled.reshape(x.shape[1], pooled[0], grid_h, pooled[1], grid_w).mean((2, 4)))
        return torch.stack(out) if out else torch.zeros(0, x.shape[1], *pooled)

    @staticmethod
    def roi_align(x: Any, rois: Any, spatial_scale: float, pooled_height: int, pooled_width: int, sample_num: int,
                  roi_end_mode: int) -> Any:
        """aclnnROIAlign's out [R, C, pooledHeight, pooledWidth] in x's dtype (exact._roi_align_float)."""
        return exact._roi_align_float(x, rois, spatial_scale, (pooled_height, pooled_width), sample_num,
                                      roi_end_mode).to(x.dtype)

    @staticmethod
    def roi_align_backward(grad: Any, rois: Any, xdiff_shape: Any, pooled_width: int, pooled_height: int,
                           spatial_scale: float, sample_num: int, roi_end_mode: int) -> Any:
        """aclnnROIAlignBackward's out of xdiffShape: the forward's golden differentiated by autograd, in
        grad's dtype."""
        import torch

        x = torch.zeros([int(v) for v in xdiff_shape], requires_grad=True)
        y = exact._roi_align_float(x, rois, spatial_scale, (pooled_height, pooled_width), sample_num, roi_end_mode)
        y.backward(grad.float())
        assert x.grad is not None  # x is a leaf that requires it
        return x.grad.to(grad.dtype)

    @staticmethod
    def coalesce_sparse(unique_len: Any, unique_indices: Any, indices: Any, values: Any) -> Any:
        """aclnnCoalesceSparse's (newIndices, newValues): entry j the indices of the entries uniqueIndices
        sends to j (the last one's, in entry order) and the sum of their values, in the values' dtype;
        positions outside [0, M), M uniqueLen's length, refused."""
        import torch

        m = unique_len.shape[0]
        new_indices = torch.zeros(m, indices.shape[1], dtype=indices.dtype)
        new_values = torch.zeros(m, *values.shape[1:], dtype=values.dtype)
        for i, j in enumerate(int(v) for v in unique_indices.tolist()):  # held as the compute dtype
            if not 0 <= j < m:
                exact.refused(f"uniqueIndices[{i}] = {j} is outside [0, {m})")
            new_indices[j] = indices[i]
            new_values[j] += values[i]
        return new_indices, new_values

    @staticmethod
    def mla_prolog(x: Any, w_dq: Any, w_uq_qr: Any, w_uk: Any, w_dkv_kr: Any, gamma_cq: Any, gamma_ckv: Any,
                   sin: Any, cos: Any, cache_index: Any, kv_cache: Any, kr_cache: Any, eps_cq: float,
                   eps_ckv: float, cache_mode: Any, qc_qr_scale: float = 1.0, kc_scale: float = 1.0) -> Any:
        """aclnnMlaProlog's non-quantised formula (V2's the same; V3's scales cQ by qc_qr_scale and cKV's norm by
        kc_scale): cQ = RmsNorm(x @ W^DQ), [qC | qR'] per head =
        cQ @ W^UQQR, query = qC @ W^UK per head, query_rope = ROPE(qR'), [cKV | kR'] = x @ W^DKVKR, kv_cache and
        kr_cache rows cache_index[t] = RmsNorm(cKV), ROPE(kR'). ROPE is InterleaveRope's rotation (rotary mode 3);
        each product and norm rounded to x's dtype; "PA_NZ" caches hold each block as [H / C0, BlockSize, C0] (C0
        32 bytes). Returns the new kv_cache, kr_cache, query and query_rope."""
        import torch

        dtype = x.dtype
        rows = x.reshape(-1, x.shape[-1]).float()
        t, n, d, hckv = rows.shape[0], w_uk.shape[0], w_uk.shape[1], w_uk.shape[2]
        dr = sin.shape[-1]

        def rms(v: Any, gamma: Any, eps: float, alpha: float) -> Any:
            rstd = 1.0 / torch.sqrt((v.double().pow(2).mean(-1, keepdim=True) + eps).float())
            return (v * rstd * gamma.float() * alpha).to(dtype).float()

        c_q = rms((rows @ w_dq.float()).to(dtype).float(), gamma_cq, eps_cq, qc_qr_scale)
        q = (c_q @ w_uq_qr.float()).to(dtype).float().reshape(t, n, d + dr)
        query = torch.einsum("tnd,ndh->tnh", q[..., :d], w_uk.float())
        sin_t, cos_t = sin.reshape(t, 1, dr).float(), cos.reshape(t, 1, dr).float()
        query_rope = exact.rotary(q[..., d:], cos_t, sin_t, 3)
        k = (rows @ w_dkv_kr.float()).to(dtype).float()
        c_kv = rms(k[:, :hckv], gamma_ckv, eps_ckv, kc_scale)
        k_rope = exact.rotary(k[:, None, hckv:], cos_t, sin_t, 3)[:, 0]
        kv_new, kr_new = kv_cache.clone(), kr_cache.clone()
        for cache, values in ((kv_new, c_kv), (kr_new, k_rope)):
            if cache.numel() == 0:  # Skv 0: the caches are not updated (the pages' constraint)
                continue
            blocks, block_size, width = cache.shape[0], cache.shape[1], cache.shape[-1]
            if cache_mode == "PA_NZ":
                c0 = 32 // cache.element_size()
                flat = cache.reshape(blocks, width // c0, block_size, c0)
            else:
                flat = cache.reshape(blocks, block_size, width)
            for i, slot in enumerate(cache_index.reshape(-1).tolist()):
                b, s = divmod(int(slot), block_size)
                if cache_mode == "PA_NZ":
                    flat[b, :, s, :] = values[i].reshape(width // c0, c0).to(cache.dtype)
                else:
                    flat[b, s, :] = values[i].to(cache.dtype)
        lead = tuple(x.shape[:-1])
        return (kv_new, kr_new, query.reshape(lead + (n, hckv)).to(dtype),
                query_rope.reshape(lead + (n, dr)).to(dtype))

    @staticmethod
    def swiglu_quant(x: Any, smooth: Any, offsets: Any, group_index: Any, activate_left: bool, quant_mode: str,
                     group_list_type: int) -> Any:
        """aclnnSwiGluQuant(V2)'s (yOut, scaleOut) as the page's formulas state them: Act = Swish(A) * B (A the
        left half with activateLeft, else the right), the rows of group g times smooth_scales[g] (a row or one
        value; row 0 without groups, 1 without smooth_scales); dynamic: scale = row_max(|Y|) / 127 (the
        dequantisation scale, the erratum's) and y = round(Y / scale); static: y = round(Y + offsets[g]), half
        to even, saturated to INT8, scaleOut not computed (None). Groups that do not cover x's rows refused
        (the rows past them are left unwritten)."""
        import torch

        half = x.shape[-1] // 2
        rows = x.float().reshape(-1, 2 * half)
        a, b = (rows[:, :half], rows[:, half:]) if activate_left else (rows[:, half:], rows[:, :half])
        act = torch.nn.functional.silu(a) * b
        if group_index is None:
            group = torch.zeros(act.shape[0], dtype=torch.long)
        else:
            ends = group_index.long().reshape(-1)
            ends = ends.cumsum(0) if group_list_type == 1 else ends
            if int(ends[-1]) != act.shape[0]:
                exact.refused("groupIndexOptional does not end at x's rows (the rows past it are left unwritten)")
            group = torch.searchsorted(ends, torch.arange(act.shape[0]), right=True)

        def per_group(t: Any) -> Any:
            t = t.float()
            return t.reshape(-1, 1)[group] if t.dim() == 1 else t[group]

        y = act * per_group(smooth) if smooth is not None else act
        if quant_mode == "static":
            q = torch.round(y + per_group(offsets))
            return torch.clamp(q, -128, 127).to(torch.int8).reshape(*x.shape[:-1], half), None
        scale = y.abs().amax(-1) / 127
        q = torch.clamp(torch.round(y / scale[:, None]), -128, 127).nan_to_num(0)
        return q.to(torch.int8).reshape(*x.shape[:-1], half), scale.reshape(x.shape[:-1])

    @staticmethod
    def dequant_swiglu_quant(x: Any, weight_scale: Any, activation_scale: Any, group_index: Any,
                             activate_left: bool) -> Any:
        """aclnnDequantSwigluQuant's (yOut, scaleOut) in dynamic mode without quant scales, as the fused
        GroupedMatmulSwigluQuant README states its Dequant and Quant: x * weightScale (its group's row, groups as
        counts) * activationScale (its row's value), then swiglu_quant's SwiGLU and per-row quantisation."""
        import torch

        rows = x.double().reshape(-1, x.shape[-1])
        if weight_scale is not None:
            w = weight_scale.double().reshape(-1, x.shape[-1])
            if w.shape[0] > 1:
                group = torch.repeat_interleave(torch.arange(w.shape[0]), group_index.long().reshape(-1))
                w = torch.cat([w[group], w[-1:].expand(rows.shape[0] - group.numel(), -1)])
            rows = rows * w * activation_scale.double().reshape(-1, 1)
        return exact.swiglu_quant(rows.float().reshape(x.shape), None, None, group_index, activate_left, "dynamic", 1)

    @staticmethod
    def grouped_matmul_swiglu_quant(x: Any, weight: Any, weight_scale: Any, x_scale: Any, group_list: Any) -> Any:
        """aclnnGroupedMatmulSwigluQuant's (output, outputScale) as the GroupedMatmulSwigluQuant README states them:
        the rows of expert i ([groupList[i - 1], groupList[i]), cumulative ends) C = (x @ weight[i]) * x_scale *
        w_scale[i] (the product exact, then in float in that order), S = Swish(C's left half) * its right half,
        Q_scale = max|S| / 127, Q = round(S / Q_scale); outputOffset (asymmetric quantisation, unsupported) None.
        Ends that do not reach x's rows refused (the rows past them are left unwritten)."""
        import torch

        ends = group_list.long().reshape(-1)
        if int(ends[-1]) != x.shape[0]:
            exact.refused("groupList does not end at x's rows (the rows past it are left unwritten)")
        group = torch.searchsorted(ends, torch.arange(x.shape[0]), right=True)
        acc = torch.einsum("mk,mkn->mn", x.double(), weight.double()[group]).float()
        c = acc * x_scale.float().reshape(-1, 1) * weight_scale.float()[group]
        return (*exact.swiglu_quant(c, None, None, None, True, "dynamic", 0), None)  # outputOffset: not written

    @staticmethod
    def rope_with_sin_cos_cache(positions: Any, query: Any, key: Any, cache: Any, sections: Any, head_size: int,
                                neox: bool) -> Any:
        """aclnnRopeWithSinCosCache's (queryOut, keyOut) as its README's formulas state them: cosSin =
        cosSinCache[positions] halved into cos and sin (mrope, positions [3, T]: section s of the halves from row
        s), each head's first rotaryDim elements rotated (rotate_half over the halves, rotate_interleaved over the
        even and odd elements), the rest kept. A position outside the cache refused (the README's error)."""
        import torch

        rotary = cache.shape[1]
        half = rotary // 2
        index = positions.long()
        if bool((index < 0).any()) or bool((index >= cache.shape[0]).any()):
            exact.refused("positions outside cosSinCache's rows")
        cos_sin = cache.float()[index]
        cos, sin = cos_sin[..., :half], cos_sin[..., half:]
        if positions.dim() == 2:
            bounds = [0, *torch.tensor(list(sections)).cumsum(0).tolist()]
            cos = torch.cat([cos[s, :, bounds[s]:bounds[s + 1]] for s in range(3)], -1)
            sin = torch.cat([sin[s, :, bounds[s]:bounds[s + 1]] for s in range(3)], -1)

        def rotate(x: Any) -> Any:
            heads = x.float().reshape(x.shape[0], -1, head_size)
            rot, kept = heads[..., :rotary], heads[..., rotary:]
            c, s = cos[:, None, :], sin[:, None, :]
            if neox:
                x1, x2 = rot[..., :half], rot[..., half:]
                rot = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), -1)
            else:
                x1, x2 = rot[..., ::2], rot[..., 1::2]
                rot = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), -1).flatten(-2)
            return torch.cat((rot, kept), -1).reshape(x.shape)

        return rotate(query), rotate(key)

    @staticmethod
    def top_k_top_p_sample(logits: Any, top_k: Any, top_p: Any, q: Any, eps: float, need_logits: bool,
                           min_ps: Any = None, ks_max: Optional[int] = None, input_is_logits: bool = True,
                           need_sample_result: bool = False) -> Any:
        """aclnnTopKTopPSample's (logitsSelectIdx, logitsTopKPSelect) by its page, in double: per row, topK in
        [1, min(V, 1024)] keeps the k largest (ties: the lower index first) sorted descending, a larger one the
        whole row; topP < 1 drops the values whose softmax mass before them exceeds topP (sorting the row if topK
        did not); the index of the largest kept softmax / (q + eps), q read in that sorted order (the row's own
        when neither ran), or of the largest kept value without q (NaN the largest, as torch.argmax); logitsTopKPSelect
        the kept logits at their places, -inf elsewhere (None, unwritten, without isNeedLogits). topK or topP <= 0
        refused (the page: 会引起预期之外的错误), and logits not finite (its 非预期输出 of exp underflowing).

        With ks_max, aclnnTopKTopPSampleV2's (logitsSelectIdx, logitsTopKPSelect, logitsIdx, logitsSortMasked) by
        its page: topK <= 0 or above min(1024, ks_max rounded up to 8) skips top-k, topP <= 0 keeps the largest
        alone; min-p (minPs[b] > 0) keeps the values whose probability is at least minPs[b] times the largest's (the
        largest alone from 1), compact in their order; input_is_logits False reads the row as probabilities (no
        softmax, top-p's mass their plain sum, 0 for a dropped value); need_sample_result gives logitsSortMasked (the
        kept probabilities, softmax over the top-k set, then 0) and logitsIdx (each place's input index, the dropped
        places after the kept in the same order) and no logitsSelectIdx (None); otherwise those two are None."""
        import torch

        if not bool(torch.isfinite(logits).all()):
            exact.refused("logits not finite (the page: exp(logits) below FLOAT's least value gives unexpected output)")
        v2 = ks_max is not None
        if v2 and not input_is_logits and not bool(((logits >= 0) & (logits <= 1)).all()):
            exact.refused("inputIsLogits false with a value outside [0, 1]")
        most = 1024 if ks_max is None else min(1024, (int(ks_max) + 7) // 8 * 8)
        rows, vocab = logits.shape
        x = logits.double()
        dropped = float("-inf") if input_is_logits else 0.0
        idx = torch.empty(rows, dtype=torch.int64)
        select = torch.full((rows, vocab), dropped, dtype=torch.float32)
        sorted_idx = torch.empty(rows, vocab, dtype=torch.int64)
        sorted_probs = torch.zeros(rows, vocab, dtype=torch.float32)
        min_p = min_ps.double().reshape(rows) if v2 and min_ps is not None else torch.zeros(rows, dtype=torch.float64)
        for b in range(rows):
            k, p, mp = int(top_k[b]), float(top_p[b]), float(min_p[b])
            if not v2 and (k <= 0 or p <= 0):
                exact.refused("topK or topP not positive")
            by_k = 1 <= k <= min(vocab, most)
            # `order`: every place of the row in the order the steps read it; the first `count` are kept.
            order = torch.arange(vocab)
            if by_k or p < 1:
                order = torch.sort(x[b], descending=True, stable=True).indices
            count = k if by_k else vocab
            values = x[b, order[:count]]
            prob = torch.softmax(values, 0) if input_is_logits else values
            if p <= 0 and v2:
                count = 1
            elif p < 1:
                # The mass before each value as running sums over their total, in the order the kernel family adds
                # them (a tie of the mass with p decided alike).
                weight = torch.exp(values - values.max()) if input_is_logits else values
                running = torch.cumsum(weight, 0)
                before = torch.cat([running.new_zeros(1), running[:-1]]) / (running[-1] if input_is_logits else 1.0)
                count = int((before <= p).long().cumprod(0).sum())
            prob = prob[:count]
            if mp > 0:
                largest = int(torch.argmax(prob))
                keep = torch.zeros(count, dtype=torch.bool)
                if mp >= 1:
                    keep[largest] = True
                else:
                    keep = prob >= prob[largest] * mp
                rest = torch.ones(vocab, dtype=torch.bool)
                rest[:count] = ~keep
                order = torch.cat([order[:count][keep], order[rest]])
                prob, count = prob[keep], int(keep.sum())
            if need_logits:
                select[b, order[:count]] = x[b, order[:count]].float()
            sorted_idx[b] = order
            sorted_probs[b, :count] = prob.float()
            score = prob if q is None else prob / (q[b, :count].double() + eps)
            idx[b] = order[int(torch.argmax(score))]
        results = (None if need_sample_result else idx, select if need_logits else None)
        if not v2:
            return results
        return results + ((sorted_idx, sorted_probs) if need_sample_result else (None, None))

    @staticmethod
    def swiglu_group_grad(grad_y: Any, x: Any, weight: Any, y_origin: Any, group_index: Any, clamp: float) -> Any:
        """aclnnSwigluGroupQuantGrad's (gradXOut, gradWeightOutOptional) by its page, in double: x's halves x0, x1
        clamped when clamp > 0 (x0 at most c, x1 within [-c, c]); grad_y0 = gradY * weight; grad_x0 = grad_y0 * x1'
        * dSiLU(x0') where x0 < c, grad_x1 = grad_y0 * SiLU(x0') where -c < x1 < c; gradWeight[t] = sum_h gradY[t, h]
        * yOrigin[t, h]; both zero past sum(groupIndex) rows. A weight without yOrigin refused (the page needs
        both); without weight, gradWeight is the empty tensor op-plugin passes, left unwritten."""
        import torch

        h = x.shape[-1] // 2
        xs, g = x.double().reshape(-1, 2 * h), grad_y.double().reshape(-1, h)
        rows = xs.shape[0]
        trunc = rows if group_index is None else max(0, min(int(group_index.long().sum()), rows))
        x0, x1 = xs[:, :h], xs[:, h:]
        c = clamp if clamp > 0 else float("inf")
        a, b = x0.clamp(max=c), x1.clamp(-c, c)
        s = torch.sigmoid(a)
        g0 = g * weight.double().reshape(-1, 1) if weight is not None else g
        # The clamps' masks select (a NaN gradient outside them gives 0), as the kernel family does.
        gx = torch.cat([torch.where(x0 < c, g0 * b * s * (1 + a * (1 - s)), 0.0),
                        torch.where((-c < x1) & (x1 < c), g0 * a * s, 0.0)], -1)
        gx[trunc:] = 0
        if weight is None:
            return gx.reshape(x.shape).to(x.dtype), torch.empty(0)
        if y_origin is None:
            exact.refused("weightOptional without yOriginOptional")
        gw = (g * y_origin.double().reshape(-1, h)).sum(-1)
        gw[trunc:] = 0
        return gx.reshape(x.shape).to(x.dtype), gw.float().reshape(weight.shape)

    @staticmethod
    def scatter_list(var: Any, indice: Any, updates: Any, mask: Any, axis: int) -> Any:
        """aclnnScatterList's varRef by its page: each member b (one shape, rank r) unless mask[b] is 0 takes
        updates[b] at indice[b] onward along dimension axis - 1 (axis over updates' rank r + 1). A window past the
        member's dimension refused (the README: 不支持索引越界)."""
        dim = (axis + updates.dim() if axis < 0 else axis) - 1
        window = updates.shape[dim + 1]
        out = [t.clone() for t in var]
        for b, t in enumerate(out):
            if mask is not None and int(mask.reshape(-1)[b]) == 0:
                continue
            start = int(indice.reshape(-1)[b])
            if start < 0 or start + window > t.shape[dim]:
                exact.refused("indice's window outside varRef's dimension")
            t.narrow(dim, start, window).copy_(updates[b])
        return out

    @staticmethod
    def advance_step(tokens: Any, sampled: Any, positions: Any, seq_lens: Any, slots: Any, block_tables: Any,
                     num_queries: int, block_size: int) -> Any:
        """aclnnAdvanceStep's in-place (inputPositions, seqLens, slotMapping), vLLM's advance_step_flashattn as the
        page's formula reads with it: for each query i with n = seqLens[i] before the step, position n, length n + 1,
        slot blockTables[i, n // blockSize] * blockSize + n % blockSize; the sequences past the queries kept. A
        block index past blockTables' columns refused (the page bounds the columns by it)."""
        n = seq_lens.reshape(-1)[:num_queries].long()
        if bool((n < 0).any()) or bool((n // block_size >= block_tables.shape[1]).any()):
            exact.refused("seqLens reach past blockTables' blocks")
        positions, seq_lens, slots = positions.clone(), seq_lens.clone(), slots.clone()
        positions.reshape(-1)[:num_queries] = n
        seq_lens.reshape(-1)[:num_queries] = n + 1
        rows = block_tables.long()[range(num_queries), n // block_size]
        slots.reshape(-1)[:num_queries] = rows * block_size + n % block_size
        return positions, seq_lens, slots

    @staticmethod
    def moe_gating_top_k_backward(x_norm: Any, grad_y: Any, expert_idx: Any, scaling: float, eps: float) -> Any:
        """aclnnMoeGatingTopKBackward's gradXOut: the gradient, through the forward's sigmoid (normOut * (1 -
        normOut)), of its README's yOut = y / (ReduceSum(y) + eps) * routedScalingFactor with y = normOut at
        expertIdx, by autograd in double. An index outside the experts refused."""
        import torch

        index = expert_idx.long()
        if bool((index < 0).any()) or bool((index >= x_norm.shape[-1]).any()):
            exact.refused("expertIdx outside xNorm's experts")
        norm = x_norm.double().requires_grad_()
        y = norm.gather(-1, index)
        out = y / (y.sum(-1, keepdim=True) + eps) * scaling
        (grad,) = torch.autograd.grad(out, norm, grad_y.double())
        return grad * x_norm.double() * (1 - x_norm.double())

    @staticmethod
    def moe_re_routing(tokens: Any, counts: Any, scales: Any) -> Any:
        """aclnnMoeReRouting's (permuteTokensOut, permutePerTokenScalesOut, permuteTokenIdxOut,
        expertTokenNumOut): the (rank, expert) blocks of tokens, rank-major, moved expert-major; the
        source row of each moved row (gather); the count per expert. Without scales, what the simulator
        writes: 0. Counts that are negative or do not sum to the tokens refused."""
        import torch

        ranks, experts = counts.shape
        c = counts.long()
        if bool((c < 0).any()) or int(c.sum()) != tokens.shape[0]:
            exact.refused("expertTokenNumPerRank does not count the tokens")
        starts = torch.cat([torch.zeros(1, dtype=torch.long), c.flatten().cumsum(0)[:-1]]).reshape(ranks, experts)
        source = torch.cat([torch.arange(int(starts[r, e]), int(starts[r, e] + c[r, e]))
                            for e in range(experts) for r in range(ranks)] + [torch.zeros(0, dtype=torch.long)])
        moved_scales = scales.float()[source] if scales is not None else torch.zeros(tokens.shape[0])
        return tokens[source], moved_scales, source.int(), c.sum(0).to(counts.dtype)

    @staticmethod
    def moe_init_routing_v3(x: Any, expert_idx: Any, scale: Any, expert_num: int, tokens_num_type: int,
                            quant_mode: int, active_expert_range: Any, row_idx_type: int) -> Any:
        """aclnnMoeInitRoutingV3's (expandedXOut, expandedRowIdxOut, expertTokensCountOrCumsumOut,
        expandedScaleOut) by its page's formula in the dropless mode: the pairs j = r*K + s of expert_idx
        sorted by expert, stably; those of experts in [start, end) kept, the i-th reading row j // K of x
        (the page's `% NUM_ROWS` is V1's layout, semantics/moe.toml), copied (quant_mode -1, with
        scale[j // K]) or quantised per row to INT8 with scale[expert - start] as smooth (1). Where the
        page leaves values undefined, what the simulator writes: 0, and -1 for indices."""
        import torch

        rows, k = expert_idx.shape
        start, end = (list(active_expert_range) or [0, expert_num])
        flat = expert_idx.reshape(-1).long()
        order = torch.sort(flat, stable=True).indices
        kept = order[(flat[order] >= start) & (flat[order] < end)]
        experts, n = flat[kept], kept.numel()
        source = x[kept // k]
        expanded_scale = torch.zeros(rows * k)
        if quant_mode == 1:
            v = source.float() * (scale.float()[experts - start] if scale is not None else 1)
            row_scale = v.abs().amax(-1) / 127
            expanded_x = torch.zeros(rows * k, x.shape[1], dtype=torch.int8)
            expanded_x[:n] = torch.clamp(torch.round(v / row_scale.unsqueeze(-1)), -128, 127).to(torch.int8)
            expanded_scale[:n] = row_scale
        else:
            expanded_x = torch.zeros(rows * k, x.shape[1], dtype=x.dtype)
            expanded_x[:n] = source
            if scale is not None:
                expanded_scale[:n] = scale.float()[kept // k]
        row_idx = torch.full((rows * k,), -1, dtype=torch.int32)
        if row_idx_type == 0:
            row_idx[kept] = torch.arange(n, dtype=torch.int32)
        else:
            row_idx[:n] = kept.int()
        counts = torch.bincount(experts - start, minlength=end - start)
        if tokens_num_type == 1:
            tokens = counts
        else:
            present = counts.nonzero().flatten()
            tokens = torch.zeros(expert_num, 2, dtype=torch.int64)
            tokens[:present.numel(), 0] = present + start
            tokens[:present.numel(), 1] = counts[present]
        return expanded_x, row_idx, tokens, expanded_scale

    @staticmethod
    def moe_init_routing_quant_v2(x: Any, expert_idx: Any, scale: Any, offset: Any, active_num: int, expert_num: int,
                                  drop_pad_mode: int, tokens_flag: int, quant_mode: int) -> Any:
        """aclnnMoeInitRoutingQuantV2's (expandedXOut, expandedRowIdxOut, expertTokensCountOrCumsumOutOptional,
        expertTokensBeforeCapacityOutOptional, dynamicQuantScaleOutOptional) by its README's formula, read
        as aclnnMoeInitRoutingV3's (semantics/moe.toml): the pairs j = r*K + s sorted by expert, stably;
        expandedRowIdx[j] = i for all; the first min(N*K, activeNum) (all for 0) read row j // K of x,
        quantised statically (round(x * scale + offset)) or dynamically (x * scale as smooth, its scale
        max|v| / 127). Refused where the README is silent: Drop/Pad, a static value NaN, outside INT8 or
        halfway between two integers; an expert outside [0, expertNum)."""
        import torch

        if drop_pad_mode != 0:
            exact.refused("Drop/Pad: the README does not say what expandedRowIdxOut holds")
        rows, k = expert_idx.shape
        flat = expert_idx.reshape(-1).long()
        if flat.numel() and (flat.min() < 0 or flat.max() >= expert_num):
            exact.refused("an expert outside [0, expertNum)")
        order = torch.sort(flat, stable=True).indices
        row_idx = torch.empty(rows * k, dtype=torch.int32)
        row_idx[order] = torch.arange(rows * k, dtype=torch.int32)
        out_rows = min(rows * k, active_num) if active_num > 0 else rows * k
        source = x.float()[order[:out_rows] // k]
        dynamic_scale = None
        if quant_mode == 0:
            v = source * scale.float().reshape(()) + offset.float().reshape(())
            rounded = torch.round(v)
            if bool(torch.isnan(v).any() | (rounded < -128).any() | (rounded > 127).any()
                    | ((v - torch.trunc(v)).abs() == 0.5).any()):
                exact.refused("a static value NaN, outside INT8 or halfway between two integers")
            expanded_x = rounded.to(torch.int8)
        else:
            v = source * (scale.float().reshape(-1) if scale is not None else 1)
            dynamic_scale = v.abs().amax(-1) / 127 if v.shape[-1] else torch.zeros(out_rows)
            expanded_x = torch.clamp(torch.round(v / dynamic_scale.unsqueeze(-1)), -128, 127).to(torch.int8)
        tokens = None
        if tokens_flag:
            counts = torch.bincount(flat, minlength=expert_num).int()
            tokens = counts.cumsum(0).int() if tokens_flag == 1 else counts
        return expanded_x, row_idx, tokens, None, dynamic_scale

    @staticmethod
    def lstm(input: Any, params: Any, hx: Any, has_bias: bool, num_layers: int, train: bool, bidirectional: bool,
             batch_first: bool) -> Any:
        """aclnnLSTM's (output, hy, cy, then the lists i, j, f, o, h, c, tanh(c)): output, hy and cy
        aten's lstm's; the lists _rnn_steps' while training, none otherwise (the page: "当train=False时，
        无输出值", for every list)."""
        import torch

        h0 = list(hx) if hx else [_zero_state(input, params, num_layers, bidirectional, batch_first)] * 2
        output, hy, cy = torch.lstm(input, h0, list(params), has_bias, num_layers, 0.0, train, bidirectional,
                                    batch_first)
        saved = _rnn_steps("lstm", input, params, h0, has_bias, num_layers, bidirectional, batch_first)
        return (output, hy, cy, *(s if train else [] for s in saved))

    @staticmethod
    def linear_online_max_sum(input: Any, weight: Any, target: Any, vocab_start: int, vocab_end: int) -> Any:
        """aclnnFusedLinearOnlineMaxSum's page formulas: (logits_max, sum_exp_logits, predicted_logits,
        the target mask packed 8 rows a byte (row p at bit p % 8, the bits past the rows set),
        masked_target, the logits input @ weight^T)."""
        import torch

        logits = input.float() @ weight.float().T
        top = logits.max(-1).values
        sub = logits - top.unsqueeze(-1)
        mask = (target < vocab_start) | (target > vocab_end)
        masked = torch.where(mask, torch.zeros_like(target), target - vocab_start)
        predicted = torch.where(mask, 0.0, sub.gather(1, masked.long().unsqueeze(-1)).squeeze(-1))
        bits = torch.cat([mask.long(), mask.new_ones((-mask.numel()) % 8, dtype=torch.long)]).reshape(-1, 8)
        packed = (bits << torch.arange(8)).sum(-1).to(torch.uint8)
        return top, sub.exp().sum(-1), predicted, packed, masked, logits

    @staticmethod
    def cross_entropy_with_max_sum(logits_max: Any, sum_exp_logits: Any, predicted_logits: Any,
                                   vocab_parallel_logits: Any) -> Any:
        """aclnnFusedCrossEntropyLossWithMaxSum's (loss, softmax): log(sum) - predicted, and
        exp(logits - max) / sum when the logits are given."""
        loss = sum_exp_logits.log() - predicted_logits
        if vocab_parallel_logits is None:
            return loss, None
        return loss, (vocab_parallel_logits.float() - logits_max.unsqueeze(-1)).exp() / sum_exp_logits.unsqueeze(-1)

    @staticmethod
    def linear_cross_entropy_grad(grad: Any, input: Any, weight: Any, target_mask: Any, masked_target: Any,
                                  logits_max: Any, sum_exp_logits: Any, softmax: Any) -> Any:
        """aclnnFusedLinearCrossEntropyLossGrad's (input_grad, weight_grad): the softmax (given, or
        exp(input @ weight^T - max) / sum), 1 taken at each unmasked row's target (the mask as
        exact.linear_online_max_sum packs it), scaled by grad per row, then @ weight and ^T @ input."""
        import torch

        if softmax is None:
            softmax = ((input.float() @ weight.float().T) - logits_max.unsqueeze(-1)).exp() / sum_exp_logits.unsqueeze(-1)
        rows = grad.numel()
        masked = exact.mask_bits(target_mask, [target_mask.numel() * 8])[:rows]
        d = softmax.double().clone()
        d[torch.arange(rows), masked_target.long()] -= 1 - masked
        d = (d * grad.double().unsqueeze(-1)).float()
        return d @ weight.float(), d.T @ input.float()

    @staticmethod
    def sum_exp_and_index_logit(logits: Any, target: Any, global_max: Any, vocab_start: int, vocab_end: int) -> Any:
        """aclnnCrossEntropySumExpAndIndexLogit's (predicted, sum_exp, exp_logits, target_offset,
        target_mask): the page's formulas over the shard [vocab_start, vocab_end)."""
        import torch

        exps = (logits.float() - global_max.float().unsqueeze(-1)).exp()
        mask = (target < vocab_start) | (target >= vocab_end)
        offset = torch.where(mask, torch.zeros_like(target), target - vocab_start)
        picked = logits.float().gather(-1, offset.long().unsqueeze(-1)).squeeze(-1) - global_max.float()
        predicted = torch.where(mask, 0.0, picked)
        return predicted, exps.sum(-1), exps, offset.int(), mask.int()

    @staticmethod
    def ada_layer_norm_backward(grad_out: Any, input: Any, rstd: Any, mean: Any, scale: Any, shift: Any, weight: Any,
                                bias: Any) -> Any:
        """aclnnAdaLayerNormBackward's page formulas (gradInput, gradScale, gradShift, gradWeight,
        gradBias) over input [B..., S, H], scale and shift one row per sample ([B..., H] or
        [B..., 1, H]; their gradients in their shapes)."""
        import torch

        h = input.shape[-1]
        row = scale.reshape(*input.shape[:-2], 1, h)
        w = weight if weight is not None else torch.ones(h, dtype=input.dtype)
        b = bias if bias is not None else torch.zeros(h, dtype=input.dtype)
        z = (input - mean) * rstd
        g = grad_out * w * (1 + row)
        grad_input = (g - g.mean(-1, keepdim=True) - z * (g * z).mean(-1, keepdim=True)) * rstd
        grad_scale = (grad_out * (z * w + b)).sum(-2).reshape(scale.shape)
        grad_shift = grad_out.sum(-2).reshape(shift.shape)
        flat = (grad_out * (1 + row)).reshape(-1, h)
        return grad_input, grad_scale, grad_shift, (flat * z.reshape(-1, h)).sum(0), flat.sum(0)

    @staticmethod
    def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int,
                 zero_infinity: bool) -> Any:
        """aclnnCtcLoss's (loss, log_alpha): aten's _ctc_loss on a batch of one for [T, C] log_probs
        (a 0-d loss), an infinite loss 0 with zero_infinity (the page's formula: aten's forward leaves
        that to ctc_loss)."""
        import torch

        batched = log_probs.dim() == 3
        loss, log_alpha = torch.ops.aten._ctc_loss(log_probs if batched else log_probs.unsqueeze(1), targets.long(),
                                                   list(input_lengths), list(target_lengths), blank, zero_infinity)
        if zero_infinity:
            loss = torch.where(torch.isinf(loss), torch.zeros_like(loss), loss)
        return (loss if batched else loss[0]), log_alpha

    @staticmethod
    def lstm_cell(input_gates: Any, hidden_gates: Any, cx: Any, input_bias: Any, hidden_bias: Any) -> Any:
        """aten's _thnn_fused_lstm_cell (CUDA only: PyTorch's CPU has none): (hy, cy, the activations
        i, f, g, o side by side), from the gates' blocks i, f, g, o."""
        import torch

        gates = input_gates + hidden_gates
        if input_bias is not None:
            gates = gates + input_bias + hidden_bias
        i, f, g, o = gates.chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        cy = f * cx + i * g
        return o * cy.tanh(), cy, torch.cat((i, f, g, o), 1)

    @staticmethod
    def lstm_cell_backward(grad_hy: Any, grad_cy: Any, cx: Any, cy: Any, storage: Any) -> Any:
        """aten's _thnn_fused_lstm_cell_backward_impl (CUDA only): (grad_gates, grad_cx, grad_bias),
        the chain rule through exact.lstm_cell from its kept activations (an absent gradient: 0)
        with tanh(cy) as the forward's; grad_bias grad_gates summed over the batch."""
        import torch

        i, f, g, o = storage.chunk(4, 1)
        dh = grad_hy if grad_hy is not None else torch.zeros_like(cy)
        tanh_cy = cy.tanh()
        dc = dh * o * (1 - tanh_cy * tanh_cy) + (grad_cy if grad_cy is not None else 0)
        grad_gates = torch.cat((dc * g * i * (1 - i), dc * cx * f * (1 - f), dc * i * (1 - g * g),
                                dh * tanh_cy * o * (1 - o)), 1)
        return grad_gates, dc * f, grad_gates.sum(0)

    @staticmethod
    def gru(input: Any, params: Any, hx: Any, has_bias: bool, num_layers: int, train: bool, bidirectional: bool,
            batch_first: bool) -> Any:
        """aclnnGRU's (output, hy, then the lists r, z, n, hn, h): output and hy aten's gru's; the
        lists _rnn_steps' (none unless train)."""
        import torch

        h0 = hx if hx is not None else _zero_state(input, params, num_layers, bidirectional, batch_first)
        output, hy = torch.gru(input, h0, list(params), has_bias, num_layers, 0.0, train, bidirectional, batch_first)
        saved = _rnn_steps("gru", input, params, [h0], has_bias, num_layers, bidirectional, batch_first)
        return (output, hy, *(s if train else [] for s in saved))

    @staticmethod
    def rnn_backward(kind: str, input: Any, hx: Any, params: Any, dy: Any, dstate: Any, saved: Any, has_bias: bool,
                     num_layers: int, bidirectional: bool, batch_first: bool) -> Any:
        """aclnnLstmBackward's (dx, dh_prev, dc_prev, dparams) or aclnnGRUBackward's (dx, dh_prev,
        dparams): backpropagation through time from the forward's saved lists (exact.lstm's i, g, f, o,
        h, c, tanh(c); exact.gru's r, z, n, hn, h), layer by layer from the last; dstate the last
        states' gradients (dh, and an LSTM's dc)."""
        import torch

        if num_layers < 1:  # the pages' numLayers > 0: no gradients to give
            exact.refused(f"numLayers {num_layers} is not positive")
        if kind == "gru" and hx[0].dim() == 2:  # one [B, H] state per unit (aclnnGRUBackward's example)
            hx = [torch.stack(list(hx))]
        d, per = 2 if bidirectional else 1, 4 if has_bias else 2
        x0 = input.transpose(0, 1) if batch_first else input
        grad_y = dy.transpose(0, 1) if batch_first else dy
        steps, hidden = x0.shape[0], hx[0].shape[-1]
        dparams: list[Any] = [None] * len(params)
        prev = [torch.zeros_like(m) for m in dstate]
        for layer in reversed(range(num_layers)):
            x = x0 if layer == 0 else torch.cat([saved[4][(layer - 1) * d + k] for k in range(d)], -1)
            dx = torch.zeros_like(x)
            for direction in range(d):
                u = layer * d + direction
                order = list(reversed(range(steps))) if direction else list(range(steps))
                grads = [m[u] for m in dstate]
                dgi: list[Any] = [None] * steps
                dgh: list[Any] = [None] * steps
                h_before: list[Any] = [None] * steps
                for s in reversed(range(steps)):
                    t = order[s]
                    before = [saved[4][u][order[s - 1]], saved[5][u][order[s - 1]] if kind == "lstm" else None] \
                        if s else [hx[0][u], hx[1][u] if kind == "lstm" else None]
                    h_before[t] = before[0]
                    grads[0] = grad_y[t][:, direction * hidden:(direction + 1) * hidden] + grads[0]
                    dgi[t], dgh[t], grads = _rnn_step_grad(kind, [m[u][t] for m in saved], before, grads,
                                                           params[u * per + 1])
                rows_i, rows_h = torch.stack(dgi).flatten(0, 1), torch.stack(dgh).flatten(0, 1)
                dparams[u * per] = rows_i.T @ x.flatten(0, 1)
                dparams[u * per + 1] = rows_h.T @ torch.stack(h_before).flatten(0, 1)
                if has_bias:
                    dparams[u * per + 2], dparams[u * per + 3] = rows_i.sum(0), rows_h.sum(0)
                dx = dx + (rows_i @ params[u * per]).reshape(dx.shape)
                for m, g in zip(prev, grads):
                    m[u] = g
            grad_y = dx
        return (grad_y.transpose(0, 1) if batch_first else grad_y, *prev, dparams)

    # The MX pages' FLOAT8 element types by dstType: torch's dtype, emax, largest value (FLOAT4 has
    # no torch dtype an array of the bindings holds; torch_npu's tests check it).
    _MX_ELEMENTS = {35: ("float8_e5m2", 15, 57344.0), 36: ("float8_e4m3fn", 8, 448.0)}

    @staticmethod
    def _finite_for_mx(x: Any) -> None:
        """The MX pages define a block's shared scale from its largest magnitude: a NaN or infinite
        element leaves it undefined (the OCP specification's NaN scale is not the pages'), which the
        kernels refuse by name; so does the golden, as PyTorch refusing the inputs."""
        import torch

        if not bool(torch.isfinite(x.float()).all()):
            exact.refused("a NaN or infinite element: the page's formula does not define its block's scale")

    @staticmethod
    def mx_quant(x: Any, axis: int, dst_type: int, block: int, scale_alg: int, low_bound: float = 0.0) -> Any:
        """aclnnDynamicMxQuant's page (V2, V3 alike for scaleAlg 0 and 1): blocks of `block` along axis,
        scaleAlg 0 mxscale = 2^(floor(log2 max|V|) - emax) (within E8M0's 2^-127..2^127, as the OCP MX
        specification clamps it), scaleAlg 1 the power of two S = max(max|V|, maxLowBound) / Amax(DType)
        rounds up to by its float bits; y = V / mxscale saturated to +-Amax(DType), rounded half to even
        ("rint"); mxscale [..., pairs of blocks at axis, ..., 2], a missing last block 2^-127 (code 0)."""
        import torch

        exact._finite_for_mx(x)
        name, emax, top = exact._MX_ELEMENTS[dst_type]
        v = x.double().movedim(axis, -1)
        n = v.shape[-1]
        groups = -(-n // block)
        blocks = torch.nn.functional.pad(v, (0, groups * block - n)).reshape(*v.shape[:-1], groups, block)
        amax = blocks.abs().amax(-1)
        if scale_alg == 0:
            exponent = (torch.floor(torch.log2(amax)) - emax).clamp(-127, 127)
        else:
            s = torch.maximum(amax.float(), torch.tensor(float(low_bound))) / torch.tensor(top, dtype=torch.float32)
            bits = s.view(torch.int32).long()
            biased, mantissa = bits >> 23 & 0xFF, bits & 0x7FFFFF
            up = torch.where(biased > 0, (biased < 254) & (mantissa > 0), mantissa > 0x400000)
            exponent = (biased + up.long() - 127).double()
        scale = torch.pow(2.0, exponent)
        q = (blocks / scale.unsqueeze(-1)).clamp(-top, top).float().to(getattr(torch, name))
        y = q.reshape(*v.shape[:-1], groups * block)[..., :n].movedim(-1, axis)
        pairs = -(-groups // 2)
        padded = torch.nn.functional.pad(scale, (0, 2 * pairs - groups), value=2.0 ** -127)
        mxscale = padded.reshape(*scale.shape[:-1], pairs, 2).movedim(-2, axis % x.dim())
        return y, mxscale.float().to(torch.float8_e8m0fnu)

    @staticmethod
    def grouped_mx_quant(x: Any, group_index: Any, dst_type: int, block: int, scale_alg: int) -> Any:
        """aclnnGroupedDynamicMxQuant/V2's page: x [m, n]'s rows cut at groupIndex's cumulative ends, each
        group quantised along dim 0 as exact.mx_quant, its pairs of blocks after the group before's in
        mxscale [m / (block * 2) + g, n, 2], the rows past them 2^-127 (code 0, the pages' pad)."""
        import torch

        ends = [int(e) for e in group_index.tolist()]
        ys, scales = [], []
        for start, end in zip([0] + ends[:-1], ends):
            if end > start:
                y, scale = exact.mx_quant(x[start:end], 0, dst_type, block, scale_alg)
                ys.append(y)
                scales.append(scale.float())
        rows = x.shape[0] // (block * 2) + len(ends)
        used = torch.cat(scales) if scales else torch.zeros(0, x.shape[1], 2)
        pad = torch.full((rows - used.shape[0], x.shape[1], 2), 2.0 ** -127)
        return torch.cat(ys), torch.cat([used, pad]).to(torch.float8_e8m0fnu)

    @staticmethod
    def block_mx_quant(x: Any, dst_type: int) -> Any:
        """aclnnDynamicBlockMxQuant's page, scaleAlg 0: one scale 2^(floor(log2 max|V|) - emax) per 32 x 32
        block of the last two axes, y = V / scale saturated and rounded half to even; scale1 [..., M,
        pairs of column blocks, 2] holds it at each of the block's rows, scale2 [..., pairs of row blocks,
        N, 2] at each of its columns (a pair's missing block 2^-127, code 0)."""
        import torch

        exact._finite_for_mx(x)
        name, emax, top = exact._MX_ELEMENTS[dst_type]
        v = x.double()
        m, n = v.shape[-2:]
        rows, cols = -(-m // 32), -(-n // 32)
        padded = torch.nn.functional.pad(v, (0, cols * 32 - n, 0, rows * 32 - m))
        blocks = padded.reshape(*v.shape[:-2], rows, 32, cols, 32)
        exponent = (torch.floor(torch.log2(blocks.abs().amax((-3, -1)))) - emax).clamp(-127, 127)  # [..., rows, cols]
        scale = torch.pow(2.0, exponent)
        every = scale.repeat_interleave(32, -2).repeat_interleave(32, -1)[..., :m, :n]
        y = (v / every).clamp(-top, top).float().to(getattr(torch, name))

        def paired(s: Any) -> Any:  # [..., k] -> [..., ceil(k / 2), 2], the pad 2^-127
            k = s.shape[-1]
            return torch.nn.functional.pad(s, (0, 2 * (-(-k // 2)) - k), value=2.0 ** -127).reshape(*s.shape[:-1], -1, 2)

        scale1 = paired(scale.repeat_interleave(32, -2)[..., :m, :])
        scale2 = paired(scale.repeat_interleave(32, -1)[..., :, :n].transpose(-1, -2)).transpose(-2, -3)
        return y, scale1.float().to(torch.float8_e8m0fnu), scale2.float().to(torch.float8_e8m0fnu)

    @staticmethod
    def anti_mx_quant(x: Any, mxscale: Any, axis: int) -> Any:
        """aclnnAntiMxQuant's page: y = x * 2^(sf - 127), sf the E8M0 code of x's block of 32 along axis
        (mxscale [..., pairs of blocks at axis, ..., 2]), in float."""
        v = x.float().movedim(axis, -1)
        n = v.shape[-1]
        scale = mxscale.float().movedim(axis % x.dim(), -2)
        scale = scale.reshape(*scale.shape[:-2], -1).repeat_interleave(32, -1)[..., :n]
        return (v * scale).movedim(-1, axis)

    @staticmethod
    def rms_norm_mx_quant(x: Any, gamma: Any, beta: Any, epsilon: float, dst_type: int, scale_alg: int,
                          output_rstd: bool) -> Any:
        """aclnnRmsNormDynamicMxQuant's page: y = x / Rms(x) * gamma + beta over the last axis, Rms(x) =
        sqrt(mean(x^2) + epsilon) (the mean square in double, the rest in float), quantised along -1 as
        exact.mx_quant in blocks of 32; rstdOut = 1 / Rms(x) [..., 1] where outputRstd says so, else
        the page's invalid output, empty as torch_npu passes it (at::empty({0}))."""
        import torch

        exact._finite_for_mx(x)
        rstd = 1 / torch.sqrt((x.double().pow(2).mean(-1, keepdim=True) + epsilon).float())
        y = x.float() * rstd * gamma.float() + (beta.float() if beta is not None else 0)
        return (*exact.mx_quant(y, -1, dst_type, 32, scale_alg), rstd if output_rstd else torch.zeros(0))

    @staticmethod
    def add_rms_norm_mx_quant(x1: Any, x2: Any, gamma: Any, beta: Any, epsilon: float, dst_type: int,
                              scale_alg: int, output_rstd: bool, held: Any) -> Any:
        """aclnnAddRmsNormDynamicMxQuant's page: x = x1 + x2 held in x1's dtype `held` (xOut), then
        exact.rms_norm_mx_quant of it: (yOut, xOut, mxscaleOut, rstdOut)."""
        x = (x1.float() + x2.float()).to(held)
        y, mxscale, rstd = exact.rms_norm_mx_quant(x, gamma, beta, epsilon, dst_type, scale_alg, output_rstd)
        return y, x, mxscale, rstd

    @staticmethod
    def swiglu_mx_quant(x: Any, group_index: Any, activate_dim: int, activate_left: bool, swiglu_mode: int,
                        clamp_limit: float, glu_alpha: float, glu_bias: float, group_mode: int, axis: int,
                        dst_type: int, scale_alg: int) -> Any:
        """aclnnSwigluMxQuant's page: swigluMode 0 Swish(A) * B of x's halves A, B along activateDim
        (activateLeft; else Swish(B) * A), mode 1 A.clamp(max=limit) * sigmoid(alpha * A) *
        (B.clamp(-limit, limit) + bias) of the last axis's even and odd elements (whatever activateLeft:
        the page's "默认对x的偶数块做激活"), in double rounded to float, then exact.mx_quant along axis; with
        groupIndexOptional (counts, or ends with groupMode 1) along the last axis, the rows past its sum 0
        (the page: garbage; the simulator's zeros)."""
        import torch

        v = x.double()
        if swiglu_mode == 1:
            a, b = v[..., 0::2].clamp(max=clamp_limit), v[..., 1::2].clamp(-clamp_limit, clamp_limit)
            y = a * torch.sigmoid(glu_alpha * a) * (b + glu_bias)
        else:
            first, second = v.chunk(2, activate_dim)
            active, other = (first, second) if activate_left else (second, first)
            y = active / (1 + torch.exp(-active)) * other
        y = y.float()
        if group_index is not None:
            if axis % x.dim() != x.dim() - 1:
                exact.refused("groups along a non-last axis: tests/torch_npu/test_mx_quant.py checks them")
            total = int(group_index.sum()) if group_mode == 0 else int(group_index[-1])
            rows = y.reshape(-1, y.shape[-1])
            rows[total:] = 0
            exact._finite_for_mx(rows[:total])
            return exact.mx_quant(rows.reshape(y.shape), axis, dst_type, 32, scale_alg)
        return exact.mx_quant(y, axis, dst_type, 32, scale_alg)

    @staticmethod
    def swiglu_mx_quant_with_dual_axis(x: Any, group_index: Any, activate_left: bool, dst_type: int,
                                       scale_alg: int) -> Any:
        """aclnnSwigluMxQuantWithDualAxis's page: the swiglu of exact.swiglu_mx_quant (mode 0 along the last
        axis) quantised along -1 (y1Out, mxscale1Out) and along -2 (y2Out, mxscale2Out), the latter by
        groupIndexOptional's cumulative ends as exact.grouped_mx_quant where it is given."""
        y = exact.swiglu_mx_quant(x, None, -1, activate_left, 0, 7.0, 1.0, 0.0, 0, -1, dst_type, scale_alg)
        if group_index is None:
            return y + exact.swiglu_mx_quant(x, None, -1, activate_left, 0, 7.0, 1.0, 0.0, 0, -2, dst_type, scale_alg)
        first, second = x.double().chunk(2, -1)
        active, other = (first, second) if activate_left else (second, first)
        import torch

        swiglu = (active / (1 + torch.exp(-active)) * other).float()
        return y + exact.grouped_mx_quant(swiglu, group_index, dst_type, 32, scale_alg)

    @staticmethod
    def swiglu_backward_mx_quant_with_dual_axis(x: Any, y_grad: Any, group_index: Any, activate_left: bool,
                                                dst_type: int, scale_alg: int) -> Any:
        """aclnnSwigluBackwardMxQuantWithDualAxis's page: A, B x's halves (A the first with activateLeft),
        grad_A = yGrad * B * sigmoid(A) * (1 + A - A * sigmoid(A)), grad_B = yGrad * A * sigmoid(A), in double
        rounded to float, x's gradient (each at its half's place: the page's concat(grad_A, grad_B) with A
        first), quantised along -1 (y1Out, mxscale1Out) and along -2 (y2Out, mxscale2Out) as
        exact.swiglu_mx_quant_with_dual_axis quantises the forward's result."""
        import torch

        first, second = x.double().chunk(2, -1)
        a, b = (first, second) if activate_left else (second, first)
        g = y_grad.double()
        sig = torch.sigmoid(a)
        grad_a, grad_b = g * b * sig * (1 + a - a * sig), g * a * sig
        grad = torch.cat([grad_a, grad_b] if activate_left else [grad_b, grad_a], -1).float()
        exact._finite_for_mx(grad)
        first = exact.mx_quant(grad, -1, dst_type, 32, scale_alg)
        if group_index is None:
            return first + exact.mx_quant(grad, -2, dst_type, 32, scale_alg)
        return first + exact.grouped_mx_quant(grad, group_index, dst_type, 32, scale_alg)

    @staticmethod
    def dual_level_mx_quant(x: Any, smooth: Any, held: Any) -> Any:
        """aclnnDynamicDualLevelMxQuant's page: x (times smooth, the product in x's dtype `held`) per block
        of 512 along the last axis divided by level0Scale = max|x| / 6 in float and cast to `held`, then
        the OCP MX scale of FLOAT4_E2M1 (emax 2) per block of 32 (level1ScaleOut [..., pairs, 2]); yOut
        None: no array of the bindings holds FLOAT4 (tests/torch_npu/test_mx_quant.py checks it)."""
        import torch

        v = (x.float() * smooth.float()).to(held).float() if smooth is not None else x.float()
        exact._finite_for_mx(v)
        n = v.shape[-1]
        blocks = -(-n // 512)
        padded = torch.nn.functional.pad(v, (0, blocks * 512 - n)).reshape(*v.shape[:-1], blocks, 512)
        level0 = padded.abs().amax(-1) / 6.0
        if bool((level0 == 0).any()):
            exact.refused("a block of 512 zeros: level0Scale 0, which the page divides by")
        temp = (padded / level0.unsqueeze(-1)).reshape(*v.shape[:-1], blocks * 512)[..., :n].to(held).float()
        groups = -(-n // 32)
        amax = torch.nn.functional.pad(temp.double(), (0, groups * 32 - n)).reshape(*v.shape[:-1], groups, 32).abs().amax(-1)
        scale = torch.pow(2.0, (torch.floor(torch.log2(amax)) - 2).clamp(-127, 127))
        pairs = -(-groups // 2)
        level1 = torch.nn.functional.pad(scale, (0, 2 * pairs - groups), value=2.0 ** -127).reshape(*v.shape[:-1], pairs, 2)
        return None, level0, level1.float().to(torch.float8_e8m0fnu)

    @staticmethod
    def quant_max(x: Any, scale: Any, dst_type: int, group_list: Any = None) -> Any:
        """aclnnQuantMax's and aclnnGroupedQuantMax's pages: y = Cast(x_g * scale[g]) half to even ("rint"),
        the product in float, amax[g] = max|x_g|, over x's rows cut at group_list's cumulative ends (one
        group without it). The pages' Cast leaves an overflow open: a product past the format's largest
        value is refused."""
        import torch

        name, _, top = exact._MX_ELEMENTS[dst_type]
        ends = [x.shape[0]] if group_list is None else [int(e) for e in group_list.tolist()]
        spans = list(zip([0] + ends[:-1], ends))
        along = torch.cat([scale.float()[g].expand(e - s) for g, (s, e) in enumerate(spans)])
        product = x.float() * along.reshape([-1] + [1] * (x.dim() - 1))
        if bool((product.abs() > top).any()):
            exact.refused("x * scale beyond the FLOAT8 format's largest value, an overflow the page leaves open")
        return product.to(getattr(torch, name)), torch.stack([x[s:e].abs().amax() for s, e in spans])

    @staticmethod
    def sinkhorn(cost: Any, tol: Any) -> Any:
        """aclnnSinkhorn's page: the row and column scalings of exp(cost), iterated in float from
        ones until the columns' mean change is at most tol (None: 1e-4)."""
        import torch

        k = cost.float().exp()
        tol = 1e-4 if tol is None else float(tol)
        rows, cols = k.shape
        d1 = torch.ones(cols)
        while True:
            d0 = 1 / (rows * ((d1 * k).sum(1) + 1e-8))
            d1, old = 1 / (cols * ((d0.unsqueeze(1) * k).sum(0) + 1e-8)), d1
            if (old - d1).abs().mean() <= tol:
                return d0.unsqueeze(1) * k * d1


def _zero_state(input: Any, params: Any, num_layers: int, bidirectional: bool, batch_first: bool) -> Any:
    """A recurrent network's zero initial state [D * num_layers, B, H]."""
    import torch

    return torch.zeros((2 if bidirectional else 1) * num_layers, input.shape[0 if batch_first else 1],
                       params[1].shape[1], dtype=input.dtype)


def _rnn_steps(kind: str, input: Any, params: Any, h0: Any, has_bias: bool, num_layers: int, bidirectional: bool,
               batch_first: bool) -> list[list[Any]]:
    """Every step's values of each layer and direction (directions first) by aten's cells, weight rows
    in aten's order: an LSTM's i, g (j), f, o, h, c, tanh(c); a GRU's r, z, n, hn (W_hn h + b_hn), h;
    each a list of [T, B, H] tensors, one per unit."""
    import torch

    d, per = 2 if bidirectional else 1, 4 if has_bias else 2
    x = input.transpose(0, 1) if batch_first else input
    steps, count = x.shape[0], 7 if kind == "lstm" else 5
    saved: list[list[Any]] = [[] for _ in range(count)]
    for layer in range(num_layers):
        for direction in range(d):
            unit = layer * d + direction
            w_ih, w_hh = params[unit * per], params[unit * per + 1]
            b_ih, b_hh = (params[unit * per + 2], params[unit * per + 3]) if has_bias else (0, 0)
            state = [m[unit] for m in h0]
            kept: list[list[Any]] = [[None] * steps for _ in range(count)]
            values: tuple[Any, ...]
            for t in reversed(range(steps)) if direction else range(steps):
                gi, gh = x[t] @ w_ih.T + b_ih, state[0] @ w_hh.T + b_hh
                if kind == "lstm":
                    i, f, g, o = (gi + gh).chunk(4, 1)
                    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
                    c = f * state[1] + i * g
                    state = [o * c.tanh(), c]
                    values = (i, g, f, o, state[0], c, c.tanh())
                else:
                    (xr, xz, xn), (hr, hz, hn) = gi.chunk(3, 1), gh.chunk(3, 1)
                    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
                    n = (xn + r * hn).tanh()
                    state = [(1 - z) * n + z * state[0]]
                    values = (r, z, n, hn, state[0])
                for k, value in enumerate(values):
                    kept[k][t] = value
            for k in range(count):
                saved[k].append(torch.stack(kept[k]))
        x = torch.cat(saved[4][-d:], -1)
    return saved


def _rnn_step_grad(kind: str, saved: list[Any], before: list[Any], grads: list[Any], w_hh: Any) -> Any:
    """One step of backpropagation through a cell: the gates' gradients on the input side and on the
    hidden side (the same for an LSTM) and the gradients of the state it started from, given the
    step's saved values, that state and the gradients reaching its own (h's including dy's)."""
    import torch

    if kind == "lstm":
        i, g, f, o, _, _, tc = saved
        gh, gc = grads
        gc = gc + gh * o * (1 - tc * tc)
        dz = torch.cat([gc * g * i * (1 - i), gc * before[1] * f * (1 - f), gc * i * (1 - g * g),
                        gh * tc * o * (1 - o)], 1)
        return dz, dz, [dz @ w_hh, gc * f]
    r, z, n, hn, _ = saved
    gh = grads[0]
    grad_n = gh * (1 - z) * (1 - n * n)
    dr, dz = grad_n * hn * r * (1 - r), gh * (before[0] - n) * z * (1 - z)
    dgh = torch.cat([dr, dz, grad_n * r], 1)
    return torch.cat([dr, dz, grad_n], 1), dgh, [dgh @ w_hh + gh * z]

def _heads(t: Any, layout: str, d: int) -> Any:
    """A BSH/SBH/BSND/BNSD tensor as [B, N, S, D] (TND as [1, N, T, D]) in double."""
    t = t.double()
    if layout in ("BSH", "SBH"):
        t = t.reshape(t.shape[0], t.shape[1], -1, d)
    return {"BSH": lambda: t.transpose(1, 2), "SBH": lambda: t.permute(1, 2, 0, 3), "BSND": lambda: t.transpose(1, 2),
            "BNSD": lambda: t, "TND": lambda: t.transpose(0, 1).unsqueeze(0)}[layout]()


def _unheads(t: Any, layout: str, like: Any) -> Any:
    """_heads' inverse, shaped and typed as `like`."""
    back = {"BSH": lambda: t.transpose(1, 2), "SBH": lambda: t.permute(2, 0, 1, 3), "BSND": lambda: t.transpose(1, 2),
            "BNSD": lambda: t, "TND": lambda: t[0].transpose(0, 1)}[layout]()
    return back.reshape(like.shape).to(like.dtype)


def _nsa_windows(x: Any, weight: Any, seq_ends: Any, block_size: int, stride: int) -> Any:
    """NSA compression's windows (exact.nsa_compress) of x [T, N, D] weighed by weight [block_size, N], summed."""
    import torch

    rows = []
    for start, end in zip([0, *seq_ends[:-1]], seq_ends):
        for i in range((end - start - block_size) // stride + 1 if end - start >= block_size else 0):
            rows.append((x[start + i * stride:start + i * stride + block_size] * weight.unsqueeze(-1)).sum(0))
    return torch.stack(rows) if rows else x.new_zeros(0, *x.shape[1:])


def _attention(query: Any, key: Any, value: Any, head_num: int, layout: str, scale: float, *, keep_prob: float = 1.0,
               pre_tokens: int = 2147483647, next_tokens: int = 2147483647, sparse_mode: int = 0, pse: Any = None,
               atten_mask: Any = None, drop_mask: Any = None, pse_type: int = 1, actual_q: Any = None,
               actual_kv: Any = None, stats_tnd: bool = False, dy: Any = None, stats: Any = None,
               attention: Any = None) -> Any:
    """FlashAttention forward (dy None) or backward. Sparse modes (only with an atten_mask): 0 the mask
    and the band i - pre_tokens <= j <= i + next_tokens, 1 the mask, 2 j <= i, 3 j <= i + Skv - Sq,
    4 the band about the diagonal i + Skv - Sq. Dropout: bit e of drop_mask keeps element e of
    [B, N, Sq, Skv] (TND: sequence after sequence, each [N, Sq, Skv]), scaled by 1 / keep_prob. A row
    masked everywhere: output 0, max -inf, sum 0. TND statistics: [T, N, 8] with stats_tnd, else
    [N, T, 8]."""
    import torch

    d = query.shape[-1] // head_num if layout in ("BSH", "SBH") else query.shape[-1]
    q, k = _heads(query, layout, d), _heads(key, layout, d)
    v = _heads(value, layout, value.shape[-1] // k.shape[1] if layout in ("BSH", "SBH") else value.shape[-1])
    n, group = q.shape[1], q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    if layout == "TND":
        qe, ke = [0] + list(actual_q), [0] + list(actual_kv)
        sequences = [(0, qe[b], qe[b + 1], ke[b], ke[b + 1]) for b in range(len(actual_q))]
    else:
        sequences = [(b, 0, q.shape[2], 0, k.shape[2]) for b in range(q.shape[0])]
    full = (q.shape[0], n, q.shape[2], k.shape[2])
    bits = exact.mask_bits(drop_mask, (drop_mask.numel() * 8,)) / keep_prob if keep_prob < 1 else None
    grad = dy is not None
    if grad:
        gdy, gout = _heads(dy, layout, v.shape[-1]), _heads(attention, layout, v.shape[-1])
        gmax, gsum = (s.double()[..., 0] for s in stats)
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        dpse = torch.zeros(full, dtype=torch.float64)
    out = torch.zeros(q.shape[:3] + (v.shape[-1],), dtype=torch.float64)
    rows = sum(e[2] - e[1] for e in sequences) * n if layout == "TND" else math.prod(full[:3])
    mx_all, sum_all = torch.zeros(rows, dtype=torch.float64), torch.zeros(rows, dtype=torch.float64)
    drop0 = 0
    for b, q0, q1, k0, k1 in sequences:
        sq, skv = q1 - q0, k1 - k0
        qs, ks, vs = q[b, :, q0:q1], k[b, :, k0:k1], v[b, :, k0:k1]
        s = qs @ ks.transpose(-1, -2)
        if pse is not None:
            shift = pse.double().expand(full)[b]
            s = scale * (s + shift) if pse_type == 1 else scale * s + shift
        else:
            s = scale * s
        i, j = torch.arange(sq).reshape(-1, 1), torch.arange(skv).reshape(1, -1)
        shift_ = skv - sq
        masked = torch.zeros(n, sq, skv, dtype=torch.bool)
        if atten_mask is not None:
            given = atten_mask.bool().expand(full)[b] if sparse_mode <= 1 else masked
            masked = {0: lambda: given | (j > i + next_tokens) | (j < i - pre_tokens), 1: lambda: given,
                      2: lambda: (j > i).expand(n, sq, skv), 3: lambda: (j > i + shift_).expand(n, sq, skv),
                      4: lambda: ((j > i + shift_ + next_tokens) | (j < i + shift_ - pre_tokens)).expand(n, sq, skv),
                      }[sparse_mode]()
        s = s.masked_fill(masked, -math.inf)
        kept = bits[drop0:drop0 + n * sq * skv].reshape(n, sq, skv) if bits is not None else 1.0
        drop0 += n * sq * skv
        at = (torch.arange(n).reshape(-1, 1) * q.shape[2] + q0 + torch.arange(sq)) if layout == "TND" and not stats_tnd \
            else ((q0 + torch.arange(sq)) * n + torch.arange(n).reshape(-1, 1)) if layout == "TND" \
            else (b * n + torch.arange(n).reshape(-1, 1)) * q.shape[2] + torch.arange(sq)
        if not grad:
            mx = s.amax(-1, keepdim=True)
            e = torch.exp(s - torch.where(mx > -math.inf, mx, 0.0))
            total = e.sum(-1, keepdim=True)
            p = e / torch.where(total > 0, total, 1.0)
            out[b, :, q0:q1] = (p * kept) @ vs
            mx_all[at.flatten()], sum_all[at.flatten()] = mx.flatten(), total.flatten()
            continue
        m, t = gmax.flatten()[at], gsum.flatten()[at]
        p = torch.where(t.unsqueeze(-1) > 0, torch.exp(s - m.unsqueeze(-1)) / t.unsqueeze(-1), 0.0)
        g, o = gdy[b, :, q0:q1], gout[b, :, q0:q1]
        ds = p * ((g @ vs.transpose(-1, -2)) * kept - (g * o).sum(-1, keepdim=True))
        dq[b, :, q0:q1] = scale * ds @ ks
        dk[b, :, k0:k1] = scale * ds.transpose(-1, -2) @ qs
        dv[b, :, k0:k1] = (p * kept).transpose(-1, -2) @ g
        if layout != "TND":
            dpse[b] = ds * (scale if pse_type == 1 else 1.0)
    if grad:
        def fold(x: Any) -> Any:  # the query heads' sums onto their key/value head
            return x.reshape(x.shape[0], -1, group, *x.shape[2:]).sum(2)
        dpse_out = None
        if pse is not None:
            dims = [a for a in range(4) if pse.shape[a] == 1 and full[a] != 1]
            dpse_out = (dpse.sum(dims, keepdim=True) if dims else dpse).to(pse.dtype)
        return (_unheads(dq, layout, query), _unheads(fold(dk), layout, key), _unheads(fold(dv), layout, value),
                dpse_out)
    stat_shape = ((rows // n, n, 8) if stats_tnd else (n, rows // n, 8)) if layout == "TND" else full[:3] + (8,)
    return (mx_all.float().reshape(-1, 1).expand(-1, 8).reshape(stat_shape),
            sum_all.float().reshape(-1, 1).expand(-1, 8).reshape(stat_shape),
            _unheads(out, layout, torch.empty(query.shape[:-1] + (out.shape[-1] * (n if layout in ("BSH", "SBH") else 1),),
                                              dtype=query.dtype)))
