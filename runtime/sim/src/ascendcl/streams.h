// libascendcl's asynchronous device, shared by runtime.cpp (devices), memory.cpp (async copies,
// aclrtFree) and the files that implement it: streams.cpp (stream handles, synchronisation),
// stream_worker.cpp (the queues' workers), events.cpp, callbacks.cpp (host work in a stream's
// order) and capture.cpp (graph capture), whose shared state is stream_state.h's.
//
// Every stream is an ordered queue run by its own worker thread: aclnnXxx's phase 2,
// aclrtMemcpyAsync, aclrtMemsetAsync and aclrtRecordEvent/aclrtStreamWaitEvent enqueue and return;
// aclrtSynchronizeStream/Device/Event wait. A kernel that faults (the simulator's own checks, or an
// injected fault) does not fail its launch: the fault is kept on its stream, the work queued
// behind it is discarded, and the stream's next synchronisation returns it naming the API whose
// kernel failed. The fault is sticky for the work that depends on it: an event recorded behind it
// carries it, and a stream that waits for that event takes it over (its queued work is discarded
// and its next synchronisation returns it too), as a device error is on CANN and CUDA.
// ACLNN_SIM_SYNC=1 runs every task in the launching thread instead (debugging).
#ifndef ACLNN_SIM_ASCENDCL_STREAMS_H_
#define ACLNN_SIM_ASCENDCL_STREAMS_H_

#include <chrono>
#include <cstdint>

#include "acl/acl_rt.h"

namespace aclsim {

// The device the calling thread works on (runtime.cpp); false when none is set.
bool CurrentDeviceId(int32_t* device);
// ACL_SUCCESS for a device the simulator has, else CANN's invalid-device error naming `api`
// (runtime.cpp, whose device count and message aclrtSetDevice uses too).
aclError CheckDeviceId(int64_t device, const char* api);
// The calling thread's last error status (runtime.cpp), cleared when `clear`.
int32_t LastErrorStatus(bool clear);

// A copy or a fill queued on a stream; the ranges were checked by the caller (memory.cpp).
aclError EnqueueCopy(aclrtStream stream, const char* api, void* dst, const void* src, size_t count);
aclError EnqueueFill(aclrtStream stream, const char* api, void* dst, int32_t value, size_t count);
// A write of, or a wait for, the 64-bit device word at `word` (aclrtValueWrite, aclrtValueWait with an
// ACL_STREAM_WAIT_VALUE_* `mode`), queued on a stream; the word was checked by the caller (memory.cpp).
aclError EnqueueValueWrite(aclrtStream stream, const char* api, void* word, uint64_t value);
aclError EnqueueValueWait(aclrtStream stream, const char* api, void* word, uint64_t value, uint32_t mode);
// ACL_SUCCESS when `stream` names a live stream or the current device's default one, else the
// status and message Resolve gives `api` (stream_state.h).
aclError CheckStream(aclrtStream stream, const char* api);

// How long the device has had work running on any of its streams since the process started
// (stream_worker.cpp): what aclrtGetDeviceUtilizationRate answers from.
std::chrono::nanoseconds DeviceBusyTime(int32_t device);

// The limit on a device's cores of `type` (aclrtSetDeviceResLimit's, else the chip's count), for
// `api` (device.cpp); a limit checked against the chip's count (ACL_ERROR_INVALID_PARAM above it or 0).
aclError DeviceResLimit(int32_t device, aclrtDevResLimitType type, uint32_t* value, const char* api);
aclError CheckResLimit(aclrtDevResLimitType type, uint32_t value, const char* api);

// A fault a stream's synchronisation reported is also the calling thread's next synchronous copy's
// (aclrtMemcpy) if that copy reads the device: torch_npu's copy to the host synchronises the stream,
// copies, and raises a failed copy with the recent error message in its exception, a failed
// synchronisation with the status alone (the message only a warning), so the user's exception names
// the operator and why only if the copy fails too. Such a copy reads what the failed stream was to
// write: nothing is copied. The thread's next synchronisation or copy forgets the fault, whichever
// way it goes (a copy to the device, which reads no result, copies).
void ForgetFaultOwedToCopy();
// The fault owed to this copy of `kind`, reported as `api`'s (its status, and its message after
// "nothing copied"), forgotten; ACL_SUCCESS when none is owed or the copy does not read the device.
aclError TakeFaultOwedToCopy(const char* api, aclrtMemcpyKind kind);

// Blocks until no queued or running task on any stream touches [begin, end): what aclrtFree
// does before it releases an allocation. Each stream waited for counts as a synchronisation.
// ACL_ERROR_RT_STREAM_NOT_COMPLETE, naming `api`, when such a task waits behind a wait that only a
// host call can end and no host thread is making calls (stalls.cpp): the caller releases nothing.
aclError WaitForUsers(uintptr_t begin, uintptr_t end, const char* api);

// Drains and destroys every stream of `device` (-1: of every device; aclrtResetDevice, aclFinalize,
// for `api`). Work that cannot finish without a host call no thread is making is discarded, and the
// first such stall is the answer (ACL_ERROR_RT_STREAM_NOT_COMPLETE); the streams go all the same.
aclError ReleaseStreams(int32_t device, const char* api);

// Cumulative counts since the process started (aclsimStats).
struct StreamCounts {
  uint64_t live_streams, live_events, stream_syncs, device_syncs, kernels_launched, events_recorded;
};
StreamCounts GetStreamCounts();

}  // namespace aclsim

#endif  // ACLNN_SIM_ASCENDCL_STREAMS_H_
