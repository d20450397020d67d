// libascendcl, the memory half: device and pinned host allocations, memcpy and memset.
//
// Every live allocation is registered with the size the caller asked for, so that a copy, a
// memset or a kernel that would touch bytes outside it is refused with an error instead of
// corrupting memory; freeing twice, freeing an interior pointer or freeing with the wrong call
// is an error too. As CANN's aclrtMalloc, a request is rounded up to 32 bytes plus 32 more, and
// blocks start on a 512-byte boundary (what kernels' vector loads rely on); from 64 KiB on they start
// on a page and own whole pages, which an export to another process (ipc.h) moves into a memory file.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn_bindgen/spin_lock.h"
#include "aclnn_sim.h"
#include "ascendcl/ipc.h"
#include "ascendcl/streams.h"
#include "common/internal.h"
#include "ascendcl/settings.h"

namespace aclsim {

uint64_t LiveUserContexts();

namespace {

constexpr size_t kAlignment = 512;
constexpr size_t kGranule = 32;
// The simulated chip's HBM: 64 GiB as an Atlas A2, or ACLNN_SIM_DEVICE_MEMORY (ascendcl/settings.h). A
// request beyond what is free fails as on a device (ACL_ERROR_RT_MEMORY_ALLOCATION) before the host
// is asked for it: a 4 TB tensor is an error to report, not a host allocation to attempt.
uint64_t DeviceMemoryCapacity() { return Settings().device_memory; }

struct Block {
  size_t size;  // what the caller asked for: the bounds that checks enforce
  // A range of reserved virtual memory that aclrtMapMem backed with physical memory: device memory
  // for copies and kernels, but aclrtUnmapMem's to release, not aclrtFree's.
  bool mapped = false;
  // Another process's allocation mapped here by aclrtIpcMemImportByKey: aclrtIpcMemClose's to release.
  bool imported = false;
  uint16_t lead = 0;  // the allocation starts this far past what malloc returned (AllocateAligned; < a page)
  // An allocation exported to other processes (aclrtIpcMemGetExportKey) lives in this memory file
  // from then on (ShareDeviceAllocation); closed when it is freed. -1: private memory.
  int32_t shared_fd = -1;
};

// A host range registered for device access (aclrtHostRegister, aclrtHostRegisterV2). The simulated
// device addresses host memory directly, so a mapped registration's device pointer is its host pointer
// and kernels and copies reach it as device memory; an unmapped one (V2 without ACL_HOST_REG_MAPPED) is
// pinned host memory the device does not address.
struct Registration {
  size_t size;
  bool mapped;
  bool readonly;  // the device may read it but not write it
};

struct Memory {
  aclnn_bindgen::SpinLock mutex;  // short sections (map lookups), taken by every kernel's memory check
  std::map<uintptr_t, Block> device;
  std::map<uintptr_t, Block> host;
  std::map<uintptr_t, Registration> registered;
  uint64_t device_bytes = 0, peak_device_bytes = 0, host_bytes = 0;
  uint64_t malloc_calls = 0, free_calls = 0;  // cumulative
};

Memory& State() {
  static Memory* memory = new Memory;  // never destroyed: kernels may run during exit
  return *memory;
}

std::string Hex(const void* p) {
  std::ostringstream out;
  out << p;
  return out.str();
}

// The block of `blocks` that contains `address`, or end().
std::map<uintptr_t, Block>::const_iterator Containing(const std::map<uintptr_t, Block>& blocks, uintptr_t address) {
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin()) return blocks.end();
  --it;
  return address - it->first < std::max<size_t>(it->second.size, 1) ? it : blocks.end();
}

// From this size on, an allocation is made of the kernel's 2 MiB pages where it allows them
// (transparent huge pages in "madvise" mode), as NumPy's and PyTorch's large arrays are: a kernel
// streaming 64 MiB through 4 KiB pages read ~20% slower than PyTorch did through huge ones.
constexpr size_t kHugePage = size_t{2} << 20;
// From this size on, an allocation starts on a page and owns whole pages: an export to another process
// (ShareDeviceAllocation) can then put them in a memory file in place, without touching a neighbour.
// Smaller ones keep their size: whole pages would cost a 4 KiB tensor twice its memory or more.
constexpr size_t kPage = 4096;
constexpr size_t kShareable = size_t{64} << 10;

// The bytes AllocateAligned(size) gives the caller; from kShareable on, whole pages of its own.
size_t Capacity(size_t size) {
  const size_t capacity = (size + kGranule - 1) / kGranule * kGranule + kGranule;
  return capacity >= kShareable ? (capacity + kPage - 1) / kPage * kPage : capacity;
}

struct Allocation {
  void* p = nullptr;
  uint16_t lead = 0;  // std::free's pointer is p - lead
};
static_assert(kPage - 1 <= UINT16_MAX, "a lead is less than a page");

Allocation AllocateAligned(size_t size) {
  const size_t capacity = Capacity(size);
  Allocation a;
  if (capacity >= 2 * kHugePage) {
    if (posix_memalign(&a.p, kHugePage, capacity) != 0) return Allocation{};
    madvise(a.p, capacity, MADV_HUGEPAGE);  // a hint: without it the pages are small, nothing else
  } else if (capacity >= kShareable) {
    // The page found inside a malloc a page larger, not posix_memalign(4096): glibc serves a size this
    // large with mmap until a free raises its threshold, and an aligned request stays above the
    // threshold its own free sets, so that every allocation of a megabyte faulted its pages in afresh
    // (~100x slower than the heap's reuse).
    void* raw = std::malloc(capacity + kPage);
    if (!raw) return Allocation{};
    const uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + kPage - 1) / kPage * kPage;
    a.p = reinterpret_cast<void*>(start);
    a.lead = static_cast<uint16_t>(start - reinterpret_cast<uintptr_t>(raw));
  } else if (posix_memalign(&a.p, kAlignment, capacity) != 0) {
    return Allocation{};
  }
  return a;
}

