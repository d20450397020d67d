// Handles for the simulator's opaque objects (aclTensor*, aclrtStream, aclOpExecutor*, ...).
//
// A handle is not the object's address but a number shaped like a pointer: a slot index and the
// slot's generation, so that a stale handle (an object destroyed twice, an executor run after it
// was consumed) is recognised as unknown instead of naming a newer object in the same slot (a
// slot would have to be reused 16 million times before a stale handle could match again). The
// top byte makes the value non-canonical on x86-64 and AArch64: code that dereferences a handle
// faults at once instead of corrupting memory.
//
// Lookups index a slot table (no hashing), and objects come from the simulator's pool: creating
// and destroying objects on every call allocates nothing once the table has grown.
#ifndef ACLNN_SIM_COMMON_HANDLES_H_
#define ACLNN_SIM_COMMON_HANDLES_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "aclnn_bindgen/spin_lock.h"
#include "ascendcl/pool.h"

namespace aclsim {

template <typename T>
class Registry {
 public:
  // `tag` tells kinds apart (a tensor handle passed as a scalar is unknown, not misread).
  explicit Registry(uint8_t tag) : tag_(tag) {}

  uintptr_t Add(std::shared_ptr<T> object) {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    Slot& slot = slots_[index];
    slot.object = std::move(object);
    ++live_;
    return HandleOf(index, slot.generation);
  }

  // Makes the object from the pool and adds it.
  template <typename... Args>
  uintptr_t Make(Args&&... args) {
    return Add(MakeShared<T>(std::forward<Args>(args)...));
  }

  std::shared_ptr<T> Find(const void* handle) const {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    const Slot* slot = Lookup(handle);
    return slot ? slot->object : nullptr;
  }

  // Removes and returns the object (null when unknown).
  std::shared_ptr<T> Take(const void* handle) {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    Slot* slot = Lookup(handle);
    if (!slot) return nullptr;
    std::shared_ptr<T> object = std::move(slot->object);
    slot->object.reset();
    ++slot->generation;
    free_.push_back(IndexOf(reinterpret_cast<uintptr_t>(handle)));
    --live_;
    return object;
  }

  // Runs `fn(T&)` under the registry lock: for checks that must not race with a destroy.
  template <typename Fn>
  bool With(const void* handle, Fn&& fn) {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    Slot* slot = Lookup(handle);
    if (!slot) return false;
    fn(*slot->object);
    return true;
  }

  uint64_t size() const {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    return live_;
  }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].object) fn(HandleOf(static_cast<uint32_t>(i), slots_[i].generation), *slots_[i].object);
    }
  }

 private:
  struct Slot {
    uint32_t generation = 0;
    std::shared_ptr<T> object;
  };
  static constexpr uintptr_t kGenerationMask = 0xffffff;  // bits 32..55
  static constexpr uintptr_t kIndexMask = 0xfffffff;      // bits 4..31

  uintptr_t HandleOf(uint32_t index, uint32_t generation) const {
    return (uintptr_t{tag_} << 56) | ((generation & kGenerationMask) << 32) | (uintptr_t{index} << 4);
  }
  static uint32_t IndexOf(uintptr_t handle) { return static_cast<uint32_t>((handle >> 4) & kIndexMask); }

  const Slot* Lookup(const void* handle) const {
    const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
    if ((h >> 56) != tag_ || (h & 0xf) != 0) return nullptr;
    const uint32_t index = IndexOf(h);
    if (index >= slots_.size()) return nullptr;
    const Slot& slot = slots_[index];
    if (!slot.object || (slot.generation & kGenerationMask) != ((h >> 32) & kGenerationMask)) return nullptr;
    return &slot;
  }
  Slot* Lookup(const void* handle) { return const_cast<Slot*>(static_cast<const Registry*>(this)->Lookup(handle)); }

  const uint8_t tag_;
  mutable aclnn_bindgen::SpinLock mutex_;
  std::deque<Slot> slots_;  // a deque: slots never move while the table grows
  std::vector<uint32_t> free_;
  uint64_t live_ = 0;
};

template <typename Handle>
Handle* AsHandle(uintptr_t value) {
  return reinterpret_cast<Handle*>(value);
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_HANDLES_H_
