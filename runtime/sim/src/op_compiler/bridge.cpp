// The aclop bridge's machinery (bridge.h): reading a call's attributes and constant inputs, making
// aclnn objects of its operands, and running an aclnn API of libopapi on the call's stream.
#include "op_compiler/bridge.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/dtypes.h"
#include "common/internal.h"
#include "op_compiler/prototype_check.h"
#include "op_compiler/runners.h"

namespace aclsim::aclop {

const std::initializer_list<const char*> kReductions = {"none", "mean", "sum"};

namespace {

// AttrKind names OpAttrValue's alternatives in order.
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<size_t>(AttrKind::kDataType), OpAttrValue>, aclDataType> &&
              std::is_same_v<std::variant_alternative_t<static_cast<size_t>(AttrKind::kListListInt), OpAttrValue>,
                             std::vector<std::vector<int64_t>>> &&
              std::variant_size_v<OpAttrValue> == static_cast<size_t>(AttrKind::kListListInt) + 1);

const char* KindName(size_t index) {
  static const char* const kNames[] = {"bool", "int", "float", "string", "data type",
                                       "list of bool", "list of int", "list of float", "list of list of int"};
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : "?";
}

const char* Placement(const OpTensorDesc& desc) {
  if (desc.constant) return "const";
  return desc.placement == ACL_MEMTYPE_DEVICE ? "device" : "host";
}

std::string AttrText(const OpAttrValue& value) {
  std::ostringstream out;
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) out << '"' << v << '"';
        else if constexpr (std::is_same_v<V, aclDataType>) out << DTypeName(v);
        else if constexpr (std::is_same_v<V, std::vector<std::vector<int64_t>>>) {
          out << '[';
          for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << ListText(v[i]);
          out << ']';
        } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) out << ListText(v);
        else if constexpr (std::is_same_v<V, std::vector<bool>> || std::is_same_v<V, std::vector<float>>) {
          out << '[';
          for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
          out << ']';
        } else out << v;
      },
      value);
  return out.str();
}

// The host bytes of a constant input, or null when the input is held in device memory.
const uint8_t* HostBytes(const Operand& operand, size_t* size) {
  const OpTensorDesc& desc = *operand.desc;
  if (desc.constant) {
    *size = desc.constant_data.size();
    return desc.constant_data.data();
  }
  if (desc.placement == ACL_MEMTYPE_DEVICE) return nullptr;
  *size = operand.buffer->size;
  return static_cast<const uint8_t*>(operand.buffer->data);
}

}  // namespace

bool PlainFormat(aclFormat format) {
  const int value = static_cast<int>(format);
  return value >= 0 && value < 64 && ((aclsim::kPlainFormats >> value) & 1) != 0;
}

std::string ListText(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(dims[i], 1);
  return strides;
}

aclError OpCall::Fail(aclError status, const std::string& what) const { return aclsim::Fail(status, Where() + ": " + what); }

std::string OpCall::Signature() const {
  auto operands = [](const std::vector<Operand>& list) {
    std::string text;
    for (size_t i = 0; i < list.size(); ++i) {
      const OpTensorDesc& d = *list[i].desc;
      text += (i ? ", " : "") + std::string(DTypeName(d.dtype)) + ListText(d.dims) + " format " +
              std::to_string(static_cast<int>(d.format)) + " " + Placement(d);
    }
    return text;
  };
  std::string text = "inputs (" + operands(inputs) + "), outputs (" + operands(outputs) + "), attributes {";
  bool first = true;
  for (const auto& [name, value] : attrs) {
    text += (first ? "" : ", ") + name + ": " + KindName(value.index()) + " " + AttrText(value);
    first = false;
  }
  return text + "}";
}

bool OpCall::Bool(const char* name, bool fallback) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? fallback : std::get<bool>(it->second);
}

int64_t OpCall::Int(const char* name, int64_t fallback) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? fallback : std::get<int64_t>(it->second);
}

float OpCall::Float(const char* name, float fallback) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? fallback : std::get<float>(it->second);
}

std::string OpCall::String(const char* name, const std::string& fallback) const {
  auto it = attrs.find(name);
  // A bool in its place is a literal torch_npu set through Attr's bool overload (Run): the default.
  return it == attrs.end() || !std::holds_alternative<std::string>(it->second) ? fallback : std::get<std::string>(it->second);
}

std::vector<int64_t> OpCall::Ints(const char* name, const std::vector<int64_t>& fallback) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? fallback : std::get<std::vector<int64_t>>(it->second);
}

