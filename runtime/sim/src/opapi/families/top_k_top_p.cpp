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
// aclnnTopKTopPSampleV2 (op-plugin's first choice where libopapi has it) the same steps, as its page differs:
//   top-k: topK <= 0 or above min(1024, ksMax rounded up to 8, V) skips it;
//   top-p: topP <= 0 keeps the largest value alone;
//   min-p: minPs[b] in (0, 1) drops the kept values whose probability is below minPs[b] times the largest's,
//          minPs[b] >= 1 keeps the largest alone, the kept ones compact in the order they had (the row's own
//          when neither top-k nor top-p sorted it: the page's Q-sample 约束);
//   inputIsLogits false: the row is probabilities (refused outside [0, 1]), read without softmax, top-p's mass
//          their plain sum, a dropped place 0 (the page's defLogit) in logitsTopKPSelect;
//   isNeedSampleResult (op-plugin's multinomial path): logitsSortMasked[b] the kept probabilities in that
//          order (softmax over the top-k set, as the page's logit_sortProb), 0 past them, and logitsIdx[b] the
//          input index of each place, the dropped ones following in the same order (their probability 0, so
//          no sample reaches them); logitsSelectIdx is not written then. Otherwise logitsIdx and
//          logitsSortMasked are not written (the page outputs them only then).
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
enum SampleSlot { kSampleLogits, kTopK, kTopP, kQ, kSelectIdx, kSelectLogits, kMinPs, kLogitsIdx, kSortMasked, kSampleSlots };

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
  // The largest top-k the kernel sorts: 1024 (V1's page), min(1024, ksMax rounded up to 8) (V2's).
  int64_t max_top_k = 1024;
  // V2: topK <= 0 skips top-k and topP <= 0 keeps the largest value alone (V1 refuses both).
  bool v2 = false, has_min_ps = false;
  // V2's inputIsLogits false: the row holds probabilities, taken as they are (no softmax), and a dropped
  // value's place holds 0 (defLogit) in place of -inf.
  bool input_is_logits = true;
  // V2's isNeedSampleResult: logitsIdx and logitsSortMasked written, logitsSelectIdx not.
  bool need_sample_result = false;

 private:
  aclnnStatus Compute() override {
    std::vector<double> logits(static_cast<size_t>(rows * vocab)), p(static_cast<size_t>(rows));
    std::vector<double> min_p(static_cast<size_t>(rows), 0.0);
    std::vector<int64_t> k(static_cast<size_t>(rows));
    GatherAs(tensor(kSampleLogits), ComputeType::kFloat64, logits.data());
    GatherAs(tensor(kTopK), ComputeType::kInt64, k.data());
    GatherAs(tensor(kTopP), ComputeType::kFloat64, p.data());
    if (has_min_ps) GatherAs(tensor(kMinPs), ComputeType::kFloat64, min_p.data());
    for (int64_t i = 0; i < rows * vocab; ++i) {
      const double value = logits[static_cast<size_t>(i)];
      if (!std::isfinite(value)) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kSampleLogits).name + ": element " + std::to_string(i) +
                                         " is not finite (the page: exp(logits) below FLOAT's least value gives unexpected output)");
      }
      if (!input_is_logits && (value < 0 || value > 1)) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kSampleLogits).name + ": element " + std::to_string(i) +
                                         " is outside [0, 1] while inputIsLogits is false (the page: false only for logits in [0, 1])");
      }
    }
    for (int64_t b = 0; b < rows && !v2; ++b) {
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
    const float dropped = input_is_logits ? -std::numeric_limits<float>::infinity() : 0.0f;  // the page's defLogit
    std::vector<int64_t> chosen(need_sample_result ? 0 : static_cast<size_t>(rows));
    std::vector<float> kept(need_logits ? static_cast<size_t>(rows * vocab) : 0, dropped);
    std::vector<int64_t> sorted_idx(need_sample_result ? static_cast<size_t>(rows * vocab) : 0);
    std::vector<float> sorted_probs(need_sample_result ? static_cast<size_t>(rows * vocab) : 0);
    ParallelFor(rows, [&](int64_t b) {
      const double* row = logits.data() + b * vocab;
      const int64_t top_k = k[static_cast<size_t>(b)];
      const double top_p = p[static_cast<size_t>(b)], row_min_p = min_p[static_cast<size_t>(b)];
      const bool by_k = top_k >= 1 && top_k <= std::min(vocab, max_top_k), by_p = top_p < 1;
      // The row's places in the order the steps read them: descending once top-k or top-p runs (ties: the lower
      // index first), the row's own otherwise (V2's page: probs[b] descending only when one of them runs).
      std::vector<int64_t> order(static_cast<size_t>(vocab));
      std::iota(order.begin(), order.end(), int64_t{0});
      if (by_k || by_p) {
        // Descending, NaN first (as torch.sort puts it): a strict weak order whatever the values.
        const auto larger = [&](int64_t x, int64_t y) {
          return std::isnan(row[x]) ? !std::isnan(row[y]) : row[x] > row[y];
        };
        const auto before = [&](int64_t x, int64_t y) { return larger(x, y) || (!larger(y, x) && x < y); };
        // The places past the top k are sorted only where logitsIdx shows them.
        const auto sorted_end = by_k && !need_sample_result ? order.begin() + top_k : order.end();
        std::partial_sort(order.begin(), sorted_end, order.end(), before);
      }
      size_t count = by_k ? static_cast<size_t>(top_k) : order.size();
      // weight[j]: the probability of the j-th value up to one factor (softmax's normalizer, `total`), or the
      // probability itself when the row holds probabilities.
      double top = row[order.front()];
      for (size_t j = 0; j < count; ++j) top = std::max(top, row[order[j]]);
      std::vector<double> weight(count);
      double total = 0;
      for (size_t j = 0; j < count; ++j) total += weight[j] = input_is_logits ? std::exp(row[order[j]] - top) : row[order[j]];
      const double normalizer = input_is_logits ? total : 1.0;
      if (by_p && top_p <= 0) {
        count = 1;  // V2: the largest value alone (V1 refused it above)
      } else if (by_p) {
        double mass = 0;
        for (size_t j = 0; j < count; ++j) {
          if (mass / normalizer > top_p) {
            count = j;
            break;
          }
          mass += weight[j];
        }
      }
      if (row_min_p > 0) {
        // min-p: the values below minPs[b] times the largest kept dropped (>= 1: the largest alone), the kept
        // ones moved to the front in the order they had, the dropped ones after them.
        size_t largest = 0;
        for (size_t j = 1; j < count; ++j) largest = weight[j] > weight[largest] ? j : largest;
        const double threshold = weight[largest] * row_min_p;
        std::vector<size_t> place(order.size());
        std::iota(place.begin(), place.end(), size_t{0});
        const auto passes = [&](size_t j) { return j < count && (row_min_p >= 1 ? j == largest : weight[j] >= threshold); };
        const auto split = std::stable_partition(place.begin(), place.end(), passes);
        std::vector<int64_t> reordered(order.size());
        std::vector<double> reweighted;
        for (size_t j = 0; j < place.size(); ++j) {
          reordered[j] = order[place[j]];
          if (place[j] < count) reweighted.push_back(weight[place[j]]);
        }
        order.swap(reordered);
        count = static_cast<size_t>(split - place.begin());
        weight.assign(reweighted.begin(), reweighted.begin() + static_cast<std::ptrdiff_t>(count));
      }
      if (need_logits) {
        for (size_t j = 0; j < count; ++j) kept[static_cast<size_t>(b * vocab + order[j])] = static_cast<float>(row[order[j]]);
      }
      if (need_sample_result) {
        for (size_t j = 0; j < order.size(); ++j) {
          sorted_idx[static_cast<size_t>(b * vocab) + j] = order[j];
          sorted_probs[static_cast<size_t>(b * vocab) + j] = j < count ? static_cast<float>(weight[j] / normalizer) : 0.0f;
        }
        return;
      }
      // The first largest of the kept values' scores (count >= 1: the largest always passes), NaN the largest, as
      // torch.argmax takes it; q read in the kept values' order.
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
    });
    if (!need_sample_result) ScatterFrom(chosen.data(), ComputeType::kInt64, tensor(kSelectIdx));
    if (need_logits) ScatterFrom(kept.data(), ComputeType::kFloat32, tensor(kSelectLogits));
    if (need_sample_result) {
      ScatterFrom(sorted_idx.data(), ComputeType::kInt64, tensor(kLogitsIdx));
      ScatterFrom(sorted_probs.data(), ComputeType::kFloat32, tensor(kSortMasked));
    }
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
  if (family.op == F::Op::kTopKTopPSampleV2) {
    made->v2 = true;
    const int64_t ks_max = RoleInt(call, family, F::Role::kKsMax, 1024);  // in [1, 1024]: the semantics file's check
    made->max_top_k = std::min<int64_t>(1024, (ks_max + 7) / 8 * 8);
    made->input_is_logits = RoleBool(call, family, F::Role::kInputIsLogits, true);
    made->need_sample_result = RoleBool(call, family, F::Role::kNeedSampleResult, false);
    if (const TensorDesc* min_ps = RoleTensor(call, family, F::Role::kMinPs)) {
      // [batch] (logits' first n-1 dimensions), or the [batch, 1] the page's 约束说明 names.
      if (min_ps->view != Dims{made->rows, 1}) {
        if (aclnnStatus s = CheckShape(call, family, F::Role::kMinPs, min_ps, batch, "logits' batch")) return s;
      }
      made->has_min_ps = true;
      made->tensor(kMinPs).Set(RoleName(call, family, F::Role::kMinPs), *min_ps);
    }
  }
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-8);
  made->need_logits = RoleBool(call, family, F::Role::kNeedLogits, false);
  if (made->need_sample_result) {
    // logitsSelectIdx is not written (the page: 此时logitsSelectIdx不输出): [batch], or op-plugin's [batch, 1]
    // that its multinomial path gathers into afterwards.
    if (idx->view != Dims{made->rows, 1}) {
      if (aclnnStatus s = CheckShape(call, family, F::Role::kSelectIdx, idx, batch, "logits' batch")) return s;
    }
    for (int role : {static_cast<int>(F::Role::kLogitsIdx), static_cast<int>(F::Role::kSortMasked)}) {
      const TensorDesc* out = RoleTensor(call, family, role);
      if (!out) return reject(role, "is null while isNeedSampleResult asks for it");
      if (aclnnStatus s = made->KeepOutput(call, family, role, *out, logits->view, "logits' shape",
                                           role == F::Role::kLogitsIdx ? kLogitsIdx : kSortMasked)) {
        return s;
      }
    }
  } else if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSelectIdx, *idx, batch, "logits' batch", kSelectIdx)) {
    return s;
  }
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
  if (family.op != F::Op::kApplyTopKTopP) return PlanTopKTopPSample(call, family, work);
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