enum class Side { kHost, kDevice };

// The mapped registration that contains `address`, or end().
std::map<uintptr_t, Registration>::const_iterator MappedRegistration(const Memory& m, uintptr_t address) {
  auto it = m.registered.upper_bound(address);
  if (it == m.registered.begin()) return m.registered.end();
  --it;
  return address - it->first < it->second.size && it->second.mapped ? it : m.registered.end();
}

// Checks [p, p + count) of mapped registered host memory as the device's; on failure sets the message.
bool CheckRegisteredRange(const Memory& m, const char* api, const char* role, const void* p, size_t count) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  const auto reg = MappedRegistration(m, address);
  if (count > reg->second.size - (address - reg->first)) {
    SetError(std::string(api) + ": " + role + " range of " + std::to_string(count) + " bytes at offset " +
             std::to_string(address - reg->first) + " runs past the end of its host registration of " +
             std::to_string(reg->second.size) + " bytes (aclrtHostRegister)");
    return false;
  }
  // src is read; dst and devPtr are written, which a read-only registration forbids the device.
  if (reg->second.readonly && std::strcmp(role, "src") != 0) {
    SetError(std::string(api) + ": " + role + " " + Hex(p) + " is host memory registered read-only for the device");
    return false;
  }
  return true;
}

// Checks that [p, p + count) is usable as `side` memory; on failure sets the message.
bool CheckRange(const Memory& m, const char* api, const char* role, const void* p, size_t count, Side side) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  const auto dev = Containing(m.device, address);
  if (side == Side::kDevice) {
    if (dev == m.device.end() && MappedRegistration(m, address) != m.registered.end()) {
      return CheckRegisteredRange(m, api, role, p, count);
    }
    if (dev == m.device.end()) {
      SetError(std::string(api) + ": " + role + " " + Hex(p) + " is not in a live device allocation (aclrtMalloc)");
      return false;
    }
    if (count > dev->second.size - (address - dev->first)) {
      SetError(std::string(api) + ": " + role + " range of " + std::to_string(count) + " bytes at offset " +
               std::to_string(address - dev->first) + " runs past the end of its device allocation of " +
               std::to_string(dev->second.size) + " bytes");
      return false;
    }
    return true;
  }
  if (dev != m.device.end()) {
    SetError(std::string(api) + ": " + role + " " + Hex(p) + " is device memory, but the copy kind says host");
    return false;
  }
  const auto host = Containing(m.host, address);
  if (host != m.host.end() && count > host->second.size - (address - host->first)) {
    SetError(std::string(api) + ": " + role + " range of " + std::to_string(count) +
             " bytes runs past the end of its aclrtMallocHost allocation of " + std::to_string(host->second.size) + " bytes");
    return false;
  }
  return true;  // other host memory is the caller's: it cannot be checked
}

// Checks a copy of `count` bytes; on success `dst`..`src` may be copied (now, or by a stream).
aclError CheckCopy(const char* api, void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  if (!dst || !src) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + (dst ? "src" : "dst") + " is a null pointer");
  if (count > destMax) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count " + std::to_string(count) +
                                             " is larger than destMax " + std::to_string(destMax));
  }
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  Side dst_side, src_side;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: dst_side = Side::kHost; src_side = Side::kHost; break;
    case ACL_MEMCPY_HOST_TO_DEVICE: dst_side = Side::kDevice; src_side = Side::kHost; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: dst_side = Side::kHost; src_side = Side::kDevice; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: dst_side = Side::kDevice; src_side = Side::kDevice; break;
    case ACL_MEMCPY_DEFAULT: {
      // CANN infers the direction from the addresses (unified addressing).
      auto is_device = [&](const void* p) { return Containing(m.device, reinterpret_cast<uintptr_t>(p)) != m.device.end(); };
      dst_side = is_device(dst) ? Side::kDevice : Side::kHost;
      src_side = is_device(src) ? Side::kDevice : Side::kHost;
      break;
    }
    default:
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtMemcpyKind " + std::to_string(static_cast<int>(kind)));
  }
  if (!CheckRange(m, api, "dst", dst, count, dst_side) || !CheckRange(m, api, "src", src, count, src_side)) {
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

aclError CheckFill(const char* api, void* devPtr, size_t maxCount, size_t count) {
  if (!devPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr is a null pointer");
  if (count > maxCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count " + std::to_string(count) +
                                             " is larger than maxCount " + std::to_string(maxCount));
  }
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  const uintptr_t address = reinterpret_cast<uintptr_t>(devPtr);
  const bool host = Containing(m.host, address) != m.host.end();
  if (!CheckRange(m, api, "devPtr", devPtr, count, host ? Side::kHost : Side::kDevice)) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

}  // namespace

bool ChargeDeviceMemory(size_t bytes, const char* api) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  const uint64_t capacity = DeviceMemoryCapacity();
  if (bytes > capacity - std::min<uint64_t>(m.device_bytes, capacity)) {
    SetError(std::string(api) + ": out of device memory: " + std::to_string(bytes) + " bytes requested, " +
             std::to_string(m.device_bytes) + " of " + std::to_string(capacity) + " in use");
    SetErrorStatus(ACL_ERROR_RT_MEMORY_ALLOCATION);
    return false;
  }
  m.device_bytes += bytes;
  if (m.device_bytes > m.peak_device_bytes) m.peak_device_bytes = m.device_bytes;
  return true;
}

