// aclnn-bindgen: the hand-written C++ every generated wrapper (generated/bindings/ops_*.cpp) leans
// on. A wrapper is a thin, typed sequence: convert each argument with a `Call` method, call the
// op's first phase through its typed pointer, and `Call::run` does the rest (upload, workspace,
// second phase, synchronisation, copy-back, errors, results).
//
// Ownership: one RAII owner per CANN object (`Owner<aclTensor>`, ...), and device memory in
// `DeviceBuffer`s shared by the tensors that view it, so that every path, including every error
// path, releases what it created. Conversions of Python objects run under the GIL; everything
// that touches the device runs without it.
#ifndef ACLNN_BINDGEN_BINDING_H_
#define ACLNN_BINDGEN_BINDING_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/dtypes.h"
#include "loader.h"

namespace aclnn_binding {
namespace py = pybind11;

// ---- dtypes (dtypes.cpp) -----------------------------------------------------------------------
// The facts are the generated table's (aclnn_bindgen/dtypes.h, rendered from gen.ir.DType), which
// the simulator reads too: the same names, sizes, NumPy dtypes and promotion rule on both sides.

using aclnn_bindgen::DTypeInfo;

const DTypeInfo* dtype_info(aclDataType dtype);             // nullptr for unknown values
const DTypeInfo* dtype_by_name(const std::string& name);    // page name, with or without ACL_
std::string dtype_name(aclDataType dtype);                   // page name, or the number
// The result type of combining two dtypes (CANN's 互推导关系, which follows PyTorch's
// promote_types); ACL_DT_UNDEFINED when there is none.
aclDataType promote(aclDataType a, aclDataType b);
// NumPy dtype <-> aclDataType. `from_numpy` returns ACL_DT_UNDEFINED for dtypes with no
// aclDataType (object, str, ...); `to_numpy` raises TypeError for aclDataTypes NumPy cannot hold.
aclDataType from_numpy(const py::dtype& dtype);
py::dtype to_numpy(aclDataType dtype);
// aclnn._C._promote_types, for tests/test_dtype_agreement.py.
void bind_dtypes(py::module_& m);

// ---- errors and counters (runtime.cpp) ---------------------------------------------------------

// A status from the library; becomes aclnn.AclnnError (or a subclass) in Python.
struct AclnnFailure {
  int64_t status;
  std::string api;      // "aclnnLeakyReluBackward", or "" for runtime calls outside an op
  std::string phase;    // "GetWorkspaceSize", "execute", "aclrtSynchronizeStream", "aclInit", ...
  std::string message;  // aclGetRecentErrMsg() at the time of the failure
};

// What the bindings did, for tests and for `aclnn._C._stats()`: proof that chained device
// calls copy nothing to the host, and that every object is released.
struct Counters {
  std::atomic<int64_t> host_to_device{0}, device_to_host{0}, device_to_device{0};
  std::atomic<int64_t> bytes_to_device{0}, bytes_to_host{0};
  std::atomic<int64_t> live_buffers{0}, live_objects{0};
  std::atomic<int64_t> calls{0};
};
Counters& counters();

// ---- the runtime: lazy initialisation, device, per-thread streams (runtime.cpp) ---------------

class Runtime {
 public:
  // aclInit and device 0 on first use; throws AclnnFailure or aclnn_loader::LoaderError.
  static Runtime& get();
  // Whether `get()` succeeded at some point and `shutdown()` has not run: what destructors check.
  static bool alive();

  const aclnn_loader::Abi& abi() const { return *abi_; }
  aclnn_loader::Backend& backend() const { return *backend_; }
  // This thread's stream, on the current device (a thread binds the device on first use, as
  // CANN contexts are per thread). Throws AclnnFailure.
  aclrtStream stream();
  void set_device(int32_t device);
  int32_t device() const { return device_.load(); }
  void shutdown();  // at interpreter exit: destroys streams, resets devices, aclFinalize

  // The last error message of this thread's library calls ("" when none).
  std::string recent_error() const;
  // Throws AclnnFailure when `code` is not ACL_SUCCESS.
  void check(aclError code, const std::string& api, const char* phase) const;

 private:
  Runtime() = default;
  void init();
  friend struct ThreadStream;
  void forget_stream(aclrtStream stream);

  aclnn_loader::Backend* backend_ = nullptr;
  const aclnn_loader::Abi* abi_ = nullptr;
  std::atomic<int32_t> device_{0};
  std::atomic<uint64_t> epoch_{1};  // bumped by set_device: threads rebind
  std::mutex mutex_;
  std::vector<aclrtStream> streams_;
  std::vector<int32_t> devices_used_;
};

// Device memory, freed when the last tensor viewing it goes.
class DeviceBuffer {
 public:
  // Throws AclnnFailure (phase "aclrtMalloc") on failure; never returns null. A 0-byte request
  // gets a small buffer, so that empty tensors still have a valid address.
  static std::shared_ptr<DeviceBuffer> allocate(size_t nbytes, const std::string& api);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }

 private:
  DeviceBuffer(void* data, size_t nbytes) : data_(data), nbytes_(nbytes) {}
  void* data_;
  size_t nbytes_;
};

// aclrtMemcpy through the loader, counted. Throws AclnnFailure. No GIL needed.
void copy_memory(void* dst, const void* src, size_t nbytes, aclrtMemcpyKind kind, const std::string& api);

// ---- RAII owners of CANN objects ---------------------------------------------------------------

template <class T> struct Destroy;
#define ACLNN_BINDING_DESTROY(Type, fn)                                        \
  template <> struct Destroy<Type> {                                           \
    void operator()(Type* p) const {                                           \
      if (p == nullptr) return;                                                \
      counters().live_objects.fetch_sub(1);                                    \
      if (Runtime::alive()) Runtime::get().abi().fn(p);                        \
    }                                                                          \
  };
ACLNN_BINDING_DESTROY(aclTensor, aclDestroyTensor)
ACLNN_BINDING_DESTROY(aclScalar, aclDestroyScalar)
ACLNN_BINDING_DESTROY(aclIntArray, aclDestroyIntArray)
ACLNN_BINDING_DESTROY(aclFloatArray, aclDestroyFloatArray)
ACLNN_BINDING_DESTROY(aclBoolArray, aclDestroyBoolArray)
ACLNN_BINDING_DESTROY(aclTensorList, aclDestroyTensorList)
ACLNN_BINDING_DESTROY(aclScalarList, aclDestroyScalarList)
ACLNN_BINDING_DESTROY(aclOpExecutor, aclDestroyAclOpExecutor)
#undef ACLNN_BINDING_DESTROY
template <class T> using Owner = std::unique_ptr<T, Destroy<T>>;

// ---- tensors: host arrays and device tensors (arrays.cpp) -------------------------------------

// A strided view over device memory: what aclnn.Tensor holds, and what every aclTensor a call
// creates describes. Strides and offset are in elements, as aclCreateTensor takes them; the
// storage is one-dimensional, `storage_elements` long.
struct DeviceTensor {
  std::shared_ptr<DeviceBuffer> storage;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage_elements = 0;
  aclDataType dtype = ACL_DT_UNDEFINED;

  int64_t numel() const;
  // Creates the aclTensor (ND format). Throws AclnnFailure when the library returns null.
  Owner<aclTensor> make_acl_tensor(const std::string& api) const;
};

// A host array (NumPy, or anything with __dlpack__ on the CPU), as a strided view over its
// memory span: element [0,...,0] at `data`, non-negative element strides.
struct HostArray {
  py::object keep;       // keeps the memory alive (the array, or the DLPack owner)
  py::object writeback;  // set when `keep` is a private copy of an array the op must write into
  char* data = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
  size_t itemsize = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // elements
  bool writeable = false;

  int64_t span_elements() const;  // elements from the first to the last one addressed, inclusive
  bool dense() const;             // the view covers its span exactly once (no gaps, no overlap)
};

// Converts `obj` (a NumPy array, a __dlpack__ object, or — for inputs — anything np.asarray
// takes) into a HostArray. Raises TypeError/ValueError naming `what` (a parameter).
HostArray host_array(py::handle obj, const std::string& what, bool for_output);
// Whether `obj` is an aclnn.Tensor.
bool is_device_tensor(py::handle obj);
// aclnn.to_device: a device copy of a host array's span, with the array's strides.
std::shared_ptr<DeviceTensor> to_device(py::handle obj);
// aclnn.Tensor.numpy(): a fresh C-contiguous host array with the tensor's values.
py::array to_host(const DeviceTensor& tensor);
void bind_tensor(py::module_& m);

// ---- what a generated wrapper declares about its API -------------------------------------------

// Which aclDataType a Python bool/int/float/complex becomes for an aclScalar parameter, in order
// of preference: the page's documented dtypes, ordered at generation time (a Python float is
// DOUBLE if the page documents it, else FLOAT, ...).
struct ScalarPreference {
  std::vector<aclDataType> for_bool, for_int, for_float, for_complex;
};

struct ParamSpec {
  const char* name;         // as the page writes it (gradOutput): for messages
  const char* python_name;  // grad_output
  ScalarPreference scalar;  // scalars and scalar lists only
};

// How an output is allocated when the caller passes no out= (decided at generation time from the
// page: gen/emit/bindings.py `output_plan`).
struct OutputPlan {
  int param;                     // index into ApiSpec::params
  std::vector<int> shape_from;   // broadcast of these inputs' shapes
  std::vector<int> dtype_from;   // promotion of these inputs' dtypes
  bool dtype_must_be_documented; // the page relates the dtype to no input: only use the promoted
                                 // dtype when `documented` lists it
  std::vector<aclDataType> documented;
  const char* required_reason;   // non-null: out= is required, for this reason
  bool is_list;                  // an aclTensorList output: out= takes a list of arrays
};

