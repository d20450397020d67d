"""Runtime calls torch_npu looks up that the simulator models (issue 21), through the C ABI: host memory
registration, batched copies, stream-ordered device words and cache maintenance, device telemetry and
core limits. Each success path checks the values, and each documented error its status."""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
import pytest

from gen import abi
from tests.sim.sim_lib import D2D, H2D, P, session_sim

ERRORS = abi.acl_errors()
SUCCESS, INVALID, NOT_SUPPORTED, INVALID_DEVICE, ALREADY_REGISTERED, NOT_REGISTERED = (ERRORS[n] for n in (
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_FEATURE_UNSUPPORTED", "ACL_ERROR_RT_INVALID_DEVICEID", "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED"))
LOCATION = abi.enumerators("aclrtMemLocationType")
HOST, DEVICE = LOCATION["ACL_MEM_LOCATION_TYPE_HOST"], LOCATION["ACL_MEM_LOCATION_TYPE_DEVICE"]
REGISTER = abi.enumerators("aclrtHostRegisterType")
CMO = abi.enumerators("aclrtCmoType")
CUBE, VECTOR = (abi.enumerators("aclrtDevResLimitType")[n] for n in ("ACL_RT_DEV_RES_CUBE_CORE", "ACL_RT_DEV_RES_VECTOR_CORE"))
GEQ, EQ, AND, NOR = 0, 1, 2, 3  # ACL_STREAM_WAIT_VALUE_* (acl_rt.h's macros)
HOST_REG_MAPPED, HOST_REG_READONLY, HOST_REG_PINNED = 0x2, 0x8, 0x10000000
SIZE_MAX = 2**64 - 1
u64, u32, i32, size_t = ctypes.c_uint64, ctypes.c_uint32, ctypes.c_int32, ctypes.c_size_t


class MemLocation(ctypes.Structure):  # aclrtMemLocation
    _fields_ = [("id", ctypes.c_uint32), ("type", ctypes.c_int)]


class MemcpyBatchAttr(ctypes.Structure):  # aclrtMemcpyBatchAttr
    _fields_ = [("dstLoc", MemLocation), ("srcLoc", MemLocation), ("rsv", ctypes.c_uint8 * 16)]


class UtilizationInfo(ctypes.Structure):  # aclrtUtilizationInfo
    _fields_ = [("cubeUtilization", ctypes.c_int32), ("vectorUtilization", ctypes.c_int32),
                ("aicpuUtilization", ctypes.c_int32), ("memoryUtilization", ctypes.c_int32),
                ("utilizationExtend", ctypes.c_void_p)]


class MemUsageInfo(ctypes.Structure):  # aclrtMemUsageInfo
    _fields_ = [("name", ctypes.c_char * 32), ("curMemSize", ctypes.c_uint64), ("memPeakSize", ctypes.c_uint64),
                ("reserved", ctypes.c_size_t * 8)]


class MallocAttribute(ctypes.Structure):  # aclrtMallocAttribute: its value a union of 8 bytes aligned to 4
    _fields_ = [("attr", ctypes.c_int), ("value", ctypes.c_uint32 * 2)]

    def __init__(self, attr, value):
        super().__init__(attr, (ctypes.c_uint32 * 2)(value, 0))


class MallocConfig(ctypes.Structure):  # aclrtMallocConfig
    _fields_ = [("attrs", ctypes.POINTER(MallocAttribute)), ("numAttrs", ctypes.c_size_t)]


SIGNATURES = {
    "aclrtHostRegister": (P, u64, ctypes.c_int, ctypes.POINTER(P)),
    "aclrtHostRegisterV2": (P, u64, u32),
    "aclrtHostGetDevicePointer": (P, ctypes.POINTER(P), u32),
    "aclrtHostUnregister": (P,),
    "aclrtMallocHostWithCfg": (ctypes.POINTER(P), u64, ctypes.POINTER(MallocConfig)),
    "aclrtMemcpyBatch": (ctypes.POINTER(P), ctypes.POINTER(size_t), ctypes.POINTER(P), ctypes.POINTER(size_t), size_t,
                         ctypes.POINTER(MemcpyBatchAttr), ctypes.POINTER(size_t), size_t, ctypes.POINTER(size_t)),
    "aclrtMemcpyBatchAsync": (ctypes.POINTER(P), ctypes.POINTER(size_t), ctypes.POINTER(P), ctypes.POINTER(size_t),
                              size_t, ctypes.POINTER(MemcpyBatchAttr), ctypes.POINTER(size_t), size_t,
                              ctypes.POINTER(size_t), P),
    "aclrtValueWrite": (P, u64, u32, P),
    "aclrtValueWait": (P, u64, u32, P),
    "aclrtCmoAsync": (P, size_t, ctypes.c_int, P),
    "aclrtGetDeviceUtilizationRate": (i32, ctypes.POINTER(UtilizationInfo)),
    "aclrtGetMemUsageInfo": (i32, ctypes.POINTER(MemUsageInfo), size_t, ctypes.POINTER(size_t)),
    "aclrtDeviceGetUuid": (i32, ctypes.c_char_p),
    "aclrtGetDeviceResLimit": (i32, ctypes.c_int, ctypes.POINTER(u32)),
    "aclrtSetDeviceResLimit": (i32, ctypes.c_int, u32),
    "aclrtResetDeviceResLimit": (i32,),
    "aclrtGetStreamResLimit": (P, ctypes.c_int, ctypes.POINTER(u32)),
    "aclrtSetStreamResLimit": (P, ctypes.c_int, u32),
    "aclrtResetStreamResLimit": (P,),
    "aclrtUseStreamResInCurrentThread": (P,),
    "aclrtUnuseStreamResInCurrentThread": (P,),
    "aclrtGetResInCurrentThread": (ctypes.c_int, ctypes.POINTER(u32)),
    "aclrtStreamQuery": (P, ctypes.POINTER(ctypes.c_int)),
    "aclrtSynchronizeStreamWithTimeout": (P, i32),
}


@pytest.fixture()
def sim():
    simulator = session_sim()
    simulator.start()
    return simulator


@pytest.fixture()
def rt(sim):
    """The runtime's calls of this file, typed (ctypes' default would pass a uint64_t as an int)."""
    class Runtime:
        pass
    runtime = Runtime()
    for name, argtypes in SIGNATURES.items():
        fn = getattr(sim.libs[0], name)
        fn.restype, fn.argtypes = ctypes.c_int, list(argtypes)
        setattr(runtime, name, fn)
    return runtime


def _array(ctype, values):
    return (ctype * len(values))(*values)


# --- host memory registration ------------------------------------------------------------------------

def test_a_registered_host_range_is_device_memory_at_its_host_address(sim, rt):
    host = np.arange(64, dtype=np.float32)
    dev_ptr = P()
    assert rt.aclrtHostRegister(host.ctypes.data, host.nbytes, REGISTER["ACL_HOST_REGISTER_MAPPED"],
                                ctypes.byref(dev_ptr)) == SUCCESS, sim.error()
    assert dev_ptr.value == host.ctypes.data
    mapped = P()
    assert rt.aclrtHostGetDevicePointer(host.ctypes.data + 16, ctypes.byref(mapped), 0) == SUCCESS
    assert mapped.value == host.ctypes.data + 16
    # The device copies out of it and into it, as device memory.
    dev = sim.malloc(host.nbytes)
    assert sim.aclrtMemcpy(dev, host.nbytes, dev_ptr.value, host.nbytes, D2D) == SUCCESS, sim.error()
    assert np.array_equal(np.frombuffer(sim.from_device(dev, host.nbytes), np.float32), host)
    sim.to_device(dev, np.full(64, 7.0, np.float32))
    assert sim.aclrtMemcpyAsync(dev_ptr.value, host.nbytes, dev, host.nbytes, D2D, sim.stream) == SUCCESS
    assert sim.aclrtSynchronizeStream(sim.stream) == SUCCESS
    assert (host == 7.0).all()
    # Past its end it is not.
    assert sim.aclrtMemcpy(dev, host.nbytes + 4, dev_ptr.value, host.nbytes + 4, D2D) == INVALID
    assert "host registration" in sim.error()
    assert rt.aclrtHostUnregister(host.ctypes.data) == SUCCESS
    assert sim.aclrtMemcpy(dev, host.nbytes, dev_ptr.value, host.nbytes, D2D) == INVALID
    assert rt.aclrtHostGetDevicePointer(host.ctypes.data, ctypes.byref(mapped), 0) == NOT_REGISTERED
    sim.free(dev)


def test_registration_errors_are_the_documented_ones(sim, rt):
    host = np.zeros(256, dtype=np.uint8)
    base, dev_ptr = host.ctypes.data, P()
    mapped = REGISTER["ACL_HOST_REGISTER_MAPPED"]
    assert rt.aclrtHostRegister(base, 128, mapped, ctypes.byref(dev_ptr)) == SUCCESS
    # Overlapping either end, or inside, is refused whole; an adjacent range is not an overlap.
    for start, size in ((base + 64, 128), (base, 16), (base - 0 + 127, 1)):
        assert rt.aclrtHostRegister(start, size, mapped, ctypes.byref(dev_ptr)) == ALREADY_REGISTERED
        assert "overlaps" in sim.error()
    assert rt.aclrtHostRegisterV2(base + 128, 128, HOST_REG_PINNED) == SUCCESS
    # Unregistering: only a registration's start pointer, once.
    assert rt.aclrtHostUnregister(base + 8) == NOT_REGISTERED
    assert rt.aclrtHostUnregister(base) == SUCCESS
    assert rt.aclrtHostUnregister(base) == NOT_REGISTERED
    assert rt.aclrtHostUnregister(base + 128) == SUCCESS
    # Arguments.
    assert rt.aclrtHostRegister(None, 16, mapped, ctypes.byref(dev_ptr)) == INVALID
    assert rt.aclrtHostRegister(base, 0, mapped, ctypes.byref(dev_ptr)) == INVALID
    assert rt.aclrtHostRegister(base, 16, 0x40, ctypes.byref(dev_ptr)) == INVALID
    assert rt.aclrtHostRegister(base, 16, mapped, None) == INVALID
    assert rt.aclrtHostRegisterV2(base, 16, 0x1) == INVALID and "unknown flag" in sim.error()
    assert rt.aclrtHostGetDevicePointer(base, ctypes.byref(dev_ptr), 1) == INVALID
    # Device memory is not host memory to register.
    dev = sim.malloc(64)
    assert rt.aclrtHostRegister(dev, 64, mapped, ctypes.byref(dev_ptr)) == INVALID
    sim.free(dev)


def test_an_unmapped_or_read_only_registration_limits_what_the_device_does(sim, rt):
    host = np.arange(16, dtype=np.int32)
    dev = sim.malloc(host.nbytes)
    dev_ptr = P()
    # Pinned but not mapped: host memory, which the device does not address.
    assert rt.aclrtHostRegisterV2(host.ctypes.data, host.nbytes, HOST_REG_PINNED) == SUCCESS
    assert rt.aclrtHostGetDevicePointer(host.ctypes.data, ctypes.byref(dev_ptr), 0) == NOT_REGISTERED
    assert sim.aclrtMemcpy(dev, host.nbytes, host.ctypes.data, host.nbytes, D2D) == INVALID  # as device memory
    assert sim.aclrtMemcpy(dev, host.nbytes, host.ctypes.data, host.nbytes, H2D) == SUCCESS  # as host memory
    assert rt.aclrtHostUnregister(host.ctypes.data) == SUCCESS
    # Read-only: the device reads it and may not write it.
    assert rt.aclrtHostRegister(host.ctypes.data, host.nbytes, REGISTER["ACL_HOST_REGISTER_READONLY"],
                                ctypes.byref(dev_ptr)) == SUCCESS
    assert sim.aclrtMemcpy(dev, host.nbytes, dev_ptr.value, host.nbytes, D2D) == SUCCESS
    assert sim.aclrtMemcpy(dev_ptr.value, host.nbytes, dev, host.nbytes, D2D) == INVALID
    assert "read-only" in sim.error()
    assert rt.aclrtHostUnregister(host.ctypes.data) == SUCCESS
    sim.free(dev)


def test_malloc_host_with_cfg_checks_its_attributes(sim, rt):
    ptr = P()
    device_id = MallocAttribute(2, 0)  # ACL_RT_MEM_ATTR_DEVICE_ID, device 0
    cfg = MallocConfig(ctypes.pointer(device_id), 1)
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, ctypes.byref(cfg)) == SUCCESS, sim.error()
    ctypes.memset(ptr.value, 0x5a, 100)  # the allocation is the caller's, every byte of it
    assert sim.aclrtFreeHost(ptr) == SUCCESS  # an aclrtMallocHost allocation
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, None) == SUCCESS
    assert sim.aclrtFreeHost(ptr) == SUCCESS
    bad_device = MallocAttribute(2, 4096)
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, ctypes.byref(MallocConfig(ctypes.pointer(bad_device), 1))) == INVALID_DEVICE
    unknown = MallocAttribute(9, 0)
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, ctypes.byref(MallocConfig(ctypes.pointer(unknown), 1))) == INVALID
    # VA flag 1 (torch_npu's pinned memory on Ascend950): host memory for copies, not device memory.
    va_flag = MallocAttribute(3, 1)
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, ctypes.byref(MallocConfig(ctypes.pointer(va_flag), 1))) == SUCCESS
    dev = sim.malloc(100)
    assert sim.aclrtMemcpy(dev, 100, ptr.value, 100, H2D) == SUCCESS
    assert sim.aclrtMemcpy(dev, 100, ptr.value, 100, D2D) == INVALID  # what else it adds is not guessed
    assert sim.aclrtFreeHost(ptr) == SUCCESS
    sim.free(dev)
    unknown_flag = MallocAttribute(3, 2)
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 100, ctypes.byref(MallocConfig(ctypes.pointer(unknown_flag), 1))) == NOT_SUPPORTED
    assert "VA_FLAG 2" in sim.error()
    assert rt.aclrtMallocHostWithCfg(ctypes.byref(ptr), 0, None) == INVALID


