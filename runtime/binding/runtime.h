// aclnn-bindgen bindings: the runtime: scalars shared by calls, lazy initialisation, devices, current streams (runtime.cpp).
#ifndef ACLNN_BINDING_RUNTIME_H_
#define ACLNN_BINDING_RUNTIME_H_

#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "loader.h"

#include "allocator.h"
#include "errors.h"
#include "streams.h"

namespace aclnn_binding {
namespace py = pybind11;

// The aclScalars of recent calls, by dtype and value: chained calls pass the same constants again
// and again (a slope, an alpha), and creating and destroying an aclScalar for each was a twentieth
// of a chained call. An aclScalar holds a copy of its value and phase 1 only reads it, so calls may
// share one. Guarded by the GIL: arguments are converted, and calls end, with it held. An entry a
// call still uses is never replaced; a value whose place is taken makes a scalar of the call's own.
class ScalarCache {
 public:
  struct Entry {
    aclScalar* scalar = nullptr;
    aclDataType dtype = ACL_DT_UNDEFINED;
    unsigned char value[16] = {};
    int uses = 0;  // calls holding it now
  };
  // The entry holding (dtype, value), made if needed, with one more use; null when the place is
  // taken by a scalar in use. Throws AclnnFailure when the library makes no scalar.
  Entry* acquire(aclDataType dtype, const unsigned char* value, const char* api);
  static void release(Entry* entry) { --entry->uses; }
  size_t size() const;
  // Destroys the scalars no call uses (aclnn.empty_cache, with the GIL; at shutdown, every one).
  void clear();

 private:
  static constexpr size_t kEntries = 64;
  Entry entries_[kEntries];
};

// ---- the runtime: lazy initialisation, devices, current streams (runtime.cpp) ---------------

class Runtime {
 public:
  static constexpr int kMaxDevices = 64;  // the device ids the bindings' tables hold
  // aclInit and device 0 on first use; throws AclnnFailure or aclnn_loader::LoaderError.
  static Runtime& get() {
    // Inline: every call asks several times; only the first one (or one after shutdown) goes further.
    if (alive_.load(std::memory_order_acquire)) return *instance_;
    return start();
  }
  // Whether `get()` succeeded at some point and `shutdown()` has not run (nor a fork made this
  // process a child of the one that started it): what destructors check.
  static bool alive() { return alive_.load(); }
  // In a forked child (runtime.cpp's fork handler): the inherited runtime is not alive.
  static void forget_in_child();

  const aclnn_loader::Abi& abi() const { return *abi_; }
  aclnn_loader::Backend& backend() const { return *backend_; }

  // The calling thread's current stream: the one `with aclnn.stream(s)` made current, else the
  // current device's default stream (one per device, shared by every thread, as PyTorch's).
  // Binds the thread to the stream's device first (CANN contexts are per thread).
  Stream& stream();
  std::shared_ptr<Stream> current_stream();
  std::shared_ptr<Stream> default_stream(int32_t device);
  // The stream `with aclnn.stream(...)` sets for this thread (null: the default stream).
  std::shared_ptr<Stream> exchange_thread_stream(std::shared_ptr<Stream> stream);
  // Binds the calling thread to `device` (aclrtSetDevice once per thread and device).
  void bind_thread(int32_t device);
  // `device` as a device id the caller was given: the backend's invalid-device error (CANN's
  // ACL_ERROR_RT_INVALID_DEVICEID, from aclrtSetDevice) for one it does not have. Binds the
  // calling thread to it (Runtime::stream() binds back to the current stream's device).
  void require_device(int32_t device);
  void set_device(int32_t device);
  int32_t device() const { return device_.load(); }
  // ACLNN_LAUNCH_BLOCKING=1: every call synchronises its stream, so that a kernel's fault is
  // reported by the call that launched it.
  bool launch_blocking() const { return launch_blocking_; }
  CachingAllocator& allocator(int32_t device);
  ScalarCache& scalars() { return scalars_; }
  // aclrtSynchronizeDevice; a fault is attributed through the streams the bindings know.
  void synchronize_device(const char* where);
  // Streams alive in Python: the ones a device synchronisation's fault may belong to.
  void track(const std::shared_ptr<Stream>& stream);
  std::vector<std::shared_ptr<Stream>> known_streams();
  // A fault no synchronisation reported, found when its stream was destroyed (~Stream): kept for
  // shutdown() to report, as CANN and CUDA keep a device error for the next synchronisation.
  void keep_unreported(AclnnFailure failure);
  // A device fault is raised in Python: `failure` is returned for the raise. A fault reaches every
  // stream that waited for the faulted work (through an event), and each reports it; shutdown()
  // does not report again at exit a kernel's fault that was raised once.
  const AclnnFailure& raising(const AclnnFailure& failure);
  // The launches of faulted kernels once attributed (Stream::attribute), by executor: a stream that
  // waited for the faulted work reports the fault later, when the launching stream's log, cleared
  // by its own synchronisation, no longer has the launch. The latest kRememberedFaults.
  void remember_faulted_launch(const void* executor, int64_t call, const char* api);
  bool faulted_launch(const void* executor, int64_t* call, const char** api);
  // At interpreter exit: synchronises, empties the caches, destroys, aclFinalize. Returns the faults
  // still pending (those of the streams' last synchronisation, and those kept_unreported): the
  // package reports them and exits with status 1, since no call is left to raise them.
  std::vector<AclnnFailure> shutdown();

