"""SwiGLU fused with int8 quantisation (runtime/sim/src/opapi/families/swiglu_quant.cpp): aclnnSwiGluQuantV2, which
torch_npu.npu_swiglu_quant reaches (op-plugin's SwigluquantKernelNpuOpApi.cpp), and its MoE-only V1
aclnnSwiGluQuant; with a dequantisation first, aclnnDequantSwigluQuant, which torch_npu.npu_dequant_swiglu_quant
reaches where the library has no V2 (op-plugin's DequantSwigluQuantOpApi.cpp)."""

from gen.families.model import Family, Op

SWIGLU_QUANT = Family(
    "swiglu_quant", "PlanSwigluQuant",
    ops=(Op("swiglu_quant", dtypes={"out": "INT8"}), Op("dequant_swiglu_quant", dtypes={"out": "INT8"}),
         Op("grouped_matmul_swiglu_quant", dtypes={"out": "INT8"})),
    output_shape="given",
    # smooth and offsets: the page's smooth_scales and offsets, one row (or one value) per group;
    # group_index: the groups' cumulative row ends (group_list_type 0) or counts (1), device data;
    # activate_left: which half of x the Swish takes; quant_mode: "dynamic" or "static"; weight_scale,
    # activation_scale and bias: dequant_swiglu_quant's dequantisation of an INT32 x (per column, per row);
    # weight: grouped_matmul_swiglu_quant's INT8 experts [E, K, N], whose product with x's rows is that INT32 x.
    roles=("x", "smooth", "offsets", "group_index", "activate_left", "quant_mode", "group_list_type", "dst_type",
           "out", "scale_out", "weight_scale", "activation_scale", "bias", "weight"),
    required=("x", "out", "scale_out"),
    source="x",
    fixed_dtypes={"scale_out": "FLOAT"},
    doc="act = Swish(a) * b over x's rows [a | b] (a the left half with activate_left, else the right); the rows of "
        "group g (by group_index's ends or counts; every row one group without it) v = act * smooth[g] (a row of "
        "N or one value; 1 without smooth); dynamic: scale_out = max|v| / 127 and out = round(v / scale_out), "
        "static: out = round(v + offsets[g]), half to even, saturated to INT8; rows past the last group left "
        "unwritten, as scale_out in static mode; dequant_swiglu_quant: x = x * weight_scale[g] * activation_scale[row] "
        "first (an INT32 x), group_index counts, dynamic mode without quant scales; grouped_matmul_swiglu_quant: x's rows of "
        "group g (group_index's cumulative ends) times weight[g] exactly, * activation_scale[row] * weight_scale[g], "
        "then the same SwiGLU (left half activated) and dynamic quantisation; in float")
