// The format_cast family: aclnnNpuFormatCast, and the aclnnNpuFormatCastCalculateSizeAndFormat that
// shapes its destination (no two-phase API: written here, beside the kernel whose layout it states).
// torch_npu's npu_format_cast calls the two on Ascend950, where it runs aclnn alone (elsewhere its aclop
// TransData, the aclop bridge's Identity: on Atlas A2 it refuses a customize_dtype itself).
//   format_cast  a plain [batch..., M, N] (ND or NCL; NCHW and NCDHW too on Atlas A2/A3) into FRACTAL_NZ, storage [batch..., ceil(N / C0), ceil(M / 16),
//                16, C0] (fractal_nz.h's [X1, Y1, Y0, X0]) with its padding zero, or back; C0 = 32 bytes
//                over the size of additionalDtype (the page's rule), each element moved as it is.
// Between plain layouts of one shape (ND, NCHW, ...: the page's tables admit ND into ND) it is a copy.
// The page's other layouts (Atlas A2/A3's NC1HWC0, FRACTAL_Z, NDC1HWC0, FRACTAL_Z_3D) and
// FRACTAL_NZ_C0_16 (Ascend950's FRACTAL_NZ of FLOAT and INT32 with a FLOAT16 or BFLOAT16
// additionalDtype: the same [X1, Y1, 16, C0] with C0 = 16 elements, 64 bytes) is cast both ways;
// Ascend950's other C0s (2, 4, 32), C0_16 of 8-bit dtypes and its 4-bit rows are not modelled: refused
// by name (561003).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_sim/soc.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/fractal_nz.h"

namespace aclsim {
namespace {

using F = FormatCastFamily;
constexpr int kSrc = 0, kDst = 1;
constexpr const char* kPage = "aclnnNpuFormatCast.md";
constexpr int64_t kFractalRows = 16;  // Y0: a fractal's rows, whatever the dtype
constexpr int64_t kC0Of16 = 16;       // X0 of FRACTAL_NZ_C0_16: its name's 16 columns

class FormatCastWork final : public FamilyWork {
 public:
  explicit FormatCastWork(const char* api) : FamilyWork(api, 2) {}

  // Which side is FRACTAL_NZ (none: a copy between plain layouts), and its fractals.
  bool src_nz = false, dst_nz = false;
  NzLayout nz;
  int64_t rows = 0, cols = 0, batches = 1;  // the plain view's [batch..., M, N]

 private:
  aclnnStatus Compute() override {
    if (!src_nz && !dst_nz) {  // the same elements in another plain layout
      std::vector<char> values(static_cast<size_t>(tensor(kSrc).numel()) * ComputeSize(type));
      GatherAs(tensor(kSrc), type, values.data());
      ScatterFrom(values.data(), type, tensor(kDst));
      return ACLNN_SUCCESS;
    }
    // Each batch's matrix in its padded [Y1 * Y0, X1 * X0] (NzFractals' row-major order), zero where
    // the fractals pad it: gathered from the plain side and scattered to the fractals, or back.
    const size_t item = ComputeSize(type);
    const int64_t padded_cols = nz.x1 * nz.x0, block = nz.y1 * nz.y0 * padded_cols;
    std::vector<char> plain(static_cast<size_t>(batches * rows * cols) * item);
    std::vector<char> padded(static_cast<size_t>(batches * block) * item, 0);
    if (src_nz) GatherAs(NzFractals(tensor(kSrc), nz), type, padded.data());
    else GatherAs(tensor(kSrc), type, plain.data());
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < rows; ++i) {
        char* row_plain = plain.data() + static_cast<size_t>((b * rows + i) * cols) * item;
        char* row_padded = padded.data() + static_cast<size_t>(b * block + i * padded_cols) * item;
        const size_t bytes = static_cast<size_t>(cols) * item;
        if (src_nz) std::memcpy(row_plain, row_padded, bytes);
        else std::memcpy(row_padded, row_plain, bytes);
      }
    }
    if (dst_nz) ScatterFrom(padded.data(), type, NzFractals(tensor(kDst), nz));
    else ScatterFrom(plain.data(), type, tensor(kDst));
    return ACLNN_SUCCESS;
  }
};

