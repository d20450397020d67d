// libascendcl's streams: their handles (a live stream, or the current device's default one),
// creation, destruction, attributes and synchronisation (a stream's, the device's, bounded by a
// time-out), the faults a synchronisation reports, and the queued copies, fills and kernel
// launches the rest of the runtime hands them (streams.h).
#include "ascendcl/streams.h"
#include "ascendcl/stream_state.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn_sim.h"
#include "ascendcl/settings.h"

namespace aclsim {

aclError Resolve(aclrtStream stream, const char* api, std::shared_ptr<StreamState>* out) {
  Streams& state = State();
  if (stream) {
    *out = state.streams.Find(stream);
    if (!*out) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is not a live stream");
    return ACL_SUCCESS;
  }
  int32_t device;
  if (!CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  }
  std::lock_guard<std::mutex> lock(state.defaults_mutex);
  auto& slot = state.defaults[device];
  if (!slot) slot = std::make_shared<StreamState>(device);
  *out = slot;
  return ACL_SUCCESS;
}

aclError TakeFault(StreamState& s, const char* api) {
  Fault fault;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.pending.status == 0) return ACL_SUCCESS;
    fault = std::move(s.pending);
    s.pending = Fault{};
    s.faulted.store(false, std::memory_order_release);
    s.reported = fault;
  }
  // Work the simulator has no kernel for (opapi/work.h NotSimulatedWork) did not fail on a device.
  const char* failed = fault.status == ACLNN_ERR_INNER_FIND_KERNEL_ERROR ? " has no kernel in the simulator"
                                                                         : " failed on the device";
  if (fault.unmet_wait) {
    return Fail(fault.status, std::string(api) + ": a wait queued on this stream cannot end (work queued behind it "
                                                 "was discarded): " + fault.message);
  }
  if (fault.through_event) {
    return Fail(fault.status, std::string(api) + ": a kernel of " + fault.api + " queued on another stream" + failed +
                                  ", and this stream waited for it through an event (work queued behind the wait was "
                                  "discarded): " + fault.message);
  }
  return Fail(fault.status, std::string(api) + ": a kernel of " + fault.api + " queued on this stream" + failed +
                                " (work queued behind it was discarded): " + fault.message);
}

namespace {

// The fault the calling thread's last synchronisation of a stream reported (status 0: none), with
// that call's message: owed to its next synchronous copy too (TakeFaultOwedToCopy).
thread_local Fault t_owed_to_copy;

// A stream's synchronisation's status, its fault owed to the thread's next copy.
aclError OweToNextCopy(aclError status) {
  t_owed_to_copy = Fault{};
  if (status != ACL_SUCCESS) {
    t_owed_to_copy.status = status;
    t_owed_to_copy.message = aclGetRecentErrMsg();
  }
  return status;
}

aclError Synchronize(const std::shared_ptr<StreamState>& s, const char* api) {
  ForgetFaultOwedToCopy();
  if (aclError status = RefuseWhileCaptured(*s, api)) return status;
  const aclError stalled = Drain(s, api);
  State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  // A copy after it would read what the stalled work was to write.
  return OweToNextCopy(stalled ? stalled : TakeFault(*s, api));
}

}  // namespace

void ForgetFaultOwedToCopy() { t_owed_to_copy = Fault{}; }

aclError TakeFaultOwedToCopy(const char* api, aclrtMemcpyKind kind) {
  if (t_owed_to_copy.status == 0) return ACL_SUCCESS;
  const Fault owed = std::move(t_owed_to_copy);
  t_owed_to_copy = Fault{};
  if (kind != ACL_MEMCPY_DEVICE_TO_HOST) return ACL_SUCCESS;
  return Fail(owed.status, std::string(api) + ": nothing copied: the synchronisation of the stream before it failed, what it "
                                              "waited for not written (" + owed.message + ")");
}

