"""One code path for every kernel (issue 26): ACLNN_SIM_ISA chooses it for the elementwise kernels
and for every family alike, aclnn.sim_stats() says which one ran (kernel_path) and which each
engine took (engine_paths), and the paths agree: bit for bit where the operation is exact (max,
elementwise math, float16/bfloat16 conversions), within the op's tolerance where the order of a sum
depends on the vector width (softmax, sums) or on the path's vector math routines (exp, tanh, erf and
log1p: libmvec's 4-lane variants on the baseline path, its 8-lane ones on the others). Each path runs in
its own process: the path is decided once per process."""

from __future__ import annotations

import json
import os
from pathlib import Path
import subprocess
import sys

import numpy as np
import pytest

from tests.sim.sim_lib import ROOT, subprocess_env

PATHS = ("baseline", "avx2", "avx512")

# The rows the softmax, the sum and the amax run over (long rows are cut into chunks), with NaN and
# infinities among them; the script and the reference below both build them from this.
_ROWS = """
rng = np.random.default_rng(7)
x = rng.standard_normal((33, 70001)).astype(np.float32) * 20
x[0, 5], x[1, 9], x[2, 3] = np.nan, np.inf, -np.inf
"""

# The matmul family's operands (float32, rounded to each 16-bit dtype by the script).
_MATMUL_INPUT = """
mm_rng = np.random.default_rng(26)
mm_a, mm_b = mm_rng.uniform(-2, 2, (37, 300)).astype(np.float32), mm_rng.uniform(-2, 2, (300, 45)).astype(np.float32)
mm_bias = mm_rng.uniform(-2, 2, 45).astype(np.float32)
bmm_a, bmm_b = mm_rng.uniform(-2, 2, (3, 20, 70)).astype(np.float32), mm_rng.uniform(-2, 2, (1, 70, 30)).astype(np.float32)
"""

# The activations' input: every float32 range their routines branch on (the overflow of exp near
# 88.7, its subnormal results below -87.3, tanh's saturation, softplus's threshold 20), NaN, the
# infinities and signed zeros.
_ACTIVATION_INPUT = """
edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 20.0, 20.001, -20.0, 88.7, 89.0, -87.0, -95.0, -104.0]
act = np.concatenate([np.array(edges, np.float32), np.linspace(-40, 40, 4003, dtype=np.float32)])
"""

# The factors every BFLOAT16 is multiplied by (each exactly a BFLOAT16: the reference uses them as they are).
BFLOAT16_FACTORS = (1.0078125, 3.0, -2.0 ** -100, 2.0 ** 100)

