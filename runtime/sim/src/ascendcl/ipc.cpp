// libascendcl, memory and events shared between processes (acl_rt.h's aclrtIpc* calls), as
// torch.multiprocessing shares npu tensors through torch_npu: the producer exports the allocation
// behind a tensor (aclrtIpcMemGetExportKey) and an event recorded after the work that wrote it
// (aclrtIpcGetEventHandle); the consumer maps the memory by key (aclrtIpcMemImportByKey), waits for
// the event (aclrtIpcOpenEventHandle, aclrtStreamWaitEvent), reads and writes, and unmaps it
// (aclrtIpcMemClose). How the memory is shared is ipc.h's.
//
// A key is "aclsim-ipc:<pid>:<fd>:<serial>". Its file holds the allocation's pages, then one page of
// the export's bookkeeping (ExportPage): the serial of the live key and the processes it admits. An
// export validates the importer's pid unless made with ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION
// (torch_npu's): a process the exporter did not name in aclrtIpcMemSetImportPid is refused. The
// shareable handles of physical memory (vmm.cpp) are exports of the same kind, named in 64 bits.
// aclrtIpcMemClose in the exporting process ends the key (later imports are refused; mappings made
// already stay); in an importing process it unmaps the memory (after its last import of the key).
#include "ascendcl/ipc.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include "acl/acl.h"
#include "ascendcl/streams.h"
#include "common/internal.h"

namespace aclsim {

struct SharedEventCounters {
  uint64_t magic;
  uint64_t serial;
  std::atomic<uint64_t> recorded;
  std::atomic<uint64_t> completed;
  std::atomic<uint32_t> sequence;  // bumped at every completion: the futex waiters sleep on
  // The latest record that ran behind a fault, with the fault: a wait in another process takes it over.
  std::atomic<uint64_t> faulted_version;
  std::atomic<int32_t> fault_status;
  char fault_api[64];
  char fault_message[512];
};

namespace {

constexpr size_t kPage = 4096;
constexpr uint64_t kExportMagic = 0x61636c73696d4d31;  // "aclsimM1"
constexpr uint64_t kEventMagic = 0x61636c73696d4531;   // "aclsimE1"
constexpr const char* kEventFileName = "aclsim-ipc-event";
// The longest key or handle text read: Format's are under 64 characters (an event handle holds 64).
constexpr size_t kLongestName = 96;
static_assert(sizeof(SharedEventCounters) <= kPage, "an IPC event's counters fit a page");

// Bits of a shareable handle (ipc.h's NameShareable).
constexpr int kShareablePidBits = 22, kShareableFdBits = 20, kShareableSerialBits = 22;
static_assert(kShareablePidBits + kShareableFdBits + kShareableSerialBits == 64, "a shareable handle is 64 bits");

std::string Errno() { return std::strerror(errno); }

std::string Format(const char* prefix, const FileName& name) {
  char text[kLongestName];
  std::snprintf(text, sizeof text, "%s:%ld:%d:%016" PRIx64, prefix, name.pid, name.fd, name.serial);
  return text;
}

bool Parse(const char* prefix, const char* text, size_t max, FileName* name) {
  const std::string value(text, strnlen(text, max));
  char tail = 0;
  const std::string format = std::string(prefix) + ":%ld:%d:%16" SCNx64 "%c";
  return std::sscanf(value.c_str(), format.c_str(), &name->pid, &name->fd, &name->serial, &tail) == 3 && name->pid > 0 &&
         name->fd >= 0 && Format(prefix, *name) == value;
}

// Opens the file `name` designates (the memory file `file_name` of its process), or -1 with `why` set.
int OpenFile(const FileName& name, const char* file_name, std::string* why) {
  const std::string path = "/proc/" + std::to_string(name.pid) + "/fd/" + std::to_string(name.fd);
  char target[256] = {};
  const ssize_t length = readlink(path.c_str(), target, sizeof target - 1);
  const std::string expected = std::string("/memfd:") + file_name;
  if (length < 0 || std::string(target, static_cast<size_t>(length)).compare(0, expected.size(), expected) != 0) {
    *why = "its process (" + std::to_string(name.pid) + ") has ended or no longer shares it";
    return -1;
  }
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) *why = "opening " + path + ": " + Errno();
  return fd;
}

// --- memory -------------------------------------------------------------------------------------

struct Import {
  void* base;
  size_t bytes;  // mapped
  int count;     // imports of the key not closed yet
};

struct Keys {
  std::mutex mutex;
  std::map<std::string, ExportPage*> exports;  // keys this process made, their pages mapped until closed
  std::map<std::string, Import> imports;  // keys this process mapped
};

Keys& SharedKeys() {
  static Keys* keys = new Keys;  // never destroyed: called during exit
  return *keys;
}

bool CopyKey(const std::string& key, char* out, size_t len, const char* api) {
  if (key.size() + 1 > len) {
    Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": len " + std::to_string(len) + " is too small for the key (" +
                                      std::to_string(key.size() + 1) + " bytes with its terminating zero)");
    return false;
  }
  std::memcpy(out, key.c_str(), key.size() + 1);
  return true;
}

}  // namespace

