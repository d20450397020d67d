"""Sampling filters of logits (runtime/sim/src/opapi/families/top_k_top_p.cpp): aclnnApplyTopKTopP,
which torch_npu.npu_top_k_top_p reaches through op-plugin."""

from gen.families.model import Family

TOP_K_TOP_P = Family(
    "top_k_top_p", "PlanTopKTopP",
    ops=("apply_top_k_top_p",),
    roles=("logits", "p", "k", "out"),
    required=("logits", "out"),
    source="logits",
    doc="apply_top_k_top_p: each row of logits [B, V] with the values outside its top k (k given) and outside "
        "the smallest set of largest values whose softmax sums above p (p given) set to -inf, in float")
