// aclnn-bindgen: lazy initialisation of the runtime, devices, the current stream of each thread,
// device memory and the device-wide synchronisation.
#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <new>
#include <cstring>
#include <iterator>

#include "binding.h"

namespace aclnn_binding {
namespace {

std::mutex g_init_mutex;
// Guards the owners of foreign buffers released on a thread without the GIL (release_owner).
std::mutex g_deferred_mutex;

std::atomic<uint64_t> g_epoch{1};  // bumped by set_device and shutdown: threads bind again

// What a thread knows about itself: the device its CANN context is bound to, and the stream
// `with aclnn.stream(...)` made current.
struct ThreadState {
  int32_t bound_device = -1;
  uint64_t epoch = 0;
  std::shared_ptr<Stream> stream;

  // Whether aclrtSetDevice(device) has been called by this thread since the last set_device or shutdown.
  bool bound_to(int32_t device) const {
    return bound_device == device && epoch == g_epoch.load(std::memory_order_acquire);
  }
};
thread_local ThreadState t_thread;

// ACLNN_LAUNCH_BLOCKING: "1" synchronises after every call; unset, "" or "0" does not.
bool launch_blocking_from_environment() {
  const char* value = std::getenv("ACLNN_LAUNCH_BLOCKING");
  if (value == nullptr || *value == '\0' || std::string(value) == "0") return false;
  if (std::string(value) == "1") return true;
  throw py::value_error(std::string("ACLNN_LAUNCH_BLOCKING=") + value + " is not 0 or 1");
}

}  // namespace

Counters* const g_counters = new Counters();

Runtime* Runtime::instance_ = nullptr;
std::atomic<bool> Runtime::alive_{false};

namespace {

// Set in a child forked after the runtime started (as PyTorch's _in_bad_fork for CUDA).
bool g_forked_child = false;

// A forked child has the parent's memory but one thread: the stream workers, the device contexts
// and whatever other threads held the runtime's locks are the parent's. The runtime it inherited
// is unusable (CANN's contexts, like CUDA's, do not survive a fork; the simulator's streams have
// no workers in the child): every use raises, as PyTorch's "Cannot re-initialize CUDA in forked
// subprocess". alive() is false from here on, so that the child's objects are released without a
// library call (their destructors skip it, as after shutdown), and a child's exit reports nothing.
// A child forked before the runtime started starts its own on first use.
void mark_forked_child() {
  if (!Runtime::alive()) return;
  g_forked_child = true;
  // Locks a parent's thread may have held at the fork, which the child's releases still take.
  new (&g_init_mutex) std::mutex;
  new (&g_deferred_mutex) std::mutex;
  reset_stream_locks_in_child();
  Runtime::forget_in_child();
}

}  // namespace

void Runtime::forget_in_child() { alive_.store(false); }

Runtime& Runtime::start() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_forked_child) {
    throw AclnnFailure{ACLNN_ERR_RUNTIME_ERROR, "", "fork",
                       "aclnn cannot be used in a forked child process whose parent had started the aclnn runtime "
                       "(its device contexts, streams and memory are the parent's; its stream threads do not "
                       "exist in the child). Use multiprocessing's 'spawn' or 'forkserver' start method, or "
                       "start aclnn in the child only"};
  }
  if (instance_ == nullptr) {
    auto* fresh = new Runtime();  // never deleted: see shutdown()
    try {
      fresh->init();
    } catch (...) {
      delete fresh;  // a later call retries
      throw;
    }
    instance_ = fresh;
    alive_.store(true, std::memory_order_release);
  } else if (!alive_.load()) {
    throw AclnnFailure{ACL_ERROR_UNINITIALIZE, "", "call",
                       "the aclnn runtime was finalised at interpreter exit (aclFinalize): nothing can run after it"};
  }
  return *instance_;
}

// The one aclnn API a runtime message names ("" for none, or for several).
static std::string sole_api_named(const std::string& message) {
  std::string found;
  for (size_t at = message.find("aclnn"); at != std::string::npos; at = message.find("aclnn", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(message[at - 1])) || message[at - 1] == '_')) continue;
    size_t end = at + 5;
    while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '_')) ++end;
    if (end == at + 5 || !std::isupper(static_cast<unsigned char>(message[at + 5]))) continue;
    const std::string api = message.substr(at, end - at);
    if (!found.empty() && found != api) return "";
    found = api;
  }
  return found;
}