# Softmax and log_softmax over rows and over columns, a sum, an amax and elementwise kernels.
_SCRIPT = f"BFLOAT16_FACTORS = {BFLOAT16_FACTORS!r}\n" + """
import json, sys
import numpy as np
import aclnn
import ml_dtypes
""" + _ROWS + _ACTIVATION_INPUT + """
small = rng.standard_normal((6, 37, 5)).astype(np.float32) * 20
every_half = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
every_bfloat16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
# Floats that round to every half, halfway cases (ties to even) and overflow among them; no NaN:
# F16C keeps a NaN's payload where the portable conversion gives 0x7e00.
finite = every_half[~np.isnan(every_half)].astype(np.float32)
to_half = np.concatenate([finite, np.nextafter(finite, np.float32(np.inf)), finite * np.float32(1 + 2 ** -11)])
# NaNs of both signs, quiet and signalling, with payloads: the portable conversion (the baseline
# path's, 8 at a time and in the row's tail) gives 0x7e00 with the sign.
nan_bits = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0xffffffff, 0x7fa00000, 0xffe01234]
                    * 2 + [0x7f800001, 0xffc00001], np.uint32)
high = np.arange(1 << 16, dtype=np.uint32) << 16
to_bfloat16_bits = np.concatenate([high, high | 0x8000, high | 0x7fff, high | 0x8001])
norm_x = rng.standard_normal((2, 64, 6, 6)).astype(np.float32)
norm_w = rng.uniform(0.5, 1.5, 64).astype(np.float32)
def norm_in_place():
    d = aclnn.to_device(norm_x)
    stats = tuple(aclnn.to_device(np.zeros((2, 8), np.float32)) for _ in range(2))
    aclnn.group_norm_silu(d, norm_w, norm_w[::-1].copy(), 8, 1e-5, out=(d, *stats))
    return d.numpy()
sum_rows = np.ascontiguousarray(x[:, :999].reshape(99, 333))
image, grid = rng.standard_normal((2, 3, 6, 9)).astype(np.float32), rng.uniform(-1.3, 1.3, (2, 5, 7, 2)).astype(np.float32)
results = {
    "softmax_rows": aclnn.softmax(x, 1), "log_softmax_rows": aclnn.log_softmax(x, 1),
    "softmax_columns": aclnn.softmax(small, 1), "log_softmax_columns": aclnn.log_softmax(small, 1),
    "sum": aclnn.reduce_sum(x, [1], False, np.float32), "amax": aclnn.amax(x, [1], False),
    # Many rows are summed several side by side, a lone row alone: the same sum to the bit.
    "row_sums": aclnn.reduce_sum(sum_rows, [1], False, np.float32),
    "one_row_sums": np.concatenate([aclnn.reduce_sum(row[None], [1], False, np.float32) for row in sum_rows]),
    "exp": aclnn.exp(small),
    # The transcendental activations, in float32 and in float16 (the AVX2 path's fused F16C loop).
    **{f"{name}{suffix}": fn(act.astype(dtype)) for suffix, dtype in (("", np.float32), ("_float16", np.float16))
       for name, fn in {"act_exp": aclnn.exp, "silu": aclnn.silu, "sigmoid": aclnn.sigmoid, "tanh": aclnn.tanh,
                        "gelu_tanh": aclnn.gelu, "gelu_erf": lambda t: aclnn.gelu_v2(t, 0),
                        "softplus": lambda t: aclnn.softplus(t, 1.0, 20.0), "mish": aclnn.mish}.items()},
    # Contiguous float16/bfloat16 rows take the fused loops' F16C and shift conversions on the
    # AVX2 path, the portable ones on the baseline path.
    "exp_float16": aclnn.exp(small.astype(np.float16)).view(np.uint16),
    "mul_bfloat16": aclnn.mul(small.astype(ml_dtypes.bfloat16), small[::-1].astype(ml_dtypes.bfloat16)).view(np.uint16),
    # Every BFLOAT16 (NaNs with their payloads, subnormals, infinities) times three factors, through
    # the fused loops (two registers a step; the engine's SSE2 rows on the baseline path): ties, carries into the
    # exponent, overflow and underflow.
    "mul_every_bfloat16": np.stack([aclnn.mul(every_bfloat16, np.full(1 << 16, factor, ml_dtypes.bfloat16)).view(np.uint16)
                                    for factor in BFLOAT16_FACTORS]),
    "softmax_float16": aclnn.softmax(x[:4, :1000].astype(np.float16), 1).view(np.uint16),
    # Every half to float (the portable conversion quiets a signalling NaN as F16C does), and back.
    "every_half": aclnn.cast(every_half, np.float32).view(np.uint32),
    "to_half": aclnn.cast(to_half, np.float16).view(np.uint16),
    "nan_to_half": aclnn.cast(nan_bits.view(np.float32), np.float16).view(np.uint16),
    # float32 -> BFLOAT16 through the engine's rows (8 at a time on the AVX2 path, a NaN-free step
    # without the NaN's blend): every BFLOAT16's float, the halfway cases above it and either side
    # of them (ties to even, carries into the exponent, overflow to infinity), NaNs with payloads.
    "to_bfloat16": aclnn.cast(to_bfloat16_bits.view(np.float32), ml_dtypes.bfloat16).view(np.uint16),
    # The norm family writes a dense out directly: an out that is the input itself is read row by
    # row before it is written there.
    "norm_elsewhere": aclnn.group_norm_silu(norm_x, norm_w, norm_w[::-1].copy(), 8, 1e-5)[0],
    "norm_in_place": norm_in_place(),
    # Bicubic with reflection and the bilinear backward: their fused multiply-adds are instructions
    # on the AVX2 and AVX-512 paths, the library's on the baseline path.
    "grid_sample": aclnn.grid_sampler2d(image, grid, 2, 2, False, out=np.zeros((2, 3, 5, 7), np.float32)),
    "grid_sample_backward": np.concatenate([g.ravel() for g in aclnn.grid_sampler2d_backward(
        np.ones((2, 3, 5, 7), np.float32), image, grid, 0, 2, False, [True, True],
        out=(np.zeros_like(image), np.zeros_like(grid)))]),
}
# The resample family's sums of fused multiply-adds (instructions on the AVX2 and AVX-512 paths,
# computed in double on the baseline path): bilinear at an output small enough for aten's one flat
# sum (at most 128 rows and columns) and at a larger one summed axis by axis, bicubic, the bilinear
# backward; and sums that a double rounded to float would round the wrong way. 0.75 * (1 + 2^-23)
# lies halfway between two floats and -2^-80 puts the exact sum below it (0.75 + 2^-24), where a
# double sum is that halfway point, which rounds to even (0.75 + 2^-23). Each row is one value (a
# column's second tap weighs 0 in the first output column): the flat sum of output row 2 is
# fma(1 + 2^-23, 0.75, -2^-78 * 0.25) with those rows in that order; the axes' sum of row 1 is
# fma(1 + 2^-23, 0.75, -2^-78 * 0.25) with the rows swapped.
up = rng.standard_normal((2, 3, 9, 70)).astype(np.float32)
halfway = np.zeros((1, 1, 2, 64), np.float32)
halfway[0, 0, 0], halfway[0, 0, 1] = -2.0 ** -78, 1 + 2.0 ** -23
swapped = np.ascontiguousarray(halfway[:, :, ::-1])
results.update({
    "upsample_flat": aclnn.upsample_bilinear2d(up[..., :20], [18, 40], False, 2.0, 2.0),
    "upsample_axes": aclnn.upsample_bilinear2d(up, [17, 131], False, 0.0, 0.0),
    "upsample_bicubic": aclnn.upsample_bicubic2d(up, [13, 101], True, 0.0, 0.0),
    "upsample_backward": aclnn.upsample_bilinear2d_backward(up, [9, 70], [2, 3, 5, 33], False, 0.0, 0.0),
    "upsample_halfway_flat": aclnn.upsample_bilinear2d(halfway[..., :1], [4, 2], False, 2.0, 2.0)[0, 0, 2, 0],
    "upsample_halfway_axes": aclnn.upsample_bilinear2d(swapped, [4, 128], False, 2.0, 2.0)[0, 0, 1, 0],
})
# Many such sums, in every lane of the baseline path's vectors and in the columns after the last
# whole vector, of either sign, along each axis: values whose last bit is set (times 0.75 a halfway
# point) and tiny ones (which make the double sum inexact, so that it rounds onto the halfway
# point) at random, through each mode's sums by output row (bilinear, trilinear, linear, bicubic).
def mixed(shape):
    odd = (1 + (2 * rng.integers(0, 2 ** 22, shape) + 1) * 2.0 ** -23) * 2.0 ** rng.integers(-3, 4, shape)
    tiny = 2.0 ** -rng.integers(30, 90, shape).astype(np.float64)
    sign = rng.choice([-1.0, 1.0], shape)
    return (sign * np.where(rng.random(shape) < 0.5, odd, tiny)).astype(np.float32)
results.update({
    "upsample_mixed_bilinear": aclnn.upsample_bilinear2d(mixed((2, 3, 21, 45)), [42, 90], False, 2.0, 2.0),
    "upsample_mixed_trilinear": aclnn.upsample_trilinear3d(mixed((1, 2, 5, 7, 9)), [10, 14, 19], False, 2.0, 2.0, 0.0),
    "upsample_mixed_linear": aclnn.upsample_linear1d(mixed((2, 3, 37)), [74], False, 2.0),
    "upsample_mixed_bicubic": aclnn.upsample_bicubic2d(mixed((2, 3, 21, 37)), [42, 73], False, 2.0, 0.0),
})
# The backward ops' additions, which the baseline path makes four input columns at a time: input
# columns with as many contributions as their neighbours (a 2x upsample's) and with fewer (the
# borders, other scales, a downsample's columns that no output reads), the columns after the last
# four, rows that coincide at the border (taken in the scalar order), nearest's one tap, and
# gradients that are infinite or NaN beside finite ones.
nonfinite = mixed((2, 3, 10, 22))
nonfinite[0, 0, 3, 5], nonfinite[0, 1, 7, 0], nonfinite[1, 2, 9, 21] = np.inf, -np.inf, np.nan
results.update({
    "upsample_mixed_backward_bilinear": aclnn.upsample_bilinear2d_backward(mixed((2, 3, 42, 90)), [42, 90],
                                                                           [2, 3, 21, 45], False, 2.0, 2.0),
    "upsample_mixed_backward_trilinear": aclnn.upsample_trilinear3d_backward(mixed((1, 2, 10, 14, 19)), [10, 14, 19],
                                                                             [1, 2, 5, 7, 9], False, 2.0, 2.0, 0.0),
    "upsample_mixed_backward_linear": aclnn.upsample_linear1d_backward(mixed((2, 3, 74)), [74], [2, 3, 37], False, 2.0),
    "upsample_mixed_backward_aligned": aclnn.upsample_bilinear2d_backward(mixed((2, 3, 13, 50)), [13, 50],
                                                                          [2, 3, 6, 23], True, 0.0, 0.0),
    "upsample_mixed_backward_down": aclnn.upsample_bilinear2d_backward(mixed((2, 3, 7, 11)), [7, 11],
                                                                       [2, 3, 15, 29], False, 0.0, 0.0),
    "upsample_mixed_backward_nearest": aclnn.upsample_nearest2d_backward(mixed((2, 3, 10, 31)), [10, 31],
                                                                         [2, 3, 4, 13], 0.0, 0.0),
    "upsample_backward_nonfinite": aclnn.upsample_bilinear2d_backward(nonfinite, [10, 22], [2, 3, 5, 11], False,
                                                                      2.0, 2.0),
})
# The bicubic backward's, which every path makes in blocks of its vector's width (4, 8 or 16 input
# columns) and which no path may fuse (aten rounds each product): a 2x upsample (the first and last
# output rows' clamped taps on one input row, 37 columns: a partial block after the last), and
# infinite and NaN gradients into a larger input with alignCorners (columns no output reads).
results.update({
    "upsample_mixed_backward_bicubic": aclnn.upsample_bicubic2d_backward(mixed((2, 3, 42, 74)), [42, 74],
                                                                         [2, 3, 21, 37], False, 2.0, 2.0),
    "upsample_bicubic_backward_nonfinite": aclnn.upsample_bicubic2d_backward(nonfinite, [10, 22], [2, 3, 13, 53],
                                                                             True, 0.0, 0.0),
})
# The antialiased ops: the cubic filter's and the backward's fused multiply-adds (std::fma, a library
# routine on the baseline path) and the forward's separate roundings give the same bits everywhere.
results.update({
    "upsample_aa_bicubic": aclnn.upsample_bicubic2d_aa(mixed((2, 3, 21, 45)), [8, 13], False, 0.0, 0.0),
    "upsample_aa_backward": aclnn.upsample_bicubic2d_aa_grad(nonfinite, [10, 22], [2, 3, 27, 9], False, 0.0, 0.0),
})
# The matmul family's 16-bit products: oneDNN where the path has the CPU's instructions for them,
# OpenBLAS's sgemm of the operands as floats elsewhere. A k that is no multiple of a tile, B read
# transposed in place, alpha and beta with a broadcast bias (a float result rounded once), a batch
# broadcast, and integers whose sums are exact (the same bits on every route).
""" + _MATMUL_INPUT + """
exact_a, exact_b = mm_rng.integers(-8, 9, (33, 64)).astype(np.float32), mm_rng.integers(-8, 9, (64, 40)).astype(np.float32)
for name, dt in (("bfloat16", ml_dtypes.bfloat16), ("float16", np.float16)):
    results[f"mm_{name}"] = aclnn.mm(mm_a.astype(dt), mm_b.astype(dt), 0).astype(np.float32)
    results[f"mm_bt_{name}"] = aclnn.mm(mm_a.astype(dt), np.ascontiguousarray(mm_b.T.astype(dt)).T, 0).astype(np.float32)
    results[f"addmm_{name}"] = aclnn.addmm(mm_bias.astype(dt), mm_a.astype(dt), mm_b.astype(dt), 0.5, 1.5, 0).astype(np.float32)
    results[f"bmm_{name}"] = aclnn.batch_mat_mul(bmm_a.astype(dt), np.broadcast_to(bmm_b.astype(dt), (3, 70, 30)), 0).astype(np.float32)
    results[f"mm_exact_{name}"] = aclnn.mm(exact_a.astype(dt), exact_b.astype(dt), 0).view(np.uint16)
# float32 on OpenBLAS, whose kernels (its core) the path chooses: the same integers (exact sums:
# the same bits on every core) and the operands as they are.
results["mm_float32"] = aclnn.mm(mm_a, mm_b, 0)
results["mm_exact_float32"] = aclnn.mm(exact_a, exact_b, 0)
np.savez(sys.argv[1], **{k: np.asarray(v) for k, v in results.items()})
stats = aclnn.sim_stats()
print(json.dumps([stats["kernel_path"], stats["engine_paths"]]))
"""


