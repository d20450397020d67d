"""What a run keeps for the next one, so that regenerating after one page changed redoes only that page.

Two stores under one directory (`make generate` uses build/cache; `make clean` empties it):

- `IRCache`: the IR of each page, keyed by the page's bytes, its source path (the IR records it
  and its diagnostics cite it) and the parser's version (`parser_version`: a digest of the code
  and data that decide the IR). A page whose key is stored is not parsed again. Kept in a SQLite
  database (`entries.sqlite3`), with the semantics files as read (`SemanticsCache`); the pages
  of the last run on the same inputs are also kept in one file (`IRSnapshot`), which the next run
  reads whole rather than page by page, and so is the semantics stage's result
  (`SemanticsCache.last_stage`).
- `EmitMemo`: for each output file, the digest of what it was rendered from (`digest` of the
  fingerprints of its pages and semantics files, see `gen.model.BoundAPI.fingerprint`; a page's is
  the digest of its IR, `IRCache.fingerprint`) and how
  the run left it on disk; and fragments that files made of every API reuse. A file whose
  inputs and disk state are unchanged is not rendered again. Keyed by the generator's version
  (`generator_version`: every file of gen/, templates/ and runtime/python/), so that a change
  of an emitter or a template renders everything once. Two tables of the same database; a run
  writes only the rows it changed.

Both are keyed by digests of files' bytes (the pages, the semantics files, the generator's own
files), which `FileDigests` remembers by each file's identity: a run reads only the files that
changed since the last one.

Entries are pickles of our own objects, written by this generator into the user's build tree;
one that cannot be read is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional, TypeVar

from gen.ir import Page
from gen.locations import DATA_ROOT, PACKAGE

# What decides a page's IR (the parser, the IR's classes, the parser's data files), and what
# decides every generated file besides; named by their place in the repository.
GENERATOR_SOURCES = ("gen", "templates", "runtime/python")


# The import statements of gen/ modules, read as text: `from gen.x import a, b` (its names may be
# modules: `from gen import families`), parenthesised over lines or not, and `import gen.x`. A
# regular expression, not ast.parse: the key is computed at every run, and parsing the parser's
# modules took a quarter of a one-page regeneration. A match inside a string only widens the key.
_FROM_GEN = re.compile(r"^[ \t]*from[ \t]+(gen(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.M)
_COMMENT = re.compile(r"#[^\n]*")


def imported_gen_modules(text: str) -> list[str]:
    """The gen modules (and names that may be modules) a module's text imports."""
    modules: list[str] = []
    for module, names in _FROM_GEN.findall(text):
        modules.append(module)
        modules += [f"{module}.{name.split()[0]}" for name in _COMMENT.sub("", names).strip("()").split(",")
                    if name.strip()]
    for line in _IMPORT.findall(text):
        modules += [name.split()[0] for name in _COMMENT.sub("", line).split(",") if name.strip().startswith("gen")]
    return modules


def parser_sources(digests: Optional[FileDigests] = None) -> tuple[str, ...]:
    """gen/parse (its code and data files) and every module of gen/ it imports, however indirectly (gen/ir.py, gen/conventions.py,
    ...): read from the import statements, so that a module the parser comes to import keys the IR
    without a list to keep. A convention edited in gen/conventions.py once left the IR of every page
    as the previous parser had made it.

    With `digests`, what the last run found is used again while every module of gen/ has the bytes
    it had then (reading the parser's modules was a twentieth of a one-page run). The key is made
    before the modules are read, so that one changed meanwhile has another key at the next run."""
    digests = digests or FileDigests(None)
    modules = _python_modules()
    try:
        key = digest(*modules, *(digests.of(str(PACKAGE.parent / m)) for m in modules))
    except OSError:  # a module removed meanwhile: found without the memo
        key = ""
    remembered = digests.derived("parser sources")
    if (key and isinstance(remembered, tuple) and len(remembered) == 2 and remembered[0] == key
            and isinstance(remembered[1], tuple) and all(isinstance(source, str) for source in remembered[1])):
        return remembered[1]
    found: set[str] = set()
    pending = [m for m in modules if m.startswith("gen/parse/")]
    while pending:
        source = pending.pop()
        if source in found:
            continue
        found.add(source)
        for module in imported_gen_modules((PACKAGE.parent / source).read_text(encoding="utf-8")):
            path = PACKAGE.parent / Path(*module.split("."))
            for candidate in (path.with_suffix(".py"), path / "__init__.py"):
                if candidate.is_file():
                    pending.append(str(candidate.relative_to(PACKAGE.parent)))
    sources = ("gen/parse", *sorted(f for f in found if not f.startswith("gen/parse/")))
    if key:
        digests.remember("parser sources", (key, sources))
    return sources


