// The sample_affine family: a per-sample affine transform of features, as the pages' formulas.
//   modulate       aclnnModulate: self [B, L, D], out = self * (1 + scale) + shift, scale and shift
//                  one row of D per sample ([B, 1, D] or [B, D]), each optional (absent: 0).
//   instance_norm  aclnnInstanceNorm: x [N, C, H, W] (dataFormat "NCHW"), each (n, c) plane
//                  normalised by its mean and biased variance, y = (x - mean) / sqrt(var + eps) *
//                  gamma[c] + beta[c]; mean and variance [N, C, 1, 1]. "NHWC", whose statistics' shape
//                  the page leaves open ("the first 2 dimensions" are N and H there), is declined by
//                  name (561003).
//   ada_layer_norm_backward  aclnnAdaLayerNormBackward (the backward of layer_norm(x) * (1 + scale) +
//                  shift over x [B..., S, H]'s last dimension, from the forward's mean and rstd
//                  [B..., S, 1]), the page's formulas: with z = (x - mean) * rstd and g = gradOut *
//                  weight * (1 + scale), gradInput = (g - mean_H(g) - z * mean_H(g * z)) * rstd;
//                  gradScale and gradShift (one row per sample) the sums over S of gradOut * (z *
//                  weight + bias) and of gradOut; gradWeight and gradBias the sums over B and S of
//                  gradOut * (1 + scale) * z and of gradOut * (1 + scale). Each output optional.
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

enum Slot { kX, kScale, kShift, kOut, kMean, kVariance, kGradOut, kWeight, kBias, kGradScale, kGradShift, kGradWeight,
            kGradBias, kSlots };

class SampleAffineWork final : public FamilyWork {
 public:
  explicit SampleAffineWork(const char* api) : FamilyWork(api, kSlots) {}

  bool instance_norm = false, ada_backward = false;
  int64_t samples = 0, rows = 0, width = 0;  // modulate: B, L, D; instance_norm: N, C, H * W
  double eps = 1e-5;

