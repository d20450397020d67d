"""What CANN does that its pages leave unsaid: each convention written once, here.

A page states what one implementation checks; some of what every implementation does is stated on
no page, or stated so inconsistently that reading each page literally refuses calls CANN accepts
(measured against CANN's own op_api unit tests, replayed through the C ABI). Each convention below
says what it covers and the evidence for it. A page that contradicts one keeps what it says: the
twin chips with two different lists get a diagnostic (twin-chips-differ); the others are read from
the page's own error table and rows (a format row, the null-pointer row, a dtype row naming the
scalar), so a page that states the contrary is followed as it states it. The parser and the
emitters ask these functions; none of them spells a convention again.

1. `twin_chip_dtypes`: Atlas A2 (Ascend910B) and Atlas A3 (Ascend910_93) share one dtype list:
   what a page adds for one of them alone, the other accepts too.
2. `formats_checked`: a page whose Format column lists only plain layouts (`PLAIN_FORMATS`: ND,
   NCHW, NHWC, NCDHW, NDHWC, HWCN, NCL, NC, DHWCN) and whose error table names no format condition
   checks no format: it takes every plain layout and the private ones (NC1HWC0, FRACTAL_NZ) alike.
   A column that lists a private format, or an error row about formats, is a check; there an ND
   column still takes every plain layout (one memory layout to CANN's checks).
3. `inner_null_outputs`: an output the null-pointer row of the error table leaves out is not
   checked by CANN's CheckNotNull: a null there fails later, as ACLNN_ERR_INNER_NULLPTR.
4. A reduction's output may be given in either form of its reduced shape, the reduced dimensions
   kept as 1 or dropped, whatever keepdim says: CANN copies its result into the output it is
   given (the same elements, in the same order). The simulator's reduce and order families apply
   it (runtime/sim/src/opapi/families/reduce.cpp, PlanReduce, and order.cpp, the median, nanmedian
   and kthvalue along a dimension: `other_form`), and so does phase 1's check of a page's reduced
   shape (gen.ir.ReducedShape, runtime/sim/src/opapi/rules.cpp); tests/parse/test_conventions.py calls aclnnAmax
   both ways, tests/families/test_phase1_fidelity.py aclnnMedianDim.
5. `scalar_cast`: a host scalar (aclScalar) is cast to the computation's dtype: the dtype
   relations its row states ("dtype需要与gradOutput保持一致") do not hold it, unless a dtype row of
   the error table names it.
6. `class_predicate_inputs`: the floating-class predicates (aclnnIsFinite, aclnnIsPosInf,
   aclnnIsNegInf) take integer and BOOL inputs as aclnnIsInf's page documents: an integer is
   finite and never infinite.
7. `unlisted_scalar_dtypes`: a host scalar whose row lists no dtype ("-") takes the dtypes of the
   tensors it is computed with, the ones 5. casts it to.
8. `castable_to`: "数据类型需要是可转换为FLOAT的数据类型" lists every dtype CANN's 互转换关系 casts to
   FLOAT, not FLOAT alone; `castable_from`: "BOOL可转换的数据类型", every dtype BOOL casts to.
9. A null member of a tensor list is ACLNN_ERR_PARAM_INVALID (161002), not a null pointer
   (161001): the 10 foreach pages of the corpus that state a status for it all give 161002 ("x中存在
   空指针Tensor": aclnnForeachAddcdivList, aclnnForeachLogInplace, ...), the other 68 state none,
   and CANN's foreach APIs share their checks. The foreach family applies it
   (runtime/sim/src/opapi/families/foreach.cpp); tests/families/test_sim_foreach_family.py passes a null member.
   Not a rule of every list: aclnnAddN's page gives 161001 to "tensors中的某个Tensor是空指针".
10. `integer_inputs_cast`: a math op whose result is floating takes an integer input by casting it
   to the result's dtype before its kernel (CANN's l0 dispatch inserts the Cast): a page that lists
   integer dtypes for such an input lists them for every chip that has the kernel. What covers the
   cases the pages leave out: 1. (an A3 note alone: aclnnAcosh, aclnnCosh) and 6. (aclnnIsFinite,
   aclnnIsPosInf, aclnnIsNegInf); the pages that list integers on some chips only keep their lists,
   with a diagnostic (integer-cast-per-chip) naming the chips that refuse them.
11. `nonempty_planes_contradicted`: the tensor a pool or a padding walks (the pool family's
   source) has non-empty planes, and channels where it has a batch: every dimension but the
   leading one is greater than 0, as aten's pooling and padding shape checks require ("non-empty
   3D or 4D (batch mode) tensor expected") and CANN's pooling APIs refuse a channel dimension of 0
   (nInputPlane 0) with 161002 though their pages say nothing of empty tensors
   (aclnnMaxPool2dWithIndices, aclnnMaxPool3dWithArgmax, aclnnAvgPool3d, aclnnAdaptiveAvgPool2d).
   An empty batch passes. The pool family applies it (runtime/sim/src/opapi/families/pool.cpp,
   CheckNonEmptyPlanes) where the page states nothing; a page that says its input supports empty
   tensors keeps what it says, with a diagnostic (empty-planes-allowed).
   tests/families/test_phase1_fidelity.py calls the pools with no channel.

12. `zero_d_addends`: the tensor a fused product adds ("self需要与mat1@mat2满足broadcast关系": the bias
   of aclnnAddmm, aclnnAddmv, aclnnAddbmm, aclnnBaddbmm) may be 0-d where its row's lowest rank is 1:
   CANN's checks of such an operand bound its rank from above (CHECK_MAX_DIM) and broadcast it to the
   product's shape, which a 0-d tensor reaches as any other; op-plugin passes aten's 0-d bias
   unchanged in its normal path (AddmmKernelNpuOpApi.cpp, AddmvKernelNpuOpApi.cpp, ...:
   `torch.addmm(torch.tensor(1.), m1, m2)`, a Python number's bias). The parser records the names
   (API.zero_d_addends); phase 1 lowers their least rank to 0 (`enforced_rank`).

13. `enforced_rank` too: the input of an op that adds one dimension (every output of ranks 1-8, the
   input 1-7: aclnnStack's tensors, aclnnOneHot's self) may be 0-d: its 1-7 is the general 1-8 less
   the added dimension, whose lower bound CANN does not enforce (Param.enforced_rank); op-plugin
   passes torch.stack's 0-d tensors unchanged (op_plugin_functions.yaml: stack, exec aclnnStack).

14. `empty_array_absent`: an optional array (an aclIntArray, aclFloatArray or aclBoolArray whose row
   or name says optional) given with no element is absent, whatever length its row states: op-plugin
   passes an at::IntArrayRef, empty when the user gives none, and the API takes its default then
   (MoeInitRoutingV2KernelNpuOpApi.cpp: npu_moe_init_routing_v2's active_expert_range, [] by default,
   passed unchanged to aclnnMoeInitRoutingV3's activeExpertRangeOptional, "长度为2", whose kernel then
   routes every expert). The parser admits length 0 in such an array's length rule (ArrayLength);
   tests/torch_npu/test_moe.py calls it without the range.

15. A NaN lies in no range of numbers: a host float or aclScalar that is NaN is refused by every range with a
   number for a bound ("取值范围[0, 1]", "prob的值不在0和1之间", aclnnPdist's "p为负数或nan"), as CANN checks a
   range as the condition a value must meet (OP_CHECK(p >= 0 && p <= 1, ...)), which NaN fails; a bound that is
   another argument's value (aclnnHardtanh's "clipValueMin的数值大于clipValueMax") is the page's comparison of the
   two, which NaN meets no more than it breaks. gen.ir.ValueRange.refuses and the simulator's CheckRange
   (runtime/sim/src/opapi/rules.cpp) apply it; the generated suites and the leniency probe break each real range
   with NaN. Not recorded: whether a range was stated as one or as its error row's refusal ("lambda小于0"), which
   CANN may write as `lambda < 0`, which NaN passes.

How many APIs of a corpus each convention changes phase 1 of: `python -m gen.census DIR`
(each switched off in turn, the pages parsed again, the simulator's spec rows compared). On
../shared/corpus (978 APIs bound), 2026-11-29: 1. 21 APIs, 2. 649, 3. 28, 5. 20, 6. 3, 7. 3, 8. 2
(aclnnSwish, aclnnSwishBackward: the other pages of 8. check no scalar dtype; their bindings take
the scalars now). 4., 9. and 11. live in the simulator's families (9.: the 76 APIs of the foreach
family; 11.: the pool family's APIs whose source row does not forbid empty tensors, 37 of the
39 the corpus binds, 30 of op_docs' 32); 10. is a diagnostic, on 5 inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Mapping, Optional, Sequence

from gen.ir import MAX_RANK, API, Diagnostic, Direction, DType, ErrorCategory, Level, Param, ParamKind, Soc

# --- 1. chips that share their dtype lists ------------------------------------------------------

# Atlas A3 is built from the dies of Atlas A2: CANN's op_api implementations choose their dtype
# lists with `socVersion == ASCEND910B || socVersion == ASCEND910_93`, and of the 228 parameters
# of the corpus whose pages state a list for both, all 228 state the same one. The pages of
# ops-math mark their per-chip notes (`<!-- npu="A3" -->`) and often keep the A3 note alone
# ("<term>Atlas A3 ...</term>：self数据类型额外支持BFLOAT16" on aclnnAsin, aclnnAcosh, aclnnErf, ...),
# which read literally refuses on Ascend910B what CANN's Ascend910B accepts.
TWIN_CHIPS: tuple[tuple[Soc, Soc], ...] = ((Soc.ASCEND910B, Soc.ASCEND910_93),)


def twin_chip_dtypes(name: str, per_chip: Mapping[Soc, Sequence[DType]], base: Sequence[DType], line: int,
                     diags: list[Diagnostic]) -> dict[Soc, list[DType]]:
    """`per_chip` (a parameter's dtype list per chip, as its page's notes give them; `base`, the
    list of the chips they leave out) with what the page states for one twin alone given to the
    other: the dtypes it adds, not the ones it lacks. The twin the page leaves unsaid keeps the
    table's list where that is wider (never stricter than the page: aclnnGcd's A3 note "不支持
    UINT8、INT8" leaves Ascend910B its table's list; aclnnInplaceAsin's A3 note "selfRef数据类型
    支持BFLOAT16" adds BFLOAT16 to it). Both stated and different: the page is kept, and a
    diagnostic says the convention does not hold there."""
    out = {soc: list(dtypes) for soc, dtypes in per_chip.items()}
    for first, second in TWIN_CHIPS:
        stated = [soc for soc in (first, second) if soc in out]
        if len(stated) == 1:
            other = second if stated[0] is first else first
            twin = out[stated[0]]
            widened = list(twin) if set(base) <= set(twin) else list(base) + [d for d in twin if d not in base]
            if widened != list(base):
                out[other] = widened
            if base and not set(base) & set(twin):
                # Only dtypes the table lacks: what the note adds, as its sibling note says ("selfRef
                # 数据类型支持BFLOAT16" on aclnnInplaceAsin, "self和out数据类型额外支持BFLOAT16" on
                # aclnnAsin), not the twin's whole list (Ascend910_93 refusing FLOAT).
                out[stated[0]] = widened
        elif len(stated) == 2 and set(out[first]) != set(out[second]):
            diags.append(Diagnostic(
                Level.INFO, line, "twin-chips-differ",
                f"{name}: the page lists other dtypes for {first.value} "
                f"({', '.join(d.value for d in out[first])}) than for {second.value} "
                f"({', '.join(d.value for d in out[second])}), chips CANN gives one list: each keeps its own"))
    return out


# --- 2. plain layouts on a page that says ND ----------------------------------------------------

# The plain (non-private) layouts: one memory layout to CANN's format checks, whichever the tensor
# is tagged with. The simulator's kPlainFormats is rendered from this set (gen/emit/enums.py,
# include/aclnn_sim/plain_formats.h).
PLAIN_FORMATS = frozenset({"ND", "NCHW", "NHWC", "NCDHW", "NDHWC", "HWCN", "NCL", "NC", "DHWCN"})


def formats_checked(api: API, param: Param) -> bool:
    """Whether phase 1 checks `param`'s format against its page's Format column.

    A column of plain layouts only ("ND", "ND、NCHW") describes the data, not a check: CANN's
    implementations of such pages check a format where their error table says so ("self的数据格式
    不在支持的范围内": aclnnReciprocal, aclnnAmax, aclnnMean refuse private formats; a row may name
    the format beside the dtype, or say "私有格式"), and 830 of the
    885 plain-only pages of the corpus have no such row; their implementations take any format,
    plain (aclnnLogicalOr with HWCN, aclnnMinDim with NHWC, aclnnSwishBackward with NCHW) and
    private (aclnnLeakyRelu with NC1HWC0) alike. A page that lists a private format (NC1HWC0,
    FRACTAL_NZ) states a layout the kernel depends on: its column is checked, row or not."""
    if any(f not in PLAIN_FORMATS for f in param.formats):
        return True
    return api.error_rows_name_formats


def error_rows_name_formats(api: API) -> bool:
    """Whether a row of the error table is about formats, whatever else it is about (the parser records
    it as API.error_rows_name_formats, which formats_checked reads)."""
    return any(e.category is ErrorCategory.FORMAT or _FORMAT_WORDS.search(e.condition) for e in api.errors)


# An error row about formats, whatever else it is about ("self和out的数据类型和数据格式不在支持的范围之内":
# aclnnRsqrt; "x、y或z使用了私有格式（private format）": aclnnXlog1py).
_FORMAT_WORDS = re.compile(r"格式|\bformats?\b", re.I)


# --- 3. null outputs that CANN reports as inner errors ------------------------------------------

# The words of a null-pointer row that name the outputs without naming them ("输出"): such a row
# checks every output. So does a row with a word that is no parameter's name ("or out" on a page
# whose output is gradInput, "predictedLogits" for predictedLogitsOut, "m < 64时").
_OUTPUT_WORDS = ("输出", "返回")
_WORD = re.compile(r"[A-Za-z_]\w*")


def inner_null_outputs(api: API) -> tuple[str, ...]:
    """The required outputs CANN's CheckNotNull does not check, by the page's error table.

    The null-pointer row of an error table lists what CheckNotNull checks ("传入的self是空指针":
    aclnnMin). Where the row names every required input by name, no output, and no other word
    ("out", "输出", an output's name spelt otherwise), an output passed as NULL passes the check, the op computes into a tensor it
    creates, and copying that into the caller's NULL output fails: ACLNN_ERR_INNER_NULLPTR (561103),
    after every other check. () where the table has no such row, or the row names no input."""
    rows = [e for e in api.errors if e.category is ErrorCategory.NULL_POINTER]
    named = {name for row in rows for name in row.params}
    if not rows or not named:
        return ()
    inputs = [p.name for p in api.params if _required_pointer(p) and p.direction is Direction.IN]
    outputs = [p.name for p in api.params if _required_pointer(p) and p.direction is Direction.OUT]
    if not inputs or any(name not in named for name in inputs) or any(name in named for name in outputs):
        return ()
    # A row the classifier left conditional still names what CheckNotNull checks under its condition
    # ("当outputMask[1]为true，传入的gradGammaOut是空指针时": aclnnGroupNormBackward): such an output
    # is checked, not left to fail late.
    conditional = {name for row in api.errors if row.category is None and _null_words().search(row.condition)
                   for name in row.params}
    text = " ".join(row.condition for row in rows)
    for param in sorted(api.params, key=lambda p: -len(p.name)):  # gradOutput is no "out"
        text = text.replace(param.name, " ")
    if _WORD.search(text) or any(word in text for word in _OUTPUT_WORDS):
        return ()
    return tuple(name for name in outputs if name not in named and name not in conditional)


@functools.lru_cache(maxsize=1)
def _null_words() -> re.Pattern[str]:
    # The parser's words, imported when first needed: its modules compile their expressions as they
    # load, which the stages after parsing (this module's other readers) and a run that parses no
    # page have no use for.
    from gen.parse.extractors.conditions import NULL_POINTER_WORDS

    return re.compile(NULL_POINTER_WORDS, re.I)


def _required_pointer(param: Param) -> bool:
    return param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST) and not param.optional


def null_output_status(api: API, param: Param) -> Optional[str]:
    """The status name a NULL `param` gets where it is not CANN's ACLNN_ERR_PARAM_NULLPTR."""
    return "ACLNN_ERR_INNER_NULLPTR" if param.name in api.inner_null_outputs else None


# --- 5. host scalars are cast -----------------------------------------------------------------------

_DTYPE_ROWS = (ErrorCategory.UNSUPPORTED_DTYPE, ErrorCategory.DTYPE_MISMATCH)


def scalar_cast(api: API, param: Param) -> bool:
    """Whether CANN casts `param` to the computation's dtype instead of checking its own.

    An aclScalar (or a list of them) is a host value the implementations convert to the dtype
    they compute in (`ConvertScalar`): aclnnThresholdBackward takes a FLOAT threshold with FLOAT16
    tensors, though its row says "dtype需要与gradOutput保持一致" (a sentence of the tensor rows,
    copied). Its list and its dtype relations are checked only where a dtype row of the error
    table names it (`API.dtype_checked` reads the list the same way)."""
    if param.kind not in (ParamKind.SCALAR, ParamKind.SCALAR_LIST):
        return False
    return not any(e.category in _DTYPE_ROWS and param.name in e.params for e in api.errors)


# --- 6. integer inputs of the floating-class predicates ----------------------------------------------

# aclnnIsInf's page lists INT8, INT16, INT32, INT64, UINT8 and BOOL beside the floating types; the
# pages of its siblings list the floating types alone, and CANN's implementations of all four answer
# an integer input without a kernel (PyTorch's isfinite/isposinf/isneginf on an integral tensor: an
# integer is finite, never infinite), so CANN's unit tests pass them integer tensors.
CLASS_PREDICATES = ("aclnnIsFinite", "aclnnIsInf", "aclnnIsPosInf", "aclnnIsNegInf")
_INTEGER_INPUTS = (DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.UINT8, DType.BOOL)


def class_predicate_inputs(api: str, params: Sequence[Param]) -> list[Param]:
    """`params` with the integer and BOOL dtypes added to the input of a floating-class predicate
    (on every chip its page lists dtypes for); the other APIs' as they are."""
    if api not in CLASS_PREDICATES:
        return list(params)
    out = []
    for param in params:
        if param.direction is Direction.IN and param.kind is ParamKind.TENSOR and param.dtypes:
            param = dataclasses.replace(
                param, dtypes=_widened(param.dtypes),
                dtypes_by_product=tuple(dataclasses.replace(p, dtypes=_widened(p.dtypes)) for p in param.dtypes_by_product))
        out.append(param)
    return out


def _widened(dtypes: Sequence[DType]) -> tuple[DType, ...]:
    return tuple(dtypes) + tuple(d for d in _INTEGER_INPUTS if d not in dtypes)


# --- 7. a host scalar whose row lists no dtype --------------------------------------------------------

def unlisted_scalar_dtypes(param: Param, params: Sequence[Param]) -> tuple[DType, ...]:
    """The dtypes of an aclScalar whose row leaves its dtype cell empty ("-"): the dtypes of its API's
    results (output and in-place tensors, in their order), the computation 5. casts it to; an API with
    no typed result, its input tensors'. aclnnIndexAdd's alpha ("数据类型可转换成self与source推导后的
    数据类型"), aclnnScatterValue's value ("无其他数据类型限制"), aclnnPdistForward's pScalar (a range
    alone) state no list. Not an index's dtypes: a value is never cast to the INT64 of the positions it
    is written at. Empty for any other parameter."""
    if param.kind is not ParamKind.SCALAR or param.dtypes:
        return ()
    tensors = [p for p in params if p.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST)]
    for directions in ((Direction.OUT, Direction.INOUT), (Direction.IN,)):
        dtypes: list[DType] = []
        for other in tensors:
            if other.direction in directions:
                dtypes += [d for d in other.dtypes if d not in dtypes]
        if dtypes:
            return tuple(dtypes)
    return ()


