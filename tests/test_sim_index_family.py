"""What the generated suites' one valid call per API leaves out of the kernel families the corpus
added: every reduction of aclnnScatterReduce (with and without self), gather_v2's negative and
batched indices, gather_nd's negative positions under both settings, and the reductions whose
empty dimension list reduces nothing (noopWithEmptyAxes), the output then allocated in the
input's shape by the bindings. Each against PyTorch, on the simulator."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests import bindings_build

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

aclnn = pytest.importorskip("aclnn")

REDUCTIONS = {1: "sum", 2: "prod", 3: "amax", 4: "amin", 5: "mean"}


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_scatter_reduce_reduces_as_pytorch(reduce, include_self, dtype):
    rng = np.random.default_rng(reduce)
    self = rng.integers(-5, 6, (4, 3)).astype(dtype)
    src = rng.integers(-5, 6, (5, 3)).astype(dtype)
    index = np.array([[0, 1, 1], [2, 2, 0], [0, 1, 3], [3, 3, 0], [0, 0, 0]], np.int64)  # repeats
    got = aclnn.scatter_reduce(self, 0, index, src, reduce, include_self)
    t_self, t_index, t_src = torch.from_numpy(self), torch.from_numpy(index), torch.from_numpy(src)
    if reduce == 0:
        want = torch.scatter(t_self, 0, t_index, t_src)
    else:
        want = torch.scatter_reduce(t_self, 0, t_index, t_src, REDUCTIONS[reduce], include_self=include_self)
    np.testing.assert_array_equal(got, want.numpy())


def test_scatter_reduce_refuses_an_unknown_reduction():
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.scatter_reduce(np.zeros((2, 2), np.float32), 0, np.zeros((1, 2), np.int64), np.ones((1, 2), np.float32), 6,
                             True)
    assert info.value.status == 161002 and "reduce" in str(info.value)


def test_gather_v2_counts_negative_positions_from_the_end_and_faults_beyond():
    self = np.arange(12, dtype=np.float32).reshape(4, 3)
    index = np.array([[-1, 0], [2, -4]], np.int64)
    out = np.empty((2, 2, 3), np.float32)
    np.testing.assert_array_equal(aclnn.gather_v2(self, 0, index, out=out), self[index])
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.gather_v2(self, 0, np.array([[4, 0], [0, 0]], np.int64), out=out)
    assert "outside [-4, 4)" in str(info.value)


def test_gather_v3_gathers_each_batch_apart():
    self = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
    index = np.array([[3, 0, 1], [2, 2, 0]], np.int64)
    out = np.empty((2, 3, 3), np.float32)
    got = aclnn.gather_v3(self, 1, index, 1, 1, out=out)
    np.testing.assert_array_equal(got, np.stack([self[b][index[b]] for b in range(2)]))


@pytest.mark.parametrize("negative", [True, False])
def test_gather_nd_takes_negative_positions_only_where_allowed(negative):
    self = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    indices = np.array([[0, -1], [-4, 2], [3, 0]], np.int64)
    out = np.empty((3, 2), np.float32)
    if negative:
        want = torch.from_numpy(self)[tuple(torch.from_numpy(indices).unbind(-1))].numpy()
        np.testing.assert_array_equal(aclnn.gather_nd(self, indices, True, out=out), want)
    else:
        with pytest.raises(aclnn.AclnnError):
            aclnn.gather_nd(self, indices, False, out=out)


def test_an_empty_dimension_list_with_noop_reduces_nothing():
    x = np.random.default_rng(0).uniform(0.5, 4.0, (3, 4)).astype(np.float32)
    for call in (lambda: aclnn.mean_v2(x, [], False, True), lambda: aclnn.reduce_log_sum(x, [], False, True),
                 lambda: aclnn.max_v2(x, [], False, True)):
        np.testing.assert_array_equal(call(), x)  # allocated in the input's shape, the input's values
    # Without noop, an empty list reduces every dimension.
    np.testing.assert_allclose(aclnn.mean_v2(x, [], False, False), x.mean(), rtol=1e-6)
    np.testing.assert_allclose(aclnn.reduce_log_sum(x, [], False, False), np.log(x.sum()), rtol=1e-6)
    np.testing.assert_allclose(aclnn.reduce_log_sum(x, [1], True, True), np.log(x.sum(1, keepdims=True)), rtol=1e-6)
