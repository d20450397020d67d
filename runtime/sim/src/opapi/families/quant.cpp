// The quant family: int8 quantisation and its inverse, element by element with a scale and an
// offset per tensor or per channel, per row of the last dimension (dynamic), and aten's fake
// quantisation with its mask.
//   ascend_quant   y = round(x * scale + offset) (x * scale * scale with sqrtMode), roundMode
//                  "round" (half to even), "floor", "ceil" or "trunc", saturated to INT8
//                  (aclnnAscendQuant: scale along the last dimension; V3: along `axis`)
//   quantize       out = round(x / scales + zeroPoints) half to even, saturated to out's INT8, UINT8
//                  or INT32 (aclnnQuantize; scales along `axis`)
//   anti_quant     y = (x + offset) * scale (* scale with sqrtMode), in float, to FLOAT16/BFLOAT16; x INT8,
//                  or INT4 read from its nibbles as the quant-matmul families read their weights (common/int4.h)
//   dynamic_quant  per row r of the last dimension, v = x * smooth: symmetric scale = max|v| / 127,
//                  y = round(v / scale); with offsetOut (aclnnDynamicQuantV2's asymmetric form)
//                  scale = (max v - min v) / 255, offset = 127 - max v / scale, y = round(v / scale +
//                  offset); y saturated to INT8. aclnnDynamicQuantV3/V4's quantMode takes the
//                  statistics over the whole tensor (pertensor) or over each column along the
//                  second-to-last dimension (perchannel) instead of each row, and their
//                  isSymmetrical chooses the asymmetric form (dstTypeMax, HIFLOAT8's, refused)
//   gelu_quant     g = GELU(x) (approximate "none": erf, "tanh"), then ascend_quant's y = round(g *
//                  scale + offset) (quantMode "static", roundMode "rint": half to even) or
//                  dynamic_quant's per row with scale as the smoothing factor (quantMode "dynamic")
//                  (aclnnGeluQuant)
//   block_quant    the last two dimensions of x (2 or 3 dimensions) in blocks of rowBlockSize x
//                  colBlockSize (the last ones ragged): per block scaleOut = min(max|x| / 127,
//                  1 / minScale) (no bound with minScale 0), y = round(x / scaleOut) half to even
//                  ("rint") (aclnnDynamicBlockQuant/V2)
//   fake_quant     aten's fake_quantize_per_{tensor,channel}_affine_cachemask: q = nearbyint(x * (1 /
//                  scale)) + zero_point, out = (clamp(q, quant_min, quant_max) - zero_point) * scale,
//                  mask = quant_min <= q <= quant_max; per tensor, fakeQuantEnabled < 1 gives out = x
//                  and a true mask
// The norm_quant family (norm_quant.cpp) and the weight_quant_matmul family
// (weight_quant_matmul.cpp) quantise through the same rows (quant_row.h).
// ascend_quant and dynamic_quant write INT8, INT4 (saturated to [-8, 7]; dynamic_quant's dtypeMax 7,
// its asymmetric scale_opt 15 and offset_opt 7) or INT32 words of eight INT4 along the last
// dimension (dstType 3), packed as CANN lays INT4 out (quantised_out.h).
// What the family does not model is refused by name (561003, "not simulated"): HIFLOAT8 and FLOAT8
// outputs of ascend_quant and dynamic_quant, quantize's
// HIFLOAT8/FLOAT8, anti_quant's INT32 x (eight INT4 a word: y's last dimension eight times x's, which no
// golden here unpacks), roundMode "hybrid" (HIFLOAT8 only) and
// dynamic quantisation by groups (groupIndexOptional). A NaN quantises to 0.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "common/int4.h"
#include "opapi/elementwise.h"
#include "opapi/families/family.h"
#include "opapi/families/gelu.h"
#include "opapi/families/quant_row.h"
#include "opapi/families/quantised_out.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = QuantFamily;

enum Slot { kX, kScale, kOffset, kSmooth, kOut, kScaleOut, kOffsetOut, kMask, kSlots };
enum class Rounding { kHalfEven, kFloor, kCeil, kTrunc };

double RoundBy(Rounding mode, double v) {
  switch (mode) {
    case Rounding::kFloor: return std::floor(v);
    case Rounding::kCeil: return std::ceil(v);
    case Rounding::kTrunc: return std::trunc(v);
    default: return std::nearbyint(v);
  }
}

