// The nsa_select family: Native Sparse Attention's selected attention (aclnnNsaSelectedAttention,
// torch_npu.npu_nsa_select_attention) and its gradient (aclnnNsaSelectedAttentionGrad, a derived page;
// npu_nsa_select_attention_grad). The forward page's formula, in the TND layout (the only one supported):
//   selected_key / selected_value = the key / value rows of the blocks topkIndices[t, n / G, :] names, block i
//                                   being rows i * selectedBlockSize .. (i + 1) * selectedBlockSize - 1 of the
//                                   sequence's own keys (actualSeqKvLen's cumulative ends), in the order given
//   attentionOut[t, n]            = softmax(scaleValue * q[t, n] selected_key^T) selected_value
// per query token t (of the sequence actualSeqQLen places it in) and query head n, G = Nq / Nkv query heads
// sharing a key/value head. softmaxMaxOut / softmaxSumOut: the row's max of S and sum of exp(S - max), read
// and written as [T, Nq, 8]: token, head, the value 8 times (the shape op-plugin allocates and the Grad page's
// 约束说明 states; the FlashAttention APIs' TND statistics in their same_as_input layout).
// The gradient, from the caller's statistics (column 0) and attentionOut: P = exp(S - max) / sum,
// dS = P * (dY V_sel^T - rowsum(dY * attentionOut)), dQ = scale dS K_sel, and scale dS^T q and P^T dY added to the
// key and value rows the blocks gathered (a row selected twice gets both; a row never selected 0).
// Phase 1 enforces the pages' 约束说明 (TND; the forward's D_qk 192 and D_v 128, selectedBlockSize a multiple of
// 16 up to 128, selectedBlockCount up to 32; the gradient's D 128 or 192; G <= 32; each sequence's keys a
// multiple of selectedBlockSize and at least selectedBlockSize * selectedBlockCount); the mask is refused by
// the semantics file. A block index outside its sequence's keys is device data: phase 2 fails naming it.
// FLOAT16 and BFLOAT16 compute in float with double accumulation, rounded once.
#include <algorithm>
#include <cmath>
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

using F = NsaSelectFamily;

enum Slot { kQ, kK, kV, kIdx, kMax, kSum, kAttn, kDy, kDq, kDk, kDv, kSlots };

constexpr int64_t kStatWidth = 8;     // the statistics repeat each row's value 8 times
constexpr int64_t kHeadDimQk = 192;   // the forward's 约束说明: D_qk=192, D_v=128
constexpr int64_t kHeadDimV = 128;
constexpr int64_t kMaxGroup = 32;     // 约束说明: N_q / N_kv <= 32
constexpr int64_t kMaxBlockSize = 128;
constexpr int64_t kMaxBlockCount = 32;

class NsaSelectWork final : public FamilyWork {
 public:
  NsaSelectWork(const char* api, bool grad) : FamilyWork(api, kSlots), grad_(grad) {}

  int64_t tokens = 0, kv_tokens = 0, heads = 0, kv_heads = 0, dqk = 0, dv = 0, block = 0, count = 0;
  double scale = 1.0;
  Dims q_ends, kv_ends;

