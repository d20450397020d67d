// The shape-and-copy family: cast, (broadcasting) copy, cat, stack, split, permute, expand, flip,
// roll, tril/triu, constant padding, repeat and slices.
//
// Each op is a view of its input copied into its output (views.h): a permutation, a broadcast, a
// flip or a slice is the input's strides rearranged; cat, stack and split copy each input into a
// narrowed view of the output; roll copies the pieces of each rolled dimension to their places;
// repeat views its output as (repeat, extent) pairs and its input broadcast along the repeats;
// a pad fills the output and copies the input into its interior; tril/triu copy the kept part of
// each row and zero the rest. Copies move bits within a dtype and convert between dtypes.
//
// Phase 1 checks what the family's rule ties (dimensions in range, the output's shape, a
// permutation's entries, split sizes) with 161002 and a message naming the parameter.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "aclnn_bindgen/pool_shape.h"
#include "common/dtypes.h"
#include "opapi/families/family.h"
#include "opapi/families/views.h"

namespace aclsim {
namespace {

using F = ShapeFamily;

constexpr int64_t kMaxRank = 8;

// Diagonal `k` of the matrix t (above the main one for k > 0) as a vector view.
TensorRef Diagonal(const TensorRef& t, int64_t k) {
  const int64_t length = std::max<int64_t>(0, k >= 0 ? std::min(t.shape[0], t.shape[1] - k) : std::min(t.shape[0] + k, t.shape[1]));
  TensorRef d = length == 0 ? t : k >= 0 ? Narrow(t, 1, k, length) : Narrow(t, 0, -k, length);
  d.shape = {length};
  d.strides = {t.strides[0] + t.strides[1]};
  return d;
}

class ShapeWork final : public FamilyWork {
 public:
  ShapeWork(const char* api, int op, int tensors) : FamilyWork(api, tensors), op_(op) {}

  // Slot 0: the input (or the first of a list), then the rest of a list; the last slots: outputs.
  int inputs = 1;
  int64_t dim = 0;
  int64_t diagonal = 0;
  Dims order;                 // permute; flip and roll: their dimensions
  Dims shifts;                // roll (per dimension of `order`; one shift of the flattened input when empty)
  Dims shape;                 // expand: the target shape; repeat: the repeats (input padded to them); confusion_transpose: the reshape's
  bool transpose_first = false;  // confusion_transpose: permute, then reshape
  Dims starts, lengths, steps;  // slice: per dimension of the input
  Dims pads;                  // constant pad: (low, high) per dimension of the input
  double real = 0;
  int64_t integer = 0;
  bool integral = false;
  aclDataType through = ACL_DT_UNDEFINED;  // cast: the dtype argument, when out has another dtype

 private:
  const TensorRef& out(int k = 0) const { return tensor(inputs + k); }

