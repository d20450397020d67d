// The quant family's group_quant (aclnnGroupQuant, torch_npu.npu_group_quant): the rows of x [S, H]
// fall into E groups by groupIndex [E], the cumulative row counts (row r is in the first group g
// with r < groupIndex[g]); y = round(x * scale[g] + offset) half to even, saturated to the range of
// dstType's dtype (INT8, INT4, or INT32 words of eight INT4 along H, as quantised_out.h writes them), with
// scale [E, H] one row per group and offsetOptional one value. In float.
// The page's constraint on groupIndex (non-decreasing, from 0, its last element S) is the data's:
// phase 2 checks it and faults naming the element that breaks it (the page says the device does not
// check it, so its result would be undefined). dstType's other values (no other is documented) are declined
// by name.
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/families/quantised_out.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = QuantFamily;

enum Slot { kX, kScale, kGroupIndex, kOffset, kOut, kSlots };

class GroupQuantWork final : public FamilyWork {
 public:
  explicit GroupQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  bool has_offset = false;
  QuantisedOut y;  // y's dtype: its range, and where its INT4 elements lie

 private:
  aclnnStatus Compute() override {
    const TensorRef& xs = tensor(kX);
    const int64_t rows = xs.shape[0], width = xs.shape[1], groups = tensor(kGroupIndex).numel();
    const int64_t* ends = IndexValues(tensor(kGroupIndex), 3);
    int64_t previous = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const bool last = g == groups - 1;
      if (ends[g] < previous || ends[g] > rows || (last && ends[g] != rows)) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupIndex).name + ": element " +
                                         std::to_string(g) + " is " + std::to_string(ends[g]) +
                                         (last ? ": the last must be x's first dimension " + std::to_string(rows)
                                               : ": the counts must be non-decreasing within [0, " +
                                                     std::to_string(rows) + "]") +
                                         " (the page's constraint, which the device does not check)");
      }
      previous = ends[g];
    }
    if (rows == 0 || width == 0) return ACLNN_SUCCESS;
    const float* x = static_cast<const float*>(ContiguousAs(xs, ComputeType::kFloat32, 0));
    const float* scale = static_cast<const float*>(ContiguousAs(tensor(kScale), ComputeType::kFloat32, 1));
    float offset = 0;
    if (has_offset) GatherAs(tensor(kOffset), ComputeType::kFloat32, &offset);
    int64_t* q = static_cast<int64_t*>(Scratch(2, static_cast<size_t>(rows * width) * sizeof(int64_t)));
    ParallelFor(groups, [&](int64_t g) {
      const float* s = scale + g * width;
      for (int64_t r = g == 0 ? 0 : ends[g - 1]; r < ends[g]; ++r) {
        for (int64_t j = 0; j < width; ++j) {
          q[r * width + j] = Saturate(std::nearbyint(x[r * width + j] * s[j] + offset), y.low, y.high);
        }
      }
    });
    WriteQuantised(q, y, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanGroupQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* index = RoleTensor(call, family, F::Role::kGroupIndex);
  const TensorDesc* offset = RoleTensor(call, family, F::Role::kOffset);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !scale || !index || !out) return Decline(call, work, "without its tensors");
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, 2);
  const aclDataType want = QuantisedDType(dst);
  if (want == ACL_DT_UNDEFINED) {
    return Decline(call, work, "for dstType " + std::to_string(dst) + " (2 INT8, 3 INT32 of packed INT4 and 29 INT4 are simulated)");
  }
  const ParamRejecter reject(call, family);
  if (out->dtype != want) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType " + std::to_string(dst) +
                                     "'s " + DTypeName(want));
  }
  if (x->view.size() != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [S, H]");
  const int64_t width = x->view[1];
  if (index->view.size() != 1) return reject(F::Role::kGroupIndex, "shape " + DimsText(index->view) + " is not [E]");
  const int64_t groups = index->view[0];
  if (scale->view != Dims{groups, width}) {
    return reject(F::Role::kScale, "shape " + DimsText(scale->view) + " is not [E, H] = " + DimsText(Dims{groups, width}));
  }
  if (groups == 0) return reject(F::Role::kScale, "has no group (its first dimension is 0)");
  if (offset && (offset->view.size() > 1 || offset->numel() != 1)) {
    return reject(F::Role::kOffset, "shape " + DimsText(offset->view) + " is not [1] or []");
  }
  auto made = std::make_unique<GroupQuantWork>(call.spec.name);
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  made->tensor(kGroupIndex).Set(RoleName(call, family, F::Role::kGroupIndex), *index);
  if (offset) {
    made->has_offset = true;
    made->tensor(kOffset).Set(RoleName(call, family, F::Role::kOffset), *offset);
  }
  const aclnnStatus kept = KeepQuantised(made.get(), call, family, work, F::Role::kOut, *out, x->view, kOut, &made->y);
  if (kept != ACLNN_SUCCESS || *work) return kept;  // refused, or declined (*work: the not-simulated work)
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
