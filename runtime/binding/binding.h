// aclnn-bindgen: the hand-written C++ every generated wrapper (generated/bindings/ops_*.cpp) leans
// on. A wrapper is a thin, typed sequence: convert each argument with a `Call` method, call the
// op's first phase through its typed pointer, and `Call::run` does the rest (uploads, workspace,
// second phase on the current stream, downloads, errors, results).
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

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cxxabi.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/dtypes.h"
#include "aclnn_bindgen/small_vector.h"
#include "aclnn_bindgen/spin_lock.h"
#include "loader.h"

namespace aclnn_binding {
namespace py = pybind11;
using aclnn_bindgen::Dims;

// ---- dtypes (dtypes.cpp) -----------------------------------------------------------------------
// The facts are the generated table's (aclnn_bindgen/dtypes.h, rendered from gen.ir.DType), which
// the simulator reads too: the same names, sizes, NumPy dtypes and promotion rule on both sides.

using aclnn_bindgen::DTypeInfo;

const DTypeInfo* dtype_info(aclDataType dtype);             // nullptr for unknown values
const DTypeInfo* dtype_by_name(const std::string& name);    // page name, with or without ACL_
std::string dtype_name(aclDataType dtype);                   // page name, or the number
// The result type of combining two dtypes (CANN's 互推导关系, which follows PyTorch's
// promote_types); ACL_DT_UNDEFINED when there is none.
aclDataType promote(aclDataType a, aclDataType b);
// NumPy dtype <-> aclDataType. `from_numpy` returns ACL_DT_UNDEFINED for dtypes with no
// aclDataType (object, str, ...); `to_numpy` raises TypeError for aclDataTypes NumPy cannot hold.
aclDataType from_numpy(const py::dtype& dtype);
py::dtype to_numpy(aclDataType dtype);
// aclnn._C._promote_types, for tests/test_dtype_agreement.py.
void bind_dtypes(py::module_& m);

// ---- errors and counters (runtime.cpp) ---------------------------------------------------------

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

// ---- streams and events (streams.cpp) -------------------------------------------------------------

class Event;

// aclnn.Stream: an aclrtStream, ours (created and destroyed here) or someone else's (from_handle),
// with the log of the calls launched on it since its last successful synchronisation, so that a
// kernel fault reported later is attributed to the call that launched the kernel.
class Stream : public std::enable_shared_from_this<Stream> {
 public:
  static std::shared_ptr<Stream> create(int32_t device);
  // Someone else's stream (torch_npu's, a framework's): never destroyed here. One object per handle.
  static std::shared_ptr<Stream> wrap(aclrtStream handle, int32_t device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  aclrtStream handle() const { return handle_; }
  int32_t device() const { return device_; }
  bool owned() const { return owned_; }

  // A kernel of call `call` (its API and executor) was queued here.
  void note_launch(int64_t call, const char* api, const void* executor);
  // Waits for everything queued so far; throws AclnnFailure (phase "device", the failing call's
  // API and number) when a kernel failed. `where` names the Python-level operation. Ctrl-C
  // interrupts the wait (py::error_already_set: KeyboardInterrupt); the queued work goes on.
  void synchronize(const char* where);
  // Keeps `obj` (a host array a queued transfer reads or writes) alive until the stream has passed
  // the work queued so far (Runtime::release_after): the call that queued it was interrupted.
  void hold_until_done(py::handle obj);
  // A synchronisation that did not go through this object failed (device or event): the failure,
  // attributed with this stream's log. Also clears the log.
  AclnnFailure attribute(aclError status, const std::string& message, const char* where);
  void forget_launches();
  // The call and API of the launch of `executor` in this stream's log, if it is there.
  bool find_launch(const void* executor, int64_t* call, const char** api);

 private:
  struct Launch {
    int64_t call;
    const char* api;  // a string of the generated spec
    const void* executor;
  };
  static constexpr size_t kLogSize = 1 << 14;  // the launches a fault can still be attributed to

  Stream(aclrtStream handle, int32_t device, bool owned) : handle_(handle), device_(device), owned_(owned) {}

  aclrtStream handle_;
  int32_t device_;
  bool owned_;
  aclnn_bindgen::SpinLock mutex_;
  std::vector<Launch> log_;  // a ring once it is kLogSize long
  size_t log_next_ = 0;
};

// A forked child's first act (runtime.cpp): the locks of streams.cpp, which a parent's thread may
// have held at the fork, are made anew (a child's Stream objects are released without the library).
void reset_stream_locks_in_child();

// aclnn.Event: an aclrtEvent. record() remembers the stream, for the fault a synchronisation of
// the event may report.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  aclrtEvent handle() const { return handle_; }
  void record(const std::shared_ptr<Stream>& stream);
  void synchronize();
  bool query() const;
  double elapsed_ms(const Event& end) const;
  std::shared_ptr<Stream> last_stream() const { return stream_.lock(); }

