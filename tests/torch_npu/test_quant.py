"""Quantisation through torch_npu's op-plugin on the simulator, against PyTorch on the CPU:
torch.fake_quantize_per_tensor_affine with tensor qparams (aclnnFakeQuantPerTensorAffineCachemask)
and torch.fake_quantize_per_channel_affine (aclnnFakeQuantPerChannelAffineCachemask), forward and
backward (the mask); torch_npu's npu_quantize (aclnnQuantize with div_mode, aclnnAscendQuantV3
without), npu_anti_quant (aclnnAscendAntiQuant), npu_dynamic_quant (aclnnDynamicQuantV2) and
npu_dynamic_quant_asymmetric (INT8, and torch.quint4x2's INT32 words of INT4), npu_trans_quant_param (aclnnTransQuantParamV3), npu_gelu_quant
(aclnnGeluQuant), npu_add_rms_norm_dynamic_quant (aclnnAddRmsNormDynamicQuantV2) and
npu_dynamic_block_quant (aclnnDynamicBlockQuantV2), npu_quant_scatter(_) (aclnnInplaceQuantScatter/V2)
and npu_rotate_quant (aclnnRotateQuant) against the formulas of their pages written with torch ops."""

import textwrap

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_fake_quantize_equals_the_cpu(run_npu):
    run_npu("""
        def check(name, f, x, *args):
            cpu = x.clone().requires_grad_()
            npu = x.npu().requires_grad_()
            want = f(cpu, *args)
            got = f(npu, *(a.npu() if isinstance(a, torch.Tensor) else a for a in args))
            assert torch.equal(got.detach().cpu(), want.detach()), (name, (got.detach().cpu() - want.detach()).abs().max())
            w = torch.randn(want.shape)
            (want * w).sum().backward()
            (got * w.npu()).sum().backward()
            assert torch.equal(npu.grad.cpu(), cpu.grad), (name, "grad")

        # Values past the ends of the range, so that the mask has both truths.
        x = torch.randn(4, 6) * 4
        check("per tensor", torch.fake_quantize_per_tensor_affine, x, torch.tensor([0.05]),
              torch.tensor([3], dtype=torch.int32), -128, 127)
        check("per tensor uint8 range", torch.fake_quantize_per_tensor_affine, x, torch.tensor([0.02]),
              torch.tensor([128], dtype=torch.int32), 0, 255)
        check("per channel", torch.fake_quantize_per_channel_affine, x, torch.rand(6) * 0.1 + 0.01,
              torch.randint(-5, 5, (6,), dtype=torch.int32), 1, -128, 127)
        check("per channel axis 0", torch.fake_quantize_per_channel_affine, x, torch.rand(4) * 0.1 + 0.01,
              torch.randint(-5, 5, (4,), dtype=torch.int32), 0, -8, 7)
    """)


def test_npu_quantize_and_dequantize_follow_their_pages(run_npu):
    run_npu("""
        def along(p, x, axis):
            return p.reshape([-1] + [1] * (x.dim() - 1 - axis % x.dim()))

        x = torch.randn(4, 8) * 20
        scales = torch.rand(8) + 0.5
        zero = torch.randint(-4, 4, (8,)).float()
        # div_mode (the default): aclnnQuantize, round(x / scales + zero_points) half to even, saturated
        # (INT32 zero points: the page's Ascend910B row has no FLOAT ones).
        for dtype, (lo, hi), cast in ((torch.qint8, (-128, 127), torch.int8), (torch.quint8, (0, 255), torch.uint8),
                                      (torch.qint32, (-2**31, 2**31 - 1), torch.int32)):
            want = torch.clamp(torch.round(x / scales + zero), lo, hi).to(cast)
            got = torch_npu.npu_quantize(x.npu(), scales.npu(), zero.int().npu(), dtype, -1).cpu()
            assert torch.equal(got, want), ("npu_quantize", dtype)
        # Without div_mode: aclnnAscendQuantV3, round(x * scales + offset) half to even into INT8.
        want = torch.clamp(torch.round(x * scales + zero), -128, 127).to(torch.int8)
        got = torch_npu.npu_quantize(x.npu(), scales.npu(), zero.npu(), torch.qint8, -1, False).cpu()
        assert torch.equal(got, want), "npu_quantize without div_mode"
        # aclnnAscendAntiQuant: (x + offset) * scale into FLOAT16 (its default) or BFLOAT16.
        q = torch.randint(-128, 128, (4, 8), dtype=torch.int8)
        for dst, dtype in ((None, torch.float16), (torch.bfloat16, torch.bfloat16)):
            want = ((q.float() + zero) * scales).to(dtype)
            got = torch_npu.npu_anti_quant(q.npu(), scales.npu(), offset=zero.npu(), dst_dtype=dst).cpu()
            assert got.dtype == dtype and torch.equal(got, want), ("npu_anti_quant", dtype)
    """)


