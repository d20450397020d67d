// aclnn-bindgen: one call of an API: argument conversion, output allocation, both phases on the
// current stream.
//
// The hot path is a chain of calls on device tensors: it creates the call's CANN objects, takes
// its outputs' memory from the caching allocator, runs phase 1, queues phase 2 and returns without
// waiting. Nothing on that path builds a string (argument labels are made for messages only) or
// allocates beyond the output tensor itself.
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstring>
#include <algorithm>
#include <cctype>
#include <optional>

#include "aclnn_bindgen/pool_shape.h"
#include "binding.h"

#include "aclnn_bindgen/conv_shape.h"
#include "aclnn_bindgen/matmul_shape.h"

namespace aclnn_binding {

namespace {

struct UncountedExecutor {
  void operator()(aclOpExecutor* executor) const {
    if (executor != nullptr && Runtime::alive()) Runtime::get().abi().aclDestroyAclOpExecutor(executor);
  }
};

std::string type_name(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__qualname__")); }

const py::object& numpy_type(const char* name) {
  // Cached per name; gil_safe_call_once_and_store avoids the static-init deadlock with the GIL.
  if (std::strcmp(name, "generic") == 0) {
    PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::object> generic;
    return generic.call_once_and_store_result([] { return py::module_::import("numpy").attr("generic"); }).get_stored();
  }
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::object> bool_;
  return bool_.call_once_and_store_result([] { return py::module_::import("numpy").attr("bool_"); }).get_stored();
}

bool is_bool_like(py::handle obj) { return PyBool_Check(obj.ptr()) || py::isinstance(obj, numpy_type("bool_")); }

// A Python number, as the dtype an aclScalar gets for it.
struct Number {
  enum Kind { kBool, kInt, kFloat, kComplex } kind;
  long long i = 0;              // kBool, kInt (when it fits)
  unsigned long long u = 0;     // kInt above LLONG_MAX
  bool big = false;             // kInt: only `u` holds it
  double re = 0, im = 0;        // kFloat (re), kComplex
  double as_double() const { return kind == kFloat || kind == kComplex ? re : big ? static_cast<double>(u) : static_cast<double>(i); }
};

template <class T> bool fits(const Number& n) {
  if (n.big) return std::numeric_limits<T>::max() >= n.u;
  if (n.i < 0) return std::is_signed<T>::value && n.i >= static_cast<long long>(std::numeric_limits<T>::min());
  return static_cast<unsigned long long>(n.i) <= static_cast<unsigned long long>(std::numeric_limits<T>::max());
}

template <class T> void put(unsigned char* out, T value) { std::memcpy(out, &value, sizeof value); }

// Writes `n` as `dtype` into `out`; false when the value does not fit an integral dtype.
bool encode(const Number& n, aclDataType dtype, unsigned char* out) {
  const bool integral = n.kind == Number::kBool || n.kind == Number::kInt;
  const double d = n.as_double();
  switch (dtype) {
    case ACL_BOOL: put<bool>(out, n.kind == Number::kBool ? n.i != 0 : d != 0.0); return integral;
    case ACL_INT8: if (!integral || !fits<int8_t>(n)) return false; put<int8_t>(out, static_cast<int8_t>(n.i)); return true;
    case ACL_INT16: if (!integral || !fits<int16_t>(n)) return false; put<int16_t>(out, static_cast<int16_t>(n.i)); return true;
    case ACL_INT32: if (!integral || !fits<int32_t>(n)) return false; put<int32_t>(out, static_cast<int32_t>(n.i)); return true;
    case ACL_INT64: if (!integral || !fits<int64_t>(n)) return false; put<int64_t>(out, static_cast<int64_t>(n.i)); return true;
    case ACL_UINT8: if (!integral || !fits<uint8_t>(n)) return false; put<uint8_t>(out, static_cast<uint8_t>(n.i)); return true;
    case ACL_UINT16: if (!integral || !fits<uint16_t>(n)) return false; put<uint16_t>(out, static_cast<uint16_t>(n.i)); return true;
    case ACL_UINT32: if (!integral || !fits<uint32_t>(n)) return false; put<uint32_t>(out, static_cast<uint32_t>(n.i)); return true;
    case ACL_UINT64: if (!integral || !fits<uint64_t>(n)) return false; put<uint64_t>(out, n.big ? n.u : static_cast<uint64_t>(n.i)); return true;
    case ACL_FLOAT: if (n.kind == Number::kComplex) return false; put<float>(out, static_cast<float>(d)); return true;
    case ACL_DOUBLE: if (n.kind == Number::kComplex) return false; put<double>(out, d); return true;
    case ACL_FLOAT16: if (n.kind == Number::kComplex) return false; put<uint16_t>(out, aclnn_bindgen::FloatToHalf(static_cast<float>(d))); return true;
    case ACL_BF16: if (n.kind == Number::kComplex) return false; put<uint16_t>(out, aclnn_bindgen::FloatToBFloat16(static_cast<float>(d))); return true;
    case ACL_COMPLEX64: put<std::complex<float>>(out, {static_cast<float>(d), static_cast<float>(n.im)}); return true;
    case ACL_COMPLEX128: put<std::complex<double>>(out, {d, n.im}); return true;
    default: return false;
  }
}

Number python_number(py::handle obj) {
  Number n{Number::kInt};
  if (PyBool_Check(obj.ptr())) {
    n.kind = Number::kBool;
    n.i = obj.ptr() == Py_True;
  } else if (PyLong_Check(obj.ptr())) {
    int overflow = 0;
    n.i = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow > 0) {
      n.u = PyLong_AsUnsignedLongLong(obj.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error("out of the range of every integer dtype");
      }
      n.big = true;
    } else if (overflow < 0) {
      throw py::value_error("out of the range of every integer dtype");
    }
  } else if (PyFloat_Check(obj.ptr())) {
    n.kind = Number::kFloat;
    n.re = PyFloat_AsDouble(obj.ptr());
  } else {
    n.kind = Number::kComplex;
    n.re = PyComplex_RealAsDouble(obj.ptr());
    n.im = PyComplex_ImagAsDouble(obj.ptr());
  }
  return n;
}

const std::vector<aclDataType>& preference(const ScalarPreference& p, const Number& n) {
  switch (n.kind) {
    case Number::kBool: return p.for_bool;
    case Number::kInt: return p.for_int;
    case Number::kFloat: return p.for_float;
    default: return p.for_complex;
  }
}

// NumPy's broadcasting of two shapes; false when they do not broadcast.
bool broadcast(Dims& acc, const Dims& shape) {
  if (acc == shape) return true;  // most calls: operands of one shape
  Dims out(std::max(acc.size(), shape.size()), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t a = i < acc.size() ? acc[acc.size() - 1 - i] : 1;
    int64_t b = i < shape.size() ? shape[shape.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1) return false;
    out[out.size() - 1 - i] = a == 1 ? b : a;
  }
  acc = std::move(out);
  return true;
}

}  // namespace

namespace {

// The runtime for a call of `spec`: a failure to start it (or a runtime finalised at exit) names
// the call the user made, not only the runtime function that failed.
Runtime& runtime_for(const ApiSpec& spec) {
  try {
    return Runtime::get();
  } catch (AclnnFailure& f) {
    if (f.api.empty()) {
      f.message = std::string(spec.python_name) + "(): " + f.message;
      f.api = spec.api;
    }
    throw;
  }
}

}  // namespace

Call::Call(const ApiSpec& spec, py::handle out)
    : spec_(spec), runtime_(runtime_for(spec)), stream_(runtime_.stream()) {
  runtime_.collect_released();  // foreign memory's owners whose streams have run: back to their framework
  if (out.is_none()) return;
  const size_t n = spec.outputs.size();
  if (n == 0) throw py::type_error(std::string(spec.python_name) + "() has no outputs to pass as out=");
  out_given_.assign(n, py::none());
  const bool sequence = py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out);
  if (n == 1) {
    if (spec.outputs[0].is_list || !sequence) {
      out_given_[0] = py::reinterpret_borrow<py::object>(out);
    } else if (py::len(out) == 1) {
      out_given_[0] = py::reinterpret_borrow<py::sequence>(out)[0];
    } else {
      throw py::type_error(std::string(spec.python_name) + "(): out= takes one array, got a sequence of " +
                           std::to_string(py::len(out)));
    }
    return;
  }
  if (!sequence || py::len(out) != n)
    throw py::type_error(std::string(spec.python_name) + "(): out= takes a tuple of " + std::to_string(n) +
                         " arrays (in output order)");
  auto items = py::reinterpret_borrow<py::sequence>(out);
  for (size_t i = 0; i < n; ++i) out_given_[i] = items[i];
}

