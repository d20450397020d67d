"""examples/llama_block.py: one Llama decoder layer through aclnn only matches PyTorch's, in float32
and bfloat16 (issue 12's showcase; `make demo` runs it).

The test runs the example's layer and judges its logits and tokens itself, against a reference of
its own written with PyTorch's fused functions (scaled_dot_product_attention with is_causal,
rms_norm, linear, rotary embedding as a complex rotation), not against the example's PyTorch
layer alone: a mistake both of the example's layers share (a mask, a rotation) would pass a
comparison of the two."""

from __future__ import annotations

import dataclasses
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "llama_block.py"
SEQ = 12


@pytest.fixture(scope="module")
def llama():
    spec = importlib.util.spec_from_file_location("llama_block", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["llama_block"] = module  # dataclasses resolve the module by name
    spec.loader.exec_module(module)
    return module


def reference(cfg, p: dict[str, torch.Tensor], ids: torch.Tensor) -> torch.Tensor:
    """The layer in float32 with PyTorch's fused functions; projections stored [in, out]."""
    s, nh, hd = ids.shape[0], cfg.heads, cfg.head_dim

    def norm(x, gamma):
        return F.rms_norm(x, (cfg.hidden,), gamma, cfg.eps)

    def rotate(x):  # pairs (i, i + hd/2) rotated by position * inv_freq[i]
        angles = torch.outer(torch.arange(s, dtype=torch.float32), p["inv_freq"])
        z = torch.complex(x[..., : hd // 2], x[..., hd // 2:]) * torch.polar(torch.ones_like(angles), angles)
        return torch.cat([z.real, z.imag], dim=-1)

    x = F.embedding(ids, p["embed"])
    h = norm(x, p["norm_attn"])
    q, k, v = (F.linear(h, p[n].T).view(s, nh, hd).transpose(0, 1) for n in ("wq", "wk", "wv"))
    attn = F.scaled_dot_product_attention(rotate(q), rotate(k), v, is_causal=True)
    x = x + F.linear(attn.transpose(0, 1).reshape(s, cfg.hidden), p["wo"].T)
    h = norm(x, p["norm_mlp"])
    x = x + F.linear(F.silu(F.linear(h, p["w_gate"].T)) * F.linear(h, p["w_up"].T), p["w_down"].T)
    return F.linear(norm(x, p["norm_final"]), p["lm_head"].T)


def relative_error(ours: torch.Tensor, expected: torch.Tensor) -> float:
    return float(((ours - expected).abs().max() / expected.abs().max()).item())


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_decoder_layer_matches_pytorch(llama, dtype):
    cfg = llama.Config()
    done = llama.run(cfg, dtype, SEQ, repeat=1)
    expected = reference(cfg, llama.weights(cfg), done.ids)
    assert done.logits.shape == expected.shape == (SEQ, cfg.vocab)
    # The example's own PyTorch layer is the same layer as the fused reference.
    assert relative_error(done.expected.float(), expected) <= llama.TOLERANCE[dtype]
    # Ours: within the dtype's tolerance of the float32 reference (bfloat16 rounds every op's result).
    assert relative_error(done.logits, expected) <= llama.TOLERANCE[dtype]
    # The tokens aclnn.arg_max predicted on the device are the argmax of the logits it downloaded,
    # and PyTorch's in the same dtype.
    ours_tokens = torch.from_numpy(done.tokens.astype(np.int64))
    assert torch.equal(ours_tokens, done.logits.argmax(-1))
    assert torch.equal(ours_tokens, done.expected.argmax(-1))
    if dtype == "float32":
        assert torch.equal(ours_tokens, expected.argmax(-1))
    assert done.ok


def test_a_run_with_one_token_off_is_not_ok(llama):
    cfg = llama.Config()
    done = llama.run(cfg, "float32", 4, repeat=1)
    assert done.ok
    tokens = done.tokens.copy()
    tokens[0] = (tokens[0] + 1) % cfg.vocab
    off = dataclasses.replace(done, tokens=tokens)
    assert off.error == done.error and off.same_tokens == 3 and not off.ok


def test_the_script_prints_both_dtypes_and_exits_0():
    done = subprocess.run([sys.executable, str(SCRIPT), "--seq", "8", "--repeat", "1"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if "logits max relative error" in line]
    assert [line.split(":")[0].strip() for line in lines] == ["float32", "bfloat16"]
    assert all("equal PyTorch's: 8/8: ok;" in line for line in lines), done.stdout