def test_npu_dynamic_quant_follows_its_page(run_npu):
    run_npu("""
        x = torch.randn(2, 3, 16).half()
        smooth = (torch.rand(16) + 0.5).half()
        for s in (None, smooth):
            v = x.float() * (s.float() if s is not None else 1)
            scale = v.abs().amax(-1) / 127
            want = torch.clamp(torch.round(v / scale.unsqueeze(-1)), -128, 127).to(torch.int8)
            y, got_scale = torch_npu.npu_dynamic_quant(x.npu(), smooth_scales=None if s is None else s.npu())
            assert torch.equal(got_scale.cpu(), scale) and torch.equal(y.cpu(), want), ("npu_dynamic_quant", s is None)
        top, bottom = x.float().amax(-1), x.float().amin(-1)
        scale = (top - bottom) / 255
        offset = 127 - top / scale
        want = torch.clamp(torch.round(x.float() / scale.unsqueeze(-1) + offset.unsqueeze(-1)), -128, 127).to(torch.int8)
        y, got_scale, got_offset = torch_npu.npu_dynamic_quant_asymmetric(x.npu())
        assert torch.equal(got_scale.cpu(), scale) and torch.equal(got_offset.cpu(), offset), "asymmetric scale"
        assert torch.equal(y.cpu(), want), "npu_dynamic_quant_asymmetric"
    """)


