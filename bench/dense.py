"""The simulator's matmul, convolution, softmax and normalisation families against PyTorch CPU
(issues 12 and 23): matmul in GFLOP/s (2·M·N·K per product) at 1024³ float32 (and bfloat16, float16), a
ResNet-50 3x3 convolution layer (N=1, 64 -> 64 channels, 56x56, padding 1, float32) and its input's
and weight's gradients in GFLOP/s (2·C_out·C_in·9·56·56 each), softmax, log_softmax
and rms_norm with a weight over 16M float32 elements ([4096, 4096]) in GB/s counted as bytes
read + written (input and output, each n elements), sums along the last and along the first
dimension of the same in GB/s read, a group norm with SiLU (aclnnGroupNormSilu over [2, 320, 64, 64],
32 groups) in GB/s read + written, a max pool with indices (a ResNet stem's: [32, 64, 112, 112]
float32, kernel 3, stride 2, padding 1) in GB/s read + written (input, output and int64 indices),
a cross entropy over [4096, 32000] logits (GB/s read), a bilinear upsample x2 of [8, 64, 56, 56]
float32 and its input's gradient, the bicubic upsample's input gradient, and a sort of 1M float32
with int64 indices (GB/s read + written).

Both sides run in this process on the same data, interleaved; the simulator through the bindings
on device-resident tensors with out=, PyTorch into an out= tensor where the op has one. The
simulator's pool uses ACLNN_SIM_THREADS threads (default: the hardware's), its BLAS products
(OpenBLAS, one thread a piece) split over them, PyTorch torch.get_num_threads(). OMP_WAIT_POLICY=PASSIVE as in bench.kernels.

    python -m bench.dense [--size 1024] [--elements 16M] [--conv 56] [--pool 32,64,112,112]
                          [--upsample 8,64,56,56] [--sort 1M] [--group-norm 2,320,64,64] [--rounds R]
                          [--lines conv2d,sort]
"""

from __future__ import annotations

import argparse
import os
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.common import Summary, emit_result, interleaved, log, ratio, to_the_end  # noqa: E402
from bench.kernels import as_torch, size_of, void  # noqa: E402


def measure(name: str, dtype: str, work: float, unit: str, call_sim, run_torch, rounds: int, check) -> dict:
    """Checks once that both sides agree, then times them interleaved; `work` is the FLOPs or
    bytes of one call, reported per second in `unit`. The simulator's call is timed to the end of
    its kernel (device-resident calls are queued on the stream: aclnn.synchronize waits)."""
    run_sim = to_the_end(call_sim)
    run_sim()
    run_torch()
    check()
    times = interleaved({"sim": lambda: void(run_sim), "torch": lambda: void(run_torch)}, rounds)
    row: dict[str, Any] = {
        "op": name, "dtype": dtype, "unit": unit,
        "seconds": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
        "rate": {k: Summary.of([work / t / 1e9 for t in v], unit).to_json() for k, v in times.items()},
        # Paired per round: torch's time over the simulator's (> 1: the simulator is faster).
        "sim_speed_vs_torch": ratio(times["torch"], times["sim"]).to_json(),
    }
    log(f"dense: {name} {dtype}: sim {row['rate']['sim']['median']:.2f} {unit}, "
        f"torch {row['rate']['torch']['median']:.2f} {unit}, ratio {row['sim_speed_vs_torch']['median']:.2f}")
    return row


VOCAB = 32000
# The lines, as --lines names them (each row's op name up to its shape).
LINES = ("mm", "conv2d", "conv2d_backward_input", "conv2d_backward_weight", "softmax", "log_softmax", "rms_norm",
         "reduce_sum", "group_norm_silu", "max_pool2d", "cross_entropy", "upsample_bilinear2d",
         "upsample_bilinear2d_backward", "upsample_bicubic2d_backward", "sort")


