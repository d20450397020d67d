"""The simulator, built once per test session and driven from Python with ctypes.

`build()` generates the entries of the seed pages (tests/support/sim_seed_ir.py) and of the test-only
APIs (tests/sim/sim_test_ops.py) with gen.emit.sim, plus their aclnnop/ headers and the dtype and chip
tables (gen.emit.enums), into
build/sim-tests/generated (files are written only when their content changed), and builds
runtime/sim with CMake + Ninja in build/sim-tests/cmake (kept between runs: an unchanged tree
rebuilds nothing). A file lock keeps parallel pytest workers from building at once.
`Sim` loads the three libraries and wraps what the tests call.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Sequence

import ml_dtypes
import numpy as np

from gen import abi
from gen.emit import enums, headers, sim as sim_emitter
from gen.emit.files import FileManager
from gen.ir import DType, ParamKind
from gen.model import Model, build_model
from tests.sim import sim_test_ops
from tests.support import main_build, sim_seed_ir

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "sim-tests"
ASAN_BUILD = ROOT / "build" / "sim-asan"

# aclDataType values (runtime/include/acl/acl_base.h) of every dtype NumPy can hold.
ACL_DTYPE = {np.dtype(getattr(ml_dtypes if d.numpy_module == "ml_dtypes" else np, d.numpy_name)):
             abi.enumerators("aclDataType")[d.enumerator] for d in DType if d.numpy_name}
# The ABI's values the tests pass and expect, from their one home (runtime/include, read by gen.abi).
_DTYPES, _FORMATS, _COPIES = (abi.enumerators(e) for e in ("aclDataType", "aclFormat", "aclrtMemcpyKind"))
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_DOUBLE, ACL_BOOL, ACL_BF16 = (
    _DTYPES[f"ACL_{name}"] for name in ("FLOAT", "FLOAT16", "INT8", "INT32", "INT64", "DOUBLE", "BOOL", "BF16"))
ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_NZ = (
    _FORMATS[f"ACL_FORMAT_{name}"] for name in ("NCHW", "ND", "NC1HWC0", "FRACTAL_NZ"))
H2H, H2D, D2H, D2D, DEFAULT = (_COPIES[f"ACL_MEMCPY_{name}"] for name in (
    "HOST_TO_HOST", "HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE", "DEFAULT"))

ACLNN_SUCCESS, NULLPTR, INVALID, NOT_SIMULATED = (abi.status_code(name) for name in (
    "ACLNN_SUCCESS", "ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_PARAM_INVALID", "ACLNN_ERR_INNER_FIND_KERNEL_ERROR"))
# What a synchronisation returns for a kernel that faulted on the (simulated) device.
ACL_ERROR_RT_AICORE_EXCEPTION = abi.acl_errors()["ACL_ERROR_RT_AICORE_EXCEPTION"]


def model() -> Model:
    semantics = (*sim_seed_ir.seed_semantics(), *sim_test_ops.semantics())
    return build_model((*sim_seed_ir.seed_pages(), sim_test_ops.page()), semantics)


def _tool(name: str) -> str:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(directory: Path = BUILD, *, sanitize: bool = False) -> Path:
    """Generates and builds the simulator (and its C++ tests) in `directory`; returns the _sim dir."""
    with _locked(directory):
        files = FileManager(directory / "generated")
        m = model()
        sim_emitter.emit(m, files)
        headers.emit(m, files)
        enums.emit(m, files)
        sources = ";".join(str(directory / "generated" / p) for p in sorted(files.written) if p.startswith("sim/"))
        cmake_dir = directory / "cmake"
        configure = [_tool("cmake"), "-G", "Ninja", "-S", str(ROOT / "runtime" / "sim"), "-B", str(cmake_dir),
                     f"-DACLNN_SIM_OP_SOURCES={sources}", f"-DACLNN_PACKAGE_DIR={directory / 'aclnn'}",
                     f"-DACLNN_GENERATED_DIR={directory / 'generated'}",
                     "-DACLNN_SIM_TESTS=ON", f"-DACLNN_SANITIZE={'ON' if sanitize else 'OFF'}",
                     f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}",
                     # The Python whose scipy-openblas32 the matmul family links.
                     f"-DPython_EXECUTABLE={sys.executable}",
                     *main_build.reuse_cores_arguments(sanitize=sanitize)]
        subprocess.run(configure, check=True, capture_output=True, text=True)
        result = subprocess.run([_tool("ninja"), "-C", str(cmake_dir)], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"building the simulator failed:\n{result.stdout}\n{result.stderr}")
    return directory / "aclnn" / "_sim"


def generated_dir() -> Path:
    return sim_build_dir() / "generated"


# --- ctypes ------------------------------------------------------------------------------------

class Stats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "device_allocations", "device_bytes", "peak_device_bytes", "host_allocations", "host_bytes", "streams",
        "contexts", "tensors", "scalars", "int_arrays", "float_arrays", "bool_arrays", "tensor_lists",
        "scalar_lists", "executors", "malloc_calls", "free_calls", "stream_syncs", "device_syncs",
        "kernels_launched", "events_recorded", "events")]

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name, _ in self._fields_}


P = ctypes.c_void_p
I64P = ctypes.POINTER(ctypes.c_int64)

_SIGNATURES = {
    # libascendcl
    "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
    "aclFinalize": (ctypes.c_int, []),
    "aclGetRecentErrMsg": (ctypes.c_char_p, []),
    "aclrtSetDevice": (ctypes.c_int, [ctypes.c_int32]),
    "aclrtResetDevice": (ctypes.c_int, [ctypes.c_int32]),
    "aclrtGetDevice": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int32)]),
    "aclrtGetMemInfo": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]),
    "aclrtGetDeviceCount": (ctypes.c_int, [ctypes.POINTER(ctypes.c_uint32)]),
    "aclrtGetSocName": (ctypes.c_char_p, []),
    "aclrtCreateContext": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_int32]),
    "aclrtDestroyContext": (ctypes.c_int, [P]),
    "aclrtSetCurrentContext": (ctypes.c_int, [P]),
    "aclrtGetCurrentContext": (ctypes.c_int, [ctypes.POINTER(P)]),
    "aclrtCtxSetSysParamOpt": (ctypes.c_int, [ctypes.c_int, ctypes.c_int64]),
    "aclrtCreateStream": (ctypes.c_int, [ctypes.POINTER(P)]),
    "aclrtDestroyStream": (ctypes.c_int, [P]),
    "aclrtSynchronizeStream": (ctypes.c_int, [P]),
    "aclrtSynchronizeDevice": (ctypes.c_int, []),
    "aclrtSetOpExecuteTimeOut": (ctypes.c_int, [ctypes.c_uint32]),
    "aclrtMalloc": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_size_t, ctypes.c_int]),
    "aclrtFree": (ctypes.c_int, [P]),
    "aclrtMallocHost": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_size_t]),
    "aclrtFreeHost": (ctypes.c_int, [P]),
    "aclrtMemcpy": (ctypes.c_int, [P, ctypes.c_size_t, P, ctypes.c_size_t, ctypes.c_int]),
    "aclrtMemcpyAsync": (ctypes.c_int, [P, ctypes.c_size_t, P, ctypes.c_size_t, ctypes.c_int, P]),
    "aclrtMemset": (ctypes.c_int, [P, ctypes.c_size_t, ctypes.c_int32, ctypes.c_size_t]),
    "aclrtMemsetAsync": (ctypes.c_int, [P, ctypes.c_size_t, ctypes.c_int32, ctypes.c_size_t, P]),
    "aclFloatToFloat16": (ctypes.c_uint16, [ctypes.c_float]),
    "aclFloat16ToFloat": (ctypes.c_float, [ctypes.c_uint16]),
    "aclDataTypeSize": (ctypes.c_size_t, [ctypes.c_int]),
    "aclsimSetSoc": (ctypes.c_int, [ctypes.c_char_p]),
    "aclsimGetRuntimeStats": (ctypes.c_int, [ctypes.POINTER(Stats)]),
    # libnnopbase
    "aclCreateTensor": (P, [I64P, ctypes.c_uint64, ctypes.c_int, I64P, ctypes.c_int64, ctypes.c_int, I64P,
                            ctypes.c_uint64, P]),
    "aclInitTensor": (ctypes.c_int, [P, I64P, ctypes.c_uint64, ctypes.c_int, I64P, ctypes.c_int64, ctypes.c_int,
                                     I64P, ctypes.c_uint64, P]),
    "aclCreateScalar": (P, [P, ctypes.c_int]),
    "aclCreateIntArray": (P, [I64P, ctypes.c_uint64]),
    "aclCreateFloatArray": (P, [ctypes.POINTER(ctypes.c_float), ctypes.c_uint64]),
    "aclCreateBoolArray": (P, [ctypes.POINTER(ctypes.c_bool), ctypes.c_uint64]),
    "aclCreateTensorList": (P, [ctypes.POINTER(P), ctypes.c_uint64]),
    "aclCreateScalarList": (P, [ctypes.POINTER(P), ctypes.c_uint64]),
    "aclDestroyTensor": (ctypes.c_int, [P]),
    "aclDestroyScalar": (ctypes.c_int, [P]),
    "aclDestroyIntArray": (ctypes.c_int, [P]),
    "aclDestroyFloatArray": (ctypes.c_int, [P]),
    "aclDestroyBoolArray": (ctypes.c_int, [P]),
    "aclDestroyTensorList": (ctypes.c_int, [P]),
    "aclDestroyScalarList": (ctypes.c_int, [P]),
    "aclGetViewOffset": (ctypes.c_int, [P, I64P]),
    "aclGetFormat": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_int)]),
    "aclGetDataType": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_int)]),
    "aclGetIntArraySize": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint64)]),
    "aclGetFloatArraySize": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint64)]),
    "aclGetBoolArraySize": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint64)]),
    "aclGetTensorListSize": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint64)]),
    "aclGetScalarListSize": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint64)]),
    "aclSetAclOpExecutorRepeatable": (ctypes.c_int, [P]),
    "aclDestroyAclOpExecutor": (ctypes.c_int, [P]),
    "aclsimGetStats": (ctypes.c_int, [ctypes.POINTER(Stats)]),
    # events (libascendcl)
    "aclrtCreateEvent": (ctypes.c_int, [ctypes.POINTER(P)]),
    "aclrtDestroyEvent": (ctypes.c_int, [P]),
    "aclrtRecordEvent": (ctypes.c_int, [P, P]),
    "aclrtStreamWaitEvent": (ctypes.c_int, [P, P]),
    "aclrtResetEvent": (ctypes.c_int, [P, P]),
    "aclrtCreateEventWithFlag": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_uint32]),
    "aclrtSynchronizeEvent": (ctypes.c_int, [P]),
    "aclrtQueryEventStatus": (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_int)]),
    "aclrtEventElapsedTime": (ctypes.c_int, [ctypes.POINTER(ctypes.c_float), P, P]),
    "aclsimLastFault": (ctypes.c_int, [P, ctypes.c_void_p]),
    "aclsimHoldStream": (ctypes.c_int, [P, ctypes.c_int]),
    "aclsimLiveObjects": (ctypes.c_uint64, []),
    # libopapi
    "aclsimPromoteTypes": (ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
    "aclsimCanCast": (ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
    "aclsimResultDType": (ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
}

_C_TYPES = {
    ParamKind.BOOL: ctypes.c_bool, ParamKind.FLOAT: ctypes.c_double, ParamKind.DTYPE: ctypes.c_int,
}


def _value_ctype(c_type: str, kind: ParamKind):
    if "*" in c_type:
        return P
    if kind is ParamKind.INT:
        return ctypes.c_uint64 if c_type.startswith("uint") else ctypes.c_int64
    if kind is ParamKind.FLOAT and c_type == "float":
        return ctypes.c_float
    return _C_TYPES.get(kind, P)


def _array(ctype, values: Sequence) -> Optional[ctypes.Array]:
    return (ctype * len(values))(*values) if values is not None else None


def _process_wide(soname: str) -> Optional[ctypes.CDLL]:
    """The runtime or object library the process already holds (the bindings tests load theirs):
    one process has one runtime, as the aclnn loader does; a second copy's objects would be
    unknown to the libopapi linked against the first."""
    if soname == "libopapi.so":
        return None
    try:
        return ctypes.CDLL(soname, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
    except OSError:
        return None


class Sim:
    def __init__(self, libdir: Path, m: Optional[Model] = None) -> None:
        self.libdir = libdir
        self.libs = [_process_wide(name) or ctypes.CDLL(str(libdir / name))
                     for name in ("libascendcl.so", "libnnopbase.so", "libopapi.so")]
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = self._find(name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        self.model = m or model()
        self.stream = None

    def _find(self, name: str):
        for lib in self.libs:
            if hasattr(lib, name):
                return getattr(lib, name)
        raise AttributeError(name)

    # -- runtime ---------------------------------------------------------------------------------

    def start(self) -> None:
        """aclInit + aclrtSetDevice(0) + a stream (idempotent within a process)."""
        status = self.aclInit(None)
        assert status in (0, 100002), self.error()
        assert self.aclrtSetDevice(0) == 0, self.error()
        if self.stream is None:
            stream = P()
            assert self.aclrtCreateStream(ctypes.byref(stream)) == 0, self.error()
            self.stream = stream

    def restart(self) -> None:
        """aclFinalize (which resets the devices and their streams), then `start` again."""
        self.aclFinalize()
        self.stream = None
        self.start()

    def error(self) -> str:
        return (self.aclGetRecentErrMsg() or b"").decode("utf-8")

    def stats(self) -> dict[str, int]:
        stats = Stats()
        assert self.aclsimGetStats(ctypes.byref(stats)) == 0
        return stats.as_dict()

    def new_stream(self) -> int:
        stream = P()
        assert self.aclrtCreateStream(ctypes.byref(stream)) == 0, self.error()
        return stream.value

    def new_event(self) -> int:
        event = P()
        assert self.aclrtCreateEvent(ctypes.byref(event)) == 0, self.error()
        return event.value

    def event_done(self, event: int) -> bool:
        status = ctypes.c_int(-1)
        assert self.aclrtQueryEventStatus(event, ctypes.byref(status)) == 0, self.error()
        return status.value == 1  # ACL_EVENT_RECORDED_STATUS_COMPLETE

    def malloc(self, size: int) -> int:
        ptr = P()
        assert self.aclrtMalloc(ctypes.byref(ptr), size, 0) == 0, self.error()
        return ptr.value

    def free(self, ptr: int) -> None:
        assert self.aclrtFree(ptr) == 0, self.error()

    def to_device(self, ptr: int, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data)
        if data.nbytes:
            assert self.aclrtMemcpy(ptr, data.nbytes, data.ctypes.data, data.nbytes, H2D) == 0, self.error()

    def from_device(self, ptr: int, nbytes: int) -> bytes:
        out = ctypes.create_string_buffer(max(nbytes, 1))
        if nbytes:
            assert self.aclrtMemcpy(out, nbytes, ptr, nbytes, D2H) == 0, self.error()
        return out.raw[:nbytes]

    # -- objects --------------------------------------------------------------------------------

    def tensor(self, shape, dtype: int, data: Optional[int], *, strides=None, offset=0, format=ACL_FORMAT_ND,
               storage=None) -> Optional[int]:
        shape = list(shape)
        if strides is None:
            strides = [0] * len(shape)
            step = 1
            for i in reversed(range(len(shape))):
                strides[i] = step
                step *= max(shape[i], 1)
        storage = shape if storage is None else storage
        return self.aclCreateTensor(_array(ctypes.c_int64, shape), len(shape), dtype, _array(ctypes.c_int64, strides),
                                    offset, format, _array(ctypes.c_int64, storage), len(storage), data)

    def scalar(self, value, dtype: np.dtype | type) -> Optional[int]:
        box = np.array([value], dtype=dtype)
        return self.aclCreateScalar(box.ctypes.data, ACL_DTYPE[box.dtype])

    def call(self, api_name: str, *args, run: bool = True, workspace: bool = True) -> tuple[int, int]:
        """Phase 1 and (when it succeeds and `run`) phase 2 of an API; (status1, status2)."""
        bound = self.model.api(api_name).api
        phase1 = self._find(bound.workspace_fn)
        phase1.restype = ctypes.c_int
        phase1.argtypes = [_value_ctype(p.c_type, p.kind) for p in bound.params] + [
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(P)]
        size, executor = ctypes.c_uint64(0), P()
        status = phase1(*args, ctypes.byref(size), ctypes.byref(executor))
        if status != 0 or not run:
            return status, -1
        workspace_ptr = self.malloc(size.value) if size.value and workspace else None
        try:
            return status, self.run(api_name, workspace_ptr, size.value, executor.value)
        finally:
            if workspace_ptr:
                self.free(workspace_ptr)

    def phase1(self, api_name: str, *args) -> tuple[int, int, int]:
        """Phase 1 only: (status, workspace size, executor)."""
        bound = self.model.api(api_name).api
        fn = self._find(bound.workspace_fn)
        fn.restype = ctypes.c_int
        fn.argtypes = [_value_ctype(p.c_type, p.kind) for p in bound.params] + [
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(P)]
        size, executor = ctypes.c_uint64(0), P()
        status = fn(*args, ctypes.byref(size), ctypes.byref(executor))
        return status, size.value, executor.value

    def launch(self, api_name: str, workspace, size: int, executor, stream=None) -> int:
        """Phase 2 only: the kernel is queued on the stream, and may not have run yet."""
        fn = self._find(api_name)
        fn.restype = ctypes.c_int
        fn.argtypes = [P, ctypes.c_uint64, P, P]
        return fn(workspace, size, executor, stream if stream is not None else self.stream)

    def run(self, api_name: str, workspace, size: int, executor, stream=None) -> int:
        """Phase 2 and the stream's synchronisation, as the pages' examples call them: the launch's
        status, or (when it queued the kernel) the synchronisation's, which reports a kernel fault."""
        status = self.launch(api_name, workspace, size, executor, stream)
        if status != 0:
            return status
        return self.aclrtSynchronizeStream(stream if stream is not None else self.stream)


