// Making, querying, configuring and destroying communicators (hccl.h's first half).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

#include "hccl/communicator.h"

namespace aclsim::hccl {
namespace {

// What HcclGetRootInfo writes at the start of the opaque root info: which process made it and
// which of its roots it is. The rest of the HCCL_ROOT_INFO_BYTES is zero.
struct RootIdentity {
  char magic[24];
  uint64_t process;
  uint64_t serial;
};
constexpr char kRootMagic[sizeof(RootIdentity::magic)] = "aclnn-sim HCCL root";
static_assert(sizeof(RootIdentity) <= HCCL_ROOT_INFO_BYTES, "the identity fits the opaque root info");

std::atomic<uint64_t> g_next_root{1};
std::atomic<uint64_t> g_next_unnamed{1};  // names of communicators made without a root info

HcclResult FillRootInfo(const char* api, HcclRootInfo* rootInfo) {
  if (!rootInfo) return Fail(HCCL_E_PTR, api, "rootInfo is a null pointer");
  RootIdentity identity{};
  std::memcpy(identity.magic, kRootMagic, sizeof(kRootMagic));
  identity.process = static_cast<uint64_t>(getpid());
  identity.serial = g_next_root.fetch_add(1, std::memory_order_relaxed);
  std::memset(rootInfo->internal, 0, sizeof(rootInfo->internal));
  std::memcpy(rootInfo->internal, &identity, sizeof(identity));
  return HCCL_SUCCESS;
}

// The root a root info names, as the communicator's default name; HCCL_E_PARA for bytes that
// HcclGetRootInfo did not write (e.g. an uninitialised HcclRootInfo).
HcclResult ReadRootInfo(const char* api, const HcclRootInfo* rootInfo, std::string* name) {
  if (!rootInfo) return Fail(HCCL_E_PTR, api, "rootInfo is a null pointer");
  RootIdentity identity;
  std::memcpy(&identity, rootInfo->internal, sizeof(identity));
  if (std::memcmp(identity.magic, kRootMagic, sizeof(kRootMagic)) != 0) {
    return Fail(HCCL_E_PARA, api, "rootInfo was not filled by HcclGetRootInfo");
  }
  *name = "aclsim_hccl_" + std::to_string(identity.process) + "_" + std::to_string(identity.serial);
  return HCCL_SUCCESS;
}

std::string UnnamedCommunicator(const char* kind) {
  return "aclsim_hccl_" + std::to_string(getpid()) + "_" + kind + "_" +
         std::to_string(g_next_unnamed.fetch_add(1, std::memory_order_relaxed));
}

// The versioned prefix HcclCommConfigInit writes into HcclCommConfig.reserved (hccl.h).
struct ConfigPrefix {
  size_t size;
  uint32_t magicWord;
  uint32_t version;
  uint64_t reserved;
};
static_assert(sizeof(ConfigPrefix) == HCCL_COMM_CONFIG_INFO_BYTES, "the prefix fills `reserved`");

// Applies the fields of `config` this library reads to `communicator`. A caller compiled against
// an older header passes a shorter structure (its size is in the prefix): a field past that size
// keeps its default.
HcclResult ApplyConfig(const char* api, const HcclCommConfig* config, Communicator* communicator) {
  ConfigPrefix prefix;
  std::memcpy(&prefix, config->reserved, sizeof(prefix));
  if (prefix.magicWord != HCCL_COMM_CONFIG_MAGIC_WORD) {
    return Fail(HCCL_E_PARA, api, "config was not initialised by HcclCommConfigInit (no magic word)");
  }
  auto covers = [&](size_t offset, size_t size) { return offset + size <= prefix.size; };
  if (covers(offsetof(HcclCommConfig, hcclDeterministic), sizeof(config->hcclDeterministic))) {
    const uint32_t deterministic = config->hcclDeterministic;
    if (deterministic != 0 && deterministic != 1 && deterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET) {
      return Fail(HCCL_E_PARA, api, "config->hcclDeterministic is 0 or 1, not " + std::to_string(deterministic));
    }
    communicator->deterministic.store(deterministic, std::memory_order_relaxed);
  }
  if (covers(offsetof(HcclCommConfig, hcclCommName), sizeof(config->hcclCommName))) {
    const char* name = config->hcclCommName;
    const size_t length = strnlen(name, COMM_NAME_MAX_LENGTH);
    if (length == COMM_NAME_MAX_LENGTH) {
      return Fail(HCCL_E_PARA, api, "config->hcclCommName has no terminating NUL in its " +
                                        std::to_string(COMM_NAME_MAX_LENGTH) + " bytes");
    }
    if (length > 0) communicator->name.assign(name, length);
  }
  // The other fields (buffer size, expansion mode, RDMA traffic class, timeouts, algorithm,
  // retry) tune how ranks exchange data; one rank exchanges none, so they change nothing here.
  return HCCL_SUCCESS;
}

// The one place a communicator is made: every HcclCommInit* call checks its own arguments, then
// comes here. `device` < 0: the calling thread's current device.
HcclResult MakeCommunicator(const char* api, uint32_t nRanks, uint32_t rank, std::string name,
                            const HcclCommConfig* config, int32_t device, HcclComm* comm) {
  if (nRanks == 0) return Fail(HCCL_E_PARA, api, "nRanks is 0");
  if (rank >= nRanks) {
    return Fail(HCCL_E_PARA, api, "rank " + std::to_string(rank) + " is not below nRanks " + std::to_string(nRanks));
  }
  if (nRanks > Communicator::kRankSize) {
    return Fail(HCCL_E_NOT_SUPPORT, api, "nRanks is " + std::to_string(nRanks) +
                                             ": the simulator runs one rank per process, so only a communicator of "
                                             "1 rank (torch.distributed world size 1) can be made");
  }
  auto communicator = std::make_shared<Communicator>();
  communicator->name = std::move(name);
  if (config) {
    if (HcclResult status = ApplyConfig(api, config, communicator.get())) return status;
  }
  if (device < 0) {
    // A communicator belongs to the device that is current when it is made (as in CANN).
    if (aclrtGetDevice(&communicator->device) != ACL_SUCCESS) {
      return Fail(HCCL_E_RUNTIME, api, std::string("no current device: ") + aclGetRecentErrMsg());
    }
  } else {
    communicator->device = device;
  }
  *comm = Register(std::move(communicator));
  return HCCL_SUCCESS;
}

// How many ranks a rank table file lists: each device entry of its server_list carries one
// "rank_id" key (the rank table formats 1.0 and 1.2 of CANN's cluster documentation).
HcclResult CountRankTableRanks(const char* api, const char* path, uint32_t* ranks) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Fail(HCCL_E_OPEN_FILE_FAILURE, api, std::string("cannot read the rank table ") + path);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  uint32_t count = 0;
  for (size_t at = text.find("\"rank_id\""); at != std::string::npos; at = text.find("\"rank_id\"", at + 1)) ++count;
  if (count == 0) return Fail(HCCL_E_PARA, api, std::string("the rank table ") + path + " lists no \"rank_id\"");
  *ranks = count;
  return HCCL_SUCCESS;
}

HcclResult InitClusterInfo(const char* api, const char* clusterInfo, uint32_t rank, const HcclCommConfig* config,
                           HcclComm* comm) {
  if (!clusterInfo) return Fail(HCCL_E_PTR, api, "clusterInfo is a null pointer");
  if (!comm) return Fail(HCCL_E_PTR, api, "comm is a null pointer");
  uint32_t ranks = 0;
  if (HcclResult status = CountRankTableRanks(api, clusterInfo, &ranks)) return status;
  return MakeCommunicator(api, ranks, rank, UnnamedCommunicator("cluster"), config, -1, comm);
}

HcclResult InitRootInfo(const char* api, uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                        const HcclCommConfig* config, HcclComm* comm) {
  if (!comm) return Fail(HCCL_E_PTR, api, "comm is a null pointer");
  std::string name;
  if (HcclResult status = ReadRootInfo(api, rootInfo, &name)) return status;
  return MakeCommunicator(api, nRanks, rank, std::move(name), config, -1, comm);
}

}  // namespace
}  // namespace aclsim::hccl

