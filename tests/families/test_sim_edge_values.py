"""Edge values on which the binding fuzzer (tests/fuzz/fuzz_edge_values.py) found the simulator and
PyTorch disagreeing, pinned here call by call against PyTorch's CPU kernels: the fuzzer draws them
at random, these tests always make them.

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`):
this process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

BIG = float(np.finfo(np.float32).max)
# Sums that overflow, NaN and infinite operands, both signs.
EDGES = [0.5, -0.5, np.nan, -np.nan, np.inf, -np.inf, BIG, -BIG, 1e38, 3.0]
OTHERS = [1.0, 2.0, 1.0, 3.0, 1.0, 2.0, BIG, 1.0, 1e38, -np.inf]
INPUTS = {
    "x": EDGES, "y": OTHERS,
    # A huge gradient where the sigmoid is small: the golden's (gradOutput * s) * factor is finite.
    "gelu_grad": [-BIG, BIG, 1.0, -BIG], "gelu_self": [-2.83, -3.5, 0.5, -1.0],
    # Subnormal weights: each -weight * value underflows in float32, as aten's scalar_t product.
    "nll_self": [[-0.5, -1.0, -2.0], [-1.5, -0.25, -3.0]], "nll_target": [0, 2], "nll_weight": [1e-45, 0.5, 1e-45],
    # exp(88) * sum(weight) overflows in float, the formula's type.
    "ce_log_prob": [[88.0, -1.0, -2.0], [-0.5, -1.0, -3.0]], "ce_target": [1, 0], "ce_weight": [2.0, 1.87, 1.0],
    # A NaN gradient with AMSGrad: its second moment's maximum is NaN at every position (the fused
    # CPU kernel's scalar tail would keep the old maximum).
    "adam_var": [1.0] * 12, "adam_m": [0.1] * 12, "adam_v": [0.5] * 12, "adam_max_v": [2.0] * 12,
    "adam_grad": [0.5] * 3 + [np.nan] + [0.5] * 7 + [np.nan],
    # Inference batch norm: the input takes no part in its gradient, a NaN input included.
    "bn_grad": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "bn_input": [[np.nan, 1.0, 2.0], [0.5, np.inf, -1.0]],
    "bn_weight": [2.0, -1.0, 0.5], "bn_mean": [0.1, 0.2, 0.3], "bn_var": [1.0, 0.5, 2.0],
    # Target weights that sum to 0: the mean's nll part is 0 / 0, whatever the smoothing part is.
    "ce_input": [[0.5, 3.0, -1.0], [1.0, 0.25, 2.0]], "ce_loss_target": [0, 0], "ce_loss_weight": [0.0, 1.0, 2.0],
    # Subnormal weights: each logp * weight rounds to float (underflows), as aten's products.
    "ce_loss_target2": [1, 2], "ce_tiny_weight": [1e-45, 3e-45, 1e-45],
    # Counts that are all 0: the merge divides by their sum, 0 (NaN); it does not skip them.
    "gather_input": [[1.0, 2.0], [3.0, 4.0]], "gather_mean": [[0.5, 1.0], [1.5, 2.0]],
    "gather_invstd": [[1.0, 2.0], [0.5, 1.0]], "gather_counts": [0.0, 0.0],
    # Subnormal counts: sumDy / n overflows to inf in float, the golden's (and torch's) type.
    "elemt_grad": [[0.5, -1.0], [2.0, 1.5]], "elemt_input": [[1.0, 2.0], [-1.0, 0.5]], "elemt_mean": [0.5, -0.5],
    "elemt_invstd": [1.0, 2.0], "elemt_sum_dy": [1.0, -2.0], "elemt_sum_dy_xmu": [0.5, 1.0], "elemt_counter": [1e-45, 1e-45],
}

CALLS = r'''
inputs = json.loads(sys.stdin.read())
x, y = (np.array(inputs[k], np.float32) for k in ("x", "y"))
out = {"add_relu": aclnn.add_relu(x, y, 1.0).tolist()}
g, s = (np.array(inputs[k], np.float32) for k in ("gelu_grad", "gelu_self"))
out["fast_gelu_backward"] = aclnn.fast_gelu_backward(g, s).tolist()
logp, target, weight = (np.array(inputs[k], dtype) for k, dtype in
                        (("nll_self", np.float32), ("nll_target", np.int64), ("nll_weight", np.float32)))
out["nll_loss"] = [r.tolist() for r in aclnn.nll_loss(logp, target, weight, 1, -100, out=(
    np.zeros((), np.float32), np.zeros((), np.float32)))]
lp, ce_target, ce_weight = (np.array(inputs[k], dtype) for k, dtype in
                            (("ce_log_prob", np.float32), ("ce_target", np.int64), ("ce_weight", np.float32)))
out["cross_entropy_loss_grad"] = aclnn.cross_entropy_loss_grad(
    np.array(0.5, np.float32), lp, ce_target, ce_weight, None, None, "mean", -100, 0.1, 0.0).tolist()
state = [np.array(inputs["adam_" + k], np.float32) for k in ("var", "m", "v", "max_v", "grad")]
aclnn.apply_adam_w_v2(*state[:4], state[4], np.array([0.0], np.float32), 0.01, 0.9, 0.999, 0.1, 1e-8, True, False)
out["apply_adam_w_v2"] = [a.tolist() for a in state[:4]]
bn = {k: np.array(inputs["bn_" + k], np.float32) for k in ("grad", "input", "weight", "mean", "var")}
out["batch_norm_backward"] = [r.tolist() for r in aclnn.batch_norm_backward(
    bn["grad"], bn["input"], bn["weight"], bn["mean"], bn["var"], None, None, False, 1e-5, [True, False, False],
    out=(np.zeros((2, 3), np.float32), None, None))[:1]]
ce_input = np.array(inputs["ce_input"], np.float32)
out["cross_entropy_loss"] = aclnn.cross_entropy_loss(ce_input, np.array(inputs["ce_loss_target"], np.int64),
                                                     np.array(inputs["ce_loss_weight"], np.float32), "mean", -100,
                                                     0.1, 0.0, False, out=(np.zeros((), np.float32),
                                                     np.zeros((2, 3), np.float32), np.zeros((), np.float32),
                                                     np.zeros(2, np.float32)))[0].tolist()
out["cross_entropy_loss_subnormal"] = aclnn.cross_entropy_loss(
    ce_input, np.array(inputs["ce_loss_target2"], np.int64), np.array(inputs["ce_tiny_weight"], np.float32), "mean",
    -100, 0.1, 0.0, False, out=(np.zeros((), np.float32), np.zeros((2, 3), np.float32), np.zeros((), np.float32),
                                np.zeros(2, np.float32)))[0].tolist()
gather = [np.array(inputs["gather_" + k], np.float32) for k in ("input", "mean", "invstd", "counts")]
out["gather_stats"] = [r.tolist() for r in aclnn.batch_norm_gather_stats_with_counts(
    gather[0], gather[1], gather[2], None, None, 0.1, 1e-5, gather[3])]
elemt = {k: np.array(inputs["elemt_" + k], np.float32) for k in ("grad", "input", "mean", "invstd", "sum_dy",
                                                                   "sum_dy_xmu", "counter")}
out["batch_norm_elemt_backward"] = aclnn.batch_norm_elemt_backward(
    elemt["grad"], elemt["input"], elemt["mean"], elemt["invstd"], None, elemt["sum_dy"], elemt["sum_dy_xmu"],
    elemt["counter"]).tolist()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS, json.dumps(INPUTS))


def _edges() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.tensor(EDGES, dtype=torch.float32), torch.tensor(OTHERS, dtype=torch.float32)


def test_add_relu_clamps_nan_to_zero_and_inf_to_the_largest_float_as_aten(results):
    # aten's add_clamp: max(0, sum), then min(float max, ...): NaN is 0 (a relu of the sum would
    # keep it), +inf the largest float.
    x, y = _edges()
    want = torch.ops.aten._add_relu(x, y)
    torch.testing.assert_close(torch.tensor(results["add_relu"]), want, rtol=1e-6, atol=0, equal_nan=True)
    assert not torch.isnan(want).any() and not torch.isinf(want).any()


def test_fast_gelu_backward_multiplies_in_the_goldens_order(results):
    g, x = (torch.tensor(INPUTS[k], dtype=torch.float32) for k in ("gelu_grad", "gelu_self"))
    s = torch.sigmoid(1.702 * x)
    want = g * s * (1 + 1.702 * x * (1 - s))
    assert torch.isfinite(want).all()
    torch.testing.assert_close(torch.tensor(results["fast_gelu_backward"]), want, rtol=1e-4, atol=1e-4)


def test_nll_loss_mean_rounds_each_product_in_float_as_aten(results):
    logp, weight = (torch.tensor(INPUTS[k], dtype=torch.float32) for k in ("nll_self", "nll_weight"))
    want = torch.ops.aten.nll_loss_forward(logp, torch.tensor(INPUTS["nll_target"]), weight, 1, -100)
    for got, wanted in zip(results["nll_loss"], want):
        torch.testing.assert_close(torch.tensor(got), wanted, rtol=1e-4, atol=1e-4)


def test_cross_entropy_loss_grad_computes_its_formula_in_float(results):
    # The page's formula in float32 (the semantics' golden): the smoothing term's p * sum(w)
    # overflows to inf in row 0, as it does in the tensor's type; double intermediates gave 7.8e37.
    p = torch.tensor(INPUTS["ce_log_prob"]).exp()
    y, w = torch.tensor(INPUTS["ce_target"]), torch.tensor(INPUTS["ce_weight"])
    one_hot = torch.nn.functional.one_hot(y, 3)
    want = (0.9 * w[y][:, None] * (p - one_hot) + 0.1 / 3 * (p * w.sum() - w)) * 0.5 / w[y].sum()
    assert torch.isinf(want[0]).any()
    torch.testing.assert_close(torch.tensor(results["cross_entropy_loss_grad"]), want, rtol=1e-4, atol=1e-4)


def test_apply_adam_w_v2_keeps_a_nan_second_moment_in_its_maximum(results):
    var, m, v, max_v, grad = (torch.tensor(INPUTS["adam_" + k]) for k in ("var", "m", "v", "max_v", "grad"))
    torch.optim._functional.adamw([var], [grad], [m], [v], [max_v], [torch.tensor(0.0)], foreach=False, amsgrad=True,
                                  beta1=0.9, beta2=0.999, lr=0.01, weight_decay=0.1, eps=1e-8, maximize=False)
    assert torch.isnan(max_v).sum() == 2
    for got, want in zip(results["apply_adam_w_v2"], (var, m, v, max_v)):
        torch.testing.assert_close(torch.tensor(got), want, rtol=1e-5, atol=1e-6, equal_nan=True)


def test_batch_norm_backward_in_inference_does_not_read_the_input(results):
    keys = ("grad", "input", "weight", "mean", "var")
    grad, x, weight, mean, var = (torch.tensor(INPUTS["bn_" + k]) for k in keys)
    want = torch.ops.aten.native_batch_norm_backward(grad, x, weight, mean, var, None, None, False, 1e-5,
                                                     [True, False, False])[0]
    assert torch.isfinite(want).all()
    torch.testing.assert_close(torch.tensor(results["batch_norm_backward"][0]), want, rtol=1e-5, atol=1e-6)


def test_cross_entropy_loss_reduces_its_nll_and_smoothing_parts_apart_as_aten(results):
    x, y, w = (torch.tensor(INPUTS[k]) for k in ("ce_input", "ce_loss_target", "ce_loss_weight"))
    want = torch.nn.functional.cross_entropy(x, y, w, label_smoothing=0.1)
    assert torch.isnan(want)
    torch.testing.assert_close(torch.tensor(results["cross_entropy_loss"]), want, equal_nan=True)


def test_cross_entropy_loss_rounds_each_weighted_log_probability_to_float(results):
    x, y, w = (torch.tensor(INPUTS[k]) for k in ("ce_input", "ce_loss_target2", "ce_tiny_weight"))
    want = torch.nn.functional.cross_entropy(x, y, w, label_smoothing=0.1)
    torch.testing.assert_close(torch.tensor(results["cross_entropy_loss_subnormal"]), want, rtol=1e-4, atol=1e-4)


def test_gather_stats_with_counts_that_are_all_zero_is_nan(results):
    # PyTorch has this op on CUDA only; its merge, the semantics' golden, divides by the counts'
    # sum: 0 / 0 is NaN for both statistics (the kernel skipped the empty devices and gave 0).
    mean, counts = (torch.tensor(INPUTS["gather_" + k], dtype=torch.float64) for k in ("mean", "counts"))
    want_mean = (counts[:, None] * mean).sum(0) / counts.sum()
    assert torch.isnan(want_mean).all()
    got_mean, got_invstd = (torch.tensor(r) for r in results["gather_stats"])
    assert torch.isnan(got_mean).all() and torch.isnan(got_invstd).all()


def test_batch_norm_elemt_backward_divides_by_the_counts_in_float(results):
    g, x, mean, invstd, sum_dy, sum_dy_xmu, counter = (
        torch.tensor(INPUTS["elemt_" + k]) for k in ("grad", "input", "mean", "invstd", "sum_dy", "sum_dy_xmu", "counter"))
    n = counter.double().sum().float()
    want = (g - sum_dy / n - (x - mean) * invstd.pow(2) * sum_dy_xmu / n) * invstd
    assert torch.isinf(want).any()
    torch.testing.assert_close(torch.tensor(results["batch_norm_elemt_backward"]), want, equal_nan=True)
