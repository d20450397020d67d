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
    embedding = done.stdout[done.stdout.index("aclnnEmbedding ->"):]
    embedding = embedding[:embedding.index("\n\n")]
    assert "out= as the example makes it" in embedding and "-> out" in embedding
