"""generated/ir/<page>.json: the IR of every page, for review and for tools that read it."""

from __future__ import annotations

import os
from pathlib import PurePosixPath
from typing import Iterable

from gen.emit.files import FileManager
from gen.model import Model


def ir_files(sources: Iterable[str]) -> dict[str, str]:
    """Each page's IR file, by the page's path below the directory all the pages share:
    `op_docs/leaky_relu_backward.md` -> `ir/leaky_relu_backward.md.json`; in a tree of pages
    (the corpus has many `README.md` and two `aclnnSign.md`) the subdirectories are kept."""
    sources = sorted(set(sources))
    if not sources:
        return {}
    try:
        root = os.path.commonpath([_parent(s) for s in sources])
    except ValueError:  # absolute and relative paths together: no shared directory
        root = ""

    prefix = root.rstrip("/") + "/" if root else ""

    def below_root(source: str) -> str:
        if prefix and source.startswith(prefix) and "/." not in source and "//" not in source:
            return source[len(prefix):]  # the common case, without relpath's normalisation per page
        relative = PurePosixPath(os.path.relpath(source, root) if root else source)
        return "/".join(part for part in relative.parts if part not in ("/", "..", "."))

    return {s: f"ir/{below_root(s)}.json" for s in sources}


def _parent(source: str) -> str:
    """PurePosixPath(source).parent.as_posix(), without a PurePosixPath for a plain path (a
    directory, no empty, "." or ".." part, no trailing "/", not at the root): one per page was a
    twentieth of this emitter after one page changed."""
    head = source.rpartition("/")[0]
    plain = not (source.startswith(".") or source.endswith("/") or "//" in source or "/." in source)
    return head if head and plain else PurePosixPath(source).parent.as_posix()


def emit(model: Model, files: FileManager) -> None:
    paths = ir_files(p.source for p in model.pages)
    for page in model.pages:
        files.write_derived(paths[page.source], model.fingerprint(page.source), page.to_json)