using namespace aclsim::hccl;

extern "C" {

HCCL_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) { return FillRootInfo("HcclGetRootInfo", rootInfo); }

HCCL_EXPORT HcclResult HcclGetRootInfoScalable(HcclRootInfo* rootInfo) {
  return FillRootInfo("HcclGetRootInfoScalable", rootInfo);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                            HcclComm* comm) {
  return InitRootInfo("HcclCommInitRootInfo", nRanks, rootInfo, rank, nullptr, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                                  const HcclCommConfig* config, HcclComm* comm) {
  constexpr const char* api = "HcclCommInitRootInfoConfig";
  if (!config) return Fail(HCCL_E_PTR, api, "config is a null pointer");
  return InitRootInfo(api, nRanks, rootInfo, rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitRootInfoScalable(uint32_t nRanks, uint32_t nRoot, const HcclRootInfo* rootInfoList,
                                                    uint32_t rank, uint32_t nExtRoot, const HcclCommConfig* config,
                                                    HcclComm* comm) {
  constexpr const char* api = "HcclCommInitRootInfoScalable";
  if (!rootInfoList) return Fail(HCCL_E_PTR, api, "rootInfoList is a null pointer");
  if (!config) return Fail(HCCL_E_PTR, api, "config is a null pointer");
  if (nRoot == 0) return Fail(HCCL_E_PARA, api, "nRoot is 0: the list needs at least one root info");
  // hccl.h: "nExtRoot: Reserved for hierarchical roots. It must currently be 0."
  if (nExtRoot != 0) return Fail(HCCL_E_PARA, api, "nExtRoot is reserved and must be 0, not " + std::to_string(nExtRoot));
  // The first root names the communicator; the others must be root infos all the same.
  for (uint32_t i = 1; i < nRoot; ++i) {
    std::string other_root;
    if (HcclResult status = ReadRootInfo(api, &rootInfoList[i], &other_root)) return status;
  }
  return InitRootInfo(api, nRanks, &rootInfoList[0], rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm) {
  return InitClusterInfo("HcclCommInitClusterInfo", clusterInfo, rank, nullptr, comm);
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char* clusterInfo, uint32_t rank, HcclCommConfig* config,
                                                     HcclComm* comm) {
  constexpr const char* api = "HcclCommInitClusterInfoConfig";
  if (!config) return Fail(HCCL_E_PTR, api, "config is a null pointer");
  return InitClusterInfo(api, clusterInfo, rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) {
  constexpr const char* api = "HcclCommInitAll";
  if (!devices) return Fail(HCCL_E_PTR, api, "devices is a null pointer");
  if (!comms) return Fail(HCCL_E_PTR, api, "comms is a null pointer");
  if (ndev == 0) return Fail(HCCL_E_PARA, api, "ndev is 0");
  if (ndev > Communicator::kRankSize) {
    // MakeCommunicator says the same; refusing before the devices are read keeps the message plain.
    return MakeCommunicator(api, ndev, 0, "", nullptr, -1, comms);
  }
  uint32_t device_count = 0;
  if (aclrtGetDeviceCount(&device_count) != ACL_SUCCESS) {
    return Fail(HCCL_E_RUNTIME, api, std::string("cannot count devices: ") + aclGetRecentErrMsg());
  }
  if (devices[0] < 0 || static_cast<uint32_t>(devices[0]) >= device_count) {
    return Fail(HCCL_E_PARA, api, "devices[0] is " + std::to_string(devices[0]) + ", not a device id below " +
                                      std::to_string(device_count));
  }
  return MakeCommunicator(api, ndev, 0, UnnamedCommunicator("all"), nullptr, devices[0], comms);
}

HCCL_EXPORT HcclResult HcclCreateSubCommConfig(HcclComm* comm, uint32_t rankNum, uint32_t* rankIds, uint64_t subCommId,
                                               uint32_t subCommRankId, HcclCommConfig* config, HcclComm* subComm) {
  constexpr const char* api = "HcclCreateSubCommConfig";
  if (!comm) return Fail(HCCL_E_PTR, api, "comm is a null pointer");
  if (!rankIds) return Fail(HCCL_E_PTR, api, "rankIds is a null pointer");
  if (!config) return Fail(HCCL_E_PTR, api, "config is a null pointer");
  if (!subComm) return Fail(HCCL_E_PTR, api, "subComm is a null pointer");
  std::shared_ptr<Communicator> global;
  if (HcclResult status = Resolve(api, *comm, &global)) return status;
  if (rankNum == 0) return Fail(HCCL_E_PARA, api, "rankNum is 0");
  for (uint32_t i = 0; i < rankNum; ++i) {
    if (rankIds[i] >= Communicator::kRankSize) {
      return Fail(HCCL_E_PARA, api, "rankIds[" + std::to_string(i) + "] is " + std::to_string(rankIds[i]) +
                                        ", not a rank of the global communicator of " +
                                        std::to_string(Communicator::kRankSize));
    }
  }
  if (rankNum > Communicator::kRankSize) {
    return Fail(HCCL_E_PARA, api, "rankNum is " + std::to_string(rankNum) + ", more than the " +
                                      std::to_string(Communicator::kRankSize) +
                                      " rank of the global communicator (a rank is listed twice)");
  }
  if (subCommRankId >= rankNum || rankIds[subCommRankId] != Communicator::kRank) {
    return Fail(HCCL_E_PARA, api, "subCommRankId " + std::to_string(subCommRankId) +
                                      " does not name this process's rank in rankIds");
  }
  return MakeCommunicator(api, rankNum, subCommRankId, global->name + "_sub_" + std::to_string(subCommId), config,
                          global->device, subComm);
}

HCCL_EXPORT HcclResult HcclCommDestroy(HcclComm comm) {
  constexpr const char* api = "HcclCommDestroy";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  // The collectives already queued copy between the caller's buffers only: they need nothing of
  // the communicator, which can go at once.
  if (!Unregister(comm)) return Fail(HCCL_E_PARA, api, "the communicator was destroyed by another thread");
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  constexpr const char* api = "HcclGetRankSize";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!rankSize) return Fail(HCCL_E_PTR, api, "rankSize is a null pointer");
  *rankSize = Communicator::kRankSize;
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  constexpr const char* api = "HcclGetRankId";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!rank) return Fail(HCCL_E_PTR, api, "rank is a null pointer");
  *rank = Communicator::kRank;
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommName(HcclComm comm, char* commName) {
  constexpr const char* api = "HcclGetCommName";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!commName) return Fail(HCCL_E_PTR, api, "commName is a null pointer");
  // The caller's buffer holds COMM_NAME_MAX_LENGTH bytes; a name is kept shorter than that.
  const size_t length = std::min<size_t>(communicator->name.size(), COMM_NAME_MAX_LENGTH - 1);
  std::memcpy(commName, communicator->name.data(), length);
  commName[length] = '\0';
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  constexpr const char* api = "HcclGetCommAsyncError";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!asyncError) return Fail(HCCL_E_PTR, api, "asyncError is a null pointer");
  // Every collective's copy is checked by the runtime before it is queued, and one rank waits
  // for no peer: nothing can fail later, so there is never an asynchronous error to report.
  *asyncError = HCCL_SUCCESS;
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommSuspend(HcclComm comm) {
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve("HcclCommSuspend", comm, &communicator)) return status;
  communicator->suspended.store(true, std::memory_order_release);
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclCommResume(HcclComm comm) {
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve("HcclCommResume", comm, &communicator)) return status;
  communicator->suspended.store(false, std::memory_order_release);
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) {
  constexpr const char* api = "HcclSetConfig";
  if (HcclResult status = CheckConfigValue(api, config, configValue.value)) return status;
  ProcessConfig& settings = Settings();
  (config == HCCL_DETERMINISTIC ? settings.deterministic : settings.accelerator).store(configValue.value);
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue* configValue) {
  constexpr const char* api = "HcclGetConfig";
  if (!configValue) return Fail(HCCL_E_PTR, api, "configValue is a null pointer");
  if (HcclResult status = CheckConfigValue(api, config, 0)) return status;
  ProcessConfig& settings = Settings();
  configValue->value = (config == HCCL_DETERMINISTIC ? settings.deterministic : settings.accelerator).load();
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclSetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue configValue) {
  constexpr const char* api = "HcclSetCommConfig";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (HcclResult status = CheckConfigValue(api, config, configValue.value)) return status;
  if (config == HCCL_DETERMINISTIC) {
    communicator->deterministic.store(static_cast<uint32_t>(configValue.value));
  } else {
    communicator->accelerator.store(configValue.value);
  }
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue* configValue) {
  constexpr const char* api = "HcclGetCommConfig";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Resolve(api, comm, &communicator)) return status;
  if (!configValue) return Fail(HCCL_E_PTR, api, "configValue is a null pointer");
  if (HcclResult status = CheckConfigValue(api, config, 0)) return status;
  if (config == HCCL_DETERMINISTIC) {
    const uint32_t own = communicator->deterministic.load();
    configValue->value = own == HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET ? Settings().deterministic.load()
                                                                        : static_cast<int32_t>(own);
  } else {
    configValue->value = communicator->accelerator.load();
  }
  return HCCL_SUCCESS;
}

HCCL_EXPORT uint32_t HcclGetCommConfigCapability() {
  // Callers set a field of HcclCommConfig only when its HcclCommConfigCapability value is below
  // this number. Every field is accepted: the name and determinism are honoured, and the rest
  // tune data exchange between ranks, which one rank does not do (ApplyConfig).
  return HCCL_COMM_CONFIG_RESERVED;
}

HCCL_EXPORT const char* HcclGetErrorString(HcclResult code) {
  // The descriptions hccl_types.h gives each status.
  switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not support feature";
    case HCCL_E_NOT_FOUND: return "not found specific resource";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "call system interface error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "open file fail";
    case HCCL_E_TCP_CONNECT: return "tcp connect fail";
    case HCCL_E_ROCE_CONNECT: return "roce connect fail";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer fail";
    case HCCL_E_ROCE_TRANSFER: return "roce transfer fail";
    case HCCL_E_RUNTIME: return "call runtime api fail";
    case HCCL_E_DRV: return "call driver api fail";
    case HCCL_E_PROFILING: return "call profiling api fail";
    case HCCL_E_CCE: return "call cce api fail";
    case HCCL_E_NETWORK: return "call network api fail";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "error cqe";
    case HCCL_E_SUSPENDING: return "error communicator suspending";
    case HCCL_E_OPRETRY_FAIL: return "retry constraint";
    case HCCL_E_OOM: return "out of memory";
    case HCCL_E_RESERVED: break;
  }
  return "unknown HcclResult";
}

}  // extern "C"
