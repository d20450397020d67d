// The quant_matmul family: matrix products of quantised INT8 operands dequantised by per-column
// (and per-row) scales, and the packing of float scales into the UINT64/INT64 words those products
// read.
//   trans_quant_param  out = (bits(scale) & 0xFFFFE000) | 1 << 46 | (clamp(round(offset), -256, 255)
//                      & 0x1FF) << 37 (aclnnTransQuantParamV2/V3: the float's sign, exponent and
//                      top 10 mantissa bits in the low word, bit 46 set, a 9-bit offset in bits
//                      37-45 when one is given); scale and offset one value or one per element of
//                      out. V3's roundMode 1 (rounding the bits instead of truncating) is refused
//                      by name: the page does not say how a tie rounds.
//   quant_matmul       acc = x1 @ x2 exactly (INT8 operands, transposed or not, batch dimensions
//                      broadcast), out = (acc + bias) * scale * pertoken for an INT32 bias, else
//                      acc * scale * pertoken + bias, + offset, in float, to out's FLOAT16,
//                      BFLOAT16 or FLOAT32 (aclnnQuantMatmulV3/V4, torch_npu.npu_quant_matmul).
//                      scale one value or one per column n: FLOAT32/BFLOAT16 values, or UINT64/
//                      INT64 words read as aclnnTransQuantParamV2 packs them (the float of the low
//                      word's top 19 bits); pertoken one per row m.
//   dequant_bias       the same epilogue with acc = x1, the INT32 product itself [m, n]
//                      (aclnnDequantBias: weightScale per column, activateScaleOptional per row,
//                      outputDtype 1 FLOAT16 or 27 BFLOAT16).
//   FLOAT8          FLOAT8_E4M3FN/E5M2 operands (aclnnQuantMatmulV5 on Ascend950; their values exact in
//                   double, as INT8's): the same epilogue, a FLOAT bias added before a packed UINT64/INT64
//                   scale (the page's (x1@x2 + bias) * x2Scale) and after FLOAT scales (x1@x2 * x2Scale *
//                   x1Scale + bias). MX (FLOAT8_E8M0 x1Scale and x2Scale, groupSize [1, 1, 32]): each block
//                   of 32 along k's sum times its x1Scale[m, j] * x2Scale[j, n], j the block, the scales
//                   (m, ceil(k / 64), 2) and (ceil(k / 64), n, 2), block j at [j / 2][j % 2] (transposed:
//                   (ceil(k / 64), m, 2), (n, ceil(k / 64), 2)), then + bias.
//   INT4               INT4 operands (A4W4, aclnnQuantMatmulV5's K-C rows), read as CANN packs INT4
//                      (common/int4.h), or INT32 words of eight INT4 along their axis of stride 1 (the
//                      page's x1 (m, k / 8), x2 (k, n / 8): torch_npu's npu_quant_matmul of int32
//                      operands): the same exact product and epilogue.
// Refused by name (561003): INT32 operands whose words hold no common k (the suites' INT32 calls are plain
//                      (m, k) matrices, which the page's "每个INT32数据存放8个INT4数据" refuses: left declined
//                      rather than refused until the suites lay them out), INT4 beside INT8 (A8W4), HIFLOAT8 (no page defines its encoding),
// FLOAT4 and mixed FLOAT8 x FLOAT4 operands, batched MX products, an INT8 or INT32 out (requantisation
// rounds in ways the pages leave unstated), a bias over batches (3-d); the NZ weight format is declined
// before the family plans (phase 1's private layouts), a plain one of any label (ND, NCL, ...) read as ND.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/dtypes.h"
#include "common/int4.h"
#include "common/minifloat.h"
#include "opapi/families/family.h"
#include "opapi/families/quant_scale.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using Q = QuantMatmulFamily;

std::vector<float> Floats(const TensorRef& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  GatherAs(t, ComputeType::kFloat32, v.data());
  return v;
}

enum PackSlot { kPScale, kPOffset, kPOut, kPackSlots };

class PackWork final : public FamilyWork {
 public:
  explicit PackWork(const char* api) : FamilyWork(api, kPackSlots) {}
  bool has_offset = false;

 private:
  aclnnStatus Compute() override {
    const int64_t n = tensor(kPOut).numel();
    const std::vector<float> scale = Floats(tensor(kPScale));
    const std::vector<float> offset = has_offset ? Floats(tensor(kPOffset)) : std::vector<float>();
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const float s = scale[scale.size() == 1 ? 0 : static_cast<size_t>(i)];
      uint32_t bits;
      std::memcpy(&bits, &s, sizeof bits);
      uint64_t word = (static_cast<uint64_t>(bits) & 0xFFFFE000u) | (uint64_t{1} << 46);
      if (has_offset) {
        const float o = offset[offset.size() == 1 ? 0 : static_cast<size_t>(i)];
        const int64_t rounded = static_cast<int64_t>(std::fmin(std::fmax(std::nearbyint(o), -256.0f), 255.0f));
        word |= (static_cast<uint64_t>(rounded) & 0x1FFu) << 37;
      }
      out[static_cast<size_t>(i)] = static_cast<int64_t>(word);
    }
    ScatterFrom(out.data(), ComputeType::kInt64, tensor(kPOut));
    return ACLNN_SUCCESS;
  }
};

