// The aclop bridge's gradient operator types that torch_npu's op-plugin sends a plain tensor's
// backward pass to on Ascend910 and Ascend310P (ACL_OP_JIT_COMPILE enabled there). Found by
// tests/torch_npu/opinfo_sweep.py --modes backward --soc Ascend910 and modelled in the order of the
// OpInfo operators each blocked; each runs the simulator's aclnn backward API of the same
// operation with the inputs and attributes CANN's prototype gives it (torch_npu's wheel carries
// the prototypes: torchair's auto_generated_ge_raw_ops.py). Where the backward API takes the
// forward's input only for its shape (the pools, padding, the convolutions' other operand), that
// input is a scratch tensor of the shape the operator is given. An attribute value no aclnn API
// expresses is refused naming it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"

namespace aclsim::aclop {

// The shape an operator states for its output (an attribute or a value input) against the
// output's description: they must agree, as the device's shape inference checks.
aclError SameShape(const OpCall& call, const char* what, const std::vector<int64_t>& stated) {
  if (stated == call.outputs[0].desc->dims) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, std::string(what) + " " + ListText(stated) + " is not the output's shape " +
                                                      ListText(call.outputs[0].desc->dims));
}

namespace {

// The phase-1 types of the aclnn APIs called here, checked against the generated prototypes at the
// end of this file.
using GradApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;  // HardswishBackward, ...
using GradScalarApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;  // ThresholdBackward
using GradTwoScalarsApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, const aclScalar*, aclTensor*>;
using LogSigmoidBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*>;
using EluBackwardApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, const aclScalar*, bool, const aclTensor*,
                              aclTensor*>;
using GluBackwardApi = Phase1<const aclTensor*, const aclTensor*, int64_t, const aclTensor*>;
using PreluBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*, aclTensor*>;
using NllLossBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, int64_t, int64_t,
                                  const aclTensor*, aclTensor*>;
using LossBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;  // SoftMarginLoss
using BceBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using BceWithLogitsBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                                        const aclTensor*, int64_t, aclTensor*>;
using LossWithBetaBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, float, aclTensor*>;
using KlDivBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, bool, aclTensor*>;
using CtcLossBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclIntArray*,
                                  const aclIntArray*, const aclTensor*, const aclTensor*, int64_t, bool, aclTensor*>;
using GridSamplerBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, int64_t, bool,
                                        const aclBoolArray*, aclTensor*, aclTensor*>;
using EmbeddingDenseBackwardApi = Phase1<const aclTensor*, const aclTensor*, uint64_t, uint64_t, bool, const aclTensor*>;
using AvgPool2dBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclIntArray*, const aclIntArray*,
                                    const aclIntArray*, bool, bool, int64_t, int8_t, aclTensor*>;
using PadBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclIntArray*, aclTensor*>;
using BatchNormBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                                    const aclTensor*, const aclTensor*, bool, double, const aclBoolArray*, aclTensor*,
                                    aclTensor*, aclTensor*>;
using BatchNormElemtBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                                         const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*, aclTensor*>;
using ConvolutionBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclIntArray*,
                                      const aclIntArray*, const aclIntArray*, const aclIntArray*, bool, const aclIntArray*,
                                      int, const aclBoolArray*, int8_t, aclTensor*, aclTensor*, aclTensor*>;
using Upsample1dBackwardApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, bool, double, aclTensor*>;
using Upsample2dBackwardApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, bool, double, double,
                                     aclTensor*>;
using UpsampleNearest2dBackwardApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, double, double,
                                            aclTensor*>;
using AddsApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, aclTensor*>;
using BinaryApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;  // Div, Mul
using UnaryApi = Phase1<const aclTensor*, aclTensor*>;                     // Rsqrt
using InplaceFillScalarApi = Phase1<aclTensor*, const aclScalar*>;

// An activation's gradient (inputs: the incoming gradient and the forward's input, in the order
// `grad_first` says; output: the input's gradient), by an aclnn backward API taking (gradOutput,
// self, out).
aclError ActivationGrad(const OpCall& call, const char* api, bool grad_first = true) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[grad_first ? 0 : 1], "grads");
  aclTensor* x = o.Tensor(call.inputs[grad_first ? 1 : 0], "x");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<GradApi>(call, api, dy, x, dx);
}

// HardSwishGrad (grad, x).
aclError HardSwishGrad(const OpCall& call) { return ActivationGrad(call, "aclnnHardswishBackward"); }

// HardSigmoidGrad (grads, input_x; attributes alpha, beta): aclnnHardsigmoidBackward's alpha 1/6 and
// beta 1/2 only, as the forward HardSigmoid (math.cpp).
aclError HardSigmoidGrad(const OpCall& call) {
  if (aclError s = CheckHardSigmoidAttributes(call)) return s;
  return ActivationGrad(call, "aclnnHardsigmoidBackward");
}

// LogSigmoidGrad (grads, features): aclnnLogSigmoidBackward's buffer is PyTorch's CPU scratch,
// which its kernel does not read; it gets a scratch tensor of x's shape.
aclError LogSigmoidGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const OpTensorDesc& x_desc = *call.inputs[1].desc;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* x = o.Tensor(call.inputs[1], "features");
  aclTensor* buffer = o.Scratch(x_desc.dtype, x_desc.dims);
  aclTensor* dx = o.Tensor(call.outputs[0], "backprops");
  if (o.status()) return o.status();
  return Aclnn<LogSigmoidBackwardApi>(call, "aclnnLogSigmoidBackward", dy, x, buffer, dx);
}

