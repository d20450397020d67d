// The cumulative family: cumsum (with CumsumV2's exclusive and reverse), cumprod, cummax and
// cummin along one dimension.
//
// Phase 2 views the input with the scanned dimension last, so that each scan runs over one
// contiguous row of L elements (the input's own memory when it already is laid out so in the
// compute type, else a gathered copy), writes the row's results to a contiguous buffer, and
// scatters that buffer into the output viewed the same way (any strides, any dtype). Rows are
// spread over the threads. Sums and products run in the compute type of the result (float for
// FLOAT16 and BFLOAT16, as on the NPU; int64 for integers, exact as PyTorch's), accumulated in that
// type as PyTorch's CPU scan does; cummax/cummin keep the input's values and take the latest
// index of equal ones and of a NaN, as torch.cummax/cummin do.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = CumulativeFamily;

enum Slot { kSelf, kOut, kIndices, kSlots };

bool HasIndices(int op) { return op == F::Op::kCummax || op == F::Op::kCummin; }

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  return false;
}

// One row: y[i] = x[0] op ... op x[i] (inclusive) or up to x[i-1] (exclusive), from the row's end
// when reversed; for cummax/cummin also the index (within the row) of the value kept.
template <typename T>
void ScanRow(int op, const T* x, int64_t n, bool exclusive, bool reverse, T* y, int64_t* index) {
  const int64_t first = reverse ? n - 1 : 0, step = reverse ? -1 : 1;
  if (op == F::Op::kCumsum || op == F::Op::kCumprod) {
    const bool sum = op == F::Op::kCumsum;
    T acc = sum ? T(0) : T(1);
    for (int64_t k = 0, i = first; k < n; ++k, i += step) {
      if (exclusive) {
        y[i] = acc;
        acc = sum ? T(acc + x[i]) : T(acc * x[i]);
      } else {
        acc = sum ? T(acc + x[i]) : T(acc * x[i]);
        y[i] = acc;
      }
    }
    return;
  }
  const bool max = op == F::Op::kCummax;
  T best{};
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    // PyTorch's rule (aten/src/ATen/native/ReduceOps.cpp, cummax_cummin_helper): a NaN is taken
    // and then kept; among equal values the latest index is taken.
    if (i == 0 || IsNan(v) || (!IsNan(best) && (max ? v >= best : v <= best))) best = v, at = i;
    y[i] = best;
    index[i] = at;
  }
}

class CumulativeWork final : public FamilyWork {
 public:
  CumulativeWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t dim = 0;  // of self; 0 for a 0-d tensor (one element)
  bool exclusive = false, reverse = false;

 private:
  aclnnStatus Compute() override {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    int64_t order[16];
    int64_t k = 0, outer = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim) order[k++] = d, outer *= self.shape[d];
    }
    const int64_t length = rank == 0 ? 1 : self.shape[dim];
    if (rank > 0) order[k++] = dim;
    if (outer == 0 || length == 0) return ACLNN_SUCCESS;
    const TensorRef rows = self.Permuted(order);
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* x = static_cast<const T*>(ContiguousAs(rows, type, 0));
      const size_t count = static_cast<size_t>(outer * length);
      T* y = static_cast<T*>(Scratch(1, count * sizeof(T)));
      int64_t* indices = HasIndices(op_) ? static_cast<int64_t*>(Scratch(2, count * sizeof(int64_t))) : nullptr;
      auto row = [&](int64_t o) {
        ScanRow<T>(op_, x + o * length, length, exclusive, reverse, y + o * length,
                   indices ? indices + o * length : nullptr);
      };
      if (outer * length < (1 << 15) || outer == 1) {
        for (int64_t o = 0; o < outer; ++o) row(o);
      } else {
        const int64_t tasks = std::min<int64_t>(outer, ParallelThreads() * 4);
        ParallelFor(tasks, [&](int64_t task) {
          for (int64_t o = outer * task / tasks; o < outer * (task + 1) / tasks; ++o) row(o);
        });
      }
      ScatterFrom(y, type, tensor(kOut).Permuted(order));
      if (indices && tensor(kIndices).dtype != ACL_DT_UNDEFINED) {
        ScatterFrom(indices, ComputeType::kInt64, tensor(kIndices).Permuted(order));
      }
    });
    return ACLNN_SUCCESS;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanCumulative(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  SourceAndOutput found;
  if (!ReadSourceAndOutput(call, family, F::Role::kSelf, F::Role::kOut, work, &found)) return ACLNN_SUCCESS;
  const auto [self, out, rank] = found;
  const int64_t given = RoleInt(call, family, F::Role::kDim, 0);
  int64_t dim = 0;
  if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, given, rank, &dim)) return s;
  // Sums and products are computed in the result's type (torch.cumsum(x, dtype=d) casts x to d
  // first); cummax/cummin compare the input's values.
  const aclDataType computed = HasIndices(op) ? self->dtype : out->dtype;
  ComputeType type;
  if (!FamilyComputeType(computed, true, &type)) {
    return DeclineDtype(call, work, computed);
  }
  CumulativeWork* made = new CumulativeWork(call.spec.name, op);
  std::unique_ptr<CumulativeWork> owned(made);
  made->type = type;
  made->dim = rank == 0 ? 0 : dim;
  made->exclusive = RoleBool(call, family, F::Role::kExclusive, false);
  made->reverse = RoleBool(call, family, F::Role::kReverse, false);
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  const Dims& shape = self->view;
  auto keep = [&](int role, const TensorDesc* t, int slot) {
    return made->KeepOutput(call, family, role, *t, shape, "the input's shape", slot);
  };
  if (aclnnStatus s = keep(F::Role::kOut, out, kOut)) return s;
  if (HasIndices(op)) {
    if (const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices)) {
      if (aclnnStatus s = keep(F::Role::kIndices, indices, kIndices)) return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
