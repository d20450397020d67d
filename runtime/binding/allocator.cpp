// aclnn-bindgen: the caching device allocator (see CachingAllocator in binding.h for the rules).
//
// Blocks are whole aclrtMalloc allocations, rounded up (512 bytes below 1 MiB, 128 KiB above), and
// cached by size in the pool of the stream that last used them. A request takes the smallest
// cached block of its stream that fits without wasting much (at most twice the size below 1 MiB,
// an eighth above); then a block no stream owns; then a block of another stream whose "reuse"
// event, recorded on that stream, has been reached. Only then does it ask the device.
#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include "binding.h"

namespace aclnn_binding {

struct Block {
  void* ptr = nullptr;
  size_t size = 0;
  size_t requested = 0;  // in use: the bytes its allocation asked for (size is rounded up)
  aclrtStream stream = nullptr;             // its pool's stream; null: no stream's (after forget_stream)
  std::vector<aclrtStream> others;          // other streams that used it since it was allocated
  std::vector<aclrtEvent> waits;            // freed: recorded on `others`, all to be reached first
  aclrtEvent reuse_event = nullptr;         // cached: recorded on `stream` for a taker on another
  bool in_use = false;
  // describe(): the aclTensor of the layout `described` (its storage is `ptr`), kept for the next
  // allocation of the block that has the same.
  aclTensor* descriptor = nullptr;
  DeviceTensor described;
};

struct CachingAllocator::Pool {
  aclrtStream stream;
  std::map<size_t, std::vector<Block*>> free;  // by size; vectors keep their capacity

  Block* take(size_t size, size_t limit) {
    for (auto it = free.lower_bound(size); it != free.end() && it->first <= limit; ++it) {
      if (it->second.empty()) continue;
      Block* block = it->second.back();
      it->second.pop_back();
      return block;
    }
    return nullptr;
  }
  void put(Block* block) { free[block->size].push_back(block); }
};

namespace {

constexpr size_t kSmall = size_t{1} << 20;
constexpr size_t kSmallGranule = 512;
constexpr size_t kLargeGranule = size_t{128} << 10;

size_t rounded(size_t nbytes) {
  const size_t granule = nbytes <= kSmall ? kSmallGranule : kLargeGranule;
  return std::max<size_t>((nbytes + granule - 1) / granule * granule, granule);
}

size_t largest_acceptable(size_t size) { return size <= kSmall ? 2 * size : size + size / 8; }

bool reached(aclrtEvent event) {
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return Runtime::get().abi().aclrtQueryEventStatus(event, &status) == ACL_SUCCESS &&
         status == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

}  // namespace

CachingAllocator::CachingAllocator(int32_t device) : device_(device) {}

CachingAllocator::~CachingAllocator() = default;

aclrtEvent CachingAllocator::new_event() {
  if (!spare_events_.empty()) {
    aclrtEvent event = spare_events_.back();
    spare_events_.pop_back();
    return event;
  }
  Runtime& rt = Runtime::get();
  aclrtEvent event = nullptr;
  rt.check(rt.abi().aclrtCreateEvent(&event), "", "aclrtCreateEvent");
  return event;
}

Block* CachingAllocator::take_cached(size_t size, aclrtStream stream) {
  const size_t limit = largest_acceptable(size);
  Pool* idle = nullptr;
  for (auto& pool : pools_) {
    if (pool->stream == stream) {
      if (Block* block = pool->take(size, limit)) {
        if (block->reuse_event) spare_events_.push_back(std::exchange(block->reuse_event, nullptr));
        return block;
      }
    } else if (pool->stream == nullptr) {
      idle = pool.get();
    }
  }
  if (idle) {
    if (Block* block = idle->take(size, limit)) return block;
  }
  // Another stream's block: once an event recorded on that stream (after its last use) is reached.
  for (auto& pool : pools_) {
    if (pool->stream == stream || pool->stream == nullptr) continue;
    int looked = 0;
    for (auto it = pool->free.lower_bound(size); it != pool->free.end() && it->first <= limit && looked < 4; ++it) {
      auto& blocks = it->second;
      for (auto b = blocks.begin(); b != blocks.end() && looked < 4; ++b, ++looked) {
        Block* block = *b;
        if (block->reuse_event == nullptr) {
          block->reuse_event = new_event();
          if (Runtime::get().abi().aclrtRecordEvent(block->reuse_event, pool->stream) != ACL_SUCCESS) {
            spare_events_.push_back(std::exchange(block->reuse_event, nullptr));
          }
          continue;  // recorded just now: not reached yet
        }
        if (!reached(block->reuse_event)) continue;
        spare_events_.push_back(std::exchange(block->reuse_event, nullptr));
        blocks.erase(b);
        return block;
      }
    }
  }
  return nullptr;
}

void CachingAllocator::collect_pending() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    Block* block = *it;
    if (!std::all_of(block->waits.begin(), block->waits.end(), reached)) {
      ++it;
      continue;
    }
    spare_events_.insert(spare_events_.end(), block->waits.begin(), block->waits.end());
    block->waits.clear();
    block->others.clear();
    Pool* home = nullptr;
    for (auto& pool : pools_) {
      if (pool->stream == block->stream) home = pool.get();
    }
    if (!home) {
      pools_.push_back(std::make_unique<Pool>(Pool{block->stream, {}}));
      home = pools_.back().get();
    }
    home->put(block);
    it = pending_.erase(it);
  }
}

