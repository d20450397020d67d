"""Sweeps PyTorch's OpInfo samples through torch_npu on the simulator, wider than test_opinfo.py: every
sample (up to --cap per operator) in float32, float16 and bfloat16 (against the CPU computed in float32
then cast, or in the dtype itself), int32/int64/bool where the OpInfo supports them, and backward in
float32 (the gradients of the sum of the outputs, a complex one's real and imaginary parts, w.r.t.
the floating inputs). Not part of `make test`:
run by hand from the repository after `make package`:

    .venv/bin/python tests/torch_npu/opinfo_sweep.py --out build/opinfo-sweep.jsonl [--modes float32,backward]
        [--ops abs,add] [--cap 8] [--jobs 1] [--soc Ascend910] [--task-queue]
    .venv/bin/python tests/torch_npu/opinfo_sweep.py --summary build/opinfo-sweep.jsonl

Each (operator, mode) is classified: equal, convention (equal but for torch_npu's own conventions:
float32 statistics of float16 inputs, an input its autograd formula does not differentiate),
rounding (a float16 or bfloat16 result equal to the CPU's with each aten operator's output rounded to
that dtype, as a device's kernels write them: nn_suite_sweep.device_rounding), torch_npu (a result
torch_npu's own host code defines, which differs from PyTorch's and a device gives
the same: host_code.py, each with its evidence; checked by computing that result, never assumed), WRONG
(another value without an error: the worst outcome), crash (the process died or hung), refused (an
exception: the aclnn API and its status when the message names them), or skip (no sample runs on the
CPU). Operators run in worker processes with ASCEND_LAUNCH_BLOCKING=1 (each refusal an exception of its
own call, as test_opinfo.py does; --task-queue: without it, as torch_npu runs by default); a worker that dies or stops answering loses only the (operator,
mode) it was running, recorded as a crash, and a fresh worker goes on with the next.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = ROOT / "generated" / "aclnn" / "_sim" / "toolkit"
MODES = ("float32", "float16", "bfloat16", "int32", "int64", "bool", "backward")
# Operators whose results are fixed only up to what the CPU's need not match: the signs of singular
# vectors, and a random projection drawn by the device's generator.
SIGN_FREE = {"pca_lowrank", "svd_lowrank"}
# Seconds an (operator, mode) may run before its worker is taken for hung.
HANG = 180


def spins_in_torch_npu(name: str, mode: str, sample) -> str | None:
    """Why torch_npu's own host code never returns from this sample, on a device as here (the
    simulator is never called), or None. The sweep skips such a sample, naming why, rather than lose
    the operator's other samples to a hang."""
    import torch_npu

    # index_copy's and index_reduce's gradients of self index_fill the incoming gradient (seen with gdb).
    fills = name == "index_fill" or (mode == "backward" and (name == "index_copy" or name.startswith("index_reduce.")))
    if fills and sample.input.dim() == 0 and not torch_npu.npu.is_jit_compile_false():
        # Found with gdb: with JIT compilation on (Ascend910, Ascend310P) op-plugin runs acl_op::index_fill,
        # whose host loop filling its assist tensor steps by 0 for a 0-d self (libtorch_npu.so, before any
        # aclop call).
        return "index_fill of a 0-d tensor spins in torch_npu's acl_op::index_fill (its assist loop steps by 0)"
    return None


