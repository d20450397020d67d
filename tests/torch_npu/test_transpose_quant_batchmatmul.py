"""torch_npu.npu_transpose_quant_batchmatmul through op-plugin on the simulator (Ascend950, the one chip
aclnnTransposeQuantBatchMatMul's page supports): x1 (M, B, K) seen as (B, M, K) by perm_x1 [1, 0, 2], x2
(B, K, N), or (B, N, K) seen as (B, K, N) by perm_x2 [0, 2, 1], each batch's FLOAT8 product, out (M, B, N)
by perm_y [1, 0, 2]. K-C: the exact product times x2Scale[n] times x1Scale[m] in float (K 512, N 128, the
page's only sizes); MX: FLOAT8_E8M0 scales of k's blocks of 32, x1Scale (M, B, K/64, 2) and x2Scale (B,
K/64, N, 2) or (B, N, K/64, 2). References written from the page with torch ops on the CPU; what the page
excludes refused naming the argument. op-plugin's dtype is a torch ScalarType code (15 BFLOAT16, 5 FLOAT16)."""

import textwrap

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

SETUP = textwrap.dedent(REFUSED_BY_NAME) + textwrap.dedent("""
    import torch_npu

    g = torch.Generator().manual_seed(21)
    BF16, F16 = 15, 5  # the ScalarType codes op-plugin's GetAclDataType reads
    def fp8(shape, dtype=torch.float8_e4m3fn, scale=2.0):
        return (torch.randn(*shape, generator=g) * scale).to(dtype)

    def e8m0(shape):  # codes 120..133: 2^-7 .. 2^6
        return torch.randint(120, 134, shape, generator=g, dtype=torch.uint8)

    def refused(words, f):  # npu_scripts.py's refused_by_name, words first
        refused_by_name([(f, words)])
""")


def on_ascend950(run_npu, script):
    return run_npu(SETUP + textwrap.dedent(script), env={"ACLNN_SIM_SOC": "Ascend950", "ASCEND_LAUNCH_BLOCKING": "1"})


def test_kc_products_scale_each_batch_per_token_and_per_channel(run_npu):
    out = on_ascend950(run_npu, """
        M, B, K, N = 5, 3, 512, 128
        for d1, d2 in ((torch.float8_e4m3fn, torch.float8_e4m3fn), (torch.float8_e5m2, torch.float8_e5m2)):
            x1, x2 = fp8((M, B, K), d1), fp8((B, K, N), d2)
            s1, s2 = torch.rand(M, generator=g) + 0.5, torch.rand(N, generator=g) + 0.5
            acc = x1.double().permute(1, 0, 2) @ x2.double()  # (B, M, N), exact
            for code, dtype in ((BF16, torch.bfloat16), (F16, torch.float16)):
                got = torch_npu.npu_transpose_quant_batchmatmul(x1.npu(), x2.npu(), code, x1_scale=s1.npu(),
                                                                x2_scale=s2.npu()).cpu()
                want = (acc.float() * s2 * s1[:, None]).permute(1, 0, 2).to(dtype)
                assert got.dtype == dtype and got.shape == (M, B, N), (got.dtype, got.shape)
                assert torch.equal(got, want), (d1, d2, dtype, (got.float() - want.float()).abs().max())
        print("kc ok")
    """)
    assert "kc ok" in out


