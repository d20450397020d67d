"""Mojibake repair: pages whose UTF-8 was decoded as a Windows code page and saved again.

The character model it guesses lost bytes with (data/charfreq.json) is built and measured by
mojibake_model.py.

The damage. Some pages reached us after a tool read their UTF-8 bytes as cp1252 (Western) or
cp1254 (Turkish), and wrote the result back as UTF-8. Along the way:

- every byte >= 0x80 became the code page's character (0xE6 -> "æ", 0x9F -> "Ÿ", ...);
- the bytes the code page leaves undefined were dropped (the unicode.org mapping tables and
  Python's codecs agree: cp1252 leaves 0x81 0x8D 0x8F 0x90 0x9D undefined, cp1254 those and
  0x8E 0x9E, which cp1252 gives to Ž and ž); `lost_bytes` computes the sets from the codecs.
  Decoders that keep them as C1 controls (U+0081) instead are read back too, with no guess;
- 0xAD became a soft hyphen (U+00AD), which was then removed as invisible.

Bytes that are lost are therefore always UTF-8 continuation bytes (0x80-0xBF); lead bytes and
ASCII survive. Re-encoding a run of damaged characters with the code page gives back the UTF-8
bytes with gaps, and a lead byte says how many continuation bytes its character had, so each
gap is located up to its position inside one character. What the lost byte was (one of 0x81
0x8D 0x8E 0x8F 0x90 0x9D 0x9E 0xAD) is a guess: a character bigram model learned from the clean
pages of the corpus picks the likeliest characters along a run (Viterbi over the run's gaps).

The two code pages differ at 0x8E 0x9E 0xD0 0xDD 0xDE 0xF0 0xFD 0xFE ("Ž ž Ð Ý Þ ð ý þ" against
"lost, lost, Ğ İ Ş ğ ı ş"), so a page is tried under both and the one that explains more of it
wins; when both explain everything, the model's likelihood decides.

Measured (mojibake_model.py's `measure`, 191 held-out pages, 1.88 M characters, 115 k of them non-ASCII): damaged as
cp1252, 99.998% of characters come back exact (99.97% of the non-ASCII ones, 99.85% of the
25 k that lost a byte); as cp1254, 99.994% (99.90%, 99.65% of 33 k). Unigrams alone reach
93.5% and 91.4% of the characters that lost a byte. Every page is detected, under the right
code page, and no clean corpus page is taken for mojibake.

Detection must leave clean pages alone: a Chinese page has no run of code-page characters at
all, and an English page's "é" or "×" is a lead byte with all its continuation bytes missing.
A page is repaired only when telling sequences make up a fair share of what its runs decode
to: complete ones ("Ã—" for "×", "æŽ¥" for "接"), or ones that kept a continuation byte and lost
only one ("ã€" for "、"); clean text next to never holds a lead letter followed by the right
punctuation ("€", "—", "¥", ...).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

from gen.parse.patterns import lazy_pattern

CODE_PAGES = ("cp1252", "cp1254")
SOFT_HYPHEN_BYTE = 0xAD  # decodes to U+00AD in both code pages, then removed as invisible
# Every byte that one of the code pages can lose: the union of `lost_bytes`.
LOSABLE_BYTES = (0x81, 0x8D, 0x8E, 0x8F, 0x90, 0x9D, 0x9E, 0xAD)

MODEL_PATH = Path(__file__).resolve().parent / "data" / "charfreq.json"
MODEL_FORMAT = 1
# Bigrams seen fewer times than this are left out of the data file: it keeps the file small
# and costs next to no accuracy (see `measure`).
MIN_BIGRAM_COUNT = 2

# Detection: of the characters a page's code-page runs decode to, at least this share must come
# from telling sequences (damaged corpus pages score 0.91-1.0, clean ones 0), and the runs
# that decode to nothing may hold at most this share of the run characters.
MIN_TELLING_SHARE = 0.25
MAX_UNDECODABLE_SHARE = 0.25
# When both code pages explain every run, cp1254 must beat cp1252 by this many nats of model
# log-likelihood: cp1254 can lose two more bytes, so it always fits at least as well.
CP1254_MARGIN = 2.0
# Candidates searched per sequence: the likeliest seen ones (this bounds the search at
# MAX_CANDIDATES**2 steps a sequence; more changes no guess on the held-out pages), or, when
# the corpus has seen none, a few in a stable order.
MAX_CANDIDATES = 8
MAX_UNSEEN_CANDIDATES = 4
# Transitions the bigram search may weigh on one page (a few hundred ms of Python). The
# costliest corpus page, damaged, needs 7,100; what is past the budget gets unigram guesses, so
# that a hostile page cannot take long.
SEARCH_BUDGET = 300_000


# --- the code pages ------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def lost_bytes(code_page: str) -> frozenset[int]:
    """The bytes a decode with `code_page` loses: those it leaves undefined, and 0xAD."""
    undefined = set()
    for byte in range(0x80, 0x100):
        try:
            bytes([byte]).decode(code_page)
        except UnicodeDecodeError:
            undefined.add(byte)
    return frozenset(undefined | {SOFT_HYPHEN_BYTE})


@lru_cache(maxsize=None)
def _byte_of(code_page: str) -> dict[str, int]:
    """Character -> byte for the code page's upper half.

    The C1 controls at the undefined positions map back too: some decoders keep them
    (U+0081 for 0x81) instead of dropping them, and a page holding them still repairs.
    """
    table = {}
    for byte in range(0x80, 0x100):
        char = bytes([byte]).decode(code_page, errors="ignore") or chr(byte)
        table[char] = byte
    return table


@lru_cache(maxsize=None)
def _run_pattern(code_page: str) -> re.Pattern[str]:
    chars = "".join(sorted(_byte_of(code_page)))
    return re.compile("[" + re.escape(chars) + "]+")


@lru_cache(maxsize=1)
def _telling_pair() -> re.Pattern[str]:
    """A UTF-8 lead byte followed by a continuation byte, as any of the code pages spells them."""
    leads = {char for cp in CODE_PAGES for char, byte in _byte_of(cp).items() if 0xC2 <= byte <= 0xF4}
    continuations = {char for cp in CODE_PAGES for char, byte in _byte_of(cp).items() if 0x80 <= byte <= 0xBF}
    return re.compile("[" + re.escape("".join(sorted(leads))) + "][" + re.escape("".join(sorted(continuations))) + "]")


def damage(text: str, code_page: str) -> str:
    """What the broken tool made of `text`: UTF-8 read as `code_page`, undefined bytes and soft
    hyphens dropped. The model of the damage that tests and `measure` repair."""
    decoded = text.encode("utf-8", errors="surrogatepass").decode(code_page, errors="ignore")
    return decoded.replace("\u00ad", "")


# --- the character model -------------------------------------------------------------------------


def _is_losable(char: str) -> bool:
    """Whether a lost byte can hide in `char`'s UTF-8, i.e. whether it can be a guess."""
    encoded = char.encode("utf-8", errors="surrogatepass")
    return any(b in LOSABLE_BYTES for b in encoded[1:])


