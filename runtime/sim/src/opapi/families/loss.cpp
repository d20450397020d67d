// The loss family: pointwise losses and their backwards, the negative log likelihood and its
// backward, and the softmax/log_softmax backwards.
//
// Pointwise losses read self and target (and BCE's weight and posWeight) broadcast to one shape,
// as contiguous buffers of the compute type (float for FLOAT, FLOAT16 and BFLOAT16, as the NPU
// computes them; double for DOUBLE), and write each element's loss (reduction 0, none) or their
// sum (2), mean (1) or, for the KL divergence, sum over the batch's size (3, batchmean). Sums are
// accumulated in double over fixed chunks combined in order, so that a result does not depend on
// the number of threads. A backward multiplies grad_output (a single value when the forward
// reduced) by the loss's derivative, divided by the count for a mean.
//
// nll_loss picks -weight[t] * self[.., t, ..] along the class dimension (1; 0 for a 1-D self)
// for each target t that is not ignore_index, and reports the sum of the weights it picked
// (totalWeight, the mean's divisor); a target outside [0, C) faults in phase 2, as the device's
// kernel does. cross_entropy is log_softmax and that likelihood with aten's label smoothing (its
// logProbOut kept for the gradient, which reads it). The softmax backwards compute along `dim`, from the forward's output:
// softmax: out = output * (grad - sum(grad * output)); log_softmax: out = grad - exp(output) * sum(grad).
// softmax_cross_entropy_with_logits: per row of self [N, C] against soft labels (target [N, C]),
// loss = -sum(target * log_softmax(self)) and backprop = softmax(self) - target.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "aclnn_bindgen/matmul_shape.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = LossFamily;

enum Slot { kSelf, kTarget, kGrad, kWeight, kPosWeight, kTotalWeight, kOutput, kOut, kTotalOut, kZloss, kLse, kGradVar, kSlots };

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3 };

constexpr int64_t kChunk = 1 << 14;  // elements per partial sum
constexpr int64_t kGrain = 1 << 15;  // fewer elements stay on the calling thread

bool IsBackward(int op) {
  switch (op) {
    case F::Op::kMseLossBackward: case F::Op::kL1LossBackward: case F::Op::kSmoothL1LossBackward:
    case F::Op::kSoftMarginLossBackward: case F::Op::kBinaryCrossEntropyBackward:
    case F::Op::kBinaryCrossEntropyWithLogitsBackward: case F::Op::kKlDivBackward: case F::Op::kKlDivTargetBackward:
    case F::Op::kBinaryCrossEntropyWithLogitsTargetBackward: case F::Op::kGaussianNllLossBackward:
      return true;
    default:
      return false;
  }
}
bool IsNll(int op) { return op == F::Op::kNllLoss || op == F::Op::kNllLossBackward; }
bool IsSoftmax(int op) { return op == F::Op::kSoftmaxBackward || op == F::Op::kLogSoftmaxBackward; }
bool IsKlDiv(int op) {
  return op == F::Op::kKlDiv || op == F::Op::kKlDivBackward || op == F::Op::kKlDivTargetBackward;
}
bool IsCrossEntropy(int op) { return op == F::Op::kCrossEntropy || op == F::Op::kCrossEntropyGrad; }

// torch.sign's: NaN gives 0 (l1_loss's gradient at a NaN is 0 in PyTorch), a zero keeps its sign.
template <typename T>
T Sign(T d) { return d > 0 ? T(1) : d < 0 ? T(-1) : d == d ? d : T(0); }

// log(1 + exp(-x)) without overflow, as aten's binary_cross_entropy_with_logits writes it.
template <typename T>
T SoftplusOfNegative(T x) { return std::log1p(std::exp(-std::fabs(x))) + std::max(-x, T(0)); }

// One element's loss, as aten's CPU kernels write it (log terms of BCE clamped at -100).
struct Params {
  double beta = 1;
  bool log_target = false;
  double margin = 1;  // hinge_embedding_loss
  double eps = 1e-6;  // gaussian_nll_loss: the variance's floor
  bool full = false;  // gaussian_nll_loss: with the constant 0.5 * log(2 pi)
};

// In the compute type T (float for FLOAT, FLOAT16 and BFLOAT16), as aten's kernels compute in
// the tensor's: an intermediate that overflows there overflows here too.
template <typename T>
T Loss(int op, T x, T y, T w, T pw, const Params& p) {
  const T beta = static_cast<T>(p.beta);
  switch (op) {
    case F::Op::kMseLoss: return (x - y) * (x - y);
    case F::Op::kL1Loss: return std::fabs(x - y);
    case F::Op::kSmoothL1Loss: {
      const T d = std::fabs(x - y);
      return beta == 0 ? d : d < beta ? T(0.5) * d * d / beta : d - T(0.5) * beta;
    }
    case F::Op::kSoftMarginLoss: return std::log1p(std::exp(-y * x));
    case F::Op::kBinaryCrossEntropy:
      return -w * (y * std::max<T>(std::log(x), T(-100)) + (1 - y) * std::max<T>(std::log1p(-x), T(-100)));
    case F::Op::kBinaryCrossEntropyWithLogits: {
      const T log_weight = (pw - 1) * y + 1;
      return w * ((1 - y) * x + log_weight * SoftplusOfNegative(x));
    }
    // aten's: margin - x clamped at 0 where target is not 1, plus x where it is not -1.
    case F::Op::kHingeEmbeddingLoss: {
      const T gap = static_cast<T>(p.margin) - x;
      return (y != 1 ? (gap < 0 ? T(0) : gap) : T(0)) + (y != -1 ? x : T(0));
    }
    // w plays the variance (its slot), floored at eps as F.gaussian_nll_loss clamps it.
    case F::Op::kGaussianNllLoss: {
      const T v = std::max(w, static_cast<T>(p.eps));
      const T l = T(0.5) * (std::log(v) + (x - y) * (x - y) / v);
      return p.full ? l + T(0.91893853320467274178) : l;  // 0.5 * log(2 pi)
    }
    case F::Op::kKlDiv:
      if (p.log_target) return std::exp(y) * (y - x);
      return (y == 0 ? T(0) : y * std::log(y)) - y * x;  // xlogy(y, y): 0 where y is 0
    default: return 0;
  }
}

