// The aclop bridge's normalisations and statistics (math.cpp's table registers them): batch norm in
// inference (BNInfer) and training (BNTrainingReduce, BNTrainingUpdate, and their 3-d forms), layer
// norm, the p-norm's two steps (LpNormReduceV2, LpNormUpdateV2) and the standard deviation and
// variance (ReduceStdWithMean, ReduceStdV2Update), each by the simulator's aclnn API of the same
// computation.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/host_kernel.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using StdApi = Phase1<const aclTensor*, const aclIntArray*, int64_t, bool, aclTensor*>;
using VarMeanApi = Phase1<const aclTensor*, const aclIntArray*, int64_t, bool, aclTensor*, aclTensor*>;
using BatchNormStatsApi = Phase1<const aclTensor*, double, aclTensor*, aclTensor*>;
using LayerNormApi = Phase1<const aclTensor*, const aclIntArray*, const aclTensor*, const aclTensor*, double, aclTensor*,
                            aclTensor*, aclTensor*>;
using BatchNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*, aclTensor*, bool, double,
                            double, aclTensor*, aclTensor*, aclTensor*>;

// The p of LpNormReduceV2 and LpNormUpdateV2: torch_npu passes the infinite norms as the float of
// INT_MAX and INT_MIN (2^31 and -2^31); p = 0 counts the nonzero elements (torch.linalg.vector_norm's
// ord 0); any other p, negative ones included, is the finite norm (sum |x|^p)^(1/p), |0|^p being
// infinite for a negative p as in PyTorch. A NaN p is not modelled.
enum class NormKind { kFinite, kCount, kMax, kMin, kUnmodelled };

NormKind NormOf(float p) {
  constexpr float kInfinity = 2147483648.0f;
  if (p >= kInfinity) return NormKind::kMax;
  if (p <= -kInfinity) return NormKind::kMin;
  if (p == 0.0f) return NormKind::kCount;
  return std::isfinite(p) ? NormKind::kFinite : NormKind::kUnmodelled;
}

aclError UnmodelledNorm(const OpCall& call, float p) {
  return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute p = " + std::to_string(p) +
                                                    " is not modelled (finite p and the infinite norms are)");
}

}  // namespace

// BNInfer (x, scale, offset, mean, variance; attribute epsilon): batch normalisation with the
// running statistics, aclnnBatchNorm in evaluation mode (its saved statistics go to scratch).
aclError BNInfer(const OpCall& call) {
  if (aclError s = call.Arity(5, 5, 1)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " has no channel dimension");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* scale = o.Tensor(call.inputs[1], "scale");
  aclTensor* offset = o.Tensor(call.inputs[2], "offset");
  aclTensor* mean = o.Tensor(call.inputs[3], "mean");
  aclTensor* variance = o.Tensor(call.inputs[4], "variance");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* save_mean = o.Scratch(ACL_FLOAT, {x_dims[1]});
  aclTensor* save_invstd = o.Scratch(ACL_FLOAT, {x_dims[1]});
  if (o.status()) return o.status();
  return Aclnn<BatchNormApi>(call, "aclnnBatchNorm", x, scale, offset, mean, variance, false, 0.1,
                             static_cast<double>(call.Float("epsilon", 1e-4f)), y, save_mean, save_invstd);
}

// ReduceStdWithMean with invert: 1 / sqrt(biased variance + epsilon) per channel, the invstd of
// torch.batch_norm_stats on Ascend910 (dim: every axis but C, unbiased false, as torch_npu sends it),
// by aclnnBatchNormStats, which ops-math documents as this kernel's (reduce_std_with_mean/README.md).
aclError InvertedStd(const OpCall& call) {
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  std::vector<int64_t> all_but_channels;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d != 1) all_but_channels.push_back(static_cast<int64_t>(d));
  }
  if (dims.size() < 2 || call.Ints("dim") != all_but_channels || call.Bool("unbiased", true) || call.Bool("keepdim", false) ||
      !call.Has("epsilon")) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute invert = true is modelled as batch_norm_stats' invstd only (dim " +
                                                      ListText(all_but_channels) + ", unbiased and keepdim false, epsilon set); the call: " +
                                                      call.Signature());
  }
  // The kernel's products are its documented interface's: every aclop type runs on every chip here.
  if (aclError s = OnReadmeChips(call, "aclnnBatchNormStats's page (ops-math reduce_std_with_mean)",
                                 {Soc::kAscend310P, Soc::kAscend310B})) {
    return s;
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* mean = o.Scratch(ACL_FLOAT, {dims[1]});
  if (o.status()) return o.status();
  return Aclnn<BatchNormStatsApi>(call, "aclnnBatchNormStats", x, static_cast<double>(call.Float("epsilon", 0.0f)), mean, y);
}

