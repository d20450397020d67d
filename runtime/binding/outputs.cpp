// aclnn-bindgen: a call's outputs: given with out=, or allocated with the shape and dtype the
// API's output plan (and its family's shape rule: aclnn_bindgen/shape_rule.h) gives.
#include <algorithm>

#include "binding.h"

namespace aclnn_binding {

static bool dim_of(py::handle obj, Dims* dims) {
  int64_t value = 0;
  if (!int64_of(obj, &value)) return false;
  dims->push_back(value);
  return true;
}

// The dimensions of a family's `dim` argument: an int, or a sequence of ints (a list, a 1-d
// array); false for anything else (which the input's own conversion has refused already, or the
// library will).
static bool dims_of(py::handle obj, Dims* dims) {
  const bool array = py::isinstance<py::array>(obj);
  if (!array || py::reinterpret_borrow<py::array>(obj).ndim() == 0) {
    if (dim_of(obj, dims)) return true;
    if (array) return false;
  }
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) return false;
  for (py::handle item : obj) {
    if (!dim_of(item, dims)) return false;
  }
  return true;
}

// An integer-array argument as the shape rules read it: absent (no such parameter, or None), read,
// or unreadable.
static aclnn_bindgen::IntsArg ints_arg(py::handle h) {
  aclnn_bindgen::IntsArg arg;
  if (!h || h.is_none()) return arg;
  arg.state = dims_of(h, &arg.values) ? aclnn_bindgen::IntsArg::kRead : aclnn_bindgen::IntsArg::kUnreadable;
  return arg;
}

static bool true_arg(py::handle h) { return h && !h.is_none() && PyObject_IsTrue(h.ptr()) == 1; }

void Call::apply_family_rule(const OutputPlan& plan, const RuleArgs& args, Dims* shape, const Dims* second,
                             aclDataType* dtype) {
  // The rule's own function (generated aclnn_bindgen/output_shapes.h), which the simulator's
  // planners share. Rules on a second input, or on the arguments, that cannot apply leave the first
  // input's shape: the call reaches the library, which says what is wrong (161001, 161002).
  using aclnn_bindgen::RuleArgument;
  aclnn_bindgen::ShapeArgs rule;
  rule.second = second;
  rule.dims = ints_arg(args[RuleArgument::kDims]);
  rule.keepdim = true_arg(args[RuleArgument::kKeepdim]);
  rule.noop = true_arg(args[RuleArgument::kNoop]);
  rule.stride = ints_arg(args[RuleArgument::kStride]);
  rule.padding = ints_arg(args[RuleArgument::kPadding]);
  rule.dilation = ints_arg(args[RuleArgument::kDilation]);
  rule.transposed = true_arg(args[RuleArgument::kTransposed]);
  rule.output_padding = ints_arg(args[RuleArgument::kOutputPadding]);
  rule.groups = ints_arg(args[RuleArgument::kGroups]);
  rule.ceil_mode = true_arg(args[RuleArgument::kCeilMode]);
  rule.spatial = plan.spatial;
  rule.onnx_window = plan.onnx_window;
  aclnn_bindgen::ApplyOutputShape(plan.shape_rule, rule, shape);
  if (plan.fixed_dtype != ACL_DT_UNDEFINED) {
    *dtype = plan.fixed_dtype;
  } else if (const py::handle dtype_arg = args[aclnn_bindgen::RuleArgument::kDtype]; dtype_arg && !dtype_arg.is_none()) {
    // Converted without error as an input already; ACL_DT_UNDEFINED means "the input's" (aclnnCumprod).
    const aclDataType given = this->dtype(plan.param, dtype_arg);
    if (given != ACL_DT_UNDEFINED) *dtype = given;
  }
}

