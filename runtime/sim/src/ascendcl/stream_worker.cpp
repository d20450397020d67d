// libascendcl's stream workers: the thread that runs each stream's queue in order, the hand-off of a
// launch to it (Enqueue) and of a synchronisation's wait (Drain, which runs queued tasks itself),
// the kernel pool's share of both, and fork safety (a fork waits for the device work running now).
// The model they follow is streams.h's; the state they share is stream_state.h's.
#include "ascendcl/stream_state.h"

#include <pthread.h>
#include <sched.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

}  // namespace

bool HelpKernel() {
  bool (*help)() = g_kernel_helper.load(std::memory_order_acquire);
  return help && help();
}

namespace {

// Never destroyed: workers may run during exit. A forked child gets a fresh one (ChildAfterFork).
Streams* g_streams = nullptr;
std::once_flag g_streams_made;

}  // namespace

Streams& State() {
  std::call_once(g_streams_made, [] { g_streams = new Streams; });
  return *g_streams;
}

namespace {

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

// The time each device had a kernel, a copy or a fill running on any of its streams: the union of
// those intervals, not their sum, so that two streams busy at once count once (a share of wall time).
struct Busy {
  int running = 0;
  std::chrono::steady_clock::time_point since;  // when `running` last went from 0 to 1
  std::chrono::nanoseconds total{0};
};
struct BusyTimes {
  std::mutex mutex;
  std::map<int32_t, Busy> by_device;
};
BusyTimes& Busyness() {
  static BusyTimes* times = new BusyTimes;  // never destroyed: workers may run during exit
  return *times;
}

// Counts the device busy while a task of its runs.
class BusyDevice {
 public:
  explicit BusyDevice(int32_t device) : device_(device) {
    BusyTimes& times = Busyness();
    std::lock_guard<std::mutex> lock(times.mutex);
    Busy& busy = times.by_device[device_];
    if (busy.running++ == 0) busy.since = std::chrono::steady_clock::now();
  }
  ~BusyDevice() {
    BusyTimes& times = Busyness();
    std::lock_guard<std::mutex> lock(times.mutex);
    Busy& busy = times.by_device[device_];
    if (--busy.running == 0) busy.total += std::chrono::steady_clock::now() - busy.since;
  }
  BusyDevice(const BusyDevice&) = delete;
  BusyDevice& operator=(const BusyDevice&) = delete;

 private:
  const int32_t device_;
};

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

}  // namespace

std::chrono::nanoseconds DeviceBusyTime(int32_t device) {
  BusyTimes& times = Busyness();
  std::lock_guard<std::mutex> lock(times.mutex);
  auto it = times.by_device.find(device);
  if (it == times.by_device.end()) return std::chrono::nanoseconds{0};
  const Busy& busy = it->second;
  return busy.total + (busy.running ? std::chrono::steady_clock::now() - busy.since : std::chrono::nanoseconds{0});
}

void RegisterForkHandlers() {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork); });
}

// The modes are acl_rt.h's ACL_STREAM_WAIT_VALUE_*, CUDA's cuStreamWaitValue64 ones, compared on the
// whole 64-bit word.
bool ValueReached(uint64_t word, uint64_t value, uint32_t mode) {
  switch (mode) {
    case ACL_STREAM_WAIT_VALUE_GEQ: return word >= value;
    case ACL_STREAM_WAIT_VALUE_EQ: return word == value;
    case ACL_STREAM_WAIT_VALUE_AND: return (word & value) != 0;
    default: return ~(word | value) != 0;  // ACL_STREAM_WAIT_VALUE_NOR (modes are checked at the launch)
  }
}

void RecordFault(StreamState& s, Fault fault) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.pending.status == 0) s.pending = std::move(fault);
  s.faulted.store(true, std::memory_order_release);
}