_AS_SPACE = {"\u00a0": " ", "\u202f": " ", "\u2007": " "}


class CharModel:
    """Character unigram and bigram counts, Witten-Bell smoothed.

    P(b | a) = (n(a b) + T(a) P(b)) / (n(a) + T(a)), with T(a) the number of distinct characters
    seen after a, and P(b) the add-half unigram over a 2**16 character vocabulary.
    """

    VOCABULARY = 1 << 16
    CACHE_LIMIT = 1 << 20

    def __init__(self, unigrams: dict[str, tuple[int, int]], bigrams: dict[str, int],
                 use_bigrams: bool = True) -> None:
        self.unigrams = unigrams  # char -> (count, distinct followers)
        self.bigrams = bigrams  # two-character string -> count
        self.use_bigrams = use_bigrams
        self.total = sum(count for count, _ in unigrams.values())
        self._log_unigram: dict[str, float] = {}
        self._log_bigram: dict[str, float] = {}
        self._likely: dict[tuple[str, ...], tuple[str, ...]] = {}

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> "CharModel":
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != MODEL_FORMAT:
            raise ValueError(f"{path}: model format {data.get('format')!r}, expected {MODEL_FORMAT}")
        unigrams = {char: (int(v[0]), int(v[1])) for char, v in data["unigrams"].items()}
        return cls(unigrams, {pair: int(n) for pair, n in data["bigrams"].items()})

    def knows(self, char: str) -> bool:
        return char in self.unigrams

    def unigram(self, char: str) -> float:
        """log P(char)."""
        cached = self._log_unigram.get(char)
        if cached is None:
            count = self.unigrams.get(char, (0, 0))[0]
            cached = math.log((count + 0.5) / (self.total + 0.5 * self.VOCABULARY))
            self._log_unigram[char] = cached
        return cached

    def bigram(self, prev: str, char: str) -> float:
        """log P(char | prev)."""
        key = original = prev + char
        cached = self._log_bigram.get(key)
        if cached is None:
            # The model learned from cleaned text, where NBSP and its kin are spaces.
            prev, char = _AS_SPACE.get(prev, prev), _AS_SPACE.get(char, char)
            key = prev + char
            count, followers = self.unigrams.get(prev, (0, 0))
            p_char = math.exp(self.unigram(char))
            if not self.use_bigrams or followers == 0:
                cached = math.log(p_char)
            else:
                pair = self.bigrams.get(key, 0)
                cached = math.log((pair + followers * p_char) / (count + followers))
            if len(self._log_bigram) >= self.CACHE_LIMIT:  # adversarial pages must not grow it forever
                self._log_bigram.clear()
            self._log_bigram[original] = cached
        return cached

    def likely(self, cands: tuple[str, ...]) -> tuple[str, ...]:
        """The candidates worth a search: the likeliest few the corpus has seen, if any (an
        unseen character never beats a seen one by its smoothed probability), else a few in a
        stable order."""
        cached = self._likely.get(cands)
        if cached is None:
            known = [c for c in cands if c in self.unigrams]
            if not known:
                cached = cands[:MAX_UNSEEN_CANDIDATES]
            else:
                known.sort(key=lambda c: (-self.unigrams[c][0], c))
                cached = tuple(known[:MAX_CANDIDATES])
            if len(self._likely) >= self.CACHE_LIMIT:
                self._likely.clear()
            self._likely[cands] = cached
        return cached


