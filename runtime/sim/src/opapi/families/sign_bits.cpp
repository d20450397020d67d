// The sign_bits family: 1-bit Adam's sign packing, as torch_npu's npu_sign_bits_pack and
// npu_sign_bits_unpack (the pages state no formula; torch_npu's documentation gives the bits):
//   pack    self [n] (FLOAT, FLOAT16) -> out [size, ceil(n / 8) / size] (UINT8): bit k of byte j
//           (from the lowest) is 1 where self[8 j + k] >= 0, the bits past n 0;
//   unpack  self [m] (UINT8) -> out [size, 8 m / size] (dtype: FLOAT, FLOAT16): element 8 j + k is
//           +1 where bit k of self[j] is set, else -1.
// The shapes the pages state are refused by name in phase 1 (out's first dimension not size, its
// elements not the packed count; unpack's out not of dtype). A NaN packs as a clear bit (NaN >= 0
// is false), as PyTorch compares.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = SignBitsFamily;

enum Slot { kSelf, kOut, kSlots };

class SignBitsWork final : public FamilyWork {
 public:
  SignBitsWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kSelf).numel(), m = tensor(kOut).numel();
    if (op_ == F::Op::kPack) {
      const float* x = static_cast<const float*>(ContiguousAs(tensor(kSelf), ComputeType::kFloat32, 0));
      std::vector<int64_t> bytes(static_cast<size_t>(m), 0);
      for (int64_t i = 0; i < n; ++i) {
        if (x[i] >= 0) bytes[static_cast<size_t>(i / 8)] |= int64_t{1} << (i % 8);
      }
      ScatterFrom(bytes.data(), ComputeType::kInt64, tensor(kOut));
    } else {
      const int64_t* bytes = static_cast<const int64_t*>(ContiguousAs(tensor(kSelf), ComputeType::kInt64, 0));
      std::vector<float> signs(static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) signs[static_cast<size_t>(i)] = (bytes[i / 8] >> (i % 8)) & 1 ? 1.0f : -1.0f;
      ScatterFrom(signs.data(), ComputeType::kFloat32, tensor(kOut));
    }
    return ACLNN_SUCCESS;
  }

  int op_;
};

}  // namespace

aclnnStatus PlanSignBits(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!self || !out) return Decline(call, work, "without self or out");
  const ParamRejecter reject(call, family);
  const bool pack = op == F::Op::kPack;
  const bool floating = self->dtype == ACL_FLOAT || self->dtype == ACL_FLOAT16;
  if (pack ? !floating || out->dtype != ACL_UINT8 : self->dtype != ACL_UINT8 || !(out->dtype == ACL_FLOAT || out->dtype == ACL_FLOAT16)) {
    return Decline(call, work, std::string("from dtype ") + DTypeName(self->dtype) + " to " + DTypeName(out->dtype));
  }
  if (!pack) {
    const aclDataType dtype = RoleDType(call, family, F::Role::kOutDtype, out->dtype);
    if (dtype != out->dtype) {
      return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not " +
                                       DTypeName(dtype) + ", which " + RoleName(call, family, F::Role::kOutDtype) + " names");
    }
  }
  if (self->view.size() != 1) return reject(F::Role::kSelf, "shape " + DimsText(self->view) + " is not one-dimensional");
  const int64_t size = RoleInt(call, family, F::Role::kSize, 0);
  const int64_t n = self->view[0];
  const int64_t total = pack ? (n + 7) / 8 : n * 8;
  if (size <= 0 || total % size != 0) {
    return reject(F::Role::kSize, std::to_string(size) + " does not divide the " + std::to_string(total) +
                                      (pack ? " packed bytes" : " unpacked signs"));
  }
  std::unique_ptr<SignBitsWork> made(new SignBitsWork(call.spec.name, op));
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, Dims{size, total / size},
                                       pack ? "[size, ceil(n / 8) / size]" : "[size, 8 n / size]", kOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
