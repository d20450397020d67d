// The reduction family: sum, mean, prod, amax/amin, max/min with indices, argmax/argmin, any/all,
// var/std (with their mean), norm, logsumexp, nansum, aminmax and log_sum, along any set of
// dimensions, with keepdim; an empty set with noop_with_empty_dims reduces nothing (out = self).
//
// Phase 2 views the input with its kept dimensions first and its reduced ones last, so that each
// output element reduces one contiguous row of R elements: the input's own memory when it already
// is laid out so in the compute type, else a gathered copy. Rows are spread over the threads; a
// few long rows (a reduction to one value) are cut into chunks reduced in parallel, whose
// partial results are combined in order (the same result whatever the number of threads).
// FLOAT16 and BFLOAT16 are computed in float, as on the NPU; sums of float accumulate in float
// lanes within a chunk and in double across chunks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "aclnn_bindgen/reduce_shape.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = ReduceFamily;

constexpr int64_t kChunk = 8192;                // elements per partial result of a long row
constexpr int64_t kParallelRow = 1 << 16;       // a row at least this long is cut into chunks
// Elements per parallel task (256 KiB of float): small enough that a thread the OS deschedules
// holds back little of the work (the others take the remaining tasks), large enough that taking
// a task costs nothing against reading it.
constexpr int64_t kTaskElements = 1 << 16;

// How many tasks `elements` spread over `units` (rows, chunks) make: at least a few per thread.
int64_t TaskCount(int64_t units, int64_t elements) {
  return std::min<int64_t>(units, std::max<int64_t>(ParallelThreads() * 4, elements / kTaskElements));
}

enum Slot { kSelf, kOut, kIndices, kSecond, kSlots };

bool HasIndices(int op) { return op == F::Op::kMax || op == F::Op::kMin; }
bool IsArg(int op) { return op == F::Op::kArgmax || op == F::Op::kArgmin; }
// Ops that need at least one element per output (PyTorch and CANN refuse empty reductions).
bool NeedsElements(int op) {
  return op == F::Op::kAmax || op == F::Op::kAmin || op == F::Op::kMax || op == F::Op::kMin || IsArg(op) ||
         op == F::Op::kAminmax;
}
// Ops that integers compute exactly (in int64); the others compute integers in double.
bool ExactOnIntegers(int op) {
  return op == F::Op::kSum || op == F::Op::kProd || op == F::Op::kAmax || op == F::Op::kAmin ||
         op == F::Op::kMax || op == F::Op::kMin || IsArg(op) || op == F::Op::kAny || op == F::Op::kAll ||
         op == F::Op::kNansum || op == F::Op::kAminmax;
}

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  return false;
}

// --- chunks of one row ----------------------------------------------------------------------------

typedef float Float8 __attribute__((vector_size(32)));
typedef Float8 LooseFloat8 __attribute__((aligned(4), may_alias));

// A float sum in 32 lanes (four 8-lane accumulators): vectorised, and closer to the exact sum
// than one running float.
ACLSIM_KERNEL(double, SumFloats, (const float* x, int64_t n), (x, n)) {
  Float8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 += *reinterpret_cast<const LooseFloat8*>(x + i);
    a1 += *reinterpret_cast<const LooseFloat8*>(x + i + 8);
    a2 += *reinterpret_cast<const LooseFloat8*>(x + i + 16);
    a3 += *reinterpret_cast<const LooseFloat8*>(x + i + 24);
  }
  const Float8 a = (a0 + a1) + (a2 + a3);
  double sum = 0;
  for (int j = 0; j < 8; ++j) sum += a[j];
  for (; i < n; ++i) sum += x[i];
  return sum;
}