 private:
  aclrtEvent handle_ = nullptr;
  std::weak_ptr<Stream> stream_;
};

// ---- device memory: the caching allocator (allocator.cpp) --------------------------------------

struct Block;  // an allocation of the device, cached between uses
struct DeviceTensor;  // a view of device memory (below)

struct MemoryStats {
  int64_t allocated_bytes = 0, reserved_bytes = 0, peak_allocated_bytes = 0;
  int64_t allocations = 0;  // blocks in use
  int64_t mallocs = 0, frees = 0;  // aclrtMalloc / aclrtFree calls the allocator made
  int64_t cache_hits = 0, cache_misses = 0;
  int64_t cached_descriptors = 0;  // aclTensors kept with blocks (CachingAllocator::describe)
};

// One per device, stream-ordered like PyTorch's CUDA caching allocator: a freed block goes back
// to the pool of the stream that used it and is reused at once by the next allocation on that
// stream (the stream runs its work in order, so the new user's work comes after the old one's);
// another stream takes it only after an event recorded on the first stream has been reached.
// A block that calls on other streams also used waits for events on each of those streams.
class CachingAllocator {
 public:
  explicit CachingAllocator(int32_t device);
  ~CachingAllocator();
  // Throws AclnnFailure (phase "aclrtMalloc") when the device has no memory left, after
  // releasing every cached block and trying once more.
  Block* allocate(size_t nbytes, aclrtStream stream, const char* api);
  void release(Block* block);
  void used_on(Block* block, aclrtStream stream);
  void* data(const Block* block) const;
  aclrtStream stream(const Block* block) const;
  // The aclTensor describing `tensor`, the first view of a block just allocated (an op's output, an
  // upload's copy): the one the block kept from its previous allocation when the layout is the
  // same, else a new one, kept in its place. It lives as long as the block (empty_cache destroys
  // it), so the caller must not destroy it; no one else holds it, since the block's previous
  // tensors are gone. A chain of calls then creates no descriptor at all in the steady state.
  aclTensor* describe(Block* block, const DeviceTensor& tensor, const char* api);
  // The allocation that holds `address`, when a block of this allocator does: its first byte and
  // the bytes asked for it (not the block's rounded size: the bytes past them are no tensor's),
  // 0 bytes for a block cached for reuse (no tensor holds it). False: not this allocator's memory.
  bool allocation_containing(uintptr_t address, uintptr_t* begin, size_t* nbytes) const;
  // Returns every cached block to the device (aclrtFree), once its pending events are reached.
  void empty_cache();
  // `stream` is about to be destroyed: its cached blocks become free for every stream once it
  // has been synchronised (which the caller has done).
  void forget_stream(aclrtStream stream);
  MemoryStats stats() const;

 private:
  struct Pool;
  Block* take_cached(size_t size, aclrtStream stream);  // requires mutex_
  void collect_pending();                               // requires mutex_
  aclrtEvent new_event();                               // requires mutex_
  void free_cached();                                   // requires mutex_

