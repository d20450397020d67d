// The softmax family: softmax and log_softmax along one dimension.
//
// Phase 2 views the input as [outer, length, inner] (length: the softmax dimension). Each line of
// `length` elements is shifted by its maximum (as the page says: "会使用减去输入最大值的方式防止浮点数
// 运算的溢出问题"), exponentiated and summed; softmax divides by the sum, log_softmax subtracts
// its logarithm from the shifted input ((x - max) - log(sum), as aten's does). FLOAT, FLOAT16 and
// BFLOAT16 compute in float, with a vector exp of the code path's width (ExpV; ACLSIM_KERNEL's
// AVX-512, AVX2 or baseline); DOUBLE computes in double with std::exp. A float32 input and output
// dense in memory are read and written in place; other dtypes and layouts go through a contiguous
// float buffer. Lines are spread over the threads; a
// few long lines (a softmax over one large dimension) are cut into chunks whose partial maxima
// and sums are combined in order (the same result whatever the number of threads).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = SoftmaxFamily;

enum Slot { kSelf, kOut, kSlots };

constexpr int64_t kChunk = 16384;          // elements per partial result of a long line
constexpr int64_t kParallelLine = 1 << 16;  // a line at least this long is cut into chunks
constexpr int64_t kColumns = 512;          // inner > 1: columns per block

// Vectors of L floats, L the floats one register of the code path holds (ACLSIM_KERNEL's
// kPathLanes: 16 for AVX-512, 8 for AVX2, 4 for SSE2): wider generic vectors than the path's
// registers are built from scalar code.
// (The vector types are typedefs of a class template: GCC drops vector_size from an alias template.)
template <int L>
struct Vectors {
  typedef float Float __attribute__((vector_size(4 * L)));
  typedef int32_t Int __attribute__((vector_size(4 * L)));
};
template <int L>
using FloatV = typename Vectors<L>::Float;
template <int L>
using IntV = typename Vectors<L>::Int;

// The helpers and loops down to the double section pass vectors wider than the baseline's
// registers; -Wpsabi warns that such a call's ABI depends on the ISA. The helpers are always
// inlined into a function built for their width (ACLSIM_KERNEL), so no call passes such a vector.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <int L>
__attribute__((always_inline)) inline FloatV<L> Load(const float* p) {
  FloatV<L> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <int L>
__attribute__((always_inline)) inline void Store(float* p, const FloatV<L>& v) {
  std::memcpy(p, &v, sizeof(v));
}

// exp of L floats, in place, by whichever routine made the path's softmax fastest, measured on
// the bench's softmax and log_softmax over [4096, 4096] float32 with the routines switched in one
// process (paired rounds, 2 threads, Sapphire Rapids, 2026-11-29):
// - 4 lanes (the baseline path): glibc's vector expf (libmvec, which every glibc x86-64 install
//   ships; within 4 ulp of expf by glibc's manual, 2.5 measured): 1.13-1.20x the Cephes
//   polynomial's speed (glibc runs its 4-lane variant in SSE4.1 where the CPU has it).
// - 8 and 16 lanes (AVX2, AVX-512): Cephes' expf polynomial below (1 ulp), inlined so that the two
//   vectors of an iteration interleave. libmvec's 8-lane variant made the AVX2 softmax 0.82-0.92x
//   as fast (though its loop alone, one thread over rows in cache, ran 13% faster), its 16-lane
//   one was no faster alone (0.27 against 0.25 ns an element). SLEEF's (Debian's libsleef 3.5,
//   1-ulp variants) was slower than both alone, on every path.
// NaN stays NaN and -inf gives 0 on every path; below -87.3 the polynomial gives 0 where libmvec
// keeps expf's subnormals. libmvec's routine runs inlined into the baseline path's function
// (ACLSIM_KERNEL); it is declared with a GCC vector type rather than <immintrin.h>'s, whose parse
// would cost the unit 0.6 s.
extern "C" FloatV<4> _ZGVbN4v_expf(FloatV<4>);

// Cephes' expf: range reduction by ln 2 in two parts, a degree-6 polynomial, the exponent added
// to the bits.
template <int L>
__attribute__((always_inline)) inline void CephesExp(FloatV<L>& x) {
  using V = FloatV<L>;
  using I = IntV<L>;
  const V hi = V{} + 88.3762626647949f, lo = V{} - 87.3365478515625f;
  const I under = x < lo;
  x = x > hi ? hi : x;
  const V t = x * 1.44269504088896341f + 0.5f;
  I i = __builtin_convertvector(t, I);
  i += __builtin_convertvector(i, V) > t;  // floor: one less where truncation rounded up
  const V fx = __builtin_convertvector(i, V);
  x = x - fx * 0.693359375f + fx * 2.12194440e-4f;
  const V z = x * x;
  V y = ((((1.9875691500e-4f * x + 1.3981999507e-3f) * x + 8.3334519073e-3f) * x + 4.1665795894e-2f) * x +
         1.6666665459e-1f) * x + 5.0000001201e-1f;
  y = y * z + x + 1.0f;
  const I bits = (i + 127) << 23;
  V scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  y = y * scale;
  x = under ? V{} : y;
}

template <int L>
__attribute__((always_inline)) inline void ExpV(FloatV<L>& x) {
  static_assert(L == 4 || L == 8 || L == 16, "a code path holds 4, 8 or 16 floats");
  if constexpr (L == 4) {
    x = _ZGVbN4v_expf(x);
  } else {
    CephesExp<L>(x);
  }
}

template <int L>
__attribute__((always_inline)) inline float Exp1(float v) {
  FloatV<L> x = FloatV<L>{} + v;
  ExpV<L>(x);
  return x[0];
}

// The hot loops: ACLSIM_KERNEL (family.h), kPathLanes floats per vector.

ACLSIM_KERNEL(float, MaxFloats, (const float* x, int64_t n), (x, n)) {
  constexpr int kLanes = kPathLanes;
  using V = FloatV<kLanes>;
  V m = V{} - std::numeric_limits<float>::infinity();
  int64_t i = 0;
  bool nan = false;
  IntV<kLanes> bad = {};
  for (; i + kLanes <= n; i += kLanes) {
    const V v = Load<kLanes>(x + i);
    m = v > m ? v : m;
    bad |= v != v;
  }
  float r = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < kLanes; ++j) r = std::max(r, m[j]), nan = nan || bad[j];
  for (; i < n; ++i) {
    nan = nan || x[i] != x[i];
    r = std::max(r, x[i]);
  }
  return nan ? std::numeric_limits<float>::quiet_NaN() : r;
}

