"""torch_npu.npu_moe_gating_top_k on device="npu" (op-plugin's aclnnMoeGatingTopK without input_ids:
the moe family) against DeepSeek-style group-limited routing written here in PyTorch on the CPU:
sigmoid scores, the k_group best groups by max or top-2 sum, the k best experts of those, weights
renormalised and scaled; and the settings the page's formula leaves open refused by name. And
torch_npu.npu_moe_init_routing_v2's refusals (aclnnMoeInitRoutingV3, the moe_routing family; its
values are test_custom_ops.py's). And the V1 routing pipeline, npu_moe_init_routing (aclnnMoeInitRouting)
and npu_moe_compute_expert_tokens (aclnnMoeComputeExpertTokens), against their READMEs' formulas written
here element by element (derived pages: op_docs/derived/), alone and between the gating and the
finalize routing of a MoE layer. And npu_moe_gating_top_k's backward (aclnnMoeGatingTopKBackward, a derived
page), directly and through autograd, against CPU autograd of the forward's README formula. And
npu_moe_init_routing_quant (aclnnMoeInitRoutingQuantV2, a derived page) against its README's formula written
here pair by pair, static and dynamic, and its refusals of what the README leaves open."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_moe_gating_top_k_equals_group_limited_routing(run_npu):
    run_npu("""
        def route(x, k, k_group, group_count, mode, scaling, eps):
            scores = torch.sigmoid(x.float())
            grouped = scores.reshape(x.shape[0], group_count, -1)
            group_scores = grouped.max(-1).values if mode == 0 else grouped.topk(2, -1).values.sum(-1)
            keep = torch.zeros_like(group_scores, dtype=torch.bool)
            keep.scatter_(1, group_scores.topk(k_group, -1).indices, True)
            masked = scores.masked_fill(~keep.repeat_interleave(grouped.shape[-1], 1), -1.0)
            weights, experts = masked.topk(k, -1)
            return weights / (weights.sum(-1, keepdim=True) + eps) * scaling, experts, scores

        torch.manual_seed(0)
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for rows, experts, k, k_group, groups, mode in ((5, 64, 8, 2, 8, 1), (3, 24, 3, 1, 1, 0), (4, 48, 6, 3, 4, 0)):
                x = torch.randn(rows, experts).to(dtype)
                y, idx, norm = torch_npu.npu_moe_gating_top_k(
                    x.npu(), k, k_group=k_group, group_count=groups, group_select_mode=mode, renorm=0,
                    norm_type=1, out_flag=True, routed_scaling_factor=2.5, eps=1e-20)
                want_y, want_idx, want_norm = route(x, k, k_group, groups, mode, 2.5, 1e-20)
                assert torch.equal(idx.cpu().long(), want_idx), (dtype, experts)
                tolerance = 1e-5 if dtype == torch.float32 else 1e-2
                assert y.dtype == dtype and torch.allclose(y.cpu().float(), want_y, rtol=tolerance, atol=tolerance)
                assert torch.allclose(norm.cpu(), want_norm, rtol=1e-6, atol=1e-6)
        x = torch.randn(2, 32).npu()
        for options, word in (({"norm_type": 0}, "normType"), ({"bias": torch.zeros(32).npu(), "norm_type": 1}, "bias")):
            try:
                torch_npu.npu_moe_gating_top_k(x, 2, k_group=1, group_count=1, **options)
            except RuntimeError as error:
                assert word in str(error), error
            else:
                raise AssertionError(f"{options} was not refused")
    """)


def test_moe_init_routing_v2_refuses_what_its_page_excludes_by_name(run_npu):
    # aclnnMoeInitRoutingV3's constraints section narrows its table: torch_npu's defaults (cumsum
    # counts, no count output, activeNum -1) and drop-pad are refused in phase 1, naming the argument.
    run_npu("""
        x, experts = torch.randn(4, 8).npu(), torch.randint(0, 6, (4, 2), dtype=torch.int32).npu()
        valid = {"active_num": 8, "expert_num": 6, "expert_tokens_num_type": 1, "expert_tokens_num_flag": True}
        for options, word in (({"expert_num": 6}, "expertTokensNumType"), ({**valid, "quant_mode": 0}, "quantMode"),
                              ({**valid, "active_num": -1}, "activeNum"),
                              ({**valid, "expert_tokens_num_flag": False}, "expertTokensNumFlag"),
                              ({**valid, "drop_pad_mode": 1, "expert_capacity": 2}, "expandedXOut")):
            try:
                torch_npu.npu_moe_init_routing_v2(x, experts, **options)
            except RuntimeError as error:
                assert word in str(error) and "aclnnMoeInitRoutingV3" in str(error), (options, error)
            else:
                raise AssertionError(f"{options} was not refused")
        expanded_x = torch_npu.npu_moe_init_routing_v2(x, experts, **valid)[0]
        assert torch.equal(expanded_x.cpu()[:8], x.cpu()[torch.sort(experts.cpu().flatten().long(), stable=True).indices // 2])
    """)


# The READMEs' formulas, element by element in plain Python over torch tensors (not the golden's
# vectorised form): keyValueSort by expert keeping equal experts in order; the end of each expert's rows.
V1_REFERENCES = """
    def init_routing_reference(x, row_idx, expert_idx, active_num):
        rows, k = expert_idx.shape
        experts, row_of = expert_idx.flatten().tolist(), row_idx.flatten().tolist()
        order = sorted(range(rows * k), key=lambda p: (experts[p], p))
        sorted_rows = [row_of[p] for p in order]
        expanded_row_idx = torch.zeros(rows * k, dtype=torch.int32)
        for i, r in enumerate(sorted_rows):
            expanded_row_idx[r] = i
        active = min(rows, active_num) * k
        expanded_x = torch.stack([x[r % rows] for r in sorted_rows[:active]]) if active else x[:0]
        return expanded_x, expanded_row_idx, torch.tensor([experts[p] for p in order], dtype=torch.int32)

    def expert_tokens_reference(sorted_experts, num_experts):
        values = sorted_experts.tolist()
        return torch.tensor([sum(1 for v in values if v <= e) for e in range(num_experts)], dtype=torch.int32)
"""


def test_moe_init_routing_equals_its_readme_formula(run_npu):
    # Rows routed to distinct experts each (top-k), some experts without tokens, rowIdx in the gating's
    # layout (j * NUM_ROWS + n) and as any permutation, activeNum below, at and above NUM_ROWS and 0; no rows.
    run_npu(V1_REFERENCES + """
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for rows, k, experts, hidden in ((7, 3, 9, 6), (5, 1, 4, 3), (4, 2, 2, 5), (0, 2, 4, 3)):
            x = torch.randn(rows, hidden).to(dtype)
            expert_idx = torch.stack([torch.randperm(experts)[:k] for _ in range(rows)] or [torch.zeros(0, k)])
            expert_idx = expert_idx.int().reshape(rows, k)
            gating = torch.arange(rows * k, dtype=torch.int32).reshape(k, rows).t().contiguous()
            shuffled = torch.randperm(rows * k).int().reshape(rows, k)
            for row_idx in (gating, shuffled):
                for active_num in (0, 2, rows, rows + 5):
                    got = torch_npu.npu_moe_init_routing(x.npu(), row_idx.npu(), expert_idx.npu(), active_num)
                    want = init_routing_reference(x, row_idx, expert_idx, active_num)
                    for g, w, name in zip(got, want, ("expanded_x", "expanded_row_idx", "expanded_expert_idx")):
                        assert g.dtype == w.dtype and torch.equal(g.cpu(), w), (dtype, rows, k, active_num, name, g, w)
    """)


def test_moe_compute_expert_tokens_equals_its_readme_formula(run_npu):
    # Experts without rows (first, between, last), one expert, none of the rows: each the end of its rows.
    run_npu(V1_REFERENCES + """
    torch.manual_seed(0)
    cases = [([0, 0, 0, 1, 1, 2], 3), ([1, 1, 3, 3, 3, 6], 8), ([], 5), ([0] * 9, 1), ([4, 4], 6)]
    cases.append((torch.sort(torch.randint(0, 64, (300,))).values.tolist(), 64))
    for values, num_experts in cases:
        sorted_experts = torch.tensor(values, dtype=torch.int32)
        got = torch_npu.npu_moe_compute_expert_tokens(sorted_experts.npu(), num_experts)
        want = expert_tokens_reference(sorted_experts, num_experts)
        assert got.dtype == torch.int32 and torch.equal(got.cpu(), want), (values, got, want)
    """)


def test_moe_v1_pipeline_routes_a_layer_as_its_dense_form(run_npu):
    # Gating, routing, the experts' rows counted and each expert applied to its block (a scale per
    # expert), finalize: the same as weighing each row's experts directly.
    run_npu("""
    torch.manual_seed(0)
    rows, experts, k, hidden = 6, 5, 2, 4
    x, logits = torch.randn(rows, hidden), torch.randn(rows, experts)
    scale = torch.arange(1, experts + 1, dtype=torch.float32)
    y, expert_idx, row_idx = torch_npu.npu_moe_gating_top_k_softmax(logits.npu(), k=k)
    expanded_x, expanded_row_idx, expanded_experts = torch_npu.npu_moe_init_routing(x.npu(), row_idx, expert_idx, rows)
    ends = torch_npu.npu_moe_compute_expert_tokens(expanded_experts, experts).cpu().tolist()
    blocks = expanded_x.cpu().clone()
    for e, (start, end) in enumerate(zip([0] + ends[:-1], ends)):
        assert bool((expanded_experts.cpu()[start:end] == e).all()), (e, start, end)
        blocks[start:end] *= scale[e]
    out = torch_npu.npu_moe_finalize_routing(blocks.npu(), None, None, None, y, expanded_row_idx, None, drop_pad_mode=0)
    dense = sum(y.cpu()[:, s:s + 1] * scale[expert_idx.cpu()[:, s].long()][:, None] * x for s in range(k))
    assert torch.allclose(out.cpu(), dense, rtol=1e-5, atol=1e-5), (out, dense)
    """)


def test_moe_v1_routing_refuses_what_its_pages_exclude_by_name(run_npu):
    # Device data the formulas leave undefined (a rowIdx that is no permutation, unsorted or out-of-range
    # experts) fails naming the tensor; a numExperts outside (0, 2048] fails in phase 1.
    run_npu(REFUSED_BY_NAME + """
    x, experts = torch.randn(3, 4).npu(), torch.tensor([[0, 1], [1, 2], [2, 0]], dtype=torch.int32).npu()
    calls = [
        (lambda: torch_npu.npu_moe_init_routing(x, torch.zeros(3, 2, dtype=torch.int32).npu(), experts, 3), "rowIdx"),
        (lambda: torch_npu.npu_moe_init_routing(x, torch.full((3, 2), 6, dtype=torch.int32).npu(), experts, 3), "rowIdx"),
        (lambda: torch_npu.npu_moe_compute_expert_tokens(torch.tensor([0, 2, 1], dtype=torch.int32).npu(), 3),
         "sortedExperts"),
        (lambda: torch_npu.npu_moe_compute_expert_tokens(torch.tensor([0, 3], dtype=torch.int32).npu(), 3),
         "sortedExperts"),
        (lambda: torch_npu.npu_moe_compute_expert_tokens(torch.tensor([0], dtype=torch.int32).npu(), 2049),
         "numExperts"),
    ]
    refused_by_name(calls)
    """)


def test_moe_re_routing_moves_rank_major_blocks_expert_major(run_npu):
    # npu_moe_re_routing (aclnnMoeReRouting, a derived page): tokens that arrive rank by rank, each rank's
    # experts in order, rearranged expert by expert (each expert's ranks in order), per the README's offsets;
    # empty blocks, an expert without tokens; the modes it does not support and counts that miss the tokens
    # refused by name.
    run_npu(REFUSED_BY_NAME + """
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16, torch.int8):
        for count_dtype in (torch.int32, torch.int64):
            counts = torch.tensor([[2, 0, 1, 3], [0, 0, 2, 1], [4, 0, 0, 1]], dtype=count_dtype)
            rows, hidden = int(counts.sum()), 6
            tokens = (torch.randn(rows, hidden) * 20).to(dtype)
            scales = torch.rand(rows)
            source, start = {}, 0
            for r in range(counts.shape[0]):
                for e in range(counts.shape[1]):
                    source[r, e] = list(range(start, start + int(counts[r, e])))
                    start += int(counts[r, e])
            order = [q for e in range(counts.shape[1]) for r in range(counts.shape[0]) for q in source[r, e]]
            out, out_scales, idx, per_expert = torch_npu.npu_moe_re_routing(
                tokens.npu(), counts.npu(), per_token_scales=scales.npu())
            assert out.dtype == dtype and torch.equal(out.cpu(), tokens[order]), (dtype, count_dtype)
            assert torch.equal(out_scales.cpu(), scales[order])
            assert idx.dtype == torch.int32 and idx.cpu().tolist() == order, idx
            assert per_expert.dtype == count_dtype and per_expert.cpu().tolist() == counts.sum(0).tolist()
            out, _, idx, _ = torch_npu.npu_moe_re_routing(tokens.npu(), counts.npu())
            assert torch.equal(out.cpu(), tokens[order]) and idx.cpu().tolist() == order
    tokens, counts = torch.randn(5, 4).half().npu(), torch.tensor([[2, 1], [1, 1]]).npu()
    calls = [
        (lambda: torch_npu.npu_moe_re_routing(tokens, counts, expert_token_num_type=0), "expertTokenNumType"),
        (lambda: torch_npu.npu_moe_re_routing(tokens, counts, idx_type=1), "idxType"),
        (lambda: torch_npu.npu_moe_re_routing(tokens, torch.tensor([[2, 1], [1, 0]]).npu()), "expertTokenNumPerRank"),
        (lambda: torch_npu.npu_moe_re_routing(tokens, torch.tensor([[2, 1], [3, -1]]).npu()), "expertTokenNumPerRank"),
    ]
    refused_by_name(calls)
    """)


def test_moe_gating_top_k_backward_is_the_forwards_adjoint(run_npu):
    # npu_moe_gating_top_k_backward (aclnnMoeGatingTopKBackward, a derived page): called directly and through
    # autograd of npu_moe_gating_top_k, against CPU autograd in double of the forward's README formula,
    # yOut = Sigmoid(x)[expertIdx] / (sum + eps) * routed_scaling_factor, at the experts the forward chose.
    run_npu(REFUSED_BY_NAME + """
    def reference(x, idx, grad_y, scaling, eps):
        xd = x.double().requires_grad_()
        y = torch.sigmoid(xd).gather(-1, idx.long())
        (y / (y.sum(-1, keepdim=True) + eps) * scaling).backward(grad_y.double())
        return xd.grad

    torch.manual_seed(0)
    for dtype, tolerance in ((torch.float32, 1e-5), (torch.float16, 2e-3), (torch.bfloat16, 1.6e-2)):
        for rows, experts, k, k_group, groups in ((5, 64, 8, 2, 8), (3, 24, 3, 1, 1)):
            x = torch.randn(rows, experts).to(dtype)
            grad_y = torch.randn(rows, k).to(dtype)
            npu_x = x.npu().requires_grad_()
            y, idx, norm = torch_npu.npu_moe_gating_top_k(
                npu_x, k, k_group=k_group, group_count=groups, group_select_mode=1, renorm=0, norm_type=1,
                out_flag=True, routed_scaling_factor=2.5, eps=1e-20)
            y.backward(grad_y.npu())
            want = reference(x, idx.cpu(), grad_y, 2.5, 1e-20)
            assert npu_x.grad.dtype == dtype
            assert torch.allclose(npu_x.grad.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, experts)
            direct = torch_npu.npu_moe_gating_top_k_backward(norm, grad_y.npu(), idx, norm_type=1,
                                                            routed_scaling_factor=2.5, eps=1e-20)
            assert torch.allclose(direct.cpu().double(), want, rtol=tolerance, atol=tolerance), (dtype, experts)
    norm, grad = torch.rand(2, 8).npu(), torch.randn(2, 3).npu()
    refused_by_name([
        (lambda: torch_npu.npu_moe_gating_top_k_backward(norm, grad, torch.tensor([[0, 1, 8], [0, 1, 2]], dtype=torch.int32).npu(),
                                                         norm_type=1), "expertIdx"),
        (lambda: torch_npu.npu_moe_gating_top_k_backward(norm, grad, torch.zeros(2, 3, dtype=torch.int32).npu(), norm_type=0),
         "normType"),
        (lambda: torch_npu.npu_moe_gating_top_k_backward(norm, grad, torch.zeros(2, 3, dtype=torch.int32).npu(), norm_type=1,
                                                         renorm=1), "renorm"),
    ])
    """)


def test_moe_finalize_routing_refuses_k_without_its_v4_api(run_npu):
    # op-plugin sends k to aclnnMoeFinalizeRoutingV4 alone; the corpus documents V2 (computed) and no V4,
    # so k other than 1 is refused naming V4 rather than dropped, and k 1 takes V2 as without it.
    run_npu("""
        rows, k, h = 3, 2, 4
        expanded, scales = torch.randn(rows * k, h), torch.rand(rows, k)
        dst = torch.randperm(rows * k).int()
        want = sum(scales[:, j:j + 1] * expanded[dst[j * rows:(j + 1) * rows].long()] for j in range(k))
        args = (expanded.npu(), None, None, None, scales.npu(), dst.npu(), None)
        got = torch_npu.npu_moe_finalize_routing(*args, drop_pad_mode=0, k=1).cpu()
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-5), (got, want)
        try:
            torch_npu.npu_moe_finalize_routing(*args, drop_pad_mode=0, k=2)
        except RuntimeError as error:
            assert "aclnnMoeFinalizeRoutingV4" in str(error), error
        else:
            raise AssertionError("k=2 was not refused")
    """)


QUANT_V2_REFERENCE = """
    def init_routing_quant_reference(x, expert_idx, scale, offset, active_num, expert_num, tokens_mode, quant_mode):
        # The README's steps: keyValueSort of the pairs j = r * K + s by expert (equal experts in pair order),
        # expandedRowIdx[sortedRowIdx[i]] = i, the quantised row j // K (semantics/moe.toml's errata) of the
        # first min(N * K, activeNum) pairs (all for 0), the histogram (2) or its cumsum (1).
        rows, k = expert_idx.shape
        experts = expert_idx.flatten().tolist()
        sorted_row_idx = sorted(range(rows * k), key=lambda j: (experts[j], j))
        expanded_row_idx = torch.empty(rows * k, dtype=torch.int32)
        for i, j in enumerate(sorted_row_idx):
            expanded_row_idx[j] = i
        kept = sorted_row_idx[:min(rows * k, active_num) if active_num > 0 else rows * k]
        expanded_x = torch.zeros(len(kept), x.shape[1], dtype=torch.int8)
        dynamic_scale = torch.zeros(len(kept))
        for i, j in enumerate(kept):
            row = x[j // k].float()
            if quant_mode == 0:
                expanded_x[i] = torch.round(row * scale.item() + offset.item()).to(torch.int8)
            else:
                v = row * scale.reshape(-1) if scale is not None else row
                dynamic_scale[i] = v.abs().max() / 127
                expanded_x[i] = torch.round(v / dynamic_scale[i]).to(torch.int8)
        counts = torch.tensor([experts.count(e) for e in range(expert_num)], dtype=torch.int32)
        tokens = None if tokens_mode == 0 else counts.cumsum(0).int() if tokens_mode == 1 else counts
        return expanded_x, expanded_row_idx, tokens, None, dynamic_scale if quant_mode == 1 else None
"""


def test_moe_init_routing_quant_equals_its_readme_formula(run_npu):
    # Static and dynamic quant (with and without the smooth scale [H] and [1, H]), Dropless (activeNum 0) and
    # Active (below and above N * K), both count modes and none, experts without tokens; no rows.
    run_npu(QUANT_V2_REFERENCE + """
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for rows, k, experts, hidden in ((7, 3, 9, 16), (5, 1, 4, 8), (4, 2, 3, 5), (0, 2, 4, 8)):
            randn = torch.randn(rows, hidden).to(dtype)
            expert_idx = torch.stack([torch.randperm(experts)[:k] for _ in range(rows)] or [torch.zeros(0, k)])
            expert_idx = expert_idx.int().reshape(rows, k)
            smooth = torch.rand(hidden) + 0.5
            # Static values at no tie (the simulator refuses those by name): odd sixteenths times 4 plus 1/8
            # end in .375 or .875, every step exact in the three dtypes.
            odd_sixteenths = ((torch.randint(-40, 40, (rows, hidden)) * 2 + 1) / 16).to(dtype)
            settings = [(None, None, 1), (smooth, None, 1), (smooth.reshape(1, -1), None, 1),
                        (torch.tensor([4.0]), torch.tensor([0.125]), 0)]
            for scale, offset, quant_mode in settings:
                x = odd_sixteenths if quant_mode == 0 else randn
                for active_num, tokens_mode in ((0, 1), (5, 2), (rows * k + 3, 0)):
                    got = torch_npu.npu_moe_init_routing_quant(
                        x.npu(), expert_idx.npu(), scale=None if scale is None else scale.npu(),
                        offset=None if offset is None else offset.npu(), active_num=active_num, expert_num=experts,
                        expert_tokens_num_mode=tokens_mode, quant_mode=quant_mode)
                    want = init_routing_quant_reference(x, expert_idx, scale, offset, active_num, experts,
                                                        tokens_mode, quant_mode)
                    names = ("expanded_x", "expanded_row_idx", "tokens", "before_capacity", "dynamic_scale")
                    for g, w, name in zip(got, want, names):
                        what = (dtype, rows, k, quant_mode, active_num, name)
                        if w is None:
                            assert g is None, what
                        elif name == "dynamic_scale":
                            assert torch.allclose(g.cpu(), w, rtol=1e-6, atol=0), what
                        else:
                            assert g.dtype == w.dtype and torch.equal(g.cpu(), w), (what, g, w)
    """)


def test_moe_init_routing_quant_refuses_what_its_readme_leaves_open(run_npu):
    # Drop/Pad (expandedRowIdx's layout unstated), static values outside INT8, NaN or at a tie (saturation and
    # round's tie unstated), experts outside [0, expertNum) (device data), a static quant without its offset.
    run_npu(REFUSED_BY_NAME + """
    x, experts = torch.randn(3, 4).npu(), torch.tensor([[0, 1], [1, 2], [2, 0]], dtype=torch.int32).npu()
    one = torch.tensor([1.0]).npu()
    def static(x, scale, offset):
        return lambda: torch_npu.npu_moe_init_routing_quant(x, experts, scale=scale, offset=offset, active_num=0,
                                                            expert_num=3, quant_mode=0)
    calls = [
        (lambda: torch_npu.npu_moe_init_routing_quant(x, experts, active_num=0, expert_capacity=2, expert_num=3,
                                                      drop_pad_mode=1), "dropPadMode 1"),
        (static(x, torch.tensor([1000.0]).npu(), one), "outside INT8"),
        (static(torch.full((3, 4), float("nan")).npu(), one, one), "NaN"),
        (static(torch.full((3, 4), 0.25).npu(), torch.tensor([2.0]).npu(), one), "halfway"),
        (static(x, one, None), "offsetOptional"),
        (lambda: torch_npu.npu_moe_init_routing_quant(x, experts, active_num=0, expert_num=2), "expertIdx"),
    ]
    refused_by_name(calls)
    """)
