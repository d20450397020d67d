"""The quant_matmul family: what it does not model is refused by name (561003), never computed with
a wrong value: INT8 (requantised) outputs, per-group scales, a TransQuantParamV3 roundMode that
rounds the scale's bits. The packed scale word carries the float that aclnnQuantMatmulV5 reads
back, so that the refusals are not the family refusing everything.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

CALLS = r'''
rng = np.random.default_rng(0)
x1 = rng.integers(-128, 128, (4, 32)).astype(np.int8)
x2 = rng.integers(-128, 128, (32, 8)).astype(np.int8)
scale = rng.uniform(0.001, 0.01, 8).astype(np.float32)
half = np.zeros((4, 8), np.float16)
out = {}

def record(name, call):
    try:
        value = call()
        out[name] = {"status": 0, "value": np.asarray(value).tolist()}
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

record("packed", lambda: aclnn.trans_quant_param_v3(scale, None, 0, out=np.zeros(8, np.int64)))
record("rounded bits", lambda: aclnn.trans_quant_param_v3(scale, None, 1, out=np.zeros(8, np.int64)))
words = np.asarray(out["packed"].get("value", np.zeros(8)), np.int64)
record("product", lambda: aclnn.quant_matmul_v5(x1, x2, None, words, None, None, None, None, None, False, False, 0,
                                                out=half.copy()))
record("int8 out", lambda: aclnn.quant_matmul_v5(x1, x2, None, words, None, None, None, None, None, False, False, 0,
                                                 out=np.zeros((4, 8), np.int8)))
record("groups", lambda: aclnn.quant_matmul_v5(x1, x2, None, words, None, None, None, None, None, False, False, 32,
                                               out=half.copy()))
out["x1"], out["x2"], out["scale"] = x1.tolist(), x2.tolist(), scale.tolist()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS)


def test_the_packed_word_carries_the_truncated_float_and_bit_46(results):
    words = np.asarray(results["packed"]["value"], np.int64)
    bits = np.asarray(results["scale"], np.float32).view(np.uint32).astype(np.int64)
    assert (words == ((bits & 0xFFFFE000) | (1 << 46))).all()


def test_the_product_reads_the_packed_scales_back(results):
    assert results["product"]["status"] == 0, results["product"]
    acc = np.asarray(results["x1"], np.int64) @ np.asarray(results["x2"], np.int64)
    truncated = (np.asarray(results["scale"], np.float32).view(np.uint32) & 0xFFFFE000).view(np.float32)
    expected = (acc.astype(np.float32) * truncated).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(results["product"]["value"], np.float16), expected)


@pytest.mark.parametrize("name, named", [
    ("rounded bits", "roundMode 1"),
    ("int8 out", "out of dtype INT8"),
    ("groups", "groupSize 32"),
])
def test_what_the_family_does_not_model_is_refused_by_name(results, name, named):
    assert results[name].get("status") == 561003, results[name]
    assert named in results[name]["message"], results[name]

