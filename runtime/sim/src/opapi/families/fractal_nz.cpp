// The FRACTAL_NZ operands of the WeightNz kernels (fractal_nz.h).
#include "opapi/families/fractal_nz.h"

#include <cstddef>
#include <string>

namespace aclsim {

std::string ReadNz(const TensorDesc& b, TensorRef* tb, NzLayout* nz) {
  const size_t rank = b.view.size();
  if (rank < 2) return "view " + DimsText(b.view) + ": a matrix [..., K, N] is read";
  if (b.storage.size() != rank + 2) {
    return "storage " + DimsText(b.storage) + " is not [batch..., X1, Y1, Y0, X0] of view " + DimsText(b.view);
  }
  if (b.offset != 0) return "view at offset " + std::to_string(b.offset) + ": only a view from the first element is read";
  const size_t nb = rank - 2;
  const int64_t k = b.view[nb], n = b.view[nb + 1];
  for (size_t d = nb, stride = static_cast<size_t>(k * n); d-- > 0; stride *= static_cast<size_t>(b.view[d])) {
    if (b.storage[d] != b.view[d] || (b.view[d] != 1 && b.strides[d] != static_cast<int64_t>(stride))) {
      return "view " + DimsText(b.view) + " with strides " + DimsText(b.strides) + " over storage " +
             DimsText(b.storage) + ": only batches stored one after the other are read";
    }
  }
  const int64_t x1 = b.storage[nb], y1 = b.storage[nb + 1], y0 = b.storage[nb + 2], x0 = b.storage[nb + 3];
  if (y0 <= 0 || x0 <= 0) return "storage " + DimsText(b.storage) + " has an empty fractal";
  auto holds = [&](int64_t rows, int64_t cols) {  // P = rows x cols fits the fractal counts
    return y1 == (rows + y0 - 1) / y0 && x1 == (cols + x0 - 1) / x0;
  };
  // The view's strides say which matrix P is; a dimension of 1 has any stride, and then the
  // storage's counts decide.
  const bool row_major = (n == 1 || b.strides[nb + 1] == 1) && (k == 1 || b.strides[nb] == n);
  const bool column_major = (k == 1 || b.strides[nb] == 1) && (n == 1 || b.strides[nb + 1] == k);
  if (row_major && holds(k, n)) {
    nz->transposed = false;
  } else if (column_major && holds(n, k)) {
    nz->transposed = true;
  } else {
    return "storage " + DimsText(b.storage) + " with view " + DimsText(b.view) + " and strides " +
           DimsText(b.strides) + " holds neither B [K, N] nor B^T [N, K] as [ceil(cols/X0), ceil(rows/Y0), Y0, X0]";
  }
  nz->used = true;
  nz->y1 = y1, nz->y0 = y0, nz->x1 = x1, nz->x0 = x0;
  nz->batch.assign(b.view.begin(), b.view.begin() + static_cast<std::ptrdiff_t>(nb));
  int64_t batches = 1;
  for (int64_t d : nz->batch) batches *= d;
  tb->low = 0;
  tb->high = batches * x1 * y1 * y0 * x0 - 1;
  return "";
}

TensorRef NzFractals(const TensorRef& b, const NzLayout& nz) {
  const int64_t block = nz.x1 * nz.y1 * nz.y0 * nz.x0;
  TensorRef fractals = b;
  fractals.shape = nz.batch;
  fractals.strides = Dims(nz.batch.size(), 0);
  for (size_t d = nz.batch.size(), stride = static_cast<size_t>(block); d-- > 0; stride *= static_cast<size_t>(nz.batch[d])) {
    fractals.strides[d] = static_cast<int64_t>(stride);
  }
  for (int64_t extent : {nz.y1, nz.y0, nz.x1, nz.x0}) fractals.shape.push_back(extent);
  for (int64_t stride : {nz.y0 * nz.x0, nz.x0, nz.y1 * nz.y0 * nz.x0, int64_t{1}}) fractals.strides.push_back(stride);
  return fractals;
}

}  // namespace aclsim
