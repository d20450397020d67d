"""What the quant families do not model is refused by name, never computed with a wrong value: the
outputs and inputs the pages list but the simulator does not produce (FLOAT8 and HIFLOAT8 outputs,
INT32-packed INT4 inputs),
roundMode "hybrid", dynamic quantisation by groups, a gamma over several dimensions, aclnnGeluQuant's
offset in its dynamic mode and aclnnDynamicBlockQuantV2's custom dstTypeMax answer 561003 naming the
attribute; a roundMode the page does not allow is the page's 161002. One valid call of each
kind computes, so that the refusals are not the family refusing everything.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

CALLS = r'''
import ml_dtypes
rng = np.random.default_rng(0)
x = rng.uniform(-3, 3, (4, 16)).astype(np.float32)
scale = np.full(16, 20.0, np.float32)
offset = np.zeros(16, np.float32)
int8 = np.zeros((4, 16), np.int8)
out = {}

def record(name, call):
    try:
        call()
        out[name] = {"status": 0}
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

record("int8", lambda: aclnn.ascend_quant(x, scale, offset, False, "round", 2, out=int8))
record("packed int4", lambda: aclnn.ascend_quant(x, scale, offset, False, "round", 3,
                                                 out=np.zeros((4, 2), np.int32)))
record("float8", lambda: aclnn.ascend_quant_v3(x, scale, offset, False, "round", 36, -1,
                                               out=np.zeros((4, 16), ml_dtypes.float8_e4m3fn)))
record("hybrid", lambda: aclnn.ascend_quant(x, scale, offset, False, "hybrid", 2, out=int8))
record("nearest", lambda: aclnn.ascend_quant(x, scale, offset, False, "nearest", 2, out=int8))
record("packed x", lambda: aclnn.ascend_anti_quant(np.zeros((4, 2), np.int32), scale, offset, 1, False,
                                                   out=np.zeros((4, 16), np.float16)))
half = x.astype(np.float16)
rows = (np.zeros((4, 16), np.int8), np.zeros(4, np.float32), np.zeros(4, np.float32))
record("groups", lambda: aclnn.dynamic_quant_v2(half, np.ones((2, 16), np.float16), np.array([2, 2], np.float16), 2,
                                               out=rows))
record("gamma over two dimensions", lambda: aclnn.rms_norm_quant(
    half.reshape(1, 4, 16), np.ones((4, 16), np.float16), np.zeros((4, 16), np.float16),
    np.ones(1, np.float16), np.zeros(1, np.int8), 1e-6, out=np.zeros((1, 4, 16), np.int8)))
row_scales = np.zeros(4, np.float32)
aclnn.sim_set_soc("Ascend950")  # aclnnGeluQuant's one chip
record("gelu dynamic with an offset", lambda: aclnn.gelu_quant(x, scale, offset, "none", "dynamic", "rint", 2,
                                                              out=(int8, row_scales)))
record("gelu round", lambda: aclnn.gelu_quant(x, scale, offset, "none", "static", "round", 2, out=(int8, row_scales)))
aclnn.sim_set_soc("Ascend910B")
record("block dstTypeMax", lambda: aclnn.dynamic_block_quant_v2(x, 0.0, "rint", 2, 1, 128, 7.0,
                                                               out=(int8, np.zeros((4, 1), np.float32))))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS)


def test_an_int8_quantisation_computes(results):
    assert results["int8"] == {"status": 0}
    # INT32 words of eight INT4 compute too (their values: tests/bindings/test_int4.py).
    assert results["packed int4"] == {"status": 0}


@pytest.mark.parametrize("name, named", [
    ("float8", "dstType 36"),
    ("hybrid", "roundMode \"hybrid\""),
    ("packed x", "x of dtype INT32"),
    ("groups", "groupIndexOptional"),
    ("gamma over two dimensions", "gamma over several dimensions"),
    ("gelu dynamic with an offset", "inputOffsetOptional in quantMode dynamic"),
    ("block dstTypeMax", "dstTypeMax 7"),
])
def test_what_the_family_does_not_model_is_refused_by_name(results, name, named):
    assert results[name].get("status") == 561003, results[name]
    assert named in results[name]["message"], results[name]


@pytest.mark.parametrize("name", ["nearest", "gelu round"])
def test_a_round_mode_the_page_does_not_allow_is_the_pages_error(results, name):
    # aclnnGeluQuant: INT8 (dstType 2) takes "rint" only; "round" is HIFLOAT8's.
    assert results[name].get("status") == 161002, results[name]
    assert "roundMode" in results[name]["message"]
