"""libhccl of the simulator: HCCL for one rank per process.

A communicator of one rank works: its collectives give their one-rank results in device memory,
queued on the caller's stream in order with the stream's other work. A communicator of more ranks
is refused with HCCL_E_NOT_SUPPORT and a message. Bad arguments answer HCCL's statuses. The
header runtime/include/hccl is compared with the one torch_npu ships (values, layouts and, by
compiling the library against it, signatures), and every HCCL function torch_npu's binary names
must be exported."""

from __future__ import annotations

import ctypes
import importlib.util
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gen import abi
from gen.locations import RUNTIME_INCLUDE
from tests.sim.sim_lib import H2D, ROOT, DeviceArray, P, session_sim

_TYPES_HEADER = (RUNTIME_INCLUDE / "hccl" / "hccl_types.h").read_text(encoding="utf-8")
_HCCL_HEADER = (RUNTIME_INCLUDE / "hccl" / "hccl.h").read_text(encoding="utf-8")

STATUS = abi.enumerators("HcclResult")
SUCCESS, E_PARA, E_PTR, E_NOT_SUPPORT, E_NOT_FOUND, E_RUNTIME, E_SUSPENDING, E_OPEN_FILE = (STATUS[f"HCCL_{n}"] for n in (
    "SUCCESS", "E_PARA", "E_PTR", "E_NOT_SUPPORT", "E_NOT_FOUND", "E_RUNTIME", "E_SUSPENDING", "E_OPEN_FILE_FAILURE"))
DTYPE = abi.enumerators("HcclDataType")
FP32, INT32, INT64, FP16 = (DTYPE[f"HCCL_DATA_TYPE_{n}"] for n in ("FP32", "INT32", "INT64", "FP16"))
OPS = abi.enumerators("HcclReduceOp")
SUM = OPS["HCCL_REDUCE_SUM"]
SEND, RECV = (abi.enumerators("HcclSendRecvType")[n] for n in ("HCCL_SEND", "HCCL_RECV"))


# --- the header, read as the tests need it --------------------------------------------------------

def constants(text: str) -> dict[str, int]:
    """`const uint32_t NAME = value;` declarations of a header."""
    return {name: int(value, 0) for name, value in
            re.findall(r"^const \w+ (\w+) = *(0x[0-9a-fA-F]+|\d+)U*L*;", text, re.M)}


def enums(text: str) -> dict[str, list[str]]:
    """Every `typedef enum {...} Name;` of a header: its enumerator names, in order."""
    return {name: re.findall(r"^\s*(\w+)\s*(?:=[^,\n]*)?,?\s*(?:/\*.*|//.*)?$", body, re.M)
            for body, name in re.findall(r"typedef enum\s*\w*\s*\{([^}]*)\}\s*(\w+)\s*;", text)}


def struct_fields(text: str, name: str) -> list[tuple[str, str, str]]:
    """The fields of `typedef struct ... {...} name;`: (type, field, array length or '')."""
    body = re.search(r"typedef struct \w*\s*\{([^}]*)\}\s*" + name + r"\s*;", text).group(1)
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
    return re.findall(r"([\w ]+?\s*\**)\s*(\w+)(?:\[(\w+)\])?;", body)


def functions(text: str) -> set[str]:
    return set(re.findall(r"^extern [\w\s\*]+?\b(Hccl\w+)\s*\(", text, re.M))


CONSTANTS = constants(_TYPES_HEADER)
_CTYPES = {"uint8_t": ctypes.c_uint8, "uint32_t": ctypes.c_uint32, "int32_t": ctypes.c_int32,
           "uint64_t": ctypes.c_uint64, "char": ctypes.c_char, "void *": ctypes.c_void_p,
           "HcclDataType": ctypes.c_int, "HcclSendRecvType": ctypes.c_int}


def ctypes_struct(name: str) -> type[ctypes.Structure]:
    """A ctypes mirror of a struct of hccl_types.h, built from the header's own fields."""
    fields = []
    for c_type, field, length in struct_fields(_TYPES_HEADER, name):
        base = _CTYPES[" ".join(c_type.split()).replace(" *", " *")]
        fields.append((field, base * CONSTANTS[length] if length else base))
    return type(name, (ctypes.Structure,), {"_fields_": fields})


HcclCommConfig = ctypes_struct("HcclCommConfig")
HcclSendRecvItem = ctypes_struct("HcclSendRecvItem")
RootInfo = ctypes.c_char * CONSTANTS["HCCL_ROOT_INFO_BYTES"]


def config_init(name: bytes = b"") -> HcclCommConfig:
    """What hccl.h's inline HcclCommConfigInit writes: the versioned prefix and the 'not set' values."""
    config = HcclCommConfig()
    prefix = struct.pack("=QIIQ", ctypes.sizeof(HcclCommConfig), CONSTANTS["HCCL_COMM_CONFIG_MAGIC_WORD"],
                         CONSTANTS["HCCL_COMM_CONFIG_VERSION"], 0)
    ctypes.memmove(ctypes.addressof(config) + HcclCommConfig.reserved.offset, prefix, len(prefix))
    config.hcclBufferSize = CONSTANTS["HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET"]
    config.hcclDeterministic = CONSTANTS["HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET"]
    config.hcclCommName = name
    return config


