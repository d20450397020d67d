"""How many APIs each convention of gen/conventions.py changes phase 1 of, over a directory of pages.

    python -m gen.census DIR [--jobs N] [--list]
    python -m gen.census DIR --snapshot FILE     phase 1 of every API, to compare two versions

Each convention is switched off in turn (its function replaced by the literal reading of the page)
and the pages are parsed again; an API counts for a convention when the phase-1 spec the simulator
is given (gen.emit.sim.spec_row of every parameter: dtypes per chip, formats, null status, dtype
relations; and the page's rules: value ranges, dimension equalities, ...) differs from the one with
every convention on. Pages documenting one API twice count
once, the page `gen.model` binds. The figures of gen/conventions.py's docstring come from here, on
../shared/corpus.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Callable, Iterator, Sequence

from gen import conventions
from gen.emit import sim
from gen.ir import API, Page
from gen.merge import merge_readmes
from gen.model import _completeness
from gen.parse import api_page  # noqa: F401  loaded here, before the parse workers fork: every run
from gen.pipeline import discover, parse  # parses the code it started with, whatever changes on disk


def _literal_twins(name, per_chip, base, line, diags):
    return {soc: list(dtypes) for soc, dtypes in per_chip.items()}


# Each convention's off switch: the functions replaced and the literal reading that replaces them.
SWITCHES: dict[str, dict[str, Callable]] = {
    "1 twin_chip_dtypes": {"twin_chip_dtypes": _literal_twins},
    "2 formats_checked": {"formats_checked": lambda api, param: True},
    "3 inner_null_outputs": {"inner_null_outputs": lambda api: ()},
    "5 scalar_cast": {"scalar_cast": lambda api, param: False},
    "6 class_predicate_inputs": {"class_predicate_inputs": lambda api, params: list(params)},
    "7 unlisted_scalar_dtypes": {"unlisted_scalar_dtypes": lambda param, params: ()},
    "8 castable_to": {"castable_to": lambda target: (target,), "castable_from": lambda source: (source,)},
    "12 zero_d_addends": {"zero_d_addends": lambda api: ()},
    "13 adds_a_dimension_to": {"adds_a_dimension_to": lambda api, param: False},
}


@contextlib.contextmanager
def switched_off(replaced: dict[str, Callable]) -> Iterator[None]:
    saved = {name: getattr(conventions, name) for name in replaced}
    for name, function in replaced.items():
        setattr(conventions, name, function)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(conventions, name, function)


def bound_apis(pages: Sequence[Page]) -> dict[str, API]:
    """Each API name's API, from the page gen.model would bind."""
    best: dict[str, tuple[tuple, API]] = {}
    for page in merge_readmes(pages):
        for api in page.apis:
            rank = _completeness(page, api)
            if api.name not in best or rank > best[api.name][0]:
                best[api.name] = (rank, api)
    return {name: api for name, (_, api) in best.items()}


def phase1(api: API) -> tuple:
    """What phase 1 checks for `api`: the simulator's spec rows, and the page's cross-parameter rules
    (value ranges, dimension equalities, ...) as the IR describes them."""
    return sim.spec_rows(api), tuple(rule.describe() for rule in api.rules())


def snapshot(paths: Sequence[Path], jobs: int = 1) -> dict[str, str]:
    """Phase 1 of every API as the simulator is given it, as text: two versions' snapshots compare
    line by line (a parser change's reach)."""
    apis = bound_apis(parse(discover(paths).pages, jobs=jobs))
    return {name: repr(phase1(api)) for name, api in sorted(apis.items())}


def census(paths: Sequence[Path], jobs: int = 1) -> dict[str, list[str]]:
    """The APIs whose phase 1 each convention changes, by convention."""
    pages = discover(paths).pages
    reference = {name: phase1(api) for name, api in bound_apis(parse(pages, jobs=jobs)).items()}
    changed: dict[str, list[str]] = {}
    for label, replaced in SWITCHES.items():
        with switched_off(replaced):
            literal = {name: phase1(api) for name, api in bound_apis(parse(pages, jobs=jobs)).items()}
        changed[label] = sorted(name for name, rows in reference.items() if literal.get(name) != rows)
    return changed


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("doc_dir", nargs="+")
    parser.add_argument("--jobs", "-j", type=int, default=1)
    parser.add_argument("--list", action="store_true", help="name the APIs, not only count them")
    parser.add_argument("--snapshot", type=Path, help="write every API's phase 1 (JSON) here instead")
    args = parser.parse_args(argv)
    if args.snapshot:
        args.snapshot.write_text(json.dumps(snapshot([Path(p) for p in args.doc_dir], args.jobs), indent=0))
        return
    for label, apis in census([Path(p) for p in args.doc_dir], args.jobs).items():
        print(f"{label}: {len(apis)} APIs" + (": " + ", ".join(apis) if args.list else ""))


if __name__ == "__main__":
    main()