// SumFloats of `count` rows `stride` floats apart, kRows side by side, each in its own four
// accumulators folded as SumFloats folds, so each row's sum is SumFloats's to the bit. Reading
// rows side by side keeps several streams from memory in flight where one row at a time waits on
// one: a [4096, 4096] sum along rows on one core, 11.6 -> 6.2 ms (AVX2, a standalone loop); through
// aclnn.reduce_sum on two simulator threads (best of five alternated processes on a loaded machine)
// 5.2 -> 2.1 ms on the AVX2 path, 5.3 -> 4.2 on AVX-512, 11.0 -> 4.3 on the baseline path, which
// takes two rows (SSE2's 16 registers hold two rows' accumulators; four spill).
ACLSIM_KERNEL(void, SumFloatRows, (const float* x, int64_t stride, int64_t n, int64_t count, double* sums),
              (x, stride, n, count, sums)) {
  constexpr int kRows = kPathLanes >= 8 ? 4 : 2;
  for (int64_t first = 0; first < count; first += kRows) {
    const int rows = static_cast<int>(std::min<int64_t>(kRows, count - first));
    if (rows < kRows) {
      for (int r = 0; r < rows; ++r) sums[first + r] = SumFloatsBody<kPathLanes>(x + (first + r) * stride, n);
      continue;
    }
    Float8 a[kRows][4] = {};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      for (int r = 0; r < kRows; ++r) {
        const float* y = x + (first + r) * stride + i;
        a[r][0] += *reinterpret_cast<const LooseFloat8*>(y);
        a[r][1] += *reinterpret_cast<const LooseFloat8*>(y + 8);
        a[r][2] += *reinterpret_cast<const LooseFloat8*>(y + 16);
        a[r][3] += *reinterpret_cast<const LooseFloat8*>(y + 24);
      }
    }
    for (int r = 0; r < kRows; ++r) {
      const float* y = x + (first + r) * stride;
      const Float8 v = (a[r][0] + a[r][1]) + (a[r][2] + a[r][3]);
      double sum = 0;
      for (int j = 0; j < 8; ++j) sum += v[j];
      for (int64_t k = i; k < n; ++k) sum += y[k];
      sums[first + r] = sum;
    }
  }
}

// The partial result of a chunk: enough for every op.
template <typename T>
struct Partial {
  double sum = 0;        // sums (float, double ops), counts
  int64_t isum = 0;      // integer sums
  T extreme{};           // amax/amin/max/min/arg*: the value (the first min of aminmax)
  T extreme2{};          // aminmax: the max
  int64_t index = -1;    // its index in the row (-1: none yet)
  int64_t index2 = -1;
  bool flag = false;     // any: seen a nonzero; all: seen a zero
  double product = 1;
  int64_t iproduct = 1;
};

// a "wins over" b for a max (min when `less`): larger, or NaN (first NaN wins), ties keep b.
template <typename T>
bool Better(T a, T b, bool less) {
  if (IsNan(b)) return false;
  if (IsNan(a)) return true;
  return less ? a < b : a > b;
}

template <typename T>
void ChunkExtreme(const T* x, int64_t begin, int64_t end, bool less, T* value, int64_t* index) {
  for (int64_t i = begin; i < end; ++i) {
    if (*index < 0 || Better(x[i], *value, less)) {
      *value = x[i];
      *index = i;
      if (IsNan(x[i])) return;
    }
  }
}

