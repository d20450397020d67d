"""What the generated suite's one valid call leaves out of the rotate_quant family (aclnnRotateQuant,
torch_npu.npu_rotate_quant): a rotation of several blocks per row, roundMode floor, a zero row; and the
refusals by name, never a computed wrong value: the page's A2/A3 constraints in phase 1 (161002), the
outputs and the rounding it does not model (561003). The reference is the page's formula in NumPy,
on integers small enough that every sum is exact."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_rotate_quant_rotates_each_block_then_quantises_each_row():
    check(r'''
x = rng.integers(-4, 5, (4, 256)).astype(np.float16)
x[2] = 0  # a zero row: scale 0, and the quotients 0 / 0 quantise to 0 (the family's NaN)
rotation = rng.integers(-1, 2, (32, 32)).astype(np.float16)
y = (x.astype(np.float32).reshape(-1, 32) @ rotation.astype(np.float32)).reshape(4, 256)
scale = np.abs(y).max(-1) / np.float32(127)
for mode, rounding in (("rint", np.round), ("floor", np.floor)):
    with np.errstate(invalid="ignore"):
        want = np.nan_to_num(rounding(y / scale[:, None]), nan=0.0).clip(-128, 127).astype(np.int8)
    got_y, got_scale = aclnn.rotate_quant(x, rotation, None, -1, mode, 0, 0.0, False,
                                          out=(np.zeros((4, 256), np.int8), np.zeros(4, np.float32)))
    assert np.array_equal(host(got_scale), scale), mode
    assert np.array_equal(host(got_y), want), mode
''')


def test_rotate_quant_refuses_by_name_what_it_does_not_compute():
    check(r'''
x, rotation = np.ones((2, 128), np.float16), np.eye(16, dtype=np.float16)
def rq(x=x, rotation=rotation, alpha=None, axis=-1, mode="rint", alg=0, top=0.0, y=None, s=None):
    y = np.zeros((2, 128), np.int8) if y is None else y
    s = np.zeros(2, np.float32) if s is None else s
    return aclnn.rotate_quant(x, rotation, alpha, axis, mode, alg, top, False, out=(y, s))
rq()
refused(lambda: rq(x=np.ones((2, 100), np.float16)), 161002, ["x", "N 100"])
refused(lambda: rq(rotation=np.eye(8, dtype=np.float16)), 161002, ["rotation", "K 8"])
refused(lambda: rq(rotation=np.ones((16, 32), np.float16)), 161002, ["rotation", "square"])
import ml_dtypes
refused(lambda: rq(alpha=np.array([0.5], ml_dtypes.bfloat16)), 161002, ["alpha"])
refused(lambda: rq(axis=0), 161002, ["axis"])
refused(lambda: rq(alg=1), 161002, ["scaleAlg"])
refused(lambda: rq(top=6.0), 161002, ["dstTypeMax"])
refused(lambda: host(rq(mode="round")[0]), 561003, ["roundMode", "round"])
refused(lambda: host(rq(y=np.zeros((2, 16), np.int32))[0]), 561003, ["yOut", "INT32"])
''')
