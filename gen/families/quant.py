"""The quant, norm_quant and weight_quant_matmul families (runtime/sim/src/opapi/families/quant.cpp):
their rows of gen.families."""

from gen.families.model import Family, Op

# Quantisation (runtime/sim/src/opapi/families/quant.cpp): int8 quantisation by a scale and an
# offset per tensor or per channel (aclnnAscendQuant/V3, aclnnQuantize: torch_npu.npu_quantize,
# torch.quantize_per_tensor/per_channel), its inverse (aclnnAscendAntiQuant: npu_anti_quant),
# per-row dynamic quantisation (aclnnDynamicQuant/V2: npu_dynamic_quant), fake quantisation
# with its mask (aclnnFakeQuantPer{Tensor,Channel}AffineCachemask: torch.fake_quantize_*), and GELU
# quantised either way (aclnnGeluQuant: npu_gelu_quant), and dynamic quantisation by blocks
# (aclnnDynamicBlockQuant/V2: npu_dynamic_block_quant), and by groups of rows (aclnnGroupQuant:
# npu_group_quant, group_quant.cpp), and quantisation fused with a KV cache's scatter
# (aclnnInplaceQuantScatter/V2: npu_quant_scatter, quant_scatter.cpp).
QUANT = Family(
    "quant", "PlanQuant",
    ops=(Op("ascend_quant", dtypes={"out": "INT8"}), Op("anti_quant", dtypes={"out": "FLOAT16"}),
         Op("quantize", dtypes={"out": "INT8"}), Op("dynamic_quant", dtypes={"out": "INT8"}), "fake_quant",
         Op("gelu_quant", dtypes={"out": "INT8"}), Op("block_quant", dtypes={"out": "INT8"}),
         Op("group_quant", dtypes={"out": "INT8"}),
         # out is selfRef, written in place: updates' dimensions but the batch and axis's are its.
         Op("quant_scatter", dtypes={"out": "INT8"}, shape_arguments=("axis",))),
    output_shape="given",
    # enabled: fake quantisation's switch (below 1: out = x, mask all true); smooth: dynamic
    # quantisation's per-column factors; scale_out/offset_out: its per-row results.
    roles=("x", "scale", "offset", "sqrt_mode", "round_mode", "dst_type", "axis", "smooth", "group_index",
           "quant_min", "quant_max", "enabled", "out", "scale_out", "offset_out", "mask",
           # dynamic quantisation's isSymmetrical, quantMode (pertoken, pertensor, perchannel), dstTypeMax
           "symmetric", "quant_mode", "dst_max",
           # gelu_quant's GELU form ("none": erf, "tanh"); block_quant's least scale and block sizes
           "approximate", "min_scale", "row_block", "col_block",
           # quant_scatter's batches' start positions along axis, the axis it quantises along (the
           # last) and its reduction (1, update)
           "indices", "quant_axis", "reduction"),
    required=("x", "out"),
    source="x",
    fixed_dtypes={"scale_out": "FLOAT", "offset_out": "FLOAT", "mask": "BOOL"},
    doc="ascend_quant: round(x * scale (* scale with sqrt_mode) + offset) by round_mode, saturated to INT8; "
        "quantize: round(x / scale + offset) half to even, saturated to out's INT8/UINT8/INT32; anti_quant: "
        "(x + offset) * scale (* scale) to FLOAT16/BFLOAT16; scale and offset one value or one per element along "
        "`axis`; dynamic_quant: per row of the last dimension, scale = max|x * smooth| / 127 (or the asymmetric "
        "(max - min) / 255 with an offset) and y the rounded quotient; fake_quant: aten's fake_quantize "
        "cachemask (per tensor, or per channel along axis), its mask; gelu_quant: GELU, then ascend_quant's "
        "static form (quant_mode static) or dynamic_quant's per row (dynamic, scale the smoothing factor); "
        "block_quant: per block of row_block x col_block of the last two dimensions, scale_out = min(max|x| / 127, "
        "1 / min_scale) and y = round(x / scale_out); group_quant: row r of x [S, H] in the group g whose "
        "cumulative count group_index[g] first exceeds r, y = round(x * scale[g] + offset); quant_scatter: "
        "quantize's q = round(x / scale + offset) along the last dimension written to out's batch b from "
        "position indices[b] along axis; in float")

