"""What the generated suites' one valid call (one x grouped by counts, one 3-d weight, one output)
leaves out of the grouped_matmul family: the other group_types, split_items and group_list forms, a
bias, the INT8 quantised form, and what it refuses by name: a float x's scale and the activation
arguments (declined, 561003), the
scenarios the README rules out (phase 1), and group_list values that reach past x, or are negative
or huge (device data: phase 2, never a read out of bounds). A torch_npu user reaches it through
npu_grouped_matmul (tests/torch_npu/test_grouped_matmul.py); these run without torch_npu."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

PRELUDE = r'''
NONE8 = [None] * 5
def gmm(x, w, group_list, split, gtype, ltype=0, bias=None, outs=(), act=0, scale=None, api=aclnn.grouped_matmul_v5):
    extra = () if api is aclnn.grouped_matmul_v4 else (None,)
    got = api(x, w, bias, scale, None, None, None, None,
              None if group_list is None else np.array(group_list, np.int64), None, None, None,
              split, gtype, ltype, act, *extra, out=(list(outs), [], []))
    return [host(t) for t in got[0]]
def close(got, want):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.allclose(got, want, atol=1e-4, rtol=1e-4), np.abs(got - want).max()
x = rng.standard_normal((10, 6)).astype(np.float32)
w = rng.standard_normal((3, 6, 4)).astype(np.float32)
counts = [4, 0, 5]  # the last row in no group: zeros in the one output
def by_rows(ws, bias=None):
    want, at = np.zeros((10, 4), np.float32), 0
    for i, (c, wi) in enumerate(zip(counts, ws)):
        want[at:at + c] = x[at:at + c] @ wi + (0 if bias is None else bias[i])
        at += c
    return want
'''


def test_grouped_matmul_forms_equal_matmul_per_group():
    check(PRELUDE + r'''
for api in (aclnn.grouped_matmul_v5, aclnn.grouped_matmul_v4):
    out = lambda: [np.full((10, 4), 7, np.float32)]  # rows no group reaches are written, as zeros
    close(gmm([x], [w], np.cumsum(counts), 3, 0, 0, outs=out(), api=api)[0], by_rows(w))
    close(gmm([x], [w], counts, 2, 0, 1, outs=out(), api=api)[0], by_rows(w))
bias = rng.standard_normal((3, 4)).astype(np.float32)
close(gmm([x], [w], counts, 3, 0, 1, bias=[bias], outs=[np.zeros((10, 4), np.float32)])[0], by_rows(w, bias))
close(gmm([x], list(w), counts, 3, 0, 1, bias=list(bias), outs=[np.zeros((10, 4), np.float32)])[0], by_rows(w, bias))
# split_item 0: one output per group, of its rows.
got = gmm([x], list(w), counts, 0, 0, 1, outs=[np.zeros((c, 4), np.float32) for c in counts])
for i, (g, start) in enumerate(zip(got, [0, 4, 4])):
    close(g, x[start:start + counts[i]] @ w[i])
# An x per group, group_list naming their rows or not; one output of their rows.
xs = [rng.standard_normal((c, 6)).astype(np.float32) for c in counts]
want = np.concatenate([xi @ wi for xi, wi in zip(xs, w)])
close(gmm(xs, list(w), None, 2, 0, outs=[np.zeros((9, 4), np.float32)])[0], want)
close(gmm(xs, list(w), np.cumsum(counts), 2, 0, 0, outs=[np.zeros((9, 4), np.float32)])[0], want)
# No grouping: x of any rank from 2, weights of their own N.
xs = [rng.standard_normal((2, 3, 6)).astype(np.float32), rng.standard_normal((2, 1, 6)).astype(np.float32)]
ws = [rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((6, 2)).astype(np.float32)]
got = gmm(xs, ws, None, 1, -1, outs=[np.zeros((2, 3, 4), np.float32), np.zeros((2, 1, 2), np.float32)])
close(got[0], xs[0] @ ws[0]); close(got[1], xs[1] @ ws[1])
# The K axis: group_list splits x's columns against one weight's rows (out [g, M, N]), or
# consecutive columns against a weight each (an output each).
wk = rng.standard_normal((6, 4)).astype(np.float32)
got = gmm([x], [wk], [2, 2, 6], 3, 2, outs=[np.zeros((3, 10, 4), np.float32)])[0]
close(got, np.stack([x[:, :2] @ wk[:2], np.zeros((10, 4), np.float32), x[:, 2:] @ wk[2:]]))
ws = [wk[:1], wk[1:5]]
got = gmm([x], ws, None, 0, 2, outs=[np.zeros((10, 4), np.float32) for _ in ws])
close(got[0], x[:, :1] @ wk[:1]); close(got[1], x[:, 1:5] @ wk[1:5])
''')


def test_grouped_matmul_refuses_what_it_does_not_compute_by_name():
    check(PRELUDE + r'''
out = lambda: [np.zeros((10, 4), np.float32)]
# Declined: a float x's scale (the quantised form is INT8's), and group_list_type 2 (not simulated, named).
refused(lambda: gmm([x], [w], counts, 3, 0, 1, scale=[np.ones((3, 4), np.float32)], outs=out()), 561003, ["scaleOptional"])
refused(lambda: gmm([x], [w], [[0, 4], [2, 5]], 3, 0, 2, outs=out()), 561003, ["groupListType", "2"])
# What the README rules out, in phase 1.
refused(lambda: gmm([x], [w], counts, 3, 0, 1, act=1, outs=out()), 161002, ["actType", "1"])
refused(lambda: gmm([x], [w], None, 3, 0, outs=out()), 161002, ["groupListOptional", "absent"])
refused(lambda: gmm([x], [w], [4, 5], 3, 0, 1, outs=out()), 161002, ["groupListOptional", "2 elements"])
refused(lambda: gmm([x], [w], counts, 3, 0, 1, outs=[np.zeros((10, 4), np.float16)]), 161002, ["out", "FLOAT16"])
refused(lambda: gmm([x], [w], counts, 3, 0, 1, outs=[np.zeros((9, 4), np.float32)]), 161002, ["out", "[9, 4]"])
refused(lambda: gmm([x], [w], counts, 3, -1, 1, outs=out()), 161002, ["weight", "3-d"])
refused(lambda: gmm([x], list(w), counts, 3, -1, 1, outs=out()), 161002, ["x", "has 1 members, weight 3"])
refused(lambda: gmm([x], [w[0]], [6], 3, 2, bias=[np.zeros(4, np.float32)], outs=[np.zeros((1, 10, 4), np.float32)]),
        161002, ["biasOptional", "K axis"])
refused(lambda: gmm([x], [w], counts, 4, 0, 1, outs=out()), 161002, ["splitItem", "4"])
# group_list's values are device data: those that reach past x fail phase 2, named; a huge count
# or a decreasing end never reads past x.
refused(lambda: gmm([x], [w], [4, 5, 2], 3, 0, 1, outs=out()), 507015, ["groupListOptional", "past x's 10 rows"])
refused(lambda: gmm([x], [w], [4, 2**62, 2**62], 3, 0, 1, outs=out()), 507015, ["groupListOptional", "past"])
refused(lambda: gmm([x], [w], [4, 3, 9], 3, 0, 0, outs=out()), 507015, ["groupListOptional", "element 1"])
refused(lambda: gmm([x], [w], [-1, 3, 9], 3, 0, 1, outs=out()), 507015, ["groupListOptional", "negative"])
refused(lambda: gmm([x], list(w), [4, 0, 5], 0, 0, 1, outs=[np.zeros((4, 4), np.float32) for _ in range(3)]), 507015,
        ["out", "member 1", "0"])
xs = [x[:4], x[4:9]]
refused(lambda: gmm(xs, list(w[:2]), [4, 6], 2, 0, 1, outs=[np.zeros((9, 4), np.float32)]), 507015,
        ["groupListOptional", "element 1 is 6", "gives 5"])
''')


def test_grouped_matmul_int8_is_the_quantised_formula():
    # The README's quantised form without torch_npu: (x_i @ weight_i + bias_i) * scale_i * per_token_scale_i,
    # FLOAT scale -> FLOAT16 out; without scale the INT32 sum, whose leaving INT32's range (the README does
    # not say what it gives) fails phase 2 naming it.
    check(PRELUDE + r'''
xq = rng.integers(-128, 128, (10, 6)).astype(np.int8)
wq = rng.integers(-128, 128, (3, 6, 4)).astype(np.int8)
bias = rng.integers(-1000, 1000, (3, 4)).astype(np.int32)
scale = (rng.random((3, 4)) / 100).astype(np.float32)
token = (rng.random(10) + 0.5).astype(np.float32)
got = aclnn.grouped_matmul_v5([xq], [wq], [bias], [scale], None, None, None, [token], np.array(counts, np.int64),
                              None, None, None, 3, 0, 1, 0, None, out=([np.zeros((10, 4), np.float16)], [], []))
want, at = np.zeros((10, 4), np.float32), 0
for i, c in enumerate(counts):
    acc = xq[at:at + c].astype(np.int64) @ wq[i].astype(np.int64) + bias[i]
    want[at:at + c] = acc.astype(np.float32) * scale[i] * token[at:at + c, None]
    at += c
assert np.array_equal(host(got[0][0]), want.astype(np.float16))
got = aclnn.grouped_matmul_v5([xq], [wq], [bias], None, None, None, None, None, np.array(counts, np.int64),
                              None, None, None, 3, 0, 1, 0, None, out=([np.zeros((10, 4), np.int32)], [], []))
want, at = np.zeros((10, 4), np.int64), 0
for i, c in enumerate(counts):
    want[at:at + c] = xq[at:at + c].astype(np.int64) @ wq[i].astype(np.int64) + bias[i]
    at += c
assert np.array_equal(host(got[0][0]), want.astype(np.int32))
huge = np.full((3, 4), 2**31 - 1, np.int32)
refused(lambda: aclnn.grouped_matmul_v5([xq], [wq], [huge], None, None, None, None, None, np.array(counts, np.int64),
                                        None, None, None, 3, 0, 1, 0, None, out=([np.zeros((10, 4), np.int32)], [], [])),
        507015, ["INT32's range"])
''')


def test_grouped_matmul_int8_weight_is_the_antiquantised_formula():
    # The README's antiquantised form without torch_npu: x_i @ ((weight_i + antiquant_offset_i) *
    # antiquant_scale_i) + bias_i per column, FLOAT16 x and out, the offset optional (0), on V5, V4 and
    # the original aclnnGroupedMatmul; an INT8 weight without antiquant_scale, one of another dtype or
    # shape, and the quantised scale beside it refused in phase 1.
    check(PRELUDE + r'''
xh = rng.standard_normal((10, 6)).astype(np.float16)
wq = rng.integers(-128, 128, (3, 6, 4)).astype(np.int8)
a_scale = (rng.random((3, 4)) / 50 + 0.001).astype(np.float16)
a_offset = rng.integers(-8, 8, (3, 4)).astype(np.float16)
bias = rng.standard_normal((3, 4)).astype(np.float16)
def want(offset, with_bias):
    y, at = np.zeros((10, 4), np.float32), 0
    for i, c in enumerate(counts):
        deq = (wq[i].astype(np.float32) + (offset[i].astype(np.float32) if offset is not None else 0)) * a_scale[i].astype(np.float32)
        y[at:at + c] = xh[at:at + c].astype(np.float32) @ deq + (bias[i].astype(np.float32) if with_bias else 0)
        at += c
    return y
def near(got, ref):
    assert got.dtype == np.float16 and got.shape == ref.shape, (got.dtype, got.shape)
    assert np.allclose(got.astype(np.float32), ref, atol=1e-2, rtol=1e-2), np.abs(got.astype(np.float32) - ref).max()
for api in (aclnn.grouped_matmul_v5, aclnn.grouped_matmul_v4):
    extra = () if api is aclnn.grouped_matmul_v4 else (None,)
    for offset in (None, a_offset):
        got = api([xh], [wq], [bias], None, None, [a_scale], None if offset is None else [offset], None,
                  np.array(counts, np.int64), None, None, None, 3, 0, 1, 0, *extra,
                  out=([np.zeros((10, 4), np.float16)], [], []))
        near(host(got[0][0]), want(offset, True))
# A weight and per-channel [n] vectors per group, an output per group.
got = aclnn.grouped_matmul_v5([xh], list(wq), None, None, None, list(a_scale), list(a_offset), None,
                              np.array(counts, np.int64), None, None, None, 0, 0, 1, 0, None,
                              out=([np.zeros((c, 4), np.float16) for c in counts], [], []))
ref = want(a_offset, False)
for g, start, c in zip(got[0], [0, 4, 4], counts):
    near(host(g), ref[start:start + c])
# The original API: group_list host ends.
got = aclnn.grouped_matmul([xh], list(wq), None, None, None, list(a_scale), list(a_offset), list(np.cumsum(counts)), 3,
                           out=[np.zeros((10, 4), np.float16)])
near(host(got[0]), want(a_offset, False))
def call(w=wq, scale=[a_scale], offset=None, gtype=0, x=xh, qscale=None, out=np.float16):
    return aclnn.grouped_matmul_v5([x], [w], None, qscale, None, scale, offset, None, np.array(counts, np.int64),
                                   None, None, None, 3, gtype, 1, 0, None, out=([np.zeros((10, 4), out)], [], []))
refused(lambda: call(scale=None), 161002, ["antiquantScaleOptional", "absent"])
refused(lambda: call(scale=[a_scale.astype(np.float32)]), 161002, ["antiquantScaleOptional", "FLOAT"])
refused(lambda: call(scale=[np.ones((3, 2, 4), np.float16)]), 161002, ["antiquantScaleOptional", "[3, 4]"])
refused(lambda: call(offset=[np.ones((3, 5), np.float16)]), 161002, ["antiquantOffsetOptional"])
refused(lambda: call(x=xh.astype(np.float32), out=np.float32), 161002, ["weight", "INT8"])
refused(lambda: call(w=wq.astype(np.float16)), 161002, ["antiquantScaleOptional", "without an INT8 or INT4 weight"])
refused(lambda: call(qscale=[np.ones((3, 4), np.float32)]), 561003, ["scaleOptional"])
''')


def test_grouped_matmul_antiquant_golden_equals_the_simulator():
    # The generated suites skip the dtype table's antiquantised rows (their base call gives the optional lists
    # no shapes), so the golden's antiquantised branch is held to the simulator here, and its refusals checked.
    from gen.locations import RUNTIME_PYTHON
    goldens = RUNTIME_PYTHON / "tests" / "_goldens.py"
    check(PRELUDE + f'''
import importlib.util
spec = importlib.util.spec_from_file_location("_goldens", {str(goldens)!r})
goldens = importlib.util.module_from_spec(spec)
spec.loader.exec_module(goldens)
exact = goldens.exact
''' + r'''
xh = rng.standard_normal((10, 6)).astype(np.float16)
wq = rng.integers(-128, 128, (3, 6, 4)).astype(np.int8)
a_scale = (rng.random((3, 4)) / 50 + 0.001).astype(np.float16)
a_offset = rng.integers(-8, 8, (3, 4)).astype(np.float16)
T = torch.from_numpy
for ws, scales, offsets in (([wq], [a_scale], [a_offset]), (list(wq), list(a_scale), list(a_offset)),
                            ([wq], [a_scale], None)):
    got = aclnn.grouped_matmul_v5([xh], ws, None, None, None, scales, offsets, None, np.array(counts, np.int64),
                                  None, None, None, 3, 0, 1, 0, None, out=([np.zeros((10, 4), np.float16)], [], []))
    want = exact.grouped_matmul([T(xh)], [T(w) for w in ws], None, torch.tensor(counts), 3, 0, 1, None, None,
                                [T(s) for s in scales], None if offsets is None else [T(o) for o in offsets])
    assert want[0].dtype == torch.float16
    assert np.allclose(host(got[0][0]).astype(np.float32), want[0].float().numpy(), atol=1e-2, rtol=1e-2)
for bad in (dict(antiquant_scale=None), dict(group_type=2)):
    args = dict(antiquant_scale=[T(a_scale)], group_type=0)
    args.update(bad)
    try:
        exact.grouped_matmul([T(xh)], [T(wq)], None, torch.tensor(counts), 3, args["group_type"], 1, None, None,
                             args["antiquant_scale"], None)
    except ValueError:
        continue
    raise AssertionError(f"the golden computed {bad}")
''')
