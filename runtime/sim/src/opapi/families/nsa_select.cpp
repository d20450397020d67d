// The nsa_select family: Native Sparse Attention's selected attention (aclnnNsaSelectedAttention,
// torch_npu.npu_nsa_select_attention). Its page's formula, in the TND layout (the only one it supports):
//   selected_key / selected_value = the key / value rows of the blocks topkIndices[t, n / G, :] names, block i
//                                   being rows i * selectedBlockSize .. (i + 1) * selectedBlockSize - 1 of the
//                                   sequence's own keys (actualSeqKvLen's cumulative ends), in the order given
//   attentionOut[t, n]            = softmax(scaleValue * q[t, n] selected_key^T) selected_value
// per query token t (of the sequence actualSeqQLen places it in) and query head n, G = Nq / Nkv query heads
// sharing a key/value head. softmaxMaxOut / softmaxSumOut: the row's max of S and sum of exp(S - max); the
// page leaves their layout open, and they are read as the [T, Nq, 8] op-plugin allocates: token, head, the
// value 8 times (the FlashAttention APIs' TND statistics in their same_as_input layout).
// Phase 1 enforces the page's 约束说明 (TND, D_qk 192 and D_v 128, G <= 32, selectedBlockSize a multiple of 16
// up to 128, selectedBlockCount up to 32, each sequence's keys a multiple of selectedBlockSize and at least
// selectedBlockSize * selectedBlockCount); the mask is refused by the semantics file. A block index outside its
// sequence's keys is device data: phase 2 fails naming it. FLOAT16 and BFLOAT16 compute in float with double
// accumulation, rounded once.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = NsaSelectFamily;

enum Slot { kQ, kK, kV, kIdx, kMax, kSum, kAttn, kSlots };

constexpr int64_t kStatWidth = 8;     // the statistics repeat each row's value 8 times
constexpr int64_t kHeadDimQk = 192;   // 约束说明: D_qk=192
constexpr int64_t kHeadDimV = 128;    // 约束说明: D_v=128
constexpr int64_t kMaxGroup = 32;     // 约束说明: N_q / N_kv <= 32
constexpr int64_t kMaxBlockSize = 128;
constexpr int64_t kMaxBlockCount = 32;

class NsaSelectWork final : public FamilyWork {
 public:
  explicit NsaSelectWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t tokens = 0, heads = 0, kv_heads = 0, dqk = 0, dv = 0, block = 0, count = 0;
  double scale = 1.0;
  Dims q_ends, kv_ends;

 private:
  aclnnStatus Compute() override {
    if (tokens == 0) return ACLNN_SUCCESS;
    const int64_t* idx = IndexValues(tensor(kIdx), 3);
    // Each token's sequence: its first key row and its number of blocks.
    std::vector<int64_t> key0(static_cast<size_t>(tokens)), blocks(static_cast<size_t>(tokens));
    for (size_t b = 0; b < q_ends.size(); ++b) {
      const int64_t k0 = b ? kv_ends[b - 1] : 0;
      for (int64_t t = b ? q_ends[b - 1] : 0; t < q_ends[b]; ++t) {
        key0[t] = k0, blocks[t] = (kv_ends[b] - k0) / block;
      }
    }
    for (int64_t i = 0; i < tokens * kv_heads * count; ++i) {
      const int64_t t = i / (kv_heads * count);
      if (idx[i] < 0 || idx[i] >= blocks[t]) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kIdx).name + ": element " + std::to_string(i) +
                                         " (token " + std::to_string(t) + ") is " + std::to_string(idx[i]) +
                                         ", outside its sequence's " + std::to_string(blocks[t]) + " blocks of " +
                                         std::to_string(block) + " keys");
      }
    }
    const float* q = static_cast<const float*>(ContiguousAs(tensor(kQ), ComputeType::kFloat32, 0));
    const float* k = static_cast<const float*>(ContiguousAs(tensor(kK), ComputeType::kFloat32, 1));
    const float* v = static_cast<const float*>(ContiguousAs(tensor(kV), ComputeType::kFloat32, 2));
    std::vector<float> out(static_cast<size_t>(tokens * heads * dv));
    std::vector<float> max(static_cast<size_t>(tokens * heads * kStatWidth)), sum(max.size());
    const int64_t group = heads / kv_heads, keys = count * block;
    ParallelFor(tokens * heads, [&](int64_t row) {
      const int64_t t = row / heads, n = row % heads, h = n / group;
      const int64_t* chosen = idx + (t * kv_heads + h) * count;
      const float* qi = q + row * dqk;
      std::vector<double> s(static_cast<size_t>(keys)), o(static_cast<size_t>(dv), 0.0);
      // The key row of selected position j: block chosen[j / block], row j % block of it.
      auto key_row = [&](int64_t j) { return key0[t] + chosen[j / block] * block + j % block; };
      double mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        const float* kj = k + (key_row(j) * kv_heads + h) * dqk;
        double dot = 0;
        for (int64_t d = 0; d < dqk; ++d) dot += static_cast<double>(qi[d]) * kj[d];
        mx = std::max(mx, s[j] = scale * dot);
      }
      double total = 0;
      for (double& x : s) total += x = std::exp(x - mx);
      for (int64_t j = 0; j < keys; ++j) {
        const float* vj = v + (key_row(j) * kv_heads + h) * dv;
        const double p = s[j] / total;
        for (int64_t d = 0; d < dv; ++d) o[d] += p * vj[d];
      }
      std::transform(o.begin(), o.end(), out.begin() + row * dv, [](double x) { return static_cast<float>(x); });
      std::fill_n(max.begin() + row * kStatWidth, kStatWidth, static_cast<float>(mx));
      std::fill_n(sum.begin() + row * kStatWidth, kStatWidth, static_cast<float>(total));
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kAttn));
    ScatterFrom(max.data(), ComputeType::kFloat32, tensor(kMax));
    ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kSum));
    return ACLNN_SUCCESS;
  }
};

