// aclnn-bindgen bindings: one call of an API (call.cpp; its inputs: arguments.cpp, its outputs: outputs.cpp).
// The generated wrappers reach it through CallView (wrapper.h), which says what each method does.
#ifndef ACLNN_BINDING_CALL_H_
#define ACLNN_BINDING_CALL_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#include "api_spec.h"
#include "arrays.h"
#include "wrapper.h"
#include "owners.h"
#include "runtime.h"
#include "streams.h"

namespace aclnn_binding {
namespace py = pybind11;
using aclnn_bindgen::Dims;
using aclnn_bindgen::OutputShape;

class Call {
 public:
  // `out` is the out= argument: None, one array/Tensor, or a tuple/list in output order.
  Call(const ApiSpec& spec, py::handle out);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // The conversions CallView (wrapper.h) forwards to, documented there.
  aclTensor* tensor(int param, py::handle obj);
  aclTensor* inout_tensor(int param, py::handle obj);
  aclTensorList* tensor_list(int param, py::handle obj);
  aclTensorList* inout_tensor_list(int param, py::handle obj);
  aclScalar* scalar(int param, py::handle obj);
  aclScalarList* scalar_list(int param, py::handle obj);
  aclIntArray* int_array(int param, py::handle obj);
  aclFloatArray* float_array(int param, py::handle obj);
  aclBoolArray* bool_array(int param, py::handle obj);
  bool boolean(int param, py::handle obj);
  long double integer_in_range(int param, py::handle obj, long double lo, long double hi);
  double floating_value(int param, py::handle obj, bool single);
  char* string(int param, py::handle obj);
  aclDataType dtype(int param, py::handle obj);
  aclTensor* output(int param, const RuleArgs& rule_args = {});
  aclTensor* given_output(int param);
  aclTensorList* output_list(int param);
  // Runs both phases, `trampoline(closure, symbol, &workspaceSize, &executor)` being the first;
  // returns the outputs.
  py::object run(Phase1Trampoline trampoline, const void* closure);

  static constexpr size_t kNotOwned = ~size_t{0};
  // One tensor of the call.
  struct Slot {
    // What the aclTensor describes: an input Tensor's own (kept alive by `result`, the caller's
    // object), a result Tensor's (likewise), or, for a host array, `made`.
    const DeviceTensor* device = nullptr;
    std::optional<DeviceTensor> made;
    HostArray host;         // the host side, when the tensor came from (or goes to) the host
    bool upload = false;    // copy the host span to the device before phase 1
    bool download = false;  // copy the span back to the host once the stream has run the call
    bool overwrite = false; // an out= array: the op writes every element of the view
    bool written = false;   // the op writes it (an output or an in-place argument)
    py::object result;      // what the call returns for it (the caller's object, or a new one)
    // Its aclTensor: an aclnn.Tensor's own (descriptor_of), or one in Call::tensors_ at `owner`.
    aclTensor* acl = nullptr;
    size_t owner = kNotOwned;
    bool data_dependent = false;  // its extent is the view shape the kernel sets (OutputShape kBound*)
  };
  // Names an argument in messages, built only when a message is ("abs() argument 'self'[2]").
  class Label final : public ArgumentName {
   public:
    Label(const Call* call, int param, int item, bool output) : call(call), param(param), item(item), output(output) {}
    std::string str() const override;

    const Call* call;
    int param;
    int item;     // the element of a list, or -1
    bool output;  // "output 'out'" rather than "argument 'self'"
  };

 private:
  static constexpr int kMaxParams = 64;  // as the simulator's masks: no page comes near it
  static constexpr size_t kInlineSlots = 6;

  void* resolve_phase1();
  void execute(void* phase1, Phase1Trampoline trampoline, const void* closure);
  py::object results();
  void synchronize_and_download();
  // The data-dependent outputs as the view shapes their kernel set (after the stream has run).
  void shrink_to_written();
  // Waits for the call's stream; a wait Ctrl-C interrupts leaves the host arrays of queued
  // transfers held by the stream (they outlive the call until the transfers have run).
  void synchronize_stream();

