// aclnn-bindgen: the dynamic family's output-shape rules (shape_rule.h). An output whose extent
// depends on the data (masked_select, nonzero, unique) is allocated at the most the data can give
// (the bound_* rules) and read back at the view shape its kernel sets; dim_length is unique's
// counts along a dimension.
#ifndef ACLNN_BINDGEN_DYNAMIC_SHAPE_H_
#define ACLNN_BINDGEN_DYNAMIC_SHAPE_H_

#include <cstdint>

#include "aclnn_bindgen/shape_rule.h"

namespace aclnn_bindgen {

// The elements the data can give at most: every one selected (masked_select's self broadcast with
// its mask, second), every one distinct, every one nonzero.
inline int64_t BoundElements(const ShapeArgs& args, const Dims& shape) {
  Dims joint = shape;
  if (args.second != nullptr) BroadcastShapes(shape, *args.second, &joint);  // no broadcast: the library refuses
  return Numel(joint);
}

inline bool BoundFlatRule(const ShapeArgs& args, Dims* shape) {
  *shape = Dims{BoundElements(args, *shape)};
  return true;
}

inline bool BoundNonzeroRule(const ShapeArgs& args, Dims* shape) {
  *shape = Dims{BoundElements(args, *shape), static_cast<int64_t>(shape->size())};
  return true;
}

inline bool BoundNonzeroTRule(const ShapeArgs& args, Dims* shape) {
  *shape = Dims{static_cast<int64_t>(shape->size()), BoundElements(args, *shape)};
  return true;
}

// The extent along the dims role's one dimension, when it is in range (unique_dim;
// unique_consecutive, whose dim 1000 or any out of range means the flattened input); -1 if not.
inline int64_t ExtentAlong(const ShapeArgs& args, const Dims& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (!args.dims.read() || args.dims.values.size() != 1 || rank == 0) return -1;
  const int64_t d = args.dims.values[0];
  if (d < -rank || d >= rank) return -1;
  return shape[static_cast<size_t>(d < 0 ? d + rank : d)];
}

// With a dim in range, slices along it: the values keep the source's shape. Else elements: [numel].
inline bool BoundDimRule(const ShapeArgs& args, Dims* shape) {
  if (ExtentAlong(args, *shape) < 0) *shape = Dims{Numel(*shape)};
  return true;
}

// The counts: one per slice along dim, else one per element.
inline bool BoundDimLengthRule(const ShapeArgs& args, Dims* shape) {
  const int64_t along = ExtentAlong(args, *shape);
  *shape = Dims{along >= 0 ? along : Numel(*shape)};
  return true;
}

// The inverse: one per slice along dim, else the source's shape.
inline bool DimLengthRule(const ShapeArgs& args, Dims* shape) {
  const int64_t along = ExtentAlong(args, *shape);
  if (along >= 0) *shape = Dims{along};
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_DYNAMIC_SHAPE_H_
