// The vocab_parallel family: the local pieces of a cross entropy over a vocabulary split across
// devices (Megatron's vocab-parallel cross entropy), as their pages' formulas compute them;
// torch_npu.npu_fused_linear_online_max_sum, npu_fused_cross_entropy_loss_with_max_sum and
// npu_fused_linear_cross_entropy_loss_with_max_sum_backward reach the first three through op-plugin.
//   linear_online_max_sum   aclnnFusedLinearOnlineMaxSum: logits = input @ weight^T ([BT, V], in
//                           float); per row its max, the sum of exp(logits - max), the mask of a
//                           target outside [vocabStartIndex, vocabEndIndex] (both ends included),
//                           masked_target (target - start, 0 where masked) and predicted (logits -
//                           max at masked_target, 0 where masked); the mask packed 8 rows a byte,
//                           row p at bit p % 8 (least significant first, as the simulator's dropout
//                           masks), the bits past BT set; the logits in input's dtype when asked.
//   cross_entropy_with_max_sum  aclnnFusedCrossEntropyLossWithMaxSum: loss = log(sum_exp_logits) -
//                           predicted_logits; softmax = exp(logits - logits_max) / sum_exp_logits
//                           when vocab_parallel_logits is given.
//   linear_cross_entropy_grad  aclnnFusedLinearCrossEntropyLossGrad: the softmax (given, or
//                           recomputed from input @ weight^T, logits_max and sum_exp_logits), 1
//                           taken from each unmasked row's masked_target, times grad per row;
//                           input_grad = that @ weight, weight_grad = its transpose @ input.
//   sum_exp_and_index_logit  aclnnCrossEntropySumExpAndIndexLogit: exp(logits - the global max) and
//                           its row sums, target_offset, target_mask (INT32, vocabEndIndex
//                           excluded) and predicted (logit - max at the offset, 0 where masked).
// labelSmoothing other than 0 (the pages: only 0) and input/weight given to the loss (the page:
// only NULL) are refused in phase 1; a masked_target outside [0, V) fails phase 2 by name. In
// float, sums in double, products on the BLAS.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <cblas.h>

#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = VocabParallelFamily;
using Op = F::Op;

// One slot per role, numbered as the roles (weight_grad the last).
constexpr int kSlots = F::Role::kWeightGrad + 1;

// c[m, n] = a(^T) @ b(^T), row-major.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.0f);
    return;
  }
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(ta ? m : k), b,
                    static_cast<int>(tb ? k : n), 0.0f, c, static_cast<int>(n));
}

class VocabWork final : public FamilyWork {
 public:
  explicit VocabWork(const char* api) : FamilyWork(api, kSlots) {}

  int op = 0;
  int64_t rows = 0, vocab = 0, hidden = 0, start = 0, end = 0;

 private:
  bool Has(int role) const { return tensor(role).dtype != ACL_DT_UNDEFINED; }
  const float* Floats(int role, int scratch) const {
    return tensor(role).numel() ? static_cast<const float*>(ContiguousAs(tensor(role), ComputeType::kFloat32, scratch))
                                : nullptr;
  }
  std::vector<int64_t> Ints(int role) const {
    std::vector<int64_t> values(static_cast<size_t>(tensor(role).numel()));
    if (!values.empty()) GatherAs(tensor(role), ComputeType::kInt64, values.data());
    return values;
  }
  void Put(int role, const std::vector<float>& values) const {
    if (Has(role)) ScatterFrom(values.data(), ComputeType::kFloat32, tensor(role));
  }
  void PutInts(int role, const std::vector<int64_t>& values) const {
    if (Has(role)) ScatterFrom(values.data(), ComputeType::kInt64, tensor(role));
  }
  // input @ weight^T, [rows, vocab].
  std::vector<float> Logits() const {
    std::vector<float> logits(static_cast<size_t>(rows * vocab));
    Gemm(false, true, rows, vocab, hidden, Floats(F::Role::kInput, 0), Floats(F::Role::kWeight, 1), logits.data());
    return logits;
  }

