"""F.grid_sample through torch_npu's op-plugin on the simulator, forward and backward (the gradients of
input and grid through loss.backward() on npu), against PyTorch on the CPU: 2-D bilinear, nearest and
bicubic, 3-D trilinear and nearest, each padding mode, with and without align_corners, float32 and
float16. They reach aclnnGridSampler2D/3D and their backward, whose pages are op_docs/derived/: the
grid_sample family (runtime/sim/src/opapi/families/grid_sample.cpp)."""


def test_grid_sample_modes_forward_and_backward(run_npu):
    output = run_npu("""
import torch.nn.functional as F

def check(name, x_shape, grid_shape, rtol=1e-4, atol=1e-4, dtype=torch.float32, **kwargs):
    x, grid = torch.randn(*x_shape, dtype=dtype), (torch.rand(*grid_shape) * 2.4 - 1.2).to(dtype)
    cx, cg = x.float().clone().requires_grad_(), grid.float().clone().requires_grad_()
    nx, ng = x.npu().requires_grad_(), grid.npu().requires_grad_()
    want, got = F.grid_sample(cx, cg, **kwargs), F.grid_sample(nx, ng, **kwargs)
    assert got.dtype == dtype and got.shape == want.shape, (name, got.shape, want.shape)
    assert torch.allclose(got.cpu().float(), want, rtol=rtol, atol=atol), (name, (got.cpu().float() - want).abs().max())
    w = torch.randn(want.shape)
    (want * w).sum().backward()
    (got * w.to(dtype).npu()).sum().backward()
    for what, a, b in (("input", nx.grad, cx.grad), ("grid", ng.grad, cg.grad)):
        assert torch.allclose(a.cpu().float(), b, rtol=rtol, atol=atol), (name, what, (a.cpu().float() - b).abs().max())
    print("ok", name)

for mode in ("bilinear", "nearest", "bicubic"):
    for padding in ("zeros", "border", "reflection"):
        for align in (False, True):
            check(f"2d {mode} {padding} {align}", (2, 3, 5, 6), (2, 4, 3, 2), mode=mode, padding_mode=padding, align_corners=align)
for mode in ("bilinear", "nearest"):
    for padding in ("zeros", "border", "reflection"):
        check(f"3d {mode} {padding}", (1, 2, 3, 4, 5), (1, 2, 3, 2, 3), mode=mode, padding_mode=padding, align_corners=False)
check("2d bilinear float16", (2, 3, 5, 6), (2, 4, 3, 2), rtol=1e-2, atol=1e-2, dtype=torch.float16, align_corners=False)
""")
    assert output.count("ok ") == 25, output


def test_grid_sample_reaches_the_grid_sampler_apis(run_npu):
    # A fault injected into an API shows the call went there, not to one of op-plugin's fallbacks.
    output = run_npu("""
import torch.nn.functional as F
x, grid = torch.randn(1, 2, 4, 5).npu().requires_grad_(), torch.zeros(1, 3, 3, 2).npu()
try:
    F.grid_sample(x, grid, align_corners=False).sum().backward()
    x.grad.cpu()
    print("computed")
except RuntimeError as error:
    print("refused", "aclnnGridSampler2DBackward" in str(error))
# After a backward that failed, PyTorch's autograd thread for the device may still be releasing the
# graph task (Python objects: it waits for the GIL) while the interpreter finalises, and the thread's
# exit then calls std::terminate (torch's teardown race: 2 of 20 runs aborted after printing). The
# process leaves without finalising.
import os, sys
sys.stdout.flush()
os._exit(0)
""", env={"ACLNN_SIM_FAULT": "aclnnGridSampler2DBackward", "ASCEND_LAUNCH_BLOCKING": "1"})
    assert "refused True" in output, output
