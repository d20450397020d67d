"""torch.histc on device="npu" (op-plugin's aclnnHistc: the counting family) equals PyTorch on the
CPU, its own range included; min > max is refused, never counted."""


def test_histc_equals_the_cpu(run_npu):
    run_npu("""
        x = torch.randn(200)
        for args in [(8, -2, 2), (5, 0, 0), (3, -0.5, 0.25)]:
            got, want = torch.histc(x.npu(), *args).cpu(), torch.histc(x, *args)
            assert got.dtype == want.dtype and torch.equal(got, want), (args, got, want)
        try:
            torch.histc(x.npu(), 4, 2, -2)
        except RuntimeError as error:
            assert "max" in str(error), error
        else:
            raise AssertionError("histc with min > max was not refused")
    """)