void RefundDeviceMemory(size_t bytes) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  m.device_bytes -= std::min<uint64_t>(bytes, m.device_bytes);
}

// Adjacent mapped ranges are one block: an allocator that grows a segment by mapping more memory
// behind it (torch_npu's expandable segments) places tensors across the boundaries of its mappings.
bool AddMappedRange(uintptr_t base, size_t size) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto next = m.device.lower_bound(base);
  if (next != m.device.end() && next->first < base + size) return false;
  if (Containing(m.device, base) != m.device.end()) return false;
  if (next != m.device.end() && next->second.mapped && next->first == base + size) {
    size += next->second.size;
    next = m.device.erase(next);
  }
  if (next != m.device.begin()) {
    auto previous = std::prev(next);
    if (previous->second.mapped && previous->first + previous->second.size == base) {
      previous->second.size += size;
      return true;
    }
  }
  m.device.emplace(base, Block{size, true});
  return true;
}

bool RemoveMappedRange(uintptr_t base, size_t size) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto it = Containing(m.device, base);
  if (it == m.device.end() || !it->second.mapped || base + size > it->first + it->second.size) return false;
  const uintptr_t start = it->first, end = it->first + it->second.size;
  m.device.erase(it);
  if (start < base) m.device.emplace(start, Block{base - start, true});
  if (base + size < end) m.device.emplace(base + size, Block{end - (base + size), true});
  return true;
}

aclError ShareDeviceAllocation(const char* api, void* p, size_t size, int* fd, size_t* file_bytes) {
  static std::mutex moving;  // two threads exporting one allocation move it once
  std::lock_guard<std::mutex> one_at_a_time(moving);
  Memory& m = State();
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  size_t capacity = 0;
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    auto it = m.device.find(address);
    if (it == m.device.end() || it->second.mapped || it->second.imported) {
      const char* what = it == m.device.end() ? (Containing(m.device, address) != m.device.end()
                                                     ? " points inside a device allocation, not at its start"
                                                     : " is not a live device allocation (aclrtMalloc)")
                         : it->second.mapped ? " is mapped virtual memory (share it with aclrtMemExportToShareableHandle)"
                                             : " was imported from another process";
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr " + Hex(p) + what);
    }
    if (size == 0 || size > it->second.size) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size " + std::to_string(size) +
                                               " is 0 or larger than the allocation's " + std::to_string(it->second.size) + " bytes");
    }
    capacity = Capacity(it->second.size);
    if (capacity < kShareable) {
      return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator for an allocation under " +
                                              std::to_string(kShareable) + " bytes: its host memory shares pages with "
                                              "other memory, which another process cannot map alone");
    }
    if (it->second.shared_fd >= 0) {
      *fd = it->second.shared_fd;
      *file_bytes = capacity;
      return ACL_SUCCESS;
    }
  }
  // The pages move into a memory file in place: queued work that uses them runs first, so that none
  // writes the private pages after their contents were copied.
  if (aclError status = WaitForUsers(address, address + capacity, api)) return status;
  const int file = memfd_create(kSharedMemoryName, MFD_CLOEXEC);
  bool moved = file >= 0 && ftruncate(file, static_cast<off_t>(capacity)) == 0;
  for (size_t done = 0; moved && done < capacity;) {
    const ssize_t n = pwrite(file, static_cast<const char*>(p) + done, capacity - done, static_cast<off_t>(done));
    moved = n > 0;
    done += n > 0 ? static_cast<size_t>(n) : 0;
  }
  moved = moved && mmap(p, capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, file, 0) != MAP_FAILED;
  if (!moved) {
    const std::string reason = std::strerror(errno);
    if (file >= 0) close(file);
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": could not place the allocation in shared memory: " + reason);
  }
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  m.device.at(address).shared_fd = file;
  *fd = file;
  *file_bytes = capacity;
  return ACL_SUCCESS;
}

bool AddImportedRange(uintptr_t base, size_t size) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto next = m.device.lower_bound(base);
  if ((next != m.device.end() && next->first < base + size) || Containing(m.device, base) != m.device.end()) return false;
  Block block{size};
  block.imported = true;
  m.device.emplace(base, block);
  return true;
}

void RemoveImportedRange(uintptr_t base) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto it = m.device.find(base);
  if (it != m.device.end() && it->second.imported) m.device.erase(it);
}

bool FindDeviceAllocation(const void* address, DeviceRange* out) {
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto it = Containing(m.device, reinterpret_cast<uintptr_t>(address));
  if (it == m.device.end()) {
    // Mapped host registrations are device memory to kernels, except read-only ones: a kernel's
    // memory check cannot tell the ranges it reads from those it writes, and a write the device
    // would refuse must not succeed here.
    auto reg = MappedRegistration(m, reinterpret_cast<uintptr_t>(address));
    if (reg == m.registered.end() || reg->second.readonly) return false;
    *out = DeviceRange{reg->first, reg->second.size};
    return true;
  }
  *out = DeviceRange{it->first, it->second.size};
  return true;
}

