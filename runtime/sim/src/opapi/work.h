// What phase 1 leaves in an executor for phase 2 to run.
#ifndef ACLNN_SIM_OPAPI_WORK_H_
#define ACLNN_SIM_OPAPI_WORK_H_

#include <string>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/internal.h"
#include "opapi/elementwise.h"

namespace aclsim {

// An API (or an argument combination) without a kernel: phase 1 passed, phase 2 says so.
class NotSimulatedWork : public ExecutorWork {
 public:
  NotSimulatedWork(const char* api, std::string why) : api_(api), why_(std::move(why)) {}
  aclnnStatus Run(aclrtStream stream) override;
  bool HasKernel() const override { return false; }

 private:
  const char* api_;
  std::string why_;
};

// One elementwise kernel over copies of the tensors' descriptions taken in phase 1 (so the
// caller may destroy its aclTensor objects between the phases, as CANN allows).
class ElementwiseWork : public ExecutorWork {
 public:
  struct Tensor {
    const char* name;
    TensorDesc desc;
    Operand operand;
  };

  ElementwiseWork(const char* api, BoundKernel kernel) : api_(api), kernel_(kernel) {}
  ~ElementwiseWork() override {
    if (kernel_.destroy) kernel_.destroy(kernel_.kernel);
  }
  ElementwiseWork(const ElementwiseWork&) = delete;
  ElementwiseWork& operator=(const ElementwiseWork&) = delete;

  aclnnStatus Run(aclrtStream stream) override;

  ComputeType type = ComputeType::kFloat32;
  std::vector<int64_t> shape;
  Tensor out;
  std::vector<Tensor> inputs;

 private:
  // Every element of the view lies in one live device allocation; else sets the message.
  aclnnStatus CheckMemory(const Tensor& tensor) const;

  const char* api_;
  BoundKernel kernel_;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_WORK_H_
