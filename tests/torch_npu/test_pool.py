"""Pools and padding modes through torch_npu's op-plugin on the simulator, forward and backward
(loss.backward() on npu), against PyTorch on the CPU: F.max_pool2d with indices
(aclnnMaxPool2dWithIndices and its backward), F.max_pool3d (aclnnMaxPool3dWithArgmax), F.max_unpool2d/3d,
F.avg_pool2d/3d (aclnnAvgPool2d/3d, their backward), F.adaptive_avg_pool2d/3d and
F.adaptive_max_pool2d/3d (their aclnn APIs), F.pad reflect and replicate
(aclnnReflectionPad*/aclnnReplicationPad* and their backward).

On a chip that is not aclnn-only (the default Ascend910B), op-plugin sends F.max_pool2d and its
backward to aclnnMaxPool2dWithMask and aclnnMaxPool2dWithMaskBackward, whose INT8 mask only the
backward reads (the simulator's own layout: CANN documents none); the route through
aclnnMaxPool2dWithIndices is op-plugin's compatible one (TORCH_NPU_USE_COMPATIBLE_IMPL=1), which an
aclnn-only chip takes by itself. Both are checked."""

# Each case: the CPU and npu results of f(x), and of x.grad after (f(x) * w).sum().backward(), with a
# weight w so that each output position's gradient differs.
CHECK = """
import torch.nn.functional as F

def check(name, f, shape, rtol=1e-5, atol=1e-6, dtype=torch.float32, backward=True):
    x = torch.randn(*shape, dtype=dtype)
    cpu = x.clone().requires_grad_()
    npu = x.npu().requires_grad_()
    want, got = f(cpu), f(npu)
    pairs = list(zip(want, got)) if isinstance(want, tuple) else [(want, got)]
    for k, (a, b) in enumerate(pairs):
        b = b.cpu()
        if a.dtype.is_floating_point:
            assert torch.allclose(b.float(), a.float(), rtol=rtol, atol=atol), (name, k, (b.float() - a.float()).abs().max())
        else:
            assert torch.equal(b.long(), a.long()), (name, k)
    if not backward:
        return
    w = torch.randn(pairs[0][0].shape)
    (pairs[0][0] * w.to(pairs[0][0].dtype)).sum().backward()
    (got[0] if isinstance(got, tuple) else got).mul(w.to(dtype).npu()).sum().backward()
    assert torch.allclose(npu.grad.cpu().float(), cpu.grad.float(), rtol=rtol, atol=atol), (name, "grad", (npu.grad.cpu().float() - cpu.grad.float()).abs().max())
"""


INDICES_ROUTE = {"TORCH_NPU_USE_COMPATIBLE_IMPL": "1"}


def test_max_pool2d(run_npu):
    run_npu(env=INDICES_ROUTE, script=CHECK + """
check("max_pool2d k3 s2 p1", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), (2, 3, 9, 8))
check("max_pool2d ceil", lambda x: F.max_pool2d(x, (3, 2), (2, 2), (1, 1), ceil_mode=True, return_indices=True), (2, 3, 7, 6))
check("max_pool2d 3d input", lambda x: F.max_pool2d(x, 2), (3, 6, 6))
# The backward's page lists FLOAT only on Ascend910B: the simulator refuses FLOAT16 there, as CANN.
check("max_pool2d float16", lambda x: F.max_pool2d(x, 2, return_indices=True), (1, 2, 6, 6), dtype=torch.float16,
      rtol=1e-3, atol=1e-3, backward=False)
""")


def test_max_pool3d_adaptive_max_pools_and_unpooling(run_npu):
    run_npu(CHECK + """
check("max_pool3d", lambda x: F.max_pool3d(x, 2, 2, 1, return_indices=True), (1, 2, 5, 4, 6))
check("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True), (2, 3, 7, 5))
check("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (3, 2, 3), return_indices=True), (1, 2, 5, 4, 7))
# max_unpool2d/3d place the pooled values back at the pool's indices (aclnnMaxUnpool2d/3d).
values, indices = F.max_pool2d(torch.randn(2, 3, 8, 6), 2, return_indices=True)
assert torch.equal(F.max_unpool2d(values.npu(), indices.npu(), 2).cpu(), F.max_unpool2d(values, indices, 2))
values, indices = F.max_pool3d(torch.randn(1, 2, 4, 4, 6), 2, return_indices=True)
assert torch.equal(F.max_unpool3d(values.npu(), indices.npu(), 2).cpu(), F.max_unpool3d(values, indices, 2))
""")


