"""`make demo`'s per-op part (python -m gen.demo): every op of op_docs/ called with its page's example
inputs runs to the end; outputs the bindings cannot shape are given as the example makes them."""

from __future__ import annotations

import re
import subprocess
import sys


def test_the_demo_calls_every_op_and_ends_cleanly():
    done = subprocess.run([sys.executable, "-m", "gen.demo"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    summary = re.search(r"(\d+) calls returned results; (\d+) raised an error", done.stdout)
    assert summary is not None, done.stdout[-2000:]
    assert int(summary.group(1)) >= 100
    # aclnnEmbedding's out follows from its arguments: the demo passes the example's own out array.
    embedding = shown(done.stdout, "aclnnEmbedding")
    assert "out= as the example makes it" in embedding and "-> out" in embedding
    # The example's nullptr is passed as None (aclnnBatchNormElemt's weight, required by its table).
    batch_norm = shown(done.stdout, "aclnnBatchNormElemt")
    assert re.search(r"\bweight = None\n", batch_norm) and "-> out" in batch_norm
    # A page for other chips runs on one it supports (aclnnAddV3: Ascend950 only).
    add_v3 = shown(done.stdout, "aclnnAddV3")
    assert "on Ascend950" in add_v3 and "-> out" in add_v3
    # Every error is told under one cause.
    grouped = sum(int(n) for n in re.findall(r"^  (\d+) raised because ", done.stdout, re.M))
    assert grouped == int(summary.group(2)), done.stdout[-3000:]


def shown(stdout: str, api: str) -> str:
    """What the demo printed for one API."""
    block = stdout[stdout.index(f"\n{api} ->"):]
    return block[:block.index("\n\n", 1)]
