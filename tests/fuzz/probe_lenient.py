"""Phase 1's leniency probe: where the simulator's argument checks accept what a page says CANN refuses.

For every API of op_docs/ whose page example makes a call phase 1 accepts (the example's arguments,
as tests/support/phase1_probe.py passes them through the C ABI), the same call is made again with
one documented rule broken, and the probe lists the calls phase 1 still accepts. The rules broken
are the ones the page states, as the package binds them (a semantics file's client widenings, each
with its evidence that CANN admits more, are no leniency):

    null       a required pointer passed as NULL
    rank       a tensor one dimension above the rank its row allows
    dtype      a tensor of a dtype its row does not list for the chip
    range      a value range the parser read (gen.ir.ValueRange of numbers): a value just outside it, and
               NaN for a real argument (a float, a floating aclScalar)
    set        a value set (gen.ir.ValueSet): a value outside it
    negative   an error row that refuses a negative host argument ("p为负数或nan", "size、stride或
               storageOffset中存在负数"), read as a range or not: -1
    out_shape  an error row that refuses an output's shape: that output one element longer in its
               last dimension (a shape phase 1 can judge from the arguments alone)
    equal_size an integer whose row says it must equal a size ("outputSize必须等于self的元素个数 *
               repeats的值"): one more, and every output dimension of its value with it

A finding is a broken rule phase 1 accepts. Some are beyond phase 1: a size the device's data
decides (aclnnRepeatInterleaveTensor's outputSize is the sum of the counts in its repeats tensor);
the probe reports them with the rest, for the reader to judge.

    python -m tests.fuzz.probe_lenient [--soc Ascend910B] [--api NAME ...] [--verbose]

Needs the package of op_docs/ built (make build). tests/fuzz/test_probe_lenient.py runs it over
a fixed set of APIs whose rules must all be refused.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence

from gen.ir import (DEFAULT_SOC, API, Direction, DType, ErrorCategory, ExampleArg, Extent, Page, Param, ParamKind,
                    ProductDTypes, Soc)
from tests.support import phase1_probe
from tests.support.op_docs_process import PACKAGE

# The rule kinds, in the order they are made (the module's docstring says what each breaks).
KINDS = ("null", "rank", "dtype", "range", "set", "negative", "out_shape", "equal_size")
# The dtype given in place of a listed one: the first of these the row does not list.
_OTHER_DTYPES = (DType.FLOAT, DType.INT32, DType.BOOL, DType.DOUBLE, DType.INT8, DType.COMPLEX64)

# An error row refusing a negative value: "p为负数或nan", "存在负数", "is negative", "小于0".
_NEGATIVE = re.compile(r"负数|为负|是负|小于\s*0(?![.\d])|\bnegative\b", re.I)
# A row that states an integer equals a size: "outputSize必须等于self的元素个数 * repeats的值",
# "outputSize值必须为repeats * self的dim维度size".
_MUST_EQUAL = re.compile(r"(?:必须|需要|需|应)等于|(?:必须|需要|需|应)为[^，。；]*?(?:\*|×|之和|求和|元素个数|维度的?size)|"
                         r"must\s+(?:be\s+)?equal", re.I)
# The host arguments whose values the probe varies.
_VALUED = (ParamKind.INT, ParamKind.FLOAT, ParamKind.SCALAR, ParamKind.INT_ARRAY)


@dataclass(frozen=True)
class Probe:
    """One call: an API's example with one rule broken (`kind` None: the example as it is)."""

    api: str
    kind: Optional[str]
    rule: str  # what is broken, with the page line that states it
    args: tuple[Any, ...]


def _argument(param: Param, given: Optional[ExampleArg]) -> Any:
    """The example's argument for `param` in phase1_probe's description; None where it passes none."""
    if given is None:
        return None
    kind = param.kind
    if kind is ParamKind.TENSOR:
        return phase1_probe.tensor(given.shape or (), given.dtype.value if given.dtype else "FLOAT")
    if kind is ParamKind.TENSOR_LIST:
        return phase1_probe.tensors([_argument(replace(param, kind=ParamKind.TENSOR), m) for m in given.members])
    if kind is ParamKind.SCALAR:
        return phase1_probe.scalar(given.values[0] if given.values else 0, given.dtype.value if given.dtype else "FLOAT")
    if kind is ParamKind.SCALAR_LIST:
        return phase1_probe.scalars([_argument(replace(param, kind=ParamKind.SCALAR), m) for m in given.members])
    if kind is ParamKind.INT_ARRAY:
        return phase1_probe.ints(*(int(v) for v in given.values))
    if kind is ParamKind.FLOAT_ARRAY:
        return phase1_probe.floats(*given.values)
    if kind is ParamKind.BOOL_ARRAY:
        return phase1_probe.bools(*(bool(v) for v in given.values))
    if kind is ParamKind.STRING:
        return phase1_probe.string(given.text or "")
    if kind is ParamKind.DTYPE:
        return phase1_probe.dtype(given.dtype.value if given.dtype else "FLOAT")
    if kind is ParamKind.BOOL:
        return bool(given.values[0]) if given.values else False
    if kind is ParamKind.INT:
        return int(given.values[0]) if given.values else 0
    return float(given.values[0]) if given.values else 0.0