# --- the library -----------------------------------------------------------------------------------

U32, U64, I32, INT = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_int
_SIGNATURES = {
    "HcclGetRootInfo": [P],
    "HcclCommInitRootInfo": [U32, P, U32, P],
    "HcclCommInitRootInfoConfig": [U32, P, U32, P, P],
    "HcclCommInitRootInfoScalable": [U32, U32, P, U32, U32, P, P],
    "HcclCommInitClusterInfo": [ctypes.c_char_p, U32, P],
    "HcclCommInitAll": [U32, P, P],
    "HcclCreateSubCommConfig": [P, U32, P, U64, U32, P, P],
    "HcclCommDestroy": [P],
    "HcclGetRankSize": [P, P],
    "HcclGetRankId": [P, P],
    "HcclGetCommName": [P, ctypes.c_char_p],
    "HcclGetCommAsyncError": [P, P],
    "HcclCommSuspend": [P],
    "HcclCommResume": [P],
    "HcclSetConfig": [INT, I32],
    "HcclGetConfig": [INT, P],
    "HcclAllReduce": [P, P, U64, INT, INT, P, P],
    "HcclReduce": [P, P, U64, INT, INT, U32, P, P],
    "HcclBroadcast": [P, U64, INT, U32, P, P],
    "HcclAllGather": [P, P, U64, INT, P, P],
    "HcclAllGatherV": [P, U64, P, P, P, INT, P, P],
    "HcclReduceScatter": [P, P, U64, INT, INT, P, P],
    "HcclReduceScatterV": [P, P, P, P, U64, INT, INT, P, P],
    "HcclScatter": [P, P, U64, INT, U32, P, P],
    "HcclAlltoAll": [P, U64, INT, P, U64, INT, P, P],
    "HcclAlltoAllV": [P, P, P, INT, P, P, P, INT, P, P],
    "HcclAlltoAllVC": [P, P, INT, P, INT, P, P],
    "HcclBarrier": [P, P],
    "HcclSend": [P, U64, INT, U32, P, P],
    "HcclRecv": [P, U64, INT, U32, P, P],
    "HcclBatchSendRecv": [P, U32, P, P],
    "HcclGroupStart": [],
    "HcclGroupEnd": [],
    "HcclCommRegister": [P, P, U64, P, U32],
    "HcclCommDeregister": [P, P],
    "HcclCommExchangeMem": [P, P, P, U32],
    "HcclCommSetMemoryRange": [P, P, ctypes.c_size_t, ctypes.c_size_t, U64],
    "HcclCommWorkingDevNicSet": [P, P, P, U32],
}


class Hccl:
    """libhccl.so next to the session's simulator, with the simulator's recent-error message."""

    def __init__(self, sim) -> None:
        self.sim = sim
        self.lib = ctypes.CDLL(str(sim.libdir / "libhccl.so"))
        for name, argtypes in _SIGNATURES.items():
            fn = getattr(self.lib, name)
            fn.restype, fn.argtypes = ctypes.c_int, argtypes
            setattr(self, name, fn)
        self.lib.HcclGetErrorString.restype, self.lib.HcclGetErrorString.argtypes = ctypes.c_char_p, [INT]
        self.lib.HcclGetCommConfigCapability.restype, self.lib.HcclGetCommConfigCapability.argtypes = U32, []

    def root_info(self) -> RootInfo:
        root = RootInfo()
        assert self.HcclGetRootInfo(root) == SUCCESS, self.sim.error()
        return root

    def communicator(self) -> int:
        comm = P()
        assert self.HcclCommInitRootInfo(1, self.root_info(), 0, ctypes.byref(comm)) == SUCCESS, self.sim.error()
        return comm.value


@pytest.fixture(scope="module")
def sim():
    return session_sim()


@pytest.fixture(scope="module")
def hccl(sim):
    return Hccl(sim)


@pytest.fixture()
def comm(hccl):
    handle = hccl.communicator()
    yield handle
    assert hccl.HcclCommDestroy(handle) == SUCCESS, hccl.sim.error()


@pytest.fixture()
def stream(sim):
    handle = sim.new_stream()
    yield handle
    assert sim.aclrtDestroyStream(handle) == 0, sim.error()


class Buffers:
    """Device arrays closed together."""

    def __init__(self, sim) -> None:
        self.sim, self.arrays = sim, []

    def __call__(self, values) -> DeviceArray:
        array = DeviceArray(self.sim, np.asarray(values))
        self.arrays.append(array)
        return array

    def close(self) -> None:
        for array in self.arrays:
            array.close()


@pytest.fixture()
def device(sim):
    buffers = Buffers(sim)
    yield buffers
    buffers.close()


def synchronize(sim, stream) -> None:
    assert sim.aclrtSynchronizeStream(stream) == 0, sim.error()


def u64s(*values) -> ctypes.Array:
    return (ctypes.c_uint64 * len(values))(*values)


DATA = np.arange(1, 9, dtype=np.float32) * np.float32(1.5)


# --- a one-rank communicator ---------------------------------------------------------------------

