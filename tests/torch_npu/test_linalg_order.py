"""The order, linalg and counting families through torch_npu: torch.kthvalue, median, nanmedian,
repeat_interleave (and its backward), addr, linalg.cross, inverse, cdist (and its backward), pdist,
slogdet, cholesky, triangular_solve, renorm, fill_diagonal_, channel_shuffle, isin, bincount,
trace, angle, the foreach roundings and torch_npu's _npu_index_add on device="npu" equal PyTorch on
the CPU, indices included (among equal values too: the integer rows repeat values); QR and SVD,
unique only up to signs, are checked sign-independently (the factors rebuild the matrix, are
orthonormal, and equal PyTorch's in magnitude)."""


SAME = """
def same(name, got, want, exact=True):
    got = [g.cpu() for g in got] if isinstance(got, (tuple, list)) else [got.cpu()]
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g, w)
        if not g.is_floating_point():
            ok = torch.equal(g, w)
        else:  # NaN where PyTorch has NaN; exact: the same bits otherwise
            ok = torch.allclose(g, w, rtol=0 if exact else 1e-4, atol=0 if exact else 1e-5, equal_nan=True)
        assert ok, (name, g, w)
"""


def test_order_and_linalg_ops_equal_the_cpu(run_npu):
    run_npu(SAME + """
x = torch.randn(5, 7)
ints = torch.randint(0, 4, (6, 9), dtype=torch.int32)
x_nan = x.clone()
x_nan[1, 2] = float("nan")
x_nan[3, :] = float("nan")
for t in (x, ints):
    same("kthvalue", torch.kthvalue(t.npu(), 3, 1), torch.kthvalue(t, 3, 1))
    same("kthvalue keepdim", torch.kthvalue(t.npu(), 2, 0, True), torch.kthvalue(t, 2, 0, True))
    same("median", torch.median(t.npu()), torch.median(t))
    same("median dim", torch.median(t.npu(), 1), torch.median(t, 1))
same("median NaN", torch.median(x_nan.npu(), 1), torch.median(x_nan, 1))
same("nanmedian", torch.nanmedian(x_nan.npu()), torch.nanmedian(x_nan))
same("nanmedian dim", torch.nanmedian(x_nan.npu(), 1, True), torch.nanmedian(x_nan, 1, True))

r = torch.tensor([1, 0, 3, 2, 2])
same("repeat_interleave int", x.npu().repeat_interleave(3), x.repeat_interleave(3))
same("repeat_interleave int dim", x.npu().repeat_interleave(2, dim=1), x.repeat_interleave(2, dim=1))
same("repeat_interleave tensor dim", x.npu().repeat_interleave(r.npu(), dim=0), x.repeat_interleave(r, dim=0))
same("repeat_interleave counts", torch.repeat_interleave(r.npu()), torch.repeat_interleave(r))

v1, v2, m = torch.randn(5), torch.randn(7), torch.randn(5, 7)
same("addr", torch.addr(m.npu(), v1.npu(), v2.npu(), beta=0.5, alpha=2), torch.addr(m, v1, v2, beta=0.5, alpha=2), exact=False)
a, b = torch.randn(4, 3, 2), torch.randn(4, 3, 2)
same("cross", torch.linalg.cross(a.npu(), b.npu(), dim=1), torch.linalg.cross(a, b, dim=1), exact=False)
square = torch.randn(3, 4, 4) + 4 * torch.eye(4)
same("inverse", torch.inverse(square.npu()), torch.inverse(square), exact=False)
p1, p2 = torch.randn(2, 6, 3), torch.randn(2, 8, 3)
for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
    same(f"cdist p={p}", torch.cdist(p1.npu(), p2.npu(), p=p), torch.cdist(p1, p2, p=p), exact=False)

same("slogdet", torch.slogdet(square.npu()), torch.slogdet(square), exact=False)
spd = square @ square.mT
same("cholesky", torch.linalg.cholesky(spd.npu()), torch.linalg.cholesky(spd), exact=False)
same("cholesky upper", torch.linalg.cholesky(spd.npu(), upper=True), torch.linalg.cholesky(spd, upper=True), exact=False)
rhs = torch.randn(3, 4, 2)
for upper, transpose, unit in [(True, False, False), (False, True, True)]:
    same("triangular_solve", torch.triangular_solve(rhs.npu(), square.npu(), upper, transpose, unit),
         torch.triangular_solve(rhs, square, upper, transpose, unit), exact=False)

def orthonormal_columns(q):
    eye = torch.eye(q.shape[-1]).expand(q.shape[:-2] + (q.shape[-1], q.shape[-1]))
    return torch.allclose(q.mT @ q, eye, atol=1e-5)

# An empty matrix has nothing to factor; its complete Q is an identity.
for shape in [(5, 0), (2, 0, 3), (0, 0)]:
    for mode in ("reduced", "complete", "r"):
        got, want = torch.linalg.qr(torch.ones(shape).npu(), mode), torch.linalg.qr(torch.ones(shape), mode)
        assert all(g.shape == w.shape and torch.equal(g.cpu(), w) for g, w in zip(got, want)), ("qr", shape, mode)
for shape in [(2, 5, 3), (2, 3, 4)]:
    a = torch.randn(shape)
    for mode in ("reduced", "complete"):
        q, r = (t.cpu() for t in torch.linalg.qr(a.npu(), mode))
        q_cpu, r_cpu = torch.linalg.qr(a, mode)
        assert q.shape == q_cpu.shape and r.shape == r_cpu.shape, (mode, q.shape, r.shape)
        assert torch.allclose(q @ r, a, atol=1e-5) and orthonormal_columns(q), ("qr", mode)
        assert torch.allclose(r.abs(), r_cpu.abs(), atol=1e-5) and torch.equal(r, r.triu()), ("qr", mode)
    assert torch.allclose(torch.linalg.svdvals(a.npu()).cpu(), torch.linalg.svdvals(a), atol=1e-5), "svdvals"
    u, s, vh = (t.cpu() for t in torch.linalg.svd(a.npu(), full_matrices=False))
    u_cpu, s_cpu, vh_cpu = torch.linalg.svd(a, full_matrices=False)
    assert torch.allclose(s, s_cpu, atol=1e-5), ("svd", s, s_cpu)
    assert torch.allclose(u * s.unsqueeze(-2) @ vh, a, atol=1e-5), "svd"
    assert orthonormal_columns(u) and orthonormal_columns(vh.mT), "svd"
    assert torch.allclose(u.abs(), u_cpu.abs(), atol=1e-5) and torch.allclose(vh.abs(), vh_cpu.abs(), atol=1e-5)
# aclnnSvd's rank column (sigma 2 to 7, u 2 to 8) contradicts its own shapes: one matrix's 1-D sigma
# and svdvals' empty U compute (client ranks, semantics/linalg.toml).
one = torch.randn(3, 4)
assert torch.allclose(torch.linalg.svd(one.npu())[1].cpu(), torch.linalg.svd(one)[1], atol=1e-5), "svd of one matrix"

counts = torch.randint(0, 6, (30,))
same("bincount", torch.bincount(counts.npu()), torch.bincount(counts))
w = torch.randn(30)
same("bincount weighted", torch.bincount(counts.npu(), w.npu(), 9), torch.bincount(counts, w, 9), exact=False)
same("trace", torch.trace(x.npu()), torch.trace(x), exact=False)
same("trace int", torch.trace(ints.npu()), torch.trace(ints))

members = [torch.randn(3, 4) * 3, torch.randn(5) * 3]
for name in ("round", "floor", "ceil", "trunc"):  # aclnnForeachRoundOffNumberV2's modes 1, 2, 3, 5
    fn = getattr(torch, f"_foreach_{name}")
    same(f"_foreach_{name}", fn([t.npu() for t in members]), fn(members))
same("angle", torch.angle(x_nan.npu()), torch.angle(x_nan))

same("renorm", torch.renorm(x.npu(), 2, 0, 1.0), torch.renorm(x, 2, 0, 1.0), exact=False)
in_place = x.npu()
in_place.renorm_(1, 1, 0.5)
same("renorm_", in_place, x.clone().renorm_(1, 1, 0.5), exact=False)
for p in (2.0, 3.0):
    same(f"pdist p={p}", torch.nn.functional.pdist(x.npu(), p), torch.nn.functional.pdist(x, p), exact=False)
tall = torch.zeros(7, 3)
filled = tall.npu()
filled.fill_diagonal_(2.5, wrap=True)
same("fill_diagonal_", filled, tall.clone().fill_diagonal_(2.5, wrap=True))
channels = torch.randn(2, 6, 3, 2)
same("channel_shuffle", torch.nn.functional.channel_shuffle(channels.npu(), 3),
     torch.nn.functional.channel_shuffle(channels, 3))
tests = torch.tensor([1.0, 2.0, 3.0])
for element, invert in [(2.0, False), (5.0, True), (5.0, False)]:
    same("isin", torch.isin(element, tests.npu(), invert=invert), torch.isin(element, tests, invert=invert))

# aclnnIndexAddV2 in mode 0, where the page says the device leaves alpha out: refused unless 1.
index_add = torch.ops.npu._npu_index_add
idx, src = torch.tensor([0, 4, 4, 1]), torch.randn(4, 7)
same("_npu_index_add", index_add(x.npu(), idx.npu(), src.npu()), x.index_add(0, idx, src), exact=False)
try:
    index_add(x.npu(), idx.npu(), src.npu(), alpha=2)
except RuntimeError as error:
    assert "alpha must be 1 in mode 0" in str(error), error
else:
    raise AssertionError("mode 0 with alpha 2 was not refused")
""")


