// The aclop bridge's common math operator types: the elementwise, comparison, cast, reduction,
// softmax, cumulative and concatenation operators that torch_npu's op-plugin runs by type name
// (OpCommand) where a tensor is kept in a private layout (NC1HWC0, FRACTAL_NZ: on Ascend910 and
// Ascend310P, and on Atlas A2 with torch.npu.config.allow_internal_format) or where a chip routes
// an operation to aclop. Each computes by the simulator's aclnn API of the same operation; a
// private operand reaches it as a plain copy (bridge.cpp's Run), and an operand held on the host
// (a Python scalar: `x + 1.5` is Add with a 0-d host tensor) as a device copy (AclnnObjects). An
// attribute value no aclnn API expresses is refused (ACL_ERROR_OP_ATTR_NOT_MATCH) naming it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"

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

namespace {

using UnaryApi = Phase1<const aclTensor*, aclTensor*>;
using BinaryApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;
using AddApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using TernaryApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*>;  // Lerp, ClampTensor, SWhere
using AddcApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using WithScalarApi = Phase1<const aclTensor*, const aclScalar*, aclTensor*>;  // LeakyRelu
using CastApi = Phase1<const aclTensor*, aclDataType, aclTensor*>;
using InplaceApi = Phase1<aclTensor*>;  // InplaceZero, InplaceOne
using ReduceApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclDataType, aclTensor*>;  // ReduceSum, Mean
using ReduceNoDTypeApi = Phase1<const aclTensor*, const aclIntArray*, bool, aclTensor*>;        // Amax, Amin
using DimApi = Phase1<const aclTensor*, int64_t, aclTensor*>;                                 // Softmax, LogSoftmax
using CumsumApi = Phase1<const aclTensor*, int64_t, aclDataType, aclTensor*>;
using CatApi = Phase1<const aclTensorList*, int64_t, aclTensor*>;
using ArgApi = Phase1<const aclTensor*, int64_t, bool, aclTensor*>;  // ArgMax, ArgMin
using BackwardApi = Phase1<const aclTensor*, const aclTensor*, aclTensor*>;  // SigmoidBackward, TanhBackward, ...
using BackwardWithScalarApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;  // ThresholdBackward
using LeakyReluBackwardApi = Phase1<const aclTensor*, const aclTensor*, const aclScalar*, bool, aclTensor*>;
using SoftmaxBackwardApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using ProdDimApi = Phase1<const aclTensor*, int64_t, bool, aclDataType, aclTensor*>;
using WithIntsApi = Phase1<const aclTensor*, const aclIntArray*, aclTensor*>;  // Flip, Repeat
using InplaceCopyApi = Phase1<aclTensor*, const aclTensor*>;
using InplaceMaskedFillApi = Phase1<aclTensor*, const aclTensor*, const aclTensor*>;
using EluApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, const aclScalar*, aclTensor*>;
using TwoScalarsApi = Phase1<const aclTensor*, const aclScalar*, const aclScalar*, aclTensor*>;  // Softplus
using MseLossApi = Phase1<const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using TopkApi = Phase1<const aclTensor*, int64_t, int64_t, bool, bool, aclTensor*, aclTensor*>;
using SortApi = Phase1<const aclTensor*, bool, int64_t, bool, aclTensor*, aclTensor*>;
using StdApi = Phase1<const aclTensor*, const aclIntArray*, int64_t, bool, aclTensor*>;
using VarMeanApi = Phase1<const aclTensor*, const aclIntArray*, int64_t, bool, aclTensor*, aclTensor*>;
using AvgPool2dApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, const aclIntArray*, bool, bool,
                            int64_t, int8_t, aclTensor*>;
using NanToNumApi = Phase1<const aclTensor*, float, float, float, aclTensor*>;
using IndexSelectApi = Phase1<const aclTensor*, int64_t, const aclTensor*, aclTensor*>;  // IndexSelect, Gather
using RollApi = Phase1<const aclTensor*, const aclIntArray*, const aclIntArray*, aclTensor*>;
using ConstantPadApi = Phase1<const aclTensor*, const aclIntArray*, const aclScalar*, aclTensor*>;
using CumprodApi = Phase1<const aclTensor*, const aclScalar*, aclDataType, aclTensor*>;
using LayerNormApi = Phase1<const aclTensor*, const aclIntArray*, const aclTensor*, const aclTensor*, double, aclTensor*,
                            aclTensor*, aclTensor*>;
using InplaceAddsApi = Phase1<aclTensor*, const aclScalar*, const aclScalar*>;
using RoundDecimalsApi = Phase1<const aclTensor*, int64_t, aclTensor*>;
using ArangeApi = Phase1<const aclScalar*, const aclScalar*, const aclScalar*, aclTensor*>;
using LinspaceApi = Phase1<const aclScalar*, const aclScalar*, int64_t, aclTensor*>;
using LogSpaceApi = Phase1<const aclScalar*, const aclScalar*, int64_t, double, const aclTensor*>;
using InplaceAddTensorApi = Phase1<aclTensor*, const aclTensor*, const aclScalar*>;
using RandpermApi = Phase1<int64_t, int64_t, int64_t, aclTensor*>;
using NLLLossApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, int64_t, int64_t, aclTensor*, aclTensor*>;
using IsCloseApi = Phase1<const aclTensor*, const aclTensor*, double, double, bool, aclTensor*>;
using ScatterApi = Phase1<const aclTensor*, int64_t, const aclTensor*, const aclTensor*, int64_t, aclTensor*>;
using BatchNormApi = Phase1<const aclTensor*, const aclTensor*, const aclTensor*, aclTensor*, aclTensor*, bool, double,
                            double, aclTensor*, aclTensor*, aclTensor*>;

using RepeatInterleaveApi = Phase1<const aclTensor*, int64_t, int64_t, int64_t, aclTensor*>;
using RepeatInterleaveTensorApi = Phase1<const aclTensor*, const aclTensor*, int64_t, int64_t, aclTensor*>;
using IndexAddApi = Phase1<const aclTensor*, const int64_t, const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*>;
using EyeApi = Phase1<int64_t, int64_t, aclTensor*>;
using SearchSortedApi = Phase1<const aclTensor*, const aclTensor*, bool, bool, const aclTensor*, aclTensor*>;
using QrApi = Phase1<const aclTensor*, int64_t, aclTensor*, aclTensor*>;
using SvdApi = Phase1<const aclTensor*, const bool, const bool, aclTensor*, aclTensor*, aclTensor*>;
using TriangularSolveApi = Phase1<const aclTensor*, const aclTensor*, bool, bool, bool, aclTensor*, aclTensor*>;
using HistcApi = Phase1<const aclTensor*, int64_t, const aclScalar*, const aclScalar*, aclTensor*>;

bool Floating(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_DOUBLE;
}

// The scalar 1 in the kind of the output's dtype (aclnnAdd's alpha).
aclScalar* One(AclnnObjects& o, aclDataType dtype) { return Floating(dtype) ? o.Scalar(1.0, ACL_FLOAT) : o.IntScalar(1); }

// The value of a one-element constant input as an aclScalar of its kind (AxpyV2's alpha,
// Addcmul's value): a floating input as FLOAT or DOUBLE, an integer one as INT64.
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

// One constant integer of an input (an axis), negative ones kept (the aclnn APIs count them from the end).
aclError ConstInt(const OpCall& call, size_t input, const char* what, int64_t* value) {
  std::vector<int64_t> values;
  if (aclError s = call.ConstInts(input, what, &values)) return s;
  if (values.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " is not one element");
  *value = values[0];
  return ACL_SUCCESS;
}

// --- operator types by aclnn API ---------------------------------------------------------------

struct TypeApi {
  const char* type;
  const char* api;
};

// y = f(x): the aclop type and the aclnn API of the same function.
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
    {"Trace", "aclnnTrace"},
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

// MaskedFill (x, mask, value): y = x with value where mask, a copy then an in-place fill in stream order.
aclError MaskedFill(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const Operand &x_operand = call.inputs[0], &y_operand = call.outputs[0];
  AclnnObjects o(call);
  // torch_npu gives a 0-d x as [1] with a 0-d y: the same elements, seen in y's shape.
  const bool same_elements = Elements(x_operand.desc->dims) == Elements(y_operand.desc->dims);
  aclTensor* x = same_elements ? o.Tensor(x_operand, "x", y_operand.desc->dims) : o.Tensor(x_operand, "x");
  aclTensor* mask = o.Tensor(call.inputs[1], "mask");
  aclTensor* value = o.Tensor(call.inputs[2], "value");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x)) return s;
  return Aclnn<InplaceMaskedFillApi>(call, "aclnnInplaceMaskedFillTensor", y, mask, value);
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

