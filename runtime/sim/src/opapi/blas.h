// OpenBLAS (the scipy-openblas32 wheel) for the families that multiply matrices or factor them
// (matmul, conv, rnn, vocab_parallel, linalg, ...). OpenBLAS computes on the calling thread alone (set
// where the library opens); the sgemm and dgemm the families call are split by blas.cpp into pieces
// over the simulator's pool (ACLNN_SIM_THREADS), LAPACK's routines run on one thread.
//
// libopapi does not link it: OpenBLAS picks its kernels (its "core") from the CPU when it loads,
// reading OPENBLAS_CORETYPE then and never again, so the simulator opens it itself, once, after
// reading ACLNN_SIM_ISA (LoadBlas), and the scipy_cblas_* and scipy_LAPACKE_* calls of the families
// go through blas.cpp's definitions of those names to the library's. The kernel path's core:
//   avx512  OpenBLAS's own choice (oneDNN's AVX-512 path is uncapped too)
//   avx2    Haswell (AVX2 and FMA)
//   baseline Prescott (SSE3; OpenBLAS names its kernel set "Katmai"), faster here than Nehalem's
// ACLNN_SIM_ISA=auto, or an OPENBLAS_CORETYPE the user set, leaves the choice to OpenBLAS.
#ifndef ACLNN_SIM_OPAPI_BLAS_H_
#define ACLNN_SIM_OPAPI_BLAS_H_

#include <string>

// The LAPACKE routines the linalg family calls (the wheel's lapacke.h declares them with its
// lapack_int, int in this 32-bit-index build; its header is not included for the few used).
extern "C" {
int scipy_LAPACKE_sgetrf(int matrix_layout, int m, int n, float* a, int lda, int* ipiv);
int scipy_LAPACKE_dgetrf(int matrix_layout, int m, int n, double* a, int lda, int* ipiv);
int scipy_LAPACKE_sgetri(int matrix_layout, int n, float* a, int lda, const int* ipiv);
int scipy_LAPACKE_dgetri(int matrix_layout, int n, double* a, int lda, const int* ipiv);
int scipy_LAPACKE_spotrf(int matrix_layout, char uplo, int n, float* a, int lda);
int scipy_LAPACKE_dpotrf(int matrix_layout, char uplo, int n, double* a, int lda);
int scipy_LAPACKE_sgeqrf(int matrix_layout, int m, int n, float* a, int lda, float* tau);
int scipy_LAPACKE_dgeqrf(int matrix_layout, int m, int n, double* a, int lda, double* tau);
int scipy_LAPACKE_sorgqr(int matrix_layout, int m, int n, int k, float* a, int lda, const float* tau);
int scipy_LAPACKE_dorgqr(int matrix_layout, int m, int n, int k, double* a, int lda, const double* tau);
int scipy_LAPACKE_sgesdd(int matrix_layout, char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu,
                         float* vt, int ldvt);
int scipy_LAPACKE_dgesdd(int matrix_layout, char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu,
                         double* vt, int ldvt);
}

namespace aclsim {

// Opens OpenBLAS for the kernel path, once per process: false, with the reason in `why`, where the
// library or one of its routines cannot be found (every launch is then refused with it). Phase 2
// calls it before the first kernel launch, so that OpenBLAS's fork handler is registered before the
// stream workers' (ascendcl/stream_worker.cpp: theirs must run first).
bool LoadBlas(std::string* why);

// "openblas:<core>" ("openblas:Haswell"): the kernels OpenBLAS runs, as engine_paths reports them.
const char* BlasRoute();

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_BLAS_H_
