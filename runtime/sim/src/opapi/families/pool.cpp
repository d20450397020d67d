// The pool family: sliding-window max and average pools, adaptive pools, reflection and replication
// padding, their backward ops, and max unpooling, over the trailing `spatial` (1 to 3) dimensions of
// the planes the leading dimensions enumerate.
//
// Every op is one walk over windows: each output position of a plane reads, along each spatial
// dimension, `count` input positions from `first` in steps of `step` (a pool's window clipped to the
// input, with its dilation; an adaptive pool's [floor(o * in / out), ceil((o + 1) * in / out)); a
// padding's one mirrored or clamped position). Forward ops reduce the window (max with its flat
// index in the input plane, PyTorch's; the mean over a divisor; a copy); backward ops add the
// gradient back over the same window, or at the indices the forward op gave. Planes are
// independent, so they are spread over the threads and a backward's additions never race. The
// output-size arithmetic and its checks are runtime/include/aclnn_bindgen/pool_shape.h, which the
// bindings share.
//
// aclnnMaxPool2dWithMask's INT8 mask, [planes..., kH * kW, (ceil(Hout * Wout / 16) + 1) * 32] (its
// page's shape; CANN documents no content: "自定义mask值"), is the simulator's own layout: row k is
// kernel position k (kh * kW + kw) of every window; output position p (row-major over Hout * Wout)
// owns the 16-bit little-endian word at bytes 2p, 2p + 1 of each row, 1 in the row of the position
// that held the window's max (PyTorch's pick: the first max, a NaN), 0 in the others; the row's
// remaining bytes are 0. The backward adds gradOutput[p] at every position of p's window whose word
// is not 0 (one, for a mask the forward wrote) and inside the input.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn_bindgen/pool_shape.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = PoolFamily;
using aclnn_bindgen::PoolProblem;

enum Slot { kSelf, kGrad, kIndices, kOut, kOutIndices, kSlots };

constexpr int kMaxSpatial = 3;

// How an op walks its windows.
enum class Walk { kWindow, kAdaptive, kReflect, kReplicate, kCircular };
// What it does with each window.
// kUnpoolBack: max_unpool's gradient, each element of self's plane read from grad_output's plane
// (outputSize) at its index.
enum class Act { kMax, kMean, kCopy, kAddBack, kIndexAdd, kUnpool, kMaskAdd, kUnpoolBack };

struct OpTraits {
  Walk walk;
  Act act;
  bool backward;  // self is the forward's input; the window walk runs from grad_output's positions
};

OpTraits TraitsOf(int op) {
  switch (op) {
    case F::Op::kMaxPool:
    case F::Op::kMaxPoolMask: return {Walk::kWindow, Act::kMax, false};
    case F::Op::kAvgPool: return {Walk::kWindow, Act::kMean, false};
    case F::Op::kAdaptiveAvg: return {Walk::kAdaptive, Act::kMean, false};
    case F::Op::kAdaptiveMax: return {Walk::kAdaptive, Act::kMax, false};
    case F::Op::kReflectionPad: return {Walk::kReflect, Act::kCopy, false};
    case F::Op::kReplicationPad: return {Walk::kReplicate, Act::kCopy, false};
    case F::Op::kMaxPoolBackward: return {Walk::kWindow, Act::kIndexAdd, true};
    case F::Op::kAvgPoolBackward: return {Walk::kWindow, Act::kAddBack, true};
    case F::Op::kAdaptiveAvgBackward: return {Walk::kAdaptive, Act::kAddBack, true};
    case F::Op::kAdaptiveMaxBackward: return {Walk::kAdaptive, Act::kIndexAdd, true};
    case F::Op::kReflectionPadBackward: return {Walk::kReflect, Act::kAddBack, true};
    case F::Op::kReplicationPadBackward: return {Walk::kReplicate, Act::kAddBack, true};
    case F::Op::kCircularPad: return {Walk::kCircular, Act::kCopy, false};
    case F::Op::kCircularPadBackward: return {Walk::kCircular, Act::kAddBack, true};
    case F::Op::kMaxUnpoolBackward: return {Walk::kWindow, Act::kUnpoolBack, false};
    default: return {Walk::kWindow, Act::kUnpool, false};
  }
}

