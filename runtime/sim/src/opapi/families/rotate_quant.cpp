// The rotate_quant family (aclnnRotateQuant, torch_npu.npu_rotate_quant) as its page states it for
// Atlas A2/A3: x [M, N] (FLOAT16/BFLOAT16), each K consecutive elements of a row multiplied by
// rotation [K, K], Y = (x.reshape(-1, K) @ rotation).reshape(M, N) (OpenBLAS's sgemm, in float);
// then symmetric dynamic quantisation per row (quant_row.h): scaleOut[i] = max|Y[i]| / 127,
// yOut = round(Y / scaleOut) saturated to INT8, roundMode "rint" half to even or "floor".
// Declined by name (561003): the Ascend950 MX outputs (FLOAT4_E2M1, FLOAT8_E4M3FN/E5M2 with their
// FLOAT8_E8M0 scales), the INT32-packed INT4 yOut, and roundMode "round", which the page lists beside
// "rint" without saying how it differs. The page's A2/A3 constraints (alpha NULL, axis -1 or 1,
// scaleAlg 0, dstTypeMax 0.0, N a multiple of K and of 8 within [128, 16000], K within [16, 1024])
// are its 161002; trans false is the semantics file's check.
#include <cblas.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_row.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = RotateQuantFamily;

enum Slot { kX, kRotation, kOut, kScaleOut, kSlots };

class RotateQuantWork final : public FamilyWork {
 public:
  explicit RotateQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  bool floor = false;  // roundMode "floor"; else "rint"

 private:
  aclnnStatus Compute() override {
    const int64_t rows = tensor(kX).shape[0], width = tensor(kX).shape[1], k = tensor(kRotation).shape[0];
    if (rows == 0) return ACLNN_SUCCESS;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    const float* rotation = static_cast<const float*>(ContiguousAs(tensor(kRotation), ComputeType::kFloat32, 1));
    std::vector<float> y(static_cast<size_t>(rows * width));
    const int blocks = static_cast<int>(rows * width / k), kk = static_cast<int>(k);
    scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blocks, kk, kk, 1.0f, x, kk, rotation, kk, 0.0f,
                      y.data(), kk);
    std::vector<int64_t> q(y.size());
    std::vector<float> scales(static_cast<size_t>(rows));
    // roundMode: "floor", or "rint" (half to even: QuantiseRow's own rounding).
    double (*const round)(double) = floor ? static_cast<double (*)(double)>(std::floor)
                                          : static_cast<double (*)(double)>(std::nearbyint);
    ParallelFor(rows, [&](int64_t r) {
      const float* row = y.data() + r * width;
      float offset = 0;
      QuantiseRow(width, [row](int64_t j) { return row[j]; }, false, -128, 127, &scales[static_cast<size_t>(r)], &offset,
                  q.data() + r * width, round);
    });
    ScatterFrom(q.data(), ComputeType::kInt64, tensor(kOut));
    ScatterFrom(scales.data(), ComputeType::kFloat32, tensor(kScaleOut));
    return ACLNN_SUCCESS;
  }
};

}  // namespace

aclnnStatus PlanRotateQuant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* rotation = RoleTensor(call, family, F::Role::kRotation);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* scale_out = RoleTensor(call, family, F::Role::kScaleOut);
  if (!x || !rotation || !out || !scale_out) return Decline(call, work, "without its tensors");
  if (out->dtype != ACL_INT8 || scale_out->dtype != ACL_FLOAT) {
    return Decline(call, work, std::string("for yOut of dtype ") + DTypeName(out->dtype) + " and scaleOut of dtype " +
                                   DTypeName(scale_out->dtype) +
                                   " (only INT8 and FLOAT, the per-row quantisation, are simulated)");
  }
  const char* given_mode = family.has(F::Role::kRoundMode) ? CallString(call, family.role(F::Role::kRoundMode)) : nullptr;
  const std::string mode = given_mode && *given_mode ? given_mode : "rint";  // the page: NULL is "rint"
  if (mode == "round") {
    return Decline(call, work, "for roundMode \"round\" (the page lists it beside \"rint\" without saying how it differs)");
  }
  const ParamRejecter reject(call, family);
  if (mode != "rint" && mode != "floor") return reject(F::Role::kRoundMode, "\"" + mode + "\" is not rint, round or floor");
  if (RoleTensor(call, family, F::Role::kAlpha)) return reject(F::Role::kAlpha, "is given (the page takes NULL alone here)");
  if (x->view.size() != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [M, N]");
  const int64_t rows = x->view[0], width = x->view[1];
  const int64_t axis = RoleInt(call, family, F::Role::kAxis, -1);
  if (axis != -1 && axis != 1) return reject(F::Role::kAxis, std::to_string(axis) + " is not -1 or 1");
  const int64_t scale_alg = RoleInt(call, family, F::Role::kScaleAlg, 0);
  if (scale_alg != 0) return reject(F::Role::kScaleAlg, std::to_string(scale_alg) + " is not 0");
  const double dst_max = RoleNumber(call, family, F::Role::kDstMax, -1, 0.0);
  if (dst_max != 0.0) return reject(F::Role::kDstMax, std::to_string(dst_max) + " is not 0.0");
  if (rotation->view.size() != 2 || rotation->view[0] != rotation->view[1]) {
    return reject(F::Role::kRotation, "shape " + DimsText(rotation->view) + " is not a square [K, K]");
  }
  const int64_t k = rotation->view[0];
  if (k < 16 || k > 1024) return reject(F::Role::kRotation, "K " + std::to_string(k) + " is outside [16, 1024]");
  if (width < 128 || width > 16000 || width % k != 0 || width % 8 != 0) {
    return reject(F::Role::kX, "N " + std::to_string(width) + " is not a multiple of K " + std::to_string(k) +
                                   " and of 8 within [128, 16000]");
  }
  if (rotation->dtype != x->dtype) {
    return reject(F::Role::kRotation, std::string("dtype ") + DTypeName(rotation->dtype) + " is not x's " + DTypeName(x->dtype));
  }
  auto made = std::make_unique<RotateQuantWork>(call.spec.name);
  made->floor = mode == "floor";
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kRotation).Set(RoleName(call, family, F::Role::kRotation), *rotation);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *scale_out, Dims{rows}, "[M]", kScaleOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
