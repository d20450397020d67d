"""gen/pipeline.py: the stages every tool runs, on a few seed pages (no compiler)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gen import cli, pipeline
from gen.ir import PageKind, Soc

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("leaky_relu_backward.md", "leaky_relu_grad.README.md", "hardsigmoid_backward.md")


@pytest.fixture
def docs(tmp_path) -> Path:
    root = tmp_path / "docs"
    (root / "nested").mkdir(parents=True)
    for name in PAGES:
        shutil.copy(ROOT / "op_docs" / name, root / name)
    shutil.copy(ROOT / "semantics" / "leaky_relu_backward.toml", root / "nested")
    (root / "notes.rst").write_text("not a page")
    return root


def test_discover_finds_pages_and_semantics_in_path_order(docs):
    inputs = pipeline.discover([docs])
    assert [p.name for p in inputs.pages] == sorted(PAGES)
    assert [p.relative_to(docs).as_posix() for p in inputs.semantics] == ["nested/leaky_relu_backward.toml"]
    assert pipeline.discover([docs], limit=1).pages == inputs.pages[:1]
    assert pipeline.discover([docs / "notes.rst"]).pages == (docs / "notes.rst",)  # named, so read


def test_parse_in_processes_gives_what_one_process_gives(docs):
    paths = pipeline.discover([docs]).pages
    assert pipeline.parse(paths, jobs=2) == pipeline.parse(paths, jobs=1)


def test_run_merges_the_readme_into_the_page_it_links(docs, tmp_path):
    report = pipeline.run([docs], tmp_path / "out", emitters=("gen.emit.ir_json",))
    assert [p.kind for p in report.pages].count(PageKind.OP_README) == 0
    bound = report.model.api("aclnnLeakyReluBackward")
    assert bound.page.supports(Soc.ASCEND950)  # a chip only the README lists
    assert any(d.code == "merged-from-readme" for _, d in report.diagnostics)
    assert not (tmp_path / "out" / "ir" / "leaky_relu_grad.README.md.json").exists()


def test_run_times_every_stage(docs, tmp_path):
    report = pipeline.run([docs], tmp_path / "out", emitters=())
    assert list(report.seconds) == list(pipeline.STAGES)
    assert report.model.api("aclnnLeakyReluBackward").semantics is not None  # from nested/


def test_the_cli_and_run_write_the_same_files(docs, tmp_path):
    pipeline.run([docs], tmp_path / "by-run")
    assert cli.main(["generate", str(docs), "--out", str(tmp_path / "by-cli"), "--jobs", "2"]) == 0
    files = sorted(p.relative_to(tmp_path / "by-run") for p in (tmp_path / "by-run").rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(tmp_path / "by-cli")
                                     for p in (tmp_path / "by-cli").rglob("*") if p.is_file())
    assert all((tmp_path / "by-run" / f).read_bytes() == (tmp_path / "by-cli" / f).read_bytes() for f in files)


def test_make_generate_and_make_corpus_give_the_same_ir_for_every_page_of_op_docs(tmp_path, monkeypatch):
    """Issue 14's measure: `make generate` (the CLI, with its cache) and `make corpus` (its
    generation step) write byte-identical IR for every page of op_docs/. make generate's IR is the
    committed generated/ir/ (`make check-generated`, which `make test` runs first, holds it to what
    the CLI writes), so only the corpus run is made here: a second cold generation of op_docs/
    cost make test about 25 CPU seconds."""
    from gen.corpus import run as corpus_run
    from gen.progress import no_progress

    monkeypatch.chdir(ROOT)  # the pages named as make generate names them (the IR records the path)
    corpus_run.generate(Path("op_docs"), tmp_path / "corpus", jobs=2, progress=no_progress)
    by_generate, by_corpus = (sorted(where.glob("*.json"))
                              for where in (ROOT / "generated" / "ir", tmp_path / "corpus" / "generated" / "ir"))
    pages = {p.name for p in (ROOT / "op_docs").iterdir() if p.suffix in (".md", ".txt", ".html")}
    # Every page has its IR but the READMEs, which are merged into the page they link.
    stale = "generated/ is not what make generate gives: run make generate"
    assert {p.name.removesuffix(".json") for p in by_generate} == {p for p in pages if not p.endswith("README.md")}, stale
    assert [p.name for p in by_generate] == [p.name for p in by_corpus]
    differing = [p.name for p in by_generate if p.read_bytes() != (tmp_path / "corpus/generated/ir" / p.name).read_bytes()]
    assert differing == [], f"{stale}, or the two runs differ: {differing[:5]}"


def test_the_corpus_run_uses_no_emitter():
    """make corpus reads the Python API layer (gen.api), never an emitter's internals."""
    import ast

    imported = {node.module if isinstance(node, ast.ImportFrom) else alias.name
                for path in (ROOT / "gen" / "corpus").glob("*.py")
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    assert not {m for m in imported if m and m.startswith("gen.emit")}


def test_run_leaves_the_cycle_collector_as_it_found_it(docs, tmp_path):
    import gc

    assert gc.isenabled()
    report = pipeline.run([docs], tmp_path / "out", emitters=())
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # What the run made was moved to the oldest generation, not left for the next collection
    # of the youngest to trace (which would have moved it to the middle one).
    assert any(o is report.model for o in gc.get_objects(generation=2))
    gc.disable()
    try:
        pipeline.run([docs], tmp_path / "out", emitters=())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_run_keeps_objects_the_process_froze_frozen(docs, tmp_path):
    import gc

    # A container frozen with the process: gc.get_objects() lists the collector's generations, not
    # the permanent one, so it is absent while it stays frozen. (Comparing gc.get_freeze_count()
    # before and after depended on the tests run before: frozen objects a run frees lower it.)
    sentinel = [object()]
    gc.freeze()
    try:
        pipeline.run([docs], tmp_path / "out", emitters=())
        assert gc.get_freeze_count() > 0
        assert not any(o is sentinel for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is sentinel for o in gc.get_objects())  # the check can see it once unfrozen


def test_parse_workers_keep_objects_the_process_froze_frozen(tmp_path):
    import gc

    for i in range(pipeline.PARALLEL_FROM):  # enough pages for worker processes
        shutil.copy(ROOT / "op_docs" / "exp.md", tmp_path / f"exp{i}.md")
    paths = pipeline.discover([tmp_path]).pages
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert len(pipeline.parse(paths, jobs=2)) == len(paths)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def _fail_on_three(value: int) -> int:
    if value == 3:
        raise ValueError("task 3 failed")
    return value


def test_a_failing_task_reaches_the_caller_and_every_worker_ends():
    """A worker's exception propagates out of the pool, whose other workers finish their running
    tasks and exit (a killed worker holding its queue's lock used to leave the pool waiting)."""
    import multiprocessing

    with pytest.raises(ValueError, match="task 3 failed"):
        with pipeline._forked_pool(2) as pool:
            for _ in pool.map(_fail_on_three, range(40)):
                pass
    assert multiprocessing.active_children() == []


def _tasks(paths) -> list:
    return [pipeline._ParseTask(i, str(path), path.read_bytes(), None) for i, path in enumerate(paths)]


# Two pages of a line each: the tests of the children's failures need pages, not their parsing.
TINY_TASKS = [pipeline._ParseTask(i, f"tiny{i}.md", b"# tiny\n", None) for i in range(2)]


def test_a_few_pages_parsed_beside_the_callers_work_give_what_one_process_gives(docs):
    """After one page changed (a few pages, a core idle), child processes forked for them parse
    while the caller does its own work (`meanwhile`), and the pages come back in the order given."""
    tasks = _tasks(pipeline.discover([docs]).pages)
    called = []
    beside = pipeline._parse_all(tasks, 2, pipeline.no_progress, called.append, overlap=True)
    assert called == [True]
    assert [page for page, _ in beside] == [pipeline._parse_one(task)[0] for task in tasks]


@pytest.fixture
def forked(monkeypatch) -> list[int]:
    """The ids of the processes forked meanwhile."""
    import os

    pids: list[int] = []
    fork = os.fork

    def recording() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording)
    return pids