Call::Slot* Call::output_slot(int param, py::handle given, const OutputPlan* plan, const RuleArgs& rule_args,
                              const Label& label) {
  if (!given.is_none()) {
    Slot* slot = tensor_slot(given, true, label);
    slot->overwrite = true;
    if (plan != nullptr && data_dependent(plan->shape_rule)) {
      // The caller's output holds the result in its first elements (CANN asks no more of it): its
      // extent is read back as an allocated one's, through a descriptor of the call's own (a
      // Tensor's cached one would keep the view the kernel sets).
      slot->data_dependent = true;
      data_dependent_ = true;
      own_descriptor(slot);
    }
    return slot;
  }
  if (plan == nullptr || plan->required_reason != nullptr)
    throw py::type_error(label.str() + " cannot be allocated: " +
                         (plan ? plan->required_reason : "an output list has no shape the page states") + "; pass out=");
  // Shape and dtype from the inputs the page relates the output to. A related input that is
  // None means the library will reject the call (161001): pass NULL for the output as well.
  auto input = [&](int from) -> const DeviceTensor* {
    if (from >= kMaxParams || (is_list_ >> from & 1) || !(attached_ >> from & 1) || single_[from] == nullptr)
      return nullptr;
    return single_[from]->device;
  };
  Dims shape, second;
  bool first = true, has_second = false;
  const bool family = plan->shape_rule != OutputShape::kBroadcast;
  for (int from : plan->shape_from) {
    const DeviceTensor* t = input(from);
    // A family rule's second input may be an absent optional one (layer norm's weight).
    if (t == nullptr && family && !first) continue;
    if (t == nullptr) return nullptr;
    if (first) shape = t->shape;
    // A family's rule reads the second shape itself (a product's right operand).
    else if (family) second = t->shape, has_second = true;
    // Shapes that do not broadcast keep the first: the library reports the mismatch.
    else aclnn_bindgen::BroadcastShapes(shape, t->shape, &shape);
    first = false;
  }
  aclDataType dtype = ACL_DT_UNDEFINED;
  first = true;
  for (int from : plan->dtype_from) {
    const DeviceTensor* t = input(from);
    if (t == nullptr) return nullptr;
    aclDataType p = first ? t->dtype : promote(dtype, t->dtype);
    dtype = p == ACL_DT_UNDEFINED ? dtype : p;  // no promotion: keep the first; the library judges
    first = false;
  }
  dtype = aclnn_bindgen::ResultDType(plan->result, dtype);
  if (family) apply_family_rule(*plan, rule_args, &shape, has_second ? &second : nullptr, &dtype);
  if (plan->dtype_must_be_documented &&
      std::find(plan->documented.begin(), plan->documented.end(), dtype) == plan->documented.end()) {
    std::string listed;
    for (aclDataType d : plan->documented) listed += (listed.empty() ? "" : ", ") + dtype_name(d);
    throw py::type_error(label.str() + " cannot be allocated: the inputs give " + dtype_name(dtype) +
                         ", which the page does not list for it (" + listed + "); pass out=");
  }
  return allocated_slot(shape, dtype, label, false, data_dependent(plan->shape_rule));
}

Call::Slot* Call::allocated_slot(const Dims& shape, aclDataType dtype, const Label& label, bool list_member,
                                 bool data_dependent) {
  const DTypeInfo* info = dtype_info(dtype);
  if (info == nullptr || (info->size == 0 && dtype != ACL_INT4))
    throw py::type_error(label.str() + " cannot be allocated as " + dtype_name(dtype) + "; pass out=");
  size_t nbytes = info->size == 0 ? 1 : info->size;  // INT4: counted in elements, then halved
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(d), &nbytes))
      throw py::value_error(label.str() + ": the output would be too large to allocate");
  }
  if (info->size == 0) nbytes = storage_bytes(dtype, static_cast<int64_t>(nbytes));

  // The device first: a size the device cannot hold fails there, as an aclnn error, before the
  // host is asked for the same bytes.
  std::shared_ptr<DeviceBuffer> storage = DeviceBuffer::allocate(nbytes, stream_, spec_.api);
  Slot* slot = new_slot();
  // Built where it lives (the result Tensor, or the slot): a chained call's result is not moved.
  if (device_mode_) slot->result = new_tensor();
  DeviceTensor& t = device_mode_ ? device_tensor_of(slot->result) : slot->made.emplace();
  t.dtype = dtype;
  t.strides = contiguous_strides(shape);
  t.shape = shape;
  t.storage_elements = t.numel();
  t.storage = std::move(storage);
  slot->device = &t;
  slot->written = true;
  if (!device_mode_) {
    std::vector<py::ssize_t> dims(t.shape.begin(), t.shape.end());
    py::array host(to_numpy(dtype), dims);
    slot->host = host_array(host, label, true);
    slot->download = true;
    downloads_ = true;
    slot->result = host;
  }
  if (list_member) {
    own_descriptor(slot);  // the list owns (and destroys) its members' aclTensors
  } else if (data_dependent) {
    // The kernel changes this descriptor's view: the call's own, never the block's cached one
    // (which a later call of the bound's layout would take).
    slot->data_dependent = true;
    data_dependent_ = true;
    own_descriptor(slot);
  } else {
    slot->acl = device_mode_ ? describe_result(slot->result, spec_.api) : t.storage->describe_fresh(t, spec_.api);
  }
  return slot;
}

