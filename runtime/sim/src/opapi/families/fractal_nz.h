// A matrix operand stored in FRACTAL_NZ, as the WeightNz kernels read their weights (matmul.cpp's B,
// mla_prolog.cpp's weights: torch_npu's npu_format_cast(w, 29)): a [batch..., K, N] view whose storage
// [batch..., X1, Y1, Y0, X0] holds, per batch, a Y x X matrix P in Y0 x X0 fractals, P = B (the view's
// strides row-major) or P = B^T (the view transposed: a Linear's weight.t()). NzFractals sees the
// fractals as row-major [Y1 * Y0, X1 * X0] per batch: P padded to whole fractals.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_FRACTAL_NZ_H_
#define ACLNN_SIM_OPAPI_FAMILIES_FRACTAL_NZ_H_

#include <cstdint>
#include <string>

#include "opapi/families/family.h"

namespace aclsim {

// P's fractal counts and sizes, and whether P is B transposed.
struct NzLayout {
  bool used = false;
  bool transposed = false;
  int64_t y1 = 0, y0 = 0, x1 = 0, x0 = 0;
  Dims batch;  // B's own batch dimensions, each a block of fractals after the other
};

// `b`'s FRACTAL_NZ storage read into `nz`, with `tb`'s memory extent the fractals': "" when read, else
// what is not (the rejection's words). Each matrix of the view must be [K, N] row-major or transposed,
// its batches one after the other from the storage's first element.
std::string ReadNz(const TensorDesc& b, TensorRef* tb, NzLayout* nz);

// The fractals of `b` (its work's tensor, read by ReadNz into `nz`) as the strided view [batch...,
// Y1, Y0, X1, X0]: gathered row-major, each batch's padded P.
TensorRef NzFractals(const TensorRef& b, const NzLayout& nz);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_FRACTAL_NZ_H_
