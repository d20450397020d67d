// Phase 1's checks of the page's cross-parameter rules (see rules.h). Like the rest of phase 1 they
// allocate nothing on a valid call: the rules are constexpr tables of the generated spec, and
// messages are built only to reject.
#include "opapi/rules.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "aclnn_bindgen/pool_shape.h"
#include "aclnn_bindgen/reduce_shape.h"
#include "common/dtypes.h"

namespace aclsim {

std::string Where(const ApiSpec& spec, int line) {
  if (line <= 0) return "";  // a spec made without a page (the simulator's own tests)
  return std::string(" (") + spec.source + ":" + std::to_string(line) + ")";
}

namespace {

std::string Shape(const Dims& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string Number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<int64_t>(value));
  return std::to_string(value);
}

const Dims* TensorShape(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  return p.present && call.spec.params[index].kind == ParamKind::kTensor ? &p.tensor.view : nullptr;
}

// The dtype a parameter carries (tensors, scalars, aclDataType attributes).
bool CarriedDType(const Call& call, int index, int* dtype) {
  const Call::Param& p = call.params[index];
  if (!p.present) return false;
  switch (call.spec.params[index].kind) {
    case ParamKind::kTensor: *dtype = p.tensor.dtype; return true;
    case ParamKind::kScalar: *dtype = p.scalar.dtype; return true;
    case ParamKind::kDType: *dtype = static_cast<int>(call.args[index].integer); return true;
    default: return false;
  }
}

// A tensor given with no elements where NULL is allowed carries nothing to misread, and is what a
// framework passes for an unused one: torch_npu 2.13's op-plugin (QuantMatmulKernelNpuOpApi.cpp) gives
// aclnnQuantMatmulV5/V4 and aclnnQuantMatmulWeightNz x1Offset and yOffset = at::empty({0}) of the
// output's dtype, where the pages reserve x1Offset ("Reserved parameter ... Pass nullptr") and list
// no yOffset dtype beside FLOAT16 out. Such a tensor counts as the null pointer in the reserved and
// dtype-combination steps (the engines read an empty tensor as absent too).
bool NoElements(const Call& call, int index) {
  return call.spec.params[index].kind == ParamKind::kTensor && call.params[index].present &&
         CallTensor(call, index).empty();
}

// A dimension index wrapped into [0, rank), or -1 when it is outside [-rank, rank).
int64_t Wrap(int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return -1;
  return axis < 0 ? axis + r : axis;
}

// The broadcast shape of the present tensors of `mask`; false when they do not broadcast.
bool BroadcastOf(const Call& call, uint64_t mask, Dims* out, std::string* names) {
  out->clear();
  bool any = false;
  for (int i = 0; i < call.spec.param_count && i < 64; ++i) {
    if (!(mask & (uint64_t{1} << i))) continue;
    const Dims* s = TensorShape(call, i);
    if (!s) continue;
    if (names) *names += (names->empty() ? "" : " and ") + std::string(call.spec.params[i].name);
    if (!any) {
      *out = *s;
      any = true;
      continue;
    }
    const size_t rank = std::max(out->size(), s->size());
    Dims joint;
    joint.assign(rank, 1);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t a = k + out->size() >= rank ? (*out)[k + out->size() - rank] : 1;
      const int64_t b = k + s->size() >= rank ? (*s)[k + s->size() - rank] : 1;
      if (a != b && a != 1 && b != 1) return false;
      joint[k] = a == 1 ? b : a;
    }
    *out = joint;
  }
  return any;
}

// The value of a host argument (an int, a float, a scalar); false when it is absent or of another kind.
bool HostValue(const Call& call, int index, double* value) {
  const Call::Param& p = call.params[index];
  if (!p.present) return false;
  switch (call.spec.params[index].kind) {
    case ParamKind::kInt: *value = static_cast<double>(call.args[index].integer); return true;
    case ParamKind::kFloat: *value = call.args[index].real; return true;
    case ParamKind::kScalar: *value = p.scalar_double; return true;
    default: return false;
  }
}