def _all_waited_for(pids: list[int]) -> bool:
    import os

    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return bool(pids)


def test_a_parse_child_that_fails_raises_in_the_caller_with_its_traceback(monkeypatch, forked):
    def fail(task):
        raise ValueError(f"cannot parse {task.source}")

    monkeypatch.setattr(pipeline, "_parse_task", fail)  # the children are forked with it
    with pytest.raises(RuntimeError, match=r"(?s)parse worker .* failed.*ValueError: cannot parse"):
        pipeline._parse_all(TINY_TASKS, 2, pipeline.no_progress, lambda workers: None, overlap=True)
    assert _all_waited_for(forked)


def test_the_parse_children_are_waited_for_when_the_callers_own_work_fails(forked):
    def meanwhile(workers):
        raise KeyError("the caller's own work failed")

    with pytest.raises(KeyError):
        pipeline._parse_all(TINY_TASKS, 2, pipeline.no_progress, meanwhile, overlap=True)
    assert _all_waited_for(forked)


def test_generate_caches_by_default_in_the_users_cache_directory_and_not_with_no_cache(tmp_path, monkeypatch):
    """Issue 22: `python -m gen generate` keeps its cache without being asked (~/.cache, one
    directory per output directory), and --no-cache keeps none."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "abs.md").write_bytes((ROOT / "op_docs" / "abs.md").read_bytes())
    assert cli.main(["generate", str(docs), "--out", str(tmp_path / "cached")]) == 0
    assert cli.default_cache_dir(tmp_path / "cached").is_relative_to(tmp_path / "home" / ".cache" / "aclnn-bindgen")
    assert any(cli.default_cache_dir(tmp_path / "cached").iterdir())
    assert cli.main(["generate", str(docs), "--out", str(tmp_path / "uncached"), "--no-cache"]) == 0
    assert not cli.default_cache_dir(tmp_path / "uncached").exists()
    assert (tmp_path / "uncached" / "ir" / "abs.md.json").read_bytes() == (tmp_path / "cached" / "ir" / "abs.md.json").read_bytes()
