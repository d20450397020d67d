"""Operators whose output extent the data decides, through torch_npu: op-plugin allocates the
largest output, runs the aclnn API synchronously and resizes the output to the view shape the
simulator's kernel set (aclGetViewShape). Results equal PyTorch on the CPU."""


def test_printing_masked_select_nonzero_unique_and_equal(run_npu):
    # One process for the lot: each starts torch_npu on the simulator, which takes seconds.
    output = run_npu("""
        def same(got, want, what):
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            assert len(got) == len(want) and all(torch.equal(g.cpu(), w) for g, w in zip(got, want)), (what, got, want)

        a = torch.randn(3, 4)
        d = a.npu()
        # Printing a tensor calls masked_select (torch's formatter looks for non-finite values).
        print(d)
        print(d.half())
        mask = a > 0
        same(torch.masked_select(d, mask.npu()), torch.masked_select(a, mask), "masked_select")
        same(torch.masked_select(d, mask[0].npu()), torch.masked_select(a, mask[0]), "masked_select broadcast")
        same(torch.masked_select(d, torch.zeros(3, 4, dtype=torch.bool).npu()), a[:0, 0], "nothing selected")
        same(torch.nonzero(d > 0), torch.nonzero(a > 0), "nonzero")
        same(torch.nonzero(d.t() > 0), torch.nonzero(a.t() > 0), "nonzero of a transposed view")
        same(torch.nonzero(d > 0, as_tuple=True), torch.nonzero(a > 0, as_tuple=True), "nonzero as_tuple")
        ints = torch.randint(0, 4, (5, 6))
        di = ints.npu()
        for kw in ({}, {"return_inverse": True}, {"return_counts": True},
                   {"return_inverse": True, "return_counts": True}, {"dim": 1}, {"dim": 0, "return_counts": True}):
            same(torch.unique(di, **kw), torch.unique(ints, **kw), f"unique {kw}")
        same(torch.unique(d.half()), torch.unique(a.half()), "unique of FLOAT16")
        for kw in ({}, {"return_inverse": True, "return_counts": True}, {"dim": 0, "return_counts": True}):
            same(torch.unique_consecutive(di, **kw), torch.unique_consecutive(ints, **kw), f"unique_consecutive {kw}")
        assert torch.equal(d, d) and not torch.equal(d, d + 1) and not torch.equal(d, d[:2])
        print("checked")
    """)
    assert "checked" in output and "device='npu:0'" in output, output