  aclnnStatus Compute() override {
    const TensorRef& self = tensor(0);
    switch (op_) {
      case F::Op::kCast:
        if (through != ACL_DT_UNDEFINED) {  // self -> dtype, then written to out as a copy would
          void* buffer = Scratch(1, static_cast<size_t>(std::max<int64_t>(self.numel(), 1)) * DTypeSize(through));
          const TensorRef middle = DenseRef(buffer, through, self.shape);
          CopyElements(self, middle);
          CopyElements(middle, out());
        } else {
          CopyElements(self, out());
        }
        break;
      case F::Op::kCopy:
        CopyElements(BroadcastTo(self, out().shape), out());
        break;
      case F::Op::kPermute:
        CopyElements(self.Permuted(order.data()), out());
        break;
      case F::Op::kExpand:
        CopyElements(BroadcastTo(self, out().shape), out());
        break;
      case F::Op::kFlip: {
        TensorRef view = self;
        for (int64_t d : order) view = Flipped(view, d);
        CopyElements(view, out());
        break;
      }
      case F::Op::kSlice: {
        TensorRef view = self;
        for (int64_t d = 0; d < self.rank(); ++d) view = StepSlice(view, d, starts[d], lengths[d], steps[d]);
        CopyElements(view, out());
        break;
      }
      case F::Op::kSliceAssign: {  // slot 0 holds src, the slice's values
        TensorRef view = out();
        for (int64_t d = 0; d < out().rank(); ++d) view = StepSlice(view, d, starts[d], lengths[d], steps[d]);
        CopyElements(self, view);
        break;
      }
      case F::Op::kCat: {
        int64_t offset = 0;
        for (int k = 0; k < inputs; ++k) {
          const TensorRef& t = tensor(k);
          if (t.rank() == 1 && t.shape[0] == 0 && out().rank() != 1) continue;  // legacy empty tensors
          CopyElements(t, Narrow(out(), dim, offset, t.shape[dim]));
          offset += t.shape[dim];
        }
        break;
      }
      case F::Op::kStack:
        for (int k = 0; k < inputs; ++k) CopyElements(tensor(k), SelectDim(out(), dim, k));
        break;
      case F::Op::kSplit: case F::Op::kSplitWithSize: {
        int64_t offset = 0;
        for (int k = 0; k + inputs < tensor_count(); ++k) {
          const int64_t length = out(k).shape[dim];
          CopyElements(Narrow(self, dim, offset, length), out(k));
          offset += length;
        }
        break;
      }
      case F::Op::kRoll:
        Roll(self);
        break;
      case F::Op::kTril: case F::Op::kTriu:
        Triangle(self);
        break;
      case F::Op::kConstantPad: {
        FillElements(out(), real, integer, integral);
        TensorRef src = self, dst = out();
        for (int64_t d = 0; d < self.rank(); ++d) {
          const int64_t low = pads[2 * d], high = pads[2 * d + 1];
          const int64_t skip = std::max<int64_t>(0, -low), length = self.shape[d] - skip - std::max<int64_t>(0, -high);
          if (length <= 0) return ACLNN_SUCCESS;
          src = Narrow(src, d, skip, length);
          dst = Narrow(dst, d, std::max<int64_t>(0, low), length);
        }
        CopyElements(src, dst);
        break;
      }
      case F::Op::kFlatten: case F::Op::kConfusionTranspose: {
        // A reshape reads self row-major: self (permuted first, for transpose_first) made dense,
        // then that buffer seen in the new shape (permuted after, otherwise) copied to out.
        const bool permute_first = op_ == F::Op::kConfusionTranspose && transpose_first;
        const TensorRef src = permute_first ? self.Permuted(order.data()) : self;
        void* buffer = Scratch(1, static_cast<size_t>(std::max<int64_t>(self.numel(), 1)) * DTypeSize(self.dtype));
        CopyElements(src, DenseRef(buffer, self.dtype, src.shape));
        const TensorRef reshaped = DenseRef(buffer, self.dtype, op_ == F::Op::kFlatten || permute_first ? out().shape : shape);
        CopyElements(op_ == F::Op::kFlatten || permute_first ? reshaped : reshaped.Permuted(order.data()), out());
        break;
      }
      case F::Op::kDiag: case F::Op::kDiagFlat: {
        if (op_ == F::Op::kDiag && self.rank() == 2) {
          CopyElements(Diagonal(self, diagonal), out());
          break;
        }
        // A vector (diag_flat: self's elements row-major) on diagonal `diagonal` of a zero matrix.
        TensorRef vector = self;
        if (self.rank() != 1) {
          void* buffer = Scratch(1, static_cast<size_t>(std::max<int64_t>(self.numel(), 1)) * DTypeSize(self.dtype));
          CopyElements(self, DenseRef(buffer, self.dtype, self.shape));
          vector = DenseRef(buffer, self.dtype, {self.numel()});
        }
        FillElements(out(), 0, 0, true);
        CopyElements(vector, Diagonal(out(), diagonal));
        break;
      }
      case F::Op::kDiagPart: {
        // self's dimension d and d + rank / 2 walked together.
        TensorRef src = self;
        const size_t half = self.shape.size() / 2;
        src.shape.assign(self.shape.begin(), self.shape.begin() + static_cast<std::ptrdiff_t>(half));
        src.strides.resize(half);
        for (size_t d = 0; d < half; ++d) src.strides[d] = self.strides[d] + self.strides[d + half];
        CopyElements(src, out());
        break;
      }
      case F::Op::kRepeat: {
        // out viewed as (repeat, extent) per dimension; the input broadcast along the repeats.
        const int64_t rank = static_cast<int64_t>(shape.size()), lead = rank - self.rank();
        TensorRef src = self, dst = out();
        src.shape.clear(), src.strides.clear(), dst.shape.clear(), dst.strides.clear();
        for (int64_t d = 0; d < rank; ++d) {
          const int64_t extent = d < lead ? 1 : self.shape[d - lead];
          const int64_t stride = d < lead ? 0 : self.strides[d - lead];
          src.shape.push_back(shape[d]), src.strides.push_back(0);
          src.shape.push_back(extent), src.strides.push_back(stride);
          dst.shape.push_back(shape[d]), dst.strides.push_back(out().strides[d] * extent);
          dst.shape.push_back(extent), dst.strides.push_back(out().strides[d]);
        }
        CopyElements(src, dst);
        break;
      }
      default:
        break;
    }
    return ACLNN_SUCCESS;
  }