def cross_entropy(rng: np.random.Generator, count: int, rounds: int) -> dict:
    """F.cross_entropy over [count // 4096, 32000] logits ([4096, 32000] at 16M elements: a
    language model's batch of tokens over its vocabulary) with mean reduction, against the path
    torch_npu takes for it: aclnnLogSoftmax, then aclnnNLLLoss with op-plugin's weight of ones.
    GB/s: the logits read."""
    import aclnn

    rows = max(2, count // 4096)
    x = rng.uniform(-4, 4, (rows, VOCAB)).astype(np.float32)
    target = rng.integers(0, VOCAB, rows).astype(np.int64)
    d_x, d_target = aclnn.to_device(x), aclnn.to_device(target)
    d_weight = aclnn.to_device(np.ones(VOCAB, np.float32))
    d_log_prob = aclnn.to_device(np.zeros_like(x))
    d_loss, d_total = aclnn.to_device(np.zeros((), np.float32)), aclnn.to_device(np.zeros((), np.float32))
    t_x, t_target = torch.from_numpy(x), torch.from_numpy(target)
    t_loss = torch.empty(())

    def sim() -> None:
        aclnn.log_softmax(d_x, -1, out=d_log_prob)
        aclnn.nll_loss(d_log_prob, d_target, d_weight, 1, -100, out=(d_loss, d_total))

    def run_torch() -> None:
        t_loss.copy_(torch.nn.functional.cross_entropy(t_x, t_target))

    def check() -> None:
        np.testing.assert_allclose(d_loss.numpy(), t_loss.numpy(), rtol=1e-5)

    return measure(f"cross_entropy [{rows}, {VOCAB}] mean", "float32", float(x.nbytes), "GB/s", sim, run_torch,
                   rounds, check)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1024, help="M = N = K of the matmul")
    parser.add_argument("--elements", default="16M", help="elements of the softmax and rms_norm input")
    parser.add_argument("--conv", type=int, default=56, help="the convolution's input height and width")
    parser.add_argument("--pool", default="32,64,112,112", help="N,C,H,W of the max pool's input")
    parser.add_argument("--upsample", default="8,64,56,56", help="N,C,H,W of the upsamples' input (x2)")
    parser.add_argument("--sort", default="1M", help="elements of the sorted vector")
    parser.add_argument("--group-norm", default="2,320,64,64", help="N,C,H,W of the group norm + SiLU's input")
    parser.add_argument("--rounds", type=int, default=5)
    # Some lines alone, for a before/after of the one being worked on: the others are not run.
    parser.add_argument("--lines", default="", help="comma-separated lines to run, of " + ", ".join(LINES)
                        + " (default: all)")
    args = parser.parse_args()
    chosen = set(filter(None, args.lines.split(",")))
    if chosen - set(LINES):
        parser.error(f"--lines: no line {sorted(chosen - set(LINES))}")

    def wanted(line: str) -> bool:
        return not chosen or line in chosen

    import aclnn
    import ml_dtypes

    rng = np.random.default_rng(0)
    rows = []
    n = args.size
    flops = 2.0 * n * n * n
    for dtype, np_dtype, torch_dtype, tol in (("float32", np.float32, torch.float32, 1e-4),
                                              ("bfloat16", ml_dtypes.bfloat16, torch.bfloat16, 2e-2),
                                              ("float16", np.float16, torch.float16, 2e-3)) if wanted("mm") else ():
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32).astype(np_dtype)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32).astype(np_dtype)
        d_a, d_b = aclnn.to_device(a), aclnn.to_device(b)
        d_out = aclnn.to_device(np.zeros((n, n), np_dtype))
        t_a, t_b = as_torch(a, torch_dtype), as_torch(b, torch_dtype)
        t_out = torch.empty((n, n), dtype=torch_dtype)

        def check(d_out=d_out, t_out=t_out, tol=tol) -> None:
            np.testing.assert_allclose(d_out.numpy().astype(np.float32), t_out.float().numpy(), rtol=tol,
                                       atol=tol * np.sqrt(n))

        rows.append(measure(f"mm {n}x{n}x{n}", dtype, flops, "GFLOP/s",
                            lambda: aclnn.mm(d_a, d_b, 0, out=d_out),
                            lambda: torch.mm(t_a, t_b, out=t_out), args.rounds, check))
        del d_a, d_b, d_out

    # ResNet-50's conv2_x 3x3 layer: aclnnConvolution (im2col + sgemm) against torch's conv2d.
    side, channels = args.conv, 64
    image = rng.uniform(-1, 1, (1, channels, side, side)).astype(np.float32)
    kernel = rng.uniform(-0.1, 0.1, (channels, channels, 3, 3)).astype(np.float32)
    d_image, d_kernel = aclnn.to_device(image), aclnn.to_device(kernel)
    d_conv = aclnn.to_device(np.zeros_like(image))
    t_image, t_kernel = torch.from_numpy(image), torch.from_numpy(kernel)
    t_conv = torch.empty_like(t_image)

    def torch_conv() -> None:
        t_conv.copy_(torch.nn.functional.conv2d(t_image, t_kernel, None, 1, 1))

    def check_conv() -> None:
        np.testing.assert_allclose(d_conv.numpy(), t_conv.numpy(), rtol=1e-4, atol=1e-4)

    layer = f"[1, {channels}, {side}, {side}] 3x3 -> {channels}"
    flops = 2.0 * channels * channels * 9 * side * side  # each of the forward and the two gradients
    if wanted("conv2d"):
        rows.append(measure(f"conv2d {layer}", "float32", flops, "GFLOP/s",
                            lambda: aclnn.convolution(d_image, d_kernel, None, [1, 1], [1, 1], [1, 1], False, [0, 0],
                                                      1, 0, out=d_conv),
                            torch_conv, args.rounds, check_conv))
    # Its two gradients, each alone (the output mask asks for one): aclnnConvolutionBackward against
    # aten's convolution_backward, which PyTorch's autograd calls for conv2d.
    grad = rng.uniform(-1, 1, image.shape).astype(np.float32)
    d_grad, t_grad = aclnn.to_device(grad), torch.from_numpy(grad)
    d_grads = (aclnn.to_device(np.zeros_like(image)), aclnn.to_device(np.zeros_like(kernel)),
               aclnn.to_device(np.zeros(channels, np.float32)))
    for which, mask in (("input", [True, False, False]), ("weight", [False, True, False])):
        if not wanted(f"conv2d_backward_{which}"):
            continue
        t_grads: list = []

        def torch_grad(mask=mask, t_grads=t_grads) -> None:
            t_grads[:] = torch.ops.aten.convolution_backward(t_grad, t_image, t_kernel, None, [1, 1], [1, 1], [1, 1],
                                                             False, [0, 0], 1, mask)

        def check_grad(index=mask.index(True), t_grads=t_grads) -> None:
            np.testing.assert_allclose(d_grads[index].numpy(), t_grads[index].numpy(), rtol=1e-4, atol=1e-3)

        rows.append(measure(f"conv2d_backward_{which} {layer}", "float32", flops, "GFLOP/s",
                            lambda mask=mask: aclnn.convolution_backward(
                                d_grad, d_image, d_kernel, [channels], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask,
                                0, out=d_grads),
                            torch_grad, args.rounds, check_grad))
    del d_image, d_kernel, d_conv, d_grad, d_grads

    count = size_of(args.elements)
    side = int(round(count ** 0.5))
    x = rng.uniform(-4, 4, (count // side, side)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, side).astype(np.float32)
    d_x, d_y = aclnn.to_device(x), aclnn.to_device(np.zeros_like(x))
    d_gamma = aclnn.to_device(gamma)
    d_rstd = aclnn.to_device(np.zeros((x.shape[0], 1), np.float32))
    t_x, t_y, t_gamma = torch.from_numpy(x), torch.empty_like(torch.from_numpy(x)), torch.from_numpy(gamma)
    moved = 2.0 * x.nbytes

    def check_y() -> None:
        np.testing.assert_allclose(d_y.numpy(), t_y.numpy(), rtol=1e-4, atol=1e-5)

    if wanted("softmax"):
        rows.append(measure(f"softmax [{x.shape[0]}, {side}] dim -1", "float32", moved, "GB/s",
                            lambda: aclnn.softmax(d_x, -1, out=d_y),
                            lambda: torch.softmax(t_x, -1, out=t_y), args.rounds, check_y))
    if wanted("log_softmax"):
        rows.append(measure(f"log_softmax [{x.shape[0]}, {side}] dim -1", "float32", moved, "GB/s",
                            lambda: aclnn.log_softmax(d_x, -1, out=d_y),
                            lambda: torch.log_softmax(t_x, -1, out=t_y), args.rounds, check_y))

    def torch_rms() -> None:
        t_y.copy_(torch.nn.functional.rms_norm(t_x, (side,), t_gamma, eps=1e-6))

    if wanted("rms_norm"):
        rows.append(measure(f"rms_norm [{x.shape[0]}, {side}] weight [{side}]", "float32", moved, "GB/s",
                            lambda: aclnn.rms_norm(d_x, d_gamma, 1e-6, out=(d_y, d_rstd)),
                            torch_rms, args.rounds, check_y))
    # A reduction along the last dimension: reads 16M elements, writes one per row.
    d_sum, t_sum = aclnn.to_device(np.zeros(x.shape[0], np.float32)), torch.empty(x.shape[0])

    def check_sum() -> None:
        np.testing.assert_allclose(d_sum.numpy(), t_sum.numpy(), rtol=1e-4, atol=1e-3)

    if wanted("reduce_sum"):
        rows.append(measure(f"reduce_sum [{x.shape[0]}, {side}] dim -1", "float32", float(x.nbytes), "GB/s",
                            lambda: aclnn.reduce_sum(d_x, [-1], False, "FLOAT", out=d_sum),
                            lambda: torch.sum(t_x, -1, out=t_sum), args.rounds, check_sum))
    # Along the first dimension: the kept one is contiguous (column sums).
    d_col, t_col = aclnn.to_device(np.zeros(side, np.float32)), torch.empty(side)

    def check_col() -> None:
        np.testing.assert_allclose(d_col.numpy(), t_col.numpy(), rtol=1e-4, atol=1e-3)

    if wanted("reduce_sum"):
        rows.append(measure(f"reduce_sum [{x.shape[0]}, {side}] dim 0", "float32", float(x.nbytes), "GB/s",
                            lambda: aclnn.reduce_sum(d_x, [0], False, "FLOAT", out=d_col),
                            lambda: torch.sum(t_x, 0, out=t_col), args.rounds, check_col))
    if wanted("group_norm_silu"):
        rows.append(group_norm_silu_row(aclnn, rng, tuple(int(d) for d in args.group_norm.split(",")), args.rounds))
    if wanted("max_pool2d"):
        rows.append(max_pool_row(aclnn, rng, tuple(int(d) for d in args.pool.split(",")), args.rounds))
    del d_x, d_y, d_sum, d_col
    if wanted("cross_entropy"):
        rows.append(cross_entropy(rng, count, args.rounds))
    upsample_shape = tuple(int(d) for d in args.upsample.split(","))
    if wanted("upsample_bilinear2d"):
        rows.append(upsample_row(aclnn, rng, upsample_shape, args.rounds))
    for mode in ("bilinear", "bicubic"):
        if wanted(f"upsample_{mode}2d_backward"):
            rows.append(upsample_backward_row(aclnn, rng, upsample_shape, args.rounds, mode))
    if wanted("sort"):
        rows.append(sort_row(aclnn, rng, size_of(args.sort), args.rounds))
    stats = aclnn.sim_stats() or {}
    emit_result({"kernel_path": stats.get("kernel_path"), "engine_paths": stats.get("engine_paths"),
                 "torch_threads": torch.get_num_threads(), "torch_capability": torch.backends.cpu.get_cpu_capability(), "sim_threads": int(os.environ.get("ACLNN_SIM_THREADS", os.cpu_count() or 1)),
                 "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"), "rows": rows})


def group_norm_silu_row(aclnn, rng, shape: tuple[int, ...], rounds: int) -> dict:
    """A diffusion UNet's GroupNorm(32) followed by SiLU: aclnnGroupNormSilu (one fused op, its SiLU on
    the path's vector exp) against aten's group_norm then an in-place silu. GB/s: input and output."""
    x = rng.uniform(-4, 4, shape).astype(np.float32)
    n, c = shape[0], shape[1]
    groups = 32
    gamma, beta = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.uniform(-0.5, 0.5, c).astype(np.float32)
    d_x, d_gamma, d_beta = aclnn.to_device(x), aclnn.to_device(gamma), aclnn.to_device(beta)
    d_y = aclnn.to_device(np.zeros_like(x))
    d_mean, d_rstd = aclnn.to_device(np.zeros((n, groups), np.float32)), aclnn.to_device(np.zeros((n, groups), np.float32))
    t_x, t_gamma, t_beta = torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)
    result: dict[str, torch.Tensor] = {}

    def run_torch() -> None:
        result["y"] = torch.nn.functional.silu(torch.nn.functional.group_norm(t_x, groups, t_gamma, t_beta, 1e-5),
                                               inplace=True)

    def check() -> None:
        np.testing.assert_allclose(d_y.numpy(), result["y"].numpy(), rtol=1e-4, atol=1e-5)

    return measure(f"group_norm_silu {list(shape)} groups {groups}", "float32", 2.0 * x.nbytes, "GB/s",
                   lambda: aclnn.group_norm_silu(d_x, d_gamma, d_beta, groups, 1e-5, out=(d_y, d_mean, d_rstd)),
                   run_torch, rounds, check)


