// The nsa_compress family: Native Sparse Attention's key/value compression (aclnnNsaCompress,
// torch_npu.npu_nsa_compress). Its page's formula, K_cmp = { phi(k[i*d+1 : i*d+l]) | 0 <= i <= floor((t - l) / d) },
// with phi the window's rows weighed per head by weight [l, N] and summed (semantics/nsa_compress.toml says which
// pages fix it), in the TND layout (the only one supported): per sequence of s tokens (actSeqLenOptional's
// cumulative ends) and head n,
//   output[i, n, :] = sum over j < l of weight[j, n] * input[i * d + j, n, :],   0 <= i <= (s - l) / d
// (no window when s < l), l compressBlockSize and d compressStride, the sequences' windows one after another.
// Phase 1 enforces the page's 约束说明 (TND, cumulative ends ending at input's T, N <= 128, D a multiple of 16 up
// to 256, weight [compressBlockSize, N] with compressBlockSize a multiple of 16 up to 128, compressStride a
// multiple of 16 up to compressBlockSize). FLOAT16 and BFLOAT16 compute in float with double accumulation.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = NsaCompressFamily;

enum Slot { kInput, kWeight, kOut, kSlots };

constexpr int64_t kMaxHeads = 128, kMaxHeadDim = 256, kMaxBlockSize = 128;

class NsaCompressWork final : public FamilyWork {
 public:
  explicit NsaCompressWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t heads = 0, dim = 0, block = 0, stride = 0, windows = 0;
  Dims ends;  // the sequences' cumulative ends

 private:
  aclnnStatus Compute() override {
    if (windows == 0) return ACLNN_SUCCESS;
    std::vector<int64_t> window_starts;  // each window's first input row, in output order
    for (size_t b = 0; b < ends.size(); ++b) {
      for (int64_t first = b ? ends[b - 1] : 0; first + block <= ends[b]; first += stride) window_starts.push_back(first);
    }
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kInput), ComputeType::kFloat32, 0));
    const float* w = static_cast<const float*>(ContiguousAs(tensor(kWeight), ComputeType::kFloat32, 1));
    std::vector<float> out(static_cast<size_t>(windows * heads * dim));
    ParallelFor(windows * heads, [&](int64_t task) {
      const int64_t i = task / heads, n = task % heads;
      std::vector<double> sum(static_cast<size_t>(dim), 0.0);
      for (int64_t j = 0; j < block; ++j) {
        const double weight = w[j * heads + n];
        const float* row = x + ((window_starts[i] + j) * heads + n) * dim;
        for (int64_t d = 0; d < dim; ++d) sum[d] += weight * row[d];
      }
      for (int64_t d = 0; d < dim; ++d) out[task * dim + d] = static_cast<float>(sum[d]);
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanNsaCompress(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* input = RoleTensor(call, family, F::Role::kInput);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!input || !weight || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  const std::string layout = RoleText(call, family, F::Role::kLayout);
  if (layout != "TND") {
    return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue,
                       "\"" + layout + "\" is not TND, the only layout the page supports now");
  }
  if (input->view.size() != 3) return reject(F::Role::kInput, "shape " + DimsText(input->view) + " is not [T, N, D] (TND)");
  const int64_t tokens = input->view[0], heads = input->view[1], dim = input->view[2];
  if (heads > kMaxHeads || dim % 16 != 0 || dim > kMaxHeadDim) {
    return reject(F::Role::kInput, "shape " + DimsText(input->view) +
                                       ": the page wants N up to 128 and D a multiple of 16 up to 256");
  }
  const int64_t block = RoleInt(call, family, F::Role::kBlockSize, 0);
  if (block < 16 || block % 16 != 0 || block > kMaxBlockSize) {
    return reject(F::Role::kBlockSize, std::to_string(block) + " is not a multiple of 16 up to 128");
  }
  const int64_t stride = RoleInt(call, family, F::Role::kStride, 0);
  if (stride < 16 || stride % 16 != 0 || stride > block) {
    return reject(F::Role::kStride, std::to_string(stride) + " is not a multiple of 16 up to compressBlockSize " +
                                        std::to_string(block));
  }
  if (weight->view != Dims{block, heads}) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [compressBlockSize, N] " +
                                        DimsText(Dims{block, heads}));
  }
  if (weight->dtype != input->dtype) {
    return reject(F::Role::kWeight, std::string("dtype ") + DTypeName(weight->dtype) + " is not input's " +
                                        DTypeName(input->dtype));
  }
  auto made = std::make_unique<NsaCompressWork>(call.spec.name);
  Dims& ends = made->ends;
  if (!RoleInts(call, family, F::Role::kSeqLens, &ends) || ends.empty()) {
    return reject(F::Role::kSeqLens, "is required (each sequence's cumulative end)");
  }
  int64_t start = 0;
  for (int64_t end : ends) {
    if (end < start) return reject(F::Role::kSeqLens, DimsText(ends) + " does not rise from 0 (cumulative sequence ends)");
    if (end - start >= block) made->windows += (end - start - block) / stride + 1;  // the page's 0 <= i <= (s - l) / d
    start = end;
  }
  if (start != tokens) {
    return reject(F::Role::kSeqLens, DimsText(ends) + " ends at " + std::to_string(start) + ", not at input's T " +
                                         std::to_string(tokens));
  }
  if (out->dtype != input->dtype) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not input's " + DTypeName(input->dtype));
  }
  const Dims shape{made->windows, heads, dim};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "[the windows, N, D]", kOut)) return s;
  made->heads = heads, made->dim = dim, made->block = block, made->stride = stride;
  made->tensor(kInput).Set(RoleName(call, family, F::Role::kInput), *input);
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
