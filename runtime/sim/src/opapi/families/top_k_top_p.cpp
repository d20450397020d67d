// The top_k_top_p family: aclnnApplyTopKTopP (torch_npu.npu_top_k_top_p reaches it through
// op-plugin), the page's filter of each row b of logits [B, V]:
//   sorted, order = the row sorted ascending (stable);
//   top-k (k given): the values below sorted[V - k[b]] become -inf;
//   top-p (p given): probs = softmax(sorted), running sums from the smallest; the values whose sum
//                    is <= 1 - p[b] become -inf, the largest always kept;
//   out[b][order[v]] = sorted[v].
// k outside [1, V] is refused in phase 2 (the device reads it there), naming the row. Computed in
// float (the softmax's sum and the running sum in double); rows spread over the threads.
//
// And aclnnTopKTopPSample (torch_npu.npu_top_k_top_p_sample where libopapi has no V2), the page's
// steps for each row b of logits [B, V]:
//   top-k: k = topK[b] in [1, min(V, 1024)] keeps the k largest, sorted descending (ties: the lower
//          index first); a larger k keeps the whole row (unsorted unless top-p runs);
//   top-p: p = topP[b] < 1 sorts the kept values descending and drops each whose softmax mass
//          before it exceeds p (the page's (probsSum - sortedLogits) > topP);
//   sample: logitsSelectIdx[b] = the input index of the largest exp(v - max) / (q[b][j] + eps),
//          j the kept value's place in that order (V2's page: q follows probs[b], compact, descending
//          when top-k or top-p runs), or of the largest kept value without q;
//   logitsTopKPSelect (isNeedLogits) the kept logits at their places, -inf elsewhere; else unwritten.
// topK or topP <= 0, which the page says cause unexpected errors, fail phase 2 naming the element, and so
// do logits that are not finite (the page: exp(logits) below FLOAT's least value gives unexpected output).
// In double (softmax, running sums, quotients); rows spread over the threads.
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
enum SampleSlot { kSampleLogits, kTopK, kTopP, kQ, kSelectIdx, kSelectLogits, kSampleSlots };

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

class TopKTopPSampleWork final : public FamilyWork {
 public:
  explicit TopKTopPSampleWork(const char* api) : FamilyWork(api, kSampleSlots) {}

  int64_t rows = 0, vocab = 0;
  double eps = 0;
  bool has_q = false, need_logits = false;

 private:
  // The largest top-k the page's kernel sorts (its valid range is [1, min(vocSize, 1024)]).
  static constexpr int64_t kMaxTopK = 1024;

