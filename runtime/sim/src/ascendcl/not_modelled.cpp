// The status every refusal of what the simulator does not model answers, decided here once.
//
// CANN's status for a feature the device or driver lacks is ACL_ERROR_RT_FEATURE_NOT_SUPPORT
// (207000), but torch_npu 2.13 does not raise on it: its NPU_CHECK_ERROR (NPUException.h,
// NPU_CHECK_ERROR_CHECK_UCE), around nearly every runtime call it makes, prints "Feature is not
// supported and the possible cause is that driver and firmware packages do not match." once per call
// site and goes on as if the call had succeeded (the warning printed, no exception: on the simulator
// torch.npu.utilization() answered 0 and torch.npu.get_device_limit() uninitialised core counts, and
// a refused shareable-handle import crashed later in aclrtUnmapMem). A refused copy, map, event
// record or wait, capture or stream configuration would be work left undone with no error, the worst
// outcome. So a refusal answers ACL_ERROR_FEATURE_UNSUPPORTED (200006, acl_base_rt.h: "feature
// unsupported"), which that macro raises on like any other status, its message carrying
// aclGetRecentErrMsg's (the simulator's, naming the call); torch_npu's aclop path (aclopCompileAndExecute
// in blocking and task-queue modes) and its plain comparisons raise on it too.
//
// The exception is a call torch_npu makes expecting 207000 from a device whose driver lacks the
// feature, and answers with its own default: there 207000 is what a real device without the feature
// says, and the default is right. kAnsweredWithDefault lists them, each with the evidence. How they
// were found: each user API that reaches a refusal run under torch_npu with each status. The macro's
// warning names its file and line once per call site; a call whose 207000 is swallowed without that
// warning, and whose 200006 raises, is checked by its caller first (the list); everything that warned
// is a call whose work torch_npu relies on. A normal run (tensors, ops, streams, events, properties,
// format casts) reaches only the list's refusals (ACLNN_SIM_LOG=1 prints every refusal).
#include <cstring>
#include <string>

#include "acl/acl_base.h"
#include "common/internal.h"

namespace aclsim {
namespace {

// Each with the evidence: where torch_npu compares the status with 207000, and what it uses instead.
constexpr const char* kAnsweredWithDefault[] = {
    // torch.npu.get_device_properties (initDeviceProperty, torch_npu/csrc/npu/Module.cpp:255) compares
    // the status with 207000 before its check and leaves the properties' uuid unset: with 207000 the
    // properties come back and no warning is printed; with any other refusal the call raises ("NPU
    // function error: err", Module.cpp:255), and every device-properties query with it. (The uuid is
    // modelled now, device.cpp; the entry keeps the default should a case of it be refused.)
    "aclrtDeviceGetUuid",
};

}  // namespace

int32_t NotModelledStatus(const char* api) {
  for (const char* query : kAnsweredWithDefault) {
    if (std::strcmp(query, api) == 0) return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
  }
  return ACL_ERROR_FEATURE_UNSUPPORTED;
}

int32_t FailNotModelled(const char* api, const std::string& message) { return Fail(NotModelledStatus(api), message); }

}  // namespace aclsim
