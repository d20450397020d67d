"""The words pages use for closed sets, and what each one means in the IR.

One place for every vocabulary the parser folds: dtype names and their synonyms, product names
and the chips behind them, direction words, support marks, and the header words of parameter
and error tables (Chinese and English). A word that is not here is diagnosed by the caller,
never guessed.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Optional

from gen.ir import Direction, DType, ParamKind, Soc
from gen.parse.patterns import lazy_pattern

# "当...时" opens a condition; "当前" (current: "当前版本不支持") and "当作/当做" (treat as) do not.
WHEN = r"当(?![前作做然])"

# --- dtypes ----------------------------------------------------------------------------------

# Synonyms pages use for the canonical names (keys are upper case, without DT_/ACL_ prefixes).
_DTYPE_SYNONYMS: dict[str, DType] = {
    "FLOAT32": DType.FLOAT,
    "FP32": DType.FLOAT,
    "FLOAT16": DType.FLOAT16,
    "FP16": DType.FLOAT16,
    "HALF": DType.FLOAT16,
    "BF16": DType.BFLOAT16,
    "FLOAT64": DType.DOUBLE,
    "FP64": DType.DOUBLE,
    "HIF8": DType.HIFLOAT8,
    "FLOAT8_E4M3": DType.FLOAT8_E4M3FN,
    "FP8_E4M3FN": DType.FLOAT8_E4M3FN,
    "FP8_E5M2": DType.FLOAT8_E5M2,
    "FP8_E8M0": DType.FLOAT8_E8M0,
    "FP4_E2M1": DType.FLOAT4_E2M1,
    "FP4_E1M2": DType.FLOAT4_E1M2,
    "COMPLEX": DType.COMPLEX64,
}
# The C names of the fixed-width integers, which some 数据类型 cells use ("uint8_t" for a tensor of
# UINT8 indices: aclnnApplyAdamWQuant's mRef); float, double and bool already name theirs.
_DTYPE_SYNONYMS.update({f"{sign}INT{bits}_T": DType(f"{sign}INT{bits}") for sign in ("", "U") for bits in (8, 16, 32, 64)})
_DTYPE_WORDS: dict[str, DType] = {d.value: d for d in DType}
_DTYPE_WORDS.update(_DTYPE_SYNONYMS)

# Upper-case words that look like dtypes but are something else in the cells that list dtypes.
_NOT_DTYPES = frozenset({
    "ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "NCL", "NC", "NZ", "HWCN", "FRACTAL_NZ", "FRACTAL_Z",
    "NC1HWC0", "NDC1HWC0", "C1HWNCOC0", "FRACTAL_Z_3D", "TENSOR", "ACLTENSOR", "ACLSCALAR",
    "AND", "OR", "DEVICE", "HOST", "AICORE", "AICPU", "NPU", "CPU", "GPU", "NAN", "INF", "SHAPE",
    "TRUE", "FALSE", "NULL", "NULLPTR", "ACL", "API", "DTYPE", "TYPE", "LIST", "A2", "A3",
})

# Words that name a data type family in a dtype cell rather than a dtype; never diagnosed.
_DTYPE_NOISE = lazy_pattern(r"^(?:ATLAS|ASCEND|KIRIN|PRODUCTS?|SERIES|TRAINING|INFERENCE|AND|OR|ONLY|"
                          r"SUPPORTED|SUPPORTS?|THE|OF|FOR|IS|ARE|AS|TO|IN|ON|IF|WHEN|WITH|[A-Z]\d*)$")

DTYPE_TOKEN = lazy_pattern(r"(?<![A-Za-z0-9_])(?:DT_|ACL_)?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*)(?![A-Za-z0-9_])")


def dtype_of(word: str) -> Optional[DType]:
    """The DType a single word names (FLOAT32, fp16, DT_BF16, ...), or None."""
    key = word.strip().strip("`*").upper()
    for prefix in ("DT_", "ACL_"):
        if key.startswith(prefix):
            key = key[len(prefix):]
    return _DTYPE_WORDS.get(key)


def dtype_words() -> tuple[str, ...]:
    """Every word `dtype_of` reads (without a DT_ or ACL_ prefix), longest first: what a pattern of
    dtype names alternates."""
    return tuple(sorted(_DTYPE_WORDS, key=len, reverse=True))


def looks_like_dtype(word: str) -> bool:
    """Whether an unknown word is shaped like a dtype name (upper case, digits), worth diagnosing."""
    key = word.upper()
    return (word == key and bool(re.fullmatch(r"[A-Z]+\d+[A-Z0-9_]*|[A-Z]+_[A-Z0-9_]+|Q?U?INT\d*", word))
            and key not in _NOT_DTYPES and not _DTYPE_NOISE.match(key))


def dtypes_in(text: str) -> tuple[tuple[DType, ...], tuple[str, ...]]:
    """The dtypes a dtype cell or list names, in page order without repeats, and unknown words."""
    found: list[DType] = []
    unknown: list[str] = []
    for match in DTYPE_TOKEN.finditer(text):
        word = match.group(0)
        dtype = dtype_of(word)
        if dtype is not None:
            if dtype not in found:
                found.append(dtype)
        elif looks_like_dtype(word) and word not in unknown:
            unknown.append(word)
    return tuple(found), tuple(unknown)


# --- products --------------------------------------------------------------------------------

# Ordered: the first rule whose pattern matches a product name gives its chip. "200I/500 A2"
# precedes the A2 rule; "950" and "910_95" name the same chip.
_SOC_RULES: tuple[tuple[re.Pattern[str], Soc], ...] = tuple(
    (lazy_pattern(p, re.I), soc) for p, soc in (
        (r"950|910_?95", Soc.ASCEND950),
        (r"\bA3\b|A3\s*(?:训练|推理|系列|training|inference)|/A3\b", Soc.ASCEND910_93),
        (r"200I\s*/\s*500\s*A2|Atlas\s*200I?\s*/?\s*500\s*A2|310B", Soc.ASCEND310B),
        (r"A2|910B|800I", Soc.ASCEND910B),
        (r"Kirin\s*X90", Soc.KIRIN_X90),
        (r"Kirin\s*9030", Soc.KIRIN_9030),
        (r"推理系列|inference\s+series|310P", Soc.ASCEND310P),
        (r"训练系列|training\s+series|\b910\b", Soc.ASCEND910),
    ))


# An Atlas generation the table does not know ("Atlas A5 训练/推理系列"): its 训练/推理 words
# must not map it onto the old training/inference chips.
_UNKNOWN_GENERATION = lazy_pattern(r"Atlas\s*A[4-9]\b|(?<![\w/])A[4-9]\s*(?:训练|推理|training|inference)", re.I)


@functools.lru_cache(maxsize=4096)
def soc_of(name: str) -> Optional[Soc]:
    """The chip a product row names (the first match of the mapping table), or None. Cached: pages
    name the same few dozen products again and again (50,000 asks in a 893-page tree)."""
    if _UNKNOWN_GENERATION.search(name) and not _SOC_RULES[0][0].search(name):
        return None
    for pattern, soc in _SOC_RULES:
        if pattern.search(name):
            return soc
    return None


@functools.lru_cache(maxsize=8192)  # pages and their sentences repeat: 33,000 asks, 4,400 texts in a docs tree
def socs_in(text: str) -> tuple[Soc, ...]:
    """Every chip a per-product note names, in page order (a note may name several products).

    Splits on the separators pages put between products (、 ， , and 和) but not on "/" inside
    one product's name, then maps each part.
    """
    found: list[Soc] = []
    for part in _PRODUCT_SEPARATORS.split(text):
        for piece in _split_slashes(part):
            soc = soc_of(piece)
            if soc is not None and soc not in found:
                found.append(soc)
    return tuple(found)


def chips_named(text: str) -> tuple[Soc, ...]:
    """The chips `text` names when it names nothing else ("Atlas A3 训练系列产品/Atlas A3 推理系列产品",
    "Atlas 推理系列产品、Atlas 训练系列产品"): each of its parts a product; () otherwise."""
    found: list[Soc] = []
    for part in _PRODUCT_SEPARATORS.split(text):
        for piece in _split_slashes(part):
            if not piece.strip():
                continue
            soc = soc_of(piece)
            if soc is None or not PRODUCT_WORD.search(piece):
                return ()
            if soc not in found:
                found.append(soc)
    return tuple(found)


def _split_slashes(part: str) -> Iterable[str]:
    # "Atlas A2 训练系列产品/Atlas A3 推理系列产品" names two chips; "Atlas 200I/500 A2" one.
    return _PRODUCT_SLASH.split(part)


_PRODUCT_SEPARATORS = lazy_pattern(r"[、，,；;]|\band\b|和|及")
_PRODUCT_SLASH = lazy_pattern(r"/(?=\s*(?:Atlas|Ascend|Kirin|昇腾|A\d))")


PRODUCT_WORD = lazy_pattern(r"Atlas|Ascend|Kirin|昇腾|A200I|910|310", re.I)

# --- support marks ---------------------------------------------------------------------------

_YES = {"√", "✓", "✔", "支持", "是", "yes", "y", "supported", "support", "true", "v"}
_NO = {"×", "x", "✗", "✘", "不支持", "否", "no", "n", "not supported", "unsupported", "false", "-"}


@functools.lru_cache(maxsize=1024)  # a table's marks repeat down its columns
def support_mark(text: str) -> Optional[bool]:
    """√/×/支持/不支持/Supported/... as a bool, or None when the text is not a mark."""
    key = re.sub(r"[\s。.`*]+", " ", text).strip().lower()
    if key in _YES:
        return True
    if key in _NO:
        return False
    if key.startswith(("√", "✓", "支持", "supported", "yes")):
        return True
    if key.startswith(("×", "✗", "不支持", "not supported", "no ")):
        return False
    return None


# --- directions ------------------------------------------------------------------------------

def direction_of(text: str) -> Optional[Direction]:
    """The direction a table cell or bullet says (输入/输出/输入输出/计算输入/出参/Input/Output/...)."""
    key = re.sub(r"[\s`*]+", "", text).lower()
    if not key or key in ("-", "属性", "attribute", "attr"):
        return Direction.IN if key in ("属性", "attribute", "attr") else None
    has_in = bool(re.search(r"输入|入参|input|\bin\b|^in", key))
    has_out = bool(re.search(r"输出|出参|output|out", key))
    if has_in and has_out:
        return Direction.INOUT
    if has_out:
        return Direction.OUT
    if has_in or "属性" in key or "attr" in key:
        return Direction.IN
    return None


# --- C types ---------------------------------------------------------------------------------

_KIND_BY_BASE: dict[str, ParamKind] = {
    "aclTensor": ParamKind.TENSOR,
    "aclScalar": ParamKind.SCALAR,
    "aclIntArray": ParamKind.INT_ARRAY,
    "aclFloatArray": ParamKind.FLOAT_ARRAY,
    "aclBoolArray": ParamKind.BOOL_ARRAY,
    "aclTensorList": ParamKind.TENSOR_LIST,
    "aclScalarList": ParamKind.SCALAR_LIST,
    "bool": ParamKind.BOOL,
    "char": ParamKind.STRING,
    "aclDataType": ParamKind.DTYPE,
    "double": ParamKind.FLOAT,
    "float": ParamKind.FLOAT,
}
_INT_TYPES = lazy_pattern(r"^(?:u?int(?:8|16|32|64)?_t|int|long|long long|unsigned(?: int| long)?|size_t|"
                        r"short|unsigned short|int64|int32)$")


def kind_of(c_type: str) -> Optional[ParamKind]:
    """The ParamKind of a normalised C type ("const aclTensor*", "int64_t", ...), or None."""
    base = re.sub(r"\bconst\b|\*|&", " ", c_type).split()
    stars = c_type.count("*")
    if not base:
        return None
    name = " ".join(base)
    if name == "char":
        return ParamKind.STRING if stars == 1 else None
    kind = _KIND_BY_BASE.get(name)
    if kind is not None:
        pointer_kind = kind not in (ParamKind.BOOL, ParamKind.DTYPE, ParamKind.FLOAT)
        if pointer_kind and stars == 1:
            return kind
        if not pointer_kind and stars == 0:
            return kind
        return None
    if stars == 0 and _INT_TYPES.match(name):
        return ParamKind.INT
    return None


# Kinds whose table row must list dtypes for the row to count as matched (coverage).
DTYPED_KINDS = frozenset({ParamKind.TENSOR, ParamKind.SCALAR, ParamKind.TENSOR_LIST, ParamKind.SCALAR_LIST,
                          ParamKind.INT_ARRAY, ParamKind.FLOAT_ARRAY, ParamKind.BOOL_ARRAY})

# Parameters of GetWorkspaceSize that belong to the two-phase protocol, not to the caller's call.
PROTOCOL_PARAMS = frozenset({"workspaceSize", "executor"})

# --- table headers ---------------------------------------------------------------------------

# Column roles of parameter tables, by header words (normalised: lower case, no spaces or
# brackets). Matched in order; the first role whose pattern matches a header names its column.
PARAM_COLUMNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (role, lazy_pattern(p)) for role, p in (
        ("name", r"^(?:参数名|参数名称|参数|name|parameter|parametername|param|参数说明)$"),
        ("direction", r"^(?:输入/?输出(?:/属性)?|输入输出|input/?output(?:/attribute)?|direction|类型|io)$"),
        ("description", r"^(?:描述|说明|参数描述|description|desc)$"),
        ("usage", r"^(?:使用说明|使用约束|约束说明|注意事项|precautions?|usagenotes?|usage|notes?|constraints?)$"),
        ("dtypes", r"^(?:数据类型|datatypes?|dtypes?)$"),
        ("dtypes_formats", r"^(?:数据类型/(?:数据)?格式|数据类型和(?:数据)?格式|datatypes?/(?:data)?formats?)$"),
        ("formats", r"^(?:数据格式|格式类型|格式|dataformats?|formats?)$"),
        ("rank", r"^(?:维度(?:shape)?|维度|shape|dimension(?:shape)?|dimensions?|rank)$"),
        ("noncontiguous", r"^(?:非连续(?:的)?(?:张量)?tensor|非连续|non-?contiguoustensors?|noncontiguous)$"),
    ))

ERROR_COLUMNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (role, lazy_pattern(p)) for role, p in (
        ("name", r"^(?:返回码|返回值|错误码名称|状态码名称|return(?:code|value)?|statuscodename|errorname|name)$"),
        ("code", r"^(?:错误码|状态码值|状态码|errorcode|code|value|statuscode)$"),
        ("condition", r"^(?:描述|说明|错误描述|状态码说明|description|cause|condition)$"),
    ))


@functools.lru_cache(maxsize=1024)  # tables repeat their headers
def header_key(text: str) -> str:
    return re.sub(r"[\s（）()\[\]`*:：]", "", text).lower()


def column_role(text: str, roles: tuple[tuple[str, re.Pattern[str]], ...]) -> Optional[str]:
    key = header_key(text)
    for role, pattern in roles:
        if pattern.match(key):
            return role
    return None
