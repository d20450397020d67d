"""torch_npu on the simulator against PyTorch CPU eager, in one process (issue 21): a chain of small
calls (per-call µs: what a framework's dispatch, op-plugin, aclnn's two phases and the simulator's
stream add to a tiny kernel) and the Llama decoder layer of examples/llama_torch_npu.py (ms).

Runs in the environment the simulator's set_env.sh gives (bench.run starts every section in a
process of its own; this one starts its measuring process with that environment). Both sides are
timed interleaved, in rounds; the NPU side to the end of its work (torch.npu.synchronize()).

    python -m bench.torch_npu [--calls 10000] [--rounds 5] [--seq 16]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from bench.common import ROOT, Summary, emit_result, interleaved, log, ratio

MEASURE = r'''
import json, os, sys, time
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch, torch_npu
sys.path.insert(0, sys.argv[4])
from bench.common import interleaved
from llama_block import Config, torch_layer, weights

calls, rounds, seq = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
x_cpu = torch.randn(64)
x_npu = x_cpu.npu()

def chain(x, sync):
    def run():
        y = x
        for _ in range(calls):
            y = y * 1.0000001
        sync()
    return run

cfg = Config()
ids = torch.randint(0, cfg.vocab, (seq,), generator=torch.Generator().manual_seed(1))
cpu_params = weights(cfg)
npu_params = {n: t.npu() for n, t in cpu_params.items()}
npu_ids = ids.npu()
def layer_npu():
    torch_layer(cfg, npu_params, npu_ids)
    torch.npu.synchronize()
def layer_cpu():
    torch_layer(cfg, cpu_params, ids)

chains = interleaved({"npu": chain(x_npu, torch.npu.synchronize), "cpu": chain(x_cpu, lambda: None)}, rounds)
layers = interleaved({"npu": layer_npu, "cpu": layer_cpu}, rounds)
print(json.dumps({"chain": chains, "layer": layers, "device": torch.npu.get_device_name(),
                  "torch_npu": torch_npu.__version__, "threads": torch.get_num_threads()}))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seq", type=int, default=16)
    args = parser.parse_args()
    import aclnn.sim

    env = aclnn.sim.environment()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    log(f"bench.torch_npu: {args.calls} calls x {args.rounds} rounds, layer at sequence {args.seq}")
    done = subprocess.run([sys.executable, "-c", MEASURE, str(args.calls), str(args.rounds), str(args.seq),
                           str(ROOT / "examples")], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the measuring process exited with status {done.returncode}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    per_call = {side: [s / args.calls for s in raw["chain"][side]] for side in ("npu", "cpu")}
    emit_result({
        "calls": args.calls, "seq": args.seq, "device": raw["device"], "torch_npu": raw["torch_npu"],
        "threads": raw["threads"],
        "chain_us": {side: Summary.of(v, "s").scaled(1e6, "us").to_json() for side, v in per_call.items()},
        "chain_ratio": ratio(per_call["npu"], per_call["cpu"]).to_json(),
        "layer_ms": {side: Summary.of(raw["layer"][side], "s").scaled(1e3, "ms").to_json() for side in ("npu", "cpu")},
        "layer_ratio": ratio(raw["layer"]["npu"], raw["layer"]["cpu"]).to_json(),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
