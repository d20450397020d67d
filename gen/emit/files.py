"""Writing generated files: deterministic, and only when their content changed.

As torchgen's `FileManager._write_if_changed`: an unchanged file keeps its timestamp, so Ninja
rebuilds only the translation units whose source really changed. Files under the output root
that no emitter wrote in a run are stale (their page was removed) and are deleted, except
build products and other files the emitters do not own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

# Not written by the generator, so never deleted as stale: build products placed next to the
# package so that it imports in place, and caches.
_UNOWNED_PARTS = ("__pycache__", "_sim", ".pytest_cache", ".mypy_cache")
_UNOWNED_SUFFIXES = (".so", ".pyd", ".dylib", ".pyc")


class FileManager:
    def __init__(self, root: Path, *, dry_run: bool = False) -> None:
        self.root = Path(root)
        self.dry_run = dry_run
        self.written: dict[str, str] = {}  # relative path -> content, everything emitted this run
        self.changed: list[str] = []
        self.removed: list[str] = []

    def write(self, relpath: str, content: str) -> None:
        if relpath in self.written:
            if self.written[relpath] != content:
                raise ValueError(f"two emitters write different content to {relpath}")
            return
        self.written[relpath] = content
        path = self.root / relpath
        try:
            old = path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            old = None
        if old == content:
            return
        self.changed.append(relpath)
        if not self.dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8", newline="\n")

    def remove_stale(self, owned_dirs: Iterable[str]) -> None:
        """Delete files under `owned_dirs` (relative to the root) that this run did not write."""
        for owned in owned_dirs:
            base = self.root / owned
            if not base.exists():
                continue
            candidates = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
            for path in candidates:
                rel = path.relative_to(self.root).as_posix()
                if rel in self.written or _unowned(path):
                    continue
                self.removed.append(rel)
                if not self.dry_run:
                    path.unlink()


def _unowned(path: Path) -> bool:
    return any(part in _UNOWNED_PARTS for part in path.parts) or path.name.endswith(_UNOWNED_SUFFIXES)
