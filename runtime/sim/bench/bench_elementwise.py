"""Throughput of the simulator's elementwise engine against PyTorch CPU.

    .venv/bin/python runtime/sim/bench/bench_elementwise.py [--sizes 1M,16M] [--repeat 20]

Times both phases of aclnnLeakyReluBackward (and HardsigmoidBackward) on tensors already in
simulated device memory, against torch.ops.aten.*_backward with an out= tensor on the same number of
threads, for FLOAT, FLOAT16 and BFLOAT16, contiguous and (with --strided) on a transposed view.
Each side runs in its own process (--side sim|torch), so that neither's idle threads (torch's
OpenMP workers spin after a parallel region) run while the other is timed. The best of --repeat
runs is reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.sim_lib import DeviceArray, session_sim  # noqa: E402

DTYPES = {"float32": (np.float32, torch.float32), "float16": (np.float16, torch.float16),
          "bfloat16": (ml_dtypes.bfloat16, torch.bfloat16)}


def best(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1M,16M")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--strided", action="store_true", help="self is a transposed view")
    parser.add_argument("--side", choices=["sim", "torch"], help="time one side only (internal)")
    args = parser.parse_args()
    if args.side is None:
        compare(sys.argv[1:])
        return
    sim = session_sim() if args.side == "sim" else None
    for size in args.sizes.split(","):
        n = int(size.rstrip("M")) * (1 << 20)
        side = int(n ** 0.5)
        for name, (np_dtype, torch_dtype) in DTYPES.items():
            rng = np.random.default_rng(0)
            grad = rng.uniform(-4, 4, n).astype(np.float32).astype(np_dtype)
            x = rng.uniform(-4, 4, n).astype(np.float32).astype(np_dtype)
            view = dict(shape=[side, n // side], strides=[1, side]) if args.strided else {}
            if args.side == "sim":
                d_grad, d_self = DeviceArray(sim, grad), DeviceArray(sim, x, **view)
                d_out = DeviceArray(sim, np.zeros(n if not args.strided else (side, n // side), np_dtype))
                slope = sim.scalar(0.01, np.float32)
                if args.strided:
                    d_grad.close()
                    d_grad = DeviceArray(sim, grad.reshape(side, n // side))
            t_grad = torch.from_numpy(grad.view(np.uint16) if name == "bfloat16" else grad)
            t_self = torch.from_numpy(x.view(np.uint16) if name == "bfloat16" else x)
            if name == "bfloat16":
                t_grad, t_self = t_grad.view(torch.bfloat16), t_self.view(torch.bfloat16)
            if args.strided:
                t_grad = t_grad.reshape(side, n // side)
                t_self = t_self.reshape(n // side, side).t()
            t_out = torch.empty_like(t_grad)
            cases = [
                ("LeakyReluBackward",
                 lambda: sim.call("aclnnLeakyReluBackward", d_grad.handle, d_self.handle, slope, False, d_out.handle),
                 lambda: torch.ops.aten.leaky_relu_backward.grad_input(t_grad, t_self, 0.01, False, grad_input=t_out)),
                ("HardsigmoidBackward",
                 lambda: sim.call("aclnnHardsigmoidBackward", d_grad.handle, d_self.handle, d_out.handle),
                 lambda: torch.ops.aten.hardsigmoid_backward.grad_input(t_grad, t_self, grad_input=t_out)),
            ]
            for op, run_sim, run_torch in cases:
                if args.side == "sim":
                    assert run_sim() == (0, 0), sim.error()
                fastest, _ = best(run_sim if args.side == "sim" else run_torch, args.repeat)
                print(f"{op} {name} {size} {fastest * 1e3:.3f}", flush=True)
            if args.side == "sim":
                for a in (d_grad, d_self, d_out):
                    a.close()
                sim.aclDestroyScalar(slope)


def compare(argv: list[str]) -> None:
    import subprocess

    def side(name: str) -> dict[tuple[str, str, str], float]:
        out = subprocess.run([sys.executable, __file__, *argv, "--side", name], check=True, capture_output=True,
                             text=True).stdout
        return {tuple(line.split()[:3]): float(line.split()[3]) for line in out.splitlines() if line.strip()}

    sim_ms, torch_ms = side("sim"), side("torch")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; best of the runs, milliseconds")
    print(f"{'op':<22}{'dtype':<10}{'n':>6}  {'sim ms':>8}  {'torch ms':>8}  {'sim/torch':>9}")
    for key, ms in sim_ms.items():
        op, dtype, size = key
        print(f"{op:<22}{dtype:<10}{size:>6}  {ms:8.2f}  {torch_ms[key]:8.2f}  {ms / torch_ms[key]:9.2f}")


if __name__ == "__main__":
    main()