namespace {

aclError RegisterHostRange(const char* api, void* ptr, uint64_t size, bool mapped, bool readonly) {
  if (!ptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": ptr is a null pointer");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  if (size > UINTPTR_MAX - begin) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the range of " + std::to_string(size) + " bytes at " +
                                             Hex(ptr) + " wraps around the address space");
  }
  const uintptr_t end = begin + size;
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto next = m.device.lower_bound(begin);
  if (Containing(m.device, begin) != m.device.end() || (next != m.device.end() && next->first < end)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the range at " + Hex(ptr) + " is device memory, not host memory");
  }
  // A range that overlaps a registration is refused whole, as CUDA's cudaHostRegister refuses it:
  // registrations are undone by their start pointer, which an overlap would make ambiguous.
  auto after = m.registered.lower_bound(begin);
  const bool overlaps_after = after != m.registered.end() && after->first < end;
  const bool overlaps_before = after != m.registered.begin() && std::prev(after)->first + std::prev(after)->second.size > begin;
  if (overlaps_after || overlaps_before) {
    const auto& other = overlaps_after ? *after : *std::prev(after);
    return Fail(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                std::string(api) + ": the range of " + std::to_string(size) + " bytes at " + Hex(ptr) +
                    " overlaps the registration of " + std::to_string(other.second.size) + " bytes at " +
                    Hex(reinterpret_cast<void*>(other.first)));
  }
  m.registered.emplace(begin, Registration{static_cast<size_t>(size), mapped, readonly});
  return ACL_SUCCESS;
}

// Checks [p, p + count) as device memory that `role` ("src": read; otherwise written) names for `api`.
aclError CheckDeviceRange(const char* api, const char* role, const void* p, size_t count) {
  if (!p) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + role + " is a null pointer");
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  return CheckRange(m, api, role, p, count, Side::kDevice) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

// The device word of aclrtValueWrite and aclrtValueWait: 64 bits (their value's width), aligned, as
// the device reads and writes it in one access (the simulator with one atomic load or store).
aclError CheckDeviceWord(const char* api, const char* role, void* devAddr) {
  if (aclError status = CheckDeviceRange(api, role, devAddr, sizeof(uint64_t))) return status;
  if (reinterpret_cast<uintptr_t>(devAddr) % alignof(uint64_t) != 0) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devAddr " + Hex(devAddr) + " is not aligned to 8 bytes");
  }
  return ACL_SUCCESS;
}

// Whether every byte of [p, p + count) is page-locked host memory: aclrtMallocHost's, or registered.
bool PageLocked(const Memory& m, const void* p, size_t count) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  const auto host = Containing(m.host, address);
  if (host != m.host.end()) return count <= host->second.size - (address - host->first);
  auto reg = m.registered.upper_bound(address);
  if (reg == m.registered.begin()) return false;
  --reg;
  return address - reg->first < reg->second.size && count <= reg->second.size - (address - reg->first);
}

// aclrtMemcpyBatch and aclrtMemcpyBatchAsync (`stream` non-null or `async`): checks every copy
// before any runs, so that a refused batch copies nothing; *failIndex names the copy refused.
aclError MemcpyBatch(const char* api, void** dsts, size_t* destMaxs, void** srcs, size_t* sizes, size_t numBatches,
                     aclrtMemcpyBatchAttr* attrs, size_t* attrsIndexes, size_t numAttrs, size_t* failIndex, bool async,
                     aclrtStream stream) {
  if (!failIndex) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": failIndex is a null pointer");
  *failIndex = SIZE_MAX;  // "if all memcpy succeed or error is none memcpy related"
  if (!dsts || !destMaxs || !srcs || !sizes || !attrs || !attrsIndexes) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": dsts, destMaxs, srcs, sizes, attrs or attrsIndexes is a null pointer");
  }
  if (numBatches == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": numBatches is 0");
  if (numAttrs == 0 || numAttrs > numBatches) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": numAttrs " + std::to_string(numAttrs) +
                                             " is not in 1..numBatches (" + std::to_string(numBatches) + ")");
  }
  // attrs[n] applies from attrsIndexes[n] to attrsIndexes[n + 1] - 1 (the last to the batch's end): the
  // indexes start at 0 and increase, so that every copy has exactly one.
  for (size_t n = 0; n < numAttrs; ++n) {
    const bool ordered = n == 0 ? attrsIndexes[0] == 0 : attrsIndexes[n] > attrsIndexes[n - 1];
    if (!ordered || attrsIndexes[n] >= numBatches) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": attrsIndexes[" + std::to_string(n) + "] = " +
                                               std::to_string(attrsIndexes[n]) +
                                               " (they start at 0 and increase, below numBatches)");
    }
  }
  auto kind_of = [&](const aclrtMemcpyBatchAttr& attr, size_t i, aclrtMemcpyKind* kind) {
    auto on_device = [&](const aclrtMemLocation& location, const char* which, bool* device) {
      switch (location.type) {
        case ACL_MEM_LOCATION_TYPE_DEVICE:
          if (aclError status = CheckDeviceId(location.id, api)) return status;
          *device = true;
          return ACL_SUCCESS;
        case ACL_MEM_LOCATION_TYPE_HOST:
        case ACL_MEM_LOCATION_TYPE_HOST_NUMA:
        case ACL_MEM_LOCATION_TYPE_UNREGISTERED:
          *device = false;
          return ACL_SUCCESS;
      }
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": copy " + std::to_string(i) + "'s " + which +
                                               " has unknown aclrtMemLocationType " + std::to_string(static_cast<int>(location.type)));
    };
    bool dst_device = false, src_device = false;
    if (aclError status = on_device(attr.dstLoc, "dstLoc", &dst_device)) return status;
    if (aclError status = on_device(attr.srcLoc, "srcLoc", &src_device)) return status;
    *kind = dst_device ? (src_device ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE)
                       : (src_device ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST);
    return ACL_SUCCESS;
  };
  bool reads_device = false, all_page_locked = true;
  size_t attr = 0;
  for (size_t i = 0; i < numBatches; ++i) {
    if (attr + 1 < numAttrs && attrsIndexes[attr + 1] == i) ++attr;
    aclrtMemcpyKind kind;
    aclError status = kind_of(attrs[attr], i, &kind);
    if (!status) status = CheckCopy(api, dsts[i], destMaxs[i], srcs[i], sizes[i], kind);
    if (status) {
      *failIndex = i;
      return status;
    }
    reads_device = reads_device || kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    Memory& m = State();
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    if (kind != ACL_MEMCPY_DEVICE_TO_DEVICE) {
      const bool dst_host = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_HOST_TO_HOST;
      const bool src_host = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_HOST_TO_HOST;
      if ((dst_host && !PageLocked(m, dsts[i], sizes[i])) || (src_host && !PageLocked(m, srcs[i], sizes[i]))) {
        all_page_locked = false;
      }
    }
  }
  if (async && all_page_locked) {
    if (aclError status = CheckStream(stream, api)) return status;
    for (size_t i = 0; i < numBatches; ++i) {
      if (sizes[i] == 0) continue;
      if (aclError status = EnqueueCopy(stream, api, dsts[i], srcs[i], sizes[i])) return status;
    }
    return ACL_SUCCESS;
  }
  if (async) {
    // "If the memory is not page-locked, synchronous copying will be performed" (acl_rt.h): the copies
    // run now, after the work queued on the stream, and the caller may reuse its host memory on return.
    if (aclError status = aclrtSynchronizeStream(stream)) return status;
  } else {
    // Synchronous, and not ordered with any stream, as aclrtMemcpy: the caller reads results here.
    if (int32_t held = TakeHeldRefusal(api)) return held;
    if (aclError owed = TakeFaultOwedToCopy(api, reads_device ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_DEVICE)) return owed;
  }
  for (size_t i = 0; i < numBatches; ++i) {
    if (sizes[i]) std::memmove(dsts[i], srcs[i], sizes[i]);
  }
  return ACL_SUCCESS;
}

