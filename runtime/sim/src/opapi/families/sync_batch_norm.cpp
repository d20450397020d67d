// The synchronised batch norm's pieces (family "sync_batch_norm"), as torch's SyncBatchNorm calls
// them on each device:
//   stats            mean and invstd = 1 / sqrt(biased variance + eps) of each channel;
//   reduce           the sum and the sum of squares of each channel;
//   gather_stats_with_counts
//                    the devices' [world, C] means and invstds merged with their counts (Chan's
//                    parallel variance, as CUDA's kernel merges them) into meanAll and invstdAll;
//   gather_stats     the devices' [world, C] sums and sums of squares merged with their counts;
//                    both update runningMean and runningVar in place with momentum and the unbiased
//                    variance;
//   elemt            y = (x - mean) * invstd * weight + bias;
//   reduce_backward  sum(dy), sum(dy * (x - mean)) and the weight's and bias's gradients;
//   elemt_backward   dx = (dy - sumDy / n - (x - mean) * invstd^2 * sumDyXmu / n) * invstd * weight,
//                    n the sum of the counts.
// The input is viewed as [C, rest] rows (permuted so that the channel, dimension 1, leads); sums
// are in double; channels are spread over the threads.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = SyncBatchNormFamily;

enum Slot {
  kInput, kGradOut, kWeight, kBias, kMean, kInvstd, kRunningMean, kRunningVar, kCounts, kSumDy, kSumDyXmu,
  kOut, kGradWeight, kGradBias, kSum, kSquareSum, kMeanOut, kInvstdOut, kSlots
};

// The role of each slot, in slot order.
const int kSlotRoles[kSlots] = {
    F::Role::kInput, F::Role::kGradOut, F::Role::kWeight, F::Role::kBias, F::Role::kMean, F::Role::kInvstd,
    F::Role::kRunningMean, F::Role::kRunningVar, F::Role::kCounts, F::Role::kSumDy, F::Role::kSumDyXmu,
    F::Role::kOut, F::Role::kGradWeight, F::Role::kGradBias, F::Role::kSum, F::Role::kSquareSum,
    F::Role::kMeanOut, F::Role::kInvstdOut,
};

bool Present(const TensorRef& t) { return t.dtype != ACL_DT_UNDEFINED; }

class SyncBatchNormWork final : public FamilyWork {
 public:
  SyncBatchNormWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t channels = 0, length = 0, world = 0;
  double eps = 1e-5, momentum = 0.1;
  int64_t order[16] = {};
  bool permuted = false;  // the input is [N, C, ...] (not for gather_stats, which has none)

 private:
  TensorRef Rows(int slot) const { return permuted ? tensor(slot).Permuted(order) : tensor(slot); }

