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
