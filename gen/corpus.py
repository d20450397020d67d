"""`make corpus`: every API of a directory of pages, parsed, generated, compiled and called.

    python -m gen.corpus DIR [--jobs N] [--build build/corpus] [--limit N]

The stages, each recorded per API in `<build>/../corpus-report.json` and `corpus-report.md`:

1. parse every page (in N processes), fold each op README into the page it links to;
2. generate with every emitter of `gen.generate` into `<build>/generated`;
3. compile the simulator and the extension (CMake + the venv's Ninja in `<build>/cmake`, -j N).
   A translation unit that fails does not lose the others: Ninja keeps going (-k 0), the
   compiler's errors are attributed to the APIs whose wrapper or entry they point into (each
   generated unit marks where an API starts), those APIs are left out with the first error as
   their reason, and the rest is generated and built again;
4. call every compiled API once on the simulator with the valid call its generated test suite
   plans (`BASE` of generated/tests/test_<op>.py, built by the suite's own support module), in
   worker processes: a crash is attributed to the API that was running and the worker restarts
   after it. Phase 1 passes when it returns 0 or a status of the page's error table.

Why this module runs the emitters itself rather than `gen.generate.generate`: a corpus has op
READMEs that must be folded into their pages, and pages of the same file name in several
directories (the IR dump names its files by page name; see `SKIPPED_EMITTERS`).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import importlib
import importlib.util
import itertools
import json
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Iterable, Optional, Sequence

from gen import names
from gen.emit.files import FileManager
from gen.model import BoundAPI, Model, Skipped, build_model
from gen.generate import EMITTERS, OWNED_DIRS, find_inputs
from gen.ir import API, Level, Page, PageKind
from gen.locations import shared_corpus
from gen.parse import parse_file
from gen.parse.api_page import PARAM_NO_DTYPES, PARAM_UNDOCUMENTED
from gen.parse.coverage import EXCLUDED_CODES, is_api_page_file, page_result
from gen.parse.merge import merge_readmes

ROOT = Path(__file__).resolve().parents[1]
# generated/ir/<page name>.json: two corpus pages of the same name (ops-math/docs/aclnnSign.md and
# ops-math/math/sign/docs/aclnnSign.md) would write one file; the report holds what it needs.
SKIPPED_EMITTERS = ("gen.emit.ir_json",)
# Rounds of "build, leave out the APIs at fault, build again" before the run gives up on a unit.
MAX_BUILD_ROUNDS = 6
# Phase 1 of an API that has not returned after this many seconds is reported as hung.
CALL_TIMEOUT = 60.0
PHASE1 = "GetWorkspaceSize"


# ---- the record of one API -------------------------------------------------------------------------

@dataclass
class Record:
    api: Optional[str]  # None for a page that documents no API (stub pages, reference pages)
    page: str
    parsed: bool = False  # a full IR: every parameter matched to a row with dtypes where data flows
    generated: bool = False
    compiled: bool = False
    phase1_ok: bool = False
    reason: str = ""  # why the first stage that failed failed
    status: Optional[int] = None  # what phase 1 returned
    bound_from: Optional[str] = None  # the page whose IR was bound, when another page documents it too
    features: tuple[str, ...] = ()  # the parameter kinds and page shapes the API exercises (`features`)

    def fail(self, reason: str) -> None:
        if not self.reason:
            self.reason = reason


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


# ---- 1. parse --------------------------------------------------------------------------------------

def parse_pages(paths: Sequence[Path], jobs: int, progress) -> list[Page]:
    if jobs <= 1:
        return [parse_file(p) for p in progress(paths, "parse")]
    with Pool(jobs) as pool:
        return list(progress(pool.imap(parse_file, paths, chunksize=4), "parse", total=len(paths)))


def page_records(pages: Sequence[Page]) -> list[Record]:
    """One record per API of every aclnn page (a page without APIs: one record saying why)."""
    records: list[Record] = []
    for page in pages:
        # Other Markdown of a corpus (guides, reference tables) documents no API and is not counted
        # unless it is named as an API page is (as `gen stats` counts).
        if page.kind is not PageKind.API_PAGE or not (page.apis or is_api_page_file(Path(page.source))):
            continue
        result = page_result(page)
        if not page.apis:
            why = next((d for d in page.diagnostics if d.level is not Level.INFO), None)
            reason = f"{result.reasons[0]}: {why.message}" if why else result.reasons[0]
            records.append(Record(None, page.source, reason=f"no API: {reason}"))
            continue
        failing: dict[str, str] = {}
        for d in page.diagnostics:
            if d.code in (PARAM_UNDOCUMENTED, PARAM_NO_DTYPES):
                failing.setdefault(d.message.split(".", 1)[0], f"{d.code} (line {d.line}): {d.message}")
        for api in page.apis:
            record = Record(api.name, page.source)
            if api.name in failing:
                record.reason = failing[api.name]
            elif not api.params:
                record.reason = "no parameters were recovered from the page"
            else:
                record.parsed = True
            records.append(record)
    return records


def features(bound: BoundAPI) -> tuple[str, ...]:
    """What an API exercises end to end, by the names of the issue's list: each parameter kind
    (integers and floats by C type), optional pointers, in-place parameters, several outputs, and
    pages that document more than one API."""
    from gen.api.kinds import value_type
    from gen.ir import Direction, ParamKind

    found: set[str] = set()
    api = bound.api
    for p in api.params:
        if p.kind is None:
            continue
        if p.kind in (ParamKind.INT, ParamKind.FLOAT):
            found.add(f"{p.kind.value} {value_type(p)}")
        else:
            found.add("char* string" if p.kind is ParamKind.STRING else p.kind.value)
        if p.optional and p.kind.is_pointer and p.direction is not Direction.OUT:
            found.add("optional input (None)")
        if p.direction is Direction.INOUT:
            found.add("inout (in place)")
    if sum(1 for p in api.params if p.direction is not Direction.IN) > 1:
        found.add("several outputs (tuple)")
    if len(bound.page.apis) > 1:
        found.add("page with several APIs")
    return tuple(sorted(found))


# ---- 2. generate ------------------------------------------------------------------------------------

def without(model: Model, excluded: dict[str, str]) -> Model:
    kept = tuple(b for b in model.apis if b.name not in excluded)
    skipped = model.skipped + tuple(Skipped(b.name, b.page.source, excluded[b.name])
                                    for b in model.apis if b.name in excluded)
    return dataclasses.replace(model, apis=kept, skipped=skipped)


def emit(model: Model, out_dir: Path) -> FileManager:
    files = FileManager(out_dir)
    for module in EMITTERS:
        if module not in SKIPPED_EMITTERS:
            importlib.import_module(module).emit(model, files)
    files.remove_stale(OWNED_DIRS)
    return files


# ---- 3. compile -------------------------------------------------------------------------------------

_API_MARK = re.compile(r"^// ---- (aclnn\w+) \(")
_LOCATION = re.compile(r"^(?P<file>[^\s:]+\.(?:cpp|h)):(?P<line>\d+):(?:\d+:)?\s*(?P<text>.*)$")


def api_spans(source: Path) -> list[tuple[int, str]]:
    """(first line, API) of each API's section of a generated unit, in file order."""
    spans = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        m = _API_MARK.match(line)
        if m:
            spans.append((number, m.group(1)))
    return spans


