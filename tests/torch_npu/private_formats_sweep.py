"""Sweeps common PyTorch operators on tensors torch_npu keeps in private formats (NC1HWC0, 3;
FRACTAL_NZ, 29) and in plain ones (ND, 0; NCHW, 2), float32 and float16, through torch_npu on the
simulator, as a framework's per-op suite does (create_common_tensor, a CPU reference). Not part of
`make test`: run by hand in the simulator's environment, on the chip to sweep:

    source "$(.venv/bin/python -m aclnn.sim home)/set_env.sh"
    ACLNN_SIM_SOC=Ascend910 ASCEND_LAUNCH_BLOCKING=1 TORCH_DEVICE_BACKEND_AUTOLOAD=1 \\
        .venv/bin/python tests/torch_npu/private_formats_sweep.py [--allow-internal] [--ops add,exp,...]

or, as torch_npu runs by default (its task-queue thread runs the operators), without
ASCEND_LAUNCH_BLOCKING and with --task-queue: the flag states the mode the run is meant to be in, and the
sweep refuses to start in the other one (torch_npu reads the variable once, before any case runs).

(--allow-internal: Atlas A2 keeps private formats only once torch.npu.config.allow_internal_format
is set.) Each case prints one line, `pass`, `WRONG` (another value without an error: the worst
outcome) or `refused` (an exception, with the operator type or aclnn API it names), and the run
ends with the tally. The references are the CPU's (float16 inputs: its float32 or its float16
result). On Ascend910 and Ascend310P plain tensors' operators go to aclop too (CANN compiles
operators online there by default); with torch.npu.set_compile_mode(jit_compile=False) they take
the aclnn APIs, whose float32 matmuls run the cube's float16 products (~1e-3 off) on those chips.
"""

from __future__ import annotations

import argparse
import json
import os
import re

import numpy as np
import torch
import torch.nn.functional as F
import torch_npu
from torch_npu.testing.common_utils import create_common_tensor


def positive(x):
    return x.abs() + 0.5


def grad_of(fn):
    def run(a, b):
        a = a.clone().requires_grad_(True)
        out = fn(a, b)
        out.backward(torch.ones_like(out))
        return a.grad
    return run


