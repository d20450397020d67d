// INT4 weights as the quant-matmul families read them. CANN lays INT4 out two elements a byte,
// element 2i in the low four bits of byte i: the order op-plugin's convert_to_int4_pack gives the
// INT32 words torch_npu passes (element 8i in bits 0-3 of a little-endian word,
// ConvertWeightToINT4PackKernelNpuOpApi.cpp), and the one CANN's pages state for the packed FLOAT4
// ("低位nibble对应偶数维"). The bindings pack the same way (runtime/binding/arrays.cpp's pack_int4).
#ifndef ACLNN_SIM_COMMON_INT4_H_
#define ACLNN_SIM_COMMON_INT4_H_

#include <cstdint>

#include "common/internal.h"

namespace aclsim {

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
  size_t packed = t.view.size();
  for (size_t d = t.view.size(); d-- > 0;) {
    if (t.strides[d] == 1) {
      packed = d;
      break;
    }
  }
  if (packed == t.view.size()) return false;
  for (size_t d = 0; d < t.view.size(); ++d) out->strides[d] = d == packed ? 1 : t.strides[d] * 8;
  out->view[packed] *= 8;
  out->offset = t.offset * 8;
  return true;
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

// An INT4 tensor's elements row-major, each a value in -8..7.
template <class T>
void GatherInt4(const TensorDesc& int4, T* out) {
  const auto* data = static_cast<const uint8_t*>(int4.data);
  const int64_t n = int4.numel();
  Dims index(int4.view.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = int4.offset;
    for (size_t d = 0; d < index.size(); ++d) at += index[d] * int4.strides[d];
    const int nibble = (data[at / 2] >> (4 * (at % 2))) & 0x0f;
    out[e] = static_cast<T>(nibble >= 8 ? nibble - 16 : nibble);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < int4.view[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace aclsim

#endif  // ACLNN_SIM_COMMON_INT4_H_
