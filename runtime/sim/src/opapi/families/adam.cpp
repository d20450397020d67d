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
//
// apply_adam (aclnnApplyAdam, aclnnApplyAdamD; torch_npu.npu_apply_adam(..., out=(var, m, v)) on an
// aclnn-only chip): TF's ApplyAdam, the beta powers being beta^t:
//   lr' = lr * sqrt(1 - beta2Power) / (1 - beta1Power)
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g^2
//   var = var - lr' * (nesterov ? beta1 * m + (1 - beta1) * g : m) / (sqrt(v) + eps)
// written to varOut, mOut, vOut where the API has them, else in place.
// apply_ftrl (aclnnApplyFtrl): TF's ApplyFtrl, var, accum and linear updated in place:
//   accum' = accum + g^2
//   linear = linear + g - (accum'^-lrPower - accum^-lrPower) / lr * var
//   var = |linear| > l1 ? (sign(linear) * l1 - linear) / (accum'^-lrPower / lr + 2 * l2) : 0
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = AdamFamily;

enum Slot { kVar, kM, kV, kGrad, kMaxV, kBeta1Power, kBeta2Power, kLr, kWeightDecay, kBeta1, kBeta2, kEps, kSlots };

// A step's hyperparameter: the first element of a [1] (or 0-d) tensor, read as float.
float FirstAsFloat(const TensorRef& t) {
  float value;
  GatherAs(t, ComputeType::kFloat32, &value);
  return value;
}

class AdamWork final : public FamilyWork {
 public:
  explicit AdamWork(const char* api) : FamilyWork(api, kSlots) {}

  bool amsgrad = false, maximize = false;

 private:

  aclnnStatus Compute() override {
    const int64_t n = tensor(kVar).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const float b1p = FirstAsFloat(tensor(kBeta1Power)), b2p = FirstAsFloat(tensor(kBeta2Power));
    const float lr = FirstAsFloat(tensor(kLr)), wd = FirstAsFloat(tensor(kWeightDecay));
    const float b1 = FirstAsFloat(tensor(kBeta1)), b2 = FirstAsFloat(tensor(kBeta2)), eps = FirstAsFloat(tensor(kEps));
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

// apply_adam and apply_ftrl: three state tensors read, stepped in float and written back (to
// their own outputs where the API has them).
enum StepSlot { kS0, kS1, kS2, kSGrad, kSOut0, kSOut1, kSOut2, kH0, kH1, kH2, kH3, kH4, kH5, kStepSlots };

class StepWork final : public FamilyWork {
 public:
  StepWork(const char* api, int op) : FamilyWork(api, kStepSlots), op_(op) {}

  bool nesterov = false;
  bool outputs = false;  // varOut, mOut, vOut given: the inputs stay as they were

 private:

  aclnnStatus Compute() override {
    const int64_t n = tensor(kS0).numel();
    if (n == 0) return ACLNN_SUCCESS;
    float h[6];
    for (int k = 0; k < (op_ == F::Op::kApplyAdam ? 6 : 4); ++k) h[k] = FirstAsFloat(tensor(kH0 + k));
    float* a = static_cast<float*>(Scratch(0, static_cast<size_t>(n) * sizeof(float) * 3));
    float* b = a + n;
    float* c = b + n;
    GatherAs(tensor(kS0), ComputeType::kFloat32, a);
    GatherAs(tensor(kS1), ComputeType::kFloat32, b);
    GatherAs(tensor(kS2), ComputeType::kFloat32, c);
    const float* g = static_cast<const float*>(ContiguousAs(tensor(kSGrad), ComputeType::kFloat32, 1));
    std::function<void(int64_t, int64_t)> step;
    if (op_ == F::Op::kApplyAdam) {  // a: var, b: m, c: v; h: beta1Power, beta2Power, lr, beta1, beta2, eps
      const float b1 = h[3], b2 = h[4], eps = h[5];
      const float lr = h[2] * std::sqrt(1.0f - h[1]) / (1.0f - h[0]);
      step = [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          b[i] = b1 * b[i] + (1.0f - b1) * g[i];
          c[i] = b2 * c[i] + (1.0f - b2) * g[i] * g[i];
          const float m = nesterov ? b1 * b[i] + (1.0f - b1) * g[i] : b[i];
          a[i] = a[i] - lr * m / (std::sqrt(c[i]) + eps);
        }
      };
    } else {  // a: var, b: accum, c: linear; h: lr, l1, l2, lrPower
      const float lr = h[0], l1 = h[1], l2 = h[2], power = h[3];
      step = [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const float accum = b[i] + g[i] * g[i];
          const float now = std::pow(accum, -power);
          c[i] = c[i] + g[i] - (now - std::pow(b[i], -power)) / lr * a[i];
          const float sign = static_cast<float>((c[i] > 0) - (c[i] < 0));
          a[i] = std::fabs(c[i]) > l1 ? (sign * l1 - c[i]) / (now / lr + 2.0f * l2) : 0.0f;
          b[i] = accum;
        }
      };
    }
    const int64_t tasks = n < (1 << 16) ? 1 : std::min<int64_t>(n / (1 << 14), ParallelThreads() * 4);
    if (tasks <= 1) {
      step(0, n);
    } else {
      ParallelFor(tasks, [&](int64_t t) { step(n * t / tasks, n * (t + 1) / tasks); });
    }
    ScatterFrom(a, ComputeType::kFloat32, tensor(outputs ? kSOut0 : kS0));
    ScatterFrom(b, ComputeType::kFloat32, tensor(outputs ? kSOut1 : kS1));
    ScatterFrom(c, ComputeType::kFloat32, tensor(outputs ? kSOut2 : kS2));
    return ACLNN_SUCCESS;
  }

