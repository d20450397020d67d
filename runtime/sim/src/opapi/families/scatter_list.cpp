// The scatter_list family: aclnnScatterList (torch_npu.npu_scatter_list and npu_scatter_list_ reach it
// through op-plugin, the first on clones of the list), in place on the list var of B tensors of one
// shape S:
//   updates [B, S with S[a] replaced by L <= S[a]], a = axis - 1 (axis normalised over updates' rank,
//   in (0, rank)), indice [B]: for each member b, unless maskOptional[b] is 0,
//     var[b][..., indice[b] + l, ...] = updates[b][..., l, ...]   for 0 <= l < L
//   (the page's var[i][j] = updates[k][j] when indices[k] = i, read with its shape rules: updates'
//   first dimension is the list's, its axis dimension at most var's, the rest equal).
// Refused by name: a two-column indice [B, 2] (the page says only that its second dimension is 2, not
// what the two columns hold: phase 2, 561003) and in phase 2 a window past var's dimension (the
// README's "不支持索引越界"); a reduce other than "update" is the semantics file's check (the page's
// row). Values move once through float (FLOAT, FLOAT16, BFLOAT16) or int64 (the integer dtypes): exact.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = ScatterListFamily;

enum Slot { kIndice, kUpdates, kMask, kFirstMember };

class ScatterListWork final : public FamilyWork {
 public:
  ScatterListWork(const char* api, int members) : FamilyWork(api, kFirstMember + members), members_(members) {}

  // Each member as [outer, extent, inner] along the scatter dimension; updates' window is `window` long.
  int64_t outer = 1, extent = 0, inner = 1, window = 0;
  bool has_mask = false;

 private:
  aclnnStatus Compute() override {
    std::vector<int64_t> starts(static_cast<size_t>(members_)), mask(static_cast<size_t>(members_), 1);
    GatherAs(tensor(kIndice), ComputeType::kInt64, starts.data());
    if (has_mask) GatherAs(tensor(kMask), ComputeType::kInt64, mask.data());
    for (int b = 0; b < members_; ++b) {
      const int64_t start = starts[static_cast<size_t>(b)];
      if (mask[static_cast<size_t>(b)] != 0 && (start < 0 || start > extent - window)) {  // no overflow
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kIndice).name + ": element " + std::to_string(b) +
                                         " is " + std::to_string(start) + ", whose window of " + std::to_string(window) +
                                         " leaves [0, " + std::to_string(extent) +
                                         ") (the page does not support an index out of range)");
      }
    }
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const int64_t member = outer * extent * inner, part = outer * window * inner;
      std::vector<T> updates(static_cast<size_t>(part * members_)), var(static_cast<size_t>(member));
      if (!updates.empty()) GatherAs(tensor(kUpdates), type, updates.data());
      for (int b = 0; b < members_; ++b) {
        if (mask[static_cast<size_t>(b)] == 0 || part == 0) continue;
        const TensorRef& target = tensor(kFirstMember + b);
        GatherAs(target, type, var.data());
        const T* src = updates.data() + b * part;
        const int64_t start = starts[static_cast<size_t>(b)];
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t l = 0; l < window; ++l) {
            const T* from = src + (o * window + l) * inner;
            T* to = var.data() + (o * extent + start + l) * inner;
            for (int64_t i = 0; i < inner; ++i) to[i] = from[i];
          }
        }
        ScatterFrom(var.data(), type, target);
      }
    });
    return ACLNN_SUCCESS;
  }

  int members_;
};

}  // namespace

