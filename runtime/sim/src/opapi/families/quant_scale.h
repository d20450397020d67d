// The per-column dequantisation scales of the INT8 products (quant_matmul, grouped_matmul): FLOAT32,
// BFLOAT16 or FLOAT16 values, or the UINT64/INT64 words aclnnTransQuantParamV2 packs, whose float is
// the low word's top 19 bits (the kernels read no more of it).
#ifndef ACLSIM_OPAPI_FAMILIES_QUANT_SCALE_H_
#define ACLSIM_OPAPI_FAMILIES_QUANT_SCALE_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "opapi/families/family.h"

namespace aclsim {

// The float a packed scale word carries (its low word, the top 19 bits of a float32).
inline float UnpackScale(uint64_t word) {
  const uint32_t bits = static_cast<uint32_t>(word & 0xFFFFE000u);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

inline bool IsPackedScale(aclDataType dtype) { return dtype == ACL_UINT64 || dtype == ACL_INT64; }

// The values of `t` as floats, packed UINT64/INT64 words unpacked.
inline std::vector<float> ScaleValues(const TensorRef& t) {
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<float> v(n);
  if (IsPackedScale(t.dtype)) {
    std::vector<int64_t> words(n);
    GatherAs(t, ComputeType::kInt64, words.data());
    for (size_t i = 0; i < n; ++i) v[i] = UnpackScale(static_cast<uint64_t>(words[i]));
  } else {
    GatherAs(t, ComputeType::kFloat32, v.data());
  }
  return v;
}

}  // namespace aclsim

#endif  // ACLSIM_OPAPI_FAMILIES_QUANT_SCALE_H_
