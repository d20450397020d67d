// The floor of one aclnn call: the ABI calls the bindings make for
// aclnn.leaky_relu_backward(grad, self, 0.01, False) on device-resident tensors, made directly
// from C++ with nothing else around them. Built by bench/calls.py at bench time against
// runtime/include, generated/aclnnop and the built simulator, loaded into the same process as
// the bindings (the simulator's libraries are then the ones already loaded: one runtime).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_leaky_relu_backward.h"

namespace {

struct Floor {
  aclrtStream stream = nullptr;
  void* grad = nullptr;
  void* self = nullptr;
  void* out = nullptr;
};

constexpr int64_t kElements = 4;
constexpr size_t kBytes = kElements * sizeof(float);

// One call as the bindings make it: tensors for the inputs' device buffers, the output's buffer
// allocated (alloc_out) or given, phase 1, the workspace, phase 2, synchronise, destroy.
int one_call(Floor& f, bool alloc_out) {
  const int64_t shape[1] = {kElements};
  const int64_t strides[1] = {1};
  void* out = f.out;
  if (alloc_out && aclrtMalloc(&out, kBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
  aclTensor* grad = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, f.grad);
  aclTensor* self = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, f.self);
  aclTensor* result = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, out);
  float slope_value = 0.01f;
  aclScalar* slope = aclCreateScalar(&slope_value, ACL_FLOAT);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  int status = aclnnLeakyReluBackwardGetWorkspaceSize(grad, self, slope, false, result, &workspace_size, &executor);
  void* workspace = nullptr;
  if (status == 0 && workspace_size > 0) status = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  if (status == 0) status = aclnnLeakyReluBackward(workspace, workspace_size, executor, f.stream);
  if (status == 0) status = aclrtSynchronizeStream(f.stream);
  aclDestroyTensor(grad);
  aclDestroyTensor(self);
  aclDestroyTensor(result);
  aclDestroyScalar(slope);
  if (workspace != nullptr) aclrtFree(workspace);
  if (alloc_out) aclrtFree(out);
  return status;
}

}  // namespace

extern "C" {

// Seconds per call over `calls` calls, or a negative status when a call failed. The runtime is
// expected to be initialised already (the bindings did it in this process).
__attribute__((visibility("default"))) double bench_call_floor(int calls, int alloc_out) {
  Floor f;
  if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&f.stream) != ACL_SUCCESS) return -1;
  const std::vector<float> grad = {2, 3, 4, 5}, self = {1, -2, 3, -4};
  for (void** buffer : {&f.grad, &f.self, &f.out})
    if (aclrtMalloc(buffer, kBytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -2;
  aclrtMemcpy(f.grad, kBytes, grad.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(f.self, kBytes, self.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE);
  int status = one_call(f, alloc_out != 0);  // warm: the first call of an op does one-time work
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; status == 0 && i < calls; ++i) status = one_call(f, alloc_out != 0);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  float result[kElements] = {};
  aclrtMemcpy(result, kBytes, f.out, kBytes, ACL_MEMCPY_DEVICE_TO_HOST);
  for (void* buffer : {f.grad, f.self, f.out}) aclrtFree(buffer);
  aclrtDestroyStream(f.stream);
  if (status != 0) return -static_cast<double>(status);
  // out= was written only when it was given; then it must hold the op's result.
  if (!alloc_out && (result[0] != 2.0f || std::fabs(result[1] - 0.03f) > 1e-6f)) return -3;
  return elapsed.count() / calls;
}
}
