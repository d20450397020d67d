// The foreach family: an API's elementwise kernel (its semantics' `kernel`, the same functor and
// engine a single-tensor API runs) applied to member i of every list, for each i.
//
// The kernel's element inputs are the API's tensor lists (member i), its scalar lists (value i,
// read at every element), and its plain tensors (a one-element "scalar tensor", broadcast); its
// output is member i of the output list (the in-place APIs write the list they are given). Each
// member is one run of the elementwise engine (opapi/elementwise.cpp: strides, offsets, dtype
// conversions, threads); the work checks every member's memory before it writes any.
//
// Phase 1 checks what the pages state across lists and what the kernel needs: lists of one
// length, member i of every list of one shape, and the output's castable
// from their promoted dtype.
//
// The norm op (aclnnForeachNorm) is a reduction, not a kernel: each member's p-norm, in double.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/work.h"

namespace aclsim {
namespace {

using F = ForeachFamily;

class ForeachWork : public ExecutorWork {
 public:
  aclnnStatus Run(aclrtStream) override {
    for (const auto& member : members) {
      if (aclnnStatus s = member->CheckTensors()) return s;
    }
    for (const auto& member : members) member->Compute();
    return ACLNN_SUCCESS;
  }

  std::vector<std::unique_ptr<ElementwiseWork>> members;
  // The scalar lists' values the kernels read (reserved before any is taken: their addresses hold).
  std::vector<ScalarValue> constants;
};

// One element input of the kernel: what it reads for member i.
struct Input {
  int param;
  ParamKind kind;
  const Call::Param* value;
};

bool IsFloating(aclDataType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info && info->category == DTypeCategory::kFloating;
}

bool IsIntegral(aclDataType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info && (info->category == DTypeCategory::kBool || info->category == DTypeCategory::kSigned ||
                  info->category == DTypeCategory::kUnsigned);
}

std::string Member(const char* name, size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// Each member's p-norm, accumulated in double, into out's member (one element).
class NormWork final : public FamilyWork {
 public:
  NormWork(const char* api, int members, double p) : FamilyWork(api, 2 * members), members_(members), p_(p) {}

 private:
  aclnnStatus Compute() override {
    for (int i = 0; i < members_; ++i) {
      const TensorRef& x = tensor(2 * i);
      const int64_t n = x.numel();
      const double* v = static_cast<const double*>(ContiguousAs(x, ComputeType::kFloat64, 0));
      double norm = 0;
      if (std::isinf(p_)) {
        for (int64_t k = 0; k < n; ++k) norm = std::isnan(v[k]) || std::fabs(v[k]) > norm ? std::fabs(v[k]) : norm;
      } else if (p_ == 0) {
        for (int64_t k = 0; k < n; ++k) norm += v[k] != 0;
      } else {
        for (int64_t k = 0; k < n; ++k) norm += p_ == 1 ? std::fabs(v[k]) : p_ == 2 ? v[k] * v[k] : std::pow(std::fabs(v[k]), p_);
        norm = p_ == 1 ? norm : p_ == 2 ? std::sqrt(norm) : std::pow(norm, 1 / p_);
      }
      ScatterFrom(&norm, ComputeType::kFloat64, tensor(2 * i + 1));
    }
    return ACLNN_SUCCESS;
  }

  int members_;
  double p_;
};

aclnnStatus PlanNorm(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const std::vector<TensorDesc>* x = RoleTensorList(call, family, F::Role::kX);
  const std::vector<TensorDesc>* out = RoleTensorList(call, family, F::Role::kOut);
  if (!x || !out) return Decline(call, work, "without its input and output lists");
  if (x->size() != out->size()) {
    return RejectInvalid(call, family, F::Role::kOut,
                         "holds " + std::to_string(out->size()) + " tensors for " + std::to_string(x->size()) + " inputs");
  }
  const double p = RoleNumber(call, family, F::Role::kP, -1, 2);
  if (p < 0) return Decline(call, work, "for a negative p (" + std::to_string(p) + ")");
  for (size_t i = 0; i < x->size(); ++i) {
    const TensorDesc& o = (*out)[i];
    if (o.numel() != 1) {
      return RejectInvalid(call, family, F::Role::kOut,
                           "member " + std::to_string(i) + ": shape " + DimsText(o.view) + " is not one element");
    }
    for (aclDataType dtype : {(*x)[i].dtype, o.dtype}) {
      const DTypeInfo* info = FindDType(dtype);
      if (!Convertible(dtype) || !info || info->category == DTypeCategory::kComplex) {
        return DeclineDtype(call, work, dtype);
      }
    }
  }
  NormWork* made = new NormWork(call.spec.name, static_cast<int>(x->size()), p);
  for (size_t i = 0; i < x->size(); ++i) {
    made->tensor(static_cast<int>(2 * i)).Set(RoleName(call, family, F::Role::kX), (*x)[i]);
    made->tensor(static_cast<int>(2 * i + 1)).Set(RoleName(call, family, F::Role::kOut), (*out)[i]);
  }
  *work = made;
  return ACLNN_SUCCESS;
}


// add_n, max_n and min_n: the members of one list folded element by element into one tensor (out,
// the members' broadcast shape; AddN's page: the members of one shape), in the members' compute
// type (float for FLOAT16/BFLOAT16, int64 for integers, so integral sums are exact until out's
// cast); max/min propagate NaN as torch.maximum/minimum do. An empty list leaves an empty out.
class ListFoldWork final : public FamilyWork {
 public:
  ListFoldWork(const char* api, int members, int8_t op) : FamilyWork(api, members + 1), members_(members), op_(op) {}

 private:
  template <typename T>
  void Fold() {
    const TensorRef& out = tensor(members_);
    const int64_t n = out.numel();
    T* acc = static_cast<T*>(Scratch(0, static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T)));
    GatherAs(tensor(0), type, acc);
    T* next = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T)));
    for (int m = 1; m < members_; ++m) {
      GatherAs(tensor(m), type, next);
      for (int64_t i = 0; i < n; ++i) {
        const T a = acc[i], b = next[i];
        if (op_ == F::Op::kAddN) {
          acc[i] = a + b;
        } else if (a != a || b != b) {  // NaN (floating only) wins
          acc[i] = a != a ? a : b;
        } else {
          acc[i] = op_ == F::Op::kMaxN ? (b > a ? b : a) : (b < a ? b : a);
        }
      }
    }
    ScatterFrom(acc, type, out);
  }

  aclnnStatus Compute() override {
    if (members_ == 0 || tensor(members_).numel() == 0) return ACLNN_SUCCESS;
    WithFamilyType(type, [&](auto zero) { Fold<decltype(zero)>(); });
    return ACLNN_SUCCESS;
  }

  int members_;
  int8_t op_;
};

