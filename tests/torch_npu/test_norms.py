"""Normalisation layers through torch_npu on the simulator, forward and backward: LayerNorm,
BatchNorm (training, with its running statistics, and inference), GroupNorm and torch_npu's RMSNorm
reach aclnnLayerNorm/aclnnBatchNorm/aclnnGroupNorm/aclnnRmsNorm and their backward APIs
(aclnnLayerNormBackward, aclnnBatchNormBackward, aclnnGroupNormBackward, aclnnRmsNormGrad);
loss.backward() on npu gives the input's and the parameters' gradients CPU PyTorch gives. The sync
batch norm's pieces (torch.batch_norm_stats & co., CUDA-only in PyTorch) are compared with their
formulas."""

# Defines layer(): the module built twice with the same parameters, run forward and backward on CPU
# and on npu (in `dtype` there), every output, gradient and buffer compared.
COMPARE = """
def layer(name, make, shape, dtype=torch.float32, train=True, rtol=1e-4, atol=1e-5):
    cpu = make()
    npu = make().npu().to(dtype)
    npu.load_state_dict(cpu.state_dict())
    cpu.train(train)
    npu.train(train)
    x, g = torch.randn(*shape), torch.randn(*shape)
    xc = x.clone().requires_grad_()
    xn = x.to(dtype).npu().requires_grad_()
    yc, yn = cpu(xc), npu(xn)
    (yc * g).sum().backward()
    (yn * g.to(dtype).npu()).sum().backward()
    pairs = [("forward", yn, yc), ("input grad", xn.grad, xc.grad)]
    pairs += [("grad " + n, p.grad, q.grad) for (n, p), (_, q) in zip(npu.named_parameters(), cpu.named_parameters())]
    pairs += [("buffer " + n, p, q) for (n, p), (_, q) in zip(npu.named_buffers(), cpu.named_buffers())]
    for what, got, want in pairs:
        got = got.detach().cpu().float()
        assert torch.allclose(got, want.float(), rtol=rtol, atol=atol), (name, dtype, what, (got - want).abs().max())
"""


def test_layer_norm_forward_and_backward(run_npu):
    run_npu(COMPARE + """
layer("LayerNorm", lambda: torch.nn.LayerNorm(8), (4, 5, 8))
layer("LayerNorm 2-D shape", lambda: torch.nn.LayerNorm([5, 8]), (3, 5, 8))
layer("LayerNorm without affine", lambda: torch.nn.LayerNorm(8, elementwise_affine=False), (4, 8))
# The module in FLOAT16 and BFLOAT16: op-plugin allocates FLOAT statistics (meanOut, rstdOut) and
# FLOAT gradWeightOut/gradBiasOut where the pages tie them to the input's and the weight's dtype;
# the semantics files admit what the framework passes (client_dtypes).
layer("LayerNorm float16", lambda: torch.nn.LayerNorm(8), (4, 5, 8), dtype=torch.float16, rtol=2e-2, atol=2e-2)
layer("LayerNorm bfloat16", lambda: torch.nn.LayerNorm(8), (4, 5, 8), dtype=torch.bfloat16, rtol=1e-1, atol=1e-1)
# The backward in FLOAT16 and BFLOAT16 with FLOAT parameters (as under autocast).
x, dy, w, b = torch.randn(4, 5, 8), torch.randn(4, 5, 8), torch.randn(8), torch.randn(8)
_, mean, rstd = torch.native_layer_norm(x, [8], w, b, 1e-5)
want = torch.ops.aten.native_layer_norm_backward(dy, x, [8], mean, rstd, w, b, [True, True, True])
for dtype, tol in ((torch.float16, 1e-2), (torch.bfloat16, 5e-2)):
    got = torch.ops.aten.native_layer_norm_backward(dy.to(dtype).npu(), x.to(dtype).npu(), [8], mean.npu(), rstd.npu(),
                                                    w.npu(), b.npu(), [True, True, True])
    for g, r in zip(got, want):
        assert torch.allclose(g.cpu().float(), r, rtol=tol, atol=tol), (dtype, (g.cpu().float() - r).abs().max())
# The statistics op-plugin reads back: mean and rstd as [rows, 1] in float.
x = torch.randn(4, 6)
y, mean, rstd = torch.native_layer_norm(x.npu(), [6], None, None, 1e-5)
want = torch.native_layer_norm(x, [6], None, None, 1e-5)
for got, ref in zip((y, mean, rstd), want):
    assert got.shape == ref.shape and torch.allclose(got.cpu(), ref, rtol=1e-4, atol=1e-5)
# An empty input: op-plugin gives its statistics the shape [0], not [0, 1]; nothing to compute.
x = torch.randn(0, 6)
assert torch.nn.functional.layer_norm(x.npu(), [6]).shape == (0, 6)
""")