aclError OpCall::Choice(const char* name, const char* fallback, std::initializer_list<const char*> values,
                        int64_t* index) const {
  const std::string value = String(name, fallback);
  *index = 0;
  for (const char* known : values) {
    if (value == known) return ACL_SUCCESS;
    ++*index;
  }
  return Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("attribute ") + name + " = \"" + value + "\" is not modelled");
}

aclError OpCall::ConstBytes(size_t input, const char* what, const uint8_t** bytes, size_t* size) const {
  *bytes = HostBytes(inputs.at(input), size);
  if (*bytes) return ACL_SUCCESS;
  // A value input in device memory (op-plugin's OpCommand passes a reduction's axes, Fill's value,
  // Tile's multiples as device tensors when it runs a plain tensor's op through aclop): the device's
  // kernel reads it when it runs, after the work queued before it, so the bridge waits for that
  // work on the call's stream and reads the value then.
  const Operand& operand = inputs.at(input);
  const int64_t count = Elements(operand.desc->dims);
  const size_t item = DTypeSize(operand.desc->dtype);
  if (count < 0 || item == 0 || static_cast<size_t>(count) * item > operand.buffer->size) {
    return Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " holds fewer bytes than its shape " +
                                                  ListText(operand.desc->dims) + " needs");
  }
  const size_t needed = static_cast<size_t>(count) * item;
  if (aclError s = aclrtSynchronizeStream(stream)) {
    return Fail(s, std::string("input ") + what + " is in device memory, and the work before it failed: " + aclGetRecentErrMsg());
  }
  std::vector<uint8_t>& copy = device_values_[input];
  copy.assign(needed + 1, 0);  // never empty: a null pointer says "no bytes"
  if (needed) {
    if (aclError s = aclrtMemcpy(copy.data(), needed, operand.buffer->data, needed, ACL_MEMCPY_DEVICE_TO_HOST)) {
      return Fail(s, std::string("input ") + what + ": reading it from device memory: " + aclGetRecentErrMsg());
    }
  }
  *bytes = copy.data();
  *size = needed;
  return ACL_SUCCESS;
}

aclError OpCall::ConstInts(size_t input, const char* what, std::vector<int64_t>* values) const {
  const Operand& operand = inputs.at(input);
  size_t size = 0;
  const uint8_t* bytes = nullptr;
  if (aclError s = ConstBytes(input, what, &bytes, &size)) return s;
  const aclDataType dtype = operand.desc->dtype;
  // Every integer dtype whose values int64 holds exactly (torch.arange of int8 sends INT8 bounds).
  switch (dtype) {
    case ACL_INT8: case ACL_UINT8: case ACL_INT16: case ACL_UINT16: case ACL_INT32: case ACL_UINT32: case ACL_INT64:
      break;
    default:
      return Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("input ") + what + " of dtype " + DTypeName(dtype) +
                                                       " (the integer dtypes int64 holds are modelled)");
  }
  const size_t item = DTypeSize(dtype);
  const int64_t count = Elements(operand.desc->dims);
  if (count < 0 || static_cast<size_t>(count) * item > size) {
    return Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " holds fewer bytes than its shape " +
                                                  ListText(operand.desc->dims) + " needs");
  }
  values->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    ScalarValue scalar;  // decoded as an aclScalar's value is
    scalar.dtype = dtype;
    std::memcpy(scalar.bytes, bytes + i * static_cast<int64_t>(item), item);
    (*values)[i] = scalar.AsInt();
  }
  return ACL_SUCCESS;
}

aclError OpCall::ConstFloat(size_t input, const char* what, double* value) const {
  const Operand& operand = inputs.at(input);
  size_t size = 0;
  const uint8_t* bytes = nullptr;
  if (aclError s = ConstBytes(input, what, &bytes, &size)) return s;
  const aclDataType dtype = operand.desc->dtype;
  const size_t item = DTypeSize(dtype);
  if (Elements(operand.desc->dims) != 1 || item == 0 || size < item) {
    return Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string("input ") + what + " is not one element");
  }
  switch (dtype) {
    case ACL_FLOAT: case ACL_DOUBLE: case ACL_FLOAT16: case ACL_BF16: case ACL_INT8: case ACL_INT16: case ACL_INT32:
    case ACL_INT64: case ACL_UINT8:
    case ACL_BOOL:  // torch.isreal fills with True
      break;
    default:
      return Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string("input ") + what + " of dtype " + DTypeName(dtype));
  }
  ScalarValue scalar;  // decoded as an aclScalar's value is
  scalar.dtype = dtype;
  std::memcpy(scalar.bytes, bytes, item);
  *value = scalar.AsDouble();
  return ACL_SUCCESS;
}