def api_at(spans: list[tuple[int, str]], line: int) -> Optional[str]:
    found = None
    for start, api in spans:
        if start > line:
            break
        found = api
    return found


@dataclass
class BuildResult:
    ok: bool
    culprits: dict[str, str] = field(default_factory=dict)  # API -> the compiler's first error about it
    unattributed: list[str] = field(default_factory=list)  # failures no API could be blamed for
    seconds: float = 0.0
    units_compiled: int = 0


def configure(build_dir: Path, generated: Path) -> None:
    cmake = Path(sys.executable).parent / "cmake"
    ninja = Path(sys.executable).parent / "ninja"
    log = build_dir.with_suffix(".configure.log")
    build_dir.mkdir(parents=True, exist_ok=True)
    command = [str(cmake), "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
               f"-DCMAKE_MAKE_PROGRAM={ninja}", f"-DPython_EXECUTABLE={sys.executable}",
               "-DCMAKE_BUILD_TYPE=Release", f"-DACLNN_GENERATED_DIR={generated.resolve()}",
               "-DACLNN_BUILD_EXAMPLES=OFF"]
    done = subprocess.run(command, capture_output=True, text=True)
    log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"CMake configure failed (see {log}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def failed_blocks(output: str) -> list[tuple[str, str]]:
    """(the failed Ninja edge's line, the compiler output under it) for each FAILED edge."""
    blocks: list[tuple[str, list[str]]] = []
    for line in output.splitlines():
        if line.startswith("FAILED: "):
            blocks.append((line, []))
        elif blocks and not re.match(r"^\[\d+/\d+\] ", line) and not line.startswith("ninja: "):
            blocks[-1][1].append(line)
    return [(head, "\n".join(body)) for head, body in blocks]


