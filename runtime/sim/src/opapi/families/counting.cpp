// The counting family, as aten's CPU kernels count:
//   trace         the sum of a matrix's diagonal, accumulated in double (int64 for integers)
//   histc         counts of self's values in `bins` equal parts of [min, max]: a value's bin is
//                 (x - min) * bins / (max - min) truncated, computed in self's compute type, max
//                 itself in the last bin, values outside (and NaN) not counted; min == max takes
//                 self's own minimum and maximum (one apart when these are equal too)
//   bucketize     for each value of self, the number of boundaries below it (at or below: right)
//   searchsorted  the same within the innermost row of a sorted sequence (the row of self's
//                 leading indices when the sequence has more than one dimension), read in a
//                 sorter's order when one is given; the binary search is aten's step for step, so
//                 that an unsorted sequence (the pages leave it to the caller) gives PyTorch's answer
//   bincount      the occurrences of each value of a 1-D non-negative self (its weight summed, in
//                 double, when weights are given); out's length must be max(self) + 1 or minlength,
//                 whichever is larger (values on the device: a negative value or another length
//                 fails in phase 2 by name)
//   isin          whether one scalar equals any value of self (the test elements), negated by invert;
//                 compared in int64 when both are integral, else in double (assume_unique only
//                 tunes torch's algorithm)
// Values are compared in int64 when both operands are integral, else in double. Phase 1 (here)
// checks what the page's generic relations cannot: min <= max, a sorter shaped as the sequence,
// leading dimensions that match.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = CountingFamily;

enum Slot { kSelf, kSequence, kSorter, kOut, kWeights, kSlots };

class CountingWork final : public FamilyWork {
 public:
  CountingWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  ComputeType compare = ComputeType::kFloat64;  // searches: how values are compared
  bool right = false;
  bool scalar_self = false;  // aclnnSearchSorteds: self is one number
  double self_value = 0;
  int64_t bins = 0;
  double min = 0, max = 0;
  int64_t minlength = 0;
  bool invert = false;

 private:
  aclnnStatus Trace() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = std::min(self.shape[0], self.shape[1]);
    TensorRef diagonal = self;
    diagonal.shape = {n};
    diagonal.strides = {self.strides[0] + self.strides[1]};
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* x = static_cast<const T*>(ContiguousAs(diagonal, type, 0));
      using Acc = std::conditional_t<std::is_integral<T>::value, int64_t, double>;
      Acc sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += static_cast<Acc>(x[i]);
      const T result = static_cast<T>(sum);
      ScatterFrom(&result, type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }

