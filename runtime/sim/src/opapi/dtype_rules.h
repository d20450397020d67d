// CANN's dtype promotion (互推导关系) and castability (互转换关系) rules.
#ifndef ACLNN_SIM_OPAPI_DTYPE_RULES_H_
#define ACLNN_SIM_OPAPI_DTYPE_RULES_H_

#include "acl/acl_base.h"

namespace aclsim {

// The promoted dtype of `a` and `b` (torch.promote_types); false when none exists.
bool PromoteTypes(aclDataType a, aclDataType b, aclDataType* out);

// Whether a value of `from` may be cast to `to` (torch.can_cast): no floating -> integral, no
// complex -> real, and BOOL only from BOOL.
bool CanCast(aclDataType from, aclDataType to);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_DTYPE_RULES_H_
