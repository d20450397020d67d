// The elementwise engine.
//
// The output's index space is coalesced (dimensions of size 1 dropped, dimensions that are
// contiguous in every operand merged) and split among the pool's threads. Each thread walks its
// range row by row (a row: the innermost coalesced dimension). In a row, an operand whose memory
// already holds contiguous values of the compute type is handed to the kernel directly; any
// other (another dtype, a stride, a broadcast) is gathered and converted into a small buffer
// block by block, and the output is converted and scattered back. Loads and stores are
// instantiated here once per (compute type, dtype); the generated entries instantiate only the
// kernel's block loop, once per compute type.
#include "opapi/elementwise.h"

#include "ascendcl/settings.h"

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aclnn_sim/complex.h"  // IsComplex for std::complex
#include "common/dtypes.h"
#include "common/minifloat.h"
#include "opapi/thread_pool.h"


namespace aclsim {
namespace {

// Elements per gathered block. Small, because a block is loaded one operand at a time: with
// 256 elements the next operand's loads start while the previous one's misses are still in
// flight. Measured on FLOAT16 LeakyReluBackward at 16M elements: 256 and 512 about 3.9 ms,
// 1024 6.9 ms, 2048 7.3 ms.
constexpr int64_t kBlock = 256;
// Elements per parallel task at least (smaller tensors run on the calling thread).
constexpr int64_t kGrain = 32768;
// Tasks per pool thread at most (see RunElementwise).
constexpr int64_t kTasksPerThread = 8;

// Storage formats that are not C arithmetic types.
struct Half { uint16_t bits; };
struct BFloat { uint16_t bits; };
struct Bool8 { uint8_t byte; };  // any nonzero byte is true, as in PyTorch
// The MX element and scale formats (common/minifloat.h): loaded exactly, never stored, since a plain
// cast's overflow to them is a conversion no page defines (their quantisers encode them: mx_quant.cpp).
struct Float8E4M3Fn { uint8_t bits; };
struct Float8E5M2 { uint8_t bits; };
struct Float8E8M0 { uint8_t bits; };
template <typename S>
constexpr bool kLoadOnly = std::is_same<S, Float8E4M3Fn>::value || std::is_same<S, Float8E5M2>::value ||
                           std::is_same<S, Float8E8M0>::value;
// COMPLEX32 (PyTorch's chalf): two FLOAT16 halves, computed in complex<float>.
struct ComplexHalf { uint16_t real, imag; };

// A value of one arithmetic type in another. Floating -> integral saturates (NaN -> 0), where C++
// would be undefined; integral -> integral wraps, as PyTorch's casts do. Real -> complex has
// imaginary part 0; complex -> real keeps the real part (phase 1 lets a complex computation store
// into a real output only where the page says the result is real, e.g. |z|).
template <typename To, typename From>
To CastValue(From v) {
  if constexpr (IsComplex<To>::value) {
    if constexpr (IsComplex<From>::value) {
      return static_cast<To>(v);
    } else {
      return To(CastValue<typename To::value_type>(v), 0);
    }
  } else if constexpr (IsComplex<From>::value) {
    return CastValue<To>(v.real());
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From hi = static_cast<From>(std::numeric_limits<To>::max());
    if (!(v == v)) return 0;
    if (v <= lo) return std::numeric_limits<To>::lowest();
    if (v >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <typename T, typename S>
T Decode(S v) { return CastValue<T>(v); }
template <typename T>
T Decode(Half v) { return CastValue<T>(HalfToFloat(v.bits)); }
template <typename T>
T Decode(BFloat v) { return CastValue<T>(BFloat16ToFloat(v.bits)); }
template <typename T>
T Decode(Bool8 v) { return static_cast<T>(v.byte != 0); }
template <typename T>
T Decode(Float8E4M3Fn v) { return CastValue<T>(DecodeMiniFloat(kFloat8E4M3Fn, v.bits)); }
template <typename T>
T Decode(Float8E5M2 v) { return CastValue<T>(DecodeMiniFloat(kFloat8E5M2, v.bits)); }
template <typename T>
T Decode(Float8E8M0 v) { return CastValue<T>(DecodeE8M0(v.bits)); }
template <typename T>
T Decode(ComplexHalf v) {
  return CastValue<T>(std::complex<float>(HalfToFloat(v.real), HalfToFloat(v.imag)));
}

template <typename S, typename T>
S Encode(T v) {
  if constexpr (std::is_same<S, Half>::value) {
    return Half{FloatToHalf(CastValue<float>(v))};
  } else if constexpr (std::is_same<S, BFloat>::value) {
    return BFloat{FloatToBFloat16(CastValue<float>(v))};
  } else if constexpr (std::is_same<S, Bool8>::value) {
    return Bool8{static_cast<uint8_t>(v != T(0))};
  } else if constexpr (std::is_same<S, ComplexHalf>::value) {
    const std::complex<float> z = CastValue<std::complex<float>>(v);
    return ComplexHalf{FloatToHalf(z.real()), FloatToHalf(z.imag())};
  } else {
    return CastValue<S>(v);
  }
}

// n values of storage type S at src, src + stride, ... into compute values at dst.
template <typename T, typename S>
__attribute__((always_inline)) inline void LoadRowBody(const char* src, int64_t stride, int64_t n, T* dst) {
  if (stride == static_cast<int64_t>(sizeof(S))) {
    for (int64_t i = 0; i < n; ++i) {
      S v;
      std::memcpy(&v, src + i * sizeof(S), sizeof(S));
      dst[i] = Decode<T>(v);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    S v;
    std::memcpy(&v, src + i * stride, sizeof(S));
    dst[i] = Decode<T>(v);
  }
}

template <typename T, typename S>
__attribute__((always_inline)) inline void StoreRowBody(const T* src, char* dst, int64_t stride, int64_t n) {
  if (stride == static_cast<int64_t>(sizeof(S))) {
    for (int64_t i = 0; i < n; ++i) {
      const S v = Encode<S>(src[i]);
      std::memcpy(dst + i * sizeof(S), &v, sizeof(S));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const S v = Encode<S>(src[i]);
    std::memcpy(dst + i * stride, &v, sizeof(S));
  }
}

#if defined(__x86_64__)
// Contiguous BFLOAT16 rows on the baseline path (no fused loop there: one per kernel would cost
// the generated units 16% more compile time), 8 at a time in SSE2, in order: the unpacks against
// zero widen, the rounding is FloatToBFloat16's, and the pack (SSE2 has only the signed one) keeps
// each half as it is because the rounded bits are shifted down arithmetically. In a row of 256
// around a float kernel's block (one core): GELU (erf) 1.71 -> 1.32 ns an element, silu 1.42 ->
// 1.05, a multiplication 0.69 -> 0.31, against the scalar conversions.
typedef float Float4 __attribute__((vector_size(16)));
typedef int Int4 __attribute__((vector_size(16)));
typedef unsigned UInt4 __attribute__((vector_size(16)));

void LoadBFloat16Sse2(const char* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const Short8 halves = *reinterpret_cast<const StoredShort8*>(src + 2 * i), zero{};
    const Float4 low = (Float4)__builtin_shufflevector(zero, halves, 0, 8, 1, 9, 2, 10, 3, 11);
    const Float4 high = (Float4)__builtin_shufflevector(zero, halves, 4, 12, 5, 13, 6, 14, 7, 15);
    std::memcpy(dst + i, &low, sizeof low);
    std::memcpy(dst + i + 4, &high, sizeof high);
  }
  LoadRowBody<float, BFloat>(src + 2 * i, 2, n - i, dst + i);
}

Int4 RoundBFloat16Sse2(Float4 v) {
  const UInt4 bits = (UInt4)v;
  const Int4 high = (Int4)bits >> 16;
  const Int4 rounded = (Int4)(bits + 0x7fffu + (UInt4)(high & 1)) >> 16;
  const Int4 nan = v != v;
  return nan ? (high | 0x40) : rounded;
}

void StoreBFloat16Sse2(const float* src, char* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Float4 low, high;
    std::memcpy(&low, src + i, sizeof low);
    std::memcpy(&high, src + i + 4, sizeof high);
    *reinterpret_cast<StoredShort8*>(dst + 2 * i) =
        (Short8)__builtin_ia32_packssdw128(RoundBFloat16Sse2(low), RoundBFloat16Sse2(high));
  }
  StoreRowBody<float, BFloat>(src + i, dst + 2 * i, 2, n - i);
}

// Contiguous FLOAT16 rows on the baseline path (x86-64 without F16C), 8 at a time in SSE2: the
// portable conversions of aclnn_bindgen/half.h in four lanes, bit for bit (checked over every
// float and every half), written by hand because GCC's vectorisation of them narrowed through a
// chain of unpacks and kept compare-and-blend selects SSE2 has cheaper forms of. The widening is
// the unpack against zero of the bfloat16 rows (the half lands in the upper 16 bits, where
// HalfToFloat moves it anyway); the rounding's exponent floor is a maxps on the exponent fields
// (positive floats with no mantissa, so the float order is the integer order, never a denormal);
// the sign is shifted down arithmetically so that each lane already is the half sign-extended and
// the signed pack keeps it. One core, 4,096 values, best of 300: 1.29 -> 0.39 ns a value to
// float16, 0.74 -> 0.30 from it.
Float4 WidenHalfSse2(UInt4 upper) {
  const UInt4 abs = upper & 0x7fff0000u;
  const Int4 normal = (Int4)((Float4)((abs >> 3) + (224u << 23)) * 0x1.0p-112f);
  const Int4 subnormal = (Int4)((Float4)((abs >> 16) | (126u << 23)) - 0.5f);
  return (Float4)((Int4)(upper & 0x80000000u) | ((Int4)abs < (1 << 26) ? subnormal : normal));
}

void LoadHalfSse2(const char* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    // entry.h's kPrefetchBytes says why: sigmoid over 16M FLOAT16 on one core, 1.72 -> 1.55-1.66 ns an
    // element (the BFLOAT16 rows' loop measured the same with it, 1.20-1.29, and has none).
    __builtin_prefetch(src + 2 * i + kPrefetchBytes, 0, 3);
    const Short8 halves = *reinterpret_cast<const StoredShort8*>(src + 2 * i), zero{};
    const Float4 low = WidenHalfSse2((UInt4)__builtin_shufflevector(zero, halves, 0, 8, 1, 9, 2, 10, 3, 11));
    const Float4 high = WidenHalfSse2((UInt4)__builtin_shufflevector(zero, halves, 4, 12, 5, 13, 6, 14, 7, 15));
    std::memcpy(dst + i, &low, sizeof low);
    std::memcpy(dst + i + 4, &high, sizeof high);
  }
  LoadRowBody<float, Half>(src + 2 * i, 2, n - i, dst + i);
}

Int4 RoundHalfSse2(Float4 v) {
  const UInt4 bits = (UInt4)v, abs = bits & 0x7fffffffu;
  const Float4 scaled = ((Float4)abs * 0x1.0p+112f) * 0x1.0p-110f;
  const Float4 floor = (Float4)(UInt4{} + 0x38800000u);
  const UInt4 exponent = (UInt4)__builtin_ia32_maxps((Float4)(bits & 0x7f800000u), floor);
  const UInt4 sum = (UInt4)((Float4)(exponent + 0x07800000u) + scaled);
  const Int4 half = (Int4)(((sum >> 13) & 0x7c00u) + (sum & 0x0fffu));
  const Int4 nan = (Int4)abs > 0x7f800000;
  return ((Int4)(bits & 0x80000000u) >> 16) | (nan ? 0x7e00 : half);
}

void StoreHalfSse2(const float* src, char* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Float4 low, high;
    std::memcpy(&low, src + i, sizeof low);
    std::memcpy(&high, src + i + 4, sizeof high);
    *reinterpret_cast<StoredShort8*>(dst + 2 * i) =
        (Short8)__builtin_ia32_packssdw128(RoundHalfSse2(low), RoundHalfSse2(high));
  }
  StoreRowBody<float, Half>(src + i, dst + 2 * i, 2, n - i);
}
#endif

template <typename T, typename S>
void LoadRow(const char* src, int64_t stride, int64_t n, void* out) {
#if defined(__x86_64__)
  if constexpr (std::is_same<T, float>::value && std::is_same<S, BFloat>::value) {
    if (stride == 2) return LoadBFloat16Sse2(src, n, static_cast<float*>(out));
  }
  if constexpr (std::is_same<T, float>::value && std::is_same<S, Half>::value) {
    if (stride == 2) return LoadHalfSse2(src, n, static_cast<float*>(out));
  }
#endif
  LoadRowBody<T, S>(src, stride, n, static_cast<T*>(out));
}

template <typename T, typename S>
void StoreRow(const void* in, char* dst, int64_t stride, int64_t n) {
#if defined(__x86_64__)
  if constexpr (std::is_same<T, float>::value && std::is_same<S, BFloat>::value) {
    if (stride == 2) return StoreBFloat16Sse2(static_cast<const float*>(in), dst, n);
  }
  if constexpr (std::is_same<T, float>::value && std::is_same<S, Half>::value) {
    if (stride == 2) return StoreHalfSse2(static_cast<const float*>(in), dst, n);
  }
#endif
  StoreRowBody<T, S>(static_cast<const T*>(in), dst, stride, n);
}

#if defined(__x86_64__)
// The same loops compiled for AVX2; contiguous FLOAT16 and BFLOAT16 rows go 8 at a time through
// the fused loops' conversions (aclnn_sim/entry.h: F16C's for FLOAT16, shifts and round to nearest
// even for BFLOAT16), exact like the portable ones.
template <typename S>
struct LanesOf;
template <>
struct LanesOf<Half> {
  using type = Float16Lanes;
};
template <>
struct LanesOf<BFloat> {
  using type = BFloat16Lanes;
};

template <typename T, typename S>
constexpr bool kEightAtATime = (std::is_same<S, Half>::value || std::is_same<S, BFloat>::value) &&
                               std::is_same<T, float>::value;

template <typename T, typename S>
__attribute__((target("avx2,f16c,fma"))) void LoadRowAvx2(const char* src, int64_t stride, int64_t n, void* out) {
  T* dst = static_cast<T*>(out);
  if constexpr (kEightAtATime<T, S>) {
    if (stride == 2) {
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        Float8 v;
        LanesOf<S>::type::Load(reinterpret_cast<const uint16_t*>(src + 2 * i), &v);
        std::memcpy(dst + i, &v, sizeof v);
      }
      LoadRowBody<T, S>(src + 2 * i, stride, n - i, dst + i);
      return;
    }
  }
  LoadRowBody<T, S>(src, stride, n, dst);
}

template <typename T, typename S>
__attribute__((target("avx2,f16c,fma"))) void StoreRowAvx2(const void* in, char* dst, int64_t stride, int64_t n) {
  const T* src = static_cast<const T*>(in);
  if constexpr (kEightAtATime<T, S>) {
    if (stride == 2) {
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        Float8 v;
        std::memcpy(&v, src + i, sizeof v);
        LanesOf<S>::type::Store(reinterpret_cast<uint16_t*>(dst + 2 * i), &v);
      }
      StoreRowBody<T, S>(src + i, dst + 2 * i, stride, n - i);
      return;
    }
  }
  StoreRowBody<T, S>(src, dst, stride, n);
}
#endif

// Calls fn(S{}) with the storage type of `dtype`; false when the engine has none.
template <typename Fn>
bool WithStorage(aclDataType dtype, Fn&& fn) {
  switch (dtype) {
    case ACL_FLOAT: fn(float{}); return true;
    case ACL_FLOAT16: fn(Half{}); return true;
    case ACL_BF16: fn(BFloat{}); return true;
    case ACL_DOUBLE: fn(double{}); return true;
    case ACL_INT8: fn(int8_t{}); return true;
    case ACL_INT16: fn(int16_t{}); return true;
    case ACL_INT32: fn(int32_t{}); return true;
    case ACL_INT64: fn(int64_t{}); return true;
    case ACL_UINT8: fn(uint8_t{}); return true;
    case ACL_UINT16: fn(uint16_t{}); return true;
    case ACL_UINT32: fn(uint32_t{}); return true;
    case ACL_UINT64: fn(uint64_t{}); return true;
    case ACL_BOOL: fn(Bool8{}); return true;
    case ACL_COMPLEX64: fn(std::complex<float>{}); return true;
    case ACL_COMPLEX128: fn(std::complex<double>{}); return true;
    case ACL_COMPLEX32: fn(ComplexHalf{}); return true;
    case ACL_FLOAT8_E4M3FN: fn(Float8E4M3Fn{}); return true;
    case ACL_FLOAT8_E5M2: fn(Float8E5M2{}); return true;
    case ACL_FLOAT8_E8M0: fn(Float8E8M0{}); return true;
    default: return false;
  }
}

template <typename Fn>
void WithCompute(ComputeType type, Fn&& fn) {
  switch (type) {
    case ComputeType::kFloat32: fn(float{}); break;
    case ComputeType::kFloat64: fn(double{}); break;
    case ComputeType::kInt64: fn(int64_t{}); break;
    case ComputeType::kComplex64: fn(std::complex<float>{}); break;
    case ComputeType::kComplex128: fn(std::complex<double>{}); break;
  }
}

// Complex storage loads only into a complex computation (promotion makes any computation with a
// complex input complex).
template <typename T, typename S>
constexpr bool kLoadable = IsComplex<T>::value || !(IsComplex<S>::value || std::is_same<S, ComplexHalf>::value);

size_t ComputeAlignment(ComputeType type) {
  size_t alignment = 1;
  WithCompute(type, [&](auto t) { alignment = alignof(decltype(t)); });
  return alignment;
}

void Broadcast(void* buffer, int64_t n, size_t size) {
  if (size == 4) {
    uint32_t v;
    std::memcpy(&v, buffer, 4);
    std::fill_n(static_cast<uint32_t*>(buffer), n, v);
  } else if (size == 16) {
    uint64_t v[2];
    std::memcpy(v, buffer, 16);
    uint64_t* words = static_cast<uint64_t*>(buffer);
    for (int64_t i = 1; i < n; ++i) {
      words[2 * i] = v[0];
      words[2 * i + 1] = v[1];
    }
  } else {
    uint64_t v;
    std::memcpy(&v, buffer, 8);
    std::fill_n(static_cast<uint64_t*>(buffer), n, v);
  }
}

// The index space after coalescing: sizes[d] and, per operand (output first), byte strides[op][d].
struct Layout {
  Dims sizes;
  Dims strides[kMaxOperands];
  size_t ops = 0;
};

void Coalesce(const Dims& shape, const Operand& out, const Operand* inputs, size_t count, Layout* layout) {
  const size_t ops = count + 1;
  auto operand = [&](size_t op) -> const Operand& { return op == 0 ? out : inputs[op - 1]; };
  layout->ops = ops;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !layout->sizes.empty();
    for (size_t op = 0; merge && op < ops; ++op) {
      const int64_t bytes = operand(op).strides[d] * static_cast<int64_t>(DTypeSize(operand(op).dtype));
      merge = layout->strides[op].back() == bytes * shape[d];
    }
    for (size_t op = 0; op < ops; ++op) {
      const int64_t bytes = operand(op).strides[d] * static_cast<int64_t>(DTypeSize(operand(op).dtype));
      if (merge) layout->strides[op].back() = bytes;
      else layout->strides[op].push_back(bytes);
    }
    if (merge) layout->sizes.back() *= shape[d];
    else layout->sizes.push_back(shape[d]);
  }
  if (layout->sizes.empty()) {  // a single element
    layout->sizes.push_back(1);
    for (size_t op = 0; op < ops; ++op) layout->strides[op].push_back(0);
  }
}

