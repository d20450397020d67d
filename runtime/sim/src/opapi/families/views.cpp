// Views and element moves for the data-movement families (see views.h).
#include "opapi/families/views.h"

#include <algorithm>
#include <cstring>

#include "aclnn_bindgen/shape_rule.h"
#include "common/dtypes.h"
#include "opapi/thread_pool.h"

namespace aclsim {
namespace {

constexpr int64_t kGrain = 1 << 16;  // elements per parallel task at least
constexpr int64_t kBlock = 1024;     // elements converted per buffer fill

// The index space of a copy after coalescing: extents, and per operand (destination first)
// byte strides. Dimensions of extent 1 are dropped; adjacent ones that every operand walks
// as one are merged, so that dense copies become one long row.
struct Walk {
  Dims sizes;
  Dims strides[2];

  Walk(const Dims& shape, const Dims* element_strides[2], const size_t element[2]) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      bool merge = !sizes.empty();
      int64_t bytes[2];
      for (int op = 0; op < 2; ++op) {
        bytes[op] = (*element_strides[op])[d] * static_cast<int64_t>(element[op]);
        merge = merge && strides[op].back() == bytes[op] * shape[d];
      }
      for (int op = 0; op < 2; ++op) {
        if (merge) strides[op].back() = bytes[op];
        else strides[op].push_back(bytes[op]);
      }
      if (merge) sizes.back() *= shape[d];
      else sizes.push_back(shape[d]);
    }
    if (sizes.empty()) {
      sizes.push_back(1);
      for (auto& s : strides) s.push_back(0);
    }
  }

  int64_t rows() const {
    int64_t n = 1;
    for (size_t d = 0; d + 1 < sizes.size(); ++d) n *= sizes[d];
    return n;
  }
  int64_t length() const { return sizes.back(); }
  int64_t Offset(int op, int64_t row) const {
    int64_t offset = 0;
    for (size_t d = sizes.size() - 1; d-- > 0;) {
      offset += (row % sizes[d]) * strides[op][d];
      row /= sizes[d];
    }
    return offset;
  }
};

// fn(row, begin, end) over every row's elements [begin, end), in parallel tasks when the copy is
// large: whole rows, or pieces of rows when there are fewer rows than threads.
template <typename Fn>
void ForPieces(const Walk& walk, Fn&& fn) {
  const int64_t rows = walk.rows(), length = walk.length();
  const int64_t total = rows * length;
  if (total < kGrain || ParallelThreads() <= 1) {
    for (int64_t r = 0; r < rows; ++r) fn(r, int64_t{0}, length);
    return;
  }
  const int64_t threads = ParallelThreads();
  const int64_t pieces = rows >= threads * 4 ? 1 : std::max<int64_t>(1, std::min<int64_t>(threads * 4, length / kGrain));
  const int64_t units = rows * pieces;
  const int64_t tasks = std::min<int64_t>(units, threads * 4);
  ParallelFor(tasks, [&](int64_t task) {
    for (int64_t u = units * task / tasks; u < units * (task + 1) / tasks; ++u) {
      const int64_t r = u / pieces, p = u % pieces;
      fn(r, length * p / pieces, length * (p + 1) / pieces);
    }
  });
}

template <typename E>
void MoveBits(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    E v;
    std::memcpy(&v, src + i * ss, sizeof(E));
    std::memcpy(dst + i * ds, &v, sizeof(E));
  }
}

void CopyBits(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n, size_t size) {
  if (ss == static_cast<int64_t>(size) && ds == ss) {
    std::memcpy(dst, src, static_cast<size_t>(n) * size);
    return;
  }
  switch (size) {
    case 1: MoveBits<uint8_t>(src, ss, dst, ds, n); break;
    case 2: MoveBits<uint16_t>(src, ss, dst, ds, n); break;
    case 4: MoveBits<uint32_t>(src, ss, dst, ds, n); break;
    case 8: MoveBits<uint64_t>(src, ss, dst, ds, n); break;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, size);
      break;
  }
}

bool IsIntegerDType(aclDataType d) {
  switch (d) {
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: case ACL_INT16: case ACL_UINT16: case ACL_INT32:
    case ACL_UINT32: case ACL_INT64: case ACL_UINT64:
      return true;
    default:
      return false;
  }
}
bool IsFloat32Like(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }

// The compute type a conversion from `from` to `to` goes through.
ComputeType ConversionType(aclDataType from, aclDataType to) {
  if (IsComplexDType(from) || IsComplexDType(to)) return ComputeType::kComplex128;
  if (IsIntegerDType(from) && IsIntegerDType(to)) return ComputeType::kInt64;
  if (IsFloat32Like(from) && IsFloat32Like(to)) return ComputeType::kFloat32;
  return ComputeType::kFloat64;
}

}  // namespace

Dims InsertedAt(const Dims& dims, int64_t at, int64_t value) {
  Dims out;
  for (int64_t d = 0; d <= static_cast<int64_t>(dims.size()); ++d) {
    if (d == at) out.push_back(value);
    if (d < static_cast<int64_t>(dims.size())) out.push_back(dims[d]);
  }
  return out;
}

Dims RemovedAt(const Dims& dims, int64_t at) {
  Dims out;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != at) out.push_back(dims[d]);
  }
  return out;
}

TensorRef Narrow(const TensorRef& t, int64_t dim, int64_t start, int64_t length) {
  return StepSlice(t, dim, start, length, 1);
}

TensorRef StepSlice(const TensorRef& t, int64_t dim, int64_t start, int64_t length, int64_t step) {
  TensorRef out = t;
  if (length > 0) out.first += start * t.strides[dim] * static_cast<int64_t>(DTypeSize(t.dtype));
  out.shape[dim] = length;
  out.strides[dim] = t.strides[dim] * step;
  return out;
}

TensorRef SelectDim(const TensorRef& t, int64_t dim, int64_t index) {
  TensorRef out = t;
  out.first += index * t.strides[dim] * static_cast<int64_t>(DTypeSize(t.dtype));
  out.shape = RemovedAt(t.shape, dim);
  out.strides = RemovedAt(t.strides, dim);
  return out;
}

TensorRef Flipped(const TensorRef& t, int64_t dim) {
  TensorRef out = t;
  if (t.shape[dim] > 0) out.first += (t.shape[dim] - 1) * t.strides[dim] * static_cast<int64_t>(DTypeSize(t.dtype));
  out.strides[dim] = -t.strides[dim];
  return out;
}

TensorRef Unsqueezed(const TensorRef& t, int64_t dim) {
  TensorRef out = t;
  out.shape = InsertedAt(t.shape, dim, 1);
  out.strides = InsertedAt(t.strides, dim, 0);
  return out;
}

TensorRef BroadcastTo(const TensorRef& t, const Dims& shape) {
  TensorRef out = t;
  out.shape = shape;
  out.strides.assign(shape.size(), 0);
  const size_t lead = shape.size() - t.shape.size();
  for (size_t d = 0; d < t.shape.size(); ++d) {
    out.strides[lead + d] = t.shape[d] == 1 ? 0 : t.strides[d];
  }
  return out;
}

TensorRef DenseRef(void* data, aclDataType dtype, const Dims& shape) {
  TensorRef out;
  out.name = "";
  out.first = static_cast<char*>(data);
  out.data = data;
  out.dtype = dtype;
  out.shape = shape;
  out.strides.assign(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) out.strides[d - 1] = out.strides[d] * std::max<int64_t>(shape[d], 1);
  return out;
}

bool CopyConvertible(aclDataType from, aclDataType to) {
  if (from == to) return DTypeSize(from) > 0;
  const ComputeType type = ConversionType(from, to);
  return Loader(type, from) != nullptr && Storer(type, to) != nullptr;
}

