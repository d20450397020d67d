// The moe_routing family: ops-transformer's mixture-of-experts token routing.
//   init_routing  aclnnMoeInitRoutingV3 (torch_npu.npu_moe_init_routing_v2): the N*K pairs j = r*K + s of
//                 expertIdx [N, K] sorted by expert id, stably (so by j within an expert: the page's
//                 keyValueSort); the pairs of experts in activeExpertRangeOptional [start, end) (absent or
//                 empty: [0, expertNum]) are a block of that order, their count availableIdxNum. The i-th
//                 kept pair reads row j / K of x: expandedXOut[i] is that row (quantMode -1; expandedScaleOut[i]
//                 = scaleOptional[j / K] when given) or its dynamic INT8 quantisation (quantMode 1: v = row *
//                 scaleOptional[expert - start] when given, expandedScaleOut[i] = max|v| / 127, round(v / it)
//                 half to even, as the quant family's row quantiser). expandedRowIdxOut: rowIdxType 0
//                 (gather) [j] = i for each kept j, -1 for the others; 1 (scatter) [i] = j. expertTokens
//                 CountOrCumsumOut: expertTokensNumType 1 the count of each expert of [start, end); 2 the
//                 (expert, count) pairs of those with a count, in expert order, then (0, 0).
// The page's constraints (dropPadMode 0, expertTokensNumType 1 or 2, expertTokensNumFlag true, quantMode
// -1 or 1, activeNum = N*K, rowIdxType 0 or 1, expertNum's range) are semantics checks (semantics/moe.toml);
// the planner repeats the mode ones so that no other value reaches a kernel. The page's shapes and ranges
// fail with 561002 as its error table says. What the page leaves undefined (the rows, indices and scales
// past availableIdxNum, and past the pairs' (0, 0)) is written 0 (-1 for indices). Not simulated: quantMode
// 1 on INT8 x (the page leaves its output undefined). FLOAT16, BFLOAT16, FLOAT (and INT8 unquantised):
// rows are copied exactly, quantised in float.
//   finalize_routing  aclnnMoeFinalizeRouting and V2 (torch_npu.npu_moe_finalize_routing; their derived pages copy
//                 their READMEs' formula): out[i, j] = x1[i, j] + x2[i, j] + sum over k < K of scales[i, k] *
//                 (expandedX[expandedRowIdx[i + k * NUM_ROWS], j] + bias[expertIdx[i, k], j]), NUM_ROWS and K
//                 scales' dimensions; an absent x1, x2 or bias adds nothing (its term is absent). In float, rounded
//                 once. What the README leaves open is declined by name (561003): an absent scalesOptional (what
//                 weighs the rows then is not said) and dropPadMode other than 0 (the README names the attribute
//                 "expandedRowIdx的排列方式" but its formula is the one layout i + k * NUM_ROWS). The indices are
//                 device data: one outside expandedX's rows or bias's experts fails phase 2 naming it.
//   init_routing_v1  aclnnMoeInitRouting (torch_npu.npu_moe_init_routing; a derived page from its README): the
//                 N*K elements of expertIdx sorted by expert, stably (the README's keyValueSort names no second
//                 key), carrying rowIdx's: expandedExpertIdxOut the sorted experts, expandedRowIdxOut[sortedRowIdx[i]]
//                 = i, expandedXOut[i] = x[sortedRowIdx[i] % N] for i < min(N, activeNum) * K, rows copied exactly.
//                 rowIdx is device data: its scatter defines every element once only for a permutation of
//                 [0, N*K), so phase 2 refuses any other rowIdx naming it.
// The moe_expert_tokens family, the V1 pipeline's count of rows per expert:
//   compute_expert_tokens  aclnnMoeComputeExpertTokens (torch_npu.npu_moe_compute_expert_tokens; a derived page
//                 from its README): out[i] = the number of sortedExperts' elements <= i, i < numExperts (the end
//                 of expert i's rows, one past its last). sortedExperts is device data: a value outside [0,
//                 numExperts) or out of order, which the page excludes and a binary search would answer wrongly
//                 for, fails phase 2 naming it.
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
// The moe_re_routing family, the expert-parallel re-layout after an AlltoAll:
//   re_routing    aclnnMoeReRouting (npu_moe_re_routing; a derived page from its README): the (rank, expert) blocks
//                 of tokens, counted by expertTokenNumPerRank [N, E] and laid rank-major, moved expert-major (rows
//                 copied exactly, perTokenScalesOptional alike, 0 without it); permuteTokenIdxOut each moved row's
//                 source row (gather, idxType 0); expertTokenNumOut the count per expert (count, expertTokenNumType
//                 1): the README's supported modes only. The counts are device data: a negative one, or a sum
//                 other than A, fails phase 2 naming them.
#include <algorithm>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MoeRoutingFamily;

enum Slot { kX, kIdx, kScale, kExpandedX, kRowIdx, kTokens, kExpandedScale, kSlots };
enum FinalizeSlot { kRows, kRowOf, kX1, kX2, kBias, kScales, kExperts, kOut, kFinalizeSlots };