// One row of the page's Ascend950 table of aclnnNpuFormatCastCalculateSizeAndFormat's combinations
// (约束说明): the source's dtype, whether it casts out of a FRACTAL_NZ format (else into it, ND standing
// for the plain layouts the page casts: ND, NCL), additionalDtype, the FRACTAL_NZ format of the row (the
// source's when out of it, the actualFormat the row answers when into it), and whether the simulator
// models it. It models FRACTAL_NZ with C0 = 32 bytes of additionalDtype, and FRACTAL_NZ_C0_16 of the
// 4-byte FLOAT and INT32 (C0 = 16 elements, the row's FLOAT16/BFLOAT16 additionalDtype's 32 bytes: the
// format's name); not the other C0s (2, 4, 32) nor the 4-bit dtypes' rows.
struct Combination {
  aclDataType src;
  bool from_nz;
  aclDataType additional;
  aclFormat nz;
  bool modelled;
};
constexpr aclFormat kNz = ACL_FORMAT_FRACTAL_NZ, kC16 = ACL_FORMAT_FRACTAL_NZ_C0_16, kC32 = ACL_FORMAT_FRACTAL_NZ_C0_32;
constexpr Combination kAscend950[] = {
    {ACL_INT8, false, ACL_INT8, kNz, true},
    {ACL_FLOAT16, false, ACL_FLOAT16, kNz, true},
    {ACL_BF16, false, ACL_BF16, kNz, true},
    {ACL_FLOAT8_E4M3FN, false, ACL_FLOAT8_E4M3FN, kNz, true},
    {ACL_HIFLOAT8, false, ACL_HIFLOAT8, kNz, true},
    {ACL_INT32, false, ACL_FLOAT16, kC16, true},
    {ACL_INT32, false, ACL_BF16, kC16, true},
    {ACL_FLOAT, false, ACL_FLOAT16, kC16, true},
    {ACL_FLOAT, false, ACL_BF16, kC16, true},
    {ACL_FLOAT, false, ACL_FLOAT8_E4M3FN, kC32, false},
    {ACL_FLOAT4_E2M1, false, ACL_FLOAT8_E4M3FN, kNz, false},
    {ACL_FLOAT4_E2M1, false, ACL_FLOAT4_E2M1, kNz, false},
    {ACL_FLOAT4_E1M2, false, ACL_FLOAT4_E1M2, kNz, false},
    {ACL_INT8, true, ACL_INT8, kNz, true},
    {ACL_UINT8, true, ACL_UINT8, kNz, true},
    {ACL_FLOAT8_E4M3FN, true, ACL_FLOAT8_E4M3FN, kNz, true},
    {ACL_FLOAT16, true, ACL_FLOAT16, kNz, true},
    {ACL_BF16, true, ACL_BF16, kNz, true},
    {ACL_INT32, true, ACL_INT32, kC16, true},
    {ACL_FLOAT, true, ACL_FLOAT, kC16, true},
    // torch_npu 2.13 casts a FRACTAL_NZ_C0_16 tensor back to ND (its copy to the host, a format cast to
    // ND) with the additionalDtype that made it (FLOAT16 for a float32 tensor, as into it), where the page
    // gives the source's own: the plain result does not depend on it, so those are admitted too.
    {ACL_INT32, true, ACL_FLOAT16, kC16, true},
    {ACL_INT32, true, ACL_BF16, kC16, true},
    {ACL_FLOAT, true, ACL_FLOAT16, kC16, true},
    {ACL_FLOAT, true, ACL_BF16, kC16, true},
    {ACL_FLOAT4_E2M1, true, ACL_FLOAT4_E2M1, kNz, false},
    {ACL_FLOAT4_E2M1, true, ACL_FLOAT4_E2M1, kC32, false},
    {ACL_INT8, true, ACL_INT8, kC16, false},
    {ACL_INT8, true, ACL_INT8, kC32, false},
    {ACL_UINT8, true, ACL_UINT8, kC16, false},
    {ACL_UINT8, true, ACL_UINT8, kC32, false},
    {ACL_INT32, true, ACL_INT32, kNz, false},
    {ACL_INT32, true, ACL_INT32, ACL_FORMAT_FRACTAL_NZ_C0_2, false},
    {ACL_INT32, true, ACL_INT32, ACL_FORMAT_FRACTAL_NZ_C0_4, false},
    {ACL_INT32, true, ACL_INT32, kC32, false},
    {ACL_FLOAT, true, ACL_FLOAT, kNz, false},
    {ACL_FLOAT, true, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ_C0_2, false},
    {ACL_FLOAT, true, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ_C0_4, false},
    {ACL_FLOAT, true, ACL_FLOAT, kC32, false},
};

