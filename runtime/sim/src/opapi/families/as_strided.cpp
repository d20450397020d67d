// The as_strided family: aclnnAsStrided, torch.as_strided on self's elements taken in row-major
// order as the storage (the page: "x 用于提供被访问的底层存储"):
//   out[i_0, ..., i_{D-1}] = storage[storage_offset + sum over d of i_d * stride[d]], out [size].
// Phase 1 refuses by name what the page rules out (size and stride of other lengths or outside
// 1 to 8 elements, a negative stride or offset, storage_offset not one element) and a view that
// reaches past self's elements, which the device would read outside self. Elements move bit for
// bit (a copy through a strided view of the gathered storage).
#include <memory>
#include <string>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = AsStridedFamily;

enum Slot { kSelf, kOut, kSlots };

class AsStridedWork final : public FamilyWork {
 public:
  explicit AsStridedWork(const char* api) : FamilyWork(api, kSlots) {}

  Dims size, stride;
  int64_t offset = 0;

 private:
  aclnnStatus Compute() override {
    const TensorRef& self = tensor(kSelf);
    if (tensor(kOut).numel() == 0) return ACLNN_SUCCESS;
    const int64_t n = self.numel();
    char* storage = static_cast<char*>(Scratch(0, static_cast<size_t>(n) * DTypeSize(self.dtype)));
    CopyElements(self, DenseRef(storage, self.dtype, self.shape));
    TensorRef view = DenseRef(storage + offset * DTypeSize(self.dtype), self.dtype, size);
    view.strides = stride;
    CopyElements(view, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanAsStrided(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!self || !out) return Decline(call, work, "without self or out");
  if (!Moves(self->dtype) || self->dtype != out->dtype) {
    return Decline(call, work, std::string("from dtype ") + DTypeName(self->dtype) + " to " + DTypeName(out->dtype));
  }
  const ParamRejecter reject(call, family);
  std::unique_ptr<AsStridedWork> made(new AsStridedWork(call.spec.name));
  Dims offset;
  if (!RoleInts(call, family, F::Role::kSize, &made->size) || !RoleInts(call, family, F::Role::kStride, &made->stride)) {
    return Decline(call, work, "without size or stride");
  }
  const Dims& size = made->size;
  const Dims& stride = made->stride;
  if (size.empty() || size.size() > 8) return reject(F::Role::kSize, DimsText(size) + " does not have 1 to 8 elements");
  if (stride.size() != size.size()) {
    return reject(F::Role::kStride, DimsText(stride) + " does not have size's " + std::to_string(size.size()) + " elements");
  }
  if (RoleInts(call, family, F::Role::kStorageOffset, &offset)) {
    if (offset.size() != 1) return reject(F::Role::kStorageOffset, DimsText(offset) + " is not one element");
    made->offset = offset[0];
  }
  if (made->offset < 0) return reject(F::Role::kStorageOffset, std::to_string(made->offset) + " is negative");
  int64_t last = made->offset, elements = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0) return reject(F::Role::kSize, DimsText(size) + " has a negative size");
    if (stride[d] < 0) return reject(F::Role::kStride, DimsText(stride) + " has a negative stride");
    elements *= size[d];
    if (size[d] > 0) last += (size[d] - 1) * stride[d];
  }
  int64_t n = 1;
  for (int64_t e : self->view) n *= e;
  if (elements > 0 && last >= n) {
    return reject(F::Role::kSize, "the view of size " + DimsText(size) + ", stride " + DimsText(stride) + " and offset " +
                                      std::to_string(made->offset) + " reaches element " + std::to_string(last) +
                                      " of self's " + std::to_string(n));
  }
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, size, "size", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
