// The convolution family: aclnnConvolution (1d/2d/3d, strides, paddings, dilations, groups,
// transposed with output padding), aclnnConvolutionBackward (the gradients outputMask asks for),
// aclnnConvDepthwise2d, aclnnConvTbc and its backward, and aclnnIm2col: im2col + GEMM on the BLAS
// the matmul family uses (OpenBLAS sgemm), and its transpose (GEMM + col2im); ToY on oneDNN's
// convolution and its gradients where the build has them (OnDnnl).
//
// Every op is one geometry between an X side (the convolution's input: [N, Cx, X...]) and a Y side
// (its output: [N, Cy, Y...]) through a weight [Cy, Cx / groups, K...]. Three primitives compute
// on it, per sample and group:
//   ToY        Y = W @ im2col(X)                 a convolution; the input's gradient of a transposed one
//   ToX        X = col2im(W^T @ Y)               a transposed convolution; the input's gradient of a convolution
//   WeightGrad dW += Y @ im2col(X)^T             the weight's gradient of both (Y: the gradient of the output,
//                                                or a transposed convolution's input)
// A transposed convolution's input is the Y side and its output the X side (its weight is
// [C_in, C_out / groups, K...], which is [Cy, Cx / groups, K...]), so that both kinds share them.
// The output-size arithmetic and the argument checks are aclnn_bindgen/conv_shape.h's, the one
// copy the bindings use too.
//
// Phase 2 gathers each operand into a contiguous float buffer (FLOAT16 and BFLOAT16 converted, any
// strides: ConvTbc's [time, batch, channel] tensors are read as permuted views), computes in float
// (the im2col and col2im loops on the simulator's threads, the GEMMs on OpenBLAS's, opapi/blas.h) and scatters
// the result into the output's dtype and strides.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include <cblas.h>

#include "aclnn_bindgen/conv_shape.h"
#include "aclnn_bindgen/half.h"
#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/onednn.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = ConvFamily;
using aclnn_bindgen::ConvArgs;
using aclnn_bindgen::ConvProblem;

enum Slot { kXin, kYin, kW, kBias, kXout, kYout, kWout, kBout, kSlots };
// Per-thread scratch buffers (family.h's Scratch): the gathered operands, the column matrix, results.
enum Buffer { kBufX, kBufY, kBufW, kBufCol, kBufXOut, kBufYOut, kBufWOut, kBufBias };

constexpr int kSpatial = 3;  // 1d and 2d convolutions are 3d ones with dimensions of 1 in front
// The pages' cubeMathType values: 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32.
constexpr int64_t kCubeMathMax = 3;
constexpr int64_t kUseFp16 = 2;
// Elements a parallel task handles at least.
constexpr int64_t kGrain = 1 << 15;

void Sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
           float beta, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                    beta, c, static_cast<int>(ldc));
}

struct Geometry {
  int64_t n = 0, groups = 1, cx = 0, cy = 0;
  int64_t x[kSpatial] = {1, 1, 1}, y[kSpatial] = {1, 1, 1}, k[kSpatial] = {1, 1, 1};
  int64_t s[kSpatial] = {1, 1, 1}, p[kSpatial] = {0, 0, 0}, d[kSpatial] = {1, 1, 1};

  int64_t XSize() const { return x[0] * x[1] * x[2]; }
  int64_t YSize() const { return y[0] * y[1] * y[2]; }
  int64_t KSize() const { return k[0] * k[1] * k[2]; }
  int64_t Cxg() const { return cx / groups; }
  int64_t Cyg() const { return cy / groups; }
  int64_t Rows() const { return Cxg() * KSize(); }  // of the column matrix
  // The column matrix is X itself: a 1x1 kernel with stride 1 and no padding.
  bool Pointwise() const {
    for (int i = 0; i < kSpatial; ++i) {
      if (k[i] != 1 || s[i] != 1 || p[i] != 0 || x[i] != y[i]) return false;
    }
    return true;
  }

  // For kernel offset `kk` along the last dimension: the Y positions [lo, hi) whose X position
  // yw * s + offset lies inside X, and that offset.
  void Valid(int64_t kw, int64_t* offset, int64_t* lo, int64_t* hi) const {
    const int64_t o = kw * d[2] - p[2];
    *offset = o;
    *lo = o >= 0 ? 0 : std::min(y[2], (-o + s[2] - 1) / s[2]);
    const int64_t last = x[2] - 1 - o;  // the largest yw * s allowed
    *hi = last < 0 ? 0 : std::min(y[2], last / s[2] + 1);
    *hi = std::max(*hi, *lo);
  }

  // Calls fn(dst_row, x_row or null) for each (yd, yh) line of kernel offset (kd, kh): x_row is the
  // X line the Y line reads (null where it falls in the padding).
  template <typename Fn>
  void Lines(int64_t kd, int64_t kh, Fn&& fn) const {
    for (int64_t yd = 0; yd < y[0]; ++yd) {
      const int64_t xd = yd * s[0] - p[0] + kd * d[0];
      for (int64_t yh = 0; yh < y[1]; ++yh) {
        const int64_t xh = yh * s[1] - p[1] + kh * d[1];
        const bool inside = xd >= 0 && xd < x[0] && xh >= 0 && xh < x[1];
        fn((yd * y[1] + yh) * y[2], inside ? (xd * x[1] + xh) * x[2] : int64_t{-1});
      }
    }
  }
};

// col[c * K + kk][ys] = X[c][the position kernel offset kk reads at ys], 0 in the padding (in the
// compute type: aclnnIm2col moves any real dtype's elements unchanged).
template <typename T>
void Im2col(const Geometry& g, const T* xg, int64_t channels, T* col) {
  const int64_t ks = g.KSize(), ys = g.YSize(), xs = g.XSize();
  ParallelRange(channels * ks, ys, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t c = r / ks, kk = r % ks;
      const int64_t kw = kk % g.k[2], kh = (kk / g.k[2]) % g.k[1], kd = kk / (g.k[2] * g.k[1]);
      const T* plane = xg + c * xs;
      T* out = col + r * ys;
      int64_t offset, lo, hi;
      g.Valid(kw, &offset, &lo, &hi);
      const int64_t stride = g.s[2];
      g.Lines(kd, kh, [&](int64_t dst, int64_t src) {
        T* line = out + dst;
        if (src < 0) {
          std::fill(line, line + g.y[2], T(0));
          return;
        }
        const T* in = plane + src + offset;
        std::fill(line, line + lo, T(0));
        if (stride == 1) {
          std::memcpy(line + lo, in + lo, static_cast<size_t>(hi - lo) * sizeof(T));
        } else {
          for (int64_t w = lo; w < hi; ++w) line[w] = in[w * stride];
        }
        std::fill(line + hi, line + g.y[2], T(0));
      });
    }
  });
}