// Returns the sum of exp(x - shift) (in double across lanes) and stores y = exp(x - shift)
// (softmax) or y = x - shift (log_softmax, which Finish then shifts by log(sum)): the output is
// written in this compute-bound pass in both cases, its cache misses hidden behind the exponentials,
// and Finish works on the row in cache.
ACLSIM_KERNEL(double, ExpSum, (const float* x, int64_t n, float shift, bool log, float* y), (x, n, shift, log, y)) {
  constexpr int kLanes = kPathLanes;
  FloatV<kLanes> s0 = {}, s1 = {};
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    FloatV<kLanes> a = Load<kLanes>(x + i) - shift;
    FloatV<kLanes> b = Load<kLanes>(x + i + kLanes) - shift;
    if (log) {
      Store<kLanes>(y + i, a);
      Store<kLanes>(y + i + kLanes, b);
    }
    ExpV<kLanes>(a);
    ExpV<kLanes>(b);
    if (!log) {
      Store<kLanes>(y + i, a);
      Store<kLanes>(y + i + kLanes, b);
    }
    s0 += a;
    s1 += b;
  }
  double sum = 0;
  for (int j = 0; j < kLanes; ++j) sum += static_cast<double>(s0[j]) + static_cast<double>(s1[j]);
  for (; i < n; ++i) {
    const float shifted = x[i] - shift, e = Exp1<kLanes>(shifted);
    y[i] = log ? shifted : e;
    sum += e;
  }
  return sum;
}

// y = y * scale (softmax) or y = y - shift (log_softmax: y holds x - max, shift is log(sum), the
// order of aten's log_softmax: (x - max) - log(sum)).
ACLSIM_KERNEL(void, Finish, (int64_t n, float shift, float scale, bool log, float* y), (n, shift, scale, log, y)) {
  if (log) {
    for (int64_t i = 0; i < n; ++i) y[i] -= shift;
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] *= scale;
  }
}