def test_backwards_on_ascend950(run_npu):
    """aclnnRepeatInterleaveGrad's page supports Ascend 950 alone, and op-plugin sends cdist's
    backward to aclnnCdistBackward for every p there only (elsewhere p in [0, 2] and inf go to aclop)."""
    run_npu(SAME + """
x = torch.randn(5, 7)
r = torch.tensor([1, 0, 3, 2, 2])
weights = torch.randn(int(r.sum()), 7)
leaf, on_npu = x.clone().requires_grad_(), x.npu().requires_grad_()
(leaf.repeat_interleave(r, dim=0) * weights).sum().backward()
(on_npu.repeat_interleave(r.npu(), dim=0) * weights.npu()).sum().backward()
same("repeat_interleave backward", on_npu.grad, leaf.grad, exact=False)
p1, p2 = torch.randn(2, 6, 3), torch.randn(2, 8, 3)
for p in (1.0, 2.0, 3.0, float("inf")):
    a, b = p1.clone().requires_grad_(), p1.npu().requires_grad_()
    torch.cdist(a, p2, p=p).sum().backward()
    torch.cdist(b, p2.npu(), p=p).sum().backward()
    same(f"cdist backward p={p}", b.grad, a.grad, exact=False)
""", env={"ACLNN_SIM_SOC": "Ascend950"})
