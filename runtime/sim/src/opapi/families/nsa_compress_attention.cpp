// The nsa_compress_attention family: Native Sparse Attention's attention over the compressed keys and the choice of
// the blocks the selected attention reads (aclnnNsaCompressAttentionInfer, torch_npu.npu_nsa_compress_attention_infer).
// The page's formula, l compressBlockSize, d compressBlockStride, l' selectBlockSize, G = numHeads / numKeyValueHeads:
//   P_cmp        = softmax(scaleValue * q K^T)          over batch b's C = actualCmpKvSeqLenOptional[b] compressed keys
//   attentionOut = P_cmp V
//   P_slc[j]     = sum over m < l'/d, i < l/d of P_cmp[l'/d * j - m - i]
//   P_slc'       = sum of P_slc over the G query heads of a key/value head
//   topkIndices  = topk(P_slc'), selectBlockCount of them
// per batch b (single-token inference: one query token per batch, TND [B, N, D] or BSND [B, 1, N, D]) and query head
// n (key/value head n / G). Key p of batch b is row p % P of block blockTableOptional[b, p / P] of the paged cache
// [numBlocks, P, numKeyValueHeads * D] (P pageBlockSize), head h its columns h * D .. (h + 1) * D - 1.
// What the page leaves open, settled here with its evidence (semantics/nsa_compress_attention.toml says more):
// - the select blocks j: 0 <= j < ceil(C / (l'/d)), the sibling training page's SelSkv = CeilDiv(CmpSkv,
//   selectBlockSize // compressStride), which makes the leading index l'/d * j always one of P_cmp's C; an index
//   below 0 names no compressed key and adds nothing (P_cmp is a distribution over the C keys alone);
// - topkIndices: the blocks of highest importance, highest first, as the formula's topk gives them (torch.topk,
//   sorted); two equal importances among the chosen or at the last one chosen would make the order or the choice
//   depend on an unstated tie rule: phase 2 fails naming them, as the NMS operators do;
// - no fixed initial or local block is forced in: the formula's topk has none, and the page's topKMaskOptional,
//   which could bring them, is reserved;
// - the mask, the multi-token form (actualQSeqLenOptional, a query S above 1), actualSelKvSeqLenOptional and a
//   sparseMode but 0 are refused by the semantics file and phase 1: torch_npu documents them as not supported, and
//   the page does not say which positions the mask removes.
// Phase 1 enforces the page's 约束说明 (block sizes and strides from its sets, G dividing 128, D_qk <= 192 >= D_v,
// D_v <= 128, the table covering each batch's keys, selectBlockCount within the uncompressed length's blocks); a
// block outside the cache fails phase 2 naming it. FLOAT16 and BFLOAT16 compute in float with double accumulation.
#include <algorithm>
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

using F = NsaCompressAttentionFamily;

enum Slot { kQ, kK, kV, kTable, kOut, kTopk, kSlots };

constexpr int64_t kMaxHeadDimQk = 192;  // 约束说明: query/key D <= 192, value D <= 128
constexpr int64_t kMaxHeadDimV = 128;
constexpr int64_t kMaxSelectBlocks = 4096;  // actualSelKvSeqLenCeil / selectBlockSize <= 4096

class NsaCompressAttentionWork final : public FamilyWork {
 public:
  explicit NsaCompressAttentionWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t heads = 0, kv_heads = 0, dqk = 0, dv = 0, page = 0, count = 0, ratio = 0, span = 0;
  double scale = 1.0;
  Dims lengths;  // each batch's compressed keys

