// What the three simulator libraries call in each other. Not CANN API: C++ functions in the
// aclsim namespace, exported from the library that owns the state (libascendcl owns errors,
// memory, streams and the simulated chip; libnnopbase owns tensors, scalars, arrays, lists and
// executors). libnnopbase links libascendcl; libopapi links both.
#ifndef ACLNN_SIM_COMMON_INTERNAL_H_
#define ACLNN_SIM_COMMON_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/small_vector.h"
#include "aclnn_sim/soc.h"
#include "ascendcl/pool.h"

#define ACLSIM_EXPORT __attribute__((visibility("default")))

namespace aclsim {

// --- libascendcl -------------------------------------------------------------------------------

// The calling thread's aclGetRecentErrMsg message; every failing call of the simulator sets it.
ACLSIM_EXPORT void SetError(const std::string& message);
// The calling thread's last error status, what aclrtGetLastError/aclrtPeekAtLastError report.
ACLSIM_EXPORT void SetErrorStatus(int32_t status);
// Sets the message and the status and returns `status`, so that an error path is one statement.
template <typename Status>
Status Fail(Status status, const std::string& message) {
  SetError(message);
  SetErrorStatus(static_cast<int32_t>(status));
  return status;
}

// The status of a refusal of what the simulator does not model in `api` (a call, or a case of one),
// decided once for every refusal in not_modelled.cpp from how torch_npu treats it: never a status
// its runtime checks take for success. FailNotModelled sets the message too and returns the status.
ACLSIM_EXPORT int32_t NotModelledStatus(const char* api);
ACLSIM_EXPORT int32_t FailNotModelled(const char* api, const std::string& message);

// A refusal of work another thread asked for: an aclop operator whose descriptions another thread
// made, refused on the thread that runs it (torch_npu's task-queue thread runs the operators its
// calling thread describes, and ends its queue for the whole process, silently dropping every later
// operator, when one of those calls fails). The refusal is held for the process instead, and
// returned, with its message, by the next call that reports earlier work (TakeHeldRefusal's callers)
// of a thread that does not run other threads' operators: the asker's, or another that reads the
// results (torch's autograd thread describes the backward operators, the main thread reads the
// gradients). The calling thread is marked as one that runs other threads' operators.
ACLSIM_EXPORT void HoldRefusal(int32_t status, const std::string& message);
// The held refusal, taken, unless the calling thread runs other threads' operators (HoldRefusal):
// its status, with the message set saying that `api` reports an earlier operator's; 0 when none.
ACLSIM_EXPORT int32_t TakeHeldRefusal(const char* api);
// Marks the calling thread as one that runs operators other threads described: it is never handed
// a held refusal (failing one of its calls is what holding avoids).
ACLSIM_EXPORT void RunsOtherThreadsOperators();

// A live aclrtMalloc allocation: [base, base + size) is what the caller asked for.
struct DeviceRange {
  uintptr_t base = 0;
  size_t size = 0;
};
// The live device allocation containing `address`, if any.
ACLSIM_EXPORT bool FindDeviceAllocation(const void* address, DeviceRange* out);
// Physical device memory taken from (false, with the error set, when the device has not that much
// free) or given back to the simulated device's capacity (memory.cpp; vmm.cpp's physical handles).
bool ChargeDeviceMemory(size_t bytes, const char* api);
void RefundDeviceMemory(size_t bytes);
// A mapped range of virtual memory becomes device memory for copies and kernels (false when it
// overlaps device memory), and stops being it (false when it is not mapped device memory).
bool AddMappedRange(uintptr_t base, size_t size);
bool RemoveMappedRange(uintptr_t base, size_t size);
ACLSIM_EXPORT bool IsLiveStream(aclrtStream stream);

// The simulated chip: the one aclInit resolved, or ACLNN_SIM_SOC read now when aclInit has not
// run. False (with the error message set) when ACLNN_SIM_SOC names no known chip.
ACLSIM_EXPORT bool SimulatedSoc(Soc* soc);

// True on a thread while the aclop bridge runs one of the common operators every chip's aclop
// kernels compute (Add, Exp, ReduceSum, ...) by an aclnn API: phase 1 then skips the page's product
// list (an aclnn API a page marks unsupported on Ascend910 or Ascend310P is the aclnn entry point
// that chip lacks, not the operation), and checks everything else as for any caller.
ACLSIM_EXPORT bool& AclopKernelOnEveryChip();

struct RuntimeCounts {
  uint64_t device_allocations, device_bytes, peak_device_bytes, host_allocations, host_bytes, streams, contexts;
  uint64_t malloc_calls, free_calls, stream_syncs, device_syncs, kernels_launched, events_recorded, events;
};
ACLSIM_EXPORT RuntimeCounts GetRuntimeCounts();

// --- libnnopbase: the objects behind the opaque handles ----------------------------------------

// Dimensions live inline up to rank 8 (every CANN operator's limit): descriptors are copied on
// every call without touching the heap.
using aclnn_bindgen::Dims;

struct TensorDesc {
  Dims view;     // view shape
  Dims strides;  // in elements, one per view dimension
  int64_t offset = 0;            // storage offset in elements, from `data`
  Dims storage;  // storage shape
  aclFormat format = ACL_FORMAT_ND;
  aclDataType dtype = ACL_FLOAT;
  void* data = nullptr;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : view) n *= d;  // bounded at creation: cannot overflow
    return n;
  }
};

// A scalar's value, copied at creation.
struct ScalarValue {
  aclDataType dtype = ACL_FLOAT;
  alignas(16) unsigned char bytes[16] = {};