  int op_;
};

aclnnStatus PlanStep(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const bool adam = family.op == F::Op::kApplyAdam;
  const int states[3] = {F::Role::kVar, adam ? F::Role::kM : F::Role::kAccum, adam ? F::Role::kV : F::Role::kLinear};
  const int outs[3] = {F::Role::kVarOut, F::Role::kMOut, F::Role::kVOut};
  const int adam_scalars[6] = {F::Role::kBeta1Power, F::Role::kBeta2Power, F::Role::kLr,
                               F::Role::kBeta1, F::Role::kBeta2, F::Role::kEps};
  const int ftrl_scalars[4] = {F::Role::kLr, F::Role::kL1, F::Role::kL2, F::Role::kLrPower};
  std::unique_ptr<StepWork> made(new StepWork(call.spec.name, family.op));
  const TensorDesc* var = RoleTensor(call, family, F::Role::kVar);
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGrad);
  if (!var || !grad) return Decline(call, work, "without its tensors");
  auto shaped = [&](int role, int slot, bool scalar) -> aclnnStatus {
    const TensorDesc* desc = RoleTensor(call, family, role);
    if (!desc) return Decline(call, work, std::string("without ") + RoleName(call, family, role));
    if (scalar ? desc->numel() != 1 : desc->view != var->view) {
      return RejectInvalid(call, family, role,
                           "shape " + DimsText(desc->view) + " is not " +
                               (scalar ? std::string("one element") : std::string("the parameter's ") + DimsText(var->view)));
    }
    // The scalars are read as float whatever their dtype (op-plugin sends FLOAT ones beside a FLOAT16 var).
    if (!scalar && desc->dtype != var->dtype) {
      return RejectInvalid(call, family, role,
                           std::string("dtype ") + DTypeName(desc->dtype) + " differs from the parameter's " + DTypeName(var->dtype));
    }
    made->tensor(slot).Set(RoleName(call, family, role), *desc);
    return ACLNN_SUCCESS;
  };
  for (int k = 0; k < 3; ++k) {
    if (aclnnStatus s = shaped(states[k], kS0 + k, false)) return s;
  }
  if (aclnnStatus s = shaped(F::Role::kGrad, kSGrad, false)) return s;
  for (int k = 0; k < (adam ? 6 : 4); ++k) {
    if (aclnnStatus s = shaped(adam ? adam_scalars[k] : ftrl_scalars[k], kH0 + k, true)) return s;
  }
  made->outputs = adam && RoleTensor(call, family, F::Role::kVarOut) != nullptr;
  for (int k = 0; made->outputs && k < 3; ++k) {
    if (aclnnStatus s = shaped(outs[k], kSOut0 + k, false)) return s;
  }
  if (!ComputesInFloat32(var->dtype)) return DeclineDtype(call, work, var->dtype);
  made->nesterov = RoleBool(call, family, F::Role::kNesterov, false);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanAdam(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op != F::Op::kApplyAdamw) return PlanStep(call, family, work);
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
      return RejectInvalid(call, family, t.role,
                           "shape " + DimsText(desc->view) + " is not " + (scalar ? "[1]" : "varRef's " + DimsText(var->view)));
    }
    made->tensor(t.slot).Set(RoleName(call, family, t.role), *desc);
  }
  if (!ComputesInFloat32(var->dtype)) return DeclineDtype(call, work, var->dtype);
  made->amsgrad = RoleBool(call, family, F::Role::kAmsgrad, false);
  made->maximize = RoleBool(call, family, F::Role::kMaximize, false);
  if (made->amsgrad) {
    const TensorDesc* max_v = RoleTensor(call, family, F::Role::kMaxGradNorm);
    if (!max_v) {
      return RejectParam(call, family, F::Role::kMaxGradNorm, ACLNN_ERR_PARAM_NULLPTR,
                         "is required when amsgrad is true");
    }
    if (max_v->view != var->view) {
      return RejectInvalid(call, family, F::Role::kMaxGradNorm,
                           "shape " + DimsText(max_v->view) + " is not varRef's " + DimsText(var->view));
    }
    made->tensor(kMaxV).Set(RoleName(call, family, F::Role::kMaxGradNorm), *max_v);
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