// The derivative of Loss with respect to x (the backward's factor of grad_output); of the KL
// divergence's with respect to y for its target backward.
template <typename T>
T Derivative(int op, T x, T y, T w, T pw, const Params& p) {
  const T beta = static_cast<T>(p.beta);
  switch (op) {
    case F::Op::kMseLossBackward: return 2 * (x - y);
    case F::Op::kL1LossBackward: return Sign(x - y);
    case F::Op::kSmoothL1LossBackward: {
      const T d = x - y;
      if (beta == 0) return Sign(d);
      return d <= -beta ? T(-1) : d >= beta ? T(1) : d / beta;
    }
    case F::Op::kSoftMarginLossBackward: {  // aten's form: z = exp(-y x), -y z / (1 + z)
      const T z = std::exp(-y * x);
      return -y * z / (1 + z);
    }
    case F::Op::kBinaryCrossEntropyBackward: return w * (x - y) / std::max<T>((1 - x) * x, T(1e-12));
    case F::Op::kBinaryCrossEntropyWithLogitsBackward: {
      const T t = pw * y;
      return w * ((t + 1 - y) * (1 / (1 + std::exp(-x))) - t);
    }
    // With respect to the input, w the variance: (x - y) / max(var, eps).
    case F::Op::kGaussianNllLossBackward: return (x - y) / std::max(w, static_cast<T>(p.eps));
    // With respect to the target: w * ((pw - 1) * log(1 + exp(-x)) - x).
    case F::Op::kBinaryCrossEntropyWithLogitsTargetBackward: return w * ((pw - 1) * SoftplusOfNegative(x) - x);
    case F::Op::kKlDivBackward: return p.log_target ? -std::exp(y) : -y;
    // With respect to the target (the page's formula: log(target) - self + 1, -inf at target 0).
    case F::Op::kKlDivTargetBackward: return p.log_target ? std::exp(y) * (y - x + 1) : std::log(y) - x + 1;
    default: return 0;
  }
}

// Sum of fn(i) for i in [0, n), in double: fixed chunks in parallel, combined in order.
template <typename Fn>
double ChunkedSum(int64_t n, Fn&& fn) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<size_t>(chunks));
  auto chunk = [&](int64_t c) {
    double s = 0;
    for (int64_t i = c * kChunk, end = std::min(n, (c + 1) * kChunk); i < end; ++i) s += fn(i);
    partial[static_cast<size_t>(c)] = s;
  };
  if (n < kGrain) {
    for (int64_t c = 0; c < chunks; ++c) chunk(c);
  } else {
    const int64_t tasks = std::min<int64_t>(chunks, ParallelThreads() * 4);
    ParallelFor(tasks, [&](int64_t task) {
      for (int64_t c = chunks * task / tasks; c < chunks * (task + 1) / tasks; ++c) chunk(c);
    });
  }
  double sum = 0;
  for (double s : partial) sum += s;
  return sum;
}

// fn(i) for i in [0, n), spread over the threads when n is large.
template <typename Fn>
void ForEach(int64_t n, Fn&& fn) {
  if (n < kGrain) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  const int64_t tasks = ParallelThreads() * 4;
  ParallelFor(tasks, [&](int64_t task) {
    for (int64_t i = n * task / tasks; i < n * (task + 1) / tasks; ++i) fn(i);
  });
}

class LossWork final : public FamilyWork {
 public:
  LossWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  Dims shape;  // the pointwise ops' broadcast shape; nll: self's shape
  int64_t reduction = kMean;
  int64_t dim = 0;  // softmax backwards; nll: the class dimension
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  Params params;

  bool has(int slot) const { return tensor(slot).dtype != ACL_DT_UNDEFINED; }

