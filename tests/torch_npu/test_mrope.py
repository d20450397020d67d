"""torch_npu.npu_mrope on device="npu" (op-plugin's aclnnRopeWithSinCosCache where the library has no V2: the
rope_cache family, a derived page) against its README's formulas written here in PyTorch on the CPU, in double:
cos and sin the halves of cos_sin_cache's row at each token's position (mrope: section s of them from positions'
row s), each head's first rotary_dim elements rotated, rotate_half over the halves or rotate_interleaved over the
even and odd elements, the rest of the head kept; and the README's constraints refused by name. And npu_dequant_rope_quant_kvcache (aclnnDequantRopeQuantKvcache, a
derived page that binds without a kernel) refused by name rather than computed from formulas its README leaves out."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_npu_mrope_follows_its_readme(run_npu):
    run_npu("""
    def reference(positions, query, key, cache, head_size, sections, mode):
        rotary = cache.shape[1]
        half = rotary // 2
        cos_sin = cache.double()[positions.long()]
        cos, sin = cos_sin[..., :half], cos_sin[..., half:]
        if positions.dim() == 2:
            b = [0, sections[0], sections[0] + sections[1], half]
            cos = torch.cat([cos[s, :, b[s]:b[s + 1]] for s in range(3)], -1)
            sin = torch.cat([sin[s, :, b[s]:b[s + 1]] for s in range(3)], -1)
        out = []
        for x in (query, key):
            heads = x.double().reshape(x.shape[0], -1, head_size).clone()
            rot = heads[..., :rotary]
            c, s = cos[:, None, :], sin[:, None, :]
            if mode == "half":
                x1, x2 = rot[..., :half], rot[..., half:]
                heads[..., :rotary] = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), -1)
            else:
                x1, x2 = rot[..., ::2], rot[..., 1::2]
                heads[..., :rotary] = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), -1).flatten(-2)
            out.append(heads.reshape(x.shape))
        return out

    g = torch.Generator().manual_seed(5)
    for dtype, tolerance in ((torch.float32, 1e-5), (torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        for tokens, q_heads, k_heads, head_size, rotary, sections in (
                (5, 4, 2, 64, 64, None), (3, 2, 1, 128, 64, [8, 12, 12]), (6, 1, 1, 64, 32, [16, 0, 0]),
                (4, 3, 3, 128, 128, [16, 24, 24])):
            if dtype == torch.float32 and rotary % 16:
                continue
            max_seq = 10
            query = torch.randn(tokens, q_heads * head_size, generator=g).to(dtype)
            key = torch.randn(tokens, k_heads * head_size, generator=g).to(dtype)
            cache = torch.randn(max_seq, rotary, generator=g).to(dtype)
            shape = (tokens,) if sections is None else (3, tokens)
            for index_dtype in (torch.int64, torch.int32):
                positions = torch.randint(0, max_seq, shape, generator=g).to(index_dtype)
                for mode in ("half", "interleave"):
                    want_q, want_k = reference(positions, query, key, cache, head_size, sections, mode)
                    q, k = torch_npu.npu_mrope(positions.npu(), query.npu(), key.npu(), cache.npu(), head_size,
                                               mrope_section=sections, rotary_mode=mode)
                    assert q.dtype == dtype and k.dtype == dtype and q.shape == query.shape and k.shape == key.shape
                    assert torch.allclose(q.cpu().double(), want_q, rtol=tolerance, atol=tolerance), (dtype, tokens, mode)
                    assert torch.allclose(k.cpu().double(), want_k, rtol=tolerance, atol=tolerance), (dtype, tokens, mode)
    # non-contiguous inputs: a query sliced out of a fused qkv projection
    qkv = torch.randn(4, 3 * 128, generator=g)
    query, key = qkv[:, :128], qkv[:, 128:256]
    cache, positions = torch.randn(6, 64, generator=g), torch.tensor([0, 5, 2, 2])
    want_q, want_k = reference(positions, query, key, cache, 64, None, "half")
    q, k = torch_npu.npu_mrope(positions.npu(), qkv.npu()[:, :128], qkv.npu()[:, 128:256], cache.npu(), 64)
    assert torch.allclose(q.cpu().double(), want_q, rtol=1e-5, atol=1e-5)
    assert torch.allclose(k.cpu().double(), want_k, rtol=1e-5, atol=1e-5)
    """)


def test_npu_mrope_refuses_what_its_readme_excludes_by_name(run_npu):
    run_npu(REFUSED_BY_NAME + """
    query, key, cache = torch.randn(4, 128).npu(), torch.randn(4, 64).npu(), torch.randn(8, 64).npu()
    positions = torch.tensor([0, 1, 2, 3]).npu()
    calls = [
        # a position past cos_sin_cache's rows (device data: the README's out-of-range error)
        (lambda: torch_npu.npu_mrope(torch.tensor([0, 1, 8, 3]).npu(), query, key, cache, 64), "positions"),
        (lambda: torch_npu.npu_mrope(torch.tensor([0, -1, 2, 3]).npu(), query, key, cache, 64), "positions"),
        # mrope sections that do not sum to rotary_dim / 2
        (lambda: torch_npu.npu_mrope(positions.repeat(3, 1), query, key, cache, 64, mrope_section=[8, 8, 8]),
         "mropeSection"),
        # head sizes and rotary dims outside the README's bounds
        (lambda: torch_npu.npu_mrope(positions, torch.randn(4, 24).npu(), torch.randn(4, 24).npu(),
                                     torch.randn(8, 16).npu(), 8), "headSize"),
        (lambda: torch_npu.npu_mrope(positions, query, key, torch.randn(8, 128).npu(), 64), "cosSinCache"),
        (lambda: torch_npu.npu_mrope(positions, torch.randn(4, 100).npu(), key, cache, 64), "queryIn"),
    ]
    refused_by_name(calls)
    """)


def test_npu_dequant_rope_quant_kvcache_is_refused_by_name(run_npu):
    # op-plugin's call reaches the derived page's API (phase 1 passes), and the stream answers 561003 naming it:
    # the README names Dequant, ApplyRotaryPosEmb and Quant without their formulas; the caches are left as given.
    run_npu(REFUSED_BY_NAME + """
    b, s, n, d = 2, 1, 1, 64
    x = torch.randint(-100, 100, (b, s, 3 * n * d), dtype=torch.int32).npu()
    cos, sin = torch.randn(b, s, 1, d).half().npu(), torch.randn(b, s, 1, d).half().npu()
    k_cache, v_cache = torch.zeros(b, 4, n, d, dtype=torch.int8).npu(), torch.zeros(b, 4, n, d, dtype=torch.int8).npu()
    scale = torch.ones(n * d).npu()
    call = lambda: torch_npu.npu_dequant_rope_quant_kvcache(
        x, cos, sin, k_cache, v_cache, torch.zeros(b, dtype=torch.int32).npu(), scale, scale, [n * d] * 3,
        weight_scale=torch.ones(3 * n * d).npu(), kv_output=True)
    refused_by_name([(call, ["aclnnDequantRopeQuantKvcache", "not simulated"])])
    assert not k_cache.cpu().any() and not v_cache.cpu().any()
    """)
