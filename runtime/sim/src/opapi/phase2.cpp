// Phase 2 of every generated API (aclnnXxx): the executor, the workspace and the stream are
// checked, then the executor's work is queued on the stream (libascendcl runs it on the
// stream's worker) and the call returns. A NULL, unknown or already-run executor is an error,
// never a crash; a single-use executor is destroyed once its work has run (whatever its
// outcome), a repeatable one (aclSetAclOpExecutorRepeatable) stays until aclDestroyAclOpExecutor.
#include <cstdint>
#include <string>

#include "aclnn_sim/entry.h"
#include "common/dtypes.h"
#include "common/internal.h"
#include "opapi/work.h"

namespace aclsim {

aclnnStatus NotSimulatedWork::Run(aclrtStream) {
  return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
              std::string(api_) + " is not simulated" + (why_.empty() ? std::string() : " " + why_));
}

aclnnStatus ElementwiseWork::CheckMemory(const Tensor& tensor) const {
  const TensorDesc& t = tensor.desc;
  if (t.numel() == 0) return ACLNN_SUCCESS;
  if (!t.data) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api_) + ": " + tensor.name + ": the tensor's data is a null pointer");
  }
  // The lowest and highest element offsets of the view (bounded at tensor creation).
  int64_t low = t.offset, high = t.offset;
  for (size_t d = 0; d < t.view.size(); ++d) {
    const int64_t reach = (t.view[d] - 1) * t.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  // In 128 bits: the element offsets are bounded in int64, their byte offsets need not be.
  const __int128 size = static_cast<__int128>(DTypeSize(t.dtype));
  const __int128 base = static_cast<__int128>(reinterpret_cast<uintptr_t>(t.data));
  const __int128 begin = base + low * size, end = base + (static_cast<__int128>(high) + 1) * size;
  DeviceRange range;
  const bool addressable = begin >= 0 && end <= static_cast<__int128>(UINTPTR_MAX);
  if (!addressable || !FindDeviceAllocation(reinterpret_cast<const void*>(static_cast<uintptr_t>(begin)), &range) ||
      end > static_cast<__int128>(range.base + range.size)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                std::string(api_) + ": " + tensor.name + ": the view's elements (element offsets " + std::to_string(low) +
                    " to " + std::to_string(high) +
                    " from the data pointer) do not lie inside one live device allocation (aclrtMalloc)");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ElementwiseWork::Run(aclrtStream) {
  if (aclnnStatus s = CheckMemory(out)) return s;
  for (const Tensor& input : inputs) {
    if (aclnnStatus s = CheckMemory(input)) return s;
  }
  std::vector<Operand> operands;
  operands.reserve(inputs.size());
  for (const Tensor& input : inputs) operands.push_back(input.operand);
  RunElementwise(shape, out.operand, operands, type, kernel_);
  return ACLNN_SUCCESS;
}

aclnnStatus Run(const ApiSpec& spec, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                aclrtStream stream) {
  const std::string api = spec.name;
  if (!executor) return Fail(ACLNN_ERR_PARAM_NULLPTR, api + ": executor is a null pointer");
  std::shared_ptr<Executor> held = AcquireExecutor(executor, spec.name);
  if (!held) return ACLNN_ERR_PARAM_INVALID;  // the message is set
  const uint64_t needed = held->workspace_size;
  if (needed > 0) {
    if (workspaceSize < needed) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api + ": workspaceSize " + std::to_string(workspaceSize) +
                                               " is smaller than the " + std::to_string(needed) + " bytes " + api +
                                               "GetWorkspaceSize asked for");
    }
    if (!workspace) {
      return Fail(ACLNN_ERR_PARAM_NULLPTR, api + ": workspace is a null pointer, but " + api + "GetWorkspaceSize asked for " +
                                               std::to_string(needed) + " bytes");
    }
    DeviceRange range;
    const uintptr_t start = reinterpret_cast<uintptr_t>(workspace);
    if (!FindDeviceAllocation(workspace, &range) || range.base + range.size - start < needed) {
      return Fail(ACLNN_ERR_PARAM_INVALID, api + ": workspace is not a live device allocation of at least " +
                                               std::to_string(needed) + " bytes");
    }
  }
  if (stream && !IsLiveStream(stream)) return Fail(ACLNN_ERR_PARAM_INVALID, api + ": stream is not a live stream");
  if (!held->work->HasKernel()) return held->work->Run(stream);
  return LaunchKernel(stream, std::move(held), workspace);
}

}  // namespace aclsim
