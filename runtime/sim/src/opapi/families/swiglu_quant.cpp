// The swiglu_quant family (aclnnSwiGluQuantV2, torch_npu.npu_swiglu_quant, and its MoE-only V1 aclnnSwiGluQuant, whose
// groups are cumulative ends) as their pages state it: x [..., 2N]
// (FLOAT16/BFLOAT16/FLOAT, computed in float) seen as rows [A | B]; Act = Swish(A) * B with activateLeft, else
// Swish(B) * A (V1's activateLeft row: false activates the right half). The rows of group
// g (groupIndexOptional's cumulative ends, groupListType 0, or counts, 1; every row group 0 without it) take
// smoothScalesOptional's row g ([G, N]) or value g ([G]), 1 without it; then
//   dynamic: per row scaleOut = max|v| / 127 and yOut = round(v / scaleOut) (quant_row.h; the semantics' erratum
//            says why scaleOut is the dequantisation scale and not the formula's inverse);
//   static:  yOut = round(v + offsets[g]), scaleOut not computed (left as it was);
// half to even, saturated to INT8. The rows past the last group are left as they were (the device leaves
// them: the sibling pages say so), which the kernel does by reading the outputs before writing them.
// groupIndexOptional is device data: a negative count, a decreasing end or one past x's rows fails phase 2
// naming it. Declined by name: dstType 29 (INT4: how two values share a byte no page states) and
// "dynamic_msd", which the page lists but does not support. Refused (161002): an odd or over-8192 last
// dimension, a scale or offset shape the page does not list, static mode without smoothScalesOptional and
// offsetsOptional (the page's static formula reads both).
// dequant_swiglu_quant (aclnnDequantSwigluQuant, torch_npu.npu_dequant_swiglu_quant): its page writes Dequant and
// Quant without their formulas; the fused GroupedMatmulSwigluQuant README states them for the same kernel: an INT32
// x (a matmul's accumulator) times weightScaleOptional's row of its group ([H] or [G, H]) and activationScaleOptional's
// value of its row, then SwiGLU, then per row Q_scale = max|S| / 127 and Q = round(S / Q_scale). Groups are counts
// (DequantSwigluQuantV2's constraint: the rows past the sum of groupIndexOptional's elements are left). A FLOAT16/
// BFLOAT16 x is dequantised alike when they are given, and is not without them. Declined by name what no
// page states: biasOptional (before or after the scales), quantScaleOptional in dynamic mode, and static mode.
// grouped_matmul_swiglu_quant (aclnnGroupedMatmulSwigluQuant and its WeightNZ twin, torch_npu.npu_grouped_matmul_swiglu_quant:
// derived pages from that README): the same kernel with the INT32 x computed, each row r of group g (groupList's
// cumulative ends) x[r] @ weight[g] exactly, then C = acc * xScale[r] * weightScale[g] in float as the README's
// formula orders it, Swish of C's left half times its right, per-row Q_scale = max|S| / 127; rows past the last
// end left unwritten, as the README says. N over 10240 or K over 65536 (its constraints) are refused; bias and
// offset are reserved (NULL), outputOffset (asymmetric quantisation, not supported) is not written.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = SwigluQuantFamily;

enum Slot { kX, kSmooth, kOffsets, kGroupIndex, kOut, kScaleOut, kWeightScale, kActivationScale, kWeight, kSlots };

constexpr int64_t kMaxLastDim = 8192;  // the page: x's last dimension at most 8192

class SwigluQuantWork final : public FamilyWork {
 public:
  explicit SwigluQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t rows = 0, half = 0, groups = 0;  // groups 0: no groupIndexOptional
  bool left = false, dynamic = true, counts = false, smoothed = false;
  bool per_value = false;  // smooth and offsets one value per group ([G]), not a row
  bool dequantised = false;  // x times weight_scale's row of its group and activation_scale's value of its row
  bool weight_per_group = false;  // weight_scale [G, 2N], else one row [2N]
  // grouped_matmul_swiglu_quant: x [rows, depth] INT8, each row times its group's weight [depth, 2N] exactly, then
  // times activation_scale's value (xScale) and weight_scale's row, in that order.
  bool product = false;
  int64_t depth = 0;