// ReduceStdWithMean (std) and ReduceStdV2Update (std when if_std, else the variance) of x over the
// attribute dim, with the correction attribute (unbiased's 1 or 0 where it is not set). Their mean
// input, computed by torch_npu from the same x, is not needed by the aclnn APIs.
aclError StdOrVar(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (call.Bool("invert", false)) return InvertedStd(call);
  const bool std_out = call.type == "ReduceStdWithMean" || call.Bool("if_std", false);
  const int64_t correction = call.Has("correction") ? call.Int("correction", 1) : call.Bool("unbiased", true) ? 1 : 0;
  const bool keep = call.Bool("keepdim", false);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclIntArray* dims = o.Ints(call.Ints("dim"));
  aclTensor* mean = std_out ? nullptr : o.Scratch(call.outputs[0].desc->dtype, call.outputs[0].desc->dims);
  if (o.status()) return o.status();
  if (std_out) return Aclnn<StdApi>(call, "aclnnStd", x, dims, correction, keep, y);
  return Aclnn<VarMeanApi>(call, "aclnnVarMean", x, dims, correction, keep, y, mean);
}

// LayerNorm (x, gamma, beta; attributes begin_norm_axis, begin_params_axis, epsilon) to y, mean and
// variance: aclnnLayerNorm's rstd becomes the variance, rstd^-2 - epsilon, in stream order.
aclError LayerNorm(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 3)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t norm = call.Int("begin_norm_axis", 0), params = call.Int("begin_params_axis", 0);
  if (norm < 0) norm += rank;
  if (params < 0) params += rank;
  if (norm < 0 || norm >= rank || norm != params) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin_norm_axis " + std::to_string(call.Int("begin_norm_axis", 0)) +
                                                      " and begin_params_axis " + std::to_string(call.Int("begin_params_axis", 0)) +
                                                      " of x " + ListText(dims) + ": not modelled (one axis in range is)");
  }
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-7f));
  const std::vector<int64_t> normalized(dims.begin() + norm, dims.end());
  // gamma and beta hold x's dimensions from begin_params_axis. torch_npu gives a 1-D x kept in
  // NC1HWC0 0-d ones for both (traced on Ascend910B: FLOAT[] format NCHW), whose broadcast over the
  // normalised dimensions no page states: refused as the operator's call, not as aclnnLayerNorm's.
  for (size_t i : {size_t{1}, size_t{2}}) {
    const std::vector<int64_t>& got = call.inputs[i].desc->dims;
    if (!Absent(call.inputs[i]) && got != normalized) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(i == 1 ? "gamma " : "beta ") + ListText(got) +
                                                         " is not x's dimensions from begin_params_axis " +
                                                         ListText(normalized) + " (x " + ListText(dims) +
                                                         "): a broadcast gamma or beta is not modelled");
    }
  }
  return NormWithVariance(call, epsilon, [&](AclnnObjects& o, aclTensor* x, aclTensor* gamma, aclTensor* beta, aclTensor* y,
                                             aclTensor* mean, aclTensor* rstd) {
    return Aclnn<LayerNormApi>(call, "aclnnLayerNorm", x, o.Ints(normalized), gamma, beta, epsilon, y, mean, rstd);
  });
}

