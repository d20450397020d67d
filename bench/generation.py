"""Generation: pages per second of parse + IR + emit, against the floor of merely parsing the
same pages with markdown-it-py and BeautifulSoup+lxml; and the time to regenerate after one page
changes.

    python -m bench.generation [--step N]   (every N-th page of the shared corpus, else of op_docs/; 1 = all)

The corpus pages are linked into one flat directory under names made of their paths: the
corpus has many README.md, and generated/ir/ names IR files after the page's file name.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from bench.common import CORPUS, ROOT, Summary, emit_result, interleaved, log, ratio, sample_pages, shown
from gen import pipeline

# The edit of the incremental run: a word of a parameter's description, which the docstrings,
# the stubs and the IR carry (so the bindings unit of that page is rebuilt).
EDIT_FROM, EDIT_TO = "表示", "表示（bench edit）"


def page_source() -> Path:
    """The corpus; on a clone without it, the repository's own pages (fewer, but the same code)."""
    return CORPUS if CORPUS.is_dir() else ROOT / "op_docs"


def flat_docs(pages: list[Path], root: Path, into: Path) -> dict[Path, Path]:
    """Links every page (below `root`) into `into` under a unique name; returns link -> original."""
    links = {}
    for page in pages:
        link = into / str(page.relative_to(root)).replace("/", "__")
        link.symlink_to(page)
        links[link] = page
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
    having = [link for link, page in links.items()
              if EDIT_FROM in page.read_text(encoding="utf-8", errors="replace")]
    return next((link for link in having if links[link].name.startswith("aclnn")), having[0] if having else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    source = page_source()
    all_pages = list(pipeline.discover([source]).pages)
    work = Path(tempfile.mkdtemp(prefix="bench-gen-"))
    try:
        docs = work / "docs"
        docs.mkdir()
        step = args.step if source == CORPUS else 1  # op_docs/ is small enough to take whole
        links = flat_docs(sample_pages(all_pages, step), source, docs)
        pages = sorted(links)
        log(f"generation: {len(pages)} of {len(all_pages)} pages of {source}, {args.rounds} rounds")

        def run_generate(emitters: tuple[str, ...] | None) -> float:
            out = Path(tempfile.mkdtemp(prefix="out-", dir=work))
            start = time.perf_counter()
            report = pipeline.run([docs], out) if emitters is None else pipeline.run([docs], out, emitters=emitters)
            elapsed = time.perf_counter() - start
            run_generate.last = report  # type: ignore[attr-defined]
            shutil.rmtree(out)
            return elapsed

        # Warm-up outside the timing (imports, template compilation) on a few pages.
        warm = work / "warm-docs"
        warm.mkdir()
        for page in pages[:3]:
            (warm / page.name).symlink_to(links[page])
        parse_floor(pages[:3])
        pipeline.run([warm], work / "warm-out")

        times = interleaved({
            "floor": lambda: parse_floor(pages),
            "parse_ir": lambda: run_generate(()),
            "parse_ir_emit": lambda: run_generate(None),
        }, args.rounds, warmup=0)
        report = run_generate.last  # type: ignore[attr-defined]
        apis = len(report.model.apis) if report.model else 0

        # Incremental: one page edited (alternately edited and restored, so every run has a change)
        # and the same output directory regenerated.
        out = work / "incremental"
        pipeline.run([docs], out)
        target = edit_target(links)
        incremental: list[float] = []
        changed: list[str] = []
        if target is not None:
            original = links[target].read_text(encoding="utf-8")
            edited = original.replace(EDIT_FROM, EDIT_TO, 1)
            target.unlink()
            for i in range(args.rounds):
                target.write_text(edited if i % 2 == 0 else original, encoding="utf-8")
                start = time.perf_counter()
                inc = pipeline.run([docs], out)
                incremental.append(time.perf_counter() - start)
                changed = inc.changed

        # Peak Python memory of each side, one untimed run on a quarter of the sample (tracemalloc
        # slows everything down, so it never runs while timing).
        memory_pages = pages[::4]
        memory_docs = work / "memory-docs"
        memory_docs.mkdir()
        for page in memory_pages:
            (memory_docs / page.name).symlink_to(links.get(page, page))
        peaks = {}
        for name, fn in {"floor": lambda: parse_floor(memory_pages),
                         "parse_ir_emit": lambda: pipeline.run([memory_docs], work / "memory-out")}.items():
            tracemalloc.start()
            fn()
            peaks[name] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
            tracemalloc.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = len(pages)
    emit_result({
        "pages": n,
        "source": shown(source),
        "corpus_pages": len(all_pages),
        "apis": apis,
        "step": step,
        "seconds": {k: Summary.of(v, "s").to_json() for k, v in times.items()},
        "pages_per_second": {k: Summary.of([n / t for t in v], "pages/s").to_json() for k, v in times.items()},
        "ratio_to_floor": {k: ratio(times[k], times["floor"]).to_json() for k in ("parse_ir", "parse_ir_emit")},
        "emit_share": ratio([a - b for a, b in zip(times["parse_ir_emit"], times["parse_ir"])],
                            times["parse_ir_emit"]).to_json(),
        "incremental": {
            "seconds": Summary.of(incremental, "s").to_json() if incremental else None,
            "edited_page": str(links[target].relative_to(source)) if target else None,
            "files_written": changed,
            "redone": ("every page of the set is parsed again and every emitter renders again "
                       "(the generator keeps no cache); only files whose content changed are written"),
        },
        "tracemalloc_peak_mb": {"pages": len(memory_pages), **peaks},
    })


if __name__ == "__main__":
    main()