def attribute(body: str, generated: Path) -> dict[str, str]:
    """The APIs a compiler output blames: each error (or the 'required from here' note that leads
    to it) pointing into a generated unit, mapped to the API section holding that line."""
    spans_of: dict[str, list[tuple[int, str]]] = {}
    culprits: dict[str, str] = {}
    pending: list[str] = []  # unit locations seen since the last error ("required from here" chains)
    for line in body.splitlines():
        m = _LOCATION.match(line.strip())
        if not m:
            continue
        path = Path(m.group("file"))
        in_unit = path.suffix == ".cpp" and path.resolve().is_relative_to(generated.resolve())
        api = None
        if in_unit:
            key = str(path.resolve())
            if key not in spans_of:
                spans_of[key] = api_spans(path)
            api = api_at(spans_of[key], int(m.group("line")))
        if api:
            pending.append(api)
        if "error:" in m.group("text"):
            message = m.group("text").split("error:", 1)[1].strip()
            for blamed in pending[-1:]:
                culprits.setdefault(blamed, f"compile error: {_first_line(message)}")
            pending.clear()
    return culprits


def build(build_dir: Path, generated: Path, jobs: int, log) -> BuildResult:
    ninja = Path(sys.executable).parent / "ninja"
    start = time.perf_counter()
    done = subprocess.run([str(ninja), "-C", str(build_dir), "-k", "0", f"-j{jobs}", "aclnn_python", "aclsim_opapi"],
                          capture_output=True, text=True)
    output = done.stdout + done.stderr
    log(output)
    result = BuildResult(ok=done.returncode == 0, seconds=time.perf_counter() - start,
                         units_compiled=len(re.findall(r"Building CXX object .*ops_\d+\.cpp", output)))
    if result.ok:
        return result
    for head, body in failed_blocks(output):
        culprits = attribute(body, generated)
        if culprits:
            result.culprits.update({k: v for k, v in culprits.items() if k not in result.culprits})
        else:
            first_error = next((l for l in body.splitlines() if "error" in l), body[:300])
            result.unattributed.append(f"{head[8:]}: {_first_line(first_error)}")
    return result


# ---- 4. phase 1 on the simulator -----------------------------------------------------------------

_QUOTED = re.compile(r"[\"“`']([A-Za-z][\w-]*)[\"”`']")
# Unquoted lists of values: "none、sum 或 mean；默认 mean。"
_LISTED = re.compile(r"(?:^|[：:\s；;])([A-Za-z][\w-]*)\s*(?:[、,，/|]|或)")


def call_plan(bound: BoundAPI) -> dict:
    """What the worker needs from the IR beyond the generated suite: the chip to simulate (the
    default, unless the page marks it unsupported: then the first chip it supports), each tensor
    input's documented rank bounds, and a value for each string attribute the example leaves
    unstated (the first word the page quotes in its row, `"mean"`, or lists, "none、sum 或 mean")."""
    from gen.ir import DEFAULT_SOC
    from gen.ir import ParamKind

    supported = [p.soc for p in bound.page.products if p.soc is not None and p.supported]
    unsupported = {p.soc for p in bound.page.products if p.soc is not None and not p.supported}
    # A page that supports no chip at all keeps the default (phase 1 then says it is unsupported).
    soc = supported[0] if supported and (DEFAULT_SOC in unsupported or DEFAULT_SOC not in supported) \
        else DEFAULT_SOC
    ranks = {p.name: list(p.rank) for p in bound.api.inputs if p.kind is ParamKind.TENSOR and p.rank}
    strings = {}
    for p in bound.api.inputs:
        if p.kind is ParamKind.STRING:
            text = f"{p.description} {p.usage}"
            found = _QUOTED.search(text) or _LISTED.search(text)
            if found:
                strings[p.name] = found.group(1)
    return {"soc": soc.value, "ranks": ranks, "strings": strings}


def phase1_worker(generated: Path, apis: Sequence[str], results: Path, plans: Optional[dict] = None) -> None:
    """Runs in its own process: one JSON line before (`start`) and after (`done`) each call, so
    that a crash leaves the API that caused it as the last started one."""
    plans = plans or {}
    sys.path[:0] = [str(generated), str(generated / "tests")]
    import aclnn  # noqa: F401 - the corpus package, first on sys.path
    import _aclnn_testing as t

    soc = t.active_soc()
    with results.open("a", encoding="utf-8") as out:
        for api in apis:
            out.write(json.dumps({"api": api, "event": "start"}) + "\n")
            out.flush()
            outcome = call_once(t, generated, api, soc, plans.get(api, {}))
            out.write(json.dumps({"api": api, "event": "done", **outcome}) + "\n")
            out.flush()


