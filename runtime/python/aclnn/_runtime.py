"""aclnn.backend(), aclnn.apis(), and the Python face of the extension's functions."""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path
from typing import Any

from aclnn import _C


class BackendInfo(str):
    """The active backend's name ("sim" or "cann"), with where its libraries were found.

    A str, so that `aclnn.backend() == "sim"` reads naturally; the attributes say the rest:
    lib_dir, libraries (the shared objects opened so far), reason (why this backend) and soc.
    """

    lib_dir: str
    libraries: tuple[str, ...]
    reason: str
    soc: str | None

    def __new__(cls, info: dict[str, Any]) -> "BackendInfo":
        self = super().__new__(cls, info["name"])
        self.lib_dir = info["lib_dir"]
        self.libraries = tuple(info["libraries"])
        self.reason = info["reason"]
        self.soc = info["soc"]
        return self

    def __repr__(self) -> str:
        return f"BackendInfo({str(self)!r}, lib_dir={self.lib_dir!r}, soc={self.soc!r}, reason={self.reason!r})"


def backend() -> BackendInfo:
    """The backend every call runs on, loaded (and initialised) on first use.

    Raises BackendError when no backend can be loaded.
    """
    _C._init()
    return BackendInfo(_C._backend())


# _apis.json, read once. A module variable rather than functools.lru_cache, which type checkers
# see as a function of any arguments (and mypy.stubtest then finds the stub inconsistent).
_RECORDS: tuple[dict[str, Any], ...] | None = None


def _records() -> tuple[dict[str, Any], ...]:
    global _RECORDS
    if _RECORDS is None:
        data = json.loads((Path(__file__).resolve().parent / "_apis.json").read_text(encoding="utf-8"))
        _RECORDS = tuple(data["apis"])
    return _RECORDS


def apis() -> list[dict[str, Any]]:
    """The IR of every bound API (gen.ir.API as a dict, plus python_name, source, simulated and
    the page's products), in API name order. Fresh dicts: changing them changes nothing."""
    return json.loads(json.dumps(_records()))


def at_exit() -> None:
    """Finalises the runtime at interpreter exit (registered by the package). A device fault that
    no synchronisation reported (a kernel queued and never waited for) would otherwise vanish with
    the process, exit status 0, as if the work had run: it is printed to stderr as the
    AclnnRuntimeError it would have raised, naming the API and the call, and the process exits with
    status 1, as after an unhandled exception. The exit handlers registered before aclnn's (which
    run after it) run first; then os._exit, the one way to set the status once the interpreter is
    finalising."""
    pending = _C._shutdown()
    if not pending:
        return
    for fault in pending:
        print(f"aclnn: a device fault was still pending at interpreter exit (no synchronisation reported it):\n"
              f"{type(fault).__module__.replace('aclnn._errors', 'aclnn')}.{type(fault).__name__}: {fault}",
              file=sys.stderr)
    atexit.unregister(at_exit)
    atexit._run_exitfuncs()  # the handlers still to run: os._exit below would skip them
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stream: nothing more to say on it
            pass
    os._exit(1)
