"""The runtime surface frameworks use beyond the pages' examples (issue 21), through the C ABI:
what is modelled behaves as acl_rt.h documents, and what is not answers
ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a message naming the call, never success."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gen import abi
from gen.ir import Soc
from tests.sim_lib import D2D, D2H, H2D, P, session_sim

ERRORS = abi.acl_errors()
SUCCESS, INVALID, NOT_SUPPORTED, OP_NOT_FOUND, SYNC_TIMEOUT = (ERRORS[n] for n in (
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_RT_FEATURE_NOT_SUPPORT", "ACL_ERROR_OP_NOT_FOUND",
    "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"))
RUNTIME = abi.enumerators("aclDeviceInfo")
TWO_MIB = 2 << 20


class PhysicalMemProp(ctypes.Structure):  # acl_rt.h's aclrtPhysicalMemProp
    _fields_ = [("handleType", ctypes.c_int), ("allocationType", ctypes.c_int), ("memAttr", ctypes.c_int),
                ("location_id", ctypes.c_uint32), ("location_type", ctypes.c_int), ("reserve", ctypes.c_uint64)]


@pytest.fixture()
def sim():
    # The session's simulator, started again: another test of this worker may have finalised it.
    simulator = session_sim()
    simulator.start()
    return simulator


@pytest.fixture()
def acl(sim):
    # The runtime the session's simulator drives: one process has one (tests/sim_lib.py's
    # _process_wide), which may be another build's loaded first by another test of this worker.
    return sim.libs[0]


@pytest.fixture()
def compiler(sim):
    # Its libascendcl dependency resolves to the runtime already loaded (by soname).
    return ctypes.CDLL(str(sim.libdir / "libacl_op_compiler.so"))


@pytest.mark.parametrize("name", ["aclrtIpcMemClose", "aclmdlRICaptureBegin", "aclrtMemcpyBatch", "rtKernelLaunch",
                                  "aclrtGetDeviceUtilizationRate"])
def test_what_is_not_modelled_says_so_by_name(sim, acl, name):
    status = getattr(acl, name)(None, None, None)
    assert status == NOT_SUPPORTED
    assert name in sim.error() and "not modelled" in sim.error()


def test_the_soc_reports_a_model_name_and_its_capabilities(sim, acl):
    acl.aclrtGetSocName.restype = ctypes.c_char_p
    assert acl.aclrtGetSocName().decode() == Soc.ASCEND910B.model
    value = ctypes.c_int64()
    assert acl.aclGetDeviceCapability(0, RUNTIME["ACL_DEVICE_INFO_AI_CORE_NUM"], ctypes.byref(value)) == SUCCESS
    assert value.value == Soc.ASCEND910B.ai_cores
    assert acl.aclGetDeviceCapability(99, RUNTIME["ACL_DEVICE_INFO_AI_CORE_NUM"], ctypes.byref(value)) != SUCCESS
    assert acl.aclrtSetDeviceSatMode(0) == NOT_SUPPORTED  # saturation: the kernels compute IEEE inf/nan


def test_streams_with_a_config_and_a_timeout(sim, acl):
    stream = P()
    assert acl.aclrtCreateStreamWithConfig(ctypes.byref(stream), 8, 0) == INVALID  # priorities are 0..7
    assert acl.aclrtCreateStreamWithConfig(ctypes.byref(stream), 3, 1) == SUCCESS, sim.error()
    ident = ctypes.c_int32()
    assert acl.aclrtStreamGetId(stream, ctypes.byref(ident)) == SUCCESS
    assert acl.aclrtSetStreamFailureMode(stream, ctypes.c_uint64(7)) == INVALID
    # A held stream's work cannot finish: a bounded synchronisation times out, an unbounded one would not.
    assert sim.aclsimHoldStream(stream, 1) == 0
    buf = sim.malloc(64)
    assert acl.aclrtMemsetAsync(ctypes.c_void_p(buf), 64, 1, 64, stream) == SUCCESS
    assert acl.aclrtSynchronizeStreamWithTimeout(stream, 50) == SYNC_TIMEOUT
    assert sim.aclsimHoldStream(stream, 0) == 0
    assert acl.aclrtSynchronizeStreamWithTimeout(stream, -1) == SUCCESS
    assert sim.from_device(buf, 64) == b"\x01" * 64
    assert acl.aclrtDestroyStream(stream) == SUCCESS
    sim.free(buf)


def test_host_functions_run_in_the_streams_order(sim, acl):
    stream = P()
    assert acl.aclrtCreateStream(ctypes.byref(stream)) == SUCCESS
    buf = sim.malloc(16)
    seen: list[bytes] = []
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _: seen.append(sim.from_device(buf, 4)))
    assert sim.aclsimHoldStream(stream, 1) == 0
    assert acl.aclrtMemsetAsync(ctypes.c_void_p(buf), 16, 7, 16, stream) == SUCCESS
    assert acl.aclrtLaunchHostFunc(stream, callback, None) == SUCCESS
    assert seen == []  # queued behind the held memset
    assert sim.aclsimHoldStream(stream, 0) == 0
    assert acl.aclrtSynchronizeStream(stream) == SUCCESS
    assert seen == [b"\x07" * 4]
    assert acl.aclrtDestroyStream(stream) == SUCCESS
    sim.free(buf)


def test_virtual_memory_maps_physical_memory_that_copies_and_kernels_use(sim, acl):
    base = P()
    assert acl.aclrtReserveMemAddress(ctypes.byref(base), 3 * TWO_MIB, 0, None, 0) == SUCCESS, sim.error()
    prop = PhysicalMemProp(2, 0, 0, 0, 1, 0)  # POSIX handle, pinned, device 0
    handles = [P(), P()]
    for handle in handles:
        assert acl.aclrtMallocPhysical(ctypes.byref(handle), ctypes.c_size_t(TWO_MIB), ctypes.byref(prop), 0) == SUCCESS
    for i, handle in enumerate(handles):  # two adjacent mappings: one device range across both
        assert acl.aclrtMapMem(ctypes.c_void_p(base.value + i * TWO_MIB), ctypes.c_size_t(TWO_MIB), 0, handle, 0) == SUCCESS
    data = np.arange(TWO_MIB // 4, dtype=np.float32)  # from 32 bytes before the boundary of the two mappings
    start = base.value + TWO_MIB - 32
    assert acl.aclrtMemcpy(ctypes.c_void_p(start), data.nbytes, data.ctypes.data_as(P), data.nbytes, H2D) == SUCCESS
    out = np.empty_like(data)
    assert acl.aclrtMemcpy(out.ctypes.data_as(P), out.nbytes, ctypes.c_void_p(start), data.nbytes, D2H) == SUCCESS
    assert np.array_equal(out, data)
    # aclrtFree is not how mapped memory goes; a copy past the mapped range is refused.
    assert acl.aclrtFree(base) == INVALID
    assert acl.aclrtMemcpy(ctypes.c_void_p(base.value + 2 * TWO_MIB), 16, out.ctypes.data_as(P), 16, H2D) == INVALID
    assert acl.aclrtReleaseMemAddress(base) == INVALID  # still mapped
    for i, handle in enumerate(handles):
        assert acl.aclrtUnmapMem(ctypes.c_void_p(base.value + i * TWO_MIB)) == SUCCESS
        assert acl.aclrtFreePhysical(handle) == SUCCESS
    assert acl.aclrtReleaseMemAddress(base) == SUCCESS


def test_compile_options_are_kept_and_jit_compilation_is_refused(sim, compiler):
    options = abi.enumerators("aclCompileOpt")
    assert compiler.aclSetCompileopt(options["ACL_PRECISION_MODE"], b"must_keep_origin_dtype") == SUCCESS
    compiler.aclGetCompileoptSize.restype = ctypes.c_size_t
    size = compiler.aclGetCompileoptSize(options["ACL_PRECISION_MODE"])
    value = ctypes.create_string_buffer(size)
    assert compiler.aclGetCompileopt(options["ACL_PRECISION_MODE"], value, size) == SUCCESS
    assert value.value == b"must_keep_origin_dtype"
    assert compiler.aclSetCompileopt(options["ACL_OP_JIT_COMPILE"], b"enable") == NOT_SUPPORTED


def test_the_identity_operator_copies_and_other_operators_are_refused_by_name(sim, acl, compiler):
    acl.aclCreateTensorDesc.restype = P
    acl.aclCreateDataBuffer.restype = P
    dims = (ctypes.c_int64 * 2)(3, 4)
    x = np.arange(12, dtype=np.float32)
    src, dst = sim.malloc(x.nbytes), sim.malloc(x.nbytes)
    sim.to_device(src, x)
    nd = abi.enumerators("aclFormat")["ACL_FORMAT_ND"]
    descs = (P * 1)(acl.aclCreateTensorDesc(0, 2, dims, nd)), (P * 1)(acl.aclCreateTensorDesc(0, 2, dims, nd))
    buffers = (P * 1)(acl.aclCreateDataBuffer(ctypes.c_void_p(src), ctypes.c_size_t(x.nbytes))), \
        (P * 1)(acl.aclCreateDataBuffer(ctypes.c_void_p(dst), ctypes.c_size_t(x.nbytes)))
    run = compiler.aclopCompileAndExecute
    assert run(b"Identity", 1, descs[0], buffers[0], 1, descs[1], buffers[1], None, 0, 0, None, None) == SUCCESS, sim.error()
    assert acl.aclrtSynchronizeDevice() == SUCCESS
    assert np.array_equal(np.frombuffer(sim.from_device(dst, x.nbytes), np.float32), x)
    assert run(b"Add", 1, descs[0], buffers[0], 1, descs[1], buffers[1], None, 0, 0, None, None) == OP_NOT_FOUND
    assert "Add" in sim.error()
    for d in (*descs[0], *descs[1]):
        acl.aclDestroyTensorDesc(P(d))
    for b in (*buffers[0], *buffers[1]):
        assert acl.aclDestroyDataBuffer(P(b)) == SUCCESS
    sim.free(src)
    sim.free(dst)
