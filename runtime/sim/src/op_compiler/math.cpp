// The aclop bridge's common math operator types: the elementwise, comparison, cast, reduction,
// softmax, cumulative and concatenation operators that torch_npu's op-plugin runs by type name
// (OpCommand) where a tensor is kept in a private layout (NC1HWC0, FRACTAL_NZ: on Ascend910 and
// Ascend310P, and on Atlas A2 with torch.npu.config.allow_internal_format) or where a chip routes
// an operation to aclop. Each computes by the simulator's aclnn API of the same operation; a
// private operand reaches it as a plain copy (bridge.cpp's Run), and an operand held on the host
// (a Python scalar: `x + 1.5` is Add with a 0-d host tensor) as a device copy (AclnnObjects). An
// attribute value no aclnn API expresses is refused (ACL_ERROR_OP_ATTR_NOT_MATCH) naming it. This
// file holds the table (MathEntries), the elementwise operators, the reductions and the gradients;
// the normalisations, the indexing, the linear algebra and the sequences are in norms.cpp,
// indexing.cpp, linalg.cpp and creation.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

aclError CheckHardSigmoidAttributes(const OpCall& call) {
  const float alpha = call.Float("alpha", 1.0f / 6), beta = call.Float("beta", 0.5f);
  if (std::abs(alpha - 1.0f / 6) > 1e-6f || beta != 0.5f) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes alpha = " + std::to_string(alpha) + ", beta = " +
                                                      std::to_string(beta) + " are not modelled (1/6 and 1/2 are)");
  }
  return ACL_SUCCESS;
}

// AvgPoolV2's and AvgPoolV2Grad's window over H and W of NCHW: ksize, strides and pads (top,
// bottom, left, right); exclusive leaves the padding out of the count. Asymmetric pads, padding
// modes other than CALCULATED and global pooling are refused.
aclError ReadAvgPoolWindow(const OpCall& call, aclDataType dtype, AvgPoolWindow* window) {
  const std::vector<int64_t> ksize = call.Ints("ksize"), strides = call.Ints("strides"), pads = call.Ints("pads", {0, 0, 0, 0});
  const std::string data_format = call.String("data_format", "NCHW"), mode = call.String("padding_mode", "CALCULATED");
  if (data_format != "NCHW" || mode != "CALCULATED" || call.Bool("global_pooling", false) || ksize.size() != 4 ||
      strides.size() != 4 || pads.size() != 4 || pads[0] != pads[1] || pads[2] != pads[3]) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "data_format " + data_format + ", padding_mode " + mode + ", ksize " +
                                                      ListText(ksize) + ", strides " + ListText(strides) + ", pads " +
                                                      ListText(pads) + (call.Bool("global_pooling", false) ? ", global" : "") +
                                                      ": not modelled (NCHW, CALCULATED, symmetric pads are)");
  }
  // torch_npu sets exclusive on a float16 x whatever count_include_pad is (float32 follows it), so
  // with padding what the float16 kernel counts is not known from the call: refused, not guessed.
  const bool padded = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  if (padded && call.Bool("exclusive", true) && dtype != ACL_FLOAT) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("exclusive with pads ") + ListText(pads) + " on " +
                                                      DTypeName(dtype) +
                                                      " is not modelled (torch_npu sets it for both count_include_pad values)");
  }
  window->kernel = {ksize[2], ksize[3]};
  window->stride = {strides[2], strides[3]};
  window->padding = {pads[0], pads[2]};
  window->ceil_mode = call.Bool("ceil_mode", false);
  window->count_include_pad = !call.Bool("exclusive", true);
  window->divisor_override = call.Int("divisor_override", 0);
  return ACL_SUCCESS;
}

// The helpers runners.h declares for the files by concept.
bool Floating(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE;
}

aclScalar* One(AclnnObjects& o, aclDataType dtype) { return Floating(dtype) ? o.Scalar(1.0, ACL_FLOAT) : o.IntScalar(1); }

aclError ConstScalar(const OpCall& call, AclnnObjects& o, size_t input, const char* what, aclScalar** scalar) {
  const aclDataType dtype = call.inputs.at(input).desc->dtype;
  if (Elements(call.inputs.at(input).desc->dims) != 1) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " is not one element");
  }
  if (dtype == ACL_INT32 || dtype == ACL_INT64) {
    std::vector<int64_t> v;
    if (aclError s = call.ConstInts(input, what, &v)) return s;
    *scalar = o.IntScalar(v.at(0));
    return ACL_SUCCESS;
  }
  double v = 0;
  if (aclError s = call.ConstFloat(input, what, &v)) return s;
  *scalar = o.Scalar(v, ACL_DOUBLE);
  return ACL_SUCCESS;
}

aclError ConstInt(const OpCall& call, size_t input, const char* what, int64_t* value) {
  std::vector<int64_t> values;
  if (aclError s = call.ConstInts(input, what, &values)) return s;
  if (values.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " is not one element");
  *value = values[0];
  return ACL_SUCCESS;
}

