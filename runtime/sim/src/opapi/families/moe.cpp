// The moe family: ops-transformer's mixture-of-experts gating.
//   gating_top_k  aclnnMoeGatingTopK (torch_npu.npu_moe_gating_top_k): per row of x [rows, E],
//                 normOut = sigmoid(x) (outOut); the E experts split into groupCount groups of
//                 E / groupCount, each group scored by its max (groupSelectMode 0) or the sum of its two
//                 largest (1), the kGroup best groups kept (ties: the lower group); then the k largest
//                 scores of the kept groups, in descending order (ties: the lower expert), give
//                 expertIdxOut and y, and yOut = y / (sum(y) + eps) * routedScalingFactor
//   gating_top_k_softmax  aclnnMoeGatingTopKSoftmax and V2 (torch_npu.npu_moe_gating_top_k_softmax and
//                 _v2; their derived pages copy their READMEs' formulas): per row n of x [..., E] (rows: the
//                 product of the leading dimensions), renorm 0 (V1's only mode): p = softmax(x), yOut and
//                 expertIdxOut the k largest of p in descending order, ranked by x (softmax is increasing:
//                 the formula's order, which the rounding of p could tie; ties: the lower expert), V2's
//                 softmaxResultOutOptional = p when outputSoftmaxResultFlag; renorm 1: the k largest of x,
//                 yOut their softmax. A row finishedOptional marks has expertIdxOut = E (the README: "expert
//                 序号直接填num_expert值"; yOut as the formula gives it). V1's rowIdxOut[n, j] = j * rows + n
//                 (the README's arange(rows * k).reshape(k, rows).transpose(1, 0)).
// What the page's formula leaves open is refused by name: normType 0 (softmax: the page's formula
// and function are sigmoid's, and whether y is then renormalised is not said), renorm other than 0
// (the page supports only 0) and biasOptional (the formula adds it to normOut, then takes y from
// normOut, where DeepSeek-V3's gating, which the operator serves, takes y from the scores before
// the bias: which one the kernel returns is not settled by the page). The page's value ranges
// (1 <= kGroup <= groupCount, 1 <= k <= E / groupCount * kGroup, groups of more than 2 experts,
// E <= 2048) fail with 561002 as its error table says; the softmax pages' (1 <= k <= min(E, 1024),
// renorm 0 or 1) with 161002 as theirs. FLOAT16, BFLOAT16, FLOAT in float.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MoeFamily;

enum Slot { kX, kY, kIdx, kNorm, kFinished, kRowIdx, kSoftmax, kSlots };

class GatingWork final : public FamilyWork {
 public:
  explicit GatingWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, experts = 0, k = 1, k_group = 1, groups = 1, select_mode = 0;
  double eps = 0, scaling = 1;

 private:
  aclnnStatus Compute() override {
    std::vector<float> x(static_cast<size_t>(rows * experts)), norm(x.size()), y(static_cast<size_t>(rows * k));
    std::vector<int64_t> idx(y.size());
    if (!x.empty()) GatherAs(tensor(kX), ComputeType::kFloat32, x.data());
    const int64_t per_group = experts / groups;
    ParallelFor(rows, [&](int64_t r) {
      float* s = norm.data() + r * experts;
      for (int64_t e = 0; e < experts; ++e) s[e] = 1.0f / (1.0f + std::exp(-x[static_cast<size_t>(r * experts + e)]));
      std::vector<float> group_score(static_cast<size_t>(groups));
      for (int64_t g = 0; g < groups; ++g) {
        const float* m = s + g * per_group;
        if (select_mode == 0) {
          group_score[static_cast<size_t>(g)] = *std::max_element(m, m + per_group);
        } else {
          float first = -INFINITY, second = -INFINITY;
          for (int64_t e = 0; e < per_group; ++e) {
            if (m[e] > first) second = first, first = m[e];
            else if (m[e] > second) second = m[e];
          }
          group_score[static_cast<size_t>(g)] = first + second;
        }
      }
      std::vector<int64_t> order(static_cast<size_t>(groups));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return group_score[static_cast<size_t>(a)] > group_score[static_cast<size_t>(b)];
      });
      std::vector<int64_t> candidates;
      std::sort(order.begin(), order.begin() + k_group);
      for (int64_t i = 0; i < k_group; ++i) {
        for (int64_t e = 0; e < per_group; ++e) candidates.push_back(order[static_cast<size_t>(i)] * per_group + e);
      }
      std::stable_sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
      float sum = 0;
      for (int64_t j = 0; j < k; ++j) sum += s[candidates[static_cast<size_t>(j)]];
      const float denominator = static_cast<float>(sum + eps);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t e = candidates[static_cast<size_t>(j)];
        idx[static_cast<size_t>(r * k + j)] = e;
        y[static_cast<size_t>(r * k + j)] = s[e] / denominator * static_cast<float>(scaling);
      }
    });
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kY));
    ScatterFrom(idx.data(), ComputeType::kInt64, tensor(kIdx));
    ScatterFrom(norm.data(), ComputeType::kFloat32, tensor(kNorm));
    return ACLNN_SUCCESS;
  }
};

