"""The IR: everything one documentation page says, typed.

The IR is the contract between the parsing stage (`gen.parse`) and the emission stage
(`gen.emit`). As in torchgen's `model.py`, the structures are immutable and populated once, at
construction; `__post_init__` checks the invariants that every consumer relies on. A violated
invariant is a bug of the parser, never of a page: the parser repairs or drops what a page gets
wrong and says so in a `Diagnostic`.

Every node carries the 1-based `line` of the page text it came from, so that diagnostics and
generated code can point back at the page. JSON round-trips exactly:
`Page.from_json(page.to_json()) == page`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
import operator
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from gen import abi, jsontext

# Bump when the JSON shape changes (a field, or an enum's values); `from_json` refuses other versions.
# 2: ErrorCategory.DTYPE_MISMATCH. 3: DType.UINT1 (every aclDataType has its DType). 4: what the
# pages state beyond one parameter's row: dtype combinations per product, value ranges (dim in
# [-rank, rank)), dimension equalities, divisibility, conditional shape rules, same-format relations,
# reserved parameters. 5: Param.reserved says how a parameter is reserved (Reserved), not only
# whether it must be NULL. 6: Extent.VALUE (a bound that is another argument's value). 7:
# API.speaks_of_broadcasting (whether the page's prose or relations speak of broadcasting). 8:
# API.inner_null_outputs (the outputs CANN's null check leaves to fail late, gen.conventions). 9:
# API.error_rows_name_formats (a row of the error table is about formats, gen.conventions). 10:
# ExampleCall.null_params (the parameters the example passes as nullptr, read with the call). 11:
# API.zero_d_addends (the addends of a fused product phase 1 takes 0-d, gen.conventions 12). 12:
# ValueSet (a value out of a list with gaps), and the chips, the condition (Condition) and the error
# status of value ranges and sets. 13: ExampleArg.members (a tensor or scalar list's members, as the
# example makes them) and ExampleArg.text (a string's). 15: ArrayLength (14), and Divisibility's chips, status,
# value condition and dtype condition (DTypeCondition: "当y的数据类型为INT4时"). 16: DimBytes (a
# dimension's least length and alignment in bytes, on the chips a sentence names: "Atlas 推理系列产品：x的尾轴长度必须
# 大于等于32 Bytes"). 17: DimBytes.axis None, the whole tensor's length in bytes ("gamma的长度必须大于等于32 Bytes").
# 18: Extent.ELEMENT and Bound.divisor ("小于等于kernelSize/2", element by element), ShapeForm.ABSENT (an
# output the caller passes as a null pointer under a condition: "如果isSymmetrical是true，offsetOut需要传nullptr").
# 19: ErrorCategory.OUTPUT_SIZE (an output the op's own arithmetic sizes below 1: "通过公式推导出的out的shape的某个轴为0"),
# ValueRange.elements (the part of an array a range bounds: "padding前两个数值需小于self最后一维度的数值").
# 20: Extent.DIMENSION (the dimension of a tensor that an array's element stands for: "kernelSize在对应的DHW维度上
# 小于等于self的大小"), Param.negative_indices (an index tensor whose values may count from the end).
# 21: Param.dtype_note_lines (the line of the note under the table that gives a product its own dtype list:
# "Atlas A2 ...：self和out不支持INT32数据类型").
# 22: ShapeForm.RANK and ShapeRule.ranks (a tensor's ranks under a host argument's value: "当quantMode =
# "dynamic"时，shape支持2-8维度"), ShapeRule.when_dtype (a shape under a dtype: "其他类型时，shape与x一致").
# 23: ErrorCase.about_attributes and ErrorCase.below_zero (what an error row's prose says, set by the parser
# so that no emitter reads it: "输入的属性不在支持的范围内", "小于0").
# 24: Param.rank_line (the error row that gives a tensor its ranks where its own row is silent: "input或out的维数大于8").
# 25: ShapeForm.PRESENT (a tensor a null-pointer row requires under a bool argument's value only: "当outputRstd为
# True时，传入rstdOut是空指针").
# 26: RelationKind.SAME_RANK (a tensor's rank equal to another's: "维度需要与self和gradInput一致").
# 27: ArrayProduct (an array's element product against a tensor's dimensions': "outputSize的两个元素乘积值需大于等于self
# 在H和W维度上的size乘积值").
# 28: PaddedShape (an output's shape as an input's widened by pairs of a padding array: "out最后一维度的数值等于self
# 最后一维度的数值加padding前两个值").
# 29: ReducedShape (an output's shape as an input's reduced along a dimension argument, kept as 1 or dropped by a
# bool: "若keepDim为true，除dim指定维度上的size为1以外，其余维度的shape需要与self保持一致").
SCHEMA_VERSION = 29


class PageKind(str, enum.Enum):
    API_PAGE = "api_page"
    OP_README = "op_readme"


class Direction(str, enum.Enum):
    IN = "in"
    OUT = "out"
    INOUT = "inout"


class ParamKind(str, enum.Enum):
    """What a GetWorkspaceSize argument is, from its C type."""

    TENSOR = "tensor"  # aclTensor*
    SCALAR = "scalar"  # aclScalar*
    INT_ARRAY = "int_array"  # aclIntArray*
    FLOAT_ARRAY = "float_array"  # aclFloatArray*
    BOOL_ARRAY = "bool_array"  # aclBoolArray*
    TENSOR_LIST = "tensor_list"  # aclTensorList*
    SCALAR_LIST = "scalar_list"  # aclScalarList*
    BOOL = "bool"
    INT = "int"  # int64_t, int32_t, int8_t, uint64_t, ...
    FLOAT = "float"  # double, float
    STRING = "string"  # char*
    DTYPE = "dtype"  # aclDataType

    @property
    def is_device_data(self) -> bool:
        """Tensors and tensor lists hold device memory; everything else lives on the host."""
        return self in (ParamKind.TENSOR, ParamKind.TENSOR_LIST)

    @property
    def is_pointer(self) -> bool:
        """Passed by pointer, so a caller can pass NULL (the 161001 family of errors)."""
        return self not in (ParamKind.BOOL, ParamKind.INT, ParamKind.FLOAT, ParamKind.DTYPE)


class _Rows(str, enum.Enum):
    """An enum whose members are rows: the value (what the pages and the JSON write) first, then
    facts that `__init__` names. Members compare, hash and serialise as their value."""

    # `*row`, not named parameters: type checkers then still accept a lookup by value, DType("FLOAT").
    def __new__(cls, *row: Any) -> "_Rows":
        member = str.__new__(cls, row[0])
        member._value_ = row[0]
        return member


class DTypeCategory(str, enum.Enum):
    """What kind of number an aclDataType holds; CANN's cast rule (互转换关系) works on it."""

    BOOL = "bool"
    UNSIGNED = "unsigned"  # UINT1, UINT8..UINT64
    SIGNED = "signed"  # INT4, INT8..INT64
    FLOATING = "floating"  # the IEEE types, BFLOAT16 and the low-precision formats (FLOAT8_*, HIFLOAT8, ...)
    COMPLEX = "complex"
    OTHER = "other"  # STRING

    @property
    def cast_rank(self) -> int:
        """A value casts to a category of equal or higher rank (PyTorch's can_cast: no complex to
        real, no floating to integral, nothing but BOOL to BOOL)."""
        return _CAST_RANKS[self]


_CAST_RANKS = {DTypeCategory.BOOL: 0, DTypeCategory.UNSIGNED: 1, DTypeCategory.SIGNED: 1,
               DTypeCategory.FLOATING: 2, DTypeCategory.COMPLEX: 3}


