"""Products of INT8 or FLOAT8 operands dequantised by per-column and per-row scales (or MX's FLOAT8_E8M0
scales per block of 32 along k), and the packing of float scales into the UINT64 words they read
(runtime/sim/src/opapi/families/quant_matmul.cpp): aclnnQuantMatmulV3/V4/V5 (torch_npu.npu_quant_matmul),
aclnnTransQuantParamV2/V3."""

from gen.families.model import Family, Op

QUANT_MATMUL = Family(
    "quant_matmul", "PlanQuantMatmul",
    # The first output dtype the pages list (an allocated out does not follow the INT8 operands).
    # The operands' shapes follow the transpose flags: a suite flips them only with the shapes.
    ops=(Op("quant_matmul", dtypes={"out": "FLOAT16"}, shape_arguments=("transpose_x1", "transpose_x2")),
         Op("trans_quant_param", dtypes={"out": "INT64"}), Op("dequant_bias", dtypes={"out": "FLOAT16"}),
         # aclnnTransposeQuantBatchMatMul: the page's example's BFLOAT16 out (dtype 27).
         Op("transpose_quant_batch_matmul", dtypes={"out": "BFLOAT16"})),
    output_shape="given",
    # dequant_bias: x1 is the INT32 product itself (aclnnDequantBias). dst_type: its outputDtype.
    # x1_offset, y_scale, y_offset, group_size: aclnnQuantMatmulV5's, refused when given.
    # perm_x1, perm_x2, perm_y, batch_split: aclnnTransposeQuantBatchMatMul's permutations of its 3-d operands
    # and output, and its batchSplitFactor.
    # group, reduce_op, x3: mc2's aclnnQuantMatmulAllReduce (V2): the product's all-reduce over the
    # communicator group names, one rank's the identity (runtime/sim/src/opapi/families/mc2.cpp), then x3 added.
    roles=("x1", "x2", "scale", "offset", "pertoken", "bias", "transpose_x1", "transpose_x2", "round_mode", "x1_offset",
           "y_scale", "y_offset", "group_size", "dst_type", "perm_x1", "perm_x2", "perm_y", "batch_split", "out",
           "group", "reduce_op", "x3"),
    required=("scale", "out"),
    # scale_align: a scale of n columns padded to a multiple of it (aclnnQuantMatmulV2's deqScale).
    options=("scale_align",),
    source="x1",
    doc="quant_matmul: (x1 @ x2 (+ an INT32 bias)) * scale * pertoken (+ a float bias) + offset for INT8 or FLOAT8 "
        "operands (a FLOAT8 product's FLOAT bias before packed scales), the product exact, the rest in float, scale one "
        "value or one per column (UINT64/INT64 words unpacked as trans_quant_param packs them); MX (FLOAT8_E8M0 scale "
        "and pertoken): the sum over k of each block of 32's product times pertoken[m, block] * scale[block, n], + bias; "
        "transpose_quant_batch_matmul: x1 (M, B, K) and x2 (B, K, N) or (B, N, K) as their permutations make them "
        "(B, M, K) and (B, K, N), each batch's product as quant_matmul's (K-C: FLOAT32 x1Scale (M,) and x2Scale (N,); "
        "MX: their FLOAT8_E8M0 blocks per batch), out (M, B, N); dequant_bias: the same with x1 the INT32 product; trans_quant_param: a float32 scale's top 19 bits | 1 << 46 | a 9-bit "
        "offset << 37")