 private:
  // The end of each group's rows, after checking the device data the page constrains.
  aclnnStatus GroupEnds(std::vector<int64_t>* ends) {
    if (groups == 0) {
      ends->assign(1, rows);
      return ACLNN_SUCCESS;
    }
    const int64_t* given = IndexValues(tensor(kGroupIndex), 3);
    int64_t end = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t next = counts ? end + given[g] : given[g];
      if ((counts && given[g] < 0) || next < end || next > rows) {
        return Fail(ACLNN_ERR_INNER,
                    std::string(api_) + ": " + tensor(kGroupIndex).name + ": element " + std::to_string(g) + " is " +
                        std::to_string(given[g]) +
                        (counts ? ": the counts must be non-negative and sum to at most x's "
                                : ": the ends must be non-decreasing within x's ") +
                        std::to_string(rows) + " rows (the page's constraint)");
      }
      end = next;
      ends->push_back(end);
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus Compute() override {
    std::vector<int64_t> ends;
    if (aclnnStatus s = GroupEnds(&ends)) return s;
    const int64_t covered = ends.back();
    if (covered == 0 || half == 0) return ACLNN_SUCCESS;
    const int64_t width = 2 * half;
    const float* x = product ? nullptr : static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    const int64_t* xi = product ? static_cast<const int64_t*>(ContiguousAs(tensor(kX), ComputeType::kInt64, 0)) : nullptr;
    const int64_t* wi = product ? static_cast<const int64_t*>(ContiguousAs(tensor(kWeight), ComputeType::kInt64, 6)) : nullptr;
    const int64_t factor_width = per_value ? 1 : half;
    const float* smooth =
        smoothed ? static_cast<const float*>(ContiguousAs(tensor(kSmooth), ComputeType::kFloat32, 1)) : nullptr;
    const float* offsets =
        dynamic ? nullptr : static_cast<const float*>(ContiguousAs(tensor(kOffsets), ComputeType::kFloat32, 2));
    const float* weight_scale =
        dequantised ? static_cast<const float*>(ContiguousAs(tensor(kWeightScale), ComputeType::kFloat32, 4)) : nullptr;
    const float* activation_scale =
        dequantised ? static_cast<const float*>(ContiguousAs(tensor(kActivationScale), ComputeType::kFloat32, 5)) : nullptr;
    // The outputs as they are, so that what the kernel does not write stays.
    std::vector<int64_t> q(static_cast<size_t>(rows * half));
    std::vector<float> scales(static_cast<size_t>(rows));
    GatherAs(tensor(kOut), ComputeType::kInt64, q.data());
    if (dynamic) GatherAs(tensor(kScaleOut), ComputeType::kFloat32, scales.data());
    ParallelFor(static_cast<int64_t>(ends.size()), [&](int64_t g) {
      std::vector<float> v(static_cast<size_t>(half)), dequant(dequantised ? static_cast<size_t>(width) : 0);
      std::vector<int64_t> acc(product ? static_cast<size_t>(width) : 0);
      const float* s = smooth ? smooth + g * factor_width : nullptr;
      const float* o = offsets ? offsets + g * factor_width : nullptr;
      const float* w = weight_scale ? weight_scale + (weight_per_group ? g * width : 0) : nullptr;
      for (int64_t r = g == 0 ? 0 : ends[static_cast<size_t>(g - 1)]; r < ends[static_cast<size_t>(g)]; ++r) {
        const float* row = product ? dequant.data() : x + r * width;
        if (product) {
          std::fill(acc.begin(), acc.end(), 0);
          for (int64_t kk = 0; kk < depth; ++kk) {
            const int64_t a = xi[r * depth + kk];
            const int64_t* wrow = wi + (g * depth + kk) * width;
            for (int64_t j = 0; j < width; ++j) acc[static_cast<size_t>(j)] += a * wrow[j];
          }
          for (int64_t j = 0; j < width; ++j) {
            dequant[static_cast<size_t>(j)] = static_cast<float>(acc[static_cast<size_t>(j)]) * activation_scale[r] * w[j];
          }
        } else if (w) {
          for (int64_t j = 0; j < width; ++j) dequant[static_cast<size_t>(j)] = row[j] * w[j] * activation_scale[r];
          row = dequant.data();
        }
        const float* activated = left ? row : row + half;
        const float* linear = left ? row + half : row;
        for (int64_t j = 0; j < half; ++j) {
          const float a = activated[j];
          const float act = a / (1.0f + std::exp(-a)) * linear[j];
          v[static_cast<size_t>(j)] = s ? act * s[per_value ? 0 : j] : act;
        }
        int64_t* out = q.data() + r * half;
        if (dynamic) {
          float offset = 0;
          QuantiseRow(half, [&v](int64_t j) { return v[static_cast<size_t>(j)]; }, false, -128, 127,
                      &scales[static_cast<size_t>(r)], &offset, out);
        } else {
          for (int64_t j = 0; j < half; ++j) {
            out[j] = Saturate(std::nearbyint(v[static_cast<size_t>(j)] + o[per_value ? 0 : j]), -128, 127);
          }
        }
      }
    });
    ScatterFrom(q.data(), ComputeType::kInt64, tensor(kOut));
    if (dynamic) ScatterFrom(scales.data(), ComputeType::kFloat32, tensor(kScaleOut));
    return ACLNN_SUCCESS;
  }
};

constexpr int64_t kMaxProductN = 10240, kMaxProductK = 65536;  // the GroupedMatmulSwigluQuant README's constraints

aclnnStatus PlanGroupedMatmulSwigluQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* weight_scale = RoleTensor(call, family, F::Role::kWeightScale);
  const TensorDesc* x_scale = RoleTensor(call, family, F::Role::kActivationScale);
  const TensorDesc* index = RoleTensor(call, family, F::Role::kGroupIndex);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* scale_out = RoleTensor(call, family, F::Role::kScaleOut);
  if (!x || !weight || !weight_scale || !x_scale || !index || !out || !scale_out) {
    return Decline(call, work, "without its tensors");
  }
  const ParamRejecter reject(call, family);
  if (x->view.size() != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [M, K]");
  const int64_t rows = x->view[0], depth = x->view[1];
  if (weight->view.size() != 3 || weight->view[1] != depth) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [E, K, N] with x's K " + std::to_string(depth));
  }
  const int64_t experts = weight->view[0], width = weight->view[2];
  if (width % 2 != 0 || width > kMaxProductN || depth > kMaxProductK) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + ": N must be even and at most 10240, K at most 65536");
  }
  if (weight_scale->view != Dims{experts, width}) {
    return reject(F::Role::kWeightScale, "shape " + DimsText(weight_scale->view) + " is not [E, N] " +
                                             DimsText(Dims{experts, width}));
  }
  if (x_scale->view != Dims{rows}) return reject(F::Role::kActivationScale, "shape " + DimsText(x_scale->view) + " is not [M]");
  if (index->view != Dims{experts}) {
    return reject(F::Role::kGroupIndex, "shape " + DimsText(index->view) + " is not [E] " + DimsText(Dims{experts}));
  }
  auto made = std::make_unique<SwigluQuantWork>(call.spec.name);
  made->rows = rows;
  made->half = width / 2;
  made->groups = experts;
  made->left = true;  // the README's C_act, gate = split(C): the left half activated
  made->dynamic = true;
  made->dequantised = true;
  made->weight_per_group = true;
  made->product = true;
  made->depth = depth;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  made->tensor(kWeightScale).Set(RoleName(call, family, F::Role::kWeightScale), *weight_scale);
  made->tensor(kActivationScale).Set(RoleName(call, family, F::Role::kActivationScale), *x_scale);
  made->tensor(kGroupIndex).Set(RoleName(call, family, F::Role::kGroupIndex), *index);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{rows, width / 2}, "[M, N / 2]", kOut)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *scale_out, Dims{rows}, "[M]", kScaleOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanSwigluQuant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kGroupedMatmulSwigluQuant) return PlanGroupedMatmulSwigluQuant(call, family, work);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* smooth = RoleTensor(call, family, F::Role::kSmooth);
  const TensorDesc* offsets = RoleTensor(call, family, F::Role::kOffsets);
  const TensorDesc* index = RoleTensor(call, family, F::Role::kGroupIndex);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* scale_out = RoleTensor(call, family, F::Role::kScaleOut);
  if (!x || !out || !scale_out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  const bool dequant_op = family.op == F::Op::kDequantSwigluQuant;
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, 2);
  if (dst == 29) {
    return Decline(call, work, "for dstType 29 (INT4 yOut: how two values share a byte no page states)");
  }
  if (dst != 2) return reject(F::Role::kDstType, std::to_string(dst) + " is not 2 (INT8) or 29 (INT4)");
  if (out->dtype != ACL_INT8) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType 2's INT8");
  }
  const char* given_mode = family.has(F::Role::kQuantMode) ? CallString(call, family.role(F::Role::kQuantMode)) : nullptr;
  // NULL is "dynamic": V1's page says so; V2's asks for it to be passed, and dynamic is its default elsewhere.
  const std::string mode = given_mode ? given_mode : "dynamic";
  if (mode == "dynamic_msd") return Decline(call, work, "for quantModeOptional \"dynamic_msd\" (the page: not supported now)");
  if (mode != "dynamic" && mode != "static") {
    return reject(F::Role::kQuantMode, "\"" + mode + "\" is not \"dynamic\" or \"static\"");
  }
  const bool dynamic = mode == "dynamic";
  const TensorDesc* weight_scale = RoleTensor(call, family, F::Role::kWeightScale);
  const TensorDesc* activation_scale = RoleTensor(call, family, F::Role::kActivationScale);
  if (dequant_op) {
    if (RoleTensor(call, family, F::Role::kBias)) {
      return Decline(call, work, "with biasOptional (no page states whether it is added before or after the scales)");
    }
    if (!dynamic) return Decline(call, work, "in static mode (the page states no formula for its Quant)");
    if (smooth) {
      return Decline(call, work, "with quantScaleOptional in dynamic mode (no page states how it scales the rows)");
    }
  }
  // The page's example leaves groupListType out: dequant_swiglu_quant's groups are counts.
  const int64_t list_type = dequant_op ? 1 : RoleInt(call, family, F::Role::kGroupListType, 0);
  if (list_type != 0 && list_type != 1) {
    return reject(F::Role::kGroupListType, std::to_string(list_type) + " is not 0 (cumsum) or 1 (count)");
  }
  if (x->view.size() < 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " has fewer than 2 dimensions");
  const int64_t width = x->view.back();
  if (width % 2 != 0 || width > kMaxLastDim) {
    return reject(F::Role::kX, "last dimension " + std::to_string(width) + " is not even and at most 8192");
  }
  const int64_t half = width / 2;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < x->view.size(); ++d) rows *= x->view[d];
  int64_t groups = 0;
  if (index) {
    if (index->view.size() != 1 || index->view[0] < 1) {
      return reject(F::Role::kGroupIndex, "shape " + DimsText(index->view) + " is not [G] with G > 0");
    }
    groups = index->view[0];
    if (groups > rows) {
      return reject(F::Role::kGroupIndex, "G " + std::to_string(groups) + " exceeds x's " + std::to_string(rows) +
                                              " rows (the page's bound)");
    }
  }
  // smooth_scales and offsets: [G, N] or [G]; without groups their row (or value) 0 serves every row, and a
  // 1-d one must hold one value, as [N] would read per column where the page reads per group.
  const int64_t factor_rows = groups ? groups : 1;
  bool per_value = false;
  if (smooth) {
    const Dims& s = smooth->view;
    const bool row_shape = s.size() == 2 && s[1] == half && (groups ? s[0] == groups : s[0] >= 1);
    const bool value_shape = s.size() == 1 && s[0] == factor_rows;
    if (!row_shape && !value_shape) {
      return reject(F::Role::kSmooth, "shape " + DimsText(s) + " is not [G, N] or [G] with G " +
                                          std::to_string(factor_rows) + " and N " + std::to_string(half));
    }
    per_value = value_shape;
  }
  if (!dynamic) {
    if (!smooth || !offsets) {
      return reject(smooth ? F::Role::kOffsets : F::Role::kSmooth,
                    "is NULL: static quantisation reads smoothScalesOptional and offsetsOptional (the page's formula)");
    }
    if (offsets->view != smooth->view) {
      return reject(F::Role::kOffsets, "shape " + DimsText(offsets->view) + " is not smoothScalesOptional's " +
                                           DimsText(smooth->view));
    }
  }
  // The dequantisation reads both scales (the fused README's formula has both): one without the other, or an INT32
  // x without them, has no formula.
  if ((x->dtype == ACL_INT32 || weight_scale || activation_scale) && (!weight_scale || !activation_scale)) {
    return reject(weight_scale ? F::Role::kActivationScale : F::Role::kWeightScale,
                  "is NULL: x is dequantised by weightScaleOptional and activationScaleOptional together");
  }
  bool weight_per_group = false;
  if (weight_scale) {
    const Dims& w = weight_scale->view;
    weight_per_group = w.size() == 2 && w[0] == factor_rows && factor_rows > 1;
    if (!(w.size() == 1 && w[0] == width) && !(w.size() == 2 && w[1] == width && (w[0] == factor_rows || w[0] == 1))) {
      return reject(F::Role::kWeightScale, "shape " + DimsText(w) + " is not [H] or [G, H] with H " +
                                               std::to_string(width) + " and G " + std::to_string(factor_rows));
    }
    if (activation_scale->view != Dims{rows} && activation_scale->view != Dims(x->view.begin(), x->view.end() - 1)) {
      return reject(F::Role::kActivationScale, "shape " + DimsText(activation_scale->view) + " is not x's rows " +
                                                   DimsText(Dims(x->view.begin(), x->view.end() - 1)));
    }
  }
  Dims y_shape = x->view;
  y_shape.back() = half;
  const Dims scale_shape(x->view.begin(), x->view.end() - 1);
  auto made = std::make_unique<SwigluQuantWork>(call.spec.name);
  made->rows = rows;
  made->half = half;
  made->groups = groups;
  made->left = RoleBool(call, family, F::Role::kActivateLeft, false);
  made->dynamic = dynamic;
  made->counts = list_type == 1;
  made->smoothed = smooth != nullptr;
  made->per_value = per_value;
  made->dequantised = weight_scale != nullptr;
  made->weight_per_group = weight_per_group;
  if (weight_scale) {
    made->tensor(kWeightScale).Set(RoleName(call, family, F::Role::kWeightScale), *weight_scale);
    made->tensor(kActivationScale).Set(RoleName(call, family, F::Role::kActivationScale), *activation_scale);
  }
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (smooth) made->tensor(kSmooth).Set(RoleName(call, family, F::Role::kSmooth), *smooth);
  if (!dynamic) made->tensor(kOffsets).Set(RoleName(call, family, F::Role::kOffsets), *offsets);
  if (index) made->tensor(kGroupIndex).Set(RoleName(call, family, F::Role::kGroupIndex), *index);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, y_shape, "x's shape with N = its last / 2", kOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *scale_out, scale_shape,
                                       "x's shape without its last dimension", kScaleOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