  const int32_t device_;
  mutable aclnn_bindgen::SpinLock mutex_;
  std::vector<std::unique_ptr<Pool>> pools_;  // the free blocks of each stream (and of none)
  std::vector<Block*> pending_;               // freed, waiting for events of other streams
  std::vector<aclrtEvent> spare_events_;
  std::vector<std::unique_ptr<Block>> blocks_;  // every block the allocator holds
  std::map<uintptr_t, Block*> by_address_;      // the same, by their first byte
  MemoryStats stats_;
};

// ---- scalars shared by calls (runtime.cpp) ----------------------------------------------------

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

// Runs `wait` (a call that blocks on the device, or the library's work) without the GIL. The GIL is
// taken back in plain code, never in a destructor or a catch-all handler: at interpreter exit a
// daemon thread that asks for the GIL is ended by pthread_exit, whose forced unwinding must not
// cross a noexcept frame nor be swallowed ("FATAL: exception not rethrown"). A thread ended so
// leaves through here; the objects of its call are abandoned with the process.
template <class Wait>
auto without_gil(Wait&& wait) -> decltype(wait()) {
  if (!PyGILState_Check()) return wait();  // a thread without the GIL (a destructor at thread exit)
  PyThreadState* state = PyEval_SaveThread();
  std::exception_ptr error;
  if constexpr (std::is_void<decltype(wait())>::value) {
    try {
      wait();
    } catch (abi::__forced_unwind&) {
      throw;  // the thread is being cancelled: no Python left to return to
    } catch (...) {
      error = std::current_exception();
    }
    PyEval_RestoreThread(state);
    if (error) std::rethrow_exception(error);
  } else {
    decltype(wait()) result{};
    try {
      result = wait();
    } catch (abi::__forced_unwind&) {
      throw;
    } catch (...) {
      error = std::current_exception();
    }
    PyEval_RestoreThread(state);
    if (error) std::rethrow_exception(error);
    return result;
  }
}

// Whether a Python thread other than the calling one (which holds the GIL) exists in its
// interpreter. A thread that appears just after the check waits for the GIL until the caller's
// short critical work is done, as it would behind any C call that keeps the GIL.
inline bool other_python_threads() {
  PyThreadState* self = PyThreadState_Get();
  PyThreadState* head = PyInterpreterState_ThreadHead(PyThreadState_GetInterpreter(self));
  return head != self || PyThreadState_Next(head) != nullptr;
}

// Waits without the GIL until `done` says the device work is finished, then returns `finish()`
// (the blocking synchronisation: at once, reporting a fault). In the main thread Python's signal
// handlers run every 20 ms meanwhile, so that Ctrl-C raises KeyboardInterrupt
// (py::error_already_set) as NumPy's and PyTorch's long operations do; the work goes on. Other
// threads, which signals never reach, and a `done` that fails wait in `finish` directly.
aclError wait_interruptibly(const std::function<aclError(bool*)>& done, const std::function<aclError()>& finish);

// Device memory, shared by the tensors that view it: a block of the caching allocator (returned
// to it when the last tensor goes), or someone else's memory kept alive through its owner.
class DeviceBuffer {
 public:
  // Throws AclnnFailure (phase "aclrtMalloc"); never returns null. A 0-byte request gets a small
  // block, so that empty tensors still have a valid address.
  static std::shared_ptr<DeviceBuffer> allocate(size_t nbytes, Stream& stream, const char* api);
  // Memory of someone else (a framework's allocator): `owner` (any Python object, or None) stays
  // alive as long as the buffer; nothing is freed here.
  static std::shared_ptr<DeviceBuffer> foreign(void* data, size_t nbytes, int32_t device, py::object owner);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  int32_t device() const { return device_; }
  bool is_foreign() const { return block_ == nullptr; }
  // A call on `stream` uses the memory: when that is not the stream it was allocated for, the
  // allocator keeps the block from reuse until that stream's work is done (torch's record_stream,
  // done for every call, so users need not). Foreign memory's owner is kept alive likewise: let
  // go, it is released once every stream that used the memory has run what was queued on it (the
  // framework that owns the memory could otherwise reuse it under a queued kernel).
  void used_on(aclrtStream stream);
  // A call queued on `stream` writes the memory (an output, an in-place argument): a host read
  // (Tensor.numpy()) waits for that stream's work, whatever the current stream is then.
  void written_on(Stream& stream);
  // The stream that last wrote the memory, while it lives (null: none, or gone: a destroyed
  // stream has run its work).
  std::shared_ptr<Stream> last_writer() const;
  // CachingAllocator::describe for the buffer's block; null for foreign memory. Only for the
  // buffer's first tensor, right after allocate().
  aclTensor* describe_fresh(const DeviceTensor& tensor, const char* api);

 private:
  struct Key {};  // the constructor is public for make_shared (one allocation), callable from here only

 public:
  DeviceBuffer(Key, void* data, size_t nbytes, int32_t device, CachingAllocator* allocator, Block* block,
               PyObject* owner)
      : data_(data), nbytes_(nbytes), device_(device), allocator_(allocator), block_(block), owner_(owner) {}

