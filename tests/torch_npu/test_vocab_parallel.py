"""torch_npu's vocab-parallel cross entropy pieces (op-plugin's aclnnFusedLinearOnlineMaxSum,
aclnnFusedCrossEntropyLossWithMaxSum and aclnnFusedLinearCrossEntropyLossGrad: the vocab_parallel
family) on device="npu", chained as Megatron chains them on one shard: the statistics, loss and softmax
equal the pages' formulas on the CPU, and the gradients equal autograd's through the same loss."""


def test_vocab_parallel_cross_entropy_chain_equals_the_cpu(run_npu):
    run_npu("""
        torch.manual_seed(0)
        rows, hidden, vocab, start, end = 13, 8, 128, 40, 150
        x, w = torch.randn(rows, hidden).half(), torch.randn(vocab, hidden).half()
        target = torch.randint(0, 200, (rows,), dtype=torch.int32)
        out = torch_npu.npu_fused_linear_online_max_sum(x.npu(), w.npu(), target.npu(), start, end, return_logits=True)
        top, sum_exp, predicted, packed, masked_target, logits = [t.cpu() for t in out]
        want_logits = x.float() @ w.float().T
        shifted = want_logits - want_logits.max(-1, keepdim=True).values
        outside = (target < start) | (target > end)
        want_target = torch.where(outside, 0, target - start)
        assert torch.allclose(top, want_logits.max(-1).values, atol=1e-4)
        assert torch.allclose(sum_exp, shifted.exp().sum(-1), rtol=1e-4)
        assert torch.allclose(predicted, torch.where(outside, 0.0, shifted.gather(1, want_target.long()[:, None])[:, 0]), atol=1e-4)
        assert torch.equal(masked_target, want_target) and torch.allclose(logits.float(), want_logits, atol=1e-2)
        # Row p of the mask at bit p % 8 of byte p // 8, the bits past the rows set.
        bits = ((packed.long()[:, None] >> torch.arange(8)) & 1).flatten()
        assert torch.equal(bits[:rows].bool(), outside) and bool(bits[rows:].all()), packed
        loss, softmax = torch_npu.npu_fused_cross_entropy_loss_with_max_sum(
            out[0], out[1], out[2], vocab_parallel_logits=out[5])
        assert torch.allclose(loss.cpu(), sum_exp.log() - predicted, atol=1e-5)
        assert torch.allclose(softmax.cpu(), (logits.float() - top[:, None]).exp() / sum_exp[:, None], atol=1e-5)
        grad = torch.randn(rows)
        xc, wc = x.float().requires_grad_(), w.float().requires_grad_()
        full = xc @ wc.T
        picked = full.gather(1, want_target.long()[:, None])[:, 0] * ~outside
        ((torch.logsumexp(full, -1) - picked) * grad).sum().backward()
        # Both modes: the softmax given, or recomputed from the row statistics.
        for kwargs in (dict(softmax=softmax), dict(logits_max=out[0], sum_exp_logits=out[1])):
            grad_x, grad_w = torch_npu.npu_fused_linear_cross_entropy_loss_with_max_sum_backward(
                grad.npu(), x.npu(), w.npu(), out[3], out[4], **kwargs)
            assert torch.allclose(grad_x.cpu().float(), xc.grad, atol=2e-2, rtol=1e-2), sorted(kwargs)
            assert torch.allclose(grad_w.cpu().float(), wc.grad, atol=2e-2, rtol=1e-2), sorted(kwargs)
    """)
