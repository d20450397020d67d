"""Mixture-of-experts gating (runtime/sim/src/opapi/families/moe.cpp): aclnnMoeGatingTopK, which
torch_npu.npu_moe_gating_top_k reaches (op-plugin's MoeGatingTopKKernelNpuOpApi.cpp), and
aclnnMoeGatingTopKSoftmax and its V2, which npu_moe_gating_top_k_softmax and its _v2 reach."""

from gen.families.model import Family

MOE = Family(
    "moe", "PlanMoe",
    ops=("gating_top_k", "gating_top_k_softmax"),
    output_shape="given",
    roles=("x", "bias", "k", "k_group", "group_count", "group_select_mode", "renorm", "norm_type", "out_flag",
           "scaling", "eps", "y", "expert_idx", "norm_out", "finished", "softmax_flag", "row_idx", "softmax_out"),
    required=("x", "y", "expert_idx"),
    source="x",
    fixed_dtypes={"expert_idx": "INT32", "norm_out": "FLOAT", "row_idx": "INT32", "softmax_out": "FLOAT"},
    doc="gating_top_k: per row of x [rows, E], normOut = sigmoid(x); the E experts in group_count groups, the "
        "k_group groups of the largest max (group_select_mode 0) or top-2 sum (1) kept; the k largest scores of "
        "those (expert_idx, ties to the lower index), y = score / (sum + eps) * scaling; in float. "
        "gating_top_k_softmax: per row of x [..., E], renorm 0: the k largest of softmax(x) (y, expert_idx: ties to "
        "the lower index), softmax_out = softmax(x) when softmax_flag; renorm 1: the k largest of x, y their "
        "softmax; expert_idx = E in the rows finished marks; row_idx[n, j] = j * rows + n; in float")
