"""What the generated suites' one valid call per API leaves out of the convolution family: 1d and
3d convolutions, transposed ones with output padding and groups (forward and backward), the
output masks of the backward, padding given as (before, after) pairs, strided (non-contiguous)
operands, FLOAT16, the shapes the bindings allocate by aclnn_bindgen/conv_shape.h's rule, and
the arguments phase 1 refuses (161002 naming the parameter). Each against PyTorch, on the
simulator.

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`):
this process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


# name: (input shape, weight shape, stride, padding, dilation, transposed, output padding, groups)
CONVOLUTIONS = {
    "conv1d": ((2, 4, 9), (6, 2, 3), [2], [1], [2], False, [0], 2),
    "conv2d pairs": ((1, 3, 6, 7), (2, 3, 3, 3), [1, 2], [1, 0, 2, 1], [1, 1], False, [0, 0], 1),
    "conv3d": ((1, 2, 5, 4, 6), (3, 2, 2, 3, 3), [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
    "transposed1d": ((2, 4, 5), (4, 3, 3), [2], [1], [1], True, [1], 2),
    "transposed2d": ((1, 2, 3, 4), (2, 3, 2, 3), [2, 3], [0, 1], [2, 1], True, [1, 2], 1),
    "depthwise": ((2, 4, 6, 5), (8, 1, 3, 3), [1, 1], [1, 1], [1, 1], False, [0, 0], 4),
    # The input's last row and column read by no output: their gradient is 0.
    "unread2d": ((2, 16, 9, 10), (16, 16, 3, 3), [2, 2], [0, 0], [1, 1], False, [0, 0], 1),
    # Stride 1 over 1,024 output positions or more: one GEMM per kernel offset over the padded input.
    "shifted1d": ((2, 3, 1100), (4, 3, 5), [1], [2], [1], False, [0], 1),
    "shifted2d": ((2, 4, 40, 30), (6, 2, 3, 3), [1, 1], [1, 0], [2, 1], False, [0, 0], 2),
    "shifted2d pairs": ((1, 2, 36, 36), (2, 2, 3, 3), [1, 1], [1, 0, 2, 1], [1, 1], False, [0, 0], 1),
    "shifted3d": ((1, 2, 4, 12, 30), (3, 2, 2, 3, 3), [1, 1, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1),
}

CALLS = r'''
CONVOLUTIONS = json.loads(sys.stdin.read())
rng = np.random.default_rng(0)
out = {}

def record(name, call):
    try:
        result = call()
        out[name] = [np.asarray(r).astype(np.float32).tolist() for r in result] if isinstance(result, tuple) \
            else np.asarray(result).astype(np.float32).tolist()
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

for name, (x_shape, w_shape, stride, padding, dilation, transposed, output_padding, groups) in CONVOLUTIONS.items():
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    bias = rng.standard_normal(w_shape[1] * groups if transposed else w_shape[0]).astype(np.float32)
    out[name + " inputs"] = [x.tolist(), w.tolist(), bias.tolist()]
    args = (stride, padding, dilation, transposed, output_padding, groups)
    # The output allocated by the bindings' rule (aclnn_bindgen/conv_shape.h).
    record(name, lambda: aclnn.convolution(x, w, bias, *args, 1))
    y = aclnn.convolution(x, w, None, *args, 1)
    grad = rng.standard_normal(y.shape).astype(np.float32)
    out[name + " grad"] = grad.tolist()
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        # NaN where nothing is written: every element of an output asked for must be.
        outs = tuple(aclnn.to_device(np.full(s, np.nan, np.float32)) for s in (x.shape, w.shape, bias.shape))
        record(f"{name} backward {mask}", lambda: aclnn.convolution_backward(
            grad, x, w, [bias.shape[0]], *args, mask, 1, out=outs))

# Strided operands: a transposed view of the input, every other channel of the weight.
x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
w = rng.standard_normal((4, 6, 3, 3)).astype(np.float32)
out["strided inputs"] = [x.tolist(), w.tolist()]
record("strided", lambda: aclnn.convolution(np.swapaxes(x, 2, 3), w[:, ::2], None, [1, 1], [1, 1], [1, 1], False,
                                           [0, 0], 1, 1))
h = rng.standard_normal((1, 3, 6, 6)).astype(np.float16)
hw = rng.standard_normal((2, 3, 3, 3)).astype(np.float16)
out["half inputs"] = [h.astype(np.float32).tolist(), hw.astype(np.float32).tolist()]
record("half", lambda: aclnn.convolution(h, hw, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, 1))

x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
bad = {
    "stride": ([0, 1], [1, 1], [1, 1], False, [0, 0], 2),
    "dilation": ([1, 1], [1, 1], [0, 1], False, [0, 0], 2),
    "padding": ([1, 1], [-1, 1], [1, 1], False, [0, 0], 2),
    "groups": ([1, 1], [1, 1], [1, 1], False, [0, 0], 3),
    "weight": ([1, 1], [1, 1], [1, 1], False, [0, 0], 1),
    "input": ([1, 1], [0, 0], [3, 3], False, [0, 0], 2),
    "outputPadding": ([1, 1], [0, 0], [1, 1], True, [1, 0], 1),
}
for param, args in bad.items():
    weight = np.zeros((4, 3, 3, 3), np.float32) if param == "outputPadding" else w
    record(f"bad {param}", lambda: aclnn.convolution(x, weight, None, *args, 1, out=np.zeros((1, 6, 3, 3), np.float32)))
record("bad cube", lambda: aclnn.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 2, 4))

# A convolution multiplies its padding as zeros, as the NPU's img2col does: an infinite weight at
# kernel offset (0, 0) makes NaN of every output of its channel whose window starts in the padding.
bx = rng.standard_normal((1, 3, 9, 8)).astype(np.float32)
bw = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
bw[1, 2, 0, 0] = np.inf
out["border inputs"] = [bx.tolist(), bw.tolist()]
for stride in (1, 2):
    record(f"border stride {stride}", lambda: aclnn.convolution(bx, bw, None, [stride, stride], [1, 1], [1, 1], False,
                                                                [0, 0], 1, 1))

# The weight's gradient multiplies the padding as zeros too: an infinite gradient at output (0, 0)
# makes NaN of every weight of its channel whose offset reads the padding there (row 0, column 0).
bg = rng.standard_normal((1, 4, 9, 8)).astype(np.float32)
bg[0, 1, 0, 0] = np.inf
out["border backward grad"] = bg.tolist()
record("border backward", lambda: aclnn.convolution_backward(
    bg, bx, bw * 0, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False], 1,
    out=(np.zeros(bx.shape, np.float32), np.zeros(bw.shape, np.float32), np.zeros(4, np.float32)))[1])

# ConvTbc (pad 1) with a NaN weight at kernel offset 0, which time 0 reads in the padding, and a
# NaN gradient at the last time, which offset 2 reads there: aten's conv_tbc skips the padding.
tx = rng.standard_normal((5, 2, 3)).astype(np.float32)
tw = rng.standard_normal((3, 3, 4)).astype(np.float32)
tw[0, 1, 2] = np.nan
tg = rng.standard_normal((5, 2, 4)).astype(np.float32)
tg[4, 0, 1] = np.nan
tb = rng.standard_normal(4).astype(np.float32)
out["tbc inputs"] = [tx.tolist(), tw.tolist(), tg.tolist(), tb.tolist()]
record("tbc", lambda: aclnn.conv_tbc(tx, tw, tb, 1, 1, out=np.zeros((5, 2, 4), np.float32)))
record("tbc backward", lambda: aclnn.conv_tbc_backward(tg, tx, tw, tb, 1, 1, out=tuple(
    np.zeros(a.shape, np.float32) for a in (tx, tw, tb))))
out["engine paths"] = aclnn.sim_stats()["engine_paths"]
print(json.dumps(out))
'''

# Every test runs on the build's own routes and again with ACLNN_SIM_ONEDNN=0: a build with oneDNN
# convolves every shape here on it, and the im2col and OpenBLAS route (a build without oneDNN's,
# and the one taken where oneDNN has only reference kernels) would otherwise be reached by no test.
ROUTES = {"default": {}, "openblas": {"ACLNN_SIM_ONEDNN": "0"}}


@pytest.fixture(scope="module", params=list(ROUTES))
def results(request) -> dict:
    return {**results_of(CALLS, json.dumps(CONVOLUTIONS), **ROUTES[request.param]), "route": request.param}


@pytest.mark.parametrize("engine", ["conv.float32", "conv.input_grad", "conv.weight_grad"])
def test_the_convolutions_and_their_gradients_took_the_route_asked_for(results, engine):
    taken = results["engine paths"][engine]
    if results["route"] == "openblas":
        assert taken.startswith("openblas"), taken
    else:
        assert taken.startswith(("onednn", "openblas")), taken


def _tensors(results, name):
    return [torch.tensor(v) for v in results[name]]


def _reference(name, x, w):
    _, _, stride, padding, dilation, transposed, output_padding, groups = CONVOLUTIONS[name]
    if len(padding) == 2 * (x.dim() - 2):  # (before, after) pairs: padded first, then no padding
        pads = [p for d in reversed(range(x.dim() - 2)) for p in padding[2 * d:2 * d + 2]]
        x = F.pad(x, pads)
        padding = [0] * (x.dim() - 2)
    return x, torch.ops.aten.convolution, (stride, padding, dilation, transposed, output_padding, groups)


@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_forward_equals_pytorch(results, name):
    x, w, bias = _tensors(results, name + " inputs")
    px, conv, args = _reference(name, x, w)
    want = conv(px, w, bias, *args)
    got = torch.tensor(results[name])
    assert got.shape == want.shape  # the bindings allocated the shape PyTorch gives
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True]])
@pytest.mark.parametrize("name", [n for n in CONVOLUTIONS if not n.endswith("pairs")])
def test_backward_equals_pytorch(results, name, mask):
    x, w, bias = _tensors(results, name + " inputs")
    grad = torch.tensor(results[name + " grad"])
    _, _, stride, padding, dilation, transposed, output_padding, groups = CONVOLUTIONS[name]
    want = torch.ops.aten.convolution_backward(grad, x, w, [bias.shape[0]], stride, padding, dilation, transposed,
                                               output_padding, groups, mask)
    got = _tensors(results, f"{name} backward {mask}")
    # An output the mask leaves out is not computed (its out= array's content is unspecified).
    for i, (g, wanted) in enumerate(zip(got, want)):
        if mask[i]:
            torch.testing.assert_close(g, wanted, rtol=1e-4, atol=1e-3)


def test_strided_operands_are_read_through_their_strides(results):
    x, w = _tensors(results, "strided inputs")
    want = F.conv2d(x.transpose(2, 3), w[:, ::2], None, 1, 1)
    torch.testing.assert_close(torch.tensor(results["strided"]), want, rtol=1e-4, atol=1e-4)


def test_float16_is_computed_in_float(results):
    h, hw = _tensors(results, "half inputs")
    want = F.conv2d(h, hw).half().float()
    torch.testing.assert_close(torch.tensor(results["half"]), want, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("param", ["stride", "dilation", "padding", "groups", "weight", "input", "outputPadding"])
def test_phase1_refuses_a_bad_argument_naming_it(results, param):
    result = results[f"bad {param}"]
    assert isinstance(result, dict), f"expected a refusal, got a result"
    # Named by the family ("stride: ...") or by the page's value range ("stride[0]: 0 is outside (0, inf)").
    assert result["status"] == 161002 and re.search(rf"\b{param}(?:\[\d+\])?:", result["message"]), result["message"]


def test_an_undocumented_cube_math_type_is_refused(results):
    assert results["bad cube"]["status"] == 161002 and "cubeMathType" in results["bad cube"]["message"]


@pytest.mark.parametrize("stride", [1, 2])
def test_convolution_multiplies_its_padding_as_zeros(results, stride):
    x, w = _tensors(results, "border inputs")
    got = torch.tensor(results[f"border stride {stride}"])
    # PyTorch's own padding skips the padded positions; zeros padded first are multiplied.
    want = F.conv2d(F.pad(x, [1, 1, 1, 1]), w, None, stride)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4, equal_nan=True)
    assert torch.isnan(got[0, 1, 0]).all() and torch.isnan(got[0, 1, :, 0]).all()
    assert not torch.isnan(got[0, 1, 1:, 1:]).any() and torch.isinf(got[0, 1, 1:, 1:]).all()
    assert torch.isfinite(got[0, [0, 2, 3]]).all()


def test_the_weight_gradient_multiplies_the_padding_as_zeros(results):
    x, _ = _tensors(results, "border inputs")
    grad = torch.tensor(results["border backward grad"])
    got = torch.tensor(results["border backward"])
    # PyTorch's own padding skips the padded positions; zeros padded first are multiplied.
    want = torch.ops.aten.convolution_backward(grad, F.pad(x, [1, 1, 1, 1]), torch.zeros(4, 3, 3, 3), None, [1, 1],
                                               [0, 0], [1, 1], False, [0, 0], 1, [False, True, False])[1]
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4, equal_nan=True)
    assert torch.isnan(got[1, :, 0]).all() and torch.isnan(got[1, :, :, 0]).all()
    assert not torch.isnan(got[1, :, 1:, 1:]).any() and torch.isinf(got[1, :, 1:, 1:]).all()
    assert torch.isfinite(got[[0, 2, 3]]).all()


def test_tbc_skips_the_padding_as_aten_does(results):
    # An im2col's 0 * NaN would put NaN in every output beside the padding.
    x, w, grad, bias = _tensors(results, "tbc inputs")
    want = torch.conv_tbc(x, w, bias, 1)
    torch.testing.assert_close(torch.tensor(results["tbc"]), want, rtol=1e-4, atol=1e-4, equal_nan=True)
    assert not torch.isnan(want[0]).any()
    for got, wanted in zip(results["tbc backward"], torch.ops.aten.conv_tbc_backward(grad, x, w, bias, 1)):
        torch.testing.assert_close(torch.tensor(got), wanted, rtol=1e-4, atol=1e-4, equal_nan=True)
