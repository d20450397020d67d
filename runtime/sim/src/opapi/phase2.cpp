// Phase 2 of every generated API (aclnnXxx): the executor, the workspace and the stream are
// checked, then the executor's work is queued on the stream (libascendcl runs it on the
// stream's worker) and the call returns. A NULL, unknown or already-run executor is an error,
// never a crash; a single-use executor is destroyed once its work has run (whatever its
// outcome), a repeatable one (aclSetAclOpExecutorRepeatable) stays until aclDestroyAclOpExecutor.
#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include "aclnn_sim/entry.h"
#include "common/dtypes.h"
#include "common/internal.h"
#include "opapi/blas.h"
#include "opapi/work.h"

namespace aclsim {

aclnnStatus NotSimulatedWork::Run(aclrtStream) { return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, message_); }

ElementwiseWork::ElementwiseWork(const char* api, BoundKernel kernel, size_t inputs)
    : api_(api), kernel_(kernel), input_count_(inputs) {
  extents_ = static_cast<Extent*>(PoolAllocate(sizeof(Extent) * std::max<size_t>(inputs, 1)));
  operands_ = static_cast<Operand*>(PoolAllocate(sizeof(Operand) * std::max<size_t>(inputs, 1)));
  for (size_t k = 0; k < inputs; ++k) {
    new (&extents_[k]) Extent();
    new (&operands_[k]) Operand();
  }
}

ElementwiseWork::~ElementwiseWork() {
  if (kernel_.destroy) kernel_.destroy(kernel_.kernel);
  for (size_t k = 0; k < input_count_; ++k) {
    extents_[k].~Extent();
    operands_[k].~Operand();
  }
  PoolFree(extents_, sizeof(Extent) * std::max<size_t>(input_count_, 1));
  PoolFree(operands_, sizeof(Operand) * std::max<size_t>(input_count_, 1));
}

void ElementwiseWork::SetTensor(int index, const char* name, const TensorDesc& t, size_t out_rank) {
  Extent& extent = index < 0 ? out_extent_ : extents_[index];
  Operand& operand = index < 0 ? out_ : operands_[index];
  extent.name = name;
  extent.data = t.data;
  extent.dtype = t.dtype;
  extent.empty = t.numel() == 0;
  // The lowest and highest element offsets of the view (bounded at tensor creation).
  extent.low = extent.high = t.offset;
  for (size_t d = 0; d < t.view.size(); ++d) {
    const int64_t reach = (t.view[d] - 1) * t.strides[d];
    (reach < 0 ? extent.low : extent.high) += reach;
  }
  // The engine's operand, with the strides of `out_rank` output dimensions (leading dimensions
  // added, broadcast dimensions given stride 0).
  const uintptr_t first = reinterpret_cast<uintptr_t>(t.data) +
                          static_cast<uintptr_t>(t.offset) * static_cast<uintptr_t>(DTypeSize(t.dtype));
  operand.first = reinterpret_cast<char*>(first);
  operand.dtype = t.dtype;
  operand.strides.assign(out_rank, 0);
  const size_t lead = out_rank - t.view.size();
  for (size_t d = 0; d < t.view.size(); ++d) operand.strides[lead + d] = t.view[d] == 1 ? 0 : t.strides[d];
}

bool ElementwiseWork::IsDirect() const { return aclsim::IsDirect(shape, out_, operands_, input_count_, type); }

aclnnStatus ElementwiseWork::CheckMemory(const Extent& extent) const {
  return CheckTensorMemory(api_, extent.name, extent.data, extent.dtype, extent.low, extent.high, extent.empty);
}

aclnnStatus CheckTensorMemory(const char* api, const char* name, const void* data, aclDataType dtype, int64_t low,
                              int64_t high, bool empty) {
  if (empty) return ACLNN_SUCCESS;
  if (!data) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": " + name + ": the tensor's data is a null pointer");
  }
  // In 128 bits: the element offsets are bounded in int64, their byte offsets need not be.
  const __int128 size = static_cast<__int128>(DTypeSize(dtype));
  const __int128 base = static_cast<__int128>(reinterpret_cast<uintptr_t>(data));
  const __int128 begin = base + low * size, end = base + (static_cast<__int128>(high) + 1) * size;
  DeviceRange range;
  const bool addressable = begin >= 0 && end <= static_cast<__int128>(UINTPTR_MAX);
  if (!addressable || !FindDeviceAllocation(reinterpret_cast<const void*>(static_cast<uintptr_t>(begin)), &range) ||
      end > static_cast<__int128>(range.base + range.size)) {
    return Fail(ACLNN_ERR_PARAM_INVALID,
                std::string(api) + ": " + name + ": the view's elements (element offsets " + std::to_string(low) +
                    " to " + std::to_string(high) +
                    " from the data pointer) do not lie inside one live device allocation (aclrtMalloc)");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus ElementwiseWork::CheckTensors() const {
  if (aclnnStatus s = CheckMemory(out_extent_)) return s;
  for (size_t k = 0; k < input_count_; ++k) {
    if (aclnnStatus s = CheckMemory(extents_[k])) return s;
  }
  return ACLNN_SUCCESS;
}

void ElementwiseWork::Compute() { RunElementwise(shape, out_, operands_, input_count_, type, kernel_); }

aclnnStatus ElementwiseWork::Run(aclrtStream) {
  if (aclnnStatus s = CheckTensors()) return s;
  Compute();
  return ACLNN_SUCCESS;
}

void ElementwiseWork::SetConstant(int index, const char* name, const void* value, aclDataType dtype, size_t out_rank) {
  extents_[index] = Extent();
  extents_[index].name = name;  // empty: nothing on the device to check
  Operand& operand = operands_[index];
  operand.first = static_cast<char*>(const_cast<void*>(value));
  operand.dtype = dtype;
  operand.strides.assign(out_rank, 0);
}

aclnnStatus Run(const ApiSpec& spec, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                aclrtStream stream) {
  const char* api = spec.name;  // messages only: a std::string here would be an allocation per call
  if (!executor) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": executor is a null pointer");
  std::shared_ptr<Executor> held = AcquireExecutor(executor, spec.name);
  if (!held) return ACLNN_ERR_PARAM_INVALID;  // the message is set
  const uint64_t needed = held->workspace_size;
  if (needed > 0) {
    if (workspaceSize < needed) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": workspaceSize " + std::to_string(workspaceSize) +
                                               " is smaller than the " + std::to_string(needed) + " bytes " + api +
                                               "GetWorkspaceSize asked for");
    }
    if (!workspace) {
      return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": workspace is a null pointer, but " + api +
                                               "GetWorkspaceSize asked for " +
                                               std::to_string(needed) + " bytes");
    }
    DeviceRange range;
    const uintptr_t start = reinterpret_cast<uintptr_t>(workspace);
    if (!FindDeviceAllocation(workspace, &range) || range.base + range.size - start < needed) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": workspace is not a live device allocation of at least " +
                                               std::to_string(needed) + " bytes");
    }
  }
  if (stream && !IsLiveStream(stream)) {
    return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": stream is not a live stream");
  }
  // OpenBLAS opens for the kernel path before the first launch registers the fork handlers.
  std::string why;
  if (!LoadBlas(&why)) return Fail(ACLNN_ERR_RUNTIME_ERROR, std::string(api) + ": " + why);
  return LaunchKernel(stream, std::move(held), workspace);
}

}  // namespace aclsim
