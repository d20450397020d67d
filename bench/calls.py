"""Call overhead on the simulator: a chain of calls on 1,024 float32 elements, each call's output
the next one's input, seconds per call (the chain's wall time, its final synchronisation included):

    a      aclnn.leaky_relu_backward with NumPy inputs (upload, kernel, download: one sync per call)
    b      y = aclnn.leaky_relu_backward(g, y, 0.1, False) on device tensors: queued, outputs from the
           caching allocator, descriptors kept by the Tensors and the cached blocks, the scalar shared
           (no CANN object made once warm), one synchronisation at the end of the chain
    b_out  the same, writing into two device tensors in turn (out=)
    c      the floor: bench/call_floor.cpp making the calls of b directly from C++ as CANN's examples
           and torch_npu's op-plugin write them (every tensor and the scalar created, phase 1,
           phase 2 queued, all destroyed), one synchronisation at the end
    d      torch.ops.aten.leaky_relu_backward chained the same way on CPU tensors (PyTorch eager)

All in one process, interleaved round by round (ratios are paired per round); the floor is a shared
library loaded next to the bindings, so both use the same loaded simulator. During b, the
simulator's counters must show no aclrtMalloc and no synchronisation (checked, and reported).

    python -m bench.calls [--calls N] [--rounds R] [--elements E]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
from pathlib import Path
from typing import Callable

# NumPy's OpenBLAS pool spins in the background after NumPy loads; nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.common import ROOT, Summary, emit_result, interleaved, log, ratio  # noqa: E402

BUILD = ROOT / "build" / "bench"
COUNTERS = ("malloc_calls", "stream_syncs", "device_syncs", "kernels_launched", "descriptors_made", "scalars_made")


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


def chain_inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Those of bench/call_floor.cpp: exact in float32, so that every side's result is compared exactly."""
    i = np.arange(n)
    return (i % 7 - 3).astype(np.float32), (i % 5 - 2).astype(np.float32)


def chained(g: np.ndarray, y: np.ndarray, calls: int) -> np.ndarray:
    for _ in range(calls):
        y = np.where(y > 0, g, g * np.float32(0.1)).astype(np.float32)
    return y


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000, help="calls per chain (per case per round)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--elements", type=int, default=1024)
    args = parser.parse_args()

    import aclnn

    info = aclnn.backend()
    if info != "sim":
        raise SystemExit(f"bench.calls measures the simulator; the backend is {info!r}")
    floor = ctypes.CDLL(str(build_floor(Path(info.lib_dir))))
    floor.bench_call_floor.restype = ctypes.c_double
    floor.bench_call_floor.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]

    n, e = args.calls, args.elements
    g, y0 = chain_inputs(e)
    expected = chained(g, y0, n)
    op, aten = aclnn.leaky_relu_backward, torch.ops.aten.leaky_relu_backward
    dg = aclnn.to_device(g)
    outs = [aclnn.to_device(np.zeros(e, np.float32)) for _ in range(2)]
    tg = torch.from_numpy(g)
    counters: dict[str, list[int]] = {k: [] for k in COUNTERS}

    def stats() -> dict[str, int]:
        counts = aclnn.sim_stats()
        assert counts is not None, "the simulator's counters"
        return {**counts, **aclnn._C._stats()}

    def a_numpy() -> None:
        y = y0
        for _ in range(n):
            y = op(g, y, 0.1, False)
        assert np.array_equal(y, expected)

    def b_chain() -> float:
        y = aclnn.to_device(y0)
        aclnn.synchronize()
        before = stats()
        start = time_now()
        for _ in range(n):
            y = op(dg, y, 0.1, False)
        queued = stats()
        result = y.numpy()  # the chain's one synchronisation
        seconds = time_now() - start
        for k in COUNTERS:
            counters[k].append(queued[k] - before[k])
        assert np.array_equal(result, expected)
        return seconds / n

    def b_out() -> float:
        y = aclnn.to_device(y0)
        aclnn.synchronize()
        start = time_now()
        for i in range(n):
            y = op(dg, y, 0.1, False, out=outs[i % 2])
        result = y.numpy()
        seconds = time_now() - start
        assert np.array_equal(result, expected)
        return seconds / n

    def c_floor() -> float:
        result = np.zeros(e, np.float32)
        seconds = floor.bench_call_floor(n, e, result.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if seconds < 0:
            raise RuntimeError(f"call_floor failed: status {-seconds:.0f}")
        assert np.array_equal(result, chained(g, chained(g, y0, 1), n))
        return seconds

    def d_torch() -> float:
        y = torch.from_numpy(y0.copy())
        start = time_now()
        for _ in range(n):
            y = aten(tg, y, 0.1, False)
        seconds = time_now() - start
        assert np.array_equal(y.numpy(), expected)
        return seconds / n

    log(f"calls: chains of {n} calls on {e} float32 elements, {args.rounds} rounds")
    times = interleaved({"a_numpy": lambda: _per_call(a_numpy, n), "b_chain": b_chain, "b_out": b_out,
                         "c_floor": c_floor, "d_torch": d_torch}, args.rounds)
    during = {k: max(v) for k, v in counters.items()}
    if during["malloc_calls"] or during["stream_syncs"] or during["device_syncs"]:
        raise SystemExit(f"bench.calls: the device-resident chain allocated or synchronised: {during}")
    emit_result({
        "op": "aclnnLeakyReluBackward",
        "elements": e,
        "dtype": "float32",
        "calls_per_chain": n,
        "torch_threads": torch.get_num_threads(),
        "chain_counters": during,
        "seconds_per_call": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
        "ratios": {
            "a/c": ratio(times["a_numpy"], times["c_floor"]).to_json(),
            "b/c": ratio(times["b_chain"], times["c_floor"]).to_json(),
            "b_out/c": ratio(times["b_out"], times["c_floor"]).to_json(),
            "b/d": ratio(times["b_chain"], times["d_torch"]).to_json(),
        },
    })


def time_now() -> float:
    import time

    return time.perf_counter()


def _per_call(case: Callable[[], None], n: int) -> float:
    start = time_now()
    case()
    return (time_now() - start) / n


if __name__ == "__main__":
    main()
