// libnnopbase: aclTensor, aclScalar, the arrays and the lists, with the getters of acl_meta.h.
//
// Every object lives in a registry behind a never-reused handle (common/handles.h), so that a
// stale or foreign handle is an error, never a crash. As in CANN, a list owns the objects it was
// created from: aclDestroyTensorList destroys its tensors, and destroying one of them on its own
// is refused.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn_sim.h"
#include "common/dtypes.h"
#include "common/handles.h"
#include "aclnn_bindgen/formats.h"
#include "common/internal.h"

namespace aclsim {
namespace {

// CANN's operators take at most 8 dimensions; the object layer only refuses what no operator
// could use, so that a rank-9 tensor reaches the operators' own rank checks (161002).
constexpr uint64_t kMaxRank = 32;

struct TensorObject {
  TensorDesc desc;
  uintptr_t owner = 0;  // the tensor list that owns it
};

struct ScalarObject {
  ScalarValue value;
  uintptr_t owner = 0;
};

struct TensorListObject {
  std::vector<uintptr_t> items;  // 0 for a null element
};

struct ScalarListObject {
  std::vector<uintptr_t> items;
};

struct Objects {
  Registry<TensorObject> tensors{0x51};
  Registry<ScalarObject> scalars{0x52};
  Registry<std::vector<int64_t>> int_arrays{0x53};
  Registry<std::vector<float>> float_arrays{0x54};
  Registry<std::vector<bool>> bool_arrays{0x55};
  Registry<TensorListObject> tensor_lists{0x56};
  Registry<ScalarListObject> scalar_lists{0x57};
  Registry<Executor> executors{0x58};
  aclnn_bindgen::SpinLock ownership;  // list creation and destruction against single destroys
  aclnn_bindgen::SpinLock views;      // a kernel's SetTensorView against the readers of a desc
};

Objects& State() {
  static Objects* objects = new Objects;  // never destroyed: handles may be released during exit
  return *objects;
}

bool KnownFormat(int format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED: case ACL_FORMAT_NCHW: case ACL_FORMAT_NHWC: case ACL_FORMAT_ND:
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC: case ACL_FORMAT_FRACTAL_NZ: case ACL_FORMAT_NCDHW: case aclnn_bindgen::kFormatDHWCN:
    case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D: case ACL_FORMAT_NC: case ACL_FORMAT_NCL:
    case ACL_FORMAT_FRACTAL_NZ_C0_16: case ACL_FORMAT_FRACTAL_NZ_C0_32: case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4: case ACL_FORMAT_FRACTAL_NZ_C0_8:
      return true;
    default:
      return false;
  }
}

bool ReadDims(const char* api, const char* what, const int64_t* dims, uint64_t count, Dims* out) {
  if (count > kMaxRank) {
    SetError(std::string(api) + ": " + what + " has " + std::to_string(count) + " dimensions; at most " +
             std::to_string(kMaxRank) + " are supported");
    return false;
  }
  if (count && !dims) {
    SetError(std::string(api) + ": " + what + " is a null pointer but its count is " + std::to_string(count));
    return false;
  }
  out->assign(dims, dims + count);
  int64_t elements = 1;
  for (uint64_t i = 0; i < count; ++i) {
    if ((*out)[i] < 0) {
      SetError(std::string(api) + ": " + what + "[" + std::to_string(i) + "] is negative (" + std::to_string((*out)[i]) + ")");
      return false;
    }
    if (__builtin_mul_overflow(elements, (*out)[i], &elements)) {
      SetError(std::string(api) + ": " + what + " has more elements than int64 counts");
      return false;
    }
  }
  return true;
}

// Validates the arguments of aclCreateTensor/aclInitTensor into `desc`; false with the message set.
bool MakeTensor(const char* api, const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                uint64_t storageDimsNum, void* data, TensorDesc* desc) {
  const DTypeInfo* info = FindDType(dataType);
  // ACL_DT_UNDEFINED makes a tensor, as in CANN: it is the operator's dtype check that rejects it
  // (ACLNN_ERR_PARAM_INVALID), not aclCreateTensor (whose NULL would read as 161001).
  if (dataType != ACL_DT_UNDEFINED && (!info || info->dtype == ACL_STRING)) {
    SetError(std::string(api) + ": dataType " + std::to_string(static_cast<int>(dataType)) + " is not a tensor dtype");
    return false;
  }
  if (!KnownFormat(format)) {
    SetError(std::string(api) + ": format " + std::to_string(static_cast<int>(format)) + " is not an aclFormat");
    return false;
  }
  if (!ReadDims(api, "viewDims", viewDims, viewDimsNum, &desc->view)) return false;
  if (!ReadDims(api, "storageDims", storageDims, storageDimsNum, &desc->storage)) return false;
  if (stride) {
    desc->strides.assign(stride, stride + viewDimsNum);
  } else {
    // Lenient where CANN's headers say nothing: no strides means the contiguous ones.
    desc->strides.assign(viewDimsNum, 1);
    for (uint64_t i = viewDimsNum; i-- > 1;) desc->strides[i - 1] = desc->strides[i] * std::max<int64_t>(desc->view[i], 1);
  }
  // The farthest element from the data pointer must be addressable in int64 elements.
  if (offset == std::numeric_limits<int64_t>::min()) {
    SetError(std::string(api) + ": offset is out of range");
    return false;
  }
  int64_t reach = offset < 0 ? -offset : offset;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    int64_t step;
    const int64_t s = desc->strides[i];
    if (s == std::numeric_limits<int64_t>::min() ||
        (desc->view[i] > 0 && (__builtin_mul_overflow(desc->view[i] - 1, s < 0 ? -s : s, &step) ||
                               __builtin_add_overflow(reach, step, &reach)))) {
      SetError(std::string(api) + ": strides reach beyond what int64 element offsets address");
      return false;
    }
  }
  desc->offset = offset;
  desc->dtype = dataType;
  desc->format = format;
  desc->data = data;
  return true;
}

