// aclnn-bindgen: host arrays (NumPy, DLPack) and device tensors (aclnn.Tensor).
//
// A host array reaches the device as a copy of its memory span, from its first to its last
// addressed element, and the aclTensor gets the array's own strides over that copy: a transposed
// or sliced array is not made contiguous. The exceptions, which do copy to a contiguous array
// first (NumPy's ascontiguousarray), are negative strides and strides that are not a multiple of
// the itemsize (neither can be expressed as aclTensor strides over a span starting at element 0),
// and non-native byte order (the device computes in native order).
#include <pybind11/stl.h>

#include <cstdio>
#include <cstring>

#include <structmember.h>

#include "binding.h"

namespace aclnn_binding {
namespace {

// DLPack (dlpack.h, v0.8 "dltensor" capsules): the stable C ABI of __dlpack__.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int32_t kDLCPU = 1, kDLCUDAHost = 3;
enum : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

aclDataType from_dlpack(DLDataType t) {
  if (t.lanes != 1) return ACL_DT_UNDEFINED;
  switch (t.code) {
    case kDLInt: return t.bits == 8 ? ACL_INT8 : t.bits == 16 ? ACL_INT16 : t.bits == 32 ? ACL_INT32 : t.bits == 64 ? ACL_INT64 : ACL_DT_UNDEFINED;
    case kDLUInt: return t.bits == 8 ? ACL_UINT8 : t.bits == 16 ? ACL_UINT16 : t.bits == 32 ? ACL_UINT32 : t.bits == 64 ? ACL_UINT64 : ACL_DT_UNDEFINED;
    case kDLFloat: return t.bits == 16 ? ACL_FLOAT16 : t.bits == 32 ? ACL_FLOAT : t.bits == 64 ? ACL_DOUBLE : ACL_DT_UNDEFINED;
    case kDLBfloat: return t.bits == 16 ? ACL_BF16 : ACL_DT_UNDEFINED;
    case kDLComplex: return t.bits == 64 ? ACL_COMPLEX64 : t.bits == 128 ? ACL_COMPLEX128 : ACL_DT_UNDEFINED;
    case kDLBool: return t.bits == 8 ? ACL_BOOL : ACL_DT_UNDEFINED;
    default: return ACL_DT_UNDEFINED;
  }
}

// A Python exception raised inside the object's own method (__dlpack__, __array__) becomes the
// cause of ours, as `raise TypeError(...) from error` would: its type and traceback are kept, and
// our message carries its text, not pybind11's "At:" lines.
[[noreturn]] void raise_from(py::error_already_set& error, const std::string& message) {
  const std::string text = message + ": " + std::string(py::str(error.value()));
  py::raise_from(error, PyExc_TypeError, text.c_str());
  throw py::error_already_set();
}

HostArray from_dlpack_object(py::handle obj, const ArgumentName& what) {
  py::object capsule;
  try {
    capsule = obj.attr("__dlpack__")();
  } catch (py::error_already_set& e) {
    raise_from(e, what.str() + ": " + type_name(obj) + ".__dlpack__() failed");
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) {
    PyErr_Clear();
    throw py::type_error(what.str() + ": " + type_name(obj) + ".__dlpack__() did not return a 'dltensor' capsule");
  }
  // The capsule is consumed: from here on the managed tensor is ours, released by `keep`.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  py::capsule keep(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost)
    throw py::type_error(what.str() + ": DLPack tensors must be in host memory (device type " +
                         std::to_string(t.device.device_type) + ")");
  HostArray h;
  h.dtype = from_dlpack(t.dtype);
  if (h.dtype == ACL_DT_UNDEFINED)
    throw py::type_error(what.str() + ": DLPack dtype (code " + std::to_string(t.dtype.code) + ", " +
                         std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                         " lanes) has no aclDataType");
  h.itemsize = t.dtype.bits / 8;
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr))
    throw py::value_error(what.str() + ": DLPack tensor with " + std::to_string(t.ndim) + " dimensions");
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0)
      throw py::value_error(what.str() + ": DLPack tensor with a negative dimension (" + std::to_string(t.shape[i]) + ")");
  }
  h.shape.assign(t.shape, t.shape + t.ndim);
  h.strides.resize(static_cast<size_t>(t.ndim));
  int64_t running = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    h.strides[i] = t.strides ? t.strides[i] : running;
    running *= t.shape[i];
  }
  h.data = static_cast<char*>(t.data) + t.byte_offset;
  h.writeable = true;  // v0.8 capsules carry no read-only flag
  h.keep = std::move(keep);
  for (int64_t s : h.strides) {
    if (s < 0) {
      // No aclTensor strides for this over a span starting at element 0: go through NumPy, which
      // copies (np.from_dlpack cannot read a consumed capsule, so ask the object again).
      throw py::type_error(what.str() + ": DLPack tensors with negative strides are not supported; pass a copy");
    }
  }
  return h;
}

}  // namespace

