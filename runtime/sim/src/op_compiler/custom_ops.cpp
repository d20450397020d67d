// The aclop bridge's operators behind torch_npu's own operators that have an aclnn API of the same
// operation: op-plugin 2.13 still runs them by type name (acl_op in its yaml), and each runs here
// as that API, so it computes what the API's page documents and refuses what the API refuses.
//   SignBitsPack                   npu_sign_bits_pack                       aclnnSignBitsPack
//   SignBitsUnpack                 npu_sign_bits_unpack                     aclnnSignBitsUnpack
//   SoftmaxCrossEntropyWithLogits  npu_softmax_cross_entropy_with_logits    aclnnSoftmaxCrossEntropyWithLogits
//                                  (and its backward, which scales backprop by the incoming gradient)
//   Quantize                       npu_quantize (Ascend910: ops-nn's Quantize  aclnnQuantize
//                                  README lists that chip, the API's page does not)
//   RmsNorm, RmsNormGrad,          npu_rms_norm, its backward, npu_add_rms_norm, aclnnRmsNorm, aclnnRmsNormGrad,
//   AddRmsNorm, AddLayerNorm,      npu_add_layer_norm, npu_deep_norm              aclnnAddRmsNorm, aclnnAddLayerNorm,
//   DeepNorm                       (Ascend310P; their READMEs list it, not       aclnnDeepNorm
//                                  Ascend910 or Ascend310B, which are refused)
//   ApplyAdamW                     npu_apply_adam_w (out=; its README lists      aclnnApplyAdamW
//                                  Atlas A2, the API's page does not)
// and those whose API refuses the chip op-plugin sends them on, as host kernels (host_kernel.h):
//   ApplyAdamD                     npu_apply_adam (Atlas A2)                the formula of aclnnApplyAdam's page
// and the byte-mask dropout operators no aclnn API computes (DropOutGenMaskV3, ops.cpp, draws the
// masks: one UINT8 per element, nonzero kept):
//   DropOutDoMaskV3                _dropout_with_byte_mask, dropout_with_byte_mask
//   AxpyWithSoftmaxAndDropOutDoMask  npu_dropout_with_add_softmax
//   DropoutWithMulsAndSoftmaxGrad  its backward
// and NPUAllocFloatStatus (npu_alloc_float_status: eight zeros), and the fused attention's
// projection gradients, as aclnnMatmul, aclnnInplaceAdd and aclnnReduceSum:
//   AttentionQKVGradX, AttentionQKVGradW  npu_fused_attention_qkv_grad
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"
#include "op_compiler/prototype_check.h"

namespace aclsim::aclop {

namespace {

// The phase-1 types of the APIs called, written out as ops.cpp's are (libopapi is looked up by
// name) and checked against the generated prototypes at the end of this file.
template <typename... Params>
using Phase1 = aclnnStatus (*)(Params..., uint64_t*, aclOpExecutor**);
using SignBitsPackApi = Phase1<const aclTensor*, int64_t, aclTensor*>;
using SignBitsUnpackApi = Phase1<const aclTensor*, int64_t, aclDataType, aclTensor*>;
using SoftmaxCrossEntropyWithLogitsApi = Phase1<const aclTensor*, aclTensor*, aclTensor*, aclTensor*>;
using QuantizeApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclDataType, int32_t, aclTensor*>;
// (aclnnRmsNorm's and aclnnRmsNormGrad's pages declare their outputs const.)
using RmsNormApi = Phase1<const aclTensor*, const aclTensor*, double, const aclTensor*, const aclTensor*>;
using RmsNormGradApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                              const aclTensor*>;
using AddRmsNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, double, aclTensor*, aclTensor*, aclTensor*>;
using AddLayerNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, double, bool,
                               const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*>;
using DeepNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, double, double, const aclTensor*,
                           const aclTensor*, const aclTensor*>;
using CastApi = Phase1<const aclTensor*, aclDataType, aclTensor*>;
using MatmulApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*, int8_t>;
using InplaceAddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*>;
using ReduceSumApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclDataType, aclTensor*>;
using InplaceCopyApi = Phase1<aclTensor*, const aclTensor*>;
using ApplyAdamWApi = Phase1<aclTensor*, aclTensor*, aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                             const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                             const aclTensor*, bool, bool>;
// tokenX, the four weights, the two gammas, sin, cos, cacheIndex, the two caches (updated in place),
// the seven optional quantisation tensors, the two epsilons, cacheMode, queryOut, queryRopeOut.
using MlaPrologApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                            const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                            const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*,
                            const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, double, double, char*,
                            const aclTensor*, const aclTensor*>;

// SignBitsPack: x (float, 1-D) -> y [size, -1] (uint8), the attribute size.
aclError SignBitsPack(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<SignBitsPackApi>(call, "aclnnSignBitsPack", x, call.Int("size", 1), y);
}

// SignBitsUnpack: x (uint8, 1-D) -> y [size, -1] of the attribute dtype (an aclDataType, as
// op-plugin sets it: 0 FLOAT, 1 FLOAT16).
aclError SignBitsUnpack(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  if (!call.Has("dtype")) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute dtype is required (the output's dtype)");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<SignBitsUnpackApi>(call, "aclnnSignBitsUnpack", x, call.Int("size", 1),
                                  static_cast<aclDataType>(call.Int("dtype", ACL_FLOAT)), y);
}

// SoftmaxCrossEntropyWithLogits: features, labels [N, C] -> loss [N], backprop [N, C].
aclError SoftmaxCrossEntropyWithLogits(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 2)) return s;
  AclnnObjects o(call);
  aclTensor* features = o.Tensor(call.inputs[0], "features");
  aclTensor* labels = o.Tensor(call.inputs[1], "labels");
  aclTensor* loss = o.Tensor(call.outputs[0], "loss");
  aclTensor* backprop = o.Tensor(call.outputs[1], "backprop");
  if (o.status()) return o.status();
  return Aclnn<SoftmaxCrossEntropyWithLogitsApi>(call, "aclnnSoftmaxCrossEntropyWithLogits", features, labels, loss,
                                                 backprop);
}

