// What the kernel families (one file each in this directory, named as the family's module in
// gen/families/; each API's generated spec names its planner, declared in aclnn_sim/families.h) share:
// reading their roles in phase 1, the tensors their work keeps for phase 2 (checked against the
// live allocations before any is touched), and moving elements between a tensor of any dtype and
// strides and a contiguous buffer of the compute type.
//
// A family's phase 1 is allocation-free in the steady state, as the elementwise engine's: its work
// comes from the pool, its tensors' dimensions are inline (Dims), and messages are built only to
// reject. Phase 2 may allocate (its scratch buffers are per thread and reused).
#ifndef ACLNN_SIM_OPAPI_FAMILIES_FAMILY_H_
#define ACLNN_SIM_OPAPI_FAMILIES_FAMILY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn_sim/entry.h"
#include "common/internal.h"
#include "ascendcl/settings.h"
#include "opapi/call.h"
#include "opapi/elementwise.h"

// A family's hot loop, written once and built for each code path (AVX-512, AVX2+FMA+F16C, the
// baseline x86-64 the simulator is built for); a call runs the one KernelPath() names
// (ascendcl/settings.h: ACLNN_SIM_ISA, else the CPU's widest), the path the elementwise kernels take.
//
//   ACLSIM_KERNEL(float, MaxFloats, (const float* x, int64_t n), (x, n)) { ...body... }
//
// defines MaxFloats (internal linkage). The body is a template on kPathLanes, the floats one register
// of the path holds (16, 8, 4): GCC builds generic vectors wider than the path's registers from
// scalar code, so a body that uses vector types sizes them by it (softmax.cpp). The body is inlined
// into each path's function, so the compiler builds it for that path; helpers it calls should be
// always_inline for the same reason. The dispatcher records the path it took for the file's family
// (EnginePath: aclnn.sim_stats()["engine_paths"]).
#define ACLSIM_KERNEL(ret, name, params, args)                                                         \
  template <int kPathLanes>                                                                           \
  static inline __attribute__((always_inline)) ret name##Body params;                                 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c"))) static ret name##Avx512 params { \
    return name##Body<16> args;                                                                         \
  }                                                                                                     \
  __attribute__((target("avx2,fma,f16c"))) static ret name##Avx2 params { return name##Body<8> args; } \
  static ret name##Baseline params { return name##Body<4> args; }                                      \
  static ret name params {                                                                             \
    static ::aclsim::EnginePath taken(__FILE__);                                                       \
    const ::aclsim::Isa path = ::aclsim::KernelPath();                                                 \
    taken.Took(path);                                                                                  \
    switch (path) {                                                                                    \
      case ::aclsim::Isa::kAvx512: return name##Avx512 args;                                           \
      case ::aclsim::Isa::kAvx2: return name##Avx2 args;                                               \
      default: return name##Baseline args;                                                             \
    }                                                                                                  \
  }                                                                                                    \
  template <int kPathLanes>                                                                           \
  static inline __attribute__((always_inline)) ret name##Body params

