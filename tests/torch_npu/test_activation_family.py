"""Gated and channel-weighted activations, nn.Embedding's gradient and rotary position embedding
through torch_npu's op-plugin on the simulator, against PyTorch on the CPU: F.glu (aclnnGlu,
aclnnGluBackward), F.prelu / nn.PReLU (aclnnPrelu, aclnnPreluBackward), F.logsigmoid
(aclnnLogSigmoidForward), nn.Embedding's backward (aclnnEmbeddingDenseBackward); torch_npu's own
npu_swiglu (aclnnSwiGlu, aclnnSwiGluGrad), npu_gelu_mul (aclnnGeluMul) and npu_rotary_mul
(aclnnRotaryPositionEmbeddingV2, aclnnRotaryPositionEmbeddingGrad) against the compositions their
docs state; npu_rotary_mul's undocumented rotate refused by name."""

# f(*tensors) on the CPU and on npu, then the gradients of (f * w).sum() for every input, with a
# weight w so that each output position's gradient differs.
CHECK = """
        import torch.nn.functional as F

        def check(name, f, *tensors, rtol=1e-4, atol=1e-5, cpu_f=None):
            cpu = [t.clone().requires_grad_() for t in tensors]
            npu = [t.npu().requires_grad_() for t in tensors]
            want, got = (cpu_f or f)(*cpu), f(*npu)
            assert torch.allclose(got.detach().cpu().float(), want.detach().float(), rtol=rtol, atol=atol), (
                name, (got.detach().cpu().float() - want.detach().float()).abs().max())
            w = torch.randn(want.shape)
            (want * w.to(want.dtype)).sum().backward()
            (got * w.to(got.dtype).npu()).sum().backward()
            for k, (a, b) in enumerate(zip(cpu, npu)):
                assert torch.allclose(b.grad.cpu().float(), a.grad.float(), rtol=rtol, atol=atol), (
                    name, "grad", k, (b.grad.cpu().float() - a.grad.float()).abs().max())
"""


def test_glu_prelu_and_logsigmoid_equal_the_cpu(run_npu):
    run_npu(CHECK + """
        check("glu last", lambda x: F.glu(x), torch.randn(3, 8))
        check("glu dim 1", lambda x: F.glu(x, 1), torch.randn(2, 6, 5))
        check("glu float16", lambda x: F.glu(x, 0).float(), torch.randn(4, 3).half(), atol=2e-3, rtol=2e-3)
        check("prelu per channel", F.prelu, torch.randn(2, 3, 4, 5), torch.rand(3))
        check("prelu one weight", F.prelu, torch.randn(2, 3, 4), torch.rand(1))
        check("prelu 1-d", F.prelu, torch.randn(7), torch.rand(1))
        check("logsigmoid", F.logsigmoid, torch.randn(4, 5) * 6)
        check("logsigmoid bfloat16", lambda x: F.logsigmoid(x).float(), torch.randn(4, 5).bfloat16(), atol=2e-2,
              rtol=2e-2)
    """)


def test_embedding_backward_equals_the_cpu(run_npu):
    run_npu(CHECK + """
        idx = torch.tensor([[0, 2, 4, 2], [4, 4, 1, 0]])
        for padding_idx in (None, 2):
            for scale in (False, True):
                check(f"embedding padding {padding_idx} scale {scale}", lambda w: F.embedding(
                    idx.to(w.device), w, padding_idx=padding_idx, scale_grad_by_freq=scale), torch.randn(6, 3))
    """)


def test_swiglu_gelu_mul_and_rotary_equal_their_compositions(run_npu):
    run_npu(CHECK + """
        def swiglu(x, dim=-1):
            a, b = x.chunk(2, dim)
            return F.silu(a) * b

        def rotary(x, cos, sin, mode):
            h = x.shape[-1] // 2
            if mode == "half":
                rotated = torch.cat((-x[..., h:], x[..., :h]), -1)
            else:
                rotated = torch.stack((-x[..., 1::2], x[..., ::2]), -1).reshape(x.shape)
            return x * cos + rotated * sin

        check("npu_swiglu", torch_npu.npu_swiglu, torch.randn(4, 8), cpu_f=swiglu)
        check("npu_swiglu dim 0", lambda x: torch_npu.npu_swiglu(x, 0), torch.randn(6, 3),
              cpu_f=lambda x: swiglu(x, 0))
        for approximate in ("none", "tanh"):
            x = torch.randn(3, 8)
            a, b = x.chunk(2, -1)
            want = F.gelu(a, approximate=approximate) * b
            got = torch_npu.npu_gelu_mul(x.npu(), approximate=approximate).cpu()
            assert torch.allclose(got, want, rtol=1e-4, atol=1e-5), ("npu_gelu_mul", approximate)
        for mode in ("half", "interleave"):
            check(f"npu_rotary_mul {mode}", lambda x, c, s: torch_npu.npu_rotary_mul(x, c, s, mode),
                  torch.randn(2, 4, 3, 8), torch.randn(1, 4, 1, 8), torch.randn(1, 4, 1, 8),
                  cpu_f=lambda x, c, s: rotary(x, c, s, mode))
    """)


