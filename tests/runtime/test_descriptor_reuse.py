"""Descriptors and scalars reused across calls: an aclnn.Tensor keeps the aclTensor describing it,
a cached block keeps the descriptor of its last fresh layout (an op's output), and calls share the
aclScalars of the values they pass. A chain of calls then makes no CANN object once warm; every
reuse must still describe exactly the tensor or value of the call.

On the simulator (the fake backend keeps no objects: these tests need the real one)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from tests.support import bindings_build
from tests.runtime.concurrency import run_in_threads

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(),
                                reason="needs the real simulator (runtime/sim): the fake backend keeps no objects")


def leaky(g, x, slope=0.1):
    return np.where(x > 0, g, g * np.float32(slope)).astype(np.float32)


def made(aclnn) -> dict[str, int]:
    stats = aclnn._C._stats()
    return {"descriptors": stats["descriptors_made"], "scalars": stats["scalars_made"]}


def values(n: int, seed: int, shape=None) -> np.ndarray:
    data = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    return data.reshape(shape) if shape else data


def test_a_warm_chain_makes_no_descriptor_and_no_scalar(aclnn):
    g, y0 = values(1024, 1), values(1024, 2)
    dg, y = aclnn.to_device(g), aclnn.to_device(y0)
    for _ in range(10):
        y = aclnn.leaky_relu_backward(dg, y, 0.1, False)
    expected = y.numpy()
    before = made(aclnn)
    for _ in range(1000):
        y = aclnn.leaky_relu_backward(dg, y, 0.1, False)
    assert made(aclnn) == before
    for _ in range(1000):
        expected = leaky(g, expected)
    assert np.array_equal(y.numpy(), expected)


def test_a_block_reused_with_another_layout_is_described_anew(aclnn):
    # (4, 8) and (8, 4) outputs take the same cached block in turn: each must be described as itself.
    inputs = {shape: (values(32, 3, shape), values(32, 4, shape)) for shape in ((4, 8), (8, 4))}
    device = {shape: tuple(aclnn.to_device(a) for a in pair) for shape, pair in inputs.items()}
    before = made(aclnn)
    for i in range(20):
        shape = (4, 8) if i % 2 else (8, 4)
        out = aclnn.leaky_relu_backward(*device[shape], 0.1, False)
        assert out.shape == shape
        assert np.array_equal(out.numpy(), leaky(*inputs[shape]))
        del out
    # Every call found the block described for the other shape; and the four inputs, first used
    # here, were described once each.
    assert made(aclnn)["descriptors"] - before["descriptors"] == 20 + 4
    before = made(aclnn)
    for _ in range(20):
        out = aclnn.leaky_relu_backward(*device[(4, 8)], 0.1, False)
        del out
    assert made(aclnn)["descriptors"] == before["descriptors"]  # the same layout: the block's own


def test_shared_scalars_keep_every_value_apart(aclnn):
    # More distinct values than the cache has places, interleaved: collisions make scalars of the
    # call's own; every result is that of its own slope.
    g, x = values(256, 5), values(256, 6)
    dg, dx = aclnn.to_device(g), aclnn.to_device(x)
    slopes = [i / 7 for i in range(1, 200)]
    results = [aclnn.leaky_relu_backward(dg, dx, s, False) for s in slopes * 2]
    for slope, result in zip(slopes * 2, results):
        assert np.array_equal(result.numpy(), leaky(g, x, slope)), slope


def test_a_view_of_a_result_leaves_the_result_described_as_it_is(aclnn):
    g, x = values(1024, 7), values(1024, 8)
    dg, dx = aclnn.to_device(g), aclnn.to_device(x)
    y = aclnn.leaky_relu_backward(dg, dx, 0.1, False)
    # Every other element of y, as another library would view it (its own descriptor, not the block's).
    odd = aclnn.Tensor.from_pointer(y.data_ptr(), (512,), np.float32, (2,), owner=y)
    half = aclnn.to_device(g[:512].copy())
    from_view = aclnn.leaky_relu_backward(half, odd, 0.2, False)
    again = aclnn.leaky_relu_backward(dg, y, 0.3, False)
    first = leaky(g, x)
    assert np.array_equal(from_view.numpy(), leaky(g[:512], first[::2], 0.2))
    assert np.array_equal(again.numpy(), leaky(g, first, 0.3))
    assert np.array_equal(y.numpy(), first)


def test_empty_cache_destroys_the_kept_descriptors_and_scalars(aclnn):
    g = values(2048, 9)
    dg = aclnn.to_device(g)
    y = aclnn.leaky_relu_backward(dg, dg, 0.7, False)
    del y
    assert aclnn.memory_stats()["cached_descriptors"] >= 1
    assert aclnn._C._stats()["shared_scalars"] >= 1
    del dg
    gc.collect()
    objects = aclnn.sim_stats()["live_objects"]
    aclnn.empty_cache()
    assert aclnn.memory_stats()["cached_descriptors"] == 0
    assert aclnn._C._stats()["shared_scalars"] == 0
    assert aclnn.sim_stats()["live_objects"] < objects


def test_threads_share_one_tensor_and_one_scalar(aclnn):
    g, x = values(4096, 10), values(4096, 11)
    dg, dx = aclnn.to_device(g), aclnn.to_device(x)
    expected = leaky(g, x, 0.25)
    failures: list[str] = []

    def work(seed: int) -> None:
        with aclnn.stream(aclnn.Stream()):
            outs = [aclnn.leaky_relu_backward(dg, dx, 0.25, False) for _ in range(200)]
            if not all(np.array_equal(o.numpy(), expected) for o in outs[::37]):
                failures.append(f"thread {seed}")

    run_in_threads(work, 4)
    assert failures == []
