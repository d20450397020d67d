// aclnn-bindgen bindings: errors and counters (runtime.cpp).
#ifndef ACLNN_BINDING_ERRORS_H_
#define ACLNN_BINDING_ERRORS_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace aclnn_binding {

// A status from the library; becomes aclnn.AclnnError (or a subclass) in Python.
struct AclnnFailure {
  int64_t status;
  std::string api;      // "aclnnLeakyReluBackward", or "" for runtime calls outside an op
  std::string phase;    // "GetWorkspaceSize", "execute", "device", "aclrtMalloc", "aclInit", ...
  std::string message;  // aclGetRecentErrMsg() at the time of the failure
  int64_t call = -1;    // phase "device": the failing call's sequence number (-1: unknown)
};

// What the bindings did, for tests and for `aclnn._C._stats()`: proof that chained device
// calls copy nothing to the host, and that every object is released.
struct Counters {
  std::atomic<int64_t> host_to_device{0}, device_to_host{0}, device_to_device{0};
  std::atomic<int64_t> bytes_to_device{0}, bytes_to_host{0};
  std::atomic<int64_t> live_buffers{0}, live_objects{0};
  std::atomic<int64_t> calls{0};  // also each call's sequence number
  // aclCreateTensor and aclCreateScalar calls: a chain of calls makes none once warm (descriptors
  // are kept by Tensors and cached blocks, scalars shared).
  std::atomic<int64_t> descriptors_made{0}, scalars_made{0};
};
// Never destroyed: late destructors (at interpreter exit) still count. Made at the module's load.
extern Counters* const g_counters;
inline Counters& counters() { return *g_counters; }

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_ERRORS_H_
