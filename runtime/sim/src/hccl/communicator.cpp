#include "hccl/communicator.h"

#include <cstdio>
#include <limits>
#include <unordered_map>

namespace aclsim::hccl {

HcclResult Fail(HcclResult status, const char* api, const std::string& why) {
  SetError(std::string(api) + ": " + why);
  return status;
}

namespace {

// Bytes per element, indexed by HcclDataType value (hccl_types.h); 13 is unassigned.
constexpr size_t kElementSizes[] = {
    1,   // INT8
    2,   // INT16
    4,   // INT32
    2,   // FP16
    4,   // FP32
    8,   // INT64
    8,   // UINT64
    1,   // UINT8
    2,   // UINT16
    4,   // UINT32
    8,   // FP64
    2,   // BFP16
    16,  // INT128
    0,   // (13: no type)
    1,   // HIF8
    1,   // FP8E4M3
    1,   // FP8E5M2
    1,   // FP8E8M0
};
static_assert(sizeof(kElementSizes) / sizeof(kElementSizes[0]) == HCCL_DATA_TYPE_FP8E8M0 + 1,
              "one size per HcclDataType value up to the last one");
static_assert(kElementSizes[HCCL_DATA_TYPE_FP32] == 4 && kElementSizes[HCCL_DATA_TYPE_BFP16] == 2 &&
                  kElementSizes[HCCL_DATA_TYPE_INT128] == 16 && kElementSizes[HCCL_DATA_TYPE_HIF8] == 1 &&
                  kElementSizes[HCCL_DATA_TYPE_FP64] == 8 && kElementSizes[HCCL_DATA_TYPE_UINT64] == 8,
              "the table follows the enum's values");

// Handles are counted from a base that no heap pointer of a small test is likely to equal, so
// that passing some other pointer as a communicator is caught rather than mistaken for one.
constexpr uintptr_t kHandleBase = uintptr_t{0xacc1} << 32;

struct Registry {
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::shared_ptr<Communicator>> communicators;
  uintptr_t next = kHandleBase;
};

Registry& Communicators() {
  // Never destroyed: a framework may destroy its communicators from its own static destructors,
  // which can run after this library's.
  static Registry* registry = new Registry;
  return *registry;
}

std::string HandleText(HcclComm comm) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", comm);
  return text;
}

}  // namespace

size_t ElementSize(HcclDataType type) {
  const auto index = static_cast<uint32_t>(type);
  return index < sizeof(kElementSizes) / sizeof(kElementSizes[0]) ? kElementSizes[index] : 0;
}

HcclResult CheckDataType(const char* api, const char* role, HcclDataType type) {
  if (ElementSize(type) != 0) return HCCL_SUCCESS;
  return Fail(HCCL_E_PARA, api, std::string(role) + " " + std::to_string(static_cast<int>(type)) +
                                    " is not an HcclDataType");
}

HcclResult ByteCount(const char* api, const char* role, uint64_t count, HcclDataType type, uint64_t* bytes) {
  const uint64_t size = ElementSize(type);
  if (count > std::numeric_limits<uint64_t>::max() / size) {
    return Fail(HCCL_E_PARA, api, std::string(role) + " " + std::to_string(count) + " elements of " +
                                      std::to_string(size) + " bytes overflow the address space");
  }
  *bytes = count * size;
  return HCCL_SUCCESS;
}

HcclComm Register(std::shared_ptr<Communicator> communicator) {
  Registry& r = Communicators();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uintptr_t handle = r.next;
  r.next += 16;
  r.communicators.emplace(handle, std::move(communicator));
  return reinterpret_cast<HcclComm>(handle);
}

bool Unregister(HcclComm comm) {
  Registry& r = Communicators();
  std::shared_ptr<Communicator> gone;  // released after the lock: its windows go with it
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.communicators.find(reinterpret_cast<uintptr_t>(comm));
  if (it == r.communicators.end()) return false;
  gone = std::move(it->second);
  r.communicators.erase(it);
  return true;
}

HcclResult Resolve(const char* api, HcclComm comm, std::shared_ptr<Communicator>* out) {
  if (!comm) return Fail(HCCL_E_PTR, api, "comm is a null pointer");
  Registry& r = Communicators();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.communicators.find(reinterpret_cast<uintptr_t>(comm));
  if (it == r.communicators.end()) {
    return Fail(HCCL_E_PARA, api, "comm " + HandleText(comm) +
                                      " is not a live communicator (destroyed, or not made by an HcclCommInit* call)");
  }
  *out = it->second;
  return HCCL_SUCCESS;
}

HcclResult ResolveForWork(const char* api, HcclComm comm, std::shared_ptr<Communicator>* out) {
  if (HcclResult status = Resolve(api, comm, out)) return status;
  if ((*out)->suspended.load(std::memory_order_acquire)) {
    return Fail(HCCL_E_SUSPENDING, api, "the communicator is suspended (HcclCommSuspend); HcclCommResume resumes it");
  }
  return HCCL_SUCCESS;
}

ProcessConfig& Settings() {
  static ProcessConfig settings;
  return settings;
}

HcclResult CheckConfigValue(const char* api, HcclConfig config, int32_t value) {
  switch (config) {
    case HCCL_DETERMINISTIC:  // hccl_types.h: 0 non-deterministic, 1 deterministic
      if (value == 0 || value == 1) return HCCL_SUCCESS;
      return Fail(HCCL_E_PARA, api, "HCCL_DETERMINISTIC is 0 or 1, not " + std::to_string(value));
#ifndef OPEN_BUILD_PROJECT
    case HCCL_ACCELERATOR:  // hccl_types.h: 0 default, 1 CCU, 2 AIV, 3 AICPU_TS, 4 HOSTCPU_TS, 5 AICPU
      if (value >= 0 && value <= 5) return HCCL_SUCCESS;
      return Fail(HCCL_E_PARA, api, "HCCL_ACCELERATOR is one of 0..5, not " + std::to_string(value));
#endif
    default:
      return Fail(HCCL_E_PARA, api, std::to_string(static_cast<int>(config)) + " is not an HcclConfig item");
  }
}

}  // namespace aclsim::hccl

// For the simulator's mc2 operators (libopapi: matmul with a collective), which name their
// communicator by the group string HcclGetCommName gave: the ranks of the live communicator of that
// name, 0 when there is none. Every communicator of this library has one rank.
extern "C" HCCL_EXPORT uint32_t aclsimHcclGroupRankSize(const char* group) {
  using namespace aclsim::hccl;
  if (!group) return 0;
  Registry& r = Communicators();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& entry : r.communicators) {
    if (entry.second->name == group) return Communicator::kRankSize;
  }
  return 0;
}
