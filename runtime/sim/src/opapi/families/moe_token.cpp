// The moe_token family, Megatron-style token permutation (derived pages from the ops' READMEs, the
// permutation's direction and tie order from torch_npu's documentation): pair q < N*K is (token q / K, slot
// q % K), sortedIndices[q] its permuted row.
//   permute       aclnnMoeTokenPermute (npu_moe_token_permute): sortedIndicesOut[q] = the rank of q in a stable
//                 sort of indices by expert; permuteTokensOut[rank] = tokens[q / K] for the first numOutTokens
//                 ranks (0: all; negative: N*K + numOutTokens), copied exactly.
//   permute_grad  aclnnMoeTokenPermuteGrad: out[t] = sum over k of permutedOutputGrad[sortedIndices[t*K + k]],
//                 the forward's adjoint: an index in [M, N*K) is a row numOutTokens dropped and adds 0.
//   unpermute     aclnnMoeTokenUnpermute (npu_moe_token_unpermute): out[t] = sum over k of
//                 permutedTokens[sortedIndices[t*K + k]] * probs[t, k] (K = 1, unweighted, without probs).
//   unpermute_grad  aclnnMoeTokenUnpermuteGrad: permutedTokensGradOut[sortedIndices[q]] = grad[q / K] * probs[q / K,
//                 q % K], the rows no index reaches 0 (the forward does not read them); probsGradOut[t, k] =
//                 grad[t] . permutedTokens[sortedIndices[t*K + k]] (not written without probs).
//   permute_map   aclnnMoeTokenPermuteWithRoutingMap (npu_moe_token_permute_with_routing_map): the (token, expert)
//                 cells routingMap [T, E] marks, expert-major, K = numOutTokens / T of them a row; permuteTokensOut[p]
//                 the token of cell p, permuteProbsOutOptional[p] its prob, sortedIndicesOut their stable argsort by token.
//   unpermute_map  aclnnMoeTokenUnpermuteWithRoutingMap: out[i / K] += permutedTokens[sortedIndices[i]] *
//                 permuteProbs[sortedIndices[i]] (the probs at the marked cells, expert-major; at most K a row), -1 an
//                 empty slot; permuteTokenId, outIndex sortedIndices' stable sort.
//   permute_map_grad, unpermute_map_grad  their Grad APIs: each forward's adjoint (the pages say where their
//                 READMEs' formulas contradict the forwards). outIndex and permuteTokenId are both the forward's
//                 sortedIndices, as torch_npu's autograd passes them; a permuteTokenId that differs fails phase 2.
// Sums in float, rounded once. paddedMode true (unsupported by the READMEs) is refused; restoreShapeOptional,
// which only padded mode reads, is unused. Indices are device data, checked in phase 2: an expert outside
// [0, 16777215) (the README: its sort is wrong there), a sortedIndices value outside the permuted rows, or held
// twice where the grad scatters by it, fails naming the tensor.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/moe_indexed.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using M = MoeTokenFamily;

enum TokenSlot {
  kTokenRows, kTokenIndices, kPermutedRows, kSortedIdx, kProbs, kPermutedGrad, kProbsGrad, kRoutingMap, kPermutedProbs,
  kOutIndex, kTokenId, kTokenSlots
};

// The README's bounds on the experts of aclnnMoeTokenPermute's indices (values and count).
constexpr int64_t kMaxTokenIndex = 16777215;
constexpr int64_t kMaxTopK = 512;
// The sortedIndices value of a slot a token leaves empty in the routing-map unpermute.
constexpr int64_t kEmptySlot = -1;

class TokenWork final : public IndexedWork {
 public:
  TokenWork(const char* api, int op) : IndexedWork(api, kTokenSlots), op_(op) {}

  int64_t tokens = 0, top_k = 1, hidden = 0, permuted_rows = 0, kept = 0, experts = 0;
  bool probs = false;

