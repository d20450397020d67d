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

import ast
import functools
import math
import re
from typing import Callable, Iterator, NamedTuple, Optional

from gen.ir import API, DType, ExampleArg, ExampleCall, ParamKind
from gen.parse.extractors.prototypes import find_call
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.scan import compiled, is_word_character

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlLuU]*"
_VECTOR = lazy_pattern(r"std::vector<\s*((?:unsigned\s+|signed\s+)?[\w:]+)\s*>\s+(\w+)\s*(?:=\s*)?\{([^{}]*)\}\s*;", re.S)
# `std::vector<float> selfHostData(GetShapeSize(selfShape), 1);` (aclnnRepeat), `(B * P * Q, 1)`
# (aclnnCdistBackward), `(64)` (aclnnReflectionPad3dBackward: value-initialized, zeros): a count
# times one value.
# `bool maskData[3] = {true, true, true};` (aclnnBatchNormBackward): a C array, read as a vector.
_C_ARRAY = lazy_pattern(r"\b((?:unsigned\s+)?(?:bool|float|double|int|int8_t|int16_t|int32_t|int64_t|uint8_t|uint64_t))\s+(\w+)\s*"
                      r"\[\s*\w*\s*\]\s*=\s*\{([^{}]*)\}\s*;")
# `std::vector<int64_t> resultShape = selfShape;` (aclnnSmoothL1Loss): a copy.
_COPIED = lazy_pattern(r"std::vector<\s*((?:unsigned\s+|signed\s+)?[\w:]+)\s*>\s+(\w+)\s*=\s*(\w+)\s*;")
_FILLED = lazy_pattern(r"std::vector<\s*((?:unsigned\s+|signed\s+)?[\w:]+)\s*>\s+(\w+)\s*\(([^;]*)\)\s*;")
# `int64_t B = 2;`, `float p = 2.0f;`, `int64_t qkvCount = B * T * 3 * n * d;` (aclnnTransformBiasRescaleQkv).
_VALUE = lazy_pattern(r"\b(float|double|bool|int|int8_t|int16_t|int32_t|int64_t|uint8_t|uint64_t|size_t|auto)\s+(\w+)\s*=\s*"
                    r"([^;{}\"]+);")
# `\b` before a leading `(\w+)`: the same matches (from inside a word, `\w+` ends where it would
# from the word's start, and fails the same way), without scanning each word from every letter.
# The address and the tensor are passed by `&` from main, or as the pointers a helper of the page
# was given (aclnnClampMax's PrepareInputAndOutput(..., aclTensor** self): `CreateAclTensor(selfHostData,
# selfShape, selfDeviceAddr, ACL_INT8, self)`, the helper's names being main's); a format may follow
# (aclnnAvgPool2dBackward's `&gradOutput, aclFormat::ACL_FORMAT_NCHW`), a template argument precede
# (aclnnGRU's `CreateAclTensor<float>(...)`); the dtype is an enumerator or a variable holding one
# (aclnnQuantize's `aclDataType dataType = ACL_INT32;`).
_TENSOR = lazy_pattern(r"CreateAclTensor\s*(?:<\s*[\w:]+\s*>\s*)?\(\s*(\w+)\s*,\s*(\w+)\s*,\s*&?\s*\w+\s*,\s*((?:aclDataType::)?\w+)\s*,\s*&?\s*(\w+)\s*"
                     r"(?:,\s*(?:aclFormat::)?ACL_FORMAT_\w+\s*)?\)")
# `scalar = aclCreateScalar(&value, ACL_X)`, from its "=": the variable is the word before it
# (`_assigned`). A pattern starting with that word was tried at every word of the example.
_SCALAR = lazy_pattern(r"=\s*aclCreateScalar\s*\(\s*&\s*(\w+)\s*,\s*(?:aclDataType::)?ACL_(\w+)\s*\)")
# aclnnRepeat's example wraps the call: `void aclCreateIntArrayP(const std::vector<T>& hostData,
# aclIntArray** intArray) { *intArray = aclCreateIntArray(hostData.data(), ...); }`, then
# `aclCreateIntArrayP(repeatsArray, &repeat)`.
_ARRAY_HELPER = lazy_pattern(r"\b(\w+)\s*\(\s*const\s+std::vector<\w+>\s*&\s*(\w+)\s*,\s*acl(?:Int|Float|Bool)Array\s*\*\s*\*\s*"
                           r"(\w+)\s*\)\s*\{[^{}]*?\*\s*\3\s*=\s*aclCreate(?:Int|Float|Bool)Array\s*\(\s*\2\.data\(\)")
