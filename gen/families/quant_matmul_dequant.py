"""Quantise, multiply and dequantise in one call (runtime/sim/src/opapi/families/quant_matmul_dequant.cpp):
aclnnQuantMatmulDequant, which torch_npu.npu_quant_matmul_dequant reaches (op_plugin_functions.yaml's gen_opapi,
transposeWeight true)."""

from gen.families.model import Family

QUANT_MATMUL_DEQUANT = Family(
    "quant_matmul_dequant", "PlanQuantMatmulDequant",
    ops=("quant_matmul_dequant",),
    output_shape="given",
    roles=("x", "weight", "weight_scale", "bias", "x_scale", "x_offset", "smooth", "mode", "transpose", "out"),
    required=("x", "weight", "weight_scale", "out"),
    source="x",
    doc="x times smooth (when given) quantised to INT8 per row (pertoken) or whole (pertensor): by x_scale, or "
        "without it per row by max|x| / 127, round half to even; out = (x_q @ weight^T) * weight_scale[n] * "
        "x_scale, or with INT64 weight_scale words (x_scale already folded in) * the float of their low 32 bits; "
        "exact INT32 products, the epilogue in float")