// Quantize: x, scales and optional zero_points -> y = round(x / scales + zero_points) in the
// attribute dtype (a torch dtype's name, as op-plugin sets it), scales and zero_points one value per
// element of x's dimension `axis` (op-plugin shapes them [1, ..., C]) or one in all: aclnnQuantize,
// which takes them 1-D with a negative axis.
aclError Quantize(const OpCall& call) {
  if (aclError s = call.Arity(2, 3, 1)) return s;
  static const std::pair<const char*, aclDataType> kDtypes[] = {
      {"torch.qint8", ACL_INT8}, {"torch.quint8", ACL_UINT8}, {"torch.qint32", ACL_INT32}};
  const std::string name = call.String("dtype", "");
  auto dtype = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const auto& d) { return name == d.first; });
  if (dtype == std::end(kDtypes)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute dtype = \"" + name + "\" is not modelled (torch.qint8, torch.quint8, "
                                                  "torch.qint32)");
  }
  if (call.outputs[0].desc->dtype != dtype->second) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute dtype = \"" + name + "\" is not y's " + DTypeName(call.outputs[0].desc->dtype));
  }
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(dims.size()), axis = call.Int("axis", 1);
  if (axis < -rank || axis >= rank) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute axis = " + std::to_string(axis) + " is out of range for x " + ListText(dims));
  }
  const size_t at = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  // A parameter's values as aclnnQuantize's 1-D tensor: one in all, or one per element along axis.
  auto flat = [&](const Operand& operand, std::vector<int64_t>* shape) -> bool {
    const std::vector<int64_t>& p = operand.desc->dims;
    const int64_t count = Elements(p);
    *shape = {count};
    if (count == 1) return true;
    if (count != dims[at] || p.size() > dims.size()) return false;
    // Its one dimension of extent C lines up with x's axis, counted from the end.
    const size_t from_end = dims.size() - 1 - at;
    return p.size() > from_end && p[p.size() - 1 - from_end] == count;
  };
  AclnnObjects o(call);
  std::vector<int64_t> scale_shape, zero_shape;
  if (!flat(call.inputs[1], &scale_shape)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "scales " + ListText(call.inputs[1].desc->dims) + " is not one value, or one per element of x " +
                                                       ListText(dims) + " along axis " + std::to_string(axis));
  }
  const bool zero = call.inputs.size() == 3 && !Absent(call.inputs[2]);
  if (zero && !flat(call.inputs[2], &zero_shape)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "zero_points " + ListText(call.inputs[2].desc->dims) + " is not one value, or one per element of x " +
                                                       ListText(dims) + " along axis " + std::to_string(axis));
  }
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* scales = o.Tensor(call.inputs[1], "scales", scale_shape);
  aclTensor* zero_points = zero ? o.Tensor(call.inputs[2], "zero_points", zero_shape) : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<QuantizeApi>(call, "aclnnQuantize", x, scales, zero_points, dtype->second, static_cast<int32_t>(at) - static_cast<int32_t>(rank), y);
}

constexpr const char* kRmsNormReadme = "ops-nn's norm READMEs (rms_norm, rms_norm_grad, add_rms_norm)";
constexpr const char* kLayerNormReadme = "ops-nn's add_layer_norm and deep_norm READMEs";

// The call's inputs then outputs as aclnn tensors, named in that order (check o.status()).
std::vector<aclTensor*> InputsThenOutputs(AclnnObjects& o, const OpCall& call, std::initializer_list<const char*> names) {
  std::vector<aclTensor*> tensors;
  auto name = names.begin();
  for (const std::vector<Operand>* operands : {&call.inputs, &call.outputs}) {
    for (const Operand& operand : *operands) tensors.push_back(o.Tensor(operand, *name++));
  }
  return tensors;
}

// RmsNorm (x, gamma; epsilon) -> y, rstd.
aclError RmsNorm(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 2)) return s;
  if (aclError s = OnReadmeChips(call, kRmsNormReadme, {Soc::kAscend910, Soc::kAscend310B})) return s;
  AclnnObjects o(call);
  const std::vector<aclTensor*> t = InputsThenOutputs(o, call, {"x", "gamma", "y", "rstd"});
  if (o.status()) return o.status();
  return Aclnn<RmsNormApi>(call, "aclnnRmsNorm", t[0], t[1], static_cast<double>(call.Float("epsilon", 1e-6f)), t[2], t[3]);
}

// RmsNormGrad (dy, x, rstd, gamma) -> dx, dgamma.
aclError RmsNormGrad(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 2)) return s;
  if (aclError s = OnReadmeChips(call, kRmsNormReadme, {Soc::kAscend910, Soc::kAscend310B})) return s;
  AclnnObjects o(call);
  const std::vector<aclTensor*> t = InputsThenOutputs(o, call, {"dy", "x", "rstd", "gamma", "dx", "dgamma"});
  if (o.status()) return o.status();
  return Aclnn<RmsNormGradApi>(call, "aclnnRmsNormGrad", t[0], t[1], t[2], t[3], t[4], t[5]);
}

