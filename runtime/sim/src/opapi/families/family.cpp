// The kernel families' shared half: role access, the tensors of their work, element movement.
#include "opapi/families/family.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "common/dtypes.h"
#include "opapi/rules.h"
#include "opapi/thread_pool.h"
#include "opapi/work.h"

namespace aclsim {
namespace {

// Elements per parallel task at least (smaller moves stay on the calling thread).
constexpr int64_t kGrain = 1 << 16;

// A row-major walk over all dimensions but the last, with the last (the row) handed to `fn`
// as (first element's address, rows's index). Dimensions that are contiguous in `strides` are
// merged first, so that a dense tensor is one long row.
struct Rows {
  Dims shape;      // coalesced, the last dimension the row
  Dims strides;    // in bytes
  int64_t count = 1;  // rows
  int64_t length = 1;

  Rows(const TensorRef& t, size_t element) {
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] == 1) continue;
      const int64_t stride = t.strides[d] * static_cast<int64_t>(element);
      if (!shape.empty() && strides.back() == stride * t.shape[d]) {
        shape.back() *= t.shape[d];
        strides.back() = stride;
      } else {
        shape.push_back(t.shape[d]);
        strides.push_back(stride);
      }
    }
    if (shape.empty()) {
      shape.push_back(1);
      strides.push_back(static_cast<int64_t>(element));
    }
    length = shape.back();
    for (size_t d = 0; d + 1 < shape.size(); ++d) count *= shape[d];
  }

  char* RowAddress(char* first, int64_t row) const {
    int64_t offset = 0;
    for (size_t d = shape.size() - 1; d-- > 0;) {
      offset += (row % shape[d]) * strides[d];
      row /= shape[d];
    }
    return first + offset;
  }
};

template <typename Fn>
void ForRows(const Rows& rows, int64_t numel, Fn&& fn) {
  const int64_t tasks = numel < kGrain ? 1 : std::min<int64_t>(rows.count, ParallelThreads() * 4);
  if (tasks <= 1) {
    for (int64_t r = 0; r < rows.count; ++r) fn(r);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) {
    const int64_t begin = rows.count * task / tasks, end = rows.count * (task + 1) / tasks;
    for (int64_t r = begin; r < end; ++r) fn(r);
  });
}

struct ScratchBuffer {
  void* data = nullptr;
  size_t bytes = 0;
  ~ScratchBuffer() { std::free(data); }
};

}  // namespace

// --- roles --------------------------------------------------------------------------------------

const Call::Param* RoleParam(const Call& call, const FamilySpec& family, int role) {
  const int index = family.roles[role];
  if (index < 0 || index >= call.spec.param_count) return nullptr;
  const Call::Param& param = call.params[index];
  return param.present ? &param : nullptr;
}

const char* RoleName(const Call& call, const FamilySpec& family, int role) {
  const int index = family.roles[role];
  return index < 0 ? "" : call.spec.params[index].name;
}

const TensorDesc* RoleTensor(const Call& call, const FamilySpec& family, int role) {
  const Call::Param* p = RoleParam(call, family, role);
  if (!p || call.spec.params[family.roles[role]].kind != ParamKind::kTensor) return nullptr;
  return &p->tensor;
}

bool RoleInts(const Call& call, const FamilySpec& family, int role, Dims* out) {
  const Call::Param* p = RoleParam(call, family, role);
  if (!p) return false;
  out->clear();
  const int index = family.roles[role];
  switch (call.spec.params[index].kind) {
    case ParamKind::kIntArray:
      for (int64_t v : p->ints) out->push_back(v);
      return true;
    case ParamKind::kInt: case ParamKind::kBool:
      out->push_back(call.args[index].integer);
      return true;
    case ParamKind::kScalar:
      out->push_back(p->scalar_int);
      return true;
    default:
      return false;
  }
}

int64_t RoleInt(const Call& call, const FamilySpec& family, int role, int64_t fallback) {
  Dims values;
  return RoleInts(call, family, role, &values) && values.size() == 1 ? values[0] : fallback;
}

std::string RoleText(const Call& call, const FamilySpec& family, int role) {
  const int index = family.roles[role];
  if (index < 0 || call.spec.params[index].kind != ParamKind::kString) return "";
  const char* text = static_cast<const char*>(call.args[index].pointer);
  return text ? text : "";
}