// An activation's gradient with float attributes passed as scalars after (gradOutput, self):
// ThresholdGradV2D (gradients, features; threshold), SoftShrinkGrad (input_grad, input_x; lambd),
// HardShrinkGrad (gradients, features; lambd).
aclError GradWithScalar(const OpCall& call, const char* api, const char* attr, float fallback) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "gradients");
  aclTensor* x = o.Tensor(call.inputs[1], "features");
  aclTensor* dx = o.Tensor(call.outputs[0], "backprops");
  if (o.status()) return o.status();
  return Aclnn<GradScalarApi>(call, api, dy, x, o.Scalar(call.Float(attr, fallback), ACL_FLOAT), dx);
}

// HardtanhGrad (result, grad; min_val, max_val): the gradient passes where min_val < result <
// max_val; the forward's input and its clamped result agree on that, so either may be given.
aclError HardtanhGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* result = o.Tensor(call.inputs[0], "result");
  aclTensor* dy = o.Tensor(call.inputs[1], "grad");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<GradTwoScalarsApi>(call, "aclnnHardtanhBackward", dy, result,
                                  o.Scalar(call.Float("min_val", -1.0f), ACL_FLOAT),
                                  o.Scalar(call.Float("max_val", 1.0f), ACL_FLOAT), dx);
}

// EluGradV2 (grads, activations; alpha, scale, input_scale, is_result): activations is the
// forward's input, or its result when is_result (aclnnEluBackward's selfOrResult).
aclError EluGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* activations = o.Tensor(call.inputs[1], "activations");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<EluBackwardApi>(call, "aclnnEluBackward", dy, o.Scalar(call.Float("alpha", 1.0f), ACL_FLOAT),
                               o.Scalar(call.Float("scale", 1.0f), ACL_FLOAT),
                               o.Scalar(call.Float("input_scale", 1.0f), ACL_FLOAT), call.Bool("is_result", false),
                               activations, dx);
}

// GLUGrad (y_grad, x; dim).
aclError GluGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "y_grad");
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* dx = o.Tensor(call.outputs[0], "x_grad");
  if (o.status()) return o.status();
  return Aclnn<GluBackwardApi>(call, "aclnnGluBackward", dy, x, call.Int("dim", -1), dx);
}

// PReluGrad (grads, features, weights) to dx and da.
aclError PReluGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* x = o.Tensor(call.inputs[1], "features");
  aclTensor* weight = o.Tensor(call.inputs[2], "weights");
  aclTensor* dx = o.Tensor(call.outputs[0], "dx");
  aclTensor* da = o.Tensor(call.outputs[1], "da");
  if (o.status()) return o.status();
  return Aclnn<PreluBackwardApi>(call, "aclnnPreluBackward", dy, x, weight, dx, da);
}

// --- losses ------------------------------------------------------------------------------------

// NLLLossGrad (x, y_grad, target, weight, total_weight; reduction, ignore_index). As for NLLLoss
// (math.cpp), torch_npu gives a class vector [C] as x [1, C] with its 0-d target: the target's
// elements (and y_grad's, unreduced) are seen in x's shape without the class dimension.
aclError NllLossGrad(const OpCall& call) {
  if (aclError s = call.Arity(5, 5, 1)) return s;
  int64_t reduction = 0;
  if (aclError s = call.Choice("reduction", "mean", kReductions, &reduction)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t> batch(x_dims.begin(), x_dims.end() - (x_dims.empty() ? 0 : 1));
  auto batch_view = [&](AclnnObjects& o, const Operand& operand, const char* what) {
    return Elements(operand.desc->dims) == Elements(batch) ? o.Tensor(operand, what, batch) : o.Tensor(operand, what);
  };
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* dy = reduction == 0 ? batch_view(o, call.inputs[1], "y_grad") : o.Tensor(call.inputs[1], "y_grad");
  aclTensor* target = batch_view(o, call.inputs[2], "target");
  aclTensor* weight = o.Tensor(call.inputs[3], "weight");
  aclTensor* total_weight = o.Tensor(call.inputs[4], "total_weight");
  aclTensor* dx = o.Tensor(call.outputs[0], "x_grad");
  if (o.status()) return o.status();
  return Aclnn<NllLossBackwardApi>(call, "aclnnNLLLossBackward", dy, x, target, weight, reduction,
                                   call.Int("ignore_index", -100), total_weight, dx);
}

// SoftMarginLossGrad (predict, label, dout; reduction).
aclError SoftMarginLossGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  int64_t reduction = 0;
  if (aclError s = call.Choice("reduction", "mean", kReductions, &reduction)) return s;
  AclnnObjects o(call);
  aclTensor* predict = o.Tensor(call.inputs[0], "predict");
  aclTensor* label = o.Tensor(call.inputs[1], "label");
  aclTensor* dout = o.Tensor(call.inputs[2], "dout");
  aclTensor* gradient = o.Tensor(call.outputs[0], "gradient");
  if (o.status()) return o.status();
  return Aclnn<LossBackwardApi>(call, "aclnnSoftMarginLossBackward", dout, predict, label, reduction, gradient);
}