 private:
  aclnnStatus Compute() override {
    const int64_t pairs = tokens * top_k;
    if (op_ == M::Op::kPermute) return Permute(pairs);
    if (op_ == M::Op::kPermuteMap) return PermuteMap();
    if (op_ == M::Op::kUnpermuteMap) return UnpermuteMap(pairs);
    if (op_ == M::Op::kPermuteMapGrad) return PermuteMapGrad(pairs);
    if (op_ == M::Op::kUnpermuteMapGrad) return UnpermuteMapGrad(pairs);
    const std::vector<int64_t> idx = Int64s(kSortedIdx);
    std::vector<char> seen(op_ == M::Op::kUnpermuteGrad ? static_cast<size_t>(permuted_rows) : 0);
    // permute_grad is the forward's adjoint: a row the forward dropped with numOutTokens (an index in
    // [M, tokens * topK), the forward's ranks past the kept ones) received no token, so its slot adds 0.
    const int64_t readable = op_ == M::Op::kPermuteGrad ? std::max(pairs, permuted_rows) : permuted_rows;
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t v = idx[static_cast<size_t>(q)];
      // In the unpermutes a row past them is one num_out_tokens dropped: the READMEs' formulas read every row,
      // and torch_npu's documentation of npu_moe_token_unpermute takes permuted_tokens of tokens_num *
      // topK_num rows and sorted_indices in [0, tokens_num * topK_num - 1]; no document says what it adds.
      if (op_ == M::Op::kPermuteGrad && (v < 0 || v >= readable)) {
        return OutOfRange(kSortedIdx, q, v, readable, "tokens * topK, the forward's ranks");
      }
      if (v < 0 || v >= readable) {
        return OutOfRange(kSortedIdx, q, v, permuted_rows,
                          "the permuted rows; a row num_out_tokens dropped, which neither the README's formula nor "
                          "torch_npu's documentation defines (npu_moe_token_unpermute's permuted_tokens has "
                          "tokens_num * topK_num rows)");
      }
      if (!seen.empty() && seen[static_cast<size_t>(v)]++) {
        return BadIndex(kSortedIdx, q, v, "an index an earlier element holds: the gradient's scatter writes each "
                                          "permuted row once");
      }
    }
    const float* weights = probs ? Floats(kProbs, 2, pairs) : nullptr;
    auto weight = [&](int64_t q) { return weights ? weights[q] : 1.0f; };
    if (op_ == M::Op::kUnpermuteGrad) {
      const float* grad = Floats(kTokenRows, 0, tokens * hidden);
      std::vector<float> out(static_cast<size_t>(permuted_rows * hidden));
      ParallelFor(pairs, [&](int64_t q) {
        float* o = out.data() + idx[static_cast<size_t>(q)] * hidden;
        for (int64_t h = 0; h < hidden; ++h) o[h] = grad[q / top_k * hidden + h] * weight(q);
      });
      ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kPermutedGrad));
      if (!probs) return ACLNN_SUCCESS;
      const float* permuted = Floats(kPermutedRows, 1, permuted_rows * hidden);
      std::vector<float> dots(static_cast<size_t>(pairs));
      ParallelFor(pairs, [&](int64_t q) {
        float sum = 0;
        for (int64_t h = 0; h < hidden; ++h) sum += grad[q / top_k * hidden + h] * permuted[idx[static_cast<size_t>(q)] * hidden + h];
        dots[static_cast<size_t>(q)] = sum;
      });
      ScatterFrom(dots.data(), ComputeType::kFloat32, tensor(kProbsGrad));
      return ACLNN_SUCCESS;
    }
    // permute_grad and unpermute: each token's row is the (weighted) sum of its K permuted rows.
    const float* permuted = Floats(kPermutedRows, 1, permuted_rows * hidden);
    std::vector<float> out(static_cast<size_t>(tokens * hidden));
    ParallelFor(tokens, [&](int64_t t) {
      float* o = out.data() + t * hidden;
      for (int64_t q = t * top_k; q < (t + 1) * top_k; ++q) {
        if (idx[static_cast<size_t>(q)] >= permuted_rows) continue;  // permute_grad's dropped row: adds 0
        const float* row = permuted + idx[static_cast<size_t>(q)] * hidden;
        for (int64_t h = 0; h < hidden; ++h) o[h] += row[h] * weight(q);
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kTokenRows));
    return ACLNN_SUCCESS;
  }

  // The (token, expert) cells routingMap marks, t * experts + e in expert-major order (the README's masked
  // select of routingMap.T). A row holds topK marks, or at most topK where torch_npu's documentation of
  // npu_moe_token_unpermute_with_routing_map lets a token leave slots empty ("每个token最多预留topK_num个专家槽位，
  // routing_map中每行为1或true的个数小于等于topK_num"); another count fails naming routingMap.
  aclnnStatus MarkedCells(bool at_most, std::vector<int64_t>* cells) {
    const std::vector<int64_t> map = Int64s(kRoutingMap);
    for (int64_t t = 0; t < tokens; ++t) {
      int64_t marks = 0;
      for (int64_t e = 0; e < experts; ++e) marks += map[static_cast<size_t>(t * experts + e)] != 0;
      if (at_most ? marks > top_k : marks != top_k) {
        return BadIndex(kRoutingMap, t, marks,
                        "the marks of that row, " + std::string(at_most ? "more than" : "not") + " topK = " +
                            std::to_string(top_k) +
                            (at_most ? " (torch_npu's documentation: at most topK_num a row)"
                                     : " (torch_npu's documentation: num_out_tokens // tokens_num is each row's "
                                       "count of marks)"));
      }
    }
    for (int64_t e = 0; e < experts; ++e) {
      for (int64_t t = 0; t < tokens; ++t) {
        if (map[static_cast<size_t>(t * experts + e)]) cells->push_back(t * experts + e);
      }
    }
    return ACLNN_SUCCESS;
  }

  // probsOptional's values at those cells, in float: the permuted probs.
  std::vector<float> ProbsAt(const std::vector<int64_t>& cells) {
    std::vector<float> all(static_cast<size_t>(tokens * experts)), picked;
    if (!all.empty()) GatherAs(tensor(kProbs), ComputeType::kFloat32, all.data());
    for (int64_t cell : cells) picked.push_back(all[static_cast<size_t>(cell)]);
    return picked;
  }

  // A [tokens, experts] tensor zero but at the marked cells, which hold values in expert order (the
  // adjoint of the masked select: the README's masked_scatter, by routingMap.T).
  void ScatterCells(const std::vector<int64_t>& cells, const std::vector<float>& values, int slot) {
    std::vector<float> out(static_cast<size_t>(tokens * experts));
    for (size_t p = 0; p < cells.size(); ++p) out[static_cast<size_t>(cells[p])] = values[p];
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(slot));
  }

  aclnnStatus PermuteMap() {
    std::vector<int64_t> cells;
    if (aclnnStatus s = MarkedCells(false, &cells)) return s;
    const int64_t pairs = static_cast<int64_t>(cells.size());
    std::vector<int64_t> order(static_cast<size_t>(pairs));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return cells[static_cast<size_t>(a)] / experts < cells[static_cast<size_t>(b)] / experts;
    });
    ScatterFrom(order.data(), ComputeType::kInt64, tensor(kSortedIdx));
    if (probs) ScatterFrom(ProbsAt(cells).data(), ComputeType::kFloat32, tensor(kPermutedProbs));
    const float* rows = Floats(kTokenRows, 0, tokens * hidden);
    ParallelFor(pairs, [&](int64_t p) {
      ScatterFrom(rows + cells[static_cast<size_t>(p)] / experts * hidden, ComputeType::kFloat32,
                  Row(tensor(kPermutedRows), p));
    });
    return ACLNN_SUCCESS;
  }

  // Slots whose sortedIndices value is -1 are empty (torch_npu's documentation: "sorted_indices中允许使用-1表示
  // 无效槽位") and add nothing.
  aclnnStatus UnpermuteMap(int64_t pairs) {
    const std::vector<int64_t> idx = Int64s(kSortedIdx);
    std::vector<int64_t> cells;
    std::vector<float> weight;
    if (probs) {
      if (aclnnStatus s = MarkedCells(true, &cells)) return s;
      weight = ProbsAt(cells);
    }
    const int64_t bound = probs ? std::min<int64_t>(permuted_rows, static_cast<int64_t>(weight.size())) : permuted_rows;
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t v = idx[static_cast<size_t>(q)];
      if (v != kEmptySlot && (v < 0 || v >= bound)) {
        return OutOfRange(kSortedIdx, q, v, bound, "the permuted rows" + std::string(probs ? " the map marks" : "") +
                                                       "; -1 an empty slot");
      }
    }
    std::vector<int64_t> order(static_cast<size_t>(pairs)), sorted(static_cast<size_t>(pairs));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return idx[static_cast<size_t>(a)] < idx[static_cast<size_t>(b)];
    });
    for (int64_t i = 0; i < pairs; ++i) sorted[static_cast<size_t>(i)] = idx[static_cast<size_t>(order[static_cast<size_t>(i)])];
    ScatterFrom(order.data(), ComputeType::kInt64, tensor(kOutIndex));
    ScatterFrom(sorted.data(), ComputeType::kInt64, tensor(kTokenId));
    if (probs) ScatterFrom(weight.data(), ComputeType::kFloat32, tensor(kPermutedProbs));
    const float* permuted = Floats(kPermutedRows, 1, permuted_rows * hidden);
    std::vector<float> out(static_cast<size_t>(tokens * hidden));
    ParallelFor(tokens, [&](int64_t t) {
      float* o = out.data() + t * hidden;
      for (int64_t q = t * top_k; q < (t + 1) * top_k; ++q) {
        const int64_t row = idx[static_cast<size_t>(q)];
        if (row == kEmptySlot) continue;
        const float w = probs ? weight[static_cast<size_t>(row)] : 1.0f;
        for (int64_t h = 0; h < hidden; ++h) o[h] += permuted[row * hidden + h] * w;
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kTokenRows));
    return ACLNN_SUCCESS;
  }

  // The adjoint of PermuteMap: a token's gradient is the sum of its rows' (sortedIndices[i] the row of its
  // slot i % topK), the probs' gradient the permuted probs' scattered back to the cells they were selected from.
  aclnnStatus PermuteMapGrad(int64_t pairs) {
    const std::vector<int64_t> idx = Int64s(kSortedIdx);
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t v = idx[static_cast<size_t>(q)];
      if (v < 0 || v >= permuted_rows) return OutOfRange(kSortedIdx, q, v, permuted_rows, "the permuted rows");
    }
    std::vector<int64_t> cells;
    if (probs) {
      if (aclnnStatus s = MarkedCells(false, &cells)) return s;
    }
    const float* grad = Floats(kPermutedRows, 0, permuted_rows * hidden);
    std::vector<float> out(static_cast<size_t>(tokens * hidden));
    ParallelFor(tokens, [&](int64_t t) {
      float* o = out.data() + t * hidden;
      for (int64_t q = t * top_k; q < (t + 1) * top_k; ++q) {
        const float* row = grad + idx[static_cast<size_t>(q)] * hidden;
        for (int64_t h = 0; h < hidden; ++h) o[h] += row[h];
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kTokenRows));
    if (!probs) return ACLNN_SUCCESS;
    std::vector<float> moved(cells.size());
    if (!moved.empty()) GatherAs(tensor(kPermutedProbs), ComputeType::kFloat32, moved.data());
    ScatterCells(cells, moved, kProbsGrad);
    return ACLNN_SUCCESS;
  }

  // The adjoint of UnpermuteMap. torch_npu's autograd passes the forward's sortedIndices as both outIndex and
  // permuteTokenId: outIndex[i] is the permuted row slot i (of token i / topK) read, -1 an empty slot. A row's
  // gradient is its token's, weighed by its permuted prob; the prob's, the dot product of its token's gradient
  // with the row, scattered back to the map's cells in expert order. A row no slot reads has gradient 0.
  aclnnStatus UnpermuteMapGrad(int64_t pairs) {
    const std::vector<int64_t> row = Int64s(kOutIndex), token_id = Int64s(kTokenId);
    std::vector<int64_t> cells;
    for (int64_t i = 0; i < pairs; ++i) {
      if (token_id[static_cast<size_t>(i)] != row[static_cast<size_t>(i)]) {
        return BadIndex(kTokenId, i, token_id[static_cast<size_t>(i)],
                        "not outIndex's " + std::to_string(row[static_cast<size_t>(i)]) +
                            ": torch_npu passes the forward's sortedIndices as both, and which slot and row the "
                            "device pairs from two different tensors is not said");
      }
    }
    std::vector<float> weight;
    if (probs) {
      if (aclnnStatus s = MarkedCells(true, &cells)) return s;
      weight = ProbsAt(cells);
    }
    const int64_t bound = probs ? std::min<int64_t>(permuted_rows, static_cast<int64_t>(cells.size())) : permuted_rows;
    std::vector<char> seen(static_cast<size_t>(permuted_rows));
    for (int64_t i = 0; i < pairs; ++i) {
      const int64_t r = row[static_cast<size_t>(i)];
      if (r == kEmptySlot) continue;
      if (r < 0 || r >= bound) {
        return OutOfRange(kOutIndex, i, r, bound, "the permuted rows" + std::string(probs ? " the map marks" : "") +
                                                      "; -1 an empty slot");
      }
      if (seen[static_cast<size_t>(r)]++) {
        return BadIndex(kOutIndex, i, r, "a row an earlier element holds: the README's scatter writes each permuted "
                                         "row once");
      }
    }
    const float* grad = Floats(kTokenRows, 0, tokens * hidden);
    const float* permuted = probs ? Floats(kPermutedRows, 1, permuted_rows * hidden) : nullptr;
    std::vector<float> out(static_cast<size_t>(permuted_rows * hidden)), dots(cells.size());
    ParallelFor(pairs, [&](int64_t i) {
      const int64_t r = row[static_cast<size_t>(i)];
      if (r == kEmptySlot) return;
      const float* g = grad + i / top_k * hidden;
      const float w = probs ? weight[static_cast<size_t>(r)] : 1.0f;
      float* o = out.data() + r * hidden;
      for (int64_t h = 0; h < hidden; ++h) o[h] = g[h] * w;
      if (!probs) return;
      float sum = 0;
      for (int64_t h = 0; h < hidden; ++h) sum += g[h] * permuted[r * hidden + h];
      dots[static_cast<size_t>(r)] = sum;
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kPermutedGrad));
    if (probs) ScatterCells(cells, dots, kProbsGrad);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Permute(int64_t pairs) {
    const std::vector<int64_t> experts = Int64s(kTokenIndices);
    for (int64_t q = 0; q < pairs; ++q) {
      const int64_t e = experts[static_cast<size_t>(q)];
      if (e < 0 || e >= kMaxTokenIndex) return OutOfRange(kTokenIndices, q, e, kMaxTokenIndex, "the README's experts");
    }
    std::vector<int64_t> order(static_cast<size_t>(pairs)), rank(static_cast<size_t>(pairs));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return experts[static_cast<size_t>(a)] < experts[static_cast<size_t>(b)];
    });
    for (int64_t r = 0; r < pairs; ++r) rank[static_cast<size_t>(order[static_cast<size_t>(r)])] = r;
    ScatterFrom(rank.data(), ComputeType::kInt64, tensor(kSortedIdx));
    // Rows are copied as floats: exact for every dtype the page lists.
    const float* rows = Floats(kTokenRows, 0, tokens * hidden);
    ParallelFor(kept, [&](int64_t r) {
      ScatterFrom(rows + order[static_cast<size_t>(r)] / top_k * hidden, ComputeType::kFloat32,
                  Row(tensor(kPermutedRows), r));
    });
    return ACLNN_SUCCESS;
  }

  int op_;
};

