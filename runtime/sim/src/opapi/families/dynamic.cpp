// The dynamic family: outputs whose extent the data decides (masked_select, nonzero and its
// transposed form, unique, unique_consecutive, unique_dim), and equal.
//
// CANN's contract for these (op-plugin's MaskedSelect, Nonzero, Unique...): the caller allocates
// an output that holds the result, runs the API, synchronises and reads the real extent with
// aclGetViewShape on the output's aclTensor, which the kernel has set. So the kernels here write
// their results contiguously from the output's first element and set its view shape
// (SetTensorView) before the stream reports the work done; the output must therefore be
// contiguous (the pages: non-contiguous outputs unsupported). Phase 1 cannot know the extent (the
// data is on the device), and CANN does not ask for the largest one there: op-plugin allocates
// the largest, but the pages' examples, which their authors ran, pass the result's own shape
// (aclnnNonzeroV2's [2, 7] of 7 nonzeros, aclnnUniqueDim's [3, 2]), or its element count in
// another rank (aclnnUniqueConsecutive's [8] for dim 0 of a [4, 2] input). What an output must
// do is hold the result's elements: one that holds fewer is a fault of the kernel (the device's
// would write past its end), reported when the stream runs it, never a partial result.
//
// Elements are compared in the family's compute type (float for FLOAT16/BFLOAT16, which holds
// them exactly; int64 for the integers and BOOL) and moved bit for bit. Unique sorts ascending
// whatever `sorted` says (the order of an unsorted unique is unspecified; PyTorch's CPU kernel and
// op-plugin, which forces sorted, give the sorted one); a NaN equals nothing, not even another NaN,
// so each NaN is its own value, last, as PyTorch's CPU unique gives them. An inverse or a count
// output that is passed with a fitting shape is written whether or not its flag asks for it (the
// pages: its content is meaningful only then), so that it never holds stale memory.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using D = DynamicFamily;

enum Slot { kSelf, kSecond, kOut, kInverse, kCounts, kSlots };

// unique_consecutive's dim that means "the flattened input" (op-plugin's NoneN).
constexpr int64_t kNoDim = 1000;

bool IsSorting(int op) { return op == D::Op::kUnique || op == D::Op::kUniqueDim; }

class DynamicWork final : public FamilyWork {
 public:
  DynamicWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  bool complex_keys = false;  // unique_consecutive of COMPLEX64/COMPLEX128
  int64_t dim = -1;  // unique_consecutive, unique_dim: the dimension whose slices are compared; -1: elements
  Dims shape;        // masked_select: the broadcast shape
  bool counts_wanted = false;  // the counts output is asked for (its flag, or unique_dim's always)
  const aclTensor* out_handle = nullptr;
  const aclTensor* counts_handle = nullptr;

 private:
  aclnnStatus Compute() override {
    switch (op_) {
      case D::Op::kMaskedSelect: return MaskedSelect();
      case D::Op::kNonzero: case D::Op::kNonzeroT: return Nonzero();
      case D::Op::kEqual: return Equal();
      default: return Unique();
    }
  }

  void SetView(const aclTensor* handle, const Dims& view) const {
    if (handle) SetTensorView(handle, view);
  }

