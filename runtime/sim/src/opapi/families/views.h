// Views and element moves for the data-movement families (shape.cpp, index.cpp): a new view of a
// tensor is a TensorRef with another first element, shape and strides (no element is touched),
// and every result is one or more CopyElements from a view of the inputs to a view of the output.
//
// A copy between views of the same dtype moves bits (BFLOAT16, FLOAT16, NaN payloads and
// complex values arrive unchanged, as PyTorch's copies do); between dtypes it converts through
// the narrowest compute type that holds both exactly (int64 between integers, float between
// FLOAT/FLOAT16/BFLOAT16, double otherwise, complex for complex sources), as PyTorch's casts do.
// Views are not checked here: they are derived from tensors FamilyWork::Run has checked.
#ifndef ACLNN_SIM_OPAPI_FAMILIES_VIEWS_H_
#define ACLNN_SIM_OPAPI_FAMILIES_VIEWS_H_

#include <cstdint>
#include <functional>

#include "opapi/families/family.h"

namespace aclsim {

// `dims` with `value` inserted before position `at`, or with position `at` removed.
Dims InsertedAt(const Dims& dims, int64_t at, int64_t value);
Dims RemovedAt(const Dims& dims, int64_t at);

// Dimension `dim` cut to [start, start + length).
TensorRef Narrow(const TensorRef& t, int64_t dim, int64_t start, int64_t length);
// Dimension `dim` cut to start, start + step, ... (`length` elements; step > 0).
TensorRef StepSlice(const TensorRef& t, int64_t dim, int64_t start, int64_t length, int64_t step);
// Dimension `dim` fixed at `index` and removed.
TensorRef SelectDim(const TensorRef& t, int64_t dim, int64_t index);
// Dimension `dim` read backwards.
TensorRef Flipped(const TensorRef& t, int64_t dim);
// A dimension of extent 1 and stride 0 inserted before `dim`.
TensorRef Unsqueezed(const TensorRef& t, int64_t dim);
// `t` broadcast to `shape` (leading dimensions added, extents of 1 repeated with stride 0);
// the caller has checked that it broadcasts.
TensorRef BroadcastTo(const TensorRef& t, const Dims& shape);
// The broadcast of two shapes (NumPy's rule, aclnn_bindgen/shape_rule.h's BroadcastShapes); false when
// they do not broadcast.
bool BroadcastShape(const Dims& a, const Dims& b, Dims* out);
// A dense row-major tensor of `dtype` over `data`.
TensorRef DenseRef(void* data, aclDataType dtype, const Dims& shape);

// Whether elements of `from` convert to `to` (both dtypes with a storage type in the engine;
// a complex value into a real dtype keeps its real part, as PyTorch's copy_ does).
bool CopyConvertible(aclDataType from, aclDataType to);
// Whether the engine moves elements of `dtype` (it has a storage type for it).
inline bool Moves(aclDataType dtype) { return CopyConvertible(dtype, dtype); }
// Whether `dtype` holds integers or booleans (a scalar converts into it exactly then).
inline bool Integral(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_DOUBLE: case ACL_COMPLEX64: case ACL_COMPLEX128:
      return false;
    default:
      return true;
  }
}
// dst = src element by element (equal shapes; src may have stride 0 where it is broadcast).
// Multithreaded for large copies.
void CopyElements(const TensorRef& src, const TensorRef& dst);
// Every element of dst = the scalar (`real` for floating dtypes, `integer` for integral ones and
// BOOL, where `integral` says the scalar is an integer: it is converted exactly then).
void FillElements(const TensorRef& dst, double real, int64_t integer, bool integral);
// One element of `dtype` holding the scalar (as FillElements converts it) in `bits`.
void ScalarBits(aclDataType dtype, double real, int64_t integer, bool integral, unsigned char bits[16]);
// fn(i, address) for every element of t, i its row-major position; in parallel when large.
void ForEachElement(const TensorRef& t, const std::function<void(int64_t, char*)>& fn);
// Every element of dst = the element of `value` (a view of one element, any dtype), converted.
void FillFrom(const TensorRef& dst, const TensorRef& value);

// A buffer of dst's dtype and shape to compute into, and the copy back: dst itself when it is
// dense, else a scratch buffer (slot `scratch`) copied into dst by Finish().
class DenseTarget {
 public:
  DenseTarget(const TensorRef& dst, int scratch);
  char* data() const { return data_; }
  const TensorRef& ref() const { return ref_; }
  void Finish() const;

 private:
  const TensorRef& dst_;
  TensorRef ref_;
  char* data_;
};

// The values of an integer tensor (an index) as contiguous int64.
const int64_t* IndexValues(const TensorRef& t, int scratch);

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_VIEWS_H_
