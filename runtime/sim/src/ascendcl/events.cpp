// libascendcl's events: a record is a new version of the event reached when its stream runs it, a
// wait holds a stream until the version recorded before it is reached; a record behind a kernel
// fault carries the fault to the streams that wait for it (streams.h). Timestamps, queries and
// synchronisation on them. A reset (aclrtResetEvent) clears the event in its stream's order, as
// acl_rt.h documents it: once reached, the event reads as not recorded until a later record is
// reached, and a stream wait queued after it waits for the next record, as a device's wait does for
// an event whose flag was cleared.
#include "ascendcl/stream_state.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "acl/acl.h"
#include "ascendcl/settings.h"
#include "ascendcl/streams.h"

namespace aclsim {

void CompleteEvent(EventState& event, uint64_t version, const std::shared_ptr<StreamState>& faulted, const Fault& fault) {
  {
    std::lock_guard<std::mutex> lock(event.mutex);
    if (version > event.completed) {
      event.completed = version;
      event.when = std::chrono::steady_clock::now();
      event.faulted_stream = faulted;
    }
    if (fault.status != 0) {
      auto& kept = event.faulted_versions;
      if (kept.size() == kFaultedVersions) kept.erase(kept.begin());
      kept.emplace_back(version, fault);
    }
  }
  event.reached.notify_all();
  if (event.shared) {
    const std::string where = fault.status ? fault.message + " (in process " + std::to_string(getpid()) + ")" : "";
    event.shared->Complete(version, fault.status, fault.api.c_str(), where);
  }
}

namespace {

// The fault the reached record `version` ran behind (status 0: none). Requires the event's mutex.
Fault FaultOfRecord(const EventState& event, uint64_t version) {
  for (const auto& [faulted, fault] : event.faulted_versions) {
    if (faulted == version) return fault;
  }
  return Fault{};
}

}  // namespace

Fault WaitForEvent(StreamState& s, EventState& event, uint64_t version) {
  if (event.shared) {  // the version may be another process's record: the shared counters say
    Fault fault;
    fault.status = event.shared->Wait(version, &fault.api, &fault.message);
    return fault;
  }
  std::unique_lock<std::mutex> lock(event.mutex);
  // DropQueuedWork sets discard_all, then notifies under this mutex: no wake-up is lost.
  event.reached.wait(lock, [&] { return event.completed >= version || s.discard_all.load(std::memory_order_relaxed); });
  return event.completed >= version ? FaultOfRecord(event, version) : Fault{};
}

Fault WaitForFutureRecord(StreamState& s, EventState& event, uint64_t version) {
  // The stream's stop and forced destruction notify its own conditions, not the event's: checked
  // between bounded waits, as aclrtValueWait's poll does (stream_worker.cpp WaitForValue).
  std::unique_lock<std::mutex> lock(event.mutex);
  while (event.completed < version) {
    if (event.destroyed && event.recorded < version) {
      // Work queued behind the wait depends on a record that can no longer be made: it must not run
      // as if it had been (its kernels would read what that record's stream never wrote).
      Fault unmet{ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtStreamWaitEvent",
                  "aclrtStreamWaitEvent: the event was reset (aclrtResetEvent) and destroyed before the record "
                  "this wait waits for was made"};
      unmet.unmet_wait = true;
      return unmet;
    }
    lock.unlock();
    {
      std::lock_guard<std::mutex> stream_lock(s.mutex);
      if (s.stop || s.discard_all.load(std::memory_order_relaxed)) return Fault{};
    }
    lock.lock();
    event.reached.wait_for(lock, std::chrono::milliseconds(1));
  }
  return FaultOfRecord(event, version);
}

void ResetEvent(EventState& event, uint64_t version) {
  std::lock_guard<std::mutex> lock(event.mutex);
  event.reset_reached = true;
  // Resets on different streams may be reached out of the host's order: the latest one counts.
  if (version > event.reset_version) event.reset_version = version;
}

namespace {

// An event whose latest record was captured has not been reached and cannot be (until the model
// runs): waiting for it or timing it fails. Requires the event's mutex.
aclError RefuseCapturedRecord(const EventState& e, const char* api) {
  if (!e.record_captured) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_EVENT_CAPTURED, std::string(api) + ": the event's latest record was captured into a model "
                                                               "(aclmdlRICaptureBegin) and runs only when the model is executed");
}

// Whether a reset reached in stream order cleared the event and no later record has been reached:
// it reads as never recorded. Requires the event's mutex.
bool ClearedByReset(const EventState& e) { return e.reset_reached && e.completed <= e.reset_version; }

// A timing call on an event a reset cleared: the record it would time is gone. Requires the event's mutex.
aclError RefuseTimingReset(const EventState& e, const std::string& what) {
  if (!ClearedByReset(e)) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, what + " was reset (aclrtResetEvent) and no record has been reached since");
}

