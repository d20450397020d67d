"""generated/aclnn/ and generated/pyproject.toml: the Python package around the aclnn._C extension.

- `aclnn/__init__.py`: the public names (every bound API, aclnn.Tensor, errors, backend(), ...);
- `aclnn/_apis.json`: the IR of every bound API, for `aclnn.apis()`;
- `aclnn/_errors.py`, `aclnn/_runtime.py`: support modules, copied from runtime/python/aclnn/ with a banner;
- `aclnn/py.typed`: the PEP 561 marker (the stubs emitter writes `__init__.pyi`);
- `pyproject.toml`: makes `pip install ./generated` build the repository (CMake source dir "..")
  into a wheel of the package, with scikit-build-core.
"""

from __future__ import annotations

import functools
import json
from typing import Optional

from gen import jsontext
from gen.api import exports
from gen.cache import GENERATOR_ONLY, digest
from gen.emit.env import copied, render
from gen.emit.files import FileManager
from gen.model import BoundAPI, Model

PACKAGE = "aclnn"
# Support modules that do not depend on the pages: runtime/python/aclnn/, copied with a banner.
STATIC_MODULES = ("_errors.py", "_runtime.py", "sim.py")


def api_record(bound: BoundAPI) -> dict:
    """What `aclnn.apis()` returns for one API: its IR, and where it came from."""
    return {
        "python_name": bound.python_name,
        "source": bound.page.source,
        "simulated": bound.simulated,
        "products": [p.to_dict() for p in bound.page.products],
        **bound.api.to_dict(),
    }


GENERATED_BY = "aclnn-bindgen (gen/emit/package.py). Do not edit."


def record_json(bound: BoundAPI) -> bytes:
    """One API's record as it stands in _apis.json (two levels deep), in UTF-8: the file is joined
    from the records' bytes, never decoded and encoded again whole (11 MB for op_docs/, which as
    text cost a run after one page changed a tenth of a CPU second)."""
    return jsontext.dumps(api_record(bound), 1, prefix="  ").encode("utf-8")


def apis_json(model: Model, records: Optional[list[bytes]] = None) -> bytes:
    """json.dumps({"generated_by": ..., "apis": [...]}, indent=1) in UTF-8, made of the records' own
    bytes (`record_json`) so that a run remakes only the records whose API changed."""
    records = [record_json(b) for b in model.apis] if records is None else records
    head = json.dumps({"generated_by": GENERATED_BY}, ensure_ascii=False, indent=1)[:-2].encode("utf-8")
    if not records:
        return head + b',\n "apis": []\n}\n'
    # One join: each copy of the whole is 11 MB for op_docs/.
    parts = [head + b',\n "apis": [\n']
    for record in records:
        parts += (record, b",\n")
    parts[-1] = b"\n ]\n}\n"
    return b"".join(parts)


def emit(model: Model, files: FileManager) -> None:
    sources = sorted({b.page.source for b in model.apis})
    functions = [b.python_name for b in model.apis]
    # Keyed by what it is rendered from (the names), not by every API's fingerprint: an edit of a
    # page that renames nothing leaves it as it is, unrendered.
    files.write_derived(f"{PACKAGE}/__init__.py", digest("functions", *functions, "sources", *sources), functools.partial(
        render, "package/__init__.py.j2", functions=functions, sources=sources, runtime_exports=exports.RUNTIME_EXPORTS,
        public_names=exports.public_names(functions)))
    for module in STATIC_MODULES:
        files.write_derived(f"{PACKAGE}/{module}", GENERATOR_ONLY, functools.partial(copied, f"{PACKAGE}/{module}"))
    files.write_derived(f"{PACKAGE}/_apis.json", model.apis_fingerprint, lambda: apis_json(model, [
        files.fragment("api record", b.fingerprint, functools.partial(record_json, b)) for b in model.apis]))
    files.write_derived(f"{PACKAGE}/py.typed", GENERATOR_ONLY, functools.partial(render, "package/py.typed.j2"))
    files.write_derived("pyproject.toml", GENERATOR_ONLY,
                        functools.partial(render, "package/pyproject.toml.j2", package=PACKAGE))
