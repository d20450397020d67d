"""FLOAT8 and MX matrix products through torch_npu's op-plugin on the simulator (Ascend950, the chip
aclnnQuantMatmulV5's page gives them): torch_npu.npu_quant_matmul with FLOAT8_E4M3FN/E5M2 operands and
per-token and per-channel FLOAT scales (the page's T-C/K-C: x1@x2 * x2Scale * x1Scale + bias), a
packed UINT64 scale (T-T static: (x1@x2 + bias) * x2Scale), and FLOAT8_E8M0 scales of blocks of 32
along k (MX: each block's sum times x1Scale[m, j] * x2Scale[j, n], then + bias), and
torch_npu.npu_weight_quant_batchmatmul with a FLOAT8_E4M3FN weight (aclnnWeightQuantBatchMatmulV2's C
quantisation), against references written from the pages' formulas with torch ops on the CPU; and what
they leave open refused by name."""

import textwrap

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

SETUP = textwrap.dedent(REFUSED_BY_NAME) + textwrap.dedent("""
    import torch_npu

    g = torch.Generator().manual_seed(21)
    def fp8(shape, dtype=torch.float8_e4m3fn, scale=2.0):
        return (torch.randn(*shape, generator=g) * scale).to(dtype)

    def e8m0(shape):  # codes 120..133: 2^-7 .. 2^6
        return torch.randint(120, 134, shape, generator=g, dtype=torch.uint8)

    def block_scales(codes, rows, k):
        # [rows, pairs, 2] codes as the value of each of k's elements: [rows, k]
        return torch.pow(2.0, codes.double() - 127).reshape(rows, -1)[:, :-(-k // 32)].repeat_interleave(32, 1)[:, :k]
""")


def on_ascend950(run_npu, script, **env):
    return run_npu(SETUP + textwrap.dedent(script), env={"ACLNN_SIM_SOC": "Ascend950", **env})


def test_float8_products_take_per_token_and_per_channel_scales(run_npu):
    out = on_ascend950(run_npu, """
        m, k, n = 5, 96, 24
        for d1, d2 in ((torch.float8_e4m3fn, torch.float8_e4m3fn), (torch.float8_e4m3fn, torch.float8_e5m2),
                       (torch.float8_e5m2, torch.float8_e5m2)):
            x1, w = fp8((m, k), d1), fp8((n, k), d2)
            acc = x1.double() @ w.double().t()
            scale = torch.rand(n, generator=g) * 0.1 + 0.01
            pertoken = torch.rand(m, generator=g) * 0.1 + 0.01
            bias = torch.randn(n, generator=g)
            for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
                # T-C/K-C: x1@x2 * x2Scale * x1Scale + bias (x2 given as the transposed view op-plugin reads)
                got = torch_npu.npu_quant_matmul(x1.npu(), w.npu().t(), scale.npu(), pertoken_scale=pertoken.npu(),
                                                 bias=bias.npu(), output_dtype=out_dtype).cpu()
                want = ((acc.float() * scale * pertoken[:, None]) + bias).to(out_dtype)
                assert got.dtype == out_dtype and torch.equal(got, want), (d1, d2, out_dtype, (got.float() - want.float()).abs().max())
            # T-T static: a FLOAT scale op-plugin packs (npu_trans_quant_param: the float's top 19 bits),
            # the FLOAT bias joining the product before it.
            got = torch_npu.npu_quant_matmul(x1.npu(), w.npu().t(), scale.npu(), bias=bias.npu(),
                                             output_dtype=torch.float16).cpu()
            packed = (scale.view(torch.int32) & -8192).view(torch.float32)
            want = ((acc + bias.double()).float() * packed).half()
            assert torch.equal(got, want), (d1, d2, (got.float() - want.float()).abs().max())
        print("fp8 ok")
    """)
    assert "fp8 ok" in out


def test_mx_products_scale_each_block_of_32_along_k(run_npu):
    out = on_ascend950(run_npu, """
        E8M0 = torch.float8_e8m0fnu
        for m, k, n in ((4, 64, 8), (3, 96, 16), (2, 40, 6)):  # k's last block whole, half, short
            pairs = -(-k // 64)
            x1, x2 = fp8((m, k)), fp8((k, n), torch.float8_e5m2)
            s1, s2 = e8m0((m, pairs, 2)), e8m0((pairs, n, 2))
            a = x1.double() * block_scales(s1, m, k)
            b = x2.double() * block_scales(s2.permute(1, 0, 2), n, k).t()
            bias = torch.randn(n, generator=g)
            got = torch_npu.npu_quant_matmul(x1.npu(), x2.npu(), s2.view(E8M0).npu(), pertoken_scale=s1.view(E8M0).npu(),
                                             bias=bias.npu(), output_dtype=torch.float32, group_sizes=[1, 1, 32]).cpu()
            want = (a @ b).float() + bias
            assert torch.equal(got, want), ((m, k, n), (got - want).abs().max())
            # x2 as the transposed view of [n, k], its scale [n, pairs, 2] viewed alike (op-plugin compares
            # their strides: the copies are made with fresh row-major strides, which contiguous() may keep)
            w = torch.empty(n, k, dtype=x2.dtype).copy_(x2.t())
            sw = torch.empty(n, pairs, 2, dtype=torch.uint8).copy_(s2.permute(1, 0, 2))
            got = torch_npu.npu_quant_matmul(x1.npu(), w.npu().t(), sw.view(E8M0).npu().permute(1, 0, 2),
                                             pertoken_scale=s1.view(E8M0).npu(), output_dtype=torch.bfloat16,
                                             group_sizes=[1, 1, 32]).cpu()
            assert torch.equal(got, (a @ b).float().bfloat16()), (m, k, n)
        print("mx ok")
    """)
    assert "mx ok" in out


