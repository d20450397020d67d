/* aclnn-bindgen: what every aclnnop/aclnn_<op>.h header includes. */
#ifndef ACLNN_BINDGEN_ACLNN_BASE_H_
#define ACLNN_BINDGEN_ACLNN_BASE_H_

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

#endif /* ACLNN_BINDGEN_ACLNN_BASE_H_ */
