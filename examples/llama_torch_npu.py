"""One Llama-style decoder layer written in plain PyTorch, run on device="npu" through torch_npu on
the simulator, compared with the same layer on the CPU.

The layer is examples/llama_block.py's PyTorch reference (embedding, RMSNorm, q/k/v projections,
rotary embedding, causal attention as bmm + softmax + bmm, SwiGLU MLP, the final projection): no line
of it knows about aclnn. torch_npu's op-plugin turns each operator into the aclnn calls a real NPU
runs, which the simulator computes. Run it with the simulator's toolkit environment:

    source "$(python -m aclnn.sim home)/set_env.sh"
    python examples/llama_torch_npu.py [--dtype float32|bfloat16|both] [--seq 16] [--repeat 3]

Prints, per dtype, the largest relative error of the logits against the CPU, how many predicted
tokens agree, and one layer's time on the NPU and on the CPU; exits 1 unless every dtype is within
its tolerance with every token agreeing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see llama_block.py: both sides share the cores

import torch  # noqa: E402
import torch_npu  # noqa: E402,F401  (registers the npu device)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llama_block import TOLERANCE, Config, torch_layer, weights  # noqa: E402


def time_layer(cfg: Config, p: dict[str, torch.Tensor], ids: torch.Tensor, repeat: int) -> tuple[torch.Tensor, float]:
    best, logits = float("inf"), None
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        logits = torch_layer(cfg, p, ids)
        logits = logits.cpu()  # the one download; the NPU's queued work is done by then
        best = min(best, time.perf_counter() - start)
    assert logits is not None
    return logits, best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "both"), default="both")
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cfg = Config()
    print(f"Llama decoder layer in plain PyTorch on {torch.npu.get_device_name()} through torch_npu "
          f"{torch_npu.__version__}: hidden {cfg.hidden}, {cfg.heads} heads, ffn {cfg.ffn}, sequence {args.seq}")
    ids = torch.randint(0, cfg.vocab, (args.seq,), generator=torch.Generator().manual_seed(1))
    ok = True
    for dtype_name in (("float32", "bfloat16") if args.dtype == "both" else (args.dtype,)):
        dtype = getattr(torch, dtype_name)
        cpu_params = {n: t.to(dtype) for n, t in weights(cfg).items()}
        npu_params = {n: t.npu() for n, t in cpu_params.items()}
        npu_logits, npu_seconds = time_layer(cfg, npu_params, ids.npu(), args.repeat)
        cpu_logits, cpu_seconds = time_layer(cfg, cpu_params, ids, args.repeat)
        got, want = npu_logits.float(), cpu_logits.float()
        error = float((got - want).abs().max() / want.abs().max())
        agree = int((got.argmax(-1) == want.argmax(-1)).sum())
        good = error <= TOLERANCE[dtype_name] and agree == args.seq
        ok = ok and good
        print(f"  {dtype_name:8s} max relative error {error:.2e} (tolerance {TOLERANCE[dtype_name]:.0e}), "
              f"tokens agreeing {agree}/{args.seq}, npu {npu_seconds * 1e3:.2f} ms, cpu {cpu_seconds * 1e3:.2f} ms "
              f"({npu_seconds / cpu_seconds:.2f}x) {'ok' if good else 'FAILED'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
