"""One step of an LSTM cell after its two products (runtime/sim/src/opapi/families/lstm_cell.cpp):
aclnnThnnFusedLstmCell and its backward, which torch.lstm_cell and nn.LSTMCell reach through
op-plugin's _thnn_fused_lstm_cell (gate blocks i, f, g, o: aten's)."""

from gen.families.model import Family

LSTM_CELL = Family(
    "lstm_cell", "PlanLstmCell",
    ops=("lstm_cell", "lstm_cell_backward"),
    output_shape="given",
    # storage: the four gates' activations the forward keeps for the backward.
    roles=("input_gates", "hidden_gates", "cx", "input_bias", "hidden_bias", "hy", "cy", "storage", "grad_hy",
           "grad_cy", "has_bias", "grad_gates", "grad_cx", "grad_bias"),
    required=("cx", "storage"),
    source="cx",
    doc="lstm_cell: gates = input_gates + hidden_gates (+ both biases) in blocks i, f, g, o; cy = sigmoid(f) * cx + "
        "sigmoid(i) * tanh(g), hy = sigmoid(o) * tanh(cy), storage the four activations; lstm_cell_backward: the "
        "gates' pre-activation gradients from grad_hy and grad_cy (absent: 0), cx's, and the bias's (their sum over "
        "the batch); in float")
