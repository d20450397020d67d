// The normalisations' backward (family "norm_grad"): layer_norm_backward, rms_norm_grad,
// group_norm_backward and batch_norm_backward.
//
// Phase 2 views x and dy as the forward does (norm.cpp): each set of elements that shares one
// mean and rstd is a contiguous row of a [rows, length] buffer in the compute type (layer and rms:
// the leading dimensions by the normalised trailing ones; group: (n, group) by the group's
// channels times HxW; batch: the channels, the input permuted to [C, N, ...], by the rest). With
// xhat = (x - mean) * rstd (x * rstd for rms) and g = dy * weight, each row's input gradient is
//   rstd * (g - sum(g) / length - xhat * sum(g * xhat) / length)
// (without the sum(g) term for rms, which subtracts no mean), the derivative of the forward at the
// given mean and rstd, as aten's backward kernels compute it; batch norm in inference (training =
// false) normalised with constants (runningMean, 1 / sqrt(runningVar + eps)): dx = g * rstd. The
// weight's gradient is sum(dy * xhat) and the bias's sum(dy) over everything that shares the weight
// element (layer, rms: a column; group, batch: a channel). Sums are in double; rows are spread
// over the threads, each task summing the weight gradients of its rows, merged in task order.
// rms_norm_grad_quant (aclnnRmsNormGradQuant) quantises rms_norm_grad's input gradient to INT8:
// round(dx * scale + offset), or round(dx / scale + offset) with divMode, half to even, saturated,
// scale and the INT32 offset one value each; HIFLOAT8 is declined by name.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = NormGradFamily;

enum Slot { kGradOut, kInput, kMean, kRstd, kWeight, kGradInput, kGradWeight, kGradBias, kInput2, kGradSum, kGradInput2,
            kBias, kQuantScale, kQuantOffset, kSlots };

bool Present(const TensorRef& t) { return t.dtype != ACL_DT_UNDEFINED; }

class NormGradWork final : public FamilyWork {
 public:
  NormGradWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t rows = 0, length = 0;
  int64_t groups = 1, channels = 1, hxw = 1;  // group_norm_backward
  int64_t weights = 0;                       // elements of the weight (and of its gradients)
  double eps = 1e-5;
  double alpha = 1;  // deep_norm_grad: the forward normalised input * alpha + input2
  bool training = true;  // batch norm: false normalised with the running statistics
  double swish_scale = 1;  // group_norm_swish_backward: the forward's y * sigmoid(swish_scale * y)
  // The order that brings x, dy and dx to the rows layout (batch norm's [C, N, ...]).
  int64_t order[16] = {};
  bool permuted = false;
  bool divide = false;  // rms_norm_grad_quant's divMode

 private:
  TensorRef Rows(int slot) const { return permuted ? tensor(slot).Permuted(order) : tensor(slot); }

  // The weight element that multiplies element i of row r.
  int64_t WeightIndex(int64_t r, int64_t i) const {
    switch (op_) {
      case F::Op::kGroupNormBackward: case F::Op::kGroupNormSwishBackward:
        return (r % groups) * (channels / groups) + i / hxw;
      case F::Op::kBatchNormBackward: return r;
      default: return i;
    }
  }

