// libascendcl's stalls: a stream whose next task waits for something only a host call can give (a
// record of an event reset since the wait was queued, a write of the word an aclrtValueWait waits
// on), directly or through a record queued behind such a wait on another stream. A device waits for
// such a call for ever, and so did every synchronisation of the simulator, its destruction and its
// device's reset: a program that queued the wait and never made the call hung, at exit too
// (torch_npu's exit handler synchronises the device without a time-out).
//
// Whether a call will come is another thread's secret: a producer thread may record the event a
// consumer's synchronisation waits for. The simulator takes a host that launches nothing on any
// stream (a record is a launch) for HostCallGrace() while a synchronisation waits on a stall as a host
// that will not make the call: the synchronisation answers ACL_ERROR_RT_STREAM_NOT_COMPLETE naming
// the wait, and the work stays queued (a record made later still releases it). A thread that keeps
// launching keeps the synchronisation waiting, as a device would.
#include "ascendcl/stream_state.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "ascendcl/settings.h"

namespace aclsim {

namespace {

// How long a stall must last with no launch on any stream before a synchronisation gives up on it:
// long against a producer thread's gap between launches, short against a test's patience
// (ACLNN_SIM_STALL_MS, 1 s by default).
std::chrono::milliseconds HostCallGrace() { return std::chrono::milliseconds(Settings().stall_ms); }
// How often a waiting synchronisation looks for a stall (a stall is looked for only while it waits).
constexpr std::chrono::milliseconds kStallPoll{20};

// The task a stream runs now or starts next (none: idle, or held by aclsimHoldStream, which the host
// releases), copied under its mutex.
std::optional<Task> NextTask(StreamState& s) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.running) return *s.running;
  if (s.queue.empty() || s.held) return std::nullopt;
  return s.queue.Front();
}

std::string Hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

bool Seen(const std::vector<const StreamState*>& seen, const StreamState* s) {
  return std::find(seen.begin(), seen.end(), s) != seen.end();
}

std::string StreamStall(const std::shared_ptr<StreamState>& s, std::vector<const StreamState*>& seen);

// The stream the record `version` of `event` is queued on (or runs on), if any.
std::shared_ptr<StreamState> StreamRecording(const EventState& event, uint64_t version) {
  for (auto& r : StreamsOf(-1, false)) {
    bool found = false;
    std::lock_guard<std::mutex> lock(r->mutex);
    auto is_record = [&](const Task& task) {
      found = found || (task.kind == Task::Kind::kRecord && task.event.get() == &event && task.version == version);
    };
    if (r->running) is_record(*r->running);
    r->queue.ForEach(is_record);
    if (found) return r;
  }
  return nullptr;
}

std::string RecordStallSeen(EventState& event, uint64_t version, std::vector<const StreamState*>& seen) {
  {
    std::lock_guard<std::mutex> lock(event.mutex);
    // Reached; or another process's record, which this one cannot see coming; or destroyed before the
    // record, which ends the wait by itself (events.cpp WaitForFutureRecord's unmet wait).
    if (event.completed >= version || event.shared || (event.recorded < version && event.destroyed)) return "";
    if (event.recorded < version) {
      return "a record of an event reset (aclrtResetEvent) since its record before, which no call has made";
    }
  }
  auto recording = StreamRecording(event, version);
  if (!recording) return "";  // running now, or captured into a model (runs when it is executed)
  if (Seen(seen, recording.get())) {
    return "the record of the event, queued behind that very wait (each waits for the other)";
  }
  const std::string behind = StreamStall(recording, seen);
  return behind.empty() ? "" : "the record of the event, queued on another stream where " + behind;
}