namespace {

using AddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using TernaryApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*>;  // Lerp, ClampTensor, SWhere
using AddcApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using InplaceApi = Phase1<aclTensor*>;  // InplaceZero, InplaceOne
using DimApi = Phase1<const aclTensor*, int64_t, aclTensor*>;                                 // Softmax, LogSoftmax
using CumsumApi = Phase1<const aclTensor*, int64_t, aclDataType, aclTensor*>;
using CatApi = Phase1<const aclTensorList*, int64_t, aclTensor*>;
using ArgApi = Phase1<const aclTensor*, int64_t, bool, aclTensor*>;  // ArgMax, ArgMin
using BackwardApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;  // SigmoidBackward, TanhBackward, ...
using BackwardWithScalarApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;  // ThresholdBackward
using LeakyReluBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, bool, aclTensor*>;
using SoftmaxBackwardApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using ProdDimApi = Phase1<const aclTensor*, int64_t, bool, aclDataType, aclTensor*>;
using EluApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, const aclScalar*, aclTensor*>;
using TwoScalarsApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, aclTensor*>;  // Softplus
using MseLossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using TopkApi = Phase1<const aclTensor*, int64_t, int64_t, bool, bool, aclTensor*, aclTensor*>;
using SortApi = Phase1<const aclTensor*, bool, int64_t, bool, aclTensor*, aclTensor*>;
using AvgPool2dApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, const aclIntArray*, bool, bool,
                            int64_t, int8_t, aclTensor*>;
using NanToNumApi = Phase1<const aclTensor*, float, float, float, aclTensor*>;
using RollApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, aclTensor*>;
using ConstantPadApi = Phase1<const aclTensor*, const aclIntArray*, const aclScalar*, aclTensor*>;
using CumprodApi = Phase1<const aclTensor*, const aclScalar*, aclDataType, aclTensor*>;
using RoundDecimalsApi = Phase1<const aclTensor*, int64_t, aclTensor*>;
using NLLLossApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, int64_t, aclTensor*, aclTensor*>;
using IsCloseApi = Phase1<const aclTensor*, const aclTensor*, double, double, bool, aclTensor*>;
using SearchSortedApi = Phase1<const aclTensor*, const aclTensor*, bool, bool, const aclTensor*, aclTensor*>;
using HistcApi = Phase1<const aclTensor*, int64_t, const aclScalar*, const aclScalar*, aclTensor*>;

// --- operator types by aclnn API ---------------------------------------------------------------

struct TypeApi {
  const char* type;
  const char* api;
};

// y = f(x): the aclop type and the aclnn API of the same function. (FastGelu and FastGeluGrad: ops-nn's
// READMEs list Atlas training series products, Ascend910, where op-plugin sends them by type and
// whose aclnnFastGelu and aclnnFastGeluBackward pages leave it out.)
const TypeApi kUnary[] = {
    {"Abs", "aclnnAbs"},         {"Neg", "aclnnNeg"},           {"Sqrt", "aclnnSqrt"},     {"Rsqrt", "aclnnRsqrt"},
    {"Reciprocal", "aclnnReciprocal"}, {"Inv", "aclnnReciprocal"}, {"Sin", "aclnnSin"},   {"Cos", "aclnnCos"},
    {"Tan", "aclnnTan"},         {"Tanh", "aclnnTanh"},         {"Sigmoid", "aclnnSigmoid"}, {"Relu", "aclnnRelu"},
    {"Floor", "aclnnFloor"},     {"Ceil", "aclnnCeil"},         {"Sign", "aclnnSign"},
    {"Erf", "aclnnErf"},         {"Erfc", "aclnnErfc"},         {"Gelu", "aclnnGelu"},     {"Log1p", "aclnnLog1p"},
    {"Expm1", "aclnnExpm1"},     {"Sinh", "aclnnSinh"},         {"Cosh", "aclnnCosh"},     {"Asin", "aclnnAsin"},
    {"Acos", "aclnnAcos"},       {"Atan", "aclnnAtan"},         {"Asinh", "aclnnAsinh"},   {"Acosh", "aclnnAcosh"},
    {"Atanh", "aclnnAtanh"},     {"Square", "aclnnSquare"},     {"LogicalNot", "aclnnLogicalNot"},
    {"Invert", "aclnnBitwiseNot"}, {"Selu", "aclnnSelu"},       {"Trunc", "aclnnTrunc"},
    {"IsFinite", "aclnnIsFinite"}, {"HardSwish", "aclnnHardswish"}, {"LogSigmoid", "aclnnLogSigmoid"},
    {"Trace", "aclnnTrace"},     {"FastGelu", "aclnnFastGelu"},
};

// y = f(x1, x2), broadcasting.
const TypeApi kBinary[] = {
    {"Mul", "aclnnMul"},           {"RealDiv", "aclnnDiv"},         {"Maximum", "aclnnMaximum"},
    {"Minimum", "aclnnMinimum"},   {"Pow", "aclnnPowTensorTensor"}, {"Equal", "aclnnEqTensor"},
    {"NotEqual", "aclnnNeTensor"}, {"Greater", "aclnnGtTensor"},    {"GreaterEqual", "aclnnGeTensor"},
    {"Less", "aclnnLtTensor"},     {"LessEqual", "aclnnLeTensor"},  {"LogicalAnd", "aclnnLogicalAnd"},
    {"LogicalOr", "aclnnLogicalOr"}, {"FloorDiv", "aclnnFloorDivide"}, {"FloorMod", "aclnnRemainderTensorTensor"},
    {"Atan2", "aclnnAtan2"},         {"Mod", "aclnnFmodTensor"},           {"BitwiseAnd", "aclnnBitwiseAndTensor"},
    {"BitwiseOr", "aclnnBitwiseOrTensor"}, {"BitwiseXor", "aclnnBitwiseXorTensor"}, {"TensorEqual", "aclnnEqual"},
    {"PRelu", "aclnnPrelu"},     {"Dot", "aclnnDot"},           {"LeftShift", "aclnnLeftShift"},
    {"RightShift", "aclnnRightShift"},
};

// The reductions over constant axes (input 1) and their D forms (attribute axes).
const TypeApi kReduce[] = {
    {"ReduceSum", "aclnnReduceSum"}, {"ReduceSumD", "aclnnReduceSum"}, {"ReduceMean", "aclnnMean"},
    {"ReduceMeanD", "aclnnMean"},    {"ReduceMax", "aclnnAmax"},       {"ReduceMaxD", "aclnnAmax"},
    {"ReduceMin", "aclnnAmin"},      {"ReduceMinD", "aclnnAmin"},
};

template <size_t N>
const char* ApiOf(const TypeApi (&table)[N], const std::string& type) {
  for (const TypeApi& entry : table) {
    if (type == entry.type) return entry.api;
  }
  return nullptr;  // not reached: each table's types are registered with the function that reads it
}

aclError Unary(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, ApiOf(kUnary, call.type), x, y);
}

// Exp and Log: y = base^(scale * x + shift) and y = log_base(scale * x + shift), base -1 meaning e.
// The aclnn APIs compute the natural, base-2 and base-10 forms of scale 1 and shift 0.
aclError ExpOrLog(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const bool exp = call.type == "Exp";
  const float base = call.Float("base", -1.0f), scale = call.Float("scale", 1.0f), shift = call.Float("shift", 0.0f);
  const char* api = nullptr;
  if (base == -1.0f) api = exp ? "aclnnExp" : "aclnnLog";
  else if (base == 2.0f) api = exp ? "aclnnExp2" : "aclnnLog2";
  else if (base == 10.0f && !exp) api = "aclnnLog10";
  if (!api || scale != 1.0f || shift != 0.0f) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes base = " + std::to_string(base) + ", scale = " +
                                                      std::to_string(scale) + ", shift = " + std::to_string(shift) +
                                                      " are not modelled (base e, 2" + (exp ? "" : " or 10") +
                                                      " with scale 1 and shift 0 are)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, api, x, y);
}

// LogAddExp (x1, x2; attributes base, scale, shift as Exp's): log(exp(x1) + exp(x2)) in base e or 2.
aclError LogAddExp(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const float base = call.Float("base", -1.0f), scale = call.Float("scale", 1.0f), shift = call.Float("shift", 0.0f);
  const char* api = base == -1.0f ? "aclnnLogAddExp" : base == 2.0f ? "aclnnLogAddExp2" : nullptr;
  if (!api || scale != 1.0f || shift != 0.0f) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes base = " + std::to_string(base) + ", scale = " +
                                                      std::to_string(scale) + ", shift = " + std::to_string(shift) +
                                                      " are not modelled (base e or 2 with scale 1 and shift 0 are)");
  }
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<BinaryApi>(call, api, x1, x2, y);
}

aclError Binary(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<BinaryApi>(call, ApiOf(kBinary, call.type), x1, x2, y);
}

// Div divides integers as C does (truncating) on CANN, which no aclnn API here computes: floating
// operands only, as RealDiv.
aclError Div(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (!Floating(call.outputs[0].desc->dtype)) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("y of dtype ") + DTypeName(call.outputs[0].desc->dtype) +
                                                          ": integer Div is not modelled (floating dtypes are)");
  }
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<BinaryApi>(call, "aclnnDiv", x1, x2, y);
}

// Add, Sub: x1 + x2, x1 - x2; AxpyV2: x1 + alpha * x2 (alpha a constant input); Axpy: the same,
// alpha an attribute.
aclError AddOrSub(const OpCall& call) {
  const bool axpy_input = call.type == "AxpyV2";
  if (aclError s = call.Arity(axpy_input ? 3 : 2, axpy_input ? 3 : 2, 1)) return s;
  AclnnObjects o(call);
  aclScalar* alpha = nullptr;
  if (axpy_input) {
    if (aclError s = ConstScalar(call, o, 2, "alpha", &alpha)) return s;
  } else if (call.type == "Axpy") {
    alpha = o.Scalar(call.Float("alpha", 1.0f), ACL_FLOAT);
  } else {
    alpha = One(o, call.outputs[0].desc->dtype);
  }
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<AddApi>(call, call.type == "Sub" ? "aclnnSub" : "aclnnAdd", x1, x2, alpha, y);
}

