// The aclop bridge's table: each operator type the simulator runs by name, its prototype's
// attributes (as CANN's operator prototypes name and type them, with their defaults) and the
// simulator's aclnn API that computes it. The inputs and attributes are the ones torch_npu's
// aclop calls pass (its OpCommand: constant inputs such as a permutation or a shape are int64
// tensors placed on the host). An attribute value the aclnn API cannot express is refused with
// ACL_ERROR_OP_ATTR_NOT_MATCH naming it.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"

namespace aclsim::aclop {

// The window of Conv2D, Conv2DTranspose and their gradients in NCHW, and of Conv3D and its
// gradients in NCDHW: strides and dilations of one value per dimension, 1 on N and C; pads two per
// spatial dimension (front, back, top, bottom, left, right), symmetric (aclnnConvolution's).
aclError ReadConvWindow(const OpCall& call, ConvWindow* window) {
  std::string format = call.String("data_format", "NHWC");
  // slow_conv_dilated2d's Conv2D arrives with data_format set as bool (its literal lost to Attr's
  // bool overload: Run's note) and strides and dilations in NCHW order on NCHW tensors ([1,1,2,2]
  // would dilate C in NHWC, which Conv2D forbids): its layout is then x's description's.
  const auto set = call.attrs.find("data_format");
  if (set != call.attrs.end() && std::holds_alternative<bool>(set->second) && !call.inputs.empty()) {
    const aclFormat x_format = call.inputs[0].desc->format;
    if (x_format == ACL_FORMAT_NCHW) format = "NCHW";
    if (x_format == ACL_FORMAT_NCDHW) format = "NCDHW";
  }
  if (format != "NCHW" && format != "NCDHW") {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute data_format = " + format + " is not modelled (NCHW, NCDHW); the call: " + call.Signature());
  }
  const size_t spatial = format.size() - 2, rank = spatial + 2;
  const std::vector<int64_t> strides = call.Ints("strides"), pads = call.Ints("pads"),
                             dilations = call.Ints("dilations", std::vector<int64_t>(rank, 1));
  if (strides.size() != rank || pads.size() != 2 * spatial || dilations.size() != rank || strides[0] != 1 ||
      strides[1] != 1 || dilations[0] != 1 || dilations[1] != 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "strides " + ListText(strides) + ", pads " + ListText(pads) + ", dilations " +
                                                      ListText(dilations) + ": one value per dimension of " + format +
                                                      " each (two per spatial one for pads), 1 on N and C");
  }
  window->stride.clear();
  window->padding.clear();
  window->dilation.clear();
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[2 * i] != pads[2 * i + 1]) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute pads = " + ListText(pads) +
                                                        ": asymmetric padding is not modelled");
    }
    window->stride.push_back(strides[2 + i]);
    window->padding.push_back(pads[2 * i]);
    window->dilation.push_back(dilations[2 + i]);
  }
  if (call.Int("offset_x", 0) != 0) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute offset_x (quantised) is not modelled");
  window->groups = call.Int("groups", 1);
  return ACL_SUCCESS;
}

namespace {

// The phase-1 types of the aclnn APIs the bridge calls, written out (libopapi is looked up by
// name: the simulator's other libraries do not link it) and checked below against the generated
// prototypes where the build has them (at the end of this file).
using UnaryApi = Phase1<const aclTensor*, aclTensor*>;                           // Silu, Mish
using WithIntsApi = Phase1<const aclTensor*, const aclIntArray*, aclTensor*>;   // Permute, Expand
using InplaceCopyApi = Phase1<aclTensor*, const aclTensor*>;
using InplaceFillScalarApi = Phase1<aclTensor*, const aclScalar*>;
using OneHotApi = Phase1<const aclTensor*, int, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using BincountApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using MatmulApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*, int8_t>;
using InplaceAddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*>;
using LayerNormApi = Phase1<const aclTensor*, const aclIntArray*, const aclTensor*, const aclTensor*, double, aclTensor*,
                            aclTensor*, aclTensor*>;
using SortApi = Phase1<const aclTensor*, bool, int64_t, bool, aclTensor*, aclTensor*>;
using ScaledMaskedSoftmaxApi = Phase1<const aclTensor*, const aclTensor*, double, bool, aclTensor*>;
using CdistBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclTensor*, float, aclTensor*>;
using AddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using DropoutDoMaskApi = Phase1<const aclTensor*, const aclTensor*, double, aclTensor*>;
using InplaceBernoulliTensorApi = Phase1<const aclTensor*, const aclTensor*, int64_t, int64_t>;
using InplaceBernoulliApi = Phase1<const aclTensor*, const aclScalar*, int64_t, int64_t>;
using InplaceNormalApi = Phase1<const aclTensor*, float, float, int64_t, int64_t>;
using InplaceUniformApi = Phase1<const aclTensor*, double, double, uint64_t, uint64_t>;
using MultinomialApi = Phase1<const aclTensor*, int64_t, bool, int64_t, int64_t, aclTensor*>;
using DropoutGenMaskApi = Phase1<const aclIntArray*, double, int64_t, int64_t, aclTensor*>;
using InplaceScatterApi = Phase1<aclTensor*, int64_t, const aclTensor*, const aclTensor*, int64_t>;
using PadApi = Phase1<const aclTensor*, const aclIntArray*, const aclScalar*, aclTensor*>;
using BackwardApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;  // SiluBackward, MishBackward
using ReduceDimApi = Phase1<const aclTensor*, int64_t, bool, aclTensor*, aclTensor*>;  // MaxDim, MinDim
using ScaledMaskedSoftmaxBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, double, bool, aclTensor*>;
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

// Swish's and SwishGrad's scale: y = x * sigmoid(scale * x), SiLU's for scale 1, the one modelled.
aclError SiluScale(const OpCall& call, const char* api) {
  const float scale = call.Float("scale", 1.0f);
  if (scale == 1.0f) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute scale = " + std::to_string(scale) +
                                                    " is not modelled (1, x * sigmoid(x), runs as " + api + ")");
}

