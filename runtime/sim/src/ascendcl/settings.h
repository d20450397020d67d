// The simulator's settings from the environment, read once (at the first call of the process) and
// checked: a value a variable does not document makes aclInit fail with a message naming the
// variable, instead of being read as something else without a word. ACLNN_SIM_SOC and
// ACLNN_SIM_DEVICE_COUNT, which aclInit reads afresh each time, are runtime.cpp's.
#ifndef ACLNN_SIM_ASCENDCL_SETTINGS_H_
#define ACLNN_SIM_ASCENDCL_SETTINGS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#define ACLSIM_SETTINGS_EXPORT __attribute__((visibility("default")))

namespace aclsim {

// ACLNN_SIM_FAULT=aclnnXxx[:N]: the N-th launch (1-based) of that API faults on the device.
struct FaultTarget {
  std::string api;
  uint64_t launch = 1;
  std::atomic<uint64_t> seen{0};
};

// The code paths every kernel is built for, in increasing order of what they ask of the CPU.
enum class Isa { kAuto, kBaseline, kAvx2, kAvx512 };

struct SimSettings {
  std::string error;  // the first variable with a value it does not document; "" when all are good
  bool synchronous = false;          // ACLNN_SIM_SYNC=0|1
  std::vector<std::unique_ptr<FaultTarget>> faults;  // ACLNN_SIM_FAULT
  uint64_t device_memory = uint64_t{64} << 30;       // ACLNN_SIM_DEVICE_MEMORY: bytes, K/M/G/T suffixes
  int threads = 0;                   // ACLNN_SIM_THREADS=1..256 (0: one per CPU, at most 16)
  Isa isa = Isa::kAuto;              // ACLNN_SIM_ISA=auto|baseline|avx2|avx512: the path asked for
  bool log = false;                  // ACLNN_SIM_LOG=0|1: print every error message to stderr
  // ACLNN_SIM_ONEDNN=0|1: whether the families may compute on oneDNN; 0 takes the route of a build
  // without it (OpenBLAS), so that a test or a comparison reaches that code on any build.
  bool onednn = true;
  // ACLNN_SIM_CANN_VERSION: the CANN release the simulator answers as (aclsysGetCANNVersion). Its
  // default is the release the corpus pages document (their repositories' master at CANN 9.0), the
  // behaviour the engines follow; clients such as op-plugin choose their routes by it.
  std::string cann_version = "9.0.0";
  // ACLNN_SIM_STALL_MS=1..86400000: how long a synchronisation waits on a stall (stalls.cpp: a wait
  // only a host call can end) with no launch on any stream before it answers 507004. A program whose
  // producer thread records after a longer gap raises it.
  int64_t stall_ms = 1000;

  bool valid() const { return error.empty(); }
};

ACLSIM_SETTINGS_EXPORT const SimSettings& Settings();

// Splits a CANN release ("9.0.0", "8.3.RC1", "8.5.0.alpha001") into major, minor, release and patch
// ("" when absent); false for text that is no release.
ACLSIM_SETTINGS_EXPORT bool CannVersionParts(const std::string& version, std::vector<std::string>* parts);

// The one code path every kernel takes, elementwise and family alike: ACLNN_SIM_ISA's, or (auto)
// the widest this CPU runs; a path the CPU lacks falls back to the widest it has, never to an
// illegal instruction. Decided once per process.
ACLSIM_SETTINGS_EXPORT Isa KernelPath();
ACLSIM_SETTINGS_EXPORT const char* IsaName(Isa isa);  // "baseline", "avx2", "avx512"

// The path an engine's kernels last ran on, for aclsimEnginePaths (sim_stats' "engine_paths"): a
// test or a user sees which code each family ran, not only the path asked for. One per dispatch
// site (a static of ACLSIM_KERNEL's dispatcher, of the elementwise engine's phase 2); the engine
// is the base name of the source file that holds it (`source`: its __FILE__).
//
// An engine whose code is a library's rather than its own per path (the matmul family's 16-bit
// products: oneDNN or OpenBLAS) records the route it took instead, one site per kind of work it
// routes (`variant`: the engine is then "<file>.<variant>", as "matmul.bfloat16").
class ACLSIM_SETTINGS_EXPORT EnginePath {
 public:
  explicit EnginePath(const char* source, const char* variant = nullptr);
  EnginePath(const EnginePath&) = delete;
  EnginePath& operator=(const EnginePath&) = delete;
  // Phase 2's record: one relaxed store.
  void Took(Isa path) { taken_.store(static_cast<int>(path), std::memory_order_relaxed); }
  // `route` ("openblas", "onednn:brg:avx512_core_amx") must live as long as the process.
  void TookRoute(const char* route) { route_.store(route, std::memory_order_relaxed); }
  // "elementwise=avx2,matmul.bfloat16=openblas,softmax=avx512": the engines that have run, by name.
  static std::string Report();

 private:
  const char* source_;
  const char* variant_;
  std::atomic<int> taken_{static_cast<int>(Isa::kAuto)};  // kAuto: has not run
  std::atomic<const char*> route_{nullptr};                // null: has not run (or records paths)
  EnginePath* next_ = nullptr;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_SETTINGS_H_
