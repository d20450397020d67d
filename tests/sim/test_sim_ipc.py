"""Memory and events shared between processes (acl_rt.h's aclrtIpc* calls and the shareable handles of
physical memory), through the C ABI: this process exports, another (tests/sim/ipc_peer.py, on the same
libascendcl) imports, reads and writes; the pids the exporter admits are enforced, aclrtIpcMemClose
ends a key (exporter) or unmaps it (importer), aclrtFreePhysical ends a shareable handle (exporter)
while what imported it keeps the memory, and an event made with ACL_EVENT_IPC orders the other
process's stream behind this one's."""

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
SUCCESS, INVALID, NOT_SUPPORTED, NO_PERMISSION, INVALID_DEVICE = (ERRORS[n] for n in (
    "ACL_SUCCESS", "ACL_ERROR_INVALID_PARAM", "ACL_ERROR_FEATURE_UNSUPPORTED", "ACL_ERROR_RT_NO_PERMISSION",
    "ACL_ERROR_RT_INVALID_DEVICEID"))
# ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, ..._DISABLE_PID_VALIDATION; ACL_RT_VMM_EXPORT_FLAG_* are the same values
VALIDATE_PIDS, ANYONE = 0, 1
ACL_EVENT_IPC = 0x40
KEY_LEN = 65
SIZE = (64 << 10) + 100  # from 64 KiB on an allocation is shareable; a part of a page past it


TWO_MIB = 2 << 20  # the granularity of physical memory (vmm.cpp)
PHYSICAL_SIZE = TWO_MIB + 4096  # backed by two pages of the granularity, mapped as allocated


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


# --- physical memory shared by shareable handle (aclrtMem*ShareableHandle, vmm.cpp) ---------------------


def malloc_physical(acl, size: int = PHYSICAL_SIZE) -> P:
    from tests.sim.ipc_peer import DEVICE_MEMORY
    handle = P()
    assert acl.aclrtMallocPhysical(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(DEVICE_MEMORY), ctypes.c_uint64(0)) == SUCCESS
    return handle


def export_shareable(acl, handle: P, flags: int) -> tuple[int, int]:
    value = ctypes.c_uint64()
    status = acl.aclrtMemExportToShareableHandle(handle, 0, ctypes.c_uint64(flags), ctypes.byref(value))
    return status, value.value


def admit_to_shareable(acl, value: int, *pids: int) -> int:
    return acl.aclrtMemSetPidToShareableHandle(ctypes.c_uint64(value), (ctypes.c_int32 * len(pids))(*pids), ctypes.c_size_t(len(pids)))


def map_physical(acl, handle: P, size: int = PHYSICAL_SIZE) -> int:
    base = P()
    assert acl.aclrtReserveMemAddress(ctypes.byref(base), ctypes.c_size_t(size), 0, None, 0) == SUCCESS
    assert acl.aclrtMapMem(base, ctypes.c_size_t(size), 0, handle, 0) == SUCCESS
    return base.value


def used_device_memory(acl) -> int:
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    assert acl.aclrtGetMemInfo(1, ctypes.byref(free), ctypes.byref(total)) == SUCCESS  # ACL_HBM_MEM
    return total.value - free.value


def peer_reads(peer, ptr: int, n: int) -> bytes:
    status, seen = peer.ask(f"read {ptr} {n}")
    assert status == SUCCESS, peer.error()
    return bytes.fromhex(seen)


