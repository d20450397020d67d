// The signed permutations the rotary embeddings rotate a row of D elements by: the rotary family's
// modes (rotary.cpp) and the MLA prolog's rope (mla_prolog.cpp, InterleaveRope's mode 3).
#ifndef ACLNN_SIM_OPAPI_FAMILIES_ROTATION_H_
#define ACLNN_SIM_OPAPI_FAMILIES_ROTATION_H_

#include <cstdint>
#include <vector>

namespace aclsim {

// Row element j of A(x) is x[a[j]]; of B(x), sign[j] * x[b[j]].
struct Rotation {
  std::vector<int64_t> a, b;
  std::vector<int> sign;

  Rotation(int64_t mode, int64_t d) : a(d), b(d), sign(d) {
    const int64_t h = d / 2, q = d / 4;
    for (int64_t j = 0; j < d; ++j) {
      a[j] = mode == 3 ? (j < h ? 2 * j : 2 * (j - h) + 1) : j;
      bool negative;
      switch (mode) {
        case 0: negative = j < h, b[j] = j < h ? j + h : j - h; break;
        case 1: negative = j % 2 == 0, b[j] = j % 2 == 0 ? j + 1 : j - 1; break;
        case 2: negative = (j / q) % 2 == 0, b[j] = (j / q) % 2 == 0 ? j + q : j - q; break;
        default: negative = j < h, b[j] = j < h ? 2 * j + 1 : 2 * (j - h); break;
      }
      sign[j] = negative ? -1 : 1;
    }
  }
};

}  // namespace aclsim

#endif  // ACLNN_SIM_OPAPI_FAMILIES_ROTATION_H_
