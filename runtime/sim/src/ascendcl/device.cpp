// libascendcl, what a framework asks of a device beyond running work on it: its capabilities,
// process-wide settings (overflow mode, system parameters, timeouts), peer access, the last error
// status, and the graph-capture state. Each answers what the simulated chip (ACLNN_SIM_SOC) is
// or what the simulator does; what it cannot answer truthfully is a refusal (aclsim::FailNotModelled)
// with a message naming the call, never a made-up success.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <set>
#include <string>

#include "acl/acl.h"
#include "aclnn_sim/soc.h"
#include "ascendcl/streams.h"
#include "common/internal.h"

namespace aclsim {
namespace {

struct DeviceSettings {
  std::mutex mutex;
  // The simulator's kernels compute IEEE infinities and NaNs: INF_NAN is the only mode it runs
  // (the Atlas A2/A3 default, which torch_npu selects).
  aclrtFloatOverflowMode overflow_mode = ACL_RT_OVERFLOW_MODE_INFNAN;
  int64_t sys_params[3] = {0, 0, 0};
  uint32_t op_wait_timeout = 0;
  uint64_t op_execute_timeout_us = 0;
  std::set<std::pair<int32_t, int32_t>> peer_access;  // (device, peer) pairs enabled
  // aclrtSetDeviceResLimit's limits by (device, type); a device without one uses the chip's count.
  std::map<std::pair<int32_t, int>, uint32_t> res_limits;
  // aclrtGetDeviceUtilizationRate's previous sample by device: (when, the device's busy time then).
  std::map<int32_t, std::pair<std::chrono::steady_clock::time_point, std::chrono::nanoseconds>> utilization_samples;
};

// When the process's devices began to count busy time (stream_worker.cpp's DeviceBusyTime): the
// start of a device's first utilisation interval.
const std::chrono::steady_clock::time_point g_busy_epoch = std::chrono::steady_clock::now();

DeviceSettings& Settings() {
  static DeviceSettings* settings = new DeviceSettings;  // never destroyed: called during exit
  return *settings;
}

// A figure of the simulated chip (gen.ir.Soc's, via aclnn_sim/soc.h).
enum class ChipFigure { kAiCores, kVectorCores, kL2Bytes };

// The simulated chip's figure into *value; a refusal (FailNotModelled) when it is unknown.
aclError Capability(const char* api, ChipFigure figure, int64_t* value) {
  Soc soc;
  if (!SimulatedSoc(&soc)) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + aclGetRecentErrMsg());
  const SocCapability& chip = kSocCapabilities[static_cast<int>(soc)];
  const int64_t known = figure == ChipFigure::kAiCores       ? chip.ai_cores
                        : figure == ChipFigure::kVectorCores ? chip.vector_cores
                                                             : chip.l2_bytes;
  if (known == 0) {
    const char* what = figure == ChipFigure::kAiCores ? "AI core" : figure == ChipFigure::kVectorCores ? "vector core" : "L2 size";
    return aclsim::FailNotModelled(api, std::string(api) + ": the simulator knows no " + what + " figure for " +
                                        SocName(soc) + " (set ACLNN_SIM_SOC to a chip it has figures for)");
  }
  *value = known;
  return ACL_SUCCESS;
}

// The chip's count of the cores a limit of `type` bounds, for `api`.
aclError CoreCount(aclrtDevResLimitType type, int64_t* count, const char* api) {
  if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclrtDevResLimitType " + std::to_string(static_cast<int>(type)));
  }
  return Capability(api, type == ACL_RT_DEV_RES_CUBE_CORE ? ChipFigure::kAiCores : ChipFigure::kVectorCores, count);
}

// FNV-1a of `text` from `seed`: 64 bits of a device's stable identity.
uint64_t Fnv1a(const std::string& text, uint64_t seed) {
  uint64_t hash = seed;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

}  // namespace

aclError CheckResLimit(aclrtDevResLimitType type, uint32_t value, const char* api) {
  int64_t count = 0;
  if (aclError status = CoreCount(type, &count, api)) return status;
  if (value == 0 || value > count) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": a limit of " + std::to_string(value) + " " +
                                             (type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector") + " cores is not in 1.." +
                                             std::to_string(count) + " (the simulated chip's count)");
  }
  return ACL_SUCCESS;
}

