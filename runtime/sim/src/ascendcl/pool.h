// Recycled memory for the small objects the simulator makes on every call (the objects behind
// handles, executors, their work, kernels' functors), so that a call's steady state allocates
// nothing from the heap.
//
// One pool per process, in libascendcl (every library links it): an object may be made in one
// library and released in another (an executor is made by libopapi's phase 1 and dropped by
// libascendcl's stream worker).
#ifndef ACLNN_SIM_ASCENDCL_POOL_H_
#define ACLNN_SIM_ASCENDCL_POOL_H_

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

#define ACLSIM_POOL_EXPORT __attribute__((visibility("default")))

namespace aclsim {

// Blocks of `bytes` (at most 16-byte aligned): small sizes come from per-size free lists, large
// ones from the heap. PoolFree takes the size PoolAllocate was given.
ACLSIM_POOL_EXPORT void* PoolAllocate(size_t bytes);
ACLSIM_POOL_EXPORT void PoolFree(void* block, size_t bytes) noexcept;

template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(PoolAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { PoolFree(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const { return false; }
};

// std::make_shared from the pool (object and control block in one recycled block).
template <typename T, typename... Args>
std::shared_ptr<T> MakeShared(Args&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<Args>(args)...);
}

// A base for classes whose objects are made with `new` on every call (executors' work): their
// operator new and delete use the pool (delete gets the size of the dynamic type).
struct Pooled {
  static void* operator new(size_t bytes) { return PoolAllocate(bytes); }
  static void operator delete(void* block, size_t bytes) noexcept { PoolFree(block, bytes); }
};

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_POOL_H_