def widest_path() -> str:
    flags = open("/proc/cpuinfo").read().split()
    if all(f in flags for f in ("avx512f", "avx512bw", "avx512vl", "avx2", "fma", "f16c")):
        return "avx512"
    return "avx2" if all(f in flags for f in ("avx2", "fma", "f16c")) else "baseline"


@pytest.fixture(scope="module")
def by_path(tmp_path_factory):
    pytest.importorskip("aclnn._C", reason="the op_docs package is not built (make build)")
    out = {}
    # A core the machine's environment forces on OpenBLAS (some machines set OPENBLAS_CORETYPE, this
    # session's Haswell) wins over the path's, as it should: the paths are compared without it.
    env = subprocess_env()
    env.pop("OPENBLAS_CORETYPE", None)
    for path in PATHS + ("auto",):
        file = tmp_path_factory.mktemp(path) / "results.npz"
        proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(file)], env={**env, "ACLNN_SIM_ISA": path},
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        kernel_path, engine_paths = json.loads(proc.stdout.strip().splitlines()[-1])
        out[path] = (kernel_path, dict(np.load(file)), engine_paths)
    return out


def taken(path: str) -> str:
    """The path a run that asked for `path` takes: a path the CPU lacks falls back to the widest it
    has, never to an illegal instruction."""
    widest = widest_path()
    return path if PATHS.index(path) <= PATHS.index(widest) else widest


