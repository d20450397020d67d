// For tests/bindings/test_dtype_agreement.py: CANN's 互推导关系 and 互转换关系 and the kernels' result
// dtype rules exactly as phase 1 applies them (aclsim::PromoteTypes, aclsim::CanCast,
// aclnn_bindgen::ResultDType, from the generated table), by aclDataType value.
#include "common/dtypes.h"

extern "C" __attribute__((visibility("default"))) int aclsimPromoteTypes(int a, int b) {
  aclDataType out = ACL_DT_UNDEFINED;
  return aclsim::PromoteTypes(static_cast<aclDataType>(a), static_cast<aclDataType>(b), &out) ? out : -1;
}

extern "C" __attribute__((visibility("default"))) int aclsimCanCast(int from, int to) {
  return aclsim::CanCast(static_cast<aclDataType>(from), static_cast<aclDataType>(to)) ? 1 : 0;
}

// The result dtype phase 1 checks out= against, for a kernel's result rule (its enumerator's
// value) and the promoted dtype.
extern "C" __attribute__((visibility("default"))) int aclsimResultDType(int rule, int promoted) {
  return aclnn_bindgen::ResultDType(static_cast<aclnn_bindgen::ResultRule>(rule), static_cast<aclDataType>(promoted));
}