aclError SynchronizeWithin(const std::shared_ptr<StreamState>& s, int32_t timeout, const char* api) {
  if (timeout == -1) return Synchronize(s, api);
  ForgetFaultOwedToCopy();
  if (aclError status = RefuseWhileCaptured(*s, api)) return status;
  // acl_rt.h: "-1 means waiting indefinitely, 0 means check whether synchronization is complete immediately".
  if (timeout < 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": timeout must be -1 or a number of ms, not " + std::to_string(timeout));
  if (!DrainBefore(s, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout))) {
    return Fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, std::string(api) + ": the stream's queued work did not finish within " +
                                                      std::to_string(timeout) + " ms");
  }
  State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  return OweToNextCopy(TakeFault(*s, api));
}

std::vector<std::shared_ptr<StreamState>> StreamsOf(int32_t device, bool take) {
  Streams& state = State();
  std::vector<uintptr_t> handles;
  state.streams.ForEach([&](uintptr_t handle, const StreamState& s) {
    if (device < 0 || s.device == device) handles.push_back(handle);
  });
  std::vector<std::shared_ptr<StreamState>> out;
  for (uintptr_t handle : handles) {
    auto s = take ? state.streams.Take(reinterpret_cast<void*>(handle)) : state.streams.Find(reinterpret_cast<void*>(handle));
    if (s) out.push_back(std::move(s));
  }
  std::lock_guard<std::mutex> lock(state.defaults_mutex);
  for (auto it = state.defaults.begin(); it != state.defaults.end();) {
    if (device >= 0 && it->first != device) {
      ++it;
      continue;
    }
    out.push_back(it->second);
    it = take ? state.defaults.erase(it) : std::next(it);
  }
  return out;
}

namespace {

// A copy or a fill (`task`, of `task.count` bytes) queued on the stream `stream` names.
aclError EnqueueMemoryTask(aclrtStream stream, Task&& task) {
  std::shared_ptr<StreamState> s;
  if (aclError status = Resolve(stream, task.api, &s)) return status;
  if (task.count == 0) return ACL_SUCCESS;
  return Enqueue(s, std::move(task));
}

}  // namespace

aclError EnqueueCopy(aclrtStream stream, const char* api, void* dst, const void* src, size_t count) {
  Task task;
  task.kind = Task::Kind::kCopy;
  task.api = api;
  task.dst = dst;
  task.src = src;
  task.count = count;
  return EnqueueMemoryTask(stream, std::move(task));
}

aclError EnqueueFill(aclrtStream stream, const char* api, void* dst, int32_t value, size_t count) {
  Task task;
  task.kind = Task::Kind::kFill;
  task.api = api;
  task.dst = dst;
  task.value = value;
  task.count = count;
  return EnqueueMemoryTask(stream, std::move(task));
}

aclError EnqueueValueWrite(aclrtStream stream, const char* api, void* word, uint64_t value) {
  std::shared_ptr<StreamState> s;
  if (aclError status = Resolve(stream, api, &s)) return status;
  Task task;
  task.kind = Task::Kind::kValueWrite;
  task.api = api;
  task.dst = word;
  task.word = value;
  return Enqueue(s, std::move(task));
}

aclError EnqueueValueWait(aclrtStream stream, const char* api, void* word, uint64_t value, uint32_t mode) {
  std::shared_ptr<StreamState> s;
  if (aclError status = Resolve(stream, api, &s)) return status;
  if (Settings().synchronous && !CaptureOf(*s) &&
      !ValueReached(__atomic_load_n(static_cast<const uint64_t*>(word), __ATOMIC_ACQUIRE), value, mode)) {
    // The calling thread would run the wait itself, and hold until a write it could never make.
    return FailNotModelled(api, std::string(api) + ": not modelled by the simulator in synchronous mode "
                                "(ACLNN_SIM_SYNC=1) for a word that does not satisfy the wait yet: the calling thread, "
                                "running the wait itself, could never write it");
  }
  Task task;
  task.kind = Task::Kind::kValueWait;
  task.api = api;
  task.dst = word;
  task.word = value;
  task.wait_mode = mode;
  return Enqueue(s, std::move(task));
}

aclError CheckStream(aclrtStream stream, const char* api) {
  std::shared_ptr<StreamState> s;
  return Resolve(stream, api, &s);
}

