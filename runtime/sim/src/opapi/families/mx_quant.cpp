// The mx_quant family: the MX ("microscaling") and FLOAT8 quantisers of Ascend 950 as their pages state
// them.
//
// dynamic_mx_quant (aclnnDynamicMxQuant/V2/V3, torch_npu.npu_dynamic_mx_quant; the dual-axis form
// aclnnDynamicMxQuantWithDualAxis/V2, npu_dynamic_mx_quant_with_dual_axis, twice: along -1 into
// y1Out/mxscale1Out and along -2 into y2Out/mxscale2Out, blocks of 32; the grouped form
// aclnnGroupedDynamicMxQuant/V2, npu_grouped_dynamic_mx_quant, along dim 0 of x [m, n] with the blocks
// restarting at each group groupIndex's cumulative ends make, read on the device, each group's pairs
// of blocks after the group before's in mxscale [m / 64 + g, n, 2], the rows past them 0): x (FLOAT16, BFLOAT16,
// FLOAT) split along axis into blocks of blocksize elements; each block's scale is a power of two,
// mxscaleOut's FLOAT8_E8M0 code, and yOut = V / scale encoded in dstType (common/minifloat.h: rounded
// by roundMode, saturated to the format's largest value).
//   scaleAlg 0 (the OCP MX rule): shared_exp = floor(log2(max|V|)) - emax, clamped to E8M0's
//     [-127, 127] as the OCP specification clamps it (an all-zero block, log2 0, is -127: code 0);
//   scaleAlg 1 (FP8 only): S = max|V| / Amax(dstType) in float (V3: max|V| raised to maxLowBound
//     first), its biased exponent E raised by one when S is normal with a nonzero mantissa and E <
//     254, or subnormal with a mantissa above one half; the scale 2^(E - 127), y = V * 2^-(E - 127).
// mxscaleOut is x's shape with axis's dimension ceil(ceil(n / blocksize) / 2) and a trailing 2: block
// 2j + k of a row along axis at [..., j, ..., k] (the pages' "每两行数据进行交织"; along the last axis the
// same as the blocks in order), a missing last block 0.
// block_mx_quant (aclnnDynamicBlockMxQuant, npu_dynamic_block_mx_quant): one scale per 32 x 32 block of
// the last two axes (scaleAlg 0; or 2 for FLOAT4_E2M1, amax / dstTypeMax rounded up by the float bits
// as scaleAlg 1 but for a subnormal S, which stays), written at each of the block's rows into scale1Out
// and at each of its columns into scale2Out.
// rms_norm_mx_quant (aclnnRmsNormDynamicMxQuant, aclnnAddRmsNormDynamicMxQuant: npu_rms_norm_dynamic_mx_quant,
// npu_add_rms_norm_dynamic_mx_quant): the rms norm's rows (rms_rows.h, as norm_quant.cpp's), x = x1 + x2
// held in x1's dtype for the add form (xOut), y = x * rstd * gamma + beta in float, quantised along the
// last axis as dynamic_mx_quant in blocks of 32; rstdOut [..., 1] where outputRstd is true. The pages'
// "边界值场景" (an Inf or NaN x gives y 0 and mxscale 255) do not say which blocks take 255 (the row's
// other elements normalise to 0 by an infinite rms): a non-finite x, sum or y fails phase 2 by name.
// swiglu_mx_quant (aclnnSwigluMxQuant, npu_swiglu_mx_quant): SwiGLU of x's halves along activateDim (swigluMode
// 1: the even and odd elements of the last axis, clamped, with gluAlpha and gluBias), rounded to float, quantised
// along axis (one of the last two) as dynamic_mx_quant; groupIndexOptional's rows (counts or cumulative ends)
// bound the rows computed, the others 0 (the page: garbage), and along a non-last axis restart the blocks
// (mxscaleOut [rows / 64 + groupNum, n, 2]); the dual-axis form (aclnnSwigluMxQuantWithDualAxis,
// npu_swiglu_mx_quant_with_dual_axis: x [M, 2N]) quantises the result along -1 into y1Out/mxscale1Out and
// along -2 into y2Out/mxscale2Out, its groups cumulative ends of the -2 pass ending at M. Declined by name:
// groups with activateDim 0 (which rows they count the page does not say).
// swiglu_grad_mx_quant (aclnnSwigluBackwardMxQuantWithDualAxis, _npu_swiglu_backward_mx_quant_with_dual_axis):
// x [M, 2N]'s SwiGLU gradient from yGrad [M, N] (grad_A = yGrad * B * sigmoid(A) * (1 + A - A * sigmoid(A)),
// grad_B = yGrad * A * sigmoid(A)), quantised as the dual-axis form. grad_x is x's gradient, each half's at
// its own place: the page's concat(grad_A, grad_B) is that order when A is the first half (activateLeft).
// dual_level_mx_quant (aclnnDynamicDualLevelMxQuant, npu_dynamic_dual_level_mx_quant): x (times
// smoothScaleOptional, the product in x's dtype) per block of 512 along the last axis divided by
// level0ScaleOut = max|x| / 6 in float and rounded to x's dtype, then quantised to FLOAT4_E2M1 by the OCP
// rule in blocks of 32 (level1ScaleOut). A block of 512 zeros, whose level0Scale 0 the page divides by,
// fails phase 2 naming x.
// anti_mx_quant (aclnnAntiMxQuant, npu_anti_mx_quant): y = x * 2^(mxscale - 127), blocks of 32 along
// axis, in float, rounded once to y's FLOAT16/BFLOAT16/FLOAT.
// quant_max (aclnnQuantMax, aclnnGroupedQuantMax: torch_npu.npu_quant_max): y = Cast(x * scale[g],
// dstType, "rint") over the groups of x's rows groupList's cumulative ends make (one group without it),
// the product in float, and amax[g] = max|x_g| in x's dtype. The pages' Cast does not say what an
// overflow gives (PyTorch saturates FLOAT8_E4M3FN, ml_dtypes gives NaN): a product that rounds past
// the format's largest value, or is not finite, fails phase 2 naming y; HIFLOAT8 (dstType 34, a format
// the pages do not define) is declined by name, as is an empty x, whose amax they do not define.
//
// FLOAT4 tensors are packed two to a byte (minifloat.h) and must be contiguous (the pages' "FLOAT4不支持非
// 连续"): the work keeps them as their UINT8 bytes. FLOAT8 and FLOAT8_E8M0 outputs may have any strides
// (the page's "×" for yOut and mxscaleOut is the device's limit; writing them strided computes nothing
// else). A NaN or infinite x, whose block scale the pages' formulas do not define, fails phase 2
// naming x. Declined by name (561003): the quantisers' scaleAlg 2 (its ceil condition, "尾数位的高比特前
// 一/两位为1", does not say which bits), a nonzero dstTypeMax (used by that scaleAlg 2 alone), roundMode
// "round" (listed beside "rint" without saying how it differs).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/minifloat.h"
#include "opapi/families/family.h"
#include "opapi/families/rms_rows.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = MxQuantFamily;

// kOut2 and kScaleOut2: the dual-axis form's quantisation along -2.
enum Slot { kX, kScale, kOut, kScaleOut, kGroupList, kOut2, kScaleOut2, kSlots };

// x's elements as [outer, length, inner] around the axis, cut into blocks along it. The grouped form
// cuts the axis into groups first (their ends, read on the device), each group's blocks restarting at
// its start and its pairs of blocks following the group before's in mxscale.
struct Blocking {
  int64_t outer = 1, length = 1, inner = 1, block = 32;
  int64_t blocks() const { return (length + block - 1) / block; }
  int64_t pairs() const { return (blocks() + 1) / 2; }
  // The flat index of mxscale's code for block b of the pair rows from `pair_row` at (o, i), of
  // `rows` pair rows along the axis: [o, pair_row + b / 2, i, b % 2].
  int64_t ScaleIndex(int64_t o, int64_t rows, int64_t pair_row, int64_t b, int64_t i) const {
    return ((o * rows + pair_row + b / 2) * inner + i) * 2 + b % 2;
  }
  int64_t ScaleIndex(int64_t o, int64_t b, int64_t i) const { return ScaleIndex(o, pairs(), 0, b, i); }
};

Blocking BlockingOf(const Dims& shape, int64_t axis, int64_t block) {
  Blocking b;
  b.block = block;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) b.outer *= shape[d];
    else if (d == axis) b.length = shape[d];
    else b.inner *= shape[d];
  }
  return b;
}

// mxscale's shape for x's: axis's dimension the pairs of blocks, then 2.
Dims ScaleShape(const Dims& x, int64_t axis, const Blocking& b) {
  Dims shape = x;
  shape[static_cast<size_t>(axis)] = b.pairs();
  shape.push_back(2);
  return shape;
}

// Whether `t` is row-major and dense, as a FLOAT4 tensor must be (the pages: "FLOAT4不支持非连续").
bool DenseRowMajor(const TensorDesc& t) {
  int64_t stride = 1;
  for (size_t d = t.view.size(); d-- > 0;) {
    if (t.view[d] != 1 && t.strides[d] != stride) return false;
    stride *= t.view[d];
  }
  return true;
}