def test_batch_norm_training_and_inference(run_npu):
    run_npu(COMPARE + """
layer("BatchNorm1d", lambda: torch.nn.BatchNorm1d(6), (5, 6))
layer("BatchNorm1d NCL", lambda: torch.nn.BatchNorm1d(3), (4, 3, 7))
layer("BatchNorm2d", lambda: torch.nn.BatchNorm2d(3), (2, 3, 4, 5))
layer("BatchNorm2d inference", lambda: torch.nn.BatchNorm2d(3), (2, 3, 4, 5), train=False)
layer("BatchNorm3d", lambda: torch.nn.BatchNorm3d(2), (2, 2, 3, 3, 3))
layer("BatchNorm2d float16", lambda: torch.nn.BatchNorm2d(3), (2, 3, 4, 5), dtype=torch.float16, rtol=1e-2, atol=1e-2)
# A null weight and bias, and no running statistics: the page's error rows say which may be null (非空时).
layer("BatchNorm2d without affine", lambda: torch.nn.BatchNorm2d(3, affine=False), (2, 3, 4, 5))
layer("BatchNorm2d without running stats", lambda: torch.nn.BatchNorm2d(3, track_running_stats=False), (2, 3, 4, 5))
""")


def test_group_norm_forward_and_backward(run_npu):
    run_npu(COMPARE + """
layer("GroupNorm", lambda: torch.nn.GroupNorm(2, 4), (2, 4, 3, 3))
layer("GroupNorm one group", lambda: torch.nn.GroupNorm(1, 6), (3, 6, 5))
layer("GroupNorm per channel", lambda: torch.nn.GroupNorm(4, 4), (2, 4, 2, 2))
layer("GroupNorm float16", lambda: torch.nn.GroupNorm(2, 4), (2, 4, 3, 3), dtype=torch.float16, rtol=1e-2, atol=1e-2)
# Without affine parameters op-plugin passes NULL gamma and beta to aclnnGroupNorm.
layer("GroupNorm without affine", lambda: torch.nn.GroupNorm(2, 6, affine=False), (2, 6, 3))
""")


def test_npu_rms_norm_forward_and_backward(run_npu):
    run_npu("""
x, gamma, g = torch.randn(3, 4, 16), torch.randn(16), torch.randn(3, 4, 16)
xc, gc = x.clone().requires_grad_(), gamma.clone().requires_grad_()
want = xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + 1e-6) * gc
(want * g).sum().backward()
xn, gn = x.npu().requires_grad_(), gamma.npu().requires_grad_()
y, rstd = torch_npu.npu_rms_norm(xn, gn, 1e-6)
(y * g.npu()).sum().backward()
assert torch.allclose(y.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-5)
assert torch.allclose(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-5), (xn.grad.cpu() - xc.grad).abs().max()
assert torch.allclose(gn.grad.cpu(), gc.grad, rtol=1e-4, atol=1e-4), (gn.grad.cpu() - gc.grad).abs().max()
""")