def call_once(t, generated: Path, api: str, soc: str, plan: dict) -> dict:
    """The valid call of the API's generated suite (`BASE`), completed where the page gives no
    value (`placeholders`); out= arrays are passed only when the bindings cannot allocate an
    output. What phase 1 returned."""
    test_file = generated / "tests" / names.test_file(api)
    try:
        spec = importlib.util.spec_from_file_location(test_file.stem, test_file)
        if spec is None or spec.loader is None:
            raise ImportError(f"{test_file}: not a loadable Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        op = module.OP
        case = placeholders(t, op, module.BASE, soc, plan)
        inputs = t.make_inputs(op, case, soc)
        if outputs_of_other_dtypes(t, op, case, soc):
            t.call(op, case, inputs, explicit_outs(t, op, inputs, soc))
            return {"status": 0, "message": ""}
        try:
            t.call(op, case, inputs, t.out_arrays(op, case, inputs, soc))
        except TypeError as error:
            if "pass out=" not in str(error):
                raise
            t.call(op, case, inputs, explicit_outs(t, op, inputs, soc))
    except t.aclnn.AclnnError as error:
        if error.phase == PHASE1:
            return {"status": error.status, "message": str(error)}
        return {"status": 0, "message": f"phase 1 passed; {error.phase}: {error}"}
    except BaseException as error:  # noqa: BLE001 - anything else is this API's failure, reported
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"status": None, "message": f"{type(error).__name__}: {_first_line(str(error))}"}
    return {"status": 0, "message": ""}


def placeholders(t, op, case, soc: str, plan: dict):
    """The suite's base case, completed where the page's example leaves a value unstated (the
    suite does not run such a case; phase 1 may still judge it): a dtype attribute gets the
    parameter's first documented dtype (else FLOAT), a string attribute the word its row quotes,
    and a tensor whose base shape has a rank outside its documented bounds the nearest rank."""
    from gen.emit.tests import EXPRESSIBLE, SHAPES
    from gen.ir import DType

    values, shapes = {}, {}
    for p in op.inputs:
        if p.name in case.none:
            continue
        if p.kind == "dtype" and case.values.get(p.name) is None:
            documented = [d for d in (op.documented(soc, p.name) or ()) if DType(d) in EXPRESSIBLE]
            values[p.name] = "FLOAT" if not documented or "FLOAT" in documented else documented[0]
        elif p.kind == "string" and case.values.get(p.name) is None and p.name in plan.get("strings", {}):
            values[p.name] = plan["strings"][p.name]
        elif p.kind == "tensor" and p.name in plan.get("ranks", {}) and p.name in case.shapes:
            low, high = plan["ranks"][p.name]
            rank = len(case.shapes[p.name])
            if not low <= rank <= high:
                shapes[p.name] = SHAPES[min(max(rank, low), high, max(SHAPES))]
    changes = {k: v for k, v in (("values", values), ("shapes", shapes)) if v}
    return case.but(case.id, **changes) if changes else case


def holdable_dtypes(t) -> dict:
    """The dtypes a host array can hold (the package's table, float8 types included: a phase-1 call
    of a quantising op needs them for its outputs), by page name."""
    return t.NUMPY_DTYPES


def outputs_of_other_dtypes(t, op, case, soc: str) -> bool:
    """Whether an output's documented dtypes on `soc` include none of the call's input dtypes: the
    bindings would allocate it in an input's dtype, which the page then rejects (aclnnRmsNormDynamicMxQuant:
    FLOAT16 x, yOut only FLOAT8/FLOAT4), so the call needs out= arrays of documented dtypes."""
    tensors = {p.name for p in op.inputs if p.kind == "tensor"}
    inputs = {d for name, d in case.dtypes.items() if name in tensors}
    holdable = set(holdable_dtypes(t))
    for p in op.outs:
        documented = set(op.documented(soc, p.name) or ())
        if documented and inputs and not inputs & documented and documented & holdable:
            return True
    return False


