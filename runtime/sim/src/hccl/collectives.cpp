// The collectives and point-to-point calls on a communicator of one rank. On one rank each
// collective's result is its input: reductions over one rank are the identity for every
// HcclReduceOp, a gather or scatter moves this rank's one block. So each is at most one copy,
// queued on the caller's stream with aclrtMemcpyAsync (DEVICE_TO_DEVICE), which runs it in order
// with the stream's other work and checks that both ranges lie in live device allocations.
//
// The order of the checks follows CANN's: the communicator and the stream, then the enumerated
// arguments (data type, reduction, root), then a count of 0 returns success (there is nothing to
// move, and frameworks pass null buffers for empty tensors), then the buffers.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hccl/communicator.h"

namespace aclsim::hccl {
namespace {

// A live communicator that is not suspended, and a stream to queue on. (CANN does not take the
// runtime's default stream for a collective: `stream` is required.)
HcclResult Begin(const char* api, HcclComm comm, aclrtStream stream, std::shared_ptr<Communicator>* communicator) {
  if (HcclResult status = ResolveForWork(api, comm, communicator)) return status;
  if (!stream) return Fail(HCCL_E_PTR, api, "stream is a null pointer");
  return HCCL_SUCCESS;
}

HcclResult CheckReduceOp(const char* api, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM:
    case HCCL_REDUCE_PROD:
    case HCCL_REDUCE_MAX:
    case HCCL_REDUCE_MIN:
      return HCCL_SUCCESS;
    default:
      return Fail(HCCL_E_PARA, api, "op " + std::to_string(static_cast<int>(op)) + " is not an HcclReduceOp");
  }
}

HcclResult CheckRank(const char* api, const char* role, uint32_t rank) {
  if (rank < Communicator::kRankSize) return HCCL_SUCCESS;
  return Fail(HCCL_E_PARA, api, std::string(role) + " " + std::to_string(rank) +
                                    " is not a rank of the communicator, which has 1 rank (rank 0): the simulator "
                                    "runs one rank per process");
}

HcclResult CheckPointer(const char* api, const char* role, const void* pointer) {
  if (pointer) return HCCL_SUCCESS;
  return Fail(HCCL_E_PTR, api, std::string(role) + " is a null pointer");
}

// `elements` of `type` from `base`, as an address; HCCL_E_PARA when the offset overflows.
HcclResult Offset(const char* api, const char* role, const void* base, uint64_t elements, HcclDataType type,
                  char** out) {
  uint64_t bytes = 0;
  if (HcclResult status = ByteCount(api, role, elements, type, &bytes)) return status;
  *out = static_cast<char*>(const_cast<void*>(base)) + bytes;
  return HCCL_SUCCESS;
}

// Queues the one-rank result: `bytes` from `src` to `dst` on `stream`. A collective in place
// (dst == src) copies its buffer onto itself, which changes nothing but has the runtime check the
// buffer and the stream exactly as for any other call.
HcclResult Move(const char* api, void* dst, const void* src, uint64_t bytes, aclrtStream stream) {
  if (aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream) != ACL_SUCCESS) {
    return Fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
  }
  return HCCL_SUCCESS;
}

