// aclnn-bindgen: a convolution's output-size arithmetic, the one copy the bindings (the shape of an
// output the caller does not pass) and the simulator (phase 1's checks, the convolution family's
// planner) share, so that the shape a binding allocates is the shape phase 1 accepts.
//
// A spatial dimension of a convolution:   out = (in + pad_before + pad_after - dilation * (k - 1) - 1) / stride + 1
// and of a transposed one:                 out = (in - 1) * stride - 2 * pad + dilation * (k - 1) + output_padding + 1
// (the aclnnConvolution page's formulas; PyTorch's too).
#ifndef ACLNN_BINDGEN_CONV_SHAPE_H_
#define ACLNN_BINDGEN_CONV_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn_bindgen/shape_rule.h"

namespace aclnn_bindgen {

inline int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad_before, int64_t pad_after,
                              int64_t dilation) {
  const int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  // Floor division: a kernel wider than the padded input gives a size <= 0 (which callers refuse),
  // not the 1 that C's truncation towards zero would give for -stride < span < 0.
  return (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
}

inline int64_t ConvTransposedOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                                        int64_t dilation, int64_t output_padding) {
  return (in - 1) * stride - 2 * pad + dilation * (kernel - 1) + output_padding + 1;
}

// A convolution's arguments as aclnnConvolution takes them (the spatial ones per spatial
// dimension; padding per dimension or as (before, after) pairs).
struct ConvArgs {
  std::vector<int64_t> input, weight;  // [N, C, spatial...] and [C_out, C_in / groups, k...]
                                       // (transposed: [C_in, C_out / groups, k...])
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

// What a problem is about, so that a refusal answers the page's row for it: an argument's shape or
// length, its values, or the output size they give together.
enum ConvProblemKind { kConvShape, kConvValue, kConvOutputSize };

// Which argument is wrong, and why; empty when the arguments are valid.
struct ConvProblem {
  std::string param;  // "stride", "padding", "dilation", "outputPadding", "groups", "weight", "input"
  std::string message;
  ConvProblemKind kind = kConvShape;
  bool ok() const { return param.empty(); }
};

inline std::string ConvDimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d) text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + "]";
}

// The padding of spatial dimension d before and after it: padding holds one value per dimension,
// or a (before, after) pair per dimension.
inline void ConvPadding(const ConvArgs& a, size_t d, int64_t* before, int64_t* after) {
  const size_t spatial = a.input.size() - 2;
  if (a.padding.size() == 2 * spatial && spatial > 0) {
    *before = a.padding[2 * d];
    *after = a.padding[2 * d + 1];
  } else {
    *before = *after = a.padding[d];
  }
}

