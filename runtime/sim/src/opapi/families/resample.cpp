// The resample family: the aclnnUpsample* APIs (F.interpolate and nn.Upsample reach them through
// op-plugin) and their backward, as aten's CPU kernels (aten/src/ATen/native/UpSample.h):
//   nearest        in = min(floor(o * scale), in_size - 1), scale in float
//   nearest_exact  in = min(floor((o + 0.5) * scale), in_size - 1)
//   linear         the two neighbours of the source coordinate, weights (1 - l, l); the coordinate
//                  is scale * o with alignCorners, else scale * (o + 0.5) - 0.5 clamped at 0
//   cubic          the four neighbours of the unclamped coordinate, Keys' kernel with A = -0.75,
//                  indices clamped to the input (linear's coordinate, without the clamp)
// over the trailing `spatial` (1 to 3) dimensions of the planes the leading two (N, C) enumerate;
// separable: an output point is the sum over the product of each axis's taps. scale is
// (in - 1) / (out - 1) with alignCorners, else 1 / the caller's scale where that is positive, else
// in / out. The backward ops add each gradient back at the forward's taps with the forward's
// weights (the adjoint); planes are independent, so they are spread over the threads and the
// additions never race. Computed in float for FLOAT, FLOAT16 and BFLOAT16 (aten's opmath), in
// double for DOUBLE. Channels-last formats (NHWC, NDHWC) are declined by name.
//
// The antialiased ops (linear_aa, cubic_aa and their backward: aclnnUpsampleBilinear2dAA,
// aclnnUpsampleBicubic2dAA, aclnnUpsampleBilinear2dAABackward, aclnnUpsampleBicubic2dAAGrad) follow
// aten's separable antialias kernel (UpSampleKernel.cpp, PIL's resampling): per axis, the output i's
// centre is step * (i + 0.5) and its window reaches support = taps / 2 * step either side when
// downsampling (step >= 1; taps / 2 upsampling), the filter (the triangle, or Keys' cubic with
// A = -0.5) read at the input pixels' distances over max(step, 1), the weights normalised to sum 1.
// The forward resamples the last axis, then the one before into that (an axis of unchanged size is
// left alone, the output equal to the input copied); the backward adds each gradient at the
// product of its two axes' weights, output by output as aten's loop does.
#include <emmintrin.h>  // SSE2, the baseline path's vectors (FusedInDouble4)

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = ResampleFamily;

enum Slot { kSource, kOut, kSlots };

constexpr int kMaxSpatial = 3;

enum class Mode { kNearest, kNearestExact, kLinear, kCubic };

struct OpTraits {
  Mode mode;
  bool backward;
  bool antialias = false;
};

OpTraits TraitsOf(int op) {
  switch (op) {
    case F::Op::kNearest: return {Mode::kNearest, false};
    case F::Op::kNearestExact: return {Mode::kNearestExact, false};
    case F::Op::kLinear: return {Mode::kLinear, false};
    case F::Op::kCubic: return {Mode::kCubic, false};
    case F::Op::kLinearAa: return {Mode::kLinear, false, true};
    case F::Op::kCubicAa: return {Mode::kCubic, false, true};
    case F::Op::kNearestBackward: return {Mode::kNearest, true};
    case F::Op::kNearestExactBackward: return {Mode::kNearestExact, true};
    case F::Op::kLinearBackward: return {Mode::kLinear, true};
    case F::Op::kLinearAaBackward: return {Mode::kLinear, true, true};
    case F::Op::kCubicAaBackward: return {Mode::kCubic, true, true};
    default: return {Mode::kCubic, true};
  }
}

int TapsOf(Mode mode) { return mode == Mode::kCubic ? 4 : mode == Mode::kLinear ? 2 : 1; }

// One axis: for each output index, TapsOf(mode) input indices and their weights.
template <typename T>
struct Axis {
  int64_t in = 1, out = 1;
  int width = 1;
  std::vector<int64_t> index;
  std::vector<T> weight;
};

// aten's area_pixel_compute_scale: the step between output and input coordinates.
template <typename T>
T AxisScale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale > 0 ? static_cast<T>(1.0 / scale) : static_cast<T>(in) / static_cast<T>(out);
}

template <typename T>
T CubicNear(T x, T a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }  // |x| <= 1
template <typename T>
T CubicFar(T x, T a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }  // 1 < |x| < 2

// Whether aten's CPU kernels take an axis whose input and output sizes are equal as the identity,
// whatever the caller's scale (a given scale of 2 would otherwise resample it). Measured op by op on
// torch 2.13 (one axis equal, its scale 2 against 1, every dtype): the linear modes forward and
// backward, the nearest backwards and upsample_nearest2d's forward do; the 1-D and 3-D nearest
// forwards, nearest-exact and bicubic use the scale. The bicubic backward is the identity only where
// every axis is (Run's copy).
bool ScaleIgnoredAtEqualSize(Mode mode, bool backward, int spatial) {
  switch (mode) {
    case Mode::kLinear:
      return true;
    case Mode::kNearest:
      return backward || spatial == 2;
    case Mode::kNearestExact:
    case Mode::kCubic:
      return false;
  }
  return false;
}

template <typename T>
Axis<T> MakeAxis(Mode mode, bool backward, int64_t in, int64_t out, bool align_corners, double scale) {
  Axis<T> axis;
  axis.in = in;
  axis.out = out;
  axis.width = TapsOf(mode);
  axis.index.resize(static_cast<size_t>(out * axis.width));
  axis.weight.resize(static_cast<size_t>(out * axis.width));
  if (mode == Mode::kNearest || mode == Mode::kNearestExact) {
    // In float whatever the dtype, as aten's nearest kernels compute their indices.
    const float step = AxisScale<float>(in, out, false, scale);
    for (int64_t o = 0; o < out; ++o) {
      const float at = mode == Mode::kNearest ? static_cast<float>(o) * step
                                              : static_cast<float>((static_cast<double>(o) + 0.5) * step);
      axis.index[static_cast<size_t>(o)] = std::min(static_cast<int64_t>(std::floor(at)), in - 1);
      axis.weight[static_cast<size_t>(o)] = T(1);
    }
    return axis;
  }
  const T step = AxisScale<T>(in, out, align_corners, scale);
  const bool cubic = mode == Mode::kCubic;
  // One rounding, as aten's kernels compute it (compiled with FMA contraction for the AVX2 and
  // AVX-512 CPUs they run on): at a coordinate exactly between two inputs, the two roundings of a
  // separate product would swap the neighbours' weights. But the bicubic backward's
  // (UpSampleBicubic2d.cpp) is compiled once, without FMA: its product is rounded (this file is
  // compiled without contraction).
  const bool fused = !(cubic && backward);
  for (int64_t o = 0; o < out; ++o) {
    const T half_after = static_cast<T>(o) + T(0.5);
    T source = align_corners ? step * static_cast<T>(o)
               : fused       ? std::fma(step, half_after, T(-0.5))
                             : step * half_after - T(0.5);
    if (!cubic && !align_corners && source < 0) source = 0;
    // aten's guard_index_and_lambda.
    const int64_t first = std::min(static_cast<int64_t>(std::floor(source)), in - 1);
    const T lambda = std::min(std::max(source - static_cast<T>(first), T(0)), T(1));
    int64_t* index = &axis.index[static_cast<size_t>(o * axis.width)];
    T* weight = &axis.weight[static_cast<size_t>(o * axis.width)];
    if (!cubic) {
      index[0] = first;
      index[1] = first + (first < in - 1 ? 1 : 0);
      weight[0] = T(1) - lambda;
      weight[1] = lambda;
      continue;
    }
    // aten's get_cubic_upsample_coefficients: the last tap's distance is (1 - lambda) + 1, two
    // roundings (2 - lambda in one gave other weights where 1 - lambda is inexact).
    const T a = T(-0.75), opposite = 1 - lambda;
    weight[0] = CubicFar<T>(lambda + 1, a);
    weight[1] = CubicNear<T>(lambda, a);
    weight[2] = CubicNear<T>(opposite, a);
    weight[3] = CubicFar<T>(opposite + 1, a);
    for (int j = 0; j < 4; ++j) index[j] = std::max<int64_t>(std::min<int64_t>(first - 1 + j, in - 1), 0);
  }
  return axis;
}