// BNInfer (x, scale, offset, mean, variance; attribute epsilon): batch normalisation with the
// running statistics, aclnnBatchNorm in evaluation mode (its saved statistics go to scratch).
aclError BNInfer(const OpCall& call) {
  if (aclError s = call.Arity(5, 5, 1)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.size() < 2) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " has no channel dimension");
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* scale = o.Tensor(call.inputs[1], "scale");
  aclTensor* offset = o.Tensor(call.inputs[2], "offset");
  aclTensor* mean = o.Tensor(call.inputs[3], "mean");
  aclTensor* variance = o.Tensor(call.inputs[4], "variance");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* save_mean = o.Scratch(ACL_FLOAT, {x_dims[1]});
  aclTensor* save_invstd = o.Scratch(ACL_FLOAT, {x_dims[1]});
  if (o.status()) return o.status();
  return Aclnn<BatchNormApi>(call, "aclnnBatchNorm", x, scale, offset, mean, variance, false, 0.1,
                             static_cast<double>(call.Float("epsilon", 1e-4f)), y, save_mean, save_invstd);
}

// ReduceStdWithMean (std) and ReduceStdV2Update (std when if_std, else the variance) of x over the
// attribute dim, with the correction attribute (unbiased's 1 or 0 where it is not set). Their mean
// input, computed by torch_npu from the same x, is not needed by the aclnn APIs.
aclError StdOrVar(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  if (call.Bool("invert", false)) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute invert = true is not modelled");
  const bool std_out = call.type == "ReduceStdWithMean" || call.Bool("if_std", false);
  const int64_t correction = call.Has("correction") ? call.Int("correction", 1) : call.Bool("unbiased", true) ? 1 : 0;
  const bool keep = call.Bool("keepdim", false);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclIntArray* dims = o.Ints(call.Ints("dim"));
  aclTensor* mean = std_out ? nullptr : o.Scratch(call.outputs[0].desc->dtype, call.outputs[0].desc->dims);
  if (o.status()) return o.status();
  if (std_out) return Aclnn<StdApi>(call, "aclnnStd", x, dims, correction, keep, y);
  return Aclnn<VarMeanApi>(call, "aclnnVarMean", x, dims, correction, keep, y, mean);
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

// GatherV2 (x, indices, constant axis; batch_dims 0) as index_select; GatherElements (x, index; attribute dim).
aclError Gather(const OpCall& call) {
  const bool elements = call.type == "GatherElements";
  const size_t arity = elements || call.type == "GatherV2D" ? 2 : 3;  // GatherV2D: axis an attribute
  if (aclError s = call.Arity(arity, arity, 1)) return s;
  int64_t axis = call.Int("dim", 0);
  if (!elements) {
    if (call.Int("batch_dims", 0) != 0) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute batch_dims = " + std::to_string(call.Int("batch_dims", 0)) +
                                                        " is not modelled (0 is)");
    }
    if (call.type == "GatherV2D") {
      axis = call.Int("axis", 0);
    } else if (aclError s = ConstInt(call, 2, "axis", &axis)) {
      return s;
    }
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices");
  aclTensor* y = nullptr;
  const std::vector<int64_t>& index_dims = call.inputs[1].desc->dims;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if (!elements && index_dims.size() != 1 && axis >= -rank && axis < rank) {
    // GatherV2's y is x with the axis replaced by the indices' shape (none for 0-d indices):
    // aclnnIndexSelect takes them flattened, y seen with the axis holding their count.
    const auto at = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    std::vector<int64_t> y_dims = x_dims;
    y_dims[at] = Elements(index_dims);
    indices = o.Tensor(call.inputs[1], "indices", {Elements(index_dims)});
    y = o.Tensor(call.outputs[0], "y", y_dims);
  } else {
    y = o.Tensor(call.outputs[0], "y");
  }
  if (o.status()) return o.status();
  return Aclnn<IndexSelectApi>(call, elements ? "aclnnGather" : "aclnnIndexSelect", x, axis, indices, y);
}