struct ApiSpec {
  const char* api;            // aclnnLeakyReluBackward
  const char* workspace_fn;   // aclnnLeakyReluBackwardGetWorkspaceSize
  const char* python_name;    // leaky_relu_backward
  std::vector<ParamSpec> params;
  std::vector<OutputPlan> outputs;  // the direction-out parameters, in prototype order (out=)
  std::vector<int> returns;         // out and inout parameters, in prototype order
};

// ---- one call of an API (call.cpp) ------------------------------------------------------------

class Call {
 public:
  // `out` is the out= argument: None, one array/Tensor, or a tuple/list in output order.
  Call(const ApiSpec& spec, py::handle out);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Inputs. None becomes NULL for every pointer kind, so that the library reports it (161001).
  aclTensor* tensor(int param, py::handle obj);
  aclTensor* inout_tensor(int param, py::handle obj);  // written in place, returned
  aclTensorList* tensor_list(int param, py::handle obj);
  aclTensorList* inout_tensor_list(int param, py::handle obj);
  aclScalar* scalar(int param, py::handle obj);
  aclScalarList* scalar_list(int param, py::handle obj);
  aclIntArray* int_array(int param, py::handle obj);
  aclFloatArray* float_array(int param, py::handle obj);
  aclBoolArray* bool_array(int param, py::handle obj);
  bool boolean(int param, py::handle obj);
  template <class T> T integer(int param, py::handle obj) {
    // long double holds every int64_t and uint64_t exactly (x86-64 and AArch64 alike).
    return static_cast<T>(integer_in_range(param, obj, static_cast<long double>(std::numeric_limits<T>::min()),
                                           static_cast<long double>(std::numeric_limits<T>::max())));
  }
  template <class T> T floating(int param, py::handle obj) {
    return static_cast<T>(floating_value(param, obj, sizeof(T) == sizeof(float)));
  }
  char* string(int param, py::handle obj);
  aclDataType dtype(int param, py::handle obj);
  // Outputs (direction out), converted after every input: their plans read the inputs.
  aclTensor* output(int param);
  aclTensorList* output_list(int param);

  // Runs both phases with `phase1(symbol, &workspaceSize, &executor)`, which casts the symbol to
  // the API's prototype and passes the converted arguments. Returns the outputs.
  template <class Phase1> py::object run(Phase1&& phase1) {
    void* symbol = resolve_phase1();
    Phase1* fn = &phase1;
    execute(symbol, [](void* ctx, void* sym, uint64_t* size, aclOpExecutor** executor) -> aclnnStatus {
      return (*static_cast<Phase1*>(ctx))(sym, size, executor);
    }, fn);
    return results();
  }

  struct Slot;  // one tensor of the call (call.cpp)

 private:
  using Trampoline = aclnnStatus (*)(void*, void*, uint64_t*, aclOpExecutor**);
  void* resolve_phase1();
  void execute(void* phase1, Trampoline trampoline, void* ctx);
  py::object results();

  std::string what(int param) const;  // "leaky_relu_backward(): grad_output" for messages
  long double integer_in_range(int param, py::handle obj, long double lo, long double hi);
  double floating_value(int param, py::handle obj, bool single);
  Slot* tensor_slot(int param, py::handle obj, bool inout, const std::string& label);
  aclScalar* make_scalar(int param, py::handle obj, const std::string& label);
  Slot* output_slot(int param, py::handle given, const OutputPlan* plan, const std::string& label);
  aclTensorList* make_list(int param, const std::vector<Slot*>& members);

  const ApiSpec& spec_;
  Runtime& runtime_;
  std::vector<py::object> out_given_;  // per OutputPlan
  bool device_mode_ = false;           // some tensor input is an aclnn.Tensor
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::vector<Slot*>> by_param_;  // the slots of each parameter
  std::vector<bool> is_list_;                 // whether a parameter was a tensor list
  std::vector<std::unique_ptr<std::string>> strings_;  // stable addresses for char* arguments
  // Owners, destroyed in reverse order of declaration: lists before what they hold.
  std::vector<Owner<aclTensor>> tensors_;
  std::vector<Owner<aclScalar>> scalars_;
  std::vector<Owner<aclIntArray>> int_arrays_;
  std::vector<Owner<aclFloatArray>> float_arrays_;
  std::vector<Owner<aclBoolArray>> bool_arrays_;
  std::vector<Owner<aclTensorList>> tensor_lists_;
  std::vector<Owner<aclScalarList>> scalar_lists_;
};

// ---- the module (module.cpp); generated/bindings/module.cpp calls these -------------------------

void init_module(py::module_& m);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDGEN_BINDING_H_