// AddRmsNorm (x1, x2, gamma; epsilon) -> y, rstd, x (= x1 + x2).
aclError AddRmsNorm(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 3)) return s;
  if (aclError s = OnReadmeChips(call, kRmsNormReadme, {Soc::kAscend910, Soc::kAscend310B})) return s;
  AclnnObjects o(call);
  const std::vector<aclTensor*> t = InputsThenOutputs(o, call, {"x1", "x2", "gamma", "y", "rstd", "x"});
  if (o.status()) return o.status();
  return Aclnn<AddRmsNormApi>(call, "aclnnAddRmsNorm", t[0], t[1], t[2], static_cast<double>(call.Float("epsilon", 1e-6f)), t[3],
                              t[4], t[5]);
}

// AddLayerNorm (x1, x2, gamma, beta and an optional bias; epsilon, additional_output) -> y, mean,
// rstd, x (= x1 + x2 (+ bias)).
aclError AddLayerNorm(const OpCall& call) {
  if (aclError s = call.Arity(4, 5, 4)) return s;
  if (aclError s = OnReadmeChips(call, kLayerNormReadme, {Soc::kAscend910, Soc::kAscend310B})) return s;
  AclnnObjects o(call);
  const bool bias = call.inputs.size() == 5 && !Absent(call.inputs[4]);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* gamma = o.Tensor(call.inputs[2], "gamma");
  aclTensor* beta = o.Tensor(call.inputs[3], "beta");
  aclTensor* bias_tensor = bias ? o.Tensor(call.inputs[4], "bias") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* mean = o.Tensor(call.outputs[1], "mean");
  aclTensor* rstd = o.Tensor(call.outputs[2], "rstd");
  aclTensor* x = o.Tensor(call.outputs[3], "x");
  if (o.status()) return o.status();
  return Aclnn<AddLayerNormApi>(call, "aclnnAddLayerNorm", x1, x2, gamma, beta, bias_tensor,
                                static_cast<double>(call.Float("epsilon", 1e-5f)), call.Bool("additional_output", false), y, mean,
                                rstd, x);
}

// DeepNorm (x, gx, beta, gamma; alpha, epsilon) -> mean, rstd, y = LayerNorm(x * alpha + gx).
aclError DeepNorm(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 3)) return s;
  if (aclError s = OnReadmeChips(call, kLayerNormReadme, {Soc::kAscend910, Soc::kAscend310B})) return s;
  // No prototype on hand gives alpha's default: a call without it is refused.
  if (!call.Has("alpha")) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute alpha is not set");
  AclnnObjects o(call);
  const std::vector<aclTensor*> t = InputsThenOutputs(o, call, {"x", "gx", "beta", "gamma", "mean", "rstd", "y"});
  if (o.status()) return o.status();
  return Aclnn<DeepNormApi>(call, "aclnnDeepNorm", t[0], t[1], t[2], t[3], static_cast<double>(call.Float("alpha", 0.0f)),
                            static_cast<double>(call.Float("epsilon", 1e-6f)), t[4], t[5], t[6]);
}

// ApplyAdamD: TensorFlow's ApplyAdam, the formula of aclnnApplyAdam's page, as a host kernel:
// aclnnApplyAdam's page marks Atlas A2 unsupported, where op-plugin sends this aclop type instead.
// Inputs var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon (one-element host tensors,
// op-plugin's 0-d ones), grad; outputs var, m, v (op-plugin's are the inputs themselves):
//   m' = m + (1 - beta1) (g - m),  v' = v + (1 - beta2) (g^2 - v),
//   lr_t = lr sqrt(1 - beta2_power) / (1 - beta1_power),
//   var' = var - lr_t m' / (sqrt(v') + epsilon), or with use_nesterov
//   var' = var - lr_t (beta1 m' + (1 - beta1) g) / (sqrt(v') + epsilon).
// use_locking changes nothing in one process's stream order.
aclError ApplyAdamD(const OpCall& call) {
  if (aclError s = call.Arity(10, 10, 3)) return s;
  static const char* const kScalars[] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
  double h[6];
  for (size_t i = 0; i < 6; ++i) {
    if (aclError s = call.ConstFloat(3 + i, kScalars[i], &h[i])) return s;
  }
  static const char* const kStates[] = {"var", "m", "v"};
  Floats in[3], out[3], grad;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  for (size_t i = 0; i < 3; ++i) {
    if (aclError s = FloatsOf(call, call.inputs[i], kStates[i], &in[i])) return s;
    if (aclError s = FloatsOf(call, call.outputs[i], kStates[i], &out[i])) return s;
    if (aclError s = Shape(call, call.inputs[i], kStates[i], dims)) return s;
    if (aclError s = Shape(call, call.outputs[i], kStates[i], dims)) return s;
  }
  if (aclError s = FloatsOf(call, call.inputs[9], "grad", &grad)) return s;
  if (aclError s = Shape(call, call.inputs[9], "grad", dims)) return s;
  const bool nesterov = call.Bool("use_nesterov", false);
  const int64_t n = Elements(dims);
  const float beta1 = static_cast<float>(h[3]), beta2 = static_cast<float>(h[4]), eps = static_cast<float>(h[5]);
  const float lr_t = static_cast<float>(h[2] * std::sqrt(1 - h[1]) / (1 - h[0]));
  return Launch(call, [=] {
    for (int64_t i = 0; i < n; ++i) {
      const float g = grad[i];
      const float m = in[1][i] + (1 - beta1) * (g - in[1][i]);
      const float v = in[2][i] + (1 - beta2) * (g * g - in[2][i]);
      const float step = nesterov ? beta1 * m + (1 - beta1) * g : m;
      out[0].Set(i, in[0][i] - lr_t * step / (std::sqrt(v) + eps));
      out[1].Set(i, m);
      out[2].Set(i, v);
    }
  });
}

