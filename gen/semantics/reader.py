"""Reading a semantics file (`semantics/*.toml`, the library of what the simulator computes) into
`OpSemantics`.

A file states what pages say only in prose and formulas. One table per API, keyed by its name:

    [aclnnLeakyReluBackward]
    # C++ expression of one output element; tensor elements and scalars are of the compute
    # type T, bool/int/float attributes keep their C types; `<tensor>_dtype` is an input tensor's
    # aclDataType (BOOL's bitwise not is the logical one).
    kernel = "self > 0 ? gradOutput : gradOutput * negativeSlope"
    # Optional: the kernel for complex compute types (std::complex<float>/<double>), for pages that
    # list COMPLEX64/COMPLEX128 where `kernel` does not hold on complex values; "" = not simulated
    # in complex arithmetic. Absent: `kernel` serves complex values too.
    kernel_complex = "..."
    complex_result = "real"           # optional: the complex kernel's result is real (|z|)
    integral_result = "floating"      # optional: integral and bool inputs give FLOAT (true division)
    result = "bool"                   # optional: the result is BOOL whatever the inputs (comparisons);
                                      # "complex": real inputs give the complex dtype of their precision,
                                      # computed in complex arithmetic (kernel_complex: aclnnComplex)
    # Python expression over torch tensors and Python values, named as the page names them
    # (`torch`, `math`, and `exact` of runtime/python/tests/_goldens.py for the ops whose
    # PyTorch result depends on its kernel path: exact.fmod, exact.remainder; `dtype_of[name]`,
    # a tensor's own dtype, the golden's being the compute dtype: float for FLOAT16).
    golden = "torch.ops.aten.leaky_relu_backward(gradOutput, self, negativeSlope, selfIsResult)"
    integer_math = "float"            # or "exact": integral dtypes computed in int64
    exact = true                      # optional: the result is PyTorch's bit for bit (abs, neg)
    law = true                        # optional, random ops: the golden is a draw of the same law
                                      # (PyTorch's CPU generator); results compare by law, and must
                                      # repeat for one seed and offset and change with the offset
    invariant = "..."                 # optional, with law: a Python expression over the inputs and
                                      # results that every draw satisfies (randperm's sorted values)
    errata = ["..."]                  # where the page is wrong: reported as warnings
    table_over_example = true         # optional: where the page's example breaks its table, the table
                                      # holds (CANN refuses the example's call); else the example widens it
    # Optional: dtypes a framework built against real CANN passes where the table or a "数据类型与x
    # 一致" relation refuses them, admitted with the evidence named (gen.model.client_evidence).
    client_dtypes = { meanOut = ["FLOAT"] }
    client_evidence = "torch_npu 2.13 op-plugin LayerNormKernelNpuOpApi.cpp: FLOAT statistics"
    # Likewise client_optional (pointers it passes NULL), client_ranks ({ x = [lo, hi] }),
    # client_broadcast (tensors whose "shape与x一致" relations it passes broadcasting shapes to) and
    # client_tensor_for_list (aclTensorList parameters it passes one aclTensor for: the list of it) and
    # client_empty (outputs the page refuses empty that it passes empty, where a flag lets the caller skip them).
    # Optional: what the kernel reads for an optional tensor input passed as null, the identity of
    # what it bounds by: "lowest" or "highest" of the compute type (±infinity for floating ones).
    absent = { clipValueMin = "lowest", clipValueMax = "highest" }

    [aclnnLeakyReluBackward.domain]   # value ranges for generated test data
    self = [-4.0, 4.0]

    [[aclnnLeakyReluBackward.checks]] # value checks the page states in prose (phase 1)
    when = "selfIsResult && negativeSlope < 0"
    message = "negativeSlope must not be negative when selfIsResult is true"
    status = 161002

An API that is not elementwise names a kernel family of the simulator instead (gen.families):

    [aclnnReduceSum]
    family = "reduce"
    op = "sum"
    roles = { dim = "dims", keepdim = "keepDims" }   # role = the page's parameter; a role left
                                                     # out is the parameter of the same name
    options = { correction = 1 }                     # numbers the page has no parameter for
    golden = "torch.sum(self, dim=list(dims), keepdim=keepDims)"
    call = { self = [3, 4], dims = [1], keepDims = false }   # a valid call for the tests: a shape
                                                     # per tensor, a value per other parameter

A malformed file never raises: what can be read is returned, the rest is diagnosed.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from gen import families
from gen.ir import ArgValue, ClientDTypes, Diagnostic, DType, InputDomain, IntegerMath, Level, OpSemantics, ResultRule, ValueCheck

# What an elementwise kernel may read for an absent optional tensor input (OpSemantics.absent).
ABSENT_VALUES = ("lowest", "highest")

_KNOWN_KEYS = {"kernel", "kernel_complex", "complex_result", "integral_result", "result", "golden", "integer_math",
               "exact", "errata", "domain", "checks", "family", "op", "roles", "options", "call", "optional_call", "table_over_example",
               "absent", "client_dtypes", "client_optional", "client_ranks", "client_broadcast", "client_tensor_for_list",
               "client_empty", "client_evidence", "law", "invariant"}
_CHECK_KEYS = {"when", "message", "status", "violation"}


@dataclass(frozen=True)
class SemanticsFile:
    source: str
    ops: tuple[OpSemantics, ...]
    diagnostics: tuple[Diagnostic, ...]


def load_semantics(path: str | Path, source: Optional[str] = None) -> SemanticsFile:
    """`source`: how diagnostics and generated files name the file (default: the path as given)."""
    path = Path(path)
    source = source or str(path)
    diags: list[Diagnostic] = []
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        return SemanticsFile(source, (), (Diagnostic(Level.ERROR, 1, "semantics-unreadable", str(exc)),))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_from_message(str(exc))
        return SemanticsFile(source, (), (Diagnostic(Level.ERROR, line, "semantics-syntax", str(exc)),))

    lines = _Lines(text.splitlines())
    ops = []
    for api, table in data.items():
        line = lines.table(api)
        if not isinstance(table, dict):
            diags.append(Diagnostic(Level.ERROR, line, "semantics-shape", f"{api}: expected a table"))
            continue
        op = _read_op(api, table, source, line, lines, diags)
        if op is not None:
            ops.append(op)
    return SemanticsFile(source, tuple(ops), tuple(diags))


def _read_op(api: str, table: dict[str, Any], source: str, line: int, lines: _Lines,
             diags: list[Diagnostic]) -> OpSemantics | None:
    def bad(message: str, at: int = line) -> None:
        diags.append(Diagnostic(Level.ERROR, at, "semantics-value", f"{api}: {message}"))

    for key in sorted(set(table) - _KNOWN_KEYS):
        diags.append(Diagnostic(Level.WARNING, line, "semantics-unknown-key", f"{api}: unknown key {key!r}"))

    kernel = table.get("kernel", "")
    golden = table.get("golden", "")
    if not isinstance(kernel, str) or not isinstance(golden, str):
        bad("kernel and golden are strings")
        return None
    kernel_complex = table.get("kernel_complex")
    if kernel_complex is not None and not isinstance(kernel_complex, str):
        bad("kernel_complex is a string")
        kernel_complex = ""  # not simulated in complex arithmetic rather than a wrong kernel
    complex_result = table.get("complex_result", "complex")
    if complex_result not in ("complex", "real"):
        bad("complex_result is \"complex\" or \"real\"")
        complex_result = "complex"
    integral_result = table.get("integral_result", "integral")
    if integral_result not in ("integral", "floating"):
        bad("integral_result is \"integral\" or \"floating\"")
        integral_result = "integral"
    result = table.get("result", "promoted")
    if result not in ("promoted", "bool", "complex"):
        bad("result is \"promoted\", \"bool\" or \"complex\"")
        result = "promoted"
    if result == "bool" and (integral_result, complex_result) != ("integral", "complex"):
        diags.append(Diagnostic(Level.WARNING, line, "semantics-value",
                                f"{api}: result = \"bool\" is BOOL whatever the inputs: integral_result and "
                                "complex_result change nothing"))
    try:
        integer_math = IntegerMath(table.get("integer_math", "float"))
    except ValueError:
        bad(f"integer_math is one of {[m.value for m in IntegerMath]}")
        integer_math = IntegerMath.FLOAT
    exact = table.get("exact", False)
    if not isinstance(exact, bool):
        bad("exact is true or false")
        exact = False
    law = table.get("law", False)
    invariant = table.get("invariant", "")
    if not isinstance(law, bool) or not isinstance(invariant, str):
        bad("law is true or false, invariant a string")
        law, invariant = False, ""
    if invariant and not law:
        bad("invariant is what every draw of a random op (law = true) satisfies")
        invariant = ""
    table_over_example = table.get("table_over_example", False)
    if not isinstance(table_over_example, bool):
        bad("table_over_example is true or false")
        table_over_example = False
    errata = table.get("errata", [])
    if not (isinstance(errata, list) and all(isinstance(e, str) for e in errata)):
        bad("errata is a list of strings")
        errata = []

    client_dtypes = []
    for name, listed in (table.get("client_dtypes") or {}).items():
        known = {d.value: d for d in DType}
        dtypes = ([known.get(n) for n in listed]
                  if isinstance(listed, list) and all(isinstance(n, str) for n in listed) else None)
        if not dtypes or None in dtypes:
            bad(f"client_dtypes.{name} is a list of dtype names (FLOAT, FLOAT16, ...)")
            continue
        client_dtypes.append(ClientDTypes(param=name, dtypes=tuple(d for d in dtypes if d is not None)))

    def names(key: str) -> list[str]:
        value = table.get(key, [])
        if not (isinstance(value, list) and all(isinstance(n, str) for n in value)):
            bad(f"{key} is a list of parameter names")
            return []
        return value

    client_optional = names("client_optional")
    client_ranks = []
    for name, bounds in (table.get("client_ranks") or {}).items():
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, int) for b in bounds)
                and 0 <= bounds[0] <= bounds[1]):
            bad(f"client_ranks.{name} is [low, high], 0 <= low <= high")
            continue
        client_ranks.append(ArgValue(name, (bounds[0], bounds[1])))
    client_broadcast = names("client_broadcast")
    client_tensor_for_list = names("client_tensor_for_list")
    client_empty = names("client_empty")
    client_evidence = table.get("client_evidence", "")
    widens = bool(client_dtypes or client_optional or client_ranks or client_broadcast or client_tensor_for_list
                  or client_empty)
    if widens and not (isinstance(client_evidence, str) and client_evidence.strip()):
        bad("client_dtypes, client_optional, client_ranks, client_broadcast, client_tensor_for_list and client_empty "
            "need client_evidence: which framework makes the call, and where")
        client_dtypes, client_optional, client_ranks, client_broadcast, client_tensor_for_list = [], [], [], [], []
        client_empty = []
        widens = False

    domains = []
    for name, bounds in (table.get("domain") or {}).items():
        ok = isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, (int, float)) for b in bounds)
        if not ok or not bounds[0] < bounds[1]:
            bad(f"domain.{name} is [low, high] with low < high")
            continue
        domains.append(InputDomain(param=name, low=float(bounds[0]), high=float(bounds[1])))

    checks = []
    check_line = line
    for entry in table.get("checks") or []:
        check_line = lines.check(api, after=check_line)
        if not isinstance(entry, dict) or not isinstance(entry.get("when"), str) or not entry.get("when"):
            bad("each check has a 'when' expression", check_line)
            continue
        for key in sorted(set(entry) - _CHECK_KEYS):
            diags.append(Diagnostic(Level.WARNING, check_line, "semantics-unknown-key", f"{api}: unknown check key {key!r}"))
        status = entry.get("status", ValueCheck.status)
        if not isinstance(status, int) or status <= 0:
            bad("a check's status is a positive aclnn status code", check_line)
            continue
        violation = entry.get("violation", {})
        if not isinstance(violation, dict) or not all(
                isinstance(v, (bool, int, float)) or _is_int_list(v) for v in violation.values()):
            bad("a check's violation is a table of parameter = bool, number or list of ints (an int array)", check_line)
            continue
        checks.append(ValueCheck(when=entry["when"], message=str(entry.get("message", entry["when"])),
                                 status=status, line=check_line,
                                 violation=tuple(ArgValue(k, _frozen(v)) for k, v in violation.items())))

    family, op, roles, options = _read_family(table, bad)
    family_row = families.family(family) if family else None
    op_row = family_row.op(op) if family_row is not None else None
    applies_kernel = op_row is not None and op_row.kernel
    if family and kernel and not applies_kernel:
        bad("states both a kernel and a family: an API has one of them (unless its family applies kernels)")
        family, op, roles, options = "", "", (), ()
    elif applies_kernel and not kernel:
        bad(f"op {op} of family {family} applies the file's kernel: state one")
    absent = table.get("absent", {})
    if not isinstance(absent, dict) or not all(v in ABSENT_VALUES for v in absent.values()):
        bad(f"absent is a table of optional tensor input = one of {list(ABSENT_VALUES)}")
        absent = {}
    call = table.get("call", {})
    if not isinstance(call, dict) or not all(_is_call_value(v) for v in call.values()):
        bad("call is a table of parameter = a shape (list of ints), a list of shapes, or a value")
        call = {}
    optional_call = table.get("optional_call", {})
    if not isinstance(optional_call, dict) or not all(_is_call_value(v) for v in optional_call.values()):
        bad("optional_call is a table of optional tensor = a shape (list of ints) or a list of shapes")
        optional_call = {}
    if set(optional_call) & set(call):
        bad(f"optional_call gives {sorted(set(optional_call) & set(call))} a shape call gives already")
        optional_call = {k: v for k, v in optional_call.items() if k not in call}

    return OpSemantics(api=api, source=source, kernel=kernel, kernel_complex=kernel_complex,
                       result_rule=ResultRule.of(integral_to_float=integral_result == "floating",
                                                 complex_to_real=complex_result == "real", always_bool=result == "bool",
                                                 real_to_complex=result == "complex"),
                       golden=golden,
                       integer_math=integer_math, exact=exact,
                       checks=tuple(checks), domains=tuple(domains), errata=tuple(errata), line=line,
                       family=family, op=op, roles=roles, options=options,
                       call=tuple(ArgValue(k, _frozen(v)) for k, v in call.items()),
                       optional_call=tuple(ArgValue(k, _frozen(v)) for k, v in optional_call.items()),
                       table_over_example=table_over_example, client_dtypes=tuple(client_dtypes),
                       client_optional=tuple(client_optional), client_ranks=tuple(client_ranks),
                       client_broadcast=tuple(client_broadcast), client_tensor_for_list=tuple(client_tensor_for_list),
                       client_empty=tuple(client_empty),
                       client_evidence=client_evidence if widens else "",
                       law=law, invariant=invariant, absent=tuple(ArgValue(k, v) for k, v in absent.items()))


def _read_family(table: dict[str, Any], bad) -> tuple[str, str, tuple[ArgValue, ...], tuple[ArgValue, ...]]:
    """The family, op, roles and options of a table, checked against gen.families; ("", "", (), ())
    when it names none or names one wrongly (then the API is not simulated, and the file is diagnosed)."""
    name = table.get("family", "")
    if not name:
        for key in ("op", "roles", "options"):
            if key in table:
                bad(f"{key} without a family")
        return "", "", (), ()
    known = families.family(name) if isinstance(name, str) else None
    if known is None:
        bad(f"family is one of {[f.name for f in families.FAMILIES]}")
        return "", "", (), ()
    op = table.get("op", "")
    if not isinstance(op, str) or known.op(op) is None:
        bad(f"op of family {name} is one of {list(known.op_names)}")
        return "", "", (), ()
    roles = table.get("roles", {})
    if not isinstance(roles, dict) or not all(isinstance(v, str) for v in roles.values()):
        bad("roles is a table of role = the page's parameter name")
        return "", "", (), ()
    unknown = sorted(set(roles) - set(known.roles))
    if unknown:
        bad(f"family {name} has no role {', '.join(unknown)} (its roles: {', '.join(known.roles)})")
        return "", "", (), ()
    options = table.get("options", {})
    if not isinstance(options, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in options.values()):
        bad("options is a table of option = number")
        return "", "", (), ()
    unknown = sorted(set(options) - set(known.options))
    if unknown:
        bad(f"family {name} has no option {', '.join(unknown)} (its options: {', '.join(known.options) or 'none'})")
        return "", "", (), ()
    return (name, op, tuple(ArgValue(k, v) for k, v in roles.items()),
            tuple(ArgValue(k, float(v)) for k, v in options.items()))


def _is_call_value(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, list) and all(_is_call_value(v) and not isinstance(v, str) for v in value)


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _frozen(value: Any) -> Any:
    """Lists as tuples, so that the frozen IR stays hashable."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


