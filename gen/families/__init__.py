"""The simulator's kernel families: what a semantics file may name besides an elementwise kernel.

Each family listed here has its engine; a family joins the table with its engine, not before.

A semantics file says `family = "reduce"`, `op = "sum"` and which of the page's parameters plays
each of the family's roles (`roles = { dim = "dims", keepdim = "keepDims" }`; a role left out is
the page's parameter of the same name, if there is one). The simulator has one engine per family
(runtime/sim/src/opapi/families/<module>.cpp), strided, broadcasting and multithreaded; its
generated spec names the family's planner, the op and the parameter index of every role.

This package is the one home of the families' names, ops, roles and options: one module per
family (named as its engine's file; quant.py still holds four, three of quant.cpp and
rotate_quant.cpp's) with its `Family` row, an `Op` row per op that differs from the family's defaults (its
outputs' shape rules and fixed dtypes, exactness, shape variations and arguments), and the
`OutputShape` rules the family brought; model.py holds the types, the rules of no one family and
what a row says about one op. The table is every module's rows, found by the package itself: a
family joins it with its module, and nothing else names it. A row that names a role, a rule or a
dtype its family lacks is refused when the table is built. The semantics reader checks files
against it, the simulator's emitter writes each API's FamilySpec from it, gen/api/python.py plans
outputs by its rules, gen/emit/bindings.py says them in its comments (OutputShape.phrase), and
gen/emit/enums.py renders it as the C++ enumerations the planners and the bindings read
(`include/aclnn_sim/families.h`, `include/aclnn_bindgen/output_shapes.h`), so that the two sides
cannot disagree.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Optional, Sequence

from gen.families.model import (BASE_SHAPES, CONV_RULE_ROLES, MAX_OPTIONS, MAX_ROLES, POOL_WINDOW_ROLES, RULE_ARGUMENTS,
                                VARIATION_KINDS, Family, Op, OutputShape, Variation, dtype_source, exact, fixed_dtype,
                                output_shape, result_dtype, role_dtype_source, rules, shape_arguments,
                                shape_variations)

if TYPE_CHECKING:
    from gen.ir import OpSemantics


def _module_rows() -> tuple[tuple[Family, ...], tuple[OutputShape, ...]]:
    """The Family and OutputShape rows of every module of the package but model.py, modules in
    name order and rows in their order of definition: a family joins the table with its module."""
    found: dict[int, Family | OutputShape] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name != "model":
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.update((id(v), v) for v in vars(module).values() if isinstance(v, (Family, OutputShape)))
    return (tuple(v for v in found.values() if isinstance(v, Family)),
            tuple(v for v in found.values() if isinstance(v, OutputShape)))


FAMILIES, _FAMILY_SHAPES = _module_rows()
# Every output-shape rule: those of no one family, then each family module's.
OUTPUT_SHAPES: tuple[OutputShape, ...] = BASE_SHAPES + _FAMILY_SHAPES
OUTPUT_SHAPE = {rule.name: rule for rule in OUTPUT_SHAPES}


def check(table: Sequence[Family], shapes: Sequence[OutputShape]) -> None:
    """Refuses two families or rules of one name, and a family naming a rule no row defines (its
    ops' rows were checked against its roles and the dtypes when built)."""
    for what, names in (("family", [f.name for f in table]), ("output shape", [r.name for r in shapes])):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"gen/families: {what} defined twice: {', '.join(twice)}")
    known = {r.name for r in shapes}
    for f in table:
        unknown = {f.output_shape, *(r for op in f.rows for r in op.rules())} - known
        if unknown:
            raise ValueError(f"family {f.name}: shape rules no OutputShape defines: {', '.join(sorted(unknown))}")


check(FAMILIES, OUTPUT_SHAPES)
BY_NAME = {f.name: f for f in FAMILIES}


def bind_roles(semantics: "OpSemantics", params: "Sequence[str]") -> tuple[dict[str, str], str]:
    """The page's parameter playing each role of the semantics' family (a role the file leaves
    out is the parameter of the same name, if the page has one), or {} and why the roles cannot
    be bound (a role bound to a parameter the page does not have, a required role unbound)."""
    known = family(semantics.family)
    assert known is not None, f"{semantics.source}: the semantics reader admits only known families"
    bound: dict[str, str] = {}
    for role in known.roles:
        param = semantics.role(role)
        if param is not None and param not in params:
            return {}, f"{semantics.source}: role {role} of family {known.name} is {param}, which the page does not have"
        param = param if param is not None else (role if role in params else None)
        if param is None and role in known.required:
            return {}, f"no parameter of the page plays role {role} of family {known.name}"
        if param is not None:
            bound[role] = param
    return bound, ""


def data_dependent(rule: str) -> bool:
    """Whether an output of this shape rule is allocated at its largest and read back at the extent
    its kernel sets (the dynamic family's "bound_*" rules)."""
    known = OUTPUT_SHAPE.get(rule)
    return known is not None and known.data_dependent


def applies_kernel(semantics: "OpSemantics") -> bool:
    """Whether the semantics' family op applies the file's elementwise kernel (foreach's map)."""
    known = family(semantics.family) if semantics.family else None
    row = known.op(semantics.op) if known is not None else None
    return row is not None and row.kernel


def family(name: str) -> Optional[Family]:
    return BY_NAME.get(name)