// MaskedScatter (x, mask, updates): y = x with updates' leading elements, in order, where mask
// (broadcast) is true: a copy of x, then aclnnInplaceMaskedScatter on y in stream order.
aclError MaskedScatter(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* mask = o.Tensor(call.inputs[1], "mask");
  aclTensor* updates = o.Tensor(call.inputs[2], "updates");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (call.inputs[0].buffer->data != call.outputs[0].buffer->data) {
    if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x)) return s;
  }
  return Aclnn<InplaceMaskedFillApi>(call, "aclnnInplaceMaskedScatter", y, mask, updates);
}

// RepeatInterleave (x, repeats: one integer; attribute axis): each element (slice along axis)
// repeated; repeats of one per slice is not modelled.
aclError RepeatInterleave(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const int64_t axis = call.Int("axis", 0);
  const std::vector<int64_t>& y_dims = call.outputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(y_dims.size());
  if (axis < -rank || axis >= rank) return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute axis = " + std::to_string(axis) + " is outside y's rank");
  const int64_t extent = y_dims[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (Elements(call.inputs[1].desc->dims) != 1) {
    // One count per slice along axis (repeat_interleave with a tensor of repeats).
    aclTensor* repeats = o.Tensor(call.inputs[1], "repeats");
    if (o.status()) return o.status();
    return Aclnn<RepeatInterleaveTensorApi>(call, "aclnnRepeatInterleaveWithDim", x, repeats, axis, extent, y);
  }
  int64_t repeats = 0;
  if (aclError s = ConstInt(call, 1, "repeats", &repeats)) return s;
  if (o.status()) return o.status();
  return Aclnn<RepeatInterleaveApi>(call, "aclnnRepeatInterleaveIntWithDim", x, repeats, axis, extent, y);
}

// InplaceIndexAdd (var, indices, updates, optional one-element alpha; attribute axis): y = var
// with alpha * updates' slices added at the indices along axis, aclnnIndexAdd (alpha 1 when absent).
aclError InplaceIndexAdd(const OpCall& call) {
  if (aclError s = call.Arity(3, 4, 1)) return s;
  AclnnObjects o(call);
  aclScalar* alpha = nullptr;
  if (call.inputs.size() > 3) {
    if (aclError s = ConstScalar(call, o, 3, "alpha", &alpha)) return s;
  } else {
    alpha = One(o, call.outputs[0].desc->dtype);
  }
  aclTensor* var = o.Tensor(call.inputs[0], "var");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices");
  aclTensor* updates = o.Tensor(call.inputs[2], "updates");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<IndexAddApi>(call, "aclnnIndexAdd", var, call.Int("axis", 0), indices, updates, alpha, y);
}

// Gather (x, indices; attribute validate_indices): x's rows at the indices, y of the indices' shape
// followed by x's other dimensions: aclnnIndexSelect along axis 0, the indices flattened.
aclError GatherRows(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.empty()) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x is 0-d (it has no rows)");
  const int64_t count = Elements(call.inputs[1].desc->dims);
  std::vector<int64_t> y_dims = x_dims;
  y_dims[0] = count;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices", {count});
  aclTensor* y = o.Tensor(call.outputs[0], "y", y_dims);
  if (o.status()) return o.status();
  return Aclnn<IndexSelectApi>(call, "aclnnIndexSelect", x, 0, indices, y);
}

