// The nsa_compress_attention family: Native Sparse Attention's attention over the compressed keys and the choice of
// the blocks the selected attention reads, in training (aclnnNsaCompressAttention, torch_npu.npu_nsa_compress_attention)
// and inference (aclnnNsaCompressAttentionInfer, npu_nsa_compress_attention_infer). The pages' formulas, l
// compressBlockSize, d the compress stride, l' selectBlockSize, G = N_q / N_kv query heads sharing a key/value head:
//   attentionOut = softmax(scaleValue * q K^T) V     (training: atten_mask's true positions removed from the softmax)
//   P_cmp        = softmax(scaleValue * q K^T)       (inference; training: softmax(q K^T), neither scaled nor masked)
//   P_slc[j]     = sum over m < l'/d, i < l/d of P_cmp[l'/d * j - m - i]
//   P_slc'       = sum of P_slc over the G query heads of a key/value head
//   topkIndices  = topk(P_slc'), selectBlockCount of them
// per query token and head. Training (TND only): the token's sequence's compressed keys (actualCmpSeqKvLenOptional's
// cumulative ends), attenMaskOptional [max Sq, max CmpSkv] read from its top-left per sequence, softmaxMax / Sum
// the attention's max and sum of exp(S - max), 8 times. Inference (one query token per batch, TND [B, N, D] or BSND
// [B, 1, N, D]): batch b's C = actualCmpKvSeqLenOptional[b] keys, key p row p % P of block blockTableOptional[b, p / P]
// of the paged cache [numBlocks, P, N_kv * D] (P pageBlockSize), head h its columns h * D .. (h + 1) * D - 1.
// What the pages leave open, settled here with their evidence (semantics/nsa_compress_attention.toml says more):
// - the select blocks j: 0 <= j < ceil(C / (l'/d)), the training page's SelSkv = CeilDiv(CmpSkv,
//   selectBlockSize // compressStride), which makes the leading index l'/d * j always one of P_cmp's C; an index
//   below 0 names no compressed key and adds nothing (P_cmp is a distribution over the C keys alone);
// - topkIndices: the blocks of highest importance, highest first, as the formula's topk gives them (torch.topk,
//   sorted); two equal importances among the chosen or at the last one chosen would make the order or the choice
//   depend on an unstated tie rule: phase 2 fails naming them, as the NMS operators do;
// - no fixed initial or local block is forced in: the formulas' topk has none; the inference page's topKMaskOptional
//   is reserved, and the training page's topkMaskOptional, which could bring them, is refused (whether a true
//   position removes a block or forces it in is not said), as is training's sparseMode 0;
// - inference's mask, multi-token form (actualQSeqLenOptional, a query S above 1), actualSelKvSeqLenOptional and a
//   sparseMode but 0 are refused: torch_npu documents them as not supported, and the page does not say which
//   positions the mask removes.
// Phase 1 enforces the pages' 约束说明 (block sizes and strides from their sets, the group sizes, head dimensions,
// sequence lengths and selectBlockCount's bounds); a block outside the cache and a token the mask leaves without
// keys fail phase 2 naming them. FLOAT16 and BFLOAT16 compute in float with double accumulation.
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

enum Slot { kQ, kK, kV, kTable, kOut, kTopk, kMask, kMax, kSum, kSlots };

constexpr int64_t kMaxHeadDimQk = 192;  // 约束说明: query/key D <= 192, value D <= 128
constexpr int64_t kMaxHeadDimV = 128;
constexpr int64_t kMaxSelectBlocks = 4096;  // actualSelKvSeqLenCeil / selectBlockSize <= 4096
constexpr int64_t kStatWidth = 8;           // the training form's statistics repeat each row's value 8 times
constexpr int64_t kMaxCmpKeys = 14000;      // the training page: CmpSkv <= 14000
constexpr int64_t kMaxTrainCount = 32;      // the training page: selectBlockCount in [1, 32]