// Columns: x and y are [length, inner] blocks of `width` columns (row stride `inner`).
ACLSIM_KERNEL(void, Columns,
              (const float* x, float* y, int64_t length, int64_t inner, int64_t width, bool log, float* max,
               double* sum),
              (x, y, length, inner, width, log, max, sum)) {
  constexpr int kLanes = kPathLanes;
  for (int64_t j = 0; j < width; ++j) max[j] = -std::numeric_limits<float>::infinity(), sum[j] = 0;
  for (int64_t l = 0; l < length; ++l) {
    const float* row = x + l * inner;
    for (int64_t j = 0; j < width; ++j) max[j] = (row[j] > max[j] || row[j] != row[j]) ? row[j] : max[j];
  }
  for (int64_t l = 0; l < length; ++l) {
    const float* row = x + l * inner;
    float* out = y + l * inner;
    int64_t j = 0;
    for (; j + kLanes <= width; j += kLanes) {
      FloatV<kLanes> e = Load<kLanes>(row + j) - Load<kLanes>(max + j);
      ExpV<kLanes>(e);
      if (!log) Store<kLanes>(out + j, e);
      for (int k = 0; k < kLanes; ++k) sum[j + k] += e[k];
    }
    for (; j < width; ++j) {
      const float e = Exp1<kLanes>(row[j] - max[j]);
      if (!log) out[j] = e;
      sum[j] += e;
    }
  }
  for (int64_t j = 0; j < width; ++j) {
    // log_softmax: (x - max) - log(sum), as the rows' Finish; softmax: e / sum.
    if (log) {
      sum[j] = static_cast<float>(std::log(sum[j]));
    } else {
      max[j] = static_cast<float>(1.0 / sum[j]);
    }
  }
  for (int64_t l = 0; l < length; ++l) {
    const float* row = x + l * inner;
    float* out = y + l * inner;
    if (log) {
      for (int64_t j = 0; j < width; ++j) out[j] = (row[j] - max[j]) - static_cast<float>(sum[j]);
    } else {
      for (int64_t j = 0; j < width; ++j) out[j] *= max[j];
    }
  }
}
#pragma GCC diagnostic pop

// --- double ------------------------------------------------------------------------------------

void LineDouble(const double* x, double* y, int64_t length, int64_t inner, bool log) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t l = 0; l < length; ++l) {
    const double v = x[l * inner];
    m = (v > m || v != v) ? v : m;
  }
  double sum = 0;
  for (int64_t l = 0; l < length; ++l) {
    const double e = std::exp(x[l * inner] - m);
    if (!log) y[l * inner] = e;
    sum += e;
  }
  const double shift = m + std::log(sum), scale = 1.0 / sum;
  for (int64_t l = 0; l < length; ++l) {
    if (log) {
      y[l * inner] = x[l * inner] - shift;
    } else {
      y[l * inner] *= scale;
    }
  }
}

class SoftmaxWork final : public FamilyWork {
 public:
  SoftmaxWork(const char* api, int op) : FamilyWork(api, kSlots), log_(op == F::Op::kLogSoftmax) {}

  int64_t dim = 0;

 private:
  aclnnStatus Compute() override {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& out = tensor(kOut);
    const int64_t numel = self.numel();
    if (numel == 0) return ACLNN_SUCCESS;
    int64_t outer = 1, length = 1, inner = 1;
    for (int64_t d = 0; d < self.rank(); ++d) {
      (d < dim ? outer : d == dim ? length : inner) *= self.shape[d];
    }
    const bool direct = out.dtype == StorageOf(type) && out.Contiguous();
    if (type == ComputeType::kFloat64) {
      const double* x = static_cast<const double*>(ContiguousAs(self, type, 0));
      double* y = direct ? reinterpret_cast<double*>(out.first)
                         : static_cast<double*>(Scratch(1, static_cast<size_t>(numel) * sizeof(double)));
      const int64_t lines = outer * inner;
      const int64_t tasks = numel < (1 << 15) ? 1 : std::min<int64_t>(lines, ParallelThreads() * 4);
      auto run = [&](int64_t task) {
        for (int64_t line = lines * task / tasks; line < lines * (task + 1) / tasks; ++line) {
          const int64_t o = line / inner, j = line % inner;
          LineDouble(x + o * length * inner + j, y + o * length * inner + j, length, inner, log_);
        }
      };
      if (tasks <= 1) run(0); else ParallelFor(tasks, run);
      if (!direct) ScatterFrom(y, type, out);
      return ACLNN_SUCCESS;
    }
    const float* x = static_cast<const float*>(ContiguousAs(self, type, 0));
    float* y = direct ? reinterpret_cast<float*>(out.first)
                      : static_cast<float*>(Scratch(1, static_cast<size_t>(numel) * sizeof(float)));
    if (inner == 1) {
      Lines(x, y, outer, length);
    } else {
      const int64_t blocks = (inner + kColumns - 1) / kColumns, units = outer * blocks;
      const int64_t tasks = numel < (1 << 15) ? 1 : std::min<int64_t>(units, ParallelThreads() * 4);
      auto run = [&](int64_t task) {
        float* max = static_cast<float*>(Scratch(2, kColumns * sizeof(float)));
        double* sum = static_cast<double*>(Scratch(3, kColumns * sizeof(double)));
        for (int64_t u = units * task / tasks; u < units * (task + 1) / tasks; ++u) {
          const int64_t o = u / blocks, j = (u % blocks) * kColumns;
          const int64_t offset = o * length * inner + j;
          Columns(x + offset, y + offset, length, inner, std::min(kColumns, inner - j), log_, max, sum);
        }
      };
      if (tasks <= 1) run(0); else ParallelFor(tasks, run);
    }
    if (!direct) ScatterFrom(y, type, out);
    return ACLNN_SUCCESS;
  }

