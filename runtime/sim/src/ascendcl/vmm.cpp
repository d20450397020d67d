// libascendcl, virtual memory management: a range of addresses reserved (aclrtReserveMemAddress),
// physical memory behind a handle (aclrtMallocPhysical), and the mapping of the one into the other
// (aclrtMapMem/aclrtUnmapMem), as CUDA's cuMem* calls. torch_npu's expandable segments grow a
// segment by mapping more physical memory behind its reserved range.
//
// Modelled with the host's own virtual memory: a reservation is an inaccessible anonymous mapping,
// a physical allocation a memory file (memfd) of its size that counts against the device's
// capacity, and a mapping maps the file over part of a reservation. A mapped range is device memory
// for copies and kernels until it is unmapped; touching a reserved but unmapped address faults, as
// on a device.
//
// Physical memory is shared between processes as torch_npu shares an expandable segment's: the
// owner exports a handle (aclrtMemExportToShareableHandle: a 64-bit value naming its memory file,
// ipc.h), admits processes by pid unless it exported with
// ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION (aclrtMemSetPidToShareableHandle), and another
// process imports the value as a handle of its own (aclrtMemImportFromShareableHandle) that it maps
// into its reservations and frees as its own. The file is the memory from the start, so exporting
// changes nothing of the owner's mappings. The owner's aclrtFreePhysical ends the export (later
// imports are refused); an imported handle and its mappings keep the memory until they are released.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "acl/acl.h"
#include "ascendcl/ipc.h"
#include "ascendcl/streams.h"
#include "common/internal.h"

namespace aclsim {
namespace {

// CANN's granularity of physical allocations and mappings: 2 MiB pages.
constexpr size_t kGranularity = size_t{2} << 20;

// `size` rounded up to whole pages of the granularity, as a driver reserves and allocates them.
size_t WholePages(size_t size) { return (size + kGranularity - 1) / kGranularity * kGranularity; }

struct Physical {
  int fd = -1;
  size_t size = 0;
  // The bytes of the device's capacity it holds: its size, or 0 when imported (the exporter's memory).
  size_t charged = 0;
  bool imported = false;
  int mappings = 0;  // live aclrtMapMem mappings of it: it is freed after the last unmap
  // While its shareable handle is live (until aclrtFreePhysical): the handle, and its export's page.
  uint64_t shareable = 0;
  ExportPage* exported = nullptr;
  ~Physical() {
    if (fd >= 0) close(fd);
  }
};

struct Mapping {
  size_t size;
  std::shared_ptr<Physical> physical;
};

struct VirtualMemory {
  std::mutex mutex;
  std::map<uintptr_t, size_t> reservations;        // base -> size
  std::map<uintptr_t, Mapping> mappings;            // base -> what is mapped there
  std::map<uintptr_t, std::shared_ptr<Physical>> handles;  // live aclrtMallocPhysical handles
};

VirtualMemory& State() {
  static VirtualMemory* state = new VirtualMemory;  // never destroyed: called during exit
  return *state;
}

// The reservation containing [base, base + size), if any.
bool InReservation(const VirtualMemory& vm, uintptr_t base, size_t size) {
  auto it = vm.reservations.upper_bound(base);
  if (it == vm.reservations.begin()) return false;
  --it;
  return base >= it->first && base + size <= it->first + it->second;
}

std::string Errno() { return std::strerror(errno); }

// The live physical handle `handle` names, or null.
std::shared_ptr<Physical> Find(const VirtualMemory& vm, aclrtDrvMemHandle handle) {
  auto it = vm.handles.find(reinterpret_cast<uintptr_t>(handle));
  return it == vm.handles.end() ? nullptr : it->second;
}

}  // namespace
}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr, uint64_t flags) {
  constexpr const char* api = "aclrtReserveMemAddress";
  if (!virPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": virPtr is a null pointer");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  if (expectPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": expectPtr must be nullptr (acl_rt.h)");
  // acl_rt.h states no granularity for a reservation: the range is rounded up to whole pages of
  // the mapping granularity, as a driver reserves.
  size = aclsim::WholePages(size);
  if (alignment != 0 && (alignment & (alignment - 1))) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": alignment must be 0 or a power of two");
  }
  if (flags > 1) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flags must be 0 or 1 (huge pages)");
  const size_t align = std::max(alignment, aclsim::kGranularity);
  // Reserve size + align and trim, so that the range starts on the alignment.
  void* raw = mmap(nullptr, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + aclsim::Errno());
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t base = (start + align - 1) / align * align;
  if (base > start) munmap(raw, base - start);
  const uintptr_t end = start + size + align;
  if (end > base + size) munmap(reinterpret_cast<void*>(base + size), end - (base + size));
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  vm.reservations.emplace(base, size);
  *virPtr = reinterpret_cast<void*>(base);
  return ACL_SUCCESS;
}

