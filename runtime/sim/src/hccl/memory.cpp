// Memory a communicator knows about: registered windows and communication memory (HcommMemAlloc,
// modelled), and the virtual-memory, symmetric-window and NIC calls that the simulator does not
// model, which refuse with HCCL_E_NOT_SUPPORT and a message naming themselves.
#include <string>

#include "hccl/communicator.h"

namespace aclsim::hccl {
namespace {

HcclResult NotModelled(const char* api, const char* what) {
  return Fail(HCCL_E_NOT_SUPPORT, api, std::string("the simulator's HCCL does not model ") + what);
}

}  // namespace
}  // namespace aclsim::hccl

using namespace aclsim::hccl;

extern "C" {

HCCL_EXPORT HcclResult HcclCommRegister(HcclComm comm, void* addr, uint64_t size, void** handle, uint32_t flag) {
  constexpr const char* api = "HcclCommRegister";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!addr) return Fail(HCCL_E_PTR, api, "addr is a null pointer");
  if (!handle) return Fail(HCCL_E_PTR, api, "handle is a null pointer");
  if (size == 0) return Fail(HCCL_E_PARA, api, "size is 0");
  // hccl.h: "flag: Reserved parameters, default to 0".
  if (flag != 0) return Fail(HCCL_E_PARA, api, "flag is reserved and must be 0, not " + std::to_string(flag));
  std::lock_guard<std::mutex> lock(communicator->windows_mutex);
  // Window handles are small non-null numbers, unique within their communicator.
  const uintptr_t id = ++communicator->next_window_handle;
  communicator->windows.emplace(id, Window{addr, size});
  *handle = reinterpret_cast<void*>(id);
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommDeregister(HcclComm comm, void* handle) {
  constexpr const char* api = "HcclCommDeregister";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!handle) return Fail(HCCL_E_PTR, api, "handle is a null pointer");
  std::lock_guard<std::mutex> lock(communicator->windows_mutex);
  if (communicator->windows.erase(reinterpret_cast<uintptr_t>(handle)) == 0) {
    return Fail(HCCL_E_NOT_FOUND, api, "handle was not registered with this communicator by HcclCommRegister");
  }
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommExchangeMem(HcclComm comm, void* windowHandle, uint32_t* peerRanks,
                                           uint32_t peerRankNum) {
  constexpr const char* api = "HcclCommExchangeMem";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!windowHandle) return Fail(HCCL_E_PTR, api, "windowHandle is a null pointer");
  {
    std::lock_guard<std::mutex> lock(communicator->windows_mutex);
    if (communicator->windows.count(reinterpret_cast<uintptr_t>(windowHandle)) == 0) {
      return Fail(HCCL_E_NOT_FOUND, api, "windowHandle was not registered with this communicator by HcclCommRegister");
    }
  }
  if (peerRankNum == 0) return HCCL_SUCCESS;  // no peer to exchange with
  if (!peerRanks) return Fail(HCCL_E_PTR, api, "peerRanks is a null pointer");
  // A communicator of one rank has no peer: every rank named is this one or none at all.
  return Fail(HCCL_E_PARA, api, "peerRanks[0] is " + std::to_string(peerRanks[0]) +
                                    ", not a peer: the communicator has 1 rank (the simulator runs one rank per "
                                    "process), so it has no peers to exchange memory with");
}

HCCL_EXPORT HcclResult HcclCommSetMemoryRange(HcclComm, void*, size_t, size_t, uint64_t) {
  return NotModelled("HcclCommSetMemoryRange", "a communicator's virtual memory ranges");
}

HCCL_EXPORT HcclResult HcclCommUnsetMemoryRange(HcclComm, void*) {
  return NotModelled("HcclCommUnsetMemoryRange", "a communicator's virtual memory ranges");
}

HCCL_EXPORT HcclResult HcclCommActivateCommMemory(HcclComm, void*, size_t, size_t, aclrtDrvMemHandle, uint64_t) {
  return NotModelled("HcclCommActivateCommMemory", "a communicator's physical memory mapped into its ranges");
}

HCCL_EXPORT HcclResult HcclCommDeactivateCommMemory(HcclComm, void*) {
  return NotModelled("HcclCommDeactivateCommMemory", "a communicator's physical memory mapped into its ranges");
}

HCCL_EXPORT HcclResult HcclCommWorkingDevNicSet(HcclComm, uint32_t*, bool*, uint32_t) {
  return NotModelled("HcclCommWorkingDevNicSet", "network interfaces (a rank's primary or backup NIC)");
}

// torch_npu 2.13 looks these two up by name for its symmetric memory, but CANN's public hccl.h
// does not declare them. Their parameters are unknown here and never read: on the C calling
// conventions of x86-64 and AArch64 the caller owns its arguments, so a definition that takes
// none returns safely to any caller.
HCCL_EXPORT HcclResult HcclCommSymWinRegister() {
  return NotModelled("HcclCommSymWinRegister", "symmetric memory windows");
}

HCCL_EXPORT HcclResult HcclCommSymWinDeregister() {
  return NotModelled("HcclCommSymWinDeregister", "symmetric memory windows");
}

// Communication memory: device memory that HCCL can move to and from any rank. torch_npu 2.13 looks
// both up by name in libhcomm.so (HcclCompile.h: HcclResult (*)(void**, uint64_t) and (void*)); the
// simulator's libhcomm.so finds them here, its dependency. On one rank every device allocation is
// reachable by the only rank, so the runtime's device memory is communication memory.
HCCL_EXPORT HcclResult HcommMemAlloc(void** ptr, uint64_t size) {
  constexpr const char* api = "HcommMemAlloc";
  if (!ptr) return Fail(HCCL_E_PTR, api, "ptr is a null pointer");
  if (size == 0) return Fail(HCCL_E_PARA, api, "size is 0");
  if (aclrtMalloc(ptr, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return Fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
  }
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcommMemFree(void* ptr) {
  constexpr const char* api = "HcommMemFree";
  if (!ptr) return Fail(HCCL_E_PTR, api, "ptr is a null pointer");
  if (aclrtFree(ptr) != ACL_SUCCESS) return Fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
  return HCCL_SUCCESS;
}

}  // extern "C"