void Runtime::init() {
  launch_blocking_ = launch_blocking_from_environment();
  backend_ = &aclnn_loader::Backend::get();
  abi_ = &backend_->abi();
  aclError code = abi_->aclInit(nullptr);
  // Someone else (another framework in the process) may have initialised ACL already.
  if (code != ACL_SUCCESS && code != ACL_ERROR_REPEAT_INITIALIZE) check(code, "", "aclInit");
  initialized_acl_ = code == ACL_SUCCESS;
  check(abi_->aclrtSetDevice(0), "", "aclrtSetDevice");
  devices_used_.push_back(0);
  static const bool fork_handler = pthread_atfork(nullptr, nullptr, mark_forked_child) == 0;
  (void)fork_handler;
}

std::string Runtime::recent_error() const {
  const char* text = abi_ ? abi_->aclGetRecentErrMsg() : nullptr;
  return text ? std::string(text) : std::string();
}

void Runtime::check(aclError code, const std::string& api, const char* phase) const {
  if (code != ACL_SUCCESS) throw AclnnFailure{code, api, phase, recent_error()};
}

void Runtime::bind_thread(int32_t device) {
  if (t_thread.bound_to(device)) return;
  const uint64_t epoch = g_epoch.load(std::memory_order_acquire);
  check(abi_->aclrtSetDevice(device), "", "aclrtSetDevice");
  t_thread.bound_device = device;
  t_thread.epoch = epoch;
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(devices_used_.begin(), devices_used_.end(), device) == devices_used_.end()) devices_used_.push_back(device);
}

void Runtime::require_device(int32_t device) {
  if (device < 0 || device >= kMaxDevices) {
    throw AclnnFailure{ACL_ERROR_RT_INVALID_DEVICEID, "", "aclrtSetDevice", "device " + std::to_string(device) + " is out of range"};
  }
  bind_thread(device);  // the backend says whether it has the device
}

std::shared_ptr<Stream> Runtime::default_stream(int32_t device) {
  if (device < 0 || device >= kMaxDevices) {
    throw AclnnFailure{ACL_ERROR_RT_INVALID_DEVICEID, "", "aclrtSetDevice", "device " + std::to_string(device) + " is out of range"};
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (default_streams_[device]) return default_streams_[device];
  }
  auto stream = Stream::create(device);  // outside the lock: create() binds and tracks
  std::lock_guard<std::mutex> lock(mutex_);
  if (!default_streams_[device]) default_streams_[device] = std::move(stream);
  return default_streams_[device];
}

Stream& Runtime::stream() {
  ThreadState& thread = t_thread;  // one thread-local lookup (a call into the loader from a shared library)
  const int32_t device = thread.stream ? thread.stream->device() : device_.load();
  if (!thread.bound_to(device)) bind_thread(device);
  if (thread.stream) return *thread.stream;
  Stream* cached = default_cache_[device].load(std::memory_order_acquire);
  if (cached) return *cached;
  Stream* made = default_stream(device).get();
  default_cache_[device].store(made, std::memory_order_release);
  return *made;
}

std::shared_ptr<Stream> Runtime::current_stream() {
  if (t_thread.stream) return t_thread.stream;
  return default_stream(device_.load());
}

std::shared_ptr<Stream> Runtime::exchange_thread_stream(std::shared_ptr<Stream> stream) {
  std::swap(t_thread.stream, stream);
  return stream;
}

void Runtime::set_device(int32_t device) {
  // Validate on the calling thread first, so that a bad id raises here and changes nothing.
  check(abi_->aclrtSetDevice(device), "", "aclrtSetDevice");
  if (device < 0 || device >= kMaxDevices) {
    throw AclnnFailure{ACL_ERROR_RT_INVALID_DEVICEID, "", "aclrtSetDevice", "device " + std::to_string(device) + " is out of range"};
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(devices_used_.begin(), devices_used_.end(), device) == devices_used_.end()) devices_used_.push_back(device);
  }
  device_.store(device);
  g_epoch.fetch_add(1);
}

CachingAllocator& Runtime::allocator(int32_t device) {
  CachingAllocator* allocator = allocators_[device].load(std::memory_order_acquire);
  if (allocator) return *allocator;
  std::lock_guard<std::mutex> lock(mutex_);
  allocator = allocators_[device].load();
  if (!allocator) {
    allocator = new CachingAllocator(device);  // never deleted: blocks may be released at exit
    allocators_[device].store(allocator, std::memory_order_release);
  }
  return *allocator;
}

