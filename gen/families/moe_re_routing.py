"""The expert-parallel re-layout after an AlltoAll (runtime/sim/src/opapi/families/moe_re_routing.cpp):
aclnnMoeReRouting, which torch_npu.npu_moe_re_routing reaches."""

from gen.families.model import Family, Op

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
