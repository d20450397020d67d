"""The aclnn package's public names besides its operators, by the module that defines them: the
compiled extension (runtime/binding) and the hand-written modules (runtime/python/aclnn/). The
package's __init__.py imports them from there, the stub re-exports the hand-written ones and
declares the extension's; both list them, then the operators, in __all__."""

from __future__ import annotations

from typing import Iterable

RUNTIME_EXPORTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("aclnn._C", ("Event", "Stream", "Tensor", "call_count", "current_stream", "default_stream", "empty",
                  "empty_cache", "get_device", "memory_stats", "set_device", "sim_set_soc", "sim_stats", "stream",
                  "synchronize", "to_device")),
    ("aclnn._errors", ("AclError", "AclnnError", "AclnnRuntimeError", "BackendError", "InnerError",
                       "InvalidParamError", "NullptrError", "ParamError")),
    ("aclnn._runtime", ("BackendInfo", "apis", "backend")),
)
# The module the extension is; the others are Python, typed where they are written.
EXTENSION = "aclnn._C"


def public_names(functions: Iterable[str]) -> list[str]:
    """The package's __all__: its runtime names in order, then its operators."""
    return sorted(name for _, names in RUNTIME_EXPORTS for name in names) + list(functions)


def python_exports() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The hand-written modules and their names (what the stub re-exports)."""
    return tuple((module, names) for module, names in RUNTIME_EXPORTS if module != EXTENSION)