def test_a_communicator_of_one_rank_is_rank_0_of_1(hccl, comm):
    size, rank, error = U32(7), U32(7), INT(-1)
    assert hccl.HcclGetRankSize(comm, ctypes.byref(size)) == SUCCESS
    assert hccl.HcclGetRankId(comm, ctypes.byref(rank)) == SUCCESS
    assert hccl.HcclGetCommAsyncError(comm, ctypes.byref(error)) == SUCCESS
    assert (size.value, rank.value, error.value) == (1, 0, SUCCESS)


@pytest.mark.parametrize("op", sorted(set(OPS.values()) - {OPS["HCCL_REDUCE_RESERVED"]}))
def test_allreduce_over_one_rank_is_the_input_for_every_op(hccl, sim, comm, stream, device, op):
    send, recv = device(DATA), device(np.zeros_like(DATA))
    assert hccl.HcclAllReduce(send.ptr, recv.ptr, DATA.size, FP32, op, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(recv.numpy(), DATA)


def test_allreduce_in_place_keeps_the_buffer(hccl, sim, comm, stream, device):
    buf = device(DATA)
    assert hccl.HcclAllReduce(buf.ptr, buf.ptr, DATA.size, FP32, SUM, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(buf.numpy(), DATA)


def test_allgather_of_one_rank_is_its_block(hccl, sim, comm, stream, device):
    values = np.arange(6, dtype=np.int64) - 3
    send, recv = device(values), device(np.full(8, 99, np.int64))
    assert hccl.HcclAllGather(send.ptr, recv.ptr, values.size, INT64, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(recv.numpy(), np.concatenate([values, [99, 99]]))  # nothing past the block


def test_broadcast_from_root_0_keeps_the_buffer(hccl, sim, comm, stream, device):
    buf = device(DATA)
    assert hccl.HcclBroadcast(buf.ptr, DATA.size, FP32, 0, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(buf.numpy(), DATA)


def test_reduce_scatter_gives_rank_0_its_block(hccl, sim, comm, stream, device):
    values = np.arange(10, dtype=np.int32)
    send, recv = device(values), device(np.zeros(4, np.int32))
    assert hccl.HcclReduceScatter(send.ptr, recv.ptr, 4, INT32, SUM, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(recv.numpy(), values[:4])


def test_reduce_and_scatter_with_root_0(hccl, sim, comm, stream, device):
    send, reduced, scattered = device(DATA), device(np.zeros_like(DATA)), device(np.zeros(3, np.float32))
    assert hccl.HcclReduce(send.ptr, reduced.ptr, DATA.size, FP32, SUM, 0, comm, stream) == SUCCESS, sim.error()
    assert hccl.HcclScatter(send.ptr, scattered.ptr, 3, FP32, 0, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(reduced.numpy(), DATA) and np.array_equal(scattered.numpy(), DATA[:3])


def test_v_collectives_follow_rank_0s_count_and_displacement(hccl, sim, comm, stream, device):
    values = np.arange(10, dtype=np.float32)
    send = device(values)
    gathered, scattered, exchanged = (device(np.zeros(10, np.float32)) for _ in range(3))
    # AllGatherV: this rank's 3 elements land 4 elements into recvBuf.
    assert hccl.HcclAllGatherV(send.ptr, 3, gathered.ptr, u64s(3), u64s(4), FP32, comm, stream) == SUCCESS
    # ReduceScatterV: this rank receives the 2 elements at displacement 5.
    assert hccl.HcclReduceScatterV(send.ptr, u64s(2), u64s(5), scattered.ptr, 2, FP32, SUM, comm, stream) == SUCCESS
    # AlltoAllV: 4 elements from offset 1 to offset 6.
    assert hccl.HcclAlltoAllV(send.ptr, u64s(4), u64s(1), FP32, exchanged.ptr, u64s(4), u64s(6), FP32,
                              comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(gathered.numpy(), [0, 0, 0, 0, 0, 1, 2, 0, 0, 0])
    assert np.array_equal(scattered.numpy()[:3], [5, 6, 0])
    assert np.array_equal(exchanged.numpy(), [0, 0, 0, 0, 0, 0, 1, 2, 3, 4])


def test_alltoall_and_alltoallvc_move_the_block_to_itself(hccl, sim, comm, stream, device):
    values = np.arange(5, dtype=np.float16)
    send, even, matrix = device(values), device(np.zeros(5, np.float16)), device(np.zeros(5, np.float16))
    assert hccl.HcclAlltoAll(send.ptr, 5, FP16, even.ptr, 5, FP16, comm, stream) == SUCCESS, sim.error()
    assert hccl.HcclAlltoAllVC(send.ptr, u64s(2), FP16, matrix.ptr, FP16, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(even.numpy(), values) and np.array_equal(matrix.numpy(), [0, 1, 0, 0, 0])


def test_batch_send_recv_pairs_sends_to_itself_with_receives_in_order(hccl, sim, comm, stream, device):
    a, b = device(np.array([1, 2, 3], np.int32)), device(np.array([7, 8], np.int32))
    out_a, out_b = device(np.zeros(3, np.int32)), device(np.zeros(2, np.int32))
    items = (HcclSendRecvItem * 4)(HcclSendRecvItem(RECV, out_a.ptr, 3, INT32, 0), HcclSendRecvItem(SEND, a.ptr, 3, INT32, 0),
                                   HcclSendRecvItem(SEND, b.ptr, 2, INT32, 0), HcclSendRecvItem(RECV, out_b.ptr, 2, INT32, 0))
    assert hccl.HcclBatchSendRecv(items, 4, comm, stream) == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(out_a.numpy(), [1, 2, 3]) and np.array_equal(out_b.numpy(), [7, 8])


def test_a_group_pairs_its_sends_to_itself_with_its_receives_at_its_end(hccl, sim, comm, stream, device):
    # As HCCL launches a group's point-to-point calls together (torch.distributed's batch_isend_irecv
    # on torch_npu): each call alone would wait for its peer, so nothing is queued before the end.
    a, b = device(np.array([1, 2, 3], np.int32)), device(np.array([7, 8], np.float32))
    out_a, out_b = device(np.zeros(3, np.int32)), device(np.zeros(2, np.float32))
    assert hccl.HcclGroupStart() == SUCCESS and hccl.HcclGroupStart() == SUCCESS
    assert hccl.HcclRecv(out_a.ptr, 3, INT32, 0, comm, stream) == SUCCESS, sim.error()
    assert hccl.HcclSend(a.ptr, 3, INT32, 0, comm, stream) == SUCCESS, sim.error()
    assert hccl.HcclSend(b.ptr, 2, FP32, 0, comm, stream) == SUCCESS
    assert hccl.HcclGroupEnd() == SUCCESS  # nested: the outer group is still open
    assert hccl.HcclRecv(out_b.ptr, 2, FP32, 0, comm, stream) == SUCCESS
    synchronize(sim, stream)
    assert not out_a.numpy().any() and not out_b.numpy().any()
    assert hccl.HcclGroupEnd() == SUCCESS, sim.error()
    synchronize(sim, stream)
    assert np.array_equal(out_a.numpy(), [1, 2, 3]) and np.array_equal(out_b.numpy(), [7, 8])


def test_a_grouped_send_and_receive_on_two_streams_order_both(hccl, sim, comm, stream, device):
    # The receive's stream waits for the work queued on the send's before the group ended.
    other = sim.new_stream()
    source, out = device(np.zeros(4, np.float32)), device(np.zeros(4, np.float32))
    assert sim.aclsimHoldStream(stream, 1) == 0
    assert sim.aclrtMemcpyAsync(source.ptr, 16, DATA[:4].ctypes.data, 16, H2D, stream) == 0, sim.error()
    assert hccl.HcclGroupStart() == SUCCESS
    assert hccl.HcclSend(source.ptr, 4, FP32, 0, comm, stream) == SUCCESS
    assert hccl.HcclRecv(out.ptr, 4, FP32, 0, comm, other) == SUCCESS
    assert hccl.HcclGroupEnd() == SUCCESS, sim.error()
    assert not out.read_storage().any()  # the send's stream has not run its copy in yet
    assert sim.aclsimHoldStream(stream, 0) == 0
    synchronize(sim, other)
    assert np.array_equal(out.numpy(), DATA[:4])
    synchronize(sim, stream)
    assert sim.aclrtDestroyStream(other) == 0


@pytest.mark.parametrize("calls, message", [
    ([("send", 3)], "1 HcclSend to this rank but 0 HcclRecv"),
    ([("recv", 3), ("recv", 3), ("send", 3)], "1 HcclSend to this rank but 2 HcclRecv"),
    ([("send", 3), ("recv", 2)], "carries 12 bytes but the matching receive expects 8"),
])
def test_an_unpaired_group_fails_at_its_end_and_queues_nothing(hccl, sim, comm, stream, device, calls, message):
    buf, out = device(np.arange(3, dtype=np.int32) + 1), device(np.zeros(3, np.int32))
    assert hccl.HcclGroupStart() == SUCCESS
    for kind, count in calls:
        call = hccl.HcclSend if kind == "send" else hccl.HcclRecv
        assert call((buf if kind == "send" else out).ptr, count, INT32, 0, comm, stream) == SUCCESS
    assert hccl.HcclGroupEnd() == E_PARA
    assert sim.error().startswith("HcclGroupEnd: ") and message in sim.error(), sim.error()
    synchronize(sim, stream)
    assert not out.numpy().any()
    assert hccl.HcclGroupStart() == SUCCESS and hccl.HcclGroupEnd() == SUCCESS  # the failed group is gone


def test_libhcomm_resolves_what_torch_npu_looks_up_there(hccl, sim, stream):
    # torch_npu 2.13 finds HCCL's group calls and communication memory in libhcomm.so by name
    # (HcclCompile.h); libhcomm depends on libhccl, whose functions a lookup there finds.
    hcomm = ctypes.CDLL(str(sim.libdir / "libhcomm.so"))
    for name in ("HcclGroupStart", "HcclGroupEnd", "HcommMemAlloc", "HcommMemFree"):
        assert hasattr(hcomm, name), name
    alloc, free = hcomm.HcommMemAlloc, hcomm.HcommMemFree
    alloc.restype, alloc.argtypes, free.restype, free.argtypes = ctypes.c_int, [P, U64], ctypes.c_int, [P]
    ptr = P()
    assert alloc(ctypes.byref(ptr), 64) == SUCCESS, sim.error()
    data = np.arange(16, dtype=np.float32)
    assert sim.aclrtMemcpyAsync(ptr, 64, data.ctypes.data, 64, H2D, stream) == 0, sim.error()  # device memory
    synchronize(sim, stream)
    assert np.array_equal(np.frombuffer(sim.from_device(ptr.value, 64), np.float32), data)
    assert free(ptr) == SUCCESS
    assert free(ptr) == E_RUNTIME and sim.error().startswith("HcommMemFree: ")
    assert alloc(None, 64) == E_PTR and alloc(ctypes.byref(ptr), 0) == E_PARA
    assert free(None) == E_PTR


def test_a_collective_is_queued_in_order_with_the_streams_other_work(hccl, sim, comm, stream, device):
    n = 1024
    send, recv = device(np.zeros(n, np.float32)), device(np.zeros(n, np.float32))
    event = sim.new_event()
    assert sim.aclsimHoldStream(stream, 1) == 0
    try:
        # fill 0x40 -> all-reduce -> fill 0x41, all queued on a stream that runs nothing yet
        assert sim.aclrtMemsetAsync(send.ptr, send.nbytes, 0x40, send.nbytes, stream) == 0, sim.error()
        assert hccl.HcclAllReduce(send.ptr, recv.ptr, n, FP32, SUM, comm, stream) == SUCCESS, sim.error()
        assert sim.aclrtMemsetAsync(send.ptr, send.nbytes, 0x41, send.nbytes, stream) == 0, sim.error()
        assert sim.aclrtRecordEvent(event, stream) == 0
        assert not sim.event_done(event)       # queued, not run
        assert not recv.read_storage().any()   # the all-reduce has not written yet
    finally:
        assert sim.aclsimHoldStream(stream, 0) == 0
    synchronize(sim, stream)
    assert sim.event_done(event)
    assert np.array_equal(recv.read_storage().view(np.uint8), np.full(4 * n, 0x40, np.uint8))  # between the fills
    assert np.array_equal(send.read_storage().view(np.uint8), np.full(4 * n, 0x41, np.uint8))
    assert sim.aclrtDestroyEvent(event) == 0


def test_barrier_and_a_count_of_zero_succeed_without_buffers(hccl, sim, comm, stream):
    assert hccl.HcclBarrier(comm, stream) == SUCCESS, sim.error()
    assert hccl.HcclAllReduce(None, None, 0, FP32, SUM, comm, stream) == SUCCESS, sim.error()


def test_config_names_the_communicator_and_default_names_differ(hccl, sim):
    comm, other, named = P(), P(), P()
    root = hccl.root_info()
    assert hccl.HcclCommInitRootInfo(1, root, 0, ctypes.byref(comm)) == SUCCESS
    assert hccl.HcclCommInitRootInfo(1, hccl.root_info(), 0, ctypes.byref(other)) == SUCCESS
    assert hccl.HcclCommInitRootInfoConfig(1, root, 0, ctypes.byref(config_init(b"tp_group")),
                                           ctypes.byref(named)) == SUCCESS, sim.error()
    names = []
    for handle in (comm, other, named):
        name = ctypes.create_string_buffer(CONSTANTS["COMM_NAME_MAX_LENGTH"])
        assert hccl.HcclGetCommName(handle, name) == SUCCESS
        names.append(name.value)
        assert hccl.HcclCommDestroy(handle) == SUCCESS
    assert names[2] == b"tp_group" and names[0] != names[1] and all(names)


def test_other_ways_to_make_a_one_rank_communicator(hccl, sim, tmp_path):
    table = tmp_path / "rank_table.json"
    table.write_text('{"server_count": "1", "server_list": [{"device": [{"device_id": "0", "device_ip": '
                     '"192.168.1.8", "rank_id": "0"}], "server_id": "127.0.0.1"}], "status": "completed", '
                     '"version": "1.0"}')
    made = []
    for make in (lambda c: hccl.HcclCommInitClusterInfo(str(table).encode(), 0, c),
                 lambda c: hccl.HcclCommInitAll(1, (I32 * 1)(0), c),
                 lambda c: hccl.HcclCommInitRootInfoScalable(1, 1, hccl.root_info(), 0, 0,
                                                             ctypes.byref(config_init()), c)):
        comm = P()
        assert make(ctypes.byref(comm)) == SUCCESS, sim.error()
        made.append(comm)
    sub = P()
    assert hccl.HcclCreateSubCommConfig(ctypes.byref(made[0]), 1, (U32 * 1)(0), 5, 0, ctypes.byref(config_init()),
                                        ctypes.byref(sub)) == SUCCESS, sim.error()
    size = U32(0)
    for comm in (*made, sub):
        assert hccl.HcclGetRankSize(comm, ctypes.byref(size)) == SUCCESS and size.value == 1
        assert hccl.HcclCommDestroy(comm) == SUCCESS


def test_settings_are_kept(hccl, comm):
    deterministic = abi.enumerators("HcclConfig")["HCCL_DETERMINISTIC"]
    value = I32(-1)
    assert hccl.HcclSetConfig(deterministic, 1) == SUCCESS
    assert hccl.HcclGetConfig(deterministic, ctypes.byref(value)) == SUCCESS and value.value == 1
    assert hccl.HcclSetConfig(deterministic, 0) == SUCCESS
    assert hccl.HcclGetConfig(deterministic, ctypes.byref(value)) == SUCCESS and value.value == 0
    assert hccl.HcclSetConfig(deterministic, 2) == E_PARA
    assert hccl.lib.HcclGetCommConfigCapability() == abi.enumerators("HcclCommConfigCapability")[
        "HCCL_COMM_CONFIG_BUFFER_NAME"] + 1
    assert hccl.lib.HcclGetErrorString(E_NOT_SUPPORT) == b"not support feature"


def test_suspend_refuses_work_until_resume(hccl, sim, comm, stream, device):
    buf = device(DATA)
    assert hccl.HcclCommSuspend(comm) == SUCCESS
    assert hccl.HcclAllReduce(buf.ptr, buf.ptr, DATA.size, FP32, SUM, comm, stream) == E_SUSPENDING
    assert "suspended" in sim.error()
    assert hccl.HcclCommResume(comm) == SUCCESS
    assert hccl.HcclAllReduce(buf.ptr, buf.ptr, DATA.size, FP32, SUM, comm, stream) == SUCCESS, sim.error()


def test_registered_windows(hccl, sim, comm, device):
    buf, handle = device(DATA), P()
    assert hccl.HcclCommRegister(comm, buf.ptr, buf.nbytes, ctypes.byref(handle), 0) == SUCCESS, sim.error()
    assert hccl.HcclCommExchangeMem(comm, handle, None, 0) == SUCCESS
    assert hccl.HcclCommExchangeMem(comm, handle, (U32 * 1)(1), 1) == E_PARA and "no peers" in sim.error()
    assert hccl.HcclCommDeregister(comm, handle) == SUCCESS
    assert hccl.HcclCommDeregister(comm, handle) == E_NOT_FOUND
    assert hccl.HcclCommRegister(comm, buf.ptr, buf.nbytes, ctypes.byref(handle), 1) == E_PARA  # flag is reserved


# --- more than one rank, and bad arguments -------------------------------------------------------

def test_more_than_one_rank_is_refused_with_a_message(hccl, sim, tmp_path):
    table = tmp_path / "two.json"
    table.write_text('{"server_list": [{"device": [{"rank_id": "0"}, {"rank_id": "1"}]}]}')
    calls = {
        "HcclCommInitRootInfo": lambda c: hccl.HcclCommInitRootInfo(2, hccl.root_info(), 0, c),
        "HcclCommInitRootInfoConfig": lambda c: hccl.HcclCommInitRootInfoConfig(
            2, hccl.root_info(), 1, ctypes.byref(config_init()), c),
        "HcclCommInitRootInfoScalable": lambda c: hccl.HcclCommInitRootInfoScalable(
            8, 1, hccl.root_info(), 3, 0, ctypes.byref(config_init()), c),
        "HcclCommInitAll": lambda c: hccl.HcclCommInitAll(2, (I32 * 2)(0, 1), c),
        "HcclCommInitClusterInfo": lambda c: hccl.HcclCommInitClusterInfo(str(table).encode(), 0, c),
    }
    for api, call in calls.items():
        comm = P(0x1234)
        assert call(ctypes.byref(comm)) == E_NOT_SUPPORT, api
        assert comm.value == 0x1234  # no communicator was made
        message = sim.error()
        assert message.startswith(api + ":") and "one rank per process" in message, message


def test_bad_communicator_arguments(hccl, sim, tmp_path):
    comm = P()
    assert hccl.HcclCommInitRootInfo(1, None, 0, ctypes.byref(comm)) == E_PTR
    assert hccl.HcclCommInitRootInfo(1, hccl.root_info(), 0, None) == E_PTR
    assert hccl.HcclCommInitRootInfo(1, RootInfo(), 0, ctypes.byref(comm)) == E_PARA
    assert "HcclGetRootInfo" in sim.error()
    assert hccl.HcclCommInitRootInfo(0, hccl.root_info(), 0, ctypes.byref(comm)) == E_PARA
    assert hccl.HcclCommInitRootInfo(1, hccl.root_info(), 1, ctypes.byref(comm)) == E_PARA
    assert "rank 1 is not below nRanks 1" in sim.error()
    assert hccl.HcclCommInitRootInfoConfig(1, hccl.root_info(), 0, ctypes.byref(HcclCommConfig()),
                                           ctypes.byref(comm)) == E_PARA  # not initialised: no magic word
    assert hccl.HcclCommInitRootInfoScalable(1, 1, hccl.root_info(), 0, 1, ctypes.byref(config_init()),
                                             ctypes.byref(comm)) == E_PARA  # nExtRoot must be 0
    assert hccl.HcclCommInitClusterInfo(str(tmp_path / "none.json").encode(), 0, ctypes.byref(comm)) == E_OPEN_FILE
    assert hccl.HcclCommInitAll(1, (I32 * 1)(99), ctypes.byref(comm)) == E_PARA
    assert comm.value is None


def test_a_destroyed_communicator_is_dead(hccl, sim, stream):
    comm = hccl.communicator()
    assert hccl.HcclCommDestroy(comm) == SUCCESS
    size = U32()
    assert hccl.HcclGetRankSize(comm, ctypes.byref(size)) == E_PARA
    assert "not a live communicator" in sim.error()
    assert hccl.HcclAllReduce(None, None, 0, FP32, SUM, comm, stream) == E_PARA
    assert hccl.HcclCommDestroy(comm) == E_PARA
    assert hccl.HcclCommDestroy(None) == E_PTR


def test_bad_collective_arguments(hccl, sim, comm, stream, device):
    buf = device(DATA)
    n = DATA.size
    host = np.zeros_like(DATA)
    cases = [
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, n, FP32, SUM, None, stream), E_PTR, "comm is a null pointer"),
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, n, FP32, SUM, comm, None), E_PTR, "stream is a null pointer"),
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, n, 13, SUM, comm, stream), E_PARA, "13 is not an HcclDataType"),
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, n, 255, SUM, comm, stream), E_PARA, "not an HcclDataType"),
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, n, FP32, 4, comm, stream), E_PARA, "op 4 is not an HcclReduceOp"),
        (lambda: hccl.HcclAllReduce(None, buf.ptr, n, FP32, SUM, comm, stream), E_PTR, "sendBuf is a null pointer"),
        (lambda: hccl.HcclAllGather(buf.ptr, None, n, FP32, comm, stream), E_PTR, "recvBuf is a null pointer"),
        # past the end of the device allocation, and host memory: the runtime's checks, named
        (lambda: hccl.HcclAllReduce(buf.ptr, buf.ptr, 64 * n, FP32, SUM, comm, stream), E_RUNTIME,
         "runs past the end"),
        (lambda: hccl.HcclAllReduce(host.ctypes.data, buf.ptr, n, FP32, SUM, comm, stream), E_RUNTIME,
         "not in a live device allocation"),
        (lambda: hccl.HcclBroadcast(buf.ptr, n, FP32, 1, comm, stream), E_PARA, "root 1 is not a rank"),
        (lambda: hccl.HcclReduce(buf.ptr, buf.ptr, n, FP32, SUM, 2, comm, stream), E_PARA, "root 2 is not a rank"),
        (lambda: hccl.HcclAllGatherV(buf.ptr, 3, buf.ptr, u64s(2), u64s(0), FP32, comm, stream), E_PARA,
         "recvCounts[0] is 2"),
        (lambda: hccl.HcclAlltoAll(buf.ptr, 2, FP32, buf.ptr, 2, INT32, comm, stream), E_PARA, "differ"),
        (lambda: hccl.HcclAlltoAllV(buf.ptr, None, u64s(0), FP32, buf.ptr, u64s(1), u64s(0), FP32, comm, stream), E_PTR,
         "sendCounts is a null pointer"),
        (lambda: hccl.HcclSend(buf.ptr, n, FP32, 1, comm, stream), E_PARA, "destRank 1 is not a rank"),
        (lambda: hccl.HcclRecv(buf.ptr, n, FP32, 0, comm, stream), E_PARA, "no peer"),
        (lambda: hccl.HcclBatchSendRecv((HcclSendRecvItem * 1)(HcclSendRecvItem(SEND, buf.ptr, 2, FP32, 0)), 1, comm,
                                        stream), E_PARA, "1 sends to this rank but 0 receives"),
        (lambda: hccl.HcclBatchSendRecv((HcclSendRecvItem * 1)(HcclSendRecvItem(SEND, buf.ptr, 2, FP32, 1)), 1, comm,
                                        stream), E_PARA, "remoteRank 1 is not a rank"),
        (lambda: hccl.HcclGroupEnd(), E_PARA, "no HcclGroupStart"),
    ]
    for call, status, words in cases:
        assert call() == status, words
        assert words in sim.error()
    # The refused calls queued nothing: the buffer is unchanged.
    synchronize(sim, stream)
    assert np.array_equal(buf.numpy(), DATA)


