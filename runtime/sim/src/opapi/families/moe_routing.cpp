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
//   init_routing_quant  aclnnMoeInitRoutingQuantV2 (torch_npu.npu_moe_init_routing_quant; a derived page from its
//                 README): the N*K pairs j = r*K + s of expertIdx sorted by expert, stably, as init_routing;
//                 expandedRowIdxOut[j] = i for every pair (the formula's scatter), expandedXOut[i] the quantised row
//                 j / K of x for the first min(N*K, activeNum) pairs (all of them for activeNum 0). Static (quantMode
//                 0): round(x * scale + offset), scale and offset one value each, in float. Dynamic (1): the quant
//                 family's row quantiser of x (times scaleOptional [H] as smooth), dynamicQuantScaleOutOptional[i]
//                 the scale of row i. expertTokensCountOrCumsumOutOptional: the histogram over [0, expertNum) of all
//                 the pairs (flag 2) or its cumsum (1). Declined by name (561003): Drop/Pad (the README does not say
//                 which index expandedRowIdxOut holds for a kept or a dropped pair) and, in phase 2, a static value
//                 that is NaN, outside INT8 or halfway between two integers (neither saturation nor the tie of
//                 round is stated). expertIdx is device data: a value outside [0, expertNum) fails phase 2.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/moe_indexed.h"
#include "opapi/families/quant_row.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MoeRoutingFamily;

enum Slot { kX, kIdx, kScale, kExpandedX, kRowIdx, kTokens, kExpandedScale, kSlots };
enum FinalizeSlot { kRows, kRowOf, kX1, kX2, kBias, kScales, kExperts, kOut, kFinalizeSlots };

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
    const std::vector<int64_t> row_of = Int64s(kRowOf), expert = bias ? Int64s(kExperts) : std::vector<int64_t>();
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
    const std::vector<int64_t> experts = Int64s(kV1Experts), row_idx = Int64s(kV1RowIdx);
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


enum QuantSlot { kQX, kQIdx, kQScale, kQOffset, kQExpandedX, kQRowIdx, kQTokens, kQScaleOut, kQSlots };

class RoutingQuantWork final : public IndexedWork {
 public:
  explicit RoutingQuantWork(const char* api) : IndexedWork(api, kQSlots) {}

  int64_t rows = 0, k = 1, hidden = 0, expert_num = 0, out_rows = 0, quant_mode = 1, tokens_mode = 0;
  bool scaled = false, tokens = false, scale_out = false;