def test_int4_outputs_of_the_quantisers_as_int32_words(run_npu):
    # torch.quint4x2: op-plugin gives aclnnAscendQuantV3 and aclnnDynamicQuantV2 an INT32 y with dstType
    # 3, x's shape with its last dimension / 8, each word eight INT4 (-8..7) low nibble first; the
    # dynamic scales are INT4's (dtypeMax 7; asymmetric (max - min) / 15 and offset 7 - max / scale).
    run_npu("""
        def unpack(words):
            b = words.contiguous().view(torch.uint8).reshape(*words.shape[:-1], -1).int()
            nibbles = torch.stack([b & 15, b >> 4], -1).reshape(*words.shape[:-1], words.shape[-1] * 8)
            return torch.where(nibbles >= 8, nibbles - 16, nibbles)

        # Values well past [-8, 7], so that saturation and every nibble value occur.
        x = torch.randn(4, 24) * 6
        scales = torch.rand(24) + 0.5
        zero = torch.randint(-2, 2, (24,)).float()
        want = torch.clamp(torch.round(x * scales + zero), -8, 7).int()
        got = torch_npu.npu_quantize(x.npu(), scales.npu(), zero.npu(), torch.quint4x2, -1, False).cpu()
        assert got.dtype == torch.int32 and got.shape == (4, 3), got.shape
        assert torch.equal(unpack(got), want), "npu_quantize quint4x2"
        assert want.min() == -8 and want.max() == 7

        x = (torch.randn(2, 3, 16) * 3).half()
        smooth = (torch.rand(16) + 0.5).half()
        for s in (None, smooth):
            v = x.float() * (s.float() if s is not None else 1)
            scale = v.abs().amax(-1) / 7
            want = torch.clamp(torch.round(v / scale.unsqueeze(-1)), -8, 7).int()
            y, got_scale = torch_npu.npu_dynamic_quant(x.npu(), smooth_scales=None if s is None else s.npu(),
                                                       dst_type=torch.quint4x2)
            assert y.dtype == torch.int32 and y.shape == (2, 3, 2), y.shape
            assert torch.equal(got_scale.cpu(), scale) and torch.equal(unpack(y.cpu()), want), ("quint4x2", s is None)
        v = x.float()
        top, bottom = v.amax(-1), v.amin(-1)
        scale = (top - bottom) / 15
        offset = 7 - top / scale
        want = torch.clamp(torch.round(v / scale.unsqueeze(-1) + offset.unsqueeze(-1)), -8, 7).int()
        y, got_scale, got_offset = torch_npu.npu_dynamic_quant_asymmetric(x.npu(), dst_type=torch.quint4x2)
        assert torch.equal(got_scale.cpu(), scale) and torch.equal(got_offset.cpu(), offset), "asymmetric int4 scale"
        assert torch.equal(unpack(y.cpu()), want), "npu_dynamic_quant_asymmetric quint4x2"

        # The norm quantisers: npu_rms_norm_quant (aclnnRmsNormQuant, INT32 y op-plugin passes beyond the
        # page's INT8 and INT4) and npu_add_rms_norm_dynamic_quant (aclnnAddRmsNormDynamicQuantV2: scale
        # max|v| / 7, the page's INT4 row).
        x = torch.randn(3, 16).half()
        gamma, beta = (torch.rand(16) + 0.5).half(), (torch.randn(16) * 0.1).half()
        scale, offset = torch.tensor([3.0]).half(), torch.tensor([1], dtype=torch.int8)
        rstd = torch.rsqrt((x.double().pow(2).mean(-1, keepdim=True) + 1e-6).float())
        want = torch.clamp(torch.round((x.float() * rstd * gamma.float() + beta.float()) * scale.float() + 1), -8, 7).int()
        y = torch_npu.npu_rms_norm_quant(x.npu(), gamma.npu(), beta.npu(), scale.npu(), offset.npu(), 1e-6,
                                         dst_dtype=torch.quint4x2)
        assert y.dtype == torch.int32 and y.shape == (3, 2) and torch.equal(unpack(y.cpu()), want), "npu_rms_norm_quant"
        x1, x2 = torch.randn(3, 16).half(), torch.randn(3, 16).half()
        y, _, total, got_scale, _ = torch_npu.npu_add_rms_norm_dynamic_quant(x1.npu(), x2.npu(), gamma.npu(),
                                                                             y_dtype=torch.quint4x2)
        v = total.cpu().float()
        v = v * torch.rsqrt((v.double().pow(2).mean(-1, keepdim=True) + 1e-6).float()) * gamma.float()
        scale = v.abs().amax(-1) / 7
        assert torch.equal(got_scale.cpu(), scale), "npu_add_rms_norm_dynamic_quant scale"
        want = torch.clamp(torch.round(v / scale[:, None]), -8, 7).int()
        assert y.shape == (3, 2) and torch.equal(unpack(y.cpu()), want), "npu_add_rms_norm_dynamic_quant quint4x2"
    """)


def test_npu_rms_norm_quant_follow_their_pages(run_npu):
    run_npu("""
        def rstd(x):
            return torch.rsqrt((x.double().pow(2).mean(-1, keepdim=True) + 1e-6).float())

        def quant(y):
            return torch.clamp(torch.round(y), -128, 127).to(torch.int8)

        x = torch.randn(2, 3, 16).half()
        gamma, beta = (torch.rand(16) + 0.5).half(), (torch.rand(16) - 0.5).half()
        scale, offset = torch.tensor([20.0]).half(), torch.tensor([3], dtype=torch.int8)
        # aclnnRmsNormQuant: round((x * rstd * gamma + beta) * scale + offset).
        want = quant((x.float() * rstd(x) * gamma.float() + beta.float()) * scale.float() + offset.float())
        got = torch_npu.npu_rms_norm_quant(x.npu(), gamma.npu(), beta.npu(), scale.npu(), offset.npu()).cpu()
        assert torch.equal(got, want), "npu_rms_norm_quant"
        # aclnnAddRmsNormQuantV2: the sum in x1's dtype, then round(y / scales1 + zero_points1) by divMode.
        x2 = torch.randn(2, 3, 16).half()
        scales1 = torch.rand(16) * 0.05 + 0.02
        zero1 = torch.randint(-4, 4, (16,), dtype=torch.int32)
        s = (x.float() + x2.float()).half()
        y = s.float() * rstd(s) * gamma.float()
        for div_mode in (True, False):
            want = quant((y / scales1 if div_mode else y * scales1) + zero1.float())
            y1, _, x_out = torch_npu.npu_add_rms_norm_quant(x.npu(), x2.npu(), gamma.npu(), scales1.npu(), zero1.npu(),
                                                            div_mode=div_mode)
            assert torch.equal(x_out.cpu(), s) and torch.equal(y1.cpu(), want), ("npu_add_rms_norm_quant", div_mode)
    """)


