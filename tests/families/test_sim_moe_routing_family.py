"""What the generated suite's one valid call (unquantised, counts, gather indices) leaves out of the
moe_routing family: dynamic quantisation with and without the per-expert smooth scale, key_value
counts, scatter indices and the whole expert range by default, against the golden; and what the
engine refuses by name beyond the page's attribute checks, in phase 1 or phase 2. And finalize_routing
(aclnnMoeFinalizeRouting/V2) without its optional terms, V1's [NUM_ROWS, K] indices, and what it declines.
And the shapes the derived MoE pages' tables exclude (their generated suites cannot provoke those rows)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_routing_modes_equal_the_golden_and_unmodelled_arguments_are_refused():
    # One process for both ops: each costs ~3.5 s to start (torch and the package).
    check(r'''
sys.path.insert(0, sys.argv[1] + "/tests")
from _goldens import exact

rows, k, hidden, expert_num = 5, 3, 8, 8
x = rng.standard_normal((rows, hidden)).astype(np.float32)
idx = rng.integers(0, expert_num, (rows, k)).astype(np.int32)
smooth = rng.uniform(0.5, 2.0, (4, hidden)).astype(np.float32)

def route(quant, tokens_type, row_idx_type, scale=None, offset=None, active=(2, 6), x=x):
    counted = (max(active[1] - active[0], 1) if active else expert_num,) if tokens_type == 1 else (expert_num, 2)
    outs = (np.zeros((rows * k, hidden), np.int8 if quant == 1 else x.dtype), np.zeros(rows * k, np.int32),
            np.zeros(counted, np.int64), np.zeros(rows * k, np.float32))
    return [host(r) for r in aclnn.moe_init_routing_v3(x, idx, scale, offset, rows * k, 0, expert_num, 0, tokens_type,
                                                        True, quant, list(active), row_idx_type, out=outs)]

for quant, tokens_type, row_idx_type, scale, active in ((1, 2, 1, smooth, (2, 6)), (1, 1, 0, None, (2, 6)),
                                                        (-1, 2, 1, None, ()), (-1, 1, 0, None, ())):
    got = route(quant, tokens_type, row_idx_type, scale, active=active)
    want = exact.moe_init_routing_v3(torch.from_numpy(x), torch.from_numpy(idx),
                                     None if scale is None else torch.from_numpy(scale), expert_num, tokens_type,
                                     quant, list(active), row_idx_type)
    for name, g, w in zip(("expandedX", "rowIdx", "tokens", "scale"), got, want):
        assert np.allclose(g, w.numpy(), rtol=1e-6, atol=0), (quant, tokens_type, row_idx_type, name, g, w)

refused(lambda: route(-1, 1, 0, offset=np.zeros(rows, np.float32)), 561002, ["offsetOptional", "is given"])
refused(lambda: route(1, 1, 0, scale=np.ones(rows, np.float32)), 561002, ["scaleOptional", "[4, 8]"])
refused(lambda: route(-1, 1, 0, active=(2, 9)), 561002, ["activeExpertRangeOptional", "expertNum = 8"])
refused(lambda: route(-1, 1, 0, active=(5, 3)), 561002, ["activeExpertRangeOptional"])
# The page leaves an INT8 x's quantisation undefined: declined, phase 2 names it.
refused(lambda: route(1, 1, 0, x=x.astype(np.int8)), 561003, ["quantMode=1", "INT8"])

# finalize_routing (aclnnMoeFinalizeRouting/V2)
rows, k, hidden, experts = 3, 2, 4, 5
expanded = rng.standard_normal((rows * k, hidden)).astype(np.float32)
order = rng.permutation(rows * k).astype(np.int32)
scales = rng.uniform(0.1, 1.0, (rows, k)).astype(np.float32)
x1 = rng.standard_normal((rows, hidden)).astype(np.float32)
bias = rng.standard_normal((experts, hidden)).astype(np.float32)
expert = rng.integers(0, experts, (rows, k)).astype(np.int32)


def formula(x1, bias, expert, order=order):
    # The README's out[i] = x1[i] + sum over k of scales[i, k] * (expandedX[order[i + k * rows]] + bias[expert[i, k]])
    out = np.zeros((rows, hidden), np.float32) if x1 is None else x1.copy()
    flat = order.reshape(-1)
    for s in range(k):
        out += scales[:, s:s + 1] * (expanded[flat[s * rows:(s + 1) * rows]] + (0 if bias is None else bias[expert[:, s]]))
    return out

def v2(scales=scales, x1=None, bias=None, expert=None, mode=0, order=order):
    return host(aclnn.moe_finalize_routing_v2(expanded, order, x1, None, bias, scales, expert, mode,
                                              out=np.zeros((rows, hidden), np.float32)))

for x1_, bias_, expert_ in ((None, None, None), (x1, None, None), (None, bias, expert)):
    assert np.allclose(v2(x1=x1_, bias=bias_, expert=expert_), formula(x1_, bias_, expert_), rtol=1e-6, atol=1e-6)
# V1 reads a [NUM_ROWS, K] expandedRowIdx (its README's shape) flat, as torch_npu's 1-D one.
got = host(aclnn.moe_finalize_routing(expanded, x1, None, bias, scales, order.reshape(rows, k), expert,
                                      out=np.zeros((rows, hidden), np.float32)))
assert np.allclose(got, formula(x1, bias, expert), rtol=1e-6, atol=1e-6)

refused(lambda: v2(bias=bias), 161002, ["expertIdxOptional", "bias"])
refused(lambda: v2(x1=x1[:2]), 161002, ["x1Optional", "out's shape [3,4]"])
refused(lambda: v2(order=order[:5]), 161002, ["expandedRowIdx", "6 indices"])
# What the README leaves open is declined (561003, phase 2), naming it; so is an index the device faults on.
refused(lambda: v2(scales=None), 561003, ["scalesOptional"])
refused(lambda: v2(mode=1), 561003, ["dropPadMode 1"])
refused(lambda: v2(bias=bias, expert=np.full((rows, k), experts, np.int32)), 507015, ["expertIdxOptional", "outside [0, 5)"])
''')


def test_derived_moe_pages_refuse_the_shapes_their_tables_exclude():
    # The rows "...的shape不满足参数说明中的要求" of the derived pages (the V1 routing, the token permutation,
    # re-routing, grouped matmul add), which the generated suites cannot provoke: each shape named.
    check(r'''
x = rng.standard_normal((3, 4)).astype(np.float32)
experts = np.array([[0, 1], [1, 2], [2, 0]], np.int32)
rows = np.arange(6, dtype=np.int32).reshape(2, 3).T.copy()

def init(row_idx=rows, expanded_rows=6):
    return aclnn.moe_init_routing(x, row_idx, experts, 3, out=(np.zeros((expanded_rows, 4), np.float32),
                                                              np.zeros(6, np.int32), np.zeros(6, np.int32)))

refused(lambda: init(row_idx=rows[:, :1].copy()), 161002, ["rowIdx", "expertIdx's shape [3,2]"])
refused(lambda: init(expanded_rows=4), 161002, ["expandedXOut", "[min(NUM_ROWS, activeNum) * K, H]"])
refused(lambda: aclnn.moe_compute_expert_tokens(np.array([0, 1], np.int32), 3, out=np.zeros(2, np.int32)), 161002,
        ["out", "[numExperts]"])

permuted = rng.standard_normal((6, 4)).astype(np.float32)
order = np.array([0, 3, 1, 4, 2, 5], np.int32)
refused(lambda: aclnn.moe_token_unpermute(permuted, order, np.ones((2, 4), np.float32), False, None,
                                          out=np.zeros((3, 4), np.float32)), 161002, ["sortedIndices", "6 indices"])
refused(lambda: aclnn.moe_token_unpermute(permuted, order, np.ones((3, 2), np.float32), False, None,
                                          out=np.zeros((2, 4), np.float32)), 161002, ["out", "[tokens, H]"])

tokens = rng.standard_normal((5, 4)).astype(np.float16)
counts = np.array([[2, 1], [1, 1]], np.int64)
def re_route(scales=None, tokens=tokens):
    a = tokens.shape[0]
    return aclnn.moe_re_routing(tokens, counts, scales, 1, 0, out=(np.zeros_like(tokens), np.zeros(a, np.float32),
                                                                  np.zeros(a, np.int32), np.zeros(2, np.int64)))
refused(lambda: re_route(scales=np.ones(4, np.float32)), 161002, ["perTokenScalesOptional", "[A = 5]"])

y = np.zeros((2, 3, 5), np.float32)
xk, wk = rng.standard_normal((6, 3)).astype(np.float16), rng.standard_normal((6, 4)).astype(np.float16)
refused(lambda: aclnn.grouped_matmul_add(xk, wk, np.array([2, 6], np.int64), y, True, False, 2), 161002,
        ["yRef", "[g, M, N]"])

# The routing-map backward: 3 tokens to 2 of 3 experts each.
routing_map = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], np.int8)
def permute_grad(sorted_indices=order, tokens_num=3, probs_grad=None, out_probs=np.zeros(0, np.float32)):
    return aclnn.moe_token_permute_with_routing_map_grad(permuted, probs_grad, sorted_indices, routing_map, 3, tokens_num,
                                                         False, out=(np.zeros((tokens_num, 4), np.float32), out_probs))
refused(lambda: permute_grad(tokens_num=2), 161002, ["routingMap", "[tokens_num, experts_num] = [2, 3]"])
refused(lambda: permute_grad(sorted_indices=order[:5].copy()), 161002, ["sortedIndices", "5 indices"])
refused(lambda: permute_grad(probs_grad=np.ones(6, np.float32), out_probs=np.zeros((3, 2), np.float32)), 161002,
        ["probsGradOutOptional", "[tokens_num, experts_num]"])
refused(lambda: permute_grad(out_probs=np.zeros((3, 3), np.float32)), 161002, ["probsGradOutOptional", "is given without"])

grad = rng.standard_normal((3, 4)).astype(np.float32)
def unpermute_grad(token_id=order, probs=None, permuted_in=None, out_probs=np.zeros(0, np.float32), rows=6):
    return aclnn.moe_token_unpermute_with_routing_map_grad(grad, order, token_id, routing_map, permuted_in, probs, False,
                                                           [3, 4], out=(np.zeros((rows, 4), np.float32), out_probs))
refused(lambda: unpermute_grad(token_id=order[:5].copy()), 161002, ["permuteTokenId", "outIndex's shape [6]"])
refused(lambda: unpermute_grad(probs=np.ones((3, 3), np.float32), out_probs=np.zeros((3, 3), np.float32)), 161002,
        ["permutedTokensOptional", "is null"])
refused(lambda: unpermute_grad(probs=np.ones((3, 3), np.float32), permuted_in=permuted[:5].copy(),
                               out_probs=np.zeros((3, 3), np.float32)), 161002, ["permutedTokensOptional", "[5,4]"])
refused(lambda: unpermute_grad(out_probs=np.zeros((3, 3), np.float32)), 161002, ["probsGradOutOptional", "is given without"])
# An empty one without probs, as torch_npu's autograd passes it, is nothing to write.
assert np.array_equal(unpermute_grad()[0][order], np.repeat(grad, 2, axis=0))
''')
