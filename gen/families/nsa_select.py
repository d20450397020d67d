"""Native Sparse Attention's selected attention and its gradient (runtime/sim/src/opapi/families/nsa_select.cpp):
aclnnNsaSelectedAttention and aclnnNsaSelectedAttentionGrad, which torch_npu.npu_nsa_select_attention and
npu_nsa_select_attention_grad reach (op_plugin_functions.yaml's gen_opapi, layout "TND")."""

from gen.families.model import Family

NSA_SELECT = Family(
    "nsa_select", "PlanNsaSelect",
    # selected_attention_grad: the statistics and attentionOut are the forward's, read; dq, dk, dv written.
    ops=("selected_attention", "selected_attention_grad"),
    output_shape="given",
    fixed_dtypes={"softmax_max": "FLOAT", "softmax_sum": "FLOAT"},
    roles=("query", "key", "value", "topk_indices", "atten_mask", "actual_q", "actual_kv", "scale", "head_num",
           "layout", "sparse_mode", "block_size", "block_count", "softmax_max", "softmax_sum", "attention", "dy",
           "dq", "dk", "dv"),
    required=("query", "key", "value", "topk_indices", "softmax_max", "softmax_sum", "attention"),
    source="query",
    doc="per query token t of sequence b and query head n (key/value head n / G): the keys and values of the "
        "blocks topkIndices[t, n / G, :] name within b's keys (block i: rows i * blockSize to (i + 1) * blockSize), "
        "attentionOut = softmax(scale * q K_sel^T) V_sel; softmaxMax / softmaxSum the row's max and sum of "
        "exp(S - max), replicated 8 times; the gradient from those statistics, dK and dV added to the rows the "
        "blocks gathered; TND only, in float with double accumulation")