  aclnnStatus Histc() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel();
    double* counts = static_cast<double*>(Scratch(1, static_cast<size_t>(bins) * sizeof(double)));
    std::fill_n(counts, bins, 0.0);
    WithFamilyType(type, [&](auto zero) {
      using T = std::conditional_t<std::is_integral<decltype(zero)>::value, double, decltype(zero)>;
      const ComputeType as = std::is_same<T, double>::value ? ComputeType::kFloat64 : ComputeType::kFloat32;
      const T* x = static_cast<const T*>(ContiguousAs(self, as, 0));
      T lo = static_cast<T>(min), hi = static_cast<T>(max);
      if (lo == hi && n > 0) {
        lo = hi = x[0];
        for (int64_t i = 0; i < n; ++i) {
          if (x[i] == x[i]) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
        }
      }
      if (lo == hi) lo -= T(1), hi += T(1);
      for (int64_t i = 0; i < n; ++i) {
        const T v = x[i];
        if (!(v >= lo && v <= hi)) continue;
        int64_t pos = static_cast<int64_t>((v - lo) * static_cast<T>(bins) / (hi - lo));
        if (pos >= bins) pos = bins - 1;
        counts[pos] += 1;
      }
    });
    ScatterFrom(counts, ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Bincount() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel(), length = tensor(kOut).numel();
    const int64_t* x = static_cast<const int64_t*>(ContiguousAs(self, ComputeType::kInt64, 0));
    const bool weighted = tensor(kWeights).dtype != ACL_DT_UNDEFINED;
    const double* w = weighted ? static_cast<const double*>(ContiguousAs(tensor(kWeights), ComputeType::kFloat64, 1)) : nullptr;
    int64_t largest = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] < 0) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": self: element " + std::to_string(i) + " is " +
                                         std::to_string(x[i]) + ", bincount counts non-negative integers only");
      }
      largest = std::max(largest, x[i]);
    }
    if (length != std::max(largest + 1, minlength)) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": out has " + std::to_string(length) +
                                       " elements, not max(max(self) + 1, minlength) = " +
                                       std::to_string(std::max(largest + 1, minlength)));
    }
    double* counts = static_cast<double*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(length, 1)) * sizeof(double)));
    std::fill_n(counts, length, 0.0);
    for (int64_t i = 0; i < n; ++i) counts[x[i]] += w ? w[i] : 1.0;
    ScatterFrom(counts, ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename V>
  aclnnStatus IsIn() {
    const TensorRef& self = tensor(kSelf);
    const V* x = static_cast<const V*>(ContiguousAs(self, compare, 0));
    const V element = static_cast<V>(self_value);
    const bool found = std::find(x, x + self.numel(), element) != x + self.numel();
    const int64_t result = found != invert;
    ScatterFrom(&result, ComputeType::kInt64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename V>
  aclnnStatus Search() {
    const TensorRef& sequence = tensor(kSequence);
    const TensorRef& out = tensor(kOut);
    const int64_t width = sequence.rank() == 0 ? 1 : sequence.shape[sequence.rank() - 1];
    const int64_t rows = width == 0 ? 0 : sequence.numel() / width;
    const int64_t count = out.numel();
    const V* seq = static_cast<const V*>(ContiguousAs(sequence, compare, 0));
    const int64_t* order = tensor(kSorter).dtype != ACL_DT_UNDEFINED
                               ? static_cast<const int64_t*>(ContiguousAs(tensor(kSorter), ComputeType::kInt64, 1))
                               : nullptr;
    if (order) {
      for (int64_t i = 0; i < sequence.numel(); ++i) {
        if (order[i] < 0 || order[i] >= width) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": sorter: element " + std::to_string(i) + " is " +
                                           std::to_string(order[i]) + ", outside [0, " + std::to_string(width) +
                                           ") (the device's kernel faults on an index out of range)");
        }
      }
    }
    const V* values = nullptr;
    V one = static_cast<V>(self_value);
    if (scalar_self) {
      values = &one;
    } else {
      values = static_cast<const V*>(ContiguousAs(tensor(kSelf), compare, 2));
    }
    int64_t* result = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(int64_t)));
    // Values per row of the sequence: self's innermost row when the sequence has several rows.
    const int64_t per_row = rows > 1 ? count / rows : count;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t row = rows > 1 ? i / per_row : 0;
      const V* base = seq + row * width;
      const int64_t* by = order ? order + row * width : nullptr;
      const V v = values[i];
      int64_t lo = 0, hi = width;
      while (lo < hi) {  // the first position whose value is >= v (> v: right)
        const int64_t mid = lo + (hi - lo) / 2;
        const V s = by ? base[by[mid]] : base[mid];
        if (right ? !(s > v) : !(s >= v)) lo = mid + 1;  // aten's cus_upper_bound / cus_lower_bound
        else hi = mid;
      }
      result[i] = lo;
    }
    ScatterFrom(result, ComputeType::kInt64, out);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Compute() override {
    if (op_ == F::Op::kTrace) return Trace();
    if (op_ == F::Op::kHistc) return Histc();
    if (op_ == F::Op::kBincount) return Bincount();
    if (op_ == F::Op::kIsin) return compare == ComputeType::kInt64 ? IsIn<int64_t>() : IsIn<double>();
    return compare == ComputeType::kInt64 ? Search<int64_t>() : Search<double>();
  }

  int op_;
};

}  // namespace

