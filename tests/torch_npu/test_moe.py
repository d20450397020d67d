"""torch_npu.npu_moe_gating_top_k on device="npu" (op-plugin's aclnnMoeGatingTopK without input_ids:
the moe family) against DeepSeek-style group-limited routing written here in PyTorch on the CPU:
sigmoid scores, the k_group best groups by max or top-2 sum, the k best experts of those, weights
renormalised and scaled; and the settings the page's formula leaves open refused by name. And
torch_npu.npu_moe_init_routing_v2's refusals (aclnnMoeInitRoutingV3, the moe_routing family; its
values are test_custom_ops.py's)."""


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
