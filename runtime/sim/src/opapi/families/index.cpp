// The indexing family (gather, index_select, embedding, take, scatter/scatter_add and their
// value and in-place forms, one_hot, topk, sort, argsort, gather_v2 (with batch dimensions),
// gather_nd, scatter_reduce, index_copy, index_add); the select family (where, masked_fill) is select.cpp.
//
// Gathers and scatters move elements bit for bit (views.h); scatters with a reduction (add,
// multiply) combine in the family's compute type (float for FLOAT16/BFLOAT16, as the NPU), an
// element that several indices reach rounded to its dtype once, as PyTorch's scatters do. An
// index outside its dimension is read in phase 2 (it lives in device memory) and faults there as
// the device's kernel would, before anything is written, with a message naming the parameter,
// the value and the extent; phase 1 rejects what the page forbids in the shapes and attributes.
// Sorts are stable (equal keys keep their order, NaN sorts above every number, as PyTorch's
// sort), so that values and indices are one defined answer; top-k takes the head of that order.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/radix_sort.h"
#include "opapi/families/views.h"
#include "opapi/rules.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

using F = IndexFamily;

enum Slot { kSelf, kIndex, kSrc, kOut, kIndicesOut, kOn, kOff, kSlots };

aclnnStatus CheckShape(const Call& call, const FamilySpec& family, int role, const TensorDesc& t, const Dims& shape,
                       const char* rule) {
  if (t.view == shape) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role, "shape " + DimsText(t.view) + " is not " + DimsText(shape) + " (" + rule + ")");
}

// Offset (in elements) of position `i` (row-major over `shape`) in a tensor of `strides`, with
// dimension `dim` replaced by `at` (dim < 0: none replaced).
int64_t OffsetOf(int64_t i, const Dims& shape, const Dims& strides, int64_t dim, int64_t at) {
  int64_t offset = 0;
  for (int64_t d = static_cast<int64_t>(shape.size()); d-- > 0;) {
    const int64_t coordinate = i % shape[d];
    i /= shape[d];
    offset += (d == dim ? at : coordinate) * strides[d];
  }
  return offset;
}

class IndexWork final : public FamilyWork {
 public:
  IndexWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int64_t dim = 0;
  int64_t extent = 0;   // the indexed dimension's extent (indices must lie in [0, extent))
  int reduce = 0;       // scatter: 0 replace, 1 add, 2 multiply; tf_scatter: its combine option
  bool has_value = false;  // scatter_value: the scalar instead of src
  double real = 0;
  int64_t integer = 0;
  bool integral = false;
  int64_t k = 0;
  bool descending = false;
  bool in_place = false;
  int64_t axis = 0, classes = 0;
  int64_t batch_dims = 0;       // gather_v2: leading dimensions that are batches of self and the index
  bool negative = false;        // take, gather_v2, gather_nd: a negative index counts from the end
  bool include_self = true;     // scatter_reduce: self's value takes part in the reduction
  double alpha = 1;             // index_add: the factor of the source
  bool nd_form = false;         // tf_scatter: TF's scatter_nd form (rows of positions in index's last dimension)
  // " (aclnnX.md:N)": where the page states the index's range (its error row, or its own row's
  // "取值范围[-self.shape[dim], ...]" / "不支持负索引"), cited by a fault on an index outside it.
  std::string index_rule;

 private:
  aclnnStatus Fault(const char* param, int64_t position, int64_t value, aclnnStatus status = ACLNN_ERR_INNER) const {
    return Fail(status, std::string(api_) + ": " + param + ": element " + std::to_string(position) + " is " +
                            std::to_string(value) + ", outside [" + std::to_string(negative ? -extent : 0) + ", " +
                            std::to_string(extent) + ") (the device's kernel faults on an index out of range)" + index_rule);
  }

  // The index tensor's values, every one checked against [0, extent), or [-extent, extent) where
  // negative ones count from the end (`negative`: then the values wrapped into [0, extent)).
  aclnnStatus Indices(const int64_t** values, aclnnStatus negative_status = ACLNN_ERR_INNER) {
    const TensorRef& index = tensor(kIndex);
    const int64_t* v = IndexValues(index, 4);
    const int64_t n = index.numel();
    if (negative) {
      wrapped_.assign(v, v + n);
      for (int64_t& value : wrapped_) value += value < 0 && value >= -extent ? extent : 0;
    }
    const int64_t* checked = negative ? wrapped_.data() : v;
    for (int64_t i = 0; i < n; ++i) {
      if (checked[i] < 0 || checked[i] >= extent) {
        return Fault(index.name, i, v[i], v[i] < 0 ? negative_status : ACLNN_ERR_INNER);
      }
    }
    *values = checked;
    return ACLNN_SUCCESS;
  }
  std::vector<int64_t> wrapped_;  // Indices' values where negative ones count from the end

  aclnnStatus Compute() override {
    switch (op_) {
      case F::Op::kGather: return Gather();
      case F::Op::kIndexSelect: case F::Op::kEmbedding: return Select();
      case F::Op::kTake: return Take();
      case F::Op::kScatter: case F::Op::kScatterAdd: return Scatter();
      case F::Op::kOneHot: return OneHot();
      case F::Op::kTopk: case F::Op::kSort: case F::Op::kArgsort: case F::Op::kSortWithIndex: return Sort();
      case F::Op::kGatherV2: return GatherV2();
      case F::Op::kGatherNd: return GatherNd();
      case F::Op::kScatterReduce: return reduce == 0 ? Scatter() : Reduce();
      case F::Op::kIndexCopy: return IndexCopy();
      case F::Op::kIndexAdd: return Reduce();
      case F::Op::kTfScatter: return nd_form ? ScatterNd() : Reduce();
      case F::Op::kScatterNd: return ScatterNd();
      default: return ACLNN_SUCCESS;
    }
  }

