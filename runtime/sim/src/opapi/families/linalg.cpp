// The linalg family, as aten's CPU kernels compute (torch.addr, torch.linalg.cross, torch.inverse,
// torch.cdist):
//   addr     out = beta * self + alpha * vec1 (x) vec2, self broadcast to [len(vec1), len(vec2)];
//            with beta 0 self is not read (its NaN does not propagate), as aten's; BOOL: logical
//            and/or, as aten's
//   cross    the cross product of the 3-vectors along dim of self and other, broadcast
//   inverse  the inverse of each trailing square matrix: LAPACK getrf + getri (scipy-openblas32,
//            the matmul family's library); a singular matrix fails in phase 2 by name, as
//            torch.inverse raises
//   cdist    the p-norm distance of each row of x1 to each row of x2 (batches broadcast): p = 0
//            counts differing coordinates, p = inf takes the largest difference;
//            compute_mode only chooses the device's way (a matrix product for p = 2), not the result
//   slogdet           the sign and log |det| of each trailing square matrix from its LU factors
//                     (getrf): sign 0 and -inf for an exactly singular one, as torch.linalg.slogdet
//   cholesky          the lower (upper) factor of each matrix through potrf, which reads that
//                     triangle only; one not positive-definite fails in phase 2, as torch raises
//   triangular_solve  X of op(A) X = B for each pair of the broadcast batches (trsm: a zero on A's
//                     diagonal gives infinities, as PyTorch's), and A's broadcast copy
// Elements move through the family's compute type (float for FLOAT16 and BFLOAT16, double for
// DOUBLE, int64 for integers and BOOL), and compute in it as PyTorch's CPU kernels do (float
// sums overflow where theirs do, float LU meets exact singularity where theirs does), but for QR
// and SVD, in double (the float results of PyTorch's MKL, which scales where OpenBLAS's single
// precision overflows).
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "common/dtypes.h"
#include "aclnn_bindgen/matmul_shape.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/thread_pool.h"

#include <cblas.h>

namespace aclsim {
namespace {

using F = LinalgFamily;

// LAPACK and BLAS in the compute type: single precision for FLOAT (and FLOAT16, BFLOAT16), as
// PyTorch's CPU kernels factor float matrices, double for DOUBLE.
int Getrf(int layout, int m, int n, float* a, int lda, int* p) { return scipy_LAPACKE_sgetrf(layout, m, n, a, lda, p); }
int Getrf(int layout, int m, int n, double* a, int lda, int* p) { return scipy_LAPACKE_dgetrf(layout, m, n, a, lda, p); }
int Getri(int layout, int n, float* a, int lda, const int* p) { return scipy_LAPACKE_sgetri(layout, n, a, lda, p); }
int Getri(int layout, int n, double* a, int lda, const int* p) { return scipy_LAPACKE_dgetri(layout, n, a, lda, p); }
int Potrf(int layout, char uplo, int n, float* a, int lda) { return scipy_LAPACKE_spotrf(layout, uplo, n, a, lda); }
int Potrf(int layout, char uplo, int n, double* a, int lda) { return scipy_LAPACKE_dpotrf(layout, uplo, n, a, lda); }
int Geqrf(int layout, int m, int n, float* a, int lda, float* tau) { return scipy_LAPACKE_sgeqrf(layout, m, n, a, lda, tau); }
int Geqrf(int layout, int m, int n, double* a, int lda, double* tau) { return scipy_LAPACKE_dgeqrf(layout, m, n, a, lda, tau); }
int Orgqr(int layout, int m, int n, int k, float* a, int lda, const float* tau) {
  return scipy_LAPACKE_sorgqr(layout, m, n, k, a, lda, tau);
}
int Orgqr(int layout, int m, int n, int k, double* a, int lda, const double* tau) {
  return scipy_LAPACKE_dorgqr(layout, m, n, k, a, lda, tau);
}
int Gesdd(int layout, char job, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt) {
  return scipy_LAPACKE_sgesdd(layout, job, m, n, a, lda, s, u, ldu, vt, ldvt);
}
int Gesdd(int layout, char job, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt) {
  return scipy_LAPACKE_dgesdd(layout, job, m, n, a, lda, s, u, ldu, vt, ldvt);
}
void Trsm(CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag, int n, int k, const float* a, float* b) {
  scipy_cblas_strsm(CblasRowMajor, CblasLeft, uplo, trans, diag, n, k, 1.0f, a, n, b, k);
}
void Trsm(CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag, int n, int k, const double* a, double* b) {
  scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, trans, diag, n, k, 1.0, a, n, b, k);
}

enum Slot { kSelf, kOther, kThird, kOut, kOut2, kOut3, kSlots };
constexpr int kRowMajor = 101;  // LAPACK_ROW_MAJOR
constexpr int kColMajor = 102;

// `t` viewed at `shape` (its trailing dimensions aligned; a dimension of 1 repeated by stride 0);
// false when its shape does not broadcast to it.
bool Broadcast(const TensorRef& t, const Dims& shape, TensorRef* out) {
  if (t.rank() > static_cast<int64_t>(shape.size())) return false;
  *out = t;
  out->shape = shape;
  out->strides = Dims(shape.size(), 0);
  const int64_t lead = static_cast<int64_t>(shape.size()) - t.rank();
  for (int64_t d = 0; d < t.rank(); ++d) {
    if (t.shape[d] == shape[lead + d]) out->strides[lead + d] = t.strides[d];
    else if (t.shape[d] != 1) return false;
  }
  return true;
}

// The p-norm of the difference of two rows of m elements (p = 0: the count of differing elements,
// inf: the largest difference), as aten's cdist and pdist.
template <typename T>
T Distance(const T* x, const T* z, int64_t m, double p) {
  T acc = 0;
  for (int64_t e = 0; e < m; ++e) {
    const T d = std::fabs(x[e] - z[e]);
    if (p == 0) acc += d != 0;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else if (p == 1) acc += d;
    else if (p == 2) acc += d * d;
    else acc += std::pow(d, static_cast<T>(p));
  }
  if (p == 2) return std::sqrt(acc);
  if (p != 0 && p != 1 && !std::isinf(p)) return std::pow(acc, static_cast<T>(1 / p));
  return acc;
}

// The gradient through one coordinate's difference `diff` of a distance `dist` reached by `grad`,
// as aten's _cdist_backward writes it per p (the order of its products, and 0 where dist is 0
// before grad is read, except for p = 1, so that an infinite grad gives PyTorch's NaNs).
template <typename T>
T DistanceGrad(T diff, T grad, T dist, double p) {
  const T sign = static_cast<T>((diff > 0) - (diff < 0));
  if (p == 0) return 0;
  if (p == 1) return grad * sign;
  if (std::isinf(p)) return grad * sign * (T(1) - std::min(T(1), std::ceil(std::fabs(std::fabs(diff) - dist))));
  if (dist == 0) return 0;
  if (p == 2) return grad * diff / dist;
  const T q = static_cast<T>(p);
  if (p < 2) return diff == 0 && p < 1 ? T(0) : sign * std::pow(std::fabs(diff), q - 1) * grad / std::pow(dist, q - 1);
  return diff * std::pow(std::fabs(diff), q - 2) * grad / std::pow(dist, q - 1);
}

// Dimension d of `t` split in two, [outer, inner] (inner * outer its extent).
TensorRef SplitDim(const TensorRef& t, int64_t d, int64_t outer, int64_t inner) {
  TensorRef split = t;
  split.shape.clear(), split.strides.clear();
  for (int64_t i = 0; i < t.rank(); ++i) {
    if (i == d) {
      split.shape.push_back(outer), split.strides.push_back(t.strides[i] * inner);
      split.shape.push_back(inner), split.strides.push_back(t.strides[i]);
    } else {
      split.shape.push_back(t.shape[i]), split.strides.push_back(t.strides[i]);
    }
  }
  return split;
}

// The compute type of a C++ floating type.
template <typename T>
constexpr ComputeType Kind() {
  return std::is_same<T, double>::value ? ComputeType::kFloat64 : ComputeType::kFloat32;
}

class LinalgWork final : public FamilyWork {
 public:
  LinalgWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  double beta = 1, alpha = 1, p = 2;
  bool upper = false, transpose = false, unitriangular = false;
  int64_t mode = 0;  // qr's
  double maxnorm = 0, value = 0;
  bool wrap = false;
  int64_t groups = 1;
  bool full = false, compute_uv = true;  // svd's
  int64_t dim = 0;
  Dims shape;  // the result's