// An event shared between processes is not timed: its latest record may be another process's, whose
// time this one never saw (CUDA, too, times no interprocess event). Requires the event's mutex.
aclError RefuseTimingShared(const EventState& e, const char* api) {
  if (!e.shared) return ACL_SUCCESS;
  return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator for an event shared "
                                      "between processes (ACL_EVENT_IPC): timing it");
}

// A record of `event` on `stream` (a new version of the event), or a wait of `stream` for the
// event's latest record (nothing to wait for when it was never recorded).
aclError QueueEventTask(aclrtEvent event, aclrtStream stream, Task::Kind kind, const char* api) {
  auto e = event ? State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": event is not a live event");
  std::shared_ptr<StreamState> s;
  if (aclError status = Resolve(stream, api, &s)) return status;
  if (UpdateOpen(*s)) return RefuseInUpdate(kind, api);  // before a wait could make the stream join a capture
  Task task;
  task.kind = kind;
  task.api = api;
  task.event = e;
  // Into a capture, a record or a wait is numbered when the model is executed (ReplayModel).
  std::shared_ptr<ModelState> capture = CaptureOf(*s);
  std::shared_ptr<ModelState> join;
  if (e->shared && capture) {
    return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator: a record of or a "
                                        "wait for an event shared between processes (ACL_EVENT_IPC) in a capture");
  }
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (kind == Task::Kind::kRecord) {
      e->record_captured = capture != nullptr;
      e->captured_into = capture;
      e->reset_queued = false;
      if (!capture) task.version = e->recorded = e->shared ? e->shared->Record() : e->recorded + 1;
    } else if (e->shared) {
      task.version = e->shared->Latest();
    } else if (e->reset_queued) {
      // Reset since its latest record: the wait is for the next record, which the host has not made yet.
      if (capture) {
        return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator: a wait, in a "
                                            "capture, for an event reset (aclrtResetEvent) since its latest record");
      }
      if (Settings().synchronous) {
        return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator in synchronous mode "
                                            "(ACLNN_SIM_SYNC=1): the event was reset (aclrtResetEvent) since its "
                                            "latest record, so the wait is for a record not made yet, which the "
                                            "calling thread, running the wait itself, could never make");
      }
      task.version = e->recorded + 1;
      task.future = true;
    } else {
      if (e->record_captured && !capture) {
        join = e->captured_into.lock();
        if (!join) {
          return Fail(ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                      std::string(api) + ": the event's latest record was captured into a model whose capture has "
                                         "ended: it runs only when the model is executed");
        }
      }
      task.version = e->recorded;
    }
  }
  if (join) {
    // The stream joins the capture (as on CUDA): this wait and its later work go into the model.
    {
      std::lock_guard<std::mutex> lock(join->mutex);
      if (join->ended || !join->invalidated_by.empty()) {
        return Fail(ACL_ERROR_RT_CAPTURE_DEPENDENCY, std::string(api) + ": the event's latest record was captured into a "
                                                                         "model that is no longer being captured");
      }
      join->joined.push_back(s);
    }
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->capture) return Fail(ACL_ERROR_RT_CAPTURE_DEPENDENCY, std::string(api) + ": the stream is being captured into another model");
    s->capture = join;
    s->capturing.store(true, std::memory_order_release);
    capture = join;
  }
  const bool captured = capture != nullptr;
  if (captured) return Enqueue(s, std::move(task));
  if (kind == Task::Kind::kRecord) State().events_recorded.fetch_add(1, std::memory_order_relaxed);
  else if (task.version == 0) return ACL_SUCCESS;
  return Enqueue(s, std::move(task));
}

// Whether the event's latest record, in any process that shares it, has been reached (and not
// cleared by a reset since). Requires its mutex.
bool LatestReached(const EventState& e) {
  return e.shared ? e.shared->Reached(e.shared->Latest()) : e.completed >= e.recorded && !ClearedByReset(e);
}

