"""Mixture-of-experts token routing (runtime/sim/src/opapi/families/moe_routing.cpp): aclnnMoeInitRoutingV3,
which torch_npu.npu_moe_init_routing_v2 reaches (op-plugin's MoeInitRoutingV2KernelNpuOpApi.cpp), its V1
aclnnMoeInitRouting (npu_moe_init_routing, MoeInitRoutingKernelNpuOpApi.cpp), and aclnnMoeFinalizeRouting and
its V2, which torch_npu.npu_moe_finalize_routing reaches (MoeFinalizeRoutingV2KernelNpuOpApi.cpp: V2 when the
library has it, V1 when it has neither V2 nor V4), and aclnnMoeInitRoutingQuantV2, which torch_npu.npu_moe_init_routing_quant
reaches (MoeInitRoutingQuantKernelNpuOpApi.cpp; a derived page from its README). The V1 pipeline's count of rows per expert is
moe_expert_tokens.py's."""

from gen.families.model import Family, Op

MOE_ROUTING = Family(
    "moe_routing", "PlanMoeRouting",
    ops=("init_routing", Op("finalize_routing", dtype_source="expanded_x"), Op("init_routing_v1", exact=True),
         Op("init_routing_quant", dtypes={"expanded_x": "INT8", "expert_tokens": "INT32"})),
    output_shape="given",
    roles=("x", "expert_idx", "scale", "offset", "active_num", "expert_capacity", "expert_num", "drop_pad_mode",
           "tokens_num_type", "tokens_num_flag", "quant_mode", "active_range", "row_idx_type", "expanded_x",
           "expanded_row_idx", "expert_tokens", "expanded_scale", "x1", "x2", "bias", "scales", "out", "row_idx",
           "expanded_expert_idx", "tokens_mode"),
    required=("expanded_x", "expanded_row_idx"),
    source="x",
    fixed_dtypes={"expanded_row_idx": "INT32", "expert_tokens": "INT64", "expanded_scale": "FLOAT",
                  "expanded_expert_idx": "INT32"},
    doc="init_routing: the N*K (row, slot) pairs of expert_idx [N, K] sorted by expert, stably (then by row * K "
        "+ slot), those of experts in active_range [start, end) kept; expanded_x[i] the row of x the i-th kept "
        "pair reads (quant_mode 1: dynamically quantised to INT8, scale by expert as smooth, its scale in "
        "expanded_scale), expanded_row_idx its gather (0) or scatter (1) index, expert_tokens the count per "
        "expert (1) or the (expert, count) pairs of the non-empty ones (2). finalize_routing: out[i] = x1[i] + "
        "x2[i] + sum over k < K of scales[i, k] * (expanded_x[expanded_row_idx[i + k * N]] + bias[expert_idx[i, "
        "k]]) (drop_pad_mode 0), absent x1, x2, bias adding nothing; in float. init_routing_v1: the N*K elements of "
        "expert_idx sorted by expert, stably, carrying row_idx's (a permutation of [0, N*K)): expanded_expert_idx "
        "the sorted experts, expanded_row_idx[row_idx of the i-th] = i, expanded_x[i] = x[its row_idx % N] for the "
        "first min(N, active_num) * K. init_routing_quant: init_routing's order, expanded_row_idx[j] = i for every "
        "pair, expanded_x[i] the INT8 row j // K of x for the first min(N*K, active_num) pairs (all for 0): static "
        "round(x * scale + offset), scale and offset one value each, or dynamic with scale [H] as smooth and its "
        "scale in expanded_scale; expert_tokens the histogram over [0, expert_num) (tokens_mode 2) or its cumsum "
        "(1); Drop/Pad declined")
