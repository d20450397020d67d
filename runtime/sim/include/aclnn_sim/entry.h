// What a generated op entry (generated/sim/ops_*.cpp) is made of: a constexpr spec of the page
// (one ParamSpec row per parameter, the products, the kernel) and two calls into the hand-written
// core of libopapi, which performs phase 1 (CANN's argument checks, in CANN's order) and phase 2
// (the executor, the workspace, the kernel).
//
// Kept small on purpose: ~1,300 generated APIs include it, so it pulls in no heavy headers and
// instantiates one short loop per kernel and compute type.
#ifndef ACLNN_SIM_ENTRY_H_
#define ACLNN_SIM_ENTRY_H_

#include <cmath>  // for the kernels' expressions (std::exp, ...)
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/dtypes.h"
#include "aclnn_bindgen/formats.h"
#include "aclnn_sim/families.h"
#include "aclnn_sim/math.h"
#include "aclnn_sim/vector_math.h"  // the kernels' float math, vectorised
#include "aclnn_sim/plain_formats.h"
#include "aclnn_sim/soc.h"
#include "ascendcl/pool.h"

#define ACLSIM_OP_API extern "C" __attribute__((visibility("default")))

namespace aclsim {

// --- The spec of an API, generated from the IR -------------------------------------------------

enum class ParamKind : uint8_t {  // gen.ir.ParamKind
  kTensor, kScalar, kIntArray, kFloatArray, kBoolArray, kTensorList, kScalarList,
  kBool, kInt, kFloat, kString, kDType,
};
enum class Direction : uint8_t { kIn, kOut, kInOut };
enum class EmptyTensor : uint8_t { kUnspecified, kAllowed, kForbidden };
enum class IntegerMath : uint8_t { kFloat, kExact };  // gen.ir.IntegerMath
// The type a kernel computes in: float16/bfloat16 compute in float, as on the NPU; COMPLEX64 and
// COMPLEX128 in std::complex<float> and std::complex<double> (aclnn_sim/complex.h).
enum class ComputeType : uint8_t { kFloat32, kFloat64, kInt64, kComplex64, kComplex128 };

// Sets of dtypes, formats and parameters are 64-bit masks (by aclDataType value, aclFormat value,
// parameter index).
inline constexpr uint64_t kAnyDType = ~uint64_t{0};  // the page lists no dtypes: unchecked
inline constexpr uint64_t kAnyFormat = ~uint64_t{0};

template <typename... Values>
constexpr uint64_t Bits(Values... values) {
  return (uint64_t{0} | ... | (uint64_t{1} << static_cast<int>(values)));
}

// kPlainFormats (aclnn_sim/plain_formats.h, rendered from gen.conventions.PLAIN_FORMATS): where a
// page lists ND, CANN accepts every plain (non-private) layout.

struct DTypeOverride {  // gen.ir.ProductDTypes
  Soc soc;
  uint64_t dtypes;
  // The note under the table that gives the chip this list (gen.ir.Param.dtype_note_lines): a dtype
  // it takes away is refused citing it; 0: the parameter's row gives it.
  int line = 0;
};

struct ParamSpec {
  const char* name;
  ParamKind kind;
  Direction direction;
  bool optional;
  uint64_t dtypes;  // Param.dtypes, for products without an override
  const DTypeOverride* dtypes_by_soc;
  uint8_t dtypes_by_soc_count;
  int8_t rank_min, rank_max;  // -1: the page gives no bound
  EmptyTensor empty;
  uint64_t formats;
  // The parameters (by index) this one relates to, per gen.ir.RelationKind.
  uint64_t same_shape, broadcast, same_dtype, promote, cast_from, same_format;
  // The page line of the parameter's row (its dtypes, formats, rank and empty-tensor rule): a
  // rejection by them names it.
  int line;
  // The status a NULL gets where CANN's CheckNotNull does not check the parameter (an output the
  // page's null-pointer row leaves out, gen.conventions.inner_null_outputs): it fails after every
  // other check, when the result is copied into it (ACLNN_ERR_INNER_NULLPTR); 0: 161001 first.
  int null_status = 0;
  // The status of a dtype outside the parameter's list where the page's error table gives another
  // than 161002 (gen.ir.API.dtype_status: aclnnDequantBias's optional inputs, 561002, checked by
  // the tiling): it is checked after every other phase-1 check; 0: 161002, among the first.
  int dtype_status = 0;
  // An aclTensorList a framework passes one aclTensor for (gen.ir.OpSemantics.client_tensor_for_list:
  // op-plugin gives aclnnGRUBackward's hx as the one tensor it gives aclnnGRU): read as the list of it.
  bool tensor_for_list = false;
  // What an index tensor's page says of its negative values (gen.ir.Param.negative_indices): 1, they
  // count from the end of the dimension it indexes (aclnnGather's "取值范围[-self.shape[dim],
  // self.shape[dim] - 1]"); -1, they are not supported (aclnnTake's "不支持负索引"); 0, nothing.
  int negative_indices = 0;
  // The error row that gives rank_min/rank_max where the parameter's row states none (gen.ir.Param.rank_line:
  // "input或out的维数大于8"): a rank refused cites it; 0, `line`.
  int rank_line = 0;
  // The parameters (by index) whose rank this one's must equal (gen.ir.RelationKind.SAME_RANK: "维度需要与
  // self和gradInput一致"), apart from the relations above so that the rows without one stay short.
  uint64_t same_rank = 0;
};

struct ProductSpec {  // a row of the page's product table that names a known chip
  Soc soc;
  bool supported;
  const char* name;  // as the page writes it
  int line;          // its page line, which a refusal on the chip cites
};

// --- What a page states across parameters (gen.ir's cross-parameter rules) ----------------------
// Each row keeps its page line: a rejection names the line it applied.

struct CombinationCellSpec {  // gen.ir.CombinationCell
  int8_t param;
  uint64_t dtypes;  // 0: none listed (the cell allows only `absent` or `same_as`)
  bool absent;      // the parameter may be NULL
  int8_t same_as;   // -1: none
};

struct CombinationSpec {  // gen.ir.DTypeCombination
  const CombinationCellSpec* cells;
  uint8_t cell_count;
  uint16_t socs;  // bit per Soc; 0: every chip
  int line;
};

enum class Extent : uint8_t { kNumber, kRank, kSize, kValue, kElement, kDimension };  // gen.ir.Extent

struct BoundSpec {  // gen.ir.Bound
  bool present;
  double offset;
  Extent extent;
  int8_t sign;
  int8_t tensor;      // parameter index (kRank, kSize; kValue: the host argument whose value it is;
                      // kElement: the aclIntArray whose element at the checked one's position it is)
  int8_t axis_param;  // kSize: the integer parameter whose value is the dimension, or -1
  int64_t axis;       // kSize: the dimension, when axis_param is -1; kDimension: the first one the array's
                      // elements stand for, from the end (-3: kernelSize[i] is bounded by dimension -3 + i)
  bool inclusive;
  int64_t divisor;    // the extent is divided by it (a real quotient: "kernelSize/2")
};

struct ValueRangeSpec {  // gen.ir.ValueRange
  int8_t param;
  BoundSpec low, high;
  uint16_t socs;  // bit per Soc: the chips it holds on; 0: every chip
  int status;     // the status of a value outside it; 0: ACLNN_ERR_PARAM_INVALID
  int8_t when;    // gen.ir.Condition: the int or bool parameter it holds under a value of, or -1: always
  double when_value;
  int line;
  // An array's elements it bounds: `count` from `first` (negative: from the array's end); count -1: every one.
  int8_t first = 0;
  int8_t count = -1;
};

struct ValueSetSpec {  // gen.ir.ValueSet
  int8_t param;
  const int64_t* values;  // ascending
  uint8_t value_count;
  uint16_t socs;  // as ValueRangeSpec's
  int status;     // as ValueRangeSpec's
  int8_t when;    // as ValueRangeSpec's
  double when_value;
  int line;
};

struct ArrayLengthSpec {  // gen.ir.ArrayLength
  int8_t param;
  const int64_t* lengths;  // ascending
  uint8_t length_count;
  int status;  // as ValueRangeSpec's
  int line;
};

struct DimEqualSpec {  // gen.ir.DimEquality
  int8_t param;
  int8_t axis;
  int8_t other;
  int8_t other_axis;
  int line;
};

struct DivisibleSpec {  // gen.ir.Divisibility
  int8_t param;
  bool has_axis;  // false: the value of an integer parameter
  int8_t axis;
  int64_t divisor;        // when divisor_param is -1
  int8_t divisor_param;   // an integer parameter's index, or -1
  uint16_t socs;          // as ValueRangeSpec's
  int status;             // as ValueRangeSpec's
  int8_t when;            // as ValueRangeSpec's
  double when_value;
  // gen.ir.DTypeCondition: it holds when one of these parameters (a mask; 0: always) carries one of
  // these dtypes (a mask of aclDataType values).
  uint64_t when_params;
  uint64_t when_dtypes;
  int line;
};

enum class ShapeForm : uint8_t { kSame, kScalar, kAbsent, kRank, kPresent };  // gen.ir.ShapeForm

struct ShapeRuleSpec {  // gen.ir.ShapeRule
  int8_t param;
  int8_t when;                  // the deciding host parameter; -1: a dtype condition (when_params, when_dtypes)
  const int64_t* values;        // its values, for integer and bool parameters (true: 1)
  const char* const* strings;   // its values, for string parameters
  uint8_t value_count;
  bool negated;
  ShapeForm form;   // kSame: the broadcast shape of `others`; kScalar: one element; kAbsent: a null pointer;
                    // kPresent: not a null pointer;
                    // kRank: a rank in [rank_min, rank_max]
  uint64_t others;  // parameter mask
  int line;
  // kRank's bounds, and a dtype condition (as DivisibleSpec's: one of these parameters carries one of these
  // dtypes): the generated tables name them where a rule has them (defaults, not a warning per rule).
  int8_t rank_min = 0, rank_max = 0;
  uint64_t when_params = 0;
  uint64_t when_dtypes = 0;
};

// DimBytesSpec::axis of a rule on the whole tensor (gen.ir.DimBytes.axis None: "gamma的长度必须大于等于32 Bytes").
constexpr int8_t kWholeTensor = -128;

struct DimBytesSpec {  // gen.ir.DimBytes
  int8_t param;
  int8_t axis;  // kWholeTensor: every element
  int64_t minimum;   // bytes the dimension's size times the element size reaches at least; 0: none
  int64_t multiple;  // bytes it is a multiple of; 0: none
  uint16_t socs;    // as ValueRangeSpec's
  int status;       // as ValueRangeSpec's
  int line;
};

struct ArrayProductSpec {  // gen.ir.ArrayProduct
  int8_t param;   // the integer array
  int8_t tensor;
  int8_t last;    // the dimensions it multiplies: the tensor's last `last` ones
  int status;     // as ValueRangeSpec's
  int line;
};

struct PaddedShapeSpec {  // gen.ir.PaddedShape
  int8_t param;    // the padded tensor (an output)
  int8_t tensor;   // the tensor it pads
  int8_t padding;  // the integer array of (before, after) pairs, the last dimension's first
  int8_t pairs;    // the dimensions it widens: the tensor's last `pairs` ones (0: one per pair of the array)
  int status;      // as ValueRangeSpec's
  int line;
};

struct ReducedShapeSpec {  // gen.ir.ReducedShape
  int8_t param;    // the reduced tensor (an output)
  int8_t tensor;   // the tensor it reduces
  int8_t dims;     // the int or int array of the reduced dimensions (none or empty: every one)
  int8_t keepdim;  // the bool that keeps them as 1 (either form is accepted: gen.conventions, 4.)
  int status;      // as ValueRangeSpec's
  int line;
};

struct RulesSpec {
  uint64_t reserved;  // parameters the page reserves: they must be NULL
  const CombinationSpec* combinations;
  uint8_t combination_count;
  const ValueRangeSpec* ranges;
  uint8_t range_count;
  const ValueSetSpec* sets;
  uint8_t set_count;
  const ArrayLengthSpec* lengths;
  uint8_t length_count;
  const DimEqualSpec* dims;
  uint8_t dim_count;
  const DivisibleSpec* divisible;
  uint8_t divisible_count;
  const ShapeRuleSpec* shape_rules;
  uint8_t shape_rule_count;
  // Last and defaulted, so that an API without them leaves them out of its initializer (without a
  // default, -Wextra warns of every initializer that leaves them out).
  const DimBytesSpec* dim_bytes = nullptr;
  uint8_t dim_bytes_count = 0;
  const ArrayProductSpec* products = nullptr;
  uint8_t product_count = 0;
  const PaddedShapeSpec* padded = nullptr;
  uint8_t padded_count = 0;
  const ReducedShapeSpec* reduced = nullptr;
  uint8_t reduced_count = 0;
};

class Call;  // phase 1's view of the arguments (defined in the core)

// A kernel bound to a compute type: `block` computes n elements from contiguous inputs of the
// compute type into a contiguous output.
struct BoundKernel {
  using Block = void (*)(const void* kernel, const void* const* in, void* out, int64_t n);
  Block block = nullptr;
  // Float kernels on the AVX2 and AVX-512 paths: the same element loop reading and writing FLOAT16
  // or BFLOAT16 memory directly (every operand contiguous in that dtype).
  Block float16_block = nullptr;
  Block bfloat16_block = nullptr;
  void* kernel = nullptr;
  void (*destroy)(void* kernel) = nullptr;
};

// What an elementwise kernel reads for an optional input tensor passed as null (the semantics
// file's `absent`): nothing (the call is not simulated), or the compute type's lowest or highest
// value (±infinity for floating types), the identity of a bound.
enum class AbsentInput : uint8_t { kRefused, kLowest, kHighest };

struct KernelSpec {
  BoundKernel (*bind)(ComputeType type, const Call& call);
  uint64_t inputs;  // the tensors whose elements the kernel reads, in its argument order
  int8_t output;    // the tensor its element result goes to
  IntegerMath integer_math;
  // The result's dtype from the inputs' promoted one (gen.ir.ResultRule): a FLOAT result of
  // integral inputs (a true division), the real dtype of a complex computation's precision (|z|:
  // its real part is stored), BOOL whatever the inputs (a comparison's 0 or 1). The output must be
  // castable from it.
  aclnn_bindgen::ResultRule result_rule = aclnn_bindgen::ResultRule::kPromoted;
  // Per element input (in `inputs` order), what it reads when absent; null: each is required.
  const AbsentInput* absent = nullptr;
};

// An API computed by one of the simulator's kernel families (gen.families, aclnn_sim/families.h)
// rather than by an elementwise kernel: the family's planner, the op, and the parameter index of
// each of the family's roles (kMaxFamilyRoles, kMaxFamilyOptions: aclnn_sim/families.h).
using FamilyPlanner = aclnnStatus (*)(const Call& call, const FamilySpec& family, ExecutorWork** work,
                                      uint64_t* workspace);

struct FamilySpec {
  FamilyPlanner plan;
  int8_t op;                       // the family's Op enumerator
  int8_t roles[kMaxFamilyRoles];   // by the family's Role enumerator: a parameter index, -1 for none
  // By the family's Option enumerator: what the semantics file states; NaN where it states nothing.
  double options[kMaxFamilyOptions];