def base_call(api: API) -> Optional[tuple[Any, ...]]:
    """The example's call as phase1_probe passes it; None where the page gives none or it lacks a
    required argument."""
    call = api.example_call
    if call is None:
        return None
    args = []
    for param in api.params:
        given = call.arg(param.name)
        pointer = param.kind is not None and param.kind.is_pointer
        if given is None and (not pointer or (not param.optional and param.name not in call.null_params)):
            return None
        args.append(_argument(param, given))
    return tuple(args)


def _value_of(arg: Any) -> Optional[float]:
    """A host argument's one value (an int, a float, a scalar's), None for others."""
    if isinstance(arg, bool) or arg is None:
        return None
    if isinstance(arg, (int, float)):
        return float(arg)
    if isinstance(arg, dict) and "scalar" in arg:
        return float(arg["scalar"])
    return None


def _with_value(param: Param, arg: Any, value: float) -> Any:
    """`arg` of `param` holding `value` (every element, for an int array)."""
    if param.kind is ParamKind.INT:
        return int(value)
    if param.kind is ParamKind.FLOAT:
        return float(value)
    if param.kind is ParamKind.SCALAR:
        dtype = arg["dtype"] if isinstance(arg, dict) else "FLOAT"
        integral = dtype.startswith(("INT", "UINT")) or dtype == "BOOL"
        return phase1_probe.scalar(int(value) if integral else float(value), dtype if dtype != "BOOL" else "INT64")
    length = len(arg["ints"]) if isinstance(arg, dict) and arg.get("ints") else 1
    return phase1_probe.ints(*([int(value)] * length))


def _integral(param: Param, arg: Any) -> bool:
    if param.kind in (ParamKind.INT, ParamKind.INT_ARRAY):
        return True
    return param.kind is ParamKind.SCALAR and isinstance(arg, dict) and not str(arg["dtype"]).startswith(
        ("FLOAT", "DOUBLE", "BFLOAT", "COMPLEX"))


def _outside_range(api: API, args: Sequence[Any], soc: Soc) -> Iterator[tuple[str, int, float, int]]:
    """(parameter, its index, a value outside a numeric range the page states of it, the range's line)."""
    index = {p.name: i for i, p in enumerate(api.params)}
    params = {p.name: p for p in api.params}
    for rule in api.value_ranges:
        param = params.get(rule.param)
        if param is None or param.kind not in _VALUED or rule.elements is not None:
            continue
        if rule.products and soc not in rule.products:
            continue
        if rule.when is not None and _value_of(args[index[rule.when.param]]) != rule.when.value:
            continue
        integral = _integral(param, args[index[param.name]])
        for bound, sign in ((rule.low, -1), (rule.high, 1)):
            if bound is None or bound.extent is not Extent.NUMBER:
                continue
            step = 1.0 if integral else max(abs(bound.offset) * 1e-3, 1e-3)
            value = bound.offset + sign * (step if bound.inclusive else 0.0)
            if integral and value != int(value):
                value = float(int(value) + (sign if value * sign > 0 else 0))
            yield param.name, index[param.name], value, rule.line
        if not integral and any(b is not None and b.extent is Extent.NUMBER for b in (rule.low, rule.high)):
            # A NaN lies in no range of numbers (gen.ir.ValueRange.refuses).
            yield param.name, index[param.name], math.nan, rule.line


def _said_negative(condition: str, names: Sequence[str]) -> list[str]:
    """The names an error row says are negative: the list just before the word ("k小于0或者k大于...
    dim维度上的size" says k, not dim; "size、stride或storageOffset中存在负数" says all three)."""
    if not names:
        return []
    name = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    listed = re.compile(rf"(?<![A-Za-z0-9_])((?:{name})(?:\s*(?:、|,|，|或者|或|和|与|及|\bor\b|\band\b)\s*(?:{name}))*)"
                        rf"\s*(?:中|的)?\s*(?:存在|含有|有|为|是|的值|值|is|are|has)?\s*$", re.I)
    said: list[str] = []
    for match in _NEGATIVE.finditer(condition):
        before = listed.search(condition[:match.start()])
        if before is not None:
            said.extend(n for n in re.findall(name, before.group(1)) if n not in said)
    return said