// The transpose of Im2col: X[c][position] += col[c * K + kk][ys] (X zeroed first). Parallel over
// channels: a task writes its channels' planes only.
void Col2im(const Geometry& g, const float* col, int64_t channels, float* xg) {
  const int64_t ks = g.KSize(), ys = g.YSize(), xs = g.XSize();
  ParallelRange(channels, ks * ys, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      float* plane = xg + c * xs;
      std::fill(plane, plane + xs, 0.0f);
      for (int64_t kk = 0; kk < ks; ++kk) {
        const int64_t kw = kk % g.k[2], kh = (kk / g.k[2]) % g.k[1], kd = kk / (g.k[2] * g.k[1]);
        const float* row = col + (c * ks + kk) * ys;
        int64_t offset, lo, hi;
        g.Valid(kw, &offset, &lo, &hi);
        const int64_t stride = g.s[2];
        g.Lines(kd, kh, [&](int64_t src, int64_t dst) {
          if (dst < 0) return;
          float* out = plane + dst + offset;
          const float* line = row + src;
          for (int64_t w = lo; w < hi; ++w) out[w * stride] += line[w];
        });
      }
    }
  });
}

// The extent along each dimension of X zero-padded so that every output's window lies inside it:
// (y - 1) * s + d * (k - 1) + 1.
void PaddedExtent(const Geometry& g, int64_t* extent) {
  for (int i = 0; i < kSpatial; ++i) extent[i] = (g.y[i] - 1) * g.s[i] + g.d[i] * (g.k[i] - 1) + 1;
}

// padded[c] = X[c] placed at offset p in zeros of `extent` (X's elements beyond it, which no
// output reads, left out), for `channels` contiguous planes of X.
void Pad(const Geometry& g, const float* x, int64_t channels, const int64_t* extent, float* padded) {
  const int64_t* e = extent;
  const int64_t plane = e[0] * e[1] * e[2];
  std::fill(padded, padded + channels * plane, 0.0f);
  ParallelRange(channels * g.x[0] * g.x[1], g.x[2], [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {  // line: (channel, xd, xh)
      const int64_t xh = line % g.x[1], xd = line / g.x[1] % g.x[0], c = line / (g.x[1] * g.x[0]);
      const int64_t pd = xd + g.p[0], ph = xh + g.p[1];
      if (pd < 0 || pd >= e[0] || ph < 0 || ph >= e[1]) continue;  // outside every output's reach
      const int64_t lo = std::max<int64_t>(0, -g.p[2]), hi = std::min(g.x[2], e[2] - g.p[2]);
      if (hi <= lo) continue;
      std::memcpy(padded + c * plane + (pd * e[1] + ph) * e[2] + lo + g.p[2], x + line * g.x[2] + lo,
                  static_cast<size_t>(hi - lo) * sizeof(float));
    }
  });
}

// out[n][c][...] += bias[c] over a contiguous [N, C, size] buffer.
void AddBias(float* out, const float* bias, int64_t n, int64_t channels, int64_t size) {
  ParallelRange(n * channels, size, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float b = bias[r % channels];
      float* row = out + r * size;
      for (int64_t i = 0; i < size; ++i) row[i] += b;
    }
  });
}

// sums[c] = the sum of a contiguous [N, C, size] buffer over N and size (in double).
void ChannelSums(const float* in, int64_t n, int64_t channels, int64_t size, float* sums) {
  ParallelRange(channels, n * size, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double total = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float* row = in + (i * channels + c) * size;
        for (int64_t j = 0; j < size; ++j) total += row[j];
      }
      sums[c] = static_cast<float>(total);
    }
  });
}

bool Used(const TensorRef& t) { return t.dtype != ACL_DT_UNDEFINED; }

class ConvWork final : public FamilyWork {
 public:
  explicit ConvWork(const char* api) : FamilyWork(api, kSlots) {}

  Geometry g;
  bool fp16_inputs = false;  // cubeMathType USE_FP16: FLOAT operands rounded to FLOAT16 first
  bool bias_from_x = false;  // the bias gradient sums the X side (a transposed convolution's)
  bool im2col_only = false;  // aclnnIm2col: Yout is the column matrix itself, [N, Cx * K, Y]
  bool col2im_only = false;  // aclnnUnfoldGrad: Yin is the column matrix itself, [N, K, Y]
  // ConvTbc: one GEMM per kernel offset over the positions it reaches inside X, as aten's conv_tbc
  // and its backward compute: a padded position takes no part in a sum, where an im2col's 0 times
  // a NaN or infinite weight (or gradient) would put NaN beside the padding. 1d, stride and
  // dilation 1, one group.
  bool skip_padding = false;

 private:
  // The operand in `slot` as a contiguous float array (rounded through FLOAT16 with USE_FP16).
  const float* Operand(int slot, int buffer) {
    const TensorRef& t = tensor(slot);
    if (!fp16_inputs) return static_cast<const float*>(ContiguousAs(t, ComputeType::kFloat32, buffer));
    const int64_t count = t.numel();
    float* data = static_cast<float*>(Scratch(buffer, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(float)));
    GatherAs(t, ComputeType::kFloat32, data);
    for (int64_t i = 0; i < count; ++i) data[i] = aclnn_bindgen::HalfToFloat(aclnn_bindgen::FloatToHalf(data[i]));
    return data;
  }

  // A result buffer for `slot`: its own memory when it is a dense FLOAT array, else scratch.
  float* Result(int slot, int buffer) {
    const TensorRef& t = tensor(slot);
    if (t.dtype == ACL_FLOAT && t.Contiguous()) return reinterpret_cast<float*>(t.first);
    return static_cast<float*>(Scratch(buffer, static_cast<size_t>(std::max<int64_t>(t.numel(), 1)) * sizeof(float)));
  }

  void Store(int slot, const float* data) {
    const TensorRef& t = tensor(slot);
    if (data != reinterpret_cast<const float*>(t.first)) ScatterFrom(data, ComputeType::kFloat32, t);
  }

  float* Column() {
    return static_cast<float*>(Scratch(kBufCol, static_cast<size_t>(std::max<int64_t>(g.Rows() * g.YSize(), 1)) * sizeof(float)));
  }

  // A [Cy, Cx] matrix (skip_padding's weight slices; the column matrix's buffer, unused there).
  float* Plane() {
    return static_cast<float*>(Scratch(kBufCol, static_cast<size_t>(std::max<int64_t>(g.cy * g.cx, 1)) * sizeof(float)));
  }

  // The [Cy, Cx] slice of the weight at kernel offset kw (1d, one group), contiguous.
  const float* WeightAt(const float* w, int64_t kw) {
    const int64_t ks = g.KSize(), plane = g.cy * g.cx;
    float* wk = Plane();
    for (int64_t r = 0; r < plane; ++r) wk[r] = w[r * ks + kw];
    return wk;
  }

