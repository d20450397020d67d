// GELU as aten computes it in float or double, shared by the activation family's gelu forms and
// the quant family's gelu_quant.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_GELU_H_
#define ACLNN_SIM_OPAPI_FAMILIES_GELU_H_

#include <cmath>

#include "aclnn_sim/math.h"  // Erf

namespace aclsim {

// tanh: GELU's tanh approximation; else its erf form.
template <typename T>
inline T Gelu(T x, bool tanh) {
  if (tanh) {
    return T(0.5) * x * (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
  }
  return T(0.5) * x * (T(1) + Erf(x * T(0.70710678118654752440)));
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_GELU_H_
