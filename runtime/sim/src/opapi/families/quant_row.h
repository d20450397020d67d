// The row quantiser (INT8, INT4) the quant family's dynamic quantisation computes with (quant.cpp), shared
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

// Dynamic quantisation of one row of `width` values (value(j)) into the range [low, high] of the
// quantised dtype: its scale max|v| / high (the pages' dtypeMax: 127 for INT8, 7 for INT4), or with
// `asymmetric` (max - min) / (high - low) and the offset high - max / scale (aclnnDynamicQuantV2's
// scale_opt and offset_opt: 255 and 127 for INT8, 15 and 7 for INT4); a NaN among the values makes
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
  const float s = nan ? NAN : asymmetric ? (top - bottom) / static_cast<float>(high - low) : magnitude / static_cast<float>(high);
  const float o = asymmetric ? static_cast<float>(high) - top / s : 0.0f;
  *scale = s;
  *offset = o;
  for (int64_t j = 0; j < width; ++j) {
    q[j] = Saturate(round(asymmetric ? value(j) / s + o : value(j) / s), low, high);
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_QUANT_ROW_H_
