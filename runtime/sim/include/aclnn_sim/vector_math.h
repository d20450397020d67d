// The float math functions that kernels call through <cmath> (std::exp, std::tanh, std::log1p, ...)
// declared with their vector variants, so that GCC calls glibc's libmvec for 4 or 8 elements at a
// time wherever it vectorises a loop over them: the elementwise engine's block loops (entry.h's
// ElementLoop, 8 results a step) and the families' loops. Without them every lane of a silu, a
// sigmoid or a gelu calls the scalar function in turn.
//
// glibc declares the same variants in <math.h> only under -ffast-math (bits/math-vector.h), which
// the simulator never uses: it changes NaN and Inf results. These declarations change nothing but
// the routine, within its accuracy: libmvec's float routines are within 4 ulp of the exact result
// (glibc's manual; the bench's transcendental rows and tests/sim/test_kernel_paths.py check each
// path against float64), and give NaN for NaN and the limits for infinities, as the scalar ones.
// Each path has its own variant: the baseline path's 4-lane one (SSE; glibc runs it in SSE4.1
// where the CPU has it), the AVX2 path's 8-lane one (AVX-512 code calls the 16-lane one). They
// round differently on some inputs (of the 2^32 floats, glibc 2.36: expf's 4- and 8-lane variants
// differ on 17.8M, logf's on 487M, tanhf's on none; each within 4 ulp of the exact value), so these
// functions agree across paths within their accuracy, not bit for bit.
//
// Only float: double kernels keep glibc's scalar routines (within 1 ulp), and the families'
// double loops (the golden references' precision) stay as they are. tanhf, log1pf, erff and
// expm1f came with glibc 2.35 (expf and logf with 2.22): older glibcs keep the scalar routines.
#ifndef ACLNN_SIM_VECTOR_MATH_H_
#define ACLNN_SIM_VECTOR_MATH_H_

#include <cmath>

#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__FAST_MATH__)
#define ACLSIM_VECTOR_MATH(name) float name(float) noexcept __attribute__((simd("notinbranch")))
extern "C" {
#if __GLIBC_PREREQ(2, 22)
ACLSIM_VECTOR_MATH(expf);
ACLSIM_VECTOR_MATH(logf);
#endif
#if __GLIBC_PREREQ(2, 35)
ACLSIM_VECTOR_MATH(tanhf);
ACLSIM_VECTOR_MATH(log1pf);
ACLSIM_VECTOR_MATH(expm1f);
ACLSIM_VECTOR_MATH(erff);
#endif
}
#undef ACLSIM_VECTOR_MATH
#endif

#endif  // ACLNN_SIM_VECTOR_MATH_H_