// Row i of a [rows, H] tensor, as a tensor of its own.
TensorRef Row(const TensorRef& t, int64_t i) {
  TensorRef row = t;
  row.first += i * t.strides[0] * static_cast<int64_t>(DTypeSize(t.dtype));
  row.shape = Dims{t.shape[1]};
  row.strides = Dims{t.strides[1]};
  return row;
}

// A work whose device-data indices phase 2 checks before using them: an index the device's kernel would
// fault on (or answer wrongly for) fails the call naming its tensor.
class IndexedWork : public FamilyWork {
 protected:
  IndexedWork(const char* api, int tensors) : FamilyWork(api, tensors) {}

  aclnnStatus OutOfRange(int slot, int64_t at, int64_t value, int64_t bound, const std::string& what) const {
    return BadIndex(slot, at, value, "outside [0, " + std::to_string(bound) + ") (" + what + ")");
  }
  // A tensor's elements in float (a scratch buffer of its own each), or null when it has none.
  const float* Floats(int slot, int scratch, int64_t count) {
    return count ? static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, scratch)) : nullptr;
  }
  aclnnStatus BadIndex(int slot, int64_t at, int64_t value, const std::string& why) const {
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(slot).name + ": element " + std::to_string(at) +
                                     " is " + std::to_string(value) + ", " + why + "; the device's kernel faults on it");
  }
};

class RoutingWork final : public FamilyWork {
 public:
  explicit RoutingWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, k = 1, hidden = 0, expert_num = 0, start = 0, end = 0;
  int64_t quant_mode = -1, tokens_type = 1, row_idx_type = 0;
  bool scaled = false;

 private:
  aclnnStatus Compute() override {
    const int64_t pairs = rows * k;
    std::vector<int64_t> experts(static_cast<size_t>(pairs));
    if (pairs > 0) GatherAs(tensor(kIdx), ComputeType::kInt64, experts.data());
    std::vector<int64_t> order(experts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return experts[static_cast<size_t>(a)] < experts[static_cast<size_t>(b)];
    });
    auto expert_of = [&](int64_t j) { return experts[static_cast<size_t>(j)]; };
    const auto first = std::find_if(order.begin(), order.end(), [&](int64_t j) { return expert_of(j) >= start; });
    const auto last = std::find_if(first, order.end(), [&](int64_t j) { return expert_of(j) >= end; });
    const std::vector<int64_t> kept(first, last);
    const int64_t available = static_cast<int64_t>(kept.size());

    WriteRows(kept, expert_of);
    std::vector<int64_t> row_idx(static_cast<size_t>(pairs), -1);
    for (int64_t i = 0; i < available; ++i) {
      const int64_t j = kept[static_cast<size_t>(i)];
      if (row_idx_type == 0) row_idx[static_cast<size_t>(j)] = i;
      else row_idx[static_cast<size_t>(i)] = j;
    }
    ScatterFrom(row_idx.data(), ComputeType::kInt64, tensor(kRowIdx));
    std::vector<int64_t> counts(static_cast<size_t>(end - start));
    for (int64_t j : kept) ++counts[static_cast<size_t>(expert_of(j) - start)];
    if (tokens_type == 1) {
      ScatterFrom(counts.data(), ComputeType::kInt64, tensor(kTokens));
    } else {
      std::vector<int64_t> key_value(static_cast<size_t>(expert_num * 2));
      size_t at = 0;
      for (int64_t e = start; e < end; ++e) {
        if (counts[static_cast<size_t>(e - start)] == 0) continue;
        key_value[at++] = e;
        key_value[at++] = counts[static_cast<size_t>(e - start)];
      }
      ScatterFrom(key_value.data(), ComputeType::kInt64, tensor(kTokens));
    }
    return ACLNN_SUCCESS;
  }

  // expandedXOut and expandedScaleOut, row by row (the output is K times x: never buffered whole): the
  // kept pairs' rows of x, copied or quantised, then zero rows.
  template <typename ExpertOf>
  void WriteRows(const std::vector<int64_t>& kept, const ExpertOf& expert_of) {
    const int64_t pairs = rows * k, available = static_cast<int64_t>(kept.size());
    std::vector<float> scale(static_cast<size_t>(scaled ? tensor(kScale).numel() : 0));
    if (!scale.empty()) GatherAs(tensor(kScale), ComputeType::kFloat32, scale.data());
    std::vector<float> expanded_scale(static_cast<size_t>(pairs));
    // INT8 rows are copied as int64, the others as floats (exact for FLOAT16, BFLOAT16 and INT8 results).
    const bool integral = quant_mode == -1 && tensor(kX).dtype == ACL_INT8;
    const ComputeType type = integral ? ComputeType::kInt64 : ComputeType::kFloat32;
    std::vector<char> x(static_cast<size_t>(rows * hidden) * ComputeSize(type));
    if (!x.empty()) GatherAs(tensor(kX), type, x.data());
    const float* x_float = reinterpret_cast<const float*>(x.data());
    // Each row's scale: scaleOptional's (unquantised), or the row's quantisation's, done once per row of x
    // (in place) unless the smooth scale, the expert's, makes each kept pair's row its own.
    std::vector<float> row_scale(quant_mode == -1 ? scale : std::vector<float>(static_cast<size_t>(rows)));
    const bool per_pair = quant_mode == 1 && scaled;
    if (quant_mode == 1 && !scaled) {
      float* rows_of_x = reinterpret_cast<float*>(x.data());
      ParallelFor(rows, [&](int64_t r) {
        Quantise(rows_of_x + r * hidden, nullptr, &row_scale[static_cast<size_t>(r)], rows_of_x + r * hidden);
      });
    }
    const size_t row_bytes = static_cast<size_t>(hidden) * ComputeSize(type);
    ParallelFor(available, [&](int64_t i) {
      const int64_t j = kept[static_cast<size_t>(i)];
      const void* row = x.data() + static_cast<size_t>(j / k) * row_bytes;
      if (per_pair) {
        float* quantised = static_cast<float*>(Scratch(1, row_bytes));
        Quantise(x_float + j / k * hidden, scale.data() + (expert_of(j) - start) * hidden,
                 &expanded_scale[static_cast<size_t>(i)], quantised);
        row = quantised;
      } else if (!row_scale.empty()) {
        expanded_scale[static_cast<size_t>(i)] = row_scale[static_cast<size_t>(j / k)];
      }
      ScatterFrom(row, type, Row(tensor(kExpandedX), i));
    });
    const std::vector<char> zeros(row_bytes);
    ParallelFor(pairs - available,
                [&](int64_t i) { ScatterFrom(zeros.data(), type, Row(tensor(kExpandedX), available + i)); });
    ScatterFrom(expanded_scale.data(), ComputeType::kFloat32, tensor(kExpandedScale));
  }

  // One row's dynamic INT8 quantisation (times `smooth` when given) into `dst` (which may be `row`) as floats.
  void Quantise(const float* row, const float* smooth, float* row_scale, float* dst) const {
    int64_t* q = static_cast<int64_t*>(Scratch(0, static_cast<size_t>(hidden) * sizeof(int64_t)));
    float offset = 0;
    QuantiseRow(hidden, [&](int64_t c) { return smooth ? row[c] * smooth[c] : row[c]; }, false, -128, 127, row_scale,
                &offset, q);
    std::copy(q, q + hidden, dst);
  }
};