// LpNormReduceV2: the first step of torch_npu's p-norm over the attribute axes (none: all):
// sum(|x|^p) for a finite p, the count of x != 0 for p = 0, max|x| or min|x| for the infinite norms.
aclError LpNormReduce(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const float p = call.Float("p", 2.0f);
  const NormKind kind = NormOf(p);
  if (kind == NormKind::kUnmodelled) return UnmodelledNorm(call, p);
  const Operand& x_operand = call.inputs[0];
  std::vector<int64_t> axes = call.Ints("axes");
  if (axes.empty()) {
    for (size_t d = 0; d < x_operand.desc->dims.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  const bool keep = call.Bool("keepdim", false);
  const aclDataType dtype = x_operand.desc->dtype;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* magnitude = o.Scratch(dtype, x_operand.desc->dims);
  aclTensor* powered = kind == NormKind::kFinite ? o.Scratch(dtype, x_operand.desc->dims) : magnitude;
  if (o.status()) return o.status();
  if (kind == NormKind::kCount) {  // 1 where x != 0 (NaN included), in x's dtype, summed below
    if (aclError s = Aclnn<WithScalarApi>(call, "aclnnNeScalar", x, o.Scalar(0.0, ACL_FLOAT), powered)) return s;
  } else if (aclError s = Aclnn<UnaryApi>(call, "aclnnAbs", x, magnitude)) {
    return s;
  }
  if (kind == NormKind::kFinite) {
    if (aclError s = Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", magnitude, o.Scalar(p, ACL_FLOAT), powered)) return s;
  }
  if (x_operand.desc->dims.empty()) return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, powered);
  if (kind == NormKind::kMax || kind == NormKind::kMin) {
    return Aclnn<ReduceNoDTypeApi>(call, kind == NormKind::kMax ? "aclnnAmax" : "aclnnAmin", powered, o.Ints(axes), keep, y);
  }
  return Aclnn<ReduceApi>(call, "aclnnReduceSum", powered, o.Ints(axes), keep, call.outputs[0].desc->dtype, y);
}

// LpNormUpdateV2: the p-norm's last step, y = x^(1/p) (y = x for the count and the infinite norms).
aclError LpNormUpdate(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const float p = call.Float("p", 2.0f);
  const NormKind kind = NormOf(p);
  if (kind == NormKind::kUnmodelled) return UnmodelledNorm(call, p);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (kind != NormKind::kFinite) return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
  return Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", x, o.Scalar(1.0 / p, ACL_DOUBLE), y);
}

// BNTrainingReduce (and BN3DTrainingReduce): the per-channel sum and sum of squares of an NCHW
// (NCDHW) x, over all dimensions but the channels', the first step of torch_npu's training batch norm.
aclError BNTrainingReduce(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  const Operand& x_operand = call.inputs[0];
  const size_t rank = x_operand.desc->dims.size();
  if (rank != (call.type == "BN3DTrainingReduce" ? 5u : 4u)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_operand.desc->dims) + " is not " +
                                                       (call.type == "BN3DTrainingReduce" ? "NCDHW" : "NCHW"));
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x");
  aclTensor* sum = o.Tensor(call.outputs[0], "sum");
  aclTensor* square_sum = o.Tensor(call.outputs[1], "square_sum");
  aclTensor* squares = o.Scratch(x_operand.desc->dtype, x_operand.desc->dims);
  if (o.status()) return o.status();
  aclIntArray* axes = rank == 5 ? o.Ints({0, 2, 3, 4}) : o.Ints({0, 2, 3});
  const bool keep = call.outputs[0].desc->dims.size() == rank;  // [1, C, 1, 1] or [C]
  const aclDataType dtype = call.outputs[0].desc->dtype;
  if (aclError s = Aclnn<ReduceApi>(call, "aclnnReduceSum", x, axes, keep, dtype, sum)) return s;
  if (aclError s = Aclnn<BinaryApi>(call, "aclnnMul", x, x, squares)) return s;
  return Aclnn<ReduceApi>(call, "aclnnReduceSum", squares, axes, keep, call.outputs[1].desc->dtype, square_sum);
}

// BNTrainingUpdate (and BN3DTrainingUpdate, of an NCDHW x) (x, sum, square_sum, scale, offset, mean,
// variance; attributes factor, epsilon)
// to y, the updated running mean and variance, and the batch's mean and (biased) variance, which
// torch_npu keeps for the backward pass: aclnnBatchNorm in training mode (it recomputes the sums
// from x) updating the output statistics, first copied from the input ones; its saved invstd
// becomes the variance, invstd^-2 - epsilon, in stream order.
aclError BNTrainingUpdate(const OpCall& call) {
  if (aclError s = call.Arity(7, 7, 5)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.size() != (call.type == "BN3DTrainingUpdate" ? 5u : 4u)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not " +
                                                       (call.type == "BN3DTrainingUpdate" ? "NCDHW" : "NCHW"));
  }
  const std::vector<int64_t> channels = {x_dims[1]};
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-5f));
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* scale = o.Tensor(call.inputs[3], "scale", channels);
  aclTensor* offset = o.Tensor(call.inputs[4], "offset", channels);
  aclTensor* mean = o.Tensor(call.inputs[5], "mean", channels);
  aclTensor* variance = o.Tensor(call.inputs[6], "variance", channels);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* mean_out = o.Tensor(call.outputs[1], "mean", channels);
  aclTensor* variance_out = o.Tensor(call.outputs[2], "variance", channels);
  aclTensor* batch_mean = o.Tensor(call.outputs[3], "batch_mean", channels);
  aclTensor* batch_variance = o.Tensor(call.outputs[4], "batch_variance", channels);
  aclTensor* invstd = o.Scratch(call.outputs[4].desc->dtype, channels);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", mean_out, mean)) return s;
  if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", variance_out, variance)) return s;
  if (aclError s = Aclnn<BatchNormApi>(call, "aclnnBatchNorm", x, scale, offset, mean_out, variance_out, true,
                                       static_cast<double>(call.Float("factor", 0.1f)), epsilon, y, batch_mean, invstd)) {
    return s;
  }
  if (aclError s = Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", invstd, o.Scalar(-2.0, ACL_FLOAT), batch_variance)) return s;
  return Aclnn<InplaceAddsApi>(call, "aclnnInplaceAdds", batch_variance, o.Scalar(-epsilon, ACL_DOUBLE), o.Scalar(1.0, ACL_FLOAT));
}

