"""The quant family (runtime/sim/src/opapi/families/quant.cpp): its row of gen.families."""

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
