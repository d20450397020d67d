// The matmul family: mm, bmm, matmul (1-D to 6-D with broadcast batch dimensions), addmm,
// baddbmm, addbmm, mv, addmv, dot, ger and gemm (addmm of operands transposed on request), on OpenBLAS (the scipy-openblas32 wheel that NumPy
// and SciPy ship; its symbols are prefixed scipy_).
//
// Phase 1 reduces every op to one batched product C[b] = alpha * A[b] @ B[b] + beta * bias[b]:
// views of A as [batch..., M, K], B as [batch..., K, N], the output and the broadcast bias as
// [batch..., M, N] (a 1-D operand gains a dimension of 1, a broadcast batch dimension stride 0).
// addbmm sums over the batch: its A is gathered as [M, batch * K] and its B as [batch * K, N],
// one product.
//
// Phase 2 hands BLAS each operand in place when its dtype is the compute type's and one of its
// two matrix strides is 1 (a transposed view is BLAS's transposed operand), else a contiguous
// copy converted to the compute type: FLOAT, FLOAT16 and BFLOAT16 compute in float (sgemm), as
// the NPU's Cube does, DOUBLE in double (dgemm). Integers and BOOL are summed in int64 without
// BLAS, wrapping as PyTorch's integer products do (in two's complement: no undefined overflow),
// then wrapped to the output's dtype; alpha and beta scale them in the integer type, as PyTorch's
// alpha.to<scalar_t>() does (a fractional one truncated towards zero, BOOL's nonzero as 1). OpenBLAS runs on as many threads as the simulator's pool (opapi/blas.h).
//
// BFLOAT16 (or FLOAT16) operands both, read in place, are multiplied by oneDNN instead where it has
// the CPU's instructions for them on the kernel path (opapi/onednn.h: AMX or AVX512-BF16, AVX512-FP16;
// at 1024^3 on 2 cores, 3.3x OpenBLAS's sgemm of the converted operands for BFLOAT16 with AMX, 1.5x
// for FLOAT16 with AVX512-FP16), accumulated in float with alpha and
// beta * bias applied before the one rounding to the out's dtype, as with sgemm.
// sim_stats()["engine_paths"]["matmul.bfloat16"] (".float16") says which route the last one took.
//
// B may be stored in FRACTAL_NZ where the page admits it (aclnnMatmulWeightNz, aclnnAddmmWeightNz,
// aclnnBatchMatMulWeightNz: torch_npu's mm, addmm and bmm of a weight npu_format_cast to 29): a
// [batch..., K, N] view whose storage [batch..., X1, Y1, Y0, X0] holds, per batch, a Y x X matrix P
// in Y0 x X0 fractals, P = B (the view's strides row-major) or P = B^T (the view transposed: a
// Linear's weight.t()). Phase 2 gathers the padded P of each batch from the fractals (a strided view
// of them, row-major [Y1 * Y0, X1 * X0]) and hands them to BLAS.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include <cblas.h>

#include "aclnn_bindgen/half.h"
#include "aclnn_bindgen/matmul_shape.h"
#include "common/dtypes.h"
#include "opapi/blas.h"
#include "opapi/families/family.h"
#include "opapi/families/fractal_nz.h"
#include "opapi/onednn.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MatmulFamily;

enum Slot { kA, kB, kOut, kBias, kX3, kGatherOut, kSlots };

// fused_matmul's step after the product (and bias), by the page's fusedOpType: "" and "16cast32"
// none (the latter's FLOAT out converts), "add" and "mul" x3, "gelu_tanh", "gelu_erf", "relu".
enum Epilogue { kNoEpilogue, kAddX3, kMulX3, kGeluTanh, kGeluErf, kRelu };

// The pages' cubeMathType values (0 KEEP_DTYPE ... 4 USE_FP32_ADD); 2 is USE_FP16.
constexpr int64_t kCubeMathMax = 4;
constexpr int64_t kUseFp16 = 2;

bool IsFloating16(aclDataType d) { return d == ACL_FLOAT16 || d == ACL_BF16; }
bool IsFloatingOrHalf(aclDataType d) { return d == ACL_FLOAT || IsFloating16(d); }

// How BLAS reads a rows x cols matrix with the given element strides: in place (transposed or
// not, with its leading dimension), or not at all.
bool BlasLayout(int64_t rows, int64_t cols, int64_t srow, int64_t scol, bool* trans, int64_t* ld) {
  if (cols == 1 || scol == 1) {
    *ld = rows == 1 ? std::max<int64_t>(cols, 1) : srow;
    if (*ld >= std::max<int64_t>(cols, 1) && *ld <= INT_MAX) {
      *trans = false;
      return true;
    }
  }
  if (rows == 1 || srow == 1) {
    *ld = cols == 1 ? std::max<int64_t>(rows, 1) : scol;
    if (*ld >= std::max<int64_t>(rows, 1) && *ld <= INT_MAX) {
      *trans = true;
      return true;
    }
  }
  return false;
}

// One operand of the product as BLAS takes it: its matrices' addresses by batch index.
template <typename T>
struct Operand {
  const T* base = nullptr;
  Dims batch_strides;  // in elements; 0 where broadcast
  bool trans = false;
  int64_t ld = 1;
};