def explicit_outs(t, op, inputs: dict, soc: str) -> list:
    """out= for every output: the broadcast shape of the inputs it is related to (else of the first
    tensor input), its first documented dtype a host array can hold (FLOAT where documented)."""
    import numpy as np

    holdable = holdable_dtypes(t)

    first = next((v for p in op.inputs if p.kind == "tensor" and (v := inputs.get(p.name)) is not None), None)
    arrays = []
    for p in op.outs:
        related = [np.shape(inputs[n]) for n in op.out_shape_from.get(p.name, ()) if inputs.get(n) is not None]
        try:
            shape = np.broadcast_shapes(*related) if related else (np.shape(first) if first is not None else (2, 3))
        except ValueError:  # the related inputs do not broadcast (a per-channel weight): the first one's
            shape = related[0]
        documented = [d for d in (op.documented(soc, p.name) or ()) if d in holdable]
        dtype = holdable["FLOAT" if not documented or "FLOAT" in documented else documented[0]]
        arrays.append([np.zeros(shape, dtype) for _ in range(2)] if p.kind == "tensor_list" else np.zeros(shape, dtype))
    return arrays


def run_phase1(generated: Path, apis: Sequence[str], work: Path, jobs: int, progress,
               plans: Optional[dict[str, dict]] = None) -> dict[str, dict]:
    """Phase 1 of each API in `jobs` worker processes (one chip per process: the simulator reads
    ACLNN_SIM_SOC once), restarted after the API that crashed one."""
    generated, work = generated.resolve(), work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    plans = plans or {}
    (work / "plans.json").write_text(json.dumps(plans))
    by_soc: dict[Optional[str], list[str]] = {}
    for api in apis:
        by_soc.setdefault(plans.get(api, {}).get("soc"), []).append(api)
    chunks = [(soc, group[k::jobs]) for soc, group in by_soc.items() for k in range(jobs) if group[k::jobs]]
    outcomes: dict[str, dict] = {}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(generated), str(ROOT)])}
    bar = progress(None, "phase 1", total=len(apis))
    workers: list[tuple[subprocess.Popen, Path, tuple[Optional[str], list[str]], float]] = []

    def launch(soc: Optional[str], chunk: list[str], k: int) -> None:
        results = work / f"worker{k}.jsonl"
        results.write_text("")
        listing = work / f"worker{k}.apis"
        listing.write_text("\n".join(chunk))
        with (work / f"worker{k}.err").open("wb") as err:  # a file: a pipe nobody reads can fill and block
            proc = subprocess.Popen([sys.executable, "-m", "gen.corpus", "--phase1-worker", str(generated),
                                     str(listing), str(results), str(work / "plans.json")],
                                    env={**env, "ACLNN_SIM_SOC": soc} if soc else env, cwd=str(ROOT),
                                    stdout=subprocess.DEVNULL, stderr=err)
        workers.append((proc, results, (soc, chunk), time.monotonic()))

    def progress_of(results: Path) -> tuple[dict[str, dict], Optional[str]]:
        done: dict[str, dict] = {}
        started: Optional[str] = None
        for line in results.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event["event"] == "start":
                started = event["api"]
            else:
                done[event["api"]] = event
                started = None
        return done, started

    serial = itertools.count()
    # The chips' groups run one after the other, `jobs` workers at a time.
    pending = list(chunks)
    while pending and len(workers) < jobs:
        launch(*pending.pop(0), next(serial))
    seen: dict[Path, int] = {}
    stall: dict[Path, tuple[Optional[str], float]] = {}
    while workers:
        time.sleep(0.2)
        for entry in list(workers):
            proc, results, (soc, chunk), _ = entry
            done, running = progress_of(results)
            new = len(done) - seen.get(results, 0)
            if new:
                bar.update(new)
                seen[results] = len(done)
            # A call that does not return is as bad as a crash.
            previous = stall.get(results)
            if previous is None or previous[0] != running or new:
                stall[results] = (running, time.monotonic())
            hung = running is not None and time.monotonic() - stall[results][1] > CALL_TIMEOUT
            if hung:
                proc.kill()
            code = proc.poll()
            if code is None:
                continue
            workers.remove(entry)
            stderr = results.with_suffix(".err").read_text(errors="replace")
            outcomes.update(done)
            if running is not None:
                why = "hung" if hung else (f"killed by signal {-code}" if code < 0 else f"exit {code}")
                outcomes[running] = {"status": None, "crashed": True,
                                     "message": f"the process {why} during the call: {_first_line(stderr[-500:])}"}
                bar.update(1)
            rest = [a for a in chunk if a not in outcomes]
            if rest and running is not None:
                launch(soc, rest, next(serial))
            elif rest:  # the worker died outside any call (at import): blame nobody, report all
                for api in rest:
                    outcomes[api] = {"status": None, "message": f"the worker failed: {_first_line(stderr[-500:])}"}
                bar.update(len(rest))
            while pending and len(workers) < jobs:
                launch(*pending.pop(0), next(serial))
    bar.close()
    return outcomes


