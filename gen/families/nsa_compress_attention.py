"""Native Sparse Attention's compressed attention with its block selection (runtime/sim/src/opapi/families/
nsa_compress_attention.cpp): aclnnNsaCompressAttentionInfer, which torch_npu.npu_nsa_compress_attention_infer
reaches (op_plugin_functions.yaml's gen_opapi, sparse_mode 0), and the training form aclnnNsaCompressAttention,
npu_nsa_compress_attention's (layout "TND", sparse_mode 1, the statistics [T, N, 8] in FLOAT)."""

from gen.families.model import Family

NSA_COMPRESS_ATTENTION = Family(
    "nsa_compress_attention", "PlanNsaCompressAttention",
    ops=("compress_attention_infer", "compress_attention"),
    output_shape="given",
    fixed_dtypes={"topk_indices": "INT32", "softmax_max": "FLOAT", "softmax_sum": "FLOAT"},
    roles=("query", "key", "value", "atten_mask", "block_table", "actual_q", "actual_cmp_kv", "actual_sel_kv",
           "topk_mask", "head_num", "kv_head_num", "select_block", "select_count", "compress_block", "compress_stride",
           "scale", "layout", "page_block", "sparse_mode", "softmax_max", "softmax_sum", "attention", "topk_indices"),
    required=("query", "key", "value", "attention", "topk_indices"),
    source="query",
    doc="compress_attention_infer: per batch b (one query token: TND [B, N, D] or BSND [B, 1, N, D]) and query head "
        "n (key/value head n / G), its C = actual_cmp_kv[b] compressed keys read through block_table's pages of the "
        "cache [blocks, page, N_kv * D], P = softmax(scale * q K^T), attention = P V; compress_attention (TND, "
        "actual_q / actual_cmp_kv / actual_sel_kv cumulative ends): per query token, attention = softmax(scale * q "
        "K^T with atten_mask's true positions removed) V over its sequence's compressed keys, softmax_max / "
        "softmax_sum that softmax's max and sum 8 times, and P = softmax(q K^T), unscaled and unmasked as the page "
        "writes it. Both: per key/value head the importance of select block j < ceil(C / (l' / d)), the sum over "
        "m < l' / d and i < l / d of P[l' / d * j - m - i] (an index below 0 adds nothing) summed over the group's "
        "heads, and topk_indices the select_count blocks of highest importance, highest first (a tie among them or "
        "at the last one refused); in float with double accumulation")
