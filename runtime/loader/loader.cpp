// aclnn-bindgen: the run-time loader (see loader.h).
#include "loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace aclnn_loader {
namespace {

// The libraries of the C ABI, opened in dependency order. RTLD_GLOBAL because that is what
// linking with -lascendcl -lnnopbase -lopapi gives: CANN's op libraries expect the runtime's
// symbols to be visible to them.
const char* const kCoreLibraries[] = {"libascendcl.so", "libnnopbase.so", "libopapi.so"};
// The runtime and the object library hold per-process state (devices, streams, device memory,
// live objects). When the process already has them (loaded by torch_npu, another binding, or a
// test harness), a second copy would be a second, disjoint device: share the loaded one. libopapi
// holds no such state and differs between builds (each has its own ops): always ours.
const char* const kProcessWideLibraries[] = {"libascendcl.so", "libnnopbase.so"};

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

const char* backend_name(BackendKind kind) { return kind == BackendKind::kCann ? "cann" : "sim"; }

std::string find_cann_lib_dir(std::vector<std::string>* searched, std::vector<std::string>* not_installs) {
  std::vector<std::string> roots;
  for (const char* var : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"}) {
    std::string root = env(var);
    if (root.empty()) continue;
    roots.push_back(root);
    if (not_installs && !is_file(root + "/lib64/libascendcl.so")) {
      not_installs->push_back(std::string(var) + "=" + root + " (no " + root + "/lib64/libascendcl.so)");
    }
  }
  roots.push_back("/usr/local/Ascend/ascend-toolkit/latest");
  for (const auto& root : roots) {
    std::string dir = root + "/lib64";
    if (searched) searched->push_back(dir);
    if (is_file(dir + "/libascendcl.so")) return dir;
  }
  return {};
}

std::string find_sim_lib_dir() {
  std::string dir = env("ACLNN_SIM_DIR");
  if (!dir.empty()) return dir;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&find_sim_lib_dir), &info) == 0 || info.dli_fname == nullptr) return "_sim";
  std::string self = info.dli_fname;
  auto slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/_sim";
}

Backend& Backend::get() {
  // Opened once; a failure is remembered and rethrown, so that every call reports the same cause.
  static std::mutex once;
  static std::unique_ptr<Backend> backend;
  static std::string failure;
  std::lock_guard<std::mutex> lock(once);
  if (backend) return *backend;
  if (!failure.empty()) throw LoaderError(failure);
  std::unique_ptr<Backend> fresh(new Backend());
  try {
    fresh->open();
  } catch (const LoaderError& e) {
    failure = e.what();
    throw;
  }
  // Never closed: op libraries register destructors and threads that must outlive every call,
  // and a dlclose at exit is a classic source of crashes.
  backend = std::move(fresh);
  return *backend;
}

void Backend::open() {
  std::string choice = env("ACLNN_BACKEND");
  std::vector<std::string> searched, not_installs;
  if (choice == "cann") {
    lib_dir_ = find_cann_lib_dir(&searched, nullptr);
    if (lib_dir_.empty())
      throw LoaderError("ACLNN_BACKEND=cann, but no CANN install was found (libascendcl.so in " + join(searched) +
                        "); set ASCEND_HOME_PATH");
    kind_ = BackendKind::kCann;
    reason_ = "ACLNN_BACKEND=cann";
  } else if (choice == "sim") {
    lib_dir_ = find_sim_lib_dir();
    kind_ = BackendKind::kSim;
    reason_ = "ACLNN_BACKEND=sim";
  } else if (choice.empty() || choice == "auto") {
    lib_dir_ = find_cann_lib_dir(&searched, &not_installs);
    if (lib_dir_.empty() && !not_installs.empty()) {
      // A variable that names no CANN install is a mistake, not a request for the simulator.
      throw LoaderError(join(not_installs) + ": not a CANN install; set it to one, or unset it " +
                        "(ACLNN_BACKEND=sim runs on the simulator whatever it says)");
    }
    if (!lib_dir_.empty()) {
      kind_ = BackendKind::kCann;
      reason_ = "CANN install found";
    } else {
      lib_dir_ = find_sim_lib_dir();
      kind_ = BackendKind::kSim;
      reason_ = "no CANN install found (searched " + join(searched) + ")";
    }
  } else {
    throw LoaderError("ACLNN_BACKEND must be 'cann', 'sim' or unset, not '" + choice + "'");
  }

  for (const char* name : kCoreLibraries) {
    if (!adopt_loaded_library(name)) open_library(lib_dir_ + "/" + name, true);
  }

  glob_t found{};
  std::string pattern = lib_dir_ + "/libopapi_*.so";
  if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) split_candidates_.emplace_back(found.gl_pathv[i]);
  }
  ::globfree(&found);
  std::sort(split_candidates_.begin(), split_candidates_.end());

  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> missing;
