// aclnn-bindgen bindings: streams and events (streams.cpp).
#ifndef ACLNN_BINDING_STREAMS_H_
#define ACLNN_BINDING_STREAMS_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn_bindgen/spin_lock.h"

#include "errors.h"

namespace aclnn_binding {
namespace py = pybind11;

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

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_STREAMS_H_