// The collectives whose one-rank result is `count` elements of sendBuf copied to recvBuf.
HcclResult CopyCollective(const char* api, const void* sendBuf, void* recvBuf, uint64_t count, HcclDataType type,
                          aclrtStream stream) {
  if (count == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  uint64_t bytes = 0;
  if (HcclResult status = ByteCount(api, "count", count, type, &bytes)) return status;
  return Move(api, recvBuf, sendBuf, bytes, stream);
}

// The one element of a per-rank uint64_t array (counts, displacements) that one rank reads.
HcclResult OwnEntry(const char* api, const char* role, const void* array, uint64_t* out) {
  if (HcclResult status = CheckPointer(api, role, array)) return status;
  *out = static_cast<const uint64_t*>(array)[Communicator::kRank];
  return HCCL_SUCCESS;
}

thread_local uint32_t t_group_depth = 0;  // HcclGroupStart .. HcclGroupEnd nesting

// A send or receive made inside HcclGroupStart..HcclGroupEnd: checked when it is made, paired with its
// counterpart and queued when the outermost group ends, as HCCL launches a group's point-to-point
// calls together (torch.distributed's batch_isend_irecv is such a group on torch_npu).
struct GroupedTransfer {
  bool send = false;
  void* buf = nullptr;
  uint64_t bytes = 0;
  std::shared_ptr<Communicator> communicator;
  aclrtStream stream = nullptr;
};
thread_local std::vector<GroupedTransfer> t_grouped;

// A point-to-point call names a peer. On one rank the only rank is this one: in a group, the call
// waits for its counterpart, paired at HcclGroupEnd; alone, a send to oneself would wait forever for
// its receive, and is refused (HcclBatchSendRecv pairs them too).
HcclResult PointToPoint(const char* api, const char* role, bool send, void* buf, uint64_t count, HcclDataType type,
                        uint32_t peer, HcclComm comm, aclrtStream stream) {
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", type)) return status;
  if (HcclResult status = CheckRank(api, role, peer)) return status;
  if (t_group_depth == 0) {
    return Fail(HCCL_E_PARA, api, std::string(role) + " " + std::to_string(peer) +
                                      " is this rank: on a communicator of 1 rank a lone send or receive has no "
                                      "peer to match it (a group, HcclGroupStart..HcclGroupEnd, or "
                                      "HcclBatchSendRecv pairs a rank's sends to itself with its receives)");
  }
  uint64_t bytes = 0;
  if (HcclResult status = ByteCount(api, "count", count, type, &bytes)) return status;
  if (bytes && !buf) return Fail(HCCL_E_PTR, api, std::string(send ? "sendBuf" : "recvBuf") + " is a null pointer");
  t_grouped.push_back(GroupedTransfer{send, buf, bytes, std::move(communicator), stream});
  return HCCL_SUCCESS;
}

// `dst` gets `bytes` of `src` once the work queued on `from` so far has run, on `to`; the work
// queued on `from` afterwards runs after the copy (a send's buffer may be rewritten once it is sent).
// Events order the two streams, as HCCL's own synchronise a send's stream with a receive's.
HcclResult MoveBetween(const char* api, void* dst, const void* src, uint64_t bytes, aclrtStream from, aclrtStream to) {
  if (from == to) return Move(api, dst, src, bytes, to);
  aclrtEvent sent = nullptr, received = nullptr;
  auto release = [&] {
    for (aclrtEvent event : {sent, received}) {
      if (event) aclrtDestroyEvent(event);  // queued records and waits keep theirs alive
    }
  };
  if (aclrtCreateEvent(&sent) != ACL_SUCCESS || aclrtCreateEvent(&received) != ACL_SUCCESS ||
      aclrtRecordEvent(sent, from) != ACL_SUCCESS || aclrtStreamWaitEvent(to, sent) != ACL_SUCCESS) {
    const std::string why = aclGetRecentErrMsg();
    release();
    return Fail(HCCL_E_RUNTIME, api, why);
  }
  HcclResult status = Move(api, dst, src, bytes, to);
  if (status == HCCL_SUCCESS &&
      (aclrtRecordEvent(received, to) != ACL_SUCCESS || aclrtStreamWaitEvent(from, received) != ACL_SUCCESS)) {
    status = Fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
  }
  release();
  return status;
}

// The outermost HcclGroupEnd: the group's k-th send to this rank on a communicator is what its k-th
// receive from this rank there gets. Everything is checked before anything is queued; the group's
// calls are gone either way.
HcclResult LaunchGroup(const char* api) {
  std::vector<GroupedTransfer> grouped;
  grouped.swap(t_grouped);
  std::map<Communicator*, std::pair<std::vector<const GroupedTransfer*>, std::vector<const GroupedTransfer*>>> by_comm;
  for (const GroupedTransfer& transfer : grouped) {
    auto& [sends, receives] = by_comm[transfer.communicator.get()];
    (transfer.send ? sends : receives).push_back(&transfer);
  }
  for (const auto& [communicator, pairs] : by_comm) {
    const auto& [sends, receives] = pairs;
    if (sends.size() != receives.size()) {
      return Fail(HCCL_E_PARA, api, "the group made " + std::to_string(sends.size()) + " HcclSend to this rank but " +
                                        std::to_string(receives.size()) + " HcclRecv from it on communicator '" +
                                        communicator->name + "': on a communicator of 1 rank each send is "
                                        "matched by a receive, in order");
    }
    for (size_t k = 0; k < sends.size(); ++k) {
      if (sends[k]->bytes != receives[k]->bytes) {
        return Fail(HCCL_E_PARA, api, "the group's send " + std::to_string(k) + " to this rank on communicator '" +
                                          communicator->name + "' carries " + std::to_string(sends[k]->bytes) +
                                          " bytes but the matching receive expects " +
                                          std::to_string(receives[k]->bytes));
      }
    }
  }
  for (const auto& [communicator, pairs] : by_comm) {
    const auto& [sends, receives] = pairs;
    for (size_t k = 0; k < sends.size(); ++k) {
      if (sends[k]->bytes == 0) continue;
      if (HcclResult status = MoveBetween(api, receives[k]->buf, sends[k]->buf, sends[k]->bytes, sends[k]->stream,
                                          receives[k]->stream)) {
        return status;
      }
    }
  }
  return HCCL_SUCCESS;
}

}  // namespace
}  // namespace aclsim::hccl

