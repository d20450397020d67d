// aclnn-bindgen: aclnn.Stream and aclnn.Event, `with aclnn.stream(s):`, and the attribution of a
// kernel fault (reported by a later synchronisation) to the call that launched the kernel.
#include <pybind11/stl.h>

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <map>
#include <new>
#include <thread>
#include <utility>

#include "aclnn_sim.h"
#include "binding.h"

namespace aclnn_binding {
namespace {

bool in_main_thread() {
  static const unsigned long main = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main;
}

// Asks `done` until it says finished or `budget` has passed: yielding for the first 50 us (a short
// kernel ends within them, as fast as a blocking wait would see it), then sleeping a sixteenth of
// the time waited so far (20 us to 1 ms), so that a wait ends at most ~6% after the work did. The
// thread's timer slack is 1 us meanwhile: Linux's default 50 us made every sleep at least that
// long, and a doubling pause (50 us, 100 us, ... 1 ms) had a 1 ms kernel seen at 1.6 ms, which cost
// the 1M-element kernels of make bench half their measured speed.
aclError poll(const std::function<aclError(bool*)>& done, bool* complete, std::chrono::microseconds budget) {
  using Clock = std::chrono::steady_clock;
  using std::chrono::microseconds;
  constexpr microseconds kYield{50};
  const auto start = Clock::now();
  // The simulator's kernels may take this thread (aclsimLendThread) rather than wake one of their
  // own; the kernel then ends about when the lent thread's share does, so the yielding restarts.
  static const auto lend =
      reinterpret_cast<decltype(&aclsimLendThread)>(Runtime::get().backend().optional_symbol("aclsimLendThread"));
  auto yield_until = start + kYield;
  int slack = -1;  // the thread's timer slack before the first sleep, restored at the end
  aclError code = ACL_SUCCESS;
  for (;;) {
    if ((code = done(complete)) != ACL_SUCCESS || *complete) break;
    const auto now = Clock::now();
    const auto elapsed = std::chrono::duration_cast<microseconds>(now - start);
    if (elapsed >= budget) break;
    if (lend && lend()) {
      yield_until = Clock::now() + kYield;
      continue;
    }
    if (now < yield_until) {
      sched_yield();
      continue;
    }
    if (slack < 0) {
      slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
      prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    }
    std::this_thread::sleep_for(std::clamp(elapsed / 16, microseconds(20), microseconds(1000)));
  }
  if (slack >= 0) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0, 0, 0);
  return code;
}

std::mutex g_wrapped_mutex;
std::map<aclrtStream, std::weak_ptr<Stream>>& wrapped() {
  static auto* streams = new std::map<aclrtStream, std::weak_ptr<Stream>>();  // read by late destructors
  return *streams;
}

// The executor the backend says faulted on `stream` (the simulator's aclsimLastFault; CANN has
// no such call, and attribution then goes by the API named in the message).
const void* faulted_executor(aclrtStream stream, std::string* api) {
  auto fn = reinterpret_cast<decltype(&aclsimLastFault)>(Runtime::get().backend().optional_symbol("aclsimLastFault"));
  aclsimFault fault{};
  if (fn == nullptr || fn(stream, &fault) != 0) return nullptr;
  *api = fault.api;
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(fault.executor));
}

}  // namespace

void reset_stream_locks_in_child() { new (&g_wrapped_mutex) std::mutex; }

std::shared_ptr<Stream> Stream::create(int32_t device) {
  Runtime& rt = Runtime::get();
  rt.bind_thread(device);
  aclrtStream handle = nullptr;
  rt.check(rt.abi().aclrtCreateStream(&handle), "", "aclrtCreateStream");
  std::shared_ptr<Stream> stream(new Stream(handle, device, true));
  {
    std::lock_guard<std::mutex> lock(g_wrapped_mutex);
    wrapped()[handle] = stream;
  }
  rt.track(stream);
  return stream;
}

std::shared_ptr<Stream> Stream::wrap(aclrtStream handle, int32_t device) {
  Runtime& rt = Runtime::get();
  std::shared_ptr<Stream> stream;
  {
    std::lock_guard<std::mutex> lock(g_wrapped_mutex);
    stream = wrapped()[handle].lock();
    if (!stream) {
      stream.reset(new Stream(handle, device, false));
      wrapped()[handle] = stream;
    }
  }
  rt.track(stream);
  return stream;
}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(g_wrapped_mutex);
    auto it = wrapped().find(handle_);
    if (it != wrapped().end() && it->second.expired()) wrapped().erase(it);
  }
  if (!owned_ || !Runtime::alive()) return;
  // Ours: its queued work finishes (CANN wants a stream synchronised before it is destroyed),
  // its cached blocks become everyone's, and it goes. No Python here: a thread's last reference
  // may go after its Python state has.
  Runtime& rt = Runtime::get();
  const aclError code = rt.abi().aclrtSynchronizeStream(handle_);
  // Its fault, if no synchronisation reported it, outlives it: reported at exit at the latest.
  if (code != ACL_SUCCESS) rt.keep_unreported(attribute(code, rt.recent_error(), "the stream's destruction"));
  rt.allocator(device_).forget_stream(handle_);
  rt.abi().aclrtDestroyStream(handle_);
}

