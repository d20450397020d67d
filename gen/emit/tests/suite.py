"""The suite of one API (everything the template templates/tests/test_api.py.j2 needs), and the
emitter that writes one per bound API with the support files beside them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Optional

from gen import families, names
from gen.api.python import result_rule
from gen.cache import GENERATOR_ONLY
from gen.emit.env import copied, render
from gen.emit.files import FileManager
from gen.emit.tests.base_call import BaseCall
from gen.emit.tests.cases import Case, CaseGroup
from gen.emit.tests.elementwise import ElementwiseCases
from gen.emit.tests.errors import ErrorPlanner, ErrorTest
from gen.emit.tests.family import FamilyCases
from gen.emit.tests.rules import RulePlanner, RuleTest
from gen.ir import DEFAULT_SOC, API, ErrorCategory, OpSemantics, ResultRule, Soc
from gen.model import BoundAPI, Model

DIRECTORY = "tests"
SUPPORT_FILES = ("conftest.py", "_aclnn_testing.py", "_goldens.py")


@dataclass(frozen=True)
class ParamView:
    name: str
    python: str
    kind: str
    direction: str
    domain: Optional[tuple[float, float]]  # None: the support module's default


@dataclass(frozen=True)
class Suite:
    """Everything the template needs for one API's test file."""

    bound: BoundAPI
    params: tuple[ParamView, ...]
    dtypes: dict[str, dict[str, tuple[str, ...]]]
    unsupported_socs: tuple[str, ...]
    # The chip the computing tests run on where the page marks the simulator's default one unsupported
    # (Ascend950 for the MX pages): the first the page supports; "" where the default chip serves.
    computes_on: str
    on_chips: dict[str, Optional[dict[str, str]]]  # BaseCall.on_chips
    out_shape_from: dict[str, tuple[str, ...]]
    out_dtype_from: dict[str, tuple[str, ...]]
    result_rule: str  # gen.ir.ResultRule's name of the kernel's result dtype rule; "" for the runtime's default
    family: str  # the kernel family computing it ("": an elementwise kernel, or none)
    exact: bool  # its results are PyTorch's bit for bit (the semantics file's exact, an exact family op)
    law_offset: str  # a random op's offset parameter: its results compare by law (semantics `law`), "" otherwise
    base: Case
    groups: tuple[CaseGroup, ...]
    golden_skip: str  # why no valid call is compared with a golden (then `base` only runs)
    runs_skip: str  # why `base` is not known to be a valid call (then it does not run either)
    errors: tuple[ErrorTest, ...]
    rules: tuple[RuleTest, ...]
    product_check: bool  # the page marks some chip unsupported: a test checks that it fails there
    notes: tuple[str, ...]  # what the file does not test, for its header

    @property
    def source(self) -> str:
        return f"{self.bound.page.source}:{self.bound.api.line}" if self.bound.api.line else self.bound.page.source

    @property
    def case_count(self) -> int:
        """Test cases pytest collects from the file (a skipped test counts as one)."""
        valid = sum(len(g.cases) for g in self.groups) if not self.golden_skip else 2  # runs + skipped golden
        rules = sum(len(r.accepted) + len(r.refused) or 1 for r in self.rules)
        return valid + sum(len(e.cases) or 1 for e in self.errors) + int(self.product_check) + rules


def dtype_table(api: API) -> dict[str, dict[str, tuple[str, ...]]]:
    """"*": the dtypes of each typed parameter on every product the page gives no own list for;
    then, per SoC with an own list somewhere, the full table of that SoC. Only the parameters whose
    dtype phase 1 holds to its list (`API.dtype_checked`): an aclScalar the error table does not
    name is cast, whatever dtype it has, on every chip (aclnnClampMax's clipValueMax is BFLOAT16
    on Ascend310P too, which its page does not list there)."""
    typed = [p for p in api.params if (p.dtypes or p.dtypes_by_product) and api.dtype_checked(p)]
    table = {"*": {p.name: tuple(d.value for d in p.dtypes) for p in typed if p.dtypes}}
    socs = sorted({e.soc for p in typed for e in p.dtypes_by_product}, key=lambda s: s.value)
    for soc in socs:
        table[soc.value] = {p.name: tuple(d.value for d in p.dtypes_for(soc)) for p in typed if p.dtypes_for(soc)}
    return table


def exact_results(semantics: Optional[OpSemantics]) -> bool:
    """Whether the op's results are PyTorch's bit for bit: the semantics file says so, or its
    family computes the op by moving, selecting or converting elements (gen.families.exact)."""
    if semantics is None:
        return False
    family = families.family(semantics.family) if semantics.family else None
    return semantics.exact or (family is not None and families.exact(family, semantics.op))


def law_offset(bound: BoundAPI) -> str:
    """The parameter a random op's stream follows (its family's offset role: the generated check
    asks another offset for another sample); "" for an op compared element by element."""
    semantics = bound.semantics
    if semantics is None or not semantics.law:
        return ""
    roles = bound.family_roles
    return roles.get("offset", "")


