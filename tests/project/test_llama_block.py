"""examples/llama_block.py: one Llama decoder layer through aclnn only matches PyTorch's, in float32
and bfloat16 (issue 12's showcase; `make demo` runs it).

The test runs the example's layer and judges its logits and tokens itself, against a reference of
its own written with PyTorch's fused functions (scaled_dot_product_attention with is_causal,
rms_norm, linear, rotary embedding as a complex rotation), not against the example's PyTorch
layer alone: a mistake both of the example's layers share (a mask, a rotation) would pass a
comparison of the two. The layer runs in a process of its own (the example imports the package
of op_docs/; this process's `aclnn` is the seed package of tests/support/bindings_build.py), which saves
what it computed for this process to compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "llama_block.py"
SEQ = 12

# Runs the example's layer in each dtype and saves its logits, tokens and PyTorch layer's logits,
# the weights and the ids; also whether a run with one token changed still counts as ok.
RUN = r'''
import dataclasses, importlib.util, json, sys
import numpy as np, torch
spec = importlib.util.spec_from_file_location("llama_block", sys.argv[1])
llama = importlib.util.module_from_spec(spec)
sys.modules["llama_block"] = llama
spec.loader.exec_module(llama)
cfg, seq, target = llama.Config(), int(sys.argv[2]), sys.argv[3]
saved, report = {}, {"config": dataclasses.asdict(cfg), "tolerance": llama.TOLERANCE}
for dtype in ("float32", "bfloat16"):
    done = llama.run(cfg, dtype, seq, 1)
    saved.update({f"{dtype} logits": done.logits.numpy(), f"{dtype} tokens": done.tokens.astype(np.int64),
                  f"{dtype} expected": done.expected.float().numpy()})
    tokens = done.tokens.copy()
    tokens[0] = (tokens[0] + 1) % cfg.vocab
    off = dataclasses.replace(done, tokens=tokens)
    report[dtype] = {"ok": done.ok, "error": done.error, "off_ok": off.ok, "off_same": off.same_tokens,
                     "off_error": off.error}
saved["ids"] = done.ids.numpy()
saved.update({f"weight {name}": t.numpy() for name, t in llama.weights(cfg).items()})
np.savez(target, **saved)
print(json.dumps(report))
'''


@pytest.fixture(scope="module")
def layer(tmp_path_factory) -> SimpleNamespace:
    target = tmp_path_factory.mktemp("llama") / "run.npz"
    done = subprocess.run([sys.executable, "-c", RUN, str(SCRIPT), str(SEQ), str(target)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    saved = np.load(target)
    weights = {k.split(" ", 1)[1]: torch.from_numpy(saved[k]) for k in saved.files if k.startswith("weight ")}
    return SimpleNamespace(report=report, saved=saved, weights=weights, ids=torch.from_numpy(saved["ids"]),
                           cfg=SimpleNamespace(**report["config"]))


def reference(cfg, p: dict[str, torch.Tensor], ids: torch.Tensor) -> torch.Tensor:
    """The layer in float32 with PyTorch's fused functions; projections stored [in, out]."""
    s, nh = ids.shape[0], cfg.heads
    hd = cfg.hidden // nh

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
def test_the_decoder_layer_matches_pytorch(layer, dtype):
    expected = reference(layer.cfg, layer.weights, layer.ids)
    logits = torch.from_numpy(layer.saved[f"{dtype} logits"])
    theirs = torch.from_numpy(layer.saved[f"{dtype} expected"])  # the example's own PyTorch layer
    tolerance = layer.report["tolerance"][dtype]
    assert logits.shape == expected.shape == (SEQ, layer.cfg.vocab)
    # The example's PyTorch layer is the same layer as the fused reference.
    assert relative_error(theirs, expected) <= tolerance
    # Ours: within the dtype's tolerance of the float32 reference (bfloat16 rounds every op's result).
    assert relative_error(logits, expected) <= tolerance
    # The tokens aclnn.arg_max predicted on the device are the argmax of the logits it downloaded,
    # and PyTorch's in the same dtype.
    tokens = torch.from_numpy(layer.saved[f"{dtype} tokens"])
    assert torch.equal(tokens, logits.argmax(-1))
    assert torch.equal(tokens, theirs.argmax(-1))
    if dtype == "float32":
        assert torch.equal(tokens, expected.argmax(-1))
    assert layer.report[dtype]["ok"]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_run_with_one_token_off_is_not_ok(layer, dtype):
    run = layer.report[dtype]
    assert run["ok"] and run["off_error"] == run["error"] and run["off_same"] == SEQ - 1 and not run["off_ok"]


def test_the_script_prints_both_dtypes_and_exits_0():
    done = subprocess.run([sys.executable, str(SCRIPT), "--seq", "8", "--repeat", "1"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if "logits max relative error" in line]
    assert [line.split(":")[0].strip() for line in lines] == ["float32", "bfloat16"]
    assert all("equal PyTorch's: 8/8: ok;" in line for line in lines), done.stdout
