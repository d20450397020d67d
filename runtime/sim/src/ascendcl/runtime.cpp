// libascendcl, the runtime half: aclInit/aclFinalize, the simulated chip, devices, contexts,
// the thread-local error message and the dtype helpers of acl_base.h. Streams and events, which
// run asynchronously, are streams.h's (streams.cpp and the files beside it).
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "acl/acl.h"
#include "aclnn_sim.h"
#include "ascendcl/streams.h"
#include "ascendcl/settings.h"
#include "common/dtypes.h"
#include "common/handles.h"
#include "common/internal.h"

namespace aclsim {
namespace {

thread_local std::string t_last_error;
thread_local int32_t t_last_status = 0;

// Devices a process sees unless ACLNN_SIM_DEVICE_COUNT says otherwise (an 8-card server).
constexpr int kDefaultDeviceCount = 8;
constexpr int kMaxDeviceCount = 64;

struct Context {
  int32_t device;
  bool implicit;  // a device's default context (aclrtSetDevice), not one aclrtCreateContext made
};

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  bool soc_resolved = false;   // aclInit or aclsimSetSoc fixed the chip
  bool soc_overridden = false; // aclsimSetSoc: survives aclFinalize/aclInit
  Soc soc = kDefaultSoc;
  std::string soc_name = kSocModels[static_cast<int>(kDefaultSoc)];
  int32_t device_count = kDefaultDeviceCount;
  std::map<int32_t, int> device_refs;               // aclrtSetDevice minus aclrtResetDevice
  std::map<int32_t, uintptr_t> default_contexts;    // per active device
  int32_t last_device = -1;                          // the process-wide fallback device
  int32_t default_device = -1;                       // aclInit's config: defaultDevice.default_device
  int64_t sys_params[3] = {0, 0, 0};  // by aclSysParamOpt
  uint32_t op_timeout = 0;
  Registry<Context> contexts{0x5c};
};

Runtime& State() {
  static Runtime* runtime = new Runtime;  // never destroyed: other libraries may call in at exit
  return *runtime;
}

thread_local uintptr_t t_context = 0;  // the thread's current context (0: none)

// The chip of rt.soc while rt.soc_resolved holds, else -1: what SimulatedSoc reads without a lock.
std::atomic<int> g_resolved_soc{-1};

void PublishSoc(const Runtime& rt) { g_resolved_soc.store(rt.soc_resolved ? static_cast<int>(rt.soc) : -1); }

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// CANN's SoC names carry a model suffix (Ascend910B4, Ascend910_9391, Ascend310P3): the longest
// known name that prefixes `name` wins, so Ascend910_9391 is Ascend910_93, not Ascend910.
bool ParseSoc(const std::string& name, Soc* soc) {
  const std::string lower = Lower(name);
  size_t best = 0;
  for (int i = 0; i < kSocCount; ++i) {
    const std::string candidate = Lower(kSocNames[i]);
    if (lower.compare(0, candidate.size(), candidate) == 0 && candidate.size() > best) {
      best = candidate.size();
      *soc = static_cast<Soc>(i);
    }
  }
  return best > 0;
}

std::string KnownSocs() {
  std::string list;
  for (int i = 0; i < kSocCount; ++i) list += (i ? ", " : "") + std::string(kSocNames[i]);
  return list;
}

// The name aclrtGetSocName reports for `soc` set as `setting`: a model name as given (Ascend910B4),
// a family name as the family's model (Ascend910B: Ascend910B2), as a real device reports its model.
std::string ReportedSocName(Soc soc, const std::string& setting) {
  const bool family_only = setting.empty() || Lower(setting) == Lower(SocName(soc));
  const char* model = kSocModels[static_cast<int>(soc)];
  return family_only && *model ? model : (setting.empty() ? SocName(soc) : setting);
}

// Reads ACLNN_SIM_SOC; false (message set) for an unknown name.
bool SocFromEnvironment(Soc* soc, std::string* name) {
  const char* value = std::getenv("ACLNN_SIM_SOC");
  if (!value || !*value) {
    *soc = kDefaultSoc;
    *name = ReportedSocName(*soc, "");
    return true;
  }
  if (!ParseSoc(value, soc)) {
    SetError(std::string("ACLNN_SIM_SOC=") + value + " names no chip the simulator knows; use one of " +
             KnownSocs() + " (optionally with CANN's model suffix, e.g. Ascend910B4)");
    return false;
  }
  *name = ReportedSocName(*soc, value);
  return true;
}

bool DeviceCountFromEnvironment(int32_t* count) {
  const char* value = std::getenv("ACLNN_SIM_DEVICE_COUNT");
  if (!value || !*value) {
    *count = kDefaultDeviceCount;
    return true;
  }
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  if (*end != '\0' || parsed < 1 || parsed > kMaxDeviceCount) {
    SetError(std::string("ACLNN_SIM_DEVICE_COUNT=") + value + " is not a device count in [1, " +
             std::to_string(kMaxDeviceCount) + "]");
    return false;
  }
  *count = static_cast<int32_t>(parsed);
  return true;
}

// aclInit's configuration file (acl.json), read as CANN reads it: a JSON object whose sections
// configure dumps, profiling, error messages and the default device. The simulator acts on
// defaultDevice ({"default_device": "0"}, a string or a number) and accepts the other sections,
// which configure what it does not collect; a file that is not a JSON object is refused.
aclError ReadConfig(const char* path, int32_t* default_device) {
  const std::string where = std::string("aclInit: ") + path;
  std::ifstream file(path, std::ios::binary);
  if (!file) return Fail(ACL_ERROR_INVALID_FILE, "aclInit: cannot read the config file " + std::string(path));
  const nlohmann::json config = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    return Fail(ACL_ERROR_PARSE_FILE, where + " is not a JSON object");
  }
  const auto section = config.find("defaultDevice");
  if (section == config.end()) return ACL_SUCCESS;
  const auto value = section->is_object() ? section->find("default_device") : section->end();
  if (!section->is_object() || value == section->end()) {
    return Fail(ACL_ERROR_FILE_ATTR_INVALID, where + ": defaultDevice is not an object holding default_device");
  }
  long long device = -1;
  if (value->is_number_integer()) {
    device = value->get<long long>();
  } else if (value->is_string()) {
    const std::string digits = value->get<std::string>();
    char* end = nullptr;
    device = digits.empty() ? -1 : std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0') device = -1;
  }
  if (device < 0 || device >= kMaxDeviceCount) {
    return Fail(ACL_ERROR_FILE_ATTR_INVALID, where + ": defaultDevice.default_device " + value->dump() +
                                                 " is not a device number");
  }
  *default_device = static_cast<int32_t>(device);
  return ACL_SUCCESS;
}