  // `owner` (a strong reference, handed over: a foreign buffer's owner, or a host array an
  // interrupted call's transfers still use) is released once each of `streams` has run the work
  // queued on it so far: an event is recorded on each, and collect_released() lets the owner go
  // when all are reached. No GIL needed.
  void release_after(PyObject* owner, const aclrtStream* streams, size_t count);
  // Releases the owners whose streams have run their work (with the GIL). Cheap when none waits:
  // every call starts with it.
  void collect_released() {
    if (pending_owners_.load(std::memory_order_acquire) != 0) collect_released_slow();
  }

  // The last error message of this thread's library calls ("" when none).
  std::string recent_error() const;
  // Throws AclnnFailure when `code` is not ACL_SUCCESS.
  void check(aclError code, const std::string& api, const char* phase) const;

 private:
  Runtime() = default;
  void init();
  static Runtime& start();  // get()'s first call: aclInit and the device, under a lock

  static Runtime* instance_;              // set once init() succeeded
  static std::atomic<bool> alive_;        // init() succeeded and shutdown() has not run

  aclnn_loader::Backend* backend_ = nullptr;
  const aclnn_loader::Abi* abi_ = nullptr;
  bool launch_blocking_ = false;
  std::atomic<int32_t> device_{0};
  std::mutex mutex_;
  std::shared_ptr<Stream> default_streams_[kMaxDevices];
  std::atomic<Stream*> default_cache_[kMaxDevices] = {};  // the same, read without the lock
  std::atomic<CachingAllocator*> allocators_[kMaxDevices] = {};
  std::vector<std::weak_ptr<Stream>> known_;
  std::vector<AclnnFailure> unreported_;  // guarded by mutex_
  std::vector<int64_t> raised_calls_;     // guarded by mutex_: the calls whose device fault was raised
  struct FaultedLaunch {
    const void* executor;
    int64_t call;
    const char* api;
  };
  static constexpr size_t kRememberedFaults = 256;
  std::vector<FaultedLaunch> faulted_launches_;  // guarded by mutex_
  std::vector<int32_t> devices_used_;
  // Whether aclInit was ours: a framework in the same process (torch_npu) that initialised ACL first
  // finalises it too, after its own work; our aclFinalize would end its runtime under it.
  bool initialized_acl_ = false;
  ScalarCache scalars_;

  struct PendingOwner {
    PyObject* owner;
    std::vector<aclrtEvent> events;
  };
  void collect_released_slow();
  aclrtEvent spare_event();  // requires released_mutex_
  std::mutex released_mutex_;
  std::vector<PendingOwner> pending_;
  std::vector<aclrtEvent> spare_events_;
  std::atomic<size_t> pending_owners_{0};
};

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_RUNTIME_H_