 private:
  aclnnStatus Compute() override {
    if (tokens == 0 && !grad_) return ACLNN_SUCCESS;  // no query: nothing to attend (the gradient still zeroes dK, dV)
    idx_ = IndexValues(tensor(kIdx), 3);
    // Each token's sequence: its first key row and its number of blocks.
    key0_.assign(static_cast<size_t>(tokens), 0);
    blocks_.assign(static_cast<size_t>(tokens), 0);
    for (size_t b = 0; b < q_ends.size(); ++b) {
      const int64_t k0 = b ? kv_ends[b - 1] : 0;
      for (int64_t t = b ? q_ends[b - 1] : 0; t < q_ends[b]; ++t) key0_[t] = k0, blocks_[t] = (kv_ends[b] - k0) / block;
    }
    for (int64_t i = 0; i < tokens * kv_heads * count; ++i) {
      const int64_t t = i / (kv_heads * count);
      if (idx_[i] < 0 || idx_[i] >= blocks_[t]) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kIdx).name + ": element " + std::to_string(i) +
                                         " (token " + std::to_string(t) + ") is " + std::to_string(idx_[i]) +
                                         ", outside its sequence's " + std::to_string(blocks_[t]) + " blocks of " +
                                         std::to_string(block) + " keys");
      }
    }
    q_ = static_cast<const float*>(ContiguousAs(tensor(kQ), ComputeType::kFloat32, 0));
    k_ = static_cast<const float*>(ContiguousAs(tensor(kK), ComputeType::kFloat32, 1));
    v_ = static_cast<const float*>(ContiguousAs(tensor(kV), ComputeType::kFloat32, 2));
    return grad_ ? Backward() : Forward();
  }

  // The key/value row of selected position j of token t's key/value head h's list.
  int64_t KeyRow(int64_t t, int64_t h, int64_t j) const {
    return key0_[t] + idx_[(t * kv_heads + h) * count + j / block] * block + j % block;
  }

  // The scaled scores of query row (t, n) against its selected keys.
  void Scores(int64_t t, int64_t n, double* s) const {
    const int64_t h = n / (heads / kv_heads);
    const float* qi = q_ + (t * heads + n) * dqk;
    for (int64_t j = 0; j < count * block; ++j) {
      const float* kj = k_ + (KeyRow(t, h, j) * kv_heads + h) * dqk;
      double dot = 0;
      for (int64_t d = 0; d < dqk; ++d) dot += static_cast<double>(qi[d]) * kj[d];
      s[j] = scale * dot;
    }
  }

  aclnnStatus Forward() {
    std::vector<float> out(static_cast<size_t>(tokens * heads * dv));
    std::vector<float> max(static_cast<size_t>(tokens * heads * kStatWidth)), sum(max.size());
    const int64_t group = heads / kv_heads, keys = count * block;
    ParallelFor(tokens * heads, [&](int64_t row) {
      const int64_t t = row / heads, n = row % heads, h = n / group;
      std::vector<double> s(static_cast<size_t>(keys)), o(static_cast<size_t>(dv));
      Scores(t, n, s.data());
      double mx = 0;
      const double total = AttendRow(s.data(), keys, dv, [&](int64_t j) { return v_ + (KeyRow(t, h, j) * kv_heads + h) * dv; },
                                     o.data(), &mx);
      std::transform(o.begin(), o.end(), out.begin() + row * dv, [](double x) { return static_cast<float>(x); });
      std::fill_n(max.begin() + row * kStatWidth, kStatWidth, static_cast<float>(mx));
      std::fill_n(sum.begin() + row * kStatWidth, kStatWidth, static_cast<float>(total));
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kAttn));
    ScatterFrom(max.data(), ComputeType::kFloat32, tensor(kMax));
    ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kSum));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Backward() {
    const float* attn = static_cast<const float*>(ContiguousAs(tensor(kAttn), ComputeType::kFloat32, 4));
    const float* dy = static_cast<const float*>(ContiguousAs(tensor(kDy), ComputeType::kFloat32, 5));
    std::vector<float> max(static_cast<size_t>(tokens * heads * kStatWidth)), sum(max.size());
    GatherAs(tensor(kMax), ComputeType::kFloat32, max.data());
    GatherAs(tensor(kSum), ComputeType::kFloat32, sum.data());
    std::vector<double> dq(static_cast<size_t>(tokens * heads * dqk), 0.0);
    std::vector<double> dk(static_cast<size_t>(kv_tokens * kv_heads * dqk), 0.0);
    std::vector<double> dvs(static_cast<size_t>(kv_tokens * kv_heads * dv), 0.0);
    const int64_t group = heads / kv_heads, keys = count * block, sequences = static_cast<int64_t>(q_ends.size());
    // One task per sequence and key/value head: it alone writes that head's rows of the sequence's keys in dK
    // and dV (blocks never leave their sequence) and its group's rows of dQ.
    ParallelFor(sequences * kv_heads, [&](int64_t task) {
      const int64_t b = task / kv_heads, h = task % kv_heads;
      std::vector<double> s(static_cast<size_t>(keys));
      for (int64_t t = b ? q_ends[b - 1] : 0; t < q_ends[b]; ++t) {
        for (int64_t n = h * group; n < (h + 1) * group; ++n) {
          const int64_t row = t * heads + n;
          const float* qi = q_ + row * dqk;
          const float* gi = dy + row * dv;
          const double mx = max[row * kStatWidth], total = sum[row * kStatWidth];
          double rowsum = 0;
          for (int64_t d = 0; d < dv; ++d) rowsum += static_cast<double>(gi[d]) * attn[row * dv + d];
          Scores(t, n, s.data());
          for (int64_t j = 0; j < keys; ++j) {
            const int64_t at = KeyRow(t, h, j) * kv_heads + h;
            const float* vj = v_ + at * dv;
            const double p = std::exp(s[j] - mx) / total;  // the page's P, as the kernel divides: any statistics the caller gives
            double dp = 0;
            for (int64_t d = 0; d < dv; ++d) dp += static_cast<double>(gi[d]) * vj[d];
            const double ds = p * (dp - rowsum);
            for (int64_t d = 0; d < dv; ++d) dvs[at * dv + d] += p * gi[d];
            const float* kj = k_ + at * dqk;
            double* dqi = dq.data() + row * dqk;
            double* dkj = dk.data() + at * dqk;
            for (int64_t d = 0; d < dqk; ++d) {
              dqi[d] += scale * ds * kj[d];
              dkj[d] += scale * ds * qi[d];
            }
          }
        }
      }
    });
    ScatterFrom(dq.data(), ComputeType::kFloat64, tensor(kDq));
    ScatterFrom(dk.data(), ComputeType::kFloat64, tensor(kDk));
    ScatterFrom(dvs.data(), ComputeType::kFloat64, tensor(kDv));
    return ACLNN_SUCCESS;
  }

  const bool grad_;
  const int64_t* idx_ = nullptr;
  const float *q_ = nullptr, *k_ = nullptr, *v_ = nullptr;
  std::vector<int64_t> key0_, blocks_;
};