 private:
  void* data_;
  size_t nbytes_;
  int32_t device_;
  CachingAllocator* allocator_;  // the block's (never destroyed); null for foreign memory
  Block* block_;      // the allocator's; null for foreign memory
  PyObject* owner_;   // foreign memory's owner (a strong reference), or null
  mutable aclnn_bindgen::SpinLock streams_lock_;  // guards streams_ and the writer
  aclnn_bindgen::SmallVector<aclrtStream, 4> streams_;  // foreign memory with an owner: the streams that used it
  // The last writer: compared by address first (a chain of calls on one stream writes its results
  // on the stream that wrote them, and a weak_ptr assignment per call would cost two atomics).
  const Stream* writer_raw_ = nullptr;
  std::weak_ptr<Stream> writer_;
};

// Makes `reader` wait for the work of the stream that last wrote `tensor`'s memory, when that is
// another stream (an event recorded there now, waited for by `reader`): a host read queued on
// `reader` then sees the values the writer computes, and a fault of that work reaches `reader`.
void wait_for_writer(const DeviceTensor& tensor, Stream& reader);

// Stream-ordered copies through the loader, counted. Throw AclnnFailure. No GIL needed.
void copy_async(void* dst, const void* src, size_t nbytes, aclrtMemcpyKind kind, Stream& stream, const std::string& api);

// ---- RAII owners of CANN objects ---------------------------------------------------------------

template <class T> struct Destroy;
#define ACLNN_BINDING_DESTROY(Type, fn)                                        \
  template <> struct Destroy<Type> {                                           \
    void operator()(Type* p) const {                                           \
      if (p == nullptr) return;                                                \
      counters().live_objects.fetch_sub(1);                                    \
      if (Runtime::alive()) Runtime::get().abi().fn(p);                        \
    }                                                                          \
  };
ACLNN_BINDING_DESTROY(aclTensor, aclDestroyTensor)
ACLNN_BINDING_DESTROY(aclScalar, aclDestroyScalar)
ACLNN_BINDING_DESTROY(aclIntArray, aclDestroyIntArray)
ACLNN_BINDING_DESTROY(aclFloatArray, aclDestroyFloatArray)
ACLNN_BINDING_DESTROY(aclBoolArray, aclDestroyBoolArray)
ACLNN_BINDING_DESTROY(aclTensorList, aclDestroyTensorList)
ACLNN_BINDING_DESTROY(aclScalarList, aclDestroyScalarList)
#undef ACLNN_BINDING_DESTROY
template <class T> using Owner = std::unique_ptr<T, Destroy<T>>;

// The CANN objects of one call, destroyed in reverse order of creation. The first N live inline:
// a call creates a handful, and allocating for them on every call was measurable.
template <class T, size_t N = 8>
class Owners {
 public:
  Owners() = default;
  Owners(const Owners&) = delete;
  Owners& operator=(const Owners&) = delete;
  ~Owners() {
    for (size_t i = size(); i-- > 0;) Destroy<T>()(at(i));
  }
  size_t add(T* object) {
    if (count_ < N) inline_[count_] = object;
    else overflow_.push_back(object);
    return count_++;
  }
  T* get(size_t i) const { return at(i); }
  // The object now belongs to something else (a list owns its elements): not destroyed here.
  void release(size_t i) { (i < N ? inline_[i] : overflow_[i - N]) = nullptr; }
  size_t size() const { return count_; }

 private:
  T* at(size_t i) const { return i < N ? inline_[i] : overflow_[i - N]; }
  T* inline_[N];  // the first count_ are set
  std::vector<T*> overflow_;
  size_t count_ = 0;
};

// ---- tensors: host arrays and device tensors (arrays.cpp) -------------------------------------

// A strided view over device memory: what aclnn.Tensor holds, and what every aclTensor a call
// creates describes. Strides and offset are in elements, as aclCreateTensor takes them; the
// storage is one-dimensional, `storage_elements` long.
struct DeviceTensor {
  std::shared_ptr<DeviceBuffer> storage;
  Dims shape;
  Dims strides;
  int64_t offset = 0;
  int64_t storage_elements = 0;
  aclDataType dtype = ACL_DT_UNDEFINED;

  int64_t numel() const;
  // Creates the aclTensor (ND format), counted in live_objects. Throws AclnnFailure when the
  // library returns null.
  aclTensor* make_acl_tensor(const char* api) const;
  // The same, not counted: for an owner other than a call or a Tensor (the allocator's blocks).
  aclTensor* create_acl_tensor(const char* api) const;
  // Whether `other` is the same view (dtype, shape, strides, offset, storage length).
  bool same_layout(const DeviceTensor& other) const;
};

// A host array (NumPy, or anything with __dlpack__ on the CPU), as a strided view over its
// memory span: element [0,...,0] at `data`, non-negative element strides.
struct HostArray {
  py::object keep;       // keeps the memory alive (the array, or the DLPack owner)
  py::object writeback;  // set when `keep` is a private copy of an array the op must write into
  char* data = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
  size_t itemsize = 0;
  Dims shape;
  Dims strides;  // elements
  bool writeable = false;

