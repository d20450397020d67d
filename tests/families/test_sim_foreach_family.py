"""What the generated suites' one valid call per API leaves out of the foreach, optim and amp
families: lists of one member and of members of different shapes with an empty one, lists of
unequal lengths (refused), the n-element `scalars` tensor of the ScalarList addcmul, an in-place
call (out= the input list), SGD without momentum buffers, a non-finite gradient and a scale whose
growth overflows. Each against PyTorch, on the simulator.

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

RNG = np.random.default_rng(0)
# Members of different shapes, one of them empty (the pages of these APIs allow empty tensors).
XS = [RNG.uniform(-2, 2, s).astype(np.float32) for s in ((3, 4), (5,), (0, 3), (2, 1, 3))]
YS = [RNG.uniform(0.5, 2, x.shape).astype(np.float32) for x in XS]

CALLS = r'''
XS, YS = ([np.array(m, np.float32).reshape(s) for m, s in zip(*lists)] for lists in json.loads(sys.stdin.read()))
out = {}

def plain(result):
    return [plain(r) for r in result] if isinstance(result, (list, tuple)) else np.asarray(result).tolist()

def record(name, call):
    try:
        out[name] = plain(call())
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

record("add scalar list one member", lambda: aclnn.foreach_add_scalar_list(XS[:1], [2.5]))
record("add scalar list", lambda: aclnn.foreach_add_scalar_list(XS, [2.5, -1.0, 3.0, 0.5]))
record("add scalar list short", lambda: aclnn.foreach_add_scalar_list(XS, [2.5, -1.0]))
record("mul list lengths", lambda: aclnn.foreach_mul_list(XS, YS[:3], out=[np.empty_like(x) for x in XS]))
record("zero a null member", lambda: aclnn.foreach_zero_inplace([XS[0].copy(), None]))
record("mul by a complex scalar", lambda: aclnn.foreach_mul_scalar_list(XS[:2], [-0.37, 3 + 4j]))
record("addcmul scalars", lambda: aclnn.foreach_addcmul_scalar_list(XS, YS, YS, np.array([1.0, -2.0, 3.0, 0.5], np.float32)))
# Counted by elements, whatever the shape (aclnnForeachAddcdivList's example passes [1, 2] for two members),
# read in row-major order: a transposed [2, 2] view gives its elements in the view's order.
record("addcmul scalars [2, 2]", lambda: aclnn.foreach_addcmul_scalar_list(
    XS, YS, YS, np.array([[1.0, 3.0], [-2.0, 0.5]], np.float32).T))
record("addcmul scalars of 3", lambda: aclnn.foreach_addcmul_scalar_list(XS, YS, YS, np.ones(3, np.float32)))
inplace = [x.copy() for x in XS]
record("lerp in place", lambda: aclnn.foreach_lerp_scalar(inplace, YS, 0.25, out=inplace))
out["lerp in place given"] = [m.tolist() for m in inplace]
# The optimizer and loss-scaling pages refuse empty members: the lists without XS[2].
params, grads = [x.copy() for x in XS[:2] + XS[3:]], [y.copy() for y in YS[:2] + YS[3:]]
record("sgd no momentum", lambda: aclnn.fused_sgd(params, grads, [], None, 0.1, 0.0, 0.5, 0.0, False, True, False))
out["sgd no momentum params"] = [p.tolist() for p in params]
scaled = [y.copy() for y in YS[:2] + YS[3:]]
scaled[1][2] = np.inf
found = np.zeros(1, np.float32)
record("unscale", lambda: aclnn.foreach_non_finite_check_and_unscale(scaled, found, np.array([0.25], np.float32)))
out["unscale grads"], out["unscale found"] = [g.tolist() for g in scaled], found.tolist()
record("update overflow", lambda: aclnn.amp_update_scale(np.array([3e38], np.float32), np.array([1], np.int32),
                                                        np.zeros(1, np.float32), 2.0, 0.5, 2))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS, json.dumps([[[m.ravel().tolist() for m in lst], [m.shape for m in lst]] for lst in (XS, YS)]))


def _tensors(arrays) -> list[torch.Tensor]:
    return [torch.from_numpy(np.array(a, np.float32)) for a in arrays]


def _assert_members(got, want: list[torch.Tensor]) -> None:
    assert not isinstance(got, dict), got
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(torch.tensor(g, dtype=torch.float32).reshape(w.shape), w, rtol=1e-6, atol=1e-6)


def test_lists_of_one_and_of_several_shapes_with_an_empty_member(results):
    _assert_members(results["add scalar list one member"], torch._foreach_add(_tensors(XS[:1]), [2.5]))
    _assert_members(results["add scalar list"], torch._foreach_add(_tensors(XS), [2.5, -1.0, 3.0, 0.5]))


@pytest.mark.parametrize("name", ["add scalar list short", "mul list lengths"])
def test_lists_of_unequal_lengths_are_refused(results, name):
    assert results[name]["status"] == 161002, results[name]


def test_a_null_member_is_refused_in_phase_1_not_faulted_in_phase_2(results):
    # Found by the robustness campaign (FUZZ_SEED=7): the kernel's fault surfaced at a later call.
    # 161002, as the foreach pages that state a status for it say ("x中存在空指针Tensor").
    assert results["zero a null member"]["status"] == 161002, results["zero a null member"]


def test_a_complex_scalar_of_a_list_is_refused_not_read_as_a_real_one(results):
    # Found by the robustness campaign: the member's real kernel had no loader for the complex
    # scalar and the stream worker called a null function (a segfault of the whole process).
    assert results["mul by a complex scalar"]["status"] == 561003, results["mul by a complex scalar"]
    assert "complex arithmetic" in results["mul by a complex scalar"]["message"]


def test_scalars_tensor_gives_member_i_its_element_i(results):
    xs, ys = _tensors(XS), _tensors(YS)
    _assert_members(results["addcmul scalars"], torch._foreach_addcmul(xs, ys, ys, [1.0, -2.0, 3.0, 0.5]))
    _assert_members(results["addcmul scalars [2, 2]"], torch._foreach_addcmul(xs, ys, ys, [1.0, -2.0, 3.0, 0.5]))
    assert results["addcmul scalars of 3"]["status"] == 161002, results["addcmul scalars of 3"]
    assert "holds 3 elements, neither one" in results["addcmul scalars of 3"]["message"]


def test_in_place_call_writes_the_list_given(results):
    want = torch._foreach_lerp(_tensors(XS), _tensors(YS), 0.25)
    _assert_members(results["lerp in place"], want)
    _assert_members(results["lerp in place given"], want)


def test_sgd_without_momentum_buffers_steps_on_the_gradient(results):
    params = _tensors(XS[:2] + XS[3:])
    torch._fused_sgd_(params, _tensors(YS[:2] + YS[3:]), [], weight_decay=0.1, momentum=0.0, lr=0.5, dampening=0.0,
                      nesterov=False, maximize=True, is_first_step=False)
    _assert_members(results["sgd no momentum params"], params)


def test_a_non_finite_gradient_sets_found_inf_and_every_gradient_is_unscaled(results):
    grads = _tensors(YS[:2] + YS[3:])
    grads[1][2] = float("inf")
    found = torch.zeros(1)
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found, torch.tensor([0.25]))
    _assert_members(results["unscale grads"], grads)
    assert results["unscale found"] == [1.0]


def test_a_growth_that_overflows_keeps_the_scale_and_resets_the_tracker(results):
    scale, tracker = torch.tensor([3e38]), torch.tensor([1], dtype=torch.int32)
    torch._amp_update_scale_(scale, tracker, torch.zeros(1), 2.0, 0.5, 2)
    got_scale, got_tracker = results["update overflow"]
    assert got_scale == scale.tolist() and got_tracker == tracker.tolist()
