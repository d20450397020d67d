"""How an OpInfo sample's result on npu is compared with the CPU's: shared by test_opinfo.py (which
runs this file's text in its torch_npu process) and opinfo_sweep.py (which imports it)."""

import itertools
import math

import torch
from torch.testing._internal.common_utils import SEED, set_rng_seed

# Their index outputs order equal keys as they please (PyTorch's CPU too, for stable=False): their
# values are compared, their indices not.
TIES = {"sort", "argsort", "msort", "topk", "kthvalue", "mode", "median", "nanmedian"}


def samples(op, dtype, count, requires_grad=False):
    """The first `count` of an OpInfo's samples on the CPU, those op.sample_inputs gives outside a
    unittest test: drawn one at a time, the generators reseeded before each. op.sample_inputs also
    looks for the running unittest test by crawling the stack (inspect.stack, twice per operator:
    0.15 s each with torch's modules loaded, two thirds of a pass's CPU time), which finds none here;
    and a pass that took all of them to keep the first drew 25 samples per operator on average."""
    drawn = iter(op.sample_inputs_func(op, "cpu", dtype, requires_grad))

    def reseeded():
        while True:
            set_rng_seed(SEED)
            try:
                yield next(drawn)
            except StopIteration:
                return

    return list(itertools.islice(reseeded(), count))


def to(x, device, dtype=None, grad=False):
    """x on device, floating tensors cast to dtype if given; with grad, leaves that required grad do."""
    if isinstance(x, torch.Tensor):
        y = x.detach()
        y = y.to(dtype) if dtype is not None and y.is_floating_point() else y
        y = y.to(device)
        return y.requires_grad_(True) if grad and x.requires_grad and y.is_floating_point() else y
    if isinstance(x, (list, tuple)):
        return type(x)(to(v, device, dtype, grad) for v in x)
    if isinstance(x, dict):
        return {k: to(v, device, dtype, grad) for k, v in x.items()}
    return x


def floating(x):
    """The floating tensors of a (nested) structure, in order."""
    if isinstance(x, torch.Tensor):
        return [x] if x.is_floating_point() else []
    if isinstance(x, (list, tuple, dict)):
        return [t for v in (x.values() if isinstance(x, dict) else x) for t in floating(v)]
    return []


def differentiable(x):
    """The floating and complex tensors of a (nested) structure, in order: the outputs a real loss
    can sum (an fft's, torch.polar's, a .cfloat() conversion's)."""
    if isinstance(x, torch.Tensor):
        return [x] if x.is_floating_point() or x.is_complex() else []
    if isinstance(x, (list, tuple, dict)):
        return [t for v in (x.values() if isinstance(x, dict) else x) for t in differentiable(v)]
    return []


def real_sum(outputs):
    """The sum of the outputs as a real loss: a complex output's real and imaginary parts summed."""
    return sum((torch.view_as_real(t.resolve_conj()) if t.is_complex() else t).sum() for t in outputs)


def differs(want, got, tolerance, ties=False, cast=None, notes=None):
    """None when got equals want, else a short description. ties: integer outputs are indices
    whose order among equal keys is free; cast: the dtype the reference is cast to first. What is
    equal only by torch_npu's own conventions is named in notes (a set): float32 statistics of a
    lower precision input (op-plugin's accumulation dtype), an input its autograd formula does not
    differentiate (binary_cross_entropy_with_logits' target: a None gradient)."""
    notes = set() if notes is None else notes
    if want is None:
        return None
    if got is None:
        notes.add("no gradient for an input")
        return None
    if isinstance(want, torch.Tensor):
        if ties and not (want.is_floating_point() or want.is_complex() or want.dtype == torch.bool):
            return None
        want = want.to(cast) if cast is not None and want.is_floating_point() else want
        if (isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == torch.float32
                and want.dtype in (torch.float16, torch.bfloat16)):
            notes.add("float32 statistics")
            got = got.to(want.dtype)
        if not isinstance(got, torch.Tensor) or got.shape != want.shape or got.dtype != want.dtype:
            return f"{type(got).__name__} {getattr(got, 'shape', '')} {getattr(got, 'dtype', '')} " \
                   f"(want {tuple(want.shape)} {want.dtype})"
        exact = not (want.is_floating_point() or want.is_complex())
        try:
            torch.testing.assert_close(got, want, atol=0 if exact else tolerance, rtol=0 if exact else tolerance,
                                       equal_nan=True)
        except AssertionError as error:
            return " ".join(str(error).split())[:300]
        return None
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return "another structure"
        return next((d for d in (differs(w, g, tolerance, ties, cast, notes) for w, g in zip(want, got)) if d), None)
    if isinstance(want, float) and isinstance(got, (int, float)):
        close = math.isclose(want, got, rel_tol=tolerance, abs_tol=tolerance) or want != want
        return None if close else f"{got} != {want}"
    return None
