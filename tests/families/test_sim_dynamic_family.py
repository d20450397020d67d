"""The out= contract of the outputs whose extent the data decides (masked_select, nonzero(V2), the
uniques): CANN asks an output to hold the result, not to be the largest result (the pages'
examples, which their authors ran, pass aclnnNonzeroV2's [2, 7] for 7 nonzeros). An out= of the
result's own shape computes and is returned as given; a larger one holds the result in its first
elements and the call returns their view; one too small fails at the synchronisation (the
device's kernel would write past its end), never with a partial result.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

CALLS = r'''
x = np.array([[0, 1], [2, 3], [4, 5], [6, 7]], np.float32)  # 7 nonzeros, as aclnnNonzeroV2's example
out = {}

def record(name, call):
    try:
        result = call()
        result = result if isinstance(result, tuple) else (result,)
        out[name] = {"values": [(r.numpy() if isinstance(r, aclnn.Tensor) else np.asarray(r)).tolist()
                                for r in result],
                     "shapes": [list(r.shape) for r in result]}
        out[name]["given"] = [r is g for r, g in zip(result, given)]
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

given = (np.zeros((2, 7), np.int64),)
record("own shape", lambda: aclnn.nonzero_v2(x, out=given[0]))
given = (np.full((2, 8), -1, np.int64),)
record("larger", lambda: aclnn.nonzero_v2(x, out=given[0]))
given = (np.full((2, 6), -1, np.int64),)
record("too small", lambda: aclnn.nonzero_v2(x, out=given[0]))
given = (aclnn.to_device(np.zeros((2, 8), np.int64)),)
record("device", lambda: aclnn.nonzero_v2(aclnn.to_device(x), out=given[0]))
given = (np.zeros(3, np.float32),)
record("masked too small", lambda: aclnn.masked_select(x, x > 3, out=given[0]))
print(json.dumps(out))
'''

POSITIONS = [[0, 1, 1, 2, 2, 3, 3], [1, 0, 1, 0, 1, 0, 1]]


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS)


def test_an_out_of_the_results_own_shape_computes_and_is_returned_as_given(results):
    assert results["own shape"]["values"] == [POSITIONS]
    assert results["own shape"]["given"] == [True]


def test_a_larger_out_returns_the_view_of_the_result(results):
    assert results["larger"]["shapes"] == [[2, 7]]
    assert results["larger"]["values"] == [POSITIONS]


def test_a_device_out_takes_the_results_shape(results):
    # As op-plugin resizes the Tensor to the view shape the kernel set.
    assert results["device"]["shapes"] == [[2, 7]]
    assert results["device"]["values"] == [POSITIONS]


@pytest.mark.parametrize("name", ["too small", "masked too small"])
def test_an_out_too_small_for_the_result_faults_instead_of_a_partial_result(results, name):
    assert results[name].get("status") == 507015, results[name]
    assert "holds" in results[name]["message"] and "the result has" in results[name]["message"]
