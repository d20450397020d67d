// The quant family's quant_scatter (aclnnInplaceQuantScatter/V2, torch_npu.npu_quant_scatter(_)): a
// KV cache's write of quantised rows. V2's page calls the op the fusion of Quantize and Scatter, V1
// plus roundMode, so both compute aclnnQuantize's q = round(updates / quantScales +
// quantZeroPoints), half to even ("rint", the one mode INT8 takes), saturated to INT8, the scales
// and zero points one per element of the last dimension (quantAxis); then batch i of updates goes
// to selfRef from position indices[i] along axis, in selfRef's batch i (1-D indices) or indices[i,
// 0] (2-D indices [B, 2], the position indices[i, 1]: V2's page; V1's op README and torch_npu's
// documentation of npu_quant_scatter). In float.
// The positions are device data: phase 2 faults naming the element that leaves selfRef (the page
// says the device does not check them, so its result would be undefined). FLOAT8/HIFLOAT8 selfRef
// (V2) is declined by name; V1's last dimensions of 32 bytes on its chips are its phase 1's.
#include <memory>
#include <string>
#include <utility>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = QuantFamily;

enum Slot { kSelf, kIndices, kUpdates, kScale, kZeroPoint, kSlots };

class QuantScatterWork final : public FamilyWork {
 public:
  explicit QuantScatterWork(const char* api) : FamilyWork(api, kSlots) {}

  bool has_zero_point = false;
  int64_t axis = 0;  // selfRef's and updates' dimension the positions run along (neither the first nor the last)

 private:
  aclnnStatus Compute() override {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndices);
    const TensorRef& updates = tensor(kUpdates);
    const bool pairs = index.rank() == 2;  // [B, 2]: (batch, position) per batch of updates
    const int64_t batches = updates.shape[0], span = updates.shape[axis], extent = self.shape[axis];
    const int64_t* given = IndexValues(index, 3);
    for (int64_t i = 0; i < batches; ++i) {
      const int64_t batch = pairs ? given[2 * i] : i, start = pairs ? given[2 * i + 1] : given[i];
      if (pairs && (batch < 0 || batch >= self.shape[0])) {
        return Fault(index, 2 * i, batch, "outside [0, " + std::to_string(self.shape[0]) + "), " + self.name + "'s batches");
      }
      if (start < 0 || start + span > extent) {
        return Fault(index, pairs ? 2 * i + 1 : i, start,
                     "writing " + std::to_string(span) + " from it leaves [0, " + std::to_string(extent) + ")");
      }
    }
    const int64_t n = updates.numel(), width = updates.shape.back();
    if (n == 0) return ACLNN_SUCCESS;
    const float* x = static_cast<const float*>(ContiguousAs(updates, ComputeType::kFloat32, 0));
    const float* scale = static_cast<const float*>(ContiguousAs(tensor(kScale), ComputeType::kFloat32, 1));
    const float* zero =
        has_zero_point ? static_cast<const float*>(ContiguousAs(tensor(kZeroPoint), ComputeType::kFloat32, 2)) : nullptr;
    int64_t* q = static_cast<int64_t*>(Scratch(4, static_cast<size_t>(n) * sizeof(int64_t)));
    const int64_t rows = n / width;
    ParallelFor(rows, [&](int64_t r) {
      for (int64_t j = 0; j < width; ++j) {
        const float v = x[r * width + j] / scale[j] + (zero ? zero[j] : 0.0f);
        q[r * width + j] = Saturate(std::nearbyint(v), -128, 127);
      }
    });
    const int64_t per_batch = n / batches;
    for (int64_t i = 0; i < batches; ++i) {
      const int64_t batch = pairs ? given[2 * i] : i, start = pairs ? given[2 * i + 1] : given[i];
      ScatterFrom(q + i * per_batch, ComputeType::kInt64, Narrow(SelectDim(self, 0, batch), axis - 1, start, span));
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus Fault(const TensorRef& index, int64_t element, int64_t value, const std::string& why) const {
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + index.name + ": element " + std::to_string(element) + " is " +
                                     std::to_string(value) + ": " + why +
                                     " (the page's constraint, which the device does not check)");
  }
};

}  // namespace