std::string type_name(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__qualname__")); }

int64_t HostArray::span_elements() const {
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    span += (shape[i] - 1) * strides[i];
  }
  return span;
}

size_t HostArray::bytes(int64_t elements) const {
  return packed ? storage_bytes(dtype, elements) : static_cast<size_t>(elements) * itemsize;
}

py::array pack_int4(py::array values) {
  py::module_ np = py::module_::import("numpy");
  // One element a byte, its nibble in the low four bits (ml_dtypes' int4: -1 is 0x0f).
  py::array_t<uint8_t> nibbles = np.attr("ascontiguousarray")(values).attr("view")(np.attr("uint8"));
  const auto count = static_cast<size_t>(nibbles.size());
  py::array_t<uint8_t> packed(static_cast<py::ssize_t>(std::max<size_t>((count + 1) / 2, 1)));
  const uint8_t* in = nibbles.data();
  uint8_t* out = packed.mutable_data();
  std::memset(out, 0, static_cast<size_t>(packed.size()));
  for (size_t i = 0; i < count; ++i) out[i / 2] |= static_cast<uint8_t>((in[i] & 0x0f) << (4 * (i % 2)));
  return std::move(packed);
}

py::array unpack_int4(const uint8_t* packed, const Dims& shape) {
  py::array_t<uint8_t> nibbles(std::vector<py::ssize_t>(shape.begin(), shape.end()));
  uint8_t* out = nibbles.mutable_data();
  const auto count = static_cast<size_t>(nibbles.size());
  for (size_t i = 0; i < count; ++i) out[i] = (packed[i / 2] >> (4 * (i % 2))) & 0x0f;
  return nibbles.attr("view")(to_numpy(ACL_INT4));
}

bool HostArray::dense() const {
  // Row-major contiguous (or any permutation of it) with no broadcast dimension.
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel == 0) return true;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1 && strides[i] == 0) return false;
  return span_elements() == numel;
}

