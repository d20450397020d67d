"""torch._foreach_* ops and the optimizers built on them, through op-plugin's aclnnForeach* calls on
the simulator: lists of npu tensors of different shapes give what the same ops give on CPU."""

import textwrap


def test_foreach_ops_equal_cpu(run_npu):
    run_npu("""
        xs = [torch.randn(3, 4), torch.randn(5), torch.randn(2, 1, 3)]
        ys = [torch.randn_like(t) for t in xs]
        zs = [torch.rand_like(t) + 0.5 for t in xs]
        npu = lambda ts: [t.npu() for t in ts]
        nx, ny, nz = npu(xs), npu(ys), npu(zs)
        wide = [t * 7 for t in xs]
        f = torch
        cases = {
            "add list": (f._foreach_add(nx, ny), f._foreach_add(xs, ys)),
            "add list alpha": (f._foreach_add(nx, ny, alpha=-2.5), f._foreach_add(xs, ys, alpha=-2.5)),
            "add scalar": (f._foreach_add(nx, 1.5), f._foreach_add(xs, 1.5)),
            "add scalar list": (f._foreach_add(nx, [1.0, 2.0, -3.0]), f._foreach_add(xs, [1.0, 2.0, -3.0])),
            "sub list": (f._foreach_sub(nx, ny, alpha=0.5), f._foreach_sub(xs, ys, alpha=0.5)),
            "sub scalar": (f._foreach_sub(nx, 2.0), f._foreach_sub(xs, 2.0)),
            "mul list": (f._foreach_mul(nx, ny), f._foreach_mul(xs, ys)),
            "mul scalar": (f._foreach_mul(nx, 0.9), f._foreach_mul(xs, 0.9)),
            "mul scalar list": (f._foreach_mul(nx, [0.5, 2.0, 3.0]), f._foreach_mul(xs, [0.5, 2.0, 3.0])),
            "div list": (f._foreach_div(nx, nz), f._foreach_div(xs, zs)),
            "div scalar": (f._foreach_div(nx, 3.0), f._foreach_div(xs, 3.0)),
            "addcmul": (f._foreach_addcmul(nx, ny, nz, value=0.1), f._foreach_addcmul(xs, ys, zs, value=0.1)),
            "addcdiv": (f._foreach_addcdiv(nx, ny, nz, value=-0.3), f._foreach_addcdiv(xs, ys, zs, value=-0.3)),
            "addcdiv scalars": (f._foreach_addcdiv(nx, ny, nz, [0.1, 0.2, 0.3]),
                                f._foreach_addcdiv(xs, ys, zs, [0.1, 0.2, 0.3])),
            "lerp scalar": (f._foreach_lerp(nx, ny, 0.3), f._foreach_lerp(xs, ys, 0.3)),
            "lerp list": (f._foreach_lerp(nx, ny, npu([t - 0.5 for t in zs])),
                          f._foreach_lerp(xs, ys, [t - 0.5 for t in zs])),
            "maximum": (f._foreach_maximum(nx, ny), f._foreach_maximum(xs, ys)),
            "minimum scalar": (f._foreach_minimum(nx, 0.2), f._foreach_minimum(xs, 0.2)),
            "pow scalar": (f._foreach_pow(nz, 2.5), f._foreach_pow(zs, 2.5)),
            "pow list": (f._foreach_pow(nz, ny), f._foreach_pow(zs, ys)),
            "sqrt": (f._foreach_sqrt(nz), f._foreach_sqrt(zs)), "exp": (f._foreach_exp(nx), f._foreach_exp(xs)),
            "log": (f._foreach_log(nz), f._foreach_log(zs)), "neg": (f._foreach_neg(nx), f._foreach_neg(xs)),
            "abs": (f._foreach_abs(nx), f._foreach_abs(xs)), "sign": (f._foreach_sign(nx), f._foreach_sign(xs)),
            "sigmoid": (f._foreach_sigmoid(nx), f._foreach_sigmoid(xs)),
            "reciprocal": (f._foreach_reciprocal(nz), f._foreach_reciprocal(zs)),
            "tanh": (f._foreach_tanh(nx), f._foreach_tanh(xs)), "erf": (f._foreach_erf(nx), f._foreach_erf(xs)),
            # aclnnForeachRoundOffNumberV2 with op-plugin's roundMode 7 (frac) and 1, 2, 5.
            "frac": (f._foreach_frac(npu(wide)), f._foreach_frac(wide)),
            "round": (f._foreach_round(npu(wide)), f._foreach_round(wide)),
            "floor": (f._foreach_floor(npu(wide)), f._foreach_floor(wide)),
            "trunc": (f._foreach_trunc(npu(wide)), f._foreach_trunc(wide)),
        }
        for name, (got, want) in cases.items():
            assert len(got) == len(want), name
            for g, w in zip(got, want):
                assert g.device.type == "npu" and g.shape == w.shape, name
                torch.testing.assert_close(g.cpu(), w, rtol=1e-5, atol=1e-6, msg=name)
        # In place: the list given is the list written.
        a, na = [t.clone() for t in xs], [t.clone() for t in nx]
        torch._foreach_mul_(a, 2.0); torch._foreach_mul_(na, 2.0)
        torch._foreach_add_(a, ys, alpha=3); torch._foreach_add_(na, ny, alpha=3)
        torch._foreach_addcmul_(a, ys, zs, value=0.5); torch._foreach_addcmul_(na, ny, nz, value=0.5)
        torch._foreach_zero_(a[:1]); torch._foreach_zero_(na[:1])
        torch._foreach_frac_(a); torch._foreach_frac_(na)
        for g, w in zip(na, a):
            torch.testing.assert_close(g.cpu(), w, rtol=1e-5, atol=1e-6)
        # FLOAT16 members compute in float, rounded once, as on CPU.
        h, nh = [t.half() for t in xs], [t.half() for t in nx]
        for g, w in zip(torch._foreach_add(nh, nh, alpha=0.5), torch._foreach_add(h, h, alpha=0.5)):
            torch.testing.assert_close(g.cpu(), w, rtol=1e-3, atol=1e-3)
    """)


