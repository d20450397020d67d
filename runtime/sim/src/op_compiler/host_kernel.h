// The aclop bridge's host kernels (vision.cpp, custom_ops.cpp): operators no aclnn API computes on
// the call's chip run as C++ on the host, queued in stream order. Their operands read and written
// as float, their shapes checked, their kernel launched.
#ifndef ACLNN_SIM_OP_COMPILER_HOST_KERNEL_H_
#define ACLNN_SIM_OP_COMPILER_HOST_KERNEL_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/internal.h"
#include "op_compiler/bridge.h"

namespace aclsim::aclop {

// One floating operand of a kernel: its data and dtype, read and written as float.
struct Floats {
  void* data = nullptr;
  aclDataType dtype = ACL_FLOAT;

  float operator[](int64_t i) const {
    switch (dtype) {
      case ACL_FLOAT16: return HalfToFloat(static_cast<const uint16_t*>(data)[i]);
      case ACL_BF16: return BFloat16ToFloat(static_cast<const uint16_t*>(data)[i]);
      default: return static_cast<const float*>(data)[i];
    }
  }
  void Set(int64_t i, float v) const {
    switch (dtype) {
      case ACL_FLOAT16: static_cast<uint16_t*>(data)[i] = FloatToHalf(v); break;
      case ACL_BF16: static_cast<uint16_t*>(data)[i] = FloatToBFloat16(v); break;
      default: static_cast<float*>(data)[i] = v;
    }
  }
};

// The operand as Floats, or the call's failure when its dtype is not float32, float16 or bfloat16.
inline aclError FloatsOf(const OpCall& call, const Operand& operand, const char* what, Floats* floats) {
  const aclDataType dtype = operand.desc->dtype;
  if (dtype != ACL_FLOAT && dtype != ACL_FLOAT16 && dtype != ACL_BF16) {
    return call.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string(what) + " of dtype " + DTypeName(dtype) +
                                                          " (float32, float16 or bfloat16 modelled)");
  }
  if (static_cast<size_t>(std::max<int64_t>(Elements(operand.desc->dims), 0)) * DTypeSize(dtype) > operand.buffer->size) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " of shape " + ListText(operand.desc->dims) +
                                                       " does not fit its data buffer");
  }
  *floats = {operand.buffer->data, dtype};
  return ACL_SUCCESS;
}

inline aclError Shape(const OpCall& call, const Operand& operand, const char* what, const std::vector<int64_t>& expected) {
  if (operand.desc->dims == expected) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " of shape " + ListText(operand.desc->dims) +
                                                     " (expected " + ListText(expected) + ")");
}

// The operands a host kernel reads and writes as float, each of `dims`.
inline aclError SameShapeFloats(const OpCall& call, const std::vector<const Operand*>& operands, const std::vector<const char*>& names,
                         const std::vector<int64_t>& dims, std::vector<Floats>* floats) {
  floats->resize(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    if (aclError s = FloatsOf(call, *operands[i], names[i], &(*floats)[i])) return s;
    if (aclError s = Shape(call, *operands[i], names[i], dims)) return s;
  }
  return ACL_SUCCESS;
}

// The chips an operator's README marks unsupported (×) though an aclnn page of the same operation
// lists them or not: the call is refused there, naming the README, as a device refuses it.
inline aclError OnReadmeChips(const OpCall& call, const char* readme, std::initializer_list<Soc> unsupported) {
  Soc soc;
  if (!SimulatedSoc(&soc)) return call.Fail(ACL_ERROR_INVALID_PARAM, "the simulated chip is not known");
  if (std::find(unsupported.begin(), unsupported.end(), soc) == unsupported.end()) return ACL_SUCCESS;
  return call.Fail(ACL_ERROR_OP_NOT_FOUND, std::string("not supported on ") + SocName(soc) + ": " + readme + " mark its product unsupported");
}

// Queues `kernel` on the call's stream: it runs after the work queued before it.
inline aclError Launch(const OpCall& call, std::function<void()> kernel) {
  auto task = std::make_unique<std::function<void()>>(std::move(kernel));
  auto run = [](void* self) {
    std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(self));
    (*f)();
  };
  const aclError status = aclrtLaunchHostFunc(call.stream, run, task.get());
  if (status != ACL_SUCCESS) return call.Fail(status, std::string("could not queue its kernel: ") + aclGetRecentErrMsg());
  task.release();  // the stream's task owns it now
  return ACL_SUCCESS;
}

}  // namespace aclsim::aclop

#endif  // ACLNN_SIM_OP_COMPILER_HOST_KERNEL_H_
