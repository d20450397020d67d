// The select family: where (out = condition ? self : other, broadcast, each converted to out's
// dtype) and masked_fill (self = mask ? value : self, value a scalar or a one-element tensor).
// Elements move bit for bit (views.h) once converted to the output's dtype.
#include <cstring>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using S = SelectFamily;

enum SelectSlot { kCondition, kChosen, kOther, kResult, kSelectSlots };

// where: out = condition ? self : other (broadcast, each converted to out's dtype);
// masked_fill: self = mask ? value : self, value a scalar or a one-element tensor.
class SelectWork final : public FamilyWork {
 public:
  SelectWork(const char* api, int op) : FamilyWork(api, kSelectSlots), op_(op) {}

  bool value_tensor = false;
  double real = 0;
  int64_t integer = 0;
  bool integral = false;

 private:
  aclnnStatus Compute() override {
    const TensorRef& out = tensor(kResult);
    const Dims& shape = out.shape;
    const int64_t n = out.numel();
    if (n == 0) return ACLNN_SUCCESS;
    const int64_t* mask = static_cast<const int64_t*>(
        ContiguousAs(BroadcastTo(tensor(kCondition), shape), ComputeType::kInt64, 0));
    const size_t size = DTypeSize(out.dtype);
    if (op_ == S::Op::kMaskedFill) {
      alignas(16) unsigned char value[16];
      if (value_tensor) {
        TensorRef one = tensor(kOther);
        one.shape.clear(), one.strides.clear();
        CopyElements(one, DenseRef(value, out.dtype, Dims()));
      } else {
        ScalarBits(out.dtype, real, integer, integral, value);
      }
      ForEachElement(out, [&](int64_t i, char* at) {
        if (mask[i]) std::memcpy(at, value, size);
      });
      return ACLNN_SUCCESS;
    }
    // where: both branches converted to out's dtype in dense buffers, then chosen per element.
    char* chosen = static_cast<char*>(Scratch(1, static_cast<size_t>(n) * size));
    char* other = static_cast<char*>(Scratch(2, static_cast<size_t>(n) * size));
    CopyElements(BroadcastTo(tensor(kChosen), shape), DenseRef(chosen, out.dtype, shape));
    CopyElements(BroadcastTo(tensor(kOther), shape), DenseRef(other, out.dtype, shape));
    ForEachElement(out, [&](int64_t i, char* at) {
      std::memcpy(at, (mask[i] ? chosen : other) + static_cast<size_t>(i) * size, size);
    });
    return ACLNN_SUCCESS;
  }

  int op_;
};

bool Broadcasts(const Dims& from, const Dims& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  }
  return true;
}

}  // namespace

aclnnStatus PlanSelect(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* condition = RoleTensor(call, family, S::Role::kCondition);
  const TensorDesc* self = RoleTensor(call, family, S::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, S::Role::kOut);
  if (!condition || !self) return Decline(call, work, "without its condition or input");
  if (!out) out = self;
  std::unique_ptr<SelectWork> made(new SelectWork(call.spec.name, op));
  SelectWork& w = *made;
  if (!Moves(out->dtype) || !CopyConvertible(self->dtype, out->dtype)) {
    return DeclineDtype(call, work, self->dtype);
  }
  if (op == S::Op::kMaskedFill) {
    if (!Broadcasts(condition->view, self->view)) {
      return RejectInvalid(call, family, S::Role::kCondition,
                           "shape " + DimsText(condition->view) + " does not broadcast to " +
                               RoleName(call, family, S::Role::kSelf) + "'s shape " + DimsText(self->view));
    }
    if (const TensorDesc* value = RoleTensor(call, family, S::Role::kOther)) {
      if (value->numel() != 1) {
        return RejectInvalid(call, family, S::Role::kOther,
                             "has " + std::to_string(value->numel()) + " elements; a fill value has one");
      }
      if (!CopyConvertible(value->dtype, self->dtype)) return DeclineDtype(call, work, value->dtype);
      w.value_tensor = true;
      w.tensor(kOther).Set(RoleName(call, family, S::Role::kOther), *value);
    } else if (const Call::Param* value = RoleParam(call, family, S::Role::kOther)) {
      w.real = value->scalar_double;
      w.integer = value->scalar_int;
      w.integral = Integral(value->scalar.dtype);
    } else {
      return Decline(call, work, "without its value");
    }
  } else {
    const TensorDesc* other = RoleTensor(call, family, S::Role::kOther);
    if (!other) return Decline(call, work, "without its other input");
    Dims shape, joint;
    if (!BroadcastShape(condition->view, self->view, &joint) || !BroadcastShape(joint, other->view, &shape)) {
      return RejectInvalid(call, family, S::Role::kCondition,
                           "the shapes " + DimsText(condition->view) + ", " + DimsText(self->view) + " and " +
                               DimsText(other->view) + " do not broadcast");
    }
    if (out->view != shape) {
      return RejectInvalid(call, family, S::Role::kOut,
                           "shape " + DimsText(out->view) + " is not the broadcast shape " + DimsText(shape));
    }
    if (!CopyConvertible(other->dtype, out->dtype)) return DeclineDtype(call, work, other->dtype);
    w.tensor(kChosen).Set(RoleName(call, family, S::Role::kSelf), *self);
    w.tensor(kOther).Set(RoleName(call, family, S::Role::kOther), *other);
  }
  w.tensor(kCondition).Set(RoleName(call, family, S::Role::kCondition), *condition);
  w.tensor(kResult).Set(RoleName(call, family, S::Role::kOut), *out);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
