"""Kernel throughput on the simulator for the seed ops, against the PyTorch CPU aten op on the
same data with the same number of threads: GB/s counted as bytes read + written (each input and
the output, n elements each: three for the backward ops, two for the activations).

The backward ops are arithmetic and selects; the activations (silu, sigmoid, tanh, gelu in its tanh
and erf forms, softplus, mish) call exp, tanh, erf or log1p per element, which PyTorch computes with
SLEEF's vector routines and the simulator with libmvec's (aclnn_sim/vector_math.h).

The simulator side runs through the bindings on device-resident tensors with out= (at these
sizes the call overhead is under 0.1% of the time), each call timed to its stream's synchronisation
(a device call returns once queued); the PyTorch side writes into an out= tensor too. Both run in this process, interleaved. OMP_WAIT_POLICY=PASSIVE (set before torch loads):
PyTorch's OpenMP workers otherwise spin after each parallel region and take the cores the
simulator's pool then needs; passive workers cost PyTorch a wake-up per region (microseconds,
against milliseconds of work here).

    python -m bench.kernels [--sizes 1M,16M] [--rounds R] [--ops gelu_erf,sigmoid] [--dtypes bfloat16]

The project's one kernel benchmark: the simulator keeps no benchmark of its own.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.common import Summary, emit_result, interleaved, log, ratio, to_the_end  # noqa: E402
from gen.ir import DType  # noqa: E402

# The dtypes measured; the results name them as NumPy and PyTorch do ("float32", ...).
MEASURED = (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def size_of(text: str) -> int:
    """"1M" -> 1048576, "4K" -> 4096, "100" -> 100."""
    units = {"K": 1 << 10, "M": 1 << 20}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def void(fn) -> None:
    """Runs fn for its time: interleaved() takes a returned number for the case's own measure."""
    fn()


