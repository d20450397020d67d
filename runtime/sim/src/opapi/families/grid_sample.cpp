// The grid_sample family: aclnnGridSampler2D/3D and their backward (F.grid_sample reaches them
// through op-plugin), as aten's CPU grid sampler (aten/src/ATen/native/GridSampler.h):
//   grid_sample           out[n, c, p] = input[n, c] sampled at grid[n, p] (x, y(, z) in [-1, 1]
//                         across the input's W, H(, D)): bilinear (trilinear), nearest (round half to
//                         even) or bicubic (2-D; Keys' kernel, A = -0.75); outside the input, zeros,
//                         the border's value, or the reflection's, by paddingMode (0, 1, 2)
//   grid_sample_backward  inputGrad (each gradient added back at the taps with their weights) and
//                         gridGrad (the derivative of the interpolation along each coordinate,
//                         through the unnormalisation, clipping and reflection), as outputMask asks
// A coordinate maps to (c + 1) / 2 * (size - 1) with alignCorners, else ((c + 1) * size - 1) / 2.
// Taps outside the input read 0 (NaN weights, from an infinite coordinate, still give NaN in 2-D, as
// aten's vectorised kernel). Modes and padding modes other than these, and bicubic in 3-D, are refused by name (161002). In
// float for FLOAT, FLOAT16 and BFLOAT16, in double for DOUBLE; the batch is spread over the threads
// (each sample's gradients are its own).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = GridSampleFamily;

