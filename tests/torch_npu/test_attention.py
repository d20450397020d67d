"""torch_npu.npu_fusion_attention and its autograd backward through op-plugin on the simulator
(aclnnFlashAttentionScore / aclnnFlashAttentionScoreGrad; with actual_seq_qlen and the TND layout
aclnnFlashAttentionVarLenScore / aclnnFlashAttentionUnpaddingScoreGrad) against PyTorch's CPU
autograd of softmax(mask(scale * (Q K^T + pse))) V: each layout, GQA, pse, the sparse modes and
float16; torch_npu.npu_prompt_flash_attention (aclnnPromptFlashAttentionV3) and
npu_incre_flash_attention (aclnnIncreFlashAttentionV4, with a paged KV cache),
npu_fused_infer_attention_score (aclnnFusedInferAttentionScoreV2/V3); and
torch._transform_bias_rescale_qkv (aclnnTransformBiasRescaleQkv), nn.MultiheadAttention's
inference fast path."""

import textwrap

# attend(...) is the CPU reference: the query heads of a group share their key/value head; the mask
# masks out where true. check(...) runs npu_fusion_attention on npu and the reference on the CPU,
# then the gradients of (out * w).sum() for query, key and value.
CHECK = """
import math

def heads(t, layout, d):
    if layout in ("BSH", "SBH"):
        t = t.reshape(t.shape[0], t.shape[1], -1, d)
    return {"BSH": lambda: t.transpose(1, 2), "SBH": lambda: t.permute(1, 2, 0, 3),
            "BSND": lambda: t.transpose(1, 2), "BNSD": lambda: t}[layout]()

def unheads(o, layout):
    o = {"BSH": lambda: o.transpose(1, 2), "SBH": lambda: o.permute(2, 0, 1, 3),
         "BSND": lambda: o.transpose(1, 2), "BNSD": lambda: o}[layout]()
    return o.flatten(2) if layout in ("BSH", "SBH") else o

def attend(q, k, v, n, layout, scale, mask=None, pse=None):
    d = q.shape[-1] // n if layout in ("BSH", "SBH") else q.shape[-1]
    Q, K, V = heads(q.float(), layout, d), heads(k.float(), layout, d), heads(v.float(), layout, d)
    K, V = K.repeat_interleave(Q.shape[1] // K.shape[1], 1), V.repeat_interleave(Q.shape[1] // V.shape[1], 1)
    s = Q @ K.transpose(-1, -2)
    s = scale * (s + pse if pse is not None else s)
    if mask is not None:
        s = s.masked_fill(mask, -math.inf)
    return unheads(torch.softmax(s, -1) @ V, layout)

def check(name, q, k, v, n, layout, mask=None, cpu_mask=None, pse=None, rtol=1e-4, atol=1e-4, **kw):
    scale = 1 / math.sqrt(q.shape[-1] // n if layout in ("BSH", "SBH") else q.shape[-1])
    cpu = [t.clone().requires_grad_() for t in (q, k, v)]
    npu = [t.npu().requires_grad_() for t in (q, k, v)]
    want = attend(*cpu, n, layout, scale, cpu_mask, pse)
    got = torch_npu.npu_fusion_attention(*npu, n, layout, pse=pse.npu() if pse is not None else None,
                                         atten_mask=mask.npu() if mask is not None else None, scale=scale, **kw)[0]
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert torch.allclose(got.detach().cpu().float(), want.detach(), rtol=rtol, atol=atol), (
        name, (got.detach().cpu().float() - want.detach()).abs().max())
    w = torch.randn(want.shape)
    (want * w).sum().backward()
    (got.float() * w.npu()).sum().backward()
    for label, a, b in zip("qkv", cpu, npu):
        assert torch.allclose(b.grad.cpu().float(), a.grad.float(), rtol=rtol, atol=atol), (
            name, "d" + label, (b.grad.cpu().float() - a.grad.float()).abs().max())

def band(sq, skv, shift, pre, nxt):
    i, j = torch.arange(sq).reshape(-1, 1), torch.arange(skv).reshape(1, -1)
    return (j > i + shift + nxt) | (j < i + shift - pre)

# The sparse modes 2 to 4 read their mask from the mode: the pages' compressed 2048 x 2048 triangle.
TRIANGLE = torch.ones(2048, 2048, dtype=torch.bool).triu(1)
"""