def _python_modules() -> list[str]:
    """Every module of gen/, by its place in the repository (gen/parse/api_page.py), in order."""
    return sorted("/".join(("gen", *parts)) for parts in _files_below(PACKAGE) if parts[-1].endswith(".py"))


def _files_below(base: Path) -> list[tuple[str, ...]]:
    """The files below `base` (links to files included, links to directories not followed, as
    Path.rglob), as their parts relative to it, in order; __pycache__ and the installed package's
    _data copies left out (they are no source)."""
    found: list[tuple[str, ...]] = []
    for folder, dirs, names in os.walk(base):
        inner = Path(folder).relative_to(base).parts
        if inner[:1] == ("_data",) or "__pycache__" in inner:
            dirs.clear()
            continue
        found += [(*inner, name) for name in names if not name.endswith(".pyc") and os.path.isfile(os.path.join(folder, name))]
    return sorted(found)


T = TypeVar("T")

# The cache's database, in the cache directory (the IR and the semantics files as read).
DATABASE = "entries.sqlite3"


def _tree_digest(roots: Iterable[str], digests: Optional[FileDigests] = None) -> str:
    """One digest of the files of `roots` (their paths and bytes), and of the Python they run on."""
    digests = digests or FileDigests(None)
    sha = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\0".encode())
    for root in roots:
        base = _located(root)
        for inner in [()] if base.is_file() else _files_below(base):
            sha.update("/".join((root, *inner)).encode() + b"\0")
            sha.update(digests.of(str(base.joinpath(*inner))).encode() + b"\0")
    return sha.hexdigest()[:32]


class FileDigests:
    """The digest (sha256) of input files' bytes, remembered between runs by each file's identity, so
    that a run reads again only the files that changed: after one page changed, reading and hashing
    the 621 others and the generator's 400 files was 0.06 CPU s of a 0.8 s run.

    As git's index: a file's identity is its device, inode, size, mtime and ctime (which no program
    sets at will), and a remembered digest is used only when the file's last change (its ctime)
    came at least `SETTLED_NS` before its bytes were read. A file changed within a tick of a coarse
    file-system clock of its reading could keep the identity the run saw with other bytes: such a
    file is read again by the next run (and trusted by the one after). A digest is thus never
    wrong, only unused; a file whose identity cannot be read is read (and its error raised).

    Kept in one file of the cache directory, replaced whole by a run that learnt something, with
    only the files that run asked about; one that cannot be read is empty, never an error. Without
    a directory, every file is read."""

    FILE = "file-digests.pickle"
    _FORMAT = "aclnn-bindgen file digests 1"
    SETTLED_NS = 2_000_000_000

    def __init__(self, root: Optional[Path]) -> None:
        self.path = Path(root) / self.FILE if root is not None else None
        # absolute path -> (identity, when its bytes were read (ns), digest)
        self._known: dict[str, tuple[tuple[int, ...], int, str]] = {}
        self._derived: dict[str, Any] = {}
        self._used: dict[str, tuple[tuple[int, ...], int, str]] = {}
        self._used_derived: dict[str, Any] = {}
        if self.path is not None:
            with contextlib.suppress(Exception):  # absent or unreadable: nothing remembered
                with open(self.path, "rb") as file:
                    saved = pickle.load(file)
                if (isinstance(saved, dict) and saved.get("format") == self._FORMAT
                        and isinstance(saved.get("files"), dict) and isinstance(saved.get("derived"), dict)):
                    self._known = {path: entry for path, entry in saved["files"].items() if _is_digest_entry(entry)}
                    self._derived = saved["derived"]

    def of(self, path: str) -> str:
        """The digest of the file's bytes, read only when the memo cannot vouch for them."""
        return self.read(path)[0]

    def read(self, path: str) -> tuple[str, Optional[bytes]]:
        """The digest of the file's bytes, and the bytes when they had to be read (None when the
        memo vouched for the digest). OSError when the file cannot be read."""
        absolute = os.path.abspath(path)
        known = self._known.get(absolute)
        if known is not None:
            identity, read_at, sha = known
            if identity == _file_identity(os.stat(absolute)) and identity[-1] + self.SETTLED_NS <= read_at:
                self._used[absolute] = known
                return sha, None
        read_at = time.time_ns()
        with open(absolute, "rb") as file:
            identity = _file_identity(os.fstat(file.fileno()))
            raw = file.read()
        sha = content_digest(raw)
        self._used[absolute] = (identity, read_at, sha)
        return sha, raw

    def derived(self, name: str) -> Any:
        """What the last run remembered under `name` (`remember`), or None; the caller checks it is
        still what its inputs give (a key of their digests) before it uses it, and remembers anew
        what it finds otherwise. Kept for the next run as it is unless remembered anew."""
        value = self._derived.get(name)
        if value is not None:
            self._used_derived.setdefault(name, value)
        return value

    def remember(self, name: str, value: Any) -> None:
        self._used_derived[name] = value

    def save(self) -> None:
        """Keeps what this run used, when it differs from what was kept."""
        derived = self._used_derived
        if self.path is None or (self._used == self._known and derived == self._derived):
            return
        written = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(written, "wb") as file:
                pickle.dump({"format": self._FORMAT, "files": self._used, "derived": derived}, file,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(written, self.path)
            self._known, self._derived = dict(self._used), dict(derived)
        except OSError:
            written.unlink(missing_ok=True)  # an unwritable cache keeps nothing, and fails nothing


def _is_digest_entry(entry: Any) -> bool:
    """Whether a remembered entry has the shape `FileDigests` writes: (identity, read at, digest)."""
    return (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], tuple) and len(entry[0]) == 5
            and isinstance(entry[1], int) and isinstance(entry[2], str))