def test_npu_weight_quant_batchmatmul_follows_its_page(run_npu):
    run_npu("""
        x = torch.randn(5, 64).half()
        weight = torch.randint(-128, 128, (64, 24), dtype=torch.int8)
        bias = torch.randn(24).half()
        # y = x @ ((weight + antiquant_offset) * antiquant_scale) + bias: per channel, per group of 32
        # rows of k, and a transposed weight; inner_precise 1 reaches aclnnWeightQuantBatchMatmulV3.
        for scale_shape, group, inner in (((24,), 0, 0), ((2, 24), 32, 0), ((24,), 0, 1)):
            scale = (torch.rand(scale_shape) * 0.01 + 0.001).half()
            offset = torch.randint(-4, 4, scale_shape).half()
            expand = (lambda p: p.float().repeat_interleave(group, 0)) if group else (lambda p: p.float())
            want = x.float() @ ((weight.float() + expand(offset)) * expand(scale)) + bias.float()
            got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), weight.npu(), scale.npu(), offset.npu(), None, None,
                                                         bias.npu(), group, inner).cpu()
            assert got.dtype == torch.float16 and torch.allclose(got.float(), want, rtol=2e-3, atol=2e-3), (
                scale_shape, group, inner, (got.float() - want).abs().max())
        wt = torch.randint(-128, 128, (24, 64), dtype=torch.int8)
        scale = (torch.rand(24) * 0.01 + 0.001).half()
        want = x.float() @ (wt.t().float() * scale.float())
        got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), wt.npu().t(), scale.npu()).cpu()
        assert torch.allclose(got.float(), want, rtol=2e-3, atol=2e-3), "transposed weight"
    """)


def test_npu_weight_quant_batchmatmul_of_int4pack_weights(run_npu):
    # A16W4: npu_convert_weight_to_int4pack packs eight INT4 (-8..7) into each INT32 word along n,
    # element 8i in bits 0-3; op-plugin passes the (k, n / 8) INT32 tensor and y of n columns, and the
    # simulator reads the nibbles back: per channel with an offset, per group of 32 rows of k, and the
    # words of the transposed weight (packed along k).
    run_npu("""
        torch.manual_seed(0)
        m, k, n = 5, 64, 32
        x = torch.randn(m, k).half()
        w = torch.randint(-8, 8, (k, n), dtype=torch.int32)
        packed = torch_npu.npu_convert_weight_to_int4pack(w.npu())
        assert packed.dtype == torch.int32 and tuple(packed.shape) == (k, n // 8)
        scale = (torch.rand(n) * 0.05 + 0.01).half()
        offset = torch.randint(-2, 2, (n,)).half()
        want = x.float() @ ((w.float() + offset.float()) * scale.float())
        got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), packed, scale.npu(), antiquant_offset=offset.npu()).cpu()
        assert got.dtype == torch.float16 and got.shape == (m, n)
        assert torch.allclose(got.float(), want, rtol=2e-3, atol=2e-3), (got.float() - want).abs().max()
        group = 32
        scale = (torch.rand(k // group, n) * 0.05 + 0.01).half()
        want = x.float() @ (w.float() * scale.float().repeat_interleave(group, 0))
        got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), packed, scale.npu(), antiquant_group_size=group).cpu()
        assert torch.allclose(got.float(), want, rtol=2e-3, atol=2e-3), ("per group", (got.float() - want).abs().max())
        # The words of w's transpose (n, k / 8), seen transposed: (k / 8, n) of strides (1, k / 8).
        packed_t = torch_npu.npu_convert_weight_to_int4pack(w.t().contiguous().npu()).t()
        scale = (torch.rand(n) * 0.05 + 0.01).half()
        want = x.float() @ (w.float() * scale.float())
        got = torch_npu.npu_weight_quant_batchmatmul(x.npu(), packed_t, scale.npu()).cpu()
        assert got.shape == (m, n) and torch.allclose(got.float(), want, rtol=2e-3, atol=2e-3), (
            "transposed", (got.float() - want).abs().max())
    """)