aclTensor* Call::output(int param, const RuleArgs& rule_args) {
  size_t k = 0;
  while (k < spec_.outputs.size() && spec_.outputs[k].param != param) ++k;
  const OutputPlan* plan = k < spec_.outputs.size() ? &spec_.outputs[k] : nullptr;
  Slot* slot = output_slot(param, given_out(k), plan, rule_args, Label{this, param, -1, true});
  attach(param, slot);
  return slot ? slot->acl : nullptr;
}

aclTensor* Call::given_output(int param) {
  size_t k = 0;
  while (k < spec_.outputs.size() && spec_.outputs[k].param != param) ++k;
  const py::handle given = given_out(k);
  if (given.is_none()) return nullptr;
  Slot* slot = output_slot(param, given, nullptr, {}, Label{this, param, -1, true});
  attach(param, slot);
  return slot ? slot->acl : nullptr;
}

aclTensorList* Call::output_list(int param) {
  size_t k = 0;
  while (k < spec_.outputs.size() && spec_.outputs[k].param != param) ++k;
  py::handle given = given_out(k);
  const Label label{this, param, -1, true};
  const OutputPlan* plan = k < spec_.outputs.size() ? &spec_.outputs[k] : nullptr;
  if (given.is_none() && plan && !plan->required_reason && plan->shape_rule == OutputShape::kSame &&
      plan->shape_from.size() == 1) {
    // Member i as the source list's member i (the foreach family); an absent source list means
    // the library will reject the call (161001): NULL for the output as well.
    const std::vector<Slot*>* source = list_members(plan->shape_from[0]);
    if (source == nullptr) return nullptr;
    std::vector<Slot*> members;
    for (size_t i = 0; i < source->size(); ++i) {
      const Slot* from = (*source)[i];
      if (from == nullptr || from->device == nullptr) throw py::type_error(label.str() + ": pass out=");
      members.push_back(allocated_slot(from->device->shape, from->device->dtype,
                                       Label{this, param, static_cast<int>(i), true}, true));
    }
    return make_list(param, members);
  }
  if (given.is_none()) throw py::type_error(label.str() + " is a list of tensors whose shapes the page does not state; pass out=");
  if (!py::isinstance<py::list>(given) && !py::isinstance<py::tuple>(given))
    throw py::type_error(label.str() + ": out= takes a list of arrays, got " + type_name(given));
  std::vector<Slot*> members;
  int i = 0;
  for (py::handle item : given) {
    const Label item_label{this, param, i++, true};
    if (item.is_none()) throw py::type_error(item_label.str() + ": pass an array");
    members.push_back(tensor_slot(item, true, item_label, true));
  }
  return make_list(param, members);
}

const std::vector<Call::Slot*>* Call::list_members(int param) const {
  for (const auto& entry : lists_) {
    if (entry.first == param) return &entry.second;
  }
  return nullptr;
}

}  // namespace aclnn_binding