bool ValidDevice(const Runtime& rt, int32_t device) { return device >= 0 && device < rt.device_count; }

aclError InvalidDevice(const Runtime& rt, const char* api, int64_t device) {
  return Fail(ACL_ERROR_RT_INVALID_DEVICEID, std::string(api) + ": device " + std::to_string(device) +
                                                 " does not exist (the simulator has " +
                                                 std::to_string(rt.device_count) + " devices: 0.." +
                                                 std::to_string(rt.device_count - 1) + ")");
}

// Opens `device` for one more user (aclrtSetDevice, aclrtCreateContext): its default context is made
// with its first; returns that context.
uintptr_t OpenDevice(Runtime& rt, int32_t device) {
  if (rt.device_refs[device]++ == 0) {
    rt.default_contexts[device] = rt.contexts.Add(std::make_shared<Context>(Context{device, true}));
  }
  return rt.default_contexts[device];
}

// The device the calling thread works on: its current context's, or else the process's most
// recently set device (the simulator does not insist on aclrtSetDevice in every thread).
bool CurrentDevice(Runtime& rt, int32_t* device) {
  if (t_context) {
    auto context = rt.contexts.Find(reinterpret_cast<void*>(t_context));
    if (context) {
      *device = context->device;
      return true;
    }
    t_context = 0;  // destroyed meanwhile (aclrtResetDevice on another thread)
  }
  if (rt.default_device >= 0) {
    // CANN's defaultDevice: a thread that set no device works on the configured one, opened for it
    // as aclrtSetDevice would (torch_npu's lazy set_device mode asks for device 0 this way and
    // queries memory and properties before it sets any device).
    const int32_t chosen = rt.default_device;
    t_context = rt.device_refs.count(chosen) ? rt.default_contexts[chosen] : OpenDevice(rt, chosen);
    *device = chosen;
    return true;
  }
  if (rt.last_device >= 0 && rt.device_refs.count(rt.last_device)) {
    *device = rt.last_device;
    return true;
  }
  return false;
}