Block* CachingAllocator::allocate(size_t nbytes, aclrtStream stream, const char* api) {
  const size_t size = rounded(nbytes);
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  if (!pending_.empty()) collect_pending();
  Block* block = take_cached(size, stream);
  if (block) {
    ++stats_.cache_hits;
  } else {
    ++stats_.cache_misses;
    Runtime& rt = Runtime::get();
    void* ptr = nullptr;
    aclError code = rt.abi().aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (code == ACL_ERROR_RT_MEMORY_ALLOCATION || code == ACL_ERROR_BAD_ALLOC) {
      free_cached();  // what the cache holds may be just what the device lacks
      code = rt.abi().aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    if (code != ACL_SUCCESS) throw AclnnFailure{code, api ? api : "", "aclrtMalloc", rt.recent_error()};
    if (ptr == nullptr) throw AclnnFailure{ACL_ERROR_BAD_ALLOC, api ? api : "", "aclrtMalloc", "aclrtMalloc returned no memory"};
    blocks_.push_back(std::make_unique<Block>());
    block = blocks_.back().get();
    block->ptr = ptr;
    block->size = size;
    by_address_[reinterpret_cast<uintptr_t>(ptr)] = block;
    ++stats_.mallocs;
    stats_.reserved_bytes += static_cast<int64_t>(size);
  }
  block->stream = stream;
  block->in_use = true;
  block->requested = nbytes;
  ++stats_.allocations;
  stats_.allocated_bytes += static_cast<int64_t>(block->size);
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  return block;
}

void CachingAllocator::release(Block* block) {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  block->in_use = false;
  --stats_.allocations;
  stats_.allocated_bytes -= static_cast<int64_t>(block->size);
  // Used on other streams too: reusable once each of them has reached this point.
  for (aclrtStream other : block->others) {
    aclrtEvent event = new_event();
    if (Runtime::get().abi().aclrtRecordEvent(event, other) == ACL_SUCCESS) block->waits.push_back(event);
    else spare_events_.push_back(event);  // the stream is gone: nothing of it to wait for
  }
  if (!block->waits.empty()) {
    pending_.push_back(block);
    return;
  }
  block->others.clear();
  for (auto& pool : pools_) {
    if (pool->stream == block->stream) {
      pool->put(block);
      return;
    }
  }
  pools_.push_back(std::make_unique<Pool>(Pool{block->stream, {}}));
  pools_.back()->put(block);
}

void CachingAllocator::used_on(Block* block, aclrtStream stream) {
  if (block->stream == stream) return;  // the common case, without the lock: `stream` is fixed while in use
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  if (std::find(block->others.begin(), block->others.end(), stream) == block->others.end())
    block->others.push_back(stream);
}

void* CachingAllocator::data(const Block* block) const { return block->ptr; }

aclTensor* CachingAllocator::describe(Block* block, const DeviceTensor& tensor, const char* api) {
  // No lock: the block is in use by the caller's fresh buffer alone (its fields are the user's
  // until it is released), and free_cached only touches free blocks.
  if (block->descriptor != nullptr && block->described.same_layout(tensor)) return block->descriptor;
  aclTensor* made = tensor.create_acl_tensor(api);  // throws: the block keeps what it had
  const bool had = block->descriptor != nullptr;
  if (had) Runtime::get().abi().aclDestroyTensor(block->descriptor);
  block->descriptor = made;
  block->described = tensor;
  block->described.storage.reset();  // the layout only: the block must not keep its own buffer alive
  if (!had) {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
    ++stats_.cached_descriptors;
  }
  return made;
}

aclrtStream CachingAllocator::stream(const Block* block) const { return block->stream; }

void CachingAllocator::free_cached() {
  Runtime& rt = Runtime::get();
  for (auto& pool : pools_) {
    for (auto& entry : pool->free) {
      for (Block* block : entry.second) {
        if (block->reuse_event) spare_events_.push_back(std::exchange(block->reuse_event, nullptr));
        if (block->descriptor != nullptr) {
          rt.abi().aclDestroyTensor(std::exchange(block->descriptor, nullptr));
          --stats_.cached_descriptors;
        }
        // aclrtFree waits for queued work that still uses the memory (as a device does).
        rt.abi().aclrtFree(block->ptr);
        by_address_.erase(reinterpret_cast<uintptr_t>(block->ptr));
        ++stats_.frees;
        stats_.reserved_bytes -= static_cast<int64_t>(block->size);
        block->ptr = nullptr;
      }
      entry.second.clear();
    }
  }
  blocks_.erase(std::remove_if(blocks_.begin(), blocks_.end(), [](const std::unique_ptr<Block>& b) { return b->ptr == nullptr; }),
                blocks_.end());
}

bool CachingAllocator::allocation_containing(uintptr_t address, uintptr_t* begin, size_t* nbytes) const {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  auto it = by_address_.upper_bound(address);
  if (it == by_address_.begin()) return false;
  const Block* block = std::prev(it)->second;
  if (address - std::prev(it)->first >= block->size) return false;
  *begin = std::prev(it)->first;
  *nbytes = block->in_use ? block->requested : 0;
  return true;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  Runtime& rt = Runtime::get();
  for (Block* block : pending_) {
    for (aclrtEvent event : block->waits) rt.abi().aclrtSynchronizeEvent(event);
  }
  collect_pending();
  free_cached();
}

void CachingAllocator::forget_stream(aclrtStream stream) {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  // The stream has been synchronised: its cached blocks are idle, free for any stream.
  Pool* idle = nullptr;
  for (auto& pool : pools_) {
    if (pool->stream == nullptr) idle = pool.get();
  }
  if (!idle) {
    pools_.push_back(std::make_unique<Pool>(Pool{nullptr, {}}));
    idle = pools_.back().get();
  }
  for (auto it = pools_.begin(); it != pools_.end(); ++it) {
    if ((*it)->stream != stream) continue;
    for (auto& entry : (*it)->free) {
      for (Block* block : entry.second) {
        if (block->reuse_event) spare_events_.push_back(std::exchange(block->reuse_event, nullptr));
        block->stream = nullptr;
        idle->put(block);
      }
    }
    pools_.erase(it);
    break;
  }
  for (auto& block : blocks_) {
    if (block->stream == stream) block->stream = nullptr;  // in use: returns to the idle pool
    block->others.erase(std::remove(block->others.begin(), block->others.end(), stream), block->others.end());
  }
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<aclnn_bindgen::SpinLock> lock(mutex_);
  return stats_;
}

}  // namespace aclnn_binding