aclnnStatus PlanRouting(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  const TensorDesc* expanded_x = RoleTensor(call, family, F::Role::kExpandedX);
  const TensorDesc* row_idx = RoleTensor(call, family, F::Role::kExpandedRowIdx);
  const TensorDesc* tokens = RoleTensor(call, family, F::Role::kExpertTokens);
  const TensorDesc* expanded_scale = RoleTensor(call, family, F::Role::kExpandedScale);
  if (!x || !idx || !expanded_x || !row_idx || !tokens || !expanded_scale) {
    return Decline(call, work, "without its tensors");
  }
  const ParamRejecter out_of_range(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  auto mode = [&](int role, int64_t fallback, std::initializer_list<int64_t> modelled, int64_t* value) {
    *value = RoleInt(call, family, role, fallback);
    return std::find(modelled.begin(), modelled.end(), *value) != modelled.end();
  };
  int64_t drop_pad = 0, quant = -1, tokens_type = 1, row_idx_type = 0;
  if (!mode(F::Role::kDropPadMode, 0, {0}, &drop_pad)) {
    return out_of_range(F::Role::kDropPadMode, std::to_string(drop_pad) + " is not 0 (Dropless), the page's one mode");
  }
  if (!mode(F::Role::kQuantMode, -1, {-1, 1}, &quant)) {
    return out_of_range(F::Role::kQuantMode, std::to_string(quant) + " is neither -1 nor 1, the page's modes");
  }
  if (!mode(F::Role::kTokensNumType, 1, {1, 2}, &tokens_type)) {
    return out_of_range(F::Role::kTokensNumType, std::to_string(tokens_type) + " is not 1 (count) or 2 (key-value)");
  }
  if (!mode(F::Role::kRowIdxType, 0, {0, 1}, &row_idx_type)) {
    return out_of_range(F::Role::kRowIdxType, std::to_string(row_idx_type) + " is neither 0 (gather) nor 1 (scatter)");
  }
  if (!RoleBool(call, family, F::Role::kTokensNumFlag, true)) {
    return out_of_range(F::Role::kTokensNumFlag, "false: the page supports only true");
  }
  if (x->view.size() != 2) return out_of_range(F::Role::kX, "shape " + DimsText(x->view) + " is not [NUM_ROWS, H]");
  if (idx->view.size() != 2 || idx->view[0] != x->view[0]) {
    return out_of_range(F::Role::kExpertIdx, "shape " + DimsText(idx->view) + " is not [NUM_ROWS, K] for x " +
                                                 DimsText(x->view));
  }
  const int64_t rows = x->view[0], k = idx->view[1], hidden = x->view[1];
  const int64_t expert_num = RoleInt(call, family, F::Role::kExpertNum, 0);
  Dims range;
  if (!RoleInts(call, family, F::Role::kActiveRange, &range) || range.empty()) range = Dims{0, expert_num};
  if (range.size() != 2 || range[0] < 0 || range[0] > range[1] || range[1] > expert_num) {
    return out_of_range(F::Role::kActiveRange, DimsText(range) + " is not [expertStart, expertEnd] with 0 <= "
                                               "expertStart <= expertEnd <= expertNum = " + std::to_string(expert_num));
  }
  if (quant == 1 && x->dtype == ACL_INT8) {
    return Decline(call, work, "for quantMode=1 on INT8 x (the page leaves its result undefined)");
  }
  if (RoleTensor(call, family, F::Role::kOffset)) {
    return out_of_range(F::Role::kOffset, "is given: the page takes none when quantMode is -1 or 1");
  }
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const Dims scale_shape = quant == -1 ? Dims{rows} : Dims{range[1] - range[0], hidden};
  if (scale && scale->view != scale_shape) {
    return out_of_range(F::Role::kScale, "shape " + DimsText(scale->view) + " is not " + DimsText(scale_shape) +
                                             (quant == -1 ? " (NUM_ROWS,)" : " (expertEnd - expertStart, H)"));
  }
  const aclDataType want = quant == -1 ? x->dtype : ACL_INT8;
  if (expanded_x->dtype != want) {
    return RejectInvalid(call, family, F::Role::kExpandedX,
                         std::string("dtype ") + DTypeName(expanded_x->dtype) + " is not " + DTypeName(want) +
                             (quant == -1 ? " (x's, unquantised)" : " (quantMode 1)"));
  }
  RoutingWork* made = new RoutingWork(call.spec.name);
  std::unique_ptr<RoutingWork> owned(made);
  made->rows = rows;
  made->k = k;
  made->hidden = hidden;
  made->expert_num = expert_num;
  made->start = range[0];
  made->end = range[1];
  made->quant_mode = quant;
  made->tokens_type = tokens_type;
  made->row_idx_type = row_idx_type;
  made->scaled = scale != nullptr;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kIdx).Set(RoleName(call, family, F::Role::kExpertIdx), *idx);
  if (scale) made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  const Dims expanded{rows * k, hidden}, flat{rows * k};
  const Dims counted = tokens_type == 1 ? Dims{range[1] - range[0]} : Dims{expert_num, 2};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedX, *expanded_x, expanded, "[NUM_ROWS * K, H]",
                                       kExpandedX)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedRowIdx, *row_idx, flat, "[NUM_ROWS * K]",
                                       kRowIdx)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpertTokens, *tokens, counted,
                                       tokens_type == 1 ? "[expertEnd - expertStart]" : "[expertNum, 2]", kTokens)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedScale, *expanded_scale, flat, "[NUM_ROWS * K]",
                                       kExpandedScale)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

