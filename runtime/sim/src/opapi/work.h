// What phase 1 leaves in an executor for phase 2 to run.
#ifndef ACLNN_SIM_OPAPI_WORK_H_
#define ACLNN_SIM_OPAPI_WORK_H_

#include <string>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/internal.h"
#include "opapi/elementwise.h"

namespace aclsim {

// Workspace requested when a kernel gathers or converts (as CANN asks for workspace when it
// inserts Cast or Contiguous steps); the simulator does not write it, but phase 2 checks it.
inline constexpr uint64_t kConversionWorkspace = 512;

// The compute type for the promoted input dtype of an elementwise kernel, or false when the
// engine cannot compute it (phase1.cpp); its name in messages.
bool ChooseComputeType(aclDataType promoted, IntegerMath math, ComputeType* type);
const char* ComputeTypeName(ComputeType type);

// An API (or an argument combination) without a kernel: phase 1 passed (its checks are the page's,
// and CANN's unit tests judge them), and the work fails on the stream with 561003
// (ACLNN_ERR_INNER_FIND_KERNEL_ERROR), naming what is not simulated, which the stream's next
// synchronisation reports. Not from the execute call itself: torch_npu runs that on its task-queue
// thread, whose queue, after one failed call, dropped every later operator without an error (their
// outputs zeros); a fault on the stream it reports at the synchronisation, and goes on.
// The Python bindings ask before launching (aclsimExecutorNotSimulated) and raise at the call.
class NotSimulatedWork : public ExecutorWork {
 public:
  NotSimulatedWork(const char* api, const std::string& why)
      : message_(std::string(api) + " is not simulated" + (why.empty() ? std::string() : " " + why)) {}
  aclnnStatus Run(aclrtStream stream) override;
  const char* NotSimulated() const override { return message_.c_str(); }

 private:
  std::string message_;
};

// Every element of a tensor's view (element offsets low..high from `data`) lies in one live device
// allocation; else a fault of `api`'s kernel with a message naming the parameter. Work runs it
// on each of its tensors before touching their memory.
aclnnStatus CheckTensorMemory(const char* api, const char* name, const void* data, aclDataType dtype, int64_t low,
                              int64_t high, bool empty);

// One elementwise kernel over what phase 1 read of the tensors (so the caller may destroy its
// aclTensor objects between the phases, as CANN allows): each tensor's engine operand, and the
// element range its view spans, which the kernel checks against the live allocations first.
// Its arrays are sized to the call and come from the pool, as the work itself does.
class ElementwiseWork : public ExecutorWork {
 public:
  struct Extent {
    const char* name = "";   // the parameter, for the fault's message
    const void* data = nullptr;
    int64_t low = 0, high = 0;  // element offsets (from `data`) of the view's lowest and highest elements
    bool empty = true;
    aclDataType dtype = ACL_DT_UNDEFINED;
  };
  static constexpr size_t kMaxInputs = kMaxOperands - 1;

  ElementwiseWork(const char* api, BoundKernel kernel, size_t inputs);
  ~ElementwiseWork() override;
  ElementwiseWork(const ElementwiseWork&) = delete;
  ElementwiseWork& operator=(const ElementwiseWork&) = delete;

  aclnnStatus Run(aclrtStream stream) override;
  // Run's two steps, for work made of several kernels (the foreach family) that checks every
  // tensor before any is written: the memory checks, then the kernel.
  aclnnStatus CheckTensors() const;
  void Compute();

  // Fills the operand and extent of the output (index -1) or of input `index`.
  void SetTensor(int index, const char* name, const TensorDesc& tensor, size_t out_rank);
  // Input `index` as one value read at every element (a scalar list's member): `value` (of
  // `dtype`) is host memory that outlives the work, with no device extent to check.
  void SetConstant(int index, const char* name, const void* value, aclDataType dtype, size_t out_rank);
  bool IsDirect() const;

  ComputeType type = ComputeType::kFloat32;
  Dims shape;

 private:
  // Every element of the view lies in one live device allocation; else sets the message.
  aclnnStatus CheckMemory(const Extent& extent) const;

  const char* api_;
  BoundKernel kernel_;
  size_t input_count_;
  Extent out_extent_;
  Operand out_;
  Extent* extents_;    // per input
  Operand* operands_;  // per input, contiguous for the engine
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_WORK_H_