enum MatmulSlot { kMx1, kMx2, kMScale, kMOffset, kMPertoken, kMBias, kMOut, kMX3, kMatmulSlots };

class QuantMatmulWork final : public FamilyWork {
 public:
  explicit QuantMatmulWork(const char* api) : FamilyWork(api, kMatmulSlots) {}

  int64_t m = 0, k = 0, n = 0;
  Dims batch;                         // the output's batch dimensions
  Dims x1_batch_strides, x2_batch_strides;  // per batch dimension, in matrices (0: broadcast)
  bool product = true;  // false: x1 is the INT32 product already (dequant_bias)
  bool t1 = false, t2 = false, has_offset = false, has_pertoken = false, has_bias = false, int_bias = false;
  bool bias_first = false;  // the bias joins the product before the scales (an INT32 bias, or any with packed words)
  bool mx = false;          // per block of kMxBlock along k: the FLOAT8_E8M0 scale and pertoken (x1Scale) of each
  bool int4 = false;        // the operands are `int4_x1` and `int4_x2` (their slots hold the bytes they lie in)
  TensorDesc int4_x1, int4_x2;
  bool has_x3 = false;      // mc2's addend after the dequantisation (aclnnQuantMatmulAllReduce's x3), of the output's shape
  static constexpr int64_t kMxBlock = 32;

 private:
  aclnnStatus Compute() override {
    int64_t batches = 1;
    for (int64_t d : batch) batches *= d;
    if (batches == 0 || m == 0 || n == 0) return ACLNN_SUCCESS;
    // INT8, INT32 and FLOAT8 values are exact in double, and so are the products' sums at these sizes.
    std::vector<double> a(static_cast<size_t>(int4 ? int4_x1.numel() : tensor(kMx1).numel()));
    std::vector<double> b(product ? static_cast<size_t>(int4 ? int4_x2.numel() : tensor(kMx2).numel()) : 0);
    if (int4) {
      GatherInt4(int4_x1, a.data());
      GatherInt4(int4_x2, b.data());
    } else {
      GatherAs(tensor(kMx1), ComputeType::kFloat64, a.data());
      if (product) GatherAs(tensor(kMx2), ComputeType::kFloat64, b.data());
    }
    const std::vector<float> scale = ScaleValues(tensor(kMScale));
    const std::vector<float> offset = has_offset ? Floats(tensor(kMOffset)) : std::vector<float>();
    const std::vector<float> pertoken = has_pertoken ? Floats(tensor(kMPertoken)) : std::vector<float>();
    const std::vector<float> bias = has_bias && !int_bias ? Floats(tensor(kMBias)) : std::vector<float>();
    std::vector<double> int_bias_values(has_bias && int_bias ? static_cast<size_t>(tensor(kMBias).numel()) : 0);
    if (!int_bias_values.empty()) GatherAs(tensor(kMBias), ComputeType::kFloat64, int_bias_values.data());
    const std::vector<float> x3 = has_x3 ? Floats(tensor(kMX3)) : std::vector<float>();
    auto at = [](const std::vector<float>& v, int64_t j) { return v[v.size() == 1 ? 0 : static_cast<size_t>(j)]; };
    const int64_t blocks = (k + kMxBlock - 1) / kMxBlock, pairs = (blocks + 1) / 2;
    // Block kb's MX scales of row i (x1Scale) and column j (x2Scale) of the operands' matrices ma and mb, as
    // their layouts follow the transposes (a batched product's scales hold one such layout per matrix).
    auto x1_scale = [&](int64_t ma, int64_t i, int64_t kb) {
      return static_cast<double>(pertoken[static_cast<size_t>(
          ma * m * pairs * 2 + (t1 ? ((kb / 2) * m + i) * 2 + kb % 2 : (i * pairs + kb / 2) * 2 + kb % 2))]);
    };
    auto x2_scale = [&](int64_t mb, int64_t j, int64_t kb) {
      return static_cast<double>(scale[static_cast<size_t>(
          mb * n * pairs * 2 + (t2 ? (j * pairs + kb / 2) * 2 + kb % 2 : ((kb / 2) * n + j) * 2 + kb % 2))]);
    };
    std::vector<float> y(static_cast<size_t>(batches * m * n));
    ParallelFor(batches * m, [&](int64_t row) {
      const int64_t bi = row / m, i = row % m;
      // The operands' matrices for output batch bi (broadcast dimensions read matrix 0).
      int64_t rest = bi, ma = 0, mb = 0;
      for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
        const int64_t idx = rest % batch[d];
        rest /= batch[d];
        ma += idx * x1_batch_strides[d];
        mb += idx * x2_batch_strides[d];
      }
      const double* pa = a.data() + ma * m * k;
      const double* pb = b.data() + mb * k * n;
      auto dot = [&](int64_t j, int64_t from, int64_t to) {
        double acc = 0;
        for (int64_t kk = from; kk < to; ++kk) {
          acc += (t1 ? pa[kk * m + i] : pa[i * k + kk]) * (t2 ? pb[j * k + kk] : pb[kk * n + j]);
        }
        return acc;
      };
      for (int64_t j = 0; j < n; ++j) {
        float v;
        if (mx) {
          double acc = 0;
          for (int64_t kb = 0; kb < blocks; ++kb) {
            acc += dot(j, kb * kMxBlock, std::min(k, (kb + 1) * kMxBlock)) * x1_scale(ma, i, kb) * x2_scale(mb, j, kb);
          }
          v = static_cast<float>(acc);
          if (has_bias) v += at(bias, j);
          y[static_cast<size_t>(row * n + j)] = v;
          continue;
        }
        double acc = product ? dot(j, 0, k) : pa[i * n + j];
        if (has_bias && bias_first) {
          acc += int_bias ? int_bias_values[int_bias_values.size() == 1 ? 0 : static_cast<size_t>(j)] : at(bias, j);
        }
        v = static_cast<float>(acc) * at(scale, j);
        if (has_pertoken) v *= pertoken[static_cast<size_t>(i)];
        if (has_bias && !bias_first) v += at(bias, j);
        if (has_offset) v += at(offset, j);
        if (has_x3) v += x3[static_cast<size_t>(row * n + j)];
        y[static_cast<size_t>(row * n + j)] = v;
      }
    });
    ScatterFrom(y.data(), ComputeType::kFloat32, tensor(kMOut));
    return ACLNN_SUCCESS;
  }
};