# `aclCreateIntArray(padData.data(), padData.size())`, `(outSize.data(), 2)` (aclnnAdaptiveAvgPool2d: its
# first 2 values), `(&(maskData[0]), 3)` (aclnnBatchNormBackward), `(outputMask, 3)` of a C array
# (aclnnConvolutionBackward), `(&indexVal, 1)` of one variable (aclnnIndexFillTensor).
_INT_ARRAY = lazy_pattern(r"=\s*aclCreate(?:Int|Float|Bool)Array\s*\(\s*(?:(\w+)\.data\(\)|&\s*\(?\s*(\w+)\s*\[\s*0\s*\]\s*\)?|&?\s*(\w+))"
                        r"\s*,\s*(\w+\.size\(\)|[^(),;]+)\)")

# `x = nullptr;` or `x = <anything else>` (`*x = ...` too), from the "=" (`_assigned`: `==`, `!=`,
# `<=` have no word before their "="); `&x` (given to a helper that makes it).
_ASSIGNMENT = lazy_pattern(r"=(?!=)\s*((?:nullptr|NULL)\s*;)?")
_ADDRESSED = lazy_pattern(r"&\s*(\w+)")
# aclnnForeachAbs's `std::vector<aclTensor*> tempInput{input1, input2};` and
# `tensorListInput = aclCreateTensorList(tempInput.data(), tempInput.size());`; aclnnForeachAddScalarList's
# `std::vector<aclScalar*> tempscalar{alpha1, alpha2};` made into aclCreateScalarList likewise.
_POINTER_VECTOR = lazy_pattern(r"std::vector<\s*(?:const\s+)?acl(?:Tensor|Scalar)\s*\*\s*>\s+(\w+)\s*(?:=\s*)?\{([^{}]*)\}\s*;")
_LIST = lazy_pattern(r"=\s*aclCreate(?:Tensor|Scalar)List\s*\(\s*(\w+)\.data\(\)\s*,\s*\1\.size\(\)\s*\)")
# `char* reduction = "mean";`, `const char *roundMode = "round";`, `char approximate[] = "tanh";`
# (a string without escapes: what a mode or a layout is).
_TEXT = lazy_pattern(r'\bchar\s*\*?\s*(\w+)\s*(?:\[\s*\]\s*)?=\s*"([^"\\\n]*)"\s*;')
_STRING_LITERAL = lazy_pattern(r'"([^"\\\n]*)"')
_ENUMERATOR = lazy_pattern(r"(?:aclDataType::)?ACL_(\w+)")
_DTYPE_VALUE = lazy_pattern(r"\b(?:aclDataType|auto)\s+(\w+)\s*=\s*((?:aclDataType::)?ACL_\w+)\s*;")


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


Number = float | int  # an int where C computes in integers (7 / 2 is 3 there)

# A C literal's suffix (1.0f, 5L, 2u; a hexadecimal one keeps its digits: 0x3C0F), which Python's
# literals lack.
_SUFFIXED = lazy_pattern(r"\b(0[xX][0-9a-fA-F]+)[lLuU]*\b|((?<![\w.])(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fFlLuU]+\b")
# `static_cast<int64_t>(size)` (aclnnArange's output size), read as Python's int( or float(.
_CAST = lazy_pattern(r"\bstatic_cast\s*<\s*((?:unsigned\s+)?\w+)\s*>\s*\(")
_INTEGER_TYPES = frozenset({"int", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
                            "size_t", "long", "short", "unsigned", "unsigned int", "unsigned long"})
