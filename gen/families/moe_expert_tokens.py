"""The V1 routing pipeline's count of rows per expert (runtime/sim/src/opapi/families/moe_expert_tokens.cpp):
aclnnMoeComputeExpertTokens, which torch_npu.npu_moe_compute_expert_tokens reaches (op_plugin_functions.yaml's
gen_opapi), after moe_routing.py's init_routing_v1."""

from gen.families.model import Family, Op

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
