// libascendcl, the asynchronous half: streams as ordered queues run by their own worker threads,
// events, synchronisation, the faults of queued kernels (see streams.h for the model), and graph
// capture: a stream's work recorded into a model (aclmdlRI) and replayed.
#include "ascendcl/streams.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <future>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn_sim.h"
#include "common/handles.h"
#include "common/internal.h"
#include "ascendcl/settings.h"

namespace aclsim {
namespace {

// How long a worker looks for the next task, and a synchronisation for the queue to drain,
// before sleeping: chained calls arrive microseconds apart, and a futex wake-up costs as much
// as a small kernel.
constexpr std::chrono::microseconds kWorkerSpin{50};
constexpr std::chrono::microseconds kSyncSpin{20};
// The first part of a spin only pauses (a short kernel finishes within it); the rest yields.
constexpr std::chrono::microseconds kPauseSpin{1};
// A stream holds at most this many tasks not yet run; a launch onto a full stream waits for room,
// as on a device, whose task queues are finite. Without it a host that runs ahead of the device
// queues without bound (hundreds of bytes per queued call).
constexpr size_t kQueueDepth = 1024;
// Executors retired between two takes (`TakeRetired`, at every launch and synchronisation): at
// most the queue's and the one running.
constexpr size_t kRetiredDepth = kQueueDepth + 1;

void Relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

// Polls `done` for up to `budget` before the caller blocks: pausing for the first microseconds,
// then yielding the core between polls, so that on a busy machine (more runnable threads than
// cores) the thread that has the work to do runs instead of the one waiting for it.
template <typename Done>
void SpinFor(std::chrono::microseconds budget, Done&& done) {
  const auto start = std::chrono::steady_clock::now();
  const auto pausing = start + std::min(budget, kPauseSpin), until = start + budget;
  while (!done()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    if (now < pausing) {
      for (int i = 0; i < 16; ++i) Relax();
    } else {
      sched_yield();
    }
  }
}

// The kernel pool's helper (SetKernelHelper); null until libopapi's pool exists.
std::atomic<bool (*)()> g_kernel_helper{nullptr};

// Runs part of the kernel pool's current parallel job on the calling thread: false when there
// is none (or nothing of it left).
bool HelpKernel() {
  bool (*help)() = g_kernel_helper.load(std::memory_order_acquire);
  return help && help();
}

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
};
constexpr size_t kFaultedVersions = 64;

// --- tasks --------------------------------------------------------------------------------------

struct Task {
  enum class Kind : uint8_t { kKernel, kCopy, kFill, kRecord, kWait, kHostFunc, kCallback, kUpdate };
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
  // kRecord, kWait
  std::shared_ptr<EventState> event;
  uint64_t version = 0;
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
bool Updatable(Task::Kind kind) {
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

bool Task::Touches(uintptr_t begin, uintptr_t end) const {
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

// --- streams ------------------------------------------------------------------------------------

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
  std::atomic<bool> discard_all{false};  // aclrtDestroyStreamForce: queued work is dropped
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
};

// Never destroyed: workers may run during exit. A forked child gets a fresh one (ChildAfterFork).
Streams* g_streams = nullptr;
std::once_flag g_streams_made;

Streams& State() {
  std::call_once(g_streams_made, [] { g_streams = new Streams; });
  return *g_streams;
}

// --- fork ------------------------------------------------------------------------------------------
//
// fork() copies the calling thread only. A kernel running on a stream's worker at that moment may
// be inside OpenBLAS, whose own fork handler (pthread_atfork, registered when the library loads)
// shuts its thread pool down: the kernel then waits for pool threads that are gone, and the
// parent's synchronisation never returns (issue 25: 3 forks in 6 hung). So a fork waits for the
// kernels, copies and fills running now and starts no new one until it is done (records and waits
// touch no pool and may wait for each other: they are left alone). POSIX runs prepare handlers in
// the reverse order of registration: ours is registered at the first kernel launch, after
// libopapi's OpenBLAS registered its own, so it runs first. The child gets no stream of the
// parent's: their worker threads do not exist there (their handles become unknown streams).

std::atomic<int> g_device_work{0};     // kernels, copies and fills running now
std::atomic<bool> g_forking{false};    // a fork is being prepared: no new device work starts
std::mutex* g_fork_mutex = new std::mutex;                    // guards the two waits below
std::condition_variable* g_fork_done = new std::condition_variable;  // never destroyed, as the state
std::mutex* g_forks = new std::mutex;  // one fork at a time, held from prepare to after

// A task that may use OpenBLAS or the kernel thread pool, counted while it runs.
class DeviceWork {
 public:
  DeviceWork() {
    for (;;) {
      g_device_work.fetch_add(1);  // sequentially consistent with the flag's store and load
      if (!g_forking.load()) return;
      Leave();  // a fork is being prepared: wait until it is done
      std::unique_lock<std::mutex> lock(*g_fork_mutex);
      g_fork_done->wait(lock, [] { return !g_forking.load(); });
    }
  }
  ~DeviceWork() { Leave(); }
  DeviceWork(const DeviceWork&) = delete;
  DeviceWork& operator=(const DeviceWork&) = delete;

 private:
  static void Leave() {
    if (g_device_work.fetch_sub(1) == 1 && g_forking.load()) {
      std::lock_guard<std::mutex> lock(*g_fork_mutex);  // the preparing thread waits under it
      g_fork_done->notify_all();
    }
  }
};

void PrepareFork() {
  g_forks->lock();
  g_forking.store(true);
  std::unique_lock<std::mutex> lock(*g_fork_mutex);
  g_fork_done->wait(lock, [] { return g_device_work.load() == 0; });
}

void ParentAfterFork() {
  {
    std::lock_guard<std::mutex> lock(*g_fork_mutex);
    g_forking.store(false);
  }
  g_fork_done->notify_all();
  g_forks->unlock();
}

void ChildAfterFork() {
  // The parent's streams, events and their locks are abandoned (their threads do not exist here;
  // destroying them would join threads that do not exist): the child starts with none.
  g_streams = new Streams;
  g_fork_mutex = new std::mutex;
  g_fork_done = new std::condition_variable;
  g_forks = new std::mutex;
  g_device_work.store(0);
  g_forking.store(false);
}

void RegisterForkHandlers() {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork); });
}

// The stream `stream` names for `api`: a live stream, or the current device's default stream.
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

void RecordFault(StreamState& s, Fault fault) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.pending.status == 0) s.pending = std::move(fault);
  s.faulted.store(true, std::memory_order_release);
}

// `fault`: the fault the record ran behind (status 0: none).
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
}

