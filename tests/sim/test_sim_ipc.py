"""Memory and events shared between processes (acl_rt.h's aclrtIpc* calls), through the C ABI: this
process exports, another (tests/sim/ipc_peer.py, on the same libascendcl) imports, reads and writes;
the pids the exporter admits are enforced, aclrtIpcMemClose ends a key (exporter) or unmaps it
(importer), and an event made with ACL_EVENT_IPC orders the other process's stream behind this one's."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gen import abi
from tests.sim.sim_lib import ACL_ERROR_RT_AICORE_EXCEPTION as AICORE_EXCEPTION, ROOT, P, session_sim, subprocess_env
from tests.sim.test_sim_streams import SCRIPT as STREAM_SCRIPT

ERRORS = abi.acl_errors()
SUCCESS, INVALID, NOT_SUPPORTED, NO_PERMISSION = (ERRORS[n] for n in (
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_RT_FEATURE_NOT_SUPPORT", "ACL_ERROR_RT_NO_PERMISSION"))
VALIDATE_PIDS, ANYONE = 0, 1  # ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, ..._DISABLE_PID_VALIDATION
ACL_EVENT_IPC = 0x40
KEY_LEN = 65
SIZE = (64 << 10) + 100  # from 64 KiB on an allocation is shareable; a part of a page past it


class IpcEventHandle(ctypes.Structure):  # acl_rt.h's aclrtIpcEventHandle
    _fields_ = [("reserved", ctypes.c_char * 64)]


@pytest.fixture()
def sim():
    simulator = session_sim()
    simulator.start()
    return simulator


@pytest.fixture()
def acl(sim):
    return sim.libs[0]


class Peer:
    """The other process: one command per line, one answer per line (ipc_peer.py)."""

    def __init__(self, libdir: Path) -> None:
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("ipc_peer.py")), str(libdir)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = int(self.process.stdout.readline())

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self) -> tuple[int, str]:
        status, value = self.process.stdout.readline().rstrip("\n").split(" ", 1)
        return int(status), value

    def ask(self, line: str) -> tuple[int, str]:
        self.send(line)
        return self.answer()

    def error(self) -> str:
        return self.ask("error")[1]

    def close(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(60) == 0


@pytest.fixture()
def peer(sim):
    process = Peer(sim.libdir)
    yield process
    process.close()


def export(acl, ptr: int, size: int, flags: int) -> bytes:
    key = ctypes.create_string_buffer(KEY_LEN)
    assert acl.aclrtIpcMemGetExportKey(P(ptr), ctypes.c_size_t(size), key, ctypes.c_size_t(KEY_LEN),
                                       ctypes.c_uint64(flags)) == SUCCESS
    return key.value


def admit(acl, key: bytes, *pids: int) -> int:
    return acl.aclrtIpcMemSetImportPid(key, (ctypes.c_int32 * len(pids))(*pids), ctypes.c_size_t(len(pids)))


def pattern(seed: int, n: int = SIZE) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def test_exported_memory_is_read_and_written_by_the_process_the_exporter_admits(sim, acl, peer):
    ptr = sim.malloc(SIZE)
    sim.to_device(ptr, pattern(1))
    key = export(acl, ptr, SIZE, VALIDATE_PIDS)
    # The key validates pids: a process not admitted yet is refused, naming the call that admits.
    status, _ = peer.ask(f"import {key.decode()} 0")
    assert status == NO_PERMISSION and "aclrtIpcMemSetImportPid" in peer.error()
    assert admit(acl, key, peer.pid) == SUCCESS, sim.error()
    status, theirs = peer.ask(f"import {key.decode()} 0")
    assert status == SUCCESS, peer.error()
    # The contents written before the export are there, and what the other process writes is here.
    status, seen = peer.ask(f"read {theirs} {SIZE}")
    assert status == SUCCESS and bytes.fromhex(seen) == pattern(1).tobytes()
    assert peer.ask(f"write {theirs} {pattern(2).tobytes().hex()}")[0] == SUCCESS
    assert np.frombuffer(sim.from_device(ptr, SIZE), np.uint8).tolist() == pattern(2).tolist()
    # And what this process writes after, there.
    sim.to_device(ptr, pattern(3))
    assert bytes.fromhex(peer.ask(f"read {theirs} {SIZE}")[1]) == pattern(3).tobytes()
    # Past the exported bytes is not the importer's device memory.
    assert peer.ask(f"read {theirs} {SIZE + 4096}")[0] == INVALID
    # Imported memory is released by aclrtIpcMemClose, not aclrtFree; after it, the address is not device memory.
    assert peer.ask(f"free {theirs}")[0] == INVALID and "aclrtIpcMemClose" in peer.error()
    assert peer.ask(f"close {key.decode()}")[0] == SUCCESS
    assert peer.ask(f"read {theirs} 16")[0] == INVALID and "not in a live device allocation" in peer.error()
    assert peer.ask(f"close {key.decode()}")[0] == INVALID
    # The exporter's allocation is still its own, with its contents.
    assert np.frombuffer(sim.from_device(ptr, SIZE), np.uint8).tolist() == pattern(3).tolist()
    assert acl.aclrtIpcMemClose(key) == SUCCESS
    sim.free(ptr)


def test_a_key_without_pid_validation_admits_any_process_until_the_exporter_closes_it(sim, acl, peer):
    ptr = sim.malloc(SIZE)
    sim.to_device(ptr, pattern(4))
    key = export(acl, ptr, SIZE, ANYONE)
    assert export(acl, ptr, SIZE, ANYONE) == key  # one live key per allocation
    status, theirs = peer.ask(f"import {key.decode()} 0")
    assert status == SUCCESS, peer.error()
    status, again = peer.ask(f"import {key.decode()} 1")  # ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS
    assert status == SUCCESS and again == theirs
    assert acl.aclrtIpcMemClose(key) == SUCCESS
    # A closed key admits no new import; the mapping made before stays until its last close.
    assert peer.ask(f"import {key.decode()} 0")[0] == INVALID and "not exported any more" in peer.error()
    assert peer.ask(f"close {key.decode()}")[0] == SUCCESS
    assert bytes.fromhex(peer.ask(f"read {theirs} 64")[1]) == pattern(4)[:64].tobytes()
    assert peer.ask(f"close {key.decode()}")[0] == SUCCESS
    # Exported again, the allocation has a new key; freed, its key is refused.
    fresh = export(acl, ptr, SIZE, ANYONE)
    assert fresh != key
    sim.free(ptr)
    assert peer.ask(f"import {fresh.decode()} 0")[0] == INVALID and "not exported any more" in peer.error()
    assert acl.aclrtIpcMemClose(fresh) == SUCCESS  # the exporter's bookkeeping of it


def test_what_cannot_be_exported_or_imported_is_refused(sim, acl, peer):
    key = ctypes.create_string_buffer(KEY_LEN)
    ptr = sim.malloc(SIZE)
    calls = {
        "interior pointer": lambda: acl.aclrtIpcMemGetExportKey(P(ptr + 512), ctypes.c_size_t(64), key, ctypes.c_size_t(KEY_LEN), ctypes.c_uint64(0)),
        "too large": lambda: acl.aclrtIpcMemGetExportKey(P(ptr), ctypes.c_size_t(SIZE + 8192), key, ctypes.c_size_t(KEY_LEN), ctypes.c_uint64(0)),
        "unknown flags": lambda: acl.aclrtIpcMemGetExportKey(P(ptr), ctypes.c_size_t(SIZE), key, ctypes.c_size_t(KEY_LEN), ctypes.c_uint64(4)),
        "short key buffer": lambda: acl.aclrtIpcMemGetExportKey(P(ptr), ctypes.c_size_t(SIZE), key, ctypes.c_size_t(8), ctypes.c_uint64(0)),
        "a pid for a key never made": lambda: admit(acl, b"aclsim-ipc:1:2:0000000000000003", 1),
        "closing a key never made": lambda: acl.aclrtIpcMemClose(b"aclsim-ipc:1:2:0000000000000003"),
    }
    for name, call in calls.items():
        assert call() == INVALID, name
    # Under 64 KiB an allocation shares host pages with other memory: sharing it is not modelled, and says so.
    small = sim.malloc(8192)
    status = acl.aclrtIpcMemGetExportKey(P(small), ctypes.c_size_t(8192), key, ctypes.c_size_t(KEY_LEN), ctypes.c_uint64(0))
    assert status == NOT_SUPPORTED and "not modelled" in sim.error()
    assert peer.ask("import not-a-key 0")[0] == INVALID and "not a key" in peer.error()
    sim.free(small)
    sim.free(ptr)


def test_an_ipc_event_orders_the_other_process_behind_this_one(sim, acl, peer):
    event, plain = P(), P()
    assert acl.aclrtCreateEventWithFlag(ctypes.byref(event), ctypes.c_uint32(ACL_EVENT_IPC)) == SUCCESS, sim.error()
    assert acl.aclrtCreateEvent(ctypes.byref(plain)) == SUCCESS
    handle = IpcEventHandle()
    assert acl.aclrtIpcGetEventHandle(plain, ctypes.byref(handle)) == INVALID and "ACL_EVENT_IPC" in sim.error()
    assert acl.aclrtIpcGetEventHandle(event, ctypes.byref(handle)) == SUCCESS, sim.error()
    status, theirs = peer.ask(f"open_event {bytes(handle).hex()}")
    assert status == SUCCESS, peer.error()
    ptr = sim.malloc(SIZE)
    sim.to_device(ptr, pattern(5))
    key = export(acl, ptr, SIZE, ANYONE)
    status, memory = peer.ask(f"import {key.decode()} 0")
    assert status == SUCCESS
    # This process's stream fills the memory, then records the event; held, it has run neither.
    stream = sim.new_stream()
    assert sim.aclsimHoldStream(stream, 1) == 0
    assert acl.aclrtMemsetAsync(P(ptr), ctypes.c_size_t(SIZE), 0x5A, ctypes.c_size_t(SIZE), P(stream)) == SUCCESS
    assert acl.aclrtRecordEvent(event, P(stream)) == SUCCESS
    assert peer.ask(f"query {theirs}") == (SUCCESS, "1")  # pending over there too
    # The other process's stream waits for the record, then copies the memory out.
    peer.send(f"wait_read {theirs} {memory} {SIZE}")
    assert sim.aclsimHoldStream(stream, 0) == 0
    status, seen = peer.answer()
    assert status == SUCCESS and bytes.fromhex(seen) == bytes([0x5A]) * SIZE
    assert peer.ask(f"query {theirs}") == (SUCCESS, "0")
    # A record over there is one here: synchronising on the event waits for it.
    assert peer.ask(f"record {theirs}")[0] == SUCCESS
    assert acl.aclrtSynchronizeEvent(event) == SUCCESS, sim.error()
    # Its records may be the other process's: timing it is not modelled, and says so.
    assert peer.ask(f"elapsed {theirs}")[0] == NOT_SUPPORTED and "ACL_EVENT_IPC" in peer.error()
    assert peer.ask(f"close {key.decode()}")[0] == SUCCESS
    assert acl.aclrtIpcMemClose(key) == SUCCESS
    sim.free(ptr)
    assert acl.aclrtDestroyEvent(event) == SUCCESS and acl.aclrtDestroyEvent(plain) == SUCCESS
    # Destroyed, the event's handle opens nothing.
    assert peer.ask(f"open_event {bytes(handle).hex()}")[0] == INVALID and "gone" in peer.error()


def test_a_fault_before_the_record_reaches_the_other_process(sim, acl):
    # The exporter (a fresh process, its first LeakyReluBackward launch failing by ACLNN_SIM_FAULT) records
    # the event behind the fault; this process, waiting for it, takes the fault over, naming the kernel.
    body = textwrap.dedent("""
        acl, event = sim.libs[0], ctypes.c_void_p()
        assert acl.aclrtCreateEventWithFlag(ctypes.byref(event), ctypes.c_uint32(0x40)) == 0, sim.error()
        handle = (ctypes.c_char * 64)()
        assert acl.aclrtIpcGetEventHandle(event, handle) == 0, sim.error()
        op = Leaky(sim, 32)
        assert op.launch(stream) == 0
        assert acl.aclrtRecordEvent(event, ctypes.c_void_p(stream)) == 0
        print(bytes(handle).hex(), flush=True)
        sys.stdin.readline()
    """)
    exporter = subprocess.Popen([sys.executable, "-c", STREAM_SCRIPT.format(body=body), str(sim.libdir)], cwd=ROOT,
                                env=subprocess_env(ACLNN_SIM_FAULT="aclnnLeakyReluBackward:1"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        handle = IpcEventHandle(bytes.fromhex(exporter.stdout.readline().strip()))
        event = P()
        assert acl.aclrtIpcOpenEventHandle(handle, ctypes.byref(event)) == SUCCESS, sim.error()
        stream = sim.new_stream()
        assert acl.aclrtStreamWaitEvent(P(stream), event) == SUCCESS
        assert acl.aclrtSynchronizeStream(P(stream)) == AICORE_EXCEPTION
        assert "aclnnLeakyReluBackward" in sim.error() and "through an event" in sim.error()
        assert acl.aclrtSynchronizeEvent(event) == AICORE_EXCEPTION
        assert "aclnnLeakyReluBackward" in sim.error() and f"in process {exporter.pid}" in sim.error()
        assert acl.aclrtDestroyEvent(event) == SUCCESS
    finally:
        exporter.communicate("\n", timeout=60)
    assert exporter.returncode == 0