namespace {

// aclnn.Tensor is a plain CPython type rather than a pybind11 class: every call on device tensors
// makes one for its result and drops the previous one, and pybind11's instance registry (a hash
// insert and erase per object, with its type lookups) cost ~300 ns of a ~2 us call; this costs ~40.
struct TensorObject {
  PyObject_HEAD
  DeviceTensor tensor;  // by value: a result costs no allocation beyond the object (its storage is shared)
  PyObject* weakrefs;  // weakref.ref(tensor) works, as it did for the pybind11 class
  // The aclTensor describing `tensor`, made by the first call that passes this Tensor and destroyed
  // with it: `tensor` never changes, and phase 1 only reads a descriptor, so every call may pass
  // the same one. A chain of calls then creates one descriptor per call (its result's) instead of
  // one per argument, which was a fifth of the bindings' share of a chained call.
  aclTensor* descriptor;
  bool descriptor_borrowed;  // the block's (describe_result): the allocator destroys it
};

PyTypeObject* g_tensor_type = nullptr;  // aclnn.Tensor, made by bind_tensor

void tensor_dealloc(PyObject* self) {
  auto* object = reinterpret_cast<TensorObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (object->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  if (!object->descriptor_borrowed) Destroy<aclTensor>()(object->descriptor);  // before its memory is reused
  object->tensor.~DeviceTensor();  // may return a block to the caching allocator
  type->tp_free(self);
  Py_DECREF(type);  // instances of a heap type hold a reference to it
}

// `self` of a Tensor method: pybind11 only checks that an argument is an object.
DeviceTensor& tensor_self(py::handle self) {
  if (!is_device_tensor(self)) throw py::type_error("expected an aclnn.Tensor, got " + type_name(self));
  return reinterpret_cast<TensorObject*>(self.ptr())->tensor;
}

}  // namespace

py::object wrap_tensor(DeviceTensor&& tensor) {
  py::object self = new_tensor();
  device_tensor_of(self) = std::move(tensor);
  return self;
}

py::object new_tensor() {
  PyObject* self = g_tensor_type->tp_alloc(g_tensor_type, 0);
  if (self == nullptr) throw py::error_already_set();
  new (&reinterpret_cast<TensorObject*>(self)->tensor) DeviceTensor();
  return py::reinterpret_steal<py::object>(self);
}

// Every argument of every call is asked: a type pointer comparison, not pybind11's type lookup.
bool is_device_tensor(py::handle obj) {
  return g_tensor_type != nullptr && PyObject_TypeCheck(obj.ptr(), g_tensor_type);
}

DeviceTensor& device_tensor_of(py::handle obj) {
  return reinterpret_cast<TensorObject*>(obj.ptr())->tensor;
}

aclTensor* descriptor_of(py::handle obj, const char* api) {
  // Under the GIL (arguments are converted with it), so no two threads make it at once.
  auto* object = reinterpret_cast<TensorObject*>(obj.ptr());
  if (object->descriptor == nullptr) object->descriptor = object->tensor.make_acl_tensor(api);
  return object->descriptor;
}

aclTensor* describe_result(py::handle obj, const char* api) {
  auto* object = reinterpret_cast<TensorObject*>(obj.ptr());
  if (aclTensor* kept = object->tensor.storage->describe_fresh(object->tensor, api)) {
    object->descriptor = kept;
    object->descriptor_borrowed = true;
    return kept;
  }
  return descriptor_of(obj, api);
}

HostArray host_array(py::handle obj, const ArgumentName& what, bool for_output) {
  if (!py::isinstance<py::array>(obj) && py::hasattr(obj, "__dlpack__")) return from_dlpack_object(obj, what);
  py::array array;
  if (py::isinstance<py::array>(obj)) {
    array = py::reinterpret_borrow<py::array>(obj);
  } else if (for_output) {
    throw py::type_error(what.str() + ": expected a writeable NumPy array, an aclnn.Tensor or a __dlpack__ object, got " +
                         type_name(obj));
  } else if (obj.is_none() || py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) ||
             py::isinstance<py::dict>(obj)) {
    throw py::type_error(what.str() + ": expected an array, got " + (obj.is_none() ? std::string("None") : type_name(obj)));
  } else {
    try {
      array = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
      raise_from(e, what.str() + ": cannot make an array of " + type_name(obj));
    }
  }
  HostArray h;
  h.writeable = array.writeable();
  if (for_output && !h.writeable) throw py::value_error(what.str() + ": the array is read-only; pass a writeable array");
  py::dtype dtype = array.dtype();
  h.dtype = from_numpy(dtype);
  if (h.dtype == ACL_DT_UNDEFINED && dtype.kind() == 'O') {
    // NumPy keeps what no dtype of its holds as objects: a Python int past 64 bits, None, a mix.
    if (PyLong_Check(obj.ptr()))
      throw py::value_error(what.str() + ": " + std::string(py::str(obj)) + " is out of the range of every integer dtype");
    throw py::type_error(what.str() + ": " + type_name(obj) + " does not make an array of numbers (NumPy gives dtype object)");
  }
  if (h.dtype == ACL_DT_UNDEFINED)
    throw py::type_error(what.str() + ": dtype " + std::string(py::str(dtype)) + " has no aclDataType");
  h.itemsize = static_cast<size_t>(dtype.itemsize());
  if (h.dtype == ACL_INT4) {
    // Packed into a private copy whatever the strides: a view of two elements a byte cannot start
    // or step inside a byte.
    const auto ndim = static_cast<size_t>(array.ndim());
    h.shape.assign(array.shape(), array.shape() + ndim);
    h.strides = contiguous_strides(h.shape);
    for (size_t i = 0; i < ndim; ++i)
      if (h.shape[i] <= 1) h.strides[i] = 0;  // as below: the span stays minimal
    py::array bytes = pack_int4(array);
    h.data = static_cast<char*>(bytes.mutable_data());
    h.keep = std::move(bytes);
    h.packed = true;
    if (for_output) h.writeback = array;
    return h;
  }

  bool needs_copy = py::str(dtype.attr("byteorder")).cast<std::string>() == ">";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    const auto stride = array.strides(i);
    if (array.shape(i) > 1 && (stride < 0 || stride % static_cast<py::ssize_t>(h.itemsize) != 0)) needs_copy = true;
  }
  if (needs_copy) {
    py::object native = dtype.attr("newbyteorder")("=");
    py::array copy = py::module_::import("numpy").attr("ascontiguousarray")(array, native);
    if (for_output) h.writeback = array;
    array = copy;
  }
  const auto ndim = static_cast<size_t>(array.ndim());
  h.shape.resize(ndim);
  h.strides.resize(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    h.shape[i] = array.shape(i);
    // A dimension of extent 1 may carry any stride; 0 keeps the span minimal.
    h.strides[i] = array.shape(i) > 1 ? array.strides(i) / static_cast<py::ssize_t>(h.itemsize) : 0;
  }
  h.data = static_cast<char*>(const_cast<void*>(array.data()));
  h.keep = std::move(array);
  return h;
}

int64_t DeviceTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

aclTensor* DeviceTensor::make_acl_tensor(const char* api) const {
  aclTensor* tensor = create_acl_tensor(api);
  counters().live_objects.fetch_add(1);
  return tensor;
}

bool DeviceTensor::same_layout(const DeviceTensor& other) const {
  return dtype == other.dtype && offset == other.offset && storage_elements == other.storage_elements &&
         shape == other.shape && strides == other.strides;
}

