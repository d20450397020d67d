// The chamfer family: aclnnChamferDistanceBackward, the gradient of the chamfer distance of 2-D
// point sets xyz1 [B, N, 2] and xyz2 [B, M, 2] from the forward's nearest-point indices
// (idx1 [B, N] into xyz2, idx2 [B, M] into xyz1) and the distances' gradients:
//   d = xyz1[b, i] - xyz2[b, idx1[b, i]]:  gradXyz1[b, i] += 2 gradDist1[b, i] d,
//                                          gradXyz2[b, idx1[b, i]] -= 2 gradDist1[b, i] d
//   d = xyz2[b, j] - xyz1[b, idx2[b, j]]:  gradXyz2[b, j] += 2 gradDist2[b, j] d,
//                                          gradXyz1[b, idx2[b, j]] -= 2 gradDist2[b, j] d
// (the page's formula; its table gives idx2, gradDist2 and gradXyz2 N where they have xyz2's M).
// Indices are device data, refused in phase 2 outside the other set. In float, the
// accumulations in point order.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = ChamferFamily;

enum Slot { kXyz1, kXyz2, kIdx1, kIdx2, kGrad1, kGrad2, kOut1, kOut2, kSlots };

class ChamferWork final : public FamilyWork {
 public:
  explicit ChamferWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t batch = 0, n = 0, m = 0;

 private:
  aclnnStatus Compute() override {
    const int64_t* idx[2] = {batch * n > 0 ? IndexValues(tensor(kIdx1), 4) : nullptr,
                             batch * m > 0 ? IndexValues(tensor(kIdx2), 5) : nullptr};
    const int64_t counts[2] = {n, m};
    for (int s = 0; s < 2; ++s) {
      for (int64_t k = 0; k < batch * counts[s]; ++k) {
        if (idx[s][k] < 0 || idx[s][k] >= counts[1 - s]) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(s ? kIdx2 : kIdx1).name + ": element " +
                                           std::to_string(k) + " is " + std::to_string(idx[s][k]) + ", outside [0, " +
                                           std::to_string(counts[1 - s]) + ") (the device's kernel faults on it)");
        }
      }
    }
    std::vector<float> xyz[2], grad[2], out[2];
    for (int s = 0; s < 2; ++s) {
      xyz[s].resize(static_cast<size_t>(batch * counts[s] * 2));
      grad[s].resize(static_cast<size_t>(batch * counts[s]));
      out[s].assign(xyz[s].size(), 0.0f);
      GatherAs(tensor(s ? kXyz2 : kXyz1), ComputeType::kFloat32, xyz[s].data());
      GatherAs(tensor(s ? kGrad2 : kGrad1), ComputeType::kFloat32, grad[s].data());
    }
    for (int s = 0; s < 2; ++s) {  // s: the set whose points look up their nearest in the other
      const int o = 1 - s;
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < counts[s]; ++i) {
          const int64_t p = b * counts[s] + i, q = b * counts[o] + idx[s][p];
          const float g = 2 * grad[s][static_cast<size_t>(p)];
          for (int c = 0; c < 2; ++c) {
            const float d = g * (xyz[s][static_cast<size_t>(p * 2 + c)] - xyz[o][static_cast<size_t>(q * 2 + c)]);
            out[s][static_cast<size_t>(p * 2 + c)] += d;
            out[o][static_cast<size_t>(q * 2 + c)] -= d;
          }
        }
      }
    }
    ScatterFrom(out[0].data(), ComputeType::kFloat32, tensor(kOut1));
    ScatterFrom(out[1].data(), ComputeType::kFloat32, tensor(kOut2));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanChamfer(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int roles[kSlots] = {F::Role::kXyz1, F::Role::kXyz2, F::Role::kIdx1, F::Role::kIdx2,
                             F::Role::kGradDist1, F::Role::kGradDist2, F::Role::kGradXyz1, F::Role::kGradXyz2};
  const TensorDesc* t[kSlots];
  for (int s = 0; s < kSlots; ++s) {
    t[s] = RoleTensor(call, family, roles[s]);
    if (!t[s]) return Decline(call, work, std::string("without ") + RoleName(call, family, roles[s]));
  }
  for (int s : {kXyz1, kXyz2, kGrad1, kGrad2, kOut1, kOut2}) {
    if (t[s]->dtype != ACL_FLOAT && t[s]->dtype != ACL_FLOAT16) {
      return DeclineDtype(call, work, t[s]->dtype);
    }
  }
  auto reject = [&](int s, const std::string& message) {
    return RejectInvalid(call, family, roles[s], message);
  };
  for (int s : {kXyz1, kXyz2}) {
    const Dims& v = t[s]->view;
    if (v.size() != 3 || v[2] != 2) return reject(s, "shape " + DimsText(v) + " is not [B, points, 2]");
  }
  std::unique_ptr<ChamferWork> made(new ChamferWork(call.spec.name));
  made->batch = t[kXyz1]->view[0];
  made->n = t[kXyz1]->view[1];
  made->m = t[kXyz2]->view[1];
  if (t[kXyz2]->view[0] != made->batch) return reject(kXyz2, "batch " + std::to_string(t[kXyz2]->view[0]) + " is not xyz1's");
  const Dims points1{made->batch, made->n}, points2{made->batch, made->m};
  for (int s : {kIdx1, kGrad1, kIdx2, kGrad2}) {
    const Dims& want = s == kIdx1 || s == kGrad1 ? points1 : points2;
    if (t[s]->view != want) return reject(s, "shape " + DimsText(t[s]->view) + " is not " + DimsText(want));
  }
  for (int s = 0; s < kOut1; ++s) made->tensor(s).Set(RoleName(call, family, roles[s]), *t[s]);
  if (aclnnStatus st = made->KeepOutput(call, family, roles[kOut1], *t[kOut1], t[kXyz1]->view, "xyz1's shape", kOut1)) return st;
  if (aclnnStatus st = made->KeepOutput(call, family, roles[kOut2], *t[kOut2], t[kXyz2]->view, "xyz2's shape", kOut2)) return st;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
