// The norm_quant family, an rms norm over x's last dimension quantised to INT8, INT4 or INT32 words of
// eight INT4 (the outputs' dtypes; quantised_out.h: saturated to [-8, 7], the dynamic scale max|v| / 7):
//   rms_norm_quant      y = x * rstd * gamma + beta, out = round(y * scale + offset)
//                       (aclnnRmsNormQuant: one scale and one INT8 offset)
//   add_rms_norm_quant  x = x1 + x2 rounded to x1's dtype (sum_out), y as above (beta optional),
//                       out = round(y / scale + offset) with divMode, round(y * scale + offset)
//                       without, per element of the last dimension, and out2 the same by scale2
//                       (left unwritten without scale2: the page calls it invalid); norm_out
//                       x * rstd * gamma (aclnnAddRmsNormQuant/V2)
//   rms_norm_dynamic_quant, add_rms_norm_dynamic_quant  y as above (x = x1 + x2 for the second),
//                       then per row v = y * smooth (without smooth: y), scale_out = max|v| / 127,
//                       out = round(v / scale_out); out2 and scale_out2 the same by smooth2, written
//                       when both smoothing factors are given or output_mask says so
//                       (aclnnRmsNormDynamicQuant, aclnnAddRmsNormDynamicQuant/V2)
//   add_layer_norm_quant  x = x1 + x2 + bias (by column or by element) rounded to x1's dtype (sum_out,
//                       written with additionalOutput), y = (x - mean) * rstd * gamma + beta with
//                       rstd = 1 / sqrt(var + epsilon) (norm_out: y), then quantMode "static" as
//                       add_rms_norm_quant or "dynamic" with scale and scale2 as the smoothing
//                       factors (aclnnAddLayerNormQuant/V2)
// rstd, where given (and output_rstd is true), is each row's 1 / Rms(x) (aclnnRmsNormQuantV3).
// The rms ops' rstd = 1 / sqrt(mean(x^2) + epsilon), the mean square summed in double; the rest in float;
// rounding half to even, saturated to the output's dtype. gamma and the per-channel tensors span the last
// dimension only (a gamma over several trailing dimensions is refused by name).
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/elementwise.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/families/quantised_out.h"
#include "opapi/families/rms_rows.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using N = NormQuantFamily;

enum NormSlot { kNx, kNx2, kNGamma, kNBeta, kNScale, kNOffset, kNScale2, kNOffset2, kNSmooth, kNSmooth2, kNOut,
                kNOut2, kNSum, kNNorm, kNScaleOut, kNScaleOut2, kNRstd, kNBias, kNormSlots };

class NormQuantWork final : public FamilyWork {
 public:
  explicit NormQuantWork(const char* api) : FamilyWork(api, kNormSlots) {}

  double epsilon = 1e-6;
  bool divide = false, add = false, dynamic = false, layer = false, write_sum = true;
  bool has[kNormSlots] = {};  // the optional tensors given, and the optional outputs written
  bool write[2] = {true, false};  // the dynamic ops' out and out2 (with scale_out and scale_out2)
  QuantisedOut quantised[2];      // out's and out2's dtypes: INT8, INT4 or INT32 words of INT4 (quantised_out.h)

 private:
  // The per-channel tensor of `slot` as `width` floats (one value repeated for a single one);
  // empty when not given.
  std::vector<float> Channel(int slot, int64_t width) const {
    if (!has[slot]) return {};
    std::vector<float> v(static_cast<size_t>(tensor(slot).numel()));
    GatherAs(tensor(slot), ComputeType::kFloat32, v.data());
    if (static_cast<int64_t>(v.size()) != width) v.assign(static_cast<size_t>(width), v[0]);
    return v;
  }

