// aclnn-bindgen: the dtype table of the bindings: aclDataType <-> page names <-> NumPy.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "binding.h"

namespace aclnn_binding {
namespace {

using C = DTypeClass;

// One row per aclDataType the pages use. The NumPy names of bfloat16 and the float8 types are
// ml_dtypes'. Sub-byte and block-scaled types (INT4, FLOAT4/6, HIFLOAT8) have no host layout
// NumPy can hold, so no NumPy name.
constexpr DTypeInfo kDTypes[] = {
    {ACL_FLOAT, "FLOAT", "float32", 4, C::kFloating},
    {ACL_FLOAT16, "FLOAT16", "float16", 2, C::kFloating},
    {ACL_BF16, "BFLOAT16", "bfloat16", 2, C::kFloating},
    {ACL_DOUBLE, "DOUBLE", "float64", 8, C::kFloating},
    {ACL_INT8, "INT8", "int8", 1, C::kSigned},
    {ACL_INT16, "INT16", "int16", 2, C::kSigned},
    {ACL_INT32, "INT32", "int32", 4, C::kSigned},
    {ACL_INT64, "INT64", "int64", 8, C::kSigned},
    {ACL_UINT8, "UINT8", "uint8", 1, C::kUnsigned},
    {ACL_UINT16, "UINT16", "uint16", 2, C::kUnsigned},
    {ACL_UINT32, "UINT32", "uint32", 4, C::kUnsigned},
    {ACL_UINT64, "UINT64", "uint64", 8, C::kUnsigned},
    {ACL_BOOL, "BOOL", "bool", 1, C::kBool},
    {ACL_COMPLEX64, "COMPLEX64", "complex64", 8, C::kComplex},
    {ACL_COMPLEX128, "COMPLEX128", "complex128", 16, C::kComplex},
    {ACL_COMPLEX32, "COMPLEX32", nullptr, 4, C::kComplex},
    {ACL_FLOAT8_E5M2, "FLOAT8_E5M2", "float8_e5m2", 1, C::kFloating},
    {ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", "float8_e4m3fn", 1, C::kFloating},
    {ACL_FLOAT8_E8M0, "FLOAT8_E8M0", "float8_e8m0fnu", 1, C::kFloating},
    {ACL_HIFLOAT8, "HIFLOAT8", nullptr, 1, C::kFloating},
    {ACL_STRING, "STRING", nullptr, 0, C::kOther},
    {ACL_INT4, "INT4", nullptr, 0, C::kSigned},
    {ACL_UINT1, "UINT1", nullptr, 0, C::kUnsigned},
    {ACL_FLOAT6_E3M2, "FLOAT6_E3M2", nullptr, 0, C::kFloating},
    {ACL_FLOAT6_E2M3, "FLOAT6_E2M3", nullptr, 0, C::kFloating},
    {ACL_FLOAT4_E2M1, "FLOAT4_E2M1", nullptr, 0, C::kFloating},
    {ACL_FLOAT4_E1M2, "FLOAT4_E1M2", nullptr, 0, C::kFloating},
};

constexpr const DTypeInfo* find(aclDataType dtype) {
  for (const auto& row : kDTypes)
    if (row.acl == dtype) return &row;
  return nullptr;
}

// The element sizes the host copies rely on, checked against the C types they stand for.
static_assert(find(ACL_FLOAT)->itemsize == sizeof(float), "FLOAT is float");
static_assert(find(ACL_DOUBLE)->itemsize == sizeof(double), "DOUBLE is double");
static_assert(find(ACL_FLOAT16)->itemsize == sizeof(aclFloat16), "FLOAT16 is aclFloat16");
static_assert(find(ACL_INT64)->itemsize == sizeof(int64_t), "INT64 is int64_t");
static_assert(find(ACL_INT32)->itemsize == sizeof(int32_t), "INT32 is int32_t");
static_assert(find(ACL_INT16)->itemsize == sizeof(int16_t), "INT16 is int16_t");
static_assert(find(ACL_UINT64)->itemsize == sizeof(uint64_t), "UINT64 is uint64_t");
static_assert(find(ACL_BOOL)->itemsize == sizeof(bool), "BOOL is bool");
static_assert(find(ACL_COMPLEX128)->itemsize == 2 * sizeof(double), "COMPLEX128 is two doubles");
static_assert(find(ACL_COMPLEX64)->itemsize == 2 * sizeof(float), "COMPLEX64 is two floats");

// Promotion ranks within a class (higher wins).
int float_rank(aclDataType d) {
  switch (d) {
    case ACL_FLOAT16: return 1;
    case ACL_BF16: return 1;  // FLOAT16 with BFLOAT16 gives FLOAT, handled below
    case ACL_FLOAT: return 2;
    case ACL_DOUBLE: return 3;
    default: return 0;
  }
}

aclDataType signed_of_size(size_t size) {
  switch (size) {
    case 1: return ACL_INT8;
    case 2: return ACL_INT16;
    case 4: return ACL_INT32;
    default: return ACL_INT64;
  }
}

}  // namespace

const DTypeInfo* dtype_info(aclDataType dtype) { return find(dtype); }

const DTypeInfo* dtype_by_name(const std::string& raw) {
  std::string name = raw;
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.rfind("ACL_", 0) == 0) name = name.substr(4);
  if (name == "BF16") name = "BFLOAT16";
  for (const auto& row : kDTypes)
    if (name == row.name) return &row;
  return nullptr;
}

std::string dtype_name(aclDataType dtype) {
  const DTypeInfo* info = find(dtype);
  return info ? info->name : "aclDataType(" + std::to_string(static_cast<int>(dtype)) + ")";
}

aclDataType promote(aclDataType a, aclDataType b) {
  if (a == b) return a;
  const DTypeInfo* ia = find(a);
  const DTypeInfo* ib = find(b);
  if (ia == nullptr || ib == nullptr || ia->cls == C::kOther || ib->cls == C::kOther) return ACL_DT_UNDEFINED;
  if (ia->cls == C::kBool) return b;
  if (ib->cls == C::kBool) return a;
  if (ia->cls == C::kComplex || ib->cls == C::kComplex) {
    // A complex with a double (or COMPLEX128) needs double precision.
    bool wide = a == ACL_COMPLEX128 || b == ACL_COMPLEX128 || a == ACL_DOUBLE || b == ACL_DOUBLE;
    return wide ? ACL_COMPLEX128 : ACL_COMPLEX64;
  }
  if (ia->cls == C::kFloating && ib->cls == C::kFloating) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == 0 || rb == 0) return ACL_DT_UNDEFINED;  // float8 and friends do not promote
    if (ra == rb) return ACL_FLOAT;                    // FLOAT16 with BFLOAT16
    return ra > rb ? a : b;
  }
  if (ia->cls == C::kFloating) return float_rank(a) ? a : ACL_DT_UNDEFINED;
  if (ib->cls == C::kFloating) return float_rank(b) ? b : ACL_DT_UNDEFINED;
  if (ia->cls == ib->cls) return ia->itemsize >= ib->itemsize ? a : b;
  // One signed, one unsigned: the smallest signed type holding both (UINT8 with INT8 is INT16).
  const DTypeInfo* s = ia->cls == C::kSigned ? ia : ib;
  const DTypeInfo* u = ia->cls == C::kSigned ? ib : ia;
  if (s->itemsize > u->itemsize) return s->acl;
  return signed_of_size(std::min<size_t>(8, 2 * u->itemsize));
}

