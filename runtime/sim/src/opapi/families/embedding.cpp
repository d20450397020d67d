// The embedding family: an embedding table's gradient and its rows' renormalisation.
//   embedding_dense_backward  out [numWeights, D] = 0, then out[indices[i]] += grad's row i (grad's
//                             dimensions but the last merged into rows, as many as indices has
//                             elements) in index order, each row scaled by 1 / (the number of
//                             times its index occurs) with scale_grad_by_freq; rows whose index is
//                             padding_idx are left out (the padding row stays 0); aten's CPU kernel
//                             adds the same way, in the compute type
//   embedding_renorm          each row of self (2-d) an index names, once however often it is named,
//                             in increasing index order, scaled by max_norm / (norm + 1e-7) where
//                             its norm_type-norm exceeds max_norm (aten's embedding_renorm_; the
//                             norm accumulated in double: the largest |x| for inf, the count of
//                             nonzeros for 0)
// Indices outside [0, numWeights) (the renorm: self's rows) fail phase 2 by name (the device's kernel faults). FLOAT, FLOAT16
// and BFLOAT16 accumulate in float, DOUBLE in double. Output rows are spread over the threads,
// each thread adding its rows' contributions in index order (the same result whatever the threads).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = EmbeddingFamily;

enum Slot { kGrad, kIndices, kOut, kSelf, kSlots };

class EmbeddingWork final : public FamilyWork {
 public:
  EmbeddingWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t rows = 0, width = 0, num_weights = 0, padding_idx = -1;
  bool scale_by_freq = false;
  double max_norm = 0, norm_type = 2;

 private:
  aclnnStatus Compute() override {
    const TensorRef& indices = tensor(kIndices);
    const int64_t* idx = rows ? IndexValues(indices, 0) : nullptr;
    for (int64_t i = 0; i < rows; ++i) {
      if (idx[i] < 0 || idx[i] >= num_weights) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + indices.name + ": element " + std::to_string(i) +
                                         " is " + std::to_string(idx[i]) + ", outside [0, " +
                                         std::to_string(num_weights) + ") (the device's kernel faults on it)");
      }
    }
    if (op_ == F::Op::kEmbeddingRenorm) {
      WithFamilyType(type, [&](auto zero) { Renorm<decltype(zero)>(idx); });
    } else {
      WithFamilyType(type, [&](auto zero) { Accumulate<decltype(zero)>(idx); });
    }
    return ACLNN_SUCCESS;
  }

  template <typename T>
  void Renorm(const int64_t* idx) {
    std::vector<int64_t> sorted(idx, idx + rows);
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    TensorRef row = tensor(kSelf);
    const int64_t row_stride = row.strides[0];
    char* const first = row.first;
    row.shape = Dims{width};
    row.strides = Dims{row.strides[1]};
    T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(width, 1)) * sizeof(T)));
    for (int64_t k : sorted) {
      row.first = first + k * row_stride * static_cast<int64_t>(DTypeSize(row.dtype));
      GatherAs(row, type, values);
      double norm = 0;
      if (std::isinf(norm_type)) {
        for (int64_t j = 0; j < width; ++j) norm = std::max(norm, std::fabs(static_cast<double>(values[j])));
      } else if (norm_type == 0) {
        for (int64_t j = 0; j < width; ++j) norm += values[j] != T(0) ? 1.0 : 0.0;
      } else {
        for (int64_t j = 0; j < width; ++j) norm += std::pow(std::fabs(static_cast<double>(values[j])), norm_type);
        norm = std::pow(norm, 1.0 / norm_type);
      }
      if (!(norm > max_norm)) continue;
      const T scale = static_cast<T>(max_norm / (norm + 1e-7));
      for (int64_t j = 0; j < width; ++j) values[j] *= scale;
      ScatterFrom(values, type, row);
    }
  }

  template <typename T>
  void Accumulate(const int64_t* idx) {
    const int64_t total = num_weights * width;
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(total, 1)) * sizeof(T)));
    std::fill(y, y + total, T(0));
    if (rows > 0 && width > 0) {
      const T* g = static_cast<const T*>(ContiguousAs(tensor(kGrad), type, 2));
      std::vector<int64_t> counts;
      if (scale_by_freq) {
        counts.assign(static_cast<size_t>(num_weights), 0);
        for (int64_t i = 0; i < rows; ++i) ++counts[static_cast<size_t>(idx[i])];
      }
      auto add_rows = [&](int64_t begin, int64_t end) {
        for (int64_t i = 0; i < rows; ++i) {
          const int64_t k = idx[i];
          if (k < begin || k >= end || k == padding_idx) continue;
          const T scale = scale_by_freq ? static_cast<T>(1.0 / static_cast<double>(counts[static_cast<size_t>(k)]))
                                        : T(1);
          T* dst = y + k * width;
          const T* src = g + i * width;
          for (int64_t j = 0; j < width; ++j) dst[j] += scale_by_freq ? src[j] * scale : src[j];
        }
      };
      const int64_t tasks = rows * width < (1 << 16) ? 1 : std::min<int64_t>(num_weights, ParallelThreads() * 4);
      if (tasks <= 1) {
        add_rows(0, num_weights);
      } else {
        ParallelFor(tasks, [&](int64_t t) { add_rows(num_weights * t / tasks, num_weights * (t + 1) / tasks); });
      }
    }
    ScatterFrom(y, type, tensor(kOut));
  }

  int op_;
};

