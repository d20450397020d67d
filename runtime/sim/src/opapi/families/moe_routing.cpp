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

  // Row i of a [rows, H] tensor, as a tensor of its own.
  static TensorRef Row(const TensorRef& t, int64_t i) {
    TensorRef row = t;
    row.first += i * t.strides[0] * static_cast<int64_t>(DTypeSize(t.dtype));
    row.shape = Dims{t.shape[1]};
    row.strides = Dims{t.strides[1]};
    return row;
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
  auto out_of_range = [&](int role, const std::string& message) {
    return RejectParam(call, family, role, ACLNN_ERR_INNER_TILING_ERROR, message);
  };
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
    return RejectParam(call, family, F::Role::kExpandedX, ACLNN_ERR_PARAM_INVALID,
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

}  // namespace

aclnnStatus PlanMoeRouting(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  return PlanRouting(call, family, work);
}

}  // namespace aclsim
