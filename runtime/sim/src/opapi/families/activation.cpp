// The activation family: activations that split their input in two along a dimension, one half
// gating the other, or that weight it per channel, and their backwards.
//   glu             a * sigmoid(b), a the first half of self along dim, b the second (aten's glu)
//   glu_backward    grad_a = g * sigmoid(b), grad_b = g * (1 - sigmoid(b)) * sigmoid(b) * a
//                   (aten's glu_backward; the page's a_grad * (a - a * sigmoid(b)) is the same value)
//   swiglu          silu(a) * b
//   swiglu_grad     grad_a = g * b * sigmoid(a) * (1 + a * (1 - sigmoid(a))), grad_b = g * silu(a):
//                   the page's formula in the order autograd computes it (aten's silu_backward), so
//                   that overflows land where PyTorch's do
//   gelu_mul        gelu(a) * b along the last dimension, GELU's erf form ("none", the default) or
//                   its tanh approximation ("tanh"); another string is refused by name
//   geglu           out = gelu(X) * Y and out_gelu = gelu(X), X the left half with activate_left
//                   (else the right), Y the other; approximate 0 is GELU's erf form, 1 its tanh
//                   approximation, another value refused by name
//   geglu_backward  grad_X = g * Y * gelu'(X) (aten's gelu_backward derivative of the same form),
//                   grad_Y = g * gelu, gelu the forward's out_gelu as the page passes it
//   prelu           x above 0, weight[c] * x at or below (a NaN x gives NaN), c the index along
//                   dimension 1 (a weight of one element serves every element)
//   prelu_backward  grad_input = x > 0 ? g : weight[c] * g (g broadcast to x's shape), and
//                   grad_weight[c] = the sum of g * x where x <= 0, accumulated in double
//   clipped_swiglu  A.clamp(max=limit) * sigmoid(alpha * A.clamp(max=limit)) * (B.clamp(-limit, limit) + bias),
//                   A and B the halves along dim (interleaved: the even and odd elements of each row of
//                   self viewed as [pre, cut * after], dim's extent cut); with group_index only the first
//                   sum(group_index) rows of pre are computed, the others written 0 (the forward's page
//                   leaves them undefined, the gradient's page zeroes them); clamp_mode 0 only
//   swiglu_group    clipped_swiglu along the last dimension with alpha 1, bias 0, the clamps only when
//                   limit (clampLimit) is positive, times the token's weight (one per row of pre)
//   clipped_swiglu_grad  autograd's gradient of clipped_swiglu (the page's masks of the clamps),
//                   zero on the rows past the groups' sum
//   swiglu_group_grad  swiglu_group's gradient by aclnnSwigluGroupQuantGrad's page: g times the token's
//                   weight (when given) through the clamps, the masks strict (x0 < c, -c < x1 < c, as the
//                   page writes them); grad_weight[t] = sum over h of g[t, h] * y_origin[t, h] (the
//                   forward's output before the weight), in double; both zero on the rows past the
//                   groups' sum. A weight without y_origin is refused, as the page requires both
//   fatrelu_mul     (a < threshold ? 0 : a) * b along the last dimension, threshold (the weight role)
//                   one element
//   situ_glu        beta * tanh(gate / beta) * sigmoid(gate) * up', gate the left half with activate_left
//                   (else the right), up the other, up' = linear_beta * tanh(up / linear_beta) when
//                   linear_beta > 0, else up
//   situ_glu_grad   its gradient by the page's product rule
//   log_sigmoid     min(x, 0) - log1p(exp(-|x|)) (aten's form, no overflow); aclnnLogSigmoidForward's
//                   buffer output, which its page says is unused ("暂无用"), gets what aten's CPU
//                   log_sigmoid_forward leaves there, exp(-|x|), when it has self's shape, and is
//                   left alone otherwise (op-plugin passes a [0]-shaped one)
// Every op computes in float for FLOAT, FLOAT16 and BFLOAT16 (double for DOUBLE): inputs are
// gathered into contiguous buffers of the compute type, results scattered to the outputs' dtypes
// and strides. Phase 1 (here) checks what the pages state in prose: a dimension in range whose
// extent is even, the halves' shapes, a weight of one element or one per channel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/gelu.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = ActivationFamily;