def test_groups_nest(hccl):
    assert hccl.HcclGroupStart() == SUCCESS and hccl.HcclGroupStart() == SUCCESS
    assert hccl.HcclGroupEnd() == SUCCESS and hccl.HcclGroupEnd() == SUCCESS
    assert hccl.HcclGroupEnd() == E_PARA


def test_unmodelled_calls_answer_not_supported_naming_themselves(hccl, sim, comm):
    assert hccl.HcclCommSetMemoryRange(comm, None, 1 << 20, 0, 0) == E_NOT_SUPPORT
    assert sim.error().startswith("HcclCommSetMemoryRange:")
    assert hccl.HcclCommWorkingDevNicSet(comm, (U32 * 1)(0), (ctypes.c_bool * 1)(True), 1) == E_NOT_SUPPORT
    assert sim.error().startswith("HcclCommWorkingDevNicSet:")
    for name in ("HcclCommUnsetMemoryRange", "HcclCommActivateCommMemory", "HcclCommDeactivateCommMemory",
                 "HcclCommSymWinRegister", "HcclCommSymWinDeregister"):
        fn = getattr(hccl.lib, name)
        fn.restype = ctypes.c_int
        assert fn(ctypes.c_void_p(comm), None) == E_NOT_SUPPORT, name
        assert sim.error().startswith(name + ":")