namespace {

// The stream's pending fault, copied (status 0: none).
Fault PendingFault(StreamState& s) {
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.pending;
}

// Holds the stream until another stream or the host writes the word (aclrtValueWait), polling as a
// device's wait task does; a stream stopped meanwhile (destroyed, its device reset) gives up.
void WaitForValue(StreamState& s, const Task& task) {
  const auto* word = static_cast<const uint64_t*>(task.dst);
  auto pause = std::chrono::microseconds(1);
  while (!ValueReached(__atomic_load_n(word, __ATOMIC_ACQUIRE), task.word, task.wait_mode)) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.stop || s.discard_all.load(std::memory_order_relaxed)) return;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
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
  std::optional<BusyDevice> busy;  // the device's utilisation (aclrtGetDeviceUtilizationRate)
  if (task.kind == Task::Kind::kKernel || task.kind == Task::Kind::kCopy || task.kind == Task::Kind::kFill) {
    counted.emplace();
    if (!discard) busy.emplace(s.device);
  }
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
      if (status == ACLNN_ERR_INNER_FIND_KERNEL_ERROR) {
        // Work the simulator has no kernel for (opapi/work.h NotSimulatedWork): its own status and
        // message, which say so by name, not a device exception.
        RecordFault(s, Fault{status, task.api, aclGetRecentErrMsg(), task.executor->handle, task.launch});
      } else if (status != ACLNN_SUCCESS) {
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
    case Task::Kind::kValueWrite:
      if (!discard) __atomic_store_n(static_cast<uint64_t*>(task.dst), task.word, __ATOMIC_RELEASE);
      return;
    case Task::Kind::kValueWait:
      if (!discard) WaitForValue(s, task);
      return;
    case Task::Kind::kRecord:
      CompleteEvent(*task.event, task.version, discard ? self : nullptr, discard ? PendingFault(s) : Fault{});
      return;
    case Task::Kind::kReset:
      // Not dropped behind a fault, as a record is not: the event's state stays in the host's order.
      ResetEvent(*task.event, task.version);
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
      Fault carried = task.future ? WaitForFutureRecord(s, *task.event, task.version)
                                  : WaitForEvent(s, *task.event, task.version);
      if (carried.status != 0) {
        carried.through_event = !carried.unmet_wait;
        RecordFault(s, std::move(carried));
      }
      return;
    }
  }
}

// Whether the task may hold whoever runs it until a host call (stalls.cpp): a wait for an event or a
// device word, a callback run by the subscribed thread. A synchronisation leaves them to the worker,
// so that it can give up on a stall.
bool MayHold(const Task& task) {
  return task.kind == Task::Kind::kWait || task.kind == Task::Kind::kValueWait || task.kind == Task::Kind::kCallback;
}

// The next task for the calling thread to run, when the stream has one and no other thread runs
// one of its tasks (its tasks run one at a time, in order); not one that may hold it unless
// `holding`. Requires the stream's mutex.
bool TakeNext(StreamState& s, Task* task, bool holding) {
  if (s.queue.empty() || s.held || s.running || (!holding && MayHold(s.queue.Front()))) return false;
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
      if (!TakeNext(s, &task, true)) {
        if (s.stop && s.queue.empty()) return;  // stopped, and everything queued has run
        lock.unlock();
        SpinFor(kWorkerSpin, [&] { return s.enqueued.load(std::memory_order_acquire) != s.completed.load(std::memory_order_relaxed); });
        lock.lock();
        bool lent = false;  // once per wake-up: a long task of the synchronisation's is not polled
        while (!TakeNext(s, &task, true)) {
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

}  // namespace

aclError Enqueue(const std::shared_ptr<StreamState>& self, Task&& task) {
  StreamState& s = *self;
  State().launches.fetch_add(1, std::memory_order_release);  // the host is active (stalls.cpp)
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

aclError Drain(const std::shared_ptr<StreamState>& self, const char* api, const char* consequence) {
  StreamState& s = *self;
  const uint64_t target = s.enqueued.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(s.mutex);
  std::string stall;
  while (s.completed.load(std::memory_order_acquire) < target) {
    Task task;
    if (TakeNext(s, &task, false)) {
      lock.unlock();
      Execute(self, task);
      lock.lock();
      Finish(s, task);
      continue;
    }
    auto ready = [&] {
      return s.completed.load(std::memory_order_acquire) >= target ||
             (!s.running && !s.held && !s.queue.empty() && !MayHold(s.queue.Front()));
    };
    lock.unlock();
    // The worker runs the task: its parallel part, if any, takes this thread too.
    bool helped = false;
    SpinFor(kSyncSpin, [&] { return s.completed.load(std::memory_order_acquire) >= target || (helped = HelpKernel()); });
    lock.lock();
    if (helped) continue;
    if (!s.running && !s.queue.empty() && s.worker_sleeping) s.wake.notify_one();  // a wait is the worker's
    ++s.waiters;
    const bool going = WaitUnlessStalled(lock, s.idle, &s, ready, [&] { return StallOf(self); }, &stall);
    --s.waiters;
    if (!going) break;
  }
  if (!s.queue.empty() && s.worker_sleeping) s.wake.notify_one();  // what is left is the worker's
  auto& reaped = TakeRetired(s);
  lock.unlock();
  reaped.clear();
  if (stall.empty()) return ACL_SUCCESS;
  return FailStalled(ACL_ERROR_RT_STREAM_NOT_COMPLETE, std::string(api) + ": the stream's queued work cannot finish", stall,
                     consequence);
}

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

void SetKernelHelper(bool (*help)()) { g_kernel_helper.store(help, std::memory_order_release); }

}  // namespace aclsim
