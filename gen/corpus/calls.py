"""The one call of an API that phase 1 judges: the valid call its generated test suite plans,
completed where the page leaves values unstated, made in a worker process.

It reaches into the generated suites' runtime on purpose: `BASE` of generated/tests/test_<op>.py,
built by their support module (`_aclnn_testing`), is the call the page documents; this module only
fills what that call cannot know (a chip the page supports, a string attribute's value, a rank
inside the documented bounds, out= arrays of a documented dtype).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

from gen import names
from gen.corpus.records import NOT_SIMULATED, PHASE1, first_line
from gen.model import BoundAPI

# Quoted values in a string attribute's row: "mean", `sum`.


_QUOTED = re.compile(r"[\"“`']([A-Za-z][\w-]*)[\"”`']")
# Unquoted lists of values: "none、sum 或 mean；默认 mean。"
_LISTED = re.compile(r"(?:^|[：:\s；;])([A-Za-z][\w-]*)\s*(?:[、,，/|]|或)")


def call_plan(bound: BoundAPI) -> dict:
    """What the worker needs from the IR beyond the generated suite: the chip to simulate (the
    default, unless the page marks it unsupported: then the first chip it supports), each tensor's
    documented rank bounds (inputs and outputs), and a value for each string attribute the example leaves
    unstated (the first word the page quotes in its row, `"mean"`, or lists, "none、sum 或 mean")."""
    from gen.ir import DEFAULT_SOC, ParamKind

    supported = [p.soc for p in bound.page.products if p.soc is not None and p.supported]
    unsupported = {p.soc for p in bound.page.products if p.soc is not None and bound.page.supports(p.soc) is False}
    # A page that supports no chip at all keeps the default (phase 1 then says it is unsupported).
    soc = supported[0] if supported and (DEFAULT_SOC in unsupported or DEFAULT_SOC not in supported) \
        else DEFAULT_SOC
    ranks = {p.name: list(p.rank) for p in bound.api.params if p.kind is ParamKind.TENSOR and p.rank}
    strings = {}
    for p in bound.api.inputs:
        if p.kind is ParamKind.STRING:
            text = f"{p.description} {p.usage}"
            found = _QUOTED.search(text) or _LISTED.search(text)
            if found:
                strings[p.name] = found.group(1)
    # The shape a host argument decides (a loss's out: one element unless reduction is none).
    shape_rules = [{"param": r.param, "when": r.when, "values": list(r.values), "negated": r.negated,
                    "scalar": r.form.value == "scalar", "others": list(r.others)} for r in bound.api.shape_rules
                   if r.form.value not in ("absent", "present")]  # a null pointer or not, not a shape
    return {"soc": soc.value, "ranks": ranks, "strings": strings, "shape_rules": shape_rules}


def phase1_worker(generated: Path, apis: Sequence[str], results: Path, plans: Optional[dict] = None) -> None:
    """Runs in its own process: one JSON line before (`start`) and after (`done`) each call, so
    that a crash leaves the API that caused it as the last started one."""
    plans = plans or {}
    sys.path[:0] = [str(generated), str(generated / "tests")]
    import aclnn  # noqa: F401 - the corpus package, first on sys.path
    import _aclnn_testing as t

    soc = t.active_soc()
    records = {r["name"]: r for r in t.aclnn.apis()}
    with results.open("a", encoding="utf-8") as out:
        for api in apis:
            out.write(json.dumps({"api": api, "event": "start"}) + "\n")
            out.flush()
            outcome = call_once(t, generated, api, soc, plans.get(api, {}))
            outcome.update(example_once(t, records.get(api)))
            out.write(json.dumps({"api": api, "event": "done", **outcome}) + "\n")
            out.flush()


def example_once(t, record: Optional[dict]) -> dict:
    """The API called with its page example's arguments (those `make demo` passes: gen.demo reads
    them from the IR's example call), and whether phase 1 accepted them: `example_phase1` True
    (phase 1 returned 0, whatever phase 2 did), False (it refused them: `example_message` says
    why), None when the example cannot be called (unread, or an argument the bindings refuse)."""
    from gen.demo import example_kwargs, example_outs

    if record is None:
        return {"example_phase1": None, "example_message": "not in the package's API list"}
    kwargs, why = example_kwargs(record)
    if kwargs is None:
        return {"example_phase1": None, "example_message": why}
    function = getattr(t.aclnn, record["python_name"])
    try:
        try:
            function(**kwargs)
        except TypeError as error:
            outs = example_outs(record)
            if "pass out=" not in str(error) or outs is None:
                raise
            function(**kwargs, out=outs)
    except t.aclnn.AclnnError as error:
        if error.phase == PHASE1:
            return {"example_phase1": False, "example_message": first_line(str(error))}
        return {"example_phase1": True, "example_message": f"phase 1 passed; {error.phase}: {first_line(str(error))}"}
    except BaseException as error:  # noqa: BLE001 - an argument the bindings refuse: no verdict on phase 1
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"example_phase1": None, "example_message": f"{type(error).__name__}: {first_line(str(error))}"}
    return {"example_phase1": True, "example_message": ""}


def call_once(t, generated: Path, api: str, soc: str, plan: dict) -> dict:
    """The valid call of the API's generated suite (`BASE`), completed where the page gives no
    value (`placeholders`); out= arrays are passed only when the bindings cannot allocate an
    output. What phase 1 returned (`status`), what phase 2 did (`phase2`: "ok", "not simulated",
    the status it returned, or None when it did not run) and whether the results equal the
    semantics file's golden on the same inputs (`golden_ok`: True, False, or None with
    `golden_reason` where there is no golden to compare with)."""
    test_file = generated / "tests" / names.test_file(api)
    expected: object = None
    try:
        spec = importlib.util.spec_from_file_location(test_file.stem, test_file)
        if spec is None or spec.loader is None:
            raise ImportError(f"{test_file}: not a loadable Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        op = module.OP
        case = placeholders(t, op, module.BASE, soc, plan)
        inputs = t.make_inputs(op, case, soc)
        ruled = ruled_shapes(plan.get("shape_rules", ()), getattr(case, "values", {}), inputs, plan.get("ranks"))
        # Before the call: an in-place call overwrites its inputs.
        expected = golden_of(t, op, case, inputs)
        # out= arrays the call passes take the golden's shapes where it has them (a reduction's).
        golden = {}
        if not isinstance(expected, str):
            ruled = {**result_shapes(op, expected), **ruled}
            golden = golden_dtypes(t, op, expected)
        if outputs_of_other_dtypes(t, op, case, soc):
            outs = explicit_outs(t, op, inputs, soc, plan.get("ranks"), ruled, tuple(case.dtypes.values()), golden)
            results = t.call(op, case, inputs, outs)
        else:
            try:
                outs = t.out_arrays(op, case, inputs, soc)
                results = t.call(op, case, inputs, outs)
            except TypeError as error:
                if "pass out=" not in str(error):
                    raise
                outs = explicit_outs(t, op, inputs, soc, plan.get("ranks"), ruled, tuple(case.dtypes.values()), golden)
                results = t.call(op, case, inputs, outs)
    except t.aclnn.AclnnError as error:
        if error.phase == PHASE1:
            return {"status": error.status, "message": str(error), **NOT_COMPARED}
        phase2 = NOT_SIMULATED if error.status == t.NOT_SIMULATED else error.status
        return {"status": 0, "message": f"phase 1 passed; {error.phase}: {error}", "phase2": phase2,
                "golden_ok": None, "golden_reason": "phase 2 did not compute"}
    except BaseException as error:  # noqa: BLE001 - anything else is this API's failure, reported
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"status": None, "message": f"{type(error).__name__}: {first_line(str(error))}", **NOT_COMPARED}
    return {"status": 0, "message": "", "phase2": "ok", **compared(t, op, case, inputs, outs, results, expected)}


NOT_COMPARED = {"phase2": None, "golden_ok": None, "golden_reason": "phase 2 did not run"}


def result_shapes(op, expected) -> dict:
    """The shape of each output tensor of the golden's results, by name (the results are the
    outputs and in-place tensors, in the page's order)."""
    import numpy as np

    return {p.name: tuple(np.shape(r)) for p, r in zip(op.results, expected) if p.kind == "tensor"}