namespace aclsim {

// Phase 1's last step for an API whose spec names a family: its planner's work and workspace.
aclnnStatus PlanFamily(const Call& call, std::unique_ptr<ExecutorWork>* work, uint64_t* workspace);
// Whether the family of call's API reads the tensor of parameter `param` in its private layout
// `t.format` itself (every other private layout is declined before the family plans).
bool FamilyReadsPrivateLayout(const Call& call, int param, const TensorDesc& t);
// The matmul family's: a FRACTAL_NZ second operand (matmul.cpp).
bool MatmulReadsPrivateLayout(const Call& call, const FamilySpec& family, int param, const TensorDesc& t);
// The mla_prolog family's: its FRACTAL_NZ weights (mla_prolog.cpp).
bool MlaPrologReadsPrivateLayout(const Call& call, const FamilySpec& family, int param, const TensorDesc& t);
// The format_cast family's: the FRACTAL_NZ side of a cast (format_cast.cpp).
bool FormatCastReadsPrivateLayout(const Call& call, const FamilySpec& family, int param, const TensorDesc& t);

// --- roles ------------------------------------------------------------------------------------

// The argument bound to a role; null when the page has no such parameter or the caller passed NULL.
const Call::Param* RoleParam(const Call& call, const FamilySpec& family, int role);
const char* RoleName(const Call& call, const FamilySpec& family, int role);  // "" when unbound
const TensorDesc* RoleTensor(const Call& call, const FamilySpec& family, int role);
// An int array, an int, or a scalar, as dimensions; false when the role has no argument.
bool RoleInts(const Call& call, const FamilySpec& family, int role, Dims* out);
int64_t RoleInt(const Call& call, const FamilySpec& family, int role, int64_t fallback);
bool RoleBool(const Call& call, const FamilySpec& family, int role, bool fallback);
// A string parameter's text; "" when the role has none or the caller passed NULL.
std::string RoleText(const Call& call, const FamilySpec& family, int role);
// A scalar, a float, an int or a bool parameter as a number; else the option `option` of the
// semantics file (if >= 0 and stated); else `fallback`.
double RoleNumber(const Call& call, const FamilySpec& family, int role, int option, double fallback);
aclDataType RoleDType(const Call& call, const FamilySpec& family, int role, aclDataType fallback);
const std::vector<TensorDesc>* RoleTensorList(const Call& call, const FamilySpec& family, int role);
// The tensors of a role member by member: a tensor list's, or one tensor as a list of one; empty
// when absent (the optim and amp families' lists, where a single tensor is a list of one).
std::vector<const TensorDesc*> RoleMembers(const Call& call, const FamilySpec& family, int role);

// A dimension in [-rank, rank) (a scalar accepts -1 and 0) as its index; false outside.
bool WrapDim(int64_t dim, int64_t rank, int64_t* out);

// "[2, 3]"
std::string DimsText(const Dims& dims);

// The computation's type for an input dtype: FLOAT, FLOAT16 and BFLOAT16 in float (as the NPU
// computes them), DOUBLE in double, integers and BOOL in int64 when `integers` (else in double);
// false for dtypes a family does not compute (complex, quantised).
bool FamilyComputeType(aclDataType dtype, bool integers, ComputeType* type);

// COMPLEX64 or COMPLEX128: the complex dtypes the families compute (in complex<double>).
inline bool IsComplexDType(aclDataType dtype) { return dtype == ACL_COMPLEX64 || dtype == ACL_COMPLEX128; }
// FLOAT, FLOAT16 or BFLOAT16: the dtypes FamilyComputeType computes in float, all that a family
// whose kernels are float only takes.
bool ComputesInFloat32(aclDataType dtype);

// A not-simulated work (phase 2 answers 561003 with `why`): the planner's way to decline.
aclnnStatus Decline(const Call& call, ExecutorWork** work, const std::string& why);
// The decline of a dtype the family does not compute: "for dtype <dtype>".
aclnnStatus DeclineDtype(const Call& call, ExecutorWork** work, aclDataType dtype);
// A phase-1 rejection with "<api>: <parameter>: <message>".
aclnnStatus RejectParam(const Call& call, const FamilySpec& family, int role, aclnnStatus status,
                        const std::string& message);
// RejectParam with ACLNN_ERR_PARAM_INVALID, the status of most of a planner's rejections.
aclnnStatus RejectInvalid(const Call& call, const FamilySpec& family, int role, const std::string& message);
// The page's error row of `kind` (ApiSpec::page_rows) a family's check enforces: for kValue the row
// bounding the values of the parameter in `role`; null where the page has none.
const PageRowSpec* PageRow(const Call& call, const FamilySpec& family, RowKind kind, int role = -1);
// " (aclnnX.md:N)", that row's line, for a refusal or fault it explains; "" where the page has none.
std::string RowCitation(const Call& call, const FamilySpec& family, RowKind kind, int role = -1);
// A rejection by the page's row of `kind` (see PageRow): its status and its line, so that a reader
// tells a page rule from a simulator gap; where the page has none, ACLNN_ERR_PARAM_INVALID uncited.
aclnnStatus RejectByRow(const Call& call, const FamilySpec& family, int role, RowKind kind, const std::string& message);
// A rejection of what the parameter's own row of the table states ("shape为(N,C)或者(C)", "维度数需要与
// index一致"), citing that row: for the family checks whose rule the page gives in the parameter's
// description rather than in an error row. Only where that row states the rule: elsewhere a citation
// would dress a simulator's own limit as the page's.
aclnnStatus RejectByParamRow(const Call& call, const FamilySpec& family, int role, const std::string& message);
// WrapDim of the dimension `dim` the parameter in `role` gives, or its rejection by the page's row
// bounding it ("dim的值不在[-self的维度数量，self的维度数量-1]之间").
aclnnStatus WrapDimOrReject(const Call& call, const FamilySpec& family, int role, int64_t dim, int64_t rank, int64_t* out);
// The rejection of a dimension outside [-rank, rank) by the page's row bounding it.
aclnnStatus RejectDim(const Call& call, const FamilySpec& family, int role, int64_t dim, int64_t rank);
// A planner's rejections of its call's parameters with one status (ACLNN_ERR_PARAM_INVALID unless
// given): `const ParamRejecter reject(call, family);` then `return reject(F::Role::kDim, "...");`.
class ParamRejecter {
 public:
  ParamRejecter(const Call& call, const FamilySpec& family, aclnnStatus status = ACLNN_ERR_PARAM_INVALID)
      : call_(call), family_(family), status_(status) {}
  aclnnStatus operator()(int role, const std::string& message) const {
    return RejectParam(call_, family_, role, status_, message);
  }

