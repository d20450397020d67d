"""Every line of the README's torch_npu sections runs on the simulator: its Python blocks, each in a
process with the environment its `source ... set_env.sh` line sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTIONS = ("### torch_npu on the simulator", "### Using aclnn-bindgen with torch_npu")


def python_blocks(heading: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n### ", start + len(heading))
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


@pytest.mark.parametrize("heading", SECTIONS)
def test_the_sections_python_runs(run_npu, heading):
    blocks = python_blocks(heading)
    assert blocks, f"no Python block under {heading!r}"
    for block in blocks:
        run_npu(block)
