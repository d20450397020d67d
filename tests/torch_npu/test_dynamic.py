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


def test_advanced_indexing_and_assignment(run_npu):
    # x[idx] reaches aclnnIndex (a list with [0]-shaped stand-ins for the dimensions taken whole),
    # x[idx] = v aclnnIndexPutImpl, x[mask] = scalar masked_fill_, masked_scatter_, put_ and
    # index_fill(_), npu_scatter_nd_update and scatter_update theirs.
    output = run_npu("""
        def same(got, want, what):
            assert torch.equal(got.cpu(), want), (what, got.cpu(), want)

        a = torch.randn(4, 5, 3)
        d = a.npu()
        i, j, k = torch.tensor([0, 2, 3]), torch.tensor([1, 4, 0]), torch.tensor([2, 0, 1])
        same(d[i.npu()], a[i], "x[i]")
        same(d[i.npu(), j.npu()], a[i, j], "x[i, j]")
        same(d[:, j.npu()], a[:, j], "x[:, j]")
        same(d[i.npu(), :, k.npu()], a[i, :, k], "x[i, :, k]: the positions' shape first")
        same(d[torch.tensor([-1, 0]).npu()], a[torch.tensor([-1, 0])], "negative positions")
        mask = a[:, :, 0] > 0
        same(d[mask.npu()], a[mask], "x[mask]")
        same(d[d > 0], a[a > 0], "x[x > 0]")
        x, dx = a.clone(), d.clone()
        x[i] = 7.0; dx[i.npu()] = 7.0
        same(dx, x, "x[i] = scalar")
        v = torch.randn(3, 5, 3)
        x[i] = v; dx[i.npu()] = v.npu()
        same(dx, x, "x[i] = tensor")
        x[mask] = 0.5; dx[mask.npu()] = 0.5
        same(dx, x, "x[mask] = scalar")
        w = torch.randn(int(mask.sum()), 3)
        x[mask] = w; dx[mask.npu()] = w.npu()
        same(dx, x, "x[mask] = tensor")
        # A mask with no true element selects nothing: op-plugin's nonzero of it is a [0]-shaped
        # INT64 tensor of positions, not the [0]-shaped stand-in (of self's dtype) for ":".
        none = torch.zeros(4, dtype=torch.bool)
        for accumulate in (False, True):
            x.index_put_((none,), v[0, 0], accumulate=accumulate); dx.index_put_((none.npu(),), v[0, 0].npu(), accumulate=accumulate)
            same(dx, x, f"x.index_put_((all-false mask,), v, accumulate={accumulate})")
        same(d[none.npu()], a[none], "x[all-false mask]")
        # An INT64 x's stand-ins look like positions: a list of nothing else is the mask's positions.
        n, dn = torch.arange(20).reshape(4, 5), torch.arange(20).reshape(4, 5).npu()
        for accumulate in (False, True):
            row = torch.arange(5) * 100
            same(dn.index_put((none.npu(),), row.npu(), accumulate=accumulate),
                 n.index_put((none,), row, accumulate=accumulate), f"INT64 x.index_put((all-false mask,), v, {accumulate})")
        same(dn[none.npu()], n[none], "INT64 x[all-false mask]")
        twice = torch.tensor([0, 0, 2])
        x.index_put_((twice,), v, accumulate=True); dx.index_put_((twice.npu(),), v.npu(), accumulate=True)
        assert torch.allclose(dx.cpu(), x, atol=1e-6), "index_put_ accumulating a repeated position"
        source = torch.randn(4, 5, 3)
        same(d.clone().masked_scatter_((d > 0), source.npu()), a.clone().masked_scatter_(a > 0, source), "masked_scatter_")
        at, values = torch.tensor([0, 7, -1]), torch.tensor([1.0, 2.0, 3.0])
        same(d.clone().put_(at.npu(), values.npu()), a.clone().put_(at, values), "put_")
        # A zero-dimensional tensor is one element (masked_select's backward scatters into one).
        one, yes, two = torch.tensor(2.0), torch.tensor(True), torch.tensor([5.0, 6.0])
        same(one.npu().masked_scatter(yes.npu(), two.npu()), one.masked_scatter(yes, two), "0-d masked_scatter")
        same(one.npu().put(torch.tensor([0]).npu(), two[:1].npu()), one.put(torch.tensor([0]), two[:1]), "0-d put")
        same(torch.index_fill(d, 0, i.npu(), 1.5), torch.index_fill(a, 0, i, 1.5), "index_fill")
        same(d.clone().index_fill_(1, torch.tensor([-1]).npu(), -2.0), a.clone().index_fill_(1, torch.tensor([-1]), -2.0),
             "index_fill_")
        rows, updates = torch.tensor([[0, 1], [3, 4]]), torch.randn(2, 3)
        want = a.clone()
        want[rows[:, 0], rows[:, 1]] = updates
        same(torch_npu.npu_scatter_nd_update(d, rows.npu(), updates.npu()), want, "npu_scatter_nd_update")
        cache, step, starts = torch.randn(2, 3, 6, 4), torch.randn(2, 3, 1, 4), torch.tensor([1, 5])
        want = cache.clone()
        for b in range(2):
            want[b, :, starts[b]:starts[b] + 1] = step[b]
        same(torch.ops.npu.scatter_update(cache.npu(), starts.npu(), step.npu(), -2), want, "scatter_update (a KV cache's write)")
        print("checked")
    """)
    assert "checked" in output, output
