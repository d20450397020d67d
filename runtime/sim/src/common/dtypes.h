// The simulator's view of the dtype facts every part of the project shares: the generated table
// (generated/include/aclnn_bindgen/dtypes.h, rendered from gen.ir.DType: names, sizes, categories,
// CANN's promotion and cast tables, the half and bfloat16 conversions), under the simulator's
// namespace, plus the dtype sets (64-bit masks) the op specs are written in.
#ifndef ACLNN_SIM_COMMON_DTYPES_H_
#define ACLNN_SIM_COMMON_DTYPES_H_

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "aclnn_bindgen/dtypes.h"

namespace aclsim {

using aclnn_bindgen::BFloat16ToFloat;
using aclnn_bindgen::CanCast;
using aclnn_bindgen::DTypeCategory;
using aclnn_bindgen::DTypeInfo;
using aclnn_bindgen::FindDType;
using aclnn_bindgen::FloatToBFloat16;
using aclnn_bindgen::FloatToHalf;
using aclnn_bindgen::HalfToFloat;
using aclnn_bindgen::PromoteTypes;

// DType sets are 64-bit masks indexed by the aclDataType value (the table asserts that they fit).
static_assert(aclnn_bindgen::kDTypeValueLimit == 64, "dtype masks hold every aclDataType");
inline constexpr uint64_t DTypeBit(aclDataType dtype) { return uint64_t{1} << static_cast<int>(dtype); }

inline const char* DTypeName(int value) {
  const DTypeInfo* info = FindDType(value);
  return info ? info->name : "UNDEFINED";
}

// `value` as FLOAT16 (`dtype`) or else BFLOAT16 holds it, widened back: a scalar operand taken in a
// tensor's 16-bit floating dtype, as PyTorch's wrapped numbers are.
inline float RoundedToFloating16(aclDataType dtype, float value) {
  return dtype == ACL_FLOAT16 ? HalfToFloat(FloatToHalf(value)) : BFloat16ToFloat(FloatToBFloat16(value));
}

// `value` as an integer dtype of `info` (signed or unsigned, 1 to 8 bytes) holds it: the low bytes
// kept, as C's conversions to unsigned and two's complement narrowing do (uint8 -1 is 255).
inline int64_t WrappedToInteger(const DTypeInfo& info, int64_t value) {
  if (info.size == 0 || info.size >= 8) return value;
  const int bits = 8 * info.size;
  const uint64_t low = static_cast<uint64_t>(value) & ((uint64_t{1} << bits) - 1);
  if (info.category == DTypeCategory::kUnsigned || !(low >> (bits - 1) & 1)) return static_cast<int64_t>(low);
  return static_cast<int64_t>(low | ~((uint64_t{1} << bits) - 1));
}

// The element size in bytes; 0 for dtypes without whole-byte elements.
inline size_t DTypeSize(aclDataType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info ? info->size : 0;
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_DTYPES_H_
