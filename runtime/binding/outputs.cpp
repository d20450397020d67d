// aclnn-bindgen: a call's outputs: given with out=, or allocated with the shape and dtype the
// API's output plan (and its family's shape rule) gives.
#include <algorithm>

#include "aclnn_bindgen/conv_shape.h"
#include "aclnn_bindgen/matmul_shape.h"
#include "aclnn_bindgen/pool_shape.h"
#include "binding.h"

namespace aclnn_binding {

namespace {

// NumPy's broadcasting of two shapes; false when they do not broadcast.
bool broadcast(Dims& acc, const Dims& shape) {
  if (acc == shape) return true;  // most calls: operands of one shape
  Dims out(std::max(acc.size(), shape.size()), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t a = i < acc.size() ? acc[acc.size() - 1 - i] : 1;
    int64_t b = i < shape.size() ? shape[shape.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1) return false;
    out[out.size() - 1 - i] = a == 1 ? b : a;
  }
  acc = std::move(out);
  return true;
}

}  // namespace

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

// The output of a convolution of `input` by `weight` (aclnn_bindgen/conv_shape.h, the simulator's
// rule too); arguments that do not convert or do not agree leave the input's shape, for the
// library to refuse.
static void convolution_shape(const RuleArgs& args, const Dims& input, const Dims& weight, Dims* shape) {
  aclnn_bindgen::ConvArgs a;
  a.input.assign(input.begin(), input.end());
  a.weight.assign(weight.begin(), weight.end());
  std::vector<int64_t>* arrays[4] = {&a.stride, &a.padding, &a.dilation, &a.output_padding};
  const int array_of[4] = {0, 1, 2, 4};
  for (int i = 0; i < 4; ++i) {
    const py::handle h = args.conv[array_of[i]];
    Dims values;
    if (!h || h.is_none() || !dims_of(h, &values)) return;
    arrays[i]->assign(values.begin(), values.end());
  }
  if (args.conv[3] && !args.conv[3].is_none()) a.transposed = PyObject_IsTrue(args.conv[3].ptr()) == 1;
  if (args.conv[5] && !args.conv[5].is_none()) {
    Dims groups;
    if (!dims_of(args.conv[5], &groups) || groups.size() != 1) return;
    a.groups = groups[0];
  }
  std::vector<int64_t> out;
  if (aclnn_bindgen::ConvOutputShape(a, &out).ok()) *shape = Dims(out.begin(), out.end());
}

// The pool family's shapes (pool_shape.h's arithmetic, which the simulator's phase 1 applies and
// checks): the input's leading dimensions, then its last `spatial` ones pooled by the windows
// (kPool), replaced by the output size (kAdaptive) or widened by the padding pairs, last dimension
// first (kPad). False when an argument does not give one (the library then says which is wrong).
static bool pool_shape(OutputShape rule, int spatial, const RuleArgs& args, const Dims& input, Dims* out) {
  if (spatial < 1 || spatial > 3 || input.size() < static_cast<size_t>(spatial)) return false;
  auto read = [](py::handle h, Dims* d) { return h && !h.is_none() && dims_of(h, d); };
  const size_t lead = input.size() - static_cast<size_t>(spatial);
  Dims first, shape(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(lead));
  if (!read(args.dims, &first)) return false;
  aclnn_bindgen::PoolWindow window;
  int64_t size[3];
  if (rule == OutputShape::kPad) {
    if (first.size() != static_cast<size_t>(2 * spatial)) return false;
  } else if (rule == OutputShape::kAdaptive) {
    if (!aclnn_bindgen::SpreadPoolArgument(first.data(), first.size(), spatial, nullptr, size)) return false;
  } else {
    // An absent stride or dilation reads as empty: the kernel's, and 1.
    Dims s, p, d;
    if (args.stride && !args.stride.is_none() && !read(args.stride, &s)) return false;
    if (!read(args.padding, &p)) return false;
    if (args.dilation && !args.dilation.is_none() && !read(args.dilation, &d)) return false;
    if (aclnn_bindgen::SpreadPoolWindow(spatial, first.data(), first.size(), s.data(), s.size(), p.data(), p.size(),
                                        d.data(), d.size(), &window) != aclnn_bindgen::kPoolWindowOk) {
      return false;
    }
  }
  const bool ceil_mode = args.ceil_mode && !args.ceil_mode.is_none() && PyObject_IsTrue(args.ceil_mode.ptr()) == 1;
  for (int k = 0; k < spatial; ++k) {
    const int64_t in = input[lead + static_cast<size_t>(k)];
    int64_t n = 0;
    if (rule == OutputShape::kPool) {
      if (aclnn_bindgen::PooledExtent(in, window.kernel[k], window.stride[k], window.padding[k], window.dilation[k], ceil_mode,
                                      &n) != aclnn_bindgen::kPoolOk)
        return false;
    } else if (rule == OutputShape::kPad) {
      int64_t before = 0;
      if (aclnn_bindgen::PaddedDimension(in, first.data(), spatial, k, false, &before, &n) != aclnn_bindgen::kPoolOk)
        return false;
    } else {
      n = size[k];
    }
    shape.push_back(n);
  }
  *out = shape;
  return true;
}

void Call::apply_family_rule(const OutputPlan& plan, const RuleArgs& args, Dims* shape, const Dims* second,
                             aclDataType* dtype) {
  // Rules on a second input, or on the arguments, that cannot apply leave the first input's shape:
  // the call reaches the library, which says what is wrong (161001, 161002).
  const Dims first = *shape;
  switch (plan.shape_rule) {
    case OutputShape::kMatmul: {
      Dims product;
      if (second && aclnn_bindgen::MatmulShape(first, *second, &product)) *shape = product;
      break;
    }
    case OutputShape::kOuter:
      if (second && !first.empty() && !second->empty()) *shape = Dims{first[0], (*second)[0]};
      break;
    case OutputShape::kBatchSum:
      if (second && first.size() >= 2 && second->size() >= 2) *shape = Dims{first[first.size() - 2], second->back()};
      break;
    case OutputShape::kTrailingOnes: {
      Dims dims;
      size_t count = second ? second->size() : 0;
      if (args.dims && !args.dims.is_none() && dims_of(args.dims, &dims)) count = dims.size();
      for (size_t d = shape->size() - std::min(count, shape->size()); d < shape->size(); ++d) (*shape)[d] = 1;
      break;
    }
    case OutputShape::kGroups: {
      // Only a group count dividing the channels (first[1]) shapes [N, group]: another (2^31 from a
      // fuzzer) would allocate its outputs before phase 1 refuses it.
      Dims group;
      if (first.size() >= 2 && args.dims && dims_of(args.dims, &group) && group.size() == 1 && group[0] > 0 &&
          first[1] % group[0] == 0) {
        *shape = Dims{first[0], group[0]};
      }
      break;
    }
    case OutputShape::kChannels:
      if (first.size() >= 2) *shape = Dims{first[1]};
      break;
    case OutputShape::kConvolution:
      if (second) convolution_shape(args, first, *second, shape);
      break;
    case OutputShape::kPool:
    case OutputShape::kAdaptive:
    case OutputShape::kPad: {
      Dims pooled;
      if (pool_shape(plan.shape_rule, plan.spatial, args, first, &pooled)) *shape = pooled;
      break;
    }
    case OutputShape::kBoundFlat: case OutputShape::kBoundNonzero: case OutputShape::kBoundNonzeroT: {
      // The most the data can give: every element selected (masked_select's self broadcast with
      // its mask), every element distinct, every element nonzero.
      Dims joint = first;
      if (second) broadcast(joint, *second);
      int64_t n = 1;
      for (int64_t d : joint) n *= d;
      const int64_t rank = static_cast<int64_t>(first.size());
      *shape = plan.shape_rule == OutputShape::kBoundFlat ? Dims{n}
               : plan.shape_rule == OutputShape::kBoundNonzero ? Dims{n, rank} : Dims{rank, n};
      break;
    }
    case OutputShape::kBoundDim: case OutputShape::kBoundDimLength: case OutputShape::kDimLength: {
      // With a dim in range, slices along it (unique_dim; unique_consecutive, whose dim 1000 or
      // any out of range means the flattened input): the values keep the input's shape, the
      // counts and the inverse one per slice. Else elements: [N] (the inverse: the input's shape).
      Dims dims;
      const int64_t rank = static_cast<int64_t>(first.size());
      int64_t n = 1;
      for (int64_t d : first) n *= d;
      if (args.dims && !args.dims.is_none() && dims_of(args.dims, &dims) && dims.size() == 1 && rank > 0 &&
          dims[0] >= -rank && dims[0] < rank) {
        const int64_t along = first[static_cast<size_t>(dims[0] < 0 ? dims[0] + rank : dims[0])];
        if (plan.shape_rule != OutputShape::kBoundDim) *shape = Dims{along};
      } else if (plan.shape_rule != OutputShape::kDimLength) {
        *shape = Dims{n};
      }
      break;
    }
    case OutputShape::kOne:
      *shape = Dims{1};
      break;
    case OutputShape::kSecond:
      if (second) *shape = *second;
      break;
    case OutputShape::kSizes: {
      Dims sizes;
      if (args.dims && !args.dims.is_none() && dims_of(args.dims, &sizes)) *shape = sizes;
      break;
    }
    // No default: a rule gen.families adds is a compile error here until it is implemented
    // (outputs.cpp compiles with -Werror=switch).
    case OutputShape::kBroadcast:
    case OutputShape::kSame:
    case OutputShape::kReduce:  // below, with keepdim and the dtype argument
      break;
  }
  if (plan.shape_rule == OutputShape::kReduce) {
    const int64_t rank = static_cast<int64_t>(shape->size());
    Dims dims;
    const bool given = args.dims && !args.dims.is_none();
    if (given && !dims_of(args.dims, &dims)) return;
    const bool noop = args.noop && !args.noop.is_none() && PyObject_IsTrue(args.noop.ptr()) == 1;
    if (given && dims.empty() && noop) return;  // no dimension reduced: the input's shape
    std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());  // none given or empty: every one
    for (int64_t d : dims) {
      const int64_t extent = std::max<int64_t>(rank, 1);
      // A dimension out of range: the input's shape, so that the call reaches the library, which
      // says why it refuses (161002), instead of failing here on a guess.
      if (d < -extent || d >= extent) return;
      if (rank > 0) reduced[static_cast<size_t>(d < 0 ? d + extent : d)] = true;
    }
    const bool keepdim = args.keepdim && !args.keepdim.is_none() && PyObject_IsTrue(args.keepdim.ptr()) == 1;
    Dims out;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[static_cast<size_t>(d)]) out.push_back((*shape)[d]);
      else if (keepdim) out.push_back(1);
    }
    *shape = out;
  }
  if (plan.fixed_dtype != ACL_DT_UNDEFINED) {
    *dtype = plan.fixed_dtype;
  } else if (args.dtype && !args.dtype.is_none()) {
    // Converted without error as an input already; ACL_DT_UNDEFINED means "the input's" (aclnnCumprod).
    const aclDataType given = this->dtype(plan.param, args.dtype);
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
    else broadcast(shape, t->shape);
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
  if (info == nullptr || info->size == 0)
    throw py::type_error(label.str() + " cannot be allocated as " + dtype_name(dtype) + "; pass out=");
  size_t nbytes = info->size;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(d), &nbytes))
      throw py::value_error(label.str() + ": the output would be too large to allocate");
  }

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
