"""torch_npu.npu_moe_token_permute / npu_moe_token_unpermute and their backward on device="npu"
(aclnnMoeTokenPermute, aclnnMoeTokenUnpermute and their Grad APIs, derived pages: the moe_token family)
against their READMEs' formulas written here element by element on the CPU: the (token, slot) pairs
sorted by expert, stably, sorted_indices each pair's permuted row; a token's rows gathered back and
weighed by probs; the gradients of both, called directly and through autograd. And what the pages
exclude refused by name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

# The formulas, pair by pair in plain Python over torch tensors.
REFERENCES = """
    def permute_reference(tokens, indices, num_out_tokens):
        top_k = 1 if indices.dim() == 1 else indices.shape[1]
        experts = indices.flatten().tolist()
        order = sorted(range(len(experts)), key=lambda q: (experts[q], q))
        rank = [0] * len(experts)
        for r, q in enumerate(order):
            rank[q] = r
        kept = min(num_out_tokens, len(experts)) if num_out_tokens > 0 else len(experts) + num_out_tokens
        rows = [tokens[q // top_k] for q in order[:kept]]
        return (torch.stack(rows) if rows else tokens[:0]), torch.tensor(rank, dtype=torch.int32)

    def unpermute_reference(permuted, sorted_indices, probs):
        top_k = 1 if probs is None else probs.shape[1]
        idx = sorted_indices.tolist()
        out = torch.zeros(len(idx) // top_k, permuted.shape[1])
        for q, row in enumerate(idx):
            out[q // top_k] += permuted[row].float() * (1.0 if probs is None else float(probs[q // top_k, q % top_k]))
        return out

    def permute_grad_reference(grad, sorted_indices, top_k):
        return unpermute_reference(grad, sorted_indices, torch.ones(sorted_indices.numel() // top_k, top_k))

    def unpermute_grad_reference(permuted, grad, sorted_indices, probs):
        top_k = 1 if probs is None else probs.shape[1]
        permuted_grad = torch.zeros(permuted.shape[0], grad.shape[1])
        probs_grad = torch.zeros(grad.shape[0], top_k)
        for q, row in enumerate(sorted_indices.tolist()):
            t, k = q // top_k, q % top_k
            permuted_grad[row] = grad[t].float() * (1.0 if probs is None else float(probs[t, k]))
            probs_grad[t, k] = (grad[t].float() * permuted[row].float()).sum()
        return permuted_grad, probs_grad

    def close(got, want, dtype):
        tolerance = 1e-5 if dtype == torch.float32 else 2e-2
        return got.dtype == dtype and torch.allclose(got.cpu().float(), want.float(), rtol=tolerance, atol=tolerance)
"""


def test_moe_token_permute_and_unpermute_equal_their_readme_formulas(run_npu):
    # Experts repeated within a token and across tokens, some with no token; 1-D indices (topK 1); rows
    # dropped by a positive and a negative num_out_tokens; int32 and int64 indices; no tokens.
    run_npu(REFERENCES + """
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for tokens_num, top_k, experts, hidden in ((6, 2, 5, 4), (5, 3, 8, 3), (7, 0, 4, 2), (0, 2, 3, 4)):
            tokens = torch.randn(tokens_num, hidden).to(dtype)
            shape = (tokens_num,) if top_k == 0 else (tokens_num, top_k)
            for index_dtype in (torch.int64, torch.int32):
                indices = torch.randint(0, experts, shape, dtype=index_dtype)
                pairs = indices.numel()
                for num_out_tokens in (None, 0, 4, -2, pairs + 3):
                    if num_out_tokens is not None and num_out_tokens < -pairs:
                        continue
                    permuted, sorted_indices = torch_npu.npu_moe_token_permute(tokens.npu(), indices.npu(), num_out_tokens)
                    want_rows, want_indices = permute_reference(tokens, indices, num_out_tokens or 0)
                    assert torch.equal(sorted_indices.cpu(), want_indices), (shape, sorted_indices, want_indices)
                    assert permuted.dtype == dtype and torch.equal(permuted.cpu(), want_rows), (shape, num_out_tokens)
                permuted, sorted_indices = torch_npu.npu_moe_token_permute(tokens.npu(), indices.npu())
                probs = torch.rand(tokens_num, max(top_k, 1)).to(dtype)
                for weights in ((probs, None) if top_k <= 1 else (probs,)):
                    got = torch_npu.npu_moe_token_unpermute(
                        permuted, sorted_indices, probs=None if weights is None else weights.npu())
                    want = unpermute_reference(permuted.cpu(), sorted_indices.cpu(), weights)
                    assert close(got, want, dtype), (dtype, shape, weights is None)
    """)


def test_moe_token_gradients_equal_their_readme_formulas(run_npu):
    # The Grad APIs called directly, and through autograd: tokens -> permute -> unpermute(probs) -> a
    # weighted sum, against the same chain written with CPU autograd over index operations.
    run_npu(REFERENCES + """
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        tokens_num, top_k, experts, hidden = 6, 3, 4, 5
        tokens = torch.randn(tokens_num, hidden).to(dtype)
        indices = torch.randint(0, experts, (tokens_num, top_k))
        probs = torch.rand(tokens_num, top_k).to(dtype)
        permuted, sorted_indices = torch_npu.npu_moe_token_permute(tokens.npu(), indices.npu())
        grad_permuted = torch.randn(tokens_num * top_k, hidden).to(dtype)
        got = torch_npu.npu_moe_token_permute_grad(tokens.npu(), grad_permuted.npu(), indices.npu(), sorted_indices)
        assert close(got, permute_grad_reference(grad_permuted, sorted_indices.cpu(), top_k), dtype), dtype
        grad_out = torch.randn(tokens_num, hidden).to(dtype)
        got_permuted, got_probs = torch_npu.npu_moe_token_unpermute_grad(
            permuted, grad_out.npu(), sorted_indices, probs=probs.npu())
        want_permuted, want_probs = unpermute_grad_reference(permuted.cpu(), grad_out, sorted_indices.cpu(), probs)
        assert close(got_permuted, want_permuted, dtype) and close(got_probs, want_probs, dtype), dtype
        # Without probs (topK 1): the gradient scattered back, no probs gradient read.
        one, sorted_one = torch_npu.npu_moe_token_permute(tokens.npu(), indices[:, 0].npu())
        got_permuted = torch_npu.npu_moe_token_unpermute_grad(one, grad_out.npu(), sorted_one)[0]
        assert close(got_permuted, unpermute_grad_reference(one.cpu(), grad_out, sorted_one.cpu(), None)[0], dtype)

    weight = torch.randn(5)
    tokens, probs = torch.randn(6, 5, requires_grad=True), torch.rand(6, 3, requires_grad=True)
    indices = torch.randint(0, 4, (6, 3))
    order = torch.sort(indices.flatten(), stable=True).indices
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel())
    unpermuted = (tokens[order // 3][rank].reshape(6, 3, 5) * probs.unsqueeze(-1)).sum(1)
    (unpermuted * weight).sum().backward()
    t, p = tokens.detach().npu().requires_grad_(), probs.detach().npu().requires_grad_()
    permuted, sorted_indices = torch_npu.npu_moe_token_permute(t, indices.npu())
    (torch_npu.npu_moe_token_unpermute(permuted, sorted_indices, probs=p) * weight.npu()).sum().backward()
    assert torch.allclose(t.grad.cpu(), tokens.grad, rtol=1e-5, atol=1e-5), (t.grad, tokens.grad)
    assert torch.allclose(p.grad.cpu(), probs.grad, rtol=1e-5, atol=1e-5), (p.grad, probs.grad)
    # Without probs (topK 1) the backward passes no permuted tokens (npu_moe_token_unpermute_grad_v2): the
    # gradient is the incoming one, routed back.
    t = tokens.detach().npu().requires_grad_()
    permuted, sorted_indices = torch_npu.npu_moe_token_permute(t, indices[:, 0].npu())
    (torch_npu.npu_moe_token_unpermute(permuted, sorted_indices) * weight.npu()).sum().backward()
    assert torch.equal(t.grad.cpu(), weight.expand(6, 5)), t.grad
    got = torch_npu.npu_moe_token_unpermute_grad_v2(weight.expand(6, 5).contiguous().npu(), sorted_indices, 6, torch.float32)[0]
    assert torch.equal(got.cpu(), weight.expand(6, 5)[torch.argsort(sorted_indices.cpu())]), got
    """)


def test_moe_token_permute_backward_after_dropped_rows_equals_cpu_autograd(run_npu):
    # Autograd through npu_moe_token_permute with num_out_tokens below tokens * topK (aclnnMoeTokenPermuteGrad
    # with sortedIndices past the kept rows) against CPU autograd of the forward as its README and torch_npu's
    # documentation state it, in plain torch: the pairs sorted by expert, stably, the first num_out_tokens kept
    # (0 keeps all, a negative one counts from the end). Token 4 routes only to the last expert, so every
    # dropping num_out_tokens here leaves it no kept slot: its gradient is 0.
    run_npu("""
    torch.manual_seed(0)
    tokens_num, top_k, hidden = 5, 2, 6
    indices = torch.tensor([[0, 2], [1, 0], [2, 2], [1, 0], [3, 3]])
    pairs = tokens_num * top_k
    order = torch.sort(indices.flatten(), stable=True).indices
    for dtype, tolerance in ((torch.float32, 1e-5), (torch.float16, 2e-2), (torch.bfloat16, 2e-2)):
        tokens = torch.randn(tokens_num, hidden).to(dtype)
        for num_out_tokens in (None, 0, pairs, 8, 5, -3, 1):
            kept = pairs if not num_out_tokens else (min(num_out_tokens, pairs) if num_out_tokens > 0 else pairs + num_out_tokens)
            weight = torch.randn(kept, hidden).to(dtype)
            cpu = tokens.float().clone().requires_grad_()
            (cpu[order[:kept] // top_k] * weight.float()).sum().backward()
            t = tokens.clone().npu().requires_grad_()
            permuted, _ = torch_npu.npu_moe_token_permute(t, indices.npu(), num_out_tokens)
            assert permuted.shape == (kept, hidden), (permuted.shape, num_out_tokens)
            (permuted * weight.npu()).sum().backward()
            got = t.grad.cpu()
            assert got.dtype == dtype, got.dtype
            assert torch.allclose(got.float(), cpu.grad, rtol=tolerance, atol=tolerance), (dtype, num_out_tokens, got, cpu.grad)
            if kept < pairs:
                assert torch.equal(got[4].float(), torch.zeros(hidden)), (num_out_tokens, got[4])
                assert not torch.equal(got[:4].float(), torch.zeros(4, hidden)), num_out_tokens
    """)


def test_moe_token_ops_refuse_what_their_pages_exclude_by_name(run_npu):
    # paddedMode true (unsupported by the READMEs) in phase 1; device data the formulas leave undefined
    # (an expert past the README's range, an index past the permuted rows, one held twice where the
    # gradient scatters) in phase 2, each naming its argument.
    run_npu(REFUSED_BY_NAME + """
    tokens, indices = torch.randn(3, 4).npu(), torch.tensor([[0, 1], [1, 2], [2, 0]]).npu()
    permuted, sorted_indices = torch_npu.npu_moe_token_permute(tokens, indices)
    dropped, dropped_indices = torch_npu.npu_moe_token_permute(tokens, indices, 4)
    probs = torch.rand(3, 2).npu()
    twice = torch.tensor([0, 0, 1, 2, 3, 4], dtype=torch.int32).npu()
    calls = [
        (lambda: torch_npu.npu_moe_token_permute(tokens, indices, padded_mode=True), "paddedMode"),
        (lambda: torch_npu.npu_moe_token_unpermute(permuted, sorted_indices, probs=probs, padded_mode=True), "paddedMode"),
        (lambda: torch_npu.npu_moe_token_permute(tokens, torch.full((3, 2), 16777215).npu()), "indices"),
        (lambda: torch_npu.npu_moe_token_unpermute(dropped, dropped_indices, probs=probs), "sortedIndices"),
        # Why: no document defines what a dropped row adds.
        (lambda: torch_npu.npu_moe_token_unpermute(dropped, dropped_indices, probs=probs), "num_out_tokens dropped"),
        # Past the forward's tokens * topK ranks (6 here): no pair holds that rank.
        (lambda: torch_npu.npu_moe_token_permute_grad(
            tokens, dropped, indices, torch.tensor([0, 1, 2, 3, 4, 6], dtype=torch.int32).npu()), "sortedIndices"),
        (lambda: torch_npu.npu_moe_token_unpermute_grad(permuted, tokens, twice, probs=probs), "sortedIndices"),
    ]
    refused_by_name(calls)
    """)


def test_moe_token_permute_and_unpermute_with_routing_map_equal_their_readme_formulas(run_npu):
    # npu_moe_token_permute_with_routing_map / npu_moe_token_unpermute_with_routing_map without drop and pad
    # (derived pages): the pairs a routing map marks, expert-major (the README's masked select of
    # routingMap.T), sorted_indices their stable argsort by token, and back weighed by the probs the map
    # selects; BOOL and INT8 maps, experts no token takes; drop-and-pad and a row without topK marks refused.
    run_npu(REFUSED_BY_NAME + REFERENCES + """
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for tokens_num, experts, top_k, map_dtype in ((5, 6, 2, torch.bool), (4, 8, 3, torch.int8), (3, 4, 1, torch.bool)):
            tokens, hidden = torch.randn(tokens_num, 4).to(dtype), 4
            routing_map = torch.zeros(tokens_num, experts, dtype=map_dtype)
            for t in range(tokens_num):
                routing_map[t, torch.randperm(experts - 1)[:top_k]] = 1  # the last expert takes no token
            probs = torch.rand(tokens_num, experts).to(dtype)
            pairs = [(t, e) for e in range(experts) for t in range(tokens_num) if routing_map[t, e]]
            order = sorted(range(len(pairs)), key=lambda p: (pairs[p][0], p))
            permuted, permuted_probs, sorted_indices = torch_npu.npu_moe_token_permute_with_routing_map(
                tokens.npu(), routing_map.npu(), probs=probs.npu(), num_out_tokens=tokens_num * top_k)
            assert torch.equal(permuted.cpu(), torch.stack([tokens[t] for t, _ in pairs])), (dtype, experts)
            assert torch.equal(permuted_probs.cpu(), torch.stack([probs[t, e] for t, e in pairs]))
            assert sorted_indices.dtype == torch.int32 and sorted_indices.cpu().tolist() == order, sorted_indices
            weights = torch.tensor([float(probs[t, e]) for t, e in pairs])
            want = torch.zeros(tokens_num, hidden)
            for i, row in enumerate(order):
                want[i // top_k] += permuted.cpu()[row].float() * weights[row]
            got = torch_npu.npu_moe_token_unpermute_with_routing_map(
                permuted, sorted_indices, [tokens_num, hidden], probs=probs.npu(), routing_map=routing_map.npu())
            assert close(got, want, dtype), (dtype, experts)
            got = torch_npu.npu_moe_token_unpermute_with_routing_map(permuted, sorted_indices, [tokens_num, hidden])
            assert close(got, tokens.float() * top_k, dtype), (dtype, experts)
    tokens, routing_map = torch.randn(3, 4).npu(), torch.tensor([[1, 0, 1], [0, 1, 1], [1, 1, 0]], dtype=torch.bool).npu()
    uneven = torch.tensor([[1, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=torch.bool).npu()
    permuted, _, sorted_indices = torch_npu.npu_moe_token_permute_with_routing_map(tokens, routing_map, num_out_tokens=6)
    calls = [
        (lambda: torch_npu.npu_moe_token_permute_with_routing_map(tokens, routing_map, num_out_tokens=6, drop_and_pad=True),
         "dropAndPad"),
        (lambda: torch_npu.npu_moe_token_permute_with_routing_map(tokens, uneven, num_out_tokens=6), "routingMap"),
        (lambda: torch_npu.npu_moe_token_unpermute_with_routing_map(permuted, sorted_indices, [3, 4], drop_and_pad=True),
         "paddedMode"),
    ]
    refused_by_name(calls)
    """)


# The routing-map forwards in plain torch, from their READMEs and torch_npu's documentation: the pairs a map
# marks taken expert-major (the masked select of routing_map.T), sorted_indices their stable argsort by token
# (permuted[sorted_indices[i]] = tokens[i // topK]); back, slot i of token i // topK adds its row weighed by
# the probs the map selects, -1 an empty slot. Autograd on the CPU differentiates them.
ROUTING_MAP_REFERENCES = """
    def permute_map_reference(tokens, routing_map, probs):
        by_expert = routing_map.bool().t()
        first = torch.arange(tokens.shape[0]).expand(by_expert.shape[0], -1).masked_select(by_expert)
        moved = None if probs is None else probs.t().masked_select(by_expert)
        return tokens[first], moved, torch.sort(first, stable=True).indices

    def unpermute_map_reference(permuted, sorted_indices, tokens_num, probs, routing_map):
        top_k = sorted_indices.numel() // tokens_num
        weights = None if probs is None else probs.t().masked_select(routing_map.bool().t())
        out = torch.zeros(tokens_num, permuted.shape[1])
        for i, row in enumerate(sorted_indices.tolist()):
            if row != -1:
                term = permuted[row] if weights is None else permuted[row] * weights[row]
                out = out.index_add(0, torch.tensor([i // top_k]), term.unsqueeze(0))
        return out

    def leaves(*tensors):
        # The same values as float32 CPU leaves and as npu leaves of their own dtype.
        return ([t.float().clone().requires_grad_() for t in tensors],
                [t.npu().requires_grad_() for t in tensors])

    def same(got, want, dtype):
        tolerance = 1e-5 if dtype == torch.float32 else 2e-2
        return got.dtype == dtype and torch.allclose(got.cpu().float(), want, rtol=tolerance, atol=tolerance)
"""


def test_moe_token_routing_map_backward_equals_cpu_autograd_of_the_documented_forwards(run_npu):
    # Autograd through npu_moe_token_permute_with_routing_map and npu_moe_token_unpermute_with_routing_map
    # (aclnnMoeTokenPermuteWithRoutingMapGrad, aclnnMoeTokenUnpermuteWithRoutingMapGrad: derived pages, the
    # forwards' adjoints) against CPU autograd of the forwards written above: tokens -> permute (with the
    # permuted rows and probs in the loss too) -> unpermute -> a weighted sum, in three dtypes, with and without
    # probs, an expert no token takes.
    run_npu(ROUTING_MAP_REFERENCES + """
    torch.manual_seed(0)
    tokens_num, experts, top_k, hidden = 6, 5, 2, 4
    routing_map = torch.zeros(tokens_num, experts, dtype=torch.bool)
    for t in range(tokens_num):
        routing_map[t, torch.randperm(experts - 1)[:top_k]] = True  # the last expert takes no token
    w_out, w_rows, w_probs = torch.randn(tokens_num, hidden), torch.randn(tokens_num * top_k, hidden), torch.randn(tokens_num * top_k)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for with_probs in (True, False):
            tokens, probs = torch.randn(tokens_num, hidden).to(dtype), torch.rand(tokens_num, experts).to(dtype)
            (t_cpu, p_cpu), (t_npu, p_npu) = leaves(tokens, probs)
            permuted, moved, sorted_indices = permute_map_reference(t_cpu, routing_map, p_cpu if with_probs else None)
            out = unpermute_map_reference(permuted, sorted_indices, tokens_num, p_cpu if with_probs else None, routing_map)
            loss = (out * w_out).sum() + (permuted * w_rows).sum() + ((moved * w_probs).sum() if with_probs else 0)
            loss.backward()
            permuted, moved, sorted_indices = torch_npu.npu_moe_token_permute_with_routing_map(
                t_npu, routing_map.npu(), probs=p_npu if with_probs else None, num_out_tokens=tokens_num * top_k)
            out = torch_npu.npu_moe_token_unpermute_with_routing_map(
                permuted, sorted_indices, [tokens_num, hidden], probs=p_npu if with_probs else None,
                routing_map=routing_map.npu() if with_probs else None)
            loss = ((out.float() * w_out.npu()).sum() + (permuted.float() * w_rows.npu()).sum()
                    + ((moved.float() * w_probs.npu()).sum() if with_probs else 0))
            loss.backward()
            assert same(t_npu.grad, t_cpu.grad, dtype), (dtype, with_probs, t_npu.grad, t_cpu.grad)
            if with_probs:
                assert same(p_npu.grad, p_cpu.grad, dtype), (dtype, p_npu.grad, p_cpu.grad)
            else:
                assert p_npu.grad is None
    # BFLOAT16 tokens with FLOAT32 probs, which torch_npu's documentation of the forwards allows.
    tokens, probs = torch.randn(tokens_num, hidden).bfloat16(), torch.rand(tokens_num, experts)
    (t_cpu, p_cpu), (t_npu, p_npu) = leaves(tokens, probs)
    permuted, moved, sorted_indices = permute_map_reference(t_cpu, routing_map, p_cpu)
    (unpermute_map_reference(permuted, sorted_indices, tokens_num, p_cpu, routing_map) * w_out).sum().backward()
    permuted, moved, sorted_indices = torch_npu.npu_moe_token_permute_with_routing_map(
        t_npu, routing_map.npu(), probs=p_npu, num_out_tokens=tokens_num * top_k)
    out = torch_npu.npu_moe_token_unpermute_with_routing_map(
        permuted, sorted_indices, [tokens_num, hidden], probs=p_npu, routing_map=routing_map.npu())
    (out.float() * w_out.npu()).sum().backward()
    assert same(t_npu.grad, t_cpu.grad, torch.bfloat16) and p_npu.grad.dtype == torch.float32
    assert torch.allclose(p_npu.grad.cpu(), p_cpu.grad, rtol=2e-2, atol=2e-2), (p_npu.grad, p_cpu.grad)
    """)


def test_moe_token_routing_map_unpermute_takes_empty_slots_as_torch_npu_documents(run_npu):
    # torch_npu's documentation of npu_moe_token_unpermute_with_routing_map: a token holds at most topK experts
    # (a row of the map fewer marks, a token no expert takes) and -1 marks an empty slot. The forward and its
    # gradient (autograd) against the CPU reference; what stays undefined refused by name.
    run_npu(REFUSED_BY_NAME + ROUTING_MAP_REFERENCES + """
    torch.manual_seed(1)
    tokens_num, experts, top_k, hidden = 5, 4, 3, 4
    routing_map = torch.tensor([[1, 1, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0]], dtype=torch.int8)
    by_expert = [(t, e) for e in range(experts) for t in range(tokens_num) if routing_map[t, e]]
    sorted_indices = torch.full((tokens_num * top_k,), -1, dtype=torch.int32)
    for t in range(tokens_num):
        rows = [p for p, (u, _) in enumerate(by_expert) if u == t]
        sorted_indices[t * top_k:t * top_k + len(rows)] = torch.tensor(rows, dtype=torch.int32)
    w_out = torch.randn(tokens_num, hidden)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for with_probs in (True, False):
            permuted, probs = torch.randn(tokens_num * top_k, hidden).to(dtype), torch.rand(tokens_num, experts).to(dtype)
            (x_cpu, p_cpu), (x_npu, p_npu) = leaves(permuted, probs)
            want = unpermute_map_reference(x_cpu, sorted_indices, tokens_num, p_cpu if with_probs else None, routing_map)
            (want * w_out).sum().backward()
            got = torch_npu.npu_moe_token_unpermute_with_routing_map(
                x_npu, sorted_indices.npu(), [tokens_num, hidden], probs=p_npu if with_probs else None,
                routing_map=routing_map.npu() if with_probs else None)
            (got.float() * w_out.npu()).sum().backward()
            assert same(got, want.detach(), dtype), (dtype, with_probs, got, want)
            assert same(x_npu.grad, x_cpu.grad, dtype), (dtype, with_probs, x_npu.grad, x_cpu.grad)
            if with_probs:
                assert same(p_npu.grad, p_cpu.grad, dtype), (dtype, p_npu.grad, p_cpu.grad)

    x, probs = torch.randn(tokens_num * top_k, hidden).npu(), torch.rand(tokens_num, experts).npu()
    crowded = routing_map.clone()
    crowded[1] = 1  # four marks, topK 3
    uneven = torch.tensor([[1, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=torch.bool).npu()
    tokens3 = torch.randn(3, 4).npu()
    wrong = sorted_indices.clone()
    wrong[1] = -2
    calls = [
        # More marks than topK, or an index below -1: outside what torch_npu documents.
        (lambda: torch_npu.npu_moe_token_unpermute_with_routing_map(
            x, sorted_indices.npu(), [tokens_num, hidden], probs=probs, routing_map=crowded.npu()), "routingMap"),
        (lambda: torch_npu.npu_moe_token_unpermute_with_routing_map(x, wrong.npu(), [tokens_num, hidden]),
         "sortedIndices"),
        # The permute's rows stay topK each (torch_npu's documentation: num_out_tokens // tokens_num of them).
        (lambda: torch_npu.npu_moe_token_permute_with_routing_map(tokens3, uneven, num_out_tokens=6), "routingMap"),
        # The unpermute's gradient reads the slot's row from outIndex: a different permuteTokenId (the
        # forward's sort, as the README's names suggest) is not what torch_npu passes, and is refused.
        (lambda: torch_npu.npu_moe_token_unpermute_with_routing_map_grad(
            torch.randn(tokens_num, hidden).npu(), sorted_indices.npu(), torch.sort(sorted_indices).values.npu(),
            None, None, None, False, [tokens_num, hidden]), "permuteTokenId"),
        (lambda: torch_npu.npu_moe_token_permute_with_routing_map_grad(
            torch.randn(6, 4).npu(), None, torch.arange(6, dtype=torch.int32).npu(), uneven, 3, 3, True), "dropAndPad"),
        (lambda: torch_npu.npu_moe_token_permute_with_routing_map_grad(
            torch.randn(6, 4).npu(), torch.randn(6).npu(), torch.arange(6, dtype=torch.int32).npu(), uneven, 3, 3,
            False), "routingMap"),
    ]
    refused_by_name(calls)
    """)