def test_each_path_asked_for_is_the_one_every_kernel_takes(by_path):
    for path in PATHS:
        assert by_path[path][0] == taken(path)
    assert by_path["auto"][0] == widest_path()


def built_with_onednn() -> bool:
    """Whether the simulator links oneDNN (CMake found it in the venv): its name among libopapi's
    needed libraries."""
    import aclnn

    return b"libdnnl.so" in (Path(aclnn.__file__).parent / "_sim" / "libopapi.so").read_bytes()


def matmul_route(path: str, dtype: str) -> str:
    """The route of the matmul family's 16-bit products on a path: oneDNN where the path has the
    CPU's instructions for the dtype (AVX512-BF16, AVX512-FP16: the AVX-512 path's extensions), else
    OpenBLAS."""
    flag = {"bfloat16": "avx512_bf16", "float16": "avx512_fp16"}[dtype]
    native = taken(path) == "avx512" and flag in open("/proc/cpuinfo").read().split()
    return "onednn" if native and built_with_onednn() else "openblas"


@pytest.mark.parametrize("path", PATHS)
def test_each_engine_reports_the_path_its_kernels_ran_on(by_path, path):
    # The families with code per path and the elementwise engine run the path asked for.
    expected = {"softmax": taken(path), "reduce": taken(path), "grid_sample": taken(path), "elementwise": taken(path),
                "norm": taken(path), "resample": taken(path)}
    engines = dict(by_path[path][2])
    # The matmul family's 16-bit products report their route, oneDNN's with the kernel it chose,
    # OpenBLAS's with its core.
    for dtype in ("bfloat16", "float16"):
        route = engines.pop(f"matmul.{dtype}")
        assert route.split(":")[0] == matmul_route(path, dtype)
        if route.startswith("openblas:"):
            assert route == engines["blas"]
    assert engines.pop("blas").startswith("openblas:")
    assert engines == expected


