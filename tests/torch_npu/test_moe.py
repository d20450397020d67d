"""torch_npu.npu_moe_gating_top_k on device="npu" (op-plugin's aclnnMoeGatingTopK without input_ids:
the moe family) against DeepSeek-style group-limited routing written here in PyTorch on the CPU:
sigmoid scores, the k_group best groups by max or top-2 sum, the k best experts of those, weights
renormalised and scaled; and the settings the page's formula leaves open refused by name."""


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
