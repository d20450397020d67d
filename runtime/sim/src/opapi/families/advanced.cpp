// The advanced-indexing family: self[indices] (aclnnIndex) and self[indices] = values, replacing
// or accumulating (aclnnIndexPutImpl), as PyTorch's advanced indexing with a list of index tensors
// (torch.Tensor.__getitem__ / __setitem__ with tensors, index_put_); masked_scatter (self's
// masked positions take source's elements in order), put (positions in self read as one row) and
// index_fill (slices along a dimension set to a scalar) and scatter_nd_update (slices at the
// positions the index's rows give take the updates') and scatter_update (batch i's updates written
// from position index[i] along a dimension).
//
// The list holds one entry per leading dimension of self: an INT32/INT64 tensor of positions
// (negative ones count from the end, as PyTorch's), a BOOL mask covering as many dimensions as it
// has (its true positions, in row-major order), or op-plugin's stand-in for a dimension taken whole
// (":"): a tensor of shape [0] of self's dtype (StandsForWholeDimension). The position tensors
// broadcast to one shape B. The result has
// B in place of the indexed dimensions when they are adjacent, else B first, then the dimensions
// taken whole, as PyTorch's. Indices live in device memory: a position outside its dimension
// faults in phase 2 (the device's kernel faults), naming the parameter, before anything is written.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using A = AdvancedFamily;

constexpr int kMaxIndices = 8;
enum Slot { kSelf, kValues, kOut, kFirstIndex, kSlots = kFirstIndex + kMaxIndices };

// op-plugin passes ":" as a [0]-shaped tensor made with self's dtype; a [0]-shaped tensor of
// positions (what an all-false mask becomes through nonzero) selects nothing. When self's dtype is
// itself a position dtype the two look alike, and the stand-in is the one meant, unless every
// entry looks alike (see the indices' check).
bool StandsForWholeDimension(const Dims& shape, aclDataType dtype, aclDataType self_dtype) {
  if (shape.size() != 1 || shape[0] != 0) return false;
  const bool positions = dtype == ACL_INT32 || dtype == ACL_INT64 || dtype == ACL_BOOL || dtype == ACL_UINT8;
  return !positions || dtype == self_dtype;
}