def test_fusion_attention_and_its_backward_equal_the_cpu(run_npu):
    # One process for every case: each torch_npu start costs seconds.
    run_npu(CHECK + textwrap.dedent("""
        r = torch.randn
        check("BSND GQA", r(2, 5, 4, 8), r(2, 6, 2, 8), r(2, 6, 2, 8), 4, "BSND")
        full = torch.rand(5, 5) > 0.5
        full.fill_diagonal_(False)
        check("BNSD mask and pse", r(1, 2, 5, 8), r(1, 2, 5, 8), r(1, 2, 5, 8), 2, "BNSD", mask=full, cpu_mask=full,
              pse=r(1, 2, 5, 5))
        check("BSH leftUpCausal", r(2, 6, 16), r(2, 6, 16), r(2, 6, 16), 2, "BSH", mask=TRIANGLE,
              cpu_mask=band(6, 6, 0, 2 ** 31, 0), sparse_mode=2)
        check("SBH rightDownCausal", r(4, 2, 16), r(7, 2, 8), r(7, 2, 8), 2, "SBH", mask=TRIANGLE,
              cpu_mask=band(4, 7, 3, 2 ** 31, 0), sparse_mode=3)
        check("BSND band", r(1, 8, 2, 8), r(1, 8, 2, 8), r(1, 8, 2, 8), 2, "BSND", mask=TRIANGLE,
              cpu_mask=band(8, 8, 0, 2, 1), sparse_mode=4, pre_tockens=2, next_tockens=1)
        check("BSND float16", r(1, 4, 2, 16).half(), r(1, 4, 2, 16).half(), r(1, 4, 2, 16).half(), 2, "BSND",
              rtol=5e-3, atol=5e-3)
        # Dropout (keep_prob 0.5: op-plugin's aclnnDropoutGenMaskV2 mask, read by the forward and the
        # backward): out = P' V and dV = P'^T w for one kept-and-scaled P', so <out, w> = <V, dV>; and a
        # dropout that changes nothing would leave out as keep_prob 1 gives it.
        q, k, v = (t.npu() for t in (r(1, 6, 2, 8), r(1, 6, 2, 8), r(1, 6, 2, 8)))
        v.requires_grad_()
        out = torch_npu.npu_fusion_attention(q, k, v, 2, "BSND", scale=0.3, keep_prob=0.5)[0]
        w = torch.randn(out.shape).npu()
        (out * w).sum().backward()
        assert torch.allclose((out * w).sum().cpu(), (v * v.grad).sum().cpu(), rtol=1e-4, atol=1e-4), "dropout"
        plain = torch_npu.npu_fusion_attention(q, k, v, 2, "BSND", scale=0.3)[0]
        assert not torch.allclose(out.detach().cpu(), plain.detach().cpu()), "dropout dropped nothing"
        qkv, bias = r(2, 5, 24), r(24)
        for want, got in zip(torch._transform_bias_rescale_qkv(qkv, bias, 2),
                             torch._transform_bias_rescale_qkv(qkv.npu(), bias.npu(), 2)):
            assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-6), "_transform_bias_rescale_qkv"
        # npu_prompt_flash_attention (aclnnPromptFlashAttentionV3, FLOAT16 and BFLOAT16 only): BSH with GQA;
        # BNSD_BSND right-down causal.
        q, k, v = r(2, 5, 32).half(), r(2, 6, 16).half(), r(2, 6, 16).half()
        got = torch_npu.npu_prompt_flash_attention(q.npu(), k.npu(), v.npu(), num_heads=4, input_layout="BSH",
                                                   scale_value=0.3, num_key_value_heads=2)
        assert torch.allclose(got.cpu().float(), attend(q, k, v, 4, "BSH", 0.3), rtol=2e-3, atol=2e-3), "prompt BSH"
        q, k, v = r(1, 2, 4, 8).bfloat16(), r(1, 2, 6, 8).bfloat16(), r(1, 2, 6, 8).bfloat16()
        got = torch_npu.npu_prompt_flash_attention(q.npu(), k.npu(), v.npu(), atten_mask=TRIANGLE.npu(), num_heads=2,
                                                   input_layout="BNSD_BSND", scale_value=0.3, sparse_mode=3)
        want = attend(q, k, v, 2, "BNSD", 0.3, band(4, 6, 2, 2 ** 31, 0)).transpose(1, 2)
        assert torch.allclose(got.cpu().float(), want, rtol=2e-2, atol=2e-2), "prompt BNSD_BSND"
        # npu_incre_flash_attention (aclnnIncreFlashAttentionV4): one query position per batch over its first
        # actual_seq_lengths keys, from one key tensor, then from a paged cache of 16-position blocks
        # without a mask (op-plugin passes NULL: semantics/attention.toml's client_optional).
        q, k, v = r(2, 1, 32).half(), r(2, 6, 16).half(), r(2, 6, 16).half()
        mask = torch.zeros(2, 6, dtype=torch.bool)
        mask[0, 1] = True
        got = torch_npu.npu_incre_flash_attention(q.npu(), k.npu(), v.npu(), atten_mask=mask.npu(), num_heads=4,
                                                  input_layout="BSH", scale_value=0.3, num_key_value_heads=2,
                                                  actual_seq_lengths=[4, 6])
        for b, length in enumerate((4, 6)):
            want = attend(q[b:b + 1], k[b:b + 1, :length], v[b:b + 1, :length], 4, "BSH", 0.3,
                          mask[b:b + 1, :length].reshape(1, 1, 1, length))
            assert torch.allclose(got[b:b + 1].cpu().float(), want, rtol=2e-3, atol=2e-3), ("incre", b)
        kc, vc = r(5, 16, 16).half(), r(5, 16, 16).half()
        table = torch.tensor([[3, 0], [4, 1]], dtype=torch.int32)
        got = torch_npu.npu_incre_flash_attention(q.npu(), kc.npu(), vc.npu(), block_table=table.npu(), num_heads=4,
                                                  input_layout="BSH", scale_value=0.3, num_key_value_heads=2,
                                                  actual_seq_lengths=[20, 9], block_size=16)
        for b, length in enumerate((20, 9)):
            keys, values = (c[table[b].long()].reshape(1, -1, 16)[:, :length] for c in (kc, vc))
            want = attend(q[b:b + 1], keys, values, 4, "BSH", 0.3)
            assert torch.allclose(got[b:b + 1].cpu().float(), want, rtol=2e-3, atol=2e-3), ("incre paged", b)
        # npu_fused_infer_attention_score (aclnnFusedInferAttentionScoreV2/V3): the prompt path for several
        # query positions (masked), the incremental one for one (per-batch key lengths), with the flag's
        # softmaxLse (without it op-plugin passes a [0] one: test_custom_ops.py).
        q, k, v = r(2, 5, 32).half(), r(2, 6, 16).half(), r(2, 6, 16).half()
        mask = torch.rand(5, 6) > 0.6
        mask[:, 0] = False
        got = torch_npu.npu_fused_infer_attention_score(q.npu(), k.npu(), v.npu(), atten_mask=mask.npu(), num_heads=4,
                                                        scale=0.3, input_layout="BSH", num_key_value_heads=2,
                                                        softmax_lse_flag=True)[0]
        assert torch.allclose(got.cpu().float(), attend(q, k, v, 4, "BSH", 0.3, mask), rtol=2e-3, atol=2e-3), "fused"
        got = torch_npu.npu_fused_infer_attention_score(q[:, :1].npu(), k.npu(), v.npu(), num_heads=4, scale=0.3,
                                                        input_layout="BSH", num_key_value_heads=2,
                                                        actual_seq_lengths_kv=[3, 6], softmax_lse_flag=True)[0]
        for b, length in enumerate((3, 6)):
            want = attend(q[b:b + 1, :1], k[b:b + 1, :length], v[b:b + 1, :length], 4, "BSH", 0.3)
            assert torch.allclose(got[b:b + 1].cpu().float(), want, rtol=2e-3, atol=2e-3), ("fused one position", b)
        # TND: two sequences of 3 and 5 queries over 4 and 5 keys, each right-down causal, against the
        # reference per sequence (its BNSD form).
        q, k, v = torch.randn(8, 2, 8), torch.randn(9, 1, 8), torch.randn(9, 1, 8)
        cpu = [t.clone().requires_grad_() for t in (q, k, v)]
        npu = [t.npu().requires_grad_() for t in (q, k, v)]
        pieces = []
        for (q0, q1), (k0, k1) in zip(((0, 3), (3, 8)), ((0, 4), (4, 9))):
            seq = [t[a:b].transpose(0, 1).unsqueeze(0) for t, a, b in zip(cpu, (q0, k0, k0), (q1, k1, k1))]
            out = attend(*seq, 2, "BNSD", 0.5, band(q1 - q0, k1 - k0, (k1 - k0) - (q1 - q0), 2 ** 31, 0))
            pieces.append(out[0].transpose(0, 1))
        want = torch.cat(pieces)
        got = torch_npu.npu_fusion_attention(*npu, 2, "TND", atten_mask=TRIANGLE.npu(), scale=0.5, sparse_mode=3,
                                             actual_seq_qlen=[3, 8], actual_seq_kvlen=[4, 9])[0]
        assert torch.allclose(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-4), (
            (got.detach().cpu() - want.detach()).abs().max())
        w = torch.randn(want.shape)
        (want * w).sum().backward()
        (got * w.npu()).sum().backward()
        for label, a, b in zip("qkv", cpu, npu):
            assert torch.allclose(b.grad.cpu(), a.grad, rtol=1e-4, atol=1e-4), ("d" + label, (b.grad.cpu() - a.grad).abs().max())
    """))