aclError WaitForUsers(uintptr_t begin, uintptr_t end, const char* api) {
  for (const auto& self : StreamsOf(-1, false)) {
    StreamState& s = *self;
    std::unique_lock<std::mutex> lock(s.mutex);
    uint64_t last = 0;
    if (s.running && s.running->Touches(begin, end)) last = s.running->ticket;
    s.queue.ForEach([&](const Task& task) {
      if (task.Touches(begin, end)) last = task.ticket;
    });
    if (last == 0) continue;
    if (!s.queue.empty() && s.worker_sleeping) s.wake.notify_one();
    ++s.waiters;
    std::string stall;
    const bool done = WaitUnlessStalled(lock, s.idle, &s, [&] { return s.completed.load(std::memory_order_acquire) >= last; },
                                        [&] { return StallOf(self); }, &stall);
    --s.waiters;
    State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
    if (!done) {
      lock.unlock();
      return FailStalled(ACL_ERROR_RT_STREAM_NOT_COMPLETE,
                         std::string(api) + ": queued work that uses the memory cannot finish", stall,
                         "nothing was released: the work may still run and use it");
    }
  }
  return ACL_SUCCESS;
}

aclError ReleaseStreams(int32_t device, const char* api) {
  aclError first = ACL_SUCCESS;
  std::string message;
  for (const auto& s : StreamsOf(device, true)) {
    AbandonRecording(*s, "the device's reset (aclrtResetDevice, aclFinalize)");
    if (aclError stalled = Drain(s, api); stalled != ACL_SUCCESS) {
      // acl_rt.h: the reset waits for the queued work, and this work can never run: it goes with the
      // device, and the reset says so (the first stall it met; the device is reset all the same).
      if (first == ACL_SUCCESS) {
        first = stalled;
        message = std::string(aclGetRecentErrMsg()) + "; the device was reset all the same, the work discarded";
      }
      DropQueuedWork(s, api);
    }
    s->Stop();
  }
  if (first != ACL_SUCCESS) SetError(message);
  return first;
}

StreamCounts GetStreamCounts() {
  Streams& state = State();
  return StreamCounts{state.streams.size(), state.events.size(), state.stream_syncs.load(), state.device_syncs.load(),
                      state.kernels_launched.load(), state.events_recorded.load()};
}

bool IsLiveStream(aclrtStream stream) { return State().streams.Find(stream) != nullptr; }

aclnnStatus LaunchKernel(aclrtStream stream, std::shared_ptr<Executor> executor, void* workspace) {
  const SimSettings& settings = Settings();
  if (!settings.valid()) return Fail(ACLNN_ERR_RUNTIME_ERROR, std::string(executor->api) + ": " + settings.error);
  std::shared_ptr<StreamState> s;
  if (Resolve(stream, executor->api, &s) != ACL_SUCCESS) {
    // aclnn reports a bad stream as a bad argument of the op (the message is set).
    return stream ? ACLNN_ERR_PARAM_INVALID : ACLNN_ERR_RUNTIME_ERROR;
  }
  Task task;
  task.kind = Task::Kind::kKernel;
  task.api = executor->api;
  task.workspace = workspace;
  for (const auto& target : settings.faults) {
    if (target->api != executor->api) continue;
    task.launch = target->seen.fetch_add(1) + 1;
    task.inject_fault = task.launch == target->launch;
  }
  task.executor = std::move(executor);
  RegisterForkHandlers();  // after OpenBLAS's: libopapi, which loads it, is launching
  State().kernels_launched.fetch_add(1, std::memory_order_relaxed);
  const aclError status = Enqueue(s, std::move(task));
  return status == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

namespace {

aclError CreateStream(aclrtStream* stream, uint32_t priority, uint32_t flag, const char* api) {
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is a null pointer");
  if (priority > 7) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": priority must be in 0..7, not " + std::to_string(priority));
  constexpr uint32_t kKnownFlags = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT |
                                   ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  if (flag & ~kKnownFlags) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown stream flags " + std::to_string(flag));
  if (flag & ACL_STREAM_PERSISTENT) {
    // A persistent stream keeps its tasks for model capture and replay, which is not modelled.
    return aclsim::FailNotModelled(api, std::string(api) + ": ACL_STREAM_PERSISTENT (model capture) is not modelled by the simulator");
  }
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  }
  auto s = std::make_shared<aclsim::StreamState>(device);
  aclsim::StreamState* raw = s.get();
  raw->priority = priority;
  raw->flags = flag;
  const uintptr_t handle = aclsim::State().streams.Add(std::move(s));
  raw->handle = handle;  // before the handle is known to anyone: no worker runs yet
  *stream = reinterpret_cast<aclrtStream>(handle);
  return ACL_SUCCESS;
}

}  // namespace

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  return aclsim::CreateStream(stream, priority, flag, "aclrtCreateStreamWithConfig");
}