class DType(_Rows):
    """Data type names as the pages write them (the aclDataType without its ACL_ prefix), with the
    facts every stage and the runtime share; the generated tables (generated/include/aclnn_bindgen/
    dtypes.h, generated/aclnn/_dtypes.py) are rendered from these rows and nothing else.

    A row: the page name (the member's value); the C enumerator of acl/acl_base.h (whose value lives
    there alone); the NumPy dtype that holds it, as `numpy.<name>` or `ml_dtypes.<name>`, None when
    neither can; the element size in bytes, 0 for STRING and for types packed below a byte (INT4
    and FLOAT4_* two to a byte: the pages ask for even element counts; UINT1 eight); the category.

    Synonyms that pages also use (FLOAT32, FP16, BF16, FLOAT64, ...) are folded into these by
    the parser; see `gen.parse.extractors.vocab`.
    """

    def __init__(self, *row: Any) -> None:
        self.enumerator: str = row[1]
        self.numpy: Optional[str] = row[2]
        self.size: int = row[3]
        self.category: DTypeCategory = row[4]

    FLOAT = "FLOAT", "ACL_FLOAT", "numpy.float32", 4, DTypeCategory.FLOATING
    FLOAT16 = "FLOAT16", "ACL_FLOAT16", "numpy.float16", 2, DTypeCategory.FLOATING
    BFLOAT16 = "BFLOAT16", "ACL_BF16", "ml_dtypes.bfloat16", 2, DTypeCategory.FLOATING
    DOUBLE = "DOUBLE", "ACL_DOUBLE", "numpy.float64", 8, DTypeCategory.FLOATING
    INT8 = "INT8", "ACL_INT8", "numpy.int8", 1, DTypeCategory.SIGNED
    INT16 = "INT16", "ACL_INT16", "numpy.int16", 2, DTypeCategory.SIGNED
    INT32 = "INT32", "ACL_INT32", "numpy.int32", 4, DTypeCategory.SIGNED
    INT64 = "INT64", "ACL_INT64", "numpy.int64", 8, DTypeCategory.SIGNED
    UINT8 = "UINT8", "ACL_UINT8", "numpy.uint8", 1, DTypeCategory.UNSIGNED
    UINT16 = "UINT16", "ACL_UINT16", "numpy.uint16", 2, DTypeCategory.UNSIGNED
    UINT32 = "UINT32", "ACL_UINT32", "numpy.uint32", 4, DTypeCategory.UNSIGNED
    UINT64 = "UINT64", "ACL_UINT64", "numpy.uint64", 8, DTypeCategory.UNSIGNED
    BOOL = "BOOL", "ACL_BOOL", "numpy.bool", 1, DTypeCategory.BOOL
    STRING = "STRING", "ACL_STRING", None, 0, DTypeCategory.OTHER
    # NumPy has no complex of two halves.
    COMPLEX32 = "COMPLEX32", "ACL_COMPLEX32", None, 4, DTypeCategory.COMPLEX
    COMPLEX64 = "COMPLEX64", "ACL_COMPLEX64", "numpy.complex64", 8, DTypeCategory.COMPLEX
    COMPLEX128 = "COMPLEX128", "ACL_COMPLEX128", "numpy.complex128", 16, DTypeCategory.COMPLEX
    # Two per byte on the device; on the host ml_dtypes.int4 holds one a byte, and the bindings pack
    # and unpack (runtime/binding/arrays.cpp's pack_int4).
    INT4 = "INT4", "ACL_INT4", "ml_dtypes.int4", 0, DTypeCategory.SIGNED
    UINT1 = "UINT1", "ACL_UINT1", None, 0, DTypeCategory.UNSIGNED  # eight per byte
    # Huawei's own 8-bit float (HiF8): no NumPy or ml_dtypes type encodes it.
    HIFLOAT8 = "HIFLOAT8", "ACL_HIFLOAT8", None, 1, DTypeCategory.FLOATING
    FLOAT8_E5M2 = "FLOAT8_E5M2", "ACL_FLOAT8_E5M2", "ml_dtypes.float8_e5m2", 1, DTypeCategory.FLOATING
    FLOAT8_E4M3FN = "FLOAT8_E4M3FN", "ACL_FLOAT8_E4M3FN", "ml_dtypes.float8_e4m3fn", 1, DTypeCategory.FLOATING
    FLOAT8_E8M0 = "FLOAT8_E8M0", "ACL_FLOAT8_E8M0", "ml_dtypes.float8_e8m0fnu", 1, DTypeCategory.FLOATING
    # One element per byte: unlike FLOAT4_*, no page asks for an even element count of a FLOAT6
    # tensor. Which bits of the byte CANN uses is not documented, so no ml_dtypes type is claimed.
    FLOAT6_E3M2 = "FLOAT6_E3M2", "ACL_FLOAT6_E3M2", None, 1, DTypeCategory.FLOATING
    FLOAT6_E2M3 = "FLOAT6_E2M3", "ACL_FLOAT6_E2M3", None, 1, DTypeCategory.FLOATING
    FLOAT4_E2M1 = "FLOAT4_E2M1", "ACL_FLOAT4_E2M1", None, 0, DTypeCategory.FLOATING
    FLOAT4_E1M2 = "FLOAT4_E1M2", "ACL_FLOAT4_E1M2", None, 0, DTypeCategory.FLOATING

    @classmethod
    def from_enumerator(cls, enumerator: str) -> Optional["DType"]:
        """The dtype of an aclDataType enumerator (ACL_BF16 -> BFLOAT16), None for another name."""
        return next((d for d in cls if d.enumerator == enumerator), None)

    @property
    def is_floating(self) -> bool:
        return self.category is DTypeCategory.FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category is DTypeCategory.COMPLEX

    @property
    def is_integral(self) -> bool:
        return self.category in (DTypeCategory.SIGNED, DTypeCategory.UNSIGNED)

    @property
    def numpy_module(self) -> Optional[str]:
        """"numpy" or "ml_dtypes": where the NumPy dtype is defined."""
        return self.numpy.split(".")[0] if self.numpy else None

    @property
    def numpy_name(self) -> Optional[str]:
        """The NumPy dtype's name (`np.dtype(...).name`): float32, bfloat16, ..."""
        return self.numpy.split(".")[1] if self.numpy else None

    @property
    def promotes_with_others(self) -> bool:
        """In PyTorch's promotion lattice (BOOL, UINT8, the signed, the IEEE floating and complex
        types, BFLOAT16): promotes with every other dtype of the lattice."""
        return self in _LATTICE

    def promote(self, other: "DType") -> Optional["DType"]:
        """The dtype `self` and `other` promote to, None when they do not (CANN's 互推导关系).

        CANN documents its rule as PyTorch's torch.promote_types, so this is c10's promoteTypes
        table for every dtype PyTorch has (tests/semantics/test_dtypes.py compares each pair with torch).
        Dtypes PyTorch lacks (HIFLOAT8, FLOAT6_*, FLOAT4_*, STRING) promote only with themselves,
        as PyTorch's own low-precision formats (float8_*, int4) do: no choice among them keeps
        every value, so a mix is the caller's decision, not an implicit promotion."""
        if self is other:
            return self
        if self not in _LATTICE or other not in _LATTICE:
            # PyTorch's unsigned types other than uint8 (uint1, uint16..uint64) promote with the
            # real floating types only, the float winning.
            for unsigned, real in ((self, other), (other, self)):
                if unsigned.category is DTypeCategory.UNSIGNED and real in _LATTICE and real.is_floating:
                    return real
            return None
        if DType.BOOL in (self, other):
            return other if self is DType.BOOL else self
        if self.is_complex or other.is_complex:
            # The complex dtype of the promoted real parts (an integer's real part is itself).
            part = _REAL_PART.get(self, self).promote(_REAL_PART.get(other, other))
            return _COMPLEX_OF[part] if part else None
        if self.is_floating or other.is_floating:
            if not (self.is_floating and other.is_floating):
                return self if self.is_floating else other
            if {self, other} == {DType.FLOAT16, DType.BFLOAT16}:
                return DType.FLOAT  # neither holds the other's range and precision
            return self if self.size > other.size else other
        if self.category is other.category:
            return self if self.size > other.size else other
        # UINT8 with a signed type: the smallest signed type holding both.
        signed = self if self.category is DTypeCategory.SIGNED else other
        return signed if signed.size > 1 else DType.INT16

    def can_cast(self, target: "DType") -> bool:
        """Whether a value of this dtype may be cast to `target` (CANN's 互转换关系, PyTorch's
        torch.can_cast); STRING casts to nothing else."""
        if self is target:
            return True
        if DTypeCategory.OTHER in (self.category, target.category):
            return False
        return self.category.cast_rank <= target.category.cast_rank


# The dtypes that promote with each other: the rows and columns of c10's promoteTypes table.
_LATTICE = frozenset({
    DType.BOOL, DType.UINT8, DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.FLOAT16, DType.BFLOAT16,
    DType.FLOAT, DType.DOUBLE, DType.COMPLEX32, DType.COMPLEX64, DType.COMPLEX128})
# Each complex dtype's real part, and back.
_REAL_PART = {DType.COMPLEX32: DType.FLOAT16, DType.COMPLEX64: DType.FLOAT, DType.COMPLEX128: DType.DOUBLE}
_COMPLEX_OF = {real: complex_ for complex_, real in _REAL_PART.items()}


class ResultRule(_Rows):
    """How a kernel's result dtype follows from the dtype its inputs promote to: the semantics
    file's `integral_result = "floating"` (a true division: integral and BOOL inputs give FLOAT,
    PyTorch's default dtype), `complex_result = "real"` (|z|: a complex computation gives the real
    dtype of its precision, as aclnnAbs's tables say) and `result = "bool"` (a comparison: BOOL
    whatever the inputs). The bindings allocate outputs by it and the simulator checks out= by it,
    both from the table generated/include/aclnn_bindgen/dtypes.h renders from `result_dtype`; the
    generated suites read aclnn._dtypes' copy.

    A row: the name, then whether integral inputs give FLOAT, complex ones their real dtype,
    every input BOOL, and real ones the complex dtype of their precision (`result = "complex"`:
    a complex number made of real parts, aclnnComplex, aclnnPolar)."""

    def __init__(self, *row: Any) -> None:
        self.integral_to_float: bool = row[1]
        self.complex_to_real: bool = row[2]
        self.always_bool: bool = row[3]
        self.real_to_complex: bool = row[4]

    PROMOTED = "promoted", False, False, False, False
    FLOATING = "floating", True, False, False, False
    REAL = "real", False, True, False, False
    FLOATING_OR_REAL = "floating_or_real", True, True, False, False
    BOOL = "bool", False, False, True, False
    COMPLEX = "complex", False, False, False, True

    @classmethod
    def of(cls, integral_to_float: bool = False, complex_to_real: bool = False,
           always_bool: bool = False, real_to_complex: bool = False) -> "ResultRule":
        """The rule of a semantics table's keys; BOOL (then COMPLEX) whatever the others say."""
        if always_bool:
            return cls.BOOL
        if real_to_complex:
            return cls.COMPLEX
        return next(r for r in cls if (r.integral_to_float, r.complex_to_real, r.always_bool, r.real_to_complex)
                    == (integral_to_float, complex_to_real, False, False))

    def result_dtype(self, promoted: DType) -> DType:
        """The dtype of the kernel's result for inputs promoted to `promoted`."""
        if self.always_bool:
            return DType.BOOL
        if self.real_to_complex:
            return _COMPLEX_OF.get(promoted, promoted)
        if self.integral_to_float and (promoted.is_integral or promoted is DType.BOOL):
            return DType.FLOAT
        if self.complex_to_real:
            return _REAL_PART.get(promoted, promoted)
        return promoted


class Soc(_Rows):
    """The chips behind the pages' product rows, by the SoC names CANN itself uses (the value),
    with the product families the pages name them by.

    The simulator takes these names in `ACLNN_SIM_SOC`; generated/include/aclnn_sim/soc.h and
    generated/aclnn/_socs.py are rendered from these rows.
    """

    def __init__(self, *row: Any) -> None:
        self.products: str = row[1]
        # What aclGetDeviceCapability/aclrtGetDeviceInfo report for the chip: AI (cube) cores,
        # vector cores and L2 cache bytes of the product's datasheet; 0 where no public figure
        # is known to us, which the simulator reports as a feature it does not model.
        self.ai_cores: int = row[2]
        self.vector_cores: int = row[3]
        self.l2_bytes: int = row[4]
        # The SoC name aclrtGetSocName reports when the setting names the chip family only: a real
        # device reports its model (Ascend910B2), and frameworks choose behaviour by it (torch_npu
        # keeps FLOAT matmuls in FLOAT only from Ascend910B1 on); "" keeps the family name.
        self.model: str = row[5]
        # ACL_OP_JIT_COMPILE's default (aclGetCompileopt before anyone sets it): "enable" (operators
        # compiled online, run by type name through aclop) on the Atlas training and inference
        # series, "disable" (binary aclnn kernels) on the others; torch_npu routes plain tensors by
        # it (the evidence: runtime/sim/src/op_compiler/op_compiler.cpp).
        self.jit_compile: bool = row[6]

    ASCEND950 = "Ascend950", "Ascend 950PR/Ascend 950DT", 0, 0, 0, "", False
    ASCEND910_93 = "Ascend910_93", "Atlas A3 训练系列产品/Atlas A3 推理系列产品", 24, 48, 192 << 20, "Ascend910_9391", False
    ASCEND910B = "Ascend910B", "Atlas A2 训练系列产品/Atlas 800I A2 推理产品/...", 24, 48, 192 << 20, "Ascend910B2", False
    ASCEND910 = "Ascend910", "Atlas 训练系列产品", 32, 0, 32 << 20, "Ascend910A", True
    ASCEND310P = "Ascend310P", "Atlas 推理系列产品", 0, 0, 0, "Ascend310P3", True
    ASCEND310B = "Ascend310B", "Atlas 200I/500 A2 推理产品", 0, 0, 0, "Ascend310B1", False
    KIRIN_X90 = "KirinX90", "Kirin X90 处理器系列产品", 0, 0, 0, "", False
    KIRIN_9030 = "Kirin9030", "Kirin 9030 处理器系列产品", 0, 0, 0, "", False


