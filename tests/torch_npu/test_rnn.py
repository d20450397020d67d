"""Recurrent layers through torch_npu on the simulator: torch.nn.LSTM (one layer with biases, the
shape op-plugin sends to aclnnLSTM; others fall back to acl_op) forward and backward (its autograd
backward aclnnLstmBackward, whose dy, dh and dc op-plugin leaves NULL for a loss that does not reach
them), and torch.nn.GRU (any layers, directions and biases: aclnnGRU, whose autograd backward
aclnnGRUBackward takes op-plugin's one hx tensor for the page's aclTensorList) forward and backward,
reach the rnn family; outputs, final states and every gradient equal CPU PyTorch's for FLOAT and
FLOAT16 modules. An LSTM of several layers, both directions or no biases, and a BFLOAT16 LSTM or GRU,
take op-plugin's acl_op path instead: one aclop DynamicRNN / DynamicGRUV2 (and DynamicRNNGrad /
DynamicGRUV2Grad) per layer and direction, the reverse direction on sequences torch_npu flips, which
the aclop bridge runs on the same family (runtime/sim/src/op_compiler/rnn.cpp)."""

import pytest

# Defines compare(): the module built twice with the same parameters (the npu one in `dtype`, the
# CPU one from those rounded values in float), run forward and backward, every result compared.
COMPARE = """
def compare(name, make, shape, state_shapes, dtype=torch.float32, tol=1e-4, backward=True):
    torch.manual_seed(0)
    cpu = make()
    npu = make().npu().to(dtype)
    npu.load_state_dict(cpu.state_dict())
    cpu.load_state_dict({k: v.to(dtype).float() for k, v in cpu.state_dict().items()})
    x = torch.randn(*shape).to(dtype).float()
    states = [torch.randn(*s).to(dtype).float() for s in state_shapes]
    xc, xn = x.clone().requires_grad_(), x.to(dtype).npu().requires_grad_()
    sc = [s.clone().requires_grad_() for s in states]
    sn = [s.to(dtype).npu().requires_grad_() for s in states]
    def run(module, inp, st):
        if not st:
            return module(inp)
        return module(inp, tuple(st) if len(st) == 2 else st[0])
    yc, hc = run(cpu, xc, sc)
    yn, hn = run(npu, xn, sn)
    hc, hn = (list(hc), list(hn)) if isinstance(hc, tuple) else ([hc], [hn])
    pairs = [("output", yn, yc)] + [("state %d" % k, a, b) for k, (a, b) in enumerate(zip(hn, hc))]
    check(name, dtype, tol, pairs)
    if not backward:
        return
    gy = torch.randn(yc.shape)
    gh = [torch.randn(h.shape) for h in hc]
    sum((a * b).sum() for a, b in zip([yc] + hc, [gy] + gh)).backward()
    sum((a * b.to(dtype).npu()).sum() for a, b in zip([yn] + hn, [gy] + gh)).backward()
    pairs = [("input grad", xn.grad, xc.grad)]
    pairs += [("state grad %d" % k, a.grad, b.grad) for k, (a, b) in enumerate(zip(sn, sc))]
    pairs += [("grad " + n, p.grad, q.grad) for (n, p), (_, q) in zip(npu.named_parameters(), cpu.named_parameters())]
    check(name, dtype, tol, pairs)

def check(name, dtype, tol, pairs):
    for what, got, want in pairs:
        got, want = got.detach().cpu().float(), want.detach()
        assert torch.allclose(got, want, rtol=tol, atol=tol), (name, dtype, what, (got - want).abs().max())
"""


def test_lstm_forward_and_backward(run_npu):
    run_npu(COMPARE + """
for dtype, tol in ((torch.float32, 1e-4), (torch.float16, 2e-2)):
    compare("LSTM", lambda: torch.nn.LSTM(4, 5), (3, 2, 4), [], dtype, tol)
    compare("LSTM with hx", lambda: torch.nn.LSTM(4, 5), (3, 2, 4), [(1, 2, 5), (1, 2, 5)], dtype, tol)
    compare("LSTM batch_first", lambda: torch.nn.LSTM(4, 5, batch_first=True), (2, 3, 4), [(1, 2, 5), (1, 2, 5)],
            dtype, tol)
# op-plugin's acl_op path (DynamicRNN, DynamicRNNGrad): several layers, both directions; no biases in bfloat16.
compare("LSTM 2 layers, bidirectional", lambda: torch.nn.LSTM(4, 5, 2, bidirectional=True), (3, 2, 4),
        [(4, 2, 5), (4, 2, 5)])
compare("LSTM without biases, batch_first", lambda: torch.nn.LSTM(4, 5, bias=False, batch_first=True), (2, 3, 4), [],
        torch.bfloat16, 6e-2)
# A loss of the output alone (or of h_n alone): autograd leaves the other gradients undefined and
# op-plugin passes aclnnLstmBackward NULL for them (dh and dc, or dy), read as zeros.
for pick in (lambda out: out[0], lambda out: out[1][0]):
    torch.manual_seed(0)
    cpu = torch.nn.LSTM(4, 5)
    npu = torch.nn.LSTM(4, 5).npu()
    npu.load_state_dict(cpu.state_dict())
    x = torch.randn(3, 2, 4)
    pick(cpu(x)).pow(2).sum().backward()
    pick(npu(x.npu())).pow(2).sum().backward()
    check("LSTM, one output's loss", torch.float32, 1e-4,
          [("grad " + n, p.grad, q.grad) for (n, p), (_, q) in zip(npu.named_parameters(), cpu.named_parameters())])
""")


