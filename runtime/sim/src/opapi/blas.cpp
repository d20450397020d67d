#include "opapi/blas.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include <cblas.h>

#include "ascendcl/settings.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

// Every OpenBLAS routine the simulator calls, resolved when the library opens: a routine missing
// from the library refuses the first launch rather than one call deep in a family.
#define ACLSIM_BLAS_ROUTINES(X)                                                                          \
  X(scipy_cblas_sgemm) X(scipy_cblas_dgemm) X(scipy_cblas_strsm) X(scipy_cblas_dtrsm)                    \
  X(scipy_LAPACKE_sgetrf) X(scipy_LAPACKE_dgetrf) X(scipy_LAPACKE_sgetri) X(scipy_LAPACKE_dgetri)        \
  X(scipy_LAPACKE_spotrf) X(scipy_LAPACKE_dpotrf) X(scipy_LAPACKE_sgeqrf) X(scipy_LAPACKE_dgeqrf)        \
  X(scipy_LAPACKE_sorgqr) X(scipy_LAPACKE_dorgqr) X(scipy_LAPACKE_sgesdd) X(scipy_LAPACKE_dgesdd)        \
  X(scipy_openblas_set_num_threads) X(scipy_openblas_get_corename)

struct Library {
  std::string error;              // why it could not open; "" once open
  std::string route = "openblas";  // "openblas:<core>" once open
#define ACLSIM_BLAS_POINTER(name) decltype(&::name) name = nullptr;
  ACLSIM_BLAS_ROUTINES(ACLSIM_BLAS_POINTER)
#undef ACLSIM_BLAS_POINTER
};

// The core OpenBLAS is told to run on the kernel path, or null for its own choice: the AVX-512
// path's (uncapped, as oneDNN's), auto's, and a CPU's without SSE4.2 (Nehalem's kernels would not run
// there; no such CPU runs the AVX2 path, which needs AVX2, FMA and F16C).
const char* CoreForPath() {
  if (Settings().isa == Isa::kAuto) return nullptr;
  switch (KernelPath()) {
    case Isa::kAvx2: return "Haswell";
    case Isa::kBaseline: return __builtin_cpu_supports("sse4.2") ? "Nehalem" : nullptr;
    default: return nullptr;
  }
}

Library Open() {
  Library library;
  // OpenBLAS reads OPENBLAS_CORETYPE in its constructor, while dlopen runs it. The variable is put
  // back as it was right after (a shell's, a subprocess's numpy is not capped by the simulator's
  // setting); one the user set wins over the path's, as OpenBLAS documents it. This runs once,
  // before the first kernel launch: no kernel reads the environment meanwhile.
  const char* core = CoreForPath();
  const bool cap = core && !std::getenv("OPENBLAS_CORETYPE");
  if (cap) setenv("OPENBLAS_CORETYPE", core, 1);
  // Found through libopapi's RUNPATH (next to an installed aclnn package, or the build's wheel).
  void* handle = dlopen("libscipy_openblas.so", RTLD_NOW | RTLD_LOCAL);
  if (cap) unsetenv("OPENBLAS_CORETYPE");
  if (!handle) {
    const char* error = dlerror();
    library.error = std::string("the simulator cannot open OpenBLAS (pip install scipy-openblas32): ") +
                    (error ? error : "libscipy_openblas.so");
    return library;
  }
#define ACLSIM_BLAS_RESOLVE(name)                                                                         \
  library.name = reinterpret_cast<decltype(library.name)>(dlsym(handle, #name));                        \
  if (!library.name) {                                                                                   \
    library.error = "the simulator's OpenBLAS has no " #name;                                            \
    return library;                                                                                      \
  }
  ACLSIM_BLAS_ROUTINES(ACLSIM_BLAS_RESOLVE)
#undef ACLSIM_BLAS_RESOLVE
  library.route += std::string(":") + library.scipy_openblas_get_corename();
  return library;
}

const Library& Blas() {
  static const Library* library = new Library(Open());  // never destroyed: kernels may run during exit
  return *library;
}

// The library for a call of a family: opened by then (phase 2 refuses every launch otherwise), the
// call recorded as the "blas" engine's route.
const Library& Called() {
  static EnginePath engine(__FILE__);
  const Library& library = Blas();
  if (!library.error.empty()) {  // a BLAS call outside a kernel launch: a defect of the simulator's
    std::fprintf(stderr, "aclnn simulator: %s\n", library.error.c_str());
    std::abort();
  }
  engine.TookRoute(library.route.c_str());
  return library;
}

}  // namespace

bool LoadBlas(std::string* why) {
  const Library& library = Blas();
  if (library.error.empty()) return true;
  *why = library.error;
  return false;
}

const char* BlasRoute() { return Blas().route.c_str(); }

// OpenBLAS keeps its own threads. Its threads callback (scipy_openblas_set_threads_callback_function)
// would run a product's jobs on the simulator's pool instead; measured on the stride-1 conv2d (nine
// products a call) on 2 cores under a load average of 14-17, it was slower, not faster: best of 10,
// three alternated processes each, 37-148 ms a call against 10-28 ms with OpenBLAS's threads (its
// jobs wait for one another's panels, and a pool thread asleep wakes later than OpenBLAS's, which
// spin between products).
void UseBlas() {
  static std::once_flag once;
  std::call_once(once, [] { Called().scipy_openblas_set_num_threads(std::max(1, ParallelThreads())); });
}

}  // namespace aclsim