Call::~Call() {
  // An unexpected exception left uploads queued that read host arrays about to be released: let
  // them finish. (A kernel fault this synchronisation meets is lost; execute() handles every
  // expected error itself and reports such a fault.)
  if (host_reads_pending_ && Runtime::alive()) runtime_.abi().aclrtSynchronizeStream(stream_.handle());
  for (size_t i = 0; i < shared_scalar_count_; ++i) ScalarCache::release(shared_scalars_[i]);
  for (size_t i = std::min(slot_count_, kInlineSlots); i-- > 0;) slot_at(i).~Slot();
}

std::string Call::Label::str() const {
  const ApiSpec& spec = call->spec_;
  std::string text = std::string(spec.python_name) + "() " + (output ? "output '" : "argument '") +
                     spec.params[param].python_name + "'";
  if (item >= 0) text += "[" + std::to_string(item) + "]";
  return text;
}

py::handle Call::given_out(size_t output) const { return output < out_given_.size() ? out_given_[output] : py::none(); }

// A tensor the op writes whose elements share memory (a broadcast, stride-0 view) would be
// written by several elements at once, in no defined order: refused, as PyTorch refuses it.
void Call::refuse_self_overlap(const Dims& shape, const Dims& strides, const Label& label) const {
  bool overlaps = false, empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    overlaps |= shape[i] > 1 && strides[i] == 0;
    empty |= shape[i] == 0;
  }
  if (overlaps && !empty)
    throw py::value_error(label.str() + ": unsupported operation: more than one element of the written-to tensor "
                          "refers to a single memory location (a stride-0 view); pass a tensor with its own memory");
}

Call::Slot* Call::new_slot() {
  // Default-initialised, not value-initialised: Slot() would first zero its inline dimension arrays.
  if (slot_count_ < kInlineSlots) return new (&inline_slots_[slot_count_++]) Slot;
  more_slots_.push_back(std::make_unique<Slot>());
  ++slot_count_;
  return more_slots_.back().get();
}

void Call::attach(int param, Slot* slot) {
  if (param >= kMaxParams) throw py::value_error(std::string(spec_.python_name) + "(): more parameters than supported");
  single_[param] = slot;
  attached_ |= uint64_t{1} << param;
}

void Call::own_descriptor(Slot* slot) {
  slot->owner = tensors_.add(slot->device->make_acl_tensor(spec_.api));
  slot->acl = tensors_.get(slot->owner);
}

Call::Slot* Call::tensor_slot(py::handle obj, bool inout, const Label& label, bool list_member) {
  Slot* slot = new_slot();
  if (is_device_tensor(obj)) {
    slot->device = &device_tensor_of(obj);
    // A kernel reads and writes the memory of its stream's device only: CANN takes another
    // device's address as its own device's (a wrong value or a fault), so it is refused here, as
    // PyTorch refuses tensors of two devices in one op.
    if (slot->device->storage->device() != stream_.device()) {
      throw py::value_error(label.str() + " is on device " + std::to_string(slot->device->storage->device()) +
                            ", but the call runs on device " + std::to_string(stream_.device()) +
                            " (its stream's): expected all tensors on the same device");
    }
    if (inout) refuse_self_overlap(slot->device->shape, slot->device->strides, label);
    // Memory allocated for another stream, or someone else's: kept from reuse (or its owner alive)
    // until this stream is done with it.
    slot->device->storage->used_on(stream_.handle());
    device_mode_ = true;
  } else {
    slot->host = host_array(obj, label, inout);
    if (slot->host.itemsize == 0)
      throw py::type_error(label.str() + ": " + dtype_name(slot->host.dtype) + " has no host layout");
    DeviceTensor& d = slot->made.emplace();
    d.dtype = slot->host.dtype;
    d.shape = slot->host.shape;
    d.strides = slot->host.strides;
    d.storage_elements = slot->host.span_elements();
    d.storage = DeviceBuffer::allocate(static_cast<size_t>(d.storage_elements) * slot->host.itemsize, stream_,
                                       spec_.api);
    slot->device = &d;
    if (inout) refuse_self_overlap(slot->device->shape, slot->device->strides, label);
    slot->upload = true;
    slot->download = inout;
    uploads_ = true;
    downloads_ = downloads_ || inout;
  }
  slot->result = py::reinterpret_borrow<py::object>(obj);
  slot->written = inout;
  if (list_member) own_descriptor(slot);
  else if (slot->made) slot->acl = slot->made->storage->describe_fresh(*slot->made, spec_.api);
  else slot->acl = descriptor_of(obj, spec_.api);
  return slot;
}

aclTensor* Call::tensor(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  Slot* slot = tensor_slot(obj, false, Label{this, param, -1, false});
  attach(param, slot);
  return slot->acl;
}

