// The embedding_bag family: aclnnEmbeddingBag (F.embedding_bag and nn.EmbeddingBag reach it through
// op-plugin's _embedding_bag and _embedding_bag_forward_only), as aten's CPU _embedding_bag.
//   embedding_bag  weight [numWeight, D], indices [N] (0-d: one index), offsets [O]. Bag b holds the
//                  indices from offsets[b] to offsets[b + 1] (the last bag to N; with
//                  includeLastOffset there are O - 1 bags and offsets[O - 1] must be N, as in CSR).
//                  output[b] is the sum (mode 0; each row times its perSampleWeights entry when
//                  given) or the mean (mode 1) of the rows its indices name, those equal to
//                  paddingIdx left out; an empty bag gives 0. offset2bag[i] is the bag of index i;
//                  bagSize and maxIndices are what aten's CPU kernel returns: the bag's count of
//                  indices other than paddingIdx in mean mode (both), 0 in sum mode.
// The page's table gives maxIndices one dimension, where max mode's is [bags, D]: max mode (any
// mode but 0 and 1) is refused by name (the page's unsupported scaleGradByFreq and sparse true are
// refused by the semantics file's checks). In sum mode offset2bag may also be empty ([0]: aten's fast path and what op-plugin passes
// when paddingIdx < 0), and is then left alone; so may maxIndices in sum and mean mode on Ascend950, where
// op-plugin passes it as [0] (EmbeddingBagNpuOpApi.cpp: apply_tensor_without_format({0}) there, the bags'
// count elsewhere). An index outside [0, numWeight), offsets not
// rising from 0 to at most N, or a last offset other than N with includeLastOffset fail phase 2 by
// name. Rows accumulate in float (FLOAT16 and BFLOAT16 too); bags are spread over the threads.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = EmbeddingBagFamily;

enum Slot { kWeight, kIndices, kOffsets, kPerSample, kOutput, kOffset2Bag, kBagSize, kMaxIndices, kSlots };
enum Mode { kSum = 0, kMean = 1 };

class EmbeddingBagWork final : public FamilyWork {
 public:
  explicit EmbeddingBagWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t num_weights = 0, width = 0, count = 0, offsets = 0, bags = 0, mode = kMean, padding_idx = -1;
  bool include_last = false, per_sample = false, offset2bag = true, max_indices = true;

