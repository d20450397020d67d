"""libascendcl of the simulator: init, devices, contexts, streams, bounds-tracked memory, errors."""

import ctypes
import subprocess
import sys
import threading

import numpy as np
import pytest

from gen import abi
from tests.sim.sim_lib import D2D, D2H, DEFAULT, H2D, H2H, P, ROOT, session_sim, subprocess_env

ACL_SUCCESS, ACL_ERROR_INVALID_PARAM, ACL_ERROR_REPEAT_INITIALIZE, ACL_ERROR_RT_INVALID_DEVICEID = (
    abi.acl_errors()[name] for name in ("ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_REPEAT_INITIALIZE",
                                        "ACL_ERROR_RT_INVALID_DEVICEID"))


@pytest.fixture(scope="module")
def sim():
    return session_sim()


def test_repeated_init_is_an_error(sim):
    assert sim.aclInit(None) == ACL_ERROR_REPEAT_INITIALIZE
    assert "already initialized" in sim.error()


# Finalising tears down every stream of the process, the bindings' too when a test process has
# loaded them (one libascendcl per process): these run in a process of their own.
_FINALIZE = """
from tests.sim.sim_lib import Sim, session_build
sim = Sim(session_build())
sim.start()
{body}
"""


def test_init_with_a_missing_config_file_fails():
    out = _run_python(_FINALIZE.format(body="""
assert sim.aclFinalize() == 0
print(sim.aclInit(b"/nonexistent/acl.json"), sim.error(), sep="|")
sim.restart()
"""))
    status, message = out.strip().split("|")
    assert status == "100003" and "/nonexistent/acl.json" in message


# acl.json's defaultDevice: CANN's runtime gives a thread that set no device the configured one (torch_npu's
# lazy set_device mode passes {"defaultDevice": {"default_device": "0"}} and asks for memory and device
# properties before it sets any device); without it such a thread has no device.
_DEFAULT_DEVICE = """
import ctypes, json, os, tempfile, threading
assert sim.aclFinalize() == 0
def init_with(config):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(config if isinstance(config, str) else json.dumps(config))
    status = sim.aclInit(f.name.encode())
    os.unlink(f.name)
    return status, sim.error()
def device_of_a_new_thread():
    seen = {}
    def run():
        device = ctypes.c_int32(-1)
        seen["status"] = sim.aclrtGetDevice(ctypes.byref(device))
        seen["device"] = device.value
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        seen["meminfo"] = sim.aclrtGetMemInfo(0, ctypes.byref(free), ctypes.byref(total))
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen
print(json.dumps({
    "configured": (init_with({"dump": {"dump_scene": "lite_exception"}, "defaultDevice": {"default_device": "1"}}),
                   device_of_a_new_thread(), sim.aclFinalize()),
    "numeric": (init_with({"defaultDevice": {"default_device": 2}}), device_of_a_new_thread(), sim.aclFinalize()),
    "unconfigured": (init_with({"dump": {}}), device_of_a_new_thread(), sim.aclFinalize()),
    "not_json": init_with("{defaultDevice: 0"),
    "not_a_number": init_with({"defaultDevice": {"default_device": "first"}}),
    "not_a_device": init_with({"defaultDevice": {"default_device": "9"}}),
    "no_value": init_with({"defaultDevice": "0"}),
}))
sim.restart()
"""


