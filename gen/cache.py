"""What a run keeps for the next one, so that regenerating after one page changed redoes only that page.

Two stores under one directory (`make generate` uses build/cache; `make clean` empties it):

- `IRCache`: the IR of each page, keyed by the page's bytes, its source path (the IR records it
  and its diagnostics cite it) and the parser's version (`parser_version`: a digest of the code
  and data that decide the IR). A page whose key is stored is not parsed again. Kept in a SQLite
  database (`entries.sqlite3`), with the semantics files as read (`SemanticsCache`).
- `EmitMemo`: for each output file, the digest of what it was rendered from (`digest` of the
  fingerprints of its pages and semantics files, see `gen.model.BoundAPI.fingerprint`) and how
  the run left it on disk; and fragments that files made of every API reuse. A file whose
  inputs and disk state are unchanged is not rendered again. Keyed by the generator's version
  (`generator_version`: every file of gen/, templates/ and runtime/python/), so that a change
  of an emitter or a template renders everything once.

Entries are pickles of our own objects, written by this generator into the user's build tree;
one that cannot be read is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, TypeVar

from gen.ir import Page
from gen.locations import DATA_ROOT, PACKAGE

# What decides a page's IR (the parser, the IR's classes, the parser's data files), and what
# decides every generated file besides; named by their place in the repository.
PARSER_SOURCES = ("gen/parse", "gen/ir.py")
GENERATOR_SOURCES = ("gen", "templates", "runtime/python")

T = TypeVar("T")

# The cache's database, in the cache directory (the IR and the semantics files as read).
DATABASE = "entries.sqlite3"


def _tree_digest(roots: Iterable[str]) -> str:
    sha = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\0".encode())
    for root in roots:
        base = _located(root)
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            inner = path.relative_to(base).parts
            if "__pycache__" in inner or path.suffix == ".pyc" or inner[:1] == ("_data",):
                continue
            sha.update("/".join((root, *inner)).encode() + b"\0")
            sha.update(path.read_bytes() + b"\0")
    return sha.hexdigest()[:32]


def _located(root: str) -> Path:
    """A file or directory of the generator named by its place in the repository ("gen/parse",
    "templates"): in the clone, or in the installed package (gen.locations)."""
    top, _, rest = root.partition("/")
    base = PACKAGE if top == "gen" else DATA_ROOT / top
    return base / rest if rest else base


@functools.lru_cache(maxsize=1)
def parser_version() -> str:
    return _tree_digest(PARSER_SOURCES)


@functools.lru_cache(maxsize=1)
def generator_version() -> str:
    return _tree_digest(GENERATOR_SOURCES)


# The inputs of a file made of the generator alone (the dtype tables, the copied runtime modules):
# the memo is dropped when the generator's version changes, so this one key is enough.
GENERATOR_ONLY = "made of the generator alone"


def digest(*parts: str) -> str:
    """One key for several inputs; "" (nothing to key by) when any part is unknown ("")."""
    if any(not part for part in parts):
        return ""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def page_key(source: str, raw: bytes, version: str) -> str:
    """The key of a page's IR: its bytes, its source path and the parser's version."""
    sha = hashlib.sha256(f"{version}\0{source}\0".encode())
    sha.update(raw)
    return sha.hexdigest()[:32]


def write_atomically(path: Path, data: bytes) -> None:
    """Whole or not at all: two runs (or two workers) sharing the cache never read a half-written
    entry. The directory exists (IRCache makes its own). A temporary name of this process and
    thread: tempfile.mkstemp's search for a free name cost a cold run a fifth of a second."""
    temporary = path.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}-{path.name}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


class _PickleStore:
    """Pickled entries in one table of the cache's SQLite database (`entries.sqlite3`), each keyed
    by a source's bytes and a version. One database rather than a file per entry: a cold run of a
    docs tree stored ~900 pages, and each file's creation cost this machine's kernel half a
    millisecond; a transaction stores them all. A database that cannot be opened or read (another
    run holds it too long) gives misses and stores nothing, never an error; a damaged one is made
    anew."""

    _TIMEOUT = 10.0  # seconds another run may hold the database before this one gives up on it

    def __init__(self, root: Path, name: str, version: str) -> None:
        self.path = Path(root) / DATABASE
        self.table = name
        self.version = version
        self._db: Optional[sqlite3.Connection] = None
        self._opened = False

    def key(self, source: str, raw: bytes) -> str:
        return page_key(source, raw, self.version)

    def _database(self) -> Optional[sqlite3.Connection]:
        if not self._opened:
            self._opened = True
            try:
                self._db = self._connect()
            except sqlite3.DatabaseError as error:
                if isinstance(error, sqlite3.OperationalError):  # held by another run, unwritable: no cache
                    return None
                for stale in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):  # damaged
                    with contextlib.suppress(OSError):
                        stale.unlink()
                with contextlib.suppress(sqlite3.Error):
                    self._db = self._connect()
        return self._db

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=self._TIMEOUT, isolation_level=None)
        try:
            # WAL: readers never wait for a writer; NORMAL: a crash loses the last entries, never the file.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, data BLOB NOT NULL)")
        except sqlite3.Error:
            db.close()
            raise
        return db

    def load_pickled(self, key: str) -> Optional[bytes]:
        db = self._database()
        if db is None:
            return None
        try:
            row = db.execute(f"SELECT data FROM {self.table} WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row else None

    def load(self, key: str, kind: type[T]) -> Optional[T]:
        """The entry of `key` if it is a `kind`; None when absent, truncated or of other classes."""
        data = self.load_pickled(key)
        if data is None:
            return None
        try:
            value = pickle.loads(data)
        except Exception:  # noqa: BLE001 - any unreadable entry is a miss
            return None
        return value if isinstance(value, kind) else None

    def store_pickled(self, entries: Iterable[tuple[str, bytes]]) -> None:
        """Stores (key, pickle) pairs in one transaction."""
        db = self._database()
        if db is None:
            return
        try:
            db.execute("BEGIN")
            db.executemany(f"INSERT OR REPLACE INTO {self.table} (key, data) VALUES (?, ?)", entries)
            db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")

    def store(self, key: str, value: Any) -> None:
        self.store_pickled([(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))])