# OpenBLAS's core on the paths below AVX-512; on that path (and auto) the library's own choice.
OPENBLAS_CORES = {"avx2": "Haswell", "baseline": "Katmai"}  # Prescott's kernels, by OpenBLAS's name for them


@pytest.mark.parametrize("path", PATHS)
def test_the_path_chooses_openblas_kernels(by_path, path):
    core = by_path[path][2]["blas"].removeprefix("openblas:")
    assert core == OPENBLAS_CORES.get(taken(path), by_path["auto"][2]["blas"].removeprefix("openblas:"))


def test_float32_products_are_accurate_on_each_core(by_path):
    namespace = {"np": np}
    exec(_MATMUL_INPUT, namespace)
    mm_a, mm_b = namespace["mm_a"].astype(np.float64), namespace["mm_b"].astype(np.float64)
    exact, bound = mm_a @ mm_b, (np.abs(mm_a) @ np.abs(mm_b)) * 300 * 2.0 ** -24
    reference = by_path["baseline"][1]["mm_exact_float32"]
    for path in PATHS + ("auto",):
        got = by_path[path][1]["mm_float32"].astype(np.float64)
        assert np.all(np.abs(got - exact) <= bound), (path, float(np.max(np.abs(got - exact) - bound)))
        assert reference.tobytes() == by_path[path][1]["mm_exact_float32"].tobytes(), path


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16_bit_products_are_accurate_on_each_route(by_path, path, dtype):
    # The device accumulates in float and rounds once: within half an ulp of the result's dtype
    # and float32's error over the sum's terms of the exact product, on oneDNN's route and on OpenBLAS's.
    import ml_dtypes

    dt = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16}[dtype]
    ulp = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11}[dtype]
    results = by_path[path][1]
    namespace = {"np": np}
    exec(_MATMUL_INPUT, namespace)
    mm_a, mm_b, bias, bmm_a, bmm_b = (namespace[name].astype(dt).astype(np.float64)
                                      for name in ("mm_a", "mm_b", "mm_bias", "bmm_a", "bmm_b"))
    cases = {"mm": (mm_a @ mm_b, np.abs(mm_a) @ np.abs(mm_b)),
             "mm_bt": (mm_a @ mm_b, np.abs(mm_a) @ np.abs(mm_b)),
             "addmm": (0.5 * bias + 1.5 * (mm_a @ mm_b), 0.5 * np.abs(bias) + 1.5 * (np.abs(mm_a) @ np.abs(mm_b))),
             "bmm": (bmm_a @ bmm_b, np.abs(bmm_a) @ np.abs(bmm_b))}
    for name, (exact, magnitude) in cases.items():
        got = results[f"{name}_{dtype}"].astype(np.float64)
        bound = np.abs(exact) * ulp + magnitude * 300 * 2.0 ** -24
        assert np.all(np.abs(got - exact) <= bound), (name, float(np.max(np.abs(got - exact) - bound)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_exact_16_bit_products_agree_bit_for_bit_across_routes(by_path, dtype):
    # Small integers: every partial sum is exact in float, so each route rounds the same value once.
    reference = by_path["baseline"][1][f"mm_exact_{dtype}"]
    for path in PATHS[1:] + ("auto",):
        np.testing.assert_array_equal(by_path[path][1][f"mm_exact_{dtype}"], reference)


def bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> BFLOAT16 bits as aclnn_bindgen::FloatToBFloat16: round to nearest even, a NaN
    quieted with its sign and payload."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(values), (bits >> 16) | 0x40, rounded).astype(np.uint16)


@pytest.mark.parametrize("path", PATHS)
def test_bfloat16_products_round_to_nearest_even_on_each_path(by_path, path):
    import ml_dtypes

    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
    expected = np.stack([bfloat16_bits(every * np.float32(factor)) for factor in BFLOAT16_FACTORS])
    np.testing.assert_array_equal(by_path[path][1]["mul_every_bfloat16"], expected)


@pytest.mark.parametrize("path", PATHS)
def test_float32_to_bfloat16_rounds_to_nearest_even_on_each_path(by_path, path):
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    values = np.concatenate([high, high | 0x8000, high | 0x7fff, high | 0x8001]).view(np.float32)
    np.testing.assert_array_equal(by_path[path][1]["to_bfloat16"], bfloat16_bits(values))


@pytest.mark.parametrize("path", PATHS)
def test_rows_summed_side_by_side_sum_as_a_lone_row_does(by_path, path):
    np.testing.assert_array_equal(by_path[path][1]["row_sums"], by_path[path][1]["one_row_sums"])


@pytest.mark.parametrize("path", PATHS)
def test_a_norm_written_over_its_input_equals_one_written_elsewhere(by_path, path):
    np.testing.assert_array_equal(by_path[path][1]["norm_in_place"], by_path[path][1]["norm_elsewhere"])


@pytest.mark.parametrize("name", ["amax", "mul_bfloat16", "every_half", "to_half", "row_sums", "grid_sample",
                                  "grid_sample_backward", "upsample_flat", "upsample_axes", "upsample_bicubic",
                                  "upsample_backward", "upsample_halfway_flat", "upsample_halfway_axes",
                                  "upsample_mixed_bilinear", "upsample_mixed_trilinear", "upsample_mixed_linear",
                                  "upsample_mixed_bicubic", "upsample_mixed_backward_bilinear",
                                  "upsample_mixed_backward_trilinear", "upsample_mixed_backward_linear",
                                  "upsample_mixed_backward_aligned", "upsample_mixed_backward_down",
                                  "upsample_mixed_backward_nearest", "upsample_backward_nonfinite",
                                  "upsample_mixed_backward_bicubic", "upsample_bicubic_backward_nonfinite",
                                  "upsample_aa_bicubic", "upsample_aa_backward"])
def test_exact_operations_agree_bit_for_bit_across_paths(by_path, name):
    reference = by_path["baseline"][1][name]
    for path in PATHS[1:]:
        assert reference.tobytes() == by_path[path][1][name].tobytes(), path


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", ["upsample_halfway_flat", "upsample_halfway_axes"])
def test_a_fused_multiply_add_rounds_once_on_each_path(by_path, path, name):
    # The exact sum 0.75 + 2^-24 - 2^-80, correctly rounded (see _SCRIPT), as aten's FMA builds give.
    assert by_path[path][1][name] == np.float32(0.75 + 2.0 ** -24)


@pytest.mark.parametrize("name", ["softmax_rows", "log_softmax_rows", "softmax_columns", "log_softmax_columns", "sum",
                                  "exp"])
def test_sums_agree_within_their_tolerance_across_paths(by_path, name):
    reference = by_path["baseline"][1][name]
    # log_softmax is x - (max + log(sum)): a last-bit difference of that shift (about 80 here) is
    # an absolute one of its float32 ulp.
    atol = 2e-5 if name.startswith("log_") else 1e-6
    for path in PATHS[1:]:
        np.testing.assert_allclose(by_path[path][1][name], reference, rtol=2e-5, atol=atol, equal_nan=True,
                                   err_msg=path)


def test_softmax_rows_are_accurate_on_each_path(by_path):
    # The paths have different exponentials (libmvec's expf on the baseline path, a Cephes
    # polynomial on the others): each against softmax in float64, not only against the others.
    namespace: dict = {"np": np}
    exec(_ROWS, namespace)
    rows = 8  # the three with NaN and infinities, five plain ones (a float64 softmax costs ~0.1 s a row)
    x = namespace["x"][:rows].astype(np.float64)
    with np.errstate(invalid="ignore"):
        shifted = x - x.max(axis=1, keepdims=True)
        total = np.exp(shifted).sum(axis=1, keepdims=True)
        expected = {"softmax_rows": np.exp(shifted) / total, "log_softmax_rows": shifted - np.log(total)}
    for path in PATHS:
        for name, reference in expected.items():
            atol = 2e-5 if name.startswith("log_") else 1e-7
            np.testing.assert_allclose(by_path[path][1][name][:rows], reference, rtol=1e-5, atol=atol, equal_nan=True,
                                       err_msg=f"{name} on the {path} path")


def test_float16_softmax_agrees_to_its_last_bit_across_paths(by_path):
    # Computed in float on every path: the sums' order shows at most in the float16 result's last bit.
    reference = by_path["baseline"][1]["softmax_float16"].astype(np.int32)
    for path in PATHS[1:]:
        assert np.abs(by_path[path][1]["softmax_float16"].astype(np.int32) - reference).max() <= 1, path


def test_float16_conversions_are_ieee_on_every_path(by_path):
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    widened = by_path["baseline"][1]["every_half"].view(np.float32)
    assert np.array_equal(widened, halves.astype(np.float32), equal_nan=True)
    assert np.array_equal(np.isnan(widened), np.isnan(halves))
    finite = halves[~np.isnan(halves)].astype(np.float32)
    with np.errstate(over="ignore"):
        rounded = np.concatenate([finite, np.nextafter(finite, np.float32(np.inf)), finite * np.float32(1 + 2 ** -11)])
        assert by_path["baseline"][1]["to_half"].tobytes() == rounded.astype(np.float16).tobytes()
    nan_halves = by_path["baseline"][1]["nan_to_half"]
    assert np.array_equal(nan_halves & 0x7fff, np.full(nan_halves.shape, 0x7e00, np.uint16))
    assert np.array_equal(nan_halves >> 15, np.array([0, 1] * 9, np.uint16))


def activations_in_float64(dtype: type) -> dict[str, np.ndarray]:
    """Each activation of the script on its input in `dtype`, computed from its formula in float64
    (PyTorch's forms: gelu's tanh approximation for aclnnGelu, its erf form for aclnnGeluV2 with
    approximate 0)."""
    import math

    namespace: dict = {"np": np}
    exec(_ACTIVATION_INPUT, namespace)
    x = namespace["act"].astype(dtype).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        softplus = np.where(x > 20, x, np.log1p(np.exp(x)))
        return {
            "act_exp": np.exp(x), "silu": x / (1 + np.exp(-x)), "sigmoid": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x),
            "gelu_tanh": 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))),
            "gelu_erf": 0.5 * x * (1 + np.array([math.erf(v) for v in x / math.sqrt(2)])),
            "softplus": softplus, "mish": x * np.tanh(softplus),
        }


