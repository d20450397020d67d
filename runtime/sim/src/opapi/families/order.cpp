// The order family, as aten's CPU kernels choose (aten/src/ATen/native/Sorting.cpp):
//   kthvalue                the k-th smallest value of each row along dim and its index, by aten's
//                           quickselect step for step (NaN counts as the largest), so that among
//                           equal values the index is the one PyTorch returns
//   median, nanmedian       with a dim: the lower median of each row and its index, ties broken by
//                           position (aten's total order), NaN returned as soon as a row holds one
//                           (median) or left out (nanmedian); without: the value over every element
//   repeat_interleave       each element (slice along dim; without a dim, of the flattened self)
//                           repeated by its count (one count for all, or one per element); without
//                           self, the positions 0..len(repeats)-1 so repeated
//   repeat_interleave_grad  the gradient's groups along dim (one per count) summed
// Values are compared and copied in the family's compute type (float for FLOAT16 and BFLOAT16,
// whose values and order it keeps; int64 for integers and BOOL), so selections and copies are
// PyTorch's bit for bit. Counts live on the device: a negative one, or counts whose sum is not the
// output's extent, fail in phase 2 by name.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn_bindgen/reduce_shape.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = OrderFamily;

enum Slot { kSelf, kRepeats, kOut, kIndices, kSlots };

// `dims` without dimension d.
Dims Without(const Dims& dims, int64_t d) {
  Dims kept;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (static_cast<int64_t>(i) != d) kept.push_back(dims[i]);
  }
  return kept;
}

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  return false;
}

