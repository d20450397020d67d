// The simulator's one elementwise engine: any strides (0 and negative included), storage
// offsets, broadcasting and dtype conversions, multithreaded for large tensors.
#ifndef ACLNN_SIM_OPAPI_ELEMENTWISE_H_
#define ACLNN_SIM_OPAPI_ELEMENTWISE_H_

#include <cstdint>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/internal.h"

namespace aclsim {

struct Operand {
  char* first = nullptr;  // the address of the view's element (0, ..., 0)
  aclDataType dtype = ACL_DT_UNDEFINED;
  Dims strides;           // in elements, one per output dimension; 0 where broadcast
};

// Operands of one kernel (its output and inputs): the engine's arrays are this long.
inline constexpr size_t kMaxOperands = 16;

// Row converters, instantiated once per (compute type, dtype) in elementwise.cpp and shared with
// the kernel families: n values of `dtype` at src, src + stride, ... (strides in bytes) into
// compute values at dst, and back. Null when the dtype has no storage type (or a complex value
// would load into a real computation).
using LoadFn = void (*)(const char* src, int64_t stride, int64_t n, void* dst);
using StoreFn = void (*)(const void* src, char* dst, int64_t stride, int64_t n);
LoadFn Loader(ComputeType type, aclDataType dtype);
StoreFn Storer(ComputeType type, aclDataType dtype);
size_t ComputeSize(ComputeType type);

// The storage dtype that equals a compute type (ACL_FLOAT for kFloat32, ...).
aclDataType StorageOf(ComputeType type);

// Whether the engine can load `dtype` into a compute type and store it back.
bool Convertible(aclDataType dtype);
// Whether it can load `dtype` (every Convertible dtype, and the FLOAT8 formats it only reads).
bool Loadable(aclDataType dtype);

// out[i] = kernel(inputs[0][i], ...) for every index i of `shape` (the output's view shape), for
// at most kMaxOperands - 1 inputs. The views must have been checked against their allocations:
// the engine trusts them.
void RunElementwise(const Dims& shape, const Operand& out, const Operand* inputs, size_t count, ComputeType type,
                    const BoundKernel& kernel);

// Whether every operand is contiguous in the compute type, so that the kernel reads and writes
// the tensors' memory directly (no conversion, no gather). Allocates nothing: phase 1 asks.
bool IsDirect(const Dims& shape, const Operand& out, const Operand* inputs, size_t count, ComputeType type);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_ELEMENTWISE_H_
