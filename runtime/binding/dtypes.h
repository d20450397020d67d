// aclnn-bindgen bindings: dtypes of the bindings (dtypes.cpp).
#ifndef ACLNN_BINDING_DTYPES_H_
#define ACLNN_BINDING_DTYPES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "acl/acl.h"
#include "aclnn_bindgen/dtypes.h"

namespace aclnn_binding {
namespace py = pybind11;

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
// The device bytes that hold `elements` of `dtype`: INT4 two to a byte (see pack_int4), the others
// their size each; 0 for a dtype with no byte layout (STRING, FLOAT4_*, ...).
size_t storage_bytes(aclDataType dtype, int64_t elements);
// aclnn._C._promote_types, for tests/bindings/test_dtype_agreement.py.
void bind_dtypes(py::module_& m);

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_DTYPES_H_