def not_comparable() -> set[str]:
    spec = importlib.util.spec_from_file_location("test_opinfo", Path(__file__).with_name("test_opinfo.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.NOT_COMPARABLE)


def environment(toolkit: Path, soc: str | None = None, task_queue: bool = False) -> dict[str, str]:
    """A user's environment after `source set_env.sh` (as tests/torch_npu/conftest.py builds it), on
    the chip `soc` names (ACLNN_SIM_SOC; None: the simulator's default), with ASCEND_LAUNCH_BLOCKING=1
    (each refusal an exception of its own call) unless `task_queue`: then without it, as torch_npu runs
    by default (its task-queue thread runs the operators, and a refusal there is raised by the calling
    thread's next copy to the host, synchronisation or operator; the sweeps synchronise inside each
    case, so that a case is answered by its own refusal and never by the one before)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    base.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    listing = subprocess.run(["bash", "-c", 'source "$1" && env -0', "set_env", str(toolkit / "set_env.sh")],
                             env=base, check=True, capture_output=True).stdout
    env = dict(entry.split("=", 1) for entry in listing.decode().split("\0") if "=" in entry)
    if task_queue:
        env.pop("ASCEND_LAUNCH_BLOCKING", None)
    else:
        env["ASCEND_LAUNCH_BLOCKING"] = "1"
    if soc:
        env["ACLNN_SIM_SOC"] = soc
    return env


# ---------------------------------------------------------------------------------------------------
# Worker: runs (operator, mode) pairs named on its command line, one JSON line per event on stdout.

def reason_of(error: BaseException) -> str:
    """The refusal's cause in a few words: the aclnn API (or aclop operator) and the status."""
    text = f"{type(error).__name__}: {error}"
    aclop = re.search(r"operator type (\w+) is not modelled", text)
    if aclop:
        return f"aclop {aclop.group(1)} not modelled"
    bridge = re.search(r"aclopCompileAndExecute\w* \((\w+)\): ([^\n]{0,80})", text)
    if bridge:  # a modelled operator refusing what it was given (an attribute value, a dtype)
        return f"aclop {bridge.group(1)}: {bridge.group(2)}"
    api = re.search(r"\b(aclnn\w+)", text)
    status = re.search(r"\b(5\d{5}|1\d{5}|3\d{5})\b", text)
    if api or status:
        head = f"{api.group(1) if api else '?'} {status.group(1) if status else ''}".strip()
        # (A kernel's fault comes back from the next synchronisation, its message after the runtime's
        # "... (work queued behind it was discarded): ".)
        said = api and re.search(rf"(?:^|discarded\): )'?{api.group(1)}(?::| is) ([^\n]*?)'?$", text, re.M)
        # The simulator's own message, which says whether the page refuses the call (it cites the
        # page's line or names the page) or the simulator does: without it a refusal cannot be told
        # from a gap. The dtypes a page lists are left out: the dtype refused is named before them.
        return f"{head}: {re.sub(r' [(]supported: [^)]*[)]', '', said.group(1))[:160]}" if said else head
    first = " ".join(text.split("[ERROR]")[0].split())
    return first[:140]


# What refused, from a reason of reason_of: the first class whose pattern it matches (the page's
# own refusal cites the page's line or names the page; an aclnn status whose message does neither
# is phase 1's own reading, to be checked against the page), else torch_npu or PyTorch's host code.
REFUSAL_CLASSES = (
    ("not simulated (561003, an aclop operator not modelled)", r"\b561003\b|aclop \w+ not modelled"),
    # op-plugin's own lookup says "not in libopapi.so"; custom_ops_sweep's reason for an API op-plugin
    # checks for first (check_aclnn_kernel_available) is the API's name alone.
    ("no aclnn API of that name in libopapi (no page)", r"not in libopapi|^aclnn\w+$"),
    ("the page refuses it (a dtype, a range, a chip the page excludes)", r"\.md:\d+\)|the page \(|\.md\) marks"),
    ("phase 1, citing no page line (to check against the page)", r"\baclnn\w+ \d{6}|aclop \w+:"),
    ("torch_npu's or PyTorch's host code (no aclnn call refused)", r""),
)


def refusal_class(reason: str) -> str:
    return next(name for name, pattern in REFUSAL_CLASSES if re.search(pattern, reason))


def worker(pairs: list[tuple[str, str]], cap: int) -> None:
    import signal

    import torch
    import torch_npu  # noqa: F401
    from torch.testing._internal.common_methods_invocations import op_db

    from host_code import host_code  # this file's directory is sys.path[0]
    from nn_suite_sweep import device_rounding
    from opinfo_compare import TIES, differentiable, differs, floating, real_sum, samples, to

    ops = {op.name + ("." + op.variant_test_name if op.variant_test_name else ""): op for op in op_db}
    dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
              "int32": torch.int32, "int64": torch.int64, "bool": torch.bool, "backward": torch.float32}
    tolerance = {torch.float32: 1e-3, torch.float16: 1e-2, torch.bfloat16: 3e-2}

    # Events go to the stdout this process started with; fd 1 goes to stderr, with what C++ prints.
    control = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def emit(**event):
        control.write(json.dumps(event) + "\n")
        control.flush()

    def gradients(op, sample, device):
        """The gradients of the sum of the floating and complex outputs (real_sum) w.r.t. the leaves,
        the sample on device."""
        args = to([sample.input, *sample.args, sample.kwargs], device, grad=True)
        leaves = [t for t in floating(args) if t.requires_grad]
        outputs = [t for t in differentiable(op(args[0], *args[1:-1], **args[-1])) if t.requires_grad]
        if not leaves or not outputs:
            return None
        grads = torch.autograd.grad(real_sum(outputs), leaves, allow_unused=True)
        return [g if g is None else g.detach().cpu() for g in grads]

    def reference(fn, sample, dtype, mode):
        """fn's result on the CPU for the sample (the gradients in backward mode; None: nothing to
        compare), and for float16 and bfloat16 also its float32 result; raises where the CPU refuses
        the call (then it is no call to compare)."""
        if mode == "backward":
            return gradients(fn, sample, "cpu"), None
        want = fn(sample.input, *sample.args, **sample.kwargs)
        want32 = None
        if dtype in (torch.float16, torch.bfloat16):
            try:
                want32 = fn(to(sample.input, "cpu", torch.float32), *to(sample.args, "cpu", torch.float32),
                            **to(sample.kwargs, "cpu", torch.float32))
            except Exception:
                want32 = None
        return want, want32

    def difference(wants, got, dtype, ties, notes):
        """How got differs from the reference (None: equal). A float16 or bfloat16 result may equal
        the reference in its own dtype or its float32 result rounded to that dtype."""
        want, want32 = wants
        tol = tolerance.get(dtype, 1e-3)  # float results of integral inputs: float32
        found = differs(want, got, tol, ties, notes=notes)
        if found and want32 is not None and not differs(want32, got, tol, ties, dtype, notes):
            return None
        return found

    def torch_npu_gives(known, op, sample, dtype, mode, got, ties):
        """Whether got is the result torch_npu's host code defines for the sample (host_code.py)."""
        try:
            wants = reference(known.model(op, got), sample, dtype, mode)
        except Exception:
            return False
        return wants[0] is not None and difference(wants, got, dtype, ties, set()) is None

    def device_rounds_so(op, sample, dtype, got, ties):
        """Whether got is the CPU's result with each aten operator's 16-bit output rounded, as a
        device's kernels round (device_rounding): a chain that amplifies an intermediate's rounding
        fails the golden on a device too."""
        if dtype not in (torch.float16, torch.bfloat16):
            return False
        try:
            with device_rounding(dtype):
                want = op(sample.input, *sample.args, **sample.kwargs)
        except Exception:
            return False
        return not differs(want, got, tolerance[dtype], ties, notes=set())

    def timeout(*_):
        raise TimeoutError("no result in 120 s")

    signal.signal(signal.SIGALRM, timeout)
    for name, mode in pairs:
        emit(start=name, mode=mode)
        op = ops[name]
        dtype = dtypes[mode]
        counts = collections.Counter()
        wrong, reasons, conventions, skipped, host = [], collections.Counter(), set(), set(), set()
        signal.alarm(120)
        try:
            for index, sample in enumerate(samples(op, dtype, cap, requires_grad=(mode == "backward"))):
                spins = spins_in_torch_npu(name, mode, sample)
                if spins:
                    skipped.add(spins)
                    continue
                try:  # the CPU first: a sample the CPU refuses is no call to compare
                    wants = reference(op, sample, dtype, mode)
                except Exception:
                    continue
                if wants[0] is None:
                    continue
                try:
                    if mode == "backward":
                        got = gradients(op, sample, "npu")
                        torch.npu.synchronize()
                    else:
                        got = op(to(sample.input, "npu"), *to(sample.args, "npu"), **to(sample.kwargs, "npu"))
                        torch.npu.synchronize()
                        got = to(got, "cpu")
                except Exception as error:
                    counts["refused"] += 1
                    reasons[reason_of(error)] += 1
                    try:  # a refusal held for this sample (--task-queue) is this operator's, not the next one's
                        torch.npu.synchronize()
                    except Exception:  # noqa: BLE001
                        pass
                    continue
                notes = set()
                ties = op.name in TIES
                found = difference(wants, got, dtype, ties, notes)
                known = found and host_code(name, mode, op, sample)
                if known and torch_npu_gives(known, op, sample, dtype, mode, got, ties):
                    counts["torch_npu"] += 1
                    host.add(known.why)
                elif found and device_rounds_so(op, sample, dtype, got, ties):
                    counts["rounding"] += 1
                elif found:
                    counts["wrong"] += 1
                    wrong.append(f"sample {index}: {found}")
                else:
                    counts["equal"] += 1
                    conventions |= notes
        except Exception as error:
            counts["refused"] += 1
            reasons[f"sweep: {reason_of(error)}"] += 1
        finally:
            signal.alarm(0)
        verdict = ("wrong" if counts["wrong"] else "refused" if counts["refused"] else
                   "torch_npu" if counts["torch_npu"] else "rounding" if counts["rounding"] else
                   "convention" if counts["equal"] and conventions else "equal" if counts["equal"] else "skip")
        emit(op=name, mode=mode, verdict=verdict, counts=dict(counts), wrong=wrong[:3], reasons=dict(reasons),
             conventions=sorted(conventions), skipped=sorted(skipped), torch_npu=sorted(host))


# ---------------------------------------------------------------------------------------------------
# Driver: plans the pairs, runs workers, records crashes and hangs, writes the JSONL and the summary.

def plan(modes: list[str], only: set[str] | None) -> list[tuple[str, str]]:
    os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"  # the driver reads op_db alone, without a device
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    skip = not_comparable()
    pairs = []
    for op in op_db:
        name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        if name in skip or name in SIGN_FREE or (only and name not in only and op.name not in only):
            continue
        supported = op.supported_dtypes("cpu")
        for mode in modes:
            if mode == "backward":
                if op.supports_autograd and torch.float32 in supported:
                    pairs.append((name, mode))
            elif getattr(torch, mode) in supported:
                pairs.append((name, mode))
    return pairs


def drive(pairs, cap: int, out: Path, jobs: int, toolkit: Path, soc: str | None, task_queue: bool = False) -> None:
    env = environment(toolkit, soc, task_queue)
    pending = collections.deque(pairs)
    done = set()
    if out.exists():  # resume
        for line in out.read_text().splitlines():
            record = json.loads(line)
            done.add((record["op"], record["mode"]))
        pending = collections.deque(p for p in pending if p not in done)
    total = len(pending)
    print(f"{total} (operator, mode) pairs to run", file=sys.stderr, flush=True)
    record_file = out.open("a")
    workers: list[dict] = []
    started = time.time()
    finished = reported = 0

    def spawn(batch):
        log = tempfile.TemporaryFile()
        process = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(batch), "--cap", str(cap)],
                                   env=env, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        return {"process": process, "batch": collections.deque(batch), "current": None, "since": time.time(),
                "log": log}

    def tail(w):
        w["log"].seek(0, os.SEEK_END)
        w["log"].seek(max(0, w["log"].tell() - 1500))
        return " ".join(w["log"].read().decode(errors="replace").split()[-30:])

    def record(entry):
        nonlocal finished
        record_file.write(json.dumps(entry) + "\n")
        record_file.flush()
        finished += 1
        if entry["verdict"] in ("wrong", "crash"):
            print(f"  {entry['verdict']}: {entry['op']} {entry['mode']} {entry.get('wrong') or entry.get('why')}",
                  file=sys.stderr, flush=True)

    def take(n):
        batch = []
        while pending and len(batch) < n:
            batch.append(pending.popleft())
        return batch

    chunk = 40
    while pending or workers:
        while len(workers) < jobs and pending:
            workers.append(spawn(take(chunk)))
        streams = {w["process"].stdout: w for w in workers}
        ready, _, _ = select.select(list(streams), [], [], 5)
        for stream in ready:
            w = streams[stream]
            line = stream.readline()
            if line:
                event = json.loads(line) if line.startswith("{") else None
                if event is None:
                    continue
                if "start" in event:
                    w["current"] = (event["start"], event["mode"])
                    w["since"] = time.time()
                else:
                    record(event)
                    if w["batch"] and (w["batch"][0] == (event["op"], event["mode"])):
                        w["batch"].popleft()
                    w["current"] = None
                continue
            # End of stream: the worker exited (normally after its batch, or it died).
            w["process"].wait()
            if w["current"]:
                record({"op": w["current"][0], "mode": w["current"][1], "verdict": "crash",
                        "why": f"exit {w['process'].returncode}: " + tail(w)})
                if w["batch"] and w["batch"][0] == w["current"]:
                    w["batch"].popleft()
            pending.extendleft(reversed(w["batch"]))
            w["log"].close()
            workers.remove(w)
        for w in list(workers):
            if w["current"] and time.time() - w["since"] > HANG:
                w["process"].kill()
                w["process"].wait()
                record({"op": w["current"][0], "mode": w["current"][1], "verdict": "crash",
                        "why": f"hang: no result in {HANG} s"})
                if w["batch"] and w["batch"][0] == w["current"]:
                    w["batch"].popleft()
                pending.extendleft(reversed(w["batch"]))
                w["log"].close()
                workers.remove(w)
        if finished >= reported + 50:
            reported = finished
            print(f"{finished}/{total} in {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    record_file.close()


def summary(out: Path) -> None:
    records = [json.loads(line) for line in out.read_text().splitlines()]
    latest = {(r["op"], r["mode"]): r for r in records}
    table = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    for (name, mode), r in latest.items():
        table[mode][r["verdict"]] += 1
        if r["verdict"] == "refused":
            for reason in r.get("reasons", {}):
                reasons[reason] += 1
    classes = ("equal", "convention", "rounding", "torch_npu", "wrong", "crash", "refused", "skip")
    print(f"{'mode':10}" + "".join(f"{c:>11}" for c in classes))
    for mode in MODES:
        if mode in table:
            print(f"{mode:10}" + "".join(f"{table[mode][c]:>11}" for c in classes))
    print(f"{'total':10}" + "".join(f"{sum(t[c] for t in table.values()):>11}" for c in classes))
    print("\nwrong values without an error:")
    for (name, mode), r in sorted(latest.items()):
        if r["verdict"] == "wrong":
            print(f"  {name} [{mode}] {r['wrong'][0][:200]}")
    print("\nresults of torch_npu's own host code, which a device gives the same (host_code.py):")
    for (name, mode), r in sorted(latest.items()):
        for why in r.get("torch_npu", []):
            print(f"  {name} [{mode}] {why}")
    print("\ncrashes and hangs:")
    for (name, mode), r in sorted(latest.items()):
        if r["verdict"] == "crash":
            print(f"  {name} [{mode}] {r['why'][:200]}")
    print("\nsamples skipped (torch_npu's own code never returns from them):")
    for (name, mode), r in sorted(latest.items()):
        for why in r.get("skipped", []):
            print(f"  {name} [{mode}] {why}")
    print("\nrefusals by reason ((operator, mode) pairs):")
    for reason, n in reasons.most_common(60):
        print(f"  {n:5} {reason}")
    by_class = collections.defaultdict(set)
    for (name, mode), r in latest.items():
        if r["verdict"] == "refused":
            for reason in r.get("reasons", {}):
                by_class[refusal_class(reason)].add(f"{name} [{mode}]")
    print("\nrefused (operator, mode) pairs by what refused (a pair refused for two reasons is in both):")
    for name, _ in REFUSAL_CLASSES:
        if by_class[name]:
            print(f"  {len(by_class[name]):5} {name}: {', '.join(sorted(by_class[name]))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="JSONL of results (appended to: a rerun resumes)")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--ops", help="comma-separated operator names (default: all of op_db)")
    parser.add_argument("--cap", type=int, default=8, help="samples per operator and mode")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--toolkit", type=Path, default=TOOLKIT,
                        help="the simulator's toolkit (default: this worktree's build; a copy keeps a baseline)")
    parser.add_argument("--soc", help="the chip to simulate (ACLNN_SIM_SOC, e.g. Ascend910; default: the simulator's)")
    parser.add_argument("--task-queue", action="store_true", help="without ASCEND_LAUNCH_BLOCKING (torch_npu's default)")
    parser.add_argument("--summary", type=Path, help="print the summary of a JSONL and exit")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker([tuple(p) for p in json.loads(args.worker)], args.cap)
        return
    if args.summary:
        summary(args.summary)
        return
    if not args.out:
        parser.error("--out or --summary is required")
    modes = args.modes.split(",")
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes {sorted(unknown)}: choose among {MODES}")
    pairs = plan(modes, set(args.ops.split(",")) if args.ops else None)
    drive(pairs, args.cap, args.out, args.jobs, args.toolkit, args.soc, args.task_queue)
    summary(args.out)


if __name__ == "__main__":
    main()
