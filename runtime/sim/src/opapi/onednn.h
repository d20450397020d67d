// oneDNN (the onednn-cpu-gomp wheel) for the matmul family's 16-bit products: BFLOAT16 and FLOAT16
// operands multiplied with the CPU's own instructions for them (AMX, AVX512-BF16, AVX512-FP16),
// accumulated in float as the NPU's Cube does, where OpenBLAS (no sbgemm) would convert them to float
// first; and for the conv family's float convolutions, the kernels PyTorch CPU runs. A build without
// oneDNN (CMake did not find it in the venv) has this interface and no such kernels: every product
// then takes OpenBLAS's sgemm, every convolution im2col and sgemm; so does a build with oneDNN run
// with ACLNN_SIM_ONEDNN=0 (each entry below answers false, as where oneDNN has no kernel).
#ifndef ACLNN_SIM_OPAPI_ONEDNN_H_
#define ACLNN_SIM_OPAPI_ONEDNN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "acl/acl_base.h"

namespace aclsim {

// Whether oneDNN multiplies `dtype` (BFLOAT16 or FLOAT16) with instructions made for it on this
// process's kernel path. KernelPath() caps oneDNN's ISA as it caps every kernel's (baseline: SSE4.1,
// oneDNN's lowest; avx2: AVX2; avx512: every extension of AVX-512 the CPU has, AMX included), and
// below AVX512-BF16 (AVX512-FP16 for FLOAT16) oneDNN either has no 16-bit matmul or emulates one at a
// third of OpenBLAS's speed (measured: 66 GFLOP/s against 180 at 1024^3 on avx512_core): false then,
// and in a build without oneDNN.
bool DnnlMultiplies(aclDataType dtype);

// A matrix as the product reads it in place: its first element, whether it is stored transposed
// (column-major), and its leading dimension in elements.
struct DnnlMatrix {
  const void* data = nullptr;
  bool trans = false;
  int64_t ld = 1;
};

// One m x n x k product, planned once and run for each matrix of a batch:
// c = alpha * a @ b (+ beta * c), a and b of the 16-bit dtype `operands`, c row-major of `result`
// (FLOAT, or `operands` when beta is 0), accumulated in float with one rounding to c's dtype.
// oneDNN's threads are as many as the simulator's pool (ParallelThreads()) and run in the calling
// thread's OpenMP team, which is idle between products, so the two pools never compute at once.
class DnnlProduct {
 public:
  DnnlProduct();
  ~DnnlProduct();
  DnnlProduct(const DnnlProduct&) = delete;
  DnnlProduct& operator=(const DnnlProduct&) = delete;

  // False, with the reason in `why`, where oneDNN has no kernel for it (the caller takes OpenBLAS).
  bool Plan(aclDataType operands, aclDataType result, int64_t m, int64_t n, int64_t k, const DnnlMatrix& a,
            const DnnlMatrix& b, int64_t ldc, float alpha, float beta, std::string* why);
  // One product of the planned shapes at these addresses; false, with the reason, if oneDNN failed.
  bool Run(const void* a, const void* b, void* c, std::string* why);
  // "onednn:" and the implementation oneDNN chose ("onednn:brg:avx512_core_amx"): a string that
  // lives as long as the process, for sim_stats' engine_paths.
  const char* route() const;

 private:
  struct Planned;
  std::unique_ptr<Planned> planned_;
};

// A float convolution's geometry as oneDNN takes it, 3 spatial dimensions (1d and 2d ones with
// dimensions of 1 in front): input [n, groups * cxg, x...], weight [groups * cyg, cxg, k...], output
// [n, groups * cyg, y...], all contiguous, with strides s and dilations d. The input is read as
// placed at offset p (the padding before it) in zeros of extent `padded` (its elements beyond, which
// no output reads, left out).
struct DnnlConvShape {
  int64_t n = 0, groups = 1, cxg = 0, cyg = 0;
  int64_t x[3] = {1, 1, 1}, p[3] = {0, 0, 0}, padded[3] = {1, 1, 1}, k[3] = {1, 1, 1}, y[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, d[3] = {1, 1, 1};
};

// Which of a convolution's three computations DnnlConvolve makes, each of two of x, w, y into the
// third: the convolution (y), the input's gradient (x from the output's gradient y; a transposed
// convolution's output), the weight's gradient (w, summed over the batch).
enum class DnnlConvPass { kForward, kInputGrad, kWeightGrad };

// One pass of the convolution of x by w, the padding multiplied as zeros as the NPU's img2col and
// Cube do (0 times an infinite weight, or an infinite gradient, is NaN beside the border) where
// oneDNN's own padding would leave it out of the sums: oneDNN computes over a zero-padded buffer
// with no padding of its own, x copied into it (the forward, the weight's gradient) or the input's
// gradient taken from its interior (the positions no output reads given 0). Each thread keeps the
// last shapes' plans and buffers, their zeros written once (up to 64 MiB a plan). False, with the
// reason in `why`, where oneDNN cannot start or has only its reference kernels for it (for a
// gradient, also where it has only its own im2col and GEMM, slower than OpenBLAS's route).
// `route`: "onednn:" and the implementation oneDNN chose ("onednn:jit:avx2"), a string that lives
// as long as the process. Threads as DnnlProduct's. The pass's operands are read, its result
// written.
bool DnnlConvolve(const DnnlConvShape& shape, DnnlConvPass pass, float* x, float* w, float* y, const char** route,
                  std::string* why);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_ONEDNN_H_
