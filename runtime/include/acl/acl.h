/* aclnn-bindgen: the umbrella header the pages' examples include ("acl/acl.h"). */
#ifndef ACLNN_BINDGEN_ACL_H_
#define ACLNN_BINDGEN_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "acl/acl_op.h"

#endif /* ACLNN_BINDGEN_ACL_H_ */