aclTensor* Call::inout_tensor(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  Slot* slot = tensor_slot(obj, true, Label{this, param, -1, false});
  attach(param, slot);
  return slot->acl;
}

aclTensorList* Call::make_list(int param, const std::vector<Slot*>& members) {
  std::vector<const aclTensor*> handles;
  for (Slot* s : members) handles.push_back(s ? s->acl : nullptr);
  static const aclTensor* const kNone[1] = {nullptr};
  aclTensorList* list = runtime_.abi().aclCreateTensorList(handles.empty() ? kNone : handles.data(), handles.size());
  if (list == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateTensorList", runtime_.recent_error()};
  counters().live_objects.fetch_add(1);
  tensor_lists_.add(list);
  // aclDestroyTensorList destroys the tensors it holds (CANN's contract): the list owns them now.
  for (Slot* s : members) {
    if (s) {
      tensors_.release(s->owner);
      counters().live_objects.fetch_sub(1);
    }
  }
  is_list_ |= uint64_t{1} << param;
  lists_.emplace_back(param, members);
  return list;
}

aclTensorList* Call::tensor_list_of(int param, py::handle obj, bool inout) {
  if (obj.is_none()) return nullptr;
  if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
    throw py::type_error(what(param) + ": expected a list of arrays, got " + type_name(obj));
  std::vector<Slot*> members;
  int i = 0;
  for (py::handle item : obj) {
    members.push_back(item.is_none() ? nullptr : tensor_slot(item, inout, Label{this, param, i, false}, true));
    ++i;
  }
  return make_list(param, members);
}

aclTensorList* Call::tensor_list(int param, py::handle obj) { return tensor_list_of(param, obj, false); }

aclTensorList* Call::inout_tensor_list(int param, py::handle obj) { return tensor_list_of(param, obj, true); }

aclScalar* Call::make_scalar(int param, py::handle obj, const Label& label, bool list_member) {
  alignas(16) unsigned char value[16] = {};
  aclDataType dtype = ACL_DT_UNDEFINED;
  // Plain Python numbers first (the common case). NumPy scalars by a plain type check: a failed
  // isinstance() also looks up obj.__class__, which showed in the profile of chained calls. (Exact
  // checks: np.float64 and np.complex128 subclass float and complex, and fix their dtype.)
  const bool plain_number = PyFloat_CheckExact(obj.ptr()) || PyBool_Check(obj.ptr()) || PyLong_CheckExact(obj.ptr()) ||
                            PyComplex_CheckExact(obj.ptr());
  if (!plain_number && is_device_tensor(obj)) throw py::type_error(label.str() + ": expected a scalar, got an aclnn.Tensor");
  if (!plain_number &&
      (py::isinstance<py::array>(obj) ||
       PyObject_TypeCheck(obj.ptr(), reinterpret_cast<PyTypeObject*>(numpy_type("generic").ptr())))) {
    // A NumPy scalar (or 0-d array) fixes the dtype.
    py::array array = py::module_::import("numpy").attr("asarray")(obj);
    if (array.ndim() != 0)
      throw py::type_error(label.str() + ": expected a scalar, got an array of " + std::to_string(array.ndim()) + " dimensions");
    dtype = from_numpy(array.dtype());
    if (dtype == ACL_DT_UNDEFINED || array.itemsize() > 16)
      throw py::type_error(label.str() + ": dtype " + std::string(py::str(array.dtype())) + " has no aclDataType");
    std::memcpy(value, array.data(), static_cast<size_t>(array.itemsize()));
  } else if (plain_number || PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()) || PyComplex_Check(obj.ptr())) {
    Number n;
    try {
      n = python_number(obj);
    } catch (py::value_error& e) {
      throw py::value_error(label.str() + ": " + e.what());
    }
    for (aclDataType candidate : preference(spec_.params[param].scalar, n)) {
      if (encode(n, candidate, value)) {
        dtype = candidate;
        break;
      }
    }
    if (dtype == ACL_DT_UNDEFINED) {
      // No documented dtype holds the value: pass the natural one, and let the library judge it.
      for (aclDataType fallback : {ACL_BOOL, ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_COMPLEX128}) {
        if ((fallback == ACL_BOOL) != (n.kind == Number::kBool)) continue;
        if ((fallback == ACL_COMPLEX128) != (n.kind == Number::kComplex)) continue;
        if (encode(n, fallback, value)) {
          dtype = fallback;
          break;
        }
      }
    }
    if (dtype == ACL_DT_UNDEFINED) throw py::value_error(label.str() + ": " + std::string(py::repr(obj)) + " fits no dtype");
  } else {
    throw py::type_error(label.str() + ": expected a scalar (a Python or NumPy number), got " + type_name(obj));
  }
  if (!list_member && shared_scalar_count_ < std::size(shared_scalars_)) {
    if (ScalarCache::Entry* shared = runtime_.scalars().acquire(dtype, value, spec_.api)) {
      shared_scalars_[shared_scalar_count_++] = shared;
      return shared->scalar;
    }
  }
  aclScalar* scalar = runtime_.abi().aclCreateScalar(value, dtype);
  if (scalar == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateScalar", runtime_.recent_error()};
  counters().scalars_made.fetch_add(1, std::memory_order_relaxed);
  counters().live_objects.fetch_add(1);
  scalars_.add(scalar);
  return scalar;
}

aclScalar* Call::scalar(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  return make_scalar(param, obj, Label{this, param, -1, false});
}

aclScalarList* Call::scalar_list(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
    throw py::type_error(what(param) + ": expected a list of scalars, got " + type_name(obj));
  std::vector<const aclScalar*> members;
  int i = 0;
  for (py::handle item : obj) members.push_back(make_scalar(param, item, Label{this, param, i++, false}, true));
  static const aclScalar* const kNone[1] = {nullptr};
  aclScalarList* list = runtime_.abi().aclCreateScalarList(members.empty() ? kNone : members.data(), members.size());
  if (list == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateScalarList", runtime_.recent_error()};
  counters().live_objects.fetch_add(1);
  scalar_lists_.add(list);
  // aclDestroyScalarList destroys the scalars it holds: the list owns them now.
  for (size_t k = 0; k < members.size(); ++k) {
    scalars_.release(scalars_.size() - members.size() + k);
    counters().live_objects.fetch_sub(1);
  }
  return list;
}

namespace {

// The items of a sequence argument (list, tuple, 1-d array, range...), never a str or a mapping.
std::vector<py::object> sequence_items(py::handle obj, const Call::Label& label, const char* of) {
  if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) || py::isinstance<py::dict>(obj) ||
      is_device_tensor(obj) || !PySequence_Check(obj.ptr()))
    throw py::type_error(label.str() + ": expected a sequence of " + of + ", got " + type_name(obj));
  if (py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).ndim() != 1)
    throw py::type_error(label.str() + ": expected a sequence of " + of + ", got an array of " +
                         std::to_string(py::reinterpret_borrow<py::array>(obj).ndim()) + " dimensions");
  std::vector<py::object> items;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(obj)) items.push_back(py::reinterpret_borrow<py::object>(item));
  return items;
}

}  // namespace