@pytest.mark.parametrize("path", PATHS)
def test_transcendental_activations_are_accurate_on_each_path(by_path, path):
    # Against the float64 value rounded to the result's dtype (exp(89) overflows float32): a few
    # ulp in float32 (libmvec's routines are within 4), an ulp in float16 (the float32 result
    # rounded once); 1e-6 where the formula itself cancels in float32, which float16 computes in
    # too (gelu's 1 + tanh near -1).
    results = by_path[path][1]
    for dtype, suffix, rtol, atol in ((np.float32, "", 3e-6, 1e-6), (np.float16, "_float16", 1e-3, 1e-6)):
        for name, reference in activations_in_float64(dtype).items():
            with np.errstate(over="ignore"):
                np.testing.assert_allclose(results[name + suffix], reference.astype(dtype), rtol=rtol, atol=atol,
                                           equal_nan=True, err_msg=f"{name}{suffix} on the {path} path")


_CORE_SCRIPT = """
import ctypes, json
import numpy as np
import aclnn
aclnn.mm(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32), 0)
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
left = libc.getenv(b"OPENBLAS_CORETYPE")
print(json.dumps([aclnn.sim_stats()["engine_paths"]["blas"], left and left.decode()]))
"""


@pytest.mark.parametrize("own", [None, "Nehalem"])
def test_openblas_core_is_set_for_the_load_alone_and_a_users_own_wins(own):
    # The simulator sets OPENBLAS_CORETYPE while OpenBLAS loads and puts the environment back as it
    # was (a subprocess's NumPy is not capped); one the user set is OpenBLAS's documented switch
    # and is left to decide.
    pytest.importorskip("aclnn._C", reason="the op_docs package is not built (make build)")
    if taken("avx2") != "avx2":
        pytest.skip("this CPU has no AVX2 path")
    env = subprocess_env(ACLNN_SIM_ISA="avx2")
    env.pop("OPENBLAS_CORETYPE", None)
    if own:
        env["OPENBLAS_CORETYPE"] = own
    proc = subprocess.run([sys.executable, "-c", _CORE_SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    route, left = json.loads(proc.stdout.strip().splitlines()[-1])
    assert route == f"openblas:{own or 'Haswell'}"
    assert left == own


_NO_BLAS_SCRIPT = """
import json
import os
import numpy as np
import aclnn
ones = np.ones((8, 8), np.float32)
calls = [lambda: aclnn.mm(ones, ones, 0), lambda: aclnn.mm(ones, ones, 0), lambda: aclnn.add(ones, ones, 1)]
answers = []
for call in calls:
    try:
        answers.append(["returned", call().tolist()])
    except aclnn.AclnnRuntimeError as error:
        answers.append(["raised", str(error)])
print(json.dumps(answers))
"""


def test_a_simulator_whose_openblas_cannot_open_refuses_every_launch_naming_it(tmp_path):
    # A file by OpenBLAS's name that is no library, first on the loader's path: dlopen fails as it
    # would where the wheel is missing or broken. Every launch (the simulator opens OpenBLAS before
    # the first, whether or not it multiplies) answers ACLNN_ERR_RUNTIME_ERROR naming the library,
    # the second as the first: no crash, no value.
    pytest.importorskip("aclnn._C", reason="the op_docs package is not built (make build)")
    (tmp_path / "libscipy_openblas.so").write_text("not a library\n")
    env = subprocess_env()
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("LD_LIBRARY_PATH")]))
    proc = subprocess.run([sys.executable, "-c", _NO_BLAS_SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    answers = json.loads(proc.stdout.strip().splitlines()[-1])
    for (kind, message), api in zip(answers, ("aclnnMm", "aclnnMm", "aclnnAdd")):
        assert kind == "raised", f"{api} returned {message} without OpenBLAS"
        assert "ACLNN_ERR_RUNTIME_ERROR" in message and f"{api}: the simulator cannot open OpenBLAS" in message
        assert str(tmp_path / "libscipy_openblas.so") in message


# Products large enough to be split over the pool (opapi/blas.cpp: 2^21 multiply-adds and more), by
# C's rows and by its columns, operands stored transposed, C added to (addmm's beta), tails that
# are no multiple of a piece's 32; and stride-1 convolutions whose shifted products run in chunks
# of the padded rows, a 3d one with padding rows between its depths.
_SPLIT_INPUT = """
split_rng = np.random.default_rng(17)
def split_uniform(*shape):
    return split_rng.uniform(-1, 1, shape).astype(np.float32)
rows_a, rows_b = split_uniform(300, 517), split_uniform(517, 200)
cols_a, cols_bt = split_uniform(40, 700), split_uniform(1100, 700)
split_bias = split_uniform(200)
conv2d_x, conv2d_w = split_uniform(2, 8, 40, 43), split_uniform(6, 8, 3, 3)
conv3d_x, conv3d_w = split_uniform(1, 4, 5, 20, 20), split_uniform(3, 4, 3, 3, 3)
"""

_SPLIT_SCRIPT = """
import sys
import numpy as np
import aclnn
""" + _SPLIT_INPUT + """
def products():
    return {
        "rows": aclnn.mm(rows_a, rows_b, 0),
        "rows_at": aclnn.mm(np.ascontiguousarray(rows_a.T).T, rows_b, 0),
        "cols_bt": aclnn.mm(cols_a, cols_bt.T, 0),
        "addmm": aclnn.addmm(split_bias, rows_a, rows_b, 0.5, 1.5, 0),
        "conv2d": aclnn.convolution(conv2d_x, conv2d_w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, 0),
        "conv3d": aclnn.convolution(conv3d_x, conv3d_w, None, [1, 1, 1], [1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1, 0),
    }
first, again = products(), products()
np.savez(sys.argv[1], **first, **{"again_" + name: value for name, value in again.items()})
"""


def _conv_reference(x, w):
    """A stride-1 convolution padded by 1 on every side, in float64: the value and its bound's |x| |w|."""
    spatial = x.ndim - 2
    padded = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(1, 1)] * spatial)
    windows = np.lib.stride_tricks.sliding_window_view(padded, w.shape[2:], axis=tuple(range(2, x.ndim)))
    letters = "defgh"[:spatial]
    spec = f"nc{letters}{letters.upper()},oc{letters.upper()}->no{letters}"
    return np.einsum(spec, windows, w.astype(np.float64)), np.einsum(spec, np.abs(windows), np.abs(w.astype(np.float64)))


