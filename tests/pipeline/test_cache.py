"""gen/cache.py and incremental runs: a page is parsed again only when its bytes or the parser
change, a file is rendered again only when what it is made of changes, and an incremental run
writes exactly what a cold run writes."""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import gen.pipeline
from gen import pipeline
from gen.cache import DATABASE, EmitMemo, FileDigests, IRCache, IRSnapshot, SemanticsCache, content_digest, parser_sources
from gen.ir import Page, PageKind

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("leaky_relu_backward.md", "leaky_relu_backward.toml", "leaky_relu_grad.README.md",
         "hardsigmoid_backward.md", "hardsigmoid_backward.toml", "exp.md")
# Files made of one API or page each: a run in which nothing changed renders none of them.
PER_API = ("ir/", "aclnnop/", "examples/", "sim/ops_", "bindings/ops_", "tests/test_")


@pytest.fixture
def docs(tmp_path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name in PAGES:
        # The semantics beside the pages (a run's own files), from the library.
        shutil.copy(ROOT / ("semantics" if name.endswith(".toml") else "op_docs") / name, root / name)
    return root


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The sources the pipeline parses (rather than takes from the cache)."""
    seen: list[str] = []
    real = gen.pipeline.parse_bytes

    def counting(raw: bytes, source: str):
        seen.append(Path(source).name)
        return real(raw, source)

    monkeypatch.setattr(gen.pipeline, "parse_bytes", counting)
    return seen


def edit(path: Path, old: str = "指数。", new: str = "指数（edited）。") -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_page_is_parsed_once_then_taken_from_the_cache(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages
    cache = IRCache(tmp_path / "cache", version="v1")
    first = pipeline.parse(paths, cache=cache)
    assert len(parses) == len(paths)
    again = pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1"))
    assert again == first and len(parses) == len(paths)


def test_changed_bytes_are_parsed_again_and_only_they(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages
    pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1"))
    parses.clear()
    edit(docs / "exp.md")
    cache = IRCache(tmp_path / "cache", version="v1")
    pipeline.parse(paths, cache=cache)
    assert parses == ["exp.md"] and (cache.hits, cache.misses) == (len(paths) - 1, 1)


def test_another_parser_version_parses_everything_again(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages
    pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1"))
    parses.clear()
    pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v2"))
    assert len(parses) == len(paths)


def test_an_unreadable_entry_is_a_miss(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages[:1]
    cache = IRCache(tmp_path / "cache", version="v1")
    pipeline.parse(paths, cache=cache)
    with contextlib.closing(sqlite3.connect(cache.path)) as db, db:
        assert db.execute("UPDATE ir SET data = ?", (b"not a pickle",)).rowcount == 1
    assert pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1")) == pipeline.parse(paths)
    assert len(parses) == 3


def test_a_damaged_database_is_made_anew(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages[:2]
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / DATABASE).write_bytes(b"not a database" * 100)
    cache = IRCache(tmp_path / "cache", version="v1")
    assert pipeline.parse(paths, cache=cache) == pipeline.parse(paths)
    assert (cache.hits, cache.misses) == (0, 2)
    again = IRCache(tmp_path / "cache", version="v1")
    pipeline.parse(paths, cache=again)
    assert (again.hits, again.misses) == (2, 0)


def test_a_database_another_run_writes_to_stores_nothing_and_fails_nothing(docs, tmp_path, parses, monkeypatch):
    paths = pipeline.discover([docs]).pages
    pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1"))
    edit(docs / "exp.md")
    parses.clear()
    monkeypatch.setattr(gen.cache._Database, "_TIMEOUT", 0.05)
    with contextlib.closing(sqlite3.connect(tmp_path / "cache" / DATABASE, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")  # another run writing: readers go on (WAL), writers wait
        cache = IRCache(tmp_path / "cache", version="v1")
        assert pipeline.parse(paths, cache=cache) == pipeline.parse(paths)
        assert (cache.hits, cache.misses) == (len(paths) - 1, 1)
        holder.execute("ROLLBACK")
    parses.clear()
    pipeline.parse(paths, cache=IRCache(tmp_path / "cache", version="v1"))
    assert parses == ["exp.md"]  # its store timed out: parsed again, and kept now


# ---- the snapshot (gen.cache.IRSnapshot): every page of the last run in one file ------------------

def snapshot_cache(root: Path, version: str = "v1") -> IRCache:
    return IRCache(root, version=version, snapshot="docs")


def test_the_snapshot_serves_every_page_of_the_last_run_without_the_database(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages
    first = pipeline.parse(paths, cache=snapshot_cache(tmp_path / "cache"))
    with contextlib.closing(sqlite3.connect(tmp_path / "cache" / DATABASE)) as db, db:
        assert db.execute("DELETE FROM ir").rowcount == len(paths)
    parses.clear()
    cache = snapshot_cache(tmp_path / "cache")
    assert pipeline.parse(paths, cache=cache) == first and parses == [] and cache.hits == len(paths)


def test_a_page_added_changed_or_removed_is_what_the_snapshot_gives_and_keeps(docs, tmp_path, parses):
    cache_dir = tmp_path / "cache"
    pipeline.parse(pipeline.discover([docs]).pages, cache=snapshot_cache(cache_dir))
    shutil.copy(ROOT / "op_docs" / "abs.md", docs / "abs.md")  # added
    edit(docs / "exp.md")  # changed
    (docs / "hardsigmoid_backward.md").unlink()  # removed
    paths = pipeline.discover([docs]).pages
    parses.clear()
    assert pipeline.parse(paths, cache=snapshot_cache(cache_dir)) == pipeline.parse(paths)
    assert sorted(parses[:2]) == ["abs.md", "exp.md"]  # then the uncached run's, all of them
    snapshot = snapshot_cache(cache_dir).snapshot
    assert snapshot is not None
    keys = {IRCache(cache_dir, version="v1").key(str(p), p.read_bytes()) for p in paths}
    assert all(snapshot.holds(key) for key in keys)
    # More than an eighth of the pages was new or gone: the base was written anew, with these alone.
    assert not snapshot.patch_path.exists() and snapshot._base_keys == keys


def test_a_few_pages_changed_go_into_the_patch_and_many_into_a_new_base(tmp_path):
    pages = {f"key{n}": Page(source=f"page{n}.md", kind=PageKind.API_PAGE) for n in range(16)}
    IRSnapshot(tmp_path, "docs").save(pages)
    base = IRSnapshot(tmp_path, "docs").base_path.read_bytes()
    one_changed = {**{k: v for k, v in pages.items() if k != "key0"}, "key0b": pages["key0"]}
    IRSnapshot(tmp_path, "docs").save(one_changed)  # one new, one unused: not over 16 / 8
    snapshot = IRSnapshot(tmp_path, "docs")
    assert snapshot.base_path.read_bytes() == base and snapshot.patch_path.exists()
    assert all(snapshot.get(key) == page for key, page in one_changed.items())
    three_changed = {**one_changed, "key1b": pages["key1"], "key2b": pages["key2"]}
    del three_changed["key1"], three_changed["key2"]
    snapshot.save(three_changed)
    snapshot = IRSnapshot(tmp_path, "docs")
    assert not snapshot.patch_path.exists() and snapshot._base_keys == three_changed.keys()
    assert all(snapshot.get(key) == page for key, page in three_changed.items()) and not snapshot.holds("key0")


def test_a_base_replaced_after_its_keys_were_read_gives_none_of_its_pages_and_no_error(tmp_path):
    pages = {f"key{n}": Page(source=f"page{n}.md", kind=PageKind.API_PAGE) for n in range(4)}
    IRSnapshot(tmp_path, "docs").save(pages)
    reading = IRSnapshot(tmp_path, "docs")  # its keys read, not its pages
    IRSnapshot(tmp_path, "docs").save({"other": pages["key0"]})  # another run writes a new base
    assert reading.holds("key1") and reading.get("key1") is None  # the caller parses it


def test_another_parser_version_parses_every_page_of_the_snapshot_again(docs, tmp_path, parses):
    paths = pipeline.discover([docs]).pages
    pipeline.parse(paths, cache=snapshot_cache(tmp_path / "cache", "v1"))
    parses.clear()
    pipeline.parse(paths, cache=snapshot_cache(tmp_path / "cache", "v2"))
    assert len(parses) == len(paths)


@pytest.mark.parametrize("damage", ["garbage", "truncated body"])
def test_a_damaged_snapshot_is_an_empty_one(docs, tmp_path, parses, damage):
    paths = pipeline.discover([docs]).pages
    cache = snapshot_cache(tmp_path / "cache")
    pipeline.parse(paths, cache=cache)
    assert cache.snapshot is not None
    data = cache.snapshot.base_path.read_bytes()
    cache.snapshot.base_path.write_bytes(b"not a pickle" if damage == "garbage" else data[:len(data) // 2])
    with contextlib.closing(sqlite3.connect(tmp_path / "cache" / DATABASE)) as db, db:
        db.execute("DELETE FROM ir")
    parses.clear()
    assert pipeline.parse(paths, cache=snapshot_cache(tmp_path / "cache")) == pipeline.parse(paths)
    assert len(parses) == 2 * len(paths)  # the cached run's and the uncached run's


def test_a_page_changed_is_parsed_by_a_worker_while_the_snapshot_is_read(docs, tmp_path, monkeypatch, parses):
    # Workers for one page, as for one page of a docs tree of hundreds (the snapshot's pages to read).
    monkeypatch.setattr(gen.pipeline, "PARALLEL_FROM", 2)
    monkeypatch.setattr(gen.pipeline, "_a_core_is_idle", lambda: True)  # whatever else runs on the machine
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    edit(docs / "exp.md")
    parses.clear()
    report = pipeline.run([docs], out, cache_dir=cache, jobs=2)
    assert report.reparsed == 1 and parses == []  # parsed, not in this process
    pipeline.run([docs], tmp_path / "cold")
    assert tree(out) == tree(tmp_path / "cold")


def test_an_incremental_run_writes_what_a_cold_run_writes(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    for name, change in (("exp.md", ("指数。", "指数（edited）。")),
                         ("leaky_relu_grad.README.md", ("Ascend 950PR", "Ascend 950XX")),
                         ("hardsigmoid_backward.toml", ("hardsigmoid_backward", "hardsigmoid_backward "))):
        edit(docs / name, *change)
        report = pipeline.run([docs], out, cache_dir=cache)
        assert report.reparsed == (0 if name.endswith(".toml") else 1)
        cold = tmp_path / f"cold-{name}"
        pipeline.run([docs], cold)
        assert tree(out) == tree(cold), name


def test_nothing_changed_renders_nothing_derived_from_the_pages(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    again = pipeline.run([docs], out, cache_dir=cache)
    assert again.reparsed == 0 and again.changed == [] and again.removed == []
    # The files made of every API are keyed by all the APIs' fingerprints: none is rendered either.
    assert again.rendered == []


def test_an_edit_that_leaves_the_ir_as_it_was_renders_nothing(docs, tmp_path):
    """The emitters' memo keys a page by its IR, not its bytes: a comment added is parsed again
    (its bytes changed) and renders nothing, from the snapshot's digests and from the database's."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    page = docs / "exp.md"
    page.write_bytes(page.read_bytes() + b"\n<!-- a comment -->\n")
    report = pipeline.run([docs], out, cache_dir=cache)
    assert report.reparsed == 1 and report.rendered == [] and report.changed == []
    for snapshot in cache.glob("ir-snapshot-*"):  # the IR's digests from the database's entries
        snapshot.unlink()
    page.write_bytes(page.read_bytes() + b"<!-- another -->\n")
    again = pipeline.run([docs], out, cache_dir=cache)
    assert again.reparsed == 1 and again.rendered == []
    edit(page)  # and an edit of what the IR holds renders the page's files
    assert any(path.startswith("tests/test_exp") for path in pipeline.run([docs], out, cache_dir=cache).rendered)


def test_the_snapshot_keeps_the_ir_digest_of_each_page(tmp_path):
    pages = {f"key{i}": Page(source=f"p{i}.md", kind=PageKind.API_PAGE) for i in range(16)}
    digests = {key: f"ir:{key}" for key in pages}
    IRSnapshot(tmp_path, "docs").save(pages, digests)
    assert all(IRSnapshot(tmp_path, "docs").ir_digest(key) == digests[key] for key in pages)
    IRSnapshot(tmp_path, "docs").save({**pages, "new": pages["key0"]}, {**digests, "new": "ir:new"})  # a patch
    snapshot = IRSnapshot(tmp_path, "docs")
    assert snapshot.patch_path.exists() and snapshot.ir_digest("new") == "ir:new" and snapshot.ir_digest("gone") is None


def test_a_run_that_renders_nothing_keeps_the_fragments_for_the_next(docs, tmp_path):
    """The fragments (one API's stub, record, wrapper) of a kind no file asked for are kept: a
    no-op run must not leave the next one-page change to render every API's part again."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    stored = EmitMemo(cache, out)._stored_fragments
    assert {kind for kind, _ in stored} >= {"stub text", "api record", "binding wrapper", "sim api"}
    pipeline.run([docs], out, cache_dir=cache)
    assert EmitMemo(cache, out)._stored_fragments == stored


def test_a_file_changed_or_deleted_by_hand_is_rendered_again(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    test_file = out / "tests" / "test_exp.py"
    original = test_file.read_bytes()
    test_file.write_bytes(original + b"# edited\n")
    report = pipeline.run([docs], out, cache_dir=cache)
    assert report.changed == ["tests/test_exp.py"] and test_file.read_bytes() == original
    # Deleted behind the cache's back: a file of one API, and one joined from every API's fragment.
    apis = out / "aclnn" / "_apis.json"
    joined = apis.read_bytes()
    test_file.unlink()
    apis.unlink()
    report = pipeline.run([docs], out, cache_dir=cache)
    assert sorted(report.changed) == ["aclnn/_apis.json", "tests/test_exp.py"]
    assert test_file.read_bytes() == original and apis.read_bytes() == joined


def test_another_generator_version_renders_everything(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    first = pipeline.run([docs], out, cache_dir=cache)
    memo = EmitMemo(cache, out)
    assert memo.files and EmitMemo(cache, out, version="another").files == {}
    assert sorted(first.rendered) == sorted(tree(out))


def _memo_rows(cache: Path) -> tuple[dict[str, tuple], set[tuple[str, str, str]]]:
    with contextlib.closing(sqlite3.connect(cache / DATABASE)) as db:
        files = {row[0]: row[1:] for row in db.execute("SELECT path, version, inputs, size, mtime_ns FROM memo_files")}
        fragments = {row for row in db.execute("SELECT kind, inputs, version FROM memo_fragments")}
    return files, fragments


def test_the_memo_rewrites_only_the_rows_of_what_changed(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    pipeline.run([docs], out, cache_dir=cache)
    files, fragments = _memo_rows(cache)
    assert "tests/test_exp.py" in files and len(files) > 20 and fragments
    edit(docs / "exp.md")
    report = pipeline.run([docs], out, cache_dir=cache)
    files_after, fragments_after = _memo_rows(cache)
    changed = {path for path, row in files_after.items() if files.get(path) != row}
    assert changed and changed <= set(report.rendered) and files_after.keys() == files.keys()
    # The fragments of each API of exp.md (aclnnExp, aclnnInplaceExp: its stub, record, wrapper
    # and simulator entry): made anew, the old ones dropped; every other API's kept.
    kinds = ("stub text", "api record", "binding wrapper", "sim api")
    exp_apis = [b for b in report.model.apis if b.page.source.endswith("exp.md")]
    assert len(exp_apis) == 2
    assert len(fragments_after - fragments) == 2 * len(kinds) and len(fragments - fragments_after) == 2 * len(kinds)
    assert len(fragments_after) == len(fragments) == len(kinds) * len(report.model.apis)


def test_a_memo_of_another_generator_version_replaces_the_rows_of_the_last(docs, tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    first = pipeline.run([docs], out, cache_dir=cache)
    memo = EmitMemo(cache, out, version="another")
    assert memo.files == {} and memo.fragments == {}
    memo.record(out, "tests/test_exp.py", "inputs")
    memo.save(["tests/test_exp.py"])
    files, fragments = _memo_rows(cache)
    assert files.keys() == {"tests/test_exp.py"} and files["tests/test_exp.py"][:2] == ("another", "inputs")
    assert fragments == set() and len(first.rendered) > 1


def test_emitters_in_worker_processes_write_what_one_process_writes(docs, tmp_path):
    report = pipeline.run([docs], tmp_path / "serial")
    parallel = pipeline.emit(report.model, tmp_path / "parallel", jobs=2)
    assert tree(tmp_path / "parallel") == tree(tmp_path / "serial")
    assert sorted(parallel.written) == sorted(tree(tmp_path / "serial"))


def test_the_memo_of_worker_processes_serves_the_next_run(docs, tmp_path):
    report = pipeline.run([docs], tmp_path / "scratch", cache_dir=tmp_path / "cache")
    out = tmp_path / "out"
    pipeline.emit(report.model, out, jobs=2, memo=EmitMemo(tmp_path / "cache", out))
    again = pipeline.emit(report.model, out, jobs=2, memo=EmitMemo(tmp_path / "cache", out))
    assert [f for f in again.written if f.startswith(PER_API)] == [] and again.kept


def test_a_semantics_file_is_read_once_then_taken_from_the_cache_until_its_bytes_change(docs, tmp_path, monkeypatch):
    read: list[str] = []
    real = gen.pipeline.load_semantics

    def counting(path, source=None):
        read.append(Path(path).name)
        return real(path, source)

    monkeypatch.setattr(gen.pipeline, "load_semantics", counting)
    files = pipeline.discover([docs]).semantics
    cold = pipeline.semantics(files, library=None, cache=SemanticsCache(tmp_path / "cache"))
    assert sorted(read) == ["hardsigmoid_backward.toml", "leaky_relu_backward.toml"]
    read.clear()
    warm = pipeline.semantics(files, library=None, cache=SemanticsCache(tmp_path / "cache"))
    assert read == [] and (warm.ops, warm.diagnostics, warm.fingerprints) == (cold.ops, cold.diagnostics,
                                                                              cold.fingerprints)
    toml = docs / "leaky_relu_backward.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = pipeline.semantics(files, library=None, cache=SemanticsCache(tmp_path / "cache"))
    assert read == ["leaky_relu_backward.toml"] and edited.fingerprints != cold.fingerprints


def test_the_semantics_stage_is_taken_whole_while_its_files_and_declared_apis_are_those_of_the_last_run(
        docs, tmp_path, monkeypatch):
    entries: list[str] = []
    real = SemanticsCache.load

    def counting(self, key, kind):
        entries.append(key)
        return real(self, key, kind)

    monkeypatch.setattr(SemanticsCache, "load", counting)
    library = tmp_path / "library"
    library.mkdir()
    (docs / "hardsigmoid_backward.toml").rename(library / "hardsigmoid_backward.toml")
    files, cache = pipeline.discover([docs]).semantics, tmp_path / "cache"
    declared = {"aclnnHardsigmoidBackward", "aclnnLeakyReluBackward"}
    cold = pipeline.semantics(files, declared, library, SemanticsCache(cache))
    assert len(entries) == 2 and len(cold.ops) == 2
    entries.clear()
    warm = pipeline.semantics(files, declared, library, SemanticsCache(cache))
    assert entries == [] and (warm.ops, warm.diagnostics, warm.fingerprints) == (cold.ops, cold.diagnostics,
                                                                                 cold.fingerprints)
    # Another set of declared APIs, a library file edited: read again, file by file.
    fewer = pipeline.semantics(files, {"aclnnLeakyReluBackward"}, library, SemanticsCache(cache))
    assert entries and [op.api for op in fewer.ops] == ["aclnnLeakyReluBackward"]
    entries.clear()
    toml = library / "hardsigmoid_backward.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = pipeline.semantics(files, declared, library, SemanticsCache(cache))
    assert entries and edited.fingerprints != cold.fingerprints


def test_the_parsers_version_covers_every_module_parsing_loads():
    # What a fresh interpreter loads of gen/ to parse a page is what decides the IR: each module of
    # it is in the parser's version (a convention of gen/conventions.py once was not, and an edited
    # convention left the cached IR of every page as the previous code had made it).
    code = ("import sys; from gen.parse import parse_file; parse_file(sys.argv[1]); "
            "print('\\n'.join(m.__file__ for n, m in sys.modules.items() if n.split('.')[0] == 'gen'))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "op_docs" / "aclnnIndexAdd.md")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = {str(Path(f).resolve().relative_to(ROOT)) for f in done.stdout.split()}
    from gen.cache import parser_sources
    sources = parser_sources()
    uncovered = {f for f in loaded if f not in sources and not any(f.startswith(s + "/") for s in sources)}
    assert not uncovered, f"modules the parser loads that do not key the IR cache: {sorted(uncovered)}"


def test_the_import_reading_that_keys_the_ir_finds_every_form_of_import():
    from gen.cache import imported_gen_modules

    text = ("from gen import families, names  # two modules\n"
            "from gen.ir import (API, Param,  # a comment\n    Relation)\n"
            "    from gen.parse.extractors.example_call import split_arguments\n"
            "import gen.conventions, os\n"
            "from genius import nothing\n")
    assert set(imported_gen_modules(text)) == {
        "gen", "gen.families", "gen.names", "gen.ir", "gen.ir.API", "gen.ir.Param", "gen.ir.Relation",
        "gen.parse.extractors.example_call", "gen.parse.extractors.example_call.split_arguments", "gen.conventions"}


def test_a_remembered_digest_serves_only_while_the_file_keeps_the_identity_it_was_read_with(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_bytes(b"one")
    # Just written: changed too recently to be vouched for by its identity; read by the next run too.
    FileDigests(tmp_path / "cache").read(str(page))
    digests = FileDigests(tmp_path / "cache")
    digests.save()
    assert FileDigests(tmp_path / "cache").read(str(page)) == (content_digest(b"one"), b"one")
    monkeypatch.setattr(FileDigests, "SETTLED_NS", 0)  # as if the page had been written long before
    digests = FileDigests(tmp_path / "cache")
    digests.read(str(page))
    digests.save()
    assert FileDigests(tmp_path / "cache").read(str(page)) == (content_digest(b"one"), None)  # not read
    stat = page.stat()
    page.write_bytes(b"two")  # the same size and, put back, the same mtime: the ctime says it changed
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert FileDigests(tmp_path / "cache").read(str(page)) == (content_digest(b"two"), b"two")
    # A memo of another shape is an empty one, never an error.
    sources = parser_sources()
    for damaged in ({"format": FileDigests._FORMAT, "files": {str(page): "?"}, "derived": {"parser sources": 1}},
                    {"format": FileDigests._FORMAT, "files": [], "derived": None}):
        (tmp_path / "cache" / FileDigests.FILE).write_bytes(pickle.dumps(damaged))
        memo = FileDigests(tmp_path / "cache")
        assert memo.read(str(page)) == (content_digest(b"two"), b"two")
        assert parser_sources(memo) == sources


def test_the_parsers_sources_are_remembered_and_found_anew_when_their_key_is_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(FileDigests, "SETTLED_NS", 0)
    digests = FileDigests(tmp_path)
    found = parser_sources(digests)
    digests.save()
    for _ in range(2):  # found again from the memo, and kept for the run after
        remembered = FileDigests(tmp_path)
        assert parser_sources(remembered) == found and remembered.derived("parser sources")[1] == found
        remembered.save()
    # A key that no longer matches (a module read changed): found by reading the imports again.
    remembered._derived["parser sources"] = ("another key", ("gen/parse",))
    assert parser_sources(remembered) == found


def test_the_fragments_of_a_file_left_unrendered_are_kept_and_those_of_no_file_dropped(tmp_path):
    from gen.emit.files import FileManager

    made: list[str] = []

    def run(*inputs: str) -> None:
        files = FileManager(tmp_path / "out", memo=EmitMemo(tmp_path / "cache", tmp_path / "out", version="v1"))
        for name, key in zip("ab", inputs):
            files.write_derived(f"{name}.txt", key, lambda key=key: files.fragment("part", key, lambda: made.append(key) or key))
        files.save_memo()

    run("a1", "b1")
    run("a2", "b1")  # a's page changed: b.txt is not rendered, and its part is kept for it
    assert made == ["a1", "b1", "a2"]
    (tmp_path / "out" / "b.txt").unlink()
    run("a2", "b1")  # b.txt rendered again, from the part kept
    assert made == ["a1", "b1", "a2"]
    assert EmitMemo(tmp_path / "cache", tmp_path / "out", version="v1")._stored_fragments == {("part", "a2"), ("part", "b1")}