def test_float8_weights_dequantise_per_channel(run_npu):
    # aclnnWeightQuantBatchMatmulV2 on Ascend950 (its Chinese page's C quantisation): a FLOAT8_E4M3FN weight,
    # y = x @ (weight * antiquantScale) + bias with the scale and bias of x's dtype, per channel or per
    # tensor, the weight transposed or not; an E8M0 scale (MX, FLOAT4 weights) refused by name.
    out = on_ascend950(run_npu, """
        for dtype in (torch.bfloat16, torch.float16):
            x = torch.randn(5, 64, generator=g).to(dtype)
            w = fp8((64, 24))
            bias = torch.randn(24, generator=g).to(dtype)
            for shape in ((24,), (1, 24), (1,)):
                scale = (torch.rand(shape, generator=g) * 0.01 + 0.001).to(dtype)
                want = (x.float() @ (w.float() * scale.float().reshape(-1)) + bias.float()).to(dtype)
                got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), w.npu(), scale.npu(), bias=bias.npu()).cpu()
                assert got.dtype == dtype and torch.allclose(got.float(), want.float(), rtol=1e-2, atol=1e-2), (
                    dtype, shape, (got.float() - want.float()).abs().max())
            wt = torch.empty(24, 64, dtype=w.dtype).copy_(w.t())
            scale = (torch.rand(24, generator=g) * 0.01 + 0.001).to(dtype)
            got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), wt.npu().t(), scale.npu()).cpu()
            want = (x.float() @ (w.float() * scale.float())).to(dtype)
            assert torch.allclose(got.float(), want.float(), rtol=1e-2, atol=1e-2), (dtype, "transposed weight")
        try:
            torch_npu.npu_weight_quant_batchmatmul(x.npu(), w.npu(), e8m0((2, 24)).view(torch.float8_e8m0fnu).npu(),
                                                   antiquant_group_size=32).cpu()
        except RuntimeError as e:
            assert "antiquantScale" in str(e), str(e)[:600]
        else:
            raise AssertionError("an E8M0 antiquantScale computed")
        print("weight fp8 ok")
    """, ASCEND_LAUNCH_BLOCKING="1")
    assert "weight fp8 ok" in out


def test_what_the_page_leaves_open_is_refused_by_name(run_npu):
    out = on_ascend950(run_npu, """
        E8M0 = torch.float8_e8m0fnu
        def refused(words, f):  # npu_scripts.py's refused_by_name, words first
            refused_by_name([(f, words)])
        x1, x2 = fp8((4, 64)), fp8((64, 8))
        scale = torch.rand(8, generator=g) * 0.1
        # HIFLOAT8: no page defines its encoding.
        refused(["HIFLOAT8"], lambda: torch_npu.npu_quant_matmul(x1.view(torch.uint8).npu(), x2.view(torch.uint8).npu(),
                                                               scale.npu(), pertoken_scale=torch.ones(4).npu(),
                                                               output_dtype=torch.float16, x1_dtype=torch_npu.hifloat8,
                                                               x2_dtype=torch_npu.hifloat8))
        # Over batches (the page's out (batch, m, n)): the MX scales' batch layout is not stated, declined by name.
        b1, b2 = fp8((2, 4, 64)), fp8((2, 64, 8))
        refused(["batched MX product"], lambda: torch_npu.npu_quant_matmul(
            b1.npu(), b2.npu(), e8m0((2, 1, 8, 2)).view(E8M0).npu(), pertoken_scale=e8m0((2, 4, 1, 2)).view(E8M0).npu(),
            output_dtype=torch.float32, group_sizes=[1, 1, 32]))
        # MX scales of a layout other than the page's: the shape named.
        refused(["x2Scale", "shape"], lambda: torch_npu.npu_quant_matmul(
            x1.npu(), x2.npu(), e8m0((1, 8, 1)).view(E8M0).npu(), pertoken_scale=e8m0((4, 1, 2)).view(E8M0).npu(),
            output_dtype=torch.float32, group_sizes=[1, 1, 32]))
        print("refusals ok")
    """, ASCEND_LAUNCH_BLOCKING="1")
    assert "refusals ok" in out
