"""The call a page's C++ example makes, and the data it makes it with.

Nearly every 调用示例 follows CANN's template: host data in `std::vector<T> xHostData = {...}`,
shapes in `std::vector<int64_t> xShape = {...}`, tensors from
`CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x)`, scalars from
`aclCreateScalar(&value, aclDataType::ACL_FLOAT)`, and then
`aclnnXxxGetWorkspaceSize(x, ..., &workspaceSize, &executor)`. Recovering that call lets the
example's printed results be checked against the golden reference, and lets the demo call each op
with the page's own inputs. What does not follow the template is left out, never guessed: a
parameter whose argument cannot be traced simply has no `ExampleArg`.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator, NamedTuple, Optional

from gen.ir import API, DType, ExampleArg, ExampleCall, ParamKind
from gen.parse.extractors.prototypes import find_call
from gen.parse.readers.scan import compiled, is_word_character

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlLuU]*"
_VECTOR = re.compile(r"std::vector<\s*((?:unsigned\s+|signed\s+)?[\w:]+)\s*>\s+(\w+)\s*(?:=\s*)?\{([^{}]*)\}\s*;", re.S)
# `std::vector<float> selfHostData(GetShapeSize(selfShape), 1);` (aclnnRepeat): the shape's size
# times one value.
_FILLED = re.compile(rf"std::vector<\s*[\w:]+\s*>\s+(\w+)\s*\(\s*GetShapeSize\s*\(\s*(\w+)\s*\)\s*,\s*({_NUMBER})\s*\)\s*;")
_VALUE = re.compile(r"\b(float|double|bool|int|int8_t|int16_t|int32_t|int64_t|uint8_t|uint64_t|auto)\s+(\w+)\s*=\s*"
                    rf"(true|false|{_NUMBER})\s*;")
# `\b` before a leading `(\w+)`: the same matches (from inside a word, `\w+` ends where it would
# from the word's start, and fails the same way), without scanning each word from every letter.
_TENSOR = re.compile(r"CreateAclTensor\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*&\s*\w+\s*,\s*(?:aclDataType::)?ACL_(\w+)\s*,\s*&\s*(\w+)\s*\)")
# `scalar = aclCreateScalar(&value, ACL_X)`, from its "=": the variable is the word before it
# (`_assigned`). A pattern starting with that word was tried at every word of the example.
_SCALAR = re.compile(r"=\s*aclCreateScalar\s*\(\s*&\s*(\w+)\s*,\s*(?:aclDataType::)?ACL_(\w+)\s*\)")
# aclnnRepeat's example wraps the call: `void aclCreateIntArrayP(const std::vector<T>& hostData,
# aclIntArray** intArray) { *intArray = aclCreateIntArray(hostData.data(), ...); }`, then
# `aclCreateIntArrayP(repeatsArray, &repeat)`.
_ARRAY_HELPER = re.compile(r"\b(\w+)\s*\(\s*const\s+std::vector<\w+>\s*&\s*(\w+)\s*,\s*acl(?:Int|Float|Bool)Array\s*\*\s*\*\s*"
                           r"(\w+)\s*\)\s*\{\s*\*\s*\3\s*=\s*aclCreate(?:Int|Float|Bool)Array\s*\(\s*\2\.data\(\)")
_INT_ARRAY = re.compile(r"=\s*aclCreate(?:Int|Float|Bool)Array\s*\(\s*(\w+)\.data\(\)\s*,\s*\w+\.size\(\)\s*\)")


def _dtype(acl_name: str) -> Optional[DType]:
    """The dtype of an aclDataType enumerator the example writes without its ACL_ prefix."""
    return DType.from_enumerator("ACL_" + acl_name)


def _number(text: str) -> Optional[float]:
    text = text.strip()
    if text in ("true", "false"):
        return 1.0 if text == "true" else 0.0
    if text[:2].lower() == "0x":  # a hexadecimal integer (aclnnAddRmsNormCast's FLOAT16 bits: 0x3C00)
        try:
            return float(int(text.rstrip("lLuU"), 16))
        except ValueError:
            return None
    literal = text.rstrip("fFlLuU")
    try:
        value = float(literal)
    except ValueError:
        return None
    return value


def _numbers(body: str) -> Optional[tuple[float, ...]]:
    items = [item for item in (i.strip() for i in body.split(",")) if item]
    values = tuple(_number(item) for item in items)
    return None if any(v is None for v in values) else values  # type: ignore[return-value]


# A string literal (to its closing quote, its line's end or the code's end; a backslash escapes
# any character), a // comment, or a /* */ comment (to its end or the code's end).
_COMMENT_OR_STRING = re.compile(r'"(?:\\[\s\S]|[^"\\\n])*(?:"|\n|\\?\Z)|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')


def strip_comments(code: str) -> str:
    """C++ without // and /* */ comments (string literals are left alone: examples print them);
    a /* */ comment becomes one space. One regex pass: a loop over characters was a fifth of the
    parser's time on the corpus."""
    return _COMMENT_OR_STRING.sub(_uncommented, code)