// ApplyAdamW: npu_apply_adam_w(..., out=(var, m, v)) where op-plugin runs aclop (every chip but an
// aclnn-only one). Inputs var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon
// (one-element host tensors), grad, max_grad_norm (absent without amsgrad); outputs var, m, v
// (op-plugin's are the inputs themselves); attributes amsgrad, maximize: aclnnApplyAdamW, on the chips
// ops-nn's apply_adam_w README lists (its page leaves out Atlas A2, where op-plugin sends this type).
constexpr const char* kApplyAdamWReadme = "ops-nn's apply_adam_w README";

aclError ApplyAdamW(const OpCall& call) {
  if (aclError s = call.Arity(11, 12, 3)) return s;
  if (aclError s = OnReadmeChips(call, kApplyAdamWReadme, {Soc::kAscend310B})) return s;
  static const char* const kInputs[] = {"var", "m", "v", "beta1_power", "beta2_power", "lr", "weight_decay",
                                        "beta1", "beta2", "epsilon", "grad", "max_grad_norm"};
  AclnnObjects o(call);
  aclTensor* in[12] = {};
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (!Absent(call.inputs[i])) in[i] = o.Tensor(call.inputs[i], kInputs[i]);
  }
  aclTensor* states[3] = {o.Tensor(call.outputs[0], "var"), o.Tensor(call.outputs[1], "m"), o.Tensor(call.outputs[2], "v")};
  if (o.status()) return o.status();
  for (size_t c = 0; c < 3; ++c) {  // updated in place: outputs apart from their inputs start as copies of them
    if (call.outputs[c].buffer->data == call.inputs[c].buffer->data) continue;
    if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", states[c], in[c])) return s;
  }
  return Aclnn<ApplyAdamWApi>(call, "aclnnApplyAdamW", states[0], states[1], states[2], in[3], in[4], in[5], in[6], in[7],
                              in[8], in[9], in[10], in[11], call.Bool("amsgrad", false), call.Bool("maximize", false));
}

// A byte mask of one UINT8 (or BOOL) per element of `elements` (padded as DropOutGenMaskV3's may
// be): its data, or the call's failure.
aclError ByteMask(const OpCall& call, const Operand& operand, int64_t elements, const uint8_t** mask) {
  const aclDataType dtype = operand.desc->dtype;
  if (dtype != ACL_UINT8 && dtype != ACL_BOOL) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("mask of dtype ") + DTypeName(dtype) + " (UINT8 or BOOL, a byte per element)");
  }
  if (!ByteMaskLength(Elements(operand.desc->dims), elements) || static_cast<size_t>(elements) > operand.buffer->size) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "mask " + ListText(operand.desc->dims) + " does not hold one byte per element (" +
                                                       std::to_string(elements) + ")");
  }
  *mask = static_cast<const uint8_t*>(operand.buffer->data);
  return ACL_SUCCESS;
}

// The prototypes' required attributes alpha and input_keep_prob.
aclError RequiredAttributes(const OpCall& call) {
  for (const char* name : {"alpha", "input_keep_prob"}) {
    if (!call.Has(name)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("the required attribute ") + name + " is not set");
  }
  return ACL_SUCCESS;
}

// A keep probability in [0, 1]: the attribute or host input op-plugin sets to 1 - p. At 0 (p = 1)
// every element is dropped and the scale 1 / keep is never applied.
aclError KeepProbability(const OpCall& call, double keep) {
  if (keep >= 0 && keep <= 1) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "keep probability " + std::to_string(keep) + " is outside [0, 1]");
}

// The softmax axis of the attribute `name` (one axis, negative counted from the end) as the
// outer, axis and inner extents of `dims`.
struct SoftmaxAxis {
  int64_t outer = 1, extent = 1, inner = 1;
};
aclError ReadSoftmaxAxis(const OpCall& call, const char* name, const std::vector<int64_t>& dims, SoftmaxAxis* axis) {
  const std::vector<int64_t> axes = call.Ints(name, {-1});
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axes.size() != 1 || axes[0] < -rank || axes[0] >= rank) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + name + " = " + ListText(axes) +
                                                      " is not one axis of " + ListText(dims) + " (one is modelled)");
  }
  const int64_t a = axes[0] < 0 ? axes[0] + rank : axes[0];
  for (int64_t d = 0; d < rank; ++d) (d < a ? axis->outer : d == a ? axis->extent : axis->inner) *= dims[static_cast<size_t>(d)];
  return ACL_SUCCESS;
}

