// aclnn-bindgen: a generated wrapper's Python calling convention (PySignature): its arguments
// parsed as CPython parses a function's, with CPython's messages.
#include <cxxabi.h>

#include <string>

#include "binding.h"

namespace aclnn_binding {

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

PyObject* invoke(const PySignature& signature, const ApiSpec& spec, PyObject* const* args, size_t nargs,
                 PyObject* kwnames, WrapperBody body) {
  PyObject* values[kMaxPythonParams];
  try {
    parse_arguments(signature, args, PyVectorcall_NARGS(nargs), kwnames, values);
    PyObject* out = spec.outputs.empty() ? Py_None : values[signature.names.size() - 1];
    Call call(spec, out);
    CallView view(call);
    return body(view, values);
  } catch (abi::__forced_unwind&) {
    throw;  // a thread ended at interpreter exit: not an error to report
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

}  // namespace aclnn_binding