def test_physical_memory_is_shared_by_handle_with_the_processes_the_exporter_admits(sim, acl, peer):
    handle = malloc_physical(acl)
    base = map_physical(acl, handle)
    sim.to_device(base, pattern(6, PHYSICAL_SIZE))  # written before the export: the memory does not move
    status, value = export_shareable(acl, handle, VALIDATE_PIDS)
    assert status == SUCCESS, sim.error()
    assert export_shareable(acl, handle, VALIDATE_PIDS) == (SUCCESS, value)  # one shareable handle per handle
    assert export_shareable(acl, handle, ANYONE)[0] == INVALID and "other flags" in sim.error()
    # The handle validates pids: a process not admitted yet is refused, naming the call that admits.
    used = int(peer.ask("used")[1])
    assert peer.ask(f"import_shareable {value} 0")[0] == NO_PERMISSION
    assert "aclrtMemSetPidToShareableHandle" in peer.error()
    assert admit_to_shareable(acl, value, peer.pid) == SUCCESS, sim.error()
    status, theirs = peer.ask(f"import_shareable {value} 0")
    assert status == SUCCESS, peer.error()
    # An imported handle is mapped as the importer's own, into a range it reserved.
    status, where = peer.ask(f"reserve {PHYSICAL_SIZE}")
    assert status == SUCCESS
    assert peer.ask(f"map {where} {TWO_MIB} {theirs}")[0] == INVALID  # a mapping is of the whole allocation
    assert peer.ask(f"map {where} {PHYSICAL_SIZE} {theirs}")[0] == SUCCESS, peer.error()
    # Importing and mapping the exporter's memory takes none of the importer's device memory.
    assert int(peer.ask("used")[1]) == used
    # Both processes see one memory: what either writes, the other reads, across the pages' boundary.
    last = PHYSICAL_SIZE - 8192
    assert peer_reads(peer, int(where), 4096) == pattern(6, PHYSICAL_SIZE)[:4096].tobytes()
    assert peer_reads(peer, int(where) + last, 8192) == pattern(6, PHYSICAL_SIZE)[last:].tobytes()
    assert peer.ask(f"write {int(where) + last} {pattern(7, 8192).tobytes().hex()}")[0] == SUCCESS
    assert sim.from_device(base + last, 8192) == pattern(7, 8192).tobytes()
    sim.to_device(base, pattern(8, 4096))
    assert peer_reads(peer, int(where), 4096) == pattern(8, 4096).tobytes()
    # Only the process that allocated the memory exports it.
    assert peer.ask(f"export_shareable {theirs} 1")[0] == INVALID and "imported" in peer.error()
    # The exporter frees its handle, still mapped: the export ends (though the memory lives on in both
    # processes' mappings), and the importer keeps the memory it mapped after the exporter unmaps it.
    assert acl.aclrtFreePhysical(handle) == SUCCESS
    assert peer.ask(f"import_shareable {value} 0")[0] == INVALID and "export ended" in peer.error()
    assert admit_to_shareable(acl, value, peer.pid) == INVALID and "aclrtMemExportToShareableHandle" in sim.error()
    assert sim.from_device(base, 4096) == pattern(8, 4096).tobytes()
    assert acl.aclrtUnmapMem(P(base)) == SUCCESS
    assert peer.ask(f"import_shareable {value} 0")[0] == INVALID and "not exported any more" in peer.error()
    assert peer_reads(peer, int(where), 4096) == pattern(8, 4096).tobytes()
    # Freed while mapped, the imported handle's memory stays until the unmap; then it is gone.
    assert peer.ask(f"free_physical {theirs}")[0] == SUCCESS
    assert peer.ask(f"free_physical {theirs}")[0] == INVALID
    assert peer_reads(peer, int(where) + last, 8192) == pattern(7, 8192).tobytes()
    assert peer.ask(f"unmap {where}")[0] == SUCCESS
    assert peer.ask(f"read {where} 16")[0] == INVALID
    assert peer.ask(f"release {where}")[0] == SUCCESS
    assert acl.aclrtReleaseMemAddress(P(base)) == SUCCESS


