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


def test_searchsorted_and_bucketize_equal_the_cpu(run_npu):
    # Tensor values reach aclnnSearchSorted (bucketize too, off Ascend 950): batched rows, both sides
    # and INT32 positions, ties included (the values are drawn from the sequence). sorter= is left to
    # the generated suite: op-plugin's route for it calls aclnnAminmax, which no page of op_docs/ binds.
    run_npu("""
        seq = torch.randint(0, 6, (3, 7)).float().sort(-1).values
        values = torch.randint(0, 7, (3, 5)).float()
        for right in (False, True):
            for out_int32 in (False, True):
                got = torch.searchsorted(seq.npu(), values.npu(), right=right, out_int32=out_int32).cpu()
                want = torch.searchsorted(seq, values, right=right, out_int32=out_int32)
                assert got.dtype == want.dtype and torch.equal(got, want), (right, out_int32, got, want)
        bounds = torch.tensor([1, 3, 5, 7])
        ints = torch.randint(0, 9, (6,))
        assert torch.equal(torch.bucketize(ints.npu(), bounds.npu()).cpu(), torch.bucketize(ints, bounds))
    """)
