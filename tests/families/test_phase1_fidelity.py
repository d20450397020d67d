"""Phase 1 against what CANN's own op_api unit tests answer (issue 24's disagreements: calls CANN
accepts that a literal reading of the pages refused, and calls CANN refuses that phase 1 let
through), one GetWorkspaceSize call each through the C ABI, with formats and NULLs the bindings
cannot pass (tests/support/phase1_probe.py). Each expectation is CANN's answer as the issue reports
it; the rule that gives it is named beside it."""

from __future__ import annotations

import functools

import pytest

from gen import abi
from tests.support import phase1_probe
from tests.support.op_docs_process import built
from tests.support.phase1_probe import ints, scalar, tensor

OK, INVALID, INNER_NULL, TILING = (abi.status_code(name) for name in (
    "ACLNN_SUCCESS", "ACLNN_ERR_PARAM_INVALID", "ACLNN_ERR_INNER_NULLPTR", "ACLNN_ERR_INNER_TILING_ERROR"))


def pool2d(shape, kernel=(2, 2), out_hw=(2, 2), divisor=0):
    """aclnnAvgPool2d's arguments over an NCHW input of `shape`."""
    out = [shape[0], shape[1], *out_hw]
    return [tensor(shape, format="NCHW"), ints(*kernel), ints(*kernel), ints(0, 0), False, True, divisor, 0,
            tensor(out, format="NCHW")]


def avg_pool3d(shape, out, kernel=3, padding=1):
    """aclnnAvgPool3d's arguments: a one-value kernel, stride 1 and padding over an input of `shape`."""
    return [tensor(shape), ints(kernel), ints(1), ints(padding), False, True, 0, tensor(out)]


def add_lora(y_rows=4):
    """aclnnAddLora's arguments (its generated suite's base call), y with `y_rows` rows against x's 4."""
    half = "FLOAT16"
    return [tensor([y_rows, 48], half), tensor([4, 16], half), tensor([2, 3, 16, 16], half), tensor([4], "INT32"),
            tensor([2, 3, 16, 16], half), 1, 0.5, 16, 16, tensor([y_rows, 48], half)]


def dequant_bias(x="INT32", bias="FLOAT"):
    """aclnnDequantBias's arguments with x's and biasOptional's dtypes."""
    return [tensor([4, 8], x), tensor([8]), tensor([4]), tensor([8], bias), 1, tensor([4, 8], "FLOAT16")]


def ctc_loss(blank):
    """aclnnCtcLoss's arguments: T=4 steps, N=1, C=3 classes, one target of 2 labels, `blank`."""
    return [tensor([4, 1, 3]), tensor([1, 2], "INT64"), ints(4), ints(2), blank, False, tensor([1]), tensor([1, 4, 5])]


def transposed_conv(output_padding):
    """aclnnConvolution's arguments: a transposed 2-d convolution, stride 2, of `output_padding`."""
    return [tensor([1, 2, 3, 3], format="NCHW"), tensor([2, 2, 3, 3], format="NCHW"), None, ints(2, 2), ints(0, 0),
            ints(1, 1), True, ints(output_padding, output_padding), 1,
            tensor([1, 2, 7 + output_padding, 7 + output_padding], format="NCHW"), 0]