class QuantWork final : public FamilyWork {
 public:
  QuantWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  bool sqrt_mode = false;
  Rounding rounding = Rounding::kHalfEven;
  double low = -128, high = 127;  // the saturation range of the quantised dtype
  bool has_offset = false, has_smooth = false, asymmetric = false, enabled = true, per_channel = false;
  bool tanh_gelu = false, dynamic = false;  // gelu_quant's form, and whether it quantises per row
  int64_t row_block = 1, col_block = 1;     // block_quant's block
  float ceiling = INFINITY;                 // block_quant's bound on a scale, 1 / minScale
  // dynamic_quant's extent of a scale (aclnnDynamicQuantV3/V4's quantMode): a row of the last
  // dimension, the whole tensor, or a column (along the second-to-last dimension, per batch).
  enum class Extent { kRow, kTensor, kColumn } extent = Extent::kRow;
  // ascend_quant's and dynamic_quant's y: INT8, INT4 or INT32 words of INT4 (quantised_out.h).
  QuantisedOut y;
  // anti_quant's INT4 x: its elements, read from their nibbles (its slot holds the bytes they lie in, for the
  // memory check).
  bool int4_x = false;
  TensorDesc x_nibbles;

 private:
  void WriteQuantised(const int64_t* q) {
    if (op_ == F::Op::kAscendQuant || op_ == F::Op::kDynamicQuant) {
      aclsim::WriteQuantised(q, y, tensor(kOut));
    } else {
      ScatterFrom(q, ComputeType::kInt64, tensor(kOut));
    }
  }