class FinalizeWork final : public IndexedWork {
 public:
  explicit FinalizeWork(const char* api) : IndexedWork(api, kFinalizeSlots) {}

  int64_t rows = 0, k = 1, hidden = 0, expanded_rows = 0, experts = 0;
  bool x1 = false, x2 = false, bias = false;

 private:
  aclnnStatus Compute() override {
    const int64_t pairs = rows * k;
    std::vector<int64_t> row_of(static_cast<size_t>(pairs)), expert(static_cast<size_t>(bias ? pairs : 0));
    if (pairs > 0) GatherAs(tensor(kRowOf), ComputeType::kInt64, row_of.data());
    if (!expert.empty()) GatherAs(tensor(kExperts), ComputeType::kInt64, expert.data());
    for (int64_t p = 0; p < pairs; ++p) {
      if (row_of[static_cast<size_t>(p)] < 0 || row_of[static_cast<size_t>(p)] >= expanded_rows) {
        return OutOfRange(kRowOf, p, row_of[static_cast<size_t>(p)], expanded_rows, "expandedX's rows");
      }
      if (bias && (expert[static_cast<size_t>(p)] < 0 || expert[static_cast<size_t>(p)] >= experts)) {
        return OutOfRange(kExperts, p, expert[static_cast<size_t>(p)], experts, "bias's experts");
      }
    }
    const float* expanded = Floats(kRows, 0, expanded_rows * hidden);
    const float* scales = Floats(kScales, 1, pairs);
    const float* skip1 = x1 ? Floats(kX1, 2, rows * hidden) : nullptr;
    const float* skip2 = x2 ? Floats(kX2, 3, rows * hidden) : nullptr;
    const float* added = bias ? Floats(kBias, 4, experts * hidden) : nullptr;
    std::vector<float> out(static_cast<size_t>(rows * hidden));
    ParallelFor(rows, [&](int64_t i) {
      float* o = out.data() + i * hidden;
      for (int64_t j = 0; j < hidden; ++j) o[j] = (skip1 ? skip1[i * hidden + j] : 0.0f) + (skip2 ? skip2[i * hidden + j] : 0.0f);
      for (int64_t s = 0; s < k; ++s) {
        const int64_t pair = i + s * rows;  // the README's expandedRowIdx[i + k * num_rows]
        const float* source = expanded + row_of[static_cast<size_t>(pair)] * hidden;
        const float* b = added ? added + expert[static_cast<size_t>(i * k + s)] * hidden : nullptr;
        const float scale = scales[i * k + s];
        for (int64_t j = 0; j < hidden; ++j) o[j] += scale * (source[j] + (b ? b[j] : 0.0f));
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }

};

aclnnStatus PlanFinalize(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* expanded = RoleTensor(call, family, F::Role::kExpandedX);
  const TensorDesc* row_of = RoleTensor(call, family, F::Role::kExpandedRowIdx);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!expanded || !row_of || !out) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(expanded->dtype)) return DeclineDtype(call, work, expanded->dtype);
  const ParamRejecter refuse(call, family);
  const TensorDesc* scales = RoleTensor(call, family, F::Role::kScales);
  if (!scales) {
    return Decline(call, work, "without scales (" + std::string(RoleName(call, family, F::Role::kScales)) +
                                   "): the README's formula weighs every expert's row by it and does not say what "
                                   "weighs them without it");
  }
  const int64_t mode = RoleInt(call, family, F::Role::kDropPadMode, 0);
  if (mode != 0) {
    return Decline(call, work, "for dropPadMode " + std::to_string(mode) + ": the README's formula is the one layout "
                               "expandedRowIdx[i + k * NUM_ROWS] (0); the others' are not documented");
  }
  if (expanded->view.size() != 2) return refuse(F::Role::kExpandedX, "shape " + DimsText(expanded->view) + " is not [NUM_ROWS * K, H]");
  if (scales->view.size() != 2) return refuse(F::Role::kScales, "shape " + DimsText(scales->view) + " is not [NUM_ROWS, K]");
  const int64_t rows = scales->view[0], k = scales->view[1], hidden = expanded->view[1];
  const Dims by_row{rows, hidden}, pairs{rows, k};
  if (expanded->view[0] != rows * k) {
    return refuse(F::Role::kExpandedX, "shape " + DimsText(expanded->view) + " is not [NUM_ROWS * K, H] for scales " +
                                           DimsText(scales->view));
  }
  int64_t indices = 1;
  for (int64_t d : row_of->view) indices *= d;
  if (row_of->view.empty() || row_of->view.size() > 2 || indices != rows * k) {
    return refuse(F::Role::kExpandedRowIdx, "shape " + DimsText(row_of->view) + " does not hold NUM_ROWS * K = " +
                                                std::to_string(rows * k) + " indices");
  }
  // Every float operand has expandedX's dtype (the pages' "数据类型与expandedX一致").
  for (int role : {F::Role::kX1, F::Role::kX2, F::Role::kBias, F::Role::kScales, F::Role::kOut}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (t && t->dtype != expanded->dtype) {
      return refuse(role, std::string("dtype ") + DTypeName(t->dtype) + " is not expandedX's " + DTypeName(expanded->dtype));
    }
  }
  const TensorDesc* x1 = RoleTensor(call, family, F::Role::kX1);
  const TensorDesc* x2 = RoleTensor(call, family, F::Role::kX2);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  const TensorDesc* experts = RoleTensor(call, family, F::Role::kExpertIdx);
  if (aclnnStatus s = x1 ? CheckShape(call, family, F::Role::kX1, x1, by_row, "[NUM_ROWS, H]") : ACLNN_SUCCESS) return s;
  if (aclnnStatus s = x2 ? CheckShape(call, family, F::Role::kX2, x2, by_row, "[NUM_ROWS, H]") : ACLNN_SUCCESS) return s;
  if (bias && !experts) return refuse(F::Role::kExpertIdx, "is null while the bias is given: bias is read by expert");
  if (bias && (bias->view.size() != 2 || bias->view[1] != hidden)) {
    return refuse(F::Role::kBias, "shape " + DimsText(bias->view) + " is not [E, H = " + std::to_string(hidden) + "]");
  }
  if (aclnnStatus s = experts ? CheckShape(call, family, F::Role::kExpertIdx, experts, pairs, "[NUM_ROWS, K]") : ACLNN_SUCCESS) {
    return s;
  }
  FinalizeWork* made = new FinalizeWork(call.spec.name);
  std::unique_ptr<FinalizeWork> owned(made);
  made->rows = rows;
  made->k = k;
  made->hidden = hidden;
  made->expanded_rows = expanded->view[0];
  made->tensor(kRows).Set(RoleName(call, family, F::Role::kExpandedX), *expanded);
  made->tensor(kRowOf).Set(RoleName(call, family, F::Role::kExpandedRowIdx), *row_of);
  made->tensor(kScales).Set(RoleName(call, family, F::Role::kScales), *scales);
  if (x1) made->x1 = true, made->tensor(kX1).Set(RoleName(call, family, F::Role::kX1), *x1);
  if (x2) made->x2 = true, made->tensor(kX2).Set(RoleName(call, family, F::Role::kX2), *x2);
  if (bias) {
    made->bias = true;
    made->experts = bias->view[0];
    made->tensor(kBias).Set(RoleName(call, family, F::Role::kBias), *bias);
    made->tensor(kExperts).Set(RoleName(call, family, F::Role::kExpertIdx), *experts);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, by_row, "[NUM_ROWS, H]", kOut)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

enum V1Slot { kV1X, kV1RowIdx, kV1Experts, kV1ExpandedX, kV1ExpandedRowIdx, kV1ExpandedExperts, kV1Slots };

class RoutingV1Work final : public IndexedWork {
 public:
  explicit RoutingV1Work(const char* api) : IndexedWork(api, kV1Slots) {}

  int64_t rows = 0, k = 1, hidden = 0, active_rows = 0;

 private:
  aclnnStatus Compute() override {
    const int64_t pairs = rows * k;
    std::vector<int64_t> experts(static_cast<size_t>(pairs)), row_idx(static_cast<size_t>(pairs));
    if (pairs > 0) {
      GatherAs(tensor(kV1Experts), ComputeType::kInt64, experts.data());
      GatherAs(tensor(kV1RowIdx), ComputeType::kInt64, row_idx.data());
    }
    std::vector<char> seen(static_cast<size_t>(pairs));
    for (int64_t p = 0; p < pairs; ++p) {
      const int64_t v = row_idx[static_cast<size_t>(p)];
      if (v < 0 || v >= pairs) return OutOfRange(kV1RowIdx, p, v, pairs, "NUM_ROWS * K");
      if (seen[static_cast<size_t>(v)]++) {
        return BadIndex(kV1RowIdx, p, v, "a value an earlier element holds: rowIdx is not a permutation of [0, "
                                             "NUM_ROWS * K), which leaves expandedRowIdxOut undefined");
      }
    }
    std::vector<int64_t> order(static_cast<size_t>(pairs));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return experts[static_cast<size_t>(a)] < experts[static_cast<size_t>(b)];
    });
    std::vector<int64_t> expanded_row_idx(static_cast<size_t>(pairs)), sorted_experts(static_cast<size_t>(pairs));
    for (int64_t i = 0; i < pairs; ++i) {
      const int64_t j = order[static_cast<size_t>(i)];
      expanded_row_idx[static_cast<size_t>(row_idx[static_cast<size_t>(j)])] = i;
      sorted_experts[static_cast<size_t>(i)] = experts[static_cast<size_t>(j)];
    }
    ScatterFrom(expanded_row_idx.data(), ComputeType::kInt64, tensor(kV1ExpandedRowIdx));
    ScatterFrom(sorted_experts.data(), ComputeType::kInt64, tensor(kV1ExpandedExperts));
    // Rows are copied as floats: exact for every dtype the page lists.
    const float* x = Floats(kV1X, 0, rows * hidden);
    ParallelFor(active_rows, [&](int64_t i) {
      const int64_t source = row_idx[static_cast<size_t>(order[static_cast<size_t>(i)])] % rows;
      ScatterFrom(x + source * hidden, ComputeType::kFloat32, Row(tensor(kV1ExpandedX), i));
    });
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanRoutingV1(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* row_idx = RoleTensor(call, family, F::Role::kRowIdx);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  const TensorDesc* expanded_x = RoleTensor(call, family, F::Role::kExpandedX);
  const TensorDesc* expanded_row_idx = RoleTensor(call, family, F::Role::kExpandedRowIdx);
  const TensorDesc* expanded_experts = RoleTensor(call, family, F::Role::kExpandedExpertIdx);
  if (!x || !row_idx || !idx || !expanded_x || !expanded_row_idx || !expanded_experts) {
    return Decline(call, work, "without its tensors");
  }
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter refuse(call, family);
  if (x->view.size() != 2) return refuse(F::Role::kX, "shape " + DimsText(x->view) + " is not [NUM_ROWS, H]");
  if (idx->view.size() != 2 || idx->view[0] != x->view[0]) {
    return refuse(F::Role::kExpertIdx, "shape " + DimsText(idx->view) + " is not [NUM_ROWS, K] for x " + DimsText(x->view));
  }
  if (row_idx->view != idx->view) {
    return refuse(F::Role::kRowIdx, "shape " + DimsText(row_idx->view) + " is not expertIdx's " + DimsText(idx->view));
  }
  if (expanded_x->dtype != x->dtype) {
    return refuse(F::Role::kExpandedX, std::string("dtype ") + DTypeName(expanded_x->dtype) + " is not x's " +
                                           DTypeName(x->dtype));
  }
  const int64_t active = RoleInt(call, family, F::Role::kActiveNum, 0);
  if (active < 0) return refuse(F::Role::kActiveNum, std::to_string(active) + " is negative");
  const int64_t rows = x->view[0], k = idx->view[1], hidden = x->view[1];
  RoutingV1Work* made = new RoutingV1Work(call.spec.name);
  std::unique_ptr<RoutingV1Work> owned(made);
  made->rows = rows;
  made->k = k;
  made->hidden = hidden;
  made->active_rows = std::min(rows, active) * k;
  made->tensor(kV1X).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kV1RowIdx).Set(RoleName(call, family, F::Role::kRowIdx), *row_idx);
  made->tensor(kV1Experts).Set(RoleName(call, family, F::Role::kExpertIdx), *idx);
  const Dims flat{rows * k};
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedX, *expanded_x, Dims{made->active_rows, hidden},
                                       "[min(NUM_ROWS, activeNum) * K, H]", kV1ExpandedX)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedRowIdx, *expanded_row_idx, flat,
                                       "[NUM_ROWS * K]", kV1ExpandedRowIdx)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedExpertIdx, *expanded_experts, flat,
                                       "[NUM_ROWS * K]", kV1ExpandedExperts)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

