"""What the generated suites' valid calls leave out of the mx_quant family (aclnnDynamicMxQuant/V2/V3,
aclnnAntiMxQuant on Ascend950): FLOAT8_E5M2 outputs, a non-last axis with a padded pair of blocks,
the saturation of V / mxscale past the format's largest value, strided FLOAT8 outputs, FLOAT8 inputs of
the inverse read through the engine (strided too); and the refusals, the fused quantisers' too
(aclnnRmsNormDynamicMxQuant, aclnnSwigluMxQuant and its dual-axis form). The reference: the pages' formulas
in NumPy with ml_dtypes' float8 types (round half to even), each block's scale from math.frexp."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

PROLOGUE = r'''
import math
import ml_dtypes
aclnn.sim_set_soc("Ascend950")  # the pages' one chip
E5M2, E4M3 = 35, 36
TYPES = {E5M2: (ml_dtypes.float8_e5m2, 15, 57344.0), E4M3: (ml_dtypes.float8_e4m3fn, 8, 448.0)}

def reference(x, axis, dst, block):
    # scaleAlg 0: per block of `block` along axis, e = floor(log2 max|V|) - emax; y = V / 2^e saturated.
    dtype, emax, top = TYPES[dst]
    v = np.moveaxis(x.astype(np.float64), axis, -1)
    n = v.shape[-1]
    groups = -(-n // block)
    pairs = -(-groups // 2)
    y = np.zeros(v.shape, dtype)
    codes = np.zeros(v.shape[:-1] + (2 * pairs,), np.uint8)
    for index in np.ndindex(*v.shape[:-1]):
        for g in range(groups):
            part = v[index][g * block:(g + 1) * block]
            amax = np.abs(part).max()
            e = max(-127, math.frexp(amax)[1] - 1 - emax) if amax else -127
            codes[index + (g,)] = e + 127
            y[index + (slice(g * block, (g + 1) * block),)] = np.clip(part / 2.0 ** e, -top, top).astype(dtype)
    scale = np.moveaxis(codes.reshape(v.shape[:-1] + (pairs, 2)), -2, axis % x.ndim)
    return np.moveaxis(y, -1, axis), scale.view(ml_dtypes.float8_e8m0fnu)
'''


def test_dynamic_mx_quant_along_any_axis_with_saturation():
    check(PROLOGUE + r'''
for dst, shape, axis, block in ((E5M2, (3, 96), -1, 32), (E4M3, (70, 3), 0, 32), (E4M3, (2, 130, 2), 1, 64)):
    x = (rng.standard_normal(shape) * 4).astype(np.float16)
    # 1.9 * 2^8 in a block whose largest magnitude gives e = 0: above E4M3's 448, saturated (OCP MX).
    x.reshape(-1)[0] = 486.0
    want_y, want_scale = reference(x, axis, dst, block)
    pairs = want_scale.shape
    y, scale = aclnn.dynamic_mx_quant(x, axis, "rint", dst, block, 0,
                                      out=(np.zeros(shape, TYPES[dst][0]), np.zeros(pairs, ml_dtypes.float8_e8m0fnu)))
    assert np.array_equal(host(scale).view(np.uint8), want_scale.view(np.uint8)), (dst, shape)
    assert np.array_equal(host(y).view(np.uint8), want_y.view(np.uint8)), (dst, shape)
''')


def test_anti_mx_quant_reads_float8_through_the_engine():
    check(PROLOGUE + r'''
x = (rng.standard_normal((40, 6)) * 100).astype(np.float32)
q, scale = reference(x, 0, E5M2, 32)
strided = np.zeros((40, 12), ml_dtypes.float8_e5m2)[:, ::2]
strided[...] = q  # a FLOAT8 x with strides (the page: FLOAT8支持非连续)
got = aclnn.anti_mx_quant(strided, scale, 0, 0, out=np.zeros((40, 6), np.float32))
codes = scale.view(np.uint8).astype(np.float64)
sf = np.repeat(np.moveaxis(codes, 0, -2).reshape(6, -1), 32, -1)[:, :40].T
assert np.array_equal(host(got), (q.astype(np.float64) * 2.0 ** (sf - 127)).astype(np.float32))
''')


def test_mx_quant_refuses_by_name():
    check(PROLOGUE + r'''
x = np.ones((2, 64), np.float32)
y, s = np.zeros((2, 64), ml_dtypes.float8_e4m3fn), np.zeros((2, 1, 2), ml_dtypes.float8_e8m0fnu)
def dmq(dst=E4M3, block=32, alg=0, mode="rint", y=y, s=s, x=x):
    return aclnn.dynamic_mx_quant(x, -1, mode, dst, block, alg, out=(y, s))
dmq()
refused(lambda: dmq(dst=35), 161002, ["yOut", "FLOAT8_E4M3FN", "FLOAT8_E5M2"])
refused(lambda: dmq(dst=3), 161002, ["dstType", "3"])
refused(lambda: dmq(block=48), 161002, ["blocksize", "48"])
refused(lambda: dmq(block=64), 161002, ["blocksize", "FLOAT"])
refused(lambda: dmq(mode="floor"), 161002, ["roundModeOptional", "floor"])
refused(lambda: dmq(s=np.zeros((2, 2, 2), ml_dtypes.float8_e8m0fnu)), 161002, ["mxscaleOut", "[2, 2, 2]"])
nan = x.copy()
nan[1, 5] = np.nan
refused(lambda: host(dmq(x=nan)[0]), 507015, ["x", "element 69 is NaN", "561000"])
''')


def test_grouped_quant_max_cuts_rows_at_the_group_ends_and_refuses_others():
    check(PROLOGUE + r'''
x = (rng.standard_normal((7, 3)) * 10).astype(ml_dtypes.bfloat16)
scale = np.array([0.5, 2.0, 1.0], np.float32)
ends = np.array([2, 3, 7], np.int64)
def gqm(ends=ends, dst=E5M2):
    return aclnn.grouped_quant_max(x, scale, ends, "rint", dst,
                                   out=(np.zeros((7, 3), TYPES[dst][0]), np.zeros(3, ml_dtypes.bfloat16)))
y, amax = gqm()
rows = np.repeat(scale, np.diff(np.concatenate(([0], ends))))[:, None]
assert np.array_equal(host(y).view(np.uint8), (x.astype(np.float32) * rows).astype(ml_dtypes.float8_e5m2).view(np.uint8))
assert np.array_equal(host(amax), np.array([np.abs(x[s:e].astype(np.float32)).max() for s, e in ((0, 2), (2, 3), (3, 7))],
                                           ml_dtypes.bfloat16))
for bad, words in (([2, 2, 7], "element 1 is 2"), ([2, 3, 6], "element 2 is 6"), ([0, 3, 7], "element 0 is 0")):
    refused(lambda: host(gqm(np.array(bad, np.int64))[0]), 507015, ["groupList", words])
# dstType 34 names HIFLOAT8, which no array holds: a FLOAT8 y is not of it.
refused(lambda: aclnn.grouped_quant_max(x, scale, ends, "round", 34, out=(np.zeros((7, 3), ml_dtypes.float8_e5m2),
                                                                        np.zeros(3, ml_dtypes.bfloat16))),
        161002, ["y", "HIFLOAT8"])
''')


def test_the_engine_reads_every_float8_code_as_ml_dtypes_does():
    # aclnnInplaceCopy's FLOAT8 src (the page's conversion rules) into FLOAT, FLOAT16 and BFLOAT16.
    check(PROLOGUE + r'''
codes = np.arange(256, dtype=np.uint8)
for fp8 in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
    for to in (np.float32, np.float16, ml_dtypes.bfloat16):
        got = host(aclnn.inplace_copy(np.zeros(256, to), codes.view(fp8))).astype(np.float32)
        want = codes.view(fp8).astype(to).astype(np.float32)
        assert np.array_equal(np.isnan(got), np.isnan(want)), (fp8, to)
        assert np.array_equal(np.nan_to_num(got), np.nan_to_num(want)), (fp8, to)
refused(lambda: aclnn.inplace_copy(np.zeros(4, np.int32), codes[:4].view(ml_dtypes.float8_e5m2)), 161002, ["FLOAT8"])
''')


def test_grouped_dynamic_mx_quant_refuses_group_ends_its_page_excludes():
    check(PROLOGUE + r'''
x = np.ones((40, 4), np.float16)
def gmq(ends):
    return aclnn.grouped_dynamic_mx_quant(x, np.array(ends, np.int32), "rint", E4M3, 32,
                                          out=(np.zeros((40, 4), ml_dtypes.float8_e4m3fn),
                                               np.zeros((40 // 64 + len(ends), 4, 2), ml_dtypes.float8_e8m0fnu)))
y, scale = gmq([10, 40])
assert np.array_equal(host(y).astype(np.float32), np.full((40, 4), 256.0, np.float32))  # 1 / 2^(0 - 8)
assert np.array_equal(host(scale).view(np.uint8), np.full((2, 4, 2), [119, 0], np.uint8))
for bad, words in (([20, 10], "element 1 is 10"), ([10, 39], "element 1 is 39"), ([-1, 40], "element 0 is -1")):
    refused(lambda: host(gmq(bad)[0]), 507015, ["groupIndex", words])
''')


def test_the_fused_mx_quantisers_refuse_by_name():
    # aclnnRmsNormDynamicMxQuant, aclnnSwigluMxQuant and its dual-axis form: what their pages rule out at
    # phase 1, and the device data (groupIndexOptional, a NaN x) at phase 2.
    check(PROLOGUE + r'''
x = (rng.standard_normal((4, 64)) * 2).astype(np.float16)
def rms(gamma=np.ones(64, np.float16), beta=None, alg=0, dst=E4M3, x=x):
    return aclnn.rms_norm_dynamic_mx_quant(x, gamma, beta, 1e-6, alg, "rint", dst, True,
                                           out=(np.zeros(x.shape, TYPES[dst][0]), np.zeros((4, 1, 2), ml_dtypes.float8_e8m0fnu),
                                                np.zeros((4, 1), np.float32)))
y, scale, rstd = rms()
want_rstd = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-6)
assert np.allclose(host(rstd), want_rstd, rtol=1e-6)
want_y, want_scale = reference((x.astype(np.float32) * host(rstd)).astype(np.float32), -1, E4M3, 32)
assert np.array_equal(host(y).view(np.uint8), want_y.view(np.uint8))
assert np.array_equal(host(scale).view(np.uint8), want_scale.view(np.uint8))
refused(lambda: rms(gamma=np.ones(32, np.float16)), 561103, ["gamma", "[32]"])  # the page's 561103 row
refused(lambda: rms(beta=np.ones(64, np.float32)), 161002, ["beta", "FLOAT"])
refused(lambda: rms(alg=2), 161002, ["scaleAlg", "2"])
nan = x.copy()
nan[2, 3] = np.nan
refused(lambda: host(rms(x=nan)[0]), 507015, ["x", "element 131 is NaN"])

x = (rng.standard_normal((70, 64)) * 2).astype(np.float16)
def swiglu(group=None, dim=-1, mode=0, limit=7.0, axis=-1, y_shape=(70, 32), scale_shape=(70, 1, 2), group_mode=0):
    return aclnn.swiglu_mx_quant(x, group, dim, False, mode, limit, 1.702, 1.0, group_mode, axis, E4M3, "rint", 0, 0.0,
                                 out=(np.zeros(y_shape, ml_dtypes.float8_e4m3fn),
                                      np.zeros(scale_shape, ml_dtypes.float8_e8m0fnu)))
swiglu()
refused(lambda: swiglu(mode=1, dim=0, y_shape=(35, 64), scale_shape=(35, 1, 2)), 161002, ["swigluMode", "activateDim"])
refused(lambda: swiglu(limit=0.0), 161002, ["clampLimit", "0"])
refused(lambda: swiglu(dim=1, axis=3), 161002, ["axis", "3"])
refused(lambda: swiglu(np.array([10, 20], np.int64), dim=0, y_shape=(35, 64), scale_shape=(35, 1, 2)), 561003,
        ["groupIndexOptional", "activateDim 0"])
refused(lambda: host(swiglu(np.array([60, 20], np.int64))[0]), 507015, ["groupIndexOptional", "element 1 is 20"])
refused(lambda: host(swiglu(np.array([60, 50], np.int64), group_mode=1)[0]), 507015,
        ["groupIndexOptional", "element 1 is 50"])

def dual(ends):
    return aclnn.swiglu_mx_quant_with_dual_axis(x, np.array(ends, np.int64), True, "rint", 0, E4M3, 0.0,
                                                out=(np.zeros((70, 32), ml_dtypes.float8_e4m3fn),
                                                     np.zeros((70, 1, 2), ml_dtypes.float8_e8m0fnu),
                                                     np.zeros((70, 32), ml_dtypes.float8_e4m3fn),
                                                     np.zeros((70 // 64 + len(ends), 32, 2), ml_dtypes.float8_e8m0fnu)))
dual([30, 70])
refused(lambda: host(dual([30, 60])[0]), 507015, ["groupIndexOptional", "element 1 is 60", "whose last is"])
''')