bool RoleBool(const Call& call, const FamilySpec& family, int role, bool fallback) {
  const Call::Param* p = RoleParam(call, family, role);
  if (!p) return fallback;
  const int index = family.roles[role];
  switch (call.spec.params[index].kind) {
    case ParamKind::kBool: case ParamKind::kInt: return call.args[index].integer != 0;
    case ParamKind::kScalar: return p->scalar.AsBool();
    default: return fallback;
  }
}

double RoleNumber(const Call& call, const FamilySpec& family, int role, int option, double fallback) {
  const Call::Param* p = role >= 0 ? RoleParam(call, family, role) : nullptr;
  if (p) {
    const int index = family.roles[role];
    switch (call.spec.params[index].kind) {
      case ParamKind::kScalar: return p->scalar_double;
      case ParamKind::kFloat: return call.args[index].real;
      case ParamKind::kInt: case ParamKind::kBool: return static_cast<double>(call.args[index].integer);
      default: break;
    }
  }
  if (option >= 0 && family.has_option(option)) return family.options[option];
  return fallback;
}

aclDataType RoleDType(const Call& call, const FamilySpec& family, int role, aclDataType fallback) {
  const Call::Param* p = RoleParam(call, family, role);
  const int index = family.roles[role];
  if (!p || call.spec.params[index].kind != ParamKind::kDType) return fallback;
  return static_cast<aclDataType>(call.args[index].integer);
}

const std::vector<TensorDesc>* RoleTensorList(const Call& call, const FamilySpec& family, int role) {
  const Call::Param* p = RoleParam(call, family, role);
  if (!p || call.spec.params[family.roles[role]].kind != ParamKind::kTensorList) return nullptr;
  return &p->tensors;
}

std::vector<const TensorDesc*> RoleMembers(const Call& call, const FamilySpec& family, int role) {
  std::vector<const TensorDesc*> members;
  if (const std::vector<TensorDesc>* list = RoleTensorList(call, family, role)) {
    for (const TensorDesc& t : *list) members.push_back(&t);
  } else if (const TensorDesc* t = RoleTensor(call, family, role)) {
    members.push_back(t);
  }
  return members;
}

bool WrapDim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t extent = std::max<int64_t>(rank, 1);
  if (dim < -extent || dim >= extent) return false;
  *out = dim < 0 ? dim + extent : dim;
  return true;
}

std::string DimsText(const Dims& dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d) text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + "]";
}

bool FamilyComputeType(aclDataType dtype, bool integers, ComputeType* type) {
  switch (dtype) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: *type = ComputeType::kFloat32; return true;
    case ACL_DOUBLE: *type = ComputeType::kFloat64; return true;
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: case ACL_INT16: case ACL_INT32: case ACL_INT64:
    case ACL_UINT16: case ACL_UINT32: case ACL_UINT64:
      *type = integers ? ComputeType::kInt64 : ComputeType::kFloat64;
      return true;
    default: return false;
  }
}

bool ComputesInFloat32(aclDataType dtype) {
  ComputeType type;
  return FamilyComputeType(dtype, false, &type) && type == ComputeType::kFloat32;
}

aclnnStatus Decline(const Call& call, ExecutorWork** work, const std::string& why) {
  *work = new NotSimulatedWork(call.spec.name, why);
  return ACLNN_SUCCESS;
}

aclnnStatus DeclineDtype(const Call& call, ExecutorWork** work, aclDataType dtype) {
  return Decline(call, work, std::string("for dtype ") + DTypeName(dtype));
}

aclnnStatus RejectParam(const Call& call, const FamilySpec& family, int role, aclnnStatus status,
                        const std::string& message) {
  return call.Fail(status, std::string(RoleName(call, family, role)) + ": " + message);
}

aclnnStatus RejectInvalid(const Call& call, const FamilySpec& family, int role, const std::string& message) {
  return RejectParam(call, family, role, ACLNN_ERR_PARAM_INVALID, message);
}

const PageRowSpec* PageRow(const Call& call, const FamilySpec& family, RowKind kind, int role) {
  const int param = kind == RowKind::kValue && role >= 0 ? family.role(role) : -1;
  if (kind == RowKind::kValue && param < 0) return nullptr;
  for (uint8_t i = 0; i < call.spec.page_row_count; ++i) {
    const PageRowSpec& row = call.spec.page_rows[i];
    if (row.kind == kind && row.param == param) return &row;
  }
  return nullptr;
}

std::string RowCitation(const Call& call, const FamilySpec& family, RowKind kind, int role) {
  const PageRowSpec* row = PageRow(call, family, kind, role);
  return row ? Where(call.spec, row->line) : "";
}

