// The aclop bridge's operators behind torch_npu's own operators that have an aclnn API of the same
// operation: op-plugin 2.13 still runs them by type name (acl_op in its yaml), and each runs here
// as that API, so it computes what the API's page documents and refuses what the API refuses.
//   SignBitsPack                   npu_sign_bits_pack                       aclnnSignBitsPack
//   SignBitsUnpack                 npu_sign_bits_unpack                     aclnnSignBitsUnpack
//   SoftmaxCrossEntropyWithLogits  npu_softmax_cross_entropy_with_logits    aclnnSoftmaxCrossEntropyWithLogits
//                                  (and its backward, which scales backprop by the incoming gradient)
// and those whose API refuses the chip op-plugin sends them on, as host kernels (host_kernel.h):
//   ApplyAdamD                     npu_apply_adam (Atlas A2)                the formula of aclnnApplyAdam's page
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
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

}  // namespace

const std::vector<OpEntry>& CustomEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"SignBitsPack", {{"size", K::kInt}}, SignBitsPack},
      {"SignBitsUnpack", {{"size", K::kInt}, {"dtype", K::kInt}}, SignBitsUnpack},
      {"SoftmaxCrossEntropyWithLogits", {}, SoftmaxCrossEntropyWithLogits},
      {"ApplyAdamD", {{"use_locking", K::kBool}, {"use_nesterov", K::kBool}}, ApplyAdamD},
  };
  return entries;
}

}  // namespace aclsim::aclop

ACLOP_SAME(aclnnSignBitsPack, SignBitsPackApi);
ACLOP_SAME(aclnnSignBitsUnpack, SignBitsUnpackApi);
ACLOP_SAME(aclnnSoftmaxCrossEntropyWithLogits, SoftmaxCrossEntropyWithLogitsApi);