 private:
  template <typename T>
  aclnnStatus Addr() {
    const int64_t n = shape[0], m = shape[1];
    const T* v1 = static_cast<const T*>(ContiguousAs(tensor(kOther), type, 1));
    const T* v2 = static_cast<const T*>(ContiguousAs(tensor(kThird), type, 2));
    const T* self = nullptr;
    if (beta != 0) {
      TensorRef wide;
      Broadcast(tensor(kSelf), shape, &wide);
      self = static_cast<const T*>(ContiguousAs(wide, type, 0));
    }
    T* y = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(n * m, 1)) * sizeof(T)));
    const T b = static_cast<T>(beta), a = static_cast<T>(alpha);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const int64_t at = i * m + j;
        if (logical) {
          const bool product = a && v1[i] && v2[j];
          y[at] = self ? T((b && self[at]) || product) : T(product);
        } else {
          y[at] = self ? T(b * self[at] + a * v1[i] * v2[j]) : T(a * v1[i] * v2[j]);
        }
      }
    }
    ScatterFrom(y, type, tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Cross() {
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t order[16];
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim) order[at++] = d;
    }
    order[at] = dim;
    TensorRef a, b;
    Broadcast(tensor(kSelf), shape, &a);
    Broadcast(tensor(kOther), shape, &b);
    const int64_t rows = tensor(kOut).numel() / 3;
    const T* x = static_cast<const T*>(ContiguousAs(a.Permuted(order), type, 0));
    const T* z = static_cast<const T*>(ContiguousAs(b.Permuted(order), type, 1));
    T* y = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(rows * 3, 1)) * sizeof(T)));
    for (int64_t r = 0; r < rows; ++r) {
      const T* u = x + 3 * r;
      const T* v = z + 3 * r;
      T* w = y + 3 * r;
      w[0] = T(u[1] * v[2] - u[2] * v[1]);
      w[1] = T(u[2] * v[0] - u[0] * v[2]);
      w[2] = T(u[0] * v[1] - u[1] * v[0]);
    }
    ScatterFrom(y, type, tensor(kOut).Permuted(order));
    return ACLNN_SUCCESS;
  }

  // Each row x of n values (the last dimension) as the n x n matrix exp(x[j+1] + ... + x[i]) for
  // j <= i (1 on the diagonal), 0 above it: Mamba's segment sums, summed from j + 1 up.
  template <typename T>
  aclnnStatus ExpSegsum() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.rank() == 0 ? 1 : self.shape.back();
    const int64_t rows = n == 0 ? 0 : self.numel() / n;
    if (rows == 0) return ACLNN_SUCCESS;
    const T* x = static_cast<const T*>(ContiguousAs(self, Kind<T>(), 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(rows * n * n) * sizeof(T)));
    ParallelFor(rows, [&](int64_t r) {
      const T* a = x + r * n;
      T* o = y + r * n * n;
      for (int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (i > j) sum += a[i];
          o[i * n + j] = i < j ? T(0) : std::exp(sum);
        }
      }
    });
    ScatterFrom(y, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  // ExpSegsum's gradient: with m = gradOutput * result below the diagonal (0 on and above it),
  // gradInput[k] = the sum of m[i][j] over i >= k > j (a reverse running sum down each column,
  // then each row's sum left of the diagonal).
  template <typename T>
  aclnnStatus ExpSegsumBackward() {
    const TensorRef& grad = tensor(kSelf);
    const int64_t n = grad.shape.back();
    const int64_t rows = n == 0 ? 0 : grad.numel() / (n * n);
    if (rows == 0) return ACLNN_SUCCESS;
    const T* g = static_cast<const T*>(ContiguousAs(grad, Kind<T>(), 0));
    const T* y = static_cast<const T*>(ContiguousAs(tensor(kOther), Kind<T>(), 2));
    T* dx = static_cast<T*>(Scratch(1, static_cast<size_t>(rows * n) * sizeof(T)));
    ParallelFor(rows, [&](int64_t r) {
      const T* gr = g + r * n * n;
      const T* yr = y + r * n * n;
      T* d = dx + r * n;
      std::vector<T> below(static_cast<size_t>(n * n), T(0));  // the reverse running sums, i > j
      for (int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (int64_t i = n - 1; i > j; --i) {
          sum += gr[i * n + j] * yr[i * n + j];
          below[static_cast<size_t>(i * n + j)] = sum;
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        T sum = 0;
        for (int64_t j = 0; j < i; ++j) sum += below[static_cast<size_t>(i * n + j)];
        d[i] = sum;
      }
    });
    ScatterFrom(dx, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Inverse() {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    const int64_t n = rank == 0 ? 1 : self.shape[rank - 1];
    const int64_t count = n == 0 ? 0 : self.numel() / (n * n);
    if (count == 0) return ACLNN_SUCCESS;
    const T* x = static_cast<const T*>(ContiguousAs(self, Kind<T>(), 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(count * n * n) * sizeof(T)));
    std::copy_n(x, count * n * n, y);
    std::vector<int> singular(static_cast<size_t>(count), 0);
    ParallelFor(count, [&](int64_t b) {
      std::vector<int> pivots(static_cast<size_t>(n));
      T* a = y + b * n * n;
      const int info = Getrf(kRowMajor, static_cast<int>(n), static_cast<int>(n), a, static_cast<int>(n),
                                            pivots.data());
      if (info != 0) {
        singular[static_cast<size_t>(b)] = info;
        return;
      }
      Getri(kRowMajor, static_cast<int>(n), a, static_cast<int>(n), pivots.data());
    });
    for (int64_t b = 0; b < count; ++b) {
      if (const int info = singular[static_cast<size_t>(b)]) {
        return Fail(ACLNN_ERR_INNER,
                    std::string(api_) + ": matrix " + std::to_string(b) + " is singular (its U's diagonal element " +
                        std::to_string(info) + " is zero) or LAPACK refused it (" + std::to_string(info) + ")");
      }
    }
    ScatterFrom(y, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  // The trailing n x n matrices of `t` as doubles in a buffer of their own (scratch slot 1).
  template <typename T>
  T* Matrices(const TensorRef& t, int64_t* n, int64_t* count) {
    *n = t.rank() < 2 ? 1 : t.shape[t.rank() - 1];
    *count = 1;
    for (int64_t d = 0; d + 2 < t.rank(); ++d) *count *= t.shape[d];
    const int64_t size = *count * *n * *n;
    const T* x = static_cast<const T*>(ContiguousAs(t, Kind<T>(), 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(size, 1)) * sizeof(T)));
    std::copy_n(x, size, y);
    return y;
  }

  template <typename T>
  aclnnStatus Slogdet() {
    int64_t n = 0, count = 0;
    T* a = Matrices<T>(tensor(kSelf), &n, &count);
    T* sign = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(count, 1)) * 2 * sizeof(T)));
    T* log = sign + count;
    ParallelFor(count, [&](int64_t b) {
      T* m = a + b * n * n;
      std::vector<int> pivots(static_cast<size_t>(std::max<int64_t>(n, 1)));
      const int info = n == 0 ? 0 : Getrf(kRowMajor, static_cast<int>(n), static_cast<int>(n), m,
                                                         static_cast<int>(n), pivots.data());
      T s = 1, l = 0;
      if (info > 0) {
        s = 0, l = -INFINITY;
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const T d = m[i * n + i];
          if (d < 0) s = -s;
          if (pivots[static_cast<size_t>(i)] != i + 1) s = -s;
          l += std::log(std::fabs(d));
        }
      }
      sign[b] = s, log[b] = l;
      // logdet: log det, NaN where det is negative (torch.logdet), -inf where it is 0.
      if (op_ == F::Op::kLogdet) sign[b] = s > 0 ? l : s == 0 ? T(-INFINITY) : T(NAN);
    });
    ScatterFrom(sign, Kind<T>(), tensor(kOut));
    if (op_ != F::Op::kLogdet) ScatterFrom(log, Kind<T>(), tensor(kOut2));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Cholesky() {
    int64_t n = 0, count = 0;
    T* a = Matrices<T>(tensor(kSelf), &n, &count);
    std::vector<int> failed(static_cast<size_t>(count), 0);
    ParallelFor(count, [&](int64_t b) {
      T* m = a + b * n * n;
      if (n == 0) return;
      failed[static_cast<size_t>(b)] = Potrf(kRowMajor, upper ? 'U' : 'L', static_cast<int>(n), m,
                                                            static_cast<int>(n));
      for (int64_t i = 0; i < n; ++i) {  // potrf leaves the other triangle as it was
        for (int64_t j = 0; j < n; ++j) {
          if (upper ? j < i : j > i) m[i * n + j] = 0;
        }
      }
    });
    for (int64_t b = 0; b < count; ++b) {
      if (const int info = failed[static_cast<size_t>(b)]) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": matrix " + std::to_string(b) +
                                         " is not positive-definite (the leading minor of order " +
                                         std::to_string(info) + " is not positive)");
      }
    }
    ScatterFrom(a, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus TriangularSolve() {
    // B (self) [..., n, k] and A (other) [..., n, n], the batches broadcast to out's.
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t n = shape[rank - 2], k = shape[rank - 1];
    Dims a_shape = shape;
    a_shape[rank - 1] = n;
    TensorRef b_wide, a_wide;
    Broadcast(tensor(kSelf), shape, &b_wide);
    Broadcast(tensor(kOther), a_shape, &a_wide);
    const int64_t count = tensor(kOut).numel() / std::max<int64_t>(n * k, 1);
    const T* a = static_cast<const T*>(ContiguousAs(a_wide, Kind<T>(), 0));
    const T* bx = static_cast<const T*>(ContiguousAs(b_wide, Kind<T>(), 1));
    T* x = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(count * n * k, 1)) * sizeof(T)));
    std::copy_n(bx, count * n * k, x);
    if (n > 0 && k > 0) {
      ParallelFor(count, [&](int64_t b) {
        Trsm(upper ? CblasUpper : CblasLower, transpose ? CblasTrans : CblasNoTrans, unitriangular ? CblasUnit : CblasNonUnit,
             static_cast<int>(n), static_cast<int>(k), a + b * n * n, x + b * n * k);
      });
    }
    ScatterFrom(x, Kind<T>(), tensor(kOut));
    if (tensor(kOut2).dtype != ACL_DT_UNDEFINED) ScatterFrom(a, Kind<T>(), tensor(kOut2));
    return ACLNN_SUCCESS;
  }

  // The [count, m, n] matrices of `t` as column-major doubles, each `columns` >= n columns wide.
  template <typename T>
  T* ColumnMajor(const TensorRef& t, int64_t count, int64_t m, int64_t n, int64_t columns) {
    const T* x = static_cast<const T*>(ContiguousAs(t, Kind<T>(), 0));
    T* a = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(count * m * columns, 1)) * sizeof(T)));
    std::fill_n(a, count * m * columns, 0.0);
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) a[b * m * columns + j * m + i] = x[(b * m + i) * n + j];
      }
    }
    return a;
  }

  template <typename T>
  aclnnStatus Qr() {
    const TensorRef& self = tensor(kSelf);
    const int64_t m = self.shape[self.rank() - 2], n = self.shape[self.rank() - 1], k = std::min(m, n);
    const int64_t count = m * n == 0 ? 0 : self.numel() / (m * n);
    const int64_t q_cols = mode == 1 ? m : k, r_rows = mode == 1 ? m : k, columns = std::max(n, q_cols);
    if (m * n == 0) {
      // Nothing to factor: R is empty, and so is Q but in complete mode, an identity of m rows
      // (torch.linalg.qr of an [m, 0] matrix, as LAPACK's orgqr of no reflector gives).
      if (mode == 1) {
        const TensorRef& out = tensor(kOut);
        const int64_t batches = m == 0 ? 0 : out.numel() / (m * m);
        T* q = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(out.numel(), 1)) * sizeof(T)));
        for (int64_t i = 0; i < batches * m * m; ++i) q[i] = (i % (m * m)) % (m + 1) == 0 ? T(1) : T(0);
        ScatterFrom(q, Kind<T>(), out);
      }
      return ACLNN_SUCCESS;
    }
    T* a = ColumnMajor<T>(self, count, m, n, columns);
    T* q = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(count * m * q_cols, 1)) * sizeof(T)));
    T* r = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(count * r_rows * n, 1)) * sizeof(T)));
    ParallelFor(count, [&](int64_t b) {
      T* w = a + b * m * columns;
      std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
      Geqrf(kColMajor, static_cast<int>(m), static_cast<int>(n), w, static_cast<int>(m), tau.data());
      T* rb = r + b * r_rows * n;
      for (int64_t i = 0; i < r_rows; ++i) {
        for (int64_t j = 0; j < n; ++j) rb[i * n + j] = i <= j ? w[j * m + i] : 0.0;
      }
      if (mode == 2) return;
      Orgqr(kColMajor, static_cast<int>(m), static_cast<int>(q_cols), static_cast<int>(k), w,
                           static_cast<int>(m), tau.data());
      T* qb = q + b * m * q_cols;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < q_cols; ++j) qb[i * q_cols + j] = w[j * m + i];
      }
    });
    if (mode != 2) ScatterFrom(q, Kind<T>(), tensor(kOut));
    ScatterFrom(r, Kind<T>(), tensor(kOut2));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Svd() {
    const TensorRef& self = tensor(kSelf);
    const int64_t m = self.shape[self.rank() - 2], n = self.shape[self.rank() - 1], k = std::min(m, n);
    const int64_t count = m * n == 0 ? 0 : self.numel() / (m * n);
    const int64_t u_cols = full ? m : k, v_cols = full ? n : k;
    T* a = ColumnMajor<T>(self, count, m, n, n);
    T* s = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(count * k, 1)) * sizeof(T)));
    T* u = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(count * m * u_cols, 1)) * sizeof(T)));
    T* v = static_cast<T*>(Scratch(4, static_cast<size_t>(std::max<int64_t>(count * n * v_cols, 1)) * sizeof(T)));
    std::vector<int> failed(static_cast<size_t>(count), 0);
    ParallelFor(count, [&](int64_t b) {
      std::vector<T> uc(static_cast<size_t>(std::max<int64_t>(m * u_cols, 1)));
      std::vector<T> vt(static_cast<size_t>(std::max<int64_t>(v_cols * n, 1)));
      const char job = !compute_uv ? 'N' : full ? 'A' : 'S';
      failed[static_cast<size_t>(b)] = Gesdd(
          kColMajor, job, static_cast<int>(m), static_cast<int>(n), a + b * m * n, static_cast<int>(m), s + b * k,
          uc.data(), static_cast<int>(std::max<int64_t>(m, 1)), vt.data(), static_cast<int>(std::max<int64_t>(v_cols, 1)));
      if (!compute_uv) return;
      T* ub = u + b * m * u_cols;
      T* vb = v + b * n * v_cols;
      for (int64_t j = 0; j < u_cols; ++j) {
        T sign = 1;
        if (j < k) {  // the pair's sign: U's largest-magnitude element positive
          int64_t at = 0;
          for (int64_t i = 1; i < m; ++i) {
            if (std::fabs(uc[j * m + i]) > std::fabs(uc[j * m + at])) at = i;
          }
          if (uc[j * m + at] < 0) sign = -1;
        }
        for (int64_t i = 0; i < m; ++i) ub[i * u_cols + j] = sign * uc[j * m + i];
        if (j < v_cols) {
          for (int64_t i = 0; i < n; ++i) vb[i * v_cols + j] = sign * vt[i * v_cols + j];
        }
      }
      for (int64_t j = u_cols; j < v_cols; ++j) {  // V's columns past U's (n > m, full)
        for (int64_t i = 0; i < n; ++i) vb[i * v_cols + j] = vt[i * v_cols + j];
      }
    });
    for (int64_t b = 0; b < count; ++b) {
      if (const int info = failed[static_cast<size_t>(b)]) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": LAPACK's gesdd did not converge on matrix " +
                                         std::to_string(b) + " (info " + std::to_string(info) + ")");
      }
    }
    ScatterFrom(s, Kind<T>(), tensor(kOut));
    if (compute_uv) {
      ScatterFrom(u, Kind<T>(), tensor(kOut2));
      ScatterFrom(v, Kind<T>(), tensor(kOut3));
    }
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Cdist() {
    // x1 [..., P, M], x2 [..., R, M], the batches broadcast to out's [..., P, R].
    const int64_t rank = static_cast<int64_t>(shape.size());
    const TensorRef& x1 = tensor(kSelf);
    const TensorRef& x2 = tensor(kOther);
    const int64_t m = x1.shape[x1.rank() - 1];
    const int64_t pn = shape[rank - 2], rn = shape[rank - 1];
    Dims a_shape = shape, b_shape = shape;
    a_shape[rank - 1] = m, b_shape[rank - 2] = rn, b_shape[rank - 1] = m;
    TensorRef a, b;
    Broadcast(x1, a_shape, &a);
    Broadcast(x2, b_shape, &b);
    const T* u = static_cast<const T*>(ContiguousAs(a, Kind<T>(), 0));
    const T* v = static_cast<const T*>(ContiguousAs(b, Kind<T>(), 1));
    const int64_t batches = tensor(kOut).numel() / std::max<int64_t>(pn * rn, 1);
    T* y = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(batches * pn * rn, 1)) * sizeof(T)));
    ParallelFor(batches * pn, [&](int64_t row) {
      const int64_t batch = row / pn;
      for (int64_t j = 0; j < rn; ++j) y[row * rn + j] = Distance(u + row * m, v + (batch * rn + j) * m, m, p);
    });
    ScatterFrom(y, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Pdist() {
    const TensorRef& self = tensor(kSelf);
    const int64_t n = self.shape[0], m = self.shape[1];
    const T* x = static_cast<const T*>(ContiguousAs(self, Kind<T>(), 0));
    T* y = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(n * (n - 1) / 2, 1)) * sizeof(T)));
    ParallelFor(n, [&](int64_t i) {
      T* to = y + i * n - i * (i + 1) / 2;  // the pairs (i, i+1..n-1) follow those of rows before i
      for (int64_t j = i + 1; j < n; ++j) to[j - i - 1] = Distance(x + i * m, x + j * m, m, p);
    });
    ScatterFrom(y, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus CdistBackward() {
    // grad and dist [..., P, R]; x1 [..., P, M] and x2 [..., R, M] broadcast to the batch.
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t pn = shape[rank - 2], m = shape[rank - 1];
    const TensorRef& g = tensor(kThird);
    const int64_t rn = g.shape[g.rank() - 1];
    Dims b_shape = shape;
    b_shape[rank - 2] = rn;
    TensorRef a, b;
    Broadcast(tensor(kSelf), shape, &a);
    Broadcast(tensor(kOther), b_shape, &b);
    const T* u = static_cast<const T*>(ContiguousAs(a, Kind<T>(), 0));
    const T* v = static_cast<const T*>(ContiguousAs(b, Kind<T>(), 1));
    const T* gr = static_cast<const T*>(ContiguousAs(g, Kind<T>(), 2));
    const T* dist = static_cast<const T*>(ContiguousAs(tensor(kOut2), Kind<T>(), 4));
    const int64_t rows = tensor(kOut).numel() / std::max<int64_t>(m, 1);
    T* y = static_cast<T*>(Scratch(3, static_cast<size_t>(std::max<int64_t>(rows * m, 1)) * sizeof(T)));
    std::fill_n(y, rows * m, 0.0);
    ParallelFor(rows, [&](int64_t row) {
      const int64_t batch = row / std::max<int64_t>(pn, 1);
      for (int64_t j = 0; j < rn; ++j) {
        const T weight = gr[row * rn + j], d = dist[row * rn + j];
        const T* z = v + (batch * rn + j) * m;
        for (int64_t e = 0; e < m; ++e) {
          const T diff = u[row * m + e] - z[e];  // in the inputs' precision, as aten's kernel
          y[row * m + e] += DistanceGrad(diff, weight, d, p);
        }
      }
    });
    ScatterFrom(y, Kind<T>(), tensor(kOut));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Renorm() {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    int64_t order[16];
    order[0] = dim;
    for (int64_t d = 0, at = 1; d < rank; ++d) {
      if (d != dim) order[at++] = d;
    }
    const TensorRef rows = self.Permuted(order);
    const int64_t count = rank == 0 ? 1 : self.shape[dim];
    const int64_t length = count == 0 ? 0 : self.numel() / count;
    const T* x = static_cast<const T*>(ContiguousAs(rows, type, 0));
    T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(count * length, 1)) * sizeof(T)));
    ParallelFor(count, [&](int64_t r) {
      const T* from = x + r * length;
      double norm = 0;
      for (int64_t e = 0; e < length; ++e) {
        const double a = std::fabs(static_cast<double>(from[e]));
        norm = std::isinf(p) ? std::max(norm, a) : norm + std::pow(a, p);
      }
      if (!std::isinf(p)) norm = std::pow(norm, 1 / p);
      const T factor = norm > maxnorm ? static_cast<T>(maxnorm / (norm + 1e-7)) : T(1);
      for (int64_t e = 0; e < length; ++e) y[r * length + e] = from[e] * factor;
    });
    ScatterFrom(y, type, tensor(kOut).Permuted(order));
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus FillDiagonal() {
    const TensorRef& self = tensor(kSelf);
    const int64_t height = self.shape[0], width = self.shape[1], size = std::min(height, width);
    int64_t stride = 0;
    for (int64_t d = 0; d < self.rank(); ++d) stride += self.strides[d];
    TensorRef diagonal = self;
    diagonal.shape = Dims{size};
    diagonal.strides = Dims{stride};
    int64_t wrapped = 0;
    if (wrap && self.rank() == 2 && height > width + 1) wrapped = (self.numel() + width) / (width + 1) - size;
    std::vector<T> values(static_cast<size_t>(std::max(size, wrapped)), static_cast<T>(value));
    ScatterFrom(values.data(), type, diagonal);
    if (wrapped > 0) {  // the diagonal again from row width + 1, as far as the rows go
      diagonal.shape = Dims{wrapped};
      diagonal.first += self.strides[0] * (width + 1) * static_cast<int64_t>(DTypeSize(self.dtype));
      ScatterFrom(values.data(), type, diagonal);
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus ChannelShuffle() {
    const TensorRef& self = tensor(kSelf);
    const int64_t channels = self.shape[1], per = channels / groups;
    // self's [N, g, C/g, ...] read as [N, C/g, g, ...], written to out's channels in order.
    const TensorRef split = SplitDim(self, 1, groups, per);
    std::vector<int64_t> order(static_cast<size_t>(split.rank()));
    std::iota(order.begin(), order.end(), 0);
    std::swap(order[1], order[2]);
    const TensorRef shuffled = split.Permuted(order.data());
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      T* y = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(self.numel(), 1)) * sizeof(T)));
      GatherAs(shuffled, type, y);
      ScatterFrom(y, type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }

  template <typename T>
  aclnnStatus Factor() {
    switch (op_) {
      case F::Op::kInverse: return Inverse<T>();
      case F::Op::kCdist: return Cdist<T>();
      case F::Op::kPdist: return Pdist<T>();
      case F::Op::kCdistBackward: return CdistBackward<T>();
      case F::Op::kSlogdet: case F::Op::kLogdet: return Slogdet<T>();
      case F::Op::kCholesky: return Cholesky<T>();
      case F::Op::kTriangularSolve: return TriangularSolve<T>();
      case F::Op::kQr: return Qr<T>();
      case F::Op::kExpSegsum: return ExpSegsum<T>();
      case F::Op::kExpSegsumBackward: return ExpSegsumBackward<T>();
      default: return Svd<T>();
    }
  }

  // The ops computed in floating point only (their planners decline integral dtypes).
  bool Floating() const {
    return op_ != F::Op::kAddr && op_ != F::Op::kCross && op_ != F::Op::kRenorm && op_ != F::Op::kFillDiagonal &&
           op_ != F::Op::kChannelShuffle;
  }

  aclnnStatus Compute() override {
    if (Floating()) {
      // In the inputs' precision, as PyTorch's CPU kernels (float LU and triangular solves meet an
      // exactly singular matrix where theirs do); QR and SVD in double: PyTorch's LAPACK (MKL)
      // scales the norms of its reflections where OpenBLAS's single precision overflows (a QR of
      // 1e19s), and double gives its float results.
      const bool scaled = op_ == F::Op::kQr || op_ == F::Op::kSvd;
      return type == ComputeType::kFloat64 || scaled ? Factor<double>() : Factor<float>();
    }
    if (op_ == F::Op::kChannelShuffle) return ChannelShuffle();
    if (op_ == F::Op::kRenorm || op_ == F::Op::kFillDiagonal) {
      aclnnStatus status = ACLNN_SUCCESS;
      WithFamilyType(type, [&](auto zero) {
        using T = decltype(zero);
        status = op_ == F::Op::kRenorm ? Renorm<T>() : FillDiagonal<T>();
      });
      return status;
    }
    aclnnStatus status = ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      status = op_ == F::Op::kAddr ? Addr<T>() : Cross<T>();
    });
    return status;
  }

  int op_;

 public:
  bool logical = false;  // addr of BOOL tensors
};

}  // namespace