aclError DeviceResLimit(int32_t device, aclrtDevResLimitType type, uint32_t* value, const char* api) {
  int64_t count = 0;
  if (aclError status = CoreCount(type, &count, api)) return status;
  std::lock_guard<std::mutex> lock(Settings().mutex);
  auto it = Settings().res_limits.find({device, static_cast<int>(type)});
  *value = it == Settings().res_limits.end() ? static_cast<uint32_t>(count) : it->second;
  return ACL_SUCCESS;
}

}  // namespace aclsim

using aclsim::Fail;

extern "C" {

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  constexpr const char* api = "aclGetDeviceCapability";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  using aclsim::ChipFigure;
  switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: return aclsim::Capability(api, ChipFigure::kAiCores, value);
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: return aclsim::Capability(api, ChipFigure::kVectorCores, value);
    case ACL_DEVICE_INFO_L2_SIZE: return aclsim::Capability(api, ChipFigure::kL2Bytes, value);
    default:
      return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": unknown aclDeviceInfo " +
                                               std::to_string(static_cast<int>(deviceInfo)));
  }
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  constexpr const char* api = "aclrtGetDeviceInfo";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  using aclsim::ChipFigure;
  switch (attr) {
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM: return aclsim::Capability(api, ChipFigure::kAiCores, value);
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: return aclsim::Capability(api, ChipFigure::kVectorCores, value);
    case ACL_DEV_ATTR_L2_CACHE_SIZE: return aclsim::Capability(api, ChipFigure::kL2Bytes, value);
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: {
      size_t free = 0, total = 0;
      if (aclError error = aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)) return error;
      *value = static_cast<int64_t>(total);
      return ACL_SUCCESS;
    }
    case ACL_DEV_ATTR_PHY_CHIP_ID:
      *value = deviceId;  // one chip per simulated device
      return ACL_SUCCESS;
    case ACL_DEV_ATTR_SMP_ID:
      *value = 0;  // every simulated device is in this process's OS
      return ACL_SUCCESS;
    case ACL_DEV_ATTR_IS_VIRTUAL:
      *value = 0;  // no compute-power splitting
      return ACL_SUCCESS;
    default:
      return aclsim::FailNotModelled(api, std::string(api) + ": attribute " +
                                          std::to_string(static_cast<int>(attr)) +
                                          " is not modelled by the simulator");
  }
}

// Core limits are kept, read back and checked against the chip's counts, and change no result: the
// simulator's kernels are not split across cores, so a kernel computes the same values on any number.
aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t* value) {
  constexpr const char* api = "aclrtGetDeviceResLimit";
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": value is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  return aclsim::DeviceResLimit(deviceId, type, value, api);
}

aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value) {
  constexpr const char* api = "aclrtSetDeviceResLimit";
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  if (aclError status = aclsim::CheckResLimit(type, value, api)) return status;
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  aclsim::Settings().res_limits[{deviceId, static_cast<int>(type)}] = value;
  return ACL_SUCCESS;
}

aclError aclrtResetDeviceResLimit(int32_t deviceId) {
  constexpr const char* api = "aclrtResetDeviceResLimit";
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  for (int type : {ACL_RT_DEV_RES_CUBE_CORE, ACL_RT_DEV_RES_VECTOR_CORE}) aclsim::Settings().res_limits.erase({deviceId, type});
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  constexpr const char* api = "aclrtGetDeviceUtilizationRate";
  if (!utilizationInfo) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": utilizationInfo is a null pointer");
  if (utilizationInfo->utilizationExtend) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": utilizationInfo->utilizationExtend is reserved and must be null");
  }
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  // The share of wall time since the previous query (the first: since the process began) in which a
  // kernel, a copy or a fill of the device ran on any of its streams, in percent. The simulator's
  // kernels run on the host's cores, not on cube or vector units of their own: both figures are that
  // share. It runs no AI CPU tasks (0), and its memory figure is the share of its capacity in use.
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::nanoseconds busy = aclsim::DeviceBusyTime(deviceId);
  std::chrono::steady_clock::time_point since = aclsim::g_busy_epoch;
  std::chrono::nanoseconds busy_before{0};
  {
    std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
    auto& sample = aclsim::Settings().utilization_samples[deviceId];
    if (sample.first != std::chrono::steady_clock::time_point{}) std::tie(since, busy_before) = sample;
    sample = {now, busy};
  }
  const double wall = std::chrono::duration<double>(now - since).count();
  const double ran = std::chrono::duration<double>(busy - busy_before).count();
  const int32_t percent = wall > 0 ? static_cast<int32_t>(std::min(100.0, 100.0 * ran / wall) + 0.5) : 0;
  size_t free = 0, total = 0;
  if (aclError status = aclrtGetMemInfo(ACL_HBM_MEM, &free, &total)) return status;
  utilizationInfo->cubeUtilization = percent;
  utilizationInfo->vectorUtilization = percent;
  utilizationInfo->aicpuUtilization = 0;
  utilizationInfo->memoryUtilization = total ? static_cast<int32_t>((total - free) * 100 / total) : 0;
  return ACL_SUCCESS;
}

aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid* uuid) {
  constexpr const char* api = "aclrtDeviceGetUuid";
  if (!uuid) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": uuid is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  aclsim::Soc soc;
  if (!aclsim::SimulatedSoc(&soc)) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + aclGetRecentErrMsg());
  // The same for a device of the same simulated chip in every process and run (a framework keys
  // caches and topology by it), different between devices and chips.
  const std::string identity = std::string("aclnn-bindgen simulated NPU/") + aclsim::SocName(soc) + "/" + std::to_string(deviceId);
  const uint64_t halves[2] = {aclsim::Fnv1a(identity, 0xcbf29ce484222325ull), aclsim::Fnv1a(identity, 0x84222325cbf29ce4ull)};
  unsigned char bytes[16];
  std::memcpy(bytes, halves, sizeof(bytes));
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x80);  // RFC 9562 version 8: a custom identity
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // the RFC's variant
  std::memcpy(uuid->bytes, bytes, sizeof(bytes));
  return ACL_SUCCESS;
}

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  if (mode == ACL_RT_OVERFLOW_MODE_INFNAN) {
    std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
    aclsim::Settings().overflow_mode = mode;
    return ACL_SUCCESS;
  }
  if (mode == ACL_RT_OVERFLOW_MODE_SATURATION) {
    return aclsim::FailNotModelled("aclrtSetDeviceSatMode",
                                   "aclrtSetDeviceSatMode: the simulator's kernels compute IEEE infinities and NaNs "
                                   "(ACL_RT_OVERFLOW_MODE_INFNAN); saturation on overflow is not modelled");
  }
  return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetDeviceSatMode: unknown aclrtFloatOverflowMode " +
                                           std::to_string(static_cast<int>(mode)));
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode* mode) {
  if (!mode) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceSatMode: mode is a null pointer");
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  *mode = aclsim::Settings().overflow_mode;
  return ACL_SUCCESS;
}

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  if (opt < ACL_OPT_DETERMINISTIC || opt > ACL_OPT_STRONG_CONSISTENCY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetSysParamOpt: unknown aclSysParamOpt " + std::to_string(static_cast<int>(opt)));
  }
  // Kept and reported back: the simulator's kernels are deterministic and consistent either way.
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  aclsim::Settings().sys_params[opt] = value;
  return ACL_SUCCESS;
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value is a null pointer");
  if (opt < ACL_OPT_DETERMINISTIC || opt > ACL_OPT_STRONG_CONSISTENCY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: unknown aclSysParamOpt " + std::to_string(static_cast<int>(opt)));
  }
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  *value = aclsim::Settings().sys_params[opt];
  return ACL_SUCCESS;
}

// Timeouts bound how long a device waits for a task; the simulator's tasks run on the CPU to
// completion, so a timeout never fires. It is kept so that the value set is the value reported.
aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  aclsim::Settings().op_wait_timeout = timeout;
  return ACL_SUCCESS;
}

aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t* actualTimeout) {
  if (!actualTimeout) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetOpExecuteTimeOutV2: actualTimeout is a null pointer");
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  aclsim::Settings().op_execute_timeout_us = timeout;
  *actualTimeout = timeout;  // no hardware granularity to round to
  return ACL_SUCCESS;
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  constexpr const char* api = "aclrtDeviceCanAccessPeer";
  if (!canAccessPeer) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": canAccessPeer is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  if (aclError status = aclsim::CheckDeviceId(peerDeviceId, api)) return status;
  if (deviceId == peerDeviceId) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": deviceId and peerDeviceId are the same device");
  }
  *canAccessPeer = 1;  // every simulated device's memory is this process's memory
  return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  constexpr const char* api = "aclrtDeviceEnablePeerAccess";
  if (flags != 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": flags must be 0");
  int32_t device;
  if (!aclsim::CurrentDeviceId(&device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, std::string(api) + ": no device is set (call aclrtSetDevice first)");
  }
  if (aclError status = aclsim::CheckDeviceId(peerDeviceId, api)) return status;
  if (peerDeviceId == device) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": the peer is the current device");
  std::lock_guard<std::mutex> lock(aclsim::Settings().mutex);
  aclsim::Settings().peer_access.emplace(device, peerDeviceId);
  return ACL_SUCCESS;
}