def test_npu_quant_matmul_of_batched_operands(run_npu):
    # aclnnQuantMatmulV5's 约束说明: x1 (batch, m, k), x2 (batch, k, n) or (k, n), out (batch, m, n), the
    # batch broadcast; the table's out rank 2 is read wider (semantics/quant_matmul.toml), and torch_npu
    # labels a 3-d operand NCL, a plain layout.
    run_npu("""
        x1 = torch.randint(-8, 8, (2, 3, 64), dtype=torch.int8)
        scale = torch.rand(5) + 0.5
        # op-plugin packs a FLOAT scale of an FLOAT16 output with npu_trans_quant_param (UINT64 words whose
        # scale keeps float32's top 19 bits: & 0xFFFFE000, the page's formula).
        packed = (scale.view(torch.int32) & -8192).view(torch.float32)
        for x2 in (torch.randint(-8, 8, (64, 5), dtype=torch.int8), torch.randint(-8, 8, (2, 64, 5), dtype=torch.int8),
                   torch.randint(-8, 8, (1, 64, 5), dtype=torch.int8)):
            want = (x1.double() @ x2.double() * packed.double()).half()
            got = torch_npu.npu_quant_matmul(x1.npu(), x2.npu(), scale.npu(), output_dtype=torch.float16).cpu()
            assert got.shape == (2, 3, 5) and torch.equal(got, want), (tuple(x2.shape), got, want)
    """)


def test_npu_quant_matmul_of_int32_words_of_int4(run_npu):
    # A4W4 in torch_npu: int32 x1 (m, k / 8) and x2 (k, n / 8), eight INT4 a word along the last dimension
    # (element 8i in the low bits), or x2 a transposed view of (n, k / 8) words; op-plugin reads n from the
    # words and packs the FLOAT scale with npu_trans_quant_param. The product is exact, then scaled.
    run_npu("""
        def words(v):
            nibbles = (v.to(torch.int32) & 0xF).reshape(*v.shape[:-1], -1, 8)
            return sum(nibbles[..., j] << (4 * j) for j in range(8)).to(torch.int32)

        m, k, n = 4, 64, 16
        a, b = torch.randint(-8, 8, (m, k)), torch.randint(-8, 8, (k, n))
        scale = torch.rand(n) * 0.05 + 0.01
        packed = (scale.view(torch.int32) & -8192).view(torch.float32)
        want = (a.double() @ b.double() * packed.double()).half()
        for name, x2 in (("(k, n / 8)", words(b)), ("(n, k / 8) transposed", words(b.t().contiguous()).t())):
            got = torch_npu.npu_quant_matmul(words(a).npu(), x2.npu(), scale.npu(), output_dtype=torch.float16).cpu()
            assert got.shape == (m, n) and torch.equal(got, want), (name, (got.float() - want.float()).abs().max())
    """)


def test_npu_trans_quant_param_follows_its_page(run_npu):
    run_npu("""
        scale = torch.rand(8) * 0.01 + 0.001
        # aclnnTransQuantParamV3: the float's top 19 bits in the low word, bit 46 set, a 9-bit offset.
        words = torch_npu.npu_trans_quant_param(scale.npu()).cpu()
        bits = scale.view(torch.int32).long() & 0xFFFFE000
        assert torch.equal(words, bits | (1 << 46)), "npu_trans_quant_param"
        offset = torch.tensor([3.4] * 8)
        words = torch_npu.npu_trans_quant_param(scale.npu(), offset.npu()).cpu()
        assert torch.equal(words, bits | (1 << 46) | (3 << 37)), "npu_trans_quant_param with an offset"
    """)



