// CANN's 互推导关系 (dtype promotion) and 互转换关系 (castability). CANN's tables are PyTorch's
// torch.promote_types and torch.can_cast for these dtypes; tests/test_sim_dtype_rules.py compares
// every pair with torch.
#include "opapi/dtype_rules.h"

#include "common/dtypes.h"

namespace aclsim {
namespace {

// The dtypes of PyTorch's promotion lattice, in the order of the table below.
constexpr aclDataType kLattice[] = {
    ACL_BOOL, ACL_UINT8, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_FLOAT16,
    ACL_BF16, ACL_FLOAT, ACL_DOUBLE, ACL_COMPLEX32, ACL_COMPLEX64, ACL_COMPLEX128,
};
constexpr int kLatticeSize = sizeof(kLattice) / sizeof(kLattice[0]);

// c10's promoteTypes table restricted to kLattice (indices into kLattice).
enum : int8_t { b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8 };
constexpr int8_t kPromote[kLatticeSize][kLatticeSize] = {
    /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c2, c4, c8},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c2, c4, c8},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c2, c4, c8},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c4, c8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8},
    /* c2 */ {c2, c2, c2, c2, c2, c2, c2, c4, c4, c8, c2, c4, c8},
    /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8},
    /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
};

constexpr int LatticeIndex(aclDataType dtype) {
  for (int i = 0; i < kLatticeSize; ++i) {
    if (kLattice[i] == dtype) return i;
  }
  return -1;
}

static_assert(kLattice[kPromote[LatticeIndex(ACL_UINT8)][LatticeIndex(ACL_INT8)]] == ACL_INT16, "u8 + i8");
static_assert(kLattice[kPromote[LatticeIndex(ACL_FLOAT16)][LatticeIndex(ACL_BF16)]] == ACL_FLOAT, "f16 + bf16");
static_assert(kLattice[kPromote[LatticeIndex(ACL_BF16)][LatticeIndex(ACL_COMPLEX32)]] == ACL_COMPLEX64, "bf16 + c32");

bool IsWideUnsigned(aclDataType dtype) { return dtype == ACL_UINT16 || dtype == ACL_UINT32 || dtype == ACL_UINT64; }

bool IsRealFloating(aclDataType dtype) {
  return dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_FLOAT || dtype == ACL_DOUBLE;
}

}  // namespace

bool PromoteTypes(aclDataType a, aclDataType b, aclDataType* out) {
  if (a == b) {
    *out = a;
    return FindDType(a) != nullptr;
  }
  // PyTorch promotes UINT16/32/64 only with the real floating types (the float wins).
  if (IsWideUnsigned(a) || IsWideUnsigned(b)) {
    const aclDataType other = IsWideUnsigned(a) ? b : a;
    if (!IsRealFloating(other)) return false;
    *out = other;
    return true;
  }
  const int ia = LatticeIndex(a), ib = LatticeIndex(b);
  if (ia < 0 || ib < 0) return false;  // FLOAT8_*, HIFLOAT8, INT4, ... promote with nothing else
  *out = kLattice[kPromote[ia][ib]];
  return true;
}

bool CanCast(aclDataType from, aclDataType to) {
  const DTypeInfo* f = FindDType(from);
  const DTypeInfo* t = FindDType(to);
  if (!f || !t) return false;
  if (from == to) return true;
  if (from == ACL_STRING || to == ACL_STRING) return false;
  auto floating = [](const DTypeInfo* info) {
    // The low-precision float formats are floating for the cast rules; INT4/UINT1 are integral.
    return info->category == DTypeCategory::kFloating ||
           (info->category == DTypeCategory::kExotic && info->dtype != ACL_INT4 && info->dtype != ACL_UINT1);
  };
  auto integral = [&](const DTypeInfo* info) {
    return info->category == DTypeCategory::kSigned || info->category == DTypeCategory::kUnsigned ||
           info->dtype == ACL_INT4 || info->dtype == ACL_UINT1;
  };
  if (f->category == DTypeCategory::kComplex && t->category != DTypeCategory::kComplex) return false;
  if (floating(f) && integral(t)) return false;
  if (f->category != DTypeCategory::kBool && t->category == DTypeCategory::kBool) return false;
  return true;
}

}  // namespace aclsim

// For tests/test_sim_dtype_rules.py, which compares every pair with torch.
extern "C" __attribute__((visibility("default"))) int aclsimPromoteTypes(int a, int b) {
  aclDataType out;
  return aclsim::PromoteTypes(static_cast<aclDataType>(a), static_cast<aclDataType>(b), &out) ? out : -1;
}

extern "C" __attribute__((visibility("default"))) int aclsimCanCast(int from, int to) {
  return aclsim::CanCast(static_cast<aclDataType>(from), static_cast<aclDataType>(to)) ? 1 : 0;
}