int64_t Count(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The dimensions of self taken whole, in order, and how many of them come before the broadcast
// positions' shape in the result (those before the first indexed dimension when the indexed ones
// are adjacent; else none: the positions' shape goes first).
struct Layout {
  std::vector<int64_t> rest;
  size_t lead = 0;
};

Layout LayoutOf(const std::vector<bool>& whole) {
  Layout layout;
  int64_t first = -1, last = -1;
  const int64_t rank = static_cast<int64_t>(whole.size());
  for (int64_t d = 0; d < rank; ++d) {
    if (whole[static_cast<size_t>(d)]) layout.rest.push_back(d);
    else if (first < 0) first = last = d;
    else last = d;
  }
  bool adjacent = first >= 0;
  for (int64_t d = first; first >= 0 && d <= last; ++d) adjacent = adjacent && !whole[static_cast<size_t>(d)];
  if (adjacent) {
    layout.lead = static_cast<size_t>(std::count_if(layout.rest.begin(), layout.rest.end(), [&](int64_t d) { return d < first; }));
  }
  return layout;
}

// The indexing result's shape: self whole when nothing is indexed.
Dims ResultShape(const Dims& self, const Layout& layout, const Dims& positions, bool indexed) {
  if (!indexed) return self;
  Dims result;
  for (size_t i = 0; i < layout.lead; ++i) result.push_back(self[layout.rest[i]]);
  for (int64_t d : positions) result.push_back(d);
  for (size_t i = layout.lead; i < layout.rest.size(); ++i) result.push_back(self[layout.rest[i]]);
  return result;
}

// One indexed dimension of self: its positions, laid out over `shape` (before broadcasting).
struct Positions {
  int64_t dim = 0;
  Dims shape;
  std::vector<int64_t> values;
};

class AdvancedWork final : public FamilyWork {
 public:
  AdvancedWork(const char* api, int op) : FamilyWork(api, kSlots), op_(op) {}

  int indices = 0;          // index tensors in slots kFirstIndex...
  uint32_t whole_dims = 0;  // bit i: index tensor i stands for a whole dimension (":")
  int64_t dim = 0;          // index_fill: the dimension whose slices are filled
  std::vector<int64_t> positions;  // index_fill with an int array: its positions, checked and wrapped
  double real = 0;          // index_fill's value
  int64_t integer = 0;
  bool integral = false;
  bool accumulate = false;  // index_put, put: add instead of replacing
  bool in_place = true;     // index: out is a new tensor; the others write self

 private:
  aclnnStatus Compute() override {
    switch (op_) {
      case A::Op::kMaskedScatter: return MaskedScatter();
      case A::Op::kPut: return Put();
      case A::Op::kIndexFill: return IndexFill();
      case A::Op::kScatterNdUpdate: return ScatterNd();
      case A::Op::kScatterUpdate: return ScatterUpdate();
      default: return IndexOrPut();
    }
  }

  aclnnStatus Fault(const TensorRef& t, int64_t element, int64_t value, int64_t extent, aclnnStatus status = ACLNN_ERR_INNER) const {
    return Fail(status, std::string(api_) + ": " + t.name + ": element " + std::to_string(element) + " is " +
                            std::to_string(value) + ", outside [" + std::to_string(-extent) + ", " + std::to_string(extent) +
                            ") (the device's kernel faults on an index out of range)");
  }

  // The list's entries as positions of self's dimensions (masks expanded), checked and wrapped.
  aclnnStatus Expand(std::vector<Positions>* found, std::vector<bool>* whole) const {
    const TensorRef& self = tensor(kSelf);
    int64_t dim = 0;
    whole->assign(static_cast<size_t>(self.rank()), true);
    for (int i = 0; i < indices; ++i) {
      const TensorRef& index = tensor(kFirstIndex + i);
      if ((whole_dims >> i) & 1) {
        ++dim;
        continue;
      }
      const int64_t n = index.numel();
      const int64_t* v = IndexValues(index, 4);
      if (index.dtype == ACL_BOOL || index.dtype == ACL_UINT8) {
        // A mask of k dimensions: k position tensors of its true elements, row-major.
        const int64_t k = index.rank();
        std::vector<Positions> made(static_cast<size_t>(k));
        for (int64_t j = 0; j < n; ++j) {
          if (!v[j]) continue;
          int64_t rest = j;
          for (int64_t d = k; d-- > 0;) {
            made[static_cast<size_t>(d)].values.push_back(rest % index.shape[d]);
            rest /= index.shape[d];
          }
        }
        for (int64_t d = 0; d < k; ++d) {
          Positions& p = made[static_cast<size_t>(d)];
          p.dim = dim + d;
          p.shape = Dims{static_cast<int64_t>(p.values.size())};
          (*whole)[static_cast<size_t>(p.dim)] = false;
          found->push_back(std::move(p));
        }
        dim += k;
        continue;
      }
      Positions p;
      p.dim = dim;
      p.shape = index.shape;
      p.values.assign(v, v + n);
      const int64_t extent = self.shape[dim];
      for (int64_t j = 0; j < n; ++j) {
        int64_t& x = p.values[static_cast<size_t>(j)];
        if (x < -extent || x >= extent) return Fault(index, j, x, extent);
        if (x < 0) x += extent;
      }
      (*whole)[static_cast<size_t>(dim)] = false;
      found->push_back(std::move(p));
      ++dim;
    }
    return ACLNN_SUCCESS;
  }

  // For each element of the indexing result (row-major over its shape), the offset of the element
  // of self it is (in elements); fails when the positions do not broadcast or out's shape is not
  // the result's.
  aclnnStatus Map(std::vector<int64_t>* offsets, Dims* result) const {
    const TensorRef& self = tensor(kSelf);
    std::vector<Positions> found;
    std::vector<bool> whole;
    if (aclnnStatus s = Expand(&found, &whole)) return s;
    Dims b;
    for (const Positions& p : found) {
      if (!BroadcastShape(b, p.shape, &b)) {
        return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": the indices' shapes (after masks) " + DimsText(p.shape) +
                                                 " and " + DimsText(b) + " do not broadcast");
      }
    }
    const Layout layout = LayoutOf(whole);
    const std::vector<int64_t>& rest_dims = layout.rest;
    const size_t lead = layout.lead;
    *result = ResultShape(self.shape, layout, b, !found.empty());
    const int64_t nb = Count(b), total = Count(*result);
    // The offset each broadcast position reaches through the indexed dimensions.
    std::vector<int64_t> through(static_cast<size_t>(found.empty() ? 1 : nb), 0);
    for (const Positions& p : found) {
      const Dims bp = BroadcastTo(DenseRef(nullptr, ACL_INT64, p.shape), b).strides;
      for (int64_t i = 0; i < nb; ++i) {
        int64_t at = 0, left = i;
        for (size_t d = b.size(); d-- > 0;) {
          at += (left % b[d]) * bp[d];
          left /= b[d];
        }
        through[static_cast<size_t>(i)] += p.values[static_cast<size_t>(at)] * self.strides[p.dim];
      }
    }
    offsets->assign(static_cast<size_t>(total), 0);
    const size_t rb = found.empty() ? 0 : b.size();
    for (int64_t i = 0; i < total; ++i) {
      int64_t left = i, offset = 0, bpos = 0, bscale = 1;
      size_t r = result->size();
      // Walk the result's dimensions from the last: rest dims after B, B, rest dims before B.
      for (size_t k = rest_dims.size(); k-- > lead;) {
        const int64_t extent = (*result)[--r];
        offset += (left % extent) * self.strides[rest_dims[k]];
        left /= extent;
      }
      for (size_t k = 0; k < rb; ++k) {
        const int64_t extent = (*result)[--r];
        bpos += (left % extent) * bscale;
        bscale *= extent;
        left /= extent;
      }
      for (size_t k = lead; k-- > 0;) {
        const int64_t extent = (*result)[--r];
        offset += (left % extent) * self.strides[rest_dims[k]];
        left /= extent;
      }
      (*offsets)[static_cast<size_t>(i)] = offset + (found.empty() ? 0 : through[static_cast<size_t>(bpos)]);
    }
    return ACLNN_SUCCESS;
  }

  aclnnStatus IndexOrPut() {
    const TensorRef& self = tensor(kSelf);
    std::vector<int64_t> offsets;
    Dims result;
    if (aclnnStatus s = Map(&offsets, &result)) return s;
    const size_t size = DTypeSize(self.dtype);
    const int64_t n = static_cast<int64_t>(offsets.size());
    if (op_ == A::Op::kIndex) {
      const TensorRef& out = tensor(kOut);
      if (out.shape != result) {
        return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": " + out.name + ": shape " + DimsText(out.shape) +
                                                 " is not the indexing result's " + DimsText(result));
      }
      char* gathered = static_cast<char*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(n, 1)) * size));
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(gathered + static_cast<size_t>(i) * size, self.first + offsets[static_cast<size_t>(i)] * static_cast<int64_t>(size), size);
      }
      CopyElements(DenseRef(gathered, self.dtype, result), out);
      return ACLNN_SUCCESS;
    }
    Dims joint;
    if (!BroadcastShape(tensor(kValues).shape, result, &joint) || joint != result) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": " + tensor(kValues).name + ": shape " +
                                               DimsText(tensor(kValues).shape) + " does not broadcast to the indexing result's " +
                                               DimsText(result));
    }
    return Write(offsets.data(), n, BroadcastTo(tensor(kValues), result));
  }

  // self's elements at `offsets` = (or +=) the elements of `values` (row-major, as many), in order.
  aclnnStatus Write(const int64_t* offsets, int64_t n, const TensorRef& values) {
    const TensorRef& self = tensor(kSelf);
    const size_t size = DTypeSize(self.dtype);
    char* dense = static_cast<char*>(Scratch(1, static_cast<size_t>(std::max<int64_t>(n, 1)) * size));
    CopyElements(values, DenseRef(dense, self.dtype, values.shape));
    if (!accumulate) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(self.first + offsets[i] * static_cast<int64_t>(size), dense + static_cast<size_t>(i) * size, size);
      }
      return ACLNN_SUCCESS;
    }
    // Each add rounds to self's dtype, in the order of the positions (a device's atomic adds).
    const LoadFn load = Loader(type, self.dtype);
    const StoreFn store = Storer(type, self.dtype);
    WithFamilyType(type, [&](auto zero) {
      using T = decltype(zero);
      for (int64_t i = 0; i < n; ++i) {
        char* at = self.first + offsets[i] * static_cast<int64_t>(size);
        T a{}, b{};
        load(at, 0, 1, &a);
        load(dense + static_cast<size_t>(i) * size, 0, 1, &b);
        if constexpr (std::is_same<T, int64_t>::value) {
          a = self.dtype == ACL_BOOL ? static_cast<T>(a || b) : a + b;
        } else {
          a += b;
        }
        store(&a, at, 0, 1);
      }
    });
    return ACLNN_SUCCESS;
  }

  // self's positions where mask (broadcast to self) is true take source's elements in order.
  aclnnStatus MaskedScatter() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& mask = tensor(kFirstIndex);
    const TensorRef& source = tensor(kValues);
    const int64_t n = self.numel();
    const int64_t* m = IndexValues(BroadcastTo(mask, self.shape), 4);
    std::vector<int64_t> offsets;
    for (int64_t i = 0; i < n; ++i) {
      if (!m[i]) continue;
      int64_t left = i, offset = 0;
      for (int64_t d = self.rank(); d-- > 0;) {
        offset += (left % self.shape[d]) * self.strides[d];
        left /= self.shape[d];
      }
      offsets.push_back(offset);
    }
    const int64_t k = static_cast<int64_t>(offsets.size());
    if (k > source.numel()) {
      return Fail(ACLNN_ERR_PARAM_INVALID, std::string(api_) + ": " + source.name + ": has " + std::to_string(source.numel()) +
                                               " elements, fewer than the mask's " + std::to_string(k) + " true ones");
    }
    TensorRef flat = DenseRef(nullptr, source.dtype, Dims{k});
    const size_t size = DTypeSize(source.dtype);
    char* head = static_cast<char*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(source.numel(), 1)) * size));
    CopyElements(source, DenseRef(head, source.dtype, source.shape));
    flat.first = head;
    flat.data = head;
    return Write(offsets.data(), k, flat);
  }

  // put: self read as one row; index's positions (negative from the end) take values' elements.
  aclnnStatus Put() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kFirstIndex);
    const int64_t n = index.numel(), extent = self.numel();
    const int64_t* v = IndexValues(index, 4);
    std::vector<int64_t> offsets(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = v[i];
      if (x < -extent || x >= extent) return Fault(index, i, x, extent);
      if (x < 0) x += extent;
      int64_t offset = 0;
      for (int64_t d = self.rank(); d-- > 0;) {
        offset += (x % self.shape[d]) * self.strides[d];
        x /= self.shape[d];
      }
      offsets[static_cast<size_t>(i)] = offset;
    }
    const TensorRef& values = tensor(kValues);
    const size_t size = DTypeSize(values.dtype);
    char* flat = static_cast<char*>(Scratch(2, static_cast<size_t>(std::max<int64_t>(values.numel(), 1)) * size));
    CopyElements(values, DenseRef(flat, values.dtype, values.shape));
    return Write(offsets.data(), n, DenseRef(flat, values.dtype, Dims{n}));
  }

  // out = self (unless in place), then out's slices along dim at the positions = the value; an
  // index tensor's positions outside the dimension are skipped (the page: "对于越界值会直接跳过").
  aclnnStatus IndexFill() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& out = tensor(kOut);
    if (!in_place) CopyElements(self, out);
    const int64_t extent = out.rank() == 0 ? 1 : out.shape[dim];
    std::vector<int64_t> chosen = positions;
    if (indices) {
      const TensorRef& index = tensor(kFirstIndex);
      const int64_t* v = IndexValues(index, 4);
      for (int64_t i = 0; i < index.numel(); ++i) {
        if (v[i] >= -extent && v[i] < extent) chosen.push_back(v[i] < 0 ? v[i] + extent : v[i]);
      }
    }
    for (int64_t p : chosen) FillElements(out.rank() == 0 ? out : SelectDim(out, dim, p), real, integer, integral);
    return ACLNN_SUCCESS;
  }

  // Row r of the index (its last dimension, q long) is a position in self's first q dimensions;
  // the slice there takes the updates' r-th slice (a repeated position: the last row wins).
  aclnnStatus ScatterNd() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kFirstIndex);
    const int64_t q = index.shape.back();
    const int64_t rows = q == 0 ? 0 : index.numel() / q;
    const int64_t* v = IndexValues(index, 4);
    Dims rest(self.shape.begin() + q, self.shape.end());
    const int64_t slice = Count(rest);
    std::vector<int64_t> inner(static_cast<size_t>(slice));
    for (int64_t i = 0; i < slice; ++i) {
      int64_t left = i, offset = 0;
      for (int64_t d = self.rank(); d-- > q;) {
        offset += (left % self.shape[d]) * self.strides[d];
        left /= self.shape[d];
      }
      inner[static_cast<size_t>(i)] = offset;
    }
    std::vector<int64_t> offsets(static_cast<size_t>(rows * slice));
    for (int64_t r = 0; r < rows; ++r) {
      int64_t base = 0;
      for (int64_t d = 0; d < q; ++d) {
        const int64_t x = v[r * q + d];
        if (x < 0 || x >= self.shape[d]) {
          return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + index.name + ": element " + std::to_string(r * q + d) + " is " +
                                           std::to_string(x) + ", outside [0, " + std::to_string(self.shape[d]) +
                                           ") (the device's kernel faults on an index out of range)");
        }
        base += x * self.strides[d];
      }
      for (int64_t i = 0; i < slice; ++i) offsets[static_cast<size_t>(r * slice + i)] = base + inner[static_cast<size_t>(i)];
    }
    return Write(offsets.data(), rows * slice, tensor(kValues));
  }

  // self[i, ..., index[i] + k, ...] = values[i, ..., k, ...] along dim, for each batch i of values.
  aclnnStatus ScatterUpdate() {
    const TensorRef& self = tensor(kSelf);
    const TensorRef& index = tensor(kFirstIndex);
    const TensorRef& values = tensor(kValues);
    const int64_t* starts = IndexValues(index, 4);
    const int64_t batches = values.shape[0], span = values.shape[dim], extent = self.shape[dim];
    for (int64_t i = 0; i < batches; ++i) {
      if (starts[i] < 0 || starts[i] + span > extent) {
        return Fail(ACLNN_ERR_INNER, std::string(api_) + ": " + index.name + ": element " + std::to_string(i) + " is " +
                                         std::to_string(starts[i]) + "; writing " + std::to_string(span) + " from it leaves [0, " +
                                         std::to_string(extent) + ") (the device's kernel faults on an index out of range)");
      }
    }
    const int64_t n = values.numel();
    std::vector<int64_t> offsets(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      int64_t left = j, offset = 0;
      for (int64_t d = values.rank(); d-- > 0;) {
        const int64_t c = left % values.shape[d];
        left /= values.shape[d];
        offset += c * self.strides[d];
        if (d == 0) offset += starts[c] * self.strides[dim];
      }
      offsets[static_cast<size_t>(j)] = offset;
    }
    return Write(offsets.data(), n, values);
  }

  int op_;
};

}  // namespace

