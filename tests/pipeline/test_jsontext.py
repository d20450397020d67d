"""gen.jsontext writes what json.dumps(..., ensure_ascii=False, indent=n) writes, byte for byte:
the committed generated/ir/ and _apis.json must not change with the writer."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gen import jsontext
from gen.ir import Page
from gen.locations import REPOSITORY

keys = st.one_of(st.text(), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())
data = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                                     st.dictionaries(keys, inner, max_size=4)), max_leaves=30)


@given(data, st.integers(0, 4))
def test_any_json_data_is_written_as_json_dumps_writes_it(value, indent):
    assert jsontext.dumps(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_the_edge_values_of_json():
    value = {"nan": float("nan"), "inf": [float("inf"), -float("inf")], "zero": -0.0, "tiny": 1e-05,
             "escapes": "\"\\\n\t\x00\x1f\u2028é中", "empty": [[], {}, ()], 1.5: True, None: False, 7: None}
    for indent in (0, 1, 2):
        assert jsontext.dumps(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_a_prefix_starts_every_line():
    value = {"a": [1, {"b": "c"}], "d": {}}
    assert jsontext.dumps(value, 1, prefix="  ") == textwrap.indent(json.dumps(value, ensure_ascii=False, indent=1), "  ")


def test_what_json_refuses_is_refused():
    with pytest.raises(TypeError):
        jsontext.dumps({"a": object()}, 2)
    with pytest.raises(TypeError):
        jsontext.dumps({(1, 2): 3}, 2)


def test_the_ir_of_every_page_of_op_docs_is_unchanged():
    """On real pages: the committed IR of op_docs (what the parser writes, which make check-generated
    holds to the pages) read back and written by jsontext is the file, and what json.dumps writes."""
    files = sorted((REPOSITORY / "generated" / "ir").rglob("*.json"))
    assert len(files) > 500
    for path in files:
        text = path.read_text(encoding="utf-8")
        page = Page.from_json(text)
        data = page.to_dict()
        ordered = {"schema_version": data.pop("schema_version"), **data}
        assert page.to_json() == text == json.dumps(ordered, ensure_ascii=False, indent=2) + "\n", path.name
