"""torch_npu.npu_quant_matmul_dequant (op-plugin's aclnnQuantMatmulDequant with transposeWeight true: the
quant_matmul_dequant family) on Ascend310P, the one chip its page supports, against the page's formula written
here: x times the smooth scale, quantised to INT8 per row by max|x| / 127 (dynamic) or by x_scale (pertoken,
pertensor), the exact product with weight^T dequantised by weight_scale and x's scale, or by INT64 words whose low
32 bits are the float of the two scales' product; and what the page excludes refused by name, on Ascend910B too."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_quant_matmul_dequant_on_ascend310p(run_npu):
    run_npu(REFUSED_BY_NAME + """
    import numpy as np

    def reference(x, weight, weight_scale, x_scale=None, smooth=None, mode="pertoken"):
        xs = x.double() * (smooth.double() if smooth is not None else 1)
        if x_scale is None:
            scale = xs.abs().amax(-1, keepdim=True) / 127
        else:
            scale = x_scale.double().reshape(-1, 1)
        q = torch.round(xs / scale)                       # half to even
        acc = q @ weight.double().t()
        if weight_scale.dtype == torch.int64:
            low = weight_scale.numpy().astype(np.int32).view(np.float32)
            return acc * torch.from_numpy(low.astype(np.float64))
        return acc * weight_scale.double() * scale

    m, k, n = 5, 64, 32
    x = torch.randn(m, k).half()
    weight = torch.randint(-127, 128, (n, k), dtype=torch.int8)
    w_scale = torch.rand(n) / 50 + 0.001
    smooth = (torch.rand(k) + 0.5).half()
    row_scale = (x.float().abs().amax(-1) / 100).float()            # static, within INT8
    tensor_scale = (x.float().abs().amax() / 100).reshape(1)
    packed = torch.from_numpy((w_scale * tensor_scale.half().float()).numpy().view(np.int32).astype(np.int64))
    cases = (
        ({}, {}),
        ({"smooth_scale": smooth}, {"smooth": smooth}),
        ({"x_scale": row_scale}, {"x_scale": row_scale}),
        ({"x_scale": tensor_scale, "quant_mode": "pertensor"}, {"x_scale": tensor_scale}),
        ({"x_scale": tensor_scale.half(), "quant_mode": "pertensor", "weight_scale": packed},
         {"x_scale": tensor_scale.half(), "weight_scale": packed}),
    )
    for npu_kw, ref_kw in cases:
        scale = npu_kw.pop("weight_scale", w_scale)
        out = torch_npu.npu_quant_matmul_dequant(x.npu(), weight.npu(), scale.npu(),
                                                  **{key: v.npu() if torch.is_tensor(v) else v for key, v in npu_kw.items()})
        want = reference(x, weight, ref_kw.pop("weight_scale", w_scale), **ref_kw)
        assert out.dtype == torch.float16 and out.shape == (m, n)
        assert torch.allclose(out.cpu().double(), want, rtol=2e-3, atol=2e-3), (npu_kw.keys(), (out.cpu() - want).abs().max())

    xn, wn, sn = x.npu(), weight.npu(), w_scale.npu()
    refused_by_name([
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, sn, bias=torch.zeros(n).npu()), "biasOptional"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, sn, x_offset=torch.zeros(m).npu()), "xOffsetOptional"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn[:24], sn[:24]), "16"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, packed.npu(), x_scale=row_scale.npu()), "INT64"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, packed.npu(), x_scale=tensor_scale.npu(),
                                                    quant_mode="pertensor"), "INT64"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, sn, quant_mode="pertensor"), "pertoken"),
        (lambda: torch_npu.npu_quant_matmul_dequant(xn, wn, sn, x_scale=(row_scale / 4).npu()), "outside INT8"),
    ])
    """, env={"ACLNN_SIM_SOC": "Ascend310P"})


def test_quant_matmul_dequant_refused_on_ascend910b(run_npu):
    run_npu(REFUSED_BY_NAME + """
    x, weight, scale = torch.randn(4, 32).half().npu(), torch.ones(16, 32, dtype=torch.int8).npu(), torch.ones(16).npu()
    refused_by_name([(lambda: torch_npu.npu_quant_matmul_dequant(x, weight, scale), "not supported on Ascend910B")])
    """)
