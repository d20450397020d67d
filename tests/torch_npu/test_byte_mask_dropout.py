"""torch_npu's byte-mask dropouts through the aclop bridge on the simulator: op-plugin runs them by
type name on every chip. DropOutGenMaskV3 draws one UINT8 per element (1 kept with probability
keep = 1 - p, op-plugin's prob input), DropOutDoMaskV3 applies it (x / keep where kept, else 0),
AxpyWithSoftmaxAndDropOutDoMask is npu_dropout_with_add_softmax's softmax(x1 + alpha * self) and
its dropout, DropoutWithMulsAndSoftmaxGrad its backward. The masks are the simulator's random
stream; everything computed from a mask is compared with CPU PyTorch given that mask."""

import pytest


@pytest.mark.parametrize("dtype, tol", [("torch.float32", 1e-6), ("torch.float16", 1e-3)])
def test_dropout_with_byte_mask(run_npu, dtype, tol):
    run_npu(f"""
dtype, tol = {dtype}, {tol}
x = torch.randn(64, 256).to(dtype)
for p in (0.0, 0.25, 0.6):
    keep = 1 - p
    y, mask = torch.ops.npu._dropout_with_byte_mask(x.npu(), p)
    y, mask = y.cpu(), mask.cpu()
    assert mask.dtype == torch.uint8 and mask.shape == x.shape, (mask.dtype, mask.shape)
    assert set(mask.unique().tolist()) <= {{0, 1}}, mask.unique()
    # 16,384 draws: the kept fraction's standard deviation is below 0.004 (5 of them: 0.02).
    assert abs(mask.float().mean().item() - keep) < 0.02, (p, mask.float().mean())
    want = torch.where(mask.bool(), x.float() / keep, 0.0)
    assert torch.allclose(y.float(), want, rtol=tol, atol=tol), (p, (y.float() - want).abs().max())
    g = torch.randn(x.shape).to(dtype)
    back = torch.ops.npu._dropout_with_byte_mask_backward(g.npu(), mask.npu(), p).cpu()
    want = torch.where(mask.bool(), g.float() / keep, 0.0)
    assert torch.allclose(back.float(), want, rtol=tol, atol=tol), (p, (back.float() - want).abs().max())
# Each call draws new elements, as a device's generator does.
masks = [torch.ops.npu._dropout_with_byte_mask(x.npu(), 0.5)[1].cpu() for _ in range(2)]
assert (masks[0] != masks[1]).float().mean() > 0.4
# Through autograd; out of training it is the identity.
xn = x.npu().requires_grad_()
y = torch.ops.npu.dropout_with_byte_mask(xn, 0.25, True)
g = torch.randn(x.shape).to(dtype)
(y * g.npu()).sum().backward()
kept = y.detach().cpu() != 0
want = torch.where(kept, g.float() / 0.75, 0.0)
assert torch.allclose(xn.grad.cpu().float(), want, rtol=tol, atol=tol), (xn.grad.cpu().float() - want).abs().max()
assert torch.equal(torch.ops.npu.dropout_with_byte_mask(x.npu(), 0.25, False).cpu(), x)
""")


@pytest.mark.parametrize("dtype, tol, shape", [("torch.float32", 1e-5, (2, 3, 16, 32)), ("torch.float16", 2e-3, (2, 3, 16, 32)),
                                              ("torch.bfloat16", 2e-2, (2, 3, 16, 32)), ("torch.float32", 1e-5, (5, 3, 43))])
def test_dropout_with_add_softmax(run_npu, dtype, tol, shape):
    # torch_npu's mask is flat, its length the element count rounded up to a multiple of 128 (645
    # elements: 768 bytes); element i's byte is at i.
    run_npu(f"""
dtype, tol = {dtype}, {tol}
scores, bias = torch.randn(*{shape}).to(dtype), torch.randn(*{shape}).to(dtype)
for p, dim, alpha in ((0.0, -1, 0.5), (0.3, -1, 0.125), (0.5, 1, 2.0)):
    sn, bn = scores.npu().requires_grad_(), bias.npu().requires_grad_()
    mask, softmax, y = torch_npu.npu_dropout_with_add_softmax(sn, bn, alpha, p, dim)
    mask = mask.cpu()
    assert mask.dtype == torch.uint8 and mask.numel() == (scores.numel() + 127) // 128 * 128, (mask.dtype, mask.shape)
    kept = mask[:scores.numel()].reshape(scores.shape).float()
    # Within 5 standard deviations of the kept fraction (the draws follow earlier calls in the process).
    assert abs(kept.mean().item() - (1 - p)) <= 5 * (p * (1 - p) / kept.numel()) ** 0.5, (p, kept.mean())
    # torch_npu's own fallback (contrib/function/fuse_add_softmax_dropout.py): softmax(bias + alpha
    # * scores) along dim, then dropout.
    sc = scores.float().clone().requires_grad_()
    want_softmax = (bias.float() + alpha * sc).softmax(dim)
    want_y = want_softmax * kept / (1 - p)
    g = torch.randn(scores.shape).to(dtype)
    (y * g.npu()).sum().backward()
    (want_y * g.float()).sum().backward()
    for what, got, want in (("softmax", softmax, want_softmax), ("y", y, want_y), ("self grad", sn.grad, sc.grad)):
        got = got.detach().cpu().float()
        assert torch.allclose(got, want.detach(), rtol=tol, atol=tol), (what, p, dim, (got - want).abs().max())
    # op-plugin's backward returns the incoming gradient as x1's (its host code, as on a device), not
    # softmax's derivative: recorded so that a change is seen.
    assert torch.equal(bn.grad.cpu(), g), "x1's gradient is no longer torch_npu's pass-through"
""")
