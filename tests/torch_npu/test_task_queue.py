"""torch_npu's task queue (its default launch mode: no ASCEND_LAUNCH_BLOCKING) on the simulator.

The calling thread describes an aclop operator (aclCreateTensorDesc, ...) and torch_npu's task-queue
thread runs it (aclopCompileAndExecute). A failed call there ends torch_npu's queue for the whole
process: the next operator raises once, and every later one is dropped without an error, its
output never written (on Ascend910, where plain operators go to aclop, `x + 1` came back zeros). The
simulator's refusal of such an operator is therefore held for the calling thread, which gets it,
with the simulator's message, from its next copy to the host, synchronisation or operator; the
queue goes on. These scripts run in processes of their own, without ASCEND_LAUNCH_BLOCKING."""

from __future__ import annotations

import pytest

# npu_get_float_status is the aclop operator NPUGetFloatStatus on every chip (no aclnn API), which
# the aclop bridge refuses by name: the device's overflow register is not kept.
REFUSED = """
    import torch, torch_npu

    STATUS_INPUT = torch.tensor([1.0, -2.0, 3.0, 4.0]).npu()

    def refused():
        # No copy to the device here: that would report a refusal held from before (torch_npu's
        # copy calls aclrtMemcpy on this thread), wherever the queue has got to.
        torch_npu.npu_get_float_status(STATUS_INPUT)

    def said_the_refusal(error):
        text = str(error)
        return ("operator type NPUGetFloatStatus" in text and "not modelled by the simulator's aclop bridge" in text
                and "refused on the thread that ran it" in text)

    def later_operators_compute():
        # aclop by type name on Ascend910 (Add, Mul, Abs) and aclnn (the matmul), copies both ways
        x = torch.tensor([1.0, -2.0, 3.0, 4.0]).npu()
        for _ in range(3):
            assert (x + x).cpu().tolist() == [2.0, -4.0, 6.0, 8.0]
            assert (x * 3 + 1).cpu().tolist() == [4.0, -5.0, 10.0, 13.0]
            assert torch.abs(x).cpu().tolist() == [1.0, 2.0, 3.0, 4.0]
            m = x.reshape(2, 2)
            assert (m @ m).cpu().tolist() == [[-5.0, -10.0], [15.0, 10.0]]
            assert (x.sum() + 1).item() == 7.0
        torch.npu.synchronize()  # the refusal was reported once: nothing is left to report
"""

OBSERVE = {
    "copy": "(torch.ones(2).npu() + 1).cpu()",
    "item": "torch.ones(2).npu().sum().item()",
    "synchronize": "torch.npu.synchronize()",
    "event": "event = torch.npu.Event(); event.record(); event.synchronize()",
}


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend910B"])
@pytest.mark.parametrize("observe", sorted(OBSERVE))
def test_an_aclop_refusal_on_the_task_queue_raises_with_its_message_and_the_queue_goes_on(run_npu, chip, observe):
    output = run_npu(REFUSED + f"""
    import os
    assert "ASCEND_LAUNCH_BLOCKING" not in os.environ
    try:
        refused()
        {OBSERVE[observe]}
    except RuntimeError as error:
        assert said_the_refusal(error), error
    else:
        raise AssertionError("the refused operator raised nothing")
    later_operators_compute()
    print("went on")
    """, env={"ACLNN_SIM_SOC": chip}, fresh=True)
    assert "went on" in output, output


