"""Megatron-style token permutation (runtime/sim/src/opapi/families/moe_token.cpp): aclnnMoeTokenPermute,
aclnnMoeTokenUnpermute, their routing-map forms and their Grad APIs, which torch_npu's npu_moe_token_permute,
npu_moe_token_unpermute and their _with_routing_map forms reach."""

from gen.families.model import Family, Op

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