// Pass 1 of an op over x[begin, end): `center` is the row's mean (var/std) or max (logsumexp)
// from a first pass, `p` the norm's order.
template <typename T>
Partial<T> ReduceChunk(int op, const T* x, int64_t begin, int64_t end, double center, double p) {
  Partial<T> r;
  const int64_t n = end - begin;
  const T* y = x + begin;
  switch (op) {
    case F::Op::kSum: case F::Op::kMean: case F::Op::kNansum: case F::Op::kLogSum:
      if constexpr (std::is_same<T, float>::value) {
        if (op != F::Op::kNansum) {
          r.sum = SumFloats(y, n);
          break;
        }
      }
      if constexpr (std::is_integral<T>::value) {
        for (int64_t i = 0; i < n; ++i) r.isum += y[i];
      } else {
        for (int64_t i = 0; i < n; ++i) {
          if (op != F::Op::kNansum || !IsNan(y[i])) r.sum += static_cast<double>(y[i]);
        }
      }
      break;
    case F::Op::kProd:
      if constexpr (std::is_integral<T>::value) {
        for (int64_t i = 0; i < n; ++i) r.iproduct *= y[i];
      } else {
        for (int64_t i = 0; i < n; ++i) r.product *= static_cast<double>(y[i]);
      }
      break;
    case F::Op::kAmax: case F::Op::kMax: case F::Op::kArgmax:
      ChunkExtreme(x, begin, end, false, &r.extreme, &r.index);
      break;
    case F::Op::kAmin: case F::Op::kMin: case F::Op::kArgmin:
      ChunkExtreme(x, begin, end, true, &r.extreme, &r.index);
      break;
    case F::Op::kAminmax:
      ChunkExtreme(x, begin, end, true, &r.extreme, &r.index);
      ChunkExtreme(x, begin, end, false, &r.extreme2, &r.index2);
      break;
    case F::Op::kAny:
      for (int64_t i = 0; i < n && !r.flag; ++i) r.flag = y[i] != T(0);
      break;
    case F::Op::kAll:
      for (int64_t i = 0; i < n && !r.flag; ++i) r.flag = y[i] == T(0);
      break;
    case F::Op::kVar: case F::Op::kStd: case F::Op::kVarMean: case F::Op::kStdMean:
      for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(y[i]) - center;
        r.sum += d * d;
      }
      break;
    case F::Op::kNorm:
      if (std::isinf(p)) {
        r.extreme = p > 0 ? T(0) : std::numeric_limits<T>::max();
        double e = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < n; ++i) {
          const double a = std::fabs(static_cast<double>(y[i]));
          if (a != a) { e = a; break; }
          e = p > 0 ? std::max(e, a) : std::min(e, a);
        }
        r.sum = e;
      } else if (p == 0) {
        for (int64_t i = 0; i < n; ++i) r.sum += y[i] != T(0) ? 1.0 : 0.0;
      } else if (p == 1) {
        for (int64_t i = 0; i < n; ++i) r.sum += std::fabs(static_cast<double>(y[i]));
      } else if (p == 2) {
        for (int64_t i = 0; i < n; ++i) r.sum += static_cast<double>(y[i]) * static_cast<double>(y[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) r.sum += std::pow(std::fabs(static_cast<double>(y[i])), p);
      }
      break;
    case F::Op::kLogsumexp:
      for (int64_t i = 0; i < n; ++i) r.sum += std::exp(static_cast<double>(y[i]) - center);
      break;
  }
  return r;
}

template <typename T>
void Combine(int op, double p, Partial<T>* into, const Partial<T>& next) {
  into->sum = (op == F::Op::kNorm && std::isinf(p))
                  ? ((into->sum != into->sum || next.sum != next.sum) ? std::numeric_limits<double>::quiet_NaN()
                     : p > 0 ? std::max(into->sum, next.sum) : std::min(into->sum, next.sum))
                  : into->sum + next.sum;
  into->isum += next.isum;
  into->product *= next.product;
  into->iproduct *= next.iproduct;
  into->flag = into->flag || next.flag;
  const bool less = op == F::Op::kAmin || op == F::Op::kMin || op == F::Op::kArgmin || op == F::Op::kAminmax;
  if (next.index >= 0 && (into->index < 0 || Better(next.extreme, into->extreme, less))) {
    into->extreme = next.extreme;
    into->index = next.index;
  }
  if (next.index2 >= 0 && (into->index2 < 0 || Better(next.extreme2, into->extreme2, false))) {
    into->extreme2 = next.extreme2;
    into->index2 = next.index2;
  }
}

// One row's pass, cut into chunks reduced in parallel when `parallel` (combined in order).
template <typename T>
Partial<T> ReduceRow(int op, const T* x, int64_t n, double center, double p, bool parallel) {
  if (!parallel || n < kParallelRow) {
    Partial<T> r = ReduceChunk(op, x, 0, n, center, p);
    if (op == F::Op::kNorm && std::isinf(p) && n == 0) r.sum = 0;
    return r;
  }
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Partial<T>> partials(static_cast<size_t>(chunks));
  const int64_t tasks = TaskCount(chunks, n);
  ParallelFor(tasks, [&](int64_t task) {
    for (int64_t c = chunks * task / tasks; c < chunks * (task + 1) / tasks; ++c) {
      partials[static_cast<size_t>(c)] = ReduceChunk(op, x, c * kChunk, std::min(n, (c + 1) * kChunk), center, p);
    }
  });
  Partial<T> r = partials[0];
  for (int64_t c = 1; c < chunks; ++c) Combine(op, p, &r, partials[static_cast<size_t>(c)]);
  return r;
}