aclnnStatus PlanRenorm(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
  if (!self || !indices) return Decline(call, work, "without its tensors");
  if (indices->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  ComputeType type;
  if (!FamilyComputeType(self->dtype, false, &type) || IsIntegralType(self->dtype)) {
    return DeclineDtype(call, work, self->dtype);
  }
  if (self->view.size() != 2) {
    return RejectInvalid(call, family, F::Role::kSelf, "shape " + DimsText(self->view) + " is not 2-d");
  }
  EmbeddingWork* made = new EmbeddingWork(call.spec.name, family.op);
  std::unique_ptr<EmbeddingWork> owned(made);
  made->type = type;
  made->num_weights = self->view[0];
  made->width = self->view[1];
  made->rows = 1;
  for (int64_t e : indices->view) made->rows *= e;
  made->max_norm = RoleNumber(call, family, F::Role::kMaxNorm, -1, 0);
  made->norm_type = RoleNumber(call, family, F::Role::kNormType, -1, 2);
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  made->tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), *indices);
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanEmbedding(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kEmbeddingRenorm) return PlanRenorm(call, family, work);
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGrad);
  const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!grad || !indices || !out) return Decline(call, work, "without its tensors");
  if (grad->view.size() > 16 || indices->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  ComputeType type;
  if (!FamilyComputeType(grad->dtype, false, &type) || IsIntegralType(grad->dtype)) {
    return DeclineDtype(call, work, grad->dtype);
  }
  const ParamRejecter reject(call, family);
  EmbeddingWork* made = new EmbeddingWork(call.spec.name, family.op);
  std::unique_ptr<EmbeddingWork> owned(made);
  made->type = type;
  if (grad->view.empty()) return reject(F::Role::kGrad, "must have at least one dimension");
  made->width = grad->view.back();
  int64_t grad_rows = 1, index_count = 1;
  for (size_t d = 0; d + 1 < grad->view.size(); ++d) grad_rows *= grad->view[d];
  for (int64_t e : indices->view) index_count *= e;
  if (grad_rows != index_count) {
    return reject(F::Role::kGrad, "shape " + DimsText(grad->view) + " has " + std::to_string(grad_rows) +
                                      " rows, not one per element of indices " + DimsText(indices->view));
  }
  made->rows = index_count;
  made->num_weights = RoleInt(call, family, F::Role::kNumWeights, 0);
  if (made->num_weights < 0) {
    return reject(F::Role::kNumWeights, std::to_string(made->num_weights) + " is negative");
  }
  // uint64_t on the page: op-plugin passes aten's -1 (no padding) as its two's complement, which
  // reads back as -1 and matches no index.
  made->padding_idx = RoleInt(call, family, F::Role::kPaddingIdx, -1);
  made->scale_by_freq = RoleBool(call, family, F::Role::kScaleGradByFreq, false);
  made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGrad), *grad);
  made->tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), *indices);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{made->num_weights, made->width},
                                       "[numWeights, grad's last dimension]", kOut)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
