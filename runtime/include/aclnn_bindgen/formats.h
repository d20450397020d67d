/* aclnn-bindgen: aclFormat values that the pages name and not every CANN header set declares.
 *
 * DHWCN (31) is in the pages' format tables and in runtime/include/acl/acl_base.h, but the acl_base.h
 * that torch_npu 2.13 ships does not declare it. Code that must also compile against such a header
 * set (the simulator and the bindings, built with ACLNN_CANN_HEADERS) names it through this constant. */
#ifndef ACLNN_BINDGEN_FORMATS_H_
#define ACLNN_BINDGEN_FORMATS_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
namespace aclnn_bindgen {
inline constexpr aclFormat kFormatDHWCN = static_cast<aclFormat>(31);
}  // namespace aclnn_bindgen
#endif

#endif /* ACLNN_BINDGEN_FORMATS_H_ */