// --- exports of memory files ----------------------------------------------------------------------

// The last page of an exported file.
struct ExportPage {
  uint64_t magic;
  uint64_t serial;  // the live export's; 0 once it ended
  uint64_t size;    // the bytes it exports
  uint32_t validate_pids;
  std::atomic<uint32_t> pid_count;
  int32_t pids[(kPage - 32) / sizeof(int32_t)];
};
static_assert(sizeof(ExportPage) <= kPage, "an export's bookkeeping fits a page");
constexpr size_t kMaxImportPids = sizeof(ExportPage::pids) / sizeof(int32_t);

// A random start, counted up.
uint64_t NextSerial() {
  static std::atomic<uint64_t> next{[] {
    std::random_device device;
    return (uint64_t{device()} << 32 | device()) | 1;
  }()};
  return next.fetch_add(2, std::memory_order_relaxed);
}

aclError MapExportPage(const char* api, int fd, size_t memory_bytes, ExportPage** page) {
  struct stat file;
  if (fstat(fd, &file) != 0) return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + Errno());
  if (static_cast<size_t>(file.st_size) == memory_bytes && ftruncate(fd, static_cast<off_t>(memory_bytes + kPage)) != 0) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + Errno());
  }
  void* mapped = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(memory_bytes));
  if (mapped == MAP_FAILED) return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": " + Errno());
  *page = static_cast<ExportPage*>(mapped);
  return ACL_SUCCESS;
}

void UnmapExportPage(ExportPage* page) { munmap(page, kPage); }

ExportTerms Terms(const ExportPage& page) {
  const uint64_t serial = page.magic == kExportMagic ? __atomic_load_n(&page.serial, __ATOMIC_ACQUIRE) : 0;
  return ExportTerms{serial, static_cast<size_t>(page.size), page.validate_pids != 0};
}

void StartExport(ExportPage* page, const ExportTerms& terms) {
  page->magic = kExportMagic;
  page->size = terms.size;
  page->validate_pids = terms.validate_pids;
  page->pid_count.store(0, std::memory_order_relaxed);
  __atomic_store_n(&page->serial, terms.serial, __ATOMIC_RELEASE);
}

void EndExport(ExportPage* page) {
  __atomic_store_n(&page->serial, uint64_t{0}, __ATOMIC_RELEASE);
  UnmapExportPage(page);
}

aclError AdmitProcesses(ExportPage* page, const int32_t* pids, size_t count, const char* api) {
  const uint32_t admitted = page->pid_count.load(std::memory_order_relaxed);
  if (count > kMaxImportPids - admitted) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": an export admits at most " + std::to_string(kMaxImportPids) +
                                             " processes; " + std::to_string(admitted) + " are set already");
  }
  for (size_t i = 0; i < count; ++i) {
    if (pids[i] <= 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": pid " + std::to_string(pids[i]) + " is not a process id");
  }
  std::memcpy(page->pids + admitted, pids, count * sizeof(int32_t));
  page->pid_count.store(admitted + static_cast<uint32_t>(count), std::memory_order_release);
  return ACL_SUCCESS;
}