  int64_t span_elements() const;  // elements from the first to the last one addressed, inclusive
  bool dense() const;             // the view covers its span exactly once (no gaps, no overlap)
};

// Names an argument in messages. The text is built only when a message is: a call converts
// several arguments, and building their labels on every call showed in its profile.
class ArgumentName {
 public:
  virtual std::string str() const = 0;

 protected:
  ~ArgumentName() = default;
};

// A name known as text ("to_device(array)").
class FixedName final : public ArgumentName {
 public:
  explicit FixedName(const char* text) : text_(text) {}
  std::string str() const override { return text_; }

 private:
  const char* text_;
};

// Converts `obj` (a NumPy array, a __dlpack__ object, or — for inputs — anything np.asarray
// takes) into a HostArray. Raises TypeError/ValueError naming `what` (a parameter).
HostArray host_array(py::handle obj, const ArgumentName& what, bool for_output);
// Whether `obj` is an aclnn.Tensor, and the tensor it holds (only for one that is).
bool is_device_tensor(py::handle obj);
DeviceTensor& device_tensor_of(py::handle obj);
// The aclTensor describing an aclnn.Tensor, made on first use and owned by the Tensor (destroyed
// with it): not for a list, which owns what it holds. Throws AclnnFailure as make_acl_tensor.
aclTensor* descriptor_of(py::handle obj, const char* api);
// Gives a new Tensor (an op's result) the descriptor its block keeps (DeviceBuffer::describe_fresh),
// or one of its own for foreign memory; returns it.
aclTensor* describe_result(py::handle obj, const char* api);
// aclnn.to_device: a device copy of a host array's span, with the array's strides (a Tensor: itself).
py::object to_device(py::handle obj);
// Row-major strides in elements (an extent of 0 or 1 counts as 1).
Dims contiguous_strides(const Dims& shape);
// An integer argument (Python's, NumPy's, a 0-d integer array) as int64; false (no Python error
// set) for anything else, a bool, a float, a larger array, or a value beyond int64.
bool int64_of(py::handle obj, int64_t* value);
// aclnn.empty: an uninitialised contiguous device tensor (torch.empty(..., device="npu")).
py::object empty(py::handle shape, py::handle dtype);
// A new aclnn.Tensor object holding `tensor`.
py::object wrap_tensor(DeviceTensor&& tensor);
// A new aclnn.Tensor holding an empty DeviceTensor, to be filled in place (device_tensor_of) before
// anything else sees it: a call's result, built where it will live.
py::object new_tensor();
// aclnn.Tensor.numpy(): a fresh C-contiguous host array with the tensor's values.
py::array to_host(const DeviceTensor& tensor);
void bind_tensor(py::module_& m);
void bind_streams(py::module_& m);

// ---- what a generated wrapper declares about its API -------------------------------------------

// Which aclDataType a Python bool/int/float/complex becomes for an aclScalar parameter, in order
// of preference: the page's documented dtypes, ordered at generation time (a Python float is
// DOUBLE if the page documents it, else FLOAT, ...).
struct ScalarPreference {
  std::vector<aclDataType> for_bool, for_int, for_float, for_complex;
};

struct ParamSpec {
  const char* name;         // as the page writes it (gradOutput): for messages
  const char* python_name;  // grad_output
  ScalarPreference scalar;  // scalars and scalar lists only
};

// How a kernel family shapes an output the caller does not pass (gen.families `output_shape`):
// by broadcasting (every op that is not a family's), the input with the reduced dimensions removed
// (or kept as 1), the input's shape, the product of two inputs (torch.matmul's rule), their outer
// product, a product summed over its batch, the input with its trailing normalised dimensions as 1,
// [N, group] or [C]. The same rule on every backend: CANN's as the simulator's.
enum class ShapeRule : uint8_t {
  kBroadcast, kReduce, kSame, kMatmul, kOuter, kBatchSum, kTrailingOnes, kGroups, kChannels, kConvolution, kPool,
  kAdaptive, kPad,
  // The dynamic family's (gen.families): "bound_*" outputs are allocated at the largest extent the
  // data can give; the kernel sets their aclTensor's view shape, which the call reads back once the
  // stream has run, returning a view of that shape (as op-plugin resizes them).
  kBoundFlat, kBoundNonzero, kBoundNonzeroT, kBoundDim, kBoundDimLength, kDimLength, kOne,
  kSecond  // the second input's own shape (a norm backward's gradient of gamma)
};

inline bool data_dependent(ShapeRule rule) { return rule >= ShapeRule::kBoundFlat && rule <= ShapeRule::kBoundDimLength; }

// The arguments a family's rule reads: the dimensions (an int, a sequence of ints, None: every
// dimension), keepdim, the dtype argument, and whether an empty dimension list reduces none
// (noopWithEmptyAxes). A null handle: the API has no such parameter.
struct RuleArgs {
  py::handle dims, keepdim, dtype, noop;
  // A convolution's stride, padding, dilation, transposed, outputPadding and groups.
  py::handle conv[6];
  // A pool's window arguments besides its kernel (dims): stride, padding, dilation, ceil mode.
  py::handle stride, padding, dilation, ceil_mode;
};

// How an output is allocated when the caller passes no out= (decided at generation time from the
// page and its semantics: gen/api/python.py `output_plans`).
struct OutputPlan {
  int param;                     // index into ApiSpec::params
  std::vector<int> shape_from;   // broadcast of these inputs' shapes
  std::vector<int> dtype_from;   // promotion of these inputs' dtypes
  bool dtype_must_be_documented; // the page relates the dtype to no input: only use the promoted
                                 // dtype when `documented` lists it
  std::vector<aclDataType> documented;
  const char* required_reason;   // non-null: out= is required, for this reason
  bool is_list;                  // an aclTensorList output: out= takes a list of arrays
  aclnn_bindgen::ResultRule result;  // how the kernel's result dtype follows from the promoted one
  // A family's rule: shape_from is its one input; dtype_from the same (or `fixed_dtype`, or the
  // dtype argument when one is given).
  ShapeRule shape_rule = ShapeRule::kBroadcast;
  aclDataType fixed_dtype = ACL_DT_UNDEFINED;
  int spatial = 0;  // the pool rules': how many trailing dimensions they pool or pad
};

struct ApiSpec {
  const char* api;            // aclnnLeakyReluBackward
  const char* workspace_fn;   // aclnnLeakyReluBackwardGetWorkspaceSize
  const char* python_name;    // leaky_relu_backward
  std::vector<ParamSpec> params;
  std::vector<OutputPlan> outputs;  // the direction-out parameters, in prototype order (out=)
  std::vector<int> returns;         // out and inout parameters, in prototype order
  // The backend's two symbols, resolved on the first call (the backend is chosen once per process).
  mutable std::atomic<void*> phase1{nullptr};
  mutable std::atomic<void*> phase2{nullptr};
};

// ---- one call of an API (call.cpp) ------------------------------------------------------------

class Call {
 public:
  // `out` is the out= argument: None, one array/Tensor, or a tuple/list in output order.
  Call(const ApiSpec& spec, py::handle out);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Inputs. None becomes NULL for every pointer kind, so that the library reports it (161001).
  aclTensor* tensor(int param, py::handle obj);
  aclTensor* inout_tensor(int param, py::handle obj);  // written in place, returned
  aclTensorList* tensor_list(int param, py::handle obj);
  aclTensorList* inout_tensor_list(int param, py::handle obj);
  aclScalar* scalar(int param, py::handle obj);
  aclScalarList* scalar_list(int param, py::handle obj);
  aclIntArray* int_array(int param, py::handle obj);
  aclFloatArray* float_array(int param, py::handle obj);
  aclBoolArray* bool_array(int param, py::handle obj);
  bool boolean(int param, py::handle obj);
  template <class T> T integer(int param, py::handle obj) {
    // long double holds every int64_t and uint64_t exactly (x86-64 and AArch64 alike).
    return static_cast<T>(integer_in_range(param, obj, static_cast<long double>(std::numeric_limits<T>::min()),
                                           static_cast<long double>(std::numeric_limits<T>::max())));
  }
  template <class T> T floating(int param, py::handle obj) {
    return static_cast<T>(floating_value(param, obj, sizeof(T) == sizeof(float)));
  }
  char* string(int param, py::handle obj);
  aclDataType dtype(int param, py::handle obj);
  // Outputs (direction out), converted after every input: their plans read the inputs.
  aclTensor* output(int param, const RuleArgs& rule_args = {});
  aclTensorList* output_list(int param);