 private:
  const float* Floats(int slot) const {
    return tensor(slot).dtype != ACL_DT_UNDEFINED && tensor(slot).numel()
               ? static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, slot))
               : nullptr;
  }

  void Put(int slot, const std::vector<float>& values) const {
    if (tensor(slot).dtype != ACL_DT_UNDEFINED) ScatterFrom(values.data(), ComputeType::kFloat32, tensor(slot));
  }

  // samples: B, rows: S, width: H; mean and rstd in kMean and kVariance.
  aclnnStatus AdaBackward() {
    const float *x = Floats(kX), *dy = Floats(kGradOut), *scale = Floats(kScale), *mean = Floats(kMean);
    const float *rstd = Floats(kVariance), *weight = Floats(kWeight), *bias = Floats(kBias);
    const int64_t h = width, all = samples * rows;
    std::vector<float> dx(static_cast<size_t>(all * h)), dscale(static_cast<size_t>(samples * h)), dshift(dscale.size());
    ParallelFor(samples, [&](int64_t b) {
      std::vector<double> sum_scale(static_cast<size_t>(h)), sum_shift(static_cast<size_t>(h));
      std::vector<double> g(static_cast<size_t>(h)), z(static_cast<size_t>(h));
      for (int64_t r = b * rows; r < (b + 1) * rows; ++r) {
        double g_sum = 0, gz_sum = 0;
        for (int64_t k = 0; k < h; ++k) {
          const double w = weight ? weight[k] : 1.0, one_plus = 1.0 + scale[b * h + k];
          z[static_cast<size_t>(k)] = (static_cast<double>(x[r * h + k]) - mean[r]) * rstd[r];
          g[static_cast<size_t>(k)] = dy[r * h + k] * w * one_plus;
          g_sum += g[static_cast<size_t>(k)];
          gz_sum += g[static_cast<size_t>(k)] * z[static_cast<size_t>(k)];
          sum_scale[static_cast<size_t>(k)] += dy[r * h + k] * (z[static_cast<size_t>(k)] * w + (bias ? bias[k] : 0.0));
          sum_shift[static_cast<size_t>(k)] += dy[r * h + k];
        }
        for (int64_t k = 0; k < h; ++k) {
          const double t = g_sum / static_cast<double>(h) + z[static_cast<size_t>(k)] * gz_sum / static_cast<double>(h);
          dx[static_cast<size_t>(r * h + k)] = static_cast<float>((g[static_cast<size_t>(k)] - t) * rstd[r]);
        }
      }
      for (int64_t k = 0; k < h; ++k) {
        dscale[static_cast<size_t>(b * h + k)] = static_cast<float>(sum_scale[static_cast<size_t>(k)]);
        dshift[static_cast<size_t>(b * h + k)] = static_cast<float>(sum_shift[static_cast<size_t>(k)]);
      }
    });
    std::vector<float> dweight(static_cast<size_t>(h)), dbias(static_cast<size_t>(h));
    ParallelFor(h, [&](int64_t k) {
      double sum_w = 0, sum_b = 0;
      for (int64_t r = 0; r < all; ++r) {
        const double d = dy[r * h + k] * (1.0 + scale[(r / rows) * h + k]);
        sum_w += d * (static_cast<double>(x[r * h + k]) - mean[r]) * rstd[r];
        sum_b += d;
      }
      dweight[static_cast<size_t>(k)] = static_cast<float>(sum_w);
      dbias[static_cast<size_t>(k)] = static_cast<float>(sum_b);
    });
    Put(kOut, dx);
    Put(kGradScale, dscale);
    Put(kGradShift, dshift);
    Put(kGradWeight, dweight);
    Put(kGradBias, dbias);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Compute() override {
    if (ada_backward) return AdaBackward();
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

aclnnStatus PlanAdaBackward(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  if (!x) return Decline(call, work, "without input");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter reject(call, family);
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [B..., S, H]");
  Dims normalized;
  if (RoleInts(call, family, F::Role::kNormalizedShape, &normalized) &&
      (normalized.size() != 1 || normalized[0] != x->view.back())) {
    return reject(F::Role::kNormalizedShape, DimsText(normalized) + " is not [H] = [" + std::to_string(x->view.back()) + "]");
  }
  std::unique_ptr<SampleAffineWork> made(new SampleAffineWork(call.spec.name));
  made->ada_backward = true;
  made->width = x->view.back();
  made->rows = x->view[rank - 2];
  made->samples = 1;
  for (int64_t d = 0; d < rank - 2; ++d) made->samples *= x->view[d];
  const int64_t b = made->samples, h = made->width;
  struct Part {
    int role, slot;
    int64_t numel;  // -1: x's shape
    bool optional, output;
  };
  const Part parts[] = {{F::Role::kGradOut, kGradOut, -1, false, false}, {F::Role::kMean, kMean, b * made->rows, false, false},
                        {F::Role::kRstd, kVariance, b * made->rows, false, false}, {F::Role::kScale, kScale, b * h, false, false},
                        {F::Role::kShift, kShift, b * h, false, false},      {F::Role::kWeight, kWeight, h, true, false},
                        {F::Role::kBias, kBias, h, true, false},             {F::Role::kOut, kOut, -1, true, true},
                        {F::Role::kGradScale, kGradScale, b * h, true, true}, {F::Role::kGradShift, kGradShift, b * h, true, true},
                        {F::Role::kGradWeight, kGradWeight, h, true, true},  {F::Role::kGradBias, kGradBias, h, true, true}};
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  for (const Part& part : parts) {
    const TensorDesc* t = RoleTensor(call, family, part.role);
    if (!t) {
      if (part.optional) continue;
      return Decline(call, work, std::string("without ") + RoleName(call, family, part.role));
    }
    // mean and rstd [B..., S, 1]; scale, shift and their gradients [B..., H] or [B..., 1, H]: held
    // to their element counts (the page's shapes are phase 1's).
    if (part.numel < 0 ? t->view != x->view : t->numel() != part.numel) {
      return reject(part.role, "shape " + DimsText(t->view) + " does not match input " + DimsText(x->view));
    }
    made->tensor(part.slot).Set(RoleName(call, family, part.role), *t);
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanSampleAffine(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kAdaLayerNormBackward) return PlanAdaBackward(call, family, work);
  const bool norm = family.op == F::Op::kInstanceNorm;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !out) return Decline(call, work, "without x and out");
  if (!ComputesInFloat32(x->dtype)) return DeclineDtype(call, work, x->dtype);
  const ParamRejecter reject(call, family);
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