_EMPTY_MODEL = CharModel({}, {})


@lru_cache(maxsize=1)
def default_model() -> CharModel:
    """The shipped model; an empty one (every guess equally likely) if the file is unusable."""
    try:
        return CharModel.load()
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return _EMPTY_MODEL


# --- reading runs --------------------------------------------------------------------------------


# UTF-8 sequences whose only flaw can be missing continuation bytes, over the bytes of a run
# spelled as Latin-1 characters (one character per byte).
_SEQUENCE = lazy_pattern("[\xc2-\xdf][\x80-\xbf]?|[\xe0-\xef][\x80-\xbf]{0,2}|[\xf0-\xf4][\x80-\xbf]{0,3}")


def _sequence_length(lead: str) -> int:
    return 2 if lead <= "\xdf" else 3 if lead <= "\xef" else 4


@lru_cache(maxsize=1 << 16)
def _candidates(sequence: str, code_page: str) -> tuple[tuple[str, ...], int]:
    """Every character a damaged sequence (lead byte and surviving continuation bytes, spelled
    in Latin-1) can have been, and how many bytes it lost: the code page's lost bytes put in
    every way into its gaps, keeping what decodes as strict UTF-8 (no overlong forms, no
    surrogates)."""
    data = sequence.encode("latin-1")
    tails = _sequence_length(sequence[0]) - 1
    missing = tails - (len(data) - 1)
    if not missing:
        try:
            return (data.decode("utf-8"),), 0
        except UnicodeDecodeError:
            return (), 0
    lost = sorted(lost_bytes(code_page))
    found: dict[str, None] = {}
    for gaps in itertools.combinations(range(tails), missing):
        for fill in itertools.product(lost, repeat=missing):
            tail, kept, filler = [], iter(data[1:]), iter(fill)
            for pos in range(tails):
                tail.append(next(filler) if pos in gaps else next(kept))
            try:
                found[bytes([data[0], *tail]).decode("utf-8")] = None
            except UnicodeDecodeError:
                pass
    return tuple(found), missing


