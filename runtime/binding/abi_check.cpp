// aclnn-bindgen: the compile-time ABI check. Compiled against the header set the bindings use
// (a CANN toolkit's include/ when one is present); fails the build, naming the value, when an
// enumerator or status code differs from runtime/include. Contains no code.
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "abi_expected.h"
#include "aclnn_bindgen/abi_check.h"