# --- batched copies ------------------------------------------------------------------------------------

def _batch(dsts, srcs, sizes, locations, indexes=None, dest_maxs=None):
    n = len(dsts)
    attrs = [MemcpyBatchAttr(MemLocation(0, d), MemLocation(0, s)) for d, s in locations]
    indexes = list(range(len(attrs))) if indexes is None else indexes
    return (_array(P, dsts), _array(size_t, dest_maxs or sizes), _array(P, srcs), _array(size_t, sizes), n,
            _array(MemcpyBatchAttr, attrs), _array(size_t, indexes), len(attrs))


def test_a_batch_copies_each_pair_in_its_direction(sim, rt):
    a, b = np.arange(8, dtype=np.float32), np.arange(100, 116, dtype=np.int16)
    dev_a, dev_b = sim.malloc(a.nbytes), sim.malloc(b.nbytes)
    fail = size_t(0)
    args = _batch([dev_a, dev_b], [a.ctypes.data, b.ctypes.data], [a.nbytes, b.nbytes], [(DEVICE, HOST)])
    assert rt.aclrtMemcpyBatch(*args, ctypes.byref(fail)) == SUCCESS, sim.error()
    assert fail.value == SIZE_MAX
    out_a, out_b = np.zeros_like(a), np.zeros_like(b)
    # Asynchronous, from page-locked memory: queued on the stream, in its order.
    pinned = P()
    assert sim.aclrtMallocHost(ctypes.byref(pinned), a.nbytes + b.nbytes) == SUCCESS
    args = _batch([pinned.value, pinned.value + a.nbytes], [dev_a, dev_b], [a.nbytes, b.nbytes], [(HOST, DEVICE)])
    assert rt.aclrtMemcpyBatchAsync(*args, ctypes.byref(fail), sim.stream) == SUCCESS, sim.error()
    assert sim.aclrtSynchronizeStream(sim.stream) == SUCCESS
    ctypes.memmove(out_a.ctypes.data, pinned.value, a.nbytes)
    ctypes.memmove(out_b.ctypes.data, pinned.value + a.nbytes, b.nbytes)
    assert np.array_equal(out_a, a) and np.array_equal(out_b, b)
    # Asynchronous from pageable memory: copied before the call returns (the caller may reuse it).
    out_a[:] = 0
    args = _batch([out_a.ctypes.data], [dev_a], [a.nbytes], [(HOST, DEVICE)])
    assert rt.aclrtMemcpyBatchAsync(*args, ctypes.byref(fail), sim.stream) == SUCCESS
    assert np.array_equal(out_a, a)
    assert sim.aclrtFreeHost(pinned) == SUCCESS
    sim.free(dev_a)
    sim.free(dev_b)


