// The optim family (optimizer steps): adamw (aclnnApplyAdamWV2: one parameter, its m, v and amsgrad
// maximum) and sgd (aclnnFusedSgd: lists of parameters, gradients and momentum buffers), as
// torch.optim's fused steps compute them (torch._fused_adamw_, torch._fused_sgd_), updating
// parameters and their state in place, member by member of their lists, in float whatever the
// storage dtype (FLOAT16, BFLOAT16 are read into float and rounded once when stored). Mixed
// precision's loss scaling is the amp family's (amp.cpp).
//
// Each member's tensors are gathered into float buffers, stepped, and scattered back: any strides,
// and a tensor may be the same memory as no other (each is written once, after all are read).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using O = OptimFamily;

// Per member: its parameter, gradient, state and step (a list of steps: aclnnFusedAdamw's
// stateSteps); then the step, gradient scale and found-inf tensors shared by every member.
enum OptimSlot { kVar, kM, kV, kMaxV, kGrad, kMemberStep, kPerMember };
constexpr int kStateSlots = kMemberStep;  // the slots checked against the parameter's shape

struct OptimArgs {
  double lr = 0, beta1 = 0, beta2 = 0, weight_decay = 0, eps = 0, momentum = 0, dampening = 0;
  bool amsgrad = false, maximize = false, nesterov = false, first_step = false;
  // AdamW's t is the step tensor's value plus this: 1 where op-plugin passes state_steps - 1
  // (aclnnApplyAdamWV2), 0 where the step is t itself (aclnnFusedAdamw, torch._fused_adamw_'s).
  double step_offset = 1;
};

class OptimWork final : public FamilyWork {
 public:
  OptimWork(const char* api, int op, int members, const OptimArgs& args)
      : FamilyWork(api, members * kPerMember + 3), op_(op), members_(members), args_(args) {}
  int step_slot() const { return members_ * kPerMember; }
  int scale_slot() const { return members_ * kPerMember + 1; }
  int found_inf_slot() const { return members_ * kPerMember + 2; }

 private:
  bool Has(int slot) const { return tensor(slot).dtype != ACL_DT_UNDEFINED; }

  float* Load(int slot, int scratch) const {
    float* buffer = static_cast<float*>(Scratch(scratch, sizeof(float) * std::max<int64_t>(tensor(slot).numel(), 1)));
    GatherAs(tensor(slot), ComputeType::kFloat32, buffer);
    return buffer;
  }

  aclnnStatus Compute() override {
    const double step = Has(step_slot()) ? OneValue(tensor(step_slot())) : 0;
    const double grad_scale = Has(scale_slot()) ? OneValue(tensor(scale_slot())) : 1;
    // torch._fused_adamw_'s found_inf: exactly 1 skips the step (nothing is written).
    if (op_ == O::Op::kAdamw && Has(found_inf_slot()) && OneValue(tensor(found_inf_slot())) == 1) return ACLNN_SUCCESS;
    for (int i = 0; i < members_; ++i) {
      const int base = i * kPerMember;
      const int64_t n = tensor(base + kVar).numel();
      if (n == 0) continue;
      float* var = Load(base + kVar, 0);
      float* grad = Load(base + kGrad, 1);
      if (op_ == O::Op::kAdamw) {
        if (Has(scale_slot())) {  // the gradients divided by the scale, not written back
          for (int64_t k = 0; k < n; ++k) grad[k] /= static_cast<float>(grad_scale);
        }
        AdamW(base, n, Has(base + kMemberStep) ? OneValue(tensor(base + kMemberStep)) : step, var, grad);
      } else {
        Sgd(base, n, grad_scale, var, grad);
      }
      ScatterFrom(var, ComputeType::kFloat32, tensor(base + kVar));
    }
    return ACLNN_SUCCESS;
  }