// The cumulative sequence ends of `role` (required with TND), rising from 0 to `total`.
aclnnStatus ReadSequenceEnds(const Call& call, const FamilySpec& family, int role, int64_t total, Dims* ends) {
  const ParamRejecter reject(call, family);
  if (!RoleInts(call, family, role, ends) || ends->empty()) {
    return reject(role, "is required with the TND layout (each sequence's cumulative end)");
  }
  int64_t last = 0;
  for (int64_t e : *ends) {
    if (e < last) return reject(role, DimsText(*ends) + " does not rise from 0 (cumulative sequence ends)");
    last = e;
  }
  if (last != total) return reject(role, DimsText(*ends) + " ends at " + std::to_string(last) + ", not at T " + std::to_string(total));
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanNsaSelect(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* value = RoleTensor(call, family, F::Role::kValue);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kTopkIndices);
  const TensorDesc* max = RoleTensor(call, family, F::Role::kSoftmaxMax);
  const TensorDesc* sum = RoleTensor(call, family, F::Role::kSoftmaxSum);
  const TensorDesc* attention = RoleTensor(call, family, F::Role::kAttention);
  if (!query || !key || !value || !idx || !max || !sum || !attention) return Decline(call, work, "without its tensors");
  if (RoleTensor(call, family, F::Role::kAttenMask)) return Decline(call, work, "with attenMaskOptional");
  const ParamRejecter reject(call, family);
  const std::string layout = RoleText(call, family, F::Role::kLayout);
  if (layout != "TND") {
    return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue,
                       "\"" + layout + "\" is not TND, the only layout the page supports");
  }
  for (const TensorDesc* t : {query, key, value}) {
    if (t->view.size() != 3) {
      const int role = t == query ? F::Role::kQuery : t == key ? F::Role::kKey : F::Role::kValue;
      return reject(role, "shape " + DimsText(t->view) + " is not [T, N, D] (TND)");
    }
  }
  const int64_t tokens = query->view[0], heads = query->view[1], kv_tokens = key->view[0], kv_heads = key->view[1];
  if (query->view[2] != kHeadDimQk || key->view[2] != kHeadDimQk) {
    return reject(query->view[2] != kHeadDimQk ? F::Role::kQuery : F::Role::kKey,
                  "head dimension " + std::to_string(query->view[2] != kHeadDimQk ? query->view[2] : key->view[2]) +
                      " is not 192, the page's D_qk");
  }
  if (value->view[0] != kv_tokens || value->view[1] != kv_heads || value->view[2] != kHeadDimV) {
    return reject(F::Role::kValue, "shape " + DimsText(value->view) + " is not [" + std::to_string(kv_tokens) + ", " +
                                       std::to_string(kv_heads) + ", 128] (key's T and N, the page's D_v 128)");
  }
  if (key->dtype != query->dtype || value->dtype != query->dtype) {
    return reject(key->dtype != query->dtype ? F::Role::kKey : F::Role::kValue,
                  std::string("dtype ") + DTypeName(key->dtype != query->dtype ? key->dtype : value->dtype) +
                      " is not query's " + DTypeName(query->dtype));
  }
  if (RoleInt(call, family, F::Role::kHeadNum, 0) != heads) {
    return reject(F::Role::kHeadNum, std::to_string(RoleInt(call, family, F::Role::kHeadNum, 0)) +
                                         " is not query's N " + std::to_string(heads));
  }
  if (kv_heads < 1 || heads % kv_heads != 0 || heads / kv_heads > kMaxGroup) {
    return reject(F::Role::kKey, "N " + std::to_string(kv_heads) + " does not divide query's N " +
                                     std::to_string(heads) + " into groups of at most 32");
  }
  const int64_t block = RoleInt(call, family, F::Role::kBlockSize, 0);
  if (block < 16 || block > kMaxBlockSize || block % 16 != 0) {
    return reject(F::Role::kBlockSize, std::to_string(block) + " is not a multiple of 16 up to 128");
  }
  const int64_t count = RoleInt(call, family, F::Role::kBlockCount, 0);
  if (count < 1 || count > kMaxBlockCount) {
    return reject(F::Role::kBlockCount, std::to_string(count) + " is not in [1, 32]");
  }
  if (idx->view != Dims{tokens, kv_heads, count}) {
    return reject(F::Role::kTopkIndices, "shape " + DimsText(idx->view) + " is not [T_q, N_kv, selectedBlockCount] " +
                                             DimsText(Dims{tokens, kv_heads, count}));
  }
  auto made = std::make_unique<NsaSelectWork>(call.spec.name);
  if (aclnnStatus s = ReadSequenceEnds(call, family, F::Role::kActualQ, tokens, &made->q_ends)) return s;
  if (aclnnStatus s = ReadSequenceEnds(call, family, F::Role::kActualKv, kv_tokens, &made->kv_ends)) return s;
  if (made->kv_ends.size() != made->q_ends.size()) {
    return reject(F::Role::kActualKv, DimsText(made->kv_ends) + " has not as many sequences as " + DimsText(made->q_ends));
  }
  for (size_t b = 0; b < made->kv_ends.size(); ++b) {
    const int64_t length = made->kv_ends[b] - (b ? made->kv_ends[b - 1] : 0);
    if (length % block != 0 || length < block * count) {
      return reject(F::Role::kActualKv, "sequence " + std::to_string(b) + " has " + std::to_string(length) +
                                            " keys: the page wants a multiple of selectedBlockSize " +
                                            std::to_string(block) + " and at least selectedBlockSize * "
                                            "selectedBlockCount " + std::to_string(block * count));
    }
  }
  for (int role : {int(F::Role::kSoftmaxMax), int(F::Role::kSoftmaxSum)}) {
    const TensorDesc* t = role == F::Role::kSoftmaxMax ? max : sum;
    if (t->dtype != ACL_FLOAT) return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not FLOAT");
    if (aclnnStatus s = made->KeepOutput(call, family, role, *t, {tokens, heads, kStatWidth}, "[T, N, 8]",
                                         role == F::Role::kSoftmaxMax ? kMax : kSum)) {
      return s;
    }
  }
  if (attention->dtype != query->dtype) {
    return reject(F::Role::kAttention, std::string("dtype ") + DTypeName(attention->dtype) + " is not query's " +
                                           DTypeName(query->dtype));
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAttention, *attention, {tokens, heads, kHeadDimV},
                                       "[T, N, value's D]", kAttn)) {
    return s;
  }
  made->tokens = tokens, made->heads = heads, made->kv_heads = kv_heads;
  made->dqk = kHeadDimQk, made->dv = kHeadDimV, made->block = block, made->count = count;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  made->tensor(kIdx).Set(RoleName(call, family, F::Role::kTopkIndices), *idx);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