// An elementwise host kernel over operands of one shape (the output's): each element's outputs the
// formula of its inputs, computed in float and rounded once to each output's dtype, as CANN's
// kernels do. `names` are the prototype's inputs, then its outputs.
template <size_t kIn, size_t kOut, typename Formula>
aclError SameShapePointwise(const OpCall& call, const std::vector<const char*>& names, Formula formula) {
  if (aclError s = call.Arity(kIn, kIn, kOut)) return s;
  std::vector<const Operand*> operands;
  for (const Operand& operand : call.inputs) operands.push_back(&operand);
  for (const Operand& operand : call.outputs) operands.push_back(&operand);
  std::vector<Floats> f;
  if (aclError s = SameShapeFloats(call, operands, names, call.outputs[0].desc->dims, &f)) return s;
  const int64_t n = Elements(call.outputs[0].desc->dims);
  return Launch(call, [=] {
    for (int64_t e = 0; e < n; ++e) {
      std::array<float, kIn> v;
      for (size_t i = 0; i < kIn; ++i) v[i] = f[i][e];
      const std::array<float, kOut> r = formula(v);
      for (size_t j = 0; j < kOut; ++j) f[kIn + j].Set(e, r[j]);
    }
  });
}

// The products ops-nn's sync_batch_norm_backward_reduce and _elemt READMEs mark unsupported.
constexpr const char* kSyncBatchNormReadmes = "ops-nn's sync_batch_norm_backward_reduce and _elemt READMEs";

// SyncBatchNormBackwardReduce (sum_dy, sum_dy_dx_pad, mean, invert_std) -> (sum_dy_xmu, y = the
// weight's gradient) per channel, by ops-nn's sync_batch_norm_backward_reduce README formula:
// sumDyXmu = sumDyDxPad - sumDy * mean, gradWeight = sumDyXmu * invertStd.
// torch.batch_norm_backward_reduce on Ascend910 (op-plugin sums dy and dy * x itself).
aclError SyncBatchNormBackwardReduce(const OpCall& call) {
  if (aclError s = OnReadmeChips(call, kSyncBatchNormReadmes, {Soc::kAscend310P, Soc::kAscend310B})) return s;
  return SameShapePointwise<4, 2>(call, {"sum_dy", "sum_dy_dx_pad", "mean", "invert_std", "sum_dy_xmu", "y"},
                                  [](const std::array<float, 4>& v) {
                                    const float sum_dy_xmu = v[1] - v[0] * v[2];
                                    return std::array<float, 2>{sum_dy_xmu, sum_dy_xmu * v[3]};
                                  });
}

// SyncBatchNormBackwardElemt (grad_output, save_input, mean, invstd, weight, mean_dy, mean_dy_xmu,
// all broadcast to the input's shape by op-plugin) -> grad_input, by ops-nn's
// sync_batch_norm_backward_elemt README formula:
// gradInput = ((gradOut - meanDy) - (input - mean) * (invstd^2 * meanDyXmu)) * invstd * weight.
aclError SyncBatchNormBackwardElemt(const OpCall& call) {
  if (aclError s = OnReadmeChips(call, kSyncBatchNormReadmes, {Soc::kAscend310P, Soc::kAscend310B})) return s;
  return SameShapePointwise<7, 1>(
      call, {"grad_output", "save_input", "mean", "invstd", "weight", "mean_dy", "mean_dy_xmu", "grad_input"},
      [](const std::array<float, 7>& v) {
        const float invstd = v[3];
        return std::array<float, 1>{((v[0] - v[5]) - (v[1] - v[2]) * (invstd * invstd * v[6])) * invstd * v[4]};
      });
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnAbs, UnaryApi);
ACLOP_SAME(aclnnBatchNorm, BatchNormApi);
ACLOP_SAME(aclnnBatchNormStats, BatchNormStatsApi);
ACLOP_SAME(aclnnInplaceAdds, InplaceAddsApi);
ACLOP_SAME(aclnnInplaceCopy, InplaceCopyApi);
ACLOP_SAME(aclnnLayerNorm, LayerNormApi);
ACLOP_SAME(aclnnMul, BinaryApi);
ACLOP_SAME(aclnnNeScalar, WithScalarApi);
ACLOP_SAME(aclnnPowTensorScalar, WithScalarApi);
ACLOP_SAME(aclnnReduceSum, ReduceApi);
ACLOP_SAME(aclnnStd, StdApi);
ACLOP_SAME(aclnnVarMean, VarMeanApi);
ACLOP_SAME(aclnnAmax, ReduceNoDTypeApi);
ACLOP_SAME(aclnnAmin, ReduceNoDTypeApi);
