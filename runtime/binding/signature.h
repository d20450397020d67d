// aclnn-bindgen bindings: the Python calling convention of a wrapper (signature.cpp).
#ifndef ACLNN_BINDING_SIGNATURE_H_
#define ACLNN_BINDING_SIGNATURE_H_

#include <Python.h>

#include <vector>

namespace aclnn_binding {

// A generated wrapper's Python signature: `function(p0, p1, ..., *, pk, ...)`. The first `required`
// parameters have no default; the others default to None. An API with outputs has `out` last
// (gen/api/python.py PythonSignature), which `invoke` (wrapper.h) hands to the Call. Wrappers are
// METH_FASTCALL functions that parse their arguments with this, not through pybind11's dispatcher
// (whose per-call overload records and argument vectors cost more than the simulator's whole first
// phase).
struct PySignature {
  const char* function;            // leaky_relu_backward
  std::vector<const char*> names;  // every parameter, in order
  int positional;                  // how many may be given by position (those before `*`)
  int required;                    // how many, from the first, have no default
};

constexpr int kMaxPythonParams = 64;

// Fills `values` (names.size() of them, borrowed; None where defaulted) from a vectorcall's
// arguments, or raises TypeError with CPython's wording (missing, unexpected or repeated).
void parse_arguments(const PySignature& signature, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                     PyObject** values);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_SIGNATURE_H_
