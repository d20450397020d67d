"""Building and measuring the character model of mojibake.py (data/charfreq.json), a command:

    python -m gen.parse.repair.mojibake_model rebuild-model ../shared/corpus

counts the corpus's clean pages into the model, and

    python -m gen.parse.repair.mojibake_model measure ../shared/corpus [--pages N]

damages held-out corpus pages the way the broken tool did, repairs them as text repair does, and
counts the characters that differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence

from gen.parse.repair.mojibake import (_EMPTY_MODEL, CODE_PAGES, MIN_BIGRAM_COUNT, MODEL_FORMAT, MODEL_PATH, CharModel,
                                       _is_losable, damage, default_model, lost_bytes, repair_page)
from gen.parse.repair.text import clean_up, normalize_line_ends, repair_text


def count_text(texts: Iterable[str], min_bigram: int = MIN_BIGRAM_COUNT) -> dict:
    """The model's data, deterministic: every character's count and number of distinct
    followers, and the counts of the bigrams that involve a character a lost byte can hide in."""
    unigrams: Counter[str] = Counter()
    bigrams: Counter[str] = Counter()
    for text in texts:
        unigrams.update(text)
        bigrams.update(map("".join, zip(text, text[1:])))
    followers: Counter[str] = Counter(pair[0] for pair in bigrams)
    losable = {char for char in unigrams if _is_losable(char)}
    kept = {pair: n for pair, n in bigrams.items()
            if n >= min_bigram and (pair[0] in losable or pair[1] in losable)}
    return {
        "format": MODEL_FORMAT,
        "about": "character counts of clean corpus pages, for guessing the bytes mojibake lost; "
                 "rebuild with: python -m gen.parse.repair.mojibake_model rebuild-model ../shared/corpus",
        "min_bigram_count": min_bigram,
        "unigrams": {char: [unigrams[char], followers[char]] for char in sorted(unigrams)},
        "bigrams": {pair: kept[pair] for pair in sorted(kept)},
    }


def dump_model(data: dict) -> str:
    # One entry per line keeps diffs of a rebuilt model readable.
    lines = ["{"]
    for key in ("format", "about", "min_bigram_count"):
        lines.append(f"{json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)},")
    for key in ("unigrams", "bigrams"):
        items = [f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v)}" for k, v in data[key].items()]
        lines.append(f"{json.dumps(key)}: {{")
        lines.append(",\n".join(items))
        lines.append("}," if key == "unigrams" else "}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --- held-out pages and measurement --------------------------------------------------------------


def corpus_pages(corpus: Path) -> Iterator[tuple[str, Path]]:
    """(path relative to the corpus, path) of every page, in a stable order."""
    for path in sorted(corpus.rglob("*.md")):
        if path.is_file():
            yield path.relative_to(corpus).as_posix(), path


def is_held_out(relative: str) -> bool:
    """Pages the model never sees, for measuring it: a tenth of the corpus by a hash of the
    path, and every version of selu_grad (the clean original of seed 003)."""
    if "selu_grad" in relative:
        return True
    return hashlib.sha256(relative.encode()).digest()[0] % 10 == 0


def clean_text(raw: bytes) -> str:
    return repair_text(raw).text


def rebuild_model(corpus: Path, out: Path = MODEL_PATH, min_bigram: int = MIN_BIGRAM_COUNT) -> dict:
    texts = []
    skipped = 0
    for relative, path in corpus_pages(corpus):
        if is_held_out(relative):
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        if repair_page(text, _EMPTY_MODEL) is not None:  # a damaged page teaches nothing
            skipped += 1
            continue
        texts.append(clean_text(text.encode()))
    data = count_text(texts, min_bigram)
    content = dump_model(data)
    if not out.is_file() or out.read_text(encoding="utf-8") != content:  # builds stay incremental
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(content, encoding="utf-8")
    default_model.cache_clear()
    print(f"{out}: {len(texts)} pages ({skipped} damaged ones skipped), {len(data['unigrams'])} "
          f"characters, {len(data['bigrams'])} bigrams, {out.stat().st_size:,} bytes")
    return data


@dataclass
class Accuracy:
    pages: int = 0
    detected: int = 0
    code_page_right: int = 0
    characters: int = 0
    wrong: int = 0
    non_ascii: int = 0
    guessed: int = 0  # characters that had a lost byte
    guessed_wrong: int = 0
    seconds: float = 0.0

    def add(self, other: "Accuracy") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def exact_share(self) -> float:
        return 1 - self.wrong / self.characters if self.characters else 1.0

    @property
    def non_ascii_share(self) -> float:
        return 1 - self.wrong / self.non_ascii if self.non_ascii else 1.0

    @property
    def guessed_share(self) -> float:
        return 1 - self.guessed_wrong / self.guessed if self.guessed else 1.0


def differing(a: str, b: str) -> int:
    """Characters of `a` that differ from `b`: positionally when the lengths agree (the repair
    keeps one character per sequence), else by alignment."""
    if len(a) == len(b):
        return sum(1 for x, y in zip(a, b) if x != y)
    import difflib

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return len(a) - sum(block.size for block in matcher.get_matching_blocks())


def measure_page(page: str, code_page: str, model: Optional[CharModel] = None) -> Accuracy:
    """Damage a page (its UTF-8 text, as saved) as the broken tool did, repair it as text repair
    does, and count the characters that differ from the repaired original."""
    model = model or default_model()
    expected = repair_text(page.encode("utf-8", errors="surrogatepass")).text
    start = time.perf_counter()
    damaged = normalize_line_ends(damage(page, code_page))
    repair = repair_page(damaged, model)
    repaired = clean_up(repair.text if repair else damaged)
    acc = Accuracy(pages=1, seconds=time.perf_counter() - start, characters=len(expected))
    acc.non_ascii = sum(1 for c in expected if ord(c) > 0x7F)
    acc.detected = int(repair is not None)
    acc.code_page_right = int(repair is not None and repair.code_page == code_page)
    acc.wrong = differing(expected, repaired)
    lost = lost_bytes(code_page)
    hid = [i for i, c in enumerate(expected) if any(b in lost for b in c.encode("utf-8")[1:])]
    acc.guessed = len(hid)
    if len(repaired) == len(expected):
        acc.guessed_wrong = sum(1 for i in hid if repaired[i] != expected[i])
    else:
        acc.guessed_wrong = len(hid)
    return acc


def held_out_texts(corpus: Path, limit: Optional[int] = None) -> list[tuple[str, str]]:
    """(relative path, text as saved) of held-out pages that have non-ASCII text to damage."""
    out = []
    for relative, path in corpus_pages(corpus):
        if not is_held_out(relative):
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        if not text.isascii():
            out.append((relative, text))
            if limit and len(out) >= limit:
                break
    return out


def _measure(corpus: Path, limit: Optional[int], unigram_only: bool) -> None:
    model = default_model()
    if unigram_only:
        model = CharModel(model.unigrams, model.bigrams, use_bigrams=False)
    pages = held_out_texts(corpus, limit)
    for code_page in CODE_PAGES:
        total = Accuracy()
        for relative, text in pages:
            acc = measure_page(text, code_page, model)
            total.add(acc)
            if not acc.detected or not acc.code_page_right:
                print(f"  {code_page} {relative}: detected={acc.detected} "
                      f"code page right={acc.code_page_right} non-ASCII={acc.non_ascii}")
        print(f"{code_page}: {total.pages} pages, detected {total.detected}, code page right "
              f"{total.code_page_right}; characters exact {total.exact_share:.5%} "
              f"({total.wrong} of {total.characters:,} wrong); non-ASCII exact "
              f"{total.non_ascii_share:.4%} of {total.non_ascii:,}; characters with a lost byte "
              f"exact {total.guessed_share:.3%} of {total.guessed:,}; "
              f"{1000 * total.seconds / max(1, total.pages):.1f} ms/page")
    false = [rel for rel, p in corpus_pages(corpus)
             if repair_page(p.read_bytes().decode("utf-8", errors="replace"), model) is not None]
    print(f"corpus pages taken for mojibake: {len(false)} {false[:10]}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen.parse.repair.mojibake_model", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rebuild = sub.add_parser("rebuild-model", help="count the corpus's clean pages into the model file")
    rebuild.add_argument("corpus", type=Path)
    rebuild.add_argument("--out", type=Path, default=MODEL_PATH)
    rebuild.add_argument("--min-bigram", type=int, default=MIN_BIGRAM_COUNT)
    measure = sub.add_parser("measure", help="damage held-out pages, repair them, count differences")
    measure.add_argument("corpus", type=Path)
    measure.add_argument("--pages", type=int, default=None)
    measure.add_argument("--unigram-only", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "rebuild-model":
        rebuild_model(args.corpus, args.out, args.min_bigram)
    else:
        _measure(args.corpus, args.pages, args.unigram_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