# (id, API, arguments, CANN's status, the rule that gives it)
PROBES = [
    # A dtype error's status is its row's (API.dtype_status), checked after the 161002 ones.
    ("DequantBias-bias-dtype", "aclnnDequantBias", dequant_bias(bias="INT8"), TILING, "the row's 561002"),
    ("DequantBias-x-and-bias-dtypes", "aclnnDequantBias", dequant_bias(x="INT8", bias="INT8"), INVALID,
     "161002 first"),
    # Formats: an ND page takes every plain layout and the private ones (gen.conventions 2).
    ("LeakyRelu-NC1HWC0", "aclnnLeakyRelu", [tensor([2, 1, 4, 4, 16], format="NC1HWC0"), scalar(0.1),
                                             tensor([2, 1, 4, 4, 16], format="NC1HWC0")], OK, "convention 2"),
    ("LogicalOr-HWCN", "aclnnLogicalOr", [tensor([2, 3, 4, 5], "BOOL", "HWCN")] * 3, OK, "convention 2"),
    ("MinDim-NHWC", "aclnnMinDim", [tensor([2, 3, 4, 5], format="NHWC"), 1, False, tensor([2, 4, 5], format="NHWC"),
                                    tensor([2, 4, 5], "INT64", "NHWC")], OK, "convention 2"),
    # A reduction's output in either form of its reduced shape (convention 4).
    ("Amax-keepdim-false-kept-out", "aclnnAmax", [tensor([2, 3]), ints(1), False, tensor([2, 1])], OK, "convention 4"),
    ("Amax-keepdim-true-dropped-out", "aclnnAmax", [tensor([2, 3]), ints(1), True, tensor([2])], OK, "convention 4"),
    ("Mean-keepdim-false-kept-out", "aclnnMean", [tensor([2, 3]), ints(1), False, 0, tensor([2, 1])], OK,
     "convention 4"),
    ("MedianDim-keepdim-false-kept-out", "aclnnMedianDim", [tensor([2, 3]), 1, False, tensor([2, 1]),
                                                            tensor([2, 1], "INT64")], OK, "convention 4"),
    ("NanMedianDim-keepdim-true-dropped-out", "aclnnNanMedianDim", [tensor([2, 3]), 1, True, tensor([2]),
                                                                    tensor([2], "INT64")], OK, "convention 4"),
    # Empty tensors pass unless the page forbids them.
    ("ThresholdBackward-empty", "aclnnThresholdBackward", [tensor([0, 3]), tensor([0, 3]), scalar(0.5),
                                                           tensor([0, 3])], OK, "empty tensors allowed"),
    # Sampling ops in float16.
    ("Multinomial-FLOAT16", "aclnnMultinomial", [tensor([2, 4], "FLOAT16"), 2, True, 0, 0, tensor([2, 2], "INT64")],
     OK, "the page's dtypes"),
    ("Bernoulli-FLOAT16", "aclnnBernoulli", [tensor([2, 4], "FLOAT16"), scalar(0.5), 0, 0, tensor([2, 4], "FLOAT16")],
     OK, "the page's dtypes"),
    ("InplaceUniform-FLOAT16", "aclnnInplaceUniform", [tensor([2, 4], "FLOAT16"), 0.0, 1.0, 0, 0], OK,
     "the page's dtypes"),
    ("InplaceNormal-FLOAT16", "aclnnInplaceNormal", [tensor([2, 4], "FLOAT16"), 0.0, 1.0, 0, 0], OK,
     "the page's dtypes"),
    ("InplaceRandom-FLOAT16", "aclnnInplaceRandom", [tensor([2, 4], "FLOAT16"), 0, 10, 0, 0], OK, "the page's dtypes"),
    # Integer inputs cast to a floating result; bfloat16 on Ascend910B (conventions 1, 6 and 10).
    ("IsFinite-INT32", "aclnnIsFinite", [tensor([2, 3], "INT32"), tensor([2, 3], "BOOL")], OK, "convention 6"),
    ("IsNegInf-INT32", "aclnnIsNegInf", [tensor([2, 3], "INT32"), tensor([2, 3], "BOOL")], OK, "convention 6"),
    ("Rsqrt-INT32", "aclnnRsqrt", [tensor([2, 3], "INT32"), tensor([2, 3])], OK, "convention 10"),
    ("Acosh-INT32", "aclnnAcosh", [tensor([2, 3], "INT32"), tensor([2, 3])], OK, "convention 10"),
    ("Asin-BFLOAT16", "aclnnAsin", [tensor([2, 3], "BFLOAT16"), tensor([2, 3], "BFLOAT16")], OK, "convention 1"),
    ("Erf-BFLOAT16", "aclnnErf", [tensor([2, 3], "BFLOAT16"), tensor([2, 3], "BFLOAT16")], OK, "convention 1"),
    # Value ranges stated in prose.
    ("Cdist-p-negative", "aclnnCdist", [tensor([2, 3, 4]), tensor([2, 5, 4]), -1.0, 0, tensor([2, 3, 5])], INVALID,
     "p >= 0"),
    ("Histc-min-above-max", "aclnnHistc", [tensor([8]), 4, scalar(5.0), scalar(1.0), tensor([4])], INVALID,
     "min <= max"),
    ("ReflectionPad1d-wider-than-dim", "aclnnReflectionPad1d", [tensor([1, 2, 3]), ints(3, 0), tensor([1, 2, 6])],
     INVALID, "padding < dimension"),
    ("ReflectionPad2d-wider-than-dim", "aclnnReflectionPad2d", [tensor([1, 1, 3, 3]), ints(0, 0, 3, 0),
                                                                 tensor([1, 1, 6, 3])], INVALID, "padding < dimension"),
    # Pooling over no channel (aten's "nInputPlane" 0).
    ("AvgPool2d-no-channel", "aclnnAvgPool2d", pool2d([1, 0, 4, 4]), INVALID, "pooled dimensions non-empty"),
    ("MaxPool2dWithIndices-no-channel", "aclnnMaxPool2dWithIndices",
     [tensor([1, 0, 4, 4], format="NCHW"), ints(2, 2), ints(2, 2), ints(0, 0), ints(1, 1), False,
      tensor([1, 0, 2, 2], format="NCHW"), tensor([1, 0, 2, 2], "INT64", "NCHW")], INVALID,
     "pooled dimensions non-empty"),
    ("MaxPool2dWithIndices-no-batch", "aclnnMaxPool2dWithIndices",
     [tensor([0, 2, 4, 4], format="NCHW"), ints(2, 2), ints(2, 2), ints(0, 0), ints(1, 1), False,
      tensor([0, 2, 2, 2], format="NCHW"), tensor([0, 2, 2, 2], "INT64", "NCHW")], OK, "an empty batch passes"),
    ("MaxPool2dWithMask-no-channel", "aclnnMaxPool2dWithMask",
     [tensor([1, 0, 4, 4], format="NCHW"), ints(2, 2), ints(2, 2), ints(0, 0), ints(1, 1), False,
      tensor([1, 0, 2, 2], format="NCHW"), tensor([1, 0, 4, 64], "INT8", "NCHW")], INVALID,
     "pooled dimensions non-empty"),
    ("MaxPool3dWithArgmax-no-channel", "aclnnMaxPool3dWithArgmax",
     [tensor([1, 0, 4, 4, 4], format="NCDHW"), ints(2, 2, 2), ints(2, 2, 2), ints(0, 0, 0), ints(1, 1, 1), False,
      tensor([1, 0, 2, 2, 2], format="NCDHW"), tensor([1, 0, 2, 2, 2], "INT32", "NCDHW")], INVALID,
     "pooled dimensions non-empty"),
    ("AvgPool3d-no-channel", "aclnnAvgPool3d", [tensor([1, 0, 4, 4, 4]), ints(2, 2, 2), ints(2, 2, 2), ints(0, 0, 0),
                                                False, True, 0, tensor([1, 0, 2, 2, 2])], INVALID,
     "pooled dimensions non-empty"),
    ("AdaptiveAvgPool2d-no-channel", "aclnnAdaptiveAvgPool2d", [tensor([1, 0, 4, 4], format="NCHW"), ints(2, 2),
                                                                tensor([1, 0, 2, 2], format="NCHW")], INVALID,
     "pooled dimensions non-empty"),
    # No page bounds divisorOverride below; op-plugin refuses 0 alone and PyTorch divides by a negative.
    ("AvgPool2d-divisor-negative", "aclnnAvgPool2d", pool2d([1, 1, 4, 4], divisor=-3), OK, "a divisor of any sign"),
    ("AvgPool2d-kernel-over-input", "aclnnAvgPool2d", pool2d([1, 1, 2, 2], kernel=(3, 3), out_hw=(0, 0)), INVALID,
     "a window inside the input"),
    ("Im2col-out-of-another-size", "aclnnIm2col", [tensor([1, 2, 4, 4]), ints(2, 2), ints(1, 1), ints(0, 0),
                                                   ints(1, 1), tensor([1, 8, 10])], INVALID, "im2col's output size"),
    # A dimension index beyond the rank, negative.
    ("Cumsum-dim-beyond", "aclnnCumsum", [tensor([2, 3]), -3, 0, tensor([2, 3])], INVALID, "dim in [-rank, rank)"),
    ("IndexSelect-dim-beyond", "aclnnIndexSelect", [tensor([2, 3]), -3, tensor([2], "INT64"), tensor([2, 3])], INVALID,
     "dim in [-rank, rank)"),
    ("ArgMin-dim-beyond", "aclnnArgMin", [tensor([2, 3]), -3, False, tensor([2], "INT64")], INVALID,
     "dim in [-rank, rank)"),
    ("MinDim-dim-beyond", "aclnnMinDim", [tensor([2, 3]), -3, False, tensor([2]), tensor([2], "INT64")], INVALID,
     "dim in [-rank, rank)"),
    # Ranges in prose (tests/parse/test_parse_prose_ranges.py): a dimension index bounded by a letter the
    # page defines as a rank, by "X维度数量", or with the range before its word; a sign in words.
    ("MeanV2-dim-beyond", "aclnnMeanV2", [tensor([2, 3]), ints(-3), False, False, tensor([2])], INVALID,
     "[-r, r-1], r the input's rank"),
    ("LogSoftmaxV2-dim-beyond", "aclnnLogSoftmaxV2", [tensor([2, 3]), 2, tensor([2, 3])], INVALID,
     "[-rank, rank-1], rank self's"),
    ("LinalgCross-dim-beyond", "aclnnLinalgCross", [tensor([2, 3]), tensor([2, 3]), -3, tensor([2, 3])], INVALID,
     "[-self维度数量, self维度数量-1] after a default"),
    ("IndexCopy-dim-beyond", "aclnnIndexCopy", [tensor([2, 3]), 2, tensor([1], "INT64"), tensor([2, 1]),
                                                 tensor([2, 3])], INVALID, "在[-selfRef.dim(), selfRef.dim()-1]范围内"),
    ("IndexFill-0d-dim-minus-one", "aclnnIndexFill", [tensor([]), -1, tensor([1], "INT64"), scalar(1.0), tensor([])],
     OK, "a 0-d tensor's rank counts as 1"),
    ("IndexFill-0d-dim-beyond", "aclnnIndexFill", [tensor([]), 1, tensor([1], "INT64"), scalar(1.0), tensor([])],
     INVALID, "[-1, 1) on a 0-d tensor"),
    ("RepeatInterleaveInt-negative", "aclnnRepeatInterleaveInt", [tensor([3]), -1, 0, tensor([3])], INVALID,
     "必须为非负数"),
    ("AsStrided-negative-stride", "aclnnAsStrided", [tensor([6]), ints(2, 3), ints(3, -1), ints(0), tensor([2, 3])],
     INVALID, "元素必须为非负整数"),
    # A list of consecutive values: "仅支持0,1,2三个值", "取值为0、1、2".
    ("SoftMarginLoss-reduction-3", "aclnnSoftMarginLoss", [tensor([2, 3]), tensor([2, 3]), 3, tensor([])], INVALID,
     "reduction in {0, 1, 2}"),
    ("GridSampler2D-paddingMode-3", "aclnnGridSampler2D", [tensor([1, 1, 4, 4]), tensor([1, 2, 2, 2]), 0, 3, False,
                                                          tensor([1, 1, 2, 2])], INVALID, "paddingMode in {0, 1, 2}"),
    # Triangular ops: a private format and a vector refused (their error rows).
    ("Triu-NC1HWC0", "aclnnTriu", [tensor([2, 1, 4, 4, 16], format="NC1HWC0"), 0,
                                   tensor([2, 1, 4, 4, 16], format="NC1HWC0")], INVALID, "a private-format row"),
    ("Tril-vector", "aclnnTril", [tensor([4]), 0, tensor([4])], INVALID, "rank 2 to 8"),
    # The 0-d bias of a fused product (gen.conventions 12); a matmul's operand keeps its least rank.
    ("Addmm-0d-self", "aclnnAddmm", [tensor([]), tensor([2, 3]), tensor([3, 4]), scalar(0.5), scalar(2.0),
                                     tensor([2, 4]), 0], OK, "convention 12"),
    ("Addmv-0d-self", "aclnnAddmv", [tensor([]), tensor([2, 3]), tensor([3]), scalar(2.0), scalar(0.5), tensor([2]), 0],
     OK, "convention 12"),
    ("Matmul-0d-self", "aclnnMatmul", [tensor([]), tensor([3, 4]), tensor([4]), 0], INVALID, "rank 1 to 6"),
    # The 0-d input of an op that adds a dimension (gen.conventions 13); a 1-7 input of another op keeps 1.
    ("OneHot-0d-self", "aclnnOneHot", [tensor([], "INT64"), 4, tensor([1]), tensor([1]), -1, tensor([4])], OK,
     "convention 13"),
    ("RmsNormGrad-0d-gamma", "aclnnRmsNormGrad", [tensor([2, 3]), tensor([2, 3]), tensor([2, 1]), tensor([]),
                                                  tensor([2, 3]), tensor([3])], INVALID, "rank 1 to 7"),
    # A tensor the page says the operator does not read ("暂不使用") holds no shape: op-plugin passes it empty.
    ("LogSigmoidBackward-empty-buffer", "aclnnLogSigmoidBackward", [tensor([2, 3]), tensor([2, 3]), tensor([0]),
                                                                   tensor([2, 3])], OK, "Reserved.UNUSED"),
    ("LogSigmoidBackward-other-grad-shape", "aclnnLogSigmoidBackward", [tensor([2, 4]), tensor([2, 3]), tensor([0]),
                                                                        tensor([2, 3])], INVALID, "same shape"),
    # The page contradicts itself (its error row exempts 0-d): the table's 2-8, as PyTorch's tril_ (semantics erratum).
    ("InplaceTril-0d", "aclnnInplaceTril", [tensor([]), 0], INVALID, "rank 2 to 8, the table's"),
    # Each element of a window or a padding against the dimension it stands for (Extent.DIMENSION): a kernel
    # of one value larger than one spatial dimension, though the padding gives a positive output size
    # (aclnnAvgPool3d.md:117, "在对应的DHW维度上小于等于self的大小"), and a padding pair as large as the
    # dimension it pads (aclnnReplicationPad3d.md:196, "padding的数值大于等于self对应维度的值").
    ("AvgPool3d-kernel-over-H", "aclnnAvgPool3d", avg_pool3d([1, 1, 4, 2, 4], [1, 1, 4, 2, 4]), INVALID,
     "kernelSize <= size(self, -3 + i)"),
    ("AvgPool3d-kernel-at-each-dim", "aclnnAvgPool3d", avg_pool3d([1, 1, 4, 3, 4], [1, 1, 4, 3, 4]), OK,
     "kernelSize <= size(self, -3 + i)"),
    ("ReplicationPad3d-pad-D", "aclnnReplicationPad3d", [tensor([1, 1, 2, 3, 4]), ints(1, 1, 1, 1, 2, 2),
                                                         tensor([1, 1, 6, 5, 6])], INVALID, "padding[4:6] < size(self, -3)"),
    ("ReplicationPad3d-pad-below-each", "aclnnReplicationPad3d", [tensor([1, 1, 2, 3, 4]), ints(1, 1, 1, 1, 1, 1),
                                                                  tensor([1, 1, 4, 5, 6])], OK, "padding pairs"),
    # A window whose output size is not positive: the pool family's arithmetic refuses it with the status of
    # the page's row for it, citing that row ("通过公式推导出的out的shape的某个轴为0", API.output_size_row).
    ("MaxPool3dWithArgmax-no-output", "aclnnMaxPool3dWithArgmax",
     [tensor([1, 1, 2, 2, 2]), ints(3), ints(1), ints(0), ints(1), False, tensor([1, 1, 1, 1, 1]),
      tensor([1, 1, 1, 1, 1], "INT32")], INVALID, "the output-size row"),
    # A family's own value checks answer the page's row about that parameter's values (API.page_row):
    # aclnnCtcLoss's "blank不满足取值范围", aclnnConvolution's "outputPadding值不满足要求".
    ("CtcLoss-blank-beyond-classes", "aclnnCtcLoss", ctc_loss(blank=5), INVALID, "the blank row"),
    ("CtcLoss-blank-in-range", "aclnnCtcLoss", ctc_loss(blank=0), OK, "blank in [0, C)"),
    ("Convolution-output-padding", "aclnnConvolution", transposed_conv(output_padding=2), INVALID,
     "the outputPadding row"),
    ("Convolution-output-padding-below-stride", "aclnnConvolution", transposed_conv(output_padding=1), OK,
     "outputPadding below the stride"),
    # A dimension out of range answers the page's row about dim ("dim值不在self维度范围内"), one helper for
    # every family (WrapDimOrReject); im2col's window arguments the row of their values.
    ("Softmax-dim-beyond", "aclnnSoftmax", [tensor([2, 3]), 2, tensor([2, 3])], INVALID, "the dim row"),
    ("Im2col-zero-stride", "aclnnIm2col", [tensor([1, 2, 4, 4]), ints(2, 2), ints(1, 1), ints(0, 0), ints(0, 1),
                                           tensor([1, 8, 9])], INVALID, "the kernelSize/dilation/stride row"),
    # A dtype a note under the table takes from the chip ("Atlas A2 ...：self和out不支持INT32数据类型") is refused
    # citing the note, not the parameter's row that lists it.
    ("MaxDim-INT32-on-A2", "aclnnMaxDim", [tensor([2, 3], "INT32"), 1, False, tensor([2], "INT32"),
                                           tensor([2], "INT64")], INVALID, "the A2 note"),
    # A dimension equality answers the status of the page's shape rows (API.shape_status): aclnnAddLora's
    # "多个输入tensor之间的shape信息不匹配" is 561002.
    ("AddLora-y-rows", "aclnnAddLora", add_lora(y_rows=5), TILING, "the shape rows' 561002"),
    ("AddLora-rows-agree", "aclnnAddLora", add_lora(y_rows=4), OK, "dimension 0 of y and x"),
    # More than 8 dimensions, where only an error row bounds the ranks (the table's 维度 column is "-" or
    # absent) or the row's prose says "不支持8维以上" (gen.parse.param_ranks, CANN's CHECK_MAX_DIM).
    ("Acos-rank9", "aclnnAcos", [tensor([1] * 8 + [2]), tensor([1] * 8 + [2])], INVALID, "input或out的维数大于8"),
    ("Acos-rank8", "aclnnAcos", [tensor([1] * 7 + [2]), tensor([1] * 7 + [2])], OK, "8 dimensions pass"),
    ("Cumsum-rank9", "aclnnCumsum", [tensor([1] * 8 + [2]), 0, 0, tensor([1] * 8 + [2])], INVALID,
     "数据维度不支持8维以上"),
    ("Triu-vector", "aclnnTriu", [tensor([4]), 0, tensor([4])], INVALID, "self维度大于8，或小于2"),
    # A NULL output CANN's CheckNotNull leaves out (gen.conventions 3).
    ("Min-null-out", "aclnnMin", [tensor([2, 3]), None], INNER_NULL, "convention 3"),
    # PyTorch's calls that a family refuses by a page's rule, each citing its line (the OpInfo sweep's
    # refusals that cited none): a positive pad to an empty result, a 0-d input where the page's rows
    # give ranks, an unfold over another than the last two dimensions (its row's 561002).
    ("ConstantPadNd-zero-extent", "aclnnConstantPadNd", [tensor([0, 3, 3]), ints(1, 2), scalar(0.0), tensor([0, 3, 6])],
     INVALID, "如果pad中存在正数，则out的shape中不能有0"),
    ("ConstantPadNd-empty-unpadded", "aclnnConstantPadNd", [tensor([0, 3, 3]), ints(0, 0), scalar(0.0),
                                                            tensor([0, 3, 3])], OK, "no positive pad"),
    ("Gather-0d-self", "aclnnGather", [tensor([]), 0, tensor([1], "INT64"), tensor([1])], INVALID,
     "self: 维度数需要与index一致 (the same-rank relation, read from both rows; self's first)"),
    ("MultilabelMarginLoss-0d-self", "aclnnMultilabelMarginLoss", [tensor([]), tensor([], "INT32"), 1, tensor([]),
                                                                   tensor([])], INVALID, "self: shape为(N,C)或者(C)"),
    ("UnfoldGrad-leading-dim", "aclnnUnfoldGrad", [tensor([2, 5, 5, 5, 2]), ints(5, 5, 5, 5), 0, 2, 2,
                                                   tensor([5, 5, 5, 5])], TILING, "the dim row's 561002"),
    # A scale output "与x1除了最后一维的乘积一致": as many elements as x1's rows (the 8.5.0 page's example
    # passes [2, 1] for x1 [2, 8]); another count stays refused.
    ("AddRmsNormDynamicQuantV2-scale-as-product", "aclnnAddRmsNormDynamicQuantV2", [
        tensor([2, 8], "FLOAT16"), tensor([2, 8], "FLOAT16"), tensor([8], "FLOAT16"), None, None, None, 1e-6, None,
        tensor([2, 8], "INT8"), tensor([2, 8], "INT8"), tensor([2, 8], "FLOAT16"), tensor([2, 1]), tensor([2, 1])],
     OK, "the product of x1's rows"),
    ("AddRmsNormDynamicQuantV2-scale-other-count", "aclnnAddRmsNormDynamicQuantV2", [
        tensor([2, 8], "FLOAT16"), tensor([2, 8], "FLOAT16"), tensor([8], "FLOAT16"), None, None, None, 1e-6, None,
        tensor([2, 8], "INT8"), tensor([2, 8], "INT8"), tensor([2, 8], "FLOAT16"), tensor([3]), tensor([3])],
     INVALID, "x1's rows"),
]

