// The lora family: aclnnAddLora (torch_npu.npu_batch_gather_matmul and its in-place form, out being
// y), as vLLM's punica kernels: each row b of x
// through the LoRA weights of its index and layer, added to a slice of y:
//   z1 = x[b] @ weightA[indices[b], layerIdx]^T   ([R]; x[b] itself without weightA, H1 = R)
//   z2 = z1 @ weightB[indices[b], layerIdx]^T * scale   ([H2])
//   out = y, with out[b, yOffset : yOffset + ySliceSize] += z2   (H2 = ySliceSize)
// Shapes off the page's (W, L, R, H1, H2 agreeing; the slice inside y; H2 the slice's width) and
// layerIdx outside [0, L) are refused by name in phase 1 (561002, the page's status for shapes
// that do not match); indices are device data, refused in phase 2 outside [0, W). The NZ weight
// format is not modelled (declined). Products in float, rounded once to out's dtype; rows spread
// over the threads.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = LoraFamily;

enum Slot { kY, kX, kWeightB, kIndices, kWeightA, kOut, kSlots };

class LoraWork final : public FamilyWork {
 public:
  explicit LoraWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t batch = 0, h1 = 0, h3 = 0, rank = 0, h2 = 0, adapters = 0, layers = 0, layer = 0, offset = 0;
  double scale = 1;
  bool has_a = false;

 private:
  aclnnStatus Compute() override {
    const int64_t* idx = batch ? IndexValues(tensor(kIndices), 5) : nullptr;
    for (int64_t b = 0; b < batch; ++b) {
      if (idx[b] < 0 || idx[b] >= adapters) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kIndices).name + ": element " + std::to_string(b) +
                                         " is " + std::to_string(idx[b]) + ", outside [0, " + std::to_string(adapters) +
                                         ") (the device's kernel faults on it)");
      }
    }
    if (batch * h3 == 0) return ACLNN_SUCCESS;
    const float* y = static_cast<const float*>(ContiguousAs(tensor(kY), ComputeType::kFloat32, 0));
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 1));
    const float* wb = static_cast<const float*>(ContiguousAs(tensor(kWeightB), ComputeType::kFloat32, 2));
    const float* wa = has_a ? static_cast<const float*>(ContiguousAs(tensor(kWeightA), ComputeType::kFloat32, 3)) : nullptr;
    std::vector<float> out(y, y + batch * h3);
    ParallelFor(batch, [&](int64_t b) {
      const int64_t slice = idx[b] * layers + layer;  // weightA [W, L, R, H1], weightB [W, L, H2, R]
      std::vector<float> z1(static_cast<size_t>(rank));
      for (int64_t r = 0; r < rank; ++r) {
        if (!wa) {
          z1[static_cast<size_t>(r)] = x[b * h1 + r];
          continue;
        }
        const float* row = wa + (slice * rank + r) * h1;
        float sum = 0;
        for (int64_t k = 0; k < h1; ++k) sum += x[b * h1 + k] * row[k];
        z1[static_cast<size_t>(r)] = sum;
      }
      for (int64_t h = 0; h < h2; ++h) {
        const float* row = wb + (slice * h2 + h) * rank;
        float sum = 0;
        for (int64_t r = 0; r < rank; ++r) sum += z1[static_cast<size_t>(r)] * row[r];
        out[static_cast<size_t>(b * h3 + offset + h)] += sum * static_cast<float>(scale);
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanLora(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* y = RoleTensor(call, family, F::Role::kY);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* wb = RoleTensor(call, family, F::Role::kWeightB);
  const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
  const TensorDesc* wa = RoleTensor(call, family, F::Role::kWeightA);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!y || !x || !wb || !indices || !out) return Decline(call, work, "without y, x, weightB, indices or out");
  for (const TensorDesc* t : {y, x, wb, wa, out}) {
    if (!t) continue;
    if (t->dtype != ACL_FLOAT16 && t->dtype != ACL_FLOAT && t->dtype != ACL_BF16) {
      return DeclineDtype(call, work, t->dtype);
    }
  }
  for (const TensorDesc* t : {wb, wa}) {
    if (t && t->format != ACL_FORMAT_ND && t->format != ACL_FORMAT_NCHW) {
      return Decline(call, work, "for a weight of a format other than ND (the NZ format)");
    }
  }
  const ParamRejecter reject(call, family, ACLNN_ERR_INNER_TILING_ERROR);
  if (y->view.size() != 2) return reject(F::Role::kY, "shape " + DimsText(y->view) + " is not [B, H3]");
  if (x->view.size() != 2 || x->view[0] != y->view[0]) {
    return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [B, H1] with y's B " + std::to_string(y->view[0]));
  }
  if (wb->view.size() != 4) return reject(F::Role::kWeightB, "shape " + DimsText(wb->view) + " is not [W, L, H2, R]");
  if (indices->view != Dims{y->view[0]}) {
    return reject(F::Role::kIndices, "shape " + DimsText(indices->view) + " is not [" + std::to_string(y->view[0]) + "]");
  }
  std::unique_ptr<LoraWork> made(new LoraWork(call.spec.name));
  LoraWork& w = *made;
  w.batch = y->view[0];
  w.h3 = y->view[1];
  w.h1 = x->view[1];
  w.adapters = wb->view[0];
  w.layers = wb->view[1];
  w.h2 = wb->view[2];
  w.rank = wb->view[3];
  if (wa) {
    const Dims want{w.adapters, w.layers, w.rank, w.h1};
    if (wa->view != want) {
      return reject(F::Role::kWeightA, "shape " + DimsText(wa->view) + " is not " + DimsText(want) +
                                           " ([W, L, R] of weightB, H1 of x)");
    }
  } else if (w.h1 != w.rank) {
    return reject(F::Role::kX, "has " + std::to_string(w.h1) + " columns, not weightB's rank " + std::to_string(w.rank) +
                                   " (no weightA to project them)");
  }
  w.has_a = wa != nullptr;
  w.layer = RoleInt(call, family, F::Role::kLayerIdx, 0);
  if (w.layer < 0 || w.layer >= w.layers) {
    return reject(F::Role::kLayerIdx, std::to_string(w.layer) + " is outside [0, " + std::to_string(w.layers) + ")");
  }
  w.offset = RoleInt(call, family, F::Role::kYOffset, 0);
  const int64_t slice = RoleInt(call, family, F::Role::kYSliceSize, 0);
  if (w.offset < 0 || slice < 0 || w.offset + slice > w.h3) {
    return reject(F::Role::kYSliceSize, "the slice [" + std::to_string(w.offset) + ", " + std::to_string(w.offset + slice) +
                                            ") is not inside y's " + std::to_string(w.h3) + " columns");
  }
  if (slice != w.h2) {
    return reject(F::Role::kYSliceSize, std::to_string(slice) + " is not weightB's H2 " + std::to_string(w.h2) +
                                            " (the slice takes weightB's rows)");
  }
  w.scale = RoleNumber(call, family, F::Role::kScale, -1, 1);
  w.tensor(kY).Set(RoleName(call, family, F::Role::kY), *y);
  w.tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  w.tensor(kWeightB).Set(RoleName(call, family, F::Role::kWeightB), *wb);
  w.tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), *indices);
  if (wa) w.tensor(kWeightA).Set(RoleName(call, family, F::Role::kWeightA), *wa);
  if (aclnnStatus s = w.KeepOutput(call, family, F::Role::kOut, *out, y->view, "y's shape", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