aclError aclrtReleaseMemAddress(void* virPtr) {
  constexpr const char* api = "aclrtReleaseMemAddress";
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  auto it = vm.reservations.find(reinterpret_cast<uintptr_t>(virPtr));
  if (it == vm.reservations.end()) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not the start of a live reservation");
  const uintptr_t base = it->first, end = it->first + it->second;
  auto mapped = vm.mappings.lower_bound(base);
  if (mapped != vm.mappings.end() && mapped->first < end) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the reservation still has mapped memory (aclrtUnmapMem it first)");
  }
  munmap(virPtr, it->second);
  vm.reservations.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size, const aclrtPhysicalMemProp* prop, uint64_t flags) {
  constexpr const char* api = "aclrtMallocPhysical";
  if (!handle || !prop) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle or prop is a null pointer");
  if (flags != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flags must be 0");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size is 0");
  if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
    return aclsim::FailNotModelled(api, std::string(api) + ": only device memory (ACL_MEM_LOCATION_TYPE_DEVICE) is modelled");
  }
  if (aclError status = aclsim::CheckDeviceId(prop->location.id, api)) return status;
  if (!aclsim::ChargeDeviceMemory(size, api)) return ACL_ERROR_RT_MEMORY_ALLOCATION;
  auto physical = std::make_shared<aclsim::Physical>();
  physical->fd = memfd_create(aclsim::kPhysicalMemoryName, MFD_CLOEXEC);
  // Whole pages of the granularity back it, as a driver allocates them; mappings are of `size`.
  const size_t backed = aclsim::WholePages(size);
  if (physical->fd < 0 || ftruncate(physical->fd, static_cast<off_t>(backed)) != 0) {
    aclsim::RefundDeviceMemory(size);
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + aclsim::Errno());
  }
  physical->size = size;
  physical->charged = size;
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  *handle = physical.get();
  vm.handles.emplace(reinterpret_cast<uintptr_t>(physical.get()), std::move(physical));
  return ACL_SUCCESS;
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  auto it = vm.handles.find(reinterpret_cast<uintptr_t>(handle));
  if (it == vm.handles.end()) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreePhysical: not a live physical memory handle");
  // Mappings keep the memory (CUDA's and CANN's rule: freeing the handle of mapped memory releases
  // it when the last mapping goes); the device's capacity gets it back then. Processes that imported
  // it keep it too, but no new one can.
  aclsim::Physical& physical = *it->second;
  if (physical.exported) aclsim::EndExport(physical.exported);
  physical.exported = nullptr;
  physical.shareable = 0;
  if (physical.mappings == 0) aclsim::RefundDeviceMemory(physical.charged);
  vm.handles.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags) {
  constexpr const char* api = "aclrtMapMem";
  if (!virPtr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": virPtr is a null pointer");
  if (flags != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flags must be 0");
  if (offset != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": offset must be 0 (acl_rt.h: reserved)");
  const uintptr_t base = reinterpret_cast<uintptr_t>(virPtr);
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  const auto physical = aclsim::Find(vm, handle);
  if (!physical) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live physical memory handle");
  if (size == 0 || size != physical->size) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size must be the physical allocation's size, " + std::to_string(physical->size));
  }
  if (base % aclsim::kGranularity || !aclsim::InReservation(vm, base, size)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": [virPtr, virPtr + size) is not a part of a reservation starting on a 2 MiB boundary");
  }
  if (!aclsim::AddMappedRange(base, size)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the range overlaps memory that is already mapped");
  }
  if (mmap(virPtr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, physical->fd, 0) == MAP_FAILED) {
    aclsim::RemoveMappedRange(base, size);
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + aclsim::Errno());
  }
  ++physical->mappings;
  vm.mappings.emplace(base, aclsim::Mapping{size, physical});
  return ACL_SUCCESS;
}