// ShuffleChannel (x [N, C, ...]; attribute group): channel c * group + g of y is channel
// g * (C / group) + c of x, a transposed view of x copied into y.
aclError ShuffleChannel(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  const int64_t group = call.Int("group", 1);
  if (dims.size() < 2 || group <= 0 || dims[1] % group != 0) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute group = " + std::to_string(group) + " does not divide the channels of x " +
                                                      ListText(dims));
  }
  const int64_t n = dims[0], per_group = dims[1] / group, rest = Elements(dims) / std::max<int64_t>(n * dims[1], 1);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x", {n, group, per_group, rest}, {0, 2, 1, 3});
  aclTensor* y = o.Tensor(call.outputs[0], "y", {n, per_group, group, rest});
  if (o.status()) return o.status();
  return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
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

// LayerNorm (x, gamma, beta; attributes begin_norm_axis, begin_params_axis, epsilon) to y, mean and
// variance: aclnnLayerNorm's rstd becomes the variance, rstd^-2 - epsilon, in stream order.
aclError LayerNorm(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 3)) return s;
  const std::vector<int64_t>& dims = call.inputs[0].desc->dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t norm = call.Int("begin_norm_axis", 0), params = call.Int("begin_params_axis", 0);
  if (norm < 0) norm += rank;
  if (params < 0) params += rank;
  if (norm < 0 || norm >= rank || norm != params) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin_norm_axis " + std::to_string(call.Int("begin_norm_axis", 0)) +
                                                      " and begin_params_axis " + std::to_string(call.Int("begin_params_axis", 0)) +
                                                      " of x " + ListText(dims) + ": not modelled (one axis in range is)");
  }
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-7f));
  const std::vector<int64_t> normalized(dims.begin() + norm, dims.end());
  return NormWithVariance(call, epsilon, [&](AclnnObjects& o, aclTensor* x, aclTensor* gamma, aclTensor* beta, aclTensor* y,
                                             aclTensor* mean, aclTensor* rstd) {
    return Aclnn<LayerNormApi>(call, "aclnnLayerNorm", x, o.Ints(normalized), gamma, beta, epsilon, y, mean, rstd);
  });
}