// aclrtMallocHost's allocation, named `api` in messages.
aclError MallocHost(const char* api, void** hostPtr, size_t size) {
  if (!hostPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": hostPtr is a null pointer");
  *hostPtr = nullptr;
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  const Allocation a = AllocateAligned(size);
  if (!a.p) return Fail(ACL_ERROR_BAD_ALLOC, std::string(api) + ": out of memory for " + std::to_string(size) + " bytes");
  Memory& m = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  Block block{size};
  block.lead = a.lead;
  m.host.emplace(reinterpret_cast<uintptr_t>(a.p), block);
  m.host_bytes += size;
  *hostPtr = a.p;
  return ACL_SUCCESS;
}

}  // namespace

RuntimeCounts GetRuntimeCounts() {
  RuntimeCounts counts{};
  {
    Memory& m = State();
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    counts.device_allocations = m.device.size();
    counts.device_bytes = m.device_bytes;
    counts.peak_device_bytes = m.peak_device_bytes;
    counts.host_allocations = m.host.size();
    counts.host_bytes = m.host_bytes;
    counts.malloc_calls = m.malloc_calls;
    counts.free_calls = m.free_calls;
  }
  const StreamCounts streams = GetStreamCounts();
  counts.streams = streams.live_streams;
  counts.events = streams.live_events;
  counts.stream_syncs = streams.stream_syncs;
  counts.device_syncs = streams.device_syncs;
  counts.kernels_launched = streams.kernels_launched;
  counts.events_recorded = streams.events_recorded;
  counts.contexts = LiveUserContexts();
  return counts;
}

}  // namespace aclsim

using aclsim::Fail;

namespace aclsim {
namespace {

// aclrtMalloc (padded: `pad`) and aclrtMallocAlign32 (not padded), named `api` in messages.
aclError Malloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy, bool pad, const std::string& api) {
  if (!devPtr) return Fail(ACL_ERROR_INVALID_PARAM, api + ": devPtr is a null pointer");
  *devPtr = nullptr;
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, api + ": size is 0");
  const unsigned placement = static_cast<unsigned>(policy) & 0xffu;
  const unsigned band = static_cast<unsigned>(policy) & ~0xffu;
  if (placement > ACL_MEM_MALLOC_NORMAL_ONLY_P2P ||
      (band & ~unsigned(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH)) != 0) {
    return Fail(ACL_ERROR_INVALID_PARAM, api + ": unknown aclrtMemMallocPolicy " + std::to_string(static_cast<int>(policy)));
  }
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, api + ": no device is set (call aclrtSetDevice first)");
  }
  // CANN aligns the size up to a multiple of 32 bytes and adds 32 (aclrtMalloc's documentation):
  // the allocation is that large, and programs rely on it (page examples copy a BOOL result of 16
  // bytes out as 16 floats). A size whose padding would overflow is refused as too large.
  // aclrtMallocAlign32 rounds up to 32 bytes "with no padding" (acl_rt.h).
  if (size > SIZE_MAX - 63) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, api + ": out of device memory: " + std::to_string(size) + " bytes requested");
  }
  size = (size + 31) / 32 * 32 + (pad ? 32 : 0);
  auto& m = aclsim::State();
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    const uint64_t capacity = aclsim::DeviceMemoryCapacity();
    if (size > capacity - std::min<uint64_t>(m.device_bytes, capacity)) {
      return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, api + ": out of device memory: " + std::to_string(size) +
                                                      " bytes requested, " + std::to_string(m.device_bytes) + " of " +
                                                      std::to_string(capacity) + " in use");
    }
  }
  const aclsim::Allocation a = aclsim::AllocateAligned(size);
  if (!a.p) return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, api + ": out of memory for " + std::to_string(size) + " bytes");
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  aclsim::Block block{size};
  block.lead = a.lead;
  m.device.emplace(reinterpret_cast<uintptr_t>(a.p), block);
  m.device_bytes += size;
  ++m.malloc_calls;
  if (m.device_bytes > m.peak_device_bytes) m.peak_device_bytes = m.device_bytes;
  *devPtr = a.p;
  return ACL_SUCCESS;
}

}  // namespace
}  // namespace aclsim

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return aclsim::Malloc(devPtr, size, policy, true, "aclrtMalloc");
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return aclsim::Malloc(devPtr, size, policy, false, "aclrtMallocAlign32");
}