aclError aclrtUnmapMem(void* virPtr) {
  constexpr const char* api = "aclrtUnmapMem";
  const uintptr_t base = reinterpret_cast<uintptr_t>(virPtr);
  std::shared_ptr<aclsim::Physical> physical;
  size_t size = 0;
  {
    auto& vm = aclsim::State();
    std::lock_guard<std::mutex> lock(vm.mutex);
    auto it = vm.mappings.find(base);
    if (it == vm.mappings.end()) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not the start of a mapped range");
    size = it->second.size;
    physical = it->second.physical;
    vm.mappings.erase(it);
  }
  // Queued work that still uses the memory runs first, as aclrtFree waits for it; work that cannot
  // finish keeps the mapping.
  if (aclError status = aclsim::WaitForUsers(base, base + size, api)) {
    auto& vm = aclsim::State();
    std::lock_guard<std::mutex> lock(vm.mutex);
    vm.mappings.emplace(base, aclsim::Mapping{size, physical});
    return status;
  }
  aclsim::RemoveMappedRange(base, size);
  // Back to reserved and inaccessible.
  mmap(virPtr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  if (--physical->mappings == 0 && !vm.handles.count(reinterpret_cast<uintptr_t>(physical.get()))) {
    aclsim::RefundDeviceMemory(physical->charged);  // its handle was freed while it was mapped
  }
  return ACL_SUCCESS;
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags,
                                         uint64_t* shareableHandle) {
  constexpr const char* api = "aclrtMemExportToShareableHandle";
  if (!shareableHandle) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": shareableHandle is a null pointer");
  if (handleType != ACL_MEM_HANDLE_TYPE_NONE) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handleType must be ACL_MEM_HANDLE_TYPE_NONE (acl_rt.h: reserved)");
  }
  if (flags & ~uint64_t{ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION}) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown flags " + std::to_string(flags));
  }
  const bool validate_pids = !(flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  const auto physical = aclsim::Find(vm, handle);
  if (!physical) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live physical memory handle");
  if (physical->imported) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the handle was imported from another process; only the "
                                                            "process that allocated the memory (aclrtMallocPhysical) exports it");
  }
  // A handle has one shareable handle: exporting it again gives it back.
  if (physical->exported) {
    if (aclsim::Terms(*physical->exported).validate_pids != validate_pids) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the handle is exported already with other flags");
    }
    *shareableHandle = physical->shareable;
    return ACL_SUCCESS;
  }
  aclsim::FileName name;
  uint64_t value = 0;
  if (!aclsim::NameShareable(physical->fd, &name, &value)) {
    return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator for this process: its pid "
                                        "or the memory's descriptor does not fit a shareable handle");
  }
  aclsim::ExportPage* page = nullptr;
  if (aclError status = aclsim::MapExportPage(api, physical->fd, aclsim::WholePages(physical->size), &page)) return status;
  aclsim::StartExport(page, aclsim::ExportTerms{name.serial, physical->size, validate_pids});
  physical->exported = page;
  physical->shareable = value;
  *shareableHandle = value;
  return ACL_SUCCESS;
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t* pid, size_t pidNum) {
  constexpr const char* api = "aclrtMemSetPidToShareableHandle";
  if (!pid || pidNum == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": pid is a null pointer, or pidNum is 0");
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  for (const auto& [address, physical] : vm.handles) {
    if (physical->exported && physical->shareable == shareableHandle) {
      return aclsim::AdmitProcesses(physical->exported, pid, pidNum, api);
    }
  }
  return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live shareable handle this process exported "
                                                          "(aclrtMemExportToShareableHandle; aclrtFreePhysical ends it)");
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle* handle) {
  constexpr const char* api = "aclrtMemImportFromShareableHandle";
  if (!handle) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": handle is a null pointer");
  *handle = nullptr;
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  aclsim::FileName name;
  if (!aclsim::ParseShareable(shareableHandle, &name)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a handle aclrtMemExportToShareableHandle made");
  }
  auto physical = std::make_shared<aclsim::Physical>();
  if (aclError status = aclsim::OpenExport(name, aclsim::kPhysicalMemoryName, "the handle's memory", "aclrtMemSetPidToShareableHandle",
                                           api, &physical->fd, &physical->size)) {
    return status;
  }
  physical->imported = true;
  auto& vm = aclsim::State();
  std::lock_guard<std::mutex> lock(vm.mutex);
  *handle = physical.get();
  vm.handles.emplace(reinterpret_cast<uintptr_t>(physical.get()), std::move(physical));
  return ACL_SUCCESS;
}

}  // extern "C"