// A pointwise loss's gradient whose inputs are (predict, label, dout): MseLossGrad (reduction),
// SmoothL1LossGradV2 (sigma, reduction), KlDivLossGrad ((grad, input, target): reduction with
// "batchmean", log_target) and L1LossGrad ((grads, predict, label): reduction).
aclError PointwiseLossGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const bool kl = call.type == "KlDivLossGrad", l1 = call.type == "L1LossGrad";
  int64_t reduction = 0;
  if (kl) {
    if (aclError s = call.Choice("reduction", "mean", {"none", "mean", "sum", "batchmean"}, &reduction)) return s;
  } else if (aclError s = call.Choice("reduction", "mean", kReductions, &reduction)) {
    return s;
  }
  // The incoming gradient is KlDivLossGrad's and L1LossGrad's first input, the others' last.
  const size_t grad_index = kl || l1 ? 0 : 2, predict_index = kl || l1 ? 1 : 0, label_index = kl || l1 ? 2 : 1;
  AclnnObjects o(call);
  aclTensor* dout = o.Tensor(call.inputs[grad_index], "dout");
  aclTensor* predict = o.Tensor(call.inputs[predict_index], "predict");
  aclTensor* label = o.Tensor(call.inputs[label_index], "label");
  aclTensor* gradient = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (kl) {
    return Aclnn<KlDivBackwardApi>(call, "aclnnKlDivBackward", dout, predict, label, reduction,
                                   call.Bool("log_target", false), gradient);
  }
  if (call.type == "SmoothL1LossGradV2") {
    return Aclnn<LossWithBetaBackwardApi>(call, "aclnnSmoothL1LossBackward", dout, predict, label, reduction,
                                          call.Float("sigma", 1.0f), gradient);
  }
  return Aclnn<LossBackwardApi>(call, l1 ? "aclnnL1LossBackward" : "aclnnMseLossBackward", dout, predict, label, reduction,
                                gradient);
}

// BinaryCrossEntropyGrad (x, y, grad_output, optional weight; reduction).
aclError BinaryCrossEntropyGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 4, 1)) return s;
  int64_t reduction = 0;
  if (aclError s = call.Choice("reduction", "mean", kReductions, &reduction)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.inputs[1], "y");
  aclTensor* dout = o.Tensor(call.inputs[2], "grad_output");
  aclTensor* weight = call.inputs.size() > 3 ? o.Tensor(call.inputs[3], "weight") : nullptr;
  aclTensor* output = o.Tensor(call.outputs[0], "output");
  if (o.status()) return o.status();
  return Aclnn<BceBackwardApi>(call, "aclnnBinaryCrossEntropyBackward", dout, x, y, weight, reduction, output);
}

// SigmoidCrossEntropyWithLogitsGradV2 (predict, target, dout, optional weight and pos_weight; reduction).
aclError SigmoidCrossEntropyWithLogitsGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 5, 1)) return s;
  int64_t reduction = 0;
  if (aclError s = call.Choice("reduction", "mean", kReductions, &reduction)) return s;
  AclnnObjects o(call);
  aclTensor* predict = o.Tensor(call.inputs[0], "predict");
  aclTensor* target = o.Tensor(call.inputs[1], "target");
  aclTensor* dout = o.Tensor(call.inputs[2], "dout");
  aclTensor* weight = call.inputs.size() > 3 ? o.Tensor(call.inputs[3], "weight") : nullptr;
  aclTensor* pos_weight = call.inputs.size() > 4 ? o.Tensor(call.inputs[4], "pos_weight") : nullptr;
  aclTensor* gradient = o.Tensor(call.outputs[0], "gradient");
  if (o.status()) return o.status();
  return Aclnn<BceWithLogitsBackwardApi>(call, "aclnnBinaryCrossEntropyWithLogitsBackward", dout, predict, target, weight,
                                         pos_weight, reduction, gradient);
}

// SoftplusV2Grad (input_gradients, input_features; beta, threshold).
aclError SoftplusGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "input_gradients");
  aclTensor* x = o.Tensor(call.inputs[1], "input_features");
  aclTensor* dx = o.Tensor(call.outputs[0], "output_backprops");
  if (o.status()) return o.status();
  return Aclnn<GradTwoScalarsApi>(call, "aclnnSoftplusBackward", dy, x, o.Scalar(call.Float("beta", 1.0f), ACL_FLOAT),
                                  o.Scalar(call.Float("threshold", 20.0f), ACL_FLOAT), dx);
}

// EmbeddingDenseGrad (grad, indices; num_weights, padding_idx, scale_grad_by_freq): the weight's
// gradient, aclnnEmbeddingDenseBackward's, given padding_idx as op-plugin gives it on its aclnn
// route (the int64, -1 for none, passed as the API's uint64).
aclError EmbeddingDenseGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const int64_t num_weights = call.Int("num_weights", 0);
  if (num_weights < 0 || call.outputs[0].desc->dims.empty() || call.outputs[0].desc->dims[0] != num_weights) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute num_weights = " + std::to_string(num_weights) +
                                                      " is not y's first dimension " + ListText(call.outputs[0].desc->dims));
  }
  // The gradient of one looked-up row (a 0-d index: grad [D]) is the one row [1, D] of index [1]: grad's
  // shape is always the indices' then D, and aclnnEmbeddingDenseBackward's grad has at least two dimensions.
  const bool one_row = call.inputs[0].desc->dims.size() == 1 && call.inputs[1].desc->dims.empty();
  AclnnObjects o(call);
  aclTensor* grad = one_row ? o.Tensor(call.inputs[0], "grad", {1, call.inputs[0].desc->dims[0]})
                            : o.Tensor(call.inputs[0], "grad");
  aclTensor* indices = one_row ? o.Tensor(call.inputs[1], "indices", {1}) : o.Tensor(call.inputs[1], "indices");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<EmbeddingDenseBackwardApi>(call, "aclnnEmbeddingDenseBackward", grad, indices,
                                          static_cast<uint64_t>(num_weights),
                                          static_cast<uint64_t>(call.Int("padding_idx", -1)),
                                          call.Bool("scale_grad_by_freq", false), y);
}

