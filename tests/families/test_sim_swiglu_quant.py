"""What the generated suite's one valid call leaves out of the swiglu_quant family (aclnnSwiGluQuantV2,
torch_npu.npu_swiglu_quant): count-mode groups, the rows past the last group and static mode's scaleOut left as
they were (the device leaves them), and the refusals by name: the page's rules in phase 1 (161002), the INT4 output
and "dynamic_msd" declined (561003), group data the page excludes in phase 2. The reference is the page's formula
in NumPy, in double."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_swiglu_quant_leaves_what_it_does_not_compute_and_refuses_by_name():
    check(r'''
x = rng.standard_normal((6, 16)).astype(np.float32)
smooth = (rng.random((2, 8)) + 0.5).astype(np.float32)
def sq(x=x, smooth=smooth, offsets=None, index=np.array([1, 3], np.int32), left=False, mode="dynamic", list_type=1,
       dst=2, y=None, s=None):
    # device-resident outputs, as torch_npu's: what the kernel does not write keeps what they held
    y = aclnn.to_device(np.full((x.shape[0], x.shape[-1] // 2), 99, np.int8)) if y is None else y
    s = aclnn.to_device(np.full(x.shape[0], -5.0, np.float32)) if s is None else s
    return aclnn.swi_glu_quant_v2(x, smooth, offsets, index, left, mode, list_type, dst, out=(y, s))
# counts [1, 3]: rows 0 (group 0) and 1-3 (group 1); rows 4 and 5 past the groups keep 99 and -5
a, b = x[:, 8:].astype(np.float64), x[:, :8].astype(np.float64)
act = a / (1 + np.exp(-a)) * b
v = act[:4] * smooth[[0, 1, 1, 1]]
scale = np.abs(v).max(-1) / 127
y, s = sq()
y, s = host(y), host(s)
assert np.abs(y[:4].astype(int) - np.round(v / scale[:, None]).astype(int)).max() <= 1, (y, v / scale[:, None])
assert np.allclose(s[:4], scale, rtol=1e-5) and (y[4:] == 99).all() and (s[4:] == -5.0).all(), (s, scale, y)
# static: y = round(v + offsets), scaleOut not computed
offsets = rng.standard_normal((2, 8)).astype(np.float32)
y, s = sq(smooth=smooth * 20, offsets=offsets, mode="static", index=np.array([2, 6], np.int32), list_type=0)
want = np.clip(np.round(act * (smooth * 20)[[0, 0, 1, 1, 1, 1]] + offsets[[0, 0, 1, 1, 1, 1]]), -128, 127)
assert np.abs(host(y).astype(int) - want.astype(int)).max() <= 1 and (host(s) == -5.0).all(), (host(y), want, host(s))
refused(lambda: sq(x=np.ones((6, 15), np.float32)), 161002, ["x", "15"])
refused(lambda: sq(x=np.ones((2, 8194), np.float32), smooth=None, index=None), 161002, ["x", "8194"])
refused(lambda: sq(index=None, smooth=np.ones(8, np.float32)), 161002, ["smoothScalesOptional", "[8]"])
refused(lambda: sq(smooth=np.ones((3, 8), np.float32)), 161002, ["smoothScalesOptional", "G 2"])
refused(lambda: sq(mode="static"), 161002, ["offsetsOptional", "static"])
refused(lambda: sq(mode="rounded"), 161002, ["quantModeOptional"])
refused(lambda: sq(list_type=2), 161002, ["groupListType"])
refused(lambda: host(sq(dst=29)[0]), 561003, ["dstType 29"])
refused(lambda: host(sq(mode="dynamic_msd")[0]), 561003, ["dynamic_msd"])
refused(lambda: host(sq(index=np.array([4, 2], np.int32), list_type=0)[0]), 507015, ["groupIndexOptional", "element 1 is 2"])
refused(lambda: host(sq(index=np.array([4, 3], np.int32))[0]), 507015, ["groupIndexOptional", "element 1 is 3"])
''')


def test_dequant_swiglu_quant_dequantises_by_group_and_row_and_declines_by_name():
    check(r'''
x = rng.integers(-400, 400, (5, 16)).astype(np.int32)
weight = (rng.random((2, 16)) * 0.01 + 0.001).astype(np.float32)
act = (rng.random(5) * 0.1 + 0.01).astype(np.float32)
counts = np.array([2, 3], np.int64)
def dq(x=x, weight=weight, act=act, bias=None, qs=None, qo=None, index=counts, left=True, mode="dynamic"):
    return aclnn.dequant_swiglu_quant(x, weight, act, bias, qs, qo, index, left, mode,
                                      out=(np.zeros((x.shape[0], 8), np.int8), np.zeros(x.shape[0], np.float32)))
d = x.astype(np.float64) * weight[[0, 0, 1, 1, 1]] * act[:, None]
s = d[:, :8] / (1 + np.exp(-d[:, :8])) * d[:, 8:]
scale = np.abs(s).max(-1) / 127
y, got = dq()
assert np.abs(host(y).astype(int) - np.round(s / scale[:, None]).astype(int)).max() <= 1
assert np.allclose(host(got), scale, rtol=1e-5)
refused(lambda: dq(weight=None), 161002, ["weightScaleOptional", "NULL"])
refused(lambda: dq(weight=np.ones((3, 16), np.float32)), 161002, ["weightScaleOptional", "G 2"])
refused(lambda: host(dq(bias=np.zeros(16, np.int32))[0]), 561003, ["biasOptional"])
refused(lambda: host(dq(qs=np.ones(8, np.float32))[0]), 561003, ["quantScaleOptional"])
refused(lambda: host(dq(qs=np.ones(1, np.float32), qo=np.zeros(1, np.float32), mode="static")[0]), 561003, ["static"])
refused(lambda: host(dq(index=np.array([2, 4], np.int64))[0]), 507015, ["groupIndexOptional"])
''')