  aclnnStatus Gather() {
    const int64_t* idx = nullptr;  // set by Indices on success
    if (aclnnStatus s = Indices(&idx)) return s;
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndex);
    const DenseTarget target(tensor(kOut), 5);
    const size_t size = DTypeSize(self.dtype);
    const int64_t n = index.numel();
    char* out = target.data();
    auto body = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t offset = OffsetOf(i, index.shape, self.strides, dim, idx[i]);
        std::memcpy(out + static_cast<size_t>(i) * size, self.first + offset * static_cast<int64_t>(size), size);
      }
    };
    Spread(n, body);
    target.Finish();
    return ACLNN_SUCCESS;
  }

  // index_select and embedding: slice idx[k] of self along dim into slice k of out (embedding:
  // rows of the 2-D weight to rows of out, indices of any shape flattened).
  aclnnStatus Select() {
    const int64_t* idx = nullptr;  // set by Indices on success
    if (aclnnStatus s = Indices(&idx, op_ == F::Op::kEmbedding ? ACLNN_ERR_PARAM_INVALID : ACLNN_ERR_INNER)) return s;
    const TensorRef& self = tensor(kSelf);
    const int64_t n = tensor(kIndex).numel();
    if (self.rank() == 0) {  // a zero-dimensional self: index [0] selects it
      CopyElements(BroadcastTo(self, tensor(kOut).shape), tensor(kOut));
      return ACLNN_SUCCESS;
    }
    const DenseTarget target(tensor(kOut), 5);
    TensorRef out = target.ref();
    if (op_ == F::Op::kEmbedding) out = DenseRef(target.data(), out.dtype, Dims{n, self.shape[1]});
    auto body = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) CopyElements(SelectDim(self, dim, idx[i]), SelectDim(out, dim, i));
    };
    const int64_t slice = self.numel() / std::max<int64_t>(self.shape[dim], 1);
    if (n * slice >= (1 << 16) && n >= 2) {
      const int64_t tasks = std::min<int64_t>(n, ParallelThreads() * 4);
      ParallelFor(tasks, [&](int64_t t) { body(n * t / tasks, n * (t + 1) / tasks); });
    } else {
      body(0, n);
    }
    target.Finish();
    return ACLNN_SUCCESS;
  }

  aclnnStatus Take() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndex);
    const int64_t n = index.numel();
    std::vector<int64_t> wrapped;  // take accepts negative indices (from the end)
    if (aclnnStatus s = Wrapped(index, &wrapped, &extent, 1)) return s;
    const int64_t* idx = wrapped.data();
    const DenseTarget target(tensor(kOut), 5);
    const size_t size = DTypeSize(self.dtype);
    char* out = target.data();
    Spread(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t offset = OffsetOf(idx[i], self.shape, self.strides, -1, 0);
        std::memcpy(out + static_cast<size_t>(i) * size, self.first + offset * static_cast<int64_t>(size), size);
      }
    });
    target.Finish();
    return ACLNN_SUCCESS;
  }

  // out = self, then out[... idx ...] (=, +=, *=) src[...] (or the scalar) in the index's order.
  aclnnStatus Scatter() {
    const int64_t* idx = nullptr;  // set by Indices on success
    if (aclnnStatus s = Indices(&idx)) return s;
    const TensorRef& self = tensor(kSelf);
    const TensorRef& out = tensor(kOut);
    const TensorRef& index = tensor(kIndex);
    if (!in_place) CopyElements(self, out);
    const int64_t n = index.numel();
    const size_t size = DTypeSize(out.dtype);
    alignas(16) unsigned char value[16];
    if (has_value) ScalarBits(out.dtype, real, integer, integral, value);
    const TensorRef& src = tensor(kSrc);
    if (reduce == 0) {
      for (int64_t i = 0; i < n; ++i) {
        char* to = out.first + OffsetOf(i, index.shape, out.strides, dim, idx[i]) * static_cast<int64_t>(size);
        const char* from = has_value ? reinterpret_cast<const char*>(value)
                                     : src.first + OffsetOf(i, index.shape, src.strides, -1, 0) * static_cast<int64_t>(size);
        std::memcpy(to, from, size);
      }
      return ACLNN_SUCCESS;
    }
    ComputeType type;
    FamilyComputeType(out.dtype, true, &type);
    if (out.dtype == ACL_COMPLEX64 || out.dtype == ACL_COMPLEX128) type = ComputeType::kComplex128;
    const LoadFn load = Loader(type, out.dtype);
    const StoreFn store = Storer(type, out.dtype);
    // The output's elements by row-major position: their running values in the compute type,
    // and whether an index has reached them yet (scratch 5 and 6: the indices are in 4).
    const int64_t count = out.numel();
    Dims dense(out.shape.size(), 1);
    for (size_t d = dense.size(); d-- > 1;) dense[d - 1] = dense[d] * out.shape[d];
    unsigned char* reached = static_cast<unsigned char*>(Scratch(6, static_cast<size_t>(std::max<int64_t>(count, 1))));
    std::memset(reached, 0, static_cast<size_t>(count));
    WithComputeValue(type, [&](auto zero) {
      using T = decltype(zero);
      T* running = static_cast<T*>(Scratch(5, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T)));
      T operand{};
      if (has_value) load(reinterpret_cast<const char*>(value), 0, 1, &operand);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t at = OffsetOf(i, index.shape, dense, dim, idx[i]);
        if (!reached[at]) {
          load(out.first + OffsetOf(i, index.shape, out.strides, dim, idx[i]) * static_cast<int64_t>(size), 0, 1,
               &running[at]);
          reached[at] = 1;
        }
        if (!has_value) load(src.first + OffsetOf(i, index.shape, src.strides, -1, 0) * static_cast<int64_t>(size), 0, 1, &operand);
        running[at] = Combine(running[at], operand);
      }
      for (int64_t i = 0; i < n; ++i) {  // each reached element stored once
        const int64_t at = OffsetOf(i, index.shape, dense, dim, idx[i]);
        if (!reached[at]) continue;
        store(&running[at], out.first + OffsetOf(i, index.shape, out.strides, dim, idx[i]) * static_cast<int64_t>(size), 0, 1);
        reached[at] = 0;
      }
    });
    return ACLNN_SUCCESS;
  }

  template <typename T>
  T Combine(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) {
      return reduce == 1 ? (a || b) : (a && b);
    } else {
      return reduce == 1 ? a + b : a * b;
    }
  }

  template <typename Fn>
  static void WithComputeValue(ComputeType type, Fn&& fn) {
    switch (type) {
      case ComputeType::kFloat64: fn(double{}); break;
      case ComputeType::kInt64: fn(int64_t{}); break;
      case ComputeType::kComplex64: fn(std::complex<float>{}); break;
      case ComputeType::kComplex128: fn(std::complex<double>{}); break;
      default: fn(float{}); break;
    }
  }

  // out = off everywhere, then on at (outer, class, inner) for each in-range class of self;
  // a class outside [0, numClasses) leaves its row off (the page: "编码成全offValue").
  aclnnStatus OneHot() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& out = tensor(kOut);
    const DenseTarget target(out, 5);
    FillFrom(target.ref(), tensor(kOff));
    alignas(16) unsigned char on[16];
    CopyElements(BroadcastTo(Scalar(tensor(kOn)), Dims()), DenseRef(on, out.dtype, Dims()));
    const int64_t* classes_of = IndexValues(self, 4);
    int64_t inner = 1;
    for (int64_t d = axis; d < self.rank(); ++d) inner *= self.shape[d];
    const int64_t n = self.numel();
    const size_t size = DTypeSize(out.dtype);
    char* data = target.data();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = classes_of[i];
      if (c < 0 || c >= classes) continue;
      const int64_t o = i / inner, r = i % inner;
      std::memcpy(data + static_cast<size_t>((o * classes + c) * inner + r) * size, on, size);
    }
    target.Finish();
    return ACLNN_SUCCESS;
  }

  static TensorRef Scalar(const TensorRef& t) {
    TensorRef one = t;
    one.shape.clear();
    one.strides.clear();
    return one;
  }

  // Each line along dim: its keys in the compute type, their positions sorted stably (descending:
  // larger first; NaN above every number, or first either way for sort_with_index), the first k
  // kept; sort_with_index's indices are index's elements at those positions.
  aclnnStatus Sort() {
    const TensorRef& self = tensor(kSelf);
    const int64_t rank = self.rank();
    int64_t order[16];
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != dim) order[at++] = d;
    }
    order[at] = dim;
    const int64_t n = rank == 0 ? 1 : self.shape[dim];
    const int64_t lines = n == 0 ? 0 : self.numel() / n;
    if (lines == 0 || k == 0) return ACLNN_SUCCESS;
    if (n > int64_t{UINT32_MAX}) {  // radix_sort.h holds a position in 32 bits
      return Fail(ACLNN_ERR_INNER, std::string(api_) + ": a line of " + std::to_string(n) +
                                       " elements along dim: the simulator sorts lines of at most 2^32 - 1");
    }
    const TensorRef moved = rank == 0 ? self : self.Permuted(order);
    ComputeType type;
    FamilyComputeType(self.dtype, true, &type);
    const bool values_wanted = tensor(kOut).dtype != ACL_DT_UNDEFINED;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      const T* keys = static_cast<const T*>(ContiguousAs(moved, type, 0));
      T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(lines * k) * sizeof(T)));
      int64_t* indices = static_cast<int64_t*>(Scratch(2, static_cast<size_t>(lines * k) * sizeof(int64_t)));
      const bool given = op_ == F::Op::kSortWithIndex;
      const int64_t* labels =
          given ? static_cast<const int64_t*>(ContiguousAs(rank == 0 ? tensor(kIndex) : tensor(kIndex).Permuted(order),
                                                           ComputeType::kInt64, 3))
                : nullptr;
      // (key, position) pairs radix-sorted (radix_sort.h): the key's integer order is the
      // comparison's, NaN above every number (first either way for sort_with_index), the
      // complement's descending, and the sort stable, so that ties keep their positions.
      using Key = RadixKey<T>;
      using Entry = RadixEntry<Key>;
      const bool nan_lowest = given && !descending;
      auto fill = [&](int64_t l, Entry* entries) {
        const T* x = keys + l * n;
        for (int64_t i = 0; i < n; ++i) {
          const Key key = OrderedKey(x[i], nan_lowest);
          entries[i] = Entry{descending ? static_cast<Key>(~key) : key, static_cast<uint32_t>(i)};
        }
      };
      auto finish = [&](int64_t l, const Entry* sorted) {
        const T* x = keys + l * n;
        for (int64_t j = 0; j < k; ++j) {
          indices[l * k + j] = given ? labels[l * n + sorted[j].at] : sorted[j].at;
          values[l * k + j] = x[sorted[j].at];
        }
      };
      // A long line's passes are split over the pool; many lines go to the pool a group each.
      const bool one_long_line = lines == 1 && n >= (1 << 16) && ParallelThreads() > 1;
      // The pairs and the passes' second buffer: the running thread's scratch (a fresh 16 MB a call
      // for 1M elements cost more in page faults than the sort).
      auto sort_lines = [&](int64_t first, int64_t last) {
        Entry* entries = static_cast<Entry*>(Scratch(4, static_cast<size_t>(n) * sizeof(Entry)));
        Entry* spare = static_cast<Entry*>(Scratch(5, static_cast<size_t>(n) * sizeof(Entry)));
        for (int64_t l = first; l < last; ++l) {
          fill(l, entries);
          finish(l, RadixSort(entries, spare, n, one_long_line ? 4 * ParallelThreads() : 1));
        }
      };
      if (!one_long_line && lines >= 2 && lines * n >= (1 << 14)) {
        const int64_t tasks = std::min<int64_t>(lines, ParallelThreads() * 4);
        ParallelFor(tasks, [&](int64_t t) { sort_lines(lines * t / tasks, lines * (t + 1) / tasks); });
      } else {
        sort_lines(0, lines);
      }
      if (values_wanted) ScatterFrom(values, type, rank == 0 ? tensor(kOut) : tensor(kOut).Permuted(order));
      if (tensor(kIndicesOut).dtype != ACL_DT_UNDEFINED) {
        ScatterFrom(indices, ComputeType::kInt64, rank == 0 ? tensor(kIndicesOut) : tensor(kIndicesOut).Permuted(order));
      }
    });
    return ACLNN_SUCCESS;
  }

  // The index's values with negative ones counted from the end (where allowed), every one checked
  // against [0, extent) (`extent` per position: gather_nd's dimensions differ).
  aclnnStatus Wrapped(const TensorRef& index, std::vector<int64_t>* values, const int64_t* extents, int64_t period) const {
    const int64_t* raw = IndexValues(index, 4);
    const int64_t n = index.numel();
    values->assign(raw, raw + n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t extent = extents[i % period];
      int64_t& v = (*values)[static_cast<size_t>(i)];
      if (negative && v < 0 && v >= -extent) v += extent;
      if (v < 0 || v >= extent) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + index.name + ": element " + std::to_string(i) + " is " +
                                         std::to_string(raw[i]) + ", outside [" + std::to_string(negative ? -extent : 0) +
                                         ", " + std::to_string(extent) + ") (the device's kernel faults on an index out of range)" +
                                         index_rule);
      }
    }
    return ACLNN_SUCCESS;
  }

  // out[b..., o..., j..., r...] = self[b..., o..., index[b..., j...], r...]: self's dimensions before
  // dim are the batch (the index's leading batch_dims too) and outer ones, those after it inner.
  aclnnStatus GatherV2() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndex);
    std::vector<int64_t> idx;
    if (aclnnStatus s = Wrapped(index, &idx, &extent, 1)) return s;
    int64_t batch = 1, outer = 1, inner = 1, per_batch = 1;
    for (int64_t d = 0; d < batch_dims; ++d) batch *= self.shape[d];
    for (int64_t d = batch_dims; d < dim; ++d) outer *= self.shape[d];
    for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= self.shape[d];
    for (int64_t d = batch_dims; d < index.rank(); ++d) per_batch *= index.shape[d];
    const DenseTarget target(tensor(kOut), 5);
    const size_t size = DTypeSize(self.dtype);
    char* out = target.data();
    const int64_t n = batch * outer * per_batch * inner;
    Spread(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t r = i % inner, j = i / inner % per_batch, o = i / inner / per_batch % outer;
        const int64_t b = i / inner / per_batch / outer;
        const int64_t at = ((b * outer + o) * extent + idx[static_cast<size_t>(b * per_batch + j)]) * inner + r;
        std::memcpy(out + static_cast<size_t>(i) * size,
                    self.first + OffsetOf(at, self.shape, self.strides, -1, 0) * static_cast<int64_t>(size), size);
      }
    });
    target.Finish();
    return ACLNN_SUCCESS;
  }

  // out[t..., r...] = self[index[t..., 0], ..., index[t..., q-1], r...], q the index's last extent.
  // scatter_nd, and tf_scatter's nd form: out = self, then each row of the index's last dimension (q
  // positions in self's leading dimensions) takes src's slice of the remaining dimensions, in order:
  // replaced (reduce 0, the last of repeated positions wins) or added (reduce 1).
  aclnnStatus ScatterNd() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndex);
    const int64_t q = index.shape.back();
    std::vector<int64_t> idx;
    if (aclnnStatus s = Wrapped(index, &idx, self.shape.data(), std::max<int64_t>(q, 1))) return s;
    int64_t inner = 1;
    for (int64_t d = q; d < self.rank(); ++d) inner *= self.shape[d];
    const int64_t rows = q == 0 ? 0 : index.numel() / q;
    const int64_t numel = self.numel();
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(T)));
      T* sources = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(rows * inner, 1)) * sizeof(T)));
      GatherAs(self, type, values);
      GatherAs(tensor(kSrc), type, sources);
      for (int64_t t = 0; t < rows; ++t) {
        int64_t at = 0;
        for (int64_t d = 0; d < q; ++d) at = at * self.shape[d] + idx[static_cast<size_t>(t * q + d)];
        T* dst = values + at * inner;
        const T* src = sources + t * inner;
        for (int64_t r = 0; r < inner; ++r) dst[r] = reduce == 1 ? static_cast<T>(dst[r] + src[r]) : src[r];
      }
      ScatterFrom(values, type, tensor(kOut));
    });
    return ACLNN_SUCCESS;
  }

  aclnnStatus GatherNd() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kIndex);
    const int64_t q = index.shape.back();
    std::vector<int64_t> idx;
    if (aclnnStatus s = Wrapped(index, &idx, self.shape.data(), std::max<int64_t>(q, 1))) return s;
    int64_t inner = 1;
    for (int64_t d = q; d < self.rank(); ++d) inner *= self.shape[d];
    const int64_t rows = q == 0 ? index.numel() : index.numel() / q;
    const DenseTarget target(tensor(kOut), 5);
    const size_t size = DTypeSize(self.dtype);
    char* out = target.data();
    Spread(rows * inner, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t t = i / inner, r = i % inner;
        int64_t at = 0;
        for (int64_t d = 0; d < q; ++d) at = at * self.shape[d] + idx[static_cast<size_t>(t * q + d)];
        std::memcpy(out + static_cast<size_t>(i) * size,
                    self.first + OffsetOf(at * inner + r, self.shape, self.strides, -1, 0) * static_cast<int64_t>(size),
                    size);
      }
    });
    target.Finish();
    return ACLNN_SUCCESS;
  }

  // out = self, then out's slice idx[i] along dim = the source's slice i (in the index's order).
  aclnnStatus IndexCopy() {
    const int64_t* idx = nullptr;  // set by Indices on success
    if (aclnnStatus s = Indices(&idx)) return s;
    const TensorRef& out = tensor(kOut);
    if (!in_place) CopyElements(tensor(kSelf), out);
    const int64_t n = tensor(kIndex).numel();
    const TensorRef& src = tensor(kSrc);
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(out.rank() == 0 ? src : SelectDim(src, dim, i), out.rank() == 0 ? out : SelectDim(out, dim, idx[i]));
    }
    return ACLNN_SUCCESS;
  }

  // The reductions into out = self in the compute type: scatter_reduce (sum, product, max, min,
  // mean of the source's elements at each index position, with or without self's value) and
  // index_add (self + alpha * the source's slices, summed at repeated positions).
  aclnnStatus Reduce() {
    const int64_t* idx = nullptr;  // set by Indices on success
    if (aclnnStatus s = Indices(&idx)) return s;
    const TensorRef& self = tensor(kSelf);
    const TensorRef& out = tensor(kOut);
    const TensorRef& index = tensor(kIndex);
    const TensorRef& src = tensor(kSrc);
    const int64_t numel = self.numel();
    // tf_scatter walks its source as index_add does along dimension 0 (one slice per index element).
    const bool add = op_ == F::Op::kIndexAdd || op_ == F::Op::kTfScatter;
    // Positions: scatter_reduce's i-th index element at its own coordinates with dim replaced;
    // index_add's i-th (outer, k, inner) source element at (outer, idx[k], inner).
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= self.shape[d];
    for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= self.shape[d];
    const int64_t count = add ? src.numel() : index.numel();
    const int64_t picked = add ? index.numel() : 0;
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      T* values = static_cast<T*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(numel, 1)) * sizeof(T)));
      T* sources = static_cast<T*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T)));
      GatherAs(self, type, values);
      GatherAs(add ? src : Narrowed(src, index.shape), type, sources);
      std::vector<int64_t> hits(static_cast<size_t>(numel), 0);
      for (int64_t i = 0; i < count; ++i) {
        int64_t at;
        if (add) {
          const int64_t r = i % inner, k = i / inner % picked, o = i / inner / picked;
          at = (o * extent + idx[k]) * inner + r;
        } else {
          at = OffsetOf(i, index.shape, ContiguousStrides(self.shape), dim, idx[i]);
        }
        T& v = values[at];
        const T s = add ? static_cast<T>(alpha) * sources[i] : sources[i];
        const bool first = hits[static_cast<size_t>(at)]++ == 0 && !include_self && !add;
        v = first ? s : Combined(v, s);
      }
      if (!add && reduce == 5) {  // mean: the sum over the values taken (self's counts as one)
        for (int64_t at = 0; at < numel; ++at) {
          const int64_t n = hits[static_cast<size_t>(at)] + (include_self ? 1 : 0);
          if (hits[static_cast<size_t>(at)] == 0) continue;
          if constexpr (std::is_integral<T>::value) {
            values[at] = values[at] / n - ((values[at] % n != 0) && ((values[at] < 0) != (n < 0)) ? 1 : 0);
          } else {
            values[at] = values[at] / static_cast<T>(n);
          }
        }
      }
      ScatterFrom(values, type, out);
    });
    return ACLNN_SUCCESS;
  }

  // The source's elements at the index's positions: its leading block of the index's shape.
  static TensorRef Narrowed(const TensorRef& t, const Dims& shape) {
    TensorRef part = t;
    part.shape = shape;
    return part;
  }

  static Dims ContiguousStrides(const Dims& shape) {
    Dims strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return strides;
  }

  // scatter_reduce's (and index_add's sum) combination of the value so far and a source element;
  // NaN wins a max or min, as PyTorch's scatter_reduce.
  template <typename T>
  T Combined(T a, T b) const {
    if (op_ == F::Op::kIndexAdd) return a + b;
    switch (reduce) {
      case 2: return a * b;
      case 6: return a / b;  // tf_scatter's divide (floating types only: planned so)
      case 3: case 4:
        if constexpr (std::is_floating_point<T>::value) {
          if (a != a) return a;
          if (b != b) return b;
        }
        return (reduce == 3) == (b > a) ? b : a;
      default: return a + b;  // sum, and mean's sum
    }
  }

  template <typename Fn>
  static void Spread(int64_t n, Fn&& body) {
    if (n < (1 << 16)) {
      body(int64_t{0}, n);
      return;
    }
    const int64_t tasks = ParallelThreads() * 4;
    ParallelFor(tasks, [&](int64_t t) { body(n * t / tasks, n * (t + 1) / tasks); });
  }

  int op_;
};

}  // namespace