def _tensor_mutations(api: API, base: Sequence[Any], soc: Soc) -> Iterator[tuple[str, str, int, Any]]:
    """(kind, rule, index, argument) of the null, rank and dtype rules of the API's own rows."""
    for i, param in enumerate(api.params):
        arg = base[i]
        if param.kind is not None and param.kind.is_pointer and not param.optional and arg is not None and \
                not param.must_be_null:
            yield "null", f"{param.name} NULL (line {param.line})", i, None
        if not isinstance(arg, dict) or not ("tensor" in arg or "scalar" in arg):
            continue
        if "tensor" in arg and param.rank is not None and param.rank[1] < 8:
            shape = [1] * (param.rank[1] + 1 - len(arg["tensor"])) + list(arg["tensor"])
            yield "rank", f"{param.name} of rank {len(shape)} outside {list(param.rank)} (line {param.line})", i, \
                {**arg, "tensor": shape}
        listed = param.dtypes_for(soc)
        other = next((d for d in _OTHER_DTYPES if d not in listed), None)
        if listed and other is not None and "tensor" in arg:
            yield "dtype", f"{param.name} {other.value} outside {[d.value for d in listed]} (line {param.line})", i, \
                {**arg, "dtype": other.value}


def probes(api: API, soc: Soc) -> list[Probe]:
    """The API's example and each of its documented rules broken; [] where it has no example."""
    base = base_call(api)
    if base is None:
        return []
    out = [Probe(api.name, None, "the example", base)]

    def broken(kind: str, rule: str, changes: dict[int, Any]) -> None:
        args = list(base)
        for i, value in changes.items():
            args[i] = value
        if tuple(args) != base:
            out.append(Probe(api.name, kind, rule, tuple(args)))

    for kind, what, i, arg in _tensor_mutations(api, base, soc):
        broken(kind, what, {i: arg})
    index = {p.name: i for i, p in enumerate(api.params)}
    params = {p.name: p for p in api.params}
    for name, i, value, line in _outside_range(api, base, soc):
        if base[i] is not None:
            broken("range", f"{name} = {value:g} (line {line})", {i: _with_value(api.params[i], base[i], value)})
    for listed in api.value_sets:
        param = params.get(listed.param)
        if param is None or param.kind not in _VALUED or (listed.products and soc not in listed.products):
            continue
        if base[index[param.name]] is None:
            continue
        outside = max(listed.values) + 1
        broken("set", f"{param.name} = {outside} outside {list(listed.values)} (line {listed.line})",
               {index[param.name]: _with_value(param, base[index[param.name]], outside)})
    for row in api.errors:
        if row.category is ErrorCategory.VALUE and _NEGATIVE.search(row.condition):
            for name in _said_negative(row.condition, row.params):
                param = params.get(name)
                if param is None or param.kind not in _VALUED or base[index[name]] is None:
                    continue
                broken("negative", f"{name} = -1: \"{row.condition}\" (line {row.line})",
                       {index[name]: _with_value(param, base[index[name]], -1)})
        if row.category is ErrorCategory.SHAPE_MISMATCH:
            for name in row.params:
                param = params.get(name)
                arg = base[index[name]] if param is not None else None
                if param is None or param.direction is Direction.IN or not isinstance(arg, dict) or "tensor" not in arg:
                    continue
                shape = list(arg["tensor"]) or [0]
                shape[-1] += 1
                broken("out_shape", f"{name} of shape {shape}: \"{row.condition}\" (line {row.line})",
                       {index[name]: {**arg, "tensor": shape}})
    for param in api.params:
        if param.kind is not ParamKind.INT or not _MUST_EQUAL.search(f"{param.description} {param.usage}"):
            continue
        old = base[index[param.name]]
        changes: dict[int, Any] = {index[param.name]: old + 1}
        for i, other in enumerate(api.params):
            arg = base[i]
            if other.direction is not Direction.IN and isinstance(arg, dict) and "tensor" in arg:
                changes[i] = {**arg, "tensor": [old + 1 if d == old else d for d in arg["tensor"]]}
        broken("equal_size", f"{param.name} = {old + 1}, outputs alike (line {param.line})", changes)
    return out


