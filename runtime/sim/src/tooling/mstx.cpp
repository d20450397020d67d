// libms_tools_ext (and libmsprofiler, which CANN ships the same functions in): MindStudio's mstx
// annotation API — marks, ranges, domains and memory-heap registration that a profiler shows on its
// timeline. torch_npu calls them for `torch_npu.npu.mstx` and its profiler's annotations. The
// simulator records no profile, so every call is the documented no-op of a tool that is not
// collecting: accepted, returning the handles and range ids its caller passes back later (a range id
// of 0 and a null handle mean failure in mstx, so they are never returned).
//
// The wheel ships no mstx header; the prototypes are torch_npu's (its MstxInterface.h wraps
// exactly these), the handles opaque pointers to the tool's own objects.
#include <atomic>
#include <cstdint>

namespace {

// The one object every domain and memory-heap handle points at: callers only compare and pass back.
struct MstxObject {
  uint32_t magic = 0x6d737478;  // "mstx"
};
MstxObject kDomain;
MstxObject kHeap;
std::atomic<uint64_t> next_range_id{1};

}  // namespace

#define MSTX_API __attribute__((visibility("default")))

extern "C" {

typedef void* mstxDomainHandle_t;
typedef void* mstxMemHeapHandle_t;
typedef uint64_t mstxRangeId;

MSTX_API void mstxMarkA(const char*, void*) {}
MSTX_API mstxRangeId mstxRangeStartA(const char*, void*) { return next_range_id++; }
MSTX_API void mstxRangeEnd(mstxRangeId) {}

MSTX_API mstxDomainHandle_t mstxDomainCreateA(const char*) { return &kDomain; }
MSTX_API void mstxDomainDestroy(mstxDomainHandle_t) {}
MSTX_API void mstxDomainMarkA(mstxDomainHandle_t, const char*, void*) {}
MSTX_API mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t, const char*, void*) {
  return next_range_id++;
}
MSTX_API void mstxDomainRangeEnd(mstxDomainHandle_t, mstxRangeId) {}

// Memory registration tells the tool which device memory a heap or region covers; the descriptors'
// layouts are the tool's, and a tool that is not collecting reads none of them.
MSTX_API mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t, const void*) {
  return &kHeap;
}
MSTX_API void mstxMemHeapUnregister(mstxDomainHandle_t, mstxMemHeapHandle_t) {}
MSTX_API void mstxMemRegionsRegister(mstxDomainHandle_t, const void*) {}
MSTX_API void mstxMemRegionsUnregister(mstxDomainHandle_t, const void*) {}

}  // extern "C"