// Addcmul, Addcdiv: input_data + value * x1 (* or /) x2, value a constant input.
aclError Addc(const OpCall& call) {
  if (aclError s = call.Arity(4, 4, 1)) return s;
  AclnnObjects o(call);
  aclScalar* value = nullptr;
  if (aclError s = ConstScalar(call, o, 3, "value", &value)) return s;
  aclTensor* input = o.Tensor(call.inputs[0], "input_data");
  aclTensor* x1 = o.Tensor(call.inputs[1], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[2], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<AddcApi>(call, call.type == "Addcmul" ? "aclnnAddcmul" : "aclnnAddcdiv", input, x1, x2, value, y);
}

// Three tensors to one, broadcasting: Lerp (start, end, weight), ClipByValue (x, min, max), Select
// (condition, x1, x2).
aclError Ternary(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const char* api = call.type == "Lerp" ? "aclnnLerp" : call.type == "Select" ? "aclnnSWhere" : "aclnnClampTensor";
  AclnnObjects o(call);
  aclTensor* a = o.Tensor(call.inputs[0], "input 0");
  aclTensor* b = o.Tensor(call.inputs[1], "input 1");
  aclTensor* c = o.Tensor(call.inputs[2], "input 2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<TernaryApi>(call, api, a, b, c, y);
}

aclError LeakyRelu(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithScalarApi>(call, "aclnnLeakyRelu", x, o.Scalar(call.Float("negative_slope", 0.0f), ACL_FLOAT), y);
}

// Cast: y = x in y's dtype, which the attribute dst_type names.
aclError Cast(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const aclDataType dtype = call.outputs[0].desc->dtype;
  if (call.Has("dst_type") && call.Int("dst_type", dtype) != static_cast<int64_t>(dtype)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute dst_type = " + std::to_string(call.Int("dst_type", dtype)) +
                                                      " is not the dtype of y (" + DTypeName(dtype) + ")");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<CastApi>(call, "aclnnCast", x, dtype, y);
}

// ZerosLike, OnesLike: y filled with 0 or 1 (x gives only the shape and dtype).
aclError FillLike(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceApi>(call, call.type == "ZerosLike" ? "aclnnInplaceZero" : "aclnnInplaceOne", y);
}

// A reduction over empty axes reduces every axis unless noop_with_empty_axes says nothing (its
// default is false, as ONNX's: torch_npu's torch.amax(x, dim=()) sends ReduceMax empty axes and a
// 0-d y). True when the call reduces nothing: y is x, copied (a 0-d x too, whose axes are none);
// otherwise *axes holds every axis of x.
bool ReducesNothing(const OpCall& call, std::vector<int64_t>* axes) {
  const size_t rank = call.inputs[0].desc->dims.size();
  if (!axes->empty()) return false;
  if (call.Bool("noop_with_empty_axes", false) || rank == 0) return true;
  for (size_t d = 0; d < rank; ++d) axes->push_back(static_cast<int64_t>(d));
  return false;
}

// y = x for a reduction over nothing (ReducesNothing), in y's shape.
aclError CopyReduction(const OpCall& call) {
  const Operand &x_operand = call.inputs[0], &y_operand = call.outputs[0];
  if (Elements(x_operand.desc->dims) != Elements(y_operand.desc->dims)) {
    return call.Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "a reduction over no axis of x " + ListText(x_operand.desc->dims) +
                                                        " into y " + ListText(y_operand.desc->dims) + ": the shapes differ");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x", y_operand.desc->dims);
  aclTensor* y = o.Tensor(y_operand, "y");
  if (o.status()) return o.status();
  return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
}

// ReduceSum, ReduceMean, ReduceMax, ReduceMin over the axes of input 1 (the D forms: attribute axes).
aclError Reduce(const OpCall& call) {
  const bool attr_axes = call.type.back() == 'D';
  if (aclError s = call.Arity(attr_axes ? 1 : 2, attr_axes ? 1 : 2, 1)) return s;
  std::vector<int64_t> axes = call.Ints("axes");
  if (!attr_axes) {
    if (aclError s = call.ConstInts(1, "axes", &axes)) return s;
  }
  if (ReducesNothing(call, &axes)) return CopyReduction(call);
  const bool keep = call.Bool("keep_dims", false);
  const char* api = ApiOf(kReduce, call.type);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclIntArray* dims = o.Ints(axes);
  if (o.status()) return o.status();
  const aclDataType dtype = call.outputs[0].desc->dtype;
  if (std::string(api) == "aclnnAmax" || std::string(api) == "aclnnAmin") {
    return Aclnn<ReduceNoDTypeApi>(call, api, x, dims, keep, y);
  }
  return Aclnn<ReduceApi>(call, api, x, dims, keep, dtype, y);
}

// SoftmaxV2, LogSoftmaxV2 along the one axis of attribute axes.
aclError Softmax(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t> axes = call.Ints("axes", {-1});
  if (axes.size() != 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute axes = " + ListText(axes) + " is not modelled (one axis is)");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<DimApi>(call, call.type == "SoftmaxV2" ? "aclnnSoftmax" : "aclnnLogSoftmax", x, axes[0], y);
}

// Cumsum along the axis of input 1 (CumsumD: attribute axis); exclusive and reverse sums are refused.
aclError Cumsum(const OpCall& call) {
  const bool attr_axis = call.type == "CumsumD";
  if (aclError s = call.Arity(attr_axis ? 1 : 2, attr_axis ? 1 : 2, 1)) return s;
  if (call.Bool("exclusive", false) || call.Bool("reverse", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "an exclusive or reverse sum is not modelled");
  }
  int64_t axis = call.Int("axis", 0);
  if (!attr_axis) {
    if (aclError s = ConstInt(call, 1, "axis", &axis)) return s;
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<CumsumApi>(call, "aclnnCumsum", x, axis, call.outputs[0].desc->dtype, y);
}

// ConcatD, ConcatV2D and Pack: the inputs joined by `api` (aclnnCat along an existing dimension,
// aclnnStack along a new one) at the dimension attribute `dim_attribute`; N, their number, checked.
aclError JoinInputs(const OpCall& call, const char* api, const char* dim_attribute) {
  const size_t count = call.inputs.size();
  // Nothing joined into an empty y (torch_npu's qr backward of a [0, 5] matrix sends ConcatD no
  // input): no element to write, whatever the operator would make of it.
  if (count == 0 && call.outputs.size() == 1 && Elements(call.outputs[0].desc->dims) == 0 &&
      call.Int("N", 0) == 0) {
    return ACL_SUCCESS;
  }
  if (aclError s = call.Arity(1, count, 1)) return s;
  if (call.Has("N") && call.Int("N", 0) != static_cast<int64_t>(count)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute N = " + std::to_string(call.Int("N", 0)) + " for " +
                                                      std::to_string(count) + " inputs");
  }
  AclnnObjects o(call);
  std::vector<aclTensor*> tensors;
  for (size_t i = 0; i < count; ++i) tensors.push_back(o.Tensor(call.inputs[i], "x"));
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensorList* list = o.List(tensors);
  if (o.status()) return o.status();
  return Aclnn<CatApi>(call, api, list, call.Int(dim_attribute, 0), y);
}

aclError Concat(const OpCall& call) { return JoinInputs(call, "aclnnCat", "concat_dim"); }

// ArgMaxV2, ArgMin: the index of the largest (smallest) element along the axis of input 1. The aclnn
// APIs give int64 indices; an int32 y (torch_npu asks for one) receives them cast.
aclError ArgIndex(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  int64_t axis = 0;
  if (aclError s = ConstInt(call, 1, "dimension", &axis)) return s;
  const char* api = call.type == "ArgMaxV2" ? "aclnnArgMax" : "aclnnArgMin";
  const bool keep = call.Bool("keep_dims", false);
  const Operand& y_operand = call.outputs[0];
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(y_operand, "y");
  if (y_operand.desc->dtype == ACL_INT64) {
    if (o.status()) return o.status();
    return Aclnn<ArgApi>(call, api, x, axis, keep, y);
  }
  aclTensor* indices = o.Scratch(ACL_INT64, y_operand.desc->dims);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<ArgApi>(call, api, x, axis, keep, indices)) return s;
  return Aclnn<CastApi>(call, "aclnnCast", indices, y_operand.desc->dtype, y);
}

// --- gradients ---------------------------------------------------------------------------------

// An activation's gradient from (gradient, forward input or output): the aclop type, the aclnn
// backward API, and which aclop input is the incoming gradient (CANN's SigmoidGrad and TanhGrad take
// the forward output y first, then dy; the others take the gradient first).
struct GradType {
  const char* type;
  const char* api;
  size_t grad_input;
};
const GradType kGrads[] = {
    {"SigmoidGrad", "aclnnSigmoidBackward", 1}, {"TanhGrad", "aclnnTanhBackward", 1},
    {"GeluGrad", "aclnnGeluBackward", 0},       {"SiluGrad", "aclnnSiluBackward", 0},
    {"FastGeluGrad", "aclnnFastGeluBackward", 0},
};

aclError ActivationGrad(const OpCall& call) {
  const GradType* grad_type = nullptr;
  for (const GradType& g : kGrads) {
    if (call.type == g.type) grad_type = &g;
  }
  // GeluGrad's third input, the forward output, is not needed by aclnnGeluBackward.
  if (aclError s = call.Arity(2, call.type == "GeluGrad" ? 3 : 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* grad = o.Tensor(call.inputs[grad_type->grad_input], "dy");
  aclTensor* forward = o.Tensor(call.inputs[1 - grad_type->grad_input], "x");
  aclTensor* dx = o.Tensor(call.outputs[0], "z");
  if (o.status()) return o.status();
  return Aclnn<BackwardApi>(call, grad_type->api, grad, forward, dx);
}

// ReluGrad (gradients, features): the gradient where features > 0.
aclError ReluGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* grad = o.Tensor(call.inputs[0], "gradients");
  aclTensor* features = o.Tensor(call.inputs[1], "features");
  aclTensor* dx = o.Tensor(call.outputs[0], "backprops");
  if (o.status()) return o.status();
  return Aclnn<BackwardWithScalarApi>(call, "aclnnThresholdBackward", grad, features, o.Scalar(0.0, ACL_FLOAT), dx);
}

aclError LeakyReluGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* grad = o.Tensor(call.inputs[0], "gradients");
  aclTensor* features = o.Tensor(call.inputs[1], "features");
  aclTensor* dx = o.Tensor(call.outputs[0], "backprops");
  if (o.status()) return o.status();
  return Aclnn<LeakyReluBackwardApi>(call, "aclnnLeakyReluBackward", grad, features,
                                     o.Scalar(call.Float("negative_slope", 0.0f), ACL_FLOAT), false, dx);
}

// SoftmaxGrad (softmax, grad_softmax; attribute axes) and LogSoftmaxGrad (grad, the forward output;
// attribute axis), along one axis.
aclError SoftmaxGrad(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool log = call.type == "LogSoftmaxGrad";
  const std::vector<int64_t> axes = call.Ints(log ? "axis" : "axes", {-1});
  if (axes.size() != 1) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + (log ? "axis" : "axes") + " = " +
                                                      ListText(axes) + " is not modelled (one axis is)");
  }
  AclnnObjects o(call);
  aclTensor* grad = o.Tensor(call.inputs[log ? 0 : 1], "grad");
  aclTensor* output = o.Tensor(call.inputs[log ? 1 : 0], "the forward output");
  aclTensor* dx = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<SoftmaxBackwardApi>(call, log ? "aclnnLogSoftmaxBackward" : "aclnnSoftmaxBackward", grad, output, axes[0], dx);
}