def test_sync_batch_norm_pieces(run_npu):
    run_npu("""
x, dy = torch.randn(4, 3, 5), torch.randn(4, 3, 5)
xn, dyn = x.npu(), dy.npu()
rows = lambda t: t.transpose(0, 1).reshape(t.shape[1], -1)
close = lambda got, want: torch.allclose(got.cpu(), want, rtol=1e-4, atol=1e-5)
mean, invstd = torch.batch_norm_stats(xn, 1e-5)
assert close(mean, rows(x).mean(1)) and close(invstd, torch.rsqrt(rows(x).var(1, unbiased=False) + 1e-5))
w, b = torch.randn(3), torch.randn(3)
y = torch.batch_norm_elemt(xn, w.npu(), b.npu(), mean, invstd, 1e-5)
assert close(y, torch.nn.functional.batch_norm(x, None, None, w, b, True, 0.0, 1e-5))
# Two devices' statistics merged: the same as one device holding both halves.
halves = [torch.batch_norm_stats(h, 1e-5) for h in xn.split(2)]
running_mean, running_var = torch.zeros(3).npu(), torch.ones(3).npu()
counts = torch.tensor([10.0, 10.0]).npu()
mean_all, invstd_all = torch.batch_norm_gather_stats_with_counts(
    xn, torch.stack([h[0] for h in halves]), torch.stack([h[1] for h in halves]), running_mean, running_var,
    0.1, 1e-5, counts)
assert close(mean_all, rows(x).mean(1)) and close(invstd_all, torch.rsqrt(rows(x).var(1, unbiased=False) + 1e-5))
assert close(running_mean, 0.1 * rows(x).mean(1)) and close(running_var, 0.9 + 0.1 * rows(x).var(1))
sum_dy, sum_dy_xmu, grad_w, grad_b = torch.batch_norm_backward_reduce(dyn, xn, mean, invstd, w.npu(), True, True, True)
xmu = rows(x) - rows(x).mean(1, keepdim=True)
assert close(sum_dy, rows(dy).sum(1)) and close(sum_dy_xmu, (rows(dy) * xmu).sum(1))
assert close(grad_b, rows(dy).sum(1)) and close(grad_w, (rows(dy) * xmu).sum(1) * invstd.cpu())
dx = torch.batch_norm_backward_elemt(dyn, xn, mean, invstd, w.npu(), sum_dy, sum_dy_xmu,
                                     torch.tensor([20], dtype=torch.int32).npu())
xc = x.clone().requires_grad_()
torch.nn.functional.batch_norm(xc, None, None, w, b, True, 0.0, 1e-5).backward(dy)
assert close(dx, xc.grad), (dx.cpu() - xc.grad).abs().max()
""")