// Waits until the record `version` of `event` is reached; returns the fault it ran behind
// (status 0: none).
Fault WaitForEvent(EventState& event, uint64_t version) {
  std::unique_lock<std::mutex> lock(event.mutex);
  event.reached.wait(lock, [&] { return event.completed >= version; });
  for (const auto& [faulted, fault] : event.faulted_versions) {
    if (faulted == version) return fault;
  }
  return Fault{};
}

// The stream's pending fault, copied (status 0: none).
Fault PendingFault(StreamState& s) {
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.pending;
}

// --- callbacks ----------------------------------------------------------------------------------

// aclrtLaunchCallback's callbacks are run by the thread subscribed to their stream
// (aclrtSubscribeReport), inside its aclrtProcessReport calls; a blocking one holds its stream until
// it has run.
struct Report {
  void (*fn)(void*) = nullptr;
  void* args = nullptr;
  std::shared_ptr<std::promise<void>> done;  // set for a blocking callback
};

struct ReportQueue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Report> reports;
  int streams = 0;  // streams subscribed to this thread
};

struct Reporters {
  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<ReportQueue>> by_thread;
};

Reporters& ReportersState() {
  static Reporters* reporters = new Reporters;  // never destroyed: workers may run during exit
  return *reporters;
}

std::shared_ptr<ReportQueue> FindReporter(uint64_t thread) {
  Reporters& r = ReportersState();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_thread.find(thread);
  return it == r.by_thread.end() ? nullptr : it->second;
}

void RunCallback(StreamState& s, Task& task) {
  auto queue = FindReporter(s.subscriber);
  if (!queue) {
    RecordFault(s, Fault{ACL_ERROR_INVALID_PARAM, task.api, "the thread subscribed to the stream unsubscribed before its callback ran", 0, 0});
    return;
  }
  Report report{task.host_fn, task.host_args, nullptr};
  std::future<void> finished;
  if (task.block) {
    report.done = std::make_shared<std::promise<void>>();
    finished = report.done->get_future();
  }
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->reports.push_back(std::move(report));
  }
  queue->ready.notify_all();
  if (task.block) finished.wait();
}

// Runs one task; `self` owns `task`'s stream. Behind a fault that no synchronisation has
// reported yet, kernels, copies and fills are discarded (the device stops the stream); records
// and waits still run, so that no other stream or host thread waits forever.
void Execute(const std::shared_ptr<StreamState>& self, Task& task) {
  if (task.group) {
    // A task group's member runs with the arguments the group holds now (the last update's).
    Task current = task.group->Current(task.member);
    current.ticket = task.ticket;
    Execute(self, current);
    return;
  }
  StreamState& s = *self;
  // Behind a fault, a stream in ACL_STOP_ON_FAILURE mode (the default) drops its work until the
  // fault is reported; ACL_CONTINUE_ON_FAILURE runs it. A forced destruction drops everything.
  const bool discard = (s.faulted.load(std::memory_order_acquire) &&
                        s.failure_mode.load(std::memory_order_relaxed) == ACL_STOP_ON_FAILURE) ||
                       s.discard_all.load(std::memory_order_relaxed);
  // Counted for a fork (PrepareFork waits for them): not records and waits, nor host functions and
  // callbacks, which may wait for the forking thread (a Python callback for the GIL it holds).
  std::optional<DeviceWork> counted;
  if (task.kind == Task::Kind::kKernel || task.kind == Task::Kind::kCopy || task.kind == Task::Kind::kFill) counted.emplace();
  switch (task.kind) {
    case Task::Kind::kHostFunc:
      if (!discard) task.host_fn(task.host_args);
      return;
    case Task::Kind::kCallback:
      if (!discard) RunCallback(s, task);
      return;
    case Task::Kind::kKernel: {
      if (discard) return;
      if (task.inject_fault) {
        RecordFault(s, Fault{ACL_ERROR_RT_AICORE_EXCEPTION, task.api,
                             "injected fault (ACLNN_SIM_FAULT): launch " + std::to_string(task.launch) + " of " + task.api,
                             task.executor->handle, task.launch});
        return;
      }
      const aclnnStatus status =
          task.executor->work->Run(s.handle ? reinterpret_cast<aclrtStream>(s.handle) : nullptr);
      if (status != ACLNN_SUCCESS) {
        RecordFault(s, Fault{ACL_ERROR_RT_AICORE_EXCEPTION, task.api,
                             std::string(aclGetRecentErrMsg()) + " (kernel status " + std::to_string(status) + ")",
                             task.executor->handle, task.launch});
      }
      return;
    }
    case Task::Kind::kCopy:
      if (!discard) std::memmove(task.dst, task.src, task.count);
      return;
    case Task::Kind::kFill:
      if (!discard) std::memset(task.dst, task.value, task.count);
      return;
    case Task::Kind::kRecord:
      CompleteEvent(*task.event, task.version, discard ? self : nullptr, discard ? PendingFault(s) : Fault{});
      return;
    case Task::Kind::kUpdate:
      // Dropped behind a fault, as the kernels it re-records would be; the swap leaves the group's
      // previous members in the task, released with it.
      if (!discard) {
        std::lock_guard<std::mutex> lock(task.update->group->mutex);
        task.update->group->members.swap(task.update->members);
      }
      return;
    case Task::Kind::kWait: {
      // Work queued behind the wait depends on the work before the record: when that did not
      // run (a fault), neither does this stream's (its kernels would read garbage), and its next
      // synchronisation reports the fault, naming the kernel that failed.
      Fault carried = WaitForEvent(*task.event, task.version);
      if (carried.status != 0) {
        carried.through_event = true;
        RecordFault(s, std::move(carried));
      }
      return;
    }
  }
}

// The next task for the calling thread to run, when the stream has one and no other thread runs
// one of its tasks (its tasks run one at a time, in order). Requires the stream's mutex.
bool TakeNext(StreamState& s, Task* task) {
  if (s.queue.empty() || s.held || s.running) return false;
  *task = s.queue.Pop();
  s.running = task;
  if (s.room_waiters) s.room.notify_one();
  return true;
}

// `task` has run. Requires the stream's mutex.
void Finish(StreamState& s, Task& task) {
  s.running = nullptr;
  if (task.executor) s.retired.push_back(std::move(task.executor));
  s.completed.fetch_add(1, std::memory_order_release);
  if (s.waiters) s.idle.notify_all();
}