aclError OpenExport(const FileName& name, const char* file_name, const char* what, const char* admitter, const char* api,
                    int* fd, size_t* size) {
  std::string why;
  const int file = OpenFile(name, file_name, &why);
  if (file < 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + what + " is not exported any more: " + why);
  struct stat status;
  void* mapped = MAP_FAILED;
  if (fstat(file, &status) == 0 && static_cast<size_t>(status.st_size) > kPage) {
    mapped = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, file, static_cast<off_t>(status.st_size) - kPage);
  }
  const auto* page = mapped == MAP_FAILED ? nullptr : static_cast<const ExportPage*>(mapped);
  auto refuse = [&](aclError code, const std::string& message) {
    if (page) munmap(mapped, kPage);
    close(file);
    return Fail(code, std::string(api) + ": " + message);
  };
  if (!page || name.serial == 0 || Terms(*page).serial != name.serial) {
    return refuse(ACL_ERROR_INVALID_PARAM, std::string(what) + " is not exported any more (its export ended, or the memory was freed)");
  }
  if (page->validate_pids) {
    const uint32_t count = page->pid_count.load(std::memory_order_acquire);
    const int32_t self = static_cast<int32_t>(getpid());
    const int32_t* end = page->pids + std::min<size_t>(count, kMaxImportPids);
    if (std::find<const int32_t*>(page->pids, end, self) == end) {
      return refuse(ACL_ERROR_RT_NO_PERMISSION, "process " + std::to_string(self) + " is not among the processes the exporter "
                                                    "admitted (" + admitter + "), and the export validates them");
    }
  }
  *size = page->size;
  munmap(mapped, kPage);
  *fd = file;
  return ACL_SUCCESS;
}

bool NameShareable(int fd, FileName* name, uint64_t* handle) {
  const uint64_t pid = static_cast<uint64_t>(getpid());
  if (fd < 0 || static_cast<uint64_t>(fd) >> kShareableFdBits || pid >> kShareablePidBits) return false;
  uint64_t serial = 0;
  // The low bits, which differ from one export to the next (the lowest is always 1).
  while (serial == 0) serial = NextSerial() >> 1 & ((uint64_t{1} << kShareableSerialBits) - 1);
  *name = FileName{static_cast<long>(pid), fd, serial};
  *handle = pid << (kShareableFdBits + kShareableSerialBits) | static_cast<uint64_t>(fd) << kShareableSerialBits | serial;
  return true;
}

bool ParseShareable(uint64_t handle, FileName* name) {
  const uint64_t serial = handle & ((uint64_t{1} << kShareableSerialBits) - 1);
  const uint64_t fd = handle >> kShareableSerialBits & ((uint64_t{1} << kShareableFdBits) - 1);
  const uint64_t pid = handle >> (kShareableFdBits + kShareableSerialBits);
  *name = FileName{static_cast<long>(pid), static_cast<int>(fd), serial};
  return pid > 0 && serial != 0;
}

// --- events -------------------------------------------------------------------------------------

std::shared_ptr<SharedEvent> SharedEvent::Create(const char* api) {
  const int fd = memfd_create(kEventFileName, MFD_CLOEXEC);
  void* page = fd >= 0 && ftruncate(fd, kPage) == 0
                   ? mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                   : MAP_FAILED;
  if (page == MAP_FAILED) {
    Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": could not make an IPC event's shared memory: " + Errno());
    if (fd >= 0) close(fd);
    return nullptr;
  }
  auto* counters = new (page) SharedEventCounters{};
  counters->magic = kEventMagic;
  counters->serial = NextSerial();
  return std::shared_ptr<SharedEvent>(new SharedEvent(fd, counters));
}

aclError SharedEvent::Open(const aclrtIpcEventHandle& handle, const char* api, std::shared_ptr<SharedEvent>* out) {
  FileName name;
  if (!Parse("aclsim-ipc-event", handle.reserved, sizeof handle.reserved, &name)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a handle aclrtIpcGetEventHandle made");
  }
  std::string why;
  const int fd = OpenFile(name, kEventFileName, &why);
  if (fd < 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the handle's event is gone: " + why);
  void* page = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (page == MAP_FAILED) {
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": could not map the event's shared memory: " + Errno());
  }
  auto* counters = static_cast<SharedEventCounters*>(page);
  if (counters->magic != kEventMagic || counters->serial != name.serial) {
    munmap(page, kPage);
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the handle's event is gone: its process destroyed it");
  }
  out->reset(new SharedEvent(-1, counters));
  return ACL_SUCCESS;
}