  ACLSIM_EXPORT double AsDouble() const;  // the real part of a complex value
  ACLSIM_EXPORT double ImagAsDouble() const;  // the imaginary part of a complex value; 0 for a real one
  ACLSIM_EXPORT int64_t AsInt() const;    // floating values truncated toward zero (saturating)
  ACLSIM_EXPORT bool AsBool() const;
};

// Copies of the objects behind handles (false with the error message set when the handle is not
// a live object). Copies, so that a caller never holds a pointer into an object another thread
// can destroy.
ACLSIM_EXPORT bool GetTensor(const aclTensor* tensor, TensorDesc* out);
// Whether `tensor` is a live aclTensor, setting no message: a parameter that may be one of two
// kinds (ParamSpec::tensor_for_list) asks before it reads.
ACLSIM_EXPORT bool IsLiveTensor(const aclTensor* tensor);
ACLSIM_EXPORT bool GetScalar(const aclScalar* scalar, ScalarValue* out);
// A kernel whose output's extent depends on the data (masked_select, nonzero, unique) sets the
// output aclTensor's view to what it wrote, contiguous from its first element, as CANN's kernels
// do: the caller allocates the largest, synchronises and reads the shape back (aclGetViewShape).
// False when the tensor has been destroyed meanwhile (nobody can read its shape then).
ACLSIM_EXPORT bool SetTensorView(const aclTensor* tensor, const Dims& view);
ACLSIM_EXPORT bool GetIntArray(const aclIntArray* array, std::vector<int64_t>* out);
ACLSIM_EXPORT bool GetFloatArray(const aclFloatArray* array, std::vector<float>* out);
ACLSIM_EXPORT bool GetBoolArray(const aclBoolArray* array, std::vector<bool>* out);
// Null elements of a list stay null (the aclTensor*/aclScalar* of the caller is kept).
ACLSIM_EXPORT bool GetTensorList(const aclTensorList* list, std::vector<const aclTensor*>* out);
ACLSIM_EXPORT bool GetScalarList(const aclScalarList* list, std::vector<const aclScalar*>* out);

// What an executor runs in phase 2; made by libopapi's phase 1, owned by the executor.
// Made with `new` by every phase 1: from the pool (Pooled), not the heap.
class ExecutorWork : public Pooled {
 public:
  virtual ~ExecutorWork() = default;
  // Runs on the stream's worker (ACLNN_SIM_SYNC=1: on the launching thread). A status other than
  // success is a fault of the kernel, reported by the stream's next synchronisation.
  virtual aclnnStatus Run(aclrtStream stream) = 0;
  // What the simulator does not compute in this work, said by name (opapi/work.h NotSimulatedWork);
  // null for work that computes. Read by aclsimExecutorNotSimulated.
  virtual const char* NotSimulated() const { return nullptr; }
};

// The device addresses a piece of queued work uses (its tensors' data pointers, its workspace),
// so that aclrtFree can wait for exactly the work that still uses an allocation. Past kMax
// addresses it answers "maybe" for every allocation, which only makes aclrtFree wait longer.
class AddressSet {
 public:
  static constexpr int kMax = 24;
  void Add(const void* address) {
    if (!address) return;
    if (count_ < kMax) at_[count_++] = reinterpret_cast<uintptr_t>(address);
    else overflow_ = true;
  }
  bool AnyIn(uintptr_t begin, uintptr_t end) const {
    if (overflow_) return true;
    for (int i = 0; i < count_; ++i) {
      if (at_[i] >= begin && at_[i] < end) return true;
    }
    return false;
  }

 private:
  uintptr_t at_[kMax];
  int count_ = 0;
  bool overflow_ = false;
};

struct Executor {
  const char* api = "";  // the API whose phase 1 created it (a string of the generated spec)
  uintptr_t handle = 0;  // its aclOpExecutor* (never reused): how a fault names its launch
  uint64_t workspace_size = 0;
  bool repeatable = false;
  AddressSet addresses;  // the call's tensor data
  std::unique_ptr<ExecutorWork> work;
};

ACLSIM_EXPORT aclOpExecutor* CreateExecutor(const char* api, uint64_t workspace_size, const AddressSet& addresses,
                                            std::unique_ptr<ExecutorWork> work);
// Phase 2's hold on an executor made by `api`'s phase 1. A single-use executor leaves the registry
// here (so it runs once, and is destroyed when the returned pointer goes); a repeatable one stays.
// Null, with the error message set, when `executor` is not a live executor of `api`.
ACLSIM_EXPORT std::shared_ptr<Executor> AcquireExecutor(aclOpExecutor* executor, const char* api);

// --- libascendcl: phase 2's launch ---------------------------------------------------------------

// Queues `executor`'s work on `stream` (null: the current device's default stream) and returns;
// the stream's worker runs it. A fault while it runs is reported by the stream's next
// synchronisation. Errors of the launch itself (a dead stream, no device) are returned now.
ACLSIM_EXPORT aclnnStatus LaunchKernel(aclrtStream stream, std::shared_ptr<Executor> executor, void* workspace);

// libopapi's kernel thread pool registers `help`: it joins the parallel job running now, if any,
// and returns whether it ran part of it. A thread that would otherwise wait for a stream's kernel
// (a synchronisation while the worker runs it; the worker while a synchronisation runs it) runs
// the kernel's parallel tasks instead, on a core it already holds, rather than idling while the
// pool wakes a thread of its own (float16 leaky_relu_backward at 1M elements, polled by the
// bindings' synchronisation: 250 us with the poller idle, 150 us lending, as fast as running it in
// the launching call with ACLNN_SIM_SYNC=1).
ACLSIM_EXPORT void SetKernelHelper(bool (*help)());

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_INTERNAL_H_
