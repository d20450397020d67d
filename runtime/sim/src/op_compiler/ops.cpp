// The aclop bridge's table: each operator type the simulator runs by name, its prototype's
// attributes (as CANN's operator prototypes name and type them, with their defaults) and the
// simulator's aclnn API that computes it. The inputs and attributes are the ones torch_npu's
// aclop calls pass (its OpCommand: constant inputs such as a permutation or a shape are int64
// tensors placed on the host). An attribute value the aclnn API cannot express is refused with
// ACL_ERROR_OP_ATTR_NOT_MATCH naming it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "op_compiler/bridge.h"

namespace aclsim::aclop {

namespace {

// The phase-1 types of the aclnn APIs the bridge calls, written out (libopapi is looked up by
// name: the simulator's other libraries do not link it) and checked below against the generated
// prototypes where the build has them (at the end of this file).
template <typename... Params>
using Phase1 = aclnnStatus (*)(Params..., uint64_t*, aclOpExecutor**);
using UnaryApi = Phase1<const aclTensor*, aclTensor*>;                           // Silu, Mish
using WithIntsApi = Phase1<const aclTensor*, const aclIntArray*, aclTensor*>;   // Permute, Expand
using InplaceCopyApi = Phase1<aclTensor*, const aclTensor*>;
using InplaceFillScalarApi = Phase1<aclTensor*, const aclScalar*>;
using OneHotApi = Phase1<const aclTensor*, int, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using MatmulApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*, int8_t>;
using InplaceAddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*>;
using LayerNormApi = Phase1<const aclTensor*, const aclIntArray*, const aclTensor*, const aclTensor*, double, aclTensor*,
                            aclTensor*, aclTensor*>;
using SortApi = Phase1<const aclTensor*, bool, int64_t, bool, aclTensor*, aclTensor*>;
using ScaledMaskedSoftmaxApi = Phase1<const aclTensor*, const aclTensor*, double, bool, aclTensor*>;
using CdistBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, float, aclTensor*>;
using ConvolutionApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclIntArray*,
                              const aclIntArray*, const aclIntArray*, bool, const aclIntArray*, int64_t, aclTensor*, int8_t>;


// A dimension index of a tensor of `rank` dimensions, negative ones counted from the end; false
// when out of range.
bool Axis(int64_t axis, size_t rank, size_t* index) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return false;
  *index = static_cast<size_t>(axis < 0 ? axis + r : axis);
  return true;
}

// y = f(x) by an elementwise aclnn API of the same operation.
aclError Elementwise(const OpCall& call, const char* api) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, api, x, y);
}

// Swish: y = x * sigmoid(scale * x); scale 1 is SiLU.
aclError Swish(const OpCall& call) {
  const float scale = call.Float("scale", 1.0f);
  if (scale != 1.0f) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute scale = " + std::to_string(scale) +
                                                      " is not modelled (1, x * sigmoid(x), runs as aclnnSilu)");
  }
  return Elementwise(call, "aclnnSilu");
}

// x and a constant integer list (input 1) to an aclnn API taking them as an aclIntArray.
aclError WithConstList(const OpCall& call, const char* api, const char* list_name) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> list;
  if (aclError s = call.ConstInts(1, list_name, &list)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, api, x, o.Ints(list), y);
}