def test_attrs_apply_from_their_index_on(sim, rt):
    # attrs[0] (host to device) for copies 0..1, attrs[1] (device to host) for copy 2.
    src = np.arange(4, dtype=np.int32)
    dev0, dev1 = sim.malloc(16), sim.malloc(16)
    out = np.zeros(4, dtype=np.int32)
    fail = size_t(0)
    args = _batch([dev0, dev1, out.ctypes.data], [src.ctypes.data, src.ctypes.data, dev0], [16, 16, 16],
                  [(DEVICE, HOST), (HOST, DEVICE)], indexes=[0, 2])
    assert rt.aclrtMemcpyBatch(*args, ctypes.byref(fail)) == SUCCESS, sim.error()
    assert np.array_equal(out, src)
    assert np.array_equal(np.frombuffer(sim.from_device(dev1, 16), np.int32), src)
    sim.free(dev0)
    sim.free(dev1)


def test_a_refused_copy_names_its_index_and_copies_nothing(sim, rt):
    src = np.arange(4, dtype=np.int32)
    dev = sim.malloc(16)
    sim.to_device(dev, np.zeros(4, np.int32))
    fail = size_t(0)
    # Copy 1 says device, but its destination is host memory.
    args = _batch([dev, src.ctypes.data], [src.ctypes.data, src.ctypes.data], [16, 16], [(DEVICE, HOST)])
    assert rt.aclrtMemcpyBatch(*args, ctypes.byref(fail)) == INVALID
    assert fail.value == 1
    assert not np.frombuffer(sim.from_device(dev, 16), np.int32).any()  # copy 0 did not run either
    # Larger than its destMax.
    args = _batch([dev], [src.ctypes.data], [16], [(DEVICE, HOST)], dest_maxs=[8])
    assert rt.aclrtMemcpyBatchAsync(*args, ctypes.byref(fail), sim.stream) == INVALID and fail.value == 0
    # Errors of the batch, not of a copy: failIndex stays SIZE_MAX.
    for indexes in ([1], [0, 0]):
        args = _batch([dev, dev], [src.ctypes.data] * 2, [16, 16], [(DEVICE, HOST)] * len(indexes), indexes=indexes)
        assert rt.aclrtMemcpyBatch(*args, ctypes.byref(fail)) == INVALID and fail.value == SIZE_MAX
    args = _batch([dev], [src.ctypes.data], [16], [(DEVICE, 7)])
    assert rt.aclrtMemcpyBatch(*args, ctypes.byref(fail)) == INVALID and "aclrtMemLocationType" in sim.error()
    args = _batch([dev], [src.ctypes.data], [16], [(DEVICE, HOST)])
    assert rt.aclrtMemcpyBatch(*args, None) == INVALID
    sim.free(dev)