aclnnStatus PlanAdvanced(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const TensorDesc* self = RoleTensor(call, family, A::Role::kSelf);
  if (!self) return Decline(call, work, "without its input");
  const int64_t rank = static_cast<int64_t>(self->view.size());
  // put reads self as one row of its elements, masked_scatter walks them in order: a
  // zero-dimensional self is one element for both.
  const bool scalar_ok = op == A::Op::kIndexFill || op == A::Op::kPut || op == A::Op::kMaskedScatter;
  if (rank > 16 || (rank == 0 && !scalar_ok)) {
    return Decline(call, work, rank ? "for more than 16 dimensions" : "for a zero-dimensional input");
  }
  std::unique_ptr<AdvancedWork> made(new AdvancedWork(call.spec.name, op));
  AdvancedWork& w = *made;
  if (!CopyConvertible(self->dtype, self->dtype)) return DeclineDtype(call, work, self->dtype);
  w.accumulate = RoleBool(call, family, A::Role::kAccumulate, false);
  const char* self_name = RoleName(call, family, A::Role::kSelf);
  if (w.accumulate && !FamilyComputeType(self->dtype, true, &w.type)) {
    return Decline(call, work, std::string("accumulating dtype ") + DTypeName(self->dtype));
  }
  const TensorDesc* values = RoleTensor(call, family, A::Role::kValues);
  if (op != A::Op::kIndex && op != A::Op::kIndexFill) {
    if (!values) return Decline(call, work, "without its values");
    if (values->dtype != self->dtype) {
      return RejectInvalid(call, family, A::Role::kValues, std::string("dtype ") + DTypeName(values->dtype) + " differs from " +
                                                         self_name + "'s " + DTypeName(self->dtype));
    }
    w.tensor(kValues).Set(RoleName(call, family, A::Role::kValues), *values);
  }
  switch (op) {
    case A::Op::kIndex: case A::Op::kIndexPut: {
      const std::vector<TensorDesc>* list = RoleTensorList(call, family, A::Role::kIndices);
      if (!list) return Decline(call, work, "without its indices");
      if (static_cast<int64_t>(list->size()) > std::max<int64_t>(rank, 1) || list->size() > kMaxIndices) {
        return RejectInvalid(call, family, A::Role::kIndices, "has " + std::to_string(list->size()) + " tensors, more than " +
                                                            self_name + "'s " + std::to_string(rank) + " dimensions");
      }
      // Every entry looking like a stand-in cannot be: PyTorch indexes with one tensor at least. They
      // are then the positions of an all-false mask (x[mask] = v of an INT64 x), selecting nothing.
      const bool all_alike = std::all_of(list->begin(), list->end(), [&](const TensorDesc& index) {
        return StandsForWholeDimension(index.view, index.dtype, self->dtype);
      });
      int64_t covered = 0;
      bool masks = false;
      for (size_t i = 0; i < list->size(); ++i) {
        const TensorDesc& index = (*list)[i];
        const bool stand_in = !all_alike && StandsForWholeDimension(index.view, index.dtype, self->dtype);
        if (stand_in) w.whole_dims |= 1u << i;
        if (!stand_in && index.dtype != ACL_BOOL && index.dtype != ACL_UINT8 && index.dtype != ACL_INT32 &&
            index.dtype != ACL_INT64) {
          return RejectInvalid(call, family, A::Role::kIndices, "[" + std::to_string(i) + "]: dtype " + DTypeName(index.dtype) +
                                                              " is not INT32, INT64 or BOOL");
        }
        const bool mask = !stand_in && (index.dtype == ACL_BOOL || index.dtype == ACL_UINT8);
        masks = masks || mask;
        const int64_t k = mask ? static_cast<int64_t>(index.view.size()) : 1;
        if (mask) {
          for (int64_t d = 0; d < k; ++d) {
            if (covered + d >= rank || index.view[d] != self->view[covered + d]) {
              return RejectInvalid(call, family, A::Role::kIndices, "[" + std::to_string(i) + "]: mask shape " + DimsText(index.view) +
                                                                  " does not match " + self_name + "'s dimensions from " +
                                                                  std::to_string(covered) + " (" + DimsText(self->view) + ")");
            }
          }
        }
        covered += k;
        if (covered > rank) {
          return RejectInvalid(call, family, A::Role::kIndices, "index " + std::to_string(covered) + " dimensions of " + self_name +
                                                              ", which has " + std::to_string(rank));
        }
        w.tensor(kFirstIndex + static_cast<int>(i)).Set(RoleName(call, family, A::Role::kIndices), index);
      }
      w.indices = static_cast<int>(list->size());
      // Positions only: the result's shape is known now (a mask's extent is the data's), as Map
      // computes it in phase 2: the stand-ins' dimensions whole, the others' positions broadcast.
      Dims result;
      if (!masks) {
        std::vector<bool> whole(static_cast<size_t>(rank), true);
        Dims b;
        bool indexed = false;
        for (size_t i = 0; i < list->size(); ++i) {
          if ((w.whole_dims >> i) & 1) continue;
          const TensorDesc& index = (*list)[i];
          if (!BroadcastShape(b, index.view, &b)) {
            return RejectInvalid(call, family, A::Role::kIndices, "[" + std::to_string(i) + "]: shape " + DimsText(index.view) +
                                                                " does not broadcast with the others' " + DimsText(b));
          }
          whole[i] = false;
          indexed = true;
        }
        result = ResultShape(self->view, LayoutOf(whole), b, indexed);
      }
      if (op == A::Op::kIndexPut && !masks) {
        Dims joint;
        if (!BroadcastShape(values->view, result, &joint) || joint != result) {
          return RejectInvalid(call, family, A::Role::kValues, "shape " + DimsText(values->view) +
                                                             " does not broadcast to the indexing result's " + DimsText(result));
        }
      }
      if (op == A::Op::kIndex) {
        const TensorDesc* out = RoleTensor(call, family, A::Role::kOut);
        if (!out) return Decline(call, work, "without its output");
        if (out->dtype != self->dtype) {
          return RejectInvalid(call, family, A::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) + " differs from " +
                                                          self_name + "'s " + DTypeName(self->dtype));
        }
        // out has the indexing result's shape (the page's formula, out = self[indices]); with positions
        // only that shape follows from the descriptors, so phase 1 judges it rather than leaving a
        // call it will fail to phase 2 (IndexOrPut keeps the check for masks, whose extent is data).
        if (!masks && out->view != result) {
          return RejectInvalid(call, family, A::Role::kOut, "shape " + DimsText(out->view) + " is not the indexing result's " +
                                                          DimsText(result));
        }
        w.tensor(kOut).Set(RoleName(call, family, A::Role::kOut), *out);
      }
      break;
    }
    case A::Op::kMaskedScatter: case A::Op::kPut: {
      const TensorDesc* index = RoleTensor(call, family, A::Role::kIndex);
      if (!index) return Decline(call, work, "without its mask or index");
      if (op == A::Op::kMaskedScatter) {
        Dims joint;
        if (!BroadcastShape(index->view, self->view, &joint) || joint != self->view) {
          return RejectInvalid(call, family, A::Role::kIndex, "shape " + DimsText(index->view) + " does not broadcast to " + self_name +
                                                            "'s " + DimsText(self->view));
        }
      } else if (index->numel() != values->numel()) {
        return RejectInvalid(call, family, A::Role::kValues, "has " + std::to_string(values->numel()) + " elements, the index " +
                                                           std::to_string(index->numel()));
      }
      w.tensor(kFirstIndex).Set(RoleName(call, family, A::Role::kIndex), *index);
      w.indices = 1;
      break;
    }
    case A::Op::kScatterNdUpdate: {
      const TensorDesc* index = RoleTensor(call, family, A::Role::kIndex);
      if (!index) return Decline(call, work, "without its indices");
      if (index->view.size() < 2 || index->view.back() < 1 || index->view.back() > rank) {
        return RejectInvalid(call, family, A::Role::kIndex, "shape " + DimsText(index->view) + " is not [..., q] with q in [1, " +
                                                          std::to_string(rank) + "] (at least 2 dimensions)");
      }
      Dims expected(index->view.begin(), index->view.end() - 1);
      for (int64_t d = index->view.back(); d < rank; ++d) expected.push_back(self->view[d]);
      if (values->view != expected) {
        return RejectInvalid(call, family, A::Role::kValues, "shape " + DimsText(values->view) + " is not " + DimsText(expected) +
                                                           " (the indices' shape without its last dimension, then " + self_name +
                                                           "'s dimensions after the indexed ones)");
      }
      w.tensor(kFirstIndex).Set(RoleName(call, family, A::Role::kIndex), *index);
      w.indices = 1;
      break;
    }
    case A::Op::kScatterUpdate: {
      const TensorDesc* index = RoleTensor(call, family, A::Role::kIndex);
      if (!index) return Decline(call, work, "without its indices");
      if (index->view.size() > 1) return Decline(call, work, "for 2-D indices (the page does not state their meaning)");
      const int64_t axis = RoleInt(call, family, A::Role::kDim, 0);
      if (!WrapDim(axis, rank, &w.dim) || w.dim == 0) {
        return RejectInvalid(call, family, A::Role::kDim, std::to_string(axis) + " is outside (-" + std::to_string(rank) + ", " +
                                                        std::to_string(rank) + ") or names dimension 0");
      }
      const int64_t batches = index->view.empty() ? 1 : index->view[0];
      bool fits = values->view.size() == self->view.size() && values->view[0] == batches && batches <= self->view[0];
      for (int64_t d = 1; fits && d < rank; ++d) fits = d == w.dim || values->view[d] == self->view[d];
      if (!fits) {
        return RejectInvalid(call, family, A::Role::kValues, "shape " + DimsText(values->view) + " does not fit " + self_name + "'s " +
                                                           DimsText(self->view) + " (dimension 0: the indices' " +
                                                           std::to_string(batches) + " batches; the others but axis: " + self_name + "'s)");
      }
      w.tensor(kFirstIndex).Set(RoleName(call, family, A::Role::kIndex), *index);
      w.indices = 1;
      break;
    }
    case A::Op::kIndexFill: {
      const TensorDesc* out = RoleTensor(call, family, A::Role::kOut);
      if (!out) out = self;  // the in-place form fills its input
      w.in_place = out == self || (out->data == self->data && out->offset == self->offset && out->strides == self->strides);
      if (out->view != self->view || out->dtype != self->dtype) {
        return RejectInvalid(call, family, A::Role::kOut, "shape " + DimsText(out->view) + " and dtype " + DTypeName(out->dtype) +
                                                        " are not " + self_name + "'s");
      }
      const int64_t given = RoleInt(call, family, A::Role::kDim, 0);
      if (!WrapDim(given, rank, &w.dim)) {
        return RejectInvalid(call, family, A::Role::kDim, std::to_string(given) + " is outside [" + std::to_string(-std::max<int64_t>(rank, 1)) +
                                                        ", " + std::to_string(std::max<int64_t>(rank, 1)) + ")");
      }
      const int64_t extent = rank == 0 ? 1 : self->view[w.dim];
      if (const TensorDesc* index = RoleTensor(call, family, A::Role::kIndex)) {
        w.tensor(kFirstIndex).Set(RoleName(call, family, A::Role::kIndex), *index);
        w.indices = 1;
      } else {
        Dims listed;
        if (!RoleInts(call, family, A::Role::kIndex, &listed)) return Decline(call, work, "without its index");
        for (int64_t p : listed) {
          if (p < -extent || p >= extent) {
            return RejectInvalid(call, family, A::Role::kIndex, std::to_string(p) + " is outside [" + std::to_string(-extent) + ", " +
                                                              std::to_string(extent) + ") (dimension " + std::to_string(w.dim) + ")");
          }
          w.positions.push_back(p < 0 ? p + extent : p);
        }
      }
      const Call::Param* value = RoleParam(call, family, A::Role::kValue);
      if (!value) return Decline(call, work, "without its value");
      w.real = value->scalar_double;
      w.integer = value->scalar_int;
      w.integral = value->scalar.dtype != ACL_FLOAT && value->scalar.dtype != ACL_FLOAT16 && value->scalar.dtype != ACL_BF16 &&
                   value->scalar.dtype != ACL_DOUBLE;
      w.tensor(kOut).Set(RoleName(call, family, A::Role::kOut), *out);
      break;
    }
    default:
      return Decline(call, work, "");
  }
  w.tensor(kSelf).Set(self_name, *self);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
