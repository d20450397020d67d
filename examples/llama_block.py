"""One Llama-style decoder layer, run through generated aclnn bindings only, compared with PyTorch.

Embedding lookup, RMSNorm, q/k/v projections, rotary embedding built from cos/sin multiplies and
adds, causal scaled-dot-product attention as bmm + softmax + bmm, output projection, residual adds,
RMSNorm, SwiGLU MLP, the final projection and argmax. Every tensor stays on the device (aclnn.Tensor):
the host only uploads the weights and the token ids once and downloads the logits at the end.
Reshapes and slices are views of device memory (Tensor.from_pointer with strides and offsets, as a
framework's own views are), never copies. On a machine with CANN the same script runs on the NPU.

    python examples/llama_block.py [--dtype float32|bfloat16|both] [--seq 16] [--repeat 3]

Prints, per dtype, the largest relative error of the logits against the same layer in PyTorch (CPU),
how many predicted tokens agree, and the time of one layer here and in PyTorch; exits 1 unless, in
every dtype, the error is within the dtype's tolerance and every token agrees.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass

# PyTorch's OpenMP workers otherwise spin after each parallel region and take the cores the
# simulator's workers need (and the other way round): both sides' times would be the contention's.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# torch is the reference here: with torch_npu installed, `import torch` would load it, which needs a
# CANN toolkit (examples/llama_torch_npu.py runs the same layer through torch_npu).
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import aclnn  # noqa: E402


@dataclass(frozen=True)
class Config:
    vocab: int = 256
    hidden: int = 128
    heads: int = 4
    ffn: int = 344  # SwiGLU's 8/3 * hidden, rounded
    eps: float = 1e-6
    rope_base: float = 10000.0

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


# Relative error bound of the logits: float32 within float rounding of a few hundred operations;
# bfloat16 rounds every op's result to 8 bits of mantissa, as the NPU does.
TOLERANCE = {"float32": 1e-4, "bfloat16": 5e-2}


def weights(cfg: Config, seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)

    def w(*shape: int, scale: float = 1.0) -> torch.Tensor:
        return torch.randn(*shape, generator=g) * scale / math.sqrt(shape[0])

    h, f = cfg.hidden, cfg.ffn
    return {
        "embed": torch.randn(cfg.vocab, h, generator=g),
        # Projections stored as [in, out], so that x @ W is the layer (torch.nn.Linear's weight.T).
        "wq": w(h, h), "wk": w(h, h), "wv": w(h, h), "wo": w(h, h),
        "w_gate": w(h, f), "w_up": w(h, f), "w_down": w(f, h),
        "norm_attn": 1 + 0.1 * torch.randn(h, generator=g),
        "norm_mlp": 1 + 0.1 * torch.randn(h, generator=g),
        "norm_final": 1 + 0.1 * torch.randn(h, generator=g),
        "lm_head": w(h, cfg.vocab),
        "inv_freq": 1.0 / cfg.rope_base ** (torch.arange(0, cfg.head_dim, 2, dtype=torch.float32) / cfg.head_dim),
    }


# ---- PyTorch ---------------------------------------------------------------------------------------

def torch_layer(cfg: Config, p: dict[str, torch.Tensor], ids: torch.Tensor) -> torch.Tensor:
    def rms_norm(x: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.rms_norm(x, (cfg.hidden,), gamma, cfg.eps)

    def rotate_half(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return torch.cat([-x[..., half:], x[..., :half]], dim=-1)

    s, nh, hd = ids.shape[0], cfg.heads, cfg.head_dim
    x = torch.nn.functional.embedding(ids, p["embed"])
    h = rms_norm(x, p["norm_attn"])
    q, k, v = (torch.matmul(h, p[n]).view(s, nh, hd).permute(1, 0, 2) for n in ("wq", "wk", "wv"))
    # On the weights' device: the same layer runs on an NPU through torch_npu (examples/llama_torch_npu.py).
    positions = torch.arange(s, dtype=p["inv_freq"].dtype).to(p["inv_freq"].device)
    angles = torch.matmul(positions.view(s, 1), p["inv_freq"].view(1, -1))
    angles = torch.cat([angles, angles], dim=-1)
    cos, sin = torch.cos(angles), torch.sin(angles)
    q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    mask = torch.triu(torch.full((s, s), float("-inf"), dtype=q.dtype, device=q.device), 1)
    scores = torch.bmm(q, k.permute(0, 2, 1)) * (1.0 / math.sqrt(hd)) + mask
    attn = torch.bmm(torch.softmax(scores, dim=-1), v).permute(1, 0, 2).reshape(s, cfg.hidden)
    x = x + torch.matmul(attn, p["wo"])
    h = rms_norm(x, p["norm_mlp"])
    x = x + torch.matmul(torch.nn.functional.silu(torch.matmul(h, p["w_gate"])) * torch.matmul(h, p["w_up"]), p["w_down"])
    return torch.matmul(rms_norm(x, p["norm_final"]), p["lm_head"])


# ---- aclnn -----------------------------------------------------------------------------------------

def view(t: aclnn.Tensor, shape: tuple[int, ...], strides: tuple[int, ...] | None = None, offset: int = 0) -> aclnn.Tensor:
    """A view of a device tensor's memory (no copy): what torch's view/slicing gives a framework."""
    return aclnn.Tensor.from_pointer(t.data_ptr(), shape, t.dtype, strides, offset=offset, owner=t)


def aclnn_layer(cfg: Config, p: dict[str, aclnn.Tensor], ids: aclnn.Tensor, positions: aclnn.Tensor) -> aclnn.Tensor:
    s, nh, hd, half = ids.shape[0], cfg.heads, cfg.head_dim, cfg.head_dim // 2

    def rms_norm(x: aclnn.Tensor, gamma: aclnn.Tensor) -> aclnn.Tensor:
        y, _rstd = aclnn.rms_norm(x, gamma, cfg.eps)
        return y

    def permute(x: aclnn.Tensor, dims: list[int]) -> aclnn.Tensor:
        # The caller gives the outputs whose shapes follow from arguments (a framework knows them).
        return aclnn.permute(x, dims, out=aclnn.empty(tuple(x.shape[d] for d in dims), x.dtype))

    def cat(parts: list[aclnn.Tensor]) -> aclnn.Tensor:  # along the last dimension
        shape = parts[0].shape[:-1] + (sum(p.shape[-1] for p in parts),)
        return aclnn.cat(parts, -1, out=aclnn.empty(shape, parts[0].dtype))

    def heads(x: aclnn.Tensor) -> aclnn.Tensor:  # [s, hidden] -> [nh, s, hd]
        return permute(view(x, (s, nh, hd)), [1, 0, 2])

    def rotary(x: aclnn.Tensor, cos: aclnn.Tensor, sin: aclnn.Tensor) -> aclnn.Tensor:
        # rotate_half(x) = cat(-x[..., half:], x[..., :half]): two strided views of x, no copies.
        strides = (s * hd, hd, 1)
        first, second = view(x, (nh, s, half), strides), view(x, (nh, s, half), strides, offset=half)
        rotated = cat([aclnn.neg(second), first])
        return aclnn.add(aclnn.mul(x, cos), aclnn.mul(rotated, sin), 1.0)

    x = aclnn.embedding(p["embed"], ids, out=aclnn.empty((s, cfg.hidden), p["embed"].dtype))
    h = rms_norm(x, p["norm_attn"])
    q, k, v = (heads(aclnn.matmul(h, p[n], 0)) for n in ("wq", "wk", "wv"))
    angles = aclnn.matmul(positions, p["inv_freq"], 0)
    angles = cat([angles, angles])
    cos, sin = aclnn.cos(angles), aclnn.sin(angles)
    q, k = rotary(q, cos, sin), rotary(k, cos, sin)
    scores = aclnn.muls(aclnn.batch_mat_mul(q, permute(k, [0, 2, 1]), 0), 1.0 / math.sqrt(hd))
    scores = aclnn.add(scores, p["mask"], 1.0)
    attn = aclnn.batch_mat_mul(aclnn.softmax(scores, -1), v, 0)
    attn = view(permute(attn, [1, 0, 2]), (s, cfg.hidden))
    x = aclnn.add(x, aclnn.matmul(attn, p["wo"], 0), 1.0)
    h = rms_norm(x, p["norm_mlp"])
    mlp = aclnn.mul(aclnn.silu(aclnn.matmul(h, p["w_gate"], 0)), aclnn.matmul(h, p["w_up"], 0))
    x = aclnn.add(x, aclnn.matmul(mlp, p["w_down"], 0), 1.0)
    return aclnn.matmul(rms_norm(x, p["norm_final"]), p["lm_head"], 0)


def upload(cfg: Config, p: dict[str, torch.Tensor], s: int, dtype: torch.dtype) -> dict[str, aclnn.Tensor]:
    """The weights on the device, in `dtype`; the causal mask as the model's constant buffer."""
    def device(t: torch.Tensor) -> aclnn.Tensor:
        return aclnn.to_device(t.to(dtype))  # torch tensors go through DLPack: no NumPy bfloat16 needed

    on_device = {name: device(t) for name, t in p.items() if name != "inv_freq"}
    on_device["inv_freq"] = device(p["inv_freq"].view(1, -1))
    on_device["mask"] = aclnn.triu(device(torch.full((s, s), float("-inf"))), 1)
    return on_device


