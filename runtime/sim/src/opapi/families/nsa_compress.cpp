// The nsa_compress family: Native Sparse Attention's key/value compression (aclnnNsaCompress,
// torch_npu.npu_nsa_compress) and its gradient (aclnnNsaCompressGrad, npu_nsa_compress_grad). The forward page's
// formula, K_cmp = { phi(k[i*d+1 : i*d+l]) | 0 <= i <= floor((t - l) / d) },
// with phi the window's rows weighed per head by weight [l, N] and summed (semantics/nsa_compress.toml says which
// pages fix it), in the TND layout (the only one supported): per sequence of s tokens (actSeqLenOptional's
// cumulative ends) and head n,
//   output[i, n, :] = sum over j < l of weight[j, n] * input[i * d + j, n, :],   0 <= i <= (s - l) / d
// (no window when s < l), l compressBlockSize and d compressStride, the sequences' windows one after another.
// The gradient (its page's dk = W^T dk_cmp, dw = dk_cmp K^T): outputGrad's row i weighed by weight[j, n] added to
// input row i * d + j (rows no window covers get 0), weightGradOut[j, n] = sum over the windows i of
// outputGrad[i, n, :] . input[i * d + j, n, :].
// Phase 1 enforces the page's 约束说明 (TND, cumulative ends ending at input's T, N <= 128, D a multiple of 16 up
// to 256, weight [compressBlockSize, N] with compressBlockSize a multiple of 16 up to 128, compressStride a
// multiple of 16 up to compressBlockSize). FLOAT16 and BFLOAT16 compute in float with double accumulation.
// The inference form (aclnnNsaCompressWithCache, npu_nsa_compress_infer.cache), the algorithm its op's README
// states: every batch b whose s = actSeqLenOptional[b] tokens (per batch: actSeqLenType 1, the only value
// supported) have just filled a window, s >= l and (s - l) % d == 0, gets that window, i = (s - l) / d,
//   outputCache[slotMapping[b], n, :] = sum over j < l of weight[j, n] * token(b, i * d + j)[n, :],
// token(b, p) input[blockTableOptional[b, p / P], p % P] of the paged cache [blocks, P, N, D] (P pageBlockSize),
// or without a block table row p of b's tokens in the packed TND input; the other rows of outputCache, the
// caller's cache, are kept. A slot outside outputCache, two batches writing one slot ("结果不稳定") and a block
// outside the cache or past the table fail phase 2 naming them.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/nsa_common.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = NsaCompressFamily;

enum Slot { kInput, kWeight, kOut, kGrad, kInputGrad, kWeightGrad, kSlotMapping, kBlockTable, kSlots };

constexpr int64_t kMaxHeads = 128, kMaxHeadDim = 256, kMaxBlockSize = 128;
// aclnnNsaCompressWithCache's bounds (its README's 约束说明; torch_npu's documentation: N up to 64).
constexpr int64_t kMaxCacheHeads = 64, kMaxCacheBlockSize = 64;

class NsaCompressWork final : public FamilyWork {
 public:
  NsaCompressWork(const char* api, bool grad) : FamilyWork(api, kSlots), grad_(grad) {}

  int64_t heads = 0, dim = 0, block = 0, stride = 0, windows = 0;
  Dims ends;  // the sequences' cumulative ends

 private:
  aclnnStatus Compute() override {
    starts_.clear();  // a repeatable executor runs again
    for (size_t b = 0; b < ends.size(); ++b) {
      for (int64_t first = b ? ends[b - 1] : 0; first + block <= ends[b]; first += stride) starts_.push_back(first);
    }
    x_ = static_cast<const float*>(ContiguousAs(tensor(kInput), ComputeType::kFloat32, 0));
    w_ = static_cast<const float*>(ContiguousAs(tensor(kWeight), ComputeType::kFloat32, 1));
    return grad_ ? Backward() : Forward();
  }

