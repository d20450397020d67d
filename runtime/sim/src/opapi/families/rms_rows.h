// The rms norm's rows as the fused norm-and-quantise kernels compute them: the INT8 quantisers of
// norm_quant.cpp and the MX ones of mx_quant.cpp (aclnnRmsNormDynamicMxQuant,
// aclnnAddRmsNormDynamicMxQuant) normalise alike, so each states it here once.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_RMS_ROWS_H_
#define ACLNN_SIM_OPAPI_FAMILIES_RMS_ROWS_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/dtypes.h"
#include "opapi/elementwise.h"

namespace aclsim {

// A row's rstd = 1 / sqrt(mean(x^2) + epsilon): the mean square summed in double (as the goldens'
// x.double().pow(2).mean()), the root in float.
inline float RmsRstd(const float* row, int64_t width, double epsilon) {
  double squares = 0;
  for (int64_t j = 0; j < width; ++j) squares += static_cast<double>(row[j]) * row[j];
  return 1.0f / std::sqrt(static_cast<float>(squares / static_cast<double>(width) + epsilon));
}

// values rounded in place to `held` and read back: the add_ ops' x = x1 + x2 is the sum their xOut
// holds in x1's dtype, and the norm reads that rounded sum.
inline void RoundThrough(std::vector<float>* values, aclDataType held) {
  if (held == ACL_FLOAT) return;
  const int64_t n = static_cast<int64_t>(values->size());
  const int64_t size = static_cast<int64_t>(DTypeSize(held));
  std::vector<char> rounded(static_cast<size_t>(n * size));
  Storer(ComputeType::kFloat32, held)(values->data(), rounded.data(), size, n);
  Loader(ComputeType::kFloat32, held)(rounded.data(), size, n, values->data());
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_RMS_ROWS_H_