  void ToYSkippingPadding(const float* x, const float* w, float* y) {
    const int64_t xs = g.XSize(), ys = g.YSize();
    std::fill(y, y + g.n * g.cy * ys, 0.0f);
    for (int64_t kw = 0; kw < g.KSize(); ++kw) {
      int64_t offset, lo, hi;
      g.Valid(kw, &offset, &lo, &hi);
      if (hi <= lo) continue;
      const float* wk = WeightAt(w, kw);
      for (int64_t i = 0; i < g.n; ++i) {
        Sgemm(false, false, g.cy, hi - lo, g.cx, wk, g.cx, x + i * g.cx * xs + lo + offset, xs, 1.0f,
              y + i * g.cy * ys + lo, ys);
      }
    }
  }

  void WeightGradSkippingPadding(const float* y, const float* x, float* w) {
    const int64_t xs = g.XSize(), ys = g.YSize(), ks = g.KSize(), plane = g.cy * g.cx;
    float* wk = Plane();
    for (int64_t kw = 0; kw < ks; ++kw) {
      int64_t offset, lo, hi;
      g.Valid(kw, &offset, &lo, &hi);
      std::fill(wk, wk + plane, 0.0f);
      for (int64_t i = 0; hi > lo && i < g.n; ++i) {
        Sgemm(false, true, g.cy, g.cx, hi - lo, y + i * g.cy * ys + lo, ys, x + i * g.cx * xs + lo + offset, xs, 1.0f,
              wk, g.cx);
      }
      for (int64_t r = 0; r < plane; ++r) w[r * ks + kw] = wk[r];
    }
  }

  // Stride 1 over a large output (kShiftedColumns flat positions): one GEMM per kernel offset,
  // Y += W[:, :, kk] * X shifted by kk, instead of one GEMM over the column matrix. X is copied
  // once into a zero-padded buffer (extent y + d * (k - 1) along each dimension), in which an
  // output's flat position f (od * P1 * P2 + oh * P2 + ow) reads f + kk's offset for every kk: each
  // GEMM reads the same channel planes from another start, and the rows of the padded width between
  // two output rows are computed and dropped. The column matrix (KSize times X) is never written,
  // and OpenBLAS packs each GEMM's operand from X's own planes: [1, 64, 56, 56] 3x3 -> 64 on one
  // core, 6.2 -> 2.0 ms in a standalone loop. Small outputs keep the column matrix (over few
  // positions the K GEMMs cost more: [1, 256, 28, 28] 12.6 -> 17.5 ms). The padding is zeros in
  // the products as in the column matrix (0 times an infinite weight is NaN in both); each
  // output is the K offsets' partial sums added in order, a float32 sum in another order than
  // the single GEMM's.
  static constexpr int64_t kShiftedColumns = 1024;

  struct Shifted {
    int64_t extent[kSpatial] = {1, 1, 1};  // the padded buffer's dimensions
    int64_t plane = 1, columns = 0;        // its elements per channel; the flat positions computed
  };

  bool UsesShifted(Shifted* sh) const {
    for (int i = 0; i < kSpatial; ++i) {
      if (g.s[i] != 1) return false;
    }
    PaddedExtent(g, sh->extent);
    sh->plane = sh->extent[0] * sh->extent[1] * sh->extent[2];
    sh->columns = ((g.y[0] - 1) * sh->extent[1] + (g.y[1] - 1)) * sh->extent[2] + g.y[2];
    return !g.Pointwise() && g.YSize() > 0 && sh->columns >= kShiftedColumns;
  }

