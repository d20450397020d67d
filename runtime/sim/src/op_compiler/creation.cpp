// The aclop bridge's tensors made from their attributes or constant inputs (math.cpp's table
// registers them): Range, LinSpace, LogSpaceD, Eye and StatelessRandperm, each by the simulator's
// aclnn API of the same sequence.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using ArangeApi = Phase1<const aclScalar*, const aclScalar*, const aclScalar*, aclTensor*>;
using LinspaceApi = Phase1<const aclScalar*, const aclScalar*, int64_t, aclTensor*>;
using LogSpaceApi = Phase1<const aclScalar*, const aclScalar*, int64_t, double, const aclTensor*>;
using RandpermApi = Phase1<int64_t, int64_t, int64_t, aclTensor*>;
using EyeApi = Phase1<int64_t, int64_t, aclTensor*>;

}  // namespace

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

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnArange, ArangeApi);
ACLOP_SAME(aclnnEye, EyeApi);
ACLOP_SAME(aclnnLinspace, LinspaceApi);
ACLOP_SAME(aclnnLogSpace, LogSpaceApi);
ACLOP_SAME(aclnnRandperm, RandpermApi);