aclDataType from_numpy(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const auto size = static_cast<size_t>(dtype.itemsize());
  // ml_dtypes registers its types as NumPy user dtypes (type numbers from NPY_USERDEF on),
  // recognised by name: their kind says little (bfloat16 is 'V', float8_e5m2 'f' of size 1).
  constexpr int kFirstUserDType = 256;  // NPY_USERDEF
  if (dtype.attr("num").cast<int>() >= kFirstUserDType) {
    const std::string name = py::str(dtype.attr("name"));
    for (const auto& row : kDTypes)
      if (row.numpy != nullptr && name == row.numpy && row.itemsize == size) return row.acl;
    return ACL_DT_UNDEFINED;
  }
  switch (kind) {
    case 'b': return ACL_BOOL;
    case 'i': return size == 1 ? ACL_INT8 : size == 2 ? ACL_INT16 : size == 4 ? ACL_INT32 : size == 8 ? ACL_INT64 : ACL_DT_UNDEFINED;
    case 'u': return size == 1 ? ACL_UINT8 : size == 2 ? ACL_UINT16 : size == 4 ? ACL_UINT32 : size == 8 ? ACL_UINT64 : ACL_DT_UNDEFINED;
    case 'f': return size == 2 ? ACL_FLOAT16 : size == 4 ? ACL_FLOAT : size == 8 ? ACL_DOUBLE : ACL_DT_UNDEFINED;
    case 'c': return size == 8 ? ACL_COMPLEX64 : size == 16 ? ACL_COMPLEX128 : ACL_DT_UNDEFINED;
    default: return ACL_DT_UNDEFINED;  // strings, objects, datetimes, structured types
  }
}

py::dtype to_numpy(aclDataType dtype) {
  const DTypeInfo* info = find(dtype);
  if (info == nullptr || info->numpy == nullptr)
    throw py::type_error("NumPy has no dtype for " + dtype_name(dtype));
  const std::string name = info->numpy;
  if (name == "bfloat16" || name.rfind("float8", 0) == 0) {
    py::object type = py::module_::import("ml_dtypes").attr(name.c_str());
    return py::dtype::from_args(type);
  }
  return py::dtype(name);
}

uint16_t float_to_half(float value) {
  // IEEE 754 binary16, round to nearest even.
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to infinity
  if (x < 0x38800000u) {                                               // subnormal or zero
    float f;
    std::memcpy(&f, &x, sizeof f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(f * 16777216.0f)));
  }
  const uint32_t rounded = x + 0xfffu + ((x >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

uint16_t float_to_bfloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace aclnn_binding