  // torch's AdamW step t is the step tensor's value plus args_.step_offset.
  void AdamW(int base, int64_t n, double step, float* var, float* grad) {
    float* m = Load(base + kM, 2);
    float* v = Load(base + kV, 3);
    const bool amsgrad = args_.amsgrad && Has(base + kMaxV);
    float* max_v = amsgrad ? Load(base + kMaxV, 4) : nullptr;
    const double t = step + args_.step_offset;
    const float beta1 = static_cast<float>(args_.beta1), beta2 = static_cast<float>(args_.beta2);
    const float decay = static_cast<float>(1 - args_.lr * args_.weight_decay);
    const float step_size = static_cast<float>(args_.lr / (1 - std::pow(args_.beta1, t)));
    const float correction2_sqrt = static_cast<float>(std::sqrt(1 - std::pow(args_.beta2, t)));
    const float eps = static_cast<float>(args_.eps);
    for (int64_t k = 0; k < n; ++k) {
      const float g = args_.maximize ? -grad[k] : grad[k];
      var[k] *= decay;
      m[k] += (g - m[k]) * (1 - beta1);
      v[k] = v[k] * beta2 + (1 - beta2) * g * g;
      float second = v[k];
      // torch.maximum's: a NaN second moment (a NaN gradient's) stays NaN, as in torch.optim's
      // AdamW; std::max would drop it for the old maximum.
      if (max_v) second = max_v[k] = v[k] != v[k] ? v[k] : std::max(max_v[k], v[k]);
      var[k] -= step_size * m[k] / (std::sqrt(second) / correction2_sqrt + eps);
    }
    ScatterFrom(m, ComputeType::kFloat32, tensor(base + kM));
    ScatterFrom(v, ComputeType::kFloat32, tensor(base + kV));
    if (max_v) ScatterFrom(max_v, ComputeType::kFloat32, tensor(base + kMaxV));
  }

  // The gradient is stored back unscaled (the page's g_{t+1}); the momentum buffer, where there
  // is one, starts as the gradient on the first step.
  void Sgd(int base, int64_t n, double grad_scale, float* var, float* grad) {
    const bool scaled = Has(scale_slot());
    const float inv = static_cast<float>(grad_scale);
    float* buffer = Has(base + kM) ? Load(base + kM, 2) : nullptr;
    const float decay = static_cast<float>(args_.weight_decay), momentum = static_cast<float>(args_.momentum);
    const float keep = static_cast<float>(1 - args_.dampening), lr = static_cast<float>(args_.lr);
    for (int64_t k = 0; k < n; ++k) {
      if (scaled) grad[k] /= inv;
      float g = args_.maximize ? -grad[k] : grad[k];
      if (decay != 0) g += decay * var[k];
      if (buffer) {
        buffer[k] = args_.first_step ? g : momentum * buffer[k] + keep * g;
        g = args_.nesterov ? g + momentum * buffer[k] : buffer[k];
      }
      var[k] -= lr * g;
    }
    if (buffer) ScatterFrom(buffer, ComputeType::kFloat32, tensor(base + kM));
    if (scaled) ScatterFrom(grad, ComputeType::kFloat32, tensor(base + kGrad));
  }

  int op_;
  int members_;
  OptimArgs args_;
};

}  // namespace