  aclnnStatus Compute() override {
    // (An INT4 x's slot holds its bytes: its elements are its nibbles.)
    const int64_t n = int4_x ? x_nibbles.numel() : tensor(kX).numel();
    if (n == 0) return ACLNN_SUCCESS;
    const float* x;
    if (int4_x) {
      float* values = static_cast<float*>(Scratch(7, static_cast<size_t>(n) * sizeof(float)));
      GatherInt4(x_nibbles, values);
      x = values;
    } else {
      x = static_cast<const float*>(ContiguousAs(tensor(kX), ComputeType::kFloat32, 0));
    }
    if (op_ == F::Op::kGeluQuant) {
      float* g = static_cast<float*>(Scratch(6, static_cast<size_t>(n) * sizeof(float)));
      ParallelRange(n, 8, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) g[i] = Gelu(x[i], tanh_gelu);
      });
      x = g;
    }
    if (op_ == F::Op::kDynamicQuant || dynamic) return Dynamic(x, n);
    if (op_ == F::Op::kBlockQuant) return Block(x, n);
    // Scale and offset are views broadcast to x's shape: gathered, one value per element.
    const float* scale = static_cast<const float*>(ContiguousAs(tensor(kScale), ComputeType::kFloat32, 1));
    const float* offset =
        has_offset ? static_cast<const float*>(ContiguousAs(tensor(kOffset), ComputeType::kFloat32, 2)) : nullptr;
    if (op_ == F::Op::kAntiQuant) {
      float* y = static_cast<float*>(Scratch(3, static_cast<size_t>(n) * sizeof(float)));
      ParallelRange(n, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const float v = (x[i] + (offset ? offset[i] : 0.0f)) * scale[i];
          y[i] = sqrt_mode ? v * scale[i] : v;
        }
      });
      ScatterFrom(y, ComputeType::kFloat32, tensor(kOut));
      return ACLNN_SUCCESS;
    }
    if (op_ == F::Op::kFakeQuant) return Fake(x, scale, offset, n);
    int64_t* q = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(n) * sizeof(int64_t)));
    const bool divide = op_ == F::Op::kQuantize;
    ParallelRange(n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        float v;
        if (divide) {
          v = x[i] / scale[i];
        } else {
          v = x[i] * scale[i];
          if (sqrt_mode) v *= scale[i];
        }
        if (offset) v += offset[i];
        q[i] = Saturate(RoundBy(rounding, v), low, high);
      }
    });
    WriteQuantised(q);
    return ACLNN_SUCCESS;
  }

  aclnnStatus Fake(const float* x, const float* scale, const float* zero_point, int64_t n) {
    float* out = static_cast<float*>(Scratch(4, static_cast<size_t>(n) * sizeof(float)));
    int64_t* mask = static_cast<int64_t*>(Scratch(5, static_cast<size_t>(n) * sizeof(int64_t)));
    ParallelRange(n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (!enabled) {
          out[i] = x[i];
          mask[i] = 1;
          continue;
        }
        // As aten's CPU kernels: the reciprocal in float, the rounded product plus the zero point
        // in float; per tensor clamped as a float (an infinity to its end of the range, NaN to
        // quant_min), per channel converted to int64 first, where x86 gives a NaN, an infinity
        // or a value out of range INT64_MIN (quant_min once clamped).
        const float inverse = 1.0f / scale[i];
        const float zero = zero_point ? zero_point[i] : 0.0f;
        const float qf = zero + std::nearbyint(x[i] * inverse);
        double q = qf;
        if (per_channel) {
          q = qf >= -9.2233720368547758e18f && qf < 9.2233720368547758e18f ? static_cast<double>(static_cast<int64_t>(qf))
                                                                           : -9.2233720368547758e18;
        }
        out[i] = static_cast<float>((std::fmin(std::fmax(q, low), high) - zero) * static_cast<double>(scale[i]));
        mask[i] = q >= low && q <= high;
      }
    });
    ScatterFrom(out, ComputeType::kFloat32, tensor(kOut));
    ScatterFrom(mask, ComputeType::kInt64, tensor(kMask));
    return ACLNN_SUCCESS;
  }

  aclnnStatus Dynamic(const float* x, int64_t n) {
    const int64_t width = tensor(kX).shape.back(), rows = n / width;
    const float* smooth =
        has_smooth ? static_cast<const float*>(ContiguousAs(tensor(kSmooth), ComputeType::kFloat32, 1)) : nullptr;
    if (extent != Extent::kRow) return DynamicGrouped(x, n, smooth);
    int64_t* q = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(n) * sizeof(int64_t)));
    float* scales = static_cast<float*>(Scratch(4, static_cast<size_t>(rows) * sizeof(float)));
    float* offsets = static_cast<float*>(Scratch(5, static_cast<size_t>(rows) * sizeof(float)));
    ParallelRange(rows, width, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* row = x + r * width;
        QuantiseRow(width, [&](int64_t j) { return smooth ? row[j] * smooth[j] : row[j]; }, asymmetric, low, high,
                    &scales[r], &offsets[r], q + r * width);
      }
    });
    WriteQuantised(q);
    ScatterFrom(scales, ComputeType::kFloat32, tensor(kScaleOut));
    if (asymmetric) ScatterFrom(offsets, ComputeType::kFloat32, tensor(kOffsetOut));
    return ACLNN_SUCCESS;
  }

  // Block quantisation: each block's scale from its largest magnitude (NaN with a NaN in it, as
  // torch.amax propagates it), then its elements.
  aclnnStatus Block(const float* x, int64_t n) {
    const Dims& shape = tensor(kX).shape;
    const int64_t cols = shape.back(), rows = shape[shape.size() - 2], batches = n / (rows * cols);
    const int64_t block_rows = (rows + row_block - 1) / row_block, block_cols = (cols + col_block - 1) / col_block;
    const int64_t blocks = batches * block_rows * block_cols;
    float* scales = static_cast<float*>(Scratch(4, static_cast<size_t>(blocks) * sizeof(float)));
    int64_t* q = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(n) * sizeof(int64_t)));
    ParallelRange(blocks, row_block * col_block, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        const int64_t batch = k / (block_rows * block_cols), bi = k / block_cols % block_rows, bj = k % block_cols;
        const int64_t r0 = bi * row_block, r1 = std::min(rows, r0 + row_block);
        const int64_t c0 = bj * col_block, c1 = std::min(cols, c0 + col_block);
        const int64_t at = batch * rows * cols;
        float magnitude = 0.0f;
        bool nan = false;
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) {
            const float v = x[at + r * cols + c];
            nan = nan || std::isnan(v);
            magnitude = std::max(magnitude, std::fabs(v));
          }
        }
        const float s = nan ? NAN : std::min(magnitude / 127.0f, ceiling);
        scales[k] = s;
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) {
            const int64_t i = at + r * cols + c;
            q[i] = Saturate(std::nearbyint(x[i] / s), low, high);
          }
        }
      }
    });
    WriteQuantised(q);
    ScatterFrom(scales, ComputeType::kFloat32, tensor(kScaleOut));
    return ACLNN_SUCCESS;
  }

  // Dynamic quantisation by the whole tensor or by column: the statistics of each group first,
  // then the elements, as the per-row pass computes them.
  aclnnStatus DynamicGrouped(const float* x, int64_t n, const float* smooth) {
    const Dims& shape = tensor(kX).shape;
    const int64_t width = shape.back();
    const int64_t height = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
    const int64_t groups = extent == Extent::kTensor ? 1 : n / height;
    auto group_of = [&](int64_t i) { return extent == Extent::kTensor ? 0 : i / (height * width) * width + i % width; };
    auto value = [&](int64_t i) { return smooth ? x[i] * smooth[i % width] : x[i]; };
    std::vector<float> top(static_cast<size_t>(groups), -INFINITY), bottom(static_cast<size_t>(groups), INFINITY),
        magnitude(static_cast<size_t>(groups), 0.0f);
    std::vector<char> nan(static_cast<size_t>(groups), 0);
    for (int64_t i = 0; i < n; ++i) {
      const size_t g = static_cast<size_t>(group_of(i));
      const float v = value(i);
      nan[g] = nan[g] || std::isnan(v);
      top[g] = std::max(top[g], v);
      bottom[g] = std::min(bottom[g], v);
      magnitude[g] = std::max(magnitude[g], std::fabs(v));
    }
    float* scales = static_cast<float*>(Scratch(4, static_cast<size_t>(groups) * sizeof(float)));
    float* offsets = static_cast<float*>(Scratch(5, static_cast<size_t>(groups) * sizeof(float)));
    for (size_t g = 0; g < static_cast<size_t>(groups); ++g) {
      // As QuantiseRow's: the quantised dtype's range gives the divisors (INT8 127 and 255, INT4 7 and 15).
      scales[g] = nan[g]       ? NAN
                  : asymmetric ? (top[g] - bottom[g]) / static_cast<float>(high - low)
                               : magnitude[g] / static_cast<float>(high);
      offsets[g] = asymmetric ? static_cast<float>(high) - top[g] / scales[g] : 0.0f;
    }
    int64_t* q = static_cast<int64_t*>(Scratch(3, static_cast<size_t>(n) * sizeof(int64_t)));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t g = group_of(i);
      const float v = asymmetric ? value(i) / scales[g] + offsets[g] : value(i) / scales[g];
      q[i] = Saturate(std::nearbyint(v), low, high);
    }
    WriteQuantised(q);
    ScatterFrom(scales, ComputeType::kFloat32, tensor(kScaleOut));
    if (asymmetric) ScatterFrom(offsets, ComputeType::kFloat32, tensor(kOffsetOut));
    return ACLNN_SUCCESS;
  }

  int op_;
};