class MatmulWork final : public FamilyWork {
 public:
  MatmulWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  NzLayout nz_b;

  Dims batch;  // the broadcast batch shape
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;  // beta = 0: no bias, or a bias the product ignores
  bool integers = false;       // integral or BOOL operands: an int64 result
  bool fp16_inputs = false;    // cubeMathType USE_FP16: FLOAT inputs rounded to FLOAT16 first
  bool sum_batches = false;    // addbmm: the sum over `summed` products
  int64_t summed = 1;
  int epilogue = kNoEpilogue;  // fused_matmul's, applied in the compute type before the one rounding
  bool gathers = false;        // aclnnAllGatherMatmul's gatherOut asked for: one rank's all-gather of A is A

 private:
  int64_t BatchCount() const {
    int64_t count = 1;
    for (int64_t d : batch) count *= d;
    return count;
  }

  // Element offset of batch `index` (row-major over `batch`) for the given batch strides.
  int64_t BatchOffset(int64_t index, const Dims& strides) const {
    int64_t offset = 0;
    for (size_t d = batch.size(); d-- > 0;) {
      offset += (index % batch[d]) * strides[d];
      index /= batch[d];
    }
    return offset;
  }

  // The operand in slot `slot`, a [batch..., rows, cols] view: in place when BLAS can read it,
  // else gathered (its own batches only: broadcast dimensions are not copied) into scratch.
  template <typename T>
  Operand<T> Prepare(int slot, int scratch, int64_t rows, int64_t cols) {
    return PrepareAs<T>(this->type, slot, scratch, rows, cols);
  }

  // cubeMathType USE_FP16: FLOAT operands rounded to FLOAT16 before the product.
  template <typename T>
  void RoundToHalf(T* buffer, int64_t count) const {
    if constexpr (std::is_same<T, float>::value) {
      if (!fp16_inputs) return;
      for (int64_t i = 0; i < count; ++i) buffer[i] = aclnn_bindgen::HalfToFloat(aclnn_bindgen::FloatToHalf(buffer[i]));
    }
  }