aclnnStatus RejectDim(const Call& call, const FamilySpec& family, int role, int64_t dim, int64_t rank) {
  const int64_t extent = std::max<int64_t>(rank, 1);
  return RejectByRow(call, family, role, RowKind::kValue,
                     "dimension " + std::to_string(dim) + " is out of range [" + std::to_string(-extent) + ", " +
                         std::to_string(extent - 1) + "] for a tensor of rank " + std::to_string(rank));
}

aclnnStatus WrapDimOrReject(const Call& call, const FamilySpec& family, int role, int64_t dim, int64_t rank, int64_t* out) {
  return WrapDim(dim, rank, out) ? ACLNN_SUCCESS : RejectDim(call, family, role, dim, rank);
}

aclnnStatus RejectByRow(const Call& call, const FamilySpec& family, int role, RowKind kind, const std::string& message) {
  const PageRowSpec* row = PageRow(call, family, kind, role);
  if (!row) return RejectInvalid(call, family, role, message);
  return RejectParam(call, family, role, row->status ? row->status : ACLNN_ERR_PARAM_INVALID,
                     message + Where(call.spec, row->line));
}

aclnnStatus RejectByParamRow(const Call& call, const FamilySpec& family, int role, const std::string& message) {
  const int param = family.role(role);
  if (param < 0) return RejectInvalid(call, family, role, message);
  return RejectInvalid(call, family, role, message + Where(call.spec, call.spec.params[param].line));
}

bool ReadSourceAndOutput(const Call& call, const FamilySpec& family, int source_role, int out_role,
                         ExecutorWork** work, SourceAndOutput* found) {
  found->source = RoleTensor(call, family, source_role);
  found->out = RoleTensor(call, family, out_role);
  if (!found->source || !found->out) {
    Decline(call, work, "when its input or output is absent");
    return false;
  }
  found->rank = static_cast<int64_t>(found->source->view.size());
  if (found->rank > 16) {
    Decline(call, work, "for more than 16 dimensions");
    return false;
  }
  return true;
}

aclnnStatus CheckShape(const Call& call, const FamilySpec& family, int role, const TensorDesc* t, const Dims& shape,
                       const char* what) {
  if (t->view == shape) return ACLNN_SUCCESS;
  return RejectParam(call, family, role, ShapeStatus(call.spec), "shape " + DimsText(t->view) + " is not " + what + " " + DimsText(shape));
}

aclnnStatus CheckOneElement(const Call& call, const FamilySpec& family, int role, const TensorDesc* t) {
  if (t == nullptr || t->numel() == 1) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role, "shape " + DimsText(t->view) + " is not one element");
}

aclnnStatus FamilyWork::KeepOutput(const Call& call, const FamilySpec& family, int role, const TensorDesc& t,
                                   const Dims& shape, const char* what, int slot, bool one_value) {
  if (!(one_value && shape.empty() && t.numel() == 1)) {
    if (aclnnStatus s = CheckShape(call, family, role, &t, shape, what)) return s;
  }
  tensor(slot).Set(RoleName(call, family, role), t);
  return ACLNN_SUCCESS;
}

aclnnStatus PlanFamily(const Call& call, std::unique_ptr<ExecutorWork>* work, uint64_t* workspace) {
  const FamilySpec& family = *call.spec.family;
  ExecutorWork* made = nullptr;
  const aclnnStatus status = family.plan(call, family, &made, workspace);
  if (status == ACLNN_SUCCESS && !made) Decline(call, &made, "");
  work->reset(made);
  return status;
}

bool FamilyReadsPrivateLayout(const Call& call, int param, const TensorDesc& t) {
  const FamilySpec& family = *call.spec.family;
  return (family.plan == &PlanMatmul && MatmulReadsPrivateLayout(call, family, param, t)) ||
         (family.plan == &PlanMlaProlog && MlaPrologReadsPrivateLayout(call, family, param, t)) ||
         (family.plan == &PlanFormatCast && FormatCastReadsPrivateLayout(call, family, param, t));
}

// --- tensors --------------------------------------------------------------------------------------