// --- more reductions and data movement ----------------------------------------------------------

// ReduceProd over one constant axis; ReduceAny and ReduceAll over constant axes.
aclError ReduceOther(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> axes;
  if (aclError s = call.ConstInts(1, "axes", &axes)) return s;
  if (ReducesNothing(call, &axes)) return CopyReduction(call);
  const bool keep = call.Bool("keep_dims", false);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclIntArray* dims = o.Ints(axes);
  if (o.status()) return o.status();
  if (call.type == "ReduceProd") {
    // aclnnProdDim reduces one axis: several are reduced one after another, the last first, so
    // that dropping one leaves the numbers of those before it unchanged.
    const aclDataType dtype = call.outputs[0].desc->dtype;
    std::vector<int64_t> dims_left = call.inputs[0].desc->dims;
    const auto rank = static_cast<int64_t>(dims_left.size());
    std::vector<int64_t> order;
    for (int64_t a : axes) {
      const int64_t axis = a < 0 ? a + rank : a;
      if (axis < 0 || axis >= rank) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "axes " + ListText(axes) + " out of x's rank");
      if (std::find(order.begin(), order.end(), axis) == order.end()) order.push_back(axis);
    }
    std::sort(order.rbegin(), order.rend());
    aclTensor* current = x;
    for (size_t k = 0; k < order.size(); ++k) {
      const auto axis = static_cast<size_t>(order[k]);
      if (keep) dims_left[axis] = 1;
      else dims_left.erase(dims_left.begin() + static_cast<std::ptrdiff_t>(axis));
      aclTensor* next = k + 1 == order.size() ? y : o.Scratch(dtype, dims_left);
      if (o.status()) return o.status();
      if (aclError s = Aclnn<ProdDimApi>(call, "aclnnProdDim", current, order[k], keep, dtype, next)) return s;
      current = next;
    }
    return ACL_SUCCESS;
  }
  const char* api = call.type == "ReduceAny" ? "aclnnAny" : "aclnnAll";
  const Operand& y_operand = call.outputs[0];
  // An integer y (torch_npu's linalg checks reduce an INT32 info tensor into INT32): the truth
  // values, then cast. A floating y is left to the aclnn API's dtype check (torch.any answers bool).
  if (y_operand.desc->dtype == ACL_BOOL || Floating(y_operand.desc->dtype)) {
    return Aclnn<ReduceNoDTypeApi>(call, api, x, dims, keep, y);
  }
  aclTensor* truth = o.Scratch(ACL_BOOL, y_operand.desc->dims);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<ReduceNoDTypeApi>(call, api, x, dims, keep, truth)) return s;
  return Aclnn<CastApi>(call, "aclnnCast", truth, y_operand.desc->dtype, y);
}

