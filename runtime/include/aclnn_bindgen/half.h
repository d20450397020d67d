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

// binary16 -> binary32, as F16C's vcvtph2ps (a signalling NaN comes out quiet, its payload kept)
// and PyTorch's portable fp16_ieee_to_fp32_value. Normal halves, Inf and NaN: the bits moved into
// a float's place with the exponent rebiased by 224 rather than 112, scaled back by 2^-112 (exact;
// an Inf or NaN stays one); subnormal halves: 0.5 + m * 2^-24 built from the bits, less 0.5
// (exact). No operand or result is ever a denormal float, so the result does not depend on the
// FPU's denormals-are-zero and flush-to-zero modes; about 12 SSE2 instructions per 4 values.
inline float HalfToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  const uint32_t sign = bits & 0x80000000u, abs = bits & 0x7fff0000u;
  const float normal = BitsFloat((abs >> 3) + (224u << 23)) * 0x1.0p-112f;
  const float subnormal = BitsFloat((abs >> 16) | (126u << 23)) - 0.5f;
  return BitsFloat(sign | (abs < (1u << 26) ? FloatBits(subnormal) : FloatBits(normal)));
}

// binary32 -> binary16, round to nearest even; overflow gives Inf, NaN gives the quiet NaN 0x7e00
// (with its sign). The FPU rounds: |f| scaled by 2^2 (in two steps, so that a large |f| overflows
// to Inf) is added to a power of two chosen so that the sum's last mantissa bit is the half's
// (2^-14's for half subnormals), and the half is read from the sum's bits (a carry out of the
// mantissa bumps the exponent, up to Inf). The addend is a normal float, the scaled |f| a denormal
// only when f rounds to zero anyway, so denormal modes change nothing. The same as PyTorch's
// portable fp16_ieee_from_fp32_value; checked equal to a bit-by-bit rounding over every float.
inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = FloatBits(f);
  const uint32_t sign = bits & 0x80000000u, abs = bits & 0x7fffffffu;
  const float scaled = (BitsFloat(abs) * 0x1.0p+112f) * 0x1.0p-110f;
  uint32_t exponent = bits & 0x7f800000u;
  exponent = exponent < 0x38800000u ? 0x38800000u : exponent;
  const uint32_t sum = FloatBits(BitsFloat(exponent + 0x07800000u) + scaled);
  const uint32_t half = ((sum >> 13) & 0x7c00u) + (sum & 0x0fffu);
  return static_cast<uint16_t>((sign >> 16) | (abs > 0x7f800000u ? 0x7e00u : half));
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