aclError Swish(const OpCall& call) {
  if (aclError s = SiluScale(call, "aclnnSilu")) return s;
  return Elementwise(call, "aclnnSilu");
}

// An activation's gradient: inputs dy, x (then what the operator's kernel may reuse, ignored:
// SwishGrad's y, MishGrad's tanh(softplus(x))), output dx, by the aclnn backward API of the same
// activation.
aclError ActivationGrad(const OpCall& call, const char* api, size_t max_inputs) {
  if (aclError s = call.Arity(2, max_inputs, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "grad");
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* dx = o.Tensor(call.outputs[0], "x_grad");
  if (o.status()) return o.status();
  return Aclnn<BackwardApi>(call, api, dy, x, dx);
}

aclError SwishGrad(const OpCall& call) {
  if (aclError s = SiluScale(call, "aclnnSiluBackward")) return s;
  return ActivationGrad(call, "aclnnSiluBackward", 3);
}

// ArgMaxWithValue / ArgMinWithValue: x -> (indice, values) along `dimension`.
aclError ArgWithValue(const OpCall& call, const char* api) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* indices = o.Tensor(call.outputs[0], "indice");
  aclTensor* values = o.Tensor(call.outputs[1], "values");
  if (o.status()) return o.status();
  return Aclnn<ReduceDimApi>(call, api, x, call.Int("dimension", 0), call.Bool("keep_dims", false), values, indices);
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
// with its dimension dropped. Dimensions past the lists are taken whole. Strides below 1 are not
// modelled.
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

// StridedSlice: x, begin, end, strides, with the five masks of its prototype. The entries are
// read as TensorFlow's strided_slice reads them (the operator's origin): the first entry of
// ellipsis_mask stands for the dimensions no other entry reads, taken whole; an entry of
// new_axis_mask inserts a dimension of 1 and reads none (y's shape is compared by its element
// count). They are made one entry per dimension of x before the slice.
aclError StridedSlice(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  std::vector<int64_t> begin, end, strides;
  if (aclError s = call.ConstInts(1, "begin", &begin)) return s;
  if (aclError s = call.ConstInts(2, "end", &end)) return s;
  if (aclError s = call.ConstInts(3, "strides", &strides)) return s;
  const int64_t ellipsis = call.Int("ellipsis_mask", 0), new_axis = call.Int("new_axis_mask", 0);
  const int64_t begin_mask = call.Int("begin_mask", 0), end_mask = call.Int("end_mask", 0), shrink = call.Int("shrink_axis_mask", 0);
  if (ellipsis == 0 && new_axis == 0) return StridedSliceOf(call, begin, end, strides, begin_mask, end_mask, shrink);
  const size_t rank = call.inputs[0].desc->dims.size(), entries = begin.size();
  if (end.size() != entries || strides.size() != entries || entries > 63 || (ellipsis & (ellipsis - 1)) != 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin " + ListText(begin) + ", end " + ListText(end) + ", strides " +
                                                      ListText(strides) + " with ellipsis_mask " + std::to_string(ellipsis) +
                                                      ": entries of one length, at most one ellipsis");
  }
  auto bit = [](int64_t mask, size_t i) { return ((mask >> i) & 1) != 0; };
  size_t reading = 0;
  for (size_t i = 0; i < entries; ++i) reading += !bit(ellipsis, i) && !bit(new_axis, i);
  if (reading > rank) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::to_string(reading) + " entries read dimensions of x " +
                                                       ListText(call.inputs[0].desc->dims));
  }
  std::vector<int64_t> dense_begin, dense_end, dense_strides;
  int64_t dense_begin_mask = 0, dense_end_mask = 0, dense_shrink = 0;
  auto push = [&](int64_t b, int64_t e, int64_t step, bool whole_begin, bool whole_end, bool shrunk) {
    const int64_t at = int64_t{1} << dense_begin.size();
    dense_begin.push_back(b);
    dense_end.push_back(e);
    dense_strides.push_back(step);
    dense_begin_mask |= whole_begin ? at : 0;
    dense_end_mask |= whole_end ? at : 0;
    dense_shrink |= shrunk ? at : 0;
  };
  for (size_t i = 0; i < entries; ++i) {
    if (bit(ellipsis, i)) {
      for (size_t k = 0; k < rank - reading; ++k) push(0, 0, 1, true, true, false);
    } else if (!bit(new_axis, i)) {
      push(begin[i], end[i], strides[i], bit(begin_mask, i), bit(end_mask, i), bit(shrink, i));
    }
  }
  return StridedSliceOf(call, dense_begin, dense_end, dense_strides, dense_begin_mask, dense_end_mask, dense_shrink);
}

// Pad: x padded with zeros by paddings (a constant [rank, 2]: before and after each dimension),
// as aclnnConstantPadNd's pad lists them (the last dimension first).
aclError Pad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> paddings;
  if (aclError s = call.ConstInts(1, "paddings", &paddings)) return s;
  const size_t rank = call.inputs[0].desc->dims.size();
  if (paddings.size() != 2 * rank || std::any_of(paddings.begin(), paddings.end(), [](int64_t p) { return p < 0; })) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "paddings " + ListText(paddings) + " are not two non-negative values per dimension of x " +
                                                       ListText(call.inputs[0].desc->dims));
  }
  std::vector<int64_t> pad;
  for (size_t i = rank; i-- > 0;) pad.insert(pad.end(), {paddings[2 * i], paddings[2 * i + 1]});
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<PadApi>(call, "aclnnConstantPadNd", x, o.Ints(pad), o.Scalar(0.0, ACL_FLOAT), y);
}