enum Slot { kSelf, kGrad, kWeight, kOut, kGradWeight, kBuffer, kGelu, kOutGelu, kGroupIndex, kYOrigin, kSlots };

constexpr int64_t kGrain = 1 << 14;  // elements per parallel task at least

// fn(begin, end) over [0, n) in ranges spread over the threads.
template <typename Fn>
void Spread(int64_t n, Fn&& fn) {
  const int64_t tasks = n < 2 * kGrain ? 1 : std::min<int64_t>(n / kGrain, ParallelThreads() * 4);
  if (tasks <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) { fn(n * task / tasks, n * (task + 1) / tasks); });
}

template <typename T>
inline T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// d gelu(x) / dx, as aten's gelu_backward computes it for each form.
template <typename T>
inline T GeluGrad(T x, bool tanh) {
  if (tanh) {
    const T beta = T(0.79788456080286535588), kappa = T(0.044715);
    const T t = std::tanh(beta * (x + kappa * x * x * x));
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * beta * (T(1) + T(3) * kappa * x * x);
  }
  const T cdf = T(0.5) * (T(1) + Erf(x * T(0.70710678118654752440)));
  const T pdf = std::exp(T(-0.5) * x * x) * T(0.39894228040143267794);
  return cdf + x * pdf;
}

class ActivationWork final : public FamilyWork {
 public:
  ActivationWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  // The split ops: self viewed as [outer, 2 * half, inner] (half: half the split dimension).
  int64_t outer = 1, half = 0, inner = 1;
  // PReLU: self viewed as [outer, channels, inner]; one weight for all when weights == 1.
  int64_t channels = 1, weights = 1;
  bool tanh = false;
  bool left = true;     // geglu: the left half is activated
  bool buffer = false;  // log_sigmoid: a buffer of self's shape to write
  // clipped_swiglu: its numbers, and the halves as even and odd elements of each row.
  double alpha = 1.702, limit = 7, bias = 1;
  bool interleaved = false;
  bool has_groups = false;
  bool has_weight = false;  // swiglu_group and its gradient: a weight per token
  double beta = 1, linear_beta = 0;  // situ_glu

