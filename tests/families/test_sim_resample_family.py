"""The bicubic upsample's backward equals aten's bit for bit (its suite compares within a
tolerance): aten's UpSampleBicubic2d.cpp is compiled once, without FMA, so its source coordinate
scale * (o + 0.5) - 0.5 is rounded twice where the forward's CPU kernels fuse it; its last tap's
distance is (1 - t) + 1, two roundings; and it copies the gradient where the input and output sizes
are equal, whatever the scales. Each case differed from aten before (by a few float32 ulps, or by
3.8 for a scale of 2 at equal sizes).

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`), as
tests/families/test_sim_index_family.py's do; tests/sim/test_kernel_paths.py checks that every code
path gives the same bits."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

# name: (gradOut's shape, inputSize, alignCorners, scalesH, scalesW)
CASES = {
    "inexact scale": ((2, 2, 33, 62), [2, 2, 66, 58], False, 0.0, 0.0),
    "aligned, small to large": ((1, 2, 38, 57), [1, 2, 4, 11], True, 0.0, 0.0),
    "equal sizes, scale 2": ((1, 2, 5, 17), [1, 2, 5, 17], False, 2.0, 2.0),
}

CALLS = r'''
cases = json.loads(sys.stdin.read())
out = {}
for name, (grad, input_size, align, scale_h, scale_w) in cases.items():
    grad = np.array(grad, np.float32)
    out[name] = aclnn.upsample_bicubic2d_backward(grad, list(grad.shape[2:]), input_size, align, scale_h,
                                                  scale_w).tolist()
print(json.dumps(out))
'''


def gradient(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def results() -> dict:
    cases = {name: (gradient(shape).tolist(), *rest) for name, (shape, *rest) in CASES.items()}
    return results_of(CALLS, json.dumps(cases))


@pytest.mark.parametrize("name", CASES)
def test_the_bicubic_backward_is_atens_to_the_bit(results, name):
    shape, input_size, align, scale_h, scale_w = CASES[name]
    want = torch.ops.aten.upsample_bicubic2d_backward(torch.from_numpy(gradient(shape)), list(shape[2:]), input_size,
                                                      align, scale_h or None, scale_w or None).numpy()
    assert np.array_equal(np.array(results[name], np.float32), want), name


# An axis whose input and output sizes are equal, given a scale of 2, beside axes upsampled by 2:
# aten takes it as the identity in the linear modes (forward and backward) and the nearest
# backwards, and uses the scale in nearest3d's forward and bicubic's forward; the simulator did the
# latter everywhere (a wrong value, off by up to 3.4, with no error).
# name: (the function, named as aten's op, input's shape, output's spatial sizes, whether a backward, whether it
# takes align_corners)
EQUAL_AXIS = {
    "linear1d": ("upsample_linear1d", (1, 2, 9), [9], False, True),
    "bilinear2d": ("upsample_bilinear2d", (1, 2, 5, 7), [5, 14], False, True),
    "trilinear3d": ("upsample_trilinear3d", (1, 2, 3, 5, 4), [6, 5, 8], False, True),
    "bicubic2d": ("upsample_bicubic2d", (1, 2, 5, 7), [10, 7], False, True),
    "nearest3d": ("upsample_nearest3d", (1, 2, 3, 5, 4), [6, 5, 8], False, False),
    "linear1d backward": ("upsample_linear1d_backward", (1, 2, 9), [9], True, True),
    "bilinear2d backward": ("upsample_bilinear2d_backward", (1, 2, 5, 7), [5, 14], True, True),
    "trilinear3d backward": ("upsample_trilinear3d_backward", (1, 2, 3, 5, 4), [6, 5, 8], True, True),
    "nearest1d backward": ("upsample_nearest1d_backward", (1, 2, 9), [9], True, False),
    "nearest2d backward": ("upsample_nearest2d_backward", (1, 2, 5, 7), [5, 14], True, False),
    "nearest3d backward": ("upsample_nearest3d_backward", (1, 2, 3, 5, 4), [6, 5, 8], True, False),
}

EQUAL_AXIS_CALLS = r'''
cases = json.loads(sys.stdin.read())
out = {}
for name, (function, source, output_size, input_size, backward, aligned, scales) in cases.items():
    source = np.array(source, np.float32)
    args = [source, output_size] + ([input_size] if backward else []) + ([False] if aligned else []) + scales
    out[name] = getattr(aclnn, function)(*args).tolist()
print(json.dumps(out))
'''


def equal_axis_case(name: str) -> tuple[np.ndarray, list[int], list[int], list[float]]:
    _, in_shape, out_spatial, backward, _ = EQUAL_AXIS[name]
    # Scale 2 on every axis: right for the doubled ones, ignored or not by the equal one.
    scales = [2.0] * len(out_spatial)
    source_shape = (*in_shape[:2], *out_spatial) if backward else in_shape
    return gradient(source_shape), out_spatial, list(in_shape), scales


@pytest.fixture(scope="module")
def equal_axis_results() -> dict:
    cases = {}
    for name, (function, _, _, backward, aligned) in EQUAL_AXIS.items():
        source, out_spatial, input_size, scales = equal_axis_case(name)
        cases[name] = (function, source.tolist(), out_spatial, input_size, backward, aligned, scales)
    return results_of(EQUAL_AXIS_CALLS, json.dumps(cases))


@pytest.mark.parametrize("name", EQUAL_AXIS)
def test_an_axis_of_equal_sizes_follows_aten_whatever_its_scale(equal_axis_results, name):
    aten_op, _, _, backward, aligned = EQUAL_AXIS[name]
    source, out_spatial, input_size, scales = equal_axis_case(name)
    args = [torch.from_numpy(source), out_spatial] + ([input_size] if backward else []) + \
        ([False] if aligned else []) + scales
    want = getattr(torch.ops.aten, aten_op)(*args).numpy()
    got = np.array(equal_axis_results[name], np.float32)
    assert got.shape == want.shape, name
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)