// StatelessDropOutGenMask (shape, prob, seed, seed1, offset): the bit mask DropOutDoMask reads, one
// bit per element of `shape`, set (kept) with probability prob (the prototype's keep probability,
// torch_npu's 1 - p), drawn by aclnnDropoutGenMask (which takes the probability of dropping) from
// the seeds and the offset; the bits are the simulator's random stream, not a device's.
aclError StatelessDropOutGenMask(const OpCall& call) {
  if (aclError s = call.Arity(4, 5, 1)) return s;
  std::vector<int64_t> shape, seed, seed1, offset = {0};
  double keep = 0;
  if (aclError s = call.ConstInts(0, "shape", &shape)) return s;
  if (aclError s = call.ConstFloat(1, "prob", &keep)) return s;
  if (aclError s = call.ConstInts(2, "seed", &seed)) return s;
  if (aclError s = call.ConstInts(3, "seed1", &seed1)) return s;
  if (call.inputs.size() == 5 && call.inputs[4].desc) {
    if (aclError s = call.ConstInts(4, "offset", &offset)) return s;
  }
  if (keep < 0 || keep > 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "prob " + std::to_string(keep) + " is outside [0, 1]");
  if (seed.size() != 1 || seed1.size() != 1 || offset.empty()) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "seed, seed1 and offset must hold one value each");
  }
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  const int64_t mixed = seed[0] ^ static_cast<int64_t>(static_cast<uint64_t>(seed1[0]) << 32);
  return Aclnn<DropoutGenMaskApi>(call, "aclnnDropoutGenMask", o.Ints(shape), 1.0 - keep, mixed, offset.back(), y);
}

// DropOutGenMaskV3 (shape, prob; attributes seed, seed2): DropOutGenMask's draw with one byte per
// element (1 kept, 0 dropped) where DropOutGenMask packs bits: torch_npu gives it a UINT8 y of the
// shape itself (_dropout_with_byte_mask) or flat, its length the element count rounded up to a
// multiple of 128 (npu_dropout_with_add_softmax: 128 bytes for 30 elements, 256 for 150, 768 for
// 645, seen), element i's byte at i; DropOutDoMaskV3 (mask UINT8 or BOOL) and
// AxpyWithSoftmaxAndDropOutDoMask read them. The padding bytes are drawn too; nothing reads them. prob is the
// prototype family's keep probability (torch_npu sends 1 - p). The prototype is stateful: seed and
// seed2 key the simulator's Philox stream, and every call draws further along it (a process-wide
// offset), so two dropouts drop different elements, as a device's generator does; the bytes are the
// simulator's stream, not a device's.
aclError DropOutGenMaskV3(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> shape;
  double keep = 0;
  if (aclError s = call.ConstInts(0, "shape", &shape)) return s;
  if (aclError s = call.ConstFloat(1, "prob", &keep)) return s;
  if (!(keep >= 0 && keep <= 1)) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "prob " + std::to_string(keep) + " is outside [0, 1]");
  if (!ByteMaskLength(Elements(call.outputs[0].desc->dims), Elements(shape))) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "y " + ListText(call.outputs[0].desc->dims) + " does not hold one byte per element of shape " +
                                                       ListText(shape) + " (or that count rounded up to a multiple of 128)");
  }
  if (call.outputs[0].desc->dtype != ACL_UINT8) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("y of dtype ") + DTypeName(call.outputs[0].desc->dtype) +
                                                          " (the prototype's is UINT8)");
  }
  static std::atomic<int64_t> drawn{0};
  const int64_t offset = drawn.fetch_add(Elements(call.outputs[0].desc->dims));
  const int64_t seed = call.Int("seed", 0) ^ static_cast<int64_t>(static_cast<uint64_t>(call.Int("seed2", 0)) << 32);
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceBernoulliApi>(call, "aclnnInplaceBernoulli", y, o.Scalar(keep, ACL_DOUBLE), seed, offset);
}

// The Philox key and counter of StatelessRandomNormalV2 and StatelessRandomUniformV2 (inputs
// shape, key [1], counter [2], alg; attribute dtype), as the simulator's generator takes them: a
// seed and an offset. torch_npu sends key = its generator's seed and counter = [0, offset] (its
// Philox offset in the high word: seen in every call, the offset growing by the values each call
// drew), the counter that aclnnInplaceNormal's and aclnnInplaceUniform's seed and offset name.
// alg 1 is Philox (the prototype's RNG_ALG_PHILOX); another algorithm, another low word of the
// counter or a dtype other than y's is refused naming it. The draws are the simulator's Philox
// stream, as the aclnn APIs' (not a device's bits).
struct StatelessKey {
  uint64_t seed = 0, offset = 0;
};
aclError ReadStatelessKey(const OpCall& call, StatelessKey* key) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  std::vector<int64_t> shape, algorithm;
  if (aclError s = call.ConstInts(0, "shape", &shape)) return s;
  if (aclError s = SameShape(call, "shape", shape)) return s;
  if (aclError s = call.ConstInts(3, "alg", &algorithm)) return s;
  if (algorithm.size() != 1 || algorithm[0] != 1) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "alg " + ListText(algorithm) + " is not modelled (1, Philox, is)");
  }
  const aclDataType dtype = call.outputs[0].desc->dtype;
  auto stated = call.attrs.find("dtype");
  if (stated != call.attrs.end() && std::get<aclDataType>(stated->second) != dtype) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute dtype ") + DTypeName(std::get<aclDataType>(stated->second)) +
                                                      " is not y's " + DTypeName(dtype));
  }
  std::vector<uint64_t> words[2];
  const char* names[2] = {"key", "counter"};
  for (size_t i = 0; i < 2; ++i) {
    const Operand& operand = call.inputs[1 + i];
    const uint8_t* bytes = nullptr;
    size_t size = 0;
    if (aclError s = call.ConstBytes(1 + i, names[i], &bytes, &size)) return s;
    if (operand.desc->dtype != ACL_UINT64 && operand.desc->dtype != ACL_INT64) {
      return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("input ") + names[i] + " of dtype " + DTypeName(operand.desc->dtype) +
                                                            " (uint64 is the prototype's)");
    }
    words[i].resize(static_cast<size_t>(std::max<int64_t>(Elements(operand.desc->dims), 0)));
    if (words[i].size() * 8 > size) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + names[i] + " holds too few bytes");
    std::memcpy(words[i].data(), bytes, words[i].size() * 8);
  }
  if (words[0].size() != 1 || words[1].size() != 2 || words[1][0] != 0) {
    std::string counter;
    for (uint64_t w : words[1]) counter += (counter.empty() ? "" : ",") + std::to_string(w);
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "key of " + std::to_string(words[0].size()) + " values, counter [" + counter +
                                                       "]: one key and a counter [0, offset] are modelled");
  }
  key->seed = words[0][0];
  key->offset = words[1][1];
  return ACL_SUCCESS;
}

