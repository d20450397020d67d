"""What the generated suites' one valid call per API leaves out of the embedding_bag, chunk_cat,
affine_grid, norm (group_norm_swish) and matmul (transpose_bmm) families: the values they do not model are refused by
name, in phase 1 (an attribute) or phase 2 (offsets read from the device), never computed wrong."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_unmodelled_values_are_refused_by_name():
    check(r'''
w = rng.standard_normal((5, 3)).astype(np.float32)
idx = np.array([1, 2, 4, 0])
def bags(offsets, mode):
    n = len(offsets)
    return aclnn.embedding_bag(w, idx, offsets, False, mode, False, None, False, -1,
                               out=(np.zeros((n, 3), np.float32), np.zeros(4, np.int64), np.zeros(n, np.int64),
                                    np.zeros(n, np.int64)))
# Max mode's maxIndices is [bags, 3], which the page's one-dimensional maxIndices cannot hold.
refused(lambda: bags(np.array([0, 2]), 2), 161002, ["mode", "max"])
# Offsets are read on the device: one not starting at 0 faults there, named.
refused(lambda: bags(np.array([1, 2]), 1), 507015, ["offsets", "element 0 is 1"])
x = rng.standard_normal((2, 4, 3)).astype(np.float32)
g = np.ones(4, np.float32)
refused(lambda: aclnn.group_norm_swish(x, g, g, 2, "NHWC", 1e-5, True, 1.0,
                                       out=(np.zeros_like(x), np.zeros((2, 2), np.float32),
                                            np.zeros((2, 2), np.float32))),
        161002, ["dataFormatOptional", "NHWC"])
refused(lambda: aclnn.affine_grid(np.zeros((1, 2, 3), np.float32), [1, 1, 4], False,
                                  out=np.zeros((1, 4, 2), np.float32)), 161002, ["size"])
refused(lambda: aclnn.chunk_cat([np.zeros((4, 2), np.float32)], 1, 2, out=np.zeros((2, 4), np.float32)),
        161002, ["dim"])
refused(lambda: aclnn.chunk_cat([np.zeros((4, 2), np.float32)], 0, 2, out=np.zeros((2, 4), np.float16)),
        161002, ["out", "FLOAT16"])
a, b = np.zeros((2, 3, 128), np.float32), np.zeros((2, 128, 128), np.float32)
def tbmm(perm_y, split, right=b):
    return aclnn.transpose_batch_mat_mul(a, right, None, None, [0, 1, 2], [0, 1, 2], perm_y, 0, split,
                                         out=np.zeros((3, 2, 128), np.float32))
refused(lambda: tbmm([0, 1, 2], 1), 161002, ["permY", "[0, 1, 2]"])
refused(lambda: tbmm([1, 0, 2], 2), 161002, ["batchSplitFactor", "2"])
refused(lambda: tbmm([1, 0, 2], 1, np.zeros((2, 128, 100), np.float32)), 161002, ["x2", "128"])
''')