// ReverseV2 (x, constant axes) and Tile (x, constant multiples).
aclError WithConstAxes(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const bool tile = call.type == "Tile";
  std::vector<int64_t> list;
  if (aclError s = call.ConstInts(1, tile ? "multiples" : "axis", &list)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<WithIntsApi>(call, tile ? "aclnnRepeat" : "aclnnFlip", x, o.Ints(list), y);
}

// Tril, Triu: attribute diagonal.
aclError Triangle(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<DimApi>(call, call.type == "Tril" ? "aclnnTril" : "aclnnTriu", x, call.Int("diagonal", 0), y);
}

// Elu (attributes alpha, scale, input_scale) and SoftplusV2 (beta, threshold).
aclError ScaledActivation(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (call.type == "Elu") {
    return Aclnn<EluApi>(call, "aclnnElu", x, o.Scalar(call.Float("alpha", 1.0f), ACL_FLOAT),
                         o.Scalar(call.Float("scale", 1.0f), ACL_FLOAT), o.Scalar(call.Float("input_scale", 1.0f), ACL_FLOAT), y);
  }
  return Aclnn<TwoScalarsApi>(call, "aclnnSoftplus", x, o.Scalar(call.Float("beta", 1.0f), ACL_FLOAT),
                              o.Scalar(call.Float("threshold", 20.0f), ACL_FLOAT), y);
}

// MseLoss (predict, label; attribute reduction "none", "mean" or "sum").
aclError MseLoss(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  int64_t mode = 0;
  if (aclError s = call.Choice("reduction", "mean", {"none", "mean", "sum"}, &mode)) return s;
  AclnnObjects o(call);
  aclTensor* predict = o.Tensor(call.inputs[0], "predict");
  aclTensor* label = o.Tensor(call.inputs[1], "label");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<MseLossApi>(call, "aclnnMseLoss", predict, label, mode, y);
}

// NLLLoss (x, target, weight; attributes reduction, ignore_index) to y and total_weight, as
// aclnnNLLLoss computes them.
aclError NLLLoss(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 2)) return s;
  int64_t mode = 0;
  if (aclError s = call.Choice("reduction", "mean", {"none", "mean", "sum"}, &mode)) return s;
  // torch_npu gives a class vector [C] as x [1, C] with its 0-d target: the target's elements, seen
  // in x's shape without the class dimension.
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t> batch(x_dims.begin(), x_dims.end() - (x_dims.empty() ? 0 : 1));
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* target = Elements(call.inputs[1].desc->dims) == Elements(batch) ? o.Tensor(call.inputs[1], "target", batch)
                                                                              : o.Tensor(call.inputs[1], "target");
  aclTensor* weight = o.Tensor(call.inputs[2], "weight");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* total_weight = o.Tensor(call.outputs[1], "total_weight");
  if (o.status()) return o.status();
  return Aclnn<NLLLossApi>(call, "aclnnNLLLoss", x, target, weight, mode, call.Int("ignore_index", -100), y, total_weight);
}

// Values and indices (TopKV2: x, constant k, attributes dim, largest, sorted; Sort: attributes axis,
// descending). The aclnn APIs give int64 indices; torch_npu's int32 indices receive them cast.
aclError ValuesAndIndices(const OpCall& call) {
  const bool topk = call.type == "TopKV2";
  if (aclError s = call.Arity(topk ? 2 : 1, topk ? 2 : 1, 2)) return s;
  int64_t k = 0;
  if (topk) {
    if (aclError s = ConstInt(call, 1, "k", &k)) return s;
  }
  const Operand& indices_operand = call.outputs[1];
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* values = o.Tensor(call.outputs[0], "values");
  aclTensor* indices = o.Tensor(indices_operand, "indices");
  const bool cast = indices_operand.desc->dtype != ACL_INT64;
  aclTensor* wide = cast ? o.Scratch(ACL_INT64, indices_operand.desc->dims) : indices;
  if (o.status()) return o.status();
  aclError status = topk ? Aclnn<TopkApi>(call, "aclnnTopk", x, k, call.Int("dim", -1), call.Bool("largest", true),
                                          call.Bool("sorted", true), values, wide)
                         : Aclnn<SortApi>(call, "aclnnSort", x, false, call.Int("axis", -1), call.Bool("descending", false),
                                          values, wide);
  if (status != ACL_SUCCESS || !cast) return status;
  return Aclnn<CastApi>(call, "aclnnCast", wide, indices_operand.desc->dtype, indices);
}