  // Each rolled dimension is two pieces: [0, n - s) goes to [s, n), [n - s, n) to [0, s); a roll
  // of several dimensions moves each combination of pieces. Without dimensions the input rolls
  // as one flattened row (dense copies of input and output when they are not dense).
  void Roll(const TensorRef& self) {
    if (order.empty()) {
      const int64_t n = self.numel();
      if (n == 0) return;
      const Dims flat{n};
      TensorRef src = self;
      if (!self.Contiguous()) {
        void* buffer = Scratch(1, static_cast<size_t>(n) * DTypeSize(self.dtype));
        src = DenseRef(buffer, self.dtype, self.shape);
        CopyElements(self, src);
      }
      const DenseTarget target(out(), 2);
      const TensorRef line = DenseRef(const_cast<char*>(src.first), self.dtype, flat);
      const TensorRef dst = DenseRef(target.data(), out().dtype, flat);
      const int64_t s = ((shifts[0] % n) + n) % n;
      CopyElements(Narrow(line, 0, 0, n - s), Narrow(dst, 0, s, n - s));
      CopyElements(Narrow(line, 0, n - s, s), Narrow(dst, 0, 0, s));
      target.Finish();
      return;
    }
    const size_t k = order.size();
    for (uint64_t pieces = 0; pieces < (uint64_t{1} << k); ++pieces) {
      TensorRef src = self, dst = out();
      bool empty = false;
      for (size_t j = 0; j < k; ++j) {
        const int64_t d = order[j], n = self.shape[d];
        if (n == 0) return;
        const int64_t s = ((shifts[j] % n) + n) % n;
        if (pieces >> j & 1) {
          src = Narrow(src, d, n - s, s), dst = Narrow(dst, d, 0, s);
          empty = empty || s == 0;
        } else {
          src = Narrow(src, d, 0, n - s), dst = Narrow(dst, d, s, n - s);
          empty = empty || s == n;
        }
      }
      if (!empty) CopyElements(src, dst);
    }
  }

  // Row i of each matrix keeps columns j with j - i <= diagonal (tril) or >= diagonal (triu).
  void Triangle(const TensorRef& self) {
    const TensorRef& dst = out();
    const int64_t rows = self.shape[self.rank() - 2], cols = self.shape[self.rank() - 1];
    const bool in_place = self.first == dst.first && self.strides == dst.strides && self.dtype == dst.dtype;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t lo, hi;  // the kept columns [lo, hi)
      if (op_ == F::Op::kTril) {
        lo = 0, hi = std::clamp<int64_t>(i + diagonal + 1, 0, cols);
      } else {
        lo = std::clamp<int64_t>(i + diagonal, 0, cols), hi = cols;
      }
      const TensorRef src_row = Narrow(self, self.rank() - 2, i, 1), dst_row = Narrow(dst, dst.rank() - 2, i, 1);
      if (hi > lo && !in_place) {
        CopyElements(Narrow(src_row, src_row.rank() - 1, lo, hi - lo), Narrow(dst_row, dst_row.rank() - 1, lo, hi - lo));
      }
      if (lo > 0) FillElements(Narrow(dst_row, dst_row.rank() - 1, 0, lo), 0, 0, true);
      if (hi < cols) FillElements(Narrow(dst_row, dst_row.rank() - 1, hi, cols - hi), 0, 0, true);
    }
  }

  int op_;
};

aclnnStatus CheckShape(const Call& call, const FamilySpec& family, int role, const TensorDesc& t, const Dims& shape,
                       const char* rule) {
  if (t.view == shape) return ACLNN_SUCCESS;
  return RejectInvalid(call, family, role, "shape " + DimsText(t.view) + " is not " + DimsText(shape) + " (" + rule + ")");
}

// The dims role read as a permutation of `rank` dimensions ("of what": the rank's owner, for the
// message), each wrapped and none repeated, appended to `order`.
aclnnStatus ReadPermutation(const Call& call, const FamilySpec& family, const Dims& dims, int64_t rank,
                            const char* of_what, Dims* order) {
  if (static_cast<int64_t>(dims.size()) != rank) {
    return RejectInvalid(call, family, F::Role::kDims, DimsText(dims) + " has " + std::to_string(dims.size()) +
                                                     " entries for " + of_what + " of rank " + std::to_string(rank));
  }
  uint64_t seen = 0;
  for (int64_t d : dims) {
    int64_t wrapped;
    if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDims, d, rank, &wrapped)) return s;
    if (seen >> wrapped & 1) return RejectInvalid(call, family, F::Role::kDims, DimsText(dims) + " repeats dimension " + std::to_string(wrapped));
    seen |= uint64_t{1} << wrapped;
    order->push_back(wrapped);
  }
  return ACLNN_SUCCESS;
}