@dataclass(frozen=True)
class LayerRun:
    """One dtype's run: the layer's logits and predicted tokens through aclnn and in PyTorch."""
    dtype: str
    ids: torch.Tensor
    logits: torch.Tensor           # ours, as float32
    tokens: np.ndarray             # ours: aclnn.arg_max of the logits, on the device
    expected: torch.Tensor         # PyTorch's, in the same dtype
    seconds: float                 # one layer and its argmax, best of the repeats
    torch_seconds: float

    @property
    def error(self) -> float:
        """The largest difference of the logits relative to PyTorch's largest logit."""
        expected = self.expected.to(torch.float32)
        return float(((self.logits - expected).abs().max() / expected.abs().max()).item())

    @property
    def same_tokens(self) -> int:
        return int((torch.from_numpy(self.tokens.astype(np.int64)) == self.expected.argmax(-1)).sum())

    @property
    def ok(self) -> bool:
        """The logits within the dtype's tolerance and every predicted token PyTorch's."""
        return self.error <= TOLERANCE[self.dtype] and self.same_tokens == len(self.ids)

    def summary(self) -> str:
        return (f"{self.dtype:>9}: logits max relative error {self.error:.2e} (tolerance {TOLERANCE[self.dtype]:.0e}), "
                f"predicted tokens equal PyTorch's: {self.same_tokens}/{len(self.ids)}: "
                f"{'ok' if self.ok else 'DIFFERENT'}; one layer {self.seconds * 1e3:.1f} ms on the {aclnn.backend()} "
                f"backend, {self.torch_seconds * 1e3:.1f} ms in PyTorch (CPU)")