aclError OpCall::Arity(size_t min_inputs, size_t max_inputs, size_t num_outputs) const {
  if (inputs.size() < min_inputs || inputs.size() > max_inputs) {
    return Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::to_string(inputs.size()) + " inputs (the prototype has " +
                                                  std::to_string(min_inputs) +
                                                  (max_inputs > min_inputs ? " to " + std::to_string(max_inputs) : "") + ")");
  }
  if (outputs.size() != num_outputs) {
    return Fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, std::to_string(outputs.size()) + " outputs (the prototype has " +
                                                   std::to_string(num_outputs) + ")");
  }
  return ACL_SUCCESS;
}

AclnnObjects::~AclnnObjects() {
  for (aclTensorList* l : lists_) aclDestroyTensorList(l);  // with the tensors it holds
  for (aclTensor* t : tensors_) aclDestroyTensor(t);
  for (aclIntArray* a : arrays_) aclDestroyIntArray(a);
  for (aclBoolArray* a : bool_arrays_) aclDestroyBoolArray(a);
  for (aclScalar* s : scalars_) aclDestroyScalar(s);
  for (void* memory : scratch_) aclrtFree(memory);
}

void* AclnnObjects::DeviceMemory(size_t bytes, const std::string& what) {
  void* memory = nullptr;
  if (aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    status_ = call_.Fail(ACL_ERROR_BAD_ALLOC, "no device memory for " + what + " (" + std::to_string(bytes) + " bytes)");
    return nullptr;
  }
  scratch_.push_back(memory);  // freed with the objects
  return memory;
}

aclTensor* AclnnObjects::Scratch(aclDataType dtype, const std::vector<int64_t>& dims) {
  if (status_ != ACL_SUCCESS) return nullptr;
  const size_t bytes = std::max<size_t>(static_cast<size_t>(Elements(dims)) * DTypeSize(dtype), 1);
  void* memory = DeviceMemory(bytes, "a scratch tensor");
  if (!memory) return nullptr;
  Operand operand{std::make_shared<OpTensorDesc>(), std::make_shared<OpDataBuffer>()};
  operand.desc->dtype = dtype;
  operand.desc->format = ACL_FORMAT_ND;
  operand.desc->dims = dims;
  operand.buffer->data = memory;
  operand.buffer->size = bytes;
  return Tensor(operand, "a scratch tensor");
}

bool AclnnObjects::DeviceCopy(const Operand& operand, const char* what, Operand* on_device) {
  size_t size = 0;
  const uint8_t* bytes = HostBytes(operand, &size);
  const size_t needed = static_cast<size_t>(std::max<int64_t>(Elements(operand.desc->dims), 0)) * DTypeSize(operand.desc->dtype);
  if (!bytes || size < needed) {
    status_ = call_.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " on the host holds " + std::to_string(size) +
                                                           " bytes, fewer than its shape " + ListText(operand.desc->dims) + " needs");
    return false;
  }
  void* memory = DeviceMemory(std::max<size_t>(needed, 1), std::string(what) + "'s copy of its host data");
  if (!memory) return false;
  if (needed > 0 && aclrtMemcpy(memory, needed, bytes, needed, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
    status_ = call_.Fail(ACL_ERROR_INVALID_PARAM, std::string(what) + ": copying its host data to the device: " + aclGetRecentErrMsg());
    return false;
  }
  *on_device = Operand{std::make_shared<OpTensorDesc>(*operand.desc), std::make_shared<OpDataBuffer>()};
  on_device->desc->constant = false;
  on_device->desc->placement = ACL_MEMTYPE_DEVICE;
  on_device->buffer->data = memory;
  on_device->buffer->size = std::max<size_t>(needed, 1);
  return true;
}

aclTensor* AclnnObjects::Tensor(const Operand& operand, const char* what) {
  return Tensor(operand, what, operand.desc->dims);
}

aclTensor* AclnnObjects::Tensor(const Operand& operand, const char* what, const std::vector<int64_t>& dims,
                                const std::vector<int64_t>& perm) {
  const std::vector<int64_t> strides = ContiguousStrides(dims);
  if (perm.empty()) return View(operand, what, dims, strides, 0, dims);
  if (perm.size() != dims.size()) {
    status_ = call_.Fail(ACL_ERROR_INVALID_PARAM, std::string(what) + ": a view order of another rank");
    return nullptr;
  }
  std::vector<int64_t> view(perm.size()), view_strides(perm.size());
  for (size_t i = 0; i < perm.size() && perm.size() == dims.size(); ++i) {
    view[i] = dims.at(static_cast<size_t>(perm[i]));
    view_strides[i] = strides.at(static_cast<size_t>(perm[i]));
  }
  return View(operand, what, view, view_strides, 0, dims);
}

