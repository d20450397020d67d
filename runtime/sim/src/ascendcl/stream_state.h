// The state libascendcl's asynchronous half shares between its files (stream_worker.cpp, streams.cpp,
// events.cpp, callbacks.cpp, capture.cpp): faults, events, tasks, task groups, models, streams and
// their registry, and the functions one file calls in another. The model they implement is
// streams.h's; nothing outside those files includes this header.
#ifndef ACLNN_SIM_ASCENDCL_STREAM_STATE_H_
#define ACLNN_SIM_ASCENDCL_STREAM_STATE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "ascendcl/ipc.h"
#include "common/handles.h"
#include "common/internal.h"

namespace aclsim {

// A stream holds at most this many tasks not yet run; a launch onto a full stream waits for room,
// as on a device, whose task queues are finite. Without it a host that runs ahead of the device
// queues without bound (hundreds of bytes per queued call).
constexpr size_t kQueueDepth = 1024;
// Executors retired between two takes (`TakeRetired`, at every launch and synchronisation): at
// most the queue's and the one running.
constexpr size_t kRetiredDepth = kQueueDepth + 1;

// --- faults and events ----------------------------------------------------------------------------

struct Fault {
  int32_t status = 0;  // 0: none
  std::string api;
  std::string message;
  uint64_t executor = 0;
  uint64_t launch = 0;
  // The kernel ran on another stream, whose work this stream waited for (aclrtStreamWaitEvent
  // on an event recorded behind the fault): the fault reached this stream through the event.
  bool through_event = false;
  // Not a kernel's: a wait on this stream that can never end (a record it waits for can no longer be
  // made), which the stream's work behind it must not pass as if it had.
  bool unmet_wait = false;
};

struct StreamState;
struct ModelState;
struct TaskGroupState;
struct TaskUpdate;

struct EventState {
  explicit EventState(uint32_t flags = 0) : flags(flags) {}
  const uint32_t flags;  // aclrtCreateEventWithFlag's
  std::mutex mutex;
  std::condition_variable reached;
  uint64_t recorded = 0;   // versions handed out by aclrtRecordEvent
  uint64_t completed = 0;  // the latest version its stream has reached
  std::chrono::steady_clock::time_point when;  // when `completed` was reached
  std::weak_ptr<StreamState> faulted_stream;    // set when the record ran behind a kernel fault
  // The records that ran behind a fault, by version, with the fault: a stream that waits for one
  // of them takes the fault over (its work depends on work that did not run), as a device error
  // is sticky for dependent work on CANN and CUDA. The latest kFaultedVersions (a stream that stays
  // faulted records behind its fault until a synchronisation reports it).
  std::vector<std::pair<uint64_t, Fault>> faulted_versions;
  // The latest record was captured into a model (aclmdlRICaptureBegin): it runs, and is numbered,
  // when the model is executed. A stream that waits for it joins that capture (`captured_into`).
  bool record_captured = false;
  std::weak_ptr<ModelState> captured_into;
  // aclrtResetEvent, in stream order. `reset_queued`: the host's latest call on the event was a reset
  // (no record queued since), so a stream wait queued now waits for the next record, as a device's
  // wait does for an event whose flag was cleared. `reset_reached`/`reset_version`: a stream reached a
  // reset made after `reset_version` records; until a later record is reached the event reads as never
  // reached (queries NOT_READY, timing refused). `destroyed`: no record can come any more, which ends
  // a wait for a future one (events.cpp WaitForEvent).
  bool reset_queued = false;
  bool reset_reached = false;
  uint64_t reset_version = 0;
  bool destroyed = false;
  // ACL_EVENT_IPC: the versions every process that opened the event shares (ipc.h); `recorded` and
  // `completed` above then count this process's records only.
  std::shared_ptr<SharedEvent> shared;
};
constexpr size_t kFaultedVersions = 64;

// --- tasks --------------------------------------------------------------------------------------

struct Task {
  enum class Kind : uint8_t { kKernel, kCopy, kFill, kRecord, kWait, kReset, kHostFunc, kCallback, kUpdate, kValueWrite, kValueWait };
  Kind kind = Kind::kKernel;
  const char* api = "";
  uint64_t ticket = 0;  // its place in the stream's queue (1-based)
  // kKernel
  std::shared_ptr<Executor> executor;
  void* workspace = nullptr;
  uint64_t launch = 0;  // the API's launch number, when ACLNN_SIM_FAULT counts it
  bool inject_fault = false;
  // kCopy, kFill
  void* dst = nullptr;
  const void* src = nullptr;
  size_t count = 0;
  int32_t value = 0;
  // Captured into a model: which of its ranges were device memory then (a replay checks they still are).
  bool dst_on_device = false, src_on_device = false;
  // kValueWrite, kValueWait: the 64-bit device word at `dst`, the value written or compared, and
  // kValueWait's comparison (an ACL_STREAM_WAIT_VALUE_* mode)
  uint64_t word = 0;
  uint32_t wait_mode = 0;
  // kRecord, kWait, kReset (a reset's version: the records queued before it)
  std::shared_ptr<EventState> event;
  uint64_t version = 0;
  bool future = false;  // kWait: for a record not queued yet (the event was reset), which may never come
  // kHostFunc, kCallback: fn(args) on the host, in the stream's order
  void (*host_fn)(void*) = nullptr;
  void* host_args = nullptr;
  bool block = false;  // kCallback: the stream waits for the subscribed thread to run it
  // A member of a task group (aclmdlRICaptureTaskGrpBegin..End) in a model or its replay: it runs
  // with the group's current arguments for member `member`, which an update may have replaced since.
  std::shared_ptr<TaskGroupState> group;
  size_t member = 0;
  // kUpdate: new arguments for a task group's members, which they take when the stream reaches it.
  std::shared_ptr<TaskUpdate> update;