aclIntArray* Call::int_array(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  std::vector<int64_t> values;
  const auto items = sequence_items(obj, Call::Label{this, param, -1, false}, "integers");
  for (size_t i = 0; i < items.size(); ++i) {
    values.push_back(static_cast<int64_t>(integer_in_range(param, items[i], static_cast<long double>(INT64_MIN),
                                                           static_cast<long double>(INT64_MAX))));
  }
  static const int64_t kNone[1] = {0};
  aclIntArray* array = runtime_.abi().aclCreateIntArray(values.empty() ? kNone : values.data(), values.size());
  if (array == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateIntArray", runtime_.recent_error()};
  counters().live_objects.fetch_add(1);
  int_arrays_.add(array);
  return array;
}

aclFloatArray* Call::float_array(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  std::vector<float> values;
  for (const auto& item : sequence_items(obj, Call::Label{this, param, -1, false}, "numbers"))
    values.push_back(static_cast<float>(floating_value(param, item, true)));
  static const float kNone[1] = {0};
  aclFloatArray* array = runtime_.abi().aclCreateFloatArray(values.empty() ? kNone : values.data(), values.size());
  if (array == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateFloatArray", runtime_.recent_error()};
  counters().live_objects.fetch_add(1);
  float_arrays_.add(array);
  return array;
}

aclBoolArray* Call::bool_array(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  std::unique_ptr<bool[]> values;
  const auto items = sequence_items(obj, Call::Label{this, param, -1, false}, "bools");
  values.reset(new bool[std::max<size_t>(items.size(), 1)]);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!is_bool_like(items[i]))
      throw py::type_error(what(param) + "[" + std::to_string(i) + "]: expected a bool, got " + type_name(items[i]));
    values[i] = PyObject_IsTrue(items[i].ptr()) == 1;
  }
  aclBoolArray* array = runtime_.abi().aclCreateBoolArray(values.get(), items.size());
  if (array == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclCreateBoolArray", runtime_.recent_error()};
  counters().live_objects.fetch_add(1);
  bool_arrays_.add(array);
  return array;
}

bool Call::boolean(int param, py::handle obj) {
  if (!is_bool_like(obj)) throw py::type_error(what(param) + ": expected a bool, got " + type_name(obj));
  return PyObject_IsTrue(obj.ptr()) == 1;
}

long double Call::integer_in_range(int param, py::handle obj, long double lo, long double hi) {
  if (PyFloat_Check(obj.ptr()) || py::isinstance<py::str>(obj) || obj.is_none())
    throw py::type_error(what(param) + ": expected an integer, got " + type_name(obj));
  PyObject* index = PyNumber_Index(obj.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw py::type_error(what(param) + ": expected an integer, got " + type_name(obj));
  }
  py::int_ value = py::reinterpret_steal<py::int_>(index);
  int overflow = 0;
  long double v = static_cast<long double>(PyLong_AsLongLongAndOverflow(value.ptr(), &overflow));
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      overflow = 2;
    } else {
      v = static_cast<long double>(u);
      overflow = 0;
    }
  }
  if (overflow != 0 || v < lo || v > hi) {
    throw py::value_error(what(param) + ": " + std::string(py::str(value)) + " is out of range [" +
                          std::to_string(static_cast<long long>(lo)) + ", " +
                          (hi > static_cast<long double>(LLONG_MAX) ? std::string("18446744073709551615")
                                                                     : std::to_string(static_cast<long long>(hi))) +
                          "]");
  }
  return v;
}

double Call::floating_value(int param, py::handle obj, bool single) {
  if (py::isinstance<py::str>(obj) || obj.is_none() || PyComplex_Check(obj.ptr()))
    throw py::type_error(what(param) + ": expected a real number, got " + type_name(obj));
  double v = PyFloat_AsDouble(obj.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::type_error(what(param) + ": expected a real number, got " + type_name(obj));
  }
  if (single && std::isfinite(v) && std::fabs(v) > FLT_MAX)
    throw py::value_error(what(param) + ": " + std::to_string(v) + " is out of the range of float");
  return v;
}

char* Call::string(int param, py::handle obj) {
  if (obj.is_none()) return nullptr;
  if (py::isinstance<py::bytes>(obj)) {
    strings_.push_back(std::make_unique<std::string>(obj.cast<std::string>()));
  } else if (py::isinstance<py::str>(obj)) {
    strings_.push_back(std::make_unique<std::string>(obj.cast<std::string>()));
  } else {
    throw py::type_error(what(param) + ": expected a str, got " + type_name(obj));
  }
  return &(*strings_.back())[0];
}

aclDataType Call::dtype(int param, py::handle obj) {
  if (py::isinstance<py::str>(obj)) {
    // Upper case is the pages' naming (FLOAT is float32, ACL_BF16); lower case is NumPy's
    // ("float" is float64), so that neither reading surprises its own users.
    const std::string name = obj.cast<std::string>();
    const bool page_style = std::none_of(name.begin(), name.end(), [](unsigned char c) { return std::islower(c); });
    if (page_style) {
      if (const DTypeInfo* info = dtype_by_name(name)) return info->dtype;
    }
  }
  if (obj.is_none() || PyLong_Check(obj.ptr()) || PyFloat_Check(obj.ptr()))
    throw py::type_error(what(param) + ": expected a dtype (numpy dtype, type or name), got " + type_name(obj));
  py::object dtype;
  try {
    dtype = py::module_::import("numpy").attr("dtype")(obj);
  } catch (py::error_already_set&) {
    throw py::type_error(what(param) + ": " + std::string(py::repr(obj)) + " is not a dtype");
  }
  aclDataType acl = from_numpy(py::reinterpret_borrow<py::dtype>(dtype));
  if (acl == ACL_DT_UNDEFINED) throw py::type_error(what(param) + ": " + std::string(py::str(dtype)) + " has no aclDataType");
  return acl;
}

static bool dim_of(py::handle obj, Dims* dims) {
  int64_t value = 0;
  if (!int64_of(obj, &value)) return false;
  dims->push_back(value);
  return true;
}

// The dimensions of a family's `dim` argument: an int, or a sequence of ints (a list, a 1-d
// array); false for anything else (which the input's own conversion has refused already, or the
// library will).
static bool dims_of(py::handle obj, Dims* dims) {
  const bool array = py::isinstance<py::array>(obj);
  if (!array || py::reinterpret_borrow<py::array>(obj).ndim() == 0) {
    if (dim_of(obj, dims)) return true;
    if (array) return false;
  }
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) return false;
  for (py::handle item : obj) {
    if (!dim_of(item, dims)) return false;
  }
  return true;
}