// One spatial dimension of the walk: the input and output extents and the window arguments.
struct Axis {
  int64_t in = 1, out = 1;
  int64_t kernel = 1, stride = 1, before = 0, dilation = 1;
};

// One spatial dimension's windows, by output position.
struct Windows {
  std::vector<int64_t> first, count, padded;  // padded: an average's window counted with its padding
  int64_t step = 1;

  Windows(const Axis& a, Walk walk) : first(a.out), count(a.out), padded(a.out), step(a.dilation) {
    for (int64_t o = 0; o < a.out; ++o) {
      int64_t lo = 0, n = 1, size = 1;
      if (walk == Walk::kWindow) {
        const int64_t start = o * a.stride - a.before;
        // An average's window ends at the padding's end (PyTorch's hend = min(hstart + k, in + pad)).
        size = std::min(start + a.kernel, a.in + a.before) - start;
        int64_t k_lo = start < 0 ? (-start + a.dilation - 1) / a.dilation : 0;
        int64_t k_hi = std::min(a.kernel - 1, aclnn_bindgen::FloorDiv(a.in - 1 - start, a.dilation));
        lo = start + k_lo * a.dilation;
        n = std::max<int64_t>(k_hi - k_lo + 1, 0);
      } else if (walk == Walk::kAdaptive) {
        lo = aclnn_bindgen::AdaptiveBegin(o, a.in, a.out);
        n = aclnn_bindgen::AdaptiveEnd(o, a.in, a.out) - lo;
        size = n;
      } else {
        const int64_t i = o - a.before;
        lo = walk == Walk::kReplicate  ? std::clamp<int64_t>(i, 0, a.in - 1)
             : walk == Walk::kCircular ? (i % a.in + a.in) % a.in
                                       : (i < 0 ? -i : i >= a.in ? 2 * (a.in - 1) - i : i);
      }
      first[o] = lo, count[o] = n, padded[o] = size;
    }
  }
};

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point<T>::value) return v != v;
  return false;
}

template <typename T>
T Lowest() {
  if constexpr (std::is_floating_point<T>::value) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}

class PoolWork final : public FamilyWork {
 public:
  PoolWork(const char* api, int op, OpTraits traits) : FamilyWork(api, kSlots), op_(op), traits_(traits) {}

  // Outermost first, padded to three with extents of 1.
  Axis axes[kMaxSpatial];
  int64_t planes = 1;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
  bool mask = false;  // the indices are the INT8 mask (the layout above), not flat positions

 private:
  int64_t InPlane() const { return axes[0].in * axes[1].in * axes[2].in; }
  int64_t OutPlane() const { return axes[0].out * axes[1].out * axes[2].out; }
  int64_t MaskRow() const { return aclnn_bindgen::MaxPoolMaskRow(axes[1].out * axes[2].out); }
  int64_t MaskRows() const { return axes[1].kernel * axes[2].kernel; }

  // The input position of kernel position (kh, kw) of output position (oh, ow), in the plane or not.
  void WindowPosition(int64_t oh, int64_t ow, int64_t kh, int64_t kw, int64_t* h, int64_t* w) const {
    *h = oh * axes[1].stride - axes[1].before + kh * axes[1].dilation;
    *w = ow * axes[2].stride - axes[2].before + kw * axes[2].dilation;
  }