aclError aclrtFree(void* devPtr) {
  if (!devPtr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is a null pointer");
  auto& m = aclsim::State();
  const uintptr_t address = reinterpret_cast<uintptr_t>(devPtr);
  size_t size = 0;
  int shared_fd = -1;
  uint16_t lead = 0;
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    auto it = m.device.find(address);
    if (it != m.device.end() && it->second.mapped) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + aclsim::Hex(devPtr) + " is mapped virtual memory (release it with aclrtUnmapMem)");
    }
    if (it != m.device.end() && it->second.imported) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + aclsim::Hex(devPtr) +
                                               " was imported from another process (release it with aclrtIpcMemClose)");
    }
    if (it == m.device.end()) {
      if (aclsim::Containing(m.device, address) != m.device.end()) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + aclsim::Hex(devPtr) + " points inside a device allocation, not at its start");
      }
      if (m.host.count(address)) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + aclsim::Hex(devPtr) + " is host memory (free it with aclrtFreeHost)");
      }
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "aclrtFree: " + aclsim::Hex(devPtr) + " is not a live device allocation (freed twice, or never allocated)");
    }
    size = std::max<size_t>(it->second.size, 1);
  }
  // As on a device, memory that queued work still reads or writes is released after that work.
  if (aclError status = aclsim::WaitForUsers(address, address + size, "aclrtFree")) return status;
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    auto it = m.device.find(address);
    if (it == m.device.end()) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + aclsim::Hex(devPtr) + " was freed by another thread meanwhile");
    }
    m.device_bytes -= it->second.size;
    shared_fd = it->second.shared_fd;
    size = it->second.size;
    lead = it->second.lead;
    m.device.erase(it);
    ++m.free_calls;
  }
  if (shared_fd >= 0) {
    // Exported memory goes back to private pages before the heap has it again: importers keep the
    // file's pages (their mappings), and nothing the heap writes there later reaches them.
    mmap(devPtr, aclsim::Capacity(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    close(shared_fd);
  }
  std::free(static_cast<char*>(devPtr) - lead);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) { return aclsim::MallocHost("aclrtMallocHost", hostPtr, size); }

aclError aclrtMallocHostWithCfg(void** ptr, uint64_t size, aclrtMallocConfig* cfg) {
  constexpr const char* api = "aclrtMallocHostWithCfg";
  if (cfg && cfg->numAttrs && !cfg->attrs) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": cfg->attrs is a null pointer");
  for (size_t i = 0; cfg && i < cfg->numAttrs; ++i) {
    const aclrtMallocAttribute& attribute = cfg->attrs[i];
    switch (attribute.attr) {
      case ACL_RT_MEM_ATTR_MODULE_ID: break;  // whose memory it is, for the device's accounting: any module
      case ACL_RT_MEM_ATTR_DEVICE_ID:
        if (aclError status = aclsim::CheckDeviceId(attribute.value.deviceId, api)) return status;
        break;
      case ACL_RT_MEM_ATTR_VA_FLAG:
        // torch_npu's pinned-memory allocator asks 1 on Ascend950 (CachingHostAllocator). The header does
        // not say what it adds to the device's address space, so the memory is aclrtMallocHost's: host
        // memory for copies, which the kernels' memory checks still refuse as device memory (an error,
        // never a guessed mapping). Any other value is refused, not guessed.
        if (attribute.value.vaFlag > 1) {
          return aclsim::FailNotModelled(api, std::string(api) + ": ACL_RT_MEM_ATTR_VA_FLAG " +
                                                  std::to_string(attribute.value.vaFlag) + " is not modelled by the simulator");
        }
        break;
      default:
        return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtMallocAttrType " +
                                                 std::to_string(static_cast<int>(attribute.attr)) + " in cfg->attrs[" + std::to_string(i) + "]");
    }
  }
  if (size > SIZE_MAX) return Fail(ACL_ERROR_BAD_ALLOC, std::string(api) + ": out of memory for " + std::to_string(size) + " bytes");
  return aclsim::MallocHost(api, ptr, static_cast<size_t>(size));
}

aclError aclrtHostRegister(void* ptr, uint64_t size, aclrtHostRegisterType type, void** devPtr) {
  constexpr const char* api = "aclrtHostRegister";
  if (!devPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr is a null pointer");
  *devPtr = nullptr;
  // IOMEMORY (memory of another PCIe device) is host memory like any other to a CPU.
  if (type != ACL_HOST_REGISTER_MAPPED && type != ACL_HOST_REGISTER_IOMEMORY && type != ACL_HOST_REGISTER_READONLY) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtHostRegisterType " + std::to_string(static_cast<int>(type)));
  }
  if (aclError status = aclsim::RegisterHostRange(api, ptr, size, true, type == ACL_HOST_REGISTER_READONLY)) return status;
  *devPtr = ptr;  // the simulated device addresses host memory at its host address
  return ACL_SUCCESS;
}