// `p` seen as one value per element of `shape` along `axis` (or one value for all): a single
// element; a 1-d tensor of shape[axis] elements; or, with `full_rank`, a tensor of shape's rank
// whose dimensions are 1 except along axis. False when it is none of these.
bool ChannelView(const TensorDesc& p, const Dims& shape, int64_t axis, bool full_rank, TensorRef* out) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t own = static_cast<int64_t>(p.view.size());
  Dims strides(rank, 0);
  if (p.numel() != 1) {
    if (axis < 0 || axis >= rank) return false;
    if (own == 1 && p.view[0] == shape[axis]) {
      strides[axis] = p.strides[0];
    } else if (full_rank && own == rank) {
      for (int64_t d = 0; d < rank; ++d) {
        if (d != axis && p.view[d] != 1) return false;
      }
      if (p.view[axis] != shape[axis]) return false;
      strides[axis] = p.strides[axis];
    } else {
      return false;
    }
  }
  out->shape = shape;
  out->strides = strides;
  return true;
}

// The saturation range of a quantised dtype; false for the dtypes the family does not produce.
bool IntegerRange(aclDataType dtype, double* low, double* high) {
  switch (dtype) {
    case ACL_INT8: *low = -128; *high = 127; return true;
    case ACL_UINT8: *low = 0; *high = 255; return true;
    case ACL_INT32: *low = -2147483648.0; *high = 2147483647.0; return true;
    default: return false;
  }
}

class Planner {
 public:
  Planner(const Call& call, const FamilySpec& family, ExecutorWork** work)
      : call_(call), family_(family), work_(work) {}

  aclnnStatus Reject(int role, const std::string& message) {
    return RejectInvalid(call_, family_, role, message);
  }
  aclnnStatus Decline(const std::string& why) { return aclsim::Decline(call_, work_, why); }

  // Keeps the tensor of `role` as a per-`axis` view of x's shape in `slot`.
  aclnnStatus Channel(QuantWork* made, int role, int slot, const Dims& shape, int64_t axis, bool full_rank) {
    const TensorDesc* p = RoleTensor(call_, family_, role);
    made->tensor(slot).Set(RoleName(call_, family_, role), *p);
    if (!ChannelView(*p, shape, axis, full_rank, &made->tensor(slot))) {
      return Reject(role, "shape " + DimsText(p->view) + " is neither one value nor one per element of x " +
                              DimsText(shape) + " along axis " + std::to_string(axis));
    }
    return ACLNN_SUCCESS;
  }

  // A string attribute's value ("" when absent).
  std::string Text(int role) const {
    const char* text = family_.has(role) ? CallString(call_, family_.role(role)) : nullptr;
    return text ? text : "";
  }