bool Aligned(const void* p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

// What every row of one run shares.
struct Plan {
  const Layout* layout;
  size_t ops = 0;                // operands, output first
  char* first[kMaxOperands];
  LoadFn load[kMaxOperands];     // per input
  bool direct[kMaxOperands];     // per operand: memory usable as compute values when contiguous
  StoreFn store;
  size_t compute_size;
  BoundKernel kernel;
  bool buffered;                 // some operand of a row needs a buffer
  BoundKernel::Block fused = nullptr;  // every row: all operands contiguous FLOAT16 (or BFLOAT16)
};

// A block of compute values per operand, reused by every run on this thread.
struct Buffers {
  void* in[kMaxOperands];
  void* out = nullptr;
  const void* args[kMaxOperands];

  Buffers(size_t inputs, bool buffered, size_t compute_size) {
    if (!buffered) return;
    thread_local std::vector<uint64_t> storage;  // 8-byte aligned for any compute type
    const size_t words = kBlock * ((compute_size + 7) / 8);  // one block of compute values
    if (storage.size() < (inputs + 1) * words) storage.resize((inputs + 1) * words);
    for (size_t k = 0; k < inputs; ++k) in[k] = storage.data() + k * words;
    out = storage.data() + inputs * words;
  }
};

void ProcessRow(const Plan& plan, char* const* row, int64_t n, Buffers& buffers) {
  const size_t inputs = plan.ops - 1;
  if (plan.fused) {
    for (size_t k = 0; k < inputs; ++k) buffers.args[k] = row[k + 1];
    plan.fused(plan.kernel.kernel, buffers.args, row[0], n);
    return;
  }
  const auto& strides = plan.layout->strides;
  const size_t inner = plan.layout->sizes.size() - 1;
  const int64_t step = plan.buffered ? kBlock : n;
  const int64_t csize = static_cast<int64_t>(plan.compute_size);
  for (int64_t offset = 0; offset < n; offset += step) {
    const int64_t len = std::min(step, n - offset);
    for (size_t k = 0; k < inputs; ++k) {
      const int64_t stride = strides[k + 1][inner];
      char* src = row[k + 1] + offset * stride;
      if (plan.direct[k + 1] && stride == csize) {
        buffers.args[k] = src;
      } else if (stride == 0) {
        plan.load[k](src, 0, 1, buffers.in[k]);
        Broadcast(buffers.in[k], len, plan.compute_size);
        buffers.args[k] = buffers.in[k];
      } else {
        plan.load[k](src, stride, len, buffers.in[k]);
        buffers.args[k] = buffers.in[k];
      }
    }
    const int64_t out_stride = strides[0][inner];
    char* dst = row[0] + offset * out_stride;
    const bool direct_out = plan.direct[0] && out_stride == csize;
    void* result = direct_out ? static_cast<void*>(dst) : buffers.out;
    plan.kernel.block(plan.kernel.kernel, buffers.args, result, len);
    if (!direct_out) plan.store(buffers.out, dst, out_stride, len);
  }
}

// Runs the linear indices [begin, end) of the coalesced index space.
void ProcessRange(const Plan& plan, int64_t begin, int64_t end) {
  const Layout& layout = *plan.layout;
  const size_t dims = layout.sizes.size();
  const size_t ops = plan.ops;
  const int64_t inner_size = layout.sizes[dims - 1];
  Dims index(dims, 0);
  int64_t rest = begin;
  for (size_t d = dims; d-- > 0;) {
    index[d] = rest % layout.sizes[d];
    rest /= layout.sizes[d];
  }
  Buffers buffers(ops - 1, plan.buffered, plan.compute_size);
  char* row[kMaxOperands];
  for (int64_t position = begin; position < end;) {
    for (size_t op = 0; op < ops; ++op) {
      int64_t offset = 0;
      for (size_t d = 0; d < dims; ++d) offset += index[d] * layout.strides[op][d];
      row[op] = plan.first[op] + offset;
    }
    const int64_t n = std::min(inner_size - index[dims - 1], end - position);
    ProcessRow(plan, row, n, buffers);
    position += n;
    index[dims - 1] = 0;
    for (size_t d = dims - 1; d-- > 0;) {  // the odometer over the outer dimensions
      if (++index[d] < layout.sizes[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

LoadFn Loader(ComputeType type, aclDataType dtype) {
  LoadFn load = nullptr;
  WithCompute(type, [&](auto t) {
    WithStorage(dtype, [&](auto s) {
      if constexpr (kLoadable<decltype(t), decltype(s)>) {
        load = &LoadRow<decltype(t), decltype(s)>;
#if defined(__x86_64__)
        if (UseAvx2()) load = &LoadRowAvx2<decltype(t), decltype(s)>;
#endif
      }
    });
  });
  return load;
}

StoreFn Storer(ComputeType type, aclDataType dtype) {
  StoreFn store = nullptr;
  WithCompute(type, [&](auto t) {
    WithStorage(dtype, [&](auto s) {
      if constexpr (!kLoadOnly<decltype(s)>) {
        store = &StoreRow<decltype(t), decltype(s)>;
#if defined(__x86_64__)
        if (UseAvx2()) store = &StoreRowAvx2<decltype(t), decltype(s)>;
#endif
      }
    });
  });
  return store;
}

size_t ComputeSize(ComputeType type) {
  size_t size = 0;
  WithCompute(type, [&](auto t) { size = sizeof(t); });
  return size;
}

// The elementwise engine's kernels have portable loops, AVX2 ones and AVX-512 ones (entry.h); its
// row loads and stores (strided, broadcast or converted operands) have portable and AVX2 ones,
// which the AVX-512 path takes too: they only convert, exactly on every path.
bool UseAvx2() { return static_cast<int>(KernelPath()) >= static_cast<int>(Isa::kAvx2); }
bool UseAvx512() { return KernelPath() == Isa::kAvx512; }

aclDataType StorageOf(ComputeType type) {
  switch (type) {
    case ComputeType::kFloat32: return ACL_FLOAT;
    case ComputeType::kFloat64: return ACL_DOUBLE;
    case ComputeType::kInt64: return ACL_INT64;
    case ComputeType::kComplex64: return ACL_COMPLEX64;
    case ComputeType::kComplex128: return ACL_COMPLEX128;
  }
  return ACL_DT_UNDEFINED;
}

bool Convertible(aclDataType dtype) {
  bool both = false;
  WithStorage(dtype, [&](auto s) { both = !kLoadOnly<decltype(s)>; });
  return both;
}

bool Loadable(aclDataType dtype) { return WithStorage(dtype, [](auto) {}); }

bool IsDirect(const Dims& shape, const Operand& out, const Operand* inputs, size_t count, ComputeType type) {
  Layout layout;
  Coalesce(shape, out, inputs, count, &layout);
  if (layout.sizes.size() != 1) return false;
  const int64_t size = static_cast<int64_t>(ComputeSize(type));
  for (size_t op = 0; op <= count; ++op) {
    const Operand& operand = op == 0 ? out : inputs[op - 1];
    const bool single = layout.sizes[0] == 1;
    if (operand.dtype != StorageOf(type) || !Aligned(operand.first, ComputeAlignment(type)) ||
        (!single && layout.strides[op][0] != size)) {
      return false;
    }
  }
  return true;
}

void RunElementwise(const Dims& shape, const Operand& out, const Operand* inputs, size_t count, ComputeType type,
                    const BoundKernel& kernel) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel == 0) return;
  static EnginePath taken(__FILE__);  // the path MakeBound chose the kernel's loops by
  taken.Took(UseAvx512() ? Isa::kAvx512 : UseAvx2() ? Isa::kAvx2 : Isa::kBaseline);
  Layout layout;
  Coalesce(shape, out, inputs, count, &layout);

  Plan plan;
  plan.layout = &layout;
  plan.ops = count + 1;
  plan.compute_size = ComputeSize(type);
  plan.kernel = kernel;
  plan.store = Storer(type, out.dtype);
  plan.first[0] = out.first;
  plan.direct[0] = out.dtype == StorageOf(type) && Aligned(out.first, ComputeAlignment(type));
  for (size_t k = 0; k < count; ++k) {
    plan.first[k + 1] = inputs[k].first;
    plan.load[k] = Loader(type, inputs[k].dtype);
    plan.direct[k + 1] = inputs[k].dtype == StorageOf(type) && Aligned(inputs[k].first, ComputeAlignment(type));
  }
  const size_t inner = layout.sizes.size() - 1;
  plan.buffered = false;
  for (size_t op = 0; op < plan.ops; ++op) {
    plan.buffered |= !(plan.direct[op] && layout.strides[op][inner] == static_cast<int64_t>(plan.compute_size));
  }
  // FLOAT16/BFLOAT16 rows that are contiguous in every operand go through the kernel's fused loop.
  if (type == ComputeType::kFloat32 && (out.dtype == ACL_FLOAT16 || out.dtype == ACL_BF16)) {
    bool same = true;
    for (size_t op = 0; op < plan.ops; ++op) {
      const Operand& operand = op == 0 ? out : inputs[op - 1];
      same &= operand.dtype == out.dtype && layout.strides[op][inner] == 2 && Aligned(operand.first, 2);
    }
    if (same) plan.fused = out.dtype == ACL_FLOAT16 ? kernel.float16_block : kernel.bfloat16_block;
    if (plan.fused) plan.buffered = false;
  }

  // Tasks of at least kGrain elements, up to kTasksPerThread per thread: the pool's threads take
  // them in turn, so a thread that joins late (a worker woken from sleep, or descheduled on a busy
  // machine) takes what is left instead of the caller waiting for its fixed share.
  const int64_t threads = ParallelThreads();
  const int64_t tasks = threads == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(threads * kTasksPerThread, numel / kGrain));
  if (tasks == 1) {  // no std::function for the small kernels a chain of calls is made of
    ProcessRange(plan, 0, numel);
    return;
  }
  ParallelFor(tasks, [&](int64_t task) {
    const int64_t share = numel / tasks, extra = numel % tasks;
    const int64_t begin = task * share + std::min(task, extra);
    const int64_t end = begin + share + (task < extra ? 1 : 0);
    ProcessRange(plan, begin, end);
  });
}

}  // namespace aclsim
