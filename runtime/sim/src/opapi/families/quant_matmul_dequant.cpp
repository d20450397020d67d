// The quant_matmul_dequant family (aclnnQuantMatmulDequant, torch_npu.npu_quant_matmul_dequant; the page
// supports Atlas 推理系列产品 alone). Its formula, for x [m, k] FLOAT16 and weight [n, k] INT8 (transposeWeight
// true, the only value it supports):
//   x = x * smoothScaleOptional                       (when given, one per column k)
//   scale_x = xScaleOptional (one value for pertensor, one per row for pertoken), or without it (dynamic,
//             pertoken only) the row's max|x| / 127
//   x_q = round(x / scale_x)                          half to even, as the simulator's other INT8 quantisers
//   out = (x_q @ weight^T) * weightScale[n] * scale_x (FLOAT weightScale), or
//   out = (x_q @ weight^T) * float(low 32 bits of weightScale[n])  (INT64 words: scale_x folded in by the caller)
// The products are exact (INT32 sums), the epilogue in float, rounded once to FLOAT16. Phase 1 enforces the
// page's 约束说明 (n and k multiples of 16; INT64 weightScale with a FLOAT16 xScaleOptional and pertensor; a
// dynamic scale is pertoken), all but its requiring INT64 words of a FLOAT16 xScaleOptional (see the planner); a static scale that puts x outside INT8 fails phase 2 naming it, as the page does
// not say how it saturates.
#include <cmath>
#include <cstdint>
#include <cstring>
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

using F = QuantMatmulDequantFamily;

enum Slot { kX, kWeight, kWeightScale, kXScale, kSmooth, kOut, kSlots };

class QuantMatmulDequantWork final : public FamilyWork {
 public:
  explicit QuantMatmulDequantWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t m = 0, n = 0, k = 0;
  bool smooth = false, static_scale = false, per_tensor = false, packed = false;