template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
void FinishRow(int op, const Partial<T>& r, int64_t n, double p, T* value, T* second, int64_t* index);

// The results of one row: value (and second value), index.
template <typename T>
void ReduceOne(int op, const T* x, int64_t n, double correction, double p, bool parallel, T* value, T* second,
               int64_t* index) {
  switch (op) {
    case F::Op::kVar: case F::Op::kStd: case F::Op::kVarMean: case F::Op::kStdMean: {
      const Partial<T> s = ReduceRow<T>(F::Op::kMean, x, n, 0, p, parallel);
      const double mean = (std::is_integral<T>::value ? static_cast<double>(s.isum) : s.sum) / static_cast<double>(n);
      const Partial<T> q = ReduceRow<T>(op, x, n, mean, p, parallel);
      const double var = q.sum / std::max(0.0, static_cast<double>(n) - correction);
      const bool root = op == F::Op::kStd || op == F::Op::kStdMean;
      *value = FromDouble<T>(root ? std::sqrt(var) : var);
      *second = FromDouble<T>(mean);
      return;
    }
    case F::Op::kLogsumexp: {
      const Partial<T> m = ReduceRow<T>(F::Op::kAmax, x, n, 0, p, parallel);
      const double top = m.index < 0 ? -std::numeric_limits<double>::infinity() : static_cast<double>(m.extreme);
      if (std::isinf(top) || top != top) {  // all -inf (or none): -inf; an +inf or a NaN passes
        *value = FromDouble<T>(top);
        return;
      }
      const Partial<T> s = ReduceRow<T>(op, x, n, top, p, parallel);
      *value = FromDouble<T>(top + std::log(s.sum));
      return;
    }
    default: break;
  }
  FinishRow<T>(op, ReduceRow<T>(op, x, n, 0, p, parallel), n, p, value, second, index);
}

// The results of a row of n elements from its pass (the ops of one pass).
template <typename T>
void FinishRow(int op, const Partial<T>& r, int64_t n, double p, T* value, T* second, int64_t* index) {
  const bool integral = std::is_integral<T>::value;
  switch (op) {
    case F::Op::kSum: case F::Op::kNansum:
      *value = integral ? static_cast<T>(r.isum) : FromDouble<T>(r.sum);
      break;
    case F::Op::kLogSum:
      *value = FromDouble<T>(std::log(integral ? static_cast<double>(r.isum) : r.sum));
      break;
    case F::Op::kMean:
      *value = FromDouble<T>((integral ? static_cast<double>(r.isum) : r.sum) / static_cast<double>(n));
      break;
    case F::Op::kProd:
      *value = integral ? static_cast<T>(r.iproduct) : FromDouble<T>(r.product);
      break;
    case F::Op::kAmax: case F::Op::kAmin: case F::Op::kMax: case F::Op::kMin:
    case F::Op::kArgmax: case F::Op::kArgmin:
      *value = r.extreme;
      *index = r.index;
      break;
    case F::Op::kAminmax:
      *value = r.extreme;
      *second = r.extreme2;
      break;
    case F::Op::kAny: *value = T(r.flag ? 1 : 0); break;
    case F::Op::kAll: *value = T(r.flag ? 0 : 1); break;
    case F::Op::kNorm:
      *value = FromDouble<T>(std::isinf(p) || p == 0 || p == 1 ? r.sum : p == 2 ? std::sqrt(r.sum)
                                                                                : std::pow(r.sum, 1.0 / p));
      break;
    default: break;
  }
}

