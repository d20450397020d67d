"""DeepSeek's Multi-Head Latent Attention prolog (runtime/sim/src/opapi/families/mla_prolog.cpp): aclnnMlaProlog
and aclnnMlaPrologV2WeightNz, which torch_npu.npu_mla_prolog_v2 reaches (op-plugin's MlaPrologV2KernelNpuOpApi.cpp),
in the pages' non-quantised scenario; the quantised ones are refused by name."""

from gen.families.model import Family, Op

MLA_PROLOG = Family(
    "mla_prolog", "PlanMlaProlog",
    ops=(Op("mla_prolog"),),
    output_shape="given",
    # The pages' tensors: x [T, He] or [B, S, He]; weight_dq [He, Hcq], weight_uq_qr [Hcq, N * (D + Dr)] and
    # weight_dkv_kr [He, Hckv + Dr] (FRACTAL_NZ or ND); weight_uk [N, D, Hckv]; sin and cos [T, Dr]; cache_index
    # [T] (device data); kv_cache [BlockNum, BlockSize, 1, Hckv] and kr_cache [.., Dr], written in place; the
    # dequant_*/quant_*/smooth_* scales the quantised scenarios take; cache_mode "PA_BSND" or "PA_NZ".
    roles=("x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "gamma_cq", "gamma_ckv", "sin", "cos",
           "cache_index", "kv_cache", "kr_cache", "dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_uq_qr",
           "dequant_scale_w_dkv_kr", "quant_scale_ckv", "quant_scale_ckr", "smooth_scales_cq", "epsilon_cq",
           "epsilon_ckv", "cache_mode", "query", "query_rope", "dequant_scale_q_nope"),
    required=("x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "gamma_cq", "gamma_ckv", "sin", "cos",
              "cache_index", "kv_cache", "kr_cache", "query", "query_rope"),
    source="x",
    doc="cQ = RmsNorm(x @ weight_dq) * gamma_cq; [qC | qR'] per head = cQ @ weight_uq_qr; query = qC @ weight_uk[n] per "
        "head; query_rope = ROPE(qR'); [cKV | kR'] = x @ weight_dkv_kr; kv_cache[cache_index[t]] = RmsNorm(cKV) * "
        "gamma_ckv, kr_cache[cache_index[t]] = ROPE(kR'); ROPE the InterleaveRope rotation (pairs de-interleaved into "
        "halves, then x * cos + rotate_half(x) * sin); each product and norm rounded to x's dtype, in float")