# --- device words and cache maintenance -------------------------------------------------------------

def test_a_stream_waits_for_a_word_another_stream_writes(sim, rt):
    word, data, out = sim.malloc(8), sim.malloc(16), sim.malloc(16)
    sim.to_device(word, np.zeros(1, np.uint64))
    sim.to_device(data, np.arange(4, dtype=np.float32))
    waiting, writing = sim.new_stream(), sim.new_stream()
    big = 2**40 + 5  # a value wider than 32 bits
    assert rt.aclrtValueWait(word, big, GEQ, waiting) == SUCCESS, sim.error()
    assert sim.aclrtMemcpyAsync(out, 16, data, 16, D2D, waiting) == SUCCESS
    time.sleep(0.05)
    query = ctypes.c_int(-1)
    assert rt.aclrtStreamQuery(waiting, ctypes.byref(query)) == SUCCESS
    assert query.value != 0  # ACL_STREAM_STATUS_COMPLETE: still waiting for the word
    assert rt.aclrtValueWrite(word, big, 0, writing) == SUCCESS
    assert sim.aclrtSynchronizeStream(waiting) == SUCCESS
    assert np.array_equal(np.frombuffer(sim.from_device(out, 16), np.float32), np.arange(4, dtype=np.float32))
    assert np.frombuffer(sim.from_device(word, 8), np.uint64)[0] == big
    for stream in (waiting, writing):
        assert sim.aclrtDestroyStream(stream) == SUCCESS
    for ptr in (word, data, out):
        sim.free(ptr)


