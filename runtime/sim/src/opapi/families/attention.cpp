// The attention family: ops-transformer's FlashAttention forward and backward
// (torch_npu.npu_fusion_attention and its autograd backward, op-plugin's FlashAttentionKernelNpuOpApi.cpp).
//   flash_attention       per batch b and query head n (key/value head n / (Nq / Nkv): GQA),
//                         S = scale * (Q K^T + pse)   (pseType 1, the default; pseType 0:
//                             scale * Q K^T + pse),
//                         masked positions -inf, P = softmax(S) along the keys, P' = P * keep / keepProb
//                         (keep: bit i of dropMask, least significant first, for element i of
//                         [B, N, Sq, Skv]; every element kept at keepProb 1), attentionOut = P' V;
//                         softmaxMax / softmaxSum: the row's max and sum of exp(S - max), replicated 8 times
//   flash_attention_grad  the pages' backward from the caller's softmaxMax / softmaxSum (column 0) and
//                         attentionIn: P = exp(S - max) / sum, dV = P'^T dY, dP = (dY V^T) * keep / keepProb,
//                         dS = P * (dP - rowsum(dY * attentionIn)), dQ = scale * dS K, dK = scale * dS^T Q,
//                         dpse = dS (times scale for pseType 1) summed over the dimensions pse broadcasts along
// Layouts: BSH, SBH (H = N * D, N = headNum for the query), BSND, BNSD; TND for the VarLen/Unpadding
// APIs: T the sequences one after another, actualSeqQLen / actualSeqKvLen their cumulative ends, each
// sequence attending only to its own keys (its dropout bits follow the previous sequences' N * Sq * Skv).
// Sparse modes (a mask applies only when attenMask is given, as the pages say: without it every
// position is computed), i and j a query's and a key's index within their sequence:
//   0 default        attenMask[i, j] (true masks out), and j > i + nextTokens or j < i - preTokens
//   1 allMask        attenMask[i, j]
//   2 leftUpCausal   j > i              (attenMask: the pages' compressed 2048 x 2048 triangle, unread)
//   3 rightDownCausal j > i + Skv - Sq
//   4 band           j > i + Skv - Sq + nextTokens or j < i + Skv - Sq - preTokens
//   prompt_flash_attention  aclnnPromptFlashAttentionV3: flash_attention without dropout or statistics, layouts
//                         BSH, BSND, BNSD, BNSD_BSND (BNSD in, BSND out), numKeyValueHeads the key's N (0: any);
//                         attenMask also [B, Sq, Skv] and padded past Sq and Skv; pseShift, per-batch
//                         actualSeqLengths(Kv) and TND refused by name (the quantisation inputs: semantics checks)
//   incre_flash_attention aclnnIncreFlashAttentionV4: prompt_flash_attention for one query position (S = 1),
//                         key and value one tensor (a list of one) or, with blocktable, one block cache
//                         [blocks, blockSize, H] ([blocks, Nkv, blockSize, D] for BNSD) whose blocks
//                         blocktable [B, maxBlocks] names per batch (block j / blockSize holds position j);
//                         actualSeqLengths the keys each batch attends (required with a cache); attenMask
//                         [B, (1, (1,)) Skv]
//   fused_infer_attention aclnnFusedInferAttentionScoreV2, V3, V4: prompt_flash_attention for a query of several
//                         positions, incre_flash_attention for one (its masks), a paged cache with either;
//                         softmaxLse (when given: max + log(sum) per row, -inf for a row masked everywhere);
//                         the shared prefix, rope and quantisation inputs refused (semantics checks)
//   transform_qkv         aten's _transform_bias_rescale_qkv: qkv [B, T, 3 * H] plus qkvBias [3 * H] split
//                         into q, k, v [B, N, T, H / N] (N numHeads), q times 1 / sqrt(H / N)
//   masked_softmax_bias   aclnnMaskedSoftmaxWithRelPosBias: softmax(scaleValue * x + attenMask + relativePosBias)
//                         over the last dimension, x [B * W, N, S1, S2] or [B, W, N, S1, S2], the mask one per
//                         window W, the bias one per head N
// 5 to 8 (prefix, varlen bands), pseType 2 and 3 (generated pse), a pse with TND and an attenMask in
// modes 0 and 1 with TND are refused by name in phase 1. A row masked everywhere: attentionOut 0,
// softmaxMax -inf, softmaxSum 0, and no gradient. FLOAT, FLOAT16 and BFLOAT16 compute in float with
// double accumulation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = AttentionFamily;

enum Slot { kQ, kK, kV, kDy, kPse, kDrop, kMask, kMax, kSum, kAttn, kDq, kDk, kDv, kDpse, kTable, kSlots };

enum class Layout { kBSH, kSBH, kBSND, kBNSD, kTND };

constexpr int64_t kStatWidth = 8;  // softmaxMax / softmaxSum replicate each row's value 8 times

// A tensor laid out as `layout` seen as [B, N, S, D] (TND: [1, N, T, D]), `d` its head dimension
// (BSH, SBH: H split into H / d heads).
TensorRef HeadView(TensorRef t, Layout layout, int64_t d) {
  const Dims s = t.shape, st = t.strides;
  switch (layout) {
    case Layout::kBNSD: return t;
    case Layout::kBSND: t.shape = {s[0], s[2], s[1], s[3]}, t.strides = {st[0], st[2], st[1], st[3]}; break;
    case Layout::kBSH: t.shape = {s[0], s[2] / d, s[1], d}, t.strides = {st[0], d * st[2], st[1], st[2]}; break;
    case Layout::kSBH: t.shape = {s[1], s[2] / d, s[0], d}, t.strides = {st[1], d * st[2], st[0], st[2]}; break;
    case Layout::kTND: t.shape = {1, s[1], s[0], s[2]}, t.strides = {0, st[1], st[0], st[2]}; break;
  }
  return t;
}

// [B, N, S, D] of a query-, key- or value-like tensor.
struct Heads {
  int64_t b = 0, n = 0, s = 0, d = 0;
};