def test_operators_queued_behind_the_refusal_compute(run_npu):
    # The calling thread runs ahead of the queue: what it queued after the refused operator runs,
    # and its values are right once the refusal has been raised.
    run_npu(REFUSED + """
    x = torch.arange(6, dtype=torch.float32).npu()
    added = [torch.full((6,), float(i)).npu() for i in range(20)]
    refused()
    queued = [x + a for a in added]  # no copy to the device, which would report the refusal here
    try:
        torch.npu.synchronize()
    except RuntimeError as error:
        assert said_the_refusal(error), error
    else:
        raise AssertionError("the refused operator raised nothing")
    for i, y in enumerate(queued):
        assert y.cpu().tolist() == [float(v + i) for v in range(6)], (i, y.cpu())
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910"}, fresh=True)


def test_each_refusal_is_raised_once_and_several_are_counted(run_npu):
    run_npu(REFUSED + """
    refused()
    refused()
    try:
        torch.npu.synchronize()
    except RuntimeError as error:
        assert said_the_refusal(error) and "(and 1 later operators were refused there after it)" in str(error), error
    else:
        raise AssertionError("the refused operators raised nothing")
    torch.npu.synchronize()
    refused()
    try:
        torch.ones(1).npu().cpu()
    except RuntimeError as error:
        assert said_the_refusal(error) and "later operators" not in str(error), error
    else:
        raise AssertionError("the second refusal raised nothing")
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910"}, fresh=True)


def test_launched_blocking_the_refusal_is_its_own_calls(run_npu):
    # ASCEND_LAUNCH_BLOCKING=1: the calling thread runs the operator, and the refusal is that call's.
    run_npu(REFUSED + """
    try:
        refused()
    except RuntimeError as error:
        assert "operator type NPUGetFloatStatus" in str(error) and "refused on the thread" not in str(error), error
    else:
        raise AssertionError("the refused operator raised nothing")
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910", "ASCEND_LAUNCH_BLOCKING": "1"}, fresh=True)


@pytest.mark.parametrize("observe", ["synchronize", "stream", "event", "copy"])
def test_a_phase_2_refusal_on_the_task_queue_reaches_the_caller_and_the_queue_goes_on(run_npu, observe):
    # What the simulator does not compute (561003, npu_swiglu_quant's INT4 output) passes phase 1 on
    # the calling thread and fails on the stream, whose synchronisation reports it: torch.npu's
    # synchronisations raise with the simulator's message; so does a copy to the host, whose
    # aclrtMemcpy fails with the fault its stream's synchronisation just reported (torch_npu's
    # copy_between_host_and_device formats a failed synchronisation without aclGetRecentErrMsg, a
    # failed copy with it). Every later copy and synchronisation succeeds: the fault is raised once.
    observe_call = {
        "synchronize": "torch.npu.synchronize()",
        "stream": "torch.npu.current_stream().synchronize()",
        "event": "event = torch.npu.Event(); event.record(); event.synchronize()",
        "copy": "out.cpu()",
    }[observe]
    run_npu(REFUSED + f"""
    x = torch.randn(4, 32).npu()
    try:
        out = torch_npu.npu_swiglu_quant(x, quant_mode=1, dst_type=torch.quint4x2)[0]
        {observe_call}
    except RuntimeError as error:
        assert "561003" in str(error) and "aclnnSwiGluQuantV2 is not simulated for dstType 29" in str(error), error
        if {observe == "copy"}:
            assert "aclrtMemcpy: nothing copied" in str(error), error
    else:
        raise AssertionError("the declined call raised nothing")
    later_operators_compute()
    torch.npu.current_stream().synchronize()
    x.cpu()
    """, fresh=True)


def test_a_refused_backward_operator_raises_before_its_gradient_is_read(run_npu):
    # torch's autograd engine describes an npu device's backward operators on a thread of its own and
    # the main thread reads the gradients: the refusal (LayerNormGrad on Ascend910, whose kernel's own
    # epsilon no page gives) is raised by the backward call or the gradient's copy, never read as a value.
    run_npu(REFUSED + """
    x = torch.randn(2, 3, 4, 5).npu().requires_grad_()
    weight, bias = torch.ones(4, 5).npu().requires_grad_(), torch.zeros(4, 5).npu().requires_grad_()
    try:
        torch.nn.functional.layer_norm(x, (4, 5), weight, bias).sum().backward()
        x.grad.cpu()
    except RuntimeError as error:
        assert "LayerNormGrad" in str(error) and "refused on the thread that ran it" in str(error), error
    else:
        raise AssertionError("the refused backward operator raised nothing")
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910"}, fresh=True)


@pytest.mark.parametrize("blocking", [False, True])
def test_a_1d_layer_norm_kept_in_nc1hwc0_is_refused_naming_gamma(run_npu, blocking):
    # torch_npu sends a 1-D x kept in NC1HWC0 (the Atlas A2 with allow_internal_format) to the aclop
    # LayerNorm with 0-d gamma and beta, whose broadcast no page states: refused naming them, as the
    # operator's call (an aclnnLayerNorm "weightOptional" named nothing the user passed). Launched
    # blocking, the call raises it. On the task queue torch_npu's own host code fails first, after
    # queueing the operator (it views the 7-element mean as [1], on a device too), and the refusal
    # is the next synchronisation's; later operators compute.
    run_npu(REFUSED + f"""
    import numpy as np
    import torch.nn.functional as F
    from torch_npu.testing.common_utils import create_common_tensor
    torch.npu.config.allow_internal_format = True
    _, x = create_common_tensor([np.float16, 3, (7,)], -3, 3)
    assert torch_npu.get_npu_format(x) == 3
    GAMMA = "LayerNorm): gamma [] is not x's dimensions from begin_params_axis [7]"
    try:
        F.layer_norm(x, (7,)).cpu()
    except RuntimeError as error:
        first = str(error)
    else:
        raise AssertionError("the refused operator raised nothing")
    if {blocking}:
        assert GAMMA in first, first
    else:
        assert "shape '[1]' is invalid for input of size 7" in first, first
        try:
            torch.npu.synchronize()
        except RuntimeError as error:
            assert GAMMA in str(error) and "refused on the thread that ran it" in str(error), error
        else:
            raise AssertionError("the refusal was not raised")
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910B", **({"ASCEND_LAUNCH_BLOCKING": "1"} if blocking else {})}, fresh=True)


@pytest.mark.parametrize("blocking", [False, True])
def test_a_refused_operator_without_tensors_is_held_and_the_queue_goes_on(run_npu, blocking):
    # npu_clear_float_status is the aclop NPUClearFloatStatusV2 with no tensors and no attributes: no
    # description tells which thread asked for it. Failed on torch_npu's queue thread, it dropped every
    # later operator of the process (custom_ops_sweep --task-queue on Ascend910B: 161 WRONG after it).
    # Its refusal is held and raised by the next synchronisation, whichever thread ran it.
    run_npu(REFUSED + f"""
    x = torch.tensor([1.0, -2.0, 3.0, 4.0]).npu()
    try:
        torch_npu.npu_clear_float_status(x)
        torch.npu.synchronize()
    except RuntimeError as error:
        assert "operator type NPUClearFloatStatusV2 is not modelled" in str(error), error
    else:
        raise AssertionError("the refused operator raised nothing")
    later_operators_compute()
    """, env={"ACLNN_SIM_SOC": "Ascend910B", **({"ASCEND_LAUNCH_BLOCKING": "1"} if blocking else {})}, fresh=True)
