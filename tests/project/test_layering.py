"""The generator's layering, read from its sources: no import circle among gen's modules, and no
emitter that parses (gen/model.py's rule: emitters read a Model, they never parse).

A circle is counted over the imports a module makes when it is loaded (its top level, `if` and `try`
blocks included; `if TYPE_CHECKING:` and imports inside functions are not made then). An emitter
parses when it imports a parsing stage, or reads the page's own prose (an error row's condition, a
parameter's description or usage, the formula or the constraints) for anything but quoting it or
comparing it whole: PROSE_READS lists the reads that remain, each waiting for the IR fact that
would replace it, so that the list can only shrink."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "gen"

# The stages an emitter must not reach into: they read page text.
PARSING = ("gen.parse", "gen.semantics", "gen.merge", "gen.pipeline")
# The IR's fields holding the page's own words.
PROSE = {"condition", "description", "usage", "formula", "constraints"}
# (file, function) of an emitter reading prose, until the parser sets the fact it looks for.
PROSE_READS: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(GEN.rglob("*.py"))}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path, tree: ast.Module, known: dict[str, Path], loading: bool) -> Iterator[str]:
    """The gen modules `module` imports: at load time only (`loading`), or anywhere in it."""
    def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            yield node
            if isinstance(node, (ast.If, ast.Try)):
                yield from statements(node.body + node.orelse + getattr(node, "finalbody", []) +
                                      [s for h in getattr(node, "handlers", []) for s in h.body])

    nodes = statements(tree.body) if loading else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, path.name == "__init__.py", node)
            # `from gen.x import y` imports the module gen.x.y where there is one, else names of gen.x.
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        yield from (t for t in targets if t in known)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@functools.cache
def _trees() -> dict[str, tuple[Path, ast.Module]]:
    return {name: (path, ast.parse(path.read_text(encoding="utf-8"), str(path))) for name, path in _modules().items()}


def test_the_circle_finder_finds_one():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"a"}, "b": set()}) == [["a"]]


def test_no_import_circle_in_gen():
    trees, known = _trees(), _modules()
    graph = {name: set(_imports(name, path, tree, known, loading=True)) for name, (path, tree) in trees.items()}
    assert _circles(graph) == []


def test_no_emitter_imports_a_parsing_stage():
    trees, known = _trees(), _modules()
    reached = {(name, target) for name, (path, tree) in trees.items() if name.startswith("gen.emit")
               for target in _imports(name, path, tree, known, loading=False)
               if any(target == stage or target.startswith(stage + ".") for stage in PARSING)}
    assert not reached


def _prose_reads(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """(function, line) of each read of a prose field that neither quotes it (in an f-string) nor
    compares it whole (== or !=)."""
    def walk(node: ast.AST, function: str, quoted: bool) -> Iterator[tuple[str, int]]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.JoinedStr):
            quoted = True
        whole = isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
        if isinstance(node, ast.Attribute) and node.attr in PROSE and isinstance(node.ctx, ast.Load) and not quoted:
            yield function, node.lineno
        for child in ast.iter_child_nodes(node):
            yield from walk(child, function, quoted or whole)

    yield from walk(tree, "<module>", False)


def test_emitters_read_no_page_prose_but_the_listed_reads():
    found = {(str(path.relative_to(ROOT)), function) for name, (path, tree) in _trees().items()
             if name.startswith("gen.emit") for function, _ in _prose_reads(tree)}
    assert found == PROSE_READS, (f"new reads of page prose in an emitter: {sorted(found - PROSE_READS)}; "
                                  f"listed reads no longer there (remove them): {sorted(PROSE_READS - found)}")
