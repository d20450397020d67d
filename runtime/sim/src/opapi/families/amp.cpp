// The amp family (mixed precision's loss scaling): unscale (aclnnForeachNonFiniteCheckAndUnscale:
// every gradient times invScale, foundInf set to 1 where one is not finite) and update_scale
// (aclnnAmpUpdateScale: torch._amp_update_scale_), in place.
//
// Each gradient is gathered into a float buffer, scaled, and scattered back: any strides.
#include <cmath>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using A = AmpFamily;

enum AmpSlot { kFoundInf, kInvScale, kScale, kTracker, kScaleOut, kTrackerOut, kAmpSlots };

class AmpWork final : public FamilyWork {
 public:
  AmpWork(const char* api, int op, int grads, double growth, double backoff, int64_t interval)
      : FamilyWork(api, kAmpSlots + grads), op_(op), grads_(grads), growth_(growth), backoff_(backoff),
        interval_(interval) {}

 private:
  void Store(int slot, double v) { ScatterFrom(&v, ComputeType::kFloat64, tensor(slot)); }

  aclnnStatus Compute() override {
    if (op_ == A::Op::kUnscale) {
      const float inv = static_cast<float>(OneValue(tensor(kInvScale)));
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
    const float scale = static_cast<float>(OneValue(tensor(kScale)));
    const double tracker = OneValue(tensor(kTracker));
    float updated = scale;
    double count = 0;
    if (OneValue(tensor(kFoundInf)) != 0) {
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
  const std::vector<const TensorDesc*> grads = RoleMembers(call, family, A::Role::kGrads);
  const int singles[] = {A::Role::kFoundInf, A::Role::kInvScale, A::Role::kScale, A::Role::kTracker,
                         A::Role::kScaleOut, A::Role::kTrackerOut};
  for (int role : singles) {
    if (aclnnStatus s = CheckOneElement(call, family, role, RoleTensor(call, family, role))) return s;
  }
  for (const TensorDesc* g : grads) {
    if (!ComputesInFloat32(g->dtype)) return DeclineDtype(call, work, g->dtype);
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