  int role(int r) const { return roles[r]; }
  bool has(int r) const { return roles[r] >= 0; }
  bool has_option(int o) const { return options[o] == options[o]; }
};

// What an error row is about, as a family's check asks for it (gen.ir.API.page_row).
enum class RowKind : uint8_t {
  kOutputSize,  // an output the op's arithmetic sizes below 1: "通过公式推导出的out的shape的某个轴为0"
  kValue,       // the values of one parameter: "blank不满足取值范围", "dim的值不在[...]之间"
};

struct PageRowSpec {
  RowKind kind;
  int8_t param;  // kValue: the parameter (by index) whose values the row bounds; -1: none
  int line;
  aclnnStatus status;
};

struct ApiSpec {
  const char* name;
  const char* source;  // the page
  const ParamSpec* params;
  uint8_t param_count;
  const ProductSpec* products;
  uint8_t product_count;
  aclnnStatus (*checks)(const Call& call);  // the semantics file's value checks; may be null
  const KernelSpec* kernel;                  // null: not simulated (unless a family computes it)
  const char* not_simulated;                 // why, when neither a kernel nor a family computes it
  const FamilySpec* family = nullptr;        // the kernel family that computes it, if any
  const RulesSpec* rules = nullptr;          // the page's cross-parameter rules; null: none
  aclnnStatus rank_status = 0;               // a rank outside the page's bounds; 0: ACLNN_ERR_PARAM_INVALID
  aclnnStatus empty_status = 0;              // an empty tensor the page forbids; 0: ACLNN_ERR_PARAM_INVALID
  aclnnStatus shape_status = 0;              // a shape a family's check refuses; 0: ACLNN_ERR_PARAM_INVALID
  // The error rows a family's own checks enforce (gen.ir.API.page_row): a refusal by one answers its
  // status and cites its line (families/family.h, RejectByRow).
  const PageRowSpec* page_rows = nullptr;
  uint8_t page_row_count = 0;
  aclnnStatus chip_status = 0;  // a chip the page marks unsupported; 0: ACLNN_ERR_PARAM_INVALID
};

// --- The arguments of one call -----------------------------------------------------------------

struct Arg {
  const void* pointer;  // tensors, scalars, arrays, lists, strings
  int64_t integer;      // bool, integers, aclDataType
  double real;          // double, float
};

inline Arg PointerArg(const void* value) { return Arg{value, 0, 0.0}; }
inline Arg BoolArg(bool value) { return Arg{nullptr, value ? 1 : 0, 0.0}; }
inline Arg IntArg(int64_t value) { return Arg{nullptr, value, 0.0}; }
inline Arg UIntArg(uint64_t value) { return Arg{nullptr, static_cast<int64_t>(value), 0.0}; }
inline Arg FloatArg(double value) { return Arg{nullptr, 0, value}; }
inline Arg DTypeArg(aclDataType value) { return Arg{nullptr, static_cast<int64_t>(value), 0.0}; }

// Phase 1 and phase 2 of an API; the generated entry points are one call each.
aclnnStatus GetWorkspaceSize(const ApiSpec& spec, const Arg* args, uint64_t* workspaceSize,
                             aclOpExecutor** executor);
aclnnStatus Run(const ApiSpec& spec, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                aclrtStream stream);

// --- What value checks and kernels see of the host-side parameters -----------------------------

struct TensorInfo {
  const int64_t* shape = nullptr;
  int64_t rank = 0;
  aclDataType type = ACL_DT_UNDEFINED;
  bool present = false;  // false for an absent optional tensor