# The chip the simulator stands in for unless ACLNN_SIM_SOC says otherwise (Atlas A2), and whose
# dtype list a parameter's main list is when the page gives one per product.
DEFAULT_SOC = Soc.ASCEND910B


class Reserved(str, enum.Enum):
    """How a page reserves a parameter (预留参数)."""

    NULL = "null"  # "预留参数，暂未使用，固定传入空指针", "当前版本不支持": the caller passes NULL
    UNUSED = "unused"  # "预留参数，当前版本不参与计算", "仅支持取值0.0": ignored, or a value the row states


class RelationKind(str, enum.Enum):
    """How one parameter must relate to others, as the usage notes state it."""

    SAME_SHAPE = "same_shape"  # "shape与self一致"
    BROADCAST = "broadcast"  # "shape需要与self满足broadcast关系"
    SAME_DTYPE = "same_dtype"  # "数据类型与self一致"
    PROMOTE = "promote"  # "数据类型与self满足数据类型推导规则"
    CAST_FROM = "cast_from"  # "数据类型需要是gradOutput与self推导之后可转换的数据类型"
    SAME_FORMAT = "same_format"  # "数据格式需要与self一致"
    # The rank alone ("维度需要与self和gradInput一致": a pad backward's gradOutput is wider than self, of
    # its rank; "维度数需要与updates一致"): weaker than SAME_SHAPE, which a page reading it means also keeps.
    SAME_RANK = "same_rank"


class ErrorCategory(str, enum.Enum):
    """What an error-table condition is about, so that a test can provoke it."""

    NULL_POINTER = "null_pointer"
    UNSUPPORTED_DTYPE = "unsupported_dtype"
    RANK = "rank"  # a rank above (or below) the documented bound
    SHAPE_MISMATCH = "shape_mismatch"
    DTYPE_MISMATCH = "dtype_mismatch"  # tensors that must share one dtype do not
    BROADCAST = "broadcast"
    NOT_CASTABLE = "not_castable"
    EMPTY_TENSOR = "empty_tensor"
    FORMAT = "format"
    VALUE = "value"  # a value constraint stated in prose
    UNSUPPORTED_PRODUCT = "unsupported_product"
    # A dimension of an output that the op's own arithmetic sizes (a pool's window over its input) is
    # below 1: "通过公式推导出的out的shape的某个轴为0".
    OUTPUT_SIZE = "output_size"


class Level(str, enum.Enum):
    ERROR = "error"  # the page (or part of it) cannot be used
    WARNING = "warning"  # something was guessed, repaired or lost
    INFO = "info"


def _json_name(f: dataclasses.Field) -> str:
    return f.metadata.get("json", f.name)


_JSON_FIELDS: dict[type, tuple[tuple[str, str, Optional[tuple[str, str]]], ...]] = {}


def _json_fields(cls: type) -> tuple[tuple[str, str, Optional[tuple[str, str]]], ...]:
    """(JSON name, attribute, mapping) of each field of an IR class: read once per class, not once
    per object (the IR of a docs tree has hundreds of thousands of them)."""
    found = _JSON_FIELDS.get(cls)
    if found is None:
        found = _JSON_FIELDS[cls] = tuple((_json_name(f), f.name, f.metadata.get("mapping"))
                                          for f in dataclasses.fields(cls))
    return found


def _dumps_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_dumps_value(v) for v in value]
    if isinstance(value, _Json):
        out = {}
        for name, attribute, mapping in _json_fields(type(value)):
            field_value = getattr(value, attribute)
            if mapping:
                key, val = mapping
                out[name] = {_dumps_value(getattr(e, key)): _dumps_value(getattr(e, val)) for e in field_value}
            else:
                out[name] = _dumps_value(field_value)
        return out
    return value


Loader = typing.Callable[[Any], Any]
_LOADERS: dict[Any, Loader] = {}


def _loader(hint: Any) -> Loader:
    """The function that turns the JSON value of a field typed `hint` into its IR value: worked out
    once per type, not once per value (a docs tree's IR has hundreds of thousands of values, and
    resolving a class's type hints costs more than building the object)."""
    found = _LOADERS.get(hint)
    if found is None:
        found = _LOADERS[hint] = _make_loader(hint)
    return found


def _identity(value: Any) -> Any:
    return value