// The planner's view of one call: its tensors by role, and its rejections.
struct TokenCall {
  const Call& call;
  const FamilySpec& family;
  const ParamRejecter refuse;

  const TensorDesc* operator[](int role) const { return RoleTensor(call, family, role); }
  const char* name(int role) const { return RoleName(call, family, role); }
  // A 2-D [rows, H] tensor, or its rejection.
  aclnnStatus Matrix(int role, const char* what) const {
    const TensorDesc* t = (*this)[role];
    return t->view.size() == 2 ? ACLNN_SUCCESS : refuse(role, "shape " + DimsText(t->view) + " is not " + what);
  }
  aclnnStatus SameDType(int role, int as) const {
    const TensorDesc *t = (*this)[role], *other = (*this)[as];
    if (t->dtype == other->dtype) return ACLNN_SUCCESS;
    return refuse(role, std::string("dtype ") + DTypeName(t->dtype) + " is not " + name(as) + "'s " +
                            DTypeName(other->dtype));
  }
};

aclnnStatus PlanPermute(const TokenCall& c, TokenWork* made) {
  const TensorDesc *tokens = c[M::Role::kTokens], *indices = c[M::Role::kIndices];
  if (aclnnStatus s = c.Matrix(M::Role::kTokens, "[num_tokens, H]")) return s;
  if (indices->view.empty() || indices->view.size() > 2 || indices->view[0] != tokens->view[0]) {
    return c.refuse(M::Role::kIndices, "shape " + DimsText(indices->view) + " is not [num_tokens, topK] or [num_tokens] "
                                       "for tokens " + DimsText(tokens->view));
  }
  made->tokens = tokens->view[0];
  made->hidden = tokens->view[1];
  made->top_k = indices->view.size() == 2 ? indices->view[1] : 1;
  const int64_t pairs = made->tokens * made->top_k;
  if (made->top_k > kMaxTopK || pairs >= kMaxTokenIndex) {
    return c.refuse(M::Role::kIndices, "shape " + DimsText(indices->view) + ": topK is at most 512 and the elements "
                                       "fewer than 16777215");
  }
  const int64_t num_out = RoleInt(c.call, c.family, M::Role::kNumOut, 0);
  made->kept = num_out > 0 ? std::min(num_out, pairs) : pairs + num_out;
  if (made->kept < 0) {
    return c.refuse(M::Role::kNumOut, std::to_string(num_out) + " drops more than the " + std::to_string(pairs) + " rows");
  }
  if (aclnnStatus s = c.SameDType(M::Role::kPermuted, M::Role::kTokens)) return s;
  made->tensor(kTokenRows).Set(c.name(M::Role::kTokens), *tokens);
  made->tensor(kTokenIndices).Set(c.name(M::Role::kIndices), *indices);
  if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kPermuted, *c[M::Role::kPermuted],
                                       Dims{made->kept, made->hidden}, "[kept rows, H]", kPermutedRows)) {
    return s;
  }
  return made->KeepOutput(c.call, c.family, M::Role::kSortedIndices, *c[M::Role::kSortedIndices], Dims{pairs},
                          "[num_tokens * topK]", kSortedIdx);
}