  template <typename T>
  void Run() {
    const int64_t numel = rows * length;
    const T* x;
    if (Present(tensor(kInput2))) {
      // The fused forwards' normalised sum: input + input2, or input * alpha + input2 (deep norm).
      T* sum = static_cast<T*>(Scratch(0, static_cast<size_t>(numel) * sizeof(T)));
      T* second = static_cast<T*>(Scratch(7, static_cast<size_t>(numel) * sizeof(T)));
      GatherAs(Rows(kInput), type, sum);
      GatherAs(Rows(kInput2), type, second);
      const T scale = static_cast<T>(alpha);
      for (int64_t i = 0; i < numel; ++i) sum[i] = sum[i] * scale + second[i];
      x = sum;
    } else {
      x = static_cast<const T*>(ContiguousAs(Rows(kInput), type, 0));
    }
    const T* dy = static_cast<const T*>(ContiguousAs(Rows(kGradOut), type, 1));
    const T* means = Present(tensor(kMean)) ? static_cast<const T*>(ContiguousAs(tensor(kMean), type, 2)) : nullptr;
    const T* rstds = static_cast<const T*>(ContiguousAs(tensor(kRstd), type, 3));
    const T* weight = Present(tensor(kWeight)) ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 4)) : nullptr;
    if (op_ == F::Op::kGroupNormSwishBackward) dy = SwishGradient(x, dy, means, rstds, weight);
    const bool want_dx = Present(tensor(kGradInput));
    const bool want_dw = Present(tensor(kGradWeight)), want_db = Present(tensor(kGradBias));
    T* dx = want_dx || Present(tensor(kGradInput2)) ? static_cast<T*>(Scratch(5, static_cast<size_t>(numel) * sizeof(T))) : nullptr;
    const bool centred = op_ != F::Op::kRmsNormGrad && op_ != F::Op::kRmsNormGradQuant;
    const bool constant = op_ == F::Op::kBatchNormBackward && !training;  // inference: no projection

    const int64_t tasks = numel < (1 << 15) ? 1 : std::min<int64_t>(rows, ParallelThreads() * 4);
    // Per task: the weight's gradient then the bias's, `weights` each.
    std::vector<double> partial(static_cast<size_t>(want_dw || want_db ? tasks * 2 * weights : 0), 0.0);
    auto row = [&](int64_t r, double* dw, double* db) {
      const T* xr = x + r * length;
      const T* dyr = dy + r * length;
      // Inference batch norm: runningMean and 1 / sqrt(runningVar + eps) (rstds holds runningVar).
      const double mean = centred && means ? static_cast<double>(means[r]) : 0.0;
      const double rstd = constant ? 1.0 / std::sqrt(static_cast<double>(rstds[r]) + eps)
                                   : static_cast<double>(rstds[r]);
      double sum_g = 0, sum_gx = 0;
      for (int64_t i = 0; i < length; ++i) {
        const int64_t w = WeightIndex(r, i);
        const double d = static_cast<double>(dyr[i]);
        const double xhat = (static_cast<double>(xr[i]) - mean) * rstd;
        const double g = d * (weight ? static_cast<double>(weight[w]) : 1.0);
        sum_g += g;
        sum_gx += g * xhat;
        if (dw) dw[w] += d * xhat;
        if (db) db[w] += d;
      }
      if (!dx) return;
      T* dxr = dx + r * length;
      const double n = static_cast<double>(length);
      const double shift = centred && !constant ? sum_g / n : 0.0, slope = constant ? 0.0 : sum_gx / n;
      for (int64_t i = 0; i < length; ++i) {
        const double g = static_cast<double>(dyr[i]) * (weight ? static_cast<double>(weight[WeightIndex(r, i)]) : 1.0);
        if (constant) {  // inference: input takes no part (a NaN input's xhat * 0 was NaN), as in aten's
          dxr[i] = static_cast<T>(rstd * g);
          continue;
        }
        const double xhat = (static_cast<double>(xr[i]) - mean) * rstd;
        dxr[i] = static_cast<T>(rstd * (g - shift - xhat * slope));
      }
    };
    auto run = [&](int64_t task) {
      double* dw = partial.empty() ? nullptr : partial.data() + task * 2 * weights;
      double* db = dw ? dw + weights : nullptr;
      for (int64_t r = rows * task / tasks; r < rows * (task + 1) / tasks; ++r) row(r, dw, db);
    };
    if (tasks <= 1) run(0); else ParallelFor(tasks, run);

    if (dx) {
      if (const T* added = Present(tensor(kGradSum)) ? static_cast<const T*>(ContiguousAs(Rows(kGradSum), type, 7))
                                                      : nullptr) {
        for (int64_t i = 0; i < numel; ++i) dx[i] += added[i];  // add_layer_norm_grad's dsum
      }
      if (Present(tensor(kGradInput2))) {  // deep norm: the sum's gradient, then input's (alpha times it)
        ScatterFrom(dx, type, Rows(kGradInput2));
        const T scale = static_cast<T>(alpha);
        for (int64_t i = 0; i < numel; ++i) dx[i] *= scale;
      }
      if (op_ == F::Op::kRmsNormGradQuant) {
        Quantise(dx, numel);
      } else {
        ScatterFrom(dx, type, Rows(kGradInput));
      }
    }
    for (int which = 0; which < 2; ++which) {
      const int slot = which == 0 ? kGradWeight : kGradBias;
      if (!Present(tensor(slot))) continue;
      T* values = static_cast<T*>(Scratch(6, static_cast<size_t>(std::max<int64_t>(weights, 1)) * sizeof(T)));
      for (int64_t w = 0; w < weights; ++w) {
        double total = 0;
        for (int64_t task = 0; task < tasks; ++task) total += partial[static_cast<size_t>((task * 2 + which) * weights + w)];
        values[w] = static_cast<T>(total);
      }
      ScatterFrom(values, type, tensor(slot));
    }
  }

  // rms_norm_grad_quant: the input gradient quantised into grad_input (INT8).
  template <typename T>
  void Quantise(const T* dx, int64_t numel) {
    float scale = 0, offset = 0;
    GatherAs(tensor(kQuantScale), ComputeType::kFloat32, &scale);
    if (Present(tensor(kQuantOffset))) GatherAs(tensor(kQuantOffset), ComputeType::kFloat32, &offset);
    int64_t* q = static_cast<int64_t*>(Scratch(6, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(int64_t)));
    for (int64_t i = 0; i < numel; ++i) {
      const float v = static_cast<float>(dx[i]);
      q[i] = Saturate(std::nearbyint((divide ? v / scale : v * scale) + offset), -128, 127);
    }
    ScatterFrom(q, ComputeType::kInt64, Rows(kGradInput));
  }

  // group_norm_swish_backward: the gradient reaching the group norm's output y = xhat * gamma + beta
  // through y * sigmoid(s * y): dy * (sig + s * y * sig * (1 - sig)), sig = sigmoid(s * y).
  template <typename T>
  const T* SwishGradient(const T* x, const T* dy, const T* means, const T* rstds, const T* weight) {
    const int64_t numel = rows * length;
    const T* beta = Present(tensor(kBias)) ? static_cast<const T*>(ContiguousAs(tensor(kBias), type, 6)) : nullptr;
    T* adjusted = static_cast<T*>(Scratch(7, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(T)));
    const double s = swish_scale;
    for (int64_t r = 0; r < rows; ++r) {
      const double mean = static_cast<double>(means[r]), rstd = static_cast<double>(rstds[r]);
      for (int64_t i = 0; i < length; ++i) {
        const int64_t w = WeightIndex(r, i), at = r * length + i;
        const double y = (static_cast<double>(x[at]) - mean) * rstd * (weight ? static_cast<double>(weight[w]) : 1.0) +
                         (beta ? static_cast<double>(beta[w]) : 0.0);
        const double sig = 1.0 / (1.0 + std::exp(-s * y));
        adjusted[at] = static_cast<T>(static_cast<double>(dy[at]) * (sig + s * y * sig * (1.0 - sig)));
      }
    }
    return adjusted;
  }

  aclnnStatus Compute() override {
    if (type == ComputeType::kFloat64) {
      Run<double>();
    } else {
      Run<float>();
    }
    return ACLNN_SUCCESS;
  }

  int op_;
};