  aclnnStatus Compute() override {
    switch (op) {
      case Op::kLinearOnlineMaxSum: return OnlineMaxSum();
      case Op::kCrossEntropyWithMaxSum: return LossWithMaxSum();
      case Op::kLinearCrossEntropyGrad: return Grad();
      default: return SumExpAndIndex();
    }
  }

  // Per row: max (or the given one), the sum of exp(x - max), the mask, the offset, the predicted
  // logit. `logits` [rows, vocab]; `exps` receives exp(x - max) when not null.
  void Rows(const float* logits, const float* given_max, const std::vector<int64_t>& target, bool end_included,
            std::vector<float>* max, std::vector<float>* sum, std::vector<float>* predicted, std::vector<int64_t>* mask,
            std::vector<int64_t>* offset, float* exps) const {
    ParallelFor(rows, [&](int64_t r) {
      const float* row = logits + r * vocab;
      const float top = given_max ? given_max[r] : (vocab ? *std::max_element(row, row + vocab) : 0.0f);
      double total = 0;
      for (int64_t v = 0; v < vocab; ++v) {
        const float e = std::exp(row[v] - top);
        if (exps) exps[r * vocab + v] = e;
        total += e;
      }
      const int64_t t = target[static_cast<size_t>(r)];
      const bool out = t < start || (end_included ? t > end : t >= end);
      const int64_t at = out ? 0 : t - start;
      (*max)[static_cast<size_t>(r)] = top;
      (*sum)[static_cast<size_t>(r)] = static_cast<float>(total);
      (*mask)[static_cast<size_t>(r)] = out ? 1 : 0;
      (*offset)[static_cast<size_t>(r)] = at;
      (*predicted)[static_cast<size_t>(r)] = out || at >= vocab ? 0.0f : row[at] - top;
    });
  }

  aclnnStatus OutsideVocab(const std::vector<int64_t>& mask, const std::vector<int64_t>& offset, int role) {
    for (int64_t r = 0; r < rows; ++r) {
      if (!mask[static_cast<size_t>(r)] && offset[static_cast<size_t>(r)] >= vocab) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(role).name + ": row " + std::to_string(r) +
                                         " names column " + std::to_string(offset[static_cast<size_t>(r)]) +
                                         " of a shard of " + std::to_string(vocab));
      }
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus OnlineMaxSum() {
    const std::vector<float> logits = Logits();
    const std::vector<int64_t> target = Ints(F::Role::kTarget);
    std::vector<float> max(static_cast<size_t>(rows)), sum(max.size()), predicted(max.size());
    std::vector<int64_t> mask(max.size()), offset(max.size());
    Rows(logits.data(), nullptr, target, true, &max, &sum, &predicted, &mask, &offset, nullptr);
    if (aclnnStatus s = OutsideVocab(mask, offset, F::Role::kTarget)) return s;
    std::vector<int64_t> packed(static_cast<size_t>((rows + 7) / 8), 0);
    for (int64_t p = 0; p < static_cast<int64_t>(packed.size()) * 8; ++p) {
      if (p >= rows || mask[static_cast<size_t>(p)]) packed[static_cast<size_t>(p / 8)] |= int64_t{1} << (p % 8);
    }
    Put(F::Role::kLogitsMax, max);
    Put(F::Role::kSumExpLogits, sum);
    Put(F::Role::kPredictedLogits, predicted);
    PutInts(F::Role::kTargetMask, packed);
    PutInts(F::Role::kMaskedTarget, offset);
    Put(F::Role::kVocabParallelLogits, logits);
    return ACLNN_SUCCESS;
  }

