// aclnn-bindgen: host arrays (NumPy, DLPack) and device tensors (aclnn.Tensor).
//
// A host array reaches the device as a copy of its memory span, from its first to its last
// addressed element, and the aclTensor gets the array's own strides over that copy: a transposed
// or sliced array is not made contiguous. The exceptions, which do copy to a contiguous array
// first (NumPy's ascontiguousarray), are negative strides and strides that are not a multiple of
// the itemsize (neither can be expressed as aclTensor strides over a span starting at element 0),
// and non-native byte order (the device computes in native order).
#include <pybind11/stl.h>

#include <cstring>

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

std::string type_name(py::handle obj) { return py::str(py::type::handle_of(obj).attr("__qualname__")); }

HostArray from_dlpack_object(py::handle obj, const std::string& what) {
  py::object capsule;
  try {
    capsule = obj.attr("__dlpack__")();
  } catch (py::error_already_set& e) {
    throw py::type_error(what + ": " + type_name(obj) + ".__dlpack__() failed: " + e.what());
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) {
    PyErr_Clear();
    throw py::type_error(what + ": " + type_name(obj) + ".__dlpack__() did not return a 'dltensor' capsule");
  }
  // The capsule is consumed: from here on the managed tensor is ours, released by `keep`.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  py::capsule keep(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost)
    throw py::type_error(what + ": DLPack tensors must be in host memory (device type " +
                         std::to_string(t.device.device_type) + ")");
  HostArray h;
  h.dtype = from_dlpack(t.dtype);
  if (h.dtype == ACL_DT_UNDEFINED)
    throw py::type_error(what + ": DLPack dtype (code " + std::to_string(t.dtype.code) + ", " +
                         std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                         " lanes) has no aclDataType");
  h.itemsize = t.dtype.bits / 8;
  h.shape.assign(t.shape, t.shape + t.ndim);
  h.strides.resize(t.ndim);
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
      throw py::type_error(what + ": DLPack tensors with negative strides are not supported; pass a copy");
    }
  }
  return h;
}

}  // namespace

int64_t HostArray::span_elements() const {
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    span += (shape[i] - 1) * strides[i];
  }
  return span;
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

bool is_device_tensor(py::handle obj) { return py::isinstance<DeviceTensor>(obj); }

HostArray host_array(py::handle obj, const std::string& what, bool for_output) {
  if (!py::isinstance<py::array>(obj) && py::hasattr(obj, "__dlpack__")) return from_dlpack_object(obj, what);
  py::array array;
  if (py::isinstance<py::array>(obj)) {
    array = py::reinterpret_borrow<py::array>(obj);
  } else if (for_output) {
    throw py::type_error(what + ": expected a writeable NumPy array, an aclnn.Tensor or a __dlpack__ object, got " +
                         type_name(obj));
  } else if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) || py::isinstance<py::dict>(obj)) {
    throw py::type_error(what + ": expected an array, got " + type_name(obj));
  } else {
    try {
      array = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
      throw py::type_error(what + ": cannot make an array of " + type_name(obj) + ": " + e.what());
    }
  }
  HostArray h;
  h.writeable = array.writeable();
  if (for_output && !h.writeable) throw py::value_error(what + ": the array is read-only; pass a writeable array");
  py::dtype dtype = array.dtype();
  h.dtype = from_numpy(dtype);
  if (h.dtype == ACL_DT_UNDEFINED)
    throw py::type_error(what + ": dtype " + std::string(py::str(dtype)) + " has no aclDataType");
  h.itemsize = static_cast<size_t>(dtype.itemsize());

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

Owner<aclTensor> DeviceTensor::make_acl_tensor(const std::string& api) const {
  Runtime& rt = Runtime::get();
  static const int64_t kNoDims[1] = {0};  // a valid address for the dims of a 0-d tensor
  const int64_t* dims = shape.empty() ? kNoDims : shape.data();
  const int64_t* steps = strides.empty() ? kNoDims : strides.data();
  aclTensor* tensor = rt.abi().aclCreateTensor(dims, shape.size(), dtype, steps, offset, ACL_FORMAT_ND,
                                               &storage_elements, 1, storage->data());
  if (tensor == nullptr)
    throw AclnnFailure{ACLNN_ERR_INNER_NULLPTR, api, "aclCreateTensor", rt.recent_error()};
  counters().live_objects.fetch_add(1);
  return Owner<aclTensor>(tensor);
}