  int64_t dim() const { return rank; }
  int64_t size(int64_t i) const { return shape[i < 0 ? i + rank : i]; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
  bool empty() const { return numel() == 0; }
  aclDataType dtype() const { return type; }
};

template <typename T>
struct ArrayInfo {
  const T* values = nullptr;
  int64_t count = 0;
  bool present = false;

  int64_t size() const { return count; }
  T operator[](int64_t i) const { return values[i]; }
  const T* begin() const { return values; }
  const T* end() const { return values + count; }
};
using IntArrayInfo = ArrayInfo<int64_t>;
using FloatArrayInfo = ArrayInfo<float>;
using BoolArrayInfo = ArrayInfo<bool>;
using ScalarListInfo = ArrayInfo<double>;  // the values, as double
using TensorListInfo = ArrayInfo<TensorInfo>;

// Accessors by parameter index. An absent optional scalar reads as NaN (so comparisons are false).
const TensorInfo& CallTensor(const Call& call, int index);
double CallScalar(const Call& call, int index);
bool CallPresent(const Call& call, int index);  // false for an optional pointer passed as null
int64_t CallScalarInt(const Call& call, int index);
bool CallBool(const Call& call, int index);
int64_t CallInt(const Call& call, int index);
double CallFloat(const Call& call, int index);
aclDataType CallDType(const Call& call, int index);
const char* CallString(const Call& call, int index);  // "" when absent
IntArrayInfo CallIntArray(const Call& call, int index);
FloatArrayInfo CallFloatArray(const Call& call, int index);
BoolArrayInfo CallBoolArray(const Call& call, int index);
TensorListInfo CallTensorList(const Call& call, int index);
ScalarListInfo CallScalarList(const Call& call, int index);

// The real and imaginary parts of a scalar (imaginary 0 for a real one).
void CallScalarParts(const Call& call, int index, double* real, double* imag);

// Whether T is a complex compute type; aclnn_sim/complex.h says yes for std::complex, so that
// units without complex kernels never parse <complex>.
template <typename T>
struct IsComplex : std::false_type {};

// A scalar converted to a kernel's compute type.
template <typename T>
T CallScalarAs(const Call& call, int index) {
  if constexpr (IsComplex<T>::value) {
    double real = 0, imag = 0;
    CallScalarParts(call, index, &real, &imag);
    using Part = typename T::value_type;
    return T(static_cast<Part>(real), static_cast<Part>(imag));
  } else if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(CallScalarInt(call, index));
  } else {
    return static_cast<T>(CallScalar(call, index));
  }
}

// An optional scalar converted to a kernel's compute type, and whether it was passed.
template <typename T>
OptionalScalar<T> CallOptionalScalarAs(const Call& call, int index) {
  const bool present = CallPresent(call, index);
  return OptionalScalar<T>{present, present ? CallScalarAs<T>(call, index) : T()};
}

// Whether a dtype holds integers or BOOL (a value check's test of an input's dtype).
inline bool IsIntegralType(aclDataType type) {
  switch (type) {
    case ACL_INT8: case ACL_INT16: case ACL_INT32: case ACL_INT64: case ACL_UINT8: case ACL_UINT16:
    case ACL_UINT32: case ACL_UINT64: case ACL_BOOL:
      return true;
    default:
      return false;
  }
}

// A value check's rejection: sets "<api>: <message>" as the recent error and returns `status`.
aclnnStatus Reject(const Call& call, aclnnStatus status, const char* message);

// --- Binding a kernel functor to the elementwise engine ----------------------------------------

// The engine hands a kernel blocks of contiguous elements. The loop goes kStep elements at a time
// (8; 16 in the AVX-512 loops, one register of floats): the kStep results are computed from loaded
// values before any is stored, so that the compiler keeps them in vector registers and an output
// that is one of the inputs (in-place APIs) is read before it is written. The functor is copied
// into a local so that its members are registers, not loads the compiler may not hoist or
// speculate out of a `?:`.
constexpr int64_t kLanes = 8;

// kStep values of T as one GCC vector, and the same stored at any address of a T. (A typedef of a
// class template: GCC drops vector_size from an alias template, and from a typedef whose size
// depends on a value parameter of a function template.)
template <typename T, int kStep>
struct StepVectors {
  typedef T Lanes __attribute__((vector_size(kStep * sizeof(T))));
  typedef T Stored __attribute__((vector_size(kStep * sizeof(T)), aligned(alignof(T)), may_alias));
};

// How far ahead of a step the block loops ask for their inputs: a 4 KiB page. The CPU's own
// prefetchers stop at a page's end, so each page's first lines came from memory while the loop
// waited (perf annotate: 46% of GELU's samples on the fused loop's load). GELU's erf form over 16M
// BFLOAT16 on one core of this Sapphire Rapids, through aclnnGeluV2: AVX-512 fused loop 0.76 -> 0.34
// ns an element, AVX2 0.93 -> 0.57 (PyTorch's oneDNN kernel: 0.58-0.61); tanh over 16M floats in
// the loop alone: AVX2 1.14-1.21 -> 0.79-0.80, AVX-512 0.71-0.73 -> 0.60-0.70. In the GELU loop
// alone 2 and 8 KiB ahead measured as 4; a prefetch into no cache level (NTA) gave half the gain,
// and 16 KiB ahead so was slower than none. A prefetch past the input's end is harmless:
// prefetches never fault.
constexpr int64_t kPrefetchBytes = 4096;

template <typename Kernel, typename T, int kStep, size_t... I>
__attribute__((always_inline)) inline void ElementLoop(const void* kernel, const void* const* in, void* out,
                                                       int64_t n) {
  const Kernel k = *static_cast<const Kernel*>(kernel);
  const T* src[sizeof...(I) + 1] = {static_cast<const T*>(in[I])...};
  T* dst = static_cast<T*>(out);
  int64_t i = 0;
  // The kStep results as one GCC vector, stored with one (unaligned) vector store.
  using Vectors = StepVectors<T, kStep>;
  for (; i + kStep <= n; i += kStep) {
    (__builtin_prefetch(reinterpret_cast<const char*>(src[I] + i) + kPrefetchBytes, 0, 3), ...);
    typename Vectors::Lanes results;
    for (int64_t j = 0; j < kStep; ++j) results[j] = static_cast<T>(k(src[I][i + j]...));
    *reinterpret_cast<typename Vectors::Stored*>(dst + i) = results;
  }
  for (; i < n; ++i) dst[i] = static_cast<T>(k(src[I][i]...));
  (void)src;
}

template <typename Kernel, typename T, size_t... I>
void ElementBlock(const void* kernel, const void* const* in, void* out, int64_t n) {
  ElementLoop<Kernel, T, kLanes, I...>(kernel, in, out, n);
}

// Whether this CPU runs the AVX2 loops (x86-64 with AVX2, FMA and F16C; never elsewhere), and
// whether it runs the AVX-512 ones (AVX-512 F, BW and VL too): the path ACLNN_SIM_ISA names.
bool UseAvx2();
bool UseAvx512();

#if defined(__x86_64__)
// The same loop in AVX2, chosen at run time on CPUs that have it (with FMA and F16C). FMA
// instructions where a kernel asks (std::fma: add with alpha, lerp, addcmul, as PyTorch fuses
// them) and where GCC contracts an a*b+c (C++ does at any -std), as PyTorch's AVX2 and AVX-512
// builds do: tanh_backward equals their kernels bit for bit, the baseline path PyTorch's "default".
template <typename Kernel, typename T, size_t... I>
__attribute__((target("avx2,fma"))) void ElementBlockAvx2(const void* kernel, const void* const* in, void* out,
                                                      int64_t n) {
  ElementLoop<Kernel, T, kLanes, I...>(kernel, in, out, n);
}

// And in AVX-512, 16 elements a step (one register of floats): the same operations in the same
// order, contracted into the same FMAs, so exact kernels equal the AVX2 loop's results bit for bit;
// the float math routines are libmvec's 16-lane variants (aclnn_sim/vector_math.h).
#define ACLSIM_AVX512_TARGET "avx512f,avx512bw,avx512vl,avx2,fma,f16c"
template <typename Kernel, typename T, size_t... I>
__attribute__((target(ACLSIM_AVX512_TARGET))) void ElementBlockAvx512(const void* kernel, const void* const* in,
                                                                      void* out, int64_t n) {
  ElementLoop<Kernel, T, 2 * kLanes, I...>(kernel, in, out, n);
}

// FLOAT16 and BFLOAT16 tensors that are all contiguous skip the engine's gather buffers: a step of
// elements is loaded and widened to float in registers, computed, rounded to nearest even and
// stored. The conversions equal the engine's (and PyTorch's) on every path. Written with GCC vector
// types and builtins rather than <immintrin.h>, which would cost every unit 0.6 s to parse.
//
// A Lanes type is one conversion: kRegisters vectors of kLanes floats a step (Vector), and
// Load/Store of a step's kRegisters * kLanes values between 16-bit memory and those vectors. The
// lanes of a step's vectors may hold its elements in any order that Store undoes: an elementwise
// kernel computes each lane alone.
typedef float Float8 __attribute__((vector_size(32)));
typedef short Short8 __attribute__((vector_size(16)));
typedef unsigned UInt8 __attribute__((vector_size(32)));
typedef int Int8 __attribute__((vector_size(32)));
typedef Short8 StoredShort8 __attribute__((aligned(2), may_alias));
typedef float Float16 __attribute__((vector_size(64)));
typedef short Short16 __attribute__((vector_size(32)));
typedef unsigned UInt16 __attribute__((vector_size(64)));
typedef int Int16 __attribute__((vector_size(64)));
typedef short Short32 __attribute__((vector_size(64)));
typedef Short16 StoredShort16 __attribute__((aligned(2), may_alias));
typedef Short32 StoredShort32 __attribute__((aligned(2), may_alias));

// float -> BFLOAT16 bits in the low half of each 32-bit lane, as aclnn_bindgen::FloatToBFloat16:
// round to nearest even, a NaN quieted with its sign and payload. The NaN test is the float
// comparison v != v (no constants: GELU's erf keeps its own in the 16 AVX2 registers).
#define ACLSIM_BFLOAT16_ROUND(Bits, Mask, v)                        \
  const Bits bits = (Bits)(v);                                      \
  const Bits high = bits >> 16;                                     \
  const Bits rounded = (bits + 0x7fffu + (high & 1u)) >> 16;        \
  const Mask nan = (v) != (v);                                      \
  return (Mask)(nan ? (high | 0x40u) : rounded)

struct Float16Lanes {  // F16C, 8 at a time
  static constexpr int kLanes = 8, kRegisters = 1;
  using Vector = Float8;
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Load(const uint16_t* p, Float8* v) {
    v[0] = __builtin_ia32_vcvtph2ps256(*reinterpret_cast<const StoredShort8*>(p));
  }
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Store(uint16_t* p, const Float8* v) {
    *reinterpret_cast<StoredShort8*>(p) = __builtin_ia32_vcvtps2ph256(v[0], 0 /* round to nearest even */);
  }
};

struct BFloat16Lanes {  // 8 at a time, in order: the engine's converted rows
  static constexpr int kLanes = 8, kRegisters = 1;
  using Vector = Float8;
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Load(const uint16_t* p, Float8* v) {
    // vpmovzxwd: one instruction (GCC's __builtin_convertvector made two halves and an insert).
    v[0] = (Float8)((UInt8)__builtin_ia32_pmovzxwd256(*reinterpret_cast<const StoredShort8*>(p)) << 16);
  }
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline Int8 Round(Float8 v) {
    ACLSIM_BFLOAT16_ROUND(UInt8, Int8, v);
  }
  // Round's result where no lane is a NaN: the Stores test a step for one first. The NaN's blend
  // costs about what the rounding does (a compare, an or and a vblendvps, 2-3 uops on Intel's
  // cores) and a NaN is rare: a step that has one takes Round, so every result is Round's.
  // Measured in a loop of a multiply-add over 16K BFLOAT16 on one core of this Sapphire Rapids:
  // 0.157 -> 0.120 ns an element; in a rational like GELU's erf, 0.602 -> 0.558 (F16C's FLOAT16:
  // 0.065 and 0.445). Taking the elements' halves by shifts and masks instead of unpacks and a pack
  // measured the same (0.602 -> 0.596), and was not kept.
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline Int8 RoundNumber(Float8 v) {
    const UInt8 bits = (UInt8)v;
    return (Int8)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  }
  // Whether any lane of a comparison's mask is set (vmovmskps).
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline bool Any(Int8 lanes) {
    return __builtin_expect(__builtin_ia32_movmskps256((Float8)lanes) != 0, 0);
  }
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Store(uint16_t* p, const Float8* v) {
    Int8 rounded;
    if (Any(v[0] != v[0])) rounded = Round(v[0]);
    else rounded = RoundNumber(v[0]);
    const Short16 packed = (Short16)__builtin_ia32_packusdw256(rounded, Int8{});
    *reinterpret_cast<StoredShort8*>(p) = __builtin_shufflevector(packed, packed, 0, 1, 2, 3, 8, 9, 10, 11);
  }
};

// 16 BFLOAT16 a step in two AVX2 registers, for the fused loops: the unpacks against zero widen
// (elements 0-3 and 8-11 into the first, 4-7 and 12-15 into the second) and the store's pack
// narrows back into order, all within 128-bit lanes, where the in-order widening (vpmovzxwd) and
// narrowing (a pack and a cross-lane vpermq) cost two more instructions per 8 values. Measured in a
// GELU (erf) loop on one core of this Sapphire Rapids: 0.68 ns an element against 0.88.
struct BFloat16Pairs {
  static constexpr int kLanes = 8, kRegisters = 2;
  using Vector = Float8;
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Load(const uint16_t* p, Float8* v) {
    const Short16 halves = *reinterpret_cast<const StoredShort16*>(p), zero{};
    v[0] = (Float8)__builtin_shufflevector(zero, halves, 0, 16, 1, 17, 2, 18, 3, 19, 8, 24, 9, 25, 10, 26, 11, 27);
    v[1] = (Float8)__builtin_shufflevector(zero, halves, 4, 20, 5, 21, 6, 22, 7, 23, 12, 28, 13, 29, 14, 30, 15, 31);
  }
  __attribute__((target("avx2,f16c,fma"), always_inline)) static inline void Store(uint16_t* p, const Float8* v) {
    using L = BFloat16Lanes;
    if (L::Any((v[0] != v[0]) | (v[1] != v[1]))) {
      *reinterpret_cast<StoredShort16*>(p) = (Short16)__builtin_ia32_packusdw256(L::Round(v[0]), L::Round(v[1]));
    } else {
      *reinterpret_cast<StoredShort16*>(p) =
          (Short16)__builtin_ia32_packusdw256(L::RoundNumber(v[0]), L::RoundNumber(v[1]));
    }
  }
};

// The same conversions 16 lanes a register (AVX-512F's vcvtph2ps/vcvtps2ph; AVX-512BW's unpacks
// and pack, 32 BFLOAT16 a step as BFloat16Pairs: 0.40 ns an element in that loop against 0.49).
struct Float16Lanes16 {
  static constexpr int kLanes = 16, kRegisters = 1;
  using Vector = Float16;
  __attribute__((target(ACLSIM_AVX512_TARGET), always_inline)) static inline void Load(const uint16_t* p, Float16* v) {
    v[0] = __builtin_ia32_vcvtph2ps512_mask(*reinterpret_cast<const StoredShort16*>(p), Float16{}, 0xffff,
                                            4 /* _MM_FROUND_CUR_DIRECTION */);
  }
  __attribute__((target(ACLSIM_AVX512_TARGET), always_inline)) static inline void Store(uint16_t* p, const Float16* v) {
    *reinterpret_cast<StoredShort16*>(p) =
        __builtin_ia32_vcvtps2ph512_mask(v[0], 0 /* round to nearest even */, Short16{}, 0xffff);
  }
};

struct BFloat16Pairs16 {
  static constexpr int kLanes = 16, kRegisters = 2;
  using Vector = Float16;
  __attribute__((target(ACLSIM_AVX512_TARGET), always_inline)) static inline void Load(const uint16_t* p, Float16* v) {
    const Short32 halves = *reinterpret_cast<const StoredShort32*>(p), zero{};
    v[0] = (Float16)__builtin_shufflevector(zero, halves, 0, 32, 1, 33, 2, 34, 3, 35, 8, 40, 9, 41, 10, 42, 11, 43,
                                            16, 48, 17, 49, 18, 50, 19, 51, 24, 56, 25, 57, 26, 58, 27, 59);
    v[1] = (Float16)__builtin_shufflevector(zero, halves, 4, 36, 5, 37, 6, 38, 7, 39, 12, 44, 13, 45, 14, 46, 15, 47,
                                            20, 52, 21, 53, 22, 54, 23, 55, 28, 60, 29, 61, 30, 62, 31, 63);
  }
  __attribute__((target(ACLSIM_AVX512_TARGET), always_inline)) static inline Int16 Round(Float16 v) {
    ACLSIM_BFLOAT16_ROUND(UInt16, Int16, v);
  }
  // Round's NaN costs two instructions a register here, a vcmpneqps into a mask register and an or
  // merged under it (objdump of the fused loops), where AVX2's took a compare, an or and a
  // vblendvps of 2-3 uops: testing a step for a NaN first (as BFloat16Lanes::Store does) would need
  // the same compares, a kortest and a branch to save the two masked ors, so every step rounds alike.
  __attribute__((target(ACLSIM_AVX512_TARGET), always_inline)) static inline void Store(uint16_t* p, const Float16* v) {
    *reinterpret_cast<StoredShort32*>(p) =
        (Short32)__builtin_ia32_packusdw512_mask(Round(v[0]), Round(v[1]), Short32{}, ~0u);
  }
};
#undef ACLSIM_BFLOAT16_ROUND

// The fused loop of one code path: FusedStep##Path computes one step of Lanes' elements,
// ElementBlock16##Path a block. A macro because GCC inlines an always_inline helper only into a
// function of the same or a wider target, and the loads and stores of each path need its own.
#define ACLSIM_FUSED_LOOP(Path, TARGET)                                                                        \
  template <typename Kernel, typename Lanes, size_t... I>                                                      \
  __attribute__((target(TARGET), always_inline)) inline void FusedStep##Path(                                  \
      const Kernel& k, const uint16_t* const* src, uint16_t* dst) {                                            \
    typename Lanes::Vector args[sizeof...(I) + 1][Lanes::kRegisters];                                          \
    (Lanes::Load(src[I], args[I]), ...);                                                                       \
    typename Lanes::Vector results[Lanes::kRegisters];                                                         \
    _Pragma("GCC unroll 2") for (int r = 0; r < Lanes::kRegisters; ++r) {                                      \
      for (int64_t j = 0; j < Lanes::kLanes; ++j) results[r][j] = static_cast<float>(k(args[I][r][j]...));     \
    }                                                                                                          \
    Lanes::Store(dst, results);                                                                                \
  }                                                                                                            \
  template <typename Kernel, typename Lanes, size_t... I>                                                      \
  __attribute__((target(TARGET))) void ElementBlock16##Path(const void* kernel, const void* const* in,         \
                                                            void* out, int64_t n) {                            \
    constexpr int64_t kStep = Lanes::kLanes * Lanes::kRegisters;                                               \
    const Kernel k = *static_cast<const Kernel*>(kernel);                                                      \
    const uint16_t* src[sizeof...(I) + 1] = {static_cast<const uint16_t*>(in[I])...};                          \
    uint16_t* dst = static_cast<uint16_t*>(out);                                                               \
    int64_t i = 0;                                                                                             \
    for (; i + kStep <= n; i += kStep) {                                                                       \
      (__builtin_prefetch(reinterpret_cast<const char*>(src[I] + i) + kPrefetchBytes, 0, 3), ...);           \
      const uint16_t* at[sizeof...(I) + 1] = {(src[I] + i)...};                                                \
      FusedStep##Path<Kernel, Lanes, I...>(k, at, dst + i);                                                    \
    }                                                                                                          \
    if (i < n) { /* the last few elements, through zero-padded lanes */                                        \
      uint16_t tail_in[sizeof...(I) + 1][kStep] = {};                                                          \
      uint16_t tail_out[kStep];                                                                                \
      for (int64_t j = 0; j < n - i; ++j) ((tail_in[I][j] = src[I][i + j]), ...);                              \
      const uint16_t* at[sizeof...(I) + 1] = {tail_in[I]...};                                                  \
      FusedStep##Path<Kernel, Lanes, I...>(k, at, tail_out);                                                   \
      for (int64_t j = 0; j < n - i; ++j) dst[i + j] = tail_out[j];                                            \
    }                                                                                                          \
    (void)src;                                                                                                 \
  }
