// The random family: every value from one counter-based generator, Philox 4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3"; the generator of CANN's and PyTorch's devices),
// keyed by the pages' seed, its counter (block j, offset). Element i of a result (row-major in
// its logical shape) reads block (i, offset) alone (normal, uniform, random and bernoulli: half
// i % 2 of block (i / 2, offset)), so a seed and an offset give one result whatever the threads and
// the strides, and two offsets two independent streams.
//   normal        mean + std * z, z from Box-Muller on the block's two 53-bit uniforms (cos for an
//                 even element, sin for the odd one of the pair); mean and
//                 std numbers or tensors broadcast to out's shape (std < 0 refused, as aten)
//   uniform       from + (to - from) * u, u in [0, 1)
//   random        integers uniform in [from, to); without from/to: [0, 2^mantissa] for floating
//                 dtypes, [0, max] for integral ones, {0, 1} for BOOL (aten's random_())
//   bernoulli     1 where u < p (p a number, or a tensor broadcast to self), else 0
//   multinomial   per row of self's weights: with replacement, the category whose cumulative
//                 weight u * total falls in; without, the num_samples largest w / E (E exponential):
//                 a draw without replacement proportional to the weights
//   randperm      Fisher-Yates, swap i with a position below it drawn from block i
//   gen_mask      bit i of byte i / 8 (least significant first) is 1 (kept) where u >= prob; the
//                 bits past the elements, up to the 128-bit alignment, are 0
//   do_mask       out = self / (1 - prob) where the bit is 1, else 0; prob 0 gives self, 1 zeros
//   dropout       gen_mask and do_mask at once (aclnnDropoutV3); p 0 or 1 leaves the mask untouched
//   dropout_grad  gradX = gradY * bit * scale (a product: NaN * 0 is NaN)
//   exponential   -ln(1 - u) / lambd, u in [0, 1) (aclnnSimThreadExponential)
//   rrelu         training: a = lower + (upper - lower) * u where self < 0, out = self * a and
//                 noise = a (1 where self >= 0); else out = self * (lower + upper) / 2 where self < 0
// Values are drawn in double and stored in the output's dtype (converted as a cast converts them).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = RandomFamily;

// --- the generator ------------------------------------------------------------------------------

struct Block {
  uint32_t w[4];
  // A uniform double in [0, 1) from words 2k and 2k + 1 (k 0 or 1): 53 bits.
  double Uniform(int k) const {
    const uint64_t bits = (static_cast<uint64_t>(w[2 * k]) << 32 | w[2 * k + 1]) >> 11;
    return static_cast<double>(bits) * 0x1.0p-53;
  }
  // Words 2k and 2k + 1 as one 64-bit number.
  uint64_t Word64(int k = 0) const { return static_cast<uint64_t>(w[2 * k]) << 32 | w[2 * k + 1]; }
};

// Philox 4x32-10 of counter (index, offset) under key seed.
inline Block Philox(uint64_t seed, uint64_t index, uint64_t offset) {
  uint32_t c0 = static_cast<uint32_t>(index), c1 = static_cast<uint32_t>(index >> 32);
  uint32_t c2 = static_cast<uint32_t>(offset), c3 = static_cast<uint32_t>(offset >> 32);
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53} * c0, p1 = uint64_t{0xCD9E8D57} * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9;
    k1 += 0xBB67AE85;
  }
  return Block{{c0, c1, c2, c3}};
}

// fn(i) for i in [0, n), split among the pool's threads when large (each value depends on i alone).
template <typename Fn>
void ForIndices(int64_t n, Fn&& fn) {
  constexpr int64_t kGrain = 1 << 14;
  const int64_t tasks = n < kGrain ? 1 : std::min<int64_t>(ParallelThreads() * 4, n / kGrain);
  if (tasks <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) {
    for (int64_t i = n * task / tasks, end = n * (task + 1) / tasks; i < end; ++i) fn(i);
  });
}