aclTensor* AclnnObjects::View(const Operand& operand, const char* what, const std::vector<int64_t>& view,
                              const std::vector<int64_t>& strides, int64_t offset, const std::vector<int64_t>& dims) {
  if (status_ != ACL_SUCCESS) return nullptr;
  const OpTensorDesc& desc = *operand.desc;
  if (!PlainFormat(desc.format)) {
    status_ = call_.Fail(ACL_ERROR_FORMAT_NOT_MATCH, std::string(what) + " in the private layout " +
                                                         std::to_string(static_cast<int>(desc.format)) +
                                                         " (the bridge runs plain layouts only)");
    return nullptr;
  }
  if (std::any_of(desc.dims.begin(), desc.dims.end(), [](int64_t d) { return d < 0; })) {
    status_ = call_.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " has an unknown (dynamic) dimension " + ListText(desc.dims));
    return nullptr;
  }
  if (desc.constant || desc.placement != ACL_MEMTYPE_DEVICE) {
    // An operand held on the host (torch_npu passes a Python scalar operand, `x + 1.5`, as a 0-d
    // host tensor): the kernels read device memory only, so it is copied to the device first.
    Operand on_device;
    if (!DeviceCopy(operand, what, &on_device)) return nullptr;
    return View(on_device, what, view, strides, offset, dims);
  }
  const size_t item = DTypeSize(desc.dtype);
  const int64_t count = Elements(dims);
  if (item == 0) {
    status_ = call_.Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, std::string(what) + " of dtype " + DTypeName(desc.dtype));
    return nullptr;
  }
  // The view's furthest element, which must lie in the elements the operand holds.
  int64_t reach = offset;
  bool empty = false;
  for (size_t i = 0; i < view.size() && i < strides.size(); ++i) {
    empty = empty || view[i] == 0;
    reach += (view[i] - 1) * strides[i];
  }
  if (view.size() != strides.size() || count != Elements(desc.dims) || static_cast<size_t>(count) * item > operand.buffer->size ||
      (!empty && (offset < 0 || reach >= count))) {
    status_ = call_.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + " of shape " + ListText(desc.dims) + " seen as " +
                                                           ListText(view) + " does not fit its data buffer of " +
                                                           std::to_string(operand.buffer->size) + " bytes");
    return nullptr;
  }
  aclTensor* tensor = aclCreateTensor(view.data(), view.size(), desc.dtype, strides.data(), offset, ACL_FORMAT_ND,
                                      dims.data(), dims.size(), operand.buffer->data);
  if (!tensor) {
    status_ = call_.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + ": " + aclGetRecentErrMsg());
    return nullptr;
  }
  tensors_.push_back(tensor);
  return tensor;
}

aclTensor* AclnnObjects::InLayout(const Operand& operand, const char* what) {
  if (status_ != ACL_SUCCESS) return nullptr;
  const OpTensorDesc& desc = *operand.desc;
  if (PlainFormat(desc.format)) return Tensor(operand, what);
  const size_t item = DTypeSize(desc.dtype);
  if (!PlainFormat(desc.origin_format) || desc.placement != ACL_MEMTYPE_DEVICE || desc.constant ||
      std::any_of(desc.origin_dims.begin(), desc.origin_dims.end(), [](int64_t d) { return d < 0; }) ||
      static_cast<size_t>(std::max<int64_t>(Elements(desc.dims), 0)) * item > operand.buffer->size) {
    status_ = call_.Fail(ACL_ERROR_FORMAT_NOT_MATCH, std::string(what) + " in the private layout " +
                                                         std::to_string(static_cast<int>(desc.format)) + " of storage " +
                                                         ListText(desc.dims) + ": no plain origin shape, or not device "
                                                         "memory its storage fits");
    return nullptr;
  }
  const std::vector<int64_t> strides = ContiguousStrides(desc.origin_dims);
  aclTensor* tensor = aclCreateTensor(desc.origin_dims.data(), desc.origin_dims.size(), desc.dtype, strides.data(), 0, desc.format,
                                      desc.dims.data(), desc.dims.size(), operand.buffer->data);
  if (!tensor) {
    status_ = call_.Fail(ACL_ERROR_OP_INPUT_NOT_MATCH, std::string(what) + ": " + aclGetRecentErrMsg());
    return nullptr;
  }
  tensors_.push_back(tensor);
  return tensor;
}