// x[begin:end:strides] as a strided view of x, copied into y. The masks are the prototype's bit
// sets: begin_mask from the start, end_mask to the end, shrink_axis_mask the one element at begin
// with its dimension dropped. Dimensions past the lists are taken whole. Strides below 1 and the
// ellipsis and new-axis masks are not modelled.
aclError StridedSliceOf(const OpCall& call, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                        const std::vector<int64_t>& strides, int64_t begin_mask, int64_t end_mask, int64_t shrink_mask) {
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (begin.size() != end.size() || begin.size() != strides.size() || begin.size() > dims.size()) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "begin " + ListText(begin) + ", end " + ListText(end) + " and strides " +
                                                       ListText(strides) + " do not fit x " + ListText(dims));
  }
  const std::vector<int64_t> whole = ContiguousStrides(dims);
  std::vector<int64_t> view, view_strides;
  int64_t offset = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t dim = dims[i];
    int64_t b = 0, e = dim, step = 1;
    const bool shrink = i < begin.size() && ((shrink_mask >> i) & 1);
    if (i < begin.size()) {
      step = strides[i];
      if (step < 1) {
        return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "strides " + ListText(strides) + ": a stride below 1 is not modelled");
      }
      if (!((begin_mask >> i) & 1)) b = begin[i] < 0 ? begin[i] + dim : begin[i];
      if (!((end_mask >> i) & 1)) e = end[i] < 0 ? end[i] + dim : end[i];
      if (shrink) {
        if (b < 0 || b >= dim) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "shrink_axis_mask: begin " + ListText(begin) + " is out of range");
        e = b + 1;
      }
    }
    b = std::clamp<int64_t>(b, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    offset += b * whole[i];
    if (shrink) continue;
    view.push_back(e > b ? (e - b + step - 1) / step : 0);
    view_strides.push_back(whole[i] * step);
  }
  // The elements are compared, not the shapes: torch_npu keeps a shrunk dimension as 1 in y's.
  if (Elements(view) != Elements(call.outputs[0].desc->dims)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "the slice's shape " + ListText(view) + " differs from y's " +
                                                        ListText(call.outputs[0].desc->dims));
  }
  AclnnObjects o(call);
  aclTensor* x = o.View(call.inputs[0], "x", view, view_strides, offset, dims);
  aclTensor* y = o.Tensor(call.outputs[0], "y", view);
  if (o.status()) return o.status();
  return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
}

// Slice: x, offsets, size (a size of -1: to the end of the dimension).
aclError Slice(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  std::vector<int64_t> offsets, size;
  if (aclError s = call.ConstInts(1, "offsets", &offsets)) return s;
  if (aclError s = call.ConstInts(2, "size", &size)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  if (offsets.size() != dims.size() || size.size() != dims.size()) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "offsets " + ListText(offsets) + " and size " + ListText(size) +
                                                       " do not have one value per dimension of x " + ListText(dims));
  }
  std::vector<int64_t> end(dims.size()), strides(dims.size(), 1);
  for (size_t i = 0; i < dims.size(); ++i) end[i] = size[i] == -1 ? dims[i] : offsets[i] + size[i];
  return StridedSliceOf(call, offsets, end, strides, 0, 0, 0);
}

// StridedSlice: x, begin, end, strides, with the five masks of its prototype.
aclError StridedSlice(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  for (const char* mask : {"ellipsis_mask", "new_axis_mask"}) {
    if (call.Int(mask, 0) != 0) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + mask + " = " +
                                                        std::to_string(call.Int(mask, 0)) + " is not modelled (0)");
    }
  }
  std::vector<int64_t> begin, end, strides;
  if (aclError s = call.ConstInts(1, "begin", &begin)) return s;
  if (aclError s = call.ConstInts(2, "end", &end)) return s;
  if (aclError s = call.ConstInts(3, "strides", &strides)) return s;
  return StridedSliceOf(call, begin, end, strides, call.Int("begin_mask", 0), call.Int("end_mask", 0),
                        call.Int("shrink_axis_mask", 0));
}

// Fill: y of shape `dims` (constant) holding `value` (a constant one-element tensor).
aclError Fill(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> dims;
  if (aclError s = call.ConstInts(0, "dims", &dims)) return s;
  // Element counts compared: torch_npu fills a 0-d tensor with dims [1].
  const std::vector<int64_t>& y_dims = call.outputs[0].desc->dims;
  if (Elements(dims) != Elements(y_dims)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "dims " + ListText(dims) + " hold another number of elements than y " + ListText(y_dims));
  }
  const aclDataType value_dtype = call.inputs[1].desc->dtype;
  AclnnObjects o(call);
  aclScalar* value = nullptr;
  if (value_dtype == ACL_INT32 || value_dtype == ACL_INT64) {
    std::vector<int64_t> v;
    if (aclError s = call.ConstInts(1, "value", &v)) return s;
    if (v.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input value is not one element");
    value = o.IntScalar(v[0]);
  } else {
    double v = 0;
    if (aclError s = call.ConstFloat(1, "value", &v)) return s;
    value = o.Scalar(v, ACL_DOUBLE);
  }
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceFillScalarApi>(call, "aclnnInplaceFillScalar", y, value);
}