void Worker(std::shared_ptr<StreamState> self) {
  pthread_setname_np(pthread_self(), "aclsim-stream");
  StreamState& s = *self;
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(s.mutex);
      if (!TakeNext(s, &task)) {
        if (s.stop && s.queue.empty()) return;  // stopped, and everything queued has run
        lock.unlock();
        SpinFor(kWorkerSpin, [&] { return s.enqueued.load(std::memory_order_acquire) != s.completed.load(std::memory_order_relaxed); });
        lock.lock();
        bool lent = false;  // once per wake-up: a long task of the synchronisation's is not polled
        while (!TakeNext(s, &task)) {
          if (s.stop && s.queue.empty()) return;
          if (s.running && !lent) {
            // A synchronisation runs the stream's task (Drain): the worker, awake already, takes
            // a share of its parallel part until that task is done.
            lent = true;
            const uint64_t done = s.completed.load(std::memory_order_relaxed);
            lock.unlock();
            SpinFor(kWorkerSpin, [&] { return HelpKernel() || s.completed.load(std::memory_order_acquire) != done; });
            lock.lock();
            continue;
          }
          s.worker_sleeping = true;
          s.wake.wait(lock);
          s.worker_sleeping = false;
          lent = false;
        }
      }
    }
    Execute(self, task);
    std::lock_guard<std::mutex> lock(s.mutex);
    Finish(s, task);
  }
}

// The executors the worker has finished with, taken (O(1)) under the stream's mutex, to be
// released by the calling (launching) thread after it lets the mutex go.
std::vector<std::shared_ptr<Executor>>& TakeRetired(StreamState& s) {
  // Swapped with the stream's list, so both are as deep as it may get (kRetiredDepth): whichever
  // buffer a stream holds, retiring never allocates (a synchronising thread that ran a deep queue's
  // tasks itself grew a shallower one: the C++ steady-state test failed 13 runs in 200 under load).
  thread_local std::vector<std::shared_ptr<Executor>> reaped = [] {
    std::vector<std::shared_ptr<Executor>> list;
    list.reserve(kRetiredDepth);
    return list;
  }();
  if (!s.retired.empty()) reaped.swap(s.retired);
  return reaped;
}

// The model `s` is being captured into, if any.
std::shared_ptr<ModelState> CaptureOf(StreamState& s) {
  if (!s.capturing.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.capture;
}

// Notes which of a copy's or a fill's ranges are device memory now: a replay checks they still are.
void NoteDeviceRanges(Task& task) {
  if (task.kind != Task::Kind::kCopy && task.kind != Task::Kind::kFill) return;
  DeviceRange range;
  task.dst_on_device = FindDeviceAllocation(task.dst, &range);
  task.src_on_device = task.kind == Task::Kind::kCopy && FindDeviceAllocation(task.src, &range);
}

const char* TaskTypeName(Task::Kind kind) {
  switch (kind) {
    case Task::Kind::kKernel: return "KERNEL";
    case Task::Kind::kCopy: return "MEMCPY";
    case Task::Kind::kFill: return "MEMSET";
    case Task::Kind::kRecord: return "EVENT_RECORD";
    case Task::Kind::kWait: return "EVENT_WAIT";
    case Task::Kind::kHostFunc: return "HOST_FUNC";
    case Task::Kind::kCallback: return "CALLBACK";
    case Task::Kind::kUpdate: return "TASK_UPDATE";
  }
  return "UNKNOWN";
}

bool UpdateOpen(StreamState& s) {
  if (!s.updating.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.update != nullptr;
}

// A launch onto a stream that updates a task group, of a task an update cannot re-record.
aclError RefuseInUpdate(Task::Kind kind, const char* api) {
  return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP,
              std::string(api) + ": the stream is updating a task group (aclmdlRICaptureTaskUpdateBegin), which re-records "
                                 "kernels, copies and fills only, not a " + TaskTypeName(kind) + " task");
}

// Between aclmdlRICaptureTaskUpdateBegin and End, the stream's launches are the group's new members:
// false when no update is open (`updating` is read without the lock), `status` set otherwise.
bool AddToUpdate(StreamState& s, Task& task, aclError* status) {
  NoteDeviceRanges(task);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.update) return false;
  if (!Updatable(task.kind)) {
    *status = RefuseInUpdate(task.kind, task.api);
    return true;
  }
  s.update->members.push_back(std::move(task));
  *status = ACL_SUCCESS;
  return true;
}

aclError AddToCapture(StreamState& s, ModelState& model, Task&& task) {
  std::shared_ptr<TaskGroupState> group;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    group = s.open_group;
  }
  std::lock_guard<std::mutex> lock(model.mutex);
  if (!model.invalidated_by.empty()) {
    return Fail(ACL_ERROR_RT_STREAM_UNJOINED, std::string(task.api) + ": the stream's capture was invalidated by " +
                                                  model.invalidated_by + " (end it with aclmdlRICaptureEnd)");
  }
  NoteDeviceRanges(task);
  if (group && Updatable(task.kind)) {
    std::lock_guard<std::mutex> members(group->mutex);
    task.member = group->members.size();
    group->members.push_back(task);
    task.group = std::move(group);
  }
  model.tasks.push_back(std::move(task));
  return ACL_SUCCESS;
}

aclError Enqueue(const std::shared_ptr<StreamState>& self, Task&& task) {
  StreamState& s = *self;
  aclError status;
  if (s.updating.load(std::memory_order_acquire) && AddToUpdate(s, task, &status)) return status;
  if (auto model = CaptureOf(s)) return AddToCapture(s, *model, std::move(task));
  if (Settings().synchronous) {
    std::lock_guard<std::mutex> run(s.inline_run);
    task.ticket = s.enqueued.fetch_add(1) + 1;
    const std::string caller_error = aclGetRecentErrMsg();
    Execute(self, task);
    s.completed.fetch_add(1);
    if (s.faulted.load()) SetError(caller_error);  // the kernel's message belongs to the fault
    return ACL_SUCCESS;
  }
  bool wake;
  std::vector<std::shared_ptr<Executor>>* reaped;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    if (s.stop) return Fail(ACL_ERROR_INVALID_PARAM, std::string(task.api) + ": stream is not a live stream");
    if (!s.worker.joinable()) {
      s.worker = std::thread(Worker, self);
      s.retired.reserve(kRetiredDepth);
    }
    if (s.queue.size() >= kQueueDepth) {
      ++s.room_waiters;
      s.room.wait(lock, [&] { return s.queue.size() < kQueueDepth || s.stop; });
      --s.room_waiters;
      if (s.stop) return Fail(ACL_ERROR_INVALID_PARAM, std::string(task.api) + ": stream is not a live stream");
    }
    task.ticket = s.enqueued.load(std::memory_order_relaxed) + 1;
    s.queue.Push(std::move(task));
    s.enqueued.store(s.enqueued.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    wake = s.worker_sleeping;
    reaped = &TakeRetired(s);
  }
  if (wake) s.wake.notify_one();
  reaped->clear();
  return ACL_SUCCESS;
}

