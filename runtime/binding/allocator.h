// aclnn-bindgen bindings: device memory: the caching allocator (allocator.cpp).
#ifndef ACLNN_BINDING_ALLOCATOR_H_
#define ACLNN_BINDING_ALLOCATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/spin_lock.h"

namespace aclnn_binding {

struct Block;  // an allocation of the device, cached between uses
struct DeviceTensor;  // a view of device memory (below)

struct MemoryStats {
  int64_t allocated_bytes = 0, reserved_bytes = 0, peak_allocated_bytes = 0;
  int64_t allocations = 0;  // blocks in use
  int64_t mallocs = 0, frees = 0;  // aclrtMalloc / aclrtFree calls the allocator made
  int64_t cache_hits = 0, cache_misses = 0;
  int64_t cached_descriptors = 0;  // aclTensors kept with blocks (CachingAllocator::describe)
};

// One per device, stream-ordered like PyTorch's CUDA caching allocator: a freed block goes back
// to the pool of the stream that used it and is reused at once by the next allocation on that
// stream (the stream runs its work in order, so the new user's work comes after the old one's);
// another stream takes it only after an event recorded on the first stream has been reached.
// A block that calls on other streams also used waits for events on each of those streams.
class CachingAllocator {
 public:
  explicit CachingAllocator(int32_t device);
  ~CachingAllocator();
  // Throws AclnnFailure (phase "aclrtMalloc") when the device has no memory left, after
  // releasing every cached block and trying once more.
  Block* allocate(size_t nbytes, aclrtStream stream, const char* api);
  void release(Block* block);
  void used_on(Block* block, aclrtStream stream);
  void* data(const Block* block) const;
  aclrtStream stream(const Block* block) const;
  // The aclTensor describing `tensor`, the first view of a block just allocated (an op's output, an
  // upload's copy): the one the block kept from its previous allocation when the layout is the
  // same, else a new one, kept in its place. It lives as long as the block (empty_cache destroys
  // it), so the caller must not destroy it; no one else holds it, since the block's previous
  // tensors are gone. A chain of calls then creates no descriptor at all in the steady state.
  aclTensor* describe(Block* block, const DeviceTensor& tensor, const char* api);
  // The allocation that holds `address`, when a block of this allocator does: its first byte and
  // the bytes asked for it (not the block's rounded size: the bytes past them are no tensor's),
  // 0 bytes for a block cached for reuse (no tensor holds it). False: not this allocator's memory.
  bool allocation_containing(uintptr_t address, uintptr_t* begin, size_t* nbytes) const;
  // Returns every cached block to the device (aclrtFree), once its pending events are reached.
  void empty_cache();
  // `stream` is about to be destroyed: its cached blocks become free for every stream once it
  // has been synchronised (which the caller has done).
  void forget_stream(aclrtStream stream);
  MemoryStats stats() const;

 private:
  struct Pool;
  Block* take_cached(size_t size, aclrtStream stream);  // requires mutex_
  void collect_pending();                               // requires mutex_
  aclrtEvent new_event();                               // requires mutex_
  void free_cached();                                   // requires mutex_

  const int32_t device_;
  mutable aclnn_bindgen::SpinLock mutex_;
  std::vector<std::unique_ptr<Pool>> pools_;  // the free blocks of each stream (and of none)
  std::vector<Block*> pending_;               // freed, waiting for events of other streams
  std::vector<aclrtEvent> spare_events_;
  std::vector<std::unique_ptr<Block>> blocks_;  // every block the allocator holds
  std::map<uintptr_t, Block*> by_address_;      // the same, by their first byte
  MemoryStats stats_;
};

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_ALLOCATOR_H_