# --- the ABI against CANN's own header, as torch_npu ships it ------------------------------------

def _torch_npu_dir() -> Path | None:
    spec = importlib.util.find_spec("torch_npu")  # finds the package without importing it
    return Path(spec.origin).parent if spec and spec.origin else None


TORCH_NPU = _torch_npu_dir()
needs_torch_npu = pytest.mark.skipif(TORCH_NPU is None, reason="torch_npu (which ships CANN's hccl.h) is not installed")
needs_compiler = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")


def _real_header(name: str) -> str:
    return (TORCH_NPU / "include" / "third_party" / "hccl" / "inc" / "hccl" / name).read_text(encoding="utf-8")


# Looked up by torch_npu 2.13 (its binary names them) but not declared by the hccl.h it ships.
UNDECLARED_LOOKUPS = {"HcclCommSymWinRegister", "HcclCommSymWinDeregister"}


@needs_torch_npu
def test_every_hccl_function_torch_npu_names_is_exported(hccl):
    binary = (TORCH_NPU / "lib" / "libtorch_npu.so").read_bytes()
    named = {s.decode() for s in re.findall(rb"(?<![\x21-\x7e])(Hccl[A-Za-z]+)(?![\x21-\x7e])", binary)}
    # Strings of the binary are also op and profiler names ("HcclAllreduce"): a function is a name
    # the shipped header declares, or one of the known undeclared lookups.
    assert UNDECLARED_LOOKUPS <= named
    required = (named & functions(_real_header("hccl.h"))) | UNDECLARED_LOOKUPS
    assert len(required) > 30
    missing = sorted(name for name in required if not hasattr(hccl.lib, name))
    assert not missing, f"torch_npu needs HCCL functions libhccl.so lacks: {missing}"