aclError CreateEventWithFlag(aclrtEvent* event, uint32_t flag, const char* api) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": event is a null pointer");
  constexpr uint32_t kKnown = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                              ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;
  if (flag & ~kKnown) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown event flags " + std::to_string(flag));
  // Every simulated event can be synchronised on and timed: the other flags select hardware
  // resources that the simulator does not distinguish. An IPC event's versions live in shared memory.
  auto state = std::make_shared<EventState>(flag);
  if ((flag & ACL_EVENT_IPC) && !(state->shared = SharedEvent::Create(api))) return ACL_ERROR_RT_MEMORY_ALLOCATION;
  *event = reinterpret_cast<aclrtEvent>(State().events.Add(std::move(state)));
  return ACL_SUCCESS;
}

}  // namespace

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is a null pointer");
  *event = reinterpret_cast<aclrtEvent>(aclsim::State().events.Add(std::make_shared<aclsim::EventState>()));
  return ACL_SUCCESS;
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return aclsim::CreateEventWithFlag(event, flag, "aclrtCreateEventWithFlag");
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return aclsim::CreateEventWithFlag(event, flag, "aclrtCreateEventExWithFlag");
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  if (!status) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is a null pointer");
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: event is not a live event");
  std::lock_guard<std::mutex> lock(e->mutex);
  if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtQueryEventWaitStatus")) return refused;
  // A wait for the event is satisfied once its latest record has been reached.
  *status = aclsim::LatestReached(*e) ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  if (!timestamp) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: timestamp is a null pointer");
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: event is not a live event");
  std::lock_guard<std::mutex> lock(e->mutex);
  if (aclError refused = aclsim::RefuseTimingShared(*e, "aclrtEventGetTimestamp")) return refused;
  if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtEventGetTimestamp")) return refused;
  if (aclError refused = aclsim::RefuseTimingReset(*e, "aclrtEventGetTimestamp: the event")) return refused;
  if (e->recorded == 0 || e->completed < e->recorded) {
    return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtEventGetTimestamp: the event was not recorded, or its record has not been reached yet");
  }
  // Microseconds on the host's steady clock, the clock aclrtEventElapsedTime subtracts.
  *timestamp = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(e->when.time_since_epoch()).count());
  return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event is a null pointer");
  // Queued records and waits hold the event's state: destroying it now is safe, as in CANN.
  auto e = aclsim::State().events.Take(event);
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: not a live event (destroyed twice?)");
  {
    // A stream waiting for a record after a reset would wait for one no call can make any more.
    std::lock_guard<std::mutex> lock(e->mutex);
    e->destroyed = true;
  }
  e->reached.notify_all();
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return aclsim::QueueEventTask(event, stream, aclsim::Task::Kind::kRecord, "aclrtRecordEvent");
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return aclsim::QueueEventTask(event, stream, aclsim::Task::Kind::kWait, "aclrtStreamWaitEvent");
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  constexpr const char* api = "aclrtResetEvent";
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtResetEvent: event is not a live event");
  // An IPC event's versions are counters every process that opened it shares (ipc.h), which a reset
  // would have to clear in all of them; an external event is a captured graph's node.
  if (e->shared || (e->flags & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))) {
    return aclsim::FailNotModelled(api, "aclrtResetEvent: not modelled by the simulator for an event made with "
                                        "ACL_EVENT_EXTERNAL or ACL_EVENT_IPC");
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  if (aclsim::UpdateOpen(*s)) return aclsim::RefuseInUpdate(aclsim::Task::Kind::kReset, api);
  if (aclsim::CaptureOf(*s)) {
    return aclsim::FailNotModelled(api, "aclrtResetEvent: not modelled by the simulator: a reset in a stream being "
                                        "captured (aclmdlRICaptureBegin)");
  }
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kReset;
  task.api = api;
  task.event = e;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (aclError refused = aclsim::RefuseCapturedRecord(*e, api)) return refused;
    task.version = e->recorded;
  }
  if (aclError status = aclsim::Enqueue(s, std::move(task))) return status;
  std::lock_guard<std::mutex> lock(e->mutex);
  e->reset_queued = true;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  aclsim::ForgetFaultOwedToCopy();
  if (int32_t held = aclsim::TakeHeldRefusal("aclrtSynchronizeEvent")) return held;
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent: event is not a live event");
  std::shared_ptr<aclsim::StreamState> faulted;
  if (e->shared) {
    aclsim::Fault fault;
    fault.status = e->shared->Wait(e->shared->Latest(), &fault.api, &fault.message);
    if (fault.status == 0) return ACL_SUCCESS;
    {
      std::lock_guard<std::mutex> lock(e->mutex);
      faulted = e->faulted_stream.lock();
    }
    // Recorded behind a fault here, the stream's synchronisation reports it; in another process, this one.
    if (faulted) return aclsim::TakeFault(*faulted, "aclrtSynchronizeEvent");
    return Fail(fault.status, "aclrtSynchronizeEvent: the event was recorded behind a kernel of " + fault.api +
                                  " that failed on the device: " + fault.message);
  }
  {
    std::unique_lock<std::mutex> lock(e->mutex);
    if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtSynchronizeEvent")) return refused;
    const uint64_t version = e->recorded;
    std::string stall;
    if (!aclsim::WaitUnlessStalled(lock, e->reached, nullptr, [&] { return e->completed >= version; },
                                   [&] { return aclsim::RecordStall(*e, version); }, &stall)) {
      return aclsim::FailStalled(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtSynchronizeEvent: the event's latest record cannot be reached",
                                 stall, "the record stays queued: the call it waits for still releases it");
    }
    faulted = e->faulted_stream.lock();
  }
  // The event was reached behind a kernel fault: this is the synchronisation that reports it,
  // unless the stream's own synchronisation already did.
  return faulted ? aclsim::TakeFault(*faulted, "aclrtSynchronizeEvent") : ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  if (!status) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is a null pointer");
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: event is not a live event");
  std::lock_guard<std::mutex> lock(e->mutex);
  if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtQueryEventStatus")) return refused;
  *status = aclsim::LatestReached(*e) ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (!ms) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is a null pointer");
  auto start = startEvent ? aclsim::State().events.Find(startEvent) : nullptr;
  auto end = endEvent ? aclsim::State().events.Find(endEvent) : nullptr;
  if (!start || !end) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                std::string("aclrtEventElapsedTime: ") + (start ? "endEvent" : "startEvent") + " is not a live event");
  }
  std::chrono::steady_clock::time_point when[2];
  aclsim::EventState* events[2] = {start.get(), end.get()};
  for (int i = 0; i < 2; ++i) {
    std::lock_guard<std::mutex> lock(events[i]->mutex);
    if (aclError refused = aclsim::RefuseTimingShared(*events[i], "aclrtEventElapsedTime")) return refused;
    if (aclError refused = aclsim::RefuseCapturedRecord(*events[i], "aclrtEventElapsedTime")) return refused;
    if (aclError refused = aclsim::RefuseTimingReset(*events[i], std::string("aclrtEventElapsedTime: ") +
                                                                     (i ? "endEvent" : "startEvent"))) {
      return refused;
    }
    if (events[i]->recorded == 0 || events[i]->completed < events[i]->recorded) {
      return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE, std::string("aclrtEventElapsedTime: ") +
                                                       (i ? "endEvent" : "startEvent") +
                                                       " was not recorded, or its record has not been reached yet");
    }
    when[i] = events[i]->when;
  }
  *ms = std::chrono::duration<float, std::milli>(when[1] - when[0]).count();
  return ACL_SUCCESS;
}

aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle* handle) {
  if (!handle) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtIpcGetEventHandle: handle is a null pointer");
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtIpcGetEventHandle: event is not a live event");
  if (!e->shared) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtIpcGetEventHandle: the event was not created with ACL_EVENT_IPC "
                                         "(aclrtCreateEventWithFlag, aclrtCreateEventExWithFlag)");
  }
  *handle = e->shared->Handle();
  return ACL_SUCCESS;
}

aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent* event) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtIpcOpenEventHandle: event is a null pointer");
  auto state = std::make_shared<aclsim::EventState>(ACL_EVENT_IPC);
  if (aclError status = aclsim::SharedEvent::Open(handle, "aclrtIpcOpenEventHandle", &state->shared)) return status;
  *event = reinterpret_cast<aclrtEvent>(aclsim::State().events.Add(std::move(state)));
  return ACL_SUCCESS;
}

}  // extern "C"
