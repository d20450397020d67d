// The simulator's HCCL (libhccl.so): one rank per process. A communicator of one rank is real:
// its collectives are what they are on one rank (a copy, or nothing), queued on the caller's
// stream with the runtime's public aclrtMemcpyAsync, so they run in order with the stream's other
// work. A communicator of more ranks cannot be made: the HcclCommInit* calls refuse it with
// HCCL_E_NOT_SUPPORT and a message saying so, never success.
//
// What its sources share: the communicators behind the opaque HcclComm handles, the checks
// every entry point makes, and the failing call's message (aclGetRecentErrMsg, libascendcl's).
#ifndef ACLNN_SIM_HCCL_COMMUNICATOR_H_
#define ACLNN_SIM_HCCL_COMMUNICATOR_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/internal.h"
#include "hccl/hccl.h"

// The HCCL functions: exported (the library hides every other symbol).
#define HCCL_EXPORT ACLSIM_EXPORT

namespace aclsim::hccl {

// Sets the thread's recent-error message "<api>: <why>" and returns `status`.
HcclResult Fail(HcclResult status, const char* api, const std::string& why);

// Bytes per element of an HcclDataType; 0 for a value the enum does not define.
size_t ElementSize(HcclDataType type);
// HCCL_SUCCESS, or HCCL_E_PARA naming the value when `type` is not an HcclDataType.
HcclResult CheckDataType(const char* api, const char* role, HcclDataType type);
// `count` elements of `type` in bytes; HCCL_E_PARA when that overflows.
HcclResult ByteCount(const char* api, const char* role, uint64_t count, HcclDataType type, uint64_t* bytes);

// A window of memory registered with HcclCommRegister.
struct Window {
  void* address = nullptr;
  uint64_t size = 0;
};

// A communicator of this process: always one rank (rank 0 of 1), bound to the device that was
// current (HcclCommInitAll: named) when it was made.
struct Communicator {
  static constexpr uint32_t kRankSize = 1;
  static constexpr uint32_t kRank = 0;

  int32_t device = 0;
  std::string name;  // HcclGetCommName: at most COMM_NAME_MAX_LENGTH - 1 characters
  // HcclCommConfig.hcclDeterministic / HcclSetCommConfig(HCCL_DETERMINISTIC): 0 or 1, or
  // HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET (the process-wide HcclSetConfig value applies).
  std::atomic<uint32_t> deterministic{HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET};
  std::atomic<int32_t> accelerator{0};  // HcclSetCommConfig(HCCL_ACCELERATOR); 0: the default
  std::atomic<bool> suspended{false};   // HcclCommSuspend .. HcclCommResume

  std::mutex windows_mutex;
  std::map<uintptr_t, Window> windows;  // by the handle HcclCommRegister gave
  uintptr_t next_window_handle = 0;
};

// Registers a new communicator and returns its handle (never reused, so that a destroyed
// communicator's handle stays dead).
HcclComm Register(std::shared_ptr<Communicator> communicator);
// Removes the communicator behind `comm`; false when there is none.
bool Unregister(HcclComm comm);

// The live communicator behind `comm` (HCCL_E_PTR for null, HCCL_E_PARA for a handle that is
// not, or no longer, a communicator).
HcclResult Resolve(const char* api, HcclComm comm, std::shared_ptr<Communicator>* out);
// Resolve, and a communicator that can take work: not suspended (HCCL_E_SUSPENDING).
HcclResult ResolveForWork(const char* api, HcclComm comm, std::shared_ptr<Communicator>* out);

// The process-wide HcclSetConfig values (HcclGetConfig reads them back).
struct ProcessConfig {
  std::atomic<int32_t> deterministic{0};
  std::atomic<int32_t> accelerator{0};
};
ProcessConfig& Settings();
// HCCL_E_PARA unless `value` is one the HcclConfig item documents (hccl_types.h).
HcclResult CheckConfigValue(const char* api, HcclConfig config, int32_t value);

}  // namespace aclsim::hccl

#endif  // ACLNN_SIM_HCCL_COMMUNICATOR_H_