// A dense FLOAT4 tensor (an even last dimension) as the UINT8 bytes that hold it; false when it is
// not dense or starts inside a byte.
bool KeepPacked(const char* name, const TensorDesc& t, TensorRef* ref) {
  if (!DenseRowMajor(t) || t.offset % 2 != 0) return false;
  TensorDesc bytes = t;
  bytes.dtype = ACL_UINT8;
  bytes.view.back() /= 2;
  bytes.offset = t.offset / 2;
  int64_t stride = 1;
  for (size_t d = bytes.view.size(); d-- > 0;) {
    bytes.strides[d] = stride;
    stride *= bytes.view[d];
  }
  ref->Set(name, bytes);
  return true;
}

// Keeps the quantised elements' output `y` of `role` in `slot` once it is of `format`'s dtype and `shape`
// (`what` names it): FLOAT4 as its dense bytes (an even last dimension), the others of any strides.
aclnnStatus KeepElements(const Call& call, const FamilySpec& family, FamilyWork* made, int role, const TensorDesc& y,
                         const MiniFloat& format, const Dims& shape, const char* what, int slot) {
  const ParamRejecter reject(call, family);
  if (y.dtype != format.dtype) {
    return reject(role, std::string("dtype ") + DTypeName(y.dtype) + " is not the quantised elements' " +
                            DTypeName(format.dtype));
  }
  if (y.view != shape) return reject(role, "shape " + DimsText(y.view) + " is not " + what + ", " + DimsText(shape));
  if (!IsFloat4(format.dtype)) return made->KeepOutput(call, family, role, y, shape, what, slot);
  if (shape.back() % 2 != 0) {
    return reject(role, "last dimension " + std::to_string(shape.back()) + " is odd (FLOAT4 holds two elements a byte)");
  }
  if (!KeepPacked(RoleName(call, family, role), y, &made->tensor(slot))) {
    return reject(role, "is not contiguous (a FLOAT4 tensor holds two elements a byte)");
  }
  return ACLNN_SUCCESS;
}

// Codes (one a byte, row-major) into a one-byte tensor of any strides: the engine moves them as the
// UINT8 values they are, as it stores no FLOAT8 (common/minifloat.h).
void StoreCodes(const std::vector<uint8_t>& codes, const TensorRef& t) {
  TensorRef bytes = t;
  bytes.dtype = ACL_UINT8;
  const std::vector<int64_t> wide(codes.begin(), codes.end());
  ScatterFrom(wide.data(), ComputeType::kInt64, bytes);
}

// Element codes (one a byte, x's order) into an output of `format`: FLOAT4 packed two a byte into its
// dense bytes, the others stored as bytes.
void StoreElements(const MiniFloat& format, const std::vector<uint8_t>& codes, const TensorRef& out) {
  if (format.bits() == 4) {
    uint8_t* y = reinterpret_cast<uint8_t*>(out.first);
    for (size_t i = 0; i + 1 < codes.size(); i += 2) y[i / 2] = static_cast<uint8_t>(codes[i] | codes[i + 1] << 4);
  } else {
    StoreCodes(codes, out);
  }
}

// The phase-2 failure of a NaN or infinite element of x, whose block scale the pages do not define.
aclnnStatus RefuseNonFinite(const char* api, const char* name, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) {
      return Fail(ACLNN_ERR_INNER, std::string(api) + ": " + name + ": element " + std::to_string(i) + " is " +
                                       (std::isnan(x[i]) ? "NaN" : "infinite") +
                                       ", whose block scale the page's formula does not define");
    }
  }
  return ACLNN_SUCCESS;
}

uint32_t GetCode(const MiniFloat& format, const char* in, int64_t i) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(in);
  return format.bits() == 4 ? (i % 2 ? bytes[i / 2] >> 4 : bytes[i / 2] & 0x0f) : bytes[i];
}

// A block's E8M0 code (2^(code - 127) its scale) from its largest magnitude: the OCP MX rule
// (`round_up` false), else the round-up of S = amax / top by its float bits (scaleAlg 1 of the
// quantisers, with a subnormal S raised above a mantissa of one half; the block form's scaleAlg 2
// without that clause, as its page states it).
struct MxScaleRule {
  bool round_up = false;
  double top = 0;             // Amax(DType): the format's largest value, or dstTypeMax
  bool subnormal_up = true;
  double low_bound = 0;       // V3's maxLowBound: amax raised to it first
};

uint8_t MxScaleCode(const MiniFloat& format, const MxScaleRule& rule, float amax) {
  if (!rule.round_up) {
    if (amax == 0) return 0;
    int e2;
    std::frexp(amax, &e2);
    const int64_t shared = std::min<int64_t>(std::max<int64_t>(e2 - 1 - format.emax, -127), 127);
    return static_cast<uint8_t>(shared + 127);
  }
  if (rule.low_bound > 0) amax = std::max(amax, static_cast<float>(rule.low_bound));
  const float s = amax / static_cast<float>(rule.top);
  uint32_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  uint32_t e = bits >> 23 & 0xff;
  const uint32_t m = bits & 0x7fffff;
  if (e > 0 ? e < 254 && m > 0 : rule.subnormal_up && m > 0x400000) ++e;
  return static_cast<uint8_t>(e);
}

// The quantisation of x (n floats) along b's axis cut at `ends` (one group: the whole axis), each
// group's blocks from its start, into `out` (elements of `format`) and `scale_out` (E8M0 codes).
void QuantiseBlocks(const float* x, int64_t n, const Blocking& b, const std::vector<int64_t>& ends,
                    const MiniFloat& format, const MxScaleRule& rule, MiniRound round, const TensorRef& out,
                    const TensorRef& scale_out) {
  // One code a byte, in x's order; FLOAT4's are packed after, the others stored as bytes. Scale
  // codes no block writes (a pair's missing block, the rows past the groups' pairs) are 0.
  std::vector<uint8_t> codes(static_cast<size_t>(n));
  std::vector<uint8_t> scales(static_cast<size_t>(scale_out.numel()), 0);
  const int64_t scale_rows = scale_out.numel() / (2 * b.outer * b.inner);  // n > 0: no extent is 0
  ParallelFor(b.outer * b.inner, [&](int64_t row) {
    const int64_t o = row / b.inner, i = row % b.inner;
    int64_t pair_row = 0;
    for (size_t group = 0; group < ends.size(); ++group) {
      const int64_t start = group ? ends[group - 1] : 0;
      for (int64_t k = 0; start + k * b.block < ends[group]; ++k) {
        const int64_t begin = start + k * b.block, end = std::min(ends[group], begin + b.block);
        float amax = 0;
        for (int64_t l = begin; l < end; ++l) amax = std::max(amax, std::fabs(x[(o * b.length + l) * b.inner + i]));
        const uint8_t code = MxScaleCode(format, rule, amax);
        scales[static_cast<size_t>(b.ScaleIndex(o, scale_rows, pair_row, k, i))] = code;
        for (int64_t l = begin; l < end; ++l) {
          const int64_t at = (o * b.length + l) * b.inner + i;
          // V / 2^(code - 127) in double: exact, so the one rounding is the encoding's.
          codes[static_cast<size_t>(at)] =
              static_cast<uint8_t>(EncodeMiniFloat(format, std::ldexp(static_cast<double>(x[at]), 127 - code), round));
        }
      }
      pair_row += ((ends[group] - start + b.block - 1) / b.block + 1) / 2;
    }
  });
  StoreElements(format, codes, out);
  StoreCodes(scales, scale_out);
}

class DynamicMxQuantWork final : public FamilyWork {
 public:
  explicit DynamicMxQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  // One quantisation of x per pass, into (kOut, kScaleOut), then (kOut2, kScaleOut2): the dual-axis
  // form's along -1, then -2.
  Blocking blocking[2];
  int passes = 1;
  bool grouped = false;  // the first pass's axis (0) cut at kGroupList's cumulative ends
  const MiniFloat* format = nullptr;
  MiniRound round = MiniRound::kRint;
  MxScaleRule rule;

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kX).numel();
    if (n == 0) return ACLNN_SUCCESS;  // and mxscaleOut is empty too
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    if (aclnnStatus s = RefuseNonFinite(api_, tensor(kX).name, x, n)) return s;
    std::vector<int64_t> ends{blocking[0].length};
    if (grouped) {
      ends.resize(static_cast<size_t>(tensor(kGroupList).numel()));
      GatherAs(tensor(kGroupList), ComputeType::kInt64, ends.data());
      for (size_t g = 0; g < ends.size(); ++g) {
        if (ends[g] < (g ? ends[g - 1] : 0) || ends[g] > blocking[0].length || (g + 1 == ends.size() && ends[g] != blocking[0].length)) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupList).name + ": element " +
                                           std::to_string(g) + " is " + std::to_string(ends[g]) +
                                           " (the page: cumulative ends from 0, non-decreasing, the last x's " +
                                           std::to_string(blocking[0].length) + " rows)");
        }
      }
    }
    for (int pass = 0; pass < passes; ++pass) {
      QuantiseBlocks(x, n, blocking[pass], pass ? std::vector<int64_t>{blocking[1].length} : ends, *format, rule, round,
                     tensor(pass ? kOut2 : kOut), tensor(pass ? kScaleOut2 : kScaleOut));
    }
    return ACLNN_SUCCESS;
  }
};