@pytest.mark.parametrize("path", PATHS)
def test_products_split_over_the_pool_are_accurate_and_repeatable(tmp_path, path):
    pytest.importorskip("aclnn._C", reason="the op_docs package is not built (make build)")
    file = tmp_path / "split.npz"
    proc = subprocess.run([sys.executable, "-c", _SPLIT_SCRIPT, str(file)],
                          env=subprocess_env(ACLNN_SIM_ISA=path, ACLNN_SIM_THREADS="2"), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = dict(np.load(file))
    namespace = {"np": np}
    exec(_SPLIT_INPUT, namespace)
    f64 = {name: value.astype(np.float64) for name, value in namespace.items() if isinstance(value, np.ndarray)}
    product = (f64["rows_a"] @ f64["rows_b"], np.abs(f64["rows_a"]) @ np.abs(f64["rows_b"]), 517)
    cases = {
        "rows": product, "rows_at": product,
        "cols_bt": (f64["cols_a"] @ f64["cols_bt"].T, np.abs(f64["cols_a"]) @ np.abs(f64["cols_bt"].T), 700),
        "addmm": (0.5 * f64["split_bias"] + 1.5 * product[0], 0.5 * np.abs(f64["split_bias"]) + 1.5 * product[1], 518),
        "conv2d": (*_conv_reference(namespace["conv2d_x"], namespace["conv2d_w"]), 8 * 9),
        "conv3d": (*_conv_reference(namespace["conv3d_x"], namespace["conv3d_w"]), 4 * 27),
    }
    for name, (exact, magnitude, terms) in cases.items():
        assert got[name].shape == exact.shape, name
        error = np.abs(got[name].astype(np.float64) - exact)
        assert np.all(error <= magnitude * terms * 2.0 ** -24), (name, float(np.max(error - magnitude * terms * 2.0 ** -24)))
        assert got[name].tobytes() == got["again_" + name].tobytes(), f"{name} differs from one call to the next"