  // The mask of the flat indices `where` (pooled shape) into the mask tensor.
  void WriteMask(const int64_t* where) {
    const int64_t positions = OutPlane(), row = MaskRow(), rows = MaskRows();
    const int64_t W = axes[2].in, Wo = axes[2].out;
    const size_t size = static_cast<size_t>(planes * rows * row);
    int64_t* bytes = static_cast<int64_t*>(Scratch(3, size * sizeof(int64_t)));
    std::fill(bytes, bytes + size, int64_t{0});
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t o = 0; o < positions; ++o) {
        const int64_t at = where[p * positions + o], oh = o / Wo, ow = o % Wo;
        int64_t h0, w0;
        WindowPosition(oh, ow, 0, 0, &h0, &w0);
        const int64_t k = (at / W - h0) / axes[1].dilation * axes[2].kernel + (at % W - w0) / axes[2].dilation;
        bytes[(p * rows + k) * row + 2 * o] = 1;
      }
    }
    ScatterFrom(bytes, ComputeType::kInt64, tensor(kOutIndices));
  }

  aclnnStatus Compute() override {
    if (planes == 0 || OutPlane() == 0) return ACLNN_SUCCESS;
    const Windows w0(axes[0], traits_.walk), w1(axes[1], traits_.walk), w2(axes[2], traits_.walk);
    const Windows* w[kMaxSpatial] = {&w0, &w1, &w2};
    const int64_t* indices = nullptr;
    if (traits_.act == Act::kIndexAdd || traits_.act == Act::kUnpool || traits_.act == Act::kUnpoolBack) {
      if (aclnnStatus s = CheckIndices(&indices)) return s;
    } else if (traits_.act == Act::kMaskAdd) {
      // Bytes as int64 (signed: a word's high byte is masked back to 8 bits where it is read).
      indices = static_cast<const int64_t*>(ContiguousAs(tensor(kIndices), ComputeType::kInt64, 4));
    }
    aclnnStatus status = ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) { status = Run<decltype(zero)>(w, indices); });
    return status;
  }

  // The indices an op scatters through, each within the plane it addresses.
  aclnnStatus CheckIndices(const int64_t** values) {
    const TensorRef& t = tensor(kIndices);
    const int64_t* v = static_cast<const int64_t*>(ContiguousAs(t, ComputeType::kInt64, 4));
    // Both scatter into the result's plane, which Axis::in describes (an unpool's: outputSize).
    const int64_t n = t.numel(), extent = InPlane();
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] < 0 || v[i] >= extent) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + t.name + ": element " + std::to_string(i) + " is " +
                                         std::to_string(v[i]) + ", outside the plane's [0, " + std::to_string(extent) +
                                         ")");
      }
    }
    *values = v;
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Run(const Windows* const* w, const int64_t* indices) {
    // Accumulations of FLOAT16/BFLOAT16/FLOAT values run in float, of DOUBLE in double.
    using Acc = T;
    const Act act = traits_.act;
    const bool backward = traits_.backward;
    const TensorRef& source = tensor(backward || act == Act::kUnpoolBack ? kGrad : kSelf);
    const T* x = static_cast<const T*>(ContiguousAs(source, type, 0));
    const TensorRef& out = tensor(kOut);
    const int64_t in_plane = InPlane(), out_plane = OutPlane();
    // The plane a source element belongs to holds `from` elements; the result's, `to`.
    const int64_t from = backward || act == Act::kUnpool ? out_plane : in_plane;
    const int64_t to = backward || act == Act::kUnpool ? in_plane : out_plane;
    const size_t total = static_cast<size_t>(planes * to);
    const bool direct = out.dtype == StorageOf(type) && out.Contiguous();
    T* y = direct ? reinterpret_cast<T*>(out.first) : static_cast<T*>(Scratch(1, total * sizeof(T)));
    const TensorRef& out_indices = tensor(kOutIndices);
    const bool want_indices = act == Act::kMax && out_indices.dtype != ACL_DT_UNDEFINED;
    const bool direct_indices = want_indices && !mask && out_indices.dtype == ACL_INT64 && out_indices.Contiguous();
    int64_t* yi = !want_indices ? nullptr
                  : direct_indices ? reinterpret_cast<int64_t*>(out_indices.first)
                                   : static_cast<int64_t*>(Scratch(2, total * sizeof(int64_t)));
    const int64_t W = axes[2].in, HW = axes[1].in * axes[2].in;
    const Windows &a0 = *w[0], &a1 = *w[1], &a2 = *w[2];

    auto plane = [&](int64_t p) {
      const T* src = x + p * from;
      T* dst = y + p * to;
      if (act == Act::kIndexAdd || act == Act::kUnpool || act == Act::kAddBack || act == Act::kMaskAdd) {
        std::fill(dst, dst + to, T(0));
      }
      if (act == Act::kMaskAdd) {
        const int64_t row = MaskRow(), rows = MaskRows(), kW = axes[2].kernel, Wo = axes[2].out;
        const int64_t* bytes = indices + p * rows * row;
        for (int64_t o = 0; o < from; ++o) {
          for (int64_t k = 0; k < rows; ++k) {
            const int64_t* word = bytes + k * row + 2 * o;
            if (((word[0] & 0xFF) | (word[1] & 0xFF) << 8) == 0) continue;
            int64_t h, w;
            WindowPosition(o / Wo, o % Wo, k / kW, k % kW, &h, &w);
            if (h >= 0 && h < axes[1].in && w >= 0 && w < W) dst[h * W + w] = T(dst[h * W + w] + src[o]);
          }
        }
        return;
      }
      if (act == Act::kUnpoolBack) {
        const int64_t* at = indices + p * to;
        for (int64_t o = 0; o < to; ++o) dst[o] = src[at[o]];
        return;
      }
      if (act == Act::kIndexAdd || act == Act::kUnpool) {
        const int64_t* at = indices + p * from;
        for (int64_t o = 0; o < from; ++o) {
          if (act == Act::kUnpool) dst[at[o]] = src[o];
          else dst[at[o]] = T(dst[at[o]] + src[o]);
        }
        return;
      }
      int64_t o = 0;
      for (int64_t od = 0; od < axes[0].out; ++od) {
        for (int64_t oh = 0; oh < axes[1].out; ++oh) {
          for (int64_t ow = 0; ow < axes[2].out; ++ow, ++o) {
            const int64_t d0 = a0.first[od], h0 = a1.first[oh], w0 = a2.first[ow];
            const int64_t nd = a0.count[od], nh = a1.count[oh], nw = a2.count[ow];
            const int64_t sd = a0.step, sh = a1.step, sw = a2.step;
            if (act == Act::kCopy) {
              dst[o] = src[d0 * HW + h0 * W + w0];
            } else if (act == Act::kMax) {
              T best = Lowest<T>();
              int64_t where = d0 * HW + h0 * W + w0;
              for (int64_t i = 0; i < nd; ++i) {
                for (int64_t j = 0; j < nh; ++j) {
                  const int64_t row = (d0 + i * sd) * HW + (h0 + j * sh) * W + w0;
                  for (int64_t k = 0; k < nw; ++k) {
                    const T v = src[row + k * sw];
                    // PyTorch's rule: a larger value or a NaN takes the place.
                    if (v > best || IsNan(v)) best = v, where = row + k * sw;
                  }
                }
              }
              dst[o] = best;
              if (yi) yi[p * to + o] = where;
            } else {
              int64_t divisor = divisor_override;
              if (divisor == 0) {
                divisor = count_include_pad ? a0.padded[od] * a1.padded[oh] * a2.padded[ow] : nd * nh * nw;
              }
              if (act == Act::kMean) {
                Acc sum = 0;
                for (int64_t i = 0; i < nd; ++i) {
                  for (int64_t j = 0; j < nh; ++j) {
                    const T* row = src + (d0 + i * sd) * HW + (h0 + j * sh) * W + w0;
                    for (int64_t k = 0; k < nw; ++k) sum += row[k * sw];
                  }
                }
                dst[o] = divisor != 0 ? T(sum / static_cast<Acc>(divisor)) : T(0);
              } else {  // kAddBack: a padding's gradient (one position, divisor 1) or an average's
                const bool pad = traits_.walk == Walk::kReflect || traits_.walk == Walk::kReplicate ||
                                 traits_.walk == Walk::kCircular;
                const T g = pad ? src[o] : divisor != 0 ? T(src[o] / static_cast<Acc>(divisor)) : T(0);
                for (int64_t i = 0; i < nd; ++i) {
                  for (int64_t j = 0; j < nh; ++j) {
                    T* row = dst + (d0 + i * sd) * HW + (h0 + j * sh) * W + w0;
                    for (int64_t k = 0; k < nw; ++k) row[k * sw] += g;
                  }
                }
              }
            }
          }
        }
      }
    };
    const int64_t work = planes * std::max(from, to);
    if (work < (1 << 15) || planes == 1) {
      for (int64_t p = 0; p < planes; ++p) plane(p);
    } else {
      const int64_t tasks = std::min<int64_t>(planes, ParallelThreads() * 4);
      ParallelFor(tasks, [&](int64_t task) {
        for (int64_t p = planes * task / tasks; p < planes * (task + 1) / tasks; ++p) plane(p);
      });
    }
    if (!direct) ScatterFrom(y, type, out);
    if (yi && mask) WriteMask(yi);
    else if (yi && !direct_indices) ScatterFrom(yi, ComputeType::kInt64, out_indices);
    return ACLNN_SUCCESS;
  }

  int op_;
  OpTraits traits_;
};

