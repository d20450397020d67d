// aclnn-bindgen bindings: the module (module.cpp), whose init (PYBIND11_MODULE there) calls
// init_module, then the generated aclnn_generated::register_wrappers (wrapper.h).
#ifndef ACLNN_BINDING_MODULE_H_
#define ACLNN_BINDING_MODULE_H_

#include <pybind11/pybind11.h>

namespace aclnn_binding {
namespace py = pybind11;

void init_module(py::module_& m);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_MODULE_H_