class AttentionWork final : public FamilyWork {
 public:
  AttentionWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  Layout layout = Layout::kBSND;
  Layout out_layout = Layout::kBSND;  // attentionOut's (BNSD_BSND: BSND for a BNSD input)
  Heads q, kv;             // kv.d: the key's head dimension (the query's)
  int64_t dv = 0;          // the value's head dimension
  int64_t batches = 0;     // B, or the number of sequences for TND
  Dims q_ends, kv_ends;    // TND: cumulative sequence ends
  double scale = 1, keep_prob = 1;
  int64_t pre_tokens = 0, next_tokens = 0, sparse_mode = 0, pse_type = 1;
  bool masked = false;     // attenMask given: the sparse mode applies
  bool mask_read = false;  // modes 0 and 1: attenMask's elements are read
  bool pse = false, dropout = false, dpse = false;
  bool stats_tnd = false;  // TND statistics as [T, N, 8] (same_as_input), else [N, T, 8]
  bool stats = false;      // softmaxMax and softmaxSum written (the training APIs)
  bool lse = false;        // the fused inference API's softmaxLse ([B, N, Sq, 1]: max + log(sum)) written
  Dims kv_lengths;         // the inference APIs' per-batch key/value lengths (empty: every key)
  bool paged = false;      // incre: key/value a block cache that block_table maps each batch's positions to
  int64_t block_size = 0;

 private:
  // Sequence `b`'s first query and key rows within the gathered buffers and their counts.
  struct Sequence {
    int64_t batch, q0, sq, k0, skv, drop0;
  };

  Sequence SequenceOf(int64_t b) const {
    if (layout != Layout::kTND) return {b, 0, q.s, 0, kv_lengths.empty() ? kv.s : kv_lengths[b], b * q.n * q.s * kv.s};
    Sequence seq{0, b ? q_ends[b - 1] : 0, 0, b ? kv_ends[b - 1] : 0, 0, 0};
    seq.sq = q_ends[b] - seq.q0, seq.skv = kv_ends[b] - seq.k0;
    for (int64_t p = 0; p < b; ++p) {
      seq.drop0 += q.n * (q_ends[p] - (p ? q_ends[p - 1] : 0)) * (kv_ends[p] - (p ? kv_ends[p - 1] : 0));
    }
    return seq;
  }

  bool Masked(const Sequence& seq, int64_t n, int64_t i, int64_t j) const {
    if (!masked) return false;
    const int64_t shift = seq.skv - seq.sq;
    switch (sparse_mode) {
      case 0:
        if (j > i + next_tokens || j < i - pre_tokens) return true;
        [[fallthrough]];
      case 1: return mask_[((seq.batch * q.n + n) * q.s + i) * kv.s + j] != 0;
      case 2: return j > i;
      case 3: return j > i + shift;
      default: return j > i + shift + next_tokens || j < i + shift - pre_tokens;
    }
  }

  // The row's scores S (masked: -inf) for query head n, row i of sequence `seq`.
  void Scores(const Sequence& seq, int64_t n, int64_t i, double* s) const {
    const int64_t group = q.n / kv.n, bq = layout == Layout::kTND ? 0 : seq.batch;
    const float* qi = q_ + ((bq * q.n + n) * q.s + seq.q0 + i) * q.d;
    for (int64_t j = 0; j < seq.skv; ++j) {
      if (Masked(seq, n, i, j)) {
        s[j] = -std::numeric_limits<double>::infinity();
        continue;
      }
      const float* kj = k_ + ((bq * kv.n + n / group) * kv.s + seq.k0 + j) * kv.d;
      double dot = 0;
      for (int64_t d = 0; d < q.d; ++d) dot += static_cast<double>(qi[d]) * kj[d];
      const double shift = pse ? pse_[((seq.batch * q.n + n) * q.s + i) * kv.s + j] : 0.0;
      s[j] = pse_type == 1 ? scale * (dot + shift) : scale * dot + shift;
    }
  }

  // Element (n, i, j)'s dropout factor: keep / keepProb.
  double Kept(const Sequence& seq, int64_t n, int64_t i, int64_t j) const {
    if (!dropout) return 1.0;
    const int64_t bit = seq.drop0 + (n * seq.sq + i) * seq.skv + j;
    return (drop_[bit / 8] >> (bit % 8)) & 1 ? 1.0 / keep_prob : 0.0;
  }

  // Where row (n, i) of sequence `seq`'s statistics live in softmaxMax / softmaxSum.
  int64_t StatRow(const Sequence& seq, int64_t n, int64_t i) const {
    if (layout != Layout::kTND) return (seq.batch * q.n + n) * q.s + i;
    return stats_tnd ? (seq.q0 + i) * q.n + n : n * q.s + seq.q0 + i;
  }

  aclnnStatus Compute() override {
    q_ = static_cast<const float*>(ContiguousAs(tensor(kQ), type, 0));
    std::vector<float> keys, values;
    if (paged) {
      if (aclnnStatus s = Unpage(&keys, &values)) return s;
      k_ = keys.data(), v_ = values.data();
    } else {
      k_ = static_cast<const float*>(ContiguousAs(tensor(kK), type, 1));
      v_ = static_cast<const float*>(ContiguousAs(tensor(kV), type, 2));
    }
    std::vector<float> mask, shift;
    std::vector<int64_t> bytes;
    if (mask_read) {
      mask.resize(static_cast<size_t>(tensor(kMask).numel()));
      GatherAs(tensor(kMask), ComputeType::kFloat32, mask.data());
      mask_ = mask.data();
    }
    if (pse) {
      TensorRef full = tensor(kPse);
      BroadcastRef(&full, {q.b, q.n, q.s, kv.s});
      shift.resize(static_cast<size_t>(full.numel()));
      GatherAs(full, ComputeType::kFloat32, shift.data());
      pse_ = shift.data();
    }
    if (dropout) {
      bytes.resize(static_cast<size_t>(tensor(kDrop).numel()));
      GatherAs(tensor(kDrop), ComputeType::kInt64, bytes.data());
      drop_ = bytes.data();
    }
    return op_ == F::Op::kFlashAttentionGrad ? Backward() : Forward();
  }