# --- 8. "a dtype castable to FLOAT" ---------------------------------------------------------------------

def castable_to(target: DType) -> tuple[DType, ...]:
    """The dtypes a row that says "数据类型需要是可转换为FLOAT的数据类型" ("convertible to FLOAT")
    accepts: `target` first (the one a binding picks for a Python number), then every real dtype of
    PyTorch's promotion lattice that casts to it (BOOL, the integers, the floating types;
    `DType.can_cast`, CANN's 互转换关系). aclnnSwish's betaOptional, aclnnElu's alpha, aclnnHistc's
    min and max: an aclScalar converted to the computation's dtype (5.), which their error rows may
    check (aclnnSwish: "self、betaOptional或out的数据类型不在支持的范围内"), and which recorded as
    FLOAT alone refused the DOUBLE scalar a C++ `1.0` makes."""
    castable = [d for d in DType if d.promotes_with_others and not d.is_complex and d.can_cast(target)]
    return (target,) + tuple(d for d in castable if d is not target)


def castable_from(source: DType) -> tuple[DType, ...]:
    """The dtypes a row that says "数据类型要求为BOOL可转换的数据类型" (a dtype BOOL converts to)
    accepts: `source` first, then every dtype of PyTorch's promotion lattice it casts to (aclnnLtScalar's
    out on the experimental page; the table pages of the comparisons list these same dtypes)."""
    return (source,) + tuple(d for d in DType if d.promotes_with_others and d is not source and source.can_cast(d))


