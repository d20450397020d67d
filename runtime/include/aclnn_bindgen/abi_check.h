/* aclnn-bindgen: asserts at compile time that the included ABI headers give every enumerator
 * and status code the value runtime/include gives it.
 *
 * Include it after the headers under test (a CANN toolkit's acl/acl.h and aclnn/acl_meta.h, or
 * runtime/include's own, which is how the check's logic is tested without a CANN install) and
 * after "abi_expected.h", which runtime/binding/abi_dump.cpp writes from runtime/include:
 * one `#define ACLNN_BINDGEN_EXPECTED_<NAME> <value>` per name of abi_values.h.
 *
 * `#name` and `##name` keep the name unexpanded even where it is itself a macro (the ACLNN_*
 * status codes are), while the bare `(name)` expands to the value of the headers under test. */
#ifndef ACLNN_BINDGEN_ABI_CHECK_H_
#define ACLNN_BINDGEN_ABI_CHECK_H_

#include "aclnn_bindgen/abi_values.h"

#ifndef ACLNN_BINDGEN_EXPECTED_ACL_FLOAT
#error "include abi_expected.h (written by abi_dump from runtime/include) before abi_check.h"
#endif

#define ACLNN_BINDGEN_CHECK_VALUE(name)                                             \
  static_assert(static_cast<long long>(name) == ACLNN_BINDGEN_EXPECTED_##name,     \
                "ABI mismatch: " #name " differs between the CANN headers and runtime/include");
ACLNN_BINDGEN_ABI_VALUES(ACLNN_BINDGEN_CHECK_VALUE)
#undef ACLNN_BINDGEN_CHECK_VALUE

#endif /* ACLNN_BINDGEN_ABI_CHECK_H_ */