  template <typename T>
  const T* Load(int slot, int scratch, bool rows = false) {
    if (!Present(tensor(slot))) return nullptr;
    return static_cast<const T*>(ContiguousAs(rows ? Rows(slot) : tensor(slot), type, scratch));
  }
  template <typename T>
  T* Buffer(int scratch, int64_t n) {
    return static_cast<T*>(Scratch(scratch, static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T)));
  }
  void Store(int slot, const void* values, bool rows = false) {
    if (Present(tensor(slot))) ScatterFrom(values, type, rows ? Rows(slot) : tensor(slot));
  }
  // fn(c) for every channel, over the threads when the work is large.
  template <typename Fn>
  void ForChannels(Fn&& fn) {
    const int64_t tasks = channels * length < (1 << 15) ? 1 : std::min<int64_t>(channels, ParallelThreads() * 4);
    auto run = [&](int64_t task) {
      for (int64_t c = channels * task / tasks; c < channels * (task + 1) / tasks; ++c) fn(c);
    };
    if (tasks <= 1) run(0); else ParallelFor(tasks, run);
  }
  // running = (1 - momentum) * running + momentum * value, per channel, in place.
  template <typename T>
  void UpdateRunning(int slot, const std::vector<double>& values) {
    if (!Present(tensor(slot))) return;
    T* running = Buffer<T>(7, channels);
    GatherAs(tensor(slot), type, running);
    for (int64_t c = 0; c < channels; ++c) {
      running[c] = static_cast<T>((1 - momentum) * static_cast<double>(running[c]) +
                                  momentum * values[static_cast<size_t>(c)]);
    }
    ScatterFrom(running, type, tensor(slot));
  }

  template <typename T>
  void Merge() {
    // Per channel: the merged mean and M2 (the sum of squared deviations) and the total count.
    std::vector<double> means(static_cast<size_t>(channels)), variances(static_cast<size_t>(channels)),
        unbiased(static_cast<size_t>(channels));
    const T* counts = Load<T>(kCounts, 0);
    T* mean_out = Buffer<T>(5, channels);
    T* invstd_out = Buffer<T>(6, channels);
    double n = 0;  // the devices' element count, both ops' divisor
    for (int64_t i = 0; i < world; ++i) n += static_cast<double>(counts[i]);
    if (op_ == F::Op::kGatherStatsWithCounts) {
      const T* mean = Load<T>(kMean, 1);
      const T* invstd = Load<T>(kInvstd, 2);
      // The page's formulas, summed in device order: mean = Σ count·mean_i / n, and M2 = Σ count·(var_i +
      // (mean_i - mean)²). A device of count 0 adds 0·mean_i (NaN only where mean_i is NaN or
      // infinite), where a running merge (CUDA's) would turn every channel NaN from its 1 / 0.
      for (int64_t c = 0; c < channels; ++c) {
        double weighted = 0;
        for (int64_t i = 0; i < world; ++i) {
          weighted += static_cast<double>(counts[i]) * static_cast<double>(mean[i * channels + c]);
        }
        const double avg = weighted / n;
        double m2 = 0;
        for (int64_t i = 0; i < world; ++i) {
          const double s = static_cast<double>(invstd[i * channels + c]);
          const double delta = static_cast<double>(mean[i * channels + c]) - avg;
          m2 += static_cast<double>(counts[i]) * (1.0 / (s * s) - eps + delta * delta);
        }
        means[static_cast<size_t>(c)] = avg;
        variances[static_cast<size_t>(c)] = m2 / n;
        unbiased[static_cast<size_t>(c)] = n > 1 ? m2 / (n - 1) : std::numeric_limits<double>::quiet_NaN();
      }
    } else {
      const T* sum = Load<T>(kSum, 1);
      const T* square = Load<T>(kSquareSum, 2);
      for (int64_t c = 0; c < channels; ++c) {
        double s = 0, q = 0;
        for (int64_t i = 0; i < world; ++i) {
          s += static_cast<double>(sum[i * channels + c]);
          q += static_cast<double>(square[i * channels + c]);
        }
        const double mean = s / n, var = q / n - mean * mean;
        means[static_cast<size_t>(c)] = mean;
        variances[static_cast<size_t>(c)] = var;
        unbiased[static_cast<size_t>(c)] = var * n / (n - 1);
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      mean_out[c] = static_cast<T>(means[static_cast<size_t>(c)]);
      invstd_out[c] = static_cast<T>(1.0 / std::sqrt(variances[static_cast<size_t>(c)] + eps));
    }
    Store(kMeanOut, mean_out);
    Store(kInvstdOut, invstd_out);
    UpdateRunning<T>(kRunningMean, means);
    UpdateRunning<T>(kRunningVar, unbiased);
  }

  template <typename T>
  void Run() {
    if (op_ == F::Op::kGatherStatsWithCounts || op_ == F::Op::kGatherStats) return Merge<T>();
    const T* x = Load<T>(kInput, 0, true);
    const T* dy = Load<T>(kGradOut, 1, true);
    const T* mean = Load<T>(kMean, 2);
    const T* invstd = Load<T>(kInvstd, 3);
    const T* weight = Load<T>(kWeight, 4);
    const T* bias = Load<T>(kBias, 5);
    double total = 0;  // elemt_backward: the devices' element count (read before `first` reuses scratch 6)
    if (op_ == F::Op::kElemtBackward) {
      const T* counts = Load<T>(kCounts, 6);
      for (int64_t i = 0, n = tensor(kCounts).numel(); i < n; ++i) total += static_cast<double>(counts[i]);
    }
    // Per channel results (at most four), or the elementwise output.
    T* first = Buffer<T>(6, op_ == F::Op::kElemt || op_ == F::Op::kElemtBackward ? channels * length : channels * 4);
    T* second = first + channels;
    T* third = second + channels;
    T* fourth = third + channels;
    // elemt_backward's inputs (reduce_backward's outputs are not read).
    const bool elemt_backward = op_ == F::Op::kElemtBackward;
    const T* sum_dy = elemt_backward ? Load<T>(kSumDy, 5) : nullptr;  // scratch 5: no bias there
    const T* sum_dy_xmu = elemt_backward ? Load<T>(kSumDyXmu, 7) : nullptr;
    const int64_t n = length;
    ForChannels([&](int64_t c) {
      const T* xc = x ? x + c * n : nullptr;
      const T* dyc = dy ? dy + c * n : nullptr;
      const double w = weight ? static_cast<double>(weight[c]) : 1.0;
      switch (op_) {
        case F::Op::kStats: case F::Op::kReduce: {
          double s = 0, q = 0;
          for (int64_t i = 0; i < n; ++i) s += static_cast<double>(xc[i]);
          const double m = n ? s / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
          for (int64_t i = 0; i < n; ++i) {
            const double v = static_cast<double>(xc[i]);
            q += op_ == F::Op::kStats ? (v - m) * (v - m) : v * v;
          }
          first[c] = static_cast<T>(op_ == F::Op::kStats ? m : s);
          second[c] = static_cast<T>(op_ == F::Op::kStats ? 1.0 / std::sqrt(q / static_cast<double>(n) + eps) : q);
          break;
        }
        case F::Op::kElemt: {
          const double m = static_cast<double>(mean[c]), s = static_cast<double>(invstd[c]);
          const double b = bias ? static_cast<double>(bias[c]) : 0.0;
          for (int64_t i = 0; i < n; ++i) first[c * n + i] = static_cast<T>((static_cast<double>(xc[i]) - m) * s * w + b);
          break;
        }
        case F::Op::kElemtBackward: {
          // In T, in the golden's order ((dy - sumDy / n - (x - mean) * invstd^2 * sumDyXmu / n) *
          // invstd * weight, n the counts' sum in T): a subnormal count overflows the quotients to
          // inf there, as in torch's kernel (double intermediates kept them finite).
          const T m = mean[c], s = invstd[c], wt = weight ? weight[c] : T(1), count = static_cast<T>(total);
          const T shift = sum_dy[c] / count;
          for (int64_t i = 0; i < n; ++i) {
            const T projected = (xc[i] - m) * (s * s) * sum_dy_xmu[c] / count;
            first[c * n + i] = (dyc[i] - shift - projected) * s * wt;
          }
          break;
        }
        case F::Op::kReduceBackward: {
          const double m = static_cast<double>(mean[c]);
          double s = 0, sx = 0;
          for (int64_t i = 0; i < n; ++i) {
            const double d = static_cast<double>(dyc[i]);
            s += d;
            sx += d * (static_cast<double>(xc[i]) - m);
          }
          first[c] = static_cast<T>(s);
          second[c] = static_cast<T>(sx);
          third[c] = static_cast<T>(sx * static_cast<double>(invstd[c]));
          fourth[c] = static_cast<T>(s);
          break;
        }
      }
    });
    switch (op_) {
      case F::Op::kStats: Store(kMeanOut, first); Store(kInvstdOut, second); break;
      case F::Op::kReduce: Store(kSum, first); Store(kSquareSum, second); break;
      case F::Op::kElemt: case F::Op::kElemtBackward: Store(kOut, first, true); break;
      case F::Op::kReduceBackward:
        Store(kSumDy, first); Store(kSumDyXmu, second); Store(kGradWeight, third); Store(kGradBias, fourth);
        break;
    }
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

}  // namespace

aclnnStatus PlanSyncBatchNorm(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* t[kSlots];
  for (int s = 0; s < kSlots; ++s) t[s] = RoleTensor(call, family, kSlotRoles[s]);
  // stats' mean and invstd are its outputs (mean_out, invstd_out); gather_stats' mean is the running one.
  if (op == F::Op::kStats || op == F::Op::kGatherStats) t[kMean] = t[kInvstd] = nullptr;
  // reduce_backward computes only the outputs its flags ask for (inputG: sumDy and sumDyXmu).
  if (op == F::Op::kReduceBackward) {
    const int flags[3] = {F::Role::kInputG, F::Role::kWeightG, F::Role::kBiasG};
    const int outputs[3][2] = {{kSumDy, kSumDyXmu}, {kGradWeight, -1}, {kGradBias, -1}};
    for (int k = 0; k < 3; ++k) {
      if (RoleBool(call, family, flags[k], true)) continue;
      for (int slot : outputs[k]) {
        if (slot >= 0) t[slot] = nullptr;
      }
    }
  }
  // The tensor whose dtype the computation takes: the input, or the sums merged.
  const int lead = op == F::Op::kGatherStats ? kSum : kInput;
  if (!t[lead]) return Decline(call, work, "without its input");
  ComputeType type;
  const aclDataType dtype = t[lead]->dtype;
  if (!(dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE) ||
      !FamilyComputeType(dtype, false, &type)) {
    return DeclineDtype(call, work, dtype);
  }
  SyncBatchNormWork* made = new SyncBatchNormWork(call.spec.name, op);
  std::unique_ptr<SyncBatchNormWork> owned(made);
  made->type = type;
  made->eps = RoleNumber(call, family, F::Role::kEps, -1, 1e-5);
  made->momentum = RoleNumber(call, family, F::Role::kMomentum, -1, 0.1);

  auto reject = [&](int slot, const std::string& message) {
    return RejectInvalid(call, family, kSlotRoles[slot], message);
  };
  if (op == F::Op::kGatherStats) {
    if (t[kSum]->view.size() != 2) return reject(kSum, "must be [world, C], got shape " + DimsText(t[kSum]->view));
    made->world = t[kSum]->view[0];
    made->channels = t[kSum]->view[1];
  } else {
    const TensorDesc* input = t[kInput];
    const int64_t rank = static_cast<int64_t>(input->view.size());
    if (rank < 2 || rank > 16) {
      return reject(kInput, "must have 2 to 16 dimensions ([N, C, ...]), got shape " + DimsText(input->view));
    }
    made->channels = input->view[1];
    made->length = made->channels ? input->numel() / made->channels : 0;
    made->permuted = true;
    made->order[0] = 1;
    for (int64_t d = 0, k = 1; d < rank; ++d) {
      if (d != 1) made->order[k++] = d;
    }
    if (op == F::Op::kGatherStatsWithCounts) {
      if (!t[kMean] || t[kMean]->view.size() != 2) return reject(kMean, "must be [world, C]");
      made->world = t[kMean]->view[0];
    }
  }
  const int64_t channels = made->channels, world = made->world;
  // Every tensor the op reads or writes, with the element count it must hold (-1: the input's shape).
  struct Need {
    int slot;
    int64_t count;
  };
  Need needs[kSlots];  // phase 1 allocates nothing
  int count = 0;
  auto need = [&](std::initializer_list<Need> list) {
    for (const Need& n : list) needs[count++] = n;
  };
  switch (op) {
    case F::Op::kStats: need({{kMeanOut, channels}, {kInvstdOut, channels}}); break;
    case F::Op::kReduce: need({{kSum, channels}, {kSquareSum, channels}}); break;
    case F::Op::kElemt: need({{kMean, channels}, {kInvstd, channels}, {kOut, -1}}); break;
    case F::Op::kElemtBackward:
      need({{kGradOut, -1}, {kMean, channels}, {kInvstd, channels}, {kSumDy, channels}, {kSumDyXmu, channels},
            {kCounts, 0}, {kOut, -1}});
      break;
    case F::Op::kReduceBackward:
      need({{kGradOut, -1}, {kMean, channels}, {kInvstd, channels}});
      for (int slot : {kSumDy, kSumDyXmu, kGradWeight, kGradBias}) {
        if (t[slot]) need({{slot, channels}});
      }
      break;
    case F::Op::kGatherStatsWithCounts:
      need({{kMean, world * channels}, {kInvstd, world * channels}, {kCounts, world}, {kMeanOut, channels},
            {kInvstdOut, channels}});
      break;
    case F::Op::kGatherStats:
      need({{kSquareSum, world * channels}, {kCounts, world}, {kMeanOut, channels}, {kInvstdOut, channels}});
      break;
  }
  for (int slot : {kWeight, kBias, kRunningMean, kRunningVar}) {
    if (t[slot]) need({{slot, channels}});
  }
  for (int k = 0; k < count; ++k) {
    const Need& need = needs[k];
    const TensorDesc* d = t[need.slot];
    if (!d) {
      return RejectParam(call, family, kSlotRoles[need.slot], ACLNN_ERR_PARAM_NULLPTR, "is required");
    }
    if (need.count < 0) {
      if (aclnnStatus s = CheckShape(call, family, kSlotRoles[need.slot], d, t[kInput]->view, "the input's shape")) {
        return s;
      }
    } else if (need.count > 0 && d->numel() != need.count) {
      return reject(need.slot, "shape " + DimsText(d->view) + " does not hold " + std::to_string(need.count) +
                                   " elements");
    }
  }
  // The statistics and the merged [world, C] inputs are read in row-major order, whatever their shape.
  for (int s = 0; s < kSlots; ++s) {
    if (t[s]) made->tensor(s).Set(RoleName(call, family, kSlotRoles[s]), *t[s]);
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