// The p of LpNormReduceV2 and LpNormUpdateV2: torch_npu passes the infinite norms as the float of
// INT_MAX and INT_MIN (2^31 and -2^31); p = 0 counts the nonzero elements (torch.linalg.vector_norm's
// ord 0); any other p, negative ones included, is the finite norm (sum |x|^p)^(1/p), |0|^p being
// infinite for a negative p as in PyTorch. A NaN p is not modelled.
enum class NormKind { kFinite, kCount, kMax, kMin, kUnmodelled };
NormKind NormOf(float p) {
  constexpr float kInfinity = 2147483648.0f;
  if (p >= kInfinity) return NormKind::kMax;
  if (p <= -kInfinity) return NormKind::kMin;
  if (p == 0.0f) return NormKind::kCount;
  return std::isfinite(p) ? NormKind::kFinite : NormKind::kUnmodelled;
}

aclError UnmodelledNorm(const OpCall& call, float p) {
  return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute p = " + std::to_string(p) +
                                                    " is not modelled (finite p and the infinite norms are)");
}

// LpNormReduceV2: the first step of torch_npu's p-norm over the attribute axes (none: all):
// sum(|x|^p) for a finite p, the count of x != 0 for p = 0, max|x| or min|x| for the infinite norms.
aclError LpNormReduce(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const float p = call.Float("p", 2.0f);
  const NormKind kind = NormOf(p);
  if (kind == NormKind::kUnmodelled) return UnmodelledNorm(call, p);
  const Operand& x_operand = call.inputs[0];
  std::vector<int64_t> axes = call.Ints("axes");
  if (axes.empty()) {
    for (size_t d = 0; d < x_operand.desc->dims.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  const bool keep = call.Bool("keepdim", false);
  const aclDataType dtype = x_operand.desc->dtype;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* magnitude = o.Scratch(dtype, x_operand.desc->dims);
  aclTensor* powered = kind == NormKind::kFinite ? o.Scratch(dtype, x_operand.desc->dims) : magnitude;
  if (o.status()) return o.status();
  if (kind == NormKind::kCount) {  // 1 where x != 0 (NaN included), in x's dtype, summed below
    if (aclError s = Aclnn<WithScalarApi>(call, "aclnnNeScalar", x, o.Scalar(0.0, ACL_FLOAT), powered)) return s;
  } else if (aclError s = Aclnn<UnaryApi>(call, "aclnnAbs", x, magnitude)) {
    return s;
  }
  if (kind == NormKind::kFinite) {
    if (aclError s = Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", magnitude, o.Scalar(p, ACL_FLOAT), powered)) return s;
  }
  if (x_operand.desc->dims.empty()) return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, powered);
  if (kind == NormKind::kMax || kind == NormKind::kMin) {
    return Aclnn<ReduceNoDTypeApi>(call, kind == NormKind::kMax ? "aclnnAmax" : "aclnnAmin", powered, o.Ints(axes), keep, y);
  }
  return Aclnn<ReduceApi>(call, "aclnnReduceSum", powered, o.Ints(axes), keep, call.outputs[0].desc->dtype, y);
}

// LpNormUpdateV2: the p-norm's last step, y = x^(1/p) (y = x for the count and the infinite norms).
aclError LpNormUpdate(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const float p = call.Float("p", 2.0f);
  const NormKind kind = NormOf(p);
  if (kind == NormKind::kUnmodelled) return UnmodelledNorm(call, p);
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  if (kind != NormKind::kFinite) return Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", y, x);
  return Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", x, o.Scalar(1.0 / p, ACL_DOUBLE), y);
}

// BNTrainingReduce (and BN3DTrainingReduce): the per-channel sum and sum of squares of an NCHW
// (NCDHW) x, over all dimensions but the channels', the first step of torch_npu's training batch norm.
aclError BNTrainingReduce(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  const Operand& x_operand = call.inputs[0];
  const size_t rank = x_operand.desc->dims.size();
  if (rank != (call.type == "BN3DTrainingReduce" ? 5u : 4u)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_operand.desc->dims) + " is not " +
                                                       (call.type == "BN3DTrainingReduce" ? "NCDHW" : "NCHW"));
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(x_operand, "x");
  aclTensor* sum = o.Tensor(call.outputs[0], "sum");
  aclTensor* square_sum = o.Tensor(call.outputs[1], "square_sum");
  aclTensor* squares = o.Scratch(x_operand.desc->dtype, x_operand.desc->dims);
  if (o.status()) return o.status();
  aclIntArray* axes = rank == 5 ? o.Ints({0, 2, 3, 4}) : o.Ints({0, 2, 3});
  const bool keep = call.outputs[0].desc->dims.size() == rank;  // [1, C, 1, 1] or [C]
  const aclDataType dtype = call.outputs[0].desc->dtype;
  if (aclError s = Aclnn<ReduceApi>(call, "aclnnReduceSum", x, axes, keep, dtype, sum)) return s;
  if (aclError s = Aclnn<BinaryApi>(call, "aclnnMul", x, x, squares)) return s;
  return Aclnn<ReduceApi>(call, "aclnnReduceSum", squares, axes, keep, call.outputs[1].desc->dtype, square_sum);
}

// BNTrainingUpdate (and BN3DTrainingUpdate, of an NCDHW x) (x, sum, square_sum, scale, offset, mean,
// variance; attributes factor, epsilon)
// to y, the updated running mean and variance, and the batch's mean and (biased) variance, which
// torch_npu keeps for the backward pass: aclnnBatchNorm in training mode (it recomputes the sums
// from x) updating the output statistics, first copied from the input ones; its saved invstd
// becomes the variance, invstd^-2 - epsilon, in stream order.
aclError BNTrainingUpdate(const OpCall& call) {
  if (aclError s = call.Arity(7, 7, 5)) return s;
  const std::vector<int64_t>& x_dims = call.inputs[0].desc->dims;
  if (x_dims.size() != (call.type == "BN3DTrainingUpdate" ? 5u : 4u)) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "x " + ListText(x_dims) + " is not " +
                                                       (call.type == "BN3DTrainingUpdate" ? "NCDHW" : "NCHW"));
  }
  const std::vector<int64_t> channels = {x_dims[1]};
  const double epsilon = static_cast<double>(call.Float("epsilon", 1e-5f));
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* scale = o.Tensor(call.inputs[3], "scale", channels);
  aclTensor* offset = o.Tensor(call.inputs[4], "offset", channels);
  aclTensor* mean = o.Tensor(call.inputs[5], "mean", channels);
  aclTensor* variance = o.Tensor(call.inputs[6], "variance", channels);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclTensor* mean_out = o.Tensor(call.outputs[1], "mean", channels);
  aclTensor* variance_out = o.Tensor(call.outputs[2], "variance", channels);
  aclTensor* batch_mean = o.Tensor(call.outputs[3], "batch_mean", channels);
  aclTensor* batch_variance = o.Tensor(call.outputs[4], "batch_variance", channels);
  aclTensor* invstd = o.Scratch(call.outputs[4].desc->dtype, channels);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", mean_out, mean)) return s;
  if (aclError s = Aclnn<InplaceCopyApi>(call, "aclnnInplaceCopy", variance_out, variance)) return s;
  if (aclError s = Aclnn<BatchNormApi>(call, "aclnnBatchNorm", x, scale, offset, mean_out, variance_out, true,
                                       static_cast<double>(call.Float("factor", 0.1f)), epsilon, y, batch_mean, invstd)) {
    return s;
  }
  if (aclError s = Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", invstd, o.Scalar(-2.0, ACL_FLOAT), batch_variance)) return s;
  return Aclnn<InplaceAddsApi>(call, "aclnnInplaceAdds", batch_variance, o.Scalar(-epsilon, ACL_DOUBLE), o.Scalar(1.0, ACL_FLOAT));
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

// Range (start, limit, delta: one-element value inputs) to y = start, start + delta, ... below limit.
aclError Range(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const char* const names[] = {"start", "limit", "delta"};
  const bool floating = Floating(call.outputs[0].desc->dtype);
  AclnnObjects o(call);
  aclScalar* bounds[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    if (floating || Floating(call.inputs[i].desc->dtype)) {
      double value = 0;
      if (aclError s = call.ConstFloat(i, names[i], &value)) return s;
      bounds[i] = o.Scalar(value, ACL_DOUBLE);
    } else {
      std::vector<int64_t> value;
      if (aclError s = call.ConstInts(i, names[i], &value)) return s;
      if (value.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + names[i] + " is not one element");
      bounds[i] = o.IntScalar(value[0]);
    }
  }
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ArangeApi>(call, "aclnnArange", bounds[0], bounds[1], bounds[2], y);
}

// LinSpace (start, stop, num: one-element value inputs) to y = num evenly spaced points from start
// to stop, both included (op-plugin's linspace on the chips that compile operators online).
aclError LinSpace(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  AclnnObjects o(call);
  aclScalar* bounds[2] = {};
  const char* const names[] = {"start", "stop"};
  for (size_t i = 0; i < 2; ++i) {
    double value = 0;
    if (Floating(call.inputs[i].desc->dtype)) {
      if (aclError s = call.ConstFloat(i, names[i], &value)) return s;
    } else {
      std::vector<int64_t> values;
      if (aclError s = call.ConstInts(i, names[i], &values)) return s;
      if (values.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + names[i] + " is not one element");
      value = static_cast<double>(values[0]);
    }
    bounds[i] = o.Scalar(value, ACL_DOUBLE);
  }
  std::vector<int64_t> num;
  if (aclError s = call.ConstInts(2, "num", &num)) return s;
  if (num.size() != 1) return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "input num is not one element");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<LinspaceApi>(call, "aclnnLinspace", bounds[0], bounds[1], num[0], y);
}