  // Whether `t` holds the `needed` elements of a result; else the fault, naming both counts.
  aclnnStatus Holds(const TensorRef& t, int64_t needed) const {
    if (t.numel() >= needed) return ACLNN_SUCCESS;
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + t.name + " holds " + std::to_string(t.numel()) +
                                     " elements, the result has " + std::to_string(needed) +
                                     " (the device's kernel writes past its end: allocate the largest result)");
  }

  aclnnStatus MaskedSelect() {
    const TensorRef& out = tensor(kOut);
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const int64_t* mask = static_cast<const int64_t*>(
        ContiguousAs(BroadcastTo(tensor(kSecond), shape), ComputeType::kInt64, 0));
    const size_t size = DTypeSize(out.dtype);
    char* values = static_cast<char*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(n, 1)) * size));
    CopyElements(BroadcastTo(tensor(kSelf), shape), DenseRef(values, out.dtype, shape));
    int64_t selected = 0;
    for (int64_t i = 0; i < n; ++i) selected += mask[i] != 0;
    if (aclnnStatus s = Holds(out, selected)) return s;
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (mask[i]) std::memmove(out.first + static_cast<size_t>(k++) * size, values + static_cast<size_t>(i) * size, size);
    }
    SetView(out_handle, Dims{k});
    return ACLNN_SUCCESS;
  }

  aclnnStatus Nonzero() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel(), rank = self.rank();
    std::vector<int64_t> found;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
      for (int64_t i = 0; i < n; ++i) {
        if (x[i] != T{}) found.push_back(i);  // NaN is nonzero, -0.0 zero, as PyTorch's
      }
    });
    const int64_t k = static_cast<int64_t>(found.size());
    if (aclnnStatus s = Holds(tensor(kOut), k * rank)) return s;
    const bool transposed = op_ == D::Op::kNonzeroT;
    std::vector<int64_t> positions(static_cast<size_t>(std::max<int64_t>(k * rank, 1)));
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = found[static_cast<size_t>(j)];
      for (int64_t d = rank; d-- > 0;) {
        positions[static_cast<size_t>(transposed ? d * k + j : j * rank + d)] = i % self.shape[d];
        i /= self.shape[d];
      }
    }
    const Dims view = transposed ? Dims{rank, k} : Dims{k, rank};
    CopyElements(DenseRef(positions.data(), ACL_INT64, view), DenseRef(tensor(kOut).first, tensor(kOut).dtype, view));
    SetView(out_handle, view);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Equal() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& other = tensor(kSecond);
    bool same = self.shape == other.shape;
    const int64_t n = self.numel();
    if (same && n > 0) {
      // Both in double when either is floating (every value of the pages' dtypes but the 64-bit
      // integers above 2^53 is exact there); else both in int64.
      ComputeType a, b;
      FamilyComputeType(self.dtype, true, &a);
      FamilyComputeType(other.dtype, true, &b);
      const ComputeType common = a == ComputeType::kInt64 && b == ComputeType::kInt64 ? ComputeType::kInt64 : ComputeType::kFloat64;
      WithFamilyType(common, [&](auto zero) {
        using T = decltype(zero);
        const T* x = static_cast<const T*>(ContiguousAs(self, common, 0));
        const T* y = static_cast<const T*>(ContiguousAs(other, common, 1));
        for (int64_t i = 0; i < n && same; ++i) same = x[i] == y[i];  // NaN equals nothing
      });
    }
    const bool value = same;
    CopyElements(DenseRef(const_cast<bool*>(&value), ACL_BOOL, Dims{1}), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  // Elements (dim < 0) or slices along dim, as rows of `width` keys: grouped into distinct
  // values (sorted, or consecutive runs), then the values, the inverse and the counts written.
  aclnnStatus Unique() {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    TensorRef moved = self;
    int64_t order[16];
    if (dim >= 0) {
      order[0] = dim;
      for (int64_t d = 0, at = 1; d < rank; ++d) {
        if (d != dim) order[at++] = d;
      }
      moved = self.Permuted(order);
    }
    const int64_t total = self.numel();
    const int64_t rows = dim >= 0 ? self.shape[dim] : total;
    const int64_t width = rows == 0 ? 0 : total / rows;
    std::vector<int64_t> group(static_cast<size_t>(rows));   // row -> its distinct value's index
    std::vector<int64_t> first;                              // distinct value -> a row holding it
    std::vector<int64_t> counts;
    // A complex value is its two parts, compared as two doubles (unique_consecutive only: no order).
    const ComputeType compared = complex_keys ? ComputeType::kFloat64 : type;
    const int64_t keys_per_row = complex_keys ? 2 * width : width;
    WithFamilyType(compared, [&](auto zero) {
      using T = decltype(zero);
      const T* keys = static_cast<const T*>(ContiguousAs(moved, complex_keys ? ComputeType::kComplex128 : type, 0));
      auto row = [&](int64_t r) { return keys + r * keys_per_row; };
      auto equal = [&](int64_t a, int64_t b) {
        for (int64_t j = 0; j < keys_per_row; ++j) {
          if (!(row(a)[j] == row(b)[j])) return false;  // NaN equals nothing
        }
        return true;
      };
      auto below = [&](int64_t a, int64_t b) {  // lexicographic, NaN above every number
        for (int64_t j = 0; j < width; ++j) {
          const T x = row(a)[j], y = row(b)[j];
          if (x == y) continue;
          if (x != x) return false;
          if (y != y) return true;
          return x < y;
        }
        return false;
      };
      std::vector<int64_t> sequence(static_cast<size_t>(rows));
      std::iota(sequence.begin(), sequence.end(), int64_t{0});
      if (IsSorting(op_)) std::stable_sort(sequence.begin(), sequence.end(), below);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t r = sequence[static_cast<size_t>(i)];
        if (i == 0 || !equal(first.back(), r)) {
          first.push_back(r);
          counts.push_back(0);
        }
        group[static_cast<size_t>(r)] = static_cast<int64_t>(first.size()) - 1;
        ++counts.back();
      }
    });
    const int64_t k = static_cast<int64_t>(first.size());
    // The values: the chosen rows of the (permuted) input, into the output's first elements.
    const TensorRef& out = tensor(kOut);
    if (aclnnStatus s = Holds(out, k * width)) return s;
    const TensorRef& count_out = tensor(kCounts);
    if (count_out.dtype != ACL_DT_UNDEFINED && counts_wanted) {
      if (aclnnStatus s = Holds(count_out, k)) return s;
    }
    const size_t size = DTypeSize(out.dtype);
    Dims moved_shape = moved.shape;
    if (dim >= 0) moved_shape[0] = k;
    else moved_shape = Dims{k};
    // The input's elements in its own dtype, rows in the compared order; the chosen rows copied.
    char* dense = static_cast<char*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(total, 1)) * size));
    CopyElements(moved, DenseRef(dense, out.dtype, moved.shape));
    char* values = static_cast<char*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(k * width, 1)) * size));
    const size_t row_bytes = static_cast<size_t>(width) * size;
    for (int64_t g = 0; g < k; ++g) {
      std::memcpy(values + static_cast<size_t>(g) * row_bytes, dense + static_cast<size_t>(first[static_cast<size_t>(g)]) * row_bytes, row_bytes);
    }
    Dims view = moved_shape;
    if (dim >= 0) {
      view = self.shape;
      view[dim] = k;
      int64_t inverse_order[16];  // the output's dense layout, seen with dim first
      for (int64_t d = 0; d < rank; ++d) inverse_order[d] = order[d];
      CopyElements(DenseRef(values, out.dtype, moved_shape), DenseRef(out.first, out.dtype, view).Permuted(inverse_order));
    } else {
      CopyElements(DenseRef(values, out.dtype, view), DenseRef(out.first, out.dtype, view));
    }
    SetView(out_handle, view);
    const TensorRef& inverse = tensor(kInverse);
    if (inverse.dtype != ACL_DT_UNDEFINED && inverse.numel() == rows) {
      CopyElements(DenseRef(group.data(), ACL_INT64, inverse.shape), inverse);
    }
    if (count_out.dtype != ACL_DT_UNDEFINED && count_out.numel() >= k) {
      CopyElements(DenseRef(counts.data(), ACL_INT64, Dims{k}), DenseRef(count_out.first, count_out.dtype, Dims{k}));
      SetView(counts_handle, Dims{k});
    }
    return ACLNN_SUCCESS;
  }

  int op_;
};

