// The ctc family: the connectionist temporal classification loss, aclnnCtcLoss and
// aclnnCtcLossBackward (F.ctc_loss and nn.CTCLoss reach them through op-plugin's _ctc_loss and
// _ctc_loss_backward), as aten's CPU kernels compute them.
//   ctc_loss           logProbs [T, N, C] ([T, C]: N = 1), targets [N, S] (row b's first
//                      targetLengths[b] labels) or the labels of every batch one after the other;
//                      over the extended target l' (blank, l1, blank, ..., lL, blank) the forward
//                      variables log_alpha[b][t][s] (logsumexp of the three predecessors plus
//                      logProbs[t][b][l'_s]) for t < inputLengths[b], s <= 2L; the loss is
//                      -logsumexp(log_alpha[T_b - 1][2L], log_alpha[T_b - 1][2L - 1]). logAlphaOut
//                      [N, T, W], W >= 2 * max(targetLengths) + 1 (Atlas A2/A3 align it up to a
//                      multiple of 8): the positions the recursion does not reach hold -inf.
//                      With zeroInfinity an infinite loss is 0 (the page's formula).
//   ctc_loss_backward  gradOut [N], the forward's negLogLikelihood and logAlpha: the backward
//                      variables log_beta as aten's, then out[t][b][c] = (exp(lp) -
//                      exp(logsumexp over s with l'_s = c of log_alpha + log_beta, + nll - lp)) *
//                      gradOut[b] for t < inputLengths[b], 0 after; with zeroInfinity 0 for a batch
//                      whose loss is infinite (negLogLikelihood inf, or the loss logAlpha gives: a
//                      forward with zeroInfinity passes 0 for it).
// A label outside [0, C), a length outside its bounds or lengths of another count than N fail by
// name. Computed in double; batches spread over the threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = CtcFamily;

enum Slot { kLogProbs, kTargets, kGradOut, kNll, kLogAlpha, kOut, kOut2, kSlots };

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogSumExp(double a, double b, double c = kNegInf) {
  double top = std::max(a, std::max(b, c));
  if (top == kNegInf) top = 0;
  return std::log(std::exp(a - top) + std::exp(b - top) + std::exp(c - top)) + top;
}

class CtcWork final : public FamilyWork {
 public:
  explicit CtcWork(const char* api) : FamilyWork(api, kSlots) {}

  bool backward = false, zero_infinity = false, targets_2d = false;
  int64_t steps = 0, batch = 0, classes = 0, blank = 0, width = 0, target_stride = 0;
  std::vector<int64_t> input_lengths, target_lengths, target_offsets;

 private:
  const double* Doubles(int slot) const {
    return tensor(slot).numel() ? static_cast<const double*>(ContiguousAs(tensor(slot), ComputeType::kFloat64, slot))
                                : nullptr;
  }

  // Label s of batch b's extended target.
  int64_t Prime(const int64_t* targets, int64_t b, int64_t s) const {
    return s % 2 == 0 ? blank : targets[target_offsets[static_cast<size_t>(b)] + s / 2];
  }