def test_rotary_mul_refuses_its_undocumented_rotate_by_name(run_npu):
    # op-plugin passes rotate to aclnnRotaryPositionEmbeddingV2 alone (V1 where the library lacks V2,
    # dropping it unseen); no page says what it does, so V2 (a derived page) refuses it rather than
    # compute as if it were absent.
    run_npu("""
        x, cos, sin = torch.randn(1, 2, 3, 8).npu(), torch.randn(1, 2, 1, 8).npu(), torch.randn(1, 2, 1, 8).npu()
        try:
            torch_npu.npu_rotary_mul(x, cos, sin, "half", rotate=torch.eye(8).npu())
        except RuntimeError as error:
            assert "aclnnRotaryPositionEmbeddingV2" in str(error) and "rotateOptional" in str(error), error
        else:
            raise AssertionError("rotate was not refused")
    """)


def test_geglu_renorm_apply_rotary_and_masked_softmax_equal_the_cpu(run_npu):
    run_npu(CHECK + """
        # npu_geglu: (gelu of the activated half times the other, that gelu); its gradient goes
        # through aclnnGeGluV3Backward with the forward's gelu.
        for approximate, left in ((0, False), (1, True)):
            def geglu(x, approximate=approximate, left=left):
                a, b = x.chunk(2, -1)
                x, y = (a, b) if left else (b, a)
                return F.gelu(x, approximate="tanh" if approximate else "none") * y
            check(f"npu_geglu {approximate} {left}", lambda x: torch_npu.npu_geglu(
                x, -1, approximate, left)[0], torch.randn(3, 8), cpu_f=geglu)

        # F.embedding with max_norm renormalises the rows it reads in place first (embedding_renorm_).
        idx = torch.tensor([[0, 2, 4], [2, 2, 1]])
        weight = torch.randn(6, 5) * 2
        cpu_w, npu_w = weight.clone(), weight.npu()
        want, got = F.embedding(idx, cpu_w, max_norm=1.5), F.embedding(idx.npu(), npu_w, max_norm=1.5)
        assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-6) and torch.allclose(npu_w.cpu(), cpu_w, rtol=1e-5, atol=1e-6)

        # npu_apply_rotary_pos_emb updates query and key in place (BSND, D = 128).
        def rotary_half(x, cos, sin):
            h = x.shape[-1] // 2
            return x * cos + torch.cat((-x[..., h:], x[..., :h]), -1) * sin

        q, k = torch.randn(2, 3, 4, 128), torch.randn(2, 3, 1, 128)
        cos, sin = torch.randn(2, 3, 1, 128), torch.randn(2, 3, 1, 128)
        nq, nk = q.npu(), k.npu()
        torch_npu.npu_apply_rotary_pos_emb(nq, nk, cos.npu(), sin.npu())
        assert torch.allclose(nq.cpu(), rotary_half(q, cos, sin), rtol=1e-5, atol=1e-5)
        assert torch.allclose(nk.cpu(), rotary_half(k, cos, sin), rtol=1e-5, atol=1e-5)

        # aten::_masked_softmax (mask_type 2, 4-d, last dim): aclnnScaledMaskedSoftmax with scale 1.
        x = torch.randn(2, 3, 4, 6)
        mask = torch.rand(2, 3, 4, 6) < 0.3
        mask[..., 0] = False  # no row masked everywhere (aten's CPU kernel gives NaN there)
        got = torch._masked_softmax(x.npu(), mask.npu(), -1, 2).cpu()
        assert torch.allclose(got, torch._masked_softmax(x, mask, -1, 2), rtol=1e-5, atol=1e-6)
    """)