// The output of a convolution of `input` by `weight` (aclnn_bindgen/conv_shape.h, the simulator's
// rule too); arguments that do not convert or do not agree leave the input's shape, for the
// library to refuse.
static void convolution_shape(const RuleArgs& args, const Dims& input, const Dims& weight, Dims* shape) {
  aclnn_bindgen::ConvArgs a;
  a.input.assign(input.begin(), input.end());
  a.weight.assign(weight.begin(), weight.end());
  std::vector<int64_t>* arrays[4] = {&a.stride, &a.padding, &a.dilation, &a.output_padding};
  const int array_of[4] = {0, 1, 2, 4};
  for (int i = 0; i < 4; ++i) {
    const py::handle h = args.conv[array_of[i]];
    Dims values;
    if (!h || h.is_none() || !dims_of(h, &values)) return;
    arrays[i]->assign(values.begin(), values.end());
  }
  if (args.conv[3] && !args.conv[3].is_none()) a.transposed = PyObject_IsTrue(args.conv[3].ptr()) == 1;
  if (args.conv[5] && !args.conv[5].is_none()) {
    Dims groups;
    if (!dims_of(args.conv[5], &groups) || groups.size() != 1) return;
    a.groups = groups[0];
  }
  std::vector<int64_t> out;
  if (aclnn_bindgen::ConvOutputShape(a, &out).ok()) *shape = Dims(out.begin(), out.end());
}

// The pool family's shapes (pool_shape.h's arithmetic, which the simulator's phase 1 applies and
// checks): the input's leading dimensions, then its last `spatial` ones pooled by the windows
// (kPool), replaced by the output size (kAdaptive) or widened by the padding pairs, last dimension
// first (kPad). False when an argument does not give one (the library then says which is wrong).
static bool pool_shape(OutputShape rule, int spatial, const RuleArgs& args, const Dims& input, Dims* out) {
  if (spatial < 1 || spatial > 3 || input.size() < static_cast<size_t>(spatial)) return false;
  auto read = [](py::handle h, Dims* d) { return h && !h.is_none() && dims_of(h, d); };
  const size_t lead = input.size() - static_cast<size_t>(spatial);
  Dims first, shape(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(lead));
  if (!read(args.dims, &first)) return false;
  aclnn_bindgen::PoolWindow window;
  int64_t size[3];
  if (rule == OutputShape::kPad) {
    if (first.size() != static_cast<size_t>(2 * spatial)) return false;
  } else if (rule == OutputShape::kAdaptive) {
    if (!aclnn_bindgen::SpreadPoolArgument(first.data(), first.size(), spatial, nullptr, size)) return false;
  } else {
    // An absent stride or dilation reads as empty: the kernel's, and 1.
    Dims s, p, d;
    if (args.stride && !args.stride.is_none() && !read(args.stride, &s)) return false;
    if (!read(args.padding, &p)) return false;
    if (args.dilation && !args.dilation.is_none() && !read(args.dilation, &d)) return false;
    if (aclnn_bindgen::SpreadPoolWindow(spatial, first.data(), first.size(), s.data(), s.size(), p.data(), p.size(),
                                        d.data(), d.size(), &window) != aclnn_bindgen::kPoolWindowOk) {
      return false;
    }
  }
  const bool ceil_mode = args.ceil_mode && !args.ceil_mode.is_none() && PyObject_IsTrue(args.ceil_mode.ptr()) == 1;
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = input[lead + static_cast<size_t>(k)];
    int64_t n = 0;
    if (rule == OutputShape::kPool) {
      if (aclnn_bindgen::PooledExtent(in, window.kernel[k], window.stride[k], window.padding[k], window.dilation[k], ceil_mode,
                                      &n) != aclnn_bindgen::kPoolOk)
        return false;
    } else if (rule == OutputShape::kPad) {
      int64_t before = 0;
      if (aclnn_bindgen::PaddedDimension(in, first.data(), spatial, k, false, &before, &n) != aclnn_bindgen::kPoolOk)
        return false;
    } else {
      n = size[k];
    }
    shape.push_back(n);
  }
  *out = shape;
  return true;
}

