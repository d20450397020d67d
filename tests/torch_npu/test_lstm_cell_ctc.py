"""aten's fused LSTM cell step (_thnn_fused_lstm_cell, op-plugin's route to aclnnThnnFusedLstmCell,
whose autograd backward is aclnnThnnFusedLstmCellBackward: the lstm_cell family) and F.ctc_loss
(aclnnCtcLoss and aclnnCtcLossBackward: the ctc family) on device="npu" equal CPU PyTorch, forward
and every gradient. torch.lstm_cell itself (nn.LSTMCell) takes op-plugin's acl_op route, DynamicRNNV2 and
DynamicRNNV2Grad, which the aclop bridge runs through the rnn family's aclnnLSTM and aclnnLstmBackward
(runtime/sim/src/op_compiler/rnn.cpp)."""


def test_fused_lstm_cell_step_and_its_gradients_equal_the_cpu(run_npu):
    run_npu("""
        torch.manual_seed(0)
        B, H = 3, 4
        tensors = [torch.randn(B, 4 * H), torch.randn(B, 4 * H), torch.randn(B, H), torch.randn(4 * H), torch.randn(4 * H)]
        def step(ig, hg, cx, bi, bh):  # nn.LSTMCell after its two products: gate blocks i, f, g, o
            i, f, g, o = (ig + hg + bi + bh).chunk(4, 1)
            cy = f.sigmoid() * cx + i.sigmoid() * g.tanh()
            return o.sigmoid() * cy.tanh(), cy
        for with_bias in (True, False):
            cpu = [t.clone().requires_grad_() for t in tensors]
            npu = [t.npu().requires_grad_() for t in tensors]
            zero = torch.zeros(4 * H)
            hy, cy = step(*cpu[:3], *(cpu[3:] if with_bias else (zero, zero)))
            hy2, cy2, _ = torch.ops.aten._thnn_fused_lstm_cell(*npu[:3], *(npu[3:] if with_bias else (None, None)))
            assert torch.allclose(hy2.cpu(), hy, atol=1e-5) and torch.allclose(cy2.cpu(), cy, atol=1e-5), with_bias
            # Both outputs' gradients, then hy's alone (grad_cy absent).
            for weights in ((1.0, 2.0), (1.0, 0.0)):
                for t in cpu + npu:
                    t.grad = None
                (weights[0] * hy.sum() + weights[1] * cy.sum()).backward(retain_graph=True)
                outputs = (hy2, cy2) if weights[1] else (hy2,)
                torch.autograd.backward(outputs, [torch.full_like(o, w) for o, w in zip(outputs, weights)], retain_graph=True)
                count = 5 if with_bias else 3
                for k, (n, c) in enumerate(zip(npu[:count], cpu[:count])):
                    assert torch.allclose(n.grad.cpu(), c.grad, atol=1e-5), (with_bias, weights, k)
    """)


def test_lstm_cell_and_its_gradients_equal_the_cpu(run_npu):
    run_npu("""
        B, I, H = 3, 5, 4
        for bias in (True, False):
            cell = torch.nn.LSTMCell(I, H, bias=bias)
            x, h, c = (torch.randn(B, n, requires_grad=True) for n in (I, H, H))
            hy, cy = cell(x, (h, c))
            (1.5 * hy.sum() + cy.sum()).backward()
            npu_cell = torch.nn.LSTMCell(I, H, bias=bias)
            npu_cell.load_state_dict(cell.state_dict())
            npu_cell = npu_cell.npu()
            xn, hn, cn = (t.detach().npu().requires_grad_() for t in (x, h, c))
            hy2, cy2 = npu_cell(xn, (hn, cn))
            assert torch.allclose(hy2.cpu(), hy, atol=1e-5) and torch.allclose(cy2.cpu(), cy, atol=1e-5), bias
            (1.5 * hy2.sum() + cy2.sum()).backward()
            want = [x.grad, h.grad, c.grad, *(p.grad for p in cell.parameters())]
            got = [xn.grad, hn.grad, cn.grad, *(p.grad for p in npu_cell.parameters())]
            assert len(got) == (7 if bias else 5)
            for k, (g, w) in enumerate(zip(got, want)):
                assert torch.allclose(g.cpu(), w, atol=1e-5), (bias, k)
    """)


def test_ctc_loss_and_its_gradient_equal_the_cpu(run_npu):
    run_npu("""
        F = torch.nn.functional
        torch.manual_seed(0)
        T, N, C, S = 7, 3, 5, 3
        log_probs = torch.randn(T, N, C).log_softmax(2)
        # Padded targets and concatenated ones; shorter inputs and targets than the longest.
        padded = torch.randint(1, C, (N, S))
        lengths, target_lengths = [7, 6, 5], [3, 2, 3]
        concatenated = torch.cat([padded[b, :target_lengths[b]] for b in range(N)])
        for targets in (padded, concatenated):
            for reduction in ("mean", "sum", "none"):
                cpu = log_probs.clone().requires_grad_()
                npu = log_probs.npu().requires_grad_()
                want = F.ctc_loss(cpu, targets, lengths, target_lengths, reduction=reduction)
                got = F.ctc_loss(npu, targets.npu(), lengths, target_lengths, reduction=reduction)
                assert torch.allclose(got.cpu(), want, atol=1e-5), (targets.dim(), reduction, got, want)
                want.sum().backward()
                got.sum().backward()
                assert torch.allclose(npu.grad.cpu(), cpu.grad, atol=1e-5), (targets.dim(), reduction)
        # An impossible alignment (a target longer than its input): infinite, or 0 with zero_infinity.
        for zero_infinity in (False, True):
            want = F.ctc_loss(log_probs, padded, [2, 7, 7], [3, 2, 3], reduction="none", zero_infinity=zero_infinity)
            got = F.ctc_loss(log_probs.npu(), padded.npu(), [2, 7, 7], [3, 2, 3], reduction="none", zero_infinity=zero_infinity)
            assert torch.allclose(got.cpu(), want, atol=1e-5), (zero_infinity, got, want)
        # ... and its gradient 0 with zero_infinity: the backward is handed the forward's zeroed loss.
        cpu, npu = log_probs.clone().requires_grad_(), log_probs.npu().requires_grad_()
        F.ctc_loss(cpu, padded, [2, 7, 7], [3, 2, 3], zero_infinity=True).backward()
        F.ctc_loss(npu, padded.npu(), [2, 7, 7], [3, 2, 3], zero_infinity=True).backward()
        assert torch.allclose(npu.grad.cpu(), cpu.grad, atol=1e-5), (npu.grad.cpu() - cpu.grad).abs().max()
    """)