// StatelessRandomNormalV2: y standard normal, by aclnnInplaceNormal (mean 0, std 1).
aclError StatelessRandomNormal(const OpCall& call) {
  StatelessKey key;
  if (aclError s = ReadStatelessKey(call, &key)) return s;
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceNormalApi>(call, "aclnnInplaceNormal", y, 0.0f, 1.0f, static_cast<int64_t>(key.seed),
                                 static_cast<int64_t>(key.offset));
}

// StatelessRandomUniformV2: y uniform in [0, 1), by aclnnInplaceUniform.
aclError StatelessRandomUniform(const OpCall& call) {
  StatelessKey key;
  if (aclError s = ReadStatelessKey(call, &key)) return s;
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceUniformApi>(call, "aclnnInplaceUniform", y, 0.0, 1.0, key.seed, key.offset);
}

// MultinomialWithReplacement (x, seed, offset; numsamples, replacement): torch.multinomial's draw
// of numsamples categories per row of x's weights, by aclnnMultinomial from the seed and offset.
aclError MultinomialWithReplacement(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  std::vector<int64_t> seed, offset;
  if (aclError s = call.ConstInts(1, "seed", &seed)) return s;
  if (aclError s = call.ConstInts(2, "offset", &offset)) return s;
  if (seed.size() != 1 || offset.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "seed and offset must hold one value each");
  if (!call.Has("numsamples")) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "the required attribute numsamples is not set");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<MultinomialApi>(call, "aclnnMultinomial", x, call.Int("numsamples", 0), call.Bool("replacement", false), seed[0],
                               offset[0], y);
}

// StatelessBernoulli (shape, prob, seed, offset; attribute dtype): y of `shape` (y's own), each
// element 1 with probability prob (broadcast), else 0: aclnnInplaceBernoulliTensor on y from the seed
// and offset (torch_npu's dropout2d/3d noise; the draws are the simulator's random stream).
aclError StatelessBernoulli(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  std::vector<int64_t> shape, seed, offset;
  if (aclError s = call.ConstInts(0, "shape", &shape)) return s;
  if (aclError s = SameShape(call, "shape", shape)) return s;
  if (aclError s = call.ConstInts(2, "seed", &seed)) return s;
  if (aclError s = call.ConstInts(3, "offset", &offset)) return s;
  if (seed.size() != 1 || offset.empty()) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "seed and offset must hold one value each");
  AclnnObjects o(call);
  aclTensor* prob = o.Tensor(call.inputs[1], "prob");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceBernoulliTensorApi>(call, "aclnnInplaceBernoulliTensor", y, prob, seed[0], offset.back());
}

// DropOutDoMask: x, its bit mask (one bit per element, DropOutGenMask's) and keep_prob (the
// prototype's: the probability of keeping an element); aclnnDropoutDoMask takes the probability
// of dropping it.
aclError DropOutDoMask(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  double keep = 0;
  if (aclError s = call.ConstFloat(2, "keep_prob", &keep)) return s;
  if (keep < 0 || keep > 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "keep_prob " + std::to_string(keep) + " is outside [0, 1]");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* mask = o.Tensor(call.inputs[1], "mask");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<DropoutDoMaskApi>(call, "aclnnDropoutDoMask", x, mask, 1.0 - keep, y);
}

// ArgMaxGrad: y = var with updates written where indices point along `dimension` (indices and
// updates have var's shape without that dimension): an argmax-with-value's gradient (torch_npu's
// npu_max_backward and npu_min_backward give zeros as var) and npu_scatter.
aclError ArgMaxGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  size_t axis = 0;
  if (!Axis(call.Int("dimension", 0), dims.size(), &axis)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute dimension = " + std::to_string(call.Int("dimension", 0)) +
                                                      " is out of range for var " + ListText(dims));
  }
  std::vector<int64_t> reduced = dims;
  reduced[axis] = 1;  // indices and updates seen with the dimension kept, as aclnnInplaceScatter takes them
  for (size_t i = 1; i < 3; ++i) {
    if (Elements(call.inputs[i].desc->dims) != Elements(reduced)) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(i == 1 ? "indices " : "updates ") +
                                                         ListText(call.inputs[i].desc->dims) + " is not var " + ListText(dims) +
                                                         " without dimension " + std::to_string(axis));
    }
  }
  AclnnObjects o(call);
  aclTensor* var = o.Tensor(call.inputs[0], "var");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices", reduced);
  aclTensor* updates = o.Tensor(call.inputs[2], "updates", reduced);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (call.outputs[0].buffer->data != call.inputs[0].buffer->data) {
    if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, var)) return s;
  }
  return Aclnn<InplaceScatterApi>(call, "aclnnInplaceScatter", y, static_cast<int64_t>(axis), indices, updates, int64_t{0});
}

