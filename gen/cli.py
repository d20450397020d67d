"""Command line: `python -m gen <command>`.

    inspect PAGE... [--json] [--merge]   the IR of pages (a summary, or JSON)
    lint PATH...                          diagnostics as file:line; exit 1 on errors
    rules PATH... [--kind K] [--unread]   every cross-parameter rule read, by kind, and their counts
    stats DIR                             parse coverage of a directory of pages
    generate DOC_DIR --out DIR [-j N] [--cache DIR | --no-cache]   pages + semantics -> generated/

Each command runs stages of the one pipeline (gen.pipeline): inspect and lint discover and parse
(inspect --merge also merges), generate runs them all.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path
from typing import Sequence

from gen.ir import Level, Page, RelationKind, pages_to_json
from gen.pipeline import usable_cores


def summarize(page: Page) -> str:
    lines = [f"{page.source}: {page.kind.value} {page.title!r}"]
    if page.products:
        lines.append("  products: " + ", ".join(
            f"{p.soc.value if p.soc else p.name}{'' if p.supported else ' (unsupported)'}" for p in page.products))
    for link in page.links:
        lines.append(f"  link: {link.api} -> {link.doc}")
    for param in page.params:
        lines.append(f"  param {param.name}: {','.join(d.value for d in param.dtypes)}")
    for api in page.apis:
        lines.append(f"  {api.name}({', '.join(p.name for p in api.params)})")
        for p in api.params:
            kind = p.kind.value if p.kind else "?"
            rank = f" rank {p.rank[0]}-{p.rank[1]}" if p.rank else ""
            dtypes = ",".join(d.value for d in p.dtypes)
            lines.append(f"    {p.direction.value:5} {p.name}: {kind}{' optional' if p.optional else ''}"
                         f"{rank} [{dtypes}]")
        for e in api.errors:
            lines.append(f"    error {e.code} {e.category.value if e.category else '-'}: {e.condition}")
    for d in page.diagnostics:
        lines.append("  " + d.format(page.source))
    return "\n".join(lines)


def cmd_inspect(args: argparse.Namespace) -> int:
    from gen import pipeline

    pages = pipeline.parse(pipeline.discover(args.pages).pages)
    if args.merge:
        pages = pipeline.merge(pages)
    if args.json:
        sys.stdout.write(pages_to_json(pages))
    else:
        print("\n\n".join(summarize(p) for p in pages))
    # A page that could not be read has no IR to show: say so, and fail.
    unreadable = [d.format(p.source) for p in pages for d in p.diagnostics if d.code == "unreadable"]
    for line in unreadable:
        print(line, file=sys.stderr)
    return 1 if unreadable else 0


def cmd_lint(args: argparse.Namespace) -> int:
    from gen import pipeline

    errors = 0
    inputs = pipeline.discover(args.paths)
    for source, d in pipeline.unreadable_diagnostics(inputs):
        print(d.format(source))
    for page in pipeline.parse(inputs.pages):
        for line in rule_lines(page):
            print(line)
        for d in page.diagnostics:
            if d.level is Level.INFO and not args.verbose:
                continue
            print(d.format(page.source))
            errors += d.level is Level.ERROR
    return 1 if errors else 0


# The kinds of rule `page_rules` lists, in the order `python -m gen rules` counts them.
RULE_KINDS = ("reserved", "same_format", "same_rank", "dtype_combination", "value_range", "value_set", "array_length",
              "dim_equality", "divisibility", "shape_rule", "dim_bytes", "array_product",
              "padded_shape", "reduced_shape")
_RULE_KIND = {"DTypeCombination": "dtype_combination", "ValueRange": "value_range", "ValueSet": "value_set",
              "ArrayLength": "array_length", "DimEquality": "dim_equality", "Divisibility": "divisibility", "ShapeRule": "shape_rule",
              "DimBytes": "dim_bytes", "ArrayProduct": "array_product",
              "PaddedShape": "padded_shape", "ReducedShape": "reduced_shape"}


# The relations `page_rules` lists (those of shape and dtype are every parameter's row, not rules beyond it).
_LISTED_RELATIONS = (RelationKind.SAME_FORMAT, RelationKind.SAME_RANK)


def page_rules(page: Page) -> list[tuple[int, str, str, str]]:
    """What the simulator checks beyond each parameter's own row, as (page line, kind, API, text):
    reserved parameters, the same-format and same-rank relations, dtype combinations, value ranges, dimension
    equalities, divisibility, conditional shape rules; by API, then by line."""
    found: list[tuple[int, str, str, str]] = []
    for api in page.apis:
        rules = [(p.line, "reserved", f"{p.name} is reserved (预留参数): " +
                  ("it must be NULL" if p.must_be_null else "not used; any value its row allows"))
                 for p in api.params if p.reserved]
        rules += [(p.line, r.kind.value, r.describe(p.name))
                  for p in api.params for r in p.relations if r.kind in _LISTED_RELATIONS]
        rules += [(rule.line, _RULE_KIND[type(rule).__name__], rule.describe()) for rule in api.rules()]
        found += [(line, kind, api.name, text) for line, kind, text in sorted(rules, key=lambda item: item[0])]
    return found


def rule_lines(page: Page) -> list[str]:
    """`page_rules` as lint prints them: file:line: rule: API: text."""
    return [f"{page.source}:{line}: rule: {api}: {text}" for line, _, api, text in page_rules(page)]


def cmd_rules(args: argparse.Namespace) -> int:
    """Every rule read from the pages, each with its kind and page line, then the count of each kind
    and of the sentences diagnosed as rules not read (relation-unread): the list to review by hand
    for misreadings."""
    from gen import pipeline
    from gen.parse.extractors.rules import UNREAD

    counts = dict.fromkeys(RULE_KINDS, 0)
    unread = 0
    for page in pipeline.parse(pipeline.discover(args.paths).pages, jobs=args.jobs):
        for line, kind, api, text in page_rules(page):
            counts[kind] += 1
            if not args.kind or kind in args.kind:
                print(f"{kind}\t{page.source}:{line}: {api}: {text}")
        for d in page.diagnostics:
            if d.code == UNREAD:
                unread += 1
                if args.unread:
                    print(f"unread\t{d.format(page.source)}")
    print("rules: " + ", ".join(f"{kind} {n}" for kind, n in counts.items()) + f"; not read (diagnosed) {unread}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from gen import pipeline
    from gen.corpus.coverage import coverage_report

    start = time.perf_counter()
    report = coverage_report(pipeline.discover([args.dir]).pages)
    print(report.format(time.perf_counter() - start))
    return 0


def default_cache_dir(out: Path) -> Path:
    """Where a run keeps the pages' IR and the emitters' memo unless told otherwise: the user's cache
    directory (~/.cache), one per output directory (the memo describes what was written there)."""
    key = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:16]
    return Path.home() / ".cache" / "aclnn-bindgen" / key


def cmd_generate(args: argparse.Namespace) -> int:
    from gen import pipeline

    cache_dir = None if args.no_cache else Path(args.cache) if args.cache else default_cache_dir(Path(args.out))
    report = pipeline.run([args.doc_dir], Path(args.out), jobs=args.jobs, cache_dir=cache_dir)
    for source, d in report.diagnostics:
        if d.level is not Level.INFO or args.verbose:
            print(d.format(source), file=sys.stderr)
    model = report.model
    assert model is not None
    print(f"generate: {len(report.inputs.pages)} pages, {len(model.apis)} APIs bound, {len(model.skipped)} skipped; "
          f"{len(report.changed)} files written, {len(report.removed)} removed")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="print the IR of pages")
    p.add_argument("pages", nargs="+")
    p.add_argument("--json", action="store_true", help="one JSON array, one page IR per argument")
    p.add_argument("--merge", action="store_true", help="fold each op README into the page it links to")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("lint", help="diagnostics of pages, as file:line")
    p.add_argument("paths", nargs="+")
    p.add_argument("-v", "--verbose", action="store_true", help="also print info diagnostics")
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("rules", help="every cross-parameter rule read from pages, by kind, with counts")
    p.add_argument("paths", nargs="+")
    p.add_argument("--kind", action="append", choices=RULE_KINDS, help="print only rules of this kind (repeatable)")
    p.add_argument("--unread", action="store_true", help="also print the sentences diagnosed as rules not read")
    p.add_argument("-j", "--jobs", type=int, default=1, help="parse in this many processes")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("stats", help="parse coverage of a directory of pages")
    p.add_argument("dir")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("generate", help="generate bindings, headers, stubs and tests")
    p.add_argument("doc_dir")
    p.add_argument("--out", default="generated")
    p.add_argument("-j", "--jobs", type=int, default=usable_cores(),
                   help="parse in this many processes (default: the cores this process may run on)")
    cached = p.add_mutually_exclusive_group()
    cached.add_argument("--cache", metavar="DIR", help="keep the pages' IR and the emitters' memo here between runs, "
                                                       "so that a run redoes only what changed (default: "
                                                       "~/.cache/aclnn-bindgen/<output directory's key>; "
                                                       "make generate: build/cache)")
    cached.add_argument("--no-cache", action="store_true", help="parse every page and render every file anew")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=cmd_generate)

    args = parser.parse_args(argv)
    return args.func(args)
