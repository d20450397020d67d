"""Status codes are declared once, in runtime/include (aclnn/acl_meta.h): the generator, the package's
hand-written Python, the benchmarks and the examples read them from there (gen.abi, aclnn._C's
STATUS_NAMES), never write the number. (Tests write pages' error rows, whose numbers are the
pages' facts, so they are not held to this.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gen import abi

ROOT = Path(__file__).resolve().parents[2]
CODE = ("gen", "runtime/python", "bench", "examples")


def status_literals(path: Path) -> list[tuple[int, int]]:
    codes = {code for code in abi.status_codes().values() if code}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value in codes]


@pytest.mark.parametrize("folder", CODE)
def test_no_status_code_is_written_as_a_number(folder):
    found = {str(path.relative_to(ROOT)): literals for path in sorted((ROOT / folder).rglob("*.py"))
             if (literals := status_literals(path))}
    assert not found


def test_the_check_sees_a_written_status(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("INVALID = 161002\n# 161001 in a comment is a citation\n", encoding="utf-8")
    assert status_literals(path) == [(1, 161002)]
