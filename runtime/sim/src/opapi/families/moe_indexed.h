// What the mixture-of-experts routing families (moe_routing.cpp, moe_expert_tokens.cpp, moe_token.cpp,
// moe_re_routing.cpp) share: a row of a [rows, H] tensor as a tensor of its own, and the work whose
// device-data indices phase 2 checks before using them.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_MOE_INDEXED_H_
#define ACLNN_SIM_OPAPI_FAMILIES_MOE_INDEXED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {

// Row i of a [rows, H] tensor, as a tensor of its own.
inline TensorRef Row(const TensorRef& t, int64_t i) {
  TensorRef row = t;
  row.first += i * t.strides[0] * static_cast<int64_t>(DTypeSize(t.dtype));
  row.shape = Dims{t.shape[1]};
  row.strides = Dims{t.strides[1]};
  return row;
}

// A work whose device-data indices phase 2 checks before using them: an index the device's kernel would
// fault on (or answer wrongly for) fails the call naming its tensor.
class IndexedWork : public FamilyWork {
 protected:
  IndexedWork(const char* api, int tensors) : FamilyWork(api, tensors) {}

  // A tensor's elements as int64 (its indices, counts or marks), row-major: all of them, as phase 1
  // shaped the tensor to the count the kernel reads.
  std::vector<int64_t> Int64s(int slot) const {
    std::vector<int64_t> values(static_cast<size_t>(tensor(slot).numel()));
    if (!values.empty()) GatherAs(tensor(slot), ComputeType::kInt64, values.data());
    return values;
  }
  aclnnStatus OutOfRange(int slot, int64_t at, int64_t value, int64_t bound, const std::string& what) const {
    return BadIndex(slot, at, value, "outside [0, " + std::to_string(bound) + ") (" + what + ")");
  }
  // A tensor's elements in float (a scratch buffer of its own each), or null when it has none.
  const float* Floats(int slot, int scratch, int64_t count) {
    return count ? static_cast<const float*>(ContiguousAs(tensor(slot), ComputeType::kFloat32, scratch)) : nullptr;
  }
  aclnnStatus BadIndex(int slot, int64_t at, int64_t value, const std::string& why) const {
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(slot).name + ": element " + std::to_string(at) +
                                     " is " + std::to_string(value) + ", " + why + "; the device's kernel faults on it");
  }
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_MOE_INDEXED_H_