def case_groups(call: BaseCall) -> list[CaseGroup]:
    """The valid calls of the suite, by test function: every documented dtype, then what the API's
    kind of shapes lets vary (a kernel family's rule, or elementwise broadcasting). Each keeps the
    bytes every chip's byte rules ask of its tensors' last dimension in its dtypes (a FLOAT16 case
    of a base call whose sizes were enough for FLOAT), so that it is valid on whichever chip it runs."""
    groups = [CaseGroup("dtypes", "Every documented dtype, all inputs alike", tuple(call.dtype_cases()))]
    if call.family is not None and not call.shapes_free:
        groups += FamilyCases(call).groups()
    elif call.shapes_free:
        groups += ElementwiseCases(call).groups()
    return [replace(g, cases=tuple(call.bytes_kept(c) for c in g.cases)) for g in groups]


def suite(bound: BoundAPI) -> Suite:
    api, semantics = bound.api, bound.semantics
    call = BaseCall(bound)
    # Each parameter's Python name, as the signature gives it (an input's, or an output's the call returns).
    python = {p.param.name: p.name for p in call.signature.inputs + call.signature.returns if p.param is not None}
    params = tuple(ParamView(
        name=p.name, python=python[p.name], kind=p.kind.value if p.kind else "unknown",
        direction=p.direction.value,
        domain=(lambda d: (d.low, d.high) if d else None)(semantics.domain(p.name) if semantics else None),
    ) for p in api.params)
    out_shape_from, out_dtype_from = {}, {}
    # A family's outputs are shaped by its rule (the golden's shape), not by broadcasting; those
    # the caller passes (out=) have the dtype of the input the family names.
    for plan in call.plans if not (semantics and semantics.family) else ():
        if plan.required_reason is None:
            out_shape_from[plan.param.name] = tuple(api.params[i].name for i in plan.shape_from)
            out_dtype_from[plan.param.name] = tuple(api.params[i].name for i in plan.dtype_from)
    for plan in call.plans if semantics and semantics.family else ():
        if plan.required_reason is not None and plan.dtype_from:
            out_dtype_from[plan.param.name] = tuple(api.params[i].name for i in plan.dtype_from)
        # An output of the source's shape that the bindings allocate: the shape of an out= array where no golden
        # gives one (the golden leaves an output None that the page writes only under other arguments), so that
        # the out-layout tests pass it at the shape the bindings would, not as a 0-d array phase 1 refuses.
        if plan.required_reason is None and plan.family_shape == "same" and not plan.is_list:
            out_shape_from[plan.param.name] = tuple(api.params[i].name for i in plan.shape_from[:1])

    notes = []
    golden_skip = ""
    if not semantics or not semantics.golden:
        golden_skip = f"{bound.page.source}: the semantics file gives no golden reference for {api.name}"
    elif call.base_known:
        golden_skip = call.base_known
    groups = tuple(case_groups(call)) if not golden_skip else ()
    if call.family is not None:
        notes.append(f"shapes other than those the {call.family.name} family's rule allows (its ranks, and "
                     "broadcasting where the page speaks of it)")
    elif not call.shapes_free:
        notes.append("shapes, layouts and broadcasting are not varied: " + (
            "the page does not relate every tensor's shape to the others'"))
    unsupported = tuple(soc.value for soc in dict.fromkeys(p.soc for p in bound.page.products if p.soc is not None)
                        if bound.page.supports(soc) is False)
    rules = tuple(RulePlanner(call).tests())
    computes_on = "" if bound.page.supports(DEFAULT_SOC) is not False else next(
        (soc.value for soc in Soc if bound.page.supports(soc)), "")
    return Suite(
        bound=bound, params=params, dtypes=dtype_table(api), unsupported_socs=unsupported, computes_on=computes_on,
        on_chips=call.on_chips(),
        out_shape_from=out_shape_from, out_dtype_from=out_dtype_from,
        result_rule="" if (rule := result_rule(semantics)) is ResultRule.PROMOTED else rule.value,
        family=semantics.family if semantics else "",
        exact=exact_results(semantics),
        law_offset=law_offset(bound),
        base=call.base, groups=groups,
        golden_skip=golden_skip, runs_skip=call.base_known or "", errors=tuple(ErrorPlanner(call, rules).tests()),
        rules=rules,
        product_check=bool(unsupported) and not call.unallocated and not call.unheld_output and not any(
            r.category is ErrorCategory.UNSUPPORTED_PRODUCT for r in api.errors),
        notes=tuple(notes),
    )


def emit(model: Model, files: FileManager) -> None:
    for support in SUPPORT_FILES:
        files.write_derived(f"{DIRECTORY}/{support}", GENERATOR_ONLY, functools.partial(copied, f"{DIRECTORY}/{support}"))
    taken: dict[str, str] = {}
    for bound in model.apis:
        path = f"{DIRECTORY}/{names.test_file(bound.name)}"
        if path in taken:  # as the bindings say: both would be one Python function
            raise ValueError(f"{bound.name} and {taken[path]} both become aclnn.{bound.python_name}")
        taken[path] = bound.name
        files.write_derived(path, bound.fingerprint, functools.partial(suite_text, bound))


def suite_text(bound: BoundAPI) -> str:
    return render("tests/test_api.py.j2", suite=suite(bound))