// The tensor of `role` when given and not empty (op-plugin passes empty tensors for the
// optional inputs npu_quant_matmul leaves out: x1Offset, yOffset).
const TensorDesc* Given(const Call& call, const FamilySpec& family, int role) {
  const TensorDesc* t = RoleTensor(call, family, role);
  return t && t->numel() > 0 ? t : nullptr;
}

// One value, or one per element of `count` (any shape holding that many, as (n,) or (1, n)).
bool OneOrEach(const TensorDesc& t, int64_t count) { return t.numel() == 1 || t.numel() == count; }

aclnnStatus PlanPack(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* scale = RoleTensor(call, family, Q::Role::kScale);
  const TensorDesc* offset = RoleTensor(call, family, Q::Role::kOffset);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  if (!scale || !out) return Decline(call, work, "without its tensors");
  if (family.has(Q::Role::kRoundMode) && RoleInt(call, family, Q::Role::kRoundMode, 0) != 0) {
    return Decline(call, work, "for roundMode " + std::to_string(RoleInt(call, family, Q::Role::kRoundMode, 0)) +
                                   " (rounding the scale's bits: the page does not say how a tie rounds)");
  }
  if (out->dtype != ACL_UINT64 && out->dtype != ACL_INT64) {
    return Decline(call, work, std::string("for an out of dtype ") + DTypeName(out->dtype));
  }
  const int64_t count = out->numel();
  for (const TensorDesc* t : {scale, offset}) {
    if (t && !OneOrEach(*t, count)) {
      const int role = t == scale ? Q::Role::kScale : Q::Role::kOffset;
      return RejectInvalid(call, family, role,
                           "shape " + DimsText(t->view) + " is neither one value nor out's " + std::to_string(count));
    }
  }
  auto made = std::make_unique<PackWork>(call.spec.name);
  made->tensor(kPScale).Set(RoleName(call, family, Q::Role::kScale), *scale);
  if (offset) {
    made->tensor(kPOffset).Set(RoleName(call, family, Q::Role::kOffset), *offset);
    made->has_offset = true;
  }
  if (aclnnStatus s = made->KeepOutput(call, family, Q::Role::kOut, *out, out->view, "out's shape", kPOut)) return s;
  *work = made.release();
  return ACLNN_SUCCESS;
}

// The matrices' batch strides of an operand whose leading `own` dimensions broadcast to `batch`.
Dims BatchStrides(const Dims& own, const Dims& batch) {
  Dims strides(batch.size(), 0);
  int64_t step = 1;
  for (int64_t d = static_cast<int64_t>(own.size()) - 1, o = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d, --o) {
    strides[o] = own[d] == 1 ? 0 : step;
    step *= own[d];
  }
  return strides;
}

// The epilogue's tensors (scale, offset, pertoken, bias) for an [m, n] product; the output kept.
aclnnStatus PlanEpilogue(const Call& call, const FamilySpec& family, ExecutorWork** work, QuantMatmulWork* made,
                         const Dims& shape);

