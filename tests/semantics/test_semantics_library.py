"""The semantics library (semantics/*.toml): tables found by API name, whatever directory the
pages come from; a table whose API no page declares is a warning; a file given beside the pages
takes precedence over the library's table of the same API."""

import re
import shutil
from pathlib import Path

import pytest

from gen import pipeline
from gen.cache import IRCache
from gen.locations import shared_corpus
from gen.ir import Level

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "op_docs" / "aclnnReduceSum.md"


def _library(tmp_path, text):
    library = tmp_path / "library"
    library.mkdir()
    (library / "ops.toml").write_text(text, encoding="utf-8")
    return library


TABLES = '''
[aclnnReduceSum]
family = "reduce"
op = "sum"
roles = { dim = "dims", keepdim = "keepDims" }
golden = "torch.sum(self, dim=tuple(dims) or None, keepdim=keepDims)"

[aclnnNoSuchOp]
kernel = "self"
golden = "self"
'''


def test_a_page_from_any_directory_gets_its_library_table(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(PAGE, docs)
    report = pipeline.run([docs], tmp_path / "out", library=_library(tmp_path, TABLES), emitters=("gen.emit.sim",))
    (bound,) = report.model.apis
    assert bound.semantics is not None and bound.semantics.family == "reduce"
    assert "aclsim::PlanReduce" in (tmp_path / "out" / "sim" / "ops_000.cpp").read_text()


def test_a_library_table_no_page_declares_is_one_warning_naming_it(tmp_path):
    loaded = pipeline.semantics([], {"aclnnReduceSum"}, _library(tmp_path, TABLES))
    assert [op.api for op in loaded.ops] == ["aclnnReduceSum"]
    orphans = [(source, d) for source, d in loaded.diagnostics if d.code == "semantics-without-page"]
    assert len(orphans) == 1
    source, diagnostic = orphans[0]
    assert diagnostic.level is Level.WARNING and "aclnnNoSuchOp" in diagnostic.message
    assert source.endswith("ops.toml") and diagnostic.line == 8  # the table's header


def test_every_table_declared_gives_no_warning(tmp_path):
    loaded = pipeline.semantics([], {"aclnnReduceSum", "aclnnNoSuchOp"}, _library(tmp_path, TABLES))
    assert sorted(op.api for op in loaded.ops) == ["aclnnNoSuchOp", "aclnnReduceSum"]
    assert not [d for _, d in loaded.diagnostics if d.code == "semantics-without-page"]


def test_a_file_beside_the_pages_wins_over_the_library(tmp_path):
    given = tmp_path / "mine.toml"
    given.write_text('[aclnnReduceSum]\nkernel = "self"\ngolden = "self"\n', encoding="utf-8")
    loaded = pipeline.semantics([given], {"aclnnReduceSum"}, _library(tmp_path, TABLES))
    (op,) = [op for op in loaded.ops if op.api == "aclnnReduceSum"]
    assert op.kernel == "self" and not op.family


def test_the_repository_library_names_only_apis_some_page_declares():
    # Every table of semantics/ applies to a page of op_docs/ or of the shared corpus (no
    # misspelt API): the library serves `make corpus` and users' docs trees, not op_docs/ alone.
    pages = pipeline.discover([REPO / "op_docs"], None)
    parsed = pipeline.parse(pages.pages, cache=IRCache(REPO / "build" / "cache"))  # make generate's cache
    loaded = pipeline.semantics(pages.semantics, pipeline.declared_apis(parsed))
    unused = {api for _, d in loaded.diagnostics if d.code == "semantics-without-page"
              for api in re.findall(r"aclnn\w+", d.message)}
    if not unused:
        return
    corpus = shared_corpus()
    if not corpus.is_dir():
        pytest.skip(f"{len(unused)} tables name APIs outside op_docs/; the corpus to find them in is absent")
    text = "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in corpus.rglob("*.md"))
    assert not sorted(api for api in unused if f"{api}GetWorkspaceSize" not in text)