  aclnnStatus Forward() {
    std::vector<float> out(static_cast<size_t>(windows * heads * dim));
    ParallelFor(windows * heads, [&](int64_t task) {
      const int64_t i = task / heads, n = task % heads;
      std::vector<double> sum(static_cast<size_t>(dim), 0.0);
      for (int64_t j = 0; j < block; ++j) {
        const double weight = w_[j * heads + n];
        const float* row = x_ + ((starts_[i] + j) * heads + n) * dim;
        for (int64_t d = 0; d < dim; ++d) sum[d] += weight * row[d];
      }
      for (int64_t d = 0; d < dim; ++d) out[task * dim + d] = static_cast<float>(sum[d]);
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Backward() {
    const float* g = static_cast<const float*>(ContiguousAs(tensor(kGrad), ComputeType::kFloat32, 2));
    const int64_t tokens = tensor(kInput).shape[0];
    std::vector<double> dx(static_cast<size_t>(tokens * heads * dim), 0.0), dw(static_cast<size_t>(block * heads), 0.0);
    // One task per head: it alone writes that head's rows of dx and column of dw.
    ParallelFor(heads, [&](int64_t n) {
      for (int64_t i = 0; i < windows; ++i) {
        const float* gi = g + (i * heads + n) * dim;
        for (int64_t j = 0; j < block; ++j) {
          const int64_t at = ((starts_[i] + j) * heads + n) * dim;
          const double weight = w_[j * heads + n];
          double dot = 0;
          for (int64_t d = 0; d < dim; ++d) {
            dx[at + d] += weight * gi[d];
            dot += static_cast<double>(gi[d]) * x_[at + d];
          }
          dw[j * heads + n] += dot;
        }
      }
    });
    ScatterFrom(dx.data(), ComputeType::kFloat64, tensor(kInputGrad));
    ScatterFrom(dw.data(), ComputeType::kFloat64, tensor(kWeightGrad));
    return ACLNN_SUCCESS;
  }

  const bool grad_;
  const float *x_ = nullptr, *w_ = nullptr;
  std::vector<int64_t> starts_;  // each window's first input row, in output order
};


class NsaCompressCacheWork final : public FamilyWork {
 public:
  explicit NsaCompressCacheWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t heads = 0, dim = 0, block = 0, stride = 0, page = 0;  // page: 0 without a block table (TND)
  Dims lengths;  // each batch's tokens

 private:
  aclnnStatus Compute() override {
    const TensorRef& out = tensor(kOut);
    const int64_t rows = out.shape[0], batches = static_cast<int64_t>(lengths.size());
    const int64_t* slots = IndexValues(tensor(kSlotMapping), 0);
    const int64_t* table = page ? IndexValues(tensor(kBlockTable), 1) : nullptr;
    const int64_t cache_blocks = page ? tensor(kInput).shape[0] : 0, per_batch = page ? tensor(kBlockTable).shape[1] : 0;
    // The batches that write, their slots and blocks checked before any write.
    std::vector<int64_t> writers;
    std::vector<int64_t> starts;  // batch b's tokens begin at row starts[b] of the packed input (TND)
    for (int64_t b = 0, first = 0; b < batches; first += lengths[b], ++b) {
      starts.push_back(first);
      const int64_t s = lengths[b];
      if (s < block || (s - block) % stride != 0) continue;
      if (slots[b] < 0 || slots[b] >= rows) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kSlotMapping).name + "[" + std::to_string(b) +
                                         "] is " + std::to_string(slots[b]) + ", outside outputCache's " +
                                         std::to_string(rows) + " rows");
      }
      for (int64_t other : writers) {
        if (slots[other] == slots[b]) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kSlotMapping).name + " names row " +
                                           std::to_string(slots[b]) + " for batches " + std::to_string(other) +
                                           " and " + std::to_string(b) +
                                           ", which the page leaves unstable (slotMapping的值无重复)");
        }
      }
      if (page) {
        const std::string missing =
            PagedBlocksMissing(tensor(kBlockTable).name, table, per_batch, page, "input", cache_blocks,
                               "actSeqLenOptional", b, s, s - block, s);
        if (!missing.empty()) return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + missing);
      }
      writers.push_back(b);
    }
    if (writers.empty()) return ACLNN_SUCCESS;  // no batch filled a window: the cache is left as it is
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kInput), ComputeType::kFloat32, 2));
    const float* w = static_cast<const float*>(ContiguousAs(tensor(kWeight), ComputeType::kFloat32, 3));
    // The caller's cache read whole and written back whole: the rows no batch writes keep their values
    // (FLOAT16 and BFLOAT16 convert to float and back exactly).
    std::vector<float> cache(static_cast<size_t>(out.numel()));
    GatherAs(out, ComputeType::kFloat32, cache.data());
    const int64_t row = heads * dim;
    ParallelFor(static_cast<int64_t>(writers.size()) * heads, [&](int64_t task) {
      const int64_t b = writers[task / heads], n = task % heads, first = lengths[b] - block;
      std::vector<double> sum(static_cast<size_t>(dim), 0.0);
      for (int64_t j = 0; j < block; ++j) {
        const int64_t p = first + j;
        const int64_t at = page ? PagedRow(table, per_batch, page, b, p) : starts[b] + p;
        const float* token = x + at * row + n * dim;
        const double weight = w[j * heads + n];
        for (int64_t d = 0; d < dim; ++d) sum[d] += weight * token[d];
      }
      float* dst = cache.data() + slots[b] * row + n * dim;
      for (int64_t d = 0; d < dim; ++d) dst[d] = static_cast<float>(sum[d]);
    });
    ScatterFrom(cache.data(), ComputeType::kFloat32, out);
    return ACLNN_SUCCESS;
  }
};

}  // namespace