@pytest.mark.parametrize("mode,word,value,reached", [
    (GEQ, 5, 5, True), (GEQ, 4, 5, False), (EQ, 5, 5, True), (EQ, 6, 5, False),
    (AND, 0b1010, 0b0010, True), (AND, 0b1010, 0b0101, False),
    (NOR, 0, 0, True), (NOR, 2**64 - 1, 0, False)])
def test_each_wait_mode_compares_as_documented(sim, rt, mode, word, value, reached):
    address = sim.malloc(8)
    sim.to_device(address, np.array([word], np.uint64))
    stream = sim.new_stream()
    assert rt.aclrtValueWait(address, value, mode, stream) == SUCCESS
    deadline = time.monotonic() + (2.0 if reached else 0.1)
    done = False
    while time.monotonic() < deadline and not done:
        done = rt.aclrtSynchronizeStreamWithTimeout(stream, 10) == SUCCESS
    assert done == reached
    if not reached:
        # Satisfied by a write from the host, the stream goes on.
        satisfied = {GEQ: value, EQ: value, AND: value, NOR: 0}[mode]
        sim.to_device(address, np.array([satisfied], np.uint64))
        assert sim.aclrtSynchronizeStream(stream) == SUCCESS
    assert sim.aclrtDestroyStream(stream) == SUCCESS
    sim.free(address)