void Call::apply_family_rule(const OutputPlan& plan, const RuleArgs& args, Dims* shape, const Dims* second,
                             aclDataType* dtype) {
  // Rules on a second input, or on the arguments, that cannot apply leave the first input's shape:
  // the call reaches the library, which says what is wrong (161001, 161002).
  const Dims first = *shape;
  switch (plan.shape_rule) {
    case OutputShape::kMatmul: {
      Dims product;
      if (second && aclnn_bindgen::MatmulShape(first, *second, &product)) *shape = product;
      break;
    }
    case OutputShape::kOuter:
      if (second && !first.empty() && !second->empty()) *shape = Dims{first[0], (*second)[0]};
      break;
    case OutputShape::kBatchSum:
      if (second && first.size() >= 2 && second->size() >= 2) *shape = Dims{first[first.size() - 2], second->back()};
      break;
    case OutputShape::kTrailingOnes: {
      Dims dims;
      size_t count = second ? second->size() : 0;
      if (args.dims && !args.dims.is_none() && dims_of(args.dims, &dims)) count = dims.size();
      for (size_t d = shape->size() - std::min(count, shape->size()); d < shape->size(); ++d) (*shape)[d] = 1;
      break;
    }
    case OutputShape::kGroups: {
      // Only a group count dividing the channels (first[1]) shapes [N, group]: another (2^31 from a
      // fuzzer) would allocate its outputs before phase 1 refuses it.
      Dims group;
      if (first.size() >= 2 && args.dims && dims_of(args.dims, &group) && group.size() == 1 && group[0] > 0 &&
          first[1] % group[0] == 0) {
        *shape = Dims{first[0], group[0]};
      }
      break;
    }
    case OutputShape::kChannels:
      if (first.size() >= 2) *shape = Dims{first[1]};
      break;
    case OutputShape::kConvolution:
      if (second) convolution_shape(args, first, *second, shape);
      break;
    case OutputShape::kPool:
    case OutputShape::kAdaptive:
    case OutputShape::kPad: {
      Dims pooled;
      if (pool_shape(plan.shape_rule, plan.spatial, args, first, &pooled)) *shape = pooled;
      break;
    }
    case OutputShape::kBoundFlat: case OutputShape::kBoundNonzero: case OutputShape::kBoundNonzeroT: {
      // The most the data can give: every element selected (masked_select's self broadcast with
      // its mask), every element distinct, every element nonzero.
      Dims joint = first;
      if (second) broadcast(joint, *second);
      int64_t n = 1;
      for (int64_t d : joint) n *= d;
      const int64_t rank = static_cast<int64_t>(first.size());
      *shape = plan.shape_rule == OutputShape::kBoundFlat ? Dims{n}
               : plan.shape_rule == OutputShape::kBoundNonzero ? Dims{n, rank} : Dims{rank, n};
      break;
    }
    case OutputShape::kBoundDim: case OutputShape::kBoundDimLength: case OutputShape::kDimLength: {
      // With a dim in range, slices along it (unique_dim; unique_consecutive, whose dim 1000 or
      // any out of range means the flattened input): the values keep the input's shape, the
      // counts and the inverse one per slice. Else elements: [N] (the inverse: the input's shape).
      Dims dims;
      const int64_t rank = static_cast<int64_t>(first.size());
      int64_t n = 1;
      for (int64_t d : first) n *= d;
      if (args.dims && !args.dims.is_none() && dims_of(args.dims, &dims) && dims.size() == 1 && rank > 0 &&
          dims[0] >= -rank && dims[0] < rank) {
        const int64_t along = first[static_cast<size_t>(dims[0] < 0 ? dims[0] + rank : dims[0])];
        if (plan.shape_rule != OutputShape::kBoundDim) *shape = Dims{along};
      } else if (plan.shape_rule != OutputShape::kDimLength) {
        *shape = Dims{n};
      }
      break;
    }
    case OutputShape::kOne:
      *shape = Dims{1};
      break;
    case OutputShape::kSecond:
      if (second) *shape = *second;
      break;
    // No default: a rule gen.families adds is a compile error here until it is implemented
    // (call.cpp compiles with -Werror=switch).
    case OutputShape::kBroadcast:
    case OutputShape::kSame:
    case OutputShape::kReduce:  // below, with keepdim and the dtype argument
      break;
  }
  if (plan.shape_rule == OutputShape::kReduce) {
    const int64_t rank = static_cast<int64_t>(shape->size());
    Dims dims;
    const bool given = args.dims && !args.dims.is_none();
    if (given && !dims_of(args.dims, &dims)) return;
    const bool noop = args.noop && !args.noop.is_none() && PyObject_IsTrue(args.noop.ptr()) == 1;
    if (given && dims.empty() && noop) return;  // no dimension reduced: the input's shape
    std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());  // none given or empty: every one
    for (int64_t d : dims) {
      const int64_t extent = std::max<int64_t>(rank, 1);
      // A dimension out of range: the input's shape, so that the call reaches the library, which
      // says why it refuses (161002), instead of failing here on a guess.
      if (d < -extent || d >= extent) return;
      if (rank > 0) reduced[static_cast<size_t>(d < 0 ? d + extent : d)] = true;
    }
    const bool keepdim = args.keepdim && !args.keepdim.is_none() && PyObject_IsTrue(args.keepdim.ptr()) == 1;
    Dims out;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[static_cast<size_t>(d)]) out.push_back((*shape)[d]);
      else if (keepdim) out.push_back(1);
    }
    *shape = out;
  }
  if (plan.fixed_dtype != ACL_DT_UNDEFINED) {
    *dtype = plan.fixed_dtype;
  } else if (args.dtype && !args.dtype.is_none()) {
    // Converted without error as an input already; ACL_DT_UNDEFINED means "the input's" (aclnnCumprod).
    const aclDataType given = this->dtype(plan.param, args.dtype);
    if (given != ACL_DT_UNDEFINED) *dtype = given;
  }
}

Call::Slot* Call::output_slot(int param, py::handle given, const OutputPlan* plan, const RuleArgs& rule_args,
                              const Label& label) {
  if (!given.is_none()) {
    Slot* slot = tensor_slot(given, true, label);
    slot->overwrite = true;
    if (plan != nullptr && data_dependent(plan->shape_rule)) {
      // The caller's output holds the result in its first elements (CANN asks no more of it): its
      // extent is read back as an allocated one's, through a descriptor of the call's own (a
      // Tensor's cached one would keep the view the kernel sets).
      slot->data_dependent = true;
      data_dependent_ = true;
      own_descriptor(slot);
    }
    return slot;
  }
  if (plan == nullptr || plan->required_reason != nullptr)
    throw py::type_error(label.str() + " cannot be allocated: " +
                         (plan ? plan->required_reason : "an output list has no shape the page states") + "; pass out=");
  // Shape and dtype from the inputs the page relates the output to. A related input that is
  // None means the library will reject the call (161001): pass NULL for the output as well.
  auto input = [&](int from) -> const DeviceTensor* {
    if (from >= kMaxParams || (is_list_ >> from & 1) || !(attached_ >> from & 1) || single_[from] == nullptr)
      return nullptr;
    return single_[from]->device;
  };
  Dims shape, second;
  bool first = true, has_second = false;
  const bool family = plan->shape_rule != OutputShape::kBroadcast;
  for (int from : plan->shape_from) {
    const DeviceTensor* t = input(from);
    // A family rule's second input may be an absent optional one (layer norm's weight).
    if (t == nullptr && family && !first) continue;
    if (t == nullptr) return nullptr;
    if (first) shape = t->shape;
    // A family's rule reads the second shape itself (a product's right operand).
    else if (family) second = t->shape, has_second = true;
    // Shapes that do not broadcast keep the first: the library reports the mismatch.
    else broadcast(shape, t->shape);
    first = false;
  }
  aclDataType dtype = ACL_DT_UNDEFINED;
  first = true;
  for (int from : plan->dtype_from) {
    const DeviceTensor* t = input(from);
    if (t == nullptr) return nullptr;
    aclDataType p = first ? t->dtype : promote(dtype, t->dtype);
    dtype = p == ACL_DT_UNDEFINED ? dtype : p;  // no promotion: keep the first; the library judges
    first = false;
  }
  dtype = aclnn_bindgen::ResultDType(plan->result, dtype);
  if (family) apply_family_rule(*plan, rule_args, &shape, has_second ? &second : nullptr, &dtype);
  if (plan->dtype_must_be_documented &&
      std::find(plan->documented.begin(), plan->documented.end(), dtype) == plan->documented.end()) {
    std::string listed;
    for (aclDataType d : plan->documented) listed += (listed.empty() ? "" : ", ") + dtype_name(d);
    throw py::type_error(label.str() + " cannot be allocated: the inputs give " + dtype_name(dtype) +
                         ", which the page does not list for it (" + listed + "); pass out=");
  }
  return allocated_slot(shape, dtype, label, false, data_dependent(plan->shape_rule));
}