// The element of an aclIntArray that bounds element `item` of another (Extent::kElement): the one at
// the same position, or its only one ("长度为1(kH=kW)"); false where it has none there.
bool ElementValue(const Call& call, int index, int item, double* value) {
  const Call::Param& p = call.params[index];
  if (!p.present || call.spec.params[index].kind != ParamKind::kIntArray || p.ints.empty()) return false;
  const size_t at = p.ints.size() == 1 ? 0 : static_cast<size_t>(item);
  if (item < 0 || at >= p.ints.size()) return false;
  *value = static_cast<double>(p.ints[at]);
  return true;
}

// The value a bound stands for in this call (for element `item` of an array argument, -1 for one
// value); false when it cannot be evaluated (an absent tensor, a dimension outside the tensor): the
// rule is then not applied, as CANN applies it only to what exists.
bool BoundValue(const Call& call, const BoundSpec& bound, int item, double* value) {
  double extent = 1.0;
  if (bound.extent == Extent::kValue) {
    if (!HostValue(call, bound.tensor, &extent)) return false;
  } else if (bound.extent == Extent::kElement) {
    if (!ElementValue(call, bound.tensor, item, &extent)) return false;
  } else if (bound.extent != Extent::kNumber) {
    const Dims* shape = TensorShape(call, bound.tensor);
    if (!shape) return false;
    if (bound.extent == Extent::kDimension) {
      // The dimension element `item` stands for: the array's elements stand for the dimensions from
      // bound.axis (counted from the end) on, one each (CheckValueRules gives a one-element array's
      // value to each of them).
      const int64_t at = static_cast<int64_t>(shape->size()) + bound.axis + item;
      if (item < 0 || item >= -bound.axis || at < 0) return false;  // a rank the rank bounds judge
      extent = static_cast<double>((*shape)[static_cast<size_t>(at)]);
    } else if (bound.extent == Extent::kRank) {
      // A 0-d tensor has one dimension to name (PyTorch's wrap_dim; CANN's implementations alike).
      extent = static_cast<double>(shape->empty() ? 1 : shape->size());
    } else {
      const int64_t axis = bound.axis_param >= 0 ? call.args[bound.axis_param].integer : bound.axis;
      const int64_t at = Wrap(axis, shape->size());
      if (at < 0) return false;
      extent = static_cast<double>((*shape)[static_cast<size_t>(at)]);
    }
  }
  const double divisor = bound.divisor > 1 ? static_cast<double>(bound.divisor) : 1.0;
  *value = bound.offset + (bound.extent == Extent::kNumber ? 0.0 : bound.sign * extent / divisor);
  return true;
}

// The dimensions an array's elements stand for under a kDimension bound (0 for another bound).
int64_t SpreadOf(const BoundSpec& bound) {
  return bound.present && bound.extent == Extent::kDimension ? -bound.axis : 0;
}

// The status a rule answers: its error row's, or 161002.
template <typename Rule>
aclnnStatus StatusOf(const Rule& rule) {
  return rule.status ? rule.status : ACLNN_ERR_PARAM_INVALID;
}

// `item`: the element checked (-1 for one value); `place`: the element or dimension its bounds are of
// (an element's own position, but for a one-element array whose value stands for several dimensions).
aclnnStatus CheckRange(const Call& call, const ValueRangeSpec& range, double value, int item, int place) {
  double low = 0, high = 0;
  const bool has_low = range.low.present && BoundValue(call, range.low, place, &low);
  const bool has_high = range.high.present && BoundValue(call, range.high, place, &high);
  const bool below = has_low && (range.low.inclusive ? value < low : value <= low);
  const bool above = has_high && (range.high.inclusive ? value > high : value >= high);
  // A NaN lies in no range of numbers ("取值范围[0, 1]"; aclnnCdist's "p为负数或nan"): CANN checks a
  // documented range as the condition it must meet (OP_CHECK(p >= 0 && p <= 1, ...)), which NaN fails. A
  // bound that is another argument's value is the page's comparison of the two ("clipValueMin的数值大于
  // clipValueMax"), which a NaN meets no more than it breaks.
  const bool numeric = (has_low && range.low.extent == Extent::kNumber) || (has_high && range.high.extent == Extent::kNumber);
  const bool nan = std::isnan(value) && numeric;
  if (!below && !above && !nan) return ACLNN_SUCCESS;
  const ParamSpec& p = call.spec.params[range.param];
  std::string who = p.name;
  if (item >= 0) who += "[" + std::to_string(item) + "]";
  const std::string lo = has_low ? (range.low.inclusive ? "[" : "(") + Number(low) : "(-inf";
  const std::string hi = has_high ? Number(high) + (range.high.inclusive ? "]" : ")") : "inf)";
  return call.Fail(StatusOf(range),
                   who + ": " + Number(value) + " is outside " + lo + ", " + hi + Where(call.spec, range.line));
}

