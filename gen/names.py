"""How aclnn names translate into the names of the things we generate.

One place for every naming rule, shared by all emitters (a rule in two places drifts).
"""

from __future__ import annotations

import functools
import keyword
import re

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Acronyms the word boundaries above would split, each made one word first:
# - a dimension count, `2D`, is one word with its digit, as CANN writes it elsewhere (`AvgPool2d`,
#   `NLLLoss2d`): `GridSampler2DBackward` -> `grid_sampler2d_backward` (aten: grid_sampler_2d_backward);
_DIMENSIONS = re.compile(r"(?<=\d)D(?![a-z])")
# - an acronym with a lowercase letter inside (`IoU`, intersection over union), after another capital
#   and before a word's end: `CIoU` -> `ciou` (aten: npu_ciou), where a capital after one lowercase
#   letter would start a word (`c_io_u`); a capitalised word before an acronym (`ToINT4`, `NzV2`) is not one;
_MIXED_CASE_ACRONYM = re.compile(r"(?<![a-z])[A-Z]{2,}[a-z][A-Z](?=$|[^A-Za-z]|[A-Z][a-z])")
# - a version suffix after an acronym is a word of its own, as after any other word: `FFNV2` ->
#   `ffn_v2`, `ApplyAdamWV2` -> `apply_adam_w_v2` (CANN's header: aclnn_apply_adam_w_v2.h);
_VERSION_AFTER_ACRONYM = re.compile(r"(?<=[A-Z])(?=V\d+(?![a-z]))")
# - an acronym CANN writes as a word after its first letter (`RRelu`, aten's rrelu, CANN's header
#   aclnn_rrelu_with_noise.h), which no rule tells from a one-letter word before a word (`SWhere`,
#   `XLogY`: CANN's headers aclnn_s_where.h, aclnn_x_log_y_tensor.h), by name.
_ACRONYMS_WRITTEN_AS_WORDS = {"RRelu": "Rrelu"}


def snake_case(name: str) -> str:
    """`gradOutput` -> `grad_output`, `BatchMatMulV2` -> `batch_mat_mul_v2`, `FFNV3` -> `ffn_v3`,
    `CIoU` -> `ciou`, `GridSampler2D` -> `grid_sampler2d`, `RRelu` -> `rrelu`."""
    for acronym, word in _ACRONYMS_WRITTEN_AS_WORDS.items():
        name = name.replace(acronym, word)
    name = _DIMENSIONS.sub("d", name)
    name = _MIXED_CASE_ACRONYM.sub(lambda m: m.group(0).upper(), name)
    name = _VERSION_AFTER_ACRONYM.sub("_", name)
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