class _Lines:
    """Where a file's tables are: an API's ("[aclnnX]"), its checks' ("[[aclnnX.checks]]").

    Their header lines are indexed by name in one pass, with one pattern of each kind: a pattern per
    API, scanning every line, was 900 compiles in a regeneration. A name that is no identifier (a
    quoted key of any text) is looked for with its own pattern, as it was."""

    _TABLE = re.compile(r"^\s*\[\s*\"?([A-Za-z0-9_]+)\"?\s*\]")
    _CHECKS = re.compile(r"^\s*\[\[\s*\"?([A-Za-z0-9_]+)\"?\.checks\s*\]\]")
    _NAME = re.compile(r"[A-Za-z0-9_]+")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._tables = self._index(self._TABLE)
        self._checks = self._index(self._CHECKS)

    def _index(self, header: re.Pattern[str]) -> dict[str, list[int]]:
        # A header's name is the whole identifier after "[" (and a quote): a pattern of one name
        # matches a line where that name is followed by what closes the header, which an identifier
        # character is not.
        found: dict[str, list[int]] = {}
        for number, text in enumerate(self.lines, start=1):
            named = header.match(text)
            if named:
                found.setdefault(named.group(1), []).append(number)
        return found

    def table(self, api: str) -> int:
        """The line of the API's table (1 when none is found)."""
        return self._first(api, self._tables, rf"^\s*\[\s*\"?{re.escape(api)}\"?\s*\]", 0)

    def check(self, api: str, after: int) -> int:
        """The line of the API's first checks entry after line `after` (`after`, or 1, when none is)."""
        return self._first(api, self._checks, rf"^\s*\[\[\s*\"?{re.escape(api)}\"?\.checks\s*\]\]", after)

    def _first(self, api: str, index: dict[str, list[int]], pattern: str, after: int) -> int:
        if self._NAME.fullmatch(api):
            return next((number for number in index.get(api, ()) if number > after), after or 1)
        rx = re.compile(pattern)
        for number, text in enumerate(self.lines, start=1):
            if number > after and rx.search(text):
                return number
        return after or 1


def _line_from_message(message: str) -> int:
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