template <typename T>
T* Handle(uintptr_t value) {
  return reinterpret_cast<T*>(value);
}

aclnnStatus UnknownHandle(const char* api, const char* what) {
  return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": not a live " + what + " (destroyed twice, or never created?)");
}

aclnnStatus NullArgument(const char* api, const char* what) {
  return Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": " + what + " is a null pointer");
}

// FLOAT8_E4M3FN: 1 sign, 4 exponent (bias 7), 3 mantissa bits, no infinities, S.1111.111 is NaN.
double E4M3ToDouble(uint8_t b) {
  const int exponent = (b >> 3) & 0xf, mantissa = b & 7;
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  if (exponent == 0xf && mantissa == 7) return std::numeric_limits<double>::quiet_NaN();
  if (exponent == 0) return sign * std::ldexp(mantissa / 8.0, -6);
  return sign * std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
}

template <typename T>
T Load(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

double ScalarValue::AsDouble() const {
  switch (dtype) {
    case ACL_FLOAT: case ACL_COMPLEX64: return Load<float>(bytes);
    case ACL_DOUBLE: case ACL_COMPLEX128: return Load<double>(bytes);
    case ACL_FLOAT16: case ACL_COMPLEX32: return HalfToFloat(Load<uint16_t>(bytes));
    case ACL_BF16: return BFloat16ToFloat(Load<uint16_t>(bytes));
    case ACL_INT8: return Load<int8_t>(bytes);
    case ACL_INT16: return Load<int16_t>(bytes);
    case ACL_INT32: return Load<int32_t>(bytes);
    case ACL_INT64: return static_cast<double>(Load<int64_t>(bytes));
    case ACL_UINT8: return Load<uint8_t>(bytes);
    case ACL_UINT16: return Load<uint16_t>(bytes);
    case ACL_UINT32: return Load<uint32_t>(bytes);
    case ACL_UINT64: return static_cast<double>(Load<uint64_t>(bytes));
    case ACL_BOOL: return bytes[0] != 0;
    case ACL_FLOAT8_E5M2: return HalfToFloat(static_cast<uint16_t>(bytes[0] << 8));
    case ACL_FLOAT8_E4M3FN: return E4M3ToDouble(bytes[0]);
    case ACL_INT4: return static_cast<int8_t>(static_cast<uint8_t>(bytes[0] << 4)) >> 4;
    default: return std::numeric_limits<double>::quiet_NaN();  // formats without a simulated decoding
  }
}

double ScalarValue::ImagAsDouble() const {
  switch (dtype) {  // the parts are stored real first, as std::complex and NumPy store them
    case ACL_COMPLEX64: return Load<float>(bytes + sizeof(float));
    case ACL_COMPLEX128: return Load<double>(bytes + sizeof(double));
    case ACL_COMPLEX32: return HalfToFloat(Load<uint16_t>(bytes + sizeof(uint16_t)));
    default: return 0.0;
  }
}

int64_t ScalarValue::AsInt() const {
  switch (dtype) {
    case ACL_INT64: return Load<int64_t>(bytes);
    case ACL_UINT64: return static_cast<int64_t>(Load<uint64_t>(bytes));
    default: break;
  }
  const double value = AsDouble();
  if (std::isnan(value)) return 0;
  if (value >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

bool ScalarValue::AsBool() const { return AsDouble() != 0.0; }

bool GetTensor(const aclTensor* tensor, TensorDesc* out) {
  auto object = State().tensors.Find(tensor);
  if (!object) return SetError("not a live aclTensor"), false;
  std::lock_guard<aclnn_bindgen::SpinLock> lock(State().views);
  *out = object->desc;
  return true;
}

bool IsLiveTensor(const aclTensor* tensor) { return State().tensors.Find(tensor) != nullptr; }

bool SetTensorView(const aclTensor* tensor, const Dims& view) {
  auto object = State().tensors.Find(tensor);
  if (!object) return false;
  Dims strides(view.size(), 1);
  for (size_t i = view.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(view[i], 1);
  std::lock_guard<aclnn_bindgen::SpinLock> lock(State().views);
  object->desc.view = view;
  object->desc.strides = strides;
  return true;
}

bool GetScalar(const aclScalar* scalar, ScalarValue* out) {
  auto object = State().scalars.Find(scalar);
  if (!object) return SetError("not a live aclScalar"), false;
  *out = object->value;
  return true;
}

bool GetIntArray(const aclIntArray* array, std::vector<int64_t>* out) {
  auto object = State().int_arrays.Find(array);
  if (!object) return SetError("not a live aclIntArray"), false;
  *out = *object;
  return true;
}

bool GetFloatArray(const aclFloatArray* array, std::vector<float>* out) {
  auto object = State().float_arrays.Find(array);
  if (!object) return SetError("not a live aclFloatArray"), false;
  *out = *object;
  return true;
}

bool GetBoolArray(const aclBoolArray* array, std::vector<bool>* out) {
  auto object = State().bool_arrays.Find(array);
  if (!object) return SetError("not a live aclBoolArray"), false;
  *out = *object;
  return true;
}

bool GetTensorList(const aclTensorList* list, std::vector<const aclTensor*>* out) {
  auto object = State().tensor_lists.Find(list);
  if (!object) return SetError("not a live aclTensorList"), false;
  out->clear();
  for (uintptr_t item : object->items) out->push_back(Handle<const aclTensor>(item));
  return true;
}

bool GetScalarList(const aclScalarList* list, std::vector<const aclScalar*>* out) {
  auto object = State().scalar_lists.Find(list);
  if (!object) return SetError("not a live aclScalarList"), false;
  out->clear();
  for (uintptr_t item : object->items) out->push_back(Handle<const aclScalar>(item));
  return true;
}

aclOpExecutor* CreateExecutor(const char* api, uint64_t workspace_size, const AddressSet& addresses,
                              std::unique_ptr<ExecutorWork> work) {
  auto executor = MakeShared<Executor>();
  executor->api = api;
  executor->workspace_size = workspace_size;
  executor->addresses = addresses;
  executor->work = std::move(work);
  Executor* raw = executor.get();
  const uintptr_t handle = State().executors.Add(std::move(executor));
  raw->handle = handle;  // nobody has the handle yet: no other thread reads the field
  return Handle<aclOpExecutor>(handle);
}

std::shared_ptr<Executor> AcquireExecutor(aclOpExecutor* handle, const char* api) {
  Objects& objects = State();
  std::shared_ptr<Executor> executor = objects.executors.Find(handle);
  if (!executor) {
    SetError(std::string(api) + ": not a live executor (already run, destroyed, or not made by a GetWorkspaceSize call)");
    return nullptr;
  }
  if (std::strcmp(executor->api, api) != 0) {
    SetError(std::string(api) + ": the executor was made by " + executor->api + "GetWorkspaceSize, not " + api +
             "GetWorkspaceSize");
    return nullptr;
  }
  if (!executor->repeatable) {
    // Single use: the first phase-2 call takes it out of the registry; a second call finds nothing.
    executor = objects.executors.Take(handle);
    if (!executor) SetError(std::string(api) + ": not a live executor (another thread is running it)");
  }
  return executor;
}

// A tensor or scalar list: it owns its elements from now on (as in CANN: destroying the list
// destroys them, destroying one of them alone is refused). Null elements stay null.
template <typename ListHandle, typename List, typename Item, typename Element>
ListHandle* CreateList(const char* api, const char* kind, const char* noun, Registry<Item>& items, Registry<List>& lists,
                       const Element* const* value, uint64_t size) {
  if (size && !value) {
    SetError(std::string(api) + ": value is a null pointer but size is " + std::to_string(size));
    return nullptr;
  }
  std::lock_guard<aclnn_bindgen::SpinLock> lock(State().ownership);
  auto list = MakeShared<List>();
  for (uint64_t i = 0; i < size; ++i) {
    const uintptr_t item = reinterpret_cast<uintptr_t>(value[i]);
    auto object = item ? items.Find(value[i]) : nullptr;
    std::string problem;
    if (item && !object) problem = std::string("is not a live ") + kind;
    else if (object && object->owner) problem = std::string("already belongs to a ") + noun + " list";
    else if (item && std::find(list->items.begin(), list->items.end(), item) != list->items.end()) problem = "appears twice";
    if (!problem.empty()) {
      SetError(std::string(api) + ": element " + std::to_string(i) + " " + problem);
      return nullptr;
    }
    list->items.push_back(item);
  }
  const uintptr_t handle = lists.Add(list);
  for (uintptr_t item : list->items) {
    if (item) items.With(reinterpret_cast<void*>(item), [&](Item& object) { object.owner = handle; });
  }
  return Handle<ListHandle>(handle);
}

// A tensor or scalar on its own: one a list owns is the list's to destroy.
template <typename Item>
aclnnStatus DestroyOwned(const char* api, const char* kind, const char* noun, Registry<Item>& items, const void* handle) {
  if (!handle) return ACLNN_SUCCESS;
  std::lock_guard<aclnn_bindgen::SpinLock> lock(State().ownership);
  auto object = items.Find(handle);
  if (!object) return UnknownHandle(api, kind);
  if (object->owner) {
    return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": the " + noun + " belongs to a " + noun + " list; " + api +
                                             "List destroys it");
  }
  items.Take(handle);
  return ACLNN_SUCCESS;
}

}  // namespace aclsim

using aclsim::Fail;
using aclsim::State;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
  try {
    auto object = aclsim::MakeShared<aclsim::TensorObject>();
    if (!aclsim::MakeTensor("aclCreateTensor", viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                            storageDimsNum, tensorData, &object->desc)) {
      return nullptr;
    }
    return aclsim::Handle<aclTensor>(State().tensors.Add(std::move(object)));
  } catch (const std::bad_alloc&) {
    aclsim::SetError("aclCreateTensor: out of host memory");
    return nullptr;
  }
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t* stride, int64_t offset, aclFormat format, const int64_t* storageDims,
                          uint64_t storageDimsNum, void* tensorDataAddr) {
  if (!tensor) return aclsim::NullArgument("aclInitTensor", "tensor");
  aclsim::TensorDesc desc;
  if (!aclsim::MakeTensor("aclInitTensor", viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                          storageDimsNum, tensorDataAddr, &desc)) {
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (!State().tensors.With(tensor, [&](aclsim::TensorObject& object) { object.desc = std::move(desc); })) {
    return aclsim::UnknownHandle("aclInitTensor", "aclTensor");
  }
  return ACLNN_SUCCESS;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (!value) {
    aclsim::SetError("aclCreateScalar: value is a null pointer");
    return nullptr;
  }
  const aclsim::DTypeInfo* info = aclsim::FindDType(dataType);
  if (!info || info->dtype == ACL_STRING) {
    aclsim::SetError("aclCreateScalar: dataType " + std::to_string(static_cast<int>(dataType)) + " is not a scalar dtype");
    return nullptr;
  }
  auto object = aclsim::MakeShared<aclsim::ScalarObject>();
  object->value.dtype = dataType;
  // Packed sub-byte dtypes (INT4, FLOAT4_*) occupy one byte as a scalar.
  std::memcpy(object->value.bytes, value, info->size ? info->size : 1);
  return aclsim::Handle<aclScalar>(State().scalars.Add(std::move(object)));
}

}  // extern "C"

namespace {

template <typename Element, typename Handle>
Handle* CreateArray(const char* api, aclsim::Registry<std::vector<Element>>& registry, const Element* value,
                    uint64_t size) {
  if (size && !value) {
    aclsim::SetError(std::string(api) + ": value is a null pointer but size is " + std::to_string(size));
    return nullptr;
  }
  try {
    auto object = aclsim::MakeShared<std::vector<Element>>(value, value + size);
    return aclsim::Handle<Handle>(registry.Add(std::move(object)));
  } catch (const std::exception&) {
    aclsim::SetError(std::string(api) + ": cannot hold " + std::to_string(size) + " elements");
    return nullptr;
  }
}

template <typename Object>
aclnnStatus DestroyPlain(const char* api, const char* what, aclsim::Registry<Object>& registry, const void* handle) {
  if (!handle) return ACLNN_SUCCESS;  // as free(NULL)
  return registry.Take(handle) ? ACLNN_SUCCESS : aclsim::UnknownHandle(api, what);
}

template <typename Object>
aclnnStatus GetSize(const char* api, const char* what, aclsim::Registry<Object>& registry, const void* handle,
                    uint64_t* size) {
  if (!handle) return aclsim::NullArgument(api, what);
  if (!size) return aclsim::NullArgument(api, "size");
  auto object = registry.Find(handle);
  if (!object) return aclsim::UnknownHandle(api, what);
  *size = object->size();
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" {

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return CreateArray<int64_t, aclIntArray>("aclCreateIntArray", State().int_arrays, value, size);
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return CreateArray<float, aclFloatArray>("aclCreateFloatArray", State().float_arrays, value, size);
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return CreateArray<bool, aclBoolArray>("aclCreateBoolArray", State().bool_arrays, value, size);
}

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  auto& objects = State();
  return aclsim::CreateList<aclTensorList, aclsim::TensorListObject>("aclCreateTensorList", "aclTensor", "tensor", objects.tensors,
                                                                   objects.tensor_lists, value, size);
}

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  auto& objects = State();
  return aclsim::CreateList<aclScalarList, aclsim::ScalarListObject>("aclCreateScalarList", "aclScalar", "scalar", objects.scalars,
                                                                   objects.scalar_lists, value, size);
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  return aclsim::DestroyOwned("aclDestroyTensor", "aclTensor", "tensor", State().tensors, tensor);
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  return aclsim::DestroyOwned("aclDestroyScalar", "aclScalar", "scalar", State().scalars, scalar);
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return DestroyPlain("aclDestroyIntArray", "aclIntArray", State().int_arrays, array);
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return DestroyPlain("aclDestroyFloatArray", "aclFloatArray", State().float_arrays, array);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return DestroyPlain("aclDestroyBoolArray", "aclBoolArray", State().bool_arrays, array);
}

aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  if (!array) return ACLNN_SUCCESS;
  auto& objects = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(objects.ownership);
  auto list = objects.tensor_lists.Take(array);
  if (!list) return aclsim::UnknownHandle("aclDestroyTensorList", "aclTensorList");
  for (uintptr_t item : list->items) {
    if (item) objects.tensors.Take(reinterpret_cast<void*>(item));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  if (!array) return ACLNN_SUCCESS;
  auto& objects = State();
  std::lock_guard<aclnn_bindgen::SpinLock> lock(objects.ownership);
  auto list = objects.scalar_lists.Take(array);
  if (!list) return aclsim::UnknownHandle("aclDestroyScalarList", "aclScalarList");
  for (uintptr_t item : list->items) {
    if (item) objects.scalars.Take(reinterpret_cast<void*>(item));
  }
  return ACLNN_SUCCESS;
}

// The shape getters hand out a new[] array that the caller releases with delete[], as CANN's do.
static aclnnStatus CopyDims(const char* api, const aclTensor* tensor, int64_t** dims, uint64_t* count,
                            aclsim::Dims aclsim::TensorDesc::*field) {
  if (!tensor) return aclsim::NullArgument(api, "tensor");
  if (!dims || !count) return aclsim::NullArgument(api, dims ? "the count pointer" : "the dims pointer");
  aclsim::TensorDesc desc;
  if (!aclsim::GetTensor(tensor, &desc)) return aclsim::UnknownHandle(api, "aclTensor");
  const aclsim::Dims& values = desc.*field;
  *dims = new int64_t[values.size()];
  std::copy(values.begin(), values.end(), *dims);
  *count = values.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return CopyDims("aclGetViewShape", tensor, viewDims, viewDimsNum, &aclsim::TensorDesc::view);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
  return CopyDims("aclGetStorageShape", tensor, storageDims, storageDimsNum, &aclsim::TensorDesc::storage);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
  return CopyDims("aclGetViewStrides", tensor, stridesValue, stridesNum, &aclsim::TensorDesc::strides);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (!tensor || !offset) return aclsim::NullArgument("aclGetViewOffset", tensor ? "offset" : "tensor");
  aclsim::TensorDesc desc;
  if (!aclsim::GetTensor(tensor, &desc)) return aclsim::UnknownHandle("aclGetViewOffset", "aclTensor");
  *offset = desc.offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (!tensor || !format) return aclsim::NullArgument("aclGetFormat", tensor ? "format" : "tensor");
  aclsim::TensorDesc desc;
  if (!aclsim::GetTensor(tensor, &desc)) return aclsim::UnknownHandle("aclGetFormat", "aclTensor");
  *format = desc.format;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (!tensor || !dataType) return aclsim::NullArgument("aclGetDataType", tensor ? "dataType" : "tensor");
  aclsim::TensorDesc desc;
  if (!aclsim::GetTensor(tensor, &desc)) return aclsim::UnknownHandle("aclGetDataType", "aclTensor");
  *dataType = desc.dtype;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return GetSize("aclGetIntArraySize", "aclIntArray", State().int_arrays, array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return GetSize("aclGetFloatArraySize", "aclFloatArray", State().float_arrays, array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return GetSize("aclGetBoolArraySize", "aclBoolArray", State().bool_arrays, array, size);
}

aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  if (!tensorList) return aclsim::NullArgument("aclGetTensorListSize", "tensorList");
  if (!size) return aclsim::NullArgument("aclGetTensorListSize", "size");
  auto list = State().tensor_lists.Find(tensorList);
  if (!list) return aclsim::UnknownHandle("aclGetTensorListSize", "aclTensorList");
  *size = list->items.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  if (!scalarList) return aclsim::NullArgument("aclGetScalarListSize", "scalarList");
  if (!size) return aclsim::NullArgument("aclGetScalarListSize", "size");
  auto list = State().scalar_lists.Find(scalarList);
  if (!list) return aclsim::UnknownHandle("aclGetScalarListSize", "aclScalarList");
  *size = list->items.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  if (!executor) return aclsim::NullArgument("aclSetAclOpExecutorRepeatable", "executor");
  if (!State().executors.With(executor, [](aclsim::Executor& e) { e.repeatable = true; })) {
    return aclsim::UnknownHandle("aclSetAclOpExecutorRepeatable", "executor");
  }
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  if (!executor) return ACLNN_SUCCESS;
  return State().executors.Take(executor) ? ACLNN_SUCCESS : aclsim::UnknownHandle("aclDestroyAclOpExecutor", "executor");
}

aclnnStatus aclnnInit(const char* configPath) {
  (void)configPath;  // nothing to configure: the simulator's kernels are built in
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

int aclsimGetStats(aclsimStats* out) {
  if (aclsimGetRuntimeStats(out) != 0) return 1;
  auto& objects = State();
  out->tensors = objects.tensors.size();
  out->scalars = objects.scalars.size();
  out->int_arrays = objects.int_arrays.size();
  out->float_arrays = objects.float_arrays.size();
  out->bool_arrays = objects.bool_arrays.size();
  out->tensor_lists = objects.tensor_lists.size();
  out->scalar_lists = objects.scalar_lists.size();
  out->executors = objects.executors.size();
  return 0;
}

// Asked by the Python bindings before every launch: a look under the registry's lock, without the
// two atomic updates of a shared_ptr copy (Find).
const char* aclsimExecutorNotSimulated(const aclOpExecutor* handle) {
  const char* why = nullptr;
  aclsim::State().executors.With(handle, [&](aclsim::Executor& executor) {
    if (executor.work) why = executor.work->NotSimulated();
  });
  return why;
}

uint64_t aclsimLiveObjects(void) {
  aclsimStats stats;
  aclsimGetStats(&stats);
  return stats.tensors + stats.scalars + stats.int_arrays + stats.float_arrays + stats.bool_arrays +
         stats.tensor_lists + stats.scalar_lists + stats.executors;
}

}  // extern "C"