// --- phase 1 ------------------------------------------------------------------------------------

// The role an output-size problem names.
int RoleOfProblem(PoolProblem p) {
  switch (p) {
    case aclnn_bindgen::kPoolStride: return F::Role::kStride;
    case aclnn_bindgen::kPoolDilation: return F::Role::kDilation;
    case aclnn_bindgen::kPoolPadding:
    case aclnn_bindgen::kPoolReflection: return F::Role::kPadding;
    default: return F::Role::kKernel;
  }
}

aclnnStatus RejectProblem(const Call& call, const FamilySpec& family, PoolProblem p, int64_t value, int64_t extent) {
  const int role = RoleOfProblem(p);
  const bool output = p == aclnn_bindgen::kPoolOutput;
  std::string what = output ? std::string("with the other window arguments, ") + aclnn_bindgen::PoolProblemText(p)
                            : "value " + std::to_string(value) + " " + aclnn_bindgen::PoolProblemText(p);
  what += " (over an input dimension of " + std::to_string(extent) + ")";
  // The page's error row for it: "通过公式推导出的out的shape的某个轴为0", or the one bounding the argument's values
  // (an array's length is its shape, which no value row states).
  if (p == aclnn_bindgen::kPoolLength) return RejectInvalid(call, family, role, what);
  return RejectByRow(call, family, role, output ? RowKind::kOutputSize : RowKind::kValue, what);
}