// DropOutDoMaskV3: x, its byte mask and keep_prob (a host scalar) -> y = x / keep_prob where the
// mask is nonzero, 0 where it is 0 (DropOutDoMask's, with a byte per element).
aclError DropOutDoMaskV3(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  double keep = 0;
  if (aclError s = call.ConstFloat(2, "keep_prob", &keep)) return s;
  if (aclError s = KeepProbability(call, keep)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  std::vector<Floats> f;
  if (aclError s = SameShapeFloats(call, {&call.inputs[0], &call.outputs[0]}, {"x", "y"}, dims, &f)) return s;
  const int64_t n = Elements(dims);
  const uint8_t* mask = nullptr;
  if (aclError s = ByteMask(call, call.inputs[1], n, &mask)) return s;
  const float scale = keep > 0 ? static_cast<float>(1 / keep) : 0.0f;
  return Launch(call, [=] {
    for (int64_t i = 0; i < n; ++i) f[1].Set(i, mask[i] ? f[0][i] * scale : 0.0f);
  });
}

// What AxpyWithSoftmaxAndDropOutDoMask and its gradient read alike: the required attributes alpha
// and input_keep_prob, their float operands (each of the first's shape), the softmax axis of the
// attribute `axis_attribute`, the byte mask (input `mask_input`); a row's elements are
// first + k * axis.inner for k below axis.extent, ForEachRow giving each row's first.
struct MaskedSoftmax {
  std::vector<Floats> f;
  SoftmaxAxis axis;
  const uint8_t* mask = nullptr;
  float alpha = 1, scale = 0;

  template <typename Row>
  void ForEachRow(Row row) const {
    for (int64_t o = 0; o < axis.outer; ++o) {
      for (int64_t in = 0; in < axis.inner; ++in) row(o * axis.extent * axis.inner + in);
    }
  }
};
aclError ReadMaskedSoftmax(const OpCall& call, const std::vector<const Operand*>& operands, const std::vector<const char*>& names,
                           size_t mask_input, const char* axis_attribute, MaskedSoftmax* m) {
  if (aclError s = RequiredAttributes(call)) return s;
  const double keep = call.Float("input_keep_prob", 1.0f);
  if (aclError s = KeepProbability(call, keep)) return s;
  const std::vector<int64_t>& dims = operands[0]->desc->dims;
  if (aclError s = SameShapeFloats(call, operands, names, dims, &m->f)) return s;
  if (aclError s = ReadSoftmaxAxis(call, axis_attribute, dims, &m->axis)) return s;
  if (aclError s = ByteMask(call, call.inputs[mask_input], Elements(dims), &m->mask)) return s;
  m->alpha = call.Float("alpha", 1.0f);
  m->scale = keep > 0 ? static_cast<float>(1 / keep) : 0.0f;
  return ACL_SUCCESS;
}

// AxpyWithSoftmaxAndDropOutDoMask: x1, x2 and a byte mask -> y1 = softmax(x1 + alpha * x2) along
// `axis` (Axpy's x1 + alpha * x2), y2 = y1 dropped by the mask and scaled by 1 / input_keep_prob:
// npu_dropout_with_add_softmax(self, x1, alpha, prob, dim), which torch_npu's own fallback
// (contrib/function/fuse_add_softmax_dropout.py) writes as torch.add(x1, self, alpha=alpha),
// softmax, dropout; op-plugin passes its x1 as x1 and self as x2.
aclError AxpyWithSoftmaxAndDropOutDoMask(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  MaskedSoftmax m;
  if (aclError s = ReadMaskedSoftmax(call, {&call.inputs[0], &call.inputs[1], &call.outputs[0], &call.outputs[1]},
                                     {"x1", "x2", "y1", "y2"}, 2, "axis", &m)) {
    return s;
  }
  return Launch(call, [m] {
    std::vector<float> row(static_cast<size_t>(m.axis.extent));
    m.ForEachRow([&](int64_t first) {
      float top = -INFINITY;
      for (int64_t k = 0; k < m.axis.extent; ++k) {
        const int64_t i = first + k * m.axis.inner;
        row[static_cast<size_t>(k)] = m.f[0][i] + m.alpha * m.f[1][i];
        top = std::max(top, row[static_cast<size_t>(k)]);
      }
      double sum = 0;
      for (float& v : row) sum += (v = std::exp(v - top));
      for (int64_t k = 0; k < m.axis.extent; ++k) {
        const int64_t i = first + k * m.axis.inner;
        const float softmax = static_cast<float>(row[static_cast<size_t>(k)] / sum);
        m.f[2].Set(i, softmax);
        m.f[3].Set(i, m.mask[i] ? softmax * m.scale : 0.0f);
      }
    });
  });
}

// DropoutWithMulsAndSoftmaxGrad: y_grad (of y2), the forward's mask and softmax_output (y1) ->
// x_grad, the gradient of AxpyWithSoftmaxAndDropOutDoMask's y2 with respect to x2 (the operand
// alpha multiplies, torch_npu's self): g = y_grad masked and scaled by 1 / input_keep_prob,
// x_grad = alpha * s * (g - sum(g * s)) along `axes` (softmax's derivative, times alpha).
aclError DropoutWithMulsAndSoftmaxGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  MaskedSoftmax m;
  if (aclError s = ReadMaskedSoftmax(call, {&call.inputs[0], &call.inputs[2], &call.outputs[0]},
                                     {"y_grad", "softmax_output", "x_grad"}, 1, "axes", &m)) {
    return s;
  }
  return Launch(call, [m] {
    std::vector<float> g(static_cast<size_t>(m.axis.extent));
    m.ForEachRow([&](int64_t first) {
      double dot = 0;
      for (int64_t k = 0; k < m.axis.extent; ++k) {
        const int64_t i = first + k * m.axis.inner;
        g[static_cast<size_t>(k)] = m.mask[i] ? m.f[0][i] * m.scale : 0.0f;
        dot += static_cast<double>(g[static_cast<size_t>(k)]) * m.f[1][i];
      }
      for (int64_t k = 0; k < m.axis.extent; ++k) {
        const int64_t i = first + k * m.axis.inner;
        m.f[2].Set(i, m.alpha * m.f[1][i] * static_cast<float>(g[static_cast<size_t>(k)] - dot));
      }
    });
  });
}

