// aclnn-bindgen bindings: what a generated wrapper (generated/bindings/ops_*.cpp) sees of the
// runtime, and the one header its unit includes: Python.h, the ACL headers, what the wrapper
// declares about its API (api_spec.h), its calling convention (signature.h), and CallView, the
// call it converts its arguments with and runs.
//
// No pybind11 header, on purpose: pybind11 3.1 emits its dispatcher, signature generation and
// internals in every unit that includes it, whatever the unit uses (a unit of `int f(){return 1;}`
// took 15 s with the precompiled pybind11 headers and emitted 592 symbols). The runtime's own
// units (binding.h, which includes this one) use pybind11; the wrappers reach them through plain
// PyObject pointers: arguments borrowed, results new references, errors as C++ exceptions that
// `invoke` (signature.cpp, compiled once) turns into Python's.
#ifndef ACLNN_BINDING_WRAPPER_H_
#define ACLNN_BINDING_WRAPPER_H_

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <cstring>  // the wrappers compare string arguments (an output null under a quantMode)
#include <limits>
#include <type_traits>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#include "api_spec.h"
#include "signature.h"

namespace aclnn_binding {

class Call;

// How a wrapper's first phase is called: `closure` casts `phase1`, the API's resolved symbol, to
// the page's prototype and passes the converted arguments.
using Phase1Trampoline = aclnnStatus (*)(const void* closure, void* phase1, uint64_t* workspace_size,
                                         aclOpExecutor** executor);

// One call of an API as its wrapper sees it: the Call (call.h) that `invoke` made, through
// methods defined in call.cpp, so that a wrapper's unit needs neither Call's definition nor
// pybind11. Every method converts one argument (borrowed) or output; `run` runs both phases.
class CallView {
 public:
  explicit CallView(Call& call) : call_(call) {}
  CallView(const CallView&) = delete;
  CallView& operator=(const CallView&) = delete;

  // Inputs. None becomes NULL for every pointer kind, so that the library reports it (161001).
  aclTensor* tensor(int param, PyObject* obj);
  aclTensor* inout_tensor(int param, PyObject* obj);  // written in place, returned
  aclTensorList* tensor_list(int param, PyObject* obj);
  aclTensorList* inout_tensor_list(int param, PyObject* obj);
  aclScalar* scalar(int param, PyObject* obj);
  aclScalarList* scalar_list(int param, PyObject* obj);
  aclIntArray* int_array(int param, PyObject* obj);
  aclFloatArray* float_array(int param, PyObject* obj);
  aclBoolArray* bool_array(int param, PyObject* obj);
  bool boolean(int param, PyObject* obj);
  template <class T> T integer(int param, PyObject* obj) {
    // long double holds every int64_t and uint64_t exactly (x86-64 and AArch64 alike).
    return static_cast<T>(integer_in_range(param, obj, static_cast<long double>(std::numeric_limits<T>::min()),
                                           static_cast<long double>(std::numeric_limits<T>::max())));
  }
  template <class T> T floating(int param, PyObject* obj) {
    return static_cast<T>(floating_value(param, obj, sizeof(T) == sizeof(float)));
  }
  char* string(int param, PyObject* obj);  // owned by the call
  aclDataType dtype(int param, PyObject* obj);
  // Outputs (direction out), converted after every input: their plans read the inputs.
  aclTensor* output(int param, const RuleArgs& rule_args = {});
  // An output the page says is a null pointer in this call ("如果isSymmetrical是true，offsetOut需要传
  // nullptr"): null unless the caller gives an array for it, which then goes to the library to judge.
  aclTensor* given_output(int param);
  aclTensorList* output_list(int param);

  // Runs both phases with `phase1(symbol, &workspaceSize, &executor)`, which casts the symbol to
  // the API's prototype and passes the converted arguments. Returns the outputs (a new reference).
  template <class Phase1> PyObject* run(Phase1&& phase1) {
    using Closure = std::remove_reference_t<Phase1>;
    return run_with([](const void* closure, void* symbol, uint64_t* size, aclOpExecutor** executor) -> aclnnStatus {
      return (*static_cast<const Closure*>(closure))(symbol, size, executor);
    }, &phase1);
  }

 private:
  // The range checks of `integer` and `floating`, once in the core (arguments.cpp).
  long double integer_in_range(int param, PyObject* obj, long double lo, long double hi);
  double floating_value(int param, PyObject* obj, bool single);
  PyObject* run_with(Phase1Trampoline trampoline, const void* closure);

  Call& call_;
};

// A wrapper's body: converts `values` (its Python arguments, borrowed, in signature order) with
// `call` and returns `call.run(...)`. Not a template nor a closure with captures: the wrappers'
// bodies pass as plain functions, so that the exception handling compiles once.
using WrapperBody = PyObject* (*)(CallView& call, PyObject* const* values);

// A wrapper's whole body: parses the arguments, makes the Call of `spec` (out= the last argument
// when the API has outputs), runs `body` and turns every C++ exception into the Python one
// (pybind11's translators, aclnn's errors included). Returns a new reference, or null with the
// Python error set.
PyObject* invoke(const PySignature& signature, const ApiSpec& spec, PyObject* const* args, size_t nargs,
                 PyObject* kwnames, WrapperBody body);

// Adds generated wrappers to the module (METH_FASTCALL functions of no object; `functions` must
// outlive the module).
void add_functions(PyObject* module, PyMethodDef* functions, size_t count);

}  // namespace aclnn_binding

namespace aclnn_generated {

// Registers every generated wrapper (generated/bindings/module.cpp); the module's init, in the
// runtime (runtime/binding/module.cpp), calls it.
void register_wrappers(PyObject* module);

}  // namespace aclnn_generated

#endif  // ACLNN_BINDING_WRAPPER_H_