// OneHotD: x (indices), on_value, off_value; attributes depth and axis.
aclError OneHotD(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const int64_t depth = call.Int("depth", -1);
  if (depth < 0 || depth > INT32_MAX) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute depth = " + std::to_string(depth) + " is not a non-negative int32");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* on = o.Tensor(call.inputs[1], "on_value");
  aclTensor* off = o.Tensor(call.inputs[2], "off_value");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<OneHotApi>(call, "aclnnOneHot", x, static_cast<int>(depth), on, off, call.Int("axis", -1), y);
}

// BatchMatMul / BatchMatMulV2: y = adj_x1(x1) @ adj_x2(x2) (+ bias, V2), the batch dimensions
// broadcast; adj_x transposes the last two dimensions (a strided view). MatMul / MatMulV2 (op-plugin's
// mm of a FLOAT weight in FRACTAL_NZ, which the bridge hands over in its plain layout) are the same
// with the attributes transpose_x1 and transpose_x2.
aclError MatMulTransposedBy(const OpCall& call, const char* adjoint_x1, const char* adjoint_x2) {
  if (aclError s = call.Arity(2, 4, 1)) return s;
  if (call.inputs.size() > 3 || call.Int("offset_x", 0) != 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "offset_w and offset_x (quantised inputs) are not modelled");
  }
  AclnnObjects o(call);
  auto operand = [&](size_t index, const char* what, bool adjoint) {
    const std::vector<int64_t>& dims = call.inputs[index].desc->dims;
    std::vector<int64_t> perm;
    if (adjoint && dims.size() >= 2) {
      for (size_t i = 0; i < dims.size(); ++i) perm.push_back(static_cast<int64_t>(i));
      std::swap(perm[dims.size() - 2], perm[dims.size() - 1]);
    }
    return o.Tensor(call.inputs[index], what, dims, perm);
  };
  aclTensor* x1 = operand(0, "x1", call.Bool(adjoint_x1, false));
  aclTensor* x2 = operand(1, "x2", call.Bool(adjoint_x2, false));
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* bias = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "bias") : nullptr;
  if (o.status()) return o.status();
  // cubeMathType 0 (KEEP_DTYPE): the operator's own dtype.
  if (aclError s = Aclnn<MatmulApi>(call, "aclnnMatmul", x1, x2, y, int8_t{0})) return s;
  if (!bias) return ACL_SUCCESS;
  return Aclnn<InplaceAddApi>(call, "aclnnInplaceAdd", y, bias, o.Scalar(1.0, ACL_FLOAT));
}

aclError BatchMatMul(const OpCall& call) { return MatMulTransposedBy(call, "adj_x1", "adj_x2"); }
aclError MatMul(const OpCall& call) { return MatMulTransposedBy(call, "transpose_x1", "transpose_x2"); }

// ConfusionTransposeD: a reshape to `shape` and a permutation by `perm`, the permutation first
// when transpose_first.
aclError ConfusionTransposeD(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> perm = call.Ints("perm"), shape = call.Ints("shape");
  const bool transpose_first = call.Bool("transpose_first", false);
  // The tensor the permutation reads: x in `shape`, or x itself.
  const std::vector<int64_t> permuted_from = transpose_first ? call.inputs[0].desc->dims : shape;
  if (perm.size() != permuted_from.size()) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute perm " + ListText(perm) + " does not order the " +
                                                      std::to_string(permuted_from.size()) + " dimensions of " +
                                                      ListText(permuted_from));
  }
  std::vector<int64_t> permuted(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    size_t axis = 0;
    if (!Axis(perm[i], perm.size(), &axis)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute perm " + ListText(perm) + " is out of range");
    permuted[i] = permuted_from[axis];
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x", permuted_from);
  aclTensor* y = o.Tensor(call.outputs[0], "y", transpose_first ? permuted : call.outputs[0].desc->dims);
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, "aclnnPermute", x, o.Ints(perm), y);
}