// A dtype the copies cannot move (complex into a real computation is fine; FLOAT8, INT4, ...
// have no storage type in the engine): the call is not simulated.
bool Movable(aclDataType from, aclDataType to) { return CopyConvertible(from, to); }

}  // namespace

aclnnStatus PlanShape(const Call& call, const FamilySpec& family, ExecutorWork** work, uint64_t* workspace) {
  *workspace = 0;
  const int op = family.op;
  const char* api = call.spec.name;
  const TensorDesc* self = RoleTensor(call, family, F::Role::kSelf);
  const TensorDesc* out = RoleTensor(call, family, F::Role::kOut);
  std::unique_ptr<ShapeWork> made;

  // --- ops over a list of inputs -------------------------------------------------------------------
  if (op == F::Op::kCat || op == F::Op::kStack) {
    const std::vector<TensorDesc>* list = RoleTensorList(call, family, F::Role::kTensors);
    if (!list || !out) return Decline(call, work, "without its tensor list or output");
    if (list->empty()) return RejectInvalid(call, family, F::Role::kTensors, "is empty");
    if (list->size() > 4096) return Decline(call, work, "for more than 4096 tensors");
    for (const TensorDesc& t : *list) {
      if (!Movable(t.dtype, out->dtype)) return DeclineDtype(call, work, t.dtype);
    }
    // cat skips 1-D empty tensors (PyTorch's legacy rule); the others share a rank.
    const TensorDesc* model = nullptr;
    for (const TensorDesc& t : *list) {
      if (!(op == F::Op::kCat && t.view.size() == 1 && t.view[0] == 0)) { model = &t; break; }
    }
    if (!model) model = &list->front();
    const int64_t rank = static_cast<int64_t>(model->view.size());
    int64_t dim;
    if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0),
                                     op == F::Op::kStack ? rank + 1 : rank, &dim)) {
      return s;
    }
    if (op == F::Op::kCat && rank == 0) return RejectInvalid(call, family, F::Role::kTensors, "zero-dimensional tensors cannot be concatenated");
    Dims shape = model->view;
    int64_t total = 0;
    for (size_t k = 0; k < list->size(); ++k) {
      const TensorDesc& t = (*list)[k];
      const std::string who = "member " + std::to_string(k);
      if (op == F::Op::kCat && t.view.size() == 1 && t.view[0] == 0 && rank != 1) continue;
      bool fits = static_cast<int64_t>(t.view.size()) == rank;
      for (int64_t d = 0; fits && d < rank; ++d) fits = t.view[d] == model->view[d] || (op == F::Op::kCat && d == dim);
      if (!fits) {
        return RejectInvalid(call, family, F::Role::kTensors,
                       who + ": shape " + DimsText(t.view) + " does not match " + DimsText(model->view) +
                           (op == F::Op::kCat ? " outside dimension " + std::to_string(dim) : std::string(" (stack needs equal shapes)")));
      }
      if (op == F::Op::kCat) total += t.view[dim];
    }
    // The list's promoted dtype must cast to out's (the page: 推导出的数据类型无法转换为指定输出out的类型).
    aclDataType promoted = model->dtype;
    for (const TensorDesc& t : *list) {
      if (!PromoteTypes(promoted, t.dtype, &promoted)) {
        return RejectInvalid(call, family, F::Role::kTensors, std::string("dtypes ") + DTypeName(promoted) + " and " +
                                                            DTypeName(t.dtype) + " have no promoted dtype");
      }
    }
    if (!CanCast(promoted, out->dtype)) {
      return RejectInvalid(call, family, F::Role::kOut, std::string("dtype ") + DTypeName(out->dtype) +
                                                      " cannot hold the promoted dtype " + DTypeName(promoted) + " of " +
                                                      RoleName(call, family, F::Role::kTensors));
    }
    if (op == F::Op::kCat) {
      shape[dim] = total;
    } else {
      shape = InsertedAt(shape, dim, static_cast<int64_t>(list->size()));
    }
    if (aclnnStatus s = CheckShape(call, family, F::Role::kOut, *out, shape, op == F::Op::kCat ? "the concatenation" : "the stack")) return s;
    const int inputs = static_cast<int>(list->size());
    made.reset(new ShapeWork(api, op, inputs + 1));
    made->inputs = inputs;
    made->dim = dim;
    for (int k = 0; k < inputs; ++k) made->tensor(k).Set(RoleName(call, family, F::Role::kTensors), (*list)[k]);
    made->tensor(inputs).Set(RoleName(call, family, F::Role::kOut), *out);
    *work = made.release();
    return ACLNN_SUCCESS;
  }

  if (!self) return Decline(call, work, "without its input");
  const int64_t rank = static_cast<int64_t>(self->view.size());

  // --- split: one input, a list of outputs -----------------------------------------------------------
  if (op == F::Op::kSplit || op == F::Op::kSplitWithSize) {
    const std::vector<TensorDesc>* outs = RoleTensorList(call, family, F::Role::kOut);
    if (!outs) return Decline(call, work, "without its output list");
    int64_t dim;
    if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDim, RoleInt(call, family, F::Role::kDim, 0), rank, &dim)) return s;
    if (rank == 0) return RejectInvalid(call, family, F::Role::kSelf, "a zero-dimensional tensor cannot be split");
    const int64_t extent = self->view[dim];
    Dims sizes;
    if (op == F::Op::kSplit) {
      const int64_t section = RoleInt(call, family, F::Role::kSize, -1);
      if (section < 0 || (section == 0 && extent != 0)) {
        return RejectInvalid(call, family, F::Role::kSize, "split size " + std::to_string(section) +
                                                         " must be positive (0 only for an empty dimension)");
      }
      if (extent == 0) sizes.push_back(0);
      for (int64_t at = 0; at < extent; at += section) sizes.push_back(std::min(section, extent - at));
    } else {
      RoleInts(call, family, F::Role::kSize, &sizes);
      int64_t sum = 0;
      for (int64_t v : sizes) {
        if (v < 0) return RejectInvalid(call, family, F::Role::kSize, "sizes " + DimsText(sizes) + " include a negative size");
        sum += v;
      }
      if (sum != extent) {
        return RejectInvalid(call, family, F::Role::kSize, "sizes " + DimsText(sizes) + " sum to " + std::to_string(sum) +
                                                         ", not to dimension " + std::to_string(dim) + "'s extent " +
                                                         std::to_string(extent));
      }
    }
    if (outs->size() != sizes.size()) {
      return RejectInvalid(call, family, F::Role::kOut, "has " + std::to_string(outs->size()) + " tensors; the split gives " +
                                                      std::to_string(sizes.size()));
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      Dims shape = self->view;
      shape[dim] = sizes[k];
      if ((*outs)[k].view != shape) {
        return RejectInvalid(call, family, F::Role::kOut, "member " + std::to_string(k) + ": shape " + DimsText((*outs)[k].view) +
                                                        " is not the split's " + DimsText(shape));
      }
      if (!Movable(self->dtype, (*outs)[k].dtype)) return DeclineDtype(call, work, self->dtype);
    }
    made.reset(new ShapeWork(api, op, static_cast<int>(sizes.size()) + 1));
    made->dim = dim;
    made->tensor(0).Set(RoleName(call, family, F::Role::kSelf), *self);
    for (size_t k = 0; k < sizes.size(); ++k) made->tensor(1 + static_cast<int>(k)).Set(RoleName(call, family, F::Role::kOut), (*outs)[k]);
    *work = made.release();
    return ACLNN_SUCCESS;
  }

  // --- one input, one output -------------------------------------------------------------------------
  if (!out) return Decline(call, work, "without its output");
  if (!Movable(self->dtype, out->dtype)) {
    return Decline(call, work, std::string("from dtype ") + DTypeName(self->dtype) + " to " + DTypeName(out->dtype));
  }
  made.reset(new ShapeWork(api, op, 2));
  ShapeWork& w = *made;
  Dims shape = self->view;  // the output's shape by the op's rule
  const char* rule = "the input's shape";
  switch (op) {
    case F::Op::kCast: {
      // The result is self in `dtype`; an out of another dtype receives it converted again.
      const aclDataType dtype = RoleDType(call, family, F::Role::kDtype, out->dtype);
      if (dtype != out->dtype) {
        if (!Movable(self->dtype, dtype) || !Movable(dtype, out->dtype)) {
          return Decline(call, work, std::string("through dtype ") + DTypeName(dtype));
        }
        w.through = dtype;
      }
      break;
    }
    case F::Op::kCopy: {
      // The source broadcasts to the destination (the output role: selfRef).
      const int64_t lead = static_cast<int64_t>(out->view.size()) - rank;
      bool fits = lead >= 0;
      for (int64_t d = 0; fits && d < rank; ++d) fits = self->view[d] == 1 || self->view[d] == out->view[lead + d];
      if (!fits) {
        return RejectInvalid(call, family, F::Role::kSelf, "shape " + DimsText(self->view) + " does not broadcast to " +
                                                         RoleName(call, family, F::Role::kOut) + "'s shape " + DimsText(out->view));
      }
      shape = out->view;
      break;
    }
    case F::Op::kPermute: {
      Dims dims;
      RoleInts(call, family, F::Role::kDims, &dims);
      if (aclnnStatus s = ReadPermutation(call, family, dims, rank, "a tensor", &w.order)) return s;
      for (int64_t d = 0; d < rank; ++d) shape[d] = self->view[w.order[d]];
      rule = "the input's shape permuted";
      break;
    }
    case F::Op::kExpand: {
      Dims size;
      RoleInts(call, family, F::Role::kSize, &size);
      const int64_t target = static_cast<int64_t>(size.size()), lead = target - rank;
      if (lead < 0) {
        return RejectInvalid(call, family, F::Role::kSize, DimsText(size) + " has fewer entries than the input's rank " +
                                                         std::to_string(rank));
      }
      shape = size;
      for (int64_t d = 0; d < target; ++d) {
        const int64_t have = d < lead ? -2 : self->view[d - lead];
        if (d < lead ? size[d] < 0 : !(size[d] == -1 || size[d] == have || have == 1)) {
          return RejectInvalid(call, family, F::Role::kSize, DimsText(size) + " cannot expand shape " + DimsText(self->view) +
                                                           " (entry " + std::to_string(d) + ")");
        }
        if (size[d] == -1) shape[d] = have;
      }
      rule = "the expanded shape";
      break;
    }
    case F::Op::kFlip: {
      Dims dims;
      RoleInts(call, family, F::Role::kDims, &dims);
      uint64_t seen = 0;
      for (int64_t d : dims) {
        int64_t wrapped;
        if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDims, d, rank, &wrapped)) return s;
        if (seen >> wrapped & 1) return RejectInvalid(call, family, F::Role::kDims, DimsText(dims) + " repeats dimension " + std::to_string(wrapped));
        seen |= uint64_t{1} << wrapped;
        if (rank > 0) w.order.push_back(wrapped);
      }
      break;
    }
    case F::Op::kRoll: {
      Dims dims, shifts;
      RoleInts(call, family, F::Role::kDims, &dims);
      RoleInts(call, family, F::Role::kShifts, &shifts);
      if (dims.empty() ? shifts.size() != 1 : shifts.size() != dims.size()) {
        return RejectInvalid(call, family, F::Role::kShifts, DimsText(shifts) + " must have " +
                                                           (dims.empty() ? std::string("one entry when dims is empty")
                                                                         : "as many entries as dims " + DimsText(dims)));
      }
      // A dimension named twice rolls by the sum of its shifts.
      for (size_t j = 0; j < dims.size(); ++j) {
        int64_t wrapped;
        if (aclnnStatus s = WrapDimOrReject(call, family, F::Role::kDims, dims[j], rank, &wrapped)) return s;
        if (rank == 0) continue;
        auto at = std::find(w.order.begin(), w.order.end(), wrapped);
        if (at == w.order.end()) {
          w.order.push_back(wrapped);
          w.shifts.push_back(shifts[j]);
        } else {
          w.shifts[at - w.order.begin()] += shifts[j];
        }
      }
      if (dims.empty()) w.shifts = shifts;
      else if (rank == 0) w.shifts = Dims{0}, w.order.clear();
      break;
    }
    case F::Op::kTril: case F::Op::kTriu:
      if (rank < 2) return RejectInvalid(call, family, F::Role::kSelf, "rank " + std::to_string(rank) + " is below 2 (a matrix or a batch of them)");
      w.diagonal = RoleInt(call, family, F::Role::kDiagonal, 0);
      break;
    case F::Op::kConstantPad: {
      Dims pad;
      RoleInts(call, family, F::Role::kPad, &pad);
      if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank) {
        return RejectInvalid(call, family, F::Role::kPad, DimsText(pad) + " must have an even number of entries, at most twice the rank " +
                                                        std::to_string(rank));
      }
      w.pads.assign(static_cast<size_t>(2 * rank), 0);
      bool grows = false;
      for (size_t j = 0; j < pad.size() / 2; ++j) {  // pad's first pair is the last dimension's
        const int64_t d = rank - 1 - static_cast<int64_t>(j);
        w.pads[2 * d] = pad[2 * j], w.pads[2 * d + 1] = pad[2 * j + 1];
        shape[d] = aclnn_bindgen::PaddedSize(self->view[d], pad[2 * j], pad[2 * j + 1]);
        grows = grows || pad[2 * j] > 0 || pad[2 * j + 1] > 0;
        if (shape[d] < 0) {
          return RejectByRow(call, family, F::Role::kPad, RowKind::kOutputSize,
                             DimsText(pad) + " makes dimension " + std::to_string(d) + " negative (" + std::to_string(shape[d]) + ")");
        }
      }
      if (grows) {  // "如果pad中存在正数，则out的shape中不能有0", stricter than PyTorch, which pads to an empty result
        for (int64_t d = 0; d < rank; ++d) {
          if (shape[d] == 0) {
            return RejectByRow(call, family, F::Role::kPad, RowKind::kOutputSize,
                               DimsText(pad) + " pads a tensor whose padded shape " + DimsText(shape) + " has a zero extent");
          }
        }
      }
      const Call::Param* value = RoleParam(call, family, F::Role::kValue);
      if (value) {
        w.real = value->scalar_double;
        w.integer = value->scalar_int;
        switch (value->scalar.dtype) {
          case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_DOUBLE: case ACL_COMPLEX64: case ACL_COMPLEX128:
            w.integral = false;
            break;
          default:
            w.integral = true;
            break;
        }
      }
      rule = "the padded shape";
      break;
    }
    case F::Op::kRepeat: {
      Dims repeats;
      RoleInts(call, family, F::Role::kSize, &repeats);
      const int64_t target = static_cast<int64_t>(repeats.size()), lead = target - rank;
      if (lead < 0) {
        return RejectInvalid(call, family, F::Role::kSize, DimsText(repeats) + " has fewer entries than the input's rank " +
                                                         std::to_string(rank));
      }
      if (target > kMaxRank) return RejectInvalid(call, family, F::Role::kSize, DimsText(repeats) + " has more than 8 entries");
      shape = repeats;
      for (int64_t d = 0; d < target; ++d) {
        if (repeats[d] < 0) return RejectInvalid(call, family, F::Role::kSize, DimsText(repeats) + " has a negative repeat");
        shape[d] = repeats[d] * (d < lead ? 1 : self->view[d - lead]);
      }
      w.shape = repeats;
      rule = "the input's shape times the repeats";
      break;
    }
    case F::Op::kSlice: case F::Op::kSliceAssign: {
      // One dimension (start, end, step as ints) or several (int arrays with their axes); the
      // bounds as Python's slices take them: negative from the end, clamped to the extent.
      Dims starts, ends, axes, steps;
      const bool arrays = RoleInts(call, family, F::Role::kStart, &starts) &&
                          call.spec.params[family.roles[F::Role::kStart]].kind == ParamKind::kIntArray;
      RoleInts(call, family, F::Role::kEnd, &ends);
      RoleInts(call, family, F::Role::kStep, &steps);
      if (arrays) {
        // Without an axes array the bounds are of the leading dimensions in order (aclnnStridedSlice).
        if (!RoleInts(call, family, F::Role::kDims, &axes)) {
          for (size_t j = 0; j < starts.size(); ++j) axes.push_back(static_cast<int64_t>(j));
        }
        if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
          return RejectInvalid(call, family, F::Role::kStart, "starts, ends, axes and steps differ in length (" +
                                                            std::to_string(starts.size()) + ", " + std::to_string(ends.size()) + ", " +
                                                            std::to_string(axes.size()) + ", " + std::to_string(steps.size()) + ")");
        }
      } else {
        axes.push_back(RoleInt(call, family, F::Role::kDim, 0));
        if (starts.empty()) starts.push_back(0);
        if (ends.empty()) ends.push_back(INT64_MAX);
        if (steps.empty()) steps.push_back(1);
      }
      if (rank == 0) return RejectInvalid(call, family, F::Role::kSelf, "a zero-dimensional tensor cannot be sliced");
      w.starts.assign(static_cast<size_t>(rank), 0);
      w.lengths = self->view;
      w.steps.assign(static_cast<size_t>(rank), 1);
      uint64_t seen = 0;
      for (size_t j = 0; j < axes.size(); ++j) {
        int64_t d;
        if (aclnnStatus s = WrapDimOrReject(call, family, arrays ? F::Role::kDims : F::Role::kDim, axes[j], rank, &d)) return s;
        if (seen >> d & 1) return RejectInvalid(call, family, F::Role::kDims, DimsText(axes) + " repeats dimension " + std::to_string(d));
        seen |= uint64_t{1} << d;
        if (steps[j] <= 0) {
          return RejectInvalid(call, family, F::Role::kStep, "step " + std::to_string(steps[j]) + " is not positive");
        }
        const int64_t n = self->view[d];
        int64_t start = starts[j], end = ends[j];
        if (start < 0) start += n;
        if (end < 0) end += n;
        start = std::clamp<int64_t>(start, 0, n);
        end = std::clamp<int64_t>(end, start, n);
        w.starts[d] = start;
        w.steps[d] = steps[j];
        w.lengths[d] = (end - start + steps[j] - 1) / steps[j];
        shape[d] = w.lengths[d];
      }
      rule = "the slice's shape";
      break;
    }
    case F::Op::kFlatten: {
      // axis in [-rank, rank - 1] (aclnnFlatten's page; 0 for a zero-dimensional self, one row of one element).
      int64_t axis = RoleInt(call, family, F::Role::kDim, 1);
      if (axis < -rank || axis > std::max<int64_t>(rank - 1, 0)) {
        return RejectInvalid(call, family, F::Role::kDim, std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", " +
                                                        std::to_string(std::max<int64_t>(rank - 1, 0)) + "]");
      }
      if (axis < 0) axis += rank;
      int64_t rows = 1, columns = 1;
      for (int64_t d = 0; d < rank; ++d) (d < axis ? rows : columns) *= self->view[d];
      shape = {rows, columns};
      rule = "the flattened shape";
      break;
    }
    case F::Op::kConfusionTranspose: {
      // Transposed first: self permuted, then reshaped to size (out: size); else self reshaped to
      // size, then permuted (out: size permuted).
      Dims dims, size;
      RoleInts(call, family, F::Role::kDims, &dims);
      RoleInts(call, family, F::Role::kSize, &size);
      w.transpose_first = RoleBool(call, family, F::Role::kTransposeFirst, false);
      const int64_t permuted_rank = w.transpose_first ? rank : static_cast<int64_t>(size.size());
      if (aclnnStatus s = ReadPermutation(call, family, dims, permuted_rank, "a permutation", &w.order)) return s;
      int64_t count = 1;
      for (int64_t d : size) {
        if (d < 0) return RejectInvalid(call, family, F::Role::kSize, DimsText(size) + " has a negative extent");
        count *= d;
      }
      if (count != self->numel()) {
        return RejectInvalid(call, family, F::Role::kSize, DimsText(size) + " holds " + std::to_string(count) +
                                                         " elements where the input holds " + std::to_string(self->numel()));
      }
      w.shape = size;
      shape = size;
      if (!w.transpose_first) {
        for (int64_t d = 0; d < permuted_rank; ++d) shape[d] = size[w.order[d]];
      }
      rule = "the reshaped permutation's shape";
      break;
    }
    case F::Op::kDiag: case F::Op::kDiagFlat: {
      w.diagonal = RoleInt(call, family, F::Role::kDiagonal, 0);
      const int64_t k = w.diagonal;
      if (op == F::Op::kDiag && rank == 2) {
        const int64_t m = self->view[0], n = self->view[1];
        shape = {std::max<int64_t>(0, k >= 0 ? std::min(m, n - k) : std::min(m + k, n))};
        rule = "the matrix's diagonal";
        break;
      }
      if (op == F::Op::kDiag && rank != 1) {
        return RejectInvalid(call, family, F::Role::kSelf, "rank " + std::to_string(rank) + " is neither 1 (a vector) nor 2 (a matrix)");
      }
      const int64_t n = self->numel() + (k < 0 ? -k : k);
      shape = {n, n};
      rule = "the diagonal matrix's shape";
      break;
    }
    case F::Op::kDiagPart: {
      const int64_t half = rank / 2;
      if (rank == 0 || rank % 2 != 0) {
        return RejectInvalid(call, family, F::Role::kSelf, "rank " + std::to_string(rank) + " is not an even number above 0");
      }
      for (int64_t d = 0; d < half; ++d) {
        if (self->view[d] != self->view[d + half]) {
          return RejectInvalid(call, family, F::Role::kSelf, "shape " + DimsText(self->view) + ": dimension " + std::to_string(d) +
                                                           " differs from dimension " + std::to_string(d + half));
        }
      }
      shape.assign(self->view.begin(), self->view.begin() + half);
      rule = "the diagonal's shape";
      break;
    }
    default:
      return Decline(call, work, "");
  }
  const int out_role = F::Role::kOut;
  if (op == F::Op::kSliceAssign) {  // src fills the slice of self (out)
    const TensorDesc* src = RoleTensor(call, family, F::Role::kSrc);
    if (!src) return Decline(call, work, "without its source");
    if (aclnnStatus s = CheckShape(call, family, F::Role::kSrc, *src, shape, rule)) return s;
    if (aclnnStatus s = CheckShape(call, family, out_role, *out, self->view, "the input's shape")) return s;
    if (!Movable(src->dtype, out->dtype)) {
      return Decline(call, work, std::string("from dtype ") + DTypeName(src->dtype) + " to " + DTypeName(out->dtype));
    }
    w.tensor(0).Set(RoleName(call, family, F::Role::kSrc), *src);
    w.tensor(1).Set(RoleName(call, family, out_role), *out);
    *work = made.release();
    return ACLNN_SUCCESS;
  }
  if (op != F::Op::kCopy) {
    if (aclnnStatus s = CheckShape(call, family, out_role, *out, shape, rule)) return s;
  }
  w.tensor(0).Set(RoleName(call, family, F::Role::kSelf), *self);
  w.tensor(1).Set(RoleName(call, family, out_role), *out);
  *work = made.release();
  return ACLNN_SUCCESS;
}

}  // namespace aclsim
