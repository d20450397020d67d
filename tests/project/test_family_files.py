"""A kernel family is a unit on both sides: its row in gen/families/<family>.py and its engine in
runtime/sim/src/opapi/families/<family>.cpp, the file that defines the planner its row names. A
reader looking for a family finds it by its name on either side, and a file holds one family."""

from __future__ import annotations

import re
from pathlib import Path

import gen.families
from gen.families import FAMILIES, Family

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "runtime" / "sim" / "src" / "opapi" / "families"

# family -> (its module, its engine file), where either is not the family's own name: none.
SHARED: dict[str, tuple[str, str]] = {}


def _modules() -> dict[str, list[str]]:
    """The modules of gen.families defining each family's row (`NAME = Family("name", ...)`), by family name."""
    found: dict[str, list[str]] = {}
    for path in sorted(Path(gen.families.__file__).parent.glob("*.py")):
        for name in re.findall(r"= Family\(\s*\"(\w+)\"", path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append(path.stem)
    return found


def _engines() -> dict[str, list[str]]:
    """The engine files defining each planner (a definition with the planners' signature of
    aclsim/families.h: an engine's own helpers take no workspace), by planner name."""
    found: dict[str, list[str]] = {}
    definition = re.compile(r"^aclnnStatus (Plan\w+)\(const Call& call, const FamilySpec& family, ExecutorWork\*\* work,"
                            r"\s*uint64_t\*[^;]*?\{", re.M)
    for path in sorted(ENGINES.glob("*.cpp")):
        for planner in definition.findall(path.read_text(encoding="utf-8")):
            found.setdefault(planner, []).append(path.stem)
    return found


def test_each_family_is_its_module_and_its_engine_file():
    modules, engines = _modules(), _engines()
    wrong = []
    for family in FAMILIES:
        module, engine = SHARED.get(family.name, (family.name, family.name))
        if modules.get(family.name) != [module]:
            wrong.append(f"{family.name}: its row is defined in {modules.get(family.name)}, not in {module}.py alone")
        if engines.get(family.planner) != [engine]:
            wrong.append(f"{family.name}: {family.planner} is defined in {engines.get(family.planner)}, "
                         f"not in {engine}.cpp alone")
    wrong += [f"{name}: listed in SHARED but no family" for name in SHARED if name not in {f.name for f in FAMILIES}]
    assert not wrong, "\n".join(wrong)