std::string ValueStall(const Task& wait, std::vector<const StreamState*>& seen) {
  const auto* word = static_cast<const uint64_t*>(wait.dst);
  if (ValueReached(__atomic_load_n(word, __ATOMIC_ACQUIRE), wait.word, wait.wait_mode)) return "";
  const uintptr_t begin = reinterpret_cast<uintptr_t>(word), end = begin + sizeof(uint64_t);
  for (auto& r : StreamsOf(-1, false)) {
    if (Seen(seen, r.get())) continue;  // the waiting stream's writes are behind its wait
    bool writes = false;
    {
      std::lock_guard<std::mutex> lock(r->mutex);
      auto touches = [&](const Task& task) {
        writes = writes || (task.kind != Task::Kind::kValueWait && task.Touches(begin, end));
      };
      if (r->running) touches(*r->running);
      r->queue.ForEach(touches);
    }
    // A task queued behind another stall writes nothing either.
    std::vector<const StreamState*> branch = seen;
    if (writes && StreamStall(r, branch).empty()) return "";
  }
  return "a write of the device word at " + Hex(word) + " (value " + std::to_string(wait.word) +
         ", mode " + std::to_string(wait.wait_mode) + "), which no queued task makes";
}

std::string StreamStall(const std::shared_ptr<StreamState>& s, std::vector<const StreamState*>& seen) {
  std::optional<Task> next = NextTask(*s);
  if (!next) return "";
  seen.push_back(s.get());
  std::string why;
  if (next->kind == Task::Kind::kWait) why = RecordStallSeen(*next->event, next->version, seen);
  else if (next->kind == Task::Kind::kValueWait) why = ValueStall(*next, seen);
  if (why.empty()) return "";
  return "task " + std::to_string(next->ticket) + " of the stream (" + next->api + "), its next, waits for " + why;
}

}  // namespace

std::string StallOf(const std::shared_ptr<StreamState>& s) {
  std::vector<const StreamState*> seen;
  return StreamStall(s, seen);
}

std::string RecordStall(EventState& event, uint64_t version) {
  std::vector<const StreamState*> seen;
  return RecordStallSeen(event, version, seen);
}

bool WaitUnlessStalled(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, StreamState* s,
                       const std::function<bool()>& done, const std::function<std::string()>& stalled, std::string* why) {
  std::atomic<uint64_t>& launches = State().launches;
  std::optional<std::pair<std::chrono::steady_clock::time_point, uint64_t>> since;  // the stall's start, and launches then
  while (!cv.wait_for(lock, kStallPoll, done)) {
    lock.unlock();
    std::string stall = stalled();
    lock.lock();
    if (done()) return true;
    if (stall.empty()) {
      since.reset();
      continue;
    }
    const uint64_t launched = launches.load(std::memory_order_acquire);
    const auto now = std::chrono::steady_clock::now();
    const bool known = s && s->stall_seen_at.load(std::memory_order_relaxed) == launched + 1;
    if (!known && (!since || since->second != launched)) {
      since.emplace(now, launched);
      continue;
    }
    if (known || now - since->first >= HostCallGrace()) {
      if (s) s->stall_seen_at.store(launched + 1, std::memory_order_relaxed);
      *why = std::move(stall);
      return false;
    }
  }
  return true;
}

aclError FailStalled(int32_t status, const std::string& what, const std::string& why, const std::string& consequence) {
  return Fail(status, what + ": " + why + "; no host thread launched anything on any stream for " +
                          std::to_string(HostCallGrace().count()) + " ms while it waited (" + consequence + ")");
}

void DropQueuedWork(const std::shared_ptr<StreamState>& self, const char* api) {
  StreamState& s = *self;
  s.discard_all.store(true);
  std::shared_ptr<EventState> waited;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.running && s.running->kind == Task::Kind::kWait) waited = s.running->event;
  }
  // An aclrtValueWait or a wait for a future record polls discard_all; a wait for a record sleeps on
  // its event, woken under the event's mutex: WaitForEvent reads discard_all under it before it sleeps.
  if (waited) {
    std::lock_guard<std::mutex> lock(waited->mutex);
    waited->reached.notify_all();
  }
  Drain(self, api);  // cannot stall: every wait gives up
}

}  // namespace aclsim
