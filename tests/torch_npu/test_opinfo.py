"""PyTorch's own per-op samples through torch_npu on the simulator: every operator of PyTorch's OpInfo
database (torch.testing._internal, what PyTorch's test_ops and the frameworks' per-op suites are
built on), its first sample in float32, then in float16, int64 and backward (the gradients of the sum of
its outputs), run on the CPU and on npu and compared. An operator may refuse on npu (an exception
naming the aclnn API and its status: what the simulator does not model, or what the page
refuses); it may not answer another value without one, the worst outcome. The operators whose
results cannot be compared are listed with the reason. tests/torch_npu/opinfo_sweep.py (by hand)
runs every sample in every dtype."""

import json
import textwrap
from pathlib import Path

# The comparison of a result with the CPU's (shared with opinfo_sweep.py), run in torch_npu's process.
COMPARE = Path(__file__).with_name("opinfo_compare.py").read_text()

# name or "name.variant" -> why its values cannot be compared with the CPU's.
NOT_COMPARABLE = {
    **dict.fromkeys(["bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial", "normal",
                     "normal.in_place", "normal.number_mean", "uniform", "rand_like", "randn_like", "randint_like", "nn.functional.rrelu",
                     "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
                     "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train",
                     "native_dropout_backward", "nn.functional.fractional_max_pool2d",
                     "nn.functional.fractional_max_pool3d", "nn.functional.scaled_dot_product_attention",
                     "nn.functional.multi_head_attention_forward"],
                    "a draw of a random generator (or a dropout mask): the simulator's Philox is not PyTorch's "
                    "CPU generator; tests/torch_npu/test_random.py checks their laws"),
    **dict.fromkeys(["empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"],
                    "uninitialised memory"),
    "clamp": "its pages' formula, max(min(x, max), min), gives min where min > max; torch.clamp gives max "
             "(semantics/clamp.toml): the page wins",
    "as_strided.partial_views": "a view of a larger storage: .to('npu') copies the view alone, so storage "
                                "offsets point elsewhere",
    **dict.fromkeys(["double", "float_power"], "torch_npu has no float64: it computes in float32 by design"),
    **dict.fromkeys(["nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d",
                     "nn.functional.adaptive_max_pool3d", "native_batch_norm", "_native_batch_norm_legit"],
                    "op-plugin's convention for the extra outputs (max pooling's indices as the device's mask or "
                    "INT32, batch norm's saved statistics in eval mode): torch_npu's, not the simulator's"),
}


# torch_npu runs operators on its task queue's thread unless told otherwise: a refusal there is raised
# by a later copy, synchronisation or operator (the simulator holds an aclop refusal for the caller,
# rather than end torch_npu's queue: tests/torch_npu/test_task_queue.py). Launched synchronously, each
# refusal is an exception of its own call, which names the sample that caused it.
SYNCHRONOUS = {"ASCEND_LAUNCH_BLOCKING": "1"}


# The script of passes over op_db: "float32", "float16" and "int64" compare the outputs (float16
# with the CPU's float16 result or its float32 result cast, as a device computing in float may round
# either way), "backward" the float32 gradients of the sum of the floating and complex outputs (a
# complex one's real and imaginary parts: the fft operators') w.r.t. every floating input (opinfo_compare.differs says what torch_npu's own conventions leave out).
PASS = """
    import json, signal
    from torch.testing._internal.common_methods_invocations import op_db

    NOT_COMPARABLE = set(json.loads(%(not_comparable)r))

    def run(op, sample, device, dtype=None):
        args = to([sample.input, *sample.args, sample.kwargs], device, dtype, grad=MODE == "backward")
        got = op(args[0], *args[1:-1], **args[-1])
        if MODE == "backward":
            leaves = [t for t in floating(args) if t.requires_grad]
            outputs = [t for t in differentiable(got) if t.requires_grad]
            if not leaves or not outputs:
                return None
            got = torch.autograd.grad(real_sum(outputs), leaves, allow_unused=True)
        if device == "npu":
            torch.npu.synchronize()  # a non_blocking copy to the CPU is read after it
        return to(got, "cpu")

    def timeout(*_):
        raise TimeoutError("no result in 60 s")

    signal.signal(signal.SIGALRM, timeout)
    failures = []
    for MODE, SAMPLES, FLOOR in %(passes)r:
        DTYPE = {"float16": torch.float16, "int64": torch.int64}.get(MODE, torch.float32)
        TOLERANCE = 1e-2 if MODE == "float16" else 1e-3
        wrong, compared, refused = [], set(), set()
        for op in op_db:
            name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
            if (name in NOT_COMPARABLE or DTYPE not in op.supported_dtypes("cpu")
                    or (MODE == "backward" and not op.supports_autograd)):
                continue
            signal.alarm(60)
            try:
                for sample in samples(op, DTYPE, SAMPLES, requires_grad=MODE == "backward"):
                    try:
                        want = run(op, sample, "cpu")
                        want32 = run(op, sample, "cpu", torch.float32) if MODE == "float16" else None
                    except Exception:
                        continue  # not a valid call on the CPU either
                    if want is None:
                        continue  # nothing differentiable
                    try:
                        got = run(op, sample, "npu")
                    except Exception:
                        refused.add(name)
                        continue
                    ties = op.name in TIES
                    difference = differs(want, got, TOLERANCE, ties)
                    if difference and want32 is not None and not differs(want32, got, TOLERANCE, ties, DTYPE):
                        difference = None
                    if difference:
                        wrong.append(f"{name}: {difference}")
                    else:
                        compared.add(name)
            finally:
                signal.alarm(0)
        print(f"{MODE}: {len(compared)} operators equal the CPU, {len(refused - compared)} only refuse")
        failures += [f"{MODE} {w}" for w in wrong]
        # Most of PyTorch's operators reach computing aclnn APIs: a floor against a simulator that
        # refuses everything (it passes the assertion on values).
        if len(compared) < FLOOR:
            failures.append(f"{MODE}: {len(compared)} operators equal the CPU, fewer than {FLOOR}")
    assert not failures, "values differ without an error, or too few equal:\\n" + "\\n".join(failures)
"""


def run_passes(run_npu, passes: list[tuple[str, int, int]]) -> None:
    """Each pass (mode, samples per operator, floor of operators equal) in one process."""
    script = COMPARE + textwrap.dedent(PASS % {"not_comparable": json.dumps(sorted(NOT_COMPARABLE)), "passes": passes})
    print(run_npu(script, env=SYNCHRONOUS, timeout=900))


def test_every_opinfo_operator_equals_the_cpu_or_refuses(run_npu):
    # One sample per operator, as the other passes (two took twice the time of make test's longest
    # test; the sweep by hand runs every sample). 614 operators equal at the time of writing.
    run_passes(run_npu, [("float32", 1, 600)])


def test_float16_and_int64_equal_the_cpu_or_refuse(run_npu):
    # What a framework's per-op suite runs beside float32: float16 and integers. One sample each keeps
    # the passes short. 483 and 415 operators equal at the time of writing.
    run_passes(run_npu, [("float16", 1, 470), ("int64", 1, 400)])


def test_backward_equals_the_cpu_or_refuses(run_npu):
    # Gradients through autograd, one sample each, in a process of its own so that the two workers of
    # make test share the passes. 502 operators equal at the time of writing (the fft operators among them).
    run_passes(run_npu, [("backward", 1, 450)])