// One plane's work: the axes' tables (three, the missing leading ones one tap of weight 1), the
// source and the destination (zeroed for a backward op), and which of aten's orders to follow.
struct ByInput;

template <typename T>
struct PlaneJob {
  const Axis<T>* axes;
  Mode mode;
  bool backward;
  bool flat_linear;  // the forward's one sum of products (see Run)
  // The last axis turned round for a float backward: the bicubic's on every path, the linear and
  // nearest's on the baseline path.
  const ByInput* by_input;
};

// The hot loop, built for each code path (ACLSIM_KERNEL): a fused multiply-add is one instruction
// on the AVX2 and AVX-512 paths and the same correctly rounded result on the baseline's. Rows of
// the input each tap reads are found once per output row; the last axis's taps index within them.
//
// On the baseline path std::fma is a library routine (ten times slower), so a float fused
// multiply-add is computed in double: the product is exact there, and the sum rounded to float is
// the fused result unless the double sum was itself rounded, onto a point halfway between two
// floats (its 29 bits below float's a one and zeros), where the second rounding goes to even
// whichever side the exact sum lay: that rare sum moves one double ulp towards the exact one, off
// the halfway point. The sum's rounding error (TwoSum's, exact) says whether it was rounded and
// which side the exact sum lies. Halfway sums are common (0.75 * x often is one) but rounded ones
// rare, so the branch is taken rarely; among the float subnormals no double sum is rounded (a
// product small enough to be cut off is smaller than half their step).
static inline __attribute__((always_inline)) float FusedInDouble(float a, float b, float c) {
  const double product = static_cast<double>(a) * static_cast<double>(b), addend = static_cast<double>(c);
  const double sum = product + addend;
  const double addend_part = sum - product;
  const double error = (product - (sum - addend_part)) + (addend - addend_part);
  uint64_t bits;
  std::memcpy(&bits, &sum, sizeof bits);
  if (__builtin_expect(error != 0, 0) && (bits & 0x1fffffffu) == 0x10000000u) {
    // Inline: a call here would make every iteration keep its registers across it.
    bits += (error > 0) == (sum > 0) ? 1 : ~uint64_t{0};  // +1 on the bits is away from zero
    double moved;
    std::memcpy(&moved, &bits, sizeof moved);
    return static_cast<float>(moved);
  }
  return static_cast<float>(sum);
}

// Four floats in one vector, and the halves FusedInDouble4 works on in double: GCC's generic
// vectors the size of the baseline path's SSE2 registers (wider ones it splits, and scalarises
// their masks), converted by SSE2's own instructions (GCC's generic conversions of two floats go
// one element at a time).
typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef float Floats16 __attribute__((vector_size(64)));
// The floats of a path's vector (GCC drops vector_size on a typedef that depends on a template's
// argument, so each width is spelt).
template <int kLanes>
using FloatLanes = std::conditional_t<kLanes == 4, Floats4, std::conditional_t<kLanes == 8, Floats8, Floats16>>;
typedef double Doubles2 __attribute__((vector_size(16)));
typedef int32_t Words4 __attribute__((vector_size(16)));

// FusedInDouble's correction on two lanes of double sums and their TwoSum errors, without its
// branch (a lane cannot take it alone), in SSE2's 32-bit integer operations (it has no 64-bit
// compare): the halfway pattern lies in a double's low word, and moving it by one unit neither
// carries nor borrows into the high word, whose sign bit says which way.
static inline __attribute__((always_inline)) Doubles2 OffHalfway2(Doubles2 sum, Doubles2 error) {
  const Words4 words = __builtin_bit_cast(Words4, sum);
  const Words4 rounded = __builtin_bit_cast(Words4, error != 0);
  // True in the low words alone (a high word's 0 is never -1).
  const Words4 halfway = (words & Words4{0x1fffffff, 0, 0x1fffffff, 0}) == Words4{0x10000000, -1, 0x10000000, -1};
  const Words4 signs = (__builtin_bit_cast(Words4, error) ^ words) >> 31;  // -1 in a high word where they differ
  const Words4 toward = __builtin_shufflevector(signs, signs, 1, 1, 3, 3) | 1;  // +1 away from zero, else -1
  return __builtin_bit_cast(Doubles2, words + (halfway & rounded & toward));
}

// The sum of a float product exact in double and a float addend, and its rounding error (TwoSum).
static inline __attribute__((always_inline)) Doubles2 SumWithError2(Doubles2 product, Doubles2 addend, Doubles2* error) {
  const Doubles2 sum = product + addend;
  const Doubles2 addend_part = sum - product;
  *error = (product - (sum - addend_part)) + (addend - addend_part);
  return sum;
}

// Rounded sums are rare where the operands' magnitudes are near (an input's neighbours), so four
// lanes none of which was rounded skip the correction (one well-predicted branch).
static inline __attribute__((always_inline)) Floats4 FusedInDouble4(Floats4 a, Floats4 b, Floats4 c) {
  Doubles2 low_error, high_error;
  Doubles2 low = SumWithError2(_mm_cvtps_pd(a) * _mm_cvtps_pd(b), _mm_cvtps_pd(c), &low_error);
  Doubles2 high = SumWithError2(_mm_cvtps_pd(_mm_movehl_ps(a, a)) * _mm_cvtps_pd(_mm_movehl_ps(b, b)),
                                _mm_cvtps_pd(_mm_movehl_ps(c, c)), &high_error);
  // SSE2's own compare and or: GCC's generic (e != 0) | (f != 0) went through the integer registers
  // lane by lane (objdump), a quarter of the loop's samples.
  const Doubles2 zero{};
  if (__builtin_expect(_mm_movemask_pd(_mm_or_pd(_mm_cmpneq_pd(low_error, zero), _mm_cmpneq_pd(high_error, zero))) != 0,
                       0)) {
    low = OffHalfway2(low, low_error);
    high = OffHalfway2(high, high_error);
  }
  return _mm_movelh_ps(_mm_cvtpd_ps(low), _mm_cvtpd_ps(high));
}

template <int kPathLanes, typename T>
static inline __attribute__((always_inline)) T Fused(T a, T b, T c) {
  if constexpr (std::is_same<T, Floats4>::value) {
    static_assert(kPathLanes == 4, "four lanes of floats are the baseline path's");
    return FusedInDouble4(a, b, c);
  } else if constexpr (kPathLanes == 4 && std::is_same<T, float>::value) {
    return FusedInDouble(a, b, c);
  } else {
    return std::fma(a, b, c);
  }
}

// A weight as a value of V: itself, or in each lane of a vector.
template <typename V, typename T>
static inline __attribute__((always_inline)) V Splat(T weight) {
  if constexpr (std::is_same<V, Floats4>::value) {
    return Floats4{weight, weight, weight, weight};
  } else {
    return weight;
  }
}

