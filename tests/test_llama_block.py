"""examples/llama_block.py: one Llama decoder layer through aclnn only matches PyTorch's, in float32
and bfloat16 (issue 12's showcase; `make demo` runs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "llama_block.py"


def test_the_decoder_layer_matches_pytorch_in_float32_and_bfloat16():
    done = subprocess.run([sys.executable, str(SCRIPT), "--seq", "12", "--repeat", "1"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if "logits max relative error" in line]
    assert [line.split(":")[0].strip() for line in lines] == ["float32", "bfloat16"]
    assert all(" ok;" in line and "equal PyTorch's: 12/12" in line for line in lines), done.stdout
