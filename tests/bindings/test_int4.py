"""INT4 through the bindings: an ml_dtypes.int4 array (one element a byte on the host) goes to the
device packed as CANN lays INT4 out, two elements a byte with element 2i in the low four bits of
byte i (op-plugin's convert_to_int4_pack; runtime/binding/arrays.cpp's pack_int4), and comes back
unpacked. The packed bytes are read back through a UINT8 view of the same device memory, so the
layout itself is checked, not only the round trip; and aclnnWeightQuantBatchMatmulV2 with an INT4
weight (A16W4) equals NumPy's product of the dequantised weight, for every layout the host array
has.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="the device memory is the simulator's")

PROLOGUE = r'''
import ml_dtypes

def packed_reference(values):
    """The bytes CANN holds `values` in, written out nibble by nibble (odd counts: a zero high half)."""
    flat = [int(v) & 0xF for v in np.asarray(values).reshape(-1).astype(np.int8)]
    flat += [0] * (len(flat) % 2)
    return np.array([flat[i] | flat[i + 1] << 4 for i in range(0, len(flat), 2)], np.uint8)

def device_bytes(tensor, count):
    return aclnn.Tensor.from_pointer(tensor.data_ptr(), (count,), "UINT8", owner=tensor).numpy()
'''


def test_int4_arrays_go_to_the_device_packed_low_nibble_first_and_come_back():
    check(PROLOGUE + r'''
every = np.arange(-8, 8).astype(ml_dtypes.int4)
for shape in [(16,), (7,), (3, 5), (1,), (2, 3, 3)]:
    values = rng.integers(-8, 8, shape).astype(ml_dtypes.int4)
    if shape == (16,):
        values = every
    t = aclnn.to_device(values)
    assert t.acl_dtype == "INT4" and t.shape == shape and t.dtype == np.dtype(ml_dtypes.int4)
    n = values.size
    np.testing.assert_array_equal(device_bytes(t, (n + 1) // 2), packed_reference(values))
    back = t.numpy()
    assert back.dtype == np.dtype(ml_dtypes.int4) and back.shape == shape
    np.testing.assert_array_equal(back.astype(np.int8), values.astype(np.int8))
# -8..7 each in both halves of a byte: 0x98 holds 8 (low) and 9 (high), i.e. -8 and -7.
assert device_bytes(aclnn.to_device(every), 8).tolist() == [0x98, 0xba, 0xdc, 0xfe, 0x10, 0x32, 0x54, 0x76]

# A 0-d array (one element, one byte) and an empty one.
scalar = aclnn.to_device(np.array(-3, ml_dtypes.int4))
assert scalar.shape == () and int(scalar.numpy()) == -3
assert device_bytes(scalar, 1).tolist() == [0x0d]
empty = aclnn.to_device(np.zeros((0, 4), ml_dtypes.int4))
assert empty.shape == (0, 4) and empty.numpy().shape == (0, 4)

# Views: strided, transposed, negative steps, an offset into the buffer: packed row-major as seen.
base = rng.integers(-8, 8, (6, 10)).astype(ml_dtypes.int4)
for view in [base[:, ::2], base.T, base[::-1, ::-3], base[1:, 3:], base[2]]:
    t = aclnn.to_device(view)
    np.testing.assert_array_equal(device_bytes(t, (view.size + 1) // 2), packed_reference(np.ascontiguousarray(view)))
    np.testing.assert_array_equal(t.numpy().astype(np.int8), view.astype(np.int8))

# aclnn.empty holds INT4 in half the bytes; its copy (__deepcopy__) copies them all.
import copy
t = aclnn.to_device(rng.integers(-8, 8, (5, 3)).astype(ml_dtypes.int4))
np.testing.assert_array_equal(copy.deepcopy(t).numpy().astype(np.int8), t.numpy().astype(np.int8))
assert aclnn.empty((3, 5), "INT4").shape == (3, 5)
# Strides in bytes would be halves: refused, the elements' strides given.
assert t.stride() == (3, 1)
try:
    t.strides
except TypeError as error:
    assert "INT4" in str(error)
else:
    raise AssertionError("INT4 byte strides given")
''')


def test_an_int4_weight_multiplies_as_its_values_for_every_host_layout():
    # A16W4: y = x @ ((weight + offset) * scale) per column, and per group of 32 rows of k.
    check(PROLOGUE + r'''
m, k, n = 3, 64, 8
x = rng.uniform(-1, 1, (m, k)).astype(np.float16)
w = rng.integers(-8, 8, (k, n)).astype(np.int8)
for group in (0, 32):
    rows = 1 if group == 0 else k // group
    scale = rng.uniform(0.01, 0.1, (rows, n)).astype(np.float16)
    offset = rng.uniform(-2, 2, (rows, n)).astype(np.float16)
    expand = (lambda p: np.repeat(p.astype(np.float64), group, 0)) if group else (lambda p: p.astype(np.float64))
    expected = x.astype(np.float64) @ ((w + expand(offset)) * expand(scale))
    # The weight as a C-ordered array, a strided view of a wider buffer, and read back from the device.
    wide = np.zeros((k, 2 * n), ml_dtypes.int4)
    wide[:, ::2] = w.astype(ml_dtypes.int4)
    for weight in [w.astype(ml_dtypes.int4), wide[:, ::2], aclnn.to_device(w.astype(ml_dtypes.int4))]:
        y = aclnn.weight_quant_batch_matmul_v2(x, weight, scale if group else scale[0], offset if group else offset[0],
                                               None, None, None, group, out=np.zeros((m, n), np.float16))
        np.testing.assert_allclose(host(y).astype(np.float64), expected, rtol=2e-3, atol=2e-3)

# The page: an INT4 weight's inner axis is even.
odd = rng.integers(-8, 8, (k, 7)).astype(ml_dtypes.int4)
refused(lambda: aclnn.weight_quant_batch_matmul_v2(x, odd, np.ones(7, np.float16), None, None, None, None, 0,
                                                   out=np.zeros((m, 7), np.float16)), 161002, ["odd"])
''')


def test_int32_words_of_eight_int4_are_read_as_torch_npu_packs_them():
    # npu_convert_weight_to_int4pack's words: a (k, n / 8) INT32 weight for y's n columns; y of the
    # INT32 weight's own columns is a layout no page states, refused by name.
    check(PROLOGUE + r'''
m, k, n = 2, 16, 16
x = rng.uniform(-1, 1, (m, k)).astype(np.float16)
w = rng.integers(-8, 8, (k, n)).astype(np.int8)
words = packed_reference(w).view(np.int32).reshape(k, n // 8)
scale = rng.uniform(0.01, 0.1, n).astype(np.float16)
expected = x.astype(np.float64) @ (w * scale.astype(np.float64))
y = aclnn.weight_quant_batch_matmul_v2(x, words, scale, None, None, None, None, 0, out=np.zeros((m, n), np.float16))
np.testing.assert_allclose(np.asarray(y).astype(np.float64), expected, rtol=2e-3, atol=2e-3)
# The transposed words (k / 8, n) with strides (1, k / 8): packed along k, as torch_npu's transposed weight.
words_t = packed_reference(w.T).view(np.int32).reshape(n, k // 8).T
y = aclnn.weight_quant_batch_matmul_v2(x, words_t, scale, None, None, None, None, 0, out=np.zeros((m, n), np.float16))
np.testing.assert_allclose(np.asarray(y).astype(np.float64), expected, rtol=2e-3, atol=2e-3)
refused(lambda: aclnn.weight_quant_batch_matmul_v2(x, words, scale[:2], None, None, None, None, 0,
                                                   out=np.zeros((m, 2), np.float16)), 561003, ["INT32 weight"])
''')


def test_int4_operands_of_quant_matmul_v5_and_their_int32_words_multiply_exactly_then_scale():
    # A4W4 (aclnnQuantMatmulV5's K-C rows): x1 and x2 INT4, or INT32 words packing eight INT4; x2Scale per
    # column, x1Scale per row, in float. INT8 beside INT4 with these scales is no combination of the page's
    # table.
    check(PROLOGUE + r'''
m, k, n = 4, 64, 16
a = rng.integers(-8, 8, (m, k)).astype(np.int8)
b = rng.integers(-8, 8, (k, n)).astype(np.int8)
s2 = rng.uniform(0.01, 0.1, n).astype(np.float32)
s1 = rng.uniform(0.5, 1.5, (m, 1)).astype(np.float32)
expected = (a.astype(np.float64) @ b) * s2 * s1
x1, x2 = a.astype(ml_dtypes.int4), b.astype(ml_dtypes.int4)
for dtype, tol in ((np.float16, 1e-3), (ml_dtypes.bfloat16, 8e-3)):
    y = aclnn.quant_matmul_v5(x1, x2, s1, s2, None, None, None, None, None, False, False, 0, out=np.zeros((m, n), dtype))
    np.testing.assert_allclose(np.asarray(y).astype(np.float64), expected, rtol=tol, atol=tol * 16)
# The same operands as INT32 words of eight INT4 (the page's x1 (m, k / 8), x2 (k, n / 8), and with
# transposeX2 (n, k / 8)); plain INT32 matrices, whose words hold no common k, stay declined by name.
words = lambda v: packed_reference(v).view(np.int32).reshape(v.shape[0], v.shape[1] // 8)
for x2, t2 in ((words(b), False), (words(np.ascontiguousarray(b.T)), True)):
    y = aclnn.quant_matmul_v5(words(a), x2, s1, s2, None, None, None, None, None, False, t2, 0,
                              out=np.zeros((m, n), np.float16))
    np.testing.assert_allclose(np.asarray(y).astype(np.float64), expected, rtol=1e-3, atol=16e-3)
refused(lambda: aclnn.quant_matmul_v5(a.astype(np.int32), b.astype(np.int32), s1, s2, None, None, None, None, None,
                                      False, False, 0, out=np.zeros((m, n), np.float16)), 561003, ["INT32"])
refused(lambda: aclnn.quant_matmul_v5(a, b.astype(ml_dtypes.int4), s1, s2, None, None, None, None, None, False,
                                      False, 0, out=np.zeros((m, n), np.float16)), 161002, ["x2 INT4", "combinations"])
''')


def test_quantisers_write_int4_and_int32_words_of_int4():
    # aclnnAscendQuant's dstType 29 (INT4) and 3 (INT32, eight INT4 a word along the last dimension),
    # aclnnDynamicQuant's INT4 and INT32 y, aclnnRmsNormQuant's INT4 y: round, saturate to [-8, 7], pack
    # as CANN lays INT4 out. The
    # out= arrays are C-ordered, strided views of a wider array (the nibbles between them kept), and
    # device tensors whose bytes are read back as they lie.
    check(PROLOGUE + r'''
def words_of(values):
    return packed_reference(values).view(np.int32).reshape(*values.shape[:-1], values.shape[-1] // 8)

def nibbles_of(words):
    b = np.ascontiguousarray(words).view(np.uint8).reshape(*words.shape[:-1], -1).astype(np.int8)
    n = np.stack([b & 15, (b >> 4) & 15], -1).reshape(*words.shape[:-1], words.shape[-1] * 8)
    return np.where(n >= 8, n - 16, n)

for shape in [(5, 2), (3, 6), (1, 16), (2, 3, 8)]:
    x = rng.uniform(-12, 12, shape).astype(np.float32)
    scale = rng.uniform(0.3, 1.5, shape[-1]).astype(np.float32)
    offset = rng.uniform(-2, 2, shape[-1]).astype(np.float32)
    for mode, f in (("round", np.round), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)):
        want = np.clip(f(x * scale + offset), -8, 7).astype(np.int8)
        y = aclnn.ascend_quant(x, scale, offset, False, mode, 29, out=np.zeros(shape, ml_dtypes.int4))
        assert host(y).dtype == np.dtype(ml_dtypes.int4)
        np.testing.assert_array_equal(host(y).astype(np.int8), want, err_msg=f"{shape} {mode}")
        if shape[-1] % 8 == 0:
            words = aclnn.ascend_quant(x, scale, offset, False, mode, 3,
                                       out=np.zeros((*shape[:-1], shape[-1] // 8), np.int32))
            np.testing.assert_array_equal(host(words), words_of(want), err_msg=f"{shape} {mode} INT32")
x = rng.uniform(-12, 12, (3, 16)).astype(np.float32)
scale = rng.uniform(0.3, 1.5, 16).astype(np.float32)
want = np.clip(np.round(x * scale), -8, 7).astype(np.int8)
assert want.min() == -8 and want.max() == 7

# A strided out= view: every other nibble of a wider array, the ones between untouched.
wide = np.full((3, 32), 5, ml_dtypes.int4)
aclnn.ascend_quant(x, scale, None, False, "round", 29, out=wide[:, ::2])
np.testing.assert_array_equal(wide[:, ::2].astype(np.int8), want)
np.testing.assert_array_equal(wide[:, 1::2].astype(np.int8), np.full((3, 16), 5, np.int8))
# A device out: its bytes as CANN holds them.
out = aclnn.empty((3, 16), "INT4")
aclnn.ascend_quant(x, scale, None, False, "round", 29, out=out)
np.testing.assert_array_equal(device_bytes(out, 24), packed_reference(want))

# aclnnDynamicQuant: y's dtype chooses; scale = max|x| / 7 per row (INT4's dtypeMax).
x16 = rng.uniform(-4, 4, (2, 3, 16)).astype(np.float16)
v = x16.astype(np.float32)
s = np.abs(v).max(-1) / np.float32(7)
want = np.clip(np.round(v / s[..., None]), -8, 7).astype(np.int8)
y, got = aclnn.dynamic_quant(x16, None, out=(np.zeros((2, 3, 16), ml_dtypes.int4), np.zeros((2, 3), np.float32)))
np.testing.assert_array_equal(host(y).astype(np.int8), want)
np.testing.assert_allclose(host(got), s, rtol=1e-6)
y, _ = aclnn.dynamic_quant(x16, None, out=(np.zeros((2, 3, 2), np.int32), np.zeros((2, 3), np.float32)))
np.testing.assert_array_equal(nibbles_of(host(y)), want)
# aclnnDynamicQuantV2's asymmetric INT4: scale (max - min) / 15, offset 7 - max / scale.
top, bottom = v.max(-1), v.min(-1)
s = (top - bottom) / np.float32(15)
o = np.float32(7) - top / s
y, got_s, got_o = aclnn.dynamic_quant_v2(x16, None, None, 29, out=(np.zeros((2, 3, 16), ml_dtypes.int4),
                                         np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)))
np.testing.assert_allclose(host(got_s), s, rtol=1e-6)
np.testing.assert_allclose(host(got_o), o, rtol=1e-5, atol=1e-5)
np.testing.assert_array_equal(host(y).astype(np.int8), np.clip(np.round(v / s[..., None] + o[..., None]), -8, 7))

# aclnnRmsNormQuant's INT4 y (the norm_quant family): round(norm * scale + offset) saturated to [-8, 7].
xn = rng.uniform(-2, 2, (3, 16)).astype(np.float16)
gamma, beta = rng.uniform(0.5, 2, 16).astype(np.float16), rng.uniform(-0.1, 0.1, 16).astype(np.float16)
rstd = 1 / np.sqrt((xn.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-6).astype(np.float32)
normed = xn.astype(np.float32) * rstd * gamma.astype(np.float32) + beta.astype(np.float32)
want = np.clip(np.round(normed * np.float32(4) + 1), -8, 7).astype(np.int8)
y = aclnn.rms_norm_quant(xn, gamma, beta, np.array([4], np.float16), np.array([1], np.int8), 1e-6,
                         out=np.zeros((3, 16), ml_dtypes.int4))
np.testing.assert_array_equal(host(y).astype(np.int8), want)

# The pages' rules: INT4 needs x's last dimension even, INT32 divisible by 8, y the dtype dstType names.
x = rng.uniform(-4, 4, (2, 6)).astype(np.float32)
refused(lambda: aclnn.ascend_quant(x[:, :5], np.ones(5, np.float32), None, False, "round", 29,
                                   out=np.zeros((2, 5), ml_dtypes.int4)), 161002, ["multiple of 2"])
refused(lambda: aclnn.ascend_quant(x, np.ones(6, np.float32), None, False, "round", 3,
                                   out=np.zeros((2, 1), np.int32)), 161002, ["multiple of 8"])
refused(lambda: aclnn.ascend_quant(x, np.ones(6, np.float32), None, False, "round", 29,
                                   out=np.zeros((2, 6), np.int8)), 161002, ["dstType 29"])
# aclnnDynamicQuant's (no dstType): the INT32 words' shape is x's with the last dimension / 8.
refused(lambda: aclnn.dynamic_quant(x16[0], None, out=(np.zeros((3, 16), np.int32), np.zeros(3, np.float32))),
        161002, ["yOut", "divided by 8"])
''')


def test_an_int4_x_dequantises_and_the_goldens_pack_int32_words_as_the_quantisers_write_them():
    # aclnnAscendAntiQuant reads an INT4 x from its nibbles, a strided view of a wider array too: y = (x + offset)
    # * scale in float, to FLOAT16. aclnnGroupQuant writes INT4 and INT32 words of INT4 as aclnnAscendQuant does.
    # The suites' golden helper (exact.quantised, runtime/python/tests/_goldens.py) packs INT32 words as the bytes
    # CANN holds INT4 in, so that the generated suites' INT32 rows compare two packings written apart.
    check(PROLOGUE + r'''
sys.path.insert(0, sys.argv[1] + "/tests")
from _goldens import exact

scale = rng.uniform(0.5, 2.0, 16).astype(np.float32)
offset = rng.uniform(-2.0, 2.0, 16).astype(np.float32)
wide = rng.integers(-8, 8, (3, 32)).astype(ml_dtypes.int4)
for x in (wide[:, :16].copy(), wide[:, ::2], wide[:, 1::2]):
    want = ((x.astype(np.float32) + offset) * scale).astype(np.float16)
    y = aclnn.ascend_anti_quant(x, scale, offset, 1, False, out=np.zeros((3, 16), np.float16))
    np.testing.assert_array_equal(host(y), want)

values = rng.uniform(-12, 12, (3, 16)).round().astype(np.float32)
nibbles = np.clip(values, -8, 7).astype(np.int8)
words = packed_reference(nibbles).view(np.int32).reshape(3, 2)
np.testing.assert_array_equal(exact.quantised(torch.from_numpy(values), 3).numpy(), words)
np.testing.assert_array_equal(exact.quantised(torch.from_numpy(values), 29).numpy(), nibbles)
np.testing.assert_array_equal(exact.quantised(torch.tensor([float("nan"), 300.0]), 2).numpy(), [0, 127])

x = rng.uniform(-12, 12, (3, 16)).astype(np.float32)
group_scale = rng.uniform(0.3, 1.5, (1, 16)).astype(np.float32)
index = np.array([3], np.int64)
want = np.clip(np.round(x * group_scale), -8, 7).astype(np.int8)
y = aclnn.group_quant(x, group_scale, index, None, 29, out=np.zeros((3, 16), ml_dtypes.int4))
np.testing.assert_array_equal(host(y).astype(np.int8), want)
y = aclnn.group_quant(x, group_scale, index, None, 3, out=np.zeros((3, 2), np.int32))
np.testing.assert_array_equal(host(y), packed_reference(want).view(np.int32).reshape(3, 2))
''')
