"""What the generated suite's one valid call leaves out of the rope_cache family (aclnnRopeWithSinCosCache,
torch_npu.npu_mrope; a derived page): rope mode with rotate_interleaved and a rotaryDim below headSize, against the
README's formula in NumPy, in double; and the refusals by name: the README's bounds in phase 1 (161002), a
position outside the cache in phase 2."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_rope_cache_rotates_each_heads_leading_elements_and_refuses_by_name():
    check(r'''
tokens, head, rotary = 3, 64, 32
q = rng.standard_normal((tokens, 2 * head)).astype(np.float32)
k = rng.standard_normal((tokens, head)).astype(np.float32)
cache = rng.standard_normal((5, rotary)).astype(np.float32)
positions = np.array([4, 0, 2], np.int64)
def rope(positions=positions, q=q, k=k, cache=cache, sections=(0, 0, 0), head=head, neox=False):
    return aclnn.rope_with_sin_cos_cache(positions, q, k, cache, list(sections), head, neox,
                                         out=(np.zeros(q.shape, q.dtype), np.zeros(k.shape, k.dtype)))
def interleaved(x):
    h = x.astype(np.float64).reshape(tokens, -1, head).copy()
    c, s = cache[positions, :rotary // 2][:, None], cache[positions, rotary // 2:][:, None]
    x1, x2 = h[..., 0:rotary:2].copy(), h[..., 1:rotary:2].copy()
    h[..., 0:rotary:2], h[..., 1:rotary:2] = x1 * c - x2 * s, x2 * c + x1 * s
    return h.reshape(x.shape)
got_q, got_k = rope()
assert np.allclose(host(got_q), interleaved(q), atol=1e-5) and np.allclose(host(got_k), interleaved(k), atol=1e-5)
refused(lambda: rope(head=8), 161002, ["headSize", "8"])
refused(lambda: rope(cache=np.ones((5, 96), np.float32)), 161002, ["cosSinCache", "96"])
refused(lambda: rope(q=np.ones((tokens, 100), np.float32)), 161002, ["queryIn", "100"])
refused(lambda: rope(positions=np.array([[0, 1, 2]] * 3, np.int64), sections=(8, 8, 8)), 161002, ["mropeSection"])
refused(lambda: rope(positions=np.array([0, 1], np.int64)), 161002, ["positions"])
refused(lambda: host(rope(positions=np.array([0, 5, 1], np.int64))[0]), 507015, ["positions", "element 1 is 5"])
''')