  void ToYShifted(const Shifted& sh, const float* x, const float* w, float* y) {
    const int64_t xs = g.XSize(), ys = g.YSize(), ks = g.KSize(), cxg = g.Cxg(), cyg = g.Cyg();
    const int64_t padded_size = cxg * sh.plane, sums_size = cyg * sh.columns, weights_size = ks * cyg * cxg;
    float* padded = static_cast<float*>(
        Scratch(kBufCol, static_cast<size_t>(padded_size + sums_size + weights_size) * sizeof(float)));
    float* sums = padded + padded_size;
    float* weights = sums + sums_size;
    const int64_t* e = sh.extent;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* wg = w + grp * cyg * cxg * ks;
      // weights[kk] = W[group's outputs, group's inputs, kk], [Cyg, Cxg] each.
      for (int64_t r = 0; r < cyg * cxg; ++r) {
        for (int64_t kk = 0; kk < ks; ++kk) weights[kk * cyg * cxg + r] = wg[r * ks + kk];
      }
      for (int64_t i = 0; i < g.n; ++i) {
        const float* xg = x + (i * g.cx + grp * cxg) * xs;
        Pad(g, xg, cxg, e, padded);
        // The padded rows that hold computed positions, in chunks over the pool: a chunk's K products
        // and then its output lines, with no wait between products (one GEMM at a time over the pool
        // waited nine times a call for its slowest thread).
        const int64_t rows = (sh.columns + e[2] - 1) / e[2];
        const int threads = ParallelThreads();
        const int64_t chunks = threads < 2 ? 1 : std::min<int64_t>(rows, 2 * threads);
        float* yg = y + (i * g.cy + grp * cyg) * ys;
        ParallelFor(chunks, [&](int64_t chunk) {
          const int64_t first = rows * chunk / chunks, last = rows * (chunk + 1) / chunks;
          const int64_t begin = first * e[2], end = std::min(sh.columns, last * e[2]);
          for (int64_t kk = 0; kk < ks; ++kk) {
            const int64_t kw = kk % g.k[2], kh = kk / g.k[2] % g.k[1], kd = kk / (g.k[2] * g.k[1]);
            const int64_t offset = (kd * g.d[0] * e[1] + kh * g.d[1]) * e[2] + kw * g.d[2];
            Sgemm(false, false, cyg, end - begin, cxg, weights + kk * cyg * cxg, cxg, padded + offset + begin, sh.plane,
                  kk == 0 ? 0.0f : 1.0f, sums + begin, sh.columns);
          }
          for (int64_t row = first; row < last; ++row) {  // row: (yd, yh) of the padded buffer
            const int64_t yh = row % e[1], yd = row / e[1];
            if (yh >= g.y[1] || yd >= g.y[0]) continue;  // a padding row between two depths
            for (int64_t c = 0; c < cyg; ++c) {
              std::memcpy(yg + ((c * g.y[0] + yd) * g.y[1] + yh) * g.y[2], sums + c * sh.columns + row * e[2],
                          static_cast<size_t>(g.y[2]) * sizeof(float));
            }
          }
        });
      }
    }
  }

  // oneDNN's convolution, or one of its gradients (opapi/onednn.h), the ones PyTorch CPU runs, with
  // the padding multiplied as zeros as in the column matrix. False where this build or oneDNN has
  // none for it: the caller computes it on OpenBLAS. Each pass records its route as its own engine:
  // "conv.float32" (the forward), "conv.input_grad", "conv.weight_grad".
  bool OnDnnl(DnnlConvPass pass, const float* x, const float* w, const float* y) {
    DnnlConvShape shape;
    shape.n = g.n;
    shape.groups = g.groups;
    shape.cxg = g.Cxg();
    shape.cyg = g.Cyg();
    PaddedExtent(g, shape.padded);
    for (int i = 0; i < kSpatial; ++i) {
      shape.x[i] = g.x[i];
      shape.p[i] = g.p[i];
      shape.k[i] = g.k[i];
      shape.y[i] = g.y[i];
      shape.s[i] = g.s[i];
      shape.d[i] = g.d[i];
    }
    const char* route = nullptr;
    std::string why;  // oneDNN without a kernel for it: OpenBLAS computes it as well
    // The pass writes one of the three and only reads the others.
    if (!DnnlConvolve(shape, pass, const_cast<float*>(x), const_cast<float*>(w), const_cast<float*>(y), &route, &why)) {
      return false;
    }
    Route(pass).TookRoute(route);
    return true;
  }

  static EnginePath& Route(DnnlConvPass pass) {
    static EnginePath forward(__FILE__, "float32"), input_grad(__FILE__, "input_grad"), weight_grad(__FILE__, "weight_grad");
    switch (pass) {
      case DnnlConvPass::kInputGrad: return input_grad;
      case DnnlConvPass::kWeightGrad: return weight_grad;
      default: return forward;
    }
  }

  void ToY(const float* x, const float* w, float* y) {
    if (skip_padding) return ToYSkippingPadding(x, w, y);
    if (OnDnnl(DnnlConvPass::kForward, x, w, y)) return;
    Route(DnnlConvPass::kForward).TookRoute(BlasRoute());
    Shifted shifted;
    if (UsesShifted(&shifted)) return ToYShifted(shifted, x, w, y);
    const int64_t rows = g.Rows(), ys = g.YSize(), xs = g.XSize(), cxg = g.Cxg(), cyg = g.Cyg();
    const bool pointwise = g.Pointwise();
    float* col = pointwise ? nullptr : Column();
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + (i * g.cx + grp * cxg) * xs;
        if (!pointwise) Im2col(g, xg, cxg, col);
        Sgemm(false, false, cyg, ys, rows, w + grp * cyg * rows, rows, pointwise ? xg : col, ys, 0.0f,
              y + (i * g.cy + grp * cyg) * ys, ys);
      }
    }
  }

  void ToX(const float* y, const float* w, float* x) {
    const int64_t rows = g.Rows(), ys = g.YSize(), xs = g.XSize(), cxg = g.Cxg(), cyg = g.Cyg();
    const bool pointwise = g.Pointwise();
    if (ys == 0) {  // no output position reads the input: its gradient is 0
      std::fill(x, x + g.n * g.cx * xs, 0.0f);
      return;
    }
    if (OnDnnl(DnnlConvPass::kInputGrad, x, w, y)) return;
    Route(DnnlConvPass::kInputGrad).TookRoute(BlasRoute());
    float* col = pointwise ? nullptr : Column();
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        float* xg = x + (i * g.cx + grp * cxg) * xs;
        Sgemm(true, false, rows, ys, cyg, w + grp * cyg * rows, rows, y + (i * g.cy + grp * cyg) * ys, ys, 0.0f,
              pointwise ? xg : col, ys);
        if (!pointwise) Col2im(g, col, cxg, xg);
      }
    }
  }

  void WeightGrad(const float* y, const float* x, float* w) {
    if (skip_padding) return WeightGradSkippingPadding(y, x, w);
    const int64_t rows = g.Rows(), ys = g.YSize(), xs = g.XSize(), cxg = g.Cxg(), cyg = g.Cyg();
    const bool pointwise = g.Pointwise();
    if (g.n == 0 || ys == 0) {  // an empty sum
      std::fill(w, w + g.cy * rows, 0.0f);
      return;
    }
    if (OnDnnl(DnnlConvPass::kWeightGrad, x, w, y)) return;
    Route(DnnlConvPass::kWeightGrad).TookRoute(BlasRoute());
    float* col = pointwise ? nullptr : Column();
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* xg = x + (i * g.cx + grp * cxg) * xs;
        if (!pointwise) Im2col(g, xg, cxg, col);
        Sgemm(false, true, cyg, rows, ys, y + (i * g.cy + grp * cyg) * ys, ys, pointwise ? xg : col, ys,
              i == 0 ? 0.0f : 1.0f, w + grp * cyg * rows, rows);
      }
    }
  }

  aclnnStatus Compute() override {
    if (im2col_only) {
      WithFamilyType(type, [&](auto zero) {
        using T = decltype(zero);
        const T* in = static_cast<const T*>(ContiguousAs(tensor(kXin), type, kBufX));
        const TensorRef& t = tensor(kYout);
        T* out = static_cast<T*>(Scratch(kBufYOut, static_cast<size_t>(std::max<int64_t>(t.numel(), 1)) * sizeof(T)));
        const int64_t per_sample = g.Rows() * g.YSize();
        for (int64_t i = 0; i < g.n; ++i) Im2col<T>(g, in + i * g.cx * g.XSize(), g.cx, out + i * per_sample);
        ScatterFrom(out, type, t);
      });
      return ACLNN_SUCCESS;
    }
    if (col2im_only) {
      const float* col = static_cast<const float*>(ContiguousAs(tensor(kYin), ComputeType::kFloat32, kBufY));
      float* out = Result(kXout, kBufXOut);
      const int64_t per_sample = g.Rows() * g.YSize();
      for (int64_t i = 0; i < g.n; ++i) Col2im(g, col + i * per_sample, g.cx, out + i * g.cx * g.XSize());
      Store(kXout, out);
      return ACLNN_SUCCESS;
    }
    const float* x = Used(tensor(kXin)) ? Operand(kXin, kBufX) : nullptr;
    const float* y = Used(tensor(kYin)) ? Operand(kYin, kBufY) : nullptr;
    const float* w = Used(tensor(kW)) ? Operand(kW, kBufW) : nullptr;
    const float* bias = nullptr;
    if (Used(tensor(kBias))) bias = static_cast<const float*>(ContiguousAs(tensor(kBias), ComputeType::kFloat32, kBufBias));
    if (Used(tensor(kYout)) && tensor(kYout).numel() > 0) {
      float* out = Result(kYout, kBufYOut);
      if (g.Rows() == 0) {
        std::fill(out, out + tensor(kYout).numel(), 0.0f);
      } else {
        ToY(x, w, out);
      }
      if (bias) AddBias(out, bias, g.n, g.cy, g.YSize());
      Store(kYout, out);
    }
    if (Used(tensor(kXout)) && tensor(kXout).numel() > 0) {
      float* out = Result(kXout, kBufXOut);
      if (g.Cyg() == 0) {
        std::fill(out, out + tensor(kXout).numel(), 0.0f);
      } else {
        ToX(y, w, out);
      }
      if (bias) AddBias(out, bias, g.n, g.cx, g.XSize());
      Store(kXout, out);
    }
    if (Used(tensor(kWout)) && tensor(kWout).numel() > 0) {
      float* out = Result(kWout, kBufWOut);
      WeightGrad(y, x, out);
      Store(kWout, out);
    }
    if (Used(tensor(kBout)) && tensor(kBout).numel() > 0) {
      std::vector<float> sums(static_cast<size_t>(bias_from_x ? g.cx : g.cy));
      if (bias_from_x) {
        ChannelSums(x, g.n, g.cx, g.XSize(), sums.data());
      } else {
        ChannelSums(y, g.n, g.cy, g.YSize(), sums.data());
      }
      ScatterFrom(sums.data(), ComputeType::kFloat32, tensor(kBout));
    }
    return ACLNN_SUCCESS;
  }
};