// GridSampler2DGrad and GridSampler3DGrad (grad, x, grid; interpolation_mode, padding_mode,
// align_corners) to dx and dgrid, the modes numbered as GridSampler2D's (sampling.cpp) and PyTorch's.
aclError GridSamplerGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  int64_t interpolation = 0, padding = 0;
  if (aclError s = call.Choice("interpolation_mode", "bilinear", {"bilinear", "nearest", "bicubic"}, &interpolation)) return s;
  if (aclError s = call.Choice("padding_mode", "zeros", {"zeros", "border", "reflection"}, &padding)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grad");
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* grid = o.Tensor(call.inputs[2], "grid");
  aclTensor* dx = o.Tensor(call.outputs[0], "dx");
  aclTensor* dgrid = o.Tensor(call.outputs[1], "dgrid");
  if (o.status()) return o.status();
  const char* api = call.type == "GridSampler3DGrad" ? "aclnnGridSampler3DBackward" : "aclnnGridSampler2DBackward";
  return Aclnn<GridSamplerBackwardApi>(call, api, dy, x, grid, interpolation, padding, call.Bool("align_corners", false),
                                       o.Bools({true, true}), dx, dgrid);
}

// CTCLossV2Grad (grad_out [N], log_probs, targets, input_lengths, target_lengths,
// neg_log_likelihood, log_alpha; blank, zero_infinity) to grad: aten's _ctc_loss_backward, by
// aclnnCtcLossBackward; the lengths and the blank are read as CTCLossV2's (nn.cpp), and the
// reduction attribute is refused when set, as there.
aclError CtcLossGrad(const OpCall& call) {
  if (aclError s = call.Arity(7, 7, 1)) return s;
  CtcArguments ctc;
  if (aclError s = ReadCtcArguments(call, 1, 3, &ctc)) return s;
  AclnnObjects o(call);
  aclTensor* grad_out = o.Tensor(call.inputs[0], "grad_out");
  aclTensor* log_probs = o.Tensor(call.inputs[1], "log_probs");
  aclTensor* targets = o.Tensor(call.inputs[2], "targets");
  aclTensor* nll = o.Tensor(call.inputs[5], "neg_log_likelihood");
  aclTensor* log_alpha = o.Tensor(call.inputs[6], "log_alpha");
  aclTensor* grad = o.Tensor(call.outputs[0], "grad");
  if (o.status()) return o.status();
  return Aclnn<CtcLossBackwardApi>(call, "aclnnCtcLossBackward", grad_out, log_probs, targets, o.Ints(ctc.input_lengths),
                                   o.Ints(ctc.target_lengths), nll, log_alpha, ctc.blank, call.Bool("zero_infinity", false),
                                   grad);
}

// --- pooling and padding -----------------------------------------------------------------------


// AdaptiveAvgPool2dGrad (input_grad; orig_input_shape).
aclError AdaptiveAvgPool2dGrad(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> shape = call.Ints("orig_input_shape");
  if (aclError s = SameShape(call, "attribute orig_input_shape", shape)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "input_grad");
  aclTensor* x = o.Scratch(call.outputs[0].desc->dtype, shape);
  aclTensor* dx = o.Tensor(call.outputs[0], "output_grad");
  if (o.status()) return o.status();
  return Aclnn<GradApi>(call, "aclnnAdaptiveAvgPool2dBackward", dy, x, dx);
}

// AvgPoolV2Grad (orig_input_shape, input_grad; AvgPoolV2's window attributes). torch_npu leaves
// divisor_override unset here even where its forward AvgPoolV2 set it, so the gradient divides by
// the window's count, as the prototype's default says a device does.
aclError AvgPoolV2Grad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> shape;
  if (aclError s = call.ConstInts(0, "orig_input_shape", &shape)) return s;
  if (aclError s = SameShape(call, "orig_input_shape", shape)) return s;
  AvgPoolWindow w;
  if (aclError s = ReadAvgPoolWindow(call, call.inputs[1].desc->dtype, &w)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[1], "input_grad");
  aclTensor* x = o.Scratch(call.outputs[0].desc->dtype, shape);
  aclTensor* dx = o.Tensor(call.outputs[0], "out_grad");
  if (o.status()) return o.status();
  return Aclnn<AvgPool2dBackwardApi>(call, "aclnnAvgPool2dBackward", dy, x, o.Ints(w.kernel), o.Ints(w.stride),
                                     o.Ints(w.padding), w.ceil_mode, w.count_include_pad, w.divisor_override, int8_t{0},
                                     dx);
}

// PadV3Grad (x: the padded gradient, paddings; mode "reflect" or "edge", paddings_contiguous): the
// unpadded gradient, by the backward of the API PadV3 runs as (PlanMirrorPad). torch_npu may give
// y fewer dimensions than x (a 3-d input padded as 4-d): y is seen in x's rank.
aclError PadV3Grad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  bool reflect = false;
  if (aclError s = ReadMirrorPadMode(call, &reflect)) return s;
  std::vector<int64_t> paddings;
  if (aclError s = call.ConstInts(1, "paddings", &paddings)) return s;
  const std::vector<int64_t>& padded = call.inputs[0].desc->dims;
  const size_t rank = padded.size();
  if (paddings.size() != 2 * rank) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "paddings " + ListText(paddings) + " are not two per dimension of x " +
                                                       ListText(padded));
  }
  const bool contiguous = call.Bool("paddings_contiguous", true);
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    dims[d] = padded[d] - (contiguous ? paddings[2 * d] + paddings[2 * d + 1] : paddings[d] + paddings[rank + d]);
  }
  if (Elements(dims) != Elements(call.outputs[0].desc->dims)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y " + ListText(call.outputs[0].desc->dims) + " does not hold x " +
                                                        ListText(padded) + " unpadded by " + ListText(paddings) + ", " +
                                                        ListText(dims));
  }
  MirrorPadPlan plan;
  if (aclError s = PlanMirrorPad(call, dims, paddings, reflect, &plan)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "x");
  aclTensor* x = o.Scratch(call.outputs[0].desc->dtype, dims);
  aclTensor* dx = o.Tensor(call.outputs[0], "y", dims);
  if (o.status()) return o.status();
  return Aclnn<PadBackwardApi>(call, plan.api + "Backward", dy, x, o.Ints(plan.pad), dx);
}