// The device's contexts go; its streams are released by the caller, after unlocking `rt.mutex`
// (draining them waits for their workers).
void ReleaseDevice(Runtime& rt, int32_t device) {
  std::vector<uintptr_t> doomed;
  rt.contexts.ForEach([&](uintptr_t handle, const Context& c) {
    if (c.device == device) doomed.push_back(handle);
  });
  for (uintptr_t handle : doomed) rt.contexts.Take(reinterpret_cast<void*>(handle));
  rt.device_refs.erase(device);
  rt.default_contexts.erase(device);
  if (rt.last_device == device) rt.last_device = rt.device_refs.empty() ? -1 : rt.device_refs.rbegin()->first;
}

}  // namespace

void SetErrorStatus(int32_t status) { t_last_status = status; }

int32_t LastErrorStatus(bool clear) {
  const int32_t status = t_last_status;
  if (clear) t_last_status = 0;
  return status;
}

void SetError(const std::string& message) {
  t_last_error = message;
  if (Settings().log) std::fprintf(stderr, "[aclnn-sim] %s\n", message.c_str());
}

namespace {

struct HeldRefusals {
  std::mutex mutex;
  int32_t status = 0;  // 0: none held
  std::string message;
  size_t more = 0;  // refusals held after the first, before it was taken: they may only follow from it
  std::atomic<bool> any{false};  // every aclnn phase 1 asks, without the lock
};

HeldRefusals& Held() {
  static HeldRefusals* held = new HeldRefusals;  // never destroyed: threads may call during exit
  return *held;
}

thread_local bool t_runs_other_threads_operators = false;

}  // namespace

void RunsOtherThreadsOperators() { t_runs_other_threads_operators = true; }

void HoldRefusal(int32_t status, const std::string& message) {
  HeldRefusals& held = Held();
  std::lock_guard<std::mutex> lock(held.mutex);
  if (held.status != 0) {
    ++held.more;
    return;
  }
  held.status = status;
  held.message = message;
  held.any.store(true, std::memory_order_release);
}

int32_t TakeHeldRefusal(const char* api) {
  HeldRefusals& held = Held();
  if (!held.any.load(std::memory_order_acquire) || t_runs_other_threads_operators) return 0;
  int32_t status;
  std::string message = std::string(api) +
                        ": an operator asked for earlier was refused on the thread that ran it (torch_npu's task queue "
                        "runs operators on a thread of its own), its outputs not written: ";
  {
    std::lock_guard<std::mutex> lock(held.mutex);
    if (held.status == 0) return 0;
    status = held.status;
    message += held.message;
    if (held.more) message += " (and " + std::to_string(held.more) + " later operators were refused there after it)";
    held.status = 0;
    held.message.clear();
    held.more = 0;
    held.any.store(false, std::memory_order_release);
  }
  return Fail(status, message);
}

bool& AclopKernelOnEveryChip() {
  static thread_local bool every_chip = false;
  return every_chip;
}

bool SimulatedSoc(Soc* soc) {
  // Every phase 1 asks: read the resolved chip without the runtime's lock.
  const int resolved = g_resolved_soc.load(std::memory_order_acquire);
  if (resolved >= 0) {
    *soc = static_cast<Soc>(resolved);
    return true;
  }
  Runtime& rt = State();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (rt.soc_resolved) {
      *soc = rt.soc;
      return true;
    }
  }
  std::string name;
  return SocFromEnvironment(soc, &name);
}

