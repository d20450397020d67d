/* aclnn-bindgen's CPU simulator of the CANN C ABI: the few functions it exports beyond CANN's.
 *
 * Leak accounting: aclsimGetStats (libnnopbase, which links libascendcl) gathers every live count
 * of the three libraries in one call. aclsimGetRuntimeStats (libascendcl) fills only the runtime
 * fields, for callers that load libascendcl alone. Fields are only ever appended. */
#ifndef ACLNN_SIM_H_
#define ACLNN_SIM_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclsimStats {
  /* libascendcl */
  uint64_t device_allocations; /* live aclrtMalloc allocations */
  uint64_t device_bytes;       /* their requested bytes */
  uint64_t peak_device_bytes;  /* the largest device_bytes seen since the process started */
  uint64_t host_allocations;   /* live aclrtMallocHost allocations */
  uint64_t host_bytes;
  uint64_t streams;  /* live aclrtCreateStream streams */
  uint64_t contexts; /* live aclrtCreateContext contexts */
  /* libnnopbase */
  uint64_t tensors; /* live aclTensor objects, including those owned by tensor lists */
  uint64_t scalars; /* including those owned by scalar lists */
  uint64_t int_arrays;
  uint64_t float_arrays;
  uint64_t bool_arrays;
  uint64_t tensor_lists;
  uint64_t scalar_lists;
  uint64_t executors; /* executors that phase 2 has not consumed and nobody destroyed */
  /* libascendcl, cumulative since the process started */
  uint64_t malloc_calls;     /* aclrtMalloc calls that allocated */
  uint64_t free_calls;       /* aclrtFree calls that freed */
  uint64_t stream_syncs;     /* waits for a stream: aclrtSynchronizeStream, and aclrtFree or
                                aclrtDestroyStream waiting for queued work */
  uint64_t device_syncs;     /* aclrtSynchronizeDevice */
  uint64_t kernels_launched; /* phase-2 calls that queued a kernel */
  uint64_t events_recorded;  /* aclrtRecordEvent calls */
  uint64_t events;           /* live aclrtCreateEvent events */
} aclsimStats;

/* The kernel fault the last synchronisation of `stream` reported (null: the current device's
 * default stream): the API, the executor its phase 1 made (aclOpExecutor*, never reused by the
 * simulator) and that API's launch number in the process. 0 on success; 1 when the stream has
 * reported no fault or `out` is NULL. Exported by libascendcl. */
typedef struct aclsimFault {
  char api[128];
  uint64_t executor;
  uint64_t launch;
  int32_t status;
} aclsimFault;
__attribute__((visibility("default"))) int aclsimLastFault(void* stream, aclsimFault* out);

/* Holds (hold != 0) or releases a stream (null: the current device's default stream): while held,
 * its worker starts no queued task, so that a test can observe work that is queued and not run,
 * whatever the machine's speed. 0 on success; 1 for a dead stream, or under ACLNN_SIM_SYNC=1
 * (tasks run in the launching call). Exported by libascendcl. */
__attribute__((visibility("default"))) int aclsimHoldStream(void* stream, int hold);

/* Runs part of the parallel work of a kernel running now on some stream, if any, on the calling
 * thread, and returns 1 when it ran some (0: none to join). A thread that polls a stream
 * (aclrtStreamQuery) lends itself with it between polls instead of sleeping while the simulator
 * wakes a thread of its own. Exported by libascendcl. */
__attribute__((visibility("default"))) int aclsimLendThread(void);

/* 0 on success; 1 when `out` is NULL. */
__attribute__((visibility("default"))) int aclsimGetStats(aclsimStats* out);
__attribute__((visibility("default"))) int aclsimGetRuntimeStats(aclsimStats* out);

/* The sum of the object counts (tensors .. executors): 0 when nothing leaked. */
__attribute__((visibility("default"))) uint64_t aclsimLiveObjects(void);

/* What a live executor's work does not compute, said by name ("aclnnXxx is not simulated for ..."),
 * or NULL when it computes (or is no live executor). Such work passes phase 1 (the page's checks)
 * and fails on the stream with 561003 (ACLNN_ERR_INNER_FIND_KERNEL_ERROR), reported by the next
 * synchronisation; a caller that wants the refusal at the call asks before launching, as the Python
 * bindings do. The text lives as long as the executor. Exported by libnnopbase. */
__attribute__((visibility("default"))) const char* aclsimExecutorNotSimulated(const struct aclOpExecutor* executor);

/* Switches the simulated chip (a name as ACLNN_SIM_SOC takes it) for the rest of the process,
 * overriding ACLNN_SIM_SOC. 0 on success, ACL_ERROR_INVALID_PARAM (with aclGetRecentErrMsg)
 * for an unknown name. Exported by libascendcl. */
__attribute__((visibility("default"))) int aclsimSetSoc(const char* name);

/* The code path every kernel of this process takes ("baseline", "avx2", "avx512"): ACLNN_SIM_ISA's,
 * or the widest the CPU runs (a path the CPU lacks falls back to the widest it has). Exported by
 * libascendcl. */
__attribute__((visibility("default"))) const char* aclsimKernelPath(void);

/* The path each engine's kernels last ran on in this process, "engine=path" joined by commas and
 * sorted ("elementwise=avx2,softmax=avx512"): the kernel families with code per path (softmax,
 * reduce) and the elementwise engine (whose AVX2 loops serve the AVX-512 path), those that have
 * run. A family absent from it has one build only (the baseline x86-64's). The text is the calling
 * thread's until its next call. Exported by libascendcl. */
__attribute__((visibility("default"))) const char* aclsimEnginePaths(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_SIM_H_ */