  aclnnStatus Compute() override {
    const int64_t n = tensor(kNx).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const int64_t width = tensor(kNx).shape.back(), rows = n / width;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kNx), ComputeType::kFloat32, 0));
    std::vector<float> sum;
    if (add) {
      // The sum as x1's dtype holds it (written to sum_out, then read back rounded).
      const float* x2 = static_cast<const float*>(ContiguousAs(tensor(kNx2), ComputeType::kFloat32, 1));
      sum.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) sum[i] = x[i] + x2[i];
      if (has[kNBias]) {  // add_layer_norm_quant's bias: gamma's shape, else x1's
        const float* bias = static_cast<const float*>(ContiguousAs(tensor(kNBias), ComputeType::kFloat32, 2));
        const bool by_column = tensor(kNBias).numel() != n;
        for (int64_t i = 0; i < n; ++i) sum[i] += bias[by_column ? i % width : i];
      }
      RoundThrough(&sum, tensor(kNx).dtype);
      if (write_sum) ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kNSum));
      x = sum.data();
    }
    const std::vector<float> gamma = Channel(kNGamma, width), beta = Channel(kNBeta, width);
    // Static: a scale (and offset) per output; dynamic: a smoothing factor per output, if any.
    const std::vector<float> scales[2] = {Channel(kNScale, width), Channel(kNScale2, width)};
    const std::vector<float> offsets[2] = {Channel(kNOffset, width), Channel(kNOffset2, width)};
    const std::vector<float> smooth[2] = {Channel(kNSmooth, width), Channel(kNSmooth2, width)};
    const bool produce[2] = {dynamic ? write[0] : true, dynamic ? write[1] : !scales[1].empty()};
    const QuantisedOut* range = quantised;
    std::vector<float> normed(static_cast<size_t>(n)), rstds(static_cast<size_t>(rows));
    std::vector<int64_t> q[2];
    std::vector<float> row_scales[2];
    for (int k = 0; k < 2; ++k) {
      if (!produce[k]) continue;
      q[k].resize(static_cast<size_t>(n));
      if (dynamic) row_scales[k].resize(static_cast<size_t>(rows));
    }
    ParallelRange(rows, width, [&](int64_t begin, int64_t end) {
      std::vector<float> y(static_cast<size_t>(width));
      for (int64_t r = begin; r < end; ++r) {
        const float* row = x + r * width;
        float mean = 0.0f, rstd;
        if (layer) {
          double sum_of = 0, var = 0;
          for (int64_t j = 0; j < width; ++j) sum_of += static_cast<double>(row[j]);
          const double m = sum_of / static_cast<double>(width);
          for (int64_t j = 0; j < width; ++j) {
            const double d = static_cast<double>(row[j]) - m;
            var += d * d;
          }
          mean = static_cast<float>(m);
          rstd = static_cast<float>(1.0 / std::sqrt(var / static_cast<double>(width) + epsilon));
        } else {
          rstd = RmsRstd(row, width, epsilon);
        }
        rstds[r] = rstd;
        for (int64_t j = 0; j < width; ++j) {
          const int64_t i = r * width + j;
          const float scaled = (row[j] - mean) * rstd * gamma[j];
          y[j] = beta.empty() ? scaled : scaled + beta[j];
          normed[i] = layer ? y[j] : scaled;  // rmsNormOut is x * rstd * gamma, layernormRes the whole y
        }
        for (int k = 0; k < 2; ++k) {
          if (!produce[k]) continue;
          int64_t* out = q[k].data() + r * width;
          if (dynamic) {
            const std::vector<float>& s = smooth[k];
            float unused;
            QuantiseRow(width, [&](int64_t j) { return s.empty() ? y[j] : y[j] * s[j]; }, false, range[k].low,
                        range[k].high, &row_scales[k][r], &unused, out);
            continue;
          }
          for (int64_t j = 0; j < width; ++j) {
            float v = divide ? y[j] / scales[k][j] : y[j] * scales[k][j];
            if (!offsets[k].empty()) v += offsets[k][j];
            out[j] = Saturate(std::nearbyint(v), range[k].low, range[k].high);
          }
        }
      }
    });
    const int outs[2] = {kNOut, kNOut2}, scale_outs[2] = {kNScaleOut, kNScaleOut2};
    for (int k = 0; k < 2; ++k) {
      if (!produce[k] || (k == 1 && !has[kNOut2])) continue;
      WriteQuantised(q[k].data(), range[k], tensor(outs[k]));
      if (dynamic) ScatterFrom(row_scales[k].data(), ComputeType::kFloat32, tensor(scale_outs[k]));
    }
    if (has[kNNorm]) ScatterFrom(normed.data(), ComputeType::kFloat32, tensor(kNNorm));
    if (has[kNRstd]) ScatterFrom(rstds.data(), ComputeType::kFloat32, tensor(kNRstd));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanNormQuant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, N::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, N::Role::kOut);
  if (!x || !out) return Decline(call, work, "without its tensors");
  if (x->view.empty() || x->view.size() > 16) return Decline(call, work, "for a 0-d x or over 16 dimensions");
  const ParamRejecter reject(call, family);
  if (family.has(N::Role::kAxis) && RoleInt(call, family, N::Role::kAxis, -1) != -1) {
    return reject(N::Role::kAxis, "must be -1 (the pages: only -1 is supported)");
  }
  if (family.has(N::Role::kDstType)) {  // the dtype of y it names (quantised_out.h)
    const int64_t dst = RoleInt(call, family, N::Role::kDstType, 2);
    const aclDataType want = QuantisedDType(dst);
    if (want == ACL_DT_UNDEFINED) {
      return Decline(call, work, "for dstType " + std::to_string(dst) + " (2 INT8, 3 INT32 of packed INT4 and 29 INT4 are simulated)");
    }
    if (out->dtype != want) {
      return reject(N::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType " + std::to_string(dst) +
                                       "'s " + DTypeName(want));
    }
  }
  const Dims& shape = x->view;
  const int64_t width = shape.back();
  auto made_owner = std::make_unique<NormQuantWork>(call.spec.name);
  NormQuantWork* made = made_owner.get();
  made->layer = family.op == N::Op::kAddLayerNormQuant;
  made->add = family.op == N::Op::kAddRmsNormQuant || family.op == N::Op::kAddRmsNormDynamicQuant || made->layer;
  made->dynamic = family.op == N::Op::kRmsNormDynamicQuant || family.op == N::Op::kAddRmsNormDynamicQuant;
  if (made->layer) {
    const char* mode = CallString(call, family.role(N::Role::kQuantMode));
    const std::string m = mode ? mode : "";
    if (m != "static" && m != "dynamic") return reject(N::Role::kQuantMode, "\"" + m + "\" is not static or dynamic");
    made->dynamic = m == "dynamic";
    made->write_sum = RoleBool(call, family, N::Role::kAdditionalOutput, true);
    const bool scale1 = RoleTensor(call, family, N::Role::kScale), scale2 = RoleTensor(call, family, N::Role::kScale2);
    const bool zero1 = RoleTensor(call, family, N::Role::kOffset), zero2 = RoleTensor(call, family, N::Role::kOffset2);
    // The page's table of the optional inputs each mode admits.
    if (made->dynamic && (zero1 || zero2)) {
      return reject(zero1 ? N::Role::kOffset : N::Role::kOffset2, "must be null when quantMode is dynamic");
    }
    if (made->dynamic && scale2 && !scale1) return reject(N::Role::kScale, "must be given with scales2Optional");
    if (!made->dynamic && !scale1) return reject(N::Role::kScale, "must be given when quantMode is static");
    if (!made->dynamic && zero2 && !(scale2 && zero1)) {
      return reject(N::Role::kOffset2, "needs scales2Optional and zeroPoints1Optional");
    }
  }
  if (!made->dynamic && !RoleTensor(call, family, N::Role::kScale)) return Decline(call, work, "without scale");
  const int scale_slots[2] = {made->layer && made->dynamic ? kNSmooth : kNScale,
                              made->layer && made->dynamic ? kNSmooth2 : kNScale2};
  made->divide = RoleBool(call, family, N::Role::kDivMode, false);
  made->epsilon = RoleNumber(call, family, N::Role::kEpsilon, -1, 1e-6);
  made->tensor(kNx).Set(RoleName(call, family, N::Role::kX), *x);
  // The per-channel tensors: x's last dimension (any leading 1s), or one value for a scale and an
  // offset (aclnnRmsNormQuant's, aclnnRmsNormQuantV3's).
  const struct {
    int role, slot;
    bool single;
  } channels[] = {{N::Role::kGamma, kNGamma, false},  {N::Role::kBeta, kNBeta, false},
                  {N::Role::kScale, scale_slots[0], true}, {N::Role::kOffset, kNOffset, true},
                  {N::Role::kScale2, scale_slots[1], true}, {N::Role::kOffset2, kNOffset2, true},
                  {N::Role::kSmooth, kNSmooth, false}, {N::Role::kSmooth2, kNSmooth2, false}};
  for (const auto& c : channels) {
    const TensorDesc* t = RoleTensor(call, family, c.role);
    if (!t) continue;
    const bool one = c.single && t->numel() == 1;
    if (!one && (t->view.empty() || t->view.back() != width || t->numel() != width)) {
      if (t->view.size() > 1 && t->numel() != width && t->view.back() == width) {
        return Decline(call, work, std::string("for ") + RoleName(call, family, c.role) + " over several dimensions " +
                                       DimsText(t->view) + " (only x's last dimension is simulated)");
      }
      return reject(c.role, "shape " + DimsText(t->view) + " is not x's last dimension [" + std::to_string(width) + "]");
    }
    made->tensor(c.slot).Set(RoleName(call, family, c.role), *t);
    made->has[c.slot] = true;
  }
  if (made->add) {
    const TensorDesc* x2 = RoleTensor(call, family, N::Role::kX2);
    const TensorDesc* sum = RoleTensor(call, family, N::Role::kSumOut);
    if (!x2 || (!sum && made->write_sum)) return Decline(call, work, "without x2 or xOut");
    if (aclnnStatus s = CheckShape(call, family, N::Role::kX2, x2, shape, "x1's shape")) return s;
    made->tensor(kNx2).Set(RoleName(call, family, N::Role::kX2), *x2);
    if (made->write_sum) {
      if (aclnnStatus s = made->KeepOutput(call, family, N::Role::kSumOut, *sum, shape, "x1's shape", kNSum)) return s;
    }
    if (const TensorDesc* bias = RoleTensor(call, family, N::Role::kBias)) {
      if (bias->numel() != x->numel() && (bias->view.empty() || bias->view.back() != width || bias->numel() != width)) {
        return reject(N::Role::kBias, "shape " + DimsText(bias->view) + " is neither gamma's [" + std::to_string(width) +
                                          "] nor x1's " + DimsText(shape));
      }
      made->tensor(kNBias).Set(RoleName(call, family, N::Role::kBias), *bias);
      made->has[kNBias] = true;
    }
  }
  Dims rows(shape.begin(), shape.end() - 1);
  if (made->dynamic) {
    // Which outputs are written (the pages: the others are "无效输出", left as they are): out, and
    // out2 with both smoothing factors; outputMaskOptional, where given, says so instead.
    made->write[1] = made->has[kNSmooth] && made->has[kNSmooth2];
    if (const Call::Param* mask = RoleParam(call, family, N::Role::kOutputMask)) {
      if (mask->bool_values.size() != 2) {
        return reject(N::Role::kOutputMask, "has " + std::to_string(mask->bool_values.size()) + " values, not 2");
      }
      made->write[0] = mask->bool_values[0];
      made->write[1] = mask->bool_values[1];
    }
    const int outs[2] = {N::Role::kOut, N::Role::kOut2}, scales[2] = {N::Role::kScaleOut, N::Role::kScaleOut2};
    const int out_slots[2] = {kNOut, kNOut2}, scale_slots[2] = {kNScaleOut, kNScaleOut2};
    for (int k = 0; k < 2; ++k) {
      if (!made->write[k]) continue;
      const TensorDesc* q = RoleTensor(call, family, outs[k]);
      const TensorDesc* s = RoleTensor(call, family, scales[k]);
      if (!q || !s) return Decline(call, work, std::string("without ") + RoleName(call, family, q ? scales[k] : outs[k]));
      const aclnnStatus kept = KeepQuantised(made, call, family, work, outs[k], *q, shape, out_slots[k], &made->quantised[k]);
      if (kept != ACLNN_SUCCESS || *work) return kept;
      // The add form's pages (every version) admit, beside x1's rows, "与x1除了最后一维的乘积一致": a scale
      // of as many elements, in the rows' order (the 8.5.0 page's example passes [2, 1] for x1 [2, 8]).
      const int64_t row_count = std::accumulate(rows.begin(), rows.end(), int64_t{1}, std::multiplies<int64_t>());
      const bool as_product = made->add && s->numel() == row_count;
      if (aclnnStatus st = made->KeepOutput(call, family, scales[k], *s, as_product ? s->view : rows,
                                            "x's shape without its last dimension", scale_slots[k])) {
        return st;
      }
    }
    made->has[kNOut2] = made->write[1];
  } else {
    // y2Out without scales2 is invalid (the pages): neither written nor held to a shape.
    const TensorDesc* out2 =
        RoleTensor(call, family, N::Role::kScale2) ? RoleTensor(call, family, N::Role::kOut2) : nullptr;
    if (out2) {
      const aclnnStatus kept = KeepQuantised(made, call, family, work, N::Role::kOut2, *out2, shape, kNOut2, &made->quantised[1]);
      if (kept != ACLNN_SUCCESS || *work) return kept;
      made->has[kNOut2] = true;
    }
    const aclnnStatus kept = KeepQuantised(made, call, family, work, N::Role::kOut, *out, shape, kNOut, &made->quantised[0]);
    if (kept != ACLNN_SUCCESS || *work) return kept;
  }
  if (const TensorDesc* normed = RoleTensor(call, family, N::Role::kNormOut)) {
    if (aclnnStatus s = made->KeepOutput(call, family, N::Role::kNormOut, *normed, shape, "x1's shape", kNNorm)) {
      return s;
    }
    made->has[kNNorm] = true;
  }
  // rstd: 1 / Rms(x) per row, x's shape with a last dimension of 1 (written when outputRstd is true).
  const TensorDesc* rstd = RoleTensor(call, family, N::Role::kRstd);
  if (rstd && RoleBool(call, family, N::Role::kOutputRstd, true)) {
    Dims kept = rows;
    kept.push_back(1);
    if (aclnnStatus s = made->KeepOutput(call, family, N::Role::kRstd, *rstd, kept, "x's shape with a last dimension of 1",
                                         kNRstd)) {
      return s;
    }
    made->has[kNRstd] = true;
  }
  *work = made_owner.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
