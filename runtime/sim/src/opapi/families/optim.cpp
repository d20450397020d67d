// The optim family (optimizer steps) and the amp family (mixed precision's loss scaling): they
// update parameters, their state and gradients in place, member by member of their lists.
//
// optim: adamw (aclnnApplyAdamWV2: one parameter, its m, v and amsgrad maximum) and sgd
// (aclnnFusedSgd: lists of parameters, gradients and momentum buffers), as torch.optim's fused
// steps compute them (torch._fused_adamw_, torch._fused_sgd_), in float whatever the storage
// dtype (FLOAT16, BFLOAT16 are read into float and rounded once when stored).
// amp: unscale (aclnnForeachNonFiniteCheckAndUnscale: every gradient times invScale, foundInf set
// to 1 where one is not finite) and update_scale (aclnnAmpUpdateScale: torch._amp_update_scale_).
//
// Each member's tensors are gathered into float buffers, stepped, and scattered back: any strides,
// and a tensor may be the same memory as no other (each is written once, after all are read).
#include <algorithm>
#include <cmath>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using O = OptimFamily;
using A = AmpFamily;

// --- optim ----------------------------------------------------------------------------------------

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

  // One value of a one-element tensor, as double.
  double Value(int slot) const {
    double v = 0;
    GatherAs(tensor(slot), ComputeType::kFloat64, &v);
    return v;
  }

  float* Load(int slot, int scratch) const {
    float* buffer = static_cast<float*>(Scratch(scratch, sizeof(float) * std::max<int64_t>(tensor(slot).numel(), 1)));
    GatherAs(tensor(slot), ComputeType::kFloat32, buffer);
    return buffer;
  }

  aclnnStatus Compute() override {
    const double step = Has(step_slot()) ? Value(step_slot()) : 0;
    const double grad_scale = Has(scale_slot()) ? Value(scale_slot()) : 1;
    // torch._fused_adamw_'s found_inf: exactly 1 skips the step (nothing is written).
    if (op_ == O::Op::kAdamw && Has(found_inf_slot()) && Value(found_inf_slot()) == 1) return ACLNN_SUCCESS;
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
        AdamW(base, n, Has(base + kMemberStep) ? Value(base + kMemberStep) : step, var, grad);
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

// The members of a role: a list's, or one tensor as a list of one; empty when absent.
std::vector<const TensorDesc*> Members(const Call& call, const FamilySpec& family, int role) {
  std::vector<const TensorDesc*> members;
  if (const std::vector<TensorDesc>* list = RoleTensorList(call, family, role)) {
    for (const TensorDesc& t : *list) members.push_back(&t);
  } else if (const TensorDesc* t = RoleTensor(call, family, role)) {
    members.push_back(t);
  }
  return members;
}

bool Floating(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}

// A one-element tensor of a role; else the rejection naming it.
aclnnStatus CheckOneElement(const Call& call, const FamilySpec& family, int role, const TensorDesc* t) {
  if (t == nullptr || t->numel() == 1) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role, "shape " + DimsText(t->view) + " is not one element");
}

}  // namespace

