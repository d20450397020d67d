"""The exceptions of aclnn: one class per family of status codes.

    AclnnError                  any status a library call returned (.status, .status_name, .api, .phase)
    ├── ParamError              1610xx: the arguments (phase 1's checks)
    │   ├── NullptrError        161001 ACLNN_ERR_PARAM_NULLPTR
    │   └── InvalidParamError   161002 ACLNN_ERR_PARAM_INVALID
    ├── AclnnRuntimeError       361xxx: the runtime under the op, and any failure of queued work on the
    │                           device, raised by the next synchronisation (also a RuntimeError)
    ├── InnerError              561xxx: inside the op library
    └── AclError                an aclError of the runtime API (aclInit, aclrtMalloc, aclrtSetDevice, ...)
    BackendError                no backend could be loaded, or it lacks a symbol (not a status)

Status names come from the one table the extension is built with (aclnn._C.STATUS_NAMES, from
the names in runtime/include/aclnn_bindgen/abi_values.h and the values of the ABI headers).
"""

from __future__ import annotations


class BackendError(RuntimeError):
    """The CANN or simulator libraries could not be loaded, or lack a symbol an API needs."""


# The phase of a failure of queued work, reported by a later synchronisation.
DEVICE = "device"


class AclnnError(Exception):
    """A status returned by a library call.

    Attributes: status (int), status_name (e.g. "ACLNN_ERR_PARAM_INVALID"), api (e.g.
    "aclnnLeakyReluBackward", "" outside an op), phase ("GetWorkspaceSize", "execute",
    "aclrtMalloc", ..., or "device" for queued work that failed), message (the library's
    aclGetRecentErrMsg) and call (phase "device": the failing call's sequence number, the
    value aclnn.call_count() had right after it was made; None when unknown).
    """

    def __init__(self, status: int, api: str = "", phase: str = "", message: str = "", call: int | None = None) -> None:
        self.status = int(status)
        self.status_name = status_name(self.status)
        self.api = api
        self.phase = phase
        self.message = message
        self.call = call
        if phase == DEVICE:
            who = f"{api or 'a kernel'}" + (f" (call #{call})" if call is not None else "")
            text = f"{who} failed on the device with {self.status} ({self.status_name})"
        else:
            where = f"{api} {phase}" if api else phase
            text = f"{where} returned {self.status} ({self.status_name})"
        super().__init__(f"{text}: {message}" if message else text)

    def __reduce__(self):
        return (type(self), (self.status, self.api, self.phase, self.message, self.call))


class ParamError(AclnnError):
    """1610xx: the library rejected the arguments."""


class NullptrError(ParamError):
    """161001 ACLNN_ERR_PARAM_NULLPTR: a required argument was NULL (None)."""


class InvalidParamError(ParamError):
    """161002 ACLNN_ERR_PARAM_INVALID: a dtype, shape, rank, format or value the page does not allow."""


class AclnnRuntimeError(AclnnError, RuntimeError):
    """361xxx ACLNN_ERR_RUNTIME_ERROR: the runtime under the op failed; or queued work failed on the
    device (phase "device", any status), raised by the next synchronisation."""


class InnerError(AclnnError):
    """561xxx ACLNN_ERR_INNER_*: the op library failed inside (a missing kernel, tiling, ...)."""


class AclError(AclnnError):
    """An aclError of the runtime API (aclInit, aclrtSetDevice, aclrtMalloc, ...)."""


_EXACT = {"ACLNN_ERR_PARAM_NULLPTR": NullptrError, "ACLNN_ERR_PARAM_INVALID": InvalidParamError}
# A family is the statuses of one thousand (CANN's 161xxx, 361xxx, 561xxx), named by one of them.
_FAMILIES = {"ACLNN_ERR_PARAM_NULLPTR": ParamError, "ACLNN_ERR_RUNTIME_ERROR": AclnnRuntimeError,
             "ACLNN_ERR_INNER": InnerError}


def error_class(status: int, phase: str = "") -> type[AclnnError]:
    """The exception class of a status (of work that failed on the device, for phase "device");
    the values are the extension's table's (on the error path only: no need to keep them)."""
    if phase == DEVICE:
        return AclnnRuntimeError
    from aclnn._C import STATUS_NAMES

    value = {name: code for code, name in STATUS_NAMES.items()}
    exact = {value[name]: cls for name, cls in _EXACT.items()}
    families = {value[name] // 1000: cls for name, cls in _FAMILIES.items()}
    return exact.get(status) or families.get(status // 1000, AclError)


def status_name(status: int) -> str:
    """The ACLNN_*/ACL_* name of a status, or "UNKNOWN_STATUS"."""
    from aclnn._C import STATUS_NAMES

    return STATUS_NAMES.get(int(status), "UNKNOWN_STATUS")


def _from_status(status: int, api: str, phase: str, message: str, call: int = -1) -> AclnnError:
    """Called by the extension to turn a failed call into the exception it raises."""
    return error_class(int(status), phase)(status, api, phase, message, None if call < 0 else call)
