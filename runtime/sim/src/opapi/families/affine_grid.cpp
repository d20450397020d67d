// The affine_grid family: aclnnAffineGrid (F.affine_grid reaches it through op-plugin's
// affine_grid_generator), as aten's CPU affine_grid_generator.
//   affine_grid  size [N, C, H, W] with theta [N, 2, 3]: out [N, H, W, 2], out[n, h, w] =
//                theta[n] @ (x_w, y_h, 1); size [N, C, D, H, W] with theta [N, 3, 4]: out
//                [N, D, H, W, 3], out[n, d, h, w] = theta[n] @ (x_w, y_h, z_d, 1). Along an axis of
//                k points the coordinates are linspace(-1, 1, k), scaled by (k - 1) / k unless
//                alignCorners (pixel centres), and 0 for k = 1.
// Sizes other than the page's ranks and shapes are refused by name. Computed in double, rounded
// once to theta's dtype; the batch is spread over the threads.
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = AffineGridFamily;

enum Slot { kTheta, kOut, kSlots };

class AffineGridWork final : public FamilyWork {
 public:
  explicit AffineGridWork(const char* api) : FamilyWork(api, kSlots) {}

  Dims size;  // N, C, then the spatial sizes (D,) H, W
  bool align_corners = false;

 private:
  // The coordinates of k points along an axis from -1 to 1 (aten's linspace_from_neg_one).
  std::vector<double> Axis(int64_t k) const {
    std::vector<double> at(static_cast<size_t>(k), 0.0);
    if (k <= 1) return at;
    for (int64_t i = 0; i < k; ++i) {
      double v = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(k - 1);
      if (!align_corners) v = v * static_cast<double>(k - 1) / static_cast<double>(k);
      at[static_cast<size_t>(i)] = v;
    }
    return at;
  }

  aclnnStatus Compute() override {
    const int64_t spatial = static_cast<int64_t>(size.size()) - 2;  // 2 or 3 coordinates per point
    const int64_t batch = size[0], cols = spatial + 1;
    int64_t points = 1;
    for (size_t d = 2; d < size.size(); ++d) points *= size[d];
    const int64_t total = batch * points * spatial;
    if (total == 0) return ACLNN_SUCCESS;
    const double* theta = static_cast<const double*>(ContiguousAs(tensor(kTheta), ComputeType::kFloat64, 0));
    // axes[0] is x (along W, the last dimension), axes[1] y (H), axes[2] z (D).
    std::vector<std::vector<double>> axes;
    for (int64_t a = 0; a < spatial; ++a) axes.push_back(Axis(size[size.size() - 1 - static_cast<size_t>(a)]));
    std::vector<double> out(static_cast<size_t>(total));
    ParallelFor(batch, [&](int64_t n) {
      const double* t = theta + n * spatial * cols;
      double* dst = out.data() + n * points * spatial;
      std::vector<double> base(static_cast<size_t>(cols), 1.0);
      for (int64_t p = 0; p < points; ++p) {
        int64_t rest = p;
        for (int64_t a = 0; a < spatial; ++a) {  // the last dimension varies fastest
          const int64_t extent = size[size.size() - 1 - static_cast<size_t>(a)];
          base[static_cast<size_t>(a)] = axes[static_cast<size_t>(a)][static_cast<size_t>(rest % extent)];
          rest /= extent;
        }
        for (int64_t r = 0; r < spatial; ++r) {
          double v = 0;
          for (int64_t c = 0; c < cols; ++c) v += t[r * cols + c] * base[static_cast<size_t>(c)];
          dst[p * spatial + r] = v;
        }
      }
    });
    ScatterFrom(out.data(), ComputeType::kFloat64, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanAffineGrid(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* theta = RoleTensor(call, family, F::Role::kTheta);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!theta || !out) return Decline(call, work, "without its tensors");
  ComputeType type;
  if (!FamilyComputeType(theta->dtype, false, &type) || IsIntegralType(theta->dtype)) {
    return DeclineDtype(call, work, theta->dtype);
  }
  const ParamRejecter reject(call, family);
  AffineGridWork* made = new AffineGridWork(call.spec.name);
  std::unique_ptr<AffineGridWork> owned(made);
  made->type = type;
  if (!RoleInts(call, family, F::Role::kSize, &made->size)) return Decline(call, work, "without size");
  const Dims& size = made->size;
  if (size.size() != 4 && size.size() != 5) {
    return reject(F::Role::kSize, DimsText(size) + " has " + std::to_string(size.size()) +
                                      " elements, not 4 (N, C, H, W) or 5 (N, C, D, H, W)");
  }
  for (int64_t e : size) {
    if (e < 0) return reject(F::Role::kSize, DimsText(size) + " has a negative size");
  }
  const int64_t spatial = static_cast<int64_t>(size.size()) - 2;
  const Dims theta_shape{size[0], spatial, spatial + 1};
  if (theta->view != theta_shape) {
    return reject(F::Role::kTheta, "shape " + DimsText(theta->view) + " is not " + DimsText(theta_shape) +
                                       " for size " + DimsText(size));
  }
  Dims out_shape{size[0]};
  for (size_t d = 2; d < size.size(); ++d) out_shape.push_back(size[d]);
  out_shape.push_back(spatial);
  made->align_corners = RoleBool(call, family, F::Role::kAlignCorners, false);
  made->tensor(kTheta).Set(RoleName(call, family, F::Role::kTheta), *theta);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, out_shape,
                                       "[N, (D,) H, W, 2 or 3] of size", kOut)) {
    return s;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