// The FRACTAL_NZ formats of the page's tables (FRACTAL_NZ and its C0_2, _4, _16, _32 variants).
bool AnyNz(int format) {
  return format == ACL_FORMAT_FRACTAL_NZ || format == ACL_FORMAT_FRACTAL_NZ_C0_2 || format == ACL_FORMAT_FRACTAL_NZ_C0_4 ||
         format == ACL_FORMAT_FRACTAL_NZ_C0_16 || format == ACL_FORMAT_FRACTAL_NZ_C0_32;
}

// "format 29": the enumeration's value, as the page's tables give it beside the name.
std::string FormatText(int format) { return "format " + std::to_string(format); }

aclnnStatus Refuse(aclnnStatus status, const std::string& why) {
  return Fail(status, std::string("aclnnNpuFormatCastCalculateSizeAndFormat: ") + why + " (" + kPage + ")");
}

}  // namespace

// The FRACTAL_NZ formats the kernel reads and writes: FRACTAL_NZ, and FRACTAL_NZ_C0_16 (checked to be
// a 4-byte dtype's in fractals of 16 columns when planned).
bool ModelledNz(int format) { return format == ACL_FORMAT_FRACTAL_NZ || format == ACL_FORMAT_FRACTAL_NZ_C0_16; }

bool FormatCastReadsPrivateLayout(const Call&, const FamilySpec& family, int param, const TensorDesc& t) {
  return (param == family.role(F::Role::kSrc) || param == family.role(F::Role::kDst)) && ModelledNz(t.format);
}