def run(cfg: Config, dtype_name: str, seq: int, repeat: int) -> LayerRun:
    dtype = getattr(torch, dtype_name)
    p = weights(cfg)
    ids = torch.randint(0, cfg.vocab, (seq,), generator=torch.Generator().manual_seed(1))
    reference_params = {n: t.to(dtype) for n, t in p.items()}

    device_params = upload(cfg, p, seq, dtype)
    device_ids = aclnn.to_device(ids)
    positions = aclnn.to_device(torch.arange(seq, dtype=dtype).view(seq, 1))

    ours_times, torch_times = [], []
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        logits = aclnn_layer(cfg, device_params, device_ids, positions)
        tokens = aclnn.arg_max(logits, -1, False)
        ours = torch.from_numpy(np.asarray(logits.numpy(), np.float32))  # the one download (and sync)
        ours_tokens = tokens.numpy()
        ours_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        expected = torch_layer(cfg, reference_params, ids)
        expected.argmax(-1)
        torch_times.append(time.perf_counter() - start)
    return LayerRun(dtype_name, ids, ours, ours_tokens, expected, min(ours_times), min(torch_times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "both"), default="both")
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cfg = Config()
    print(f"Llama decoder layer: hidden {cfg.hidden}, {cfg.heads} heads, ffn {cfg.ffn}, vocab {cfg.vocab}, "
          f"sequence {args.seq}; every op an aclnn call on device tensors")
    dtypes = ("float32", "bfloat16") if args.dtype == "both" else (args.dtype,)
    ok = True
    for dtype in dtypes:
        done = run(cfg, dtype, args.seq, args.repeat)
        print(done.summary(), flush=True)
        ok = ok and done.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