// --- batch normalisation -----------------------------------------------------------------------
// torch_npu's training batch norm runs BNTrainingReduce and BNTrainingUpdate forward (norms.cpp),
// then BNTrainingUpdateGrad (the scale's and offset's gradients) and BNTrainingReduceGrad (x's,
// from those two) backward. The statistics are per channel, x's dimension 1.

// BNTrainingUpdateGrad (grads, x, batch_mean, batch_variance; epsilon) to diff_scale = sum(grads *
// (x - mean) / sqrt(variance + epsilon)) and diff_offset = sum(grads) over all but the channels:
// aclnnBatchNormBackward's weight and bias gradients at the given statistics (its evaluation mode,
// which takes them as they are).
aclError BnTrainingUpdateGrad(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 2)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[1].desc->dims;
  if (x_dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " has no channel dimension");
  const std::vector<int64_t> channels = {x_dims[1]};
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* mean = o.Tensor(call.inputs[2], "batch_mean", channels);
  aclTensor* variance = o.Tensor(call.inputs[3], "batch_variance", channels);
  aclTensor* diff_scale = o.Tensor(call.outputs[0], "diff_scale", channels);
  aclTensor* diff_offset = o.Tensor(call.outputs[1], "diff_offset", channels);
  if (o.status()) return o.status();
  return Aclnn<BatchNormBackwardApi>(call, "aclnnBatchNormBackward", dy, x, nullptr, mean, variance, nullptr, nullptr,
                                     false, static_cast<double>(call.Float("epsilon", 1e-4f)),
                                     o.Bools({false, true, true}), nullptr, diff_scale, diff_offset);
}

// BNTrainingReduceGrad (grads, x, diff_scale, diff_offset, scale, batch_mean, batch_variance;
// epsilon) to y = scale * invstd * (grads - (diff_offset + xhat * diff_scale) / M), invstd =
// (variance + epsilon)^-1/2, xhat = (x - mean) * invstd, M the elements per channel: PyTorch's
// batch_norm_backward_elemt, aclnnBatchNormElemtBackward, given the sums from diff_offset and
// diff_scale / invstd (its sum of grads * (x - mean)) and the count M.
aclError BnTrainingReduceGrad(const OpCall& call) {
  if (aclError s = call.Arity(7, 7, 1)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[1].desc->dims;
  if (x_dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " has no channel dimension");
  const std::vector<int64_t> channels = {x_dims[1]};
  const int64_t count = Elements(x_dims) / std::max<int64_t>(x_dims[1], 1);
  const aclDataType stats = call.inputs[6].desc->dtype;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* diff_scale = o.Tensor(call.inputs[2], "diff_scale", channels);
  aclTensor* diff_offset = o.Tensor(call.inputs[3], "diff_offset", channels);
  aclTensor* scale = o.Tensor(call.inputs[4], "scale", channels);
  aclTensor* mean = o.Tensor(call.inputs[5], "batch_mean", channels);
  aclTensor* variance = o.Tensor(call.inputs[6], "batch_variance", channels);
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  aclTensor* shifted = o.Scratch(stats, channels);
  aclTensor* invstd = o.Scratch(stats, channels);
  aclTensor* sum_dy_xmu = o.Scratch(stats, channels);
  aclTensor* counter = o.Scratch(ACL_FLOAT, {1});
  if (o.status()) return o.status();
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-4f));
  if (aclError s = Aclnn<AddsApi>(call, "aclnnAdds", variance, o.Scalar(epsilon, ACL_DOUBLE), o.Scalar(1.0, ACL_FLOAT), shifted)) {
    return s;
  }
  if (aclError s = Aclnn<UnaryApi>(call, "aclnnRsqrt", shifted, invstd)) return s;
  if (aclError s = Aclnn<BinaryApi>(call, "aclnnDiv", diff_scale, invstd, sum_dy_xmu)) return s;
  if (aclError s = Aclnn<InplaceFillScalarApi>(call, "aclnnInplaceFillScalar", counter,
                                               o.Scalar(static_cast<double>(count), ACL_DOUBLE))) {
    return s;
  }
  return Aclnn<BatchNormElemtBackwardApi>(call, "aclnnBatchNormElemtBackward", dy, x, mean, invstd, scale, diff_offset,
                                          sum_dy_xmu, counter, dx);
}

// BNInferGrad (grads, scale, batch_variance; epsilon): x's gradient of the evaluation-mode batch norm,
// x_backprop = grads * scale * (batch_variance + epsilon)^-1/2 per channel.
aclError BnInferGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "grads " + ListText(dims) + " has no channel dimension");
  std::vector<int64_t> per_channel(dims.size(), 1);  // [1, C, 1, ...]: broadcast over grads
  per_channel[1] = dims[1];
  const aclDataType stats = call.inputs[2].desc->dtype;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* scale = o.Tensor(call.inputs[1], "scale", per_channel);
  aclTensor* variance = o.Tensor(call.inputs[2], "batch_variance", per_channel);
  aclTensor* dx = o.Tensor(call.outputs[0], "x_backprop");
  aclTensor* shifted = o.Scratch(stats, per_channel);
  aclTensor* invstd = o.Scratch(stats, per_channel);
  aclTensor* factor = o.Scratch(stats, per_channel);
  if (o.status()) return o.status();
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-4f));
  if (aclError s = Aclnn<AddsApi>(call, "aclnnAdds", variance, o.Scalar(epsilon, ACL_DOUBLE), o.Scalar(1.0, ACL_FLOAT), shifted)) {
    return s;
  }
  if (aclError s = Aclnn<UnaryApi>(call, "aclnnRsqrt", shifted, invstd)) return s;
  if (aclError s = Aclnn<BinaryApi>(call, "aclnnMul", scale, invstd, factor)) return s;
  return Aclnn<BinaryApi>(call, "aclnnMul", dy, factor, dx);
}

