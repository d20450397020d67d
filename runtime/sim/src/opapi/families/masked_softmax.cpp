// The masked_softmax family: a softmax along the last dimension of scale * x with masked
// positions left out, and its backward (aclnnScaledMaskedSoftmax and its backward; aten's
// _masked_softmax with mask_type 2 reaches the forward through op-plugin).
//   scaled_masked_softmax           y = softmax(scale * x) over the positions where mask (BOOL,
//                                   broadcast to x) is false, 0 where it is true; a row masked
//                                   everywhere is NaN, as aten's CPU _masked_softmax gives
//   scaled_masked_softmax_backward  out = scale * (g * y - sum(g * y) * y) where mask is false, 0
//                                   where it is true (the page's formula; the sum over the row)
// x, mask and y are 4-d and fixTriuMask must be false, as both pages say ("仅支持false"): true is refused by name. Rows
// compute in float (FLOAT, FLOAT16, BFLOAT16), sums in double, spread over the threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MaskedSoftmaxFamily;

enum Slot { kX, kMask, kGrad, kOut, kSlots };

class MaskedSoftmaxWork final : public FamilyWork {
 public:
  MaskedSoftmaxWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  double scale = 1;

 private:
  aclnnStatus Compute() override {
    const TensorRef& x = tensor(kX);
    const int64_t n = x.numel();
    if (n == 0) return ACLNN_SUCCESS;
    const int64_t width = x.shape.back(), rows = n / width;
    const float* v = static_cast<const float*>(ContiguousAs(x, type, 0));
    const int64_t* masked = static_cast<const int64_t*>(ContiguousAs(tensor(kMask), ComputeType::kInt64, 1));
    const bool backward = op_ == F::Op::kScaledMaskedSoftmaxBackward;
    const float* g = backward ? static_cast<const float*>(ContiguousAs(tensor(kGrad), type, 2)) : nullptr;
    float* y = static_cast<float*>(Scratch(3, static_cast<size_t>(n) * sizeof(float)));
    auto run = [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t o = row * width;
        if (backward) {
          double dot = 0;
          for (int64_t j = 0; j < width; ++j) dot += static_cast<double>(g[o + j]) * v[o + j];
          for (int64_t j = 0; j < width; ++j) {
            y[o + j] = masked[o + j] ? 0.0f
                                     : static_cast<float>(scale * (static_cast<double>(g[o + j]) * v[o + j] -
                                                                   dot * v[o + j]));
          }
          continue;
        }
        float m = -std::numeric_limits<float>::infinity();
        bool any = false;
        for (int64_t j = 0; j < width; ++j) {
          if (masked[o + j]) continue;
          const float s = static_cast<float>(scale * v[o + j]);
          m = any ? std::max(m, s) : s;
          any = true;
        }
        if (!any) {
          std::fill(y + o, y + o + width, std::numeric_limits<float>::quiet_NaN());
          continue;
        }
        // The exponentials first, a loop GCC vectorises with the vector exp (aclnn_sim/vector_math.h),
        // then their sum in double and in order (a sum in the same loop would keep it scalar).
        for (int64_t j = 0; j < width; ++j) {
          y[o + j] = masked[o + j] ? 0.0f : std::exp(static_cast<float>(scale * v[o + j]) - m);
        }
        double sum = 0;
        for (int64_t j = 0; j < width; ++j) sum += y[o + j];
        const float inverse = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < width; ++j) y[o + j] *= inverse;
      }
    };
    const int64_t tasks = n < (1 << 15) ? 1 : std::min<int64_t>(rows, ParallelThreads() * 4);
    if (tasks <= 1) {
      run(0, rows);
    } else {
      ParallelFor(tasks, [&](int64_t t) { run(rows * t / tasks, rows * (t + 1) / tasks); });
    }
    ScatterFrom(y, type, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanMaskedSoftmax(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool backward = family.op == F::Op::kScaledMaskedSoftmaxBackward;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* mask = RoleTensor(call, family, F::Role::kMask);
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradOut);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !mask || !out || (backward && !grad)) return Decline(call, work, "without its tensors");
  if (x->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter reject(call, family);
  if (RoleBool(call, family, F::Role::kFixTriuMask, false)) {
    return reject(F::Role::kFixTriuMask, "true is not supported (the page: 仅支持false)");
  }
  // The pages: "x、mask、y的shape不为4维" is 161002.
  if (x->view.size() != 4) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not 4-d [B, N, S1, S2]");
  if (mask->view.size() != 4) return reject(F::Role::kMask, "shape " + DimsText(mask->view) + " is not 4-d");
  MaskedSoftmaxWork* made = new MaskedSoftmaxWork(call.spec.name, family.op);
  std::unique_ptr<MaskedSoftmaxWork> owned(made);
  made->type = ComputeType::kFloat32;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kMask).Set(RoleName(call, family, F::Role::kMask), *mask);
  if (!BroadcastRef(&made->tensor(kMask), x->view)) {
    return reject(F::Role::kMask, "shape " + DimsText(mask->view) + " does not broadcast to " + DimsText(x->view));
  }
  if (backward) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOut, grad, x->view, "y's shape")) return s;
    made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGradOut), *grad);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
