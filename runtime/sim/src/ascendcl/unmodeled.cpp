// libascendcl, what the simulator does not model: each function here returns the status of a
// refusal (aclsim::NotModelledStatus, not_modelled.cpp: one torch_npu does not take for success)
// with a message naming it, and never success. The list is the part of
// the runtime surface that torch_npu 2.13 links or looks up by name (tests/torch_npu/test_surface.py
// derives that surface from its wheel) and the simulator has no meaningful behaviour for.
//
// Each is a variadic function exported under the API's symbol name (an assembler label), so that one
// line says each: callers pass the documented arguments (acl_rt.h, acl_mdl.h), which a function that
// only refuses never reads, and the x86-64 and AArch64 calling conventions let a callee ignore any
// arguments. Every one returns aclError, as its documented prototype does. The C++ name differs
// from the API's, so the definitions agree with whichever CANN headers are included (ours, or a
// toolkit's, which declare these functions with their real parameters).
#include <string>

#include "acl/acl_base.h"
#include "common/internal.h"

namespace {

aclError NotModelled(const char* api, const char* feature) {
  return aclsim::FailNotModelled(api, std::string(api) + ": not modelled by the simulator (" + feature + ")");
}

}  // namespace

#define ACLSIM_NOT_MODELLED(name, feature)                                                  \
  __attribute__((visibility("default"))) aclError aclsim_not_modelled_##name(...) __asm__(#name); \
  aclError aclsim_not_modelled_##name(...) { return NotModelled(#name, feature); }

extern "C" {


// A captured model's conditional tasks and captures into a model built by hand (capture, replay, task
// groups and their updates are capture.cpp's).
ACLSIM_NOT_MODELLED(aclmdlRIAddCondTask, "conditional tasks of a captured model and captures into a built model (aclmdlRI*)")
ACLSIM_NOT_MODELLED(aclmdlRICaptureToModelRIBegin, "conditional tasks of a captured model and captures into a built model (aclmdlRI*)")
ACLSIM_NOT_MODELLED(aclmdlRICondHandleCreate, "conditional tasks of a captured model and captures into a built model (aclmdlRI*)")
ACLSIM_NOT_MODELLED(aclmdlRICondHandleGetCondPtr, "conditional tasks of a captured model and captures into a built model (aclmdlRI*)")

// Kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only).
ACLSIM_NOT_MODELLED(aclrtBinaryGetFunction, "kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only)")
ACLSIM_NOT_MODELLED(aclrtBinaryLoadFromData, "kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only)")
ACLSIM_NOT_MODELLED(aclrtGetFunctionAddr, "kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only)")
ACLSIM_NOT_MODELLED(aclrtLaunchKernelWithHostArgs, "kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only)")
ACLSIM_NOT_MODELLED(aclrtGetHardwareSyncAddr, "kernel binaries loaded and launched by the caller (the simulator runs aclnn kernels only)")

// Super kernels (fusion of captured kernels).
ACLSIM_NOT_MODELLED(aclskOptimize, "super kernels (fusion of captured kernels)")
ACLSIM_NOT_MODELLED(aclskScopeBegin, "super kernels (fusion of captured kernels)")
ACLSIM_NOT_MODELLED(aclskScopeEnd, "super kernels (fusion of captured kernels)")

// Hardware faults, their diagnosis and repair.
ACLSIM_NOT_MODELLED(aclrtDeviceTaskAbort, "hardware faults, their diagnosis and repair")
ACLSIM_NOT_MODELLED(aclrtMemUceRepair, "hardware faults, their diagnosis and repair")
ACLSIM_NOT_MODELLED(aclrtRepairError, "hardware faults, their diagnosis and repair")

// Stress tests of the device's hardware (the simulator has none to test).
ACLSIM_NOT_MODELLED(aclStressDetect, "stress tests of the device's hardware")

// Profiling interfaces of other CANN releases.
ACLSIM_NOT_MODELLED(aclProfilingInit, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclProfilingStart, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclProfilingStop, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclProfilingCreateConfig, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclProfilingDestroyConfig, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclprofGetSupportedFeatures, "profiling interfaces of other CANN releases")
ACLSIM_NOT_MODELLED(aclprofGetSupportedFeaturesV2, "profiling interfaces of other CANN releases")

// The Ascend runtime's own rt* calls, which torch_npu links directly to register and launch kernels
// from device binaries. CANN's libascendcl pulls them in from libruntime; rtError_t shares these
// statuses with aclError.
ACLSIM_NOT_MODELLED(rtDevBinaryRegister, "kernels from device binaries")
ACLSIM_NOT_MODELLED(rtFunctionRegister, "kernels from device binaries")
ACLSIM_NOT_MODELLED(rtKernelLaunch, "kernels from device binaries")
ACLSIM_NOT_MODELLED(rtGetC2cCtrlAddr, "chip-to-chip control addresses")

}  // extern "C"