def test_a_handle_without_pid_validation_admits_any_process_while_its_exporter_lives(sim, acl, peer):
    # The other process allocates, maps, writes and exports; this one imports without being admitted.
    status, handle = peer.ask(f"malloc_physical {PHYSICAL_SIZE}")
    assert status == SUCCESS, peer.error()
    status, where = peer.ask(f"reserve {PHYSICAL_SIZE}")
    assert status == SUCCESS and peer.ask(f"map {where} {PHYSICAL_SIZE} {handle}")[0] == SUCCESS
    assert peer.ask(f"write {where} {pattern(9, 4096).tobytes().hex()}")[0] == SUCCESS
    status, value = peer.ask(f"export_shareable {handle} {ANYONE}")
    assert status == SUCCESS, peer.error()
    used = used_device_memory(acl)
    ours = P()
    assert acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(int(value)), 0, ctypes.byref(ours)) == SUCCESS, sim.error()
    again = P()  # each import is a handle of its own, freed on its own
    assert acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(int(value)), 0, ctypes.byref(again)) == SUCCESS
    assert again.value != ours.value and acl.aclrtFreePhysical(again) == SUCCESS
    base = map_physical(acl, ours)
    assert used_device_memory(acl) == used
    assert sim.from_device(base, 4096) == pattern(9, 4096).tobytes()
    # The exporting process ends: its handle imports no more; the memory mapped here stays.
    peer.close()
    assert acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(int(value)), 0, ctypes.byref(again)) == INVALID
    assert "has ended" in sim.error()
    sim.to_device(base, pattern(10, 4096))
    assert sim.from_device(base, 4096) == pattern(10, 4096).tobytes()
    assert acl.aclrtUnmapMem(P(base)) == SUCCESS and acl.aclrtFreePhysical(ours) == SUCCESS
    assert acl.aclrtReleaseMemAddress(P(base)) == SUCCESS


def test_what_cannot_be_shared_by_handle_is_refused(sim, acl):
    handle = malloc_physical(acl)
    value = ctypes.c_uint64()
    pids = (ctypes.c_int32 * 1)(1)
    freed = malloc_physical(acl)
    status, stale = export_shareable(acl, freed, ANYONE)
    assert status == SUCCESS and acl.aclrtFreePhysical(freed) == SUCCESS
    imported = P()
    calls = {
        "no place for the value": lambda: acl.aclrtMemExportToShareableHandle(handle, 0, ctypes.c_uint64(0), None),
        "a POSIX handle type (reserved: NONE)": lambda: acl.aclrtMemExportToShareableHandle(handle, 2, ctypes.c_uint64(0), ctypes.byref(value)),
        "unknown flags": lambda: acl.aclrtMemExportToShareableHandle(handle, 0, ctypes.c_uint64(2), ctypes.byref(value)),
        "a handle never allocated": lambda: acl.aclrtMemExportToShareableHandle(P(4096), 0, ctypes.c_uint64(0), ctypes.byref(value)),
        "a freed handle": lambda: acl.aclrtMemExportToShareableHandle(freed, 0, ctypes.c_uint64(0), ctypes.byref(value)),
        "pids of a handle never exported": lambda: admit_to_shareable(acl, 12345, 1),
        "pids of a freed handle's export": lambda: admit_to_shareable(acl, stale, 1),
        "no pids": lambda: acl.aclrtMemSetPidToShareableHandle(ctypes.c_uint64(stale), pids, ctypes.c_size_t(0)),
        "an import with nowhere to put it": lambda: acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(stale), 0, None),
        "an import of no handle": lambda: acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(0), 0, ctypes.byref(imported)),
        "an import of a freed handle's export": lambda: acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(stale), 0, ctypes.byref(imported)),
    }
    for name, call in calls.items():
        assert call() == INVALID, name
        assert sim.error(), name
    assert "not exported any more" in (acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(stale), 0, ctypes.byref(imported)) and sim.error())
    status, live = export_shareable(acl, handle, VALIDATE_PIDS)
    assert status == SUCCESS
    assert admit_to_shareable(acl, live, 0) == INVALID and "not a process id" in sim.error()
    assert acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(live), 99, ctypes.byref(imported)) == INVALID_DEVICE
    assert "device 99" in sim.error()
    # This process exported it with pid validation and did not admit itself.
    assert acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(live), 0, ctypes.byref(imported)) == NO_PERMISSION
    assert acl.aclrtFreePhysical(handle) == SUCCESS