def test_clipped_swiglu_equals_its_composition(run_npu):
    # torch_npu.npu_clipped_swiglu (aclnnClippedSwiglu): its docs' formula, halves interleaved (the
    # default) or not, the rows past sum(group_index) 0 (the simulator's choice where the page is silent).
    run_npu("""
        import math

        def clipped(x, group_index, dim, alpha, limit, bias, interleaved):
            d = dim % x.dim()
            rows = x.reshape(math.prod(x.shape[:d]), -1)  # [pre, cut * after]
            a, b = (rows[:, ::2], rows[:, 1::2]) if interleaved else rows.chunk(2, 1)
            a = a.clamp(max=limit)
            y = a * torch.sigmoid(alpha * a) * (b.clamp(-limit, limit) + bias)
            if group_index is not None:
                y[int(group_index.sum()):] = 0
            return y.reshape(*x.shape[:d], x.shape[d] // 2, *x.shape[d + 1:])

        x = torch.randn(6, 8) * 4
        got = torch_npu.npu_clipped_swiglu(x.npu()).cpu()
        assert torch.allclose(got, clipped(x, None, -1, 1.702, 7.0, 1.0, True), rtol=1e-5, atol=1e-5)
        groups = torch.tensor([1, 3])
        got = torch_npu.npu_clipped_swiglu(x.npu(), group_index=groups.npu(), alpha=1.0, limit=2.0, bias=0.5,
                                           interleaved=False).cpu()
        assert torch.allclose(got, clipped(x, groups, -1, 1.0, 2.0, 0.5, False), rtol=1e-5, atol=1e-5)
        x3 = torch.randn(2, 4, 3)
        got = torch_npu.npu_clipped_swiglu(x3.npu(), dim=1).cpu()
        assert torch.allclose(got, clipped(x3, None, 1, 1.702, 7.0, 1.0, True), rtol=1e-5, atol=1e-5)
    """)


def test_multilabel_margin_loss_equals_the_cpu(run_npu):
    run_npu("""
        import torch.nn.functional as F
        x = torch.randn(4, 6)
        target = torch.tensor([[0, 3, -1, 1, 2, 2], [5, -1, 0, 0, 0, 0], [-1, 1, 2, 3, 4, 5], [1, 1, 4, 0, 2, 3]])
        for reduction in ("none", "mean", "sum"):
            got = F.multilabel_margin_loss(x.npu(), target.npu(), reduction=reduction).cpu()
            want = F.multilabel_margin_loss(x, target, reduction=reduction)
            assert torch.allclose(got, want, rtol=1e-5, atol=1e-6), (reduction, got, want)
        got = F.multilabel_margin_loss(x[0].npu(), target[0].npu(), reduction="none").cpu()
        assert got.shape == () and torch.allclose(got, F.multilabel_margin_loss(x[0], target[0], reduction="none"))
    """)



# op-plugin sends npu_apply_adam_w to aclnnApplyAdamW only on an aclnn-only chip (Ascend 950), with
# its scalars as 0-d tensors where the page requires shape [1] (semantics/optim.toml's client_ranks, the
# page's error row refusing only a size other than 1): the step of the page's formula, the beta powers
# being beta^(t-1).
def test_apply_adam_w_of_torch_npu_computes_the_pages_step(run_npu):
    run_npu("""
        var, m, v, grad = torch.randn(3, 4), torch.randn(3, 4), torch.rand(3, 4), torch.randn(3, 4)
        b1p, b2p, lr, wd, b1, b2, eps = 0.9, 0.99, 0.01, 0.1, 0.9, 0.999, 1e-8
        state = (var.npu(), m.npu(), v.npu())
        torch_npu.npu_apply_adam_w(b1p, b2p, lr, wd, b1, b2, eps, grad.npu(), None, False, False, out=state)
        m1 = b1 * m + (1 - b1) * grad
        v1 = b2 * v + (1 - b2) * grad * grad
        var1 = var - lr * wd * var - lr * (m1 / (1 - b1p * b1)) / ((v1 / (1 - b2p * b2)).sqrt() + eps)
        for got, want in zip(state, (var1, m1, v1)):
            torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-6)
    """, env={"ACLNN_SIM_SOC": "Ascend950"})