def golden_of(t, op, case, inputs: dict) -> object:
    """The golden's results on the call's inputs (the generated suites' `golden_results`), or why
    there are none: a string. Never raises: a golden PyTorch cannot evaluate is a reason."""
    if not op.golden:
        return "no golden: the API has no semantics file with one"
    try:
        return t.golden_results(op, case, inputs)
    except BaseException as error:  # noqa: BLE001 - pytest's skip is a BaseException too
        if isinstance(error, KeyboardInterrupt):
            raise
        return f"the golden raised {type(error).__name__}: {first_line(str(error))}"


def compared(t, op, case, inputs: dict, outs, results: tuple, expected: object) -> dict:
    """Whether `results` equal the golden's `expected` as the generated suites judge it
    (`assert_results`: CANN's tolerances, looser for FLOAT16 and BFLOAT16; shapes and dtypes),
    an out= array's dtype being the one passed."""
    if isinstance(expected, str):
        return {"golden_ok": None, "golden_reason": expected}
    given = {p.name: (o[0] if o else None) if isinstance(o, list) else o for p, o in zip(op.outs, outs or [])}
    case = case.but(case.id, out={name: t.dtype_name(o.dtype) for name, o in given.items() if o is not None})
    try:
        # A random op's results follow the golden's law (its draw is PyTorch's generator's, not the device's).
        t.assert_results(op, case, inputs, outs, results, expected, by_law=op.law)
    except AssertionError as error:
        # NumPy's message: what differs, the result's name, then the largest differences.
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        return {"golden_ok": False, "golden_reason": first_line("; ".join(lines[:5]), limit=500)}
    except Exception as error:  # noqa: BLE001 - a comparison that cannot be made is no verdict
        return {"golden_ok": None, "golden_reason": f"no comparison: {type(error).__name__}: {first_line(str(error))}"}
    return {"golden_ok": True, "golden_reason": ""}