aclTensorList* AclnnObjects::List(const std::vector<aclTensor*>& tensors) {
  if (status_ != ACL_SUCCESS) return nullptr;
  aclTensorList* list = aclCreateTensorList(tensors.data(), tensors.size());
  if (!list) {
    status_ = call_.Fail(ACL_ERROR_INVALID_PARAM, std::string("a list of its tensors: ") + aclGetRecentErrMsg());
    return nullptr;
  }
  // The list owns its tensors now: aclDestroyTensorList destroys them.
  for (aclTensor* t : tensors) tensors_.erase(std::remove(tensors_.begin(), tensors_.end(), t), tensors_.end());
  lists_.push_back(list);
  return list;
}

aclIntArray* AclnnObjects::Ints(const std::vector<int64_t>& values) {
  aclIntArray* array = aclCreateIntArray(values.data(), values.size());
  if (array) arrays_.push_back(array);
  return array;
}

aclBoolArray* AclnnObjects::Bools(const std::vector<bool>& values) {
  const std::unique_ptr<bool[]> flags(new bool[std::max<size_t>(values.size(), 1)]);
  std::copy(values.begin(), values.end(), flags.get());
  aclBoolArray* array = aclCreateBoolArray(flags.get(), values.size());
  if (array) bool_arrays_.push_back(array);
  return array;
}

aclScalar* AclnnObjects::Scalar(double value, aclDataType dtype) {
  float single = static_cast<float>(value);
  aclScalar* scalar = aclCreateScalar(dtype == ACL_FLOAT ? static_cast<void*>(&single) : &value, dtype == ACL_FLOAT ? ACL_FLOAT : ACL_DOUBLE);
  if (scalar) scalars_.push_back(scalar);
  return scalar;
}

aclScalar* AclnnObjects::IntScalar(int64_t value) {
  aclScalar* scalar = aclCreateScalar(&value, ACL_INT64);
  if (scalar) scalars_.push_back(scalar);
  return scalar;
}

void* FindAclnn(const OpCall& call, const std::string& name, aclError* status) {
  // libopapi beside this library: the simulator's kernels (a program that never loaded it, a C
  // test, gets it loaded here). Why it could not be loaded is kept: dlerror() answers once.
  struct Library {
    void* handle = nullptr;
    std::string error;
  };
  static const Library library = [] {
    Library loaded;
    Dl_info info{};
    std::string path = "libopapi.so";
    if (dladdr(reinterpret_cast<void*>(&FindAclnn), &info) && info.dli_fname) {
      const std::string self = info.dli_fname;
      const size_t slash = self.rfind('/');
      if (slash != std::string::npos) path = self.substr(0, slash + 1) + path;
    }
    loaded.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!loaded.handle) {
      const char* why = dlerror();
      loaded.error = why ? why : path + " could not be loaded";
    }
    return loaded;
  }();
  void* symbol = library.handle ? dlsym(library.handle, name.c_str()) : nullptr;
  if (!symbol) {
    *status = call.Fail(ACL_ERROR_OP_NOT_FOUND, "runs as " + name + ", which the simulator's libopapi.so lacks" +
                                                    (library.handle ? "" : " (not loaded: " + library.error + ")"));
  }
  return symbol;
}

aclError NormWithVariance(const OpCall& call, double eps, const NormKernel& norm) {
  const auto narrow = [](aclDataType dtype) { return dtype == ACL_FLOAT16 || dtype == ACL_BF16; };
  const char* const input_names[] = {"x", "gamma", "beta"};
  const char* const output_names[] = {"y", "mean", "variance"};
  AclnnObjects o(call);
  aclTensor* operands[3] = {};
  aclTensor* results[3] = {};  // y, mean, variance in float32 where the operator's are 16-bit
  for (int i = 0; i < 3; ++i) {
    aclTensor* given = o.Tensor(call.inputs[i], input_names[i]);
    operands[i] = narrow(call.inputs[i].desc->dtype) ? o.Scratch(ACL_FLOAT, call.inputs[i].desc->dims) : given;
    if (o.status()) return o.status();
    if (operands[i] != given) {
      if (aclError s = Aclnn<CastApi>(call, "aclnnCast", given, ACL_FLOAT, operands[i])) return s;
    }
    results[i] = narrow(call.outputs[i].desc->dtype) ? o.Scratch(ACL_FLOAT, call.outputs[i].desc->dims)
                                                     : o.Tensor(call.outputs[i], output_names[i]);
  }
  const aclDataType stats = narrow(call.outputs[2].desc->dtype) ? ACL_FLOAT : call.outputs[2].desc->dtype;
  aclTensor* rstd = o.Scratch(stats, call.outputs[2].desc->dims);
  if (o.status()) return o.status();
  if (aclError s = norm(o, operands[0], operands[1], operands[2], results[0], results[1], rstd)) return s;
  if (aclError s = Aclnn<WithScalarApi>(call, "aclnnPowTensorScalar", rstd, o.Scalar(-2.0, ACL_FLOAT), results[2])) return s;
  if (aclError s = Aclnn<InplaceAddsApi>(call, "aclnnInplaceAdds", results[2], o.Scalar(-eps, ACL_DOUBLE),
                                         o.Scalar(1.0, ACL_FLOAT))) {
    return s;
  }
  for (int i = 0; i < 3; ++i) {
    if (!narrow(call.outputs[i].desc->dtype)) continue;
    aclTensor* out = o.Tensor(call.outputs[i], output_names[i]);
    if (o.status()) return o.status();
    if (aclError s = Aclnn<CastApi>(call, "aclnnCast", results[i], call.outputs[i].desc->dtype, out)) return s;
  }
  return ACL_SUCCESS;
}