def test_gru_forward_and_backward(run_npu):
    run_npu(COMPARE + """
for dtype, tol in ((torch.float32, 1e-4), (torch.float16, 2e-2)):
    compare("GRU", lambda: torch.nn.GRU(4, 5), (3, 2, 4), [], dtype, tol)
    compare("GRU 2 layers, bidirectional, batch_first", lambda: torch.nn.GRU(4, 5, 2, bidirectional=True,
            batch_first=True), (2, 3, 4), [(4, 2, 5)], dtype, tol)
    compare("GRU without biases", lambda: torch.nn.GRU(4, 5, bias=False), (3, 2, 4), [(1, 2, 5)], dtype, tol)
# bfloat16: op-plugin's acl_op path (DynamicGRUV2, DynamicGRUV2Grad).
compare("GRU bfloat16, 2 layers, bidirectional", lambda: torch.nn.GRU(4, 5, 2, bidirectional=True), (3, 2, 4),
        [(4, 2, 5)], torch.bfloat16, 6e-2)
# A loss of the output alone or of h_n alone: op-plugin passes aclnnGRUBackward zeros for the
# gradient autograd leaves undefined.
for batch_first in (False, True):
    for pick in (lambda out: out[0], lambda out: out[1]):
        torch.manual_seed(0)
        cpu = torch.nn.GRU(4, 5, batch_first=batch_first)
        npu = torch.nn.GRU(4, 5, batch_first=batch_first).npu()
        npu.load_state_dict(cpu.state_dict())
        x = torch.randn(3, 2, 4)
        xc, xn = x.clone().requires_grad_(), x.npu().requires_grad_()
        pick(cpu(xc)).pow(2).sum().backward()
        pick(npu(xn)).pow(2).sum().backward()
        check("GRU, one output's loss", torch.float32, 1e-4, [("input grad", xn.grad, xc.grad)] +
              [("grad " + n, p.grad, q.grad) for (n, p), (_, q) in zip(npu.named_parameters(), cpu.named_parameters())])
""")


@pytest.mark.parametrize("soc", ["Ascend910", "Ascend310P"])
def test_rnn_on_the_aclop_chips(run_npu, soc):
    # There op-plugin sends each layer as aclop DynamicRNN / DynamicGRUV2 and their gradients (an
    # LSTMCell as DynamicRNNV2), which run as the rnn family's APIs whatever chips those APIs' pages
    # list: aclnnLstmBackward's, aclnnGRU's and aclnnGRUBackward's leave both chips out, and refused
    # nn.GRU and the LSTMs' backward there.
    run_npu(COMPARE + """
compare("LSTM", lambda: torch.nn.LSTM(4, 5), (3, 2, 4), [(1, 2, 5), (1, 2, 5)])
compare("LSTM 2 layers, bidirectional", lambda: torch.nn.LSTM(4, 5, 2, bidirectional=True), (3, 2, 4), [])
compare("GRU 2 layers, bidirectional, batch_first", lambda: torch.nn.GRU(4, 5, 2, bidirectional=True,
        batch_first=True), (2, 3, 4), [(4, 2, 5)])
compare("GRU float16", lambda: torch.nn.GRU(4, 5), (3, 2, 4), [(1, 2, 5)], torch.float16, 2e-2)
compare("LSTMCell", lambda: torch.nn.LSTMCell(4, 5), (3, 4), [(3, 5), (3, 5)])
""", env={"ACLNN_SIM_SOC": soc})


def test_rnn_inference(run_npu):
    # A module in eval mode calls aclnnLSTM and aclnnGRU with train false: op-plugin then passes no
    # gate lists (NULL) and, for an LSTM, hOut and cOut lists of 0-d placeholders, which the pages
    # say get no value; output and final states are computed as in training.
    run_npu(COMPARE + """
for dtype, tol in ((torch.float32, 1e-4), (torch.float16, 2e-2)):
    compare("LSTM eval", lambda: torch.nn.LSTM(4, 5).eval(), (3, 2, 4), [], dtype, tol, backward=False)
    compare("LSTM eval with hx, batch_first", lambda: torch.nn.LSTM(4, 5, batch_first=True).eval(), (2, 3, 4),
            [(1, 2, 5), (1, 2, 5)], dtype, tol, backward=False)
    compare("GRU eval, 2 layers", lambda: torch.nn.GRU(4, 5, 2).eval(), (3, 2, 4), [(2, 2, 5)], dtype, tol,
            backward=False)
# Under torch.no_grad as a serving loop runs it, one step at a time.
torch.manual_seed(0)
cpu = torch.nn.LSTM(4, 5).eval()
npu = torch.nn.LSTM(4, 5).npu().eval()
npu.load_state_dict(cpu.state_dict())
x = torch.randn(6, 2, 4)
with torch.no_grad():
    state_c = state_n = None
    for t in range(6):
        yc, state_c = cpu(x[t:t + 1], state_c)
        yn, state_n = npu(x[t:t + 1].npu(), state_n)
        check("LSTM eval step %d" % t, torch.float32, 1e-5, [("output", yn, yc), ("h", state_n[0], state_c[0]),
                                                              ("c", state_n[1], state_c[1])])
""")