// Waits until the stream has run every task enqueued so far. The waiting thread runs queued tasks
// itself while the worker is not running one (in order, one at a time, as the worker would): a
// synchronisation after a short call costs no hand-off to the worker and back.
void Drain(const std::shared_ptr<StreamState>& self) {
  StreamState& s = *self;
  const uint64_t target = s.enqueued.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(s.mutex);
  while (s.completed.load(std::memory_order_acquire) < target) {
    Task task;
    if (TakeNext(s, &task)) {
      lock.unlock();
      Execute(self, task);
      lock.lock();
      Finish(s, task);
      continue;
    }
    auto ready = [&] {
      return s.completed.load(std::memory_order_acquire) >= target || (!s.running && !s.held && !s.queue.empty());
    };
    lock.unlock();
    // The worker runs the task: its parallel part, if any, takes this thread too.
    bool helped = false;
    SpinFor(kSyncSpin, [&] { return s.completed.load(std::memory_order_acquire) >= target || (helped = HelpKernel()); });
    lock.lock();
    if (helped) continue;
    ++s.waiters;
    s.idle.wait(lock, ready);
    --s.waiters;
  }
  if (!s.queue.empty() && s.worker_sleeping) s.wake.notify_one();  // what is left is the worker's
  auto& reaped = TakeRetired(s);
  lock.unlock();
  reaped.clear();
}

// Reports (and clears) the stream's pending fault as the calling thread's error.
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
  if (fault.through_event) {
    return Fail(fault.status, std::string(api) + ": a kernel of " + fault.api +
                                  " queued on another stream failed on the device, and this stream waited for it "
                                  "through an event (work queued behind the wait was discarded): " + fault.message);
  }
  return Fail(fault.status, std::string(api) + ": a kernel of " + fault.api +
                                " queued on this stream failed on the device (work queued behind it was discarded): " +
                                fault.message);
}

// A call a capture forbids (`api`) invalidates it: aclmdlRICaptureEnd then makes no model.
void Invalidate(ModelState& model, const char* api) {
  std::lock_guard<std::mutex> lock(model.mutex);
  if (model.invalidated_by.empty()) model.invalidated_by = api;
}

// Waiting for a stream that is being captured: its captured work has not been launched (it runs
// when the model is executed), so the wait fails and invalidates the capture, as on CANN and CUDA.
aclError RefuseWhileCaptured(StreamState& s, const char* api) {
  auto model = CaptureOf(s);
  if (!model) return ACL_SUCCESS;
  Invalidate(*model, api);
  return Fail(ACL_ERROR_RT_STREAM_CAPTURED,
              std::string(api) + ": the stream is being captured (aclmdlRICaptureBegin): its work runs when the model "
                                 "is executed, so it cannot be waited for; the capture is invalidated");
}

// The calling thread's capture interaction mode (aclmdlRICaptureThreadExchangeMode).
thread_local aclmdlRICaptureMode t_capture_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

// A device-wide synchronisation is unsafe while a capture is on, as CUDA's rule for its
// "potentially unsafe" calls puts it: refused (and the capture invalidated) when a global-mode
// capture runs on any thread, or a thread-local one on the calling thread, unless the calling
// thread's mode is relaxed. The streams not being captured are drained otherwise, as always.
aclError RefuseDuringCapture(const std::vector<std::shared_ptr<StreamState>>& streams, const char* api) {
  if (t_capture_mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED) return ACL_SUCCESS;
  for (const auto& s : streams) {
    auto model = CaptureOf(*s);
    if (!model) continue;
    bool unsafe;
    {
      std::lock_guard<std::mutex> lock(model->mutex);
      unsafe = model->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
               (model->mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL && model->thread == std::this_thread::get_id());
    }
    if (!unsafe) continue;
    Invalidate(*model, api);
    return Fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                std::string(api) + ": a stream of the device is being captured (aclmdlRICaptureBegin) in a mode that forbids "
                                   "synchronising the device (set ACL_MODEL_RI_CAPTURE_MODE_RELAXED with "
                                   "aclmdlRICaptureThreadExchangeMode to allow it); the capture is invalidated");
  }
  return ACL_SUCCESS;
}

// What invalidates a capture that ends with a task group open on one of its streams.
constexpr const char* kGroupLeftOpen = "a task group left open (aclmdlRICaptureTaskGrpBegin without aclmdlRICaptureTaskGrpEnd)";

// The capture `s` takes part in, taken from it with the task group open on it (null: none), under its lock.
struct LeftCapture {
  std::shared_ptr<ModelState> model;
  bool group_was_open = false;
};
LeftCapture LeaveCapture(StreamState& s, const std::shared_ptr<ModelState>& only = nullptr) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.capture || (only && s.capture != only)) return {};
  LeftCapture left{std::move(s.capture), s.open_group != nullptr};
  s.open_group.reset();
  s.capturing.store(false, std::memory_order_release);
  return left;
}

// Releases the aclrtTaskGrp handles of a model that is gone (destroyed, or its capture invalidated).
void ReleaseGroups(const std::vector<uintptr_t>& groups) {
  for (uintptr_t group : groups) State().groups.Take(reinterpret_cast<void*>(group));
}

// Ends `model`'s capture once its origin stream has left it (aclmdlRICaptureEnd, or the origin
// destroyed): the streams that joined it leave it too, and a task group still open on any of them
// is interrupted, which invalidates the capture. Without an invalidation the model is made (it may
// be executed); otherwise it is released with its task groups, nothing left for aclmdlRIDestroy, and
// what invalidated it is returned.
std::string EndCapture(const std::shared_ptr<ModelState>& model, bool group_was_open) {
  std::vector<std::weak_ptr<StreamState>> joined;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    joined.swap(model->joined);
  }
  for (const auto& weak : joined) {
    if (auto other = weak.lock()) group_was_open |= LeaveCapture(*other, model).group_was_open;
  }
  std::vector<uintptr_t> groups;
  std::string invalidated_by;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    if (group_was_open && model->invalidated_by.empty()) model->invalidated_by = kGroupLeftOpen;
    invalidated_by = model->invalidated_by;
    model->ended = invalidated_by.empty();
    if (!model->ended) groups.swap(model->groups);
  }
  if (!invalidated_by.empty()) {
    State().models.Take(reinterpret_cast<void*>(model->handle));
    ReleaseGroups(groups);
  }
  return invalidated_by;
}

