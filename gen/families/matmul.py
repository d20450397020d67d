"""The matmul family (runtime/sim/src/opapi/families/matmul.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape, Variation

MATMUL = Family(
    "matmul", "PlanMatmul",
    ops=("mm", Op("bmm", variations=(Variation("batch", ("a", "b")),)),
         Op("matmul", variations=(Variation("batch", ("a", "b")),)),
         Op("addmm", variations=(Variation("bias", ("bias",)),)),
         Op("baddbmm", variations=(Variation("bias", ("bias",)),)), "mv", "dot",
         Op("addmv", variations=(Variation("bias", ("bias",)),)),
         Op("addbmm", shapes={"out": "batch_sum"}, variations=(Variation("bias", ("bias",)),)),
         Op("ger", shapes={"out": "outer"}),
         Op("gemm", shapes={"out": "given"}, variations=(Variation("bias", ("bias",)),)),
         Op("transpose_bmm", shapes={"out": "given"}), Op("matmul_all_reduce", shapes={"gather_out": "same"}), "fused_matmul"),
    # fused_matmul: matmul (+ bias) then the fused_op string's step: "" none, "add"/"mul" x3,
    # "gelu_tanh", "gelu_erf", "relu", "16cast32" (a FLOAT out).
    # bias: the added tensor of addmm & co. (selfRef for the in-place ones, which is also out);
    # cube_math_type: the NPU's Cube precision mode (the pages' cubeMathType, 0 to 4);
    # trans_a, trans_b: gemm's operands transposed first when nonzero;
    # transpose_bmm: bmm(a.permute(perm_a), b.permute(perm_b)).permute(perm_out), unscaled and
    # unsplit (scale, batch_split_factor); matmul_all_reduce: mc2's matmul (plus bias when given) then
    # an all-reduce over the communicator `group` names, the identity for the one-rank
    # communicators of the simulated libhccl (any other group refused; reduce_op "sum"), plus x3 when
    # given (aclnnMatmulAllReduceV2's addend after the all-reduce); gather_out: aclnnAllGatherMatmul's
    # all-gather of a, a itself on one rank (an empty one not asked for).
    roles=("bias", "a", "b", "beta", "alpha", "out", "cube_math_type", "trans_a", "trans_b", "perm_a", "perm_b",
           "perm_out", "scale", "batch_split_factor", "group", "reduce_op", "x3", "fused_op", "gather_out"),
    required=("a", "b", "out"),
    options=("beta", "alpha"),
    output_shape="matmul",
    source="a",
    second="b",
    doc="on the BLAS (OpenBLAS): float32 GEMM for FLOAT, FLOAT16 and BFLOAT16, double GEMM for DOUBLE "
        "and the integers (exact up to 2^53)")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
MATMUL_RULE = OutputShape("matmul", "source @ second as torch.matmul shapes it", product=True,
                          phrase="that of {source} @ {second}", header="matmul_shape.h")
OUTER_RULE = OutputShape("outer", "[source's, second's]", product=True, phrase="[len({source}), len({second})]",
                         header="matmul_shape.h")
BATCH_SUM_RULE = OutputShape("batch_sum", "the product of two batches summed over the batch: [M, N]", product=True,
                             phrase="the last two of {source} @ {second}", header="matmul_shape.h")