  // Contiguous lines of `length` floats.
  void Lines(const float* x, float* y, int64_t lines, int64_t length) {
    const int64_t threads = ParallelThreads();
    if (lines >= threads * 2 || length < kParallelLine) {
      const int64_t tasks = lines * length < (1 << 15) ? 1 : std::min<int64_t>(lines, threads * 4);
      auto run = [&](int64_t task) {
        for (int64_t line = lines * task / tasks; line < lines * (task + 1) / tasks; ++line) {
          const float* xi = x + line * length;
          float* yi = y + line * length;
          const float m = MaxFloats(xi, length);
          const double sum = ExpSum(xi, length, m, log_, yi);
          Finish(length, static_cast<float>(std::log(sum)), static_cast<float>(1.0 / sum), log_, yi);
        }
      };
      if (tasks <= 1) run(0); else ParallelFor(tasks, run);
      return;
    }
    // A few long lines: chunks in parallel, partial results combined in order.
    const int64_t chunks = (length + kChunk - 1) / kChunk;
    std::vector<float> maxima(static_cast<size_t>(chunks));
    std::vector<double> sums(static_cast<size_t>(chunks));
    const int64_t tasks = std::min<int64_t>(chunks, threads * 4);
    for (int64_t line = 0; line < lines; ++line) {
      const float* xi = x + line * length;
      float* yi = y + line * length;
      auto span = [&](int64_t c, int64_t* begin, int64_t* n) {
        *begin = c * kChunk;
        *n = std::min(length, *begin + kChunk) - *begin;
      };
      ParallelFor(tasks, [&](int64_t task) {
        for (int64_t c = chunks * task / tasks; c < chunks * (task + 1) / tasks; ++c) {
          int64_t begin, n;
          span(c, &begin, &n);
          maxima[static_cast<size_t>(c)] = MaxFloats(xi + begin, n);
        }
      });
      float m = maxima[0];
      for (float v : maxima) m = (v > m || v != v || m != m) ? (m != m ? m : v) : m;
      ParallelFor(tasks, [&](int64_t task) {
        for (int64_t c = chunks * task / tasks; c < chunks * (task + 1) / tasks; ++c) {
          int64_t begin, n;
          span(c, &begin, &n);
          sums[static_cast<size_t>(c)] = ExpSum(xi + begin, n, m, log_, yi + begin);
        }
      });
      double sum = 0;
      for (double s : sums) sum += s;
      const float shift = static_cast<float>(std::log(sum)), scale = static_cast<float>(1.0 / sum);
      ParallelFor(tasks, [&](int64_t task) {
        for (int64_t c = chunks * task / tasks; c < chunks * (task + 1) / tasks; ++c) {
          int64_t begin, n;
          span(c, &begin, &n);
          Finish(n, shift, scale, log_, yi + begin);
        }
      });
    }
  }

  bool log_;
};

}  // namespace

aclnnStatus PlanSoftmax(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!self || !out) return Decline(call, work, "when its input or output is absent");
  const int64_t rank = static_cast<int64_t>(self->view.size());
  const int64_t dim = RoleInt(call, family, F::Role::kDim, -1);
  int64_t wrapped;
  if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, dim, rank, &wrapped)) return s;
  if (out->view != self->view) {
    return RejectInvalid(call, family, F::Role::kOut,
                         "shape " + DimsText(out->view) + " is not the input's shape " + DimsText(self->view));
  }
  ComputeType type;
  if (!FamilyComputeType(self->dtype, false, &type)) {
    return DeclineDtype(call, work, self->dtype);
  }
  SoftmaxWork* made = new SoftmaxWork(call.spec.name, family.op);
  std::unique_ptr<SoftmaxWork> owned(made);
  made->type = type;
  made->dim = rank == 0 ? 0 : wrapped;
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  made->tensor(kOut).Set(RoleName(call, family, F::Role::kOut), *out);
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