_FUNCTIONS: dict[str, Callable[[Number], Number]] = {"int": int, "float": float, "ceil": math.ceil, "floor": math.floor}
_CALLED = lazy_pattern(r"(\w+)\s*\(")
_READ_FUNCTIONS = frozenset({"GetShapeSize", "size", "ceil", "floor"})
_CONSTANTS: dict[str, Number] = {"true": 1, "false": 0, "NAN": math.nan, "INFINITY": math.inf}


def evaluate(expression: str, values: dict[str, Optional[Number]],
             vectors: dict[str, Optional[tuple[Number, ...]]]) -> Optional[Number]:
    """The value of a C constant expression of an example: literals, the variables and vectors it
    has defined so far, + - * / %, GetShapeSize(shape) and v.size(); None for anything else (a
    function's result, a loop's): what is not computed exactly is not read."""
    expression = expression.strip()
    if expression.isascii() and expression.isdigit():  # the common cases, without a parse: `8`, `batchSize`
        return int(expression)
    if expression in values:
        return values[expression]
    if "(" in expression and any(f not in _READ_FUNCTIONS for f in _CALLED.findall(expression)):
        return None  # `aclnnFooGetWorkspaceSize(...)`, `rand()`: computed by the program, not here
    python = _CAST.sub(lambda m: "int(" if m.group(1) in _INTEGER_TYPES else "float(",
                       _SUFFIXED.sub(lambda m: m.group(1) or m.group(2), expression.strip()))
    try:
        tree = ast.parse(python, mode="eval")
    except (SyntaxError, ValueError):
        return None
    return _evaluated(tree.body, values, vectors)


def _evaluated(node: ast.AST, values: dict[str, Optional[Number]],
               vectors: dict[str, Optional[tuple[Number, ...]]]) -> Optional[Number]:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        return values.get(node.id) if node.id in values else _CONSTANTS.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _evaluated(node.operand, values, vectors)
        return None if operand is None else (-operand if isinstance(node.op, ast.USub) else operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Mod)):
        left, right = _evaluated(node.left, values, vectors), _evaluated(node.right, values, vectors)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if right == 0:
            return None
        if isinstance(left, int) and isinstance(right, int):  # C's integer division truncates toward 0
            quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
            return quotient if isinstance(node.op, ast.Div) else left - quotient * right
        return left / right if isinstance(node.op, ast.Div) else math.fmod(left, right)
    if isinstance(node, ast.Call) and len(node.args) <= 1 and not node.keywords:
        if isinstance(node.func, ast.Name) and node.func.id == "GetShapeSize" and node.args \
                and isinstance(node.args[0], ast.Name):
            dims = vectors.get(node.args[0].id)
            return None if dims is None else math.prod(int(d) for d in dims)
        if isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and node.args:
            argument = _evaluated(node.args[0], values, vectors)
            return None if argument is None or not math.isfinite(argument) else _FUNCTIONS[node.func.id](argument)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args \
                and isinstance(node.func.value, ast.Name):
            vector = vectors.get(node.func.value.id)
            return None if vector is None else len(vector)
    return None


def _numbers(body: str, values: dict[str, Optional[Number]],
             vectors: dict[str, Optional[tuple[Number, ...]]]) -> Optional[tuple[Number, ...]]:
    items = [item for item in (i.strip() for i in body.split(",")) if item]
    # A literal is read directly (host data runs to thousands of them); anything else is evaluated.
    numbers = tuple(v if (v := _number(item)) is not None else evaluate(item, values, vectors) for item in items)
    return None if any(v is None for v in numbers) else numbers  # type: ignore[return-value]