 private:
  const Call& call_;
  const FamilySpec& family_;
  aclnnStatus status_;
};
// mc2 (families/mc2.cpp): ACLNN_SUCCESS when the string of `group_role` names a communicator of the
// simulated libhccl (one rank: its collectives are the identity) and `reduce_role`'s, when bound, is
// "sum"; else the rejection naming them.
aclnnStatus CheckOneRankGroup(const Call& call, const FamilySpec& family, int group_role, int reduce_role);

// ACLNN_SUCCESS when `t`'s shape is `shape`, else the rejection "shape [..] is not <what> [..]"
// (`what`: "the input's shape", "normalizedShape").
aclnnStatus CheckShape(const Call& call, const FamilySpec& family, int role, const TensorDesc* t, const Dims& shape,
                       const char* what);
// ACLNN_SUCCESS when `t` is absent or holds one element (a step, a scale, a flag), else the rejection
// "shape [..] is not one element" (ACLNN_ERR_PARAM_INVALID).
aclnnStatus CheckOneElement(const Call& call, const FamilySpec& family, int role, const TensorDesc* t);

// What a planner computes from and writes to: the tensors of its source and output roles, and the
// source's rank.
struct SourceAndOutput {
  const TensorDesc* source = nullptr;
  const TensorDesc* out = nullptr;
  int64_t rank = 0;
};
// Reads them; false when the work has been declined instead (either is absent, or the source has
// more dimensions than the families' loops index, 16), and the planner then returns ACLNN_SUCCESS.
bool ReadSourceAndOutput(const Call& call, const FamilySpec& family, int source_role, int out_role,
                         ExecutorWork** work, SourceAndOutput* found);

// --- tensors of a family's work -----------------------------------------------------------------

// A tensor as the work keeps it from phase 1: the address of its element (0, ..., 0), its view's
// shape and strides (in elements), and the extent its view spans for the memory check.
struct TensorRef {
  const char* name = "";
  char* first = nullptr;
  const void* data = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
  Dims shape;
  Dims strides;
  int64_t low = 0, high = 0;