def _uncommented(found: re.Match) -> str:
    text = found.group()
    return text if text[0] == '"' else ("" if text[1] == "/" else " ")


def split_arguments(code: str, open_paren: int) -> Optional[list[str]]:
    """The top-level comma-separated arguments of the call whose '(' is at `open_paren`."""
    depth, start = 0, open_paren + 1
    args: list[str] = []
    for i in range(open_paren, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                tail = code[start:i].strip()
                return args + [tail] if tail or args else args
        elif c == "," and depth == 1:
            args.append(code[start:i].strip())
            start = i + 1
    return None


class _Facts(NamedTuple):
    """What an example defines, by variable name (the same for every API of a page: its APIs
    share one example)."""
    source: str  # the code without comments
    vectors: dict[str, Optional[tuple[float, ...]]]
    values: dict[str, Optional[float]]
    tensors: dict[str, tuple[str, str, str]]  # tensor -> (host data, shape, dtype enumerator without ACL_)
    scalars: dict[str, tuple[str, str]]  # scalar -> (value variable, dtype enumerator without ACL_)
    arrays: dict[str, str]  # array -> the vector it is made of


@functools.lru_cache(maxsize=4)
def _facts(code: str) -> _Facts:
    source = strip_comments(code)
    vectors = {name: _numbers(body) for _, name, body in _VECTOR.findall(source)}
    values = {name: _number(value) for _, name, value in _VALUE.findall(source)}
    for name, shape, value in _FILLED.findall(source) if "GetShapeSize(" in source else ():
        dims, number = vectors.get(shape), _number(value)
        if dims is not None and number is not None and name not in vectors:
            size = 1
            for d in dims:
                size *= int(d)
            vectors[name] = (number,) * size
    tensors = {tensor: (host, shape, acl) for host, shape, acl, tensor in _TENSOR.findall(source)}
    scalars = {scalar: (value, acl) for scalar, (value, acl) in _assigned(_SCALAR, source)} \
        if "aclCreateScalar" in source else {}
    arrays = {array: vector for array, (vector,) in _assigned(_INT_ARRAY, source)} if "Array" in source else {}
    for helper, _, _ in _ARRAY_HELPER.findall(source) if "Array(" in source else ():
        # `helper(vector, &array)`: a page's own helper that fills an array.
        for vector, array in compiled(rf"\b{re.escape(helper)}\s*\(\s*(\w+)\s*,\s*&\s*(\w+)\s*\)").findall(source):
            arrays.setdefault(array, vector)
    return _Facts(source, vectors, values, tensors, scalars, arrays)


def _assigned(right_side: re.Pattern, source: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(variable, groups) of each `variable = <right_side>` in the source: `right_side` starts at
    the "=", the variable is the word before it (blanks between), as `\\b(\\w+)\\s*` before it would
    match (\\s is str.isspace as re reads it)."""
    for found in right_side.finditer(source):
        end = found.start()
        while end and source[end - 1].isspace():
            end -= 1
        start = end
        while start and is_word_character(source[start - 1]):
            start -= 1
        if start < end:
            yield source[start:end], found.groups()


def extract_example_call(code: str, api: API, line: int = 0) -> Optional[ExampleCall]:
    """The example's call of `api`'s first phase, with every argument it can trace."""
    facts = _facts(code)
    source = facts.source
    opening = find_call(source, api.workspace_fn)
    if opening < 0:
        return None
    args = split_arguments(source, opening)
    if args is None or len(args) < len(api.params):
        return None
    vectors, values, tensors, scalars, arrays = facts.vectors, facts.values, facts.tensors, facts.scalars, facts.arrays

    traced = []
    for param, arg in zip(api.params, args):
        arg = arg.strip().lstrip("&")
        recovered = None
        if param.kind is ParamKind.TENSOR and arg in tensors:
            host, shape, acl = tensors[arg]
            data, dims = vectors.get(host), vectors.get(shape)
            if data is not None and dims is not None:
                recovered = ExampleArg(param.name, _dtype(acl), tuple(int(d) for d in dims), data)
        elif param.kind is ParamKind.SCALAR and arg in scalars:
            value_name, acl = scalars[arg]
            value = values.get(value_name)
            if value is not None:
                recovered = ExampleArg(param.name, _dtype(acl), None, (value,))
        elif param.kind in (ParamKind.INT_ARRAY, ParamKind.FLOAT_ARRAY, ParamKind.BOOL_ARRAY) and arg in arrays:
            data = vectors.get(arrays[arg])
            if data is not None:
                recovered = ExampleArg(param.name, None, None, data)
        elif param.kind in (ParamKind.BOOL, ParamKind.INT, ParamKind.FLOAT):
            value = values.get(arg) if arg in values else _number(arg)
            if value is not None:
                recovered = ExampleArg(param.name, None, None, (value,))
        if recovered is not None:
            traced.append(recovered)
    nulls = tuple(param.name for param, arg in zip(api.params, args) if arg.strip() in ("nullptr", "NULL"))
    return ExampleCall(args=tuple(traced), line=line, null_params=nulls) if traced else None