aclnnStatus PlanCounting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const bool scalar_self = self == nullptr && op == F::Op::kSearchsorted;
  if (!out || (!self && !scalar_self)) return Decline(call, work, "without its tensors");
  if ((self && self->view.size() > 16) || out->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  CountingWork* made = new CountingWork(call.spec.name, op);
  std::unique_ptr<CountingWork> owned(made);
  const ParamRejecter reject(call, family);
  auto keep = [&](const Dims& shape, const char* what) {
    return made->KeepOutput(call, family, F::Role::kOut, *out, shape, what, kOut);
  };
  if (self) made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  ComputeType type;
  if (self && !FamilyComputeType(self->dtype, true, &type)) {
    return DeclineDtype(call, work, self->dtype);
  }
  if (op == F::Op::kTrace) {
    if (self->view.size() != 2) return reject(F::Role::kSelf, "trace takes a matrix, got rank " + std::to_string(self->view.size()));
    made->type = type;
    if (aclnnStatus s = keep(Dims{}, "a 0-d tensor")) return s;
  } else if (op == F::Op::kBincount) {
    if (self->view.size() != 1 || !IsIntegralType(self->dtype) || self->dtype == ACL_BOOL) {
      return reject(F::Role::kSelf, "bincount counts a 1-D tensor of integers, got " + DimsText(self->view) + " " +
                                        DTypeName(self->dtype));
    }
    made->minlength = RoleInt(call, family, F::Role::kMinlength, 0);
    if (made->minlength < 0) return reject(F::Role::kMinlength, "must not be negative, got " + std::to_string(made->minlength));
    if (const TensorDesc* weights = RoleTensor(call, family, F::Role::kWeights)) {
      if (weights->view != self->view) {
        return reject(F::Role::kWeights, "shape " + DimsText(weights->view) + " is not self's " + DimsText(self->view));
      }
      made->tensor(kWeights).Set(RoleName(call, family, F::Role::kWeights), *weights);
    }
    if (out->view.size() != 1) return reject(F::Role::kOut, "bincount's out is 1-D, got " + DimsText(out->view));
    // The page: "out的长度为self的最大值加1和minlength二者取最大", so never below minlength, and minlength
    // itself for an empty self, which phase 1 knows; self's largest value + 1 is the data's (phase 2).
    const bool empty_self = std::find(self->view.begin(), self->view.end(), 0) != self->view.end();
    if (out->view[0] < made->minlength || (empty_self && out->view[0] != made->minlength)) {
      return reject(F::Role::kOut, "length " + std::to_string(out->view[0]) + (empty_self ? " is not" : " is below") +
                                       " minlength " + std::to_string(made->minlength) +
                                       (empty_self ? " (self is empty)" : ""));
    }
    if (aclnnStatus s = keep(out->view, "its own 1-D shape")) return s;
  } else if (op == F::Op::kIsin) {
    made->self_value = RoleNumber(call, family, F::Role::kElement, -1, 0);
    made->invert = RoleBool(call, family, F::Role::kInvert, false);
    const Call::Param* element = RoleParam(call, family, F::Role::kElement);
    if (!element) return Decline(call, work, "without an element");
    const bool integral_element = made->self_value == std::trunc(made->self_value) && std::fabs(made->self_value) < 9.0e15;
    made->compare = IsIntegralType(self->dtype) && integral_element ? ComputeType::kInt64 : ComputeType::kFloat64;
    // torch.isin compares in the promoted type: a floating self's own (the element rounded to it),
    // FLOAT for an integral self and a fractional element.
    const double v = made->self_value;
    switch (self->dtype) {
      case ACL_FLOAT16:
      case ACL_BF16: made->self_value = RoundedToFloating16(self->dtype, static_cast<float>(v)); break;
      case ACL_DOUBLE: break;
      default:
        if (made->compare == ComputeType::kFloat64) made->self_value = static_cast<float>(v);
    }
    if (aclnnStatus s = keep(Dims{}, "one value")) return s;
  } else if (op == F::Op::kHistc) {
    made->type = type;
    made->bins = RoleInt(call, family, F::Role::kBins, 0);
    made->min = RoleNumber(call, family, F::Role::kMin, -1, 0);
    made->max = RoleNumber(call, family, F::Role::kMax, -1, 0);
    if (made->bins <= 0) return reject(F::Role::kBins, "bins must be positive, got " + std::to_string(made->bins));
    // The page: out's dtype converts with self's ("互转换关系"); counts of a floating self into an
    // integral out do not.
    if (!IsIntegralType(self->dtype) && IsIntegralType(out->dtype)) {
      return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " does not convert with self's " +
                                       DTypeName(self->dtype));
    }
    if (!(made->min <= made->max) || !std::isfinite(made->min) || !std::isfinite(made->max)) {
      return reject(F::Role::kMax, "min " + std::to_string(made->min) + " and max " + std::to_string(made->max) +
                                       " are not a finite range (min must not exceed max)");
    }
    if (aclnnStatus s = keep(Dims{made->bins}, "[bins]")) return s;
  } else {
    const TensorDesc* sequence = RoleTensor(call, family, F::Role::kSequence);
    if (!sequence) return Decline(call, work, "without a sorted sequence");
    made->right = RoleBool(call, family, F::Role::kRight, false);
    made->tensor(kSequence).Set(RoleName(call, family, F::Role::kSequence), *sequence);
    const bool integral = IsIntegralType(sequence->dtype) && (scalar_self || IsIntegralType(self->dtype));
    made->compare = integral ? ComputeType::kInt64 : ComputeType::kFloat64;
    if (scalar_self) {
      made->scalar_self = true;
      made->self_value = RoleNumber(call, family, F::Role::kSelf, -1, 0);
    }
    const Dims& seq = sequence->view;
    if (seq.empty()) return reject(F::Role::kSequence, "the sorted sequence must have a dimension");
    if (seq.size() > 1) {
      // Leading dimensions match self's, row for row (torch.searchsorted).
      const bool matches = self && self->view.size() == seq.size() &&
                           std::equal(seq.begin(), seq.end() - 1, self->view.begin());
      if (!matches) {
        return reject(F::Role::kSequence, "an N-d sorted sequence " + DimsText(seq) +
                                              " needs self with the same leading dimensions");
      }
    }
    if (const TensorDesc* sorter = RoleTensor(call, family, F::Role::kSorter)) {
      if (sorter->view != seq) {
        return reject(F::Role::kSorter, "shape " + DimsText(sorter->view) + " is not the sequence's " + DimsText(seq));
      }
      made->tensor(kSorter).Set(RoleName(call, family, F::Role::kSorter), *sorter);
    }
    const Dims shape = scalar_self ? (out->view.size() == 1 ? Dims{1} : Dims{}) : self->view;
    if (aclnnStatus s = keep(shape, scalar_self ? "one value" : "self's shape")) return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