  // aclnnGeluQuant's attributes and tensors: static quantisation by the scale (and offset) along
  // the last dimension, or dynamic with the scale as the smoothing factor and outScaleOptional
  // one per row.
  aclnnStatus GeluQuant(QuantWork* made, const TensorDesc& out, const Dims& shape) {
    const std::string form = Text(F::Role::kApproximate), mode = Text(F::Role::kQuantMode);
    const std::string rounding = Text(F::Role::kRoundMode);
    if (form != "none" && form != "tanh") return Reject(F::Role::kApproximate, "\"" + form + "\" is not none or tanh");
    if (mode != "static" && mode != "dynamic") {
      return Reject(F::Role::kQuantMode, "\"" + mode + "\" is not static or dynamic");
    }
    const int64_t dst = RoleInt(call_, family_, F::Role::kDstType, 2);
    if (dst != 2 || out.dtype != ACL_INT8) {
      return Decline("for dstType " + std::to_string(dst) + " and y of dtype " + DTypeName(out.dtype) +
                     " (only 2, INT8, is simulated)");
    }
    if (rounding != "rint") {
      return Reject(F::Role::kRoundMode, "\"" + rounding + "\" is not rint, which INT8 (dstType 2) takes only");
    }
    made->tanh_gelu = form == "tanh";
    made->dynamic = mode == "dynamic";
    const int64_t rank = static_cast<int64_t>(shape.size());
    const TensorDesc* scale = RoleTensor(call_, family_, F::Role::kScale);
    const TensorDesc* scale_out = RoleTensor(call_, family_, F::Role::kScaleOut);
    if (!made->dynamic) {
      if (!scale) {
        return RejectParam(call_, family_, F::Role::kScale, ACLNN_ERR_PARAM_NULLPTR,
                           "must be given when quantMode is static");
      }
      if (scale_out) return Reject(F::Role::kScaleOut, "must be null when quantMode is static");
      if (aclnnStatus s = Channel(made, F::Role::kScale, kScale, shape, rank - 1, false)) return s;
      if (made->has_offset) return Channel(made, F::Role::kOffset, kOffset, shape, rank - 1, false);
      return ACLNN_SUCCESS;
    }
    if (rank < 2) return Reject(F::Role::kX, "has fewer than 2 dimensions for quantMode dynamic");
    if (made->has_offset) return Decline("with inputOffsetOptional in quantMode dynamic (its formula has no offset)");
    if (scale) {
      made->has_smooth = true;
      made->tensor(kSmooth).Set(RoleName(call_, family_, F::Role::kScale), *scale);
      if (!ChannelView(*scale, Dims{shape.back()}, 0, false, &made->tensor(kSmooth))) {
        return Reject(F::Role::kScale, "shape " + DimsText(scale->view) + " is neither one value nor [" +
                                           std::to_string(shape.back()) + "], self's last dimension");
      }
    }
    if (!scale_out) return Decline("without outScaleOptional");
    return made->KeepOutput(call_, family_, F::Role::kScaleOut, *scale_out, Dims(shape.begin(), shape.end() - 1),
                            "self's shape without its last dimension", kScaleOut);
  }

  // ascend_quant's and dynamic_quant's y: of the dtype dstType names (without dstType, aclnnDynamicQuant:
  // INT8, INT4 or INT32 as given), saturated to its range (quantised_out.h).
  aclnnStatus QuantisedOutput(QuantWork* made, const TensorDesc& out, const Dims& shape) {
    if (family_.has(F::Role::kDstType)) {
      const int64_t dst = RoleInt(call_, family_, F::Role::kDstType, 2);
      const aclDataType want = QuantisedDType(dst);
      if (want == ACL_DT_UNDEFINED) {
        return Decline("for dstType " + std::to_string(dst) + " (2 INT8, 3 INT32 of packed INT4 and 29 INT4 are simulated)");
      }
      if (out.dtype != want) {
        return Reject(F::Role::kOut, std::string("dtype ") + DTypeName(out.dtype) + " is not dstType " +
                                         std::to_string(dst) + "'s " + DTypeName(want));
      }
    }
    if (aclnnStatus s = KeepQuantised(made, call_, family_, work_, F::Role::kOut, out, shape, kOut, &made->y)) return s;
    made->low = made->y.low;
    made->high = made->y.high;
    return ACLNN_SUCCESS;
  }