 private:
  aclnnStatus Compute() override {
    aclnnStatus status = ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      if (IsSoftmax(op_)) {
        SoftmaxBackward<T>();
      } else if (op_ == F::Op::kNllLoss) {
        status = Nll<T>();
      } else if (op_ == F::Op::kNllLossBackward) {
        status = NllBackward<T>();
      } else if (op_ == F::Op::kCrossEntropy) {
        status = CrossEntropy<T>();
      } else if (op_ == F::Op::kCrossEntropyGrad) {
        status = CrossEntropyGrad<T>();
      } else if (op_ == F::Op::kSoftmaxCrossEntropyWithLogits) {
        SoftLabels<T>();
      } else if (IsBackward(op_)) {
        PointwiseBackward<T>();
      } else {
        Pointwise<T>();
      }
    });
    return status;
  }

  // An input slot broadcast to `shape` as contiguous compute values (null when absent).
  template <typename T>
  const T* Input(int slot, int scratch) const {
    if (!has(slot)) return nullptr;
    return static_cast<const T*>(ContiguousAs(BroadcastTo(tensor(slot), shape), type, scratch));
  }

  template <typename T>
  void WriteOne(int slot, double value) const {
    const T v = static_cast<T>(value);
    ScatterFrom(&v, type, tensor(slot));
  }

  int64_t Count() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  double Divisor() const {
    if (reduction == kMean) return static_cast<double>(Count());
    if (reduction == kBatchMean) return shape.empty() ? 1.0 : static_cast<double>(shape[0]);
    return 1.0;
  }

  template <typename T>
  void Pointwise() {
    const int64_t n = Count();
    const T *x = Input<T>(kSelf, 0), *y = Input<T>(kTarget, 1), *w = Input<T>(kWeight, 2), *pw = Input<T>(kPosWeight, 3);
    auto at = [&](int64_t i) { return double(Loss<T>(op_, x[i], y[i], w ? w[i] : T(1), pw ? pw[i] : T(1), params)); };
    if (reduction == kNone) {
      T* out = static_cast<T*>(Scratch(4, static_cast<size_t>(n) * sizeof(T)));
      ForEach(n, [&](int64_t i) { out[i] = static_cast<T>(at(i)); });
      ScatterFrom(out, type, tensor(kOut));
      return;
    }
    WriteOne<T>(kOut, ChunkedSum(n, at) / Divisor());
  }

  template <typename T>
  void PointwiseBackward() {
    const int64_t n = Count();
    const T *g = Input<T>(kGrad, 0), *x = Input<T>(kSelf, 1), *y = Input<T>(kTarget, 2);
    const T *w = Input<T>(kWeight, 3), *pw = Input<T>(kPosWeight, 4);
    const T scale = static_cast<T>(1.0 / Divisor());
    T* out = static_cast<T*>(Scratch(5, static_cast<size_t>(n) * sizeof(T)));
    ForEach(n, [&](int64_t i) {
      out[i] = Derivative<T>(op_, x[i], y[i], w ? w[i] : T(1), pw ? pw[i] : T(1), params) * g[i] * scale;
    });
    ScatterFrom(out, type, tensor(kOut));
    if (op_ == F::Op::kGaussianNllLossBackward) VarGradient<T>(g, x, y, w, scale);
  }

  // The Gaussian NLL's gradient with respect to var, 0.5 * (1 / v - (x - y)^2 / v^2) * grad,
  // v = max(var, eps) (the clamp passes the gradient through, as F.gaussian_nll_loss's in-place
  // clamp under no_grad does), summed in double over the dimensions var was broadcast along.
  template <typename T>
  void VarGradient(const T* g, const T* x, const T* y, const T* w, T scale) {
    const TensorRef& var = tensor(kWeight);  // its view as phase 1 kept it (the missing last dimension added)
    int64_t count = 1;
    for (int64_t d : var.shape) count *= d;
    double* sums = static_cast<double*>(Scratch(6, static_cast<size_t>(count) * sizeof(double)));
    std::fill(sums, sums + count, 0.0);
    // var's element of each broadcast position: its row-major index with var's broadcast strides.
    Dims strides(shape.size(), 0);
    for (int64_t d = var.rank() - 1, stride = 1, k = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d, --k) {
      if (var.shape[d] != 1) strides[k] = stride;
      stride *= var.shape[d];
    }
    for (int64_t i = 0, n = Count(); i < n; ++i) {
      int64_t at = 0;
      for (int64_t k = static_cast<int64_t>(shape.size()) - 1, rest = i; k >= 0; --k) {
        at += (rest % shape[k]) * strides[k];
        rest /= shape[k];
      }
      const T v = std::max(w[i], static_cast<T>(params.eps)), d = x[i] - y[i];
      sums[at] += double(T(0.5) * (T(1) / v - d * d / (v * v)) * g[i] * scale);
    }
    T* out = static_cast<T*>(Scratch(7, static_cast<size_t>(count) * sizeof(T)));
    for (int64_t e = 0; e < count; ++e) out[e] = static_cast<T>(sums[e]);
    ScatterFrom(out, type, tensor(kGradVar));
  }

  // self viewed as [samples, C] (the class dimension last) and the targets, one per sample.
  struct Classes {
    TensorRef rows;
    int64_t samples = 1, classes = 1;
  };
  Classes ClassView(const TensorRef& t) const {
    Classes v;
    int64_t order[16];
    int64_t k = 0;
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (d != dim) order[k++] = d, v.samples *= t.shape[d];
    }
    order[k] = dim;
    v.rows = t.Permuted(order);
    v.classes = t.shape[dim];
    return v;
  }

  aclnnStatus Targets(int64_t classes, const int64_t** values) const {
    const TensorRef& target = tensor(kTarget);
    const int64_t* v = IndexValues(target, 6);
    for (int64_t i = 0, n = target.numel(); i < n; ++i) {
      if (v[i] != ignore_index && (v[i] < 0 || v[i] >= classes)) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + target.name + ": element " + std::to_string(i) +
                                         " is " + std::to_string(v[i]) + ", outside [0, " + std::to_string(classes) +
                                         ") and not ignoreIndex (the device's kernel faults on a class out of range)");
      }
    }
    *values = v;
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Nll() {
    const Classes view = ClassView(tensor(kSelf));
    const int64_t* t;
    if (aclnnStatus s = Targets(view.classes, &t)) return s;
    Dims classes_shape{view.classes};
    const T* w = has(kWeight) ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 0)) : nullptr;
    // One element of self at (sample, class): rows' strides, the sample's coordinates row-major.
    const TensorRef& rows = view.rows;
    const LoadFn load = Loader(type, rows.dtype);
    const int64_t size = static_cast<int64_t>(DTypeSize(rows.dtype));
    auto picked = [&](int64_t sample, double* weight) {
      if (t[sample] == ignore_index) return *weight = 0, 0.0;
      int64_t offset = t[sample] * rows.strides[rows.rank() - 1];
      for (int64_t d = rows.rank() - 1, rest = sample; d-- > 0;) {
        offset += (rest % rows.shape[d]) * rows.strides[d];
        rest /= rows.shape[d];
      }
      T value;
      load(rows.first + offset * size, 0, 1, &value);
      // The product in the compute type, as aten's nll_loss (scalar_t): a subnormal weight times
      // a value underflows there, and the mean divides what is left by the weights' sum.
      const T chosen = w ? w[t[sample]] : T(1);
      *weight = double(chosen);
      return -double(static_cast<T>(value * chosen));
    };
    if (reduction == kNone && tensor(kSelf).rank() >= 2) {
      T* out = static_cast<T*>(Scratch(4, static_cast<size_t>(view.samples) * sizeof(T)));
      ForEach(view.samples, [&](int64_t i) {
        double weight;
        out[i] = static_cast<T>(picked(i, &weight));
      });
      ScatterFrom(out, type, tensor(kOut));
      if (has(kTotalOut)) WriteOne<T>(kTotalOut, 0.0);  // aten leaves it 0 when nothing is reduced
      return ACLNN_SUCCESS;
    }
    const double total = ChunkedSum(view.samples, [&](int64_t i) {
      double weight;
      picked(i, &weight);
      return weight;
    });
    const double sum = ChunkedSum(view.samples, [&](int64_t i) {
      double weight;
      return picked(i, &weight);
    });
    WriteOne<T>(kOut, reduction == kMean ? sum / total : sum);
    if (has(kTotalOut)) WriteOne<T>(kTotalOut, total);
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus NllBackward() {
    const Classes view = ClassView(tensor(kOut));
    const int64_t* t;
    if (aclnnStatus s = Targets(view.classes, &t)) return s;
    const T* w = has(kWeight) ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 0)) : nullptr;
    const TensorRef& grad = tensor(kGrad);
    const T* g = static_cast<const T*>(ContiguousAs(grad, type, 1));
    const bool per_sample = grad.numel() == view.samples && reduction == kNone;
    double total = 1;
    if (reduction == kMean) {
      T value;
      GatherAs(tensor(kTotalWeight), type, &value);
      total = value;
    }
    const int64_t n = view.samples * view.classes;
    T* out = static_cast<T*>(Scratch(4, static_cast<size_t>(n) * sizeof(T)));
    ForEach(view.samples, [&](int64_t i) {
      T* row = out + i * view.classes;
      std::fill(row, row + view.classes, T(0));
      if (t[i] == ignore_index) return;
      const double weight = w ? double(w[t[i]]) : 1.0;
      row[t[i]] = static_cast<T>(-weight * double(g[per_sample ? i : 0]) / total);
    });
    ScatterFrom(out, type, view.rows);
    return ACLNN_SUCCESS;
  }

  // The cross entropy's per-sample weight of each target (0 where ignored) and the mean's
  // divisor: their sum (aten normalises the label smoothing's term by it too).
  template <typename T>
  double TargetWeights(const int64_t* t, const T* w, int64_t samples, double* picked) const {
    double total = 0;
    for (int64_t i = 0; i < samples; ++i) {
      picked[i] = t[i] == ignore_index ? 0.0 : w ? double(w[t[i]]) : 1.0;
      total += picked[i];
    }
    return total;
  }

  // loss_n = (1 - e) * -w[y] * lp[n, y] + e / C * -sum_c w[c] * lp[n, c] (aten's
  // cross_entropy with label smoothing e), lp = log_softmax(self); 0 where y is ignoreIndex.
  template <typename T>
  aclnnStatus CrossEntropy() {
    const TensorRef& self = tensor(kSelf);
    const int64_t samples = self.shape[0], classes = self.shape[1];
    const int64_t* t;
    if (aclnnStatus s = Targets(classes, &t)) return s;
    const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
    const T* w = has(kWeight) ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 1)) : nullptr;
    const TensorRef& log_prob = tensor(kOutput);
    const bool direct = log_prob.dtype == StorageOf(type) && log_prob.Contiguous();
    T* lp = direct ? reinterpret_cast<T*>(log_prob.first)
                   : static_cast<T*>(Scratch(2, static_cast<size_t>(samples * classes) * sizeof(T)));
    // loss: the negative log likelihood part of each sample, smoothed: its label smoothing part.
    double* loss = static_cast<double*>(Scratch(3, static_cast<size_t>(samples) * 4 * sizeof(double)));
    double* lse = loss + samples;
    double* picked = lse + samples;
    double* smoothed = picked + samples;
    const double e = label_smoothing;
    ForEach(samples, [&](int64_t n) {
      const T* row = x + n * classes;
      T* out = lp + n * classes;
      double m = -INFINITY, sum = 0;
      for (int64_t c = 0; c < classes; ++c) m = (row[c] > m || row[c] != row[c]) ? double(row[c]) : m;
      for (int64_t c = 0; c < classes; ++c) sum += std::exp(double(row[c]) - m);
      lse[n] = m + std::log(sum);
      // The log-probabilities in T, and each weight times one rounded to T, as aten's cross_entropy
      // computes log_softmax, then nll_loss and -(logp * weight).sum(1) in the tensor's type: a
      // subnormal weight's products underflow there.
      double smooth = 0;
      for (int64_t c = 0; c < classes; ++c) {
        out[c] = static_cast<T>(double(row[c]) - lse[n]);
        if (e != 0) smooth -= double(w ? static_cast<T>(out[c] * w[c]) : out[c]);
      }
      const bool ignored = t[n] == ignore_index;
      loss[n] = ignored ? 0.0 : -double(w ? static_cast<T>(out[t[n]] * w[t[n]]) : out[t[n]]);
      smoothed[n] = ignored ? 0.0 : smooth;
    });
    if (!direct) ScatterFrom(lp, type, log_prob);
    const double total = TargetWeights(t, w, samples, picked);
    // (1 - e) * nll + e / C * smoothing, each part reduced on its own as aten's cross_entropy does:
    // a mean over target weights that sum to 0 is 0 / 0 = NaN for the nll part, whatever the other.
    const double kept = 1 - e, spread = e / double(classes);
    if (reduction == kNone) {
      T* out = static_cast<T*>(Scratch(4, static_cast<size_t>(samples) * sizeof(T)));
      for (int64_t n = 0; n < samples; ++n) out[n] = static_cast<T>(kept * loss[n] + spread * smoothed[n]);
      ScatterFrom(out, type, tensor(kOut));
    } else {
      double nll = 0, smooth = 0;
      for (int64_t n = 0; n < samples; ++n) nll += loss[n], smooth += smoothed[n];
      if (reduction == kMean) nll /= total, smooth /= total;
      WriteOne<T>(kOut, kept * nll + spread * smooth);
    }
    // z-loss = lseSquareScaleForZloss * lse^2, whose scale phase 1 holds at 0; lseForZloss: lse.
    if (has(kZloss)) {
      T* zero = static_cast<T*>(Scratch(4, static_cast<size_t>(samples) * sizeof(T)));
      std::fill(zero, zero + tensor(kZloss).numel(), T(0));
      ScatterFrom(zero, type, tensor(kZloss));
    }
    if (has(kLse)) {
      T* out = static_cast<T*>(Scratch(4, static_cast<size_t>(samples) * sizeof(T)));
      for (int64_t n = 0; n < samples; ++n) out[n] = static_cast<T>(lse[n]);
      ScatterFrom(out, type, tensor(kLse));
    }
    return ACLNN_SUCCESS;
  }

  // d loss_n / d self[n, j] = (1 - e) * w[y] * (p_j - [j == y]) + e / C * (p_j * sum_c w[c] - w[j]),
  // p = exp(logProb), times gradLoss (divided by the summed target weights for a mean). Every step
  // in T, in that order, as the page's formula computes in the tensor's type: a p * sum(w) that
  // overflows in float is inf here too (the double intermediates gave -7.8e37 where float gives -inf).
  template <typename T>
  aclnnStatus CrossEntropyGrad() {
    const TensorRef& self = tensor(kSelf);
    const int64_t samples = self.shape[0], classes = self.shape[1];
    const int64_t* t;
    if (aclnnStatus s = Targets(classes, &t)) return s;
    const T* lp = static_cast<const T*>(ContiguousAs(self, type, 0));
    const T* w = has(kWeight) ? static_cast<const T*>(ContiguousAs(tensor(kWeight), type, 1)) : nullptr;
    const T* g = static_cast<const T*>(ContiguousAs(tensor(kGrad), type, 2));
    const bool per_sample = reduction == kNone;
    double* picked = static_cast<double*>(Scratch(3, static_cast<size_t>(samples) * sizeof(double)));
    TargetWeights(t, w, samples, picked);
    T weights = w ? T(0) : static_cast<T>(classes);
    for (int64_t c = 0; w && c < classes; ++c) weights += w[c];
    // The divisor summed in T, as the golden's weight[target].sum() in the tensor's type.
    T summed = 0;
    for (int64_t i = 0; i < samples; ++i) summed += static_cast<T>(picked[i]);
    const double e = label_smoothing;
    const T kept = static_cast<T>(1 - e), spread = static_cast<T>(e / double(classes));
    const TensorRef& result = tensor(kOut);
    const bool direct = result.dtype == StorageOf(type) && result.Contiguous();
    T* out = direct ? reinterpret_cast<T*>(result.first)
                    : static_cast<T*>(Scratch(4, static_cast<size_t>(samples * classes) * sizeof(T)));
    ForEach(samples, [&](int64_t n) {
      T* row = out + n * classes;
      if (t[n] == ignore_index) {
        std::fill(row, row + classes, T(0));
        return;
      }
      const T grad = g[per_sample ? n : 0], wy = w ? w[t[n]] : T(1);
      for (int64_t c = 0; c < classes; ++c) {
        const T p = std::exp(lp[n * classes + c]);
        T d = kept * wy * (p - T(c == t[n] ? 1 : 0));
        if (e != 0) d += spread * (p * weights - (w ? w[c] : T(1)));
        const T scaled = d * grad;
        row[c] = reduction == kMean ? scaled / summed : scaled;
      }
    });
    if (!direct) ScatterFrom(out, type, result);
    return ACLNN_SUCCESS;
  }

  // Each row's log-sum-exp in double, the loss summed in double, both rounded once to T.
  template <typename T>
  void SoftLabels() {
    const TensorRef& self = tensor(kSelf);
    const int64_t samples = self.shape[0], classes = self.shape[1];
    const T* x = static_cast<const T*>(ContiguousAs(self, type, 0));
    const T* y = static_cast<const T*>(ContiguousAs(tensor(kTarget), type, 1));
    T* loss = static_cast<T*>(Scratch(2, static_cast<size_t>(samples) * sizeof(T)));
    T* back = static_cast<T*>(Scratch(3, static_cast<size_t>(samples * classes) * sizeof(T)));
    ForEach(samples, [&](int64_t n) {
      const T* row = x + n * classes;
      const T* label = y + n * classes;
      double m = -INFINITY, sum = 0, l = 0;
      for (int64_t c = 0; c < classes; ++c) m = (row[c] > m || row[c] != row[c]) ? double(row[c]) : m;
      for (int64_t c = 0; c < classes; ++c) sum += std::exp(double(row[c]) - m);
      const double lse = m + std::log(sum);
      for (int64_t c = 0; c < classes; ++c) {
        l -= double(label[c]) * (double(row[c]) - lse);
        back[n * classes + c] = static_cast<T>(std::exp(double(row[c]) - lse) - double(label[c]));
      }
      loss[n] = static_cast<T>(l);
    });
    ScatterFrom(loss, type, tensor(kOut));
    ScatterFrom(back, type, tensor(kOutput));
  }

  // Lines of `length` elements `inner` apart in contiguous buffers.
  template <typename T>
  void SoftmaxBackward() {
    const TensorRef& self = tensor(kSelf);
    const int64_t numel = self.numel();
    if (numel == 0) return;
    int64_t outer = 1, length = 1, inner = 1;
    for (int64_t d = 0; d < self.rank(); ++d) (d < dim ? outer : d == dim ? length : inner) *= self.shape[d];
    const T* g = static_cast<const T*>(ContiguousAs(self, type, 0));
    const T* y = static_cast<const T*>(ContiguousAs(tensor(kOutput), type, 1));
    const bool direct = tensor(kOut).dtype == StorageOf(type) && tensor(kOut).Contiguous();
    T* out = direct ? reinterpret_cast<T*>(tensor(kOut).first)
                    : static_cast<T*>(Scratch(2, static_cast<size_t>(numel) * sizeof(T)));
    const bool log = op_ == F::Op::kLogSoftmaxBackward;
    auto line = [&](int64_t index) {
      const int64_t base = (index / inner) * length * inner + index % inner;
      const T* gi = g + base;
      const T* yi = y + base;
      T* oi = out + base;
      double s = 0;
      if (log) {
        for (int64_t l = 0; l < length; ++l) s += gi[l * inner];
        const T sum = static_cast<T>(s);
        for (int64_t l = 0; l < length; ++l) oi[l * inner] = gi[l * inner] - std::exp(yi[l * inner]) * sum;
      } else {
        for (int64_t l = 0; l < length; ++l) s += double(gi[l * inner]) * double(yi[l * inner]);
        const T sum = static_cast<T>(s);
        for (int64_t l = 0; l < length; ++l) oi[l * inner] = yi[l * inner] * (gi[l * inner] - sum);
      }
    };
    const int64_t lines = outer * inner;
    if (numel < kGrain || lines == 1) {
      for (int64_t i = 0; i < lines; ++i) line(i);
    } else {
      const int64_t tasks = std::min<int64_t>(lines, ParallelThreads() * 4);
      ParallelFor(tasks, [&](int64_t task) {
        for (int64_t i = lines * task / tasks; i < lines * (task + 1) / tasks; ++i) line(i);
      });
    }
    if (!direct) ScatterFrom(out, type, tensor(kOut));
  }

  int op_;
};