aclnnStatus PlanLinalg(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* other = RoleTensor(call, family, F::Role::kOther);
  const TensorDesc* third = RoleTensor(call, family, F::Role::kThird);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const bool two = op == F::Op::kCross || op == F::Op::kCdist || op == F::Op::kAddr || op == F::Op::kCdistBackward ||
                   op == F::Op::kExpSegsumBackward;
  if (!self || !out || (two && !other) || (op == F::Op::kAddr && !third)) return Decline(call, work, "without its tensors");
  if (op == F::Op::kCdistBackward) {  // the incoming gradient and the forward's distances
    third = RoleTensor(call, family, F::Role::kGrad);
    if (!third || !RoleTensor(call, family, F::Role::kDist)) return Decline(call, work, "without its tensors");
  }
  for (const TensorDesc* t : {self, other, third, out}) {
    if (t && t->view.size() > 16) return Decline(call, work, "over 16 dimensions");
  }
  LinalgWork* made = new LinalgWork(call.spec.name, op);
  std::unique_ptr<LinalgWork> owned(made);
  const ParamRejecter reject(call, family);
  // cdist's pairs of x1's rows [..., P, M] and x2's [..., R, M]: the broadcast batch, then [P, R].
  auto pair_shape = [&](Dims* pairs) -> aclnnStatus {
    const size_t r1 = self->view.size(), r2 = other->view.size();
    if (r1 < 2 || r2 < 2 || self->view[r1 - 1] != other->view[r2 - 1]) {
      return reject(F::Role::kOther, "x1 " + DimsText(self->view) + " and x2 " + DimsText(other->view) +
                                         " are not batches of rows of one length");
    }
    const Dims batch1(self->view.begin(), self->view.end() - 2), batch2(other->view.begin(), other->view.end() - 2);
    if (!aclnn_bindgen::BroadcastShapes(batch1, batch2, pairs)) {
      return reject(F::Role::kOther, "batch " + DimsText(batch2) + " does not broadcast with x1's " + DimsText(batch1));
    }
    pairs->push_back(self->view[r1 - 2]);
    pairs->push_back(other->view[r2 - 2]);
    return ACLNN_SUCCESS;
  };
  if (!FamilyComputeType(self->dtype, true, &made->type)) {
    return DeclineDtype(call, work, self->dtype);
  }
  made->tensor(kSelf).Set(RoleName(call, family, F::Role::kSelf), *self);
  if (other) made->tensor(kOther).Set(RoleName(call, family, F::Role::kOther), *other);
  if (third) {
    made->tensor(kThird).Set(RoleName(call, family, op == F::Op::kCdistBackward ? F::Role::kGrad : F::Role::kThird), *third);
  }
  Dims shape;
  if (op == F::Op::kAddr) {
    if (other->view.size() != 1 || third->view.size() != 1) {
      return reject(other->view.size() != 1 ? F::Role::kOther : F::Role::kThird, "addr takes two 1-D vectors");
    }
    shape = Dims{other->view[0], third->view[0]};
    Dims wide;
    if (!aclnn_bindgen::BroadcastShapes(self->view, shape, &wide) || wide != shape) {
      return reject(F::Role::kSelf, "shape " + DimsText(self->view) + " does not broadcast to the outer product's " +
                                        DimsText(shape));
    }
    made->beta = RoleNumber(call, family, F::Role::kBeta, -1, 1);
    made->alpha = RoleNumber(call, family, F::Role::kAlpha, -1, 1);
    made->logical = self->dtype == ACL_BOOL;
    // Integral tensors take integral factors (aten: "For integral input tensors, argument beta must
    // not be a floating point number").
    if (IsIntegralType(self->dtype) && (made->beta != std::trunc(made->beta) || made->alpha != std::trunc(made->alpha))) {
      return reject(F::Role::kBeta, "integral tensors take integral beta and alpha, got " + std::to_string(made->beta) +
                                        " and " + std::to_string(made->alpha));
    }
  } else if (op == F::Op::kCross) {
    if (!aclnn_bindgen::BroadcastShapes(self->view, other->view, &shape)) {
      return reject(F::Role::kOther, "shape " + DimsText(other->view) + " does not broadcast with self's " +
                                         DimsText(self->view));
    }
    const int64_t given = RoleInt(call, family, F::Role::kDim, -1);
    if (!WrapDim(given, static_cast<int64_t>(shape.size()), &made->dim) || shape.empty()) {
      return RejectDim(call, family, F::Role::kDim, given, static_cast<int64_t>(shape.size()));
    }
    if (shape[made->dim] != 3) {
      return reject(F::Role::kDim, "dimension " + std::to_string(given) + " has size " +
                                       std::to_string(shape[made->dim]) + ", not 3");
    }
  } else if (op == F::Op::kInverse) {
    const size_t rank = self->view.size();
    if (rank < 2 || self->view[rank - 1] != self->view[rank - 2]) {
      return reject(F::Role::kSelf, "shape " + DimsText(self->view) + " is not a batch of square matrices");
    }
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    shape = self->view;
  } else if (op == F::Op::kSlogdet || op == F::Op::kLogdet || op == F::Op::kCholesky) {
    const size_t rank = self->view.size();
    if (rank < 2 || self->view[rank - 1] != self->view[rank - 2]) {
      return reject(F::Role::kSelf, "shape " + DimsText(self->view) + " is not a batch of square matrices");
    }
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    made->upper = RoleBool(call, family, F::Role::kUpper, false);
    shape = op == F::Op::kCholesky ? self->view : Dims(self->view.begin(), self->view.end() - 2);
    if (op == F::Op::kSlogdet) {
      const TensorDesc* log = RoleTensor(call, family, F::Role::kOut2);
      if (!log) return Decline(call, work, "without its log|det| output");
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut2, *log, shape, "self's batch shape", kOut2)) return s;
    }
  } else if (op == F::Op::kTriangularSolve) {
    const size_t rb = self->view.size(), ra = other->view.size();
    if (rb < 2 || ra < 2 || other->view[ra - 1] != other->view[ra - 2] || self->view[rb - 2] != other->view[ra - 1]) {
      return reject(F::Role::kOther, "A " + DimsText(other->view) + " is not a batch of square matrices of B's " +
                                         DimsText(self->view) + " rows");
    }
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    Dims batch_b(self->view.begin(), self->view.end() - 2), batch_a(other->view.begin(), other->view.end() - 2);
    if (!aclnn_bindgen::BroadcastShapes(batch_b, batch_a, &shape)) {
      return reject(F::Role::kOther, "batch " + DimsText(batch_a) + " does not broadcast with B's " + DimsText(batch_b));
    }
    Dims a_shape = shape;
    a_shape.push_back(other->view[ra - 2]);
    a_shape.push_back(other->view[ra - 1]);
    shape.push_back(self->view[rb - 2]);
    shape.push_back(self->view[rb - 1]);
    made->upper = RoleBool(call, family, F::Role::kUpper, true);
    made->transpose = RoleBool(call, family, F::Role::kTranspose, false);
    made->unitriangular = RoleBool(call, family, F::Role::kUnitriangular, false);
    if (const TensorDesc* copy = RoleTensor(call, family, F::Role::kOut2)) {
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut2, *copy, a_shape, "A's broadcast shape", kOut2)) {
        return s;
      }
    }
  } else if (op == F::Op::kQr || op == F::Op::kSvd) {
    const size_t rank = self->view.size();
    if (rank < 2) return reject(F::Role::kSelf, "shape " + DimsText(self->view) + " is not a batch of matrices");
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    const int64_t m = self->view[rank - 2], n = self->view[rank - 1], k = std::min(m, n);
    // An empty matrix's full U is an identity LAPACK is not asked for: not modelled (QR's complete
    // Q, the same identity, is written by Qr).
    if ((m == 0 || n == 0) && op == F::Op::kSvd) return Decline(call, work, "for an empty matrix");
    const Dims batch(self->view.begin(), self->view.end() - 2);
    auto with = [&](int64_t rows, int64_t cols) {
      Dims d = batch;
      d.push_back(rows);
      if (cols >= 0) d.push_back(cols);
      return d;
    };
    auto keep = [&](int role, int slot, const Dims& d, const char* what) -> aclnnStatus {
      const TensorDesc* t = RoleTensor(call, family, role);
      if (!t) return reject(role, "the output is missing");
      return made->KeepOutput(call, family, role, *t, d, what, slot);
    };
    if (op == F::Op::kQr) {
      made->mode = RoleInt(call, family, F::Role::kMode, 0);
      // aclnnQr's some: the reduced factors, else the complete ones (torch.qr's some).
      if (RoleParam(call, family, F::Role::kSome)) made->mode = RoleBool(call, family, F::Role::kSome, true) ? 0 : 1;
      if (made->mode < 0 || made->mode > 2) {
        return reject(F::Role::kMode, "mode " + std::to_string(made->mode) + " is not 0 (reduced), 1 (complete) or 2 (r)");
      }
      if (aclnnStatus s = keep(F::Role::kOut2, kOut2, with(made->mode == 1 ? m : k, n), "R's shape")) return s;
      if (made->mode == 2) {
        *work = owned.release();  // Q is left as it is (the page: an empty tensor)
        return ACLNN_SUCCESS;
      }
      shape = with(m, made->mode == 1 ? m : k);
    } else {
      made->full = RoleBool(call, family, F::Role::kFullMatrices, false);
      made->compute_uv = RoleBool(call, family, F::Role::kComputeUv, true);
      const Dims u_shape = with(m, made->full ? m : k), v_shape = with(n, made->full ? n : k);
      if (!made->compute_uv) {  // u and v undefined: written when shaped for them, else left alone
        const TensorDesc* u = RoleTensor(call, family, F::Role::kOut2);
        const TensorDesc* v = RoleTensor(call, family, F::Role::kOut3);
        made->compute_uv = u && v && u->view == u_shape && v->view == v_shape;
      }
      if (made->compute_uv) {
        if (aclnnStatus s = keep(F::Role::kOut2, kOut2, u_shape, "U's shape")) return s;
        if (aclnnStatus s = keep(F::Role::kOut3, kOut3, v_shape, "V's shape")) return s;
      }
      shape = with(k, -1);
    }
  } else if (op == F::Op::kPdist) {
    if (self->view.size() != 2) return reject(F::Role::kSelf, "pdist takes a matrix, got " + DimsText(self->view));
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    // p >= 0 and not NaN ("p为负数或nan") is the page's range, which phase 1's rules check before the family.
    made->p = RoleNumber(call, family, F::Role::kP, -1, 2);
    const int64_t n = self->view[0];
    shape = Dims{n * (n - 1) / 2};
  } else if (op == F::Op::kCdistBackward) {
    // x1 [..., P, M] and x2 [..., R, M] broadcast; grad and cdist [..., P, R]; out x1's broadcast shape.
    const TensorDesc* dist = RoleTensor(call, family, F::Role::kDist);
    Dims pairs;
    if (aclnnStatus s = pair_shape(&pairs)) return s;
    for (int role : {F::Role::kGrad, F::Role::kDist}) {
      const TensorDesc* t = role == F::Role::kGrad ? third : dist;
      if (t->view != pairs) {
        return reject(role, "shape " + DimsText(t->view) + " is not the distances' " + DimsText(pairs));
      }
    }
    made->tensor(kOut2).Set(RoleName(call, family, F::Role::kDist), *dist);
    shape = Dims(pairs.begin(), pairs.end() - 1);  // the batch and x1's rows, then their length
    shape.push_back(self->view[self->view.size() - 1]);
    made->p = RoleNumber(call, family, F::Role::kP, -1, 2);
    if (made->p == -1) made->p = INFINITY;  // op-plugin's cast of an infinite p
    if (!(made->p >= 0)) return reject(F::Role::kP, "p must be a non-negative number or -1 (inf), got " + std::to_string(made->p));
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
  } else if (op == F::Op::kRenorm) {
    const int64_t rank = static_cast<int64_t>(self->view.size());
    const int64_t given = RoleInt(call, family, F::Role::kDim, 0);
    if (!WrapDim(given, rank, &made->dim) || rank == 0) {
      return RejectDim(call, family, F::Role::kDim, given, rank);
    }
    made->p = RoleNumber(call, family, F::Role::kP, -1, 2);
    made->maxnorm = RoleNumber(call, family, F::Role::kMaxnorm, -1, 0);
    if (!(made->p > 0)) return reject(F::Role::kP, "p must be positive, got " + std::to_string(made->p));
    if (!(made->maxnorm >= 0)) return reject(F::Role::kMaxnorm, "must not be negative, got " + std::to_string(made->maxnorm));
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    shape = self->view;
  } else if (op == F::Op::kFillDiagonal) {
    const Dims& d = self->view;
    if (d.size() < 2) return reject(F::Role::kSelf, "fill_diagonal takes 2 dimensions or more, got " + DimsText(d));
    if (d.size() > 2 && !std::all_of(d.begin(), d.end(), [&](int64_t e) { return e == d[0]; })) {
      return reject(F::Role::kSelf, "all dimensions of " + DimsText(d) + " must have one length beyond 2 dimensions");
    }
    made->value = RoleNumber(call, family, F::Role::kValue, -1, 0);
    made->wrap = RoleBool(call, family, F::Role::kWrap, false);
    shape = d;
  } else if (op == F::Op::kChannelShuffle) {
    made->groups = RoleInt(call, family, F::Role::kGroups, 1);
    if (self->view.size() < 3) {
      return reject(F::Role::kSelf, "channel_shuffle takes [N, C, *] with 3 dimensions or more, got " + DimsText(self->view));
    }
    if (made->groups <= 0 || self->view[1] % made->groups != 0) {
      return reject(F::Role::kGroups, "groups " + std::to_string(made->groups) + " does not divide the " +
                                          std::to_string(self->view[1]) + " channels");
    }
    shape = self->view;
  } else if (op == F::Op::kExpSegsum) {
    if (self->view.empty()) return reject(F::Role::kSelf, "a zero-dimensional tensor has no row of segments");
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    shape = self->view;
    shape.push_back(self->view.back());
  } else if (op == F::Op::kExpSegsumBackward) {
    const Dims& d = self->view;
    if (d.size() < 2 || d[d.size() - 1] != d[d.size() - 2]) {
      return reject(F::Role::kSelf, "shape " + DimsText(d) + " is not a batch of square matrices");
    }
    if (other->view != d) return reject(F::Role::kOther, "shape " + DimsText(other->view) + " is not " + DimsText(d));
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
    shape.assign(d.begin(), d.end() - 1);
  } else {  // cdist
    if (aclnnStatus s = pair_shape(&shape)) return s;
    made->p = RoleNumber(call, family, F::Role::kP, -1, 2);
    if (!(made->p >= 0)) return reject(F::Role::kP, "p must be a non-negative number, got " + std::to_string(made->p));
    if (IsIntegralType(self->dtype)) return DeclineDtype(call, work, self->dtype);
  }
  made->shape = shape;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "the result's shape", kOut)) return s;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
