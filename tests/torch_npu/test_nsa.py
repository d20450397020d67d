"""torch_npu.npu_nsa_select_attention (op-plugin's aclnnNsaSelectedAttention, layout TND: the nsa_select
family) against its page's formula written here in PyTorch on the CPU: each query token's selected key and
value blocks gathered from its own sequence, softmax(scale * q K_sel^T) V_sel per query head, the
statistics [T, N, 8] the row's max and sum of exp(S - max); and what the page or torch_npu leave open or
exclude refused by name. And torch_npu.npu_nsa_select_attention_grad (aclnnNsaSelectedAttentionGrad, a derived
page) from the forward's statistics against CPU autograd of that formula. And torch_npu.npu_nsa_compress
(aclnnNsaCompress: the nsa_compress family) against its windows weighed and summed, written here, and
npu_nsa_compress_grad (aclnnNsaCompressGrad) against CPU autograd of that sum. And
torch_npu.npu_nsa_compress_attention_infer (aclnnNsaCompressAttentionInfer: the nsa_compress_attention family)
against its page's formula written here: paged compressed attention and the blocks its importance chooses."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


# reference(...) is the forward page's formula in double on the CPU; blocks(...) draws distinct blocks per token.
REFERENCE = """
    def reference(q, k, v, idx, scale, block, q_ends, kv_ends):
        # selected_key = Gather(key, topk_indices[i]): block i is rows i * block .. (i + 1) * block - 1 of
        # the token's own sequence; attention_out = Softmax(scale * (query @ selected_key^T)) @ selected_value.
        t_q, n = q.shape[0], q.shape[1]
        group = n // k.shape[1]
        starts = torch.zeros(t_q, dtype=torch.long)
        for b in range(len(q_ends)):
            starts[(q_ends[b - 1] if b else 0):q_ends[b]] = kv_ends[b - 1] if b else 0
        per_head = idx.long().repeat_interleave(group, 1)                              # [T, N, count]
        rows = (per_head.unsqueeze(-1) * block + torch.arange(block)).flatten(2)       # [T, N, count * block]
        rows = rows + starts.reshape(-1, 1, 1)
        heads = torch.arange(n).reshape(1, -1, 1) // group
        keys, values = k.double()[rows, heads], v.double()[rows, heads]                # [T, N, keys, D]
        s = scale * (keys @ q.double().unsqueeze(-1)).squeeze(-1)
        mx = s.amax(-1, keepdim=True)
        total = torch.exp(s - mx).sum(-1, keepdim=True)
        out = (torch.softmax(s, -1).unsqueeze(-2) @ values).squeeze(-2)
        return out, mx.expand(-1, -1, 8), total.expand(-1, -1, 8)

    def blocks(q_lens, kv_lens, kv_heads, block, count):
        q_ends = torch.tensor(q_lens).cumsum(0).tolist()
        idx = torch.empty(q_ends[-1], kv_heads, count, dtype=torch.int32)
        for b in range(len(q_lens)):
            for t in range(q_ends[b] - q_lens[b], q_ends[b]):
                for h in range(kv_heads):  # distinct blocks, in no particular order
                    idx[t, h] = torch.randperm(kv_lens[b] // block)[:count].int()
        return idx
"""


def test_nsa_select_attention_attends_to_the_selected_blocks(run_npu):
    run_npu(REFUSED_BY_NAME + REFERENCE + """
    cases = (
        # heads, kv heads, block, count, query lengths, key lengths
        (4, 2, 16, 2, [3, 2], [48, 32]),
        (2, 2, 64, 2, [2], [192]),
        (8, 1, 32, 3, [1, 2, 1], [96, 128, 96]),
    )
    for dtype, tolerance in ((torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        for heads, kv_heads, block, count, q_lens, kv_lens in cases:
            q_ends = torch.tensor(q_lens).cumsum(0).tolist()
            kv_ends = torch.tensor(kv_lens).cumsum(0).tolist()
            q = torch.randn(q_ends[-1], heads, 192).to(dtype)
            k = torch.randn(kv_ends[-1], kv_heads, 192).to(dtype)
            v = torch.randn(kv_ends[-1], kv_heads, 128).to(dtype)
            idx = blocks(q_lens, kv_lens, kv_heads, block, count)
            scale = 192 ** -0.5
            out, mx, total = torch_npu.npu_nsa_select_attention(
                q.npu(), k.npu(), v.npu(), idx.npu(), scale, heads, block, count,
                actual_seq_qlen=q_ends, actual_seq_kvlen=kv_ends)
            want, want_max, want_sum = reference(q, k, v, idx, scale, block, q_ends, kv_ends)
            assert out.dtype == dtype and out.shape == (q_ends[-1], heads, 128)
            assert torch.allclose(out.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, heads, block)
            assert mx.dtype == torch.float32 and mx.shape == (q_ends[-1], heads, 8)
            assert torch.allclose(mx.cpu().double(), want_max, rtol=1e-4, atol=1e-4)
            assert torch.allclose(total.cpu().double(), want_sum, rtol=1e-4, atol=1e-4)

    q = torch.randn(2, 2, 192, dtype=torch.float16).npu()
    k, v = torch.randn(64, 1, 192, dtype=torch.float16).npu(), torch.randn(64, 1, 128, dtype=torch.float16).npu()
    idx = torch.zeros(2, 1, 2, dtype=torch.int32)
    past = idx.clone()
    past[1, 0, 1] = 4
    def select(**kw):
        args = dict(query=q, key=k, value=v, topk_indices=idx.npu(), scale_value=0.1, head_num=2,
                    select_block_size=16, select_block_count=2, actual_seq_qlen=[2], actual_seq_kvlen=[64])
        args.update(kw)
        return lambda: torch_npu.npu_nsa_select_attention(**args)
    refused_by_name([
        (select(topk_indices=past.npu()), "topkIndices"),
        (select(atten_mask=torch.zeros(2, 64, dtype=torch.bool).npu()), "attenMaskOptional"),
        (select(select_block_size=24), "selectedBlockSize"),
        (select(select_block_size=64), "actualSeqKvLenOptional"),
        (select(head_num=4), "headNum"),
        (select(query=torch.randn(2, 2, 64, dtype=torch.float16).npu()), "192"),
        (select(actual_seq_qlen=[1], actual_seq_kvlen=[64]), "actualSeqQLenOptional"),
    ])
    """)


def test_nsa_select_attention_grad_is_the_forwards_adjoint(run_npu):
    run_npu(REFUSED_BY_NAME + REFERENCE + """
    cases = (
        # heads, kv heads, D_qk, D_v, block, count, query lengths, key lengths (a block chosen by several tokens)
        (4, 2, 192, 128, 16, 2, [3, 2], [48, 32]),
        (2, 1, 128, 128, 32, 3, [4], [96]),
    )
    for dtype, tolerance in ((torch.float16, 4e-3), (torch.bfloat16, 3e-2)):
        for heads, kv_heads, dqk, dv, block, count, q_lens, kv_lens in cases:
            q_ends = torch.tensor(q_lens).cumsum(0).tolist()
            kv_ends = torch.tensor(kv_lens).cumsum(0).tolist()
            q = torch.randn(q_ends[-1], heads, dqk).to(dtype)
            k = torch.randn(kv_ends[-1], kv_heads, dqk).to(dtype)
            v = torch.randn(kv_ends[-1], kv_heads, dv).to(dtype)
            grad = torch.randn(q_ends[-1], heads, dv).to(dtype)
            idx = blocks(q_lens, kv_lens, kv_heads, block, count)
            scale = dqk ** -0.5
            qd, kd, vd = (x.double().requires_grad_() for x in (q, k, v))
            out, mx, total = reference(qd, kd, vd, idx, scale, block, q_ends, kv_ends)
            out.backward(grad.double())
            # The forward's outputs as the gradient's inputs: computed on the CPU, in the dtypes op-plugin gives.
            dq, dk, dv_ = torch_npu.npu_nsa_select_attention_grad(
                grad.npu(), q.npu(), k.npu(), v.npu(), out.detach().to(dtype).npu(), mx.detach().float().npu(),
                total.detach().float().npu(), idx.npu(), scale, heads, block, count,
                actual_seq_qlen=q_ends, actual_seq_kvlen=kv_ends)
            for got, want, name in ((dq, qd.grad, "dq"), (dk, kd.grad, "dk"), (dv_, vd.grad, "dv")):
                assert got.dtype == dtype and got.shape == want.shape, name
                assert torch.allclose(got.cpu().double(), want, rtol=tolerance, atol=tolerance), (name, dtype, heads)

    q, k, v = (torch.randn(2, 2, 128, dtype=torch.float16).npu(), torch.randn(64, 1, 128, dtype=torch.float16).npu(),
               torch.randn(64, 1, 128, dtype=torch.float16).npu())
    stats = torch.ones(2, 2, 8).npu()
    idx = torch.zeros(2, 1, 2, dtype=torch.int32)
    past = idx.clone()
    past[0, 0, 0] = -1
    def grad_of(**kw):
        args = dict(grad=q, query=q, key=k, value=v, attention_out=q, softmax_max=stats, softmax_sum=stats,
                    topk_indices=idx.npu(), scale_value=0.1, head_num=2, select_block_size=16, select_block_count=2,
                    actual_seq_qlen=[2], actual_seq_kvlen=[64])
        args.update(kw)
        return lambda: torch_npu.npu_nsa_select_attention_grad(**args)
    refused_by_name([
        (grad_of(topk_indices=past.npu()), "topkIndices"),
        (grad_of(atten_mask=torch.zeros(2, 64, dtype=torch.bool).npu()), "attenMaskOptional"),
        (grad_of(softmax_max=torch.ones(2, 2, 1).npu()), "softmaxMax"),
        (grad_of(select_block_size=48), "actualSeqKvLenOptional"),
        (grad_of(query=torch.randn(2, 2, 64, dtype=torch.float16).npu()), "key"),
    ])
    """)


# compress(...) is NSA compression written from the pages, in the inputs' dtype (double for autograd).
COMPRESS = """
    def compress(x, w, ends, block, stride):
        # K_cmp = { phi(k[i*d : i*d+l]) | 0 <= i <= floor((s - l) / d) } per sequence, phi the window's rows
        # weighed per head by w [l, N] and summed (aclnnNsaCompressWithCache's input[...]*weight[:]).
        rows = []
        for start, end in zip([0] + ends[:-1], ends):
            first = start
            while first + block <= end:
                rows.append(torch.einsum("lnd,ln->nd", x[first:first + block], w))
                first += stride
        return torch.stack(rows)
"""


def test_nsa_compress_weighs_and_sums_each_window(run_npu):
    run_npu(REFUSED_BY_NAME + COMPRESS + """
    cases = (
        # heads, D, block, stride, sequence lengths (one shorter than a window: no row)
        (2, 32, 32, 16, [48, 32]),
        (4, 64, 64, 32, [200]),
        (1, 16, 16, 16, [5, 40, 17]),
        (3, 128, 48, 16, [100, 63]),
    )
    for dtype, tolerance in ((torch.float16, 1e-2), (torch.bfloat16, 6e-2)):
        for heads, dim, block, stride, lengths in cases:
            ends = torch.tensor(lengths).cumsum(0).tolist()
            x = torch.randn(ends[-1], heads, dim).to(dtype)
            w = (torch.randn(block, heads) / block ** 0.5).to(dtype)
            out = torch_npu.npu_nsa_compress(x.npu(), w.npu(), block, stride, actual_seq_len=ends)
            want = compress(x.double(), w.double(), ends, block, stride)
            assert out.dtype == dtype and out.shape == want.shape, (out.shape, want.shape)
            assert torch.allclose(out.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, heads, block)

    x, w = torch.randn(64, 2, 32, dtype=torch.float16).npu(), torch.randn(32, 2, dtype=torch.float16).npu()
    refused_by_name([
        (lambda: torch_npu.npu_nsa_compress(x, torch.randn(32, 3, dtype=torch.float16).npu(), 32, 16, actual_seq_len=[64]),
         "weight"),
        (lambda: torch_npu.npu_nsa_compress(x, w[:24], 24, 16, actual_seq_len=[64]), "compressBlockSize"),
        # The page's compressBlockSize>=compressStride (a rule phase 1 reads from its 约束说明).
        (lambda: torch_npu.npu_nsa_compress(x, w, 32, 48, actual_seq_len=[64]), "aclnnNsaCompress.md:301"),
        (lambda: torch_npu.npu_nsa_compress(x, w, 32, 16, actual_seq_len=[40, 60]), "actSeqLenOptional"),
    ])
    """)


def test_nsa_compress_grad_is_the_window_sums_gradient(run_npu):
    run_npu(REFUSED_BY_NAME + COMPRESS + """
    for dtype, tolerance in ((torch.float16, 1e-2), (torch.bfloat16, 6e-2)):
        # heads, D, block, stride (overlapping windows and rows no window covers), sequence lengths
        for heads, dim, block, stride, lengths in ((2, 32, 32, 16, [48, 40]), (3, 64, 48, 32, [130, 20, 90])):
            ends = torch.tensor(lengths).cumsum(0).tolist()
            x = torch.randn(ends[-1], heads, dim).to(dtype)
            w = (torch.randn(block, heads) / block ** 0.5).to(dtype)
            xd, wd = x.double().requires_grad_(), w.double().requires_grad_()
            out = compress(xd, wd, ends, block, stride)
            grad = torch.randn(out.shape).to(dtype)
            out.backward(grad.double())
            dx, dw = torch_npu.npu_nsa_compress_grad(grad.npu(), x.npu(), w.npu(), block, stride, actual_seq_len=ends)
            assert dx.dtype == dtype and dx.shape == x.shape and dw.shape == w.shape
            assert torch.allclose(dx.cpu().double(), xd.grad, rtol=tolerance, atol=tolerance), (dtype, heads)
            # weight's gradient sums over every window and D: relative to its size.
            assert torch.allclose(dw.cpu().double(), wd.grad, rtol=tolerance, atol=tolerance * wd.grad.abs().max()), (dtype, heads)

    x, w = torch.randn(64, 2, 32, dtype=torch.float16).npu(), torch.randn(32, 2, dtype=torch.float16).npu()
    refused_by_name([
        (lambda: torch_npu.npu_nsa_compress_grad(torch.randn(2, 2, 32, dtype=torch.float16).npu(), x, w, 32, 16,
                                                 actual_seq_len=[64]), "outputGrad"),
        (lambda: torch_npu.npu_nsa_compress_grad(torch.randn(3, 2, 32, dtype=torch.float16).npu(), x, w, 32, 16,
                                                 actual_seq_len=[40, 60]), "actSeqLenOptional"),
    ])
    """)


# compress_into(...) is aclnnNsaCompressWithCache's algorithm as its op's README states it, on the CPU in double:
# a batch whose s tokens have just filled a window (s >= block, (s - block) % stride == 0) writes that window's
# weighed sum into the cache row slot_mapping names; the other rows stay as they were.
COMPRESS_INTO = """
    def compress_into(cache, x, w, slots, lengths, block, stride, table=None):
        cache = cache.double().clone()
        first = 0
        for b, s in enumerate(lengths):
            start, first = first, first + s
            if s < block or (s - block) % stride:
                continue
            if table is None:
                window = x.double()[start + s - block:start + s]
            else:
                page = x.shape[1]
                window = torch.stack([x.double()[table[b, p // page], p % page] for p in range(s - block, s)])
            cache[slots[b]] = (window * w.double().unsqueeze(-1)).sum(0)
        return cache
"""


def test_nsa_compress_infer_writes_each_filled_window_into_the_cache(run_npu):
    # npu_nsa_compress_infer.cache (aclnnNsaCompressWithCache, actSeqLenType 1: each batch's token count).
    run_npu(REFUSED_BY_NAME + COMPRESS_INTO + """
    cases = (
        # heads, D, block, stride, page, lengths (50 and 33 fill no window: their slots keep the cache's row)
        (4, 32, 32, 16, 64, [48, 96, 50]),
        (2, 64, 64, 32, 128, [64, 160, 33]),
        (1, 16, 16, 16, 64, [16, 128]),
    )
    for dtype, tolerance in ((torch.float16, 1e-2), (torch.bfloat16, 6e-2)):
        for heads, dim, block, stride, page, lengths in cases:
            batches, per_batch = len(lengths), max(-(-s // page) for s in lengths)
            blocks = batches * per_batch + 1
            x = torch.randn(blocks, page, heads, dim).to(dtype)
            w = (torch.randn(block, heads) / block ** 0.5).to(dtype)
            table = torch.randperm(blocks)[:batches * per_batch].reshape(batches, per_batch).int()
            slots = torch.randperm(batches + 2)[:batches].int()
            cache = torch.randn(batches + 2, heads, dim).to(dtype)
            want = compress_into(cache, x, w, slots.tolist(), lengths, block, stride, table.long())
            got = cache.npu()
            out = torch_npu.npu_nsa_compress_infer(x.npu(), w.npu(), slots.npu(), block, stride, page,
                                                   block_table=table.npu(), actual_seq_len=lengths, cache=got)
            assert out.data_ptr() == got.data_ptr() and out.dtype == dtype
            assert torch.allclose(got.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, heads, block)
        # Without a block table: the packed TND tokens, each batch's after the previous one's. The page's
        # relation "input的第三维大小与weight的第二维大小相等" (written for the paged [blocks, P, N, D]) holds for
        # [T, N, D] only where D = N: phase 1 enforces it as read (refused below).
        lengths = [48, 40, 80]
        x = torch.randn(sum(lengths), 16, 16).to(dtype)
        w = (torch.randn(32, 16) / 32 ** 0.5).to(dtype)
        cache = torch.randn(4, 16, 16).to(dtype)
        slots = torch.tensor([3, 1, 0], dtype=torch.int32)
        got = cache.npu()
        torch_npu.npu_nsa_compress_infer(x.npu(), w.npu(), slots.npu(), 32, 16, 64, actual_seq_len=lengths, cache=got)
        want = compress_into(cache, x, w, slots.tolist(), lengths, 32, 16)
        assert torch.allclose(got.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, "TND")

    x, w = torch.randn(3, 64, 2, 32, dtype=torch.float16).npu(), torch.randn(32, 2, dtype=torch.float16).npu()
    table, cache = torch.tensor([[0], [2]], dtype=torch.int32).npu(), torch.zeros(4, 2, 32, dtype=torch.float16).npu()
    def infer(**kw):
        args = dict(input=x, weight=w, slot_mapping=torch.tensor([0, 1], dtype=torch.int32).npu(), compress_block_size=32,
                    compress_stride=16, page_block_size=64, block_table=table, actual_seq_len=[48, 64], cache=cache)
        args.update(kw)
        return lambda: torch_npu.npu_nsa_compress_infer(**args)
    refused_by_name([
        (infer(slot_mapping=torch.tensor([2, 2], dtype=torch.int32).npu()), "slotMapping"),
        (infer(slot_mapping=torch.tensor([0, 4], dtype=torch.int32).npu()), "slotMapping"),
        (infer(block_table=torch.tensor([[0], [3]], dtype=torch.int32).npu()), "blockTableOptional"),
        (infer(actual_seq_len=[48, 80]), "actSeqLenOptional"),
        (infer(page_block_size=128), "pageBlockSize"),
        (infer(cache=torch.zeros(4, 2, 32, dtype=torch.bfloat16).npu()), "outputCache"),
        (infer(input=torch.randn(112, 2, 32, dtype=torch.float16).npu(), block_table=None),
         "aclnnNsaCompressWithCache.md:88"),
    ])
    """)


# compress_attention(...) is aclnnNsaCompressAttentionInfer's formula in double on the CPU, per batch (one query token):
# P_cmp = softmax(scale q K^T) over the batch's compressed keys read through its block table, out = P_cmp V, and per
# key/value head P_slc'[j] = sum over its group's heads of sum over m < l'/d, i < l/d of P_cmp[l'/d * j - m - i] (an
# index below 0 adds nothing), j < ceil(C / (l'/d)); topk the count highest, highest first.
COMPRESS_ATTENTION = """
    def compress_attention(q, k, v, table, lengths, heads, kv_heads, sel_block, count, cmp_block, stride, scale):
        page, group, ratio, span = k.shape[1], heads // kv_heads, sel_block // stride, cmp_block // stride
        q = q.double().reshape(q.shape[0], heads, -1)
        dqk = q.shape[-1]
        out, chosen, importances = [], [], []
        for b, c in enumerate(lengths):
            rows = (table[b].long().repeat_interleave(page) * page + torch.arange(page).repeat(table.shape[1]))[:c]
            keys = k.double().reshape(-1, kv_heads, dqk)[rows]                       # [C, N_kv, D]
            values = v.double().reshape(k.shape[0] * page, kv_heads, -1)[rows]
            keys, values = keys.repeat_interleave(group, 1), values.repeat_interleave(group, 1)  # [C, N, D]
            p = torch.softmax(scale * torch.einsum("nd,cnd->nc", q[b], keys), -1)    # [N, C]
            out.append(torch.einsum("nc,cnd->nd", p, values))
            blocks = -(-c // ratio)
            # P_slc as a correlation: a window of ratio + span - 1 taps, tap r counted by the pairs m + i = r.
            taps = torch.tensor([sum(1 for m in range(ratio) for i in range(span) if m + i == r)
                                 for r in range(ratio + span - 1)], dtype=torch.float64)
            padded = torch.cat([torch.zeros(heads, ratio + span - 2, dtype=torch.float64), p], -1)
            slc = torch.stack([(padded[:, ratio * j: ratio * j + ratio + span - 1] * taps.flip(0)).sum(-1)
                               for j in range(blocks)], -1)                         # [N, blocks]
            grouped = slc.reshape(kv_heads, group, blocks).sum(1)
            importances.append(grouped)
            chosen.append(grouped.topk(count, -1).indices.int())
        return torch.stack(out), torch.stack(chosen), importances
"""


def test_nsa_compress_attention_infer_attends_and_chooses_blocks(run_npu):
    # npu_nsa_compress_attention_infer (aclnnNsaCompressAttentionInfer, sparse_mode 0, paged keys and values).
    run_npu(REFUSED_BY_NAME + COMPRESS_ATTENTION + """
    cases = (
        # heads, kv heads, D_qk, D_v, page, select block, count, compress block, stride, compressed lengths
        (4, 2, 32, 16, 16, 64, 4, 32, 16, [40, 33]),
        (8, 1, 64, 64, 32, 32, 2, 32, 16, [17]),
        (2, 2, 192, 128, 128, 64, 3, 16, 16, [129, 12, 64]),
        (16, 4, 48, 32, 64, 128, 5, 64, 32, [90, 77]),
    )
    for dtype, tolerance in ((torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        for heads, kv_heads, dqk, dv, page, sel, count, cmp, stride, lengths in cases:
            batches, per_batch = len(lengths), max(-(-c // page) for c in lengths)
            blocks = batches * per_batch + 1
            q = torch.randn(batches, heads, dqk).to(dtype)
            k = torch.randn(blocks, page, kv_heads * dqk).to(dtype)
            v = torch.randn(blocks, page, kv_heads * dv).to(dtype)
            table = torch.randperm(blocks)[:batches * per_batch].reshape(batches, per_batch).int()
            scale = dqk ** -0.5
            want, want_idx, importances = compress_attention(q, k, v, table, lengths, heads, kv_heads, sel, count,
                                                             cmp, stride, scale)
            for layout in ("TND", "BSND"):
                query = q if layout == "TND" else q.unsqueeze(1)
                out, idx = torch_npu.npu_nsa_compress_attention_infer(
                    query.npu(), k.npu(), v.npu(), scale, heads, kv_heads, sel, count, page, cmp, stride,
                    layout=layout, block_table=table.npu(), actual_cmp_seq_kvlen=lengths)
                out, idx = out.cpu().reshape(batches, heads, dv), idx.cpu().reshape(batches, kv_heads, count)
                assert out.dtype == dtype and idx.dtype == torch.int32
                assert torch.allclose(out.double(), want, rtol=tolerance, atol=tolerance), (dtype, heads, layout)
                # The chosen blocks, highest importance first: the simulator reads the same rounded inputs, so its
                # importances differ from these by float's rounding of the scores alone; where two of the ranks
                # that decide the choice lie closer than that, only the order of what it chose is checked.
                for b in range(batches):
                    for h in range(kv_heads):
                        ranked = importances[b][h].sort(descending=True).values[:count + 1]
                        got = importances[b][h][idx[b, h].long()]
                        assert bool((got[:-1] >= got[1:] - 1e-9).all()), (b, h, idx[b, h])  # highest first
                        if bool((ranked[:-1] - ranked[1:] > 1e-9).all()):
                            assert idx[b, h].tolist() == want_idx[b, h].tolist(), (dtype, heads, layout, b, h)

    # A tie among the chosen blocks: equal keys make every full block's importance the same.
    q = torch.randn(1, 2, 32, dtype=torch.float16).npu()
    k, v = torch.ones(2, 16, 32, dtype=torch.float16).npu(), torch.randn(2, 16, 16, dtype=torch.float16).npu()
    table = torch.tensor([[0, 1]], dtype=torch.int32).npu()
    def infer(**kw):
        args = dict(query=torch.randn(1, 2, 32, dtype=torch.float16).npu(), key=torch.randn(2, 16, 32, dtype=torch.float16).npu(),
                    value=v, scale_value=0.2, head_num=2, key_value_head_num=1, select_block_size=32,
                    select_block_count=2, page_block_size=16, compress_block_size=32, compress_stride=16,
                    block_table=table, actual_cmp_seq_kvlen=[32])
        args.update(kw)
        return lambda: torch_npu.npu_nsa_compress_attention_infer(**args)
    refused_by_name([
        (infer(query=q, key=k), "equal importance"),
        (infer(block_table=torch.tensor([[0, 2]], dtype=torch.int32).npu()), "blockTableOptional"),
        (infer(actual_cmp_seq_kvlen=[33]), "actualCmpKvSeqLenOptional"),
        (infer(select_block_count=17), "selectBlockCount"),
        (infer(atten_mask=torch.zeros(1, 32, dtype=torch.bool).npu()), "attentionMaskOptional"),
        (infer(topk_mask=torch.zeros(1, 32, dtype=torch.bool).npu()), "topKMaskOptional"),
        (infer(actual_seq_qlen=[1]), "actualQSeqLenOptional"),
        (infer(actual_sel_seq_kvlen=[528]), "actualSelKvSeqLenOptional"),
        (infer(compress_stride=24), "compressBlockStride"),
        (infer(select_block_size=16), "selectBlockSize"),
        (infer(key_value_head_num=3), "numKeyValueHeads"),
        (infer(query=torch.randn(1, 2, 2, 32, dtype=torch.float16).npu(), layout="BSND"), "query"),
    ])
    """)


# compress_attention_train(...) is aclnnNsaCompressAttention's formula in double on the CPU, TND: per sequence and
# query token, attention = softmax(scale q K^T, the mask's true positions removed) V over the sequence's compressed
# keys, the statistics that softmax's max and sum; P_cmp = softmax(q K^T) unscaled and unmasked, as the page writes
# it, and the importances and topk as the inference form's.
COMPRESS_ATTENTION_TRAIN = """
    def compress_attention_train(q, k, v, mask, q_lens, kv_lens, scale, cmp_block, stride, sel_block, count):
        heads, kv_heads = q.shape[1], k.shape[1]
        group, ratio, span = heads // kv_heads, sel_block // stride, cmp_block // stride
        out, mx, total, chosen, importances = [], [], [], [], []
        q0 = k0 = 0
        for sq, sk in zip(q_lens, kv_lens):
            qs = q[q0:q0 + sq].double()
            ks = k[k0:k0 + sk].double().repeat_interleave(group, 1)                  # [sk, N, D]
            vs = v[k0:k0 + sk].double().repeat_interleave(group, 1)
            raw = torch.einsum("tnd,knd->tnk", qs, ks)                               # [sq, N, sk]
            s = scale * raw
            if mask is not None:
                s = s.masked_fill(mask[:sq, :sk].unsqueeze(1), float("-inf"))
            m = s.amax(-1, keepdim=True)
            out.append(torch.einsum("tnk,knd->tnd", torch.softmax(s, -1), vs))
            mx.append(m.expand(-1, -1, 8))
            total.append(torch.exp(s - m).sum(-1, keepdim=True).expand(-1, -1, 8))
            p = torch.softmax(raw, -1)
            blocks = -(-sk // ratio)
            taps = torch.zeros(ratio + span - 1, dtype=torch.float64)
            for a in range(ratio):
                for c in range(span):
                    taps[a + c] += 1
            padded = torch.cat([torch.zeros(sq, heads, ratio + span - 2, dtype=torch.float64), p], -1)
            slc = torch.stack([(padded[..., ratio * j: ratio * j + ratio + span - 1] * taps.flip(0)).sum(-1)
                               for j in range(blocks)], -1)                         # [sq, N, blocks]
            grouped = slc.reshape(sq, kv_heads, group, blocks).sum(2)
            importances.extend(grouped)
            chosen.append(grouped.topk(count, -1).indices.int())
            q0, k0 = q0 + sq, k0 + sk
        cat = lambda xs: torch.cat(xs)
        return cat(out), cat(chosen), cat(mx), cat(total), importances
"""


def test_nsa_compress_attention_attends_and_chooses_blocks(run_npu):
    # npu_nsa_compress_attention (aclnnNsaCompressAttention, TND, sparse_mode 1).
    run_npu(REFUSED_BY_NAME + COMPRESS_ATTENTION_TRAIN + """
    cases = (
        # heads, kv heads, D, D_v, compress block, stride, select block, count, query lengths, compressed lengths
        (4, 2, 32, 16, 32, 16, 64, 4, [2, 4], [20, 30]),
        (8, 1, 64, 64, 32, 16, 64, 2, [3], [9]),
        (2, 2, 192, 128, 16, 16, 32, 3, [2, 1, 2], [64, 7, 33]),
        (16, 4, 48, 32, 64, 32, 128, 5, [1, 3], [77, 90]),
    )
    for dtype, tolerance in ((torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        for heads, kv_heads, d, dv, cmp, stride, sel, count, q_lens, kv_lens in cases:
            ratio = sel // stride
            q = torch.randn(sum(q_lens), heads, d).to(dtype)
            k = torch.randn(sum(kv_lens), kv_heads, d).to(dtype)
            v = torch.randn(sum(kv_lens), kv_heads, dv).to(dtype)
            scale = d ** -0.5
            q_ends = torch.tensor(q_lens).cumsum(0).tolist()
            kv_ends = torch.tensor(kv_lens).cumsum(0).tolist()
            sel_ends = torch.tensor([-(-n // ratio) for n in kv_lens]).cumsum(0).tolist()
            for masked in (False, True):
                mask = None
                if masked:  # true: not attended; every row keeps its first key
                    mask = torch.rand(max(q_lens), max(kv_lens)) < 0.4
                    mask[:, 0] = False
                want, want_idx, want_max, want_sum, importances = compress_attention_train(
                    q, k, v, mask, q_lens, kv_lens, scale, cmp, stride, sel, count)
                out, idx, mx, total = torch_npu.npu_nsa_compress_attention(
                    q.npu(), k.npu(), v.npu(), scale, heads, cmp, stride, sel, count,
                    atten_mask=None if mask is None else mask.npu(), actual_seq_qlen=q_ends,
                    actual_cmp_seq_kvlen=kv_ends, actual_sel_seq_kvlen=sel_ends)
                out, idx, mx, total = out.cpu(), idx.cpu(), mx.cpu(), total.cpu()
                assert out.dtype == dtype and out.shape == (q.shape[0], heads, dv)
                assert idx.dtype == torch.int32 and idx.shape == (q.shape[0], kv_heads, count)
                assert torch.allclose(out.double(), want, rtol=tolerance, atol=tolerance), (dtype, heads, masked)
                assert mx.dtype == torch.float32 and mx.shape == (q.shape[0], heads, 8)
                assert torch.allclose(mx.double(), want_max, rtol=1e-4, atol=1e-4)
                assert torch.allclose(total.double(), want_sum, rtol=1e-4, atol=1e-4)
                # As the inference form's: the order checked always, the choice where no near-tie decides it.
                for t in range(q.shape[0]):
                    for h in range(kv_heads):
                        ranked = importances[t][h].sort(descending=True).values[:count + 1]
                        got = importances[t][h][idx[t, h].long()]
                        assert bool((got[:-1] >= got[1:] - 1e-9).all()), (t, h, idx[t, h])
                        if bool((ranked[:-1] - ranked[1:] > 1e-9).all()):
                            assert idx[t, h].tolist() == want_idx[t, h].tolist(), (dtype, heads, masked, t, h)

    q = torch.randn(3, 2, 32, dtype=torch.float16).npu()
    k, v = torch.randn(8, 1, 32, dtype=torch.float16).npu(), torch.randn(8, 1, 16, dtype=torch.float16).npu()
    def train(**kw):
        args = dict(query=q, key=k, value=v, scale_value=0.2, head_num=2, compress_block_size=32, compress_stride=16,
                    select_block_size=32, select_block_count=2, actual_seq_qlen=[3], actual_cmp_seq_kvlen=[8],
                    actual_sel_seq_kvlen=[4])
        args.update(kw)
        return lambda: torch_npu.npu_nsa_compress_attention(**args)
    empty_row = torch.zeros(3, 8, dtype=torch.bool)
    empty_row[1] = True
    refused_by_name([
        (train(key=torch.ones(8, 1, 32, dtype=torch.float16).npu()), "equal importance"),
        (train(atten_mask=empty_row.npu()), "removes every key"),
        (train(atten_mask=torch.zeros(3, 9, dtype=torch.bool).npu()), "attenMaskOptional"),
        (train(topk_mask=torch.zeros(3, 4, dtype=torch.bool).npu()), "topkMaskOptional"),
        (train(actual_sel_seq_kvlen=[3]), "actualSelSeqKvLenOptional"),
        (train(select_block_count=5), "selectBlockCount"),
        (train(compress_block_size=24), "compressBlockSize"),
        (train(head_num=4), "headNum"),
        (train(actual_seq_qlen=[2]), "actualSeqQLenOptional"),
    ])
    """)
