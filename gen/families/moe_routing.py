"""Mixture-of-experts token routing (runtime/sim/src/opapi/families/moe_routing.cpp): aclnnMoeInitRoutingV3,
which torch_npu.npu_moe_init_routing_v2 reaches (op-plugin's MoeInitRoutingV2KernelNpuOpApi.cpp), its V1
aclnnMoeInitRouting (npu_moe_init_routing, MoeInitRoutingKernelNpuOpApi.cpp) and the V1 pipeline's
aclnnMoeComputeExpertTokens (npu_moe_compute_expert_tokens, op_plugin_functions.yaml's gen_opapi), and
aclnnMoeFinalizeRouting and its V2, which torch_npu.npu_moe_finalize_routing reaches (MoeFinalizeRoutingV2
KernelNpuOpApi.cpp: V2 when the library has it, V1 when it has neither V2 nor V4)."""

from gen.families.model import Family, Op

MOE_ROUTING = Family(
    "moe_routing", "PlanMoeRouting",
    ops=("init_routing", Op("finalize_routing", dtype_source="expanded_x"), Op("init_routing_v1", exact=True)),
    output_shape="given",
    roles=("x", "expert_idx", "scale", "offset", "active_num", "expert_capacity", "expert_num", "drop_pad_mode",
           "tokens_num_type", "tokens_num_flag", "quant_mode", "active_range", "row_idx_type", "expanded_x",
           "expanded_row_idx", "expert_tokens", "expanded_scale", "x1", "x2", "bias", "scales", "out", "row_idx",
           "expanded_expert_idx"),
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
        "first min(N, active_num) * K")

# The V1 pipeline's count of rows per expert: its own family, as its one output is INT32 where init_routing's
# counts are INT64, and it binds none of the routing's tensors.
MOE_EXPERT_TOKENS = Family(
    "moe_expert_tokens", "PlanMoeExpertTokens",
    ops=(Op("compute_expert_tokens", exact=True),),
    output_shape="given",
    roles=("sorted_experts", "expert_num", "out"),
    required=("sorted_experts", "out"),
    source="sorted_experts",
    fixed_dtypes={"out": "INT32"},
    doc="compute_expert_tokens: out[i] = the number of sorted_experts' elements <= i for i < expert_num (the end "
        "of expert i's rows, one past its last: its page's binary search), sorted_experts non-decreasing in [0, "
        "expert_num)")

# Megatron-style token permutation (torch_npu's npu_moe_token_permute/unpermute and their backward): a token's
# topK copies grouped by expert and back. The rows travel as `permuted` (the expert-ordered rows) and `tokens`
# (a row per token), sorted_indices mapping the (token, slot) pairs to permuted rows.
MOE_TOKEN = Family(
    "moe_token", "PlanMoeToken",
    ops=(Op("permute", dtype_source="tokens", exact=True), Op("permute_grad", dtype_source="permuted"),
         Op("unpermute", dtype_source="permuted"), Op("unpermute_grad", dtype_source="tokens"),
         Op("permute_map", dtype_source="tokens", exact=True), Op("unpermute_map", dtype_source="permuted"),
         Op("permute_map_grad", dtype_source="permuted"), Op("unpermute_map_grad", dtype_source="tokens")),
    output_shape="given",
    roles=("tokens", "indices", "num_out", "padded", "permuted", "sorted_indices", "top_k", "probs", "restore_shape",
           "permuted_grad", "probs_grad", "routing_map", "permuted_probs", "out_index", "token_id", "tokens_num",
           "experts_num"),
    required=(),
    source="tokens",
    fixed_dtypes={"sorted_indices": "INT32", "out_index": "INT32", "token_id": "INT32"},
    role_dtype_sources={"permuted_probs": ("probs",)},
    doc="pairs q < N*K of (token q // K, slot q % K), sorted_indices[q] the permuted row of pair q. permute: "
        "sorted_indices the rank of q in a stable sort of indices by expert, permuted[sorted_indices[q]] = "
        "tokens[q // K] for the first num_out rows (0: all; < 0: N*K + num_out). permute_grad: tokens[t] = sum "
        "over k of permuted[sorted_indices[t*K + k]]. unpermute: tokens[t] = sum over k of permuted[sorted_indices[t*K "
        "+ k]] * probs[t, k] (K = 1 and no weight without probs). unpermute_grad: permuted_grad[sorted_indices[q]] = "
        "tokens[q // K] * probs[q // K, q % K], rows no index reaches 0; probs_grad[t, k] = tokens[t] . "
        "permuted[sorted_indices[t*K + k]]; in float. permute_map: the pairs a routing_map [T, E] with K ones a row "
        "(K = num_out // T) marks, expert-major: permuted[p] = tokens[token of p], permuted_probs[p] = probs[token, "
        "expert], sorted_indices the stable argsort of the pairs' tokens. unpermute_map: tokens[i // K] += "
        "permuted[sorted_indices[i]] * permuted_probs[sorted_indices[i]] (probs.T masked by routing_map.T; a row of "
        "the map at most K ones, -1 an empty slot), token_id and out_index sorted_indices' sort. permute_map_grad "
        "and unpermute_map_grad: the adjoints of permute_map and unpermute_map (the grads' pages say where their "
        "READMEs differ): tokens[i // K] += permuted[sorted_indices[i]], probs_grad.T masked_scatter by "
        "routing_map.T of permuted_probs; permuted_grad[out_index[i]] = tokens[i // K] * permuted_probs[out_index[i]] "
        "(out_index and token_id both the forward's sorted_indices, as torch_npu passes them), probs_grad at the "
        "map's cells in expert order their rows' dot product with permuted")

# The expert-parallel re-layout after an AlltoAll: tokens that arrive rank by rank, each rank's expert by
# expert, rearranged expert by expert, each expert's rank by rank.
MOE_RE_ROUTING = Family(
    "moe_re_routing", "PlanMoeReRouting",
    ops=(Op("re_routing", exact=True),),
    output_shape="given",
    roles=("tokens", "counts", "scales", "counts_type", "idx_type", "permuted", "permuted_scales", "token_idx",
           "expert_counts"),
    required=("tokens", "counts", "permuted", "permuted_scales", "token_idx", "expert_counts"),
    source="tokens",
    fixed_dtypes={"permuted_scales": "FLOAT", "token_idx": "INT32"},
    role_dtype_sources={"expert_counts": ("counts",)},
    doc="re_routing: counts [N, E] tokens per (rank, expert), the blocks of tokens [A, H] in rank-major order "
        "moved to expert-major order (permuted, and scales alike; 0 without scales), token_idx each moved row's "
        "source row (gather), expert_counts the count per expert (count mode 1)")
