// aclnn-bindgen: the normalisation families' output-shape rules (shape_rule.h): the statistics a
// layer, group or batch norm returns beside its output.
#ifndef ACLNN_BINDGEN_NORM_SHAPE_H_
#define ACLNN_BINDGEN_NORM_SHAPE_H_

#include <cstddef>
#include <cstdint>

#include "aclnn_bindgen/shape_rule.h"

namespace aclnn_bindgen {

// `source` with its last `count` dimensions (all, if it has fewer) as 1.
inline Dims TrailingOnes(const Dims& source, size_t count) {
  Dims shape = source;
  if (count > shape.size()) count = shape.size();
  for (size_t d = shape.size() - count; d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

// A layer norm's mean and rstd: the source's shape with its trailing normalised dimensions as 1,
// as many as normalized_shape (dims) names, else as the weight's (second's) rank.
inline bool TrailingOnesRule(const ShapeArgs& args, Dims* shape) {
  *shape = TrailingOnes(*shape, args.dims.read() ? args.dims.values.size() : (args.second ? args.second->size() : 0));
  return true;
}

// A group norm's statistics, [N, group]. Only a group count dividing the channels gives a shape:
// another (2^31 from a fuzzer) would allocate its outputs before phase 1 refuses it.
inline bool GroupsRule(const ShapeArgs& args, Dims* shape) {
  if (shape->size() < 2 || !args.dims.read() || args.dims.values.size() != 1) return false;
  const int64_t group = args.dims.values[0];
  if (group <= 0 || (*shape)[1] % group != 0) return false;
  *shape = Dims{(*shape)[0], group};
  return true;
}

// A batch norm's statistics, [C].
inline bool ChannelsRule(const ShapeArgs&, Dims* shape) {
  if (shape->size() < 2) return false;
  *shape = Dims{(*shape)[1]};
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_NORM_SHAPE_H_