Call::Slot* Call::allocated_slot(const Dims& shape, aclDataType dtype, const Label& label, bool list_member,
                                 bool data_dependent) {
  const DTypeInfo* info = dtype_info(dtype);
  if (info == nullptr || info->size == 0)
    throw py::type_error(label.str() + " cannot be allocated as " + dtype_name(dtype) + "; pass out=");
  size_t nbytes = info->size;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(d), &nbytes))
      throw py::value_error(label.str() + ": the output would be too large to allocate");
  }

  // The device first: a size the device cannot hold fails there, as an aclnn error, before the
  // host is asked for the same bytes.
  std::shared_ptr<DeviceBuffer> storage = DeviceBuffer::allocate(nbytes, stream_, spec_.api);
  Slot* slot = new_slot();
  // Built where it lives (the result Tensor, or the slot): a chained call's result is not moved.
  if (device_mode_) slot->result = new_tensor();
  DeviceTensor& t = device_mode_ ? device_tensor_of(slot->result) : slot->made.emplace();
  t.dtype = dtype;
  t.strides = contiguous_strides(shape);
  t.shape = shape;
  t.storage_elements = t.numel();
  t.storage = std::move(storage);
  slot->device = &t;
  slot->written = true;
  if (!device_mode_) {
    std::vector<py::ssize_t> dims(t.shape.begin(), t.shape.end());
    py::array host(to_numpy(dtype), dims);
    slot->host = host_array(host, label, true);
    slot->download = true;
    downloads_ = true;
    slot->result = host;
  }
  if (list_member) {
    own_descriptor(slot);  // the list owns (and destroys) its members' aclTensors
  } else if (data_dependent) {
    // The kernel changes this descriptor's view: the call's own, never the block's cached one
    // (which a later call of the bound's layout would take).
    slot->data_dependent = true;
    data_dependent_ = true;
    own_descriptor(slot);
  } else {
    slot->acl = device_mode_ ? describe_result(slot->result, spec_.api) : t.storage->describe_fresh(t, spec_.api);
  }
  return slot;
}

aclTensor* Call::output(int param, const RuleArgs& rule_args) {
  size_t k = 0;
  while (k < spec_.outputs.size() && spec_.outputs[k].param != param) ++k;
  const OutputPlan* plan = k < spec_.outputs.size() ? &spec_.outputs[k] : nullptr;
  Slot* slot = output_slot(param, given_out(k), plan, rule_args, Label{this, param, -1, true});
  attach(param, slot);
  return slot ? slot->acl : nullptr;
}

aclTensorList* Call::output_list(int param) {
  size_t k = 0;
  while (k < spec_.outputs.size() && spec_.outputs[k].param != param) ++k;
  py::handle given = given_out(k);
  const Label label{this, param, -1, true};
  const OutputPlan* plan = k < spec_.outputs.size() ? &spec_.outputs[k] : nullptr;
  if (given.is_none() && plan && !plan->required_reason && plan->shape_rule == OutputShape::kSame &&
      plan->shape_from.size() == 1) {
    // Member i as the source list's member i (the foreach family); an absent source list means
    // the library will reject the call (161001): NULL for the output as well.
    const std::vector<Slot*>* source = list_members(plan->shape_from[0]);
    if (source == nullptr) return nullptr;
    std::vector<Slot*> members;
    for (size_t i = 0; i < source->size(); ++i) {
      const Slot* from = (*source)[i];
      if (from == nullptr || from->device == nullptr) throw py::type_error(label.str() + ": pass out=");
      members.push_back(allocated_slot(from->device->shape, from->device->dtype,
                                       Label{this, param, static_cast<int>(i), true}, true));
    }
    return make_list(param, members);
  }
  if (given.is_none()) throw py::type_error(label.str() + " is a list of tensors whose shapes the page does not state; pass out=");
  if (!py::isinstance<py::list>(given) && !py::isinstance<py::tuple>(given))
    throw py::type_error(label.str() + ": out= takes a list of arrays, got " + type_name(given));
  std::vector<Slot*> members;
  int i = 0;
  for (py::handle item : given) {
    const Label item_label{this, param, i++, true};
    if (item.is_none()) throw py::type_error(item_label.str() + ": pass an array");
    members.push_back(tensor_slot(item, true, item_label, true));
  }
  return make_list(param, members);
}

const std::vector<Call::Slot*>* Call::list_members(int param) const {
  for (const auto& entry : lists_) {
    if (entry.first == param) return &entry.second;
  }
  return nullptr;
}

void* Call::resolve_phase1() {
  void* symbol = spec_.phase1.load(std::memory_order_acquire);
  if (symbol == nullptr) {
    symbol = runtime_.backend().op_symbol(spec_.api, spec_.workspace_fn);
    spec_.phase1.store(symbol, std::memory_order_release);
  }
  return symbol;
}

void Call::execute(void* phase1, Trampoline trampoline, void* ctx) {
  void* phase2_symbol = spec_.phase2.load(std::memory_order_acquire);
  if (phase2_symbol == nullptr) {
    phase2_symbol = runtime_.backend().op_symbol(spec_.api, spec_.api);
    spec_.phase2.store(phase2_symbol, std::memory_order_release);
  }
  auto phase2 = reinterpret_cast<aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream)>(phase2_symbol);
  const int64_t call = counters().calls.fetch_add(1) + 1;
  std::optional<AclnnFailure> failure;
  const void* launched = nullptr;
  // The library's work runs without the GIL, so that other Python threads proceed (CANN's phase 1
  // tiles the op and can take a while); only Python objects need it.
  auto launch = [&] {
    try {
      // Phase 1 reads only the C objects built above (no tensor data), before any upload, so that
      // a rejected call has queued nothing.
      uint64_t workspace_size = 0;
      aclOpExecutor* raw_executor = nullptr;
      aclnnStatus status = trampoline(ctx, phase1, &workspace_size, &raw_executor);
      if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "GetWorkspaceSize", runtime_.recent_error()};
      // Destroyed if phase 2 is never reached (which consumes it). Not counted in live_objects: it
      // never outlives this function, and two atomic updates per call showed in its profile.
      std::unique_ptr<aclOpExecutor, UncountedExecutor> executor(raw_executor);
      // Host arrays go up on the call's stream, after whatever the stream runs before this call
      // (the blocks they land in may have been another call's a moment ago). The arrays stay
      // alive in the slots until the call has synchronised.
      for (size_t i = 0; i < slot_count_; ++i) {
        Slot& slot = slot_at(i);
        if (!slot.upload) continue;
        // An out= array that covers its span exactly is overwritten whole: nothing to upload. (A
        // strided one is uploaded, so that the elements between its own keep their values.)
        if (slot.overwrite && slot.host.dense() && !slot.host.writeback) continue;
        host_reads_pending_ = true;
        copy_async(slot.device->storage->data(), slot.host.data,
                   static_cast<size_t>(slot.device->storage_elements) * slot.host.itemsize, ACL_MEMCPY_HOST_TO_DEVICE,
                   stream_, spec_.api);
      }
      std::shared_ptr<DeviceBuffer> workspace;
      // The workspace goes back to the cache when this call returns: the next user on this
      // stream runs after this call's kernel, as the stream orders them.
      if (workspace_size > 0) workspace = DeviceBuffer::allocate(workspace_size, stream_, spec_.api);
      // Phase 2 consumes the executor (CANN frees a non-repeatable executor after running it).
      status = phase2(workspace ? workspace->data() : nullptr, workspace_size, executor.release(), stream_.handle());
      if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "execute", runtime_.recent_error()};
      launched = raw_executor;
    } catch (AclnnFailure& f) {
      failure = std::move(f);
    }
  };
  // With no other Python thread, releasing the GIL (a mutex and a condition variable each way, a
  // tenth of a chained call) would let nobody run.
  if (other_python_threads()) without_gil(launch);
  else launch();
  if (failure) {
    // Queued uploads read host arrays this call is about to let go: wait for them. A fault of an
    // earlier call that this synchronisation finds is raised instead (it happened first).
    if (host_reads_pending_) synchronize_stream();
    host_reads_pending_ = false;
    throw *failure;
  }
  stream_.note_launch(call, spec_.api, launched);
  // The Tensors the kernel writes remember this stream (a host array's copy is read back here).
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (slot.written && !slot.made) slot.device->storage->written_on(stream_);
  }
  if (uploads_ || downloads_ || data_dependent_ || runtime_.launch_blocking()) synchronize_and_download();
  if (data_dependent_) shrink_to_written();
}