// --- convolution -------------------------------------------------------------------------------

// Conv2DBackpropInput (input_size, filter, out_backprop; Conv2D's window attributes) to x's
// gradient, and Conv2DBackpropFilter (x, filter_size, out_backprop) to the filter's, by
// aclnnConvolutionBackward of the forward Conv2D (Conv3DBackpropInput/Filter alike, of Conv3D);
// the operand whose gradient is taken is a scratch tensor of the stated size.
aclError Conv2DBackprop(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const bool of_input = call.type == "Conv2DBackpropInput" || call.type == "Conv3DBackpropInput";
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(of_input ? 0 : 1, of_input ? "input_size" : "filter_size", &size)) return s;
  if (aclError s = SameShape(call, of_input ? "input_size" : "filter_size", size)) return s;
  ConvWindow w;
  if (aclError s = ReadConvWindow(call, &w)) return s;
  const aclDataType dtype = call.outputs[0].desc->dtype;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[2], "out_backprop");
  aclTensor* x = of_input ? o.Scratch(dtype, size) : o.Tensor(call.inputs[0], "x");
  aclTensor* filter = of_input ? o.Tensor(call.inputs[1], "filter") : o.Scratch(dtype, size);
  aclTensor* gradient = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  // biasSizes: the bias's [C_out] (the filter's first dimension), which the API requires though its
  // gradient is not asked for.
  const std::vector<int64_t>& filter_dims = of_input ? call.inputs[1].desc->dims : size;
  if (filter_dims.size() != w.stride.size() + 2) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "the filter's shape " + ListText(filter_dims) + " is not " +
                                                       (w.stride.size() == 3 ? "NCDHW" : "NCHW"));
  }
  return Aclnn<ConvolutionBackwardApi>(call, "aclnnConvolutionBackward", dy, x, filter, o.Ints({filter_dims[0]}),
                                       o.Ints(w.stride), o.Ints(w.padding), o.Ints(w.dilation), false,
                                       o.Ints(std::vector<int64_t>(w.stride.size(), 0)),
                                       static_cast<int>(w.groups), o.Bools({of_input, !of_input, false}), int8_t{0},
                                       of_input ? gradient : nullptr, of_input ? nullptr : gradient, nullptr);
}

// --- resizing ----------------------------------------------------------------------------------

// ResizeNearestNeighborV2Grad (grads, size; align_corners, half_pixel_centers): both false, the
// mode ResizeNearestNeighborV2 models (sampling.cpp), by aclnnUpsampleNearest2dBackward with the scales
// of the sizes.
aclError ResizeNearestGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (call.Bool("align_corners", false) || call.Bool("half_pixel_centers", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes align_corners and half_pixel_centers: only both false is modelled");
  }
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "size", &size)) return s;
  const std::vector<int64_t>& grads = call.inputs[0].desc->dims;
  const std::vector<int64_t>& y = call.outputs[0].desc->dims;
  if (grads.size() != 4 || y.size() != 4 || size != std::vector<int64_t>{y[2], y[3]}) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "grads " + ListText(grads) + ", size " + ListText(size) + ", y " +
                                                       ListText(y) + ": NCHW with size y's [H, W] is modelled");
  }
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UpsampleNearest2dBackwardApi>(call, "aclnnUpsampleNearest2dBackward", dy, o.Ints({grads[2], grads[3]}),
                                             o.Ints(y), 0.0, 0.0, dx);
}

// ResizeBilinearV2Grad (grads, original_image; align_corners, half_pixel_centers): exactly one true,
// as ResizeBilinearV2 (sampling.cpp), by aclnnUpsampleBilinear2dBackward.
aclError ResizeBilinearGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool align = call.Bool("align_corners", false), half_pixel = call.Bool("half_pixel_centers", false);
  if (align == half_pixel) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attributes align_corners = ") + (align ? "true" : "false") +
                                                      " and half_pixel_centers = " + (half_pixel ? "true" : "false") +
                                                      ": exactly one of them true is modelled");
  }
  const std::vector<int64_t>& grads = call.inputs[0].desc->dims;
  const std::vector<int64_t>& y = call.outputs[0].desc->dims;
  if (grads.size() != 4 || y.size() != 4) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "grads " + ListText(grads) + " and y " + ListText(y) + " are not NCHW");
  }
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grads");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<Upsample2dBackwardApi>(call, "aclnnUpsampleBilinear2dBackward", dy, o.Ints({grads[2], grads[3]}), o.Ints(y),
                                      align, 0.0, 0.0, dx);
}

