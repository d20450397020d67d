"""Call overhead on the simulator, 4-element float32 tensors, seconds per call:

    a  aclnn.leaky_relu_backward with NumPy inputs (uploads, output allocated and downloaded)
    b  the same with device-resident inputs (aclnn.to_device); the output is allocated on the device
    b_out  device-resident inputs and out= a device tensor
    c  the floor: bench/call_floor.cpp making the ABI calls of b directly (tensors, scalar, output
       buffer, phase 1, phase 2, synchronise, destroy); c_out the same without allocating the output
    d  torch.ops.aten.leaky_relu_backward on CPU tensors (its output allocated, as in b)

All in one process, interleaved round by round; the floor is a shared library loaded next to the
bindings, so both use the same loaded simulator.

    python -m bench.calls [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import time
from pathlib import Path

# NumPy's OpenBLAS pool spins in the background after NumPy loads (blas_thread_server took 3%
# of a profile of these calls); nothing here uses BLAS, so it gets no threads to spin.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.common import ROOT, Summary, emit_result, interleaved, log, ratio  # noqa: E402

BUILD = ROOT / "build" / "bench"


def build_floor(sim_dir: Path) -> Path:
    """Compiles bench/call_floor.cpp against runtime/include, generated/aclnnop and the simulator."""
    BUILD.mkdir(parents=True, exist_ok=True)
    library = BUILD / "libcall_floor.so"
    partial = BUILD / f"libcall_floor.{os.getpid()}.so"  # renamed when complete: runs may overlap
    source = ROOT / "bench" / "call_floor.cpp"
    subprocess.run(["g++", "-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                    f"-I{ROOT / 'runtime' / 'include'}", f"-I{ROOT / 'generated'}", str(source),
                    f"-L{sim_dir}", f"-Wl,-rpath,{sim_dir}", "-lascendcl", "-lnnopbase", "-lopapi",
                    "-o", str(partial)], check=True)
    os.replace(partial, library)
    return library


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000, help="calls per case per round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    import aclnn

    info = aclnn.backend()
    if info != "sim":
        raise SystemExit(f"bench.calls measures the simulator; the backend is {info!r}")
    floor = ctypes.CDLL(str(build_floor(Path(info.lib_dir))))
    floor.bench_call_floor.restype = ctypes.c_double
    floor.bench_call_floor.argtypes = [ctypes.c_int, ctypes.c_int]

    grad = np.array([2, 3, 4, 5], np.float32)
    x = np.array([1, -2, 3, -4], np.float32)
    expected = np.where(x > 0, grad, grad * np.float32(0.01))
    d_grad, d_x, d_out = aclnn.to_device(grad), aclnn.to_device(x), aclnn.to_device(np.zeros(4, np.float32))
    t_grad, t_x = torch.from_numpy(grad), torch.from_numpy(x)
    op, aten = aclnn.leaky_relu_backward, torch.ops.aten.leaky_relu_backward
    # Every side computes the same thing (checked once, outside the timing).
    np.testing.assert_allclose(op(grad, x, 0.01, False), expected, rtol=1e-6)
    np.testing.assert_allclose(op(d_grad, d_x, 0.01, False).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(aten(t_grad, t_x, 0.01, False).numpy(), expected, rtol=1e-6)
    n = args.calls

    def per_call(fn) -> float:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - start) / n

    def floor_call(alloc_out: int) -> float:
        seconds = floor.bench_call_floor(n, alloc_out)
        if seconds < 0:
            raise RuntimeError(f"call_floor failed: status {-seconds:.0f}")
        return seconds

    log(f"calls: {n} calls per case, {args.rounds} rounds")
    times = interleaved({
        "a_numpy": lambda: per_call(lambda: op(grad, x, 0.01, False)),
        "b_device": lambda: per_call(lambda: op(d_grad, d_x, 0.01, False)),
        "b_device_out": lambda: per_call(lambda: op(d_grad, d_x, 0.01, False, out=d_out)),
        "c_floor": lambda: floor_call(1),
        "c_floor_out": lambda: floor_call(0),
        "d_torch": lambda: per_call(lambda: aten(t_grad, t_x, 0.01, False)),
    }, args.rounds)
    emit_result({
        "op": "aclnnLeakyReluBackward",
        "elements": 4,
        "dtype": "float32",
        "calls_per_round": n,
        "torch_threads": torch.get_num_threads(),
        "seconds_per_call": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
        "ratios": {
            "a/c": ratio(times["a_numpy"], times["c_floor"]).to_json(),
            "b/c": ratio(times["b_device"], times["c_floor"]).to_json(),
            "b_out/c_out": ratio(times["b_device_out"], times["c_floor_out"]).to_json(),
            "b/d": ratio(times["b_device"], times["d_torch"]).to_json(),
        },
    })


if __name__ == "__main__":
    main()