// LogSpaceD (assist: op-plugin's 0, 1, ... steps - 1; attributes start, end, steps, base, dtype) to
// y = base ^ (start + i * (end - start) / (steps - 1)), aclnnLogSpace; y's dtype is the output's.
aclError LogSpaceD(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  const int64_t steps = call.Int("steps", 100);
  if (steps != Elements(call.outputs[0].desc->dims)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute steps = " + std::to_string(steps) + " is not y's element count " +
                                                      std::to_string(Elements(call.outputs[0].desc->dims)));
  }
  AclnnObjects o(call);
  aclScalar* start = o.Scalar(static_cast<double>(call.Float("start", 0.0f)), ACL_DOUBLE);
  aclScalar* end = o.Scalar(static_cast<double>(call.Float("end", 0.0f)), ACL_DOUBLE);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<LogSpaceApi>(call, "aclnnLogSpace", start, end, steps, static_cast<double>(call.Float("base", 10.0f)), y);
}

// IndexFillD (x, assist1, assist2; attribute dim): op-plugin's host builds assist1 (1, and 0 in the
// slices to fill) and assist2 (0, and the value there), and the operator computes
// y = x * assist1 + assist2: aclnnMul into y, then assist2 added in place.
aclError IndexFillD(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* keep = o.Tensor(call.inputs[1], "assist1");
  aclTensor* fill = o.Tensor(call.inputs[2], "assist2");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  aclScalar* one = One(o, call.outputs[0].desc->dtype);
  if (o.status()) return o.status();
  if (aclError s = Aclnn<BinaryApi>(call, "aclnnMul", x, keep, y)) return s;
  return Aclnn<InplaceAddTensorApi>(call, "aclnnInplaceAdd", y, fill, one);
}

