// The int8 row quantiser the quant family's dynamic quantisation computes with (quant.cpp), shared
// with the engines that quantise rows the same way (moe_routing.cpp's dynamic quant mode,
// rotate_quant.cpp).
#ifndef ACLNN_SIM_OPAPI_FAMILIES_QUANT_ROW_H_
#define ACLNN_SIM_OPAPI_FAMILIES_QUANT_ROW_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace aclsim {

// v rounded and saturated to [low, high]; NaN is 0.
inline int64_t Saturate(double v, double low, double high) {
  if (std::isnan(v)) return 0;
  return static_cast<int64_t>(std::min(std::max(v, low), high));
}

// Dynamic quantisation of one row of `width` values (value(j)): its scale max|v| / 127, or with
// `asymmetric` (max - min) / 255 and the offset 127 - max / scale; a NaN among the values makes
// the scale NaN, as torch.amax propagates it. q[j] = round(v / scale (+ offset)) half to even,
// saturated to [low, high]; `round` another rounding (std::floor: aclnnRotateQuant's roundMode).
template <typename Value, typename Round = double (*)(double)>
void QuantiseRow(int64_t width, const Value& value, bool asymmetric, double low, double high, float* scale,
                 float* offset, int64_t* q, Round round = static_cast<double (*)(double)>(std::nearbyint)) {
  float top = value(0), bottom = top, magnitude = std::fabs(top);
  bool nan = std::isnan(top);
  for (int64_t j = 1; j < width; ++j) {
    const float v = value(j);
    nan = nan || std::isnan(v);
    top = std::max(top, v);
    bottom = std::min(bottom, v);
    magnitude = std::max(magnitude, std::fabs(v));
  }
  const float s = nan ? NAN : asymmetric ? (top - bottom) / 255.0f : magnitude / 127.0f;
  const float o = asymmetric ? 127.0f - top / s : 0.0f;
  *scale = s;
  *offset = o;
  for (int64_t j = 0; j < width; ++j) {
    q[j] = Saturate(round(asymmetric ? value(j) / s + o : value(j) / s), low, high);
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_QUANT_ROW_H_