OPS = {
 "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
 "div": lambda a, b: a / positive(b), "maximum": torch.maximum, "minimum": torch.minimum,
 "add_alpha": lambda a, b: torch.add(a, b, alpha=2), "adds": lambda a, b: a + 1.5, "muls": lambda a, b: a * 3,
 "pow2": lambda a, b: a.pow(2), "neg": lambda a, b: -a, "abs": lambda a, b: a.abs(),
 "exp": lambda a, b: (a / 4).exp(), "log": lambda a, b: positive(a).log(), "sqrt": lambda a, b: positive(a).sqrt(),
 "rsqrt": lambda a, b: positive(a).rsqrt(), "sin": lambda a, b: a.sin(), "cos": lambda a, b: a.cos(),
 "tanh": lambda a, b: a.tanh(), "sigmoid": lambda a, b: a.sigmoid(), "relu": lambda a, b: a.relu(),
 "floor": lambda a, b: a.floor(), "ceil": lambda a, b: a.ceil(), "sign": lambda a, b: a.sign(),
 "reciprocal": lambda a, b: positive(a).reciprocal(), "clamp": lambda a, b: a.clamp(-1, 1),
 "eq": lambda a, b: a == b, "gt": lambda a, b: a > b, "where": lambda a, b: torch.where(a > 0, a, b),
 "sum": lambda a, b: a.sum(), "sum_dim": lambda a, b: a.sum(-1), "mean_dim": lambda a, b: a.mean(0),
 "max_dim": lambda a, b: a.max(-1)[0], "softmax": lambda a, b: torch.softmax(a, -1),
 "log_softmax": lambda a, b: torch.log_softmax(a, -1), "cumsum": lambda a, b: a.cumsum(-1),
 "transpose": lambda a, b: a.transpose(0, -1).contiguous(), "addcmul": lambda a, b: torch.addcmul(a, a, b, value=0.5),
 "gelu": lambda a, b: torch.nn.functional.gelu(a), "silu": lambda a, b: torch.nn.functional.silu(a),
 "leaky_relu": lambda a, b: torch.nn.functional.leaky_relu(a, 0.1), "argmax": lambda a, b: a.argmax(-1),
 "cat": lambda a, b: torch.cat([a, b], 0), "inplace_add": lambda a, b: a.clone().add_(b),
 "copy_": lambda a, b: a.clone().copy_(b), "to_half": lambda a, b: a.half() if a.dtype == torch.float32 else a.float(),
 "mm": lambda a, b: a.reshape(a.shape[0], -1) @ b.reshape(b.shape[0], -1).t(),
 "erf": lambda a, b: torch.erf(a), "zero_": lambda a, b: a.clone().zero_(), "fill_": lambda a, b: a.clone().fill_(2.5),
 "square": lambda a, b: torch.square(a), "lerp": lambda a, b: torch.lerp(a, b, 0.3),
 "relu_bw": grad_of(lambda a, b: a.relu()), "sigmoid_bw": grad_of(lambda a, b: a.sigmoid()), "tanh_bw": grad_of(lambda a, b: a.tanh()),
 "gelu_bw": grad_of(lambda a, b: F.gelu(a)), "softmax_bw": grad_of(lambda a, b: torch.softmax(a, -1) * b),
 "lsm_bw": grad_of(lambda a, b: torch.log_softmax(a, -1) * b), "mul_bw": grad_of(lambda a, b: a * b), "sum_bw": grad_of(lambda a, b: a.sum(-1)),
 "exp_bw": grad_of(lambda a, b: (a / 4).exp()), "silu_bw": grad_of(lambda a, b: F.silu(a)), "lrelu_bw": grad_of(lambda a, b: F.leaky_relu(a, 0.2)),
 "std": lambda a, b: a.std(-1), "var": lambda a, b: a.var(0), "norm": lambda a, b: a.norm(), "prod": lambda a, b: a.prod(-1),
 "amax": lambda a, b: a.amax(-1), "max_all": lambda a, b: a.max(), "min_dim": lambda a, b: a.min(0)[0], "any": lambda a, b: (a > 0).any(-1),
 "masked_fill": lambda a, b: a.masked_fill(b > 0, 0.5), "clone": lambda a, b: a.clone(), "flip": lambda a, b: a.flip(-1),
 "tril": lambda a, b: a.tril() if a.dim() >= 2 else a, "floor_divide": lambda a, b: torch.floor_divide(a, b.abs() + 0.5),
 "remainder": lambda a, b: torch.remainder(a, b.abs() + 0.5), "hardtanh": lambda a, b: F.hardtanh(a), "elu": lambda a, b: F.elu(a),
 "softplus": lambda a, b: F.softplus(a), "mse": lambda a, b: F.mse_loss(a, b), "isnan": lambda a, b: torch.isnan(a),
 "topk": lambda a, b: a.topk(2, -1)[0], "sort": lambda a, b: a.sort(-1)[0], "repeat": lambda a, b: a.repeat(2, *([1] * (a.dim() - 1))),
 "expand": lambda a, b: a[:1].expand(3, *a.shape[1:]).contiguous(), "pow_t": lambda a, b: (a.abs() + 0.5).pow(b),
 "sub_scalar": lambda a, b: 2 - a, "div_scalar": lambda a, b: a / 3, "rsub": lambda a, b: torch.rsub(a, b, alpha=2),
 "sum_keep": lambda a, b: a.sum(-1, keepdim=True), "mean_all": lambda a, b: a.mean(), "addcdiv": lambda a, b: torch.addcdiv(a, a, b.abs() + 0.5, value=0.5),
 "lt_scalar": lambda a, b: a < 0.5, "ne": lambda a, b: a != b, "logical_and": lambda a, b: (a > 0) & (b > 0), "bool_not": lambda a, b: ~(a > 0),
 "to_int": lambda a, b: a.int(), "where_s": lambda a, b: torch.where(a > 0, a, 0.0), "max_pool": lambda a, b: F.max_pool2d(a, 2) if a.dim() == 4 else a,
 "avg_pool": lambda a, b: F.avg_pool2d(a, 2) if a.dim() == 4 else a, "bn_eval": lambda a, b: F.batch_norm(a, torch.zeros(a.shape[1], device=a.device), torch.ones(a.shape[1], device=a.device)) if a.dim() == 4 else a,
 "adaptive_avg": lambda a, b: F.adaptive_avg_pool2d(a, 1) if a.dim() == 4 else a, "layer_norm": lambda a, b: F.layer_norm(a, a.shape[-1:]),
 "linear": lambda a, b: F.linear(a, b.reshape(-1, b.shape[-1])[:3]), "bmm": lambda a, b: a @ b.transpose(-1, -2) if a.dim() == 3 else a,
}