def _file_identity(stat: os.stat_result) -> tuple[int, ...]:
    """What changes when a file's bytes do: ctime last, which `FileDigests` also reads as the time
    of the file's last change."""
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def _located(root: str) -> Path:
    """A file or directory of the generator named by its place in the repository ("gen/parse",
    "templates"): in the clone, or in the installed package (gen.locations)."""
    top, _, rest = root.partition("/")
    base = PACKAGE if top == "gen" else DATA_ROOT / top
    return base / rest if rest else base


@functools.lru_cache(maxsize=1)
def parser_version(digests: Optional[FileDigests] = None) -> str:
    return _tree_digest(parser_sources(digests), digests)


@functools.lru_cache(maxsize=1)
def generator_version(digests: Optional[FileDigests] = None) -> str:
    return _tree_digest(GENERATOR_SOURCES, digests)


# The inputs of a file made of the generator alone (the dtype tables, the copied runtime modules):
# the memo is dropped when the generator's version changes, so this one key is enough.
GENERATOR_ONLY = "made of the generator alone"


def digest(*parts: str) -> str:
    """One key for several inputs; "" (nothing to key by) when any part is unknown ("")."""
    if any(not part for part in parts):
        return ""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def page_key(source: str, content: str, version: str) -> str:
    """The key of a page's IR: its bytes (their digest, `content`), its source path and the parser's version."""
    return hashlib.sha256(f"{version}\0{source}\0{content}".encode()).hexdigest()[:32]


def content_digest(raw: bytes) -> str:
    """The digest of a file's bytes, as `FileDigests` gives it."""
    return hashlib.sha256(raw).hexdigest()


class _Database:
    """The cache's SQLite database (`entries.sqlite3`), opened on first use with the tables
    `schema` creates. None when it cannot be opened (another run holds it too long, it is
    unwritable): the cache then misses and stores nothing, never an error; a damaged one is made
    anew."""

    _TIMEOUT = 10.0  # seconds another run may hold the database before this one gives up on it
    _MAPPED_BYTES = 1 << 30  # of the database file at most: address space, not memory

    def __init__(self, root: Path, schema: tuple[str, ...]) -> None:
        self.path = Path(root) / DATABASE
        self.schema = schema
        self._db: Optional[sqlite3.Connection] = None
        self._opened = False

    def connection(self) -> Optional[sqlite3.Connection]:
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

    def close(self) -> None:
        """Closed until the next `connection()` (a worker process forked meanwhile holds no open one)."""
        if self._db is not None:
            self._db.close()
        self._db, self._opened = None, False

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=self._TIMEOUT, isolation_level=None)
        try:
            # WAL: readers never wait for a writer; NORMAL: a crash loses the last entries, never the file.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            # Read through a memory map rather than a read() per page: after one page changed, the
            # stub and _apis.json read every API's fragment (15 MB), 0.019 CPU s with a read() per
            # page and 0.012 mapped. (SQLite shrinks the file only when vacuumed, which no run does:
            # a mapping never outlives the bytes under it.)
            db.execute(f"PRAGMA mmap_size={self._MAPPED_BYTES}")
            for statement in self.schema:
                db.execute(statement)
        except sqlite3.Error:
            db.close()
            raise
        return db