# The default route: the mask APIs, forward and backward, in float32 and float16 (the mask pages list
# both). Values rounded to halves give windows with ties, where the backward must pick PyTorch's max.
def test_max_pool2d_through_the_mask_route(run_npu):
    run_npu(CHECK + """
torch.manual_seed(0)
check("mask k3 s2 p1", lambda x: F.max_pool2d(x, 3, 2, 1), (2, 3, 9, 8))
check("mask ceil", lambda x: F.max_pool2d(x, (3, 2), (2, 2), (1, 1), ceil_mode=True), (2, 3, 7, 6))
# round(x) as the values, x's gradient passing through unchanged
check("mask ties", lambda x: F.max_pool2d(x + (x.detach().round() - x.detach()), 3, 1, 1), (1, 2, 6, 5))
for shape in ((2, 3, 8, 8), (1, 2, 7, 9)):
    check("mask float16", lambda x: F.max_pool2d(x, 2, ceil_mode=True), shape, dtype=torch.float16, rtol=1e-3, atol=1e-3)
""")


# The backward's page gives gradOutput and self 4 dimensions only (semantics/pool.toml's erratum):
# an unbatched input's forward computes, its backward is refused as the page says.
def test_max_pool2d_backward_of_an_unbatched_input_is_refused_by_the_mask_page(run_npu):
    output = run_npu("""
        x = torch.randn(3, 6, 6)
        assert torch.equal(torch.nn.functional.max_pool2d(x.npu(), 2).cpu(), torch.nn.functional.max_pool2d(x, 2))
        torch.nn.functional.max_pool2d(x.npu().requires_grad_(), 2).sum().backward()
    """, expect_failure=True)
    assert "aclnnMaxPool2dWithMaskBackward" in output and "161002" in output, output


def test_average_pools(run_npu):
    run_npu(CHECK + """
check("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), (2, 3, 9, 8))
check("avg_pool2d ceil, padding excluded", lambda x: F.avg_pool2d(x, (3, 2), 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 7, 6))
check("avg_pool2d divisor_override", lambda x: F.avg_pool2d(x, 2, divisor_override=3), (2, 3, 6, 6))
check("avg_pool2d negative divisor_override", lambda x: F.avg_pool2d(x, 2, divisor_override=-3), (2, 3, 6, 6))
check("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 2, 1), (1, 2, 5, 4, 6))
check("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (2, 3, 7, 5))
check("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (3, 2, 3)), (1, 2, 5, 4, 7))
""")


# On Ascend910 F.avg_pool3d's gradient is aclop AvgPool3DGrad, whose pads torch_npu sends in another
# order than the forward's (padding (d, h, w) as (h, h, w, w, d, d)): pads equal on every axis compute;
# others are refused, as the order its kernel reads is not documented (read as the forward's, padding
# (1, 0, 0) of a 6^3 input with kernel and stride 3 gave a gradient off by 0.1 with no error).
def test_avg_pool3d_gradient_on_ascend910_takes_equal_pads_only(run_npu):
    output = run_npu(CHECK + """
check("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 2, 1), (1, 2, 5, 4, 6))
check("avg_pool3d padding excluded", lambda x: F.avg_pool3d(x, 3, 3, 1, count_include_pad=False), (1, 2, 6, 6, 6))
x = torch.randn(1, 1, 6, 6, 6).npu().requires_grad_()
try:
    F.avg_pool3d(x, 3, 3, (1, 0, 0)).sum().backward()
    x.grad.cpu()  # the refusal comes from torch_npu's queue: raised by the next synchronisation
except RuntimeError as error:
    print("refused:", error)
else:
    raise AssertionError("unequal pads computed a gradient")
""", env={"ACLNN_SIM_SOC": "Ascend910"})
    assert "refused:" in output and "AvgPool3DGrad" in output, output


def test_padding_modes(run_npu):
    run_npu(CHECK + """
for mode in ("reflect", "replicate"):
    check(f"pad1d {mode}", lambda x: F.pad(x, (2, 3), mode=mode), (2, 3, 6))
    check(f"pad2d {mode}", lambda x: F.pad(x, (2, 3, 1, 4), mode=mode), (2, 3, 5, 6))
    check(f"pad3d {mode}", lambda x: F.pad(x, (2, 3, 1, 2, 0, 3), mode=mode), (1, 2, 4, 5, 6))
""")