using namespace aclsim::hccl;

extern "C" {

HCCL_EXPORT HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                     HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclAllReduce";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckReduceOp(api, op)) return status;
  return CopyCollective(api, sendBuf, recvBuf, count, dataType, stream);
}

HCCL_EXPORT HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclReduce";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckReduceOp(api, op)) return status;
  if (HcclResult status = CheckRank(api, "root", root)) return status;
  return CopyCollective(api, sendBuf, recvBuf, count, dataType, stream);  // this rank is the root
}

HCCL_EXPORT HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                     HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclBroadcast";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckRank(api, "root", root)) return status;
  return CopyCollective(api, buf, buf, count, dataType, stream);  // the root's buffer is already this one
}

HCCL_EXPORT HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                     HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclAllGather";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  return CopyCollective(api, sendBuf, recvBuf, sendCount, dataType, stream);
}

HCCL_EXPORT HcclResult HcclAllGatherV(void* sendBuf, uint64_t sendCount, void* recvBuf, const void* recvCounts,
                                      const void* recvDispls, HcclDataType dataType, HcclComm comm,
                                      aclrtStream stream) {
  constexpr const char* api = "HcclAllGatherV";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  uint64_t own_count = 0, own_displacement = 0;
  if (HcclResult status = OwnEntry(api, "recvCounts", recvCounts, &own_count)) return status;
  if (HcclResult status = OwnEntry(api, "recvDispls", recvDispls, &own_displacement)) return status;
  if (own_count != sendCount) {
    return Fail(HCCL_E_PARA, api, "recvCounts[0] is " + std::to_string(own_count) + " but this rank sends " +
                                      std::to_string(sendCount) + " elements");
  }
  if (sendCount == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  char* destination = nullptr;
  if (HcclResult status = Offset(api, "recvDispls[0]", recvBuf, own_displacement, dataType, &destination)) {
    return status;
  }
  return CopyCollective(api, sendBuf, destination, sendCount, dataType, stream);
}

HCCL_EXPORT HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                         HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclReduceScatter";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckReduceOp(api, op)) return status;
  // sendBuf holds recvCount elements per rank; this rank's block is the first and only one.
  return CopyCollective(api, sendBuf, recvBuf, recvCount, dataType, stream);
}

