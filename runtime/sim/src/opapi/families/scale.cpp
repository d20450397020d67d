// The scale family: aclnnScale, Caffe's Scale layer: y = x * scale (+ bias), scale and bias
// covering x's dimensions from axis (the page's rule):
//   scaleFromBlob:   scale's shape is x's [axis, axis + numAxes) (numAxes -1: to the last);
//   otherwise:       scale's shape is x's [axis, axis + scale's rank).
// bias, when given, has scale's shape. Shapes off that rule, and numAxes below -1, are refused by
// name in phase 1 (161002). In float (double for DOUBLE), rounded once to y's dtype; any strides.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = ScaleFamily;

enum Slot { kX, kScale, kBias, kOut, kSlots };

class ScaleWork final : public FamilyWork {
 public:
  explicit ScaleWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t axis = 0;

 private:
  // `t` (scale or bias) seen with x's shape: its dimensions placed from axis, stride 0 elsewhere.
  TensorRef Spread(const TensorRef& t) const {
    const TensorRef& x = tensor(kX);
    TensorRef ref = t;
    ref.shape = x.shape;
    ref.strides.assign(x.shape.size(), 0);
    for (size_t d = 0; d < t.shape.size(); ++d) ref.strides[static_cast<size_t>(axis) + d] = t.strides[d];
    return ref;
  }

  aclnnStatus Compute() override {
    const int64_t n = tensor(kX).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const bool has_bias = tensor(kBias).dtype != ACL_DT_UNDEFINED;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> x(static_cast<size_t>(n)), s(static_cast<size_t>(n)), b(has_bias ? static_cast<size_t>(n) : 0);
      GatherAs(tensor(kX), type, x.data());
      GatherAs(Spread(tensor(kScale)), type, s.data());
      if (has_bias) GatherAs(Spread(tensor(kBias)), type, b.data());
      for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] * s[static_cast<size_t>(i)] +
                                                                  (has_bias ? b[static_cast<size_t>(i)] : T(0));
      ScatterFrom(x.data(), type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanScale(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !scale || !out) return Decline(call, work, "without x, scale or y");
  ComputeType type;
  if (!FamilyComputeType(x->dtype, false, &type) || IsIntegralType(x->dtype)) {
    return DeclineDtype(call, work, x->dtype);
  }
  const ParamRejecter reject(call, family);
  const int64_t rank = static_cast<int64_t>(x->view.size());
  int64_t axis = 0;
  if (!WrapDim(RoleInt(call, family, F::Role::kAxis, 0), rank, &axis)) {
    return reject(F::Role::kAxis, std::to_string(RoleInt(call, family, F::Role::kAxis, 0)) + " is outside [-" +
                                      std::to_string(rank) + ", " + std::to_string(rank) + ")");
  }
  int64_t covered = static_cast<int64_t>(scale->view.size());
  if (RoleBool(call, family, F::Role::kScaleFromBlob, false)) {
    const int64_t num_axes = RoleInt(call, family, F::Role::kNumAxes, -1);
    if (num_axes < -1) return reject(F::Role::kNumAxes, std::to_string(num_axes) + " is below -1");
    covered = num_axes == -1 ? rank - axis : num_axes;
  }
  const Dims want(x->view.begin() + std::min(axis, rank), x->view.begin() + std::min(axis + covered, rank));
  if (axis + covered > rank || scale->view != want) {
    return reject(F::Role::kScale, "shape " + DimsText(scale->view) + " is not x's dimensions from axis " +
                                       std::to_string(axis) + " (" + DimsText(want) + ")");
  }
  if (bias && bias->view != scale->view) {
    return reject(F::Role::kBias, "shape " + DimsText(bias->view) + " is not scale's " + DimsText(scale->view));
  }
  std::unique_ptr<ScaleWork> made(new ScaleWork(call.spec.name));
  made->type = type;
  made->axis = axis;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  if (bias) made->tensor(kBias).Set(RoleName(call, family, F::Role::kBias), *bias);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