// A view of an operand given by three constant inputs from `first` on: its size, its strides and
// its storage offset, in elements.
struct ViewSpec {
  std::vector<int64_t> size, strides, offset;
};

aclError ReadView(const OpCall& call, size_t first, ViewSpec* view) {
  if (aclError s = call.ConstInts(first, "size", &view->size)) return s;
  if (aclError s = call.ConstInts(first + 1, "stride", &view->strides)) return s;
  if (aclError s = call.ConstInts(first + 2, "storage_offset", &view->offset)) return s;
  if (view->offset.size() != 1 || view->size.size() != view->strides.size()) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "size " + ListText(view->size) + ", stride " + ListText(view->strides) +
                                                       " and storage_offset " + ListText(view->offset) +
                                                       " are not a view (one stride per size, one offset)");
  }
  return ACL_SUCCESS;
}

// AsStrided: y = x's elements seen through (size, stride, storage_offset), copied.
aclError AsStrided(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  ViewSpec view;
  if (aclError s = ReadView(call, 1, &view)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.View(call.inputs[0], "x", view.size, view.strides, view.offset[0], call.inputs[0].desc->dims);
  // torch_npu writes into a contiguous part of a larger tensor (the gradient of a slice, written
  // into the zeros of its base) by giving y the description of that base's storage and its data
  // address at the part: y is then the first elements from that address, size's many.
  const Operand& y_operand = call.outputs[0];
  aclTensor* y = Elements(view.size) < Elements(y_operand.desc->dims)
                     ? o.View(y_operand, "y", view.size, ContiguousStrides(view.size), 0, y_operand.desc->dims)
                     : o.Tensor(y_operand, "y", view.size);
  if (o.status()) return o.status();
  return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
}

// ViewCopy: dst's view (inputs 1-3) takes the elements of src's view (inputs 5-7); the output is
// dst. Its _exclude_engines attribute chooses among the device's engines and changes no value.
aclError ViewCopy(const OpCall& call) {
  if (aclError s = call.Arity(8, 8, 1)) return s;
  ViewSpec to, from;
  if (aclError s = ReadView(call, 1, &to)) return s;
  if (aclError s = ReadView(call, 5, &from)) return s;
  const Operand& dst = call.outputs[0];
  AclnnObjects o(call);
  aclTensor* target = o.View(dst, "dst", to.size, to.strides, to.offset[0], dst.desc->dims);
  aclTensor* source = o.View(call.inputs[4], "src", from.size, from.strides, from.offset[0], call.inputs[4].desc->dims);
  if (o.status()) return o.status();
  return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", target, source);
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

// OneHot: OneHotD with depth an input (a host scalar): F.one_hot on Ascend910 and Ascend310P.
aclError OneHot(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  std::vector<int64_t> depth;
  if (aclError s = call.ConstInts(1, "depth", &depth)) return s;
  if (depth.size() != 1 || depth[0] < 0 || depth[0] > INT32_MAX) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "depth " + ListText(depth) + " is not one non-negative int32");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* on = o.Tensor(call.inputs[2], "on_value");
  aclTensor* off = o.Tensor(call.inputs[3], "off_value");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<OneHotApi>(call, "aclnnOneHot", x, static_cast<int>(depth[0]), on, off, call.Int("axis", -1), y);
}

// Bincount (array, size, weights) -> bins: bins[array[i]] += weights[i] over bins of at least size
// (ops-math's bincount README), torch.bincount on Ascend910 and Ascend310P, whose op-plugin passes
// weights of ones without a caller's: aclnnBincount of the same formula, minlength size.
aclError Bincount(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  std::vector<int64_t> size;
  if (aclError s = call.ConstInts(1, "size", &size)) return s;
  if (size.size() != 1 || size[0] < 0) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "size " + ListText(size) + " is not one non-negative value");
  AclnnObjects o(call);
  aclTensor* array = o.Tensor(call.inputs[0], "array");
  aclTensor* weights = o.Tensor(call.inputs[2], "weights");
  aclTensor* bins = o.Tensor(call.outputs[0], "bins");
  if (o.status()) return o.status();
  return Aclnn<BincountApi>(call, "aclnnBincount", array, weights, size[0], bins);
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

// affine_grid's backward sets BatchMatMul an attribute `bias` (int 0) its prototype does not have:
// no bias, as its two inputs say; another value is refused rather than read.
aclError BatchMatMul(const OpCall& call) {
  if (call.Int("bias", 0) != 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute bias = " + std::to_string(call.Int("bias", 0)) +
                                                      " is not modelled (0, no bias, is)");
  }
  return MatMulTransposedBy(call, "adj_x1", "adj_x2");
}
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

// ScaledMaskedSoftmaxGrad: x's gradient of ScaledMaskedSoftmax from y_grad, y and mask.
aclError ScaledMaskedSoftmaxGrad(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  AclnnObjects o(call);
  aclTensor* dy = o.Tensor(call.inputs[0], "y_grad");
  aclTensor* y = o.Tensor(call.inputs[1], "y");
  aclTensor* mask = o.Tensor(call.inputs[2], "mask");
  aclTensor* dx = o.Tensor(call.outputs[0], "x_grad");
  if (o.status()) return o.status();
  return Aclnn<ScaledMaskedSoftmaxBackwardApi>(call, "aclnnScaledMaskedSoftmaxBackward", dy, y, mask,
                                               static_cast<double>(call.Float("scale", 1.0f)),
                                               call.Bool("fixed_triu_mask", false), dx);
}

