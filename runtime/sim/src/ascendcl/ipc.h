// libascendcl's memory and events shared between processes (ipc.cpp), and what memory.cpp and
// events.cpp do for them.
//
// The simulated device's memory is the process's host memory, so what another process shares is a
// memory file: an exported allocation moves into one in place (memory.cpp), an IPC event keeps its
// counters in one, and a key or an event handle names the file as /proc/<pid>/fd/<fd> of the process
// that made it, which any process of the same user may open while that process holds it. The file
// carries a random serial the key repeats: a key whose file was closed, or whose descriptor number
// now names another file, is refused instead of mapping the wrong memory.
#ifndef ACLNN_SIM_ASCENDCL_IPC_H_
#define ACLNN_SIM_ASCENDCL_IPC_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "acl/acl_rt.h"

namespace aclsim {

// The name of the memory files of exported allocations (memfd_create's; /proc shows it).
inline constexpr const char* kSharedMemoryName = "aclsim-ipc-memory";
// The name of the memory files of physical allocations (aclrtMallocPhysical's, vmm.cpp), which a
// shareable handle exports.
inline constexpr const char* kPhysicalMemoryName = "aclsim-physical";

// --- exports of memory files (ipc.cpp): aclrtIpcMem*'s keys, and the shareable handles of physical
// memory (vmm.cpp's aclrtMem*ShareableHandle) ------------------------------------------------------
//
// An exported file holds the memory, then one page of the export's bookkeeping (ExportPage): the
// serial of the live export (0 once it ended), the bytes it exports, and whether it admits only the
// processes the exporter names and which. What names it elsewhere is a FileName: the exporting
// process, the file's descriptor in it, and the serial.

struct FileName {
  long pid = 0;
  int fd = -1;
  uint64_t serial = 0;
};

struct ExportPage;

// What an export says: serial 0 when the file is not exported.
struct ExportTerms {
  uint64_t serial = 0;
  size_t size = 0;
  bool validate_pids = false;
};

// Maps the bookkeeping page of the memory file `fd` whose memory is its first `memory_bytes` bytes
// into `page`; the file grows by the page the first time (the memory's mappings are unchanged). Fails
// naming `api`.
aclError MapExportPage(const char* api, int fd, size_t memory_bytes, ExportPage** page);
void UnmapExportPage(ExportPage* page);
ExportTerms Terms(const ExportPage& page);
// Starts the export `terms` describe (`terms.serial` nonzero), admitting no process by pid yet.
void StartExport(ExportPage* page, const ExportTerms& terms);
// Ends the export, then unmaps the page: later imports are refused; mappings made already stay.
void EndExport(ExportPage* page);
// Admits `count` more processes, naming `api` in the error when they do not fit or one is not a pid.
aclError AdmitProcesses(ExportPage* page, const int32_t* pids, size_t count, const char* api);
// Opens the export `name` names, `what` the importer calls it in its messages ("the key's memory"):
// a live export of a memory file named `file_name` that admits this process (`admitter`: the call
// that admits processes). Gives the file in `fd` (the caller's to close) and the bytes it exports
// in `size`, or fails naming `api`.
aclError OpenExport(const FileName& name, const char* file_name, const char* what, const char* admitter, const char* api,
                    int* fd, size_t* size);
// A serial no other process draws.
uint64_t NextSerial();

// A shareable handle (a uint64_t) is a FileName in 64 bits: the pid in 22 (Linux's PID_MAX_LIMIT is
// 2^22), the descriptor in 20 (its default nr_open is 2^20), 22 bits of serial. Names the file `fd`
// of this process with a new serial; false when the descriptor does not fit.
bool NameShareable(int fd, FileName* name, uint64_t* handle);
// The file a shareable handle names; false when `handle` is not one NameShareable can give.
bool ParseShareable(uint64_t handle, FileName* name);

// --- memory.cpp ----------------------------------------------------------------------------------

// Moves the aclrtMalloc allocation that starts at `p` (of at least `size` bytes) into a memory file
// in place, its contents kept, unless it is there already; `fd` is the file (the allocation's: closed
// when it is freed), `file_bytes` its size (the allocation's whole pages). Fails naming `api`.
aclError ShareDeviceAllocation(const char* api, void* p, size_t size, int* fd, size_t* file_bytes);
// Another process's memory mapped at [base, base + size) is device memory for copies and kernels
// (false when it overlaps device memory), until it is removed.
bool AddImportedRange(uintptr_t base, size_t size);
void RemoveImportedRange(uintptr_t base);

// --- events made with ACL_EVENT_IPC (ipc.cpp), used by events.cpp ----------------------------------

// An event's versions as every process that opened it sees them: a record in any of them takes the
// next version, a stream that reaches it publishes it, a wait in any of them waits for it.
struct SharedEventCounters;

class SharedEvent {
 public:
  // A new event's counters in a memory file of its own (aclrtCreateEventWithFlag with ACL_EVENT_IPC);
  // null with the error set, naming `api`, when the host refuses the file.
  static std::shared_ptr<SharedEvent> Create(const char* api);
  // The counters of the event `handle` names (aclrtIpcOpenEventHandle), or an error naming `api`.
  static aclError Open(const aclrtIpcEventHandle& handle, const char* api, std::shared_ptr<SharedEvent>* out);
  ~SharedEvent();
  SharedEvent(const SharedEvent&) = delete;
  SharedEvent& operator=(const SharedEvent&) = delete;

  // aclrtIpcGetEventHandle's handle: this process and the file's descriptor in it.
  aclrtIpcEventHandle Handle() const;
  uint64_t Record();          // the version a new record takes
  uint64_t Latest() const;    // the latest version recorded, in any process
  bool Reached(uint64_t version) const;
  // The stream reached `version`; `status` and `api`, `message`: the fault it ran behind (0: none).
  void Complete(uint64_t version, int32_t status, const char* api, const std::string& message);
  // Blocks until `version` is reached; returns the status of the fault it ran behind (0: none), with
  // the failing API and the message in `api` and `message`.
  int32_t Wait(uint64_t version, std::string* api, std::string* message) const;

 private:
  SharedEvent(int fd, SharedEventCounters* counters) : fd_(fd), counters_(counters) {}
  int fd_;  // the file, held by the process that created the event only (-1 in one that opened it)
  SharedEventCounters* counters_;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_IPC_H_