uint64_t LiveUserContexts() {
  uint64_t count = 0;
  State().contexts.ForEach([&](uintptr_t, const Context& c) { count += c.implicit ? 0 : 1; });
  return count;
}

aclError CheckDeviceId(int64_t device, const char* api) {
  uint32_t count = 0;
  if (aclError status = aclrtGetDeviceCount(&count)) return status;  // resolves ACLNN_SIM_DEVICE_COUNT
  if (device >= 0 && device < static_cast<int64_t>(count)) return ACL_SUCCESS;
  Runtime& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return InvalidDevice(rt, api, device);
}

bool CurrentDeviceId(int32_t* device) {
  Runtime& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return CurrentDevice(rt, device);
}

}  // namespace aclsim

using aclsim::Fail;
using aclsim::State;

extern "C" {

// A copy of the thread's last message, valid until the thread's next call of this function: a
// caller keeps the pointer while it makes more calls (torch_npu formats its error after querying
// the device, whose refusal sets a new message), and t_last_error's own buffer moves when a later
// message is assigned to it.
const char* aclGetRecentErrMsg(void) {
  thread_local std::string reported;
  reported = aclsim::t_last_error;
  return reported.c_str();
}

aclFloat16 aclFloatToFloat16(float value) { return aclsim::FloatToHalf(value); }

float aclFloat16ToFloat(aclFloat16 value) { return aclsim::HalfToFloat(value); }

size_t aclDataTypeSize(aclDataType dataType) {
  const aclsim::DTypeInfo* info = aclsim::FindDType(dataType);
  if (!info) {
    aclsim::SetError("aclDataTypeSize: " + std::to_string(static_cast<int>(dataType)) + " is not an aclDataType");
    return 0;
  }
  return info->size;
}

aclError aclInit(const char* configPath) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.initialized) return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: acl is already initialized");
  int32_t default_device = -1;
  if (configPath && *configPath) {
    if (aclError status = aclsim::ReadConfig(configPath, &default_device)) return status;
  }
  if (!rt.soc_overridden) {
    aclsim::Soc soc;
    std::string name;
    if (!aclsim::SocFromEnvironment(&soc, &name)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclInit: " + aclsim::t_last_error);
    }
    rt.soc = soc;
    rt.soc_name = name;
  }
  int32_t devices;
  if (!aclsim::DeviceCountFromEnvironment(&devices)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclInit: " + aclsim::t_last_error);
  }
  if (!aclsim::Settings().valid()) return Fail(ACL_ERROR_INVALID_PARAM, "aclInit: " + aclsim::Settings().error);
  if (default_device >= devices) {
    return Fail(ACL_ERROR_FILE_ATTR_INVALID, std::string("aclInit: ") + configPath + ": defaultDevice.default_device " +
                                                 std::to_string(default_device) + " is not a device (the simulator has " +
                                                 std::to_string(devices) + ": 0.." + std::to_string(devices - 1) + ")");
  }
  rt.device_count = devices;
  rt.default_device = default_device;
  rt.soc_resolved = true;
  aclsim::PublishSoc(rt);
  rt.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  auto& rt = State();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (!rt.initialized) return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize: acl is not initialized");
    while (!rt.device_refs.empty()) aclsim::ReleaseDevice(rt, rt.device_refs.begin()->first);
    rt.initialized = false;
    rt.default_device = -1;
    rt.soc_resolved = rt.soc_overridden;
    aclsim::PublishSoc(rt);
    aclsim::t_context = 0;
  }
  return aclsim::ReleaseStreams(-1, "aclFinalize");
}

int aclsimSetSoc(const char* name) {
  aclsim::Soc soc;
  if (!name || !aclsim::ParseSoc(name, &soc)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string("aclsimSetSoc: ") + (name ? name : "(null)") +
                                             " names no chip the simulator knows; use one of " + aclsim::KnownSocs());
  }
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.soc = soc;
  rt.soc_name = aclsim::ReportedSocName(soc, name);
  rt.soc_resolved = rt.soc_overridden = true;
  aclsim::PublishSoc(rt);
  return ACL_SUCCESS;
}

