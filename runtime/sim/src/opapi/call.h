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

// Whether a parameter of `kind` is passed by pointer (an object, a string), so that it may be null.
inline bool IsPointer(ParamKind kind) {
  return kind != ParamKind::kBool && kind != ParamKind::kInt && kind != ParamKind::kFloat && kind != ParamKind::kDType;
}

// The status of shapes that disagree (a relation, a dimension equality, a shape rule, a family's
// check): the page's own where every error row about shapes gives one other than 161002
// (gen.emit.sim.shape_status: aclnnRmsNormQuantV3's are 561103, its tiling's checks), else 161002.
inline aclnnStatus ShapeStatus(const ApiSpec& spec) {
  return spec.shape_status ? spec.shape_status : ACLNN_ERR_PARAM_INVALID;
}

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
    std::vector<bool> bool_values;  // read from the aclBoolArray
    std::unique_ptr<bool[]> bools;  // the same, as an array for BoolArrayInfo
    size_t bools_capacity = 0;
    int64_t bool_count = 0;
    std::vector<TensorDesc> tensors;  // a tensor list's elements (a null element: empty desc)
    std::vector<TensorInfo> tensor_infos;
    std::vector<const aclTensor*> tensor_items;
    std::vector<ScalarValue> scalars;  // a scalar list's elements
    std::vector<double> scalar_doubles;
    std::vector<const aclScalar*> scalar_items;

    // Forgets the previous call's values and keeps the vectors' capacity: a thread's calls reuse
    // the same Params, so that phase 1 allocates nothing once a call of each shape has been seen.
    void Reset();
  };

  // The parameters of the calling thread's current phase 1.
  class Params {
   public:
    Params(Param* data, int count) : data_(data), count_(count) {}
    Param& operator[](int i) { return data_[i]; }
    const Param& operator[](int i) const { return data_[i]; }
    Param* begin() { return data_; }
    Param* end() { return data_ + count_; }
    const Param* begin() const { return data_; }
    const Param* end() const { return data_ + count_; }

   private:
    Param* data_;
    int count_;
  };

  Call(const ApiSpec& spec, const Arg* args, Soc soc);

  // Looks up every non-null object argument; a handle that is not a live object of its kind is
  // ACLNN_ERR_PARAM_INVALID.
  aclnnStatus Resolve();

  // "<api>: <message>" as the recent error; returns `status`.
  aclnnStatus Fail(aclnnStatus status, const std::string& message) const;

  const ApiSpec& spec;
  const Arg* args;
  const Soc soc;
  Params params;
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_CALL_H_
