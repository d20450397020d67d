// The grouped_bias_add_grad family: aclnnGroupedBiasAddGrad and aclnnGroupedBiasAddGradV2, the
// backward of a bias added per group of rows:
//   gradY [G, C, H], no group_idx:  out[g, h] = sum over c of gradY[g, c, h];
//   gradY [rows, H], group_idx [G]: out[j, h] = sum of gradY[i, h] over the rows i of group j,
//                                   [end(j - 1), end(j)) with end(-1) = 0, where end is group_idx
//                                   (group_idx_type 0: each group's end) or its running sum (1:
//                                   each group's row count).
// The ends are device data: phase 2 refuses, naming the element, ends that decrease, are
// negative or pass gradY's rows, and a last end other than gradY's rows (the pages' constraints). Sums in float
// (double for DOUBLE), one row of out per task.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = GroupedBiasAddGradFamily;

enum Slot { kGradY, kGroupIdx, kOut, kSlots };

class GroupedBiasAddGradWork final : public FamilyWork {
 public:
  explicit GroupedBiasAddGradWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t groups = 0, rows = 0, width = 0;  // G; gradY's rows (C per group without group_idx); H
  bool grouped = false;                       // group_idx given
  bool counts = false;                        // group_idx_type 1

 private:
  aclnnStatus Compute() override {
    std::vector<int64_t> begin(static_cast<size_t>(groups)), end(static_cast<size_t>(groups));
    if (grouped && groups > 0) {
      const int64_t* idx = IndexValues(tensor(kGroupIdx), 1);
      int64_t at = 0;
      for (int64_t j = 0; j < groups; ++j) {
        const int64_t stop = counts ? at + idx[j] : idx[j];
        if (stop < at || stop > rows) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupIdx).name + ": element " +
                                           std::to_string(j) + " is " + std::to_string(idx[j]) + ", which ends group " +
                                           std::to_string(j) + " at row " + std::to_string(stop) + ", outside [" +
                                           std::to_string(at) + ", " + std::to_string(rows) + "]");
        }
        begin[static_cast<size_t>(j)] = at;
        end[static_cast<size_t>(j)] = at = stop;
      }
      if (at != rows) {  // the pages: the last end (the sizes' sum) must be gradY's rows
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupIdx).name + ": the groups end at row " +
                                         std::to_string(at) + ", not at gradY's " + std::to_string(rows) + " rows");
      }
    } else {
      for (int64_t j = 0; j < groups; ++j) {
        begin[static_cast<size_t>(j)] = j * rows;
        end[static_cast<size_t>(j)] = (j + 1) * rows;
      }
    }
    if (groups * width == 0) return ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const ComputeType as = type;
      const T* src = static_cast<const T*>(ContiguousAs(tensor(kGradY), as, 0));
      std::vector<T> out(static_cast<size_t>(groups * width), T(0));
      ParallelFor(groups, [&](int64_t j) {
        T* dst = out.data() + j * width;
        for (int64_t i = begin[static_cast<size_t>(j)]; i < end[static_cast<size_t>(j)]; ++i) {
          const T* row = src + i * width;
          for (int64_t h = 0; h < width; ++h) dst[h] += row[h];
        }
      });
      ScatterFrom(out.data(), as, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanGroupedBiasAddGrad(const Call& call, const FamilySpec& family, ExecutorWork** work,
                                   uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradY);
  const TensorDesc* group_idx = RoleTensor(call, family, F::Role::kGroupIdx);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!grad || !out) return Decline(call, work, "without gradY or out");
  const ParamRejecter reject(call, family);
  ComputeType type;
  if (!FamilyComputeType(grad->dtype, false, &type) || IsIntegralType(grad->dtype)) {
    return DeclineDtype(call, work, grad->dtype);
  }
  std::unique_ptr<GroupedBiasAddGradWork> made(new GroupedBiasAddGradWork(call.spec.name));
  made->type = type;
  const int64_t type_value = RoleInt(call, family, F::Role::kGroupIdxType, 0);
  if (type_value != 0 && type_value != 1) {
    return reject(F::Role::kGroupIdxType, std::to_string(type_value) + " is neither 0 (group ends) nor 1 (group sizes)");
  }
  made->counts = type_value == 1;
  const Dims& g = grad->view;
  if (group_idx) {
    if (g.size() != 2) return reject(F::Role::kGradY, "shape " + DimsText(g) + " is not [rows, H] (group_idx is given)");
    if (group_idx->view.size() != 1) {
      return reject(F::Role::kGroupIdx, "shape " + DimsText(group_idx->view) + " is not one-dimensional");
    }
    made->grouped = true;
    made->groups = group_idx->view[0];
    made->rows = g[0];
    made->tensor(kGroupIdx).Set(RoleName(call, family, F::Role::kGroupIdx), *group_idx);
  } else {
    if (g.size() != 3) return reject(F::Role::kGradY, "shape " + DimsText(g) + " is not [G, C, H] (no group_idx)");
    made->groups = g[0];
    made->rows = g[1];
  }
  // The page: "group组数超过2048" is refused.
  if (made->groups > 2048) {
    return reject(group_idx ? F::Role::kGroupIdx : F::Role::kGradY, std::to_string(made->groups) + " groups, more than 2048");
  }
  made->width = g.back();
  made->tensor(kGradY).Set(RoleName(call, family, F::Role::kGradY), *grad);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{made->groups, made->width},
                                       "[G, H]", kOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
