"""Activation backwards, rounded divisions, shifts, gcd, rounding to decimals, closeness and
membership tests and fills through torch_npu's op-plugin: each reaches an aclnn API of the
simulator (named in the comments, from op-plugin's mapping) and equals PyTorch on the CPU."""


def test_activation_backwards_and_logit(run_npu):
    run_npu("""
        F = torch.nn.functional
        x, g, p = torch.randn(4, 5) * 3, torch.randn(4, 5), torch.rand(4, 5)

        def grad_of(fn, x, device):
            t = x.clone().to(device).requires_grad_()
            fn(t).backward(g.to(device))
            return t.grad.cpu()

        cases = {
            "hardswish": F.hardswish,  # aclnnHardswishBackwardV2 (where the simulator has it)
            "logit": lambda t: torch.logit(t, 0.1),  # aclnnLogit, aclnnLogitGrad
        }
        for name, fn in cases.items():
            arg = p if name == "logit" else x
            assert torch.allclose(grad_of(fn, arg, "npu"), grad_of(fn, arg, "cpu"), atol=1e-5), name
        assert torch.allclose(torch.logit(p.npu(), 0.1).cpu(), torch.logit(p, 0.1), atol=1e-5)
        # aclnnLogSigmoidBackward; its buffer as aten's forward leaves it.
        buffer = torch.exp(-x.abs())
        got = torch.ops.aten.log_sigmoid_backward(g.npu(), x.npu(), buffer.npu()).cpu()
        assert torch.allclose(got, torch.ops.aten.log_sigmoid_backward(g, x, buffer), atol=1e-6)
        # aclnnAddRelu
        got = torch.ops.aten._add_relu(x.npu(), g.npu(), alpha=2).cpu()
        assert torch.allclose(got, torch.ops.aten._add_relu(x, g, alpha=2), atol=1e-6)
        # aclnnFastGelu: torch_npu's own op, the page's formula
        assert torch.allclose(torch_npu.npu_fast_gelu(x.npu()).cpu(), x / (1 + torch.exp(-1.702 * x)), atol=1e-5)
    """)


def test_integer_math_and_rounding(run_npu):
    run_npu("""
        x, y = torch.randn(4, 5) * 10, torch.randn(4, 5)
        a, b = torch.randint(-20, 20, (4, 5)), torch.randint(1, 5, (4, 5))
        exact = {
            # aclnnDivMod / aclnnDivMods (torch.div's rounding modes)
            "div floor int": lambda d: torch.div(a.to(d), b.to(d), rounding_mode="floor"),
            "div trunc scalar": lambda d: torch.div(a.to(d), 3, rounding_mode="trunc"),
            "floor_divide": lambda d: torch.floor_divide(a.to(d), b.to(d)),
            "lshift": lambda d: a.to(d) << b.to(d),  # aclnnLeftShift
            "rshift": lambda d: a.to(d) >> b.to(d),  # aclnnRightShift
            "gcd": lambda d: torch.gcd(a.to(d), b.to(d) * 6),  # aclnnGcd
            "isclose": lambda d: torch.isclose(y.to(d), (y + x * 1e-4).to(d), rtol=1e-3, atol=1e-4),  # aclnnIsClose
            "isin": lambda d: torch.isin(a.to(d), 3),  # aclnnIsInTensorScalar
        }
        for name, fn in exact.items():
            assert torch.equal(fn("npu").cpu(), fn("cpu")), name
        close = {
            "div floor": lambda d: torch.div(x.to(d), y.to(d), rounding_mode="floor"),
            "div trunc": lambda d: torch.div(x.to(d), y.to(d), rounding_mode="trunc"),
            "round decimals": lambda d: torch.round(x.to(d), decimals=2),  # aclnnRoundDecimals
            "round_ decimals": lambda d: x.to(d).clone().round_(decimals=-1),  # aclnnInplaceRoundDecimals
            "fill_ tensor": lambda d: x.to(d).clone().fill_(torch.tensor(2.5).to(d)),  # aclnnInplaceFillTensor
        }
        for name, fn in close.items():
            assert torch.allclose(fn("npu").cpu(), fn("cpu"), atol=1e-5), name
    """)


def test_comparisons_and_logical_ops_broadcast_and_clamp_takes_one_bound(run_npu):
    # aclnnLtTensor, aclnnLeTensor, aclnnLogicalOr: their out is self's and other's broadcast shape
    # (the pages' "shape与self、other广播之后的shape一致"), a 0-d other included.
    run_npu("""
        a, b, s = torch.randn(5, 1), torch.randn(5), torch.tensor(0.25)
        for name in ("lt", "le", "logical_or"):
            fn = getattr(torch, name)
            for x, y in ((a, b), (b, s), (a.expand(5, 3), s)):
                got, want = fn(x.npu(), y.npu()).cpu(), fn(x, y)
                assert got.shape == want.shape and torch.equal(got, want), (name, x.shape, y.shape, got, want)
        # aclnnClamp with one bound a null pointer (the page refuses only both null).
        for bounds in ({"min": 0.1}, {"max": 0.1}, {"min": -0.5, "max": 0.5}):
            assert torch.equal(torch.clamp(a.npu(), **bounds).cpu(), torch.clamp(a, **bounds)), bounds
        got = a.npu()
        got.clamp_(min=0.2)
        assert torch.equal(got.cpu(), a.clamp(min=0.2))
    """)
