// Handles for the simulator's opaque objects (aclTensor*, aclrtStream, aclOpExecutor*, ...).
//
// A handle is not the object's address but a never-reused number shaped like a pointer, so that
// a stale handle (an object destroyed twice, an executor run after it was consumed) is always
// recognised as unknown instead of silently naming a newer object that reuses the address. The
// top byte makes the value non-canonical on x86-64 and AArch64: code that dereferences a handle
// faults at once instead of corrupting memory.
#ifndef ACLNN_SIM_COMMON_HANDLES_H_
#define ACLNN_SIM_COMMON_HANDLES_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace aclsim {

template <typename T>
class Registry {
 public:
  // `tag` tells kinds apart (a tensor handle passed as a scalar is unknown, not misread).
  explicit Registry(uint8_t tag) : tag_(tag) {}

  uintptr_t Add(std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uintptr_t handle = (uintptr_t{tag_} << 56) | (++serial_ << 4);
    objects_.emplace(handle, std::move(object));
    return handle;
  }

  std::shared_ptr<T> Find(const void* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(reinterpret_cast<uintptr_t>(handle));
    return it == objects_.end() ? nullptr : it->second;
  }

  // Removes and returns the object (null when unknown).
  std::shared_ptr<T> Take(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(reinterpret_cast<uintptr_t>(handle));
    if (it == objects_.end()) return nullptr;
    std::shared_ptr<T> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  // Runs `fn(T&)` under the registry lock: for checks that must not race with a destroy.
  template <typename Fn>
  bool With(const void* handle, Fn&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_.find(reinterpret_cast<uintptr_t>(handle));
    if (it == objects_.end()) return false;
    fn(*it->second);
    return true;
  }

  uint64_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return objects_.size();
  }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : objects_) fn(entry.first, *entry.second);
  }

 private:
  const uint8_t tag_;
  mutable std::mutex mutex_;
  uintptr_t serial_ = 0;
  std::unordered_map<uintptr_t, std::shared_ptr<T>> objects_;
};

template <typename Handle>
Handle* AsHandle(uintptr_t value) {
  return reinterpret_cast<Handle*>(value);
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_HANDLES_H_