aclnnStatus CheckSet(const Call& call, const ValueSetSpec& set, int64_t value, int item) {
  if (std::binary_search(set.values, set.values + set.value_count, value)) return ACLNN_SUCCESS;
  std::string who = call.spec.params[set.param].name;
  if (item >= 0) who += "[" + std::to_string(item) + "]";
  std::string listed;
  for (uint8_t k = 0; k < set.value_count; ++k) listed += (k ? ", " : "") + std::to_string(set.values[k]);
  return call.Fail(StatusOf(set),
                   who + ": " + std::to_string(value) + " is none of {" + listed + "}" + Where(call.spec, set.line));
}

// The element count of an array argument (aclIntArray, aclFloatArray, aclBoolArray); -1 for another kind.
int64_t ArrayLength(const Call& call, int index) {
  const Call::Param& p = call.params[index];
  switch (call.spec.params[index].kind) {
    case ParamKind::kIntArray: return static_cast<int64_t>(p.ints.size());
    case ParamKind::kFloatArray: return static_cast<int64_t>(p.floats.size());
    case ParamKind::kBoolArray: return p.bool_count;
    default: return -1;
  }
}

aclnnStatus CheckLength(const Call& call, const ArrayLengthSpec& rule) {
  const int64_t length = ArrayLength(call, rule.param);
  if (length < 0 || std::binary_search(rule.lengths, rule.lengths + rule.length_count, length)) return ACLNN_SUCCESS;
  std::string listed;
  for (uint8_t k = 0; k < rule.length_count; ++k) listed += (k ? ", " : "") + std::to_string(rule.lengths[k]);
  return call.Fail(StatusOf(rule),
                   std::string(call.spec.params[rule.param].name) + ": length " + std::to_string(length) +
                       " is none of {" + listed + "}" + Where(call.spec, rule.line));
}

// Whether a value rule holds in this call: on the call's chip (a bit per Soc; 0: every chip), and
// under its condition, a value of an int or bool parameter (`when` -1: none).
// Whether a rule or row of the chips `socs` (a mask of Soc values; 0: every chip) holds on the call's chip.
bool OnChip(const Call& call, uint16_t socs) {
  return !socs || (socs & static_cast<uint16_t>(1u << static_cast<int>(call.soc)));
}

template <typename Rule>
bool Holds(const Call& call, const Rule& rule) {
  if (!OnChip(call, rule.socs)) return false;
  if (rule.when < 0) return true;
  return static_cast<double>(call.args[rule.when].integer) == rule.when_value;  // a bool's true is 1
}

// Whether one of the parameters of the mask `params` carries one of the dtypes of the mask `dtypes`
// (gen.ir.DTypeCondition.meets): an absent parameter carries none.
bool CarriesDType(const Call& call, uint64_t params, uint64_t dtypes) {
  for (int i = 0; i < call.spec.param_count && i < 64; ++i) {
    int dtype;
    if ((params & (uint64_t{1} << i)) && CarriedDType(call, i, &dtype) && dtype >= 0 && dtype < 64 &&
        (dtypes & (uint64_t{1} << dtype))) {
      return true;
    }
  }
  return false;
}