// rms_norm_mx_quant: x's rows (x = x1 + x2 held in x1's dtype for the add form, written to xOut)
// normalised, y = x * rstd * gamma + beta in float, and y quantised along the last axis as
// dynamic_mx_quant's blocks of 32; rstd written where outputRstd says so.
enum RmsSlot { kRmsX2 = kSlots, kRmsGamma, kRmsBeta, kRmsSum, kRmsRstd, kRmsSlots };

class RmsNormMxQuantWork final : public FamilyWork {
 public:
  explicit RmsNormMxQuantWork(const char* api) : FamilyWork(api, kRmsSlots) {}

  double epsilon = 1e-6;
  bool add = false, has_beta = false, write_rstd = false;
  Blocking blocking;
  const MiniFloat* format = nullptr;
  MiniRound round = MiniRound::kRint;
  MxScaleRule rule;

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kX).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const int64_t width = blocking.length, rows = n / width;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    if (aclnnStatus s = RefuseNonFinite(api_, tensor(kX).name, x, n)) return s;
    std::vector<float> sum;
    if (add) {
      const float* x2 = static_cast<const float*>(ContiguousAs(tensor(kRmsX2), ComputeType::kFloat32, 1));
      if (aclnnStatus s = RefuseNonFinite(api_, tensor(kRmsX2).name, x2, n)) return s;
      sum.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) sum[i] = x[i] + x2[i];
      RoundThrough(&sum, tensor(kX).dtype);
      // A sum past x1's dtype (FLOAT16's 65504) is infinite: its block's scale is undefined too.
      if (aclnnStatus s = RefuseNonFinite(api_, tensor(kRmsSum).name, sum.data(), n)) return s;
      ScatterFrom(sum.data(), ComputeType::kFloat32, tensor(kRmsSum));
      x = sum.data();
    }
    std::vector<float> gamma(static_cast<size_t>(width)), beta(static_cast<size_t>(width), 0.0f);
    GatherAs(tensor(kRmsGamma), ComputeType::kFloat32, gamma.data());
    if (has_beta) GatherAs(tensor(kRmsBeta), ComputeType::kFloat32, beta.data());
    std::vector<float> y(static_cast<size_t>(n)), rstds(static_cast<size_t>(rows));
    ParallelRange(rows, width, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* row = x + r * width;
        const float rstd = RmsRstd(row, width, epsilon);
        rstds[r] = rstd;
        for (int64_t j = 0; j < width; ++j) y[r * width + j] = row[j] * rstd * gamma[j] + beta[j];
      }
    });
    if (aclnnStatus s = RefuseNonFinite(api_, "y (x's rms norm, gamma and beta applied)", y.data(), n)) return s;
    QuantiseBlocks(y.data(), n, blocking, {width}, *format, rule, round, tensor(kOut), tensor(kScaleOut));
    if (write_rstd) ScatterFrom(rstds.data(), ComputeType::kFloat32, tensor(kRmsRstd));
    return ACLNN_SUCCESS;
  }
};

// swiglu_mx_quant: x [outer, 2 * half, inner] around activateDim; swigluMode 0 takes its halves A, B
// (Swish(A) * B with activateLeft, else Swish(B) * A), mode 1 the even and odd elements of the last axis
// (A.clamp(max=limit) * sigmoid(alpha * A.clamp(max=limit)) * (B.clamp(-limit, limit) + bias)), in double
// rounded to float;
// the result quantised along axis as dynamic_mx_quant. With groupIndexOptional (counts, or cumulative
// ends by groupMode) only the rows within its sum are computed, the others 0 (the page: not cleared,
// garbage), and along a non-last axis each group's blocks restart at its start. The dual-axis form
// quantises the result twice: along -1 (every row) into kOut/kScaleOut, along -2 into kOut2/kScaleOut2.
// The backward form (swiglu_grad_mx_quant) quantises, in the dual axes' way, x's gradient instead:
// from yGrad [M, N] (kYGrad), grad_A = yGrad * B * sigmoid(A) * (1 + A - A * sigmoid(A)) and
// grad_B = yGrad * A * sigmoid(A) at A's and B's places in x [M, 2N] (the gradient of x, whichever half
// activateLeft activates), in double rounded to float.
enum SwigluSlot { kYGrad = kSlots, kSwigluSlots };

class SwigluMxQuantWork final : public FamilyWork {
 public:
  explicit SwigluMxQuantWork(const char* api) : FamilyWork(api, kSwigluSlots) {}

  int64_t outer = 1, half = 1, inner = 1;
  bool left = false, interleaved = false, grouped = false, counts = true;
  bool dual = false;  // groups cut the second pass's axis, whose last end is x's last row
  bool backward = false;  // the gradient of x [outer, 2 * half] from yGrad [outer, half] (inner 1)
  double limit = 0, alpha = 1, bias = 0;
  // Each pass's blocks, and whether its axis is cut at the groups' ends (a non-last axis).
  Blocking blocking[2];
  bool along_groups[2] = {false, false};
  int passes = 1;
  const MiniFloat* format = nullptr;
  MiniRound round = MiniRound::kRint;
  MxScaleRule rule;

 private:
  // The rows' cumulative ends (groupIndexOptional's counts summed, or its ends), checked as the page
  // constrains them: each count above 0, ends non-decreasing, the sum within x's rows.
  aclnnStatus GroupEnds(std::vector<int64_t>* ends) {
    std::vector<int64_t> given(static_cast<size_t>(tensor(kGroupList).numel()));
    GatherAs(tensor(kGroupList), ComputeType::kInt64, given.data());
    int64_t end = 0;
    for (size_t g = 0; g < given.size(); ++g) {
      const int64_t next = counts ? end + given[g] : given[g];
      const bool short_of_rows = dual && g + 1 == given.size() && next != outer;
      if ((counts && given[g] <= 0) || next < end || next > outer || short_of_rows) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupList).name + ": element " +
                                         std::to_string(g) + " is " + std::to_string(given[g]) + " (the page: " +
                                         (counts ? "counts above 0" : "non-decreasing cumulative ends") +
                                         (dual ? " whose last is" : " whose sum is within") + " x's " +
                                         std::to_string(outer) + " rows)");
      }
      end = next;
      ends->push_back(end);
    }
    return ACLNN_SUCCESS;
  }

  // x's gradient, grad_A at A's place and grad_B at B's, A the half activateLeft names.
  void Gradient(const float* x, std::vector<float>* grad) {
    const float* dy = static_cast<const float*>(ContiguousAs(tensor(kYGrad), ComputeType::kFloat32, 1));
    ParallelRange(outer, 2 * half, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        for (int64_t h = 0; h < half; ++h) {
          const int64_t ia = o * 2 * half + (left ? h : half + h), ib = o * 2 * half + (left ? half + h : h);
          const double a = x[ia], b = x[ib], g = dy[o * half + h];
          const double sig = 1.0 / (1.0 + std::exp(-a));
          (*grad)[static_cast<size_t>(ia)] = static_cast<float>(g * b * sig * (1.0 + a - a * sig));
          (*grad)[static_cast<size_t>(ib)] = static_cast<float>(g * a * sig);
        }
      }
    });
  }

  aclnnStatus Compute() override {
    const int64_t n = outer * half * inner * (backward ? 2 : 1);
    if (n == 0) return ACLNN_SUCCESS;
    std::vector<int64_t> ends;
    if (grouped) {
      if (aclnnStatus s = GroupEnds(&ends)) return s;
    }
    // Rows of x past the groups' sum hold no data the page reads (they may be anything).
    const int64_t rows = grouped && !dual ? (ends.empty() ? 0 : ends.back()) : outer;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    if (aclnnStatus s = RefuseNonFinite(api_, tensor(kX).name, x, rows * 2 * half * inner)) return s;
    std::vector<float> y(static_cast<size_t>(n), 0.0f);
    if (backward) {
      Gradient(x, &y);
      if (aclnnStatus s = RefuseNonFinite(api_, "the gradient of x", y.data(), n)) return s;
      return QuantisePasses(y, ends);
    }
    // In double, rounded once to float: the result's one rounding, whichever exp computes it.
    const double l = limit;
    ParallelRange(rows, 2 * half * inner, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        for (int64_t h = 0; h < half; ++h) {
          for (int64_t i = 0; i < inner; ++i) {
            float& out = y[static_cast<size_t>((o * half + h) * inner + i)];
            if (interleaved) {  // inner is 1: the last axis
              const double a = std::min<double>(x[o * 2 * half + 2 * h], l);
              const double b = std::min<double>(std::max<double>(x[o * 2 * half + 2 * h + 1], -l), l);
              out = static_cast<float>(a / (1.0 + std::exp(-alpha * a)) * (b + bias));
              continue;
            }
            const double first = x[(o * 2 * half + h) * inner + i], second = x[(o * 2 * half + half + h) * inner + i];
            const double active = left ? first : second, other = left ? second : first;
            out = static_cast<float>(active / (1.0 + std::exp(-active)) * other);
          }
        }
      }
    });
    if (aclnnStatus s = RefuseNonFinite(api_, "the swiglu of x", y.data(), n)) return s;
    return QuantisePasses(y, ends);
  }

  aclnnStatus QuantisePasses(const std::vector<float>& y, const std::vector<int64_t>& ends) {
    for (int p = 0; p < passes; ++p) {
      QuantiseBlocks(y.data(), static_cast<int64_t>(y.size()), blocking[p],
                     along_groups[p] ? ends : std::vector<int64_t>{blocking[p].length}, *format, rule, round,
                     tensor(p ? kOut2 : kOut), tensor(p ? kScaleOut2 : kScaleOut));
    }
    return ACLNN_SUCCESS;
  }
};