// gen.conventions 11: the tensor a pool or a padding walks has non-empty planes, and channels where
// it has a batch: every dimension but the leading one is greater than 0 (aten's pooling and padding
// shape checks, "non-empty 3D or 4D (batch mode) tensor expected"; CANN refuses nInputPlane 0),
// unless its page says it supports empty tensors.
aclnnStatus CheckNonEmptyPlanes(const Call& call, const FamilySpec& family, const Dims& input) {
  if (call.spec.params[family.roles[F::Role::kSelf]].empty == EmptyTensor::kAllowed) return ACLNN_SUCCESS;
  for (size_t d = 1; d < input.size(); ++d) {
    if (input[d] == 0) {
      return RejectInvalid(call, family, F::Role::kSelf, "dimension " + std::to_string(d) +
                                                       " is 0: only the leading (batch) dimension may be empty");
    }
  }
  return ACLNN_SUCCESS;
}

// The family's onnx_window option: its window arguments are ONNX's (aclnnMaxPool's page), read by
// aclnn_bindgen::ReadOnnxWindow as the bindings' output-shape rule reads them.
bool IsOnnxWindow(const FamilySpec& family) {
  return family.has_option(F::Option::kOnnxWindow) && family.options[F::Option::kOnnxWindow] != 0;
}

