// The moe_re_routing family, the expert-parallel re-layout after an AlltoAll:
//   re_routing    aclnnMoeReRouting (npu_moe_re_routing; a derived page from its README): the (rank, expert) blocks
//                 of tokens, counted by expertTokenNumPerRank [N, E] and laid rank-major, moved expert-major (rows
//                 copied exactly, perTokenScalesOptional alike, 0 without it); permuteTokenIdxOut each moved row's
//                 source row (gather, idxType 0); expertTokenNumOut the count per expert (count, expertTokenNumType
//                 1): the README's supported modes only. The counts are device data: a negative one, or a sum
//                 other than A, fails phase 2 naming them.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/moe_indexed.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using R = MoeReRoutingFamily;

enum ReRoutingSlot { kReTokens, kReCounts, kReScales, kRePermuted, kReScalesOut, kReIdx, kReExpertCounts, kReSlots };

class ReRoutingWork final : public IndexedWork {
 public:
  explicit ReRoutingWork(const char* api) : IndexedWork(api, kReSlots) {}

  int64_t rows = 0, hidden = 0, ranks = 0, experts = 0;
  bool scaled = false;

 private:
  aclnnStatus Compute() override {
    const std::vector<int64_t> counts = Int64s(kReCounts);
    int64_t total = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < 0) return BadIndex(kReCounts, static_cast<int64_t>(i), counts[i], "a negative count of tokens");
      if (counts[i] > rows - total) {
        return BadIndex(kReCounts, static_cast<int64_t>(i), counts[i],
                        "past the " + std::to_string(rows) + " tokens: the counts must sum to A");
      }
      total += counts[i];
    }
    if (total != rows) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kReCounts).name + ": the counts sum to " +
                                       std::to_string(total) + ", not to the " + std::to_string(rows) +
                                       " tokens (A); the device's kernel faults on it");
    }
    // The source row of each destination row: blocks expert by expert, each rank by rank.
    std::vector<int64_t> source, per_expert(static_cast<size_t>(experts));
    source.reserve(static_cast<size_t>(rows));
    for (int64_t e = 0; e < experts; ++e) {
      for (int64_t r = 0; r < ranks; ++r) {
        int64_t start = 0;
        for (int64_t i = 0; i < r * experts + e; ++i) start += counts[static_cast<size_t>(i)];
        const int64_t count = counts[static_cast<size_t>(r * experts + e)];
        for (int64_t t = 0; t < count; ++t) source.push_back(start + t);
        per_expert[static_cast<size_t>(e)] += count;
      }
    }
    ScatterFrom(source.data(), ComputeType::kInt64, tensor(kReIdx));
    ScatterFrom(per_expert.data(), ComputeType::kInt64, tensor(kReExpertCounts));
    std::vector<float> scales(static_cast<size_t>(rows)), moved(static_cast<size_t>(rows));
    if (scaled && rows) GatherAs(tensor(kReScales), ComputeType::kFloat32, scales.data());
    for (int64_t d = 0; d < rows; ++d) moved[static_cast<size_t>(d)] = scales[static_cast<size_t>(source[static_cast<size_t>(d)])];
    ScatterFrom(moved.data(), ComputeType::kFloat32, tensor(kReScalesOut));
    // Rows are copied as floats: exact for FLOAT16, BFLOAT16 and INT8.
    const float* x = Floats(kReTokens, 0, rows * hidden);
    ParallelFor(rows, [&](int64_t d) {
      ScatterFrom(x + source[static_cast<size_t>(d)] * hidden, ComputeType::kFloat32, Row(tensor(kRePermuted), d));
    });
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanMoeReRouting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* tokens = RoleTensor(call, family, R::Role::kTokens);
  const TensorDesc* counts = RoleTensor(call, family, R::Role::kCounts);
  const TensorDesc* scales = RoleTensor(call, family, R::Role::kScales);
  const TensorDesc* permuted = RoleTensor(call, family, R::Role::kPermuted);
  const TensorDesc* scales_out = RoleTensor(call, family, R::Role::kPermutedScales);
  const TensorDesc* idx = RoleTensor(call, family, R::Role::kTokenIdx);
  const TensorDesc* expert_counts = RoleTensor(call, family, R::Role::kExpertCounts);
  if (!tokens || !counts || !permuted || !scales_out || !idx || !expert_counts) {
    return Decline(call, work, "without its tensors");
  }
  const ParamRejecter refuse(call, family);
  // Repeated from the semantics' checks so that no other mode reaches the kernel.
  if (RoleInt(call, family, R::Role::kCountsType, 1) != 1) return refuse(R::Role::kCountsType, "only 1 (count) is supported");
  if (RoleInt(call, family, R::Role::kIdxType, 0) != 0) return refuse(R::Role::kIdxType, "only 0 (gather) is supported");
  if (tokens->view.size() != 2 || tokens->view[1] <= 0 || tokens->view[1] >= 16384) {
    return refuse(R::Role::kTokens, "shape " + DimsText(tokens->view) + " is not [A, H] with 0 < H < 16384");
  }
  if (counts->view.size() != 2) return refuse(R::Role::kCounts, "shape " + DimsText(counts->view) + " is not [N, E]");
  const int64_t rows = tokens->view[0];
  if (scales && scales->view != Dims{rows}) {
    return refuse(R::Role::kScales, "shape " + DimsText(scales->view) + " is not [A = " + std::to_string(rows) + "]");
  }
  if (permuted->dtype != tokens->dtype) {
    return refuse(R::Role::kPermuted, std::string("dtype ") + DTypeName(permuted->dtype) + " is not tokens' " +
                                          DTypeName(tokens->dtype));
  }
  if (expert_counts->dtype != counts->dtype) {
    return refuse(R::Role::kExpertCounts, std::string("dtype ") + DTypeName(expert_counts->dtype) + " is not " +
                                              RoleName(call, family, R::Role::kCounts) + "'s " + DTypeName(counts->dtype));
  }
  ReRoutingWork* made = new ReRoutingWork(call.spec.name);
  std::unique_ptr<ReRoutingWork> owned(made);
  made->rows = rows;
  made->hidden = tokens->view[1];
  made->ranks = counts->view[0];
  made->experts = counts->view[1];
  made->scaled = scales != nullptr;
  made->tensor(kReTokens).Set(RoleName(call, family, R::Role::kTokens), *tokens);
  made->tensor(kReCounts).Set(RoleName(call, family, R::Role::kCounts), *counts);
  if (scales) made->tensor(kReScales).Set(RoleName(call, family, R::Role::kScales), *scales);
  const Dims flat{rows};
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kPermuted, *permuted, tokens->view, "tokens' shape", kRePermuted)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kPermutedScales, *scales_out, flat, "[A]", kReScalesOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kTokenIdx, *idx, flat, "[A]", kReIdx)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kExpertCounts, *expert_counts, Dims{made->experts}, "[E]",
                                       kReExpertCounts)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