  // Whether the task reads or writes device memory in [begin, end) when it runs.
  bool Touches(uintptr_t begin, uintptr_t end) const;
};

// What an update may re-record in a task group: the tasks whose arguments a device patches in place
// (acl_rt.h's aclrtTaskUpdateInfo updates kernels; copies and fills are the simulator's kernels of data).
inline bool Updatable(Task::Kind kind) {
  return kind == Task::Kind::kKernel || kind == Task::Kind::kCopy || kind == Task::Kind::kFill;
}

// A task group (aclmdlRICaptureTaskGrpBegin..End): the kernels, copies and fills one stream launched
// into a capture between the two calls. The model's tasks name their member here; an update
// (aclmdlRICaptureTaskUpdateBegin..End on another stream) replaces the members when the update stream
// reaches it, and every member that runs afterwards, in a replay queued before or after, runs with the
// new arguments, as a device patches a captured task's arguments in place (torch_npu's graph updates
// queue the replay first and the update after it, behind an event the replay waits for).
struct TaskGroupState {
  std::mutex mutex;
  std::vector<Task> members;  // in launch order; copies that name no group
  std::weak_ptr<ModelState> model;

  Task Current(size_t member) {
    std::lock_guard<std::mutex> lock(mutex);
    return members[member];
  }
};

// An update of a task group open on a stream (aclmdlRICaptureTaskUpdateBegin..End): the tasks the
// stream launched since, which replace the group's members at aclmdlRICaptureTaskUpdateEnd.
struct TaskUpdate {
  std::shared_ptr<TaskGroupState> group;
  std::vector<Task> members;
};

inline bool Task::Touches(uintptr_t begin, uintptr_t end) const {
  if (group) return group->Current(member).Touches(begin, end);
  auto in = [&](const void* p, size_t n) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    return p && n > 0 && a < end && a + n > begin;
  };
  switch (kind) {
    case Kind::kKernel:
      return executor->addresses.AnyIn(begin, end) || in(workspace, 1);
    case Kind::kCopy:
      return in(dst, count) || in(src, count);
    case Kind::kFill:
      return in(dst, count);
    case Kind::kValueWrite:
    case Kind::kValueWait:
      return in(dst, sizeof(uint64_t));
    default:
      return false;
  }
}