// Conv2D and Conv3D (x, filter, optional bias), by aclnnConvolution with the window ReadConvWindow reads.
aclError Conv2D(const OpCall& call) {
  if (aclError s = call.Arity(2, 3, 1)) return s;
  ConvWindow w;
  if (aclError s = ReadConvWindow(call, &w)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* filter = o.Tensor(call.inputs[1], "filter");
  aclTensor* bias = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "bias") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ConvolutionApi>(call, "aclnnConvolution", x, filter, bias, o.Ints(w.stride), o.Ints(w.padding),
                               o.Ints(w.dilation), false, o.Ints(std::vector<int64_t>(w.stride.size(), 0)), w.groups, y,
                               int8_t{0});
}

// DepthwiseConv2D (x, filter, optional bias, optional offset_w) in NCHW: each input channel
// convolved with its own filters, by aclnnConvolution with groups = x's channels. torch_npu's
// _conv_depthwise2d sends aten's [C * multiplier, 1, kh, kw] weight permuted to [1, C * multiplier,
// kh, kw] (its memory unchanged: seen with multipliers 1 and 2), which is viewed back.
aclError DepthwiseConv2D(const OpCall& call) {
  if (aclError s = call.Arity(2, 4, 1)) return s;
  if (call.inputs.size() > 3 && !Absent(call.inputs[3])) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "offset_w (quantised) is not modelled");
  ConvWindow w;
  if (aclError s = ReadConvWindow(call, &w)) return s;
  const std::vector<int64_t>&x_dims = call.inputs[0].desc->dims, &filter_dims = call.inputs[1].desc->dims;
  if (x_dims.size() != 4 || filter_dims.size() != 4 || filter_dims[0] != 1 || x_dims[1] <= 0 || filter_dims[1] % x_dims[1] != 0) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "filter " + ListText(filter_dims) + " is not [1, C * multiplier, kh, kw] for x " +
                                                       ListText(x_dims) + " (the layout torch_npu sends)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* filter = o.Tensor(call.inputs[1], "filter", {filter_dims[1], 1, filter_dims[2], filter_dims[3]});
  aclTensor* bias = call.inputs.size() > 2 && !Absent(call.inputs[2]) ? o.Tensor(call.inputs[2], "bias") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ConvolutionApi>(call, "aclnnConvolution", x, filter, bias, o.Ints(w.stride), o.Ints(w.padding),
                               o.Ints(w.dilation), false, o.Ints(std::vector<int64_t>(w.stride.size(), 0)), x_dims[1], y,
                               int8_t{0});
}

// Conv2DTranspose and Conv3DTranspose (input_size, x, filter, optional bias): the transposed
// convolution of x, whose attributes read as Conv2D's. input_size is y's shape, which y's
// description already holds; the output padding is what y's shape adds to the transposed size
// (torch_npu leaves Conv3DTranspose's output_padding attribute 0 and states it by input_size), and
// must agree with the attribute where that is set.
aclError Conv2DTranspose(const OpCall& call) {
  if (aclError s = call.Arity(3, 4, 1)) return s;
  ConvWindow w;
  if (aclError s = ReadConvWindow(call, &w)) return s;
  const size_t spatial = w.stride.size();
  const std::vector<int64_t> attribute = call.Ints("output_padding", std::vector<int64_t>(spatial + 2, 0));
  const std::vector<int64_t>&x_dims = call.inputs[1].desc->dims, &filter_dims = call.inputs[2].desc->dims,
        &y_dims = call.outputs[0].desc->dims;
  if (x_dims.size() != spatial + 2 || filter_dims.size() != spatial + 2 || y_dims.size() != spatial + 2) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + ", filter " + ListText(filter_dims) + ", y " +
                                                       ListText(y_dims) + " are not all of rank " + std::to_string(spatial + 2));
  }
  std::vector<int64_t> output_padding;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t transposed = (x_dims[2 + i] - 1) * w.stride[i] - 2 * w.padding[i] + w.dilation[i] * (filter_dims[2 + i] - 1) + 1;
    const int64_t extra = y_dims[2 + i] - transposed;
    if (extra < 0 || extra >= std::max(w.stride[i], w.dilation[i])) {
      return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "y " + ListText(y_dims) + " is not a transposed size of x " +
                                                          ListText(x_dims) + " with output_padding " + ListText(attribute));
    }
    output_padding.push_back(extra);
  }
  // The attribute, where set, must state the padding y's shape adds, in one of the two layouts
  // torch_npu sends: one value per dimension of the data format, 0 on N and C (conv_transpose2d's),
  // or two per spatial dimension as pads are ([oh, oh, ow, ow]: slow_conv_transpose2d's, seen with
  // output_padding (2, 1)).
  bool per_dimension = attribute.size() == spatial + 2 && attribute[0] == 0 && attribute[1] == 0;
  bool as_pads = attribute.size() == 2 * spatial;
  for (size_t i = 0; i < spatial; ++i) {
    per_dimension = per_dimension && (attribute[2 + i] == 0 || attribute[2 + i] == output_padding[i]);
    as_pads = as_pads && attribute[2 * i] == output_padding[i] && attribute[2 * i + 1] == output_padding[i];
  }
  if (!per_dimension && !as_pads) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute output_padding = " + ListText(attribute) + " does not state " +
                                                      ListText(output_padding) + ", the padding y " + ListText(y_dims) +
                                                      " adds to the transposed size of x " + ListText(x_dims) +
                                                      " (one value per dimension, 0 on N and C, or two per spatial one)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[1], "x");
  aclTensor* filter = o.Tensor(call.inputs[2], "filter");
  aclTensor* bias = call.inputs.size() > 3 ? o.Tensor(call.inputs[3], "bias") : nullptr;
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ConvolutionApi>(call, "aclnnConvolution", x, filter, bias, o.Ints(w.stride), o.Ints(w.padding),
                               o.Ints(w.dilation), true, o.Ints(output_padding), w.groups, y, int8_t{0});
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