// NPUAllocFloatStatus (npu_alloc_float_status): the buffer the float-status operators read the
// device's overflow register into, "a 1-D tensor of 8 zeros" (torch_npu's docstring): zeros. Those
// operators themselves stay refused (bridge.cpp's Undocumented): the simulator keeps no register.
aclError NpuAllocFloatStatus(const OpCall& call) {
  if (aclError s = call.Arity(0, 0, 1)) return s;
  Floats status;
  if (aclError s = FloatsOf(call, call.outputs[0], "float_status", &status)) return s;
  if (aclError s = Shape(call, call.outputs[0], "float_status", {8})) return s;
  return Launch(call, [status] {
    for (int64_t i = 0; i < 8; ++i) status.Set(i, 0.0f);
  });
}

// --- the fused attention's projection gradients ------------------------------------------------
// AttentionQKVGradX and AttentionQKVGradW (npu_fused_attention_qkv_grad) are the backward of the
// three projections y_i = x kernel_i + bias_i of torch_npu's contrib fused attention, whose forward
// computes each as npu_linear(x, kernel_i.t(), bias_i): dx = ln_dx + sum_i dy_i kernel_i^T (GradX's
// trans_b), dw_i = x^T dy_i (GradW's trans_a), dbias_i = the sum of dy_i's rows. Their prototypes
// take float16 only; the products and sums run on aclnnMatmul, aclnnInplaceAdd and aclnnReduceSum in
// float32, each output rounded once, as a kernel accumulating in float32 would. Other transposes are
// refused naming them, and so are projections that are not square (N != H: torch_npu sizes dbias by
// the kernel's first dimension, H, where the bias of x kernel + bias has N; the contrib's are
// square, 1024 or 768).

// A float32 copy of `operand` (seen through `perm`, a transposed view, when given), owned by `o`.
aclError FloatCopy(const OpCall& call, AclnnObjects& o, const Operand& operand, const char* what, aclTensor** copy,
                   const std::vector<int64_t>& perm = {}) {
  const std::vector<int64_t>& dims = operand.desc->dims;
  std::vector<int64_t> seen = dims;
  for (size_t i = 0; i < perm.size() && perm.size() == dims.size(); ++i) seen[i] = dims[static_cast<size_t>(perm[i])];
  aclTensor* given = o.Tensor(operand, what, dims, perm);
  *copy = o.Scratch(ACL_FLOAT, seen);
  if (o.status()) return o.status();
  return Aclnn<CastApi>(call, "aclnnCast", given, ACL_FLOAT, *copy);
}

// The attributes of a projection gradient: only the transposes its prototype defaults to; and its
// operands: float16 only, as its prototype (an absent optional input aside).
aclError CheckProjectionGradient(const OpCall& call, std::initializer_list<std::pair<const char*, bool>> defaults) {
  for (const std::vector<Operand>* operands : {&call.inputs, &call.outputs}) {
    for (const Operand& operand : *operands) {
      if (!Absent(operand) && operand.desc->dtype != ACL_FLOAT16) {
        return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("an operand of dtype ") + DTypeName(operand.desc->dtype) +
                                                              " (its prototype takes FLOAT16 only)");
      }
    }
  }
  for (const auto& [name, value] : defaults) {
    if (call.Bool(name, value) != value) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + name + " = " + (value ? "false" : "true") +
                                                        " is not modelled (" + (value ? "true" : "false") + ")");
    }
  }
  return ACL_SUCCESS;
}

// AttentionQKVGradX (ln_dx optional, query_dx, key_dw, value_dw [M, H], kernel_query, kernel_key,
// kernel_value [H, H]) -> dx [M, H].
aclError AttentionQkvGradX(const OpCall& call) {
  if (aclError s = call.Arity(7, 7, 1)) return s;
  if (aclError s = CheckProjectionGradient(call, {{"trans_a", false}, {"trans_b", true}})) return s;
  const std::vector<int64_t>& dx_dims = call.outputs[0].desc->dims;
  if (dx_dims.size() != 2) return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "dx " + ListText(dx_dims) + " is not [M, H]");
  for (int i = 0; i < 3; ++i) {
    const std::vector<int64_t>& dy = call.inputs[1 + i].desc->dims;
    const std::vector<int64_t>& kernel = call.inputs[4 + i].desc->dims;
    if (dy != dx_dims || kernel != std::vector<int64_t>{dx_dims[1], dx_dims[1]}) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "gradient " + ListText(dy) + " and kernel " + ListText(kernel) +
                                                         " are not [M, H] and [H, H] for dx " + ListText(dx_dims) +
                                                         " (a projection that is not square is not modelled)");
    }
  }
  const bool with_ln = !Absent(call.inputs[0]);
  if (with_ln) {
    if (aclError s = Shape(call, call.inputs[0], "ln_dx", dx_dims)) return s;
  }
  AclnnObjects o(call);
  aclTensor* sum = o.Scratch(ACL_FLOAT, dx_dims);
  aclTensor* term = o.Scratch(ACL_FLOAT, dx_dims);
  if (o.status()) return o.status();
  static const char* const kGradients[] = {"query_dx", "key_dw", "value_dw"};
  static const char* const kKernels[] = {"kernel_query", "kernel_key", "kernel_value"};
  for (int i = 0; i < 3; ++i) {
    aclTensor *dy = nullptr, *kernel_t = nullptr;
    if (aclError s = FloatCopy(call, o, call.inputs[1 + i], kGradients[i], &dy)) return s;
    if (aclError s = FloatCopy(call, o, call.inputs[4 + i], kKernels[i], &kernel_t, {1, 0})) return s;
    if (aclError s = Aclnn<MatmulApi>(call, "aclnnMatmul", dy, kernel_t, i == 0 ? sum : term, int8_t{0})) return s;
    if (i > 0) {
      if (aclError s = Aclnn<InplaceAddApi>(call, "aclnnInplaceAdd", sum, term, o.Scalar(1.0, ACL_FLOAT))) return s;
    }
  }
  if (with_ln) {
    aclTensor* ln = nullptr;
    if (aclError s = FloatCopy(call, o, call.inputs[0], "ln_dx", &ln)) return s;
    if (aclError s = Aclnn<InplaceAddApi>(call, "aclnnInplaceAdd", sum, ln, o.Scalar(1.0, ACL_FLOAT))) return s;
  }
  aclTensor* dx = o.Tensor(call.outputs[0], "dx");
  if (o.status()) return o.status();
  return Aclnn<CastApi>(call, "aclnnCast", sum, call.outputs[0].desc->dtype, dx);
}

