"""aclnnRotaryPositionEmbeddingV2 (a derived page: op-plugin's call of V1 with its `rotate`, which
torch_npu.npu_rotary_mul passes where the library has V2): V1's rotation without rotateOptional, in each
mode, equal to V1's own result; a rotateOptional, which no page describes, refused by name (561003)
rather than computed as if absent."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_rotary_v2_without_rotate_is_v1_and_refuses_rotate_by_name():
    check(r'''
x = rng.standard_normal((2, 3, 2, 8)).astype(np.float32)
cos, sin = (rng.standard_normal((1, 3, 1, 8)).astype(np.float32) for _ in range(2))
for mode in (0, 1, 2, 3):
    want = host(aclnn.rotary_position_embedding(x, cos, sin, mode))
    assert np.array_equal(host(aclnn.rotary_position_embedding_v2(x, cos, sin, mode)), want), mode
refused(lambda: host(aclnn.rotary_position_embedding_v2(x, cos, sin, 0, np.eye(8, dtype=np.float32))), 561003,
        ["rotateOptional", "not simulated"])
''')