# Plain formats for the elementwise table, private ones for all (2-d NC1HWC0 and 1-d ones included).
SHAPES = {0: [(4, 5)], 2: [(4, 5), (2, 3, 4, 5)], 3: [(2, 19, 4, 5), (4, 5), (7,)], 29: [(17, 33), (2, 17, 33)]}
EXACT = (torch.bool, torch.int32, torch.int64)


def compare(got, want, fn, cpu_a, cpu_b, dtype):
    """Each element equal to the CPU's float32 result, or for float16 inputs to the CPU's own float16
    result (a floor, a comparison or a product that overflows rounds there as on a device)."""
    def close(reference):
        if got.shape != reference.shape:
            return torch.zeros(got.shape, dtype=torch.bool)
        if reference.dtype in EXACT or got.dtype in EXACT:
            return got == reference.to(got.dtype)
        tolerance = 1e-3 if dtype == np.float32 else 2e-2
        return torch.isclose(got.float(), reference.float(), rtol=tolerance, atol=tolerance, equal_nan=True)
    matches = close(want)
    if dtype == np.float16:
        matches = matches | close(fn(cpu_a, cpu_b))
    return got.shape == want.shape and bool(matches.all())


def reason(error: Exception) -> str:
    """What refused, in a line: the operator type or aclnn API the message names."""
    text = str(error)
    named = re.search(r"operator type \w+ is not modelled", text) or re.search(r"aclop\w* \([^\n]*", text)
    named = named or re.search(r"call aclnn\w+ failed[^\n]*", text)
    return (named.group(0) if named else text.splitlines()[0] if text else "")[:240]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--allow-internal", action="store_true", help="torch.npu.config.allow_internal_format = True")
    parser.add_argument("--ops", help="comma-separated names of OPS to run (default: all)")
    parser.add_argument("--task-queue", action="store_true",
                        help="the environment runs torch_npu's task queue (no ASCEND_LAUNCH_BLOCKING=1)")
    args = parser.parse_args()
    blocking = os.environ.get("ASCEND_LAUNCH_BLOCKING") == "1"
    if blocking == args.task_queue:
        parser.error("--task-queue runs without ASCEND_LAUNCH_BLOCKING=1, and only it does: "
                     f"ASCEND_LAUNCH_BLOCKING is {os.environ.get('ASCEND_LAUNCH_BLOCKING')!r}")
    if args.allow_internal:
        torch.npu.config.allow_internal_format = True
    chosen = set(args.ops.split(",")) if args.ops else set(OPS)
    tally: dict[str, int] = {}
    for name, fn in OPS.items():
        if name not in chosen:
            continue
        for fmt, shapes in SHAPES.items():
            for shape in shapes:
                for dtype in (np.float32, np.float16):
                    case = f"{name} fmt{fmt} {shape} {dtype.__name__}"
                    try:
                        cpu_a, npu_a = create_common_tensor([dtype, fmt, shape], -3, 3)
                        cpu_b, npu_b = create_common_tensor([dtype, fmt, shape], -3, 3)
                        want = fn(cpu_a.float(), cpu_b.float())
                        got = fn(npu_a, npu_b).cpu()
                        # The case's own refusal, held on torch_npu's task queue, is raised here at the
                        # latest, never by the next case.
                        torch.npu.synchronize()
                        kind, why = ("pass", "") if compare(got, want, fn, cpu_a, cpu_b, dtype) else ("WRONG", "")
                    except Exception as error:  # noqa: BLE001 - a refusal is the answer being counted
                        kind, why = "refused", reason(error)
                        try:  # a refusal held for this case (torch_npu's own error came first) is this case's
                            torch.npu.synchronize()
                        except Exception as held:  # noqa: BLE001
                            why += f" (then: {reason(held)})"
                    tally[kind] = tally.get(kind, 0) + 1
                    print(f"{kind:8} {case} {why}", flush=True)
    print("TALLY", json.dumps(tally))


if __name__ == "__main__":
    main()