// The values at p as V: one, or four in a vector.
template <typename V>
static inline __attribute__((always_inline)) V Load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// One axis's sum of its taps' values times their weights, in aten's order (see the generic loop);
// W the tap count where known at compile time, 0 where not (then `width`). The last axis's, over
// the input row's elements at `taps`, for one output (V = T) or four adjacent ones (V = Floats4,
// whose taps follow one another in the axis's table, `width` apart, and whose weights are given tap
// by tap, four to a tap):
template <int kPathLanes, int W, typename V, typename T>
static inline __attribute__((always_inline)) V TapSum(int width, const T* row, const int64_t* taps, const T* weights) {
  const int w = W ? W : width;
  auto value = [&](int j) __attribute__((always_inline)) {
    if constexpr (std::is_same<V, Floats4>::value) {
      return Floats4{row[taps[j]], row[taps[w + j]], row[taps[2 * w + j]], row[taps[3 * w + j]]};
    } else {
      return row[taps[j]];
    }
  };
  auto weight = [&](int j) __attribute__((always_inline)) {
    if constexpr (std::is_same<V, Floats4>::value) {
      return Load<Floats4>(weights + 4 * j);
    } else {
      return weights[j];
    }
  };
  if (w == 1) return value(0);
  if (w == 2) return Fused<kPathLanes>(value(0), weight(0), value(1) * weight(1));
  V sum = value(0) * weight(0);
  for (int j = 1; j < w; ++j) sum = Fused<kPathLanes>(value(j), weight(j), sum);
  return sum;
}

// An outer axis's, tap by tap: the sum so far with tap j's `value` (the inner axes' sum) taken in;
// `first` keeps tap 0's value for two taps, whose sum waits for the second.
// V is T, or Floats4 for four outputs at once.
template <int kPathLanes, int W, typename V, typename T>
static inline __attribute__((always_inline)) V NextTap(int width, int j, V value, const T* weights, V* first, V sum) {
  const int w = W ? W : width;
  if (w == 1) return value;
  if (w == 2) {
    if (j == 0) {
      *first = value;
      return sum;
    }
    return Fused<kPathLanes>(*first, Splat<V>(weights[0]), value * weights[1]);
  }
  return j == 0 ? value * weights[0] : Fused<kPathLanes>(value, Splat<V>(weights[j]), sum);
}

// The baseline path's forward linear and cubic sums for float in aten's generic order (the loop in
// ResamplePlane), computed in two passes whose every operation is that loop's: the last axis's sum
// of an input row, for every output column, once for all the output rows that read it (the loop
// computes it again for each), then the outer axes' sums over those rows four columns at a time,
// contiguous. The baseline's exact fused multiply-add is a TwoSum and its masks where an FMA unit's
// is one instruction: this halves how many a 2-D output takes and puts them in vectors. The rows' sums are kept in
// slots keyed by the row's index modulo each axis's tap count: an axis's taps are consecutive
// indices (clamped), so the rows one output row reads take distinct slots and the next output
// row finds the ones it shares. A row whose slot another of the same output row's rows holds
// (taps further apart than their count, which no mode's table makes) is summed into a spare.
template <int W0, int W1, int W2>
static inline __attribute__((always_inline)) void ResampleFloatPlaneByRows(const PlaneJob<float>& job, const float* from,
                                                                           float* to) {
  const Axis<float>& x0 = job.axes[0];
  const Axis<float>& x1 = job.axes[1];
  const Axis<float>& x2 = job.axes[2];
  const int w0 = W0 ? W0 : x0.width, w1 = W1 ? W1 : x1.width, w2 = W2 ? W2 : x2.width;
  const int64_t columns = x2.out;
  const int slots = w0 * w1;
  thread_local std::vector<float> row_sums;  // slots, then as many spares
  thread_local std::vector<int64_t> slot_rows;  // the input row each slot holds the sums of, -1 none
  thread_local std::vector<float> lane_weights;  // the last axis's weights, four outputs' tap by tap
  row_sums.resize(static_cast<size_t>(2 * slots * columns));
  slot_rows.assign(static_cast<size_t>(slots), -1);
  const int64_t* taps = x2.index.data();
  const float* weights = x2.weight.data();
  const int64_t vectors = columns / 4;
  lane_weights.resize(static_cast<size_t>(vectors * 4 * w2));
  for (int64_t v = 0; v < vectors; ++v) {
    for (int j = 0; j < w2; ++j) {
      for (int lane = 0; lane < 4; ++lane) {
        lane_weights[static_cast<size_t>((v * w2 + j) * 4 + lane)] = weights[(v * 4 + lane) * w2 + j];
      }
    }
  }
  auto sum_row = [&](int64_t row, float* sums) __attribute__((always_inline)) {
    const float* values = from + row * x2.in;
    for (int64_t v = 0; v < vectors; ++v) {
      const Floats4 sum = TapSum<4, W2, Floats4>(w2, values, taps + v * 4 * w2, &lane_weights[static_cast<size_t>(v * 4 * w2)]);
      std::memcpy(sums + v * 4, &sum, sizeof sum);
    }
    for (int64_t o2 = vectors * 4; o2 < columns; ++o2) {
      sums[o2] = TapSum<4, W2, float>(w2, values, taps + o2 * w2, weights + o2 * w2);
    }
  };
  for (int64_t o0 = 0; o0 < x0.out; ++o0) {
    const int64_t* ia = &x0.index[static_cast<size_t>(o0 * w0)];
    const float* wa = &x0.weight[static_cast<size_t>(o0 * w0)];
    for (int64_t o1 = 0; o1 < x1.out; ++o1) {
      const int64_t* ib = &x1.index[static_cast<size_t>(o1 * w1)];
      const float* wb = &x1.weight[static_cast<size_t>(o1 * w1)];
      const float* sums[4][4];
      int64_t taken_rows[16];
      int taken_slots[16];
      for (int a = 0, k = 0; a < w0; ++a) {
        for (int b = 0; b < w1; ++b, ++k) {
          const int64_t row = ia[a] * x1.in + ib[b];
          const int slot = static_cast<int>(ia[a] % w0) * w1 + static_cast<int>(ib[b] % w1);
          bool held = false;
          for (int i = 0; i < k; ++i) held |= taken_slots[i] == slot && taken_rows[i] != row;
          float* place = &row_sums[static_cast<size_t>((held ? slots + k : slot) * columns)];
          if (held || slot_rows[static_cast<size_t>(slot)] != row) {
            sum_row(row, place);
            if (!held) slot_rows[static_cast<size_t>(slot)] = row;
          }
          taken_rows[k] = row;
          taken_slots[k] = slot;
          sums[a][b] = place;
        }
      }
      // The outer axes' sums of output column o2 (V = float), or of four from it (V = Floats4).
      auto outer_sum = [&](auto lanes, int64_t o2) __attribute__((always_inline)) {
        using V = decltype(lanes);
        V outer{}, middle0{};
        for (int a = 0; a < w0; ++a) {
          V middle{}, inner0{};
          for (int b = 0; b < w1; ++b) middle = NextTap<4, W1>(w1, b, Load<V>(sums[a][b] + o2), wb, &inner0, middle);
          outer = NextTap<4, W0>(w0, a, middle, wa, &middle0, outer);
        }
        return outer;
      };
      float* dst = to + (o0 * x1.out + o1) * columns;
      int64_t o2 = 0;
      for (; o2 + 4 <= columns; o2 += 4) {
        const Floats4 sum = outer_sum(Floats4{}, o2);
        std::memcpy(dst + o2, &sum, sizeof sum);
      }
      for (; o2 < columns; ++o2) dst[o2] = outer_sum(float{}, o2);
    }
  }
}