aclnnStatus PlanListFold(const Call& call, const FamilySpec& family, ExecutorWork** work) {
  const std::vector<TensorDesc>* x = RoleTensorList(call, family, F::Role::kX);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  if (!x || !out) return Decline(call, work, "without its input list and output");
  Dims shape;
  aclDataType dtype = x->empty() ? out->dtype : (*x)[0].dtype;
  for (size_t m = 0; m < x->size(); ++m) {
    const TensorDesc& t = (*x)[m];
    if (t.dtype != dtype) {
      return RejectInvalid(call, family, F::Role::kX,
                           "member " + std::to_string(m) + ": dtype " + DTypeName(t.dtype) + " differs from " +
                               DTypeName(dtype) + " of member 0");
    }
    // The members' broadcast shape (trailing dimensions aligned).
    Dims merged(std::max(shape.size(), t.view.size()), 1);
    for (size_t d = 0; d < merged.size(); ++d) {
      const int64_t a = d < merged.size() - shape.size() ? 1 : shape[d - (merged.size() - shape.size())];
      const int64_t b = d < merged.size() - t.view.size() ? 1 : t.view[d - (merged.size() - t.view.size())];
      if (a != b && a != 1 && b != 1) {
        return RejectInvalid(call, family, F::Role::kX,
                             "member " + std::to_string(m) + ": shape " + DimsText(t.view) +
                                 " does not broadcast with " + DimsText(shape) + " of the members before it");
      }
      merged[d] = a == 1 ? b : a;
    }
    shape = merged;
  }
  if (x->empty()) shape = out->view;
  if (!CanCast(dtype, out->dtype)) {
    return RejectInvalid(call, family, F::Role::kOut,
                         std::string("dtype ") + DTypeName(out->dtype) + " is not castable from the members' " +
                             DTypeName(dtype));
  }
  ComputeType type;
  if (!FamilyComputeType(dtype, true, &type) || !Convertible(out->dtype)) {
    return DeclineDtype(call, work, dtype);
  }
  const int members = static_cast<int>(x->size());
  auto made = std::make_unique<ListFoldWork>(call.spec.name, members, family.op);
  made->type = type;
  if (aclnnStatus s = made->KeepOutput(call, family, F::Role::kOut, *out, shape, "the members' broadcast shape", members)) {
    return s;
  }
  for (int m = 0; m < members; ++m) {
    TensorRef& ref = made->tensor(m);
    ref.Set(RoleName(call, family, F::Role::kX), (*x)[static_cast<size_t>(m)]);
    BroadcastRef(&ref, shape);
  }
  *work = made.release();
  return ACLNN_SUCCESS;
}
}  // namespace