def _make_loader(hint: Any) -> Loader:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        load_inner = _loader(inner)
        return lambda value: None if value is None else load_inner(value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            load_item = _loader(args[0])
            return lambda value: tuple(map(load_item, value))
        loads = tuple(_loader(a) for a in args)
        return lambda value: tuple(load(v) for load, v in zip(loads, value))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_loader(hint)
    return _identity


def _dataclass_loader(cls: type) -> Loader:
    # The fields' loaders are resolved at the first object, not here: the IR's classes refer to
    # each other (and to themselves), so resolving them eagerly would recurse.
    fields: Optional[tuple[tuple[str, str, Optional[tuple[str, str]], Loader], ...]] = None

    def load(data: Mapping[str, Any]) -> Any:
        nonlocal fields
        if fields is None:
            hints = typing.get_type_hints(cls)
            fields = tuple((json_name, attribute, mapping, _loader(hints[attribute]))
                           for json_name, attribute, mapping in _json_fields(cls))
        kwargs = {}
        for json_name, attribute, mapping, load_field in fields:
            if json_name not in data:
                continue
            value = data[json_name]
            if mapping:
                key, val = mapping
                value = [{key: k, val: v} for k, v in value.items()]
            kwargs[attribute] = load_field(value)
        return cls(**kwargs)

    return load


class _Json:
    """JSON round trip for the IR dataclasses, driven by their type hints."""

    def to_dict(self) -> dict[str, Any]:
        return _dumps_value(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        return _loader(cls)(data)


class _OnChips:
    """A rule or table row that holds on the chips of `products` only (none: on every chip)."""

    products: tuple[Soc, ...]

    def applies_to(self, soc: Soc) -> bool:
        return not self.products or soc in self.products


@dataclass(frozen=True)
class Diagnostic(_Json):
    level: Level
    line: int
    code: str  # a stable kebab-case identifier, e.g. "mojibake-repaired"
    message: str

    def format(self, source: str) -> str:
        return f"{source}:{self.line}: {self.level.value}: {self.message} [{self.code}]"


@dataclass(frozen=True)
class Product(_Json):
    name: str  # as the page writes it
    supported: bool
    soc: Optional[Soc] = None  # None when the name matches no known chip
    line: int = 0


@dataclass(frozen=True)
class Link(_Json):
    """A README's pointer at the page that documents one of its APIs."""

    api: str
    doc: str  # the link target as written, relative to the README
    line: int = 0


@dataclass(frozen=True)
class Relation(_Json):
    kind: RelationKind
    others: tuple[str, ...] = field(metadata={"json": "with"})

    def __post_init__(self) -> None:
        assert self.others, "a relation names at least one other parameter"

    def describe(self, name: str) -> str:
        """The relation of parameter `name` as `python -m gen rules` lists it ("out has the rank of self")."""
        return f"{name} has the {_RELATION_NOUNS[self.kind]} of {', '.join(self.others)}"


_RELATION_NOUNS = {RelationKind.SAME_SHAPE: "shape", RelationKind.BROADCAST: "broadcast shape",
                   RelationKind.SAME_DTYPE: "dtype", RelationKind.PROMOTE: "promoted dtype",
                   RelationKind.CAST_FROM: "dtype cast from the promoted one",
                   RelationKind.SAME_FORMAT: "format", RelationKind.SAME_RANK: "rank"}


# The most dimensions a tensor has (CANN's CHECK_MAX_DIM, aclTensor's view shape).
MAX_RANK = 8


def enforced_ranks(ranks: tuple[int, ...]) -> tuple[int, int]:
    """The bounds CANN enforces of ranks a page states: a lower bound of 1 under the general maximum
    of 8 ("支持1-8维") is not. The implementations check the maximum alone (CHECK_MAX_DIM) and accept
    0-d tensors; pages that need dimensions say "2-8", "4" or "3-4"."""
    lo, hi = ranks
    return (0, hi) if lo == 1 and hi == MAX_RANK else (lo, hi)


# The status of an argument outside what the page allows, where the page gives no other.
_PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")


@dataclass(frozen=True)
class ProductDTypes(_Json):
    soc: Soc
    dtypes: tuple[DType, ...]


@dataclass(frozen=True)
class ProductLine(_Json):
    soc: Soc
    line: int


@dataclass(frozen=True)
class Param(_Json):
    name: str
    c_type: str  # normalised C spelling, e.g. "const aclTensor*"
    kind: Optional[ParamKind]  # None: a C type the generator does not know (diagnosed)
    direction: Direction
    optional: bool = False
    dtypes: tuple[DType, ...] = ()
    # Where a product accepts other dtypes than `dtypes`; products not listed take `dtypes`.
    # In JSON a mapping {soc: [dtypes]}.
    dtypes_by_product: tuple[ProductDTypes, ...] = field(default=(), metadata={"mapping": ("soc", "dtypes")})
    # The page line that gives a product of `dtypes_by_product` its list, where a note under the table
    # does ("Atlas A2 ...：self和out不支持INT32数据类型", aclnnMaxDim.md:157): a dtype refused there cites
    # it rather than the parameter's row. In JSON a mapping {soc: line}.
    dtype_note_lines: tuple[ProductLine, ...] = field(default=(), metadata={"mapping": ("soc", "line")})
    formats: tuple[str, ...] = ()
    rank: Optional[tuple[int, int]] = None  # inclusive [lo, hi]
    # The error row that gives `rank` where the parameter's own row is silent ("input或out的维数大于8"):
    # a rank refused cites it; 0, the parameter's row gives it.
    rank_line: int = 0
    noncontiguous: Optional[bool] = None  # None: the page does not say
    empty_tensor: Optional[bool] = None
    description: str = ""
    usage: str = ""
    relations: tuple[Relation, ...] = ()
    # "预留参数": how the page reserves it (None: not reserved). Reserved.NULL: the caller passes NULL.
    reserved: Optional[Reserved] = None
    line: int = 0
    # Whether an index tensor's values may be negative, counting from the end of the dimension they
    # index ("取值范围[-self.shape[dim], self.shape[dim] - 1]", "支持负数索引"; False: "不支持负索引",
    # "仅支持非负索引"); None: the page does not say.
    negative_indices: Optional[bool] = None

    def __post_init__(self) -> None:
        assert self.name, "a parameter has a name"
        if self.rank is not None:
            lo, hi = self.rank
            assert 0 <= lo <= hi, f"{self.name}: rank bounds {self.rank}"
        socs = [p.soc for p in self.dtypes_by_product]
        assert len(socs) == len(set(socs)), f"{self.name}: one dtype list per product"
        assert self.reserved is not Reserved.NULL or (self.optional and self.kind is not None and self.kind.is_pointer), \
            f"{self.name}: a parameter that must be NULL is an optional pointer"

    @property
    def must_be_null(self) -> bool:
        """A reserved parameter the caller passes as NULL (phase 1 refuses anything else)."""
        return self.reserved is Reserved.NULL

    def documented_dtypes(self) -> tuple[DType, ...]:
        """Every dtype the page lists for the parameter on some product, in page order."""
        found = list(self.dtypes)
        for entry in self.dtypes_by_product:
            found.extend(d for d in entry.dtypes if d not in found)
        return tuple(found)

    def dtypes_for(self, soc: Soc) -> tuple[DType, ...]:
        for entry in self.dtypes_by_product:
            if entry.soc is soc:
                return entry.dtypes
        return self.dtypes

    def related(self, kind: RelationKind) -> tuple[str, ...]:
        return tuple(name for r in self.relations if r.kind is kind for name in r.others)

    @property
    def enforced_rank(self) -> Optional[tuple[int, int]]:
        """The rank bounds CANN enforces (`enforced_ranks` of the page's)."""
        return None if self.rank is None else enforced_ranks(self.rank)


@dataclass(frozen=True)
class ErrorCase(_Json):
    """One row of an API's error table: the status a call returns under a condition."""

    name: str  # ACLNN_ERR_PARAM_NULLPTR, ...
    code: int  # 161001, ...
    condition: str
    category: Optional[ErrorCategory] = None  # None: the condition could not be classified
    params: tuple[str, ...] = ()  # the parameters the condition names, in page order
    line: int = 0
    # The condition names no parameter but speaks of the op's attributes ("输入的属性不在支持的范围内":
    # aclnnMoeInitRoutingV3, whose constraints section says which attributes and values).
    about_attributes: bool = False
    # The condition says a quantity is below zero ("小于0", "negative"), not merely 0: an OUTPUT_SIZE
    # row of a window that must make an output dimension negative.
    below_zero: bool = False

    def __post_init__(self) -> None:
        assert self.code >= 0, f"status code {self.code}"


@dataclass(frozen=True)
class ExampleArg(_Json):
    """One argument of the GetWorkspaceSize call in a page's example, with the data it was given."""

    param: str
    dtype: Optional[DType] = None  # tensors and scalars: the aclDataType the example creates them with
    shape: Optional[tuple[int, ...]] = None  # tensors
    values: tuple[float, ...] = ()  # a tensor's host data (flattened), or a scalar's/attribute's value
    # A tensor list's tensors, or a scalar list's scalars, in order (each with its dtype, shape and
    # data; named by the list's parameter): aclnnForeachAbs's `std::vector<aclTensor*> tempInput{input1, input2}`.
    members: tuple["ExampleArg", ...] = ()
    text: Optional[str] = None  # a string's (char*) value: aclnnCrossEntropyLoss's reduction "mean"


@dataclass(frozen=True)
class ExampleCall(_Json):
    """The call an example makes, recovered from its C++ (inputs the golden can be computed from)."""

    args: tuple[ExampleArg, ...]
    line: int = 0
    # The parameters the call passes as nullptr (or NULL): a tensor the table requires, which the
    # example (a program the page's authors ran) shows absent (gen.model.example_evidence).
    null_params: tuple[str, ...] = ()

    def arg(self, param: str) -> Optional[ExampleArg]:
        for a in self.args:
            if a.param == param:
                return a
        return None


# --- What a page states across parameters, beyond one row ------------------------------------
#
# Each node carries the page line it was read from; the simulator checks each in phase 1 and the
# generated suites provoke each. A sentence the parser sees as such a rule but cannot read with
# confidence becomes a `relation-unread` diagnostic instead: no rule is better than a stricter one.


@dataclass(frozen=True)
class CombinationCell(_Json):
    """What one row of a dtype-combination table allows for one parameter."""

    param: str
    dtypes: tuple[DType, ...] = ()
    absent: bool = False  # "null": the parameter may be NULL in this combination
    same_as: str = ""  # "与x一致": the dtype the named parameter has in the call

    def __post_init__(self) -> None:
        assert self.dtypes or self.absent or self.same_as, f"{self.param}: a cell allows something"


@dataclass(frozen=True)
class DTypeCombination(_Json, _OnChips):
    """One row of a dtype-combination table ("输入和输出支持以下数据类型组合"): the API accepts a call
    when some row applying to the chip matches every parameter it names."""

    cells: tuple[CombinationCell, ...]
    products: tuple[Soc, ...] = ()  # the chips it applies to; () for every chip
    line: int = 0

    def __post_init__(self) -> None:
        assert self.cells, "a combination names parameters"

    def cell(self, param: str) -> Optional[CombinationCell]:
        return next((c for c in self.cells if c.param == param), None)

    def describe(self) -> str:
        parts = []
        for c in self.cells:
            allowed = [d.value for d in c.dtypes] + ([f"as {c.same_as}"] if c.same_as else []) + \
                (["null"] if c.absent else [])
            parts.append(f"{c.param} {'/'.join(allowed)}")
        chips = f" on {', '.join(s.value for s in self.products)}" if self.products else ""
        return f"dtype combination{chips}: {', '.join(parts)}"


class Extent(str, enum.Enum):
    """What a `Bound` counts in."""

    NUMBER = "number"  # a constant
    RANK = "rank"  # the rank of a tensor (a 0-d tensor counts as 1, as PyTorch's wrap_dim does)
    SIZE = "size"  # the size of one dimension of a tensor
    VALUE = "value"  # the value of another host argument (an int, a float, a scalar): "min不能大于max"
    # The element of another aclIntArray at the same position (its only one, when it has one
    # element, as "长度为1(kH=kW)" allows), divided by `Bound.divisor`: "小于等于kernelSize/2".
    ELEMENT = "element"
    # The size of the dimension of a tensor that element i of an array stands for: the array's elements
    # stand for the tensor's dimensions from `Bound.axis` (counted from the end) on, one each, and a
    # one-element array for each of them, as a pool's window arguments do ("长度为1(KD = KH = KW)或3(KD,
    # KH, KW)，数值...在对应的DHW维度上小于等于self的大小"): kernelSize[i] <= self.size(-3 + i).
    DIMENSION = "dimension"


@dataclass(frozen=True)
class Bound(_Json):
    """One end of a `ValueRange`: `offset` + `sign` × the extent (`tensor`'s rank, or the size of its
    dimension `axis`: a number, or the name of an integer parameter whose value is the dimension; or,
    for `Extent.VALUE`, the value of the host argument `tensor` names)."""

    offset: float = 0
    extent: Extent = Extent.NUMBER
    sign: int = 1
    tensor: str = ""
    axis: str = ""
    inclusive: bool = True
    divisor: int = 1  # what the extent is divided by (a real quotient): "kernelSize/2"

    def __post_init__(self) -> None:
        assert self.sign in (1, -1), f"sign {self.sign}"
        assert self.divisor >= 1, f"divisor {self.divisor}"
        assert (self.extent is Extent.NUMBER) == (not self.tensor), "an extent names its tensor"
        assert (self.extent in (Extent.SIZE, Extent.DIMENSION)) == bool(self.axis), "a size names its dimension"
        assert self.extent is not Extent.DIMENSION or (self.axis.startswith("-") and self.axis[1:].isdigit() and
                                                       int(self.axis) < 0), "an array stands for dimensions from the end"

    def describe(self) -> str:
        if self.extent is Extent.NUMBER:
            term = ""
        else:
            term = (f"rank({self.tensor})" if self.extent is Extent.RANK else self.tensor if self.extent is Extent.VALUE
                    else f"{self.tensor}[i]" if self.extent is Extent.ELEMENT
                    else f"size({self.tensor}, {self.axis} + i)" if self.extent is Extent.DIMENSION
                    else f"size({self.tensor}, {self.axis})")
            term += f"/{self.divisor}" if self.divisor != 1 else ""
            term = term if self.sign > 0 else "-" + term
        number = f"{self.offset:g}"
        if not term:
            return number
        return term if not self.offset else f"{term} {'+' if self.offset > 0 else '-'} {abs(self.offset):g}"


@dataclass(frozen=True)
class Condition(_Json):
    """The value of a host argument a rule holds under ("balanceMode为0时", "dropPadMode为1时"; a bool's
    true is 1)."""

    param: str
    value: float

    def describe(self) -> str:
        return f"when {self.param} == {self.value:g}"


@dataclass(frozen=True)
class ValueRange(_Json, _OnChips):
    """A host argument's value lies between two bounds (each element, for an aclIntArray): "dim取值
    范围为[-self.dim(), self.dim())", "index取值范围[0, self.size(dim))", "groupSize取值范围[1, 65536)"."""

    param: str
    low: Optional[Bound] = None
    high: Optional[Bound] = None
    line: int = 0
    # The chips it holds on ("Atlas A3 训练系列产品/Atlas A3 推理系列产品：取值范围(0, 1024]"); () for every chip.
    products: tuple[Soc, ...] = ()
    # The status of a value outside it where the error table gives another than ACLNN_ERR_PARAM_INVALID
    # (aclnnSleep's "cycles参数非正数" is 561002, its tiling's check); 0 where it gives that one.
    status: int = 0
    when: Optional[Condition] = None  # the argument's value it holds under; None: always
    # The part of an array it bounds, (first, count): `count` elements from `first`, a negative first
    # counting from the array's end ("padding前两个数值需小于self最后一维度的数值" is (0, 2), "后两个"
    # (-2, 2)); None: every element.
    elements: Optional[tuple[int, int]] = None

    def __post_init__(self) -> None:
        assert self.low is not None or self.high is not None, f"{self.param}: a range has a bound"
        assert self.elements is None or self.elements[1] > 0, f"{self.param}: a part of an array has elements"
        assert self.when is None or self.when.param != self.param, f"{self.param}: a range under its own value"

    def refuses(self, value: float, values: Mapping[str, Optional[float]]) -> bool:
        """Whether `value` of the parameter is outside the range's bounds of numbers and of other
        arguments' `values` (those absent from it are not judged, nor are bounds of shapes), where
        the `values` meet its condition."""
        if not _meets(self.when, values):
            return False
        if math.isnan(value):
            # In no range of numbers; a bound of another argument's value is a comparison a NaN does not
            # break (runtime/sim/src/opapi/rules.cpp CheckRange).
            return any(b is not None and b.extent is Extent.NUMBER for b in (self.low, self.high))
        for bound, sign in ((self.low, 1), (self.high, -1)):
            if bound is None or bound.extent not in (Extent.NUMBER, Extent.VALUE):
                continue
            other = values.get(bound.tensor) if bound.extent is Extent.VALUE else 0.0
            if other is None:
                continue
            margin = sign * (value - (bound.offset + other))
            if margin < 0 or (margin == 0 and not bound.inclusive):
                return True
        return False

    def describe(self) -> str:
        low = f"{'[' if self.low.inclusive else '('}{self.low.describe()}" if self.low else "(-inf"
        high = f"{self.high.describe()}{']' if self.high.inclusive else ')'}" if self.high else "inf)"
        part = ""
        if self.elements is not None:
            first, count = self.elements
            part = f"[{first}:{first + count or ''}]"
        return f"{self.param}{part} in {low}, {high}{_qualifiers(self.products, self.status, self.when)}"


@dataclass(frozen=True)
class ValueSet(_Json, _OnChips):
    """A host integer's value is one of a list that no range states, as it has gaps (each element, for
    an aclIntArray): "仅支持0、2、4", "取值为{1, 3}", "dstType支持取值2、3、29"."""

    param: str
    values: tuple[int, ...]
    line: int = 0
    products: tuple[Soc, ...] = ()  # as ValueRange's
    status: int = 0  # as ValueRange's
    when: Optional[Condition] = None  # as ValueRange's

    def __post_init__(self) -> None:
        assert self.values, f"{self.param}: a set has values"
        assert self.when is None or self.when.param != self.param, f"{self.param}: a set under its own value"
        assert list(self.values) == sorted(set(self.values)), f"{self.param}: a set's values ascend, once each"

    def refuses(self, value: float, values: Mapping[str, Optional[float]]) -> bool:
        """Whether `value` of the parameter is none of the set's, where the other arguments' `values`
        meet its condition."""
        return _meets(self.when, values) and value not in self.values

    def describe(self) -> str:
        return f"{self.param} in {{{', '.join(map(str, self.values))}}}" + \
            _qualifiers(self.products, self.status, self.when)


def _meets(when: Optional[Condition], values: Mapping[str, Optional[float]]) -> bool:
    """Whether arguments' `values` meet a rule's condition (an absent one: as a rule holds always)."""
    return when is None or values.get(when.param) == when.value


def _qualifiers(products: tuple[Soc, ...], status: int, when: Optional[Condition]) -> str:
    """What a value rule's describe() adds for its chips, condition and status, when they are not the defaults."""
    chips = f" on {', '.join(s.value for s in products)}" if products else ""
    return chips + (f" {when.describe()}" if when else "") + (f" (status {status})" if status else "")


@dataclass(frozen=True)
class ArrayLength(_Json):
    """An array argument has one of a list of lengths (an aclIntArray's, aclFloatArray's or
    aclBoolArray's element count): "长度为1或2", "数组长度必须为1或3", the error row "kernelSize的长度
    不等于1或者2", "padding的size不等于4". A NULL optional array is not judged."""

    param: str
    lengths: tuple[int, ...]
    line: int = 0
    status: int = 0  # as ValueRange's

    def __post_init__(self) -> None:
        assert self.lengths, f"{self.param}: a length rule has lengths"
        assert list(self.lengths) == sorted(set(self.lengths)) and self.lengths[0] >= 0, \
            f"{self.param}: lengths ascend, once each, from 0"

    def refuses(self, length: int) -> bool:
        return length not in self.lengths

    def describe(self) -> str:
        return f"len({self.param}) in {{{', '.join(map(str, self.lengths))}}}" + _qualifiers((), self.status, None)


@dataclass(frozen=True)
class DimEquality(_Json):
    """One dimension of a tensor equals one of another's ("weight的第0维与self的第1维相等"); negative
    axes count from the end ("最后一维" is -1)."""

    param: str
    axis: int
    other: str
    other_axis: int
    line: int = 0

    def describe(self) -> str:
        return f"{self.param}.shape[{self.axis}] == {self.other}.shape[{self.other_axis}]"


@dataclass(frozen=True)
class DTypeCondition(_Json):
    """The dtype a rule holds under: that of one of `params` (a tensor, a scalar, an aclDataType
    argument) is one of `dtypes` ("当y的数据类型为INT4时"; "当输出y1Out或y2Out的数据类型为INT4时" holds
    when either has it; "When the data type of yOut is INT32"). An absent parameter has no dtype."""

    params: tuple[str, ...]
    dtypes: tuple[DType, ...]

    def __post_init__(self) -> None:
        assert self.params and self.dtypes, "a dtype condition names parameters and dtypes"

    def meets(self, dtypes: Mapping[str, DType]) -> bool:
        """Whether parameters with `dtypes` (those absent from it have none) meet it."""
        return any(dtypes.get(p) in self.dtypes for p in self.params)

    def describe(self) -> str:
        return f"when the dtype of {' or '.join(self.params)} is {'/'.join(d.value for d in self.dtypes)}"


@dataclass(frozen=True)
class Divisibility(_Json, _OnChips):
    """A size is a multiple of `divisor` (a number, or an integer parameter's name): a tensor's
    dimension `axis` ("x的最后一维需要是8的倍数", "C需要能被groups整除"), or the value of an integer
    parameter when `axis` is None. It may hold on some chips, under a value of a host argument
    ("如果dstType为3(INT32)，shape的最后一维需要能被8整除") or under a dtype ("当y的数据类型为INT4时，x
    的尾轴必须为偶数"), and answer an error row's status."""

    param: str
    divisor: str
    axis: Optional[int] = None
    line: int = 0
    products: tuple[Soc, ...] = ()  # as ValueRange's
    status: int = 0  # as ValueRange's
    when: Optional[Condition] = None  # as ValueRange's
    when_dtype: Optional[DTypeCondition] = None

    def describe(self) -> str:
        what = self.param if self.axis is None else f"{self.param}.shape[{self.axis}]"
        condition = f" {self.when_dtype.describe()}" if self.when_dtype else ""
        return f"{what} % {self.divisor} == 0{condition}" + _qualifiers(self.products, self.status, self.when)


@dataclass(frozen=True)
class DimBytes(_Json, _OnChips):
    """What a tensor's dimension `axis` spans in bytes (its size times the element size of the tensor's
    dtype): at least `minimum` ("Atlas 推理系列产品：x、gamma输入的尾轴长度必须大于等于32 Bytes"; "The length
    of the last axis of x and gamma must be greater than or equal to 32 bytes"), a multiple of `multiple`
    ("不支持入参x的最后一个维度S2非32Byte对齐的场景"; "must be 32-byte aligned"); 0: no such bound. `axis`
    None: the whole tensor, every element of it ("gamma、scales1的长度必须大于等于32 Bytes"). An absent
    optional tensor is not judged. It may hold on some chips only, as a value rule may."""

    param: str
    axis: Optional[int]
    minimum: int = 0
    line: int = 0
    products: tuple[Soc, ...] = ()  # as ValueRange's
    status: int = 0  # as ValueRange's
    multiple: int = 0

    def __post_init__(self) -> None:
        assert self.minimum >= 0 and self.multiple >= 0 and (self.minimum or self.multiple), \
            f"{self.param}: a byte rule bounds the bytes"

    def least_size(self, dtype: DType) -> Optional[int]:
        """The least size of the dimension (of the element count, for the whole tensor) for elements
        of `dtype` (1 without a minimum); None for a
        dtype whose elements are not whole bytes (a sub-byte dtype: the page's bytes do not say how
        they pack)."""
        if not dtype.size:
            return None
        return max(1, -(-self.minimum // dtype.size))

    def measured(self, shape: Sequence[int]) -> Optional[int]:
        """The elements the rule counts in a tensor of `shape`: its dimension's size, or every element
        (None: a rank without the dimension, which the rank bounds judge)."""
        if self.axis is None:
            return functools.reduce(operator.mul, shape, 1)
        return shape[self.axis] if -len(shape) <= self.axis < len(shape) else None

    def size_step(self, dtype: DType) -> Optional[int]:
        """The number of elements of `dtype` the dimension's size (the element count) is a multiple of (1 without an
        alignment, or when an element is as large as it); None as least_size says."""
        if not dtype.size:
            return None
        return max(1, self.multiple // dtype.size) if self.multiple else 1

    def describe(self) -> str:
        bounds = ([f">= {self.minimum}"] if self.minimum else []) + ([f"% {self.multiple} == 0"] if self.multiple else [])
        what = f"{self.param}.numel()" if self.axis is None else f"{self.param}.shape[{self.axis}]"
        return f"{what} * itemsize {' and '.join(bounds)} bytes" + \
            _qualifiers(self.products, self.status, None)


@dataclass(frozen=True)
class ArrayProduct(_Json):
    """The product of an integer array's elements is at least the product of a tensor's last `last`
    dimensions: "outputSize的两个元素乘积值需大于等于self在H和W维度上的size乘积值", the error row
    "outputSize的乘积小于self的H轴与W轴的乘积" (aclnnMaxUnpool2d: an output plane with fewer elements than
    the pooled input's cannot receive each of them). A NULL optional array, an absent tensor or a rank
    without the dimensions (which the rank bounds judge) is not judged."""

    param: str
    tensor: str
    last: int
    line: int = 0
    status: int = 0  # as ValueRange's

    def __post_init__(self) -> None:
        assert 1 <= self.last <= MAX_RANK, f"{self.param}: the last {self.last} dimensions"

    def refuses(self, values: Sequence[int], shape: Sequence[int]) -> bool:
        """Whether an array of `values` falls short of a tensor of `shape` (one without the dimensions is not judged)."""
        return len(shape) >= self.last and math.prod(values) < math.prod(shape[-self.last:])

    def describe(self) -> str:
        return f"prod({self.param}) >= prod({self.tensor}.shape[-{self.last}:])" + _qualifiers((), self.status, None)


@dataclass(frozen=True)
class PaddedShape(_Json):
    """A tensor's shape is another's with its last dimensions widened by an integer array's pairs, the
    last dimension by the first pair (before, after), the one before it by the second, as F.pad orders
    them: "out倒数第二维度的数值等于self倒数第二维度的数值加padding后两个值，out最后一维度的数值等于self最后
    一维度的数值加padding前两个值" (the reflection, replication and circular pads). `pairs`: the
    dimensions the page widens, one per pair; 0: as many as the array has pairs (aclnnConstantPadNd's
    formula "dim0_{begin}+dim0_{in}+dim0_{end}" under "pad数组长度...不能超过self维度的两倍"). An absent
    tensor or array, an array of another length than 2 × `pairs` (an odd one, for 0), or an input with
    fewer dimensions (which the length and rank rules judge), is not judged; nor is a widening below 0
    (the pads' own rows judge it)."""

    param: str
    tensor: str
    padding: str
    pairs: int
    line: int = 0
    status: int = 0  # as ValueRange's

    def __post_init__(self) -> None:
        assert 0 <= self.pairs <= MAX_RANK, f"{self.param}: {self.pairs} padded dimensions"

    def expected(self, shape: Sequence[int], padding: Sequence[int]) -> Optional[tuple[int, ...]]:
        """The shape it gives a tensor of `shape` padded by `padding`; None where it does not judge."""
        pairs = self.pairs or len(padding) // 2
        if len(padding) != 2 * pairs or len(shape) < pairs:
            return None
        out = list(shape)
        for k in range(pairs):
            out[-1 - k] += padding[2 * k] + padding[2 * k + 1]
        return tuple(out) if min(out, default=0) >= 0 else None

    def describe(self) -> str:
        dimensions = f"its last {self.pairs} dimensions" if self.pairs else "a dimension per pair from the last"
        return (f"{self.param}.shape == {self.tensor}.shape with {dimensions} widened by "
                f"{self.padding}'s pairs (last dimension first)") + _qualifiers((), self.status, None)


@dataclass(frozen=True)
class ReducedShape(_Json):
    """A tensor's shape is another's reduced along the dimensions an argument names (an int or an int
    array; none, or an empty array, every dimension), each kept as 1 or dropped as a bool argument says:
    "若keepDim为true，除dim指定维度上的size为1以外，其余维度的shape需要与self保持一致", "out的shape不等于由self，
    dim，keepDim推导得到的shape". Either form is the rule (gen.conventions, convention 4: CANN copies its
    result into the output it is given), and a reduction to one value fills any one-element tensor, as the
    reduce and order families take them. Dimensions out of range or repeated are the value rules' and
    the families' to refuse, not judged here."""

    param: str
    tensor: str
    dims: str  # the int or int array of the reduced dimensions
    keepdim: str  # the bool that keeps them as 1
    line: int = 0
    status: int = 0  # as ValueRange's

    def forms(self, shape: Sequence[int], dims: Optional[Sequence[int]]) -> Optional[tuple[tuple[int, ...], ...]]:
        """The shapes it accepts for a source of `shape` reduced along `dims` (None: not given), kept
        form first; None where it does not judge (a dimension out of range or named twice)."""
        rank = len(shape)
        extent = max(rank, 1)
        if not dims:
            reduced = set(range(rank))
        else:
            wrapped = [d + extent if d < 0 else d for d in dims]
            if any(not 0 <= d < extent for d in wrapped) or len(set(wrapped)) != len(wrapped):
                return None
            reduced = set(wrapped) if rank else set()
        kept = tuple(1 if d in reduced else n for d, n in enumerate(shape))
        dropped = tuple(n for d, n in enumerate(shape) if d not in reduced)
        return kept, dropped

    def describe(self) -> str:
        return (f"{self.param}.shape == {self.tensor}.shape reduced along {self.dims}, kept as 1 when "
                f"{self.keepdim} (or dropped)") + _qualifiers((), self.status, None)


class ShapeForm(str, enum.Enum):
    """The shape a `ShapeRule` gives."""

    SAME = "same"  # the broadcast shape of its `others` (their shape, for one)
    SCALAR = "scalar"  # one element: () or [1]
    # No tensor at all: the caller passes a null pointer ("如果isSymmetrical是true，offsetOut需要传nullptr").
    ABSENT = "absent"
    # A rank within `ShapeRule.ranks`, beside the table's ("当quantMode = "dynamic"时，shape支持2-8维度").
    RANK = "rank"
    # A tensor, not a null pointer, where it is otherwise optional: a null-pointer row under a bool
    # argument's value ("当outputRstd为True时，传入rstdOut是空指针"); refused as ACLNN_ERR_PARAM_NULLPTR.
    PRESENT = "present"


@dataclass(frozen=True)
class ShapeRule(_Json):
    """A tensor's shape as a host argument decides it ("reduction为0时，out的shape与self一致；否则
    为[1]"), its ranks ("当quantMode = "dynamic"时，shape支持2-8维度"), or its absence ("如果isSymmetrical是
    true，offsetOut需要传nullptr"): when `when` has one of `values` (none of them, if `negated`; a bool's
    are "1" and "0"), `param` has `form`. Or, with `when_dtype` instead of `when` and `values` (both
    empty), when the dtype condition holds (does not, if `negated`): "类型为INT32时...；其他类型时，shape与x
    一致" is y's shape is x's unless y is INT32."""

    param: str
    when: str
    values: tuple[str, ...]
    form: ShapeForm
    others: tuple[str, ...] = ()
    negated: bool = False
    line: int = 0
    ranks: tuple[int, ...] = ()  # RANK's (least, most)
    when_dtype: Optional[DTypeCondition] = None

    def __post_init__(self) -> None:
        assert (self.when_dtype is None) == bool(self.when and self.values), \
            f"{self.param}: a shape rule has one condition, a host argument's values or a dtype"
        assert (self.form is ShapeForm.SAME) == bool(self.others), f"{self.param}: SAME names its tensors"
        assert (self.form is ShapeForm.RANK) == bool(self.ranks), f"{self.param}: RANK gives its ranks"
        assert not self.ranks or (len(self.ranks) == 2 and 0 <= self.ranks[0] <= self.ranks[1] <= MAX_RANK), \
            f"{self.param}: ranks {self.ranks}"

    def holds(self, value: Any) -> bool:
        """Whether a value of the host argument `when` meets the condition (a bool's true is "1",
        as `values` hold it)."""
        text = str(int(value)) if isinstance(value, (bool, int)) else str(value)
        return (text in self.values) != self.negated

    def meets(self, dtypes: Mapping[str, DType]) -> bool:
        """Whether parameters with `dtypes` meet a dtype condition (`when_dtype`)."""
        assert self.when_dtype is not None
        return self.when_dtype.meets(dtypes) != self.negated

    def describe(self) -> str:
        if self.when_dtype is not None:
            dtypes = "/".join(d.value for d in self.when_dtype.dtypes)
            condition = f"the dtype of {' or '.join(self.when_dtype.params)} is {'not ' if self.negated else ''}{dtypes}"
        else:
            condition = f"{self.when} {'not in' if self.negated else 'in'} {{{', '.join(self.values)}}}"
        if self.form is ShapeForm.ABSENT:
            return f"when {condition}: {self.param} is a null pointer"
        if self.form is ShapeForm.PRESENT:
            return f"when {condition}: {self.param} is given (not a null pointer)"
        if self.form is ShapeForm.RANK:
            return f"when {condition}: {self.param} has rank {self.ranks[0]}-{self.ranks[1]}"
        shape = f"the shape of {' and '.join(self.others)}" if self.others else "one element"
        return f"when {condition}: {self.param} has {shape}"


@dataclass(frozen=True)
class API(_Json):
    name: str  # aclnnLeakyReluBackward
    workspace_fn: str  # aclnnLeakyReluBackwardGetWorkspaceSize
    # The caller's arguments of the GetWorkspaceSize function, in prototype order, without
    # workspaceSize and executor.
    params: tuple[Param, ...] = ()
    errors: tuple[ErrorCase, ...] = ()
    formula: str = ""
    constraints: str = ""
    example: str = ""  # the 调用示例 C++, verbatim
    # The aclnnop/ header the page's example includes for this API ("" if it names none). CANN's
    # header names do not follow the API names (aclnnAdds is in aclnnop/aclnn_add.h).
    header: str = ""
    example_call: Optional[ExampleCall] = None
    # What the page states across parameters (its usage notes, 约束说明, error rows), read as rules.
    dtype_combinations: tuple[DTypeCombination, ...] = ()
    value_ranges: tuple[ValueRange, ...] = ()
    value_sets: tuple[ValueSet, ...] = ()
    array_lengths: tuple[ArrayLength, ...] = ()
    dim_equalities: tuple[DimEquality, ...] = ()
    divisibility: tuple[Divisibility, ...] = ()
    shape_rules: tuple[ShapeRule, ...] = ()
    dim_bytes: tuple[DimBytes, ...] = ()
    array_products: tuple[ArrayProduct, ...] = ()
    padded_shapes: tuple[PaddedShape, ...] = ()
    reduced_shapes: tuple[ReducedShape, ...] = ()
    # Whether the page speaks of broadcasting the API's tensors (a broadcast relation, a parameter's
    # notes, the formula's section): where a kernel family's rule lets shapes broadcast, the tests
    # vary them so only then (gen.emit.tests.family).
    speaks_of_broadcasting: bool = False
    # The required outputs the page's null-pointer rows leave out, which a NULL reaches late, as
    # ACLNN_ERR_INNER_NULLPTR (gen.conventions.inner_null_outputs reads the rows when the page is parsed).
    inner_null_outputs: tuple[str, ...] = ()
    # Whether a row of the error table is about formats ("数据格式不在支持的范围内", "私有格式", a dtype row
    # that names formats too): a Format column of plain layouts is checked then (gen.conventions 2).
    error_rows_name_formats: bool = False
    # The inputs that broadcast to a product of tensors (aclnnAddmm's self), which phase 1 takes 0-d
    # below a least rank of 1 (gen.conventions 12, zero_d_addends reads the notes when the page is parsed).
    zero_d_addends: tuple[str, ...] = ()
    line: int = 0
    example_line: int = 0

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        assert len(names) == len(set(names)), f"{self.name}: duplicate parameter names {names}"
        known = set(names)
        for rule in self.rules():
            named = _rule_params(rule)
            assert named <= known, f"{self.name}: {type(rule).__name__} names {sorted(named - known)}"

    def rules(self) -> tuple[Any, ...]:
        """Every cross-parameter rule of the page, in page order (lint shows them so)."""
        found: list[Any] = [*self.dtype_combinations, *self.value_ranges, *self.value_sets, *self.array_lengths,
                            *self.dim_equalities,
                            *self.divisibility, *self.shape_rules, *self.dim_bytes, *self.array_products,
                            *self.padded_shapes, *self.reduced_shapes]
        return tuple(sorted(found, key=lambda r: r.line))

    def dtype_checked(self, param: Param) -> bool:
        """Whether phase 1 checks the parameter's dtype against its list. Not an aclScalar's (or a
        scalar list's) unless an unsupported-dtype row of the error table names it: CANN casts
        host scalars to the computation's dtype, and rejects a scalar's dtype only where it says so.
        Never a scalar list's: op-plugin hands the aclnnForeach*ScalarList APIs Python's floats as
        DOUBLE whatever their pages list (FLOAT, INT64), and CANN casts them as it does scalars."""
        if param.kind is ParamKind.SCALAR_LIST:
            return False
        if param.kind is not ParamKind.SCALAR:
            return True
        return any(e.category is ErrorCategory.UNSUPPORTED_DTYPE and param.name in e.params for e in self.errors)

    def dtype_status(self, param: Param) -> int:
        """The status of a dtype outside `param`'s list where the error table gives it another than
        ACLNN_ERR_PARAM_INVALID; 0 where it gives that one (or none). The unsupported-dtype rows
        that name the parameter decide, else those that name none ("输入或输出的数据类型不在支持的
        范围之内" speaks of them all): aclnnDequantBias lists x, weightScale and out under 161002
        and "activateScaleOptional、biasOptional的数据类型不在支持的范围内" under 561002, the
        tiling's check of the inputs its op_api leaves alone. A parameter listed under both (as
        aclnnAddRmsNormDynamicQuantV2 lists every one) is checked first, as 161002; under two other
        statuses, the page does not say which: 161002 as well."""
        rows = [e for e in self.errors if e.category is ErrorCategory.UNSUPPORTED_DTYPE]
        codes = {e.code for e in rows if param.name in e.params} or {e.code for e in rows if not e.params}
        return codes.pop() if len(codes) == 1 and _PARAM_INVALID not in codes else 0

    def page_row(self, category: ErrorCategory, param: Optional[str] = None) -> Optional[ErrorCase]:
        """The error row a kernel family's own check enforces, asked for by what it is about: a family
        refusing with it answers its status and cites its line. `ErrorCategory.OUTPUT_SIZE`: the row
        refusing an output the op's arithmetic sizes below 1 ("通过公式推导出的out的shape的某个轴为0", a
        pool's window over its input); `ErrorCategory.VALUE` with `param`: the row bounding that
        parameter's values ("blank不满足取值范围", "dim的值不在[-self的维度数量，self的维度数量-1]之间",
        "index取值范围不在[0，self.shape[dim])范围内") — the one naming it, or of several the one naming it
        first (aclnnAvgPool3d's kernelSize: "kernelSize存在某维度的值小于等于0或大于self对应维度上的值", not
        the stride row that also bounds padding by it). None where the page has no such row, or several
        that answer alike: a refusal then cites nothing rather than a row it may not enforce."""
        rows = [row for row in self.errors if row.category is category and (param is None or param in row.params)]
        if param is not None and len(rows) > 1:
            rows = [row for row in rows if row.params[0] == param]
        return rows[0] if len(rows) == 1 or (rows and param is None) else None

    def rank_status(self) -> int:
        """The one status the page's error rows about ranks give, when it is not ACLNN_ERR_PARAM_INVALID;
        with no such row, the one its shape rows give (aclnnRotaryPositionEmbedding: a shape outside
        the constraints, its 4 dimensions included, is 561002). Phase 1 answers it for a rank outside
        the table's or a shape rule's."""
        codes = ({row.code for row in self.errors if row.category is ErrorCategory.RANK}
                 or {row.code for row in self.errors if row.category is ErrorCategory.SHAPE_MISMATCH})
        return codes.pop() if len(codes) == 1 and _PARAM_INVALID not in codes else 0

    def shape_status(self) -> int:
        """The one status the error rows about shapes that disagree or do not broadcast give, where it
        is not ACLNN_ERR_PARAM_INVALID (aclnnAddLora's "多个输入tensor之间的shape信息不匹配" is 561002, its
        tiling's check; the corpus's aclnnNsaCompressWithCache's "input和weight不满足broadcast关系" too);
        0 otherwise. Phase 1 answers it for every shape check of the API: its relations, dimension
        equalities and shape rules, and a family's shapes. (No page gives the two kinds of rows two
        statuses.)"""
        codes = {row.code for row in self.errors if row.category in (ErrorCategory.SHAPE_MISMATCH, ErrorCategory.BROADCAST)}
        return codes.pop() if len(codes) == 1 and _PARAM_INVALID not in codes else 0

    def param(self, name: str) -> Param:
        # The emitters ask for parameters by name once per parameter or rule: a scan of `params`
        # per question was quadratic on a page of thousands (issue 25). The index is built on the
        # first question and kept beside the fields (not one of them: equality, hashing, JSON and
        # pickles see the fields alone, see __getstate__).
        index = self.__dict__.get("_params_by_name")
        if index is None:
            index = {p.name: p for p in self.params}
            object.__setattr__(self, "_params_by_name", index)
        try:
            return index[name]
        except KeyError:
            raise KeyError(f"{self.name} has no parameter {name!r}") from None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_params_by_name"}

    def shape_group(self, name: str) -> tuple[str, ...]:
        """The tensors whose shapes the page ties to `name`'s, directly or through others (SAME_SHAPE
        or BROADCAST, stated on either side; the parser folds the error rows' in), `name` included,
        in prototype order. One reading for the bindings' output shapes, the tests' shape groups
        and the simulator's checks."""
        found = self.shape_groups().get(name)
        if found is not None:
            return found
        return (name,) if any(p.name == name for p in self.params) else ()

    def shape_groups(self) -> dict[str, tuple[str, ...]]:
        """`shape_group` of every tensor, computed in one pass over the parameters and their
        relations (a page with thousands of tensors asked each one's group in a pass of its own:
        quadratic, issue 25). The tensors of a group share one tuple."""
        tensors = [p for p in self.params if p.kind is ParamKind.TENSOR]
        links: dict[str, set[str]] = {p.name: set() for p in tensors}
        for p in tensors:
            for other in p.related(RelationKind.SAME_SHAPE) + p.related(RelationKind.BROADCAST):
                if other in links and other != p.name:
                    links[p.name].add(other)
                    links[other].add(p.name)
        component: dict[str, int] = {}  # tensor -> the number of its group
        for group, start in enumerate(links):
            if start in component:
                continue
            component[start] = group
            frontier = [start]
            while frontier:
                for other in links[frontier.pop()]:
                    if other not in component:
                        component[other] = group
                        frontier.append(other)
        members: dict[int, list[str]] = {}
        for p in self.params:  # prototype order
            if p.name in component:
                members.setdefault(component[p.name], []).append(p.name)
        groups = {key: tuple(names) for key, names in members.items()}
        return {name: groups[key] for name, key in component.items()}

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.direction is not Direction.OUT)

    @property
    def outputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.direction is not Direction.IN)


@dataclass(frozen=True)
class Page(_Json):
    source: str  # the page's path as given to the parser
    kind: PageKind
    title: str = ""
    description: str = ""  # 功能说明 / Function, as text
    products: tuple[Product, ...] = ()
    apis: tuple[API, ...] = ()
    links: tuple[Link, ...] = ()
    params: tuple[Param, ...] = ()  # op READMEs only: their parameter table
    diagnostics: tuple[Diagnostic, ...] = ()
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        assert self.schema_version == SCHEMA_VERSION, f"schema {self.schema_version}"
        names = [a.name for a in self.apis]
        assert len(names) == len(set(names)), f"{self.source}: duplicate APIs {names}"

    def supports(self, soc: Soc) -> Optional[bool]:
        """Whether the product table lists `soc` as supported, in any of its rows (a note may
        support a chip its table row marks unsupported: aclnnScatterReduce's Ascend 950); None
        when it does not list it."""
        rows = [product.supported for product in self.products if product.soc is soc]
        return any(rows) if rows else None

    @property
    def has_errors(self) -> bool:
        return any(d.level is Level.ERROR for d in self.diagnostics)

    def to_json(self, indent: Optional[int] = 2) -> str:
        data = self.to_dict()
        # schema_version first: a reader can check it before anything else.
        ordered = {"schema_version": data.pop("schema_version"), **data}
        if indent is None:
            return json.dumps(ordered, ensure_ascii=False)
        return jsontext.dumps(ordered, indent) + ("\n" if indent else "")

    @classmethod
    def from_json(cls, text: str) -> "Page":
        data = json.loads(text)
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"IR schema version {version!r}; this generator reads {SCHEMA_VERSION}")
        return cls.from_dict(data)


def _rule_params(rule: Any) -> set[str]:
    """The parameters a cross-parameter rule names."""
    if isinstance(rule, DTypeCombination):
        return {c.param for c in rule.cells} | {c.same_as for c in rule.cells if c.same_as}
    named = {rule.param}
    if isinstance(rule, (ValueRange, ValueSet)) and rule.when is not None:
        named.add(rule.when.param)
    if isinstance(rule, ValueRange):
        for bound in (rule.low, rule.high):
            if bound is not None and bound.tensor:
                named.add(bound.tensor)
                if bound.axis and not bound.axis.lstrip("-").isdigit():
                    named.add(bound.axis)
    elif isinstance(rule, DimEquality):
        named.add(rule.other)
    elif isinstance(rule, ArrayProduct):
        named.add(rule.tensor)
    elif isinstance(rule, PaddedShape):
        named.update((rule.tensor, rule.padding))
    elif isinstance(rule, ReducedShape):
        named.update((rule.tensor, rule.dims, rule.keepdim))
    elif isinstance(rule, Divisibility):
        if not rule.divisor.isdigit():
            named.add(rule.divisor)
        if rule.when is not None:
            named.add(rule.when.param)
        if rule.when_dtype is not None:
            named.update(rule.when_dtype.params)
    elif isinstance(rule, ShapeRule):
        if rule.when:
            named.add(rule.when)
        if rule.when_dtype is not None:
            named.update(rule.when_dtype.params)
        named.update(rule.others)
    return named


def pages_to_json(pages: Sequence[Page]) -> str:
    """Several pages as one JSON array, in the given order (`gen inspect --json`)."""
    body = ",\n".join(page.to_json(indent=2).rstrip("\n") for page in pages)
    return f"[\n{body}\n]\n" if pages else "[]\n"


# --- Semantics: what a page says in prose and formulas, written down once per op -------------
#
# A page's tables give types, ranks and error rows; what the op computes, which values it
# rejects and which PyTorch call is its golden reference are prose and LaTeX. The semantics
# library (`semantics/*.toml`, tables keyed by API name) states them once per API, whichever
# directory its page is generated from (see `gen.semantics.reader` for the file format); they feed
# the simulator's kernels and the generated tests.


class IntegerMath(str, enum.Enum):
    """How the simulator computes an op on integral dtypes."""

    FLOAT = "float"  # convert to float, compute, convert back (activation functions)
    EXACT = "exact"  # integer arithmetic in int64 (add, mul, neg, ...)


@dataclass(frozen=True)
class ArgValue(_Json):
    """A value given to one host-side parameter, by name."""

    param: str
    value: Any  # bool, int, float, a string or a list of them, as the semantics file writes it


@dataclass(frozen=True)
class ValueCheck(_Json):
    """A phase-1 check that the page states in prose (e.g. "selfIsResult为true时，negativeSlope不可以是负数")."""

    when: str  # C++ boolean expression over the host-side parameters; true means reject
    message: str
    status: int = abi.status_code("ACLNN_ERR_PARAM_INVALID")
    line: int = 0
    # Host-side values that make `when` true: the C++ is not parsed, so the generated test of the
    # row provokes the check with these.
    violation: tuple[ArgValue, ...] = ()


@dataclass(frozen=True)
class InputDomain(_Json):
    """The range generated tests draw a tensor's values from (e.g. positive for Log)."""

    param: str
    low: float
    high: float

    def __post_init__(self) -> None:
        assert self.low < self.high, f"{self.param}: empty domain [{self.low}, {self.high}]"


@dataclass(frozen=True)
class ClientDTypes(_Json):
    """Dtypes a framework built against real CANN passes to one tensor parameter where the page's
    table or its "数据类型与x一致" relations refuse them (torch_npu's op-plugin gives aclnnLayerNorm
    FLOAT statistics for a FLOAT16 input): CANN runs that framework's calls, so the simulator admits
    them too (gen.model.client_evidence), as it admits what a page's example passes."""

    param: str
    dtypes: tuple[DType, ...]


@dataclass(frozen=True)
class OpSemantics(_Json):
    api: str
    source: str
    # C++ expression of one output element in terms of the parameters (tensor elements and
    # scalars in the compute type `T`, other attributes as their C types); "" = not simulated.
    kernel: str = ""
    # The kernel's spelling for the complex compute types (std::complex<float>/<double>), where
    # `kernel` means something else or nothing on complex values (comparisons, std::max); None:
    # `kernel` serves them too, "": not simulated in complex arithmetic.
    kernel_complex: Optional[str] = None
    # The result's dtype from the inputs' promoted one (a FLOAT result of integral inputs, a real
    # result of complex ones, BOOL whatever the inputs): the output is allocated in it, and out=
    # must be castable from it (互转换关系; BOOL converts to every dtype).
    result_rule: ResultRule = ResultRule.PROMOTED
    # Python expression of the result in terms of the parameters as torch tensors / Python
    # values, e.g. "torch.ops.aten.leaky_relu_backward(gradOutput, self, negativeSlope, selfIsResult)".
    golden: str = ""
    integer_math: IntegerMath = IntegerMath.FLOAT
    # The result is PyTorch's bit for bit in every dtype (a sign, a selection: no rounding), so
    # the tests compare it exactly, NaN signs and -0.0 included.
    exact: bool = False
    checks: tuple[ValueCheck, ...] = ()
    domains: tuple[InputDomain, ...] = ()
    # Where the page is wrong or silent and the semantics file knows better; reported as
    # warnings on the page (e.g. SeluBackward's formula omits SELU's scale).
    errata: tuple[str, ...] = ()
    line: int = 0
    # A kernel family of the simulator (gen.families) instead of an elementwise `kernel`: its
    # name, the op, the page's parameter playing each role, and the options the file states.
    family: str = ""
    op: str = ""
    roles: tuple[ArgValue, ...] = ()  # role -> the page's parameter name
    options: tuple[ArgValue, ...] = ()  # option -> number
    # A valid call for the generated tests where the page's example gives none: a shape per
    # tensor (a list of shapes per tensor list), a value per other parameter.
    call: tuple[ArgValue, ...] = ()
    # Shapes of optional tensors the valid call leaves out (NULL), for the calls that pass them: a
    # dtype-combination row that gives one a dtype (aclnnGroupedMatmulV5's antiquant rows).
    optional_call: tuple[ArgValue, ...] = ()
    # The page's table wins over its example where they disagree (an example that breaks the
    # table: CANN refuses its call, as aclnnGeluBackward's INT32 gradOutput); by default an
    # example, a program that ran, widens what the table admits (gen.model.example_evidence).
    table_over_example: bool = False
    # What a framework's calls admit beyond the table, and which client and call show it.
    client_dtypes: tuple[ClientDTypes, ...] = ()
    # Pointer parameters a framework passes NULL where the page does not say they may be
    # (torch_npu's npu_dynamic_quant: aclnnDynamicQuantV2's offsetOut), and ranks it passes beyond
    # the table's (inclusive [lo, hi] by parameter); both need client_evidence.
    client_optional: tuple[str, ...] = ()
    client_ranks: tuple[ArgValue, ...] = ()
    # Tensors whose "shape与x一致" relations to each other a framework breaks with shapes that
    # broadcast (torch_npu's polar: op-plugin shapes the output as abs and angle broadcast): the
    # relations become broadcast relations (an output: the inputs' broadcast shape).
    client_broadcast: tuple[str, ...] = ()
    # aclTensorList parameters a framework passes one aclTensor for (op-plugin's _gru_npu_backward
    # gives aclnnGRUBackward its hx [D * num_layers, B, H] as it gives aclnnGRU's): phase 1 reads
    # that tensor as the list of it (gen.emit.sim's SpecRow.tensor_for_list).
    client_tensor_for_list: tuple[str, ...] = ()
    # Outputs a framework passes empty where the page's row refuses empty tensors, because the
    # call's flag skips them (op-plugin's npu_rms_norm_quant_v2 gives aclnnRmsNormQuantV3 an rstd of
    # shape [0] with outputRstd false): empty admitted; the family still sizes the output when the
    # flag asks for it, so an empty one is then refused by its shape.
    client_empty: tuple[str, ...] = ()
    client_evidence: str = ""
    # What an elementwise kernel reads for an optional tensor input the caller passes as null: a
    # bound's identity (aclnnClampTensor's absent clipValueMin bounds nothing), "lowest" or "highest"
    # of the compute type (±infinity for floating ones). Absent without one: not simulated.
    absent: tuple[ArgValue, ...] = ()
    # A random op: the golden draws from the same law with PyTorch's generator, and the tests
    # compare by law (reproducible for a seed and offset, another offset another sample, the
    # golden's distribution), not element by element; `invariant`: a Python expression over the
    # inputs and results, true of every draw (a permutation's values, a range).
    law: bool = False
    invariant: str = ""

    @property
    def client_widens(self) -> bool:
        """The file states what a framework's calls admit beyond the page (each fact needs client_evidence)."""
        return bool(self.client_dtypes or self.client_optional or self.client_ranks or self.client_broadcast
                    or self.client_tensor_for_list or self.client_empty)

    def domain(self, param: str) -> Optional[InputDomain]:
        for d in self.domains:
            if d.param == param:
                return d
        return None

    @property
    def computes(self) -> bool:
        """Whether the simulator has a kernel for it: an elementwise kernel or a family."""
        return bool(self.kernel.strip() or self.family)

    def role(self, name: str) -> Optional[str]:
        """The page's parameter the file binds to a family role (None: not bound explicitly)."""
        return next((r.value for r in self.roles if r.param == name), None)

    def option(self, name: str) -> Optional[float]:
        return next((float(o.value) for o in self.options if o.param == name), None)

    def call_value(self, param: str) -> Any:
        """The file's value (or shape) of a parameter in its valid call; None when it gives none."""
        return next((a.value for a in self.call if a.param == param), None)

    def optional_shape(self, param: str) -> Any:
        """The file's shape of an optional tensor its valid call leaves out; None when it gives none."""
        return next((a.value for a in self.optional_call if a.param == param), None)