// StrideAdd: y[:, j] = x1[:, x1_c1_offset + j] + x2[:, x2_c1_offset + j] for j < c1_len, the
// operands five-dimensional [N, C1, H, W, C0] (the NC1HWC0 blocks, which torch_npu passes as plain
// 5-D tensors). torch_npu sizes y [N, c1_len * 16, H, W, C0]; its channels from c1_len on are
// zeros (torch_npu's own test of npu_stride_add expects them so).
aclError StrideAdd(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::vector<int64_t>& x1_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& x2_dims = call.inputs[1].desc->dims;
  const std::vector<int64_t>& y_dims = call.outputs[0].desc->dims;
  const int64_t offset1 = call.Int("x1_c1_offset", 0), offset2 = call.Int("x2_c1_offset", 0), length = call.Int("c1_len", 0);
  auto fits = [&](const std::vector<int64_t>& dims, int64_t offset) {
    return dims.size() == 5 && offset >= 0 && length >= 0 && offset + length <= dims[1] && dims[0] == y_dims[0] &&
           std::equal(dims.begin() + 2, dims.end(), y_dims.begin() + 2);
  };
  if (y_dims.size() != 5 || !fits(x1_dims, offset1) || !fits(x2_dims, offset2) || length > y_dims[1]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "x1 " + ListText(x1_dims) + ", x2 " + ListText(x2_dims) + " and y " +
                                                      ListText(y_dims) + " with x1_c1_offset " + std::to_string(offset1) +
                                                      ", x2_c1_offset " + std::to_string(offset2) + " and c1_len " +
                                                      std::to_string(length) + ": not [N, C1, H, W, C0] with the channels in range");
  }
  const Operand& y = call.outputs[0];
  const size_t bytes = std::min(y.buffer->size, static_cast<size_t>(Elements(y_dims)) * aclDataTypeSize(y.desc->dtype));
  if (bytes > 0) {
    if (aclError s = aclrtMemsetAsync(y.buffer->data, y.buffer->size, 0, bytes, call.stream)) return s;
  }
  if (length == 0 || Elements(y_dims) == 0) return ACL_SUCCESS;
  std::vector<int64_t> view = y_dims;
  view[1] = length;
  AclnnObjects o(call);
  auto channels = [&](const Operand& operand, const char* what, int64_t offset) {
    const std::vector<int64_t>& dims = operand.desc->dims;
    const std::vector<int64_t> strides = ContiguousStrides(dims);
    return o.View(operand, what, view, strides, offset * strides[1], dims);
  };
  aclTensor* x1 = channels(call.inputs[0], "x1", offset1);
  aclTensor* x2 = channels(call.inputs[1], "x2", offset2);
  aclTensor* out = channels(y, "y", 0);
  if (o.status()) return o.status();
  return Aclnn<AddApi>(call, "aclnnAdd", x1, x2, o.Scalar(1.0, ACL_FLOAT), out);
}

}  // namespace