// ResizeGradD (grads; original_size, scales, coordinate_transformation_mode, mode, ...) as torch_npu
// sends the backward of ResizeD's modes (sampling.cpp): "linear" (grads [N, C, 1, W'], y [N, C, W]) and
// "cubic" (grads in data_format HWNC, as op-plugin permutes them, or NCHW; coefficient -0.75), by
// aclnnUpsampleLinear1dBackward and aclnnUpsampleBicubic2dBackward with the forward's scales.
aclError ResizeGradD(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const ResizeDAttributes r = ReadResizeDAttributes(call);
  const std::string layout = call.String("data_format", "NCHW");
  const std::vector<int64_t> original = call.Ints("original_size");
  const bool linear = r.linear;
  if (!r.modelled || (layout != "NCHW" && !(r.cubic && layout == "HWNC"))) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "mode \"" + r.mode + "\", coordinate_transformation_mode \"" + r.transform +
                                                      "\", data_format \"" + layout +
                                                      "\": modelled are PyTorch's linear and bicubic (cubic_coeff_a -0.75, "
                                                      "grads NCHW or HWNC) without a region of interest");
  }
  if (aclError s = SameShape(call, "attribute original_size", original)) return s;
  const std::vector<int64_t>& grads = call.inputs[0].desc->dims;
  if (grads.size() != 4 || original.size() != 2 + r.spatial || (linear && grads[2] != 1)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "grads " + ListText(grads) + " and original_size " + ListText(original) +
                                                       (linear ? ": [N, C, 1, W] and [N, C, W] are modelled"
                                                               : ": four dimensions each are modelled"));
  }
  AclnnObjects o(call);
  aclTensor* dx = nullptr;
  if (linear) {
    dx = o.Tensor(call.outputs[0], "y");
    aclTensor* dy = o.Tensor(call.inputs[0], "grads", {grads[0], grads[1], grads[3]});
    if (o.status()) return o.status();
    return Aclnn<Upsample1dBackwardApi>(call, "aclnnUpsampleLinear1dBackward", dy, o.Ints({grads[3]}), o.Ints(original),
                                        r.align, r.Scale(0), dx);
  }
  // In HWNC both grads and y hold their elements in that order (op-plugin transposes y back to
  // NCHW after the call, whatever y's description says): each is viewed as NCHW, dimension i of
  // the view being dimension perm[i] of the data.
  const bool hwnc = layout == "HWNC";
  const std::vector<int64_t> nchw = hwnc ? std::vector<int64_t>{grads[2], grads[3], grads[0], grads[1]} : grads;
  aclTensor* dy = hwnc ? o.Tensor(call.inputs[0], "grads", grads, {2, 3, 0, 1}) : o.Tensor(call.inputs[0], "grads");
  if (hwnc) dx = o.Tensor(call.outputs[0], "y", {original[2], original[3], original[0], original[1]}, {2, 3, 0, 1});
  if (o.status()) return o.status();
  return Aclnn<Upsample2dBackwardApi>(call, "aclnnUpsampleBicubic2dBackward", dy, o.Ints({nchw[2], nchw[3]}),
                                      o.Ints(original), r.align, r.Scale(0), r.Scale(1), dx);
}

}  // namespace