// aten's quick_select_template with kthvalue's comparison (NaN greatest), swapping values and
// their positions alike: the k-th (from 0) of the row ends at x[k].
template <typename T>
void QuickSelect(T* x, int64_t* at, int64_t n, int64_t k) {
  auto gt = [](T a, T b) { return (IsNan(a) && !IsNan(b)) || a > b; };
  auto swap = [&](int64_t i, int64_t j) { std::swap(x[i], x[j]), std::swap(at[i], at[j]); };
  int64_t lo = 0, hi = n - 1;
  while (true) {
    if (hi <= lo) return;
    if (hi == lo + 1) {
      if (gt(x[lo], x[hi])) swap(lo, hi);
      return;
    }
    const int64_t mid = lo + (hi - lo) / 2;
    swap(mid, lo + 1);
    if (gt(x[lo + 1], x[hi])) swap(lo + 1, hi);
    if (gt(x[lo], x[hi])) swap(lo, hi);
    if (gt(x[lo + 1], x[lo])) swap(lo + 1, lo);
    int64_t i = lo + 1, j = hi;
    const T pivot = x[lo];
    while (true) {
      do ++i; while (gt(pivot, x[i]));
      do --j; while (gt(x[j], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

class OrderWork final : public FamilyWork {
 public:
  OrderWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  bool has_dim = false;
  int64_t dim = 0;            // of self (of yGrad for the gradient)
  int64_t k = 1;              // kthvalue's, from 1
  int64_t output_size = 0;    // repeat_interleave's extent along dim
  int64_t repeat_count = -1;  // an int count; -1: the repeats tensor's

 private:
  // The row of self at `o` along dim reduced to a value and its index.
  template <typename T>
  void SelectRow(const T* row, int64_t n, T* value, int64_t* index) const {
    std::vector<int64_t> at(static_cast<size_t>(n));
    std::iota(at.begin(), at.end(), 0);
    if (op_ == F::Op::kKthvalue) {
      std::vector<T> x(row, row + n);
      QuickSelect(x.data(), at.data(), n, k - 1);
      *value = x[k - 1], *index = at[k - 1];
      return;
    }
    const bool skip_nan = op_ == F::Op::kNanmedian;
    if (!skip_nan) {
      for (int64_t i = 0; i < n; ++i) {
        if (IsNan(row[i])) {
          *value = row[i], *index = i;
          return;
        }
      }
    }
    const int64_t nans = skip_nan ? std::count_if(row, row + n, [](T v) { return IsNan(v); }) : 0;
    // Position breaks ties: the order is total, the result the stable sort's.
    auto before = [&](int64_t i, int64_t j) {
      return row[i] < row[j] || (row[i] == row[j] && i < j) || (IsNan(row[j]) && !IsNan(row[i]));
    };
    auto nth = at.begin() + (n - nans - 1) / 2;
    std::nth_element(at.begin(), nth, at.end(), before);
    *value = row[*nth], *index = *nth;
  }

  template <typename T>
  aclnnStatus Select() {
    const TensorRef& self = tensor(kSelf);
    if (!has_dim) {  // median over every element: the value alone
      const int64_t n = self.numel();
      const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
      std::vector<T> values(x, x + n);
      const bool skip_nan = op_ == F::Op::kNanmedian;
      const auto nan = std::find_if(values.begin(), values.end(), [](T v) { return IsNan(v); });
      T result = std::numeric_limits<T>::quiet_NaN();
      if (n > 0 && (skip_nan || nan == values.end())) {
        const auto kept = std::partition(values.begin(), values.end(), [](T v) { return !IsNan(v); });
        const int64_t count = kept - values.begin();
        if (count > 0) {
          std::nth_element(values.begin(), values.begin() + (count - 1) / 2, kept);
          result = values[(count - 1) / 2];
        }
      }
      ScatterFrom(&result, type, tensor(kOut));
      return ACLNN_SUCCESS;
    }
    const int64_t rank = self.rank();
    int64_t order[16];
    int64_t at = 0, outer = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim) order[at++] = d, outer *= self.shape[d];
    }
    const int64_t length = rank == 0 ? 1 : self.shape[dim];
    if (rank > 0) order[at++] = dim;
    if (outer == 0) return ACLNN_SUCCESS;
    const T* x = static_cast<const T*>(ContiguousAs(self.Permuted(order), type, 0));
    T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(outer) * sizeof(T)));
    int64_t* indices = static_cast<int64_t*>(Scratch(2, static_cast<size_t>(outer) * sizeof(int64_t)));
    auto rows = [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) SelectRow(x + o * length, length, values + o, indices + o);
    };
    if (outer * length < (1 << 14) || outer == 1) {
      rows(0, outer);
    } else {
      const int64_t tasks = std::min<int64_t>(outer, ParallelThreads() * 4);
      ParallelFor(tasks, [&](int64_t task) { rows(outer * task / tasks, outer * (task + 1) / tasks); });
    }
    ScatterFrom(values, type, RowOrder(tensor(kOut)));
    if (tensor(kIndices).dtype != ACL_DT_UNDEFINED) ScatterFrom(indices, ComputeType::kInt64, RowOrder(tensor(kIndices)));
    return ACLNN_SUCCESS;
  }

  // An output of the reduced shape (kept dimension or not) as the rows of self it holds.
  TensorRef RowOrder(const TensorRef& t) const {
    if (t.rank() != tensor(kSelf).rank() || t.rank() == 0) return t;
    TensorRef kept = t;
    kept.shape = Without(t.shape, dim);
    kept.strides = Without(t.strides, dim);
    return kept;
  }

  // The counts, one per element of the repeated dimension (`length`), checked.
  aclnnStatus Counts(int64_t length, std::vector<int64_t>* counts) {
    if (repeat_count >= 0) {
      counts->assign(static_cast<size_t>(length), repeat_count);
    } else {
      const TensorRef& repeats = tensor(kRepeats);
      const int64_t n = repeats.numel();
      const int64_t* r = static_cast<const int64_t*>(ContiguousAs(repeats, ComputeType::kInt64, 3));
      if (n == 1) counts->assign(static_cast<size_t>(length), r[0]);
      else counts->assign(r, r + n);
    }
    int64_t total = 0;
    for (size_t i = 0; i < counts->size(); ++i) {
      if ((*counts)[i] < 0) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": repeats: element " + std::to_string(i) + " is " +
                                         std::to_string((*counts)[i]) + ", a count cannot be negative");
      }
      total += (*counts)[i];
    }
    if (total != output_size) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": repeats sum to " + std::to_string(total) +
                                       ", not the output's extent " + std::to_string(output_size));
    }
    return ACLNN_SUCCESS;
  }

  // self as [outer, length, inner] around the repeated dimension (the flattened self: [1, N, 1]).
  void Split(const TensorRef& t, int64_t* outer, int64_t* length, int64_t* inner) const {
    *outer = 1, *inner = 1, *length = t.numel();
    if (!has_dim || t.rank() == 0) return;
    *length = t.shape[dim];
    for (int64_t d = 0; d < dim; ++d) *outer *= t.shape[d];
    for (int64_t d = dim + 1; d < t.rank(); ++d) *inner *= t.shape[d];
  }

  template <typename T>
  aclnnStatus Repeat() {
    const bool positions = tensor(kSelf).dtype == ACL_DT_UNDEFINED;
    int64_t outer = 1, length = 0, inner = 1;
    if (positions) length = tensor(kRepeats).numel();
    else Split(tensor(kSelf), &outer, &length, &inner);
    std::vector<int64_t> counts;
    if (aclnnStatus s = Counts(length, &counts)) return s;
    if (static_cast<int64_t>(counts.size()) != length) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": repeats holds " + std::to_string(counts.size()) +
                                       " counts for " + std::to_string(length) + " elements");
    }
    const T* x = positions ? nullptr : static_cast<const T*>(ContiguousAs(tensor(kSelf), type, 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(outer * output_size * inner, 1)) * sizeof(T)));
    T* to = y;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < length; ++i) {
        for (int64_t c = 0; c < counts[i]; ++c, to += inner) {
          if (positions) *to = static_cast<T>(i);
          else std::copy_n(x + (o * length + i) * inner, inner, to);
        }
      }
    }
    ScatterFrom(y, type, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus RepeatGrad() {
    const TensorRef& grad = tensor(kSelf);
    int64_t outer = 1, extent = 0, inner = 1;
    Split(grad, &outer, &extent, &inner);
    output_size = extent;
    const int64_t length = tensor(kOut).rank() == 0 ? 1 : tensor(kOut).shape[dim];
    std::vector<int64_t> counts;
    if (aclnnStatus s = Counts(length, &counts)) return s;
    const T* g = static_cast<const T*>(ContiguousAs(grad, type, 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(outer * length * inner, 1)) * sizeof(T)));
    std::fill_n(y, outer * length * inner, T(0));
    for (int64_t o = 0; o < outer; ++o) {
      const T* from = g + o * extent * inner;
      for (int64_t i = 0; i < length; ++i) {
        T* sum = y + (o * length + i) * inner;
        for (int64_t c = 0; c < counts[i]; ++c, from += inner) {
          for (int64_t e = 0; e < inner; ++e) sum[e] += from[e];
        }
      }
    }
    ScatterFrom(y, type, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Compute() override {
    aclnnStatus status = ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      if (op_ == F::Op::kRepeatInterleave) status = Repeat<T>();
      else if (op_ == F::Op::kRepeatInterleaveGrad) status = RepeatGrad<T>();
      else status = Select<T>();
    });
    return status;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanOrder(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* repeats = RoleTensor(call, family, F::Role::kRepeats);
  const bool repeating = op == F::Op::kRepeatInterleave || op == F::Op::kRepeatInterleaveGrad;
  if (!out || (!self && !(op == F::Op::kRepeatInterleave && repeats))) return Decline(call, work, "without its tensors");
  if ((self && self->view.size() > 16) || out->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  OrderWork* made = new OrderWork(call.spec.name, op);
  std::unique_ptr<OrderWork> owned(made);
  const ParamRejecter reject(call, family);
  const aclDataType dtype = self ? self->dtype : repeats->dtype;
  if (!FamilyComputeType(dtype, true, &made->type)) return DeclineDtype(call, work, dtype);
  if (self) made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  const int64_t rank = self ? static_cast<int64_t>(self->view.size()) : 1;
  made->has_dim = RoleParam(call, family, F::Role::kDim) != nullptr;
  if (made->has_dim) {
    const int64_t given = RoleInt(call, family, F::Role::kDim, 0);
    if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, given, rank, &made->dim)) return s;
    if (rank == 0) made->dim = 0;
  }
  Dims shape = self ? self->view : Dims{};
  if (repeating) {
    if (repeats) {
      if (repeats->view.size() > 1) {
        return reject(F::Role::kRepeats, "repeats must be 0-D or 1-D, got " + DimsText(repeats->view));
      }
      if (!IsIntegralType(repeats->dtype) || repeats->dtype == ACL_BOOL) {
        return reject(F::Role::kRepeats, std::string("counts of dtype ") + DTypeName(repeats->dtype) + " are not integers");
      }
      made->tensor(kRepeats).Set(RoleName(call, family, F::Role::kRepeats), *repeats);
    } else {
      made->repeat_count = RoleInt(call, family, F::Role::kRepeats, -1);
      if (made->repeat_count < 0) {
        return reject(F::Role::kRepeats, "repeats must not be negative, got " + std::to_string(made->repeat_count));
      }
    }
    const int64_t counts = repeats ? (repeats->view.empty() ? 1 : repeats->view[0]) : 1;
    if (op == F::Op::kRepeatInterleave) {
      made->output_size = RoleInt(call, family, F::Role::kOutputSize, 0);
      const int64_t elements = !self ? counts : made->has_dim ? (rank == 0 ? 1 : shape[made->dim])
                                                        : std::accumulate(shape.begin(), shape.end(), int64_t{1},
                                                                          std::multiplies<int64_t>());
      if (self && counts != 1 && counts != elements) {
        return reject(F::Role::kRepeats, "holds " + std::to_string(counts) + " counts, neither 1 nor the " +
                                             std::to_string(elements) + " elements it repeats");
      }
      // Host counts (aclnnRepeatInterleaveInt, ...IntWithDim) fix the extent now: their pages state
      // "outputSize必须等于self的元素个数 * repeats的值" and CANN refuses another in phase 1, as phase 2
      // (Counts) would. Counts on the device are phase 2's to sum.
      int64_t repeated = 0;
      if (!repeats && (__builtin_mul_overflow(elements, made->repeat_count, &repeated) || made->output_size != repeated)) {
        return reject(F::Role::kOutputSize, std::to_string(made->output_size) + " is not the " + std::to_string(elements) +
                                                " elements repeated " + std::to_string(made->repeat_count) + " times");
      }
      if (made->has_dim && rank > 0) shape[made->dim] = made->output_size;
      else shape = Dims{made->output_size};
    } else {
      // The gradient's counts: one per slice of out along dim (one for all of them).
      if (!made->has_dim) return Decline(call, work, "without an axis");
      if (out->view.size() != shape.size() || rank == 0) {
        return reject(F::Role::kOut, "rank " + std::to_string(out->view.size()) + " is not the gradient's " +
                                         std::to_string(rank));
      }
      const int64_t length = out->view[made->dim];
      if (counts != 1 && counts != length) {
        return reject(F::Role::kRepeats, "holds " + std::to_string(counts) + " counts for " + std::to_string(length) +
                                             " slices of out along the axis");
      }
      shape[made->dim] = length;
    }
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "the repeated shape", kOut)) return s;
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  if (!made->has_dim) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{}, "one value", kOut, true)) return s;
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  const int64_t length = rank == 0 ? 1 : shape[made->dim];
  if (op == F::Op::kKthvalue) {
    made->k = RoleInt(call, family, F::Role::kK, 1);
    // The page's range is [0, size(dim)]; PyTorch refuses k = 0 and nothing says what it selects.
    if (made->k == 0) return Decline(call, work, "for k = 0 (the page admits it; what it selects is not documented)");
    if (made->k < 1 || made->k > length) {
      return reject(F::Role::kK, "k " + std::to_string(made->k) + " is outside [0, " + std::to_string(length) +
                                     "], the extent of the dimension");
    }
  } else if (length == 0) {
    return reject(F::Role::kSelf, "a median along an empty dimension has no value");
  }
  // The bindings' "reduce" rule along the one dimension (aclnn_bindgen/reduce_shape.h); an output
  // may be given in the other form too, the dimension kept or dropped whatever keepdim says
  // (gen.conventions, convention 4: CANN copies the result into it; RowOrder reads both).
  Dims other_form = shape;
  if (rank > 0) {
    const bool keepdim = RoleBool(call, family, F::Role::kKeepdim, false);
    other_form = aclnn_bindgen::ReducedShape(shape, uint64_t{1} << made->dim, !keepdim);
    shape = aclnn_bindgen::ReducedShape(shape, uint64_t{1} << made->dim, keepdim);
  }
  auto keep = [&](int role, const TensorDesc& t, int slot) {
    return made->KeepOutput(call, family, role, t, t.view == other_form ? other_form : shape, "the reduced shape", slot);
  };
  if (aclnnStatus s = keep(F::Role::kOut, *out, kOut)) return s;
  if (const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices)) {
    if (aclnnStatus s = keep(F::Role::kIndices, *indices, kIndices)) return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
