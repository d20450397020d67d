"""generated/examples/<api>.cpp: each page's 调用示例 C++, verbatim.

`make examples` compiles each one against runtime/include and the generated headers, links it
with -lascendcl -lnnopbase -lopapi (the simulator here, CANN on an NPU machine) and runs it. The
code is the page's, byte for byte, so no banner is added: a file here is exactly what a user
would copy out of the documentation.
"""

from __future__ import annotations

import functools

from gen.emit.files import FileManager
from gen.model import BoundAPI, Model


def emit(model: Model, files: FileManager) -> None:
    for name, bound in model.examples().items():
        files.write_derived(f"examples/{name}.cpp", bound.fingerprint, functools.partial(example_text, bound))


def example_text(bound: BoundAPI) -> str:
    return bound.api.example.rstrip("\n") + "\n"