aclError aclrtHostRegisterV2(void* ptr, uint64_t size, uint32_t flag) {
  constexpr const char* api = "aclrtHostRegisterV2";
  constexpr uint64_t known = ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;
  if (flag & ~known) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown flag bits " + aclsim::Hex(reinterpret_cast<void*>(uintptr_t{flag & ~known})));
  // Pinning keeps pages from being swapped out: what the device's DMA needs, nothing a CPU copy does.
  return aclsim::RegisterHostRange(api, ptr, size, (flag & ACL_HOST_REG_MAPPED) != 0, (flag & ACL_HOST_REG_READONLY) != 0);
}

aclError aclrtHostGetDevicePointer(void* pHost, void** pDevice, uint32_t flag) {
  constexpr const char* api = "aclrtHostGetDevicePointer";
  if (!pHost || !pDevice) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": pHost or pDevice is a null pointer");
  *pDevice = nullptr;
  if (flag != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flag must be 0, not " + std::to_string(flag));
  auto& m = aclsim::State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  if (aclsim::MappedRegistration(m, reinterpret_cast<uintptr_t>(pHost)) == m.registered.end()) {
    return Fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, std::string(api) + ": " + aclsim::Hex(pHost) +
                                                          " is in no host registration mapped for the device "
                                                          "(aclrtHostRegister, or aclrtHostRegisterV2 with ACL_HOST_REG_MAPPED)");
  }
  *pDevice = pHost;
  return ACL_SUCCESS;
}

aclError aclrtHostUnregister(void* ptr) {
  constexpr const char* api = "aclrtHostUnregister";
  if (!ptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": ptr is a null pointer");
  auto& m = aclsim::State();
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  size_t size;
  {
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    auto it = m.registered.find(address);
    if (it == m.registered.end()) {
      return Fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
                  std::string(api) + ": " + aclsim::Hex(ptr) + " starts no host registration (aclrtHostRegister)");
    }
    size = it->second.size;
  }
  // As aclrtFree does: work queued on a stream that reads or writes the range runs first.
  if (aclError status = aclsim::WaitForUsers(address, address + size, api)) return status;
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  m.registered.erase(address);
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  if (!hostPtr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is a null pointer");
  auto& m = aclsim::State();
  std::unique_lock<aclnn_bindgen::SpinLock> lock(m.mutex);
  auto it = m.host.find(reinterpret_cast<uintptr_t>(hostPtr));
  if (it == m.host.end()) {
    if (m.device.count(reinterpret_cast<uintptr_t>(hostPtr))) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: " + aclsim::Hex(hostPtr) + " is device memory (free it with aclrtFree)");
    }
    return Fail(ACL_ERROR_INVALID_PARAM,
                "aclrtFreeHost: " + aclsim::Hex(hostPtr) + " is not a live aclrtMallocHost allocation (freed twice?)");
  }
  m.host_bytes -= it->second.size;
  const uint16_t lead = it->second.lead;
  m.host.erase(it);
  lock.unlock();
  std::free(static_cast<char*>(hostPtr) - lead);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  // Synchronous, and not ordered with any stream: callers synchronise the stream that wrote
  // `src` first, as on a device. The caller reads results here: an earlier refusal it is owed first.
  if (int32_t held = aclsim::TakeHeldRefusal("aclrtMemcpy")) return held;
  if (aclError owed = aclsim::TakeFaultOwedToCopy("aclrtMemcpy", kind)) return owed;
  if (aclError status = aclsim::CheckCopy("aclrtMemcpy", dst, destMax, src, count, kind)) return status;
  if (count) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  // Host memory is read or written when the stream reaches the copy: it must stay valid until then.
  if (aclError status = aclsim::CheckCopy("aclrtMemcpyAsync", dst, destMax, src, count, kind)) return status;
  return aclsim::EnqueueCopy(stream, "aclrtMemcpyAsync", dst, src, count);
}

aclError aclrtMemcpyAsyncWithCondition(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                                       aclrtStream stream) {
  // "With condition": the device may turn the copy into a synchronous one when the host memory is
  // not pinned; the simulator's queued copy is valid in both cases.
  if (aclError status = aclsim::CheckCopy("aclrtMemcpyAsyncWithCondition", dst, destMax, src, count, kind)) return status;
  return aclsim::EnqueueCopy(stream, "aclrtMemcpyAsyncWithCondition", dst, src, count);
}

aclError aclrtMemcpyBatch(void** dsts, size_t* destMaxs, void** srcs, size_t* sizes, size_t numBatches,
                          aclrtMemcpyBatchAttr* attrs, size_t* attrsIndexes, size_t numAttrs, size_t* failIndex) {
  return aclsim::MemcpyBatch("aclrtMemcpyBatch", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs,
                             failIndex, false, nullptr);
}

aclError aclrtMemcpyBatchAsync(void** dsts, size_t* destMaxs, void** srcs, size_t* sizes, size_t numBatches,
                               aclrtMemcpyBatchAttr* attrs, size_t* attrsIndexes, size_t numAttrs, size_t* failIndex,
                               aclrtStream stream) {
  return aclsim::MemcpyBatch("aclrtMemcpyBatchAsync", dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes,
                             numAttrs, failIndex, true, stream);
}