// LayerNormV3: x, gamma, beta -> y, mean, rstd, normalised over the dimensions from
// begin_norm_axis, gamma and beta over those from begin_params_axis.
aclError LayerNormV3(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 3)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  size_t norm = 0, params = 0;
  if (!Axis(call.Int("begin_norm_axis", 0), dims.size(), &norm) ||
      !Axis(call.Int("begin_params_axis", 0), dims.size(), &params)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin_norm_axis or begin_params_axis is out of range for x " + ListText(dims));
  }
  if (norm != params) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin_params_axis other than begin_norm_axis is not modelled");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* gamma = o.Tensor(call.inputs[1], "gamma");
  aclTensor* beta = o.Tensor(call.inputs[2], "beta");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* mean = o.Tensor(call.outputs[1], "mean");
  aclTensor* rstd = o.Tensor(call.outputs[2], "rstd");
  if (o.status()) return o.status();
  const std::vector<int64_t> normalized(dims.begin() + static_cast<std::ptrdiff_t>(norm), dims.end());
  return Aclnn<LayerNormApi>(call, "aclnnLayerNorm", x, o.Ints(normalized), gamma, beta,
                             static_cast<double>(call.Float("epsilon", 1e-7f)), y, mean, rstd);
}

// SortV2: the values of x sorted along axis (no indices).
aclError SortV2(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* indices = o.Scratch(ACL_INT64, call.outputs[0].desc->dims);
  if (o.status()) return o.status();
  return Aclnn<SortApi>(call, "aclnnSort", x, true, call.Int("axis", -1), call.Bool("descending", false), y, indices);
}

// ScaledMaskedSoftmax: y = softmax(x * scale, masked where mask is true).
aclError ScaledMaskedSoftmax(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* mask = o.Tensor(call.inputs[1], "mask");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ScaledMaskedSoftmaxApi>(call, "aclnnScaledMaskedSoftmax", x, mask,
                                       static_cast<double>(call.Float("scale", 1.0f)),
                                       call.Bool("fixed_triu_mask", false), y);
}

// Conv2D: x and filter in NCHW, optional bias; strides and dilations of four (N, C, H, W) values,
// pads (top, bottom, left, right), which aclnnConvolution takes symmetric only.
aclError Conv2D(const OpCall& call) {
  if (aclError s = call.Arity(2, 3, 1)) return s;
  const std::string format = call.String("data_format", "NHWC");
  if (format != "NCHW") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute data_format = " + format + " is not modelled (NCHW)");
  }
  const std::vector<int64_t> strides = call.Ints("strides"), pads = call.Ints("pads"),
                             dilations = call.Ints("dilations", {1, 1, 1, 1});
  if (strides.size() != 4 || pads.size() != 4 || dilations.size() != 4 || strides[0] != 1 || strides[1] != 1 ||
      dilations[0] != 1 || dilations[1] != 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "strides " + ListText(strides) + ", pads " + ListText(pads) + ", dilations " +
                                                      ListText(dilations) + ": four values each, 1 on N and C");
  }
  if (pads[0] != pads[1] || pads[2] != pads[3]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute pads = " + ListText(pads) +
                                                      ": asymmetric padding is not modelled");
  }
  if (call.Int("offset_x", 0) != 0) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute offset_x (quantised) is not modelled");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* filter = o.Tensor(call.inputs[1], "filter");
  aclTensor* bias = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "bias") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ConvolutionApi>(call, "aclnnConvolution", x, filter, bias, o.Ints({strides[2], strides[3]}),
                               o.Ints({pads[0], pads[2]}), o.Ints({dilations[2], dilations[3]}), false, o.Ints({0, 0}),
                               call.Int("groups", 1), y, int8_t{0});
}