void Runtime::track(const std::shared_ptr<Stream>& stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  known_.erase(std::remove_if(known_.begin(), known_.end(), [](const std::weak_ptr<Stream>& s) { return s.expired(); }),
               known_.end());
  known_.push_back(stream);
}

std::vector<std::shared_ptr<Stream>> Runtime::known_streams() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<Stream>> out;
  for (const auto& weak : known_) {
    if (auto s = weak.lock()) out.push_back(std::move(s));
  }
  return out;
}

void Runtime::synchronize_device(const char* where) {
  bind_thread(device_.load());
  const auto streams = known_streams();
  // Interruptible while the streams this package knows run; the device's own wait then returns
  // at once (or waits for streams of other libraries, which only it knows).
  const auto finish = [&] { return abi_->aclrtSynchronizeDevice(); };
  const aclError code = abi_->aclrtStreamQuery == nullptr ? without_gil(finish) : wait_interruptibly(
      [&](bool* complete) {
        *complete = true;
        for (const auto& s : streams) {
          aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
          if (aclError asked = abi_->aclrtStreamQuery(s->handle(), &status)) return asked;
          *complete = *complete && status == ACL_STREAM_STATUS_COMPLETE;
        }
        return ACL_SUCCESS;
      }, finish);
  const std::string message = code == ACL_SUCCESS ? std::string() : recent_error();
  if (code == ACL_SUCCESS) {
    for (const auto& s : streams) s->forget_launches();
    collect_released();
    return;
  }
  // The stream whose log holds the failing launch says which call it was.
  AclnnFailure failure{code, "", "device", message + " [reported by " + where + "]", -1};
  // A stream that names the call wins; else one that names at least the API.
  for (const auto& s : streams) {
    AclnnFailure attributed = s->attribute(code, message, where);
    const bool better = attributed.call >= 0 ? failure.call < 0 : failure.call < 0 && failure.api.empty();
    if (better && !attributed.api.empty()) failure = std::move(attributed);
  }
  // No stream we still know launched it (work queued on a framework's stream through a Stream
  // wrapper since dropped): the API the message names, when it names exactly one.
  if (failure.api.empty()) failure.api = sole_api_named(message);
  throw raising(failure);
}

const AclnnFailure& Runtime::raising(const AclnnFailure& failure) {
  if (failure.call >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(raised_calls_.begin(), raised_calls_.end(), failure.call) == raised_calls_.end())
      raised_calls_.push_back(failure.call);
  }
  return failure;
}

void Runtime::remember_faulted_launch(const void* executor, int64_t call, const char* api) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const FaultedLaunch& known : faulted_launches_) {
    if (known.executor == executor) return;
  }
  if (faulted_launches_.size() == kRememberedFaults) faulted_launches_.erase(faulted_launches_.begin());
  faulted_launches_.push_back(FaultedLaunch{executor, call, api});
}

bool Runtime::faulted_launch(const void* executor, int64_t* call, const char** api) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const FaultedLaunch& known : faulted_launches_) {
    if (known.executor != executor) continue;
    *call = known.call;
    *api = known.api;
    return true;
  }
  return false;
}

void Runtime::keep_unreported(AclnnFailure failure) {
  std::lock_guard<std::mutex> lock(mutex_);
  unreported_.push_back(std::move(failure));
}

