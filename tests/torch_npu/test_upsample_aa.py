"""F.interpolate(..., antialias=True) through torch_npu's op-plugin on the simulator, forward and backward,
against PyTorch on the CPU: modes bilinear and bicubic, downsampling (where the filter widens), upsampling,
one axis of each, align_corners and scale factors, float32 and float16, on Ascend910B and Ascend950. On both
op-plugin calls aclnnUpsampleBilinear2dAA/Bicubic2dAA and aclnnUpsampleBilinear2dAABackward/Bicubic2dAAGrad
(op_plugin/ops/opapi/Upsample*2dAA*KernelNpuOpApi.cpp), whose pages are op_docs/derived/: the resample
family's antialiased ops (runtime/sim/src/opapi/families/resample.cpp)."""

import pytest

SOCS = ("Ascend910B", "Ascend950")

# Each case: the npu result of f(x) against the CPU's, and x.grad after (f(x) * w).sum().backward(). The
# backward adds the same products in the same order as aten's kernel: float32 gradients are compared bit
# for bit. The forward's sums differ from aten's vectorised float loops by a rounding in some outputs
# (measured within one ulp of the input's largest magnitude, about 5e-7 for these): compared within 1e-6.
CHECK = """
import torch.nn.functional as F

def check(name, f, shape, dtype=torch.float32):
    x = torch.randn(*shape, dtype=dtype)
    cpu = x.float().clone().requires_grad_()
    npu = x.npu().requires_grad_()
    want, got = f(cpu), f(npu)
    assert got.dtype == dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.shape)
    tolerance = dict(rtol=1e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)
    assert torch.allclose(got.cpu().float(), want, **tolerance), (name, (got.cpu().float() - want).abs().max())
    w = torch.randn(want.shape)
    (want * w).sum().backward()
    (got * w.to(dtype).npu()).sum().backward()
    if dtype == torch.float32:
        assert torch.equal(npu.grad.cpu(), cpu.grad), (name, "grad", (npu.grad.cpu() - cpu.grad).abs().max())
    else:
        assert torch.allclose(npu.grad.cpu().float(), cpu.grad, **tolerance), (name, "grad")
    print("ok", name)
"""

CASES = """
for mode in ("bilinear", "bicubic"):
    aa = dict(mode=mode, antialias=True)
    check(mode + " down", lambda x: F.interpolate(x, size=(3, 4), **aa), (2, 3, 8, 10))
    check(mode + " down odd", lambda x: F.interpolate(x, size=(5, 6), **aa), (1, 2, 17, 13))
    check(mode + " up", lambda x: F.interpolate(x, size=(7, 9), **aa), (2, 3, 4, 5))
    check(mode + " down and up", lambda x: F.interpolate(x, size=(3, 12), **aa), (1, 3, 9, 5))
    check(mode + " rows only", lambda x: F.interpolate(x, size=(4, 6), **aa), (1, 2, 11, 6))
    check(mode + " columns only", lambda x: F.interpolate(x, size=(6, 7), **aa), (1, 2, 6, 40))
    check(mode + " scale_factor", lambda x: F.interpolate(x, scale_factor=0.3, **aa), (2, 2, 20, 17))
    check(mode + " align_corners", lambda x: F.interpolate(x, size=(4, 5), align_corners=True, **aa), (1, 2, 13, 11))
    check(mode + " float16", lambda x: F.interpolate(x, size=(3, 4), **aa), (2, 3, 8, 10), dtype=torch.float16)
"""


@pytest.mark.parametrize("soc", SOCS)
def test_antialiased_interpolate_forward_and_backward(run_npu, soc):
    output = run_npu(CHECK + CASES, env={"ACLNN_SIM_SOC": soc})
    assert output.count("ok ") == 18, output


@pytest.mark.parametrize("soc", SOCS)
def test_antialiased_interpolate_reaches_its_apis(run_npu, soc):
    # A fault injected into each API shows the call went there, not to op-plugin's CPU fallback
    # (aten's kernel on the host, which it takes where the APIs are missing or on older chips).
    output = run_npu("""
import torch.nn.functional as F
# The backward operators called directly: autograd would reach the faulted forward first.
def backward(mode):
    op = getattr(torch.ops.aten, f"_upsample_{mode}2d_aa_backward")
    return op(torch.randn(1, 2, 3, 4).npu(), [3, 4], [1, 2, 8, 10], False, None, None)
calls = (("aclnnUpsampleBilinear2dAA", lambda: F.interpolate(torch.randn(1, 2, 8, 10).npu(), size=(3, 4), mode="bilinear", antialias=True)),
         ("aclnnUpsampleBicubic2dAA", lambda: F.interpolate(torch.randn(1, 2, 8, 10).npu(), size=(3, 4), mode="bicubic", antialias=True)),
         ("aclnnUpsampleBilinear2dAABackward", lambda: backward("bilinear")),
         ("aclnnUpsampleBicubic2dAAGrad", lambda: backward("bicubic")))
for api, call in calls:
    try:
        call().cpu()
        print("computed", api)
    except RuntimeError as error:
        print("refused", api, api in str(error))
""", env={"ACLNN_SIM_SOC": soc, "ASCEND_LAUNCH_BLOCKING": "1",
          "ACLNN_SIM_FAULT": "aclnnUpsampleBilinear2dAA,aclnnUpsampleBicubic2dAA,aclnnUpsampleBilinear2dAABackward,"
                             "aclnnUpsampleBicubic2dAAGrad"})
    for api in ("aclnnUpsampleBilinear2dAA", "aclnnUpsampleBicubic2dAA", "aclnnUpsampleBilinear2dAABackward",
                "aclnnUpsampleBicubic2dAAGrad"):
        assert f"refused {api} True" in output, output