 private:
  aclnnStatus Compute() override {
    const int64_t pairs = rows * k;
    const std::vector<int64_t> experts = Int64s(kQIdx);
    for (int64_t j = 0; j < pairs; ++j) {
      const int64_t e = experts[static_cast<size_t>(j)];
      if (e < 0 || e >= expert_num) return OutOfRange(kQIdx, j, e, expert_num, "expertNum's experts");
    }
    std::vector<int64_t> order(static_cast<size_t>(pairs));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return experts[static_cast<size_t>(a)] < experts[static_cast<size_t>(b)];
    });
    // Each row of x quantises once: neither mode's scale depends on the pair (scaleOptional broadcasts over a row).
    std::vector<int64_t> q(static_cast<size_t>(rows * hidden));
    std::vector<float> row_scale(static_cast<size_t>(rows));
    if (aclnnStatus s = Quantise(q.data(), row_scale.data())) return s;
    std::vector<int64_t> row_idx(static_cast<size_t>(pairs));
    for (int64_t i = 0; i < pairs; ++i) row_idx[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
    ScatterFrom(row_idx.data(), ComputeType::kInt64, tensor(kQRowIdx));
    std::vector<float> expanded_scale(static_cast<size_t>(out_rows));
    ParallelFor(out_rows, [&](int64_t i) {
      const int64_t r = order[static_cast<size_t>(i)] / k;
      ScatterFrom(q.data() + r * hidden, ComputeType::kInt64, Row(tensor(kQExpandedX), i));
      expanded_scale[static_cast<size_t>(i)] = row_scale[static_cast<size_t>(r)];
    });
    if (scale_out) ScatterFrom(expanded_scale.data(), ComputeType::kFloat32, tensor(kQScaleOut));
    if (tokens) {
      std::vector<int64_t> counts(static_cast<size_t>(expert_num));
      for (int64_t e : experts) ++counts[static_cast<size_t>(e)];
      if (tokens_mode == 1) std::partial_sum(counts.begin(), counts.end(), counts.begin());
      ScatterFrom(counts.data(), ComputeType::kInt64, tensor(kQTokens));
    }
    return ACLNN_SUCCESS;
  }

  // The rows of x quantised into q ([rows, H]) with their dynamic scales; a static value the README leaves
  // open fails naming it.
  aclnnStatus Quantise(int64_t* q, float* row_scale) {
    const float* x = Floats(kQX, 0, rows * hidden);
    const float* scale = scaled ? Floats(kQScale, 1, tensor(kQScale).numel()) : nullptr;
    if (quant_mode == 1) {
      ParallelFor(rows, [&](int64_t r) {
        const float* row = x + r * hidden;
        float offset = 0;
        QuantiseRow(hidden, [&](int64_t c) { return scale ? row[c] * scale[c] : row[c]; }, false, -128, 127,
                    &row_scale[r], &offset, q + r * hidden);
      });
      return ACLNN_SUCCESS;
    }
    const float offset = *Floats(kQOffset, 2, 1);
    for (int64_t e = 0; e < rows * hidden; ++e) {
      const float product = x[e] * scale[0];
      const float v = product + offset;
      const float rounded = std::nearbyint(v);
      const char* open = std::isnan(v) ? "NaN (the README does not say what NaN quantises to)"
                         : (rounded < -128 || rounded > 127)
                             ? "outside INT8 (the README does not say whether it saturates)"
                         : std::fabs(v - std::trunc(v)) == 0.5f
                             ? "halfway between two integers (the README's round names no tie rule)"
                             : nullptr;
      if (open) {
        return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                    std::string(api_) + ": not simulated: x * scaleOptional + offsetOptional at element " +
                        std::to_string(e) + " of x is " + std::to_string(v) + ", " + open);
      }
      q[e] = static_cast<int64_t>(rounded);
    }
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanRoutingQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* idx = RoleTensor(call, family, F::Role::kExpertIdx);
  const TensorDesc* expanded_x = RoleTensor(call, family, F::Role::kExpandedX);
  const TensorDesc* row_idx = RoleTensor(call, family, F::Role::kExpandedRowIdx);
  if (!x || !idx || !expanded_x || !row_idx) return Decline(call, work, "without its tensors");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter refuse(call, family);
  const int64_t drop_pad = RoleInt(call, family, F::Role::kDropPadMode, 0);
  const int64_t quant = RoleInt(call, family, F::Role::kQuantMode, 1);
  const int64_t tokens_mode = RoleInt(call, family, F::Role::kTokensMode, 0);
  const int64_t active = RoleInt(call, family, F::Role::kActiveNum, 0);
  const int64_t expert_num = RoleInt(call, family, F::Role::kExpertNum, 0);
  if (drop_pad != 0 && drop_pad != 1) return refuse(F::Role::kDropPadMode, std::to_string(drop_pad) + " is neither 0 nor 1");
  if (quant != 0 && quant != 1) return refuse(F::Role::kQuantMode, std::to_string(quant) + " is neither 0 nor 1");
  if (tokens_mode < 0 || tokens_mode > 2) {
    return refuse(F::Role::kTokensMode, std::to_string(tokens_mode) + " is not 0, 1 or 2");
  }
  if (active < 0) return refuse(F::Role::kActiveNum, std::to_string(active) + " is negative");
  if (expert_num < 0) return refuse(F::Role::kExpertNum, std::to_string(expert_num) + " is negative");
  if (drop_pad == 1) {
    return Decline(call, work, "for dropPadMode 1 (Drop/Pad): the README does not say which index expandedRowIdxOut "
                               "holds for a kept or a dropped pair");
  }
  if (x->view.size() != 2) return refuse(F::Role::kX, "shape " + DimsText(x->view) + " is not [NUM_ROWS, H]");
  if (idx->view.size() != 2 || idx->view[0] != x->view[0]) {
    return refuse(F::Role::kExpertIdx, "shape " + DimsText(idx->view) + " is not [NUM_ROWS, K] for x " + DimsText(x->view));
  }
  const int64_t rows = x->view[0], k = idx->view[1], hidden = x->view[1];
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* offset = RoleTensor(call, family, F::Role::kOffset);
  if (quant == 0) {
    if (!scale || !offset) return refuse(scale ? F::Role::kOffset : F::Role::kScale, "is null: static quant needs it");
    for (const TensorDesc* t : {scale, offset}) {
      if (t->view != Dims{1}) {
        return refuse(t == scale ? F::Role::kScale : F::Role::kOffset,
                      "shape " + DimsText(t->view) + " is not [1] (static quant: one value)");
      }
    }
  } else {
    if (offset) return refuse(F::Role::kOffset, "is given: dynamic quant takes none");
    if (scale && scale->view != Dims{hidden} && scale->view != (Dims{1, hidden})) {
      return refuse(F::Role::kScale, "shape " + DimsText(scale->view) + " is neither [H] nor [1, H] for H = " +
                                         std::to_string(hidden));
    }
  }
  RoutingQuantWork* made = new RoutingQuantWork(call.spec.name);
  std::unique_ptr<RoutingQuantWork> owned(made);
  made->rows = rows;
  made->k = k;
  made->hidden = hidden;
  made->expert_num = expert_num;
  made->out_rows = active > 0 ? std::min(rows * k, active) : rows * k;
  made->quant_mode = quant;
  made->tokens_mode = tokens_mode;
  made->scaled = scale != nullptr;
  made->tensor(kQX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kQIdx).Set(RoleName(call, family, F::Role::kExpertIdx), *idx);
  if (scale) made->tensor(kQScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  if (offset && quant == 0) made->tensor(kQOffset).Set(RoleName(call, family, F::Role::kOffset), *offset);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedX, *expanded_x, Dims{made->out_rows, hidden},
                                       active > 0 ? "[min(NUM_ROWS * K, activeNum), H]" : "[NUM_ROWS * K, H]",
                                       kQExpandedX)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedRowIdx, *row_idx, Dims{rows * k},
                                       "[NUM_ROWS * K]", kQRowIdx)) {
    return s;
  }
  // The optional outputs the flags and modes ask for are written; the README's "not output" leaves the others.
  const TensorDesc* tokens = RoleTensor(call, family, F::Role::kExpertTokens);
  if (tokens && tokens_mode != 0) {
    made->tokens = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpertTokens, *tokens, Dims{expert_num}, "[expertNum]",
                                         kQTokens)) {
      return s;
    }
  }
  const TensorDesc* scale_out = RoleTensor(call, family, F::Role::kExpandedScale);
  if (scale_out && quant == 1) {
    made->scale_out = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kExpandedScale, *scale_out, Dims{made->out_rows},
                                         "[rows of expandedXOut]", kQScaleOut)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanMoeRouting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kFinalizeRouting) return PlanFinalize(call, family, work);
  if (family.op == F::Op::kInitRoutingV1) return PlanRoutingV1(call, family, work);
  if (family.op == F::Op::kInitRoutingQuant) return PlanRoutingQuant(call, family, work);
  return PlanRouting(call, family, work);
}

}  // namespace aclsim