def max_pool_row(aclnn, rng, shape: tuple[int, ...], rounds: int) -> dict:
    """max_pool2d with indices, kernel 3, stride 2, padding 1: both sides write int64 indices."""
    x = rng.uniform(-4, 4, shape).astype(np.float32)
    n, c, h, w = shape
    pooled = (n, c, (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1)
    d_x = aclnn.to_device(x)
    d_out, d_idx = aclnn.to_device(np.zeros(pooled, np.float32)), aclnn.to_device(np.zeros(pooled, np.int64))
    t_x, t_out, t_idx = torch.from_numpy(x), torch.empty(pooled), torch.empty(pooled, dtype=torch.int64)
    window = ([3, 3], [2, 2], [1, 1], [1, 1], False)

    def check() -> None:
        np.testing.assert_array_equal(d_out.numpy(), t_out.numpy())
        np.testing.assert_array_equal(d_idx.numpy(), t_idx.numpy())

    moved = float(x.nbytes + t_out.numel() * (4 + 8))
    return measure(f"max_pool2d [{n}, {c}, {h}, {w}] k3 s2 p1", "float32", moved, "GB/s",
                   lambda: aclnn.max_pool2d_with_indices(d_x, *window, out=(d_out, d_idx)),
                   lambda: torch.ops.aten.max_pool2d_with_indices.out(t_x, *window, out=t_out, indices=t_idx),
                   rounds, check)


def upsample_row(aclnn, rng, shape: tuple[int, ...], rounds: int) -> dict:
    """F.interpolate(x, scale_factor=2, mode="bilinear"): aclnnUpsampleBilinear2d against aten's
    upsample_bilinear2d."""
    x = rng.uniform(-4, 4, shape).astype(np.float32)
    n, c, h, w = shape
    size = [2 * h, 2 * w]
    d_x, d_out = aclnn.to_device(x), aclnn.to_device(np.zeros((n, c, *size), np.float32))
    t_x, t_out = torch.from_numpy(x), torch.empty(n, c, *size)

    def check() -> None:
        np.testing.assert_allclose(d_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-5)

    moved = float(x.nbytes + t_out.numel() * 4)
    return measure(f"upsample_bilinear2d [{n}, {c}, {h}, {w}] x2", "float32", moved, "GB/s",
                   lambda: aclnn.upsample_bilinear2d(d_x, size, False, 2.0, 2.0, out=d_out),
                   lambda: torch.ops.aten.upsample_bilinear2d.out(t_x, size, False, 2.0, 2.0, out=t_out),
                   rounds, check)


def upsample_backward_row(aclnn, rng, shape: tuple[int, ...], rounds: int, mode: str) -> dict:
    """The upsample x2's input gradient (autograd's backward of F.interpolate), mode bilinear or
    bicubic: aclnnUpsampleBilinear2dBackward or aclnnUpsampleBicubic2dBackward against aten's
    upsample_bilinear2d_backward or upsample_bicubic2d_backward. GB/s: the output's gradient read
    and the input's written."""
    n, c, h, w = shape
    size = [2 * h, 2 * w]
    grad = rng.uniform(-4, 4, (n, c, *size)).astype(np.float32)
    d_grad, d_out = aclnn.to_device(grad), aclnn.to_device(np.zeros(shape, np.float32))
    t_grad, t_out = torch.from_numpy(grad), torch.empty(*shape)

    def check() -> None:
        np.testing.assert_allclose(d_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-4)

    moved = float(grad.nbytes + t_out.numel() * 4)
    op = f"upsample_{mode}2d_backward"
    return measure(f"{op} [{n}, {c}, {h}, {w}] x2", "float32", moved, "GB/s",
                   lambda: getattr(aclnn, op)(d_grad, size, list(shape), False, 2.0, 2.0, out=d_out),
                   lambda: getattr(torch.ops.aten, op).grad_input(t_grad, size, list(shape), False, 2.0, 2.0,
                                                                  grad_input=t_out),
                   rounds, check)


def sort_row(aclnn, rng, count: int, rounds: int) -> dict:
    """torch.sort of a float32 vector with its int64 indices: aclnnSort against aten's sort."""
    x = rng.standard_normal(count).astype(np.float32)
    d_x = aclnn.to_device(x)
    d_values, d_indices = aclnn.to_device(np.zeros(count, np.float32)), aclnn.to_device(np.zeros(count, np.int64))
    t_x, t_values, t_indices = torch.from_numpy(x), torch.empty(count), torch.empty(count, dtype=torch.int64)

    def check() -> None:
        np.testing.assert_array_equal(d_values.numpy(), t_values.numpy())
        np.testing.assert_array_equal(x[d_indices.numpy()], t_values.numpy())

    moved = float(x.nbytes + count * (4 + 8))
    return measure(f"sort [{count}]", "float32", moved, "GB/s",
                   lambda: aclnn.sort(d_x, False, -1, False, out=(d_values, d_indices)),
                   lambda: torch.sort(t_x, out=(t_values, t_indices)), rounds, check)


if __name__ == "__main__":
    main()