# An rms norm over x's last dimension quantised to INT8 (runtime/sim/src/opapi/families/quant.cpp):
# aclnnRmsNormQuant (torch_npu.npu_rms_norm_quant), aclnnRmsNormQuantV3 and aclnnAddRmsNormQuant/V2
# with the sum x1 + x2 first (npu_add_rms_norm_quant); dynamically, per row, aclnnRmsNormDynamicQuant
# and aclnnAddRmsNormDynamicQuant/V2 (npu_add_rms_norm_dynamic_quant); a layer norm quantised either
# way, aclnnAddLayerNormQuant/V2.
NORM_QUANT = Family(
    "norm_quant", "PlanNormQuant",
    ops=("rms_norm_quant", "add_rms_norm_quant", "rms_norm_dynamic_quant", "add_rms_norm_dynamic_quant",
         "add_layer_norm_quant"),
    output_shape="given",
    # smooth/smooth2: the dynamic ops' per-column factors, scale_out/scale_out2 their per-row scales;
    # rstd (written when output_rstd), output_mask: which of out and out2 the dynamic ops write;
    # add_layer_norm_quant's bias (added to x1 + x2), quant_mode ("static": scale and offset,
    # "dynamic": scale and scale2 as smoothing factors) and additional_output (sum_out written).
    roles=("x", "x2", "gamma", "beta", "scale", "offset", "scale2", "offset2", "epsilon", "div_mode", "axis", "out",
           "out2", "sum_out", "norm_out", "smooth", "smooth2", "scale_out", "scale_out2", "rstd", "output_rstd",
           "output_mask", "dst_type", "bias", "quant_mode", "additional_output"),
    required=("x", "gamma", "out"),
    source="x",
    fixed_dtypes={"out": "INT8", "out2": "INT8", "scale_out": "FLOAT", "scale_out2": "FLOAT", "rstd": "FLOAT"},
    doc="y = x * rstd * gamma + beta over x's last dimension (x = x1 + x2 rounded to x1's dtype for "
        "the add_ ops, the sum in sum_out, x * rstd * gamma in norm_out), then round(y * scale + offset) "
        "(y / scale with div_mode) half to even, saturated to INT8, once per scale given; the dynamic ops "
        "per row v = y * smooth, scale_out = max|v| / 127, out = round(v / scale_out); add_layer_norm_quant: "
        "y = (x - mean) * rstd * gamma + beta of x = x1 + x2 + bias, then either; in float, the statistics in double")

# A matrix product with an INT8 weight dequantised first (runtime/sim/src/opapi/families/quant.cpp):
# aclnnWeightQuantBatchMatmulV2/V3, torch_npu.npu_weight_quant_batchmatmul.
WEIGHT_QUANT_MATMUL = Family(
    "weight_quant_matmul", "PlanWeightQuantMatmul",
    ops=("weight_quant_matmul",),
    output_shape="given",
    roles=("x", "weight", "scale", "offset", "quant_scale", "quant_offset", "bias", "group_size", "inner_precise",
           "out"),
    required=("x", "weight", "scale", "out"),
    source="x",
    doc="y = x @ ((weight + offset) * scale) + bias for a 2-d x [m, k] and an INT8 weight [k, n], the scale and "
        "offset one value, one per column n, or one per group of group_size rows of k; in float, the products "
        "summed in double")

# A rotation, then per-row dynamic quantisation (runtime/sim/src/opapi/families/rotate_quant.cpp):
# aclnnRotateQuant, torch_npu.npu_rotate_quant, on Atlas A2/A3 (INT8 out); its MX outputs
# (Ascend950) and INT32-packed INT4 are declined by name.
ROTATE_QUANT = Family(
    "rotate_quant", "PlanRotateQuant",
    ops=(Op("rotate_quant", dtypes={"out": "INT8"}),),
    output_shape="given",
    # rotation: the [K, K] matrix each K consecutive elements of a row are multiplied by; alpha, the
    # clamp's factor (the A2/A3 page takes none); scale_alg, dst_max and trans: the MX forms' (0, 0.0
    # and false on A2/A3; trans false on every chip, the semantics' check).
    roles=("x", "rotation", "alpha", "axis", "round_mode", "scale_alg", "dst_max", "trans", "out", "scale_out"),
    required=("x", "rotation", "out", "scale_out"),
    source="x",
    fixed_dtypes={"scale_out": "FLOAT"},
    doc="Y = (x.reshape(-1, K) @ rotation).reshape(M, N) for x [M, N] and rotation [K, K], then per row "
        "scale_out = max|Y| / 127 and out = round(Y / scale_out) by round_mode (rint: half to even, floor), "
        "saturated to INT8; in float")