class DeviceArray:
    """A numpy array in simulated device memory, viewed by an aclTensor (any view of its storage)."""

    def __init__(self, sim: Sim, storage: np.ndarray, *, shape=None, strides=None, offset=0,
                 format=ACL_FORMAT_ND, dtype: Optional[int] = None) -> None:
        self.sim = sim
        self.storage = np.ascontiguousarray(storage)
        self.nbytes = self.storage.nbytes
        self.ptr = sim.malloc(max(self.nbytes, 1))
        sim.to_device(self.ptr, self.storage)
        self.shape = list(self.storage.shape if shape is None else shape)
        self.offset = offset
        if strides is None and shape is None:
            strides = [s // self.storage.itemsize for s in self.storage.strides]
        self.strides = strides
        self.handle = sim.tensor(self.shape, ACL_DTYPE[self.storage.dtype] if dtype is None else dtype, self.ptr,
                                 strides=strides, offset=offset, format=format, storage=[self.storage.size])
        assert self.handle, sim.error()

    def read_storage(self) -> np.ndarray:
        raw = self.sim.from_device(self.ptr, self.nbytes)
        return np.frombuffer(raw, dtype=self.storage.dtype).copy()

    def numpy(self) -> np.ndarray:
        """The view's elements (as the tensor's shape/strides/offset select them)."""
        flat = self.read_storage()
        strides = self.strides if self.strides is not None else [1] * len(self.shape)
        item = flat.itemsize
        return np.lib.stride_tricks.as_strided(flat[self.offset:] if self.offset >= 0 else flat, self.shape,
                                               [s * item for s in strides]).copy()

    def close(self) -> None:
        if self.handle:
            assert self.sim.aclDestroyTensor(self.handle) == 0, self.sim.error()
            self.handle = None
        if self.ptr:
            self.sim.free(self.ptr)
            self.ptr = None


# ACLNN_SIM_SANITIZE=1 (runtime/sim/tests/asan.sh): the tests run on the ASan+UBSan build.
SANITIZE = os.environ.get("ACLNN_SIM_SANITIZE") == "1"


def sim_build_dir() -> Path:
    return ASAN_BUILD if SANITIZE else BUILD


@functools.lru_cache(maxsize=None)
def session_build() -> Path:
    return build(sim_build_dir(), sanitize=SANITIZE)


def special_values(dtype: str, n: int, seed: int) -> np.ndarray:
    """Random values with NaN, infinities, signed zeros, subnormals and the largest finite value."""
    d = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}[dtype]
    values = np.random.default_rng(seed).uniform(-3, 3, n).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -6e-8, 3e-39, 65504.0, 1e38], np.float32)
    values[: min(n, specials.size)] = specials[: min(n, specials.size)]
    with np.errstate(over="ignore"):
        return values.astype(d)


@functools.lru_cache(maxsize=None)
def session_sim() -> Sim:
    sim = Sim(session_build())
    sim.start()
    return sim


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env