aclnnStatus CheckExact(const Call& call, const FamilySpec& family, int role, const TensorDesc& t, const Dims& shape,
                       const char* rule) {
  if (t.view == shape) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role, "shape " + DimsText(t.view) + " is not " + DimsText(shape) + " (" + rule + ")");
}

bool Dense(const TensorDesc& t) {
  if (t.numel() == 0) return true;  // no element to place (an empty result's out: [0, 2], any strides)
  int64_t expected = 1;
  for (size_t d = t.view.size(); d-- > 0;) {
    if (t.view[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.view[d];
  }
  return true;
}

const aclTensor* Handle(const Call& call, const FamilySpec& family, int role) {
  return family.has(role) ? static_cast<const aclTensor*>(call.args[family.role(role)].pointer) : nullptr;
}

}  // namespace

aclnnStatus PlanDynamic(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, D::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, D::Role::kOut);
  if (!self || !out) return Decline(call, work, "without its input or output");
  const int64_t rank = static_cast<int64_t>(self->view.size());
  if (rank > 16) return Decline(call, work, "for more than 16 dimensions");
  std::unique_ptr<DynamicWork> made(new DynamicWork(call.spec.name, op));
  DynamicWork& w = *made;
  w.complex_keys = op == D::Op::kUniqueConsecutive && (self->dtype == ACL_COMPLEX64 || self->dtype == ACL_COMPLEX128);
  if (w.complex_keys) w.type = ComputeType::kComplex128;
  else if (!FamilyComputeType(self->dtype, true, &w.type) || !CopyConvertible(self->dtype, self->dtype)) {
    return DeclineDtype(call, work, self->dtype);
  }
  if (IsSorting(op) && self->dtype == ACL_UINT64) {
    return Decline(call, work, "for dtype UINT64 (its order above 2^63 is not modelled)");
  }
  const int64_t n = self->numel();
  const char* out_name = RoleName(call, family, D::Role::kOut);
  if (op != D::Op::kEqual && !Dense(*out)) {
    return RejectInvalid(call, family, D::Role::kOut, "must be contiguous: the kernel writes its result from the first "
                                                "element and sets the view shape (the page: non-contiguous unsupported)");
  }
  const TensorDesc* inverse = RoleTensor(call, family, D::Role::kInverse);
  const TensorDesc* counts = RoleTensor(call, family, D::Role::kCounts);
  const bool want_inverse = RoleBool(call, family, D::Role::kReturnInverse, false);
  const bool want_counts = RoleBool(call, family, D::Role::kReturnCounts, false);
  switch (op) {
    case D::Op::kMaskedSelect: {
      const TensorDesc* mask = RoleTensor(call, family, D::Role::kMask);
      if (!mask) return Decline(call, work, "without its mask");
      if (!BroadcastShape(self->view, mask->view, &w.shape)) {
        return RejectInvalid(call, family, D::Role::kMask, "shape " + DimsText(mask->view) + " does not broadcast with " +
                                                         RoleName(call, family, D::Role::kSelf) + "'s " + DimsText(self->view));
      }
      if (out->dtype != self->dtype) {
        return RejectInvalid(call, family, D::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " differs from " +
                                                        RoleName(call, family, D::Role::kSelf) + "'s " + DTypeName(self->dtype));
      }
      w.tensor(kSecond).Set(RoleName(call, family, D::Role::kMask), *mask);
      break;
    }
    case D::Op::kNonzero: case D::Op::kNonzeroT:
      break;
    case D::Op::kEqual: {
      const TensorDesc* other = RoleTensor(call, family, D::Role::kOther);
      if (!other) return Decline(call, work, "without its other input");
      ComputeType unused;
      if (!FamilyComputeType(other->dtype, true, &unused)) return DeclineDtype(call, work, other->dtype);
      if (aclnnStatus s = CheckExact(call, family, D::Role::kOut, *out, Dims{1}, "the page: [1]")) return s;
      w.tensor(kSecond).Set(RoleName(call, family, D::Role::kOther), *other);
      break;
    }
    default: {  // the uniques
      int64_t dim = -1;
      if (op != D::Op::kUnique) {
        const int64_t given = RoleInt(call, family, D::Role::kDim, kNoDim);
        const bool flattened = op == D::Op::kUniqueConsecutive && given == kNoDim;
        if (!flattened && !WrapDim(given, rank, &dim)) {
          return RejectInvalid(call, family, D::Role::kDim, std::to_string(given) + " is outside [" + std::to_string(-rank) + ", " +
                                                          std::to_string(rank) + ")" +
                                                          (op == D::Op::kUniqueConsecutive ? " and is not 1000 (flattened)" : ""));
        }
        if (flattened || rank == 0) dim = -1;
      }
      w.dim = dim;
      if (dim >= 0) {
        for (int64_t d = 0; d < rank; ++d) {
          if (d != dim && self->view[d] == 0) {
            return RejectInvalid(call, family, D::Role::kSelf, "dimension " + std::to_string(d) +
                                                             " is empty: the slices along dim have no element to compare");
          }
        }
      }
      if (out->dtype != self->dtype) {
        return RejectInvalid(call, family, D::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " differs from " +
                                                        RoleName(call, family, D::Role::kSelf) + "'s " + DTypeName(self->dtype));
      }
      if (inverse && want_inverse) {
        const Dims expected = dim >= 0 ? Dims{self->view[dim]} : self->view;
        if (aclnnStatus s = CheckExact(call, family, D::Role::kInverse, *inverse, expected, "one position per compared element or slice")) {
          return s;
        }
      }
      // Unique2's page: countsOut of valueOut's shape when returnCounts (op-plugin allocates both
      // at the largest result); the others' pages say nothing of it.
      if (counts && want_counts && op == D::Op::kUnique) {
        if (aclnnStatus s = CheckExact(call, family, D::Role::kCounts, *counts, out->view, "valueOut's shape")) return s;
      }
      w.counts_wanted = want_counts || (counts && !family.has(D::Role::kReturnCounts));
      if (counts && !Dense(*counts)) {
        return RejectInvalid(call, family, D::Role::kCounts, "must be contiguous: the kernel sets its view shape");
      }
      if (inverse && inverse->numel() == (dim >= 0 ? self->view[dim] : n)) {
        w.tensor(kInverse).Set(RoleName(call, family, D::Role::kInverse), *inverse);
      }
      if (counts) {
        w.tensor(kCounts).Set(RoleName(call, family, D::Role::kCounts), *counts);
        w.counts_handle = Handle(call, family, D::Role::kCounts);
      }
      break;
    }
  }
  w.tensor(kSelf).Set(RoleName(call, family, D::Role::kSelf), *self);
  w.tensor(kOut).Set(out_name, *out);
  w.out_handle = Handle(call, family, D::Role::kOut);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