// Checks the arguments against each other and derives the output's shape ([N, C_out, spatial...]).
// The rules are the aclnnConvolution page's: strides > 0, dilations >= 1, paddings >= 0, output
// paddings >= 0 and below the stride or the dilation (transposed), groups dividing the channels,
// the weight as many dimensions as the input, every output size > 0.
inline ConvProblem ConvOutputShape(const ConvArgs& a, std::vector<int64_t>* out) {
  const size_t rank = a.input.size();
  if (rank < 3) return {"input", "must have 3 to 5 dimensions ([N, C, spatial...]), got shape " + ConvDimsText(a.input)};
  if (a.weight.size() != rank) {
    return {"weight", "shape " + ConvDimsText(a.weight) + " must have as many dimensions as the input's " +
                          ConvDimsText(a.input)};
  }
  const size_t spatial = rank - 2;
  const std::string count = std::to_string(spatial);
  if (a.stride.size() != spatial) return {"stride", "must have " + count + " values (one per spatial dimension), got " + ConvDimsText(a.stride)};
  if (a.dilation.size() != spatial) return {"dilation", "must have " + count + " values (one per spatial dimension), got " + ConvDimsText(a.dilation)};
  const bool pairs = !a.transposed && spatial <= 2 && a.padding.size() == 2 * spatial;
  if (a.padding.size() != spatial && !pairs) {
    return {"padding", "must have " + count + " values (one per spatial dimension)" +
                           (!a.transposed && spatial <= 2 ? " or " + std::to_string(2 * spatial) + " (before and after each)" : "") +
                           ", got " + ConvDimsText(a.padding)};
  }
  if (a.transposed && a.output_padding.size() != spatial) {
    return {"outputPadding", "must have " + count + " values (one per spatial dimension), got " + ConvDimsText(a.output_padding)};
  }
  for (size_t d = 0; d < spatial; ++d) {
    if (a.stride[d] <= 0) return {"stride", "values must be greater than 0, got " + ConvDimsText(a.stride), kConvValue};
    if (a.dilation[d] < 1) return {"dilation", "values must be at least 1, got " + ConvDimsText(a.dilation), kConvValue};
  }
  for (int64_t p : a.padding) {
    if (p < 0) return {"padding", "values must be at least 0, got " + ConvDimsText(a.padding), kConvValue};
  }
  if (a.groups < 1 || a.groups > 65535) return {"groups", "must be in [1, 65535], got " + std::to_string(a.groups), kConvValue};
  const int64_t channels = a.input[1];
  if (channels % a.groups != 0) {
    return {"groups", std::to_string(a.groups) + " does not divide the input's " + std::to_string(channels) + " channels"};
  }
  int64_t out_channels;
  if (a.transposed) {
    if (a.weight[0] != channels) {
      return {"weight", "shape " + ConvDimsText(a.weight) + ": a transposed convolution's weight has the input's " +
                            std::to_string(channels) + " channels first"};
    }
    out_channels = a.weight[1] * a.groups;
  } else {
    if (a.weight[1] * a.groups != channels) {
      return {"weight", "shape " + ConvDimsText(a.weight) + ": its dimension 1 times groups (" + std::to_string(a.groups) +
                            ") must be the input's " + std::to_string(channels) + " channels"};
    }
    if (a.weight[0] % a.groups != 0) {
      return {"groups", std::to_string(a.groups) + " does not divide the weight's " + std::to_string(a.weight[0]) +
                            " output channels"};
    }
    out_channels = a.weight[0];
  }
  out->assign({a.input[0], out_channels});
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in = a.input[2 + d], k = a.weight[2 + d];
    if (k < 1) return {"weight", "shape " + ConvDimsText(a.weight) + ": kernel sizes must be at least 1"};
    int64_t size;
    if (a.transposed) {
      const int64_t op = a.output_padding[d];
      if (op < 0 || (op >= a.stride[d] && op >= a.dilation[d])) {
        return {"outputPadding", "values must be at least 0 and below the stride or the dilation, got " +
                                     ConvDimsText(a.output_padding), kConvValue};
      }
      size = ConvTransposedOutputSize(in, k, a.stride[d], a.padding[d], a.dilation[d], op);
    } else {
      int64_t before, after;
      ConvPadding(a, d, &before, &after);
      size = ConvOutputSize(in, k, a.stride[d], before, after, a.dilation[d]);
    }
    if (size <= 0) {
      return {"input", "spatial shape " + ConvDimsText(a.input) + " gives an output size of " + std::to_string(size) +
                           " in spatial dimension " + std::to_string(d) + " (kernel " + std::to_string(k) +
                           ", dilated and padded): it must be greater than 0", kConvOutputSize};
    }
    out->push_back(size);
  }
  return {};
}

// The convolution rule (shape_rule.h): source convolved by second, the weight. Every array argument
// must be given (groups may be absent: 1); arguments that do not agree give no shape.
inline bool ConvolutionRule(const ShapeArgs& args, Dims* shape) {
  if (args.second == nullptr) return false;
  ConvArgs a;
  a.input.assign(shape->begin(), shape->end());
  a.weight.assign(args.second->begin(), args.second->end());
  const IntsArg* given[4] = {&args.stride, &args.padding, &args.dilation, &args.output_padding};
  std::vector<int64_t>* arrays[4] = {&a.stride, &a.padding, &a.dilation, &a.output_padding};
  for (int i = 0; i < 4; ++i) {
    if (!given[i]->read()) return false;
    arrays[i]->assign(given[i]->values.begin(), given[i]->values.end());
  }
  a.transposed = args.transposed;
  if (args.groups.unreadable() || (args.groups.read() && args.groups.values.size() != 1)) return false;
  if (args.groups.read()) a.groups = args.groups.values[0];
  std::vector<int64_t> out;
  if (!ConvOutputShape(a, &out).ok()) return false;
  *shape = Dims(out.begin(), out.end());
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_CONV_SHAPE_H_
