// The simulator's C++ tests, linked like a page's example (-lascendcl -lnnopbase -lopapi) and
// run clean under AddressSanitizer and UndefinedBehaviorSanitizer (runtime/sim/tests/asan.sh).
// They use the seed pages' APIs only, so they build wherever those pages are generated.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_sim.h"
#include "aclnn_sim/math.h"

extern "C" {
aclnnStatus aclnnLeakyReluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                   const aclScalar* negativeSlope, bool selfIsResult, aclTensor* out,
                                                   uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnLeakyReluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);
aclnnStatus aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                     aclTensor* out, uint64_t* workspaceSize,
                                                     aclOpExecutor** executor);
aclnnStatus aclnnHardsigmoidBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                     aclrtStream stream);
aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* result,
                                              aclTensor* gradInput, uint64_t* workspaceSize,
                                              aclOpExecutor** executor);
aclnnStatus aclnnSeluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);
}

// Heap allocations of the calling thread, counted by this program's operator new (which the
// simulator's libraries use too): how the tests show that a call's steady state allocates nothing.
thread_local long t_allocations = 0;

void* operator new(std::size_t size) {
  ++t_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

int g_failures = 0;
int g_checks = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    ++g_checks;                                                                                    \
    if (!(cond)) {                                                                                 \
      ++g_failures;                                                                                \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed; recent error: %s\n", __FILE__, __LINE__, #cond, \
                   aclGetRecentErrMsg());                                                          \
    }                                                                                              \
  } while (0)

#define CHECK_EQ(a, b) CHECK((a) == (b))

bool Contains(const char* text, const char* part) { return text && std::strstr(text, part) != nullptr; }

// One device buffer and the aclTensor that views it (RAII, so that every path releases both).
class DeviceTensor {
 public:
  DeviceTensor(const std::vector<float>& host, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
               int64_t offset = 0, aclDataType dtype = ACL_FLOAT) {
    bytes_ = host.size() * sizeof(float);
    CHECK_EQ(aclrtMalloc(&device_, bytes_ ? bytes_ : 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    if (bytes_) CHECK_EQ(aclrtMemcpy(device_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    if (strides.empty()) {
      strides.assign(shape.size(), 1);
      for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    }
    const int64_t storage = static_cast<int64_t>(host.size());
    tensor_ = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), offset, ACL_FORMAT_ND, &storage, 1,
                              device_);
    CHECK(tensor_ != nullptr);
  }
  ~DeviceTensor() {
    CHECK_EQ(aclDestroyTensor(tensor_), ACLNN_SUCCESS);
    CHECK_EQ(aclrtFree(device_), ACL_SUCCESS);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  std::vector<float> Read() const {
    std::vector<float> host(bytes_ / sizeof(float));
    if (bytes_) CHECK_EQ(aclrtMemcpy(host.data(), bytes_, device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return host;
  }

 private:
  void* device_ = nullptr;
  size_t bytes_ = 0;
  aclTensor* tensor_ = nullptr;
};

float LeakyGolden(float grad, float self, float slope) { return self > 0 ? grad : grad * slope; }

// Both phases of LeakyReluBackward; returns the phase-1 status, or the phase-2 status.
aclnnStatus LeakyRelu(const DeviceTensor& grad, const DeviceTensor& self, float slope, bool selfIsResult,
                      const DeviceTensor& out, aclrtStream stream) {
  aclScalar* negativeSlope = aclCreateScalar(&slope, ACL_FLOAT);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnLeakyReluBackwardGetWorkspaceSize(grad.get(), self.get(), negativeSlope, selfIsResult,
                                                              out.get(), &workspaceSize, &executor);
  aclDestroyScalar(negativeSlope);
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (workspaceSize) CHECK_EQ(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  status = aclnnLeakyReluBackward(workspace, workspaceSize, executor, stream);
  // The kernel is queued: the synchronisation reports its fault, if any (aclrtFree of the
  // workspace would wait for it too).
  if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(stream);
  if (workspace) CHECK_EQ(aclrtFree(workspace), ACL_SUCCESS);
  return status;
}

void TestRuntime() {
  CHECK_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK(Contains(aclGetRecentErrMsg(), "already initialized"));
  uint32_t count = 0;
  CHECK_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  CHECK(count >= 1);
  CHECK(aclrtSetDevice(static_cast<int32_t>(count)) != ACL_SUCCESS);
  CHECK(aclrtSetDevice(-1) != ACL_SUCCESS);
  int32_t device = -1;
  CHECK_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  CHECK_EQ(device, 0);
  CHECK(aclrtGetSocName() != nullptr);

  void* p = nullptr;
  CHECK_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(p) % 512 == 0);
  std::vector<char> host(200, 7);
  CHECK(aclrtMemcpy(p, 100, host.data(), 101, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS);  // count > destMax
  // CANN pads an allocation to a multiple of 32 bytes plus 32: 100 bytes are 160.
  CHECK_EQ(aclrtMemcpy(p, 200, host.data(), 160, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  CHECK(aclrtMemcpy(p, 200, host.data(), 161, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS);  // past the end
  CHECK(Contains(aclGetRecentErrMsg(), "runs past the end"));
  CHECK(aclrtMemcpy(static_cast<char*>(p) + 120, 60, host.data(), 60, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS);
  CHECK_EQ(aclrtMemcpy(static_cast<char*>(p) + 50, 50, host.data(), 50, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  CHECK(aclrtMemcpy(host.data(), 200, host.data() + 100, 50, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS);
  CHECK(aclrtMemset(p, 100, 0, 101) != ACL_SUCCESS);
  CHECK_EQ(aclrtMemset(p, 100, 3, 100), ACL_SUCCESS);
  CHECK(aclrtFree(static_cast<char*>(p) + 1) != ACL_SUCCESS);
  CHECK(Contains(aclGetRecentErrMsg(), "inside a device allocation"));
  CHECK_EQ(aclrtFree(p), ACL_SUCCESS);
  CHECK(aclrtFree(p) != ACL_SUCCESS);  // twice
  CHECK(Contains(aclGetRecentErrMsg(), "not a live device allocation"));
  CHECK(aclrtMemcpy(host.data(), 200, p, 10, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS);  // freed

  void* pinned = nullptr;
  CHECK_EQ(aclrtMallocHost(&pinned, 64), ACL_SUCCESS);
  CHECK(aclrtFree(pinned) != ACL_SUCCESS);
  CHECK(aclrtMemcpy(pinned, 64, host.data(), 65, ACL_MEMCPY_HOST_TO_HOST) != ACL_SUCCESS);
  CHECK_EQ(aclrtFreeHost(pinned), ACL_SUCCESS);
  CHECK(aclrtFreeHost(pinned) != ACL_SUCCESS);

  aclrtStream stream = nullptr;
  CHECK_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  CHECK_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  CHECK_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) != ACL_SUCCESS);  // an error, not a crash
  CHECK(aclrtSynchronizeStream(stream) != ACL_SUCCESS);

  aclrtContext context = nullptr;
  CHECK_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  CHECK_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
  CHECK_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  CHECK(aclrtDestroyContext(context) != ACL_SUCCESS);
  CHECK_EQ(aclrtResetDevice(0), ACL_SUCCESS);  // the context's reference on device 0

  // The recent error is per thread.
  CHECK(aclrtFree(nullptr) != ACL_SUCCESS);
  std::string other;
  std::thread([&] { other = aclGetRecentErrMsg(); }).join();
  CHECK(other.empty());
  CHECK(Contains(aclGetRecentErrMsg(), "aclrtFree"));

  CHECK_EQ(aclFloat16ToFloat(aclFloatToFloat16(1.5f)), 1.5f);
  CHECK_EQ(aclFloatToFloat16(65504.0f), 0x7bff);
  CHECK_EQ(aclFloatToFloat16(1e6f), 0x7c00);
  CHECK_EQ(aclDataTypeSize(ACL_BF16), 2u);
  CHECK_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
}

void TestObjects() {
  const int64_t dims[] = {2, 3};
  const int64_t strides[] = {3, 1};
  CHECK(aclCreateTensor(nullptr, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, nullptr) == nullptr);
  const int64_t negative[] = {2, -3};
  CHECK(aclCreateTensor(negative, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, nullptr) == nullptr);
  CHECK(Contains(aclGetRecentErrMsg(), "negative"));
  CHECK(aclCreateTensor(dims, 2, static_cast<aclDataType>(99), strides, 0, ACL_FORMAT_ND, dims, 2, nullptr) == nullptr);
  std::vector<int64_t> huge(40, 1);
  CHECK(aclCreateTensor(huge.data(), huge.size(), ACL_FLOAT, huge.data(), 0, ACL_FORMAT_ND, dims, 2, nullptr) == nullptr);

  aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT16, strides, 5, ACL_FORMAT_NCHW, dims, 2, nullptr);
  CHECK(t != nullptr);
  int64_t* view = nullptr;
  uint64_t rank = 0;
  CHECK_EQ(aclGetViewShape(t, &view, &rank), ACLNN_SUCCESS);
  CHECK(rank == 2 && view[0] == 2 && view[1] == 3);
  delete[] view;
  int64_t* got_strides = nullptr;
  CHECK_EQ(aclGetViewStrides(t, &got_strides, &rank), ACLNN_SUCCESS);
  CHECK(rank == 2 && got_strides[0] == 3 && got_strides[1] == 1);
  delete[] got_strides;
  int64_t* storage = nullptr;
  CHECK_EQ(aclGetStorageShape(t, &storage, &rank), ACLNN_SUCCESS);
  CHECK(rank == 2);
  delete[] storage;
  int64_t offset = 0;
  CHECK_EQ(aclGetViewOffset(t, &offset), ACLNN_SUCCESS);
  CHECK_EQ(offset, 5);
  aclFormat format;
  CHECK_EQ(aclGetFormat(t, &format), ACLNN_SUCCESS);
  CHECK_EQ(format, ACL_FORMAT_NCHW);
  const int64_t one[] = {4};
  CHECK_EQ(aclInitTensor(t, one, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, one, 1, nullptr), ACLNN_SUCCESS);
  aclDataType dtype;
  CHECK_EQ(aclGetDataType(t, &dtype), ACLNN_SUCCESS);
  CHECK_EQ(dtype, ACL_FLOAT);

  double value = -2.5;
  aclScalar* s = aclCreateScalar(&value, ACL_DOUBLE);
  CHECK(s != nullptr);
  CHECK(aclCreateScalar(nullptr, ACL_FLOAT) == nullptr);

  const int64_t ints[] = {1, 2, 3};
  aclIntArray* ia = aclCreateIntArray(ints, 3);
  uint64_t size = 0;
  CHECK_EQ(aclGetIntArraySize(ia, &size), ACLNN_SUCCESS);
  CHECK_EQ(size, 3u);
  CHECK(aclCreateIntArray(nullptr, 2) == nullptr);
  const bool bools[] = {true, false};
  aclBoolArray* ba = aclCreateBoolArray(bools, 2);
  const float floats[] = {0.5f};
  aclFloatArray* fa = aclCreateFloatArray(floats, 1);

  // Lists own their elements: destroying one alone is refused, the list destroys it.
  aclTensor* a = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, nullptr);
  aclTensor* b = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, nullptr);
  const aclTensor* items[] = {a, nullptr, b};
  aclTensorList* list = aclCreateTensorList(items, 3);
  CHECK(list != nullptr);
  CHECK(aclCreateTensorList(items, 3) == nullptr);  // a already belongs to a list
  CHECK(aclDestroyTensor(a) != ACLNN_SUCCESS);
  CHECK_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
  CHECK_EQ(size, 3u);
  CHECK_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
  CHECK(aclDestroyTensor(b) != ACLNN_SUCCESS);  // destroyed with the list
  CHECK(aclDestroyTensorList(list) != ACLNN_SUCCESS);

  const aclScalar* scalars[] = {s};
  aclScalarList* slist = aclCreateScalarList(scalars, 1);
  CHECK(slist != nullptr);
  CHECK(aclDestroyScalar(s) != ACLNN_SUCCESS);

  CHECK_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  CHECK(aclDestroyTensor(t) != ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyScalarList(slist), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyIntArray(ia), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyBoolArray(ba), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyFloatArray(fa), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyScalar(nullptr), ACLNN_SUCCESS);
}

void TestSeedOps(aclrtStream stream) {
  // LeakyReluBackward: contiguous, then a strided, offset, broadcast view.
  {
    DeviceTensor grad({2, 3, 4, 5}, {4}), self({1, -2, 3, -4}, {4}), out({0, 0, 0, 0}, {4});
    CHECK_EQ(LeakyRelu(grad, self, 0.5f, false, out, stream), ACLNN_SUCCESS);
    const std::vector<float> r = out.Read();
    CHECK(r[0] == 2 && r[1] == 1.5f && r[2] == 4 && r[3] == 2.5f);
    CHECK_EQ(LeakyRelu(grad, self, -0.5f, true, out, stream), ACLNN_ERR_PARAM_INVALID);
    CHECK(Contains(aclGetRecentErrMsg(), "is outside [0, inf) (op_docs/leaky_relu_backward.md:180)"));
  }
  {
    std::vector<float> storage(40);
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(i) - 20.0f;
    // self: a [3, 4] view, column-major with offset 2 (storage[2 + i + 3 * j]); grad: a [4] row, broadcast.
    DeviceTensor self(storage, {3, 4}, {1, 3}, 2), grad({1, 2, 3, 4}, {4}), out(std::vector<float>(12), {3, 4});
    CHECK_EQ(LeakyRelu(grad, self, 0.25f, false, out, stream), ACLNN_SUCCESS);
    const std::vector<float> r = out.Read();
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        const float expected = LeakyGolden(static_cast<float>(j + 1), storage[2 + i + 3 * j], 0.25f);
        CHECK_EQ(r[i * 4 + j], expected);
      }
    }
  }
  {
    // A negative stride: self reversed.
    DeviceTensor self({-1, 2, -3, 4}, {4}, {-1}, 3), grad({1, 1, 1, 1}, {4}), out(std::vector<float>(4), {4});
    CHECK_EQ(LeakyRelu(grad, self, 0.5f, false, out, stream), ACLNN_SUCCESS);
    const std::vector<float> r = out.Read();
    CHECK(r[0] == 1 && r[1] == 0.5f && r[2] == 1 && r[3] == 0.5f);
  }
  {
    // A view reaching past its allocation faults in the kernel (not read), reported by the
    // stream's synchronisation with the API's name.
    // (16 bytes, padded to 64 as CANN pads them: stride 6 reaches bytes 72..76.)
    DeviceTensor self({1, 2, 3, 4}, {4}, {6}, 0), grad({1, 1, 1, 1}, {4}), out(std::vector<float>(4), {4});
    CHECK_EQ(LeakyRelu(grad, self, 0.5f, false, out, stream), ACL_ERROR_RT_AICORE_EXCEPTION);
    CHECK(Contains(aclGetRecentErrMsg(), "live device allocation"));
    CHECK(Contains(aclGetRecentErrMsg(), "aclnnLeakyReluBackward"));
  }
  {
    // Large enough for the thread pool, several threads calling at once.
    const size_t n = 300000;
    std::vector<float> g(n), x(n);
    for (size_t i = 0; i < n; ++i) {
      g[i] = static_cast<float>(i % 7);
      x[i] = static_cast<float>(static_cast<int>(i % 11) - 5);
    }
    DeviceTensor grad(g, {static_cast<int64_t>(n)}), self(x, {static_cast<int64_t>(n)});
    std::vector<std::thread> threads;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        DeviceTensor out(std::vector<float>(n), {static_cast<int64_t>(n)});
        if (LeakyRelu(grad, self, 0.125f, false, out, nullptr) != ACLNN_SUCCESS) ++bad;
        const std::vector<float> r = out.Read();
        for (size_t i = 0; i < n; ++i) {
          if (r[i] != LeakyGolden(g[i], x[i], 0.125f)) {
            ++bad;
            break;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CHECK_EQ(bad.load(), 0);
  }
  // HardsigmoidBackward and SeluBackward on their examples' data.
  {
    DeviceTensor grad({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}), self({-4, -2, 0, 2, 2.9f, 3, 6, 7}, {4, 2});
    DeviceTensor out(std::vector<float>(8), {4, 2});
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK_EQ(aclnnHardsigmoidBackwardGetWorkspaceSize(grad.get(), self.get(), out.get(), &workspaceSize, &executor),
             ACLNN_SUCCESS);
    CHECK_EQ(aclnnHardsigmoidBackward(nullptr, workspaceSize, executor, stream), ACLNN_SUCCESS);
    CHECK_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    const std::vector<float> r = out.Read();
    CHECK(r[0] == 0 && r[1] == 1.0f / 6 && r[3] == 0.5f && r[5] == 0);
  }
  {
    DeviceTensor grad({1, 1}, {2}), result({-1, 2}, {2}), out(std::vector<float>(2), {2});
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK_EQ(aclnnSeluBackwardGetWorkspaceSize(grad.get(), result.get(), out.get(), &workspaceSize, &executor),
             ACLNN_SUCCESS);
    CHECK_EQ(aclnnSeluBackward(nullptr, workspaceSize, executor, stream), ACLNN_SUCCESS);
    CHECK_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    const std::vector<float> r = out.Read();
    CHECK(std::fabs(r[0] - (-1 + 1.7580993408473766f)) < 1e-6f && std::fabs(r[1] - 1.0507009873554805f) < 1e-6f);
    DeviceTensor empty(std::vector<float>(), {0});
    CHECK_EQ(aclnnSeluBackwardGetWorkspaceSize(empty.get(), empty.get(), empty.get(), &workspaceSize, &executor),
             ACLNN_ERR_PARAM_INVALID);
    CHECK(Contains(aclGetRecentErrMsg(), "empty tensors are not supported"));
  }
}

void TestExecutors(aclrtStream stream) {
  DeviceTensor grad({1, 2}, {2}), self({1, -1}, {2}), out(std::vector<float>(2), {2});
  float slope = 0.5f;
  aclScalar* negativeSlope = aclCreateScalar(&slope, ACL_FLOAT);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, nullptr, stream), ACLNN_ERR_PARAM_NULLPTR);
  CHECK_EQ(aclnnLeakyReluBackwardGetWorkspaceSize(grad.get(), self.get(), negativeSlope, false, out.get(),
                                                  &workspaceSize, &executor),
           ACLNN_SUCCESS);
  CHECK_EQ(aclnnHardsigmoidBackward(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_INVALID);  // another API's
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS);
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, stream), ACLNN_ERR_PARAM_INVALID);  // single use
  CHECK(Contains(aclGetRecentErrMsg(), "not a live executor"));

  // Repeatable executors run until destroyed.
  CHECK_EQ(aclnnLeakyReluBackwardGetWorkspaceSize(grad.get(), self.get(), negativeSlope, false, out.get(),
                                                  &workspaceSize, &executor),
           ACLNN_SUCCESS);
  CHECK_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS);
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS);
  CHECK_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  CHECK(aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS);

  // A stale stream is refused.
  aclrtStream gone = nullptr;
  CHECK_EQ(aclrtCreateStream(&gone), ACL_SUCCESS);
  CHECK_EQ(aclrtDestroyStream(gone), ACL_SUCCESS);
  CHECK_EQ(aclnnLeakyReluBackwardGetWorkspaceSize(grad.get(), self.get(), negativeSlope, false, out.get(),
                                                  &workspaceSize, &executor),
           ACLNN_SUCCESS);
  CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, gone), ACLNN_ERR_PARAM_INVALID);
  aclDestroyScalar(negativeSlope);
}

// Phase 1 allocates nothing once a call of the same shape has been made on the thread (issue 11:
// dimensions of fixed capacity, reused parameters, pooled executors), and neither does the rest
// of the launching thread's side of a call: the objects, the launch, their destruction.
void TestSteadyStateAllocatesNothing(aclrtStream stream) {
  DeviceTensor grad(std::vector<float>(1024, 1.0f), {1024}), self(std::vector<float>(1024, -1.0f), {1024});
  DeviceTensor out(std::vector<float>(1024), {1024});
  float slope = 0.5f;
  aclScalar* negativeSlope = aclCreateScalar(&slope, ACL_FLOAT);
  auto phase1 = [&] {
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK_EQ(aclnnLeakyReluBackwardGetWorkspaceSize(grad.get(), self.get(), negativeSlope, false, out.get(),
                                                    &workspaceSize, &executor),
             ACLNN_SUCCESS);
    return executor;
  };
  for (int i = 0; i < 100; ++i) CHECK_EQ(aclDestroyAclOpExecutor(phase1()), ACLNN_SUCCESS);
  long before = t_allocations;
  for (int i = 0; i < 1000; ++i) aclDestroyAclOpExecutor(phase1());
  CHECK_EQ(t_allocations - before, 0);

  // A whole call as the bindings make it: objects, phase 1, phase 2 queued, objects destroyed.
  const int64_t shape[1] = {1024}, strides[1] = {1};
  void* data[3] = {nullptr, nullptr, nullptr};
  for (void*& d : data) CHECK_EQ(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto call = [&] {
    aclTensor* t[3];
    for (int k = 0; k < 3; ++k) t[k] = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data[k]);
    aclScalar* scalar = aclCreateScalar(&slope, ACL_FLOAT);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK_EQ(aclnnLeakyReluBackwardGetWorkspaceSize(t[0], t[1], scalar, false, t[2], &workspaceSize, &executor),
             ACLNN_SUCCESS);
    CHECK_EQ(aclnnLeakyReluBackward(nullptr, 0, executor, stream), ACLNN_SUCCESS);
    for (aclTensor* tensor : t) aclDestroyTensor(tensor);
    aclDestroyScalar(scalar);
  };
  // Warm-up to the deepest queue a stream can have: its worker held while kQueueDepth (1024)
  // launches queue up, so that the ring and the executors' pool hold as many as the measured
  // loop can ever have in flight, however far a loaded machine lets the worker fall behind.
  const bool held = aclsimHoldStream(stream, 1) == 0;  // not under ACLNN_SIM_SYNC=1
  for (int i = 0; i < 1024; ++i) call();
  if (held) CHECK_EQ(aclsimHoldStream(stream, 0), 0);
  for (int i = 0; i < 2000; ++i) call();
  CHECK_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  before = t_allocations;
  for (int i = 0; i < 2000; ++i) call();
  CHECK_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  CHECK_EQ(t_allocations - before, 0);
  for (void* d : data) CHECK_EQ(aclrtFree(d), ACL_SUCCESS);
  CHECK_EQ(aclDestroyScalar(negativeSlope), ACLNN_SUCCESS);
}


// aclsim::Erf, the float erf the gelu kernels inline (aclnn_sim/math.h), against erf in double on
// every 607th float32 from 0 to 4.5 (1.8M of them; erf leaves x at 0 and reaches 1 at 3.83), within
// the error its comment documents: evaluated without FMA (the baseline path) and with (the AVX2 and
// AVX-512 paths, where GCC contracts its Horner steps); odd, NaN, infinities and signed zeros kept.
float ErfPlain(float x) { return aclsim::Erf(x); }
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float ErfFma(float x) { return aclsim::Erf(x); }
#endif

template <typename Eval>
double ErfWorstUlps(Eval eval) {
  double worst = 0;
  bool odd = true;
  for (uint32_t bits = 0;; bits += 607) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    if (x > 4.5f) break;
    const double want = std::erf(static_cast<double>(x));
    int exponent = 0;
    std::frexp(want, &exponent);
    const double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
    worst = std::max(worst, std::fabs(static_cast<double>(eval(x)) - want) / ulp);
    odd = odd && eval(-x) == -eval(x);
  }
  CHECK(odd);
  CHECK(std::isnan(eval(NAN)));
  CHECK_EQ(eval(INFINITY), 1.0f);
  CHECK_EQ(eval(-INFINITY), -1.0f);
  CHECK(std::signbit(eval(-0.0f)) && eval(-0.0f) == 0.0f);
  CHECK_EQ(aclsim::Erf(0.5), std::erf(0.5));  // double: the library's
  return worst;
}

void TestErf() {
  const double plain = ErfWorstUlps(ErfPlain);
  CHECK(plain <= 6.4);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const double fused = ErfWorstUlps(ErfFma);
    CHECK(fused <= 6.0);
  }
#endif
}
}  // namespace

int main() {
  CHECK_EQ(aclInit(nullptr), ACL_SUCCESS);
  CHECK_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  CHECK_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);

  TestErf();
  TestRuntime();
  TestObjects();
  TestSeedOps(stream);
  TestExecutors(stream);
  TestSteadyStateAllocatesNothing(stream);

  aclsimStats stats;
  CHECK_EQ(aclsimGetStats(&stats), 0);
  CHECK_EQ(aclsimLiveObjects(), 0u);
  CHECK_EQ(stats.device_allocations, 0u);
  CHECK_EQ(stats.host_allocations, 0u);
  CHECK_EQ(stats.streams, 1u);

  CHECK_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  CHECK_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  CHECK_EQ(aclFinalize(), ACL_SUCCESS);
  CHECK(aclFinalize() != ACL_SUCCESS);
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