def test_the_config_files_default_device_serves_threads_that_set_none():
    import json
    report = json.loads(_run_python(_FINALIZE.format(body=_DEFAULT_DEVICE), ACLNN_SIM_DEVICE_COUNT="4"))
    (status, _), seen, finalized = report["configured"]
    assert status == ACL_SUCCESS and finalized == ACL_SUCCESS
    assert seen == {"status": ACL_SUCCESS, "device": 1, "meminfo": ACL_SUCCESS}
    assert report["numeric"][1]["device"] == 2
    (status, _), seen, _ = report["unconfigured"]
    assert status == ACL_SUCCESS and seen["status"] == abi.acl_errors()["ACL_ERROR_RT_CONTEXT_NULL"]
    assert seen["meminfo"] == abi.acl_errors()["ACL_ERROR_RT_CONTEXT_NULL"]
    status, message = report["not_json"]
    assert status == abi.acl_errors()["ACL_ERROR_PARSE_FILE"] and "not a JSON object" in message
    for case, needle in (("not_a_number", '"first" is not a device number'),
                         ("not_a_device", "default_device 9 is not a device (the simulator has 4: 0..3)"),
                         ("no_value", "defaultDevice is not an object")):
        status, message = report[case]
        assert status == abi.acl_errors()["ACL_ERROR_FILE_ATTR_INVALID"] and needle in message, case


def test_finalize_twice_is_an_error():
    out = _run_python(_FINALIZE.format(body="""
print(sim.aclFinalize(), sim.aclFinalize())
sim.restart()
"""))
    assert out.split() == ["0", "100001"]