// AttentionQKVGradW (x [M, H], query_dx, key_dw, value_dw [M, H]) -> dw_query, dw_key, dw_value
// [H, H], dbias_query, dbias_key, dbias_value [H].
aclError AttentionQkvGradW(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 6)) return s;
  if (aclError s = CheckProjectionGradient(call, {{"trans_a", true}, {"trans_b", false}, {"trans_dw", false}})) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.size() != 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not [M, H]");
  AclnnObjects o(call);
  aclTensor* x_t = nullptr;
  if (aclError s = FloatCopy(call, o, call.inputs[0], "x", &x_t, {1, 0})) return s;
  static const char* const kGradients[] = {"query_dx", "key_dw", "value_dw"};
  for (int i = 0; i < 3; ++i) {
    const Operand& gradient = call.inputs[1 + i];
    if (Absent(gradient)) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(kGradients[i]) + " absent is not modelled");
    const std::vector<int64_t>& dy_dims = gradient.desc->dims;
    if (dy_dims.size() != 2 || dy_dims[0] != x_dims[0] || dy_dims[1] != x_dims[1]) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(kGradients[i]) + " " + ListText(dy_dims) + " is not [M, H] for x " +
                                                         ListText(x_dims) + " (a projection that is not square is not modelled)");
    }
    if (aclError s = Shape(call, call.outputs[i], "dw", {x_dims[1], dy_dims[1]})) return s;
    if (aclError s = Shape(call, call.outputs[3 + i], "dbias", {dy_dims[1]})) return s;
    aclTensor* dy = nullptr;
    if (aclError s = FloatCopy(call, o, gradient, kGradients[i], &dy)) return s;
    aclTensor* dw_sum = o.Scratch(ACL_FLOAT, {x_dims[1], dy_dims[1]});
    aclTensor* dw = o.Tensor(call.outputs[i], "dw");
    aclTensor* dbias = o.Tensor(call.outputs[3 + i], "dbias");
    if (o.status()) return o.status();
    if (aclError s = Aclnn<MatmulApi>(call, "aclnnMatmul", x_t, dy, dw_sum, int8_t{0})) return s;
    if (aclError s = Aclnn<CastApi>(call, "aclnnCast", dw_sum, call.outputs[i].desc->dtype, dw)) return s;
    if (aclError s = Aclnn<ReduceSumApi>(call, "aclnnReduceSum", dy, o.Ints({0}), false, call.outputs[3 + i].desc->dtype, dbias)) {
      return s;
    }
  }
  return ACL_SUCCESS;
}

// MlaProlog (torch_npu's npu_mla_prolog; traced on Ascend910B): the twelve tensors of aclnnMlaProlog,
// then its seven optional quantisation tensors (absent ones undefined), in its page's order; the
// attributes rmsnorm_epsilon_cq, rmsnorm_epsilon_ckv and cache_mode; outputs query, query_rope and
// the two caches, which aclnnMlaProlog updates in place (kvCacheRef, krCacheRef): an output cache
// that is not its input's memory gets the input's values first. The three weights arrive in
// FRACTAL_NZ, the layout the page requires, and are read in it.
aclError MlaProlog(const OpCall& call) {
  if (aclError s = call.Arity(12, 19, 4)) return s;
  static constexpr const char* kInputs[] = {"token_x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr",
                                            "rmsnorm_gamma_cq", "rmsnorm_gamma_ckv", "rope_sin", "rope_cos", "cache_index",
                                            "kv_cache", "kr_cache", "dequant_scale_x", "dequant_scale_w_dq",
                                            "dequant_scale_w_uq_qr", "dequant_scale_w_dkv_kr", "quant_scale_ckv",
                                            "quant_scale_ckr", "smooth_scales_cq"};
  AclnnObjects o(call);
  const aclTensor* in[19] = {};
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (!Absent(call.inputs[i])) in[i] = o.InLayout(call.inputs[i], kInputs[i]);
  }
  if (Absent(call.inputs[10]) || Absent(call.inputs[11])) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "kv_cache and kr_cache are required; the call: " + call.Signature());
  }
  aclTensor* query = o.InLayout(call.outputs[0], "query");
  aclTensor* query_rope = o.InLayout(call.outputs[1], "query_rope");
  aclTensor* caches[2] = {o.InLayout(call.outputs[2], "kv_cache_out"), o.InLayout(call.outputs[3], "kr_cache_out")};
  if (o.status()) return o.status();
  for (size_t c = 0; c < 2; ++c) {
    if (call.outputs[2 + c].buffer->data == call.inputs[10 + c].buffer->data) continue;
    if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", caches[c], in[10 + c])) return s;
  }
  std::string cache_mode = call.String("cache_mode", "PA_BSND");
  return Aclnn<MlaPrologApi>(call, "aclnnMlaProlog", in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9],
                             caches[0], caches[1], in[12], in[13], in[14], in[15], in[16], in[17], in[18],
                             static_cast<double>(call.Float("rmsnorm_epsilon_cq", 1e-5f)),
                             static_cast<double>(call.Float("rmsnorm_epsilon_ckv", 1e-5f)), cache_mode.data(), query,
                             query_rope);
}

}  // namespace

