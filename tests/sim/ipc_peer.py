"""The other process of tests/sim/test_sim_ipc.py: it loads the simulator's libascendcl (the directory
is its argument), sets device 0, prints its pid, then runs one command per line of its standard input
and answers one line each, "<status> <value>" (value "-" when there is none):

    import KEY FLAGS            aclrtIpcMemImportByKey: the pointer
    read PTR N                  aclrtMemcpy of N bytes to the host: their hex
    write PTR HEX               aclrtMemcpy of the bytes to the device
    close KEY                   aclrtIpcMemClose
    free PTR                    aclrtFree
    open_event HEX              aclrtIpcOpenEventHandle of the 64-byte handle: the event
    query EVENT                 aclrtQueryEventStatus: 0 complete, 1 not ready
    sync_event EVENT            aclrtSynchronizeEvent
    record EVENT                aclrtRecordEvent on a stream of its own (made at the first command that needs it)
    wait_read EVENT PTR N       aclrtStreamWaitEvent then aclrtMemcpyAsync of N bytes on that stream, synchronised: hex
    elapsed EVENT               aclrtEventElapsedTime(EVENT, EVENT)
    malloc_physical SIZE        aclrtMallocPhysical of SIZE bytes on device 0: the handle
    export_shareable HANDLE FLAGS   aclrtMemExportToShareableHandle: the shareable handle
    import_shareable VALUE DEVICE   aclrtMemImportFromShareableHandle: the handle
    reserve SIZE                aclrtReserveMemAddress: the address
    map PTR SIZE HANDLE         aclrtMapMem
    unmap PTR                   aclrtUnmapMem
    free_physical HANDLE        aclrtFreePhysical
    release PTR                 aclrtReleaseMemAddress
    used                        aclrtGetMemInfo(ACL_HBM_MEM): the device bytes in use (total - free)
    error                       aclGetRecentErrMsg (the value is the message, spaces kept)
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

P = ctypes.c_void_p
# acl_rt.h's aclrtMemcpyKind and aclrtMemAttr values (runtime/include/acl/acl_rt.h), without importing the repository.
D2H, H2D = 2, 1
ACL_HBM_MEM = 1


class IpcEventHandle(ctypes.Structure):  # acl_rt.h's aclrtIpcEventHandle
    _fields_ = [("reserved", ctypes.c_char * 64)]


class PhysicalMemProp(ctypes.Structure):  # acl_rt.h's aclrtPhysicalMemProp
    _fields_ = [("handleType", ctypes.c_int), ("allocationType", ctypes.c_int), ("memAttr", ctypes.c_int),
                ("location_id", ctypes.c_uint32), ("location_type", ctypes.c_int), ("reserve", ctypes.c_uint64)]


DEVICE_MEMORY = PhysicalMemProp(0, 0, 0, 0, 1, 0)  # device 0 (ACL_MEM_LOCATION_TYPE_DEVICE)


def main() -> None:
    acl = ctypes.CDLL(str(Path(sys.argv[1]) / "libascendcl.so"))
    acl.aclGetRecentErrMsg.restype = ctypes.c_char_p
    assert acl.aclrtSetDevice(0) == 0
    stream = P()
    print(os.getpid(), flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        value: object = "-"
        if command == "import":
            ptr = P()
            status = acl.aclrtIpcMemImportByKey(ctypes.byref(ptr), args[0].encode(), ctypes.c_uint64(int(args[1])))
            value = ptr.value or 0
        elif command == "read":
            n = int(args[1])
            host = ctypes.create_string_buffer(n)
            status = acl.aclrtMemcpy(host, ctypes.c_size_t(n), P(int(args[0])), ctypes.c_size_t(n), D2H)
            value = host.raw.hex()
        elif command == "write":
            data = bytes.fromhex(args[1])
            status = acl.aclrtMemcpy(P(int(args[0])), ctypes.c_size_t(len(data)), data, ctypes.c_size_t(len(data)), H2D)
        elif command == "close":
            status = acl.aclrtIpcMemClose(args[0].encode())
        elif command == "free":
            status = acl.aclrtFree(P(int(args[0])))
        elif command == "open_event":
            event = P()
            status = acl.aclrtIpcOpenEventHandle(IpcEventHandle(bytes.fromhex(args[0])), ctypes.byref(event))
            value = event.value or 0
        elif command == "query":
            recorded = ctypes.c_int(-1)
            status = acl.aclrtQueryEventStatus(P(int(args[0])), ctypes.byref(recorded))
            value = 0 if recorded.value == 1 else 1  # ACL_EVENT_RECORDED_STATUS_COMPLETE is 1
        elif command == "sync_event":
            status = acl.aclrtSynchronizeEvent(P(int(args[0])))
        elif command in ("record", "wait_read"):
            if not stream.value:
                assert acl.aclrtCreateStream(ctypes.byref(stream)) == 0
            if command == "record":
                status = acl.aclrtRecordEvent(P(int(args[0])), stream)
            else:
                n = int(args[2])
                host = ctypes.create_string_buffer(n)
                status = (acl.aclrtStreamWaitEvent(stream, P(int(args[0])))
                          or acl.aclrtMemcpyAsync(host, ctypes.c_size_t(n), P(int(args[1])), ctypes.c_size_t(n), D2H, stream)
                          or acl.aclrtSynchronizeStream(stream))
                value = host.raw.hex()
        elif command == "elapsed":
            ms = ctypes.c_float()
            status = acl.aclrtEventElapsedTime(ctypes.byref(ms), P(int(args[0])), P(int(args[0])))
        elif command == "malloc_physical":
            handle = P()
            status = acl.aclrtMallocPhysical(ctypes.byref(handle), ctypes.c_size_t(int(args[0])), ctypes.byref(DEVICE_MEMORY),
                                             ctypes.c_uint64(0))
            value = handle.value or 0
        elif command == "export_shareable":
            shareable = ctypes.c_uint64()
            status = acl.aclrtMemExportToShareableHandle(P(int(args[0])), 0, ctypes.c_uint64(int(args[1])), ctypes.byref(shareable))
            value = shareable.value
        elif command == "import_shareable":
            handle = P()
            status = acl.aclrtMemImportFromShareableHandle(ctypes.c_uint64(int(args[0])), ctypes.c_int32(int(args[1])),
                                                           ctypes.byref(handle))
            value = handle.value or 0
        elif command == "reserve":
            base = P()
            status = acl.aclrtReserveMemAddress(ctypes.byref(base), ctypes.c_size_t(int(args[0])), ctypes.c_size_t(0), None,
                                                ctypes.c_uint64(0))
            value = base.value or 0
        elif command == "map":
            status = acl.aclrtMapMem(P(int(args[0])), ctypes.c_size_t(int(args[1])), ctypes.c_size_t(0), P(int(args[2])),
                                     ctypes.c_uint64(0))
        elif command == "unmap":
            status = acl.aclrtUnmapMem(P(int(args[0])))
        elif command == "free_physical":
            status = acl.aclrtFreePhysical(P(int(args[0])))
        elif command == "release":
            status = acl.aclrtReleaseMemAddress(P(int(args[0])))
        elif command == "used":
            free, total = ctypes.c_size_t(), ctypes.c_size_t()
            status = acl.aclrtGetMemInfo(ACL_HBM_MEM, ctypes.byref(free), ctypes.byref(total))
            value = total.value - free.value
        elif command == "error":
            status, value = 0, (acl.aclGetRecentErrMsg() or b"").decode()
        else:
            raise SystemExit(f"ipc_peer: unknown command {command!r}")
        print(status, value, flush=True)


if __name__ == "__main__":
    main()