class _PickleStore:
    """Pickled entries in one table of the cache's SQLite database (`entries.sqlite3`), each keyed
    by a source's bytes and a version. One database rather than a file per entry: a cold run of a
    docs tree stored ~900 pages, and each file's creation cost this machine's kernel half a
    millisecond; a transaction stores them all. A database that cannot be opened or read (another
    run holds it too long) gives misses and stores nothing, never an error; a damaged one is made
    anew."""

    def __init__(self, root: Path, name: str, version: str) -> None:
        self.table = name
        self.version = version
        self._database = _Database(root, (f"CREATE TABLE IF NOT EXISTS {name} (key TEXT PRIMARY KEY, data BLOB NOT NULL)",))
        self.path = self._database.path

    def key(self, source: str, raw: bytes) -> str:
        return self.key_of(source, content_digest(raw))

    def key_of(self, source: str, content: str) -> str:
        """The key of a source whose bytes have the digest `content` (`content_digest`)."""
        return page_key(source, content, self.version)

    def load_pickled(self, key: str) -> Optional[bytes]:
        db = self._database.connection()
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
        return _unpickled(data, kind) if data is not None else None

    def store_pickled(self, entries: Iterable[tuple[str, bytes]]) -> None:
        """Stores (key, pickle) pairs in one transaction."""
        db = self._database.connection()
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
    the parser's version. With a `snapshot` name, the IR of the pages of the last run on the same
    inputs is read from that snapshot (`IRSnapshot`) rather than from the database page by page."""

    def __init__(self, root: Path, version: Optional[str] = None, snapshot: Optional[str] = None,
                 digests: Optional[FileDigests] = None) -> None:
        # The digests of the pages' bytes (and of the parser's files), remembered in `root` unless given.
        self.digests = digests or FileDigests(root)
        super().__init__(root, "ir", version or parser_version(self.digests))
        self.snapshot = IRSnapshot(Path(root), snapshot) if snapshot else None
        self._ir_digests: dict[str, str] = {}  # key -> `ir_digest` of its page, as parsed or read this run
        self.hits = 0
        self.misses = 0

    def in_snapshot(self, key: str) -> bool:
        """Whether the snapshot has the page of `key` (known before any page of it is read)."""
        return self.snapshot is not None and self.snapshot.holds(key)

    def get(self, key: str) -> Optional[Page]:
        page = self.snapshot.get(key) if self.snapshot is not None else None
        if page is None:
            data = self.load_pickled(key)
            page = _unpickled(data, Page) if data is not None else None
            if page is not None and data is not None:
                self._ir_digests[key] = ir_digest(data)
        if page is None:
            self.misses += 1
        else:
            self.hits += 1
        return page

    def store_pickled(self, entries: Iterable[tuple[str, bytes]]) -> None:
        entries = list(entries)
        self._ir_digests.update((key, ir_digest(data)) for key, data in entries)
        super().store_pickled(entries)

    def ir_digest(self, key: str) -> Optional[str]:
        """The `ir_digest` of the page of `key`, when it was parsed or read from the database this
        run, or the snapshot kept it."""
        known = self._ir_digests.get(key)
        if known is None and self.snapshot is not None:
            known = self.snapshot.ir_digest(key)
        return known

    def fingerprint(self, key: str) -> str:
        """What the emitters' memo keys the page of `key` by: the digest of its IR when known, else
        `key` itself (a digest of its bytes). By its IR, an edit that leaves the IR as it was (a
        comment, spacing, line endings) renders nothing again: a generated file is made of the
        IR, never of the page's bytes."""
        return self.ir_digest(key) or key

    def keep(self, pages: dict[str, Page]) -> None:
        """Makes the snapshot hold these pages (by key): the pages of the run, for the next one."""
        if self.snapshot is not None:
            self.snapshot.save(pages, {key: known for key in pages if (known := self.ir_digest(key))})


# What a snapshot file starts with: a different one is not read (a file of another layout).
_SNAPSHOT_FORMAT = "aclnn-bindgen IR snapshot 2"


def _digests_in(header: dict) -> dict[str, str]:
    """The `ir_digest`s a snapshot's header holds, by key (those of another shape left out)."""
    found = header.get("ir")
    if not isinstance(found, dict):
        return {}
    return {key: value for key, value in found.items() if isinstance(key, str) and isinstance(value, str)}


def _identity(stat: os.stat_result) -> tuple[int, int, int]:
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


