"""generated/examples/<api>.cpp: each page's 调用示例 C++, verbatim.

`make examples` compiles each one against runtime/include and the generated headers, links it
with -lascendcl -lnnopbase -lopapi (the simulator here, CANN on an NPU machine) and runs it. The
code is the page's, byte for byte, so no banner is added: a file here is exactly what a user
would copy out of the documentation.
"""

from __future__ import annotations

from gen.emit.files import FileManager
from gen.emit.model import BoundAPI, Model


def example_name(bound: BoundAPI) -> str:
    return bound.python_name


def examples(model: Model) -> dict[str, BoundAPI]:
    """The examples to write, by name: one per distinct example text (a page that documents
    aclnnAdd and aclnnInplaceAdd shows one program for both), named after its first API."""
    chosen: dict[str, BoundAPI] = {}
    seen: set[str] = set()
    for bound in model.apis:
        code = bound.api.example
        if code.strip() and code not in seen:
            seen.add(code)
            chosen[example_name(bound)] = bound
    return chosen


def emit(model: Model, files: FileManager) -> None:
    for name, bound in examples(model).items():
        files.write(f"examples/{name}.cpp", bound.api.example.rstrip("\n") + "\n")
