// libascendcl, the observability calls: logging (aclAppLog), profiling (aclprof*, Msprof*) and
// dumps (aclmdl*Dump, aclopStart/StopDumpArgs). The simulator records no device profile and writes
// no dump: these are documented no-ops that accept what they are given, as CANN's do when profiling
// and dumping are switched off. Anything that asks the simulator to *produce* a profile or a dump
// file it would not write is refused (aclprofStart with a configuration, aclmdlSetDump with a
// configuration file): the caller learns it will get nothing, instead of an empty directory later.
//
// The profiling and dump entry points are variadic functions exported under the API's symbol name
// (an assembler label; see unmodeled.cpp): their callers pass the documented arguments (acl_prof.h,
// acl_mdl.h, aprof_pub.h), which a no-op never reads, and the definitions agree with whichever CANN
// headers are included.
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "common/internal.h"
#include "ascendcl/settings.h"

namespace {

// CANN writes these to its log files, which the simulator does not keep: they are printed to
// stderr with the simulator's own messages when ACLNN_SIM_LOG=1.
bool LogEnabled() { return aclsim::Settings().log; }

const char* LevelName(aclLogLevel level) {
  switch (level) {
    case ACL_DEBUG: return "DEBUG";
    case ACL_INFO: return "INFO";
    case ACL_WARNING: return "WARNING";
    default: return "ERROR";
  }
}

// A profiling configuration or step record: something to hand back and accept again.
struct ProfilingObject {
  uint32_t magic = 0x70726f66;  // "prof"
};

}  // namespace

extern "C" {

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line, const char* fmt, ...) {
  if (!fmt || !LogEnabled()) return;
  std::fprintf(stderr, "[%s] %s:%u %s: ", LevelName(logLevel), file ? file : "?", line, func ? func : "?");
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
}

// --- profiling: the simulator collects nothing ---------------------------------------------------

#define ACLSIM_ACCEPTED(name)                                                                  \
  __attribute__((visibility("default"))) aclError aclsim_accepted_##name(...) __asm__(#name); \
  aclError aclsim_accepted_##name(...) { return ACL_SUCCESS; }

#define ACLSIM_REFUSED(name, message)                                                         \
  __attribute__((visibility("default"))) aclError aclsim_refused_##name(...) __asm__(#name); \
  aclError aclsim_refused_##name(...) { return aclsim::FailNotModelled(#name, #name ": " message); }

ACLSIM_ACCEPTED(aclprofInit)
ACLSIM_ACCEPTED(aclprofFinalize)
ACLSIM_ACCEPTED(aclprofStop)
ACLSIM_ACCEPTED(aclprofSetConfig)
ACLSIM_ACCEPTED(aclprofMarkEx)
ACLSIM_ACCEPTED(aclprofGetStepTimestamp)
ACLSIM_ACCEPTED(aclprofWarmup)
ACLSIM_ACCEPTED(aclprofRegisterDeviceCallback)
// Dumps and profiling switched off: no dump configuration is active, so there is nothing to end.
ACLSIM_ACCEPTED(aclmdlInitDump)
ACLSIM_ACCEPTED(aclmdlFinalizeDump)
ACLSIM_ACCEPTED(aclopStopDumpArgs)

ACLSIM_REFUSED(aclprofStart, "the simulator collects no device profile (no profiling data would be written)")
ACLSIM_REFUSED(aclmdlSetDump, "the simulator writes no operator dumps (a dump configuration would be ignored)")
ACLSIM_REFUSED(aclopStartDumpArgs, "the simulator writes no operator argument dumps")

__attribute__((visibility("default"))) void* aclprofCreateConfig(...) {
  return new ProfilingObject;  // accepted by aclprofStart's refusal and aclprofDestroyConfig
}

__attribute__((visibility("default"))) aclError aclprofDestroyConfig(const void* config) {
  delete static_cast<const ProfilingObject*>(config);
  return ACL_SUCCESS;
}

__attribute__((visibility("default"))) void* aclprofCreateStepInfo(...) { return new ProfilingObject; }

__attribute__((visibility("default"))) void aclprofDestroyStepInfo(void* info) {
  delete static_cast<ProfilingObject*>(info);
}

// aprof_pub.h: the reporting side the framework calls on every op while profiling may be on; with
// no collector attached, a report goes nowhere (MSPROF_ERROR_NONE).
__attribute__((visibility("default"))) int32_t MsprofRegisterCallback(...) { return 0; }
__attribute__((visibility("default"))) int32_t MsprofReportApi(...) { return 0; }
__attribute__((visibility("default"))) int32_t MsprofReportCompactInfo(...) { return 0; }
__attribute__((visibility("default"))) int32_t MsprofReportAdditionalInfo(...) { return 0; }

// The hash id of a string (aprof_pub.h: the same string gives the same id within a process).
__attribute__((visibility("default"))) uint64_t MsprofGetHashId(const char* hashInfo, size_t length) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; hashInfo && i < length; ++i) {
    hash ^= static_cast<unsigned char>(hashInfo[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

// The device's cycle counter: the host's steady clock in nanoseconds stands in for it.
__attribute__((visibility("default"))) uint64_t MsprofSysCycleTime(void) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

}  // extern "C"
