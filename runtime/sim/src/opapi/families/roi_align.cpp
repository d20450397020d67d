// The roi_align family: aclnnROIAlign (self [N, C, H, W] pooled over rois [R, 5] into out [R, C,
// pooledHeight, pooledWidth]) and aclnnROIAlignBackward (its adjoint: gradOutput [R, C, pooledHeight,
// pooledWidth] into out of xdiffShape [N, C, H, W]). The geometry is common/roi_align.h's, which the aclop
// bridge's ROIAlign and ROIAlignGrad share (torch_npu's path where libopapi lacks these APIs). In float: the
// operands are gathered into float buffers, the result scattered into out's dtype. roiEndMode other than 0
// and 3 is declined by name (no source says what 1 and 2 change); a RoI's batch index is device data, read
// toward zero in phase 2 and refused there outside [0, N).
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/roi_align.h"
#include "opapi/families/family.h"

namespace aclsim {
namespace {

using F = RoiAlignFamily;

enum Slot { kSource, kRois, kOut, kSlots };  // kSource: self (forward) or gradOutput (backward)

class RoiAlignWork final : public FamilyWork {
 public:
  explicit RoiAlignWork(const char* api) : FamilyWork(api, kSlots) {}

  bool backward = false;
  int64_t images = 0, count = 0;
  roi_align::Geometry geometry{};

 private:
  aclnnStatus Compute() override {
    std::vector<float> rois(static_cast<size_t>(count * 5));
    GatherAs(tensor(kRois), ComputeType::kFloat32, rois.data());
    std::vector<int64_t> image(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) {
      image[static_cast<size_t>(r)] = roi_align::BatchIndex(rois[static_cast<size_t>(r * 5)], images);
      if (image[static_cast<size_t>(r)] < 0) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kRois).name + ": RoI " + std::to_string(r) +
                                         " has batch index " + std::to_string(rois[static_cast<size_t>(r * 5)]) +
                                         ", outside [0, " + std::to_string(images) + ") (the device's kernel faults on it)");
      }
    }
    std::vector<float> source(static_cast<size_t>(tensor(kSource).numel()));
    GatherAs(tensor(kSource), ComputeType::kFloat32, source.data());
    std::vector<float> out(static_cast<size_t>(tensor(kOut).numel()), 0.0f);
    if (backward) {
      geometry.Backward(source.data(), rois.data(), image.data(), count, out.data());
    } else {
      geometry.Forward(source.data(), rois.data(), image.data(), count, out.data());
    }
    ScatterFrom(out.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanRoiAlign(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const bool backward = family.op == F::Op::kRoiAlignBackward;
  const int source_role = backward ? F::Role::kGradOutput : F::Role::kSelf;
  const TensorDesc* source = RoleTensor(call, family, source_role);
  const TensorDesc* rois = RoleTensor(call, family, F::Role::kRois);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!source || !rois || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  for (const TensorDesc* t : {source, rois, out}) {
    if (!ComputesInFloat32(t->dtype)) return DeclineDtype(call, work, t->dtype);
  }
  if (rois->dtype != source->dtype) return reject(F::Role::kRois, std::string("dtype ") + DTypeName(rois->dtype) + " is not " +
                                                                      RoleName(call, family, source_role) + "'s");
  if (out->dtype != source->dtype) return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not " +
                                                                    RoleName(call, family, source_role) + "'s");
  const int64_t mode = RoleInt(call, family, F::Role::kRoiEndMode, 0);
  if (!roi_align::ModelledEndMode(mode)) {
    return Decline(call, work, std::string("for ") + RoleName(call, family, F::Role::kRoiEndMode) + " " + std::to_string(mode) +
                                   ": only " + roi_align::ModelledEndModes() + " are simulated, no source says what the others change");
  }
  const int64_t ph = RoleInt(call, family, F::Role::kPooledHeight, 0), pw = RoleInt(call, family, F::Role::kPooledWidth, 0);
  const int64_t samples = RoleInt(call, family, F::Role::kSampleNum, 0);
  const double scale = RoleNumber(call, family, F::Role::kSpatialScale, -1, 0.0);
  if (ph <= 0) return reject(F::Role::kPooledHeight, std::to_string(ph) + " is not positive");
  if (pw <= 0) return reject(F::Role::kPooledWidth, std::to_string(pw) + " is not positive");
  if (samples < 0) return reject(F::Role::kSampleNum, std::to_string(samples) + " is negative");
  if (!(scale > 0)) return reject(F::Role::kSpatialScale, std::to_string(scale) + " is not positive");
  Dims map;
  if (backward) {
    if (!RoleInts(call, family, F::Role::kXdiffShape, &map) || map.size() != 4) {
      return reject(F::Role::kXdiffShape, "is not 4 dimensions [N, C, H, W]");
    }
    for (int64_t d : map) {
      if (d < 0) return reject(F::Role::kXdiffShape, DimsText(map) + " has a negative dimension");
    }
  } else {
    map = source->view;
    if (map.size() != 4) return reject(F::Role::kSelf, "shape " + DimsText(map) + " is not [N, C, H, W]");
  }
  const Dims& r = rois->view;
  if (r.size() != 2 || r[1] != 5) return reject(F::Role::kRois, "shape " + DimsText(r) + " is not [R, 5]");
  std::unique_ptr<RoiAlignWork> made(new RoiAlignWork(call.spec.name));
  made->backward = backward;
  made->images = map[0];
  made->count = r[0];
  made->geometry = {map[1], map[2], map[3], ph, pw, samples, static_cast<float>(scale), mode == 3};
  const Dims pooled{r[0], map[1], ph, pw};
  if (made->count > 0 && map[2] * map[3] == 0) return reject(source_role, "the map " + DimsText(map) + " has no pixel to sample");
  if (backward) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kGradOutput, source, pooled, "[R, C, pooledHeight, pooledWidth]")) return s;
  }
  made->tensor(kSource).Set(RoleName(call, family, source_role), *source);
  made->tensor(kRois).Set(RoleName(call, family, F::Role::kRois), *rois);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, backward ? map : pooled,
                                       backward ? "xdiffShape" : "[R, C, pooledHeight, pooledWidth]", kOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