// aten's linear and nearest backward of one output row: the first axis's taps outer, the weights'
// product times the gradient added in one fused multiply-add, in the order of the output's columns.
template <int kPathLanes, int W0, int W1, int W2, typename T>
static inline __attribute__((always_inline)) void AddRowGradients(int w0, int w1, const Axis<T>& x2, const T* gradient,
                                                                  T* const (&grad_rows)[4][4],
                                                                  const T (&row_weights)[4][4]) {
  const int w2 = W2 ? W2 : x2.width;
  const int64_t* ic = x2.index.data();
  const T* wc = x2.weight.data();
  for (int64_t o2 = 0; o2 < x2.out; ++o2) {
    for (int a = 0; a < w0; ++a) {
      for (int b = 0; b < w1; ++b) {
        for (int c = 0; c < w2; ++c) {
          T& target = grad_rows[a][b][ic[o2 * w2 + c]];
          target = Fused<kPathLanes>(row_weights[a][b] * wc[o2 * w2 + c], gradient[o2], target);
        }
      }
    }
  }
}

// The baseline path's AddRowGradients, four input columns at a time: the same fused multiply-adds
// in the same order for each input element, so bit for bit the FMA paths' results. The scalar loop
// adds into memory, each element its columns' gradients one after another (a 2x upsample's element
// takes four in a row), and pays a TwoSum per addition; here each input row's elements keep their
// sums in a vector across their contributions, which come from the last axis's table turned round
// (ByInput: for each input column its output columns and weights, in the output's order), and the
// TwoSums go four at a time. Four columns with fewer contributions than their neighbours add the
// gradient 0 with weight 0, which leaves a sum as it is (a sum that starts at +0 is never -0).
// Rows of one output row that coincide (an axis's clamped taps at the border) take their
// contributions interleaved: false then, and the caller takes the scalar loop.
struct ByInput {
  int lanes = 4;                       // input columns a block (a vector's lanes)
  int64_t columns = 0;                 // the input's
  std::vector<int32_t> first;          // per input column, its first contribution (columns + 1)
  std::vector<int32_t> steps;          // per block of lanes input columns, the most contributions of one
  std::vector<int32_t> offset;         // per block, per step: the gradients' columns (a padding's: the zero's)
  std::vector<float> weight;           // per block, per step: the last axis's weights (a padding's 0)
  std::vector<int32_t> scalar_offset;  // per contribution of an input column past the last block
  std::vector<float> scalar_weight;
};

// x2's table turned round, in blocks of `lanes` input columns; none (nullptr) for a row too long
// for 32-bit offsets.
std::unique_ptr<ByInput> MakeByInput(const Axis<float>& x2, int lanes) {
  const int w2 = x2.width;
  if (x2.out * w2 >= INT32_MAX) return nullptr;
  auto table = std::make_unique<ByInput>();
  table->lanes = lanes;
  const int64_t columns = x2.in, vectors = columns / lanes;
  std::vector<int32_t> count(static_cast<size_t>(columns + 1), 0);
  for (int64_t k = 0; k < x2.out * w2; ++k) ++count[static_cast<size_t>(x2.index[static_cast<size_t>(k)] + 1)];
  for (int64_t i = 0; i < columns; ++i) count[static_cast<size_t>(i + 1)] += count[static_cast<size_t>(i)];
  table->first = count;
  std::vector<int32_t> contribution(static_cast<size_t>(x2.out * w2));  // the table's entries, by input column
  for (int64_t k = 0; k < x2.out * w2; ++k) {
    contribution[static_cast<size_t>(count[static_cast<size_t>(x2.index[static_cast<size_t>(k)])]++)] =
        static_cast<int32_t>(k);
  }
  const int32_t zero = static_cast<int32_t>(x2.out);  // the gradient row's copy ends with a 0
  table->steps.assign(static_cast<size_t>(vectors), 0);
  for (int64_t v = 0; v < vectors; ++v) {
    int32_t steps = 0;
    for (int lane = 0; lane < lanes; ++lane) {
      const size_t i = static_cast<size_t>(lanes * v + lane);
      steps = std::max(steps, table->first[i + 1] - table->first[i]);
    }
    table->steps[static_cast<size_t>(v)] = steps;
    for (int32_t j = 0; j < steps; ++j) {
      for (int lane = 0; lane < lanes; ++lane) {
        const size_t i = static_cast<size_t>(lanes * v + lane);
        const bool real = table->first[i] + j < table->first[i + 1];
        const int32_t k = real ? contribution[static_cast<size_t>(table->first[i] + j)] : 0;
        table->offset.push_back(real ? k / w2 : zero);
        table->weight.push_back(real ? x2.weight[static_cast<size_t>(k)] : 0.0f);
      }
    }
  }
  for (int32_t at = table->first[static_cast<size_t>(vectors * lanes)]; at < table->first[static_cast<size_t>(columns)];
       ++at) {
    const int32_t k = contribution[static_cast<size_t>(at)];
    table->scalar_offset.push_back(k / w2);
    table->scalar_weight.push_back(x2.weight[static_cast<size_t>(k)]);
  }
  table->columns = columns;
  return table;
}

// The gradient row and a 0 after it, which ByInput's paddings read (this thread's copy).
static inline const float* GradientRowWithZero(const float* gradient, int64_t columns) {
  thread_local std::vector<float> row;
  row.assign(gradient, gradient + columns);
  row.push_back(0.0f);
  return row.data();
}

template <int W0, int W1>
static inline __attribute__((always_inline)) bool AddRowGradientsByInput(int w0, int w1, const Axis<float>& x2,
                                                                         const ByInput& table, const float* gradient,
                                                                         float* const (&grad_rows)[4][4],
                                                                         const float (&row_weights)[4][4]) {
  for (int r = 0; r < w0 * w1; ++r) {
    for (int q = 0; q < r; ++q) {
      if (grad_rows[r / w1][r % w1] == grad_rows[q / w1][q % w1]) return false;
    }
  }
  const float* g = GradientRowWithZero(gradient, x2.out);
  const int64_t vectors = x2.in / 4;
  for (int a = 0; a < w0; ++a) {
    for (int b = 0; b < w1; ++b) {
      float* target = grad_rows[a][b];
      const float rw = row_weights[a][b];
      const Floats4 row_weight{rw, rw, rw, rw};
      const int32_t* offset = table.offset.data();
      const float* weight = table.weight.data();
      for (int64_t v = 0; v < vectors; ++v) {
        Floats4 sum = Load<Floats4>(target + 4 * v);
        for (int32_t j = table.steps[static_cast<size_t>(v)]; j > 0; --j, offset += 4, weight += 4) {
          const Floats4 values{g[offset[0]], g[offset[1]], g[offset[2]], g[offset[3]]};
          sum = FusedInDouble4(row_weight * Load<Floats4>(weight), values, sum);
        }
        std::memcpy(target + 4 * v, &sum, sizeof sum);
      }
      const int32_t base = table.first[static_cast<size_t>(vectors * 4)];
      for (int64_t i = vectors * 4; i < x2.in; ++i) {
        float sum = target[i];
        for (int32_t at = table.first[static_cast<size_t>(i)]; at < table.first[static_cast<size_t>(i + 1)]; ++at) {
          sum = FusedInDouble(rw * table.scalar_weight[static_cast<size_t>(at - base)],
                              g[table.scalar_offset[static_cast<size_t>(at - base)]], sum);
        }
        target[i] = sum;
      }
    }
  }
  return true;
}