  // B from its FRACTAL_NZ storage: each batch's padded P gathered row-major, read as B (or B^T) by
  // BLAS; a batch dimension B lacks or has as 1 broadcast (stride 0).
  template <typename T>
  Operand<T> PrepareNz(ComputeType type, int scratch) {
    const NzLayout& nz = nz_b;
    const TensorRef fractals = NzFractals(tensor(kB), nz);
    const int64_t count = fractals.numel();
    T* buffer = static_cast<T*>(Scratch(scratch, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T)));
    GatherAs(fractals, type, buffer);
    RoundToHalf(buffer, count);
    Operand<T> op;
    op.base = buffer;
    op.trans = nz.transposed;
    op.ld = nz.x1 * nz.x0;
    op.batch_strides.assign(batch.size(), 0);
    const size_t own = nz.batch.size();
    int64_t stride = nz.y1 * nz.y0 * nz.x1 * nz.x0;
    for (size_t d = own; d-- > 0;) {
      op.batch_strides[batch.size() - own + d] = nz.batch[d] == 1 ? 0 : stride;
      stride *= nz.batch[d];
    }
    return op;
  }

  // The operand in slot `slot` (rows x cols matrices) read in place, as a BLAS reads it: each matrix
  // with a stride of 1 (BlasLayout), the batches at non-negative strides; false when it is not so
  // stored (or is B in FRACTAL_NZ).
  template <typename T>
  bool InPlace(int slot, int64_t rows, int64_t cols, Operand<T>* op) const {
    if (slot == kB && nz_b.used) return false;
    const TensorRef& t = tensor(slot);
    const size_t nb = batch.size();
    if (!BlasLayout(rows, cols, t.strides[nb], t.strides[nb + 1], &op->trans, &op->ld)) return false;
    for (size_t d = 0; d < nb; ++d) {
      if (t.strides[d] < 0) return false;
    }
    op->base = reinterpret_cast<const T*>(t.first);
    op->batch_strides.assign(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(nb));
    return true;
  }

  template <typename T>
  Operand<T> PrepareAs(ComputeType type, int slot, int scratch, int64_t rows, int64_t cols) {
    if (slot == kB && nz_b.used) return PrepareNz<T>(type, scratch);
    const TensorRef& t = tensor(slot);
    const size_t nb = batch.size();
    Operand<T> op;
    if (t.dtype == StorageOf(type) && !fp16_inputs && InPlace(slot, rows, cols, &op)) return op;
    TensorRef own = t;
    for (size_t d = 0; d < nb; ++d) {
      if (t.strides[d] == 0) own.shape[d] = 1;
    }
    const int64_t count = own.numel();
    T* buffer = static_cast<T*>(Scratch(scratch, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T)));
    GatherAs(own, type, buffer);
    RoundToHalf(buffer, count);
    op.base = buffer;
    op.trans = false;
    op.ld = std::max<int64_t>(cols, 1);
    op.batch_strides.resize(nb);
    int64_t stride = rows * cols;
    for (size_t d = nb; d-- > 0;) {
      op.batch_strides[d] = own.shape[d] == 1 ? 0 : stride;
      stride *= own.shape[d];
    }
    return op;
  }

  template <typename T>
  static void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                   int64_t ldb, T beta, T* c, int64_t ldc) {
    const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same<T, float>::value) {
      scipy_cblas_sgemm(CblasRowMajor, opa, opb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                        a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
    } else {
      scipy_cblas_dgemm(CblasRowMajor, opa, opb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                        a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
    }
  }

  // The operands' dtype when both are the same 16-bit one (BFLOAT16, FLOAT16), else ACL_DT_UNDEFINED.
  aclDataType Operands16() const {
    const aclDataType d = tensor(kA).dtype;
    return IsFloating16(d) && tensor(kB).dtype == d && !fp16_inputs ? d : ACL_DT_UNDEFINED;
  }

  // sim_stats' engine_paths["matmul.bfloat16"] and ["matmul.float16"]: the route the last product of
  // such operands took, oneDNN's kernel or OpenBLAS's ("openblas:Haswell"; every family's BLAS calls
  // show as the "blas" engine's).
  static void TookRoute(aclDataType operands, const char* route) {
    static EnginePath bfloat16(__FILE__, "bfloat16"), float16(__FILE__, "float16");
    (operands == ACL_BF16 ? bfloat16 : float16).TookRoute(route);
  }

  // The 16-bit route (opapi/onednn.h): BFLOAT16 or FLOAT16 operands that oneDNN multiplies on this
  // kernel path and reads in place, every batch's product planned once into `product`; false when
  // the product takes OpenBLAS instead. `out16`: c is the 16-bit out itself (else float).
  bool PlanProduct16(aclDataType operands, bool out16, int64_t k_sum, float beta_c, DnnlProduct* product,
                     Operand<uint16_t>* a, Operand<uint16_t>* b) const {
    if (operands == ACL_DT_UNDEFINED || sum_batches || k_sum == 0 || !DnnlMultiplies(operands)) return false;
    if (!InPlace(kA, m, k, a) || !InPlace(kB, k, n, b)) return false;
    std::string why;  // oneDNN without a kernel for these shapes: OpenBLAS computes them as well
    return product->Plan(operands, out16 ? operands : ACL_FLOAT, m, n, k, {a->base, a->trans, a->ld},
                         {b->base, b->trans, b->ld}, n, static_cast<float>(alpha), beta_c, &why);
  }

  template <typename T>
  aclnnStatus Product() {
    const ComputeType type = this->type;
    const TensorRef& out = tensor(kOut);
    const int64_t nb = sum_batches ? summed : BatchCount();
    const int64_t cells = (sum_batches ? 1 : nb) * m * n;
    const TensorRef& bias = tensor(kBias);
    const bool has_bias = bias.dtype != ACL_DT_UNDEFINED && beta != 0;
    const T beta_c = has_bias ? static_cast<T>(beta) : T(0);
    // BFLOAT16 and FLOAT16 operands on oneDNN where it applies, which writes a 16-bit out itself
    // when nothing follows the product.
    const aclDataType operands = std::is_same<T, float>::value ? Operands16() : ACL_DT_UNDEFINED;
    DnnlProduct product16;
    Operand<uint16_t> a16, b16;
    bool out16 = operands != ACL_DT_UNDEFINED && !has_bias && epilogue == kNoEpilogue && out.dtype == operands &&
                 out.Contiguous();
    bool routed = PlanProduct16(operands, out16, nb * k, static_cast<float>(beta_c), &product16, &a16, &b16);
    if (!routed && out16) {  // oneDNN may lack the 16-bit result's kernel and still have float's
      out16 = false;
      routed = PlanProduct16(operands, false, nb * k, static_cast<float>(beta_c), &product16, &a16, &b16);
    }
    if (operands != ACL_DT_UNDEFINED) TookRoute(operands, routed ? product16.route() : BlasRoute());
    // C: the output's own memory when it is a dense array of the compute type (or the 16-bit out
    // oneDNN writes), else a contiguous buffer scattered into it at the end.
    const bool direct = out16 || (out.dtype == StorageOf(type) && out.Contiguous());
    T* c = direct ? reinterpret_cast<T*>(out.first)
                  : static_cast<T*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(cells, 1)) * sizeof(T)));
    if (has_bias && !(direct && bias.first == out.first && bias.strides == out.strides)) {
      GatherAs(bias, type, c);
    }
    if (routed) {
      const size_t size = out16 ? sizeof(uint16_t) : sizeof(T);
      for (int64_t i = 0; i < nb; ++i) {
        std::string why;
        if (!product16.Run(a16.base + BatchOffset(i, a16.batch_strides), b16.base + BatchOffset(i, b16.batch_strides),
                           reinterpret_cast<char*>(c) + static_cast<size_t>(i * m * n) * size, &why)) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + why);
        }
      }
    } else if (k == 0 || nb == 0) {  // an empty sum: beta * bias, or zeros
      for (int64_t i = 0; i < cells; ++i) c[i] = has_bias ? beta_c * c[i] : T(0);
    } else if (sum_batches) {
      // sum_b A[b] @ B[b] = [A[0] ... A[nb-1]] @ [B[0]; ...; B[nb-1]]: A as [M, nb * K], B as [nb * K, N].
      TensorRef& a = tensor(kA);
      const int64_t order[3] = {1, 0, 2};
      const TensorRef rows = a.Permuted(order);  // [M, nb, K]
      const T* pa = static_cast<const T*>(ContiguousAs(rows, type, 1));
      const T* pb = static_cast<const T*>(ContiguousAs(tensor(kB), type, 2));
      Gemm<T>(false, false, m, n, nb * k, static_cast<T>(alpha), pa, nb * k, pb, n, beta_c, c, n);
    } else {
      const Operand<T> a = Prepare<T>(kA, 1, m, k);
      const Operand<T> b = Prepare<T>(kB, 2, k, n);
      for (int64_t i = 0; i < nb; ++i) {
        Gemm<T>(a.trans, b.trans, m, n, k, static_cast<T>(alpha), a.base + BatchOffset(i, a.batch_strides), a.ld,
                b.base + BatchOffset(i, b.batch_strides), b.ld, beta_c, c + i * m * n, n);
      }
    }
    if (epilogue != kNoEpilogue) Epilogue(c, cells);
    if (!direct) ScatterFrom(c, type, out);
    return ACLNN_SUCCESS;
  }

  template <typename T>
  void Epilogue(T* c, int64_t cells) {
    const T* x3 = nullptr;
    if (epilogue == kAddX3 || epilogue == kMulX3) {
      T* buffer = static_cast<T*>(Scratch(4, static_cast<size_t>(std::max<int64_t>(cells, 1)) * sizeof(T)));
      GatherAs(tensor(kX3), this->type, buffer);
      x3 = buffer;
    }
    const T half = T(0.5), root_2_over_pi = T(0.7978845608028654), cubic = T(0.044715), root_half = T(0.7071067811865476);
    for (int64_t i = 0; i < cells; ++i) {
      const T v = c[i];
      switch (epilogue) {
        case kAddX3: c[i] = v + x3[i]; break;
        case kMulX3: c[i] = v * x3[i]; break;
        case kGeluTanh: c[i] = half * v * (T(1) + std::tanh(root_2_over_pi * (v + cubic * v * v * v))); break;
        case kGeluErf: c[i] = half * v * (T(1) + Erf(v * root_half)); break;
        default: c[i] = v > T(0) || v != v ? v : T(0); break;  // relu, NaN kept
      }
    }
  }

  // The integer product, exact in int64 arithmetic that wraps (uint64_t: no signed overflow).
  void IntegerProduct() {
    const TensorRef& out = tensor(kOut);
    const int64_t nb = sum_batches ? summed : BatchCount();
    const int64_t products = sum_batches ? 1 : nb;
    const int64_t cells = products * m * n;
    int64_t* c = static_cast<int64_t*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(cells, 1)) * sizeof(int64_t)));
    const TensorRef& bias = tensor(kBias);
    const bool has_bias = bias.dtype != ACL_DT_UNDEFINED && beta != 0;
    if (has_bias) GatherAs(bias, ComputeType::kInt64, c);
    const uint64_t a_scale = static_cast<uint64_t>(static_cast<int64_t>(alpha));
    const uint64_t b_scale = static_cast<uint64_t>(static_cast<int64_t>(beta));
    Operand<int64_t> a, b;
    int64_t depth = k;
    if (sum_batches) {  // as in Product: A as [M, nb * K], B as [nb * K, N]
      const int64_t order[3] = {1, 0, 2};
      a.base = static_cast<const int64_t*>(ContiguousAs(tensor(kA).Permuted(order), ComputeType::kInt64, 1));
      b.base = static_cast<const int64_t*>(ContiguousAs(tensor(kB), ComputeType::kInt64, 2));
      depth = nb * k;
      a.ld = depth;
      b.ld = n;
    } else {
      a = PrepareAs<int64_t>(ComputeType::kInt64, kA, 1, m, k);
      b = PrepareAs<int64_t>(ComputeType::kInt64, kB, 2, k, n);
    }
    ParallelFor(products * m, [&](int64_t task) {
      const int64_t i = task / m, r = task % m;
      const int64_t* pa = a.base + (sum_batches ? 0 : BatchOffset(i, a.batch_strides));
      const int64_t* pb = b.base + (sum_batches ? 0 : BatchOffset(i, b.batch_strides));
      for (int64_t col = 0; col < n; ++col) {
        uint64_t sum = 0;
        for (int64_t j = 0; j < depth; ++j) {
          const int64_t x = a.trans ? pa[j * a.ld + r] : pa[r * a.ld + j];
          const int64_t y = b.trans ? pb[col * b.ld + j] : pb[j * b.ld + col];
          sum += static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
        }
        int64_t& cell = c[(i * m + r) * n + col];
        const uint64_t added = has_bias ? b_scale * static_cast<uint64_t>(cell) : 0;
        cell = static_cast<int64_t>(a_scale * sum + added);
      }
    });
    ScatterFrom(c, ComputeType::kInt64, out);
  }

  aclnnStatus Compute() override {
    if (gathers) ScatterFrom(ContiguousAs(tensor(kA), type, 5), type, tensor(kGatherOut));
    if (m == 0 || n == 0 || (!sum_batches && BatchCount() == 0)) return ACLNN_SUCCESS;
    if (integers) {
      IntegerProduct();
      return ACLNN_SUCCESS;
    }
    return type == ComputeType::kFloat64 ? Product<double>() : Product<float>();
  }

  int op_;
};