// The spatial axes of a sliding-window op: extents from self, window arguments from the roles.
aclnnStatus WindowAxes(const Call& call, const FamilySpec& family, const Dims& input, int spatial,
                       PoolWork* work) {
  Dims kernel, stride, padding, dilation;
  RoleInts(call, family, F::Role::kKernel, &kernel);
  RoleInts(call, family, F::Role::kStride, &stride);
  RoleInts(call, family, F::Role::kPadding, &padding);
  RoleInts(call, family, F::Role::kDilation, &dilation);
  if (IsOnnxWindow(family)) aclnn_bindgen::ReadOnnxWindow(spatial, &stride, &padding);  // PlanPool declined the rest
  aclnn_bindgen::PoolWindow w;
  const auto bad = aclnn_bindgen::SpreadPoolWindow(spatial, kernel.data(), kernel.size(), stride.data(), stride.size(),
                                                   padding.data(), padding.size(), dilation.data(), dilation.size(), &w);
  if (bad != aclnn_bindgen::kPoolWindowOk) {
    static const int kRoles[] = {0, F::Role::kKernel, F::Role::kStride, F::Role::kPadding, F::Role::kDilation};
    const Dims* given[] = {nullptr, &kernel, &stride, &padding, &dilation};
    return RejectInvalid(call, family, kRoles[bad],
                   std::string(aclnn_bindgen::PoolProblemText(aclnn_bindgen::kPoolLength)) + " (" +
                       std::to_string(given[bad]->size()) + " values; give 1 or " + std::to_string(spatial) + ")");
  }
  const bool ceil_mode = RoleBool(call, family, F::Role::kCeilMode, false);
  const size_t lead = input.size() - static_cast<size_t>(spatial);
  for (int d = 0; d < spatial; ++d) {
    Axis& a = work->axes[kMaxSpatial - spatial + d];
    a.in = input[lead + static_cast<size_t>(d)];
    a.kernel = w.kernel[d], a.stride = w.stride[d], a.before = w.padding[d], a.dilation = w.dilation[d];
    const PoolProblem p = aclnn_bindgen::PooledExtent(a.in, a.kernel, a.stride, a.before, a.dilation, ceil_mode, &a.out);
    if (p != aclnn_bindgen::kPoolOk) {
      const int64_t value = p == aclnn_bindgen::kPoolStride ? a.stride : p == aclnn_bindgen::kPoolDilation ? a.dilation
                            : p == aclnn_bindgen::kPoolPadding ? a.before : a.kernel;
      return RejectProblem(call, family, p, value, a.in);
    }
  }
  return ACLNN_SUCCESS;
}

// The spatial axes of a padding: `padding` pairs (before, after) from the last dimension inwards.
aclnnStatus PadAxes(const Call& call, const FamilySpec& family, bool reflection, const Dims& input, int spatial,
                    PoolWork* work) {
  Dims pads;
  RoleInts(call, family, F::Role::kPadding, &pads);
  if (pads.size() != static_cast<size_t>(2 * spatial)) {
    return RejectInvalid(call, family, F::Role::kPadding, "has " + std::to_string(pads.size()) + " values; give " +
                                                        std::to_string(2 * spatial) + " (before and after, last dimension first)");
  }
  const size_t lead = input.size() - static_cast<size_t>(spatial);
  for (int d = 0; d < spatial; ++d) {
    Axis& a = work->axes[kMaxSpatial - spatial + d];
    a.in = input[lead + static_cast<size_t>(d)];
    const PoolProblem p = aclnn_bindgen::PaddedDimension(a.in, pads.data(), spatial, d, reflection, &a.before, &a.out);
    if (p != aclnn_bindgen::kPoolOk) {
      const size_t pair = static_cast<size_t>(2 * (spatial - 1 - d));
      return RejectInvalid(call, family, F::Role::kPadding,
                     "[" + std::to_string(pads[pair]) + ", " + std::to_string(pads[pair + 1]) + "] " +
                         aclnn_bindgen::PoolProblemText(p) + " (over an input dimension of " + std::to_string(a.in) + ")");
    }
  }
  return ACLNN_SUCCESS;
}