// The families' calls, by the names the wheel's headers declare: hidden definitions (libopapi
// exports aclnn's API alone) that forward to the library opened for the kernel path.
#define ACLSIM_BLAS_FORWARD(Return, name, Params, Args) \
  extern "C" Return name Params { return aclsim::Called().name Args; }

ACLSIM_BLAS_FORWARD(void, scipy_cblas_sgemm,
                    (const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta, const enum CBLAS_TRANSPOSE tb,
                     const blasint m, const blasint n, const blasint k, const float alpha, const float* a,
                     const blasint lda, const float* b, const blasint ldb, const float beta, float* c,
                     const blasint ldc),
                    (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
ACLSIM_BLAS_FORWARD(void, scipy_cblas_dgemm,
                    (const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta, const enum CBLAS_TRANSPOSE tb,
                     const blasint m, const blasint n, const blasint k, const double alpha, const double* a,
                     const blasint lda, const double* b, const blasint ldb, const double beta, double* c,
                     const blasint ldc),
                    (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
ACLSIM_BLAS_FORWARD(void, scipy_cblas_strsm,
                    (const enum CBLAS_ORDER order, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,
                     const enum CBLAS_TRANSPOSE trans, const enum CBLAS_DIAG diag, const blasint m, const blasint n,
                     const float alpha, const float* a, const blasint lda, float* b, const blasint ldb),
                    (order, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb))
ACLSIM_BLAS_FORWARD(void, scipy_cblas_dtrsm,
                    (const enum CBLAS_ORDER order, const enum CBLAS_SIDE side, const enum CBLAS_UPLO uplo,
                     const enum CBLAS_TRANSPOSE trans, const enum CBLAS_DIAG diag, const blasint m, const blasint n,
                     const double alpha, const double* a, const blasint lda, double* b, const blasint ldb),
                    (order, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_sgetrf, (int layout, int m, int n, float* a, int lda, int* ipiv),
                    (layout, m, n, a, lda, ipiv))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dgetrf, (int layout, int m, int n, double* a, int lda, int* ipiv),
                    (layout, m, n, a, lda, ipiv))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_sgetri, (int layout, int n, float* a, int lda, const int* ipiv),
                    (layout, n, a, lda, ipiv))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dgetri, (int layout, int n, double* a, int lda, const int* ipiv),
                    (layout, n, a, lda, ipiv))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_spotrf, (int layout, char uplo, int n, float* a, int lda),
                    (layout, uplo, n, a, lda))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dpotrf, (int layout, char uplo, int n, double* a, int lda),
                    (layout, uplo, n, a, lda))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_sgeqrf, (int layout, int m, int n, float* a, int lda, float* tau),
                    (layout, m, n, a, lda, tau))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dgeqrf, (int layout, int m, int n, double* a, int lda, double* tau),
                    (layout, m, n, a, lda, tau))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_sorgqr, (int layout, int m, int n, int k, float* a, int lda, const float* tau),
                    (layout, m, n, k, a, lda, tau))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dorgqr,
                    (int layout, int m, int n, int k, double* a, int lda, const double* tau),
                    (layout, m, n, k, a, lda, tau))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_sgesdd,
                    (int layout, char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt,
                     int ldvt),
                    (layout, jobz, m, n, a, lda, s, u, ldu, vt, ldvt))
ACLSIM_BLAS_FORWARD(int, scipy_LAPACKE_dgesdd,
                    (int layout, char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu,
                     double* vt, int ldvt),
                    (layout, jobz, m, n, a, lda, s, u, ldu, vt, ldvt))
#undef ACLSIM_BLAS_FORWARD