using T = MoeExpertTokensFamily;

enum TokensSlot { kSorted, kEnds, kTokensSlots };

class ExpertTokensWork final : public IndexedWork {
 public:
  explicit ExpertTokensWork(const char* api) : IndexedWork(api, kTokensSlots) {}

  int64_t experts = 0;

 private:
  aclnnStatus Compute() override {
    std::vector<int64_t> sorted(static_cast<size_t>(tensor(kSorted).numel()));
    if (!sorted.empty()) GatherAs(tensor(kSorted), ComputeType::kInt64, sorted.data());
    for (size_t p = 0; p < sorted.size(); ++p) {
      if (sorted[p] < 0 || sorted[p] >= experts) {
        return OutOfRange(kSorted, static_cast<int64_t>(p), sorted[p], experts, "numExperts");
      }
      if (p > 0 && sorted[p] < sorted[p - 1]) {
        return BadIndex(kSorted, static_cast<int64_t>(p), sorted[p],
                        "less than the element before it: sortedExperts is not non-decreasing");
      }
    }
    std::vector<int64_t> ends(static_cast<size_t>(experts));
    for (int64_t e = 0; e < experts; ++e) {
      ends[static_cast<size_t>(e)] = std::upper_bound(sorted.begin(), sorted.end(), e) - sorted.begin();
    }
    ScatterFrom(ends.data(), ComputeType::kInt64, tensor(kEnds));
    return ACLNN_SUCCESS;
  }
};

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
    std::vector<int64_t> idx(static_cast<size_t>(pairs));
    if (pairs > 0) GatherAs(tensor(kSortedIdx), ComputeType::kInt64, idx.data());
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
    std::vector<int64_t> map(static_cast<size_t>(tokens * experts));
    if (!map.empty()) GatherAs(tensor(kRoutingMap), ComputeType::kInt64, map.data());
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
    std::vector<int64_t> idx(static_cast<size_t>(pairs)), cells;
    std::vector<float> weight;
    if (pairs > 0) GatherAs(tensor(kSortedIdx), ComputeType::kInt64, idx.data());
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
    std::vector<int64_t> idx(static_cast<size_t>(pairs));
    if (pairs > 0) GatherAs(tensor(kSortedIdx), ComputeType::kInt64, idx.data());
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
    std::vector<int64_t> row(static_cast<size_t>(pairs)), token_id(static_cast<size_t>(pairs)), cells;
    if (pairs > 0) {
      GatherAs(tensor(kOutIndex), ComputeType::kInt64, row.data());
      GatherAs(tensor(kTokenId), ComputeType::kInt64, token_id.data());
    }
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
    std::vector<int64_t> experts(static_cast<size_t>(pairs));
    if (pairs > 0) GatherAs(tensor(kTokenIndices), ComputeType::kInt64, experts.data());
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

