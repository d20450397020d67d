"""The IR of each seed page, byte for byte against tests/golden/ (update: python -m tests.update_golden)."""

import pytest

from tests.update_golden import SEED_PAGES, golden_path, render


@pytest.mark.parametrize("seed,page", sorted(SEED_PAGES.items()))
def test_seed_page_ir_matches_its_golden(seed, page):
    path = golden_path(page)
    assert path.exists(), f"no golden for seed {seed}; run: .venv/bin/python -m tests.update_golden"
    assert render(page) == path.read_text(encoding="utf-8"), (
        f"the IR of {page} changed; if intended, run .venv/bin/python -m tests.update_golden and review the diff")