void Call::shrink_to_written() {
  const auto get_view_shape = runtime_.abi().aclGetViewShape;
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (!slot.data_dependent) continue;
    if (get_view_shape == nullptr)
      throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, spec_.api, "aclGetViewShape",
                         "the backend exports no aclGetViewShape, which reads back the extent of a data-dependent output"};
    int64_t* dims = nullptr;
    uint64_t rank = 0;
    const aclnnStatus status = get_view_shape(slot.acl, &dims, &rank);
    if (status != ACLNN_SUCCESS) throw AclnnFailure{status, spec_.api, "aclGetViewShape", runtime_.recent_error()};
    Dims shape(dims, dims + rank);
    delete[] dims;  // CANN's contract: the caller releases the array with delete[]
    // The kernel wrote the elements contiguously from the first: the result is their view (an
    // out= array of the result's own shape is returned as given).
    if (slot.made) {
      py::array whole = py::reinterpret_borrow<py::array>(slot.result);
      if (Dims(whole.shape(), whole.shape() + whole.ndim()) == shape) continue;
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      py::object flat = whole.attr("reshape")(-1);
      py::tuple dims_tuple(shape.size());
      for (size_t d = 0; d < shape.size(); ++d) dims_tuple[d] = py::int_(shape[d]);
      slot.result = flat[py::slice(0, static_cast<py::ssize_t>(n), 1)].attr("reshape")(dims_tuple);
    } else {
      DeviceTensor& t = device_tensor_of(slot.result);
      t.strides = contiguous_strides(shape);
      t.shape = shape;
    }
  }
}

// One synchronisation: host arrays were read by the stream (uploads) or are written from it
// (downloads), and ACLNN_LAUNCH_BLOCKING=1 wants every call's fault reported by that call.
void Call::synchronize_and_download() {
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (!slot.download) continue;
    copy_async(slot.host.data, slot.device->storage->data(),
               static_cast<size_t>(slot.device->storage_elements) * slot.host.itemsize, ACL_MEMCPY_DEVICE_TO_HOST,
               stream_, spec_.api);
  }
  synchronize_stream();
  host_reads_pending_ = false;
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& slot = slot_at(i);
    if (slot.download && slot.host.writeback)
      py::module_::import("numpy").attr("copyto")(slot.host.writeback, slot.host.keep);
  }
}

void Call::synchronize_stream() {
  try {
    stream_.synchronize(spec_.python_name);
  } catch (py::error_already_set&) {  // KeyboardInterrupt: the stream still reads and writes them
    for (size_t i = 0; i < slot_count_; ++i) {
      Slot& slot = slot_at(i);
      if (!slot.upload && !slot.download) continue;
      stream_.hold_until_done(slot.host.keep);
      stream_.hold_until_done(slot.host.writeback);
    }
    host_reads_pending_ = false;  // the stream holds them: ~Call need not wait
    throw;
  }
}

py::object Call::results() {
  auto result_of = [&](int param) -> py::object {
    if (is_list_ >> param & 1) {
      py::list items;
      for (const auto& entry : lists_) {
        if (entry.first != param) continue;
        for (Slot* s : entry.second) items.append(s ? s->result : py::none());
      }
      return std::move(items);
    }
    Slot* slot = param < kMaxParams && (attached_ >> param & 1) ? single_[param] : nullptr;
    return slot ? slot->result : py::none();
  };
  if (spec_.returns.empty()) return py::none();
  if (spec_.returns.size() == 1) return result_of(spec_.returns[0]);
  py::tuple tuple(spec_.returns.size());
  for (size_t i = 0; i < spec_.returns.size(); ++i) tuple[i] = result_of(spec_.returns[i]);
  return std::move(tuple);
}

void parse_arguments(const PySignature& signature, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                     PyObject** values) {
  const auto count = static_cast<Py_ssize_t>(signature.names.size());
  const char* const function = signature.function;  // a std::string only in messages: not on every call
  if (nargs > signature.positional) {
    throw py::type_error(std::string(function) + "() takes " + (signature.positional == signature.required ? "" : "at most ") +
                         std::to_string(signature.positional) + " positional argument" +
                         (signature.positional == 1 ? "" : "s") + " (" + std::to_string(nargs) + " given)");
  }
  for (Py_ssize_t i = 0; i < count; ++i) values[i] = i < nargs ? args[i] : nullptr;
  const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < keywords; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    Py_ssize_t found = -1;
    for (Py_ssize_t i = 0; i < count && found < 0; ++i) {
      if (PyUnicode_CompareWithASCIIString(key, signature.names[i]) == 0) found = i;
    }
    if (found < 0)
      throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" + py::str(key).cast<std::string>() + "'");
    if (values[found] != nullptr)
      throw py::type_error(std::string(function) + "() got multiple values for argument '" + signature.names[found] + "'");
    values[found] = args[nargs + k];
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (values[i] != nullptr) continue;
    if (i < signature.required) {
      throw py::type_error(std::string(function) + "() missing required argument '" + signature.names[i] + "' (pos " +
                           std::to_string(i + 1) + ")");
    }
    values[i] = Py_None;
  }
}

}  // namespace aclnn_binding