 private:
  aclnnStatus Compute() override {
    const int64_t batches = static_cast<int64_t>(lengths.size());
    const int64_t* table = IndexValues(tensor(kTable), 0);
    const int64_t per_batch = tensor(kTable).shape[1], cache_blocks = tensor(kK).shape[0];
    for (int64_t b = 0; b < batches; ++b) {
      const std::string missing = PagedBlocksMissing(tensor(kTable).name, table, per_batch, page, tensor(kK).name,
                                                     cache_blocks, "actualCmpKvSeqLenOptional", b, lengths[b], 0,
                                                     lengths[b]);
      if (!missing.empty()) return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + missing);
    }
    const float* q = static_cast<const float*>(ContiguousAs(tensor(kQ), ComputeType::kFloat32, 1));
    const float* k = static_cast<const float*>(ContiguousAs(tensor(kK), ComputeType::kFloat32, 2));
    const float* v = static_cast<const float*>(ContiguousAs(tensor(kV), ComputeType::kFloat32, 3));
    const int64_t group = heads / kv_heads;
    std::vector<float> out(static_cast<size_t>(batches * heads * dv));
    std::vector<int64_t> chosen(static_cast<size_t>(batches * kv_heads * count));
    std::vector<std::string> ties(static_cast<size_t>(batches * kv_heads));
    // One task per batch and key/value head: its group's query heads attend, and their importances add up.
    ParallelFor(batches * kv_heads, [&](int64_t task) {
      const int64_t b = task / kv_heads, h = task % kv_heads, keys = lengths[b];
      const int64_t blocks = (keys + ratio - 1) / ratio;
      std::vector<double> s(static_cast<size_t>(keys)), o(static_cast<size_t>(dv)), importance(blocks, 0.0);
      for (int64_t n = h * group; n < (h + 1) * group; ++n) {
        const float* qi = q + (b * heads + n) * dqk;
        for (int64_t p = 0; p < keys; ++p) {
          const float* kp = k + PagedRow(table, per_batch, page, b, p) * kv_heads * dqk + h * dqk;
          double dot = 0;
          for (int64_t d = 0; d < dqk; ++d) dot += static_cast<double>(qi[d]) * kp[d];
          s[p] = scale * dot;
        }
        double mx = 0;
        const double total = AttendRow(s.data(), keys, dv, [&](int64_t p) {
          return v + PagedRow(table, per_batch, page, b, p) * kv_heads * dv + h * dv;
        }, o.data(), &mx);
        std::transform(o.begin(), o.end(), out.begin() + (b * heads + n) * dv, [](double x) { return static_cast<float>(x); });
        // P_slc[j]: the terms l'/d * j - r for r < span with their multiplicity (pairs m + i = r), those below 0 none.
        for (int64_t j = 0; j < blocks; ++j) {
          for (int64_t m = 0; m < ratio; ++m) {
            for (int64_t i = 0; i < span; ++i) {
              const int64_t at = ratio * j - m - i;
              if (at >= 0) importance[j] += s[at] / total;
            }
          }
        }
      }
      std::vector<int64_t> order(static_cast<size_t>(blocks));
      for (int64_t j = 0; j < blocks; ++j) order[j] = j;
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return importance[x] > importance[y]; });
      for (int64_t c = 0; c < count; ++c) {
        // A chosen block equal to the next one in the order: the page does not say which comes first or is kept.
        if (c + 1 < blocks && importance[order[c]] == importance[order[c + 1]]) {
          ties[task] = "batch " + std::to_string(b) + ", key/value head " + std::to_string(h) + ": select blocks " +
                       std::to_string(order[c]) + " and " + std::to_string(order[c + 1]) +
                       " have equal importance, and the page does not say how topk orders or breaks a tie";
          return;
        }
        chosen[task * count + c] = order[c];
      }
    });
    for (const std::string& tie : ties) {
      if (!tie.empty()) return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tie);
    }
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    ScatterFrom(chosen.data(), ComputeType::kInt64, tensor(kTopk));
    return ACLNN_SUCCESS;
  }
};

// Whether `x` is one of the page's sizes: a multiple of 16 from 16 up to `max`.
bool SixteenStep(int64_t x, int64_t max) { return x >= 16 && x <= max && x % 16 == 0; }

}  // namespace

