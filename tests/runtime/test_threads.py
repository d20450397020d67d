"""8 Python threads calling every seed op at once (the GIL is released inside the calls) get the
golden reference's results, the right errors for their bad calls, and leave nothing alive."""

from __future__ import annotations

import functools
import gc
import threading

import numpy as np
import torch

from tests.runtime.concurrency import run_in_threads
from tests.support.golden_namespace import golden_names

THREADS = 8
ROUNDS = 60


@functools.lru_cache(maxsize=1)
def _goldens() -> dict[str, str]:
    from gen import pipeline

    # The semantics library, every table of it (the APIs of any docs tree the package was made from).
    # A random op's golden is a draw of PyTorch's generator, compared by law, not by value.
    return {op.api: op.golden for op in pipeline.semantics(()).ops if op.golden and not op.law}


def _cases(aclnn, seed: int) -> list[tuple]:
    """(function, arguments, expected, a bad call's arguments or None) for every op with a golden
    that computes these arguments, on this thread's data."""
    goldens = _goldens()
    rng = np.random.default_rng(seed)
    cases = []
    for api in aclnn.apis():
        golden = goldens.get(api["name"])
        if not golden or not hasattr(aclnn, api["python_name"]):
            continue
        shape = (int(rng.integers(1, 9)), int(rng.integers(1, 40)))
        dtype_of = {p["name"]: torch.float32 for p in api["params"] if p["kind"] == "tensor"}
        args, env = [], golden_names(dtype_of)
        for p in api["params"]:
            if p["direction"] == "out":
                continue
            if p["kind"] == "tensor":
                value = rng.standard_normal(shape).astype(np.float32)
                env[p["name"]] = torch.from_numpy(value.copy())
            elif p["kind"] == "scalar":
                value = float(rng.uniform(0.1, 2))
                env[p["name"]] = value
            elif p["kind"] == "bool":
                value = False
                env[p["name"]] = value
            else:
                break  # a kind the golden takes otherwise: not this test's concern
            args.append(value)
        else:
            try:
                expected = eval(golden, env)  # noqa: S307
            except (RuntimeError, IndexError, ValueError, TypeError):  # an op of other arguments than
                # these 2-D floats (aclnnDot's vectors, a 2-d pool's [N, C, H, W], aclnnCumprod's
                # integer dim: torch says so with any of these)
                continue
            if not isinstance(expected, torch.Tensor):  # one result (aclnnAminmaxAll's two are not this test's)
                continue
            fn = getattr(aclnn, api["python_name"])
            try:
                fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            except (TypeError, aclnn.AclnnError):  # an output only out= can give (isin's), or
                continue  # arguments the page refuses (an integer index): not these calls
            # A bad call to make between good ones: tensors that cannot broadcast, where PyTorch
            # refuses them too (torch.equal answers False instead) and the op has two to mismatch.
            bad = [np.ones((3, 3), np.float32) if isinstance(a, np.ndarray) else a for a in args]
            bad[0] = np.ones((2, 5), np.float32)
            bad_env = {**env, **{p["name"]: torch.from_numpy(b) for p, b in zip(
                [p for p in api["params"] if p["direction"] != "out"], bad) if isinstance(b, np.ndarray)}}
            try:
                eval(golden, bad_env)  # noqa: S307
                refused = False
            except (RuntimeError, IndexError, ValueError, TypeError):
                refused = sum(isinstance(a, np.ndarray) for a in args) >= 2
            cases.append((fn, args, expected.numpy(), bad if refused else None))
    return cases


def _live(aclnn) -> dict[str, int]:
    sim, bindings = aclnn.sim_stats(), aclnn._C._stats()
    return {"simulator objects": sim["live_objects"], "binding objects": bindings["live_objects"],
            "binding buffers": bindings["live_buffers"]}


def test_eight_threads_compute_every_op_right_and_release_everything(aclnn):
    per_thread = [_cases(aclnn, seed) for seed in range(THREADS)]
    assert all(per_thread), "no seed op with a golden reference"
    gc.collect()
    aclnn.empty_cache()
    device_before = aclnn.sim_stats()
    # Counted from here: the simulator is the process's, and another test of this worker may
    # have left objects of its own (a failed one does); its own assertions report those.
    objects_before = _live(aclnn)
    failures: list[str] = []
    barrier = threading.Barrier(THREADS)

    def work(seed: int) -> None:
        rng = np.random.default_rng(100 + seed)
        barrier.wait()
        for _ in range(ROUNDS):
            fn, args, expected, bad = per_thread[seed][int(rng.integers(len(per_thread[seed])))]
            on_device = rng.random() < 0.5
            # Copies: an in-place op (inplace_pow_tensor_tensor) writes into its host array.
            call_args = [(aclnn.to_device(a) if on_device else a.copy()) if isinstance(a, np.ndarray) else a
                         for a in args]
            try:
                result = fn(*call_args)
                got = result.numpy() if on_device else result
                if not np.allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True):  # pow of a
                    # negative base is NaN on both sides
                    failures.append(f"thread {seed}: {fn.__name__} differs from the golden")
                # A bad call between good ones: its error is this thread's, not a neighbour's.
                if bad is None:
                    continue
                try:
                    fn(*bad)
                    failures.append(f"thread {seed}: {fn.__name__} accepted mismatched shapes")
                except aclnn.AclnnError as exc:
                    if exc.status != 161002 or exc.phase != "GetWorkspaceSize":
                        failures.append(f"thread {seed}: {fn.__name__}: wrong error {exc!r}")
            except Exception as exc:  # noqa: BLE001 - reported with the thread
                failures.append(f"thread {seed}: {fn.__name__} raised {type(exc).__name__}: {exc}")

    run_in_threads(work, THREADS)
    assert failures == []
    gc.collect()
    aclnn.empty_cache()
    sim = aclnn.sim_stats()
    assert _live(aclnn) == objects_before
    assert sim["device_allocations"] == device_before["device_allocations"], (device_before, sim)