// The shape of `t` with dimensions of 1 inserted at `at` (a 1-D operand's missing M or N).
void InsertUnit(TensorRef* t, size_t at) {
  t->shape.push_back(1);
  t->strides.push_back(1);
  for (size_t d = t->shape.size() - 1; d > at; --d) {
    t->shape[d] = t->shape[d - 1];
    t->strides[d] = t->strides[d - 1];
  }
  t->shape[at] = 1;
  t->strides[at] = 1;
}

// `t` with its batch dimensions (all but the last two) right-aligned to `batch`: missing and
// size-1 dimensions broadcast with stride 0.
void AlignBatch(TensorRef* t, const Dims& batch) {
  const size_t own = t->shape.size() - 2;
  Dims shape(batch), strides(batch.size(), 0);
  for (size_t d = 0; d < own; ++d) {
    const size_t at = batch.size() - own + d;
    strides[at] = t->shape[d] == 1 ? 0 : t->strides[d];
  }
  for (size_t d = own; d < t->shape.size(); ++d) {
    shape.push_back(t->shape[d]);
    strides.push_back(t->strides[d]);
  }
  t->shape = shape;
  t->strides = strides;
}

// `shape` right-aligned to `target` with stride 0 where broadcast; false when it does not broadcast.
bool BroadcastTo(TensorRef* t, const Dims& target) {
  if (t->shape.size() > target.size()) return false;
  Dims strides(target.size(), 0);
  const size_t lead = target.size() - t->shape.size();
  for (size_t d = 0; d < t->shape.size(); ++d) {
    if (t->shape[d] == target[lead + d]) {
      strides[lead + d] = t->strides[d];
    } else if (t->shape[d] != 1) {
      return false;
    }
  }
  t->shape = target;
  t->strides = strides;
  return true;
}