// `s` is being destroyed by `api` (aclrtDestroyStreamForce, a device reset): what it records instead
// of running ends. A capture it takes part in is invalidated (its work is gone with it) and, when it
// began there, ended, making no model; an update of a task group open on it is dropped.
void AbandonRecording(StreamState& s, const char* api) {
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.destroyed = true;
    s.update.reset();
    s.updating.store(false, std::memory_order_release);
  }
  LeftCapture left = LeaveCapture(s);
  if (!left.model) return;
  Invalidate(*left.model, api);
  if (left.model->stream == s.handle) EndCapture(left.model, left.group_was_open);
}

aclError Synchronize(const std::shared_ptr<StreamState>& s, const char* api) {
  if (aclError status = RefuseWhileCaptured(*s, api)) return status;
  Drain(s);
  State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  return TakeFault(*s, api);
}

// Waits until the stream has run every task enqueued so far, or until `deadline`: false on time-out.
// Unlike Drain, the waiting thread runs no task itself (it must be free to give up).
bool DrainBefore(const std::shared_ptr<StreamState>& self, std::chrono::steady_clock::time_point deadline) {
  StreamState& s = *self;
  const uint64_t target = s.enqueued.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.queue.empty() && s.worker_sleeping) s.wake.notify_one();
  ++s.waiters;
  const bool done = s.idle.wait_until(lock, deadline, [&] { return s.completed.load(std::memory_order_acquire) >= target; });
  --s.waiters;
  return done;
}

// A synchronisation bounded by `timeout` milliseconds (-1: none), as the *WithTimeout calls take it.
aclError SynchronizeWithin(const std::shared_ptr<StreamState>& s, int32_t timeout, const char* api) {
  if (timeout == -1) return Synchronize(s, api);
  if (aclError status = RefuseWhileCaptured(*s, api)) return status;
  if (timeout <= 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": timeout must be -1 or a positive number of ms");
  if (!DrainBefore(s, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout))) {
    return Fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, std::string(api) + ": the stream's queued work did not finish within " +
                                                      std::to_string(timeout) + " ms");
  }
  State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  return TakeFault(*s, api);
}

// Every stream of `device` (its default stream included), as shared pointers.
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

// An event whose latest record was captured has not been reached and cannot be (until the model
// runs): waiting for it or timing it fails. Requires the event's mutex.
aclError RefuseCapturedRecord(const EventState& e, const char* api) {
  if (!e.record_captured) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_EVENT_CAPTURED, std::string(api) + ": the event's latest record was captured into a model "
                                                               "(aclmdlRICaptureBegin) and runs only when the model is executed");
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
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (kind == Task::Kind::kRecord) {
      e->record_captured = capture != nullptr;
      e->captured_into = capture;
      if (!capture) task.version = ++e->recorded;
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

}  // namespace

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

void WaitForUsers(uintptr_t begin, uintptr_t end) {
  for (const auto& self : StreamsOf(-1, false)) {
    StreamState& s = *self;
    std::unique_lock<std::mutex> lock(s.mutex);
    uint64_t last = 0;
    if (s.running && s.running->Touches(begin, end)) last = s.running->ticket;
    s.queue.ForEach([&](const Task& task) {
      if (task.Touches(begin, end)) last = task.ticket;
    });
    if (last == 0) continue;
    ++s.waiters;
    s.idle.wait(lock, [&] { return s.completed.load(std::memory_order_acquire) >= last; });
    --s.waiters;
    State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  }
}

void ReleaseStreams(int32_t device) {
  for (const auto& s : StreamsOf(device, true)) {
    AbandonRecording(*s, "the device's reset (aclrtResetDevice, aclFinalize)");
    Drain(s);
    s->Stop();
  }
}

StreamCounts GetStreamCounts() {
  Streams& state = State();
  return StreamCounts{state.streams.size(), state.events.size(), state.stream_syncs.load(), state.device_syncs.load(),
                      state.kernels_launched.load(), state.events_recorded.load()};
}

bool IsLiveStream(aclrtStream stream) { return State().streams.Find(stream) != nullptr; }

void SetKernelHelper(bool (*help)()) { g_kernel_helper.store(help, std::memory_order_release); }

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

}  // namespace aclsim

using aclsim::Fail;

