// aclnn-bindgen bindings: what a generated wrapper declares about its API. No pybind11: the generated
// units include it through wrapper.h.
#ifndef ACLNN_BINDING_API_SPEC_H_
#define ACLNN_BINDING_API_SPEC_H_

#include <Python.h>

#include <atomic>
#include <initializer_list>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn_bindgen/dtypes.h"
#include "aclnn_bindgen/output_shapes.h"

namespace aclnn_binding {
using aclnn_bindgen::OutputShape;

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

// The arguments a family's rule reads, by name (the generated aclnn_bindgen::RuleArgument): the
// dimensions (an int, a sequence of ints, None: every dimension), keepdim, the dtype argument,
// whether an empty dimension list reduces none (noopWithEmptyAxes), a convolution's or a pool
// window's arguments, borrowed from the call's arguments. Null: the API has no such parameter.
struct RuleArgs {
  RuleArgs() = default;
  RuleArgs(std::initializer_list<std::pair<aclnn_bindgen::RuleArgument, PyObject*>> given) {
    for (const auto& [name, object] : given) objects[static_cast<size_t>(name)] = object;
  }
  PyObject* operator[](aclnn_bindgen::RuleArgument name) const { return objects[static_cast<size_t>(name)]; }

 private:
  PyObject* objects[static_cast<size_t>(aclnn_bindgen::RuleArgument::kCount)] = {};
};

// How an output is allocated when the caller passes no out= (decided at generation time from the
// page and its semantics: gen/api/python.py `output_plans`).
struct OutputPlan {
  int param;                     // index into ApiSpec::params
  std::vector<int> shape_from;   // broadcast of these inputs' shapes
  std::vector<int> dtype_from;   // promotion of these inputs' dtypes
  bool dtype_must_be_documented; // the page relates the dtype to no input: only use the promoted
                                 // dtype when `documented` lists it
  std::vector<aclDataType> documented;
  const char* required_reason;   // non-null: out= is required, for this reason
  bool is_list;                  // an aclTensorList output: out= takes a list of arrays
  aclnn_bindgen::ResultRule result;  // how the kernel's result dtype follows from the promoted one
  // A family's rule: shape_from is its one input; dtype_from the same (or `fixed_dtype`, or the
  // dtype argument when one is given).
  OutputShape shape_rule = OutputShape::kBroadcast;
  aclDataType fixed_dtype = ACL_DT_UNDEFINED;
  int spatial = 0;  // the pool rules': how many trailing dimensions they pool or pad
  bool onnx_window = false;  // the pool rule's: its window arguments are ONNX's (the family option)
};

struct ApiSpec {
  const char* api;            // aclnnLeakyReluBackward
  const char* workspace_fn;   // aclnnLeakyReluBackwardGetWorkspaceSize
  const char* python_name;    // leaky_relu_backward
  std::vector<ParamSpec> params;
  std::vector<OutputPlan> outputs;  // the direction-out parameters, in prototype order (out=)
  std::vector<int> returns;         // out and inout parameters, in prototype order
  // The backend's two symbols, resolved on the first call (the backend is chosen once per process).
  mutable std::atomic<void*> phase1{nullptr};
  mutable std::atomic<void*> phase2{nullptr};
};

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_API_SPEC_H_
