"""Sampling filters of logits (runtime/sim/src/opapi/families/top_k_top_p.cpp): aclnnApplyTopKTopP,
which torch_npu.npu_top_k_top_p reaches through op-plugin, and aclnnTopKTopPSampleV2 (or, where libopapi
lacks it, aclnnTopKTopPSample), which torch_npu.npu_top_k_top_p_sample reaches."""

from gen.families.model import Family, Op

TOP_K_TOP_P = Family(
    "top_k_top_p", "PlanTopKTopP",
    ops=("apply_top_k_top_p",
         Op("top_k_top_p_sample", shape="given", shapes={"select_logits": "same"},
            dtypes={"select_idx": "INT64", "select_logits": "FLOAT"}),
         Op("top_k_top_p_sample_v2", shape="given",
            shapes={"select_logits": "same", "logits_idx": "same", "sort_masked": "same"},
            dtypes={"select_idx": "INT64", "select_logits": "FLOAT", "logits_idx": "INT64", "sort_masked": "FLOAT"})),
    roles=("logits", "p", "k", "out", "q", "eps", "need_logits", "select_idx", "select_logits", "min_ps", "ks_max",
           "input_is_logits", "need_sample_result", "logits_idx", "sort_masked"),
    required=("logits",),
    source="logits",
    doc="apply_top_k_top_p: each row of logits [B, V] with the values outside its top k (k given) and outside "
        "the smallest set of largest values whose softmax sums above p (p given) set to -inf, in float; "
        "top_k_top_p_sample: each row's top k (1 <= k <= min(V, 1024), else all) sorted descending, then those "
        "whose softmax mass before them exceeds p (p < 1) dropped; select_idx the index of the largest kept "
        "value, or with q of the largest softmax / (q + eps), q read in the sorted order; select_logits (when "
        "need_logits) the kept logits in place, -inf elsewhere; in double. top_k_top_p_sample_v2 the same with "
        "k bounded by ks_max (rounded up to 8), k <= 0 skipping top-k, p <= 0 keeping the largest alone, then "
        "min-p (the values below min_ps times the largest dropped), probabilities as input (input_is_logits "
        "false: no softmax, 0 for a dropped value), and with need_sample_result the row's sorted probabilities "
        "(sort_masked, 0 where dropped) and their input indices (logits_idx) in place of select_idx")
