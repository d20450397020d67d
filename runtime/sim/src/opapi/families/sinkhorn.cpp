// The sinkhorn family: aclnnSinkhorn, the page's Sinkhorn iteration over cost [R, C]:
//   K = exp(cost); d0 = ones(R); d1 = ones(C)
//   repeat: d0 = 1 / (R * (K @ d1 + 1e-8)); d1' = 1 / (C * (K^T @ d0 + 1e-8));
//           error = mean |d1 - d1'|; d1 = d1'   until error <= tol (tol absent: 1e-4)
//   p = d0[:, None] * K * d1[None, :]
// In float, as the page's FLOAT16/BFLOAT16 cost is computed. An iteration that does not reach tol
// in 100000 rounds (a NaN or infinite cost, a tol below float's resolution) is refused in phase 2
// by name rather than run forever.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = SinkhornFamily;

enum Slot { kCost, kOut, kSlots };

constexpr int64_t kMaxRounds = 100000;

class SinkhornWork final : public FamilyWork {
 public:
  explicit SinkhornWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, cols = 0;
  float tol = 1e-4f;

 private:
  aclnnStatus Compute() override {
    if (rows * cols == 0) return ACLNN_SUCCESS;
    std::vector<float> k(static_cast<size_t>(rows * cols));
    GatherAs(tensor(kCost), ComputeType::kFloat32, k.data());
    for (float& v : k) v = std::exp(v);
    const float eps = 1e-8f;
    std::vector<float> d0(static_cast<size_t>(rows), 1.0f), d1(static_cast<size_t>(cols), 1.0f), next(d1.size());
    for (int64_t round = 0;; ++round) {
      if (round == kMaxRounds) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kCost).name + ": the iteration did not reach tol " +
                                         std::to_string(tol) + " in " + std::to_string(kMaxRounds) + " rounds");
      }
      for (int64_t r = 0; r < rows; ++r) {
        float sum = 0;
        for (int64_t c = 0; c < cols; ++c) sum += d1[static_cast<size_t>(c)] * k[static_cast<size_t>(r * cols + c)];
        d0[static_cast<size_t>(r)] = 1.0f / (static_cast<float>(rows) * (sum + eps));
      }
      std::fill(next.begin(), next.end(), 0.0f);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) next[static_cast<size_t>(c)] += d0[static_cast<size_t>(r)] * k[static_cast<size_t>(r * cols + c)];
      }
      float error = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const float v = 1.0f / (static_cast<float>(cols) * (next[static_cast<size_t>(c)] + eps));
        error += std::fabs(d1[static_cast<size_t>(c)] - v);
        d1[static_cast<size_t>(c)] = v;
      }
      if (error / static_cast<float>(cols) <= tol) break;
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        k[static_cast<size_t>(r * cols + c)] *= d0[static_cast<size_t>(r)] * d1[static_cast<size_t>(c)];
      }
    }
    ScatterFrom(k.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanSinkhorn(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* cost = RoleTensor(call, family, F::Role::kCost);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!cost || !out) return Decline(call, work, "without cost or p");
  if (cost->dtype != ACL_FLOAT && cost->dtype != ACL_FLOAT16 && cost->dtype != ACL_BF16) {
    return DeclineDtype(call, work, cost->dtype);
  }
  if (cost->view.size() != 2) {
    return RejectInvalid(call, family, F::Role::kCost, "shape " + DimsText(cost->view) + " is not a matrix [R, C]");
  }
  std::unique_ptr<SinkhornWork> made(new SinkhornWork(call.spec.name));
  made->rows = cost->view[0];
  made->cols = cost->view[1];
  made->tol = static_cast<float>(RoleNumber(call, family, F::Role::kTol, -1, 1e-4));
  made->tensor(kCost).Set(RoleName(call, family, F::Role::kCost), *cost);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, cost->view, "cost's shape", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