const std::vector<OpEntry>& GradEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = [] {
    const std::vector<AttrSpec> conv = {{"strides", K::kListInt}, {"pads", K::kListInt},     {"dilations", K::kListInt},
                                        {"groups", K::kInt},      {"data_format", K::kString}};
    std::vector<OpEntry> all = {
        {"NLLLossGrad", {{"reduction", K::kString}, {"ignore_index", K::kInt}}, NllLossGrad},
        {"AdaptiveAvgPool2dGrad", {{"orig_input_shape", K::kListInt}}, AdaptiveAvgPool2dGrad},
        {"AvgPoolV2Grad",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"padding_mode", K::kString}, {"pads", K::kListInt},
          {"data_format", K::kString}, {"global_pooling", K::kBool}, {"ceil_mode", K::kBool}, {"exclusive", K::kBool},
          {"divisor_override", K::kInt}},
         AvgPoolV2Grad},
        {"BNTrainingUpdateGrad", {{"epsilon", K::kFloat}}, BnTrainingUpdateGrad},
        {"BNTrainingReduceGrad", {{"epsilon", K::kFloat}}, BnTrainingReduceGrad},
        {"BN3DTrainingUpdateGrad", {{"epsilon", K::kFloat}}, BnTrainingUpdateGrad},
        {"BN3DTrainingReduceGrad", {{"epsilon", K::kFloat}}, BnTrainingReduceGrad},
        {"BNInferGrad", {{"epsilon", K::kFloat}}, BnInferGrad},
        {"PadV3Grad", {{"mode", K::kString}, {"paddings_contiguous", K::kBool}}, PadV3Grad},
        {"EluGradV2", {{"alpha", K::kFloat}, {"scale", K::kFloat}, {"input_scale", K::kFloat}, {"is_result", K::kBool}},
         EluGrad},
        {"Conv2DBackpropInput", conv, Conv2DBackprop},
        {"Conv2DBackpropFilter", conv, Conv2DBackprop},
        {"Conv3DBackpropInput", conv, Conv2DBackprop},
        {"Conv3DBackpropFilter", conv, Conv2DBackprop},
        {"ResizeNearestNeighborV2Grad", {{"align_corners", K::kBool}, {"half_pixel_centers", K::kBool}}, ResizeNearestGrad},
        {"ResizeBilinearV2Grad", {{"align_corners", K::kBool}, {"half_pixel_centers", K::kBool}}, ResizeBilinearGrad},
        // roi and scales arrive as lists of float (the prototype declares roi ListInt); data_format,
        // which the prototype does not declare, says how op-plugin laid grads out.
        {"ResizeGradD",
         {{"original_size", K::kListInt}, {"scales", K::kListFloat}, {"roi", K::kListFloat},
          {"coordinate_transformation_mode", K::kString}, {"cubic_coeff_a", K::kFloat}, {"exclude_outside", K::kInt},
          {"extrapolation_value", K::kFloat}, {"mode", K::kString}, {"nearest_mode", K::kString},
          {"data_format", K::kString}},
         ResizeGradD},
        {"LogSigmoidGrad", {}, LogSigmoidGrad},
        {"HardtanhGrad", {{"min_val", K::kFloat}, {"max_val", K::kFloat}}, HardtanhGrad},
        {"HardSwishGrad", {}, HardSwishGrad},
        {"HardSigmoidGrad", {{"alpha", K::kFloat}, {"beta", K::kFloat}}, HardSigmoidGrad},
        {"ThresholdGradV2D", {{"threshold", K::kFloat}},
         [](const OpCall& c) { return GradWithScalar(c, "aclnnThresholdBackward", "threshold", 0.0f); }},
        {"SoftShrinkGrad", {{"lambd", K::kFloat}},
         [](const OpCall& c) { return GradWithScalar(c, "aclnnSoftshrinkBackward", "lambd", 0.5f); }},
        {"HardShrinkGrad", {{"lambd", K::kFloat}},
         [](const OpCall& c) { return GradWithScalar(c, "aclnnHardshrinkBackward", "lambd", 0.5f); }},
        {"GLUGrad", {{"dim", K::kInt}}, GluGrad},
        {"PReluGrad", {}, PReluGrad},
        {"SoftMarginLossGrad", {{"reduction", K::kString}}, SoftMarginLossGrad},
        {"BinaryCrossEntropyGrad", {{"reduction", K::kString}}, BinaryCrossEntropyGrad},
        {"SigmoidCrossEntropyWithLogitsGradV2", {{"reduction", K::kString}}, SigmoidCrossEntropyWithLogitsGrad},
        {"L1LossGrad", {{"reduction", K::kString}}, PointwiseLossGrad},
        {"SmoothL1LossGradV2", {{"sigma", K::kFloat}, {"reduction", K::kString}}, PointwiseLossGrad},
        {"MseLossGrad", {{"reduction", K::kString}}, PointwiseLossGrad},
        {"KlDivLossGrad", {{"reduction", K::kString}, {"log_target", K::kBool}}, PointwiseLossGrad},
        {"SoftplusV2Grad", {{"beta", K::kFloat}, {"threshold", K::kFloat}}, SoftplusGrad},
        {"EmbeddingDenseGrad", {{"num_weights", K::kInt}, {"padding_idx", K::kInt}, {"scale_grad_by_freq", K::kBool}},
         EmbeddingDenseGrad},
        {"GridSampler2DGrad", {{"interpolation_mode", K::kString}, {"padding_mode", K::kString}, {"align_corners", K::kBool}},
         GridSamplerGrad},
        {"CTCLossV2Grad", {{"blank", K::kInt}, {"zero_infinity", K::kBool}}, CtcLossGrad},
        {"GridSampler3DGrad", {{"interpolation_mode", K::kString}, {"padding_mode", K::kString}, {"align_corners", K::kBool}},
         GridSamplerGrad},
    };
    // Their aclop kernels exist on every chip that runs aclop (as their forward operators').
    for (OpEntry& entry : all) entry.every_chip = true;
    return all;
  }();
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnHardswishBackward, GradApi);
ACLOP_SAME(aclnnAdaptiveAvgPool2dBackward, GradApi);
ACLOP_SAME(aclnnThresholdBackward, GradScalarApi);
ACLOP_SAME(aclnnSoftshrinkBackward, GradScalarApi);
ACLOP_SAME(aclnnHardtanhBackward, GradTwoScalarsApi);
ACLOP_SAME(aclnnLogSigmoidBackward, LogSigmoidBackwardApi);
ACLOP_SAME(aclnnEluBackward, EluBackwardApi);
ACLOP_SAME(aclnnGluBackward, GluBackwardApi);
ACLOP_SAME(aclnnPreluBackward, PreluBackwardApi);
ACLOP_SAME(aclnnNLLLossBackward, NllLossBackwardApi);
ACLOP_SAME(aclnnSoftMarginLossBackward, LossBackwardApi);
ACLOP_SAME(aclnnBinaryCrossEntropyBackward, BceBackwardApi);
ACLOP_SAME(aclnnBinaryCrossEntropyWithLogitsBackward, BceWithLogitsBackwardApi);
ACLOP_SAME(aclnnAvgPool2dBackward, AvgPool2dBackwardApi);
ACLOP_SAME(aclnnReflectionPad2dBackward, PadBackwardApi);
ACLOP_SAME(aclnnBatchNormBackward, BatchNormBackwardApi);
ACLOP_SAME(aclnnBatchNormElemtBackward, BatchNormElemtBackwardApi);
ACLOP_SAME(aclnnConvolutionBackward, ConvolutionBackwardApi);
ACLOP_SAME(aclnnUpsampleNearest2dBackward, UpsampleNearest2dBackwardApi);
ACLOP_SAME(aclnnUpsampleBilinear2dBackward, Upsample2dBackwardApi);
ACLOP_SAME(aclnnUpsampleBicubic2dBackward, Upsample2dBackwardApi);
ACLOP_SAME(aclnnUpsampleLinear1dBackward, Upsample1dBackwardApi);
ACLOP_SAME(aclnnL1LossBackward, LossBackwardApi);
ACLOP_SAME(aclnnMseLossBackward, LossBackwardApi);
ACLOP_SAME(aclnnSmoothL1LossBackward, LossWithBetaBackwardApi);
ACLOP_SAME(aclnnKlDivBackward, KlDivBackwardApi);
ACLOP_SAME(aclnnSoftplusBackward, GradTwoScalarsApi);
ACLOP_SAME(aclnnEmbeddingDenseBackward, EmbeddingDenseBackwardApi);
ACLOP_SAME(aclnnGridSampler2DBackward, GridSamplerBackwardApi);
ACLOP_SAME(aclnnCtcLossBackward, CtcLossBackwardApi);
ACLOP_SAME(aclnnGridSampler3DBackward, GridSamplerBackwardApi);
ACLOP_SAME(aclnnAdds, AddsApi);
ACLOP_SAME(aclnnRsqrt, UnaryApi);
ACLOP_SAME(aclnnDiv, BinaryApi);
ACLOP_SAME(aclnnInplaceFillScalar, InplaceFillScalarApi);
ACLOP_SAME(aclnnMul, BinaryApi);
