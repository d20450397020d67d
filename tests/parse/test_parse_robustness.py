"""Malformed pages never raise: truncated and mangled seeds give a partial IR, in bounded time.

Every step of the parser is guarded (a failure would become a "parser-failure" diagnostic); these
tests demand more: no step fails at all, so the IR invariants hold on whatever the page holds.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from gen.ir import Page
from gen.parse import parse_bytes
from tests.parse.update_golden import SEED_PAGES

ROOT = Path(__file__).resolve().parents[2]
# The five seed pages, in their four formats (op_docs/ also holds the simulated ops' pages, which
# add nothing here but time; tests/fuzz/test_fuzz_parser.py mutates those and corpus pages).
SEEDS = [ROOT / page for page in SEED_PAGES.values()]
# CPU seconds, not wall: a busy machine must not fail a test about the parser's complexity.
MAX_CPU_SECONDS = 2.0


def _check(raw: bytes, what: str) -> Page:
    start = time.process_time()
    page = parse_bytes(raw, "fuzz.md")
    elapsed = time.process_time() - start
    failures = [d.message for d in page.diagnostics if d.code == "parser-failure"]
    assert not failures, f"{what}: {failures}"
    assert elapsed < MAX_CPU_SECONDS, f"{what}: {elapsed:.2f} CPU s"
    assert Page.from_json(page.to_json()) == page
    return page


@pytest.fixture(scope="module", params=SEEDS, ids=lambda p: p.name)
def seed(request) -> bytes:
    return request.param.read_bytes()


def test_truncated_at_many_points(seed):
    for cut in range(0, len(seed), max(1, len(seed) // 60)):
        _check(seed[:cut], f"cut at {cut}")


def test_lines_dropped_duplicated_and_swapped(seed):
    rng = random.Random(2)
    lines = seed.split(b"\n")
    for trial in range(25):
        mangled = list(lines)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(mangled))
            op = rng.choice(("drop", "dup", "swap"))
            if op == "drop":
                del mangled[i]
            elif op == "dup":
                mangled.insert(i, mangled[i])
            else:
                j = rng.randrange(len(mangled))
                mangled[i], mangled[j] = mangled[j], mangled[i]
            if not mangled:
                break
        _check(b"\n".join(mangled), f"trial {trial}")


def test_bytes_flipped_and_tags_broken(seed):
    rng = random.Random(3)
    for trial in range(25):
        raw = bytearray(seed)
        for _ in range(rng.randint(1, 30)):
            raw[rng.randrange(len(raw))] = rng.choice(b"<>|`*#()\n\xe4\xff0-")
        _check(bytes(raw), f"trial {trial}")


@pytest.mark.parametrize("raw", [b"", b"\n\n", b"#", b"<table>", b"<table><tr><td rowspan='99999'>x", b"```",
                                 b"aclnnStatus aclnnXGetWorkspaceSize(", b"\xff\xfe\x00", b"- " * 5000,
                                 b"<td>" * 3000, b"[object Object]\n" * 50, b"# aclnnX\n" + b"## h\n" * 2000])
def test_degenerate_inputs(raw):
    _check(raw, repr(raw[:20]))


def test_every_diagnostic_and_node_points_at_a_line_of_the_page(seed):
    page = _check(seed, "seed")
    last = seed.count(b"\n") + 1
    lines = [d.line for d in page.diagnostics] + [p.line for a in page.apis for p in a.params] + \
        [e.line for a in page.apis for e in a.errors] + [p.line for p in page.products]
    assert all(1 <= line <= last for line in lines)


def test_long_lines_built_from_cut_seed_lines_parse_in_linear_time(seed):
    # Regular expressions that backtrack show up on long lines missing their closing delimiter:
    # every seed line is cut in half and its first half repeated into a ~20 kB line.
    lines = [line for line in seed.split(b"\n") if len(line.strip()) > 8]
    rng = random.Random(5)
    placements = (b"- %s\n", b"<table><tr><th>\xe5\x8f\x82\xe6\x95\xb0\xe5\x90\x8d</th></tr><tr><td>%s</td></tr></table>\n",
                  b"```\naclnnStatus aclnnFooGetWorkspaceSize(%s\n```\n", b"%s\n")
    for line in rng.sample(lines, min(20, len(lines))):
        half = line[: max(4, len(line) // 2)]
        long_line = half * max(1, 20000 // len(half))
        for placement in placements:
            _check(b"# aclnnFoo\n\n## aclnnFooGetWorkspaceSize\n\n" + placement.replace(b"%s", long_line),
                   f"long {half[:30]!r} in {placement[:10]!r}")


def test_inspect_of_a_missing_page_fails_naming_it(capsys, tmp_path):
    # Issue 15, finding 7: `python -m gen inspect --json missing.md` printed an empty page and exited 0.
    from gen import cli

    missing = tmp_path / "missing.md"
    assert cli.main(["inspect", "--json", str(missing)]) == 1
    assert f"{missing}:1: error:" in capsys.readouterr().err
    assert cli.main(["inspect", str(ROOT / "op_docs" / "abs.md")]) == 0