aclError aclrtCreateStream(aclrtStream* stream) {
  // The default priority and flags (acl_rt.h: "stream priority, 0 by default").
  return aclsim::CreateStream(stream, 0, 0, "aclrtCreateStream");
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce: stream is a null pointer");
  auto s = aclsim::State().streams.Take(stream);
  if (!s) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce: not a live stream");
  // A forced destruction always succeeds: a capture or an update on the stream ends with it.
  aclsim::AbandonRecording(*s, "aclrtDestroyStreamForce");
  // The tasks not yet run are dropped (acl_rt.h: destroyed "without waiting for the tasks"); the
  // one running finishes, as a device's would, unless it is a wait, which gives up.
  aclsim::DropQueuedWork(s, "aclrtDestroyStreamForce");
  s->Stop();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSynchronizeStreamWithTimeout", &s)) return status;
  return aclsim::SynchronizeWithin(s, timeout, "aclrtSynchronizeStreamWithTimeout");
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  constexpr const char* api = "aclrtSynchronizeDeviceWithTimeout";
  if (timeout == -1) return aclrtSynchronizeDevice();
  aclsim::ForgetFaultOwedToCopy();
  if (int32_t held = aclsim::TakeHeldRefusal(api)) return held;
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  if (timeout <= 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": timeout must be -1 or a positive number of ms");
  const auto streams = aclsim::StreamsOf(device, false);
  if (aclError status = aclsim::RefuseDuringCapture(streams, api)) return status;
  aclsim::State().device_syncs.fetch_add(1, std::memory_order_relaxed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  for (const auto& s : streams) {
    if (!aclsim::DrainBefore(s, deadline)) {
      return Fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, std::string(api) + ": the device's queued work did not finish within " +
                                                        std::to_string(timeout) + " ms");
    }
  }
  for (const auto& s : streams) {
    if (aclError status = aclsim::TakeFault(*s, api)) return status;
  }
  return ACL_SUCCESS;
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t* streamId) {
  if (!streamId) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamGetId: streamId is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtStreamGetId", &s)) return status;
  // The registry slot of a created stream (distinct among live streams); 0 for a default stream.
  *streamId = static_cast<int32_t>(s->handle & 0x7fffffff);
  return ACL_SUCCESS;
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamFailureMode: unknown mode " + std::to_string(mode));
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSetStreamFailureMode", &s)) return status;
  s->failure_mode.store(mode);
  return ACL_SUCCESS;
}

aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag) {
  if (flag > 1) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamOverflowSwitch: flag must be 0 or 1");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSetStreamOverflowSwitch", &s)) return status;
  s->overflow_switch.store(flag);
  return ACL_SUCCESS;
}

aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t* flag) {
  if (!flag) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetStreamOverflowSwitch: flag is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtGetStreamOverflowSwitch", &s)) return status;
  *flag = s->overflow_switch.load();
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  constexpr const char* api = "aclrtDestroyStream";
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is a null pointer");
  auto s = aclsim::State().streams.Find(stream);
  if (!s) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live stream (destroyed twice, or its device was reset?)");
  }
  // acl_rt.h asks for aclrtSynchronizeStream before a destruction, which a stream being captured
  // refuses: so does its destruction (the capture is invalidated, as by a synchronisation; end it
  // with aclmdlRICaptureEnd, then destroy the stream). An open update is ended by its owner first too.
  // The queued work finishes first (CANN asks callers to synchronise before destroying), while the
  // stream is still live. Work that cannot finish without a host call (stalls.cpp) keeps its stream:
  // the call may still come, and aclrtDestroyStreamForce drops the work.
  for (bool destroying = false;; destroying = true) {
    std::shared_ptr<aclsim::ModelState> capture;
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      if (s->update) {
        return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is updating a task group "
                                                       "(end the update with aclmdlRICaptureTaskUpdateEnd first)");
      }
      capture = s->capture;
      if (!capture && destroying) s->destroyed = true;
    }
    if (capture) {
      aclsim::Invalidate(*capture, api);
      return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is being captured (aclmdlRICaptureBegin): "
                                                                   "end the capture with aclmdlRICaptureEnd first; the capture is invalidated");
    }
    if (destroying) break;
    if (s->completed.load() != s->enqueued.load()) {
      aclsim::State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
      if (aclError stalled = aclsim::Drain(s, api, "the stream is not destroyed: the call its work waits for still "
                                                   "releases it, and aclrtDestroyStreamForce drops the work")) {
        return stalled;
      }
    }
  }
  if (!aclsim::State().streams.Take(stream)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live stream (destroyed twice, or its device was reset?)");
  }
  // Work another thread launched meanwhile finishes too; if it cannot, it goes with the stream.
  if (s->completed.load() != s->enqueued.load() && aclsim::Drain(s, api) != ACL_SUCCESS) aclsim::DropQueuedWork(s, api);
  s->Stop();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSynchronizeStream", &s)) return status;
  return aclsim::Synchronize(s, "aclrtSynchronizeStream");
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  if (!status) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError code = aclsim::Resolve(stream, "aclrtStreamQuery", &s)) return code;
  if (aclError code = aclsim::RefuseWhileCaptured(*s, "aclrtStreamQuery")) return code;
  *status = s->completed.load(std::memory_order_acquire) >= s->enqueued.load(std::memory_order_acquire)
                ? ACL_STREAM_STATUS_COMPLETE
                : ACL_STREAM_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  aclsim::ForgetFaultOwedToCopy();
  if (int32_t held = aclsim::TakeHeldRefusal("aclrtSynchronizeDevice")) return held;
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeDevice: no device is set (call aclrtSetDevice first)");
  }
  const auto streams = aclsim::StreamsOf(device, false);
  if (aclError status = aclsim::RefuseDuringCapture(streams, "aclrtSynchronizeDevice")) return status;
  aclsim::State().device_syncs.fetch_add(1, std::memory_order_relaxed);
  aclError first = ACL_SUCCESS;
  std::string message;
  for (const auto& s : streams) {
    const aclError stalled = aclsim::Drain(s, "aclrtSynchronizeDevice");
    const aclError status = stalled ? stalled : aclsim::TakeFault(*s, "aclrtSynchronizeDevice");
    if (status != ACL_SUCCESS && first == ACL_SUCCESS) {
      first = status;
      message = aclGetRecentErrMsg();
    }
  }
  if (first != ACL_SUCCESS) aclsim::SetError(message);
  return first;
}

int aclsimHoldStream(void* stream, int hold) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclsim::Resolve(stream, "aclsimHoldStream", &s) != ACL_SUCCESS) return 1;
  if (aclsim::Settings().synchronous) return 1;  // tasks run in the launching call: nothing to hold
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    s->held = hold != 0;
  }
  s->wake.notify_all();
  return 0;
}

int aclsimLendThread(void) { return aclsim::HelpKernel() ? 1 : 0; }

int aclsimLastFault(void* stream, aclsimFault* out) {
  if (!out) return 1;
  std::shared_ptr<aclsim::StreamState> s;
  if (aclsim::Resolve(stream, "aclsimLastFault", &s) != ACL_SUCCESS) return 1;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->reported.status == 0) return 1;
  *out = aclsimFault{};
  std::strncpy(out->api, s->reported.api.c_str(), sizeof(out->api) - 1);
  out->executor = s->reported.executor;
  out->launch = s->reported.launch;
  out->status = s->reported.status;
  return 0;
}

aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue* value) {
  constexpr const char* api = "aclrtSetStreamAttribute";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
      return aclrtSetStreamFailureMode(stream, value->failureMode);
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
      return aclrtSetStreamOverflowSwitch(stream, value->overflowSwitch);
    default:
      break;
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  switch (stmAttrType) {
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
      s->custom_tag = value->userCustomTag;
      return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
      if (value->cacheOpInfoSwitch > 1) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": cacheOpInfoSwitch must be 0 or 1");
      s->cache_op_info = value->cacheOpInfoSwitch;
      return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY:
      if (value->streamPriority > 7) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": streamPriority must be in 0..7");
      s->priority = value->streamPriority;
      return ACL_SUCCESS;
    default:
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtStreamAttr " + std::to_string(static_cast<int>(stmAttrType)));
  }
}

aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue* value) {
  constexpr const char* api = "aclrtGetStreamAttribute";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  *value = aclrtStreamAttrValue{};
  std::lock_guard<std::mutex> lock(s->mutex);
  switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE: value->failureMode = s->failure_mode.load(); return ACL_SUCCESS;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: value->overflowSwitch = s->overflow_switch.load(); return ACL_SUCCESS;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: value->userCustomTag = s->custom_tag; return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: value->cacheOpInfoSwitch = s->cache_op_info; return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY: value->streamPriority = s->priority; return ACL_SUCCESS;
    default:
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtStreamAttr " + std::to_string(static_cast<int>(stmAttrType)));
  }
}

// Stream core limits: kept, read back and checked against the device's, as aclrtSetDeviceResLimit's are
// (device.cpp), and changing no result. A thread that uses a stream's (aclrtUseStreamResInCurrentThread)
// reads them as its own.
namespace {

thread_local std::weak_ptr<aclsim::StreamState> t_res_stream;

// The limit of `type` on `s`: its own, else its device's.
aclError StreamResLimit(aclsim::StreamState& s, aclrtDevResLimitType type, uint32_t* value, const char* api) {
  if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtDevResLimitType " + std::to_string(static_cast<int>(type)));
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    *value = s.res_limits[type];
  }
  return *value ? ACL_SUCCESS : aclsim::DeviceResLimit(s.device, type, value, api);
}

}  // namespace

aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t* value) {
  constexpr const char* api = "aclrtGetStreamResLimit";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  return StreamResLimit(*s, type, value, api);
}

aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value) {
  constexpr const char* api = "aclrtSetStreamResLimit";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  if (aclError status = aclsim::CheckResLimit(type, value, api)) return status;
  uint32_t device_limit = 0;
  if (aclError status = aclsim::DeviceResLimit(s->device, type, &device_limit, api)) return status;
  if (value > device_limit) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": a limit of " + std::to_string(value) +
                                             " cores is above the device's limit of " + std::to_string(device_limit) +
                                             " (aclrtSetDeviceResLimit)");
  }
  std::lock_guard<std::mutex> lock(s->mutex);
  s->res_limits[type] = value;
  return ACL_SUCCESS;
}

aclError aclrtResetStreamResLimit(aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtResetStreamResLimit", &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  s->res_limits[ACL_RT_DEV_RES_CUBE_CORE] = s->res_limits[ACL_RT_DEV_RES_VECTOR_CORE] = 0;
  return ACL_SUCCESS;
}

aclError aclrtUseStreamResInCurrentThread(aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtUseStreamResInCurrentThread", &s)) return status;
  t_res_stream = s;
  return ACL_SUCCESS;
}

aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream) {
  constexpr const char* api = "aclrtUnuseStreamResInCurrentThread";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  if (t_res_stream.lock() != s) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the calling thread does not use this stream's resources "
                                                            "(aclrtUseStreamResInCurrentThread)");
  }
  t_res_stream.reset();
  return ACL_SUCCESS;
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t* value) {
  constexpr const char* api = "aclrtGetResInCurrentThread";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  if (auto s = t_res_stream.lock()) return StreamResLimit(*s, type, value, api);
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  }
  return aclsim::DeviceResLimit(device, type, value, api);
}

}  // extern "C"
