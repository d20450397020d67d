"""The mc2 operators on the simulator's one-rank communicators (runtime/sim/src/opapi/families/mc2.cpp and
the families that compute them): a group no communicator of the process has is refused by name, and so
is what one rank cannot be (an output sized for more ranks, a gatherOut that is not x1's dtype), a
reduceOp other than "sum" and a commTurn other than 0; with the communicator, the all-gather matmul
writes x1 @ x2 and gatherOut as x1.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py); the
communicator is the generated suites' (_aclnn_testing.one_rank_group)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

CALLS = r'''
sys.path.insert(0, sys.argv[1] + "/tests")
import _aclnn_testing
import ml_dtypes

rng = np.random.default_rng(0)
x1 = rng.standard_normal((6, 16)).astype(np.float16)
x2 = rng.standard_normal((16, 8)).astype(np.float16)
group = _aclnn_testing.ONE_RANK_GROUP
out = {}

def record(name, call):
    try:
        value = call()
        out[name] = {"status": 0, "value": [np.asarray(v, np.float32).tolist() for v in value]}
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

def all_gather(gather_out, output=None, group=group):
    output = np.zeros((6, 8), np.float16) if output is None else output
    return aclnn.all_gather_matmul(x1, x2, None, group, 0, 0, 1, out=(output, gather_out))

record("no communicator yet", lambda: all_gather(np.zeros((6, 16), np.float16)))
_aclnn_testing.one_rank_group()
record("another group", lambda: all_gather(np.zeros((6, 16), np.float16), group="no_such_group"))
record("all-gather", lambda: all_gather(np.zeros((6, 16), np.float16)))
record("gatherOut of another dtype", lambda: all_gather(np.zeros((6, 16), ml_dtypes.bfloat16)))
record("output of two ranks", lambda: all_gather(np.zeros((6, 16), np.float16), np.zeros((12, 8), np.float16)))
record("scatter to two ranks", lambda: (aclnn.matmul_reduce_scatter(x1, x2, None, group, "sum", 0, 1,
                                                                   out=np.zeros((3, 8), np.float16)),))
record("max", lambda: (aclnn.matmul_all_reduce(x1, x2, None, group, "max", 0, 1, out=np.zeros((6, 8), np.float16)),))
record("commTurn 1", lambda: (aclnn.matmul_all_reduce(x1, x2, None, group, "sum", 1, 1,
                                                      out=np.zeros((6, 8), np.float16)),))
out["x1"], out["x2"] = x1.astype(np.float32).tolist(), x2.astype(np.float32).tolist()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS)


def test_the_all_gather_of_one_rank_is_x1(results):
    assert results["all-gather"]["status"] == 0, results["all-gather"]
    output, gathered = (np.asarray(v, np.float32) for v in results["all-gather"]["value"])
    x1, x2 = np.asarray(results["x1"], np.float32), np.asarray(results["x2"], np.float32)
    np.testing.assert_array_equal(gathered, x1)
    np.testing.assert_allclose(output, x1 @ x2, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name, named", [
    ("no communicator yet", ["group", "\"aclsim_world\"", "names no communicator"]),
    ("another group", ["\"no_such_group\"", "names no live communicator"]),
    ("gatherOut of another dtype", ["gatherOut", "BFLOAT16", "x1"]),
    ("output of two ranks", ["output", "[12, 8]", "one rank"]),
    ("scatter to two ranks", ["output", "[3, 8]", "one rank"]),
    ("max", ["reduceOp", "\"max\""]),
    ("commTurn 1", ["commTurn is 0 only"]),
])
def test_what_one_rank_cannot_be_is_refused_by_name(results, name, named):
    assert results[name].get("status") == 161002, results[name]
    assert all(word in results[name]["message"] for word in named), results[name]