enum Slot { kInput, kGrid, kGradOutput, kOut, kInputGrad, kGridGrad, kSlots };
enum Interpolation { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

constexpr int kMaxSpatial = 3;

// The sampling loop and every helper it calls are inlined into each code path's copy of the loop
// (ACLSIM_KERNEL, family.h): a std::fma is one instruction on the AVX2 and AVX-512 paths, the
// library's (exact, as slow as it is portable) on the baseline path; each path computes the same
// values, the products and sums being left uncontracted.
#define GRID_SAMPLE_INLINE __attribute__((always_inline)) inline

// A source coordinate and its derivative with respect to the grid's value.
template <typename T>
struct Coordinate {
  T at;
  T slope;
};

// aten's scalar kernel computes (c + 1) / 2 * (size - 1) or ((c + 1) * size - 1) / 2; its vectorised
// 2-D kernel (c + 1) * scale, less 0.5 without alignCorners, in one rounding (its AVX2 and AVX-512
// builds contract the product and the difference): equal but for the rounding, which a huge
// coordinate's reflection shows.
template <typename T>
GRID_SAMPLE_INLINE Coordinate<T> Unnormalize(T c, int64_t size, bool align_corners, bool vectorised) {
  const T scale = align_corners ? static_cast<T>(size - 1) / 2 : static_cast<T>(size) / 2;
  if (vectorised) return {align_corners ? (c + 1) * scale : std::fma(c + 1, scale, T(-0.5)), scale};
  if (align_corners) return {(c + 1) / 2 * static_cast<T>(size - 1), scale};
  return {((c + 1) * static_cast<T>(size) - 1) / 2, scale};
}

// Where a clipped NaN goes, by aten's kernel: its vectorised 2-D forward clamps NaN to 0, its scalar
// 3-D forward's std::min(size - 1, std::max(NaN, 0)) gives size - 1, and both backward kernels keep
// NaN (so the weights and gradients are NaN).
enum class NanClip { kToZero, kToLimit, kKeep };

template <typename T>
GRID_SAMPLE_INLINE Coordinate<T> Clip(T c, int64_t size, NanClip nan) {
  if (std::isnan(c)) {
    if (nan == NanClip::kToZero) return {0, 0};
    if (nan == NanClip::kToLimit) return {static_cast<T>(size - 1), 0};
    return {c, 1};
  }
  if (c <= 0) return {0, 0};
  const T limit = static_cast<T>(size - 1);
  if (c >= limit) return {limit, 0};
  return {c, 1};
}

// aten's reflect_coordinates_set_grad over [twice_low / 2, twice_high / 2].
template <typename T>
GRID_SAMPLE_INLINE Coordinate<T> Reflect(T c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return {0, 0};
  if (!std::isfinite(c)) return {std::numeric_limits<T>::quiet_NaN(), 1};  // the clip decides
  const T low = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  c -= low;
  T sign = 1;
  if (c < 0) {
    sign = -1;
    c = -c;
  }
  const T extra = std::fmod(c, span);
  const int64_t flips = static_cast<int64_t>(std::floor(c / span));
  if (flips % 2 == 0) return {extra + low, sign};
  return {span - extra + low, -sign};
}

// aten's vectorised 2-D reflection (reflect_coordinates of GridSamplerKernel.cpp): the whole
// periods removed by a truncated division and a product, not fmod (a huge coordinate keeps that
// product's rounding), then the nearer of the two mirror images.
template <typename T>
GRID_SAMPLE_INLINE Coordinate<T> ReflectVectorised(T c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return {0, 0};
  const T low = static_cast<T>(twice_low) / 2, twice_span = static_cast<T>(twice_high - twice_low);
  const T shifted = c - low;
  const T magnitude = std::fabs(shifted);
  const T extra = std::fma(-std::trunc(magnitude / twice_span), twice_span, magnitude);
  const T mirrored = twice_span - extra;
  const bool flip = extra > mirrored;
  if (std::isnan(extra)) return {extra, 1};
  return {(flip ? mirrored : extra) + low, (flip != (shifted < 0)) ? T(-1) : T(1)};
}

// The padding mode applied to an unnormalised coordinate (aten's compute_coordinates), with the
// derivative's factor.
template <typename T>
GRID_SAMPLE_INLINE Coordinate<T> Pad(T c, int64_t size, int padding, bool align_corners, NanClip nan, bool vectorised) {
  if (padding == kBorder) return Clip(c, size, nan);
  if (padding == kReflection) {
    const int64_t twice_low = align_corners ? 0 : -1, twice_high = align_corners ? 2 * (size - 1) : 2 * size - 1;
    const Coordinate<T> r =
        vectorised ? ReflectVectorised(c, twice_low, twice_high) : Reflect(c, twice_low, twice_high);
    const Coordinate<T> clipped = Clip(r.at, size, nan);
    return {clipped.at, r.slope * clipped.slope};
  }
  return {c, 1};
}

// aten's safe_downgrade_to_int_range: a coordinate no int can hold is -100 (outside every input).
template <typename T>
GRID_SAMPLE_INLINE T SafeCoordinate(T c) {
  if (!std::isfinite(c) || c > static_cast<T>(std::numeric_limits<int>::max() - 1) ||
      c < static_cast<T>(std::numeric_limits<int>::min())) {
    return T(-100);
  }
  return c;
}

// A coordinate's integer position (truncated), or one outside every input for a coordinate no
// index can hold (NaN, infinite, huge).
template <typename T>
GRID_SAMPLE_INLINE int64_t ToIndex(T c) {
  return std::fabs(c) < T(1LL << 40) ? static_cast<int64_t>(c) : std::numeric_limits<int64_t>::min() / 2;
}

template <typename T>
GRID_SAMPLE_INLINE void CubicCoefficients(T t, T c[4]) {
  const T a = T(-0.75);
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

// aten's get_cubic_coefficients_grad (the derivative's negative, as its callers subtract it).
template <typename T>
GRID_SAMPLE_INLINE void CubicCoefficientGradients(T t, T c[4]) {
  const T a = T(-0.75);
  T x = -1 - t;
  c[0] = (-3 * a * x - 10 * a) * x - 8 * a;
  x = -t;
  c[1] = (-3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 1 - t;
  c[2] = (3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 2 - t;
  c[3] = (3 * a * x - 10 * a) * x + 8 * a;
}

// What a call samples: the work's settings, the input's extents and strides (W first: extent[0]
// is W, extent[1] H, extent[2] D), and its tensors in the compute type T (contiguous).
struct Sampling {
  bool backward = false;
  int spatial = 2;
  int interpolation = kBilinear;
  int padding = kZeros;
  bool align_corners = false;
  int64_t batch = 0, channels = 0, points = 0;
};

template <typename T>
struct Sampler : Sampling {
  std::array<int64_t, kMaxSpatial> extent{1, 1, 1}, stride{1, 1, 1};
  int64_t plane = 0;
  // aten's 3-D kernel is scalar: it maps a coordinate no int holds to -100 and skips the taps
  // outside the input. Its 2-D kernel is vectorised: it reads the taps outside as 0 and still
  // multiplies them by their weights (NaN weights give NaN).
  bool scalar_kernel = false;
  NanClip nan_clip = NanClip::kKeep;
  const T* input = nullptr;
  const T* grid = nullptr;
  const T* grad = nullptr;
  T* out = nullptr;
  T* input_grad = nullptr;
  T* grid_grad = nullptr;

  // Whether integer position `at` (W first) lies in the input.
  GRID_SAMPLE_INLINE bool Inside(const std::array<int64_t, kMaxSpatial>& at, int axes) const {
    for (int k = 0; k < axes; ++k) {
      if (at[k] < 0 || at[k] >= extent[k]) return false;
    }
    return true;
  }

  // aten's vectorised 2-D bilinear kernel (GridSamplerKernel.cpp), its order of operations: the
  // taps outside read 0 and still count (NaN weights give NaN), the grid's gradient from the
  // neighbours' differences, channel by channel.
  GRID_SAMPLE_INLINE void Bilinear2d(const T* in_n, int64_t n, int64_t p, const std::array<T, kMaxSpatial>& at,
                                    std::array<T, kMaxSpatial>* gradient) const {
    const T x_w = std::floor(at[0]), y_n = std::floor(at[1]);
    const T w = at[0] - x_w, e = 1 - w, nn = at[1] - y_n, s = 1 - nn;
    const T weights[4] = {s * e, s * w, nn * e, nn * w};  // nw, ne, sw, se
    const int64_t x0 = ToIndex(x_w), y0 = ToIndex(y_n);
    int64_t offsets[4];
    bool inside[4];
    for (int corner = 0; corner < 4; ++corner) {
      const std::array<int64_t, kMaxSpatial> index{x0 + (corner & 1), y0 + (corner >> 1), 0};
      inside[corner] = Inside(index, 2);
      offsets[corner] = inside[corner] ? index[0] + index[1] * stride[1] : 0;
    }
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t o = (n * channels + c) * points + p;
      T v[4];
      for (int corner = 0; corner < 4; ++corner) v[corner] = inside[corner] ? in_n[c * plane + offsets[corner]] : T(0);
      if (!backward) {
        out[static_cast<size_t>(o)] = std::fma(v[3], weights[3], std::fma(v[2], weights[2], std::fma(v[1], weights[1], v[0] * weights[0])));
        continue;
      }
      const T g = grad[o];
      for (int corner = 0; corner < 4; ++corner) {
        if (inside[corner]) input_grad[static_cast<size_t>((n * channels + c) * plane + offsets[corner])] += g * weights[corner];
      }
      // Contracted as aten's AVX2 and AVX-512 builds compile these expressions (FMA).
      (*gradient)[0] = std::fma(std::fma(v[3] - v[2], nn, (v[1] - v[0]) * s), g, (*gradient)[0]);
      (*gradient)[1] = std::fma(std::fma(v[3] - v[1], w, (v[2] - v[0]) * e), g, (*gradient)[1]);
    }
  }

  // aten's scalar 3-D trilinear kernel (GridSampler.cpp), its order of operations: each corner's
  // weight the product of its distances along x, y, z (to the opposite corner, from the integer
  // positions), the taps outside skipped, the grid's gradient corner by corner, channel by channel.
  GRID_SAMPLE_INLINE void Trilinear3d(const T* in_n, int64_t n, int64_t p, const std::array<T, kMaxSpatial>& at,
                                     std::array<T, kMaxSpatial>* gradient) const {
    std::array<int64_t, kMaxSpatial> low{};
    std::array<T, kMaxSpatial> low_at{};
    for (int k = 0; k < 3; ++k) {
      low[k] = ToIndex(std::floor(at[k]));
      low_at[k] = static_cast<T>(low[k]);
    }
    // distance[k][high]: a corner's factor along axis k, from the opposite corner's position.
    T distance[3][2];
    for (int k = 0; k < 3; ++k) {
      distance[k][0] = (low_at[k] + 1) - at[k];
      distance[k][1] = at[k] - low_at[k];
    }
    T weights[8];
    int64_t offsets[8];
    bool inside[8];
    for (int corner = 0; corner < 8; ++corner) {
      const int bx = corner & 1, by = (corner >> 1) & 1, bz = corner >> 2;
      weights[corner] = distance[0][bx] * distance[1][by] * distance[2][bz];
      const std::array<int64_t, kMaxSpatial> index{low[0] + bx, low[1] + by, low[2] + bz};
      inside[corner] = Inside(index, 3);
      offsets[corner] = inside[corner] ? index[0] + index[1] * stride[1] + index[2] * stride[2] : 0;
    }
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t o = (n * channels + c) * points + p;
      if (!backward) {
        T sum = 0;
        for (int corner = 0; corner < 8; ++corner) {
          if (inside[corner]) sum += in_n[c * plane + offsets[corner]] * weights[corner];
        }
        out[static_cast<size_t>(o)] = sum;
        continue;
      }
      const T g = grad[o];
      for (int corner = 0; corner < 8; ++corner) {
        if (inside[corner]) input_grad[static_cast<size_t>((n * channels + c) * plane + offsets[corner])] += weights[corner] * g;
      }
      for (int corner = 0; corner < 8; ++corner) {
        if (!inside[corner]) continue;
        const int b[3] = {corner & 1, (corner >> 1) & 1, corner >> 2};
        const T v = in_n[c * plane + offsets[corner]];
        for (int k = 0; k < 3; ++k) {
          const int a = k == 0 ? 1 : 0, z = k == 2 ? 1 : 2;  // the other two axes, in order
          const T term = v * distance[a][b[a]] * distance[z][b[z]] * g;
          (*gradient)[k] = b[k] ? (*gradient)[k] + term : (*gradient)[k] - term;
        }
      }
    }
  }

  // aten's vectorised 2-D bicubic kernel: the taps x_nw - 1 .. x_nw + 2 along W and H, each padded,
  // outside reading 0; a row's interpolation along W, then the rows' along H.
  GRID_SAMPLE_INLINE void Bicubic2d(const T* in_n, int64_t n, int64_t p, const std::array<T, kMaxSpatial>& at,
                                   std::array<T, kMaxSpatial>* gradient) const {
    const T x_low = std::floor(at[0]), y_low = std::floor(at[1]);
    T cx[4], cy[4], gx[4], gy[4];
    CubicCoefficients(at[0] - x_low, cx);
    CubicCoefficients(at[1] - y_low, cy);
    CubicCoefficientGradients(at[0] - x_low, gx);
    CubicCoefficientGradients(at[1] - y_low, gy);
    int64_t offsets[4][4];  // [along W][along H]
    bool inside[4][4];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        const T tx = Pad(x_low + static_cast<T>(i - 1), extent[0], padding, align_corners, NanClip::kToZero, true).at;
        const T ty = Pad(y_low + static_cast<T>(j - 1), extent[1], padding, align_corners, NanClip::kToZero, true).at;
        const std::array<int64_t, kMaxSpatial> index{ToIndex(tx), ToIndex(ty), 0};
        inside[i][j] = Inside(index, 2);
        offsets[i][j] = inside[i][j] ? index[0] + index[1] * stride[1] : 0;
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t o = (n * channels + c) * points + p;
      auto value = [&](int i, int j) { return inside[i][j] ? in_n[c * plane + offsets[i][j]] : T(0); };
      if (!backward) {
        auto interpolate = [](const T x[4], const T coefficient[4]) {
          return std::fma(x[3], coefficient[3], std::fma(x[2], coefficient[2], std::fma(x[1], coefficient[1], x[0] * coefficient[0])));
        };
        T rows[4];
        for (int j = 0; j < 4; ++j) {
          const T row[4] = {value(0, j), value(1, j), value(2, j), value(3, j)};
          rows[j] = interpolate(row, cx);
        }
        out[static_cast<size_t>(o)] = interpolate(rows, cy);
        continue;
      }
      const T g = grad[o];
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          if (inside[i][j]) input_grad[static_cast<size_t>((n * channels + c) * plane + offsets[i][j])] += g * cx[i] * cy[j];
          const T v = value(i, j);
          (*gradient)[0] = (*gradient)[0] - v * g * gx[i] * cy[j];
          (*gradient)[1] = (*gradient)[1] - v * g * gy[j] * cx[i];
        }
      }
    }
  }

  // Sample n of the batch: its points, every channel (each sample's gradients are its own).
  GRID_SAMPLE_INLINE void Batch(int64_t n) const {
    const T* in_n = input + n * channels * plane;
    for (int64_t p = 0; p < points; ++p) {
      const T* g = grid + (n * points + p) * spatial;
      std::array<T, kMaxSpatial> at{}, slope{};
      for (int k = 0; k < spatial; ++k) {
        const Coordinate<T> u = Unnormalize(g[k], extent[k], align_corners, !scalar_kernel);
        if (interpolation == kBicubic) {
          at[k] = u.at;  // the padding applies to each tap instead
          slope[k] = u.slope;
        } else {
          const Coordinate<T> padded = Pad(u.at, extent[k], padding, align_corners, nan_clip, !scalar_kernel);
          at[k] = scalar_kernel ? SafeCoordinate(padded.at) : padded.at;
          slope[k] = u.slope * padded.slope;
        }
      }
      std::array<T, kMaxSpatial> gradient{};  // d(sum over channels of gOut * out) / d(at[k])
      if (interpolation == kNearest) {
        std::array<int64_t, kMaxSpatial> index{};
        for (int k = 0; k < spatial; ++k) index[k] = ToIndex(std::nearbyint(at[k]));
        const bool inside = Inside(index, spatial);
        int64_t offset = 0;
        for (int k = 0; k < spatial; ++k) offset += index[k] * stride[k];
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t o = (n * channels + c) * points + p;
          if (!backward) {
            out[static_cast<size_t>(o)] = inside ? in_n[c * plane + offset] : T(0);
          } else if (inside) {
            input_grad[static_cast<size_t>((n * channels + c) * plane + offset)] += grad[o];
          }
        }
      } else if (interpolation == kBilinear && !scalar_kernel) {
        Bilinear2d(in_n, n, p, at, &gradient);
      } else if (interpolation == kBilinear) {
        Trilinear3d(in_n, n, p, at, &gradient);
      } else {
        Bicubic2d(in_n, n, p, at, &gradient);
      }
      if (backward) {
        for (int k = 0; k < spatial; ++k) grid_grad[static_cast<size_t>((n * points + p) * spatial + k)] = slope[k] * gradient[k];
      }
    }
  }
};

