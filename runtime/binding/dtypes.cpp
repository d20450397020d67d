// aclnn-bindgen: the bindings' dtype lookups: aclDataType <-> page names <-> NumPy, over the
// generated table the simulator reads too (aclnn_bindgen/dtypes.h).
#include <cctype>

#include "binding.h"

namespace aclnn_binding {

const DTypeInfo* dtype_info(aclDataType dtype) { return aclnn_bindgen::FindDType(dtype); }

const DTypeInfo* dtype_by_name(const std::string& raw) {
  std::string name = raw;
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // A page name (BFLOAT16) or an enumerator, with or without ACL_ (ACL_BF16, BF16).
  if (name.rfind("ACL_", 0) == 0) name = name.substr(4);
  for (const auto& row : aclnn_bindgen::kDTypes)
    if (name == row.name || "ACL_" + name == row.enumerator) return &row;
  return nullptr;
}

std::string dtype_name(aclDataType dtype) {
  const DTypeInfo* info = dtype_info(dtype);
  return info ? info->name : "aclDataType(" + std::to_string(static_cast<int>(dtype)) + ")";
}

aclDataType promote(aclDataType a, aclDataType b) {
  aclDataType out = ACL_DT_UNDEFINED;
  return aclnn_bindgen::PromoteTypes(a, b, &out) ? out : ACL_DT_UNDEFINED;
}

aclDataType from_numpy(const py::dtype& dtype) {
  const auto size = static_cast<size_t>(dtype.itemsize());
  // ml_dtypes registers its types as NumPy user dtypes (type numbers from NPY_USERDEF on),
  // recognised by name: their kind says little (bfloat16 is 'V', float8_e5m2 'f' of size 1).
  constexpr int kFirstUserDType = 256;  // NPY_USERDEF
  const bool user = dtype.attr("num").cast<int>() >= kFirstUserDType;
  const std::string name = py::str(dtype.attr("name"));
  for (const auto& row : aclnn_bindgen::kDTypes) {
    // A dtype packed below a byte (INT4) has a NumPy type of one element a byte (ml_dtypes.int4).
    const size_t held = row.size == 0 ? 1 : row.size;
    if (row.numpy != nullptr && row.ml_dtypes == user && name == row.numpy && held == size) return row.dtype;
  }
  return ACL_DT_UNDEFINED;  // strings, objects, datetimes, structured types, ...
}

py::dtype to_numpy(aclDataType dtype) {
  const DTypeInfo* info = dtype_info(dtype);
  if (info == nullptr || info->numpy == nullptr)
    throw py::type_error("NumPy has no dtype for " + dtype_name(dtype));
  if (info->ml_dtypes) return py::dtype::from_args(py::module_::import("ml_dtypes").attr(info->numpy));
  return py::dtype(info->numpy);
}

size_t storage_bytes(aclDataType dtype, int64_t elements) {
  if (dtype == ACL_INT4) return static_cast<size_t>((elements + 1) / 2);
  const DTypeInfo* info = dtype_info(dtype);
  return info ? static_cast<size_t>(elements) * info->size : 0;
}

void bind_dtypes(py::module_& m) {
  m.def("_promote_types", [](int a, int b) {
    const aclDataType out = promote(static_cast<aclDataType>(a), static_cast<aclDataType>(b));
    return out == ACL_DT_UNDEFINED ? -1 : static_cast<int>(out);
  }, py::arg("a"), py::arg("b"),
  "The aclDataType value an output of inputs `a` and `b` is allocated as (-1: none), for tests.");
  m.def("_result_dtype", [](int rule, int promoted) {
    return static_cast<int>(aclnn_bindgen::ResultDType(static_cast<aclnn_bindgen::ResultRule>(rule),
                                                       static_cast<aclDataType>(promoted)));
  }, py::arg("rule"), py::arg("promoted"),
  "The aclDataType value an output is allocated as under a result rule (its enumerator's value), for tests.");
}

}  // namespace aclnn_binding
