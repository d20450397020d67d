"""The local pieces of a cross entropy over a vocabulary split across devices (Megatron's
vocab-parallel cross entropy; runtime/sim/src/opapi/families/vocab_parallel.cpp):
aclnnFusedLinearOnlineMaxSum, aclnnFusedCrossEntropyLossWithMaxSum and
aclnnFusedLinearCrossEntropyLossGrad (torch_npu's npu_fused_linear_online_max_sum, ...), and
aclnnCrossEntropySumExpAndIndexLogit."""

from gen.families.model import Family, Op

VOCAB_PARALLEL = Family(
    "vocab_parallel", "PlanVocabParallel",
    ops=(Op("linear_online_max_sum", dtype_source="input"), "cross_entropy_with_max_sum",
         Op("linear_cross_entropy_grad", dtype_source="input"),
         Op("sum_exp_and_index_logit", dtypes={"target_mask": "INT32"})),
    output_shape="given",
    # target_mask: packed 8 rows a byte (least significant bit first) but for
    # sum_exp_and_index_logit's one INT32 per row; logits_max: the global max that op reads.
    roles=("logits_max", "sum_exp_logits", "predicted_logits", "label_smoothing", "input", "weight",
           "vocab_parallel_logits", "loss", "softmax", "target", "vocab_start_index", "vocab_end_index", "exp_logits",
           "target_offset", "target_mask", "masked_target", "grad", "input_grad", "weight_grad"),
    required=(),
    source="vocab_parallel_logits",
    fixed_dtypes={"logits_max": "FLOAT", "sum_exp_logits": "FLOAT", "predicted_logits": "FLOAT", "loss": "FLOAT",
                  "softmax": "FLOAT", "exp_logits": "FLOAT", "target_offset": "INT32", "target_mask": "UINT8"},
    role_dtype_sources={"masked_target": ("target",)},
    doc="per row of input @ weight^T (or of the logits given): the max, the sum of exp(x - max), the target's "
        "mask, local offset and logit; the loss log(sum) - predicted and the softmax; the gradients of input and "
        "weight through the softmax minus the one-hot target; in float, sums in double, products on the BLAS")