// AvgPoolV2 of an NCHW x (its window: ReadAvgPoolWindow), by aclnnAvgPool2d.
aclError AvgPoolV2(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AvgPoolWindow w;
  if (aclError s = ReadAvgPoolWindow(call, call.inputs[0].desc->dtype, &w)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<AvgPool2dApi>(call, "aclnnAvgPool2d", x, o.Ints(w.kernel), o.Ints(w.stride), o.Ints(w.padding), w.ceil_mode,
                             w.count_include_pad, w.divisor_override, static_cast<int8_t>(0), y);
}

// HardSigmoid: max(0, min(1, alpha * x + beta)), aclnnHardsigmoid's alpha 1/6 and beta 1/2 only.
aclError HardSigmoid(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  if (aclError s = CheckHardSigmoidAttributes(call)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, "aclnnHardsigmoid", x, y);
}

// HardShrink, SoftShrink (attribute lambd); ThresholdV2D (threshold, value); NanToNum (nan, posinf, neginf).
aclError WithFloatAttrs(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (call.type == "ThresholdV2D") {
    return Aclnn<TwoScalarsApi>(call, "aclnnThreshold", x, o.Scalar(call.Float("threshold", 0.0f), ACL_FLOAT),
                                o.Scalar(call.Float("value", 0.0f), ACL_FLOAT), y);
  }
  if (call.type == "NanToNum") {
    return Aclnn<NanToNumApi>(call, "aclnnNanToNum", x, call.Float("nan", 0.0f), call.Float("posinf", 3.4028235e38f),
                              call.Float("neginf", -3.4028235e38f), y);
  }
  return Aclnn<WithScalarApi>(call, call.type == "HardShrink" ? "aclnnHardshrink" : "aclnnSoftshrink", x,
                              o.Scalar(call.Float("lambd", 0.5f), ACL_FLOAT), y);
}

aclError Pack(const OpCall& call) { return JoinInputs(call, "aclnnStack", "axis"); }

aclError Roll(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<RollApi>(call, "aclnnRoll", x, o.Ints(call.Ints("shifts")), o.Ints(call.Ints("dims")), y);
}

// ReduceLogSumExp over constant axes; Cumprod along a constant axis (exclusive and reverse refused).
aclError LogSumExpOrCumprod(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  std::vector<int64_t> axes;
  if (aclError s = call.ConstInts(1, "axes", &axes)) return s;
  if (call.type == "ReduceLogSumExp" && ReducesNothing(call, &axes)) return CopyReduction(call);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  // Cumprod's y has x's elements (a 0-d x gives a [1] y, or the other way round): seen in x's shape.
  const bool cumprod = call.type == "Cumprod";
  aclTensor* y = cumprod && Elements(call.outputs[0].desc->dims) == Elements(call.inputs[0].desc->dims)
                     ? o.Tensor(call.outputs[0], "y", call.inputs[0].desc->dims)
                     : o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (call.type == "ReduceLogSumExp") {
    return Aclnn<ReduceNoDTypeApi>(call, "aclnnLogSumExp", x, o.Ints(axes), call.Bool("keep_dims", false), y);
  }
  if (call.Bool("exclusive", false) || call.Bool("reverse", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "an exclusive or reverse product is not modelled");
  }
  if (axes.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input axis is not one element");
  return Aclnn<CumprodApi>(call, "aclnnCumprod", x, o.IntScalar(axes[0]), call.outputs[0].desc->dtype, y);
}

aclError Glu(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<DimApi>(call, "aclnnGlu", x, call.Int("dim", -1), y);
}

// PadV3 in mode "constant": x, paddings (a constant, [begin, end] of each dimension from the first,
// or every begin then every end when paddings_contiguous is false), constant_values (one element,
// read once the stream has run the work that writes it). Its other modes pad by reflection or
// replication (nn.cpp).
aclError PadV3(const OpCall& call) {
  if (call.String("mode", "constant") != "constant") return RunMirrorOrEdgePad(call);
  if (aclError s = call.Arity(2, 3, 1)) return s;
  std::vector<int64_t> paddings;
  if (aclError s = call.ConstInts(1, "paddings", &paddings)) return s;
  const size_t rank = call.inputs[0].desc->dims.size();
  if (paddings.size() != 2 * rank) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "paddings " + ListText(paddings) + " are not two per dimension of x " +
                                                       ListText(call.inputs[0].desc->dims));
  }
  const bool contiguous = call.Bool("paddings_contiguous", true);
  std::vector<int64_t> pad;  // aclnnConstantPadNd's order: the last dimension's begin and end first
  for (size_t d = rank; d-- > 0;) {
    pad.push_back(contiguous ? paddings[2 * d] : paddings[d]);
    pad.push_back(contiguous ? paddings[2 * d + 1] : paddings[rank + d]);
  }
  double value = 0;
  if (call.inputs.size() == 3) {
    const Operand& values = call.inputs[2];
    if (Elements(values.desc->dims) != 1 || !Floating(values.desc->dtype)) {
      return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input constant_values is not one floating element");
    }
    if (aclError s = call.ConstFloat(2, "constant_values", &value)) return s;
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ConstantPadApi>(call, "aclnnConstantPadNd", x, o.Ints(pad), o.Scalar(value, ACL_DOUBLE), y);
}

// Round (attribute decimals): to the nearest integer, halves to even, or to `decimals` places.
aclError Round(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const int64_t decimals = call.Int("decimals", 0);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (decimals == 0) return Aclnn<UnaryApi>(call, "aclnnRound", x, y);
  return Aclnn<RoundDecimalsApi>(call, "aclnnRoundDecimals", x, decimals, y);
}

// Histogram (x; attributes bins, min, max): the counts of x's elements in `bins` equal bins over
// [min, max], PyTorch's histc, aclnnHistc. min == max takes the data's own range (torch_npu sends
// histc's 0 and 0 as they are), as CANN documents it for the same operation with other operands
// (aclnnHistc's page, and HistogramV2's README in ops-math: "如果min和max相等，则使用张量中所有元素的最小值和最大值");
// min > max is refused.
aclError Histogram(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const float min = call.Float("min", 0.0f), max = call.Float("max", 0.0f);
  if (!(min <= max)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attributes min = " + std::to_string(min) + " and max = " +
                                                      std::to_string(max) + ": an inverted range is not modelled");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclScalar* low = o.Scalar(min, ACL_FLOAT);
  aclScalar* high = o.Scalar(max, ACL_FLOAT);
  if (o.status()) return o.status();
  return Aclnn<HistcApi>(call, "aclnnHistc", x, call.Int("bins", 100), low, high, y);
}

// IsClose (x1, x2; attributes rtol, atol, equal_nan): |x1 - x2| <= atol + rtol * |x2|.
aclError IsClose(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x1 = o.Tensor(call.inputs[0], "x1");
  aclTensor* x2 = o.Tensor(call.inputs[1], "x2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<IsCloseApi>(call, "aclnnIsClose", x1, x2, static_cast<double>(call.Float("rtol", 1e-5f)),
                           static_cast<double>(call.Float("atol", 1e-8f)), call.Bool("equal_nan", false), y);
}

// SearchSorted (sorted_sequence, values, optional sorter; attributes dtype INT32 or INT64, right).
aclError SearchSorted(const OpCall& call) {
  if (aclError s = call.Arity(2, 3, 1)) return s;
  AclnnObjects o(call);
  aclTensor* sequence = o.Tensor(call.inputs[0], "sorted_sequence");
  aclTensor* values = o.Tensor(call.inputs[1], "values");
  aclTensor* sorter = call.inputs.size() > 2 ? o.Tensor(call.inputs[2], "sorter") : nullptr;
  aclTensor* out = o.Tensor(call.outputs[0], "out");
  if (o.status()) return o.status();
  return Aclnn<SearchSortedApi>(call, "aclnnSearchSorted", sequence, values, call.outputs[0].desc->dtype == ACL_INT32,
                                call.Bool("right", false), sorter, out);
}

}  // namespace