// A dimension's least length in bytes holds on its chips, as a value rule (it has no value condition).
bool Holds(const Call& call, const DimBytesSpec& rule) { return OnChip(call, rule.socs); }

// Whether a divisibility holds in this call: on its chips, under its value condition and under its
// dtype condition (one of the parameters it names carries one of its dtypes; an absent one none).
bool Holds(const Call& call, const DivisibleSpec& rule) {
  if (!Holds<DivisibleSpec>(call, rule)) return false;  // its chips and value condition, as a value rule's
  return !rule.when_params || CarriesDType(call, rule.when_params, rule.when_dtypes);
}

bool RuleApplies(const Call& call, const ShapeRuleSpec& rule) {
  if (rule.when < 0) return CarriesDType(call, rule.when_params, rule.when_dtypes) != rule.negated;
  const ParamSpec& when = call.spec.params[rule.when];
  bool matched = false;
  if (when.kind == ParamKind::kString) {
    const char* text = static_cast<const char*>(call.args[rule.when].pointer);
    if (!text) return false;
    for (uint8_t k = 0; k < rule.value_count && !matched; ++k) matched = std::strcmp(text, rule.strings[k]) == 0;
  } else {
    const int64_t value = call.args[rule.when].integer;
    for (uint8_t k = 0; k < rule.value_count && !matched; ++k) matched = value == rule.values[k];
  }
  return matched != rule.negated;
}

std::string WhenText(const Call& call, const ShapeRuleSpec& rule) {
  if (rule.when < 0) {
    std::string names, dtypes;
    for (int i = 0; i < call.spec.param_count && i < 64; ++i) {
      if (rule.when_params & (uint64_t{1} << i)) names += (names.empty() ? "" : " or ") + std::string(call.spec.params[i].name);
    }
    for (int d = 0; d < 64; ++d) {
      if (rule.when_dtypes & (uint64_t{1} << d)) dtypes += std::string(dtypes.empty() ? "" : ", ") + DTypeName(d);
    }
    return "the dtype of " + names + (rule.negated ? " is none of " : " is ") + dtypes;
  }
  const ParamSpec& when = call.spec.params[rule.when];
  std::string out = std::string(when.name) + (rule.negated ? " is none of " : " is ");
  for (uint8_t k = 0; k < rule.value_count; ++k) {
    out += (k ? ", " : "") + (when.kind == ParamKind::kString ? std::string(rule.strings[k]) : std::to_string(rule.values[k]));
  }
  return out;
}

}  // namespace