// dual_level_mx_quant: x's rows (times smoothScaleOptional, rounded to x's dtype) in blocks of 512 along
// the last axis, each divided by level0Scale = max|x| / 6 (FLOAT4_E2M1's largest) and rounded to x's dtype
// (the page's cast_to_x_type), then the OCP MX quantisation of those values to FLOAT4_E2M1 in blocks of 32.
enum DualLevelSlot { kLevel0Scale = kSlots, kSmooth, kDualLevelSlots };

class DualLevelMxQuantWork final : public FamilyWork {
 public:
  explicit DualLevelMxQuantWork(const char* api) : FamilyWork(api, kDualLevelSlots) {}

  static constexpr int64_t kLevel0Block = 512;
  bool smoothed = false;
  Blocking blocking;  // the second level's blocks of 32 along the last axis
  MiniRound round = MiniRound::kRint;

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kX).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const aclDataType held = tensor(kX).dtype;
    const int64_t width = blocking.length, rows = n / width;
    const int64_t blocks = (width + kLevel0Block - 1) / kLevel0Block;
    std::vector<float> x(static_cast<size_t>(n));
    GatherAs(tensor(kX), ComputeType::kFloat32, x.data());
    if (smoothed) {
      std::vector<float> smooth(static_cast<size_t>(width));
      GatherAs(tensor(kSmooth), ComputeType::kFloat32, smooth.data());
      for (int64_t i = 0; i < n; ++i) x[i] *= smooth[static_cast<size_t>(i % width)];
      RoundThrough(&x, held);  // x * smooth_scale, a product of two tensors of x's dtype
    }
    if (aclnnStatus s = RefuseNonFinite(api_, tensor(kX).name, x.data(), n)) return s;
    std::vector<float> level0(static_cast<size_t>(rows * blocks));
    for (int64_t b = 0; b < rows * blocks; ++b) {
      const int64_t begin = (b / blocks) * width + (b % blocks) * kLevel0Block;
      const int64_t end = (b / blocks) * width + std::min(width, (b % blocks + 1) * kLevel0Block);
      float amax = 0;
      for (int64_t i = begin; i < end; ++i) amax = std::max(amax, std::fabs(x[i]));
      if (amax == 0) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kX).name + ": the block of " +
                                         std::to_string(kLevel0Block) + " at element " + std::to_string(begin) +
                                         " is all zeros, whose level0Scale 0 the page's x / level0Scale divides by");
      }
      level0[static_cast<size_t>(b)] = amax / 6.0f;
      for (int64_t i = begin; i < end; ++i) x[i] /= level0[static_cast<size_t>(b)];
    }
    RoundThrough(&x, held);  // the page's cast_to_x_type
    const MxScaleRule ocp;
    QuantiseBlocks(x.data(), n, blocking, {width}, *MiniFloatOf(ACL_FLOAT4_E2M1), ocp, round, tensor(kOut),
                   tensor(kScaleOut));
    ScatterFrom(level0.data(), ComputeType::kFloat32, tensor(kLevel0Scale));
    return ACLNN_SUCCESS;
  }
};

// x as [outer, m, n] in blocks of 32 x 32 over its last two axes: one scale per block, written at each
// of its rows into scale1 ([outer, m, pairs of column blocks, 2]) and at each of its columns into
// scale2 ([outer, pairs of row blocks, n, 2]).
class BlockMxQuantWork final : public FamilyWork {
 public:
  explicit BlockMxQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  int64_t outer = 1, m = 1, n = 1;
  const MiniFloat* format = nullptr;
  MiniRound round = MiniRound::kRint;
  MxScaleRule rule;

 private:
  static constexpr int64_t kSide = 32;

  aclnnStatus Compute() override {
    const int64_t count = outer * m * n;
    if (count == 0) return ACLNN_SUCCESS;
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    if (aclnnStatus s = RefuseNonFinite(api_, tensor(kX).name, x, count)) return s;
    const int64_t row_blocks = (m + kSide - 1) / kSide, column_blocks = (n + kSide - 1) / kSide;
    const int64_t row_pairs = (row_blocks + 1) / 2, column_pairs = (column_blocks + 1) / 2;
    std::vector<uint8_t> codes(static_cast<size_t>(count));
    std::vector<uint8_t> scale1(static_cast<size_t>(outer * m * column_pairs * 2), 0);
    std::vector<uint8_t> scale2(static_cast<size_t>(outer * row_pairs * n * 2), 0);
    ParallelFor(outer * row_blocks, [&](int64_t task) {
      const int64_t o = task / row_blocks, br = task % row_blocks;
      const int64_t r0 = br * kSide, r1 = std::min(m, r0 + kSide);
      for (int64_t bc = 0; bc < column_blocks; ++bc) {
        const int64_t c0 = bc * kSide, c1 = std::min(n, c0 + kSide);
        float amax = 0;
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) amax = std::max(amax, std::fabs(x[(o * m + r) * n + c]));
        }
        const uint8_t code = MxScaleCode(*format, rule, amax);
        for (int64_t r = r0; r < r1; ++r) {
          scale1[static_cast<size_t>(((o * m + r) * column_pairs + bc / 2) * 2 + bc % 2)] = code;
          for (int64_t c = c0; c < c1; ++c) {
            const int64_t at = (o * m + r) * n + c;
            codes[static_cast<size_t>(at)] =
                static_cast<uint8_t>(EncodeMiniFloat(*format, std::ldexp(static_cast<double>(x[at]), 127 - code), round));
          }
        }
        for (int64_t c = c0; c < c1; ++c) scale2[static_cast<size_t>(((o * row_pairs + br / 2) * n + c) * 2 + br % 2)] = code;
      }
    });
    StoreElements(*format, codes, tensor(kOut));
    StoreCodes(scale1, tensor(kScaleOut));
    StoreCodes(scale2, tensor(kScaleOut2));
    return ACLNN_SUCCESS;
  }
};

class AntiMxQuantWork final : public FamilyWork {
 public:
  explicit AntiMxQuantWork(const char* api) : FamilyWork(api, kSlots) {}

  Blocking blocking;
  const MiniFloat* format = nullptr;
  bool packed = false;  // x is FLOAT4, kept as its bytes

 private:
  aclnnStatus Compute() override {
    const Blocking& b = blocking;
    const int64_t n = b.outer * b.length * b.inner;
    std::vector<float> values(static_cast<size_t>(n));
    if (packed) {
      for (int64_t i = 0; i < n; ++i) {
        values[static_cast<size_t>(i)] = static_cast<float>(DecodeMiniFloat(*format, GetCode(*format, tensor(kX).first, i)));
      }
    } else {
      GatherAs(tensor(kX), ComputeType::kFloat32, values.data());
    }
    // The E8M0 codes as their values 2^(code - 127) (the engine decodes FLOAT8_E8M0).
    const float* scales = static_cast<const float*>(ContiguousAs(tensor(kScale), ComputeType::kFloat32, 1));
    ParallelFor(b.outer * b.inner, [&](int64_t row) {
      const int64_t o = row / b.inner, i = row % b.inner;
      for (int64_t l = 0; l < b.length; ++l) {
        float& v = values[static_cast<size_t>((o * b.length + l) * b.inner + i)];
        v *= scales[b.ScaleIndex(o, l / b.block, i)];
      }
    });
    ScatterFrom(values.data(), ComputeType::kFloat32, tensor(kOut));
    return ACLNN_SUCCESS;
  }
};

class QuantMaxWork final : public FamilyWork {
 public:
  explicit QuantMaxWork(const char* api) : FamilyWork(api, kSlots) {}