# Three steps of a small model on npu and on CPU, from the same weights and inputs.
TRAIN = textwrap.dedent("""
    import copy
    def train(model, make_optimizer, device, scaler=None):
        model = copy.deepcopy(model).to(device)
        opt = make_optimizer(model.parameters())
        torch.manual_seed(1)
        for _ in range(3):
            x = torch.randn(8, 6).to(device)
            loss = model(x).square().mean()
            opt.zero_grad()
            if scaler is None:
                loss.backward()
                opt.step()
            else:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
        return [p.detach().cpu() for p in model.parameters()]
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
""")


def test_optimizers_with_foreach_step_as_on_cpu(run_npu):
    run_npu(TRAIN + textwrap.dedent("""
        optimizers = {
            "adamw": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, foreach=True),
            "adamw amsgrad": lambda ps: torch.optim.AdamW(ps, lr=1e-2, amsgrad=True, foreach=True),
            "adam maximize": lambda ps: torch.optim.Adam(ps, lr=1e-2, maximize=True, foreach=True),
            "sgd momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, foreach=True),
        }
        for name, make in optimizers.items():
            for got, want in zip(train(model, make, "npu"), train(model, make, "cpu")):
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=name)
    """))


def test_fused_optimizers_and_grad_scaler_unscale_as_on_cpu(run_npu):
    # fused=True reaches aclnnApplyAdamWV2 and aclnnFusedSgd; GradScaler's unscale_ and update reach
    # aclnnForeachNonFiniteCheckAndUnscale and aclnnAmpUpdateScale.
    run_npu(TRAIN + textwrap.dedent("""
        optimizers = {
            "adamw fused": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1, fused=True),
            "adamw fused amsgrad maximize": lambda ps: torch.optim.AdamW(ps, lr=1e-2, amsgrad=True, maximize=True,
                                                                         fused=True),
            "sgd fused": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, fused=True),
        }
        for name, make in optimizers.items():
            for got, want in zip(train(model, make, "npu"), train(model, make, "cpu")):
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=name)
        # GradScaler.unscale_ (aclnnForeachNonFiniteCheckAndUnscale): the gradients divided by the
        # scale, and a non-finite one found, as on CPU.
        for device in ("npu", "cpu"):
            scaler = torch.amp.GradScaler(device, init_scale=4.0)
            w = torch.nn.Parameter(torch.ones(3, device=device))
            opt = torch.optim.SGD([w], lr=0.1)
            scaler.scale((w * torch.tensor([2.0, 3.0, 4.0], device=device)).sum()).backward()
            scaler.unscale_(opt)
            assert torch.equal(w.grad.cpu(), torch.tensor([2.0, 3.0, 4.0])), device
            w.grad[1] = float("inf")
            found = torch.zeros(1, device=device)
            torch._amp_foreach_non_finite_check_and_unscale_([w.grad], found, torch.ones(1, device=device))
            assert found.item() == 1.0, device
        # GradScaler.update passes its 0-d scale and growth tracker, where aclnnAmpUpdateScale's page says
        # rank 1 (semantics/optim.toml's client_ranks): grown after growth_interval finite steps, backed off
        # and the tracker reset after a non-finite one, as on CPU.
        def scales(device):
            scaler = torch.amp.GradScaler(device, init_scale=4.0, growth_factor=2.0, backoff_factor=0.25,
                                          growth_interval=2)
            w = torch.nn.Parameter(torch.ones(3, device=device))
            opt = torch.optim.SGD([w], lr=0.1)
            seen = []
            for step in range(5):
                opt.zero_grad()
                scaler.scale((w * (float("inf") if step == 3 else 1.0)).sum()).backward()
                scaler.step(opt)
                scaler.update()
                seen.append((scaler.get_scale(), int(scaler._growth_tracker.item())))
            return seen
        got, want = scales("npu"), scales("cpu")
        assert got == want and want[1][0] == 8.0 and want[3][0] == 2.0, (got, want)
    """))