 private:
  aclnnStatus Compute() override {
    if (tensor(kSelf).numel() == 0) return ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      if (op_ == F::Op::kLogSigmoid) {
        LogSigmoid<T>();
      } else if (op_ == F::Op::kPrelu || op_ == F::Op::kPreluBackward) {
        Prelu<T>();
      } else if (op_ == F::Op::kClippedSwiglu || op_ == F::Op::kClippedSwigluGrad || op_ == F::Op::kSwigluGroup ||
                 op_ == F::Op::kSwigluGroupGrad) {
        ClippedSwiglu<T>();
      } else {
        Split<T>();
      }
    });
    return ACLNN_SUCCESS;
  }

  // The rows of pre (outer) the groups cover: all of them without group_index.
  int64_t ValidRows() const {
    if (!has_groups) return outer;
    const TensorRef& groups = tensor(kGroupIndex);
    const int64_t* counts = IndexValues(groups, 5);
    int64_t sum = 0;
    for (int64_t g = 0, n = groups.numel(); g < n; ++g) sum += counts[g];
    return std::max<int64_t>(0, std::min(sum, outer));
  }

  template <typename T>
  void ClippedSwiglu() {
    const bool backward = op_ == F::Op::kClippedSwigluGrad || op_ == F::Op::kSwigluGroupGrad;
    // aclnnSwigluGroupQuantGrad's page masks the clamps' gradients strictly (x0 < c, -c < x1 < c).
    const bool strict = op_ == F::Op::kSwigluGroupGrad;
    const T* x = static_cast<const T*>(ContiguousAs(tensor(kSelf), type, 0));
    const T* w = has_weight ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 3)) : nullptr;
    const T* g = backward ? static_cast<const T*>(ContiguousAs(tensor(kGrad), type, 1)) : nullptr;
    const TensorRef& out = tensor(kOut);
    T* y = static_cast<T*>(Scratch(2, static_cast<size_t>(out.numel()) * sizeof(T)));
    const int64_t row = half * inner;  // elements of one half of a row
    const int64_t valid = ValidRows() * row;
    const T a_ = static_cast<T>(alpha), l = static_cast<T>(limit), b_ = static_cast<T>(bias);
    Spread(outer * row, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t p = i / row, j = i % row;
        const int64_t ia = p * 2 * row + (interleaved ? 2 * j : j), ib = ia + (interleaved ? 1 : row);
        if (i >= valid) {
          if (backward) {
            y[ia] = y[ib] = T(0);
          } else {
            y[i] = T(0);
          }
          continue;
        }
        const T a = x[ia] > l ? l : x[ia];  // clamp(max=limit): a NaN stays NaN
        const T b = x[ib] > l ? l : x[ib] < -l ? -l : x[ib];
        const T s = T(1) / (T(1) + std::exp(-a_ * a));
        if (!backward) {
          y[i] = w ? a * s * (b + b_) * w[p] : a * s * (b + b_);
          continue;
        }
        const T gi = w ? g[i] * w[p] : g[i];
        const bool pass_a = strict ? x[ia] < l : x[ia] <= l;
        const bool pass_b = strict ? -l < x[ib] && x[ib] < l : -l <= x[ib] && x[ib] <= l;
        y[ia] = pass_a ? gi * (b + b_) * s * (T(1) + a_ * a * (T(1) - s)) : T(0);
        y[ib] = pass_b ? gi * a * s : T(0);
      }
    });
    ScatterFrom(y, type, out);
    if (backward && has_weight) WeightGradient(g, valid / row);
  }

  // swiglu_group_grad's grad_weight[t] = sum over h of g[t, h] * y_origin[t, h] (in double) for the rows the
  // groups cover, 0 past them.
  template <typename T>
  void WeightGradient(const T* g, int64_t rows) {
    const T* origin = static_cast<const T*>(ContiguousAs(tensor(kYOrigin), type, 4));
    std::vector<float> gw(static_cast<size_t>(outer), 0.0f);
    const int64_t row = half * inner;
    ParallelFor(rows, [&](int64_t t) {
      double sum = 0;
      for (int64_t j = 0; j < row; ++j) sum += static_cast<double>(g[t * row + j]) * static_cast<double>(origin[t * row + j]);
      gw[static_cast<size_t>(t)] = static_cast<float>(sum);
    });
    ScatterFrom(gw.data(), ComputeType::kFloat32, tensor(kGradWeight));
  }

  template <typename T>
  void Split() {
    const bool backward = op_ == F::Op::kGluBackward || op_ == F::Op::kSwigluGrad || op_ == F::Op::kGegluBackward ||
                          op_ == F::Op::kSituGluGrad;
    const T* x = static_cast<const T*>(ContiguousAs(tensor(kSelf), type, 0));
    const T* g = backward ? static_cast<const T*>(ContiguousAs(tensor(kGrad), type, 1)) : nullptr;
    const TensorRef& out = tensor(kOut);
    T* y = static_cast<T*>(Scratch(2, static_cast<size_t>(out.numel()) * sizeof(T)));
    const bool geglu = op_ == F::Op::kGeglu;
    T* y_gelu = geglu ? static_cast<T*>(Scratch(3, static_cast<size_t>(out.numel()) * sizeof(T))) : nullptr;
    const T* gelu = op_ == F::Op::kGegluBackward ? static_cast<const T*>(ContiguousAs(tensor(kGelu), type, 4)) : nullptr;
    const T threshold = op_ == F::Op::kFatreluMul ? *static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 5)) : T(0);
    const int64_t halves = outer * half * inner;  // elements of one half (and of the gradient)
    Spread(halves, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t k = i % inner, h = (i / inner) % half, p = i / (inner * half);
        const int64_t ia = (p * 2 * half + h) * inner + k, ib = ia + half * inner;
        const T a = x[ia], b = x[ib];
        switch (op_) {
          case F::Op::kGlu: y[i] = a * Sigmoid(b); break;
          case F::Op::kSwiglu: y[i] = a / (T(1) + std::exp(-a)) * b; break;
          case F::Op::kGeluMul: y[i] = Gelu(a, tanh) * b; break;
          case F::Op::kFatreluMul: y[i] = (a < threshold ? T(0) : a) * b; break;
          case F::Op::kGeglu: {
            const T activated = Gelu(left ? a : b, tanh);
            y_gelu[i] = activated;
            y[i] = activated * (left ? b : a);
            break;
          }
          case F::Op::kGegluBackward: {
            const int64_t ix = left ? ia : ib, iy = left ? ib : ia;
            y[ix] = g[i] * x[iy] * GeluGrad(x[ix], tanh);
            y[iy] = g[i] * gelu[i];
            break;
          }
          case F::Op::kSituGlu: case F::Op::kSituGluGrad: {
            const int64_t ig = left ? ia : ib, iu = left ? ib : ia;
            const T bt = static_cast<T>(beta), lb = static_cast<T>(linear_beta);
            const T t = std::tanh(x[ig] / bt), sg = Sigmoid(x[ig]), situ = bt * t * sg;
            const T tu = linear_beta > 0 ? std::tanh(x[iu] / lb) : T(0);
            const T up = linear_beta > 0 ? lb * tu : x[iu];
            if (op_ == F::Op::kSituGlu) {
              y[i] = situ * up;
              break;
            }
            y[ig] = g[i] * up * sg * ((T(1) - t * t) + bt * t * (T(1) - sg));
            y[iu] = linear_beta > 0 ? g[i] * situ * (T(1) - tu * tu) : g[i] * situ;
            break;
          }
          case F::Op::kGluBackward: {
            const T s = Sigmoid(b);
            y[ia] = s * g[i];
            y[ib] = (T(1) - s) * s * a * g[i];
            break;
          }
          default: {  // swiglu_grad, in the order autograd takes through silu(a) * b (aten's silu_backward)
            const T s = Sigmoid(a);
            y[ia] = g[i] * b * s * (T(1) + a * (T(1) - s));
            y[ib] = g[i] * (a / (T(1) + std::exp(-a)));
            break;
          }
        }
      }
    });
    ScatterFrom(y, type, out);
    if (geglu) ScatterFrom(y_gelu, type, tensor(kOutGelu));
  }

  template <typename T>
  void LogSigmoid() {
    const TensorRef& self = tensor(kSelf);
    const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
    T* y = static_cast<T*>(Scratch(2, static_cast<size_t>(self.numel()) * sizeof(T)));
    Spread(self.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = std::min(x[i], T(0)) - std::log1p(std::exp(-std::fabs(x[i])));
    });
    ScatterFrom(y, type, tensor(kOut));
    if (!buffer) return;
    Spread(self.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = std::exp(-std::fabs(x[i]));
    });
    ScatterFrom(y, type, tensor(kBuffer));
  }

  template <typename T>
  void Prelu() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel();
    const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
    const T* w = static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 1));
    const bool backward = op_ == F::Op::kPreluBackward;
    const T* g = backward ? static_cast<const T*>(ContiguousAs(tensor(kGrad), type, 3)) : nullptr;
    T* y = static_cast<T*>(Scratch(2, static_cast<size_t>(n) * sizeof(T)));
    auto weight_of = [&](int64_t i) { return weights == 1 ? w[0] : w[(i / inner) % channels]; };
    Spread(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (backward) {
          y[i] = x[i] > T(0) ? g[i] : weight_of(i) * g[i];
        } else {
          y[i] = x[i] > T(0) ? x[i] : weight_of(i) * x[i];
        }
      }
    });
    ScatterFrom(y, type, tensor(kOut));
    if (!backward) return;
    // Each weight's sum in index order, whatever the threads.
    T* gw = static_cast<T*>(Scratch(4, static_cast<size_t>(weights) * sizeof(T)));
    auto sum_channel = [&](int64_t c) {
      double sum = 0;
      for (int64_t p = 0; p < outer; ++p) {
        for (int64_t j = 0; j < (weights == 1 ? channels : 1); ++j) {
          const int64_t base = (p * channels + (weights == 1 ? j : c)) * inner;
          for (int64_t k = 0; k < inner; ++k) {
            const T v = x[base + k];
            if (!(v > T(0))) sum += static_cast<double>(g[base + k]) * static_cast<double>(v);
          }
        }
      }
      gw[c] = static_cast<T>(sum);
    };
    if (weights > 1 && n >= 2 * kGrain) {
      ParallelFor(weights, sum_channel);
    } else {
      for (int64_t c = 0; c < weights; ++c) sum_channel(c);
    }
    ScatterFrom(gw, type, tensor(kGradWeight));
  }

  int op_;
};

}  // namespace

