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
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
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
};

OpTraits TraitsOf(int op) {
  switch (op) {
    case F::Op::kNearest: return {Mode::kNearest, false};
    case F::Op::kNearestExact: return {Mode::kNearestExact, false};
    case F::Op::kLinear: return {Mode::kLinear, false};
    case F::Op::kCubic: return {Mode::kCubic, false};
    case F::Op::kNearestBackward: return {Mode::kNearest, true};
    case F::Op::kNearestExactBackward: return {Mode::kNearestExact, true};
    case F::Op::kLinearBackward: return {Mode::kLinear, true};
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

template <typename T>
Axis<T> MakeAxis(Mode mode, int64_t in, int64_t out, bool align_corners, double scale) {
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
  for (int64_t o = 0; o < out; ++o) {
    // One rounding, as aten's kernels compute it (compiled with FMA contraction for the AVX2 and
    // AVX-512 CPUs they run on): at a coordinate exactly between two inputs, the two roundings
    // of a separate product would swap the neighbours' weights.
    T source = align_corners ? step * static_cast<T>(o) : std::fma(step, static_cast<T>(o) + T(0.5), T(-0.5));
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
    const T a = T(-0.75);
    weight[0] = CubicFar<T>(lambda + 1, a);
    weight[1] = CubicNear<T>(lambda, a);
    weight[2] = CubicNear<T>(1 - lambda, a);
    weight[3] = CubicFar<T>(2 - lambda, a);
    for (int j = 0; j < 4; ++j) index[j] = std::max<int64_t>(std::min<int64_t>(first - 1 + j, in - 1), 0);
  }
  return axis;
}

class ResampleWork final : public FamilyWork {
 public:
  explicit ResampleWork(const char* api) : FamilyWork(api, kSlots) {}

  Mode mode = Mode::kNearest;
  bool backward = false;
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
      axes[k] = MakeAxis<T>(mode, in_size[k - pad], out_size[k - pad], align_corners, scales[k - pad]);
    }
    const int64_t in_plane = axes[0].in * axes[1].in * axes[2].in;
    const int64_t out_plane = axes[0].out * axes[1].out * axes[2].out;
    const ComputeType type = this->type;
    const T* source = static_cast<const T*>(ContiguousAs(tensor(kSource), type, 0));
    std::vector<T> result(static_cast<size_t>(planes * (backward ? in_plane : out_plane)), T(0));
    ParallelFor(planes, [&](int64_t p) {
      const T* from = source + p * (backward ? out_plane : in_plane);
      T* to = result.data() + p * (backward ? in_plane : out_plane);
      int64_t o = 0;
      for (int64_t o0 = 0; o0 < axes[0].out; ++o0) {
        for (int64_t o1 = 0; o1 < axes[1].out; ++o1) {
          for (int64_t o2 = 0; o2 < axes[2].out; ++o2, ++o) {
            const int64_t* ia = &axes[0].index[static_cast<size_t>(o0 * axes[0].width)];
            const int64_t* ib = &axes[1].index[static_cast<size_t>(o1 * axes[1].width)];
            const int64_t* ic = &axes[2].index[static_cast<size_t>(o2 * axes[2].width)];
            const T* wa = &axes[0].weight[static_cast<size_t>(o0 * axes[0].width)];
            const T* wb = &axes[1].weight[static_cast<size_t>(o1 * axes[1].width)];
            const T* wc = &axes[2].weight[static_cast<size_t>(o2 * axes[2].width)];
            auto at = [&](int a, int b, int c) { return (ia[a] * axes[1].in + ib[b]) * axes[2].in + ic[c]; };
            if (!backward && flat_linear) {
              // aten's bilinear kernel for outputs of at most 128 rows and columns together
              // (cpu_upsample_linear_channels_last, which it takes for them): one sum of the taps,
              // each times its weights' product, fused multiply-adds as its AVX2 and AVX-512 builds
              // contract them. -0.0 + x is x.
              T sum = T(-0.0);
              for (int a = 0; a < axes[0].width; ++a) {
                for (int b = 0; b < axes[1].width; ++b) {
                  for (int c = 0; c < axes[2].width; ++c) sum = std::fma(from[at(a, b, c)], wa[a] * wb[b] * wc[c], sum);
                }
              }
              to[o] = sum;
            } else if (!backward) {
              // aten's order for the others (cpu_upsample_generic): each axis's taps summed over the
              // inner axes' sums, weight last, in fused multiply-adds. -0.0 + x is x, -0.0 too: a
              // nearest copy keeps a zero's sign.
              T outer = T(-0.0);
              for (int a = 0; a < axes[0].width; ++a) {
                T middle = T(-0.0);
                for (int b = 0; b < axes[1].width; ++b) {
                  T inner = T(-0.0);
                  for (int c = 0; c < axes[2].width; ++c) inner = std::fma(from[at(a, b, c)], wc[c], inner);
                  middle = std::fma(inner, wb[b], middle);
                }
                outer = std::fma(middle, wa[a], outer);
              }
              to[o] = outer;
            } else if (mode == Mode::kCubic) {
              // aten's bicubic backward (UpSampleBicubic2d.cpp, built without FMA): the last axis's
              // taps outer, (gradient * wy) * wx.
              for (int c = 0; c < axes[2].width; ++c) {
                for (int b = 0; b < axes[1].width; ++b) {
                  for (int a = 0; a < axes[0].width; ++a) to[at(a, b, c)] += from[o] * wa[a] * wb[b] * wc[c];
                }
              }
            } else {
              // aten's linear and nearest backward: the first axis's taps outer, the weights'
              // product times the gradient added in one fused multiply-add.
              for (int a = 0; a < axes[0].width; ++a) {
                for (int b = 0; b < axes[1].width; ++b) {
                  for (int c = 0; c < axes[2].width; ++c) {
                    to[at(a, b, c)] = std::fma(wa[a] * wb[b] * wc[c], from[o], to[at(a, b, c)]);
                  }
                }
              }
            }
          }
        }
      }
    });
    ScatterFrom(result.data(), type, tensor(kOut));
  }

  aclnnStatus Compute() override {
    if (tensor(kOut).numel() == 0) return ACLNN_SUCCESS;
    if (type == ComputeType::kFloat64) {
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
    return Decline(call, work, std::string("for dtype ") + DTypeName(source->dtype));
  }
  if (source->format == ACL_FORMAT_NHWC || source->format == ACL_FORMAT_NDHWC) {
    return Decline(call, work, "for a channels-last format (NHWC, NDHWC)");
  }
  auto reject = [&](int role, const std::string& message) {
    return RejectParam(call, family, role, ACLNN_ERR_PARAM_INVALID, message);
  };
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
  made->tensor(kSource).Set(RoleName(call, family, source_role), *source);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, traits.backward ? input : resampled,
                                       traits.backward ? "inputSize" : "[N, C, *outputSize]", kOut)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
