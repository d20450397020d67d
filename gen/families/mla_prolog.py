"""DeepSeek's Multi-Head Latent Attention prolog (runtime/sim/src/opapi/families/mla_prolog.cpp): aclnnMlaProlog,
aclnnMlaPrologV2WeightNz and aclnnMlaPrologV3WeightNz, which torch_npu.npu_mla_prolog_v2 and npu_mla_prolog_v3 reach
(op-plugin's MlaPrologV2KernelNpuOpApi.cpp, MlaPrologV3KernelNpuOpApi.cpp), in the pages' non-quantised scenario; the
quantised ones are refused by name."""

from gen.families.model import Family, Op

MLA_PROLOG = Family(
    "mla_prolog", "PlanMlaProlog",
    ops=(Op("mla_prolog"),),
    output_shape="given",
    # The pages' tensors: x [T, He] or [B, S, He]; weight_dq [He, Hcq], weight_uq_qr [Hcq, N * (D + Dr)] and
    # weight_dkv_kr [He, Hckv + Dr] (FRACTAL_NZ or ND); weight_uk [N, D, Hckv]; sin and cos [T, Dr]; cache_index
    # [T] (device data); kv_cache [BlockNum, BlockSize, 1, Hckv] and kr_cache [.., Dr], written in place; cache_mode
    # "PA_BSND" or "PA_NZ". V3's: qc_qr_scale and kc_scale (the formula's alpha_q, alpha_kv), and the reserved
    # inputs, modes and outputs it must be given as their defaults (null, 0, tile_size 128). The quantised
    # scenarios' scales have no role: the pages' dtype combinations take them null with BFLOAT16 weights, and the
    # family refuses the INT8 tensors of the others.
    roles=("x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "gamma_cq", "gamma_ckv", "sin", "cos",
           "cache_index", "kv_cache", "kr_cache", "epsilon_cq", "epsilon_ckv", "cache_mode", "query", "query_rope",
           "dequant_scale_q_nope", "actual_seq_len", "k_nope_clip_alpha", "weight_quant_mode", "kv_quant_mode",
           "query_quant_mode", "ckvkr_repo_mode", "quant_scale_repo_mode", "tile_size", "qc_qr_scale", "kc_scale",
           "query_norm", "dequant_scale_q_norm"),
    required=("x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "gamma_cq", "gamma_ckv", "sin", "cos",
              "kv_cache", "kr_cache", "query", "query_rope"),
    source="x",
    doc="cQ = RmsNorm(x @ weight_dq) * gamma_cq * qc_qr_scale; [qC | qR'] per head = cQ @ weight_uq_qr; query = "
        "qC @ weight_uk[n] per head; query_rope = ROPE(qR'); [cKV | kR'] = x @ weight_dkv_kr; kv_cache[cache_index[t]] "
        "= RmsNorm(cKV) * gamma_ckv * kc_scale, kr_cache[cache_index[t]] = ROPE(kR'); ROPE the InterleaveRope rotation "
        "(pairs de-interleaved into halves, then x * cos + rotate_half(x) * sin); each product and norm rounded to x's "
        "dtype, in float")