aclnnStatus PlanForeach(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  if (family.op == F::Op::kNorm) return PlanNorm(call, family, work);
  if (family.op == F::Op::kAddN || family.op == F::Op::kMaxN || family.op == F::Op::kMinN) {
    return PlanListFold(call, family, work);
  }
  const ApiSpec& spec = call.spec;
  const KernelSpec* kernel = spec.kernel;
  if (!kernel) return Decline(call, work, "(its semantics state no kernel for the foreach family)");
  const int out_index = kernel->output;
  const Call::Param& out = call.params[out_index];
  if (spec.params[out_index].kind != ParamKind::kTensorList) {
    return Decline(call, work, std::string("(the foreach family writes a tensor list; ") + spec.params[out_index].name +
                                   " is not one)");
  }
  if (!out.present) return Decline(call, work, std::string("when ") + spec.params[out_index].name + " is absent");
  const size_t n = out.tensors.size();

  std::vector<Input> inputs;
  for (int i = 0; i < spec.param_count && i < 64; ++i) {
    if (!(kernel->inputs >> i & 1)) continue;
    const Call::Param& value = call.params[i];
    if (!value.present) return Decline(call, work, std::string("when ") + spec.params[i].name + " is absent");
    const ParamKind kind = spec.params[i].kind;
    const size_t count = kind == ParamKind::kTensorList   ? value.tensors.size()
                         : kind == ParamKind::kScalarList ? value.scalars.size()
                                                          : n;
    if (count != n) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[i].name) + " holds " + std::to_string(count) +
                                                    " members where " + spec.params[out_index].name + " holds " +
                                                    std::to_string(n) + " (the lists must be as long)");
    }
    const TensorDesc& t = value.tensor;
    // A tensor of scalars: one element for every member, or one element per member in row-major order,
    // whatever its shape (the pages count elements: "scalars的元素个数与x1的Tensor数量不一致" is their
    // error row, and aclnnForeachAddcdivList's example passes [1, 2] for two members).
    if (kind == ParamKind::kTensor && t.numel() != 1 && t.numel() != static_cast<int64_t>(n)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[i].name) + ": shape " + DimsText(t.view) +
                                                    " holds " + std::to_string(t.numel()) + " elements, neither one " +
                                                    "(read for every member) nor one per member (" + std::to_string(n) + ")");
    }
    inputs.push_back(Input{i, kind, &value});
  }
  if (inputs.size() > ElementwiseWork::kMaxInputs) return Decline(call, work, "(with more than 15 kernel inputs)");

  auto made = std::make_unique<ForeachWork>();
  made->constants.reserve(n * inputs.size());
  made->members.reserve(n);
  bool converts = false;
  for (size_t m = 0; m < n; ++m) {
    const TensorDesc& target = out.tensors[m];
    const std::string target_name = Member(spec.params[out_index].name, m);
    // A null member has no memory to read or write: refused here, not faulted in phase 2, with the
    // status every foreach page that states one gives it (161002: "x中存在空指针Tensor"; gen.conventions 9).
    if (!out.tensor_infos[m].present) return call.Fail(ACLNN_ERR_PARAM_INVALID, target_name + " is a null pointer");
    for (const Input& in : inputs) {
      if (in.kind == ParamKind::kTensorList && !in.value->tensor_infos[m].present) {
        return call.Fail(ACLNN_ERR_PARAM_INVALID, Member(spec.params[in.param].name, m) + " is a null pointer");
      }
    }
    // The compute type: the promotion of the lists' members; a floating scalar (a scalar list's
    // value, a scalar tensor, a scalar) lifts integral members to FLOAT, as PyTorch's wrapped numbers do.
    aclDataType promoted = ACL_DT_UNDEFINED;
    bool floating_scalar = false;
    // A complex scalar makes the arithmetic complex whatever the members' dtype (PyTorch's
    // _foreach_mul([float tensors], [3+4j]) computes in complex): not read as a real one.
    bool complex_scalar = false;
    auto note_scalar = [&](aclDataType dtype) {
      floating_scalar |= IsFloating(dtype);
      const DTypeInfo* scalar_info = FindDType(dtype);
      complex_scalar |= scalar_info != nullptr && scalar_info->category == DTypeCategory::kComplex;
    };
    Dims shape;
    bool first_shape = true;
    for (const Input& in : inputs) {
      if (in.kind == ParamKind::kTensorList) {
        const TensorDesc& t = in.value->tensors[m];
        if (promoted == ACL_DT_UNDEFINED) {
          promoted = t.dtype;
        } else if (!PromoteTypes(promoted, t.dtype, &promoted)) {
          return Decline(call, work, "for the dtypes of member " + std::to_string(m) + " (no promoted dtype)");
        }
        // PyTorch's foreach lists pair members of one shape; the pages say the same ("shape与x1一致").
        if (!first_shape && t.view != shape) {
          return call.Fail(ACLNN_ERR_PARAM_INVALID, Member(spec.params[in.param].name, m) + ": shape " +
                                                        DimsText(t.view) + " differs from " + DimsText(shape) +
                                                        " of the other lists' member " + std::to_string(m));
        }
        shape = t.view;
        first_shape = false;
      } else if (in.kind == ParamKind::kScalarList) {
        note_scalar(in.value->scalars[m].dtype);
      } else {
        note_scalar(in.value->tensor.dtype);
      }
    }
    for (int i = 0; i < spec.param_count; ++i) {
      if (spec.params[i].kind == ParamKind::kScalar && call.params[i].present) {
        note_scalar(call.params[i].scalar.dtype);
      }
    }
    if (promoted == ACL_DT_UNDEFINED) promoted = target.dtype;  // a kernel of no list input (zero)
    if (!first_shape && shape != target.view) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, target_name + ": shape " + DimsText(target.view) +
                                                    " is not the shape " + DimsText(shape) + " of the inputs' member " +
                                                    std::to_string(m));
    }
    const aclDataType result = aclnn_bindgen::ResultDType(kernel->result_rule, promoted);
    if (!CanCast(result, target.dtype)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, target_name + ": dtype " + DTypeName(target.dtype) +
                                                    " is not castable from the inputs' dtype " + DTypeName(result));
    }
    if (floating_scalar && IsIntegral(promoted)) promoted = ACL_FLOAT;
    const DTypeInfo* info = FindDType(promoted);
    if (complex_scalar || (info && info->category == DTypeCategory::kComplex)) {
      return Decline(call, work, "in complex arithmetic (the foreach family computes real dtypes)");
    }
    ComputeType type;
    if (!ChooseComputeType(promoted, kernel->integer_math, &type)) {
      return DeclineDtype(call, work, promoted);
    }
    if (result == ACL_FLOAT && promoted != ACL_FLOAT) type = ComputeType::kFloat32;
    if (!Convertible(target.dtype)) {
      return Decline(call, work, std::string("for dtype ") + DTypeName(target.dtype) + " of " + target_name);
    }
    BoundKernel bound = kernel->bind(type, call);
    if (!bound.block) return Decline(call, work, std::string("in ") + ComputeTypeName(type) + " arithmetic");
    auto member = std::make_unique<ElementwiseWork>(spec.name, bound, inputs.size());
    member->type = type;
    member->shape = target.view;
    const size_t rank = target.view.size();
    member->SetTensor(-1, spec.params[out_index].name, target, rank);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Input& in = inputs[k];
      const char* name = spec.params[in.param].name;
      if (in.kind == ParamKind::kScalarList) {
        made->constants.push_back(in.value->scalars[m]);
        const ScalarValue& v = made->constants.back();
        if (!Convertible(v.dtype)) return Decline(call, work, std::string("for the dtype of ") + Member(name, m));
        member->SetConstant(static_cast<int>(k), name, v.bytes, v.dtype, rank);
        continue;
      }
      const TensorDesc& t = in.kind == ParamKind::kTensorList ? in.value->tensors[m] : in.value->tensor;
      if (!Convertible(t.dtype)) {
        return Decline(call, work, std::string("for dtype ") + DTypeName(t.dtype) + " of " + name);
      }
      if (in.kind == ParamKind::kTensor) {  // one element for every member, or element m for member m
        TensorDesc scalar = t;
        if (t.numel() != 1) {  // element m in row-major order of the view
          int64_t rest = static_cast<int64_t>(m);
          for (size_t d = t.view.size(); d-- > 0;) {
            scalar.offset += (rest % t.view[d]) * t.strides[d];
            rest /= t.view[d];
          }
        }
        scalar.view.assign(rank, 1);
        scalar.strides.assign(rank, 0);
        member->SetTensor(static_cast<int>(k), name, scalar, rank);
      } else {
        member->SetTensor(static_cast<int>(k), name, t, rank);
      }
    }
    converts |= target.numel() > 0 && !member->IsDirect();
    made->members.push_back(std::move(member));
  }
  if (converts) *workspace = kConversionWorkspace;
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