# ---- the run -------------------------------------------------------------------------------------------

@dataclass
class Figures:
    wall_seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    compile_cpu_seconds: float = 0.0  # CPU time of the compilers and linkers, all rounds
    build_rounds: int = 0
    units: int = 0
    peak_rss_mib: dict[str, float] = field(default_factory=dict)
    command: str = ""


def _rusage_children() -> resource.struct_rusage:
    return resource.getrusage(resource.RUSAGE_CHILDREN)


def run(doc_dir: Path, build_root: Path, jobs: int, report_dir: Path, limit: Optional[int] = None,
        progress=None, log=print) -> tuple[list[Record], Figures]:
    progress = progress or _tqdm
    figures = Figures(command=" ".join([Path(sys.executable).name, "-m", "gen.corpus"] + sys.argv[1:]))
    start = time.perf_counter()
    generated, cmake_dir = build_root / "generated", build_root / "cmake"
    build_root.mkdir(parents=True, exist_ok=True)
    build_log = build_root / "build.log"
    build_log.write_text("")

    def stage(name: str, began: float) -> None:
        figures.stage_seconds[name] = round(time.perf_counter() - began, 1)

    t0 = time.perf_counter()
    paths, _ = find_inputs(doc_dir)
    if limit:
        paths = paths[:limit]
    pages = merge_readmes(parse_pages(paths, jobs, progress))
    records = page_records(pages)
    stage("parse", t0)

    t0 = time.perf_counter()
    model = build_model([p for p in pages if p.kind is PageKind.API_PAGE])
    skipped_first = {s.what: s.reason for s in model.skipped}
    emit(model, generated)
    stage("generate", t0)

    t0 = time.perf_counter()
    before = _rusage_children()
    configure(cmake_dir, generated)
    excluded: dict[str, str] = {}
    unattributed: list[str] = []
    for round_ in range(1, MAX_BUILD_ROUNDS + 1):
        figures.build_rounds = round_
        log(f"build round {round_}: {len(model.apis)} APIs")
        result = build(cmake_dir, generated, jobs, lambda text: build_log.open("a").write(text))
        figures.units += result.units_compiled
        if result.ok:
            break
        if not result.culprits:
            unattributed = result.unattributed
            log("build failed and no API could be blamed:\n  " + "\n  ".join(unattributed[:10]))
            break
        log(f"  left out: {', '.join(sorted(result.culprits))}")
        excluded.update(result.culprits)
        model = without(model, result.culprits)
        emit(model, generated)
    built = result.ok
    after = _rusage_children()
    figures.compile_cpu_seconds = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1)
    figures.peak_rss_mib["compiler"] = round(after.ru_maxrss / 1024, 1)
    stage("compile", t0)

    t0 = time.perf_counter()
    compiled = [b.name for b in model.apis] if built else []
    plans = {b.name: call_plan(b) for b in model.apis}
    outcomes = run_phase1(generated, compiled, build_root / "phase1", jobs, progress, plans) if compiled else {}
    stage("phase1", t0)

    bound = {b.name: b for b in model.apis}
    errors_of = {b.name: {e.code for e in b.api.errors} for b in model.apis}
    for record in records:
        if record.api is None:
            continue
        api = record.api
        chosen = bound.get(api)
        if api in skipped_first or api in excluded:
            record.fail(excluded.get(api) or skipped_first[api])
            continue
        if chosen is None:
            record.fail("not generated")
            continue
        record.generated = True
        record.features = features(chosen)
        if chosen.page.source != record.page:
            record.bound_from = chosen.page.source
        if not built:
            record.fail("the build failed: " + "; ".join(unattributed[:3]))
            continue
        record.compiled = True
        outcome = outcomes.get(api, {"status": None, "message": "not run"})
        record.status = outcome.get("status")
        status = record.status
        if status == 0 or (status is not None and status in errors_of[api]):
            record.phase1_ok = True
            if status:
                record.reason = f"phase 1: documented status {status}"
        elif status is not None:
            record.fail(f"phase 1: undocumented status {outcome['message']}")
        else:
            record.fail(("phase 1 crashed: " if outcome.get("crashed") else "phase 1: ") + outcome["message"])

    figures.wall_seconds = round(time.perf_counter() - start, 1)
    children = _rusage_children()
    figures.peak_rss_mib["largest child process"] = round(children.ru_maxrss / 1024, 1)
    figures.peak_rss_mib["this process"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    write_reports(records, figures, report_dir, pages=len(paths))
    return records, figures


# ---- reports --------------------------------------------------------------------------------------------

def totals(records: Sequence[Record], figures: Figures) -> dict:
    api_pages = collections.defaultdict(list)
    for r in records:
        api_pages[r.page].append(r)
    stubs = [p for p, rs in api_pages.items() if rs[0].api is None and any(
        rs[0].reason.startswith(f"no API: {code}") for code in EXCLUDED_CODES)]
    counted = [p for p in api_pages if p not in stubs]
    parsed_pages = [p for p in counted if any(r.parsed for r in api_pages[p])]
    apis = distinct(records)  # an API documented by several pages counts once
    parsed = [r for r in apis if r.parsed]
    compiled = [r for r in parsed if r.compiled]
    phase1 = [r for r in compiled if r.phase1_ok]

    def pct(a: int, b: int) -> float:
        return round(100 * a / b, 2) if b else 100.0

    return {
        "pages": len(api_pages), "pages_without_api": len(stubs),
        "pages_parsed": len(parsed_pages), "pages_parsed_pct": pct(len(parsed_pages), len(counted)),
        "apis": len(apis), "apis_parsed": len(parsed),
        "apis_generated": sum(r.generated for r in apis),
        "apis_compiled": len(compiled), "compiled_pct_of_parsed": pct(len(compiled), len(parsed)),
        "apis_phase1_ok": len(phase1), "phase1_ok_pct_of_compiled": pct(len(phase1), len(compiled)),
        "apis_phase1_status0": sum(r.status == 0 for r in phase1),
        "compiled_total": sum(r.compiled for r in apis),
        "phase1_ok_total": sum(r.phase1_ok for r in apis),
        "wall_seconds": figures.wall_seconds, "stage_seconds": figures.stage_seconds,
        "compile_cpu_seconds": figures.compile_cpu_seconds,
        "compile_cpu_seconds_per_api": round(figures.compile_cpu_seconds / max(1, sum(r.compiled for r in apis)), 3),
        "build_rounds": figures.build_rounds, "peak_rss_mib": figures.peak_rss_mib, "command": figures.command,
    }


def reason_key(reason: str) -> str:
    """A failure reason without what is particular to its API (names, lines, the message's tail):
    `phase 1: undocumented status API GetWorkspaceSize returned 161001 (ACLNN_ERR_PARAM_NULLPTR)`."""
    parts = reason.split(": ")
    key = ": ".join(parts[:2] if parts[0] in ("no API", "phase 1", "phase 1 crashed", "compile error") else parts[:1])
    key = re.sub(r"\baclnn\w+", "API", key)
    key = re.sub(r" \(line \d+\)", "", key)
    return key[:160]


def reason_counts(records: Sequence[Record]) -> list[tuple[str, int]]:
    """Failure reasons of distinct APIs (and of pages without one), most frequent first."""
    counter: collections.Counter[str] = collections.Counter()
    for r in distinct(records) + [r for r in records if r.api is None]:
        if r.reason and not r.phase1_ok:
            counter[reason_key(r.reason)] += 1
    return counter.most_common()


def distinct(records: Sequence[Record]) -> list[Record]:
    """One record per API: the bound page's."""
    unique: dict[str, Record] = {}
    for r in records:
        if r.api and (r.api not in unique or r.bound_from is None):
            unique[r.api] = r
    return list(unique.values())


FEATURE_COLUMNS = ("apis", "compiled", "phase1_status0", "phase1_documented_status", "failed")


def feature_table(records: Sequence[Record]) -> dict[str, dict[str, int]]:
    """For each feature (`features`), how its distinct APIs fared."""
    table: dict[str, dict[str, int]] = {}
    for r in distinct(records):
        for feature in r.features:
            row = table.setdefault(feature, dict.fromkeys(FEATURE_COLUMNS, 0))
            row["apis"] += 1
            row["compiled"] += r.compiled
            row["phase1_status0"] += r.phase1_ok and r.status == 0
            row["phase1_documented_status"] += r.phase1_ok and r.status != 0
            row["failed"] += r.generated and not r.phase1_ok
    return dict(sorted(table.items()))


def write_reports(records: Sequence[Record], figures: Figures, report_dir: Path, pages: int) -> None:
    report_dir.mkdir(parents=True, exist_ok=True)
    summary = totals(records, figures)
    summary["features"] = feature_table(records)
    entries = [{"api": r.api, "page": r.page, "parsed": r.parsed, "generated": r.generated, "compiled": r.compiled,
                "phase1_ok": r.phase1_ok, "reason": r.reason, "status": r.status, "bound_from": r.bound_from,
                "features": list(r.features)}
               for r in records]
    (report_dir / "corpus-report.json").write_text(
        json.dumps({"totals": summary, "apis": entries}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (report_dir / "corpus-report.md").write_text(markdown(records, summary, pages), encoding="utf-8")


def markdown(records: Sequence[Record], summary: dict, pages: int) -> str:
    def mark(flag: bool) -> str:
        return "yes" if flag else "**no**"

    s = summary
    lines = [
        "# Corpus report", "",
        f"`{s['command']}`: {pages} files read, {s['pages']} aclnn pages "
        f"({s['pages_without_api']} document no API: stubs, reference pages, single-phase utilities).", "",
        "| figure | value |", "|---|---|",
        f"| pages parsed to a full IR (of pages with an API) | {s['pages_parsed']} ({s['pages_parsed_pct']}%) |",
        f"| distinct APIs / parsed to a full IR | {s['apis']} / {s['apis_parsed']} |",
        f"| generated | {s['apis_generated']} |",
        f"| compiled (of parsed) | {s['apis_compiled']} ({s['compiled_pct_of_parsed']}%) |",
        f"| phase 1 ok on the simulator (of compiled) | {s['apis_phase1_ok']} ({s['phase1_ok_pct_of_compiled']}%): "
        f"{s['apis_phase1_status0']} return 0, the others a status of their page's error table |",
        f"| wall time | {s['wall_seconds']} s ({', '.join(f'{k} {v} s' for k, v in s['stage_seconds'].items())}) |",
        f"| compile CPU time | {s['compile_cpu_seconds']} s, {s['compile_cpu_seconds_per_api']} s per compiled API, "
        f"{s['build_rounds']} build round(s) |",
        f"| peak memory (MiB) | {', '.join(f'{k} {v}' for k, v in s['peak_rss_mib'].items())} |",
        "",
    ]
    reasons = reason_counts(records)
    if reasons:
        lines += ["## Why not, by reason", "", "| count | reason |", "|---|---|"]
        lines += [f"| {n} | {reason.replace('|', '/')} |" for reason, n in reasons]
        lines.append("")
    lines += ["## Parameter kinds and page shapes, end to end", "",
              "Distinct generated APIs that use each; phase 1 ok: status 0 / a documented status.", "",
              "| feature | APIs | compiled | phase 1 status 0 | phase 1 documented status | failed |",
              "|---|---|---|---|---|---|"]
    for feature, row in feature_table(records).items():
        lines.append(f"| {feature} | " + " | ".join(str(row[c]) for c in FEATURE_COLUMNS) + " |")
    lines.append("")
    lines += ["## Per API", "", "| API | page | parsed | generated | compiled | simulated (phase 1) | why not |",
              "|---|---|---|---|---|---|---|"]
    for r in sorted(records, key=lambda r: (r.api or "~", r.page)):
        why = r.reason + (f" (bound from {r.bound_from})" if r.bound_from else "")
        lines.append(f"| {r.api or '—'} | {r.page} | {mark(r.parsed)} | {mark(r.generated)} | {mark(r.compiled)} | "
                     f"{mark(r.phase1_ok)} | {why.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


# ---- command line ---------------------------------------------------------------------------------------

class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _tqdm(iterable, desc: str, total: Optional[int] = None):
    from tqdm import tqdm

    if iterable is None:
        return tqdm(total=total, desc=desc, unit="api", file=sys.stderr)
    return tqdm(iterable, desc=desc, total=total, unit="page", file=sys.stderr)


def no_progress(iterable, desc: str, total: Optional[int] = None):
    return _NoBar() if iterable is None else iterable


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--phase1-worker"]:
        generated, listing, results, plans = argv[1:5]
        phase1_worker(Path(generated), Path(listing).read_text().split(), Path(results),
                      json.loads(Path(plans).read_text()))
        return 0
    parser = argparse.ArgumentParser(prog="python -m gen.corpus", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("doc_dir", nargs="?", default=str(shared_corpus()))
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--build", default="build/corpus", help="generated sources, CMake tree, phase-1 logs")
    parser.add_argument("--report-dir", default="build", help="where corpus-report.json and .md go")
    parser.add_argument("--limit", type=int, default=None, help="only the first N files (for development)")
    args = parser.parse_args(argv)
    records, figures = run(Path(args.doc_dir), Path(args.build), max(1, args.jobs), Path(args.report_dir),
                           limit=args.limit, log=lambda text: print(text, file=sys.stderr))
    summary = totals(records, figures)
    print(json.dumps({k: v for k, v in summary.items()}, indent=1))
    print(f"report: {Path(args.report_dir) / 'corpus-report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
