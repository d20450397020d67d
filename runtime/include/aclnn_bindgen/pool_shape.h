// aclnn-bindgen: the pooling and padding families' output-size arithmetic, the one copy the
// bindings (an output allocated without out=) and the simulator (phase 1's checks, the planner's
// shapes) share, so that the two cannot disagree about a window's kernel, stride, padding,
// dilation and ceil mode.
//
// The rule is the pages' formula, which is PyTorch's pooling_output_shape:
//   out = floor((in + 2 * padding - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0)) / stride) + 1,
// less one when ceil mode lets the last window start inside the right padding only.
#ifndef ACLNN_BINDGEN_POOL_SHAPE_H_
#define ACLNN_BINDGEN_POOL_SHAPE_H_

#include <cstddef>
#include <cstdint>

#include "aclnn_bindgen/shape_rule.h"

namespace aclnn_bindgen {

// What is wrong with one dimension's window arguments, naming the argument; kPoolOk when none is.
enum PoolProblem {
  kPoolOk,
  kPoolKernel,      // kernel <= 0
  kPoolStride,      // stride <= 0
  kPoolDilation,    // dilation <= 0
  kPoolPadding,     // padding < 0 or padding > kernel / 2
  kPoolOutput,      // the output size is not positive
  kPoolReflection,  // a reflection padding is not smaller than the dimension
  kPoolLength,      // an argument array's length is not 1 (one for every dimension) or the dimensions'
};

inline const char* PoolProblemText(PoolProblem p) {
  switch (p) {
    case kPoolKernel: return "must be greater than 0";
    case kPoolStride: return "must be greater than 0";
    case kPoolDilation: return "must be greater than 0";
    case kPoolPadding: return "must be at least 0 and at most half the kernel size";
    case kPoolOutput: return "gives an output size that is not positive";
    case kPoolReflection: return "must each be smaller than the dimension they pad";
    case kPoolLength: return "has a length the page does not allow";
    default: return "";
  }
}

inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The output extent of a sliding window over `in` elements, or the argument at fault.
inline PoolProblem PooledExtent(int64_t in, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                                bool ceil_mode, int64_t* out) {
  if (kernel <= 0) return kPoolKernel;
  if (stride <= 0) return kPoolStride;
  if (dilation <= 0) return kPoolDilation;
  if (padding < 0 || padding > kernel / 2) return kPoolPadding;
  int64_t n = FloorDiv(in + 2 * padding - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (n - 1) * stride >= in + padding) --n;
  if (n <= 0) return kPoolOutput;
  *out = n;
  return kPoolOk;
}

// The pads' one formula (F.pad's, the pages': "out最后一维度的数值等于self最后一维度的数值加padding前两个值"):
// a dimension of `in` elements padded by `before` and `after` (negative ones crop).
inline int64_t PaddedSize(int64_t in, int64_t before, int64_t after) { return in + before + after; }

// `shape` padded by `count` values of pairs (before, after), the last dimension's first, as F.pad and
// the pages order them (gen.ir.PaddedShape; aclnnConstantPadNd pads as many dimensions as it has
// pairs). False for an odd count or more pairs than dimensions.
inline bool PadShape(const int64_t* pads, size_t count, Dims* shape) {
  if (count % 2 != 0 || count / 2 > shape->size()) return false;
  for (size_t k = 0; k < count / 2; ++k) {
    int64_t& size = (*shape)[shape->size() - 1 - k];
    size = PaddedSize(size, pads[2 * k], pads[2 * k + 1]);
  }
  return true;
}

// The extent of a dimension padded by `before` and `after`: for reflection, each smaller than `in`.
inline PoolProblem PaddedExtent(int64_t in, int64_t before, int64_t after, bool reflection, int64_t* out) {
  if (reflection && (before >= in || after >= in || before < 0 || after < 0)) return kPoolReflection;
  const int64_t n = PaddedSize(in, before, after);
  if (n <= 0) return kPoolOutput;
  *out = n;
  return kPoolOk;
}

// Spatial dimension d (outermost first) of `spatial` padded by `pads`, the pairs (before, after)
// from the last dimension inwards as F.pad and the pages order them; `before` receives the pair's first.
inline PoolProblem PaddedDimension(int64_t in, const int64_t* pads, int spatial, int d, bool reflection,
                                   int64_t* before, int64_t* out) {
  const int pair = 2 * (spatial - 1 - d);
  *before = pads[pair];
  return PaddedExtent(in, pads[pair], pads[pair + 1], reflection, out);
}

// One window argument for `spatial` dimensions from an array of `n` values: one value for every
// dimension, or one per dimension; an empty array takes `fallback` (a stride's: the kernel), when
// given. False for any other length.
inline bool SpreadPoolArgument(const int64_t* values, size_t n, int spatial, const int64_t* fallback, int64_t* out) {
  if (n == 0 && fallback != nullptr) {
    for (int d = 0; d < spatial; ++d) out[d] = fallback[d];
    return true;
  }
  if (n != 1 && n != static_cast<size_t>(spatial)) return false;
  for (int d = 0; d < spatial; ++d) out[d] = values[n == 1 ? 0 : d];
  return true;
}

// ONNX's window arguments (aclnnMaxPool's page: the family's onnx_window option) as the pages' others:
// an empty strides is 1 each ("当数组长度为0时，strides取默认值为1", where the others' is the kernel),
// empty pads no padding, and 2 * spatial pads ({上,左,下,右}: every begin, then every end) the
// symmetric padding of their begins. False for pads whose two ends differ, which the pool walk
// does not model.
inline bool ReadOnnxWindow(int spatial, Dims* stride, Dims* padding) {
  if (stride->empty()) stride->assign(static_cast<size_t>(spatial), 1);
  if (padding->empty()) padding->assign(static_cast<size_t>(spatial), 0);
  if (padding->size() != static_cast<size_t>(2 * spatial)) return true;
  const Dims begins(padding->begin(), padding->begin() + spatial), ends(padding->begin() + spatial, padding->end());
  if (begins != ends) return false;
  *padding = begins;
  return true;
}

// A sliding window's arguments for each of `spatial` dimensions (outermost first).
struct PoolWindow {
  int64_t kernel[3], stride[3], padding[3], dilation[3];
};

// Which argument of a window has a length the pages do not allow (kPoolWindowOk: none).
enum PoolWindowArgument { kPoolWindowOk, kPoolWindowKernel, kPoolWindowStride, kPoolWindowPadding, kPoolWindowDilation };

// The window from its arguments as the pages give them: each of 1 or `spatial` values; an empty
// stride is the kernel (the pages' "数组长度为0时，内部会取kernelSize的值"), an empty or absent
// dilation is 1.
inline PoolWindowArgument SpreadPoolWindow(int spatial, const int64_t* kernel, size_t nk, const int64_t* stride, size_t ns,
                                           const int64_t* padding, size_t np, const int64_t* dilation, size_t nd,
                                           PoolWindow* w) {
  static const int64_t ones[3] = {1, 1, 1};
  if (!SpreadPoolArgument(kernel, nk, spatial, nullptr, w->kernel)) return kPoolWindowKernel;
  if (!SpreadPoolArgument(stride, ns, spatial, w->kernel, w->stride)) return kPoolWindowStride;
  if (!SpreadPoolArgument(padding, np, spatial, nullptr, w->padding)) return kPoolWindowPadding;
  if (!SpreadPoolArgument(dilation, nd, spatial, ones, w->dilation)) return kPoolWindowDilation;
  return kPoolWindowOk;
}

// Window d of output index o in an adaptive pool from `in` to `out` elements: [begin, end).
inline int64_t AdaptiveBegin(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
inline int64_t AdaptiveEnd(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

// The length in bytes of a row of aclnnMaxPool2dWithMask's INT8 mask (its page's shape: blocks of 16
// output positions, 2 bytes each, and one block more) for `positions` = Hout * Wout.
inline int64_t MaxPoolMaskRow(int64_t positions) { return ((positions + 15) / 16 + 1) * 32; }

// The pool family's output-shape rules (shape_rule.h): the source's leading dimensions, then its
// last `spatial` ones pooled by the window (kernel: dims), replaced by the output size (adaptive:
// dims), or widened by the padding pairs, last dimension first (pad: dims). No shape when an
// argument does not give one (the library then says which is wrong).
enum class PoolRuleKind { kPool, kAdaptive, kPad };

inline bool PooledShape(PoolRuleKind kind, const ShapeArgs& args, Dims* shape) {
  const int spatial = args.spatial;
  if (spatial < 1 || spatial > 3 || shape->size() < static_cast<size_t>(spatial) || !args.dims.read()) return false;
  const Dims& first = args.dims.values;
  const size_t lead = shape->size() - static_cast<size_t>(spatial);
  PoolWindow window;
  int64_t size[3] = {0, 0, 0};
  if (kind == PoolRuleKind::kPad) {
    if (first.size() != static_cast<size_t>(2 * spatial)) return false;
  } else if (kind == PoolRuleKind::kAdaptive) {
    if (!SpreadPoolArgument(first.data(), first.size(), spatial, nullptr, size)) return false;
  } else {
    // An absent stride or dilation reads as empty: the kernel's, and 1.
    if (args.stride.unreadable() || !args.padding.read() || args.dilation.unreadable()) return false;
    Dims s = args.stride.values, p = args.padding.values;
    const Dims& d = args.dilation.values;
    if (args.onnx_window && !ReadOnnxWindow(spatial, &s, &p)) return false;
    if (SpreadPoolWindow(spatial, first.data(), first.size(), s.data(), s.size(), p.data(), p.size(), d.data(),
                         d.size(), &window) != kPoolWindowOk) {
      return false;
    }
  }
  Dims out(shape->begin(), shape->begin() + static_cast<std::ptrdiff_t>(lead));
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = (*shape)[lead + static_cast<size_t>(k)];
    int64_t n = size[k], before = 0;
    if (kind == PoolRuleKind::kPool && PooledExtent(in, window.kernel[k], window.stride[k], window.padding[k],
                                                    window.dilation[k], args.ceil_mode, &n) != kPoolOk) {
      return false;
    }
    if (kind == PoolRuleKind::kPad && PaddedDimension(in, first.data(), spatial, k, false, &before, &n) != kPoolOk) {
      return false;
    }
    out.push_back(n);
  }
  *shape = out;
  return true;
}

inline bool PoolRule(const ShapeArgs& args, Dims* shape) { return PooledShape(PoolRuleKind::kPool, args, shape); }
inline bool AdaptiveRule(const ShapeArgs& args, Dims* shape) { return PooledShape(PoolRuleKind::kAdaptive, args, shape); }
inline bool PadRule(const ShapeArgs& args, Dims* shape) { return PooledShape(PoolRuleKind::kPad, args, shape); }

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_POOL_SHAPE_H_