// P_slc[j] += sum over m < ratio (l'/d), i < span (l/d) of P[ratio * j - m - i], P[p] = e[p] / total over `keys`
// keys, for every select block j < ceil(keys / ratio): an index below 0 names no compressed key and adds nothing.
void AddImportance(const double* e, double total, int64_t keys, int64_t ratio, int64_t span, double* importance) {
  for (int64_t j = 0; j < (keys + ratio - 1) / ratio; ++j) {
    for (int64_t m = 0; m < ratio; ++m) {
      for (int64_t i = 0; i < span; ++i) {
        const int64_t at = ratio * j - m - i;
        if (at >= 0) importance[j] += e[at] / total;
      }
    }
  }
}

// The `count` blocks of highest importance into chosen, highest first; empty, or why not (of `whose` importances):
// a chosen block equal to the next in the order, since the page does not say which comes first or is kept.
std::string ChooseBlocks(const std::vector<double>& importance, int64_t count, int64_t* chosen, const std::string& whose) {
  const int64_t blocks = static_cast<int64_t>(importance.size());
  std::vector<int64_t> order(static_cast<size_t>(blocks));
  for (int64_t j = 0; j < blocks; ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return importance[x] > importance[y]; });
  for (int64_t c = 0; c < count; ++c) {
    if (c + 1 < blocks && importance[order[c]] == importance[order[c + 1]]) {
      return whose + ": select blocks " + std::to_string(order[c]) + " and " + std::to_string(order[c + 1]) +
             " have equal importance, and the page does not say how topk orders or breaks a tie";
    }
    chosen[c] = order[c];
  }
  return {};
}

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
        AddImportance(s.data(), total, keys, ratio, span, importance.data());
      }
      ties[task] = ChooseBlocks(importance, count, chosen.data() + task * count,
                                "batch " + std::to_string(b) + ", key/value head " + std::to_string(h));
    });
    for (const std::string& tie : ties) {
      if (!tie.empty()) return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tie);
    }
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    ScatterFrom(chosen.data(), ComputeType::kInt64, tensor(kTopk));
    return ACLNN_SUCCESS;
  }
};

// aclnnNsaCompressAttention's work, TND: query [T, N, D], key [T_k, N_kv, D], value [T_k, N_kv, D_v], the sequences'
// cumulative ends; mask_cols 0 without attenMaskOptional, else its [max Sq, max CmpSkv] row length.
class NsaCompressAttentionTrainWork final : public FamilyWork {
 public:
  explicit NsaCompressAttentionTrainWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t heads = 0, kv_heads = 0, dqk = 0, dv = 0, count = 0, ratio = 0, span = 0, mask_cols = 0;
  double scale = 1.0;
  Dims q_ends, kv_ends;