// The k largest of `score` [E] (descending, ties to the lower expert, NaN above every number as
// PyTorch's sort orders it) into `picked`. The order is total, as partial_sort needs.
void TopK(const float* score, int64_t experts, int64_t k, std::vector<int64_t>* picked) {
  picked->resize(static_cast<size_t>(experts));
  std::iota(picked->begin(), picked->end(), 0);
  std::partial_sort(picked->begin(), picked->begin() + k, picked->end(), [&](int64_t a, int64_t b) {
    const bool nan_a = std::isnan(score[a]), nan_b = std::isnan(score[b]);
    if (nan_a || nan_b) return nan_a && (!nan_b || a < b);
    return score[a] > score[b] || (score[a] == score[b] && a < b);
  });
  picked->resize(static_cast<size_t>(k));
}

// softmax of `n` values into `out` (max subtracted, in float).
void Softmax(const float* v, int64_t n, float* out) {
  const float top = *std::max_element(v, v + n);
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += out[i] = std::exp(v[i] - top);
  for (int64_t i = 0; i < n; ++i) out[i] /= sum;
}

class SoftmaxTopKWork final : public FamilyWork {
 public:
  explicit SoftmaxTopKWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, experts = 0, k = 1, renorm = 0;
  bool finished = false, row_idx = false, softmax_out = false;