namespace aclsim {
namespace {

aclError CreateStream(aclrtStream* stream, uint32_t priority, uint32_t flag, const char* api) {
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is a null pointer");
  if (priority > 7) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": priority must be in 0..7, not " + std::to_string(priority));
  constexpr uint32_t kKnownFlags = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT |
                                   ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  if (flag & ~kKnownFlags) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown stream flags " + std::to_string(flag));
  if (flag & ACL_STREAM_PERSISTENT) {
    // A persistent stream keeps its tasks for model capture and replay, which is not modelled.
    return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, std::string(api) + ": ACL_STREAM_PERSISTENT (model capture) is not modelled by the simulator");
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
  // one running finishes, as a device's would.
  s->discard_all.store(true);
  aclsim::Drain(s);
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

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  if (!fn) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtLaunchHostFunc", &s)) return status;
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kHostFunc;
  task.api = "aclrtLaunchHostFunc";
  task.host_fn = fn;
  task.host_args = args;
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtSubscribeReport", &s)) return status;
  auto& reporters = aclsim::ReportersState();
  std::lock_guard<std::mutex> lock(reporters.mutex);
  {
    std::lock_guard<std::mutex> stream_lock(s->mutex);
    if (s->subscriber != 0) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSubscribeReport: the stream already has a subscribed thread");
    s->subscriber = threadId;
  }
  auto& queue = reporters.by_thread[threadId];
  if (!queue) queue = std::make_shared<aclsim::ReportQueue>();
  ++queue->streams;
  return ACL_SUCCESS;
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtUnSubscribeReport", &s)) return status;
  auto& reporters = aclsim::ReportersState();
  std::lock_guard<std::mutex> lock(reporters.mutex);
  {
    std::lock_guard<std::mutex> stream_lock(s->mutex);
    if (s->subscriber != threadId) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtUnSubscribeReport: the thread is not subscribed to the stream");
    s->subscriber = 0;
  }
  auto it = reporters.by_thread.find(threadId);
  if (it != reporters.by_thread.end() && --it->second->streams == 0) reporters.by_thread.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream stream) {
  if (!fn) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is a null pointer");
  if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: unknown aclrtCallbackBlockType");
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclrtLaunchCallback", &s)) return status;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->subscriber == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: no thread is subscribed to the stream (aclrtSubscribeReport)");
    }
  }
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kCallback;
  task.api = "aclrtLaunchCallback";
  task.host_fn = fn;
  task.host_args = userData;
  task.block = blockType == ACL_CALLBACK_BLOCK;
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclrtProcessReport(int32_t timeout) {
  if (timeout < -1 || timeout == 0) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: timeout must be -1 or a positive number of ms");
  auto queue = aclsim::FindReporter(static_cast<uint64_t>(pthread_self()));
  if (!queue) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: the calling thread is subscribed to no stream (aclrtSubscribeReport)");
  aclsim::Report report;
  {
    std::unique_lock<std::mutex> lock(queue->mutex);
    auto ready = [&] { return !queue->reports.empty(); };
    if (timeout == -1) {
      queue->ready.wait(lock, ready);
    } else if (!queue->ready.wait_for(lock, std::chrono::milliseconds(timeout), ready)) {
      return Fail(ACL_ERROR_RT_REPORT_TIMEOUT, "aclrtProcessReport: no callback arrived within " + std::to_string(timeout) + " ms");
    }
    report = std::move(queue->reports.front());
    queue->reports.pop_front();
  }
  report.fn(report.args);
  if (report.done) report.done->set_value();
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
  std::shared_ptr<aclsim::ModelState> capture;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->update) {
      return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is updating a task group "
                                                     "(end the update with aclmdlRICaptureTaskUpdateEnd first)");
    }
    capture = s->capture;
    if (!capture) s->destroyed = true;
  }
  if (capture) {
    aclsim::Invalidate(*capture, api);
    return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is being captured (aclmdlRICaptureBegin): "
                                                                 "end the capture with aclmdlRICaptureEnd first; the capture is invalidated");
  }
  if (!aclsim::State().streams.Take(stream)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live stream (destroyed twice, or its device was reset?)");
  }
  // The queued work finishes first (CANN asks callers to synchronise before destroying).
  if (s->completed.load() != s->enqueued.load()) {
    aclsim::Drain(s);
    aclsim::State().stream_syncs.fetch_add(1, std::memory_order_relaxed);
  }
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
    aclsim::Drain(s);
    const aclError status = aclsim::TakeFault(*s, "aclrtSynchronizeDevice");
    if (status != ACL_SUCCESS && first == ACL_SUCCESS) {
      first = status;
      message = aclGetRecentErrMsg();
    }
  }
  if (first != ACL_SUCCESS) aclsim::SetError(message);
  return first;
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is a null pointer");
  *event = reinterpret_cast<aclrtEvent>(aclsim::State().events.Add(std::make_shared<aclsim::EventState>()));
  return ACL_SUCCESS;
}

}  // extern "C"

namespace aclsim {
namespace {

aclError CreateEventWithFlag(aclrtEvent* event, uint32_t flag, const char* api) {
  if (!event) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": event is a null pointer");
  constexpr uint32_t kKnown = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE |
                              ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;
  if (flag & ~kKnown) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown event flags " + std::to_string(flag));
  if (flag & ACL_EVENT_IPC) {
    return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, std::string(api) + ": ACL_EVENT_IPC (events shared between processes) is not modelled by the simulator");
  }
  // Every simulated event can be synchronised on and timed: the other flags select hardware
  // resources that the simulator does not distinguish.
  *event = reinterpret_cast<aclrtEvent>(State().events.Add(std::make_shared<EventState>(flag)));
  return ACL_SUCCESS;
}

}  // namespace
}  // namespace aclsim

extern "C" {

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
  *status = e->completed >= e->recorded ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  if (!timestamp) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: timestamp is a null pointer");
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: event is not a live event");
  std::lock_guard<std::mutex> lock(e->mutex);
  if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtEventGetTimestamp")) return refused;
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
  if (!aclsim::State().events.Take(event)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: not a live event (destroyed twice?)");
  }
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return aclsim::QueueEventTask(event, stream, aclsim::Task::Kind::kRecord, "aclrtRecordEvent");
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return aclsim::QueueEventTask(event, stream, aclsim::Task::Kind::kWait, "aclrtStreamWaitEvent");
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  auto e = event ? aclsim::State().events.Find(event) : nullptr;
  if (!e) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent: event is not a live event");
  std::shared_ptr<aclsim::StreamState> faulted;
  {
    std::unique_lock<std::mutex> lock(e->mutex);
    if (aclError refused = aclsim::RefuseCapturedRecord(*e, "aclrtSynchronizeEvent")) return refused;
    const uint64_t version = e->recorded;
    e->reached.wait(lock, [&] { return e->completed >= version; });
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
  *status = e->completed >= e->recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
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
    if (aclError refused = aclsim::RefuseCapturedRecord(*events[i], "aclrtEventElapsedTime")) return refused;
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

}  // extern "C"

// --- graph capture (aclmdlRI*) ------------------------------------------------------------------

namespace aclsim {
namespace {

// A captured copy or fill whose device memory was freed since the capture would write or read memory
// the simulator may have unmapped: refused before anything of the replay is queued.
aclError CheckReplayedRanges(const std::vector<Task>& tasks, const char* api) {
  auto live = [](const void* p, size_t count) {
    DeviceRange range;
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    return FindDeviceAllocation(p, &range) && count <= range.base + range.size - address;
  };
  for (const Task& replayed : tasks) {
    Task current;  // a task group's member is checked with its current arguments
    if (replayed.group) current = replayed.group->Current(replayed.member);
    const Task& task = replayed.group ? current : replayed;
    if (task.kind != Task::Kind::kCopy && task.kind != Task::Kind::kFill) continue;
    if ((task.dst_on_device && !live(task.dst, task.count)) || (task.src_on_device && !live(task.src, task.count))) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the model's " + task.api +
                                               " uses device memory that was freed since it was captured");
    }
  }
  return ACL_SUCCESS;
}

// Queues copies of `model`'s tasks on `s`, in capture order: a record is numbered as a new record
// of its event, a wait waits for its event's latest record at this point (within the model, the
// record replayed before it). Onto a stream that is itself being captured, they go into its model.
aclError ReplayModel(ModelState& model, const std::shared_ptr<StreamState>& s, const char* api) {
  std::vector<Task> tasks;
  {
    std::lock_guard<std::mutex> lock(model.mutex);
    tasks = model.tasks;
  }
  if (aclError status = CheckReplayedRanges(tasks, api)) return status;
  if (UpdateOpen(*s)) {
    return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP, std::string(api) + ": the stream is updating a task group "
                                                            "(aclmdlRICaptureTaskUpdateBegin): a model's replay cannot re-record it");
  }
  const std::shared_ptr<ModelState> capture = CaptureOf(*s);
  const bool captured = capture != nullptr;
  for (Task& task : tasks) {
    if (task.kind == Task::Kind::kRecord || task.kind == Task::Kind::kWait) {
      std::lock_guard<std::mutex> lock(task.event->mutex);
      if (task.kind == Task::Kind::kRecord) {
        task.event->record_captured = captured;
        task.event->captured_into = capture;
        task.version = captured ? 0 : ++task.event->recorded;
      } else {
        task.version = task.event->recorded;
      }
    }
    if (!captured) {
      if (task.kind == Task::Kind::kRecord) State().events_recorded.fetch_add(1, std::memory_order_relaxed);
      if (task.kind == Task::Kind::kKernel) State().kernels_launched.fetch_add(1, std::memory_order_relaxed);
      if (task.kind == Task::Kind::kWait && task.version == 0) continue;
    }
    if (aclError status = Enqueue(s, std::move(task))) return status;
  }
  return ACL_SUCCESS;
}

