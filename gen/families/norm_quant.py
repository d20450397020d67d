"""The norm_quant family (runtime/sim/src/opapi/families/norm_quant.cpp): its row of gen.families."""

from gen.families.model import Family

# An rms norm over x's last dimension quantised to INT8 (runtime/sim/src/opapi/families/norm_quant.cpp):
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
