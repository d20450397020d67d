// The moe_expert_tokens family, the V1 pipeline's count of rows per expert:
//   compute_expert_tokens  aclnnMoeComputeExpertTokens (torch_npu.npu_moe_compute_expert_tokens; a derived page
//                 from its README): out[i] = the number of sortedExperts' elements <= i, i < numExperts (the end
//                 of expert i's rows, one past its last). sortedExperts is device data: a value outside [0,
//                 numExperts) or out of order, which the page excludes and a binary search would answer wrongly
//                 for, fails phase 2 naming it.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "opapi/families/family.h"
#include "opapi/families/moe_indexed.h"

namespace aclsim {
namespace {

using T = MoeExpertTokensFamily;

enum TokensSlot { kSorted, kEnds, kTokensSlots };

class ExpertTokensWork final : public IndexedWork {
 public:
  explicit ExpertTokensWork(const char* api) : IndexedWork(api, kTokensSlots) {}

  int64_t experts = 0;

 private:
  aclnnStatus Compute() override {
    const std::vector<int64_t> sorted = Int64s(kSorted);
    for (size_t p = 0; p < sorted.size(); ++p) {
      if (sorted[p] < 0 || sorted[p] >= experts) {
        return OutOfRange(kSorted, static_cast<int64_t>(p), sorted[p], experts, "numExperts");
      }
      if (p > 0 && sorted[p] < sorted[p - 1]) {
        return BadIndex(kSorted, static_cast<int64_t>(p), sorted[p],
                        "less than the element before it: sortedExperts is not non-decreasing");
      }
    }
    std::vector<int64_t> ends(static_cast<size_t>(experts));
    for (int64_t e = 0; e < experts; ++e) {
      ends[static_cast<size_t>(e)] = std::upper_bound(sorted.begin(), sorted.end(), e) - sorted.begin();
    }
    ScatterFrom(ends.data(), ComputeType::kInt64, tensor(kEnds));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanMoeExpertTokens(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* sorted = RoleTensor(call, family, T::Role::kSortedExperts);
  const TensorDesc* out = RoleTensor(call, family, T::Role::kOut);
  if (!sorted || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter refuse(call, family);
  if (sorted->view.size() != 1) return refuse(T::Role::kSortedExperts, "shape " + DimsText(sorted->view) + " is not 1-D");
  // The README's bound on sortedExperts' size (its binary search's range).
  if (sorted->view[0] >= (int64_t{1} << 24)) {
    return refuse(T::Role::kSortedExperts, std::to_string(sorted->view[0]) + " elements, not fewer than 2**24");
  }
  const int64_t experts = RoleInt(call, family, T::Role::kExpertNum, 0);
  if (experts <= 0 || experts > 2048) {
    return refuse(T::Role::kExpertNum, std::to_string(experts) + " is outside (0, 2048]");
  }
  ExpertTokensWork* made = new ExpertTokensWork(call.spec.name);
  std::unique_ptr<ExpertTokensWork> owned(made);
  made->experts = experts;
  made->tensor(kSorted).Set(RoleName(call, family, T::Role::kSortedExperts), *sorted);
  if (aclnnStatus s = made->KeepOutput(call, family, T::Role::kOut, *out, Dims{experts}, "[numExperts]", kEnds)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