def placeholders(t, op, case, soc: str, plan: dict):
    """The suite's base case, completed where the page's example leaves a value unstated (the
    suite does not run such a case; phase 1 may still judge it): a dtype attribute gets the
    parameter's first documented dtype (else FLOAT), a string attribute the word its row quotes,
    and a tensor whose base shape has a rank outside its documented bounds the nearest rank."""
    from gen.api.calls import EXPRESSIBLE
    from gen.ir import DType

    values, shapes = {}, {}
    dtypes = documented_on(op, case, soc)
    for p in op.inputs:
        if p.name in case.none:
            continue
        if p.kind == "dtype" and case.values.get(p.name) is None:
            documented = [d for d in (op.documented(soc, p.name) or ()) if DType(d) in EXPRESSIBLE]
            values[p.name] = "FLOAT" if not documented or "FLOAT" in documented else documented[0]
        elif p.kind == "string" and case.values.get(p.name) is None and p.name in plan.get("strings", {}):
            values[p.name] = plan["strings"][p.name]
        elif p.kind == "tensor" and p.name in case.shapes:
            shape = within_ranks(case.shapes[p.name], plan.get("ranks", {}).get(p.name))
            if shape != case.shapes[p.name]:
                shapes[p.name] = shape
    changes = {k: v for k, v in (("values", values), ("shapes", shapes), ("dtypes", dtypes)) if v}
    return case.but(case.id, **changes) if changes else case


def documented_on(op, case, soc: str) -> dict:
    """The case's tensor dtypes moved to ones the page documents on `soc` where its own list there
    lacks them (aclnnBatchMatMul takes no FLOAT on Ascend910B): a dtype the chip lacks becomes the
    first the first such tensor lists that NumPy holds, for every tensor of that dtype that lists it."""
    from gen.api.calls import EXPRESSIBLE
    from gen.ir import DType

    moved: dict = {}
    for p in op.inputs:
        dtype = case.dtypes.get(p.name)
        listed = op.documented(soc, p.name) or ()
        if p.kind != "tensor" or dtype is None or not listed or dtype in listed or dtype in moved:
            continue
        other = next((d for d in listed if DType(d) in EXPRESSIBLE), None)
        if other is not None:
            moved[dtype] = other
    return {p.name: moved[d] for p in op.inputs if p.kind in ("tensor", "scalar")
            and (d := case.dtypes.get(p.name)) in moved and moved[d] in (op.documented(soc, p.name) or (moved[d],))}


