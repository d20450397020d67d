// The margin family: the multilabel margin loss (aclnnMultilabelMarginLoss; F.multilabel_margin_loss
// reaches it through op-plugin), as aten's CPU kernel computes it.
//   multilabel_margin_loss  per sample (a row of self [N, C], or self [C] as one sample), the labels
//                           are target's leading entries before its first -1; is_target is 1 at
//                           each label's class, 0 elsewhere; the loss is the sum over the labels j
//                           (a repeated label counted each time) and the classes i that are no
//                           label of max(0, 1 - (x[j] - x[i])), divided by C; reduction 0 keeps
//                           one loss per sample ([N], or 0-d for self [C]), 1 their mean, 2 their sum
// A label outside [-1, C) fails phase 2 by name (aten refuses it too). Computed in float (the
// margins) with the sums in double.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = MarginFamily;

enum Slot { kSelf, kTarget, kOut, kIsTarget, kSlots };

class MarginWork final : public FamilyWork {
 public:
  explicit MarginWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t samples = 1, classes = 0, reduction = 1;

 private:
  aclnnStatus Compute() override {
    const int64_t n = samples * classes;
    const float* x = n ? static_cast<const float*>(ContiguousAs(tensor(kSelf), type, 0)) : nullptr;
    const int64_t* y = n ? IndexValues(tensor(kTarget), 1) : nullptr;
    for (int64_t k = 0; k < n; ++k) {
      if (y[k] < -1 || y[k] >= classes) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kTarget).name + ": element " +
                                         std::to_string(k) + " is " + std::to_string(y[k]) + ", outside [-1, " +
                                         std::to_string(classes) + ")");
      }
    }
    std::vector<float> is_target(static_cast<size_t>(n), 0.0f), loss(static_cast<size_t>(samples), 0.0f);
    double total = 0;
    for (int64_t s = 0; s < samples; ++s) {
      const float* xs = x + s * classes;
      const int64_t* ys = y + s * classes;
      float* marks = is_target.data() + s * classes;
      int64_t labels = 0;
      while (labels < classes && ys[labels] >= 0) marks[ys[labels++]] = 1.0f;
      double sum = 0;
      for (int64_t l = 0; l < labels; ++l) {
        const float xj = xs[ys[l]];
        for (int64_t i = 0; i < classes; ++i) {
          if (marks[i] != 0.0f) continue;
          const float z = 1.0f - xj + xs[i];
          if (z > 0) sum += z;
        }
      }
      loss[static_cast<size_t>(s)] = static_cast<float>(sum / static_cast<double>(classes));
      total += loss[static_cast<size_t>(s)];
    }
    if (reduction == 0) {
      ScatterFrom(loss.data(), type, tensor(kOut));
    } else {
      const float value = static_cast<float>(reduction == 1 ? total / static_cast<double>(samples) : total);
      ScatterFrom(&value, type, tensor(kOut));
    }
    ScatterFrom(is_target.data(), type, tensor(kIsTarget));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanMargin(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* target = RoleTensor(call, family, F::Role::kTarget);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* is_target = RoleTensor(call, family, F::Role::kIsTarget);
  if (!self || !target || !out || !is_target) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(self->dtype)) return DeclineDtype(call, work, self->dtype);
  const ParamRejecter reject(call, family);
  const size_t rank = self->view.size();
  if (rank != 1 && rank != 2) {  // "shape为(N,C)或者(C)": PyTorch's 0-d self, a class of one, is not among them
    return RejectByParamRow(call, family, F::Role::kSelf, "shape " + DimsText(self->view) + " is not [N, C] or [C]");
  }
  if (target->view != self->view) {
    return reject(F::Role::kTarget, "shape " + DimsText(target->view) + " is not self's " + DimsText(self->view));
  }
  MarginWork* made = new MarginWork(call.spec.name);
  std::unique_ptr<MarginWork> owned(made);
  made->type = ComputeType::kFloat32;
  made->samples = rank == 2 ? self->view[0] : 1;
  made->classes = self->view.back();
  made->reduction = RoleInt(call, family, F::Role::kReduction, 1);
  if (made->reduction < 0 || made->reduction > 2) {
    return reject(F::Role::kReduction, std::to_string(made->reduction) + " is not 0 (none), 1 (mean) or 2 (sum)");
  }
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  made->tensor(kTarget).Set(RoleName(call, family, F::Role::kTarget), *target);
  const Dims loss_shape = made->reduction != 0 || rank == 1 ? Dims{} : Dims{made->samples};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, loss_shape,
                                       made->reduction ? "a 0-d loss" : "one loss per sample", kOut, true)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kIsTarget, *is_target, self->view, "self's shape",
                                       kIsTarget)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
