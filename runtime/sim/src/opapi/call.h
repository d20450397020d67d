// Phase 1's view of one call: the spec, the raw arguments, and the objects behind them (copied
// from libnnopbase once, so that every check reads the same values).
#ifndef ACLNN_SIM_OPAPI_CALL_H_
#define ACLNN_SIM_OPAPI_CALL_H_

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/internal.h"

namespace aclsim {

class Call {
 public:
  struct Param {
    bool present = false;  // a pointer parameter that is not null, or any value parameter
    TensorDesc tensor;
    TensorInfo info;
    ScalarValue scalar;
    double scalar_double = std::numeric_limits<double>::quiet_NaN();
    int64_t scalar_int = 0;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::unique_ptr<bool[]> bools;
    int64_t bool_count = 0;
    std::vector<TensorDesc> tensors;  // a tensor list's elements (a null element: empty desc)
    std::vector<TensorInfo> tensor_infos;
    std::vector<ScalarValue> scalars;  // a scalar list's elements
    std::vector<double> scalar_doubles;
  };

  Call(const ApiSpec& spec, const Arg* args, Soc soc) : spec(spec), args(args), soc(soc), params(spec.param_count) {}

  // Looks up every non-null object argument; a handle that is not a live object of its kind is
  // ACLNN_ERR_PARAM_INVALID.
  aclnnStatus Resolve();

  // "<api>: <message>" as the recent error; returns `status`.
  aclnnStatus Fail(aclnnStatus status, const std::string& message) const;

  const ApiSpec& spec;
  const Arg* args;
  const Soc soc;
  std::vector<Param> params;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_CALL_H_