// A ring of tasks, made at the first launch as deep as a stream's queue may get (kQueueDepth):
// pushing and popping then allocate nothing, however far the worker falls behind (std::deque
// frees and allocates a block every few tasks; a ring grown on demand allocated whenever a loaded
// machine let the queue get deeper than before).
class TaskRing {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  void Push(Task&& task) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) % slots_.size()] = std::move(task);
    ++size_;
  }
  const Task& Front() const { return slots_[head_]; }
  Task Pop() {
    Task task = std::move(slots_[head_]);
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return task;
  }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < size_; ++i) fn(slots_[(head_ + i) % slots_.size()]);
  }

 private:
  void Grow() {
    std::vector<Task> bigger(slots_.empty() ? kQueueDepth : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<Task> slots_;
  size_t head_ = 0, size_ = 0;
};

// A model captured from a stream (aclmdlRICaptureBegin..End): its tasks, in the order they were
// launched, replayed by aclmdlRIExecuteAsync as copies (a kernel's executor and workspace are
// shared by every replay, as a captured kernel's arguments are on a device).
struct ModelState {
  std::mutex mutex;
  std::vector<Task> tasks;
  uintptr_t handle = 0;  // its aclmdlRI
  uintptr_t stream = 0;  // the captured stream's aclrtStream: aclmdlRIExecute runs there
  uint32_t id = 0;       // aclmdlRIGetId's
  aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
  std::thread::id thread;  // the thread that began the capture
  bool ended = false;      // aclmdlRICaptureEnd returned it: it may be executed
  std::string invalidated_by;  // the forbidden call that invalidated the capture (empty: none)
  // Streams that joined the capture by waiting for an event recorded into it (their work goes into
  // the model too, in launch order: the host launched each task after the ones it depends on, so
  // that order is a valid one to replay them in). aclmdlRICaptureEnd releases them.
  std::vector<std::weak_ptr<StreamState>> joined;
  // The aclrtTaskGrp handles of its task groups: they live as long as the model.
  std::vector<uintptr_t> groups;
};

struct StreamState {
  explicit StreamState(int32_t device) : device(device) {}
  ~StreamState() { Stop(); }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    room.notify_all();
    if (!worker.joinable()) return;
    if (worker.get_id() == std::this_thread::get_id()) worker.detach();  // its last owner is its own worker
    else worker.join();
  }

  const int32_t device;
  uintptr_t handle = 0;  // its aclrtStream; 0 for a device's default stream
  // aclrtCreateStreamWithConfig's priority (0..7) and flags, aclrtSetStreamFailureMode's mode and
  // aclrtSetStreamOverflowSwitch's switch: kept and reported; one CPU worker runs every stream
  // alike, so priorities order nothing between streams.
  uint32_t priority = 0, flags = 0;
  std::atomic<uint64_t> failure_mode{ACL_STOP_ON_FAILURE};
  std::atomic<uint32_t> overflow_switch{0};
  std::atomic<bool> discard_all{false};  // aclrtDestroyStreamForce, a reset of a stalled stream: queued work is dropped
  // The host's activity (Streams::launches) when a synchronisation last found the stream stalled
  // (stalls.cpp), plus one (0: never): a stall found again with no launch since is answered at once.
  std::atomic<uint64_t> stall_seen_at{0};
  uint64_t subscriber = 0;               // aclrtSubscribeReport's thread for aclrtLaunchCallback
  std::mutex mutex;
  std::condition_variable wake;  // the worker waits for tasks
  std::condition_variable idle;  // synchronisations wait for tasks to finish
  std::condition_variable room;  // launches onto a full queue wait for the worker
  int room_waiters = 0;
  TaskRing queue;
  const Task* running = nullptr;  // the task the worker runs (read under `mutex`)
  std::atomic<uint64_t> enqueued{0}, completed{0};
  std::atomic<bool> faulted{false};  // a fault waits to be reported: queued work is discarded
  bool worker_sleeping = false;
  bool stop = false;
  bool held = false;  // aclsimHoldStream: the worker starts no task until released
  int waiters = 0;
  Fault pending;   // the first fault not reported yet
  Fault reported;  // the last fault a synchronisation reported (aclsimLastFault)
  // Executors whose work has run, released by the launching side (the next launch or
  // synchronisation): their memory then goes back to the pool of the thread that made it, instead
  // of crossing to the worker's and back on every call.
  std::vector<std::shared_ptr<Executor>> retired;
  // aclmdlRICaptureBegin..End: the model the stream's launches go into instead of its queue
  // (under `mutex`); `capturing` spares launches the lock when no capture is on.
  std::shared_ptr<ModelState> capture;
  std::atomic<bool> capturing{false};
  // aclmdlRICaptureTaskGrpBegin..End: the task group the stream's captured launches join (under `mutex`).
  std::shared_ptr<TaskGroupState> open_group;
  // aclmdlRICaptureTaskUpdateBegin..End: the update the stream's launches go into instead of its queue
  // (under `mutex`); `updating` spares launches the lock when none is open.
  std::shared_ptr<TaskUpdate> update;
  std::atomic<bool> updating{false};
  bool destroyed = false;  // taken by aclrtDestroyStream*, or its device reset (under `mutex`)
  uint32_t custom_tag = 0, cache_op_info = 0;  // aclrtSetStreamAttribute's, kept and reported
  // aclrtSetStreamResLimit's core limits by aclrtDevResLimitType, kept and reported (0: none, the
  // device's applies); under `mutex`. They change no result (device.cpp's aclrtSetDeviceResLimit).
  uint32_t res_limits[2] = {0, 0};
  std::thread worker;
  std::mutex inline_run;  // ACLNN_SIM_SYNC=1: one task at a time
};