// A sum or mean over a block of dimensions followed by kept ones, of a dense input in the compute
// type: out[o, k] = sum over r of x[o, r, k]. Each task adds whole rows of k (contiguous, so the
// loop vectorises) into its block of accumulators, instead of gathering a transposed copy of the
// input for the row-by-row path: float lanes over runs of kColumnRun rows, folded into double (the
// row path's float chunks and double combination, along the other axis). Tasks split the rows
// into slices of a fixed size whose double totals are added in order, so that the result is the
// same whatever the number of threads.
constexpr int64_t kColumnBlock = 2048;           // accumulators per task: 16 KiB of double
constexpr int64_t kColumnRun = 256;              // rows summed in float before a fold into double
constexpr int64_t kColumnSlice = 8 * kColumnRun; // rows per task

// run[k] += row[k], and total[k] += run[k] in double: the column path's two loops.
ACLSIM_KERNEL(void, AddRow, (float* run, const float* row, int64_t n), (run, row, n)) {
  for (int64_t k = 0; k < n; ++k) run[k] += row[k];
}
ACLSIM_KERNEL(void, AddRow, (double* run, const double* row, int64_t n), (run, row, n)) {
  for (int64_t k = 0; k < n; ++k) run[k] += row[k];
}
template <typename T>
void AddRow(T* run, const T* row, int64_t n) {  // integers: not summed by columns (int64 exact path)
  for (int64_t k = 0; k < n; ++k) run[k] += row[k];
}
template <typename T>
void Fold(double* total, const T* run, int64_t n) {
  for (int64_t k = 0; k < n; ++k) total[k] += static_cast<double>(run[k]);
}

template <typename T>
void SumColumns(const T* x, int64_t outer, int64_t rows, int64_t inner, bool mean, T* out) {
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t slices = (rows + kColumnSlice - 1) / kColumnSlice;
  double* totals = static_cast<double*>(Scratch(2, static_cast<size_t>(slices * outer * inner) * sizeof(double)));
  auto task = [&](int64_t t) {
    const int64_t slice = t % slices, block = t / slices % blocks, o = t / slices / blocks;
    const int64_t begin = block * kColumnBlock, n = std::min(kColumnBlock, inner - begin);
    const int64_t first = slice * kColumnSlice, end = std::min(rows, first + kColumnSlice);
    double* total = totals + (slice * outer + o) * inner + begin;
    std::fill(total, total + n, 0.0);
    T run[kColumnBlock];
    for (int64_t r0 = first; r0 < end; r0 += kColumnRun) {
      std::fill(run, run + n, T(0));
      for (int64_t r = r0; r < std::min(end, r0 + kColumnRun); ++r) AddRow(run, x + (o * rows + r) * inner + begin, n);
      Fold(total, run, n);
    }
  };
  const int64_t tasks = outer * blocks * slices;
  if (tasks > 1 && outer * rows * inner >= (1 << 15)) {
    ParallelFor(tasks, task);
  } else {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  }
  for (int64_t i = 0; i < outer * inner; ++i) {
    double sum = totals[i];
    for (int64_t s = 1; s < slices; ++s) sum += totals[s * outer * inner + i];
    out[i] = static_cast<T>(mean ? sum / static_cast<double>(rows) : sum);
  }
}

class ReduceWork final : public FamilyWork {
 public:
  ReduceWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  uint64_t reduced = 0;  // bit d: dimension d of self is reduced
  double correction = 1, p = 2;
  bool identity = false;  // an empty dimension list with noop_with_empty_dims: out = self