aclnnStatus CheckReserved(const Call& call) {
  const ApiSpec& spec = call.spec;
  if (!spec.rules || !spec.rules->reserved) return ACLNN_SUCCESS;
  for (int i = 0; i < spec.param_count && i < 64; ++i) {
    if ((spec.rules->reserved & (uint64_t{1} << i)) && call.params[i].present && !NoElements(call, i)) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(spec.params[i].name) +
                                                    " is a reserved parameter (预留参数): pass a null pointer");
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckCombinations(const Call& call) {
  const ApiSpec& spec = call.spec;
  if (!spec.rules || !spec.rules->combination_count) return ACLNN_SUCCESS;
  int applicable = 0, first_line = 0;
  for (uint8_t r = 0; r < spec.rules->combination_count; ++r) {
    const CombinationSpec& row = spec.rules->combinations[r];
    if (!OnChip(call, row.socs)) continue;
    if (!applicable++) first_line = row.line;
    bool matches = true;
    for (uint8_t c = 0; c < row.cell_count && matches; ++c) {
      const CombinationCellSpec& cell = row.cells[c];
      int dtype;
      // An absent parameter is the null-pointer step's concern: it matches every row.
      if (!CarriedDType(call, cell.param, &dtype)) continue;
      if (cell.absent && NoElements(call, cell.param)) continue;
      if (dtype >= 0 && dtype < 64 && (cell.dtypes & (uint64_t{1} << dtype))) continue;
      int other;
      if (cell.same_as >= 0 && CarriedDType(call, cell.same_as, &other) && other == dtype) continue;
      matches = false;
    }
    if (matches) return ACLNN_SUCCESS;
  }
  if (!applicable) return ACLNN_SUCCESS;
  std::string dtypes;
  const CombinationSpec& first = spec.rules->combinations[0];
  for (uint8_t c = 0; c < first.cell_count; ++c) {
    int dtype;
    const int index = first.cells[c].param;
    const bool present = CarriedDType(call, index, &dtype);
    dtypes += (c ? ", " : "") + std::string(spec.params[index].name) + " " + (present ? DTypeName(dtype) : "null");
  }
  return call.Fail(ACLNN_ERR_PARAM_INVALID, "the dtypes (" + dtypes + ") are none of the combinations the page lists for " +
                                                SocName(call.soc) + Where(spec, first_line));
}

aclnnStatus CheckShapeRules(const Call& call) {
  const ApiSpec& spec = call.spec;
  if (!spec.rules) return ACLNN_SUCCESS;
  const RulesSpec& rules = *spec.rules;
  for (uint8_t r = 0; r < rules.shape_rule_count; ++r) {
    const ShapeRuleSpec& rule = rules.shape_rules[r];
    const Dims* shape = TensorShape(call, rule.param);
    if (rule.form == ShapeForm::kPresent) {
      // A tensor optional but under the argument's value ("当outputRstd为True时，传入rstdOut是空指针").
      if (shape || !RuleApplies(call, rule)) continue;
      return call.Fail(ACLNN_ERR_PARAM_NULLPTR, std::string(spec.params[rule.param].name) +
                                                    ": a null pointer, where it must be given when " +
                                                    WhenText(call, rule) + Where(spec, rule.line));
    }
    if (!shape || !RuleApplies(call, rule)) continue;
    const char* name = spec.params[rule.param].name;
    if (rule.form == ShapeForm::kAbsent) {
      return call.Fail(ACLNN_ERR_PARAM_INVALID, std::string(name) + ": given (shape " + Shape(*shape) +
                                                    "), where it must be a null pointer when " + WhenText(call, rule) +
                                                    Where(spec, rule.line));
    }
    if (rule.form == ShapeForm::kRank) {
      const int64_t rank = static_cast<int64_t>(shape->size());
      if (rank >= rule.rank_min && rank <= rule.rank_max) continue;
      // A rank outside the page's answers as the parameter's own rank bounds do (CheckRanks).
      return call.Fail(spec.rank_status ? spec.rank_status : ACLNN_ERR_PARAM_INVALID,
                       std::string(name) + ": rank " + std::to_string(rank) + " is outside [" +
                           std::to_string(rule.rank_min) + ", " + std::to_string(rule.rank_max) + "], as it must be when " +
                           WhenText(call, rule) + Where(spec, rule.line));
    }
    if (rule.form == ShapeForm::kScalar) {
      int64_t n = 1;
      for (int64_t d : *shape) n *= d;
      if (n == 1) continue;
      return call.Fail(ShapeStatus(spec), std::string(name) + ": shape " + Shape(*shape) +
                                                    " is not one element, as it must be when " + WhenText(call, rule) +
                                                    Where(spec, rule.line));
    }
    Dims expected;
    std::string names;
    if (!BroadcastOf(call, rule.others, &expected, &names)) {
      return call.Fail(ShapeStatus(spec), "the shapes of " + names + " do not broadcast" + Where(spec, rule.line));
    }
    if (names.empty() || expected == *shape) continue;
    return call.Fail(ShapeStatus(spec), std::string(name) + ": shape " + Shape(*shape) + " is not " +
                                                  Shape(expected) + ", the shape of " + names + ", as it must be when " +
                                                  WhenText(call, rule) + Where(spec, rule.line));
  }
  for (uint8_t r = 0; r < rules.dim_count; ++r) {
    const DimEqualSpec& rule = rules.dims[r];
    const Dims* a = TensorShape(call, rule.param);
    const Dims* b = TensorShape(call, rule.other);
    if (!a || !b) continue;
    const int64_t i = Wrap(rule.axis, a->size()), j = Wrap(rule.other_axis, b->size());
    if (i < 0 || j < 0) continue;  // a rank the rank bounds judge
    if ((*a)[static_cast<size_t>(i)] == (*b)[static_cast<size_t>(j)]) continue;
    return call.Fail(ShapeStatus(spec), std::string(spec.params[rule.param].name) + ": dimension " +
                                                  std::to_string(rule.axis) + " (" + std::to_string((*a)[static_cast<size_t>(i)]) +
                                                  ") differs from dimension " + std::to_string(rule.other_axis) + " of " +
                                                  spec.params[rule.other].name + " (" +
                                                  std::to_string((*b)[static_cast<size_t>(j)]) + ")" + Where(spec, rule.line));
  }
  for (uint8_t r = 0; r < rules.divisible_count; ++r) {
    const DivisibleSpec& rule = rules.divisible[r];
    if (!rule.has_axis || !Holds(call, rule)) continue;
    const Dims* shape = TensorShape(call, rule.param);
    if (!shape) continue;
    const int64_t at = Wrap(rule.axis, shape->size());
    const int64_t divisor = rule.divisor_param >= 0 ? call.args[rule.divisor_param].integer : rule.divisor;
    if (at < 0 || divisor <= 0) continue;
    const int64_t size = (*shape)[static_cast<size_t>(at)];
    if (size % divisor == 0) continue;
    return call.Fail(StatusOf(rule), std::string(spec.params[rule.param].name) + ": dimension " +
                                                  std::to_string(rule.axis) + " (" + std::to_string(size) +
                                                  ") is not a multiple of " + std::to_string(divisor) + Where(spec, rule.line));
  }
  for (uint8_t r = 0; r < rules.dim_bytes_count; ++r) {
    const DimBytesSpec& rule = rules.dim_bytes[r];
    if (!Holds(call, rule)) continue;
    const Dims* shape = TensorShape(call, rule.param);
    int dtype;
    if (!shape || !CarriedDType(call, rule.param, &dtype)) continue;  // an absent optional tensor is not judged
    const bool whole = rule.axis == kWholeTensor;
    const int64_t at = whole ? 0 : Wrap(rule.axis, shape->size());
    const int64_t item = static_cast<int64_t>(DTypeSize(static_cast<aclDataType>(dtype)));
    if (at < 0 || item <= 0) continue;  // a rank the rank bounds judge; sub-byte elements the page does not size
    int64_t size = 1;
    if (whole) {
      for (int64_t d : *shape) size *= d;
    } else {
      size = (*shape)[static_cast<size_t>(at)];
    }
    const int64_t bytes = size * item;
    const bool short_of = rule.minimum > 0 && bytes < rule.minimum;
    if (!short_of && (rule.multiple <= 0 || bytes % rule.multiple == 0)) continue;
    return call.Fail(StatusOf(rule), std::string(spec.params[rule.param].name) + ": " +
                                         (whole ? std::string("its elements span ")
                                                : "dimension " + std::to_string(rule.axis) + " spans ") +
                                         std::to_string(size) + " x " +
                                         std::to_string(item) + " bytes, " +
                                         (short_of ? "less than " + std::to_string(rule.minimum)
                                                   : "not a multiple of " + std::to_string(rule.multiple)) +
                                         " on this chip" + Where(spec, rule.line));
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckValueRules(const Call& call) {
  const ApiSpec& spec = call.spec;
  if (!spec.rules) return ACLNN_SUCCESS;
  const RulesSpec& rules = *spec.rules;
  // An array's length before its elements' values, as the pages' error tables order them.
  for (uint8_t r = 0; r < rules.length_count; ++r) {
    const ArrayLengthSpec& rule = rules.lengths[r];
    if (!call.params[rule.param].present) continue;  // a NULL optional array is not judged
    if (aclnnStatus s = CheckLength(call, rule)) return s;
  }
  for (uint8_t r = 0; r < rules.range_count; ++r) {
    const ValueRangeSpec& range = rules.ranges[r];
    const Call::Param& value = call.params[range.param];
    if (!value.present || !Holds(call, range)) continue;
    aclnnStatus s = ACLNN_SUCCESS;
    double one = 0;
    if (spec.params[range.param].kind == ParamKind::kIntArray) {
      // The part of the array it bounds ("padding前两个数值需小于self最后一维度的数值"), or all of it.
      const int64_t size = static_cast<int64_t>(value.ints.size());
      // An array bounded by the dimensions its elements stand for has one element for each, or one for
      // all ("长度为1(KD = KH = KW)或3(KD, KH, KW)"); which dimensions another length stands for, the page
      // does not say: no bound is applied to it (the length rules judge it).
      const int64_t spread = std::max(SpreadOf(range.low), SpreadOf(range.high));
      if (spread && size != 1 && size != spread) continue;
      const int64_t first = range.first < 0 ? size + range.first : range.first;
      const int64_t end = range.count < 0 ? size : std::min(size, first + range.count);
      for (int64_t k = std::max<int64_t>(first, 0); k < end && !s; ++k) {
        s = CheckRange(call, range, static_cast<double>(value.ints[static_cast<size_t>(k)]), static_cast<int>(k),
                       static_cast<int>(k));
      }
      // One value for every dimension: bounded by each dimension it stands for.
      for (int64_t d = 1; size == 1 && range.count < 0 && d < spread && !s; ++d) {
        s = CheckRange(call, range, static_cast<double>(value.ints[0]), 0, static_cast<int>(d));
      }
    } else if (HostValue(call, range.param, &one)) {
      s = CheckRange(call, range, one, -1, -1);
    }
    if (s) return s;
  }
  for (uint8_t r = 0; r < rules.set_count; ++r) {
    const ValueSetSpec& set = rules.sets[r];
    const Call::Param& value = call.params[set.param];
    if (!value.present || !Holds(call, set)) continue;
    aclnnStatus s = ACLNN_SUCCESS;
    if (spec.params[set.param].kind == ParamKind::kIntArray) {
      for (size_t k = 0; k < value.ints.size() && !s; ++k) s = CheckSet(call, set, value.ints[k], static_cast<int>(k));
    } else if (spec.params[set.param].kind == ParamKind::kInt) {
      s = CheckSet(call, set, call.args[set.param].integer, -1);
    }
    if (s) return s;
  }
  for (uint8_t r = 0; r < rules.product_count; ++r) {
    const ArrayProductSpec& rule = rules.products[r];
    const Dims* shape = TensorShape(call, rule.tensor);
    // A NULL optional array, an absent tensor or one without the dimensions (the rank bounds judge it) is not judged.
    if (!call.params[rule.param].present || !shape || shape->size() < static_cast<size_t>(rule.last)) continue;
    // Saturated: a product past int64 is more than any tensor's dimensions multiply to.
    int64_t product = 1, least = 1;
    for (int64_t v : call.params[rule.param].ints) {
      const bool negative = (product < 0) != (v < 0);
      if (__builtin_mul_overflow(product, v, &product)) product = negative ? INT64_MIN : INT64_MAX;
    }
    for (size_t d = shape->size() - static_cast<size_t>(rule.last); d < shape->size(); ++d) least *= (*shape)[d];
    if (product >= least) continue;
    return call.Fail(StatusOf(rule), std::string(spec.params[rule.param].name) + ": its elements' product " +
                                         std::to_string(product) + " is less than " + std::to_string(least) +
                                         ", the product of the last " + std::to_string(rule.last) + " dimensions of " +
                                         spec.params[rule.tensor].name + " " + Shape(*shape) + Where(spec, rule.line));
  }
  // A padded shape after the arrays' lengths and values, whose rows a wrong padding answers first.
  for (uint8_t r = 0; r < rules.padded_count; ++r) {
    const PaddedShapeSpec& rule = rules.padded[r];
    const Dims* shape = TensorShape(call, rule.tensor);
    const Dims* given = TensorShape(call, rule.param);
    const Call::Param& padding = call.params[rule.padding];
    // An array of another length or a tensor without the dimensions (the length and rank rules judge them) is not judged.
    if (!shape || !given || !padding.present || (rule.pairs && padding.ints.size() != static_cast<size_t>(2 * rule.pairs))) {
      continue;
    }
    Dims want = *shape;
    if (!aclnn_bindgen::PadShape(padding.ints.data(), padding.ints.size(), &want)) continue;
    // A widening below 0 is the pads' own rows' to refuse.
    if (std::any_of(want.begin(), want.end(), [](int64_t d) { return d < 0; }) || want == *given) continue;
    return call.Fail(rule.status ? rule.status : ShapeStatus(spec),
                     std::string(spec.params[rule.param].name) + ": shape " + Shape(*given) + " is not " +
                         spec.params[rule.tensor].name + "'s " + Shape(*shape) + " padded by " +
                         spec.params[rule.padding].name + " " + Shape(Dims(padding.ints.begin(), padding.ints.end())) + ", " +
                         Shape(want) +
                         Where(spec, rule.line));
  }
  // A reduced shape after the dimension's range, whose row an out-of-range dimension answers first; the
  // arithmetic is the reduce family's and the bindings' (aclnn_bindgen/reduce_shape.h), and so is
  // what it accepts: either form (gen.conventions, 4.), and any one-element tensor for one value.
  for (uint8_t r = 0; r < rules.reduced_count; ++r) {
    const ReducedShapeSpec& rule = rules.reduced[r];
    const Dims* shape = TensorShape(call, rule.tensor);
    const Dims* given = TensorShape(call, rule.param);
    if (!shape || !given) continue;
    const Call::Param& dims = call.params[rule.dims];
    Dims named;
    if (spec.params[rule.dims].kind == ParamKind::kInt) named.push_back(call.args[rule.dims].integer);
    else if (dims.present) named = Dims(dims.ints.begin(), dims.ints.end());
    uint64_t mask = 0;
    int64_t culprit = 0;
    const bool given_dims = spec.params[rule.dims].kind == ParamKind::kInt || dims.present;
    if (aclnn_bindgen::ReducedMask(static_cast<int64_t>(shape->size()), given_dims ? &named : nullptr, false, &mask,
                                   &culprit) != aclnn_bindgen::kReduceOk) {
      continue;  // a dimension out of range or named twice: the value rules' and the families' to refuse
    }
    const bool keepdim = call.args[rule.keepdim].integer != 0;
    const Dims want = aclnn_bindgen::ReducedShape(*shape, mask, keepdim);
    const Dims other = aclnn_bindgen::ReducedShape(*shape, mask, !keepdim);
    const Dims& form = *given == other ? other : want;
    int64_t count = 1;
    for (int64_t d : *given) count *= d;
    if (*given == form || (form.empty() && count == 1)) continue;
    return call.Fail(rule.status ? rule.status : ShapeStatus(spec),
                     std::string(spec.params[rule.param].name) + ": shape " + Shape(*given) + " is not " +
                         spec.params[rule.tensor].name + "'s " + Shape(*shape) + " reduced along " +
                         spec.params[rule.dims].name + " " + Shape(named) + " with " + spec.params[rule.keepdim].name +
                         (keepdim ? " true, " : " false, ") + Shape(want) + Where(spec, rule.line));
  }
  for (uint8_t r = 0; r < rules.divisible_count; ++r) {
    const DivisibleSpec& rule = rules.divisible[r];
    if (rule.has_axis || !Holds(call, rule)) continue;
    const int64_t value = call.args[rule.param].integer;
    const int64_t divisor = rule.divisor_param >= 0 ? call.args[rule.divisor_param].integer : rule.divisor;
    if (divisor <= 0 || value % divisor == 0) continue;
    return call.Fail(StatusOf(rule), std::string(spec.params[rule.param].name) + ": " + std::to_string(value) +
                                                  " is not a multiple of " + std::to_string(divisor) + Where(spec, rule.line));
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
