"""Recurrent networks (runtime/sim/src/opapi/families/rnn.cpp): aclnnLSTM and aclnnGRU (torch.nn.LSTM
and torch.nn.GRU, op-plugin's _lstm_npu and _gru_npu) over layers and directions, every step's gates
and states in lists (one member per layer and direction, directions first), and their backwards
(aclnnLstmBackward, aclnnGRUBackward): backpropagation through time from those saved gates. The
weights' row blocks are aten's (LSTM i, f, g, o; GRU r, z, n: op-plugin passes nn.LSTM's and nn.GRU's
parameters as they are); j (the LSTM backward page's g) is the cell candidate, hn the GRU's
W_hn h + b_hn."""

from gen.families.model import Family, Op

# The parameters' and states' shapes follow these: another value alone is no valid call.
_SHAPED_BY = ("has_bias", "num_layers", "bidirectional", "batch_first")
RNN = Family(
    "rnn", "PlanRnn",
    ops=tuple(Op(op, shape_arguments=_SHAPED_BY) for op in ("lstm", "lstm_backward", "gru", "gru_backward")),
    output_shape="given",
    roles=("input", "params", "hx", "batch_sizes", "has_bias", "num_layers", "dropout", "train", "bidirectional",
           "batch_first", "output", "hy", "cy", "i", "j", "f", "o", "h", "c", "tanh_c", "r", "z", "n", "hn", "dy",
           "dh", "dc", "output_mask", "dx", "dh_prev", "dc_prev", "dparams"),
    required=("input", "params"),
    source="input",
    doc="lstm and gru: the layers and directions of aten's lstm and gru, every step's gates and states kept per "
        "layer and direction when train; their backwards: backpropagation through time from those saved gates "
        "and states; on the BLAS in float")