struct Streams {
  Registry<StreamState> streams{0x5d};
  Registry<EventState> events{0x5e};
  Registry<ModelState> models{0x5f};
  Registry<TaskGroupState> groups{0x60};
  std::atomic<uint32_t> models_made{0};
  std::mutex defaults_mutex;
  std::map<int32_t, std::shared_ptr<StreamState>> defaults;  // per device, made on first use
  std::atomic<uint64_t> stream_syncs{0}, device_syncs{0}, kernels_launched{0}, events_recorded{0};
  // Tasks the host has launched onto any stream (a record among them): the host's activity, which
  // tells a stall (stalls.cpp) that some thread may still make the call a wait needs.
  std::atomic<uint64_t> launches{0};
};

// --- stream_worker.cpp: the queues' workers, the hand-off of launches and synchronisations ---

// Runs part of the kernel pool's current parallel job on the calling thread: false when there
// is none (or nothing of it left).
bool HelpKernel();

// The streams, events, models and task groups of the process, made at first use and never destroyed
// (workers may run during exit); a forked child gets a fresh one.
Streams& State();

// Makes a fork wait for the kernels, copies and fills running now; registered at the first kernel
// launch, after OpenBLAS's own handler, so that it runs first.
void RegisterForkHandlers();

// Whether the word an aclrtValueWait waits on satisfies its mode (an ACL_STREAM_WAIT_VALUE_*).
bool ValueReached(uint64_t word, uint64_t value, uint32_t mode);

// Keeps `fault` on the stream, unless one waits to be reported already: queued work is discarded.
void RecordFault(StreamState& s, Fault fault);

// Queues `task` on the stream (or into the capture or the task-group update open on it), waiting
// for room when its queue is full; with ACLNN_SIM_SYNC=1 runs it in the calling thread instead.
aclError Enqueue(const std::shared_ptr<StreamState>& self, Task&& task);

// Waits until the stream has run every task enqueued so far. The waiting thread runs queued tasks
// itself while the worker is not running one (in order, one at a time, as the worker would; not a
// wait, which may hold it: stalls.cpp), so that a synchronisation after a short call costs no hand-off
// to the worker and back. ACL_SUCCESS; ACL_ERROR_RT_STREAM_NOT_COMPLETE, naming `api` and the wait,
// when the stream stalls first (WaitUnlessStalled), its message ending with what became of the work
// (`consequence`; the work stays queued either way).
constexpr const char* kStaysQueued = "the work stays queued: the call it waits for still releases it";
aclError Drain(const std::shared_ptr<StreamState>& self, const char* api, const char* consequence = kStaysQueued);

// Waits until the stream has run every task enqueued so far, or until `deadline`: false on time-out.
// Unlike Drain, the waiting thread runs no task itself (it must be free to give up).
bool DrainBefore(const std::shared_ptr<StreamState>& self, std::chrono::steady_clock::time_point deadline);

// --- streams.cpp: stream handles and synchronisation -----------------------------------------

// The stream `stream` names for `api`: a live stream, or the current device's default stream.
aclError Resolve(aclrtStream stream, const char* api, std::shared_ptr<StreamState>* out);

// Reports (and clears) the stream's pending fault as the calling thread's error.
aclError TakeFault(StreamState& s, const char* api);

// A synchronisation bounded by `timeout` milliseconds (-1: none), as the *WithTimeout calls take it.
aclError SynchronizeWithin(const std::shared_ptr<StreamState>& s, int32_t timeout, const char* api);

// Every stream of `device` (-1: of every device), its default stream included; taken out of the
// registry (no longer live) when `take`.
std::vector<std::shared_ptr<StreamState>> StreamsOf(int32_t device, bool take);

// --- stalls.cpp: waits that only a host call can end -----------------------------------------

// Why the stream's next task cannot start or finish until a host thread makes a call no queued task
// makes (a record of an event reset since the wait was queued, a write of the word an aclrtValueWait
// waits on), directly or through a record queued behind such a wait on another stream; empty when
// the stream can go on by itself (or is idle).
std::string StallOf(const std::shared_ptr<StreamState>& s);

