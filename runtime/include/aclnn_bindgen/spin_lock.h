// aclnn-bindgen: a lock for the short critical sections every call passes through (a registry
// lookup, a free list, the caching allocator's pools). Uncontended it is one atomic exchange,
// where a pthread mutex costs two library calls; contended it spins briefly and then yields, so
// that a holder preempted on a busy machine gets the core back.
#ifndef ACLNN_BINDGEN_SPIN_LOCK_H_
#define ACLNN_BINDGEN_SPIN_LOCK_H_

#include <sched.h>

#include <atomic>

namespace aclnn_bindgen {

class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire)) {
      for (int spins = 0; held_.load(std::memory_order_relaxed);) {
        if (++spins < 64) {
#if defined(__x86_64__)
          __builtin_ia32_pause();
#endif
        } else {
          sched_yield();
          spins = 0;
        }
      }
    }
  }
  bool try_lock() { return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire); }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_SPIN_LOCK_H_