// --- phase 1 ------------------------------------------------------------------------------------

struct Planning {
  const Call& call;
  const FamilySpec& family;
  LossWork* work;

  // The role's tensor kept in `slot` (absent: left unused); false when the role is absent.
  bool Keep(int role, int slot) const {
    const TensorDesc* t = RoleTensor(call, family, role);
    if (!t) return false;
    work->tensor(slot).Set(RoleName(call, family, role), *t);
    return true;
  }

  aclnnStatus Reject(int role, const std::string& message) const {
    return RejectInvalid(call, family, role, message);
  }

  // `role`'s tensor broadcast into `shape` (which grows to the broadcast of both).
  aclnnStatus Join(int role, int slot, Dims* shape) const {
    if (!Keep(role, slot)) return ACLNN_SUCCESS;
    return Broadcast(role, slot, shape);
  }

  // The tensor kept in `slot` broadcast into `shape`.
  aclnnStatus Broadcast(int role, int slot, Dims* shape) const {
    Dims joined;
    if (!aclnn_bindgen::BroadcastShapes(*shape, work->tensor(slot).shape, &joined)) {
      return Reject(role, "shape " + DimsText(work->tensor(slot).shape) + " does not broadcast with " +
                              DimsText(*shape));
    }
    *shape = joined;
    return ACLNN_SUCCESS;
  }

