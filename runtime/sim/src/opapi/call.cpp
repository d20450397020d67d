// Phase 1's view of one call (call.h): the arguments resolved into the objects behind them, in
// the calling thread's reused Params, and the accessors the generated checks and kernels read.
#include "opapi/call.h"

#include <limits>
#include <string>
#include <vector>

#include "aclnn_sim/entry.h"
#include "common/internal.h"

namespace aclsim {
namespace {

const char* KindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::kTensor: return "aclTensor";
    case ParamKind::kScalar: return "aclScalar";
    case ParamKind::kIntArray: return "aclIntArray";
    case ParamKind::kFloatArray: return "aclFloatArray";
    case ParamKind::kBoolArray: return "aclBoolArray";
    case ParamKind::kTensorList: return "aclTensorList";
    case ParamKind::kScalarList: return "aclScalarList";
    default: return "value";
  }
}

Call::Param* ThreadParams(int count) {
  thread_local std::vector<Call::Param> params;
  if (params.size() < static_cast<size_t>(count)) params.resize(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) params[static_cast<size_t>(i)].Reset();
  return params.data();
}

}  // namespace

aclnnStatus Call::Fail(aclnnStatus status, const std::string& message) const {
  return aclsim::Fail(status, std::string(spec.name) + ": " + message);
}

void Call::Param::Reset() {
  present = false;
  tensor = TensorDesc{};
  info = TensorInfo{};
  scalar = ScalarValue{};
  scalar_double = std::numeric_limits<double>::quiet_NaN();
  scalar_int = 0;
  ints.clear();
  floats.clear();
  bool_values.clear();
  bool_count = 0;
  tensors.clear();
  tensor_infos.clear();
  tensor_items.clear();
  scalars.clear();
  scalar_doubles.clear();
  scalar_items.clear();
}

Call::Call(const ApiSpec& spec, const Arg* args, Soc soc)
    : spec(spec), args(args), soc(soc), params(ThreadParams(spec.param_count), spec.param_count) {}

aclnnStatus Call::Resolve() {
  for (int i = 0; i < spec.param_count; ++i) {
    const ParamSpec& p = spec.params[i];
    Param& value = params[i];
    const void* pointer = args[i].pointer;
    value.present = !IsPointer(p.kind) || pointer != nullptr;
    if (!pointer) continue;
    bool ok = true;
    switch (p.kind) {
      case ParamKind::kTensor:
        ok = GetTensor(static_cast<const aclTensor*>(pointer), &value.tensor);
        if (ok) value.info = TensorInfo{value.tensor.view.data(), static_cast<int64_t>(value.tensor.view.size()), value.tensor.dtype, true};
        break;
      case ParamKind::kScalar:
        ok = GetScalar(static_cast<const aclScalar*>(pointer), &value.scalar);
        if (ok) {
          value.scalar_double = value.scalar.AsDouble();
          value.scalar_int = value.scalar.AsInt();
        }
        break;
      case ParamKind::kIntArray: ok = GetIntArray(static_cast<const aclIntArray*>(pointer), &value.ints); break;
      case ParamKind::kFloatArray: ok = GetFloatArray(static_cast<const aclFloatArray*>(pointer), &value.floats); break;
      case ParamKind::kBoolArray: {
        ok = GetBoolArray(static_cast<const aclBoolArray*>(pointer), &value.bool_values);
        value.bool_count = static_cast<int64_t>(value.bool_values.size());
        if (value.bools_capacity < value.bool_values.size() + 1) {
          value.bools_capacity = value.bool_values.size() + 1;
          value.bools.reset(new bool[value.bools_capacity]);
        }
        for (size_t k = 0; k < value.bool_values.size(); ++k) value.bools[k] = value.bool_values[k];
        break;
      }
      case ParamKind::kTensorList: {
        if (p.tensor_for_list && IsLiveTensor(static_cast<const aclTensor*>(pointer))) {
          value.tensor_items.assign(1, static_cast<const aclTensor*>(pointer));  // the list of that tensor
        } else {
          ok = GetTensorList(static_cast<const aclTensorList*>(pointer), &value.tensor_items);
        }
        const auto& items = value.tensor_items;
        value.tensors.resize(items.size());
        value.tensor_infos.resize(items.size());
        for (size_t k = 0; ok && k < items.size(); ++k) {
          if (!items[k]) continue;
          ok = GetTensor(items[k], &value.tensors[k]);
        }
        for (size_t k = 0; ok && k < items.size(); ++k) {
          const TensorDesc& t = value.tensors[k];
          value.tensor_infos[k] = TensorInfo{t.view.data(), static_cast<int64_t>(t.view.size()), t.dtype, items[k] != nullptr};
        }
        break;
      }
      case ParamKind::kScalarList: {
        ok = GetScalarList(static_cast<const aclScalarList*>(pointer), &value.scalar_items);
        const auto& items = value.scalar_items;
        value.scalars.resize(items.size());
        value.scalar_doubles.assign(items.size(), std::numeric_limits<double>::quiet_NaN());
        for (size_t k = 0; ok && k < items.size(); ++k) {
          if (!items[k]) continue;
          ok = GetScalar(items[k], &value.scalars[k]);
          if (ok) value.scalar_doubles[k] = value.scalars[k].AsDouble();
        }
        break;
      }
      default: break;  // strings are read where used
    }
    if (!ok) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(p.name) + " is not a live " + KindName(p.kind) +
                                               (p.tensor_for_list ? " nor a live aclTensor" : ""));
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus Reject(const Call& call, aclnnStatus status, const char* message) { return call.Fail(status, message); }

// --- accessors for the generated value checks and kernels ---------------------------------------

const TensorInfo& CallTensor(const Call& call, int index) { return call.params[index].info; }
double CallScalar(const Call& call, int index) { return call.params[index].scalar_double; }
bool CallPresent(const Call& call, int index) { return call.params[index].present; }

void CallScalarParts(const Call& call, int index, double* real, double* imag) {
  const Call::Param& p = call.params[index];
  *real = p.scalar_double;
  *imag = p.present ? p.scalar.ImagAsDouble() : 0.0;
}
int64_t CallScalarInt(const Call& call, int index) { return call.params[index].scalar_int; }
bool CallBool(const Call& call, int index) { return call.args[index].integer != 0; }
int64_t CallInt(const Call& call, int index) { return call.args[index].integer; }
double CallFloat(const Call& call, int index) { return call.args[index].real; }
aclDataType CallDType(const Call& call, int index) { return static_cast<aclDataType>(call.args[index].integer); }

const char* CallString(const Call& call, int index) {
  const char* text = static_cast<const char*>(call.args[index].pointer);
  return text ? text : "";
}

IntArrayInfo CallIntArray(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return IntArrayInfo{p.ints.data(), static_cast<int64_t>(p.ints.size()), p.present};
}

FloatArrayInfo CallFloatArray(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return FloatArrayInfo{p.floats.data(), static_cast<int64_t>(p.floats.size()), p.present};
}

BoolArrayInfo CallBoolArray(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return BoolArrayInfo{p.bools.get(), p.bool_count, p.present};
}

TensorListInfo CallTensorList(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return TensorListInfo{p.tensor_infos.data(), static_cast<int64_t>(p.tensor_infos.size()), p.present};
}

ScalarListInfo CallScalarList(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return ScalarListInfo{p.scalar_doubles.data(), static_cast<int64_t>(p.scalar_doubles.size()), p.present};
}

}  // namespace aclsim