def test_value_and_cache_calls_check_their_arguments(sim, rt):
    word = sim.malloc(64)
    host = np.zeros(2, np.uint64)
    assert rt.aclrtValueWrite(word, 1, 1, sim.stream) == INVALID  # flag is reserved
    assert rt.aclrtValueWait(word, 1, 4, sim.stream) == INVALID  # no such mode
    assert rt.aclrtValueWrite(host.ctypes.data, 1, 0, sim.stream) == INVALID  # not device memory
    assert rt.aclrtValueWrite(word + 4, 1, 0, sim.stream) == INVALID and "aligned" in sim.error()
    assert rt.aclrtValueWrite(word, 1, 0, 0xdead0) == INVALID  # not a stream
    # Cache maintenance: every kind keeps the values (the simulated memory is coherent).
    sim.to_device(word, np.arange(8, dtype=np.uint64))
    for kind in CMO.values():
        assert rt.aclrtCmoAsync(word, 64, kind, sim.stream) == SUCCESS, sim.error()
    assert sim.aclrtSynchronizeStream(sim.stream) == SUCCESS
    assert np.array_equal(np.frombuffer(sim.from_device(word, 64), np.uint64), np.arange(8, dtype=np.uint64))
    assert rt.aclrtCmoAsync(word, 64, 9, sim.stream) == INVALID
    assert rt.aclrtCmoAsync(word, 128, CMO["ACL_RT_CMO_TYPE_PREFETCH"], sim.stream) == INVALID  # past its end
    assert rt.aclrtCmoAsync(word, 0, CMO["ACL_RT_CMO_TYPE_PREFETCH"], sim.stream) == INVALID
    assert rt.aclrtCmoAsync(host.ctypes.data, 16, CMO["ACL_RT_CMO_TYPE_PREFETCH"], sim.stream) == INVALID
    sim.free(word)


