"""The names a semantics file's golden expression may use, besides its parameters: `torch`,
`math`, `exact` (below) and `dtype_of`. One home for the generated suites (_aclnn_testing) and for
the generator's own tests that evaluate goldens without the built package (tests/test_examples.py).
"""

from __future__ import annotations

import math
from typing import Any


def golden_names(dtype_of: dict[str, Any]) -> dict[str, Any]:
    """The namespace a golden is evaluated in; `dtype_of` maps each tensor parameter to its own
    torch dtype, for goldens that round as the device does (their tensors hold the compute dtype)."""
    import torch

    return {"torch": torch, "math": math, "exact": exact, "dtype_of": dtype_of}


class exact:  # noqa: N801 - the name goldens spell: exact.fmod(self, other)
    """Goldens of ops whose PyTorch result depends on which of its kernels runs, as the exact one
    computes them. PyTorch's vectorised fmod (and remainder, which corrects it) is NaN where the
    quotient overflows (fmod(8.5e37, 1.2e-38) in float, fmod(4.5e307, 5e-324) in double), its
    scalar kernel, which a tensor's last few elements take, is C's exact fmod."""

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
