// Phase 1 of every generated API (aclnnXxxGetWorkspaceSize): CANN's argument checks in CANN's
// order, driven by the API's generated spec, then the executor.
//
//   1. a required pointer is null                            161001 (before any other check, as
//      CANN's CheckNotNull comes first; optional and reserved parameters may be null; an output
//      CheckNotNull does not check fails last, 561103: gen.conventions.inner_null_outputs)
//   2. the page marks the simulated chip unsupported         161002
//   3. a reserved parameter (预留参数) is not null
//   4. a dtype outside the page's list for the chip (ACL_DT_UNDEFINED always; an aclScalar's only
//      where the error table names it: the spec's list is then kAnyDType); a format the page does
//      not list; dtypes that are no row of the page's dtype-combination table; formats that must agree
//      (a dtype whose error row gives another status, ParamSpec::dtype_status, is checked after 10.)
//   5. a rank outside the page's bounds
//   6. an empty tensor where the page forbids it (empty tensors pass unless the page says otherwise)
//   7. shape relations (same shape; broadcast), shape rules a host argument decides, dimensions
//      equal to another tensor's (all of these answer the page's shape rows' status,
//      ApiSpec::shape_status, 161002 by default), dimensions that must divide
//   8. array lengths, value ranges of host arguments (dim in [-rank, rank), index bounds), values that must divide
//   9. dtype relations (same dtype; promotion 互推导关系; castability 互转换关系)
//  10. the semantics file's value checks                      (their own status)
//   then the kernel's own preconditions, the executor and the workspace size.
// Every rejection sets aclGetRecentErrMsg to a message naming the API, the parameter and the rule
// (and, for the cross-parameter rules of opapi/rules.cpp, the page line).
//
// A valid call allocates nothing here once its thread has made a call of the same shape: the
// parameters live in the thread's reused Params, dimensions inline (Dims), lists of parameters
// in bit masks and fixed arrays, and messages (with their names) are built only to reject.
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/dtypes.h"
#include "common/internal.h"
#include "ascendcl/settings.h"
#include "opapi/call.h"
#include "opapi/elementwise.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"
#include "opapi/rules.h"
#include "opapi/work.h"

