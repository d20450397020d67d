"""What the generated suite's one valid call (unquantised, counts, gather indices) leaves out of the
moe_routing family: dynamic quantisation with and without the per-expert smooth scale, key_value
counts, scatter indices and the whole expert range by default, against the golden; and what the
engine refuses by name beyond the page's attribute checks, in phase 1 or phase 2."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_init_routing_modes_equal_the_golden_and_unmodelled_arguments_are_refused():
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
''')