 private:
  aclnnStatus Compute() override {
    const TensorRef& self = tensor(kSelf);
    if (identity) {
      // In the compute type (at most 8 bytes an element): FLOAT16 through float is exact.
      void* buffer = Scratch(1, static_cast<size_t>(std::max<int64_t>(self.numel(), 1)) * sizeof(double));
      GatherAs(self, type, buffer);
      ScatterFrom(buffer, type, tensor(kOut));
      return ACLNN_SUCCESS;
    }
    const int64_t rank = self.rank();
    int64_t order[16];
    int64_t k = 0, outer = 1, length = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (!(reduced >> d & 1)) order[k++] = d, outer *= self.shape[d];
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (reduced >> d & 1) order[k++] = d, length *= self.shape[d];
    }
    if (outer == 0) return ACLNN_SUCCESS;
    if (SumsColumns()) return ACLNN_SUCCESS;
    const TensorRef rows = self.Permuted(order);
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* x = static_cast<const T*>(ContiguousAs(rows, type, 0));
      T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(outer) * sizeof(T)));
      T* seconds = static_cast<T*>(Scratch(2, static_cast<size_t>(outer) * sizeof(T)));
      int64_t* indices = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(outer) * sizeof(int64_t)));
      const bool few = outer < ParallelThreads() * 2;
      auto row = [&](int64_t o, bool parallel) {
        int64_t index = 0;
        ReduceOne<T>(op_, x + o * length, length, correction, p, parallel, &values[o], &seconds[o], &index);
        indices[o] = index;
      };
      // Rows of one pass each (no parallel chunks): float sums read several rows side by side.
      auto rows_of = [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same<T, float>::value) {
          if (op_ == F::Op::kSum || op_ == F::Op::kMean || op_ == F::Op::kLogSum) {
            double sums[16];
            for (int64_t o = begin; o < end; o += 16) {
              const int64_t count = std::min<int64_t>(16, end - o);
              SumFloatRows(x + o * length, length, length, count, sums);
              for (int64_t r = 0; r < count; ++r) {
                Partial<T> partial;
                partial.sum = sums[r];
                FinishRow<T>(op_, partial, length, p, &values[o + r], &seconds[o + r], &indices[o + r]);
              }
            }
            return;
          }
        }
        for (int64_t o = begin; o < end; ++o) row(o, false);
      };
      if (few) {
        for (int64_t o = 0; o < outer; ++o) row(o, true);
      } else if (outer * length < (1 << 15)) {
        rows_of(0, outer);
      } else {
        const int64_t tasks = TaskCount(outer, outer * length);
        ParallelFor(tasks, [&](int64_t task) { rows_of(outer * task / tasks, outer * (task + 1) / tasks); });
      }
      if (IsArg(op_)) {
        ScatterFrom(indices, ComputeType::kInt64, tensor(kOut));
      } else {
        ScatterFrom(values, type, tensor(kOut));
      }
      if (HasIndices(op_) && tensor(kIndices).dtype != ACL_DT_UNDEFINED) {
        ScatterFrom(indices, ComputeType::kInt64, tensor(kIndices));
      }
      if (tensor(kSecond).dtype != ACL_DT_UNDEFINED) ScatterFrom(seconds, type, tensor(kSecond));
    });
    return ACLNN_SUCCESS;
  }

  // The column path (SumColumns) where it applies: a sum or mean in floating point of a dense
  // input of the compute type whose reduced dimensions are one block with kept ones after it.
  bool SumsColumns() {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    if ((op_ != F::Op::kSum && op_ != F::Op::kMean) || type == ComputeType::kInt64 || rank < 2 ||
        self.dtype != StorageOf(type) || !self.Contiguous() || (reduced >> (rank - 1) & 1)) {
      return false;
    }
    int64_t first = 0;
    while (first < rank && !(reduced >> first & 1)) ++first;
    int64_t last = first;
    while (last < rank && (reduced >> last & 1)) ++last;
    if (first == rank || (reduced >> last) != 0) return false;  // none reduced, or two blocks
    int64_t outer = 1, rows = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < first ? outer : d < last ? rows : inner) *= self.shape[d];
    if (rows == 0 || inner == 0) return false;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(outer * inner) * sizeof(T)));
      SumColumns(reinterpret_cast<const T*>(self.first), outer, rows, inner, op_ == F::Op::kMean, values);
      ScatterFrom(values, type, tensor(kOut));
    });
    return true;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanReduce(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  // The global pools are mean and amax over the dimensions after the first two, kept.
  const bool global = family.op == F::Op::kGlobalMean || family.op == F::Op::kGlobalAmax;
  const int op = family.op == F::Op::kGlobalMean   ? static_cast<int>(F::Op::kMean)
                 : family.op == F::Op::kGlobalAmax ? static_cast<int>(F::Op::kAmax)
                                                   : static_cast<int>(family.op);
  SourceAndOutput found;
  if (!ReadSourceAndOutput(call, family, F::Role::kSelf, F::Role::kOut, work, &found)) return ACLNN_SUCCESS;
  const auto [self, out, rank] = found;

  Dims dims;
  if (global) {
    if (rank < 3) {
      return RejectInvalid(call, family, F::Role::kSelf,
                           "rank " + std::to_string(rank) + " has no dimension after N and C to pool");
    }
    for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
  }
  const bool given = global || RoleInts(call, family, F::Role::kDim, &dims);
  const bool noop = RoleBool(call, family, F::Role::kNoopWithEmptyDims, false);
  const bool identity = given && dims.empty() && noop;
  // The reduced dimensions and the output's shape as the bindings' "reduce" rule derives them
  // (aclnn_bindgen/reduce_shape.h).
  uint64_t reduced = 0;
  int64_t culprit = 0;
  switch (aclnn_bindgen::ReducedMask(rank, given ? &dims : nullptr, noop, &reduced, &culprit)) {
    case aclnn_bindgen::kReduceOk:
      break;
    case aclnn_bindgen::kReduceOutOfRange:
      return RejectDim(call, family, F::Role::kDim, culprit, rank);
    case aclnn_bindgen::kReduceRepeated:
      return RejectInvalid(call, family, F::Role::kDim,
                           "dimension " + std::to_string(culprit) + " appears more than once");
    case aclnn_bindgen::kReduceRank:
      return RejectInvalid(call, family, F::Role::kSelf,
                           "rank " + std::to_string(rank) + " is more than the 64 dimensions a reduction takes");
  }
  const bool keepdim = global || RoleBool(call, family, F::Role::kKeepdim, false);
  // `shape` in keepdim's form, `other_form` in the other one: an output may take either
  // (gen.conventions, convention 4: CANN copies the result into the output it is given, the same
  // elements in the same order; the outputs are written in their own row-major order).
  const Dims shape = aclnn_bindgen::ReducedShape(self->view, reduced, keepdim);
  const Dims other_form = aclnn_bindgen::ReducedShape(self->view, reduced, !keepdim);
  int64_t length = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced >> d & 1) length *= self->view[d];
  }
  if (NeedsElements(op) && length == 0 && self->numel() == 0 && rank > 0) {
    return RejectInvalid(call, family, F::Role::kSelf,
                         "cannot reduce an empty dimension with " + std::string(F::kOpNames[op]));
  }
  ComputeType type;
  if (!FamilyComputeType(self->dtype, ExactOnIntegers(op), &type)) {
    return DeclineDtype(call, work, self->dtype);
  }

  ReduceWork* made = new ReduceWork(call.spec.name, op);
  std::unique_ptr<ReduceWork> owned(made);
  made->type = type;
  made->reduced = reduced;
  made->identity = identity;
  if (const Call::Param* unbiased = RoleParam(call, family, F::Role::kUnbiased)) {
    (void)unbiased;
    made->correction = RoleBool(call, family, F::Role::kUnbiased, true) ? 1 : 0;
  } else {
    made->correction = RoleNumber(call, family, F::Role::kCorrection, F::Option::kCorrection, 1);
  }
  made->p = RoleNumber(call, family, F::Role::kP, F::Option::kP, 2);
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  // A reduction to one value may be written to a one-element tensor of any rank.
  auto keep = [&](int role, const TensorDesc* t, int slot) {
    const Dims& form = t->view == other_form ? other_form : shape;
    return made->KeepOutput(call, family, role, *t, form, "the reduced shape", slot, /*one_value=*/true);
  };
  if (aclnnStatus s = keep(F::Role::kOut, out, kOut)) return s;
  if (HasIndices(op)) {
    if (const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices)) {
      if (aclnnStatus s = keep(F::Role::kIndices, indices, kIndices)) return s;
    }
  }
  const int second = op == F::Op::kAminmax ? F::Role::kMaxOut : F::Role::kMean;
  if (const TensorDesc* t = RoleTensor(call, family, second)) {
    if (aclnnStatus s = keep(second, t, kSecond)) return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
