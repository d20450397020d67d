// The coalesce family: aclnnCoalesceSparse, the merging of a sparse COO tensor's duplicate indices from
// op-plugin's own torch.unique of the flattened indices: uniqueLen [M] (the distinct flattened indices,
// whose length M is the result's entry count), uniqueIndices [nnz] (each entry's position among them),
// indices [nnz, ndim], values [nnz, ...] ->
//   newIndices[uniqueIndices[i]] = indices[i],  newValues[j] = sum of values[i] with uniqueIndices[i] = j
// (the derived page's formula, torch's coalesce; entry order, the last entry's indices where several are
// sent to one position, which op-plugin's never differ). The sum is written, not added to newValues
// (op-plugin zero-fills it, so the two readings agree); a position with no entry is 0. Positions are
// device data, refused in phase 2 outside [0, M). Sums in the values' compute type (float, or int64 for
// integers, wrapped back to the values' dtype).
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = CoalesceFamily;

enum Slot { kUniqueIndices, kIndices, kValues, kNewIndices, kNewValues, kSlots };

class CoalesceWork final : public FamilyWork {
 public:
  explicit CoalesceWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t entries = 0, unique = 0, ndim = 0, row = 0;  // row: the elements of one entry's value

 private:
  aclnnStatus Compute() override {
    std::vector<int64_t> position(static_cast<size_t>(entries)), indices(static_cast<size_t>(entries * ndim));
    GatherAs(tensor(kUniqueIndices), ComputeType::kInt64, position.data());
    for (int64_t i = 0; i < entries; ++i) {
      if (position[static_cast<size_t>(i)] < 0 || position[static_cast<size_t>(i)] >= unique) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kUniqueIndices).name + ": element " + std::to_string(i) +
                                         " is " + std::to_string(position[static_cast<size_t>(i)]) + ", outside [0, " +
                                         std::to_string(unique) + ") (the device's kernel faults on it)");
      }
    }
    GatherAs(tensor(kIndices), ComputeType::kInt64, indices.data());
    std::vector<int64_t> new_indices(static_cast<size_t>(unique * ndim), 0);
    for (int64_t i = 0; i < entries; ++i) {
      const int64_t j = position[static_cast<size_t>(i)];
      for (int64_t d = 0; d < ndim; ++d) new_indices[static_cast<size_t>(j * ndim + d)] = indices[static_cast<size_t>(i * ndim + d)];
    }
    ScatterFrom(new_indices.data(), ComputeType::kInt64, tensor(kNewIndices));
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> values(static_cast<size_t>(entries * row)), sums(static_cast<size_t>(unique * row), T{});
      GatherAs(tensor(kValues), type, values.data());
      for (int64_t i = 0; i < entries; ++i) {
        const int64_t j = position[static_cast<size_t>(i)];
        for (int64_t k = 0; k < row; ++k) sums[static_cast<size_t>(j * row + k)] += values[static_cast<size_t>(i * row + k)];
      }
      ScatterFrom(sums.data(), type, tensor(kNewValues));
    });
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanCoalesce(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int roles[] = {F::Role::kUniqueLen, F::Role::kUniqueIndices, F::Role::kIndices, F::Role::kValues,
                       F::Role::kNewIndices, F::Role::kNewValues};
  const TensorDesc* t[6];
  for (int k = 0; k < 6; ++k) {
    t[k] = RoleTensor(call, family, roles[k]);
    if (!t[k]) return Decline(call, work, std::string("without ") + RoleName(call, family, roles[k]));
  }
  const TensorDesc &unique_len = *t[0], &positions = *t[1], &indices = *t[2], &values = *t[3], &new_indices = *t[4],
                   &new_values = *t[5];
  const ParamRejecter reject(call, family);
  for (int k : {0, 1, 2, 4}) {
    if (t[k]->dtype != ACL_INT32 && t[k]->dtype != ACL_INT64) return DeclineDtype(call, work, t[k]->dtype);
  }
  std::unique_ptr<CoalesceWork> made(new CoalesceWork(call.spec.name));
  if (!FamilyComputeType(values.dtype, true, &made->type) || IsComplexDType(values.dtype)) {
    return DeclineDtype(call, work, values.dtype);
  }
  if (new_values.dtype != values.dtype) {
    return reject(F::Role::kNewValues, std::string("dtype ") + DTypeName(new_values.dtype) + " is not values'");
  }
  if (unique_len.view.size() != 1) return reject(F::Role::kUniqueLen, "shape " + DimsText(unique_len.view) + " is not [M]");
  if (positions.view.size() != 1) return reject(F::Role::kUniqueIndices, "shape " + DimsText(positions.view) + " is not [nnz]");
  made->unique = unique_len.view[0];
  made->entries = positions.view[0];
  if (indices.view.size() != 2 || indices.view[0] != made->entries) {
    return reject(F::Role::kIndices, "shape " + DimsText(indices.view) + " is not [nnz, ndim] with nnz " + std::to_string(made->entries));
  }
  made->ndim = indices.view[1];
  if (values.view.empty() || values.view[0] != made->entries) {
    return reject(F::Role::kValues, "shape " + DimsText(values.view) + " is not [nnz, ...] with nnz " + std::to_string(made->entries));
  }
  made->row = 1;
  Dims merged = values.view;
  merged[0] = made->unique;
  for (size_t d = 1; d < values.view.size(); ++d) made->row *= values.view[d];
  made->tensor(kUniqueIndices).Set(RoleName(call, family, F::Role::kUniqueIndices), positions);
  made->tensor(kIndices).Set(RoleName(call, family, F::Role::kIndices), indices);
  made->tensor(kValues).Set(RoleName(call, family, F::Role::kValues), values);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kNewIndices, new_indices, Dims{made->unique, made->ndim},
                                       "[M, ndim]", kNewIndices)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kNewValues, new_values, merged, "[M, values' ...]", kNewValues)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