aclTensor* DeviceTensor::create_acl_tensor(const char* api) const {
  Runtime& rt = Runtime::get();
  static const int64_t kNoDims[1] = {0};  // a valid address for the dims of a 0-d tensor
  const int64_t* dims = shape.empty() ? kNoDims : shape.data();
  const int64_t* steps = strides.empty() ? kNoDims : strides.data();
  aclTensor* tensor = rt.abi().aclCreateTensor(dims, shape.size(), dtype, steps, offset, ACL_FORMAT_ND,
                                               &storage_elements, 1, storage->data());
  if (tensor == nullptr) throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, api, "aclCreateTensor", rt.recent_error()};
  counters().descriptors_made.fetch_add(1, std::memory_order_relaxed);
  return tensor;
}

Dims contiguous_strides(const Dims& shape) {
  Dims strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  return strides;
}

py::object to_device(py::handle obj) {
  if (is_device_tensor(obj)) return py::reinterpret_borrow<py::object>(obj);  // already there: the same object
  HostArray h = host_array(obj, FixedName("to_device(array)"), false);
  if (h.itemsize == 0) throw py::type_error("to_device(array): " + dtype_name(h.dtype) + " has no host layout");
  Runtime& rt = Runtime::get();
  Stream& stream = rt.stream();
  DeviceTensor t;
  t.dtype = h.dtype;
  t.shape = h.shape;
  t.strides = h.strides;
  t.storage_elements = h.span_elements();
  const size_t nbytes = h.bytes(t.storage_elements);
  t.storage = DeviceBuffer::allocate(nbytes, stream, "");
  // Queued on the current stream (the block may have been another call's a moment ago), and
  // waited for: the host array may go as soon as this returns (PyTorch's non_blocking=False).
  copy_async(t.storage->data(), h.data, nbytes, ACL_MEMCPY_HOST_TO_DEVICE, stream, "");
  try {
    stream.synchronize("aclnn.to_device()");
  } catch (py::error_already_set&) {  // Ctrl-C: the queued copy still reads the array
    stream.hold_until_done(h.keep);
    throw;
  }
  return wrap_tensor(std::move(t));
}

void wait_for_writer(const DeviceTensor& tensor, Stream& reader) {
  std::shared_ptr<Stream> writer = tensor.storage->last_writer();
  if (!writer || writer.get() == &reader) return;
  // The event may go at once: a queued wait holds what it waits for (CANN's aclrtDestroyEvent
  // contract; the simulator's too).
  Event written;
  written.record(writer);
  Runtime& rt = Runtime::get();
  rt.check(rt.abi().aclrtStreamWaitEvent(reader.handle(), written.handle()), "", "aclrtStreamWaitEvent");
}

namespace {

// to_host of an INT4 view: the bytes its elements lie in, then each element's nibble by its index.
py::array to_host_int4(const DeviceTensor& t) {
  int64_t low = 0, high = 0, numel = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    numel *= t.shape[i];
    const int64_t reach = (t.shape[i] - 1) * t.strides[i];
    (reach < 0 ? low : high) += reach;
  }
  if (numel == 0) return unpack_int4(nullptr, t.shape);
  const int64_t first_byte = (t.offset + low) / 2, last_byte = (t.offset + high) / 2;
  py::array_t<uint8_t> raw(static_cast<py::ssize_t>(last_byte - first_byte + 1));
  Stream& stream = Runtime::get().stream();
  wait_for_writer(t, stream);
  copy_async(raw.mutable_data(), static_cast<char*>(t.storage->data()) + first_byte, static_cast<size_t>(raw.size()),
             ACL_MEMCPY_DEVICE_TO_HOST, stream, "");
  try {
    stream.synchronize("aclnn.Tensor.numpy()");
  } catch (py::error_already_set&) {  // Ctrl-C: the queued copy still writes the buffer
    stream.hold_until_done(raw);
    throw;
  }
  // The elements row-major, each read from its own nibble (element e: byte e / 2, high half when odd).
  std::vector<uint8_t> packed(static_cast<size_t>((numel + 1) / 2), 0);
  Dims index(t.shape.size(), 0);
  const uint8_t* bytes = raw.data();
  for (int64_t e = 0; e < numel; ++e) {
    int64_t at = t.offset;
    for (size_t d = 0; d < index.size(); ++d) at += index[d] * t.strides[d];
    const uint8_t nibble = (bytes[at / 2 - first_byte] >> (4 * (at % 2))) & 0x0f;
    packed[static_cast<size_t>(e / 2)] |= static_cast<uint8_t>(nibble << (4 * (e % 2)));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t.shape[d]) break;
      index[d] = 0;
    }
  }
  return unpack_int4(packed.data(), t.shape);
}

}  // namespace