  // Runs both phases with `phase1(symbol, &workspaceSize, &executor)`, which casts the symbol to
  // the API's prototype and passes the converted arguments. Returns the outputs.
  template <class Phase1> py::object run(Phase1&& phase1) {
    void* symbol = resolve_phase1();
    Phase1* fn = &phase1;
    execute(symbol, [](void* ctx, void* sym, uint64_t* size, aclOpExecutor** executor) -> aclnnStatus {
      return (*static_cast<Phase1*>(ctx))(sym, size, executor);
    }, fn);
    return results();
  }

  static constexpr size_t kNotOwned = ~size_t{0};
  // One tensor of the call.
  struct Slot {
    // What the aclTensor describes: an input Tensor's own (kept alive by `result`, the caller's
    // object), a result Tensor's (likewise), or, for a host array, `made`.
    const DeviceTensor* device = nullptr;
    std::optional<DeviceTensor> made;
    HostArray host;         // the host side, when the tensor came from (or goes to) the host
    bool upload = false;    // copy the host span to the device before phase 1
    bool download = false;  // copy the span back to the host once the stream has run the call
    bool overwrite = false; // an out= array: the op writes every element of the view
    bool written = false;   // the op writes it (an output or an in-place argument)
    py::object result;      // what the call returns for it (the caller's object, or a new one)
    // Its aclTensor: an aclnn.Tensor's own (descriptor_of), or one in Call::tensors_ at `owner`.
    aclTensor* acl = nullptr;
    size_t owner = kNotOwned;
    bool data_dependent = false;  // its extent is the view shape the kernel sets (ShapeRule kBound*)
  };
  // Names an argument in messages, built only when a message is ("abs() argument 'self'[2]").
  class Label final : public ArgumentName {
   public:
    Label(const Call* call, int param, int item, bool output) : call(call), param(param), item(item), output(output) {}
    std::string str() const override;

