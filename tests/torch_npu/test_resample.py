"""F.interpolate through torch_npu's op-plugin on the simulator, forward and backward (loss.backward()
on npu), against PyTorch on the CPU: modes nearest, nearest-exact, linear, bilinear, bicubic and
trilinear, with and without align_corners and scale factors, 1-D to 3-D, float32 and float16. They reach
the aclnnUpsample* APIs (op-plugin's Upsample*OpApi.cpp), whose pages are op_docs/derived/: the resample
family (runtime/sim/src/opapi/families/resample.cpp)."""

# Each case: the CPU and npu results of f(x), and of x.grad after (f(x) * w).sum().backward(), with a
# weight w so that each output position's gradient differs.
CHECK = """
import torch.nn.functional as F

def check(name, f, shape, rtol=1e-5, atol=1e-5, dtype=torch.float32):
    x = torch.randn(*shape, dtype=dtype)
    cpu = x.float().clone().requires_grad_()
    npu = x.npu().requires_grad_()
    want, got = f(cpu), f(npu)
    assert got.dtype == dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.shape)
    assert torch.allclose(got.cpu().float(), want, rtol=rtol, atol=atol), (name, (got.cpu().float() - want).abs().max())
    w = torch.randn(want.shape)
    (want * w).sum().backward()
    (got * w.to(dtype).npu()).sum().backward()
    assert torch.allclose(npu.grad.cpu().float(), cpu.grad, rtol=rtol, atol=atol), (name, "grad", (npu.grad.cpu().float() - cpu.grad).abs().max())
    print("ok", name)
"""


def test_interpolate_modes_forward_and_backward(run_npu):
    output = run_npu(CHECK + """
check("nearest 1d", lambda x: F.interpolate(x, size=9, mode="nearest"), (2, 3, 5))
check("nearest 2d scale", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (2, 3, 4, 5))
check("nearest 2d down", lambda x: F.interpolate(x, size=(3, 2), mode="nearest"), (1, 2, 7, 6))
check("nearest 3d", lambda x: F.interpolate(x, size=(4, 5, 3), mode="nearest"), (1, 2, 3, 4, 5))
check("nearest-exact 1d", lambda x: F.interpolate(x, size=7, mode="nearest-exact"), (2, 3, 5))
check("nearest-exact 2d", lambda x: F.interpolate(x, scale_factor=(1.5, 0.5), mode="nearest-exact"), (2, 3, 4, 6))
check("nearest-exact 3d", lambda x: F.interpolate(x, size=(2, 5, 4), mode="nearest-exact"), (1, 2, 3, 4, 5))
check("linear", lambda x: F.interpolate(x, size=11, mode="linear"), (2, 3, 5))
check("linear align_corners", lambda x: F.interpolate(x, size=11, mode="linear", align_corners=True), (2, 3, 5))
check("bilinear", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear"), (2, 3, 4, 5))
check("bilinear scale", lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"), (2, 3, 4, 5))
check("bilinear align_corners down", lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=True), (2, 3, 8, 7))
check("bicubic", lambda x: F.interpolate(x, size=(7, 9), mode="bicubic"), (2, 3, 4, 5), rtol=1e-4, atol=1e-4)
check("bicubic align_corners", lambda x: F.interpolate(x, size=(5, 3), mode="bicubic", align_corners=True), (1, 2, 6, 7), rtol=1e-4, atol=1e-4)
check("trilinear", lambda x: F.interpolate(x, size=(4, 6, 5), mode="trilinear"), (1, 2, 3, 4, 5))
check("trilinear align_corners", lambda x: F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=True), (1, 2, 3, 4, 5))
check("bilinear float16", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear"), (2, 3, 4, 5), rtol=1e-2, atol=1e-2, dtype=torch.float16)
check("nearest float16", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (2, 3, 4, 5), rtol=1e-2, atol=1e-2, dtype=torch.float16)
check("nn.Upsample", torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), (1, 3, 5, 4))
""")
    assert output.count("ok ") == 19, output


def test_interpolate_and_stft_reach_their_apis(run_npu):
    # A fault injected into an API shows the call went there, not to one of op-plugin's fallbacks
    # (torch.stft's composite one included). One process for both: each costs ~3 CPU-s to start.
    output = run_npu("""
import torch.nn.functional as F
calls = (("aclnnUpsampleBilinear2d", lambda: F.interpolate(torch.randn(1, 2, 4, 5).npu(), size=(7, 9), mode="bilinear")),
         ("aclnnUpsampleNearest2dV2", lambda: F.interpolate(torch.randn(1, 2, 4, 5).npu(), size=(7, 9), mode="nearest")),
         ("aclStft", lambda: torch.stft(torch.randn(2, 64).npu(), 16, 4, return_complex=True)))
for api, call in calls:
    try:
        call().cpu()
        print("computed", api)
    except RuntimeError as error:
        print("refused", api, api in str(error))
""", env={"ACLNN_SIM_FAULT": "aclnnUpsampleBilinear2d,aclnnUpsampleNearest2dV2,aclStft", "ASCEND_LAUNCH_BLOCKING": "1"})
    for api in ("aclnnUpsampleBilinear2d", "aclnnUpsampleNearest2dV2", "aclStft"):
        assert f"refused {api} True" in output, output