  // A string reduction ("none", "mean", "sum"; a null pointer: "mean"), else null.
  aclnnStatus NamedReduction(bool* named) const {
    const int index = family.roles[F::Role::kReduction];
    *named = index >= 0 && call.spec.params[index].kind == ParamKind::kString;
    if (!*named) return ACLNN_SUCCESS;
    const char* given = static_cast<const char*>(call.args[index].pointer);
    const std::string name = given ? given : "mean";
    if (name != "mean" && name != "sum" && name != "none") {
      return Reject(F::Role::kReduction, "\"" + name + "\" is not one of \"mean\", \"sum\", \"none\"");
    }
    work->reduction = name == "mean" ? kMean : name == "sum" ? kSum : kNone;
    return ACLNN_SUCCESS;
  }

  aclnnStatus Reduction(int op) const {
    bool named;
    if (aclnnStatus s = NamedReduction(&named)) return s;
    if (named) return ACLNN_SUCCESS;
    const int64_t r = RoleInt(call, family, F::Role::kReduction, kMean);
    const int64_t last = IsKlDiv(op) ? kBatchMean : kSum;
    if (r < kNone || r > last) {
      return Reject(F::Role::kReduction, std::to_string(r) + " is not a reduction the simulator models (0 none, 1 mean, 2 sum" +
                                             std::string(last == kBatchMean ? ", 3 batchmean)" : ")"));
    }
    work->reduction = r;
    return ACLNN_SUCCESS;
  }
};