py::array to_host(const DeviceTensor& t) {
  if (t.dtype == ACL_INT4) return to_host_int4(t);
  py::dtype dtype = to_numpy(t.dtype);
  const auto itemsize = static_cast<int64_t>(dtype.itemsize());
  // Copy the span the view addresses, then let NumPy gather it into a contiguous array.
  int64_t low = 0, high = 0;
  bool empty = false;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] == 0) empty = true;
    const int64_t reach = (t.shape[i] - 1) * t.strides[i];
    (reach < 0 ? low : high) += reach;
  }
  const int64_t span = empty ? 0 : high - low + 1;
  py::array raw(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(std::max<int64_t>(span, 1))});
  Stream& stream = Runtime::get().stream();
  wait_for_writer(t, stream);
  if (span > 0) {
    copy_async(raw.mutable_data(), static_cast<char*>(t.storage->data()) + (t.offset + low) * itemsize,
               static_cast<size_t>(span * itemsize), ACL_MEMCPY_DEVICE_TO_HOST, stream, "");
  }
  // The values are those of the work queued so far on the current stream and on the stream that
  // last wrote the tensor (wait_for_writer): both are waited for.
  try {
    stream.synchronize("aclnn.Tensor.numpy()");
  } catch (py::error_already_set&) {  // Ctrl-C: the queued copy still writes the buffer
    stream.hold_until_done(raw);
    throw;
  }
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end()), strides;
  for (int64_t s : t.strides) strides.push_back(static_cast<py::ssize_t>(s * itemsize));
  py::array view(dtype, shape, strides, static_cast<const char*>(raw.data()) - low * itemsize, raw);
  // np.ascontiguousarray keeps the view of the fresh download when it is already C-ordered: a
  // copy of it (ndarray.copy) would release the GIL for a large array, and a daemon thread doing
  // so at interpreter exit is ended inside NumPy's frames (tests/runtime/test_reliability.py). A 0-d
  // tensor is copied (ascontiguousarray would make it 1-d; too small for NumPy to release the GIL).
  if (t.shape.empty()) return view.attr("copy")();
  return py::module_::import("numpy").attr("ascontiguousarray")(view);
}