std::vector<AclnnFailure> Runtime::shutdown() {
  std::lock_guard<std::mutex> init_lock(g_init_mutex);
  std::vector<AclnnFailure> faults;
  if (!alive_.load()) return faults;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    faults.swap(unreported_);
  }
  // Queued work finishes and cached memory goes back before the streams and devices do. Blocks
  // and objects still referenced (aclnn.Tensor objects alive at exit) are left to the process's
  // end: freeing them after aclFinalize would be the crash. A fault the synchronisation returns
  // was never reported (a synchronisation clears what it reports): it is the caller's to report.
  for (const auto& s : known_streams()) {
    const aclError code = abi_->aclrtSynchronizeStream(s->handle());
    if (code != ACL_SUCCESS) faults.push_back(s->attribute(code, recent_error(), "interpreter exit"));
  }
  {
    // A fault raised once (through another stream that waited for the faulted work) is known.
    std::lock_guard<std::mutex> lock(mutex_);
    faults.erase(std::remove_if(faults.begin(), faults.end(), [&](const AclnnFailure& f) {
                   return f.call >= 0 &&
                          std::find(raised_calls_.begin(), raised_calls_.end(), f.call) != raised_calls_.end();
                 }), faults.end());
  }
  // Foreign memory's owners go back to their framework while it still runs: every event they wait
  // for has been reached by now, unless it was recorded on a stream nobody here knows any more.
  collect_released();
  for (auto& slot : allocators_) {
    if (CachingAllocator* allocator = slot.load()) allocator->empty_cache();
  }
  scalars_.clear();
  alive_.store(false);
  g_epoch.fetch_add(1);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& stream : default_streams_) {
    if (stream) abi_->aclrtDestroyStream(stream->handle());
  }
  // aclrtSetDevice counts per process: our resets leave a device another client set to it.
  for (int32_t d : devices_used_) abi_->aclrtResetDevice(d);
  if (initialized_acl_) abi_->aclFinalize();
  return faults;
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::allocate(size_t nbytes, Stream& stream, const char* api) {
  CachingAllocator& allocator = Runtime::get().allocator(stream.device());
  Block* block = allocator.allocate(std::max<size_t>(nbytes, 1), stream.handle(), api);
  counters().live_buffers.fetch_add(1);
  return std::make_shared<DeviceBuffer>(Key{}, allocator.data(block), nbytes, stream.device(), &allocator, block, nullptr);
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::foreign(void* data, size_t nbytes, int32_t device, py::object owner) {
  counters().live_buffers.fetch_add(1);
  return std::make_shared<DeviceBuffer>(Key{}, data, nbytes, device, nullptr, nullptr, owner.release().ptr());
}

namespace {

// Owners of foreign buffers whose last tensor went on a thread without the GIL, released by the
// interpreter's main thread (Py_AddPendingCall runs `release_deferred` there, the GIL held).
std::vector<PyObject*>& deferred_owners() {
  static auto* owners = new std::vector<PyObject*>();  // read by late destructors
  return *owners;
}
bool g_release_scheduled = false;

int release_deferred(void*) {
  std::vector<PyObject*> owners;
  {
    std::lock_guard<std::mutex> lock(g_deferred_mutex);
    owners.swap(deferred_owners());
    g_release_scheduled = false;
  }
  for (PyObject* owner : owners) Py_DECREF(owner);
  return 0;
}

// Drops the buffer's reference to its owner from any thread. Never by taking the GIL here: a
// daemon thread asking for it while the interpreter finalises is ended by pthread_exit, whose
// unwinding through this noexcept destructor would abort the process. Without the GIL the owner
// waits for the main thread; at exit it is left to the process's end.
void release_owner(PyObject* owner) {
  if (!Py_IsInitialized()) return;
  if (PyGILState_Check()) {
    Py_DECREF(owner);
    return;
  }
  std::lock_guard<std::mutex> lock(g_deferred_mutex);
  deferred_owners().push_back(owner);
  // Py_AddPendingCall takes no GIL; its queue may be full (then the next owner schedules again).
  if (!g_release_scheduled) g_release_scheduled = Py_AddPendingCall(&release_deferred, nullptr) == 0;
}

}  // namespace

DeviceBuffer::~DeviceBuffer() {
  counters().live_buffers.fetch_sub(1);
  if (block_ != nullptr && Runtime::alive()) allocator_->release(block_);
  if (owner_ != nullptr && !streams_.empty() && Runtime::alive()) {
    Runtime::get().release_after(owner_, streams_.data(), streams_.size());
    return;
  }
  // The last tensor may go on a thread without the GIL (a stream's thread-local reference).
  if (owner_ != nullptr) release_owner(owner_);
}

ScalarCache::Entry* ScalarCache::acquire(aclDataType dtype, const unsigned char* value, const char* api) {
  uint64_t hash = 1469598103934665603ull ^ static_cast<uint64_t>(dtype);  // FNV-1a
  for (size_t i = 0; i < sizeof Entry::value; ++i) hash = (hash ^ value[i]) * 1099511628211ull;
  Entry& entry = entries_[hash % kEntries];
  if (entry.scalar != nullptr && entry.dtype == dtype && std::memcmp(entry.value, value, sizeof entry.value) == 0) {
    ++entry.uses;
    return &entry;
  }
  if (entry.uses > 0) return nullptr;
  const aclnn_loader::Abi& abi = Runtime::get().abi();
  aclScalar* made = abi.aclCreateScalar(const_cast<unsigned char*>(value), dtype);
  if (made == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, api, "aclCreateScalar", Runtime::get().recent_error()};
  counters().scalars_made.fetch_add(1, std::memory_order_relaxed);
  if (entry.scalar != nullptr) abi.aclDestroyScalar(entry.scalar);
  entry.scalar = made;
  entry.dtype = dtype;
  std::memcpy(entry.value, value, sizeof entry.value);
  entry.uses = 1;
  return &entry;
}

size_t ScalarCache::size() const {
  return static_cast<size_t>(std::count_if(std::begin(entries_), std::end(entries_), [](const Entry& e) { return e.scalar != nullptr; }));
}

void ScalarCache::clear() {
  for (Entry& entry : entries_) {
    if (entry.scalar != nullptr && entry.uses == 0) Runtime::get().abi().aclDestroyScalar(std::exchange(entry.scalar, nullptr));
  }
}

aclTensor* DeviceBuffer::describe_fresh(const DeviceTensor& tensor, const char* api) {
  if (block_ == nullptr) return nullptr;
  return allocator_->describe(block_, tensor, api);
}

void DeviceBuffer::used_on(aclrtStream stream) {
  if (block_ != nullptr) {
    if (Runtime::alive()) allocator_->used_on(block_, stream);
    return;
  }
  if (owner_ == nullptr) return;  // foreign memory without an owner: its lifetime is the caller's business
  std::lock_guard<aclnn_bindgen::SpinLock> lock(streams_lock_);
  if (std::find(streams_.begin(), streams_.end(), stream) == streams_.end()) streams_.push_back(stream);
}

void DeviceBuffer::written_on(Stream& stream) {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(streams_lock_);
  if (writer_raw_ == &stream && !writer_.expired()) return;
  writer_raw_ = &stream;
  writer_ = stream.weak_from_this();
}

std::shared_ptr<Stream> DeviceBuffer::last_writer() const {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(streams_lock_);
  return writer_.lock();
}

aclrtEvent Runtime::spare_event() {
  if (!spare_events_.empty()) {
    aclrtEvent event = spare_events_.back();
    spare_events_.pop_back();
    return event;
  }
  aclrtEvent event = nullptr;
  return abi_->aclrtCreateEvent(&event) == ACL_SUCCESS ? event : nullptr;
}

void Runtime::release_after(PyObject* owner, const aclrtStream* streams, size_t count) {
  bind_thread(device_.load());
  PendingOwner pending{owner, {}};
  {
    std::lock_guard<std::mutex> lock(released_mutex_);
    for (size_t i = 0; i < count; ++i) {
      aclrtEvent event = spare_event();
      if (event == nullptr) continue;
      // A stream destroyed since has run its work (destruction synchronises it): nothing to wait for.
      if (abi_->aclrtRecordEvent(event, streams[i]) == ACL_SUCCESS) pending.events.push_back(event);
      else spare_events_.push_back(event);
    }
    pending_.push_back(std::move(pending));
    pending_owners_.fetch_add(1, std::memory_order_release);
  }
}

void Runtime::collect_released_slow() {
  std::vector<PyObject*> released;
  {
    std::lock_guard<std::mutex> lock(released_mutex_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      const bool reached = std::all_of(it->events.begin(), it->events.end(), [&](aclrtEvent event) {
        aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        return !alive_.load() || (abi_->aclrtQueryEventStatus(event, &status) == ACL_SUCCESS &&
                                  status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
      });
      if (!reached) {
        ++it;
        continue;
      }
      spare_events_.insert(spare_events_.end(), it->events.begin(), it->events.end());
      released.push_back(it->owner);
      it = pending_.erase(it);
      pending_owners_.fetch_sub(1, std::memory_order_release);
    }
  }
  // Outside the lock: an owner's destructor is Python code, which may call back into aclnn.
  for (PyObject* owner : released) release_owner(owner);
}

void copy_async(void* dst, const void* src, size_t nbytes, aclrtMemcpyKind kind, Stream& stream, const std::string& api) {
  if (nbytes == 0) return;
  Runtime& rt = Runtime::get();
  rt.check(rt.abi().aclrtMemcpyAsync(dst, nbytes, src, nbytes, kind, stream.handle()), api, "aclrtMemcpyAsync");
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
