// securec.h as CANN's toolkit ships it (the bounds-checking C functions), for the pages' examples
// that include it (aclnnPromptFlashAttentionV3's, aclnnFusedInferAttentionScoreV4's): the functions
// they may call, each refusing what overruns its destination.
#ifndef ACLNN_SECUREC_H_
#define ACLNN_SECUREC_H_

#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
#ifndef ERANGE
#define ERANGE 34
#endif

typedef int errno_t;

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (dest == nullptr || src == nullptr || count > destMax) return ERANGE;
  std::memcpy(dest, src, count);
  return EOK;
}

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
  if (dest == nullptr || count > destMax) return ERANGE;
  std::memset(dest, c, count);
  return EOK;
}

#endif  // ACLNN_SECUREC_H_
