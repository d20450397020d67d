"""What the generated suites' one valid call per antialiased upsample leaves out: the scales whose windows
aten's kernel defines nothing for, refused by the pages' row naming the scale, and an output one column
wide after a resized width, where the simulator computes the pages' formula and aten's CPU kernel does not
(its vertical pass then gives every output row the first one's value)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_antialiased_upsample_refuses_scales_whose_windows_hold_no_input():
    check(r'''
x = rng.standard_normal((1, 2, 8, 10)).astype(np.float32)
g = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
# scalesH 1e-3: a step of 1000 rows; output row 1's window starts 500 rows in, past the 8 (aten's forward
# reads there). The backward is refused alike: its forward has no result.
refused(lambda: aclnn.upsample_bilinear2d_aa(x, [3, 4], False, 1e-3, 0.0), 161002,
        ["scalesH", "too small", "holds none of the 8 inputs", "aclnnUpsampleBilinear2dAA.md:"])
refused(lambda: aclnn.upsample_bicubic2d_aa(x, [3, 4], False, 0.0, 1e-3), 161002, ["scalesW", "holds none"])
refused(lambda: aclnn.upsample_bilinear2d_aa_backward(g, [3, 4], [1, 2, 8, 10], False, 1e-3, 0.0), 161002, ["scalesH"])
refused(lambda: aclnn.upsample_bicubic2d_aa_grad(g, [3, 4], [1, 2, 8, 10], False, 0.0, 1e-3), 161002, ["scalesW"])
# One output: its window holds the input whatever the scale, but a support of 2e10 rows is no int width.
refused(lambda: aclnn.upsample_bilinear2d_aa(x, [1, 4], False, 1e-10, 0.0), 161002, ["scalesH", "no int"])
# A subnormal scale: its step, and so its support, is infinite.
refused(lambda: aclnn.upsample_bicubic2d_aa(x, [3, 4], False, 5e-324, 0.0), 161002, ["scalesH", "4.94065646e-324"])
# An empty batch computes nothing, whatever sizes it states (their axes are never made).
empty = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (0, 2, 10**9, 10**9), (4, 4, 4, 4))
assert aclnn.upsample_bilinear2d_aa(np.zeros((0, 2, 8, 10), np.float32), [10**9, 10**9], False, 0.0, 0.0,
                                    out=empty).shape == (0, 2, 10**9, 10**9)
# A small scale whose windows all reach the input computes, as aten does: step 20, every window the input.
got = aclnn.upsample_bilinear2d_aa(x, [1, 4], False, 0.05, 0.0)
want = torch.ops.aten._upsample_bilinear2d_aa(torch.from_numpy(x), [1, 4], False, 0.05, None).numpy()
assert np.allclose(got, want, rtol=1e-6, atol=1e-6), (got, want)
''')


def test_antialiased_upsample_one_column_wide_follows_the_formula():
    check(r'''
# Rows 9 -> 2 of one column: the rows' pass alone. aten's CPU kernel repeats output row 0 there; its
# columns' pass computes the same sums on the transposed input (within a rounding, see test_upsample_aa.py).
x = rng.standard_normal((2, 3, 9, 1)).astype(np.float32)
for mode in ("bilinear", "bicubic"):
    got = getattr(aclnn, f"upsample_{mode}2d_aa")(x, [2, 1], False, 0.0, 0.0)
    op = getattr(torch.ops.aten, f"_upsample_{mode}2d_aa")
    want = op(torch.from_numpy(x).transpose(2, 3).contiguous(), [1, 2], False, None, None).transpose(2, 3).numpy()
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6), (mode, got, want)
    assert not np.array_equal(got[..., 0, :], got[..., 1, :])
''')
