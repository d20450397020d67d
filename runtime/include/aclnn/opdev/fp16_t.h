// op::fp16_t as CANN's toolkit declares it in aclnn/opdev/fp16_t.h, for the pages' examples that fill
// FLOAT16 host buffers with it (aclnnFusedInferAttentionScoreV2's): an IEEE half in 16 bits,
// converted from float with rounding to nearest even and back exactly.
#ifndef ACLNN_OPDEV_FP16_T_H_
#define ACLNN_OPDEV_FP16_T_H_

#include <cstdint>
#include <cstring>

namespace op {

struct fp16_t {
  uint16_t val = 0;

  fp16_t() = default;
  fp16_t(float value) : val(FromFloat(value)) {}  // NOLINT(google-explicit-constructor): CANN's is implicit
  fp16_t(double value) : val(FromFloat(static_cast<float>(value))) {}  // NOLINT(google-explicit-constructor)
  fp16_t(int value) : val(FromFloat(static_cast<float>(value))) {}  // NOLINT(google-explicit-constructor)

  operator float() const { return ToFloat(val); }  // NOLINT(google-explicit-constructor)

  static uint16_t FromFloat(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) return sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN, inf
    if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // rounds past 65504: inf
    if (magnitude < 0x38800000u) {  // a subnormal half (or 0): the value in units of 2^-24
      float scaled;
      const uint32_t absolute = magnitude;
      std::memcpy(&scaled, &absolute, sizeof(scaled));
      scaled *= 16777216.0f;  // exact; the conversion below rounds to nearest even
      const uint32_t units = static_cast<uint32_t>(scaled);
      const float rest = scaled - static_cast<float>(units);
      const uint32_t rounded = units + (rest > 0.5f || (rest == 0.5f && (units & 1u)) ? 1u : 0u);
      return sign | static_cast<uint16_t>(rounded);
    }
    const uint32_t shifted = magnitude - 0x38000000u;  // rebias the exponent from 127 to 15
    const uint32_t half = shifted >> 13, rest = shifted & 0x1fffu;
    return sign | static_cast<uint16_t>(half + (rest > 0x1000u || (rest == 0x1000u && (half & 1u)) ? 1u : 0u));
  }

  static float ToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float value;
    if (exponent == 0) {
      value = static_cast<float>(mantissa) / 16777216.0f;  // subnormal: mantissa * 2^-24
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      bits |= sign;
      std::memcpy(&value, &bits, sizeof(value));
      return value;
    }
    const uint32_t bits = sign | (exponent == 31 ? 0x7f800000u | (mantissa << 13) : ((exponent + 112) << 23) | (mantissa << 13));
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

}  // namespace op

#endif  // ACLNN_OPDEV_FP16_T_H_
