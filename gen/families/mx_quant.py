"""The MX ("microscaling") and FLOAT8 quantisers of Ascend 950 (runtime/sim/src/opapi/families/mx_quant.cpp)."""

from gen.families.model import Family, Op

# aclnnDynamicMxQuant/V2/V3 (torch_npu.npu_dynamic_mx_quant): each block of block_size elements
# along axis shares one FLOAT8_E8M0 scale, its elements divided by it and encoded in FLOAT8_E4M3FN,
# FLOAT8_E5M2, FLOAT4_E2M1 or FLOAT4_E1M2; aclnnAntiMxQuant (npu_anti_mx_quant) multiplies them back;
# aclnnQuantMax and aclnnGroupedQuantMax (npu_quant_max) cast x * scale to FLOAT8 with max|x|;
# aclnnDynamicBlockMxQuant (npu_dynamic_block_mx_quant) shares one scale per 32 x 32 block;
# aclnnRmsNormDynamicMxQuant and aclnnAddRmsNormDynamicMxQuant (npu_rms_norm_dynamic_mx_quant,
# npu_add_rms_norm_dynamic_mx_quant) quantise an rms norm's rows as aclnnDynamicMxQuant along -1;
# aclnnSwigluMxQuant (npu_swiglu_mx_quant) a SwiGLU's output along -1 or -2;
# aclnnDynamicDualLevelMxQuant (npu_dynamic_dual_level_mx_quant) quantises in two levels of blocks.
MX_QUANT = Family(
    "mx_quant", "PlanMxQuant",
    # The outputs' dtypes follow dstType, an integer: the suites' valid calls take FLOAT8_E4M3FN (36) and
    # FLOAT (0); tests/families/test_sim_mx_quant.py and tests/torch_npu/test_mx_quant.py the others.
    ops=(Op("dynamic_mx_quant", dtypes={"out": "FLOAT8_E4M3FN", "scale_out": "FLOAT8_E8M0", "out2": "FLOAT8_E4M3FN",
                                        "scale_out2": "FLOAT8_E8M0"}),
         # 32 x 32 blocks over the last two axes, the block's scale at each of its rows (scale_out) and
         # columns (scale_out2)
         Op("block_mx_quant", dtypes={"out": "FLOAT8_E4M3FN", "scale_out": "FLOAT8_E8M0", "scale_out2": "FLOAT8_E8M0"}),
         # mxscale's shape follows axis (its blocks' pairs along it)
         Op("anti_mx_quant", dtypes={"out": "FLOAT"}, shape_arguments=("axis",)),
         Op("quant_max", dtypes={"out": "FLOAT8_E4M3FN"}),
         # an rms norm over the last axis (of x = x1 + x2 for the add form, sum_out), quantised along it
         Op("rms_norm_mx_quant", dtypes={"out": "FLOAT8_E4M3FN", "scale_out": "FLOAT8_E8M0", "rstd": "FLOAT"}),
         # SwiGLU of x's halves along activate_dim (or its even and odd elements, swiglu_mode 1), quantised
         # along axis; groups of rows by group_list (counts or cumulative ends by group_mode)
         # (with out2 and scale_out2: the dual-axis form, along -1 and -2)
         Op("swiglu_mx_quant", dtypes={"out": "FLOAT8_E4M3FN", "scale_out": "FLOAT8_E8M0", "out2": "FLOAT8_E4M3FN",
                                       "scale_out2": "FLOAT8_E8M0"}),
         # the SwiGLU's backward: x's gradient from x2 (yGrad, the forward's result's shape), quantised along
         # -1 (out, scale_out) and -2 (out2, scale_out2) as the dual-axis swiglu_mx_quant
         Op("swiglu_grad_mx_quant", dtypes={"out": "FLOAT8_E4M3FN", "scale_out": "FLOAT8_E8M0", "out2": "FLOAT8_E4M3FN",
                                            "scale_out2": "FLOAT8_E8M0"}),
         # two levels along the last axis: a FLOAT scale per block of level0_block_size (level0_scale_out),
         # then the OCP MX quantisation of the rescaled values to FLOAT4_E2M1 (out, scale_out)
         Op("dual_level_mx_quant", dtypes={"out": "FLOAT4_E2M1", "scale_out": "FLOAT8_E8M0",
                                           "level0_scale_out": "FLOAT"})),
    output_shape="given",
    # scale: anti_mx_quant's mxscale input; dst_max and max_low_bound: V2's dstTypeMax, V3's maxLowBound.
    # group_list: the cumulative ends of groups of rows (quant_max's; dynamic_mx_quant's grouped form,
    # whose blocks restart at each group); amax: quant_max's max|x| per group.
    roles=("x", "scale", "axis", "round_mode", "dst_type", "block_size", "scale_alg", "dst_max", "max_low_bound",
           "group_list", "out", "scale_out", "amax",
           # the dual-axis form's second quantisation (along -2; out and scale_out are along -1)
           "out2", "scale_out2",
           # rms_norm_mx_quant's norm: x2 added to x (sum_out their sum), gamma, beta, epsilon, and rstd
           # written when output_rstd says so (x2: swiglu_grad_mx_quant's yGrad, the second input)
           "x2", "gamma", "beta", "epsilon", "output_rstd", "sum_out", "rstd",
           # swiglu_mx_quant's activation: the axis halved, which half is activated, the variant (1: even
           # and odd elements, clamped, with an alpha and a bias) and group_list's meaning (0 counts, 1 ends)
           "activate_dim", "activate_left", "swiglu_mode", "clamp_limit", "glu_alpha", "glu_bias", "group_mode",
           # dual_level_mx_quant's first level (block_size is its second's) and its smoothing factor of x
           "smooth", "level0_block_size", "level0_scale_out"),
    required=("x", "out"),  # dst_type too, but for dual_level_mx_quant (FLOAT4_E2M1 alone)
    source="x",
    doc="dynamic_mx_quant: per block of block_size elements along axis, mxscale = 2^(floor(log2(max|V|)) - emax) "
        "(scale_alg 0, the OCP MX rule) or the smallest power of two not below max|V| / Amax(dst) (scale_alg 1, FP8), "
        "out = V / mxscale rounded by round_mode (rint, floor) and saturated to dst_type; scale_out FLOAT8_E8M0 "
        "[..., ceil(blocks / 2), ..., 2], block 2j + k at [j, k] (with out2 and scale_out2: also along -2, blocks of "
        "32, and along -1 into out and scale_out); anti_mx_quant: out = x * 2^(scale - 127); "
        "block_mx_quant: one scale per 32 x 32 block of the last two axes (scale_alg 0, or 2: max / dst_max rounded up "
        "to a power of two), written at the block's rows into scale_out and at its columns into scale_out2; "
        "rms_norm_mx_quant: y = x * rstd * gamma + beta over x's last axis, rstd = 1 / sqrt(mean(x^2) + epsilon) (x = x1 + x2 "
        "rounded to x1's dtype, sum_out, for the add form), then dynamic_mx_quant's along it; "
        "swiglu_mx_quant: Swish(A) * B of x's halves along activate_dim (swiglu_mode 1: A, B the even and odd elements "
        "of the last axis, A.clamp(max=limit) * sigmoid(alpha * A) * (B.clamp(-limit, limit) + bias)), then "
        "dynamic_mx_quant's along axis; "
        "swiglu_grad_mx_quant: x's SwiGLU gradient from x2 (yGrad), grad_A = x2 * B * sigmoid(A) * (1 + A - A * sigmoid(A)) "
        "and grad_B = x2 * A * sigmoid(A) at A's and B's places, quantised along -1 and -2 as the dual-axis form; "
        "dual_level_mx_quant: x (times smooth, in x's dtype) per block of level0_block_size along the last axis "
        "divided by level0_scale_out = max|x| / 6 and rounded to x's dtype, then the OCP MX quantisation to FLOAT4_E2M1 "
        "in blocks of block_size; "
        "quant_max: out = x * scale[g] rounded half to even to FLOAT8 (an overflow refused), amax[g] = max|x_g| over "
        "the groups of rows group_list's cumulative ends make")
