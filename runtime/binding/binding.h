// aclnn-bindgen: the hand-written C++ every generated wrapper (generated/bindings/ops_*.cpp) leans
// on. A wrapper is a thin, typed sequence: convert each argument with a `Call` method, call the
// op's first phase through its typed pointer, and `Call::run` does the rest (uploads, workspace,
// second phase on the current stream, downloads, errors, results). The wrappers see it through
// wrapper.h alone, which includes no pybind11 header; the runtime's own units include this one.
//
// The device is asynchronous, as an NPU is: phase 2 queues the kernel on a stream and returns.
// A call whose tensors are all device tensors (aclnn.Tensor) never waits; a call that returns
// host arrays synchronises its stream once, to download. Device memory comes from a caching
// allocator (one per device, stream-ordered as PyTorch's CUDA caching allocator), so that a chain
// of calls allocates nothing from the device after warm-up. A kernel that fails on the device is
// reported by the next synchronisation, as AclnnRuntimeError naming its API and call number.
//
// Ownership: one RAII owner per CANN object, and device memory in `DeviceBuffer`s shared by the
// tensors that view it, so that every path, including every error path, releases what it created.
// Conversions of Python objects run under the GIL; waits for the device release it.
#ifndef ACLNN_BINDGEN_BINDING_H_
#define ACLNN_BINDGEN_BINDING_H_

// The runtime's parts, one header per concept (each beside the source that implements it).
#include "wrapper.h"

#include "dtypes.h"
#include "errors.h"
#include "streams.h"
#include "allocator.h"
#include "runtime.h"
#include "gil.h"
#include "device_buffer.h"
#include "owners.h"
#include "arrays.h"
#include "api_spec.h"
#include "call.h"
#include "signature.h"
#include "module.h"

#endif  // ACLNN_BINDGEN_BINDING_H_