#define ACLNN_LOADER_RESOLVE(name)                                    \
  abi_.name = reinterpret_cast<decltype(abi_.name)>(find(#name));     \
  if (abi_.name == nullptr) missing.push_back(#name);
  ACLNN_LOADER_REQUIRED_FUNCTIONS(ACLNN_LOADER_RESOLVE)
#undef ACLNN_LOADER_RESOLVE
  if (!missing.empty()) {
    std::vector<std::string> libs;
    for (const auto& lib : libraries_) libs.push_back(lib.first);
    throw LoaderError(std::string("the ") + backend_name(kind_) + " backend lacks " + join(missing) +
                      " (searched " + join(libs) + ")");
  }
#define ACLNN_LOADER_RESOLVE_OPTIONAL(name) abi_.name = reinterpret_cast<decltype(abi_.name)>(find(#name));
  ACLNN_LOADER_OPTIONAL_FUNCTIONS(ACLNN_LOADER_RESOLVE_OPTIONAL)
#undef ACLNN_LOADER_RESOLVE_OPTIONAL
}

bool Backend::adopt_loaded_library(const char* soname) {
  bool process_wide = false;
  for (const char* name : kProcessWideLibraries) process_wide = process_wide || std::strcmp(name, soname) == 0;
  if (!process_wide) return false;
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  struct link_map* map = nullptr;
  std::string path = soname;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) path = map->l_name;
  libraries_.emplace_back(path + " (already loaded)", handle);
  return true;
}

void* Backend::open_library(const std::string& path, bool required) {
  if (!is_file(path)) {
    if (!required) return nullptr;
    throw LoaderError(std::string("the ") + backend_name(kind_) + " backend needs " + path + ", which does not exist" +
                      (kind_ == BackendKind::kSim ? " (build the simulator, or set ACLNN_SIM_DIR)" : "") +
                      "; chosen because: " + reason_);
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    if (!required) return nullptr;
    throw LoaderError("cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
  }
  libraries_.emplace_back(path, handle);
  return handle;
}

void* Backend::find(const char* symbol) {
  for (const auto& lib : libraries_) {
    if (void* address = ::dlsym(lib.second, symbol)) return address;
  }
  return nullptr;
}

std::vector<std::string> Backend::libraries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> paths;
  for (const auto& lib : libraries_) paths.push_back(lib.first);
  return paths;
}

void* Backend::op_symbol(const std::string& api, const std::string& symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto hit = op_cache_.find(symbol);
  if (hit != op_cache_.end()) return hit->second;
  void* address = find(symbol.c_str());
  // Split op libraries are opened one at a time, only while a symbol is still missing.
  while (address == nullptr && !split_candidates_.empty()) {
    std::string path = split_candidates_.front();
    split_candidates_.erase(split_candidates_.begin());
    void* handle = open_library(path, false);
    if (handle != nullptr) address = ::dlsym(handle, symbol.c_str());
  }
  if (address == nullptr) {
    std::vector<std::string> libs;
    for (const auto& lib : libraries_) libs.push_back(base_name(lib.first));
    throw LoaderError(api + ": symbol " + symbol + " not found in the " + backend_name(kind_) + " backend (searched " +
                      lib_dir_ + "/{" + join(libs) + "})");
  }
  op_cache_.emplace(symbol, address);
  return address;
}

void* Backend::optional_symbol(const char* symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  return find(symbol);
}

}  // namespace aclnn_loader