namespace aclsim {
namespace {

const char* FormatName(int format) {
  switch (format) {
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case aclnn_bindgen::kFormatDHWCN: return "DHWCN";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
    case ACL_FORMAT_FRACTAL_NZ_C0_16: return "FRACTAL_NZ_C0_16";
    case ACL_FORMAT_FRACTAL_NZ_C0_32: return "FRACTAL_NZ_C0_32";
    case ACL_FORMAT_FRACTAL_NZ_C0_2: return "FRACTAL_NZ_C0_2";
    case ACL_FORMAT_FRACTAL_NZ_C0_4: return "FRACTAL_NZ_C0_4";
    case ACL_FORMAT_FRACTAL_NZ_C0_8: return "FRACTAL_NZ_C0_8";
    default: return "UNDEFINED";
  }
}

std::string MaskNames(uint64_t mask, const char* (*name)(int)) {
  std::string out;
  for (int bit = 0; bit < 64; ++bit) {
    if (mask & (uint64_t{1} << bit)) out += (out.empty() ? "" : ", ") + std::string(name(bit));
  }
  return out;
}

std::string ShapeText(const Dims& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// "a, b and c": the parameters named by `indices`, in that order.
std::string NameList(const ApiSpec& spec, const int* indices, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    out += (i == 0 ? "" : i + 1 == count ? " and " : ", ") + std::string(spec.params[indices[i]].name);
  }
  return out;
}

const DTypeOverride* OverrideFor(const ParamSpec& p, Soc soc) {
  for (uint8_t i = 0; i < p.dtypes_by_soc_count; ++i) {
    if (p.dtypes_by_soc[i].soc == soc) return &p.dtypes_by_soc[i];
  }
  return nullptr;
}

uint64_t DTypesFor(const ParamSpec& p, Soc soc) {
  const DTypeOverride* chip = OverrideFor(p, soc);
  return chip ? chip->dtypes : p.dtypes;
}

bool InMask(uint64_t mask, int value) { return value >= 0 && value < 64 && (mask & (uint64_t{1} << value)); }

// The parameter indices of `mask` below `count`, in increasing order, written to `out`.
size_t Members(uint64_t mask, int count, int* out) {
  if (count < 64) mask &= (uint64_t{1} << count) - 1;
  size_t n = 0;
  for (; mask; mask &= mask - 1) out[n++] = __builtin_ctzll(mask);
  return n;
}

// The broadcast shape of `shapes`, folded pairwise with the one two-shape rule (views.h); false when
// they do not broadcast.
bool BroadcastShapes(const Dims* const* shapes, size_t count, Dims* out) {
  out->clear();
  for (size_t k = 0; k < count; ++k) {
    Dims joint;
    if (!BroadcastShape(*out, *shapes[k], &joint)) return false;
    *out = std::move(joint);
  }
  return true;
}

// The dtype a parameter carries, for the dtype relations (tensors and scalars).
bool DTypeOf(const Call& call, int index, aclDataType* dtype) {
  const Call::Param& p = call.params[index];
  if (!p.present) return false;
  switch (call.spec.params[index].kind) {
    case ParamKind::kTensor: *dtype = p.tensor.dtype; return true;
    case ParamKind::kScalar: *dtype = p.scalar.dtype; return true;
    default: return false;
  }
}

const Dims* ShapeOf(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return p.present && call.spec.params[index].kind == ParamKind::kTensor ? &p.tensor.view : nullptr;
}

// Names an argument in a message ("gradOutput", "tensors[2]"), built only for the message.
struct Who {
  const char* name;
  int item;  // the element of a list, or -1
  std::string str() const { return item < 0 ? std::string(name) : std::string(name) + "[" + std::to_string(item) + "]"; }
};

bool IsInput(const ParamSpec& p) { return p.direction != Direction::kOut; }
bool IsOutput(const ParamSpec& p) { return p.direction != Direction::kIn; }

// --- the steps ---------------------------------------------------------------------------------

aclnnStatus CheckChip(const ApiSpec& spec, Soc soc) {
  for (uint8_t i = 0; i < spec.product_count; ++i) {
    const ProductSpec& product = spec.products[i];
    if (product.soc == soc && !product.supported) {
      return Fail(spec.chip_status ? spec.chip_status : ACLNN_ERR_PARAM_INVALID,
                  std::string(spec.name) + " is not supported on " + SocName(soc) +
                                               ": the page marks " + product.name +
                                               " unsupported" + Where(spec, product.line));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckNulls(const ApiSpec& spec, const Arg* args, const uint64_t* workspaceSize,
                       aclOpExecutor* const* executor) {
  for (uint8_t i = 0; i < spec.param_count; ++i) {
    const ParamSpec& p = spec.params[i];
    if (IsPointer(p.kind) && !p.optional && !p.null_status && !args[i].pointer) {
      return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(spec.name) + ": " + p.name + " is a null pointer");
    }
  }
  if (!workspaceSize) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(spec.name) + ": workspaceSize is a null pointer");
  if (!executor) return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(spec.name) + ": executor is a null pointer");
  return ACLNN_SUCCESS;
}

// A NULL output that CANN's CheckNotNull lets through (ParamSpec::null_status): the op computes into
// a tensor it creates and fails copying it into the NULL, after every other check.
aclnnStatus CheckUncheckedNulls(const Call& call) {
  for (uint8_t i = 0; i < call.spec.param_count; ++i) {
    const ParamSpec& p = call.spec.params[i];
    if (p.null_status && !call.args[i].pointer) {
      return call.Fail(p.null_status, std::string(p.name) + " is a null pointer: the result cannot be copied into it");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDTypeIn(const Call& call, const ParamSpec& p, const Who& who, int dtype) {
  // The page's status for this parameter's dtype where its error table gives another (ParamSpec::dtype_status).
  const aclnnStatus status = p.dtype_status ? p.dtype_status : ACLNN_ERR_PARAM_INVALID;
  if (dtype == ACL_DT_UNDEFINED) {
    // CANN's dtype check rejects an undefined dtype as an invalid parameter, whatever the page lists.
    return call.Fail(status, who.str() + ": dtype ACL_DT_UNDEFINED is not a data type");
  }
  const uint64_t allowed = DTypesFor(p, call.soc);
  if (allowed == kAnyDType || InMask(allowed, dtype)) return ACLNN_SUCCESS;
  // A dtype the row lists and a note under the table takes away from this chip: the note is the rule.
  const DTypeOverride* chip = OverrideFor(p, call.soc);
  const bool noted = chip && chip->line && (p.dtypes == kAnyDType || InMask(p.dtypes, dtype));
  return call.Fail(status, who.str() + ": dtype " + DTypeName(dtype) + " is not supported on " + SocName(call.soc) +
                               " (supported: " + MaskNames(allowed, DTypeName) + ")" +
                               Where(call.spec, noted ? chip->line : p.line));
}

aclnnStatus CheckFormatIn(const Call& call, const ParamSpec& p, const Who& who, int format) {
  if (p.formats == kAnyFormat || InMask(p.formats, format)) return ACLNN_SUCCESS;
  return call.Fail(ACLNN_ERR_PARAM_INVALID, who.str() + ": format " + FormatName(format) +
                                                " is not supported (supported: " + MaskNames(p.formats, FormatName) + ")" +
                                                Where(call.spec, p.line));
}

template <typename Fn>
aclnnStatus ForEachTensor(const Call& call, Fn&& fn) {
  for (uint8_t i = 0; i < call.spec.param_count; ++i) {
    const ParamSpec& p = call.spec.params[i];
    const Call::Param& value = call.params[i];
    if (!value.present) continue;
    if (p.kind == ParamKind::kTensor) {
      if (aclnnStatus s = fn(p, Who{p.name, -1}, value.tensor)) return s;
    } else if (p.kind == ParamKind::kTensorList) {
      for (size_t k = 0; k < value.tensors.size(); ++k) {
        if (!value.tensor_infos[k].present) continue;
        if (aclnnStatus s = fn(p, Who{p.name, static_cast<int>(k)}, value.tensors[k])) return s;
      }
    }
  }
  return ACLNN_SUCCESS;
}

// The dtypes of the parameters whose dtype errors have the status `late` says: 161002's first,
// the others (ParamSpec::dtype_status, the checks of a later stage) after every other check.
aclnnStatus CheckDTypes(const Call& call, bool late) {
  if (aclnnStatus s = ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) {
        // A list's element of shape [0] is op-plugin's stand-in for an absent tensor (aclnnIndex's
        // and aclnnIndexPutImpl's "dimension taken whole", made with the input's dtype): CANN's
        // kernels skip it, so its dtype is not the list's.
        if (who.item >= 0 && t.view.size() == 1 && t.view[0] == 0) return aclnnStatus{ACLNN_SUCCESS};
        if ((p.dtype_status != 0) != late) return aclnnStatus{ACLNN_SUCCESS};
        return CheckDTypeIn(call, p, who, t.dtype);
      })) {
    return s;
  }
  for (uint8_t i = 0; i < call.spec.param_count; ++i) {
    const ParamSpec& p = call.spec.params[i];
    const Call::Param& value = call.params[i];
    if (!value.present || (p.dtype_status != 0) != late) continue;
    aclnnStatus s = ACLNN_SUCCESS;
    if (p.kind == ParamKind::kScalar) {
      s = CheckDTypeIn(call, p, Who{p.name, -1}, value.scalar.dtype);
    } else if (p.kind == ParamKind::kDType) {
      s = CheckDTypeIn(call, p, Who{p.name, -1}, static_cast<int>(call.args[i].integer));
    } else if (p.kind == ParamKind::kScalarList) {
      for (size_t k = 0; k < value.scalars.size() && !s; ++k) {
        s = CheckDTypeIn(call, p, Who{p.name, static_cast<int>(k)}, value.scalars[k].dtype);
      }
    }
    if (s) return s;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDTypesAndFormats(const Call& call) {
  if (aclnnStatus s = CheckDTypes(call, /*late=*/false)) return s;
  return ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) {
    return CheckFormatIn(call, p, who, t.format);
  });
}

// Whether two formats agree as "数据格式需要与self一致" means: the same format, or two plain layouts
// (ND, NCHW, NHWC, ...): a page that lists ND accepts every plain layout, so ND and NCHW are one
// memory layout to CANN's format checks; a private format (NC1HWC0, FRACTAL_NZ) agrees only with itself.
bool FormatsAgree(int a, int b) { return a == b || (InMask(kPlainFormats, a) && InMask(kPlainFormats, b)); }

// Tensors whose formats the page says must agree ("数据格式需要与self一致") do not.
aclnnStatus CheckFormatRelations(const Call& call) {
  const ApiSpec& spec = call.spec;
  int members[64];
  for (int i = 0; i < spec.param_count; ++i) {
    const Dims* shape = ShapeOf(call, i);
    if (!shape || !spec.params[i].same_format) continue;
    const int format = call.params[i].tensor.format;
    const size_t count = Members(spec.params[i].same_format, spec.param_count, members);
    for (size_t m = 0; m < count; ++m) {
      const int other = members[m];
      if (!ShapeOf(call, other) || FormatsAgree(call.params[other].tensor.format, format)) continue;
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[i].name) + ": format " + FormatName(format) +
                                                    " differs from " + spec.params[other].name + "'s format " +
                                                    FormatName(call.params[other].tensor.format) + " (they must be the same)" +
                                                    Where(spec, spec.params[i].line));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckRanks(const Call& call) {
  return ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) -> aclnnStatus {
    const int64_t rank = static_cast<int64_t>(t.view.size());
    if (p.rank_min < 0 || (rank >= p.rank_min && rank <= p.rank_max)) return ACLNN_SUCCESS;
    // The page's status for it where its error table gives another (aclnnIsInf: 561002).
    const aclnnStatus status = call.spec.rank_status ? call.spec.rank_status : ACLNN_ERR_PARAM_INVALID;
    return call.Fail(status, who.str() + ": rank " + std::to_string(rank) + " is outside [" +
                                                  std::to_string(p.rank_min) + ", " + std::to_string(p.rank_max) + "]" +
                                                  Where(call.spec, p.rank_line ? p.rank_line : p.line));
  });
}

aclnnStatus CheckEmpty(const Call& call) {
  return ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) -> aclnnStatus {
    if (p.empty != EmptyTensor::kForbidden || t.numel() != 0) return ACLNN_SUCCESS;
    // The page's status for it where its error table gives another (aclnnRepeatInterleaveGrad's
    // "repeats为空tensor时" is 561002, its tiling's check).
    const aclnnStatus status = call.spec.empty_status ? call.spec.empty_status : ACLNN_ERR_PARAM_INVALID;
    return call.Fail(status, who.str() + ": empty tensors are not supported (shape " +
                                                  ShapeText(t.view) + ")" + Where(call.spec, p.line));
  });
}

