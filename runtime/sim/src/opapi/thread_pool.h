// A small pool of worker threads for the elementwise engine (ACLNN_SIM_THREADS threads in all,
// the calling thread included; default: the hardware's, at most 16).
#ifndef ACLNN_SIM_OPAPI_THREAD_POOL_H_
#define ACLNN_SIM_OPAPI_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace aclsim {

// How many threads ParallelFor may use.
int ParallelThreads();

// Runs fn(task) for every task in [0, tasks), spread over the pool; returns when all are done.
// When the pool is busy with another caller's work, runs them on the calling thread instead.
void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& fn);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_THREAD_POOL_H_
