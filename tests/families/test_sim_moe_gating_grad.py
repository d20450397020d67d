"""The moe_gating_grad family (aclnnMoeGatingTopKBackward; a derived page) on what the generated suite's one valid
call leaves: an expert chosen twice in a row (its two gradients summed) against the adjoint written in NumPy, in
double; and the refusals by name: the modes torch_npu documents as unsupported (161002), an index outside the
experts in phase 2."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_moe_gating_grad_is_the_adjoint_and_refuses_by_name():
    check(r'''
norm = (rng.random((2, 6)) * 0.9 + 0.05).astype(np.float32)
grad = rng.standard_normal((2, 3)).astype(np.float32)
idx = np.array([[1, 1, 4], [0, 5, 2]], np.int32)
def back(idx=idx, renorm=0, norm_type=1):
    return host(aclnn.moe_gating_top_k_backward(norm, grad, idx, renorm, norm_type, 1.5, 1e-20,
                                                out=np.zeros((2, 6), np.float32)))
want = np.zeros((2, 6))
for r in range(2):
    y = norm[r, idx[r]].astype(np.float64)
    total = y.sum() + 1e-20
    g = 1.5 * (grad[r] / total - (grad[r] * y).sum() / total ** 2)
    np.add.at(want[r], idx[r], g)
want *= norm * (1 - norm)
assert np.allclose(back(), want, rtol=1e-5, atol=1e-7)
refused(lambda: back(norm_type=0), 161002, ["normType"])
refused(lambda: back(renorm=1), 161002, ["renorm"])
refused(lambda: back(idx=np.array([[1, 6, 4], [0, 5, 2]], np.int32)), 507015, ["expertIdx", "element 1 is 6"])
''')