const char* aclrtGetSocName(void) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!rt.soc_resolved) {
    // Before aclInit, answer from the environment (CANN answers from the installed driver).
    aclsim::Soc soc;
    std::string name;
    if (!aclsim::SocFromEnvironment(&soc, &name)) return nullptr;
    rt.soc_name = name;
  }
  return rt.soc_name.c_str();
}

aclError aclrtSetDevice(int32_t deviceId) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!rt.initialized) {
    int32_t devices;
    if (!aclsim::DeviceCountFromEnvironment(&devices)) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetDevice: " + aclsim::t_last_error);
    rt.device_count = devices;
  }
  if (!aclsim::ValidDevice(rt, deviceId)) return aclsim::InvalidDevice(rt, "aclrtSetDevice", deviceId);
  aclsim::t_context = aclsim::OpenDevice(rt, deviceId);
  rt.last_device = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  auto& rt = State();
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (!aclsim::ValidDevice(rt, deviceId)) return aclsim::InvalidDevice(rt, "aclrtResetDevice", deviceId);
    auto it = rt.device_refs.find(deviceId);
    if (it == rt.device_refs.end()) {
      return Fail(ACL_ERROR_RT_INVALID_DEVICEID,
                  "aclrtResetDevice: device " + std::to_string(deviceId) + " was not set (aclrtSetDevice)");
    }
    if (--it->second != 0) return ACL_SUCCESS;
    aclsim::ReleaseDevice(rt, deviceId);
  }
  // acl_rt.h: the reset waits for the device's queued work.
  return aclsim::ReleaseStreams(deviceId, "aclrtResetDevice");
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (!deviceId) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is a null pointer");
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!aclsim::CurrentDevice(rt, deviceId)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice: no device is set (call aclrtSetDevice first)");
  }
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (!count) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is a null pointer");
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!rt.initialized) {
    int32_t devices;
    if (!aclsim::DeviceCountFromEnvironment(&devices)) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: " + aclsim::t_last_error);
    rt.device_count = devices;
  }
  *count = static_cast<uint32_t>(rt.device_count);
  return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  if (!context) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is a null pointer");
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!aclsim::ValidDevice(rt, deviceId)) return aclsim::InvalidDevice(rt, "aclrtCreateContext", deviceId);
  // Creating a context opens its device, as in CANN; aclrtDestroyContext does not close it.
  aclsim::OpenDevice(rt, deviceId);
  rt.last_device = deviceId;
  const uintptr_t handle = rt.contexts.Add(std::make_shared<aclsim::Context>(aclsim::Context{deviceId, false}));
  aclsim::t_context = handle;
  *context = reinterpret_cast<aclrtContext>(handle);
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto found = rt.contexts.Find(context);
  if (!found || found->implicit) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: not a context made by aclrtCreateContext (destroyed twice?)");
  }
  rt.contexts.Take(context);
  if (aclsim::t_context == reinterpret_cast<uintptr_t>(context)) aclsim::t_context = 0;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (!rt.contexts.Find(context)) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetCurrentContext: not a live context");
  aclsim::t_context = reinterpret_cast<uintptr_t>(context);
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (!context) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is a null pointer");
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  int32_t device;
  if (!aclsim::CurrentDevice(rt, &device)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext: no current context (call aclrtSetDevice first)");
  }
  *context = reinterpret_cast<aclrtContext>(aclsim::t_context ? aclsim::t_context : rt.default_contexts[device]);
  return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  if (opt < ACL_OPT_DETERMINISTIC || opt > ACL_OPT_STRONG_CONSISTENCY) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: unknown aclSysParamOpt " + std::to_string(static_cast<int>(opt)));
  }
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.sys_params[opt] = value;  // the simulator is deterministic and consistent either way
  return ACL_SUCCESS;
}

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
  auto& rt = State();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.op_timeout = timeout;
  return ACL_SUCCESS;
}

}  // extern "C"