aclnnStatus PlanIndex(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  if (!self) return Decline(call, work, "without its input");
  const int64_t rank = static_cast<int64_t>(self->view.size());
  if (rank > 16) return Decline(call, work, "for more than 16 dimensions");
  std::unique_ptr<IndexWork> made(new IndexWork(call.spec.name, op));
  IndexWork& w = *made;
  const TensorDesc* index = RoleTensor(call, family, F::Role::kIndex);
  // What the index's page says of negative values (ParamSpec::negative_indices): they count from the end
  // (aclnnGather's "取值范围[-self.shape[dim], self.shape[dim] - 1]"), or they are not supported
  // (aclnnTake's "不支持负索引": a device's kernel reads outside the tensor, so they fault); the ops
  // below that count them from the end by their own rule do so only where the page is silent.
  const int said_negative = index ? call.spec.params[family.roles[F::Role::kIndex]].negative_indices : 0;
  w.negative = said_negative > 0;
  w.index_rule = RowCitation(call, family, RowKind::kValue, F::Role::kIndex);
  if (w.index_rule.empty() && said_negative) w.index_rule = Where(call.spec, call.spec.params[family.roles[F::Role::kIndex]].line);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  const char* self_name = RoleName(call, family, F::Role::kSelf);
  w.tensor(kSelf).Set(self_name, *self);

  switch (op) {
    case F::Op::kGather: {
      if (!index || !out) return Decline(call, work, "without its index or output");
      if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &w.dim)) return s;
      if (static_cast<int64_t>(index->view.size()) != rank) {  // "维度数需要与self一致": PyTorch's 0-d self with a 1-d index too
        return RejectByParamRow(call, family, F::Role::kIndex, "rank " + std::to_string(index->view.size()) + " differs from " +
                                                               self_name + "'s rank " + std::to_string(rank));
      }
      for (int64_t d = 0; d < rank; ++d) {
        if (d != w.dim && index->view[d] > self->view[d]) {
          return RejectInvalid(call, family, F::Role::kIndex, "shape " + DimsText(index->view) + " exceeds " + self_name +
                                                            "'s shape " + DimsText(self->view) + " in dimension " + std::to_string(d));
        }
      }
      w.extent = rank == 0 ? 1 : self->view[w.dim];
      if (w.extent == 0 && index->numel() > 0) {
        return RejectInvalid(call, family, F::Role::kSelf, "dimension " + std::to_string(w.dim) + " is empty; a non-empty index cannot gather from it");
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, index->view, "the index's shape")) return s;
      break;
    }
    case F::Op::kIndexSelect: case F::Op::kEmbedding: {
      if (!index || !out) return Decline(call, work, "without its index or output");
      Dims shape;
      if (op == F::Op::kEmbedding) {
        if (rank != 2) return RejectInvalid(call, family, F::Role::kSelf, "rank " + std::to_string(rank) + " is not 2");
        w.dim = 0;
        shape = index->view;
        shape.push_back(self->view[1]);
      } else {
        if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &w.dim)) return s;
        if (index->view.size() > 1) {
          return RejectInvalid(call, family, F::Role::kIndex, "rank " + std::to_string(index->view.size()) + " is above 1");
        }
        shape = self->view;
        if (rank > 0) shape[w.dim] = index->numel();
        else if (index->numel() != 1) return RejectInvalid(call, family, F::Role::kIndex, "must have one element for a zero-dimensional input");
      }
      w.extent = rank == 0 ? 1 : self->view[w.dim];
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape,
                                     op == F::Op::kEmbedding ? "the indices' shape and the rows' length" : "the input's shape with the index's length")) {
        return s;
      }
      break;
    }
    case F::Op::kTake: {
      if (!index || !out) return Decline(call, work, "without its index or output");
      w.extent = self->numel();
      w.negative = said_negative >= 0;
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, index->view, "the index's shape")) return s;
      break;
    }
    case F::Op::kScatter: case F::Op::kScatterAdd: case F::Op::kScatterReduce: {
      if (!index) return Decline(call, work, "without its index");
      if (!out) out = self;  // the in-place form writes its input
      w.in_place = out == self || (out->data == self->data && out->offset == self->offset && out->strides == self->strides);
      if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &w.dim)) return s;
      const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
      const Call::Param* value = RoleParam(call, family, F::Role::kValue);
      if (!src && !value) return Decline(call, work, "without its source");
      if (static_cast<int64_t>(index->view.size()) != rank || (src && static_cast<int64_t>(src->view.size()) != rank)) {
        return RejectInvalid(call, family, F::Role::kIndex, "rank " + std::to_string(index->view.size()) + " differs from " +
                                                          self_name + "'s rank " + std::to_string(rank) +
                                                          (src ? " or from the source's rank " + std::to_string(src->view.size()) : std::string()));
      }
      for (int64_t d = 0; d < rank; ++d) {
        if ((src && index->view[d] > src->view[d]) || (d != w.dim && index->view[d] > self->view[d])) {
          return RejectInvalid(call, family, F::Role::kIndex, "shape " + DimsText(index->view) +
                                                            " exceeds the source's or (outside dim) the input's shape in dimension " +
                                                            std::to_string(d));
        }
      }
      if (src && src->dtype != self->dtype) {
        return RejectInvalid(call, family, F::Role::kSrc, std::string("dtype ") + DTypeName(src->dtype) + " differs from " + self_name +
                                                        "'s " + DTypeName(self->dtype));
      }
      if (out->dtype != self->dtype) {
        return RejectInvalid(call, family, F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " differs from " + self_name +
                                                        "'s " + DTypeName(self->dtype));
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, self->view, "the input's shape")) return s;
      w.reduce = op == F::Op::kScatterAdd ? 1 : static_cast<int>(RoleInt(call, family, F::Role::kReduce, 0));
      if (op == F::Op::kScatterReduce) {
        if (w.reduce < 0 || w.reduce > 5) {
          return RejectInvalid(call, family, F::Role::kReduce, std::to_string(w.reduce) +
                                                             " is none of 0 (replace), 1 (sum), 2 (product), 3 (max), 4 (min), 5 (mean)");
        }
        w.include_self = RoleBool(call, family, F::Role::kIncludeSelf, true);
        if (w.reduce != 0 && !FamilyComputeType(self->dtype, true, &w.type)) {
          return DeclineDtype(call, work, self->dtype);
        }
      } else if (w.reduce < 0 || w.reduce > 2) {
        return RejectInvalid(call, family, F::Role::kReduce, std::to_string(w.reduce) + " is none of 0 (replace), 1 (add), 2 (multiply)");
      }
      w.extent = rank == 0 ? 1 : self->view[w.dim];
      if (src) {
        w.tensor(kSrc).Set(RoleName(call, family, F::Role::kSrc), *src);
      } else {
        w.has_value = true;
        w.real = value->scalar_double;
        w.integer = value->scalar_int;
        w.integral = Integral(value->scalar.dtype);
      }
      if (!Moves(self->dtype)) return DeclineDtype(call, work, self->dtype);
      break;
    }
    case F::Op::kGatherV2: {
      if (!index || !out) return Decline(call, work, "without its index or output");
      if (rank == 0) return RejectInvalid(call, family, F::Role::kSelf, "has no dimension to gather along");
      if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &w.dim)) return s;
      const int64_t index_rank = static_cast<int64_t>(index->view.size());
      w.batch_dims = RoleInt(call, family, F::Role::kBatchDims, 0);
      if (w.batch_dims < 0 || w.batch_dims > std::min(w.dim, index_rank)) {
        return RejectInvalid(call, family, F::Role::kBatchDims, std::to_string(w.batch_dims) + " is outside [0, " +
                                                              std::to_string(std::min(w.dim, index_rank)) + "] (dim and the index's rank)");
      }
      for (int64_t d = 0; d < w.batch_dims; ++d) {
        if (index->view[d] != self->view[d]) {
          return RejectInvalid(call, family, F::Role::kIndex, "batch dimension " + std::to_string(d) + " of shape " +
                                                            DimsText(index->view) + " differs from " + self_name + "'s " +
                                                            DimsText(self->view));
        }
      }
      w.extent = self->view[w.dim];
      w.negative = said_negative >= 0;  // counted from the end, as numpy's take and the pages' examples
      if (w.extent == 0 && index->numel() > 0) {
        return RejectInvalid(call, family, F::Role::kSelf, "dimension " + std::to_string(w.dim) + " is empty; a non-empty index cannot gather from it");
      }
      Dims shape(self->view.begin(), self->view.begin() + w.dim);
      for (int64_t d = w.batch_dims; d < index_rank; ++d) shape.push_back(index->view[d]);
      for (int64_t d = w.dim + 1; d < rank; ++d) shape.push_back(self->view[d]);
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape,
                                     "the input's shape with dim replaced by the index's (after its batch dimensions)")) {
        return s;
      }
      break;
    }
    case F::Op::kGatherNd: {
      if (!index || !out) return Decline(call, work, "without its index or output");
      if (index->view.empty()) return RejectInvalid(call, family, F::Role::kIndex, "has no dimension to hold positions");
      const int64_t q = index->view.back();
      if (q > rank) {
        return RejectInvalid(call, family, F::Role::kIndex, "last dimension " + std::to_string(q) + " exceeds " + self_name +
                                                          "'s rank " + std::to_string(rank));
      }
      w.negative = RoleBool(call, family, F::Role::kNegativeIndex, false);
      Dims shape(index->view.begin(), index->view.end() - 1);
      for (int64_t d = q; d < rank; ++d) shape.push_back(self->view[d]);
      for (int64_t d = 0; d < q; ++d) {
        if (self->view[d] == 0 && index->numel() > 0) {
          return RejectInvalid(call, family, F::Role::kSelf, "dimension " + std::to_string(d) + " is empty; a non-empty index cannot gather from it");
        }
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape,
                                     "the index's shape without its last dimension, then the input's remaining ones")) {
        return s;
      }
      break;
    }
    case F::Op::kIndexCopy: case F::Op::kIndexAdd: {
      const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
      if (!index || !src) return Decline(call, work, "without its index or source");
      if (!out) out = self;  // the in-place form writes its input
      w.in_place = out == self || (out->data == self->data && out->offset == self->offset && out->strides == self->strides);
      if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &w.dim)) return s;
      if (index->view.size() > 1) {
        return RejectInvalid(call, family, F::Role::kIndex, "rank " + std::to_string(index->view.size()) + " is above 1");
      }
      Dims shape = self->view;
      if (rank > 0) shape[w.dim] = index->numel();
      else if (index->numel() != 1) return RejectInvalid(call, family, F::Role::kIndex, "must have one element for a zero-dimensional input");
      if (aclnnStatus s = CheckShape(call, family, F::Role::kSrc, *src, shape, "the input's shape with the index's length along dim")) {
        return s;
      }
      if (src->dtype != self->dtype || out->dtype != self->dtype) {
        const int role = src->dtype != self->dtype ? F::Role::kSrc : F::Role::kOut;
        return RejectInvalid(call, family, role, std::string("dtype ") + DTypeName(src->dtype != self->dtype ? src->dtype : out->dtype) +
                                               " differs from " + self_name + "'s " + DTypeName(self->dtype));
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, self->view, "the input's shape")) return s;
      w.extent = rank == 0 ? 1 : self->view[w.dim];
      if (op == F::Op::kIndexAdd) {
        w.alpha = RoleNumber(call, family, F::Role::kAlpha, -1, 1);
        if (!FamilyComputeType(self->dtype, true, &w.type)) return DeclineDtype(call, work, self->dtype);
      }
      w.tensor(kSrc).Set(RoleName(call, family, F::Role::kSrc), *src);
      break;
    }
    case F::Op::kTfScatter: {
      // self[index[i...], ...] combined in place with src[i..., ...] (TF's scatter_* form; its
      // scatter_nd form, src of index.shape[:-1] + self.shape[q:], is refused by its shape).
      const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
      if (!index || !src) return Decline(call, work, "without its indices or updates");
      out = self;
      w.in_place = true;
      if (rank == 0) return RejectInvalid(call, family, F::Role::kSelf, "is zero-dimensional; the op indexes its first dimension");
      Dims shape = index->view;
      for (int64_t d = 1; d < rank; ++d) shape.push_back(self->view[d]);
      // TF's scatter_nd form (aclnnTfScatterAdd's second): src of index.shape[:-1] + self.shape[q:].
      Dims nd_shape;
      const int64_t q = index->view.empty() ? 0 : index->view.back();
      if (!index->view.empty() && q >= 1 && q <= rank) {
        nd_shape.assign(index->view.begin(), index->view.end() - 1);
        for (int64_t d = q; d < rank; ++d) nd_shape.push_back(self->view[d]);
      }
      w.nd_form = src->view != shape && !nd_shape.empty() && src->view == nd_shape;
      if (!w.nd_form) {
        if (aclnnStatus s = CheckShape(call, family, F::Role::kSrc, *src, shape,
                                       "the indices' shape, then the input's dimensions after the first")) {
          return s;
        }
      } else if (family.options[F::Option::kCombine] != 1) {
        return RejectInvalid(call, family, F::Role::kSrc, "has the scatter_nd form's shape, which the simulator models for adds only");
      }
      if (src->dtype != self->dtype) {
        return RejectInvalid(call, family, F::Role::kSrc, std::string("dtype ") + DTypeName(src->dtype) + " differs from " +
                                                        self_name + "'s " + DTypeName(self->dtype));
      }
      const double combine = family.options[F::Option::kCombine];
      w.reduce = static_cast<int>(combine);
      if (!(combine == 1 || combine == 2 || combine == 3 || combine == 4 || combine == 6)) {
        return Decline(call, work, "without the semantics' combine option (1 add, 2 multiply, 3 max, 4 min, 6 divide)");
      }
      if (!FamilyComputeType(self->dtype, true, &w.type)) return DeclineDtype(call, work, self->dtype);
      if (w.reduce == 6 && w.type != ComputeType::kFloat32 && w.type != ComputeType::kFloat64) {
        return Decline(call, work, std::string("for an integer division (dtype ") + DTypeName(self->dtype) + ")");
      }
      w.dim = 0;
      w.extent = self->view[0];
      w.tensor(kSrc).Set(RoleName(call, family, F::Role::kSrc), *src);
      break;
    }
    case F::Op::kScatterNd: {
      // out = self with the rows of src placed at the positions the index's last dimension lists.
      const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
      if (!index || !src || !out) return Decline(call, work, "without its indices, updates or output");
      if (index->view.empty()) return RejectInvalid(call, family, F::Role::kIndex, "has no dimension to hold positions");
      const int64_t q = index->view.back();
      if (q < 1 || q > rank) {
        return RejectInvalid(call, family, F::Role::kIndex, "last dimension " + std::to_string(q) + " is outside [1, " +
                                                          std::to_string(rank) + "] (" + self_name + "'s rank)");
      }
      Dims shape(index->view.begin(), index->view.end() - 1);
      for (int64_t d = q; d < rank; ++d) shape.push_back(self->view[d]);
      if (aclnnStatus s = CheckShape(call, family, F::Role::kSrc, *src, shape,
                                     "the index's shape without its last dimension, then the input's from dimension q")) {
        return s;
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, self->view, "the input's shape")) return s;
      if (src->dtype != self->dtype || out->dtype != self->dtype) {
        return RejectInvalid(call, family, src->dtype != self->dtype ? F::Role::kSrc : F::Role::kOut,
                       std::string("dtype differs from ") + self_name + "'s " + DTypeName(self->dtype));
      }
      if (!FamilyComputeType(self->dtype, true, &w.type)) return DeclineDtype(call, work, self->dtype);
      w.reduce = 0;
      w.tensor(kSrc).Set(RoleName(call, family, F::Role::kSrc), *src);
      break;
    }
    case F::Op::kOneHot: {
      const TensorDesc* on = RoleTensor(call, family, F::Role::kOnValue);
      const TensorDesc* off = RoleTensor(call, family, F::Role::kOffValue);
      if (!on || !off || !out) return Decline(call, work, "without its on/off values or output");
      const int64_t classes = RoleInt(call, family, F::Role::kNumClasses, -1);
      if (self->numel() == 0 ? classes <= 0 : classes < 0) {
        return RejectInvalid(call, family, F::Role::kNumClasses, std::to_string(classes) + " must be " +
                                                               (self->numel() == 0 ? "positive for an empty input" : "at least 0"));
      }
      const int64_t axis = RoleInt(call, family, F::Role::kDim, -1);
      if (axis < -1 || axis > rank) {
        return RejectInvalid(call, family, F::Role::kDim, std::to_string(axis) + " is outside [-1, " + std::to_string(rank) + "]");
      }
      w.axis = axis == -1 ? rank : axis;
      w.classes = classes;
      Dims shape = self->view;
      shape = InsertedAt(shape, w.axis, classes);
      if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape, "the input's shape with numClasses inserted at axis")) return s;
      if (on->numel() < 1 || off->numel() < 1) {
        return RejectInvalid(call, family, on->numel() < 1 ? F::Role::kOnValue : F::Role::kOffValue, "has no element");
      }
      if (on->dtype != out->dtype || off->dtype != out->dtype) {
        return RejectInvalid(call, family, on->dtype != out->dtype ? F::Role::kOnValue : F::Role::kOffValue,
                       std::string("dtype ") + DTypeName(on->dtype != out->dtype ? on->dtype : off->dtype) + " differs from " +
                           RoleName(call, family, F::Role::kOut) + "'s " + DTypeName(out->dtype));
      }
      if (!Moves(out->dtype)) return DeclineDtype(call, work, out->dtype);
      w.tensor(kOn).Set(RoleName(call, family, F::Role::kOnValue), *on);
      w.tensor(kOff).Set(RoleName(call, family, F::Role::kOffValue), *off);
      break;
    }
    case F::Op::kTopk: case F::Op::kSort: case F::Op::kArgsort: case F::Op::kSortWithIndex: {
      const TensorDesc* indices = RoleTensor(call, family, F::Role::kIndices);
      if (op == F::Op::kSortWithIndex) {
        if (!index) return Decline(call, work, "without its index");
        if (index->view != self->view) {
          return RejectInvalid(call, family, F::Role::kIndex, "shape " + DimsText(index->view) + " is not " + self_name +
                                                            "'s shape " + DimsText(self->view));
        }
      }
      if (op == F::Op::kArgsort) out = nullptr;  // its one output is the indices
      if (!indices || (op != F::Op::kArgsort && !out)) return Decline(call, work, "without its outputs");
      if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, -1), rank, &w.dim)) return s;
      const int64_t n = rank == 0 ? 1 : self->view[w.dim];
      w.k = n;
      if (op == F::Op::kTopk) {
        w.k = RoleInt(call, family, F::Role::kK, -1);
        if (w.k < 0 || w.k > n) {
          return RejectInvalid(call, family, F::Role::kK, std::to_string(w.k) + " is outside [0, " + std::to_string(n) +
                                                        "] (the extent of dimension " + std::to_string(w.dim) + ")");
        }
        w.descending = RoleBool(call, family, F::Role::kLargest, true);
      } else {
        w.descending = RoleBool(call, family, F::Role::kDescending, false);
      }
      ComputeType type;
      if (!FamilyComputeType(self->dtype, true, &type)) return DeclineDtype(call, work, self->dtype);
      Dims shape = self->view;
      if (rank > 0) shape[w.dim] = w.k;
      if (out) {
        if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape, "the input's shape with k along dim")) return s;
      }
      if (aclnnStatus s = CheckShape(call, family, F::Role::kIndices, *indices, shape, "the input's shape with k along dim")) return s;
      w.tensor(kIndicesOut).Set(RoleName(call, family, F::Role::kIndices), *indices);
      break;
    }
    default:
      return Decline(call, work, "");
  }
  if (index) w.tensor(kIndex).Set(RoleName(call, family, F::Role::kIndex), *index);
  if (out) w.tensor(kOut).Set(RoleName(call, family, F::Role::kOut), *out);
  if (op != F::Op::kOneHot && !Moves(self->dtype)) return DeclineDtype(call, work, self->dtype);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