ACLSIM_FUSED_LOOP(Avx2, "avx2,f16c,fma")
ACLSIM_FUSED_LOOP(Avx512, ACLSIM_AVX512_TARGET)
#undef ACLSIM_FUSED_LOOP
#endif

// The bound kernel owns its functor (the call's scalars, read at phase 1) until the work is done;
// its memory comes from the simulator's pool, as every per-call object's does.
template <typename Kernel>
void OwnKernel(BoundKernel* bound, const Call& call) {
  void* memory = PoolAllocate(sizeof(Kernel));
  bound->kernel = new (memory) Kernel(call);
  bound->destroy = [](void* kernel) {
    static_cast<Kernel*>(kernel)->~Kernel();
    PoolFree(kernel, sizeof(Kernel));
  };
}

template <typename Kernel, typename T, size_t... I>
BoundKernel MakeBound(const Call& call, std::index_sequence<I...>) {
  BoundKernel bound;
  bound.block = &ElementBlock<Kernel, T, I...>;
#if defined(__x86_64__)
  if (UseAvx512()) {
    bound.block = &ElementBlockAvx512<Kernel, T, I...>;
    if constexpr (std::is_same<T, float>::value) {
      bound.float16_block = &ElementBlock16Avx512<Kernel, Float16Lanes16, I...>;
      bound.bfloat16_block = &ElementBlock16Avx512<Kernel, BFloat16Pairs16, I...>;
    }
  } else if (UseAvx2()) {
    bound.block = &ElementBlockAvx2<Kernel, T, I...>;
    if constexpr (std::is_same<T, float>::value) {
      bound.float16_block = &ElementBlock16Avx2<Kernel, Float16Lanes, I...>;
      bound.bfloat16_block = &ElementBlock16Avx2<Kernel, BFloat16Pairs, I...>;
    }
  }
#endif
  OwnKernel<Kernel>(&bound, call);
  return bound;
}

// The kernel `K<T>` for the compute type the core chose; integer arithmetic only for "exact" ops.
template <template <typename> class K, size_t N, IntegerMath Math>
BoundKernel BindElementwise(ComputeType type, const Call& call) {
  switch (type) {
    case ComputeType::kFloat32:
      return MakeBound<K<float>, float>(call, std::make_index_sequence<N>());
    case ComputeType::kFloat64:
      return MakeBound<K<double>, double>(call, std::make_index_sequence<N>());
    case ComputeType::kInt64:
      if constexpr (Math == IntegerMath::kExact) {
        return MakeBound<K<int64_t>, int64_t>(call, std::make_index_sequence<N>());
      }
      break;
    case ComputeType::kComplex64:
    case ComputeType::kComplex128:
      break;  // only for the APIs whose pages list complex dtypes: BindElementwiseComplex
  }
  return BoundKernel{};
}

}  // namespace aclsim

#endif  // ACLNN_SIM_ENTRY_H_