  // aclnnDynamicBlockQuant/V2's attributes and scaleOut ([B,] ceil(M / rowBlockSize),
  // ceil(N / colBlockSize)).
  aclnnStatus BlockQuant(QuantWork* made, const TensorDesc& out, const Dims& shape) {
    const int64_t dst = RoleInt(call_, family_, F::Role::kDstType, 2);
    if (dst != 2 || out.dtype != ACL_INT8) {
      return Decline("for dstType " + std::to_string(dst) + " and yOut of dtype " + DTypeName(out.dtype) +
                     " (only 2, INT8, is simulated)");
    }
    const std::string rounding = Text(F::Role::kRoundMode);
    if (!rounding.empty() && rounding != "rint") {
      return Reject(F::Role::kRoundMode, "\"" + rounding + "\" is not rint, which INT8 (dstType 2) takes only");
    }
    if (family_.has(F::Role::kDstMax) && RoleNumber(call_, family_, F::Role::kDstMax, -1, 0) != 0) {
      return Decline("for dstTypeMax " + std::to_string(RoleNumber(call_, family_, F::Role::kDstMax, -1, 0)) +
                     " (a custom range is HIFLOAT8's; only INT8's own is simulated)");
    }
    const double least = RoleNumber(call_, family_, F::Role::kMinScale, -1, 0);
    if (!(least >= 0)) return Reject(F::Role::kMinScale, std::to_string(least) + " is negative");
    made->ceiling = least > 0 ? static_cast<float>(1.0 / least) : INFINITY;
    made->row_block = RoleInt(call_, family_, F::Role::kRowBlock, 0);
    made->col_block = RoleInt(call_, family_, F::Role::kColBlock, 0);
    const int64_t row = made->row_block, col = made->col_block;
    if (row != 1 && row != 64 && row != 128 && row != 256 && row != 512) {
      return Reject(F::Role::kRowBlock, std::to_string(row) + " is not 1, 64, 128, 256 or 512");
    }
    if (col != 64 && col != 128 && col != 192 && col != 256) {
      return Reject(F::Role::kColBlock, std::to_string(col) + " is not 64, 128, 192 or 256");
    }
    if (shape.size() != 2 && shape.size() != 3) {
      return Reject(F::Role::kX, "shape " + DimsText(shape) + " has not 2 or 3 dimensions");
    }
    Dims blocks(shape.begin(), shape.end() - 2);
    blocks.push_back((shape[shape.size() - 2] + row - 1) / row);
    blocks.push_back((shape.back() + col - 1) / col);
    const TensorDesc* scale_out = RoleTensor(call_, family_, F::Role::kScaleOut);
    if (!scale_out) return Decline("without scaleOut");
    return made->KeepOutput(call_, family_, F::Role::kScaleOut, *scale_out, blocks,
                            "[B,] ceil(M / rowBlockSize), ceil(N / colBlockSize)", kScaleOut);
  }

  const Call& call_;
  const FamilySpec& family_;
  ExecutorWork** work_;
};

}  // namespace

// group_quant's planner (group_quant.cpp).
aclnnStatus PlanGroupQuant(const Call& call, const FamilySpec& family, ExecutorWork** work);
// quant_scatter's (quant_scatter.cpp).
aclnnStatus PlanQuantScatter(const Call& call, const FamilySpec& family, ExecutorWork** work);