  std::string what(int param) const { return Label{this, param, -1, false}.str(); }
  Slot* new_slot();
  void refuse_self_overlap(const Dims& shape, const Dims& strides, const Label& label) const;
  // `list_member`: the aclTensor is made for the call (a list owns its elements), never an
  // aclnn.Tensor's own.
  Slot* tensor_slot(py::handle obj, bool inout, const Label& label, bool list_member = false);
  void own_descriptor(Slot* slot);
  // `list_member`: a scalar of the call's own (a list owns its elements), never a shared one.
  aclScalar* make_scalar(int param, py::handle obj, const Label& label, bool list_member = false);
  Slot* output_slot(int param, py::handle given, const OutputPlan* plan, const RuleArgs& rule_args,
                    const Label& label);
  // A new output of `shape` and `dtype` (on the device, and a host array in host mode);
  // `list_member`: its aclTensor is the call's own, for the list that will own it.
  // list_member: the list owns the member's aclTensor; data_dependent: the kernel sets its view
  // shape (OutputShape's bound_* rules), so the call owns its descriptor.
  Slot* allocated_slot(const Dims& shape, aclDataType dtype, const Label& label, bool list_member = false,
                       bool data_dependent = false);
  // The members of list parameter `param` (null when it has none).
  const std::vector<Slot*>* list_members(int param) const;
  // `second`: the shape of the rule's second input (a product's right operand), null when none.
  void apply_family_rule(const OutputPlan& plan, const RuleArgs& args, Dims* shape, const Dims* second,
                         aclDataType* dtype);
  aclTensorList* make_list(int param, const std::vector<Slot*>& members);
  aclTensorList* tensor_list_of(int param, py::handle obj, bool inout);
  py::handle given_out(size_t output) const;
  void attach(int param, Slot* slot);

  const ApiSpec& spec_;
  Runtime& runtime_;
  Stream& stream_;                     // where the call's work is queued
  std::vector<py::object> out_given_;  // per OutputPlan; empty when out= is None
  bool device_mode_ = false;           // some tensor input is an aclnn.Tensor
  bool uploads_ = false;               // some host array goes to the device
  bool downloads_ = false;             // some result goes back to a host array
  bool data_dependent_ = false;        // some output's extent is read back after the run
  bool host_reads_pending_ = false;    // uploads are queued and the stream has not been synchronised
  // Slots: the first few inline, the rest on the heap (a list argument can have many). The inline
  // ones are constructed when used: a call uses two to four, and building and destroying all of
  // them on every call showed in the profile.
  Slot& slot_at(size_t i) {
    return i < kInlineSlots ? *std::launder(reinterpret_cast<Slot*>(&inline_slots_[i])) : *more_slots_[i - kInlineSlots];
  }
  alignas(Slot) unsigned char inline_slots_[kInlineSlots][sizeof(Slot)];
  size_t slot_count_ = 0;
  std::vector<std::unique_ptr<Slot>> more_slots_;
  // The slot of each non-list tensor parameter, valid where `attached_` has its bit: a call uses a
  // few of the 64, and zeroing them all on every call showed in its profile.
  Slot* single_[kMaxParams];
  uint64_t attached_ = 0;
  std::vector<std::pair<int, std::vector<Slot*>>> lists_;  // the members of each list parameter
  uint64_t is_list_ = 0;                     // bit per parameter
  std::vector<std::unique_ptr<std::string>> strings_;  // stable addresses for char* arguments
  // Scalars of the cache the call uses (released by ~Call); beyond these, the call makes its own.
  ScalarCache::Entry* shared_scalars_[4];
  size_t shared_scalar_count_ = 0;
  // Owners, destroyed in reverse order of declaration: lists before what they hold.
  Owners<aclTensor> tensors_;
  Owners<aclScalar, 4> scalars_;
  Owners<aclIntArray, 4> int_arrays_;
  Owners<aclFloatArray, 2> float_arrays_;
  Owners<aclBoolArray, 2> bool_arrays_;
  Owners<aclTensorList, 2> tensor_lists_;
  Owners<aclScalarList, 2> scalar_lists_;
};

}  // namespace aclnn_binding

#endif  // ACLNN_BINDING_CALL_H_