def _filled(arguments: str, values: dict[str, Optional[Number]],
            vectors: dict[str, Optional[tuple[Number, ...]]]) -> Optional[tuple[Number, ...]]:
    """The data of `std::vector<T> v(count, value)` (or `(count)`: value-initialized, zeros)."""
    parts = split_arguments("(" + arguments + ")", 0)
    if parts and len(parts) == 1 and parts[0].startswith("{") and parts[0].endswith("}"):
        return _numbers(parts[0][1:-1], values, vectors)  # `outHostData({0.0, 0.0})`: a braced list
    if not parts or len(parts) > 2:
        return None
    count = evaluate(parts[0], values, vectors)
    value = evaluate(parts[1], values, vectors) if len(parts) == 2 else 0
    if not isinstance(count, int) or not 0 <= count <= _MOST_FILLED or value is None:
        return None
    return (value,) * count


# The largest filled vector read (the flash-attention examples hold 32768 ones): beyond it, an example's
# data is not one a demo prints nor a test repeats.
_MOST_FILLED = 1024

# A string literal (to its closing quote, its line's end or the code's end; a backslash escapes
# any character), a // comment, or a /* */ comment (to its end or the code's end).
_COMMENT_OR_STRING = lazy_pattern(r'"(?:\\[\s\S]|[^"\\\n])*(?:"|\n|\\?\Z)|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')


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
    vectors: dict[str, Optional[tuple[Number, ...]]]
    values: dict[str, Optional[Number]]
    tensors: dict[str, tuple[str, str, str]]  # tensor -> (host data, shape, dtype enumerator or variable)
    scalars: dict[str, tuple[str, str]]  # scalar -> (value variable, dtype enumerator without ACL_)
    arrays: dict[str, tuple[str, str]]  # array -> (the vector it is made of, how many of its values)
    dtypes: dict[str, str]  # aclDataType variable -> its enumerator
    lists: dict[str, tuple[str, ...]]  # tensor or scalar list -> its tensors or scalars
    texts: dict[str, str]  # char* or char[] variable -> its string


@functools.lru_cache(maxsize=4)
def _facts(code: str) -> _Facts:
    source = strip_comments(code)
    # Definitions in the order the program makes them, each evaluated with those before it (a name
    # defined twice, in a helper and in main, has its last value: the reader has no scopes).
    definitions = sorted([(m.start(), "vector", m) for m in _VECTOR.finditer(source)]
                         + [(m.start(), "filled", m) for m in _FILLED.finditer(source)]
                         + [(m.start(), "copied", m) for m in _COPIED.finditer(source)]
                         + [(m.start(), "vector", m) for m in _C_ARRAY.finditer(source)]
                         + [(m.start(), "value", m) for m in _VALUE.finditer(source)], key=lambda d: d[0])
    vectors: dict[str, Optional[tuple[Number, ...]]] = {}
    values: dict[str, Optional[Number]] = {}
    for _, kind, found in definitions:
        if kind == "value":
            _, name, expression = found.groups()
            values[name] = evaluate(expression, values, vectors)
            continue
        _, name, body = found.groups()
        vectors[name] = (_numbers(body, values, vectors) if kind == "vector" else vectors.get(body) if kind == "copied"
                         else _filled(body, values, vectors))
    tensors = {tensor: (host, shape, acl) for host, shape, acl, tensor in _TENSOR.findall(source)}
    scalars = {scalar: (value, acl) for scalar, (value, acl) in _assigned(_SCALAR, source)} \
        if "aclCreateScalar" in source else {}
    arrays = {array: (data or first or bare, count) for array, (data, first, bare, count) in _assigned(_INT_ARRAY, source)} \
        if "Array" in source else {}
    for helper, _, _ in _ARRAY_HELPER.findall(source) if "Array(" in source else ():
        # `helper(vector, &array)`: a page's own helper that fills an array.
        for vector, array in compiled(rf"\b{re.escape(helper)}\s*\(\s*(\w+)\s*,\s*&?\s*(\w+)\s*\)").findall(source):
            arrays.setdefault(array, (vector, vector + ".size()"))
    dtypes = dict(_DTYPE_VALUE.findall(source)) if "ACL_" in source else {}
    lists = {}
    if "List(" in source:
        members = {name: tuple(m.strip() for m in body.split(",") if m.strip())
                   for name, body in _POINTER_VECTOR.findall(source)}
        lists = {made: members[vector] for made, (vector,) in _assigned(_LIST, source) if vector in members}
    texts = dict(_TEXT.findall(source)) if "char" in source else {}
    return _Facts(source, vectors, values, tensors, scalars, arrays, dtypes, lists, texts)