// permute_map: tokens [T, H], routingMap [T, E] of topK = numOutTokens // T marks a row.
aclnnStatus PlanPermuteMap(const TokenCall& c, TokenWork* made) {
  const TensorDesc *tokens = c[M::Role::kTokens], *map = c[M::Role::kRoutingMap], *probs = c[M::Role::kProbs];
  if (aclnnStatus s = c.Matrix(M::Role::kTokens, "[tokens_num, H]")) return s;
  if (!map) return c.refuse(M::Role::kRoutingMap, "is null");
  if (map->view.size() != 2 || map->view[0] != tokens->view[0]) {
    return c.refuse(M::Role::kRoutingMap, "shape " + DimsText(map->view) + " is not [tokens_num, expert_num] for tokens " +
                                          DimsText(tokens->view));
  }
  made->tokens = tokens->view[0];
  made->hidden = tokens->view[1];
  made->experts = map->view[1];
  const int64_t num_out = RoleInt(c.call, c.family, M::Role::kNumOut, made->tokens);
  made->top_k = made->tokens ? num_out / made->tokens : 0;
  if (made->top_k < 0 || made->top_k >= kMaxTopK || made->top_k > made->experts) {
    return c.refuse(M::Role::kNumOut, std::to_string(num_out) + " gives topK " + std::to_string(made->top_k) +
                                      ", not in [0, min(512, expert_num)]");
  }
  const int64_t pairs = made->tokens * made->top_k;
  if (aclnnStatus s = c.SameDType(M::Role::kPermuted, M::Role::kTokens)) return s;
  made->tensor(kTokenRows).Set(c.name(M::Role::kTokens), *tokens);
  made->tensor(kRoutingMap).Set(c.name(M::Role::kRoutingMap), *map);
  if (probs) {
    if (probs->view != map->view) {
      return c.refuse(M::Role::kProbs, "shape " + DimsText(probs->view) + " is not routingMap's " + DimsText(map->view));
    }
    const TensorDesc* moved = c[M::Role::kPermutedProbs];
    if (!moved) return c.refuse(M::Role::kPermutedProbs, "is null while probsOptional is given");
    made->probs = true;
    made->tensor(kProbs).Set(c.name(M::Role::kProbs), *probs);
    if (aclnnStatus s = c.SameDType(M::Role::kPermutedProbs, M::Role::kProbs)) return s;
    if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kPermutedProbs, *moved, Dims{pairs}, "[outToken]",
                                         kPermutedProbs)) {
      return s;
    }
  }
  if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kPermuted, *c[M::Role::kPermuted],
                                       Dims{pairs, made->hidden}, "[outToken, H]", kPermutedRows)) {
    return s;
  }
  return made->KeepOutput(c.call, c.family, M::Role::kSortedIndices, *c[M::Role::kSortedIndices], Dims{pairs},
                          "[outToken]", kSortedIdx);
}