ACLSIM_KERNEL(void, SampleBatch, (const Sampler<float>& sampler, int64_t n), (sampler, n)) { sampler.Batch(n); }
ACLSIM_KERNEL(void, SampleBatch, (const Sampler<double>& sampler, int64_t n), (sampler, n)) { sampler.Batch(n); }

class GridSampleWork final : public FamilyWork, public Sampling {
 public:
  explicit GridSampleWork(const char* api) : FamilyWork(api, kSlots) {}

  std::array<int64_t, kMaxSpatial> size{};  // the input's spatial extents, D, H, W order (last is W)
  bool want_input_grad = false, want_grid_grad = false;

 private:
  template <typename T>
  void Run() {
    const ComputeType type = this->type;
    Sampler<T> s;
    static_cast<Sampling&>(s) = *this;
    s.input = static_cast<const T*>(ContiguousAs(tensor(kInput), type, 0));
    s.grid = static_cast<const T*>(ContiguousAs(tensor(kGrid), type, 1));
    s.grad = backward ? static_cast<const T*>(ContiguousAs(tensor(kGradOutput), type, 2)) : nullptr;
    for (int k = 0; k < spatial; ++k) s.extent[k] = size[static_cast<size_t>(spatial - 1 - k)];
    for (int k = 1; k < spatial; ++k) s.stride[k] = s.stride[k - 1] * s.extent[k - 1];
    s.plane = s.stride[spatial - 1] * s.extent[spatial - 1];
    s.scalar_kernel = spatial == 3;
    s.nan_clip = backward ? NanClip::kKeep : s.scalar_kernel ? NanClip::kToLimit : NanClip::kToZero;
    // The results in the families' per-thread buffers (slots 0 to 2 hold the inputs): a forward
    // writes every element of out, a backward adds into zeroed gradients.
    auto buffer = [](int slot, int64_t count) { return static_cast<T*>(Scratch(slot, static_cast<size_t>(count) * sizeof(T))); };
    const int64_t input_count = batch * channels * s.plane, grid_count = batch * points * spatial;
    if (backward) {
      s.input_grad = std::fill_n(buffer(4, input_count), input_count, T(0)) - input_count;
      s.grid_grad = std::fill_n(buffer(5, grid_count), grid_count, T(0)) - grid_count;
    } else {
      s.out = buffer(3, batch * channels * points);
    }
    ParallelFor(batch, [&](int64_t n) { SampleBatch(s, n); });
    if (!backward) {
      ScatterFrom(s.out, type, tensor(kOut));
      return;
    }
    if (want_input_grad) ScatterFrom(s.input_grad, type, tensor(kInputGrad));
    if (want_grid_grad) ScatterFrom(s.grid_grad, type, tensor(kGridGrad));
  }