class _Run(NamedTuple):
    """A run of code-page characters, read back into UTF-8 sequences (a tuple: pages have
    hundreds of thousands of runs, and a frozen dataclass is slow to build)."""

    start: int
    end: int
    options: Optional[tuple[tuple[str, ...], ...]]  # per sequence; None: does not decode
    telling: int  # sequences that only mojibake explains: see `_decode_run`
    guessed_bytes: int


@lru_cache(maxsize=1 << 16)
def _decode_run(run: str, code_page: str) -> Optional[tuple[tuple[tuple[str, ...], ...], int, int]]:
    """The candidates of each sequence of `run`, how many sequences are telling and how many
    bytes are missing; None when the run is not damaged UTF-8 (a stray continuation byte, a
    byte UTF-8 never uses, a sequence nothing fills).

    Telling sequences are whole, or lost one byte but kept a continuation byte: a lead letter
    followed by continuation-byte punctuation, which clean text next to never holds. A lead
    letter standing alone ("é", "×") tells nothing."""
    data = run.translate(_latin1_of(code_page))
    sequences = _SEQUENCE.findall(data)
    if sum(map(len, sequences)) != len(data):  # bytes that belong to no sequence
        return None
    read = [_candidates(sequence, code_page) for sequence in sequences]
    options = tuple(cands for cands, _ in read)
    if not all(options):
        return None
    missing = [n for _, n in read]
    telling = sum(1 for seq, n in zip(sequences, missing) if n == 0 or (n == 1 and len(seq) > 1))
    return options, telling, sum(missing)


@lru_cache(maxsize=None)
def _latin1_of(code_page: str) -> dict[int, str]:
    """str.translate table: code-page character -> the Latin-1 character of its byte."""
    return {ord(char): chr(byte) for char, byte in _byte_of(code_page).items()}


def _read_run(run: str, start: int, code_page: str) -> _Run:
    decoded = _decode_run(run, code_page)
    if decoded is None:
        return _Run(start, start + len(run), None, 0, 0)
    options, telling, guessed = decoded
    return _Run(start, start + len(run), options, telling, guessed)


@dataclass(frozen=True)
class _Reading:
    """A page read under one code page: its runs, and how well they decode."""

    code_page: str
    runs: tuple[_Run, ...]

    @property
    def explained(self) -> int:
        """Run characters that decode."""
        return sum(r.end - r.start for r in self.runs if r.options is not None)

    @property
    def is_mojibake(self) -> bool:
        decoded = [r for r in self.runs if r.options is not None]
        telling = sum(r.telling for r in decoded)
        sequences = sum(len(r.options or ()) for r in decoded)
        chars = sum(r.end - r.start for r in self.runs)
        return (telling >= 1 and telling >= MIN_TELLING_SHARE * sequences
                and chars - self.explained <= MAX_UNDECODABLE_SHARE * chars)


def _read(text: str, code_page: str) -> _Reading:
    runs = tuple(_read_run(m.group(), m.start(), code_page) for m in _run_pattern(code_page).finditer(text))
    return _Reading(code_page, runs)


# --- guessing the lost bytes ---------------------------------------------------------------------


def _viterbi(left: str, options: Sequence[tuple[str, ...]], right: str,
             model: CharModel) -> tuple[str, float]:
    """The likeliest characters for a run's sequences between `left` and `right`, and the
    log-likelihood of that choice under the bigram chain (up to a constant)."""
    if not options:
        return "", 0.0
    bigram = model.bigram
    scores = {left: 0.0}
    back: list[dict[str, str]] = []
    for cands in options:
        step_scores, step_back = {}, {}
        for char in cands:
            best, best_prev = max((score + bigram(prev, char), prev) for prev, score in scores.items())
            step_scores[char], step_back[char] = best, best_prev
        scores = step_scores
        back.append(step_back)
    total, last = max((s + bigram(c, right), c) for c, s in scores.items())
    chars = [last]
    for step in reversed(back[1:]):
        chars.append(step[chars[-1]])
    return "".join(reversed(chars)), total


