// The box_overlap family: aclnnIou (every pair of bboxes [N, 4] and gtboxes [M, 4], corners, into overlap
// [N, M]: IoU or IoF with eps the pixel offset) and aclnnCIoU (Complete IoU of coordinate rows [4, N] and
// [4, M], centre and size when trans, every pair into [M, N] when isCross else box i with gtbox i into
// [1, N], and atanSub). The formulas are common/boxes.h's, which the aclop bridge's Iou and CIoU share
// (torch_npu's path below Ascend950). In float: the boxes are gathered into float buffers, the results
// scattered into the outputs' dtype. Declined by name: CIoU's mode "iof" (no source says what it divides the
// penalties by); Iou's aligned true never reaches the planner (semantics/boxes.toml's check refuses it, 561003:
// no source gives its output's shape).
#include <memory>
#include <string>
#include <vector>

#include "common/boxes.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = BoxOverlapFamily;

enum Slot { kBoxes, kGt, kOverlap, kAtanSub, kSlots };

class BoxOverlapWork final : public FamilyWork {
 public:
  explicit BoxOverlapWork(const char* api) : FamilyWork(api, kSlots) {}

  bool ciou = false, iof = false, trans = false, cross = true;
  float eps = 0.0f;
  int64_t n = 0, m = 0;

 private:
  aclnnStatus Compute() override {
    std::vector<float> b(static_cast<size_t>(n * 4)), g(static_cast<size_t>(m * 4));
    GatherAs(tensor(kBoxes), ComputeType::kFloat32, b.data());
    GatherAs(tensor(kGt), ComputeType::kFloat32, g.data());
    std::vector<float> overlap(static_cast<size_t>(tensor(kOverlap).numel()));
    if (!ciou) {  // rows of four corners; overlap [N, M]
      auto box = [](const std::vector<float>& f, int64_t i) {
        const auto at = static_cast<size_t>(i * 4);
        return boxes::Box{f[at], f[at + 1], f[at + 2], f[at + 3]};
      };
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) overlap[static_cast<size_t>(i * m + j)] = boxes::PixelIou(box(b, i), box(g, j), eps, iof);
      }
      ScatterFrom(overlap.data(), ComputeType::kFloat32, tensor(kOverlap));
      return ACLNN_SUCCESS;
    }
    // coordinate rows [4, count]; overlap and atanSub [M, N] when cross, else [1, N]
    std::vector<float> atan_sub(overlap.size());
    auto box = [this](const std::vector<float>& f, int64_t count, int64_t i) {
      return boxes::RowBox(f[static_cast<size_t>(i)], f[static_cast<size_t>(count + i)], f[static_cast<size_t>(2 * count + i)],
                           f[static_cast<size_t>(3 * count + i)], trans);
    };
    for (int64_t j = 0; j < (cross ? m : 1); ++j) {
      for (int64_t i = 0; i < n; ++i) {
        const auto at = static_cast<size_t>(j * n + i);
        overlap[at] = boxes::CompleteIou(box(b, n, i), box(g, m, cross ? j : i), &atan_sub[at]);
      }
    }
    ScatterFrom(overlap.data(), ComputeType::kFloat32, tensor(kOverlap));
    ScatterFrom(atan_sub.data(), ComputeType::kFloat32, tensor(kAtanSub));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanBoxOverlap(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool ciou = family.op == F::Op::kCiou;
  const TensorDesc* b = RoleTensor(call, family, F::Role::kBboxes);
  const TensorDesc* g = RoleTensor(call, family, F::Role::kGtboxes);
  const TensorDesc* overlap = RoleTensor(call, family, F::Role::kOverlap);
  const TensorDesc* atan_sub = ciou ? RoleTensor(call, family, F::Role::kAtanSub) : nullptr;
  if (!b || !g || !overlap || (ciou && !atan_sub)) return Decline(call, work, "without its tensors");
  for (const TensorDesc* t : {b, g, overlap, atan_sub}) {
    if (t && !ComputesInFloat32(t->dtype)) return DeclineDtype(call, work, t->dtype);
  }
  const ParamRejecter reject(call, family);
  for (int role : {F::Role::kGtboxes, F::Role::kOverlap, F::Role::kAtanSub}) {
    const TensorDesc* t = role == F::Role::kGtboxes ? g : role == F::Role::kOverlap ? overlap : atan_sub;
    if (t && t->dtype != b->dtype) return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not bboxes'");
  }
  const std::string mode = RoleText(call, family, F::Role::kMode);
  if (mode != "iou" && mode != "iof") return reject(F::Role::kMode, "\"" + mode + "\" is neither \"iou\" nor \"iof\"");
  std::unique_ptr<BoxOverlapWork> made(new BoxOverlapWork(call.spec.name));
  made->ciou = ciou;
  made->iof = mode == "iof";
  Dims shape;
  if (!ciou) {
    for (const TensorDesc* t : {b, g}) {
      if (t->view.size() != 2 || t->view[1] != 4) {
        return reject(t == b ? F::Role::kBboxes : F::Role::kGtboxes, "shape " + DimsText(t->view) + " is not [count, 4]");
      }
    }
    made->n = b->view[0];
    made->m = g->view[0];
    made->eps = static_cast<float>(RoleNumber(call, family, F::Role::kEps, -1, 0.0));
    shape = Dims{made->n, made->m};
  } else {
    if (made->iof) {
      return Decline(call, work, std::string("for ") + RoleName(call, family, F::Role::kMode) +
                                     " \"iof\": no source says what it divides CIoU's penalties by");
    }
    for (const TensorDesc* t : {b, g}) {
      if (t->view.size() != 2 || t->view[0] != 4) {
        return reject(t == b ? F::Role::kBboxes : F::Role::kGtboxes, "shape " + DimsText(t->view) + " is not [4, count]");
      }
    }
    made->n = b->view[1];
    made->m = g->view[1];
    made->trans = RoleBool(call, family, F::Role::kTrans, false);
    made->cross = RoleBool(call, family, F::Role::kIsCross, true);
    if (!made->cross && made->m != made->n) {
      return reject(F::Role::kGtboxes, "shape " + DimsText(g->view) + " does not hold bboxes' " + std::to_string(made->n) +
                                           " boxes (" + RoleName(call, family, F::Role::kIsCross) + " false)");
    }
    shape = Dims{made->cross ? made->m : 1, made->n};
  }
  made->tensor(kBoxes).Set(RoleName(call, family, F::Role::kBboxes), *b);
  made->tensor(kGt).Set(RoleName(call, family, F::Role::kGtboxes), *g);
  const char* what = ciou ? (made->cross ? "[M, N]" : "[1, N]") : "[N, M]";
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOverlap, *overlap, shape, what, kOverlap)) return s;
  if (ciou) {
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAtanSub, *atan_sub, shape, what, kAtanSub)) return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
