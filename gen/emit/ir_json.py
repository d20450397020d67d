"""generated/ir/<page>.json: the IR of every page, for review and for tools that read it."""

from __future__ import annotations

from pathlib import PurePath

from gen.emit.files import FileManager
from gen.emit.model import Model


def ir_file(source: str) -> str:
    """`op_docs/leaky_relu_backward.md` -> `ir/leaky_relu_backward.md.json`."""
    return f"ir/{PurePath(source).name}.json"


def emit(model: Model, files: FileManager) -> None:
    for page in model.pages:
        files.write(ir_file(page.source), page.to_json())