// StatelessRandperm (n, seed, offset: one-element value inputs; attributes dtype, layout): a random
// permutation of 0 .. n - 1 from the seed and offset, aclnnRandperm.
aclError StatelessRandperm(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  const char* const names[] = {"n", "seed", "offset"};
  int64_t values[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    if (aclError s = ConstInt(call, i, names[i], &values[i])) return s;
  }
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<RandpermApi>(call, "aclnnRandperm", values[0], values[1], values[2], y);
}

// MatrixInverse (x; attribute adjoint): the inverse of each matrix of x, aclnnInverse. adjoint asks
// for the inverse of the conjugate transpose, which op-plugin's inverse never sets.
aclError MatrixInverse(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  if (call.Bool("adjoint", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute adjoint true (the inverse of the conjugate transpose) is not modelled");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, "aclnnInverse", x, y);
}

// MatrixTriangularSolve (matrix [..., M, M], rhs [..., M, K]; attributes lower, adjoint): x with
// op(matrix) x = rhs, op(matrix) the lower (or upper) triangle of matrix, transposed when adjoint
// (TensorFlow's matrix_triangular_solve, whose attributes these are; real dtypes, so the adjoint is the
// transpose). aclnnTriangularSolve computes it with upper = !lower, transpose = adjoint; its copy of
// the coefficients (mOut, broadcast to the batch) has no output here and goes to scratch.
aclError MatrixTriangularSolve(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::vector<int64_t>& matrix_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& rhs_dims = call.inputs[1].desc->dims;
  if (matrix_dims.size() < 2 || rhs_dims.size() < 2) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "matrix " + ListText(matrix_dims) + " and rhs " + ListText(rhs_dims) +
                                                       " are not both batches of matrices");
  }
  // The coefficients' shape broadcast to the batch of both: its batch dimensions aligned from the right.
  std::vector<int64_t> coefficients(std::max(matrix_dims.size(), rhs_dims.size()), 1);
  for (size_t i = 0; i + 2 < coefficients.size(); ++i) {
    const size_t from_end = coefficients.size() - i;
    const int64_t a = from_end <= matrix_dims.size() ? matrix_dims[matrix_dims.size() - from_end] : 1;
    const int64_t b = from_end <= rhs_dims.size() ? rhs_dims[rhs_dims.size() - from_end] : 1;
    coefficients[i] = a == 1 ? b : a;
  }
  coefficients[coefficients.size() - 2] = matrix_dims[matrix_dims.size() - 2];
  coefficients.back() = matrix_dims.back();
  AclnnObjects o(call);
  aclTensor* matrix = o.Tensor(call.inputs[0], "matrix");
  aclTensor* rhs = o.Tensor(call.inputs[1], "rhs");
  aclTensor* x = o.Tensor(call.outputs[0], "y");
  aclTensor* copy = o.Scratch(call.inputs[0].desc->dtype, coefficients);
  if (o.status()) return o.status();
  return Aclnn<TriangularSolveApi>(call, "aclnnTriangularSolve", rhs, matrix, !call.Bool("lower", true),
                                   call.Bool("adjoint", false), false, x, copy);
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

// ScatterElements (data, indices, updates; attributes axis, reduction "none", "add" or "mul"):
// aclnnScatter, whose reduce is 0, 1 or 2 for them (its page). y is data's elements: torch_npu's
// max_unpool3d scatters into data [N, C, D*H*W] and describes y as [N, C, D, H, W] (seen in
// aclnnScatter's refusal of that y), the same contiguous elements, which y is read as in data's shape.
aclError ScatterElements(const OpCall& call) {
  if (aclError s = call.Arity(3, 3, 1)) return s;
  int64_t reduce = 0;
  if (aclError s = call.Choice("reduction", "none", {"none", "add", "mul"}, &reduce)) return s;
  const std::vector<int64_t>& data_dims = call.inputs[0].desc->dims;
  const bool reshaped = call.outputs[0].desc->dims != data_dims && Elements(call.outputs[0].desc->dims) == Elements(data_dims);
  AclnnObjects o(call);
  aclTensor* data = o.Tensor(call.inputs[0], "data");
  aclTensor* indices = o.Tensor(call.inputs[1], "indices");
  aclTensor* updates = o.Tensor(call.inputs[2], "updates");
  aclTensor* y = reshaped ? o.Tensor(call.outputs[0], "y", data_dims) : o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<ScatterApi>(call, "aclnnScatter", data, call.Int("axis", 0), indices, updates, reduce, y);
}

// Eye (attributes num_rows, num_columns (0: num_rows), batch_shape, dtype): the identity matrix in
// y, by aclnnEye; a batch of them is not modelled. torch_npu sets dtype as a data type (the
// prototype's is an Int), which must be y's.
aclError Eye(const OpCall& call) {
  if (aclError s = call.Arity(0, 0, 1)) return s;
  const aclDataType dtype = call.outputs[0].desc->dtype;
  if (!call.Ints("batch_shape").empty()) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute batch_shape = " + ListText(call.Ints("batch_shape")) +
                                                      " is not modelled (no batch is)");
  }
  const auto dtype_it = call.attrs.find("dtype");
  if (dtype_it != call.attrs.end() && std::get<aclDataType>(dtype_it->second) != dtype) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute dtype = ") + DTypeName(std::get<aclDataType>(dtype_it->second)) +
                                                      " is not y's dtype " + DTypeName(dtype));
  }
  const int64_t rows = call.Int("num_rows", 0), columns = call.Int("num_columns", 0);
  AclnnObjects o(call);
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<EyeApi>(call, "aclnnEye", rows, columns > 0 ? columns : rows, y);
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

// Qr (x; attribute full_matrices) to q and r: aclnnLinalgQr's mode 1 (complete) or 0 (reduced).
aclError Qr(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* q = o.Tensor(call.outputs[0], "q");
  aclTensor* r = o.Tensor(call.outputs[1], "r");
  if (o.status()) return o.status();
  return Aclnn<QrApi>(call, "aclnnLinalgQr", x, call.Bool("full_matrices", false) ? 1 : 0, q, r);
}

// Svd (x; attributes compute_uv, full_matrices) to sigma, u and v, x = u diag(sigma) v^T: v, not
// its transpose, as aclnnSvd gives it (its page: v is [..., N, K]).
aclError Svd(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 3)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* sigma = o.Tensor(call.outputs[0], "sigma");
  aclTensor* u = o.Tensor(call.outputs[1], "u");
  aclTensor* v = o.Tensor(call.outputs[2], "v");
  if (o.status()) return o.status();
  return Aclnn<SvdApi>(call, "aclnnSvd", x, call.Bool("full_matrices", false), call.Bool("compute_uv", true), sigma, u, v);
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

ACLOP_SAME(aclnnTriangularSolve, TriangularSolveApi);
ACLOP_SAME(aclnnHistc, HistcApi);