// The live model `modelRI` names, for `api`.
aclError LiveModel(aclmdlRI modelRI, const char* api, std::shared_ptr<ModelState>* out) {
  *out = modelRI ? State().models.Find(modelRI) : nullptr;
  return *out ? ACL_SUCCESS : Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": modelRI is not a live model");
}

// The model `modelRI` names, ended (captured and returned by aclmdlRICaptureEnd), for `api`.
aclError EndedModel(aclmdlRI modelRI, const char* api, std::shared_ptr<ModelState>* out) {
  if (aclError status = LiveModel(modelRI, api, out)) return status;
  std::lock_guard<std::mutex> lock((*out)->mutex);
  if (!(*out)->ended) {
    return Fail(ACL_ERROR_RT_MODEL_CAPTURED, std::string(api) + ": the model is still being captured (end it with aclmdlRICaptureEnd)");
  }
  return ACL_SUCCESS;
}

// The model as JSON: its id, its stream and its tasks (type, the API that launched each).
std::string ModelJson(ModelState& model) {
  std::lock_guard<std::mutex> lock(model.mutex);
  std::string json = "{\"modelRI\": " + std::to_string(model.id) + ", \"stream\": " + std::to_string(model.stream & 0x7fffffff) +
                     ", \"tasks\": [";
  for (size_t i = 0; i < model.tasks.size(); ++i) {
    const Task& task = model.tasks[i];
    json += (i ? ", " : "") + std::string("{\"seq\": ") + std::to_string(i) + ", \"type\": \"" + TaskTypeName(task.kind) +
            "\", \"api\": \"" + task.api + "\"}";
  }
  return json + "]}";
}

}  // namespace
}  // namespace aclsim