HCCL_EXPORT HcclResult HcclReduceScatterV(void* sendBuf, const void* sendCounts, const void* sendDispls,
                                          void* recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                          HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclReduceScatterV";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckReduceOp(api, op)) return status;
  uint64_t own_count = 0, own_displacement = 0;
  if (HcclResult status = OwnEntry(api, "sendCounts", sendCounts, &own_count)) return status;
  if (HcclResult status = OwnEntry(api, "sendDispls", sendDispls, &own_displacement)) return status;
  if (own_count != recvCount) {
    return Fail(HCCL_E_PARA, api, "sendCounts[0] is " + std::to_string(own_count) + " but this rank receives " +
                                      std::to_string(recvCount) + " elements");
  }
  if (recvCount == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  char* source = nullptr;
  if (HcclResult status = Offset(api, "sendDispls[0]", sendBuf, own_displacement, dataType, &source)) return status;
  return CopyCollective(api, source, recvBuf, recvCount, dataType, stream);
}

HCCL_EXPORT HcclResult HcclScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                   uint32_t root, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclScatter";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "dataType", dataType)) return status;
  if (HcclResult status = CheckRank(api, "root", root)) return status;
  // This rank is the root: its sendBuf holds one block of recvCount elements per rank.
  return CopyCollective(api, sendBuf, recvBuf, recvCount, dataType, stream);
}

HCCL_EXPORT HcclResult HcclAlltoAll(const void* sendBuf, uint64_t sendCount, HcclDataType sendType,
                                    const void* recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                    aclrtStream stream) {
  constexpr const char* api = "HcclAlltoAll";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "sendType", sendType)) return status;
  if (HcclResult status = CheckDataType(api, "recvType", recvType)) return status;
  if (sendType != recvType) return Fail(HCCL_E_PARA, api, "sendType and recvType differ");
  if (sendCount != recvCount) {
    return Fail(HCCL_E_PARA, api, "this rank sends itself " + std::to_string(sendCount) + " elements but receives " +
                                      std::to_string(recvCount));
  }
  // hccl.h declares recvBuf `const void *`; it is the output all the same.
  return CopyCollective(api, sendBuf, const_cast<void*>(recvBuf), sendCount, sendType, stream);
}

HCCL_EXPORT HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                     HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                     const void* rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclAlltoAllV";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "sendType", sendType)) return status;
  if (HcclResult status = CheckDataType(api, "recvType", recvType)) return status;
  if (sendType != recvType) return Fail(HCCL_E_PARA, api, "sendType and recvType differ");
  uint64_t send_count = 0, send_displacement = 0, recv_count = 0, recv_displacement = 0;
  if (HcclResult status = OwnEntry(api, "sendCounts", sendCounts, &send_count)) return status;
  if (HcclResult status = OwnEntry(api, "sdispls", sdispls, &send_displacement)) return status;
  if (HcclResult status = OwnEntry(api, "recvCounts", recvCounts, &recv_count)) return status;
  if (HcclResult status = OwnEntry(api, "rdispls", rdispls, &recv_displacement)) return status;
  if (send_count != recv_count) {
    return Fail(HCCL_E_PARA, api, "sendCounts[0] is " + std::to_string(send_count) + " but recvCounts[0] is " +
                                      std::to_string(recv_count) + ": this rank's block to itself must match");
  }
  if (send_count == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  char *source = nullptr, *destination = nullptr;
  if (HcclResult status = Offset(api, "sdispls[0]", sendBuf, send_displacement, sendType, &source)) return status;
  if (HcclResult status = Offset(api, "rdispls[0]", recvBuf, recv_displacement, recvType, &destination)) return status;
  return CopyCollective(api, source, destination, send_count, sendType, stream);
}

HCCL_EXPORT HcclResult HcclAlltoAllVC(const void* sendBuf, const void* sendCountMatrix, HcclDataType sendType,
                                      const void* recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclAlltoAllVC";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (HcclResult status = CheckDataType(api, "sendType", sendType)) return status;
  if (HcclResult status = CheckDataType(api, "recvType", recvType)) return status;
  if (sendType != recvType) return Fail(HCCL_E_PARA, api, "sendType and recvType differ");
  uint64_t own_count = 0;  // the 1 x 1 matrix: what rank 0 sends to rank 0, at offset 0 on both sides
  if (HcclResult status = OwnEntry(api, "sendCountMatrix", sendCountMatrix, &own_count)) return status;
  return CopyCollective(api, sendBuf, const_cast<void*>(recvBuf), own_count, sendType, stream);
}

