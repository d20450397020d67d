"""The IR's closed sets as the tables the runtime and the package read, so that each fact about a
dtype or a chip has one home (gen.ir) and every copy of it is rendered from there:

- `include/aclnn_bindgen/dtypes.h`: the dtype table, the promotion and cast tables and the
  kernels' result dtype rules, for the bindings (runtime/binding) and the simulator (runtime/sim)
  alike;
- `include/aclnn_sim/soc.h`: the chips the simulator stands in for, and the default one;
- `include/aclnn_sim/families.h`: the simulator's kernel families (gen.families): their ops,
  roles and options as the enumerations the generated specs and the planners index by;
- `include/aclnn_bindgen/output_shapes.h`: the families' output shape rules (gen.families
  OUTPUT_SHAPES) as the enumeration the bindings' output plans name, and the dispatch to each
  rule's C++ function (runtime/include/aclnn_bindgen/shape_rule.h);
- `include/aclnn_sim/plain_formats.h`: the plain layouts (gen.conventions.PLAIN_FORMATS) as the
  mask the simulator's format checks accept where a page lists ND;
- `aclnn/_dtypes.py`, `aclnn/_socs.py`: the same rows for Python (the generated tests' runtime,
  the demo, the corpus run and the benchmarks).

No page changes them: every generation writes the same bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from gen.cache import GENERATOR_ONLY
from gen.conventions import PLAIN_FORMATS
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.model import Model
from gen.families import FAMILIES, MAX_OPTIONS, MAX_ROLES, OUTPUT_SHAPES, RULE_ARGUMENTS
from gen.ir import DEFAULT_SOC, DType, DTypeCategory, ResultRule, Soc


@dataclass(frozen=True)
class DTypeRow:
    """One dtype, as both tables write it."""

    name: str
    enumerator: str
    numpy: Optional[str]  # the NumPy dtype's name
    ml_dtypes: bool
    size: int
    category: DTypeCategory
    promotion: tuple[int, ...]  # by column: the index of the promoted dtype, -1 for none
    castable: tuple[bool, ...]  # by column

    @property
    def cpp_numpy(self) -> str:
        return f'"{self.numpy}"' if self.numpy else "nullptr"

    @property
    def cpp_promotion(self) -> str:
        return ", ".join(f"{i:2d}" for i in self.promotion)

    @property
    def cpp_castable(self) -> str:
        return ", ".join("1" if c else "0" for c in self.castable)


@dataclass(frozen=True)
class ResultRuleRow:
    name: str
    results: tuple[int, ...]  # by dtype: the index of the result dtype

    @property
    def cpp_results(self) -> str:
        return ", ".join(f"{i:2d}" for i in self.results)

    def changes(self, rows: list[DTypeRow]) -> list[tuple[str, str]]:
        """(promoted, result) of each dtype the rule changes, by name."""
        return [(row.name, rows[i].name) for row, i in zip(rows, self.results) if rows[i] is not row]


def result_rule_rows() -> list[ResultRuleRow]:
    dtypes = list(DType)
    return [ResultRuleRow(rule.value, tuple(dtypes.index(rule.result_dtype(d)) for d in dtypes)) for rule in ResultRule]


def dtype_rows() -> list[DTypeRow]:
    dtypes = list(DType)
    index = {d: i for i, d in enumerate(dtypes)}

    def promoted(a: DType, b: DType) -> int:
        result = a.promote(b)
        return -1 if result is None else index[result]

    return [DTypeRow(d.value, d.enumerator, d.numpy_name, d.numpy_module == "ml_dtypes", d.size, d.category,
                     tuple(promoted(d, other) for other in dtypes), tuple(d.can_cast(other) for other in dtypes))
            for d in dtypes]


# The tables, and the template of each: C++ for the bindings and the simulator, Python for the package.
DTYPE_TABLES = (("include/aclnn_bindgen/dtypes.h", "include/aclnn_bindgen/dtypes.h.j2"),
                ("aclnn/_dtypes.py", "package/_dtypes.py.j2"))
SOC_TABLES = (("include/aclnn_sim/soc.h", "include/aclnn_sim/soc.h.j2"), ("aclnn/_socs.py", "package/_socs.py.j2"))
FAMILY_TABLE = ("include/aclnn_sim/families.h", "include/aclnn_sim/families.h.j2")
OUTPUT_SHAPE_TABLE = ("include/aclnn_bindgen/output_shapes.h", "include/aclnn_bindgen/output_shapes.h.j2")
PLAIN_FORMAT_TABLE = ("include/aclnn_sim/plain_formats.h", "include/aclnn_sim/plain_formats.h.j2")
# aclFormat values not every CANN header set declares, named through runtime/include/aclnn_bindgen/formats.h.
_FORMAT_CONSTANTS = {"DHWCN": "aclnn_bindgen::kFormatDHWCN"}


def emit(model: Model, files: FileManager) -> None:
    del model  # the tables are the IR's enums, not the pages'
    for path, template in DTYPE_TABLES:
        files.write_derived(path, GENERATOR_ONLY, functools.partial(_dtype_table, template))
    for path, template in SOC_TABLES:
        files.write_derived(path, GENERATOR_ONLY, functools.partial(_soc_table, template))
    files.write_derived(FAMILY_TABLE[0], GENERATOR_ONLY, functools.partial(
        render, FAMILY_TABLE[1], families=FAMILIES, max_roles=MAX_ROLES, max_options=MAX_OPTIONS))
    files.write_derived(OUTPUT_SHAPE_TABLE[0], GENERATOR_ONLY, output_shape_header)
    files.write_derived(PLAIN_FORMAT_TABLE[0], GENERATOR_ONLY, functools.partial(
        render, PLAIN_FORMAT_TABLE[1], formats=[_FORMAT_CONSTANTS.get(f, f"ACL_FORMAT_{f}") for f in sorted(PLAIN_FORMATS)]))


def _dtype_table(template: str) -> str:
    return render(template, rows=dtype_rows(), categories=[c.value for c in DTypeCategory],
                  result_rules=result_rule_rows())


def output_shape_header() -> str:
    """The bound rules' enumeration, and the dispatch to each rule's C++ function, which its row's
    header declares (runtime/include/aclnn_bindgen/shape_rule.h says how)."""
    bound = [rule for rule in OUTPUT_SHAPES if rule.bound]
    return render(OUTPUT_SHAPE_TABLE[1], rules=bound, headers=sorted({"shape_rule.h", *(rule.header for rule in bound)}),
                  arguments=RULE_ARGUMENTS)


def _soc_table(template: str) -> str:
    return render(template, socs=list(Soc), default=DEFAULT_SOC)
