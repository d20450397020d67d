"""What the generated suites' one valid call per API leaves out of the lstm_cell, ctc and
vocab_parallel families: the values their pages refuse or they do not model are refused by name
(phase 1) or fail by name (phase 2: values read on the device), never computed wrong."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_unmodelled_values_are_refused_by_name():
    check(r'''
f = lambda *shape: rng.standard_normal(shape).astype(np.float32)
cell = lambda bias_i, bias_h: aclnn.thnn_fused_lstm_cell(f(2, 8), f(2, 8), f(2, 2), bias_i, bias_h,
                                                         out=(f(2, 2), f(2, 2), f(2, 8)))
# The page: hiddenBiasOptional is given exactly when inputBiasOptional is.
refused(lambda: cell(f(8), None), 161002, ["hiddenBiasOptional"])
refused(lambda: cell(f(7), f(7)), 161002, ["inputBiasOptional", "[4 * hidden_size]"])
log_probs = f(5, 2, 4)
def ctc(targets, lengths, blank=0):
    return aclnn.ctc_loss(log_probs, targets, [5, 5], lengths, blank, False, out=(f(2), f(2, 5, 5)))
refused(lambda: ctc(np.ones((2, 2), np.int64), [2, 2], blank=4), 161002, ["blank"])
refused(lambda: ctc(np.ones((2, 1), np.int64), [2, 2]), 161002, ["targets", "max(targetLengths)"])
# Labels are read on the device: one outside [0, C) fails there, named.
refused(lambda: ctc(np.full((2, 2), 7, np.int64), [2, 2]), 507015, ["targets", "outside [0, 4)"])
rows = f(8)
def loss(smoothing, given=None):
    return aclnn.fused_cross_entropy_loss_with_max_sum(rows, np.abs(rows) + 1, rows, smoothing, given, None, None,
                                                       out=(f(8), f(8, 4)))
# The page's "当前只支持0" (line 123), which phase 1's rules check before the family's own.
refused(lambda: loss(0.1), 161002, ["labelSmoothing", "outside [0, 0]", ".md:123"])
refused(lambda: loss(0.0, f(8, 4)), 161002, ["inputOptional", "NULL"])
''')
