// The top_k_top_p family: aclnnApplyTopKTopP (torch_npu.npu_top_k_top_p reaches it through
// op-plugin), the page's filter of each row b of logits [B, V]:
//   sorted, order = the row sorted ascending (stable);
//   top-k (k given): the values below sorted[V - k[b]] become -inf;
//   top-p (p given): probs = softmax(sorted), running sums from the smallest; the values whose sum
//                    is <= 1 - p[b] become -inf, the largest always kept;
//   out[b][order[v]] = sorted[v].
// k outside [1, V] is refused in phase 2 (the device reads it there), naming the row. Computed in
// float (the softmax's sum and the running sum in double); rows spread over the threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = TopKTopPFamily;

enum Slot { kLogits, kP, kK, kOut, kSlots };

class TopKTopPWork final : public FamilyWork {
 public:
  explicit TopKTopPWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, vocab = 0;

 private:
  aclnnStatus Compute() override {
    if (rows == 0 || vocab == 0) return ACLNN_SUCCESS;
    const float* logits = static_cast<const float*>(ContiguousAs(tensor(kLogits), ComputeType::kFloat32, 0));
    const bool has_p = tensor(kP).dtype != ACL_DT_UNDEFINED, has_k = tensor(kK).dtype != ACL_DT_UNDEFINED;
    const float* p = has_p ? static_cast<const float*>(ContiguousAs(tensor(kP), ComputeType::kFloat32, 1)) : nullptr;
    const int64_t* k = has_k ? static_cast<const int64_t*>(ContiguousAs(tensor(kK), ComputeType::kInt64, 2)) : nullptr;
    for (int64_t b = 0; has_k && b < rows; ++b) {
      if (k[b] < 1 || k[b] > vocab) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kK).name + ": element " + std::to_string(b) + " is " +
                                         std::to_string(k[b]) + ", outside [1, " + std::to_string(vocab) + "]");
      }
    }
    std::vector<float> out(static_cast<size_t>(rows * vocab));
    const float minus_inf = -std::numeric_limits<float>::infinity();
    ParallelFor(rows, [&](int64_t b) {
      const float* row = logits + b * vocab;
      std::vector<int64_t> order(static_cast<size_t>(vocab));
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return row[x] < row[y]; });
      std::vector<float> sorted(static_cast<size_t>(vocab));
      for (int64_t v = 0; v < vocab; ++v) sorted[static_cast<size_t>(v)] = row[order[static_cast<size_t>(v)]];
      if (has_k) {
        const float kth = sorted[static_cast<size_t>(vocab - k[b])];
        for (float& value : sorted) value = value < kth ? minus_inf : value;
      }
      if (has_p) {
        const float top = sorted.back();
        std::vector<float> probs(sorted.size());
        double total = 0;
        for (size_t v = 0; v < sorted.size(); ++v) {
          probs[v] = std::exp(sorted[v] - top);
          total += probs[v];
        }
        const float keep_above = 1.0f - p[b];
        double running = 0;
        for (size_t v = 0; v + 1 < sorted.size(); ++v) {
          running += static_cast<float>(probs[v] / total);
          if (static_cast<float>(running) <= keep_above) sorted[v] = minus_inf;
        }
      }
      float* dst = out.data() + b * vocab;
      for (int64_t v = 0; v < vocab; ++v) dst[order[static_cast<size_t>(v)]] = sorted[static_cast<size_t>(v)];
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanTopKTopP(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* logits = RoleTensor(call, family, F::Role::kLogits);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!logits || !out) return Decline(call, work, "without logits or out");
  const ParamRejecter reject(call, family);
  if (logits->view.size() != 2) return reject(F::Role::kLogits, "shape " + DimsText(logits->view) + " is not [B, V]");
  if (!ComputesInFloat32(logits->dtype)) return DeclineDtype(call, work, logits->dtype);
  std::unique_ptr<TopKTopPWork> made(new TopKTopPWork(call.spec.name));
  made->rows = logits->view[0];
  made->vocab = logits->view[1];
  made->tensor(kLogits).Set(RoleName(call, family, F::Role::kLogits), *logits);
  for (int role : {static_cast<int>(F::Role::kP), static_cast<int>(F::Role::kK)}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (!t) continue;
    if (t->view != Dims{made->rows}) return reject(role, "shape " + DimsText(t->view) + " is not [" + std::to_string(made->rows) + "]");
    made->tensor(role == F::Role::kP ? kP : kK).Set(RoleName(call, family, role), *t);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, logits->view, "logits' shape", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