  aclnnStatus LossWithMaxSum() {
    const float *max = Floats(F::Role::kLogitsMax, 0), *sum = Floats(F::Role::kSumExpLogits, 1);
    const float* predicted = Floats(F::Role::kPredictedLogits, 2);
    std::vector<float> loss(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) loss[static_cast<size_t>(r)] = std::log(sum[r]) - predicted[r];
    Put(F::Role::kLoss, loss);
    if (Has(F::Role::kVocabParallelLogits) && Has(F::Role::kSoftmax)) {
      const float* logits = Floats(F::Role::kVocabParallelLogits, 3);
      std::vector<float> softmax(static_cast<size_t>(rows * vocab));
      ParallelFor(rows, [&](int64_t r) {
        for (int64_t v = 0; v < vocab; ++v) softmax[static_cast<size_t>(r * vocab + v)] = std::exp(logits[r * vocab + v] - max[r]) / sum[r];
      });
      Put(F::Role::kSoftmax, softmax);
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus Grad() {
    std::vector<float> softmax;
    if (Has(F::Role::kSoftmax)) {
      const float* given = Floats(F::Role::kSoftmax, 2);
      softmax.assign(given, given + rows * vocab);
    } else {
      softmax = Logits();
      const float *max = Floats(F::Role::kLogitsMax, 2), *sum = Floats(F::Role::kSumExpLogits, 3);
      ParallelFor(rows, [&](int64_t r) {
        for (int64_t v = 0; v < vocab; ++v) {
          float& x = softmax[static_cast<size_t>(r * vocab + v)];
          x = std::exp(x - max[r]) / sum[r];
        }
      });
    }
    const std::vector<int64_t> packed = Ints(F::Role::kTargetMask), target = Ints(F::Role::kMaskedTarget);
    const float* grad = Floats(F::Role::kGrad, 4);
    for (int64_t r = 0; r < rows; ++r) {
      const bool masked = (packed[static_cast<size_t>(r / 8)] >> (r % 8)) & 1;
      const int64_t at = target[static_cast<size_t>(r)];
      if (at < 0 || at >= vocab) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(F::Role::kMaskedTarget).name + ": row " +
                                         std::to_string(r) + " is " + std::to_string(at) + ", outside [0, " +
                                         std::to_string(vocab) + ")");
      }
      float* row = softmax.data() + r * vocab;
      if (!masked) row[at] -= 1.0f;
      for (int64_t v = 0; v < vocab; ++v) row[v] *= grad[r];
    }
    std::vector<float> input_grad(static_cast<size_t>(rows * hidden)), weight_grad(static_cast<size_t>(vocab * hidden));
    Gemm(false, false, rows, hidden, vocab, softmax.data(), Floats(F::Role::kWeight, 1), input_grad.data());
    Gemm(true, false, vocab, hidden, rows, softmax.data(), Floats(F::Role::kInput, 0), weight_grad.data());
    Put(F::Role::kInputGrad, input_grad);
    Put(F::Role::kWeightGrad, weight_grad);
    return ACLNN_SUCCESS;
  }

