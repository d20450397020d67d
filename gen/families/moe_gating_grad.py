"""The backward of MoE gating's group-limited sigmoid routing (runtime/sim/src/opapi/families/moe_gating_grad.cpp):
aclnnMoeGatingTopKBackward, which torch_npu.npu_moe_gating_top_k_backward reaches (op_plugin_functions.yaml's
gen_opapi) and torch_npu's autograd of npu_moe_gating_top_k calls."""

from gen.families.model import Family, Op

MOE_GATING_GRAD = Family(
    "moe_gating_grad", "PlanMoeGatingGrad",
    ops=(Op("gating_top_k_grad", dtype_source="grad_y"),),
    output_shape="given",
    roles=("x_norm", "grad_y", "expert_idx", "renorm", "norm_type", "scaling", "eps", "grad_x"),
    required=("x_norm", "grad_y", "expert_idx", "grad_x"),
    source="x_norm",
    doc="per row, with y_k = x_norm[expert_idx_k] and S = sum_k y_k: g_k = scaling * (grad_y_k / (S + eps) - sum_j "
        "grad_y_j y_j / (S + eps)^2), grad_x[n] = x_norm[n] (1 - x_norm[n]) * the sum of g_k over the k with "
        "expert_idx_k = n (0 for the experts not chosen): the adjoint of sigmoid, top-k and the normalisation "
        "y / (S + eps) * scaling; in float")