pytestmark = pytest.mark.skipif(not built(), reason="the package of op_docs/ is not built: run `make package`")


@functools.lru_cache(maxsize=1)
def answers() -> dict[str, tuple[int, str]]:
    found = phase1_probe.statuses([(api, args) for _, api, args, _, _ in PROBES])
    return {probe[0]: answer for probe, answer in zip(PROBES, found)}


@pytest.mark.parametrize("name, api, expected, rule", [(p[0], p[1], p[3], p[4]) for p in PROBES],
                         ids=[p[0] for p in PROBES])
def test_phase1_answers_as_cann(name, api, expected, rule):
    status, message = answers()[name]
    assert status == expected, f"{api} ({rule}): phase 1 answered {status} ({message}), CANN {expected}"


def test_the_output_size_refusal_cites_its_page_row():
    assert answers()["MaxPool3dWithArgmax-no-output"][1].endswith(
        "gives an output size that is not positive (over an input dimension of 2) (aclnnMaxPool3dWithArgmax.md:249)")


@pytest.mark.parametrize("name, cited", [("CtcLoss-blank-beyond-classes", "aclnnCtcLoss.md:250"),
                                         ("Convolution-output-padding", "aclnnConvolution.md:273"),
                                         ("MaxDim-INT32-on-A2", "aclnnMaxDim.md:157"),
                                         ("Softmax-dim-beyond", "aclnnSoftmax.md:172"),
                                         ("Im2col-zero-stride", "aclnnIm2col.md:208"),
                                         ("ConstantPadNd-zero-extent", "aclnnConstantPadNd.md:247"),
                                         ("Gather-0d-self", "aclnnGather.md:107"),
                                         ("MultilabelMarginLoss-0d-self", "aclnnMultilabelMarginLoss.md:112"),
                                         ("UnfoldGrad-leading-dim", "aclnnUnfoldGrad.md:229"),
                                         ("Acos-rank9", "aclnnAcos&aclnnInplaceAcos.md:178"),
                                         ("Triu-vector", "aclnnTriu&aclnnInplaceTriu.md:210")])
def test_a_refusal_cites_the_page_line_it_enforces(name, cited):
    message = answers()[name][1]
    assert message.endswith(f"({cited})"), message