  // The paged caches (tensor(kK), tensor(kV): [blocks, Nkv, blockSize, D]) as [B, Nkv, Skv, D] by
  // block_table ([B, maxBlocks]); positions past a batch's length stay 0.
  aclnnStatus Unpage(std::vector<float>* keys, std::vector<float>* values) {
    const TensorRef& table = tensor(kTable);
    std::vector<int64_t> blocks(static_cast<size_t>(table.numel()));
    GatherAs(table, ComputeType::kInt64, blocks.data());
    const int64_t count = tensor(kK).shape[0], per_batch = table.shape[1];
    for (int64_t b = 0; b < q.b; ++b) {
      for (int64_t k = 0; k * block_size < kv_lengths[b]; ++k) {
        const int64_t block = blocks[static_cast<size_t>(b * per_batch + k)];
        if (block < 0 || block >= count) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + table.name + ": batch " + std::to_string(b) +
                                           " names block " + std::to_string(block) + ", outside [0, " +
                                           std::to_string(count) + ")");
        }
      }
    }
    const std::pair<int, std::vector<float>*> caches[2] = {{kK, keys}, {kV, values}};
    for (const auto& [slot, into] : caches) {
      const TensorRef& cache = tensor(slot);
      const int64_t d = cache.shape[3];
      const float* from = static_cast<const float*>(ContiguousAs(cache, type, slot));
      into->assign(static_cast<size_t>(q.b * kv.n * kv.s * d), 0.0f);
      for (int64_t b = 0; b < q.b; ++b) {
        for (int64_t n = 0; n < kv.n; ++n) {
          for (int64_t j = 0; j < kv_lengths[b]; ++j) {
            const int64_t block = blocks[static_cast<size_t>(b * per_batch + j / block_size)];
            std::copy_n(from + ((block * kv.n + n) * block_size + j % block_size) * d, d,
                        into->data() + ((b * kv.n + n) * kv.s + j) * d);
          }
        }
      }
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus Forward() {
    const int64_t rows = layout == Layout::kTND ? q.s * q.n : q.b * q.n * q.s;
    std::vector<float> out(static_cast<size_t>(q.b * q.n * q.s * dv), 0.0f);
    std::vector<float> max(static_cast<size_t>(rows * kStatWidth)), sum(max.size()), lse_rows(static_cast<size_t>(rows));
    const int64_t group = q.n / kv.n;
    ParallelFor(batches * q.n, [&](int64_t task) {
      const Sequence seq = SequenceOf(task / q.n);
      const int64_t n = task % q.n, bq = layout == Layout::kTND ? 0 : seq.batch;
      std::vector<double> s(static_cast<size_t>(seq.skv)), o(static_cast<size_t>(dv));
      for (int64_t i = 0; i < seq.sq; ++i) {
        Scores(seq, n, i, s.data());
        double mx = -std::numeric_limits<double>::infinity(), total = 0;
        for (double x : s) mx = std::max(mx, x);
        const bool valid = !std::isinf(mx) || mx > 0;
        for (double& x : s) total += x = valid ? std::exp(x - mx) : 0.0;
        std::fill(o.begin(), o.end(), 0.0);
        for (int64_t j = 0; j < seq.skv && total > 0; ++j) {
          const double p = s[j] / total * Kept(seq, n, i, j);
          if (p == 0) continue;
          const float* vj = v_ + ((bq * kv.n + n / group) * kv.s + seq.k0 + j) * dv;
          for (int64_t d = 0; d < dv; ++d) o[d] += p * vj[d];
        }
        float* oi = out.data() + ((bq * q.n + n) * q.s + seq.q0 + i) * dv;
        for (int64_t d = 0; d < dv; ++d) oi[d] = static_cast<float>(o[d]);
        const int64_t at = StatRow(seq, n, i) * kStatWidth;
        std::fill_n(max.begin() + at, kStatWidth, static_cast<float>(mx));
        std::fill_n(sum.begin() + at, kStatWidth, static_cast<float>(total));
        lse_rows[static_cast<size_t>(at / kStatWidth)] = static_cast<float>(mx + std::log(total));
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, HeadView(tensor(kAttn), out_layout, dv));
    if (lse) ScatterFrom(lse_rows.data(), ComputeType::kFloat32, tensor(kMax));
    if (!stats) return ACLNN_SUCCESS;
    ScatterFrom(max.data(), ComputeType::kFloat32, tensor(kMax));
    ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kSum));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Backward() {
    const float* dy = static_cast<const float*>(ContiguousAs(HeadView(tensor(kDy), layout, dv), type, 3));
    const float* attn = static_cast<const float*>(ContiguousAs(HeadView(tensor(kAttn), layout, dv), type, 4));
    std::vector<float> max(static_cast<size_t>(tensor(kMax).numel())), sum(max.size());
    GatherAs(tensor(kMax), ComputeType::kFloat32, max.data());
    GatherAs(tensor(kSum), ComputeType::kFloat32, sum.data());
    std::vector<double> dq(static_cast<size_t>(q.b * q.n * q.s * q.d), 0.0);
    std::vector<double> dk(static_cast<size_t>(kv.b * kv.n * kv.s * kv.d), 0.0), dvs(static_cast<size_t>(kv.b * kv.n * kv.s * dv), 0.0);
    std::vector<double> ds_full(dpse ? static_cast<size_t>(q.b * q.n * q.s * kv.s) : 0, 0.0);
    const int64_t group = q.n / kv.n;
    // One task per batch and key/value head: it alone writes that head's dK and dV and its group's dQ.
    ParallelFor(batches * kv.n, [&](int64_t task) {
      const Sequence seq = SequenceOf(task / kv.n);
      const int64_t h = task % kv.n, bq = layout == Layout::kTND ? 0 : seq.batch;
      std::vector<double> s(static_cast<size_t>(seq.skv));
      for (int64_t n = h * group; n < (h + 1) * group; ++n) {
        for (int64_t i = 0; i < seq.sq; ++i) {
          Scores(seq, n, i, s.data());
          const int64_t stat = StatRow(seq, n, i) * kStatWidth;
          const double mx = max[stat], total = sum[stat];
          const int64_t qrow = (bq * q.n + n) * q.s + seq.q0 + i;
          const float* dyi = dy + qrow * dv;
          const float* oi = attn + qrow * dv;
          const float* qi = q_ + qrow * q.d;
          double row = 0;
          for (int64_t d = 0; d < dv; ++d) row += static_cast<double>(dyi[d]) * oi[d];
          for (int64_t j = 0; j < seq.skv; ++j) {
            const double p = total > 0 && !std::isinf(s[j]) ? std::exp(s[j] - mx) / total : 0.0;
            if (p == 0) continue;
            const int64_t krow = (bq * kv.n + h) * kv.s + seq.k0 + j;
            const float* vj = v_ + krow * dv;
            const float* kj = k_ + krow * kv.d;
            const double kept = Kept(seq, n, i, j);
            double dp = 0;
            for (int64_t d = 0; d < dv; ++d) dp += static_cast<double>(dyi[d]) * vj[d];
            const double ds = p * (dp * kept - row);
            for (int64_t d = 0; d < dv; ++d) dvs[krow * dv + d] += p * kept * dyi[d];
            for (int64_t d = 0; d < q.d; ++d) {
              dq[qrow * q.d + d] += scale * ds * kj[d];
              dk[krow * kv.d + d] += scale * ds * qi[d];
            }
            if (dpse) ds_full[((seq.batch * q.n + n) * q.s + i) * kv.s + j] = pse_type == 1 ? scale * ds : ds;
          }
        }
      }
    });
    Write(dq, HeadView(tensor(kDq), layout, q.d));
    Write(dk, HeadView(tensor(kDk), layout, kv.d));
    Write(dvs, HeadView(tensor(kDv), layout, dv));
    if (dpse) WritePseGradient(ds_full);
    return ACLNN_SUCCESS;
  }

  static void Write(const std::vector<double>& values, const TensorRef& t) {
    std::vector<float> narrowed(values.begin(), values.end());
    ScatterFrom(narrowed.data(), ComputeType::kFloat32, t);
  }

  // dS of [B, N, Sq, Skv] summed onto pse's shape (its dimensions of 1 broadcast).
  void WritePseGradient(const std::vector<double>& full) {
    const TensorRef& out = tensor(kDpse);
    const Dims& shape = out.shape;  // 4-d, checked in phase 1
    std::vector<double> summed(static_cast<size_t>(out.numel()), 0.0);
    const int64_t dims[4] = {q.b, q.n, q.s, kv.s};
    int64_t at = 0;
    for (int64_t a = 0; a < dims[0]; ++a) {
      for (int64_t b = 0; b < dims[1]; ++b) {
        for (int64_t c = 0; c < dims[2]; ++c) {
          for (int64_t d = 0; d < dims[3]; ++d, ++at) {
            const int64_t to = ((std::min(a, shape[0] - 1) * shape[1] + std::min(b, shape[1] - 1)) * shape[2] +
                                std::min(c, shape[2] - 1)) * shape[3] + std::min(d, shape[3] - 1);
            summed[static_cast<size_t>(to)] += full[static_cast<size_t>(at)];
          }
        }
      }
    }
    Write(summed, out);
  }

  int op_;
  const float* q_ = nullptr;
  const float* k_ = nullptr;
  const float* v_ = nullptr;
  const float* mask_ = nullptr;
  const float* pse_ = nullptr;
  const int64_t* drop_ = nullptr;
};

// The planner's reading of the call: every rejection names the parameter and the value.
class Reader {
 public:
  Reader(const Call& call, const FamilySpec& family) : call_(call), family_(family) {}

  aclnnStatus Reject(int role, const std::string& message) const {
    return RejectInvalid(call_, family_, role, message);
  }

  std::string Text(int role) const { return RoleText(call_, family_, role); }

  // A tensor given with elements (op-plugin passes absent optional outputs as [0]).
  const TensorDesc* Given(int role) const {
    const TensorDesc* t = RoleTensor(call_, family_, role);
    return t && t->numel() > 0 ? t : nullptr;
  }

 private:
  const Call& call_;
  const FamilySpec& family_;
};

bool ParseLayout(const std::string& text, Layout* layout) {
  static const char* const kNames[] = {"BSH", "SBH", "BSND", "BNSD", "TND"};
  for (int i = 0; i < 5; ++i) {
    if (text == kNames[i]) return *layout = static_cast<Layout>(i), true;
  }
  return false;
}

// [B, N, S, D] of a query-, key- or value-like tensor in `layout`; `d` splits BSH's and SBH's H.
Heads HeadsOf(const Dims& s, Layout layout, int64_t d) {
  switch (layout) {
    case Layout::kBSH: return {s[0], d ? s[2] / d : 0, s[1], d};
    case Layout::kSBH: return {s[1], d ? s[2] / d : 0, s[0], d};
    case Layout::kBSND: return {s[0], s[2], s[1], s[3]};
    case Layout::kBNSD: return {s[0], s[1], s[2], s[3]};
    default: return {1, s[1], s[0], s[2]};
  }
}

// The cumulative sequence ends of `role`: non-decreasing from 0, the last `total` (T).
aclnnStatus ReadEnds(const Call& call, const FamilySpec& family, const Reader& r, int role, int64_t total, Dims* ends) {
  if (!RoleInts(call, family, role, ends) || ends->empty()) {
    return r.Reject(role, "is required (the cumulative sequence lengths) with the TND layout");
  }
  int64_t last = 0;
  for (int64_t e : *ends) {
    if (e < last) return r.Reject(role, DimsText(*ends) + " does not rise from 0 (cumulative sequence ends)");
    last = e;
  }
  if (last != total) {
    return r.Reject(role, DimsText(*ends) + " ends at " + std::to_string(last) + ", not at T = " + std::to_string(total));
  }
  return ACLNN_SUCCESS;
}

// aclnnTransformBiasRescaleQkv: out (q), k_out, v_out from self (qkv) and bias.
class TransformWork final : public FamilyWork {
 public:
  explicit TransformWork(const char* api) : FamilyWork(api, 5) {}
  int64_t heads = 1;

 private:
  aclnnStatus Compute() override {
    const Dims& shape = tensor(0).shape;
    const int64_t b = shape[0], t = shape[1], h = shape[2] / 3, d = h / heads;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(0), type, 0));
    const float* bias = static_cast<const float*>(ContiguousAs(tensor(1), type, 1));
    std::vector<float> out(static_cast<size_t>(b * t * h));
    for (int64_t part = 0; part < 3; ++part) {
      const float factor = part == 0 ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))) : 1.0f;
      for (int64_t row = 0; row < b * t; ++row) {
        const float* in = x + row * 3 * h + part * h;
        for (int64_t e = 0; e < h; ++e) {
          const int64_t n = e / d;
          out[static_cast<size_t>((((row / t) * heads + n) * t + row % t) * d + e % d)] = (in[e] + bias[part * h + e]) * factor;
        }
      }
      ScatterFrom(out.data(), ComputeType::kFloat32, tensor(2 + static_cast<int>(part)));
    }
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanTransform(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const Reader r(call, family);
  const TensorDesc* qkv = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  const int outs[3] = {F::Role::kOut, F::Role::kKOut, F::Role::kVOut};
  if (!qkv || !bias) return Decline(call, work, "without its tensors");
  for (int role : outs) {
    if (!RoleTensor(call, family, role)) return Decline(call, work, "without its outputs");
  }
  if (!ComputesInFloat32(qkv->dtype)) return DeclineDtype(call, work, qkv->dtype);
  const int64_t heads = RoleInt(call, family, F::Role::kHeadNum, 0);
  if (qkv->view.size() != 3 || qkv->view[2] % 3 != 0) {
    return r.Reject(F::Role::kSelf, "shape " + DimsText(qkv->view) + " is not [B, T, 3 * num_heads * dim_per_head]");
  }
  if (heads <= 0 || (qkv->view[2] / 3) % heads != 0) {
    return r.Reject(F::Role::kHeadNum, std::to_string(heads) + " does not divide " + std::to_string(qkv->view[2] / 3) +
                                           " (a third of qkv's last dimension) into heads");
  }
  if (bias->view != Dims{qkv->view[2]}) {
    return r.Reject(F::Role::kBias, "shape " + DimsText(bias->view) + " is not [" + std::to_string(qkv->view[2]) + "]");
  }
  TransformWork* made = new TransformWork(call.spec.name);
  std::unique_ptr<TransformWork> owned(made);
  made->type = ComputeType::kFloat32;
  made->heads = heads;
  made->tensor(0).Set(RoleName(call, family, F::Role::kSelf), *qkv);
  made->tensor(1).Set(RoleName(call, family, F::Role::kBias), *bias);
  const Dims shape = {qkv->view[0], heads, qkv->view[1], qkv->view[2] / 3 / heads};
  for (int part = 0; part < 3; ++part) {
    const TensorDesc* t = RoleTensor(call, family, outs[part]);
    if (aclnnStatus s = made->KeepOutput(call, family, outs[part], *t, shape, "[B, num_heads, T, dim_per_head]", 2 + part)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

// aclnnMaskedSoftmaxWithRelPosBias: out = softmax(scale * x + mask + bias) along the last dimension,
// x seen as [B, W, N, S1, S2], the mask [1, W, 1, S1, S2] and the bias [1, 1, N, S1, S2] broadcast to it.
class WindowWork final : public FamilyWork {
 public:
  explicit WindowWork(const char* api) : FamilyWork(api, 4) {}
  double scale = 1;
  bool mask = false;

 private:
  aclnnStatus Compute() override {
    const TensorRef& x = tensor(0);
    const int64_t n = x.numel(), row = x.shape.back();
    std::vector<float> values(static_cast<size_t>(n)), shift(static_cast<size_t>(n), 0.0f), add(values.size());
    GatherAs(x, ComputeType::kFloat32, values.data());
    if (mask) GatherAs(tensor(1), ComputeType::kFloat32, shift.data());
    GatherAs(tensor(2), ComputeType::kFloat32, add.data());
    ParallelFor(n / row, [&](int64_t r) {
      float* y = values.data() + r * row;
      const float* m = shift.data() + r * row;
      const float* b = add.data() + r * row;
      double top = -std::numeric_limits<double>::infinity(), total = 0;
      std::vector<double> e(static_cast<size_t>(row));
      for (int64_t j = 0; j < row; ++j) top = std::max(top, e[j] = scale * y[j] + m[j] + b[j]);
      for (double& v : e) total += v = std::exp(v - top);
      for (int64_t j = 0; j < row; ++j) y[j] = static_cast<float>(e[j] / total);
    });
    ScatterFrom(values.data(), ComputeType::kFloat32, tensor(3));
    return ACLNN_SUCCESS;
  }
};

// A [.., S1, S2] tensor whose dimension `from` (counted from the end, past S1 and S2) is the window
// (or head) dimension, seen as [1, W, 1, S1, S2] (window) or [1, 1, N, S1, S2]; false when its
// dimensions are not that one and 1s.
bool WindowView(const TensorDesc& t, const char* name, bool window, TensorRef* out) {
  const size_t rank = t.view.size();
  if (rank < 3 || rank > 5) return false;
  out->Set(name, t);
  const size_t at = rank == 5 ? (window ? 1 : 2) : rank == 4 ? (window ? 0 : 1) : 0;
  for (size_t k = 0; k + 2 < rank; ++k) {
    if (k != at && t.view[k] != 1) return false;
  }
  const Dims shape = {1, window ? t.view[at] : 1, window ? 1 : t.view[at], t.view[rank - 2], t.view[rank - 1]};
  const Dims strides = {0, window ? t.strides[at] : 0, window ? 0 : t.strides[at], t.strides[rank - 2], t.strides[rank - 1]};
  out->shape = shape, out->strides = strides;
  return true;
}

aclnnStatus PlanWindowSoftmax(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const Reader r(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !bias || !out) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter reject(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  WindowWork* made = new WindowWork(call.spec.name);
  std::unique_ptr<WindowWork> owned(made);
  made->type = ComputeType::kFloat32;
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  const Dims& v = x->view;
  if (v.size() != 4 && v.size() != 5) return reject(F::Role::kSelf, "shape " + DimsText(v) + " is not 4-d or 5-d");
  TensorRef mask, shift;
  const TensorDesc* m = r.Given(F::Role::kAttenMask);
  if (m && !WindowView(*m, RoleName(call, family, F::Role::kAttenMask), true, &mask)) {
    return reject(F::Role::kAttenMask, "shape " + DimsText(m->view) + " is not [W, S1, S2], [W, 1, S1, S2] or [1, W, 1, S1, S2]");
  }
  if (!WindowView(*bias, RoleName(call, family, F::Role::kBias), false, &shift)) {
    return reject(F::Role::kBias, "shape " + DimsText(bias->view) + " is not [N, S1, S2], [1, N, S1, S2] or [1, 1, N, S1, S2]");
  }
  const int64_t w = m ? mask.shape[1] : 1;
  TensorRef input;
  input.Set(RoleName(call, family, F::Role::kSelf), *x);
  if (v.size() == 4) {
    if (v[0] % w != 0) return reject(F::Role::kSelf, "shape " + DimsText(v) + ": B * W is not a multiple of W = " + std::to_string(w));
    input.shape = {v[0] / w, w, v[1], v[2], v[3]};
    input.strides = {w * x->strides[0], x->strides[0], x->strides[1], x->strides[2], x->strides[3]};
  }
  if ((m && !BroadcastRef(&mask, input.shape)) || !BroadcastRef(&shift, input.shape)) {
    return reject(m ? F::Role::kAttenMask : F::Role::kBias, "does not match x's windows, heads and S1 x S2 " + DimsText(v));
  }
  made->mask = m != nullptr;
  made->tensor(0) = input;
  if (m) made->tensor(1) = mask;
  made->tensor(2) = shift;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, v, "x's shape", 3)) return s;
  made->tensor(3).shape = input.shape;
  if (v.size() == 4) made->tensor(3).strides = {w * out->strides[0], out->strides[0], out->strides[1], out->strides[2], out->strides[3]};
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanAttention(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kTransformQkv) return PlanTransform(call, family, work);
  if (family.op == F::Op::kMaskedSoftmaxBias) return PlanWindowSoftmax(call, family, work);
  const Reader r(call, family);
  const bool grad = family.op == F::Op::kFlashAttentionGrad;
  const bool ifa = family.op == F::Op::kIncreFlashAttention, fused = family.op == F::Op::kFusedInferAttention;
  const std::string layout_text = r.Text(F::Role::kLayout);
  const TensorDesc* query = RoleTensor(call, family, F::Role::kQuery);
  // The fused API is the prompt one for a query of several positions, the incremental one for one.
  const bool one_position =
      query && query->view.size() >= 3 &&
      query->view[layout_text == "BNSD" || layout_text == "BNSD_BSND" ? std::min<size_t>(2, query->view.size() - 1) : 1] == 1;
  const bool incre = ifa || (fused && one_position);
  const bool prompt = family.op == F::Op::kPromptFlashAttention || (fused && !one_position);
  const bool infer = prompt || incre;
  // The incremental API's key and value are lists: one tensor for every batch is modelled.
  for (int role : {int(F::Role::kKey), int(F::Role::kValue)}) {
    const std::vector<TensorDesc>* list = RoleTensorList(call, family, role);
    if (list && list->size() != 1) {
      return r.Reject(role, "a list of " + std::to_string(list->size()) +
                                " tensors (one per batch) is not simulated: pass one tensor holding every batch");
    }
  }
  auto one_tensor = [&](int role) -> const TensorDesc* {
    const std::vector<TensorDesc>* list = RoleTensorList(call, family, role);
    return list ? &(*list)[0] : RoleTensor(call, family, role);
  };
  const TensorDesc* key = one_tensor(F::Role::kKey);
  const TensorDesc* value = one_tensor(F::Role::kValue);
  if (!query || !key || !value) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(query->dtype)) return DeclineDtype(call, work, query->dtype);
  AttentionWork* made = new AttentionWork(call.spec.name, family.op);
  std::unique_ptr<AttentionWork> owned(made);
  made->type = ComputeType::kFloat32;
  // The inference APIs' actualSeqLengths are per-batch lengths within padded sequences, not TND's ends.
  const bool varlen = !infer && family.roles[F::Role::kActualQ] >= 0;
  const bool split_out = (prompt || fused) && layout_text == "BNSD_BSND";  // BNSD in, BSND out
  if (split_out) {
    made->layout = Layout::kBNSD, made->out_layout = Layout::kBSND;
  } else if (!ParseLayout(layout_text, &made->layout) || (made->layout == Layout::kTND) != varlen ||
             (infer && made->layout == Layout::kSBH)) {
    return r.Reject(F::Role::kLayout, "\"" + layout_text + "\" is not " +
                                          (varlen   ? "TND, the layout of variable-length sequences"
                                           : ifa    ? "one of BSH, BSND, BNSD"
                                           : prompt ? "one of BSH, BSND, BNSD, BNSD_BSND (TND is not simulated)"
                                                    : "one of BSH, SBH, BSND, BNSD"));
  } else {
    made->out_layout = made->layout;
  }
  const Layout layout = made->layout;
  const size_t rank = layout == Layout::kBSND || layout == Layout::kBNSD ? 4 : 3;
  const TensorDesc* table = ifa || fused ? r.Given(F::Role::kBlockTable) : nullptr;
  made->paged = table != nullptr;
  for (int role : {int(F::Role::kQuery), int(F::Role::kKey), int(F::Role::kValue)}) {
    const TensorDesc* t = role == F::Role::kQuery ? query : one_tensor(role);
    if (made->paged && role != F::Role::kQuery) continue;  // a block cache: read below
    if (t->view.size() != rank || t->numel() == 0) {
      return r.Reject(role, "shape " + DimsText(t->view) + " is not a non-empty " + layout_text + " tensor");
    }
  }
  const int64_t head_num = RoleInt(call, family, F::Role::kHeadNum, 0);
  const bool hidden = layout == Layout::kBSH || layout == Layout::kSBH;
  if (head_num <= 0 || (hidden && query->view[2] % head_num != 0)) {
    return r.Reject(F::Role::kHeadNum, std::to_string(head_num) + " does not divide the query's H " +
                                           DimsText(query->view) + " into heads");
  }
  const int64_t d = hidden ? query->view[2] / head_num : query->view[rank - 1];
  made->q = HeadsOf(query->view, layout, d);
  if (ifa && made->q.s != 1) {
    return r.Reject(F::Role::kQuery, "shape " + DimsText(query->view) + " has a sequence of " +
                                         std::to_string(made->q.s) + ", not 1 (the page: query's S is 1)");
  }
  if (made->paged) {
    // [blocks, blockSize, H] or, for BNSD, [blocks, Nkv, blockSize, D]; the block size is the cache's.
    const Dims& c = key->view;
    if (!((c.size() == 3 && c[2] % d == 0) || (c.size() == 4 && layout == Layout::kBNSD && c[3] == d)) ||
        value->view != c) {
      return r.Reject(F::Role::kKey, "shape " + DimsText(c) + " (value " + DimsText(value->view) +
                                         ") is not one block cache [blocks, blockSize, H] (or, for BNSD, "
                                         "[blocks, Nkv, blockSize, D]) that value shares");
    }
    if (table->view.size() != 2 || table->view[0] != made->q.b) {
      return r.Reject(F::Role::kBlockTable, "shape " + DimsText(table->view) + " is not [B, maxBlocks] for B = " +
                                                std::to_string(made->q.b));
    }
    made->block_size = c.size() == 3 ? c[1] : c[2];
    made->kv = {made->q.b, c.size() == 3 ? c[2] / d : c[1], table->view[1] * made->block_size, d};
    made->tensor(kTable).Set(RoleName(call, family, F::Role::kBlockTable), *table);
  } else {
    made->kv = HeadsOf(key->view, layout, d);
  }
  if (hidden && !made->paged && key->view[2] % d != 0) {
    return r.Reject(F::Role::kKey, "shape " + DimsText(key->view) + ": its H is not a multiple of D = " + std::to_string(d));
  }
  const Heads& q = made->q;
  const Heads& kv = made->kv;
  const Heads v = made->paged ? made->kv
                 : hidden ? Heads{HeadsOf(value->view, layout, 1).b, kv.n, HeadsOf(value->view, layout, 1).s,
                                 kv.n ? value->view[2] / kv.n : 0}
                         : HeadsOf(value->view, layout, 0);
  made->dv = v.d;
  if (q.n != head_num) {
    return r.Reject(F::Role::kHeadNum, std::to_string(head_num) + " is not the query's N " + std::to_string(q.n));
  }
  const int64_t kv_heads = RoleInt(call, family, F::Role::kKvHeads, 0);
  if (kv_heads != 0 && kv_heads != kv.n) {
    return r.Reject(F::Role::kKvHeads, std::to_string(kv_heads) + " is not the key's N " + std::to_string(kv.n));
  }
  if (infer) {
    Dims lengths;
    if (RoleInts(call, family, F::Role::kActualQ, &lengths) && !lengths.empty()) {
      return r.Reject(F::Role::kActualQ, DimsText(lengths) + ": per-batch query lengths are not simulated (pass none)");
    }
  }
  if (infer) {
    // Per-batch key/value lengths: one for every batch, or at least B (the first B taken).
    Dims lengths;
    if (RoleInts(call, family, F::Role::kActualKv, &lengths) && !lengths.empty()) {
      if (lengths.size() != 1 && static_cast<int64_t>(lengths.size()) < made->q.b) {
        return r.Reject(F::Role::kActualKv, DimsText(lengths) + " has neither 1 nor B = " + std::to_string(made->q.b) +
                                                " lengths");
      }
      for (int64_t b = 0; b < made->q.b; ++b) {
        const int64_t length = lengths[lengths.size() == 1 ? 0 : static_cast<size_t>(b)];
        if (length < 0 || length > made->kv.s) {
          return r.Reject(F::Role::kActualKv, DimsText(lengths) + ": " + std::to_string(length) + " is outside [0, " +
                                                  std::to_string(made->kv.s) + "]");
        }
        made->kv_lengths.push_back(length);
      }
    } else if (made->paged) {
      return r.Reject(F::Role::kActualKv, "is required with blockTable (the page: page attention needs actualSeqLengths)");
    }
  }
  if (kv.b != q.b || kv.d != q.d || kv.n == 0 || q.n % kv.n != 0) {
    return r.Reject(F::Role::kKey, "shape " + DimsText(key->view) + " does not match the query's " +
                                       DimsText(query->view) + " (one B and D; N a divisor of the query's)");
  }
  if (v.b != kv.b || v.n != kv.n || v.s != kv.s || v.d > kv.d || v.d == 0 ||
      (hidden && value->view[2] % kv.n != 0)) {
    return r.Reject(F::Role::kValue, "shape " + DimsText(value->view) + " is not the key's " + DimsText(key->view) +
                                         " but for a D no larger");
  }
  if (layout == Layout::kTND) {
    if (aclnnStatus s = ReadEnds(call, family, r, F::Role::kActualQ, q.s, &made->q_ends)) return s;
    if (aclnnStatus s = ReadEnds(call, family, r, F::Role::kActualKv, kv.s, &made->kv_ends)) return s;
    if (made->q_ends.size() != made->kv_ends.size()) {
      return r.Reject(F::Role::kActualKv, DimsText(made->kv_ends) + " has not as many sequences as " +
                                              DimsText(made->q_ends));
    }
    made->batches = static_cast<int64_t>(made->q_ends.size());
  } else {
    made->batches = q.b;
  }
  made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1.0);
  made->keep_prob = RoleNumber(call, family, F::Role::kKeepProb, -1, 1.0);
  if (!(made->keep_prob > 0 && made->keep_prob <= 1)) {
    return r.Reject(F::Role::kKeepProb, std::to_string(made->keep_prob) + " is not in (0, 1]");
  }
  made->pre_tokens = RoleInt(call, family, F::Role::kPreTokens, 2147483647);
  made->next_tokens = RoleInt(call, family, F::Role::kNextTokens, 2147483647);
  made->sparse_mode = RoleInt(call, family, F::Role::kSparseMode, 0);
  if (made->sparse_mode < 0 || made->sparse_mode > 4) {
    return r.Reject(F::Role::kSparseMode, std::to_string(made->sparse_mode) +
                                              " is not simulated (modes 0 to 4 are: prefix and the varlen bands are not)");
  }
  made->pse_type = RoleInt(call, family, F::Role::kPseType, 1);
  if (made->pse_type != 0 && made->pse_type != 1) {
    return r.Reject(F::Role::kPseType, std::to_string(made->pse_type) +
                                           " (a pse the operator generates) is not simulated; 0 and 1 are");
  }
  const std::string stats = r.Text(F::Role::kSoftmaxLayout);
  if (!stats.empty() && stats != "same_as_input") {
    return r.Reject(F::Role::kSoftmaxLayout, "\"" + stats + "\" is not \"\" or \"same_as_input\"");
  }
  made->stats_tnd = stats == "same_as_input";
  const Dims scores = {q.b, q.n, q.s, kv.s};
  if (const TensorDesc* pse = r.Given(F::Role::kPse)) {
    TensorRef probe;
    probe.Set("", *pse);
    if (layout == Layout::kTND) return r.Reject(F::Role::kPse, "with the TND layout is not simulated");
    if (infer) return r.Reject(F::Role::kPse, "(pseShift) is not simulated for the inference APIs");
    if (pse->view.size() != 4 || !BroadcastRef(&probe, scores)) {
      return r.Reject(F::Role::kPse, "shape " + DimsText(pse->view) + " does not broadcast to [B, N, Sq, Skv] " +
                                         DimsText(scores));
    }
    made->pse = true;
    made->tensor(kPse).Set(RoleName(call, family, F::Role::kPse), *pse);
  }
  if (const TensorDesc* mask = r.Given(F::Role::kAttenMask)) {
    made->masked = true;
    made->mask_read = made->sparse_mode <= 1;
    if (made->mask_read) {
      if (layout == Layout::kTND) {
        return r.Reject(F::Role::kAttenMask, "of sparse mode " + std::to_string(made->sparse_mode) +
                                                 " with the TND layout is not simulated (modes 2 to 4 are)");
      }
      TensorRef full;
      full.Set(RoleName(call, family, F::Role::kAttenMask), *mask);
      // The prompt API's masks may be [B, Sq, Skv] and padded past Sq and Skv (its page: "padding到32对齐").
      const size_t rank_of_mask = mask->view.size();
      if (incre && rank_of_mask >= 2 && full.shape[0] == q.b && full.shape[rank_of_mask - 1] >= kv.s) {
        // [B, Skv], [B, 1, Skv], [B, 1, 1, Skv]: one row of keys per batch
        full.shape = {q.b, 1, 1, kv.s}, full.strides = {full.strides[0], 0, 0, full.strides[rank_of_mask - 1]};
      } else if (prompt && rank_of_mask >= 2 && full.shape[rank_of_mask - 2] >= q.s &&
                 full.shape[rank_of_mask - 1] >= kv.s) {
        full.shape[rank_of_mask - 2] = q.s, full.shape[rank_of_mask - 1] = kv.s;
        if (rank_of_mask == 3) {
          full.shape = {full.shape[0], 1, q.s, kv.s}, full.strides = {full.strides[0], 0, full.strides[1], full.strides[2]};
        }
      }
      if ((rank_of_mask != 2 && rank_of_mask != 4 && !(infer && rank_of_mask == 3)) || !BroadcastRef(&full, scores)) {
        return r.Reject(F::Role::kAttenMask, "shape " + DimsText(mask->view) + " is not one of [B, N, Sq, Skv], "
                                                 "[B, 1, Sq, Skv], [1, 1, Sq, Skv], [Sq, Skv] for " + DimsText(scores));
      }
      made->tensor(kMask) = full;
    }
  }
  if (made->keep_prob < 1) {
    int64_t elements = 0;
    for (int64_t b = 0; b < made->batches; ++b) {
      elements += layout == Layout::kTND
                      ? q.n * (made->q_ends[b] - (b ? made->q_ends[b - 1] : 0)) *
                            (made->kv_ends[b] - (b ? made->kv_ends[b - 1] : 0))
                      : q.n * q.s * kv.s;
    }
    const TensorDesc* drop = r.Given(F::Role::kDropMask);
    if (!drop || drop->numel() * 8 < elements) {
      return r.Reject(F::Role::kDropMask, "must hold a bit for each of the " + std::to_string(elements) +
                                              " scores when keepProb is below 1 (the mask is not generated here)");
    }
    made->dropout = true;
    made->tensor(kDrop).Set(RoleName(call, family, F::Role::kDropMask), *drop);
  }
  made->tensor(kQ).Set(RoleName(call, family, F::Role::kQuery), *query);
  made->tensor(kK).Set(RoleName(call, family, F::Role::kKey), *key);
  made->tensor(kV).Set(RoleName(call, family, F::Role::kValue), *value);
  const Layout cache = made->paged && key->view.size() == 3 ? Layout::kBSH : layout;  // a cache's blocks as batches
  made->tensor(kQ) = HeadView(made->tensor(kQ), layout, d);
  made->tensor(kK) = HeadView(made->tensor(kK), made->paged ? cache : layout, d);
  made->tensor(kV) = HeadView(made->tensor(kV), made->paged ? cache : layout, v.d);
  // attentionOut's (dy's) shape: the query's with the value's head dimension.
  Dims out_shape = query->view;
  out_shape.back() = hidden ? q.n * v.d : v.d;
  Dims stat_shape = {q.b, q.n, q.s, kStatWidth};
  if (layout == Layout::kTND) stat_shape = made->stats_tnd ? Dims{q.s, q.n, kStatWidth} : Dims{q.n, q.s, kStatWidth};
  if (split_out) out_shape = {q.b, q.s, q.n, v.d};
  const TensorDesc* attention = RoleTensor(call, family, F::Role::kAttention);
  if (infer) {
    if (!attention) return Decline(call, work, "without attentionOut");
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAttention, *attention, out_shape,
                                         "the query's shape (BNSD_BSND: as BSND) with the value's D", kAttn)) {
      return s;
    }
    if (const TensorDesc* lse = r.Given(F::Role::kSoftmaxMax)) {
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSoftmaxMax, *lse, {q.b, q.n, q.s, 1},
                                           "[B, N, Sq, 1]", kMax)) {
        return s;
      }
      made->lse = true;
    }
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  made->stats = true;
  const TensorDesc* max = RoleTensor(call, family, F::Role::kSoftmaxMax);
  const TensorDesc* sum = RoleTensor(call, family, F::Role::kSoftmaxSum);
  if (!max || !sum || !attention) return Decline(call, work, "without softmaxMax, softmaxSum and the attention");
  // The pages' [N, T, 8] statistics are [T, N, 8] in torch_npu's calls: either holds them in layout order.
  auto stats_shape_ok = [&](const TensorDesc* t) {
    return t->view == stat_shape ||
           (layout == Layout::kTND && t->view == Dims{stat_shape[1], stat_shape[0], kStatWidth});
  };
  for (int role : {int(F::Role::kSoftmaxMax), int(F::Role::kSoftmaxSum)}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (!stats_shape_ok(t)) {
      return r.Reject(role, "shape " + DimsText(t->view) + " is not the statistics' " + DimsText(stat_shape));
    }
    made->tensor(role == F::Role::kSoftmaxMax ? kMax : kSum).Set(RoleName(call, family, role), *t);
  }
  if (!grad) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAttention, *attention, out_shape,
                                         "the query's shape with the value's D", kAttn)) {
      return s;
    }
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  const TensorDesc* dy = RoleTensor(call, family, F::Role::kDy);
  const TensorDesc* dq = RoleTensor(call, family, F::Role::kDq);
  const TensorDesc* dk = RoleTensor(call, family, F::Role::kDk);
  const TensorDesc* dvt = RoleTensor(call, family, F::Role::kDv);
  if (!dy || !dq || !dk || !dvt) return Decline(call, work, "without dy, dq, dk and dv");
  if (aclnnStatus s = CheckShape(call, family, F::Role::kDy, dy, out_shape, "attentionOut's shape")) return s;
  if (aclnnStatus s = CheckShape(call, family, F::Role::kAttention, attention, out_shape, "attentionOut's shape")) return s;
  made->tensor(kDy).Set(RoleName(call, family, F::Role::kDy), *dy);
  made->tensor(kAttn).Set(RoleName(call, family, F::Role::kAttention), *attention);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDq, *dq, query->view, "the query's shape", kDq)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDk, *dk, key->view, "the key's shape", kDk)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDv, *dvt, value->view, "the value's shape", kDv)) return s;
  const TensorDesc* dpse = r.Given(F::Role::kDpse);
  if (made->pse && dpse) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kDpse, *dpse, RoleTensor(call, family, F::Role::kPse)->view,
                                         "pse's shape", kDpse)) {
      return s;
    }
    made->dpse = true;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
