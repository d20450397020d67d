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