def test_npu_gelu_quant_follows_its_page(run_npu):
    run_npu("""
        def dynamic(v):
            scale = v.abs().amax(-1) / 127
            return torch.clamp(torch.round(v / scale.unsqueeze(-1)), -128, 127).to(torch.int8), scale

        x = torch.randn(3, 16).half()
        scale, offset = (torch.rand(16) + 0.5).half(), (torch.rand(16) * 4 - 2).half()
        for approximate in ("none", "tanh"):
            g = torch.nn.functional.gelu(x.float(), approximate=approximate)
            # aclnnGeluQuant, quant_mode static: round(gelu * scale + offset) half to even ("rint").
            want = torch.clamp(torch.round(g * scale.float() + offset.float()), -128, 127).to(torch.int8)
            y, _ = torch_npu.npu_gelu_quant(x.npu(), input_scale=scale.npu(), input_offset=offset.npu(),
                                            approximate=approximate, quant_mode="static")
            assert torch.equal(y.cpu(), want), ("static", approximate)
            # dynamic (the default): per row by max|gelu * input_scale| / 127 (the scale within an ulp:
            # std::erf and PyTorch's vectorised erf differ by one at times).
            want, want_scale = dynamic(g * scale.float())
            y, got_scale = torch_npu.npu_gelu_quant(x.npu(), input_scale=scale.npu(), approximate=approximate)
            assert torch.equal(y.cpu(), want), ("dynamic", approximate)
            assert torch.allclose(got_scale.cpu(), want_scale, rtol=3e-7, atol=0), ("dynamic scale", approximate)
    """, env={"ACLNN_SIM_SOC": "Ascend950"})  # the page supports the Ascend 950 alone


def test_npu_add_rms_norm_dynamic_quant_and_dynamic_block_quant_follow_their_pages(run_npu):
    run_npu("""
        def dynamic(v):
            scale = v.abs().amax(-1) / 127
            return torch.clamp(torch.round(v / scale.unsqueeze(-1)), -128, 127).to(torch.int8), scale

        x1, x2 = torch.randn(2, 3, 16).half(), torch.randn(2, 3, 16).half()
        gamma, beta = (torch.rand(16) + 0.5).half(), (torch.rand(16) - 0.5).half()
        smooth1, smooth2 = (torch.rand(16) + 0.5).half(), (torch.rand(16) + 0.5).half()
        # aclnnAddRmsNormDynamicQuantV2: the sum in x1's dtype, its rms norm (+ beta), then each
        # smoothing factor's per-row quantisation.
        s = (x1.float() + x2.float()).half()
        y = s.float() * torch.rsqrt((s.double().pow(2).mean(-1, keepdim=True) + 1e-6).float()) * gamma.float()
        y = y + beta.float()
        y1, y2, x_out, scale1, scale2 = torch_npu.npu_add_rms_norm_dynamic_quant(
            x1.npu(), x2.npu(), gamma.npu(), smooth_scale1=smooth1.npu(), smooth_scale2=smooth2.npu(), beta=beta.npu())
        assert torch.equal(x_out.cpu(), s), "xOut"
        for k, (got, got_scale, smooth) in enumerate(((y1, scale1, smooth1), (y2, scale2, smooth2))):
            want, want_scale = dynamic(y * smooth.float())
            assert torch.equal(got.cpu(), want) and torch.equal(got_scale.cpu(), want_scale), k
        # aclnnDynamicBlockQuantV2: blocks of 1 x 128 (the last one ragged), scale = max|x| / 127.
        x = torch.randn(3, 200).half()
        blocks = torch.nn.functional.pad(x.float().abs(), (0, 56)).unflatten(-1, (2, 128)).amax(-1) / 127
        want = torch.clamp(torch.round(x.float() / blocks.repeat_interleave(128, -1)[:, :200]), -128, 127)
        y, scale = torch_npu.npu_dynamic_block_quant(x.npu())
        assert torch.equal(scale.cpu(), blocks) and torch.equal(y.cpu(), want.to(torch.int8)), "npu_dynamic_block_quant"
    """)


