"""The select stage (gen.model.build_model) when two pages declare one API name: a shipped page
wins over a contributed sample (experimental/), different signatures are always reported, and
the generated code names pages relative to the docs directory."""

from __future__ import annotations

from gen.ir import Level
from gen.model import build_model
from tests.factories import make_api, make_page, make_param


def median_pages():
    # ops-nn/index/gather_v2/docs/aclnnMedian.md (self, valuesOut) against the 5-parameter sample
    # of ops-nn/experimental/index/median/docs/aclnnMedian.md.
    shipped = make_page(make_api("aclnnMedian", (make_param("self"), make_param("valuesOut"))),
                        source="docs/ops-nn/index/gather_v2/docs/aclnnMedian.md")
    sample = make_page(make_api("aclnnMedian", tuple(make_param(n) for n in ("self", "dim", "keepDim", "v", "i")),
                                errors=()), source="docs/ops-nn/experimental/index/median/docs/aclnnMedian.md")
    return shipped, sample


def test_the_shipped_page_wins_over_an_experimental_one_that_says_more():
    shipped, sample = median_pages()
    model = build_model([sample, shipped], roots=["docs"])
    bound = model.api("aclnnMedian")
    assert bound.page is shipped
    assert bound.page_name == "ops-nn/index/gather_v2/docs/aclnnMedian.md"


def test_a_clash_of_signatures_is_a_warning_naming_both():
    shipped, sample = median_pages()
    notes = build_model([sample, shipped], roots=["docs"]).notes
    [(source, note)] = notes
    assert source == sample.source
    assert note.level is Level.WARNING and note.code == "api-clash"
    assert "ops-nn/index/gather_v2/docs/aclnnMedian.md is bound because it is a contributed sample" in note.message


def test_the_same_signature_twice_is_a_note():
    one = make_page(make_api("aclnnFoo"), source="a/aclnnFoo.md")
    two = make_page(make_api("aclnnFoo"), source="b/aclnnFoo.md")
    [(_, note)] = build_model([one, two]).notes
    assert note.level is Level.INFO and note.code == "duplicate-api"
