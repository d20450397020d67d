"""Binding fuzzing: calls of every bound API either raise a Python exception of aclnn's contract or
compute what PyTorch computes; they never crash the process, and they leave nothing alive.

Two campaigns, each in a subprocess (`python -m tests.fuzz.test_fuzz_bindings`), so that a segfault or
an abort is a test failure naming the call that caused it (each call is written to a log file
before it is made) instead of the death of pytest:

- robustness: every API that `aclnn.apis()` lists, each called first once and then at random,
  with arguments drawn per parameter kind from valid values and from bad ones: None, wrong types,
  wrong dtypes, rank 9, mismatched and negative-stride shapes, huge stride-0 views (terabytes
  that must fail cleanly, not be allocated), NaN/Inf scalars, integers out of range, out= arrays
  of the wrong shape or dtype, read-only, Fortran-ordered, 0-size, and device tensors. Acceptable
  outcomes: TypeError, ValueError, OverflowError, aclnn.AclnnError (any subclass), MemoryError
  (NumPy refusing to allocate a terabyte output), or a result. Any other exception
  (RuntimeError, SystemError, IndexError...) is a bug.
- edge values (tests/fuzz/fuzz_edge_values.py): valid calls of each API's generated suite with edge
  values in every dtype, empty and 0-d tensors, zero and negative strides, overlapping out=,
  compared with the golden by the suites' own `assert_results`: bit for bit where PyTorch is
  exact, within CANN's tolerances otherwise; a valid call refused is a bug unless the page
  documents the refusal.

After each campaign the bindings' and the simulator's live objects must be 0, and the simulator's
peak device memory must stay under 1 GiB (nothing huge was allocated). Coverage is asserted:
every bound API is called, every API with a valid call in its suite is compared with its golden.
Per-API counts go to build/fuzz/bindings-<package>-<campaign>.json.

The packages: the seed pages plus probe APIs with every parameter kind (tests/support/bindings_build.py),
the one built from op_docs/ (generated/, `make build`), and under FUZZ_BUDGET=long (make fuzz)
the corpus build's (build/corpus/generated, `make corpus`). ACLNN_OP_DOCS_PACKAGE_DIR names another
build of op_docs/' package, the one fuzzed then (tests/support/asan.py passes the sanitized one).
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

import pytest

from tests.fuzz.fuzz_edge_values import PEAK_DEVICE_LIMIT

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("FUZZ_BUDGET", "short") == "long"
CASES = int(os.environ.get("FUZZ_CASES", 100000 if LONG else 2500))
EDGE_CASES = int(os.environ.get("FUZZ_EDGE_CASES", 60000 if LONG else 0))
# 0, make test's budget, sized by the package: the pass that compares every API once, then
# EDGE_CALLS_PER_API random calls per API with valid calls, at least EDGE_MIN_CALLS (a flat 2,000
# made the seed package's 3 APIs take 2,000 calls, as long as op_docs' 715).
EDGE_CALLS_PER_API, EDGE_MIN_CALLS = 2, 500
CORPUS = ROOT / "build" / "corpus" / "generated"


# --- the campaign (in the subprocess) ------------------------------------------------------------

def robustness_campaign(cases: int, seed: int, log_path: Path) -> dict:
    import ml_dtypes
    import numpy as np

    import aclnn

    rng = random.Random(seed)
    # MemoryError: NumPy refusing a host array of terabytes (an output of a huge stride-0 input);
    # nothing is allocated, and peak_device_bytes below checks the device side.
    accepted = (TypeError, ValueError, OverflowError, MemoryError, aclnn.AclnnError)
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
    calls: collections.Counter = collections.Counter()
    bugs: list[str] = []
    log = open(log_path, "w", buffering=1)
    start = time.perf_counter()

    def one_case(case: int) -> None:
        # Every API once, in order, then at random.
        api = apis[case] if case < len(apis) else rng.choice(apis)
        calls[api["name"]] += 1
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
        try:
            fn(*args, **kwargs)
        except accepted as exc:
            outcomes[type(exc).__name__] += 1
            return
        except Exception as exc:  # noqa: BLE001 - outside the contract: a bug
            outcomes["BUG " + type(exc).__name__] += 1
            bugs.append(f"{call} raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
            return
        outcomes["result"] += 1

    for case in range(max(cases, len(apis))):
        one_case(case)
    elapsed = time.perf_counter() - start
    log.close()
    bugs.extend(leftovers(aclnn))
    return {"campaign": "robustness", "cases": max(cases, len(apis)), "seconds": round(elapsed, 2),
            "apis": sorted(a["name"] for a in apis), "calls": dict(sorted(calls.items())),
            "not_called": sorted(a["name"] for a in apis if not calls[a["name"]]),
            "outcomes": dict(outcomes), "bugs": bugs[:30], "bug_count": len(bugs),
            "sim_stats": aclnn.sim_stats(), "binding_stats": aclnn._C._stats()}


def edge_campaign(cases: int, seed: int, log_path: Path, tests_dir: Path) -> dict:
    import aclnn

    from tests.fuzz.fuzz_edge_values import KNOWN_DISAGREEMENTS, Campaign

    start = time.perf_counter()
    with open(log_path, "w", buffering=1) as log:
        campaign = Campaign(aclnn, tests_dir, log)
        if cases == 0:
            cases = max(EDGE_MIN_CALLS, EDGE_CALLS_PER_API * sum(1 for cases_ in campaign.cases.values() if cases_))
        campaign.run(cases, seed)
    tally = campaign.tally
    bugs = [text for _, text in tally.bugs] + leftovers(aclnn)
    # Valid calls phase 2 answers 561003 for (a dtype the simulator's engine lacks): not a wrong
    # result, reported per API with the dtypes.
    not_simulated = {api: sorted(dtypes) for api, dtypes in sorted(tally.not_simulated.items())}
    judged = sorted(api for api, cases_ in campaign.cases.items() if cases_)
    return {"campaign": "edge values", "cases": sum(tally.calls.values()), "seconds": round(time.perf_counter() - start, 2),
            "apis": sorted(campaign.suites), "apis_with_valid_calls": judged,
            "calls": dict(sorted(tally.calls.items())), "compared": dict(sorted(tally.compared.items())),
            # Those with a known disagreement are tallied as such instead (fuzz_edge_values.py).
            "not_compared": [api for api in judged if not tally.compared[api] and api not in KNOWN_DISAGREEMENTS],
            "not_simulated": not_simulated, "outcomes": dict(tally.outcomes),
            "bugs": bugs[:30], "bug_count": len(bugs), "sim_stats": aclnn.sim_stats(),
            "binding_stats": aclnn._C._stats()}


def leftovers(aclnn) -> list[str]:
    """What a campaign left behind: live objects of the bindings or the simulator, a huge allocation."""
    import gc

    gc.collect()
    aclnn.synchronize()
    gc.collect()
    # What the bindings keep for reuse (cached blocks' descriptors, shared scalars) goes back first:
    # whatever the simulator still holds then, a call leaked.
    aclnn.empty_cache()
    stats, sim = aclnn._C._stats(), aclnn.sim_stats()
    found = []
    if stats["live_objects"] or stats["live_buffers"]:
        found.append(f"bindings left objects alive after the campaign: {stats}")
    if sim.get("live_objects"):
        found.append(f"the simulator holds live objects after the campaign: {sim}")
    if sim.get("peak_device_bytes", 0) > PEAK_DEVICE_LIMIT:
        found.append(f"a call allocated {sim['peak_device_bytes']} bytes of device memory (over 1 GiB)")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaign", choices=("robustness", "edge"), required=True)
    parser.add_argument("--tests-dir", type=Path, help="the generated suites (edge values)")
    parser.add_argument("--cases", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    if not os.environ.get("ASAN_OPTIONS"):
        # Without a sanitizer (which reserves terabytes of shadow), a cap on the address space
        # turns an attempt to allocate a huge tensor into a clean failure instead of swapping.
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (16 << 30, resource.RLIM_INFINITY))
    if args.campaign == "robustness":
        summary = robustness_campaign(args.cases, args.seed, args.log)
    else:
        summary = edge_campaign(args.cases, args.seed, args.log, args.tests_dir)
    print(json.dumps(summary))


# --- the tests (in pytest) -----------------------------------------------------------------------

def run_campaign(package_dir: Path, campaign: str, cases: int, seed: int, log: Path, tests_dir: Path | None = None,
                 env: dict | None = None, timeout: float = 7200 if LONG else 1800) -> tuple[dict | None, str]:
    """Runs a campaign in a subprocess; (summary, failure text). The failure text names the call
    that was running when the process died."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(package_dir), str(ROOT), env.get("PYTHONPATH", "")])
    env["ACLNN_BACKEND"] = "sim"
    env.pop("ACLNN_SIM_DIR", None)
    command = [sys.executable, "-m", "tests.fuzz.test_fuzz_bindings", "--campaign", campaign, "--cases", str(cases),
               "--seed", str(seed), "--log", str(log)]
    if tests_dir is not None:
        command += ["--tests-dir", str(tests_dir)]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        lines = log.read_text().splitlines() if log.exists() else []
        last = lines[-1] if lines else "(before the first call)"
        return None, (f"the campaign died with status {proc.returncode} during call {last}\n"
                      f"stderr:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), ""


def packages() -> dict[str, tuple[Path, Path]]:
    """The packages to fuzz: name -> (the directory holding aclnn/, its generated suites)."""
    given = os.environ.get("ACLNN_OP_DOCS_PACKAGE_DIR")
    if given:
        return {"op_docs": (Path(given), ROOT / "generated" / "tests")}
    found = {"seed": (None, None), "op_docs": (ROOT / "generated", ROOT / "generated" / "tests")}
    if LONG:
        found["corpus"] = (CORPUS, CORPUS / "tests")
    return found


def package(name: str) -> tuple[Path, Path]:
    directory, tests_dir = packages()[name]
    if name == "seed":
        from tests.support import bindings_build

        directory = Path(bindings_build.build_package())
        return directory, directory / "tests"
    if not list((directory / "aclnn").glob("_C*.so")):
        pytest.skip(f"{directory}/aclnn is not built ({'make corpus' if name == 'corpus' else 'make build'} first)")
    return directory, tests_dir


def record(name: str, summary: dict) -> None:
    stats_dir = ROOT / "build" / "fuzz"
    stats_dir.mkdir(parents=True, exist_ok=True)
    campaign = summary["campaign"].split()[0]
    (stats_dir / f"bindings-{name}-{campaign}.json").write_text(json.dumps(summary, indent=1) + "\n")


@pytest.mark.parametrize("name", list(packages()))
def test_random_calls_of_every_api_raise_cleanly_or_compute(name, tmp_path):
    directory, _ = package(name)
    summary, failure = run_campaign(directory, "robustness", CASES, int(os.environ.get("FUZZ_SEED", 0)),
                                    tmp_path / "calls.log")
    assert summary is not None, failure
    record(name, summary)
    print(f"\n{name}: {summary['cases']} calls of {len(summary['apis'])} APIs in {summary['seconds']} s: "
          f"{summary['outcomes']}")
    assert not summary["not_called"], f"APIs never called: {summary['not_called']}"
    assert summary["outcomes"].get("result", 0) > 0, "no call succeeded: the campaign tests nothing"
    assert summary["bug_count"] == 0, "\n\n".join(summary["bugs"])


@pytest.mark.parametrize("name", list(packages()))
def test_valid_calls_with_edge_values_equal_the_golden(name, tmp_path):
    directory, tests_dir = package(name)
    summary, failure = run_campaign(directory, "edge", EDGE_CASES, int(os.environ.get("FUZZ_SEED", 0)),
                                    tmp_path / "calls.log", tests_dir=tests_dir)
    assert summary is not None, failure
    record(name, summary)
    compared = sum(summary["compared"].values())
    print(f"\n{name}: {summary['cases']} calls in {summary['seconds']} s, {compared} compared with the golden, "
          f"{len(summary['compared'])} of {len(summary['apis_with_valid_calls'])} APIs with valid calls; "
          f"{summary['outcomes']}; not simulated: {summary['not_simulated']}")
    assert summary["apis_with_valid_calls"], "no suite with a valid call: the campaign tests nothing"
    assert not summary["not_compared"], f"APIs never compared with their golden: {summary['not_compared']}"
    assert summary["bug_count"] == 0, "\n\n".join(summary["bugs"])


if __name__ == "__main__":
    main()
