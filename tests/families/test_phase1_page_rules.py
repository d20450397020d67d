"""Rules the pages state in prose under a condition, checked by phase 1 of the package of op_docs/
through the C ABI (tests/support/phase1_probe.py): each probe's expectation is the page's sentence,
cited beside it, and a probe that does not meet the condition shows the rule holds only under it."""

from __future__ import annotations

import pytest

from gen import abi
from tests.support import phase1_probe
from tests.support.op_docs_process import built
from tests.support.phase1_probe import tensor

OK, INVALID = abi.status_code("ACLNN_SUCCESS"), abi.status_code("ACLNN_ERR_PARAM_INVALID")

pytestmark = pytest.mark.skipif(not built(), reason="the package of op_docs/ is not built: run `make package`")


def dynamic_quant(last: int, y_shape: list[int], y_dtype: str) -> list:
    """aclnnDynamicQuant's arguments over an x of [2, last]."""
    return [tensor([2, last], "FLOAT16"), None, tensor(y_shape, y_dtype), tensor([2])]


def test_a_divisibility_holds_under_the_outputs_dtype_it_names():
    # aclnnDynamicQuant_en.md:246: "When the data type of yOut is INT32, the last dimension of x must be
    # divisible by 8".
    (int32, message), (int8, _), (int32_of_16, _) = phase1_probe.statuses([
        ("aclnnDynamicQuant", dynamic_quant(12, [2, 1], "INT32")),
        ("aclnnDynamicQuant", dynamic_quant(12, [2, 12], "INT8")),
        ("aclnnDynamicQuant", dynamic_quant(16, [2, 2], "INT32"))])
    assert int32 == INVALID and "x: dimension -1 (12) is not a multiple of 8 (aclnnDynamicQuant_en.md:246)" in message
    assert (int8, int32_of_16) == (OK, OK)