def as_torch(array: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    if dtype == torch.bfloat16:
        return torch.from_numpy(array.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1M,16M")
    parser.add_argument("--rounds", type=int, default=5)
    # One line alone, for a before/after of the kernel being worked on: the others' lines are not run.
    parser.add_argument("--ops", default="", help="comma-separated ops to run (default: all)")
    parser.add_argument("--dtypes", default="", help="comma-separated dtypes to run, float32,float16,bfloat16 (default: all)")
    args = parser.parse_args()
    chosen_ops, chosen_dtypes = set(filter(None, args.ops.split(","))), set(filter(None, args.dtypes.split(",")))

    import aclnn
    from aclnn._dtypes import NUMPY_DTYPES

    threads = torch.get_num_threads()
    # The simulator's pool takes ACLNN_SIM_THREADS, else the hardware's count: say which.
    sim_threads = int(os.environ.get("ACLNN_SIM_THREADS", os.cpu_count() or 1))
    results = []
    for size_text in args.sizes.split(","):
        n = size_of(size_text)
        for dtype in MEASURED:
            np_dtype = NUMPY_DTYPES[dtype.value]
            dtype_name = np.dtype(np_dtype).name  # "float32", ..., as PyTorch names it too
            if chosen_dtypes and dtype_name not in chosen_dtypes:
                continue
            torch_dtype = getattr(torch, dtype_name)
            rng = np.random.default_rng(0)
            grad: np.ndarray = rng.uniform(-4, 4, n).astype(np.float32).astype(np_dtype)
            x: np.ndarray = rng.uniform(-4, 4, n).astype(np.float32).astype(np_dtype)
            d_grad, d_x = aclnn.to_device(grad), aclnn.to_device(x)
            d_out = aclnn.to_device(np.zeros(n, np_dtype))
            t_grad, t_x = as_torch(grad, torch_dtype), as_torch(x, torch_dtype)
            t_out = torch.empty_like(t_grad)
            ops = {
                "leaky_relu_backward": (
                    lambda: aclnn.leaky_relu_backward(d_grad, d_x, 0.01, False, out=d_out),
                    lambda: torch.ops.aten.leaky_relu_backward.grad_input(t_grad, t_x, 0.01, False, grad_input=t_out)),
                "hardsigmoid_backward": (
                    lambda: aclnn.hardsigmoid_backward(d_grad, d_x, out=d_out),
                    lambda: torch.ops.aten.hardsigmoid_backward.grad_input(t_grad, t_x, grad_input=t_out)),
                "selu_backward": (
                    lambda: aclnn.selu_backward(d_grad, d_x, out=d_out),
                    lambda: torch.ops.aten.elu_backward.grad_input(t_grad, SELU_ALPHA, SELU_SCALE, 1.0, True, t_x,
                                                                   grad_input=t_out)),
                "silu": (lambda: aclnn.silu(d_x, out=d_out), lambda: torch.ops.aten.silu.out(t_x, out=t_out)),
                "sigmoid": (lambda: aclnn.sigmoid(d_x, out=d_out), lambda: torch.sigmoid(t_x, out=t_out)),
                "tanh": (lambda: aclnn.tanh(d_x, out=d_out), lambda: torch.tanh(t_x, out=t_out)),
                # aclnnGelu is the tanh form (its page's formula); aclnnGeluV2 with approximate 0 the erf one.
                "gelu_tanh": (lambda: aclnn.gelu(d_x, out=d_out),
                              lambda: torch.ops.aten.gelu.out(t_x, approximate="tanh", out=t_out)),
                "gelu_erf": (lambda: aclnn.gelu_v2(d_x, 0, out=d_out),
                             lambda: torch.ops.aten.gelu.out(t_x, approximate="none", out=t_out)),
                "softplus": (lambda: aclnn.softplus(d_x, 1.0, 20.0, out=d_out),
                             lambda: torch.ops.aten.softplus.out(t_x, 1.0, 20.0, out=t_out)),
                "mish": (lambda: aclnn.mish(d_x, out=d_out), lambda: torch.ops.aten.mish.out(t_x, out=t_out)),
            }
            unknown = chosen_ops - ops.keys()
            if unknown:
                parser.error(f"--ops: no line {sorted(unknown)}; the lines are {', '.join(ops)}")
            for op, (run_sim, run_torch) in ops.items():
                if chosen_ops and op not in chosen_ops:
                    continue
                operands = 3 if op.endswith("_backward") else 2
                moved = operands * n * np.dtype(np_dtype).itemsize
                # Same results (to the dtype's rounding), checked once before timing.
                run_sim()
                run_torch()
                sim_result = d_out.numpy().astype(np.float32)
                torch_result = t_out.float().numpy()
                tolerance = 1e-5 if dtype_name == "float32" else 2e-2
                np.testing.assert_allclose(sim_result, torch_result, rtol=tolerance, atol=tolerance)
                times = interleaved({"sim": lambda: void(to_the_end(run_sim)), "torch": lambda: void(run_torch)},
                                    args.rounds)
                row = {
                    "op": op, "dtype": dtype_name, "elements": n, "size": size_text,
                    "seconds": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
                    "gb_per_s": {k: Summary.of([moved / t / 1e9 for t in v], "GB/s").to_json()
                                 for k, v in times.items()},
                    # Paired per round: torch's time over the simulator's (> 1: the simulator is faster).
                    "sim_speed_vs_torch": ratio(times["torch"], times["sim"]).to_json(),
                }
                log(f"kernels: {op} {dtype_name} {size_text}: sim {row['gb_per_s']['sim']['median']:.2f} GB/s, "
                    f"torch {row['gb_per_s']['torch']['median']:.2f} GB/s")
                results.append(row)
            del d_grad, d_x, d_out
    stats = aclnn.sim_stats() or {}
    emit_result({"kernel_path": stats.get("kernel_path"), "engine_paths": stats.get("engine_paths"),
                 "torch_threads": threads, "torch_capability": torch.backends.cpu.get_cpu_capability(), "sim_threads": sim_threads, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"), "rows": results})


if __name__ == "__main__":
    main()