const std::vector<OpEntry>& CustomEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"SignBitsPack", {{"size", K::kInt}}, SignBitsPack},
      // ops-math's sign_bits_unpack README lists Atlas training series products (Ascend910), which
      // aclnnSignBitsUnpack's page leaves out; its pack's README does not.
      {"SignBitsUnpack", {{"size", K::kInt}, {"dtype", K::kInt}}, SignBitsUnpack, true},
      {"SoftmaxCrossEntropyWithLogits", {}, SoftmaxCrossEntropyWithLogits},
      // ops-nn's quantize README lists Atlas training series products (Ascend910).
      {"Quantize", {{"dtype", K::kString}, {"axis", K::kInt}}, Quantize, true},
      {"RmsNorm", {{"epsilon", K::kFloat}}, RmsNorm, true},
      {"RmsNormGrad", {}, RmsNormGrad, true},
      {"AddRmsNorm", {{"epsilon", K::kFloat}}, AddRmsNorm, true},
      {"AddLayerNorm", {{"epsilon", K::kFloat}, {"additional_output", K::kBool}}, AddLayerNorm, true},
      {"DeepNorm", {{"alpha", K::kFloat}, {"epsilon", K::kFloat}}, DeepNorm, true},
      {"ApplyAdamD", {{"use_locking", K::kBool}, {"use_nesterov", K::kBool}}, ApplyAdamD},
      // ops-nn's apply_adam_w README lists Atlas A2, which aclnnApplyAdamW's page leaves out.
      {"ApplyAdamW", {{"amsgrad", K::kBool}, {"maximize", K::kBool}}, ApplyAdamW, true},
      {"DropOutDoMaskV3", {}, DropOutDoMaskV3},
      {"AxpyWithSoftmaxAndDropOutDoMask", {{"alpha", K::kFloat}, {"input_keep_prob", K::kFloat}, {"axis", K::kListInt}},
       AxpyWithSoftmaxAndDropOutDoMask},
      {"DropoutWithMulsAndSoftmaxGrad", {{"input_keep_prob", K::kFloat}, {"alpha", K::kFloat}, {"axes", K::kListInt}},
       DropoutWithMulsAndSoftmaxGrad},
      {"NPUAllocFloatStatus", {}, NpuAllocFloatStatus},
      {"AttentionQKVGradX", {{"trans_a", K::kBool}, {"trans_b", K::kBool}}, AttentionQkvGradX},
      {"AttentionQKVGradW", {{"trans_a", K::kBool}, {"trans_b", K::kBool}, {"trans_dw", K::kBool}}, AttentionQkvGradW},
      {"MlaProlog",
       {{"rmsnorm_epsilon_cq", K::kFloat}, {"rmsnorm_epsilon_ckv", K::kFloat}, {"cache_mode", K::kString}},
       MlaProlog,
       false,
       false,
       true},
  };
  return entries;
}

}  // namespace aclsim::aclop

ACLOP_SAME(aclnnSignBitsPack, SignBitsPackApi);
ACLOP_SAME(aclnnSignBitsUnpack, SignBitsUnpackApi);
ACLOP_SAME(aclnnSoftmaxCrossEntropyWithLogits, SoftmaxCrossEntropyWithLogitsApi);
ACLOP_SAME(aclnnQuantize, QuantizeApi);
ACLOP_SAME(aclnnRmsNorm, RmsNormApi);
ACLOP_SAME(aclnnRmsNormGrad, RmsNormGradApi);
ACLOP_SAME(aclnnAddRmsNorm, AddRmsNormApi);
ACLOP_SAME(aclnnAddLayerNorm, AddLayerNormApi);
ACLOP_SAME(aclnnDeepNorm, DeepNormApi);
ACLOP_SAME(aclnnCast, CastApi);
ACLOP_SAME(aclnnMatmul, MatmulApi);
ACLOP_SAME(aclnnInplaceAdd, InplaceAddApi);
ACLOP_SAME(aclnnReduceSum, ReduceSumApi);
ACLOP_SAME(aclnnInplaceCopy, InplaceCopyApi);
ACLOP_SAME(aclnnApplyAdamW, ApplyAdamWApi);
ACLOP_SAME(aclnnMlaProlog, MlaPrologApi);