// CdistGrad: x1's gradient of cdist(x1, x2, p). Its four inputs come broadcast to [..., P, R, M]
// (grad and cdist along M, x1 along R, x2 along P: op-plugin expands them), y is x1's [..., P, M];
// aclnnCdistBackward takes them unexpanded: each is read as a view of its first slice along the
// dimension it was broadcast over.
aclError CdistGrad(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  for (const Operand& input : call.inputs) {
    if (input.desc->dims != dims || dims.size() < 3) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "the inputs are not all of one broadcast shape [..., P, R, M]");
    }
  }
  if (Elements(dims) == 0) {
    // No distances (P, R or M is 0): x1's gradient is zeros, or empty.
    const Operand& y = call.outputs[0];
    const size_t bytes = std::min(y.buffer->size, static_cast<size_t>(Elements(y.desc->dims)) * aclDataTypeSize(y.desc->dtype));
    return bytes == 0 ? ACL_SUCCESS : aclrtMemsetAsync(y.buffer->data, y.buffer->size, 0, bytes, call.stream);
  }
  const std::vector<int64_t> strides = ContiguousStrides(dims);
  // The view without dimension `from_end` (1: M, 2: R, 3: P).
  auto without = [&](size_t from_end, std::vector<int64_t>* view, std::vector<int64_t>* view_strides) {
    *view = dims;
    *view_strides = strides;
    view->erase(view->end() - static_cast<std::ptrdiff_t>(from_end));
    view_strides->erase(view_strides->end() - static_cast<std::ptrdiff_t>(from_end));
  };
  std::vector<int64_t> pr, pr_strides, pm, pm_strides, rm, rm_strides;
  without(1, &pr, &pr_strides);
  without(2, &pm, &pm_strides);
  without(3, &rm, &rm_strides);
  AclnnObjects o(call);
  aclTensor* grad = o.View(call.inputs[0], "grad", pr, pr_strides, 0, dims);
  aclTensor* x1 = o.View(call.inputs[1], "x1", pm, pm_strides, 0, dims);
  aclTensor* x2 = o.View(call.inputs[2], "x2", rm, rm_strides, 0, dims);
  aclTensor* cdist = o.View(call.inputs[3], "cdist", pr, pr_strides, 0, dims);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<CdistBackwardApi>(call, "aclnnCdistBackward", grad, x1, x2, cdist, call.Float("p", 2.0f), y);
}

}  // namespace

