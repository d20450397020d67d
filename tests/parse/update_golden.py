"""Rewrites the golden IR of the seed pages (tests/parse/golden/<page>.json) on purpose.

    .venv/bin/python -m tests.parse.update_golden

Run it after a parser change that is meant to change the IR, then review `git diff tests/parse/golden`:
the diff is the change in what the parser reads from the seed pages.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = ROOT / "tests" / "parse" / "golden"
# The seed pages, by their repository copies (seed number: file).
SEED_PAGES = {
    "000": "op_docs/leaky_relu_backward.md",
    "001": "op_docs/hardsigmoid_backward.md",
    "002": "op_docs/leaky_relu_backward.web.txt",
    "003": "op_docs/selu_backward.md",
    "004": "op_docs/leaky_relu_grad.README.md",
}


def golden_path(page: str) -> Path:
    return GOLDEN_DIR / (Path(page).name + ".json")


def render(page: str) -> str:
    """The golden text of a seed page: its IR as JSON, with the source as the repository path."""
    from gen.parse import parse_bytes

    return parse_bytes((ROOT / page).read_bytes(), page).to_json()


def main() -> int:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for page in SEED_PAGES.values():
        path = golden_path(page)
        text = render(page)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            path.write_text(text, encoding="utf-8")
            print(f"updated {path.relative_to(ROOT)}")
        else:
            print(f"unchanged {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
