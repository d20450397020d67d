"""examples/llama_torch_npu.py: a Llama decoder layer in plain PyTorch on device="npu" through
torch_npu equals the CPU's, in float32 and bfloat16 (the script exits 1 otherwise)."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llama_torch_npu.py"


def test_the_layer_on_torch_npu_equals_the_cpu(npu_environment):
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--seq", "8", "--repeat", "1"], env=npu_environment,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(" ok") == 2, proc.stdout
