// The creation family: tensors made from numbers alone, as aten's CPU factories make them
// (aten/src/ATen/native/RangeFactories.cpp and cpu/RangeFactoriesKernel.cpp):
//   arange     start + i * step for i < ceil((end - start) / step)            (torch.arange)
//   range      start + i * step for i <= (end - start) / step, end included    (torch.range)
//   linspace   steps values from start to end, the second half counted back from end
//   logspace   base raised to linspace's values, each computed in double (aten's logspace_out)
//   eye        1 on the diagonal of an n x m matrix, 0 elsewhere
// Integral outputs take integral bounds (aten converts the scalars to the output's type first:
// arange(0.5, 4, 1.5) into INT64 counts from 0 by 1); floating ones compute in double, which
// aten's accumulation type for FLOAT is (linspace computes in the output's type, its results
// differing from double's by its rounding). The values are written to a contiguous
// buffer of the compute type, then scattered into out= (any strides, any dtype its page lists).
#include <cmath>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = CreationFamily;

enum Slot { kOut, kSlots };

class CreationWork final : public FamilyWork {
 public:
  CreationWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  double start = 0, end = 0, step = 1;
  double base = 10;    // logspace's
  int64_t count = 0;   // values along the sequence (arange, range, linspace, logspace)
  int64_t columns = 0;  // eye's m

 private:
  template <typename T>
  void Fill(T* y) const {
    const int64_t n = tensor(kOut).numel();
    if (op_ == F::Op::kEye) {
      for (int64_t i = 0; i < n; ++i) y[i] = T(i / columns == i % columns ? 1 : 0);
      return;
    }
    if (op_ == F::Op::kArange || op_ == F::Op::kRange) {
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(start + step * static_cast<double>(i));
      return;
    }
    // linspace: the first half from start, the second back from end, as aten's kernel;
    // one value is start (aten fills it so). logspace raises base to the same exponents.
    const double delta = count > 1 ? (end - start) / static_cast<double>(count - 1) : 0.0;
    const int64_t halfway = count > 1 ? count / 2 : count;
    for (int64_t i = 0; i < n; ++i) {
      const double v = i < halfway ? start + delta * static_cast<double>(i)
                                   : end - delta * static_cast<double>(count - i - 1);
      y[i] = static_cast<T>(op_ == F::Op::kLogspace ? std::pow(base, v) : v);
    }
  }

  aclnnStatus Compute() override {
    const int64_t n = tensor(kOut).numel();
    if (n == 0) return ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      T* y = static_cast<T*>(Scratch(0, static_cast<size_t>(n) * sizeof(T)));
      Fill(y);
      ScatterFrom(y, type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }

  int op_;
};

// The number of values of arange (end excluded) or range (end included); false when the bounds and
// the step make no sequence (a zero step, or a step away from end: the pages' 161002).
bool SequenceLength(int op, double start, double end, double step, bool integral, int64_t* count) {
  if (step == 0 || std::isnan(start) || std::isnan(end) || std::isnan(step)) return false;
  if ((step > 0 && start > end) || (step < 0 && start < end)) return false;
  const double span = (end - start) / step;
  if (!std::isfinite(span) || span > 9.0e15) return false;
  if (op == F::Op::kArange) {
    *count = static_cast<int64_t>(std::ceil(span));
  } else {
    // aten's range: the quotient truncated (integer division for integral outputs), plus one.
    *count = (integral ? static_cast<int64_t>(end - start) / static_cast<int64_t>(step) : static_cast<int64_t>(span)) + 1;
  }
  return true;
}

}  // namespace

aclnnStatus PlanCreation(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!out) return Decline(call, work, "without an output");
  ComputeType type;
  if (!FamilyComputeType(out->dtype, true, &type)) {
    return DeclineDtype(call, work, out->dtype);
  }
  const bool integral = type == ComputeType::kInt64;
  CreationWork* made = new CreationWork(call.spec.name, op);
  std::unique_ptr<CreationWork> owned(made);
  made->type = type;
  const ParamRejecter reject(call, family);
  // aten converts the bounds to an integral output's type (towards zero) before it counts.
  auto number = [&](int role, double fallback) {
    const double v = RoleNumber(call, family, role, -1, fallback);
    return integral && std::isfinite(v) ? std::trunc(v) : v;
  };
  Dims shape;
  if (op == F::Op::kEye) {
    const int64_t n = RoleInt(call, family, F::Role::kN, -1);
    const int64_t m = RoleInt(call, family, F::Role::kM, n);
    if (n < 0) return reject(F::Role::kN, "n must not be negative, got " + std::to_string(n));
    if (m < 0) return reject(F::Role::kM, "m must not be negative, got " + std::to_string(m));
    made->columns = m;
    shape = {n, m};
  } else if (op == F::Op::kArange || op == F::Op::kRange) {
    made->start = number(F::Role::kStart, 0);
    made->end = number(F::Role::kEnd, 0);
    made->step = number(F::Role::kStep, 1);
    if (!SequenceLength(op, made->start, made->end, made->step, integral, &made->count)) {
      return reject(F::Role::kStep, "start " + std::to_string(made->start) + ", end " + std::to_string(made->end) +
                                        " and step " + std::to_string(made->step) + " make no sequence");
    }
    shape = {made->count};
  } else {
    made->start = number(F::Role::kStart, 0);
    made->end = number(F::Role::kEnd, 0);
    made->count = RoleInt(call, family, F::Role::kSteps, -1);
    made->base = RoleNumber(call, family, F::Role::kBase, -1, 10);
    if (made->count < 0) return reject(F::Role::kSteps, "steps must not be negative, got " + std::to_string(made->count));
    // The page asks for out's number of elements ("out的元素个数与steps不一致"), whatever its
    // rank: its own shape, when that many.
    if (out->numel() != made->count) {
      return reject(F::Role::kOut, "has " + std::to_string(out->numel()) + " elements, steps is " +
                                       std::to_string(made->count));
    }
    shape = out->view;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "the sequence's shape", kOut)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