aclError RunAclnnPhase2(const OpCall& call, const std::string& api, aclnnStatus phase1, uint64_t workspace_size,
                        aclOpExecutor* executor) {
  using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
  if (phase1 != ACLNN_SUCCESS) {
    // 161xxx: the aclnn API refused the arguments the operator was given; 561xxx: the simulator
    // does not compute that case (a dtype, a layout).
    const aclError status = phase1 / 1000 == 161 ? ACL_ERROR_INVALID_PARAM : aclsim::NotModelledStatus(call.api.c_str());
    return call.Fail(status, api + " refused it (" + std::to_string(phase1) + "): " + aclGetRecentErrMsg());
  }
  aclError status = ACL_SUCCESS;
  auto phase2 = reinterpret_cast<Phase2>(FindAclnn(call, api, &status));
  if (!phase2) return status;
  void* workspace = nullptr;
  if (workspace_size > 0 && aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return call.Fail(ACL_ERROR_BAD_ALLOC, api + ": no device memory for its workspace of " + std::to_string(workspace_size) + " bytes");
  }
  const aclnnStatus launched = phase2(workspace, workspace_size, executor, call.stream);
  const std::string why = launched == ACLNN_SUCCESS ? "" : aclGetRecentErrMsg();
  // aclrtFree waits for the kernel that uses the workspace, as a device's allocator would.
  if (workspace) aclrtFree(workspace);
  if (launched != ACLNN_SUCCESS) {
    return call.Fail(ACL_ERROR_INVALID_PARAM, api + " failed to launch (" + std::to_string(launched) + "): " + why);
  }
  return ACL_SUCCESS;
}