aclnnStatus PlanActivation(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradOut);
  const TensorDesc* weight = RoleTensor(call, family, F::Role::kWeight);
  const TensorDesc* grad_weight = RoleTensor(call, family, F::Role::kGradWeight);
  const bool prelu = op == F::Op::kPrelu || op == F::Op::kPreluBackward;
  const bool backward = op == F::Op::kGluBackward || op == F::Op::kSwigluGrad || op == F::Op::kPreluBackward ||
                        op == F::Op::kGegluBackward || op == F::Op::kClippedSwigluGrad || op == F::Op::kSituGluGrad ||
                        op == F::Op::kSwigluGroupGrad;
  if (!self || !out || (backward && !grad) || ((prelu || op == F::Op::kFatreluMul) && !weight) ||
      (op == F::Op::kPreluBackward && !grad_weight)) {
    return Decline(call, work, "without its tensors");
  }
  if (self->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  ComputeType type;
  if (!FamilyComputeType(self->dtype, false, &type) || IsIntegralType(self->dtype)) {
    return DeclineDtype(call, work, self->dtype);
  }
  ActivationWork* made = new ActivationWork(call.spec.name, op);
  std::unique_ptr<ActivationWork> owned(made);
  made->type = type;
  const ParamRejecter reject(call, family);
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  const int64_t rank = static_cast<int64_t>(self->view.size());

  if (op == F::Op::kLogSigmoid) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, self->view, "self's shape", kOut)) return s;
    const TensorDesc* buffer = RoleTensor(call, family, F::Role::kBuffer);
    made->buffer = buffer && buffer->view == self->view && self->view.size() > 0;
    if (made->buffer) made->tensor(kBuffer).Set(RoleName(call, family, F::Role::kBuffer), *buffer);
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  if (prelu) {
    // [N, C, ...]: C channels of N * ... elements; [N] and 0-d: one channel.
    made->outer = rank >= 1 ? self->view[0] : 1;
    made->channels = rank >= 2 ? self->view[1] : 1;
    for (int64_t d = 2; d < rank; ++d) made->inner *= self->view[d];
    int64_t numel_w = 1;
    for (int64_t e : weight->view) numel_w *= e;
    if (numel_w != 1 && numel_w != made->channels) {
      return reject(F::Role::kWeight, "has " + std::to_string(numel_w) + " elements, neither 1 nor the " +
                                          std::to_string(made->channels) + " channels of self (its dimension 1)");
    }
    made->weights = numel_w;
    made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
    TensorRef& w = made->tensor(kWeight);
    w.shape = Dims{numel_w};  // read flat: a [1, C, 1, 1] weight holds the same C values
    w.strides = Dims{1};
    if (weight->view.size() > 0 && numel_w > 1) {
      for (size_t d = 0; d < weight->view.size(); ++d) {
        if (weight->view[d] == numel_w) w.strides = Dims{weight->strides[d]};
      }
    }
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, self->view, "self's shape", kOut)) return s;
    if (op == F::Op::kPreluBackward) {
      made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGradOut), *grad);
      if (!BroadcastRef(&made->tensor(kGrad), self->view)) {
        return reject(F::Role::kGradOut, "shape " + DimsText(grad->view) + " does not broadcast to self's " +
                                             DimsText(self->view));
      }
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kGradWeight, *grad_weight, weight->view,
                                           "weight's shape", kGradWeight)) {
        return s;
      }
    }
    *work = owned.release();
    return ACLNN_SUCCESS;
  }

  if (op == F::Op::kGeluMul) {
    const int index = family.roles[F::Role::kApproximate];
    const char* text = index >= 0 && call.spec.params[index].kind == ParamKind::kString
                           ? static_cast<const char*>(call.args[index].pointer)
                           : nullptr;
    const std::string mode = text ? text : "none";
    if (mode != "none" && mode != "tanh") {
      return reject(F::Role::kApproximate, "\"" + mode + "\" is not one of \"none\", \"tanh\"");
    }
    made->tanh = mode == "tanh";
  }
  const TensorDesc* gelu = RoleTensor(call, family, op == F::Op::kGeglu ? F::Role::kOutGelu : F::Role::kGelu);
  if (op == F::Op::kGeglu || op == F::Op::kGegluBackward) {
    if (!gelu) return Decline(call, work, "without its gelu tensor");
    const int64_t approximate = RoleInt(call, family, F::Role::kApproximate, 0);
    if (approximate != 0 && approximate != 1) {
      return reject(F::Role::kApproximate, std::to_string(approximate) + " is neither 0 (none) nor 1 (tanh)");
    }
    made->tanh = approximate == 1;
    made->left = RoleBool(call, family, F::Role::kActivateLeft, false);
  }
  const bool swiglu_group = op == F::Op::kSwigluGroup || op == F::Op::kSwigluGroupGrad;
  const bool grouped = op == F::Op::kClippedSwiglu || op == F::Op::kClippedSwigluGrad || swiglu_group;
  if (swiglu_group) {
    const double limit = RoleNumber(call, family, F::Role::kLimit, -1, 0.0);
    made->alpha = 1;
    made->bias = 0;
    made->limit = limit > 0 ? limit : INFINITY;  // "当clampLimit大于0时，先对A、B进行截断"
  } else if (grouped) {
    made->alpha = RoleNumber(call, family, F::Role::kAlpha, -1, 1.702);
    made->limit = RoleNumber(call, family, F::Role::kLimit, -1, 7.0);
    made->bias = RoleNumber(call, family, F::Role::kBias, -1, 1.0);
    made->interleaved = RoleBool(call, family, F::Role::kInterleaved, false);
    // aclnnClippedSwigluV2's clampMode 1 moves the clamp after the SiLU (without alpha and bias,
    // as its formula reads): not modelled. The page accepts it, so phase 1 does too (its own example
    // passes 1); phase 2 answers "not simulated".
    const int64_t clamp_mode = RoleInt(call, family, F::Role::kClampMode, 0);
    if (clamp_mode != 0) {
      return Decline(call, work, "with clampMode " + std::to_string(clamp_mode) +
                                     " (only 0, the clamps before the SiLU, is modelled)");
    }
  }
  if (grouped) {
    if (const TensorDesc* groups = RoleTensor(call, family, F::Role::kGroupIndex)) {
      if (groups->dtype != ACL_INT64 && groups->dtype != ACL_INT32) {
        return reject(F::Role::kGroupIndex, std::string("dtype ") + DTypeName(groups->dtype) + " is not an integer one");
      }
      made->tensor(kGroupIndex).Set(RoleName(call, family, F::Role::kGroupIndex), *groups);
      made->has_groups = true;
    }
  }
  if (op == F::Op::kFatreluMul) {
    int64_t numel_w = 1;
    for (int64_t e : weight->view) numel_w *= e;
    if (numel_w != 1) return reject(F::Role::kWeight, "has " + std::to_string(numel_w) + " elements, not one");
    made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);
  }
  if (op == F::Op::kSituGlu || op == F::Op::kSituGluGrad) {
    made->beta = RoleNumber(call, family, F::Role::kBeta, -1, 1.0);
    made->linear_beta = RoleNumber(call, family, F::Role::kLinearBeta, -1, 0.0);
    made->left = RoleBool(call, family, F::Role::kActivateLeft, true);
  }
  if (rank == 0) return reject(F::Role::kSelf, "must have at least one dimension");
  const bool last = op == F::Op::kGeluMul || op == F::Op::kFatreluMul || swiglu_group;
  const int64_t dim = last ? -1 : RoleInt(call, family, F::Role::kDim, -1);
  int64_t wrapped;
  if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, dim, rank, &wrapped)) return s;
  if (self->view[wrapped] % 2 != 0) {
    return reject(F::Role::kSelf, "dimension " + std::to_string(wrapped) + " of shape " + DimsText(self->view) +
                                      " is odd: it must split in two halves");
  }
  Dims halved = self->view;
  halved[wrapped] /= 2;
  made->half = halved[wrapped];
  for (int64_t d = 0; d < rank; ++d) {
    if (d < wrapped) made->outer *= self->view[d];
    if (d > wrapped) made->inner *= self->view[d];
  }
  if (swiglu_group && weight) {
    int64_t numel_w = 1;
    for (int64_t e : weight->view) numel_w *= e;
    if (numel_w != made->outer) {
      return reject(F::Role::kWeight, "has " + std::to_string(numel_w) + " elements, not one per token (" +
                                          std::to_string(made->outer) + ")");
    }
    made->tensor(kWeight).Set(RoleName(call, family, F::Role::kWeight), *weight);  // read in row-major order
    made->has_weight = true;
    if (op == F::Op::kSwigluGroupGrad) {
      // The page: "当提供weight时，必须同时提供yOrigin才能计算gradWeight", its shape gradY's; gradWeight weight's.
      const TensorDesc* origin = RoleTensor(call, family, F::Role::kYOrigin);
      if (!origin) return RejectParam(call, family, F::Role::kYOrigin, ACLNN_ERR_INNER_TILING_ERROR, "is null while weight is given");
      if (!grad_weight) return reject(F::Role::kGradWeight, "is null while weight is given");
      if (aclnnStatus s = CheckShape(call, family, F::Role::kYOrigin, origin, halved, "gradY's shape")) return s;
      made->tensor(kYOrigin).Set(RoleName(call, family, F::Role::kYOrigin), *origin);
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kGradWeight, *grad_weight, weight->view, "weight's shape",
                                           kGradWeight)) {
        return s;
      }
    }
  }
  if (op == F::Op::kGeglu) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOutGelu, *gelu, halved, "self's halved shape", kOutGelu)) {
      return s;
    }
  } else if (op == F::Op::kGegluBackward) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGelu, gelu, halved, "self's halved shape")) return s;
    made->tensor(kGelu).Set(RoleName(call, family, F::Role::kGelu), *gelu);
  }
  if (backward) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOut, grad, halved, "self's halved shape")) return s;
    made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGradOut), *grad);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, self->view, "self's shape", kOut)) return s;
  } else {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, halved, "self's halved shape", kOut)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