HCCL_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  constexpr const char* api = "HcclBarrier";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  // One rank reaches the barrier alone, so it waits for nothing; the stream must still be one.
  aclrtStreamStatus ignored;
  if (aclrtStreamQuery(stream, &ignored) != ACL_SUCCESS) return Fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                HcclComm comm, aclrtStream stream) {
  return PointToPoint("HcclSend", "destRank", true, sendBuf, count, dataType, destRank, comm, stream);
}

HCCL_EXPORT HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                HcclComm comm, aclrtStream stream) {
  return PointToPoint("HcclRecv", "srcRank", false, recvBuf, count, dataType, srcRank, comm, stream);
}

HCCL_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                         aclrtStream stream) {
  constexpr const char* api = "HcclBatchSendRecv";
  std::shared_ptr<Communicator> communicator;
  if (HcclResult status = Begin(api, comm, stream, &communicator)) return status;
  if (itemNum == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "sendRecvInfo", sendRecvInfo)) return status;
  // Every item names rank 0, this one: its k-th send to itself is what its k-th receive from
  // itself gets. Everything is checked before anything is queued.
  std::vector<const HcclSendRecvItem*> sends, receives;
  for (uint32_t i = 0; i < itemNum; ++i) {
    const HcclSendRecvItem& item = sendRecvInfo[i];
    const std::string role = "sendRecvInfo[" + std::to_string(i) + "]";
    if (item.sendRecvType != HCCL_SEND && item.sendRecvType != HCCL_RECV) {
      return Fail(HCCL_E_PARA, api, role + ".sendRecvType " + std::to_string(static_cast<int>(item.sendRecvType)) +
                                        " is neither HCCL_SEND nor HCCL_RECV");
    }
    if (HcclResult status = CheckDataType(api, (role + ".dataType").c_str(), item.dataType)) return status;
    if (HcclResult status = CheckRank(api, (role + ".remoteRank").c_str(), item.remoteRank)) return status;
    uint64_t bytes = 0;
    if (HcclResult status = ByteCount(api, (role + ".count").c_str(), item.count, item.dataType, &bytes)) return status;
    if (bytes && !item.buf) return Fail(HCCL_E_PTR, api, role + ".buf is a null pointer");
    (item.sendRecvType == HCCL_SEND ? sends : receives).push_back(&item);
  }
  if (sends.size() != receives.size()) {
    return Fail(HCCL_E_PARA, api, std::to_string(sends.size()) + " sends to this rank but " +
                                      std::to_string(receives.size()) +
                                      " receives from it: on a communicator of 1 rank each send is matched by a "
                                      "receive, in order");
  }
  for (size_t k = 0; k < sends.size(); ++k) {
    const uint64_t sent = sends[k]->count * ElementSize(sends[k]->dataType);
    const uint64_t received = receives[k]->count * ElementSize(receives[k]->dataType);
    if (sent != received) {
      return Fail(HCCL_E_PARA, api, "send " + std::to_string(k) + " to this rank carries " + std::to_string(sent) +
                                        " bytes but the matching receive expects " + std::to_string(received));
    }
  }
  for (size_t k = 0; k < sends.size(); ++k) {
    const uint64_t bytes = sends[k]->count * ElementSize(sends[k]->dataType);
    if (bytes == 0) continue;
    if (HcclResult status = Move(api, receives[k]->buf, sends[k]->buf, bytes, stream)) return status;
  }
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGroupStart() {
  ++t_group_depth;
  return HCCL_SUCCESS;
}

HCCL_EXPORT HcclResult HcclGroupEnd() {
  // A group lets its calls proceed without waiting for one another. On one rank only its sends and
  // receives wait, for each other: the outermost end pairs and queues them. Its collectives were
  // queued on their streams when they were made.
  if (t_group_depth == 0) return Fail(HCCL_E_PARA, "HcclGroupEnd", "no HcclGroupStart is open on this thread");
  if (--t_group_depth > 0) return HCCL_SUCCESS;
  return LaunchGroup("HcclGroupEnd");
}

}  // extern "C"