aclnnStatus PlanOptim(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t*) {
  const int op = family.op;
  const std::vector<const TensorDesc*> var = Members(call, family, O::Role::kVar);
  const int roles[] = {O::Role::kVar, O::Role::kM, O::Role::kV, O::Role::kMaxV, O::Role::kGrad, O::Role::kStep};
  std::vector<const TensorDesc*> state[kPerMember];
  for (int s = 0; s < kStateSlots; ++s) state[s] = Members(call, family, roles[s]);
  // A list of steps is one per member; a single step tensor is every member's (step_slot).
  if (RoleTensorList(call, family, O::Role::kStep)) state[kMemberStep] = Members(call, family, O::Role::kStep);
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
      if (!Floating(t.dtype)) return DeclineDtype(call, work, t.dtype);
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

// --- amp ------------------------------------------------------------------------------------------

namespace {

enum AmpSlot { kFoundInf, kInvScale, kScale, kTracker, kScaleOut, kTrackerOut, kAmpSlots };

class AmpWork final : public FamilyWork {
 public:
  AmpWork(const char* api, int op, int grads, double growth, double backoff, int64_t interval)
      : FamilyWork(api, kAmpSlots + grads), op_(op), grads_(grads), growth_(growth), backoff_(backoff),
        interval_(interval) {}

 private:
  double Value(int slot) const {
    double v = 0;
    GatherAs(tensor(slot), ComputeType::kFloat64, &v);
    return v;
  }
  void Store(int slot, double v) { ScatterFrom(&v, ComputeType::kFloat64, tensor(slot)); }

  aclnnStatus Compute() override {
    if (op_ == A::Op::kUnscale) {
      const float inv = static_cast<float>(Value(kInvScale));
      bool found = false;
      for (int i = 0; i < grads_; ++i) {
        const TensorRef& g = tensor(kAmpSlots + i);
        const int64_t n = g.numel();
        if (n == 0) continue;
        float* x = static_cast<float*>(Scratch(0, sizeof(float) * static_cast<size_t>(n)));
        GatherAs(g, ComputeType::kFloat32, x);
        for (int64_t k = 0; k < n; ++k) {
          found |= !std::isfinite(x[k]);
          x[k] *= inv;
        }
        ScatterFrom(x, ComputeType::kFloat32, g);
      }
      if (found) Store(kFoundInf, 1.0);
      return ACLNN_SUCCESS;
    }
    // torch._amp_update_scale_: back off on an overflow; grow after `interval` clean steps, unless
    // the grown scale is not finite.
    const float scale = static_cast<float>(Value(kScale));
    const double tracker = Value(kTracker);
    float updated = scale;
    double count = 0;
    if (Value(kFoundInf) != 0) {
      updated = scale * static_cast<float>(backoff_);
    } else if (tracker + 1 == static_cast<double>(interval_)) {
      const float grown = scale * static_cast<float>(growth_);
      if (std::isfinite(grown)) updated = grown;
    } else {
      count = tracker + 1;
    }
    Store(kScaleOut, updated);
    Store(kTrackerOut, count);
    return ACLNN_SUCCESS;
  }

  int op_;
  int grads_;
  double growth_, backoff_;
  int64_t interval_;
};

}  // namespace

aclnnStatus PlanAmp(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t*) {
  const int op = family.op;
  const std::vector<const TensorDesc*> grads = Members(call, family, A::Role::kGrads);
  const int singles[] = {A::Role::kFoundInf, A::Role::kInvScale, A::Role::kScale, A::Role::kTracker,
                         A::Role::kScaleOut, A::Role::kTrackerOut};
  for (int role : singles) {
    if (aclnnStatus s = CheckOneElement(call, family, role, RoleTensor(call, family, role))) return s;
  }
  for (const TensorDesc* g : grads) {
    if (!Floating(g->dtype)) return DeclineDtype(call, work, g->dtype);
  }
  const double growth = RoleNumber(call, family, A::Role::kGrowthFactor, -1, 1);
  const double backoff = RoleNumber(call, family, A::Role::kBackoffFactor, -1, 1);
  const int64_t interval = RoleInt(call, family, A::Role::kGrowthInterval, 1);
  AmpWork* made = new AmpWork(call.spec.name, op, static_cast<int>(grads.size()), growth, backoff, interval);
  for (int slot = 0; slot < kAmpSlots; ++slot) {
    if (const TensorDesc* t = RoleTensor(call, family, singles[slot])) {
      made->tensor(slot).Set(RoleName(call, family, singles[slot]), *t);
    }
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    made->tensor(kAmpSlots + static_cast<int>(i)).Set(RoleName(call, family, A::Role::kGrads), *grads[i]);
  }
  *work = made;
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