def test_npu_quant_scatter_follows_its_page(run_npu):
    # aclnnInplaceQuantScatter (Ascend910B; V2 only from Ascend950): V2's page calls the op Quantize
    # fused with Scatter, so updates quantise as aclnnQuantize does, round(u / scales + zero_points)
    # half to even, saturated to INT8, along the last dimension, then batch b of the result is written
    # into self from position indices[b] along axis (indices [B, 2]: batch indices[b, 0], position
    # indices[b, 1]). The reference writes every element with loops over the page's description.
    run_npu("AXIS_1 = False\n" + QUANT_SCATTER)
    # Ascend950: op-plugin calls aclnnInplaceQuantScatterV2 with dst_type INT8 and round_mode "rint".
    run_npu("AXIS_1 = True\n" + QUANT_SCATTER.replace("aclnnInplaceQuantScatter", "aclnnInplaceQuantScatterV2"),
            env={"ACLNN_SIM_SOC": "Ascend950"})


QUANT_SCATTER = textwrap.dedent("""
        import itertools

        def reference(x, indices, updates, scales, zero, axis):
            out = x.clone()
            axis %= x.dim()
            s = scales.float().reshape(-1)
            z = zero.float().reshape(-1) if zero is not None else torch.zeros_like(s)
            for pos in itertools.product(*(range(n) for n in updates.shape)):
                b = pos[0]
                batch, start = (int(indices[b, 0]), int(indices[b, 1])) if indices.dim() == 2 else (b, int(indices[b]))
                target = list(pos)
                target[0], target[axis] = batch, start + pos[axis]
                v = updates[pos].float() / s[pos[-1]] + z[pos[-1]]
                out[tuple(target)] = int(max(-128.0, min(127.0, float(torch.round(v)))))
            return out

        g = torch.Generator().manual_seed(21)
        x = torch.randint(-128, 128, (3, 7, 32), generator=g, dtype=torch.int8)
        cases = []
        # BFLOAT16 updates with BFLOAT16 scales and zero points, FLOAT16 with FLOAT and INT32 (the page's rows).
        for dtype, sdtype, zdtype in ((torch.bfloat16, torch.bfloat16, torch.bfloat16),
                                      (torch.float16, torch.float32, torch.int32)):
            updates = (torch.randn(3, 2, 32, generator=g) * 60).to(dtype)
            scales = (torch.rand(1, 1, 32, generator=g) + 0.5).to(sdtype)
            zero = torch.randint(-4, 5, (1, 1, 32), generator=g).to(zdtype)
            cases.append((x, torch.tensor([5, 0, 2], dtype=torch.int32), updates, scales, zero, -2))
            cases.append((x, torch.tensor([1, 4, 0], dtype=torch.int64), updates, scales, None, -2))
        # Ties round to even (2.5 -> 2, 3.5 -> 4, -0.5 -> 0) and values past INT8 saturate.
        ties = torch.tensor([2.5, 3.5, -0.5, -1.5, 300.0, -300.0, 127.4, -128.6] * 4).reshape(1, 1, 32).half()
        cases.append((x[:1], torch.tensor([6], dtype=torch.int32), ties, torch.ones(1, 1, 32), None, -2))
        # Four dimensions, indices [B, 2] (batch, position) writing batches 2 and 0.
        y = torch.randint(-128, 128, (3, 5, 4, 32), generator=g, dtype=torch.int8)
        u = (torch.randn(2, 5, 2, 32, generator=g) * 30).half()
        scales, zero = torch.rand(32, generator=g) + 0.5, torch.randint(-3, 4, (32,), generator=g, dtype=torch.int32)
        cases.append((y, torch.tensor([[2, 1], [0, 2]], dtype=torch.int32), u, scales, zero, -2))
        if AXIS_1:  # V2's page (Ascend950) admits axis in [1, rank - 1); V1's -2 alone
            u = (torch.randn(2, 3, 4, 32, generator=g) * 30).half()
            cases.append((y, torch.tensor([2, 0], dtype=torch.int32), u, scales, zero, 1))
        for k, (x, indices, updates, scales, zero, axis) in enumerate(cases):
            want = reference(x, indices, updates, scales, zero, axis)
            npu_zero = zero.npu() if zero is not None else None
            got = torch_npu.npu_quant_scatter(x.npu(), indices.npu(), updates.npu(), scales.npu(), npu_zero,
                                              axis=axis, quant_axis=-1)
            assert torch.equal(got.cpu(), want), k
            inplace = x.npu()
            torch_npu.npu_quant_scatter_(inplace, indices.npu(), updates.npu(), scales.npu(), npu_zero,
                                         axis=axis, quant_axis=-1)
            assert torch.equal(inplace.cpu(), want), ("in place", k)

        # The page's rules refused by name in phase 1: quantAxis other than the last, axis 0.
        for options, word in (({"quant_axis": 1}, "quantAxis"), ({"axis": 0}, "axis")):
            try:
                torch_npu.npu_quant_scatter(x.npu(), torch.tensor([0, 1], dtype=torch.int32).npu(), updates.npu(),
                                            scales.npu(), None, **options)
            except RuntimeError as error:
                assert word in str(error) and "161002" in str(error), (options, error)
            else:
                raise AssertionError(f"{options} was not refused")
        # A position whose slice leaves self faults on the device, never a write elsewhere.
        x, updates = torch.zeros(2, 4, 32, dtype=torch.int8), torch.ones(2, 2, 32).half()
        scales = torch.ones(1, 1, 32)
        try:
            torch_npu.npu_quant_scatter(x.npu(), torch.tensor([0, 3], dtype=torch.int32).npu(), updates.npu(),
                                        scales.npu(), None).cpu()
        except RuntimeError as error:
            # the kernel's fault, reported at the copy's synchronisation (its message on stderr names indices)
            assert "507015" in str(error), error
        else:
            raise AssertionError("a slice past self's end was not refused")
    """)


