"""The scripts run_npu runs are one text dedented as a whole: a shared prefix (REFUSED_BY_NAME, a file's
reference functions) followed by the test's own lines. Were those lines indented deeper than the prefix,
the dedent would leave them inside the prefix's last function, after its return: the test would run
nothing and pass. Found so in test_ffn.py, test_quant.py and test_activation_family.py; checked here for
every run_npu(PREFIX + \"\"\"...\"\"\") of the torch_npu tests, without the simulator."""

import ast
from pathlib import Path

from tests.torch_npu import npu_scripts

HERE = Path(__file__).parent


def _indent(text: str) -> int:
    lines = [line for line in text.splitlines() if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in lines), default=0)


def _parts(node: ast.expr) -> list[ast.expr]:
    """The operands of a chain of +, left to right."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _parts(node.left) + _parts(node.right)
    return [node]


def test_no_script_body_is_indented_into_its_prefix():
    shared = {name: value for name, value in vars(npu_scripts).items() if isinstance(value, str)}
    checked, wrong = 0, []
    for path in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        texts = dict(shared)
        texts.update({target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                      and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                      for target in node.targets if isinstance(target, ast.Name)})
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "run_npu"
                    and call.args):
                continue
            parts = _parts(call.args[0])
            body = parts[-1]
            names = [p.id for p in parts[:-1] if isinstance(p, ast.Name) and p.id in texts]
            if not names or not (isinstance(body, ast.Constant) and isinstance(body.value, str)):
                continue
            checked += 1
            prefix = "".join(texts[name] for name in names)
            if _indent(body.value) > _indent(prefix):
                wrong.append(f"{path.name}:{call.lineno}: {' + '.join(names)} indented {_indent(prefix)}, "
                             f"the script {_indent(body.value)}")
    assert checked > 30, checked  # the check saw the scripts it is for
    assert not wrong, wrong