const std::vector<OpEntry>& Entries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = {
      {"Identity", {}, RunIdentity},
      {"Swish", {{"scale", K::kFloat}}, Swish},
      {"Mish", {}, [](const OpCall& c) { return Elementwise(c, "aclnnMish"); }},
      // ops-nn's swish_grad README lists every product, aclnnSiluBackward's page not Ascend310P.
      {"SwishGrad", {{"scale", K::kFloat}}, SwishGrad, true},
      {"MishGrad", {}, [](const OpCall& c) { return ActivationGrad(c, "aclnnMishBackward", 3); }},
      {"ArgMaxWithValue", {{"dimension", K::kInt}, {"keep_dims", K::kBool}},
       [](const OpCall& c) { return ArgWithValue(c, "aclnnMaxDim"); }},
      {"ArgMinWithValue", {{"dimension", K::kInt}, {"keep_dims", K::kBool}},
       [](const OpCall& c) { return ArgWithValue(c, "aclnnMinDim"); }},
      // Data movement every chip's aclop kernels do (torch_npu sends a permute of an NC1HWC0 tensor
      // to Transpose on Ascend310P, whose aclnnPermute page lists it unsupported).
      {"Transpose", {}, [](const OpCall& c) { return WithConstList(c, "aclnnPermute", "perm"); }, true},
      {"BroadcastTo", {}, [](const OpCall& c) { return WithConstList(c, "aclnnExpand", "shape"); }, true},
      {"Slice", {}, Slice},
      {"StridedSlice",
       {{"begin_mask", K::kInt}, {"end_mask", K::kInt}, {"ellipsis_mask", K::kInt}, {"new_axis_mask", K::kInt},
        {"shrink_axis_mask", K::kInt}},
       StridedSlice},
      {"Fill", {}, Fill},
      {"Pad", {}, Pad},
      {"DropOutDoMask", {}, DropOutDoMask},
      {"StatelessDropOutGenMask", {}, StatelessDropOutGenMask},
      {"DropOutGenMaskV3", {{"seed", AttrKind::kInt}, {"seed2", AttrKind::kInt}}, DropOutGenMaskV3},
      {"StatelessBernoulli", {{"dtype", AttrKind::kDataType}}, StatelessBernoulli},
      {"StatelessRandomNormalV2", {{"dtype", AttrKind::kDataType}}, StatelessRandomNormal},
      {"StatelessRandomUniformV2", {{"dtype", AttrKind::kDataType}}, StatelessRandomUniform},
      {"MultinomialWithReplacement", {{"numsamples", AttrKind::kInt}, {"replacement", AttrKind::kBool}}, MultinomialWithReplacement},
      // The matrix products, the argmax gradient and StrideAdd exist on every chip that runs aclop, as the
      // common math operators do: op-plugin sends npu_max_backward, npu_min_backward and npu_scatter
      // (ArgMaxGrad) on Ascend910 and Ascend310P, npu_linear's bias (MatMulV2) and npu_stride_add on
      // Ascend310P, where the pages of the APIs they end in (aclnnInplaceScatter, aclnnInplaceAdd,
      // aclnnAdd) leave the chip out. No README on hand gives their products.
      {"ArgMaxGrad", {{"dimension", K::kInt}}, ArgMaxGrad, true},
      {"AsStrided", {}, AsStrided},
      {"ViewCopy", {{"_exclude_engines", K::kString}}, ViewCopy},
      {"OneHotD", {{"depth", K::kInt}, {"axis", K::kInt}}, OneHotD},
      {"OneHot", {{"axis", K::kInt}}, OneHot},
      {"Bincount", {}, Bincount},
      {"BatchMatMul", {{"adj_x1", K::kBool}, {"adj_x2", K::kBool}, {"bias", K::kInt}}, BatchMatMul, true},
      {"BatchMatMulV2", {{"adj_x1", K::kBool}, {"adj_x2", K::kBool}, {"offset_x", K::kInt}}, BatchMatMul, true},
      {"MatMul", {{"transpose_x1", K::kBool}, {"transpose_x2", K::kBool}, {"offset_x", K::kInt}}, MatMul, true},
      {"MatMulV2", {{"transpose_x1", K::kBool}, {"transpose_x2", K::kBool}, {"offset_x", K::kInt}}, MatMul, true},
      {"ConfusionTransposeD",
       {{"perm", K::kListInt}, {"shape", K::kListInt}, {"transpose_first", K::kBool}},
       ConfusionTransposeD},
      {"LayerNormV3",
       {{"begin_norm_axis", K::kInt}, {"begin_params_axis", K::kInt}, {"epsilon", K::kFloat}},
       LayerNormV3},
      {"SortV2", {{"axis", K::kInt}, {"descending", K::kBool}}, SortV2},
      {"ScaledMaskedSoftmax", {{"scale", K::kFloat}, {"fixed_triu_mask", K::kBool}}, ScaledMaskedSoftmax},
      {"ScaledMaskedSoftmaxGrad", {{"scale", K::kFloat}, {"fixed_triu_mask", K::kBool}}, ScaledMaskedSoftmaxGrad},
      {"CdistGrad", {{"p", K::kFloat}}, CdistGrad},
      // Every chip: torch_npu's conv1d, conv2d and their transposes of plain tensors on Ascend910,
      // whose aclnnConvolution page leaves it out, reach these.
      {"Conv2D",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"groups", K::kInt},
        {"data_format", K::kString}, {"offset_x", K::kInt}},
       Conv2D, true},
      {"DepthwiseConv2D",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"data_format", K::kString},
        {"offset_x", K::kInt}},
       DepthwiseConv2D, true},
      {"Conv3D",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"groups", K::kInt},
        {"data_format", K::kString}, {"offset_x", K::kInt}},
       Conv2D, true},
      {"Conv2DTranspose",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"groups", K::kInt},
        {"data_format", K::kString}, {"output_padding", K::kListInt}, {"offset_x", K::kInt}},
       Conv2DTranspose, true},
      {"Conv3DTranspose",
       {{"strides", K::kListInt}, {"pads", K::kListInt}, {"dilations", K::kListInt}, {"groups", K::kInt},
        {"data_format", K::kString}, {"output_padding", K::kListInt}, {"offset_x", K::kInt}},
       Conv2DTranspose, true},
      {"StrideAdd", {{"x1_c1_offset", K::kInt}, {"x2_c1_offset", K::kInt}, {"c1_len", K::kInt}}, StrideAdd, true},
  };
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnSilu, UnaryApi);
ACLOP_SAME(aclnnMish, UnaryApi);
ACLOP_SAME(aclnnSiluBackward, BackwardApi);
ACLOP_SAME(aclnnMishBackward, BackwardApi);
ACLOP_SAME(aclnnMaxDim, ReduceDimApi);
ACLOP_SAME(aclnnMinDim, ReduceDimApi);
ACLOP_SAME(aclnnScaledMaskedSoftmaxBackward, ScaledMaskedSoftmaxBackwardApi);
ACLOP_SAME(aclnnDropoutDoMask, DropoutDoMaskApi);
ACLOP_SAME(aclnnInplaceNormal, InplaceNormalApi);
ACLOP_SAME(aclnnInplaceUniform, InplaceUniformApi);
ACLOP_SAME(aclnnMultinomial, MultinomialApi);
ACLOP_SAME(aclnnDropoutGenMask, DropoutGenMaskApi);
ACLOP_SAME(aclnnInplaceBernoulliTensor, InplaceBernoulliTensorApi);
ACLOP_SAME(aclnnInplaceBernoulli, InplaceBernoulliApi);
ACLOP_SAME(aclnnInplaceScatter, InplaceScatterApi);
ACLOP_SAME(aclnnConstantPadNd, PadApi);
ACLOP_SAME(aclnnPermute, WithIntsApi);
ACLOP_SAME(aclnnExpand, WithIntsApi);
ACLOP_SAME(aclnnInplaceCopy, InplaceCopyApi);
ACLOP_SAME(aclnnInplaceFillScalar, InplaceFillScalarApi);
ACLOP_SAME(aclnnOneHot, OneHotApi);
ACLOP_SAME(aclnnBincount, BincountApi);
ACLOP_SAME(aclnnMatmul, MatmulApi);
ACLOP_SAME(aclnnInplaceAdd, InplaceAddApi);
ACLOP_SAME(aclnnAdd, AddApi);
ACLOP_SAME(aclnnLayerNorm, LayerNormApi);
ACLOP_SAME(aclnnSort, SortApi);
ACLOP_SAME(aclnnScaledMaskedSoftmax, ScaledMaskedSoftmaxApi);
ACLOP_SAME(aclnnCdistBackward, CdistBackwardApi);
ACLOP_SAME(aclnnConvolution, ConvolutionApi);
