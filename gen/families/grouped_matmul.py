"""Grouped matrix products (runtime/sim/src/opapi/families/grouped_matmul.cpp): aclnnGroupedMatmulV4
and V5, which torch_npu.npu_grouped_matmul reaches (MoE experts, one product per group of rows), and
aclnnGroupedMatmulAdd, which npu_grouped_matmul_add(_) reaches (a weight gradient accumulated per group of K)."""

from gen.families.model import Family

GROUPED_MATMUL = Family(
    "grouped_matmul", "PlanGroupedMatmul",
    ops=("grouped_matmul", "grouped_matmul_add"),
    # The outputs' shapes follow group_list's values and split_item: out= is required.
    output_shape="given",
    # scale and per_token_scale: the INT8 quantised form's; antiquant_scale and antiquant_offset: the
    # antiquantised (INT8 weight) form's; offset and activation_* ... dyn_quant_scale_out: the offset and
    # activation forms, refused by name when given (a non-empty list).
    roles=("x", "weight", "bias", "scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale",
           "group_list", "activation_input", "activation_quant_scale", "activation_quant_offset", "split_item",
           "group_type", "group_list_type", "act_type", "out", "activation_feature_out", "dyn_quant_scale_out",
           "transpose_x", "transpose_weight"),
    required=("x", "weight", "out"),
    source="x",
    doc="grouped_matmul: y_i = x_i @ weight_i + bias_i for g groups, in float (INT8 x and weight: (x_i @ weight_i "
        "+ bias_i) * scale_i [* per_token_scale_i], the product exact, out BFLOAT16 or FLOAT16 as the scale's dtype "
        "says, INT32 without scale; an INT8 weight beside FLOAT16/BFLOAT16 x: x_i @ ((weight_i + antiquant_offset_i) * "
        "antiquant_scale_i) + bias_i per column): groups of x's rows (group_type 0: "
        "group_list's cumulative ends or counts, or one x per group), of its columns (2: the K axis), or one x per "
        "group (-1); the results one tensor per group (split_item 0/1) or one tensor (2/3). grouped_matmul_add: out[i] += "
        "x[rows of group i]^T @ weight[rows of group i] in float, x [K, M] (transpose_x), weight [K, N], out [g, M, N], "
        "group_list the groups' cumulative ends along K")