  void Set(const char* param, const TensorDesc& t);
  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  // The same elements with the dimensions in `order` (order[i]: the old dimension that becomes i).
  TensorRef Permuted(const int64_t* order) const;
  // Row-major and dense in its own dtype.
  bool Contiguous() const;
};

// `t` seen broadcast to `shape` (trailing dimensions aligned, stride 0 along those it has as 1 or
// lacks); false when it does not broadcast to it.
bool BroadcastRef(TensorRef* t, const Dims& shape);

class FamilyWork : public ExecutorWork {
 public:
  FamilyWork(const FamilyWork&) = delete;
  FamilyWork& operator=(const FamilyWork&) = delete;
  ~FamilyWork() override;
  // Checks every tensor's memory, then computes.
  aclnnStatus Run(aclrtStream stream) final;

  // The tensor slots the planner fills (Set) before handing the work over.
  TensorRef& tensor(int i) { return refs_[i]; }
  const TensorRef& tensor(int i) const { return refs_[i]; }
  int tensor_count() const { return count_; }
  ComputeType type = ComputeType::kFloat32;

  // Keeps the output `t` of `role` in slot `slot`, once its shape is the one the planner derived
  // (`what` names it in the rejection: "the input's shape", "the reduced shape"). With `one_value`,
  // a result of one value may go to any one-element tensor (aclnnMax's out is [1] in its page's
  // example).
  aclnnStatus KeepOutput(const Call& call, const FamilySpec& family, int role, const TensorDesc& t, const Dims& shape,
                         const char* what, int slot, bool one_value = false);

 protected:
  FamilyWork(const char* api, int tensors);
  virtual aclnnStatus Compute() = 0;
  const char* api_;

 private:
  TensorRef* refs_;
  int count_;
};

// --- moving elements --------------------------------------------------------------------------

// The logical elements of `t` (row-major over its shape) into `dst` as `type` values, or from
// `src` into `t`, converting; any strides (0, negative), multithreaded for large tensors.
void GatherAs(const TensorRef& t, ComputeType type, void* dst);
void ScatterFrom(const void* src, ComputeType type, const TensorRef& t);
// The value of a one-element tensor (a step, a scale, a flag), as double.
double OneValue(const TensorRef& t);
// The elements of `t` as a contiguous buffer of `type`: its own memory when it already is one,
// else `scratch` filled by GatherAs.
const void* ContiguousAs(const TensorRef& t, ComputeType type, int scratch);
// A per-thread buffer of at least `bytes` (slot 0 to 7), kept for the thread's next work.
void* Scratch(int slot, size_t bytes);

// --- normalisations (norm.cpp; the backward's norm_grad.cpp shares them) ------------------------

// The trailing dimensions a layer norm normalises (the int array of `shape_role`) or an rms norm
// (the shape of the tensor of `shape_role`, its weight), and the [rows, length] they split `input`
// into; the rejection of `shape_role` when they are none or not input's trailing dimensions.
aclnnStatus NormalizedRows(const Call& call, const FamilySpec& family, int input_role, int shape_role,
                           const TensorDesc& input, Dims* normalized, int64_t* rows, int64_t* length);
// A group norm's split of `input` ([N, C, ...]) into N * group rows of C / group channels of HxW
// elements each; the rejection of `input_role` (fewer than 2 dimensions) or `group_role` (not
// dividing C).
struct GroupedRows {
  int64_t groups = 1, channels = 1, hxw = 1, rows = 0, length = 0;
};
aclnnStatus GroupRows(const Call& call, const FamilySpec& family, int input_role, int group_role,
                      const TensorDesc& input, GroupedRows* out);
// A batch norm's channel axis (the last for NHWC and NDHWC, else the second); `order` (rank
// entries) brings it first.
int64_t ChannelAxis(const TensorDesc& input, int64_t* order);

// fn(T{}) with the C++ type of a compute type (float, double, int64_t; complex types are not
// families' business and never reach here).
template <typename Fn>
void WithFamilyType(ComputeType type, Fn&& fn) {
  switch (type) {
    case ComputeType::kFloat64: fn(double{}); break;
    case ComputeType::kInt64: fn(int64_t{}); break;
    default: fn(float{}); break;
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_FAMILY_H_