  const MiniFloat* format = nullptr;
  bool grouped = false;  // rows grouped by kGroupList's cumulative ends; else one group of every element

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kX).numel();
    const int64_t rows = grouped ? tensor(kX).shape[0] : 1, row = rows ? n / rows : 0;
    const int64_t groups = tensor(kScale).numel();
    std::vector<int64_t> ends(static_cast<size_t>(groups), rows);
    if (grouped) {
      GatherAs(tensor(kGroupList), ComputeType::kInt64, ends.data());
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t begin = g ? ends[static_cast<size_t>(g - 1)] : 0, end = ends[static_cast<size_t>(g)];
        if (end <= begin || end > rows || (g + 1 == groups && end != rows)) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kGroupList).name + ": element " +
                                           std::to_string(g) + " is " + std::to_string(end) +
                                           " (the page: cumulative ends above 0, increasing, the last x's " +
                                           std::to_string(rows) + " rows)");
        }
      }
    }
    const float* x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    const float* scale = static_cast<const float*>(ContiguousAs(tensor(kScale), ComputeType::kFloat32, 1));
    std::vector<uint8_t> codes(static_cast<size_t>(n));
    std::vector<float> amax(static_cast<size_t>(groups), 0.0f);
    for (int64_t g = 0, begin = 0; g < groups; begin = ends[static_cast<size_t>(g)], ++g) {
      for (int64_t i = begin * row; i < ends[static_cast<size_t>(g)] * row; ++i) {
        amax[static_cast<size_t>(g)] = std::max(amax[static_cast<size_t>(g)], std::fabs(x[i]));
        const float product = x[i] * scale[g];
        const double rounded = std::isfinite(product) ? RoundMiniFloat(*format, product, MiniRound::kRint) : product;
        if (!(std::fabs(rounded) <= format->max)) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + tensor(kOut).name + ": x * scale at element " +
                                           std::to_string(i) + " is " + std::to_string(product) + ", beyond " +
                                           DTypeName(format->dtype) + "'s largest value " + std::to_string(format->max) +
                                           " (the page's Cast does not say what an overflow gives)");
        }
        codes[static_cast<size_t>(i)] = static_cast<uint8_t>(EncodeMiniFloat(*format, rounded, MiniRound::kRint));
      }
    }
    StoreCodes(codes, tensor(kOut));
    ScatterFrom(amax.data(), ComputeType::kFloat32, tensor(kScaleOut));
    return ACLNN_SUCCESS;
  }
};

// The aclDataType an MX page's dstType integer names ({35, 36, 40, 41} for the quantiser's elements,
// {0, 1, 27} for the inverse's result): the aclDataType enumerators themselves.
bool DstTypeIn(int64_t dst, const std::vector<aclDataType>& allowed) {
  for (aclDataType a : allowed) {
    if (dst == static_cast<int64_t>(a)) return true;
  }
  return false;
}

std::string Text(double v) {
  std::string s = std::to_string(v);
  return s.substr(0, s.find_last_not_of('0') + 1);
}

// The roundMode string (NULL or "": "rint", as the pages say): "rint" for FLOAT8, and "rint",
// "floor" or "round" for FLOAT4 (the pages' lists; "round" is declined by DeclineRoundMode).
std::string RoundModeOf(const Call& call, const FamilySpec& family) {
  const char* given = family.has(F::Role::kRoundMode) ? CallString(call, family.role(F::Role::kRoundMode)) : nullptr;
  return given && *given ? given : "rint";
}

aclnnStatus ReadRoundMode(const Call& call, const FamilySpec& family, const MiniFloat& format, MiniRound* round) {
  const std::string mode = RoundModeOf(call, family);
  if (mode != "rint" && !(IsFloat4(format.dtype) && (mode == "floor" || mode == "round"))) {
    return RejectInvalid(call, family, F::Role::kRoundMode, "\"" + mode + "\" is not one dstType " +
                                                                DTypeName(format.dtype) +
                                                                " takes (FLOAT8: rint; FLOAT4: rint, floor, round)");
  }
  *round = mode == "floor" ? MiniRound::kFloor : MiniRound::kRint;
  return ACLNN_SUCCESS;
}

// ACLNN_SUCCESS with *work declined for roundMode "round", which the pages list beside "rint" without
// saying how it differs; *work untouched otherwise.
aclnnStatus DeclineRoundMode(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  if (RoundModeOf(call, family) != "round") return ACLNN_SUCCESS;
  return Decline(call, work, "for roundMode \"round\" (the page lists it beside \"rint\" without saying how it differs)");
}

// The MX quantisers' host arguments, read and checked against their pages.
struct MxArguments {
  const MiniFloat* format = nullptr;
  int64_t block = 32, scale_alg = 0;
  double low_bound = 0;
  MiniRound round = MiniRound::kRint;
};

// Reads them for an x of `axis_length` elements along the quantised axis (`formats`: the dstTypes the
// page takes); a rejection, or ACLNN_SUCCESS with *work set where the call is declined by name.
aclnnStatus ReadMxArguments(const Call& call, const FamilySpec& family, const TensorDesc& x, int64_t axis_length,
                            const std::vector<aclDataType>& formats, ExecutorWork** work, MxArguments* out) {
  const ParamRejecter reject(call, family);
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, -1);
  if (!DstTypeIn(dst, formats)) {
    std::string listed;
    for (aclDataType f : formats) listed += (listed.empty() ? "" : ", ") + std::to_string(static_cast<int>(f));
    return reject(F::Role::kDstType, std::to_string(dst) + " is not one of " + listed);
  }
  const MiniFloat* format = MiniFloatOf(static_cast<aclDataType>(dst));
  const bool fp4 = IsFloat4(format->dtype);
  const int64_t block = RoleInt(call, family, F::Role::kBlockSize, 32);
  if (block <= 0 || block % 32 != 0 || block > 1024) {
    return reject(F::Role::kBlockSize, std::to_string(block) + " is not a multiple of 32 in [32, 1024]");
  }
  if (x.dtype == ACL_FLOAT && (block != 32 || axis_length < 32)) {
    return reject(F::Role::kBlockSize, "a FLOAT x takes blocksize 32 (given " + std::to_string(block) +
                                           ") and an axis of at least 32 elements (given " +
                                           std::to_string(axis_length) + ")");
  }
  // The grouped form (GroupedDynamicMxQuantV2) takes blocksize 32 alone, and scaleAlg 2 and a
  // dstTypeMax (1.75 to 3.5) for FLOAT4_E1M2 too.
  const bool grouped = family.has(F::Role::kGroupList);
  if (grouped && block != 32) return reject(F::Role::kBlockSize, std::to_string(block) + " is not 32");
  const int64_t alg = RoleInt(call, family, F::Role::kScaleAlg, 0);
  const bool v2 = family.has(F::Role::kDstMax);
  const bool e1m2_too = grouped && format->dtype == ACL_FLOAT4_E1M2;
  const bool alg_allowed =
      alg == 0 || (alg == 1 && !fp4) || (alg == 2 && v2 && (format->dtype == ACL_FLOAT4_E2M1 || e1m2_too));
  if (!alg_allowed) {
    return reject(F::Role::kScaleAlg, std::to_string(alg) + " is not one dstType " + DTypeName(format->dtype) +
                                          " takes (FLOAT8: 0, 1; FLOAT4_E2M1: 0" + (v2 ? ", 2" : "") +
                                          "; FLOAT4_E1M2: 0" + (v2 && grouped ? ", 2" : "") + ")");
  }
  const double dst_max = RoleNumber(call, family, F::Role::kDstMax, -1, 0.0);
  const bool dst_max_allowed = (format->dtype == ACL_FLOAT4_E2M1 && dst_max >= 6.0 && dst_max <= 12.0 && block == 32) ||
                               (e1m2_too && dst_max >= 1.75 && dst_max <= 3.5);
  if (dst_max != 0 && !dst_max_allowed) {
    return reject(F::Role::kDstMax, Text(dst_max) + " is not 0.0, nor within [6.0, 12.0] with a FLOAT4_E2M1 yOut "
                                                    "and blocksize 32" + (grouped ? " or [1.75, 3.5] with FLOAT4_E1M2" : ""));
  }
  const double low_bound = RoleNumber(call, family, F::Role::kMaxLowBound, -1, 0.0);
  if (low_bound < 0 || (low_bound != 0 && alg != 1)) {
    return reject(F::Role::kMaxLowBound, Text(low_bound) + " is not 0.0, nor a nonnegative bound with scaleAlg 1");
  }
  MiniRound round = MiniRound::kRint;
  if (aclnnStatus s = ReadRoundMode(call, family, *format, &round)) return s;
  if (fp4 && x.view.back() % 2 != 0) {
    return reject(F::Role::kX, "last dimension " + std::to_string(x.view.back()) + " is odd (a FLOAT4 yOut holds "
                                                                                   "two elements a byte)");
  }
  if (alg == 2) {
    return Decline(call, work, "for scaleAlg 2 (its shared exponent's ceil condition, \"尾数位的高比特前一/两位为1\", "
                               "does not say which mantissa bits)");
  }
  if (dst_max != 0) return Decline(call, work, "for a nonzero dstTypeMax (the page uses it in scaleAlg 2 alone)");
  if (aclnnStatus s = DeclineRoundMode(call, family, work)) return s;
  if (*work) return ACLNN_SUCCESS;
  *out = MxArguments{format, block, alg, low_bound, round};
  return ACLNN_SUCCESS;
}

