"""What the generated suites' one valid call leaves out of the quant family's quant_scatter
(aclnnInplaceQuantScatter/V2, torch_npu.npu_quant_scatter): 2-D indices [B, 2] (batch, position),
ranks past 3, V2's axes other than -2, no zero points, ties and saturation; and the refusals by name:
positions leaving selfRef fault in phase 2 (device data), a roundMode INT8 does not take and a
FLOAT8 selfRef (V2) and, on V1's chips, a last dimension of other than 32 bytes are refused, never
computed wrong. The reference is the page's description written element by element."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

REFERENCE = r'''
import itertools

def reference(x, indices, updates, scales, zero, axis):
    out = x.copy()
    axis %= x.ndim
    s = scales.astype(np.float32).reshape(-1)
    z = zero.astype(np.float32).reshape(-1) if zero is not None else np.zeros_like(s)
    for pos in itertools.product(*(range(n) for n in updates.shape)):
        b = pos[0]
        batch, start = (int(indices[b, 0]), int(indices[b, 1])) if indices.ndim == 2 else (b, int(indices[b]))
        target = list(pos)
        target[0], target[axis] = batch, start + pos[axis]
        v = np.float32(updates[pos]) / s[pos[-1]] + z[pos[-1]]
        out[tuple(target)] = np.clip(np.round(v), -128, 127)  # np.round: half to even
    return out
'''


def test_quant_scatter_writes_each_batch_at_its_position_in_every_form_the_pages_give():
    check(REFERENCE + r'''
x = rng.integers(-128, 128, (3, 4, 6, 32)).astype(np.int8)
u = (rng.standard_normal((2, 4, 3, 32)) * 60).astype(np.float16)
scales = rng.uniform(0.5, 2.0, 32).astype(np.float32)
zero = rng.integers(-4, 5, 32).astype(np.int32)
pairs = np.array([[2, 3], [0, 1]], np.int32)  # batch 2 from position 3, batch 0 from 1
got = host(aclnn.inplace_quant_scatter(x.copy(), pairs, u, scales, zero, -2, -1, 1))
assert np.array_equal(got, reference(x, pairs, u, scales, zero, -2))
starts = np.array([1, 3], np.int64)
got = host(aclnn.inplace_quant_scatter(x.copy(), starts, u, scales, None, -2, 3, 1))
assert np.array_equal(got, reference(x, starts, u, scales, None, -2))
# Ties to even, and saturation at both ends.
ties = np.tile(np.array([2.5, 3.5, -0.5, -1.5, 300.0, -300.0, 127.4, -128.6], np.float16), 4).reshape(1, 1, 32)
y = np.zeros((1, 2, 32), np.int8)
got = host(aclnn.inplace_quant_scatter(y, np.array([1], np.int32), ties, np.ones(32, np.float32), None, -2, -1, 1))
assert got[0, 1, :8].tolist() == [2, 4, 0, -2, 127, -128, 127, -128] and not got[0, 0].any(), got
# V2 (Ascend950): axis 1 of four dimensions, and roundMode.
aclnn.sim_set_soc("Ascend950")
u1 = (rng.standard_normal((2, 2, 6, 32)) * 60).astype(np.float16)
along_1 = np.array([2, 0], np.int64)
got = host(aclnn.inplace_quant_scatter_v2(x.copy(), along_1, u1, scales, zero, 1, -1, 1, "rint"))
assert np.array_equal(got, reference(x, along_1, u1, scales, zero, 1))
''')


def test_quant_scatter_refuses_by_name_what_it_does_not_compute():
    check(r'''
x = np.zeros((2, 4, 32), np.int8)
u = np.ones((2, 2, 32), np.float16)
s = np.ones(32, np.float32)
def scatter(starts, **kw):
    return host(aclnn.inplace_quant_scatter(x.copy(), np.array(starts, np.int32), u, s, None,
                                            kw.get("axis", -2), kw.get("quant_axis", -1), kw.get("reduction", 1)))
scatter([0, 2])
# Positions are device data: one whose slice leaves selfRef faults in phase 2, named.
refused(lambda: scatter([0, 3]), 507015, ["indices", "element 1 is 3", "leaves [0, 4)"])
refused(lambda: scatter([-1, 0]), 507015, ["indices", "element 0 is -1"])
refused(lambda: host(aclnn.inplace_quant_scatter(x.copy(), np.array([[2, 0], [0, 0]], np.int32), u, s, None, -2, -1, 1)),
        507015, ["indices", "element 0 is 2", "selfRef's batches"])
refused(lambda: scatter([0, 0], quant_axis=1), 161002, ["quantAxis"])
refused(lambda: scatter([0, 0], reduction=2), 161002, ["reduction"])
# V1's page: a last dimension of 32 bytes on Atlas A2 (16 INT8 elements of selfRef are 16).
narrow = np.zeros((2, 4, 16), np.int8)
refused(lambda: aclnn.inplace_quant_scatter(narrow, np.array([0, 0], np.int32), np.ones((2, 2, 16), np.float16),
                                            np.ones(16, np.float32), None, -2, -1, 1), 161002, ["selfRef", "32"])
aclnn.sim_set_soc("Ascend950")
refused(lambda: host(aclnn.inplace_quant_scatter_v2(x.copy(), np.array([0, 0], np.int32), u, s, None, -2, -1, 1, "round")),
        161002, ["roundMode", "rint"])
import ml_dtypes
# V2's page (Ascend950) has no such rule.
got = host(aclnn.inplace_quant_scatter_v2(narrow, np.array([0, 2], np.int32), np.ones((2, 2, 16), np.float16),
                                          np.ones(16, np.float32), None, -2, -1, 1, "rint"))
assert (got[1, 2:] == 1).all() and not got[0, 2:].any(), got
f8 = np.zeros((2, 4, 32), ml_dtypes.float8_e4m3fn)
refused(lambda: host(aclnn.inplace_quant_scatter_v2(f8, np.array([0, 0], np.int32), u, s, None, -2, -1, 1, "rint")),
        561003, ["selfRef", "FLOAT8_E4M3FN", "not simulated"])
''')