// --- planning -----------------------------------------------------------------------------------

bool FloatingDType(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }

Dims Ints(const Call& call, const FamilySpec& family, int role) {
  Dims values;
  RoleInts(call, family, role, &values);
  return values;
}

std::vector<int64_t> Vec(const Dims& d) { return std::vector<int64_t>(d.begin(), d.end()); }

Dims Permute(const Dims& d, const int64_t* order) {
  Dims out(d);
  for (size_t i = 0; i < d.size(); ++i) out[i] = d[static_cast<size_t>(order[i])];
  return out;
}

// The role a ConvProblem's parameter names, for the op's page.
int ProblemRole(const std::string& param, int op) {
  if (param == "stride") return F::Role::kStride;
  if (param == "padding") return op == F::Op::kTbc || op == F::Op::kTbcBackward ? F::Role::kPad : F::Role::kPadding;
  if (param == "dilation") return F::Role::kDilation;
  if (param == "outputPadding") return F::Role::kOutputPadding;
  if (param == "groups") return op == F::Op::kDepthwise2d ? F::Role::kWeight : F::Role::kGroups;
  if (param == "weight") return F::Role::kWeight;
  return F::Role::kInput;
}

// The refusal of a ConvProblem by `role`: a value or an output size answers the page's row for it
// (API.page_row: aclnnConvolution's "outputPadding值不满足要求"); a shape, 161002 uncited.
aclnnStatus RejectProblem(const Call& call, const FamilySpec& family, int role, const ConvProblem& problem) {
  switch (problem.kind) {
    case aclnn_bindgen::kConvValue: return RejectByRow(call, family, role, RowKind::kValue, problem.message);
    case aclnn_bindgen::kConvOutputSize: return RejectByRow(call, family, role, RowKind::kOutputSize, problem.message);
    default: return RejectInvalid(call, family, role, problem.message);
  }
}

// The geometry of valid arguments `a` whose output shape is `out` (see the file's comment).
Geometry MakeGeometry(const ConvArgs& a, const std::vector<int64_t>& out) {
  Geometry g;
  const size_t spatial = a.input.size() - 2, lead = kSpatial - spatial;
  g.n = a.input[0];
  g.groups = a.groups;
  const std::vector<int64_t>& xshape = a.transposed ? out : a.input;
  const std::vector<int64_t>& yshape = a.transposed ? a.input : out;
  g.cx = xshape[1];
  g.cy = yshape[1];
  for (size_t d = 0; d < spatial; ++d) {
    g.x[lead + d] = xshape[2 + d];
    g.y[lead + d] = yshape[2 + d];
    g.k[lead + d] = a.weight[2 + d];
    g.s[lead + d] = a.stride[d];
    g.d[lead + d] = a.dilation[d];
    int64_t before, after;
    aclnn_bindgen::ConvPadding(a, d, &before, &after);
    g.p[lead + d] = before;
  }
  return g;
}

class Planner {
 public:
  Planner(const Call& call, const FamilySpec& family, ExecutorWork** work)
      : call_(call), family_(family), work_(work), op_(family.op) {}

  aclnnStatus Plan() {
    if (op_ == F::Op::kUnfoldGrad) return PlanUnfoldGrad();
    if (op_ == F::Op::kCol2im) return PlanCol2im();
    const TensorDesc* input = RoleTensor(call_, family_, F::Role::kInput);
    if (!input) return Decline(call_, work_, "without its input");
    if (op_ == F::Op::kIm2col) return PlanIm2col(*input);
    const TensorDesc* weight = RoleTensor(call_, family_, F::Role::kWeight);
    if (!weight) return Decline(call_, work_, "without its weight");
    if (aclnnStatus s = CheckCube(*input, *weight)) return s;
    made_ = new ConvWork(call_.spec.name);
    owned_.reset(made_);
    made_->fp16_inputs = RoleInt(call_, family_, F::Role::kCubeMathType, 0) == kUseFp16 && input->dtype == ACL_FLOAT;
    const bool backward = op_ == F::Op::kConvolutionBackward || op_ == F::Op::kTbcBackward;
    const bool tbc = op_ == F::Op::kTbc || op_ == F::Op::kTbcBackward;
    ConvArgs a;
    // ConvTbc's [time, batch, channel] input and [K, C_in, C_out] weight are a 1d convolution's
    // [batch, channel, time] and [C_out, C_in, K], read as permuted views.
    static const int64_t kTbcData[3] = {1, 2, 0}, kTbcWeight[3] = {2, 1, 0};
    const Dims in_shape = tbc ? Permute(input->view, kTbcData) : input->view;
    const Dims w_shape = tbc ? Permute(weight->view, kTbcWeight) : weight->view;
    if (tbc && (input->view.size() != 3 || weight->view.size() != 3)) {
      const int role = input->view.size() != 3 ? F::Role::kInput : F::Role::kWeight;
      return RejectInvalid(call_, family_, role,
                           "must be 3-dimensional, got shape " + DimsText(role == F::Role::kInput ? input->view : weight->view));
    }
    a.input = Vec(in_shape);
    a.weight = Vec(w_shape);
    if (tbc) {
      const int64_t pad = RoleInt(call_, family_, F::Role::kPad, 0);
      a.stride = {1};
      a.dilation = {1};
      a.padding = {pad};
    } else {
      a.stride = Vec(Ints(call_, family_, F::Role::kStride));
      a.padding = Vec(Ints(call_, family_, F::Role::kPadding));
      a.dilation = Vec(Ints(call_, family_, F::Role::kDilation));
      a.output_padding = Vec(Ints(call_, family_, F::Role::kOutputPadding));
      a.transposed = RoleBool(call_, family_, F::Role::kTransposed, false);
      a.groups = RoleInt(call_, family_, F::Role::kGroups, 1);
    }
    if (op_ == F::Op::kDepthwise2d) {
      if (aclnnStatus s = CheckDepthwise(*input, *weight, &a)) return s;
    }
    std::vector<int64_t> out;
    const ConvProblem problem = aclnn_bindgen::ConvOutputShape(a, &out);
    if (!problem.ok()) {
      return RejectProblem(call_, family_, ProblemRole(problem.param, op_), problem);
    }
    made_->g = MakeGeometry(a, out);
    made_->skip_padding = tbc;
    const Geometry& g = made_->g;
    if (g.Rows() > INT_MAX || g.XSize() > INT_MAX || g.YSize() > INT_MAX || g.Cyg() > INT_MAX) {
      return Decline(call_, work_, "for a matrix dimension above 2^31 (the BLAS's int)");
    }
    const Dims out_dims(out.begin(), out.end());
    const int64_t* data_order = tbc ? kTbcData : nullptr;
    const int64_t* weight_order = tbc ? kTbcWeight : nullptr;
    aclnnStatus s = backward ? PlanBackward(a, *input, *weight, out_dims, data_order, weight_order)
                             : PlanForward(a, *input, *weight, out_dims, data_order, weight_order);
    if (s != ACLNN_SUCCESS) return s;
    return Finish();
  }