std::string RankText(int64_t rank) { return std::to_string(rank) + "-dimensional"; }

// B's FRACTAL_NZ storage read (fractal_nz.h) into `nz`, with `tb`'s memory extent the fractals'; else
// the rejection naming what the family does not read.
aclnnStatus PlanNz(const Call& call, const FamilySpec& family, int op, const TensorDesc& b, TensorRef* tb, NzLayout* nz) {
  if (op != F::Op::kMm && op != F::Op::kAddmm && op != F::Op::kMatmul && op != F::Op::kBmm) {
    return RejectInvalid(call, family, F::Role::kB, "FRACTAL_NZ is read by mm, addmm, bmm and matmul only");
  }
  const std::string unread = ReadNz(b, tb, nz);
  if (!unread.empty()) return RejectInvalid(call, family, F::Role::kB, "FRACTAL_NZ " + unread);
  return ACLNN_SUCCESS;
}

// transpose_bmm (aclnnTransposeBatchMatMul): a and b seen through permX1 and permX2 as [B, M, K]
// and [B, K, N]. What the simulator does not model is refused by name: a scale (INT8
// quantisation), a bias (the page gives it no shape), batchSplitFactor other than 1, permX2 other
// than [0, 1, 2] (the page: the only one on Atlas A2/A3) and permY other than [1, 0, 2] (out [M, B,
// N], the shape op-plugin allocates); as are b's K and N not multiples of 128 (the page's error).
aclnnStatus PlanTransposes(const Call& call, const FamilySpec& family, const TensorDesc& b, const TensorDesc& out,
                           TensorRef* ta, TensorRef* tb) {
  const ParamRejecter reject(call, family);
  if (RoleTensor(call, family, F::Role::kScale)) return reject(F::Role::kScale, "INT8 quantisation is not modelled");
  if (RoleTensor(call, family, F::Role::kBias)) return reject(F::Role::kBias, "is not modelled (must be null)");
  if (out.dtype == ACL_INT8) return reject(F::Role::kOut, "INT8 needs scale's quantisation, which is not modelled");
  const int64_t split = RoleInt(call, family, F::Role::kBatchSplitFactor, 1);
  if (split != 1) return reject(F::Role::kBatchSplitFactor, std::to_string(split) + " is not modelled (only 1)");
  auto perm = [&](int role, const Dims& fallback, Dims* order) -> aclnnStatus {
    if (!RoleInts(call, family, role, order)) *order = fallback;
    Dims sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != Dims{0, 1, 2}) return reject(role, DimsText(*order) + " is not a permutation of [0, 1, 2]");
    return ACLNN_SUCCESS;
  };
  Dims perm_a, perm_b, perm_out;
  if (aclnnStatus s = perm(F::Role::kPermA, Dims{0, 1, 2}, &perm_a)) return s;
  if (aclnnStatus s = perm(F::Role::kPermB, Dims{0, 1, 2}, &perm_b)) return s;
  if (aclnnStatus s = perm(F::Role::kPermOut, Dims{1, 0, 2}, &perm_out)) return s;
  if (perm_b != Dims{0, 1, 2}) return reject(F::Role::kPermB, DimsText(perm_b) + " is not [0, 1, 2], the one supported");
  if (perm_out != Dims{1, 0, 2}) {
    return reject(F::Role::kPermOut, DimsText(perm_out) + " is not [1, 0, 2], the one modelled");
  }
  if (b.view[1] % 128 != 0 || b.view[2] % 128 != 0) {
    return reject(F::Role::kB, "shape " + DimsText(b.view) + ": dimensions 1 and 2 must be multiples of 128");
  }
  *ta = ta->Permuted(perm_a.data());
  *tb = tb->Permuted(perm_b.data());
  return ACLNN_SUCCESS;
}

}  // namespace