// Whether a gradient's head dimension is one of its page's "D：取值范围为192或128".
bool GradHeadDim(int64_t d) { return d == 128 || d == 192; }

// Keeps the tensor of `role` in `slot` once it has `shape` and `dtype`: the statistics and attentionOut the
// gradient reads, the outputs either op writes.
aclnnStatus KeepShaped(const Call& call, const FamilySpec& family, NsaSelectWork* made, int role, int slot,
                       const Dims& shape, const char* what, aclDataType dtype, bool output) {
  const TensorDesc* t = RoleTensor(call, family, role);
  const ParamRejecter reject(call, family);
  if (t->dtype != dtype) return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not " + DTypeName(dtype));
  if (output) return made->KeepOutput(call, family, role, *t, shape, what, slot);
  if (t->view != shape) return reject(role, "shape " + DimsText(t->view) + " is not " + what + " " + DimsText(shape));
  made->tensor(slot).Set(RoleName(call, family, role), *t);
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanNsaSelect(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool grad = family.op == F::Op::kSelectedAttentionGrad;
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  const TensorDesc* key = RoleTensor(call, family, F::Role::kKey);
  const TensorDesc* value = RoleTensor(call, family, F::Role::kValue);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kTopkIndices);
  for (int role : {F::Role::kSoftmaxMax, F::Role::kSoftmaxSum, F::Role::kAttention}) {
    if (!RoleTensor(call, family, role)) return Decline(call, work, "without its tensors");
  }
  for (int role : {F::Role::kDy, F::Role::kDq, F::Role::kDk, F::Role::kDv}) {
    if (grad && !RoleTensor(call, family, role)) return Decline(call, work, "without its tensors");
  }
  if (!query || !key || !value || !idx) return Decline(call, work, "without its tensors");
  if (RoleTensor(call, family, F::Role::kAttenMask)) return Decline(call, work, "with attenMaskOptional");
  const ParamRejecter reject(call, family);
  const std::string layout = RoleText(call, family, F::Role::kLayout);
  if (layout != "TND") {
    return RejectByRow(call, family, F::Role::kLayout, RowKind::kValue,
                       "\"" + layout + "\" is not TND, the only layout the page supports");
  }
  for (int role : {F::Role::kQuery, F::Role::kKey, F::Role::kValue}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (t->view.size() != 3) return reject(role, "shape " + DimsText(t->view) + " is not [T, N, D] (TND)");
    if (t->dtype != query->dtype) {
      return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not query's " + DTypeName(query->dtype));
    }
  }
  const int64_t tokens = query->view[0], heads = query->view[1], kv_tokens = key->view[0], kv_heads = key->view[1];
  const int64_t dqk = query->view[2], dv = value->view[2];
  if (key->view[2] != dqk) {
    return reject(F::Role::kKey, "head dimension " + std::to_string(key->view[2]) + " is not query's " + std::to_string(dqk));
  }
  if (value->view[0] != kv_tokens || value->view[1] != kv_heads) {
    return reject(F::Role::kValue, "shape " + DimsText(value->view) + " does not have key's T and N " +
                                       DimsText(Dims{kv_tokens, kv_heads}));
  }
  if (!grad && (dqk != kHeadDimQk || dv != kHeadDimV)) {
    return reject(dqk != kHeadDimQk ? F::Role::kQuery : F::Role::kValue,
                  "head dimension " + std::to_string(dqk != kHeadDimQk ? dqk : dv) + " is not the page's " +
                      (dqk != kHeadDimQk ? "D_qk 192" : "D_v 128"));
  }
  if (grad && (!GradHeadDim(dqk) || !GradHeadDim(dv))) {
    return reject(GradHeadDim(dqk) ? F::Role::kValue : F::Role::kQuery,
                  "head dimension " + std::to_string(GradHeadDim(dqk) ? dv : dqk) + " is not 128 or 192 (the page's D)");
  }
  if (RoleInt(call, family, F::Role::kHeadNum, 0) != heads) {
    return reject(F::Role::kHeadNum, std::to_string(RoleInt(call, family, F::Role::kHeadNum, 0)) +
                                         " is not query's N " + std::to_string(heads));
  }
  if (kv_heads < 1 || heads % kv_heads != 0 || heads / kv_heads > kMaxGroup) {
    return reject(F::Role::kKey, "N " + std::to_string(kv_heads) + " does not divide query's N " +
                                     std::to_string(heads) + " into groups of at most 32");
  }
  // The forward's 约束说明 bounds the blocks; the gradient's page states no bound but their product's.
  const int64_t block = RoleInt(call, family, F::Role::kBlockSize, 0);
  if (block < 1 || (!grad && (block > kMaxBlockSize || block % 16 != 0))) {
    return reject(F::Role::kBlockSize, std::to_string(block) + (grad ? " is not positive" : " is not a multiple of 16 up to 128"));
  }
  const int64_t count = RoleInt(call, family, F::Role::kBlockCount, 0);
  if (count < 1 || (!grad && count > kMaxBlockCount)) {
    return reject(F::Role::kBlockCount, std::to_string(count) + (grad ? " is not positive" : " is not in [1, 32]"));
  }
  if (idx->view != Dims{tokens, kv_heads, count}) {
    return reject(F::Role::kTopkIndices, "shape " + DimsText(idx->view) + " is not [T_q, N_kv, selectedBlockCount] " +
                                             DimsText(Dims{tokens, kv_heads, count}));
  }
  auto made = std::make_unique<NsaSelectWork>(call.spec.name, grad);
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
  const Dims stats{tokens, heads, kStatWidth}, rows{tokens, heads, dv};
  const struct {
    int role, slot;
    const Dims& shape;
    const char* what;
    aclDataType dtype;
  } kept[] = {
      {F::Role::kSoftmaxMax, kMax, stats, "[T, N, 8]", ACL_FLOAT},
      {F::Role::kSoftmaxSum, kSum, stats, "[T, N, 8]", ACL_FLOAT},
      {F::Role::kAttention, kAttn, rows, "[T, N, value's D]", query->dtype},
  };
  for (const auto& k : kept) {
    if (aclnnStatus s = KeepShaped(call, family, made.get(), k.role, k.slot, k.shape, k.what, k.dtype, !grad)) return s;
  }
  if (grad) {
    const struct {
      int role, slot;
      const TensorDesc* like;
      const char* what;
      bool output;
    } gradients[] = {
        {F::Role::kDy, kDy, nullptr, "attentionOut's shape", false},
        {F::Role::kDq, kDq, query, "query's shape", true},
        {F::Role::kDk, kDk, key, "key's shape", true},
        {F::Role::kDv, kDv, value, "value's shape", true},
    };
    for (const auto& g : gradients) {
      if (aclnnStatus s = KeepShaped(call, family, made.get(), g.role, g.slot, g.like ? g.like->view : rows, g.what,
                                     query->dtype, g.output)) {
        return s;
      }
    }
  }
  made->tokens = tokens, made->kv_tokens = kv_tokens, made->heads = heads, made->kv_heads = kv_heads;
  made->dqk = dqk, made->dv = dv, made->block = block, made->count = count;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  made->tensor(kIdx).Set(RoleName(call, family, F::Role::kTopkIndices), *idx);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