  aclnnStatus Compute() override {
    if (type == ComputeType::kFloat64) {
      Run<double>();
    } else {
      Run<float>();
    }
    return ACLNN_SUCCESS;
  }
};

#undef GRID_SAMPLE_INLINE

}  // namespace

aclnnStatus PlanGridSample(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool backward = family.op == F::Op::kGridSampleBackward;
  const TensorDesc* input = RoleTensor(call, family, F::Role::kInput);
  const TensorDesc* grid = RoleTensor(call, family, F::Role::kGrid);
  const TensorDesc* grad = backward ? RoleTensor(call, family, F::Role::kGradOutput) : nullptr;
  if (!input || !grid || (backward && !grad)) return Decline(call, work, "without its tensors");
  ComputeType type;
  if (!FamilyComputeType(input->dtype, false, &type) || IsIntegralType(input->dtype)) {
    return DeclineDtype(call, work, input->dtype);
  }
  const ParamRejecter reject(call, family);
  const size_t rank = input->view.size();
  if (rank != 4 && rank != 5) return reject(F::Role::kInput, "shape " + DimsText(input->view) + " is not 4-D or 5-D");
  const int spatial = static_cast<int>(rank) - 2;
  const Dims& g = grid->view;
  if (g.size() != rank || g[0] != input->view[0] || g[rank - 1] != spatial) {
    return reject(F::Role::kGrid, "shape " + DimsText(g) + " is not [N, *outputSpatial, " + std::to_string(spatial) +
                                      "] with input's N (" + std::to_string(input->view[0]) + ")");
  }
  const int64_t interpolation = RoleInt(call, family, F::Role::kInterpolationMode, 0);
  const int64_t padding = RoleInt(call, family, F::Role::kPaddingMode, 0);
  if (interpolation < kBilinear || interpolation > kBicubic || (spatial == 3 && interpolation == kBicubic)) {
    return reject(F::Role::kInterpolationMode, std::to_string(interpolation) + " is not one of 0 (bilinear), 1 (nearest)" +
                                                   (spatial == 2 ? ", 2 (bicubic)" : " (bicubic is 2-D only)"));
  }
  if (padding < kZeros || padding > kReflection) {
    return reject(F::Role::kPaddingMode, std::to_string(padding) + " is not one of 0 (zeros), 1 (border), 2 (reflection)");
  }
  for (int k = 0; k < spatial; ++k) {
    if (input->view[2 + static_cast<size_t>(k)] <= 0) {
      return reject(F::Role::kInput, "shape " + DimsText(input->view) + " has an empty spatial dimension");
    }
  }
  GridSampleWork* made = new GridSampleWork(call.spec.name);
  std::unique_ptr<GridSampleWork> owned(made);
  made->type = type;
  made->backward = backward;
  made->spatial = spatial;
  made->interpolation = static_cast<int>(interpolation);
  made->padding = static_cast<int>(padding);
  made->align_corners = RoleBool(call, family, F::Role::kAlignCorners, false);
  made->batch = input->view[0];
  made->channels = input->view[1];
  made->points = 1;
  for (size_t d = 1; d + 1 < g.size(); ++d) made->points *= g[d];
  for (int k = 0; k < spatial; ++k) made->size[static_cast<size_t>(k)] = input->view[2 + static_cast<size_t>(k)];
  Dims sampled{input->view[0], input->view[1]};
  for (size_t d = 1; d + 1 < g.size(); ++d) sampled.push_back(g[d]);
  made->tensor(kInput).Set(RoleName(call, family, F::Role::kInput), *input);
  made->tensor(kGrid).Set(RoleName(call, family, F::Role::kGrid), *grid);
  if (!backward) {
    const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
    if (!out) return Decline(call, work, "without out");
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, sampled, "[N, C, *grid's]", kOut)) return s;
    *work = owned.release();
    return ACLNN_SUCCESS;
  }
  if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOutput, grad, sampled, "[N, C, *grid's]")) return s;
  made->tensor(kGradOutput).Set(RoleName(call, family, F::Role::kGradOutput), *grad);
  const TensorDesc* input_grad = RoleTensor(call, family, F::Role::kInputGrad);
  const TensorDesc* grid_grad = RoleTensor(call, family, F::Role::kGridGrad);
  if (input_grad) {
    made->want_input_grad = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kInputGrad, *input_grad, input->view, "input's shape",
                                         kInputGrad)) {
      return s;
    }
  }
  if (grid_grad) {
    made->want_grid_grad = true;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kGridGrad, *grid_grad, g, "grid's shape", kGridGrad)) {
      return s;
    }
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
