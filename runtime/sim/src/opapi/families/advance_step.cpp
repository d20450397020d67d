// The advance_step family (aclnnAdvanceStep, torch_npu.npu_advance_step_flashattn without speculative tokens):
// one decode step of vLLM's bookkeeping, in place, for each query i < numQueries with n = seqLens[i] (the
// value before the step): inputTokens[i] = sampledTokenIds[i, 0], inputPositions[i] = n, seqLens[i] = n + 1,
// slotMapping[i] = blockTables[i, n / blockSize] * blockSize + n % blockSize. The page's formula writes the
// block table's entry as a pointer sum and lists the slot after seqLens' increment; torch_npu documents the op
// as vLLM's advance_step_flashattn, whose kernel reads both at n (the semantics' errata). The sequences past
// numQueries are left as they are, as vLLM's kernel leaves them. Every INT64 tensor holds numSeqs values
// (its first dimension; the page's example passes [numSeqs, 1]). The page's shape rules are its 561002; a
// negative seqLens, or a block index past blockTables' second dimension (the page's bound on it), fails phase
// 2 naming the tensor.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = AdvanceStepFamily;

enum Slot { kTokens, kSampled, kPositions, kSeqLens, kSlots, kBlockTables, kSlotCount };

class AdvanceStepWork final : public FamilyWork {
 public:
  explicit AdvanceStepWork(const char* api) : FamilyWork(api, kSlotCount) {}

  int64_t seqs = 0, queries = 0, block_size = 1, table_width = 0;

 private:
  std::vector<int64_t> Values(int slot) const {
    std::vector<int64_t> v(static_cast<size_t>(tensor(slot).numel()));
    if (!v.empty()) GatherAs(tensor(slot), ComputeType::kInt64, v.data());
    return v;
  }

  aclnnStatus Compute() override {
    std::vector<int64_t> tokens = Values(kTokens), sampled = Values(kSampled), positions = Values(kPositions),
                         lens = Values(kSeqLens), slots = Values(kSlots), tables = Values(kBlockTables);
    for (int64_t i = 0; i < queries; ++i) {
      const int64_t n = lens[static_cast<size_t>(i)];
      if (n < 0 || n / block_size >= table_width) {
        const bool negative = n < 0;
        return Fail(ACLNN_ERR_INNER,
                    std::string(api_) + ": " + tensor(negative ? kSeqLens : kBlockTables).name + ": " +
                        (negative ? "seqLens[" + std::to_string(i) + "] is " + std::to_string(n)
                                  : "sequence " + std::to_string(i) + " of length " + std::to_string(n) +
                                        " reads block " + std::to_string(n / block_size) + ", past its " +
                                        std::to_string(table_width) + " blocks (the page: the second dimension must "
                                        "exceed max(seqLens) / blockSize)"));
      }
      tokens[static_cast<size_t>(i)] = sampled[static_cast<size_t>(i)];
      positions[static_cast<size_t>(i)] = n;
      lens[static_cast<size_t>(i)] = n + 1;
      slots[static_cast<size_t>(i)] = tables[static_cast<size_t>(i * table_width + n / block_size)] * block_size + n % block_size;
    }
    ScatterFrom(tokens.data(), ComputeType::kInt64, tensor(kTokens));
    ScatterFrom(positions.data(), ComputeType::kInt64, tensor(kPositions));
    ScatterFrom(lens.data(), ComputeType::kInt64, tensor(kSeqLens));
    ScatterFrom(slots.data(), ComputeType::kInt64, tensor(kSlots));
    return ACLNN_SUCCESS;
  }
};

// numSeqs values along the first dimension, the others 1 (the page's [numSeqs], its example's [numSeqs, 1]).
bool PerSequence(const TensorDesc& t, int64_t seqs) {
  if (t.view.empty() || t.view[0] != seqs) return false;
  for (size_t d = 1; d < t.view.size(); ++d) {
    if (t.view[d] != 1) return false;
  }
  return true;
}

}  // namespace

aclnnStatus PlanAdvanceStep(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int roles[] = {F::Role::kTokens, F::Role::kSampled, F::Role::kPositions, F::Role::kSeqLens, F::Role::kSlots,
                       F::Role::kBlockTables};
  const TensorDesc* tensors[kSlotCount];
  for (int s = 0; s < kSlotCount; ++s) {
    tensors[s] = RoleTensor(call, family, roles[s]);
    if (!tensors[s]) return Decline(call, work, "without its tensors");
  }
  const int64_t seqs = RoleInt(call, family, F::Role::kNumSeqs, 0);
  const int64_t queries = RoleInt(call, family, F::Role::kNumQueries, 0);
  const int64_t block_size = RoleInt(call, family, F::Role::kBlockSize, 0);
  const ParamRejecter invalid(call, family);
  if (queries <= 0) return invalid(F::Role::kNumQueries, std::to_string(queries) + " is not positive");
  if (block_size <= 0) return invalid(F::Role::kBlockSize, std::to_string(block_size) + " is not positive");
  // The page's shape rules answer 561002 (its error table's last rows).
  const ParamRejecter reject(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  if (seqs <= queries) {
    return reject(F::Role::kNumSeqs, std::to_string(seqs) + " is not greater than numQueries " + std::to_string(queries));
  }
  for (int s : {kTokens, kPositions, kSeqLens, kSlots}) {
    if (!PerSequence(*tensors[s], seqs)) {
      return reject(roles[s], "shape " + DimsText(tensors[s]->view) + " does not hold numSeqs " + std::to_string(seqs) +
                                  " values along its first dimension");
    }
  }
  const TensorDesc& sampled = *tensors[kSampled];
  if (sampled.view.size() != 2 || sampled.view[0] != queries || sampled.view[1] != 1) {
    return reject(F::Role::kSampled, "shape " + DimsText(sampled.view) + " is not [numQueries " + std::to_string(queries) +
                                         ", 1]");
  }
  const TensorDesc& tables = *tensors[kBlockTables];
  if (tables.view.size() != 2 || tables.view[0] != seqs) {
    return reject(F::Role::kBlockTables, "shape " + DimsText(tables.view) + " is not [numSeqs " + std::to_string(seqs) +
                                             ", blocks]");
  }
  auto made = std::make_unique<AdvanceStepWork>(call.spec.name);
  made->seqs = seqs;
  made->queries = queries;
  made->block_size = block_size;
  made->table_width = tables.view[1];
  for (int s = 0; s < kSlotCount; ++s) made->tensor(s).Set(RoleName(call, family, roles[s]), *tensors[s]);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