bool MatmulReadsPrivateLayout(const Call&, const FamilySpec& family, int param, const TensorDesc& t) {
  return param == family.role(F::Role::kB) && t.format == ACL_FORMAT_FRACTAL_NZ;
}

aclnnStatus PlanMatmul(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* a = RoleTensor(call, family, F::Role::kA);
  const TensorDesc* b = RoleTensor(call, family, F::Role::kB);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* bias = RoleTensor(call, family, F::Role::kBias);
  if (!a || !b || !out) return Decline(call, work, "when an input or the output is absent");
  const bool all_reduce = op == F::Op::kMatmulAllReduce;
  // An optional added tensor left null (aclnnMatmulAdd's bias, aclnnMatmulAllReduce's) is the plain
  // product; a page whose added tensor is required refuses the null one in phase 1.
  const bool adds = (op == F::Op::kAddmm || op == F::Op::kBaddbmm || op == F::Op::kAddmv || op == F::Op::kAddbmm ||
                     op == F::Op::kGemm || op == F::Op::kFusedMatmul || all_reduce) && bias != nullptr;
  if (all_reduce) {
    if (aclnnStatus s = CheckOneRankGroup(call, family, F::Role::kGroup, F::Role::kReduceOp)) return s;
  }

  const int64_t cube = RoleInt(call, family, F::Role::kCubeMathType, 0);
  if (RoleParam(call, family, F::Role::kCubeMathType) && (cube < 0 || cube > kCubeMathMax)) {
    return RejectInvalid(call, family, F::Role::kCubeMathType,
                         "value " + std::to_string(cube) + " is not one of the documented 0 to 4");
  }
  if (cube == kUseFp16 && (a->dtype == ACL_BF16 || b->dtype == ACL_BF16)) {
    return RejectInvalid(call, family, F::Role::kCubeMathType, "USE_FP16 (2) is not supported for BFLOAT16 inputs");
  }

  // The compute type: DOUBLE in double; FLOAT, FLOAT16, BFLOAT16 in float; integers and BOOL in
  // int64 (IntegerProduct); anything else (complex) is not simulated.
  ComputeType type;
  bool integers = false;
  const aclDataType dtypes[2] = {a->dtype, b->dtype};
  bool any_double = false, any_float = false, all_integral = true;
  for (aclDataType d : dtypes) {
    ComputeType t;
    if (!FamilyComputeType(d, true, &t)) return DeclineDtype(call, work, d);
    any_double = any_double || d == ACL_DOUBLE;
    any_float = any_float || IsFloatingOrHalf(d);
    all_integral = all_integral && t == ComputeType::kInt64;
  }
  if (any_double) {
    type = ComputeType::kFloat64;
  } else if (any_float) {
    type = ComputeType::kFloat32;
  } else {
    type = ComputeType::kFloat64;
    integers = all_integral;
  }

  MatmulWork* made = new MatmulWork(call.spec.name, op);
  std::unique_ptr<MatmulWork> owned(made);
  made->type = type;
  made->integers = integers;
  made->fp16_inputs = cube == kUseFp16 && type == ComputeType::kFloat32;
  TensorRef& ta = made->tensor(kA);
  TensorRef& tb = made->tensor(kB);
  ta.Set(RoleName(call, family, F::Role::kA), *a);
  tb.Set(RoleName(call, family, F::Role::kB), *b);
  if (b->format == ACL_FORMAT_FRACTAL_NZ) {
    if (aclnnStatus s = PlanNz(call, family, op, *b, &tb, &made->nz_b)) return s;
  }
  const int64_t ra = ta.rank(), rb = tb.rank();

  auto need_rank = [&](int role, int64_t rank, int64_t want) -> aclnnStatus {
    if (rank == want) return ACLNN_SUCCESS;
    const TensorRef& t = role == F::Role::kA ? ta : tb;
    return RejectInvalid(call, family, role, "must be " + RankText(want) + ", got shape " + DimsText(t.shape));
  };
  // Ranks the op takes, and 1-D operands as matrices.
  bool drop_m = false, drop_n = false;  // the result loses the dimension a 1-D operand gained
  switch (op) {
    case F::Op::kMm: case F::Op::kAddmm:
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 2)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 2)) return s;
      break;
    case F::Op::kGemm: {
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 2)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 2)) return s;
      const int64_t swap[2] = {1, 0};  // a transposed operand is a view with its strides swapped
      if (RoleInt(call, family, F::Role::kTransA, 0) != 0) ta = ta.Permuted(swap);
      if (RoleInt(call, family, F::Role::kTransB, 0) != 0) tb = tb.Permuted(swap);
      break;
    }
    case F::Op::kBmm: case F::Op::kBaddbmm: case F::Op::kAddbmm:
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 3)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 3)) return s;
      break;
    case F::Op::kTransposeBmm:
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 3)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 3)) return s;
      if (aclnnStatus s = PlanTransposes(call, family, *b, *out, &ta, &tb)) return s;
      break;
    case F::Op::kMv: case F::Op::kAddmv:
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 2)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 1)) return s;
      InsertUnit(&tb, 1);  // [K] -> [K, 1]
      drop_n = true;
      break;
    case F::Op::kDot: case F::Op::kGer:
      if (aclnnStatus s = need_rank(F::Role::kA, ra, 1)) return s;
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 1)) return s;
      if (op == F::Op::kDot) {
        InsertUnit(&ta, 0);  // [1, K]
        InsertUnit(&tb, 1);  // [K, 1]
        drop_m = drop_n = true;
      } else {
        InsertUnit(&ta, 1);  // [M, 1]
        InsertUnit(&tb, 0);  // [1, N]
      }
      break;
    case F::Op::kMatmulAllReduce:  // x1 [(b,) s, k] times x2 [k, n]
      if (ra != 2 && ra != 3) return need_rank(F::Role::kA, ra, 3);
      if (aclnnStatus s = need_rank(F::Role::kB, rb, 2)) return s;
      break;
    case F::Op::kMatmul: case F::Op::kFusedMatmul:
      if (ra < 1 || rb < 1) {
        return RejectInvalid(call, family, ra < 1 ? F::Role::kA : F::Role::kB, "must have at least one dimension");
      }
      if (ra == 1) InsertUnit(&ta, 0), drop_m = true;
      if (rb == 1) InsertUnit(&tb, 1), drop_n = true;
      break;
    default:
      return Decline(call, work, "for this op");
  }
  const int64_t m = ta.shape[ta.rank() - 2], k = ta.shape[ta.rank() - 1];
  const int64_t k2 = tb.shape[tb.rank() - 2], n = tb.shape[tb.rank() - 1];
  if (k != k2) {
    return RejectInvalid(call, family, F::Role::kB,
                         "shape " + DimsText(b->view) + " does not multiply " + RoleName(call, family, F::Role::kA) +
                             "'s shape " + DimsText(a->view) + " (reduce dimension " + std::to_string(k2) + " vs " +
                             std::to_string(k) + ")");
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) return Decline(call, work, "for a matrix dimension above 2^31");

  // The broadcast batch shape.
  Dims batch;
  if (!aclnn_bindgen::BroadcastBatch(ta.shape, ta.shape.size() - 2, tb.shape, tb.shape.size() - 2, &batch)) {
    return RejectInvalid(call, family, F::Role::kB,
                         "batch dimensions of shape " + DimsText(b->view) + " do not broadcast with " +
                             RoleName(call, family, F::Role::kA) + "'s shape " + DimsText(a->view));
  }
  AlignBatch(&ta, batch);
  AlignBatch(&tb, batch);

  // The result's shape, which out must have.
  Dims result;
  const bool sum_batches = op == F::Op::kAddbmm;
  if (!sum_batches) result = batch;
  if (!drop_m) result.push_back(m);
  if (!drop_n) result.push_back(n);
  // transpose_bmm's out is the product [B, M, N] permuted to [M, B, N].
  const int64_t swap_batch[3] = {1, 0, 2};
  const bool transposed_out = op == F::Op::kTransposeBmm;
  const Dims expected = transposed_out ? Dims{m, batch[0], n} : result;
  if (out->view != expected) {
    // An mc2 output sized for more ranks (torch_npu sizes a reduce-scatter's or an all-gather's by
    // its world_size) is not one rank's product.
    return RejectInvalid(call, family, F::Role::kOut,
                         "shape " + DimsText(out->view) + " is not the product's shape " + DimsText(expected) +
                             (all_reduce ? ", the result of the communicator's one rank" : ""));
  }
  // A result-shaped view as [.., M, N]: the dimensions a 1-D operand dropped come back as 1.
  auto to_full = [&](TensorRef* t) {
    if (drop_m) InsertUnit(t, t->shape.size() - (drop_n ? 0 : 1));
    if (drop_n) InsertUnit(t, t->shape.size());
  };
  TensorRef& to = made->tensor(kOut);
  to.Set(RoleName(call, family, F::Role::kOut), *out);
  if (transposed_out) to = to.Permuted(swap_batch);
  to_full(&to);
  made->beta = 0;
  if (adds) {
    made->alpha = RoleNumber(call, family, F::Role::kAlpha, F::Option::kAlpha, 1);
    const double beta = RoleNumber(call, family, F::Role::kBeta, F::Option::kBeta, 1);
    TensorRef& tbias = made->tensor(kBias);
    tbias.Set(RoleName(call, family, F::Role::kBias), *bias);
    if (!BroadcastTo(&tbias, result)) {
      return RejectInvalid(call, family, F::Role::kBias,
                           "shape " + DimsText(bias->view) + " does not broadcast to the product's shape " +
                               DimsText(result));
    }
    to_full(&tbias);
    made->beta = beta;
  }
  if (integers) {
    // PyTorch's integer products scale in the result's type (alpha.to<scalar_t>()): torch.addmv(...,
    // alpha=0.6) of int32 tensors scales by 0, not 0.6.
    const bool boolean = out->dtype == ACL_BOOL;
    for (double* scale : {&made->alpha, &made->beta}) {
      if (!(std::fabs(*scale) < 9e18)) {
        return Decline(call, work, "for an alpha or beta of integer operands beyond int64's range");
      }
      *scale = boolean ? static_cast<double>(*scale != 0) : std::trunc(*scale);
    }
  }
  // x3, added to (or multiplying) the product after the bias.
  auto take_x3 = [&](const TensorDesc& x3) -> aclnnStatus {
    TensorRef& t3 = made->tensor(kX3);
    t3.Set(RoleName(call, family, F::Role::kX3), x3);
    if (!BroadcastTo(&t3, result)) {
      return RejectInvalid(call, family, F::Role::kX3,
                           "shape " + DimsText(x3.view) + " does not broadcast to the product's shape " + DimsText(result));
    }
    to_full(&t3);
    return ACLNN_SUCCESS;
  };
  if (op == F::Op::kFusedMatmul) {
    static const struct {
      const char* name;
      int epilogue;
    } kFused[] = {{"", kNoEpilogue}, {"16cast32", kNoEpilogue}, {"add", kAddX3}, {"mul", kMulX3},
                  {"gelu_tanh", kGeluTanh}, {"gelu_erf", kGeluErf}, {"relu", kRelu}};
    const int fused_index = family.roles[F::Role::kFusedOp];
    const std::string fused = fused_index >= 0 ? CallString(call, fused_index) : "";
    const auto* found = std::find_if(std::begin(kFused), std::end(kFused), [&](const auto& f) { return fused == f.name; });
    if (found == std::end(kFused)) {
      return RejectInvalid(call, family, F::Role::kFusedOp,
                           "\"" + fused + "\" is none of \"\", \"add\", \"mul\", \"gelu_tanh\", \"gelu_erf\", \"relu\", \"16cast32\"");
    }
    if (integers) return Decline(call, work, "for integer operands (fused_matmul computes floating types)");
    made->epilogue = found->epilogue;
    if (made->epilogue == kAddX3 || made->epilogue == kMulX3) {
      const TensorDesc* x3 = RoleTensor(call, family, F::Role::kX3);
      if (!x3) {
        return RejectParam(call, family, F::Role::kX3, ACLNN_ERR_PARAM_NULLPTR, "is null where fusedOpType is \"" + fused + "\"");
      }
      if (aclnnStatus s = take_x3(*x3)) return s;
    }
  }
  if (all_reduce) {
    // aclnnMatmulAllReduceV2's x3 is added after the all-reduce, the identity of one rank: the
    // same "add" step; its page wants it of the product's shape.
    if (const TensorDesc* x3 = RoleTensor(call, family, F::Role::kX3)) {
      if (x3->view != result) {
        return RejectInvalid(call, family, F::Role::kX3,
                             "shape " + DimsText(x3->view) + " is not the product's shape " + DimsText(result));
      }
      if (integers) return Decline(call, work, "for integer operands with x3 (the pages' operands are floating)");
      made->epilogue = kAddX3;
      if (aclnnStatus s = take_x3(*x3)) return s;
    }
    // aclnnAllGatherMatmul's gatherOut, allgather(x1): x1 itself on one rank. An empty one is not
    // asked for (op-plugin passes a [0] tensor when gather_output is false).
    if (const TensorDesc* gather = RoleTensor(call, family, F::Role::kGatherOut)) {
      if (gather->numel() != 0) {
        if (gather->view != a->view || gather->dtype != a->dtype) {
          return RejectInvalid(call, family, F::Role::kGatherOut,
                               DTypeName(gather->dtype) + std::string(" ") + DimsText(gather->view) + " is not " +
                                   RoleName(call, family, F::Role::kA) + "'s " + DTypeName(a->dtype) + " " +
                                   DimsText(a->view) + ", the all-gather of the communicator's one rank");
        }
        made->tensor(kGatherOut).Set(RoleName(call, family, F::Role::kGatherOut), *gather);
        made->gathers = true;
      }
    }
  }
  // addbmm keeps A and B as [batch, M, K] and [batch, K, N] (broadcast batches are expanded by
  // the gather) and sums the batch's products in one.
  made->batch = sum_batches ? Dims{} : batch;
  made->sum_batches = sum_batches;
  made->summed = sum_batches ? batch[0] : 1;
  made->m = m;
  made->n = n;
  made->k = k;
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