void TensorRef::Set(const char* param, const TensorDesc& t) {
  name = param;
  data = t.data;
  dtype = t.dtype;
  shape = t.view;
  strides = t.strides;
  low = high = t.offset;
  for (size_t d = 0; d < t.view.size(); ++d) {
    const int64_t reach = (t.view[d] - 1) * t.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const uintptr_t address = reinterpret_cast<uintptr_t>(t.data) +
                            static_cast<uintptr_t>(t.offset) * static_cast<uintptr_t>(DTypeSize(t.dtype));
  first = reinterpret_cast<char*>(address);
}

bool BroadcastRef(TensorRef* t, const Dims& shape) {
  const size_t rank = shape.size(), own = t->shape.size();
  if (own > rank) return false;
  Dims strides(rank, 0);
  for (size_t d = 0; d < own; ++d) {
    const size_t to = rank - own + d;
    if (t->shape[d] == shape[to]) {
      strides[to] = t->strides[d];
    } else if (t->shape[d] != 1) {
      return false;
    }
  }
  t->shape = shape;
  t->strides = strides;
  return true;
}

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

TensorRef TensorRef::Permuted(const int64_t* order) const {
  TensorRef out = *this;
  for (size_t d = 0; d < shape.size(); ++d) {
    out.shape[d] = shape[order[d]];
    out.strides[d] = strides[order[d]];
  }
  return out;
}

bool TensorRef::Contiguous() const {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

FamilyWork::FamilyWork(const char* api, int tensors) : api_(api), count_(tensors) {
  refs_ = static_cast<TensorRef*>(PoolAllocate(sizeof(TensorRef) * static_cast<size_t>(std::max(tensors, 1))));
  for (int i = 0; i < tensors; ++i) new (&refs_[i]) TensorRef();
}

FamilyWork::~FamilyWork() {
  for (int i = 0; i < count_; ++i) refs_[i].~TensorRef();
  PoolFree(refs_, sizeof(TensorRef) * static_cast<size_t>(std::max(count_, 1)));
}

aclnnStatus FamilyWork::Run(aclrtStream) {
  for (int i = 0; i < count_; ++i) {
    const TensorRef& t = refs_[i];
    if (!t.data && t.shape.empty() && t.dtype == ACL_DT_UNDEFINED) continue;  // a slot left unused
    if (aclnnStatus s = CheckTensorMemory(api_, t.name, t.data, t.dtype, t.low, t.high, t.numel() == 0)) return s;
  }
  try {
    return Compute();
  } catch (const std::bad_alloc&) {  // a scratch buffer the host cannot give: the kernel's fault
    return Fail(ACLNN_ERR_INNER, std::string(api_) + ": the simulator's kernel is out of host memory");
  }
}

// --- moving elements ------------------------------------------------------------------------------

void GatherAs(const TensorRef& t, ComputeType type, void* dst) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const LoadFn load = Loader(type, t.dtype);
  const size_t size = ComputeSize(type);
  const Rows rows(t, DTypeSize(t.dtype));
  char* out = static_cast<char*>(dst);
  ForRows(rows, n, [&](int64_t r) {
    load(rows.RowAddress(t.first, r), rows.strides.back(), rows.length,
         out + static_cast<size_t>(r * rows.length) * size);
  });
}

void ScatterFrom(const void* src, ComputeType type, const TensorRef& t) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const StoreFn store = Storer(type, t.dtype);
  const size_t size = ComputeSize(type);
  const Rows rows(t, DTypeSize(t.dtype));
  const char* in = static_cast<const char*>(src);
  ForRows(rows, n, [&](int64_t r) {
    store(in + static_cast<size_t>(r * rows.length) * size, rows.RowAddress(t.first, r), rows.strides.back(),
          rows.length);
  });
}

double OneValue(const TensorRef& t) {
  double v = 0;
  GatherAs(t, ComputeType::kFloat64, &v);
  return v;
}

const void* ContiguousAs(const TensorRef& t, ComputeType type, int scratch) {
  if (t.dtype == StorageOf(type) && t.Contiguous()) return t.first;
  void* buffer = Scratch(scratch, static_cast<size_t>(std::max<int64_t>(t.numel(), 1)) * ComputeSize(type));
  GatherAs(t, type, buffer);
  return buffer;
}

void* Scratch(int slot, size_t bytes) {
  thread_local ScratchBuffer buffers[8];
  ScratchBuffer& b = buffers[slot];
  if (b.bytes < bytes) {
    std::free(b.data);
    // The size is recorded only once the buffer exists: after a failed allocation (a kernel out
    // of host memory) the slot is empty, not a null buffer that claims to hold `bytes`.
    b.data = nullptr;
    b.bytes = 0;
    const size_t size = std::max<size_t>(bytes, 4096);
    b.data = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (!b.data) throw std::bad_alloc();
    b.bytes = size;
  }
  return b.data;
}

}  // namespace aclsim
