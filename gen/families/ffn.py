"""A MoE layer's feed-forward block (runtime/sim/src/opapi/families/ffn.cpp): aclnnFFNV2, which torch_npu.npu_ffn
reaches (op-plugin's FFNKernelNpuOpApi.cpp; a derived page from the FFN README, its corpus page a stub)."""

from gen.families.model import Family, Op

FFN = Family(
    "ffn", "PlanFfn",
    # y's dtype is the golden's: x's in the non-quantised scenario, FLOAT16 or BFLOAT16 beside an INT8 x.
    ops=(Op("ffn", result_dtype=True),),
    # y is x's shape with weight2's columns last: op-plugin shapes it, the caller passes it.
    output_shape="given",
    # scale ... antiquant_offset2: the quantised and antiquantised scenarios', declined by name when given.
    roles=("x", "weight1", "weight2", "expert_tokens", "bias1", "bias2", "scale", "offset", "deq_scale1",
           "deq_scale2", "antiquant_scale1", "antiquant_scale2", "antiquant_offset1", "antiquant_offset2",
           "activation", "inner_precise", "tokens_index_flag", "y"),
    required=("x", "weight1", "weight2", "activation", "y"),
    source="x",
    doc="ffn: y = activation(x @ W1 + b1) @ W2 + b2 over x's rows [M, K1] (its leading dimensions flattened), in "
        "float32 (innerPrecise 0's float32 computation), rounded once to y's dtype; with expert_tokens, x's rows "
        "taken in order by expert e (its counts, or its cumulative ends with tokens_index_flag) against weight1[e], "
        "bias1[e], weight2[e], bias2[e]; activation gelu (aclnnGelu's tanh form), fastgelu (x / (1 + exp(-1.702 x))), "
        "relu or silu; the gated geglu/swiglu/reglu and the (anti)quantised scenarios declined")
