// The weight_quant_matmul family (aclnnWeightQuantBatchMatmulV2/V3): y = x @ W + bias with
// W = (weight + antiquantOffset) * antiquantScale, x [m, k] FLOAT16/BFLOAT16, weight INT8 [k, n]
// (any strides: a transposed one too), the scale and offset one value ((1,), (1, 1)), one per
// column ((n,), (1, n)) or one per group of antiquantGroupSize rows of k ((ceil(k / g), n)); in
// float, the products summed in float as the cube accumulates them (a product beyond float's range
// is infinite there, and two of opposite signs make NaN, as on the device). A FLOAT8_E4M3FN weight
// (Ascend950's C quantisation) takes a per-column or per-tensor scale, no offset nor groups. An INT4 weight (A16W4) is read as CANN packs
// it (common/int4.h), of any strides; an INT32 weight as the words torch_npu packs eight INT4 in
// (npu_convert_weight_to_int4pack: a (k, n / 8) weight for n columns of y), the scales alike. Refused
// by name: quantScaleOptional (the INT8 output through aclnnTransQuantParam's UINT64 scales),
// UINT64/INT64 and FLOAT8_E8M0 (MX) antiquant scales, HIFLOAT8 and FLOAT4 weights, an INT32 weight
// whose packed columns are not y's (the pages' (k, n) leaves which INT32 layout that is open),
// batched operands.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/int4.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using W = WeightQuantMatmulFamily;

enum MatmulSlot { kWx, kWWeight, kWScale, kWOffset, kWBias, kWOut, kWX3, kMatmulSlots };

class WeightQuantMatmulWork final : public FamilyWork {
 public:
  explicit WeightQuantMatmulWork(const char* api) : FamilyWork(api, kMatmulSlots) {}

  int64_t group = 0;  // rows of k per scale row; 0: one scale row for all
  bool has_offset = false, has_bias = false;
  bool int4 = false;   // the weight is `nibbles` (its slot holds the bytes they lie in)
  TensorDesc nibbles;
  bool has_x3 = false;  // mc2's addend after the all-reduce (aclnnWeightQuantMatmulAllReduce's x3), [m, n]