aclnnStatus PlanDequantBias(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x = RoleTensor(call, family, Q::Role::kX1);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  if (!x || !out || !RoleTensor(call, family, Q::Role::kScale)) return Decline(call, work, "without its tensors");
  if (x->dtype != ACL_INT32) return Decline(call, work, std::string("for x of dtype ") + DTypeName(x->dtype));
  if (x->view.size() != 2) {
    return RejectInvalid(call, family, Q::Role::kX1, "shape " + DimsText(x->view) + " is not [M, N]");
  }
  const int64_t dst = RoleInt(call, family, Q::Role::kDstType, 1);
  const aclDataType want = dst == 1 ? ACL_FLOAT16 : dst == 27 ? ACL_BF16 : ACL_DT_UNDEFINED;
  if (want == ACL_DT_UNDEFINED || out->dtype != want) {
    return RejectInvalid(call, family, Q::Role::kDstType,
                         std::to_string(dst) + " is not 1 (FLOAT16) or 27 (BFLOAT16) naming out's dtype " +
                             DTypeName(out->dtype));
  }
  auto made = std::make_unique<QuantMatmulWork>(call.spec.name);
  made->product = false;
  made->m = x->view[0];
  made->n = x->view[1];
  made->x1_batch_strides.clear();
  made->tensor(kMx1).Set(RoleName(call, family, Q::Role::kX1), *x);
  if (aclnnStatus s = PlanEpilogue(call, family, work, made.get(), x->view)) return s;
  if (*work) return ACLNN_SUCCESS;  // declined: the refusal's work stands
  *work = made.release();
  return ACLNN_SUCCESS;
}

