"""Losses through torch_npu (family loss): each torch.nn.functional loss forward and its
loss.backward() on npu tensors equal PyTorch on the CPU, in every reduction; the gradients of
softmax and log_softmax (aclnnSoftmaxBackward, aclnnLogSoftmaxBackward) too, as a training step
of a classifier reaches them."""


def test_losses_forward_and_backward_equal_cpu(run_npu):
    run_npu("""
        import torch.nn.functional as F

        def check(name, loss, first, *rest, atol=1e-5):
            # Only the first tensor asks for a gradient: torch refuses one for a target or a weight.
            cpu = first.clone().requires_grad_()
            npu = first.clone().npu().requires_grad_()
            want, got = loss(cpu, *rest), loss(npu, *(t.npu() for t in rest))
            grad = torch.randn_like(want)
            want.backward(grad)
            got.backward(grad.npu())
            assert torch.allclose(got.detach().cpu(), want.detach(), rtol=1e-4, atol=atol), name
            assert torch.allclose(npu.grad.cpu(), cpu.grad, rtol=1e-4, atol=atol), name + " backward"

        x, y = torch.randn(4, 5), torch.randn(4, 5)
        p, t = torch.rand(4, 5) * 0.9 + 0.05, torch.rand(4, 5)
        w, pw = torch.rand(5), torch.rand(5) + 0.5
        classes, image_classes = torch.tensor([0, 2, 4, 1]), torch.randint(0, 3, (2, 4, 5))
        log_p, log_q = torch.log_softmax(x, 1), torch.log_softmax(y, 1)
        for r in ("none", "mean", "sum"):
            check(f"mse {r}", lambda a, b: F.mse_loss(a, b, reduction=r), x, y)
            check(f"l1 {r}", lambda a, b: F.l1_loss(a, b, reduction=r), x, y)
            check(f"smooth_l1 {r}", lambda a, b: F.smooth_l1_loss(a, b, reduction=r, beta=0.5), x, y)
            check(f"soft_margin {r}", lambda a, b: F.soft_margin_loss(a, b, reduction=r), x, y.sign())
            check(f"bce {r}", lambda a, b: F.binary_cross_entropy(a, b, reduction=r), p, t)
            check(f"bce weight {r}", lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction=r), p, t, w)
            check(f"bce logits {r}", lambda a, b, c, d: F.binary_cross_entropy_with_logits(
                a, b, c, reduction=r, pos_weight=d), x, t, w, pw)
            check(f"kl_div {r}", lambda a, b: F.kl_div(a, b, reduction=r), log_p, log_q.exp())
            check(f"kl_div log_target {r}", lambda a, b: F.kl_div(a, b, reduction=r, log_target=True), log_p, log_q)
            check(f"nll {r}", lambda a, b: F.nll_loss(a, b, reduction=r), log_p, classes)
            check(f"nll weight ignore_index {r}", lambda a, b, c: F.nll_loss(a, b, c, reduction=r, ignore_index=2),
                  log_p, classes, w)
            check(f"nll2d {r}", lambda a, b: F.nll_loss(a, b, reduction=r),
                  torch.log_softmax(torch.randn(2, 3, 4, 5), 1), image_classes)
            check(f"cross_entropy label_smoothing {r}", lambda a, b: F.cross_entropy(
                a, b, reduction=r, label_smoothing=0.1), x, classes)
        check("kl_div batchmean", lambda a, b: F.kl_div(a, b, reduction="batchmean"), log_p, log_q.exp())
        for log_target in (False, True):  # the target's gradient: aclnnKlDivTargetBackward
            target = log_q if log_target else log_q.exp()
            cpu_t, npu_t = target.clone().requires_grad_(), target.clone().npu().requires_grad_()
            F.kl_div(log_p, cpu_t, reduction="batchmean", log_target=log_target).backward()
            F.kl_div(log_p.npu(), npu_t, reduction="batchmean", log_target=log_target).backward()
            assert torch.allclose(npu_t.grad.cpu(), cpu_t.grad, rtol=1e-4, atol=1e-5), f"kl_div target {log_target}"
        check("softmax along 1 of 3", lambda a: torch.softmax(a, 1), torch.randn(3, 7, 2))
        check("log_softmax", lambda a: torch.log_softmax(a, -1), torch.randn(3, 7, 2))
        check("softmax float16", lambda a: torch.softmax(a.half(), -1).float(), torch.randn(3, 7), atol=2e-3)
    """)


def test_a_classifier_trains_as_on_the_cpu(run_npu):
    run_npu("""
        def train(device):
            torch.manual_seed(1)
            model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 10)).to(device)
            opt = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)  # no foreach kernels on the simulator
            data = torch.randn(64, 16, generator=torch.Generator().manual_seed(2)).to(device)
            labels = torch.randint(0, 10, (64,), generator=torch.Generator().manual_seed(3)).to(device)
            losses = []
            for _ in range(5):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(data), labels)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            return losses, [p.detach().cpu() for p in model.parameters()]

        want, want_params = train("cpu")
        got, got_params = train("npu")
        assert want[-1] < want[0]
        assert all(abs(a - b) < 1e-5 for a, b in zip(got, want)), (got, want)
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(got_params, want_params))
    """)