// The spatial extents `outputSize` names, each positive.
aclnnStatus OutputSize(const Call& call, const FamilySpec& family, int spatial, int64_t* size) {
  Dims given;
  RoleInts(call, family, F::Role::kOutputSize, &given);
  if (!aclnn_bindgen::SpreadPoolArgument(given.data(), given.size(), spatial, nullptr, size)) {
    return RejectInvalid(call, family, F::Role::kOutputSize, "has " + std::to_string(given.size()) + " values; give " +
                                                           std::to_string(spatial));
  }
  for (int d = 0; d < spatial; ++d) {
    if (size[d] <= 0) return RejectInvalid(call, family, F::Role::kOutputSize, "value " + std::to_string(size[d]) + " must be greater than 0");
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanPool(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  // The mask's forward and backward share an op; the backward is the one with a gradient.
  const bool mask = op == F::Op::kMaxPoolMask;
  const bool mask_backward = mask && RoleTensor(call, family, F::Role::kGradOutput) != nullptr;
  const OpTraits traits = mask_backward ? OpTraits{Walk::kWindow, Act::kMaskAdd, true} : TraitsOf(op);
  SourceAndOutput found;
  if (!ReadSourceAndOutput(call, family, F::Role::kSelf, F::Role::kOut, work, &found)) return ACLNN_SUCCESS;
  const auto [self, out, rank] = found;
  // The semantics file says over how many trailing dimensions (a 2d page's self may have 3 or 4).
  const double stated = family.options[F::Option::kSpatial];
  if (!(stated >= 1 && stated <= kMaxSpatial)) {
    return Decline(call, work, "without the semantics' spatial option (1, 2 or 3 trailing dimensions)");
  }
  const int spatial = static_cast<int>(stated);
  if (rank < spatial) {
    return RejectInvalid(call, family, F::Role::kSelf, "has " + std::to_string(rank) + " dimensions; the op pools its last " +
                                                     std::to_string(spatial));
  }
  if (aclnnStatus s = CheckNonEmptyPlanes(call, family, self->view)) return s;
  ComputeType type;
  const bool integers = traits.act == Act::kMax || traits.act == Act::kCopy || traits.act == Act::kUnpool ||
                        traits.act == Act::kUnpoolBack;
  if (!FamilyComputeType(self->dtype, integers, &type) ||
      (!integers && type != ComputeType::kFloat32 && type != ComputeType::kFloat64)) {
    return DeclineDtype(call, work, self->dtype);
  }
  if (traits.walk == Walk::kWindow && IsOnnxWindow(family)) {
    Dims stride, padding;
    RoleInts(call, family, F::Role::kStride, &stride);
    RoleInts(call, family, F::Role::kPadding, &padding);
    if (!aclnn_bindgen::ReadOnnxWindow(spatial, &stride, &padding)) {
      return Decline(call, work, "for pads " + DimsText(padding) + ": padding that differs at a dimension's two ends");
    }
  }
  PoolWork* made = new PoolWork(call.spec.name, op, traits);
  std::unique_ptr<PoolWork> owned(made);
  made->type = type;
  made->mask = mask;
  made->count_include_pad = RoleBool(call, family, F::Role::kCountIncludePad, true);
  // Any value but 0 divides, a negative one too: no page bounds it (aclnnAvgPool2dBackward's allows
  // [-255, 255] on Ascend910 and Ascend310P), op-plugin passes PyTorch's divisor_override as given,
  // refusing 0 alone, and PyTorch divides by it; 0 is the window's size.
  made->divisor_override = RoleInt(call, family, F::Role::kDivisorOverride, 0);
  const Dims& input = self->view;
  const size_t lead = input.size() - static_cast<size_t>(spatial);
  for (size_t d = 0; d < lead; ++d) made->planes *= input[d];
  aclnnStatus status = ACLNN_SUCCESS;
  if (traits.act == Act::kUnpool || traits.act == Act::kUnpoolBack) {
    int64_t size[kMaxSpatial];
    status = OutputSize(call, family, spatial, size);
    for (int d = 0; d < spatial && !status; ++d) {
      // self holds the pooled values; the result is outputSize.
      Axis& a = made->axes[kMaxSpatial - spatial + d];
      a.in = size[d], a.out = input[lead + static_cast<size_t>(d)];
    }
  } else if (traits.walk == Walk::kWindow) {
    status = WindowAxes(call, family, input, spatial, made);
  } else if (traits.walk == Walk::kAdaptive) {
    int64_t size[kMaxSpatial];
    const TensorDesc* grad = traits.backward ? RoleTensor(call, family, F::Role::kGradOutput) : nullptr;
    if (grad != nullptr) {
      // The backward's output size is grad_output's (its page has no outputSize).
      if (grad->view.size() != input.size()) {
        return RejectInvalid(call, family, F::Role::kGradOutput, "must have as many dimensions as self");
      }
      for (int d = 0; d < spatial; ++d) size[d] = grad->view[lead + static_cast<size_t>(d)];
    } else {
      status = OutputSize(call, family, spatial, size);
    }
    for (int d = 0; d < spatial && !status; ++d) {
      Axis& a = made->axes[kMaxSpatial - spatial + d];
      a.in = input[lead + static_cast<size_t>(d)], a.out = size[d];
      if (a.out <= 0) status = RejectInvalid(call, family, F::Role::kGradOutput, "has an empty spatial dimension");
    }
  } else {
    // Circular pads, as reflection's, each in [0, in) (the CircularPad pages: "padding的数值大于等于self对应维度的大小" fails).
    status = PadAxes(call, family, traits.walk == Walk::kReflect || traits.walk == Walk::kCircular, input, spatial, made);
  }
  if (status) return status;

  // The pooled shape: self's leading dimensions, then the walk's output extents (an unpool's:
  // outputSize, which Axis::in holds).
  Dims pooled(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(lead));
  for (int d = 0; d < spatial; ++d) {
    const Axis& a = made->axes[kMaxSpatial - spatial + d];
    pooled.push_back(traits.act == Act::kUnpool || traits.act == Act::kUnpoolBack ? a.in : a.out);
  }
  // The mask's shape: the planes, then one row per kernel position (the layout above).
  Dims masked(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(lead));
  masked.push_back(made->axes[1].kernel * made->axes[2].kernel);
  masked.push_back(aclnn_bindgen::MaxPoolMaskRow(made->axes[1].out * made->axes[2].out));
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  if (traits.act == Act::kUnpoolBack) {
    // grad_output has the unpooled shape (self's leading dimensions, then outputSize); out, self's.
    const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradOutput);
    if (grad == nullptr) return Decline(call, work, "without gradOutput");
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOutput, grad, pooled, "self's leading dimensions, then outputSize")) {
      return s;
    }
    made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGradOutput), *grad);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, input, "self's shape", kOut)) return s;
  } else if (traits.backward) {
    const TensorDesc* grad = RoleTensor(call, family, F::Role::kGradOutput);
    if (grad == nullptr) return Decline(call, work, "without gradOutput");
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOutput, grad, pooled, "the pooled shape")) return s;
    made->tensor(kGrad).Set(RoleName(call, family, F::Role::kGradOutput), *grad);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, input, "self's shape", kOut)) return s;
  } else {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, pooled, "the pooled shape", kOut)) return s;
    if (traits.act == Act::kMax) {
      if (const TensorDesc* indices = RoleTensor(call, family, F::Role::kOutIndices)) {
        if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOutIndices, *indices, mask ? masked : pooled,
                                             mask ? "the mask's shape" : "the pooled shape", kOutIndices)) {
          return s;
        }
      }
    }
  }
  if (traits.act == Act::kIndexAdd || traits.act == Act::kUnpool || traits.act == Act::kMaskAdd ||
      traits.act == Act::kUnpoolBack) {
    const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
    if (indices == nullptr) return Decline(call, work, "without indices");
    const Dims& want = traits.act == Act::kUnpool || traits.act == Act::kUnpoolBack ? input : mask ? masked : pooled;
    const char* what = mask ? "the mask's shape" : "the values' shape";
    if (aclnnStatus s = CheckShape(call, family, F::Role::kIndices, indices, want, what)) return s;
    made->tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), *indices);
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
