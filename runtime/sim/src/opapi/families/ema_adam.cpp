// The ema_adam family: aclnnApplyFusedEmaAdam, an Adam step (mode 0: L2, the decay added to the
// gradient; mode 1: AdamW, the decay added to the update) whose new parameter also updates its
// exponential moving average s, var, m, v and s in place, by the page's formula:
//   g = mode 0 ? grad + weightDecay * var : grad
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
//   c1, c2 = biasCorrection ? (1 - beta1^step, 1 - beta2^step) : (1, 1)
//   update = (m / c1) / (sqrt(v / c2) + eps) (+ weightDecay * var with mode 1)
//   var = var - lr * update;  s = emaDecay * s + (1 - emaDecay) * var
// step is a one-element tensor (the page: [1]); a mode other than 0 and 1 is refused by name in
// phase 1. In float whatever the storage; elements spread over the threads.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = EmaAdamFamily;

enum Slot { kGrad, kVar, kM, kV, kS, kStep, kSlots };

class EmaAdamWork final : public FamilyWork {
 public:
  explicit EmaAdamWork(const char* api) : FamilyWork(api, kSlots) {}

  double lr = 0, ema_decay = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  int64_t mode = 0;
  bool bias_correction = false;

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kVar).numel();
    if (n == 0) return ACLNN_SUCCESS;
    double step = 0;
    GatherAs(tensor(kStep), ComputeType::kFloat64, &step);
    std::vector<float> buffers[5];
    const int slots[5] = {kGrad, kVar, kM, kV, kS};
    for (int i = 0; i < 5; ++i) {
      buffers[i].resize(static_cast<size_t>(n));
      GatherAs(tensor(slots[i]), ComputeType::kFloat32, buffers[i].data());
    }
    const float* grad = buffers[0].data();
    float *var = buffers[1].data(), *m = buffers[2].data(), *v = buffers[3].data(), *s = buffers[4].data();
    const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2), wd = static_cast<float>(weight_decay);
    const float c1 = bias_correction ? static_cast<float>(1 - std::pow(beta1, step)) : 1.0f;
    const float c2 = bias_correction ? static_cast<float>(1 - std::pow(beta2, step)) : 1.0f;
    const float rate = static_cast<float>(lr), decay = static_cast<float>(ema_decay), e = static_cast<float>(eps);
    const bool l2 = mode == 0;
    ParallelFor((n + 4095) / 4096, [&](int64_t block) {
      const int64_t end = std::min(n, (block + 1) * 4096);
      for (int64_t k = block * 4096; k < end; ++k) {
        const float g = l2 ? grad[k] + wd * var[k] : grad[k];
        m[k] = b1 * m[k] + (1 - b1) * g;
        v[k] = b2 * v[k] + (1 - b2) * g * g;
        float update = (m[k] / c1) / (std::sqrt(v[k] / c2) + e);
        if (!l2) update += wd * var[k];
        var[k] -= rate * update;
        s[k] = decay * s[k] + (1 - decay) * var[k];
      }
    });
    for (int i = 1; i < 5; ++i) ScatterFrom(buffers[i].data(), ComputeType::kFloat32, tensor(slots[i]));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanEmaAdam(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int roles[] = {F::Role::kGrad, F::Role::kVar, F::Role::kM, F::Role::kV, F::Role::kS};
  const TensorDesc* tensors[5];
  for (int i = 0; i < 5; ++i) {
    tensors[i] = RoleTensor(call, family, roles[i]);
    if (!tensors[i]) return Decline(call, work, "without grad, var, m, v or s");
    const aclDataType d = tensors[i]->dtype;
    if (d != ACL_FLOAT && d != ACL_FLOAT16 && d != ACL_BF16) return DeclineDtype(call, work, d);
  }
  const TensorDesc* step = RoleTensor(call, family, F::Role::kStep);
  if (!step) return Decline(call, work, "without step");
  const ParamRejecter reject(call, family);
  if (step->numel() != 1) return reject(F::Role::kStep, "shape " + DimsText(step->view) + " is not one element");
  for (int i = 1; i < 5; ++i) {
    if (tensors[i]->view != tensors[0]->view) {
      return reject(roles[i], "shape " + DimsText(tensors[i]->view) + " is not grad's " + DimsText(tensors[0]->view));
    }
  }
  std::unique_ptr<EmaAdamWork> made(new EmaAdamWork(call.spec.name));
  made->mode = RoleInt(call, family, F::Role::kMode, 0);
  if (made->mode != 0 && made->mode != 1) {
    return reject(F::Role::kMode, std::to_string(made->mode) + " is neither 0 (L2) nor 1 (AdamW)");
  }
  made->lr = RoleNumber(call, family, F::Role::kLr, -1, 0);
  made->ema_decay = RoleNumber(call, family, F::Role::kEmaDecay, -1, 0);
  made->beta1 = RoleNumber(call, family, F::Role::kBeta1, -1, 0);
  made->beta2 = RoleNumber(call, family, F::Role::kBeta2, -1, 0);
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 0);
  made->weight_decay = RoleNumber(call, family, F::Role::kWeightDecay, -1, 0);
  made->bias_correction = RoleBool(call, family, F::Role::kBiasCorrection, false);
  const int slots[5] = {kGrad, kVar, kM, kV, kS};
  for (int i = 0; i < 5; ++i) made->tensor(slots[i]).Set(RoleName(call, family, roles[i]), *tensors[i]);
  made->tensor(kStep).Set(RoleName(call, family, F::Role::kStep), *step);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
