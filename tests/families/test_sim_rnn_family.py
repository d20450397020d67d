"""What the generated suites' one valid call per API (one layer, one direction) leaves out of the
rnn family: stacked, bidirectional, batch-first LSTMs and GRUs with and without biases, forward
against aten's lstm and gru and backward (from the forward's own saved lists) against autograd; and
the values the engine does not model, refused by name. On the simulator, in a process of its own
(op_docs_process.check)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_stacked_bidirectional_networks_equal_aten_and_autograd():
    check(r'''
T, B, I, H = 4, 3, 5, 6
def network(gates, layers, directions, bias):
    params = []
    for layer in range(layers):
        for _ in range(directions):
            params += [rng.standard_normal((gates * H, I if layer == 0 else directions * H)),
                       rng.standard_normal((gates * H, H))]
            params += [rng.standard_normal(gates * H) for _ in range(2 if bias else 0)]
    return [p.astype(np.float32) for p in params]
def close(got, want, what):
    assert np.allclose(host(got), want.detach().numpy(), atol=1e-4), (what, np.abs(host(got) - want.detach().numpy()).max())
for lstm in (True, False):
    for layers, bidirectional, bias, batch_first in ((2, True, True, True), (2, False, False, False), (1, True, False, True)):
        d = 2 if bidirectional else 1
        params = network(4 if lstm else 3, layers, d, bias)
        x = rng.standard_normal((B, T, I) if batch_first else (T, B, I)).astype(np.float32)
        states = [rng.standard_normal((layers * d, B, H)).astype(np.float32) for _ in range(2 if lstm else 1)]
        leaves = [torch.from_numpy(a).requires_grad_() for a in [x] + states + params]
        tx, ts, tp = leaves[0], leaves[1:1 + len(states)], leaves[1 + len(states):]
        y_shape, unit = (x.shape[0], x.shape[1], d * H), [(T, B, H)] * (layers * d)
        outs = lambda n: [[np.zeros(s, np.float32) for s in unit] for _ in range(n)]
        if lstm:
            want = torch.lstm(tx, ts, tp, bias, layers, 0.0, True, bidirectional, batch_first)
            got = aclnn.lstm(x, params, states, None, bias, layers, 0.0, True, bidirectional, batch_first,
                             out=(np.zeros(y_shape, np.float32), np.zeros_like(states[0]), np.zeros_like(states[1]),
                                  *outs(7)))
            saved = [[host(m) for m in lst] for lst in got[3:]]
        else:
            want = torch.gru(tx, ts[0], tp, bias, layers, 0.0, True, bidirectional, batch_first)
            got = aclnn.gru(x, params, states[0], None, bias, layers, 0.0, True, bidirectional, batch_first,
                            out=(np.zeros(y_shape, np.float32), np.zeros_like(states[0]), *outs(5)))
            saved = [[host(m) for m in lst] for lst in got[2:]]
        case = (lstm, layers, bidirectional, bias, batch_first)
        for k, w in enumerate(want):
            close(got[k], w, (case, "forward", k))
        grads = [torch.randn(w.shape) for w in want]
        autograd = torch.autograd.grad(sum((w * g).sum() for w, g in zip(want, grads)), leaves)
        dparams = [np.zeros_like(p) for p in params]
        if lstm:
            back = aclnn.lstm_backward(x, states, params, *(g.numpy() for g in grads), *saved, None, bias, layers, 0.0,
                                       True, bidirectional, batch_first, [True] * 4,
                                       out=(np.zeros_like(x), np.zeros_like(states[0]), np.zeros_like(states[0]), dparams))
        else:
            back = aclnn.gru_backward(x, params, states, *(g.numpy() for g in grads), *saved, None, bias, layers,
                                      bidirectional, batch_first,
                                      out=(np.zeros_like(x), np.zeros_like(states[0]), dparams))
        for k, (g, w) in enumerate(zip(list(back[:-1]) + list(back[-1]), autograd)):
            close(g, w, (case, "backward", k))

x = np.zeros((3, 2, I), np.float32)
params = network(4, 1, 1, True)
out = (np.zeros((3, 2, 6), np.float32), np.zeros((1, 2, 6), np.float32), np.zeros((1, 2, 6), np.float32),
       *([[np.zeros((3, 2, 6), np.float32)]] * 7))
# Variable-length sequences and dropout between layers are not modelled: named, never computed.
refused(lambda: aclnn.lstm(x, params, None, np.array([3, 3, 3]), True, 1, 0.0, True, False, False, out=out),
        561003, ["batchSizes"])
refused(lambda: aclnn.lstm(x, params[:3], None, None, True, 1, 0.0, True, False, False, out=out),
        161002, ["params", "3 tensors"])
''')