namespace {

// Runs `run` on the call with every operand in a private layout (NC1HWC0, FRACTAL_NZ: torch_npu
// gives a float16 matmul's output in FRACTAL_NZ) replaced by a plain scratch copy of its origin
// shape: an input transformed into it first, an output transformed out of it after, all in
// stream order. The call then waits for its stream, so that the scratch memory is released after
// the transforms that read it; a fault of earlier work reported by that wait is the call's status.
aclError RunInPlainLayouts(const OpCall& call, aclError (*run)(const OpCall&)) {
  auto is_private = [](const Operand& o) { return !Absent(o) && !PlainFormat(o.desc->format); };
  if (std::none_of(call.inputs.begin(), call.inputs.end(), is_private) &&
      std::none_of(call.outputs.begin(), call.outputs.end(), is_private)) {
    return run(call);
  }
  OpCall plain = call;
  std::vector<void*> scratch;
  std::vector<std::pair<Operand, Operand>> outputs;  // (scratch, the caller's output)
  auto release = [&](aclError status) {
    aclError waited = aclrtSynchronizeStream(call.stream);
    for (void* memory : scratch) aclrtFree(memory);
    return status != ACL_SUCCESS ? status : waited;
  };
  auto unprivate = [&](Operand* operand, const char* kind, size_t index, bool input) -> aclError {
    const OpTensorDesc& desc = *operand->desc;
    if (!PlainFormat(desc.origin_format)) {
      return call.Fail(ACL_ERROR_FORMAT_NOT_MATCH, std::string(kind) + " " + std::to_string(index) + " in layout " +
                                                       std::to_string(static_cast<int>(desc.format)) +
                                                       " has no plain origin layout");
    }
    const size_t item = DTypeSize(desc.dtype);
    const size_t bytes = std::max<size_t>(static_cast<size_t>(std::max<int64_t>(Elements(desc.origin_dims), 0)) * item, 1);
    void* memory = nullptr;
    if (item == 0 || aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      return call.Fail(ACL_ERROR_BAD_ALLOC, std::string(kind) + " " + std::to_string(index) + ": no plain copy of its private layout");
    }
    scratch.push_back(memory);
    Operand copy{std::make_shared<OpTensorDesc>(desc), std::make_shared<OpDataBuffer>()};
    copy.desc->format = desc.origin_format;
    copy.desc->dims = desc.origin_dims;
    copy.buffer->data = memory;
    copy.buffer->size = bytes;
    std::string why;
    if (input) {
      const aclError status = LaunchLayoutTransform(call.api.c_str(), call.stream, desc.origin_format, desc.origin_dims,
                                                    desc.format, desc.dims, item, operand->buffer->data, memory, bytes,
                                                    false, &why);
      if (status) return call.Fail(status, std::string(kind) + " " + std::to_string(index) + ": " + why);
    } else {
      outputs.emplace_back(copy, *operand);
    }
    *operand = copy;
    return ACL_SUCCESS;
  };
  for (size_t i = 0; i < plain.inputs.size(); ++i) {
    if (!is_private(plain.inputs[i])) continue;
    if (aclError s = unprivate(&plain.inputs[i], "input", i, true)) return release(s);
  }
  for (size_t i = 0; i < plain.outputs.size(); ++i) {
    if (!is_private(plain.outputs[i])) continue;
    if (aclError s = unprivate(&plain.outputs[i], "output", i, false)) return release(s);
  }
  if (aclError s = run(plain)) return release(s);
  for (const auto& [copy, original] : outputs) {
    const OpTensorDesc& desc = *original.desc;
    std::string why;
    const aclError status = LaunchLayoutTransform(call.api.c_str(), call.stream, desc.origin_format, desc.origin_dims,
                                                  desc.format, desc.dims, DTypeSize(desc.dtype), copy.buffer->data, original.buffer->data,
                                                  std::min(original.buffer->size, static_cast<size_t>(Elements(desc.dims)) *
                                                                                      DTypeSize(desc.dtype)),
                                                  true, &why);
    if (status) return release(call.Fail(status, "an output in layout " + std::to_string(static_cast<int>(desc.format)) + ": " + why));
  }
  return release(ACL_SUCCESS);
}

// Operator types torch_npu sends whose arithmetic the documentation on hand does not pin down: the
// bridge refuses them as it refuses any type it does not model, saying what is missing, rather
// than compute a guess (a wrong value with no error).
std::string Undocumented(const std::string& type) {
  // The float-status operators read and clear the device's floating-point overflow register, set
  // by whatever kernel overflowed in saturation mode; the simulator's kernels compute IEEE
  // infinities and NaNs (the mode aclrtGetDeviceSatMode and torch_npu's is_support_inf_nan report,
  // so its GradScaler checks gradients with aclnnForeachNonFiniteCheckAndUnscale) and keep no
  // such register: answering "no overflow" would be a guess.
  static const std::string kFloatStatus =
      ": it reads or clears the device's floating-point overflow register, which the simulator does not keep (its kernels "
      "compute IEEE infinities and NaNs, ACL_RT_OVERFLOW_MODE_INFNAN: check tensors with torch.isfinite, or let "
      "GradScaler use aclnnForeachNonFiniteCheckAndUnscale as it does on this device)";
  static const std::map<std::string, std::string> kWhy = {
      {"NPUGetFloatStatus", kFloatStatus},
      {"NPUGetFloatStatusV2", kFloatStatus},
      {"NPUClearFloatStatus", kFloatStatus},
      {"NPUClearFloatStatusV2", kFloatStatus},
      {"CIoUGrad",
       ": CIoU's paper differentiates its penalty with alpha held constant and v's 1 / (w^2 + h^2) factor dropped; "
       "whether the operator does so, and what its atan_sub input holds, is not documented"},
      {"LayerNormGrad",
       ": its prototype takes the forward's variance and no epsilon, so the epsilon its kernel adds before the inverse "
       "square root is the kernel's own, which the documentation on hand does not give (torch_npu's forward passed "
       "another to LayerNorm)"},
      {"ApplyAdamV2",
       ": torch_npu documents npu_bert_apply_adam's arguments, not its update (how max_grad_norm, global_grad_norm, "
       "weight_decay and step_size enter it, and what adam_mode \"mbart_adam\" changes)"},
      {"IFMR",
       ": its search for the scale is not documented: which edge of the percentile's histogram bin starts it, "
       "the loss it minimises, the rounding, whether the range's end is tried, and the offset's form (torch_npu's "
       "one docstring example, with_offset false, scale 0.0080, does not tell these apart)"},
      {"SilentCheck",
       ": the relative jump its thresholds c_coeff_l1 and c_coeff_l2 bound is not documented (aclnnSilentCheck's "
       "page says only that a jump above them is a fault)"},
  };
  auto it = kWhy.find(type);
  return it == kWhy.end() ? "" : it->second;
}

}  // namespace