aclnnStatus PlanPointwise(const Planning& p, int op, const TensorDesc& out) {
  LossWork* made = p.work;
  if (aclnnStatus s = p.Reduction(op)) return s;
  made->params.beta = RoleNumber(p.call, p.family, F::Role::kBeta, -1, 1.0);
  made->params.log_target = RoleBool(p.call, p.family, F::Role::kLogTarget, false);
  made->params.margin = RoleNumber(p.call, p.family, F::Role::kMargin, -1, 1.0);
  made->params.eps = RoleNumber(p.call, p.family, F::Role::kEps, -1, 1e-6);
  made->params.full = RoleBool(p.call, p.family, F::Role::kFull, false);
  if (made->params.beta < 0) return p.Reject(F::Role::kBeta, "must not be negative");
  // LpLoss: "当前仅支持p=1", the L1 loss.
  if (RoleParam(p.call, p.family, F::Role::kP) && RoleInt(p.call, p.family, F::Role::kP, 1) != 1) {
    return p.Reject(F::Role::kP, std::to_string(RoleInt(p.call, p.family, F::Role::kP, 1)) +
                                     " is not a norm the simulator models (only p = 1, the page's)");
  }
  const bool gaussian = op == F::Op::kGaussianNllLoss || op == F::Op::kGaussianNllLossBackward;
  if (gaussian && !(made->params.eps > 0)) return p.Reject(F::Role::kEps, "must be positive");
  Dims shape = made->tensor(kSelf).shape;
  for (auto [role, slot] : {std::pair<int, int>{F::Role::kTarget, kTarget}, {F::Role::kWeight, kWeight},
                            {F::Role::kPosWeight, kPosWeight}, {F::Role::kGradOutput, kGrad}}) {
    if (aclnnStatus s = p.Join(role, slot, &shape)) return s;
  }
  if (!made->has(kTarget)) return p.Reject(F::Role::kTarget, "is required");
  // The variance of the Gaussian NLL takes the weight's slot (the loss reads it there). One of
  // input's shape without its last dimension ("少最后一维") is one per row: F.gaussian_nll_loss
  // unsqueezes it there, where broadcasting would align it with the wrong dimensions.
  if (p.Keep(F::Role::kVar, kWeight)) {
    TensorRef& var = made->tensor(kWeight);
    const Dims& input = made->tensor(kSelf).shape;
    if (var.rank() + 1 == static_cast<int64_t>(input.size()) && std::equal(var.shape.begin(), var.shape.end(), input.begin())) {
      var.shape.push_back(1);
      var.strides.push_back(1);
    }
    if (aclnnStatus s = p.Broadcast(F::Role::kVar, kWeight, &shape)) return s;
  } else if (gaussian) {
    return p.Reject(F::Role::kVar, "is required");
  }
  made->shape = shape;
  if (op == F::Op::kGaussianNllLossBackward) {
    const TensorDesc* grad_var = RoleTensor(p.call, p.family, F::Role::kGradVar);
    if (!grad_var) return p.Reject(F::Role::kGradVar, "is required");
    const TensorDesc* var = RoleTensor(p.call, p.family, F::Role::kVar);
    if (aclnnStatus s = made->KeepOutput(p.call, p.family, F::Role::kGradVar, *grad_var, var->view, "var's shape", kGradVar)) {
      return s;
    }
  }
  const bool reduced = !IsBackward(op) && made->reduction != kNone;
  return made->KeepOutput(p.call, p.family, F::Role::kOut, out, reduced ? Dims{} : shape,
                          reduced ? "one value (the reduced loss)" : "the inputs' broadcast shape", kOut, reduced);
}