  aclnnStatus SumExpAndIndex() {
    const float* logits = Floats(F::Role::kVocabParallelLogits, 0);
    const float* global_max = Floats(F::Role::kLogitsMax, 1);
    const std::vector<int64_t> target = Ints(F::Role::kTarget);
    std::vector<float> max(static_cast<size_t>(rows)), sum(max.size()), predicted(max.size());
    std::vector<int64_t> mask(max.size()), offset(max.size());
    std::vector<float> exps(static_cast<size_t>(rows * vocab));
    Rows(logits, global_max, target, false, &max, &sum, &predicted, &mask, &offset, exps.data());
    Put(F::Role::kPredictedLogits, predicted);
    Put(F::Role::kSumExpLogits, sum);
    Put(F::Role::kExpLogits, exps);
    PutInts(F::Role::kTargetOffset, offset);
    PutInts(F::Role::kTargetMask, mask);
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanVocabParallel(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const ParamRejecter reject(call, family);
  std::unique_ptr<VocabWork> made(new VocabWork(call.spec.name));
  made->op = family.op;
  if (RoleParam(call, family, F::Role::kLabelSmoothing) &&
      RoleNumber(call, family, F::Role::kLabelSmoothing, -1, 0.0) != 0.0) {
    return reject(F::Role::kLabelSmoothing, "must be 0 (the page: only 0 is supported)");
  }
  for (int role : {static_cast<int>(F::Role::kInput), static_cast<int>(F::Role::kWeight)}) {
    if (family.op == Op::kCrossEntropyWithMaxSum && RoleTensor(call, family, role)) {
      return reject(role, "must be NULL (the page: only a null pointer is supported)");
    }
  }
  // The matrix of rows x vocab the op works on: input @ weight^T, or the logits given.
  const bool product = family.op == Op::kLinearOnlineMaxSum || family.op == Op::kLinearCrossEntropyGrad;
  if (product) {
    const TensorDesc* input = RoleTensor(call, family, F::Role::kInput);
    const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
    if (!input || !weight) return Decline(call, work, "without input and weight");
    if (input->view.size() != 2 || weight->view.size() != 2 || input->view[1] != weight->view[1]) {
      return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [V, H] beside input " + DimsText(input->view));
    }
    made->rows = input->view[0];
    made->hidden = input->view[1];
    made->vocab = weight->view[0];
  } else {
    const TensorDesc* rows = RoleTensor(call, family, family.op == Op::kCrossEntropyWithMaxSum ? F::Role::kLogitsMax : F::Role::kTarget);
    if (!rows) return Decline(call, work, "without its per-row tensor");
    made->rows = rows->numel();
    const TensorDesc* logits = RoleTensor(call, family, F::Role::kVocabParallelLogits);
    made->vocab = logits && !logits->view.empty() ? logits->view.back() : 0;
    if (logits && logits->numel() != made->rows * made->vocab) {
      return reject(F::Role::kVocabParallelLogits, "shape " + DimsText(logits->view) + " does not hold " +
                                                       std::to_string(made->rows) + " rows");
    }
  }
  made->start = RoleInt(call, family, F::Role::kVocabStartIndex, 0);
  made->end = RoleInt(call, family, F::Role::kVocabEndIndex, 0);
  // Every tensor the call passes, each checked to hold rows, rows x vocab, ... elements.
  const int64_t r = made->rows, v = made->vocab, h = made->hidden;
  struct Extent {
    int role;
    int64_t numel;
  };
  const Extent extents[] = {{F::Role::kLogitsMax, r},       {F::Role::kSumExpLogits, r},   {F::Role::kPredictedLogits, r},
                            {F::Role::kLoss, r},            {F::Role::kTarget, r},         {F::Role::kMaskedTarget, r},
                            {F::Role::kTargetOffset, r},    {F::Role::kGrad, r},           {F::Role::kSoftmax, r * v},
                            {F::Role::kVocabParallelLogits, r * v}, {F::Role::kExpLogits, r * v},
                            {F::Role::kInput, r * h},       {F::Role::kWeight, v * h},     {F::Role::kInputGrad, r * h},
                            {F::Role::kWeightGrad, v * h},
                            {F::Role::kTargetMask, family.op == Op::kSumExpAndIndexLogit ? r : (r + 7) / 8}};
  for (const Extent& e : extents) {
    const TensorDesc* t = RoleTensor(call, family, e.role);
    if (!t) continue;
    ComputeType type;
    if (!FamilyComputeType(t->dtype, true, &type)) {
      return Decline(call, work, std::string("for dtype ") + DTypeName(t->dtype) + " of " + RoleName(call, family, e.role));
    }
    const bool packed = e.role == F::Role::kTargetMask && family.op != Op::kSumExpAndIndexLogit;
    if (packed ? t->numel() < e.numel : t->numel() != e.numel) {
      return reject(e.role, "shape " + DimsText(t->view) + " does not hold " + std::to_string(e.numel) + " elements");
    }
    made->tensor(e.role).Set(RoleName(call, family, e.role), *t);
  }
  const bool needs_stats = family.op == Op::kLinearCrossEntropyGrad && !RoleTensor(call, family, F::Role::kSoftmax);
  if (needs_stats && (!RoleTensor(call, family, F::Role::kLogitsMax) || !RoleTensor(call, family, F::Role::kSumExpLogits))) {
    return RejectParam(call, family, F::Role::kSoftmax, ACLNN_ERR_PARAM_NULLPTR,
                       "is NULL, and so is logitsMaxOptional or sumExpLogitsOptional (the page: one way is needed)");
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