# --- telemetry ---------------------------------------------------------------------------------------

def test_utilization_is_the_share_of_time_the_device_worked(sim, rt):
    info = UtilizationInfo()
    assert rt.aclrtGetDeviceUtilizationRate(0, ctypes.byref(info)) == SUCCESS, sim.error()
    time.sleep(0.2)  # idle
    assert rt.aclrtGetDeviceUtilizationRate(0, ctypes.byref(info)) == SUCCESS
    assert info.cubeUtilization <= 5 and info.aicpuUtilization == 0
    # Busy: large copies queued back to back for most of the interval.
    size = 64 << 20
    a, b = sim.malloc(size), sim.malloc(size)
    start = time.monotonic()
    while time.monotonic() - start < 0.3:
        for _ in range(4):
            assert sim.aclrtMemcpyAsync(b, size, a, size, D2D, sim.stream) == SUCCESS
        assert sim.aclrtSynchronizeStream(sim.stream) == SUCCESS
    assert rt.aclrtGetDeviceUtilizationRate(0, ctypes.byref(info)) == SUCCESS
    assert info.cubeUtilization >= 50 and info.vectorUtilization == info.cubeUtilization
    assert 0 <= info.memoryUtilization <= 100
    sim.free(a)
    sim.free(b)
    assert rt.aclrtGetDeviceUtilizationRate(4096, ctypes.byref(info)) == INVALID_DEVICE
    info.utilizationExtend = 8
    assert rt.aclrtGetDeviceUtilizationRate(0, ctypes.byref(info)) == INVALID
    assert rt.aclrtGetDeviceUtilizationRate(0, None) == INVALID


def test_mem_usage_is_the_allocator_s_figures(sim, rt):
    infos, count = (MemUsageInfo * 4)(), size_t(0)
    assert rt.aclrtGetMemUsageInfo(0, infos, 4, ctypes.byref(count)) == SUCCESS, sim.error()
    assert count.value == 1
    before = infos[0].curMemSize
    ptr = sim.malloc(1 << 20)
    assert rt.aclrtGetMemUsageInfo(0, infos, 4, ctypes.byref(count)) == SUCCESS
    assert infos[0].curMemSize >= before + (1 << 20) and infos[0].memPeakSize >= infos[0].curMemSize
    assert infos[0].curMemSize == sim.stats()["device_bytes"]
    sim.free(ptr)
    assert rt.aclrtGetMemUsageInfo(0, infos, 0, ctypes.byref(count)) == INVALID
    assert rt.aclrtGetMemUsageInfo(0, None, 4, ctypes.byref(count)) == INVALID
    assert rt.aclrtGetMemUsageInfo(4096, infos, 4, ctypes.byref(count)) == INVALID_DEVICE


def test_a_device_s_uuid_is_stable_and_its_own(sim, rt):
    def uuid(device):
        out = ctypes.create_string_buffer(16)
        assert rt.aclrtDeviceGetUuid(device, out) == SUCCESS, sim.error()
        return out.raw
    assert uuid(0) == uuid(0)
    assert len({uuid(d) for d in range(4)}) == 4
    assert uuid(0)[6] >> 4 == 8  # RFC 9562 version 8
    assert rt.aclrtDeviceGetUuid(4096, ctypes.create_string_buffer(16)) == INVALID_DEVICE
    assert rt.aclrtDeviceGetUuid(0, None) == INVALID


# --- core limits -------------------------------------------------------------------------------------

def _cores(sim, attr):
    value = ctypes.c_int64()
    assert sim.libs[0].aclrtGetDeviceInfo(0, abi.enumerators("aclrtDevAttr")[attr], ctypes.byref(value)) == SUCCESS
    return value.value