    const Call* call;
    int param;
    int item;     // the element of a list, or -1
    bool output;  // "output 'out'" rather than "argument 'self'"
  };

 private:
  using Trampoline = aclnnStatus (*)(void*, void*, uint64_t*, aclOpExecutor**);
  static constexpr int kMaxParams = 64;  // as the simulator's masks: no page comes near it
  static constexpr size_t kInlineSlots = 6;

  void* resolve_phase1();
  void execute(void* phase1, Trampoline trampoline, void* ctx);
  py::object results();
  void synchronize_and_download();
  // The data-dependent outputs as the view shapes their kernel set (after the stream has run).
  void shrink_to_written();
  // Waits for the call's stream; a wait Ctrl-C interrupts leaves the host arrays of queued
  // transfers held by the stream (they outlive the call until the transfers have run).
  void synchronize_stream();

  std::string what(int param) const { return Label{this, param, -1, false}.str(); }
  long double integer_in_range(int param, py::handle obj, long double lo, long double hi);
  double floating_value(int param, py::handle obj, bool single);
  Slot* new_slot();
  void refuse_self_overlap(const Dims& shape, const Dims& strides, const Label& label) const;
  // `list_member`: the aclTensor is made for the call (a list owns its elements), never an
  // aclnn.Tensor's own.
  Slot* tensor_slot(py::handle obj, bool inout, const Label& label, bool list_member = false);
  void own_descriptor(Slot* slot);
  // `list_member`: a scalar of the call's own (a list owns its elements), never a shared one.
  aclScalar* make_scalar(int param, py::handle obj, const Label& label, bool list_member = false);
  Slot* output_slot(int param, py::handle given, const OutputPlan* plan, const RuleArgs& rule_args,
                    const Label& label);
  // A new output of `shape` and `dtype` (on the device, and a host array in host mode);
  // `list_member`: its aclTensor is the call's own, for the list that will own it.
  // list_member: the list owns the member's aclTensor; data_dependent: the kernel sets its view
  // shape (ShapeRule's bound_* rules), so the call owns its descriptor.
  Slot* allocated_slot(const Dims& shape, aclDataType dtype, const Label& label, bool list_member = false,
                       bool data_dependent = false);
  // The members of list parameter `param` (null when it has none).
  const std::vector<Slot*>* list_members(int param) const;
  // `second`: the shape of the rule's second input (a product's right operand), null when none.
  void apply_family_rule(const OutputPlan& plan, const RuleArgs& args, Dims* shape, const Dims* second,
                         aclDataType* dtype);
  aclTensorList* make_list(int param, const std::vector<Slot*>& members);
  aclTensorList* tensor_list_of(int param, py::handle obj, bool inout);
  py::handle given_out(size_t output) const;
  void attach(int param, Slot* slot);