// unpermute_map: sortedIndices [T * topK] into permutedTokens [M, H], out restoreShape [T, H].
aclnnStatus PlanUnpermuteMap(const TokenCall& c, TokenWork* made) {
  const TensorDesc *permuted = c[M::Role::kPermuted], *sorted = c[M::Role::kSortedIndices];
  const TensorDesc *map = c[M::Role::kRoutingMap], *probs = c[M::Role::kProbs];
  if (aclnnStatus s = c.Matrix(M::Role::kPermuted, "[M, H]")) return s;
  if (sorted->view.size() != 1) return c.refuse(M::Role::kSortedIndices, "shape " + DimsText(sorted->view) + " is not 1-D");
  Dims restore;
  if (!RoleInts(c.call, c.family, M::Role::kRestoreShape, &restore) || restore.size() != 2 ||
      restore[1] != permuted->view[1] || restore[0] < 0) {
    return c.refuse(M::Role::kRestoreShape, DimsText(restore) + " is not [numTokens, H = " +
                                                std::to_string(permuted->view[1]) + "]");
  }
  made->tokens = restore[0];
  made->hidden = restore[1];
  made->permuted_rows = permuted->view[0];
  const int64_t count = sorted->view[0];
  made->top_k = made->tokens ? count / made->tokens : 0;
  if (made->tokens * made->top_k != count || made->top_k > kMaxTopK) {
    return c.refuse(M::Role::kSortedIndices, std::to_string(count) + " indices are not numTokens " +
                                             std::to_string(made->tokens) + " times a topK of at most 512");
  }
  if (aclnnStatus s = c.SameDType(M::Role::kTokens, M::Role::kPermuted)) return s;
  made->tensor(kPermutedRows).Set(c.name(M::Role::kPermuted), *permuted);
  made->tensor(kSortedIdx).Set(c.name(M::Role::kSortedIndices), *sorted);
  if (probs) {
    if (!map) return c.refuse(M::Role::kRoutingMap, "is null while probsOptional is given: it orders the probs");
    if (map->view.size() != 2 || map->view[0] != made->tokens || probs->view != map->view) {
      return c.refuse(M::Role::kProbs, "shape " + DimsText(probs->view) + " and routingMap's " + DimsText(map->view) +
                                       " are not one [numTokens, numExperts]");
    }
    const TensorDesc* moved = c[M::Role::kPermutedProbs];
    if (!moved) return c.refuse(M::Role::kPermutedProbs, "is null while probsOptional is given");
    made->probs = true;
    made->experts = map->view[1];
    made->tensor(kRoutingMap).Set(c.name(M::Role::kRoutingMap), *map);
    made->tensor(kProbs).Set(c.name(M::Role::kProbs), *probs);
    if (aclnnStatus s = c.SameDType(M::Role::kPermutedProbs, M::Role::kProbs)) return s;
    if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kPermutedProbs, *moved, Dims{count},
                                         "sortedIndices' shape", kPermutedProbs)) {
      return s;
    }
  }
  for (auto [role, slot] : {std::pair<int, int>{M::Role::kOutIndex, kOutIndex}, {M::Role::kTokenId, kTokenId}}) {
    if (aclnnStatus s = made->KeepOutput(c.call, c.family, role, *c[role], Dims{count}, "sortedIndices' shape", slot)) {
      return s;
    }
  }
  return made->KeepOutput(c.call, c.family, M::Role::kTokens, *c[M::Role::kTokens], restore, "restoreShapeOptional",
                          kTokenRows);
}

