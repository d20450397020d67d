// The complex compute types of the elementwise kernels: COMPLEX64 computes in std::complex<float>,
// COMPLEX128 in std::complex<double>, as PyTorch's CPU kernels do (c10::complex).
//
// Only the generated units with an API whose page lists a complex dtype for its kernel's inputs
// include this header (and parse <complex>), and only those APIs bind their kernel through
// BindElementwiseComplex: a kernel expression that means nothing on complex values (a comparison,
// std::max) is never instantiated for them.
#ifndef ACLNN_SIM_COMPLEX_H_
#define ACLNN_SIM_COMPLEX_H_

#include <complex>

#include "aclnn_sim/entry.h"

namespace aclsim {

template <typename Part>
struct IsComplex<std::complex<Part>> : std::true_type {};

// The element loop of a complex kernel, one element at a time (std::complex is no GCC vector
// element type). Each element's inputs are read before its result is written, so an output that
// is one of the inputs (in-place APIs) is safe.
template <typename Kernel, typename T, size_t... I>
void ComplexBlock(const void* kernel, const void* const* in, void* out, int64_t n) {
  const Kernel k = *static_cast<const Kernel*>(kernel);
  const T* src[sizeof...(I) + 1] = {static_cast<const T*>(in[I])...};
  T* dst = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(k(src[I][i]...));
  (void)src;
}

template <typename Kernel, typename T, size_t... I>
BoundKernel MakeComplexBound(const Call& call, std::index_sequence<I...>) {
  BoundKernel bound;
  bound.block = &ComplexBlock<Kernel, T, I...>;
  OwnKernel<Kernel>(&bound, call);
  return bound;
}

// BindElementwise, and the complex compute types too.
template <template <typename> class K, size_t N, IntegerMath Math>
BoundKernel BindElementwiseComplex(ComputeType type, const Call& call) {
  switch (type) {
    case ComputeType::kComplex64:
      return MakeComplexBound<K<std::complex<float>>, std::complex<float>>(call, std::make_index_sequence<N>());
    case ComputeType::kComplex128:
      return MakeComplexBound<K<std::complex<double>>, std::complex<double>>(call, std::make_index_sequence<N>());
    default:
      return BindElementwise<K, N, Math>(type, call);
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMPLEX_H_
