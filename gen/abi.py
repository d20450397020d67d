"""The ABI's values as the generator sees them: read from their one home, runtime/include.

Enumerator values and status codes are declared once, in runtime/include (acl/acl_base.h,
aclnn/acl_meta.h); the compiled code takes them from there through the preprocessor, and the
generator reads the same lines here rather than restating a number. The IR names enumerators
(`DType.enumerator`), never their values.
"""

from __future__ import annotations

import functools
import re

from gen.locations import RUNTIME_INCLUDE

# The headers that declare values (acl.h and aclnn_base.h only include these; hccl_types.h holds
# the simulated libhccl's statuses and enums).
HEADERS = ("acl/acl_base.h", "acl/acl_rt.h", "acl/acl_op_compiler.h", "aclnn/acl_meta.h", "hccl/hccl_types.h")


def _text(header: str) -> str:
    return (RUNTIME_INCLUDE / header).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def enumerators(enum: str) -> dict[str, int]:
    """The enumerators of a C enum (`typedef enum {...} aclDataType;`) and their values, in order."""
    for header in HEADERS:
        match = re.search(r"typedef enum\s*\w*\s*\{([^}]*)\}\s*" + re.escape(enum) + r"\s*;", _text(header))
        if match:
            return {name: int(value) for name, value in re.findall(r"\b(\w+)\s*=\s*(-?\d+)", match.group(1))}
    raise KeyError(f"no enum {enum} in {', '.join(HEADERS)}")


@functools.lru_cache(maxsize=1)
def status_codes() -> dict[str, int]:
    """aclnnStatus values by name (`#define ACLNN_ERR_PARAM_INVALID 161002`); aliases left out."""
    return {name: int(value) for name, value in
            re.findall(r"^#define (ACLNN_\w+) (\d+)\b", _text("aclnn/acl_meta.h"), re.M)}


def status_code(name: str) -> int:
    """One aclnnStatus value by its name (KeyError for a name acl_meta.h does not declare)."""
    return status_codes()[name]


@functools.lru_cache(maxsize=1)
def acl_errors() -> dict[str, int]:
    """aclError values of the runtime API by name (`static const int ACL_ERROR_INVALID_PARAM = 100000;`)."""
    return {name: int(value) for name, value in
            re.findall(r"^static const int (ACL_\w+) = (\d+);", _text("acl/acl_base.h"), re.M)}


@functools.lru_cache(maxsize=1)
def formats() -> dict[str, str]:
    """The aclFormat enumerators of our ABI header, by the name pages write (ND -> ACL_FORMAT_ND)."""
    found = {}
    for enumerator in enumerators("aclFormat"):
        page_name = re.sub(r"^ACL_(FORMAT_)?", "", enumerator)
        if page_name != "UNDEFINED":
            found[page_name] = enumerator
    return found