// aten's bicubic backward of one output row (UpSampleBicubic2d.cpp, compiled without FMA): each
// contribution is the gradient times its row's weight, rounded, times its column's, rounded, then
// added; for one output element the last axis's taps outer, the row's inner. The scalar loop adds
// into memory, the sixteen taps of an output element one after another into elements that the next
// output element adds to again (a store-to-load chain). Here the input rows' elements keep their
// sums in vectors of the path's width across their contributions, from the last axis's table
// turned round (ByInput, in blocks of kLanes input columns), each gradient gathered once for all
// the output row's taps (its input rows): per element the same roundings in the same order, and no
// operation that a path fuses (the file is compiled without contraction), so every path gives
// aten's bits. Paddings add (0 * w) * 0, which leaves a sum as it is (see ByInput). Where the
// output row's taps read distinct input rows (all but the first and last rows) their sums stay in
// registers; where clamped taps coincide, one sum takes their contributions in their order.
template <int kLanes, int W0, int W1>
static inline __attribute__((always_inline)) void AddCubicRowGradients(int w0, int w1, const Axis<float>& x2,
                                                                       const ByInput& table, const float* gradient,
                                                                       float* const (&grad_rows)[4][4],
                                                                       const float* wa, const float* wb) {
  using Lanes = FloatLanes<kLanes>;
  float* targets[16];  // the distinct input rows
  int slot[4][4];      // [a][b]: taps a, b's row among them
  int rows = 0;
  for (int a = 0; a < w0; ++a) {
    for (int b = 0; b < w1; ++b) {
      int t = 0;
      while (t < rows && targets[t] != grad_rows[a][b]) ++t;
      if (t == rows) targets[rows++] = grad_rows[a][b];
      slot[a][b] = t;
    }
  }
  const float* g = GradientRowWithZero(gradient, x2.out);
  const int64_t blocks = x2.in / kLanes;
  auto add_blocks = [&](auto distinct) __attribute__((always_inline)) {
    const int32_t* offset = table.offset.data();
    const float* weight = table.weight.data();
    for (int64_t v = 0; v < blocks; ++v) {
      Lanes sums[16];
      // memcpy, not Load: a function returning a vector wider than the baseline's warns of its ABI.
      for (int t = 0; t < rows; ++t) std::memcpy(&sums[t], targets[t] + kLanes * v, sizeof sums[t]);
      for (int32_t j = table.steps[static_cast<size_t>(v)]; j > 0; --j, offset += kLanes, weight += kLanes) {
        Lanes values;
        for (int lane = 0; lane < kLanes; ++lane) values[lane] = g[offset[lane]];
        Lanes w;
        std::memcpy(&w, weight, sizeof w);
        for (int b = 0; b < (W1 ? W1 : w1); ++b) {
          for (int a = 0; a < (W0 ? W0 : w0); ++a) {
            // A padded axis (one tap, weight 1) multiplies nothing: aten's 2-D kernel has no such axis.
            sums[decltype(distinct)::value ? a * (W1 ? W1 : w1) + b : slot[a][b]] +=
                (w0 > 1 ? values * wa[a] : values) * wb[b] * w;
          }
        }
      }
      for (int t = 0; t < rows; ++t) std::memcpy(targets[t] + kLanes * v, &sums[t], sizeof sums[t]);
    }
  };
  if (rows == w0 * w1) {
    add_blocks(std::true_type{});
  } else {
    add_blocks(std::false_type{});
  }
  const int32_t base = table.first[static_cast<size_t>(blocks * kLanes)];
  for (int64_t i = blocks * kLanes; i < x2.in; ++i) {
    for (int32_t at = table.first[static_cast<size_t>(i)]; at < table.first[static_cast<size_t>(i + 1)]; ++at) {
      const float value = g[table.scalar_offset[static_cast<size_t>(at - base)]];
      const float w = table.scalar_weight[static_cast<size_t>(at - base)];
      for (int b = 0; b < w1; ++b) {
        for (int a = 0; a < w0; ++a) grad_rows[a][b][i] += (w0 > 1 ? value * wa[a] : value) * wb[b] * w;
      }
    }
  }
}

// W0, W1, W2: the axes' tap counts where known at compile time (the loops unroll), 0 where not.
template <typename T, int W0, int W1, int W2, int kPathLanes>
static inline __attribute__((always_inline)) void ResamplePlane(const PlaneJob<T>& job, const T* from, T* to) {
  const Axis<T>& x0 = job.axes[0];
  const Axis<T>& x1 = job.axes[1];
  const Axis<T>& x2 = job.axes[2];
  if constexpr (kPathLanes == 4 && std::is_same<T, float>::value) {
    if (!job.backward && !job.flat_linear && (job.mode == Mode::kLinear || job.mode == Mode::kCubic)) {
      return ResampleFloatPlaneByRows<W0, W1, W2>(job, from, to);
    }
  }
  const int w0 = W0 ? W0 : x0.width, w1 = W1 ? W1 : x1.width, w2 = W2 ? W2 : x2.width;
  if (job.backward) std::fill(to, to + x0.in * x1.in * x2.in, T(0));
  const T* rows[4][4];  // [a][b]: the input row (forward) or the output row (backward) of taps a, b
  T* grad_rows[4][4];
  T row_weights[4][4];  // wa * wb
  for (int64_t o0 = 0; o0 < x0.out; ++o0) {
    const int64_t* ia = &x0.index[static_cast<size_t>(o0 * w0)];
    const T* wa = &x0.weight[static_cast<size_t>(o0 * w0)];
    for (int64_t o1 = 0; o1 < x1.out; ++o1) {
      const int64_t* ib = &x1.index[static_cast<size_t>(o1 * w1)];
      const T* wb = &x1.weight[static_cast<size_t>(o1 * w1)];
      for (int a = 0; a < w0; ++a) {
        for (int b = 0; b < w1; ++b) {
          const int64_t row = (ia[a] * x1.in + ib[b]) * x2.in;
          rows[a][b] = from + row;
          grad_rows[a][b] = to + row;
          row_weights[a][b] = wa[a] * wb[b];
        }
      }
      const int64_t line = (o0 * x1.out + o1) * x2.out;
      const int64_t* ic = x2.index.data();
      const T* wc = x2.weight.data();
      if (!job.backward) {
        T* dst = to + line;
        if (job.mode == Mode::kNearest || job.mode == Mode::kNearestExact) {
          // One tap of weight 1 on every axis: a copy (aten's nearest kernels compute nothing).
          const T* src = rows[0][0];
          for (int64_t o2 = 0; o2 < x2.out; ++o2) dst[o2] = src[ic[o2]];
        } else if (job.flat_linear) {
          // aten's bilinear kernel for outputs of at most 128 rows and columns together
          // (cpu_upsample_linear_channels_last, which it takes for them): one sum of the taps, each
          // times its weights' product, t0 * w0 + t1 * w1 + ..., which its AVX2 and AVX-512 builds
          // contract to fma(t0, w0, t1 * w1) and then a fused multiply-add for each other tap.
          for (int64_t o2 = 0; o2 < x2.out; ++o2) {
            T first = T(0), first_weight = T(0), sum = T(0);
            int k = 0;
            for (int a = 0; a < w0; ++a) {
              for (int b = 0; b < w1; ++b) {
                for (int c = 0; c < w2; ++c, ++k) {
                  const T value = rows[a][b][ic[o2 * w2 + c]], weight = row_weights[a][b] * wc[o2 * w2 + c];
                  if (k == 0) {
                    first = value;
                    first_weight = weight;
                  } else {
                    sum = k == 1 ? Fused<kPathLanes>(first, first_weight, value * weight) : Fused<kPathLanes>(value, weight, sum);
                  }
                }
              }
            }
            dst[o2] = k == 1 ? first * first_weight : sum;
          }
        } else {
          // aten's order for the others (cpu_upsample_generic): each axis's taps summed over the
          // inner axes' sums, weight last. Two taps are t0 * w0 + t1 * w1, which its builds
          // contract to fma(t0, w0, t1 * w1); more are a product and then fused multiply-adds in
          // order. An axis of one tap (a padded one's, weight 1) is the inner sum as it is.
          for (int64_t o2 = 0; o2 < x2.out; ++o2) {
            const int64_t* taps = ic + o2 * w2;
            const T* weights = wc + o2 * w2;
            T outer = T(0), middle0 = T(0);
            for (int a = 0; a < w0; ++a) {
              T middle = T(0), inner0 = T(0);
              for (int b = 0; b < w1; ++b) {
                const T* row = rows[a][b];
                const T inner = TapSum<kPathLanes, W2, T>(w2, row, taps, weights);
                middle = NextTap<kPathLanes, W1>(w1, b, inner, wb, &inner0, middle);
              }
              outer = NextTap<kPathLanes, W0>(w0, a, middle, wa, &middle0, outer);
            }
            dst[o2] = outer;
          }
        }
        continue;
      }
      const T* gradient = from + line;
      if (job.mode == Mode::kCubic) {
        if constexpr (std::is_same<T, float>::value) {
          if (job.by_input != nullptr && job.by_input->lanes == kPathLanes) {
            AddCubicRowGradients<kPathLanes, W0, W1>(w0, w1, x2, *job.by_input, gradient, grad_rows, wa, wb);
            continue;
          }
        }
        // aten's bicubic backward (UpSampleBicubic2d.cpp, built without FMA): the last axis's taps
        // outer, (gradient * wy) * wx; where ByInput's 32-bit offsets do not reach, and for double.
        for (int64_t o2 = 0; o2 < x2.out; ++o2) {
          for (int c = 0; c < w2; ++c) {
            for (int b = 0; b < w1; ++b) {
              for (int a = 0; a < w0; ++a) grad_rows[a][b][ic[o2 * w2 + c]] += gradient[o2] * wa[a] * wb[b] * wc[o2 * w2 + c];
            }
          }
        }
      } else if constexpr (kPathLanes == 4 && std::is_same<T, float>::value) {
        if (job.by_input == nullptr || job.by_input->lanes != 4 ||
            !AddRowGradientsByInput<W0, W1>(w0, w1, x2, *job.by_input, gradient, grad_rows, row_weights)) {
          AddRowGradients<kPathLanes, W0, W1, W2>(w0, w1, x2, gradient, grad_rows, row_weights);
        }
      } else {
        AddRowGradients<kPathLanes, W0, W1, W2>(w0, w1, x2, gradient, grad_rows, row_weights);
      }
    }
  }
}