// The same for the record `version` of `event`: why it cannot be reached without a host call.
std::string RecordStall(EventState& event, uint64_t version);

// Waits on `cv` (with `lock` held) until `done()`. Gives up when `stalled()` (called without the lock)
// has named a stall for ACLNN_SIM_STALL_MS during which the host launched nothing, on any stream: no
// thread is making calls, and none may ever make the one the wait needs. A stall seen on `s` before
// with no launch since gives up at once. True when done; false with the stall in `*why`.
bool WaitUnlessStalled(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, StreamState* s,
                       const std::function<bool()>& done, const std::function<std::string()>& stalled, std::string* why);

// The answer `status` to a stall (`why`, as StallOf or RecordStall names it) of `what` ("api: the
// stream's queued work cannot finish"), saying what became of the work (`consequence`).
aclError FailStalled(int32_t status, const std::string& what, const std::string& why, const std::string& consequence);

// Ends the wait the stream's worker is in, if any, drops the stream's queued work (a forced
// destruction, a device reset or destruction of a stalled stream) and drains it: its waits return at
// once, the task running finishes.
void DropQueuedWork(const std::shared_ptr<StreamState>& self, const char* api);

// --- events.cpp: records and waits -----------------------------------------------------------

// `fault`: the fault the record ran behind (status 0: none).
void CompleteEvent(EventState& event, uint64_t version, const std::shared_ptr<StreamState>& faulted, const Fault& fault);

// Waits until the record `version` of `event` is reached; returns the fault it ran behind
// (status 0: none). Gives up when `s`, the waiting stream, drops its work (DropQueuedWork).
Fault WaitForEvent(StreamState& s, EventState& event, uint64_t version);

// The same for a record not queued yet (Task::future: a wait queued after a reset), which may never
// come: gives up when `s` is stopped or dropping its work, and fails when the event is destroyed first.
Fault WaitForFutureRecord(StreamState& s, EventState& event, uint64_t version);

// A reset of the event reached in stream order (aclrtResetEvent): `version` records were queued before it.
void ResetEvent(EventState& event, uint64_t version);

// --- callbacks.cpp: host work in a stream's order --------------------------------------------

// Hands an aclrtLaunchCallback task to the thread subscribed to its stream; a blocking one holds
// the stream until that thread has run it.
void RunCallback(StreamState& s, Task& task);

// --- capture.cpp: graph capture and task groups ----------------------------------------------

// The model `s` is being captured into, if any.
std::shared_ptr<ModelState> CaptureOf(StreamState& s);

// Whether an update of a task group is open on the stream (aclmdlRICaptureTaskUpdateBegin..End).
bool UpdateOpen(StreamState& s);

// A launch onto a stream that updates a task group, of a task an update cannot re-record.
aclError RefuseInUpdate(Task::Kind kind, const char* api);

// Between aclmdlRICaptureTaskUpdateBegin and End, the stream's launches are the group's new members:
// false when no update is open (`updating` is read without the lock), `status` set otherwise.
bool AddToUpdate(StreamState& s, Task& task, aclError* status);

// Records `task` into the model the stream is being captured into (and the task group open on it).
aclError AddToCapture(StreamState& s, ModelState& model, Task&& task);

// A call a capture forbids (`api`) invalidates it: aclmdlRICaptureEnd then makes no model.
void Invalidate(ModelState& model, const char* api);

// Waiting for a stream that is being captured: its captured work has not been launched (it runs
// when the model is executed), so the wait fails and invalidates the capture, as on CANN and CUDA.
aclError RefuseWhileCaptured(StreamState& s, const char* api);

// A device-wide synchronisation is unsafe while a capture is on, as CUDA's rule for its
// "potentially unsafe" calls puts it: refused (and the capture invalidated) when a global-mode
// capture runs on any thread, or a thread-local one on the calling thread, unless the calling
// thread's mode is relaxed. The streams not being captured are drained otherwise, as always.
aclError RefuseDuringCapture(const std::vector<std::shared_ptr<StreamState>>& streams, const char* api);

// `s` is being destroyed by `api` (aclrtDestroyStreamForce, a device reset): what it records instead
// of running ends. A capture it takes part in is invalidated (its work is gone with it) and, when it
// began there, ended, making no model; an update of a task group open on it is dropped.
void AbandonRecording(StreamState& s, const char* api);

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_STREAM_STATE_H_