def test_mx_products_scale_each_batch_s_blocks_of_32(run_npu):
    out = on_ascend950(run_npu, """
        E8M0 = torch.float8_e8m0fnu
        M, B, K, N = 4, 2, 128, 16
        x1, x2 = fp8((M, B, K)), fp8((B, K, N))
        s1, s2 = e8m0((M, B, K // 64, 2)), e8m0((B, K // 64, N, 2))
        # Each element's block scale: x1's [M, B, K], x2's [B, K, N].
        v1 = torch.pow(2.0, s1.double() - 127).reshape(M, B, K // 32).repeat_interleave(32, -1)
        v2 = torch.pow(2.0, s2.double() - 127).permute(0, 2, 1, 3).reshape(B, N, K // 32).repeat_interleave(32, -1)
        a = (x1.double() * v1).permute(1, 0, 2)              # (B, M, K)
        b = x2.double() * v2.transpose(1, 2)                 # (B, K, N)
        want = (a @ b).float().permute(1, 0, 2).bfloat16()   # (M, B, N)
        got = torch_npu.npu_transpose_quant_batchmatmul(x1.npu(), x2.npu(), BF16, x1_scale=s1.view(E8M0).npu(),
                                                        x2_scale=s2.view(E8M0).npu(), group_sizes=[1, 1, 32]).cpu()
        assert torch.equal(got, want), (got.float() - want.float()).abs().max()
        # x2 stored (B, N, K), its scale (B, N, K/64, 2): perm_x2 [0, 2, 1]; group sizes inferred (0s).
        w = x2.transpose(1, 2).contiguous()
        sw = s2.permute(0, 2, 1, 3).contiguous()
        got = torch_npu.npu_transpose_quant_batchmatmul(x1.npu(), w.npu(), F16, x1_scale=s1.view(E8M0).npu(),
                                                        x2_scale=sw.view(E8M0).npu(), perm_x2=[0, 2, 1]).cpu()
        assert torch.equal(got, (a @ b).float().permute(1, 0, 2).half()), "perm_x2 [0, 2, 1]"
        print("mx ok")
    """)
    assert "mx ok" in out


def test_what_the_page_excludes_is_refused_by_name(run_npu):
    out = on_ascend950(run_npu, """
        E8M0 = torch.float8_e8m0fnu
        M, B, N = 4, 2, 128
        x1, x2 = fp8((M, B, 512)), fp8((B, 512, N))
        s1, s2 = torch.rand(M, generator=g), torch.rand(N, generator=g)
        call = torch_npu.npu_transpose_quant_batchmatmul
        # K-C: K 512 and N 128 only, perm_x2 [0, 1, 2] only, group sizes 0.
        refused(["K-C", "512"], lambda: call(fp8((M, B, 256)).npu(), fp8((B, 256, N)).npu(), BF16,
                                             x1_scale=s1.npu(), x2_scale=s2.npu()))
        refused(["permX2"], lambda: call(x1.npu(), x2.transpose(1, 2).contiguous().npu(), BF16, x1_scale=s1.npu(),
                                         x2_scale=s2.npu(), perm_x2=[0, 2, 1]))
        refused(["x1Scale"], lambda: call(x1.npu(), x2.npu(), BF16, x1_scale=torch.rand(1, generator=g).npu(),
                                          x2_scale=s2.npu()))
        refused(["permX1"], lambda: call(x1.permute(1, 0, 2).contiguous().npu(), x2.npu(), BF16, x1_scale=s1.npu(),
                                         x2_scale=s2.npu(), perm_x1=[0, 1, 2]))
        refused(["batchSplitFactor"], lambda: call(x1.npu(), x2.npu(), BF16, x1_scale=s1.npu(), x2_scale=s2.npu(),
                                                   batch_split_factor=2))
        # MX: the scales' shapes and group sizes the page gives.
        m1, m2 = fp8((M, B, 128)), fp8((B, 128, 16))
        refused(["x2Scale", "shape"], lambda: call(m1.npu(), m2.npu(), BF16, x1_scale=e8m0((M, B, 2, 2)).view(E8M0).npu(),
                                                   x2_scale=e8m0((B, 16, 2, 2)).view(E8M0).npu()))
        refused(["groupSize"], lambda: call(m1.npu(), m2.npu(), BF16, x1_scale=e8m0((M, B, 2, 2)).view(E8M0).npu(),
                                            x2_scale=e8m0((B, 2, 16, 2)).view(E8M0).npu(), group_sizes=[1, 1, 64]))
        # T-C: HIFLOAT8 operands (no page defines the encoding), declined by name.
        refused(["HIFLOAT8"], lambda: call(x1.view(torch.uint8).npu(), x2.view(torch.uint8).npu(), BF16, x1_scale=torch.ones(1).npu(),
                                           x2_scale=s2.npu(), x1_dtype=torch_npu.hifloat8, x2_dtype=torch_npu.hifloat8))
        print("refusals ok")
    """)
    assert "refusals ok" in out