// The window both forms slide: compressBlockSize a multiple of 16 up to `max_block`, compressStride a multiple of 16
// up to it, weight [compressBlockSize, N]; else the rejection by `reject` (each page's status for them).
static aclnnStatus ReadWindow(const Call& call, const FamilySpec& family, const ParamRejecter& reject,
                              const TensorDesc* weight, int64_t heads, int64_t max_block, int64_t* block,
                              int64_t* stride) {
  *block = RoleInt(call, family, F::Role::kBlockSize, 0);
  if (*block < 16 || *block % 16 != 0 || *block > max_block) {
    return reject(F::Role::kBlockSize, std::to_string(*block) + " is not a multiple of 16 up to " + std::to_string(max_block));
  }
  *stride = RoleInt(call, family, F::Role::kStride, 0);
  if (*stride < 16 || *stride % 16 != 0 || *stride > *block) {
    return reject(F::Role::kStride, std::to_string(*stride) + " is not a multiple of 16 up to compressBlockSize " +
                                        std::to_string(*block));
  }
  if (weight->view != Dims{*block, heads}) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [compressBlockSize, N] " +
                                        DimsText(Dims{*block, heads}));
  }
  return ACLNN_SUCCESS;
}

// aclnnNsaCompressWithCache's phase 1: the paged cache [blocks, pageBlockSize, N, D] with a block table [B, blocks
// per batch], or packed TND tokens without one; per-batch lengths, slotMapping [B], outputCache [rows, N, D].
static aclnnStatus PlanNsaCompressCache(const Call& call, const FamilySpec& family, const TensorDesc* input,
                                        const TensorDesc* weight, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  // The page's 561002 rows: input and weight's broadcast relation, headDim, compressBlockSize and compressStride,
  // pageBlockSize.
  const ParamRejecter tiling(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  const TensorDesc* slots = RoleTensor(call, family, F::Role::kSlots);
  const TensorDesc* table = RoleTensor(call, family, F::Role::kBlockTable);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!slots || !out) return Decline(call, work, "without its tensors");
  const bool paged = table != nullptr;
  if (!paged) {
    const std::string layout = RoleText(call, family, F::Role::kLayout);
    if (layout != "TND") {
      return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue,
                         "\"" + layout + "\" is not TND, the only layout the page supports without blockTableOptional");
    }
  }
  const size_t rank = paged ? 4 : 3;
  if (input->view.size() != rank) {
    return tiling(F::Role::kInput, "shape " + DimsText(input->view) +
                                       (paged ? " is not [blockNum, pageBlockSize, N, D] (with blockTableOptional)"
                                              : " is not [T, N, D] (TND, without blockTableOptional)"));
  }
  const int64_t heads = input->view[rank - 2], dim = input->view[rank - 1];
  if (heads > kMaxCacheHeads || (heads > 50 && heads % 2 != 0) || dim % 16 != 0 || dim > kMaxHeadDim) {
    return tiling(F::Role::kInput, "shape " + DimsText(input->view) +
                                       ": the page wants N up to 64 (even past 50) and D a multiple of 16 up to 256");
  }
  const int64_t page = RoleInt(call, family, F::Role::kPageBlock, 0);
  if (paged && input->view[1] != page) {
    return tiling(F::Role::kPageBlock, std::to_string(page) + " is not input's page of " + std::to_string(input->view[1]) +
                                           " tokens ([blockNum, pageBlockSize, N, D])");
  }
  int64_t block = 0, stride = 0;
  if (aclnnStatus s = ReadWindow(call, family, tiling, weight, heads, kMaxCacheBlockSize, &block, &stride)) return s;
  for (const auto& [role, t] : {std::pair<int, const TensorDesc*>{F::Role::kWeight, weight}, {F::Role::kOut, out}}) {
    if (t->dtype != input->dtype) {
      return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not input's " + DTypeName(input->dtype));
    }
  }
  auto made = std::make_unique<NsaCompressCacheWork>(call.spec.name);
  Dims& lengths = made->lengths;
  if (!RoleInts(call, family, F::Role::kSeqLens, &lengths) || lengths.empty()) {
    return reject(F::Role::kSeqLens, "is required (each batch's tokens)");
  }
  const int64_t batches = static_cast<int64_t>(lengths.size());
  int64_t total = 0;
  for (int64_t s : lengths) {
    if (s < 0) return reject(F::Role::kSeqLens, DimsText(lengths) + " holds a negative length");
    total += s;
  }
  if (!paged && total != input->view[0]) {
    return reject(F::Role::kSeqLens, DimsText(lengths) + " sums to " + std::to_string(total) + ", not input's T " +
                                         std::to_string(input->view[0]));
  }
  if (slots->view != Dims{batches}) {
    return reject(F::Role::kSlots, "shape " + DimsText(slots->view) + " is not [B] " + DimsText(Dims{batches}) +
                                       " (one slot per batch of actSeqLenOptional)");
  }
  if (paged && (table->view.size() != 2 || table->view[0] != batches)) {
    return reject(F::Role::kBlockTable, "shape " + DimsText(table->view) + " is not [B, blocks per batch] with B " +
                                            std::to_string(batches));
  }
  if (out->view.size() != 3 || out->view[1] != heads || out->view[2] != dim) {
    return reject(F::Role::kOut, "shape " + DimsText(out->view) + " is not [rows, N, D] with input's N " +
                                     std::to_string(heads) + " and D " + std::to_string(dim));
  }
  made->heads = heads, made->dim = dim, made->block = block, made->stride = stride, made->page = paged ? page : 0;
  made->tensor(kInput).Set(RoleName(call, family, F::Role::kInput), *input);
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  made->tensor(kSlotMapping).Set(RoleName(call, family, F::Role::kSlots), *slots);
  if (paged) made->tensor(kBlockTable).Set(RoleName(call, family, F::Role::kBlockTable), *table);
  made->tensor(kOut).Set(RoleName(call, family, F::Role::kOut), *out);
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanNsaCompress(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* input = RoleTensor(call, family, F::Role::kInput);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  if (family.op == F::Op::kCompressCache) {
    if (!input || !weight) return Decline(call, work, "without its tensors");
    return PlanNsaCompressCache(call, family, input, weight, work);
  }
  const bool grad = family.op == F::Op::kCompressGrad;
  for (int role : {F::Role::kOut, F::Role::kGrad, F::Role::kInputGrad, F::Role::kWeightGrad}) {
    if ((role == F::Role::kOut) != grad && !RoleTensor(call, family, role)) return Decline(call, work, "without its tensors");
  }
  if (!input || !weight) return Decline(call, work, "without its tensors");
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
  int64_t block = 0, stride = 0;
  if (aclnnStatus s = ReadWindow(call, family, reject, weight, heads, kMaxBlockSize, &block, &stride)) return s;
  if (weight->dtype != input->dtype) {
    return reject(F::Role::kWeight, std::string("dtype ") + DTypeName(weight->dtype) + " is not input's " +
                                        DTypeName(input->dtype));
  }
  auto made = std::make_unique<NsaCompressWork>(call.spec.name, grad);
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
  const Dims windows{made->windows, heads, dim};
  // The tensors each op reads or writes besides input and weight: its role, slot, shape and whether written.
  const struct {
    int role, slot;
    const Dims& shape;
    const char* what;
    bool output;
  } kept[] = {
      {F::Role::kOut, kOut, windows, "[the windows, N, D]", true},
      {F::Role::kGrad, kGrad, windows, "[the windows, N, D]", false},
      {F::Role::kInputGrad, kInputGrad, input->view, "input's shape", true},
      {F::Role::kWeightGrad, kWeightGrad, weight->view, "weight's shape", true},
  };
  for (const auto& k : kept) {
    if ((k.role == F::Role::kOut) == grad) continue;
    const TensorDesc* t = RoleTensor(call, family, k.role);
    if (t->dtype != input->dtype) {
      return reject(k.role, std::string("dtype ") + DTypeName(t->dtype) + " is not input's " + DTypeName(input->dtype));
    }
    if (k.output) {
      if (aclnnStatus s = made->KeepOutput(call, family, k.role, *t, k.shape, k.what, k.slot)) return s;
    } else if (t->view != k.shape) {
      return reject(k.role, "shape " + DimsText(t->view) + " is not " + k.what + " " + DimsText(k.shape));
    } else {
      made->tensor(k.slot).Set(RoleName(call, family, k.role), *t);
    }
  }
  made->heads = heads, made->dim = dim, made->block = block, made->stride = stride;
  made->tensor(kInput).Set(RoleName(call, family, F::Role::kInput), *input);
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