// Tensors whose ranks the page says must agree ("维度需要与self和gradInput一致") do not; each member of a
// tensor list ("TensorList中每个输出tensor的维度与self的维度一致") is held to it.
aclnnStatus CheckRankRelations(const Call& call) {
  const ApiSpec& spec = call.spec;
  int members[64];
  return ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) -> aclnnStatus {
    const size_t count = Members(p.same_rank, spec.param_count, members);
    for (size_t m = 0; m < count; ++m) {
      const Dims* o = ShapeOf(call, members[m]);
      if (!o || o->size() == t.view.size()) continue;
      return call.Fail(ShapeStatus(spec), who.str() + ": rank " + std::to_string(t.view.size()) + " (shape " +
                                              ShapeText(t.view) + ") differs from " + spec.params[members[m]].name +
                                              "'s rank " + std::to_string(o->size()) + " (they must be the same)" +
                                              Where(spec, p.line));
    }
    return ACLNN_SUCCESS;
  });
}

// The mask of `related` widened by the inputs that broadcast with (or share the shape of) an
// input already in it, the relation read on either side. An output whose notes relate it to one
// input has the broadcast of every input that input broadcasts with (MishBackward: gradInput
// "shape需要与gradOutput满足broadcast关系", gradOutput "shape需要与self满足broadcast关系").
uint64_t BroadcastClosure(const ApiSpec& spec, uint64_t related) {
  const int count = spec.param_count < 64 ? spec.param_count : 64;
  uint64_t inputs = 0;
  for (int i = 0; i < count; ++i) {
    if (IsInput(spec.params[i])) inputs |= uint64_t{1} << i;
  }
  uint64_t reached = related;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < count; ++i) {
      const uint64_t bit = uint64_t{1} << i;
      if (!(inputs & bit)) continue;
      const uint64_t input_links = (spec.params[i].broadcast | spec.params[i].same_shape) & inputs;
      uint64_t next = reached;
      if (reached & bit) next |= input_links;
      if (reached & input_links) next |= bit;
      if (next != reached) {
        reached = next;
        grew = true;
      }
    }
  }
  return reached;
}