extern "C" {

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  constexpr const char* api = "aclmdlRICaptureBegin";
  if (mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclmdlRICaptureMode " + std::to_string(static_cast<int>(mode)));
  }
  // As CUDA's legacy default stream, a device's default stream is shared by every caller: its
  // work cannot be captured.
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the default stream cannot be captured (capture a stream made by aclrtCreateStream)");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  auto model = std::make_shared<aclsim::ModelState>();
  model->stream = s->handle;
  model->mode = mode;
  model->thread = std::this_thread::get_id();
  model->id = aclsim::State().models_made.fetch_add(1) + 1;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->destroyed) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is not a live stream");
  if (s->capture) return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is already being captured");
  if (s->update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is updating a task group "
                                                                       "(end the update with aclmdlRICaptureTaskUpdateEnd first)");
  }
  model->handle = aclsim::State().models.Add(model);
  s->capture = std::move(model);
  s->capturing.store(true, std::memory_order_release);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  constexpr const char* api = "aclmdlRICaptureEnd";
  if (!modelRI) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": modelRI is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (!s->capture) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
    if (s->capture->stream != s->handle) {
      // As CUDA's cudaErrorStreamCaptureUnmatched: a stream that joined a capture does not end it.
      return Fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, std::string(api) + ": the stream joined a capture begun on another "
                                                                            "stream (end it there)");
    }
    if (s->capture->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && s->capture->thread != std::this_thread::get_id()) {
      return Fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                  std::string(api) + ": the capture was begun by another thread (only a relaxed-mode capture may end elsewhere)");
    }
  }
  aclsim::LeftCapture left = aclsim::LeaveCapture(*s);
  if (!left.model) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
  const std::string invalidated_by = aclsim::EndCapture(left.model, left.group_was_open);
  if (!invalidated_by.empty()) {
    *modelRI = nullptr;
    // A task group left open interrupts the capture (ACL_ERROR_STREAM_TASK_GROUP_INTR); any other
    // invalidation leaves the streams unjoined from a model.
    return Fail(invalidated_by == aclsim::kGroupLeftOpen ? ACL_ERROR_STREAM_TASK_GROUP_INTR : ACL_ERROR_RT_STREAM_UNJOINED,
                std::string(api) + ": the capture was invalidated by " + invalidated_by + ": no model was made");
  }
  *modelRI = reinterpret_cast<aclmdlRI>(left.model->handle);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI) {
  if (!status) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: status is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError code = aclsim::Resolve(stream, "aclmdlRICaptureGetInfo", &s)) return code;
  auto model = aclsim::CaptureOf(*s);
  *status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
  if (model) {
    std::lock_guard<std::mutex> lock(model->mutex);
    *status = model->invalidated_by.empty() ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
  }
  if (modelRI) *modelRI = model ? reinterpret_cast<aclmdlRI>(model->handle) : nullptr;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode* mode) {
  if (!mode) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: mode is a null pointer");
  if (*mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || *mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: unknown aclmdlRICaptureMode");
  }
  const aclmdlRICaptureMode previous = aclsim::t_capture_mode;  // the documented exchange, per thread
  aclsim::t_capture_mode = *mode;
  *mode = previous;
  return ACL_SUCCESS;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, "aclmdlRIExecuteAsync", &model)) return status;
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, "aclmdlRIExecuteAsync", &s)) return status;
  return aclsim::ReplayModel(*model, s, "aclmdlRIExecuteAsync");
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  constexpr const char* api = "aclmdlRIExecute";
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, api, &model)) return status;
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(reinterpret_cast<aclrtStream>(model->stream), api, &s)) {
    return Fail(status, std::string(api) + ": the stream the model was captured from was destroyed (use aclmdlRIExecuteAsync on a stream)");
  }
  if (aclError status = aclsim::ReplayModel(*model, s, api)) return status;
  return aclsim::SynchronizeWithin(s, timeout, api);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  constexpr const char* api = "aclmdlRIDestroy";
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::EndedModel(modelRI, api, &model)) return status;
  // Replays already queued hold copies of its tasks (and its task groups): destroying it now is safe.
  aclsim::State().models.Take(modelRI);
  std::vector<uintptr_t> groups;
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    groups.swap(model->groups);
  }
  aclsim::ReleaseGroups(groups);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  constexpr const char* api = "aclmdlRICaptureTaskGrpBegin";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (!s->capture) return Fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, std::string(api) + ": the stream is not being captured");
  if (s->open_group) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": a task group is already open on the stream "
                                                                       "(end it with aclmdlRICaptureTaskGrpEnd; groups do not nest)");
  }
  s->open_group = std::make_shared<aclsim::TaskGroupState>();
  s->open_group->model = s->capture;
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp* handle) {
  constexpr const char* api = "aclmdlRICaptureTaskGrpEnd";
  if (!handle) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle is a null pointer");
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::shared_ptr<aclsim::TaskGroupState> group;
  std::shared_ptr<aclsim::ModelState> model;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (!s->open_group) {
      return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": no task group is open on the stream "
                                                                         "(begin one with aclmdlRICaptureTaskGrpBegin)");
    }
    group = std::move(s->open_group);
    model = s->capture;  // an open group's stream is being captured: the capture's end closes its groups
  }
  *handle = nullptr;
  std::lock_guard<std::mutex> lock(model->mutex);
  if (!model->invalidated_by.empty()) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_INTR, std::string(api) + ": the capture was invalidated by " + model->invalidated_by +
                                                      " while the task group was open");
  }
  const uintptr_t made = aclsim::State().groups.Add(group);
  model->groups.push_back(made);
  *handle = reinterpret_cast<aclrtTaskGrp>(made);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle) {
  constexpr const char* api = "aclmdlRICaptureTaskUpdateBegin";
  // As for a capture: the default stream is shared by every caller, whose launches it would divert.
  if (!stream) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the default stream cannot update a task group (use a stream made by aclrtCreateStream)");
  auto group = handle ? aclsim::State().groups.Find(handle) : nullptr;
  if (!group) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle is not a live task group (made by aclmdlRICaptureTaskGrpEnd, "
                                                            "it lives as long as its model)");
  }
  auto model = group->model.lock();
  if (!model) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the task group's model was destroyed");
  {
    std::lock_guard<std::mutex> lock(model->mutex);
    if (!model->ended) {
      return Fail(ACL_ERROR_RT_MODEL_CAPTURED, std::string(api) + ": the task group's model is still being captured (end it with aclmdlRICaptureEnd)");
    }
  }
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::lock_guard<std::mutex> lock(s->mutex);
  if (s->destroyed) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": stream is not a live stream");
  if (s->capture) {
    return Fail(ACL_ERROR_RT_STREAM_CAPTURED, std::string(api) + ": the stream is being captured: an update runs on a stream that is not");
  }
  if (s->update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is already updating a task group "
                                                                       "(end that update with aclmdlRICaptureTaskUpdateEnd)");
  }
  s->update = std::make_shared<aclsim::TaskUpdate>();
  s->update->group = std::move(group);
  s->updating.store(true, std::memory_order_release);
  return ACL_SUCCESS;
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  constexpr const char* api = "aclmdlRICaptureTaskUpdateEnd";
  std::shared_ptr<aclsim::StreamState> s;
  if (aclError status = aclsim::Resolve(stream, api, &s)) return status;
  std::shared_ptr<aclsim::TaskUpdate> update;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    update = std::move(s->update);
    s->updating.store(false, std::memory_order_release);
  }
  if (!update) {
    return Fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, std::string(api) + ": the stream is not updating a task group "
                                                                       "(begin with aclmdlRICaptureTaskUpdateBegin)");
  }
  // The update re-records the group's tasks with new arguments: the same tasks, in the same order
  // (a device patches each captured task in place; it cannot add, drop or change one's kind).
  std::string mismatch;
  {
    std::lock_guard<std::mutex> lock(update->group->mutex);
    const std::vector<aclsim::Task>& captured = update->group->members;
    const std::vector<aclsim::Task>& updated = update->members;
    if (updated.size() != captured.size()) {
      mismatch = "it launched " + std::to_string(updated.size()) + " kernels, copies and fills, the task group holds " +
                 std::to_string(captured.size());
    }
    for (size_t i = 0; mismatch.empty() && i < updated.size(); ++i) {
      if (updated[i].kind != captured[i].kind || (updated[i].kind == aclsim::Task::Kind::kKernel &&
                                                  std::strcmp(updated[i].api, captured[i].api) != 0)) {
        mismatch = "its task " + std::to_string(i) + " is a " + aclsim::TaskTypeName(updated[i].kind) + " of " + updated[i].api +
                   ", the task group's is a " + aclsim::TaskTypeName(captured[i].kind) + " of " + captured[i].api;
      }
    }
  }
  if (!mismatch.empty()) {
    return Fail(ACL_ERROR_RT_MODEL_UPDATE_FAILED, std::string(api) + ": the update does not match the task group (" + mismatch +
                                                      "): the task group keeps its arguments");
  }
  // Queued in the stream's order: the members change when the stream reaches it, so that work the
  // update stream was given before (the new arguments' inputs) is done first, and a replay that
  // waits for an event recorded after it runs them with the new arguments.
  aclsim::Task task;
  task.kind = aclsim::Task::Kind::kUpdate;
  task.api = api;
  task.update = std::move(update);
  return aclsim::Enqueue(s, std::move(task));
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t* modelRIId) {
  if (!modelRIId) return Fail(ACL_ERROR_INVALID_PARAM, "aclmdlRIGetId: modelRIId is a null pointer");
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, "aclmdlRIGetId", &model)) return status;
  *modelRIId = model->id;
  return ACL_SUCCESS;
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI) {
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, "aclmdlRIDebugPrint", &model)) return status;
  std::fprintf(stderr, "[aclnn-sim] aclmdlRI %s\n", aclsim::ModelJson(*model).c_str());
  return ACL_SUCCESS;
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char* path, uint32_t flags) {
  constexpr const char* api = "aclmdlRIDebugJsonPrint";
  (void)flags;  // print modes of the device's task descriptions, which the simulator does not have
  std::shared_ptr<aclsim::ModelState> model;
  if (aclError status = aclsim::LiveModel(modelRI, api, &model)) return status;
  if (!path) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": path is a null pointer");
  std::ofstream out(path);
  out << aclsim::ModelJson(*model) << "\n";
  if (!out) return Fail(ACL_ERROR_INVALID_FILE, std::string(api) + ": cannot write " + path);
  return ACL_SUCCESS;
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

}  // extern "C"
