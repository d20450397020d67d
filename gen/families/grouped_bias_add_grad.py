"""Sums of a gradient's groups of rows (runtime/sim/src/opapi/families/grouped_bias_add_grad.cpp):
aclnnGroupedBiasAddGrad and its V2, the backward of a bias added per group of rows."""

from gen.families.model import Family

GROUPED_BIAS_ADD_GRAD = Family(
    "grouped_bias_add_grad", "PlanGroupedBiasAddGrad",
    ops=("grouped_bias_add_grad",),
    output_shape="given",
    roles=("grad_y", "group_idx", "group_idx_type", "out"),
    required=("grad_y", "out"),
    source="grad_y",
    doc="grouped_bias_add_grad: out [G, H] = the sums over gradY [G, C, H]'s dimension 1, or over the groups "
        "of gradY [rows, H]'s rows group_idx [G] ends (group_idx_type 0) or counts (1), in float")
