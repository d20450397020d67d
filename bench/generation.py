"""Generation: pages per second of parse + IR + emit against the floor of merely parsing the same
pages with markdown-it-py and BeautifulSoup+lxml; a full cold generation on both cores against
that one-core floor; and the time to regenerate after one page changed, with the cache.

    python -m bench.generation [--step N] [--docs-step M] [--rounds R]
    python -m bench.generation --commands-only [--without-corpus] [--rounds R] [--against CHECKOUT]

`--commands-only` measures only what a user feels after the first run: `python -m gen generate`
as a command (a new interpreter, `make generate`'s arguments) after one page changed, after a
comment was added to a page (its bytes changed, its IR not: nothing is rendered) and after nothing
changed, in wall seconds and in CPU seconds (user + system, its workers included: the machine is
shared, and CPU time is what the noise of other processes leaves as it is). Both runs print the
medians on stderr as they end. `--against CHECKOUT` times another checkout's commands too (main's,
say), each right after this one's: a before and after measured under the same load.

The pages: a docs tree of op_docs/ and the shared corpus's ops-math/ (724 pages; op_docs/ alone on
a clone without the corpus), with every N-th page of ops-math/ and every M-th of op_docs/ (1 = all), linked file by file
into a scratch tree that keeps their directories. One page is edited in place for the incremental runs
(a distinct edit each round, so that each run has a page to parse again).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from bench.common import CORPUS, ROOT, Summary, emit_result, interleaved, log, ratio, sample_pages, shown
from gen import pipeline
from gen.emit.files import files_below

# The corpus's part of the docs tree (the "op_docs/ plus ops-math", about 700 pages).
CORPUS_PART = "ops-math"
# The edit of the incremental runs: a word of a parameter's description, which the docstrings,
# the stubs and the IR carry (so the bindings unit of that page is rebuilt).
EDIT_FROM, EDIT_TO = "表示", "表示（bench edit）"
# Worker processes of the cold run: both cores of the machine the targets are stated for.
JOBS = 2


def docs_tree(with_corpus: bool = True) -> list[tuple[Path, Path]]:
    """(file, path in the tree) of every file of the docs tree: pages and semantics files."""
    roots = [(ROOT / "op_docs", Path("op_docs"))]
    if with_corpus and (CORPUS / CORPUS_PART).is_dir():
        roots.append((CORPUS / CORPUS_PART, Path(CORPUS_PART)))
    return [(Path(f), name / Path(f).relative_to(root)) for root, name in roots for f in files_below(root)]


def link_tree(files: list[tuple[Path, Path]], into: Path) -> dict[Path, Path]:
    """Links every file into `into` at its path in the tree; returns link -> original."""
    links = {}
    for original, relative in files:
        link = into / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(original)
        links[link] = original
    return links


def parse_floor(pages: list[Path]) -> None:
    """What any reader of these pages must do at least: decode, tokenize the Markdown, and parse
    its HTML (the pages' tables are HTML) with BeautifulSoup on lxml."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    for page in pages:
        text = page.read_bytes().decode("utf-8", errors="replace")
        if page.suffix.lower() in (".html", ".htm"):
            BeautifulSoup(text, "lxml")
            continue
        tokens = md.parse(text)
        html = "".join(t.content for t in tokens if t.type == "html_block")
        html += "".join(c.content for t in tokens if t.children for c in t.children if c.type == "html_inline")
        if html:
            BeautifulSoup(html, "lxml")


def edit_target(links: dict[Path, Path]) -> Path | None:
    """The first page of the sample that has the word the edit changes, an API page (aclnn*) first:
    the corpus' READMEs describe ops without an API of their own."""
    having = [link for link, page in sorted(links.items()) if page.suffix == ".md"
              and EDIT_FROM in page.read_text(encoding="utf-8", errors="replace")]
    return next((link for link in having if links[link].name.startswith("aclnn")), having[0] if having else None)


def command_environment() -> dict[str, str]:
    """The environment of the timed commands: this one without PYTHONDONTWRITEBYTECODE, as a user's
    shell runs them. Set (as in some sandboxes), an interpreter never writes the generator's
    bytecode, and every command compiled its ~250 modules again: 0.4 CPU s of each."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed_command(command: list[str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, of the process and the workers it waited
    for) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=command_environment())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# What a user waits for after one page changed, as the issue states it (issue 22, item 6).
COMMAND_TARGET_SECONDS = 0.5


# The commands timed after each edit of the page: how the JSON's keys name them, and the log.
COMMANDS = (("command", "one page changed"), ("comment_command", "a comment added to it (IR unchanged)"),
            ("noop_command", "nothing changed"))


@dataclass
class CommandTimes:
    """The regeneration commands of one checkout: `python -m gen generate` run in `root` (so with
    its generator), into its own output directory and cache."""

    root: Path
    line: list[str]
    walls: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind, _ in COMMANDS})
    cpus: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind, _ in COMMANDS})

    def time(self, kind: str) -> None:
        wall, cpu = timed_command(self.line, self.root)
        self.walls[kind].append(wall)
        self.cpus[kind].append(cpu)

    def log(self, label: str) -> None:
        """The medians on stderr, with the load average they were measured under."""
        if not self.walls["command"]:
            return
        for kind, what in COMMANDS:
            wall = Summary.of(self.walls[kind], "s")
            log(f"generation{label}: {what}, as a command: median {wall.median:.3f} s wall ({wall.min:.3f}-"
                f"{wall.max:.3f}, {wall.runs} runs), {Summary.of(self.cpus[kind], 'CPU s').median:.3f} CPU s")
        met = "met" if Summary.of(self.walls["command"], "s").median <= COMMAND_TARGET_SECONDS else "not met"
        log(f"generation{label}: target one page changed <= {COMMAND_TARGET_SECONDS} s as a command: {met} "
            f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {}
        for kind, _ in COMMANDS:
            found[f"{kind}_seconds"] = Summary.of(self.walls[kind], "s").to_json() if self.walls[kind] else None
            found[f"{kind}_cpu_seconds"] = Summary.of(self.cpus[kind], "CPU s").to_json() if self.cpus[kind] else None
        return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", type=int, default=1, help="every N-th page of the corpus's part")
    parser.add_argument("--docs-step", type=int, default=1, help="every N-th page of op_docs/ (--quick's sample)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands-only", action="store_true",
                        help="only the regeneration commands: one page changed, nothing changed")
    parser.add_argument("--without-corpus", action="store_true", help="op_docs/ alone, as make generate runs it")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="also time the commands of another checkout of the repository (e.g. of main, made "
                             "with `git worktree add`), each right after this one's on the same edits, with its "
                             "own output and cache: a before and after under the same load")
    args = parser.parse_args()

    every = docs_tree(with_corpus=not args.without_corpus)
    page_files = [f for f in every if f[0].suffix.lower() in pipeline.PAGE_SUFFIXES]
    corpus_pages = [f for f, relative in page_files if relative.parts[0] == CORPUS_PART]
    docs_pages = [f for f, relative in page_files if relative.parts[0] != CORPUS_PART]
    left_out = ((set(corpus_pages) - set(sample_pages(corpus_pages, args.step)))
                | (set(docs_pages) - set(sample_pages(docs_pages, args.docs_step))))
    files = [f for f in every if f[0] not in left_out]
    work = Path(tempfile.mkdtemp(prefix="bench-gen-"))
    try:
        docs = work / "docs"
        links = link_tree(files, docs)
        pages = list(pipeline.discover([docs]).pages)
        roots = "op_docs/" if args.without_corpus else f"op_docs/ and {CORPUS_PART}/"
        log(f"generation: {len(pages)} of {len(page_files)} pages of {roots}, {args.rounds} rounds")
        scratch = iter(range(1_000_000))

        def fresh(name: str) -> Path:
            return work / f"{name}-{next(scratch)}"

        apis = 0

        def run_generate(emitters: tuple[str, ...] | None, jobs: int = 1, cached: bool = False) -> float:
            nonlocal apis
            out = fresh("out")
            cache = fresh("cache") if cached else None  # empty: a cold run that fills it
            gc.collect()  # each run starts as `make generate` does: no earlier run's garbage to trace
            start = time.perf_counter()
            report = pipeline.run([docs], out, jobs=jobs, cache_dir=cache,
                                  emitters=pipeline.EMITTERS if emitters is None else emitters)
            elapsed = time.perf_counter() - start
            # Only the count is kept: a model held across rounds made every later run's garbage
            # collections trace it (a quarter of a second each, the floor's included).
            apis = len(report.model.apis) if report.model else 0
            del report
            # The output and the cache stay until the end: on a file system without a journal
            # (ext4 here) a new inode is found by skipping every inode deleted in the last one to
            # five minutes, each checked in the inode table, so deleting a run's 2,500 files made
            # the next run's file creations cost a millisecond each (2 s of a cold run, against
            # 0.1 s into a tree nothing was deleted from, as `make generate` writes a clone's).
            return elapsed

        def run_floor() -> float:
            gc.collect()
            start = time.perf_counter()
            parse_floor(pages)
            return time.perf_counter() - start

        # Warm-up outside the timing (imports, template compilation) on a few pages.
        warm = work / "warm-docs"
        link_tree([(links[p], p.relative_to(docs)) for p in pages[:3]], warm)
        parse_floor(pages[:3])
        pipeline.run([warm], work / "warm-out")

        times = {} if args.commands_only else interleaved({
            "floor": run_floor,
            "parse_ir": lambda: run_generate(()),
            "parse_ir_emit": lambda: run_generate(None),
            "cold_both_cores": lambda: run_generate(None, jobs=JOBS, cached=True),
        }, args.rounds, warmup=0)

        # Incremental: the tree generated once with its cache, then one page edited (a distinct
        # edit each round) and the same output directory regenerated, in this process and as
        # `make generate` runs it (a new interpreter: imports and template compilation included),
        # then the command again with nothing changed.
        out, cache = work / "incremental", work / "cache"
        pipeline.run([docs], out, jobs=JOBS, cache_dir=cache)
        target = edit_target(links)
        incremental: list[float] = []
        checkouts = [CommandTimes(ROOT, [sys.executable, "-m", "gen", "generate", str(docs), "--out", str(out),
                                         "--jobs", str(JOBS), "--cache", str(cache)])]
        if args.against is not None:
            checkouts.append(CommandTimes(args.against.resolve(), [
                sys.executable, "-m", "gen", "generate", str(docs), "--out", str(work / "against-out"),
                "--jobs", str(JOBS), "--cache", str(work / "against-cache")]))
        last: dict | None = None  # what the last incremental run did (not its report: see run_generate)
        stages: list[dict[str, float]] = []  # each incremental run's seconds by stage
        if target is not None:
            for checkout in checkouts:
                # Untimed: the modules' bytecode written (as after a user's first run), and the
                # other checkout's output and cache made.
                timed_command(checkout.line, checkout.root)
            original = links[target].read_text(encoding="utf-8")
            target.unlink()
            for i in range(args.rounds):
                if not args.commands_only:
                    target.write_text(original.replace(EDIT_FROM, f"{EDIT_FROM}（bench edit {i}）", 1), encoding="utf-8")
                    gc.collect()
                    start = time.perf_counter()
                    report = pipeline.run([docs], out, jobs=JOBS, cache_dir=cache)
                    incremental.append(time.perf_counter() - start)
                    last = {"changed": report.changed, "reparsed": report.reparsed, "rendered": len(report.rendered)}
                    stages.append(report.seconds)
                    del report
                edited = original.replace(EDIT_FROM, f"{EDIT_FROM}（bench command {i}）", 1)
                target.write_text(edited, encoding="utf-8")
                for kind in ("command", "noop_command"):  # one page changed, then none
                    for checkout in checkouts:
                        checkout.time(kind)
                target.write_text(f"{edited}\n<!-- bench comment {i} -->\n", encoding="utf-8")
                for checkout in checkouts:
                    checkout.time("comment_command")
            checkouts[0].log("")
            if args.against is not None:
                checkouts[1].log(f" of {args.against}")

        # Peak Python memory of each side, one untimed run on a quarter of the sample (tracemalloc
        # slows everything down, so it never runs while timing).
        memory_pages = pages[::4]
        memory_docs = work / "memory-docs"
        link_tree([(links.get(p, p), p.relative_to(docs)) for p in memory_pages], memory_docs)
        peaks = {}
        for name, fn in {"floor": lambda: parse_floor(memory_pages),
                         "parse_ir_emit": lambda: pipeline.run([memory_docs], work / "memory-out")}.items():
            if args.commands_only:
                break
            tracemalloc.start()
            fn()
            peaks[name] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
            tracemalloc.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = len(pages)
    source = shown(ROOT / "op_docs") + ("" if args.without_corpus else f" + {shown(CORPUS / CORPUS_PART)}")
    commands = {
        **checkouts[0].to_json(),
        "command": f"python -m gen generate DOCS --out OUT --jobs {JOBS} --cache CACHE",
        "edited_page": target.relative_to(docs).as_posix() if target else None,
    }
    if args.against is not None:
        commands["against"] = {"checkout": str(args.against), **checkouts[1].to_json()}
    if args.commands_only:
        emit_result({"pages": n, "source": source, "corpus_pages": len(page_files), "incremental": commands})
        return
    one_core = {k: times[k] for k in ("floor", "parse_ir", "parse_ir_emit")}
    emit_result({
        "pages": n,
        "source": source,
        "corpus_pages": len(page_files),
        "apis": apis,
        "step": args.step,
        "seconds": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
        "pages_per_second": {k: Summary.of([n / t for t in v], "pages/s").to_json() for k, v in one_core.items()},
        "ratio_to_floor": {k: ratio(times[k], times["floor"]).to_json()
                           for k in ("parse_ir", "parse_ir_emit", "cold_both_cores")},
        "cold_both_cores": {"jobs": JOBS, "seconds": Summary.of(times["cold_both_cores"], "s").to_json(),
                            "redone": "an empty cache: every page parsed (in the worker processes) and every file "
                                      "rendered, the emitters spread over the same workers"},
        "emit_share": ratio([a - b for a, b in zip(times["parse_ir_emit"], times["parse_ir"])],
                            times["parse_ir_emit"]).to_json(),
        "incremental": {
            "seconds": Summary.of(incremental, "s").to_json() if incremental else None,
            **commands,
            "stage_seconds": {stage: round(Summary.of([run[stage] for run in stages], "s").median, 4)
                              for stage in pipeline.STAGES} if stages else None,
            "files_written": last["changed"] if last else [],
            "pages_reparsed": last["reparsed"] if last else None,
            "files_rendered": last["rendered"] if last else None,
            "redone": ("the edited page is parsed again (the others' IR comes from the cache); the files made "
                       "from it are rendered, and the few made of every API; other files are not read"),
        },
        "tracemalloc_peak_mb": {"pages": len(memory_pages), **peaks},
    })


if __name__ == "__main__":
    main()