std::shared_ptr<DeviceTensor> to_device(py::handle obj) {
  if (is_device_tensor(obj)) return obj.cast<std::shared_ptr<DeviceTensor>>();
  HostArray h = host_array(obj, "to_device(array)", false);
  if (h.itemsize == 0) throw py::type_error("to_device(array): " + dtype_name(h.dtype) + " has no host layout");
  auto t = std::make_shared<DeviceTensor>();
  t->dtype = h.dtype;
  t->shape = h.shape;
  t->strides = h.strides;
  t->storage_elements = h.span_elements();
  const size_t nbytes = static_cast<size_t>(t->storage_elements) * h.itemsize;
  t->storage = DeviceBuffer::allocate(nbytes, "");
  {
    py::gil_scoped_release nogil;
    copy_memory(t->storage->data(), h.data, nbytes, ACL_MEMCPY_HOST_TO_DEVICE, "");
  }
  return t;
}

py::array to_host(const DeviceTensor& t) {
  py::dtype dtype = to_numpy(t.dtype);
  const auto itemsize = static_cast<int64_t>(dtype.itemsize());
  // Copy the span the view addresses, then let NumPy gather it into a contiguous array.
  int64_t span = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] == 0) span = 0;
    if (span) span += (t.shape[i] - 1) * t.strides[i];
  }
  py::array raw(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(std::max<int64_t>(span, 1))});
  if (span > 0) {
    py::gil_scoped_release nogil;
    copy_memory(raw.mutable_data(), static_cast<char*>(t.storage->data()) + t.offset * itemsize,
                static_cast<size_t>(span * itemsize), ACL_MEMCPY_DEVICE_TO_HOST, "");
  }
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end()), strides;
  for (int64_t s : t.strides) strides.push_back(static_cast<py::ssize_t>(s * itemsize));
  py::array view(dtype, shape, strides, raw.data(), raw);
  return py::module_::import("numpy").attr("ascontiguousarray")(view);
}

void bind_tensor(py::module_& m) {
  py::class_<DeviceTensor, std::shared_ptr<DeviceTensor>>(m, "Tensor", R"doc(
An array in device memory (an aclTensor's storage, shape, strides and dtype).

Create one with aclnn.to_device(array); ops called with Tensors return Tensors, so chained calls
stay on the device. .numpy() copies the values to a new host array.)doc")
      .def_property_readonly("shape", [](const DeviceTensor& t) { return py::tuple(py::cast(t.shape)); })
      .def_property_readonly("dtype", [](const DeviceTensor& t) -> py::object {
        const DTypeInfo* info = dtype_info(t.dtype);
        if (info && info->numpy) return to_numpy(t.dtype);
        return py::str(dtype_name(t.dtype));
      })
      .def_property_readonly("strides", [](const DeviceTensor& t) {
        // In bytes, as NumPy's.
        const DTypeInfo* info = dtype_info(t.dtype);
        py::tuple out(t.strides.size());
        for (size_t i = 0; i < t.strides.size(); ++i) out[i] = t.strides[i] * static_cast<int64_t>(info ? info->size : 0);
        return out;
      })
      .def_property_readonly("ndim", [](const DeviceTensor& t) { return t.shape.size(); })
      .def_property_readonly("size", [](const DeviceTensor& t) { return t.numel(); })
      .def_property_readonly("acl_dtype", [](const DeviceTensor& t) { return dtype_name(t.dtype); },
                             "The aclDataType, as the pages name it (FLOAT, BFLOAT16, ...).")
      .def("numpy", &to_host, "A new host array (C-contiguous) with the tensor's values.")
      .def("__array__", [](const DeviceTensor& t, py::object dtype, py::object /*copy*/) -> py::object {
            py::array host = to_host(t);
            if (dtype.is_none()) return host;
            return host.attr("astype")(dtype);
          }, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__len__", [](const DeviceTensor& t) {
        if (t.shape.empty()) throw py::type_error("len() of a 0-d aclnn.Tensor");
        return t.shape[0];
      })
      .def("__repr__", [](const DeviceTensor& t) {
        std::string shape;
        for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
        if (t.shape.size() == 1) shape += ",";
        const DTypeInfo* info = dtype_info(t.dtype);
        const std::string dtype = info && info->numpy ? info->numpy : dtype_name(t.dtype);
        return "aclnn.Tensor(shape=(" + shape + "), dtype=" + dtype + ")";
      });
}

}  // namespace aclnn_binding