 private:
  aclnnStatus Compute() override {
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    const float* s = smooth ? static_cast<const float*>(ContiguousAs(tensor(kSmooth), ComputeType::kFloat32, 1)) : nullptr;
    std::vector<float> x_scale(static_cast<size_t>(static_scale ? tensor(kXScale).numel() : m));
    if (static_scale) GatherAs(tensor(kXScale), ComputeType::kFloat32, x_scale.data());
    std::vector<int64_t> q(static_cast<size_t>(m * k));
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < k; ++j) row[j] = s ? x[i * k + j] * s[j] : x[i * k + j];
      int64_t* qi = q.data() + i * k;
      if (!static_scale) {
        float offset = 0;
        QuantiseRow(k, [&](int64_t j) { return row[j]; }, false, -128, 127, &x_scale[i], &offset, qi);
        continue;
      }
      const double scale = x_scale[per_tensor ? 0 : i];
      for (int64_t j = 0; j < k; ++j) {
        const double v = std::nearbyint(row[j] / scale);
        if (!(v >= -128 && v <= 127)) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kXScale).name + ": x[" + std::to_string(i) +
                                           ", " + std::to_string(j) + "] / " + std::to_string(scale) + " rounds to " +
                                           std::to_string(v) + ", outside INT8 (the page does not say how it saturates)");
        }
        qi[j] = static_cast<int64_t>(v);
      }
    }
    const int64_t* w = IndexValues(tensor(kWeight), 2);
    std::vector<double> column_scale(static_cast<size_t>(n));
    if (packed) {
      const int64_t* words = IndexValues(tensor(kWeightScale), 3);
      for (int64_t c = 0; c < n; ++c) {
        const uint32_t low = static_cast<uint32_t>(words[c]);
        float value;
        std::memcpy(&value, &low, sizeof value);
        column_scale[c] = value;
      }
    } else {
      std::vector<float> scales(static_cast<size_t>(n));
      GatherAs(tensor(kWeightScale), ComputeType::kFloat32, scales.data());
      for (int64_t c = 0; c < n; ++c) column_scale[c] = scales[c];
    }
    std::vector<float> out(static_cast<size_t>(m * n));
    ParallelFor(m, [&](int64_t i) {
      const int64_t* qi = q.data() + i * k;
      const double row_scale = packed ? 1.0 : x_scale[per_tensor ? 0 : i];
      for (int64_t c = 0; c < n; ++c) {
        const int64_t* wc = w + c * k;
        int64_t acc = 0;
        for (int64_t j = 0; j < k; ++j) acc += qi[j] * wc[j];
        out[i * n + c] = static_cast<float>(static_cast<double>(acc) * column_scale[c] * row_scale);
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanQuantMatmulDequant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* weight_scale = RoleTensor(call, family, F::Role::kWeightScale);
  const TensorDesc* x_scale = RoleTensor(call, family, F::Role::kXScale);
  const TensorDesc* smooth = RoleTensor(call, family, F::Role::kSmooth);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !weight || !weight_scale || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  if (x->view.size() != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [m, k]");
  const int64_t m = x->view[0], k = x->view[1];
  if (weight->view.size() != 2 || weight->view[1] != k) {
    return reject(F::Role::kWeight, "shape " + DimsText(weight->view) + " is not [n, k " + std::to_string(k) +
                                        "] (transposeWeight true, ND)");
  }
  const int64_t n = weight->view[0];
  if (n % 16 != 0 || k % 16 != 0) {
    return RejectByRow(call, family, F::Role::kWeight, RowKind::kValue,
                       "shape " + DimsText(weight->view) + ": n and k must be multiples of 16");
  }
  if (weight_scale->view != Dims{n}) {
    return reject(F::Role::kWeightScale, "shape " + DimsText(weight_scale->view) + " is not [n " + std::to_string(n) + "]");
  }
  const std::string mode = RoleText(call, family, F::Role::kMode);
  if (mode != "pertoken" && mode != "pertensor") {
    return reject(F::Role::kMode, "\"" + mode + "\" is not pertoken or pertensor");
  }
  const bool packed = weight_scale->dtype == ACL_INT64;
  if (!x_scale && mode != "pertoken") {
    return reject(F::Role::kMode, "must be pertoken without xScaleOptional (dynamic quantisation), not " + mode);
  }
  if (x_scale && mode == "pertensor" && x_scale->numel() != 1) {
    return reject(F::Role::kXScale, "shape " + DimsText(x_scale->view) + " is not one value (pertensor)");
  }
  if (x_scale && mode == "pertoken" && x_scale->view != Dims{m}) {
    return reject(F::Role::kXScale, "shape " + DimsText(x_scale->view) + " is not [m " + std::to_string(m) + "] (pertoken)");
  }
  // The page's 约束说明 ties the three both ways; the simulator holds INT64 words to the other two, without which
  // the words' folded scale_x is not the one x was quantised by, and computes formula 4.1, which any scale_x
  // defines, for a FLOAT16 xScaleOptional with FLOAT weightScale (the generated suites pass one: uniform dtypes).
  if (packed && (!x_scale || x_scale->dtype != ACL_FLOAT16 || mode != "pertensor")) {
    return reject(F::Role::kWeightScale, "INT64 words need a FLOAT16 xScaleOptional and pertensor (the page's 约束说明)");
  }
  if (smooth && smooth->view != Dims{k}) {
    return reject(F::Role::kSmooth, "shape " + DimsText(smooth->view) + " is not [k " + std::to_string(k) + "]");
  }
  auto made = std::make_unique<QuantMatmulDequantWork>(call.spec.name);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, {m, n}, "[m, n]", kOut)) return s;
  made->m = m, made->n = n, made->k = k;
  made->smooth = smooth != nullptr, made->static_scale = x_scale != nullptr;
  made->per_tensor = mode == "pertensor", made->packed = packed;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  made->tensor(kWeightScale).Set(RoleName(call, family, F::Role::kWeightScale), *weight_scale);
  if (x_scale) made->tensor(kXScale).Set(RoleName(call, family, F::Role::kXScale), *x_scale);
  if (smooth) made->tensor(kSmooth).Set(RoleName(call, family, F::Role::kSmooth), *smooth);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
