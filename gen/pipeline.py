"""One pipeline of named stages, run alike by `make generate`, `make corpus`, the CLI and the benchmarks.

    discover   directories and files -> the pages and the semantics files, in a stable order
    parse      each page -> its IR (gen.parse), in `jobs` processes
    merge      each op README folded into the API page it links to (gen.merge)
    semantics  the semantics of every API a page declares: from the library (semantics/, keyed by
               API name) and from the *.toml files given or found beside the pages, which win
               (gen.semantics.reader)
    select     the APIs to bind, one page per API (gen.model.build_model)
    emit       the Model -> generated files, by every emitter of EMITTERS (gen.emit)

`run` chains them; a tool that needs fewer (`gen inspect` stops after merge, `make corpus` emits
again after leaving out what failed to compile) calls the stage functions themselves. A page that
cannot be parsed never stops a run: its diagnostics are reported with file:line and the page is
left out; the other pages are generated.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib
import os
import pickle
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Optional, Sequence

from gen.cache import EmitMemo, FileDigests, IRCache, SemanticsCache, content_digest, digest, pickle_page
from gen.emit.env import environment, keep_compiled_templates
from gen.emit.files import FileManager, Share, files_below
from gen.ir import Diagnostic, Level, OpSemantics, Page, PageKind
from gen.locations import DATA_ROOT, REPOSITORY, SEMANTICS_LIBRARY
from gen.merge import merge_readmes, readmes_by_page
from gen.progress import Progress, no_progress

if TYPE_CHECKING:
    import concurrent.futures

    from gen.model import Model
    from gen.semantics.reader import SemanticsFile

STAGES = ("discover", "parse", "merge", "semantics", "select", "emit")

# One module per output kind, each with `emit(model, files)`; listed in the order they run, the
# costliest first (on a cold run of a large tree), so that worker processes finish together.
EMITTERS: tuple[str, ...] = (
    "gen.emit.tests",
    "gen.emit.ir_json",
    "gen.emit.package",
    "gen.emit.sim",
    "gen.emit.examples",
    "gen.emit.bindings",
    "gen.emit.stubs",
    "gen.emit.headers",
    "gen.emit.enums",
    "gen.emit.cmake",
)

# The directories of `generated/` the emitters own: files there that a run did not write are
# stale (their page is gone) and are removed.
OWNED_DIRS: tuple[str, ...] = (
    "ir", "include", "aclnnop", "examples", "sources.cmake", "sim", "bindings", "aclnn", "tests", "pyproject.toml")

PAGE_SUFFIXES = (".md", ".txt", ".html", ".htm")
# Below this many pages to parse (or re-parsed, for the emitters), starting worker processes
# costs more than it saves: the work stays in this process. Fewer pages to parse are sent to a
# worker when this process has at least as many to read from the snapshot meanwhile.
PARALLEL_FROM = 32
# Pages a parse worker is sent at once: each message costs this process (its pool's threads, the
# pipes) what it would rather leave to the workers; 2 pages a message took 0.7 CPU s of it for a
# docs tree of 900 pages, 8 take 0.35 s. The pages go largest first, so the last messages hold
# the smallest pages and the workers still finish together.
_PAGES_PER_TASK = 8
SEMANTICS_SUFFIX = ".toml"


# ---- discover ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    pages: tuple[Path, ...]
    semantics: tuple[Path, ...]
    # Entries of the directories that could not be examined (a symbolic link in a loop), with why:
    # reported and skipped, the run goes on.
    unreadable: tuple[tuple[str, str], ...] = ()


def discover(paths: Iterable[str | Path], limit: Optional[int] = None) -> Inputs:
    """Every page and semantics file below the directories given, in path order, and the files
    given as they are (a file named on the command line is read whatever its suffix). `limit`:
    only the first N pages (for development)."""
    pages: list[Path] = []
    semantics: list[Path] = []
    unreadable: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [Path(p) for p in files_below(path, unreadable)]
            pages += [p for p in found if p.suffix.lower() in PAGE_SUFFIXES]
            semantics += [p for p in found if p.suffix == SEMANTICS_SUFFIX]
        elif path.suffix == SEMANTICS_SUFFIX:
            semantics.append(path)
        else:
            pages.append(path)
    return Inputs(tuple(pages[:limit] if limit else pages), tuple(semantics), tuple(unreadable))


def unreadable_diagnostics(inputs: Inputs) -> list[tuple[str, Diagnostic]]:
    """A warning for each entry `discover` skipped, naming it and why."""
    return [(entry, Diagnostic(Level.WARNING, 1, "unreadable-entry", f"skipped, could not be read: {reason}"))
            for entry, reason in inputs.unreadable]


# ---- parse ------------------------------------------------------------------------------------------

def parse(paths: Sequence[Path], *, jobs: int = 1, progress: Progress = no_progress,
          cache: Optional[IRCache] = None) -> list[Page]:
    """The IR of every page, in the order given (see `parse_keyed`)."""
    return parse_keyed(paths, jobs=jobs, progress=progress, cache=cache)[0]


def parse_keyed(paths: Sequence[Path], *, jobs: int = 1, progress: Progress = no_progress,
                cache: Optional[IRCache] = None,
                meanwhile: Callable[[], object] = lambda: None) -> tuple[list[Page], dict[str, str]]:
    """The IR of every page, in the order given, and each page's fingerprint (its cache key) by
    source. With a cache, only the pages whose key is not stored are parsed (and then stored);
    those are parsed in `jobs` worker processes when there are several (forked: they start at
    once and are sent nothing but the pages' bytes; they send back each page's pickle, which the
    cache stores as it is, all in one transaction).

    While workers parse, this process reads the pages the cache's snapshot holds, then calls
    `meanwhile()` (the caller's own work, called only when workers were started): after one page
    changed, a worker loads the parser (half of the cost of parsing one page in a new process) and
    parses it while this process reads the 600 others."""
    pages: list[Optional[Page]] = [None] * len(paths)
    keys: dict[str, str] = {}
    todo: list[_ParseTask] = []
    in_snapshot: list[_ParseTask] = []  # the pages the cache's snapshot holds, read while workers parse
    for index, path in enumerate(paths):
        source = str(path)
        try:
            # With a cache, the page's bytes are read only when the digests' memo cannot vouch for them.
            content, raw = cache.digests.read(source) if cache is not None else ("", path.read_bytes())
        except OSError:
            pages[index] = parse_file(path)  # the page that says why it could not be read
            continue
        if cache is None:
            todo.append(_ParseTask(index, source, raw, None))
            continue
        key = keys[source] = cache.key_of(source, content)
        if cache.in_snapshot(key):
            in_snapshot.append(_ParseTask(index, source, raw, key))
            continue
        pages[index] = cache.get(key)
        if pages[index] is None:
            task = _with_bytes(_ParseTask(index, source, raw, key), cache, keys)
            if task is None:
                pages[index] = parse_file(path)
            else:
                todo.append(task)

    def read_snapshot(workers: bool) -> None:
        for task in in_snapshot:
            pages[task.position] = cache.get(task.key) if cache is not None and task.key else None
        if workers:
            meanwhile()

    parsed = _parse_all(todo, jobs, progress, read_snapshot,
                        overlap=len(in_snapshot) >= PARALLEL_FROM and _a_core_is_idle())
    # The pages of a snapshot that could not be read after all (damaged since its keys were read).
    late: list[_ParseTask] = []
    for task in in_snapshot:
        if pages[task.position] is None:
            with_bytes = _with_bytes(task, cache, keys) if cache is not None else task
            if with_bytes is None:
                pages[task.position] = parse_file(paths[task.position])
            else:
                late.append(with_bytes)
    stored: list[tuple[str, bytes]] = []
    for task, (page, data) in zip(todo + late, parsed + [_parse_one(task) for task in late]):
        pages[task.position] = page
        if task.key is not None:
            stored.append((task.key, data))
    if cache is not None:
        if stored:
            cache.store_pickled(stored)
        cache.keep({keys[page.source]: page for page in pages if page is not None and page.source in keys})
    return [page for page in pages if page is not None], keys


class _ParseTask(NamedTuple):
    position: int  # in the pages given
    source: str
    raw: Optional[bytes]  # None when the digests' memo vouched for the page's key (`_with_bytes`)
    key: Optional[str]  # the page's key in the cache, if there is a cache


def _with_bytes(task: _ParseTask, cache: IRCache, keys: dict[str, str]) -> Optional[_ParseTask]:
    """The task with the page's bytes, to parse: read now when the key came from the digests' memo,
    and the key made again from them (the page may have changed since), so that the IR is stored
    under the key of the bytes it was parsed from. None when the page cannot be read."""
    if task.raw is not None:
        return task
    try:
        raw = Path(task.source).read_bytes()
    except OSError:
        return None
    key = keys[task.source] = cache.key(task.source, raw)
    return task._replace(raw=raw, key=key)


# Where the run keeps the parser's compiled patterns (gen.parse.kept_patterns): the cache's, if any.
_kept_patterns: Optional[Path] = None


def parse_bytes(raw: bytes, source: str) -> Page:
    """gen.parse.parse_bytes, imported when a page is to be parsed: loading the parser is a third
    of a run in which one page changed, and a run in which none did needs none of it."""
    from gen.parse import parse_bytes as parse_page
    from gen.parse.kept_patterns import keep_compiled_patterns

    keep_compiled_patterns(_kept_patterns)
    return parse_page(raw, source)


def parse_file(path: Path) -> Page:
    """gen.parse.parse_file, imported when it is called (see `parse_bytes`)."""
    from gen.parse import parse_file as parse_path
    from gen.parse.kept_patterns import keep_compiled_patterns

    keep_compiled_patterns(_kept_patterns)
    return parse_path(path)


def _load_parser() -> None:
    """A parse worker's first step (a pool's initializer, a `_fork_parser` child's), before it has a
    page: loading the parser is half of what parsing one page costs, and a pool's tasks reach its
    workers through this process's threads, which wait while this process reads the snapshot
    (unpickling holds the interpreter's lock)."""
    importlib.import_module("gen.parse.api_page")
    importlib.import_module("gen.parse.readme")


def _parse_one(task: _ParseTask) -> tuple[Page, bytes]:
    """The page's IR, and its pickle when the cache is to keep it."""
    assert task.raw is not None, "a task to parse carries its page's bytes (_with_bytes)"
    page = parse_bytes(task.raw, task.source)
    return page, pickle_page(page) if task.key is not None else b""


def _parse_task(task: _ParseTask) -> bytes:
    """In a worker: the page's IR, pickled once, sent to the parent."""
    assert task.raw is not None, "a task to parse carries its page's bytes (_with_bytes)"
    return pickle_page(parse_bytes(task.raw, task.source))


def _parse_all(todo: list[_ParseTask], jobs: int, progress: Progress,
               meanwhile: Callable[[bool], None] = lambda workers: None, overlap: bool = False) -> list[tuple[Page, bytes]]:
    """Each task's page and its pickle. `meanwhile(workers)` is called while worker processes
    parse (True), or before parsing here (False). Workers are started for many pages, or for a few
    when `overlap` says that `meanwhile` takes long enough to hide a worker's loading the parser."""
    if jobs <= 1 or not todo or (len(todo) < PARALLEL_FROM and not overlap) or not hasattr(os, "fork"):
        meanwhile(False)
        return [_parse_one(task) for task in progress(todo, "parse")]
    if len(todo) < PARALLEL_FROM:
        return _parse_beside(todo, min(jobs, len(todo)), progress, meanwhile)
    if not _can_fork():
        meanwhile(False)
        return [_parse_one(task) for task in progress(todo, "parse")]
    # Large pages first, so that no worker is left with the longest one at the end. Each result
    # is loaded as it comes, while the workers parse the next pages, not all after the last.
    order = sorted(range(len(todo)), key=lambda i: -len(todo[i].raw or b""))
    parsed: list[tuple[Page, bytes]] = [None] * len(todo)  # type: ignore[list-item]
    with _forked_pool(min(jobs, len(todo)), initializer=_load_parser) as pool:
        done = pool.map(_parse_task, [todo[i] for i in order], chunksize=_PAGES_PER_TASK)
        meanwhile(True)
        for position, data in enumerate(progress(done, "parse", total=len(todo))):
            parsed[order[position]] = (pickle.loads(data), data)
    return parsed


def _parse_beside(todo: list[_ParseTask], processes: int, progress: Progress,
                  meanwhile: Callable[[bool], None]) -> list[tuple[Page, bytes]]:
    """A few pages (after one changed) parsed in `processes` child processes forked for them, each
    with a share of them, while this process calls `meanwhile(True)`. Plain forks and pipes, not a
    pool: loading multiprocessing and concurrent.futures (0.02 CPU s), then starting the pool's
    threads and queues, came before the fork and delayed the whole run by as much."""
    shares: list[list[int]] = [[] for _ in range(processes)]
    sizes = [0] * processes
    for index in sorted(range(len(todo)), key=lambda i: -len(todo[i].raw or b"")):  # largest first
        lightest = sizes.index(min(sizes))
        shares[lightest].append(index)
        sizes[lightest] += len(todo[index].raw or b"")
    children: list[tuple[int, int]] = []  # (process id, the read end of its pipe), not yet waited for
    parsed: list[tuple[Page, bytes]] = [None] * len(todo)  # type: ignore[list-item]
    try:
        with _frozen():
            for share in shares:
                children.append(_fork_parser([todo[i] for i in share]))
        meanwhile(True)
        done: list[tuple[int, bytes]] = []
        for share in shares:  # the children in the order they were forked
            pid, read_end = children.pop(0)
            done += zip(share, _parsed_by(pid, read_end))
        for index, data in progress(done, "parse", total=len(todo)):
            parsed[index] = (pickle.loads(data), data)
    finally:
        for pid, read_end in children:  # left by an exception: their pages are not needed
            os.close(read_end)
            os.waitpid(pid, 0)
    return parsed


def _fork_parser(tasks: list[_ParseTask]) -> tuple[int, int]:
    """A child process that parses `tasks` and writes their pickles (`_parse_task`) to a pipe, then
    ends without the parent's teardown; its id and the pipe's read end."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write_end)
        return pid, read_end
    status = 1
    try:  # the child: whatever happens, it ends here (os._exit), never back in the parent's code
        os.close(read_end)
        try:
            _load_parser()
            result: tuple[str, object] = ("pages", [_parse_task(task) for task in tasks])
            status = 0
        except BaseException:  # noqa: BLE001 - said to the parent, which raises it
            import traceback

            result = ("error", traceback.format_exc())
        with open(write_end, "wb") as pipe:
            pipe.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        os._exit(status)


def _parsed_by(pid: int, read_end: int) -> list[bytes]:
    """What the child `_fork_parser` started sends: its pages' pickles, once it has ended. A child
    that failed raises here, with its traceback."""
    try:
        with open(read_end, "rb") as pipe:
            payload = pipe.read()
    finally:
        _, status = os.waitpid(pid, 0)
    try:
        kind, value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - nothing, or part of it, was sent
        raise RuntimeError(f"a parse worker (process {pid}) ended without sending its pages "
                           f"(wait status {status})") from None
    if kind != "pages" or not isinstance(value, list):
        raise RuntimeError(f"a parse worker (process {pid}) failed:\n{value}")
    return value


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, as a container or taskset limits it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _a_core_is_idle() -> bool:
    """Whether a worker would have a core of its own: the load average of the last minute below
    the cores less one (as `make -l` reads it). A worker started for a few pages only hides its
    loading the parser behind this process's work when it runs beside it: on a machine whose
    cores other processes keep busy, a run that started one took 0.06 CPU s more and no less
    time (A/B, op_docs/ after one page changed, load average 7 on 2 cores)."""
    try:
        return os.getloadavg()[0] < usable_cores() - 1
    except OSError:  # no load average on this system
        return True


def _can_fork() -> bool:
    import multiprocessing  # here: a run that starts no worker process does without it

    return "fork" in multiprocessing.get_all_start_methods()


@contextlib.contextmanager
def _forked_pool(processes: int,
                 initializer: Optional[Callable[[], None]] = None) -> Iterator[concurrent.futures.ProcessPoolExecutor]:
    """Worker processes forked from this one. Its objects are frozen out of the garbage collector
    meanwhile: a collection in a worker would otherwise write to every object it inherited, and
    copy the pages of memory that hold them.

    When the caller fails (a task's exception, Ctrl-C), the tasks not started are cancelled and the
    running ones finish: workers are never killed. multiprocessing.Pool's terminate() kills them,
    and one killed while holding its queue's lock leaves the pool's threads waiting forever."""
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("fork")
    with _frozen():
        pool = concurrent.futures.ProcessPoolExecutor(processes, mp_context=context, initializer=initializer)
        try:
            yield pool
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)


@contextlib.contextmanager
def _frozen() -> Iterator[None]:
    """Every object of the process out of the cycle collector's reach meanwhile (gc.freeze), then
    back in its oldest generation (gc.unfreeze); neither traces anything. Nothing done when the
    process has frozen objects of its own, which unfreezing would release."""
    freezing = not gc.get_freeze_count()
    if freezing:
        gc.freeze()
    try:
        yield
    finally:
        if freezing:
            gc.unfreeze()


def snapshot_name(paths: Iterable[str | Path]) -> str:
    """The name of the IR snapshot of a run on `paths` (gen.cache.IRSnapshot): one per set of
    inputs, so that runs on two docs trees that share a cache directory do not each rewrite the
    snapshot the other one wrote."""
    return hashlib.sha256("\0".join(str(Path(p).resolve()) for p in paths).encode()).hexdigest()[:16]


# ---- merge ------------------------------------------------------------------------------------------

merge = merge_readmes


def merged_fingerprints(parsed: Sequence[Page], merged: Sequence[Page], own: dict[str, str]) -> dict[str, str]:
    """The fingerprint of each merged page: its `own` (by source), and those of the READMEs folded into it."""
    readmes = readmes_by_page(parsed)
    found = {}
    for page in merged:
        mine = own.get(page.source, "")
        folded = readmes.get(page.source, ())
        found[page.source] = digest(mine, *(own.get(r.source, "") for r in folded)) if folded else mine
    return found


# ---- semantics --------------------------------------------------------------------------------------

@dataclass
class Semantics:
    ops: list[OpSemantics] = field(default_factory=list)
    diagnostics: list[tuple[str, Diagnostic]] = field(default_factory=list)
    fingerprints: dict[str, str] = field(default_factory=dict)  # of each file's bytes, by source


def semantics(paths: Sequence[Path], declared: Optional[Iterable[str]] = None,
              library: Optional[Path] = SEMANTICS_LIBRARY, cache: Optional[SemanticsCache] = None) -> Semantics:
    """The semantics of the APIs: the files given (found beside the pages, or named), all of their
    tables (one whose API no page declares is a warning of the select stage), and the library's
    tables of the APIs in `declared` that no file given states (None: every table of the
    library). What they say about their pages (errata) are warnings, and so are the library's
    tables whose API no page of the run declares: one warning for all of them (a run on a few
    pages of a docs tree leaves most of the library unused; a misspelt API name shows up in
    the run on the repository's own pages, which declare every API the library is written for).

    With a cache, a run whose inputs (every file's bytes, the APIs declared, the generator) are
    those of the last run takes the last run's result whole (`SemanticsCache.last_stage`)."""
    declared = None if declared is None else set(declared)  # read twice: for the key, and by the stage
    key = _semantics_key(paths, declared, library, cache) if cache is not None else None
    if cache is not None and key is not None:
        kept = cache.last_stage(key)
        if isinstance(kept, Semantics):
            return kept
    result = _read_semantics(paths, declared, library, cache)
    if cache is not None and key is not None:
        cache.keep_stage(key, result)
    return result


def _semantics_key(paths: Sequence[Path], declared: Optional[Iterable[str]], library: Optional[Path],
                   cache: SemanticsCache) -> Optional[str]:
    """The digest of everything the semantics stage reads: each file's place and bytes (the library's
    as listed now), the APIs declared and the generator's version; None when a file cannot be read
    (the stage then says why)."""
    files = list(paths)
    if library is not None and library.is_dir():
        files += sorted(library.glob("*.toml"))
    parts = [cache.version, str(library), "declared", *(sorted(declared) if declared is not None else ["(every API)"])]
    try:
        for path in files:
            parts += ("file", _source(path), cache.digests.of(str(path)))
    except OSError:
        return None
    return digest(*parts)


def _read_semantics(paths: Sequence[Path], declared: Optional[Iterable[str]], library: Optional[Path],
                    cache: Optional[SemanticsCache]) -> Semantics:
    result = Semantics()
    given: set[str] = set()
    for path in paths:
        _load_into(result, path, lambda op: True, cache)
        given.update(op.api for op in result.ops)
    if library is not None and library.is_dir():
        wanted = None if declared is None else set(declared) - given
        unused: list[tuple[str, int, str]] = []  # (source, line, API)
        for path in sorted(library.glob("*.toml")):
            index = _library_index(path)
            if declared is not None:
                unused.extend((_source(path), line, api) for api, line in sorted(index.items(), key=lambda i: i[1])
                              if api not in declared and api not in given)
            if wanted is not None and not wanted & index.keys():
                continue
            _load_into(result, path, lambda op: op.api not in given and (wanted is None or op.api in wanted), cache)
        if unused:
            source, line, _ = unused[0]
            shown = ", ".join(api for _, _, api in unused[:8]) + (", ..." if len(unused) > 8 else "")
            result.diagnostics.append((source, Diagnostic(
                Level.WARNING, line, "semantics-without-page",
                f"{len(unused)} table{'s' if len(unused) > 1 else ''} of the semantics library "
                f"name{'' if len(unused) > 1 else 's'} {'APIs' if len(unused) > 1 else 'an API'} that no page of this "
                f"run declares ({shown}): they apply only where a page declares their API")))
    return result


def _source(path: Path) -> str:
    """A semantics file as generated files and diagnostics name it: by its path in the repository
    when it is the library's (in a clone or in the installed package alike)."""
    for root in (DATA_ROOT, REPOSITORY):
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return str(path)


def load_semantics(path: Path, source: Optional[str] = None) -> SemanticsFile:
    """gen.semantics.reader.load_semantics, imported when called: the reader loads gen/families/,
    which a run needs only after it has started parsing (see `parse_keyed`)."""
    from gen.semantics.reader import load_semantics as load

    return load(path, source)


def _load_into(result: Semantics, path: Path, keep, cache: Optional[SemanticsCache] = None) -> None:
    from gen.semantics.reader import SemanticsFile

    source = _source(path)
    content: Optional[str] = None  # the digest of the file's bytes (gen.cache.content_digest)
    raw: Optional[bytes] = None
    try:
        # With a cache, the bytes are read only when the digests' memo cannot vouch for them.
        content, raw = cache.digests.read(str(path)) if cache is not None else (None, path.read_bytes())
    except OSError:
        pass  # load_semantics says why it cannot be read
    key = cache.key_of(source, content) if cache is not None and content is not None else None
    loaded = cache.load(key, SemanticsFile) if cache is not None and key is not None else None
    if loaded is None and cache is not None and key is not None and raw is None:
        # Not stored after all: keyed by the bytes read now, as the file is loaded (it may have changed).
        try:
            raw = path.read_bytes()
            content, key = content_digest(raw), cache.key(source, raw)
        except OSError:
            content = key = None
    if loaded is None:
        loaded = load_semantics(path, source)
        if cache is not None and key is not None:
            cache.store(key, loaded)
    ops = [op for op in loaded.ops if keep(op)]
    if content is None and raw is not None:
        content = content_digest(raw)
    if content is not None:
        result.fingerprints[loaded.source] = content[:32]
    result.ops.extend(ops)
    result.diagnostics.extend((loaded.source, d) for d in loaded.diagnostics)
    for op in ops:
        result.diagnostics.extend(
            (loaded.source, Diagnostic(Level.WARNING, op.line, "page-erratum", f"{op.api}: {text}"))
            for text in op.errata)


_TABLE_HEADER = re.compile(rb'^\s*\[\s*"?(aclnn\w+|acl[A-Z]\w*)"?\s*\]', re.M)  # aclnn APIs and acl<Op> ones (aclStft)


def _library_index(path: Path) -> dict[str, int]:
    """The APIs a library file has tables for and the line of each table, from its table headers
    (without parsing the TOML: a run reads only the files of the APIs its pages declare)."""
    try:
        text = path.read_bytes()
    except OSError:
        return {}
    index: dict[str, int] = {}
    for m in _TABLE_HEADER.finditer(text):
        index.setdefault(m.group(1).decode(), text.count(b"\n", 0, m.start(1)) + 1)
    return index


def declared_apis(pages: Iterable[Page]) -> set[str]:
    """The APIs the API pages declare."""
    return {api.name for page in pages if page.kind is PageKind.API_PAGE for api in page.apis}


# ---- select -----------------------------------------------------------------------------------------

def select(pages: Iterable[Page], semantics: Iterable[OpSemantics] = (), fingerprints: Mapping[str, str] = {},
           roots: Sequence[str | Path] = ()) -> Model:
    """gen.model.build_model, imported when called: a run loads the model's modules (and the
    emitters') while its workers parse (`run`), not before it starts them."""
    from gen.model import build_model

    return build_model(pages, semantics, fingerprints, roots)


# ---- emit -------------------------------------------------------------------------------------------

def emit(model: Model, out_dir: Path, *, emitters: Sequence[str] = EMITTERS, owned_dirs: Iterable[str] = OWNED_DIRS,
         dry_run: bool = False, memo: Optional[EmitMemo] = None, jobs: int = 1) -> FileManager:
    """Every emitter's files, written where their content changed; owned files no emitter wrote
    are removed. With a memo, files whose inputs did not change are not even rendered. With
    `jobs` > 1 the emitters run in that many forked worker processes, which see the model as it
    is here, write their files, and send back what they wrote."""
    files = FileManager(out_dir, dry_run=dry_run, memo=memo)
    if jobs > 1 and len(emitters) > 1 and _can_fork():
        global _EMITTING
        _EMITTING = (model, files)
        try:
            with _forked_pool(min(jobs, len(emitters))) as pool:
                for share in pool.map(_emit_in_worker, emitters):
                    files.absorb(share)
        finally:
            _EMITTING = None
    else:
        for module in emitters:
            importlib.import_module(module).emit(model, files)
    files.remove_stale(owned_dirs)
    files.save_memo()
    return files


# What the forked emit workers inherit: the model and the parent's (still empty) file manager.
_EMITTING: Optional[tuple[Model, FileManager]] = None


def _emit_in_worker(module: str) -> Share:
    assert _EMITTING is not None, "an emit worker is forked from emit()"
    model, parent = _EMITTING
    files = FileManager(parent.root, dry_run=parent.dry_run, memo=parent.memo)
    importlib.import_module(module).emit(model, files)
    return files.share()


# ---- the whole run ----------------------------------------------------------------------------------

@dataclass
class Report:
    inputs: Inputs = Inputs((), ())
    pages: list[Page] = field(default_factory=list)  # after merge
    model: Optional[Model] = None
    diagnostics: list[tuple[str, Diagnostic]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # by stage
    reparsed: int = 0  # pages parsed (the others came from the cache)
    rendered: list[str] = field(default_factory=list)  # files rendered (the others' inputs had not changed)

    @property
    def errors(self) -> int:
        return sum(1 for _, d in self.diagnostics if d.level is Level.ERROR)


class _Clock:
    def __init__(self, report: Report) -> None:
        self.report, self.last = report, time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.report.seconds[stage] = now - self.last
        self.last = now


def run(paths: Iterable[str | Path], out_dir: Path, *, emitters: Sequence[str] = EMITTERS,
        owned_dirs: Iterable[str] = OWNED_DIRS, jobs: int = 1, limit: Optional[int] = None,
        dry_run: bool = False, progress: Progress = no_progress, cache_dir: Optional[Path] = None,
        library: Optional[Path] = SEMANTICS_LIBRARY) -> Report:
    """Every stage, in order, from the pages of `paths` to the files of `out_dir`. `cache_dir`:
    where the IR of the pages and the emitters' memo are kept between runs (gen.cache);
    `library`: the semantics library (None: only the semantics files among `paths`)."""
    with _without_cycle_collection():
        return _run(paths, out_dir, emitters=emitters, owned_dirs=owned_dirs, jobs=jobs, limit=limit, dry_run=dry_run,
                    progress=progress, cache_dir=cache_dir, library=library)


@contextlib.contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector off for a run: the IR it builds (hundreds of thousands of
    frozen objects, in no cycle) was traced again and again by collections that found nothing, a
    fifth of a regeneration after one page changed. The little cyclic garbage a run makes is left
    to the collections after it.

    What the run made is then moved to the oldest generation as it is (`_frozen`): left young, all
    of it was traced by the first collection after the run (a tenth of a regeneration), which found
    no cycle in it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            with _frozen():
                pass
            gc.enable()


def _load_later_stages(emitters: Sequence[str]) -> None:
    """What the stages after parse run on: the model's modules, the emitters and Jinja (loaded
    while workers parse: a third of what this process does after one page changed)."""
    importlib.import_module("gen.model")
    importlib.import_module("gen.semantics.reader")
    for module in emitters:
        importlib.import_module(module)
    environment()


def _run(paths: Iterable[str | Path], out_dir: Path, *, emitters: Sequence[str], owned_dirs: Iterable[str], jobs: int,
         limit: Optional[int], dry_run: bool, progress: Progress, cache_dir: Optional[Path],
         library: Optional[Path]) -> Report:
    report = Report()
    clock = _Clock(report)
    paths = list(paths)
    report.inputs = discover(paths, limit)
    report.diagnostics.extend(unreadable_diagnostics(report.inputs))
    clock.lap("discover")

    # One memo of the input files' digests for the run's caches (the pages, semantics and generator files).
    digests = FileDigests(Path(cache_dir)) if cache_dir is not None else None
    cache = IRCache(cache_dir, snapshot=snapshot_name(paths), digests=digests) if cache_dir is not None else None
    if cache_dir is not None:
        keep_compiled_templates(Path(cache_dir) / "templates")
    global _kept_patterns
    _kept_patterns = Path(cache_dir) / "patterns" if cache_dir is not None else None
    parsed, keys = parse_keyed(report.inputs.pages, jobs=jobs, progress=progress, cache=cache,
                               meanwhile=functools.partial(_load_later_stages, emitters))
    report.reparsed = cache.misses if cache is not None else len(parsed)
    patterns = sys.modules.get("gen.parse.kept_patterns")
    if patterns is not None:  # this process parsed: the patterns it compiled are kept for the next run
        patterns.save_compiled_patterns()
    clock.lap("parse")

    report.pages = merge(parsed)
    # The merged pages' diagnostics (their notes of what came from a README), and those of the
    # READMEs folded into them.
    kept = {page.source for page in report.pages}
    for page in report.pages + [p for p in parsed if p.source not in kept]:
        report.diagnostics.extend((page.source, d) for d in page.diagnostics)
    clock.lap("merge")

    loaded = semantics(report.inputs.semantics, declared_apis(report.pages), library,
                       SemanticsCache(cache_dir, digests) if cache_dir is not None else None)
    report.diagnostics.extend(loaded.diagnostics)
    clock.lap("semantics")

    # Each page by its IR (IRCache.fingerprint), the semantics files by their bytes.
    page_fingerprints = {source: cache.fingerprint(key) for source, key in keys.items()} if cache else {}
    fingerprints = {**merged_fingerprints(parsed, report.pages, page_fingerprints), **loaded.fingerprints} if cache else {}
    roots = [Path(p) if Path(p).is_dir() else Path(p).parent for p in paths]
    model = report.model = select(report.pages, loaded.ops, fingerprints, roots)
    report.diagnostics.extend(model.notes)
    report.diagnostics.extend(
        (s.source, Diagnostic(Level.WARNING, 1, "api-skipped", f"{s.what}: not generated: {s.reason}"))
        for s in model.skipped)
    clock.lap("select")

    memo = EmitMemo(cache_dir, Path(out_dir), digests=digests) if cache_dir is not None else None
    # Few pages changed: few files to render, fewer than worker processes would pay for.
    emit_jobs = jobs if report.reparsed >= PARALLEL_FROM else 1
    files = emit(model, Path(out_dir), emitters=emitters, owned_dirs=owned_dirs, dry_run=dry_run, memo=memo,
                 jobs=emit_jobs)
    report.changed, report.removed, report.rendered = files.changed, files.removed, sorted(files.written)
    if digests is not None:
        digests.save()
    clock.lap("emit")
    return report