aclnnStatus PlanOptim(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t*) {
  const int op = family.op;
  const std::vector<const TensorDesc*> var = RoleMembers(call, family, O::Role::kVar);
  const int roles[] = {O::Role::kVar, O::Role::kM, O::Role::kV, O::Role::kMaxV, O::Role::kGrad, O::Role::kStep};
  std::vector<const TensorDesc*> state[kPerMember];
  for (int s = 0; s < kStateSlots; ++s) state[s] = RoleMembers(call, family, roles[s]);
  // A list of steps is one per member; a single step tensor is every member's (step_slot).
  if (RoleTensorList(call, family, O::Role::kStep)) state[kMemberStep] = RoleMembers(call, family, O::Role::kStep);
  OptimArgs args;
  args.lr = RoleNumber(call, family, O::Role::kLr, -1, 0);
  args.beta1 = RoleNumber(call, family, O::Role::kBeta1, -1, 0);
  args.beta2 = RoleNumber(call, family, O::Role::kBeta2, -1, 0);
  args.weight_decay = RoleNumber(call, family, O::Role::kWeightDecay, -1, 0);
  args.eps = RoleNumber(call, family, O::Role::kEps, -1, 0);
  args.momentum = RoleNumber(call, family, O::Role::kMomentum, -1, 0);
  args.dampening = RoleNumber(call, family, O::Role::kDampening, -1, 0);
  args.amsgrad = RoleBool(call, family, O::Role::kAmsgrad, false);
  args.maximize = RoleBool(call, family, O::Role::kMaximize, false);
  args.nesterov = RoleBool(call, family, O::Role::kNesterov, false);
  args.first_step = RoleBool(call, family, O::Role::kFirstStep, false);
  args.step_offset = RoleNumber(call, family, O::Role::kStepOffset, 0, 1);
  if (op == O::Op::kAdamw && args.amsgrad && state[kMaxV].empty()) {
    return RejectParam(call, family, O::Role::kMaxV, ACLNN_ERR_PARAM_NULLPTR, "is required when amsgrad is true");
  }
  const size_t n = var.size();
  for (int s = 0; s < kPerMember; ++s) {
    // Absent state (no momentum buffers, no amsgrad maximum) is no state; present, one per parameter.
    if (state[s].empty() || state[s].size() == n) continue;
    return RejectInvalid(call, family, roles[s],
                         "holds " + std::to_string(state[s].size()) + " tensors for " + std::to_string(n) + " parameters");
  }
  for (size_t i = 0; i < n; ++i) {
    if (!state[kMemberStep].empty()) {
      if (aclnnStatus s = CheckOneElement(call, family, O::Role::kStep, state[kMemberStep][i])) return s;
    }
    for (int s = 0; s < kStateSlots; ++s) {
      if (state[s].empty()) continue;
      const TensorDesc& t = *state[s][i];
      if (!ComputesInFloat32(t.dtype)) return DeclineDtype(call, work, t.dtype);
      if (t.view != var[i]->view) {
        return RejectInvalid(call, family, roles[s],
                             "member " + std::to_string(i) + ": shape " + DimsText(t.view) + " is not the parameter's " +
                                 DimsText(var[i]->view));
      }
    }
  }
  const TensorDesc* step = RoleTensor(call, family, O::Role::kStep);
  const TensorDesc* scale = RoleTensor(call, family, O::Role::kGradScale);
  const TensorDesc* found_inf = RoleTensor(call, family, O::Role::kFoundInf);
  if (aclnnStatus s = CheckOneElement(call, family, O::Role::kStep, step)) return s;
  if (aclnnStatus s = CheckOneElement(call, family, O::Role::kGradScale, scale)) return s;
  if (aclnnStatus s = CheckOneElement(call, family, O::Role::kFoundInf, found_inf)) return s;
  OptimWork* made = new OptimWork(call.spec.name, op, static_cast<int>(n), args);
  for (size_t i = 0; i < n; ++i) {
    for (int s = 0; s < kPerMember; ++s) {
      if (!state[s].empty()) made->tensor(static_cast<int>(i) * kPerMember + s).Set(RoleName(call, family, roles[s]), *state[s][i]);
    }
  }
  if (step) made->tensor(made->step_slot()).Set(RoleName(call, family, O::Role::kStep), *step);
  if (scale) made->tensor(made->scale_slot()).Set(RoleName(call, family, O::Role::kGradScale), *scale);
  if (found_inf) made->tensor(made->found_inf_slot()).Set(RoleName(call, family, O::Role::kFoundInf), *found_inf);
  *work = made;
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