aclnnStatus PlanNll(const Planning& p, int op, const TensorDesc& out) {
  LossWork* made = p.work;
  if (aclnnStatus s = p.Reduction(op)) return s;
  made->ignore_index = RoleInt(p.call, p.family, F::Role::kIgnoreIndex, -100);
  const bool backward = op == F::Op::kNllLossBackward;
  const TensorRef& self = made->tensor(kSelf);
  if (self.rank() < 1) return p.Reject(F::Role::kSelf, "must have at least one dimension (the classes)");
  made->dim = self.rank() >= 2 ? 1 : 0;
  made->shape = self.shape;
  Dims samples;
  for (int64_t d = 0; d < self.rank(); ++d) {
    if (d != made->dim) samples.push_back(self.shape[d]);
  }
  if (!p.Keep(F::Role::kTarget, kTarget)) return p.Reject(F::Role::kTarget, "is required");
  if (made->tensor(kTarget).shape != samples) {
    return p.Reject(F::Role::kTarget, "shape " + DimsText(made->tensor(kTarget).shape) +
                                          " is not self's without its class dimension " + DimsText(samples));
  }
  if (p.Keep(F::Role::kWeight, kWeight) && made->tensor(kWeight).shape != Dims{self.shape[made->dim]}) {
    return p.Reject(F::Role::kWeight, "shape " + DimsText(made->tensor(kWeight).shape) + " is not [C], C = " +
                                          std::to_string(self.shape[made->dim]));
  }
  const bool per_sample = made->reduction == kNone && self.rank() >= 2;
  if (backward) {
    if (!p.Keep(F::Role::kGradOutput, kGrad)) return p.Reject(F::Role::kGradOutput, "is required");
    const int64_t expected = per_sample ? made->tensor(kTarget).numel() : 1;
    if (made->tensor(kGrad).numel() != expected || (per_sample && made->tensor(kGrad).shape != samples)) {
      return p.Reject(F::Role::kGradOutput, "shape " + DimsText(made->tensor(kGrad).shape) + " is not " +
                                                (per_sample ? DimsText(samples) : std::string("one value")));
    }
    if (!p.Keep(F::Role::kTotalWeight, kTotalWeight) || made->tensor(kTotalWeight).numel() != 1) {
      return p.Reject(F::Role::kTotalWeight, "must be one value (the forward's total weight)");
    }
    return made->KeepOutput(p.call, p.family, F::Role::kOut, out, self.shape, "self's shape", kOut);
  }
  if (aclnnStatus s = made->KeepOutput(p.call, p.family, F::Role::kOut, out, per_sample ? samples : Dims{},
                                       per_sample ? "the target's shape" : "one value (the reduced loss)", kOut,
                                       !per_sample)) {
    return s;
  }
  if (const TensorDesc* total = RoleTensor(p.call, p.family, F::Role::kTotalWeight)) {
    return made->KeepOutput(p.call, p.family, F::Role::kTotalWeight, *total, Dims{}, "one value", kTotalOut, true);
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PlanCrossEntropy(const Planning& p, int op, const TensorDesc& out) {
  LossWork* made = p.work;
  const Call& call = p.call;
  const FamilySpec& family = p.family;
  bool named;
  if (aclnnStatus s = p.NamedReduction(&named)) return s;
  if (!named) made->reduction = kMean;
  made->ignore_index = RoleInt(call, family, F::Role::kIgnoreIndex, -100);
  made->label_smoothing = RoleNumber(call, family, F::Role::kLabelSmoothing, -1, 0.0);
  if (!(made->label_smoothing >= 0 && made->label_smoothing <= 1)) {
    return p.Reject(F::Role::kLabelSmoothing, std::to_string(made->label_smoothing) + " is outside [0.0, 1.0]");
  }
  if (RoleNumber(call, family, F::Role::kZlossScale, -1, 0.0) != 0) {
    return p.Reject(F::Role::kZlossScale, "the simulator models no z-loss (the page: 当前暂不支持); pass 0");
  }
  if (RoleBool(call, family, F::Role::kReturnZloss, false)) {
    return p.Reject(F::Role::kReturnZloss, "the simulator models no z-loss (the page: 当前暂不支持); pass false");
  }
  const TensorRef& self = made->tensor(kSelf);
  if (self.rank() != 2) return p.Reject(F::Role::kSelf, "shape " + DimsText(self.shape) + " is not [N, C]");
  const Dims samples{self.shape[0]};
  if (!p.Keep(F::Role::kTarget, kTarget) || made->tensor(kTarget).shape != samples) {
    return p.Reject(F::Role::kTarget, "must be [N], N = " + std::to_string(self.shape[0]));
  }
  if (p.Keep(F::Role::kWeight, kWeight) && made->tensor(kWeight).shape != Dims{self.shape[1]}) {
    return p.Reject(F::Role::kWeight, "shape " + DimsText(made->tensor(kWeight).shape) + " is not [C], C = " +
                                          std::to_string(self.shape[1]));
  }
  const bool per_sample = made->reduction == kNone;
  if (op == F::Op::kCrossEntropyGrad) {
    if (!p.Keep(F::Role::kGradOutput, kGrad) ||
        made->tensor(kGrad).numel() != (per_sample ? self.shape[0] : 1)) {
      return p.Reject(F::Role::kGradOutput, per_sample ? "must be [N] when reduction is none" : "must be one value");
    }
    return made->KeepOutput(call, family, F::Role::kOut, out, self.shape, "logProb's shape", kOut);
  }
  const Dims loss_shape = per_sample ? samples : Dims{};
  const char* loss_what = per_sample ? "[N]" : "one value (the reduced loss)";
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, out, loss_shape, loss_what, kOut, !per_sample)) {
    return s;
  }
  const TensorDesc* log_prob = RoleTensor(call, family, F::Role::kLogProb);
  if (!log_prob) return p.Reject(F::Role::kLogProb, "is required");
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kLogProb, *log_prob, self.shape, "input's shape", kOutput)) {
    return s;
  }
  // An empty zlossOut or lseForZlossOut is an output the caller does not ask for, left unwritten:
  // torch_npu 2.13's npu_cross_entropy_loss (op-plugin's yaml, gen_opapi sizes
  // npu_cross_entropy_loss_zloss_output_size(input, reduction, return_zloss) and
  // ..._lse_for_zloss_output_size(input, lse_square_scale_for_zloss)) passes [0] tensors for them
  // when return_zloss is false and the scale 0, the only values modelled.
  auto asked = [](const TensorDesc* t) { return t && t->numel() != 0; };
  if (const TensorDesc* zloss = RoleTensor(call, family, F::Role::kZloss); asked(zloss)) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kZloss, *zloss, loss_shape, loss_what, kZloss, !per_sample)) {
      return s;
    }
  }
  if (const TensorDesc* lse = RoleTensor(call, family, F::Role::kLse); asked(lse) || (lse && samples[0] == 0)) {
    return made->KeepOutput(call, family, F::Role::kLse, *lse, samples, "[N]", kLse);
  }
  return ACLNN_SUCCESS;
}

