// aclnn-bindgen bindings: tensors: host arrays and device tensors (arrays.cpp).
#ifndef ACLNN_BINDING_ARRAYS_H_
#define ACLNN_BINDING_ARRAYS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/dtypes.h"

#include "device_buffer.h"

namespace aclnn_binding {
namespace py = pybind11;
using aclnn_bindgen::Dims;

// A strided view over device memory: what aclnn.Tensor holds, and what every aclTensor a call
// creates describes. Strides and offset are in elements, as aclCreateTensor takes them; the
// storage is one-dimensional, `storage_elements` long.
struct DeviceTensor {
  std::shared_ptr<DeviceBuffer> storage;
  Dims shape;
  Dims strides;
  int64_t offset = 0;
  int64_t storage_elements = 0;
  aclDataType dtype = ACL_DT_UNDEFINED;

  int64_t numel() const;
  // Creates the aclTensor (ND format), counted in live_objects. Throws AclnnFailure when the
  // library returns null.
  aclTensor* make_acl_tensor(const char* api) const;
  // The same, not counted: for an owner other than a call or a Tensor (the allocator's blocks).
  aclTensor* create_acl_tensor(const char* api) const;
  // Whether `other` is the same view (dtype, shape, strides, offset, storage length).
  bool same_layout(const DeviceTensor& other) const;
};

// A host array (NumPy, or anything with __dlpack__ on the CPU), as a strided view over its
// memory span: element [0,...,0] at `data`, non-negative element strides.
struct HostArray {
  py::object keep;       // keeps the memory alive (the array, or the DLPack owner)
  py::object writeback;  // set when `keep` is a private copy of an array the op must write into
  char* data = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
  size_t itemsize = 0;
  Dims shape;
  Dims strides;  // elements
  bool writeable = false;
  // INT4: `keep` holds the values packed (pack_int4), row-major; a `writeback` gets them unpacked.
  bool packed = false;

  int64_t span_elements() const;
  size_t bytes(int64_t elements) const;  // the device bytes of `elements` of this array's dtype  // elements from the first to the last one addressed, inclusive
  bool dense() const;             // the view covers its span exactly once (no gaps, no overlap)
};

// Names an argument in messages. The text is built only when a message is: a call converts
// several arguments, and building their labels on every call showed in its profile.
class ArgumentName {
 public:
  virtual std::string str() const = 0;

 protected:
  ~ArgumentName() = default;
};

// A name known as text ("to_device(array)").
class FixedName final : public ArgumentName {
 public:
  explicit FixedName(const char* text) : text_(text) {}
  std::string str() const override { return text_; }

 private:
  const char* text_;
};

// The name of `obj`'s type ("ndarray", "Tensor"), for messages.
std::string type_name(py::handle obj);
// Converts `obj` (a NumPy array, a __dlpack__ object, or — for inputs — anything np.asarray
// takes) into a HostArray. Raises TypeError/ValueError naming `what` (a parameter).
HostArray host_array(py::handle obj, const ArgumentName& what, bool for_output);
// Whether `obj` is an aclnn.Tensor, and the tensor it holds (only for one that is).
bool is_device_tensor(py::handle obj);
DeviceTensor& device_tensor_of(py::handle obj);
// The aclTensor describing an aclnn.Tensor, made on first use and owned by the Tensor (destroyed
// with it): not for a list, which owns what it holds. Throws AclnnFailure as make_acl_tensor.
aclTensor* descriptor_of(py::handle obj, const char* api);
// Gives a new Tensor (an op's result) the descriptor its block keeps (DeviceBuffer::describe_fresh),
// or one of its own for foreign memory; returns it.
aclTensor* describe_result(py::handle obj, const char* api);
// aclnn.to_device: a device copy of a host array's span, with the array's strides (a Tensor: itself).
py::object to_device(py::handle obj);
// INT4 on the device is two elements a byte, element 2i in the low four bits of byte i: the order
// op-plugin's convert_to_int4_pack gives the INT32 words torch_npu passes (element 8i in bits 0-3 of a
// little-endian word), and the one CANN's pages state for the packed FLOAT4 ("低位nibble对应偶数维",
// ops-nn's turbo_quant_compress_latent). On the host, ml_dtypes.int4 holds one a byte.
// `values` (ml_dtypes.int4, any strides) as the bytes that hold it row-major (at least one byte).
py::array pack_int4(py::array values);
// The elements of a C-contiguous `shape` packed in `packed`, as an ml_dtypes.int4 array.
py::array unpack_int4(const uint8_t* packed, const Dims& shape);
// Row-major strides in elements (an extent of 0 or 1 counts as 1).
Dims contiguous_strides(const Dims& shape);
// An integer argument (Python's, NumPy's, a 0-d integer array) as int64; false (no Python error
// set) for anything else, a bool, a float, a larger array, or a value beyond int64.
bool int64_of(py::handle obj, int64_t* value);
// aclnn.empty: an uninitialised contiguous device tensor (torch.empty(..., device="npu")).
py::object empty(py::handle shape, py::handle dtype);
// A new aclnn.Tensor object holding `tensor`.
py::object wrap_tensor(DeviceTensor&& tensor);
// A new aclnn.Tensor holding an empty DeviceTensor, to be filled in place (device_tensor_of) before
// anything else sees it: a call's result, built where it will live.
py::object new_tensor();
// aclnn.Tensor.numpy(): a fresh C-contiguous host array with the tensor's values.
py::array to_host(const DeviceTensor& tensor);
void bind_tensor(py::module_& m);
void bind_streams(py::module_& m);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_ARRAYS_H_
