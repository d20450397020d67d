"""Linear algebra on the trailing matrices of a batch: outer products added to a matrix (torch.addr),
cross products, inverses and determinants through LAPACK (scipy-openblas32, the matmul family's
BLAS), pairwise distances (runtime/sim/src/opapi/families/linalg.cpp)."""

from gen.families.model import Family

LINALG = Family(
    "linalg", "PlanLinalg",
    ops=("addr", "cross", "inverse", "cdist", "slogdet", "cholesky", "triangular_solve", "qr", "svd", "pdist",
         "cdist_backward", "renorm", "fill_diagonal", "channel_shuffle", "logdet", "exp_segsum", "exp_segsum_backward"),
    output_shape="given",
    # out2: slogdet's log|det|, triangular_solve's copy of A, qr's R, svd's U; out3: svd's V;
    # grad and dist: cdist_backward's incoming gradient and forward result.
    roles=("self", "other", "third", "beta", "alpha", "dim", "p", "compute_mode", "upper", "transpose",
           "unitriangular", "mode", "full_matrices", "compute_uv", "out", "out2", "out3", "grad", "dist", "maxnorm",
           "value", "wrap", "groups", "some"),
    required=("out",),
    doc="addr (beta * self + alpha * the outer product of two vectors, self broadcast), the cross product "
        "of 3-vectors along dim, the p-norm distance of each pair of rows of two batches of matrices (cdist); "
        "on each trailing square matrix through LAPACK in float (double for DOUBLE): the inverse (getrf/getri), the sign and log "
        "of |det| (getrf), the Cholesky factor (potrf), the solution of a triangular system (trsm, batches "
        "broadcast), QR (geqrf/orgqr) and the singular value decomposition (gesdd), LAPACK's signs; pdist, "
        "cdist's gradient, renorm's slices scaled to a largest p-norm, fill_diagonal, channel_shuffle; logdet (log "
        "det: NaN for a negative determinant, -inf for a singular matrix); qr's `some` (reduced, else complete); "
        "exp_segsum (each row x of n values gives the n x n matrix exp(x[j+1] + ... + x[i]) below the diagonal, "
        "1 on it, 0 above) and its backward (self the incoming gradient, other the forward's result)")
