// The quantised output y the quantisers write (quant.cpp's ascend_quant and dynamic_quant, norm_quant.cpp):
// INT8, INT4, or INT32 words each packing eight INT4 along the last dimension (the pages' dstType 3,
// "INT32实际为8个INT4拼接"; torch.quint4x2, which op-plugin passes as that INT32), the INT4 ones laid out
// as CANN packs INT4 (common/int4.h).
#ifndef ACLNN_SIM_OPAPI_FAMILIES_QUANTISED_OUT_H_
#define ACLNN_SIM_OPAPI_FAMILIES_QUANTISED_OUT_H_

#include <cstdint>
#include <string>

#include "common/dtypes.h"
#include "common/int4.h"
#include "opapi/families/family.h"

namespace aclsim {

// The dtype of y a dstType names (2 INT8, 3 INT32 of packed INT4, 29 INT4); ACL_DT_UNDEFINED for the
// others (HIFLOAT8 and FLOAT8's 34 to 36, which no quantiser here produces).
inline aclDataType QuantisedDType(int64_t dst_type) {
  switch (dst_type) {
    case 2: return ACL_INT8;
    case 3: return ACL_INT32;
    case 29: return ACL_INT4;
    default: return ACL_DT_UNDEFINED;
  }
}

// How a quantised output is written: its saturation range and, for INT4 and INT32 words, its elements
// as INT4 (its slot then holds the bytes they lie in, for the memory check).
struct QuantisedOut {
  double low = -128, high = 127;
  bool int4 = false;
  TensorDesc nibbles;
};

// Keeps `out`, the output of `role`, in `slot` as the quantisation of a tensor of `shape`: INT8 of that
// shape; INT4 of that shape, its last dimension even; INT32 of that shape with the last dimension an
// eighth (divisible by 8), stride 1 along it. Another dtype is declined by name; a shape against these,
// refused (161002).
inline aclnnStatus KeepQuantised(FamilyWork* made, const Call& call, const FamilySpec& family, ExecutorWork** work,
                                 int role, const TensorDesc& out, const Dims& shape, int slot, QuantisedOut* q) {
  const int64_t last = shape.empty() ? 1 : shape.back();
  if (out.dtype == ACL_INT8) {
    *q = QuantisedOut{};
    return made->KeepOutput(call, family, role, out, shape, "x's shape", slot);
  }
  if (out.dtype != ACL_INT4 && out.dtype != ACL_INT32) {
    return Decline(call, work, std::string("for ") + RoleName(call, family, role) + " of dtype " + DTypeName(out.dtype) +
                                   " (INT8, INT4 and INT32 of packed INT4 are simulated)");
  }
  q->low = -8;
  q->high = 7;
  q->int4 = true;
  if (out.dtype == ACL_INT4) {
    if (last % 2 != 0) {
      return RejectInvalid(call, family, role, "is INT4 with x's last dimension " + std::to_string(last) + " odd");
    }
    if (aclnnStatus s = made->KeepOutput(call, family, role, out, shape, "x's shape", slot)) return s;
    q->nibbles = out;
    made->tensor(slot).Set(RoleName(call, family, role), Int4Bytes(out));
    return ACLNN_SUCCESS;
  }
  if (shape.empty() || last % 8 != 0) {
    return RejectInvalid(call, family, role, "is INT32 (eight INT4 a word) with x's last dimension " +
                                                 std::to_string(last) + " not divisible by 8");
  }
  Dims words = shape;
  words.back() /= 8;
  if (aclnnStatus s = made->KeepOutput(call, family, role, out, words, "x's shape with its last dimension divided by 8",
                                       slot)) {
    return s;
  }
  if (out.strides.back() != 1 && out.view.back() > 1) {
    return Decline(call, work, std::string("for an INT32 ") + RoleName(call, family, role) +
                                   " whose last dimension has stride " + std::to_string(out.strides.back()) +
                                   " (its words pack INT4 along it; only stride 1 is simulated)");
  }
  q->nibbles = Int4OfWords(out, out.view.size() - 1);
  return ACLNN_SUCCESS;
}

// `values` (row-major over the quantised tensor, saturated to q's range) written to the output of `slot`.
inline void WriteQuantised(const int64_t* values, const QuantisedOut& q, const TensorRef& slot) {
  if (q.int4) {
    ScatterInt4(values, q.nibbles);
  } else {
    ScatterFrom(values, ComputeType::kInt64, slot);
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_QUANTISED_OUT_H_
