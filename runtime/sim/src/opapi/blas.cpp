#include "opapi/blas.h"

#include <algorithm>
#include <mutex>

#include <cblas.h>

#include "opapi/thread_pool.h"

namespace aclsim {

// OpenBLAS keeps its own threads. Its threads callback (scipy_openblas_set_threads_callback_function)
// would run a product's jobs on the simulator's pool instead; measured on the stride-1 conv2d (nine
// products a call) on 2 cores under a load average of 14-17, it was slower, not faster: best of 10,
// three alternated processes each, 37-148 ms a call against 10-28 ms with OpenBLAS's threads (its
// jobs wait for one another's panels, and a pool thread asleep wakes later than OpenBLAS's, which
// spin between products).
void UseBlas() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(std::max(1, ParallelThreads())); });
}

}  // namespace aclsim