bool int64_of(py::handle obj, int64_t* value) {
  // Not PyIndex_Check alone: ndarray has __index__ whatever its size (then PyNumber_Index fails).
  if (PyBool_Check(obj.ptr()) || PyFloat_Check(obj.ptr()) || !PyIndex_Check(obj.ptr())) return false;
  PyObject* index = PyNumber_Index(obj.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    return false;
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *value = v;
  return true;
}

namespace {

// A dtype given as NumPy takes it (np.float32, "float32", ml_dtypes.bfloat16), as the pages write
// it ("FLOAT", "BFLOAT16"), or as torch's (torch.float32, read by its name: no torch import).
aclDataType dtype_argument(py::handle dtype, const char* what) {
  if (py::isinstance<py::str>(dtype)) {
    const std::string name = dtype.cast<std::string>();
    if (const DTypeInfo* info = dtype_by_name(name)) return info->dtype;
  }
  std::string text = py::str(dtype);
  if (text.rfind("torch.", 0) == 0) {
    text = text.substr(6);
    if (text == "bfloat16") return ACL_BF16;  // NumPy has none; ml_dtypes' has the same layout
    if (text == "bool") text = "bool_";
    try {
      return from_numpy(py::dtype::from_args(py::module_::import("numpy").attr(text.c_str())));
    } catch (py::error_already_set&) {
      throw py::type_error(std::string(what) + ": " + std::string(py::str(dtype)) + " has no aclDataType");
    }
  }
  try {
    aclDataType acl = from_numpy(py::reinterpret_borrow<py::dtype>(py::module_::import("numpy").attr("dtype")(dtype)));
    if (acl != ACL_DT_UNDEFINED) return acl;
  } catch (py::error_already_set&) {
  }
  throw py::type_error(std::string(what) + ": " + std::string(py::repr(dtype)) + " is not a dtype with an aclDataType");
}

Dims int_sequence(py::handle values, const char* what) {
  Dims out;
  for (py::handle v : values) {
    int64_t value = 0;
    if (!int64_of(v, &value))
      throw py::type_error(std::string(what) + ": expected integers (int64), got " + std::string(py::repr(values)));
    out.push_back(value);
  }
  return out;
}

// A view of [begin, begin + nbytes) must lie within the allocation it points into. For memory of
// this package's caching allocator (an aclnn.Tensor's data_ptr()) that is the bytes the tensor
// asked for, not the cached block around them: the simulator checks a kernel's view against the
// aclrtMalloc allocation, which is the whole block, and a view a few elements too long (a stride
// in bytes taken for elements) read and wrote past the tensor unnoticed (issue 25). Memory of
// someone else is checked by the backend, against its own allocation, when a call uses it.
void check_within_allocation(uintptr_t begin, size_t nbytes, int32_t device, uintptr_t ptr) {
  uintptr_t allocation = 0;
  size_t allocated = 0;
  // The allocation of element [0, ..., 0] (`ptr`): a negative stride reaches below it.
  if (!Runtime::get().allocator(device).allocation_containing(ptr, &allocation, &allocated)) return;
  auto hex = [](uintptr_t address) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%zx", static_cast<size_t>(address));
    return std::string(text);
  };
  if (allocated == 0)
    throw py::value_error("Tensor.from_pointer: ptr " + hex(ptr) + " points into device memory no tensor holds "
                          "(its tensor was freed; the block is cached for reuse)");
  if (begin < allocation || begin - allocation + nbytes > allocated)
    throw py::value_error("Tensor.from_pointer: the view spans " + std::to_string(nbytes) + " bytes from " + hex(begin) +
                          ", past the end of the allocation it points into (" + std::to_string(allocated) +
                          " bytes from " + hex(allocation) + "); strides and offset are in elements "
                          "(Tensor.stride(), not the byte strides of Tensor.strides)");
}

// aclnn.Tensor.from_pointer: device memory someone else allocated, viewed without a copy.
py::object from_pointer(uintptr_t ptr, py::handle shape_arg, py::handle dtype_arg,
                                           py::handle strides_arg, int64_t offset, py::object device_arg,
                                           py::object owner) {
  DeviceTensor t;
  t.dtype = dtype_argument(dtype_arg, "Tensor.from_pointer(dtype)");
  const DTypeInfo* info = dtype_info(t.dtype);
  if (info == nullptr || info->size == 0)
    throw py::type_error("Tensor.from_pointer: " + dtype_name(t.dtype) + " has no byte layout");
  t.shape = int_sequence(shape_arg, "Tensor.from_pointer(shape)");
  for (int64_t d : t.shape) {
    if (d < 0) throw py::value_error("Tensor.from_pointer: shape " + std::string(py::repr(shape_arg)) + " has a negative dimension");
  }
  if (strides_arg.is_none()) {
    t.strides = contiguous_strides(t.shape);
  } else {
    t.strides = int_sequence(strides_arg, "Tensor.from_pointer(strides)");
    if (t.strides.size() != t.shape.size())
      throw py::value_error("Tensor.from_pointer: " + std::to_string(t.strides.size()) + " strides for " +
                            std::to_string(t.shape.size()) + " dimensions");
  }
  // The lowest and highest elements the view reaches, from `ptr` (negative strides reach below).
  __int128 low = offset, high = offset;
  bool empty = false;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] == 0) empty = true;
    const __int128 reach = static_cast<__int128>(t.shape[i] - 1) * t.strides[i];
    (reach < 0 ? low : high) += reach;
  }
  if (empty) low = high = offset;
  const __int128 span = high - low + 1;
  if (span > (static_cast<__int128>(1) << 56) / static_cast<__int128>(info->size))
    throw py::value_error("Tensor.from_pointer: the view spans more memory than a device has");
  if (ptr == 0 && !empty) throw py::value_error("Tensor.from_pointer: ptr is 0 (a null pointer)");
  // The storage starts at the lowest element: aclCreateTensor's offset counts from there.
  const uintptr_t base = ptr + static_cast<intptr_t>(low * static_cast<__int128>(info->size));
  t.offset = static_cast<int64_t>(offset - low);
  t.storage_elements = static_cast<int64_t>(span);
  const int32_t device = device_arg.is_none() ? Runtime::get().device() : device_arg.cast<int32_t>();
  Runtime::get().require_device(device);  // a device the backend lacks: its invalid-device error
  if (!empty) check_within_allocation(base, static_cast<size_t>(span) * info->size, device, ptr);
  t.storage = DeviceBuffer::foreign(reinterpret_cast<void*>(base), static_cast<size_t>(span) * info->size, device,
                                     std::move(owner));
  return wrap_tensor(std::move(t));
}

}  // namespace

py::object empty(py::handle shape_arg, py::handle dtype_arg) {
  DeviceTensor t;
  t.dtype = dtype_argument(dtype_arg, "empty(dtype)");
  const DTypeInfo* info = dtype_info(t.dtype);
  if (info == nullptr || (info->size == 0 && t.dtype != ACL_INT4))
    throw py::type_error("empty: " + dtype_name(t.dtype) + " has no byte layout");
  t.shape = int_sequence(shape_arg, "empty(shape)");
  size_t nbytes = info->size == 0 ? 1 : info->size;  // INT4: counted in elements, then halved
  for (int64_t d : t.shape) {
    if (d < 0) throw py::value_error("empty: shape " + std::string(py::repr(shape_arg)) + " has a negative dimension");
    if (__builtin_mul_overflow(nbytes, static_cast<size_t>(d), &nbytes))
      throw py::value_error("empty: shape " + std::string(py::repr(shape_arg)) + " is too large to allocate");
  }
  t.strides = contiguous_strides(t.shape);
  t.storage_elements = t.numel();
  if (info->size == 0) nbytes = storage_bytes(t.dtype, t.storage_elements);
  // From the caching allocator, on the current stream: no copy, no synchronisation.
  t.storage = DeviceBuffer::allocate(nbytes, Runtime::get().stream(), "");
  return wrap_tensor(std::move(t));
}