def test_npu_rotate_quant_follows_its_page(run_npu):
    # aclnnRotateQuant on Atlas A2 (its page's A2/A3 form): Y = (x.reshape(-1, K) @ rotation).reshape(M,
    # N), then per row scale = max|Y| / 127 and y = round(Y / scale) by round_mode, saturated to INT8.
    # The product's sums may differ from PyTorch's in their order, so a quotient at a tie may round
    # the other way: y within 1, almost everywhere equal; the scales within float rounding.
    run_npu(REFUSED_BY_NAME + """
    g = torch.Generator().manual_seed(7)
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in ((3, 128, 16), (5, 256, 64)):
            x = (torch.randn(m, n, generator=g) * 3).to(dtype)
            rotation = (torch.randn(k, k, generator=g) / k ** 0.5).to(dtype)
            ys = (x.float().double().reshape(-1, k) @ rotation.double()).reshape(m, n)
            want_scale = (ys.abs().amax(-1) / 127).float()
            for mode, rounding in (("rint", torch.round), ("floor", torch.floor)):
                want = rounding(ys / want_scale.double()[:, None]).clamp(-128, 127).to(torch.int8)
                y, scale = torch_npu.npu_rotate_quant(x.npu(), rotation.npu(), round_mode=mode)
                y, scale = y.cpu(), scale.cpu()
                assert y.dtype == torch.int8 and y.shape == (m, n) and scale.shape == (m,), (y.dtype, y.shape)
                assert torch.allclose(scale, want_scale, rtol=1e-5, atol=0), (dtype, mode)
                differ = (y.int() - want.int()).abs()
                assert differ.max() <= 1 and (differ > 0).float().mean() < 0.01, (dtype, mode, differ.max())
    # What the simulator does not compute answers an error naming it, never a value.
    x, rotation = torch.randn(2, 128).half().npu(), torch.randn(16, 16).half().npu()
    # (A call the kernel declines fails at the synchronisation, with 561003 and libascendcl's message.)
    for options, words in (({"round_mode": "round"}, ("aclnnRotateQuant", "round")),
                           ({"alpha": torch.tensor([0.5]).bfloat16().npu()}, ("aclnnRotateQuant", "alpha"))):
        try:
            torch_npu.npu_rotate_quant(x, rotation, **options)[0].cpu()
        except RuntimeError as error:
            said = str(error) + (recent_error() if "561003" in str(error) else "")
            assert all(w in said for w in words), (options, error)
        else:
            raise AssertionError(f"{options} was not refused")
    """)