def _written(source: str, vector: str) -> bool:
    """Whether the program (up to the call, `source`) changes a vector after making it
    (aclnnReflectionPad3dBackward's `gradOutputHostData[i] = 1;` in a loop, aclnnMaxPool2dWithMaskBackward's
    `std::fill_n(indicesHostData.begin(), 32, -1)`): its declaration is not its data then."""
    at = source.find(vector)
    while at >= 0:
        end = at + len(vector)
        whole = (not at or not is_word_character(source[at - 1])) and (end == len(source) or not is_word_character(source[end]))
        if whole and (_WRITE_AFTER.match(source, end) or _WRITE_BEFORE.search(source, max(0, at - 24), at)):
            return True
        at = source.find(vector, end)
    return False


# What follows a vector's name where the program writes it: `[i] = ` (not a C array's `[3] = {`),
# `[i]++`, `.push_back(`,
# `.begin()` (for std::fill, std::iota, ...); what precedes it: `++`, a memcpy into its data().
_WRITE_AFTER = lazy_pattern(r"\s*(?:\[[^\]]*\]\s*(?:[-+*/%&|^]?=(?!=)(?!\s*\{)|\+\+|--)|\.\s*(?:begin|end|rbegin|push_back|emplace_back|"
                          r"assign|resize|insert|erase|clear|swap|at)\b)")
_WRITE_BEFORE = lazy_pattern(r"(?:\+\+|--|(?:memcpy|aclrtMemcpy|memset)\s*\(\s*)\s*$")


def _array_data(facts: _Facts, current: Callable[[str], Optional[tuple[Number, ...]]], vector: str,
                count: str) -> Optional[tuple[Number, ...]]:
    """The values an aclCreate*Array takes from a vector: its first `count`."""
    data = current(vector)
    if data is None and facts.values.get(vector) is not None:
        data = (facts.values[vector],)  # type: ignore[assignment]  # `&indexVal`: one value
    if data is None:
        return None
    size = evaluate(count, facts.values, facts.vectors)
    return data[:size] if isinstance(size, int) and 0 <= size <= len(data) else None


def _never_made(facts: _Facts, name: str) -> bool:
    """Whether `name` is a pointer the example declares nullptr and never makes (aclnnCrossEntropyLoss's
    `aclTensor* weight = nullptr;`, passed as it is): it passes NULL. A pointer given to a helper
    by address (`&self`) or assigned anything is made somewhere."""
    if name in facts.tensors or name in facts.scalars or name in facts.arrays or name not in facts.source:
        return False
    declared_null, made = _pointers(facts.source)
    return name in declared_null and name not in made