def test_fused_infer_attention_score_v2_equals_the_cpu(run_npu):
    # npu_fused_infer_attention_score_v2 (aclnnFusedInferAttentionScoreV4, op_docs/derived: op-plugin passes
    # the learnable sink the corpus page's prototype lacks). The reference is the page's
    # Softmax(scale * Q K^T) V with its softmaxLse, logsumexp of the scaled scores, per row.
    run_npu(CHECK + textwrap.dedent("""
        r = torch.randn

        def lse(q, k, n, layout, scale, mask=None):
            d = q.shape[-1] // n if layout in ("BSH", "SBH") else q.shape[-1]
            Q, K = heads(q.float(), layout, d), heads(k.float(), layout, d)
            K = K.repeat_interleave(Q.shape[1] // K.shape[1], 1)
            s = scale * (Q @ K.transpose(-1, -2))
            return (s if mask is None else s.masked_fill(mask, -math.inf)).logsumexp(-1)

        # BSH, GQA (4 query heads on 2), a boolean mask, several query positions, with softmaxLse
        q, k, v = r(2, 5, 32).half(), r(2, 6, 16).half(), r(2, 6, 16).half()
        mask = torch.rand(5, 6) > 0.6
        mask[:, 0] = False
        out, got_lse = torch_npu.npu_fused_infer_attention_score_v2(
            q.npu(), k.npu(), v.npu(), atten_mask=mask.npu(), num_query_heads=4, num_key_value_heads=2,
            softmax_scale=0.3, input_layout="BSH", return_softmax_lse=True)
        assert out.shape == q.shape and out.dtype == q.dtype, (out.shape, out.dtype)
        assert torch.allclose(out.cpu().float(), attend(q, k, v, 4, "BSH", 0.3, mask), rtol=2e-3, atol=2e-3), "v2 BSH"
        want_lse = lse(q, k, 4, "BSH", 0.3, mask)
        assert got_lse.numel() == want_lse.numel(), got_lse.shape
        assert torch.allclose(got_lse.cpu().float().reshape(want_lse.shape), want_lse, rtol=1e-3, atol=1e-3), "v2 lse"
        # BNSD bfloat16, one query position per batch over its first actual_seq_kvlen keys (decode)
        q, k, v = r(2, 2, 1, 16).bfloat16(), r(2, 2, 7, 16).bfloat16(), r(2, 2, 7, 16).bfloat16()
        out, _ = torch_npu.npu_fused_infer_attention_score_v2(
            q.npu(), k.npu(), v.npu(), num_query_heads=2, softmax_scale=0.25, input_layout="BNSD",
            actual_seq_kvlen=[3, 7])
        for b, length in enumerate((3, 7)):
            want = attend(q[b:b + 1], k[b:b + 1, :, :length], v[b:b + 1, :, :length], 2, "BNSD", 0.25)
            assert torch.allclose(out[b:b + 1].cpu().float(), want, rtol=2e-2, atol=2e-2), ("v2 decode", b)
        # BNSD_BSND right-down causal (sparse_mode 3 with the 2048 x 2048 triangle)
        q, k, v = r(1, 2, 4, 8).half(), r(1, 2, 6, 8).half(), r(1, 2, 6, 8).half()
        out, _ = torch_npu.npu_fused_infer_attention_score_v2(
            q.npu(), k.npu(), v.npu(), atten_mask=TRIANGLE.npu(), num_query_heads=2, softmax_scale=0.3,
            input_layout="BNSD_BSND", sparse_mode=3)
        want = attend(q, k, v, 2, "BNSD", 0.3, band(4, 6, 2, 2 ** 31, 0)).transpose(1, 2)
        assert torch.allclose(out.cpu().float(), want, rtol=2e-3, atol=2e-3), "v2 BNSD_BSND"
        # The learnable sink: no page writes how it enters the softmax, so it is refused by name.
        try:
            torch_npu.npu_fused_infer_attention_score_v2(
                q.npu(), k.npu(), v.npu(), num_query_heads=2, softmax_scale=0.3, input_layout="BNSD",
                learnable_sink=torch.zeros(2, dtype=torch.bfloat16).npu())
        except RuntimeError as error:
            assert "learnableSinkOptional" in str(error), error
        else:
            raise AssertionError("learnable_sink was accepted")
    """))
