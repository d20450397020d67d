"""Where the shared corpus of real aclnn pages lives: one rule for the tests, the benchmarks and
`python -m gen.corpus`, so a clone placed anywhere finds it the same way (or skips the same way).

The corpus is not part of the repository (1,311 pages of other projects' documentation); it sits
beside the clone as `../shared/corpus` in the workplace layout. `ACLNN_CORPUS` overrides, and the
workplace's fixed location is the last resort for clones made elsewhere (CI, /tmp).
"""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
WORKPLACE_CORPUS = Path("/work/shared/corpus")


def corpus_candidates() -> list[Path]:
    if os.environ.get("ACLNN_CORPUS"):
        return [Path(os.environ["ACLNN_CORPUS"])]  # an explicit choice is never second-guessed
    return [REPOSITORY.parent / "shared" / "corpus", WORKPLACE_CORPUS]


def shared_corpus() -> Path:
    """The first candidate that exists, else the first one (whose absence callers report)."""
    candidates = corpus_candidates()
    return next((c for c in candidates if c.is_dir()), candidates[0])
