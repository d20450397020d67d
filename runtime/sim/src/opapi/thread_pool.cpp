#include "opapi/thread_pool.h"

#include "ascendcl/settings.h"
#include "common/internal.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aclsim {
namespace {

constexpr int kMaxThreads = 16;
constexpr std::chrono::microseconds kSpin{100};
constexpr std::chrono::microseconds kPauseSpin{2};

int ConfiguredThreads() {
  if (Settings().threads > 0) return Settings().threads;
  const unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hardware, 1, kMaxThreads));
}

class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }

  // Never destroyed (see Instance): joining at exit would race with kernels still running in
  // other threads' static destructors; the OS reclaims the threads.

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  bool TryRun(int64_t tasks, const std::function<void(int64_t)>& fn) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    Job job{&fn, tasks};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      open_.store(true, std::memory_order_release);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    Drain();
    std::unique_lock<std::mutex> lock(mutex_);
    // Every thread that joined the job has left it: none can touch `job` after this.
    done_.wait(lock, [&] { return job.active == 0 && job.next.load() >= tasks; });
    job_ = nullptr;
    return true;
  }

  // A thread outside the pool (SetKernelHelper) joins the current job: whether it ran a task.
  bool Help() { return open_.load(std::memory_order_acquire) && Drain() > 0; }

 private:
  struct Job {
    const std::function<void(int64_t)>* fn;
    int64_t tasks;
    std::atomic<int64_t> next{0};
    int active = 0;  // threads inside Drain for this job (guarded by mutex_)
  };

  void Work() {
    uint64_t seen = 0;
    for (;;) {
      // Calls come in bursts (a model's ops, a test loop): look for the next job for a moment
      // before sleeping, so that a call of a few hundred microseconds does not wait for a wake-up.
      // Pausing for the first microseconds, then yielding the core between looks: a thread of
      // another library (PyTorch's OpenMP workers, woken for the next op) runs instead of waiting
      // for the spin to end.
      const auto now = std::chrono::steady_clock::now();
      const auto pausing = now + kPauseSpin, until = now + kSpin;
      while (generation_.load(std::memory_order_acquire) == seen) {
        const auto at = std::chrono::steady_clock::now();
        if (at >= until) break;
        if (at < pausing) {
          for (int i = 0; i < 64; ++i) Relax();
        } else {
          sched_yield();
        }
      }
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        seen = generation_.load(std::memory_order_acquire);
      }
      Drain();
    }
  }

  static void Relax() {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }

  // Joins the current job (if any) and takes tasks until none are left: how many it ran.
  int64_t Drain() {
    Job* job;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job = job_;
      if (!job) return 0;
      ++job->active;
    }
    int64_t ran = 0;
    for (int64_t task = job->next.fetch_add(1); task < job->tasks; task = job->next.fetch_add(1), ++ran) {
      (*job->fn)(task);
    }
    // Every task is taken: threads looking for work (Help) need not take the lock.
    open_.store(false, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--job->active == 0) done_.notify_all();
    return ran;
  }

  std::vector<std::thread> workers_;
  std::mutex busy_;  // one parallel region at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> open_{false};  // the current job may have tasks left
};

std::mutex g_instance_mutex;
std::atomic<Pool*> g_pool{nullptr};

// The kernels running on another library's threads (ForeignTeam), and their end.
std::atomic<int> g_foreign_teams{0};
std::mutex g_foreign_mutex;
std::condition_variable g_foreign_ended;
// How long a lent thread sleeps at most: the bindings' poll checks for Ctrl-C between its rounds.
constexpr std::chrono::milliseconds kForeignWait{20};

// Sleeps until no kernel runs on another library's threads (or kForeignWait has passed): whether
// one was running.
bool WaitForeignTeams() {
  if (g_foreign_teams.load(std::memory_order_acquire) == 0) return false;
  std::unique_lock<std::mutex> lock(g_foreign_mutex);
  g_foreign_ended.wait_for(lock, kForeignWait, [] { return g_foreign_teams.load(std::memory_order_acquire) == 0; });
  return true;
}

bool HelpPool() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  return (pool && pool->Help()) || WaitForeignTeams();
}

void ForgetPoolInChild() {
  // A forked child has none of the parent's worker threads: start afresh (the old pool's memory
  // is abandoned, its locks may be held by threads that do not exist here).
  new (&g_instance_mutex) std::mutex;
  g_pool.store(nullptr);
}

// Registered when the library loads, not by the first kernel that asks for the pool: that kernel
// runs as device work a fork waits for (ascendcl/stream_worker.cpp's PrepareFork), and before glibc 2.36
// pthread_atfork waits for a fork being prepared: each would wait for the other.
[[maybe_unused]] const bool g_forgets_pool_in_child = pthread_atfork(nullptr, nullptr, ForgetPoolInChild) == 0;

Pool* Instance() {
  // Every kernel asks (ParallelThreads, ParallelFor): once the pool exists, no lock.
  if (Pool* pool = g_pool.load(std::memory_order_acquire)) return pool;
  std::lock_guard<std::mutex> lock(g_instance_mutex);
  if (!g_pool.load(std::memory_order_relaxed)) {
    const int threads = ConfiguredThreads();
    if (threads > 1) {
      g_pool.store(new Pool(threads), std::memory_order_release);
      SetKernelHelper(HelpPool);
    }
  }
  return g_pool.load(std::memory_order_relaxed);
}

}  // namespace

int ParallelThreads() {
  Pool* pool = Instance();
  return pool ? pool->size() : 1;
}

ForeignTeam::ForeignTeam() {
  std::lock_guard<std::mutex> lock(g_foreign_mutex);
  g_foreign_teams.fetch_add(1, std::memory_order_release);
}

ForeignTeam::~ForeignTeam() {
  {
    std::lock_guard<std::mutex> lock(g_foreign_mutex);
    g_foreign_teams.fetch_sub(1, std::memory_order_release);
  }
  g_foreign_ended.notify_all();
}

bool TryParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn) {
  Pool* pool = Instance();
  return pool && pool->TryRun(tasks, fn);
}

void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn) {
  Pool* pool = tasks > 1 ? Instance() : nullptr;
  if (pool && pool->TryRun(tasks, fn)) return;
  for (int64_t task = 0; task < tasks; ++task) fn(task);
}

}  // namespace aclsim
