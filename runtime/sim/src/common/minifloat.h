// The low-precision floating formats of the MX ("microscaling") quantisers, decoded and encoded in
// one place: FLOAT8_E4M3FN, FLOAT8_E5M2, FLOAT4_E2M1, FLOAT4_E1M2 (the elements) and FLOAT8_E8M0 (the
// shared scale, a bare biased exponent).
//
// Decoding is exact (every value is a double, and a float too). Encoding is what the pages' MX
// quantisers do, "cast_to_dst_type(V / mxscale, round_mode)": the value rounded to the format's
// precision by the round mode, then saturated to the format's largest finite magnitude, as the OCP
// Microscaling Formats specification (v1.0, 6.3) converts a scaled element (FLOAT4 has neither
// infinity nor NaN to overflow to, and the specification gives FP8 the same clamp). A NaN stays NaN
// where the format has one; the MX planners refuse NaN and infinite inputs before they get here.
// A plain cast to these formats (the engine's store) is another conversion, whose overflow the pages
// do not define: PyTorch 2.13 saturates FLOAT8_E4M3FN, ml_dtypes gives NaN, so no engine stores them.
//
// FLOAT4 elements are packed two to a byte, element 2i in the low four bits (the one statement of
// the order in CANN's pages: ops-nn turbo_quant_compress_latent's README, "低位nibble对应偶数维").
#ifndef ACLNN_SIM_COMMON_MINIFLOAT_H_
#define ACLNN_SIM_COMMON_MINIFLOAT_H_

#include <cmath>
#include <cstdint>

#include "acl/acl_base.h"

namespace aclsim {

// A sign, exponent and mantissa format below 16 bits.
struct MiniFloat {
  aclDataType dtype;
  int exponent_bits, mantissa_bits, bias;
  // How the top exponent is used: IEEE (infinity and NaNs, FLOAT8_E5M2), only S.1111.111 is NaN
  // (FLOAT8_E4M3FN), or every code is a finite value (FLOAT4).
  enum class Top { kIeee, kNanOnly, kFinite } top;
  int emax;  // the exponent of the largest normal value (the MX pages' emax table)
  double max;  // the largest finite value

  int bits() const { return 1 + exponent_bits + mantissa_bits; }
};

inline constexpr MiniFloat kFloat8E4M3Fn{ACL_FLOAT8_E4M3FN, 4, 3, 7, MiniFloat::Top::kNanOnly, 8, 448.0};
inline constexpr MiniFloat kFloat8E5M2{ACL_FLOAT8_E5M2, 5, 2, 15, MiniFloat::Top::kIeee, 15, 57344.0};
inline constexpr MiniFloat kFloat4E2M1{ACL_FLOAT4_E2M1, 2, 1, 1, MiniFloat::Top::kFinite, 2, 6.0};
inline constexpr MiniFloat kFloat4E1M2{ACL_FLOAT4_E1M2, 1, 2, 1, MiniFloat::Top::kFinite, 0, 1.75};

// The format of an MX element dtype; null for any other dtype.
inline const MiniFloat* MiniFloatOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT8_E4M3FN: return &kFloat8E4M3Fn;
    case ACL_FLOAT8_E5M2: return &kFloat8E5M2;
    case ACL_FLOAT4_E2M1: return &kFloat4E2M1;
    case ACL_FLOAT4_E1M2: return &kFloat4E1M2;
    default: return nullptr;
  }
}

inline bool IsFloat4(aclDataType dtype) { return dtype == ACL_FLOAT4_E2M1 || dtype == ACL_FLOAT4_E1M2; }

// The value of a code (its low bits() bits).
inline double DecodeMiniFloat(const MiniFloat& f, uint32_t code) {
  const uint32_t mantissa_mask = (1u << f.mantissa_bits) - 1, exponent_mask = (1u << f.exponent_bits) - 1;
  const bool negative = (code >> (f.exponent_bits + f.mantissa_bits)) & 1;
  const uint32_t exponent = (code >> f.mantissa_bits) & exponent_mask, mantissa = code & mantissa_mask;
  double value;
  if (f.top == MiniFloat::Top::kIeee && exponent == exponent_mask) {
    value = mantissa ? NAN : INFINITY;
  } else if (f.top == MiniFloat::Top::kNanOnly && exponent == exponent_mask && mantissa == mantissa_mask) {
    value = NAN;
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    value = std::ldexp(static_cast<double>(mantissa | (1u << f.mantissa_bits)),
                       static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  }
  return negative ? -value : value;
}

// The MX quantisers' round modes: "rint" (to nearest, ties to even) and "floor" (toward -infinity).
enum class MiniRound { kRint, kFloor };

// `v` rounded by `mode` to the precision of `f` (a finite v; its exponent unbounded above, so a
// result beyond f.max tells an overflow).
inline double RoundMiniFloat(const MiniFloat& f, double v, MiniRound mode) {
  const int min_exponent = 1 - f.bias;  // of the normal values; the subnormals share its quantum
  int exponent = min_exponent;
  if (v != 0) {
    int e2;
    std::frexp(v, &e2);  // |v| in [2^(e2-1), 2^e2)
    if (e2 - 1 > exponent) exponent = e2 - 1;
  }
  const double quotient = std::ldexp(v, f.mantissa_bits - exponent);  // exact: a power of two
  return std::ldexp(mode == MiniRound::kFloor ? std::floor(quotient) : std::nearbyint(quotient),
                    exponent - f.mantissa_bits);
}

// `v` as a code of `f`: rounded by `mode` at the format's precision, then saturated to +-max (see
// the top of this file). A NaN is the format's NaN (FLOAT4 has none: its callers refuse NaN first).
inline uint32_t EncodeMiniFloat(const MiniFloat& f, double v, MiniRound mode) {
  const uint32_t sign = std::signbit(v) ? 1u << (f.exponent_bits + f.mantissa_bits) : 0u;
  if (std::isnan(v)) return sign | ((1u << (f.exponent_bits + f.mantissa_bits)) - 1);
  const double magnitude = std::fmin(std::fabs(std::isfinite(v) ? RoundMiniFloat(f, v, mode) : v), f.max);
  if (magnitude == 0) return sign;
  const int min_exponent = 1 - f.bias;
  int e2;
  std::frexp(magnitude, &e2);
  const int e = e2 - 1;
  if (e < min_exponent) {  // subnormal
    return sign | static_cast<uint32_t>(std::ldexp(magnitude, f.mantissa_bits - min_exponent));
  }
  const uint32_t mantissa = static_cast<uint32_t>(std::ldexp(magnitude, f.mantissa_bits - e)) - (1u << f.mantissa_bits);
  return sign | static_cast<uint32_t>(e + f.bias) << f.mantissa_bits | mantissa;
}

// FLOAT8_E8M0: 2^(code - 127); code 255 is NaN.
inline float DecodeE8M0(uint8_t code) { return code == 255 ? NAN : std::ldexp(1.0f, code - 127); }

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_MINIFLOAT_H_
