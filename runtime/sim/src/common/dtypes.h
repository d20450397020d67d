// The simulator's one table of aclDataType facts: the page name, the element size and the
// category that the promotion and cast rules work on. Every library of the simulator reads
// dtypes through this table, so a dtype is described in one place.
#ifndef ACLNN_SIM_COMMON_DTYPES_H_
#define ACLNN_SIM_COMMON_DTYPES_H_

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace aclsim {

enum class DTypeCategory : uint8_t {
  kBool,
  kUnsigned,  // UINT8..UINT64
  kSigned,    // INT8..INT64
  kFloating,  // FLOAT16, BFLOAT16, FLOAT, DOUBLE
  kComplex,
  kExotic,  // packed or low-precision formats (INT4, FLOAT8_*, HIFLOAT8, ...) and STRING
};

struct DTypeInfo {
  aclDataType dtype;
  const char* name;  // as the pages write it (gen.ir.DType)
  uint8_t size;      // bytes per element; 0 for packed sub-byte types and STRING
  DTypeCategory category;
};

// Sorted by aclDataType value. The static_asserts below keep the table and the ABI enum in step.
inline constexpr DTypeInfo kDTypes[] = {
    {ACL_FLOAT, "FLOAT", 4, DTypeCategory::kFloating},
    {ACL_FLOAT16, "FLOAT16", 2, DTypeCategory::kFloating},
    {ACL_INT8, "INT8", 1, DTypeCategory::kSigned},
    {ACL_INT32, "INT32", 4, DTypeCategory::kSigned},
    {ACL_UINT8, "UINT8", 1, DTypeCategory::kUnsigned},
    {ACL_INT16, "INT16", 2, DTypeCategory::kSigned},
    {ACL_UINT16, "UINT16", 2, DTypeCategory::kUnsigned},
    {ACL_UINT32, "UINT32", 4, DTypeCategory::kUnsigned},
    {ACL_INT64, "INT64", 8, DTypeCategory::kSigned},
    {ACL_UINT64, "UINT64", 8, DTypeCategory::kUnsigned},
    {ACL_DOUBLE, "DOUBLE", 8, DTypeCategory::kFloating},
    {ACL_BOOL, "BOOL", 1, DTypeCategory::kBool},
    {ACL_STRING, "STRING", 0, DTypeCategory::kExotic},
    {ACL_COMPLEX64, "COMPLEX64", 8, DTypeCategory::kComplex},
    {ACL_COMPLEX128, "COMPLEX128", 16, DTypeCategory::kComplex},
    {ACL_BF16, "BFLOAT16", 2, DTypeCategory::kFloating},
    {ACL_INT4, "INT4", 0, DTypeCategory::kExotic},
    {ACL_UINT1, "UINT1", 0, DTypeCategory::kExotic},
    {ACL_COMPLEX32, "COMPLEX32", 4, DTypeCategory::kComplex},
    {ACL_HIFLOAT8, "HIFLOAT8", 1, DTypeCategory::kExotic},
    {ACL_FLOAT8_E5M2, "FLOAT8_E5M2", 1, DTypeCategory::kExotic},
    {ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", 1, DTypeCategory::kExotic},
    {ACL_FLOAT8_E8M0, "FLOAT8_E8M0", 1, DTypeCategory::kExotic},
    {ACL_FLOAT6_E3M2, "FLOAT6_E3M2", 1, DTypeCategory::kExotic},
    {ACL_FLOAT6_E2M3, "FLOAT6_E2M3", 1, DTypeCategory::kExotic},
    {ACL_FLOAT4_E2M1, "FLOAT4_E2M1", 0, DTypeCategory::kExotic},
    {ACL_FLOAT4_E1M2, "FLOAT4_E1M2", 0, DTypeCategory::kExotic},
};

inline constexpr const DTypeInfo* FindDType(int value) {
  for (const DTypeInfo& info : kDTypes) {
    if (static_cast<int>(info.dtype) == value) return &info;
  }
  return nullptr;
}

static_assert(FindDType(ACL_FLOAT)->size == 4 && FindDType(ACL_FLOAT16)->size == 2, "float sizes");
static_assert(FindDType(ACL_BF16)->size == 2 && FindDType(ACL_DOUBLE)->size == 8, "float sizes");
static_assert(FindDType(ACL_INT64)->size == sizeof(int64_t) && FindDType(ACL_BOOL)->size == sizeof(bool),
              "integer sizes");
static_assert(FindDType(ACL_COMPLEX128)->size == 16, "complex sizes");
static_assert(FindDType(ACL_DT_UNDEFINED) == nullptr, "UNDEFINED is not a dtype");
// DType sets are 64-bit masks indexed by the aclDataType value.
static_assert(ACL_FLOAT4_E1M2 < 64, "dtype masks hold every aclDataType");

inline constexpr uint64_t DTypeBit(aclDataType dtype) { return uint64_t{1} << static_cast<int>(dtype); }

inline const char* DTypeName(int value) {
  const DTypeInfo* info = FindDType(value);
  return info ? info->name : "UNDEFINED";
}

// The element size in bytes; 0 for dtypes without whole-byte elements.
inline size_t DTypeSize(aclDataType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info ? info->size : 0;
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_DTYPES_H_