SharedEvent::~SharedEvent() {
  munmap(counters_, kPage);
  if (fd_ >= 0) close(fd_);
}

aclrtIpcEventHandle SharedEvent::Handle() const {
  aclrtIpcEventHandle handle{};
  const std::string text = Format("aclsim-ipc-event", FileName{static_cast<long>(getpid()), fd_, counters_->serial});
  static_assert(sizeof handle.reserved >= 64, "the handle holds the text");
  std::memcpy(handle.reserved, text.c_str(), std::min(text.size() + 1, sizeof handle.reserved));
  return handle;
}

uint64_t SharedEvent::Record() { return counters_->recorded.fetch_add(1, std::memory_order_acq_rel) + 1; }

uint64_t SharedEvent::Latest() const { return counters_->recorded.load(std::memory_order_acquire); }

bool SharedEvent::Reached(uint64_t version) const { return counters_->completed.load(std::memory_order_acquire) >= version; }

void SharedEvent::Complete(uint64_t version, int32_t status, const char* api, const std::string& message) {
  SharedEventCounters& c = *counters_;
  if (status != 0) {
    std::snprintf(c.fault_api, sizeof c.fault_api, "%s", api);
    std::snprintf(c.fault_message, sizeof c.fault_message, "%s", message.c_str());
    c.fault_status.store(status, std::memory_order_relaxed);
    c.faulted_version.store(version, std::memory_order_release);
  }
  uint64_t seen = c.completed.load(std::memory_order_relaxed);
  while (seen < version && !c.completed.compare_exchange_weak(seen, version, std::memory_order_acq_rel)) {
  }
  c.sequence.fetch_add(1, std::memory_order_acq_rel);
  // Not FUTEX_PRIVATE: the waiters are in other processes too.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&c.sequence), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

int32_t SharedEvent::Wait(uint64_t version, std::string* api, std::string* message) const {
  SharedEventCounters& c = *counters_;
  for (;;) {
    const uint32_t sequence = c.sequence.load(std::memory_order_acquire);
    if (c.completed.load(std::memory_order_acquire) >= version) break;
    // Bounded, so that a completion whose wake-up was missed (its process ended midway) is seen.
    const timespec bound{0, 50 * 1000 * 1000};
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&c.sequence), FUTEX_WAIT, sequence, &bound, nullptr, 0);
  }
  if (c.faulted_version.load(std::memory_order_acquire) != version) return 0;
  *api = std::string(c.fault_api, strnlen(c.fault_api, sizeof c.fault_api));
  *message = std::string(c.fault_message, strnlen(c.fault_message, sizeof c.fault_message));
  return c.fault_status.load(std::memory_order_relaxed);
}

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclrtIpcMemGetExportKey(void* devPtr, size_t size, char* key, size_t len, uint64_t flags) {
  constexpr const char* api = "aclrtIpcMemGetExportKey";
  if (!devPtr || !key) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr or key is a null pointer");
  if (flags & ~uint64_t{ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION}) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown flags " + std::to_string(flags));
  }
  int fd = -1;
  size_t file_bytes = 0;
  if (aclError status = aclsim::ShareDeviceAllocation(api, devPtr, size, &fd, &file_bytes)) return status;
  auto& keys = aclsim::SharedKeys();
  std::lock_guard<std::mutex> lock(keys.mutex);
  aclsim::ExportPage* page = nullptr;
  if (aclError status = aclsim::MapExportPage(api, fd, file_bytes, &page)) return status;
  const aclsim::ExportTerms terms{aclsim::NextSerial(), size, !(flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)};
  // An allocation has one live key, its file's: exporting it again gives it back.
  if (const aclsim::ExportTerms live = aclsim::Terms(*page); live.serial) {
    aclsim::UnmapExportPage(page);
    if (live.size != terms.size || live.validate_pids != terms.validate_pids) {
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the allocation is exported already with another size or "
                                                              "flags (aclrtIpcMemClose its key first)");
    }
    const std::string text = aclsim::Format("aclsim-ipc", aclsim::FileName{static_cast<long>(getpid()), fd, live.serial});
    return aclsim::CopyKey(text, key, len, api) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
  }
  const std::string text = aclsim::Format("aclsim-ipc", aclsim::FileName{static_cast<long>(getpid()), fd, terms.serial});
  if (!aclsim::CopyKey(text, key, len, api)) {
    aclsim::UnmapExportPage(page);
    return ACL_ERROR_INVALID_PARAM;
  }
  aclsim::StartExport(page, terms);
  keys.exports.emplace(text, page);
  return ACL_SUCCESS;
}