 private:
  aclnnStatus Compute() override {
    std::vector<float> x(static_cast<size_t>(rows * experts)), p(x.size()), y(static_cast<size_t>(rows * k));
    std::vector<int64_t> idx(y.size());
    std::vector<int64_t> done(static_cast<size_t>(finished ? rows : 0));
    if (!x.empty()) GatherAs(tensor(kX), ComputeType::kFloat32, x.data());
    if (!done.empty()) GatherAs(tensor(kFinished), ComputeType::kInt64, done.data());
    ParallelFor(rows, [&](int64_t r) {
      const float* v = x.data() + r * experts;
      float* probabilities = p.data() + r * experts;
      std::vector<int64_t> picked;
      // Both modes pick the k largest of x: softmax is increasing, so they are the k largest
      // probabilities in exact arithmetic, whatever ties the probabilities' rounding makes.
      TopK(v, experts, k, &picked);
      if (renorm == 0) {
        Softmax(v, experts, probabilities);
        for (int64_t j = 0; j < k; ++j) y[static_cast<size_t>(r * k + j)] = probabilities[picked[static_cast<size_t>(j)]];
      } else {
        std::vector<float> top(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j) top[static_cast<size_t>(j)] = v[picked[static_cast<size_t>(j)]];
        Softmax(top.data(), k, y.data() + r * k);
      }
      const bool skipped = !done.empty() && done[static_cast<size_t>(r)] != 0;
      for (int64_t j = 0; j < k; ++j) idx[static_cast<size_t>(r * k + j)] = skipped ? experts : picked[static_cast<size_t>(j)];
    });
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kY));
    ScatterFrom(idx.data(), ComputeType::kInt64, tensor(kIdx));
    if (row_idx) {
      std::vector<int64_t> rows_of(idx.size());
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < k; ++j) rows_of[static_cast<size_t>(r * k + j)] = j * rows + r;
      }
      ScatterFrom(rows_of.data(), ComputeType::kInt64, tensor(kRowIdx));
    }
    if (softmax_out) ScatterFrom(p.data(), ComputeType::kFloat32, tensor(kSoftmax));
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanGating(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kY);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  const TensorDesc* norm = RoleTensor(call, family, F::Role::kNormOut);
  if (!x || !y || !idx || !norm) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter refuse(call, family);
  const ParamRejecter out_of_range(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  const int64_t norm_type = RoleInt(call, family, F::Role::kNormType, 1);
  if (norm_type != 1) {
    return refuse(F::Role::kNormType, std::to_string(norm_type) +
                                          " is not simulated: only 1 (sigmoid), the page's formula, is modelled");
  }
  const int64_t renorm = RoleInt(call, family, F::Role::kRenorm, 0);
  if (renorm != 0) return refuse(F::Role::kRenorm, std::to_string(renorm) + " is not 0, the one value the page supports");
  if (x->view.size() != 2) return out_of_range(F::Role::kX, "shape " + DimsText(x->view) + " is not [rows, experts]");
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  if (bias && bias->view != Dims{x->view[1]}) {
    return out_of_range(F::Role::kBias, "shape " + DimsText(bias->view) + " is not [experts] for x " + DimsText(x->view));
  }
  if (bias) {
    return refuse(F::Role::kBias, "is not simulated: the page's formula takes y from sigmoid(x) + bias, DeepSeek-V3's "
                                  "gating from sigmoid(x), and the page does not settle which the kernel returns");
  }
  GatingWork* made = new GatingWork(call.spec.name);
  std::unique_ptr<GatingWork> owned(made);
  made->rows = x->view[0];
  made->experts = x->view[1];
  made->k = RoleInt(call, family, F::Role::kK, 1);
  made->k_group = RoleInt(call, family, F::Role::kKGroup, 1);
  made->groups = RoleInt(call, family, F::Role::kGroupCount, 1);
  made->select_mode = RoleInt(call, family, F::Role::kGroupSelectMode, 0);
  made->scaling = RoleNumber(call, family, F::Role::kScaling, -1, 1.0);
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-20);
  const int64_t e = made->experts, groups = made->groups;
  if (e > 2048) return out_of_range(F::Role::kX, "has " + std::to_string(e) + " experts, more than the page's 2048");
  if (groups <= 0 || e % groups != 0 || e / groups <= 2 || (e / groups + 31) / 32 * 32 * groups > 2048) {
    return out_of_range(F::Role::kGroupCount,
                        std::to_string(groups) + " does not split " + std::to_string(e) +
                            " experts into groups of more than 2 (32-aligned, at most 2048 in all)");
  }
  if (made->k_group < 1 || made->k_group > groups) {
    return out_of_range(F::Role::kKGroup, std::to_string(made->k_group) + " is outside [1, groupCount = " +
                                              std::to_string(groups) + "]");
  }
  if (made->k < 1 || made->k > e / groups * made->k_group) {
    return out_of_range(F::Role::kK, std::to_string(made->k) + " is outside [1, " +
                                         std::to_string(e / groups * made->k_group) + "] (the kept groups' experts)");
  }
  if (made->select_mode != 0 && made->select_mode != 1) {
    return refuse(F::Role::kGroupSelectMode, std::to_string(made->select_mode) + " is neither 0 (max) nor 1 (top-2 sum)");
  }
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  const Dims picked{made->rows, made->k};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kY, *y, picked, "[rows, k]", kY)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpertIdx, *idx, picked, "[rows, k]", kIdx)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kNormOut, *norm, x->view, "x's shape", kNorm)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanSoftmaxTopK(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kY);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  if (!x || !y || !idx) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter refuse(call, family);
  if (x->view.size() != 2 && x->view.size() != 3) {
    return refuse(F::Role::kX, "shape " + DimsText(x->view) + " is not [NUM_ROWS, E] or [B, S, E]");
  }
  if (y->dtype != x->dtype) {
    return refuse(F::Role::kY, std::string("dtype ") + DTypeName(y->dtype) + " is not x's " + DTypeName(x->dtype));
  }
  const Dims leading(x->view.begin(), x->view.end() - 1);
  const int64_t experts = x->view.back();
  const int64_t k = RoleInt(call, family, F::Role::kK, 1);
  if (k < 1 || k > std::min<int64_t>(experts, 1024)) {
    return refuse(F::Role::kK, std::to_string(k) + " is outside [1, min(E = " + std::to_string(experts) + ", 1024)]");
  }
  const int64_t renorm = RoleInt(call, family, F::Role::kRenorm, 0);
  if (renorm != 0 && renorm != 1) return refuse(F::Role::kRenorm, std::to_string(renorm) + " is neither 0 nor 1");
  const TensorDesc* finished = RoleTensor(call, family, F::Role::kFinished);
  if (finished && finished->view != leading) {
    return refuse(F::Role::kFinished, "shape " + DimsText(finished->view) + " is not x's without its last dimension, " +
                                          DimsText(leading));
  }
  SoftmaxTopKWork* made = new SoftmaxTopKWork(call.spec.name);
  std::unique_ptr<SoftmaxTopKWork> owned(made);
  made->rows = 1;
  for (int64_t d : leading) made->rows *= d;
  made->experts = experts;
  made->k = k;
  made->renorm = renorm;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (finished) {
    made->finished = true;
    made->tensor(kFinished).Set(RoleName(call, family, F::Role::kFinished), *finished);
  }
  Dims picked = leading;
  picked.push_back(k);
  const char* what = "x's shape with k last";
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kY, *y, picked, what, kY)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpertIdx, *idx, picked, what, kIdx)) return s;
  if (const TensorDesc* rows_out = RoleTensor(call, family, F::Role::kRowIdx)) {
    made->row_idx = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kRowIdx, *rows_out, picked, what, kRowIdx)) return s;
  }
  // The softmax is an output only when asked for with renorm 0 (V2's page: "renorm为0时生效"); op-plugin
  // passes an empty tensor otherwise, which is left unwritten.
  const TensorDesc* softmax = RoleTensor(call, family, F::Role::kSoftmaxOut);
  if (softmax && renorm == 0 && RoleBool(call, family, F::Role::kSoftmaxFlag, false)) {
    made->softmax_out = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSoftmaxOut, *softmax, x->view, "x's shape", kSoftmax)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanMoe(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kGatingTopKSoftmax) return PlanSoftmaxTopK(call, family, work);
  return PlanGating(call, family, work);
}

}  // namespace aclsim
