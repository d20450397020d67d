// aclnn-bindgen: a matrix product's shape, the one copy the bindings (the shape of an output the
// caller does not pass, gen.families' "matmul" rule) and the simulator (the matmul family's
// planner, which refuses an out of another shape) share, so that the shape a binding allocates is
// the shape phase 1 accepts. torch.matmul's rules: the batch dimensions, all but the last two,
// broadcast right-aligned; a 1-D operand gains the dimension it lacks, which the result loses.
#ifndef ACLNN_BINDGEN_MATMUL_SHAPE_H_
#define ACLNN_BINDGEN_MATMUL_SHAPE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "aclnn_bindgen/shape_rule.h"
#include "aclnn_bindgen/small_vector.h"

namespace aclnn_bindgen {

// The shape of a @ b; false when the operands cannot multiply whatever their reduce dimensions
// (a 0-d operand, batches that do not broadcast). The reduce dimensions are not compared: the
// library's phase 1 refuses them with its own message.
inline bool MatmulShape(const Dims& a, const Dims& b, Dims* out) {
  if (a.empty() || b.empty()) return false;
  const size_t ra = a.size(), rb = b.size();
  Dims shape;
  if (!BroadcastBatch(a, ra >= 2 ? ra - 2 : 0, b, rb >= 2 ? rb - 2 : 0, &shape)) return false;
  if (ra >= 2) shape.push_back(a[ra - 2]);
  if (rb >= 2) shape.push_back(b[rb - 1]);
  *out = shape;
  return true;
}

// The matmul family's output-shape rules (shape_rule.h): source @ second; ger's outer product
// [source's, second's]; addbmm's batch of products summed over the batch, [M, N].
inline bool MatmulRule(const ShapeArgs& args, Dims* shape) {
  return args.second != nullptr && MatmulShape(*shape, *args.second, shape);
}

inline bool OuterRule(const ShapeArgs& args, Dims* shape) {
  if (args.second == nullptr || shape->empty() || args.second->empty()) return false;
  *shape = Dims{(*shape)[0], (*args.second)[0]};
  return true;
}

inline bool BatchSumRule(const ShapeArgs& args, Dims* shape) {
  if (args.second == nullptr || shape->size() < 2 || args.second->size() < 2) return false;
  *shape = Dims{(*shape)[shape->size() - 2], args.second->back()};
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_MATMUL_SHAPE_H_
