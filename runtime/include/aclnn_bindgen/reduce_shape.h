// aclnn-bindgen: a reduction's output shape, the one copy the bindings (the "reduce" rule of an
// output the caller does not pass) and the simulator (the reduce family's planner, which refuses
// an out of another shape) share: the dimensions `dim` names removed, or kept as 1 with keepdim;
// none named (or an empty list) reduces every one, unless noop_with_empty_dims makes an empty list
// reduce none.
#ifndef ACLNN_BINDGEN_REDUCE_SHAPE_H_
#define ACLNN_BINDGEN_REDUCE_SHAPE_H_

#include <cstdint>

#include "aclnn_bindgen/shape_rule.h"

namespace aclnn_bindgen {

// What is wrong with a reduction's dimensions; kReduceOk when nothing is.
enum ReduceProblem {
  kReduceOk,
  kReduceOutOfRange,  // a dimension outside [-rank, rank) (a 0-d tensor: [-1, 1))
  kReduceRepeated,    // a dimension named twice
  kReduceRank,        // more than 64 dimensions, which the mask cannot hold
};

// The dimensions of a `rank`-d source that `dims` (null: none given) reduces, as a mask;
// `culprit` receives the dimension at fault.
inline ReduceProblem ReducedMask(int64_t rank, const Dims* dims, bool noop, uint64_t* mask, int64_t* culprit) {
  if (rank > 64) return kReduceRank;
  const uint64_t every = rank == 0 ? 0 : (rank == 64 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1);
  *mask = 0;
  if (dims == nullptr || dims->empty()) {
    *mask = dims != nullptr && noop ? 0 : every;
    return kReduceOk;
  }
  const int64_t extent = rank > 1 ? rank : 1;
  for (int64_t d : *dims) {
    *culprit = d;
    if (d < -extent || d >= extent) return kReduceOutOfRange;
    if (rank == 0) continue;
    const int64_t wrapped = d < 0 ? d + extent : d;
    if (*mask >> wrapped & 1) return kReduceRepeated;
    *mask |= uint64_t{1} << wrapped;
  }
  return kReduceOk;
}

// `source` with the dimensions of `mask` removed, or kept as 1 with keepdim.
inline Dims ReducedShape(const Dims& source, uint64_t mask, bool keepdim) {
  Dims out;
  for (size_t d = 0; d < source.size(); ++d) {
    if (!(mask >> d & 1)) out.push_back(source[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// The reduce rule (shape_rule.h). Dimensions that do not read, or that the library refuses, give
// no shape: the call reaches the library, which says why (161002).
inline bool ReduceRule(const ShapeArgs& args, Dims* shape) {
  if (args.dims.unreadable()) return false;
  uint64_t mask = 0;
  int64_t culprit = 0;
  if (ReducedMask(static_cast<int64_t>(shape->size()), args.dims.read() ? &args.dims.values : nullptr, args.noop, &mask,
                  &culprit) != kReduceOk) {
    return false;
  }
  *shape = ReducedShape(*shape, mask, args.keepdim);
  return true;
}

}  // namespace aclnn_bindgen

#endif  // ACLNN_BINDGEN_REDUCE_SHAPE_H_