using R = MoeReRoutingFamily;

enum ReRoutingSlot { kReTokens, kReCounts, kReScales, kRePermuted, kReScalesOut, kReIdx, kReExpertCounts, kReSlots };

class ReRoutingWork final : public IndexedWork {
 public:
  explicit ReRoutingWork(const char* api) : IndexedWork(api, kReSlots) {}

  int64_t rows = 0, hidden = 0, ranks = 0, experts = 0;
  bool scaled = false;

 private:
  aclnnStatus Compute() override {
    std::vector<int64_t> counts(static_cast<size_t>(ranks * experts));
    if (!counts.empty()) GatherAs(tensor(kReCounts), ComputeType::kInt64, counts.data());
    int64_t total = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < 0) return BadIndex(kReCounts, static_cast<int64_t>(i), counts[i], "a negative count of tokens");
      if (counts[i] > rows - total) {
        return BadIndex(kReCounts, static_cast<int64_t>(i), counts[i],
                        "past the " + std::to_string(rows) + " tokens: the counts must sum to A");
      }
      total += counts[i];
    }
    if (total != rows) {
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kReCounts).name + ": the counts sum to " +
                                       std::to_string(total) + ", not to the " + std::to_string(rows) +
                                       " tokens (A); the device's kernel faults on it");
    }
    // The source row of each destination row: blocks expert by expert, each rank by rank.
    std::vector<int64_t> source, per_expert(static_cast<size_t>(experts));
    source.reserve(static_cast<size_t>(rows));
    for (int64_t e = 0; e < experts; ++e) {
      for (int64_t r = 0; r < ranks; ++r) {
        int64_t start = 0;
        for (int64_t i = 0; i < r * experts + e; ++i) start += counts[static_cast<size_t>(i)];
        const int64_t count = counts[static_cast<size_t>(r * experts + e)];
        for (int64_t t = 0; t < count; ++t) source.push_back(start + t);
        per_expert[static_cast<size_t>(e)] += count;
      }
    }
    ScatterFrom(source.data(), ComputeType::kInt64, tensor(kReIdx));
    ScatterFrom(per_expert.data(), ComputeType::kInt64, tensor(kReExpertCounts));
    std::vector<float> scales(static_cast<size_t>(rows)), moved(static_cast<size_t>(rows));
    if (scaled && rows) GatherAs(tensor(kReScales), ComputeType::kFloat32, scales.data());
    for (int64_t d = 0; d < rows; ++d) moved[static_cast<size_t>(d)] = scales[static_cast<size_t>(source[static_cast<size_t>(d)])];
    ScatterFrom(moved.data(), ComputeType::kFloat32, tensor(kReScalesOut));
    // Rows are copied as floats: exact for FLOAT16, BFLOAT16 and INT8.
    const float* x = Floats(kReTokens, 0, rows * hidden);
    ParallelFor(rows, [&](int64_t d) {
      ScatterFrom(x + source[static_cast<size_t>(d)] * hidden, ComputeType::kFloat32, Row(tensor(kRePermuted), d));
    });
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanMoeRouting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kFinalizeRouting) return PlanFinalize(call, family, work);
  if (family.op == F::Op::kInitRoutingV1) return PlanRoutingV1(call, family, work);
  return PlanRouting(call, family, work);
}

