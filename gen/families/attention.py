"""Scaled dot-product attention as ops-transformer's FlashAttention APIs compute it, and its gradient
(runtime/sim/src/opapi/families/attention.cpp): torch_npu.npu_fusion_attention and its backward.
softmax(mask(scale * (Q K^T + pse))) V per batch and query head, the key/value head of a group
of query heads (GQA) shared; layouts BSH, SBH, BSND, BNSD, or TND with cumulative sequence
lengths (actual_q, actual_kv: the VarLen/Unpadding APIs); sparse modes 0 to 4; the dropout mask
(drop_mask, bit i kept for element i of [B, N, Sq, Skv]) scaled by 1 / keep_prob; softmax_max and
softmax_sum the row statistics, replicated 8 times; the gradient from those statistics."""

from gen.families.model import Family

ATTENTION = Family(
    "attention", "PlanAttention",
    # transform_qkv: aten's _transform_bias_rescale_qkv (self [B, T, 3 * H] plus bias split into q, k, v
    # [B, N, T, H / N], q divided by sqrt(H / N)); masked_softmax_bias: softmax(scale * self + atten_mask +
    # bias) over windows; prompt_ / incre_flash_attention: the inference APIs' forward (kv_heads, the
    # paged cache's block_table); fused_infer_attention: the prompt one for a query of several positions,
    # the incremental one for one.
    ops=("flash_attention", "flash_attention_grad", "transform_qkv", "masked_softmax_bias", "prompt_flash_attention",
         "incre_flash_attention", "fused_infer_attention"),
    output_shape="given",
    roles=("query", "key", "value", "dy", "pse", "drop_mask", "atten_mask", "actual_q", "actual_kv", "scale",
           "keep_prob", "pre_tokens", "next_tokens", "head_num", "layout", "sparse_mode", "pse_type",
           "softmax_layout", "softmax_max", "softmax_sum", "attention", "dq", "dk", "dv", "dpse", "self", "bias",
           "out", "k_out", "v_out", "kv_heads", "block_table"),
    required=(),
    source="query",
    doc="FlashAttention's softmax(mask(scale * (Q K^T + pse))) V by layout (BSH, SBH, BSND, BNSD, TND), with GQA, "
        "sparse modes 0 to 4, pse and a dropout mask, and its gradient from the saved softmax statistics; in float "
        "with double accumulation")