// permute_map_grad: permutedTokenOutputGrad [outToken, H], sortedIndices [tokens_num * topK], routingMap
// [tokens_num, experts_num]; out tokensGradOut [tokens_num, H], with the permuted probs' gradient [outToken]
// probsGradOutOptional [tokens_num, experts_num].
aclnnStatus PlanPermuteMapGrad(const TokenCall& c, TokenWork* made) {
  const TensorDesc *grad = c[M::Role::kPermuted], *sorted = c[M::Role::kSortedIndices], *map = c[M::Role::kRoutingMap];
  const TensorDesc *probs_grad_in = c[M::Role::kPermutedProbs], *probs_grad = c[M::Role::kProbsGrad];
  if (aclnnStatus s = c.Matrix(M::Role::kPermuted, "[outToken, H]")) return s;
  if (sorted->view.size() != 1) return c.refuse(M::Role::kSortedIndices, "shape " + DimsText(sorted->view) + " is not 1-D");
  made->tokens = RoleInt(c.call, c.family, M::Role::kTokensNum, -1);
  made->experts = RoleInt(c.call, c.family, M::Role::kExpertsNum, -1);
  if (map->view != Dims{made->tokens, made->experts}) {
    return c.refuse(M::Role::kRoutingMap, "shape " + DimsText(map->view) + " is not [tokens_num, experts_num] = [" +
                                          std::to_string(made->tokens) + ", " + std::to_string(made->experts) + "]");
  }
  const int64_t count = sorted->view[0];
  made->top_k = made->tokens ? count / made->tokens : 0;
  if (made->tokens * made->top_k != count || made->top_k > kMaxTopK) {
    return c.refuse(M::Role::kSortedIndices, std::to_string(count) + " indices are not tokens_num " +
                                             std::to_string(made->tokens) + " times a topK of at most 512");
  }
  made->permuted_rows = grad->view[0];
  made->hidden = grad->view[1];
  made->tensor(kPermutedRows).Set(c.name(M::Role::kPermuted), *grad);
  made->tensor(kSortedIdx).Set(c.name(M::Role::kSortedIndices), *sorted);
  made->tensor(kRoutingMap).Set(c.name(M::Role::kRoutingMap), *map);
  if (aclnnStatus s = c.SameDType(M::Role::kTokens, M::Role::kPermuted)) return s;
  if (probs_grad_in) {
    if (probs_grad_in->view != Dims{count}) {
      return c.refuse(M::Role::kPermutedProbs, "shape " + DimsText(probs_grad_in->view) + " is not [outToken = " +
                                               std::to_string(count) + "]");
    }
    if (!probs_grad) return c.refuse(M::Role::kProbsGrad, "is null while its gradient input is given");
    if (aclnnStatus s = c.SameDType(M::Role::kProbsGrad, M::Role::kPermutedProbs)) return s;
    made->probs = true;
    made->tensor(kPermutedProbs).Set(c.name(M::Role::kPermutedProbs), *probs_grad_in);
    if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kProbsGrad, *probs_grad, map->view,
                                         "[tokens_num, experts_num]", kProbsGrad)) {
      return s;
    }
  } else if (probs_grad && probs_grad->numel() != 0) {
    // Nothing would write it: a value the caller reads without a gradient behind it (an empty one is no value).
    return c.refuse(M::Role::kProbsGrad, std::string("is given without ") + c.name(M::Role::kPermutedProbs));
  }
  return made->KeepOutput(c.call, c.family, M::Role::kTokens, *c[M::Role::kTokens], Dims{made->tokens, made->hidden},
                          "[tokens_num, H]", kTokenRows);
}

