"""Where the shared corpus of real aclnn pages lives: one rule for the tests, the benchmarks and
`python -m gen.corpus`, so a clone placed anywhere finds it the same way (or skips the same way).

The corpus is not part of the repository (pages of other projects' documentation, copied from
the upstream repositories and commits its own README.md lists); it sits beside the clone as
`../shared/corpus`. `ACLNN_CORPUS` overrides. There is no other fallback: a clone without either
skips what needs the corpus, and says where it looked.
"""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
# The semantics library: what each API computes, its golden reference and its prose checks, in
# tables keyed by API name (gen.parse.semantics), applied to the API's page from any directory.
SEMANTICS_LIBRARY = REPOSITORY / "semantics"


def shared_corpus() -> Path:
    """`ACLNN_CORPUS` when set (an explicit choice is never second-guessed), else `../shared/corpus`
    beside the clone; callers report its absence."""
    if os.environ.get("ACLNN_CORPUS"):
        return Path(os.environ["ACLNN_CORPUS"])
    return REPOSITORY.parent / "shared" / "corpus"


def corpus_problem(path: Path) -> str:
    """Why `path` cannot be read as a directory of pages ("" when it can), naming ACLNN_CORPUS
    when the path is the variable's."""
    if path.is_dir():
        return ""
    given = os.environ.get("ACLNN_CORPUS")
    where = f"ACLNN_CORPUS={given}" if given and Path(given) == path else str(path)
    return f"{where}: {'not a directory' if path.exists() else 'no such directory'} (a directory of pages is expected)"