 private:
  aclnnStatus Compute() override {
    const int64_t tokens = q_ends.back();
    if (tokens == 0) return ACLNN_SUCCESS;
    const int64_t* mask = mask_cols ? IndexValues(tensor(kMask), 0) : nullptr;
    const float* q = static_cast<const float*>(ContiguousAs(tensor(kQ), ComputeType::kFloat32, 1));
    const float* k = static_cast<const float*>(ContiguousAs(tensor(kK), ComputeType::kFloat32, 2));
    const float* v = static_cast<const float*>(ContiguousAs(tensor(kV), ComputeType::kFloat32, 3));
    std::vector<int64_t> sequence(static_cast<size_t>(tokens));
    for (size_t b = 0; b < q_ends.size(); ++b) {
      std::fill(sequence.begin() + (b ? q_ends[b - 1] : 0), sequence.begin() + q_ends[b], static_cast<int64_t>(b));
    }
    const int64_t group = heads / kv_heads;
    std::vector<float> out(static_cast<size_t>(tokens * heads * dv));
    std::vector<float> max(static_cast<size_t>(tokens * heads * kStatWidth)), sum(max.size());
    std::vector<int64_t> chosen(static_cast<size_t>(tokens * kv_heads * count));
    std::vector<std::string> failures(static_cast<size_t>(tokens * kv_heads));
    // One task per query token and key/value head: its group's query heads attend, and their importances add up.
    ParallelFor(tokens * kv_heads, [&](int64_t task) {
      const int64_t t = task / kv_heads, h = task % kv_heads, b = sequence[t];
      const int64_t row = t - (b ? q_ends[b - 1] : 0), k0 = b ? kv_ends[b - 1] : 0, keys = kv_ends[b] - k0;
      const std::string whose = "token " + std::to_string(t) + " (row " + std::to_string(row) + " of sequence " +
                                std::to_string(b) + "), key/value head " + std::to_string(h);
      // The keys the mask leaves to this token: attenMaskOptional true removes a position (torch_npu: 1 不参与计算).
      std::vector<int64_t> visible;
      for (int64_t p = 0; p < keys; ++p) {
        if (!mask || !mask[row * mask_cols + p]) visible.push_back(p);
      }
      if (visible.empty()) {
        failures[task] = whose + ": attenMaskOptional removes every key, which leaves its softmax undefined";
        return;
      }
      const int64_t seen = static_cast<int64_t>(visible.size());
      std::vector<double> raw(static_cast<size_t>(keys)), s(static_cast<size_t>(seen)), o(static_cast<size_t>(dv));
      std::vector<double> importance(static_cast<size_t>((keys + ratio - 1) / ratio), 0.0);
      for (int64_t n = h * group; n < (h + 1) * group; ++n) {
        const int64_t at = t * heads + n;
        const float* qi = q + at * dqk;
        for (int64_t p = 0; p < keys; ++p) {
          const float* kp = k + ((k0 + p) * kv_heads + h) * dqk;
          double dot = 0;
          for (int64_t d = 0; d < dqk; ++d) dot += static_cast<double>(qi[d]) * kp[d];
          raw[p] = dot;
        }
        for (int64_t j = 0; j < seen; ++j) s[j] = scale * raw[visible[j]];
        double mx = 0;
        const double total = AttendRow(s.data(), seen, dv, [&](int64_t j) {
          return v + ((k0 + visible[j]) * kv_heads + h) * dv;
        }, o.data(), &mx);
        std::transform(o.begin(), o.end(), out.begin() + at * dv, [](double x) { return static_cast<float>(x); });
        std::fill_n(max.begin() + at * kStatWidth, kStatWidth, static_cast<float>(mx));
        std::fill_n(sum.begin() + at * kStatWidth, kStatWidth, static_cast<float>(total));
        // P_cmp as the page writes it: Softmax(query * key^T), neither scaled nor masked.
        const double top = RowMax(raw.data(), static_cast<int64_t>(raw.size()));
        double whole = 0;
        for (double& x : raw) whole += x = std::exp(x - top);
        AddImportance(raw.data(), whole, keys, ratio, span, importance.data());
      }
      failures[task] = ChooseBlocks(importance, count, chosen.data() + task * count, whose);
    });
    for (const std::string& failure : failures) {
      if (!failure.empty()) return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + failure);
    }
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    ScatterFrom(max.data(), ComputeType::kFloat32, tensor(kMax));
    ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kSum));
    ScatterFrom(chosen.data(), ComputeType::kInt64, tensor(kTopk));
    return ACLNN_SUCCESS;
  }
};

// Whether `x` is one of the page's sizes: a multiple of 16 from 16 up to `max`.
bool SixteenStep(int64_t x, int64_t max) { return x >= 16 && x <= max && x % 16 == 0; }

// The three block sizes both pages bound alike: compressBlockStride one of 16, 32, 48, 64; compressBlockSize one of
// 16, 32, ..., 128 at least the stride; selectBlockSize one of those at least compressBlockSize and a multiple of the
// stride; and compressBlockSize a multiple of the stride too, for the formula's l/d. *ratio = l'/d, *span = l/d.
aclnnStatus ReadBlockSizes(const Call& call, const FamilySpec& family, const ParamRejecter& reject, int64_t* ratio,
                           int64_t* span) {
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
  *ratio = sel_block / stride, *span = cmp_block / stride;
  return ACLNN_SUCCESS;
}


}  // namespace

// aclnnNsaCompressAttentionInfer's phase 1.
static aclnnStatus PlanInfer(const Call& call, const FamilySpec& family, ExecutorWork** work) {
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
  int64_t ratio = 0, span = 0;
  if (aclnnStatus st = ReadBlockSizes(call, family, reject, &ratio, &span)) return st;
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
    const int64_t ceil_blocks = ((c - 1) + span) / ratio;
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
  made->count = count, made->ratio = ratio, made->span = span;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  made->tensor(kTable).Set(RoleName(call, family, F::Role::kBlockTable), *table);
  *work = made.release();
  return ACLNN_SUCCESS;
}