  aclnnStatus Compute() override {
    const int64_t count = tensor(kTargets).numel();
    std::vector<int64_t> targets(static_cast<size_t>(count));
    if (count) {
      const double* values = Doubles(kTargets);
      for (int64_t k = 0; k < count; ++k) targets[static_cast<size_t>(k)] = static_cast<int64_t>(values[k]);
    }
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t k = 0; k < target_lengths[static_cast<size_t>(b)]; ++k) {
        const int64_t label = targets[static_cast<size_t>(target_offsets[static_cast<size_t>(b)] + k)];
        if (label < 0 || label >= classes) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kTargets).name + ": label " + std::to_string(k) +
                                           " of batch " + std::to_string(b) + " is " + std::to_string(label) +
                                           ", outside [0, " + std::to_string(classes) + ")");
        }
      }
    }
    const double* lp = Doubles(kLogProbs);
    // logProbs[t][b][c]
    auto at = [&](int64_t t, int64_t b, int64_t c) { return lp[(t * batch + b) * classes + c]; };
    return backward ? Backward(targets.data(), at) : Forward(targets.data(), at);
  }

  template <class At>
  aclnnStatus Forward(const int64_t* targets, At at) {
    std::vector<double> alpha(static_cast<size_t>(batch * steps * width), kNegInf), nll(static_cast<size_t>(batch));
    ParallelFor(batch, [&](int64_t b) {
      double* la = alpha.data() + b * steps * width;
      const int64_t length = target_lengths[static_cast<size_t>(b)], input = input_lengths[static_cast<size_t>(b)];
      if (input == 0) {
        nll[static_cast<size_t>(b)] = length == 0 ? 0 : std::numeric_limits<double>::infinity();
        return;
      }
      la[0] = at(0, b, blank);
      if (length > 0) la[1] = at(0, b, Prime(targets, b, 1));
      for (int64_t t = 1; t < input; ++t) {
        for (int64_t s = 0; s <= 2 * length; ++s) {
          const int64_t label = Prime(targets, b, s);
          const double* prev = la + (t - 1) * width;
          const double a2 = s > 0 ? prev[s - 1] : kNegInf;
          const double a3 = s > 1 && Prime(targets, b, s - 2) != label ? prev[s - 2] : kNegInf;
          la[t * width + s] = LogSumExp(prev[s], a2, a3) + at(t, b, label);
        }
      }
      const double* last = la + (input - 1) * width;
      double loss = -LogSumExp(last[2 * length], length > 0 ? last[2 * length - 1] : kNegInf);
      if (zero_infinity && std::isinf(loss)) loss = 0;
      nll[static_cast<size_t>(b)] = loss;
    });
    ScatterFrom(nll.data(), ComputeType::kFloat64, tensor(kOut));
    ScatterFrom(alpha.data(), ComputeType::kFloat64, tensor(kOut2));
    return ACLNN_SUCCESS;
  }

  template <class At>
  aclnnStatus Backward(const int64_t* targets, At at) {
    const double *grad_out = Doubles(kGradOut), *nll = Doubles(kNll), *alpha = Doubles(kLogAlpha);
    std::vector<double> out(static_cast<size_t>(steps * batch * classes), 0.0);
    ParallelFor(batch, [&](int64_t b) {
      const int64_t length = target_lengths[static_cast<size_t>(b)], input = input_lengths[static_cast<size_t>(b)];
      const double loss = nll[b];
      const double* la = alpha + b * steps * width;
      // An infinite loss is read from log_alpha too: the forward's zeroInfinity gives 0 for it, so
      // negLogLikelihood from a forward that zeroed it (op-plugin passes its output on) no longer says so.
      const double* final_step = input > 0 ? la + (input - 1) * width : nullptr;
      const bool infinite = loss == std::numeric_limits<double>::infinity() ||
                            (final_step && LogSumExp(final_step[2 * length], length > 0 ? final_step[2 * length - 1] : kNegInf) == kNegInf);
      if ((zero_infinity && infinite) || input == 0) return;
      const int64_t extended = 2 * length + 1;
      std::vector<double> beta(static_cast<size_t>(input * extended), kNegInf);
      // log(sum of alpha * beta) per step and class, -inf where no s carries the class.
      std::vector<double> sums(static_cast<size_t>(input * classes), kNegInf);
      auto add = [&](int64_t t, int64_t s) {
        double& sum = sums[static_cast<size_t>(t * classes + Prime(targets, b, s))];
        const double term = la[t * width + s] + beta[static_cast<size_t>(t * extended + s)];
        sum = sum == kNegInf ? term : LogSumExp(sum, term);
      };
      const int64_t last = input - 1;
      beta[static_cast<size_t>(last * extended + 2 * length)] = at(last, b, blank);
      add(last, 2 * length);
      if (length > 0) {
        beta[static_cast<size_t>(last * extended + 2 * length - 1)] = at(last, b, Prime(targets, b, 2 * length - 1));
        add(last, 2 * length - 1);
      }
      for (int64_t t = last - 1; t >= 0; --t) {
        const double* next = beta.data() + (t + 1) * extended;
        for (int64_t s = 2 * length; s >= 0; --s) {
          const int64_t label = Prime(targets, b, s);
          const double b2 = s < 2 * length ? next[s + 1] : kNegInf;
          const double b3 = s < 2 * length - 1 && Prime(targets, b, s + 2) != label ? next[s + 2] : kNegInf;
          beta[static_cast<size_t>(t * extended + s)] = LogSumExp(next[s], b2, b3) + at(t, b, label);
          add(t, s);
        }
      }
      for (int64_t t = 0; t < input; ++t) {
        for (int64_t c = 0; c < classes; ++c) {
          const double p = at(t, b, c);
          out[static_cast<size_t>((t * batch + b) * classes + c)] =
              (std::exp(p) - std::exp(sums[static_cast<size_t>(t * classes + c)] + loss - p)) * grad_out[b];
        }
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanCtc(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool backward = family.op == F::Op::kCtcLossBackward;
  const TensorDesc* log_probs = RoleTensor(call, family, F::Role::kLogProbs);
  const TensorDesc* targets = RoleTensor(call, family, F::Role::kTargets);
  const Call::Param* input_lengths = RoleParam(call, family, F::Role::kInputLengths);
  const Call::Param* target_lengths = RoleParam(call, family, F::Role::kTargetLengths);
  const TensorDesc* out = RoleTensor(call, family, backward ? F::Role::kOut : F::Role::kNegLogLikelihood);
  if (!log_probs || !targets || !input_lengths || !target_lengths || !out) {
    return Decline(call, work, "without its tensors and lengths");
  }
  ComputeType type;
  if (!FamilyComputeType(log_probs->dtype, false, &type)) {
    return DeclineDtype(call, work, log_probs->dtype);
  }
  const ParamRejecter reject(call, family);
  const size_t rank = log_probs->view.size();
  if (rank != 3 && !(rank == 2 && !backward)) {
    return reject(F::Role::kLogProbs, "shape " + DimsText(log_probs->view) + (backward ? " is not [T, N, C]" : " is not [T, N, C] or [T, C]"));
  }
  std::unique_ptr<CtcWork> made(new CtcWork(call.spec.name));
  made->backward = backward;
  made->steps = log_probs->view[0];
  made->batch = rank == 3 ? log_probs->view[1] : 1;
  made->classes = log_probs->view.back();
  made->blank = RoleInt(call, family, F::Role::kBlank, 0);
  made->zero_infinity = RoleBool(call, family, F::Role::kZeroInfinity, false);
  if (made->blank < 0 || made->blank >= made->classes) {
    return RejectByRow(call, family, F::Role::kBlank, RowKind::kValue,
                       std::to_string(made->blank) + " is outside [0, C) = [0, " + std::to_string(made->classes) + ")");
  }
  const int64_t n = made->batch;
  if (static_cast<int64_t>(input_lengths->ints.size()) != n) {
    return reject(F::Role::kInputLengths, "has " + std::to_string(input_lengths->ints.size()) + " lengths, not N = " + std::to_string(n));
  }
  if (static_cast<int64_t>(target_lengths->ints.size()) != n) {
    return reject(F::Role::kTargetLengths, "has " + std::to_string(target_lengths->ints.size()) + " lengths, not N = " + std::to_string(n));
  }
  made->input_lengths = input_lengths->ints;
  made->target_lengths = target_lengths->ints;
  int64_t longest = 0, total = 0;
  for (int64_t b = 0; b < n; ++b) {
    const int64_t in = made->input_lengths[static_cast<size_t>(b)], tl = made->target_lengths[static_cast<size_t>(b)];
    if (in < 0 || in > made->steps) {
      return reject(F::Role::kInputLengths, "length " + std::to_string(in) + " of batch " + std::to_string(b) + " is outside [0, T]");
    }
    if (tl < 0) return reject(F::Role::kTargetLengths, "length " + std::to_string(tl) + " of batch " + std::to_string(b) + " is negative");
    longest = std::max(longest, tl);
    made->target_offsets.push_back(total);
    total += tl;
  }
  // targets [N, S]: row b from b * S; else the batches' labels one after the other.
  if (targets->view.size() == 2) {
    if (targets->view[0] != n || targets->view[1] < longest) {
      return reject(F::Role::kTargets, "shape " + DimsText(targets->view) + " is not [N, S] with S >= max(targetLengths) = " + std::to_string(longest));
    }
    for (int64_t b = 0; b < n; ++b) made->target_offsets[static_cast<size_t>(b)] = b * targets->view[1];
  } else if (targets->view.size() != 1 || targets->view[0] < total) {
    return reject(F::Role::kTargets, "shape " + DimsText(targets->view) + " is neither [N, S] nor [sum(targetLengths)] = [" + std::to_string(total) + "]");
  }
  made->tensor(kLogProbs).Set(RoleName(call, family, F::Role::kLogProbs), *log_probs);
  made->tensor(kTargets).Set(RoleName(call, family, F::Role::kTargets), *targets);
  const TensorDesc* alpha = RoleTensor(call, family, F::Role::kLogAlpha);
  if (!alpha) return Decline(call, work, "without logAlpha");
  if (alpha->view.size() != 3 || alpha->view[0] != n || alpha->view[1] != made->steps || alpha->view[2] < 2 * longest + 1) {
    return reject(F::Role::kLogAlpha, "shape " + DimsText(alpha->view) + " is not [N, T, W] with W >= 2 * max(targetLengths) + 1 = " +
                                          std::to_string(2 * longest + 1));
  }
  made->width = alpha->view[2];
  const Dims per_batch = rank == 3 ? Dims{n} : Dims{};
  if (backward) {
    const TensorDesc* grad_out = RoleTensor(call, family, F::Role::kGradOut);
    const TensorDesc* nll = RoleTensor(call, family, F::Role::kNegLogLikelihood);
    if (!grad_out || !nll) return Decline(call, work, "without gradOut or negLogLikelihood");
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOut, grad_out, per_batch, "[N]")) return s;
    if (aclnnStatus s = CheckShape(call, family, F::Role::kNegLogLikelihood, nll, per_batch, "[N]")) return s;
    made->tensor(kGradOut).Set(RoleName(call, family, F::Role::kGradOut), *grad_out);
    made->tensor(kNll).Set(RoleName(call, family, F::Role::kNegLogLikelihood), *nll);
    made->tensor(kLogAlpha).Set(RoleName(call, family, F::Role::kLogAlpha), *alpha);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, log_probs->view, "logProbs' shape", kOut)) return s;
  } else {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kNegLogLikelihood, *out, per_batch,
                                         rank == 3 ? "[N]" : "a 0-d loss", kOut)) {
      return s;
    }
    made->tensor(kOut2).Set(RoleName(call, family, F::Role::kLogAlpha), *alpha);
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
