"""Random ops on device="npu" (torch.rand, randn, normal_, uniform_, bernoulli, randint, randperm,
multinomial, dropout and its backward, rrelu: the random family through op-plugin's aclnnInplaceNormal,
aclnnInplaceUniform, aclnnInplaceBernoulli(Tensor), aclnnInplaceRandom, aclnnRandperm, aclnnMultinomial,
aclnnDropoutV3 or aclnnDropoutGenMaskV2 + aclnnDropoutDoMask, aclnnRReluWithNoise). Their values are not
PyTorch's CPU generator's: the script checks that torch.manual_seed makes them repeat, that the next
call draws others, and that each follows the law of the same op on the CPU (a two-sample
Kolmogorov-Smirnov distance below its critical value at 1e-6) and its invariants."""


# A two-sample Kolmogorov-Smirnov distance and its critical value at a significance of 1e-6.
KS = """
        import math

        def ks_distance(a, b):
            a, b = a.double().flatten().sort().values, b.double().flatten().sort().values
            points = torch.cat([a, b]).unique()
            fa = torch.searchsorted(a, points, right=True) / a.numel()
            fb = torch.searchsorted(b, points, right=True) / b.numel()
            return float((fa - fb).abs().max()), 2.69 * math.sqrt((a.numel() + b.numel()) / (a.numel() * b.numel()))
"""


def test_random_ops_repeat_after_seeding_and_follow_the_cpu_law(run_npu):
    run_npu(KS + """
        import torch.nn.functional as F

        def rrelu_slopes(d):
            x = -torch.ones(20000, device=d)
            return F.rrelu(x, 0.1, 0.4, training=True) / x

        def dropout_grad(d):
            x = torch.ones(20000, device=d, requires_grad=True)
            F.dropout(x, 0.25).sum().backward()
            return x.grad

        ops = {
            "rand": lambda d: torch.rand(20000, device=d),
            "randn float16": lambda d: torch.randn(20000, device=d, dtype=torch.float16),
            "normal_": lambda d: torch.empty(20000, device=d).normal_(2.0, 3.0),
            "uniform_": lambda d: torch.empty(20000, device=d).uniform_(-1.0, 5.0),
            "bernoulli": lambda d: torch.bernoulli(torch.full((20000,), 0.3, device=d)),
            "bernoulli_ tensor p": lambda d: torch.zeros(20000, device=d).bernoulli_(torch.linspace(0, 1, 20000, device=d)),
            "randint": lambda d: torch.randint(-3, 9, (20000,), device=d),
            "random_": lambda d: torch.empty(20000, dtype=torch.int32, device=d).random_(0, 1000),
            "multinomial": lambda d: torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4], device=d), 20000, replacement=True),
            "multinomial no replacement": lambda d: torch.multinomial(torch.rand(400, 30, device=d) + 0.01, 10),
            "dropout": lambda d: F.dropout(torch.ones(20000, device=d), 0.25),
            "dropout backward": dropout_grad,
            "rrelu": rrelu_slopes,
        }
        for name, fn in ops.items():
            torch.manual_seed(1234)
            first = fn("npu").cpu()
            following = fn("npu").cpu()
            torch.manual_seed(1234)
            again = fn("npu").cpu()
            assert torch.equal(first, again), (name, "differs after torch.manual_seed(1234) again")
            assert not torch.equal(first, following), (name, "the next call draws the same values")
            want = fn("cpu")
            assert first.dtype == want.dtype and first.shape == want.shape, (name, first.dtype, first.shape)
            distance, critical = ks_distance(first, want)
            assert distance <= critical, (name, distance, critical, first.double().mean(), want.double().mean())

        torch.manual_seed(5)
        perm = torch.randperm(5000, device="npu").cpu()
        assert torch.equal(perm.sort().values, torch.arange(5000)), "randperm is no permutation"
        assert not torch.equal(perm, torch.randperm(5000, device="npu").cpu())
        torch.manual_seed(5)
        assert torch.equal(perm, torch.randperm(5000, device="npu").cpu())

        picked = torch.multinomial(torch.rand(400, 30, device="npu") + 0.01, 10).cpu()
        assert all(len(set(row.tolist())) == 10 for row in picked), "multinomial without replacement repeats"

        # dropout keeps each element scaled by 1 / (1 - p), or zeroes it, and the backward uses the same mask.
        x = torch.randn(20000, device="npu", requires_grad=True)
        y = F.dropout(x, 0.4)
        y.backward(torch.ones_like(y))
        kept = y.detach().cpu() != 0
        assert torch.allclose(y.detach().cpu()[kept], x.detach().cpu()[kept] / 0.6, rtol=1e-5, atol=1e-6)
        assert torch.equal(x.grad.cpu(), kept.float() / 0.6)
        assert abs(float(kept.float().mean()) - 0.6) < 0.02, kept.float().mean()

        # An eval-mode dropout and rrelu draw nothing.
        z = torch.randn(100, device="npu")
        assert torch.equal(F.dropout(z, 0.5, training=False).cpu(), z.cpu())
        assert torch.allclose(F.rrelu(z, 0.1, 0.3, training=False).cpu(), F.leaky_relu(z.cpu(), 0.2))
    """)


def test_a_seed_gives_the_same_values_on_any_number_of_threads(run_npu):
    script = """
        import hashlib
        import torch.nn.functional as F
        torch.manual_seed(99)
        values = [torch.randn(300000, device="npu"), torch.rand(300000, device="npu"),
                  torch.bernoulli(torch.full((300000,), 0.5, device="npu")),
                  F.dropout(torch.ones(300000, device="npu"), 0.5), torch.randperm(300000, device="npu")]
        print("digest", hashlib.sha256(b"".join(v.cpu().numpy().tobytes() for v in values)).hexdigest())
    """
    digests = {run_npu(script, env={"ACLNN_SIM_THREADS": threads}).split("digest ")[1].split()[0] for threads in ("1", "2")}
    assert len(digests) == 1, digests


def test_normal_of_tensors_follows_the_cpu_law_on_the_chips_its_pages_support(run_npu):
    # aclnnNormalTensorTensor, TensorFloat and FloatTensor's pages support Ascend 950 only: on the
    # default Ascend910B, torch.normal of tensors fails with 161002 naming the page.
    script = KS + """
        mean, std = torch.linspace(-3, 3, 20000), torch.linspace(0.5, 2, 20000)
        ops = {
            "tensor tensor": lambda d: torch.normal(mean.to(d), std.to(d)),
            "tensor float": lambda d: torch.normal(mean.to(d), 2.0),
            "float tensor": lambda d: torch.normal(1.0, std.to(d)),
        }
        for name, fn in ops.items():
            torch.manual_seed(8)
            first = fn("npu").cpu()
            torch.manual_seed(8)
            assert torch.equal(first, fn("npu").cpu()), name
            distance, critical = ks_distance(first, fn("cpu"))
            assert distance <= critical, (name, distance, critical)
    """
    run_npu(script, env={"ACLNN_SIM_SOC": "Ascend950"})
    refused = run_npu("torch.normal(torch.zeros(4, device='npu'), torch.ones(4, device='npu'))", expect_failure=True)
    assert "aclnnNormalTensorTensor failed, error code is 161002" in refused, refused