aclError aclrtValueWrite(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  constexpr const char* api = "aclrtValueWrite";
  if (flag != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flag is reserved and must be 0, not " + std::to_string(flag));
  if (aclError status = aclsim::CheckDeviceWord(api, "devAddr", devAddr)) return status;
  return aclsim::EnqueueValueWrite(stream, api, devAddr, value);
}

aclError aclrtValueWait(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  constexpr const char* api = "aclrtValueWait";
  if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown wait mode " + std::to_string(flag) +
                                             " (ACL_STREAM_WAIT_VALUE_GEQ, _EQ, _AND or _NOR)");
  }
  if (aclError status = aclsim::CheckDeviceWord(api, "src", devAddr)) return status;  // read, not written
  return aclsim::EnqueueValueWait(stream, api, devAddr, value, flag);
}

aclError aclrtCmoAsync(void* src, size_t size, aclrtCmoType cmoType, aclrtStream stream) {
  constexpr const char* api = "aclrtCmoAsync";
  if (cmoType < ACL_RT_CMO_TYPE_PREFETCH || cmoType > ACL_RT_CMO_TYPE_FLUSH) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtCmoType " + std::to_string(static_cast<int>(cmoType)));
  }
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  if (aclError status = aclsim::CheckDeviceRange(api, "src", src, size)) return status;
  // The simulated device's memory is the host's, coherent with every reader: prefetching into, writing
  // back from or invalidating a cache changes no value a kernel or a copy reads, so every kind is done
  // once the stream is known; nothing needs queueing.
  return aclsim::CheckStream(stream, api);
}

aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo* memUsageInfo, size_t inputNum, size_t* outputNum) {
  constexpr const char* api = "aclrtGetMemUsageInfo";
  if (!memUsageInfo || !outputNum) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": memUsageInfo or outputNum is a null pointer");
  if (inputNum == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": inputNum is 0");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  // One component holds the simulated device's memory: the runtime's allocator, which every aclrtMalloc,
  // mapped physical memory and imported allocation is charged to (one pool for all simulated devices,
  // as aclrtGetMemInfo counts it).
  aclrtMemUsageInfo info{};
  std::snprintf(info.name, sizeof(info.name), "%s", "runtime");
  {
    auto& m = aclsim::State();
    std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
    info.curMemSize = m.device_bytes;
    info.memPeakSize = m.peak_device_bytes;
  }
  memUsageInfo[0] = info;
  *outputNum = 1;
  return ACL_SUCCESS;
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  if (!free || !total) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free or total is a null pointer");
  if (attr < ACL_DDR_MEM || attr > ACL_MEM_P2P_HUGE1G) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: unknown aclrtMemAttr " + std::to_string(static_cast<int>(attr)));
  }
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetMemInfo: no device is set (call aclrtSetDevice first)");
  }
  // The simulated device has one kind of memory, its HBM: every kind of page and use counts it. DDR
  // (the device's own DRAM next to its AI CPU) it does not have.
  if (attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL || attr == ACL_DDR_MEM_P2P_HUGE ||
      attr == ACL_DDR_MEM_P2P_NORMAL) {
    *free = *total = 0;
    return ACL_SUCCESS;
  }
  auto& m = aclsim::State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  const uint64_t capacity = aclsim::DeviceMemoryCapacity();
  *total = capacity;
  *free = capacity - std::min<uint64_t>(m.device_bytes, capacity);
  return ACL_SUCCESS;
}

aclError aclrtPointerGetAttributes(const void* ptr, aclrtPtrAttributes* attributes) {
  if (!ptr || !attributes) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtPointerGetAttributes: ptr or attributes is a null pointer");
  *attributes = aclrtPtrAttributes{};
  auto& m = aclsim::State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(m.mutex);
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  if (aclsim::Containing(m.device, address) != m.device.end()) {
    int32_t device = 0;
    aclsim::CurrentDeviceId(&device);  // allocations are not tagged with their device: the current one
    attributes->location = aclrtMemLocation{static_cast<uint32_t>(device), ACL_MEM_LOCATION_TYPE_DEVICE};
  } else if (aclsim::Containing(m.host, address) != m.host.end()) {
    attributes->location = aclrtMemLocation{0, ACL_MEM_LOCATION_TYPE_HOST};
  } else {
    attributes->location = aclrtMemLocation{0, ACL_MEM_LOCATION_TYPE_UNREGISTERED};
  }
  attributes->pageSize = 4096;
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (aclError status = aclsim::CheckFill("aclrtMemset", devPtr, maxCount, count)) return status;
  if (count) std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  if (aclError status = aclsim::CheckFill("aclrtMemsetAsync", devPtr, maxCount, count)) return status;
  return aclsim::EnqueueFill(stream, "aclrtMemsetAsync", devPtr, value, count);
}

int aclsimGetRuntimeStats(aclsimStats* out) {
  if (!out) return 1;
  *out = aclsimStats{};
  const aclsim::RuntimeCounts c = aclsim::GetRuntimeCounts();
  out->device_allocations = c.device_allocations;
  out->device_bytes = c.device_bytes;
  out->peak_device_bytes = c.peak_device_bytes;
  out->host_allocations = c.host_allocations;
  out->host_bytes = c.host_bytes;
  out->streams = c.streams;
  out->contexts = c.contexts;
  out->malloc_calls = c.malloc_calls;
  out->free_calls = c.free_calls;
  out->stream_syncs = c.stream_syncs;
  out->device_syncs = c.device_syncs;
  out->kernels_launched = c.kernels_launched;
  out->events_recorded = c.events_recorded;
  out->events = c.events;
  return 0;
}

}  // extern "C"