def _run_python(code: str, **env: str) -> str:
    return subprocess.run([sys.executable, "-c", code], env=subprocess_env(**env), cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


_INIT_REPORT = """
from tests.sim.sim_lib import Sim, session_build
sim = Sim(session_build())
status = sim.aclInit(None)
print(status, sim.error(), (sim.aclrtGetSocName() or b'').decode(), sep='|')
"""


def test_unknown_soc_makes_init_fail_with_a_clear_message(sim):
    status, message, _ = _run_python(_INIT_REPORT, ACLNN_SIM_SOC="Ascend999").strip().split("|")
    assert int(status) == ACL_ERROR_INVALID_PARAM
    assert "ACLNN_SIM_SOC=Ascend999" in message and "Ascend910B" in message


@pytest.mark.parametrize("name", ["Ascend910B4", "Ascend910_9391", "Ascend310P3", "ascend950pr_9579"])
def test_cann_soc_names_with_model_suffixes_are_accepted(sim, name):
    status, _, soc = _run_python(_INIT_REPORT, ACLNN_SIM_SOC=name).strip().split("|")
    assert int(status) == ACL_SUCCESS and soc == name


def test_soc_defaults_to_ascend910b(sim):
    # A real device reports its model, not its family: Atlas A2's 24-core Ascend910B2.
    assert sim.aclrtGetSocName() == b"Ascend910B2"


def test_device_count_is_configurable_and_ids_are_checked(sim):
    out = _run_python("""
import ctypes
from tests.sim.sim_lib import Sim, session_build
sim = Sim(session_build())
count = ctypes.c_uint32()
print(sim.aclInit(None), sim.aclrtGetDeviceCount(ctypes.byref(count)), count.value, sim.aclrtSetDevice(1),
      sim.aclrtSetDevice(2), sep='|')
""", ACLNN_SIM_DEVICE_COUNT="2")
    init, status, count, ok, bad = map(int, out.strip().split("|"))
    assert (init, status, count, ok, bad) == (0, 0, 2, 0, ACL_ERROR_RT_INVALID_DEVICEID)


def test_invalid_device_id_is_an_error(sim):
    assert sim.aclrtSetDevice(-1) == ACL_ERROR_RT_INVALID_DEVICEID
    assert "does not exist" in sim.error()
    assert sim.aclrtResetDevice(7) != ACL_SUCCESS  # never set


def test_the_recent_error_message_outlives_the_next_failing_call(sim):
    """torch_npu reads the message after further calls, one of which may fail and set another (as
    a refused aclInit followed by its device query): the pointer stays the message it was."""
    recent = ctypes.CFUNCTYPE(ctypes.c_void_p)(ctypes.cast(sim.aclGetRecentErrMsg, ctypes.c_void_p).value)
    assert sim.aclrtSetDevice(-1) == ACL_ERROR_RT_INVALID_DEVICEID
    first = recent()
    expected = ctypes.string_at(first)
    assert b"does not exist" in expected
    for _ in range(3):  # longer messages, each assigned over the last
        assert sim.aclrtDestroyStream(0x1234) == ACL_ERROR_INVALID_PARAM
        assert sim.aclrtSetDevice(-123456789) == ACL_ERROR_RT_INVALID_DEVICEID
    assert ctypes.string_at(first) == expected
    assert b"-123456789" in ctypes.string_at(recent())


def test_get_device_reports_the_current_device(sim):
    device = ctypes.c_int32(-1)
    assert sim.aclrtGetDevice(ctypes.byref(device)) == ACL_SUCCESS and device.value == 0


def test_contexts_are_created_made_current_and_destroyed_once(sim):
    context, current = P(), P()
    assert sim.aclrtCreateContext(ctypes.byref(context), 0) == ACL_SUCCESS
    assert sim.aclrtGetCurrentContext(ctypes.byref(current)) == ACL_SUCCESS and current.value == context.value
    assert sim.stats()["contexts"] == 1
    assert sim.aclrtDestroyContext(context) == ACL_SUCCESS
    assert sim.aclrtDestroyContext(context) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtSetCurrentContext(context) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtResetDevice(0) == ACL_SUCCESS  # the context's hold on device 0
    assert sim.stats()["contexts"] == 0


def test_unknown_sys_param_option_is_an_error(sim):
    assert sim.aclrtCtxSetSysParamOpt(0, 1) == ACL_SUCCESS
    assert sim.aclrtCtxSetSysParamOpt(9, 1) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtSetOpExecuteTimeOut(5) == ACL_SUCCESS
    assert sim.aclrtSynchronizeDevice() == ACL_SUCCESS


def test_destroying_an_unknown_stream_is_an_error_not_a_crash(sim):
    stream = P()
    assert sim.aclrtCreateStream(ctypes.byref(stream)) == ACL_SUCCESS
    assert sim.aclrtDestroyStream(stream) == ACL_SUCCESS
    assert sim.aclrtDestroyStream(stream) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtSynchronizeStream(stream) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtDestroyStream(0x1234) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtSynchronizeStream(None) == ACL_SUCCESS  # the default stream


def test_malloc_aligns_like_cann_and_counts_bytes(sim):
    before = sim.stats()
    ptr = sim.malloc(100)
    assert ptr % 512 == 0
    after = sim.stats()
    assert after["device_allocations"] == before["device_allocations"] + 1
    # CANN's aclrtMalloc aligns the size up to 32 bytes and adds 32: 100 -> 128 + 32.
    assert after["device_bytes"] == before["device_bytes"] + 160
    sim.free(ptr)
    assert sim.stats()["device_bytes"] == before["device_bytes"]


def test_malloc_of_zero_bytes_or_to_null_is_an_error(sim):
    ptr = P()
    assert sim.aclrtMalloc(ctypes.byref(ptr), 0, 0) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtMalloc(None, 8, 0) == ACL_ERROR_INVALID_PARAM
    assert sim.aclrtMalloc(ctypes.byref(ptr), 8, 77) == ACL_ERROR_INVALID_PARAM


def test_malloc_beyond_the_devices_memory_fails_without_asking_the_host(sim):
    ptr, before = P(), sim.stats()["device_allocations"]
    assert sim.aclrtMalloc(ctypes.byref(ptr), 1 << 42, 0) == 207001  # ACL_ERROR_RT_MEMORY_ALLOCATION
    assert ptr.value is None and "out of device memory" in sim.error()
    assert sim.stats()["device_allocations"] == before


def test_double_free_is_an_error(sim):
    ptr = sim.malloc(64)
    sim.free(ptr)
    assert sim.aclrtFree(ptr) == ACL_ERROR_INVALID_PARAM
    assert "not a live device allocation" in sim.error()


def test_freeing_an_interior_pointer_is_an_error(sim):
    ptr = sim.malloc(64)
    try:
        assert sim.aclrtFree(ptr + 8) == ACL_ERROR_INVALID_PARAM
        assert "inside a device allocation" in sim.error()
    finally:
        sim.free(ptr)


def test_host_and_device_frees_are_not_interchangeable(sim):
    host = P()
    assert sim.aclrtMallocHost(ctypes.byref(host), 32) == ACL_SUCCESS
    assert sim.aclrtFree(host) == ACL_ERROR_INVALID_PARAM and "aclrtFreeHost" in sim.error()
    assert sim.aclrtFreeHost(host) == ACL_SUCCESS
    assert sim.aclrtFreeHost(host) == ACL_ERROR_INVALID_PARAM
    device = sim.malloc(32)
    assert sim.aclrtFreeHost(device) == ACL_ERROR_INVALID_PARAM and "aclrtFree" in sim.error()
    sim.free(device)


def test_memcpy_round_trips_through_device_memory(sim):
    data = np.arange(16, dtype=np.float32)
    a, b = sim.malloc(64), sim.malloc(64)
    try:
        sim.to_device(a, data)
        assert sim.aclrtMemcpy(b, 64, a, 64, D2D) == ACL_SUCCESS
        assert np.array_equal(np.frombuffer(sim.from_device(b, 64), np.float32), data)
    finally:
        sim.free(a)
        sim.free(b)


@pytest.mark.parametrize("kind", [H2H, H2D, D2H, D2D, DEFAULT])
def test_every_memcpy_kind_copies(sim, kind):
    src_host = np.arange(8, dtype=np.uint8)
    dst_host = np.zeros(8, dtype=np.uint8)
    src_dev, dst_dev = sim.malloc(8), sim.malloc(8)
    try:
        sim.to_device(src_dev, src_host)
        src = src_dev if kind in (D2H, D2D) else src_host.ctypes.data
        dst = dst_dev if kind in (H2D, D2D) else dst_host.ctypes.data
        if kind == DEFAULT:  # inferred from the addresses: here device to host
            src, dst = src_dev, dst_host.ctypes.data
        assert sim.aclrtMemcpy(dst, 8, src, 8, kind) == ACL_SUCCESS, sim.error()
        result = np.frombuffer(sim.from_device(dst_dev, 8), np.uint8) if kind in (H2D, D2D) else dst_host
        assert np.array_equal(result, src_host)
    finally:
        sim.free(src_dev)
        sim.free(dst_dev)


def test_memcpy_past_the_end_of_an_allocation_is_an_error(sim):
    data = np.zeros(256, dtype=np.uint8)
    ptr = sim.malloc(100)  # 160 bytes, as CANN pads it
    try:
        assert sim.aclrtMemcpy(ptr, 256, data.ctypes.data, 160, H2D) == ACL_SUCCESS  # the padding is usable
        assert sim.aclrtMemcpy(ptr, 256, data.ctypes.data, 161, H2D) == ACL_ERROR_INVALID_PARAM
        assert "runs past the end" in sim.error()
        assert sim.aclrtMemcpy(ptr + 120, 64, data.ctypes.data, 41, H2D) == ACL_ERROR_INVALID_PARAM
        assert sim.aclrtMemcpy(data.ctypes.data, 256, ptr, 161, D2H) == ACL_ERROR_INVALID_PARAM
    finally:
        sim.free(ptr)


def test_memcpy_count_above_dest_max_is_an_error(sim):
    data = np.zeros(16, dtype=np.uint8)
    ptr = sim.malloc(16)
    try:
        assert sim.aclrtMemcpy(ptr, 8, data.ctypes.data, 16, H2D) == ACL_ERROR_INVALID_PARAM
        assert "destMax" in sim.error()
    finally:
        sim.free(ptr)


def test_memcpy_with_the_wrong_kind_is_an_error(sim):
    data = np.zeros(16, dtype=np.uint8)
    ptr = sim.malloc(16)
    try:
        assert sim.aclrtMemcpy(data.ctypes.data, 16, ptr, 16, H2D) == ACL_ERROR_INVALID_PARAM  # dst is host
        assert sim.aclrtMemcpy(ptr, 16, ptr, 16, H2H) == ACL_ERROR_INVALID_PARAM  # both are device
        assert sim.aclrtMemcpy(ptr, 16, data.ctypes.data, 16, 9) == ACL_ERROR_INVALID_PARAM
    finally:
        sim.free(ptr)


def test_memcpy_from_freed_memory_is_an_error(sim):
    data = np.zeros(16, dtype=np.uint8)
    ptr = sim.malloc(16)
    sim.free(ptr)
    assert sim.aclrtMemcpy(data.ctypes.data, 16, ptr, 16, D2H) == ACL_ERROR_INVALID_PARAM


def test_memset_is_bounds_checked(sim):
    ptr = sim.malloc(16)  # 64 bytes, as CANN pads it
    try:
        assert sim.aclrtMemset(ptr, 16, 0xAB, 16) == ACL_SUCCESS
        assert sim.from_device(ptr, 16) == b"\xab" * 16
        assert sim.aclrtMemset(ptr, 128, 0, 64) == ACL_SUCCESS
        assert sim.aclrtMemset(ptr, 128, 0, 65) == ACL_ERROR_INVALID_PARAM
        assert sim.aclrtMemset(ptr, 8, 0, 9) == ACL_ERROR_INVALID_PARAM
        assert sim.aclrtMemsetAsync(ptr, 16, 1, 16, sim.stream) == ACL_SUCCESS
        assert sim.aclrtMemsetAsync(ptr, 16, 1, 16, 0x99) == ACL_ERROR_INVALID_PARAM
    finally:
        sim.free(ptr)


def test_async_copies_check_their_stream(sim):
    data = np.zeros(4, dtype=np.uint8)
    ptr = sim.malloc(4)
    try:
        assert sim.aclrtMemcpyAsync(ptr, 4, data.ctypes.data, 4, H2D, sim.stream) == ACL_SUCCESS
        assert sim.aclrtMemcpyAsync(ptr, 4, data.ctypes.data, 4, H2D, 0x77) == ACL_ERROR_INVALID_PARAM
    finally:
        sim.free(ptr)


def test_recent_error_message_is_per_thread(sim):
    assert sim.aclrtFree(None) == ACL_ERROR_INVALID_PARAM
    seen = []
    thread = threading.Thread(target=lambda: seen.append(sim.error()))
    thread.start()
    thread.join()
    assert seen == [""]
    assert "aclrtFree" in sim.error()


@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 65504.0, 1e-7, 6e-8, 3.14159, 1e6, float("inf")])
def test_float16_conversions_match_ieee(sim, value):
    bits = sim.aclFloatToFloat16(value)
    with np.errstate(over="ignore"):
        expected = int(np.array(value, np.float32).astype(np.float16).view(np.uint16))
    assert bits == expected
    assert sim.aclFloat16ToFloat(bits) == float(np.array(bits, np.uint16).view(np.float16))


def test_float16_conversion_of_every_half_round_trips(sim):
    halves = np.arange(0, 1 << 16, 97, dtype=np.uint32).astype(np.uint16)
    for bits in halves:
        value = np.array(bits, np.uint16).view(np.float16)
        if np.isnan(value):
            assert np.isnan(sim.aclFloat16ToFloat(int(bits)))
        else:
            assert sim.aclFloat16ToFloat(int(bits)) == float(value)
            assert sim.aclFloatToFloat16(float(value)) == int(bits)


@pytest.mark.parametrize("dtype,size", [(0, 4), (1, 2), (27, 2), (11, 8), (12, 1), (17, 16), (29, 0), (-1, 0)])
def test_data_type_size(sim, dtype, size):
    assert sim.aclDataTypeSize(dtype) == size