aclnnStatus CheckShapeRelations(const Call& call) {
  const ApiSpec& spec = call.spec;
  int members[64];
  for (int i = 0; i < spec.param_count; ++i) {
    const ParamSpec& p = spec.params[i];
    const Dims* shape = ShapeOf(call, i);
    if (!shape) continue;
    const size_t same = Members(p.same_shape, spec.param_count, members);
    for (size_t m = 0; m < same; ++m) {
      const int other = members[m];
      const Dims* o = ShapeOf(call, other);
      if (o && *o != *shape) {
        return call.Fail(ShapeStatus(spec), std::string(p.name) + ": shape " + ShapeText(*shape) + " differs from " +
                                                      spec.params[other].name + "'s shape " + ShapeText(*o) +
                                                      " (they must be the same)" + Where(spec, p.line));
      }
    }
    const size_t related =
        Members(IsOutput(p) && p.broadcast ? BroadcastClosure(spec, p.broadcast) : p.broadcast, spec.param_count, members);
    if (related == 0) continue;
    // Outputs must be the broadcast shape of their related inputs; an input must broadcast with
    // its related inputs, and to its related outputs.
    const Dims* inputs[65];
    int input_names[65];
    size_t count = 0;
    if (IsInput(p)) {
      inputs[count] = shape;
      input_names[count++] = i;
    }
    for (size_t m = 0; m < related; ++m) {
      const Dims* o = ShapeOf(call, members[m]);
      if (o && IsInput(spec.params[members[m]])) {
        inputs[count] = o;
        input_names[count++] = members[m];
      }
    }
    // Operands of one shape (most calls) broadcast to that shape: nothing to build.
    bool uniform = count > 0;
    for (size_t k = 1; uniform && k < count; ++k) uniform = *inputs[k] == *inputs[0];
    Dims built;
    if (!uniform && !BroadcastShapes(inputs, count, &built)) {
      std::string shapes;
      for (size_t k = 0; k < count; ++k) shapes += (k ? ", " : "") + ShapeText(*inputs[k]);
      return call.Fail(ShapeStatus(spec), "the shapes of " + NameList(spec, input_names, count) + " (" + shapes +
                                                    ") do not broadcast (broadcast关系)" + Where(spec, p.line));
    }
    const Dims& broadcast = uniform ? *inputs[0] : built;
    if (IsOutput(p) && count > 0 && broadcast != *shape) {
      return call.Fail(ShapeStatus(spec), std::string(p.name) + ": shape " + ShapeText(*shape) +
                                                    " is not the broadcast shape " + ShapeText(broadcast) + " of " +
                                                    NameList(spec, input_names, count) + " (broadcast关系)" + Where(spec, p.line));
    }
    if (IsInput(p)) {
      for (size_t m = 0; m < related; ++m) {
        const int other = members[m];
        const Dims* o = ShapeOf(call, other);
        if (!o || IsInput(spec.params[other]) || *o == broadcast) continue;  // the same shape broadcasts to itself
        const Dims* pair[2] = {&broadcast, o};
        Dims joint;
        if (!BroadcastShapes(pair, 2, &joint) || joint != *o) {
          return call.Fail(ShapeStatus(spec), std::string(p.name) + ": shape " + ShapeText(*shape) +
                                                        " does not broadcast to " + spec.params[other].name +
                                                        "'s shape " + ShapeText(*o) + " (broadcast关系)" +
                                                        Where(spec, p.line));
        }
      }
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckDTypeRelations(const Call& call) {
  const ApiSpec& spec = call.spec;
  int members[64];
  for (int i = 0; i < spec.param_count; ++i) {
    const ParamSpec& p = spec.params[i];
    aclDataType dtype;
    if (!DTypeOf(call, i, &dtype)) continue;
    size_t count = Members(p.same_dtype, spec.param_count, members);
    for (size_t m = 0; m < count; ++m) {
      const int other = members[m];
      aclDataType o;
      if (DTypeOf(call, other, &o) && o != dtype) {
        return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + ": dtype " + DTypeName(dtype) + " differs from " +
                                                      spec.params[other].name + "'s dtype " + DTypeName(o) +
                                                      " (they must be the same)" + Where(spec, p.line));
      }
    }
    aclDataType promoted = dtype;
    count = Members(p.promote, spec.param_count, members);
    for (size_t m = 0; m < count; ++m) {
      const int other = members[m];
      aclDataType o;
      if (!DTypeOf(call, other, &o)) continue;
      if (!PromoteTypes(promoted, o, &promoted)) {
        return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + ": dtype " + DTypeName(dtype) + " and " +
                                                      spec.params[other].name + "'s dtype " + DTypeName(o) +
                                                      " have no promoted dtype (互推导关系)");
      }
    }
    count = Members(p.cast_from, spec.param_count, members);
    bool have = false;
    int named[64];
    size_t named_count = 0;
    for (size_t m = 0; m < count; ++m) {
      const int other = members[m];
      aclDataType o;
      if (!DTypeOf(call, other, &o)) continue;
      named[named_count++] = other;
      if (!have) {
        promoted = o;
        have = true;
      } else if (!PromoteTypes(promoted, o, &promoted)) {
        return call.Fail(ACLNN_ERR_PARAM_INVALID, "the dtypes of " + NameList(spec, named, named_count) +
                                                      " have no promoted dtype (互推导关系)");
      }
    }
    // An input only read ("self：数据类型需要是与exponent的数据类型推导之后可转换的数据类型", aclnnPowTensorScalar)
    // is cast to nothing: the page asks that it deduce with the others (checked above, its own dtype
    // included), and the castability is the written parameters' (out, selfRef). Read as a cast,
    // torch.pow(int32 tensor, 0.5) would be refused where the page's out row allows FLOAT.
    if (have && !IsOutput(p) && !PromoteTypes(promoted, dtype, &promoted)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + ": dtype " + DTypeName(dtype) + " and the dtypes of " +
                                                    NameList(spec, named, named_count) + " have no promoted dtype (互推导关系)");
    }
    if (have && IsOutput(p) && !CanCast(promoted, dtype)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + ": dtype " + DTypeName(dtype) +
                                                    " is not castable from the promoted dtype " + DTypeName(promoted) +
                                                    " of " + NameList(spec, named, named_count) + " (互转换关系)");
    }
  }
  return ACLNN_SUCCESS;
}

