"""Where the generator's files live, and where the shared corpus of real aclnn pages lives: one
rule for the generator, the tests, the benchmarks and `python -m gen.corpus`.

The generator reads four directories besides its Python: the semantics library (`semantics/`),
the templates (`templates/`), the ABI's declarations (`runtime/include/`) and the hand-written
Python it copies into the generated package (`runtime/python/`). In a clone (and an editable
install) they are the repository's own directories, the documented places to edit them. A wheel
(`pip install .`) carries copies inside the package, under `gen/_data/` (pyproject.toml maps each
directory there), so that an installed generator finds the same files wherever it runs.

The corpus is not part of the repository (pages of other projects' documentation, copied from
the upstream repositories and commits its own README.md lists); it sits beside the clone as
`../shared/corpus`. `ACLNN_CORPUS` overrides. There is no other fallback: a clone without either
skips what needs the corpus, and says where it looked.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
REPOSITORY = PACKAGE.parent
# The root the generator's data directories are found under, with the repository's layout:
# the package's own copies when it was installed from a wheel, else the clone.
DATA_ROOT = PACKAGE / "_data" if (PACKAGE / "_data").is_dir() else REPOSITORY
# The semantics library: what each API computes, its golden reference and its prose checks, in
# tables keyed by API name (gen.semantics.reader), applied to the API's page from any directory.
SEMANTICS_LIBRARY = DATA_ROOT / "semantics"
TEMPLATES = DATA_ROOT / "templates"
RUNTIME_INCLUDE = DATA_ROOT / "runtime" / "include"
RUNTIME_PYTHON = DATA_ROOT / "runtime" / "python"


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
