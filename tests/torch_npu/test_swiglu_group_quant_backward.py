"""torch_npu.npu_swiglu_group_quant_backward (op-plugin's aclnnSwigluGroupQuantGrad: the activation family's
swiglu_group_grad) on device="npu" against aclnnSwigluGroupQuantGrad's page written here, in double: x's halves
x0, x1 clamped when clamp_limit > 0, grad_y0 = grad_y * weight, grad_x0 = grad_y0 * x1' * dSiLU(x0') where x0 < c,
grad_x1 = grad_y0 * SiLU(x0') where -c < x1 < c, grad_weight[t] = sum_h grad_y[t, h] * y_origin[t, h], both zero
past sum(group_index) rows; a weight without y_origin and a negative clamp_limit other than -1 refused by name. On
Ascend950, the one chip the page supports; refused by name on Ascend910B."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_swiglu_group_quant_backward_equals_the_page(run_npu):
    run_npu(REFUSED_BY_NAME + """
    F = torch.nn.functional

    def reference(grad_y, x, weight, y_origin, group_index, clamp):
        h = x.shape[-1] // 2
        xs, g = x.double().reshape(-1, 2 * h), grad_y.double().reshape(-1, h)
        trunc = xs.shape[0] if group_index is None else min(int(group_index.sum()), xs.shape[0])
        c = clamp if clamp > 0 else float("inf")
        x0, x1 = xs[:, :h], xs[:, h:]
        a, b = x0.clamp(max=c), x1.clamp(-c, c)
        g0 = g * weight.double().reshape(-1, 1) if weight is not None else g
        grad_x = torch.cat([g0 * b * (F.silu(a) * (1 - torch.sigmoid(a)) + torch.sigmoid(a)) * (x0 < c),
                            g0 * F.silu(a) * ((-c < x1) & (x1 < c))], -1)
        grad_x[trunc:] = 0
        grad_w = None
        if weight is not None:
            grad_w = (g * y_origin.double().reshape(-1, h)).sum(-1)
            grad_w[trunc:] = 0
            grad_w = grad_w.reshape(weight.shape)
        return grad_x.reshape(x.shape), grad_w

    torch.manual_seed(0)
    for dtype, tolerance in ((torch.float32, 1e-5), (torch.float16, 3e-3), (torch.bfloat16, 2e-2)):
        for lead in ((7,), (2, 5)):
            x = (torch.randn(*lead, 2 * 64) * 2).to(dtype)
            grad_y = torch.randn(*lead, 64).to(dtype)
            weight = torch.rand(*lead)
            x0, x1 = x.float()[..., :64], x.float()[..., 64:]
            y_origin = (F.silu(x0) * x1).to(dtype)
            for clamp in (0.0, -1.0, 1.5):
                for group_index in (None, torch.tensor([2, 1, 0], dtype=torch.int64)):
                    for with_weight in (False, True):
                        kwargs = {"clamp_limit": clamp}
                        if group_index is not None:
                            kwargs["group_index"] = group_index.npu()
                        if with_weight:
                            kwargs.update(weight=weight.npu(), y_origin=y_origin.npu())
                        grad_x, grad_w = torch_npu.npu_swiglu_group_quant_backward(grad_y.npu(), x.npu(), **kwargs)
                        want_x, want_w = reference(grad_y, x, weight if with_weight else None, y_origin, group_index, clamp)
                        assert grad_x.dtype == dtype and grad_x.shape == x.shape
                        assert torch.allclose(grad_x.cpu().double(), want_x, rtol=tolerance, atol=tolerance), \\
                            (dtype, lead, clamp, (grad_x.cpu().double() - want_x).abs().max())
                        if with_weight:
                            assert grad_w.dtype == torch.float32 and grad_w.shape == weight.shape
                            assert torch.allclose(grad_w.cpu().double(), want_w, rtol=tolerance, atol=tolerance * 10), \\
                                (dtype, lead, clamp, (grad_w.cpu().double() - want_w).abs().max())

    x, grad_y = torch.randn(4, 32).npu(), torch.randn(4, 16).npu()
    refused_by_name([
        (lambda: torch_npu.npu_swiglu_group_quant_backward(grad_y, x, weight=torch.rand(4).npu()), "yOriginOptional"),
        (lambda: torch_npu.npu_swiglu_group_quant_backward(grad_y, x, clamp_limit=-0.5), "clampLimit"),
    ])
    """, env={"ACLNN_SIM_SOC": "Ascend950"})


def test_swiglu_group_quant_backward_is_refused_on_ascend910b(run_npu):
    run_npu(REFUSED_BY_NAME + """
    x, grad_y = torch.randn(4, 32).npu(), torch.randn(4, 16).npu()
    refused_by_name([(lambda: torch_npu.npu_swiglu_group_quant_backward(grad_y, x), "not supported on Ascend910B")])
    """, env={"ACLNN_SIM_SOC": "Ascend910B"})
