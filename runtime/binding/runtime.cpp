// aclnn-bindgen: lazy initialisation of the runtime, per-thread streams, device memory.
#include <algorithm>

#include "binding.h"

namespace aclnn_binding {
namespace {

std::mutex g_init_mutex;
Runtime* g_runtime = nullptr;          // set once init() succeeded
std::atomic<bool> g_alive{false};      // init() succeeded and shutdown() has not run

}  // namespace

Counters& counters() {
  static Counters* instance = new Counters();  // never destroyed: read by late destructors
  return *instance;
}

// The stream of one thread. Destroyed with the thread, unless the runtime was shut down first.
struct ThreadStream {
  uint64_t epoch = 0;
  aclrtStream stream = nullptr;
  ~ThreadStream() {
    if (stream != nullptr && Runtime::alive()) Runtime::get().forget_stream(stream);
  }
};

bool Runtime::alive() { return g_alive.load(); }

Runtime& Runtime::get() {
  if (g_alive.load(std::memory_order_acquire)) return *g_runtime;
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_runtime == nullptr) {
    auto* fresh = new Runtime();  // never deleted: see shutdown()
    fresh->init();                // throws; a later call retries
    g_runtime = fresh;
    g_alive.store(true, std::memory_order_release);
  } else if (!g_alive.load()) {
    throw AclnnFailure{ACL_ERROR_UNINITIALIZE, "", "aclFinalize", "the aclnn runtime was finalised at exit"};
  }
  return *g_runtime;
}

void Runtime::init() {
  backend_ = &aclnn_loader::Backend::get();
  abi_ = &backend_->abi();
  aclError code = abi_->aclInit(nullptr);
  // Someone else (another framework in the process) may have initialised ACL already.
  if (code != ACL_SUCCESS && code != ACL_ERROR_REPEAT_INITIALIZE) check(code, "", "aclInit");
  check(abi_->aclrtSetDevice(0), "", "aclrtSetDevice");
  devices_used_.push_back(0);
}

std::string Runtime::recent_error() const {
  const char* text = abi_ ? abi_->aclGetRecentErrMsg() : nullptr;
  return text ? std::string(text) : std::string();
}

void Runtime::check(aclError code, const std::string& api, const char* phase) const {
  if (code != ACL_SUCCESS) throw AclnnFailure{code, api, phase, recent_error()};
}

aclrtStream Runtime::stream() {
  thread_local ThreadStream mine;
  const uint64_t epoch = epoch_.load();
  if (mine.epoch == epoch) return mine.stream;
  // First call on this thread, or the device changed: bind the device (CANN contexts are per
  // thread) and create this thread's stream on it.
  check(abi_->aclrtSetDevice(device_.load()), "", "aclrtSetDevice");
  aclrtStream fresh = nullptr;
  check(abi_->aclrtCreateStream(&fresh), "", "aclrtCreateStream");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.push_back(fresh);
  }
  if (mine.stream != nullptr) forget_stream(mine.stream);
  mine.stream = fresh;
  mine.epoch = epoch;
  return fresh;
}

void Runtime::forget_stream(aclrtStream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(streams_.begin(), streams_.end(), stream);
  if (it == streams_.end()) return;  // already destroyed by shutdown()
  streams_.erase(it);
  abi_->aclrtSynchronizeStream(stream);
  abi_->aclrtDestroyStream(stream);
}

void Runtime::set_device(int32_t device) {
  // Validate on the calling thread first, so that a bad id raises here and changes nothing.
  check(abi_->aclrtSetDevice(device), "", "aclrtSetDevice");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(devices_used_.begin(), devices_used_.end(), device) == devices_used_.end())
      devices_used_.push_back(device);
  }
  device_.store(device);
  epoch_.fetch_add(1);
}

void Runtime::shutdown() {
  std::lock_guard<std::mutex> init_lock(g_init_mutex);
  if (!g_alive.exchange(false)) return;
  // Buffers and objects still referenced (aclnn.Tensor objects alive at exit) are left to the
  // process's end: freeing them after aclFinalize would be the crash.
  std::lock_guard<std::mutex> lock(mutex_);
  for (aclrtStream s : streams_) {
    abi_->aclrtSynchronizeStream(s);
    abi_->aclrtDestroyStream(s);
  }
  streams_.clear();
  for (int32_t d : devices_used_) abi_->aclrtResetDevice(d);
  abi_->aclFinalize();
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::allocate(size_t nbytes, const std::string& api) {
  Runtime& rt = Runtime::get();
  void* data = nullptr;
  const size_t size = std::max<size_t>(nbytes, 1);
  rt.check(rt.abi().aclrtMalloc(&data, size, ACL_MEM_MALLOC_HUGE_FIRST), api, "aclrtMalloc");
  if (data == nullptr) throw AclnnFailure{ACL_ERROR_BAD_ALLOC, api, "aclrtMalloc", "aclrtMalloc returned no memory"};
  counters().live_buffers.fetch_add(1);
  return std::shared_ptr<DeviceBuffer>(new DeviceBuffer(data, nbytes));
}

DeviceBuffer::~DeviceBuffer() {
  counters().live_buffers.fetch_sub(1);
  if (Runtime::alive()) Runtime::get().abi().aclrtFree(data_);
}

void copy_memory(void* dst, const void* src, size_t nbytes, aclrtMemcpyKind kind, const std::string& api) {
  if (nbytes == 0) return;
  Runtime& rt = Runtime::get();
  rt.check(rt.abi().aclrtMemcpy(dst, nbytes, src, nbytes, kind), api, "aclrtMemcpy");
  Counters& c = counters();
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_DEVICE:
      c.host_to_device.fetch_add(1);
      c.bytes_to_device.fetch_add(static_cast<int64_t>(nbytes));
      break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      c.device_to_host.fetch_add(1);
      c.bytes_to_host.fetch_add(static_cast<int64_t>(nbytes));
      break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      c.device_to_device.fetch_add(1);
      break;
    default:
      break;
  }
}

}  // namespace aclnn_binding