aclnnStatus PlanProduct(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x1 = RoleTensor(call, family, Q::Role::kX1);
  const TensorDesc* x2 = RoleTensor(call, family, Q::Role::kX2);
  const TensorDesc* scale = RoleTensor(call, family, Q::Role::kScale);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  if (!x1 || !x2 || !scale || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  // INT4 operands, as INT4 or as INT32 words of eight along their axis of stride 1 (the page's "每个INT32数据
  // 存放8个INT4数据": x1 (m, k / 8), x2 (k, n / 8) or (n, k / 8) with transposeX2; op-plugin's A4W4, whose
  // transposed x2 is a view (k / 8, n) of stride 1 along k): from here on, their INT4 elements.
  TensorDesc x1_int4, x2_int4;
  const bool words = x1->dtype == ACL_INT32 && x2->dtype == ACL_INT32;
  const bool int4 = ((x1->dtype == ACL_INT4 && x2->dtype == ACL_INT4) || words) && AsInt4(*x1, &x1_int4) &&
                    AsInt4(*x2, &x2_int4);
  if (words && !int4) return Decline(call, work, "for INT32 operands with no axis of stride 1 (their words' axis is unknown)");
  if (words && RoleBool(call, family, Q::Role::kTransposeX1, false)) {
    return reject(Q::Role::kTransposeX1, "is true with INT32 x1 (the page: transposeX1为false)");
  }
  if (int4) {
    x1 = &x1_int4;
    x2 = &x2_int4;
  }
  // INT8 operands, or FLOAT8 ones (E4M3FN, E5M2: their values as the OCP formats define them), or INT4 ones.
  const bool floating = MiniFloatOf(x1->dtype) && !IsFloat4(x1->dtype);
  for (const TensorDesc* t : {x1, x2}) {
    const bool admitted = floating ? MiniFloatOf(t->dtype) && !IsFloat4(t->dtype) : t->dtype == (int4 ? ACL_INT4 : ACL_INT8);
    if (!admitted) {
      return Decline(call, work, std::string("for an operand of dtype ") + DTypeName(t->dtype) + " with x1 " +
                                     DTypeName(x1->dtype) +
                                     (t->dtype == ACL_HIFLOAT8 || x1->dtype == ACL_HIFLOAT8
                                          ? " (no page defines HIFLOAT8's encoding)"
                                          : ""));
    }
  }
  if (x1->view.size() < 2 || x2->view.size() < 2) {
    return reject(x1->view.size() < 2 ? Q::Role::kX1 : Q::Role::kX2, "has fewer than 2 dimensions");
  }
  if (family.has(Q::Role::kGroup)) {  // mc2's quantised all-reduce: one rank's is the identity
    if (aclnnStatus s = CheckOneRankGroup(call, family, Q::Role::kGroup, Q::Role::kReduceOp)) return s;
  }
  for (int role : {int{Q::Role::kX1Offset}, int{Q::Role::kYScale}, int{Q::Role::kYOffset}}) {
    if (Given(call, family, role)) {
      return Decline(call, work, std::string("with ") + RoleName(call, family, role) + " (not simulated)");
    }
  }
  // MX: FLOAT8_E8M0 scales of both operands, one per 32 elements along k (groupSize [1, 1, 32], or 0: the
  // one group size MX scales admit).
  const TensorDesc* pertoken = Given(call, family, Q::Role::kPertoken);
  const bool mx = scale->dtype == ACL_FLOAT8_E8M0 || (pertoken && pertoken->dtype == ACL_FLOAT8_E8M0);
  const int64_t group_size = family.has(Q::Role::kGroupSize) ? RoleInt(call, family, Q::Role::kGroupSize, 0) : 0;
  constexpr int64_t kMxGroupSize = (int64_t{1} << 32) | (int64_t{1} << 16) | QuantMatmulWork::kMxBlock;
  if (mx && (!floating || (group_size != 0 && group_size != kMxGroupSize))) {
    return reject(Q::Role::kGroupSize, "is " + std::to_string(group_size) + " with FLOAT8_E8M0 scales of " +
                                           DTypeName(x1->dtype) + " operands (MX: FLOAT8 operands, groupSize [1, 1, "
                                           "32] = " + std::to_string(kMxGroupSize) + " or 0)");
  }
  if (!mx && group_size != 0) {
    return Decline(call, work, "for groupSize " + std::to_string(group_size) + " (per-group scales are not simulated)");
  }
  auto made = std::make_unique<QuantMatmulWork>(call.spec.name);
  made->mx = mx;
  made->t1 = RoleBool(call, family, Q::Role::kTransposeX1, false);
  made->t2 = RoleBool(call, family, Q::Role::kTransposeX2, false);
  const Dims& a = x1->view;
  const Dims& b = x2->view;
  const size_t ra = a.size(), rb = b.size();
  made->m = made->t1 ? a[ra - 1] : a[ra - 2];
  made->k = made->t1 ? a[ra - 2] : a[ra - 1];
  const int64_t k2 = made->t2 ? b[rb - 1] : b[rb - 2];
  made->n = made->t2 ? b[rb - 2] : b[rb - 1];
  if (k2 != made->k && words) {
    // Plain INT32 matrices (the suites' INT32 calls) are no layout of the page's; left declined by name.
    return Decline(call, work, "for INT32 operands whose words do not hold one k (x1 " + DimsText(x1->view) +
                                   " and x2 " + DimsText(x2->view) + " as INT4: the page's x1 (m, k / 8) and x2 (k, n / 8))");
  }
  if (k2 != made->k) {
    return reject(Q::Role::kX2, "shape " + DimsText(b) + " does not have x1's k = " + std::to_string(made->k));
  }
  const Dims ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  const size_t rank = std::max(ba.size(), bb.size());
  Dims batch(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t da = d + ba.size() >= rank ? ba[d + ba.size() - rank] : 1;
    const int64_t db = d + bb.size() >= rank ? bb[d + bb.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      return reject(Q::Role::kX2, "batch dimensions " + DimsText(bb) + " do not broadcast with x1's " + DimsText(ba));
    }
    batch[d] = da == 1 ? db : da;
  }
  if (mx && rank != 0) return Decline(call, work, "for a batched MX product (its scales' batch layout is not simulated)");
  if (const TensorDesc* x3 = Given(call, family, Q::Role::kX3)) {
    if (mx) return Decline(call, work, "for x3 with MX scales (no page adds one)");
    Dims product = batch;
    product.push_back(made->m);
    product.push_back(made->n);
    if (x3->view != product) {
      return reject(Q::Role::kX3, "shape " + DimsText(x3->view) + " is not the output's " + DimsText(product));
    }
    made->tensor(kMX3).Set(RoleName(call, family, Q::Role::kX3), *x3);
    made->has_x3 = true;
  }
  made->batch = batch;
  made->x1_batch_strides = BatchStrides(ba, batch);
  made->x2_batch_strides = BatchStrides(bb, batch);
  made->int4 = int4;
  if (int4) {
    made->int4_x1 = *x1;
    made->int4_x2 = *x2;
  }
  made->tensor(kMx1).Set(RoleName(call, family, Q::Role::kX1), int4 ? Int4Bytes(*x1) : *x1);
  made->tensor(kMx2).Set(RoleName(call, family, Q::Role::kX2), int4 ? Int4Bytes(*x2) : *x2);
  Dims shape = batch;
  shape.push_back(made->m);
  shape.push_back(made->n);
  if (aclnnStatus s = PlanEpilogue(call, family, work, made.get(), shape)) return s;
  if (*work) return ACLNN_SUCCESS;  // declined: the refusal's work stands
  *work = made.release();
  return ACLNN_SUCCESS;
}

// MX's scales: x1Scale (pertoken) and x2Scale FLOAT8_E8M0 with the pairs of k's blocks of 32 as the
// page lays them out, the bias FLOAT (n,) added after; no offset.
aclnnStatus PlanMxEpilogue(const Call& call, const FamilySpec& family, ExecutorWork** work, QuantMatmulWork* made,
                           const Dims& shape) {
  const ParamRejecter reject(call, family);
  const TensorDesc* scale = RoleTensor(call, family, Q::Role::kScale);
  const TensorDesc* pertoken = Given(call, family, Q::Role::kPertoken);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  const int64_t pairs = ((made->k + QuantMatmulWork::kMxBlock - 1) / QuantMatmulWork::kMxBlock + 1) / 2;
  if (!pertoken) return reject(Q::Role::kPertoken, "is absent with FLOAT8_E8M0 x2Scale (MX takes both scales)");
  const Dims x1_layout = made->t1 ? Dims{pairs, made->m, 2} : Dims{made->m, pairs, 2};
  const Dims x2_layout = made->t2 ? Dims{made->n, pairs, 2} : Dims{pairs, made->n, 2};
  for (const auto& [role, t, layout] : {std::tuple{int{Q::Role::kPertoken}, pertoken, x1_layout},
                                        std::tuple{int{Q::Role::kScale}, scale, x2_layout}}) {
    if (t->dtype != ACL_FLOAT8_E8M0) {
      return reject(role, std::string("dtype ") + DTypeName(t->dtype) + " is not FLOAT8_E8M0 with the other scale's");
    }
    if (t->view != layout) {
      return reject(role, "shape " + DimsText(t->view) + " is not " + DimsText(layout) +
                              " (k's blocks of 32 in pairs, as the operand's transpose lays them)");
    }
  }
  if (Given(call, family, Q::Role::kOffset)) return Decline(call, work, "for an offset with MX scales (no page formula)");
  made->tensor(kMScale).Set(RoleName(call, family, Q::Role::kScale), *scale);
  made->tensor(kMPertoken).Set(RoleName(call, family, Q::Role::kPertoken), *pertoken);
  made->has_pertoken = true;
  if (const TensorDesc* bias = Given(call, family, Q::Role::kBias)) {
    if (bias->dtype != ACL_FLOAT || bias->numel() != made->n || bias->view.size() > 2) {
      return Decline(call, work, std::string("for an MX bias of dtype ") + DTypeName(bias->dtype) + " and shape " +
                                     DimsText(bias->view) + " (FLOAT (n,) or (1, n) is simulated)");
    }
    made->tensor(kMBias).Set(RoleName(call, family, Q::Role::kBias), *bias);
    made->has_bias = true;
  }
  return made->KeepOutput(call, family, Q::Role::kOut, *out, shape, "[m, n]", kMOut);
}

aclnnStatus PlanEpilogue(const Call& call, const FamilySpec& family, ExecutorWork** work, QuantMatmulWork* made,
                         const Dims& shape) {
  const ParamRejecter reject(call, family);
  const TensorDesc* scale = RoleTensor(call, family, Q::Role::kScale);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  if (out->dtype != ACL_FLOAT16 && out->dtype != ACL_BF16 && out->dtype != ACL_FLOAT) {
    return Decline(call, work, std::string("for an out of dtype ") + DTypeName(out->dtype) +
                                   " (requantisation to INT8 and the raw INT32 product are not simulated)");
  }
  const int64_t n = made->n, m = made->m;
  if (made->mx) return PlanMxEpilogue(call, family, work, made, shape);
  if (scale->dtype != ACL_FLOAT && scale->dtype != ACL_BF16 && scale->dtype != ACL_FLOAT16 &&
      scale->dtype != ACL_UINT64 && scale->dtype != ACL_INT64) {
    return Decline(call, work, std::string("for a scale of dtype ") + DTypeName(scale->dtype));
  }
  // One scale per column, or per column padded to a multiple of scale_align (the padding unread).
  const double align = RoleNumber(call, family, -1, Q::Option::kScaleAlign, 0);
  const int64_t padded = align >= 1 ? (n + static_cast<int64_t>(align) - 1) / static_cast<int64_t>(align) *
                                          static_cast<int64_t>(align)
                                    : n;
  if (scale->numel() != 1 && scale->numel() != padded) {
    return reject(Q::Role::kScale, "shape " + DimsText(scale->view) + " is not (1,) or (" + std::to_string(padded) + ",)");
  }
  made->tensor(kMScale).Set(RoleName(call, family, Q::Role::kScale), *scale);
  if (const TensorDesc* offset = Given(call, family, Q::Role::kOffset)) {
    if (!OneOrEach(*offset, n)) return reject(Q::Role::kOffset, "shape " + DimsText(offset->view) + " is not (1,) or (n,)");
    made->tensor(kMOffset).Set(RoleName(call, family, Q::Role::kOffset), *offset);
    made->has_offset = true;
  }
  if (const TensorDesc* pertoken = Given(call, family, Q::Role::kPertoken)) {
    if (pertoken->dtype != ACL_FLOAT && pertoken->dtype != ACL_BF16 && pertoken->dtype != ACL_FLOAT16) {
      return Decline(call, work, std::string("for a per-token scale of dtype ") + DTypeName(pertoken->dtype));
    }
    if (pertoken->numel() != m) return reject(Q::Role::kPertoken, "shape " + DimsText(pertoken->view) + " is not (m,)");
    made->tensor(kMPertoken).Set(RoleName(call, family, Q::Role::kPertoken), *pertoken);
    made->has_pertoken = true;
  }
  if (const TensorDesc* bias = Given(call, family, Q::Role::kBias)) {
    if (bias->view.size() != 1 || !OneOrEach(*bias, n)) {
      return Decline(call, work, "for a bias of shape " + DimsText(bias->view) + " (only (n,) is simulated)");
    }
    made->tensor(kMBias).Set(RoleName(call, family, Q::Role::kBias), *bias);
    made->has_bias = true;
    made->int_bias = bias->dtype == ACL_INT32;
    // The pages' (x1@x2 + bias) * x2Scale for packed words (an INT32 bias, or FLOAT8's FLOAT one).
    made->bias_first = made->int_bias || IsPackedScale(scale->dtype);
  }
  return made->KeepOutput(call, family, Q::Role::kOut, *out, shape, "[batch, m, n]", kMOut);
}

// aclnnTransposeQuantBatchMatMul: x1 (M, B, K) seen as (B, M, K) by permX1 [1, 0, 2]; x2 (B, K, N) as itself
// by permX2 [0, 1, 2], or (B, N, K) as (B, K, N) by [0, 2, 1] (read transposed, as transposeX2 reads it); each
// batch's product as PlanProduct's, the (B, M, N) result put into out (M, B, N) by permY [1, 0, 2]: the
// page's one value of permX1 and permY, its two of permX2 (K-C's [0, 1, 2] alone). K-C: FLOAT32 x1Scale
// (M,) and x2Scale (N,), K 512 and N 128, the page's only sizes. MX: FLOAT8_E4M3FN operands, FLOAT8_E8M0
// x1Scale (M, B, K/64, 2) seen as (B, M, K/64, 2) and x2Scale (B, K/64, N, 2), or (B, N, K/64, 2) with x2
// transposed, K a multiple of 64, groupSize's M and N 0 or 1 and K 0 or 32 (a 0 inferred from the scales'
// shapes is that value). T-C (HIFLOAT8 operands or out) is declined: no page defines HIFLOAT8's encoding.
aclnnStatus PlanTransposeProduct(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const TensorDesc* x1 = RoleTensor(call, family, Q::Role::kX1);
  const TensorDesc* x2 = RoleTensor(call, family, Q::Role::kX2);
  const TensorDesc* x2_scale = Given(call, family, Q::Role::kScale);
  const TensorDesc* x1_scale = Given(call, family, Q::Role::kPertoken);
  const TensorDesc* out = RoleTensor(call, family, Q::Role::kOut);
  if (!x1 || !x2 || !out) return Decline(call, work, "without its tensors");
  const ParamRejecter reject(call, family);
  for (const TensorDesc* t : {x1, x2, out}) {
    if (t->dtype == ACL_HIFLOAT8) {
      return Decline(call, work, std::string("for a HIFLOAT8 ") + (t == out ? "out" : t == x1 ? "x1" : "x2") +
                                     " (T-C: no page defines HIFLOAT8's encoding)");
    }
  }
  const int64_t dst = RoleInt(call, family, Q::Role::kDstType, 27);
  const aclDataType want = dst == 1 ? ACL_FLOAT16 : dst == 27 ? ACL_BF16 : ACL_DT_UNDEFINED;
  if (want == ACL_DT_UNDEFINED || out->dtype != want) {
    return reject(Q::Role::kDstType, std::to_string(dst) + " is not 1 (FLOAT16) or 27 (BFLOAT16) naming out's dtype " +
                                         DTypeName(out->dtype));
  }
  const int64_t split = RoleInt(call, family, Q::Role::kBatchSplit, 1);
  if (split != 1) return reject(Q::Role::kBatchSplit, "is " + std::to_string(split) + ", not 1 (the page's one value)");
  for (const TensorDesc* t : {x1, x2, out}) {
    if (t->view.size() != 3) {
      return reject(t == x1 ? Q::Role::kX1 : t == x2 ? Q::Role::kX2 : Q::Role::kOut,
                    "shape " + DimsText(t->view) + " is not 3-d");
    }
  }
  const bool mx = (x2_scale && x2_scale->dtype == ACL_FLOAT8_E8M0) || (x1_scale && x1_scale->dtype == ACL_FLOAT8_E8M0);
  const Dims swap{1, 0, 2}, keep{0, 1, 2}, transposed{0, 2, 1};
  Dims perm_x1, perm_x2, perm_y;
  RoleInts(call, family, Q::Role::kPermX1, &perm_x1);
  RoleInts(call, family, Q::Role::kPermX2, &perm_x2);
  RoleInts(call, family, Q::Role::kPermY, &perm_y);
  if (perm_x1 != swap) return reject(Q::Role::kPermX1, DimsText(perm_x1) + " is not [1, 0, 2]");
  if (perm_y != swap) return reject(Q::Role::kPermY, DimsText(perm_y) + " is not [1, 0, 2]");
  if (perm_x2 != keep && (perm_x2 != transposed || !mx)) {
    return reject(Q::Role::kPermX2, DimsText(perm_x2) + (mx ? " is not [0, 1, 2] or [0, 2, 1]" : " is not [0, 1, 2] (K-C)"));
  }
  const bool t2 = perm_x2 == transposed;
  const int64_t m = x1->view[0], batches = x1->view[1], k = x1->view[2];
  const int64_t n = t2 ? x2->view[1] : x2->view[2];
  if (x2->view[0] != batches || (t2 ? x2->view[2] : x2->view[1]) != k) {
    return reject(Q::Role::kX2, "shape " + DimsText(x2->view) + " does not have x1's B = " + std::to_string(batches) +
                                    " and K = " + std::to_string(k));
  }
  const int64_t group_size = RoleInt(call, family, Q::Role::kGroupSize, 0);
  auto made = std::make_unique<QuantMatmulWork>(call.spec.name);
  if (mx) {
    for (const TensorDesc* t : {x1, x2}) {
      if (t->dtype != ACL_FLOAT8_E4M3FN) {
        return reject(t == x1 ? Q::Role::kX1 : Q::Role::kX2,
                      std::string("dtype ") + DTypeName(t->dtype) + " is not FLOAT8_E4M3FN (MX)");
      }
    }
    if (k % 64 != 0) return reject(Q::Role::kX1, "K = " + std::to_string(k) + " is not a multiple of 64 (MX)");
    const int64_t gk = group_size & 0xFFFF, gn = (group_size >> 16) & 0xFFFF, gm = (group_size >> 32) & 0xFFFF;
    if (gm > 1 || gn > 1 || (gk != 0 && gk != QuantMatmulWork::kMxBlock)) {
      return reject(Q::Role::kGroupSize, "[" + std::to_string(gm) + ", " + std::to_string(gn) + ", " +
                                             std::to_string(gk) + "] is not MX's [0 or 1, 0 or 1, 0 or 32]");
    }
    const int64_t pairs = k / 64;
    const Dims x2_layout = t2 ? Dims{batches, n, pairs, 2} : Dims{batches, pairs, n, 2};
    for (const auto& [role, t, layout] : {std::tuple{int{Q::Role::kPertoken}, x1_scale, Dims{m, batches, pairs, 2}},
                                          std::tuple{int{Q::Role::kScale}, x2_scale, x2_layout}}) {
      if (!t || t->dtype != ACL_FLOAT8_E8M0) {
        return reject(role, std::string(t ? "dtype " : "absent: dtype ") + DTypeName(t ? t->dtype : ACL_DT_UNDEFINED) +
                                " is not FLOAT8_E8M0 with the other scale's (MX)");
      }
      if (t->view != layout) {
        return reject(role, "shape " + DimsText(t->view) + " is not " + DimsText(layout) + " (MX)");
      }
    }
  } else {
    if (group_size != 0) {
      return Decline(call, work, "for groupSize " + std::to_string(group_size) + " with K-C scales (the page admits 0)");
    }
    if (k != 512 || n != 128) {
      return reject(Q::Role::kX2, "K = " + std::to_string(k) + " and N = " + std::to_string(n) +
                                      " are not K-C's only 512 and 128");
    }
    for (const auto& [role, t, count] : {std::tuple{int{Q::Role::kPertoken}, x1_scale, m},
                                         std::tuple{int{Q::Role::kScale}, x2_scale, n}}) {
      if (!t || t->dtype != ACL_FLOAT || t->view != Dims{count}) {
        return reject(role, t ? std::string("dtype ") + DTypeName(t->dtype) + " and shape " + DimsText(t->view) +
                                    " are not K-C's FLOAT32 (" + std::to_string(count) + ",)"
                              : std::string("is absent (K-C: FLOAT32 (") + std::to_string(count) + ",))");
      }
    }
  }
  made->mx = mx;
  made->t2 = t2;
  made->m = m;
  made->k = k;
  made->n = n;
  made->batch = Dims{batches};
  made->x1_batch_strides = made->x2_batch_strides = Dims{1};
  made->has_pertoken = true;
  made->tensor(kMx1).Set(RoleName(call, family, Q::Role::kX1), *x1);
  made->tensor(kMx1) = made->tensor(kMx1).Permuted(swap.data());
  made->tensor(kMx2).Set(RoleName(call, family, Q::Role::kX2), *x2);
  made->tensor(kMScale).Set(RoleName(call, family, Q::Role::kScale), *x2_scale);
  made->tensor(kMPertoken).Set(RoleName(call, family, Q::Role::kPertoken), *x1_scale);
  if (mx) {
    const int64_t scale_swap[] = {1, 0, 2, 3};
    made->tensor(kMPertoken) = made->tensor(kMPertoken).Permuted(scale_swap);
  }
  if (aclnnStatus s = made->KeepOutput(call, family, Q::Role::kOut, *out, Dims{m, batches, n}, "(M, B, N)", kMOut)) {
    return s;
  }
  made->tensor(kMOut) = made->tensor(kMOut).Permuted(swap.data());
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus PlanQuantMatmul(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  *work = nullptr;  // PlanEpilogue's refusals leave their work here
  if (family.op == Q::Op::kTransQuantParam) return PlanPack(call, family, work);
  if (family.op == Q::Op::kDequantBias) return PlanDequantBias(call, family, work);
  if (family.op == Q::Op::kTransposeQuantBatchMatmul) return PlanTransposeProduct(call, family, work);
  return PlanProduct(call, family, work);
}

}  // namespace aclsim
