// The moe_gating_grad family (aclnnMoeGatingTopKBackward, torch_npu.npu_moe_gating_top_k_backward; a derived page from
// torch_npu's documentation of it and aclnnMoeGatingTopK's README formula): the adjoint of the forward's sigmoid mode,
// yOut_k = y_k / (S + eps) * routedScalingFactor with y_k = normOut[expertIdx_k] and S = sum_k y_k, normOut =
// Sigmoid(x). Per row of xNorm [M, N] (the forward's normOut) and gradY, expertIdx [M, K]:
//   g_k = routedScalingFactor * (gradY_k / (S + eps) - sum_j gradY_j y_j / (S + eps)^2)
//   gradXOut[n] = xNorm[n] * (1 - xNorm[n]) * sum of g_k over the k with expertIdx_k = n (0 where none);
// in float, rounded once to gradY's dtype. normType 0 (softmax) and renorm 1, which torch_npu documents as not
// supported now, are refused (161002); an expert index outside [0, N) is device data and fails phase 2 naming it.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MoeGatingGradFamily;

enum Slot { kXNorm, kGradY, kIdx, kGradX, kSlots };

class MoeGatingGradWork final : public FamilyWork {
 public:
  explicit MoeGatingGradWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, experts = 0, k = 0;
  double scaling = 1.0, eps = 0.0;

 private:
  aclnnStatus Compute() override {
    if (rows == 0) return ACLNN_SUCCESS;
    const int64_t* idx = IndexValues(tensor(kIdx), 3);
    for (int64_t i = 0; i < rows * k; ++i) {
      if (idx[i] < 0 || idx[i] >= experts) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kIdx).name + ": element " + std::to_string(i) +
                                         " is " + std::to_string(idx[i]) + ", outside the " + std::to_string(experts) +
                                         " experts of xNorm");
      }
    }
    const float* norm = static_cast<const float*>(ContiguousAs(tensor(kXNorm), ComputeType::kFloat32, 0));
    const float* grad = static_cast<const float*>(ContiguousAs(tensor(kGradY), ComputeType::kFloat32, 1));
    std::vector<float> out(static_cast<size_t>(rows * experts));
    ParallelFor(rows, [&](int64_t r) {
      const float* x = norm + r * experts;
      const float* g = grad + r * k;
      const int64_t* e = idx + r * k;
      double sum = 0, weighted = 0;
      for (int64_t j = 0; j < k; ++j) {
        sum += x[e[j]];
        weighted += static_cast<double>(g[j]) * x[e[j]];
      }
      const double denominator = sum + eps;
      float* o = out.data() + r * experts;
      for (int64_t j = 0; j < k; ++j) {
        o[e[j]] += static_cast<float>(scaling * (g[j] / denominator - weighted / (denominator * denominator)));
      }
      for (int64_t n = 0; n < experts; ++n) o[n] *= x[n] * (1.0f - x[n]);
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kGradX));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanMoeGatingGrad(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* norm = RoleTensor(call, family, F::Role::kXNorm);
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradY);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kGradX);
  if (!norm || !grad || !idx || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  if (RoleInt(call, family, F::Role::kNormType, 1) != 1) {
    return reject(F::Role::kNormType, "must be 1 (sigmoid), the only mode torch_npu documents as supported now");
  }
  if (RoleInt(call, family, F::Role::kRenorm, 0) != 0) {
    return reject(F::Role::kRenorm, "must be 0, the only value torch_npu documents as supported now");
  }
  if (norm->view.size() != 2 || norm->view[1] < 2 || norm->view[1] > 2048) {
    return reject(F::Role::kXNorm, "shape " + DimsText(norm->view) + " is not [M, N] with N in [2, 2048]");
  }
  const int64_t rows = norm->view[0], experts = norm->view[1];
  if (grad->view.size() != 2 || grad->view[0] != rows || grad->view[1] < 1 || grad->view[1] > experts) {
    return reject(F::Role::kGradY, "shape " + DimsText(grad->view) + " is not [M " + std::to_string(rows) +
                                       ", K] with K in [1, N " + std::to_string(experts) + "]");
  }
  if (idx->view != grad->view) {
    return reject(F::Role::kExpertIdx, "shape " + DimsText(idx->view) + " is not gradY's " + DimsText(grad->view));
  }
  if (out->dtype != grad->dtype) {
    return reject(F::Role::kGradX, std::string("dtype ") + DTypeName(out->dtype) + " is not gradY's " + DTypeName(grad->dtype));
  }
  auto made = std::make_unique<MoeGatingGradWork>(call.spec.name);
  made->rows = rows;
  made->experts = experts;
  made->k = grad->view[1];
  made->scaling = RoleNumber(call, family, F::Role::kScaling, -1, 1.0);
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-20);
  made->tensor(kXNorm).Set(RoleName(call, family, F::Role::kXNorm), *norm);
  made->tensor(kGradY).Set(RoleName(call, family, F::Role::kGradY), *grad);
  made->tensor(kIdx).Set(RoleName(call, family, F::Role::kExpertIdx), *idx);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kGradX, *out, norm->view, "xNorm's shape", kGradX)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