  aclnnStatus Compute() override {
    std::vector<double> logits(static_cast<size_t>(rows * vocab)), p(static_cast<size_t>(rows));
    std::vector<int64_t> k(static_cast<size_t>(rows));
    GatherAs(tensor(kSampleLogits), ComputeType::kFloat64, logits.data());
    GatherAs(tensor(kTopK), ComputeType::kInt64, k.data());
    GatherAs(tensor(kTopP), ComputeType::kFloat64, p.data());
    for (int64_t i = 0; i < rows * vocab; ++i) {
      if (!std::isfinite(logits[static_cast<size_t>(i)])) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kSampleLogits).name + ": element " + std::to_string(i) +
                                         " is not finite (the page: exp(logits) below FLOAT's least value gives unexpected output)");
      }
    }
    for (int64_t b = 0; b < rows; ++b) {
      const bool bad_k = k[static_cast<size_t>(b)] <= 0;
      if (bad_k || p[static_cast<size_t>(b)] <= 0) {
        const TensorRef& t = tensor(bad_k ? kTopK : kTopP);
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + t.name + ": element " + std::to_string(b) +
                                         " is not positive (the page: 0 and negative values cause unexpected errors)");
      }
    }
    std::vector<double> q;
    if (has_q) {
      q.resize(static_cast<size_t>(rows * vocab));
      GatherAs(tensor(kQ), ComputeType::kFloat64, q.data());
    }
    std::vector<int64_t> chosen(static_cast<size_t>(rows));
    std::vector<float> kept(need_logits ? static_cast<size_t>(rows * vocab) : 0, -std::numeric_limits<float>::infinity());
    ParallelFor(rows, [&](int64_t b) {
      const double* row = logits.data() + b * vocab;
      const int64_t top_k = k[static_cast<size_t>(b)];
      const double top_p = p[static_cast<size_t>(b)];
      const bool by_k = top_k <= std::min(vocab, kMaxTopK), by_p = top_p < 1;
      std::vector<int64_t> order(static_cast<size_t>(vocab));
      std::iota(order.begin(), order.end(), int64_t{0});
      if (by_k || by_p) {
        // Descending, NaN first (as torch.sort puts it): a strict weak order whatever the values.
        const auto larger = [&](int64_t x, int64_t y) {
          return std::isnan(row[x]) ? !std::isnan(row[y]) : row[x] > row[y];
        };
        if (by_k) {
          std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                            [&](int64_t x, int64_t y) { return larger(x, y) || (!larger(y, x) && x < y); });
          order.resize(static_cast<size_t>(top_k));
        } else {
          std::stable_sort(order.begin(), order.end(), larger);
        }
      }
      double top = row[order.front()];  // the largest: first once sorted
      for (int64_t v : order) top = std::max(top, row[v]);
      std::vector<double> weight(order.size());
      double total = 0;
      for (size_t j = 0; j < order.size(); ++j) total += weight[j] = std::exp(row[order[j]] - top);
      size_t count = order.size();
      if (by_p) {
        double before = 0;
        for (size_t j = 0; j < order.size(); ++j) {
          if (before / total > top_p) {
            count = j;
            break;
          }
          before += weight[j];
        }
      }
      // The first largest of the kept values' scores (count >= 1: the largest always passes top-p), NaN the
      // largest, as torch.argmax takes it.
      const auto score = [&](size_t j) { return has_q ? weight[j] / (q[static_cast<size_t>(b * vocab) + j] + eps) : weight[j]; };
      size_t best = 0;
      double best_value = score(0);
      for (size_t j = 1; j < count && !std::isnan(best_value); ++j) {
        const double value = score(j);
        if (value > best_value || std::isnan(value)) {
          best_value = value;
          best = j;
        }
      }
      chosen[static_cast<size_t>(b)] = order[best];
      if (need_logits) {
        for (size_t j = 0; j < count; ++j) kept[static_cast<size_t>(b * vocab + order[j])] = static_cast<float>(row[order[j]]);
      }
    });
    ScatterFrom(chosen.data(), ComputeType::kInt64, tensor(kSelectIdx));
    if (need_logits) ScatterFrom(kept.data(), ComputeType::kFloat32, tensor(kSelectLogits));
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanTopKTopPSample(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* logits = RoleTensor(call, family, F::Role::kLogits);
  const TensorDesc* top_k = RoleTensor(call, family, F::Role::kK);
  const TensorDesc* top_p = RoleTensor(call, family, F::Role::kP);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kSelectIdx);
  const TensorDesc* select = RoleTensor(call, family, F::Role::kSelectLogits);
  if (!logits || !top_k || !top_p || !idx) return Decline(call, work, "without logits, topK, topP or logitsSelectIdx");
  const ParamRejecter reject(call, family);
  if (logits->view.size() != 2 || logits->view[0] < 1 || logits->view[1] < 1) {
    return reject(F::Role::kLogits, "shape " + DimsText(logits->view) + " is not [batch, vocSize] with both positive");
  }
  std::unique_ptr<TopKTopPSampleWork> made(new TopKTopPSampleWork(call.spec.name));
  made->rows = logits->view[0];
  made->vocab = logits->view[1];
  const Dims batch{made->rows};
  for (int role : {static_cast<int>(F::Role::kK), static_cast<int>(F::Role::kP)}) {
    if (aclnnStatus s = CheckShape(call, family, role, RoleTensor(call, family, role), batch, "logits' batch")) return s;
  }
  made->tensor(kSampleLogits).Set(RoleName(call, family, F::Role::kLogits), *logits);
  made->tensor(kTopK).Set(RoleName(call, family, F::Role::kK), *top_k);
  made->tensor(kTopP).Set(RoleName(call, family, F::Role::kP), *top_p);
  if (const TensorDesc* q = RoleTensor(call, family, F::Role::kQ)) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kQ, q, logits->view, "logits' shape")) return s;
    made->has_q = true;
    made->tensor(kQ).Set(RoleName(call, family, F::Role::kQ), *q);
  }
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-8);
  made->need_logits = RoleBool(call, family, F::Role::kNeedLogits, false);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSelectIdx, *idx, batch, "logits' batch", kSelectIdx)) return s;
  if (made->need_logits) {
    if (!select) return reject(F::Role::kSelectLogits, "is null while isNeedLogits asks for it");
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSelectLogits, *select, logits->view, "logits' shape",
                                         kSelectLogits)) {
      return s;
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanTopKTopP(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kTopKTopPSample) return PlanTopKTopPSample(call, family, work);
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