void CopyElements(const TensorRef& src, const TensorRef& dst) {
  if (dst.numel() == 0) return;
  const Dims* strides[2] = {&dst.strides, &src.strides};
  const size_t element[2] = {DTypeSize(dst.dtype), DTypeSize(src.dtype)};
  const Walk walk(dst.shape, strides, element);
  const int64_t dstride = walk.strides[0].back(), sstride = walk.strides[1].back();
  if (src.dtype == dst.dtype) {
    ForPieces(walk, [&](int64_t r, int64_t begin, int64_t end) {
      CopyBits(src.first + walk.Offset(1, r) + begin * sstride, sstride, dst.first + walk.Offset(0, r) + begin * dstride,
               dstride, end - begin, element[0]);
    });
    return;
  }
  const ComputeType type = ConversionType(src.dtype, dst.dtype);
  const LoadFn load = Loader(type, src.dtype);
  const StoreFn store = Storer(type, dst.dtype);
  const size_t size = ComputeSize(type);
  ForPieces(walk, [&](int64_t r, int64_t begin, int64_t end) {
    void* buffer = Scratch(7, static_cast<size_t>(kBlock) * size);
    const char* s = src.first + walk.Offset(1, r);
    char* d = dst.first + walk.Offset(0, r);
    for (int64_t i = begin; i < end; i += kBlock) {
      const int64_t n = std::min(kBlock, end - i);
      load(s + i * sstride, sstride, n, buffer);
      store(buffer, d + i * dstride, dstride, n);
    }
  });
}

void ScalarBits(aclDataType dtype, double real, int64_t integer, bool integral, unsigned char bits[16]) {
  std::memset(bits, 0, 16);
  char* at = reinterpret_cast<char*>(bits);
  if (IsComplexDType(dtype)) {
    const double value[2] = {integral ? static_cast<double>(integer) : real, 0.0};
    Storer(ComputeType::kComplex128, dtype)(value, at, 0, 1);
  } else if (integral) {
    Storer(ComputeType::kInt64, dtype)(&integer, at, 0, 1);
  } else {
    Storer(ComputeType::kFloat64, dtype)(&real, at, 0, 1);
  }
}

void FillElements(const TensorRef& dst, double real, int64_t integer, bool integral) {
  // One element of dst's dtype, then broadcast by a copy of stride 0.
  alignas(16) unsigned char bits[16];
  ScalarBits(dst.dtype, real, integer, integral, bits);
  CopyElements(BroadcastTo(DenseRef(bits, dst.dtype, Dims()), dst.shape), dst);
}

void ForEachElement(const TensorRef& t, const std::function<void(int64_t, char*)>& fn) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const int64_t rank = t.rank();
  const int64_t length = rank == 0 ? 1 : t.shape[rank - 1];
  const int64_t stride = (rank == 0 ? 0 : t.strides[rank - 1]) * static_cast<int64_t>(DTypeSize(t.dtype));
  const int64_t rows = length == 0 ? 0 : n / length;
  auto row = [&](int64_t r) {
    int64_t offset = 0, rest = r;
    for (int64_t d = rank - 1; d-- > 0;) {
      offset += (rest % t.shape[d]) * t.strides[d];
      rest /= t.shape[d];
    }
    char* base = t.first + offset * static_cast<int64_t>(DTypeSize(t.dtype));
    for (int64_t j = 0; j < length; ++j) fn(r * length + j, base + j * stride);
  };
  const int64_t tasks = n < kGrain ? 1 : std::min<int64_t>(rows, ParallelThreads() * 4);
  if (tasks <= 1) {
    for (int64_t r = 0; r < rows; ++r) row(r);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) {
    for (int64_t r = rows * task / tasks; r < rows * (task + 1) / tasks; ++r) row(r);
  });
}

void FillFrom(const TensorRef& dst, const TensorRef& value) {
  TensorRef one = value;
  one.shape.clear();
  one.strides.clear();
  CopyElements(BroadcastTo(one, dst.shape), dst);
}

DenseTarget::DenseTarget(const TensorRef& dst, int scratch) : dst_(dst) {
  if (dst.Contiguous()) {
    ref_ = dst;
    data_ = dst.first;
  } else {
    data_ = static_cast<char*>(
        Scratch(scratch, static_cast<size_t>(std::max<int64_t>(dst.numel(), 1)) * DTypeSize(dst.dtype)));
    ref_ = DenseRef(data_, dst.dtype, dst.shape);
  }
}

void DenseTarget::Finish() const {
  if (data_ != dst_.first) CopyElements(ref_, dst_);
}

bool BroadcastShape(const Dims& a, const Dims& b, Dims* out) {
  return aclnn_bindgen::BroadcastShapes(a, b, out);  // the bindings' broadcast of an output's inputs
}

const int64_t* IndexValues(const TensorRef& t, int scratch) {
  return static_cast<const int64_t*>(ContiguousAs(t, ComputeType::kInt64, scratch));
}

}  // namespace aclsim
