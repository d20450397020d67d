// The sample_affine family: a per-sample affine transform of features, as the pages' formulas.
//   modulate       aclnnModulate: self [B, L, D], out = self * (1 + scale) + shift, scale and shift
//                  one row of D per sample ([B, 1, D] or [B, D]), each optional (absent: 0).
//   instance_norm  aclnnInstanceNorm: x [N, C, H, W] (dataFormat "NCHW"), each (n, c) plane
//                  normalised by its mean and biased variance, y = (x - mean) / sqrt(var + eps) *
//                  gamma[c] + beta[c]; mean and variance [N, C, 1, 1]. "NHWC", whose statistics' shape
//                  the page leaves open ("the first 2 dimensions" are N and H there), is declined by
//                  name (561003).
// In float (FLOAT16 and BFLOAT16 converted), sums in double; rows spread over the threads.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = SampleAffineFamily;

enum Slot { kX, kScale, kShift, kOut, kMean, kVariance, kSlots };

class SampleAffineWork final : public FamilyWork {
 public:
  explicit SampleAffineWork(const char* api) : FamilyWork(api, kSlots) {}

  bool instance_norm = false;
  int64_t samples = 0, rows = 0, width = 0;  // modulate: B, L, D; instance_norm: N, C, H * W
  double eps = 1e-5;

 private:
  const float* Floats(int slot) const {
    return tensor(slot).dtype != ACL_DT_UNDEFINED && tensor(slot).numel()
               ? static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, slot))
               : nullptr;
  }

  aclnnStatus Compute() override {
    const float *x = Floats(kX), *scale = Floats(kScale), *shift = Floats(kShift);
    std::vector<float> out(static_cast<size_t>(samples * rows * width));
    if (!instance_norm) {
      ParallelFor(samples * rows, [&](int64_t row) {
        const int64_t b = row / rows;
        for (int64_t d = 0; d < width; ++d) {
          const float s = scale ? scale[b * width + d] : 0.0f, t = shift ? shift[b * width + d] : 0.0f;
          out[static_cast<size_t>(row * width + d)] = x[row * width + d] * (1.0f + s) + t;
        }
      });
      ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
      return ACLNN_SUCCESS;
    }
    std::vector<float> mean(static_cast<size_t>(samples * rows)), variance(mean.size());
    ParallelFor(samples * rows, [&](int64_t plane) {
      const float* p = x + plane * width;
      double sum = 0;
      for (int64_t k = 0; k < width; ++k) sum += p[k];
      const double m = width ? sum / static_cast<double>(width) : 0;
      double squares = 0;
      for (int64_t k = 0; k < width; ++k) squares += (p[k] - m) * (p[k] - m);
      const double v = width ? squares / static_cast<double>(width) : 0;
      const double rstd = 1.0 / std::sqrt(v + eps);
      const int64_t c = plane % rows;
      const float gamma = scale ? scale[c] : 1.0f, beta = shift ? shift[c] : 0.0f;
      for (int64_t k = 0; k < width; ++k) {
        out[static_cast<size_t>(plane * width + k)] = static_cast<float>((p[k] - m) * rstd) * gamma + beta;
      }
      mean[static_cast<size_t>(plane)] = static_cast<float>(m);
      variance[static_cast<size_t>(plane)] = static_cast<float>(v);
    });
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    ScatterFrom(mean.data(), ComputeType::kFloat32, tensor(kMean));
    ScatterFrom(variance.data(), ComputeType::kFloat32, tensor(kVariance));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanSampleAffine(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool norm = family.op == F::Op::kInstanceNorm;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !out) return Decline(call, work, "without x and out");
  ComputeType type;
  if (!FamilyComputeType(x->dtype, false, &type) || type != ComputeType::kFloat32) {
    return Decline(call, work, std::string("for dtype ") + DTypeName(x->dtype));
  }
  auto reject = [&](int role, const std::string& message) {
    return RejectParam(call, family, role, ACLNN_ERR_PARAM_INVALID, message);
  };
  const size_t rank = x->view.size();
  if (rank != (norm ? 4u : 3u)) {
    return reject(F::Role::kX, "shape " + DimsText(x->view) + (norm ? " is not [N, C, H, W]" : " is not [B, L, D]"));
  }
  std::unique_ptr<SampleAffineWork> made(new SampleAffineWork(call.spec.name));
  made->instance_norm = norm;
  made->samples = x->view[0];
  made->rows = x->view[1];
  made->width = norm ? x->view[2] * x->view[3] : x->view[2];
  if (norm) {
    const int format = family.roles[F::Role::kDataFormat];
    const std::string data_format = format >= 0 ? CallString(call, format) : "NCHW";
    if (data_format == "NHWC") return Decline(call, work, "for dataFormat \"NHWC\" (its statistics' shape is not modelled)");
    if (data_format != "NCHW") return reject(F::Role::kDataFormat, "\"" + data_format + "\" is neither NCHW nor NHWC");
    made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-5);
  }
  // scale/shift: modulate's one row per sample ([B, 1, D] or [B, D]); instance_norm's gamma/beta [C].
  for (int role : {static_cast<int>(F::Role::kScale), static_cast<int>(F::Role::kShift)}) {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (!t) continue;
    const int64_t b = made->samples, d = made->width;
    const bool fits = norm ? t->view == Dims{made->rows}
                           : t->view == Dims{b, 1, d} || t->view == Dims{b, d};
    if (!fits) {
      return reject(role, "shape " + DimsText(t->view) + (norm ? " is not [C]" : " is not [B, 1, D] or [B, D]"));
    }
    made->tensor(role == F::Role::kScale ? kScale : kShift).Set(RoleName(call, family, role), *t);
  }
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  if (norm) {
    const Dims stats{made->samples, made->rows, 1, 1};
    for (int role : {static_cast<int>(F::Role::kMean), static_cast<int>(F::Role::kVariance)}) {
      const TensorDesc* t = RoleTensor(call, family, role);
      if (!t) return Decline(call, work, std::string("without ") + RoleName(call, family, role));
      if (aclnnStatus s = made->KeepOutput(call, family, role, *t, stats, "[N, C, 1, 1]",
                                           role == F::Role::kMean ? kMean : kVariance)) {
        return s;
      }
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