namespace {

// A method of aclnn.Tensor (pybind11 converts its other arguments and its result).
template <class Fn, class... Extra>
void tensor_method(py::handle type, const char* name, Fn&& fn, const Extra&... extra) {
  py::cpp_function method(std::forward<Fn>(fn), py::name(name), py::is_method(type),
                          py::sibling(py::getattr(type, name, py::none())), extra...);
  py::setattr(type, name, method);
}

template <class Fn>
void tensor_property(py::handle type, const char* name, Fn&& fn, const char* doc = nullptr) {
  py::cpp_function getter(std::forward<Fn>(fn), py::is_method(type));
  py::object property = py::module_::import("builtins").attr("property")(getter, py::none(), py::none(),
                                                                         doc ? py::str(doc) : py::str(""));
  py::setattr(type, name, property);
}

PyObject* tensor_repr(PyObject* self) {
  const DeviceTensor& t = reinterpret_cast<TensorObject*>(self)->tensor;
  std::string shape;
  for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  if (t.shape.size() == 1) shape += ",";
  const DTypeInfo* info = dtype_info(t.dtype);
  const std::string dtype = info && info->numpy ? info->numpy : dtype_name(t.dtype);
  return PyUnicode_FromString(("aclnn.Tensor(shape=(" + shape + "), dtype=" + dtype + ")").c_str());
}

Py_ssize_t tensor_length(PyObject* self) {
  const DeviceTensor& t = reinterpret_cast<TensorObject*>(self)->tensor;
  if (t.shape.empty()) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d aclnn.Tensor");
    return -1;
  }
  return static_cast<Py_ssize_t>(t.shape[0]);
}

PyObject* tensor_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "aclnn.Tensor cannot be made directly: use aclnn.to_device, aclnn.empty or Tensor.from_pointer");
  return nullptr;
}

}  // namespace

void bind_tensor(py::module_& m) {
  static PyMemberDef members[] = {
      {"__weaklistoffset__", T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(TensorObject, weakrefs)), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr},
  };
  static const char doc[] = R"doc(An array in device memory (an aclTensor's storage, shape, strides and dtype).