def bound_apis(names: Optional[Iterable[str]] = None, soc: Optional[Soc] = None) -> list[tuple[API, Soc]]:
    """Each API the package probed binds (ACLNN_OP_DOCS_PACKAGE_DIR, else generated/; `names` only,
    where given), from the IR of the page it binds it from (two pages may state one API:
    leaky_relu_backward.md and .web.txt), with the chip to probe it on."""
    with open(PACKAGE / "aclnn" / "_apis.json", encoding="utf-8") as f:
        bound = {api["name"]: api for api in json.load(f)["apis"]}
    wanted = set(bound) if names is None else set(names)
    out: list[tuple[API, Soc]] = []
    for page_source in sorted({bound[name]["source"] for name in wanted if name in bound}):
        # op_docs/derived/aclStft.md -> ir/derived/aclStft.md.json
        path = PACKAGE / "ir" / (Path(page_source).relative_to(Path(page_source).parts[0]).as_posix() + ".json")
        page = Page.from_json(path.read_text(encoding="utf-8"))
        chip = chip_of(page, soc)
        if chip is not None:
            out.extend((_as_bound(api, bound[api.name]), chip) for api in page.apis
                       if api.name in wanted and bound[api.name]["source"] == page.source)
    return out


def _as_bound(api: API, bound: dict[str, Any]) -> API:
    """The page's API with the parameter facts the package binds: a semantics file's client_optional,
    client_ranks and client_dtypes widen the table where a framework's calls show CANN admits more
    (gen.model, each a warning naming its evidence), which is no leniency of phase 1."""
    facts = {p["name"]: p for p in bound["params"]}
    params = []
    for param in api.params:
        fact = facts.get(param.name)
        if fact is None:
            params.append(param)
            continue
        by_product = tuple(ProductDTypes(Soc(soc), tuple(DType(d) for d in dtypes))
                           for soc, dtypes in fact["dtypes_by_product"].items())
        params.append(replace(param, optional=fact["optional"], rank=tuple(fact["rank"]) if fact["rank"] else None,
                              dtypes=tuple(DType(d) for d in fact["dtypes"]), dtypes_by_product=by_product))
    return replace(api, params=tuple(params))


@dataclass(frozen=True)
class Result:
    probed: tuple[str, ...]  # the APIs whose example phase 1 accepts, which were probed
    refused: int  # the broken rules phase 1 refused
    findings: tuple[Probe, ...]  # the broken rules it accepted


def chip_of(page: Page, soc: Optional[Soc] = None) -> Optional[Soc]:
    """The chip to probe a page's APIs on: `soc`, else the default chip where the page supports it,
    else the first chip it supports; None where it supports none of them (or not `soc`)."""
    if soc is not None:
        return soc if page.supports(soc) is not False else None
    if page.supports(DEFAULT_SOC) is not False:
        return DEFAULT_SOC
    return next((product.soc for product in page.products if product.supported and product.soc is not None), None)


def run(apis: Iterable[tuple[API, Soc]]) -> Result:
    """Every probe of each API on its chip's phase 1, the examples first."""
    made = {api.name: (probes(api, soc), soc) for api, soc in apis}
    examples = [(calls[0], soc) for calls, soc in made.values() if calls]
    accepted = {probe.api for (probe, _), (status, _) in zip(examples, _statuses(examples)) if status == 0}
    broken = [(probe, made[name][1]) for name in sorted(accepted) for probe in made[name][0][1:]]
    statuses = _statuses(broken)
    findings = tuple(probe for (probe, _), (status, _) in zip(broken, statuses) if status == 0)
    return Result(tuple(sorted(accepted)), sum(1 for status, _ in statuses if status != 0), findings)


def _statuses(calls: Sequence[tuple[Probe, Soc]]) -> list[tuple[int, str]]:
    """Phase 1's (status, message) of each call on its chip, in order."""
    out: dict[int, tuple[int, str]] = {}
    for soc in dict.fromkeys(soc for _, soc in calls):
        mine = [i for i, (_, chip) in enumerate(calls) if chip is soc]
        found = phase1_probe.statuses([(calls[i][0].api, list(calls[i][0].args)) for i in mine], soc=soc.value)
        out.update(zip(mine, found))
    return [out[i] for i in range(len(calls))]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--soc", choices=[s.value for s in Soc],
                        help="probe on this chip only (default: each page on the default chip, or the first it supports)")
    parser.add_argument("--api", action="append", help="probe these APIs only")
    parser.add_argument("--verbose", action="store_true", help="list the APIs probed too")
    options = parser.parse_args(argv)
    result = run(bound_apis(options.api, Soc(options.soc) if options.soc else None))
    for probe in result.findings:
        print(f"ACCEPTED {probe.api} [{probe.kind}] {probe.rule}")
    if options.verbose:
        print("probed:", " ".join(result.probed))
    print(f"{len(result.findings)} findings over {len(result.probed)} APIs probed; {result.refused} broken rules refused")
    return 1 if result.findings else 0


if __name__ == "__main__":
    sys.exit(main())