// unpermute_map_grad: unpermutedTokensGrad [numTokens, H], outIndex and permuteTokenId [numTokens * topK] (both
// the forward's sortedIndices); out permutedTokensGradOut [M, H], with probs (and the map and permutedTokens the forward had)
// probsGradOutOptional probs' shape.
aclnnStatus PlanUnpermuteMapGrad(const TokenCall& c, TokenWork* made) {
  const TensorDesc *grad = c[M::Role::kTokens], *out_index = c[M::Role::kOutIndex], *token_id = c[M::Role::kTokenId];
  const TensorDesc *map = c[M::Role::kRoutingMap], *probs = c[M::Role::kProbs], *permuted = c[M::Role::kPermuted];
  const TensorDesc *permuted_grad = c[M::Role::kPermutedGrad], *probs_grad = c[M::Role::kProbsGrad];
  if (aclnnStatus s = c.Matrix(M::Role::kTokens, "[numTokens, H]")) return s;
  if (aclnnStatus s = c.Matrix(M::Role::kPermutedGrad, "[M, H]")) return s;
  if (out_index->view.size() != 1) {
    return c.refuse(M::Role::kOutIndex, "shape " + DimsText(out_index->view) + " is not 1-D");
  }
  if (token_id->view != out_index->view) {
    return c.refuse(M::Role::kTokenId, "shape " + DimsText(token_id->view) + " is not outIndex's " +
                                       DimsText(out_index->view));
  }
  made->tokens = grad->view[0];
  made->hidden = grad->view[1];
  const int64_t count = out_index->view[0];
  made->top_k = made->tokens ? count / made->tokens : 0;
  if (made->tokens * made->top_k != count || made->top_k > kMaxTopK) {
    return c.refuse(M::Role::kOutIndex, std::to_string(count) + " indices are not numTokens " +
                                        std::to_string(made->tokens) + " times a topK of at most 512");
  }
  Dims restore;
  if (RoleInts(c.call, c.family, M::Role::kRestoreShape, &restore) && restore != grad->view) {
    return c.refuse(M::Role::kRestoreShape, DimsText(restore) + " is not " + c.name(M::Role::kTokens) + "'s shape " +
                                                DimsText(grad->view));
  }
  if (permuted_grad->view[1] != made->hidden) {
    return c.refuse(M::Role::kPermutedGrad, "shape " + DimsText(permuted_grad->view) + " is not [M, H = " +
                                                std::to_string(made->hidden) + "]");
  }
  made->permuted_rows = permuted_grad->view[0];
  if (aclnnStatus s = c.SameDType(M::Role::kPermutedGrad, M::Role::kTokens)) return s;
  made->tensor(kTokenRows).Set(c.name(M::Role::kTokens), *grad);
  made->tensor(kOutIndex).Set(c.name(M::Role::kOutIndex), *out_index);
  made->tensor(kTokenId).Set(c.name(M::Role::kTokenId), *token_id);
  if (probs) {
    if (!map) return c.refuse(M::Role::kRoutingMap, "is null while probsOptional is given: it orders the probs");
    if (map->view.size() != 2 || map->view[0] != made->tokens || probs->view != map->view) {
      return c.refuse(M::Role::kProbs, "shape " + DimsText(probs->view) + " and routingMap's " + DimsText(map->view) +
                                       " are not one [numTokens, numExperts]");
    }
    if (!permuted) return c.refuse(M::Role::kPermuted, "is null while probsOptional is given: the probs' gradient reads it");
    if (permuted->view != permuted_grad->view) {
      return c.refuse(M::Role::kPermuted, "shape " + DimsText(permuted->view) + " is not " +
                                              c.name(M::Role::kPermutedGrad) + "'s " + DimsText(permuted_grad->view));
    }
    if (!probs_grad) return c.refuse(M::Role::kProbsGrad, "is null while probsOptional is given");
    made->probs = true;
    made->experts = map->view[1];
    made->tensor(kRoutingMap).Set(c.name(M::Role::kRoutingMap), *map);
    made->tensor(kProbs).Set(c.name(M::Role::kProbs), *probs);
    made->tensor(kPermutedRows).Set(c.name(M::Role::kPermuted), *permuted);
    if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kProbsGrad, *probs_grad, probs->view,
                                         "probsOptional's shape", kProbsGrad)) {
      return s;
    }
  } else if (probs_grad && probs_grad->numel() != 0) {
    // torch_npu's autograd passes an empty one (op-plugin shapes it from an undefined probs): nothing to write.
    return c.refuse(M::Role::kProbsGrad, "is given without probsOptional: nothing would write it");
  }
  return made->KeepOutput(c.call, c.family, M::Role::kPermutedGrad, *permuted_grad, permuted_grad->view, "[M, H]",
                          kPermutedGrad);
}

