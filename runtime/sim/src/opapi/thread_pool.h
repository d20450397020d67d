// A small pool of worker threads for the elementwise engine (ACLNN_SIM_THREADS threads in all,
// the calling thread included; default: the hardware's, at most 16).
#ifndef ACLNN_SIM_OPAPI_THREAD_POOL_H_
#define ACLNN_SIM_OPAPI_THREAD_POOL_H_

#include <algorithm>
#include <cstdint>
#include <functional>

namespace aclsim {

// How many threads ParallelFor may use.
int ParallelThreads();

// Runs fn(task) for every task in [0, tasks), spread over the pool; returns when all are done.
// When the pool is busy with another caller's work, runs them on the calling thread instead.
void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn);

// ParallelFor's run on the pool alone: false, having run nothing, when the pool is busy with
// another caller's work (a task of it included) or there is none (one thread).
bool TryParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn);

// fn(begin, end) over [0, count) in parallel chunks when count * cost (elements times the work
// of each) is worth spreading, on the calling thread otherwise.
template <typename Fn>
void ParallelRange(int64_t count, int64_t cost, Fn&& fn) {
  constexpr int64_t kGrain = 1 << 15;  // the work a parallel task does at least
  const int64_t tasks = count * cost < kGrain ? 1 : std::min<int64_t>(count, ParallelThreads() * 4);
  if (tasks <= 1) {
    fn(int64_t{0}, count);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) { fn(count * task / tasks, count * (task + 1) / tasks); });
}

// Marks, while it lives, a kernel whose parallel part runs on another library's threads (oneDNN's
// OpenMP team, opapi/onednn.h). A thread lent to the pool meanwhile (a synchronising caller's,
// aclsimLendThread; a stream's idle worker) sleeps until every such kernel has ended instead of
// polling: on 2 cores each of its wake-ups took a core from the team, whose product is split
// statically and so waited for the preempted thread (a bfloat16 1024^3 mm through aclnn.synchronize,
// 20 calls interleaved with PyTorch's on a loaded machine: medians of 320-790 GFLOP/s over three
// runs with the caller polling, 684-713 with it asleep; the best calls alike).
class ForeignTeam {
 public:
  ForeignTeam();
  ~ForeignTeam();
  ForeignTeam(const ForeignTeam&) = delete;
  ForeignTeam& operator=(const ForeignTeam&) = delete;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_THREAD_POOL_H_
