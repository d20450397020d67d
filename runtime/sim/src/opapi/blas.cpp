#include "opapi/blas.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

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
// path's (uncapped, as oneDNN's), auto's, and a CPU's without SSE3 (Prescott's kernels would not run
// there; no such CPU runs the AVX2 path, which needs AVX2, FMA and F16C). The baseline path takes
// Prescott's SSE3 kernels rather than Nehalem's: on this Sapphire Rapids they were the faster, one
// thread's CPU time for an sgemm at 1024^3 47 ms against 63.5 (MKL's SSE4.2 kernel, PyTorch's: 49),
// the stride-1 conv2d's 5.7 against 7.6 ms, a double QR of 600x600 34 against 42. OpenBLAS
// 0.3.34's build has one kernel set for Katmai to Dunnington, Prescott's, and names it "Katmai".
const char* CoreForPath() {
  if (Settings().isa == Isa::kAuto) return nullptr;
  switch (KernelPath()) {
    case Isa::kAvx2: return "Haswell";
    case Isa::kBaseline: return __builtin_cpu_supports("sse3") ? "Prescott" : nullptr;
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
  // One thread, set here before any call can reach the library, so that no family can forget it
  // (why one: SplitGemm's comment).
  library.scipy_openblas_set_num_threads(1);
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

namespace {

// A product worth splitting (OpenBLAS's own threshold is 2^18 multiply-adds; a pool's hand-off
// costs about what 2^20 do on one core), and the least a piece does.
constexpr int64_t kSplitWork = int64_t{1} << 21;
constexpr int64_t kPieceWork = int64_t{1} << 19;
// Piece boundaries fall on multiples of this, so that every piece but the last fills OpenBLAS's
// register blocks (16 wide at most on the paths it runs here).
constexpr int64_t kPieceAlign = 32;

// OpenBLAS runs on one thread (Open sets it where the library opens); SplitGemm spreads a product
// over the simulator's pool. OpenBLAS's own threads share packed panels and wait for one another between them, spinning: on
// 2 cores shared with other processes, a product waited whenever one of them was preempted. perf
// of the stride-1 conv2d ([1, 64, 56, 56] 3x3, nine products a call) under a load average of 8:
// 88% of the cycles in inner_thread, exec_blas_async_wait and blas_thread_server, 3% in
// sgemm_kernel, 20-136 ms a call at the median against 5-7 on one thread. Its threads callback
// (scipy_openblas_set_threads_callback_function) ran the same jobs, waits included, on the pool:
// slower still. LAPACK's routines run on one thread too (OpenBLAS has no per-call setting).
//
// C = alpha * op(A) @ op(B) + beta * C in independent blocks of C's rows or columns (the longer
// side), one OpenBLAS call each, spread over the pool, with no wait but the last. The pieces
// depend on the shape and the thread count alone, so a result does not vary from call to call;
// an element may round differently from one unsplit call's where another of OpenBLAS's kernels
// (Haswell's, an edge kernel) sums it, as under OpenBLAS's own threads, whose results differed
// from one thread's too. Twice as many pieces as threads, so that a thread that loses its core
// leaves its second piece to the others. A product the pool cannot take (one inside a parallel
// task) is one call.
template <typename T, typename Gemm>
void SplitGemm(Gemm gemm, CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n,
               blasint k, T alpha, const T* a, blasint lda, const T* b, blasint ldb, T beta, T* c, blasint ldc) {
  if (order == CblasColMajor) {  // C^T = op(B)^T @ op(A)^T, row-major
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
    std::swap(ta, tb);
  }
  const int64_t work = int64_t{m} * n * std::max<blasint>(k, 1);
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  const int threads = ParallelThreads();
  const int64_t pieces = std::min({int64_t{2} * threads, work / kPieceWork, extent / kPieceAlign});
  if (threads < 2 || work < kSplitWork || pieces < 2) {
    gemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const int64_t blocks = (extent + kPieceAlign - 1) / kPieceAlign;
  const auto piece_of = [&](int64_t piece) {
    const int64_t begin = std::min(extent, blocks * piece / pieces * kPieceAlign);
    const int64_t end = std::min(extent, blocks * (piece + 1) / pieces * kPieceAlign);
    if (end <= begin) return;
    const auto size = static_cast<blasint>(end - begin);
    if (by_rows) {
      gemm(CblasRowMajor, ta, tb, size, n, k, alpha, a + begin * (ta == CblasNoTrans ? lda : 1), lda, b, ldb, beta,
           c + begin * ldc, ldc);
    } else {
      gemm(CblasRowMajor, ta, tb, m, size, k, alpha, a, lda, b + begin * (tb == CblasNoTrans ? 1 : ldb), ldb, beta,
           c + begin, ldc);
    }
  };
  if (!TryParallelFor(pieces, piece_of)) gemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

}  // namespace aclsim

// The families' calls, by the names the wheel's headers declare: hidden definitions (libopapi
// exports aclnn's API alone) that forward to the library opened for the kernel path.
#define ACLSIM_BLAS_FORWARD(Return, name, Params, Args) \
  extern "C" Return name Params { return aclsim::Called().name Args; }

// The products, split over the pool (SplitGemm).
#define ACLSIM_BLAS_SPLIT(T, name)                                                                            \
  extern "C" void name(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,                           \
                       const enum CBLAS_TRANSPOSE tb, const blasint m, const blasint n, const blasint k,      \
                       const T alpha, const T* a, const blasint lda, const T* b, const blasint ldb,           \
                       const T beta, T* c, const blasint ldc) {                                               \
    aclsim::SplitGemm<T>(aclsim::Called().name, order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); \
  }
ACLSIM_BLAS_SPLIT(float, scipy_cblas_sgemm)
ACLSIM_BLAS_SPLIT(double, scipy_cblas_dgemm)
#undef ACLSIM_BLAS_SPLIT
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