@needs_torch_npu
def test_the_header_declares_what_canns_declares():
    assert functions(_HCCL_HEADER) == functions(_real_header("hccl.h"))
    assert enums(_TYPES_HEADER) == enums(_real_header("hccl_types.h"))
    assert constants(_TYPES_HEADER) == constants(_real_header("hccl_types.h"))


_VALUES_PROGRAM = """#include <cstddef>
#include <cstdio>
#include "hccl/hccl.h"
int main() {
%s
}
"""


def _abi_values(includes: list[Path], tmp_path: Path, tag: str) -> dict[str, int]:
    """Every enumerator and constant of our header, and the size and field offsets of its structs,
    as the given include path compiles them."""
    lines = [f'  std::printf("%s %lld\\n", "{name}", (long long)({name}));'
             for names in enums(_TYPES_HEADER).values() for name in names]
    lines += [f'  std::printf("%s %lld\\n", "{name}", (long long)({name}));' for name in constants(_TYPES_HEADER)]
    for struct_name in ("HcclCommConfig", "HcclSendRecvItem", "HcclRootInfo"):
        lines.append(f'  std::printf("sizeof({struct_name}) %zu\\n", sizeof({struct_name}));')
        for _, field, _ in struct_fields(_TYPES_HEADER, struct_name):
            lines.append(f'  std::printf("{struct_name}.{field} %zu\\n", offsetof({struct_name}, {field}));')
    source, program = tmp_path / f"values_{tag}.cpp", tmp_path / f"values_{tag}"
    source.write_text(_VALUES_PROGRAM % "\n".join(lines))
    subprocess.run(["g++", "-std=c++17", *(f"-I{d}" for d in includes), str(source), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout
    return {name: int(value) for name, value in (line.rsplit(" ", 1) for line in out.splitlines())}


@needs_torch_npu
@needs_compiler
def test_values_and_layouts_equal_canns(tmp_path):
    include = TORCH_NPU / "include"
    ours = _abi_values([RUNTIME_INCLUDE], tmp_path, "ours")
    theirs = _abi_values([include / "third_party" / "hccl" / "inc", include], tmp_path, "cann")
    assert ours == theirs
    assert ours["sizeof(HcclCommConfig)"] > 2000 and ours["HCCL_E_SUSPENDING"] == 22  # the program printed


@needs_torch_npu
@needs_compiler
@pytest.mark.parametrize("source", sorted(p.name for p in (ROOT / "runtime" / "sim" / "src" / "hccl").glob("*.cpp")))
def test_the_library_compiles_against_canns_header(source):
    # A definition whose signature differs from CANN's declaration is a "conflicting declaration
    # of C function" error.
    include = TORCH_NPU / "include"
    result = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", f"-I{include / 'third_party' / 'hccl' / 'inc'}", f"-I{include}",
         f"-I{RUNTIME_INCLUDE}", f"-I{ROOT / 'generated' / 'include'}", f"-I{ROOT / 'runtime' / 'sim' / 'include'}",
         f"-I{ROOT / 'runtime' / 'sim' / 'src'}", "-H", str(ROOT / "runtime" / "sim" / "src" / "hccl" / source)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert str(include / "third_party" / "hccl" / "inc" / "hccl" / "hccl.h") in result.stderr  # CANN's was used