 private:
  aclnnStatus CheckCube(const TensorDesc& input, const TensorDesc& weight) {
    if (!RoleParam(call_, family_, F::Role::kCubeMathType)) return ACLNN_SUCCESS;
    const int64_t cube = RoleInt(call_, family_, F::Role::kCubeMathType, 0);
    if (cube < 0 || cube > kCubeMathMax) {
      return RejectInvalid(call_, family_, F::Role::kCubeMathType,
                           "value " + std::to_string(cube) + " is not one of the documented 0 to 3");
    }
    if (cube == kUseFp16 && (input.dtype == ACL_BF16 || weight.dtype == ACL_BF16)) {
      return RejectInvalid(call_, family_, F::Role::kCubeMathType, "USE_FP16 (2) is not supported for BFLOAT16 inputs");
    }
    return ACLNN_SUCCESS;
  }

  // aclnnConvDepthwise2d: groups = the input's channels; kernelSize restates the weight's.
  aclnnStatus CheckDepthwise(const TensorDesc& input, const TensorDesc& weight, ConvArgs* a) {
    if (input.view.size() != 4) {
      return RejectInvalid(call_, family_, F::Role::kInput,
                           "must be 4-dimensional (NCHW), got shape " + DimsText(input.view));
    }
    a->groups = std::max<int64_t>(input.view[1], 1);
    const Dims kernel = Ints(call_, family_, F::Role::kKernelSize);
    if (weight.view.size() == 4 &&
        (kernel.size() != 2 || kernel[0] != weight.view[2] || kernel[1] != weight.view[3])) {
      return RejectInvalid(call_, family_, F::Role::kKernelSize,
                           DimsText(kernel) + " is not the weight's kernel size " + DimsText(weight.view));
    }
    return ACLNN_SUCCESS;
  }

  // Keeps tensor `t` of `role` in `slot`, as a view in `order` (ConvTbc's) when given.
  aclnnStatus Keep(int role, const TensorDesc& t, int slot, const int64_t* order, const Dims* shape, const char* what) {
    ComputeType type;
    const bool computed = op_ == F::Op::kIm2col ? FamilyComputeType(t.dtype, true, &type) : FloatingDType(t.dtype);
    if (!computed) {
      return Declined(std::string("for dtype ") + DTypeName(t.dtype) + " of " + RoleName(call_, family_, role));
    }
    TensorRef& ref = made_->tensor(slot);
    ref.Set(RoleName(call_, family_, role), t);
    if (order) ref = ref.Permuted(order);
    if (shape && ref.shape != *shape) {
      return RejectInvalid(call_, family_, role,
                           "shape " + DimsText(t.view) + " is not " + what + " " + DimsText(order ? Unpermute(*shape, order) : *shape));
    }
    return ACLNN_SUCCESS;
  }

  static Dims Unpermute(const Dims& d, const int64_t* order) {
    Dims out(d);
    for (size_t i = 0; i < d.size(); ++i) out[static_cast<size_t>(order[i])] = d[i];
    return out;
  }

  // A bias of `channels` values: 1-D, as the pages say.
  aclnnStatus KeepBias(int role, const TensorDesc& bias, int64_t channels) {
    const Dims want{channels};
    return Keep(role, bias, kBias, nullptr, &want, "one value per output channel:");
  }