 private:
  aclnnStatus Fault(int slot, const std::string& what) {
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(slot).name + ": " + what);
  }

  aclnnStatus Compute() override {
    const int64_t* idx = count ? IndexValues(tensor(kIndices), 0) : nullptr;
    const int64_t* off = offsets ? IndexValues(tensor(kOffsets), 1) : nullptr;
    for (int64_t i = 0; i < count; ++i) {
      if (idx[i] < 0 || idx[i] >= num_weights) {
        return Fault(kIndices, "element " + std::to_string(i) + " is " + std::to_string(idx[i]) + ", outside [0, " +
                                   std::to_string(num_weights) + ")");
      }
    }
    for (int64_t b = 0; b < offsets; ++b) {
      const int64_t low = b ? off[b - 1] : 0;
      if (off[b] < low || off[b] > count || (b == 0 && off[0] != 0)) {
        return Fault(kOffsets, "element " + std::to_string(b) + " is " + std::to_string(off[b]) +
                                   ": offsets must rise from 0 to at most the number of indices (" +
                                   std::to_string(count) + ")");
      }
    }
    if (include_last && off[offsets - 1] != count) {
      return Fault(kOffsets, "the last offset is " + std::to_string(off[offsets - 1]) +
                                 ", not the number of indices (" + std::to_string(count) +
                                 "), which includeLastOffset asks for");
    }
    auto end_of = [&](int64_t b) { return b + 1 < offsets ? off[b + 1] : count; };
    const float* w = num_weights * width != 0 ? static_cast<const float*>(ContiguousAs(tensor(kWeight), type, 2)) : nullptr;
    const float* psw = per_sample && count ? static_cast<const float*>(ContiguousAs(tensor(kPerSample), type, 3))
                                           : nullptr;
    std::vector<float> out(static_cast<size_t>(bags * width), 0.0f);
    std::vector<int64_t> sizes(static_cast<size_t>(bags), 0), which(static_cast<size_t>(count), 0);
    auto reduce_bags = [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        float* acc = out.data() + b * width;
        int64_t kept = 0;
        for (int64_t i = off[b]; i < end_of(b); ++i) {
          which[static_cast<size_t>(i)] = b;
          if (idx[i] == padding_idx) continue;
          ++kept;
          const float scale = psw ? psw[i] : 1.0f;
          const float* row = w + idx[i] * width;
          for (int64_t j = 0; j < width; ++j) acc[j] += psw ? scale * row[j] : row[j];
        }
        if (mode == kMean) {
          sizes[static_cast<size_t>(b)] = kept;
          if (kept) {
            for (int64_t j = 0; j < width; ++j) acc[j] /= static_cast<float>(kept);
          }
        }
      }
    };
    const int64_t tasks = count * width < (1 << 16) ? 1 : std::min<int64_t>(bags, ParallelThreads() * 4);
    if (tasks <= 1) {
      reduce_bags(0, bags);
    } else {
      ParallelFor(tasks, [&](int64_t t) { reduce_bags(bags * t / tasks, bags * (t + 1) / tasks); });
    }
    ScatterFrom(out.data(), type, tensor(kOutput));
    if (offset2bag) ScatterFrom(which.data(), ComputeType::kInt64, tensor(kOffset2Bag));
    ScatterFrom(sizes.data(), ComputeType::kInt64, tensor(kBagSize));
    if (max_indices) ScatterFrom(sizes.data(), ComputeType::kInt64, tensor(kMaxIndices));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanEmbeddingBag(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
  const TensorDesc* offsets = RoleTensor(call, family, F::Role::kOffsets);
  const TensorDesc* per_sample = RoleTensor(call, family, F::Role::kPerSampleWeights);
  const TensorDesc* output = RoleTensor(call, family, F::Role::kOutput);
  const TensorDesc* offset2bag = RoleTensor(call, family, F::Role::kOffset2bag);
  const TensorDesc* bag_size = RoleTensor(call, family, F::Role::kBagSize);
  const TensorDesc* max_indices = RoleTensor(call, family, F::Role::kMaxIndices);
  if (!weight || !indices || !offsets || !output || !offset2bag || !bag_size || !max_indices) {
    return Decline(call, work, "without its tensors");
  }
  if (!ComputesInFloat32(weight->dtype)) return DeclineDtype(call, work, weight->dtype);
  const ParamRejecter reject(call, family);
  EmbeddingBagWork* made = new EmbeddingBagWork(call.spec.name);
  std::unique_ptr<EmbeddingBagWork> owned(made);
  made->type = ComputeType::kFloat32;
  made->mode = RoleInt(call, family, F::Role::kMode, kMean);
  if (made->mode != kSum && made->mode != kMean) {
    return reject(F::Role::kMode, std::to_string(made->mode) +
                                      " (max aggregation) is not modelled: its maxIndices is [bags, embeddingDim], "
                                      "where the page's table gives maxIndices one dimension");
  }
  if (weight->view.size() != 2) return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not 2-d");
  if (indices->view.size() > 1 || offsets->view.size() > 1) {
    return reject(indices->view.size() > 1 ? F::Role::kIndices : F::Role::kOffsets, "has more than one dimension");
  }
  made->num_weights = weight->view[0];
  made->width = weight->view[1];
  made->count = indices->view.empty() ? 1 : indices->view[0];
  made->offsets = offsets->view.empty() ? 1 : offsets->view[0];
  made->include_last = RoleBool(call, family, F::Role::kIncludeLastOffset, false);
  if (made->include_last && made->offsets < 1) {
    return reject(F::Role::kOffsets, "is empty, where includeLastOffset needs the last bag's end");
  }
  made->bags = made->include_last ? made->offsets - 1 : made->offsets;
  made->padding_idx = RoleInt(call, family, F::Role::kPaddingIdx, -1);
  if (per_sample) {
    if (made->mode != kSum) return reject(F::Role::kPerSampleWeights, "must be null outside sum mode (mode 0)");
    if (per_sample->dtype != weight->dtype) {
      return reject(F::Role::kPerSampleWeights, std::string("dtype ") + DTypeName(per_sample->dtype) +
                                                    " is not weight's " + DTypeName(weight->dtype));
    }
    if (per_sample->numel() != made->count) {
      return reject(F::Role::kPerSampleWeights, "shape " + DimsText(per_sample->view) +
                                                    " does not have one element per index");
    }
    made->per_sample = true;
    made->tensor(kPerSample).Set(RoleName(call, family, F::Role::kPerSampleWeights), *per_sample);
  }
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  // indices and offsets as vectors (a 0-d one as one element).
  auto keep_vector = [&](int role, const TensorDesc& t, int slot) {
    TensorRef& ref = made->tensor(slot);
    ref.Set(RoleName(call, family, role), t);
    if (t.view.empty()) {
      ref.shape = Dims{1};
      ref.strides = Dims{0};
    }
  };
  keep_vector(F::Role::kIndices, *indices, kIndices);
  keep_vector(F::Role::kOffsets, *offsets, kOffsets);
  const Dims per_bag{made->bags};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOutput, *output, Dims{made->bags, made->width},
                                       "[bags, embeddingDim]", kOutput)) {
    return s;
  }
  made->offset2bag = !(made->mode == kSum && offset2bag->numel() == 0 && offset2bag->view.size() == 1);
  if (made->offset2bag) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOffset2bag, *offset2bag, Dims{made->count},
                                         "one element per index", kOffset2Bag)) {
      return s;
    }
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kBagSize, *bag_size, per_bag, "one element per bag",
                                       kBagSize)) {
    return s;
  }
  made->max_indices = !(max_indices->numel() == 0 && max_indices->view.size() == 1);
  if (made->max_indices) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kMaxIndices, *max_indices, per_bag,
                                         "one element per bag", kMaxIndices)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
