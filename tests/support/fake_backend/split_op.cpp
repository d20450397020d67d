// An op library of the kind CANN splits libopapi into: one symbol only this library exports.
#include "aclnn/acl_meta.h"
extern "C" __attribute__((visibility("default"))) aclnnStatus aclnnOnlyInSplitGetWorkspaceSize(uint64_t* ws, aclOpExecutor**) {
  *ws = 0;
  return ACLNN_SUCCESS;
}