// --- the kernel ---------------------------------------------------------------------------------

}  // namespace

// The compute type for the promoted input dtype, or false when the engine cannot compute it.
bool ChooseComputeType(aclDataType promoted, IntegerMath math, ComputeType* type) {
  switch (promoted) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: *type = ComputeType::kFloat32; return true;
    case ACL_DOUBLE: *type = ComputeType::kFloat64; return true;
    case ACL_COMPLEX64: case ACL_COMPLEX32: *type = ComputeType::kComplex64; return true;
    case ACL_COMPLEX128: *type = ComputeType::kComplex128; return true;
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: case ACL_INT16:
      *type = math == IntegerMath::kExact ? ComputeType::kInt64 : ComputeType::kFloat32;
      return true;
    case ACL_INT32: case ACL_INT64: case ACL_UINT16: case ACL_UINT32: case ACL_UINT64:
      *type = math == IntegerMath::kExact ? ComputeType::kInt64 : ComputeType::kFloat64;
      return true;
    default: return false;
  }
}

const char* ComputeTypeName(ComputeType type) {
  switch (type) {
    case ComputeType::kFloat32: return "float";
    case ComputeType::kFloat64: return "double";
    case ComputeType::kInt64: return "int64";
    case ComputeType::kComplex64: return "complex<float>";
    case ComputeType::kComplex128: return "complex<double>";
  }
  return "?";
}

