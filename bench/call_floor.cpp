// The floor of one chained aclnn call: `y = aclnn.leaky_relu_backward(g, y, 0.1, False)` on
// device-resident tensors, made directly from C++ as CANN's examples and torch_npu's op-plugin make
// it, with nothing else around: the three tensors and the scalar created, phase 1, phase 2 (queued
// on the stream: the simulator's streams are asynchronous), the objects destroyed. (The bindings
// make fewer objects: their Tensors and cached blocks keep descriptors, and scalars are shared.) The output
// memory is the bindings' caching allocator's business, not an ABI call: the floor alternates
// between two buffers it allocated once. One synchronisation ends the chain, as in the bindings.
//
// Built by bench/calls.py at bench time against runtime/include, generated/aclnnop and the built
// simulator, loaded into the same process as the bindings (the simulator's libraries are then the
// ones already loaded: one runtime).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_leaky_relu_backward.h"

namespace {

// One call of the chain: out = leaky_relu_backward(grad, self, slope, false). Returns the status.
int one_call(aclrtStream stream, int64_t elements, void* grad, void* self, void* out) {
  const int64_t shape[1] = {elements};
  const int64_t strides[1] = {1};
  aclTensor* g = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, grad);
  aclTensor* x = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, self);
  aclTensor* y = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, out);
  float slope_value = 0.1f;
  aclScalar* slope = aclCreateScalar(&slope_value, ACL_FLOAT);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  int status = aclnnLeakyReluBackwardGetWorkspaceSize(g, x, slope, false, y, &workspace_size, &executor);
  if (status == 0 && workspace_size > 0) status = -4;  // contiguous FLOAT needs none: the floor has no allocator
  if (status == 0) status = aclnnLeakyReluBackward(nullptr, 0, executor, stream);
  aclDestroyTensor(g);
  aclDestroyTensor(x);
  aclDestroyTensor(y);
  aclDestroyScalar(slope);
  return status;
}

}  // namespace

extern "C" {

// Seconds per call over a chain of `calls` calls on `elements` float32 elements (y fed back as
// the next call's self), or a negative status when a call failed. `result` receives the last y.
// The runtime is expected to be initialised already (the bindings did it in this process).
__attribute__((visibility("default"))) double bench_call_floor(int calls, int elements, float* result) {
  aclrtStream stream = nullptr;
  if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) return -1;
  const size_t bytes = static_cast<size_t>(elements) * sizeof(float);
  void* buffers[3] = {nullptr, nullptr, nullptr};  // grad, then y ping-pong
  for (void*& buffer : buffers)
    if (aclrtMalloc(&buffer, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -2;
  std::vector<float> grad(elements), y0(elements);
  for (int i = 0; i < elements; ++i) {
    grad[i] = static_cast<float>(i % 7 - 3);  // exact values: the caller checks the result exactly
    y0[i] = static_cast<float>(i % 5 - 2);
  }
  aclrtMemcpy(buffers[0], bytes, grad.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(buffers[1], bytes, y0.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  int status = one_call(stream, elements, buffers[0], buffers[1], buffers[2]);  // warm
  if (status == 0) status = aclrtSynchronizeStream(stream);
  int current = 2;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; status == 0 && i < calls; ++i) {
    const int next = current == 1 ? 2 : 1;
    status = one_call(stream, elements, buffers[0], buffers[current], buffers[next]);
    current = next;
  }
  if (status == 0) status = aclrtSynchronizeStream(stream);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (status == 0) aclrtMemcpy(result, bytes, buffers[current], bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  for (void* buffer : buffers) aclrtFree(buffer);
  aclrtDestroyStream(stream);
  if (status != 0) return -static_cast<double>(status < 0 ? -status : status);
  return elapsed.count() / calls;
}
}
