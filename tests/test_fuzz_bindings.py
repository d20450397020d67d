"""Binding fuzzing: random calls of every bound API either raise a Python exception of aclnn's
contract or return the right result; they never crash the process, and they leave nothing alive.

The campaign runs in a subprocess (`python -m tests.test_fuzz_bindings`), so that a segfault or
an abort is a test failure naming the call that caused it (each call is written to a log file
before it is made) instead of the death of pytest. It calls every API that `aclnn.apis()` lists
with arguments drawn per parameter kind from valid values and from bad ones: None, wrong types,
wrong dtypes, rank 9, mismatched and negative-stride shapes, huge stride-0 views (terabytes that
must fail cleanly, not be allocated), NaN/Inf scalars, integers out of range, out= arrays of the
wrong shape or dtype, read-only, Fortran-ordered, 0-size, and device tensors (aclnn.to_device).

Acceptable outcomes: TypeError, ValueError, OverflowError, aclnn.AclnnError (any subclass),
MemoryError (NumPy refusing to allocate a terabyte output), or a
result; a result of float inputs is compared with the op's golden reference (the `golden` of
the semantics library semantics/*.toml, in PyTorch) whenever PyTorch computes one for the same arguments. Any other
exception (RuntimeError, SystemError, IndexError...) is a bug, and so is a result that differs
from the golden. After the campaign, the bindings' and the simulator's live objects must be 0,
and the simulator's peak device memory must stay under 1 GiB (nothing huge was allocated).

By default the package is the one tests/bindings_build.py builds (the seed pages plus probe APIs
with every parameter kind); ACLNN_FUZZ_PACKAGE_DIR names another (tests/asan.py passes the
sanitized build). FUZZ_BUDGET=long (make fuzz) calls many more times.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONG = os.environ.get("FUZZ_BUDGET", "short") == "long"
CASES = int(os.environ.get("FUZZ_CASES", 60000 if LONG else 3000))
PEAK_DEVICE_LIMIT = 1 << 30


# --- the campaign (in the subprocess) ------------------------------------------------------------

def _campaign(cases: int, seed: int, log_path: Path) -> dict:
    import ml_dtypes
    import numpy as np

    import aclnn

    rng = random.Random(seed)
    # MemoryError: NumPy refusing a host array of terabytes (an output of a huge stride-0 input);
    # nothing is allocated, and peak_device_bytes below checks the device side.
    accepted = (TypeError, ValueError, OverflowError, MemoryError, aclnn.AclnnError)
    goldens = _goldens()
    apis = [a for a in aclnn.apis() if hasattr(aclnn, a["python_name"])]
    floats = (np.float32, np.float64, np.float16)
    odd_dtypes = (np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_, np.complex64, np.float16,
                  ml_dtypes.bfloat16, np.float64, np.int16, object, "U3", "V4", np.dtype([("a", "i4")]))
    weird = (None, "x", b"\x00", 3 + 4j, object(), [1, [2, 3]], {"a": 1}, np.float32, slice(1), Ellipsis,
             float("nan"), 2**200, -1, [], (), [[[]]], np.ma.masked_array([1.0], mask=[True]),
             np.array([1.0, 2.0], dtype=object), np.array("abc"), memoryview(b"abcd"), bytearray(4))

    def base_shape():
        return tuple(rng.randint(1, 5) for _ in range(rng.randint(0, 4)))

    def array(shape, dtype=np.float32):
        data = np.random.default_rng(rng.randrange(2**32)).standard_normal(shape or ())
        return np.asarray(data).astype(dtype)

    def tensor_arg(shape, out=False):
        r = rng.random()
        if r < 0.45:
            return array(shape, rng.choice(floats))
        choice = rng.randrange(17)
        if choice == 0:
            return rng.choice(weird)
        if choice == 1:
            return array(shape, rng.choice(odd_dtypes)) if rng.random() < 0.8 else np.zeros(shape, object)
        if choice == 2:
            return array((1,) * 9)  # rank 9
        if choice == 3:
            return array(tuple(s + rng.randint(1, 3) for s in shape) or (2,))  # mismatched
        if choice == 4:
            big = array(tuple(s * 2 for s in shape) or (2,))
            return big[tuple(slice(None, None, -2) for _ in shape)]  # negative strides
        if choice == 5:
            # Terabytes behind stride 0: must be refused or handled without allocating them.
            return np.broadcast_to(np.float32(1.0), rng.choice(((1 << 38,), (1 << 20, 1 << 20), (1 << 58,),
                                                               (2, 1 << 40), (4096,) * 4)))
        if choice == 6:
            return np.asfortranarray(array(shape + (3, 2)))
        if choice == 7:
            return array((0,) + shape)  # 0-size
        if choice == 8:
            a = array(shape)
            a.flags.writeable = False
            return a
        if choice == 9:
            return aclnn.to_device(array(shape, rng.choice(floats)))
        if choice == 10:
            return array(shape).tolist()
        if choice == 11:
            return rng.choice((float("nan"), float("inf"), -0.0, 3, True))
        if choice == 12:
            a = array(shape + (2,))
            return a[..., 0]  # a strided view
        if choice == 13:
            return np.lib.stride_tricks.as_strided(array((4,)), shape=(3, 3), strides=(4, 0))  # overlapping
        if choice == 14:
            return aclnn.to_device(array(shape + (3,)).swapaxes(0, -1)) if shape else aclnn.to_device(array(()))
        if choice == 15:
            return array(shape, np.float32)[None, ...] if len(shape) < 8 else array(shape)
        return array(shape + (1,) * rng.randint(0, 6))

    def scalar_arg():
        if rng.random() < 0.5:
            return rng.uniform(-2, 2)
        return rng.choice((float("nan"), float("inf"), -float("inf"), 0, -3, 2**63, -(2**63) - 1, 2**200, True,
                           np.float16(65504), np.float64(1e308), np.int8(-128), np.uint64(2**64 - 1), 1e-320,
                           3 + 4j, None, "1.5", np.array(2.0), np.array([1.0, 2.0]), ml_dtypes.bfloat16(1.5),
                           np.datetime64("2020-01-01"), [], object()))

    def int_arg():
        return rng.choice((0, 1, -1, 7, 2**31 - 1, -(2**31), 2**31, 2**63 - 1, -(2**63), 2**63, 2**64, -(2**70),
                           1.5, True, None, "3", np.int64(5), np.uint64(2**64 - 1), np.float32(2), [1]))

    def float_arg():
        return rng.choice((0.5, -1.0, float("nan"), float("inf"), -float("inf"), 1e308, 2**1100, 5, True, None,
                           "0.1", np.float16(1), 1j))

    def list_arg(element, valid):
        if rng.random() < 0.6:
            return [valid() for _ in range(rng.randint(0, 4))]
        return rng.choice((None, [], [None], "abc", 5, [[1, 2]], (element for element in range(3)),
                           np.arange(rng.randint(0, 5)), np.ones((2, 2)), [2**64], [float("nan")], [1] * 10000,
                           np.array([1.5, 2.5]), [object()], {1, 2}))

    def value(param, shape):
        kind = param["kind"]
        if kind == "tensor":
            return tensor_arg(shape)
        if kind == "scalar":
            return scalar_arg()
        if kind == "bool":
            return rng.choice((True, False)) if rng.random() < 0.7 else rng.choice((None, 2, "yes", np.bool_(1), 1.0))
        if kind == "int":
            return int_arg()
        if kind == "float":
            return float_arg() if rng.random() < 0.6 else rng.uniform(-1, 1)
        if kind == "int_array":
            return list_arg(int, lambda: rng.choice((0, 1, -1, 3, 2**40)))
        if kind == "float_array":
            return list_arg(float, lambda: rng.uniform(-1, 1))
        if kind == "bool_array":
            return list_arg(bool, lambda: rng.random() < 0.5)
        if kind == "tensor_list":
            return list_arg(object, lambda: tensor_arg(shape))
        if kind == "scalar_list":
            return list_arg(float, scalar_arg)
        if kind == "string":
            return rng.choice(("m", "", "bilinear", "\x00x", "é" * 3, "x" * 100000, None, b"m", 3))
        if kind == "dtype":
            return rng.choice((np.float16, np.float32, "FLOAT", "BFLOAT16", "bogus", 999, -1, None, ml_dtypes.bfloat16,
                               np.dtype("U3"), object, 2**70))
        return rng.choice(weird)

    def out_arg(param, shape, expected_dtype):
        choice = rng.randrange(10)
        if choice == 0:
            return np.empty(shape, expected_dtype)
        if choice == 1:
            return np.empty(tuple(s + 1 for s in shape) or (3,), expected_dtype)  # wrong shape
        if choice == 2:
            return np.empty(shape, rng.choice(odd_dtypes))  # wrong dtype
        if choice == 3:
            a = np.empty(shape, expected_dtype)
            a.flags.writeable = False
            return a
        if choice == 4:
            return np.asfortranarray(np.empty(shape + (2,), expected_dtype))[..., 0]
        if choice == 5:
            return np.empty((0,) + shape, expected_dtype)
        if choice == 6:
            return np.empty(tuple(s * 2 for s in shape), expected_dtype)[tuple(slice(None, None, -2) for _ in shape)]
        if choice == 7:
            return aclnn.to_device(np.empty(shape, expected_dtype))
        if choice == 8:
            return np.broadcast_to(np.empty((), expected_dtype), shape)  # read-only, overlapping
        return rng.choice(weird)

    def describe(v) -> str:
        if isinstance(v, np.ndarray):
            return (f"ndarray(shape={v.shape}, dtype={v.dtype}, strides={v.strides}, "
                    f"writeable={v.flags.writeable}, c={v.flags.c_contiguous}, f={v.flags.f_contiguous})")
        if isinstance(v, aclnn.Tensor):
            return f"aclnn.Tensor(shape={tuple(v.shape)}, dtype={v.dtype})"
        text = repr(v)
        return text if len(text) < 120 else text[:117] + "..."

    outcomes: collections.Counter = collections.Counter()
    bugs: list[str] = []
    compared = 0
    log = open(log_path, "w", buffering=1)
    start = time.perf_counter()

    def one_case(case: int) -> None:
        nonlocal compared
        api = rng.choice(apis)
        fn = getattr(aclnn, api["python_name"])
        shape = base_shape()
        ins = [p for p in api["params"] if p["direction"] in ("in", "inout")]
        outs = [p for p in api["params"] if p["direction"] == "out"]
        args = [value(p, shape) for p in ins]
        if rng.random() < 0.05 and args:
            args.pop(rng.randrange(len(args)))  # too few
        elif rng.random() < 0.03:
            args.append(rng.choice(weird))  # too many
        kwargs = {}
        if outs and rng.random() < 0.4:
            dtype = next((a.dtype for a in args if isinstance(a, np.ndarray) and a.dtype in map(np.dtype, floats)),
                         np.dtype(np.float32))
            made = [out_arg(p, shape, dtype) for p in outs]
            if len(outs) == 1 and rng.random() < 0.8:
                kwargs["out"] = made[0]
            else:
                kwargs["out"] = tuple(made) if rng.random() < 0.7 else list(made)[: rng.randint(0, len(made))]
        call = f"aclnn.{api['python_name']}({', '.join(map(describe, args))}" + \
            (f", out={describe(kwargs['out'])})" if "out" in kwargs else ")")
        log.write(f"{case}: {call}\n")
        # The inputs as they were: an in-place API (selfRef) writes its result into one of them.
        # Huge (stride-0) views are not copied: the golden does not judge those calls (None).
        before = [a.numpy() if isinstance(a, aclnn.Tensor) else
                  (a.copy() if a.size <= 1 << 20 else None) if isinstance(a, np.ndarray) else a
                  for a in args]
        try:
            result = fn(*args, **kwargs)
        except accepted as exc:
            outcomes[type(exc).__name__] += 1
            return
        except Exception as exc:  # noqa: BLE001 - outside the contract: a bug
            outcomes["BUG " + type(exc).__name__] += 1
            bugs.append(f"{call} raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
            return
        outcomes["result"] += 1
        golden = goldens.get(api["name"])
        if golden and "out" not in kwargs:
            verdict = _compare(golden, api, ins, before, result, aclnn)
            if verdict is True:
                compared += 1
            elif verdict:
                bugs.append(f"{call}: {verdict}")

    for case in range(cases):
        one_case(case)
    elapsed = time.perf_counter() - start
    import gc

    gc.collect()
    stats, sim = aclnn._C._stats(), aclnn.sim_stats()
    if stats["live_objects"] or stats["live_buffers"]:
        bugs.append(f"bindings left objects alive after the campaign: {stats}")
    if sim.get("live_objects"):
        bugs.append(f"the simulator holds live objects after the campaign: {sim}")
    if sim.get("peak_device_bytes", 0) > PEAK_DEVICE_LIMIT:
        bugs.append(f"a call allocated {sim['peak_device_bytes']} bytes of device memory (over 1 GiB)")
    log.close()
    return {"cases": cases, "seconds": round(elapsed, 2), "apis": sorted(a["python_name"] for a in apis),
            "outcomes": dict(outcomes), "golden_compared": compared, "bugs": bugs[:30], "bug_count": len(bugs),
            "sim_stats": sim, "binding_stats": stats}


def _goldens() -> dict[str, str]:
    from gen import pipeline

    # The semantics library, every table of it (the APIs of any docs tree the package was made from).
    return {op.api: op.golden for op in pipeline.semantics(()).ops if op.golden}


def _compare(golden: str, api: dict, ins: list, args: list, result, aclnn):
    """True when the result matches PyTorch's; a message when it does not; None when the golden
    cannot judge (a value PyTorch refuses, or a dtype its kernel does not compute)."""
    import numpy as np
    import torch

    if len(args) != len(ins):
        return None
    env = {"torch": torch}
    for p, a in zip(ins, args):
        if isinstance(a, aclnn.Tensor):
            a = a.numpy()
        if p["kind"] == "tensor":
            if not isinstance(a, np.ndarray) or a.dtype not in (np.float32, np.float64):
                return None
            env[p["name"]] = torch.from_numpy(a.copy())  # computed in the dtype the op computes in
        elif isinstance(a, float) and p["kind"] == "scalar" and "DOUBLE" not in p["dtypes"]:
            # A Python float becomes the widest float the page documents for the aclScalar
            # (gen.api.python.scalar_preference): FLOAT here, so the library sees it rounded.
            env[p["name"]] = float(np.float32(a))
        elif isinstance(a, (bool, int, float)) and not (isinstance(a, int) and abs(a) > 2**53):
            env[p["name"]] = a
        else:
            return None
    try:
        expected = eval(golden, env)  # noqa: S307 - the semantics file's expression
    except Exception:  # noqa: BLE001 - PyTorch refuses these arguments: nothing to compare with
        return None
    got = result.numpy() if isinstance(result, aclnn.Tensor) else result
    if isinstance(expected, torch.Tensor) and expected.dtype == torch.bfloat16:
        return None
    if not isinstance(got, np.ndarray) or not isinstance(expected, torch.Tensor):
        return None
    want = expected.numpy()
    if got.shape != want.shape:
        return f"shape {got.shape}, golden {want.shape}"
    # The precision of the less precise of the two (the golden follows PyTorch's promotion, where
    # a 0-d double does not widen a float tensor; the page's promotion does).
    precisions = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-9}
    if got.dtype not in precisions or want.dtype not in precisions:
        return None
    tol = max(precisions[got.dtype], precisions[want.dtype])
    if tol is None:
        return None
    if not np.allclose(got.astype(np.float64), want, rtol=tol, atol=tol, equal_nan=True):
        return f"values differ from the golden: {got.ravel()[:6]} vs {want.ravel()[:6]}"
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=CASES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    if not os.environ.get("ASAN_OPTIONS"):
        # Without a sanitizer (which reserves terabytes of shadow), a cap on the address space
        # turns an attempt to allocate a huge tensor into a clean failure instead of swapping.
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (16 << 30, resource.RLIM_INFINITY))
    print(json.dumps(_campaign(args.cases, args.seed, args.log)))


# --- the test (in pytest) ------------------------------------------------------------------------

def run_campaign(package_dir: Path, cases: int, seed: int, log: Path, env: dict | None = None,
                 timeout: float = 1800) -> tuple[dict | None, str]:
    """Runs the campaign in a subprocess; (summary, failure text). The failure text names the
    call that was running when the process died."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(package_dir), str(ROOT), env.get("PYTHONPATH", "")])
    env["ACLNN_BACKEND"] = "sim"
    env.pop("ACLNN_SIM_DIR", None)
    proc = subprocess.run([sys.executable, "-m", "tests.test_fuzz_bindings", "--cases", str(cases), "--seed",
                           str(seed), "--log", str(log)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        lines = log.read_text().splitlines() if log.exists() else []
        last = lines[-1] if lines else "(before the first call)"
        return None, (f"the campaign died with status {proc.returncode} during call {last}\n"
                      f"stderr:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), ""


def test_random_calls_raise_cleanly_or_compute_right(tmp_path):
    from tests import bindings_build

    package = Path(os.environ.get("ACLNN_FUZZ_PACKAGE_DIR") or bindings_build.build_package())
    summary, failure = run_campaign(package, CASES, int(os.environ.get("FUZZ_SEED", 0)), tmp_path / "calls.log")
    assert summary is not None, failure
    stats_dir = ROOT / "build" / "fuzz"
    stats_dir.mkdir(parents=True, exist_ok=True)
    (stats_dir / "bindings.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"\n{summary['cases']} calls in {summary['seconds']} s: {summary['outcomes']}; "
          f"{summary['golden_compared']} results compared with the golden")
    assert summary["outcomes"].get("result", 0) > 0, "no call succeeded: the campaign tests nothing"
    assert summary["bug_count"] == 0, "\n\n".join(summary["bugs"])


if __name__ == "__main__":
    main()