# --- 10. integer inputs of a floating result are cast ------------------------------------------------------

_INTEGERS = frozenset(d for d in DType if d.is_integral or d is DType.BOOL)
_MATH_RESULTS = frozenset({DType.FLOAT16, DType.BFLOAT16, DType.FLOAT, DType.DOUBLE, DType.COMPLEX64, DType.COMPLEX128})


def integer_inputs_cast(api: str, params: Sequence[Param], line: int, diags: list[Diagnostic]) -> None:
    """Diagnoses a page that contradicts convention 10: an input of `api`, whose one output lists
    floating dtypes only, takes integers on some chips (the Cast before the kernel) and not on
    others (aclnnErfinv's self on Ascend910, aclnnSoftplusBackward's). The page is kept: the chips
    it names may lack the cast, and nothing says otherwise."""
    outputs = [p for p in params if p.direction is Direction.OUT and p.kind is ParamKind.TENSOR]
    if len(outputs) != 1:
        return
    results = set(outputs[0].documented_dtypes())
    if not results or not results <= _MATH_RESULTS or not any(d.is_floating for d in results):
        return  # a quantised result (FLOAT8, HIFLOAT8) takes integer scales and offsets, no cast
    for param in params:
        if param.direction is not Direction.IN or param.kind is not ParamKind.TENSOR or not param.dtypes:
            continue
        lists = {"the other chips (the table)": param.dtypes, **{e.soc.value: e.dtypes for e in param.dtypes_by_product}}
        taking = [chip for chip, dtypes in lists.items() if _INTEGERS & set(dtypes)]
        refusing = [chip for chip, dtypes in lists.items() if not _INTEGERS & set(dtypes)]
        if taking and refusing:
            diags.append(Diagnostic(
                Level.INFO, param.line or line, "integer-cast-per-chip",
                f"{api}.{param.name}: integer inputs, cast to the floating result, are listed for "
                f"{', '.join(taking)} and not for {', '.join(refusing)}: each keeps its list"))


