"""The weight_quant_matmul family (runtime/sim/src/opapi/families/weight_quant_matmul.cpp): its row of
gen.families."""

from gen.families.model import Family

# A matrix product with an INT8 weight dequantised first (runtime/sim/src/opapi/families/weight_quant_matmul.cpp):
# aclnnWeightQuantBatchMatmulV2/V3, torch_npu.npu_weight_quant_batchmatmul.
WEIGHT_QUANT_MATMUL = Family(
    "weight_quant_matmul", "PlanWeightQuantMatmul",
    ops=("weight_quant_matmul",),
    output_shape="given",
    # group, reduce_op, x3: mc2's aclnnWeightQuantMatmulAllReduce: the all-reduce over the communicator
    # group names, one rank's the identity (runtime/sim/src/opapi/families/mc2.cpp), then x3 added.
    roles=("x", "weight", "scale", "offset", "quant_scale", "quant_offset", "bias", "group_size", "inner_precise",
           "out", "group", "reduce_op", "x3"),
    required=("x", "weight", "scale", "out"),
    source="x",
    doc="y = x @ ((weight + offset) * scale) + bias for a 2-d x [m, k] and an INT8 weight [k, n], the scale and "
        "offset one value, one per column n, or one per group of group_size rows of k; in float, the products "
        "summed in double")
