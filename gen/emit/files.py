"""Writing generated files: deterministic, and only when their content changed.

As torchgen's `FileManager._write_if_changed`: an unchanged file keeps its timestamp, so Ninja
rebuilds only the translation units whose source really changed. Files under the output root
that no emitter wrote in a run are stale (their page was removed) and are deleted, except
build products and other files the emitters do not own.

With an `EmitMemo` (gen.cache), `write_derived` does not even render a file whose inputs are
those of the last run and which is still as that run left it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional, TypeVar

from gen.cache import EmitMemo, MemoShare

T = TypeVar("T")

# Not written by the generator, so never deleted as stale: build products placed next to the
# package so that it imports in place, and caches.
_UNOWNED_PARTS = ("__pycache__", "_sim", ".pytest_cache", ".mypy_cache")
_UNOWNED_SUFFIXES = (".so", ".pyd", ".dylib", ".pyc")


@dataclass(frozen=True)
class Share:
    written: dict[str, str]  # relative path -> digest of the content (`_content_digest`)
    kept: set[str]
    changed: list[str]
    memo: Optional[MemoShare]


def _content_digest(content: str | bytes) -> str:
    # str hashes are salted per interpreter, but forked workers share their parent's salt; the
    # digest never leaves the run.
    return f"hash:{hash(content)}:{len(content)}"


# What `_overwrite` compares at a time: a slice of the new content this long is copied per read.
_COMPARED_BYTES = 1 << 20


def _overwrite(path: Path, data: bytes, dry_run: bool = False) -> bool:
    """Makes the existing file at `path` hold `data`, and says whether it did not already. Its bytes
    are compared a chunk at a time, and it is written in place from the first chunk that differs,
    then cut to its new length (a dry run only compares). Truncated and written whole, _apis.json
    (11 MB, one API's record changed) cost 0.006-0.015 CPU s and 0.025-0.06 s on this machine's
    disk, for the file system to free its blocks and allocate them again; in place, 0.003 s.
    Raises FileNotFoundError when there is no such file."""
    with open(path, "rb" if dry_run else "r+b") as file:
        start = 0
        if os.fstat(file.fileno()).st_size == len(data):
            while start < len(data):
                chunk = file.read(_COMPARED_BYTES)
                if not chunk or chunk != data[start:start + len(chunk)]:
                    break
                start += len(chunk)
            else:
                return False
        if not dry_run:
            file.seek(start)
            file.write(memoryview(data)[start:])
            file.truncate()
    return True


class FileManager:
    def __init__(self, root: Path, *, dry_run: bool = False, memo: Optional[EmitMemo] = None) -> None:
        self.root = Path(root)
        self.dry_run = dry_run
        self.memo = memo if not dry_run else None
        # relative path -> content, everything rendered this run: text, or UTF-8 for a file joined
        # from fragments' bytes (_apis.json)
        self.written: dict[str, str | bytes] = {}
        self.kept: set[str] = set()  # files this run did not render: their inputs did not change
        self.changed: list[str] = []
        self.removed: list[str] = []
        self._listed: dict[Path, set[str]] = {}  # directory -> the names in it (`_names_in`)

    def write_derived(self, relpath: str, inputs: str, render: Callable[[], str | bytes]) -> None:
        """`render()` written to `relpath`, unless the memo says the file was rendered from the same
        `inputs` (a `gen.cache.digest`; "" for unknown) and has not changed since."""
        if self.memo is not None and inputs and relpath not in self.written:
            if self.memo.unchanged(self.root, relpath, inputs):
                self.kept.add(relpath)
                return
            with self.memo.rendering(relpath):
                content = render()
            self.write(relpath, content)
            self.memo.record(self.root, relpath, inputs)
            return
        self.write(relpath, render())

    def fragment(self, kind: str, inputs: str, make: Callable[[], T]) -> T:
        """A piece of a file made of many APIs (a stub function, an API's record), made again only
        when its inputs changed."""
        return make() if self.memo is None else self.memo.fragment(kind, inputs, make)

    def save_memo(self) -> None:
        if self.memo is not None:
            self.memo.save(set(self.written) | self.kept)

    def share(self) -> "Share":
        """What this manager did, to be absorbed by the one of the parent process (an emitter run in
        a worker): contents as digests, which is all a conflict check needs."""
        memo = self.memo.share(set(self.written) | self.kept) if self.memo is not None else None
        return Share({k: _content_digest(v) for k, v in self.written.items()}, self.kept, self.changed, memo)

    def absorb(self, share: "Share") -> None:
        for relpath, content in share.written.items():
            if self.written.get(relpath, content) != content:
                raise ValueError(f"two emitters write different content to {relpath}")
            self.written[relpath] = content
        self.kept |= share.kept
        self.changed += share.changed
        if self.memo is not None and share.memo is not None:
            self.memo.absorb(share.memo)

    def write(self, relpath: str, content: str | bytes) -> None:
        if relpath in self.written:
            if self.written[relpath] != content:
                raise ValueError(f"two emitters write different content to {relpath}")
            return
        self.written[relpath] = content
        path = self.root / relpath
        # Compared as bytes: no decoding of the old file (a megabyte for some).
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        if path.name in self._names_in(path.parent):  # a file the run may leave as it is
            try:
                changed = _overwrite(path, data, dry_run=self.dry_run)
            except FileNotFoundError:  # removed since the directory was listed: made anew below
                pass
            else:
                if changed:
                    self.changed.append(relpath)
                return
        self.changed.append(relpath)
        if not self.dry_run:
            if not self._listed.get(path.parent, set()) and not path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self._listed.setdefault(path.parent, set()).add(path.name)

    def _names_in(self, directory: Path) -> set[str]:
        """The files of a directory, listed once per run: one system call for a directory of
        files instead of a failed open per new file (a cold run writes thousands)."""
        names = self._listed.get(directory)
        if names is None:
            try:
                names = set(os.listdir(directory))
            except OSError:  # not there (yet): the files written into it are added as they are
                names = set()
            self._listed[directory] = names
        return names

    def remove_stale(self, owned_dirs: Iterable[str]) -> None:
        """Delete files under `owned_dirs` (relative to the root) that this run did not write."""
        for owned in owned_dirs:
            base = self.root / owned
            if not base.exists():
                continue
            candidates = [os.fspath(base)] if base.is_file() else files_below(base)
            skip = len(os.fspath(self.root)) + 1  # the root and its separator
            for path in candidates:
                rel = path[skip:].replace(os.sep, "/")
                if rel in self.written or rel in self.kept or _unowned(rel):
                    continue
                self.removed.append(rel)
                if not self.dry_run:
                    os.unlink(path)


def files_below(directory: Path | str, unreadable: Optional[list[tuple[str, str]]] = None) -> list[str]:
    """Every file below `directory` (links to files included, links to directories not followed, as
    Path.rglob), in path order, as strings: os.scandir, several times faster than Path.rglob on a
    generated tree of thousands of files.

    An entry that cannot be examined (a symbolic link in a loop: ELOOP from the stat that follows
    it; a folder that cannot be listed) is left out, and added to `unreadable` as (path, reason)
    when a list is given: one bad entry does not end a walk over thousands (issue 25)."""
    found: list[str] = []
    folders = [os.fspath(directory)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append(entry.path)
                        elif entry.is_file():
                            found.append(entry.path)
                    except OSError as exc:
                        if unreadable is not None:
                            unreadable.append((entry.path, exc.strerror or str(exc)))
        except OSError as exc:
            if unreadable is not None:
                unreadable.append((folder, exc.strerror or str(exc)))
    return sorted(found, key=lambda path: path.split(os.sep))


def _unowned(relpath: str) -> bool:
    """`relpath`: relative to the root, with "/"."""
    return any(part in _UNOWNED_PARTS for part in relpath.split("/")) or relpath.endswith(_UNOWNED_SUFFIXES)
