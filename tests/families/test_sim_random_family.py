"""What the generated suites' law checks leave out of the random family: that its generator is
Philox 4x32-10 (Random123's known answers, through aclnnInplaceRandom's 64-bit draws), that a
value belongs to its element's logical position whatever out='s strides and however many
threads draw, and the calls the engine refuses by name (a negative std, from above to, a
dropout offset that is no multiple of 4, more samples than categories without replacement, a
range the dtype does not hold, a noise shape: the page's reserved parameter).

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`):
this process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support import bindings_build

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

GENERATED = Path(__file__).resolve().parents[2] / "generated"
MASK = (1 << 32) - 1


def philox(key: int, counter: int) -> list[int]:
    """Philox 4x32-10 of a 128-bit counter under a 64-bit key, as Random123 defines it."""
    c = [(counter >> (32 * i)) & MASK for i in range(4)]
    k = [key & MASK, key >> 32 & MASK]
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
        k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
    return c


def test_the_reference_philox_gives_random123s_known_answers():
    assert philox(0, 0) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox((1 << 64) - 1, (1 << 128) - 1) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    assert philox(0x299F31D0A4093822, 0x0370734413198A2E85A308D3243F6A88) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


CALLS = r'''
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import aclnn
out = {}

def record(name, call):
    try:
        out[name] = np.asarray(call()).tolist()
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

# random_(0, 2^62) into INT64: element i is 64 bits of block (i / 2, offset) modulo 2^62.
record("random int64", lambda: aclnn.inplace_random(np.zeros(6, np.int64), 0, 1 << 62, 1234, 8))
dense = aclnn.inplace_normal(np.zeros((40, 30), np.float32), 0.0, 1.0, 77, 4)
strided = np.zeros((30, 80), np.float32).T[::2]
aclnn.inplace_normal(strided, 0.0, 1.0, 77, 4)
out["dense"], out["strided"] = dense.tolist(), strided.tolist()
mask = np.array([0b01010101] * 16, np.uint8)
for p in (0.0, 0.5, 1.0):
    record(f"do_mask {p}", lambda: aclnn.dropout_do_mask(np.arange(1, 9, dtype=np.float32), mask, p))
record("std < 0", lambda: aclnn.inplace_normal(np.zeros(4, np.float32), 0.0, -1.0, 1, 0))
record("from > to", lambda: aclnn.inplace_uniform(np.zeros(4, np.float32), 3.0, 1.0, 1, 0))
dropout_outs = lambda: (np.zeros(128, np.float32), np.zeros(16, np.uint8))
aclnn.sim_set_soc("Ascend950")  # the one chip aclnnDropoutV3's page supports
record("dropout offset 6", lambda: aclnn.dropout_v3(np.ones(128, np.float32), None, 0.5, 1, 6, out=dropout_outs()))
record("dropout noise shape", lambda: aclnn.dropout_v3(np.ones(128, np.float32), np.array([128], np.int64), 0.5, 1, 0,
                                                       out=dropout_outs()))
x = np.random.default_rng(0).uniform(0.5, 2.0, 4000).astype(np.float32)
kept = [aclnn.dropout_v3(x, None, 0.3, 21, 8, out=(np.zeros(4000, np.float32), np.zeros(512, np.uint8))) for _ in range(2)]
out["dropout x"], out["dropout out"], out["dropout mask"] = x.tolist(), kept[0][0].tolist(), kept[0][1].tolist()
out["dropout again"] = kept[1][0].tolist()
aclnn.sim_set_soc("Ascend910B")
record("17 of 16 without replacement", lambda: aclnn.multinomial(np.ones((2, 16), np.float32), 17, False, 1, 0,
                                                                out=np.zeros((2, 17), np.int64)))
record("random_ beyond INT8", lambda: aclnn.inplace_random(np.zeros(4, np.int8), 0, 300, 1, 0))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_SIM_")}
    proc = subprocess.run([sys.executable, "-c", CALLS, str(GENERATED)], env={**env, "ACLNN_SIM_THREADS": "2"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_engine_draws_philox_4x32_10_at_counter_element_and_offset(results):
    # Element i: the words 2h, 2h + 1 (h = i % 2) of block i // 2.
    words = [philox(1234, i // 2 | 8 << 64)[2 * (i % 2):2 * (i % 2) + 2] for i in range(6)]
    assert results["random int64"] == [(w[0] << 32 | w[1]) % (1 << 62) for w in words]


def test_a_value_belongs_to_its_logical_position_whatever_the_strides(results):
    assert results["strided"] == results["dense"]


@pytest.mark.parametrize("name, param", [("std < 0", "std"), ("from > to", "from"), ("dropout offset 6", "offset"),
                                         ("17 of 16 without replacement", "numsamples"), ("random_ beyond INT8", "from"),
                                         ("dropout noise shape", "optionalNoiseShape")])
def test_calls_outside_the_law_are_refused_by_name(results, name, param):
    assert results[name]["status"] == 161002, results[name]
    assert param in results[name]["message"], results[name]


def test_dropout_v3_keeps_what_its_mask_says_scaled_at_the_rate_asked(results):
    x, y = np.array(results["dropout x"]), np.array(results["dropout out"])
    bits = np.unpackbits(np.array(results["dropout mask"], np.uint8), bitorder="little")
    assert not bits[x.size:].any(), "bits past the elements are set"
    keep = bits[:x.size].astype(bool)
    np.testing.assert_allclose(y, np.where(keep, x / 0.7, 0.0), rtol=1e-6)
    assert abs(keep.mean() - 0.7) < 0.03, keep.mean()
    assert results["dropout again"] == results["dropout out"]


def test_do_mask_keeps_self_at_prob_0_and_zeroes_it_at_1_whatever_the_mask(results):
    assert results["do_mask 0.0"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert results["do_mask 0.5"] == [2, 0, 6, 0, 10, 0, 14, 0]
    assert results["do_mask 1.0"] == [0] * 8