aclnnStatus PlanFormatCast(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
  const TensorDesc* dst = RoleTensor(call, family, F::Role::kDst);
  if (!src || !dst) return Decline(call, work, "without its source or destination");
  const ParamRejecter reject(call, family);
  if (src->dtype != dst->dtype) {
    return reject(F::Role::kDst, std::string("dtype ") + DTypeName(dst->dtype) + " is not srcTensor's " + DTypeName(src->dtype));
  }
  if (src->view != dst->view) {
    return reject(F::Role::kDst, "view " + DimsText(dst->view) + " is not srcTensor's " + DimsText(src->view));
  }
  FormatCastWork* made = new FormatCastWork(call.spec.name);
  std::unique_ptr<FormatCastWork> owned(made);
  // Integers in int64 and the floating dtypes in float or double: every value moves unchanged.
  if (!FamilyComputeType(src->dtype, true, &made->type)) return DeclineDtype(call, work, src->dtype);
  made->src_nz = ModelledNz(src->format);
  made->dst_nz = ModelledNz(dst->format);
  made->tensor(kSrc).Set(RoleName(call, family, F::Role::kSrc), *src);
  made->tensor(kDst).Set(RoleName(call, family, F::Role::kDst), *dst);
  if (made->src_nz && made->dst_nz) return Decline(call, work, "from FRACTAL_NZ to FRACTAL_NZ");
  if (made->src_nz || made->dst_nz) {
    const int nz_role = made->dst_nz ? F::Role::kDst : F::Role::kSrc;
    const TensorDesc& stored = made->dst_nz ? *dst : *src;
    const std::string unread = ReadNz(stored, &made->tensor(made->dst_nz ? kDst : kSrc), &made->nz);
    if (!unread.empty()) return reject(nz_role, "FRACTAL_NZ " + unread);
    if (made->nz.transposed) return reject(nz_role, "FRACTAL_NZ of a transposed view is not a layout cast");
    if (made->nz.y0 != kFractalRows) {
      return reject(nz_role, "storage " + DimsText(stored.storage) + ": fractals of " + std::to_string(made->nz.y0) +
                                 " rows, not 16");
    }
    if (stored.format == ACL_FORMAT_FRACTAL_NZ_C0_16) {
      if (DTypeSize(stored.dtype) != 4) {
        return Decline(call, work, std::string("for FRACTAL_NZ_C0_16 of ") + DTypeName(stored.dtype) +
                                       " (the page's 8-bit rows of that format are not simulated; FLOAT and INT32 are)");
      }
      if (made->nz.x0 != kC0Of16) {
        return reject(nz_role, "storage " + DimsText(stored.storage) + ": FRACTAL_NZ_C0_16 fractals of " +
                                   std::to_string(made->nz.x0) + " columns, not 16");
      }
    }
    const Dims& view = src->view;
    made->rows = view[view.size() - 2];
    made->cols = view[view.size() - 1];
    for (int64_t d : made->nz.batch) made->batches *= d;
  }
  *work = owned.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim

// The destination aclnnNpuFormatCast writes: its storage shape (allocated here with new[], the
// caller's to free, as the page says) and its format.
extern "C" ACLSIM_EXPORT aclnnStatus aclnnNpuFormatCastCalculateSizeAndFormat(const aclTensor* srcTensor, const int dstFormat,
                                                                            const int additionalDtype, int64_t** dstShape,
                                                                            uint64_t* dstShapeSize, int* actualFormat) {
  using namespace aclsim;
  if (!srcTensor || !dstShape || !dstShapeSize || !actualFormat) {
    return Refuse(ACLNN_ERR_PARAM_NULLPTR, "srcTensor or an output pointer is null");
  }
  TensorDesc src;
  if (!GetTensor(srcTensor, &src)) return ACLNN_ERR_PARAM_NULLPTR;
  Soc soc;
  if (!SimulatedSoc(&soc)) return ACLNN_ERR_RUNTIME_ERROR;
  const bool a2_a3 = soc == Soc::kAscend910B || soc == Soc::kAscend910_93;
  if (soc != Soc::kAscend950 && !a2_a3) {
    return Refuse(ACLNN_ERR_RUNTIME_ERROR, std::string("not supported on ") + kSocNames[static_cast<int>(soc)] +
                                               ": the page supports Ascend950, Atlas A3 and Atlas A2 (产品型号不支持)");
  }
  const size_t rank = src.view.size();
  if (rank < 2 || rank > 6) return Refuse(ACLNN_ERR_PARAM_INVALID, "srcTensor's view " + DimsText(src.view) + " is not 2-6 dimensional");
  if (src.numel() == 0) return Refuse(ACLNN_ERR_PARAM_INVALID, "srcTensor is empty (shape " + DimsText(src.view) + ")");
  const aclDataType additional = additionalDtype == -1 ? src.dtype : static_cast<aclDataType>(additionalDtype);
  const aclFormat to = static_cast<aclFormat>(dstFormat);
  // The plain layouts the page casts to and from FRACTAL_NZ: ND and NCL on every product it supports
  // (torch_npu gives a 3-D tensor NCL), NCHW and NCDHW too on Atlas A2/A3 (superscript 1: not Ascend950).
  auto plain = [&](int format) {
    return format == ACL_FORMAT_ND || format == ACL_FORMAT_NCL ||
           (a2_a3 && (format == ACL_FORMAT_NCHW || format == ACL_FORMAT_NCDHW));
  };
  // Out of FRACTAL_NZ, or on Ascend950 out of any of its C0 variants (the table's rows say which it models).
  const bool from_plain = plain(src.format),
             from_nz = src.format == ACL_FORMAT_FRACTAL_NZ || (soc == Soc::kAscend950 && AnyNz(src.format));
  if (!((from_plain && to == ACL_FORMAT_FRACTAL_NZ) || (from_nz && plain(to)))) {
    // The formats the page's tables mark with superscript 1: not on Ascend950.
    auto not_on_950 = [](int format) {
      for (int f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_HWCN, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_DHWCN,
                    ACL_FORMAT_NDC1HWC0, ACL_FORMAT_FRACTAL_Z_3D, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z}) {
        if (format == f) return true;
      }
      return false;
    };
    if (soc == Soc::kAscend950 && (not_on_950(src.format) || not_on_950(dstFormat))) {
      return Refuse(ACLNN_ERR_PARAM_INVALID, "from " + FormatText(src.format) + " to " + FormatText(dstFormat) +
                                                 ": the page marks that format with superscript 1, unsupported on Ascend950");
    }
    return Refuse(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "from " + FormatText(src.format) + " to " + FormatText(dstFormat) +
                                                         " is not simulated (ND, NCL, NCHW, NCDHW <-> FRACTAL_NZ only)");
  }
  aclFormat actual = to;
  int64_t c0 = 32 / static_cast<int64_t>(DTypeSize(additional));
  if (soc == Soc::kAscend950) {
    const Combination* found = nullptr;
    for (const Combination& row : kAscend950) {
      if (row.src == src.dtype && row.from_nz == from_nz && row.additional == additional &&
          (!from_nz || row.nz == src.format)) {
        found = &row;
      }
    }
    const std::string what = std::string("srcTensor ") + DTypeName(src.dtype) + " in " + FormatText(src.format) + " to " +
                             FormatText(dstFormat) + " with additionalDtype " + std::to_string(additionalDtype);
    if (!found) return Refuse(ACLNN_ERR_PARAM_INVALID, what + " is no row of the page's Ascend950 table");
    if (!found->modelled) {
      return Refuse(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, what + " is a row of the page's Ascend950 table that is not "
                                                           "simulated (FRACTAL_NZ_C0_2/_C0_4/_C0_32, C0_16 of "
                                                           "8-bit dtypes, FRACTAL_NZ of 4-byte ones, or 4-bit)");
    }
    if (!from_nz) actual = found->nz;
    if (actual == ACL_FORMAT_FRACTAL_NZ_C0_16) c0 = kC0Of16;
  } else {
    // Atlas A2/A3: the page's table lists these dtypes for srcTensor and additionalDtype alike; a C0 of
    // another dtype's width than the source's (an INT32 tensor cast with a FLOAT16 C0, the page's own
    // example) is a row of the page the simulator does not model: not simulated, not a refusal of the page's.
    const auto listed = [](aclDataType d) {
      return d == ACL_INT8 || d == ACL_UINT8 || d == ACL_INT32 || d == ACL_UINT32 || d == ACL_FLOAT || d == ACL_FLOAT16 ||
             d == ACL_BF16;
    };
    const std::string what = std::string("srcTensor ") + DTypeName(src.dtype) + " with additionalDtype " +
                             std::to_string(additionalDtype);
    if (!listed(src.dtype) || !listed(additional)) {
      return Refuse(ACLNN_ERR_PARAM_INVALID, what + " is no row of the page's Atlas A2/A3 table");
    }
    if (DTypeSize(additional) != DTypeSize(src.dtype)) {
      return Refuse(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, what + " is a row of the page's Atlas A2/A3 table that is not "
                                                           "simulated (a C0 of another width than the source's)");
    }
  }
  Dims shape;
  if (to == ACL_FORMAT_FRACTAL_NZ) {
    const int64_t m = src.view[rank - 2], n = src.view[rank - 1];
    shape.assign(src.view.begin(), src.view.end() - 2);
    for (int64_t d : {(n + c0 - 1) / c0, (m + 15) / 16, int64_t{16}, c0}) shape.push_back(d);
  } else {
    shape = src.view;
  }
  int64_t* out = new int64_t[shape.size()];
  for (size_t d = 0; d < shape.size(); ++d) out[d] = shape[d];
  *dstShape = out;
  *dstShapeSize = shape.size();
  *actualFormat = static_cast<int>(actual);
  return ACLNN_SUCCESS;
}