Create one with aclnn.to_device(array), aclnn.empty(shape, dtype) or Tensor.from_pointer (memory of
another library); ops called with Tensors return Tensors, so chained calls stay on the device.
.numpy() copies the values to a new host array.)doc";
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(&tensor_dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(&tensor_repr)},
      {Py_tp_new, reinterpret_cast<void*>(&tensor_new)},
      {Py_sq_length, reinterpret_cast<void*>(&tensor_length)},
      {Py_tp_members, members},
      {Py_tp_doc, const_cast<char*>(doc)},
      {0, nullptr},
  };
  static PyType_Spec spec = {"aclnn._C.Tensor", sizeof(TensorObject), 0, Py_TPFLAGS_DEFAULT, slots};
  py::object type = py::reinterpret_steal<py::object>(PyType_FromSpec(&spec));
  if (!type) throw py::error_already_set();
  g_tensor_type = reinterpret_cast<PyTypeObject*>(type.ptr());
  m.add_object("Tensor", type);
  // What __module__ says: the package users import (aclnn.Tensor), as for the op functions.
  py::setattr(type, "__module__", py::str("aclnn"));

  py::setattr(type, "from_pointer", py::staticmethod(py::cpp_function(
      &from_pointer, py::name("from_pointer"), py::arg("ptr"), py::arg("shape"), py::arg("dtype"),
      py::arg("strides") = py::none(), py::kw_only(), py::arg("offset") = 0, py::arg("device") = py::none(),
      py::arg("owner") = py::none(), R"doc(
A Tensor viewing device memory that someone else allocated (torch_npu's tensor.data_ptr(), a
framework's allocator), without a copy. `strides` and `offset` are in elements, as
torch.Tensor.stride() and aclCreateTensor take them (default: C-contiguous, 0); `dtype` is a NumPy
dtype, a page name ("FLOAT16") or a torch dtype; `owner` is kept alive as long as the Tensor (and
every result that views it), so that the memory is not freed under it.)doc")));
  tensor_method(type, "data_ptr", [](py::handle self) {
    const DeviceTensor& t = tensor_self(self);
    const DTypeInfo* info = dtype_info(t.dtype);
    // INT4: the byte element [0, ..., 0] lies in (an odd offset: its high half).
    const int64_t bytes = t.dtype == ACL_INT4 ? t.offset / 2 : t.offset * (info ? info->size : 0);
    return reinterpret_cast<uintptr_t>(t.storage->data()) + static_cast<uintptr_t>(bytes);
  }, "The device address of element [0, ..., 0] (for other libraries; torch's data_ptr()).");
  tensor_property(type, "device", [](py::handle self) { return tensor_self(self).storage->device(); });
  tensor_property(type, "shape", [](py::handle self) {
    const DeviceTensor& t = tensor_self(self);
    py::tuple out(t.shape.size());
    for (size_t i = 0; i < t.shape.size(); ++i) out[i] = t.shape[i];
    return out;
  });
  tensor_property(type, "dtype", [](py::handle self) -> py::object {
    const DeviceTensor& t = tensor_self(self);
    const DTypeInfo* info = dtype_info(t.dtype);
    if (info && info->numpy) return to_numpy(t.dtype);
    return py::str(dtype_name(t.dtype));
  });
  tensor_method(type, "stride", [](py::handle self, py::object dim) -> py::object {
    const DeviceTensor& t = tensor_self(self);
    py::tuple all(t.strides.size());
    for (size_t i = 0; i < t.strides.size(); ++i) all[i] = t.strides[i];
    if (dim.is_none()) return all;
    int64_t d = 0;
    const auto rank = static_cast<int64_t>(t.strides.size());
    if (!int64_of(dim, &d)) throw py::type_error("Tensor.stride(dim): dim must be an int");
    if (d < -rank || d >= rank)
      throw py::index_error("Tensor.stride(dim): dimension " + std::to_string(d) + " out of range for a " +
                            std::to_string(rank) + "-d tensor");
    return all[static_cast<size_t>(d < 0 ? d + rank : d)];
  }, py::arg("dim") = py::none(),
     "The strides in elements (torch.Tensor.stride(); what Tensor.from_pointer takes), or one dimension's. "
     "Tensor.strides is in bytes, as NumPy's.");
  tensor_method(type, "storage_offset", [](py::handle self) { return tensor_self(self).offset; },
                "The offset of element [0, ..., 0] from the start of the tensor's storage, in elements "
                "(torch.Tensor.storage_offset()).");
  tensor_property(type, "strides", [](py::handle self) {
    // In bytes, as NumPy's.
    const DeviceTensor& t = tensor_self(self);
    const DTypeInfo* info = dtype_info(t.dtype);
    // Elements packed below a byte (INT4: two a byte) have no stride in whole bytes.
    if (info == nullptr || info->size == 0)
      throw py::type_error("Tensor.strides: " + dtype_name(t.dtype) + " elements are not whole bytes; use Tensor.stride()");
    py::tuple out(t.strides.size());
    for (size_t i = 0; i < t.strides.size(); ++i) out[i] = t.strides[i] * static_cast<int64_t>(info->size);
    return out;
  }, "In bytes, as NumPy's ndarray.strides (Tensor.stride() gives them in elements, as torch and "
     "Tensor.from_pointer do).");
  tensor_property(type, "ndim", [](py::handle self) { return tensor_self(self).shape.size(); });
  tensor_property(type, "size", [](py::handle self) { return tensor_self(self).numel(); });
  tensor_property(type, "acl_dtype", [](py::handle self) { return dtype_name(tensor_self(self).dtype); },
                  "The aclDataType, as the pages name it (FLOAT, BFLOAT16, ...).");
  tensor_method(type, "numpy", [](py::handle self) { return to_host(tensor_self(self)); },
                "A new host array (C-contiguous) with the tensor's values: waits for the work queued so far on the "
                "stream that last wrote the tensor and on the current stream (raising the fault of either).");
  tensor_method(type, "__array__", [](py::handle self, py::object dtype, py::object copy) -> py::object {
    const DeviceTensor& t = tensor_self(self);
    // NumPy 2's protocol: copy=False asks for a view, which device memory cannot give.
    if (!copy.is_none() && !PyObject_IsTrue(copy.ptr()))
      throw py::value_error("an aclnn.Tensor is in device memory: a host array of it is always a copy "
                            "(copy=False cannot be honoured; use numpy() or np.asarray)");
    py::array host = to_host(t);
    if (dtype.is_none()) return host;
    return host.attr("astype")(dtype);
  }, py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  tensor_method(type, "__copy__", [](py::handle self) { return wrap_tensor(DeviceTensor(tensor_self(self))); },
                "A new Tensor viewing the same device memory.");
  tensor_method(type, "__deepcopy__", [](py::handle self, py::handle /*memo*/) {
    // The same view over a copy of the memory it spans, queued on the current stream.
    const DeviceTensor& t = tensor_self(self);
    Stream& stream = Runtime::get().stream();
    const size_t nbytes = storage_bytes(t.dtype, t.storage_elements);
    DeviceTensor copy(t);
    wait_for_writer(t, stream);
    copy.storage = DeviceBuffer::allocate(nbytes, stream, "");
    copy_async(copy.storage->data(), t.storage->data(), nbytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream, "");
    copy.storage->written_on(stream);
    return wrap_tensor(std::move(copy));
  }, py::arg("memo"), "A new Tensor over a copy of the device memory (queued on the current stream).");
  tensor_method(type, "__reduce__", [](py::handle self) {
    // Pickled through the host: unpickling puts the values on the device again.
    return py::make_tuple(py::module_::import("aclnn._C").attr("to_device"), py::make_tuple(to_host(tensor_self(self))));
  });
}

}  // namespace aclnn_binding
