// ops-transformer's mc2 operators (a computation fused with an HCCL collective over the communicator
// their group string names) on one simulated device: the collective of a one-rank communicator is the
// identity (all-reduce, all-gather and reduce-scatter of one rank return its own data), so the
// operator is its computation alone. That holds only for a group the simulated libhccl knows, and
// all of its communicators have one rank: any other group (none of this process, or libhccl not
// loaded at all) is refused by name, never computed as if alone.
#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "opapi/families/family.h"

namespace aclsim {
namespace {

// The simulated libhccl's rank count of the communicator named `group` (0: none), when the
// process has loaded that library (torch_npu links it); -1 when it has not.
int64_t GroupRankSize(const char* group) {
  void* library = dlopen("libhccl.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!library) return -1;
  using Lookup = uint32_t (*)(const char*);
  auto lookup = reinterpret_cast<Lookup>(dlsym(library, "aclsimHcclGroupRankSize"));
  const int64_t ranks = lookup ? static_cast<int64_t>(lookup(group)) : -1;
  dlclose(library);
  return ranks;
}

}  // namespace

aclnnStatus CheckOneRankGroup(const Call& call, const FamilySpec& family, int group_role, int reduce_role) {
  // A string role's text, null when the role is unbound or the caller passed none.
  auto text = [&](int role) -> const char* {
    const int index = role >= 0 ? family.roles[role] : -1;
    if (index < 0 || call.spec.params[index].kind != ParamKind::kString) return nullptr;
    return static_cast<const char*>(call.args[index].pointer);
  };
  const char* group = text(group_role);
  if (!group) return RejectParam(call, family, group_role, ACLNN_ERR_PARAM_NULLPTR, "is a null pointer");
  const int64_t ranks = GroupRankSize(group);
  if (ranks != 1) {
    return RejectInvalid(call, family, group_role,
                         "\"" + std::string(group) + "\" " +
                             (ranks < 0   ? "names no communicator: the process has not loaded the simulated libhccl"
                              : ranks == 0 ? "names no live communicator of the simulated libhccl"
                                           : "has " + std::to_string(ranks) + " ranks: only one rank is simulated"));
  }
  if (reduce_role >= 0 && family.roles[reduce_role] >= 0) {
    const char* op = text(reduce_role);
    if (!op || std::string(op) != "sum") {
      return RejectInvalid(call, family, reduce_role,
                           std::string("\"") + (op ? op : "(null)") + "\" is not \"sum\", the one the page supports");
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