// ACLNN_SUCCESS when `t` holds `count` elements, else the rejection naming `what`.
aclnnStatus CheckCount(const Call& call, const FamilySpec& family, int role, const TensorDesc* t, int64_t count,
                       const std::string& what) {
  if (t->numel() == count) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role,
                       "shape " + DimsText(t->view) + " does not hold " + std::to_string(count) + " elements (" + what +
                           ")");
}

// rms_norm_grad_quant's quantisation: quantMode "static" (the page's one), an INT8 grad_input
// (HIFLOAT8 declined), one scale and at most one offset.
aclnnStatus PlanQuantised(const Call& call, const FamilySpec& family, NormGradWork* made, const TensorDesc* dx,
                          ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const int mode_index = family.roles[F::Role::kQuantMode];
  const char* mode = mode_index >= 0 ? CallString(call, mode_index) : nullptr;
  if (!mode || std::string(mode) != "static") {
    return reject(F::Role::kQuantMode, "\"" + std::string(mode ? mode : "") + "\" is not static, the one mode the page supports");
  }
  if (dx && dx->dtype != ACL_INT8) return Decline(call, work, std::string("for dxOut of dtype ") + DTypeName(dx->dtype) + " (only INT8 is simulated)");
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kQuantScale);
  const TensorDesc* offset = RoleTensor(call, family, F::Role::kQuantOffset);
  if (!scale) return Decline(call, work, "without scalesX");
  if (scale->numel() != 1) return reject(F::Role::kQuantScale, "shape " + DimsText(scale->view) + " is not [1]");
  if (offset && offset->numel() != 1) return reject(F::Role::kQuantOffset, "shape " + DimsText(offset->view) + " is not [1]");
  made->tensor(kQuantScale).Set(RoleName(call, family, F::Role::kQuantScale), *scale);
  if (offset) made->tensor(kQuantOffset).Set(RoleName(call, family, F::Role::kQuantOffset), *offset);
  made->divide = RoleBool(call, family, F::Role::kDivMode, false);
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanNormGrad(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* input = RoleTensor(call, family, F::Role::kInput);
  const TensorDesc* dy = RoleTensor(call, family, F::Role::kGradOut);
  if (!input || !dy) return Decline(call, work, "when its input or gradient is absent");
  const int64_t rank = static_cast<int64_t>(input->view.size());
  if (rank > 16) return Decline(call, work, "for more than 16 dimensions");
  ComputeType type;
  if (!FamilyComputeType(input->dtype, false, &type) || type == ComputeType::kInt64 ||
      !(input->dtype == ACL_FLOAT || input->dtype == ACL_FLOAT16 || input->dtype == ACL_BF16 ||
        input->dtype == ACL_DOUBLE)) {
    return DeclineDtype(call, work, input->dtype);
  }
  if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOut, dy, input->view, "the input's shape")) return s;

  // Which outputs the caller wants: outputMask (three booleans), else all.
  bool wanted[3] = {true, true, true};
  // group_norm_swish_backward's two switches (dgammaIsRequire, dbetaIsRequire).
  wanted[1] = RoleBool(call, family, F::Role::kWeightRequired, true);
  wanted[2] = RoleBool(call, family, F::Role::kBiasRequired, true);
  if (const Call::Param* mask = RoleParam(call, family, F::Role::kOutputMask)) {
    if (mask->bool_values.size() != 3) {
      return RejectInvalid(call, family, F::Role::kOutputMask,
                           "must hold 3 values, got " + std::to_string(mask->bool_values.size()));
    }
    for (int k = 0; k < 3; ++k) wanted[k] = mask->bool_values[static_cast<size_t>(k)];
  }
  const int out_roles[3] = {F::Role::kGradInput, F::Role::kGradWeight, F::Role::kGradBias};
  const TensorDesc* outs[3];
  for (int k = 0; k < 3; ++k) {
    outs[k] = wanted[k] ? RoleTensor(call, family, out_roles[k]) : nullptr;
    if (wanted[k] && !outs[k] && family.has(out_roles[k])) {
      return RejectParam(call, family, out_roles[k], ACLNN_ERR_PARAM_NULLPTR, "is null where outputMask asks for it");
    }
  }
  const TensorDesc* mean = RoleTensor(call, family, F::Role::kMean);
  const TensorDesc* rstd = RoleTensor(call, family, F::Role::kRstd);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);

  NormGradWork* made = new NormGradWork(call.spec.name, op);
  std::unique_ptr<NormGradWork> owned(made);
  made->type = type;
  const TensorDesc* statistics[2] = {mean, rstd};
  int statistic_roles[2] = {F::Role::kMean, F::Role::kRstd};
  switch (op) {
    case F::Op::kLayerNormBackward: case F::Op::kRmsNormGrad: case F::Op::kAddLayerNormGrad:
    case F::Op::kDeepNormGrad: case F::Op::kRmsNormGradQuant: {
      // Layer norm's trailing dimensions are normalizedShape's; the others', gamma's shape.
      if (op != F::Op::kLayerNormBackward && !weight) return Decline(call, work, "without gamma");
      Dims normalized;
      if (aclnnStatus s = NormalizedRows(call, family, F::Role::kInput,
                                         op == F::Op::kLayerNormBackward ? F::Role::kNormalizedShape : F::Role::kWeight,
                                         *input, &normalized, &made->rows, &made->length)) {
        return s;
      }
      made->weights = made->length;
      if (weight && op == F::Op::kLayerNormBackward) {
        if (aclnnStatus s = CheckShape(call, family, F::Role::kWeight, weight, normalized, "normalizedShape")) return s;
      }
      if (op == F::Op::kRmsNormGrad || op == F::Op::kRmsNormGradQuant) statistics[0] = nullptr;  // rms subtracts no mean
      if (op == F::Op::kRmsNormGradQuant) {
        if (aclnnStatus s = PlanQuantised(call, family, made, outs[0], work)) return s;
        if (*work) return ACLNN_SUCCESS;  // declined
      }
      made->alpha = RoleNumber(call, family, F::Role::kAlpha, -1, 1.0);
      for (int role : {static_cast<int>(F::Role::kInput2), static_cast<int>(F::Role::kGradSum),
                       static_cast<int>(F::Role::kGradInput2)}) {
        const TensorDesc* t = RoleTensor(call, family, role);
        if (t) {
          if (aclnnStatus s = CheckShape(call, family, role, t, input->view, "the input's shape")) return s;
        }
      }
      if (family.has(F::Role::kInput2) && !RoleTensor(call, family, F::Role::kInput2)) {
        return RejectParam(call, family, F::Role::kInput2, ACLNN_ERR_PARAM_NULLPTR, "is required");
      }
      break;
    }
    case F::Op::kGroupNormSwishBackward: {
      const int format = family.roles[F::Role::kDataFormat];
      const std::string data_format = format >= 0 ? CallString(call, format) : "NCHW";
      if (data_format != "NCHW" && !data_format.empty()) {
        return RejectInvalid(call, family, F::Role::kDataFormat,
                             "\"" + data_format + "\" is not NCHW, the one data format the simulator models");
      }
      made->swish_scale = RoleNumber(call, family, F::Role::kSwishScale, -1, 1.0);
      if (const TensorDesc* beta = RoleTensor(call, family, F::Role::kBias)) {
        made->tensor(kBias).Set(RoleName(call, family, F::Role::kBias), *beta);
      }
      [[fallthrough]];
    }
    case F::Op::kGroupNormBackward: {
      // N, C and HxW restate the input's shape; the page's own checks hold them to it.
      GroupedRows split;
      if (aclnnStatus s = GroupRows(call, family, F::Role::kInput, F::Role::kGroup, *input, &split)) return s;
      const int64_t channels = split.channels;
      made->groups = split.groups;
      made->channels = channels;
      made->hxw = split.hxw;
      made->rows = split.rows;
      made->length = split.length;
      made->weights = channels;
      if (weight) {
        if (aclnnStatus s = CheckCount(call, family, F::Role::kWeight, weight, channels, "one per channel")) return s;
      }
      if (const TensorDesc* beta = op == F::Op::kGroupNormSwishBackward ? RoleTensor(call, family, F::Role::kBias) : nullptr) {
        if (aclnnStatus s = CheckCount(call, family, F::Role::kBias, beta, channels, "one per channel")) return s;
      }
      break;
    }
    case F::Op::kBatchNormBackward: {
      if (rank < 2) {
        return RejectInvalid(call, family, F::Role::kInput,
                             "must have at least 2 dimensions, got shape " + DimsText(input->view));
      }
      const int64_t channels = input->view[ChannelAxis(*input, made->order)];  // as the forward's
      made->training = RoleBool(call, family, F::Role::kTraining, true);
      made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-5);
      made->permuted = true;
      made->rows = channels;
      made->length = channels ? input->numel() / channels : 0;
      made->weights = channels;
      if (weight) {
        if (aclnnStatus s = CheckCount(call, family, F::Role::kWeight, weight, channels, "one per channel")) return s;
      }
      // Training differentiates at the batch's saved statistics; inference at the running ones.
      if (!made->training) {
        statistics[0] = RoleTensor(call, family, F::Role::kRunningMean);
        statistics[1] = RoleTensor(call, family, F::Role::kRunningVar);
        statistic_roles[0] = F::Role::kRunningMean;
        statistic_roles[1] = F::Role::kRunningVar;
      }
      for (int k = 0; k < 2; ++k) {
        if (!statistics[k]) {
          return RejectParam(call, family, statistic_roles[k], ACLNN_ERR_PARAM_NULLPTR,
                             made->training ? "is required in training (training = true)"
                                            : "is required in inference (training = false)");
        }
      }
      break;
    }
    default:
      return Decline(call, work, "for this op");
  }
  // The statistics: one value per row, in any shape that holds that many (op-plugin reshapes them);
  // their elements are read in row-major order whatever that shape.
  for (int k = 0; k < 2; ++k) {
    if (!statistics[k]) {
      if (k == 0 && (op == F::Op::kRmsNormGrad || op == F::Op::kRmsNormGradQuant)) continue;
      return RejectParam(call, family, statistic_roles[k], ACLNN_ERR_PARAM_NULLPTR, "is required");
    }
    if (aclnnStatus s = CheckCount(call, family, statistic_roles[k], statistics[k], made->rows,
                                   op == F::Op::kBatchNormBackward ? "one per channel" : "one per normalised row")) {
      return s;
    }
  }
  if (outs[0]) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradInput, outs[0], input->view, "the input's shape")) return s;
  }
  for (int k = 1; k < 3; ++k) {
    if (!outs[k]) continue;
    if (aclnnStatus s = CheckCount(call, family, out_roles[k], outs[k], made->weights, "one per weight element")) {
      return s;
    }
  }

  made->tensor(kInput).Set(RoleName(call, family, F::Role::kInput), *input);
  made->tensor(kGradOut).Set(RoleName(call, family, F::Role::kGradOut), *dy);
  if (statistics[0]) made->tensor(kMean).Set(RoleName(call, family, statistic_roles[0]), *statistics[0]);
  made->tensor(kRstd).Set(RoleName(call, family, statistic_roles[1]), *statistics[1]);
  if (weight) made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  for (int k = 0; k < 3; ++k) {
    if (outs[k]) made->tensor(kGradInput + k).Set(RoleName(call, family, out_roles[k]), *outs[k]);
  }
  const int fused[3][2] = {{kInput2, F::Role::kInput2}, {kGradSum, F::Role::kGradSum}, {kGradInput2, F::Role::kGradInput2}};
  for (const auto& [slot, role] : fused) {
    if (const TensorDesc* t = RoleTensor(call, family, role)) made->tensor(slot).Set(RoleName(call, family, role), *t);
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