// The tap counts the modes give (nearest 1, linear 2, cubic 4 per resampled axis; 1 on the axes a
// 1-D or 2-D op pads with) unrolled, any other by the generic loop.
template <typename T, int kPathLanes>
static inline __attribute__((always_inline)) void ResamplePlaneOfWidths(const PlaneJob<T>& job, const T* from, T* to) {
  const int widths = job.axes[0].width * 100 + job.axes[1].width * 10 + job.axes[2].width;
  switch (widths) {
    case 111: return ResamplePlane<T, 1, 1, 1, kPathLanes>(job, from, to);
    case 112: return ResamplePlane<T, 1, 1, 2, kPathLanes>(job, from, to);
    case 122: return ResamplePlane<T, 1, 2, 2, kPathLanes>(job, from, to);
    case 222: return ResamplePlane<T, 2, 2, 2, kPathLanes>(job, from, to);
    case 144: return ResamplePlane<T, 1, 4, 4, kPathLanes>(job, from, to);
    default: return ResamplePlane<T, 0, 0, 0, kPathLanes>(job, from, to);
  }
}

ACLSIM_KERNEL(void, ResamplePlaneFloat, (const PlaneJob<float>& job, const float* from, float* to), (job, from, to)) {
  ResamplePlaneOfWidths<float, kPathLanes>(job, from, to);
}
ACLSIM_KERNEL(void, ResamplePlaneDouble, (const PlaneJob<double>& job, const double* from, double* to),
              (job, from, to)) {
  ResamplePlaneOfWidths<double, kPathLanes>(job, from, to);
}

// The antialiased ops' axis (see the top): for each output index, the first input of its window, how
// many it holds and their weights (from `offset`, the window's width varies at the input's edges).
template <typename T>
struct AaAxis {
  int64_t in = 1, out = 1;
  std::vector<int64_t> first, count, offset;
  std::vector<T> weight;
};

// aten's aa_filter of HelperInterpLinear and HelperInterpCubic; the cubic's polynomials as its
// AVX2 and AVX-512 builds contract them (fused multiply-adds: the backward's bits agree so).
template <typename T>
T AaFilter(Mode mode, T x) {
  x = std::abs(x);
  if (mode == Mode::kLinear) return x < T(1) ? static_cast<T>(1.0 - x) : T(0);
  const T a = T(-0.5);
  if (x < T(1)) return std::fma(std::fma(a + 2, x, -(a + 3)) * x, x, T(1));
  if (x < T(2)) return std::fma(std::fma(std::fma(a, x, -5 * a), x, 8 * a), x, -4 * a);
  return T(0);
}

// A scale, centre or support in a refusal: nine significant digits, whatever its magnitude
// (std::to_string's six decimals print a tiny scale as 0.000000).
std::string NumberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// aten's _compute_indices_min_size_weights_aa for every output index, in its types (the centre and
// the support in T, the offsets added in double). Empty, with `problem` saying why, where aten's
// kernel has no defined result: an output whose window holds no input (its forward reads the input
// at the window's start, past the end), or a support whose window width, ceil(support) * 2 + 1,
// is no int (aten's type for it). Both need a caller's scale far below the sizes' ratio.
// `backward`: the width as aten's backward rounds it (ceilf of the support in float).
template <typename T>
AaAxis<T> MakeAaAxis(Mode mode, int64_t in, int64_t out, bool align_corners, double scale, bool backward,
                     std::string* problem) {
  AaAxis<T> axis;
  const T step = AxisScale<T>(in, out, align_corners, scale);
  const int taps = TapsOf(mode);
  const T support = step >= 1.0 ? static_cast<T>((taps * 0.5) * step) : static_cast<T>(taps * 0.5);
  const double ceiled = backward ? static_cast<double>(std::ceil(static_cast<float>(support)))
                                 : static_cast<double>(std::ceil(support));
  if (!(ceiled <= (std::numeric_limits<int>::max() - 1) / 2)) {
    *problem = "a support of " + NumberText(static_cast<double>(support)) +
               " input pixels, whose window width is no int";
    return axis;
  }
  const int64_t window = static_cast<int64_t>(ceiled) * 2 + 1;
  const T invscale = step >= 1.0 ? static_cast<T>(1.0 / step) : T(1);
  axis.in = in;
  axis.out = out;
  axis.first.resize(static_cast<size_t>(out));
  axis.count.resize(static_cast<size_t>(out));
  axis.offset.resize(static_cast<size_t>(out) + 1);
  for (int64_t i = 0; i < out; ++i) {
    const T center = static_cast<T>(step * (static_cast<double>(i) + 0.5));
    const int64_t first = std::max(static_cast<int64_t>((center - support) + 0.5), int64_t{0});
    // aten clips the count to the width: rounding can make it one more.
    const int64_t count = std::clamp<int64_t>(std::min(static_cast<int64_t>((center + support) + 0.5), in) - first,
                                              0, window);
    if (count == 0) {
      *problem = "output " + std::to_string(i) + "'s window (centre " + NumberText(static_cast<double>(center)) +
                 ", support " + NumberText(static_cast<double>(support)) + ") holds none of the " +
                 std::to_string(in) + " inputs";
      axis.first.clear();
      return axis;
    }
    const size_t at = axis.weight.size();
    axis.first[static_cast<size_t>(i)] = first;
    axis.count[static_cast<size_t>(i)] = count;
    axis.offset[static_cast<size_t>(i)] = static_cast<int64_t>(at);
    T total = T(0);
    for (int64_t j = 0; j < count; ++j) {
      const T w = AaFilter<T>(mode, static_cast<T>((static_cast<T>(j + first) - center + 0.5) * invscale));
      axis.weight.push_back(w);
      total += w;
    }
    // Weights that sum to 0 stay as they are (aten's).
    if (total != T(0)) {
      for (size_t j = at; j < axis.weight.size(); ++j) axis.weight[j] /= total;
    }
  }
  axis.offset[static_cast<size_t>(out)] = static_cast<int64_t>(axis.weight.size());
  return axis;
}

