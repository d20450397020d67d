"""What the generated suites' one valid call per API leaves out of the grouped_bias_add_grad,
group_quant, sign_bits, as_strided and lora families: the grouped forms the suites cannot call (their
group ends must increase to the rows), torch_npu's documented bits, a strided view of a strided input, and
the values each engine refuses by name, in phase 1 or phase 2 (device data), never computed wrong."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_grouped_bias_add_grad_sums_the_groups_its_ends_or_sizes_give_and_refuses_others():
    check(r'''
g = rng.standard_normal((7, 5)).astype(np.float32)
def grad(idx, kind):
    return host(aclnn.grouped_bias_add_grad_v2(g, np.array(idx, np.int64), kind,
                                               out=np.zeros((len(idx), 5), np.float32)))
want = np.stack([g[0:3].sum(0), g[3:3].sum(0), g[3:7].sum(0)])  # an empty group sums to 0
assert np.allclose(grad([3, 3, 7], 0), want, atol=1e-5)
assert np.allclose(grad([3, 0, 4], 1), want, atol=1e-5)
# The ends are device data: those the pages rule out fault in phase 2, named.
refused(lambda: grad([4, 3, 7], 0), 507015, ["groupIdxOptional", "element 1 is 3"])
refused(lambda: grad([3, 3, 6], 0), 507015, ["groupIdxOptional", "not at gradY's 7 rows"])
refused(lambda: grad([3, 3, 7], 2), 161002, ["groupIdxType", "2"])
''')


def test_group_quant_scales_each_group_of_rows_by_its_own_row_and_faults_on_invalid_counts():
    check(r'''
x = rng.uniform(-60, 60, (7, 6)).astype(np.float32)
scale = rng.uniform(0.5, 2.0, (3, 6)).astype(np.float32)
offset = np.array([1.5], np.float32)
def quant(ends):
    return host(aclnn.group_quant(x, scale, np.array(ends, np.int64), offset, 2, out=np.zeros((7, 6), np.int8)))
rows = np.repeat([0, 1, 2], [2, 0, 5])  # an empty middle group
want = np.clip(np.round(x * scale[rows] + offset), -128, 127).astype(np.int8)
assert np.array_equal(quant([2, 2, 7]), want)
# The counts are device data: those the page's constraint rules out fault in phase 2, named.
refused(lambda: quant([3, 2, 7]), 507015, ["groupIndex", "element 1 is 2", "non-decreasing"])
refused(lambda: quant([2, 2, 6]), 507015, ["groupIndex", "element 2 is 6", "x's first dimension 7"])
''')


def test_sign_bits_pack_gives_torch_npus_documented_bytes():
    check(r'''
# torch_npu.npu_sign_bits_pack's documented example: 0 packs as a set bit, the tail as clear ones.
a = np.array([5, 4, 3, 2, 0, -1, -2, 4, 3, 2, 1, 0, -1, -2], np.float32)
got = host(aclnn.sign_bits_pack(a, 2, out=np.zeros((2, 1), np.uint8)))
assert got.tolist() == [[159], [15]], got
refused(lambda: aclnn.sign_bits_pack(a, 3, out=np.zeros((3, 1), np.uint8)), 161002, ["size", "3"])
''')


def test_as_strided_reads_a_strided_input_in_row_major_order_and_refuses_views_past_it():
    check(r'''
x = rng.standard_normal((5, 4)).astype(np.float32).T  # a transposed (non-contiguous) view
got = host(aclnn.as_strided(x, [3, 2], [2, 5], [1], out=np.zeros((3, 2), np.float32)))
want = torch.as_strided(torch.from_numpy(np.ascontiguousarray(x)).flatten(), (3, 2), (2, 5), 1).numpy()
assert np.array_equal(got, want), (got, want)
refused(lambda: aclnn.as_strided(x, [3, 2], [2, 5], [11], out=np.zeros((3, 2), np.float32)), 161002,
        ["reaches element 20"])
''')


def test_add_lora_without_weight_a_in_place_and_its_refusals():
    check(r'''
y = rng.standard_normal((3, 32)).astype(np.float16)
x = rng.standard_normal((3, 16)).astype(np.float16)
b = rng.standard_normal((2, 2, 16, 16)).astype(np.float16)
idx = np.array([1, 0, 1], np.int32)
got = host(aclnn.add_lora(y, x, b, idx, None, 1, 0.25, 16, 16, out=np.zeros_like(y)))
want = y.astype(np.float32)
want[:, 16:] += np.einsum("br,bhr->bh", x.astype(np.float32), b[idx, 1].astype(np.float32)) * 0.25
assert np.allclose(got.astype(np.float32), want, rtol=1e-3, atol=1e-2)
refused(lambda: aclnn.add_lora(y, x, b, np.array([1, 2, 0], np.int32), None, 1, 0.25, 16, 16, out=np.zeros_like(y)),
        507015, ["indices", "element 1 is 2"])
refused(lambda: aclnn.add_lora(y, x, b, idx, None, 1, 0.25, 0, 32, out=np.zeros_like(y)), 561002, ["ySliceSize", "H2 16"])
refused(lambda: aclnn.add_lora(y, x, b, idx, None, 2, 0.25, 16, 16, out=np.zeros_like(y)), 561002, ["layerIdx"])
''')


def test_top_k_top_p_sample_v2_intermediate_results_are_the_kept_probabilities_in_order():
    # isNeedSampleResult (op-plugin's multiNomial path), which the generated suite's q-given call cannot reach:
    # logitsSortMasked the kept probabilities in the order the steps read them (softmax over the top-k set), 0
    # after them; logitsIdx their input indices, the dropped places after them in the same order.
    check(r'''
rows, vocab = 4, 12
x = rng.standard_normal((rows, vocab)).astype(np.float32)
k = np.array([3, 0, 20, 5], np.int32)       # top 3; skipped; skipped (> vocab); top 5
p = np.array([1.0, 0.5, 2.0, -1.0], np.float32)  # skipped; top-p; skipped; the largest alone
min_ps = np.array([0.5, 0.0, 0.3, 0.0], np.float32)  # row 2: min-p alone, so the row's own order
def ks(i):
    return np.argsort(-x[i].astype(np.float64), kind="stable")
want_idx, want_probs = np.zeros((rows, vocab), np.int64), np.zeros((rows, vocab), np.float32)
for b in range(rows):
    d = x[b].astype(np.float64)
    if b == 0:
        order = ks(b); e = np.exp(d[order[:3]] - d[order[0]]); prob = e / e.sum(); keep = prob >= prob.max() * 0.5
    elif b == 1:
        order = ks(b); prob = np.exp(d[order] - d[order[0]]); prob /= prob.sum()
        keep = (np.cumsum(prob) - prob) <= 0.5
    elif b == 2:
        order = np.arange(vocab); prob = np.exp(d - d.max()); prob /= prob.sum(); keep = prob >= prob.max() * 0.3
    else:
        order = ks(b); e = np.exp(d[order[:5]] - d[order[0]]); prob = e / e.sum(); keep = np.arange(5) == 0
    kept = np.flatnonzero(keep)
    want_idx[b] = np.concatenate([order[kept], np.delete(order, kept)])
    want_probs[b, :len(kept)] = prob[kept]
_, _, idx, probs = aclnn.top_k_top_p_sample_v2(
    x, k, p, None, min_ps, 1e-8, False, 32, 1024, True, True,
    out=(np.zeros((rows, 1), np.int64), None, np.zeros((rows, vocab), np.int64), np.zeros((rows, vocab), np.float32)))
assert np.array_equal(host(idx), want_idx), (host(idx), want_idx)
assert np.allclose(host(probs), want_probs, rtol=1e-6, atol=1e-7), (host(probs), want_probs)
# The page: q must be null with isNeedSampleResult.
refused(lambda: aclnn.top_k_top_p_sample_v2(
    x, k, p, np.ones((rows, vocab), np.float32), min_ps, 1e-8, False, 32, 1024, True, True,
    out=(np.zeros((rows, 1), np.int64), None, np.zeros((rows, vocab), np.int64), np.zeros((rows, vocab), np.float32))),
    161002, ["isNeedSampleResult"])
''')