// permute_grad, unpermute and unpermute_grad: sortedIndices [tokens * topK] into the permuted rows.
aclnnStatus PlanGather(const TokenCall& c, int op, TokenWork* made) {
  const TensorDesc *sorted = c[M::Role::kSortedIndices], *probs = c[M::Role::kProbs];
  const TensorDesc *permuted = c[M::Role::kPermuted], *rows = c[M::Role::kTokens];
  if (sorted->view.size() != 1) return c.refuse(M::Role::kSortedIndices, "shape " + DimsText(sorted->view) + " is not 1-D");
  const int64_t count = sorted->view[0];
  if (op == M::Op::kPermuteGrad) {
    made->top_k = RoleInt(c.call, c.family, M::Role::kTopK, 1);
    if (made->top_k < 1 || made->top_k > kMaxTopK) {
      return c.refuse(M::Role::kTopK, std::to_string(made->top_k) + " is outside [1, 512]");
    }
  } else if (probs) {
    if (aclnnStatus s = c.Matrix(M::Role::kProbs, "[tokens, topK]")) return s;
    made->top_k = probs->view[1];
    made->probs = true;
    if (made->top_k > kMaxTopK) return c.refuse(M::Role::kProbs, "topK " + std::to_string(made->top_k) + " is above 512");
  }
  if (made->top_k == 0 || count % made->top_k != 0) {
    return c.refuse(M::Role::kSortedIndices, std::to_string(count) + " indices are not tokens * topK = " +
                                             std::to_string(made->top_k) + " per token");
  }
  made->tokens = count / made->top_k;
  if (probs && probs->view[0] != made->tokens) {
    return c.refuse(M::Role::kProbs, "shape " + DimsText(probs->view) + " is not [tokens = " +
                                     std::to_string(made->tokens) + ", topK]");
  }
  // The rows a token has: the forward's out, permute_grad's out, unpermute_grad's incoming gradient.
  const int rows_role = M::Role::kTokens;
  if (aclnnStatus s = c.Matrix(rows_role, "[tokens, H]")) return s;
  if (permuted) {
    if (aclnnStatus s = c.Matrix(M::Role::kPermuted, "[M, H]")) return s;
    made->permuted_rows = permuted->view[0];
    made->hidden = permuted->view[1];
    made->tensor(kPermutedRows).Set(c.name(M::Role::kPermuted), *permuted);
  }
  made->tensor(kSortedIdx).Set(c.name(M::Role::kSortedIndices), *sorted);
  if (probs) made->tensor(kProbs).Set(c.name(M::Role::kProbs), *probs);
  if (op != M::Op::kUnpermuteGrad) {
    if (aclnnStatus s = c.SameDType(rows_role, M::Role::kPermuted)) return s;
    return made->KeepOutput(c.call, c.family, rows_role, *rows, Dims{made->tokens, made->hidden}, "[tokens, H]",
                            kTokenRows);
  }
  const TensorDesc *permuted_grad = c[M::Role::kPermutedGrad], *probs_grad = c[M::Role::kProbsGrad];
  if (probs && !permuted) {
    return c.refuse(M::Role::kPermuted, "is null while probsOptional is given: probsGradOut reads it");
  }
  if (aclnnStatus s = c.Matrix(M::Role::kPermutedGrad, "[M, H]")) return s;
  if (!permuted) made->permuted_rows = permuted_grad->view[0];
  if (permuted && permuted->view[1] != rows->view[1]) {
    return c.refuse(M::Role::kPermuted, "shape " + DimsText(permuted->view) + " is not [M, H] for H " +
                                        std::to_string(rows->view[1]) + " of " + c.name(rows_role));
  }
  made->hidden = rows->view[1];
  if (rows->view[0] != made->tokens) {
    return c.refuse(rows_role, "shape " + DimsText(rows->view) + " is not [tokens = " + std::to_string(made->tokens) + ", H]");
  }
  if (aclnnStatus s = c.SameDType(M::Role::kPermutedGrad, rows_role)) return s;
  made->tensor(kTokenRows).Set(c.name(rows_role), *rows);
  if (aclnnStatus s = made->KeepOutput(c.call, c.family, M::Role::kPermutedGrad, *permuted_grad,
                                       Dims{made->permuted_rows, made->hidden}, "[M, H]", kPermutedGrad)) {
    return s;
  }
  if (!probs) return ACLNN_SUCCESS;
  if (aclnnStatus s = c.SameDType(M::Role::kProbsGrad, M::Role::kProbs)) return s;
  return made->KeepOutput(c.call, c.family, M::Role::kProbsGrad, *probs_grad, probs->view, "probsOptional's shape",
                          kProbsGrad);
}

}  // namespace

aclnnStatus PlanMoeToken(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TokenCall c{call, family, ParamRejecter(call, family)};
  const bool permute = family.op == M::Op::kPermute;
  // The tensors every call of the op has (unpermute_grad's permutedTokens only with probs: checked there).
  std::vector<int> needed{M::Role::kTokens};
  if (family.op == M::Op::kUnpermuteMapGrad) {
    needed.insert(needed.end(), {M::Role::kOutIndex, M::Role::kTokenId, M::Role::kPermutedGrad});
  } else {
    needed.push_back(M::Role::kSortedIndices);
  }
  if (permute) needed.push_back(M::Role::kIndices);
  if (family.op == M::Op::kUnpermuteMap) needed.insert(needed.end(), {M::Role::kOutIndex, M::Role::kTokenId});
  if (family.op == M::Op::kPermuteMapGrad) needed.push_back(M::Role::kRoutingMap);
  if (family.op == M::Op::kUnpermuteGrad) {
    needed.insert(needed.end(), {M::Role::kPermutedGrad, M::Role::kProbsGrad});
  } else if (family.op != M::Op::kUnpermuteMapGrad) {
    needed.push_back(M::Role::kPermuted);
  }
  for (int role : needed) {
    if (!c[role]) return Decline(call, work, "without its tensors");
  }
  if (RoleBool(call, family, M::Role::kPadded, false)) {
    return c.refuse(M::Role::kPadded, "true: the README supports only false");
  }
  TokenWork* made = new TokenWork(call.spec.name, family.op);
  std::unique_ptr<TokenWork> owned(made);
  const aclnnStatus planned = permute                                  ? PlanPermute(c, made)
                              : family.op == M::Op::kPermuteMap       ? PlanPermuteMap(c, made)
                              : family.op == M::Op::kUnpermuteMap     ? PlanUnpermuteMap(c, made)
                              : family.op == M::Op::kPermuteMapGrad   ? PlanPermuteMapGrad(c, made)
                              : family.op == M::Op::kUnpermuteMapGrad ? PlanUnpermuteMapGrad(c, made)
                                                                      : PlanGather(c, family.op, made);
  if (planned) return planned;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