aclnnStatus PlanNsaCompressAttention(const Call& call, const FamilySpec& family, ExecutorWork** work,
                                     uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* value = RoleTensor(call, family, F::Role::kValue);
  const TensorDesc* table = RoleTensor(call, family, F::Role::kBlockTable);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kAttention);
  const TensorDesc* topk = RoleTensor(call, family, F::Role::kTopkIndices);
  if (!query || !key || !value || !out || !topk) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  if (!table) return reject(F::Role::kBlockTable, "is required: the page supports paged attention only");
  // What torch_npu documents as not supported now and the page leaves open (which positions the masks remove, the
  // multi-token form's causal offsets): refused by name rather than guessed.
  for (int role : {F::Role::kAttenMask, F::Role::kTopkMask}) {
    if (RoleTensor(call, family, role)) return reject(role, "is not simulated: the page does not say which positions it masks");
  }
  // op-plugin passes an absent actual_sel_seq_kvlen as an empty array.
  for (int role : {F::Role::kActualQ, F::Role::kActualSelKv}) {
    Dims given;
    if (RoleInts(call, family, role, &given) && !given.empty()) {
      return reject(role, "is not simulated: it selects the multi-token form, whose mask and positions the page leaves open");
    }
  }
  if (topk->dtype != ACL_INT32) {
    return reject(F::Role::kTopkIndices, std::string("dtype ") + DTypeName(topk->dtype) + " is not INT32");
  }
  const std::string layout = RoleText(call, family, F::Role::kLayout);
  if (layout != "TND" && layout != "BSND") {
    return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue,
                       "\"" + layout + "\" is not TND or BSND, the layouts the page supports");
  }
  const bool bsnd = layout == "BSND";
  const size_t rank = bsnd ? 4 : 3;
  if (query->view.size() != rank || (bsnd && query->view[1] != 1)) {
    return reject(F::Role::kQuery, "shape " + DimsText(query->view) +
                                       (bsnd ? " is not [B, 1, N, D] (BSND; a query S above 1, the multi-token form, is not simulated)"
                                             : " is not [B, N, D] (TND, one token per batch)"));
  }
  for (int role : {F::Role::kKey, F::Role::kValue}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (t->view.size() != 3) return reject(role, "shape " + DimsText(t->view) + " is not [numBlocks, blockSize, H]");
    if (t->dtype != query->dtype) {
      return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not query's " + DTypeName(query->dtype));
    }
  }
  const int64_t batches = query->view[0], heads = query->view[rank - 2], dqk = query->view[rank - 1];
  if (RoleInt(call, family, F::Role::kHeadNum, 0) != heads) {
    return reject(F::Role::kHeadNum, std::to_string(RoleInt(call, family, F::Role::kHeadNum, 0)) +
                                         " is not query's N " + std::to_string(heads));
  }
  const int64_t kv_heads = RoleInt(call, family, F::Role::kKvHeadNum, 0);
  if (kv_heads < 1 || heads % kv_heads != 0 || 128 % (heads / kv_heads) != 0) {
    return reject(F::Role::kKvHeadNum, std::to_string(kv_heads) + " does not divide numHeads " + std::to_string(heads) +
                                           " into groups that divide 128");
  }
  if (dqk < 1 || dqk > kMaxHeadDimQk || key->view[2] != kv_heads * dqk) {
    return reject(F::Role::kKey, "shape " + DimsText(key->view) + " is not [numBlocks, blockSize, numKeyValueHeads * D] "
                                     "with query's D " + std::to_string(dqk) + " (at most 192)");
  }
  const int64_t dv = value->view[2] / kv_heads;
  if (value->view[2] % kv_heads != 0 || dv < 1 || dv > kMaxHeadDimV || dv > dqk || value->view[0] != key->view[0] ||
      value->view[1] != key->view[1]) {
    return reject(F::Role::kValue, "shape " + DimsText(value->view) + " is not key's [numBlocks, blockSize] by "
                                       "numKeyValueHeads * D_v with D_v at most 128 and query's D");
  }
  const int64_t page = RoleInt(call, family, F::Role::kPageBlock, 0);
  if (key->view[1] != page || !SixteenStep(page, 128)) {
    return reject(F::Role::kPageBlock, std::to_string(page) + " is not key's blockSize " + std::to_string(key->view[1]) +
                                           " or not a multiple of 16 up to 128");
  }
  const int64_t stride = RoleInt(call, family, F::Role::kCompressStride, 0);
  if (!SixteenStep(stride, 64)) {
    return reject(F::Role::kCompressStride, std::to_string(stride) + " is not one of 16, 32, 48, 64");
  }
  const int64_t cmp_block = RoleInt(call, family, F::Role::kCompressBlock, 0);
  if (!SixteenStep(cmp_block, 128) || cmp_block < stride) {
    return reject(F::Role::kCompressBlock, std::to_string(cmp_block) +
                                               " is not one of 16, 32, ..., 128 at least compressBlockStride");
  }
  const int64_t sel_block = RoleInt(call, family, F::Role::kSelectBlock, 0);
  if (!SixteenStep(sel_block, 128) || sel_block < cmp_block || sel_block % stride != 0) {
    return reject(F::Role::kSelectBlock, std::to_string(sel_block) + " is not one of 16, 32, ..., 128 at least "
                                             "compressBlockSize and a multiple of compressBlockStride");
  }
  // The select and compression spans must be whole strides for the formula's l'/d and l/d.
  if (cmp_block % stride != 0) {
    return reject(F::Role::kCompressBlock, std::to_string(cmp_block) + " is not a multiple of compressBlockStride " +
                                               std::to_string(stride) + ", which the formula's l/d needs");
  }
  if (RoleInt(call, family, F::Role::kSparseMode, 0) != 0) {
    return reject(F::Role::kSparseMode, std::to_string(RoleInt(call, family, F::Role::kSparseMode, 0)) +
                                            " is not simulated: it shapes the mask, which is not (op-plugin passes 0)");
  }
  auto made = std::make_unique<NsaCompressAttentionWork>(call.spec.name);
  Dims& lengths = made->lengths;
  if (!RoleInts(call, family, F::Role::kActualCmpKv, &lengths) || static_cast<int64_t>(lengths.size()) != batches) {
    return reject(F::Role::kActualCmpKv, "is required, one length per batch (query's B " + std::to_string(batches) + ")");
  }
  if (table->view.size() != 2 || table->view[0] != batches) {
    return reject(F::Role::kBlockTable, "shape " + DimsText(table->view) + " is not [B, blocks per batch] with B " +
                                            std::to_string(batches));
  }
  const int64_t count = RoleInt(call, family, F::Role::kSelectCount, 0);
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int64_t c = lengths[b];
    const std::string at = "[" + std::to_string(b) + "] = " + std::to_string(c);
    if (c < 1) return reject(F::Role::kActualCmpKv, at + " is not a positive count of compressed keys");
    if ((c + page - 1) / page > table->view[1]) {
      return reject(F::Role::kActualCmpKv, at + " needs more than the " + std::to_string(table->view[1]) +
                                               " blocks of " + std::to_string(page) + " keys blockTableOptional gives");
    }
    // The page's actualSelKvSeqLenCeil = (C - 1) * stride + compressBlockSize, over selectBlockSize.
    const int64_t ceil_blocks = ((c - 1) * stride + cmp_block) / sel_block;
    if (ceil_blocks > kMaxSelectBlocks || count < 1 || count > ceil_blocks) {
      return reject(F::Role::kSelectCount, std::to_string(count) + " is not in [1, actualSelKvSeqLenCeil / "
                                               "selectBlockSize] = [1, " + std::to_string(ceil_blocks) +
                                               "] (at most 4096) for batch " + std::to_string(b));
    }
  }
  const Dims out_shape = bsnd ? Dims{batches, 1, heads, dv} : Dims{batches, heads, dv};
  const Dims topk_shape = bsnd ? Dims{batches, 1, kv_heads, count} : Dims{batches, kv_heads, count};
  if (out->dtype != query->dtype) {
    return reject(F::Role::kAttention, std::string("dtype ") + DTypeName(out->dtype) + " is not query's " +
                                           DTypeName(query->dtype));
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAttention, *out, out_shape, "query's with value's D", kOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kTopkIndices, *topk, topk_shape,
                                       "[B, numKeyValueHeads, selectBlockCount]", kTopk)) {
    return s;
  }
  made->heads = heads, made->kv_heads = kv_heads, made->dqk = dqk, made->dv = dv, made->page = page;
  made->count = count, made->ratio = sel_block / stride, made->span = cmp_block / stride;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  made->tensor(kTable).Set(RoleName(call, family, F::Role::kBlockTable), *table);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