 private:
  aclnnStatus Compute() override {
    const int64_t m = tensor(kWx).shape[0], k = tensor(kWx).shape[1], n = tensor(kWOut).shape[1];
    if (m == 0 || n == 0) return ACLNN_SUCCESS;
    std::vector<float> x(static_cast<size_t>(m * k)), w(static_cast<size_t>(k * n));
    GatherAs(tensor(kWx), ComputeType::kFloat32, x.data());
    if (int4) {
      if (k > 0) GatherInt4(nibbles, w.data());
    } else {
      GatherAs(tensor(kWWeight), ComputeType::kFloat32, w.data());
    }
    auto values = [&](int slot) {
      std::vector<float> v(static_cast<size_t>(tensor(slot).numel()));
      GatherAs(tensor(slot), ComputeType::kFloat32, v.data());
      return v;
    };
    const std::vector<float> scale = values(kWScale);
    const std::vector<float> offset = has_offset ? values(kWOffset) : std::vector<float>();
    const std::vector<float> bias = has_bias ? values(kWBias) : std::vector<float>();
    const std::vector<float> x3 = has_x3 ? values(kWX3) : std::vector<float>();
    const bool per_tensor = scale.size() == 1;
    // The weight dequantised in place: its row kk reads scale row kk / group (row 0 without groups).
    for (int64_t kk = 0; kk < k; ++kk) {
      const int64_t row = group > 0 ? kk / group : 0;
      for (int64_t j = 0; j < n; ++j) {
        const size_t at = per_tensor ? 0 : static_cast<size_t>(row * n + j);
        float& v = w[static_cast<size_t>(kk * n + j)];
        v = (v + (has_offset ? offset[at] : 0.0f)) * scale[at];
      }
    }
    std::vector<float> y(static_cast<size_t>(m * n));
    ParallelRange(m, k * n, [&](int64_t begin, int64_t end) {
      std::vector<float> acc(static_cast<size_t>(n));
      for (int64_t i = begin; i < end; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t kk = 0; kk < k; ++kk) {
          const float a = x[static_cast<size_t>(i * k + kk)];
          const float* wr = w.data() + kk * n;
          for (int64_t j = 0; j < n; ++j) acc[j] += a * wr[j];
        }
        for (int64_t j = 0; j < n; ++j) {
          y[static_cast<size_t>(i * n + j)] =
              acc[j] + (has_bias ? bias[bias.size() == 1 ? 0 : static_cast<size_t>(j)] : 0.0f) +
              (has_x3 ? x3[static_cast<size_t>(i * n + j)] : 0.0f);
        }
      }
    });
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kWOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanWeightQuantMatmul(const Call& call, const FamilySpec& family, ExecutorWork** work,
                                  uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, W::Role::kX);
  const TensorDesc* weight = RoleTensor(call, family, W::Role::kWeight);
  const TensorDesc* scale = RoleTensor(call, family, W::Role::kScale);
  const TensorDesc* out = RoleTensor(call, family, W::Role::kOut);
  if (!x || !weight || !scale || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  if (family.has(W::Role::kGroup)) {  // mc2's all-reduce after the product: one rank's is the identity
    if (aclnnStatus s = CheckOneRankGroup(call, family, W::Role::kGroup, W::Role::kReduceOp)) return s;
  }
  if (RoleTensor(call, family, W::Role::kQuantScale)) {
    return Decline(call, work, "with quantScaleOptional (an INT8 output through aclnnTransQuantParam's UINT64 scales)");
  }
  // INT8, or FLOAT8_E4M3FN (Ascend950's per-channel C quantisation: its values exact in float, no offset),
  // or INT4, packed as INT4 or in INT32 words.
  const bool float8 = weight->dtype == ACL_FLOAT8_E4M3FN;
  TensorDesc nibbles;
  const bool int4 = AsInt4(*weight, &nibbles);
  if (weight->dtype == ACL_INT32 && !int4) {
    return Decline(call, work, "for an INT32 weight " + DimsText(weight->view) + " with no axis of stride 1 (the "
                               "axis its words pack eight INT4 along is unknown)");
  }
  if (weight->dtype != ACL_INT8 && !float8 && !int4) {
    return Decline(call, work, std::string("for a weight of dtype ") + DTypeName(weight->dtype) +
                                   (weight->dtype == ACL_HIFLOAT8 ? " (no page defines HIFLOAT8's encoding)" : ""));
  }
  if (scale->dtype == ACL_FLOAT8_E8M0) {
    return Decline(call, work, "for a FLOAT8_E8M0 antiquantScale (MX with FLOAT4_E2M1 weights is not simulated)");
  }
  if (float8 && (RoleTensor(call, family, W::Role::kOffset) || RoleInt(call, family, W::Role::kGroupSize, 0) != 0)) {
    return Decline(call, work, "for a FLOAT8_E4M3FN weight with antiquantOffset or groups (the page's C quantisation "
                               "has neither)");
  }
  if (scale->dtype == ACL_UINT64 || scale->dtype == ACL_INT64) {
    return Decline(call, work, std::string("for antiquantScale of dtype ") + DTypeName(scale->dtype));
  }
  if (x->view.size() != 2 || weight->view.size() != 2) {
    return Decline(call, work, "for x " + DimsText(x->view) + " and weight " + DimsText(weight->view) +
                                   " (only 2-d operands are simulated)");
  }
  const int64_t m = x->view[0], k = x->view[1], n = int4 ? nibbles.view[1] : weight->view[1];
  if (weight->dtype == ACL_INT32 && (out->view.size() != 2 || out->view[1] != n || nibbles.view[0] != k)) {
    return Decline(call, work, "for an INT32 weight " + DimsText(weight->view) + " packing (" + std::to_string(nibbles.view[0]) +
                               ", " + std::to_string(n) + ") INT4 for x " + DimsText(x->view) + " and y " +
                               DimsText(out->view) + " (an INT32 weight of y's own columns is a layout no page states)");
  }
  // The inner axis (of stride 1: k for a transposed weight) holds whole bytes.
  const size_t inner = weight->strides.back() == 1 ? 1 : 0;
  if (weight->dtype == ACL_INT4 && weight->view[inner] % 2 != 0) {
    return reject(W::Role::kWeight, "inner axis " + std::to_string(weight->view[inner]) +
                                        " is odd (the page: 若数据类型为INT4，则weight的内轴应为偶数)");
  }
  if (int4 ? nibbles.view[0] != k : weight->view[0] != k) {
    return reject(W::Role::kWeight, "shape " + DimsText(weight->view) + " does not have x's k = " + std::to_string(k) +
                                        " rows");
  }
  const int64_t group = RoleInt(call, family, W::Role::kGroupSize, 0);
  if (group < 0) return reject(W::Role::kGroupSize, std::to_string(group) + " is negative");
  auto made_owner = std::make_unique<WeightQuantMatmulWork>(call.spec.name);
  WeightQuantMatmulWork* made = made_owner.get();
  made->group = group;
  // The antiquant scale's rows: one, or ceil(k / group) with groups.
  const int64_t rows = group > 0 ? (k + group - 1) / group : 1;
  for (int role : {int{W::Role::kScale}, int{W::Role::kOffset}}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (!t) continue;
    const int64_t lead = t->view.size() == 2 ? t->view[0] : 1;
    const bool per_tensor = group == 0 && t->numel() == 1 && t->view.size() <= 2;
    const bool per_column = t->view.size() <= 2 && !t->view.empty() && lead == rows && t->view.back() == n;
    if (!per_tensor && !per_column) {
      return reject(role, "shape " + DimsText(t->view) + " is none of (1,), (n,), (1, n) or (ceil(k / group), n) for k " +
                              std::to_string(k) + ", n " + std::to_string(n));
    }
    made->tensor(role == W::Role::kScale ? kWScale : kWOffset).Set(RoleName(call, family, role), *t);
  }
  made->has_offset = RoleTensor(call, family, W::Role::kOffset) != nullptr;
  if (const TensorDesc* offset = RoleTensor(call, family, W::Role::kOffset)) {
    if (offset->numel() != scale->numel()) return reject(W::Role::kOffset, "shape differs from antiquantScale's");
  }
  if (const TensorDesc* bias = RoleTensor(call, family, W::Role::kBias)) {
    if (bias->numel() != n || bias->view.empty() || bias->view.size() > 2 || bias->view.back() != n) {
      return reject(W::Role::kBias, "shape " + DimsText(bias->view) + " is not (n,) or (1, n) for n " + std::to_string(n));
    }
    made->tensor(kWBias).Set(RoleName(call, family, W::Role::kBias), *bias);
    made->has_bias = true;
  }
  if (const TensorDesc* x3 = RoleTensor(call, family, W::Role::kX3)) {
    if (x3->view != Dims{m, n}) {
      return reject(W::Role::kX3, "shape " + DimsText(x3->view) + " is not the output's [m, n] " + DimsText(Dims{m, n}));
    }
    made->tensor(kWX3).Set(RoleName(call, family, W::Role::kX3), *x3);
    made->has_x3 = true;
  }
  made->tensor(kWx).Set(RoleName(call, family, W::Role::kX), *x);
  if (int4) {
    // The slot holds the bytes the elements lie in, for the memory check; Compute reads the nibbles.
    made->int4 = true;
    made->nibbles = nibbles;
    made->tensor(kWWeight).Set(RoleName(call, family, W::Role::kWeight), Int4Bytes(nibbles));
  } else {
    made->tensor(kWWeight).Set(RoleName(call, family, W::Role::kWeight), *weight);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, W::Role::kOut, *out, Dims{m, n}, "[m, n]", kWOut)) return s;
  *work = made_owner.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