// The number of mask bytes for n elements: aligned to 128 bits.
int64_t MaskBytes(int64_t n) { return (n + 127) / 128 * 16; }

enum Slot { kSelf, kMean, kStd, kProb, kMask, kNoise, kSeedT, kOffsetT, kOut, kMaskOut, kSlots };

class RandomWork final : public FamilyWork {
 public:
  RandomWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  uint64_t seed = 0, offset = 0;
  bool seed_tensor = false, offset_tensor = false;
  double a = 0, b = 1;  // mean and std, from and to, lower and upper
  double prob = 0, scale = 1;
  bool flag = false;  // replacement, training
  bool has_mean = false, has_std = false, has_prob = false;
  int64_t count = 0;  // elements of a mask, num_samples, n
  aclDataType dtype = ACL_DT_UNDEFINED;  // random's output dtype (its range)

 private:
  aclnnStatus Compute() override {
    if (seed_tensor) seed = static_cast<uint64_t>(TensorValue(kSeedT));
    if (offset_tensor) offset += static_cast<uint64_t>(TensorValue(kOffsetT));
    switch (op_) {
      case F::Op::kNormal: case F::Op::kUniform: case F::Op::kRandom: case F::Op::kBernoulli: case F::Op::kExponential:
        return Draw();
      case F::Op::kMultinomial: return Multinomial();
      case F::Op::kRandperm: return Randperm();
      case F::Op::kGenMask: GenMask(tensor(kOut)); return ACLNN_SUCCESS;
      case F::Op::kRrelu: return Rrelu();
      default: return ApplyMask();
    }
  }

  int64_t TensorValue(int slot) const {
    int64_t v = 0;
    GatherAs(tensor(slot), ComputeType::kInt64, &v);
    return v;
  }

  // `t` broadcast to out's shape, as doubles.
  const double* Broadcast(int slot, int scratch) const {
    const TensorRef view = BroadcastTo(tensor(slot), tensor(kOut).shape);
    double* values = static_cast<double*>(Scratch(scratch, static_cast<size_t>(std::max<int64_t>(view.numel(), 1)) * 8));
    GatherAs(view, ComputeType::kFloat64, values);
    return values;
  }

  // The top of random_() without from/to for the output's dtype (its values: 0 to it).
 public:
  double TopOfRange() const {
    switch (dtype) {
      case ACL_FLOAT: return 16777216.0;        // 2^24
      case ACL_FLOAT16: return 2048.0;          // 2^11
      case ACL_BF16: return 256.0;              // 2^8
      case ACL_DOUBLE: return 9007199254740992.0;  // 2^53
      case ACL_BOOL: return 1;
      case ACL_INT8: return 127;
      case ACL_UINT8: return 255;
      case ACL_INT16: return 32767;
      case ACL_INT32: return 2147483647.0;
      default: return 9223372036854775807.0;
    }
  }

 private:

  aclnnStatus Draw() {
    const TensorRef& out = tensor(kOut);
    const int64_t n = out.numel();
    if (n == 0) return ACLNN_SUCCESS;
    const double* mean = has_mean ? Broadcast(kMean, 1) : nullptr;
    const double* std = has_std ? Broadcast(kStd, 2) : nullptr;
    const double* p = has_prob ? Broadcast(kProb, 3) : nullptr;
    if (std) {
      for (int64_t i = 0; i < n; ++i) {
        if (!(std[i] >= 0)) return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": std: element " + std::to_string(i) + " is " + std::to_string(std[i]) + ", not >= 0");
      }
    }
    if (p) {
      for (int64_t i = 0; i < n; ++i) {
        if (!(p[i] >= 0 && p[i] <= 1)) return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": prob: element " + std::to_string(i) + " is " + std::to_string(p[i]) + ", not in [0, 1]");
      }
    }
    // Integral results (random's into integral dtypes) are exact in int64; the others in double.
    const bool integral = type == ComputeType::kInt64;
    const size_t size = integral ? sizeof(int64_t) : sizeof(double);
    void* values = Scratch(0, static_cast<size_t>(n) * size);
    const double low = op_ == F::Op::kRandom && std::isnan(a) ? 0 : a;
    const double span = op_ == F::Op::kRandom && std::isnan(a) ? TopOfRange() + 1 : b - a;
    // Element i draws from half i % 2 of block i / 2: a pair of elements, one block (Box-Muller's
    // two normals of one radius and angle).
    ForIndices((n + 1) / 2, [&](int64_t pair) {
      const Block block = Philox(seed, static_cast<uint64_t>(pair), offset);
      double radius = 0, angle = 0;
      if (op_ == F::Op::kNormal) {
        radius = std::sqrt(-2.0 * std::log(1.0 - block.Uniform(0)));  // 1 - u in (0, 1]: a finite log
        angle = 2.0 * M_PI * block.Uniform(1);
      }
      for (int half = 0; half < 2; ++half) {
        const int64_t i = pair * 2 + half;
        if (i >= n) break;
        double v = 0;
        switch (op_) {
          case F::Op::kNormal:
            v = (mean ? mean[i] : a) + (std ? std[i] : b) * radius * (half ? std::sin(angle) : std::cos(angle));
            break;
          case F::Op::kUniform: v = a + (b - a) * block.Uniform(half); break;
          case F::Op::kExponential: v = -std::log(1.0 - block.Uniform(half)) / a; break;
          case F::Op::kBernoulli: v = block.Uniform(half) < (p ? p[i] : prob) ? 1 : 0; break;
          default: {  // random: low + (the half's 64 bits modulo the span)
            const uint64_t r = block.Word64(half) % static_cast<uint64_t>(span);
            if (integral) {
              static_cast<int64_t*>(values)[i] = static_cast<int64_t>(low) + static_cast<int64_t>(r);
              continue;
            }
            v = low + static_cast<double>(r);
          }
        }
        if (integral) {
          static_cast<int64_t*>(values)[i] = static_cast<int64_t>(v);
        } else {
          static_cast<double*>(values)[i] = v;
        }
      }
    });
    ScatterFrom(values, integral ? ComputeType::kInt64 : ComputeType::kFloat64, out);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Multinomial() {
    const TensorRef& self = tensor(kSelf);
    const int64_t categories = self.shape.back();
    const int64_t rows = self.numel() / std::max<int64_t>(categories, 1);
    const double* w = static_cast<const double*>(ContiguousAs(self, ComputeType::kFloat64, 1));
    int64_t* picked = static_cast<int64_t*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(rows * count, 1)) * 8));
    for (int64_t r = 0; r < rows; ++r) {
      const double* row = w + r * categories;
      double total = 0;
      for (int64_t c = 0; c < categories; ++c) {
        if (!(row[c] >= 0) || !std::isfinite(row[c])) {
          return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": self: row " + std::to_string(r) +
                                                   " has a weight that is negative, infinite or NaN");
        }
        total += row[c];
      }
      // A row of weights that are all 0 is no distribution (PyTorch refuses it too). Without
      // replacement, more samples than positive categories take the categories of weight 0 last,
      // in random order, as PyTorch does (the page asks only numsamples <= C).
      if (!(total > 0)) {
        return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": self: row " + std::to_string(r) +
                                                 " has no category of positive weight");
      }
    }
    ParallelFor(rows, [&](int64_t r) {
      const double* row = w + r * categories;
      int64_t* out = picked + r * count;
      if (flag) {
        std::vector<double> cumulative(static_cast<size_t>(categories));
        double sum = 0;
        for (int64_t c = 0; c < categories; ++c) cumulative[static_cast<size_t>(c)] = sum += row[c];
        for (int64_t s = 0; s < count; ++s) {
          const double target = Philox(seed, static_cast<uint64_t>(r * count + s), offset).Uniform(0) * sum;
          int64_t c = std::upper_bound(cumulative.begin(), cumulative.end(), target) - cumulative.begin();
          while (c > 0 && (c >= categories || row[c] == 0)) --c;  // never a category of weight 0
          out[s] = c;
        }
        return;
      }
      std::vector<std::pair<double, int64_t>> keys;
      for (int64_t c = 0; c < categories; ++c) {
        const double u = Philox(seed, static_cast<uint64_t>(r * categories + c), offset).Uniform(0);
        // A category of weight 0 sorts after every positive one (its key is below 0).
        keys.emplace_back(row[c] > 0 ? row[c] / -std::log(1.0 - u) : -1.0 - u, c);
      }
      std::partial_sort(keys.begin(), keys.begin() + count, keys.end(),
                        [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
      for (int64_t s = 0; s < count; ++s) out[s] = keys[static_cast<size_t>(s)].second;
    });
    ScatterFrom(picked, ComputeType::kInt64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Randperm() {
    int64_t* values = static_cast<int64_t*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(count, 1)) * 8));
    std::iota(values, values + count, int64_t{0});
    for (int64_t i = count - 1; i > 0; --i) {
      const uint64_t j = Philox(seed, static_cast<uint64_t>(i), offset).Word64() % static_cast<uint64_t>(i + 1);
      std::swap(values[i], values[j]);
    }
    ScatterFrom(values, ComputeType::kInt64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  // The mask of `count` elements into `mask` (UINT8, any strides).
  void GenMask(const TensorRef& mask) const {
    const int64_t bytes = mask.numel();
    uint8_t* bits = static_cast<uint8_t*>(Scratch(4, static_cast<size_t>(std::max<int64_t>(bytes, 1))));
    ForIndices(bytes, [&](int64_t k) {
      uint8_t byte = 0;
      for (int64_t bit = 0; bit < 8; ++bit) {
        const int64_t i = k * 8 + bit;
        if (i < count && Philox(seed, static_cast<uint64_t>(i), offset).Uniform(0) >= prob) byte |= uint8_t(1u << bit);
      }
      bits[k] = byte;
    });
    CopyElements(DenseRef(bits, ACL_UINT8, mask.shape), mask);
  }

  // do_mask, dropout and dropout_grad: out = self * bit * factor.
  aclnnStatus ApplyMask() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel();
    // The pages: prob 0 leaves self as it is and prob 1 zeroes it, whatever the mask (aclnnDropoutV3
    // does not touch its mask then).
    if (op_ != F::Op::kDropoutGrad) {
      if (prob == 0 || prob == 1) {
        const double* x = static_cast<const double*>(ContiguousAs(self, ComputeType::kFloat64, 1));
        std::vector<double> y(static_cast<size_t>(n), 0.0);
        if (prob == 0) std::copy(x, x + n, y.begin());
        ScatterFrom(y.data(), ComputeType::kFloat64, tensor(kOut));
        return ACLNN_SUCCESS;
      }
      if (op_ == F::Op::kDropout) GenMask(tensor(kMaskOut));
    }
    const double factor = op_ == F::Op::kDropoutGrad ? scale : 1.0 / (1.0 - prob);
    // The mask's bytes as int64 (ContiguousAs converts them): byte k holds elements 8k to 8k + 7.
    const int64_t* bytes = static_cast<const int64_t*>(
        ContiguousAs(tensor(op_ == F::Op::kDropout ? kMaskOut : kMask), ComputeType::kInt64, 5));
    const double* x = static_cast<const double*>(ContiguousAs(self, ComputeType::kFloat64, 1));
    double* y = static_cast<double*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(n, 1)) * 8));
    ForIndices(n, [&](int64_t i) {
      const bool kept = (bytes[i / 8] >> (i % 8)) & 1;
      // A dropped element is 0 (the forward pages); a gradient is a product (V3Grad's gradY * mask * scale).
      y[i] = kept ? x[i] * factor : op_ == F::Op::kDropoutGrad ? x[i] * 0.0 : 0.0;
    });
    ScatterFrom(y, ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Rrelu() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.numel();
    if (n == 0) return ACLNN_SUCCESS;
    const double* x = static_cast<const double*>(ContiguousAs(self, ComputeType::kFloat64, 1));
    double* y = static_cast<double*>(Scratch(0, static_cast<size_t>(n) * 8));
    double* noise = static_cast<double*>(Scratch(2, static_cast<size_t>(n) * 8));
    ForIndices(n, [&](int64_t i) {
      if (!flag) {
        y[i] = x[i] < 0 ? x[i] * ((a + b) / 2) : x[i];
        return;
      }
      const double slope = x[i] < 0 ? a + (b - a) * Philox(seed, static_cast<uint64_t>(i), offset).Uniform(0) : 1.0;
      y[i] = x[i] * slope;
      noise[i] = slope;
    });
    // The noise first: in place, out may be self, which the noise's values were drawn against.
    if (flag) ScatterFrom(noise, ComputeType::kFloat64, tensor(kNoise));
    ScatterFrom(y, ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanRandom(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const ParamRejecter reject(call, family);
  RandomWork* made = new RandomWork(call.spec.name, op);
  std::unique_ptr<RandomWork> owned(made);
  made->seed = static_cast<uint64_t>(RoleInt(call, family, F::Role::kSeed, 0));
  made->offset = static_cast<uint64_t>(RoleInt(call, family, F::Role::kOffset, 0));
  for (auto [role, slot, flag] : {std::tuple{F::Role::kSeedTensor, kSeedT, &made->seed_tensor},
                                  std::tuple{F::Role::kOffsetTensor, kOffsetT, &made->offset_tensor}}) {
    if (const TensorDesc* t = RoleTensor(call, family, role)) {
      if (t->numel() < 1) return reject(role, "is empty: it holds the generator's " + std::string(slot == kSeedT ? "seed" : "offset"));
      made->tensor(slot).Set(RoleName(call, family, role), *t);
      made->tensor(slot).shape = {1};  // its first element
      made->tensor(slot).strides = {1};
      *flag = true;
    }
  }
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!out) return Decline(call, work, "without an output");
  // A tensor role, or its number: mean and std, prob.
  auto number_or_tensor = [&](int role, int slot, bool* has, double* value, double fallback) -> aclnnStatus {
    if (const TensorDesc* t = RoleTensor(call, family, role)) {
      Dims common;
      if (!BroadcastShape(t->view, out->view, &common) || common != out->view) {
        return reject(role, "shape " + DimsText(t->view) + " does not broadcast to " + DimsText(out->view));
      }
      made->tensor(slot).Set(RoleName(call, family, role), *t);
      *has = true;
    } else {
      *value = RoleNumber(call, family, role, -1, fallback);
    }
    return ACLNN_SUCCESS;
  };
  Dims out_shape = out->view;
  switch (op) {
    case F::Op::kNormal: {
      if (aclnnStatus s = number_or_tensor(F::Role::kMean, kMean, &made->has_mean, &made->a, 0)) return s;
      if (aclnnStatus s = number_or_tensor(F::Role::kStd, kStd, &made->has_std, &made->b, 1)) return s;
      if (!made->has_std && !(made->b >= 0)) return reject(F::Role::kStd, "must be >= 0, got " + std::to_string(made->b));
      break;
    }
    case F::Op::kUniform:
      made->a = RoleNumber(call, family, F::Role::kFrom, -1, 0);
      made->b = RoleNumber(call, family, F::Role::kTo, -1, 1);
      if (!(made->a <= made->b)) return reject(F::Role::kFrom, "from " + std::to_string(made->a) + " is above to " + std::to_string(made->b));
      break;
    case F::Op::kRandom: {
      made->dtype = out->dtype;
      if (RoleParam(call, family, F::Role::kFrom)) {
        const int64_t from = RoleInt(call, family, F::Role::kFrom, 0), to = RoleInt(call, family, F::Role::kTo, 0);
        if (from >= to) return reject(F::Role::kTo, "to " + std::to_string(to) + " must be above from " + std::to_string(from));
        // aten's random_(from, to): both ends within what the dtype holds exactly.
        made->dtype = out->dtype;
        const double top = made->TopOfRange();
        const double bottom = out->dtype == ACL_BOOL || out->dtype == ACL_UINT8 ? 0
                              : top >= 9.2e18 ? -9223372036854775808.0
                              : (out->dtype == ACL_INT8 || out->dtype == ACL_INT16 || out->dtype == ACL_INT32) ? -top - 1 : -top;
        if (static_cast<double>(from) < bottom || static_cast<double>(to - 1) > top) {
          return reject(F::Role::kFrom, "[" + std::to_string(from) + ", " + std::to_string(to) + ") is outside what " +
                                            DTypeName(out->dtype) + " holds");
        }
        made->a = static_cast<double>(from);
        made->b = static_cast<double>(to);
      } else {
        made->a = std::nan("");  // the dtype's own range
      }
      break;
    }
    case F::Op::kExponential: {
      made->a = RoleNumber(call, family, F::Role::kLambd, -1, 1);
      if (!(made->a > 0)) return reject(F::Role::kLambd, "must be above 0, got " + std::to_string(made->a));
      // The page: count is out's element count, offset a multiple of 4.
      if (RoleParam(call, family, F::Role::kN) && RoleInt(call, family, F::Role::kN, 0) != out->numel()) {
        return reject(F::Role::kN, std::to_string(RoleInt(call, family, F::Role::kN, 0)) + " is not the " +
                                       std::to_string(out->numel()) + " elements of " + RoleName(call, family, F::Role::kOut));
      }
      if (made->offset % 4 != 0) {
        return reject(F::Role::kOffset, "must be a multiple of 4 (the page: offset % 4 == 0), got " + std::to_string(made->offset));
      }
      break;
    }
    case F::Op::kBernoulli:
      if (aclnnStatus s = number_or_tensor(F::Role::kProb, kProb, &made->has_prob, &made->prob, 0.5)) return s;
      if (!made->has_prob && !(made->prob >= 0 && made->prob <= 1)) return reject(F::Role::kProb, "must be in [0, 1], got " + std::to_string(made->prob));
      break;
    case F::Op::kMultinomial: {
      if (!self || self->view.empty() || self->view.size() > 2) return reject(F::Role::kSelf, "must have 1 or 2 dimensions");
      made->count = RoleInt(call, family, F::Role::kNumSamples, 0);
      made->flag = RoleBool(call, family, F::Role::kReplacement, false);
      const int64_t categories = self->view.back();
      if (made->count <= 0) return reject(F::Role::kNumSamples, "must be positive, got " + std::to_string(made->count));
      if (!made->flag && made->count > categories) {
        return reject(F::Role::kNumSamples, std::to_string(made->count) + " samples without replacement from " + std::to_string(categories) + " categories");
      }
      made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
      out_shape = self->view;
      out_shape.back() = made->count;
      break;
    }
    case F::Op::kRandperm:
      made->count = RoleInt(call, family, F::Role::kN, 0);
      if (made->count < 0) return reject(F::Role::kN, "must not be negative, got " + std::to_string(made->count));
      out_shape = {made->count};
      break;
    case F::Op::kGenMask: {
      Dims shape;
      RoleInts(call, family, F::Role::kShape, &shape);
      made->count = 1;
      for (int64_t d : shape) made->count *= d;
      made->prob = RoleNumber(call, family, F::Role::kProb, -1, 0);
      if (!(made->prob >= 0 && made->prob <= 1)) return reject(F::Role::kProb, "must be in [0, 1], got " + std::to_string(made->prob));
      if (out->numel() < MaskBytes(made->count)) {
        return reject(F::Role::kOut, "has " + std::to_string(out->numel()) + " bytes, the mask of " + std::to_string(made->count) + " elements needs " + std::to_string(MaskBytes(made->count)));
      }
      break;
    }
    case F::Op::kDoMask: case F::Op::kDropout: case F::Op::kDropoutGrad: {
      if (!self) return Decline(call, work, "without an input");
      if (RoleTensor(call, family, F::Role::kNoiseShape)) return Decline(call, work, "with a noise shape (optionalNoiseShape)");
      made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
      made->count = self->numel();
      if (op == F::Op::kDropoutGrad) {
        made->scale = RoleNumber(call, family, F::Role::kScale, -1, 1);
      } else {
        made->prob = RoleNumber(call, family, F::Role::kProb, -1, 0);
        if (!(made->prob >= 0 && made->prob <= 1)) return reject(F::Role::kProb, "must be in [0, 1], got " + std::to_string(made->prob));
        // Out of training (aclnnDropout's train false) out is self and the mask untouched, as for p 0.
        if (!RoleBool(call, family, F::Role::kTraining, true)) made->prob = 0;
      }
      const int mask_role = op == F::Op::kDropout ? F::Role::kMaskOut : F::Role::kMask;
      const TensorDesc* mask = RoleTensor(call, family, mask_role);
      if (!mask) return Decline(call, work, "without a mask");
      if (mask->numel() < MaskBytes(made->count)) {
        return reject(mask_role, "has " + std::to_string(mask->numel()) + " bytes, the mask of " + std::to_string(made->count) + " elements needs " + std::to_string(MaskBytes(made->count)));
      }
      if (op == F::Op::kDropout && made->offset % 4 != 0) {
        return reject(F::Role::kOffset, "must be a multiple of 4 (the page: offset % 4 == 0), got " + std::to_string(made->offset));
      }
      made->tensor(op == F::Op::kDropout ? kMaskOut : kMask).Set(RoleName(call, family, mask_role), *mask);
      out_shape = self->view;
      break;
    }
    case F::Op::kRrelu: {
      if (!self) return Decline(call, work, "without an input");
      const TensorDesc* noise = RoleTensor(call, family, F::Role::kNoise);
      made->flag = RoleBool(call, family, F::Role::kTraining, false);
      if (made->flag) {
        if (!noise) return reject(F::Role::kNoise, "is needed in training");
        if (noise->view != self->view) return reject(F::Role::kNoise, "shape " + DimsText(noise->view) + " is not self's " + DimsText(self->view));
        made->tensor(kNoise).Set(RoleName(call, family, F::Role::kNoise), *noise);
      }
      made->a = RoleNumber(call, family, F::Role::kLower, -1, 0.125);
      made->b = RoleNumber(call, family, F::Role::kUpper, -1, 1.0 / 3);
      if (!(made->a <= made->b)) return reject(F::Role::kLower, "lower " + std::to_string(made->a) + " is above upper " + std::to_string(made->b));
      made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
      out_shape = self->view;
      break;
    }
    default:
      return Decline(call, work, std::string("op ") + F::kOpNames[op]);
  }
  if (op != F::Op::kGenMask && op != F::Op::kMultinomial && op != F::Op::kRandperm) {
    if (op == F::Op::kBernoulli && self && self != out && self->view != out->view) {
      return reject(F::Role::kOut, "shape " + DimsText(out->view) + " is not self's " + DimsText(self->view));
    }
  }
  ComputeType type;
  if (!FamilyComputeType(out->dtype, true, &type)) return DeclineDtype(call, work, out->dtype);
  // A BOOL result is its drawn value's truth (a normal value of 0.3 is true), as a cast makes it.
  if (out->dtype == ACL_BOOL) type = ComputeType::kFloat64;
  made->type = type;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, out_shape, "the result's shape", kOut)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