aclnnStatus PlanScatterList(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const std::vector<TensorDesc>* list = RoleTensorList(call, family, F::Role::kVar);
  const TensorDesc* indice = RoleTensor(call, family, F::Role::kIndice);
  const TensorDesc* updates = RoleTensor(call, family, F::Role::kUpdates);
  if (!list || !indice || !updates) return Decline(call, work, "without var, indice or updates");
  const ParamRejecter reject(call, family);
  if (list->empty()) return reject(F::Role::kVar, "is empty");
  const int64_t members = static_cast<int64_t>(list->size());
  const TensorDesc& first = list->front();
  ComputeType type;
  if (!FamilyComputeType(updates->dtype, true, &type)) return DeclineDtype(call, work, updates->dtype);
  for (int64_t b = 0; b < members; ++b) {
    const TensorDesc& t = (*list)[static_cast<size_t>(b)];
    if (t.dtype != updates->dtype) {
      return reject(F::Role::kVar, "member " + std::to_string(b) + ": dtype " + DTypeName(t.dtype) + " is not updates' " +
                                       DTypeName(updates->dtype));
    }
    if (t.view != first.view) {
      return reject(F::Role::kVar, "member " + std::to_string(b) + ": shape " + DimsText(t.view) +
                                       " is not the first member's " + DimsText(first.view));
    }
  }
  const int64_t rank = static_cast<int64_t>(first.view.size());
  if (rank < 1) return reject(F::Role::kVar, "members are zero-dimensional (the page asks for at least 1 dimension)");
  if (static_cast<int64_t>(updates->view.size()) != rank + 1 || updates->view[0] != members) {
    return reject(F::Role::kUpdates, "shape " + DimsText(updates->view) + " is not [" + std::to_string(members) +
                                         ", a member's shape " + DimsText(first.view) + " with axis at most its size]");
  }
  const int64_t axis_given = RoleInt(call, family, F::Role::kAxis, -2);
  const int64_t axis = axis_given < 0 ? axis_given + rank + 1 : axis_given;
  if (axis <= 0 || axis > rank) {
    return reject(F::Role::kAxis, std::to_string(axis_given) + " is not in (0, " + std::to_string(rank + 1) +
                                      ") once normalised over updates' rank");
  }
  std::unique_ptr<ScatterListWork> made(new ScatterListWork(call.spec.name, static_cast<int>(members)));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = first.view[static_cast<size_t>(d)], given = updates->view[static_cast<size_t>(d + 1)];
    if (d == axis - 1 ? given > size : given != size) {
      return reject(F::Role::kUpdates, "shape " + DimsText(updates->view) + " does not match the members' " +
                                           DimsText(first.view) + " at dimension " + std::to_string(d + 1));
    }
    if (d < axis - 1) made->outer *= size;
    if (d > axis - 1) made->inner *= size;
  }
  made->extent = first.view[static_cast<size_t>(axis - 1)];
  made->window = updates->view[static_cast<size_t>(axis)];
  if (indice->view.size() == 2 && indice->view[1] == 2 && indice->view[0] == members) {
    return Decline(call, work, "for a two-column indice [B, 2]: the page does not say what its columns hold");
  }
  if (indice->view != Dims{members}) {
    return reject(F::Role::kIndice, "shape " + DimsText(indice->view) + " is not [" + std::to_string(members) + "]");
  }
  const TensorDesc* mask = RoleTensor(call, family, F::Role::kMask);
  if (mask && mask->view != Dims{members}) {
    return reject(F::Role::kMask, "shape " + DimsText(mask->view) + " is not [" + std::to_string(members) + "]");
  }
  made->type = type;
  made->tensor(kIndice).Set(RoleName(call, family, F::Role::kIndice), *indice);
  made->tensor(kUpdates).Set(RoleName(call, family, F::Role::kUpdates), *updates);
  if (mask) {
    made->has_mask = true;
    made->tensor(kMask).Set(RoleName(call, family, F::Role::kMask), *mask);
  }
  for (int64_t b = 0; b < members; ++b) {
    const TensorDesc& member = (*list)[static_cast<size_t>(b)];
    made->tensor(kFirstMember + static_cast<int>(b)).Set(RoleName(call, family, F::Role::kVar), member);
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
