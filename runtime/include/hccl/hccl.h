/* aclnn-bindgen: the functions of HCCL, CANN's collective communication library (libhccl.so),
 * declared from its public C API reference. Signatures are CANN's: a program compiled against
 * CANN's hccl.h (torch_npu's libtorch_npu.so is one; it finds these by name with dlsym) calls
 * the simulator's libhccl.so, which runs one rank per process (runtime/sim/src/hccl).
 *
 * Every collective is queued on `stream` and returns: its data is written when the stream
 * reaches it, in order with the stream's other work. */
#ifndef ACLNN_BINDGEN_HCCL_H_
#define ACLNN_BINDGEN_HCCL_H_

#include <stddef.h>

#include "acl/acl.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The handle of a physical allocation of the runtime's virtual memory API (acl_rt.h declares the
 * same typedef in CANN; repeating an identical typedef is valid). */
typedef void *aclrtDrvMemHandle;

/* --- communicators ------------------------------------------------------------------------- */

/* From a rank table file (JSON) listing the cluster's devices; `rank` is this process's. */
extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
extern HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                                HcclCommConfig *config, HcclComm *comm);

/* A communicator of `rankNum` ranks of the global communicator `*comm`, named by `subCommId`;
 * this process is rank `subCommRankId` of it. */
extern HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                          uint64_t subCommId, uint32_t subCommRankId,
                                          HcclCommConfig *config, HcclComm *subComm);

/* Called on the root rank; the root info is then sent to every rank (e.g. through a store). */
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
extern HcclResult HcclGetRootInfoScalable(HcclRootInfo *rootInfo);

/* A communicator of `nRanks` ranks in which this process is `rank`, bound to the current device. */
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                       HcclComm *comm);
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                             const HcclCommConfig *config, HcclComm *comm);
/* With `nRoot` root infos, identical on every rank; `nExtRoot` is reserved and must be 0. */
extern HcclResult HcclCommInitRootInfoScalable(uint32_t nRanks, uint32_t nRoot,
                                               const HcclRootInfo *rootInfoList, uint32_t rank,
                                               uint32_t nExtRoot, const HcclCommConfig *config,
                                               HcclComm *comm);

/* Process-wide settings (HcclConfig). */
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);

/* Copies the communicator's name (at most COMM_NAME_MAX_LENGTH bytes with its NUL) to `commName`. */
extern HcclResult HcclGetCommName(HcclComm comm, char *commName);

/* --- collectives: queued on `stream` ---------------------------------------------------------- */

/* recvBuf[i] = op over the ranks of sendBuf[i], for i < count. */
extern HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* Every rank's buf = the root's buf. */
extern HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                aclrtStream stream);
/* sendBuf holds recvCount elements per rank; rank r receives the reduction of block r. */
extern HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                    HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* sendCounts[r] elements at sendDispls[r] (element offsets; uint64_t arrays) go to rank r. */
extern HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                     void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                     HcclComm comm, aclrtStream stream);
/* The root's sendBuf holds recvCount elements per rank; rank r receives block r. */
extern HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                              uint32_t root, HcclComm comm, aclrtStream stream);
/* recvBuf = every rank's sendCount elements, in rank order. */
extern HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                HcclComm comm, aclrtStream stream);
/* Rank r's elements land at recvDispls[r], recvCounts[r] of them (uint64_t arrays). */
extern HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                 const void *recvDispls, HcclDataType dataType, HcclComm comm,
                                 aclrtStream stream);

extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/* Waits (on the stream) until every rank reaches the barrier. */
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

/* Point to point: a send to destRank is matched by destRank's receive from this rank. */
extern HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                           HcclComm comm, aclrtStream stream);
extern HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                           HcclComm comm, aclrtStream stream);

/* sendCountMatrix[i * rankSize + j] (uint64_t) elements go from rank i to rank j. */
extern HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                 const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream);
/* sendCounts[j] elements at sdispls[j] go to rank j, which stores rank i's at rdispls[i]. */
extern HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream);
/* Block j (sendCount elements) goes to rank j; block i of recvBuf comes from rank i. */
extern HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                               const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                               HcclComm comm, aclrtStream stream);
/* The root's recvBuf = op over the ranks of sendBuf. */
extern HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                             HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

extern HcclResult HcclCommDestroy(HcclComm comm);

/* One communicator per device of `devices` (logical ids), all in this process: comms[i] is rank i. */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

/* The communicator's asynchronous error, HCCL_SUCCESS when there is none. */
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

extern const char *HcclGetErrorString(HcclResult code);

/* The items' sends and receives, as one operation. */
extern HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                    aclrtStream stream);

/* How many fields of HcclCommConfig (in HcclCommConfigCapability order) the library reads. */
extern uint32_t HcclGetCommConfigCapability();

/* Fills a configuration with its version prefix and every field's "not set" value. Inline, as in
 * CANN: the prefix tells the library how large the caller's structure is. */
inline void HcclCommConfigInit(HcclCommConfig *config)
{
  if (config == nullptr) {
    return;
  }
  typedef struct {
    size_t size;
    uint32_t magicWord;
    uint32_t version;
    uint64_t reserved;
  } configInfo_t;
  configInfo_t *info = (configInfo_t *)config;
  info->size = sizeof(HcclCommConfig);
  info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
  info->version = HCCL_COMM_CONFIG_VERSION;
  info->reserved = 0;

  config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
  config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  config->hcclCommName[0] = '\0';
  config->hcclUdi[0] = '\0';
  config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
  config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
  config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
  config->hcclWorldRankID = 0;
  config->hcclJobID = 0;
  config->aclGraphZeroCopyEnable = 0;
  config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
  config->hcclAlgo[0] = '\0';
  config->hcclRetryEnable[0] = '\0';
  config->hcclRetryParams[0] = '\0';
  config->hcclBufferName[0] = '\0';
  config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
  config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

/* Fault recovery: a suspended communicator refuses work (HCCL_E_SUSPENDING) until resumed. */
extern HcclResult HcclCommSuspend(HcclComm comm);
extern HcclResult HcclCommResume(HcclComm comm);

/* The virtual-memory range of the communicator's buffers and its physical backing. */
extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
                                         uint64_t flags);
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
extern HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                             aclrtDrvMemHandle handle, uint64_t flags);
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);

/* Switches the listed ranks to their backup NIC (useBackup[i]) or back. */
extern HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup, uint32_t nRanks);

/* Calls between a start and its end are one group (nestable). */
extern HcclResult HcclGroupStart();
extern HcclResult HcclGroupEnd();

#ifndef OPEN_BUILD_PROJECT
/* Per-communicator HcclConfig settings. */
extern HcclResult HcclSetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue *configValue);
#endif

/* Window memory: registered with the communicator, then exchanged with peer ranks. `flag` is
 * reserved (0). */
extern HcclResult HcclCommRegister(HcclComm comm, void *addr, uint64_t size, void **handle, uint32_t flag);
extern HcclResult HcclCommDeregister(HcclComm comm, void *handle);
extern HcclResult HcclCommExchangeMem(HcclComm comm, void *windowHandle, uint32_t *peerRanks,
                                      uint32_t peerRankNum);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_BINDGEN_HCCL_H_ */