# --- 11. the planes of a pool are non-empty ------------------------------------------------------------

# The kernel families whose source tensor is walked plane by plane (runtime/sim: CheckNonEmptyPlanes).
PLANE_FAMILIES = ("pool",)


def nonempty_planes_contradicted(api: API, family: str, source: str, line: int) -> list[Diagnostic]:
    """Diagnoses a page that contradicts convention 11: the `source` tensor of a pooling or
    padding API (`family`, one of PLANE_FAMILIES) whose row says it supports empty tensors, which
    the simulator then accepts with any empty dimension, as the page says."""
    if family not in PLANE_FAMILIES or source not in {p.name for p in api.params}:
        return []
    param = api.param(source)
    if param.empty_tensor is not True:
        return []
    return [Diagnostic(Level.INFO, param.line or line, "empty-planes-allowed",
                       f"{api.name}.{source}: the page supports empty tensors, where CANN's pooling and padding "
                       "refuse an empty plane or channel dimension (gen.conventions 11): the page is followed")]


# --- 12. the 0-d addend of a fused product ---------------------------------------------------------

_SENTENCE = re.compile(r"[。；;\n]")
_BROADCAST_WORD = re.compile(r"broadcast|广播", re.I)
_PRODUCT_WORD = re.compile(r"@|乘积|⊗|\\otimes|\bproduct\b", re.I)