aclError aclrtDeviceGetBareTgid(int32_t* pid) {
  if (!pid) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceGetBareTgid: pid is a null pointer");
  *pid = static_cast<int32_t>(getpid());  // the simulated devices run in this process
  return ACL_SUCCESS;
}

aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t* const logicDevId) {
  constexpr const char* api = "aclrtGetLogicDevIdByUserDevId";
  if (!logicDevId) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": logicDevId is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(userDevid, api)) return status;
  *logicDevId = userDevid;  // no ASCEND_RT_VISIBLE_DEVICES remapping: user and logical ids agree
  return ACL_SUCCESS;
}

aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t* flags, int32_t* active) {
  constexpr const char* api = "aclrtGetPrimaryCtxState";
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  if (flags) *flags = 0;
  if (active) {
    // A device's primary (default) context is active while the calling thread's device is it.
    int32_t device;
    *active = aclsim::CurrentDeviceId(&device) && device == deviceId ? 1 : 0;
  }
  return ACL_SUCCESS;
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetLastError: unknown aclrtLastErrLevel");
  return aclsim::LastErrorStatus(true);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtPeekAtLastError: unknown aclrtLastErrLevel");
  return aclsim::LastErrorStatus(false);
}

// The device's last error in detail, which torch_npu asks after a failed call to decide whether it can
// repair it. The simulated device has no hardware faults (memory, L2, links): a kernel that failed on it
// (ACL_ERROR_RT_AICORE_EXCEPTION, the calling thread's last error) is an AI Core software error, which
// no repair mends; otherwise there is none.
aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo* errorInfo) {
  constexpr const char* api = "aclrtGetErrorVerbose";
  if (!errorInfo) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": errorInfo is a null pointer");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  std::memset(errorInfo, 0, sizeof(*errorInfo));
  errorInfo->errorType = ACL_RT_NO_ERROR;
  if (aclsim::LastErrorStatus(false) == ACL_ERROR_RT_AICORE_EXCEPTION) {
    errorInfo->errorType = ACL_RT_ERROR_AICORE;
    errorInfo->hasDetail = 1;
    errorInfo->detail.aicoreErrType = ACL_RT_AICORE_ERROR_SW;
  }
  return ACL_SUCCESS;
}

aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo* memUceInfoArray, size_t arraySize, size_t* retSize) {
  constexpr const char* api = "aclrtGetMemUceInfo";
  if (!memUceInfoArray || !retSize) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": a pointer argument is null");
  if (aclError status = aclsim::CheckDeviceId(deviceId, api)) return status;
  (void)arraySize;
  *retSize = 0;  // simulated memory has no uncorrectable ECC errors
  return ACL_SUCCESS;
}

aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  if (!cannAttrList || !num) return Fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttributeList: a pointer argument is null");
  // INF_NAN: the kernels follow IEEE; BF16: every bfloat16 kernel of the pages computes; JIT_COMPILE:
  // aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable") is accepted, and operators run by type name go to
  // the aclop bridge (libacl_op_compiler), which refuses by name a type it does not model.
  static const aclCannAttr kSupported[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
  *cannAttrList = kSupported;
  *num = sizeof(kSupported) / sizeof(kSupported[0]);
  return ACL_SUCCESS;
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  if (!value) return Fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: value is a null pointer");
  switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN:
    case ACL_CANN_ATTR_BF16:
    case ACL_CANN_ATTR_JIT_COMPILE:
      *value = 1;
      return ACL_SUCCESS;
    default:
      return Fail(ACL_ERROR_INVALID_PARAM, "aclGetCannAttribute: unknown aclCannAttr " + std::to_string(static_cast<int>(cannAttr)));
  }
}

}  // extern "C"