const std::vector<OpEntry>& MathEntries() {
  using K = AttrKind;
  static const std::vector<OpEntry> entries = [] {
    std::vector<OpEntry> all;
    for (const TypeApi& t : kUnary) all.push_back({t.type, {}, Unary});
    for (const TypeApi& t : kBinary) all.push_back({t.type, {}, Binary});
    const std::vector<AttrSpec> reduce_attrs = {{"keep_dims", K::kBool}, {"noop_with_empty_axes", K::kBool}};
    std::vector<AttrSpec> reduce_d_attrs = reduce_attrs;
    reduce_d_attrs.push_back({"axes", K::kListInt});
    for (const TypeApi& t : kReduce) all.push_back({t.type, std::string(t.type).back() == 'D' ? reduce_d_attrs : reduce_attrs, Reduce});
    const std::vector<AttrSpec> exp_log_attrs = {{"base", K::kFloat}, {"scale", K::kFloat}, {"shift", K::kFloat}};
    const std::vector<OpEntry> others = {
        {"Exp", exp_log_attrs, ExpOrLog},
        {"Log", exp_log_attrs, ExpOrLog},
        {"Div", {}, Div},
        {"Add", {}, AddOrSub},
        {"Sub", {}, AddOrSub},
        {"AxpyV2", {}, AddOrSub},
        {"Axpy", {{"alpha", K::kFloat}}, AddOrSub},
        {"Addcmul", {}, Addc},
        {"Addcdiv", {}, Addc},
        {"Lerp", {}, Ternary},
        {"ClipByValue", {}, Ternary},
        {"ClipByValueV2", {}, Ternary},
        {"Select", {}, Ternary},
        {"LeakyRelu", {{"negative_slope", K::kFloat}}, LeakyRelu},
        {"Cast", {{"dst_type", K::kInt}, {"truncate", K::kBool}}, Cast},
        {"ZerosLike", {}, FillLike},
        {"OnesLike", {}, FillLike},
        {"SoftmaxV2", {{"axes", K::kListInt}}, Softmax},
        {"LogSoftmaxV2", {{"axes", K::kListInt}}, Softmax},
        {"Cumsum", {{"exclusive", K::kBool}, {"reverse", K::kBool}}, Cumsum},
        {"CumsumD", {{"axis", K::kInt}, {"exclusive", K::kBool}, {"reverse", K::kBool}}, Cumsum},
        {"ConcatD", {{"N", K::kInt}, {"concat_dim", K::kInt}}, Concat},
        {"ConcatV2D", {{"N", K::kInt}, {"concat_dim", K::kInt}}, Concat},
        {"ArgMaxV2", {{"dtype", K::kDataType}, {"keep_dims", K::kBool}}, ArgIndex},
        {"ArgMin", {{"dtype", K::kDataType}, {"keep_dims", K::kBool}}, ArgIndex},
        {"SigmoidGrad", {}, ActivationGrad},
        {"TanhGrad", {}, ActivationGrad},
        {"GeluGrad", {}, ActivationGrad},
        {"SiluGrad", {}, ActivationGrad},
        {"FastGeluGrad", {}, ActivationGrad},
        {"ReluGrad", {}, ReluGrad},
        {"LeakyReluGrad", {{"negative_slope", K::kFloat}}, LeakyReluGrad},
        {"SoftmaxGrad", {{"axes", K::kListInt}}, SoftmaxGrad},
        {"LogSoftmaxGrad", {{"axis", K::kListInt}}, SoftmaxGrad},
        {"ReduceProd", reduce_attrs, ReduceOther},
        {"ReduceAny", reduce_attrs, ReduceOther},
        {"ReduceAll", reduce_attrs, ReduceOther},
        {"ReverseV2", {}, WithConstAxes},
        {"Tile", {}, WithConstAxes},
        {"Tril", {{"diagonal", K::kInt}}, Triangle},
        {"Triu", {{"diagonal", K::kInt}}, Triangle},
        {"MaskedFill", {}, MaskedFill},
        {"Elu", {{"alpha", K::kFloat}, {"scale", K::kFloat}, {"input_scale", K::kFloat}}, ScaledActivation},
        {"SoftplusV2", {{"beta", K::kFloat}, {"threshold", K::kFloat}}, ScaledActivation},
        {"MseLoss", {{"reduction", K::kString}}, MseLoss},
        {"TopKV2", {{"dim", K::kInt}, {"largest", K::kBool}, {"sorted", K::kBool}}, ValuesAndIndices},
        {"Sort", {{"axis", K::kInt}, {"descending", K::kBool}}, ValuesAndIndices},
        {"BNInfer", {{"epsilon", K::kFloat}}, BNInfer},
        {"ReduceStdWithMean",
         {{"dim", K::kListInt}, {"unbiased", K::kBool}, {"keepdim", K::kBool}, {"invert", K::kBool}, {"epsilon", K::kFloat},
          {"correction", K::kInt}},
         StdOrVar},
        {"ReduceStdV2Update",
         {{"dim", K::kListInt}, {"if_std", K::kBool}, {"unbiased", K::kBool}, {"keepdim", K::kBool}, {"correction", K::kInt}},
         StdOrVar},
        {"AvgPoolV2",
         {{"ksize", K::kListInt}, {"strides", K::kListInt}, {"padding_mode", K::kString}, {"pads", K::kListInt},
          {"data_format", K::kString}, {"global_pooling", K::kBool}, {"ceil_mode", K::kBool}, {"exclusive", K::kBool},
          {"divisor_override", K::kInt}},
         AvgPoolV2},
        {"HardSigmoid", {{"alpha", K::kFloat}, {"beta", K::kFloat}}, HardSigmoid},
        {"HardShrink", {{"lambd", K::kFloat}}, WithFloatAttrs},
        {"SoftShrink", {{"lambd", K::kFloat}}, WithFloatAttrs},
        {"ThresholdV2D", {{"threshold", K::kFloat}, {"value", K::kFloat}}, WithFloatAttrs},
        {"NanToNum", {{"nan", K::kFloat}, {"posinf", K::kFloat}, {"neginf", K::kFloat}}, WithFloatAttrs},
        {"GatherV2", {{"batch_dims", K::kInt}}, Gather},
        {"GatherElements", {{"dim", K::kInt}}, Gather},
        {"Pack", {{"N", K::kInt}, {"axis", K::kInt}}, Pack},
        {"Roll", {{"shifts", K::kListInt}, {"dims", K::kListInt}}, Roll},
        {"ReduceLogSumExp", {{"keep_dims", K::kBool}}, LogSumExpOrCumprod},
        {"Cumprod", {{"exclusive", K::kBool}, {"reverse", K::kBool}}, LogSumExpOrCumprod},
        {"GLU", {{"dim", K::kInt}}, Glu},
        {"PadV3", {{"mode", K::kString}, {"paddings_contiguous", K::kBool}}, PadV3},
        {"LpNormReduceV2", {{"p", K::kFloat}, {"axes", K::kListInt}, {"keepdim", K::kBool}, {"epsilon", K::kFloat}}, LpNormReduce},
        {"LpNormUpdateV2", {{"p", K::kFloat}, {"epsilon", K::kFloat}}, LpNormUpdate},
        {"BNTrainingReduce", {{"epsilon", K::kFloat}}, BNTrainingReduce},
        {"BNTrainingUpdate", {{"factor", K::kFloat}, {"epsilon", K::kFloat}}, BNTrainingUpdate},
        // The same over the D, H and W of an NCDHW x (F.batch_norm of a 5-d input).
        {"BN3DTrainingReduce", {{"epsilon", K::kFloat}}, BNTrainingReduce},
        {"BN3DTrainingUpdate", {{"factor", K::kFloat}, {"epsilon", K::kFloat}}, BNTrainingUpdate},
        {"SyncBatchNormBackwardReduce", {}, SyncBatchNormBackwardReduce},
        {"SyncBatchNormBackwardElemt", {}, SyncBatchNormBackwardElemt},
        {"LayerNorm", {{"begin_norm_axis", K::kInt}, {"begin_params_axis", K::kInt}, {"epsilon", K::kFloat}}, LayerNorm},
        {"IsClose", {{"rtol", K::kFloat}, {"atol", K::kFloat}, {"equal_nan", K::kBool}}, IsClose},
        {"LogAddExp", exp_log_attrs, LogAddExp},
        {"Round", {{"decimals", K::kInt}}, Round},
        {"Range", {}, Range},
        {"LinSpace", {}, LinSpace},
        {"IndexFillD", {{"dim", K::kInt}}, IndexFillD},
        {"StatelessRandperm", {{"dtype", K::kDataType}, {"layout", K::kInt}}, StatelessRandperm},
        {"LogSpaceD", {{"start", K::kFloat}, {"end", K::kFloat}, {"steps", K::kInt}, {"base", K::kFloat}, {"dtype", K::kInt}},
         LogSpaceD},
        {"MatrixInverse", {{"adjoint", K::kBool}}, MatrixInverse},
        {"MatrixTriangularSolve", {{"lower", K::kBool}, {"adjoint", K::kBool}}, MatrixTriangularSolve},
        {"Histogram", {{"bins", K::kInt}, {"min", K::kFloat}, {"max", K::kFloat}}, Histogram},
        {"NLLLoss", {{"reduction", K::kString}, {"ignore_index", K::kInt}}, NLLLoss},
        {"ScatterElements", {{"axis", K::kInt}, {"reduction", K::kString}}, ScatterElements},
        {"Svd", {{"compute_uv", K::kBool}, {"full_matrices", K::kBool}}, Svd},
        {"Qr", {{"full_matrices", K::kBool}}, Qr},
        {"Gather", {{"validate_indices", K::kBool}}, GatherRows},
        {"GatherV2D", {{"axis", K::kInt}}, Gather},
        {"InplaceIndexAdd", {{"axis", K::kInt}}, InplaceIndexAdd},
        {"MaskedScatter", {}, MaskedScatter},
        {"RepeatInterleave", {{"axis", K::kInt}}, RepeatInterleave},
        {"ShuffleChannel", {{"group", K::kInt}}, ShuffleChannel},
        {"Eye", {{"num_rows", K::kInt}, {"num_columns", K::kInt}, {"batch_shape", K::kListInt}, {"dtype", K::kDataType}}, Eye},
        {"SearchSorted", {{"dtype", K::kDataType}, {"right", K::kBool}}, SearchSorted},
    };
    all.insert(all.end(), others.begin(), others.end());
    for (OpEntry& entry : all) entry.every_chip = true;
    return all;
  }();
  return entries;
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnHistc, HistcApi);
ACLOP_SAME(aclnnReflectionPad2d, WithIntsApi);
ACLOP_SAME(aclnnReplicationPad2d, WithIntsApi);
ACLOP_SAME(aclnnAvgPool2d, AvgPool2dApi);
ACLOP_SAME(aclnnCast, CastApi);
ACLOP_SAME(aclnnConstantPadNd, ConstantPadApi);
ACLOP_SAME(aclnnCumprod, CumprodApi);
ACLOP_SAME(aclnnCumsum, CumsumApi);
ACLOP_SAME(aclnnDiv, BinaryApi);
ACLOP_SAME(aclnnElu, EluApi);
ACLOP_SAME(aclnnGlu, DimApi);
ACLOP_SAME(aclnnHardsigmoid, UnaryApi);
ACLOP_SAME(aclnnInplaceCopy, InplaceCopyApi);
ACLOP_SAME(aclnnIsClose, IsCloseApi);
ACLOP_SAME(aclnnLeakyRelu, WithScalarApi);
ACLOP_SAME(aclnnLeakyReluBackward, LeakyReluBackwardApi);
ACLOP_SAME(aclnnLogSumExp, ReduceNoDTypeApi);
ACLOP_SAME(aclnnMseLoss, MseLossApi);
ACLOP_SAME(aclnnNLLLoss, NLLLossApi);
ACLOP_SAME(aclnnNanToNum, NanToNumApi);
ACLOP_SAME(aclnnProdDim, ProdDimApi);
ACLOP_SAME(aclnnRoll, RollApi);
ACLOP_SAME(aclnnRound, UnaryApi);
ACLOP_SAME(aclnnRoundDecimals, RoundDecimalsApi);
ACLOP_SAME(aclnnSearchSorted, SearchSortedApi);
ACLOP_SAME(aclnnSoftplus, TwoScalarsApi);
ACLOP_SAME(aclnnSort, SortApi);
ACLOP_SAME(aclnnThreshold, TwoScalarsApi);
ACLOP_SAME(aclnnThresholdBackward, BackwardWithScalarApi);
ACLOP_SAME(aclnnTopk, TopkApi);
ACLOP_SAME(aclnnAbs, UnaryApi);
ACLOP_SAME(aclnnAcos, UnaryApi);
ACLOP_SAME(aclnnAcosh, UnaryApi);
ACLOP_SAME(aclnnAdd, AddApi);
ACLOP_SAME(aclnnAddcdiv, AddcApi);
ACLOP_SAME(aclnnAddcmul, AddcApi);
ACLOP_SAME(aclnnAsin, UnaryApi);
ACLOP_SAME(aclnnAsinh, UnaryApi);
ACLOP_SAME(aclnnAtan, UnaryApi);
ACLOP_SAME(aclnnAtan2, BinaryApi);
ACLOP_SAME(aclnnAtanh, UnaryApi);
ACLOP_SAME(aclnnBitwiseAndTensor, BinaryApi);
ACLOP_SAME(aclnnBitwiseNot, UnaryApi);
ACLOP_SAME(aclnnBitwiseOrTensor, BinaryApi);
ACLOP_SAME(aclnnBitwiseXorTensor, BinaryApi);
ACLOP_SAME(aclnnCeil, UnaryApi);
ACLOP_SAME(aclnnCos, UnaryApi);
ACLOP_SAME(aclnnCosh, UnaryApi);
ACLOP_SAME(aclnnDot, BinaryApi);
ACLOP_SAME(aclnnEqTensor, BinaryApi);
ACLOP_SAME(aclnnEqual, BinaryApi);
ACLOP_SAME(aclnnErf, UnaryApi);
ACLOP_SAME(aclnnErfc, UnaryApi);
ACLOP_SAME(aclnnExpm1, UnaryApi);
ACLOP_SAME(aclnnFastGelu, UnaryApi);
ACLOP_SAME(aclnnFlip, WithIntsApi);
ACLOP_SAME(aclnnFloor, UnaryApi);
ACLOP_SAME(aclnnFloorDivide, BinaryApi);
ACLOP_SAME(aclnnFmodTensor, BinaryApi);
ACLOP_SAME(aclnnGeTensor, BinaryApi);
ACLOP_SAME(aclnnGelu, UnaryApi);
ACLOP_SAME(aclnnGtTensor, BinaryApi);
ACLOP_SAME(aclnnHardshrink, WithScalarApi);
ACLOP_SAME(aclnnHardswish, UnaryApi);
ACLOP_SAME(aclnnInplaceOne, InplaceApi);
ACLOP_SAME(aclnnInplaceZero, InplaceApi);
ACLOP_SAME(aclnnIsFinite, UnaryApi);
ACLOP_SAME(aclnnLeTensor, BinaryApi);
ACLOP_SAME(aclnnLeftShift, BinaryApi);
ACLOP_SAME(aclnnLog1p, UnaryApi);
ACLOP_SAME(aclnnLogSigmoid, UnaryApi);
ACLOP_SAME(aclnnLogSoftmax, DimApi);
ACLOP_SAME(aclnnLogSoftmaxBackward, SoftmaxBackwardApi);
ACLOP_SAME(aclnnLogicalAnd, BinaryApi);
ACLOP_SAME(aclnnLogicalNot, UnaryApi);
ACLOP_SAME(aclnnLogicalOr, BinaryApi);
ACLOP_SAME(aclnnLtTensor, BinaryApi);
ACLOP_SAME(aclnnMaximum, BinaryApi);
ACLOP_SAME(aclnnMinimum, BinaryApi);
ACLOP_SAME(aclnnMul, BinaryApi);
ACLOP_SAME(aclnnNeTensor, BinaryApi);
ACLOP_SAME(aclnnNeg, UnaryApi);
ACLOP_SAME(aclnnPowTensorTensor, BinaryApi);
ACLOP_SAME(aclnnPrelu, BinaryApi);
ACLOP_SAME(aclnnReciprocal, UnaryApi);
ACLOP_SAME(aclnnRelu, UnaryApi);
ACLOP_SAME(aclnnRemainderTensorTensor, BinaryApi);
ACLOP_SAME(aclnnRepeat, WithIntsApi);
ACLOP_SAME(aclnnRightShift, BinaryApi);
ACLOP_SAME(aclnnRsqrt, UnaryApi);
ACLOP_SAME(aclnnSelu, UnaryApi);
ACLOP_SAME(aclnnSigmoid, UnaryApi);
ACLOP_SAME(aclnnSign, UnaryApi);
ACLOP_SAME(aclnnSin, UnaryApi);
ACLOP_SAME(aclnnSinh, UnaryApi);
ACLOP_SAME(aclnnSoftmax, DimApi);
ACLOP_SAME(aclnnSoftmaxBackward, SoftmaxBackwardApi);
ACLOP_SAME(aclnnSoftshrink, WithScalarApi);
ACLOP_SAME(aclnnSqrt, UnaryApi);
ACLOP_SAME(aclnnSquare, UnaryApi);
ACLOP_SAME(aclnnSub, AddApi);
ACLOP_SAME(aclnnTan, UnaryApi);
ACLOP_SAME(aclnnTanh, UnaryApi);
ACLOP_SAME(aclnnTrace, UnaryApi);
ACLOP_SAME(aclnnTril, DimApi);
ACLOP_SAME(aclnnTriu, DimApi);
ACLOP_SAME(aclnnTrunc, UnaryApi);