  const ApiSpec& spec_;
  Runtime& runtime_;
  Stream& stream_;                     // where the call's work is queued
  std::vector<py::object> out_given_;  // per OutputPlan; empty when out= is None
  bool device_mode_ = false;           // some tensor input is an aclnn.Tensor
  bool uploads_ = false;               // some host array goes to the device
  bool downloads_ = false;             // some result goes back to a host array
  bool data_dependent_ = false;        // some output's extent is read back after the run
  bool host_reads_pending_ = false;    // uploads are queued and the stream has not been synchronised
  // Slots: the first few inline, the rest on the heap (a list argument can have many). The inline
  // ones are constructed when used: a call uses two to four, and building and destroying all of
  // them on every call showed in the profile.
  Slot& slot_at(size_t i) {
    return i < kInlineSlots ? *std::launder(reinterpret_cast<Slot*>(&inline_slots_[i])) : *more_slots_[i - kInlineSlots];
  }
  alignas(Slot) unsigned char inline_slots_[kInlineSlots][sizeof(Slot)];
  size_t slot_count_ = 0;
  std::vector<std::unique_ptr<Slot>> more_slots_;
  // The slot of each non-list tensor parameter, valid where `attached_` has its bit: a call uses a
  // few of the 64, and zeroing them all on every call showed in its profile.
  Slot* single_[kMaxParams];
  uint64_t attached_ = 0;
  std::vector<std::pair<int, std::vector<Slot*>>> lists_;  // the members of each list parameter
  uint64_t is_list_ = 0;                     // bit per parameter
  std::vector<std::unique_ptr<std::string>> strings_;  // stable addresses for char* arguments
  // Scalars of the cache the call uses (released by ~Call); beyond these, the call makes its own.
  ScalarCache::Entry* shared_scalars_[4];
  size_t shared_scalar_count_ = 0;
  // Owners, destroyed in reverse order of declaration: lists before what they hold.
  Owners<aclTensor> tensors_;
  Owners<aclScalar, 4> scalars_;
  Owners<aclIntArray, 4> int_arrays_;
  Owners<aclFloatArray, 2> float_arrays_;
  Owners<aclBoolArray, 2> bool_arrays_;
  Owners<aclTensorList, 2> tensor_lists_;
  Owners<aclScalarList, 2> scalar_lists_;
};

// ---- the Python calling convention of a wrapper (call.cpp) ------------------------------------------

// A generated wrapper's Python signature: `function(p0, p1, ..., *, pk, ...)`. The first `required`
// parameters have no default; the others default to None. Wrappers are METH_FASTCALL functions
// that parse their arguments with this, not through pybind11's dispatcher (whose per-call
// overload records and argument vectors cost more than the simulator's whole first phase).
struct PySignature {
  const char* function;            // leaky_relu_backward
  std::vector<const char*> names;  // every parameter, in order
  int positional;                  // how many may be given by position (those before `*`)
  int required;                    // how many, from the first, have no default
};

constexpr int kMaxPythonParams = 64;

// Fills `values` (names.size() of them, borrowed; None where defaulted) from a vectorcall's
// arguments, or raises TypeError with CPython's wording (missing, unexpected or repeated).
void parse_arguments(const PySignature& signature, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                     PyObject** values);

// A wrapper's whole body: parse, run `body(values)` (which returns a py::object), and turn every C++
// exception into the Python one (pybind11's translators, aclnn's errors included).
template <class Body>
PyObject* invoke(const PySignature& signature, PyObject* const* args, size_t nargs, PyObject* kwnames, Body&& body) {
  PyObject* values[kMaxPythonParams];
  try {
    parse_arguments(signature, args, PyVectorcall_NARGS(nargs), kwnames, values);
    py::object result = body(values);
    return result.release().ptr();
  } catch (abi::__forced_unwind&) {
    throw;  // a thread ended at interpreter exit: not an error to report
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

// ---- the module (module.cpp); generated/bindings/module.cpp calls these -------------------------

void init_module(py::module_& m);
// Adds generated wrappers (METH_FASTCALL functions of no object; `functions` must outlive the module).
void add_functions(py::module_& m, PyMethodDef* functions, size_t count);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDGEN_BINDING_H_