class IRCache(_PickleStore):
    """The pages' IR (a pickle of the Page, `pickle_page`), keyed by their bytes, their source and
    the parser's version."""

    def __init__(self, root: Path, version: Optional[str] = None) -> None:
        super().__init__(root, "ir", version or parser_version())
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Optional[Page]:
        page = self.load(key, Page)
        if page is None:
            self.misses += 1
        else:
            self.hits += 1
        return page


class SemanticsCache(_PickleStore):
    """The semantics files as read (gen.parse.semantics.SemanticsFile), keyed by their bytes and
    the generator's version (the reader checks families against gen/families.py): a run after one
    page changed reads no TOML (39 files were a tenth of it)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, "semantics", generator_version())


def pickle_page(page: Page) -> bytes:
    return pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)


class EmitMemo:
    """What the last run into one output directory rendered (see the module's docstring)."""

    def __init__(self, root: Path, out_dir: Path, version: Optional[str] = None) -> None:
        name = hashlib.sha256(str(Path(out_dir).resolve()).encode()).hexdigest()[:16]
        self.path = Path(root) / "emit" / f"{name}.pickle"
        self.version = version or generator_version()
        # relative path -> (inputs digest, size, mtime_ns) as the last run left the file
        self.files: dict[str, tuple[str, int, int]] = {}
        self.fragments: dict[tuple[str, str], Any] = {}
        self._used: set[tuple[str, str]] = set()
        try:
            stored = pickle.loads(self.path.read_bytes())
        except Exception:  # noqa: BLE001 - no memo yet, or an unreadable one: render everything
            stored = None
        if isinstance(stored, dict) and stored.get("version") == self.version:
            self.files, self.fragments = stored["files"], stored["fragments"]

    def unchanged(self, root: Path, relpath: str, inputs: str) -> bool:
        """Whether `relpath` was rendered from `inputs` and is still as that run left it."""
        entry = self.files.get(relpath)
        if entry is None or entry[0] != inputs:
            return False
        try:
            stat = os.stat(os.path.join(root, relpath))  # no Path per file: a run checks ~2,000
        except OSError:
            return False
        return (stat.st_size, stat.st_mtime_ns) == entry[1:]

    def record(self, root: Path, relpath: str, inputs: str) -> None:
        stat = os.stat(os.path.join(root, relpath))
        self.files[relpath] = (inputs, stat.st_size, stat.st_mtime_ns)

    def fragment(self, kind: str, inputs: str, make: Callable[[], T]) -> T:
        """`make()`, or what it gave the last time for the same kind and inputs."""
        if not inputs:
            return make()
        key = (kind, inputs)
        self._used.add(key)
        if key not in self.fragments:
            self.fragments[key] = make()
        return self.fragments[key]

    def share(self, paths: Iterable[str]) -> tuple[dict[str, tuple[str, int, int]], dict[tuple[str, str], Any]]:
        """What a worker process learnt about `paths` and the fragments it used, for `absorb`."""
        return ({k: self.files[k] for k in paths if k in self.files},
                {k: self.fragments[k] for k in self._used})

    def absorb(self, shared: tuple[dict[str, tuple[str, int, int]], dict[tuple[str, str], Any]]) -> None:
        files, fragments = shared
        self.files.update(files)
        self.fragments.update(fragments)
        self._used.update(fragments)

    def save(self, kept_files: Iterable[str]) -> None:
        """Keeps the files of this run and the fragments it used: what the next one can reuse."""
        kept = set(kept_files)
        data = {"version": self.version,
                "files": {k: v for k, v in self.files.items() if k in kept},
                "fragments": {k: v for k, v in self.fragments.items() if k in self._used}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