aclnnStatus PlanDynamicMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  if (!x) return Decline(call, work, "without its tensors");
  const int64_t rank = static_cast<int64_t>(x->view.size());
  const bool dual = family.has(F::Role::kOut2);  // the dual-axis form: along -1 and -2, blocks of 32
  if (dual && rank < 2) return reject(F::Role::kX, "has 1 dimension (the page: 2 to 7, quantised along -1 and -2)");
  const TensorDesc* group_list = RoleTensor(call, family, F::Role::kGroupList);  // the grouped form: x [m, n]
  if (family.has(F::Role::kGroupList) && !group_list) return Decline(call, work, "without its tensors");
  if (group_list && rank != 2) return reject(F::Role::kX, "shape " + DimsText(x->view) + " is not [m, n]");
  if (group_list && group_list->view.size() != 1) {
    return reject(F::Role::kGroupList, "shape " + DimsText(group_list->view) + " is not [g]");
  }
  int64_t axis = 0;
  if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kAxis,
                                      RoleInt(call, family, F::Role::kAxis, group_list ? 0 : -1), rank, &axis)) {
    return s;
  }
  if (rank == 0) return reject(F::Role::kX, "is 0-dimensional (the page takes 1 to 7 dimensions)");
  MxArguments args;
  // aclnnGroupedDynamicMxQuant (V1) quantises to FLOAT8 alone.
  const bool fp8_only = group_list && !family.has(F::Role::kDstMax);
  const aclnnStatus read =
      fp8_only ? ReadMxArguments(call, family, *x, x->view[0], {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN}, work, &args)
               : ReadMxArguments(call, family, *x, x->view[static_cast<size_t>(axis)],
                                 {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2}, work, &args);
  if (read) return read;
  if (*work) return ACLNN_SUCCESS;  // declined by name
  const MiniFloat* format = args.format;
  auto made = std::make_unique<DynamicMxQuantWork>(call.spec.name);
  made->format = format;
  made->round = args.round;
  made->rule = MxScaleRule{args.scale_alg == 1, format->max, true, args.low_bound};
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  // Each pass's outputs: x's shape (FLOAT4 packed), and its scales' pairs of blocks along its axis.
  const struct {
    int out_role, scale_role, out_slot, scale_slot;
    int64_t axis;
  } passes[2] = {{F::Role::kOut, F::Role::kScaleOut, kOut, kScaleOut, axis},
                 {F::Role::kOut2, F::Role::kScaleOut2, kOut2, kScaleOut2, rank - 2}};
  made->passes = dual ? 2 : 1;
  if (group_list) {
    made->grouped = true;
    made->tensor(kGroupList).Set(RoleName(call, family, F::Role::kGroupList), *group_list);
  }
  for (int p = 0; p < made->passes; ++p) {
    const TensorDesc* y = RoleTensor(call, family, passes[p].out_role);
    const TensorDesc* scales = RoleTensor(call, family, passes[p].scale_role);
    if (!y || !scales) return Decline(call, work, "without its tensors");
    if (aclnnStatus s = KeepElements(call, family, made.get(), passes[p].out_role, *y, *format, x->view, "x's shape",
                                      passes[p].out_slot)) {
      return s;
    }
    made->blocking[p] = BlockingOf(x->view, passes[p].axis, args.block);
    // The grouped form's pairs: m / (blocksize * 2) + g rows, room for each group's own (the page).
    const Dims scale_shape = group_list ? Dims{x->view[0] / (args.block * 2) + group_list->view[0], x->view[1], 2}
                                        : ScaleShape(x->view, passes[p].axis, made->blocking[p]);
    if (aclnnStatus s = made->KeepOutput(call, family, passes[p].scale_role, *scales, scale_shape,
                                         group_list ? "[m / (blocksize * 2) + g, n, 2]"
                                                    : "x's shape with the axis's blocks in pairs, then 2",
                                         passes[p].scale_slot)) {
      return s;
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanAntiMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !scale || !out) return Decline(call, work, "without its tensors");
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank == 0) return reject(F::Role::kX, "is 0-dimensional (the page takes 1 to 7 dimensions)");
  int64_t axis = 0;
  if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kAxis, RoleInt(call, family, F::Role::kAxis, -1), rank, &axis)) {
    return s;
  }
  const MiniFloat* format = MiniFloatOf(x->dtype);
  if (!format) return reject(F::Role::kX, std::string("dtype ") + DTypeName(x->dtype) + " is not an MX element type");
  if (scale->dtype != ACL_FLOAT8_E8M0) {
    return reject(F::Role::kScale, std::string("dtype ") + DTypeName(scale->dtype) + " is not FLOAT8_E8M0");
  }
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, -1);
  if (!DstTypeIn(dst, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})) {
    return reject(F::Role::kDstType, std::to_string(dst) + " is not one of 0, 1, 27");
  }
  if (out->dtype != static_cast<aclDataType>(dst)) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType's " +
                                     DTypeName(static_cast<aclDataType>(dst)));
  }
  const bool packed = IsFloat4(x->dtype);
  if (packed && x->view.back() % 2 != 0) {
    return reject(F::Role::kX, "last dimension " + std::to_string(x->view.back()) + " is odd (FLOAT4 holds two "
                                                                                    "elements a byte)");
  }
  auto made = std::make_unique<AntiMxQuantWork>(call.spec.name);
  made->blocking = BlockingOf(x->view, axis, 32);  // the page's ceil(x.shape[axis], 32)
  made->format = format;
  made->packed = packed;
  if (packed) {
    if (!KeepPacked(RoleName(call, family, F::Role::kX), *x, &made->tensor(kX))) {
      return reject(F::Role::kX, "is not contiguous (the page: FLOAT4不支持非连续)");
    }
  } else {
    made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  }
  if (aclnnStatus s = CheckShape(call, family, F::Role::kScale, scale, ScaleShape(x->view, axis, made->blocking),
                                 "x's shape with axis's blocks of 32 in pairs, then 2")) {
    return s;
  }
  made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanQuantMax(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
  const TensorDesc* group_list = RoleTensor(call, family, F::Role::kGroupList);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* amax = RoleTensor(call, family, F::Role::kAmax);
  if (!x || !scale || !out || !amax || (family.has(F::Role::kGroupList) && !group_list)) {
    return Decline(call, work, "without its tensors");
  }
  const bool grouped = group_list != nullptr;
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < (grouped ? 2 : 1) || rank > 8) {
    return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions (the page: " + (grouped ? "2" : "1") +
                                   " to 8)");
  }
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, -1);
  if (!DstTypeIn(dst, {ACL_HIFLOAT8, ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN})) {
    return reject(F::Role::kDstType, std::to_string(dst) + " is not one of 34, 35, 36");
  }
  if (out->dtype != static_cast<aclDataType>(dst)) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType's " +
                                     DTypeName(static_cast<aclDataType>(dst)));
  }
  const char* given_mode = family.has(F::Role::kRoundMode) ? CallString(call, family.role(F::Role::kRoundMode)) : "";
  const std::string mode = given_mode ? given_mode : "";
  if (dst == ACL_HIFLOAT8) {
    if (mode != "round" && mode != "hybrid") return reject(F::Role::kRoundMode, "\"" + mode + "\" is not round or hybrid");
    return Decline(call, work, "for dstType 34, HIFLOAT8 (a format the page does not define)");
  }
  if (mode != "rint") return reject(F::Role::kRoundMode, "\"" + mode + "\" is not rint (FLOAT8's one mode)");
  const int64_t groups = grouped ? (group_list->view.size() == 1 ? group_list->view[0] : -1) : 1;
  if (grouped && (groups < 1 || groups > 384)) {
    return reject(F::Role::kGroupList, "shape " + DimsText(group_list->view) + " is not [num_groups], 1 to 384");
  }
  if (aclnnStatus s = CheckShape(call, family, F::Role::kScale, scale, Dims{groups}, "[num_groups]")) return s;
  if (amax->dtype != x->dtype) {
    return reject(F::Role::kAmax, std::string("dtype ") + DTypeName(amax->dtype) + " is not x's " + DTypeName(x->dtype));
  }
  int64_t n = 1;
  for (int64_t d : x->view) n *= d;
  if (n == 0) return Decline(call, work, "for an empty x (the page does not define the amax of no elements)");
  auto made = std::make_unique<QuantMaxWork>(call.spec.name);
  made->format = MiniFloatOf(static_cast<aclDataType>(dst));
  made->grouped = grouped;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->tensor(kScale).Set(RoleName(call, family, F::Role::kScale), *scale);
  if (grouped) made->tensor(kGroupList).Set(RoleName(call, family, F::Role::kGroupList), *group_list);
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, x->view, "x's shape", kOut)) return s;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kAmax, *amax, Dims{groups}, "[num_groups]", kScaleOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanBlockMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* scale1 = RoleTensor(call, family, F::Role::kScaleOut);
  const TensorDesc* scale2 = RoleTensor(call, family, F::Role::kScaleOut2);
  if (!x || !out || !scale1 || !scale2) return Decline(call, work, "without its tensors");
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < 2 || rank > 3) return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions (the page: 2 to 3)");
  const int64_t dst = RoleInt(call, family, F::Role::kDstType, -1);
  if (!DstTypeIn(dst, {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2})) {
    return reject(F::Role::kDstType, std::to_string(dst) + " is not one of 35, 36, 40, 41");
  }
  const MiniFloat* format = MiniFloatOf(static_cast<aclDataType>(dst));
  if (out->dtype != format->dtype) {
    return reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType's " +
                                     DTypeName(format->dtype));
  }
  const int64_t alg = RoleInt(call, family, F::Role::kScaleAlg, 0);
  if (alg != 0 && !(alg == 2 && format->dtype == ACL_FLOAT4_E2M1)) {
    return reject(F::Role::kScaleAlg, std::to_string(alg) + " is not 0, nor 2 with a FLOAT4_E2M1 yOut");
  }
  const double dst_max = RoleNumber(call, family, F::Role::kDstMax, -1, 0.0);
  if (dst_max != 0 && dst_max != 6.0 && dst_max != 7.0) {
    return reject(F::Role::kDstMax, Text(dst_max) + " is not 0.0, 6.0 or 7.0");
  }
  if (IsFloat4(format->dtype) && x->view.back() % 2 != 0) {
    return reject(F::Role::kX, "last dimension " + std::to_string(x->view.back()) + " is odd (a FLOAT4 yOut holds "
                                                                                    "two elements a byte)");
  }
  auto made = std::make_unique<BlockMxQuantWork>(call.spec.name);
  if (aclnnStatus s = ReadRoundMode(call, family, *format, &made->round)) return s;
  if (aclnnStatus s = DeclineRoundMode(call, family, work)) return s;
  if (*work) return ACLNN_SUCCESS;
  made->format = format;
  // scaleAlg 2 (FLOAT4_E2M1): S = amax / dstTypeMax (0.0: the format's largest, 6.0), rounded up by its
  // float bits, a subnormal S kept (the page's cases).
  made->rule = MxScaleRule{alg == 2, dst_max != 0 ? dst_max : format->max, false, 0.0};
  made->m = x->view[static_cast<size_t>(rank - 2)];
  made->n = x->view[static_cast<size_t>(rank - 1)];
  made->outer = rank == 3 ? x->view[0] : 1;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (aclnnStatus s = KeepElements(call, family, made.get(), F::Role::kOut, *out, *format, x->view, "x's shape", kOut)) {
    return s;
  }
  const struct {
    int role, slot;
    int64_t axis;
  } scales[2] = {{F::Role::kScaleOut, kScaleOut, rank - 1}, {F::Role::kScaleOut2, kScaleOut2, rank - 2}};
  for (const auto& sc : scales) {
    const TensorDesc* t = sc.role == F::Role::kScaleOut ? scale1 : scale2;
    if (aclnnStatus s = made->KeepOutput(call, family, sc.role, *t, ScaleShape(x->view, sc.axis, BlockingOf(x->view, sc.axis, 32)),
                                         "x's shape with the axis's blocks of 32 in pairs, then 2", sc.slot)) {
      return s;
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanRmsNormMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* gamma = RoleTensor(call, family, F::Role::kGamma);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* scales = RoleTensor(call, family, F::Role::kScaleOut);
  if (!x || !gamma || !y || !scales) return Decline(call, work, "without its tensors");
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < 1 || rank > 7) return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions (the page: 1 to 7)");
  const int64_t width = x->view.back();
  MxArguments args;
  if (aclnnStatus s = ReadMxArguments(call, family, *x, width,
                                      {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2}, work, &args)) {
    return s;
  }
  if (*work) return ACLNN_SUCCESS;  // declined by name
  auto made = std::make_unique<RmsNormMxQuantWork>(call.spec.name);
  made->format = args.format;
  made->round = args.round;
  made->rule = MxScaleRule{args.scale_alg == 1, args.format->max, true, 0.0};
  made->blocking = BlockingOf(x->view, rank - 1, 32);
  made->epsilon = RoleNumber(call, family, F::Role::kEpsilon, -1, 1e-6);
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  // gamma and beta: one dimension, x's last (the page's "shape只能为一维"), beta gamma's dtype.
  if (aclnnStatus s = CheckShape(call, family, F::Role::kGamma, gamma, Dims{width}, "[x's last dimension]")) return s;
  made->tensor(kRmsGamma).Set(RoleName(call, family, F::Role::kGamma), *gamma);
  if (const TensorDesc* beta = RoleTensor(call, family, F::Role::kBeta)) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kBeta, beta, Dims{width}, "gamma's shape")) return s;
    if (beta->dtype != gamma->dtype) {
      return reject(F::Role::kBeta, std::string("dtype ") + DTypeName(beta->dtype) + " is not gamma's " +
                                        DTypeName(gamma->dtype));
    }
    made->tensor(kRmsBeta).Set(RoleName(call, family, F::Role::kBeta), *beta);
    made->has_beta = true;
  }
  if (family.has(F::Role::kX2)) {
    const TensorDesc* x2 = RoleTensor(call, family, F::Role::kX2);
    const TensorDesc* sum = RoleTensor(call, family, F::Role::kSumOut);
    if (!x2 || !sum) return Decline(call, work, "without its tensors");
    if (aclnnStatus s = CheckShape(call, family, F::Role::kX2, x2, x->view, "x1's shape")) return s;
    made->add = true;
    made->tensor(kRmsX2).Set(RoleName(call, family, F::Role::kX2), *x2);
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kSumOut, *sum, x->view, "x1's shape", kRmsSum)) return s;
  }
  if (aclnnStatus s = KeepElements(call, family, made.get(), F::Role::kOut, *y, *args.format, x->view, "x's shape",
                                    kOut)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *scales,
                                       ScaleShape(x->view, rank - 1, made->blocking),
                                       "x's shape with the last axis's blocks of 32 in pairs, then 2", kScaleOut)) {
    return s;
  }
  // rstdOut: x's shape with a last dimension of 1, written when outputRstd is true (else the page's
  // invalid output, left as it is).
  made->write_rstd = RoleBool(call, family, F::Role::kOutputRstd, false);
  if (made->write_rstd) {
    const TensorDesc* rstd = RoleTensor(call, family, F::Role::kRstd);
    if (!rstd) return Decline(call, work, "without rstdOut while outputRstd is true");
    Dims kept = x->view;
    kept.back() = 1;
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kRstd, *rstd, kept, "x's shape with a last dimension of 1",
                                         kRmsRstd)) {
      return s;
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanSwigluMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  // The dual-axis form (aclnnSwigluMxQuantWithDualAxis): x [M, 2N], its result quantised along -1 and -2.
  const bool dual = family.has(F::Role::kOut2);
  const TensorDesc* outs[2] = {RoleTensor(call, family, F::Role::kOut), RoleTensor(call, family, F::Role::kOut2)};
  const TensorDesc* scales[2] = {RoleTensor(call, family, F::Role::kScaleOut),
                                 RoleTensor(call, family, F::Role::kScaleOut2)};
  if (!x || !outs[0] || !scales[0] || (dual && (!outs[1] || !scales[1]))) {
    return Decline(call, work, "without its tensors");
  }
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < 2 || rank > (dual ? 2 : 7)) {
    return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions (the page: " + (dual ? "2" : "2 to 7") + ")");
  }
  // activateDim and axis: one of the last two axes, as -1, -2, rank - 2 or rank - 1.
  const auto last_two = [&](int role, int64_t given, int64_t* out) -> aclnnStatus {
    if (given != -1 && given != -2 && given != rank - 2 && given != rank - 1) {
      return reject(role, std::to_string(given) + " is not one of -1, -2, " + std::to_string(rank - 2) + ", " +
                              std::to_string(rank - 1));
    }
    *out = given < 0 ? given + rank : given;
    return ACLNN_SUCCESS;
  };
  int64_t act = 0, axis = 0;
  if (aclnnStatus s = last_two(F::Role::kActivateDim, RoleInt(call, family, F::Role::kActivateDim, -1), &act)) return s;
  if (aclnnStatus s = last_two(F::Role::kAxis, RoleInt(call, family, F::Role::kAxis, -1), &axis)) return s;
  const int64_t mode = RoleInt(call, family, F::Role::kSwigluMode, 0);
  if (mode != 0 && mode != 1) return reject(F::Role::kSwigluMode, std::to_string(mode) + " is not 0 or 1");
  if (mode == 1 && act != rank - 1) {
    return reject(F::Role::kSwigluMode, "is 1 with activateDim not the last axis (the page: mode 0 there)");
  }
  const double limit = RoleNumber(call, family, F::Role::kClampLimit, -1, 7.0);
  if (!(limit > 0) || !std::isfinite(limit)) return reject(F::Role::kClampLimit, Text(limit) + " is not positive and finite");
  if (x->view[static_cast<size_t>(act)] % 2 != 0) {
    return reject(F::Role::kX, "dimension " + std::to_string(act) + " (activateDim) is odd: it has no halves");
  }
  Dims y_shape = x->view;
  y_shape[static_cast<size_t>(act)] /= 2;
  // The backward form: yGrad the forward's result's shape, x's dtype; x's gradient quantised.
  const bool backward = family.op == F::Op::kSwigluGradMxQuant;
  if (backward) {
    const TensorDesc* y_grad = RoleTensor(call, family, F::Role::kX2);
    if (!y_grad) return Decline(call, work, "without its tensors");
    if (y_grad->dtype != x->dtype) {
      return reject(F::Role::kX2, std::string("dtype ") + DTypeName(y_grad->dtype) + " is not x's " + DTypeName(x->dtype));
    }
    if (y_grad->view != y_shape) {
      return reject(F::Role::kX2, "shape " + DimsText(y_grad->view) + " is not x's with its last dimension halved, " +
                                      DimsText(y_shape));
    }
    y_shape = x->view;  // what is quantised: x's gradient
  }
  const TensorDesc* group_list = RoleTensor(call, family, F::Role::kGroupList);
  const int64_t group_mode = RoleInt(call, family, F::Role::kGroupMode, 0);
  if (group_mode != 0 && group_mode != 1) return reject(F::Role::kGroupMode, std::to_string(group_mode) + " is not 0 or 1");
  if (group_list) {
    if (group_list->view.size() != 1 || group_list->view[0] < 1 || group_list->view[0] > 256) {
      return reject(F::Role::kGroupList, "shape " + DimsText(group_list->view) + " is not [groupNum], 1 to 256");
    }
    if ((act != rank - 1 || axis != rank - 1) && rank != 2) {
      return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions with groupIndexOptional and activateDim "
                                                                  "or axis not the last (the page: 2)");
    }
    if (act != rank - 1) {
      return Decline(call, work, "for groupIndexOptional with activateDim 0 (the page does not say whether its groups "
                                 "count x's rows or the halved result's)");
    }
  }
  MxArguments args;
  // The backward page admits dstDtype 36 (FLOAT8_E4M3FN) and scaleAlg 1 alone.
  const std::vector<aclDataType> formats = backward ? std::vector<aclDataType>{ACL_FLOAT8_E4M3FN}
                                                    : std::vector<aclDataType>{ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN,
                                                                               ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2};
  if (backward && RoleInt(call, family, F::Role::kScaleAlg, 1) != 1) {
    return reject(F::Role::kScaleAlg, std::to_string(RoleInt(call, family, F::Role::kScaleAlg, 1)) + " is not 1");
  }
  if (aclnnStatus s = ReadMxArguments(call, family, *x, y_shape[static_cast<size_t>(axis)], formats, work, &args)) {
    return s;
  }
  if (*work) return ACLNN_SUCCESS;  // declined by name
  auto made = std::make_unique<SwigluMxQuantWork>(call.spec.name);
  for (int64_t d = 0; d < rank; ++d) {
    if (d < act) made->outer *= x->view[static_cast<size_t>(d)];
    if (d > act) made->inner *= x->view[static_cast<size_t>(d)];
  }
  made->half = x->view[static_cast<size_t>(act)] / 2;
  made->left = RoleBool(call, family, F::Role::kActivateLeft, false);
  // Mode 1 activates the even elements whatever activateLeft says (the page: "如果swigluMode为1，默认对x的偶数块
  // 做激活"; its formula does not read activateLeft, and its example passes true).
  made->interleaved = mode == 1;
  made->limit = limit;
  made->alpha = RoleNumber(call, family, F::Role::kGluAlpha, -1, 1.0);
  made->bias = RoleNumber(call, family, F::Role::kGluBias, -1, 0.0);
  made->format = args.format;
  made->round = args.round;
  made->rule = MxScaleRule{args.scale_alg == 1, args.format->max, true, 0.0};
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (backward) made->tensor(kYGrad).Set(RoleName(call, family, F::Role::kX2), *RoleTensor(call, family, F::Role::kX2));
  made->backward = backward;
  made->dual = dual;
  made->passes = dual ? 2 : 1;
  if (group_list) {
    made->grouped = true;
    made->counts = !dual && group_mode == 0;  // the dual-axis page's groups are cumulative ends
    made->tensor(kGroupList).Set(RoleName(call, family, F::Role::kGroupList), *group_list);
  }
  const int64_t pass_axes[2] = {dual ? rank - 1 : axis, rank - 2};
  const int out_roles[2] = {F::Role::kOut, F::Role::kOut2}, scale_roles[2] = {F::Role::kScaleOut, F::Role::kScaleOut2};
  const int out_slots[2] = {kOut, kOut2}, scale_slots[2] = {kScaleOut, kScaleOut2};
  for (int p = 0; p < made->passes; ++p) {
    if (aclnnStatus s = KeepElements(call, family, made.get(), out_roles[p], *outs[p], *args.format, y_shape,
                                      backward ? "x's shape" : "x's shape with activateDim halved", out_slots[p])) {
      return s;
    }
    made->blocking[p] = BlockingOf(y_shape, pass_axes[p], 32);
    made->along_groups[p] = group_list && pass_axes[p] != rank - 1;
    Dims scale_shape = ScaleShape(y_shape, pass_axes[p], made->blocking[p]);
    // Along rows: room for each group's own pairs of blocks (the pages' floor(rows / 64) + groupNum).
    if (made->along_groups[p]) scale_shape[0] = y_shape[0] / 64 + group_list->view[0];
    if (aclnnStatus s = made->KeepOutput(call, family, scale_roles[p], *scales[p], scale_shape,
                                         "the result's shape with the axis's blocks of 32 in pairs, then 2",
                                         scale_slots[p])) {
      return s;
    }
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanDualLevelMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const ParamRejecter reject(call, family);
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* y = RoleTensor(call, family, F::Role::kOut);
  const TensorDesc* level0 = RoleTensor(call, family, F::Role::kLevel0ScaleOut);
  const TensorDesc* level1 = RoleTensor(call, family, F::Role::kScaleOut);
  if (!x || !y || !level0 || !level1) return Decline(call, work, "without its tensors");
  const int64_t rank = static_cast<int64_t>(x->view.size());
  if (rank < 1 || rank > 7) return reject(F::Role::kX, "has " + std::to_string(rank) + " dimensions (the page: 1 to 7)");
  const int64_t width = x->view.back();
  if (width % 2 != 0) return reject(F::Role::kX, "last dimension " + std::to_string(width) + " is odd (the page: even)");
  if (RoleInt(call, family, F::Role::kLevel0BlockSize, -1) != DualLevelMxQuantWork::kLevel0Block) {
    return reject(F::Role::kLevel0BlockSize,
                  std::to_string(RoleInt(call, family, F::Role::kLevel0BlockSize, -1)) + " is not 512");
  }
  if (RoleInt(call, family, F::Role::kBlockSize, -1) != 32) {
    return reject(F::Role::kBlockSize, std::to_string(RoleInt(call, family, F::Role::kBlockSize, -1)) + " is not 32");
  }
  const MiniFloat& format = *MiniFloatOf(ACL_FLOAT4_E2M1);
  auto made = std::make_unique<DualLevelMxQuantWork>(call.spec.name);
  if (aclnnStatus s = ReadRoundMode(call, family, format, &made->round)) return s;
  if (aclnnStatus s = DeclineRoundMode(call, family, work)) return s;
  if (*work) return ACLNN_SUCCESS;
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  if (const TensorDesc* smooth = RoleTensor(call, family, F::Role::kSmooth)) {
    if (aclnnStatus s = CheckShape(call, family, F::Role::kSmooth, smooth, Dims{width}, "[x's last dimension]")) return s;
    if (smooth->dtype != x->dtype) {
      return reject(F::Role::kSmooth, std::string("dtype ") + DTypeName(smooth->dtype) + " is not x's " +
                                          DTypeName(x->dtype));
    }
    made->tensor(kSmooth).Set(RoleName(call, family, F::Role::kSmooth), *smooth);
    made->smoothed = true;
  }
  if (aclnnStatus s = KeepElements(call, family, made.get(), F::Role::kOut, *y, format, x->view, "x's shape", kOut)) {
    return s;
  }
  made->blocking = BlockingOf(x->view, rank - 1, 32);
  Dims level0_shape = x->view;
  level0_shape.back() = (width + DualLevelMxQuantWork::kLevel0Block - 1) / DualLevelMxQuantWork::kLevel0Block;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kLevel0ScaleOut, *level0, level0_shape,
                                       "x's shape with the last axis's blocks of 512", kLevel0Scale)) {
    return s;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *level1,
                                       ScaleShape(x->view, rank - 1, made->blocking),
                                       "x's shape with the last axis's blocks of 32 in pairs, then 2", kScaleOut)) {
    return s;
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanMxQuant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  switch (family.op) {
    case F::Op::kDynamicMxQuant: return PlanDynamicMxQuant(call, family, work);
    case F::Op::kAntiMxQuant: return PlanAntiMxQuant(call, family, work);
    case F::Op::kBlockMxQuant: return PlanBlockMxQuant(call, family, work);
    case F::Op::kRmsNormMxQuant: return PlanRmsNormMxQuant(call, family, work);
    case F::Op::kSwigluMxQuant:
    case F::Op::kSwigluGradMxQuant: return PlanSwigluMxQuant(call, family, work);
    case F::Op::kDualLevelMxQuant: return PlanDualLevelMxQuant(call, family, work);
    default: return PlanQuantMax(call, family, work);
  }
}

}  // namespace aclsim
