"""Factories on device="npu" (torch.arange, range, linspace, logspace, eye: the creation family through
op-plugin's aclnnArange, aclnnRange, aclnnLinspace, aclnnLogSpace, aclnnEye) equal PyTorch's on the CPU."""


def test_factories_equal_the_cpu(run_npu):
    run_npu("""
        import warnings
        warnings.simplefilter("ignore")  # torch.range is deprecated
        exact = {
            "arange": lambda d: torch.arange(10, device=d),
            "arange int step": lambda d: torch.arange(-3, 20, 4, device=d),
            "arange float16": lambda d: torch.arange(0, 8, 0.5, dtype=torch.float16, device=d),
            "linspace int": lambda d: torch.linspace(0, 10, 4, dtype=torch.int32, device=d),
            "linspace one": lambda d: torch.linspace(2, 3, 1, device=d),
            "eye": lambda d: torch.eye(4, device=d),
            "eye n m int64": lambda d: torch.eye(3, 5, dtype=torch.int64, device=d),
            "arange out": lambda d: torch.arange(0, 6, out=torch.empty(6, device=d)),
        }
        for name, fn in exact.items():
            got, want = fn("npu").cpu(), fn("cpu")
            assert got.dtype == want.dtype and torch.equal(got, want), (name, got, want)
        close = {
            "arange float": lambda d: torch.arange(0.5, 7.3, 0.7, device=d),
            "arange down": lambda d: torch.arange(5, -5, -1.5, device=d),
            "range": lambda d: torch.range(1, 4, 0.5, device=d),
            "linspace": lambda d: torch.linspace(-2, 3, 11, device=d),
            "logspace": lambda d: torch.logspace(-2, 3, 11, device=d),
            "logspace base 2 float16": lambda d: torch.logspace(-1, 4, 6, base=2, dtype=torch.float16, device=d),
        }
        for name, fn in close.items():
            got, want = fn("npu").cpu(), fn("cpu")
            assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-6, atol=1e-6), (name, got, want)
    """)

