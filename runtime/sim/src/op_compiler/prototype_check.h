// The aclop bridge's check of the prototypes it calls aclnn APIs through. libopapi's entries are
// looked up by name (dlsym), so a file of aclop types writes out the phase-1 type of each API it
// calls (Phase1<...>, bridge.h) and, after its namespace, checks it against the generated prototype:
//
//   ACLOP_SAME(aclnnIm2col, Im2colApi);
//
// The check is made where the build's pages declare the API (the generated aclnn_sim/declared_apis.h
// includes every aclnnop/ header of the build and defines ACLNN_DECLARES_<api> as 1 for each API
// they declare) and skipped where they do not (a build of other pages).
#ifndef ACLNN_SIM_OP_COMPILER_PROTOTYPE_CHECK_H_
#define ACLNN_SIM_OP_COMPILER_PROTOTYPE_CHECK_H_

#include <type_traits>

#include "aclnn_sim/declared_apis.h"

namespace aclsim::aclop {

// A prototype as the ABI sees it: a pointer to const T passes as a pointer to T. Pages of the same API
// disagree on an output's const (aclnnSoftMarginLoss's `out` is `const aclTensor*` on one page of the
// corpus, `aclTensor*` on another); the call is the same, and the check is of the call.
template <class T> struct AbiParam { using type = T; };
template <class T> struct AbiParam<const T*> { using type = T*; };
template <class F> struct AbiPrototype;
template <class R, class... Args> struct AbiPrototype<R (*)(Args...)> {
  using type = R (*)(typename AbiParam<Args>::type...);
};

}  // namespace aclsim::aclop

#define ACLOP_SAME(api, Type) ACLOP_SAME_WHEN(ACLNN_DECLARES_##api, api, Type)

// A macro cannot hold an #ifdef, so whether ACLNN_DECLARES_<api> is 1 is read by expansion (the
// Linux kernel's IS_ENABLED): as 1 it pastes into ACLOP_PROBE_1, whose "0," shifts a 1 into second
// place; left undefined it pastes into a name that expands to nothing else, and 0 stays second.
#define ACLOP_SAME_WHEN(declared, api, Type) ACLOP_SAME_IF(ACLOP_IS_ONE(declared), api, Type)
#define ACLOP_PROBE_1 0,
#define ACLOP_IS_ONE(value) ACLOP_SECOND_OF(ACLOP_PROBE_##value)
#define ACLOP_SECOND_OF(probe) ACLOP_SECOND(probe 1, 0, 0)
#define ACLOP_SECOND(first, second, ...) second
#define ACLOP_SAME_IF(bit, api, Type) ACLOP_SAME_IF_BIT(bit, api, Type)
#define ACLOP_SAME_IF_BIT(bit, api, Type) ACLOP_SAME_##bit(api, Type)
#define ACLOP_SAME_1(api, Type)                                                                   \
  static_assert(std::is_same_v<aclsim::aclop::AbiPrototype<decltype(&api##GetWorkspaceSize)>::type, \
                               aclsim::aclop::AbiPrototype<aclsim::aclop::Type>::type>,                \
                #api)
#define ACLOP_SAME_0(api, Type) static_assert(true, #api " is not declared by the build's pages")

#endif  // ACLNN_SIM_OP_COMPILER_PROTOTYPE_CHECK_H_
