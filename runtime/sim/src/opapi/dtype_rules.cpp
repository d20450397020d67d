// For tests/test_dtype_agreement.py: CANN's 互推导关系 and 互转换关系 exactly as phase 1 applies
// them (aclsim::PromoteTypes and aclsim::CanCast, from the generated table), by aclDataType value.
#include "common/dtypes.h"

extern "C" __attribute__((visibility("default"))) int aclsimPromoteTypes(int a, int b) {
  aclDataType out = ACL_DT_UNDEFINED;
  return aclsim::PromoteTypes(static_cast<aclDataType>(a), static_cast<aclDataType>(b), &out) ? out : -1;
}

extern "C" __attribute__((visibility("default"))) int aclsimCanCast(int from, int to) {
  return aclsim::CanCast(static_cast<aclDataType>(from), static_cast<aclDataType>(to)) ? 1 : 0;
}