def test_core_limits_are_kept_checked_and_read_back(sim, rt):
    cubes, vectors = _cores(sim, "ACL_DEV_ATTR_CUBE_CORE_NUM"), _cores(sim, "ACL_DEV_ATTR_VECTOR_CORE_NUM")
    value = u32()

    def device_limit(kind):
        assert rt.aclrtGetDeviceResLimit(0, kind, ctypes.byref(value)) == SUCCESS, sim.error()
        return value.value

    def stream_limit(stream, kind):
        assert rt.aclrtGetStreamResLimit(stream, kind, ctypes.byref(value)) == SUCCESS, sim.error()
        return value.value

    assert (device_limit(CUBE), device_limit(VECTOR)) == (cubes, vectors)  # none set: the chip's counts
    assert rt.aclrtSetDeviceResLimit(0, CUBE, cubes + 1) == INVALID and "simulated chip" in sim.error()
    assert rt.aclrtSetDeviceResLimit(0, VECTOR, 0) == INVALID
    assert rt.aclrtSetDeviceResLimit(0, 5, 1) == INVALID
    assert rt.aclrtSetDeviceResLimit(4096, CUBE, 1) == INVALID_DEVICE
    assert rt.aclrtSetDeviceResLimit(0, CUBE, cubes // 2) == SUCCESS
    assert device_limit(CUBE) == cubes // 2 and device_limit(VECTOR) == vectors
    stream = sim.new_stream()
    try:
        assert stream_limit(stream, CUBE) == cubes // 2  # none of its own: the device's
        assert rt.aclrtSetStreamResLimit(stream, CUBE, cubes // 2 + 1) == INVALID and "device's limit" in sim.error()
        assert rt.aclrtSetStreamResLimit(stream, CUBE, 2) == SUCCESS
        assert rt.aclrtSetStreamResLimit(stream, VECTOR, 3) == SUCCESS
        assert (stream_limit(stream, CUBE), stream_limit(stream, VECTOR)) == (2, 3)
        # A thread that uses the stream's resources reads its limits; another thread the device's.
        assert rt.aclrtGetResInCurrentThread(CUBE, ctypes.byref(value)) == SUCCESS and value.value == cubes // 2
        assert rt.aclrtUseStreamResInCurrentThread(stream) == SUCCESS
        assert rt.aclrtGetResInCurrentThread(VECTOR, ctypes.byref(value)) == SUCCESS and value.value == 3
        seen = []

        def other_thread():
            out = u32()
            seen.append((rt.aclrtGetResInCurrentThread(VECTOR, ctypes.byref(out)), out.value))
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert seen == [(SUCCESS, vectors)]  # the device's: that thread uses no stream's
        assert rt.aclrtUnuseStreamResInCurrentThread(sim.stream) == INVALID  # not the one it uses
        assert rt.aclrtUnuseStreamResInCurrentThread(stream) == SUCCESS
        assert rt.aclrtGetResInCurrentThread(VECTOR, ctypes.byref(value)) == SUCCESS and value.value == vectors
        assert rt.aclrtResetStreamResLimit(stream) == SUCCESS
        assert stream_limit(stream, VECTOR) == vectors
    finally:
        assert sim.aclrtDestroyStream(stream) == SUCCESS
        assert rt.aclrtResetDeviceResLimit(0) == SUCCESS
    assert device_limit(CUBE) == cubes
    assert rt.aclrtGetStreamResLimit(0xdead0, CUBE, ctypes.byref(value)) == INVALID


def test_core_limits_have_no_effect_on_results(sim, rt):
    # The simulator's kernels are not split across cores: a copy under a limit of one core copies all.
    stream = sim.new_stream()
    assert rt.aclrtSetStreamResLimit(stream, VECTOR, 1) == SUCCESS
    data = np.arange(1024, dtype=np.float32)
    a, b = sim.malloc(data.nbytes), sim.malloc(data.nbytes)
    sim.to_device(a, data)
    assert sim.aclrtMemcpyAsync(b, data.nbytes, a, data.nbytes, D2D, stream) == SUCCESS
    assert sim.aclrtSynchronizeStream(stream) == SUCCESS
    assert np.array_equal(np.frombuffer(sim.from_device(b, data.nbytes), np.float32), data)
    assert sim.aclrtDestroyStream(stream) == SUCCESS
    sim.free(a)
    sim.free(b)