const std::vector<OpEntry>& Entries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"Identity", {}, RunIdentity},
      {"Swish", {{"scale", K::kFloat}}, Swish},
      {"Mish", {}, [](const OpCall& c) { return Elementwise(c, "aclnnMish"); }},
      {"Transpose", {}, [](const OpCall& c) { return WithConstList(c, "aclnnPermute", "perm"); }},
      {"BroadcastTo", {}, [](const OpCall& c) { return WithConstList(c, "aclnnExpand", "shape"); }},
      {"Slice", {}, Slice},
      {"StridedSlice",
       {{"begin_mask", K::kInt}, {"end_mask", K::kInt}, {"ellipsis_mask", K::kInt}, {"new_axis_mask", K::kInt},
        {"shrink_axis_mask", K::kInt}},
       StridedSlice},
      {"Fill", {}, Fill},
      {"OneHotD", {{"depth", K::kInt}, {"axis", K::kInt}}, OneHotD},
      {"BatchMatMul", {{"adj_x1", K::kBool}, {"adj_x2", K::kBool}}, BatchMatMul},
      {"BatchMatMulV2", {{"adj_x1", K::kBool}, {"adj_x2", K::kBool}, {"offset_x", K::kInt}}, BatchMatMul},
      {"MatMul", {{"transpose_x1", K::kBool}, {"transpose_x2", K::kBool}, {"offset_x", K::kInt}}, MatMul},
      {"MatMulV2", {{"transpose_x1", K::kBool}, {"transpose_x2", K::kBool}, {"offset_x", K::kInt}}, MatMul},
      {"ConfusionTransposeD",
       {{"perm", K::kListInt}, {"shape", K::kListInt}, {"transpose_first", K::kBool}},
       ConfusionTransposeD},
      {"LayerNormV3",
       {{"begin_norm_axis", K::kInt}, {"begin_params_axis", K::kInt}, {"epsilon", K::kFloat}},
       LayerNormV3},
      {"SortV2", {{"axis", K::kInt}, {"descending", K::kBool}}, SortV2},
      {"ScaledMaskedSoftmax", {{"scale", K::kFloat}, {"fixed_triu_mask", K::kBool}}, ScaledMaskedSoftmax},
      {"CdistGrad", {{"p", K::kFloat}}, CdistGrad},
      {"Conv2D",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"groups", K::kInt},
        {"data_format", K::kString}, {"offset_x", K::kInt}},
       Conv2D},
  };
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
#define ACLOP_SAME(api, Type) static_assert(std::is_same_v<decltype(&api##GetWorkspaceSize), aclsim::aclop::Type>, #api)
#if __has_include("aclnnop/aclnn_silu.h")
#include "aclnnop/aclnn_silu.h"
ACLOP_SAME(aclnnSilu, UnaryApi);
#endif
#if __has_include("aclnnop/aclnn_mish.h")
#include "aclnnop/aclnn_mish.h"
ACLOP_SAME(aclnnMish, UnaryApi);
#endif
#if __has_include("aclnnop/aclnn_permute.h")
#include "aclnnop/aclnn_permute.h"
ACLOP_SAME(aclnnPermute, WithIntsApi);
#endif
#if __has_include("aclnnop/aclnn_expand.h")
#include "aclnnop/aclnn_expand.h"
ACLOP_SAME(aclnnExpand, WithIntsApi);
#endif
#if __has_include("aclnnop/aclnn_copy.h")
#include "aclnnop/aclnn_copy.h"
ACLOP_SAME(aclnnInplaceCopy, InplaceCopyApi);
#endif
#if __has_include("aclnnop/aclnn_fill_scalar.h")
#include "aclnnop/aclnn_fill_scalar.h"
ACLOP_SAME(aclnnInplaceFillScalar, InplaceFillScalarApi);
#endif
#if __has_include("aclnnop/aclnn_one_hot.h")
#include "aclnnop/aclnn_one_hot.h"
ACLOP_SAME(aclnnOneHot, OneHotApi);
#endif
#if __has_include("aclnnop/aclnn_matmul.h")
#include "aclnnop/aclnn_matmul.h"
ACLOP_SAME(aclnnMatmul, MatmulApi);
#endif
#if __has_include("aclnnop/aclnn_add.h")
#include "aclnnop/aclnn_add.h"
ACLOP_SAME(aclnnInplaceAdd, InplaceAddApi);
#endif
#if __has_include("aclnnop/aclnn_layer_norm.h")
#include "aclnnop/aclnn_layer_norm.h"
ACLOP_SAME(aclnnLayerNorm, LayerNormApi);
#endif
#if __has_include("aclnnop/aclnn_sort.h")
#include "aclnnop/aclnn_sort.h"
ACLOP_SAME(aclnnSort, SortApi);
#endif
#if __has_include("aclnnop/aclnn_scaled_masked_softmax.h")
#include "aclnnop/aclnn_scaled_masked_softmax.h"
ACLOP_SAME(aclnnScaledMaskedSoftmax, ScaledMaskedSoftmaxApi);
#endif
#if __has_include("aclnnop/aclnn_cdist_backward.h")
#include "aclnnop/aclnn_cdist_backward.h"
ACLOP_SAME(aclnnCdistBackward, CdistBackwardApi);
#endif
#if __has_include("aclnnop/aclnn_convolution.h")
#include "aclnnop/aclnn_convolution.h"
ACLOP_SAME(aclnnConvolution, ConvolutionApi);
#endif
#undef ACLOP_SAME