def within_ranks(shape: tuple, bounds: Optional[Sequence[int]]) -> tuple:
    """`shape`, or the suites' shape of the nearest rank inside the documented `bounds` [low, high]."""
    from gen.api.calls import SHAPES

    if not bounds or bounds[0] <= len(shape) <= bounds[1]:
        return shape
    return SHAPES[min(max(len(shape), bounds[0]), bounds[1], max(SHAPES))]


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


def ruled_shapes(rules, values: dict, inputs: dict, ranks: Optional[dict] = None) -> dict:
    """The shape of each output whose shape rule applies to the call's host arguments (gen.ir.ShapeRule):
    one element, of the least rank the page allows it (`ranks`: () where it allows 0 dimensions,
    (1,) for aclnnDynamicQuantV4's pertensor scaleOut of 1-7), else the broadcast of the tensors it names."""
    import numpy as np

    shapes: dict = {}
    for rule in rules:
        value = values.get(rule["when"])
        if value is None or rule["param"] in shapes:
            continue
        text = str(int(value)) if isinstance(value, (bool, int)) else str(value)
        if (text in rule["values"]) == rule["negated"]:
            continue
        if rule["scalar"]:
            shapes[rule["param"]] = (1,) * max(0, (ranks or {}).get(rule["param"], (0,))[0])
            continue
        related = [np.shape(inputs[n]) for n in rule["others"] if inputs.get(n) is not None]
        try:
            shapes[rule["param"]] = np.broadcast_shapes(*related) if related else None
        except ValueError:
            continue
    return {k: v for k, v in shapes.items() if v is not None}


def golden_dtypes(t, op, expected) -> dict:
    """The dtype of each output tensor of the golden's results, by name (INT8 for a quantising op's
    yOut); none for the results whose dtype the package does not name."""
    import numpy as np

    found = {}
    for p, want in zip(op.results, expected):
        if p.kind == "tensor" and hasattr(want, "dtype"):
            try:
                found[p.name] = t.dtype_name(np.dtype(str(want.dtype).replace("torch.", "")))
            except (KeyError, TypeError, ValueError):
                continue
    return found


def explicit_outs(t, op, inputs: dict, soc: str, ranks: Optional[dict] = None, ruled: Optional[dict] = None,
                  input_dtypes: Sequence[str] = (), golden: Optional[dict] = None) -> list:
    """out= for every output: the broadcast shape of the inputs it is related to (else of the first
    tensor input; at the nearest rank the output's documented `ranks` allow), the golden's dtype where
    documented (INT8 where the chip lists INT4, INT32, INT8, ...), else its first documented dtype a
    host array can hold (FLOAT where documented; else one of the inputs' where documented:
    aclnnAddRmsNormCast's y2Out, FLOAT16 or BFLOAT16 as x1)."""
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
        if not related:  # nothing ties it to an input: at least a rank the page allows (gradWeight: 1)
            shape = within_ranks(tuple(shape), (ranks or {}).get(p.name))
        if ruled and p.name in ruled:  # a shape rule the call's arguments decide
            shape = ruled[p.name]
        documented = [d for d in (op.documented(soc, p.name) or ()) if d in holdable]
        shared = [d for d in documented if d in input_dtypes]
        dtype = holdable[(golden or {}).get(p.name) if (golden or {}).get(p.name) in documented else
                         "FLOAT" if not documented or "FLOAT" in documented else (shared or documented)[0]]
        arrays.append([np.zeros(shape, dtype) for _ in range(2)] if p.kind == "tensor_list" else np.zeros(shape, dtype))
    return arrays