namespace {

// Phase 1's last step: what the executor will run. Statuses other than success are phase-1
// rejections; a kernel that cannot compute these arguments yields a NotSimulatedWork instead.
// The constant an absent input reads (AbsentInput), in the compute type: static storage, which
// outlives every work that reads it.
struct AbsentValue {
  const void* data;
  aclDataType dtype;
};

AbsentValue AbsentValueOf(AbsentInput absent, ComputeType type) {
  static constexpr float kFloatBounds[2] = {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
  static constexpr double kDoubleBounds[2] = {-std::numeric_limits<double>::infinity(),
                                              std::numeric_limits<double>::infinity()};
  static constexpr int64_t kIntBounds[2] = {std::numeric_limits<int64_t>::lowest(), std::numeric_limits<int64_t>::max()};
  const int high = absent == AbsentInput::kHighest ? 1 : 0;
  switch (type) {
    case ComputeType::kFloat64: return {&kDoubleBounds[high], ACL_DOUBLE};
    case ComputeType::kInt64: return {&kIntBounds[high], ACL_INT64};
    default: return {&kFloatBounds[high], ACL_FLOAT};
  }
}

aclnnStatus PlanKernel(Call& call, std::unique_ptr<ExecutorWork>* work, uint64_t* workspace) {
  const ApiSpec& spec = call.spec;
  *workspace = 0;
  auto not_simulated = [&](const std::string& why) {
    *work = std::make_unique<NotSimulatedWork>(spec.name, why);
    return ACLNN_SUCCESS;
  };
  // Every kernel, elementwise or family, reads its tensors as plain layouts through their view
  // shape and strides: a tensor stored in a private layout (NC1HWC0, FRACTAL_NZ), which a page may
  // accept, would be read in the wrong order. Phase 1 accepts what the page accepts; the work
  // refuses, naming the tensor and its layout, unless its family reads that layout itself
  // (FamilyReadsPrivateLayout: the matmul family's FRACTAL_NZ weight).
  std::string private_layout;
  ForEachTensor(call, [&](const ParamSpec& p, const Who& who, const TensorDesc& t) {
    if (InMask(kPlainFormats, t.format) || t.format == ACL_FORMAT_UNDEFINED) return ACLNN_SUCCESS;
    if (spec.family && FamilyReadsPrivateLayout(call, static_cast<int>(&p - spec.params), t)) return ACLNN_SUCCESS;
    private_layout = "for " + who.str() + "'s private format " + FormatName(t.format) +
                     " (the simulator's kernels read plain layouts only)";
    return ACLNN_ERR_PARAM_INVALID;  // stops the walk at the first one
  });
  if (!private_layout.empty()) return not_simulated(private_layout);
  if (spec.family) return PlanFamily(call, work, workspace);  // opapi/families/
  if (!spec.kernel) return not_simulated(spec.not_simulated ? spec.not_simulated : "");
  const KernelSpec& kernel = *spec.kernel;
  const int out_index = kernel.output;
  if (!call.params[out_index].present) return not_simulated(std::string("when ") + spec.params[out_index].name + " is absent");
  int inputs[64];
  const size_t count = Members(kernel.inputs, spec.param_count, inputs);
  if (count > ElementwiseWork::kMaxInputs) return not_simulated("with more than 15 inputs to one kernel");
  // The inputs given; an absent one reads the constant its semantics state (kernel.absent).
  int given[64];
  size_t given_count = 0;
  for (size_t k = 0; k < count; ++k) {
    if (call.params[inputs[k]].present) {
      given[given_count++] = inputs[k];
    } else if (!kernel.absent || kernel.absent[k] == AbsentInput::kRefused) {
      return not_simulated(std::string("when ") + spec.params[inputs[k]].name + " is absent");
    }
  }

  // The elementwise kernel's own precondition: the output is the broadcast shape of the inputs.
  const TensorDesc& out = call.params[out_index].tensor;
  const Dims* shapes[ElementwiseWork::kMaxInputs];
  for (size_t k = 0; k < given_count; ++k) shapes[k] = &call.params[given[k]].tensor.view;
  Dims broadcast;
  if (!BroadcastShapes(shapes, given_count, &broadcast)) {
    return call.Fail(ShapeStatus(spec), "the shapes of " + NameList(spec, given, given_count) + " do not broadcast");
  }
  if (given_count > 0 && broadcast != out.view) {
    return call.Fail(ShapeStatus(spec), std::string(spec.params[out_index].name) + ": shape " + ShapeText(out.view) +
                                                  " is not the broadcast shape " + ShapeText(broadcast) + " of " +
                                                  NameList(spec, given, given_count));
  }

  // The compute type: the inputs' promoted dtype; a floating scalar lifts integral inputs to
  // FLOAT, as PyTorch's wrapped numbers do.
  aclDataType promoted = given_count == 0 ? out.dtype : call.params[given[0]].tensor.dtype;
  for (size_t k = 0; k < given_count; ++k) {
    if (!PromoteTypes(promoted, call.params[given[k]].tensor.dtype, &promoted)) {
      return not_simulated("for the dtypes of " + NameList(spec, given, given_count) + " (no promoted dtype)");
    }
  }
  // The result is written in the output's dtype: it must be castable from the inputs' promoted
  // dtype (互转换关系), as pages state whether or not their notes relate the two ("out的数据类型
  // 需要是self可转换的数据类型", aclnnNeg).
  // The kernel's result dtype rule may change it (a true division's FLOAT, |z|'s real dtype, a
  // comparison's BOOL).
  const aclDataType result = aclnn_bindgen::ResultDType(kernel.result_rule, promoted);
  if (given_count > 0 && !CanCast(result, out.dtype)) {
    return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[out_index].name) + ": dtype " + DTypeName(out.dtype) +
                                                  " is not castable from the " + (result == promoted ? "promoted" : "result") +
                                                  " dtype " + DTypeName(result) + " of " + NameList(spec, given, given_count) +
                                                  " (互转换关系)");
  }
  // A complex result of real inputs (result = "complex": aclnnComplex) is computed in complex arithmetic.
  if (const DTypeInfo* r = FindDType(result); r && r->category == DTypeCategory::kComplex) promoted = result;
  const DTypeInfo* info = FindDType(promoted);
  // A complex scalar cannot be cast to a real computation (互转换关系: no narrowing from complex;
  // aclnnAdd's error row "alpha无法转换为self和other推导后的数据类型").
  if (info && info->category != DTypeCategory::kComplex) {
    for (int i = 0; i < spec.param_count; ++i) {
      const Call::Param& p = call.params[i];
      if (spec.params[i].kind != ParamKind::kScalar || !p.present) continue;
      const DTypeInfo* s = FindDType(p.scalar.dtype);
      if (s && s->category == DTypeCategory::kComplex) {
        return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[i].name) + ": a " + DTypeName(p.scalar.dtype) +
                                                      " scalar cannot be cast to the computation's dtype " +
                                                      DTypeName(promoted));
      }
    }
  }
  if (info && (info->category == DTypeCategory::kBool || info->category == DTypeCategory::kSigned ||
               info->category == DTypeCategory::kUnsigned)) {
    for (int i = 0; i < spec.param_count; ++i) {
      const Call::Param& p = call.params[i];
      if (spec.params[i].kind == ParamKind::kScalar && p.present) {
        const DTypeInfo* s = FindDType(p.scalar.dtype);
        if (s && s->category == DTypeCategory::kFloating) promoted = ACL_FLOAT;
      }
    }
  }
  // A scalar operand is taken in the promoted dtype where the kernel computes in it: CANN converts
  // the scalar to the promoted dtype, and PyTorch casts its wrapped number to the common dtype. A
  // FLOAT16/BFLOAT16 comparison compares with the scalar rounded to that dtype (a float16 0.1 equals
  // 0.1 on both; in float32 arithmetic it would not); an integral scalar with integer tensors is
  // wrapped to their dtype when the kernel compares in it or gives a result of it (uint8 > -1
  // compares with 255, int32 == 2**32 + 3 with 3; a true division's FLOAT result takes the scalar itself).
  const bool compares = kernel.result_rule == aclnn_bindgen::ResultRule::kBool;
  const DTypeInfo* integer = FindDType(promoted);
  const bool rounds = compares && (promoted == ACL_FLOAT16 || promoted == ACL_BF16);
  const bool wraps = integer && (integer->category == DTypeCategory::kSigned || integer->category == DTypeCategory::kUnsigned) &&
                     (result == promoted || compares);
  for (int i = 0; (rounds || wraps) && i < spec.param_count; ++i) {
    Call::Param& p = call.params[i];
    if (spec.params[i].kind != ParamKind::kScalar || !p.present) continue;
    if (rounds) {
      p.scalar_double = RoundedToFloating16(promoted, static_cast<float>(p.scalar_double));
      continue;
    }
    const DTypeInfo* s = FindDType(p.scalar.dtype);
    if (!s || s->category == DTypeCategory::kFloating || s->category == DTypeCategory::kComplex) continue;
    p.scalar_int = WrappedToInteger(*integer, p.scalar_int);
    p.scalar_double = static_cast<double>(p.scalar_int);
  }
  ComputeType type;
  if (!ChooseComputeType(promoted, kernel.integer_math, &type)) {
    return not_simulated(std::string("for dtype ") + DTypeName(promoted));
  }
  // A floating result of integers (the result rule made an integral promoted dtype FLOAT; a
  // complex one's FLOAT is |z|'s) is computed in FLOAT, its dtype, as PyTorch computes it (INT32
  // 2147483647 is 2^31 there: sin of it is sin(2^31), not double's sin(2^31 - 1)).
  if (result == ACL_FLOAT && promoted != ACL_FLOAT && info && info->category != DTypeCategory::kComplex) {
    type = ComputeType::kFloat32;
  }
  for (size_t k = 0; k < given_count; ++k) {
    if (!Loadable(call.params[given[k]].tensor.dtype)) {
      return not_simulated(std::string("for dtype ") + DTypeName(call.params[given[k]].tensor.dtype) + " of " +
                           spec.params[given[k]].name);
    }
  }
  if (!Convertible(out.dtype)) {
    return not_simulated(std::string("for dtype ") + DTypeName(out.dtype) + " of " + spec.params[out_index].name);
  }
  if (given_count < count && (type == ComputeType::kComplex64 || type == ComputeType::kComplex128)) {
    return not_simulated("in complex arithmetic with an input absent");
  }
  BoundKernel bound = kernel.bind(type, call);
  if (!bound.block) return not_simulated(std::string("in ") + ComputeTypeName(type) + " arithmetic");

  auto elementwise = std::make_unique<ElementwiseWork>(spec.name, bound, count);
  elementwise->type = type;
  elementwise->shape = out.view;
  elementwise->SetTensor(-1, spec.params[out_index].name, out, out.view.size());
  for (size_t k = 0; k < count; ++k) {
    const char* name = spec.params[inputs[k]].name;
    if (call.params[inputs[k]].present) {
      elementwise->SetTensor(static_cast<int>(k), name, call.params[inputs[k]].tensor, out.view.size());
    } else {
      const AbsentValue value = AbsentValueOf(kernel.absent[k], type);
      elementwise->SetConstant(static_cast<int>(k), name, value.data, value.dtype, out.view.size());
    }
  }
  if (out.numel() > 0 && !elementwise->IsDirect()) *workspace = kConversionWorkspace;
  *work = std::move(elementwise);
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus GetWorkspaceSize(const ApiSpec& spec, const Arg* args, uint64_t* workspaceSize, aclOpExecutor** executor) {
  if (!Settings().valid()) return Fail(ACLNN_ERR_RUNTIME_ERROR, std::string(spec.name) + ": " + Settings().error);
  if (int32_t held = TakeHeldRefusal(spec.name)) return held;
  Soc soc;
  if (!SimulatedSoc(&soc)) return Fail(ACLNN_ERR_RUNTIME_ERROR, std::string(spec.name) + ": " + aclGetRecentErrMsg());
  if (aclnnStatus s = CheckNulls(spec, args, workspaceSize, executor)) return s;
  if (!AclopKernelOnEveryChip()) {
    if (aclnnStatus s = CheckChip(spec, soc)) return s;
  }
  *executor = nullptr;
  *workspaceSize = 0;
  Call call(spec, args, soc);
  if (aclnnStatus s = call.Resolve()) return s;
  if (aclnnStatus s = CheckReserved(call)) return s;
  if (aclnnStatus s = CheckDTypesAndFormats(call)) return s;
  if (aclnnStatus s = CheckCombinations(call)) return s;
  if (aclnnStatus s = CheckFormatRelations(call)) return s;
  if (aclnnStatus s = CheckRanks(call)) return s;
  if (aclnnStatus s = CheckEmpty(call)) return s;
  if (aclnnStatus s = CheckShapeRelations(call)) return s;
  if (aclnnStatus s = CheckRankRelations(call)) return s;
  if (aclnnStatus s = CheckShapeRules(call)) return s;
  if (aclnnStatus s = CheckValueRules(call)) return s;
  if (aclnnStatus s = CheckDTypeRelations(call)) return s;
  if (spec.checks) {
    if (aclnnStatus s = spec.checks(call)) return s;
  }
  if (aclnnStatus s = CheckDTypes(call, /*late=*/true)) return s;
  if (aclnnStatus s = CheckUncheckedNulls(call)) return s;
  std::unique_ptr<ExecutorWork> work;
  uint64_t workspace = 0;
  if (aclnnStatus s = PlanKernel(call, &work, &workspace)) return s;
  AddressSet addresses;
  for (const Call::Param& param : call.params) {
    if (!param.present) continue;
    addresses.Add(param.tensor.data);
    for (const TensorDesc& t : param.tensors) addresses.Add(t.data);
  }
  *executor = CreateExecutor(spec.name, workspace, addresses, std::move(work));
  *workspaceSize = workspace;
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
