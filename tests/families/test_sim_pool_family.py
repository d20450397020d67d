"""What the generated suites of the pool family leave out (their pages' error rows about window
arguments are prose the generator cannot provoke): phase 1 refuses a bad kernel, stride, padding,
dilation, output size or reflection padding with 161002 naming the argument; the mask form of max
pooling (the simulator's own mask layout, pool.cpp) round-trips: its backward, fed the forward's
mask, is aten's max-pool backward through PyTorch's indices, ties included; an index
outside the plane faults in phase 2; dilation, which the suites' base calls leave at 1, and a
negative divisorOverride compute as PyTorch's; the bindings allocate a pooled output by the simulator's own arithmetic.

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`), as
tests/families/test_sim_index_family.py's do."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

X = np.random.default_rng(0).standard_normal((2, 3, 9, 8)).astype(np.float32)

CALLS = r'''
X = np.array(json.loads(sys.stdin.read()), np.float32)
out = {}

def record(name, call):
    try:
        result = call()
        out[name] = [np.asarray(r).tolist() for r in result] if isinstance(result, tuple) else np.asarray(result).tolist()
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

def pooled(shape):
    return (np.empty(shape, np.float32), np.empty(shape, np.int64))

def max_pool(kernel, stride, padding, dilation, ceil=False, shape=(2, 3, 4, 4)):
    # shape None: the bindings allocate the outputs by the shared rule.
    return lambda: aclnn.max_pool2d_with_indices(X, kernel, stride, padding, dilation, ceil,
                                                 out=pooled(shape) if shape else None)

record("kernel 0", max_pool([0, 3], [2, 2], [0, 0], [1, 1]))
record("stride 0", max_pool([3, 3], [0, 2], [0, 0], [1, 1]))
record("padding over half", max_pool([3, 3], [2, 2], [2, 0], [1, 1]))
record("dilation 0", max_pool([3, 3], [2, 2], [1, 1], [0, 1]))
record("kernel of three values", max_pool([3, 3, 3], [2, 2], [1, 1], [1, 1]))
record("no output", max_pool([9, 9], [1, 1], [0, 0], [2, 2]))
record("out of another shape", max_pool([3, 3], [2, 2], [1, 1], [1, 1], shape=(2, 3, 4, 5)))
record("dilated", max_pool([3, 2], [2, 1], [1, 1], [2, 3], shape=None))
record("stride empty", max_pool([3, 3], [], [1, 1], [1, 1], shape=None))
record("ceil", max_pool([3, 2], [2, 2], [1, 1], [1, 1], ceil=True, shape=None))
record("avg divisor negative", lambda: aclnn.avg_pool2d(X, [2, 2], [2, 2], [0, 0], False, True, -3, 0,
                                                        out=np.empty((2, 3, 4, 4), np.float32)))
record("avg backward divisor negative", lambda: aclnn.avg_pool2d_backward(
    np.ones((2, 3, 4, 4), np.float32), X, [2, 2], [2, 2], [0, 0], False, True, -3, 0, out=np.empty(X.shape, np.float32)))
record("reflection too wide", lambda: aclnn.reflection_pad2d(X, [1, 8, 0, 0], out=np.empty((2, 3, 9, 17), np.float32)))
# Whole values: windows with ties, where PyTorch's first max is the one the mask must name.
TIES = np.round(X * 2)
# k 3 x 2, stride 2, padding 1, ceil: a 5 x 5 output (25 positions: mask rows of (2 + 1) * 32 bytes).
MASK_WINDOW = ([3, 2], [2, 2], [1, 1], [1, 1], True)
record("mask forward", lambda: aclnn.max_pool2d_with_mask(TIES, *MASK_WINDOW, out=(
    np.empty((2, 3, 5, 5), np.float32), np.empty((2, 3, 6, 96), np.int8))))
GRAD = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
if isinstance(out["mask forward"], list):
    mask = np.array(out["mask forward"][1], np.int8)
    record("mask backward", lambda: aclnn.max_pool2d_with_mask_backward(GRAD, TIES, mask, *MASK_WINDOW,
                                                                        out=np.empty(X.shape, np.float32)))
record("mask of another shape", lambda: aclnn.max_pool2d_with_mask(TIES, *MASK_WINDOW, out=(
    np.empty((2, 3, 5, 5), np.float32), np.empty((2, 3, 6, 64), np.int8))))
record("unpool outside", lambda: aclnn.max_unpool2d(X[:, :, :2, :2], np.full((2, 3, 2, 2), 99, np.int64), [4, 4],
                                                     out=np.empty((2, 3, 4, 4), np.float32)))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS, json.dumps(X.tolist()))


@pytest.mark.parametrize("case, argument", [
    ("kernel 0", "kernelSize"), ("stride 0", "stride"), ("padding over half", "padding"), ("dilation 0", "dilation"),
    ("kernel of three values", "kernelSize"), ("no output", "kernelSize"), ("out of another shape", "out"),
    ("reflection too wide", "padding"),
])
def test_phase1_refuses_a_bad_window_argument_naming_it(results, case, argument):
    result = results[case]
    assert isinstance(result, dict), f"{case}: computed {result}"
    # Named by the family ("kernelSize: ...") or by the page's value range ("kernelSize[0]: 0 is outside (0, inf)").
    assert result["status"] == 161002 and re.search(rf": {argument}(?:\[\d+\])?: ", result["message"]), result


def test_a_negative_divisor_divides_as_pytorchs(results):
    # No page bounds divisorOverride (aclnnAvgPool2dBackward's allows [-255, 255] on Ascend910 and
    # Ascend310P) and op-plugin refuses 0 alone: PyTorch's divisor_override=-3 reaches the API.
    x = torch.from_numpy(X)
    want = torch.nn.functional.avg_pool2d(x, [2, 2], [2, 2], [0, 0], False, True, -3)
    np.testing.assert_allclose(results["avg divisor negative"], want.numpy(), rtol=1e-6)
    grad = torch.ops.aten.avg_pool2d_backward(torch.ones(2, 3, 4, 4), x, [2, 2], [2, 2], [0, 0], False, True, -3)
    np.testing.assert_allclose(results["avg backward divisor negative"], grad.numpy(), rtol=1e-6)


def test_dilation_and_an_empty_stride_pool_as_pytorch(results):
    x = torch.from_numpy(X)
    want = torch.ops.aten.max_pool2d_with_indices(x, [3, 2], [2, 1], [1, 1], [2, 3], False)
    np.testing.assert_array_equal(results["dilated"][0], want[0].numpy())
    np.testing.assert_array_equal(results["dilated"][1], want[1].numpy())
    want = torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [], [1, 1], [1, 1], False)
    np.testing.assert_array_equal(results["stride empty"][0], want[0].numpy())


def test_the_bindings_shape_a_pooled_output_as_the_simulator_does(results):
    want = torch.ops.aten.max_pool2d_with_indices(torch.from_numpy(X), [3, 2], [2, 2], [1, 1], [1, 1], True)
    assert np.asarray(results["ceil"][0]).shape == tuple(want[0].shape)
    np.testing.assert_array_equal(results["ceil"][1], want[1].numpy())


def test_the_mask_backward_through_the_forward_mask_is_atens_through_pytorchs_indices(results):
    ties = torch.from_numpy(np.round(X * 2))
    window = ([3, 2], [2, 2], [1, 1], [1, 1], True)
    values, indices = torch.ops.aten.max_pool2d_with_indices(ties, *window)
    assert isinstance(results["mask forward"], list), results["mask forward"]
    np.testing.assert_array_equal(results["mask forward"][0], values.numpy())
    grad = torch.from_numpy(np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32))
    want = torch.ops.aten.max_pool2d_with_indices_backward(grad, ties, *window, indices)
    np.testing.assert_array_equal(results["mask backward"], want.numpy())


def test_a_mask_of_another_shape_is_refused_naming_it(results):
    result = results["mask of another shape"]
    assert isinstance(result, dict) and result["status"] == 161002 and ": indices: " in result["message"], result


def test_an_index_outside_the_plane_faults(results):
    result = results["unpool outside"]
    assert isinstance(result, dict) and "outside the plane's [0, 16)" in result["message"], result
