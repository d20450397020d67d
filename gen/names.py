"""How aclnn names translate into the names of the things we generate.

One place for every naming rule, shared by all emitters (a rule in two places drifts).
"""

from __future__ import annotations

import functools
import keyword
import re

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """`gradOutput` -> `grad_output`, `BatchMatMulV2` -> `batch_mat_mul_v2`, `FFNV3` -> `ffnv3`."""
    return _WORD_BOUNDARY.sub("_", name).replace("__", "_").lower()


def op_stem(api_name: str) -> str:
    """`aclnnLeakyReluBackward` -> `LeakyReluBackward`; `aclStft` (a two-phase API CANN names acl<Op>) -> `Stft`."""
    for prefix in ("aclnn", "acl"):
        if api_name.startswith(prefix) and api_name[len(prefix):][:1].isupper():
            return api_name[len(prefix):]
    return api_name


@functools.lru_cache(maxsize=None)  # asked for every API by every emitter, several times
def python_function(api_name: str) -> str:
    """The Python function of an API: snake_case without the aclnn prefix."""
    return python_identifier(snake_case(op_stem(api_name)))


def python_identifier(name: str) -> str:
    """A page name as a Python identifier: snake_case, and not a keyword (`lambda` -> `lambda_`)."""
    snake = snake_case(name)
    return snake + "_" if keyword.iskeyword(snake) or snake in _RESERVED else snake


# Names our generated signatures use themselves.
_RESERVED = frozenset({"out"})


def header_file(api_name: str) -> str:
    """The header CANN ships for a page, named after its first API: `aclnnop/aclnn_leaky_relu_backward.h`."""
    return f"aclnnop/aclnn_{snake_case(op_stem(api_name))}.h"


def test_file(api_name: str) -> str:
    return f"test_{python_function(api_name)}.py"


def cpp_enumerator(name: str) -> str:
    """A value of one of the IR's closed sets, or a kernel family's op, role or option, as the
    enumerator of its C++ enum, Google style: `Ascend910B` (aclsim::Soc) -> `kAscend910B`,
    `floating` (DTypeCategory) -> `kFloating`, `log_softmax` -> `kLogSoftmax`; an underscore
    before a digit stays (`Ascend910_93` -> `kAscend910_93`)."""
    return "k" + re.sub(r"_([a-zA-Z])", lambda m: m.group(1).upper(), name[:1].upper() + name[1:])
