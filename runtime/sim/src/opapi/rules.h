// Phase 1's checks of what a page states across parameters (the spec's RulesSpec): reserved
// parameters, dtype combinations, shape rules that a host argument decides, dimensions equal to
// another tensor's, sizes that must divide, and value ranges of host arguments (dim in [-rank,
// rank), index bounds). phase1.cpp calls them in CANN's order; each rejection names the page line
// it applied.
#ifndef ACLNN_SIM_OPAPI_RULES_H_
#define ACLNN_SIM_OPAPI_RULES_H_

#include <string>

#include "opapi/call.h"

namespace aclsim {

// " (page.md:LINE)": the page line a rejection applied, for the end of its message ("" for line 0).
std::string Where(const ApiSpec& spec, int line);

// A reserved parameter ("预留参数，暂未使用") that is not NULL.
aclnnStatus CheckReserved(const Call& call);
// The dtypes of the call match no row of the page's dtype-combination table for the chip.
aclnnStatus CheckCombinations(const Call& call);
// Shape rules, dimension equalities, divisibility of dimensions and their least lengths in bytes.
aclnnStatus CheckShapeRules(const Call& call);
// Array lengths, value ranges and divisibility of host arguments.
aclnnStatus CheckValueRules(const Call& call);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_RULES_H_
