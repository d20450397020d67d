// aclnn-bindgen: what an output-shape rule reads, and the rules that only restate a shape.
//
// The rules are gen.families.OUTPUT_SHAPES; the generated aclnn_bindgen/output_shapes.h holds their
// enumeration and ApplyOutputShape, which calls each rule's one function:
//
//   inline bool <Name>Rule(const ShapeArgs& args, Dims* shape);   // e.g. MatmulRule, BoundDimRule
//
// declared in the header its OutputShape row names (`header`: this one, or its family's
// <family>_shape.h beside it). `*shape` holds the source role's shape and receives the output's;
// false (arguments that give no shape) leaves it as it was, so that the call reaches the library,
// which says what is wrong. The bindings apply a rule to an output the caller does not pass
// (runtime/binding/outputs.cpp); the simulator's planners call the same functions, or the
// arithmetic beside them, where they derive and check that output's shape, so that the shape a
// binding allocates is the shape phase 1 accepts. The headers live here, not beside a family's
// simulator source, because the bindings build without the simulator (against CANN's own headers).
//
// A new rule: its OutputShape row (gen/families), and its function in the header the row names.
// NumPy's broadcast of two shapes is here too: the bindings' kBroadcast, the rules and the
// simulator's families (views.h BroadcastShape) apply this one.
#ifndef ACLNN_BINDGEN_SHAPE_RULE_H_
#define ACLNN_BINDGEN_SHAPE_RULE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "aclnn_bindgen/small_vector.h"

namespace aclnn_bindgen {

// An integer-array argument of a rule: absent (the API has no such parameter, or the caller passed
// None), read, or passed in a form that does not read as integers.
struct IntsArg {
  enum State : uint8_t { kAbsent, kRead, kUnreadable };
  State state = kAbsent;
  Dims values;

  bool read() const { return state == kRead; }
  bool unreadable() const { return state == kUnreadable; }
};

// The arguments a rule reads besides the source's shape.
struct ShapeArgs {
  const Dims* second = nullptr;  // the second role's shape (a product's right operand), when given
  IntsArg dims;                  // the argument of the rule's dims role (OutputShape.dims_role)
  bool keepdim = false;          // a reduction's
  bool noop = false;             // a reduction's: an empty dims reduces nothing (noopWithEmptyAxes)
  // A pooling window's (besides its kernel: dims) or a convolution's arguments.
  IntsArg stride, padding, dilation, output_padding, groups;
  bool ceil_mode = false, transposed = false;
  int spatial = 0;  // the pool rules': how many trailing dimensions they pool or pad
  bool onnx_window = false;  // the pool rule's: its window arguments are ONNX's (ReadOnnxWindow)
};

// The broadcast of the leading `a_batch` dimensions of `a` with the leading `b_batch` of `b`;
// false when they do not broadcast.
inline bool BroadcastBatch(const Dims& a, size_t a_batch, const Dims& b, size_t b_batch, Dims* batch) {
  const size_t rank = std::max(a_batch, b_batch);
  Dims shape;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t da = d + a_batch >= rank ? a[d + a_batch - rank] : 1;
    const int64_t db = d + b_batch >= rank ? b[d + b_batch - rank] : 1;
    if (da != db && da != 1 && db != 1) return false;
    shape.push_back(da == 1 ? db : da);
  }
  *batch = shape;
  return true;
}

// The broadcast of two whole shapes (numpy's rules); false when they do not broadcast.
inline bool BroadcastShapes(const Dims& a, const Dims& b, Dims* out) {
  return BroadcastBatch(a, a.size(), b, b.size(), out);
}

inline int64_t Numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline bool SameRule(const ShapeArgs&, Dims*) { return true; }

inline bool OneRule(const ShapeArgs&, Dims* shape) {
  *shape = Dims{1};
  return true;
}

inline bool SecondRule(const ShapeArgs& args, Dims* shape) {
  if (args.second == nullptr) return false;
  *shape = *args.second;
  return true;
}

inline bool SizesRule(const ShapeArgs& args, Dims* shape) {
  if (!args.dims.read()) return false;
  *shape = args.dims.values;
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_SHAPE_RULE_H_
