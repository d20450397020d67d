// INT4 tensors as the quant-matmul families read them and the quantisers write them. CANN lays INT4 out two elements a byte,
// element 2i in the low four bits of byte i: the order op-plugin's convert_to_int4_pack gives the
// INT32 words torch_npu passes (element 8i in bits 0-3 of a little-endian word,
// ConvertWeightToINT4PackKernelNpuOpApi.cpp), and the one CANN's pages state for the packed FLOAT4
// ("低位nibble对应偶数维"). The bindings pack the same way (runtime/binding/arrays.cpp's pack_int4).
#ifndef ACLNN_SIM_COMMON_INT4_H_
#define ACLNN_SIM_COMMON_INT4_H_

#include <cstdint>

#include "common/internal.h"

namespace aclsim {

// The INT32 tensor `words` as INT4 elements, eight a word along its dimension `packed` (whose
// stride is 1): that dimension eight times as long, the others' strides and the offset counted
// in nibbles.
inline TensorDesc Int4OfWords(const TensorDesc& words, size_t packed) {
  TensorDesc out = words;
  out.dtype = ACL_INT4;
  for (size_t d = 0; d < words.view.size(); ++d) out.strides[d] = d == packed ? 1 : words.strides[d] * 8;
  out.view[packed] *= 8;
  out.offset = words.offset * 8;
  return out;
}

// `t` as a tensor of INT4 elements (`out`: dtype INT4, view, strides and offset in elements, the same
// data): an INT4 tensor as it is, or an INT32 one whose words each pack eight along its axis of
// stride 1 (torch_npu's int4pack: a (k, n / 8) weight holds (k, n) elements, its transpose (k / 8, n)
// with strides (1, k / 8) holds (k, n) too). False for another dtype, and for an INT32 tensor with no
// axis of stride 1 (the words' axis is then unknown).
inline bool AsInt4(const TensorDesc& t, TensorDesc* out) {
  *out = t;
  out->dtype = ACL_INT4;
  if (t.dtype == ACL_INT4) return true;
  if (t.dtype != ACL_INT32 || t.view.empty()) return false;
  for (size_t d = t.view.size(); d-- > 0;) {
    if (t.strides[d] == 1) {
      *out = Int4OfWords(t, d);
      return true;
    }
  }
  return false;
}

// The bytes an INT4 tensor's elements lie in, as a UINT8 tensor: what a family's slot holds for the
// memory check (FamilyWork::Run), the nibbles being read from the INT4 tensor itself.
inline TensorDesc Int4Bytes(const TensorDesc& int4) {
  int64_t low = int4.offset, high = int4.offset;
  bool empty = false;
  for (size_t d = 0; d < int4.view.size(); ++d) {
    if (int4.view[d] == 0) empty = true;
    const int64_t reach = (int4.view[d] - 1) * int4.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  TensorDesc bytes;
  bytes.view = Dims{empty ? 0 : high / 2 - low / 2 + 1};
  bytes.strides = Dims{1};
  bytes.offset = low / 2;
  bytes.dtype = ACL_UINT8;
  bytes.data = int4.data;
  return bytes;
}

// fn(e, at) for each element e of an INT4 tensor, row-major, `at` its position in nibbles from the
// data pointer (byte at / 2, the high nibble when at is odd).
template <class Fn>
void ForEachNibble(const TensorDesc& int4, const Fn& fn) {
  const int64_t n = int4.numel();
  Dims index(int4.view.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = int4.offset;
    for (size_t d = 0; d < index.size(); ++d) at += index[d] * int4.strides[d];
    fn(e, at);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < int4.view[d]) break;
      index[d] = 0;
    }
  }
}

// An INT4 tensor's elements row-major, each a value in -8..7.
template <class T>
void GatherInt4(const TensorDesc& int4, T* out) {
  const auto* data = static_cast<const uint8_t*>(int4.data);
  ForEachNibble(int4, [&](int64_t e, int64_t at) {
    const int nibble = (data[at / 2] >> (4 * (at % 2))) & 0x0f;
    out[e] = static_cast<T>(nibble >= 8 ? nibble - 16 : nibble);
  });
}

// `values` (row-major, each already saturated to -8..7) written as the INT4 tensor's elements, two's
// complement in their nibble; the other nibble of each byte is left as it was, so a view that
// shares its bytes with elements it does not hold (an odd offset or size, a column of a wider
// tensor) leaves them intact.
template <class T>
void ScatterInt4(const T* values, const TensorDesc& int4) {
  auto* data = static_cast<uint8_t*>(int4.data);
  ForEachNibble(int4, [&](int64_t e, int64_t at) {
    const int shift = static_cast<int>(4 * (at % 2));
    const auto nibble = static_cast<uint8_t>(static_cast<int64_t>(values[e]) & 0x0f);
    data[at / 2] = static_cast<uint8_t>((data[at / 2] & ~(0x0f << shift)) | (nibble << shift));
  });
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_INT4_H_