class IRSnapshot:
    """The IR of every page of the last run on the same inputs, in one file that a run reads whole.
    Read from the database page by page, the IR of 622 pages took 0.17 CPU s, a third of a one-page
    regeneration: each page's pickle spells out again the classes and enum members that one pickle
    of all pages names once (0.10 s), and each is a query.

    Entries are keyed as the database's are (a page's bytes, its source, the parser's version), so
    an entry is never wrong, only unused: a page changed, removed or parsed by another parser has
    another key, and is missed. Two files, `ir-snapshot-<name>.pickle` and
    `ir-snapshot-<name>.patch.pickle`: the base, with every page of the run that wrote it, and a
    patch, with the pages the base does not have that a later run used (after one page changed, a
    run writes a patch of one page, not 8 MB). When the patch and the base's unused pages come to
    more than an eighth of a run's pages, that run writes the base anew and removes the patch.

    The base starts with its keys and their pages' `ir_digest`s, a pickle of their own, so that a
    run knows which pages it lacks (and starts parsing them) before it reads any page, and what
    each page's IR was without pickling it again; the patch starts with its pages' digests. Files are replaced whole (os.replace): a
    reader sees an old snapshot or a new one. One that cannot be read is empty, never an error."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.base_path = root / f"ir-snapshot-{name}.pickle"
        self.patch_path = root / f"ir-snapshot-{name}.patch.pickle"
        self._base_keys: frozenset[str] = frozenset()
        self._base: Optional[dict[str, Page]] = None  # read at the first page asked for
        # Where the pages start in the base, and the base's identity (inode, size, mtime): the
        # pages are read only from the file whose keys were read.
        self._base_pages_at: Optional[tuple[int, tuple[int, int, int]]] = None
        self._patch: dict[str, Page] = {}
        self._ir_digests: dict[str, str] = {}  # key -> `ir_digest` of its page, of the base and the patch
        self._read_keys()

    def _read_keys(self) -> None:
        try:
            with open(self.base_path, "rb") as file:
                header = pickle.load(file)
                if isinstance(header, dict) and header.get("format") == _SNAPSHOT_FORMAT:
                    self._base_keys = frozenset(header["keys"])
                    self._ir_digests = _digests_in(header)
                    self._base_pages_at = (file.tell(), _identity(os.fstat(file.fileno())))
        except Exception:  # noqa: BLE001 - absent, or unreadable: an empty snapshot
            pass
        try:
            with open(self.patch_path, "rb") as file:
                header = pickle.load(file)
                if isinstance(header, dict) and header.get("format") == _SNAPSHOT_FORMAT:
                    self._patch = self._read_pages(self.patch_path, (file.tell(), _identity(os.fstat(file.fileno()))))
                    self._ir_digests.update(_digests_in(header))
        except Exception:  # noqa: BLE001 - absent, or unreadable: no patch
            pass

    @staticmethod
    def _read_pages(path: Path, at: Optional[tuple[int, tuple[int, int, int]]] = None) -> dict[str, Page]:
        """The pages of a file (from `at`'s offset, when its file is still the one it names)."""
        try:
            with open(path, "rb") as file:
                if at is not None:
                    if _identity(os.fstat(file.fileno())) != at[1]:
                        return {}  # replaced since its keys were read (by another run)
                    file.seek(at[0])
                pages = pickle.load(file)
        except Exception:  # noqa: BLE001 - absent, truncated or of other classes: no pages
            return {}
        return pages if isinstance(pages, dict) else {}

    def holds(self, key: str) -> bool:
        return key in self._patch or key in self._base_keys

    def ir_digest(self, key: str) -> Optional[str]:
        """The `ir_digest` of the page of `key`, when the run that kept it knew it."""
        return self._ir_digests.get(key) if self.holds(key) else None

    def get(self, key: str) -> Optional[Page]:
        page = self._patch.get(key)
        if page is None and key in self._base_keys:
            if self._base is None:
                self._base = self._read_pages(self.base_path, self._base_pages_at) if self._base_pages_at else {}
            page = self._base.get(key)
        return page if isinstance(page, Page) else None

    def save(self, pages: dict[str, Page], ir_digests: Optional[dict[str, str]] = None) -> None:
        """Makes the snapshot hold `pages` (by key), writing the patch or, when the base holds too
        little of them, the base; with the `ir_digest` of each page of `ir_digests`."""
        missing = [key for key in pages if key not in self._base_keys]
        unused = len(self._base_keys - pages.keys())
        known = {key: value for key, value in (ir_digests or {}).items() if key in pages}
        try:
            if len(missing) + unused > len(pages) // 8:
                self._replace(self.base_path, {"format": _SNAPSHOT_FORMAT, "keys": list(pages), "ir": known}, pages)
                self.patch_path.unlink(missing_ok=True)
                self._base_keys, self._base, self._patch = frozenset(pages), dict(pages), {}
                self._ir_digests = known
            elif set(missing) != self._patch.keys() or any(self._ir_digests.get(key) != known.get(key) for key in missing):
                patch = {key: pages[key] for key in missing}
                patch_digests = {key: known[key] for key in missing if key in known}
                self._replace(self.patch_path, {"format": _SNAPSHOT_FORMAT, "ir": patch_digests}, patch)
                self._patch = patch
                self._ir_digests.update(patch_digests)
        except OSError:
            pass  # an unwritable cache keeps nothing, and fails nothing

    def _replace(self, path: Path, *values: Any) -> None:
        """Writes the pickles of `values` into `path` at once: a reader sees the old file or the new."""
        self.root.mkdir(parents=True, exist_ok=True)
        written = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open(written, "wb") as file:
                for value in values:
                    pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(written, path)
        except BaseException:
            written.unlink(missing_ok=True)
            raise


class SemanticsCache(_PickleStore):
    """The semantics files as read (gen.semantics.reader.SemanticsFile), keyed by their bytes and
    the generator's version (the reader checks families against gen/families/): a run after one
    page changed reads no TOML (39 files were a tenth of it)."""

    # The semantics stage's result of the last run, with the key of its inputs (`last_stage`).
    STAGE_FILE = "semantics-stage.pickle"
    _STAGE_FORMAT = "aclnn-bindgen semantics stage 1"

    def __init__(self, root: Path, digests: Optional[FileDigests] = None) -> None:
        self.digests = digests or FileDigests(root)
        super().__init__(root, "semantics", generator_version(self.digests))
        self.stage_path = Path(root) / self.STAGE_FILE

    def last_stage(self, key: str) -> Any:
        """What `keep_stage` kept under `key` (the digest of every input of the stage), or None:
        a run whose semantics files and declared APIs are those of the last reads one file, not
        each file's entry (92 entries were a twentieth of a one-page regeneration)."""
        with contextlib.suppress(Exception):  # absent or unreadable: nothing kept
            with open(self.stage_path, "rb") as file:
                kept = pickle.load(file)
            if isinstance(kept, dict) and kept.get("format") == self._STAGE_FORMAT and kept.get("key") == key:
                return kept.get("value")
        return None

    def keep_stage(self, key: str, value: Any) -> None:
        """Keeps `value` as the stage's result for `key`, replacing the last one's (written at once)."""
        written = self.stage_path.with_name(f"{self.stage_path.name}.{os.getpid()}.tmp")
        try:
            self.stage_path.parent.mkdir(parents=True, exist_ok=True)
            with open(written, "wb") as file:
                pickle.dump({"format": self._STAGE_FORMAT, "key": key, "value": value}, file,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(written, self.stage_path)
        except OSError:
            written.unlink(missing_ok=True)  # an unwritable cache keeps nothing, and fails nothing


def pickle_page(page: Page) -> bytes:
    return pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)


def ir_digest(pickled: bytes) -> str:
    """The digest of a page's IR, from its pickle (`pickle_page`). Equal digests are equal IR; an
    equal IR pickled otherwise (objects shared differently) only has another digest, which
    renders its files again, never wrongly."""
    return "ir:" + hashlib.sha256(pickled).hexdigest()[:29]


def _unpickled(data: bytes, kind: type[T]) -> Optional[T]:
    """`data` unpickled if it is a `kind`; None when truncated or of other classes."""
    try:
        value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - any unreadable entry is a miss
        return None
    return value if isinstance(value, kind) else None


class MemoShare(NamedTuple):
    """What an emit worker's memo sends its parent's (`EmitMemo.share`)."""

    files: dict[str, tuple[str, int, int]]  # relative path -> (inputs digest, size, mtime_ns)
    made: dict[tuple[str, str], Any]  # fragments the database does not hold, by (kind, inputs)
    stored: set[tuple[str, str]]  # fragments used that the database holds
    file_fragments: dict[str, frozenset[tuple[str, str]]]  # the fragments each file rendered is made of


class EmitMemo:
    """What the last run into one output directory rendered (see the module's docstring), in two
    tables of the cache's database keyed by the output directory. A run reads them whole and
    writes back only the rows it changed (a few after one page changed; the fragments alone are
    megabytes, which a memo written whole cost every run)."""

    _SCHEMA = (
        "CREATE TABLE IF NOT EXISTS memo_files (out TEXT NOT NULL, path TEXT NOT NULL, version TEXT NOT NULL, "
        "inputs TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, PRIMARY KEY (out, path))",
        "CREATE TABLE IF NOT EXISTS memo_fragments (out TEXT NOT NULL, kind TEXT NOT NULL, inputs TEXT NOT NULL, "
        "version TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (out, kind, inputs))",
        # The fragments each file is made of (a pickle of their keys, sorted): a fragment is kept
        # while a file of the output is made of it. A row per file, not per fragment: the stub and
        # _apis.json are made of one fragment per API, and a row each was thousands to read and
        # to rewrite at every run.
        "CREATE TABLE IF NOT EXISTS memo_file_parts (out TEXT NOT NULL, path TEXT NOT NULL, version TEXT NOT NULL, "
        "parts BLOB NOT NULL, PRIMARY KEY (out, path))",
    )

    # Fragments read by one query at most (SQLite's limit of parameters was 999 before 3.32).
    _KEYS_PER_QUERY = 900

    def __init__(self, root: Path, out_dir: Path, version: Optional[str] = None,
                 digests: Optional[FileDigests] = None) -> None:
        self.out = hashlib.sha256(str(Path(out_dir).resolve()).encode()).hexdigest()[:16]
        self.version = version or generator_version(digests)
        # relative path -> (inputs digest, size, mtime_ns) as the last run left the file
        self.files: dict[str, tuple[str, int, int]] = {}
        self.fragments: dict[tuple[str, str], Any] = {}
        # relative path -> the fragments (kind, inputs) the file is made of, as the last run left it
        # or as this run rendered it
        self.file_fragments: dict[str, frozenset[tuple[str, str]]] = {}
        self._rendering: Optional[tuple[str, set[tuple[str, str]]]] = None  # the file being rendered
        self._kinds_loaded: set[str] = set()  # kinds of which every stored fragment was read
        self._used: set[tuple[str, str]] = set()
        self._database = _Database(Path(root), self._SCHEMA)
        # What the database holds, which `save` writes the difference to.
        self._stored_files: dict[str, tuple[str, int, int]] = {}
        self._stored_fragments: set[tuple[str, str]] = set()
        self._stored_file_fragments: dict[str, frozenset[tuple[str, str]]] = {}
        self._load()

    def _load(self) -> None:
        db = self._database.connection()
        if db is None:
            return
        try:
            key = (self.out, self.version)
            self.files = {path: (inputs, size, mtime) for path, inputs, size, mtime in db.execute(
                "SELECT path, inputs, size, mtime_ns FROM memo_files WHERE out = ? AND version = ?", key)}
            self._stored_fragments = set(db.execute(
                "SELECT kind, inputs FROM memo_fragments WHERE out = ? AND version = ?", key))
            self.file_fragments = {}
            for path, parts in db.execute("SELECT path, parts FROM memo_file_parts WHERE out = ? AND version = ?", key):
                with contextlib.suppress(Exception):  # unreadable: the file's fragments are not kept for it
                    keys = frozenset(pickle.loads(parts))
                    if all(isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, str) for k in key)
                           for key in keys):
                        self.file_fragments[path] = keys
            self._stored_files = dict(self.files)
            self._stored_file_fragments = dict(self.file_fragments)
        except sqlite3.Error:
            self.files, self._stored_fragments, self.file_fragments = {}, set(), {}
        finally:
            self._database.close()  # emit workers are forked from this process

    def _load_fragments(self, query: str, parameters: tuple[str, ...]) -> None:
        """The fragments `query` selects (kind, inputs, data), read when a file to render asks for
        them: a run that renders no file made of fragments (nothing changed) reads none of their
        megabytes, and one that renders one unit of the bindings reads that unit's."""
        db = self._database.connection()
        if db is None:
            return
        try:
            for kind, inputs, data in db.execute(query, parameters):
                with contextlib.suppress(Exception):  # an unreadable fragment is made again, and replaced
                    self.fragments.setdefault((kind, inputs), pickle.loads(data))
        except sqlite3.Error:
            pass
        finally:
            self._database.close()

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

    @contextlib.contextmanager
    def rendering(self, relpath: str) -> Iterator[None]:
        """Meanwhile, the fragments asked for are those `relpath` is made of."""
        self._rendering = (relpath, set())
        wanted: dict[str, list[str]] = {}  # what the file was made of last time, by kind: most of what it is now
        for kind, inputs in self.file_fragments.get(relpath, ()):
            if (kind, inputs) in self._stored_fragments and (kind, inputs) not in self.fragments:
                wanted.setdefault(kind, []).append(inputs)
        for kind, inputs_list in wanted.items():
            for start in range(0, len(inputs_list), self._KEYS_PER_QUERY):
                chunk = inputs_list[start:start + self._KEYS_PER_QUERY]
                self._load_fragments(
                    f"SELECT kind, inputs, data FROM memo_fragments WHERE out = ? AND version = ? AND kind = ? AND "
                    f"inputs IN ({', '.join('?' * len(chunk))})", (self.out, self.version, kind, *chunk))
        try:
            yield
            if self._rendering[1]:
                self.file_fragments[relpath] = frozenset(self._rendering[1])
            else:  # made of no fragment (most files): nothing to keep for it
                self.file_fragments.pop(relpath, None)
        finally:
            self._rendering = None

    def record(self, root: Path, relpath: str, inputs: str) -> None:
        stat = os.stat(os.path.join(root, relpath))
        self.files[relpath] = (inputs, stat.st_size, stat.st_mtime_ns)

    def fragment(self, kind: str, inputs: str, make: Callable[[], T]) -> T:
        """`make()`, or what it gave the last time for the same kind and inputs."""
        if not inputs:
            return make()
        key = (kind, inputs)
        self._used.add(key)
        if self._rendering is not None:
            self._rendering[1].add(key)
        if key not in self.fragments and key in self._stored_fragments and kind not in self._kinds_loaded:
            # Stored, but not for this file the last time: every fragment of its kind, once.
            self._kinds_loaded.add(kind)
            self._load_fragments("SELECT kind, inputs, data FROM memo_fragments WHERE out = ? AND version = ? AND "
                                 "kind = ?", (self.out, self.version, kind))
        if key not in self.fragments:
            self.fragments[key] = make()
        return self.fragments[key]

    def share(self, paths: Iterable[str]) -> MemoShare:
        """What a worker process learnt about `paths` and the fragments it used, for `absorb`: the
        keys of them all, and the fragments themselves only when the database lacks them. After
        one page changed, a worker uses every API's record and stub; sent whole, they were
        megabytes of pickles for the parent to read."""
        paths = set(paths)
        return MemoShare({k: self.files[k] for k in paths if k in self.files},
                         {k: self.fragments[k] for k in self._used - self._stored_fragments if k in self.fragments},
                         self._used & self._stored_fragments,
                         {k: v for k, v in self.file_fragments.items() if k in paths})

    def absorb(self, shared: MemoShare) -> None:
        self.files.update(shared.files)
        self.fragments.update(shared.made)
        self._used.update(shared.made)
        self._used.update(shared.stored)
        self.file_fragments.update(shared.file_fragments)

    def save(self, kept_files: Iterable[str]) -> None:
        """Keeps the files of this run and the fragments they are made of: what the next one can
        reuse. A fragment no file is made of any longer (an API's, from before its page changed) is
        dropped; those of the files this run did not render are kept as they are. (Dropping every
        fragment of a kind this run did not use dropped, after one page changed, the wrappers of
        every other bindings and simulator unit, and the next page changed elsewhere rendered its
        unit's ~90 again.)"""
        kept = set(kept_files)
        files = {k: v for k, v in self.files.items() if k in kept}
        made_of = {k: v for k, v in self.file_fragments.items() if k in kept}
        # Made here, or stored (a worker's is not always read here), and some file is made of it.
        referenced: set[tuple[str, str]] = set().union(*made_of.values())
        keep = referenced & (self.fragments.keys() | self._stored_fragments)
        unused = self._stored_fragments - keep
        changed_paths = {path for path in made_of.keys() | self._stored_file_fragments.keys()
                         if made_of.get(path) != self._stored_file_fragments.get(path)}
        if files == self._stored_files and not changed_paths and keep == self._stored_fragments:
            # Nothing to write (nothing changed): no transaction, a hundredth of a second of such a
            # run. Rows another generator's version left stay until a run that writes.
            return
        db = self._database.connection()
        if db is None:
            return
        try:
            db.execute("BEGIN")
            # Rows of another generator's version: nothing reads them again.
            for table in ("memo_files", "memo_fragments", "memo_file_parts"):
                db.execute(f"DELETE FROM {table} WHERE out = ? AND version != ?", (self.out, self.version))
            db.executemany("DELETE FROM memo_files WHERE out = ? AND path = ?",
                           [(self.out, path) for path in self._stored_files.keys() - files.keys()])
            db.executemany("INSERT OR REPLACE INTO memo_files VALUES (?, ?, ?, ?, ?, ?)",
                           [(self.out, path, self.version, *entry) for path, entry in files.items()
                            if self._stored_files.get(path) != entry])
            db.executemany("DELETE FROM memo_file_parts WHERE out = ? AND path = ?",
                           [(self.out, path) for path in changed_paths if path not in made_of])
            db.executemany("INSERT OR REPLACE INTO memo_file_parts VALUES (?, ?, ?, ?)",
                           [(self.out, path, self.version, pickle.dumps(sorted(made_of[path]), pickle.HIGHEST_PROTOCOL))
                            for path in changed_paths if path in made_of])
            db.executemany("DELETE FROM memo_fragments WHERE out = ? AND kind = ? AND inputs = ?",
                           [(self.out, *key) for key in unused])
            db.executemany("INSERT OR REPLACE INTO memo_fragments VALUES (?, ?, ?, ?, ?)",
                           [(self.out, *key, self.version, pickle.dumps(self.fragments[key], pickle.HIGHEST_PROTOCOL))
                            for key in keep - self._stored_fragments])
            db.execute("COMMIT")
            self._stored_files, self._stored_fragments, self._stored_file_fragments = files, keep, made_of
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        finally:
            self._database.close()