aclError Run(const OpCall& call) {
  static const std::vector<OpEntry> entries = [] {
    std::vector<OpEntry> all = Entries();
    all.insert(all.end(), VisionEntries().begin(), VisionEntries().end());
    all.insert(all.end(), RotatedEntries().begin(), RotatedEntries().end());
    all.insert(all.end(), MathEntries().begin(), MathEntries().end());
    all.insert(all.end(), CustomEntries().begin(), CustomEntries().end());
    all.insert(all.end(), NnEntries().begin(), NnEntries().end());
    all.insert(all.end(), GradEntries().begin(), GradEntries().end());
    all.insert(all.end(), RnnEntries().begin(), RnnEntries().end());
    return all;
  }();
  auto entry = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return call.type == e.type; });
  if (entry == entries.end()) {
    // The call before the list of modelled types: torch_npu keeps only the first ~1,200 characters
    // of the message, and the call's operands and attributes are what its reader needs.
    std::string modelled;
    for (const OpEntry& e : entries) modelled += (modelled.empty() ? "" : ", ") + std::string(e.type);
    return aclsim::Fail(ACL_ERROR_OP_NOT_FOUND, call.api + ": operator type " + call.type +
                                                    " is not modelled by the simulator's aclop bridge" +
                                                    Undocumented(call.type) + "; the call: " + call.Signature() +
                                                    " (modelled: " + modelled + ")");
  }
  for (const auto& [name, value] : call.attrs) {
    auto spec = std::find_if(entry->attrs.begin(), entry->attrs.end(), [&](const AttrSpec& a) { return name == a.name; });
    if (spec == entry->attrs.end()) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute " + name + " is not one the simulator models for " + call.type +
                                                         "; the call: " + call.Signature());
    }
    // A string attribute set as bool: torch_npu's OpCommand::Attr(name, "LITERAL") resolves to its bool
    // overload (C++ prefers the pointer-to-bool conversion over std::string; DynamicRNNGrad's
    // cell_type arrives so). The value is lost; OpCall::String answers the prototype's default.
    if (std::holds_alternative<bool>(value) && spec->kind == AttrKind::kString) continue;
    if (value.index() != static_cast<size_t>(spec->kind)) {
      return call.Fail(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute " + name + " was set as " + KindName(value.index()) +
                                                         " (the prototype's is " +
                                                         KindName(static_cast<size_t>(spec->kind)) + ")");
    }
  }
  if (entry->run == RunIdentity) return RunIdentity(call);  // Identity moves between layouts itself
  // Outputs of no element computed from an input of no element leave nothing to compute (torch_npu
  // sends an empty tensor's gradients, HardtanhGrad's and MishGrad's, which their aclnn APIs
  // refuse): the call is done, as on a device. Empty outputs of inputs that hold elements still run,
  // so that a shape that does not follow (torch.mm's out= left [0] by torch_npu) is refused by the
  // operator's API, and so does an operator whose output extents the data decides, to write them.
  auto empty = [](const Operand& o) { return Elements(o.desc->dims) == 0; };
  if (!entry->data_shaped && !call.outputs.empty() && std::all_of(call.outputs.begin(), call.outputs.end(), empty) &&
      std::any_of(call.inputs.begin(), call.inputs.end(), empty)) {
    return ACL_SUCCESS;
  }
  if (entry->data_shaped) {
    // An input in a private layout is read through a plain copy (RunInPlainLayouts), but an output
    // would be a copy whose description, where the call writes the extent, is not the caller's.
    auto is_private = [](const Operand& o) { return !Absent(o) && !PlainFormat(o.desc->format); };
    if (std::any_of(call.outputs.begin(), call.outputs.end(), is_private)) {
      return call.Fail(ACL_ERROR_FORMAT_NOT_MATCH, "an output in a private layout is not modelled for an operator "
                                                   "whose output extent the data decides; the call: " + call.Signature());
    }
  }
  // Restored on every return: the flag must not outlive this operator on the thread.
  struct ChipScope {
    bool saved = AclopKernelOnEveryChip();
    explicit ChipScope(bool every_chip) { AclopKernelOnEveryChip() = saved || every_chip; }
    ~ChipScope() { AclopKernelOnEveryChip() = saved; }
  } chip_scope(entry->every_chip);
  return entry->own_layouts ? entry->run(call) : RunInPlainLayouts(call, entry->run);
}

}  // namespace aclsim::aclop

// The phase-1 types above against the generated prototypes of the build's pages.
ACLOP_SAME(aclnnCast, CastApi);
ACLOP_SAME(aclnnInplaceAdds, InplaceAddsApi);
ACLOP_SAME(aclnnPowTensorScalar, WithScalarApi);