aclError aclrtIpcMemSetImportPid(const char* key, int32_t* pid, size_t num) {
  constexpr const char* api = "aclrtIpcMemSetImportPid";
  if (!key || !pid || num == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": key or pid is a null pointer, or num is 0");
  auto& keys = aclsim::SharedKeys();
  std::lock_guard<std::mutex> lock(keys.mutex);
  auto it = keys.exports.find(key);
  if (it == keys.exports.end()) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a live key this process exported (aclrtIpcMemGetExportKey)");
  }
  return aclsim::AdmitProcesses(it->second, pid, num, api);
}

aclError aclrtIpcMemImportByKey(void** devPtr, const char* key, uint64_t flags) {
  constexpr const char* api = "aclrtIpcMemImportByKey";
  if (!devPtr || !key) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr or key is a null pointer");
  *devPtr = nullptr;
  if (flags & ~uint64_t{ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS}) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown flags " + std::to_string(flags));
  }
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  aclsim::FileName name;
  if (!aclsim::Parse("aclsim-ipc", key, aclsim::kLongestName, &name)) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a key aclrtIpcMemGetExportKey made");
  auto& keys = aclsim::SharedKeys();
  std::lock_guard<std::mutex> lock(keys.mutex);
  int fd = -1;
  size_t size = 0;
  if (aclError status = aclsim::OpenExport(name, aclsim::kSharedMemoryName, "the key's memory", "aclrtIpcMemSetImportPid", api, &fd, &size)) {
    return status;
  }
  if (auto it = keys.imports.find(key); it != keys.imports.end()) {
    close(fd);
    ++it->second.count;  // mapped once, unmapped after its last import is closed
    *devPtr = it->second.base;
    return ACL_SUCCESS;
  }
  const size_t bytes = (size + aclsim::kPage - 1) / aclsim::kPage * aclsim::kPage;
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const std::string why = aclsim::Errno();
  close(fd);  // the mapping keeps the file
  if (base == MAP_FAILED) return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": could not map the memory: " + why);
  if (!aclsim::AddImportedRange(reinterpret_cast<uintptr_t>(base), size)) {
    munmap(base, bytes);
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, std::string(api) + ": the mapping overlaps device memory");
  }
  keys.imports.emplace(key, aclsim::Import{base, bytes, 1});
  *devPtr = base;
  return ACL_SUCCESS;
}

aclError aclrtIpcMemClose(const char* key) {
  constexpr const char* api = "aclrtIpcMemClose";
  if (!key) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": key is a null pointer");
  auto& keys = aclsim::SharedKeys();
  std::unique_lock<std::mutex> lock(keys.mutex);
  if (auto it = keys.imports.find(key); it != keys.imports.end()) {
    if (--it->second.count > 0) return ACL_SUCCESS;
    const aclsim::Import import = it->second;
    keys.imports.erase(it);
    lock.unlock();
    // Queued work that still uses the memory runs first, as aclrtFree waits for it; work that cannot
    // finish keeps the import open.
    const uintptr_t base = reinterpret_cast<uintptr_t>(import.base);
    if (aclError status = aclsim::WaitForUsers(base, base + import.bytes, api)) {
      lock.lock();
      keys.imports.emplace(key, aclsim::Import{import.base, import.bytes, 1});
      return status;
    }
    aclsim::RemoveImportedRange(base);
    munmap(import.base, import.bytes);
    return ACL_SUCCESS;
  }
  if (auto it = keys.exports.find(key); it != keys.exports.end()) {
    // Later imports are refused; processes that mapped the memory keep it, and the allocation stays
    // this process's until aclrtFree.
    aclsim::EndExport(it->second);
    keys.exports.erase(it);
    return ACL_SUCCESS;
  }
  return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a key this process exported or imported, or closed already");
}

}  // extern "C"