// One axis's pass of the forward over `lines` lines: output o of a line is the sum of its window's
// inputs, `stride` apart, times their weights, t0 * w0 + t1 * w1 + ... in order. aten's float
// builds agree with these separate roundings more often than with fused ones; their vectorised
// loops still round some outputs otherwise (96 calls against torch 2.13's AVX2 kernel: 8 bit for bit,
// the others within one ulp of the input's largest magnitude). `*_line_step`: from one line to the
// next, in the input and the output; `out_stride`: from one output of a line to the next.
template <typename T>
void AaPass(const AaAxis<T>& axis, int64_t lines, int64_t stride, int64_t in_line_step, int64_t out_line_step,
            int64_t out_stride, const T* from, T* to) {
  for (int64_t line = 0; line < lines; ++line) {
    const T* source = from + line * in_line_step;
    T* target = to + line * out_line_step;
    for (int64_t o = 0; o < axis.out; ++o) {
      const T* weights = &axis.weight[static_cast<size_t>(axis.offset[static_cast<size_t>(o)])];
      const T* taps = source + axis.first[static_cast<size_t>(o)] * stride;
      T sum = taps[0] * weights[0];
      for (int64_t j = 1; j < axis.count[static_cast<size_t>(o)]; ++j) {
        const T product = taps[j * stride] * weights[j];
        sum = sum + product;
      }
      target[o * out_stride] = sum;
    }
  }
}

// One plane of the antialiased forward: rows (axis 0) by columns (axis 1).
template <typename T>
void AaForwardPlane(const AaAxis<T>& rows, const AaAxis<T>& columns, const T* from, T* to) {
  const bool across = columns.out != columns.in, down = rows.out != rows.in;
  if (!across && !down) {
    std::copy(from, from + rows.in * columns.in, to);
    return;
  }
  thread_local std::vector<T> between;
  const T* source = from;
  if (across) {
    T* target = to;
    if (down) {
      between.resize(static_cast<size_t>(rows.in * columns.out));
      target = between.data();
    }
    AaPass(columns, rows.in, 1, columns.in, columns.out, 1, from, target);
    source = target;
  }
  if (down) {
    // Column by column down the rows: each column a line, its elements a row apart.
    AaPass(rows, columns.out, columns.out, 1, 1, columns.out, source, to);
  }
}

// One plane of the antialiased backward: each output's gradient added to its window's inputs at
// (wx * wy) * gradient, outputs in row-major order, aten's (its build contracts the addition).
template <typename T>
void AaBackwardPlane(const AaAxis<T>& rows, const AaAxis<T>& columns, const T* gradient, T* to) {
  std::fill(to, to + rows.in * columns.in, T(0));
  for (int64_t oh = 0; oh < rows.out; ++oh) {
    const T* wy = &rows.weight[static_cast<size_t>(rows.offset[static_cast<size_t>(oh)])];
    for (int64_t ow = 0; ow < columns.out; ++ow) {
      const T* wx = &columns.weight[static_cast<size_t>(columns.offset[static_cast<size_t>(ow)])];
      const T value = gradient[oh * columns.out + ow];
      for (int64_t y = 0; y < rows.count[static_cast<size_t>(oh)]; ++y) {
        T* row = to + (rows.first[static_cast<size_t>(oh)] + y) * columns.in + columns.first[static_cast<size_t>(ow)];
        for (int64_t x = 0; x < columns.count[static_cast<size_t>(ow)]; ++x) row[x] = std::fma(wx[x] * wy[y], value, row[x]);
      }
    }
  }
}

// Whether two tensors' views span common bytes.
bool Overlap(const TensorRef& a, const TensorRef& b) {
  auto span = [](const TensorRef& t) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(t.data), size = static_cast<uintptr_t>(DTypeSize(t.dtype));
    return std::make_pair(base + static_cast<uintptr_t>(t.low) * size, base + static_cast<uintptr_t>(t.high + 1) * size);
  };
  const auto [a_begin, a_end] = span(a);
  const auto [b_begin, b_end] = span(b);
  return a_begin < b_end && b_begin < a_end;
}

// The lanes of the path's vectors of floats, the blocks AddCubicRowGradients takes ByInput in.
ACLSIM_KERNEL(int, ResampleBlockLanes, (), ()) { return kPathLanes; }

void RunPlane(const PlaneJob<float>& job, const float* from, float* to) { ResamplePlaneFloat(job, from, to); }
void RunPlane(const PlaneJob<double>& job, const double* from, double* to) { ResamplePlaneDouble(job, from, to); }

class ResampleWork final : public FamilyWork {
 public:
  explicit ResampleWork(const char* api) : FamilyWork(api, kSlots) {}

  Mode mode = Mode::kNearest;
  bool backward = false;
  bool antialias = false;
  bool align_corners = false;
  int spatial = 1;
  int64_t planes = 0;
  // The input's and the output's spatial extents (the forward's, for a backward op too) and the
  // caller's scales, last axis last.
  std::array<int64_t, kMaxSpatial> in_size{}, out_size{};
  std::array<double, kMaxSpatial> scales{};

 private:
  template <typename T>
  void Run() {
    // Axes padded at the front to three with one tap of weight 1, so one loop serves 1-D to 3-D.
    std::array<Axis<T>, kMaxSpatial> axes;
    const int pad = kMaxSpatial - spatial;
    // Which of aten's kernels the golden runs (_use_vectorized_kernel_cond_2d): for a contiguous
    // input, the channels-last one for small 2-D outputs, the generic nested one otherwise.
    const bool flat_linear = mode == Mode::kLinear && spatial == 2 && out_size[0] + out_size[1] <= 128;
    for (int k = 0; k < kMaxSpatial; ++k) {
      if (k < pad) {
        axes[k].index = {0};
        axes[k].weight = {T(1)};
        continue;
      }
      const bool identity = in_size[k - pad] == out_size[k - pad] && ScaleIgnoredAtEqualSize(mode, backward, spatial);
      axes[k] = MakeAxis<T>(mode, backward, in_size[k - pad], out_size[k - pad], align_corners,
                            identity ? 0.0 : scales[k - pad]);
    }
    std::unique_ptr<ByInput> by_input;
    if constexpr (std::is_same<T, float>::value) {
      if (backward && mode == Mode::kCubic) {
        by_input = MakeByInput(axes[2], ResampleBlockLanes());
      } else if (backward && KernelPath() == Isa::kBaseline) {
        by_input = MakeByInput(axes[2], 4);
      }
    }
    const PlaneJob<T> job{axes.data(), mode, backward, flat_linear, by_input.get()};
    const int64_t in_plane = axes[0].in * axes[1].in * axes[2].in;
    // aten's bicubic backward copies the gradient where the input and output sizes are equal,
    // whatever the scales and alignCorners (UpSampleBicubic2d.cpp's "special case"): a caller's
    // scale of 2 would otherwise spread each gradient over its neighbours.
    const bool copy = backward && mode == Mode::kCubic && in_size == out_size;
    EachPlane<T>(in_plane, axes[0].out * axes[1].out * axes[2].out, [&](const T* from, T* to) {
      if (copy) {
        std::memcpy(to, from, static_cast<size_t>(in_plane) * sizeof(T));
      } else {
        RunPlane(job, from, to);
      }
    });
  }

