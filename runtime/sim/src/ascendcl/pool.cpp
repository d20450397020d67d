// libascendcl: the simulator's pool of small blocks (see ascendcl/pool.h).
//
// Each thread keeps a few free blocks of each size for itself (no lock at all); beyond that,
// blocks go to and come from a shared list per size. A block freed on another thread than the one
// that allocated it (an executor dropped by a stream's worker) simply joins the freeing thread's.
#include "ascendcl/pool.h"

#include <pthread.h>

#include <cstdlib>
#include <mutex>

#include "aclnn_bindgen/spin_lock.h"

namespace aclsim {
namespace {

// Size classes of 32 bytes up to 8 KiB. A thread keeps at most kThreadKeep free blocks of a
// class, the shared list at most kSharedKeep (a burst of live objects gives its memory back).
constexpr size_t kGranule = 32;
constexpr size_t kLargest = 8192;
constexpr size_t kClasses = kLargest / kGranule;
constexpr size_t kThreadKeep = 64;
constexpr size_t kSharedKeep = 4096;

struct FreeBlock {
  FreeBlock* next;
};

struct FreeList {
  FreeBlock* head = nullptr;
  size_t count = 0;
  void Push(void* block) {
    auto* b = static_cast<FreeBlock*>(block);
    b->next = head;
    head = b;
    ++count;
  }
  void* Pop() {
    FreeBlock* b = head;
    head = b->next;
    --count;
    return b;
  }
};

struct Shared {
  aclnn_bindgen::SpinLock lock;
  FreeList list;
};

Shared* SharedLists() {
  static Shared* lists = new Shared[kClasses];  // never destroyed: blocks may be freed at exit
  return lists;
}

// The calling thread's lists, made on its first allocation and released to the shared lists when
// it ends (a pthread key's destructor). Reached through an initial-exec pointer: every call makes
// and frees a dozen blocks, and a dynamic TLS lookup (__tls_get_addr) each time was measurable.
struct ThreadLists {
  FreeList lists[kClasses];
};

__attribute__((tls_model("initial-exec"))) thread_local ThreadLists* t_lists = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local bool t_lists_gone = false;  // frees at thread exit go shared

void ReleaseThreadLists(void* memory) {
  auto* mine = static_cast<ThreadLists*>(memory);
  t_lists = nullptr;
  t_lists_gone = true;
  Shared* shared = SharedLists();
  for (size_t c = 0; c < kClasses; ++c) {
    while (mine->lists[c].count) {
      void* block = mine->lists[c].Pop();
      std::lock_guard<aclnn_bindgen::SpinLock> lock(shared[c].lock);
      if (shared[c].list.count < kSharedKeep) shared[c].list.Push(block);
      else std::free(block);
    }
  }
  delete mine;
}

// This thread's lists, or null once the thread is ending.
ThreadLists* Mine() {
  if (t_lists || t_lists_gone) return t_lists;
  static pthread_key_t key;
  static const bool keyed = pthread_key_create(&key, ReleaseThreadLists) == 0;
  if (!keyed) return nullptr;
  t_lists = new ThreadLists();
  pthread_setspecific(key, t_lists);
  return t_lists;
}

size_t ClassOf(size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* PoolAllocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > kLargest) {
    void* block = std::malloc(bytes);
    if (!block) throw std::bad_alloc();
    return block;
  }
  const size_t c = ClassOf(bytes);
  ThreadLists* mine = Mine();
  if (mine && mine->lists[c].count) return mine->lists[c].Pop();
  Shared& shared = SharedLists()[c];
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(shared.lock);
    if (shared.list.count) return shared.list.Pop();
  }
  void* block = std::malloc((c + 1) * kGranule);
  if (!block) throw std::bad_alloc();
  return block;
}

void PoolFree(void* block, size_t bytes) noexcept {
  if (!block) return;
  if (bytes == 0) bytes = 1;
  if (bytes > kLargest) {
    std::free(block);
    return;
  }
  const size_t c = ClassOf(bytes);
  ThreadLists* mine = Mine();
  if (mine && mine->lists[c].count < kThreadKeep) {
    mine->lists[c].Push(block);
    return;
  }
  Shared& shared = SharedLists()[c];
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(shared.lock);
    if (shared.list.count < kSharedKeep) {
      shared.list.Push(block);
      return;
    }
  }
  std::free(block);
}

}  // namespace aclsim