aclnnStatus PlanQuant(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  if (family.op == F::Op::kGroupQuant) return PlanGroupQuant(call, family, work);
  if (family.op == F::Op::kQuantScatter) return PlanQuantScatter(call, family, work);
  Planner plan(call, family, work);
  const int op = family.op;
  const TensorDesc* x = RoleTensor(call, family, F::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !out) return plan.Decline("without its tensors");
  if (op != F::Op::kDynamicQuant && op != F::Op::kGeluQuant && op != F::Op::kBlockQuant &&
      !RoleTensor(call, family, F::Role::kScale)) {
    return plan.Decline("without scale");
  }
  if (x->view.size() > 16) return plan.Decline("over 16 dimensions");
  const Dims& shape = x->view;
  const int64_t rank = static_cast<int64_t>(shape.size());
  auto made_owner = std::make_unique<QuantWork>(call.spec.name, op);
  QuantWork* made = made_owner.get();
  made->tensor(kX).Set(RoleName(call, family, F::Role::kX), *x);
  made->sqrt_mode = RoleBool(call, family, F::Role::kSqrtMode, false);
  made->has_offset = RoleTensor(call, family, F::Role::kOffset) != nullptr;

  // The axis scale and offset run along: the last dimension unless the page has an axis.
  int64_t axis = rank - 1;
  if (family.has(F::Role::kAxis) && op != F::Op::kFakeQuant) {
    const int64_t given = RoleInt(call, family, F::Role::kAxis, -1);
    const bool single = RoleTensor(call, family, F::Role::kScale)->numel() == 1;
    if (!WrapDim(given, rank, &axis) && !single) {
      return plan.Reject(F::Role::kAxis, std::to_string(given) + " is outside [-" + std::to_string(rank) + ", " +
                                              std::to_string(rank) + ")");
    }
  }

  if (op == F::Op::kGeluQuant || op == F::Op::kBlockQuant) {
    const aclnnStatus s =
        op == F::Op::kGeluQuant ? plan.GeluQuant(made, *out, shape) : plan.BlockQuant(made, *out, shape);
    if (s != ACLNN_SUCCESS || *work) return s;  // refused, or declined (*work: the not-simulated work)
  } else if (op == F::Op::kAscendQuant || op == F::Op::kQuantize) {
    if (op == F::Op::kAscendQuant) {
      const char* mode = family.has(F::Role::kRoundMode) ? CallString(call, family.role(F::Role::kRoundMode)) : "";
      const std::string m = mode ? mode : "";
      if (m == "round") {
        made->rounding = Rounding::kHalfEven;
      } else if (m == "floor") {
        made->rounding = Rounding::kFloor;
      } else if (m == "ceil") {
        made->rounding = Rounding::kCeil;
      } else if (m == "trunc") {
        made->rounding = Rounding::kTrunc;
      } else if (m == "hybrid") {
        return plan.Decline("for roundMode \"hybrid\" (HIFLOAT8 outputs only)");
      } else {
        return plan.Reject(F::Role::kRoundMode, "\"" + m + "\" is not round, floor, ceil, trunc or hybrid");
      }
    } else {
      const aclDataType dst = RoleDType(call, family, F::Role::kDstType, out->dtype);
      if (dst != out->dtype) {
        return plan.Reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType " +
                                              DTypeName(dst));
      }
    }
    if (op == F::Op::kQuantize && !IntegerRange(out->dtype, &made->low, &made->high)) {
      return plan.Decline(std::string("for an output of dtype ") + DTypeName(out->dtype));
    }
    // aclnnAscendQuant's scale may also be x's rank with 1 except along the axis.
    const bool full_rank = op == F::Op::kAscendQuant;
    if (aclnnStatus s = plan.Channel(made, F::Role::kScale, kScale, shape, axis, full_rank)) return s;
    if (made->has_offset) {
      if (aclnnStatus s = plan.Channel(made, F::Role::kOffset, kOffset, shape, axis, full_rank)) return s;
    }
  } else if (op == F::Op::kAntiQuant) {
    if (x->dtype == ACL_INT4) {
      // (The page's even last dimension for an INT4 x is its generated rule's, checked before the family.)
      made->int4_x = true;
      made->x_nibbles = *x;
      made->tensor(kX).Set(RoleName(call, family, F::Role::kX), Int4Bytes(*x));
    } else if (x->dtype != ACL_INT8) {
      return plan.Decline(std::string("for x of dtype ") + DTypeName(x->dtype) +
                          " (INT8 and INT4 are simulated; INT32's eight INT4 a word are not)");
    }
    const int64_t dst = RoleInt(call, family, F::Role::kDstType, 1);
    const aclDataType want = dst == 1 ? ACL_FLOAT16 : dst == 27 ? ACL_BF16 : ACL_DT_UNDEFINED;
    if (want == ACL_DT_UNDEFINED) return plan.Reject(F::Role::kDstType, std::to_string(dst) + " is not 1 or 27");
    if (out->dtype != want) {
      return plan.Reject(F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " is not dstType's " +
                                            DTypeName(want));
    }
    if (aclnnStatus s = plan.Channel(made, F::Role::kScale, kScale, shape, axis, false)) return s;
    if (made->has_offset) {
      if (aclnnStatus s = plan.Channel(made, F::Role::kOffset, kOffset, shape, axis, false)) return s;
    }
  } else if (op == F::Op::kDynamicQuant) {
    if (RoleTensor(call, family, F::Role::kGroupIndex)) {
      return plan.Decline("with groupIndexOptional (per-expert smooth scales)");
    }
    if (rank < 1) return plan.Reject(F::Role::kX, "shape [] has no last dimension");
    const TensorDesc* smooth = RoleTensor(call, family, F::Role::kSmooth);
    if (smooth) {
      made->has_smooth = true;
      made->tensor(kSmooth).Set(RoleName(call, family, F::Role::kSmooth), *smooth);
      // [C], or [1, C]: aclnnDynamicQuantV2's table gives the smooth scales 2 dimensions (its
      // prose, x's last dimension without groups).
      if (smooth->view.empty() || smooth->view.back() != shape.back() || smooth->numel() != shape.back()) {
        return plan.Reject(F::Role::kSmooth, "shape " + DimsText(smooth->view) + " is not [" +
                                                 std::to_string(shape.back()) + "], x's last dimension");
      }
    }
    if (family.has(F::Role::kDstMax) && RoleNumber(call, family, F::Role::kDstMax, -1, 0) != 0) {
      return plan.Decline("for dstTypeMax " + std::to_string(RoleNumber(call, family, F::Role::kDstMax, -1, 0)) +
                          " (a custom range is HIFLOAT8's; only INT8's own is simulated)");
    }
    // The scales' shape: x's without its last dimension (pertoken), (1,) (pertensor), or without
    // its second-to-last (perchannel).
    Dims rows(shape.begin(), shape.end() - 1);
    const char* what = "x's shape without its last dimension";
    const char* mode = family.has(F::Role::kQuantMode) ? CallString(call, family.role(F::Role::kQuantMode)) : "";
    const std::string m = mode && *mode ? mode : "pertoken";
    if (m == "pertensor") {
      made->extent = QuantWork::Extent::kTensor;
      rows = Dims{1};
      what = "(1,)";
    } else if (m == "perchannel") {
      if (rank < 2) return plan.Reject(F::Role::kX, "has fewer than 2 dimensions for perchannel");
      made->extent = QuantWork::Extent::kColumn;
      rows.assign(shape.begin(), shape.end() - 2);
      rows.push_back(shape.back());
      what = "x's shape without its second-to-last dimension";
    } else if (m != "pertoken") {
      return plan.Reject(F::Role::kQuantMode, "\"" + m + "\" is not pertoken, pertensor or perchannel");
    }
    if (made->extent != QuantWork::Extent::kRow && RoleTensor(call, family, F::Role::kGroupIndex)) {
      return plan.Reject(F::Role::kGroupIndex, "must be absent for quantMode " + m);
    }
    const TensorDesc* scale_out = RoleTensor(call, family, F::Role::kScaleOut);
    if (!scale_out) return plan.Decline("without scaleOut");
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kScaleOut, *scale_out, rows, what, kScaleOut)) {
      return s;
    }
    const TensorDesc* offset_out = RoleTensor(call, family, F::Role::kOffsetOut);
    // Asymmetric with isSymmetrical false (V3, V4), else wherever offsetOut is given (V2).
    made->asymmetric = family.has(F::Role::kSymmetric) ? !RoleBool(call, family, F::Role::kSymmetric, true)
                                                       : offset_out != nullptr;
    if (made->asymmetric && !offset_out) return plan.Decline("asymmetric without offsetOut");
    if (!made->asymmetric && offset_out && family.has(F::Role::kSymmetric)) {
      return plan.Reject(F::Role::kOffsetOut, "must be absent when isSymmetrical is true");
    }
    if (made->asymmetric) {
      if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOffsetOut, *offset_out, rows, what, kOffsetOut)) {
        return s;
      }
    }
  } else {  // fake_quant
    const int64_t qmin = RoleInt(call, family, F::Role::kQuantMin, 0);
    const int64_t qmax = RoleInt(call, family, F::Role::kQuantMax, 0);
    if (qmin > qmax) return plan.Reject(F::Role::kQuantMin, "is greater than quantMax");
    made->low = static_cast<double>(qmin);
    made->high = static_cast<double>(qmax);
    made->enabled = RoleNumber(call, family, F::Role::kEnabled, -1, 1.0) >= 1;
    made->has_offset = true;
    const TensorDesc* scale = RoleTensor(call, family, F::Role::kScale);
    const TensorDesc* zero = RoleTensor(call, family, F::Role::kOffset);
    if (family.has(F::Role::kAxis)) {
      made->per_channel = true;
      const int64_t given = RoleInt(call, family, F::Role::kAxis, 0);
      if (!WrapDim(given, rank, &axis)) {
        return plan.Reject(F::Role::kAxis, std::to_string(given) + " is outside [-" + std::to_string(rank) + ", " +
                                                std::to_string(rank) + ")");
      }
      for (int role : {int{F::Role::kScale}, int{F::Role::kOffset}}) {
        const TensorDesc* p = role == F::Role::kScale ? scale : zero;
        if (p->view.size() != 1 || p->view[0] != shape[axis]) {
          return plan.Reject(role, "shape " + DimsText(p->view) + " is not [" + std::to_string(shape[axis]) +
                                       "], self's size along axis");
        }
      }
    } else {
      for (int role : {int{F::Role::kScale}, int{F::Role::kOffset}}) {
        const TensorDesc* p = role == F::Role::kScale ? scale : zero;
        if (p->numel() != 1) return plan.Reject(role, "shape " + DimsText(p->view) + " is not one value");
      }
    }
    if (aclnnStatus s = plan.Channel(made, F::Role::kScale, kScale, shape, axis, false)) return s;
    if (aclnnStatus s = plan.Channel(made, F::Role::kOffset, kOffset, shape, axis, false)) return s;
    const TensorDesc* mask = RoleTensor(call, family, F::Role::kMask);
    if (!mask) return plan.Decline("without mask");
    if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kMask, *mask, shape, "self's shape", kMask)) return s;
  }
  if (op == F::Op::kAscendQuant || op == F::Op::kDynamicQuant) {
    const aclnnStatus s = plan.QuantisedOutput(made, *out, shape);
    if (s != ACLNN_SUCCESS || *work) return s;
  } else if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "x's shape", kOut)) {
    return s;
  }
  *work = made_owner.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