  // The antialiased ops (2-D): their axes, made as at planning, which refused those without.
  template <typename T>
  void RunAntialiased() {
    std::string problem;
    const AaAxis<T> rows = MakeAaAxis<T>(mode, in_size[0], out_size[0], align_corners, scales[0], backward, &problem);
    const AaAxis<T> columns = MakeAaAxis<T>(mode, in_size[1], out_size[1], align_corners, scales[1], backward, &problem);
    EachPlane<T>(in_size[0] * in_size[1], out_size[0] * out_size[1], [&](const T* from, T* to) {
      if (backward) {
        AaBackwardPlane(rows, columns, from, to);
      } else {
        AaForwardPlane(rows, columns, from, to);
      }
    });
  }

  // `plane(from, to)` on every plane, spread over the threads: from the source made contiguous in
  // the compute type T, into out itself where it is dense in T and apart from the source (each
  // plane is written whole, a backward's zeroed first), else into a buffer scattered to it. The
  // planes' sizes are the forward's input's and output's.
  template <typename T, typename Plane>
  void EachPlane(int64_t in_plane, int64_t out_plane, const Plane& plane) {
    const ComputeType type = this->type;
    const T* source = static_cast<const T*>(ContiguousAs(tensor(kSource), type, 0));
    const TensorRef& out = tensor(kOut);
    const bool direct = out.Contiguous() && out.dtype == (sizeof(T) == 4 ? ACL_FLOAT : ACL_DOUBLE) &&
                        !Overlap(out, tensor(kSource));
    T* result = direct ? reinterpret_cast<T*>(out.first)
                       : static_cast<T*>(Scratch(1, static_cast<size_t>(planes * (backward ? in_plane : out_plane)) * sizeof(T)));
    ParallelFor(planes, [&](int64_t p) {
      plane(source + p * (backward ? out_plane : in_plane), result + p * (backward ? in_plane : out_plane));
    });
    if (direct) return;
    ScatterFrom(result, type, out);
  }

  aclnnStatus Compute() override {
    if (tensor(kOut).numel() == 0) return ACLNN_SUCCESS;
    if (antialias) {
      if (type == ComputeType::kFloat64) {
        RunAntialiased<double>();
      } else {
        RunAntialiased<float>();
      }
    } else if (type == ComputeType::kFloat64) {
      Run<double>();
    } else {
      Run<float>();
    }
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanResample(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const OpTraits traits = TraitsOf(family.op);
  const int source_role = traits.backward ? F::Role::kGradOutput : F::Role::kSelf;
  const TensorDesc* source = RoleTensor(call, family, source_role);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!source || !out) return Decline(call, work, "without its tensors");
  const int spatial = static_cast<int>(family.has_option(F::Option::kSpatial) ? family.options[F::Option::kSpatial] : 0);
  if (spatial < 1 || spatial > kMaxSpatial) return Decline(call, work, "without its spatial rank (1 to 3)");
  ComputeType type;
  if (!FamilyComputeType(source->dtype, false, &type) || IsIntegralType(source->dtype)) {
    return DeclineDtype(call, work, source->dtype);
  }
  if (source->format == ACL_FORMAT_NHWC || source->format == ACL_FORMAT_NDHWC) {
    return Decline(call, work, "for a channels-last format (NHWC, NDHWC)");
  }
  const ParamRejecter reject(call, family);
  const size_t rank = static_cast<size_t>(spatial) + 2;
  Dims output_size;
  if (!RoleInts(call, family, F::Role::kOutputSize, &output_size)) return Decline(call, work, "without outputSize");
  if (output_size.size() != static_cast<size_t>(spatial)) {
    return reject(F::Role::kOutputSize, DimsText(output_size) + " has " + std::to_string(output_size.size()) +
                                            " elements, not " + std::to_string(spatial));
  }
  // The forward's input: self's shape, or the backward's inputSize.
  Dims input;
  if (traits.backward) {
    if (!RoleInts(call, family, F::Role::kInputSize, &input)) return Decline(call, work, "without inputSize");
    if (input.size() != rank) {
      return reject(F::Role::kInputSize, DimsText(input) + " has " + std::to_string(input.size()) +
                                             " elements, not " + std::to_string(rank));
    }
  } else {
    input = source->view;
    if (input.size() != rank) {
      return reject(source_role, "shape " + DimsText(input) + " has " + std::to_string(input.size()) +
                                     " dimensions, not " + std::to_string(rank));
    }
  }
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = input[2 + static_cast<size_t>(k)], o = output_size[static_cast<size_t>(k)];
    if (in <= 0 || o <= 0) {
      return reject(traits.backward ? F::Role::kInputSize : F::Role::kOutputSize,
                    "input " + DimsText(input) + " and output size " + DimsText(output_size) +
                        " must be greater than 0 along the resampled dimensions");
    }
  }
  if (input[0] < 0 || input[1] < 0) return reject(source_role, "negative batch or channels " + DimsText(input));
  Dims resampled{input[0], input[1]};
  for (int64_t o : output_size) resampled.push_back(o);
  if (traits.backward) {
    if (aclnnStatus s = CheckShape(call, family, source_role, source, resampled, "[N, C, *outputSize]")) return s;
  }
  ResampleWork* made = new ResampleWork(call.spec.name);
  std::unique_ptr<ResampleWork> owned(made);
  made->type = type;
  made->mode = traits.mode;
  made->backward = traits.backward;
  made->spatial = spatial;
  made->planes = input[0] * input[1];
  made->align_corners = RoleBool(call, family, F::Role::kAlignCorners, false);
  // The scales bound, last axis last: a 1-D op's one scale is the last axis's.
  const int scale_roles[kMaxSpatial] = {F::Role::kScalesD, F::Role::kScalesH, F::Role::kScalesW};
  for (int k = 0; k < spatial; ++k) {
    made->in_size[static_cast<size_t>(k)] = input[2 + static_cast<size_t>(k)];
    made->out_size[static_cast<size_t>(k)] = output_size[static_cast<size_t>(k)];
    made->scales[static_cast<size_t>(k)] =
        RoleNumber(call, family, scale_roles[kMaxSpatial - spatial + k], -1, 0.0);
  }
  made->antialias = traits.antialias;
  made->tensor(kSource).Set(RoleName(call, family, source_role), *source);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, traits.backward ? input : resampled,
                                       traits.backward ? "inputSize" : "[N, C, *outputSize]", kOut)) {
    return s;
  }
  if (traits.antialias) {
    if (spatial != 2) return Decline(call, work, "antialiased over other than 2 dimensions");
    // The windows aten's kernel computes nothing defined for (MakeAaAxis), refused here by the
    // page's row on the scales, in the compute type's arithmetic. Once the tensors are checked, and
    // only where there is a plane to compute: the axes' tables then grow with the tensors' sizes
    // (an empty batch may state any sizes, the tables of which no memory holds).
    for (int k = 0; k < spatial && made->planes > 0; ++k) {
      std::string problem;
      const size_t at = static_cast<size_t>(k);
      if (type == ComputeType::kFloat64) {
        MakeAaAxis<double>(traits.mode, made->in_size[at], made->out_size[at], made->align_corners, made->scales[at],
                           traits.backward, &problem);
      } else {
        MakeAaAxis<float>(traits.mode, made->in_size[at], made->out_size[at], made->align_corners, made->scales[at],
                          traits.backward, &problem);
      }
      if (!problem.empty()) {
        return RejectByRow(call, family, scale_roles[kMaxSpatial - spatial + k], RowKind::kValue,
                           "scale " + NumberText(made->scales[at]) + " is too small: " + problem);
      }
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
