"""python -m gen.corpus DIR [--jobs N] [--build build/corpus] [--report-dir build] [--limit N]

Also the entry of the phase-1 worker processes (`--phase1-worker`, started by gen.corpus.workers).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

import gen.corpus
from gen.locations import corpus_problem, shared_corpus
from gen.pipeline import usable_cores


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--phase1-worker"]:
        from gen.corpus.calls import phase1_worker

        generated, listing, results, plans = argv[1:5]
        phase1_worker(Path(generated), Path(listing).read_text().split(), Path(results),
                      json.loads(Path(plans).read_text()))
        return 0
    from gen.corpus import demand
    from gen.corpus.report import demand_lines, demand_table, totals
    from gen.corpus.run import run

    parser = argparse.ArgumentParser(prog="python -m gen.corpus", description=gen.corpus.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("doc_dir", nargs="?", default=str(shared_corpus()))
    parser.add_argument("--jobs", "-j", type=int, default=usable_cores())
    parser.add_argument("--build", default="build/corpus", help="generated sources, CMake tree, phase-1 logs")
    parser.add_argument("--report-dir", default="build", help="where corpus-report.json and .md go")
    parser.add_argument("--limit", type=int, default=None, help="only the first N files (for development)")
    args = parser.parse_args(argv)
    problem = corpus_problem(Path(args.doc_dir))
    if problem:
        print(f"python -m gen.corpus: {problem}", file=sys.stderr)
        return 2
    referenced = demand.installed()
    records, figures = run(Path(args.doc_dir), Path(args.build), max(1, args.jobs), Path(args.report_dir),
                           limit=args.limit, log=lambda text: print(text, file=sys.stderr), demand=referenced)
    summary = totals(records, figures)
    print(json.dumps({k: v for k, v in summary.items()}, indent=1))
    print(f"report: {Path(args.report_dir) / 'corpus-report.md'}")
    print(f"phase 2: {summary['apis_phase2_ok']} APIs ok, {summary['apis_not_simulated']} not simulated, "
          f"{summary['apis_phase2_failed']} failed; results equal to the golden: {summary['golden_ok_apis']} APIs "
          f"({summary['apis_golden_differs']} differ; list in {Path(args.report_dir) / 'corpus-report.json'})")
    print(f"page examples: phase 1 accepted {summary['apis_example_accepted']} APIs' example arguments, refused "
          f"{summary['apis_example_refused']}, {summary['apis_example_not_called']} could not be called")
    # Last: what a framework calls, against what computes (issue 23's measure).
    print("\n".join(demand_lines(demand_table(records, referenced), Path(args.report_dir) / "corpus-report.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