void Stream::note_launch(int64_t call, const char* api, const void* executor) {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  if (log_.size() < kLogSize) {
    log_.push_back(Launch{call, api, executor});
  } else {
    log_[log_next_] = Launch{call, api, executor};
    log_next_ = (log_next_ + 1) % kLogSize;
  }
}

void Stream::forget_launches() {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  log_.clear();
  log_next_ = 0;
}

aclError wait_interruptibly(const std::function<aclError(bool*)>& done, const std::function<aclError()>& finish) {
  if (!PyGILState_Check() || !in_main_thread()) return without_gil(finish);
  for (;;) {
    bool complete = false;
    const aclError asked = without_gil([&] { return poll(done, &complete, std::chrono::milliseconds(20)); });
    if (asked != ACL_SUCCESS || complete) return without_gil(finish);
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

void Stream::hold_until_done(py::handle obj) {
  // The same wait as a foreign buffer's owner: an event on this stream, collected once it passed.
  if (obj) Runtime::get().release_after(obj.inc_ref().ptr(), &handle_, 1);
}

void Stream::synchronize(const char* where) {
  Runtime& rt = Runtime::get();
  const auto query = rt.abi().aclrtStreamQuery;  // optional: without it, an uninterruptible wait
  const auto finish = [&] { return rt.abi().aclrtSynchronizeStream(handle_); };
  const aclError code = query == nullptr ? without_gil(finish) : wait_interruptibly(
      [&](bool* complete) {
        aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
        const aclError asked = query(handle_, &status);
        *complete = status == ACL_STREAM_STATUS_COMPLETE;
        return asked;
      }, finish);
  if (code == ACL_SUCCESS) {
    forget_launches();
    rt.collect_released();
    return;
  }
  throw rt.raising(attribute(code, rt.recent_error(), where));
}

namespace {

// Whether `message` names `api` as a word ("aclnnAdd" is not named by "aclnnAddmm failed").
bool names(const std::string& message, const char* api) {
  const size_t length = std::strlen(api);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = message.find(api); at != std::string::npos; at = message.find(api, at + 1)) {
    const bool starts = at == 0 || !word(message[at - 1]);
    const bool ends = at + length == message.size() || !word(message[at + length]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

bool Stream::find_launch(const void* executor, int64_t* call, const char** api) {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  for (const Launch& launch : log_) {
    if (launch.executor == executor) {
      *call = launch.call;
      *api = launch.api;
      return true;
    }
  }
  return false;
}

AclnnFailure Stream::attribute(aclError status, const std::string& message, const char* where) {
  std::string api;
  const void* executor = faulted_executor(handle_, &api);
  AclnnFailure failure{status, api, "device", message + " [reported by " + where + "]", -1};
  if (executor != nullptr) {
    // The simulator says which kernel failed: its launch is the one with that executor, in this
    // stream's log, or in another's when the fault came through an event (this stream waited for
    // work of that one).
    // (The simulator's executor handles are never reused: a slot and its generation.)
    Runtime& rt = Runtime::get();
    const char* launched_api = nullptr;
    bool found = find_launch(executor, &failure.call, &launched_api);
    for (const auto& other : rt.known_streams()) {
      if (found) break;
      if (other.get() != this) found = other->find_launch(executor, &failure.call, &launched_api);
    }
    if (found) rt.remember_faulted_launch(executor, failure.call, launched_api);
    else found = rt.faulted_launch(executor, &failure.call, &launched_api);
    if (found) failure.api = launched_api;
  }
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  if (executor == nullptr) {
    // CANN reports the failing kernel in its message only: a call is named when exactly one
    // launch since the last synchronisation is of the API the message names. Several: the API is
    // known, not which of its calls (a guess would point the user at the wrong line).
    const Launch* match = nullptr;
    size_t matches = 0;
    int64_t first = -1, last = -1;
    for (const Launch& launch : log_) {
      if (!names(message, launch.api)) continue;
      if (match != nullptr && std::strcmp(match->api, launch.api) != 0) {
        matches = 0;  // the message names two APIs: no attribution at all
        break;
      }
      match = &launch;
      ++matches;
      first = first < 0 ? launch.call : std::min(first, launch.call);
      last = std::max(last, launch.call);
    }
    if (matches >= 1) failure.api = match->api;
    if (matches == 1) failure.call = match->call;
    if (matches > 1) {
      failure.message += " (one of " + std::to_string(matches) + " calls of " + match->api + ", numbers " +
                         std::to_string(first) + " to " + std::to_string(last) +
                         ", since the last synchronisation; ACLNN_LAUNCH_BLOCKING=1 names the one)";
    }
  }
  log_.clear();
  log_next_ = 0;
  return failure;
}

Event::Event() {
  Runtime& rt = Runtime::get();
  rt.bind_thread(rt.device());
  rt.check(rt.abi().aclrtCreateEvent(&handle_), "", "aclrtCreateEvent");
}

Event::~Event() {
  if (handle_ != nullptr && Runtime::alive()) Runtime::get().abi().aclrtDestroyEvent(handle_);
}

void Event::record(const std::shared_ptr<Stream>& stream) {
  Runtime& rt = Runtime::get();
  rt.check(rt.abi().aclrtRecordEvent(handle_, stream->handle()), "", "aclrtRecordEvent");
  stream_ = stream;
}

void Event::synchronize() {
  Runtime& rt = Runtime::get();
  const aclError code = wait_interruptibly(
      [&](bool* complete) {
        aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        const aclError asked = rt.abi().aclrtQueryEventStatus(handle_, &status);
        *complete = status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
        return asked;
      },
      [&] { return rt.abi().aclrtSynchronizeEvent(handle_); });
  if (code == ACL_SUCCESS) return;
  const std::string message = rt.recent_error();
  if (auto stream = stream_.lock()) throw rt.raising(stream->attribute(code, message, "Event.synchronize()"));
  throw AclnnFailure{code, "", "device", message, -1};
}

bool Event::query() const {
  Runtime& rt = Runtime::get();
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  rt.check(rt.abi().aclrtQueryEventStatus(handle_, &status), "", "aclrtQueryEventStatus");
  return status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

double Event::elapsed_ms(const Event& end) const {
  Runtime& rt = Runtime::get();
  if (rt.abi().aclrtEventElapsedTime == nullptr)
    throw py::type_error("Event.elapsed_time: the backend has no aclrtEventElapsedTime");
  float ms = 0;
  rt.check(rt.abi().aclrtEventElapsedTime(&ms, handle_, end.handle_), "", "aclrtEventElapsedTime");
  return ms;
}

namespace {

int32_t device_or_current(const py::object& device) {
  return device.is_none() ? Runtime::get().device() : device.cast<int32_t>();
}

// `with aclnn.stream(s):` makes `s` the thread's current stream, and puts the previous one back.
struct StreamContext {
  std::shared_ptr<Stream> stream;
  std::shared_ptr<Stream> previous;
  bool entered = false;
};

}  // namespace

void bind_streams(py::module_& m) {
  py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream", R"doc(
A queue of device work (an aclrtStream). Calls made inside `with aclnn.stream(s):` are queued on
`s`; the work of one stream runs in order, different streams run concurrently. Events order them.

aclnn.Stream(device=None) creates one on the device (default: the current one), destroyed when the
last reference goes; Stream.from_handle(handle) wraps an aclrtStream made elsewhere (torch_npu's
`torch.npu.current_stream().npu_stream`, a framework's), which is never destroyed here.)doc")
      .def(py::init([](py::object device) { return Stream::create(device_or_current(device)); }),
           py::arg("device") = py::none())
      .def_static("from_handle", [](uintptr_t handle, py::object device) {
            if (handle == 0) throw py::value_error("Stream.from_handle: handle is 0 (a null aclrtStream)");
            return Stream::wrap(reinterpret_cast<aclrtStream>(handle), device_or_current(device));
          }, py::arg("handle"), py::arg("device") = py::none(),
          "Wraps an aclrtStream created elsewhere (an int, as torch_npu's stream.npu_stream); not destroyed here.")
      .def_property_readonly("handle", [](const Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); },
                             "The aclrtStream, as an int (for other libraries).")
      .def_property_readonly("device", &Stream::device)
      .def("synchronize", [](Stream& s) { s.synchronize("Stream.synchronize()"); },
           "Waits until every call queued on the stream has run; raises AclnnRuntimeError if a kernel failed.")
      .def("wait_event", [](Stream& s, Event& e) {
            Runtime& rt = Runtime::get();
            rt.check(rt.abi().aclrtStreamWaitEvent(s.handle(), e.handle()), "", "aclrtStreamWaitEvent");
          }, py::arg("event"), "Work queued on this stream from now on waits until `event` is reached.")
      .def("wait_stream", [](Stream& s, const std::shared_ptr<Stream>& other) {
            Event e;
            e.record(other);
            Runtime& rt = Runtime::get();
            rt.check(rt.abi().aclrtStreamWaitEvent(s.handle(), e.handle()), "", "aclrtStreamWaitEvent");
          }, py::arg("stream"), "Work queued on this stream from now on waits for the work queued on `stream` so far.")
      .def("record_event", [](const std::shared_ptr<Stream>& s, std::shared_ptr<Event> e) {
            if (!e) e = std::make_shared<Event>();
            e->record(s);
            return e;
          }, py::arg("event") = nullptr, "Records `event` (a new one by default) on this stream and returns it.")
      .def("query", [](const std::shared_ptr<Stream>& s) {
            Runtime& rt = Runtime::get();
            if (rt.abi().aclrtStreamQuery == nullptr)
              throw py::type_error("Stream.query: the backend has no aclrtStreamQuery");
            aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
            rt.check(rt.abi().aclrtStreamQuery(s->handle(), &status), "", "aclrtStreamQuery");
            return status == ACL_STREAM_STATUS_COMPLETE;
          }, "Whether the stream has run everything queued on it so far (does not wait).")
      .def("__eq__", [](const Stream& a, const Stream& b) { return a.handle() == b.handle(); }, py::is_operator())
      .def("__hash__", [](const Stream& s) { return std::hash<const void*>()(s.handle()); })
      .def("__repr__", [](const Stream& s) {
        char text[96];
        std::snprintf(text, sizeof text, "aclnn.Stream(handle=0x%zx, device=%d%s)",
                      reinterpret_cast<size_t>(s.handle()), s.device(), s.owned() ? "" : ", foreign");
        return std::string(text);
      });

  py::class_<Event, std::shared_ptr<Event>>(m, "Event", R"doc(
A point in a stream's queue (an aclrtEvent): record() marks it, a stream may wait for it
(Stream.wait_event), the host may wait for it (synchronize) or ask (query).)doc")
      .def(py::init([] { return std::make_shared<Event>(); }))
      .def_property_readonly("handle", [](const Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); })
      .def("record", [](const std::shared_ptr<Event>& e, std::shared_ptr<Stream> stream) {
            e->record(stream ? stream : Runtime::get().current_stream());
            return e;
          }, py::arg("stream") = nullptr, "Records the event on `stream` (default: the current stream).")
      .def("wait", [](Event& e, std::shared_ptr<Stream> stream) {
            Runtime& rt = Runtime::get();
            Stream& s = stream ? *stream : rt.stream();
            rt.check(rt.abi().aclrtStreamWaitEvent(s.handle(), e.handle()), "", "aclrtStreamWaitEvent");
          }, py::arg("stream") = nullptr, "Makes `stream` (default: the current one) wait for the event.")
      .def("synchronize", &Event::synchronize,
           "Waits until the event is reached; raises AclnnRuntimeError if a kernel before it failed.")
      .def("query", &Event::query, "Whether the event has been reached (does not wait).")
      .def("elapsed_time", &Event::elapsed_ms, py::arg("end"),
           "Milliseconds between this event and `end`, both reached.");

  py::class_<StreamContext>(m, "_StreamContext")
      .def("__enter__", [](StreamContext& c) -> py::object {
        if (c.entered) throw py::type_error("aclnn.stream(...) is already entered");
        c.entered = true;
        if (!c.stream) return py::none();
        c.previous = Runtime::get().exchange_thread_stream(c.stream);
        return py::cast(c.stream);
      })
      .def("__exit__", [](StreamContext& c, py::args) {
        if (c.stream) Runtime::get().exchange_thread_stream(std::move(c.previous));
        c.entered = false;
        return false;
      });

  m.def("stream", [](std::shared_ptr<Stream> s) { return StreamContext{std::move(s), nullptr, false}; },
        py::arg("stream"),
        "Context manager: calls inside `with aclnn.stream(s):` are queued on `s` (None: unchanged).");
  m.def("current_stream", [] { return Runtime::get().current_stream(); },
        "The calling thread's current stream: the one `with aclnn.stream(...)` set, else the device's default stream.");
  m.def("default_stream", [](py::object device) { return Runtime::get().default_stream(device_or_current(device)); },
        py::arg("device") = py::none(), "The default stream of a device (shared by every thread).");
  m.def("synchronize", [] { Runtime::get().synchronize_device("aclnn.synchronize()"); },
        "Waits until the current device has run everything queued on any stream (aclrtSynchronizeDevice); raises "
        "AclnnRuntimeError if a kernel failed.");
}

}  // namespace aclnn_binding