@functools.lru_cache(maxsize=4)
def _pointers(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The variables set to nullptr (or NULL), and those whose address is taken or that are assigned
    anything else (asked only of a call's untraced pointers: a pass over every "=" of the example)."""
    assignments = list(_assigned(_ASSIGNMENT, source))
    declared_null = frozenset(name for name, (null,) in assignments if null)
    made = frozenset(_ADDRESSED.findall(source)) | frozenset(name for name, (null,) in assignments if not null)
    return declared_null, made


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


def _shape(dims: Optional[tuple[Number, ...]]) -> Optional[tuple[int, ...]]:
    if dims is None or not all(math.isfinite(d) and d == int(d) and d >= 0 for d in dims):
        return None  # a shape of NAN, 1e400 or -1 is no shape
    return tuple(int(d) for d in dims)


def example_tensor_shapes(code: str, api: API) -> dict[str, tuple[int, ...]]:
    """The shapes the example's call of `api` gives its tensors, data traced or not (aclnnMaxPool2dWithMaskBackward's
    indices, whose host data `std::fill_n` writes, has the shape indicesShape = {1, 1, 4, 64})."""
    facts = _facts(code)
    opening = find_call(facts.source, api.workspace_fn)
    args = split_arguments(facts.source, opening) if opening >= 0 else None
    if args is None or len(args) < len(api.params):
        return {}
    before = facts.source[:opening]
    shapes = {}
    for param, arg in zip(api.params, args):
        name = arg.strip().lstrip("&")
        if param.kind is ParamKind.TENSOR and name in facts.tensors:
            vector = facts.tensors[name][1]
            dims = _shape(None if _written(before, vector) else facts.vectors.get(vector))
            if dims is not None:
                shapes[param.name] = dims
    return shapes


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
    values, tensors, scalars, arrays = facts.values, facts.tensors, facts.scalars, facts.arrays
    before = source[:opening]

    def current(vector: str) -> Optional[tuple[Number, ...]]:
        """A vector's data as the call finds them: one the program changes before it is not read."""
        data = facts.vectors.get(vector)
        return None if data is None or _written(before, vector) else data

    def tensor(param: str, name: str) -> Optional[ExampleArg]:
        if name not in tensors:
            return None
        host, shape, dtype_text = tensors[name]
        named = _ENUMERATOR.fullmatch(facts.dtypes.get(dtype_text, dtype_text))
        if named is None:
            return None
        acl = named.group(1)
        data, dims = current(host), _shape(current(shape))
        if data is None or dims is None:
            return None
        return ExampleArg(param, _dtype(acl), dims, tuple(float(v) for v in data))

    def scalar(param: str, name: str) -> Optional[ExampleArg]:
        if name not in scalars:
            return None
        value_name, acl = scalars[name]
        value = values.get(value_name)
        return None if value is None else ExampleArg(param, _dtype(acl), None, (float(value),))

    traced = []
    for param, arg in zip(api.params, args):
        arg = arg.strip().lstrip("&")
        recovered = None
        if param.kind is ParamKind.TENSOR:
            recovered = tensor(param.name, arg)
        elif param.kind in (ParamKind.TENSOR_LIST, ParamKind.SCALAR_LIST) and arg in facts.lists:
            member_of = tensor if param.kind is ParamKind.TENSOR_LIST else scalar
            members = [member_of(param.name, member) for member in facts.lists[arg]]
            if members and all(m is not None for m in members):
                recovered = ExampleArg(param.name, members=tuple(members))  # type: ignore[arg-type]
        elif param.kind is ParamKind.SCALAR:
            recovered = scalar(param.name, arg)
        elif param.kind in (ParamKind.INT_ARRAY, ParamKind.FLOAT_ARRAY, ParamKind.BOOL_ARRAY) and arg in arrays:
            data = _array_data(facts, current, *arrays[arg])
            if data is not None:
                recovered = ExampleArg(param.name, None, None, tuple(float(v) for v in data))
        elif param.kind in (ParamKind.BOOL, ParamKind.INT, ParamKind.FLOAT):
            value = values.get(arg) if arg in values else evaluate(arg, values, facts.vectors)
            if value is not None:
                recovered = ExampleArg(param.name, None, None, (float(value),))
        elif param.kind is ParamKind.STRING:
            literal = _STRING_LITERAL.fullmatch(arg)
            text = literal.group(1) if literal else facts.texts.get(arg)
            if text is not None:
                recovered = ExampleArg(param.name, text=text)
        elif param.kind is ParamKind.DTYPE:
            # aclnnCast's `aclDataType::ACL_DOUBLE`, aclnnCumsum's `dtype` (`aclDataType dtype = ACL_FLOAT;`).
            named = _ENUMERATOR.fullmatch(facts.dtypes.get(arg, arg))
            dtype = _dtype(named.group(1)) if named else None
            if dtype is not None:
                recovered = ExampleArg(param.name, dtype, None, ())
        if recovered is not None:
            traced.append(recovered)
    nulls = tuple(param.name for param, arg in zip(api.params, args)
                  if arg.strip() in ("nullptr", "NULL") or (param.kind is not None and param.kind.is_pointer
                                                           and _never_made(facts, arg.strip())))
    return ExampleCall(args=tuple(traced), line=line, null_params=nulls) if traced else None
