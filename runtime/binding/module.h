// aclnn-bindgen bindings: the module (module.cpp); generated/bindings/module.cpp calls these.
#ifndef ACLNN_BINDING_MODULE_H_
#define ACLNN_BINDING_MODULE_H_

#include <pybind11/pybind11.h>

#include <cstddef>

namespace aclnn_binding {
namespace py = pybind11;

void init_module(py::module_& m);
// Adds generated wrappers (METH_FASTCALL functions of no object; `functions` must outlive the module).
void add_functions(py::module_& m, PyMethodDef* functions, size_t count);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_MODULE_H_
