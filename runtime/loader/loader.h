// aclnn-bindgen: resolves the CANN C ABI at run time (dlopen/dlsym), from a CANN install or from
// the simulator, so that one build of the bindings runs on either.
//
// The runtime (libascendcl) and nnopbase (aclTensor and friends) functions the bindings call are
// resolved once, into a table of typed function pointers (`Abi`). Op symbols are resolved lazily,
// by name, because a build binds thousands of APIs and a CANN install splits them over
// libopapi.so and libopapi_*.so. Nothing here throws anything but `LoaderError`, whose message
// names what was missing and every library that was searched.
#ifndef ACLNN_BINDGEN_LOADER_H_
#define ACLNN_BINDGEN_LOADER_H_

#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace aclnn_loader {

// The functions every backend must export; a missing one is a LoaderError at first use.
#define ACLNN_LOADER_REQUIRED_FUNCTIONS(X) \
  X(aclInit)                               \
  X(aclFinalize)                           \
  X(aclrtSetDevice)                        \
  X(aclrtResetDevice)                      \
  X(aclrtCreateStream)                     \
  X(aclrtDestroyStream)                    \
  X(aclrtSynchronizeStream)                \
  X(aclrtSynchronizeDevice)                \
  X(aclrtCreateEvent)                      \
  X(aclrtDestroyEvent)                     \
  X(aclrtRecordEvent)                      \
  X(aclrtStreamWaitEvent)                  \
  X(aclrtSynchronizeEvent)                 \
  X(aclrtQueryEventStatus)                 \
  X(aclrtMalloc)                           \
  X(aclrtFree)                             \
  X(aclrtMemcpy)                           \
  X(aclrtMemcpyAsync)                      \
  X(aclrtMemset)                           \
  X(aclGetRecentErrMsg)                    \
  X(aclCreateTensor)                       \
  X(aclCreateScalar)                       \
  X(aclCreateIntArray)                     \
  X(aclCreateFloatArray)                   \
  X(aclCreateBoolArray)                    \
  X(aclCreateTensorList)                   \
  X(aclCreateScalarList)                   \
  X(aclDestroyTensor)                      \
  X(aclDestroyScalar)                      \
  X(aclDestroyIntArray)                    \
  X(aclDestroyFloatArray)                  \
  X(aclDestroyBoolArray)                   \
  X(aclDestroyTensorList)                  \
  X(aclDestroyScalarList)                  \
  X(aclDestroyAclOpExecutor)

// Functions a backend may lack; their pointer stays null and callers degrade.
#define ACLNN_LOADER_OPTIONAL_FUNCTIONS(X) \
  X(aclrtGetSocName)                       \
  X(aclrtGetDeviceCount)                   \
  X(aclrtEventElapsedTime)                 \
  X(aclrtStreamQuery)                      \
  X(aclGetViewShape)

// The typed function table. decltype of our own declarations (never called directly, so the
// bindings have no link-time dependency on any CANN library).
struct Abi {
#define ACLNN_LOADER_FIELD(name) decltype(&::name) name = nullptr;
  ACLNN_LOADER_REQUIRED_FUNCTIONS(ACLNN_LOADER_FIELD)
  ACLNN_LOADER_OPTIONAL_FUNCTIONS(ACLNN_LOADER_FIELD)
#undef ACLNN_LOADER_FIELD
};

class LoaderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class BackendKind { kSim, kCann };

const char* backend_name(BackendKind kind);

class Backend {
 public:
  // The process's backend, opened on first use: ACLNN_BACKEND=cann|sim, or CANN when an install
  // is found and the simulator otherwise. Throws LoaderError (every later call rethrows it: a
  // backend that could not be opened stays unopened).
  static Backend& get();

  BackendKind kind() const { return kind_; }
  const std::string& lib_dir() const { return lib_dir_; }
  // The libraries opened so far, in search order (split op libraries join when first searched).
  std::vector<std::string> libraries() const;
  // Why this backend was chosen (e.g. "ACLNN_BACKEND=sim", "no CANN install found").
  const std::string& reason() const { return reason_; }
  const Abi& abi() const { return abi_; }

  // An op's symbol (`api` names the API for the message). Searches libopapi.so, then the split
  // libopapi_*.so of the backend's directory; caches hits. Throws LoaderError when absent.
  void* op_symbol(const std::string& api, const std::string& symbol);
  // Any symbol of the opened libraries, or null (for optional extensions such as the
  // simulator's statistics).
  void* optional_symbol(const char* symbol);

 private:
  Backend() = default;
  void open();
  void* open_library(const std::string& path, bool required);
  bool adopt_loaded_library(const char* soname);
  void* find(const char* symbol);  // requires mutex_

  BackendKind kind_ = BackendKind::kSim;
  std::string lib_dir_;
  std::string reason_;
  Abi abi_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, void*>> libraries_;  // path, handle
  std::vector<std::string> split_candidates_;  // libopapi_*.so not opened yet
  std::unordered_map<std::string, void*> op_cache_;
};

// Where the CANN libraries are: $ASCEND_HOME_PATH/lib64, $ASCEND_TOOLKIT_HOME/lib64 or the default
// /usr/local/Ascend/ascend-toolkit/latest/lib64, the first holding libascendcl.so; "" if none.
// `searched` receives every directory looked at; `not_installs` (optional) each of the two
// variables that is set but names no CANN install ("ASCEND_TOOLKIT_HOME=/x (no /x/lib64/...)").
std::string find_cann_lib_dir(std::vector<std::string>* searched, std::vector<std::string>* not_installs);

// The simulator's libraries: $ACLNN_SIM_DIR, else the `_sim/` directory next to the shared object
// this loader is linked into (the package directory of aclnn._C).
std::string find_sim_lib_dir();

}  // namespace aclnn_loader

#endif  // ACLNN_BINDGEN_LOADER_H_