aclnnStatus PlanMoeExpertTokens(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* sorted = RoleTensor(call, family, T::Role::kSortedExperts);
  const TensorDesc* out = RoleTensor(call, family, T::Role::kOut);
  if (!sorted || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter refuse(call, family);
  if (sorted->view.size() != 1) return refuse(T::Role::kSortedExperts, "shape " + DimsText(sorted->view) + " is not 1-D");
  // The README's bound on sortedExperts' size (its binary search's range).
  if (sorted->view[0] >= (int64_t{1} << 24)) {
    return refuse(T::Role::kSortedExperts, std::to_string(sorted->view[0]) + " elements, not fewer than 2**24");
  }
  const int64_t experts = RoleInt(call, family, T::Role::kExpertNum, 0);
  if (experts <= 0 || experts > 2048) {
    return refuse(T::Role::kExpertNum, std::to_string(experts) + " is outside (0, 2048]");
  }
  ExpertTokensWork* made = new ExpertTokensWork(call.spec.name);
  std::unique_ptr<ExpertTokensWork> owned(made);
  made->experts = experts;
  made->tensor(kSorted).Set(RoleName(call, family, T::Role::kSortedExperts), *sorted);
  if (aclnnStatus s = made->KeepOutput(call, family, T::Role::kOut, *out, Dims{experts}, "[numExperts]", kEnds)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

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

aclnnStatus PlanMoeReRouting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* tokens = RoleTensor(call, family, R::Role::kTokens);
  const TensorDesc* counts = RoleTensor(call, family, R::Role::kCounts);
  const TensorDesc* scales = RoleTensor(call, family, R::Role::kScales);
  const TensorDesc* permuted = RoleTensor(call, family, R::Role::kPermuted);
  const TensorDesc* scales_out = RoleTensor(call, family, R::Role::kPermutedScales);
  const TensorDesc* idx = RoleTensor(call, family, R::Role::kTokenIdx);
  const TensorDesc* expert_counts = RoleTensor(call, family, R::Role::kExpertCounts);
  if (!tokens || !counts || !permuted || !scales_out || !idx || !expert_counts) {
    return Decline(call, work, "without its tensors");
  }
  const ParamRejecter refuse(call, family);
  // Repeated from the semantics' checks so that no other mode reaches the kernel.
  if (RoleInt(call, family, R::Role::kCountsType, 1) != 1) return refuse(R::Role::kCountsType, "only 1 (count) is supported");
  if (RoleInt(call, family, R::Role::kIdxType, 0) != 0) return refuse(R::Role::kIdxType, "only 0 (gather) is supported");
  if (tokens->view.size() != 2 || tokens->view[1] <= 0 || tokens->view[1] >= 16384) {
    return refuse(R::Role::kTokens, "shape " + DimsText(tokens->view) + " is not [A, H] with 0 < H < 16384");
  }
  if (counts->view.size() != 2) return refuse(R::Role::kCounts, "shape " + DimsText(counts->view) + " is not [N, E]");
  const int64_t rows = tokens->view[0];
  if (scales && scales->view != Dims{rows}) {
    return refuse(R::Role::kScales, "shape " + DimsText(scales->view) + " is not [A = " + std::to_string(rows) + "]");
  }
  if (permuted->dtype != tokens->dtype) {
    return refuse(R::Role::kPermuted, std::string("dtype ") + DTypeName(permuted->dtype) + " is not tokens' " +
                                          DTypeName(tokens->dtype));
  }
  if (expert_counts->dtype != counts->dtype) {
    return refuse(R::Role::kExpertCounts, std::string("dtype ") + DTypeName(expert_counts->dtype) + " is not " +
                                              RoleName(call, family, R::Role::kCounts) + "'s " + DTypeName(counts->dtype));
  }
  ReRoutingWork* made = new ReRoutingWork(call.spec.name);
  std::unique_ptr<ReRoutingWork> owned(made);
  made->rows = rows;
  made->hidden = tokens->view[1];
  made->ranks = counts->view[0];
  made->experts = counts->view[1];
  made->scaled = scales != nullptr;
  made->tensor(kReTokens).Set(RoleName(call, family, R::Role::kTokens), *tokens);
  made->tensor(kReCounts).Set(RoleName(call, family, R::Role::kCounts), *counts);
  if (scales) made->tensor(kReScales).Set(RoleName(call, family, R::Role::kScales), *scales);
  const Dims flat{rows};
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kPermuted, *permuted, tokens->view, "tokens' shape", kRePermuted)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kPermutedScales, *scales_out, flat, "[A]", kReScalesOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kTokenIdx, *idx, flat, "[A]", kReIdx)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, R::Role::kExpertCounts, *expert_counts, Dims{made->experts}, "[E]",
                                       kReExpertCounts)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