aclnnStatus PlanQuantScatter(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* self = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* index = RoleTensor(call, family, F::Role::kIndices);
  const TensorDesc* updates = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* zero = RoleTensor(call, family, F::Role::kOffset);
  if (!self || !index || !updates || !scale) return Decline(call, work, "without its tensors");
  if (self->dtype != ACL_INT8) {
    return Decline(call, work, std::string("for ") + RoleName(call, family, F::Role::kOut) + " of dtype " +
                                   DTypeName(self->dtype) + " (only INT8 is simulated)");
  }
  const ParamRejecter reject(call, family);
  if (family.has(F::Role::kRoundMode)) {
    const char* given = CallString(call, family.role(F::Role::kRoundMode));
    const std::string mode = given ? given : "";
    if (mode != "rint") return reject(F::Role::kRoundMode, "\"" + mode + "\" is not rint, which INT8 takes only");
  }
  const int64_t reduction = RoleInt(call, family, F::Role::kReduction, 1);
  if (reduction != 1) return reject(F::Role::kReduction, std::to_string(reduction) + " is not 1 (update)");
  const int64_t rank = static_cast<int64_t>(self->view.size());
  if (rank < 3 || rank > 8 || updates->view.size() != self->view.size()) {
    return reject(F::Role::kX, "shape " + DimsText(updates->view) + " and " + RoleName(call, family, F::Role::kOut) +
                                   "'s " + DimsText(self->view) + " are not of one rank in [3, 8]");
  }
  const int64_t given_axis = RoleInt(call, family, F::Role::kAxis, -2);
  int64_t axis = 0;
  if (!WrapDim(given_axis, rank, &axis) || axis == 0 || axis == rank - 1) {
    return reject(F::Role::kAxis, std::to_string(given_axis) + " is outside [-" + std::to_string(rank - 1) + ", -1) and [1, " +
                                      std::to_string(rank - 1) + ")");
  }
  const int64_t quant_axis = RoleInt(call, family, F::Role::kQuantAxis, -1);
  if (quant_axis != -1 && quant_axis != rank - 1) {
    return reject(F::Role::kQuantAxis, std::to_string(quant_axis) + " is not -1 or " + std::to_string(rank - 1));
  }
  // [B], or [B, 2] (batch, position): V2's page, and V1's op README and torch_npu's documentation.
  const size_t index_rank = index->view.size();
  if (index_rank != 1 && !(index_rank == 2 && index->view[1] == 2)) {
    return reject(F::Role::kIndices, "shape " + DimsText(index->view) + " is not [B] or [B, 2]");
  }
  const int64_t batches = index->view[0];
  bool fits = updates->view[0] == batches && (index_rank == 2 || batches <= self->view[0]) &&
              updates->view[axis] <= self->view[axis];
  for (int64_t d = 1; fits && d < rank; ++d) fits = d == axis || updates->view[d] == self->view[d];
  if (!fits) {
    return reject(F::Role::kX, "shape " + DimsText(updates->view) + " does not fit " + RoleName(call, family, F::Role::kOut) +
                                   "'s " + DimsText(self->view) + " (dimension 0: the indices' " + std::to_string(batches) +
                                   " batches; axis: at most its; the others: its)");
  }
  const int64_t width = updates->view.back();
  // V1's page: on Atlas A2/A3 and the Atlas inference series, selfRef's and updates' last dimension
  // spans a multiple of 32 bytes (V2's page, of Ascend950 alone, has no such rule).
  const bool aligned_chip = call.soc == Soc::kAscend910B || call.soc == Soc::kAscend910_93 || call.soc == Soc::kAscend310P;
  if (aligned_chip && !family.has(F::Role::kRoundMode)) {
    for (const auto& [role, t] : {std::pair{F::Role::kOut, self}, std::pair{F::Role::kX, updates}}) {
      const int64_t bytes = t->view.back() * static_cast<int64_t>(DTypeSize(t->dtype));
      if (bytes % 32 != 0) {
        return reject(role, "last dimension " + std::to_string(t->view.back()) + " spans " + std::to_string(bytes) +
                                " bytes, not a multiple of 32 (the page's rule on this chip)");
      }
    }
  }
  if (scale->numel() != width) {
    return reject(F::Role::kScale, "has " + std::to_string(scale->numel()) + " elements, not updates' last dimension " +
                                       std::to_string(width));
  }
  if (zero && zero->numel() != width) {
    return reject(F::Role::kOffset, "has " + std::to_string(zero->numel()) + " elements, not updates' last dimension " +
                                        std::to_string(width));
  }
  auto made = std::make_unique<QuantScatterWork>(call.spec.name);
  made->axis = axis;
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kOut), *self);
  made->tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), *index);
  made->tensor(kUpdates).Set(RoleName(call, family, F::Role::kX), *updates);
  made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  if (zero) {
    made->has_zero_point = true;
    made->tensor(kZeroPoint).Set(RoleName(call, family, F::Role::kOffset), *zero);
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