def empty_array_absent(param: Param) -> bool:
    """14.: an optional array may be given empty, meaning absent, whatever length its row states."""
    return param.optional and param.kind in (ParamKind.INT_ARRAY, ParamKind.FLOAT_ARRAY, ParamKind.BOOL_ARRAY)


def zero_d_addends(api: API) -> tuple[str, ...]:
    """The input tensors of lowest rank 1 whose notes say they broadcast to a product of tensors, in
    one sentence ("shape在alpha不为0时需要与mat@vec满足broadcast关系"): a 0-d one broadcasts there too."""
    found = []
    for param in api.params:
        if param.kind is not ParamKind.TENSOR or param.direction is not Direction.IN or not param.rank:
            continue
        sentences = _SENTENCE.split(param.usage)
        if param.rank[0] == 1 and any(_BROADCAST_WORD.search(s) and _PRODUCT_WORD.search(s) for s in sentences):
            found.append(param.name)
    return tuple(found)


def enforced_rank(api: API, param: Param) -> Optional[tuple[int, int]]:
    """The rank bounds phase 1 checks: `Param.enforced_rank`, from 0 for a 0-d addend (12.) and for
    the input of an op that adds a dimension (13.)."""
    bounds = param.enforced_rank
    if bounds and (param.name in api.zero_d_addends or adds_a_dimension_to(api, param)):
        return (0, bounds[1])
    return bounds


def adds_a_dimension_to(api: API, param: Param) -> bool:
    outputs = [p.rank for p in api.params if p.direction is Direction.OUT and p.rank is not None]
    return (param.direction is Direction.IN and param.rank == (1, MAX_RANK - 1) and bool(outputs)
            and all(rank == (1, MAX_RANK) for rank in outputs))