// aclnnNsaCompressAttention's phase 1 (TND only, the page's 约束说明).
static aclnnStatus PlanTrain(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* value = RoleTensor(call, family, F::Role::kValue);
  const TensorDesc* mask = RoleTensor(call, family, F::Role::kAttenMask);
  for (int role : {F::Role::kAttention, F::Role::kTopkIndices, F::Role::kSoftmaxMax, F::Role::kSoftmaxSum}) {
    if (!RoleTensor(call, family, role)) return Decline(call, work, "without its tensors");
  }
  if (!query || !key || !value) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  // Whether a true topk_mask position excludes a block or forces it in (the NSA paper's initial and local blocks) the
  // page leaves open: refused rather than guessed.
  if (RoleTensor(call, family, F::Role::kTopkMask)) {
    return reject(F::Role::kTopkMask, "is not simulated: the page does not say whether a true position removes a block "
                                      "from topk or forces it in");
  }
  const std::string layout = RoleText(call, family, F::Role::kLayout);
  if (layout != "TND") {
    return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue, "\"" + layout + "\" is not TND, the only layout the page supports");
  }
  const int64_t sparse = RoleInt(call, family, F::Role::kSparseMode, 0);
  if (sparse != 1) {
    return reject(F::Role::kSparseMode, std::to_string(sparse) + (sparse == 0 ? " is not simulated: op-plugin passes 1, "
                                            "torch_npu documents 1 alone, and the page does not say what 0 changes"
                                                                        : " is not 0 or 1 (the page's 仅支持0和1)"));
  }
  for (int role : {F::Role::kQuery, F::Role::kKey, F::Role::kValue}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (t->view.size() != 3) return reject(role, "shape " + DimsText(t->view) + " is not [T, N, D] (TND)");
    if (t->dtype != query->dtype) {
      return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not query's " + DTypeName(query->dtype));
    }
  }
  const int64_t tokens = query->view[0], heads = query->view[1], dqk = query->view[2];
  const int64_t kv_tokens = key->view[0], kv_heads = key->view[1], dv = value->view[2];
  if (RoleInt(call, family, F::Role::kHeadNum, 0) != heads) {
    return reject(F::Role::kHeadNum, std::to_string(RoleInt(call, family, F::Role::kHeadNum, 0)) +
                                         " is not query's N " + std::to_string(heads));
  }
  if (kv_heads < 1 || heads % kv_heads != 0 || heads / kv_heads >= 128 || 128 % (heads / kv_heads) != 0) {
    return reject(F::Role::kKey, "N " + std::to_string(kv_heads) + " does not divide query's N " + std::to_string(heads) +
                                     " into groups G < 128 that divide 128");
  }
  if (key->view[2] != dqk || value->view[0] != kv_tokens || value->view[1] != kv_heads || dv > dqk) {
    return reject(key->view[2] != dqk ? F::Role::kKey : F::Role::kValue,
                  "shapes " + DimsText(key->view) + " and " + DimsText(value->view) + " are not [T_k, N_kv, query's D " +
                      std::to_string(dqk) + "] and [T_k, N_kv, D_v <= D]");
  }
  int64_t ratio = 0, span = 0;
  if (aclnnStatus st = ReadBlockSizes(call, family, reject, &ratio, &span)) return st;
  const int64_t count = RoleInt(call, family, F::Role::kSelectCount, 0);
  if (count < 1 || count > kMaxTrainCount) return reject(F::Role::kSelectCount, std::to_string(count) + " is not in [1, 32]");
  auto made = std::make_unique<NsaCompressAttentionTrainWork>(call.spec.name);
  if (aclnnStatus st = ReadSequenceEnds(call, family, F::Role::kActualQ, tokens, &made->q_ends)) return st;
  if (aclnnStatus st = ReadSequenceEnds(call, family, F::Role::kActualCmpKv, kv_tokens, &made->kv_ends)) return st;
  // The select blocks end where the page's SelSkv = CeilDiv(CmpSkv, selectBlockSize // compressStride) puts them.
  int64_t sel_total = 0;
  for (size_t b = 0; b < made->kv_ends.size(); ++b) {
    sel_total += (made->kv_ends[b] - (b ? made->kv_ends[b - 1] : 0) + ratio - 1) / ratio;
  }
  Dims sel_ends;
  if (aclnnStatus st = ReadSequenceEnds(call, family, F::Role::kActualSelKv, sel_total, &sel_ends)) return st;
  const size_t sequences = made->q_ends.size();
  if (made->kv_ends.size() != sequences || sel_ends.size() != sequences) {
    return reject(made->kv_ends.size() != sequences ? F::Role::kActualCmpKv : F::Role::kActualSelKv,
                  "has not as many sequences as actualSeqQLenOptional " + DimsText(made->q_ends));
  }
  int64_t max_q = 0, max_keys = 0;
  for (size_t b = 0; b < sequences; ++b) {
    const int64_t length = made->kv_ends[b] - (b ? made->kv_ends[b - 1] : 0);
    const int64_t selected = sel_ends[b] - (b ? sel_ends[b - 1] : 0);
    const std::string at = "sequence " + std::to_string(b);
    if (length < 1 || length > kMaxCmpKeys) {
      return reject(F::Role::kActualCmpKv, at + " has " + std::to_string(length) + " compressed keys, not in [1, 14000]");
    }
    if (selected != (length + ratio - 1) / ratio) {
      return reject(F::Role::kActualSelKv, at + " has " + std::to_string(selected) + " select blocks, not the page's "
                                               "SelSkv = CeilDiv(CmpSkv, selectBlockSize // compressStride) = " +
                                               std::to_string((length + ratio - 1) / ratio));
    }
    if (count > selected) {
      return reject(F::Role::kSelectCount, std::to_string(count) + " is more than " + at + "'s " +
                                               std::to_string(selected) + " select blocks (selectBlockCount <= min(SelSkv))");
    }
    max_q = std::max(max_q, made->q_ends[b] - (b ? made->q_ends[b - 1] : 0));
    max_keys = std::max(max_keys, length);
  }
  if (mask) {
    if (mask->view != Dims{max_q, max_keys}) {
      return reject(F::Role::kAttenMask, "shape " + DimsText(mask->view) + " is not [max(Sq), max(CmpSkv)] " +
                                             DimsText(Dims{max_q, max_keys}));
    }
    made->mask_cols = max_keys;
    made->tensor(kMask).Set(RoleName(call, family, F::Role::kAttenMask), *mask);
  }
  const struct {
    int role, slot;
    Dims shape;
    const char* what;
    aclDataType dtype;
  } outputs[] = {
      {F::Role::kSoftmaxMax, kMax, {tokens, heads, kStatWidth}, "[T, N, 8]", ACL_FLOAT},
      {F::Role::kSoftmaxSum, kSum, {tokens, heads, kStatWidth}, "[T, N, 8]", ACL_FLOAT},
      {F::Role::kAttention, kOut, {tokens, heads, dv}, "[T, N, value's D]", query->dtype},
      {F::Role::kTopkIndices, kTopk, {tokens, kv_heads, count}, "[T, N_kv, selectBlockCount]", ACL_INT32},
  };
  for (const auto& o : outputs) {
    const TensorDesc* t = RoleTensor(call, family, o.role);
    if (t->dtype != o.dtype) return reject(o.role, std::string("dtype ") + DTypeName(t->dtype) + " is not " + DTypeName(o.dtype));
    if (aclnnStatus st = made->KeepOutput(call, family, o.role, *t, o.shape, o.what, o.slot)) return st;
  }
  made->heads = heads, made->kv_heads = kv_heads, made->dqk = dqk, made->dv = dv, made->count = count;
  made->ratio = ratio, made->span = span;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanNsaCompressAttention(const Call& call, const FamilySpec& family, ExecutorWork** work,
                                     uint64_t* workspace) {
  *workspace = 0;
  return family.op == F::Op::kCompressAttention ? PlanTrain(call, family, work) : PlanInfer(call, family, work);
}

}  // namespace aclsim
