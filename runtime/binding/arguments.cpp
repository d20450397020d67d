// aclnn-bindgen: a call's inputs: Python objects converted into the CANN objects phase 1 takes
// (tensors and tensor lists, scalars, int/float/bool arrays, numbers, strings, dtypes).
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstring>

#include "binding.h"

namespace aclnn_binding {

namespace {

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


}  // namespace

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
    d.storage = DeviceBuffer::allocate(slot->host.bytes(d.storage_elements), stream_,
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

}  // namespace aclnn_binding
