// The adam family: an AdamW step whose hyperparameters are one-element tensors
// (aclnnApplyAdamW; torch_npu.npu_apply_adam_w reaches it where op-plugin runs aclnn alone), by
// the page's formula, in float whatever the storage:
//   g = -grad with maximize, else grad
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
//   v = max(maxGradNorm, v) with amsgrad (written to v, as the page says)
//   var = var - lr * weightDecay * var - lr * (m / (1 - beta1Power * beta1)) /
//         (sqrt(v / (1 - beta2Power * beta2)) + eps)
// beta1Power and beta2Power are beta^(t-1) (the page: "beta1^(t-1)参数"). amsgrad without
// maxGradNormOptional is refused by name (the page: required then). Elements spread over threads.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = AdamFamily;

enum Slot { kVar, kM, kV, kGrad, kMaxV, kBeta1Power, kBeta2Power, kLr, kWeightDecay, kBeta1, kBeta2, kEps, kSlots };

class AdamWork final : public FamilyWork {
 public:
  explicit AdamWork(const char* api) : FamilyWork(api, kSlots) {}

  bool amsgrad = false, maximize = false;

 private:
  float Scalar(int slot) {
    float value;
    GatherAs(tensor(slot), ComputeType::kFloat32, &value);
    return value;
  }

  aclnnStatus Compute() override {
    const int64_t n = tensor(kVar).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const float b1p = Scalar(kBeta1Power), b2p = Scalar(kBeta2Power), lr = Scalar(kLr), wd = Scalar(kWeightDecay);
    const float b1 = Scalar(kBeta1), b2 = Scalar(kBeta2), eps = Scalar(kEps);
    const float c1 = 1.0f - b1p * b1, c2 = 1.0f - b2p * b2;
    float* var = static_cast<float*>(Scratch(0, static_cast<size_t>(n) * sizeof(float) * 3));
    float* m = var + n;
    float* v = m + n;
    GatherAs(tensor(kVar), ComputeType::kFloat32, var);
    GatherAs(tensor(kM), ComputeType::kFloat32, m);
    GatherAs(tensor(kV), ComputeType::kFloat32, v);
    const float* g = static_cast<const float*>(ContiguousAs(tensor(kGrad), ComputeType::kFloat32, 1));
    const float* max_v = amsgrad ? static_cast<const float*>(ContiguousAs(tensor(kMaxV), ComputeType::kFloat32, 2))
                                 : nullptr;
    auto step = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const float gi = maximize ? -g[i] : g[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        // NaN-propagating, as torch.maximum: std::max would keep max_v beside a NaN v.
        if (amsgrad && (max_v[i] > v[i] || max_v[i] != max_v[i])) v[i] = max_v[i];
        var[i] = var[i] - lr * wd * var[i] - lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
      }
    };
    const int64_t tasks = n < (1 << 16) ? 1 : std::min<int64_t>(n / (1 << 14), ParallelThreads() * 4);
    if (tasks <= 1) {
      step(0, n);
    } else {
      ParallelFor(tasks, [&](int64_t t) { step(n * t / tasks, n * (t + 1) / tasks); });
    }
    ScatterFrom(var, ComputeType::kFloat32, tensor(kVar));
    ScatterFrom(m, ComputeType::kFloat32, tensor(kM));
    ScatterFrom(v, ComputeType::kFloat32, tensor(kV));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanAdam(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  static const struct {
    int role, slot;
  } kTensors[] = {{F::Role::kVar, kVar},
                  {F::Role::kM, kM},
                  {F::Role::kV, kV},
                  {F::Role::kGrad, kGrad},
                  {F::Role::kBeta1Power, kBeta1Power},
                  {F::Role::kBeta2Power, kBeta2Power},
                  {F::Role::kLr, kLr},
                  {F::Role::kWeightDecay, kWeightDecay},
                  {F::Role::kBeta1, kBeta1},
                  {F::Role::kBeta2, kBeta2},
                  {F::Role::kEps, kEps}};
  AdamWork* made = new AdamWork(call.spec.name);
  std::unique_ptr<AdamWork> owned(made);
  const TensorDesc* var = RoleTensor(call, family, F::Role::kVar);
  if (!var) return Decline(call, work, "without its tensors");
  for (const auto& t : kTensors) {
    const TensorDesc* desc = RoleTensor(call, family, t.role);
    if (!desc) return Decline(call, work, "without its tensors");
    int64_t count = 1;
    for (int64_t e : desc->view) count *= e;
    const bool scalar = t.slot >= kBeta1Power;
    if (scalar ? count != 1 : desc->view != var->view) {
      return RejectParam(call, family, t.role, ACLNN_ERR_PARAM_INVALID,
                         "shape " + DimsText(desc->view) + " is not " + (scalar ? "[1]" : "varRef's " + DimsText(var->view)));
    }
    made->tensor(t.slot).Set(RoleName(call, family, t.role), *desc);
  }
  ComputeType type;
  if (!FamilyComputeType(var->dtype, false, &type) || type != ComputeType::kFloat32) {
    return Decline(call, work, std::string("for dtype ") + DTypeName(var->dtype));
  }
  made->amsgrad = RoleBool(call, family, F::Role::kAmsgrad, false);
  made->maximize = RoleBool(call, family, F::Role::kMaximize, false);
  if (made->amsgrad) {
    const TensorDesc* max_v = RoleTensor(call, family, F::Role::kMaxGradNorm);
    if (!max_v) {
      return RejectParam(call, family, F::Role::kMaxGradNorm, ACLNN_ERR_PARAM_NULLPTR,
                         "is required when amsgrad is true");
    }
    if (max_v->view != var->view) {
      return RejectParam(call, family, F::Role::kMaxGradNorm, ACLNN_ERR_PARAM_INVALID,
                         "shape " + DimsText(max_v->view) + " is not varRef's " + DimsText(var->view));
    }
    made->tensor(kMaxV).Set(RoleName(call, family, F::Role::kMaxGradNorm), *max_v);
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
