// aclnn-bindgen: IEEE binary16 and bfloat16 conversions, the one pair the bindings (aclScalar
// values) and the simulator (aclFloatToFloat16, the kernels) share. Bit-exact and branch-free so
// that loops over them vectorise. Round to nearest even, as CANN's aclFloatToFloat16 and PyTorch do.
#ifndef ACLNN_BINDGEN_HALF_H_
#define ACLNN_BINDGEN_HALF_H_

#include <cstdint>
#include <cstring>

namespace aclnn_bindgen {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 -> binary32. Rebias the exponent (15 -> 127); Inf/NaN get the all-ones exponent;
// subnormal halves are renormalised by a subtraction of normal floats, so the result does not
// depend on the FPU's denormals-are-zero mode.
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t shifted = static_cast<uint32_t>(h & 0x7fffu) << 13;
  const uint32_t exponent = shifted & 0x0f800000u;
  const uint32_t normal = shifted + (112u << 23);
  const uint32_t inf_nan = shifted + (224u << 23);
  const float subnormal = BitsFloat(shifted + (113u << 23)) - BitsFloat(113u << 23);
  uint32_t bits = exponent == 0x0f800000u ? inf_nan : normal;
  bits = exponent == 0 ? FloatBits(subnormal) : bits;
  return BitsFloat(sign | bits);
}

// binary32 -> binary16, round to nearest even; overflow gives Inf, NaN stays a (quiet) NaN.
inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = FloatBits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7fffffffu;
  // Normal range: rebias and round on the 13 dropped mantissa bits.
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u) - (112u << 23);
  uint32_t normal = rounded >> 13;
  normal = normal >= 0x7c00u ? 0x7c00u : normal;
  // Subnormal range (|f| < 2^-14): let the FPU round by adding 0.5 (2^-1 aligns half's lowest
  // subnormal bit with the float's lowest mantissa bit), then take the low bits.
  const float sub = BitsFloat(abs) + 0.5f;
  const uint32_t subnormal = FloatBits(sub) - 0x3f000000u;
  uint32_t out = abs < 0x38800000u ? subnormal : normal;
  out = abs > 0x7f800000u ? 0x7e00u : out;  // NaN
  out = abs == 0x7f800000u ? 0x7c00u : out;  // Inf
  return static_cast<uint16_t>(sign | out);
}

inline float BFloat16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBFloat16(float f) {
  const uint32_t bits = FloatBits(f);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(nan ? ((bits >> 16) | 0x40u) : rounded);
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_HALF_H_
