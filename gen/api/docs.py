"""The docstring of a bound API, built from its page and its Python signature: one place, used by
the bindings (what `help(aclnn.<op>)` shows) and by the stubs.

numpydoc layout: summary, the page's description and formula, Parameters (each with its page
name, C type, direction, description, dtypes — per product where the page differs — rank,
formats, contiguity, empty-tensor support and usage notes), Returns, Raises (the page's error
table: status, name and condition), products, constraints and the source page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gen.api.python import PythonParam, python_signature
from gen.emit.env import render
from gen.ir import Direction, Param, ParamKind
from gen.model import BoundAPI


def returned_type(param: PythonParam) -> str:
    """What the call returns for an output: a host array, or a device tensor when the inputs were."""
    kind = param.param.kind if param.param else None
    if kind is ParamKind.TENSOR_LIST:
        return "list of numpy.ndarray or aclnn.Tensor"
    return "numpy.ndarray or aclnn.Tensor" if kind is ParamKind.TENSOR else param.described


def _yes_no(value: bool | None, yes: str, no: str) -> str | None:
    return None if value is None else (yes if value else no)


def facts(param: Param) -> list[str]:
    """What the page's parameter table says about the parameter, as short phrases."""
    out: list[str] = []
    if param.dtypes:
        out.append("dtypes " + ", ".join(d.value for d in param.dtypes))
    for entry in param.dtypes_by_product:
        out.append(f"on {entry.soc.value}: " + ", ".join(d.value for d in entry.dtypes))
    if param.rank is not None:
        lo, hi = param.rank
        out.append(f"rank {lo}" if lo == hi else f"rank {lo}-{hi}")
    if param.formats:
        out.append("formats " + ", ".join(param.formats))
    for phrase in (_yes_no(param.noncontiguous, "non-contiguous allowed", "contiguous only"),
                   _yes_no(param.empty_tensor, "empty allowed", "empty not allowed")):
        if phrase:
            out.append(phrase)
    return out


@dataclass(frozen=True)
class ParamDoc:
    name: str  # Python name
    type: str
    returned: str  # the type a call returns for it (outputs)
    header: str  # page name, C type, direction
    description: str
    facts: str
    usage: str
    default: str  # "" or ", default None"


def _param_doc(python: PythonParam, default: bool) -> ParamDoc:
    param = python.param
    assert param is not None, "out= is described by the template"
    return ParamDoc(
        name=python.name if param.direction is not Direction.OUT else param.name,
        type=python.described,
        returned=returned_type(python),
        header=f"{param.name} ({param.c_type}, {param.direction.value})",
        description=_one_line(param.description),
        facts="; ".join(facts(param)),
        usage=_one_line(param.usage),
        default=", default None" if default else "",
    )


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.strip().splitlines() if line.strip()) if text.strip() not in ("", "-") else ""


def _indented(text: str, prefix: str = "    ") -> str:
    return "\n".join((prefix + line).rstrip() for line in text.strip().splitlines())


def formula_section(formula: str, description: str) -> str:
    """The formula as its own literal block, unless the description already shows it: pages write
    it inside 功能说明 (计算公式：...), and the docstring says it once. The description shows it
    when it shows each display formula and each line between them, wherever the page puts its
    prose around them (aclnnSlice's three formulas stand between sentences)."""
    if not formula.strip():
        return ""
    shown = _words(description)
    missing = [piece for piece in formula_pieces(formula) if _words(piece) not in shown]
    if not missing:
        return ""
    if any(piece.startswith("$$") for piece in missing):
        return _indented(formula)
    # Every display formula is shown; lines the description leaves out (aclnnLstmBackward's table of
    # gates) are shown alone, not with the formulas again.
    return _indented("\n".join(missing))


def formula_pieces(formula: str) -> list[str]:
    """The display formulas ($$ ... $$) of a formula and its other non-blank lines."""
    pieces: list[str] = []
    for k, part in enumerate(_DISPLAY_MATH.split(formula)):
        pieces.extend([part] if k % 2 else [line for line in part.splitlines() if line.strip()])
    return pieces


_DISPLAY_MATH = re.compile(r"(\$\$.*?\$\$)", re.S)


def _words(text: str) -> str:
    return " ".join(text.split())


def docstring(bound: BoundAPI) -> str:
    """The docstring of `aclnn.<python_name>`, without the signature line."""
    api, page = bound.api, bound.page
    signature = python_signature(bound)
    inputs = [_param_doc(p, p.default is not None) for p in signature.inputs]
    outputs = [_param_doc(p, False) for p in signature.returns]
    out_names = [p.name for p in signature.outs]
    products = [f"{p.name}: {'supported' if p.supported else 'not supported'}" for p in page.products]
    text = render(
        "bindings/docstring.txt.j2",
        api=api, description=page.description.strip(), formula=formula_section(api.formula, page.description),
        inputs=inputs, outputs=outputs, out_names=out_names, errors=api.errors, products=products,
        constraints=_indented(api.constraints) if _one_line(api.constraints) not in ("", "无。", "无") else "",
        source=f"{page.source}:{api.line}" if api.line else page.source,
        simulated=bound.simulated,
    )
    return text.strip() + "\n"