  aclnnStatus PlanForward(const ConvArgs& a, const TensorDesc& input, const TensorDesc& weight, const Dims& out_shape,
                          const int64_t* data_order, const int64_t* weight_order) {
    const TensorDesc* out = RoleTensor(call_, family_, F::Role::kOut);
    if (!out) return Declined("without its output");
    const int in_slot = a.transposed ? kYin : kXin, out_slot = a.transposed ? kXout : kYout;
    if (aclnnStatus s = Keep(F::Role::kInput, input, in_slot, data_order, nullptr, "")) return s;
    if (aclnnStatus s = Keep(F::Role::kWeight, weight, kW, weight_order, nullptr, "")) return s;
    if (aclnnStatus s = Keep(F::Role::kOut, *out, out_slot, data_order, &out_shape, "the convolution's shape")) return s;
    if (const TensorDesc* bias = RoleTensor(call_, family_, F::Role::kBias)) {
      if (aclnnStatus s = KeepBias(F::Role::kBias, *bias, out_shape[1])) return s;
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus PlanBackward(const ConvArgs& a, const TensorDesc& input, const TensorDesc& weight, const Dims& out_shape,
                           const int64_t* data_order, const int64_t* weight_order) {
    const TensorDesc* grad = RoleTensor(call_, family_, F::Role::kGradOutput);
    if (!grad) return Declined("without the output's gradient");
    // The gradient of the output is the Y side of a convolution, the X side of a transposed one.
    const bool t = a.transposed;
    if (aclnnStatus s = Keep(F::Role::kGradOutput, *grad, t ? kXin : kYin, data_order, &out_shape,
                             "the convolution's output shape")) {
      return s;
    }
    if (aclnnStatus s = Keep(F::Role::kInput, input, t ? kYin : kXin, data_order, nullptr, "")) return s;
    if (aclnnStatus s = Keep(F::Role::kWeight, weight, kW, weight_order, nullptr, "")) return s;
    made_->bias_from_x = t;
    bool mask[3] = {true, true, true};
    if (const Call::Param* p = RoleParam(call_, family_, F::Role::kOutputMask)) {
      if (p->bool_values.size() != 3) {
        return RejectInvalid(call_, family_, F::Role::kOutputMask,
                             "must have 3 values (gradInput, gradWeight, gradBias), got " +
                                 std::to_string(p->bool_values.size()));
      }
      for (int i = 0; i < 3; ++i) mask[i] = p->bool_values[static_cast<size_t>(i)];
    }
    const Dims in_shape = data_order ? Permute(input.view, data_order) : input.view;
    const Dims w_shape = weight_order ? Permute(weight.view, weight_order) : weight.view;
    const Dims bias_shape{out_shape[1]};
    if (mask[2] && op_ == F::Op::kConvolutionBackward && RoleParam(call_, family_, F::Role::kBiasSizes)) {
      const Dims sizes = Ints(call_, family_, F::Role::kBiasSizes);
      if (sizes.size() != 1 || sizes[0] != out_shape[1]) {
        return RejectInvalid(call_, family_, F::Role::kBiasSizes,
                             DimsText(sizes) + " is not the output's channel count [" + std::to_string(out_shape[1]) + "]");
      }
    }
    struct Wanted {
      int role, slot;
      const int64_t* order;
      const Dims* shape;
      const char* what;
    };
    const Wanted wanted[3] = {
        {F::Role::kGradInput, t ? kYout : kXout, data_order, &in_shape, "the input's shape"},
        {F::Role::kGradWeight, kWout, weight_order, &w_shape, "the weight's shape"},
        {F::Role::kGradBias, kBout, nullptr, &bias_shape, "the output's channel count"},
    };
    for (int i = 0; i < 3; ++i) {
      if (!mask[i]) continue;
      const TensorDesc* out = RoleTensor(call_, family_, wanted[i].role);
      if (!out) {
        // The page's 161001 row: a gradient to be computed (求解) whose output is a null pointer.
        return RejectParam(call_, family_, wanted[i].role, ACLNN_ERR_PARAM_NULLPTR,
                           "is a null pointer, but outputMask[" + std::to_string(i) + "] asks for it");
      }
      if (aclnnStatus s = Keep(wanted[i].role, *out, wanted[i].slot, wanted[i].order, wanted[i].shape, wanted[i].what)) {
        return s;
      }
    }
    return ACLNN_SUCCESS;
  }

  // aclnnIm2col: self [N, C, H, W] or [C, H, W] to out [N, C * kh * kw, L] or [C * kh * kw, L].
  aclnnStatus PlanIm2col(const TensorDesc& input) {
    const TensorDesc* out = RoleTensor(call_, family_, F::Role::kOut);
    if (!out) return Declined("without its output");
    const size_t rank = input.view.size();
    if (rank != 3 && rank != 4) {
      return RejectInvalid(call_, family_, F::Role::kInput,
                           "must be 3- or 4-dimensional ([N, ]C, H, W), got shape " + DimsText(input.view));
    }
    Dims values[4];
    aclnnStatus status = ACLNN_SUCCESS;
    if (!WindowArguments(values, &status)) return status;
    // The patches as a convolution's: a weight [1, C, kh, kw] over the input with a batch of one added.
    ConvArgs a;
    a.input = Vec(input.view);
    if (rank == 3) a.input.insert(a.input.begin(), 1);
    a.weight = {1, a.input[1], values[0][0], values[0][1]};
    a.dilation = Vec(values[1]);
    a.padding = Vec(values[2]);
    a.stride = Vec(values[3]);
    std::vector<int64_t> conv_out;
    const ConvProblem problem = aclnn_bindgen::ConvOutputShape(a, &conv_out);
    if (!problem.ok()) {
      const int role = problem.param == "weight" ? F::Role::kKernelSize : ProblemRole(problem.param, op_);
      return RejectProblem(call_, family_, role, problem);
    }
    made_ = new ConvWork(call_.spec.name);
    owned_.reset(made_);
    made_->g = MakeGeometry(a, conv_out);
    made_->im2col_only = true;
    if (!FamilyComputeType(input.dtype, true, &made_->type)) {
      return Declined(std::string("for dtype ") + DTypeName(input.dtype));
    }
    Dims shape;
    if (rank == 4) shape.push_back(a.input[0]);
    shape.push_back(a.input[1] * values[0][0] * values[0][1]);
    shape.push_back(conv_out[2] * conv_out[3]);
    if (aclnnStatus s = Keep(F::Role::kInput, input, kXin, nullptr, nullptr, "")) return s;
    if (aclnnStatus s = Keep(F::Role::kOut, *out, kYout, nullptr, &shape, "the patches' shape")) return s;
    return Finish();
  }

  // The four window arguments of im2col and col2im (kernelSize, dilation, padding, stride), two
  // values each, in range; false with the rejection in *status.
  bool WindowArguments(Dims values[4], aclnnStatus* status) {
    const int roles[4] = {F::Role::kKernelSize, F::Role::kDilation, F::Role::kPadding, F::Role::kStride};
    for (int i = 0; i < 4; ++i) {
      values[i] = Ints(call_, family_, roles[i]);
      if (values[i].size() != 2) {
        *status = RejectInvalid(call_, family_, roles[i], "must have 2 values (H, W), got " + DimsText(values[i]));
        return false;
      }
      for (int64_t v : values[i]) {
        if (roles[i] == F::Role::kPadding ? v < 0 : v <= 0) {
          *status = RejectInvalid(call_, family_, roles[i],
                                  std::string("values must be ") +
                                      (roles[i] == F::Role::kPadding ? "at least 0" : "greater than 0") + ", got " +
                                      DimsText(values[i]));
          return false;
        }
      }
    }
    return true;
  }

  // aclnnIm2colBackward (F.fold): gradOutput [N, C * kh * kw, L] or [C * kh * kw, L], the patches of
  // an image of inputSize [H, W], added back into out [N, C, H, W] or [C, H, W]; L must be the
  // patches' count.
  aclnnStatus PlanCol2im() {
    const TensorDesc* grad = RoleTensor(call_, family_, F::Role::kGradOutput);
    const TensorDesc* out = RoleTensor(call_, family_, F::Role::kGradInput);
    if (!grad || !out) return Decline(call_, work_, "without gradOutput or out");
    const size_t rank = grad->view.size();
    if (rank != 2 && rank != 3) {
      return RejectInvalid(call_, family_, F::Role::kGradOutput,
                           "must be 2- or 3-dimensional ([N, ]C * kh * kw, L), got shape " + DimsText(grad->view));
    }
    const Dims size = Ints(call_, family_, F::Role::kInputSizes);
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
      return RejectInvalid(call_, family_, F::Role::kInputSizes,
                           "must be 2 values (H, W) greater than 0, got " + DimsText(size));
    }
    Dims values[4];
    aclnnStatus status = ACLNN_SUCCESS;
    if (!WindowArguments(values, &status)) return status;
    const int64_t n = rank == 3 ? grad->view[0] : 1, rows = grad->view[rank - 2];
    const int64_t patch = values[0][0] * values[0][1];
    if (rows % patch != 0) {
      return RejectInvalid(call_, family_, F::Role::kGradOutput,
                           "dimension " + std::to_string(rank - 2) + " (" + std::to_string(rows) +
                               ") is not a multiple of the kernel's " + std::to_string(patch) + " positions");
    }
    ConvArgs a;
    a.input = {n, rows / patch, size[0], size[1]};
    a.weight = {1, a.input[1], values[0][0], values[0][1]};
    a.dilation = Vec(values[1]);
    a.padding = Vec(values[2]);
    a.stride = Vec(values[3]);
    std::vector<int64_t> conv_out;
    const ConvProblem problem = aclnn_bindgen::ConvOutputShape(a, &conv_out);
    if (!problem.ok()) {
      const int role = problem.param == "weight" ? F::Role::kKernelSize : ProblemRole(problem.param, op_);
      return RejectProblem(call_, family_, role, problem);
    }
    if (grad->view[rank - 1] != conv_out[2] * conv_out[3]) {
      return RejectInvalid(call_, family_, F::Role::kGradOutput,
                           "its last dimension (" + std::to_string(grad->view[rank - 1]) + ") is not the " +
                               std::to_string(conv_out[2] * conv_out[3]) + " patches of inputSize " + DimsText(size));
    }
    made_ = new ConvWork(call_.spec.name);
    owned_.reset(made_);
    made_->g = MakeGeometry(a, conv_out);
    made_->col2im_only = true;
    Dims shape;
    if (rank == 3) shape.push_back(n);
    shape.push_back(a.input[1]);
    shape.push_back(size[0]);
    shape.push_back(size[1]);
    if (aclnnStatus s = Keep(F::Role::kGradOutput, *grad, kYin, nullptr, nullptr, "")) return s;
    if (aclnnStatus s = Keep(F::Role::kGradInput, *out, kXout, nullptr, &shape, "the folded shape")) return s;
    return Finish();
  }

  // aclnnUnfoldGrad: gradIn (inputSizes) from gradOut (inputSizes with dim's L as W = (L - size) /
  // step + 1 windows, and a last dimension of size): each block of the other dimensions is a 1d
  // col2im with kernel `size` and stride `step`, read and written as permuted views (dim last).
  aclnnStatus PlanUnfoldGrad() {
    const TensorDesc* grad = RoleTensor(call_, family_, F::Role::kGradOutput);
    const TensorDesc* out = RoleTensor(call_, family_, F::Role::kGradInput);
    if (!grad || !out) return Decline(call_, work_, "without gradOut or gradIn");
    const Dims sizes = Ints(call_, family_, F::Role::kInputSizes);
    const int64_t rank = static_cast<int64_t>(sizes.size());
    if (rank > 8) {  // "inputSizes的size小于等于8"
      return RejectByParamRow(call_, family_, F::Role::kInputSizes, "must have at most 8 values, got " + DimsText(sizes));
    }
    // "dim不等于len(inputSizes)-1且dim不等于len(inputSizes)-2": no dim is, for PyTorch's 0-d input (no sizes).
    int64_t dim = RoleInt(call_, family_, F::Role::kDim, 0);
    if (rank == 0 || !WrapDim(dim, rank, &dim) || (dim != rank - 1 && dim != rank - 2)) {
      return RejectByRow(call_, family_, F::Role::kDim, RowKind::kValue,
                         std::to_string(RoleInt(call_, family_, F::Role::kDim, 0)) +
                             " is not one of the last two dimensions of inputSizes " + DimsText(sizes));
    }
    const int64_t length = sizes[static_cast<size_t>(dim)];
    const int64_t size = RoleInt(call_, family_, F::Role::kSize, 0), step = RoleInt(call_, family_, F::Role::kStep, 0);
    if (size <= 0 || size > length) {
      return RejectByRow(call_, family_, F::Role::kSize, RowKind::kValue,
                         std::to_string(size) + " must be in [1, " + std::to_string(length) + "] (inputSizes[dim])");
    }
    if (step <= 0) {
      return RejectByRow(call_, family_, F::Role::kStep, RowKind::kValue, std::to_string(step) + " must be greater than 0");
    }
    // The windows as a convolution's output positions: the one output-size function.
    const int64_t windows = aclnn_bindgen::ConvOutputSize(length, size, step, 0, 0, 1);
    Dims grad_shape = sizes;
    grad_shape[static_cast<size_t>(dim)] = windows;
    grad_shape.push_back(size);
    made_ = new ConvWork(call_.spec.name);
    owned_.reset(made_);
    made_->col2im_only = true;
    Geometry& g = made_->g;
    g.cx = g.cy = 1;
    g.x[2] = length;
    g.y[2] = windows;
    g.k[2] = size;
    g.s[2] = step;
    g.n = 1;
    for (int64_t d = 0; d < rank; ++d) g.n *= d == dim ? 1 : sizes[static_cast<size_t>(d)];
    // gradOut as [others..., size, windows], gradIn as [others..., L].
    int64_t grad_order[9], in_order[8];
    int64_t k = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim) grad_order[k] = in_order[k] = d, ++k;
    }
    grad_order[k] = rank;
    grad_order[k + 1] = dim;
    in_order[k] = dim;
    Dims permuted_grad, permuted_in;
    for (int64_t d = 0; d <= rank; ++d) permuted_grad.push_back(grad_shape[static_cast<size_t>(grad_order[d])]);
    for (int64_t d = 0; d < rank; ++d) permuted_in.push_back(sizes[static_cast<size_t>(in_order[d])]);
    if (grad->view.size() != grad_shape.size()) {
      return RejectInvalid(call_, family_, F::Role::kGradOutput,
                           "shape " + DimsText(grad->view) + " is not the unfolded shape " + DimsText(grad_shape));
    }
    if (aclnnStatus s = Keep(F::Role::kGradOutput, *grad, kYin, grad_order, &permuted_grad, "the unfolded shape")) return s;
    if (out->view.size() != sizes.size()) {
      return RejectInvalid(call_, family_, F::Role::kGradInput,
                           "shape " + DimsText(out->view) + " is not inputSizes " + DimsText(sizes));
    }
    if (aclnnStatus s = Keep(F::Role::kGradInput, *out, kXout, in_order, &permuted_in, "inputSizes")) return s;
    return Finish();
  }

  // Declines the whole call (phase 2 answers 561003 naming why): the planning that follows keeps
  // checking arguments, but hands over the not-simulated work instead of its own.
  aclnnStatus Declined(const std::string& why) {
    if (!declined_) Decline(call_, work_, why);
    declined_ = true;
    return ACLNN_SUCCESS;
  }

  aclnnStatus Finish() {
    if (!declined_) *work_ = owned_.release();
    return ACLNN_SUCCESS;
  }

  const Call& call_;
  const FamilySpec& family_;
  ExecutorWork** work_;
  int op_;
  bool declined_ = false;
  ConvWork* made_ = nullptr;
  std::unique_ptr<ConvWork> owned_;
};

}  // namespace

aclnnStatus PlanConv(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  Planner planner(call, family, work);
  return planner.Plan();
}

}  // namespace aclsim
