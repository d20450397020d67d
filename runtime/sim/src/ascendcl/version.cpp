// libascendcl, the CANN package versions (aclsysGetCANNVersion, aclsysGetVersionStr). The simulator
// stands for one CANN release: the one whose operator pages it follows, ACLNN_SIM_CANN_VERSION
// (default 9.0.0, the release of the corpus pages' repositories). Every package of the toolkit
// (runtime, compiler, HCCL, opp, ...) answers that release, as the packages of one CANN install do.
// There is no NPU driver, so the driver package has no version: that query fails with
// ACL_ERROR_INVALID_FILE, the status the header documents for a package it cannot read.
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "common/internal.h"
#include "ascendcl/settings.h"

namespace {

// aclsysGetVersionStr's package names: the enum's, without ACL_PKG_NAME_ (any case).
constexpr const char* kPackageNames[] = {"CANN", "RUNTIME", "COMPILER", "HCCL", "TOOLKIT", "OPP", "OPP_KERNEL", "DRIVER"};
constexpr int kPackageCount = sizeof(kPackageNames) / sizeof(kPackageNames[0]);

// Copies `text` into a field of `size` bytes; false when it does not fit.
bool CopyField(char* field, size_t size, const std::string& text) {
  if (text.size() >= size) return false;
  std::memcpy(field, text.c_str(), text.size() + 1);
  return true;
}

// The version of package `index`, or a failure status (message set).
aclError PackageVersion(const char* api, int index, std::vector<std::string>* parts, std::string* version) {
  if (index == ACL_PKG_NAME_DRIVER) {
    return aclsim::Fail(ACL_ERROR_INVALID_FILE, std::string(api) +
                                                    ": the driver package has no version here (the simulator runs no NPU driver)");
  }
  const aclsim::SimSettings& settings = aclsim::Settings();
  if (!settings.valid()) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + settings.error);
  *version = settings.cann_version;
  aclsim::CannVersionParts(*version, parts);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion* version) {
  if (!version) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: version is null");
  const int index = static_cast<int>(name);
  if (index < 0 || index >= kPackageCount) {
    return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: " + std::to_string(index) +
                                                     " is no aclCANNPackageName (ACL_PKG_NAME_CANN .. ACL_PKG_NAME_DRIVER)");
  }
  std::vector<std::string> parts;
  std::string text;
  if (const aclError status = PackageVersion("aclsysGetCANNVersion", index, &parts, &text); status != ACL_SUCCESS) {
    return status;
  }
  std::memset(version, 0, sizeof(*version));
  const bool fits = CopyField(version->version, sizeof(version->version), text) &&
                    CopyField(version->majorVersion, sizeof(version->majorVersion), parts[0]) &&
                    CopyField(version->minorVersion, sizeof(version->minorVersion), parts[1]) &&
                    CopyField(version->releaseVersion, sizeof(version->releaseVersion), parts[2]) &&
                    CopyField(version->patchVersion, sizeof(version->patchVersion), parts[3]);
  if (!fits) return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: ACLNN_SIM_CANN_VERSION is too long");
  return ACL_SUCCESS;
}

// versionStr is a caller's buffer of ACL_PKG_VERSION_MAX_SIZE bytes (the size CANN's own callers use).
aclError aclsysGetVersionStr(char* pkgName, char* versionStr) {
  if (!pkgName || !versionStr) {
    return aclsim::Fail(ACL_ERROR_INVALID_PARAM, std::string("aclsysGetVersionStr: ") +
                                                     (pkgName ? "versionStr" : "pkgName") + " is null");
  }
  std::string wanted = pkgName;
  for (char& c : wanted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int index = -1;
  for (int i = 0; i < kPackageCount; ++i) {
    if (wanted == kPackageNames[i]) index = i;
  }
  if (index < 0) {
    return aclsim::Fail(ACL_ERROR_INVALID_FILE, std::string("aclsysGetVersionStr: no CANN package is named '") + pkgName +
                                                    "' (CANN, RUNTIME, COMPILER, HCCL, TOOLKIT, OPP, OPP_KERNEL, DRIVER)");
  }
  std::vector<std::string> parts;
  std::string text;
  if (const aclError status = PackageVersion("aclsysGetVersionStr", index, &parts, &text); status != ACL_SUCCESS) {
    return status;
  }
  if (!CopyField(versionStr, ACL_PKG_VERSION_MAX_SIZE, text)) {
    return aclsim::Fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: ACLNN_SIM_CANN_VERSION is too long");
  }
  return ACL_SUCCESS;
}

}  // extern "C"
