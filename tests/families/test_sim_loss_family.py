"""What the generated suites' one valid call per API leaves out of the loss family: the cross
entropy and its gradient in every reduction, with and without a weight and label smoothing;
broadcast pointwise losses; a class out of range (a fault in phase 2, named) and the reductions
the engine refuses by name. Each against PyTorch, on the simulator.

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`):
this process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py)."""

from __future__ import annotations

import pytest

from tests.support.op_docs_process import check
from tests.support import bindings_build

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_cross_entropy_and_its_gradient_in_every_reduction_equal_torch():
    check(r'''
x = rng.standard_normal((6, 7)).astype(np.float32)
t = rng.integers(0, 7, 6)
t[2] = 3  # ignored below
w = rng.uniform(0.5, 1.5, 7).astype(np.float32)
for reduction in ("none", "mean", "sum"):
    for weight in (None, w):
        for smoothing in (0.0, 0.2):
            tx = torch.from_numpy(x).requires_grad_()
            loss = torch.nn.functional.cross_entropy(tx, torch.from_numpy(t), None if weight is None else torch.from_numpy(weight),
                                                     ignore_index=3, reduction=reduction, label_smoothing=smoothing)
            grad = torch.randn(loss.shape)
            loss.backward(grad)
            shape = (6,) if reduction == "none" else ()
            outs = (np.zeros(shape, np.float32), np.zeros((6, 7), np.float32), np.zeros(shape, np.float32),
                    np.zeros(6, np.float32))
            got, log_prob, zloss, lse = aclnn.cross_entropy_loss(x, t, weight, reduction, 3, smoothing, 0.0, False, out=outs)
            case = (reduction, weight is not None, smoothing)
            assert np.allclose(host(got), loss.detach().numpy(), atol=1e-5), case
            assert np.allclose(host(lse), torch.logsumexp(torch.from_numpy(x), 1).numpy(), atol=1e-5), case
            assert not host(zloss).any(), case
            dx = aclnn.cross_entropy_loss_grad(grad.numpy(), host(log_prob), t, weight, None, None, reduction, 3, smoothing,
                                               0.0, out=np.zeros((6, 7), np.float32))
            assert np.allclose(host(dx), tx.grad.numpy(), atol=1e-5), case
refused(lambda: aclnn.cross_entropy_loss(x, t, w, "batchmean", -100, 0.0, 0.0, False,
                                         out=(np.zeros((), np.float32), np.zeros((6, 7), np.float32),
                                              np.zeros((), np.float32), np.zeros(6, np.float32))),
        161002, ["reductionOptional", "batchmean"])
''')


def test_pointwise_losses_broadcast_and_refuse_what_they_do_not_model():
    check(r'''
a = rng.standard_normal((3, 4)).astype(np.float32)
b = rng.standard_normal((4,)).astype(np.float32)
for reduction, name in enumerate(("none", "mean", "sum")):
    want = torch.nn.functional.mse_loss(torch.from_numpy(a), torch.from_numpy(b).expand(3, 4), reduction=name).numpy()
    got = aclnn.mse_loss(a, b, reduction, out=np.zeros(want.shape, np.float32))
    assert np.allclose(host(got), want, atol=1e-5), name
refused(lambda: aclnn.mse_loss(a, a, 3, out=np.zeros((), np.float32)), 161002, ["reduction"])
refused(lambda: aclnn.mse_loss(a, a, 1, out=np.zeros((3, 4), np.float32)), 161002, ["out"])
# A mean of float16 values summed in float: 4096 ones of error 2^-11 each stay exact.
h = np.full(4096, 1.0, np.float16)
got = aclnn.l1_loss(h, np.zeros(4096, np.float16), 1, out=np.zeros((), np.float16))
assert host(got) == 1.0
''')


def test_a_class_out_of_range_faults_naming_the_target():
    check(r'''
log_p = np.log(np.full((2, 3), 1 / 3, np.float32))
refused(lambda: aclnn.nll_loss(log_p, np.array([0, 3]), np.ones(3, np.float32), 1, -100,
                               out=(np.zeros((), np.float32), np.zeros((), np.float32))),
        507015, ["target", "element 1 is 3", "[0, 3)"])
''')
