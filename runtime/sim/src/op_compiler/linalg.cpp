// The aclop bridge's linear algebra (math.cpp's table registers it): MatrixInverse,
// MatrixTriangularSolve, Qr and Svd, each by the simulator's aclnn API of the same decomposition.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "op_compiler/bridge.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

namespace {

using QrApi = Phase1<const aclTensor*, int64_t, aclTensor*, aclTensor*>;
using SvdApi = Phase1<const aclTensor*, const bool, const bool, aclTensor*, aclTensor*, aclTensor*>;
using TriangularSolveApi = Phase1<const aclTensor*, const aclTensor*, bool, bool, bool, aclTensor*, aclTensor*>;

}  // namespace

// MatrixInverse (x; attribute adjoint): the inverse of each matrix of x, aclnnInverse. adjoint asks
// for the inverse of the conjugate transpose, which op-plugin's inverse never sets.
aclError MatrixInverse(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 1)) return s;
  if (call.Bool("adjoint", false)) {
    return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute adjoint true (the inverse of the conjugate transpose) is not modelled");
  }
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* y = o.Tensor(call.outputs[0], "y");
  if (o.status()) return o.status();
  return Aclnn<UnaryApi>(call, "aclnnInverse", x, y);
}

// MatrixTriangularSolve (matrix [..., M, M], rhs [..., M, K]; attributes lower, adjoint): x with
// op(matrix) x = rhs, op(matrix) the lower (or upper) triangle of matrix, transposed when adjoint
// (TensorFlow's matrix_triangular_solve, whose attributes these are; real dtypes, so the adjoint is the
// transpose). aclnnTriangularSolve computes it with upper = !lower, transpose = adjoint; its copy of
// the coefficients (mOut, broadcast to the batch) has no output here and goes to scratch.
aclError MatrixTriangularSolve(const OpCall& call) {
  if (aclError s = call.Arity(2, 2, 1)) return s;
  const std::vector<int64_t>& matrix_dims = call.inputs[0].desc->dims;
  const std::vector<int64_t>& rhs_dims = call.inputs[1].desc->dims;
  if (matrix_dims.size() < 2 || rhs_dims.size() < 2) {
    return call.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "matrix " + ListText(matrix_dims) + " and rhs " + ListText(rhs_dims) +
                                                       " are not both batches of matrices");
  }
  // The coefficients' shape broadcast to the batch of both: its batch dimensions aligned from the right.
  std::vector<int64_t> coefficients(std::max(matrix_dims.size(), rhs_dims.size()), 1);
  for (size_t i = 0; i + 2 < coefficients.size(); ++i) {
    const size_t from_end = coefficients.size() - i;
    const int64_t a = from_end <= matrix_dims.size() ? matrix_dims[matrix_dims.size() - from_end] : 1;
    const int64_t b = from_end <= rhs_dims.size() ? rhs_dims[rhs_dims.size() - from_end] : 1;
    coefficients[i] = a == 1 ? b : a;
  }
  coefficients[coefficients.size() - 2] = matrix_dims[matrix_dims.size() - 2];
  coefficients.back() = matrix_dims.back();
  AclnnObjects o(call);
  aclTensor* matrix = o.Tensor(call.inputs[0], "matrix");
  aclTensor* rhs = o.Tensor(call.inputs[1], "rhs");
  aclTensor* x = o.Tensor(call.outputs[0], "y");
  aclTensor* copy = o.Scratch(call.inputs[0].desc->dtype, coefficients);
  if (o.status()) return o.status();
  return Aclnn<TriangularSolveApi>(call, "aclnnTriangularSolve", rhs, matrix, !call.Bool("lower", true),
                                   call.Bool("adjoint", false), false, x, copy);
}

// Qr (x; attribute full_matrices) to q and r: aclnnLinalgQr's mode 1 (complete) or 0 (reduced).
aclError Qr(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 2)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* q = o.Tensor(call.outputs[0], "q");
  aclTensor* r = o.Tensor(call.outputs[1], "r");
  if (o.status()) return o.status();
  return Aclnn<QrApi>(call, "aclnnLinalgQr", x, call.Bool("full_matrices", false) ? 1 : 0, q, r);
}

// Svd (x; attributes compute_uv, full_matrices) to sigma, u and v, x = u diag(sigma) v^T: v, not
// its transpose, as aclnnSvd gives it (its page: v is [..., N, K]).
aclError Svd(const OpCall& call) {
  if (aclError s = call.Arity(1, 1, 3)) return s;
  AclnnObjects o(call);
  aclTensor* x = o.Tensor(call.inputs[0], "x");
  aclTensor* sigma = o.Tensor(call.outputs[0], "sigma");
  aclTensor* u = o.Tensor(call.outputs[1], "u");
  aclTensor* v = o.Tensor(call.outputs[2], "v");
  if (o.status()) return o.status();
  return Aclnn<SvdApi>(call, "aclnnSvd", x, call.Bool("full_matrices", false), call.Bool("compute_uv", true), sigma, u, v);
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnTriangularSolve, TriangularSolveApi);
ACLOP_SAME(aclnnInverse, UnaryApi);
ACLOP_SAME(aclnnLinalgQr, QrApi);
ACLOP_SAME(aclnnSvd, SvdApi);