def test_fused_norms(run_npu):
    run_npu("""
x1, x2, gamma, beta = torch.randn(3, 4, 16), torch.randn(3, 4, 16), torch.randn(16), torch.randn(16)
# npu_add_layer_norm: y, mean, rstd of x1 + x2, and the sum.
y, mean, rstd, s = torch_npu.npu_add_layer_norm(x1.npu(), x2.npu(), gamma.npu(), beta.npu(), 1e-5, True)
want = torch.native_layer_norm(x1 + x2, [16], gamma, beta, 1e-5)
for got, ref in zip((y, mean, rstd, s), (*want, x1 + x2)):
    assert got.shape == ref.shape and torch.allclose(got.cpu(), ref, rtol=1e-4, atol=1e-5)
# npu_add_rms_norm_cast (FLOAT16 in): y in FLOAT and in FLOAT16, rstd, and the sum.
h1, h2, hg = x1.half(), x2.half(), gamma.half()
s = h1.float() + h2.float()
r = torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + 1e-6)
y1, y2, rstd, xs = torch_npu.npu_add_rms_norm_cast(h1.npu(), h2.npu(), hg.npu(), 1e-6)
for got, ref in zip((y1, y2, rstd, xs), (s * r * hg.float(), (s * r * hg.float()).half(), r, s.half())):
    assert got.dtype == ref.dtype and torch.allclose(got.cpu().float(), ref.float(), rtol=2e-3, atol=2e-3)
# npu_deep_norm: mean, rstd and y of x * alpha + gx.
mean, rstd, y = torch_npu.npu_deep_norm(x1.npu(), x2.npu(), beta.npu(), gamma.npu(), 0.3, 1e-5)
want = torch.native_layer_norm(x1 * 0.3 + x2, [16], gamma, beta, 1e-5)
for got, ref in zip((y, mean, rstd), want):
    assert got.shape == ref.shape and torch.allclose(got.cpu(), ref, rtol=1e-4, atol=1e-5)
# npu_group_norm_swish: group norm's y, mean and rstd ([N, groups]), y through x * sigmoid(scale * x).
x, g, b = torch.randn(2, 6, 3, 4), torch.randn(6), torch.randn(6)
y, mean, rstd = torch_npu.npu_group_norm_swish(x.npu(), 3, g.npu(), b.npu(), eps=1e-5, swish_scale=0.7)
n, m, r = torch.native_group_norm(x, g, b, 2, 6, 12, 3, 1e-5)
for got, ref in zip((y, mean, rstd), (n * torch.sigmoid(0.7 * n), m, r)):
    assert got.shape == ref.shape and torch.allclose(got.cpu(), ref, rtol=1e-4, atol=1e-5)
# npu_group_norm_swish_grad (aclnnGroupNormSwishGrad): the CPU autograd of that forward.
dy = torch.randn(2, 6, 3, 4)
xa, ga, ba = (t.clone().requires_grad_() for t in (x, g, b))
out = torch.nn.functional.group_norm(xa, 3, ga, ba, 1e-5)
(out * torch.sigmoid(0.7 * out)).backward(dy)
got = torch_npu.npu_group_norm_swish_grad(dy.npu(), x.npu(), 3, g.npu(), b.npu(), mean, rstd, [True, True, True], swish_scale=0.7)
for part, ref in zip(got, (xa.grad, ga.grad, ba.grad)):
    assert torch.allclose(part.cpu(), ref, rtol=1e-4, atol=1e-4), (part.cpu() - ref).abs().max()
""")


def test_fused_layer_norm_backwards(run_npu):
    run_npu("""
x1, x2, dy = (torch.randn(3, 4, 16) for _ in range(3))
gamma, beta = torch.randn(16), torch.randn(16)
# The autograd of x1 * alpha + x2 through LayerNorm on the CPU is what the fused backwards give.
def reference(alpha):
    a, b, g = x1.clone().requires_grad_(), x2.clone().requires_grad_(), gamma.clone().requires_grad_()
    y = torch.nn.functional.layer_norm(a * alpha + b, [16], g, beta, 1e-5)
    y.backward(dy)
    _, mean, rstd = torch.native_layer_norm(x1 * alpha + x2, [16], gamma, beta, 1e-5)
    return a.grad, b.grad, g.grad, dy.sum((0, 1)), mean, rstd
close = lambda got, want: torch.allclose(got.cpu(), want, rtol=1e-4, atol=1e-4)
dx, dgx, dgamma, dbeta, mean, rstd = reference(0.3)
got = torch_npu.npu_deep_norm_backward(dy.npu(), x1.npu(), x2.npu(), gamma.npu(), mean.npu(), rstd.npu(), 0.3)
for g, w in zip(got, (dx, dgx, dbeta, dgamma)):
    assert close(g, w), (g.cpu() - w).abs().max()
dx, _, dgamma, dbeta, mean, rstd = reference(1.0)
# op-plugin returns (dx1, dx2, dgamma, dbeta): the sum's gradient twice.
got = torch_npu.npu_add_layer_norm_backward(dy.npu(), x1.npu(), x2.npu(), rstd.npu(), mean.npu(), gamma.npu(), None)
for g, w in zip(got, (dx, dx, dgamma, dbeta)):
    assert close(g, w), (g.cpu() - w).abs().max()
""")