aclnnStatus PlanSoftLabels(const Planning& p, const TensorDesc& out) {
  LossWork* made = p.work;
  const TensorRef& self = made->tensor(kSelf);
  if (self.rank() != 2) return p.Reject(F::Role::kSelf, "shape " + DimsText(self.shape) + " is not [N, C]");
  if (!p.Keep(F::Role::kTarget, kTarget) || made->tensor(kTarget).shape != self.shape) {
    return p.Reject(F::Role::kTarget, "must have self's shape " + DimsText(self.shape));
  }
  if (aclnnStatus s = made->KeepOutput(p.call, p.family, F::Role::kOut, out, Dims{self.shape[0]}, "[N]", kOut)) {
    return s;
  }
  const TensorDesc* backprop = RoleTensor(p.call, p.family, F::Role::kBackprop);
  if (!backprop) return p.Reject(F::Role::kBackprop, "is required");
  return made->KeepOutput(p.call, p.family, F::Role::kBackprop, *backprop, self.shape, "self's shape", kOutput);
}

aclnnStatus PlanSoftmaxBackward(const Planning& p, const TensorDesc& out) {
  LossWork* made = p.work;
  const TensorRef& grad = made->tensor(kSelf);
  if (!p.Keep(F::Role::kOutput, kOutput)) return p.Reject(F::Role::kOutput, "is required");
  if (made->tensor(kOutput).shape != grad.shape) {
    return p.Reject(F::Role::kOutput, "shape " + DimsText(made->tensor(kOutput).shape) +
                                          " is not the gradient's shape " + DimsText(grad.shape));
  }
  const int64_t given = RoleInt(p.call, p.family, F::Role::kDim, -1);
  int64_t wrapped;
  if (aclnnStatus s = WrapDimOrReject(p.call, p.family, F::Role::kDim, given, grad.rank(), &wrapped)) return s;
  made->dim = grad.rank() == 0 ? 0 : wrapped;
  return made->KeepOutput(p.call, p.family, F::Role::kOut, out, grad.shape, "the gradient's shape", kOut);
}

}  // namespace

aclnnStatus PlanLoss(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  SourceAndOutput found;
  if (!ReadSourceAndOutput(call, family, F::Role::kSelf, F::Role::kOut, work, &found)) return ACLNN_SUCCESS;
  ComputeType type;
  if (!FamilyComputeType(found.source->dtype, false, &type) || type == ComputeType::kInt64 ||
      !Loader(type, found.out->dtype)) {
    return Decline(call, work, std::string("for dtype ") + DTypeName(found.source->dtype) + " into " +
                                   DTypeName(found.out->dtype));
  }
  LossWork* made = new LossWork(call.spec.name, op);
  std::unique_ptr<LossWork> owned(made);
  made->type = type;
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *found.source);
  const Planning planning{call, family, made};
  aclnnStatus status;
  if (IsSoftmax(op)) {
    status = PlanSoftmaxBackward(planning, *found.out);
  } else if (IsNll(op)) {
    status = PlanNll(planning, op, *found.out);
  } else if (IsCrossEntropy(op)) {
    status = PlanCrossEntropy(planning, op, *found.out);
  } else if (op == F::Op::kSoftmaxCrossEntropyWithLogits) {
    status = PlanSoftLabels(planning, *found.out);
  } else {
    status = PlanPointwise(planning, op, *found.out);
  }
  if (status != ACLNN_SUCCESS) return status;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
