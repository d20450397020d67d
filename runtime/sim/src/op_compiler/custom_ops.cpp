// The aclop bridge's operators behind torch_npu's own operators that have an aclnn API of the same
// operation: op-plugin 2.13 still runs them by type name (acl_op in its yaml), and each runs here
// as that API, so it computes what the API's page documents and refuses what the API refuses.
//   SignBitsPack                   npu_sign_bits_pack                       aclnnSignBitsPack
//   SignBitsUnpack                 npu_sign_bits_unpack                     aclnnSignBitsUnpack
//   SoftmaxCrossEntropyWithLogits  npu_softmax_cross_entropy_with_logits    aclnnSoftmaxCrossEntropyWithLogits
//                                  (and its backward, which scales backprop by the incoming gradient)
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "op_compiler/bridge.h"

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

}  // namespace

const std::vector<OpEntry>& CustomEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"SignBitsPack", {{"size", K::kInt}}, SignBitsPack},
      {"SignBitsUnpack", {{"size", K::kInt}, {"dtype", K::kInt}}, SignBitsUnpack},
      {"SoftmaxCrossEntropyWithLogits", {}, SoftmaxCrossEntropyWithLogits},
  };
  return entries;
}

}  // namespace aclsim::aclop

#define ACLOP_SAME(api, Type) static_assert(std::is_same_v<decltype(&api##GetWorkspaceSize), aclsim::aclop::Type>, #api)
#if __has_include("aclnnop/aclnn_sign_bits_pack.h")
#include "aclnnop/aclnn_sign_bits_pack.h"
ACLOP_SAME(aclnnSignBitsPack, SignBitsPackApi);
#endif
#if __has_include("aclnnop/aclnn_sign_bits_unpack.h")
#include "aclnnop/aclnn_sign_bits_unpack.h"
ACLOP_SAME(aclnnSignBitsUnpack, SignBitsUnpackApi);
#endif
#if __has_include("aclnnop/aclnn_softmax_cross_entropy_with_logits.h")
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
ACLOP_SAME(aclnnSoftmaxCrossEntropyWithLogits, SoftmaxCrossEntropyWithLogitsApi);
#endif
#undef ACLOP_SAME
