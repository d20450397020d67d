"""The IR of each seed page, byte for byte against tests/parse/golden/ (update: python -m tests.parse.update_golden)."""

import json

import pytest

from gen.ir import SCHEMA_VERSION, Page
from tests.parse.update_golden import SEED_PAGES, golden_path, render


@pytest.mark.parametrize("seed,page", sorted(SEED_PAGES.items()))
def test_seed_page_ir_matches_its_golden(seed, page):
    path = golden_path(page)
    assert path.exists(), f"no golden for seed {seed}; run: .venv/bin/python -m tests.parse.update_golden"
    assert render(page) == path.read_text(encoding="utf-8"), (
        f"the IR of {page} changed; if intended, run .venv/bin/python -m tests.parse.update_golden and review the diff")


def test_an_ir_file_of_another_schema_version_is_refused_by_name():
    page = json.loads(golden_path(SEED_PAGES["000"]).read_text(encoding="utf-8"))
    assert Page.from_json(json.dumps(page)).schema_version == SCHEMA_VERSION
    page["schema_version"] = SCHEMA_VERSION - 1
    with pytest.raises(ValueError, match=f"IR schema version {SCHEMA_VERSION - 1}; this generator reads {SCHEMA_VERSION}"):
        Page.from_json(json.dumps(page))