# Characters text repair removes anyway: left out of the repaired runs, so that they do not
# stand between two characters whose bigram tells what a lost byte was.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff")


def _solve(reading: _Reading, text: str, model: CharModel) -> tuple[list[Optional[str]], float]:
    """Each run's repaired text (None for runs that do not decode) and the total score."""
    out: list[Optional[str]] = []
    total = 0.0
    solved: dict[tuple[str, str, str], tuple[str, float]] = {}  # pages repeat their runs
    work = 0
    for run in reading.runs:
        if run.options is None:
            out.append(None)
        elif not run.guessed_bytes:
            out.append("".join(o[0] for o in run.options if o[0] not in _INVISIBLE))
        else:
            left = text[run.start - 1] if run.start > 0 else "\n"
            right = text[run.end] if run.end < len(text) else "\n"
            key = (left, text[run.start:run.end], right)
            if key not in solved:
                options = [o if len(o) == 1 else model.likely(o)
                           for o in run.options if len(o) > 1 or o[0] not in _INVISIBLE]
                steps = sum(len(a) * len(b) for a, b in zip(options, options[1:]))
                if work + steps <= SEARCH_BUDGET:
                    work += steps
                    solved[key] = _viterbi(left, options, right, model)
                else:  # out of budget: each sequence's likeliest character on its own
                    solved[key] = ("".join(o[0] for o in options), 0.0)
            repaired, score = solved[key]
            out.append(repaired)
            total += score
    return out, total


# --- repairing a page ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PageRepair:
    """What the repair made of a mojibake page."""

    text: str
    code_page: str
    characters: int  # characters rebuilt from the runs
    guessed_bytes: int
    first_offset: int  # offset (in the input text) of the first repaired run
    undecodable: tuple[tuple[int, int], ...]  # (start, end) of runs kept as they were


def repair_page(text: str, model: Optional[CharModel] = None) -> Optional[PageRepair]:
    """The repaired page, or None when `text` does not look like mojibake."""
    if text.isascii():  # the common case, and clean whatever happened to it
        return None
    if not _telling_pair().search(text):
        # A reading is mojibake only with a telling sequence: a lead byte's character followed by
        # a continuation byte's. One search for that pair instead of every run under every code
        # page (clean pages hold runs: dashes, quotes, "×").
        return None
    model = model or default_model()
    readings = [r for r in (_read(text, cp) for cp in CODE_PAGES) if r.is_mojibake]
    if not readings:
        return None
    best = max(r.explained for r in readings)
    readings = [r for r in readings if r.explained == best]
    solved = [(r, *_solve(r, text, model)) for r in readings]
    if len(solved) == 1:
        reading, repaired, _ = solved[0]
    else:
        # Both code pages explain every run: cp1254 loses two bytes more, so it always fits at
        # least as well; it must fit clearly better to be believed.
        by_page = {r.code_page: (r, runs, score) for r, runs, score in solved}
        cp1252, cp1254 = by_page["cp1252"], by_page["cp1254"]
        reading, repaired, _ = cp1254 if cp1254[2] - cp1252[2] > CP1254_MARGIN else cp1252
    out, pos = [], 0
    characters = guessed = 0
    first = -1
    undecodable = []
    for run, fixed in zip(reading.runs, repaired):
        if fixed is None:
            undecodable.append((run.start, run.end))
            continue
        out.append(text[pos:run.start])
        out.append(fixed)
        pos = run.end
        characters += len(fixed)
        guessed += run.guessed_bytes
        if first < 0:
            first = run.start
    out.append(text[pos:])
    return PageRepair("".join(out), reading.code_page, characters, guessed, first, tuple(undecodable))
